import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from './ports';
import type { Problem, ScanResult, SkippedFile, WorkflowState } from './types';
import { loadWorkspaceContext, type WorkspaceContext } from './workspaceContext';
import { parseWorkflowText } from './workflow';
import { sha256 } from './hash';
import { validateDelegation } from './delegation';

export interface ScanOptions {
  /** Overrides on top of each root's `.waymark/config.yaml`. */
  overrides?: Record<string, unknown>;
  logger?: Logger;
  /** Reuse already loaded contexts (by absolute root). */
  contexts?: Map<string, WorkspaceContext>;
  /** Clock for ttl/waiver checks. */
  now?: () => Date;
}

/** Folders never walked, whatever the globs say. */
export const ALWAYS_SKIPPED_DIRS = new Set(['node_modules', '.git']);

const BINARY_SNIFF_BYTES = 8000;

/** True when the bytes look binary (a NUL byte in the first 8000 bytes). */
export function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/** Result of reading one candidate file. */
export interface FileReadResult {
  state?: WorkflowState;
  problems: Problem[];
  skipped?: SkippedFile;
  isWorkflow: boolean;
}

/**
 * Reads and parses one file under a context. Size, binary and disappearance are reported in
 * `skipped`; never throws.
 */
export function readWorkflowFileSync(file: string, ctx: WorkspaceContext): FileReadResult {
  const max = ctx.config.limits.maxFileBytes;
  const gone = (e: unknown): FileReadResult => {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') return { problems: [], isWorkflow: false, skipped: { file, reason: 'not-a-file', detail: 'a directory' } };
    return { problems: [], isWorkflow: false, skipped: { file, reason: 'unreadable', detail: code === 'ENOENT' ? 'file disappeared before it could be read' : (e as Error).message } };
  };
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    return gone(e);
  }
  let buf: Buffer;
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { problems: [], isWorkflow: false, skipped: { file, reason: 'not-a-file', detail: st.isDirectory() ? 'a directory' : 'not a regular file' } };
    if (st.size > max) return { problems: [], isWorkflow: false, skipped: { file, reason: 'too-large', detail: `${st.size} bytes > limits.maxFileBytes ${max}` } };
    buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < st.size) {
      const r = fs.readSync(fd, buf, n, st.size - n, n);
      if (r === 0) break;
      n += r;
    }
    if (n < st.size) buf = buf.subarray(0, n);
  } catch (e) {
    return gone(e);
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      // already closed or gone: nothing to release
    }
  }
  if (looksBinary(buf)) return { problems: [], isWorkflow: false, skipped: { file, reason: 'binary', detail: 'contains NUL bytes' } };
  // Cheap pre-check: no opening fence, no frontmatter.
  const off = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  if (!(buf[off] === 0x2d && buf[off + 1] === 0x2d && buf[off + 2] === 0x2d)) return { problems: [], isWorkflow: false };
  const text = buf.toString('utf8');
  const parsed = parseWorkflowText(file, text, ctx, { contentHash: sha256(buf) });
  return { state: parsed.state, problems: parsed.problems, isWorkflow: parsed.isWorkflow };
}

/** Lists candidate files of a root (include globs minus exclude globs), and directories named like candidates. */
export function listCandidates(ctx: WorkspaceContext, logger?: Logger): { files: string[]; skipped: SkippedFile[] } {
  const files: string[] = [];
  const skipped: SkippedFile[] = [];
  const max = ctx.config.limits.maxFiles;
  const matches = (rel: string) => ctx.include.some((r) => r.test(rel)) && !ctx.exclude.some((r) => r.test(rel));
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > 64 || files.length >= max) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if (depth === 0) skipped.push({ file: dir, reason: 'unreadable', detail: (e as Error).message });
      else logger?.debug(`[scan] cannot list ${dir}: ${(e as Error).message}`);
      return;
    }
    for (const ent of entries) {
      const name = ent.name;
      const childRel = rel ? `${rel}/${name}` : name;
      const abs = path.join(dir, name);
      let isDir = ent.isDirectory();
      let isFile = ent.isFile();
      if (ent.isSymbolicLink()) {
        try {
          const st = fs.statSync(abs);
          isFile = st.isFile();
          isDir = false; // Never follow directory links: no loops, no escaping the root.
          if (st.isDirectory()) continue;
        } catch {
          continue;
        }
      }
      if (isDir) {
        if (ALWAYS_SKIPPED_DIRS.has(name)) continue;
        if (ctx.exclude.some((r) => r.test(`${childRel}/`))) continue;
        if (matches(childRel)) skipped.push({ file: abs, reason: 'not-a-file', detail: 'a directory named like a workflow file' });
        walk(abs, childRel, depth + 1);
      } else if (isFile) {
        if (matches(childRel)) files.push(abs);
      }
    }
  };
  walk(ctx.root, '', 0);
  if (files.length >= max) logger?.warn(`[scan] ${ctx.root}: stopped at limits.maxFiles = ${max}`);
  return { files, skipped };
}

/** The context whose root contains `file` (deepest root wins). */
export function contextFor(file: string, contexts: Iterable<WorkspaceContext>): WorkspaceContext | undefined {
  let best: WorkspaceContext | undefined;
  for (const c of contexts) {
    if (file === c.root || file.startsWith(c.root.endsWith(path.sep) ? c.root : c.root + path.sep)) {
      if (!best || c.root.length > best.root.length) best = c;
    }
  }
  return best;
}

/**
 * Scans every root: lists candidate files, reads and parses them, validates each, then runs the
 * cross-file checks (delegation), whose problems are added to the states they concern.
 */
export async function scanRoots(roots: string[], opts: ScanOptions = {}): Promise<ScanResult & { contexts: Map<string, WorkspaceContext> }> {
  const absRoots = [...new Set(roots.map((r) => path.resolve(r)))];
  const contexts = new Map<string, WorkspaceContext>();
  const problems: Problem[] = [];
  const skipped: SkippedFile[] = [];
  const workflows: WorkflowState[] = [];
  let files = 0;
  for (const root of absRoots) {
    let ctx = opts.contexts?.get(root);
    if (!ctx) {
      const loaded = await loadWorkspaceContext(root, opts.overrides, { now: opts.now });
      ctx = loaded.context;
      problems.push(...loaded.problems);
    }
    contexts.set(root, ctx);
    const listed = listCandidates(ctx, opts.logger);
    skipped.push(...listed.skipped);
    files += listed.files.length;
    for (let i = 0; i < listed.files.length; i++) {
      const file = listed.files[i];
      // Another root nested inside this one owns its files.
      if (absRoots.length > 1 && contextForRoots(file, absRoots) !== root) continue;
      const r = readWorkflowFileSync(file, ctx);
      if (r.skipped) skipped.push(r.skipped);
      if (r.state) workflows.push(r.state);
      else if (r.problems.length) problems.push(...r.problems);
      if (i % 500 === 499) await new Promise((res) => setImmediate(res));
    }
  }
  for (const p of validateDelegation(workflows)) {
    const s = workflows.find((w) => w.file === p.file);
    if (s) s.problems.push(p);
    else problems.push(p);
  }
  opts.logger?.info(`[scan] ${absRoots.length} root(s), ${files} candidate file(s), ${workflows.length} workflow(s), ${skipped.length} skipped`);
  return { roots: absRoots, workflows, problems, skipped, files, contexts };
}

function contextForRoots(file: string, roots: string[]): string | undefined {
  let best: string | undefined;
  for (const r of roots) if (file.startsWith(r + path.sep) && (!best || r.length > best.length)) best = r;
  return best;
}

/** Every problem of a scan: per-file (in states) plus file-level and config ones. */
export function allProblems(result: Pick<ScanResult, 'workflows' | 'problems'>): Problem[] {
  return [...result.problems, ...result.workflows.flatMap((w) => w.problems)];
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import { listCandidates } from '../store/scan';
import type { WorkflowState } from '../types';
import { loadWorkspaceContext, type WorkspaceContext } from '../store/workspaceContext';
import { parseWorkflowText } from '../model/workflow';
import { splitFrontmatter } from '../model/frontmatter';
import { sha256 } from '../model/hash';

/** One workflow file as read for the protocol: its state (when readable), hashes and times. */
export interface FileRead {
  file: string;
  exists: boolean;
  text?: string;
  state?: WorkflowState;
  /** Why the state could not be read (missing file, no/broken frontmatter). */
  error?: string;
  /** sha256 of the Markdown body (everything after the frontmatter). */
  bodyHash?: string;
  mtimeMs?: number;
}

const contexts = new Map<string, { fingerprint: string; context: Promise<WorkspaceContext> }>();

/**
 * What the context is built from, cheaply: the config file, the definitions and the BMAD
 * manifest (size and mtime of each). A long-lived process (the extension) sees edits to them.
 */
function contextFingerprint(root: string): string {
  const parts: string[] = [];
  const stamp = (p: string) => {
    try {
      const st = fs.statSync(p);
      parts.push(`${p}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push(`${p}:-`);
    }
  };
  stamp(path.join(root, '.waymark', 'config.yaml'));
  const defs = path.join(root, '.waymark', 'workflows');
  stamp(defs);
  try {
    for (const name of fs.readdirSync(defs).sort()) stamp(path.join(defs, name));
  } catch {
    // no definitions folder
  }
  stamp(path.join(root, '_bmad'));
  stamp(path.join(root, '_bmad', '_config', 'workflow-manifest.csv'));
  return parts.join('|');
}

/** The root's workspace context (config, definitions, BMAD catalog), reloaded when its sources change. */
export function contextFor(root: string): Promise<WorkspaceContext> {
  const fingerprint = contextFingerprint(root);
  const cached = contexts.get(root);
  if (cached && cached.fingerprint === fingerprint) return cached.context;
  const context = loadWorkspaceContext(root).then((r) => r.context);
  contexts.set(root, { fingerprint, context });
  return context;
}

export function bodyHashOf(text: string): string {
  const split = splitFrontmatter(text);
  return sha256(split.hasFrontmatter && split.closed ? split.body : text);
}

/** Reads and parses one workflow file; never throws for a missing or broken file. */
export function readWorkflowFile(ctx: WorkspaceContext, file: string): FileRead {
  let text: string;
  let mtimeMs: number;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return { file, exists: false, error: `${file} is not a file` };
    mtimeMs = st.mtimeMs;
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { file, exists: false, error: code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file}: ${(e as Error).message}` };
  }
  const parsed = parseWorkflowText(file, text, ctx);
  const out: FileRead = { file, exists: true, text, mtimeMs, bodyHash: bodyHashOf(text) };
  if (parsed.state) out.state = parsed.state;
  else if (parsed.isWorkflow) out.error = parsed.problems[0]?.message ?? 'the frontmatter could not be read';
  else out.error = 'no workflow frontmatter';
  return out;
}

/**
 * Every workflow file of a root: the scan's candidates (config include/exclude globs) whose
 * frontmatter carries workflow state, plus those that try to but cannot be read.
 */
export async function listWorkflowFiles(root: string): Promise<FileRead[]> {
  const ctx = await contextFor(root);
  const out: FileRead[] = [];
  for (const p of listCandidates(ctx).files) {
    try {
      if (fs.statSync(p).size > ctx.config.limits.maxFileBytes) continue;
    } catch {
      continue;
    }
    const r = readWorkflowFile(ctx, p);
    if (r.state || (r.error && r.error !== 'no workflow frontmatter')) out.push(r);
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

import { ENCODING_SNIFF_BYTES, encodingRefusal, opensWithFence } from './safeRead';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../ports';
import type { Problem, ScanResult, SkippedFile, WorkflowState } from '../types';
import { loadWorkspaceContext, type WorkspaceContext } from './workspaceContext';
import { parseWorkflowText } from '../model/workflow';
import { sha256 } from '../model/hash';
import { validateDelegation } from '../model/delegation';
import { checkSprints, type SprintReport } from '../bmad/sprint';
import { cacheFilesEnabled, withReadHeads } from '../bmad/sprintCache';
import { ReadAhead, READ_AHEAD_MIN_FILES, type AheadRead } from './readAhead';
import { contextFingerprint, loadScanIndex, makeEntryLine, scanIndexPath, restoreEntry, sameKey, saveScanIndex, RACY_WINDOW_MS, type FileKey, type IndexEntry, type SaveOutcome } from './scanIndex';

export interface ScanOptions {
  /** Overrides on top of each root's `.waymark/config.yaml`. */
  overrides?: Record<string, unknown>;
  logger?: Logger;
  /** Reuse already loaded contexts (by absolute root). */
  contexts?: Map<string, WorkspaceContext>;
  /** Clock for ttl/waiver checks. */
  now?: () => Date;
  /**
   * Use the persisted scan index (`.waymark/cache/scan-index.jsonl` under each root) so
   * unchanged files are not read or parsed again. Default true; `WAYMARK_SCAN_INDEX=0` turns it
   * off when not given here.
   */
  index?: boolean;
  /**
   * When the index is written: after the scan returns (default, `indexWritten` settles), before,
   * or only when the caller asks (`writeIndex()`; `indexWritten` then settles at once, nothing written).
   */
  indexWrite?: 'deferred' | 'sync' | 'manual';
  /** Files changed this close (ms) before a scan are hash-verified next time. Default RACY_WINDOW_MS; tests lower it. */
  racyWindowMs?: number;
  /**
   * Also check BMAD sprint ledgers (sprint-status.yaml, story files, epics, gates) and add their
   * drift problems; the sprints read come back in `sprints` (by root) for the project view.
   */
  sprint?: boolean;
  /** Hears the workflows read so far after the first 100 files and then every 500, the files done and listed in this root. */
  onProgress?: (workflows: readonly WorkflowState[], done: number, listed: number) => void;
  /** The first `onProgress` after this many files instead of 100, in a root of more than 100 (ScanProgress.firstProgressFiles). */
  firstProgressFiles?: number;
  /**
   * Read files ahead on a second thread when a root lists at least this many and has no index to
   * answer from (readAhead.ts). Default READ_AHEAD_MIN_FILES; `Infinity` never, tests lower it.
   */
  readAheadFrom?: number;
  /** Filled with the stat key of every candidate file as the scan read it (or found it unchanged). */
  fileKeys?: Map<string, FileKey>;
  /** Also give the thread back after this many ms of reading since the last turn (StateCoreInit.scanSliceMs). */
  sliceMs?: number;
  /** Asked at each turn given back: a promise holds the scan until it settles (ScanProgress.hold). */
  hold?: () => Promise<void> | undefined;
}

/** How a scan used the index, per root. */
export interface ScanIndexReport {
  root: string;
  /** Entries reused without reading the file. */
  hits: number;
  /** Racy entries reused after a content-hash check. */
  verified: number;
  /** Files read and parsed. */
  parsed: number;
  /** A usable index was found (missing, damaged or made under another configuration: false). */
  hadIndex: boolean;
  saved?: SaveOutcome | 'unchanged';
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

/** A read plus what the scan index keys it by. */
interface DetailedRead {
  result: FileReadResult;
  /** Stat of the open file, taken before its bytes were read. */
  key?: FileKey;
  /** SHA-256 of the bytes, when the file was read (frontmatter files only). */
  hash: string;
  /** The decoded text, when parsed. */
  text?: string;
}

/**
 * The modification time (ms) of the file a state was read from, as stat-ed by the read that made
 * the state (or that found it unchanged in the scan index). The project view takes a file's last
 * edit from here instead of stat-ing every in-progress file a second time.
 */
const fileTimes = new WeakMap<WorkflowState, number>();

/** When the file a state was read from was last modified (ms), if this process read it; else undefined. */
export function readFileTime(state: WorkflowState): number | undefined {
  return fileTimes.get(state);
}

/**
 * Reads and parses one file under a context. Size, binary and disappearance are reported in
 * `skipped`; never throws.
 */
export function readWorkflowFileSync(file: string, ctx: WorkspaceContext): FileReadResult {
  return readDetailed(file, ctx).result;
}

function readDetailed(file: string, ctx: WorkspaceContext, wantHashOnly?: string): DetailedRead & { sameHash?: boolean } {
  return judgeBytes(file, ctx, readBytes(file, ctx.config.limits.maxFileBytes), wantHashOnly);
}

/** The bytes of one file as the scan reads them (or why none were read), before they are judged. */
interface FileBytes {
  /** Stat of the open file, taken before its bytes were read. */
  key?: FileKey;
  buf?: Buffer;
  /** Why no bytes are judged (not a regular file, too large, unreadable). */
  skipped?: SkippedFile;
  /** SHA-256 of `buf`, when the reader worked it out already (the read-ahead thread). */
  hash?: string;
  /**
   * The bytes decoded, instead of `buf`, when the reader found them past the encoding and fence
   * tests already (the read-ahead thread: a fence, no NUL byte in the head); `hash` is then set.
   */
  text?: string;
  /** The bytes were judged "no frontmatter" by their reader already (sprintCache `withReadHeads`): none here. */
  plain?: boolean;
}

/** A failed open, stat or read as the scan reports it. */
function unreadable(file: string, code: string | undefined, message: string): FileBytes {
  if (code === 'EISDIR') return { skipped: { file, reason: 'not-a-file', detail: 'a directory' } };
  return { skipped: { file, reason: 'unreadable', detail: code === 'ENOENT' ? 'file disappeared before it could be read' : message } };
}

/**
 * Opens, stats and reads one file: the head first (the encoding and frontmatter tests read no
 * further, so a Markdown file without frontmatter costs 8 KiB whatever its size), the whole file
 * when the head opens with a fence. readAhead.ts's worker does exactly this on its own thread.
 */
function readBytes(file: string, max: number): FileBytes {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    return unreadable(file, (e as NodeJS.ErrnoException).code, (e as Error).message);
  }
  try {
    const st = fs.fstatSync(fd);
    const key: FileKey = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
    if (!st.isFile()) return { key, skipped: { file, reason: 'not-a-file', detail: st.isDirectory() ? 'a directory' : 'not a regular file' } };
    if (st.size > max) return tooLarge(file, key, max);
    const headSize = Math.min(st.size, ENCODING_SNIFF_BYTES);
    let buf = Buffer.allocUnsafe(headSize);
    let n = readInto(fd, buf, 0, headSize);
    if (n === headSize && st.size > headSize && opensWithFence(buf)) {
      const whole = Buffer.allocUnsafe(st.size);
      buf.copy(whole, 0, 0, n);
      buf = whole;
      n = readInto(fd, buf, n, st.size);
    }
    return { key, buf: n < buf.length ? buf.subarray(0, n) : buf };
  } catch (e) {
    return unreadable(file, (e as NodeJS.ErrnoException).code, (e as Error).message);
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      // already closed or gone: nothing to release
    }
  }
}

/** A file over limits.maxFileBytes, as every way of reading one reports it. */
function tooLarge(file: string, key: FileKey, max: number): FileBytes {
  return { key, skipped: { file, reason: 'too-large', detail: `${key.size} bytes > limits.maxFileBytes ${max}` } };
}

/** The read-ahead thread's answer for one file, as readBytes would have given it. */
function aheadBytes(file: string, a: AheadRead, max: number): FileBytes {
  if (a.error) return unreadable(file, a.error.code, a.error.message);
  const key = a.key!;
  if (a.notFile) return { key, skipped: { file, reason: 'not-a-file', detail: a.notFile === 'dir' ? 'a directory' : 'not a regular file' } };
  if (a.tooLarge) return tooLarge(file, key, max);
  if (a.text !== undefined) return { key, text: a.text, hash: a.hash };
  return { key, buf: a.bytes!, hash: a.hash };
}

/** Judges the bytes of one file: encoding, frontmatter, hash, parse. */
function judgeBytes(file: string, ctx: WorkspaceContext, b: FileBytes, wantHashOnly?: string): DetailedRead & { sameHash?: boolean } {
  const key = b.key;
  // Decoded by the read-ahead thread, which ran the encoding and fence tests below on the bytes.
  if (b.text !== undefined && b.hash !== undefined) return parsedRead(file, ctx, key, b.hash, b.text);
  if (b.plain) return { key, hash: '', result: { problems: [], isWorkflow: false } };
  if (!b.buf) return { key, hash: '', result: { problems: [], isWorkflow: false, skipped: b.skipped } };
  const buf = b.buf;
  // The write path's own test, so validate and a mutation give one answer for one file.
  const refusal = encodingRefusal(buf);
  if (refusal) return { key, hash: '', result: { problems: [], isWorkflow: false, skipped: { file, reason: refusal.reason === 'utf16' ? 'unreadable' : 'binary', detail: refusal.reason === 'utf16' ? refusal.message : 'contains NUL bytes' } } };
  // Cheap pre-check: no opening fence, no frontmatter.
  if (!opensWithFence(buf)) return { key, hash: '', result: { problems: [], isWorkflow: false } };
  const hash = b.hash ?? sha256(buf);
  // Racy index entry: same bytes as when it was parsed, so the cached parse still holds.
  if (wantHashOnly !== undefined && hash === wantHashOnly) return { key, hash, sameHash: true, result: { problems: [], isWorkflow: false } };
  return parsedRead(file, ctx, key, hash, buf.toString('utf8'));
}

/** The parse of a file's text (bytes that passed the encoding and fence tests, decoded as UTF-8). */
function parsedRead(file: string, ctx: WorkspaceContext, key: FileKey | undefined, hash: string, text: string): DetailedRead {
  const parsed = parseWorkflowText(file, text, ctx, { contentHash: hash });
  if (parsed.state && key) fileTimes.set(parsed.state, key.mtimeMs);
  return { key, hash, text, result: { state: parsed.state, problems: parsed.problems, isWorkflow: parsed.isWorkflow } };
}

/** Reads into `buf` from `from` up to `to` (file offsets = buffer offsets); the bytes there at the end. */
function readInto(fd: number, buf: Buffer, from: number, to: number): number {
  let n = from;
  while (n < to) {
    const r = fs.readSync(fd, buf, n, to - n, n);
    if (r === 0) break;
    n += r;
  }
  return n;
}


/**
 * Reads one file under its root's context (config, definitions, BMAD catalog, gate files)
 * without listing or reading any other file: what a one-file verb costs. The file is read even
 * when the include/exclude globs would not list it. Cross-file (delegation) checks are not run:
 * duplicate ids and missing parents need every file (`scanRoots`).
 */
export async function readOneFile(
  file: string,
  root: string,
  opts: Pick<ScanOptions, 'overrides' | 'now' | 'contexts'> = {},
): Promise<FileReadResult & { context: WorkspaceContext; contextProblems: Problem[] }> {
  const absRoot = path.resolve(root);
  let context = opts.contexts?.get(absRoot);
  let contextProblems: Problem[] = [];
  if (!context) {
    const loaded = await loadWorkspaceContext(absRoot, opts.overrides, { now: opts.now, cache: indexEnabled(opts) });
    context = loaded.context;
    contextProblems = loaded.problems;
  }
  return { ...readDetailed(path.resolve(file), context).result, context, contextProblems };
}

/** Whether scans read and write the persisted index (`.waymark/cache/scan-index.jsonl`). */
function indexEnabled(opts: ScanOptions): boolean {
  if (opts.index !== undefined) return opts.index;
  return cacheFilesEnabled();
}

/** A file read during the scan, not yet encoded for the index. */
interface PendingEntry {
  file: string;
  key: FileKey;
  hash: string;
  result: FileReadResult;
  ownProblems: readonly Problem[];
  parsedAt: number;
}

/** The own problems of a file that has none (most): one list for all, never changed. */
const NO_PROBLEMS: readonly Problem[] = Object.freeze([]);

/**
 * At most this many index lines of files without frontmatter are left with an old key (each read
 * again by every scan that finds it so: a head of at most 8 KiB) before the index is written again.
 */
const STALE_NONE_MAX = 64;

/** Per-root use of the scan index during one scan. */
class RootIndex {
  /** Kept lines (verbatim) and new reads, encoded only when the index is saved (off the scan's path). */
  private readonly lines: (string | PendingEntry)[] = [];
  private dirty: boolean;
  /** Files read again that still have no frontmatter, their lines not worth a write alone (readNone). */
  private staleNone = 0;
  readonly stats: { hits: number; verified: number; parsed: number; hadIndex: boolean };

  constructor(
    private readonly ctx: WorkspaceContext,
    private readonly fingerprint: string,
    private readonly old: Map<string, IndexEntry> | undefined,
    private readonly scanStart: number,
    private readonly racyWindow: number,
  ) {
    this.dirty = !old;
    this.stats = { hits: 0, verified: 0, parsed: 0, hadIndex: !!old };
  }

  get root(): string {
    return this.ctx.root;
  }

  /** True when an index was found: its entries answer for files first (nothing is read ahead then). */
  get hasOld(): boolean {
    return !!this.old;
  }

  /** `pre`: the file's bytes, read ahead (only when no index was found). */
  read(file: string, keys?: Map<string, FileKey>, pre?: FileBytes): FileReadResult {
    if (pre) return this.record(file, judgeBytes(file, this.ctx, pre), keys);
    const entry = this.old?.get(file);
    if (entry) {
      let st: fs.Stats | undefined;
      try {
        st = fs.statSync(file, { throwIfNoEntry: false });
      } catch {
        st = undefined;
      }
      if (st && st.isFile() && sameKey(entry, st)) {
        if (!entry.racy) {
          const r = restoreEntry(entry, this.ctx);
          if (r) {
            if (r.state) fileTimes.set(r.state, st.mtimeMs);
            keys?.set(file, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
            this.stats.hits++;
            this.lines.push(entry.line);
            return r;
          }
        } else if (entry.kind === 'wf' || entry.kind === 'err') {
          // Racy: verify by content before trusting the cached parse.
          const d = readDetailed(file, this.ctx, entry.hash);
          if (d.sameHash && d.key && sameKey(entry, d.key)) {
            const r = restoreEntry(entry, this.ctx);
            if (r) {
              if (r.state) fileTimes.set(r.state, d.key.mtimeMs);
              keys?.set(file, d.key);
              this.stats.verified++;
              const line = this.relabel(entry, d.key);
              if (line !== entry.line) this.dirty = true; // no longer racy: worth recording
              this.lines.push(line);
              return r;
            }
          }
          if (!d.sameHash) return this.record(file, d, keys);
        }
      }
      if (entry.kind === 'none') return this.readNone(file, keys);
    }
    return this.record(file, readDetailed(file, this.ctx), keys);
  }

  /**
   * A file whose entry said "no frontmatter" and that moved or is racy (a story file just edited):
   * read again (its head only, when it still has none). Still none: the index is not written for
   * it alone (its line would say the same with another key); if it is written for another reason,
   * the line is fresh. Left unwritten, the old line's key differs from the file's, so the next scan
   * reads the file again, as this one did (an old key is never a hit); past STALE_NONE_MAX such
   * files in one scan the index is written.
   */
  private readNone(file: string, keys?: Map<string, FileKey>): FileReadResult {
    const d = readDetailed(file, this.ctx);
    const r = d.result;
    const same = !!d.key && !r.skipped && !r.state && !r.isWorkflow && !r.problems.length && d.hash === '';
    return this.record(file, d, keys, !same || ++this.staleNone > STALE_NONE_MAX);
  }

  private relabel(entry: IndexEntry, key: FileKey): string {
    const racy = Math.max(key.mtimeMs, key.ctimeMs) >= this.scanStart - this.racyWindow;
    return racy ? entry.line : entry.line.replace(/"r":1,/, '"r":0,');
  }

  /** `worthWriting`: false when the file's line would say what the index's says already (readNone). */
  private record(file: string, d: DetailedRead, keys?: Map<string, FileKey>, worthWriting = true): FileReadResult {
    if (d.key) keys?.set(file, d.key);
    this.stats.parsed++;
    if (worthWriting) this.dirty = true;
    // Files that vanished or cannot be opened are not recorded: they are retried next time.
    if (d.key && !(d.result.skipped?.reason === 'unreadable')) {
      // Cross-file problems are appended to the state's list after this: keep the file's own.
      this.lines.push({ file, key: d.key, hash: d.hash, result: d.result, ownProblems: d.result.state?.problems.length ? d.result.state.problems.slice() : NO_PROBLEMS, parsedAt: this.ctx.now().getTime() });
    }
    return d.result;
  }

  /** Writes the index when anything changed (a file parsed, re-verified, or gone). */
  async save(logger?: Logger, yieldEvery = 0): Promise<SaveOutcome | 'unchanged'> {
    if (!this.dirty && this.old && this.old.size === this.lines.length) return 'unchanged';
    const out: string[] = [];
    const racySince = this.scanStart - this.racyWindow;
    let encoded = 0;
    for (const item of this.lines) {
      if (typeof item === 'string') {
        out.push(item);
        continue;
      }
      const result = item.result.state ? { ...item.result, state: { ...item.result.state, problems: item.ownProblems.slice() } } : item.result;
      const line = makeEntryLine(item.file, item.key, item.hash, result, this.ctx, racySince, item.parsedAt);
      if (line) out.push(line);
      // Keep an editor responsive while a large index is encoded.
      if (yieldEvery && ++encoded % yieldEvery === 0) await new Promise((res) => setImmediate(res));
    }
    return saveScanIndex(this.ctx.root, this.fingerprint, out, logger);
  }
}

/** The source of a compiled glob that ends in `/**` (workspaceContext.ts globToRegExp). */
const FOLDER_PATTERN = /\\?\/\.\*\$$/;

/** Lists candidate files of a root (include globs minus exclude globs), and directories named like candidates. */
export function listCandidates(ctx: WorkspaceContext, logger?: Logger): { files: string[]; skipped: SkippedFile[] } {
  const files: string[] = [];
  const skipped: SkippedFile[] = [];
  const max = ctx.config.limits.maxFiles;
  // A folder pattern (`**/node_modules/**`, `_bmad/**`: compiled to end in `/.*$`) matches a path
  // only through a folder above it, which the walk tested and skipped already: files are tested
  // against the other patterns alone (the defaults are all folder patterns).
  const fileExclude = ctx.exclude.filter((r) => !FOLDER_PATTERN.test(r.source));
  const matches = (rel: string) => ctx.include.some((r) => r.test(rel)) && !fileExclude.some((r) => r.test(rel));
  // Listed files that are links to a file (their index in `files`): one file reached by two names is one workflow.
  const links = new Set<number>();
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
    // Entry names never hold a separator: plain concatenation is path.join without its normalizing.
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const ent of entries) {
      const name = ent.name;
      const childRel = rel ? `${rel}/${name}` : name;
      const abs = prefix + name;
      let isDir = ent.isDirectory();
      let isFile = ent.isFile();
      const isLink = ent.isSymbolicLink();
      if (isLink) {
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
        if (matches(childRel)) {
          if (isLink) links.add(files.length);
          files.push(abs);
        }
      } else if (matches(childRel)) {
        // A FIFO, socket or device named like a workflow file: never opened (a FIFO would hang).
        skipped.push({ file: abs, reason: 'not-a-file', detail: 'not a regular file (FIFO, socket or device)' });
      }
    }
  };
  walk(ctx.root, '', 0);
  if (files.length >= max) logger?.warn(`[scan] ${ctx.root}: stopped at limits.maxFiles = ${max}`);
  return { files: links.size ? withoutAliases(ctx.root, files, links, logger) : files, skipped };
}

/**
 * Drops the links among `files` whose target is listed already (by its own name, or by an
 * earlier link): one file, one workflow. Folder links are never followed, so a file that is no
 * link has the real path of the root joined with its relative path.
 */
function withoutAliases(root: string, files: string[], links: Set<number>, logger?: Logger): string[] {
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    return files;
  }
  const seen = new Set<string>();
  for (let i = 0; i < files.length; i++) if (!links.has(i)) seen.add(path.join(realRoot, path.relative(root, files[i])));
  const out: string[] = [];
  for (let i = 0; i < files.length; i++) {
    if (!links.has(i)) {
      out.push(files[i]);
      continue;
    }
    let real: string;
    try {
      real = fs.realpathSync(files[i]);
    } catch {
      continue; // the link broke meanwhile
    }
    if (seen.has(real)) {
      logger?.debug(`[scan] ${files[i]} is another name of ${real}: listed once`);
      continue;
    }
    seen.add(real);
    out.push(files[i]);
  }
  return out;
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
 * cross-file checks (delegation), whose problems come back in their own list (`crossProblems`).
 */
export async function scanRoots(
  roots: string[],
  opts: ScanOptions = {},
): Promise<ScanResult & { contexts: Map<string, WorkspaceContext>; sprints: Map<string, SprintReport[]>; index: ScanIndexReport[]; readAhead: number; indexWritten: Promise<ScanIndexReport[]>; writeIndex: () => Promise<ScanIndexReport[]> }> {
  const absRoots = [...new Set(roots.map((r) => path.resolve(r)))];
  const contexts = new Map<string, WorkspaceContext>();
  const problems: Problem[] = [];
  const skipped: SkippedFile[] = [];
  const workflows: WorkflowState[] = [];
  let files = 0;
  /** Files the read-ahead thread read. */
  let readAhead = 0;
  const useIndex = indexEnabled(opts);
  const scanStart = Date.now();
  const indexes: RootIndex[] = [];
  const reports: ScanIndexReport[] = [];
  const sprints = new Map<string, SprintReport[]>();
  for (const root of absRoots) {
    let ctx = opts.contexts?.get(root);
    if (!ctx) {
      const loaded = await loadWorkspaceContext(root, opts.overrides, { now: opts.now, cache: indexEnabled(opts) });
      ctx = loaded.context;
      problems.push(...loaded.problems);
    }
    contexts.set(root, ctx);
    // The index is read and checksummed in the background while the root is walked.
    const fp = useIndex ? contextFingerprint(ctx) : '';
    const oldIndex = useIndex ? loadScanIndex(ctx, fp, opts.logger) : undefined;
    const listed = listCandidates(ctx, opts.logger);
    skipped.push(...listed.skipped);
    files += listed.files.length;
    // Another root nested inside this one owns its files.
    const nested = absRoots.length > 1 && listed.files.some((f) => contextForRoots(f, absRoots) !== root);
    // A first read of many files (no index to answer from): a second thread reads and hashes
    // ahead while this one parses, starting while the sprint is checked. When a face holds the
    // scan for what its first listing shows (`hold` with `onProgress`: the editor's first rows),
    // the thread starts once that hold is over, after the files listed first: its start and its
    // first thousand reads took the second core while the first rows were asked for and drawn.
    const max = ctx.config.limits.maxFileBytes;
    const firstRead = !useIndex || !fs.existsSync(scanIndexPath(root));
    const aheadWanted = !nested && firstRead && listed.files.length >= (opts.readAheadFrom ?? READ_AHEAD_MIN_FILES);
    let aheadLater = aheadWanted && !!opts.hold && !!opts.onProgress;
    let ahead = aheadWanted && !aheadLater ? ReadAhead.start(listed.files, max, ENCODING_SNIFF_BYTES) : undefined;
    try {
      // On a first read, the story files the sprint check reads whole are not read again: what
      // the scan needs of one with no frontmatter (most) is its key and that verdict (withReadHeads).
      let heads: Map<string, FileKey> | undefined;
      if (opts.sprint && ctx.config.dialects.includes('bmad')) {
        const sprintOpts = { config: ctx.config, now: opts.now?.(), cache: indexEnabled(opts) };
        let checked: ReturnType<typeof checkSprints>;
        if (firstRead && !nested) ({ result: checked, heads } = withReadHeads(() => checkSprints(root, sprintOpts)));
        else checked = checkSprints(root, sprintOpts);
        problems.push(...checked.problems);
        if (checked.reports) sprints.set(root, checked.reports);
      }
      let idx: RootIndex | undefined;
      if (useIndex) {
        idx = new RootIndex(ctx, fp, await oldIndex, scanStart, opts.racyWindowMs ?? RACY_WINDOW_MS);
        indexes.push(idx);
        // An index written meanwhile answers first: its hits are stat-ed, not read.
        if (idx.hasOld) {
          heads = undefined;
          aheadLater = false;
        }
        if (ahead && idx.hasOld) {
          ahead.close();
          ahead = undefined;
        }
      }
      // Node's global `performance` loads perf_hooks (a dozen internal modules) when first touched:
      // a scan given no slice (a CLI verb) never reads the clock.
      const sliced = opts.sliceMs !== undefined;
      let turned = sliced ? performance.now() : 0;
      // The first progress: after 100 files, or firstProgressFiles in a root of more than 100.
      const firstAt = (opts.firstProgressFiles !== undefined && listed.files.length > 100 ? Math.max(1, Math.min(100, opts.firstProgressFiles)) : 100) - 1;
      for (let i = 0; i < listed.files.length; i++) {
        const file = listed.files[i];
        if (nested && contextForRoots(file, absRoots) !== root) continue;
        const a = ahead?.take(i);
        if (a) readAhead++;
        const head = a ? undefined : heads?.get(file);
        const pre = a ? aheadBytes(file, a, max) : head && head.size <= max ? { key: head, plain: true } : undefined;
        let r: FileReadResult;
        if (idx) r = idx.read(file, opts.fileKeys, pre);
        else {
          const d = pre ? judgeBytes(file, ctx, pre) : readDetailed(file, ctx);
          if (d.key) opts.fileKeys?.set(file, d.key);
          r = d.result;
        }
        if (r.skipped) skipped.push(r.skipped);
        if (r.state) workflows.push(r.state);
        else if (r.problems.length) problems.push(...r.problems);
        // Every 500 files (and once after the first 100, or firstProgressFiles, when someone listens) others get a turn.
        const progress = i % 500 === 499 || (i === firstAt && opts.onProgress);
        if (progress) opts.onProgress?.(workflows, i + 1, listed.files.length);
        if (progress || (sliced && performance.now() - turned >= opts.sliceMs!)) {
          await (opts.hold?.() ?? new Promise((res) => setImmediate(res)));
          if (sliced) turned = performance.now();
        }
        if (aheadLater && i >= firstAt) {
          aheadLater = false;
          ahead = ReadAhead.start(listed.files, max, ENCODING_SNIFF_BYTES, i + 1);
        }
      }
    } finally {
      ahead?.close();
    }
  }
  const crossProblems = validateDelegation(workflows);
  for (const idx of indexes) reports.push({ root: idx.root, ...idx.stats });
  const save = async (yieldEvery: number): Promise<ScanIndexReport[]> => {
    for (let i = 0; i < indexes.length; i++) {
      try {
        reports[i].saved = await indexes[i].save(opts.logger, yieldEvery);
      } catch (e) {
        opts.logger?.warn(`[scan] could not save the scan index of ${reports[i].root}: ${(e as Error).message}`);
        reports[i].saved = 'failed';
      }
    }
    return reports;
  };
  let indexWritten: Promise<ScanIndexReport[]>;
  let writeIndex = (): Promise<ScanIndexReport[]> => indexWritten;
  if (!indexes.length) indexWritten = Promise.resolve(reports);
  else if (opts.indexWrite === 'sync') indexWritten = Promise.resolve(await save(0));
  else if (opts.indexWrite === 'manual') {
    indexWritten = Promise.resolve(reports);
    let writing: Promise<ScanIndexReport[]> | undefined;
    writeIndex = () => (writing ??= save(500));
  } else indexWritten = new Promise((res) => setImmediate(() => res(save(500))));
  const hits = reports.reduce((n, r) => n + r.hits + r.verified, 0);
  opts.logger?.info(`[scan] ${absRoots.length} root(s), ${files} candidate file(s), ${workflows.length} workflow(s), ${skipped.length} skipped${useIndex ? `, ${hits} from the index` : ''}`);
  return { roots: absRoots, workflows, problems, crossProblems, skipped, files, contexts, sprints, index: reports, readAhead, indexWritten, writeIndex };
}

function contextForRoots(file: string, roots: string[]): string | undefined {
  let best: string | undefined;
  for (const r of roots) if (file.startsWith(r + path.sep) && (!best || r.length > best.length)) best = r;
  return best;
}

/** Every problem of a scan: file-level and config ones, per-file (in states), cross-file. */
export function allProblems(result: Pick<ScanResult, 'workflows' | 'problems'> & Partial<Pick<ScanResult, 'crossProblems'>>): Problem[] {
  return [...result.problems, ...result.workflows.flatMap((w) => w.problems), ...(result.crossProblems ?? [])];
}

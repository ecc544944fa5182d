import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { version as WAYMARK_VERSION } from '../../../package.json';
import type { Problem, SkippedFile, WorkflowState } from '../types';
import type { WorkspaceContext } from './workspaceContext';
import { gateOf } from '../model/gates';
import { ttlExpiryMs } from '../model/validate';
import type { Logger } from '../ports';
import { writeFileAtomic } from './atomicWrite';
import { readFileAsync, statAsync } from './asyncFs';
import { safeMkdir } from './safePath';
import { WaymarkError } from '../errors';
import { DecodeError, decodeValue, encodeValue } from './indexCodec';
import { checkProblems, isNum, isObj, isStr, optStr } from './indexTrust';
import { annotate, decodeState, encodeState } from './restoredState';

/**
 * The persisted scan index: one file per workspace root that lets a warm start rebuild every
 * file's parse result without reading or parsing unchanged files.
 *
 * Location: `<root>/.waymark/cache/scan-index.jsonl` (the folder gets its own `.gitignore`
 * with `*`, so it is never committed). Format: JSON lines; line 1 is the header, every other
 * line one file's entry. A line that does not parse or does not check out is a miss for that
 * file only; a header that does not match (index format, Waymark version and build, root,
 * context fingerprint) drops the whole index. Nothing read from the index is trusted: every
 * restored value is type-checked before use.
 *
 * An entry is reused when the file's size, mtime, ctime and inode are unchanged, the entry is
 * not "racy" (see RACY_WINDOW_MS), the gate files its state depends on read the same, and the
 * clock has not crossed a time threshold the result depends on (ttl expiry). Otherwise the file
 * is read again; when its SHA-256 equals the entry's hash the parse is still reused.
 */
export const SCAN_INDEX_DIR = '.waymark/cache';
export const SCAN_INDEX_FILE = `${SCAN_INDEX_DIR}/scan-index.jsonl`;
/** Bump when the entry layout or anything parse results contain changes. */
export const SCAN_INDEX_FORMAT = 2;
/** An index larger than this is ignored (and rebuilt). */
export const SCAN_INDEX_MAX_BYTES = 256 * 1024 * 1024;
/**
 * A file changed within this window before the scan that recorded it may have been changed
 * again within the same timestamp tick; such entries are verified by content hash next time
 * (git's "racy clean" rule). File systems with coarse timestamps (FAT: 2 s) need the full 2 s.
 */
export { RACY_WINDOW_MS } from './fileKey';

import type { FileKey } from './fileKey';
export { sameKey, type FileKey } from './fileKey';

export type EntryKind = 'wf' | 'err' | 'none' | 'skip';

/** One file's line in the index, as parsed (not yet trusted). */
export interface IndexEntry extends FileKey {
  file: string;
  hash: string;
  kind: EntryKind;
  racy: boolean;
  /** Time thresholds (ms) the result depends on: reusable only while `now` is on the same side of each as when parsed. */
  times: number[];
  parsedAt: number;
  /** Encoded payload (state / problems / skipped). */
  payload: unknown;
  /** The raw line, reused verbatim when the entry is kept. */
  line: string;
}

/** What a file's read produced, in the shape scan.ts uses. */
export interface CachedRead {
  state?: WorkflowState;
  problems: Problem[];
  skipped?: SkippedFile;
  isWorkflow: boolean;
}

let codeFp: string | undefined;

/** Waymark version, index format and the running bundle's size and mtime (a rebuild invalidates every index). */
export function codeFingerprint(): string {
  if (codeFp) return codeFp;
  let build = '';
  try {
    const st = fs.statSync(__filename);
    build = `${st.size}:${st.mtimeMs}`;
  } catch {
    build = 'unknown';
  }
  codeFp = `${SCAN_INDEX_FORMAT}:${WAYMARK_VERSION}:${build}`;
  return codeFp;
}

function stableReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value.entries()] };
  if (value instanceof Set) return { $set: [...value] };
  if (value instanceof RegExp) return { $re: value.source };
  if (typeof value === 'number' && !Number.isFinite(value)) return { $num: String(value) };
  if (typeof value === 'function') return undefined;
  return value;
}

/**
 * The fingerprint (textFingerprint) of everything in a context that a file's parse result
 * depends on besides the file itself: config (with overrides), workflow definitions, the BMAD
 * catalog, the root. Gate files and the clock are checked per entry instead.
 */
export function contextFingerprint(ctx: WorkspaceContext): string {
  let fp = contextFps.get(ctx);
  if (fp === undefined) contextFps.set(ctx, (fp = computeContextFingerprint(ctx)));
  return fp;
}

/**
 * Each context's fingerprint, worked out once: a context is not changed after it is loaded (a
 * new configuration is a new context), and `validate` after an edit asked three times (the
 * stored answer's check, the scan index, the answer stored), each a JSON text of the whole
 * catalog (~45 KB for a BMAD install) hashed.
 */
const contextFps = new WeakMap<WorkspaceContext, string>();

function computeContextFingerprint(ctx: WorkspaceContext): string {
  const bmad = { names: [...ctx.bmad.byName.entries()].map(([k, w]) => [k, w.dir]), workflows: ctx.bmad.workflows };
  const text = JSON.stringify([ctx.root, ctx.config, [...ctx.definitions.entries()], bmad, ctx.limits, ctx.include, ctx.exclude], stableReplacer);
  return textFingerprint(text);
}

/**
 * Texts up to this many characters are their own fingerprint; longer ones are hashed. A BMAD
 * install's context is ~45 KB of text.
 */
export const FINGERPRINT_TEXT_MAX = 256 * 1024;

/**
 * What a cache keeps of a text it was made from, to tell whether it still holds: the text itself
 * when it is short (compared whole, so no two texts ever match; and no hash: after a story edit
 * or on a warm `validate` nothing else loads node:crypto, whose load cost ~50 M instructions, ~4 %
 * of the run), else its SHA-256. The two forms never equal each other (`=` and `sha256:`).
 */
export function textFingerprint(text: string): string {
  return text.length <= FINGERPRINT_TEXT_MAX ? `=${text}` : `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** Time thresholds a fresh result depends on (ttl expiry), for `now` comparisons. */
function timeThresholds(state: WorkflowState | undefined): number[] {
  const out: number[] = [];
  if (!state) return out;
  if (state.ttl !== undefined && state.ttl !== '') {
    const exp = ttlExpiryMs(state.ttl, state.updatedAt);
    if (typeof exp === 'number') out.push(exp);
  }
  return out;
}

/**
 * Builds the index line for a file just read and parsed (`parsedAt`: the context clock then). A
 * file whose mtime or ctime is at or after `racySince` (scan start minus the racy window) is
 * marked racy.
 */
export function makeEntryLine(file: string, key: FileKey, hash: string, read: CachedRead, ctx: WorkspaceContext, racySince: number, parsedAt: number): string {
  const kind: EntryKind = read.state && read.state.contentHash === hash && read.state.file === file ? 'wf' : read.skipped ? 'skip' : read.problems.length ? 'err' : 'none';
  if (read.state && kind !== 'wf') return '';
  let payload: unknown = 0;
  if (kind === 'wf') payload = encodeState(read.state!, ctx);
  else if (kind === 'err') payload = encodeValue(read.problems);
  else if (kind === 'skip') payload = encodeValue(read.skipped);
  const racy = Math.max(key.mtimeMs, key.ctimeMs) >= racySince;
  // The text JSON.stringify gives the row {f, s, m, c, i, h, k, r, t, a, v}, written field by field
  // (no row object for each of 10,000 files).
  return `{"f":${JSON.stringify(file)},"s":${num(key.size)},"m":${num(key.mtimeMs)},"c":${num(key.ctimeMs)},"i":${num(key.ino)},"h":${JSON.stringify(hash)},"k":"${kind}","r":${racy ? 1 : 0},"t":${JSON.stringify(timeThresholds(read.state))},"a":${num(parsedAt)},"v":${JSON.stringify(payload)}}`;
}

/** A number as JSON writes it. */
function num(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

/** Parses one index line into an entry (shape-checked), or undefined. */
export function parseEntryLine(line: string): IndexEntry | undefined {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObj(o)) return undefined;
  const { f, s, m, c, i, h, k, r, t, a, v } = o;
  if (!isStr(f) || !path.isAbsolute(f) || !isNum(s) || !isNum(m) || !isNum(c) || !isNum(i) || !isStr(h) || !isNum(a)) return undefined;
  if (k !== 'wf' && k !== 'err' && k !== 'none' && k !== 'skip') return undefined;
  if (!Array.isArray(t) || !t.every((x) => isNum(x) && Number.isFinite(x))) return undefined;
  return { file: f, size: s, mtimeMs: m, ctimeMs: c, ino: i, hash: h, kind: k, racy: r === 1, times: t as number[], parsedAt: a, payload: v, line };
}


/**
 * Rebuilds the read result of an entry, or undefined when it cannot be trusted any more (bad
 * shape, a time threshold crossed, a gate file that reads differently now).
 */
export function restoreEntry(entry: IndexEntry, ctx: WorkspaceContext): CachedRead | undefined {
  const now = ctx.now().getTime();
  for (const th of entry.times) if ((entry.parsedAt >= th) !== (now >= th)) return undefined;
  try {
    if (entry.kind === 'none') return { problems: [], isWorkflow: false };
    if (entry.kind === 'wf') return restoreWorkflow(entry, ctx);
    if (!Array.isArray(entry.payload) || entry.payload.length !== 2) return undefined;
    const value = decodeValue(entry.payload[0], entry.payload[1] ?? undefined);
    if (entry.kind === 'skip') {
      if (!isObj(value) || value.file !== entry.file || !isStr(value.reason) || !optStr(value.detail)) return undefined;
      if (!['too-large', 'binary', 'unreadable', 'not-a-file', 'no-frontmatter'].includes(value.reason)) return undefined;
      return { problems: [], isWorkflow: false, skipped: value as unknown as SkippedFile };
    }
    if (entry.kind === 'err') {
      if (!checkProblems(value, entry.file)) return undefined;
      return { problems: value, isWorkflow: true };
    }
    return undefined;
  } catch (e) {
    if (e instanceof DecodeError || e instanceof RangeError || e instanceof TypeError) return undefined;
    throw e;
  }
}

function restoreWorkflow(entry: IndexEntry, ctx: WorkspaceContext): CachedRead | undefined {
  try {
    const state = decodeState(entry.payload, entry, ctx);
    if (!state) return undefined;
    // Gate files are read at parse time: a different reading now means a different state.
    for (const s of state.steps) {
      if (!s.gate) continue;
      const cached = state.gates[s.id];
      if (!cached) return undefined;
      const fresh = gateOf(ctx, state, s.gate, ctx.now());
      if (JSON.stringify(fresh) !== JSON.stringify(cached)) return undefined;
    }
    return { state, problems: state.problems, isWorkflow: true };
  } catch (e) {
    if (e instanceof DecodeError || e instanceof RangeError || e instanceof TypeError) return undefined;
    throw e;
  }
}

export interface IndexHeader {
  waymarkScanIndex: number;
  code: string;
  root: string;
  context: string;
  writtenAt: number;
  /** A checksum of everything after the header line (indexBodyHash): random damage drops the whole index. */
  body: string;
}

type Crc32 = (data: Uint8Array, value?: number) => number;
let crc32Fn: Crc32 | null | undefined;
/** zlib's CRC-32 (Node 20.15+), null on a Node without it. */
function zlibCrc32(): Crc32 | null {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (the sprint cache's checksum loads it too)
  return (crc32Fn ??= (require('node:zlib') as { crc32?: Crc32 }).crc32 ?? null);
}

/**
 * The checksum the header keeps of the entry lines, given as the body's parts in order: zlib's
 * CRC-32 and the length (native, ~1 ms for a 10,000-entry index, and zlib is loaded by the sprint
 * cache's own checksum anyway), else SHA-256 on a Node without `zlib.crc32`. It tells a torn or
 * damaged file from the one written, as the sprint cache's does (bmad/cacheCodec.ts); it is no
 * defence against a forged file, nor needs to be: every entry is checked by its file's key and
 * every restored value type-checked.
 */
export function indexBodyHash(parts: readonly Uint8Array[]): string {
  const crc32 = zlibCrc32();
  if (!crc32) {
    const h = createHash('sha256');
    for (const p of parts) h.update(p);
    return h.digest('hex');
  }
  let c = 0;
  let n = 0;
  for (const p of parts) {
    c = crc32(p, c);
    n += p.length;
  }
  return `crc${(c >>> 0).toString(16).padStart(8, '0')}${n.toString(16)}`;
}

/** The index file of a root. */
export function scanIndexPath(root: string): string {
  return path.join(root, SCAN_INDEX_FILE);
}

/**
 * Loads a root's index. Returns the entries by absolute file, or undefined when there is no
 * usable index (missing, too large, unreadable, wrong header, damaged). Never throws. Reading
 * and checksumming run off the main thread: start it before walking the root and await it after.
 */
export async function loadScanIndex(ctx: WorkspaceContext, fingerprint: string, logger?: Logger): Promise<Map<string, IndexEntry> | undefined> {
  const file = scanIndexPath(ctx.root);
  let buf: Buffer;
  try {
    const st = await statAsync(file);
    if (!st.isFile()) return undefined;
    if (st.size > SCAN_INDEX_MAX_BYTES) {
      logger?.warn(`[scan] ignoring ${file}: ${st.size} bytes is over ${SCAN_INDEX_MAX_BYTES}; it will be rebuilt`);
      return undefined;
    }
    buf = await readFileAsync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') logger?.debug(`[scan] cannot read ${file}: ${(e as Error).message}`);
    return undefined;
  }
  const nl = buf.indexOf(10);
  let header: unknown;
  try {
    header = JSON.parse(buf.toString('utf8', 0, nl === -1 ? buf.length : nl));
  } catch {
    logger?.debug(`[scan] ${file}: unreadable header; rebuilding`);
    return undefined;
  }
  if (!isObj(header) || header.waymarkScanIndex !== SCAN_INDEX_FORMAT || header.code !== codeFingerprint() || header.root !== ctx.root || header.context !== fingerprint) {
    logger?.debug(`[scan] ${file}: made by another version, root or configuration; rebuilding`);
    return undefined;
  }
  const body = nl === -1 ? buf.subarray(buf.length) : buf.subarray(nl + 1);
  if (header.body !== indexBodyHash([body])) {
    logger?.warn(`[scan] ${file} is damaged (checksum mismatch); rebuilding it`);
    return undefined;
  }
  const text = body.toString('utf8');
  const entries = new Map<string, IndexEntry>();
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    if (end > pos) {
      const e = parseEntryLine(text.slice(pos, end));
      if (e) entries.set(e.file, e);
    }
    pos = end + 1;
  }
  return entries;
}

/**
 * Makes the cache folder (with its `.gitignore`) when missing; false when the root itself is gone
 * (a deleted temp folder, a removed workspace), which is never recreated. Throws when it cannot be made.
 */
export function ensureCacheDir(root: string): boolean {
  const dir = path.join(root, SCAN_INDEX_DIR);
  if (fs.existsSync(dir)) return true;
  if (!fs.existsSync(root)) return false;
  safeMkdir(root, dir);
  writeFileAtomic(path.join(dir, '.gitignore'), '# Waymark cache: safe to delete, never commit.\n*\n', { root, replaceLink: true });
  return true;
}

export type SaveOutcome = 'written' | 'read-only' | 'failed' | 'root-gone';

/**
 * Writes a root's index atomically (temp file in the same folder, fsync, rename). A read-only
 * workspace (or any write failure) is not an error: the outcome says so and nothing is left behind.
 */
export function saveScanIndex(root: string, fingerprint: string, lines: string[], logger?: Logger): SaveOutcome {
  const file = scanIndexPath(root);
  // Slices of the body, so a 10k-entry index never needs one giant string; each encoded once.
  const slices: Buffer[] = [];
  for (let i = 0; i < lines.length; i += 2000) slices.push(Buffer.from(lines.slice(i, i + 2000).join('\n') + '\n', 'utf8'));
  const header: IndexHeader = { waymarkScanIndex: SCAN_INDEX_FORMAT, code: codeFingerprint(), root, context: fingerprint, writtenAt: Date.now(), body: indexBodyHash(slices) };
  try {
    if (!ensureCacheDir(root)) return 'root-gone';
    // By its folder's real path, like every write: a cache folder linked to elsewhere is not written,
    // a link at the file's own name (planted: the file is Waymark's alone) is replaced, not followed. Not
    // fsynced: a cache rebuilt from the workspace, whose checksum drops it whole if a power loss
    // leaves it torn (an fsync of ~10 MB was most of a cold validate's wait on a busy disk).
    writeFileAtomic(file, Buffer.concat([Buffer.from(JSON.stringify(header) + '\n', 'utf8'), ...slices]), { root, durable: false, replaceLink: true });
    return 'written';
  } catch (e) {
    const code = WaymarkError.is(e) ? e.data?.code : (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') {
      logger?.debug(`[scan] not writing ${file}: the workspace is read-only`);
      return 'read-only';
    }
    logger?.warn(`[scan] could not write ${file}: ${(e as Error).message}`);
    return 'failed';
  }
}

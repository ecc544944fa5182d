import * as fs from 'node:fs';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { WaymarkError } from '../errors';
import { ioError } from './atomicWrite';
import type { HistoryEntry, WorkflowState } from '../types';
import { readRegularFileSync } from './safeRead';
import { findFromEnd, tornTail } from './jsonlTail';
import { sameEnd, type AppendedEnd } from './fileKey';
import { assertRegularOrMissing, assertWritable, notRegularError, openInsideSync, realPathOnce, relativeInside, safeAppend, safeWritePath } from './safePath';

/**
 * Append-only history, one JSONL file per workflow file:
 * `<root>/.waymark/history/<path of the workflow file relative to root>.jsonl`, both by their
 * real paths (a file reached through a linked folder has one history, under its real name);
 * files outside the root go to `<root>/.waymark/history/_outside/<sha256 of real path>.jsonl`.
 *
 * Each line is written with a single write() on an O_APPEND descriptor, so lines from several
 * processes never interleave. Sequence numbers are assigned under the workflow file's lock.
 * A torn last line (a crash mid-append) is moved to `<history>.torn` on the next append.
 * A line names its file relative to the workspace (`/`-separated), so a history committed on one
 * machine reads on another; a line an older Waymark wrote with an absolute path still reads.
 */
export function historyPathFor(root: string, file: string, dir = '.waymark/history'): string {
  const base = path.resolve(root, dir);
  const rel = workspaceRelative(root, file);
  if (rel === undefined) {
    return path.join(base, '_outside', `${crypto.createHash('sha256').update(realPathOnce(file)).digest('hex').slice(0, 32)}.jsonl`);
  }
  return path.join(base, `${rel.split('/').join(path.sep)}.jsonl`);
}

/**
 * `file` relative to the workspace folder, by both real paths, `/`-separated; undefined when the
 * file is the folder itself or outside it.
 */
export function workspaceRelative(root: string, file: string): string | undefined {
  // Names, not checks: resolved once per transaction (store/safePath.ts).
  const rel = relativeInside(realPathOnce(root), realPathOnce(file));
  if (rel === undefined) return undefined;
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

/** The path written into a history line: workspace-relative, or the real absolute path outside it. */
function recordedPath(root: string, file: string): string {
  return workspaceRelative(root, file) ?? realPathOnce(file);
}

/** A history line's `file` as an absolute path (lines name it relative to the workspace; older ones absolutely). */
function absoluteRecorded(root: string, file: unknown): string {
  if (typeof file !== 'string') return '';
  return path.isAbsolute(file) ? file : path.join(root, ...file.split('/'));
}

export interface AppendResult {
  entry: HistoryEntry;
  historyFile: string;
  /** Its real path (what was appended to). */
  realFile: string;
  /** With `keepOpen`: the descriptor the line was appended on, left open for the caller to fsync and close. */
  fd?: number;
  /** Set when a torn last line was found and moved aside. */
  repaired?: string;
}

/** The seq of the last whole line that parses (damaged lines in the middle are passed over). */
function lastSeq(fd: number, end: number): number | undefined {
  return findFromEnd(fd, end, (line) => {
    try {
      const seq = (JSON.parse(line) as HistoryEntry).seq;
      return typeof seq === 'number' && Number.isFinite(seq) ? seq : undefined;
    } catch {
      return undefined; // a damaged line in the middle: keep looking further up
    }
  });
}

/**
 * What this process wrote last at the end of each history file (by historyPathFor's name), with
 * the file's identity and stamps right after that write: while a stat of the file still shows
 * them, its end is that line, whole, so the next append's seq and the plan's last recorded state
 * are known without reading and parsing the tail again. Any other change to the file moves its
 * size (lines are only appended, under the workflow file's lock), or its inode or ctime (a file
 * replaced or rewritten: a git checkout, a merge, a repair): then the tail is read as before.
 * The same rule as the scan index's keys, and the device (fileKey.ts `sameEnd`).
 */
interface KnownTail extends AppendedEnd {
  /** The last line with a `hashAfter`, when this process knows which it is. */
  recorded?: HistoryEntry;
}

const knownTails = new Map<string, KnownTail>();
/** History files whose end is remembered (one per workflow file written by this process, most recent kept). */
const KNOWN_TAILS = 1024;

/** The remembered end of `histFile` when `st` (a stat of it as it is now) still shows it, else undefined (and forgotten). */
function knownTail(histFile: string, st: fs.Stats): KnownTail | undefined {
  const k = knownTails.get(histFile);
  if (!k) return undefined;
  if (sameEnd(k, st)) return k;
  knownTails.delete(histFile);
  return undefined;
}

/** `entry` as lastRecordedState reads its line back: keys without a value left out, `file` made absolute. */
function asRead(entry: HistoryEntry, file: string): HistoryEntry {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entry)) if (v !== undefined) out[k] = v;
  out.file = file;
  return out as unknown as HistoryEntry;
}

/** Remembers the end of `histFile` after this process appended `entry` on `fd` (stamped by an fstat after the write). */
function rememberTail(histFile: string, fd: number, entry: HistoryEntry, recorded: HistoryEntry | undefined): void {
  const st = fs.fstatSync(fd);
  if (knownTails.size >= KNOWN_TAILS) knownTails.delete(knownTails.keys().next().value!);
  knownTails.delete(histFile);
  knownTails.set(histFile, { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, seq: entry.seq, recorded });
}

/** Reads the last complete line's seq from `fd` (the history, `size` bytes); repairs a torn tail. Returns the next seq. */
function prepareTail(root: string, histFile: string, fd: number, size: number): { nextSeq: number; repaired?: string } {
  if (size === 0) return { nextSeq: 1 };
  let repaired: string | undefined;
  let end = size;
  const t = tornTail(fd, size);
  if (t) {
    safeAppend(root, `${histFile}.torn`, JSON.stringify({ time: new Date().toISOString(), offset: t.cut, text: t.torn.toString('utf8') }) + '\n', { what: 'torn history lines' });
    fs.ftruncateSync(fd, t.cut);
    fs.fsyncSync(fd);
    repaired = `moved a torn last line (${t.torn.length} bytes, offset ${t.cut}) of ${histFile} to ${histFile}.torn`;
    end = t.cut;
  }
  if (end === 0) return { nextSeq: 1, repaired };
  const seq = lastSeq(fd, end);
  return { nextSeq: seq === undefined ? 1 : seq + 1, repaired };
}

/**
 * Appends one JSON record as a line to an append-only JSONL file inside `root` (the ticket
 * outbox): real path checked, a torn last line moved to `<file>.torn` first (jsonlTail's
 * tornTail, as history does), one write() on an O_APPEND descriptor, fsynced.
 */
export function appendJsonLine(root: string, file: string, record: unknown, what: string): { repaired?: string } {
  try {
    const { fd, st, real } = openInsideSync(root, file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT, { what });
    try {
      let repaired: string | undefined;
      const t = tornTail(fd, st.size);
      if (t) {
        safeAppend(root, `${real}.torn`, JSON.stringify({ time: new Date().toISOString(), offset: t.cut, text: t.torn.toString('utf8') }) + '\n', { what: `torn ${what} lines` });
        fs.ftruncateSync(fd, t.cut);
        fs.fsyncSync(fd);
        repaired = `moved a torn last line (${t.torn.length} bytes, offset ${t.cut}) of ${file} to ${file}.torn`;
      }
      const line = Buffer.from(JSON.stringify(record) + '\n', 'utf8');
      const n = fs.writeSync(fd, line, 0, line.length);
      if (n !== line.length) throw new WaymarkError('io', `Short write to ${file} (${n} of ${line.length} bytes); it will be repaired on the next append.`, file);
      fs.fsyncSync(fd);
      return { repaired };
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, file, `append ${what} to`);
  }
}

/**
 * Appends one entry (its `seq` is assigned here). Call under the workflow file's lock so that
 * sequence numbers stay unique; the line itself can never tear between processes. The history
 * file's real path must lie inside `root` (a `.waymark/history` link to elsewhere is refused).
 */
export function appendHistory(root: string, entry: Omit<HistoryEntry, 'seq'>, dir?: string, options: { fsync?: boolean; keepOpen?: boolean } = {}): AppendResult {
  const histFile = historyPathFor(root, entry.file, dir);
  try {
    // One descriptor, proved to be the file checked (openInsideSync), reads the tail and appends.
    const { fd, st, real } = openInsideSync(root, histFile, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT, { what: 'history' });
    let kept = false;
    try {
      // The descriptor's own stat (the file appended to) says whether its end is still this process's last line.
      const known = knownTail(histFile, st);
      const { nextSeq, repaired } = known ? { nextSeq: known.seq + 1, repaired: undefined } : prepareTail(root, real, fd, st.size);
      const full: HistoryEntry = { seq: nextSeq, ...entry };
      const recorded = recordedPath(root, entry.file);
      const line = Buffer.from(JSON.stringify({ ...full, file: recorded }) + '\n', 'utf8');
      const n = fs.writeSync(fd, line, 0, line.length);
      if (n !== line.length) {
        knownTails.delete(histFile);
        throw new WaymarkError('io', `Short write to ${histFile} (${n} of ${line.length} bytes); it will be repaired on the next append.`, histFile);
      }
      // A line with no hashAfter leaves the last recorded state where it was (known only when the end before was).
      rememberTail(histFile, fd, full, full.hashAfter !== undefined ? asRead(full, absoluteRecorded(root, recorded)) : known?.recorded);
      // A transaction fsyncs its history files together, once its lines are out (fsync: false).
      if (options.fsync !== false) fs.fsyncSync(fd);
      kept = !!options.keepOpen;
      return { entry: full, historyFile: histFile, realFile: real, repaired, ...(kept ? { fd } : {}) };
    } finally {
      if (!kept) fs.closeSync(fd);
    }
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, histFile, 'append history to');
  }
}

/**
 * Refuses before any write when the history of `file` could not be appended to: its real path
 * lies outside the workspace, it is a pipe, socket or folder, or it (or the folder it would be
 * created in) is not writable. A missing history is fine: it is created on the first append.
 */
export function assertHistoryAppendable(root: string, file: string, dir?: string): void {
  const histFile = historyPathFor(root, file, dir);
  // A file's first write has no history yet: said by the lstat that the check of a regular file
  // makes anyway (made first here), so the real-path check resolves its folder without realpath's
  // exception for a missing name.
  const found = fs.lstatSync(histFile, { throwIfNoEntry: false });
  const real = safeWritePath(root, histFile, undefined, { missing: found === undefined });
  // No link on the way: that lstat is the real path's, and says whether it is a regular file.
  if (real !== histFile || found?.isSymbolicLink()) assertRegularOrMissing(real, 'history');
  else if (found && !found.isFile()) throw notRegularError(real, found, 'history');
  // The same lstat says what there is to judge (a regular file at the real path): not taken again.
  assertWritable(real, 'history', { seen: real === histFile && found?.isFile() ? found : undefined });
}

export interface HistoryRead {
  entries: HistoryEntry[];
  /** Lines that are not valid JSON entries (1-based line numbers), e.g. a torn last line. */
  badLines: number[];
  historyFile: string;
}

/** All entries of a workflow file's history, oldest first. A missing history is empty. */
export function readHistoryDetailed(root: string, file: string, dir?: string): HistoryRead {
  const histFile = historyPathFor(root, file, dir);
  let text: string;
  try {
    text = readRegularFileSync(histFile).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], badLines: [], historyFile: histFile };
    throw new WaymarkError('unreadable', `Cannot read history ${histFile}: ${(e as Error).message}.`, histFile);
  }
  const entries: HistoryEntry[] = [];
  const badLines: number[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const v = JSON.parse(line) as HistoryEntry;
      if (v && typeof v === 'object' && typeof v.seq === 'number' && typeof v.operation === 'string') entries.push({ ...v, file: absoluteRecorded(root, v.file) });
      else badLines.push(i + 1);
    } catch {
      badLines.push(i + 1);
    }
  });
  return { entries, badLines, historyFile: histFile };
}

/**
 * The last history entry of `file` that has a `hashAfter` (what the file's state was when
 * history last saw it), and whether the history has any entry at all. Reads only the tail, in
 * growing windows, so a write costs the same however long the history is.
 */
export function lastRecordedState(root: string, file: string, dir?: string): { any: boolean; last?: HistoryEntry } {
  const histFile = historyPathFor(root, file, dir);
  // A file's first write finds no history: answered by a stat, without a failed open's exception.
  // The same stat says when the end is still the line this process appended last (knownTail).
  try {
    const seen = fs.statSync(histFile, { throwIfNoEntry: false });
    if (seen === undefined) return { any: false };
    const known = knownTail(histFile, seen);
    if (known?.recorded) return { any: true, last: { ...known.recorded } };
  } catch {
    // the open below answers
  }
  let fd: number;
  try {
    fd = fs.openSync(histFile, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return { any: false };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { any: false };
    let any = false;
    const last = findFromEnd(fd, st.size, (line) => {
      try {
        const e = JSON.parse(line) as HistoryEntry;
        if (typeof e.seq !== 'number') return undefined;
        any = true;
        return e.hashAfter !== undefined ? { ...e, file: absoluteRecorded(root, e.file) } : undefined;
      } catch {
        return undefined; // a torn or damaged line: keep looking further up
      }
    });
    return last ? { any, last } : { any };
  } finally {
    fs.closeSync(fd);
  }
}

export function readHistory(root: string, file: string, dir?: string): HistoryEntry[] {
  return readHistoryDetailed(root, file, dir).entries;
}

/** Fields recorded as `from`/`to` in history (only those that changed). */
const HISTORY_FIELDS = ['status', 'rawStatus', 'currentStep', 'stepsCompleted', 'lastStep', 'scope', 'blockedReason', 'delegation'] as const;

/** The state fields history records, as they are in `s` (absent fields left out). */
export function historySnapshot(s: WorkflowState | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!s) return out;
  for (const k of HISTORY_FIELDS) if (s[k] !== undefined) out[k] = s[k];
  return out;
}

/** The state fields that differ between two states, as history's `from` and `to`. */
export function stateChange(before: WorkflowState | undefined, after: WorkflowState | undefined): { from: Record<string, unknown>; to: Record<string, unknown> } {
  const a = historySnapshot(before);
  const b = historySnapshot(after);
  const from: Record<string, unknown> = {};
  const to: Record<string, unknown> = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) {
      from[k] = a[k] ?? null;
      to[k] = b[k] ?? null;
    }
  }
  return { from, to };
}

/**
 * The last verdict recorded for gate `gate` in the history of workflow file `file` (a
 * `gate-*` line naming it), read from the end. Undefined when none is recorded or the history
 * cannot be read.
 */
export function latestGateRecord(root: string, file: string, gate: string, dir?: string): HistoryEntry | undefined {
  let fd: number;
  try {
    fd = fs.openSync(historyPathFor(root, file, dir), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size === 0) return undefined;
    return findFromEnd(fd, st.size, (line) => {
      // Most lines are not about this gate: skip them without parsing.
      if (!line.includes('"gate-') || !line.includes(JSON.stringify(gate))) return undefined;
      try {
        const e = JSON.parse(line) as HistoryEntry;
        return typeof e.seq === 'number' && typeof e.operation === 'string' && e.operation.startsWith('gate-') && e.detail?.gate === gate ? e : undefined;
      } catch {
        return undefined; // a torn or damaged line: keep looking further up
      }
    });
  } finally {
    fs.closeSync(fd);
  }
}

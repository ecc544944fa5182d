import * as fs from 'node:fs';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { WaymarkError } from '../errors';
import { ioError } from './atomicWrite';
import type { HistoryEntry, WorkflowState } from '../types';
import { readRegularFileSync } from './safeRead';

/**
 * Append-only history, one JSONL file per workflow file:
 * `<root>/.waymark/history/<path of the workflow file relative to root>.jsonl`
 * (files outside the root go to `<root>/.waymark/history/_outside/<sha256 of path>.jsonl`).
 *
 * Each line is written with a single write() on an O_APPEND descriptor, so lines from several
 * processes never interleave. Sequence numbers are assigned under the workflow file's lock.
 * A torn last line (a crash mid-append) is moved to `<history>.torn` on the next append.
 */
export function historyPathFor(root: string, file: string, dir = '.waymark/history'): string {
  const base = path.resolve(root, dir);
  const rel = path.relative(root, path.resolve(file));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) {
    return path.join(base, '_outside', `${crypto.createHash('sha256').update(path.resolve(file)).digest('hex').slice(0, 32)}.jsonl`);
  }
  return path.join(base, `${rel}.jsonl`);
}

export interface AppendResult {
  entry: HistoryEntry;
  historyFile: string;
  /** Set when a torn last line was found and moved aside. */
  repaired?: string;
}

const TAIL = 64 * 1024;

/** Reads the last complete line's seq; repairs a torn tail. Returns the next seq. */
function prepareTail(histFile: string): { nextSeq: number; repaired?: string } {
  let fd: number;
  try {
    fd = fs.openSync(histFile, fs.constants.O_RDWR | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { nextSeq: 1 };
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new WaymarkError('io', `History ${histFile} is not a regular file (a pipe, socket or folder); remove it so history can be kept.`, histFile);
    const size = st.size;
    if (size === 0) return { nextSeq: 1 };
    let start = Math.max(0, size - TAIL);
    let buf = Buffer.alloc(size - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    let repaired: string | undefined;
    let end = buf.length;
    if (buf[end - 1] !== 0x0a) {
      const nl = buf.lastIndexOf(0x0a);
      if (nl < 0 && start > 0) {
        // The torn line is longer than the tail window: read it all.
        start = 0;
        buf = fs.readFileSync(histFile);
        end = buf.length;
      }
      const cut = buf.lastIndexOf(0x0a) + 1;
      const torn = buf.subarray(cut, end);
      fs.appendFileSync(`${histFile}.torn`, JSON.stringify({ time: new Date().toISOString(), offset: start + cut, text: torn.toString('utf8') }) + '\n');
      fs.ftruncateSync(fd, start + cut);
      fs.fsyncSync(fd);
      repaired = `moved a torn last line (${torn.length} bytes, offset ${start + cut}) of ${histFile} to ${histFile}.torn`;
      end = cut;
    }
    const text = buf.subarray(0, end).toString('utf8');
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i].trim();
      if (!line) continue;
      try {
        const seq = (JSON.parse(line) as HistoryEntry).seq;
        if (typeof seq === 'number' && Number.isFinite(seq)) return { nextSeq: seq + 1, repaired };
      } catch {
        // a damaged line in the middle: keep looking further up
      }
    }
    return { nextSeq: 1, repaired };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Appends one entry (its `seq` is assigned here). Call under the workflow file's lock so that
 * sequence numbers stay unique; the line itself can never tear between processes.
 */
export function appendHistory(root: string, entry: Omit<HistoryEntry, 'seq'>, dir?: string): AppendResult {
  const histFile = historyPathFor(root, entry.file, dir);
  try {
    fs.mkdirSync(path.dirname(histFile), { recursive: true });
    const { nextSeq, repaired } = prepareTail(histFile);
    const full: HistoryEntry = { seq: nextSeq, ...entry };
    const line = Buffer.from(JSON.stringify(full) + '\n', 'utf8');
    const fd = fs.openSync(histFile, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o644);
    try {
      const n = fs.writeSync(fd, line, 0, line.length);
      if (n !== line.length) throw new WaymarkError('io', `Short write to ${histFile} (${n} of ${line.length} bytes); it will be repaired on the next append.`, histFile);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return { entry: full, historyFile: histFile, repaired };
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, histFile, 'append history to');
  }
}

/**
 * Refuses before any write when the history of `file` could not be appended to: its path is a
 * pipe, socket or folder. (A missing history is fine: it is created on the first append.)
 */
export function assertHistoryAppendable(root: string, file: string, dir?: string): void {
  const histFile = historyPathFor(root, file, dir);
  let st: fs.Stats;
  try {
    st = fs.statSync(histFile);
  } catch {
    return;
  }
  if (!st.isFile()) throw new WaymarkError('io', `History ${histFile} is not a regular file (a pipe, socket or folder); remove it, then retry. Nothing was changed.`, histFile);
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
      if (v && typeof v === 'object' && typeof v.seq === 'number' && typeof v.operation === 'string') entries.push(v);
      else badLines.push(i + 1);
    } catch {
      badLines.push(i + 1);
    }
  });
  return { entries, badLines, historyFile: histFile };
}

export function readHistory(root: string, file: string, dir?: string): HistoryEntry[] {
  return readHistoryDetailed(root, file, dir).entries;
}

/** Fields recorded as `from`/`to` in history (only those that changed). */
const HISTORY_FIELDS = ['status', 'rawStatus', 'currentStep', 'stepsCompleted', 'lastStep', 'scope', 'blockedReason', 'delegation'] as const;

function historySnapshot(s: WorkflowState | undefined): Record<string, unknown> {
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

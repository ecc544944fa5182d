import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { ioError } from '../store/atomicWrite';
import { openInsideSync, openInternalSync } from '../store/safePath';
import type { JournalOp } from './model';

/**
 * The inbox: an append-only JSONL journal every process can write without the database.
 * One `write()` per line on an O_APPEND descriptor, so concurrent writers never interleave.
 * Whoever holds the database ingests it from a byte cursor; ingestion is idempotent by id.
 */

const MAX_LINE = 256 * 1024;

/**
 * Appends ops as lines; returns the bytes written by the final (successful) attempt. With
 * `root`, the inbox's real path must lie inside that workspace folder (`memory.dir` or a link
 * leading elsewhere is refused, exit 2) and a FIFO or folder at its path is refused, never waited on.
 */
export function appendJournal(file: string, ops: JournalOp[], root?: string): number {
  if (!ops.length) return 0;
  const text = ops.map((op) => {
    const line = JSON.stringify(op);
    if (line.length > MAX_LINE) throw new WaymarkError('invalid', `A memory is too large to record (${line.length} bytes; the limit is ${MAX_LINE}). Shorten the text.`);
    return line + '\n';
  }).join('');
  try {
    if (!root) fs.mkdirSync(path.dirname(file), { recursive: true });
    const flags = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT;
    // Re-check after writing that the path still names the file we wrote to: a prune
    // may have rotated the inbox between open and write; then write again (ids make it idempotent).
    for (let attempt = 0; ; attempt++) {
      let fd: number;
      let target = file;
      try {
        if (root) {
          // Inside a workspace the descriptor is proved to be the file checked (store/safePath.ts).
          ({ fd, real: target } = openInsideSync(root, file, flags, { what: 'memory inbox' }));
        } else {
          fd = openInternalSync(file, flags, { what: 'memory inbox' });
        }
      } catch (e) {
        // A prune rotated the inbox between the look and the open: look again.
        if (attempt < 4 && WaymarkError.is(e, 'conflict')) continue;
        throw e;
      }
      let ino: number;
      try {
        const buf = Buffer.from(text, 'utf8');
        let off = 0;
        while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
        ino = fs.fstatSync(fd).ino;
      } finally {
        fs.closeSync(fd);
      }
      let now: number | undefined;
      try {
        now = fs.statSync(target).ino;
      } catch {
        now = undefined;
      }
      if (now === ino || attempt >= 4) return Buffer.byteLength(text, 'utf8');
    }
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, file, 'append to');
  }
}

export interface JournalRead {
  ops: JournalOp[];
  /** Byte offset just after the last complete line read. */
  end: number;
  /** Lines that were not valid journal entries (skipped, counted). */
  bad: number;
  /** Inode of the file read, to notice rotation. */
  ino?: number;
}

/** Reads complete lines from `offset`. A missing file reads as empty. */
export function readJournal(file: string, offset = 0): JournalRead {
  let fd: number;
  try {
    fd = openInternalSync(file, fs.constants.O_RDONLY, { what: 'memory inbox' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ops: [], end: 0, bad: 0 };
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, file, 'read');
  }
  try {
    const st = fs.fstatSync(fd);
    if (offset > st.size) offset = 0;
    const len = st.size - offset;
    const buf = Buffer.alloc(len);
    let got = 0;
    while (got < len) {
      const n = fs.readSync(fd, buf, got, len - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    const lastNl = buf.lastIndexOf(0x0a, got - 1);
    if (lastNl < 0) return { ops: [], end: offset, bad: 0, ino: st.ino };
    const text = buf.subarray(0, lastNl + 1).toString('utf8');
    const ops: JournalOp[] = [];
    let bad = 0;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      const op = parseLine(line);
      if (op) ops.push(op);
      else bad++;
    }
    return { ops, end: offset + lastNl + 1, bad, ino: st.ino };
  } finally {
    fs.closeSync(fd);
  }
}

function parseLine(line: string): JournalOp | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const rec = o.rec as Record<string, unknown> | undefined;
  if (!rec || typeof rec !== 'object') return undefined;
  if (o.op === 'memory' && typeof rec.id === 'string' && typeof rec.text === 'string' && typeof rec.type === 'string' && typeof rec.createdAt === 'string') {
    if (!rec.source || typeof rec.source !== 'object') rec.source = {};
    return o as unknown as JournalOp;
  }
  if (o.op === 'entity' && typeof rec.id === 'string') return o as unknown as JournalOp;
  if (o.op === 'forget' && Array.isArray(rec.ids)) return o as unknown as JournalOp;
  if (o.op === 'relate' && typeof rec.from === 'string' && typeof rec.to === 'string') return o as unknown as JournalOp;
  return undefined;
}

/** Every journal file of a memory folder, oldest first: rotated segments, then the live inbox. */
export function journalFiles(dir: string, inbox: string): string[] {
  const seg = path.join(dir, 'journal');
  let names: string[] = [];
  try {
    names = fs.readdirSync(seg).filter((n) => n.endsWith('.jsonl')).sort();
  } catch {
    names = [];
  }
  return [...names.map((n) => path.join(seg, n)), inbox];
}

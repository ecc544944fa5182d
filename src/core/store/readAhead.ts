/**
 * Reading ahead of a scan on a second thread: while the scan parses file i on the main thread, a
 * worker opens, stats, reads and hashes the files after it, exactly as the scan's own read does
 * (scan.ts, `readBytes`: the stat of the open file first, the 8 KiB head, the whole file only when
 * it opens with a frontmatter fence; SHA-256 of the bytes read when they open with one). The scan
 * takes the reads in listing order and never waits for the worker: a file whose read the worker
 * has not posted yet (not claimed, or claimed and still being read) the scan reads itself, and
 * the worker's read of it, when it comes, is dropped. So the scan runs as fast as it would alone
 * whenever the worker lags (starting its thread, a busy machine, a batch half read), and anything
 * wrong with the worker (it cannot start, it stops answering) only means the scan reads the rest
 * itself. The worker stays at most `LEAD_FILES` files and `LEAD_BYTES` bytes ahead of the scan (a
 * bounded queue), and posts its first batches small (1, 2, 4 … `BATCH` reads) so the scan gets
 * reads from its first milliseconds on. A worker at its bound sleeps until the scan has taken half
 * its lead, and is woken only then (it says when it sleeps): a wake-up every few dozen files cost
 * the scan's thread a context switch each on a busy 2-core machine (a tenth of a cold `validate`'s
 * parse in CPU profiles, all of it in `Atomics.notify`).
 *
 * Only for large first reads (a scan with no index to answer from): a worker costs a thread's
 * start (tens of ms, off the main thread) and is worth it only over thousands of files.
 */
import type { Worker, MessagePort } from 'node:worker_threads';
import type { FileKey } from './scanIndex';

/** node:worker_threads, loaded by the first read ahead: a one-file verb or a warm scan never starts a thread, and the module costs every process milliseconds to load. */
let threads: typeof import('node:worker_threads') | undefined;
function workerThreads(): typeof import('node:worker_threads') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  return (threads ??= require('node:worker_threads') as typeof import('node:worker_threads'));
}

/** A listing at least this long is read ahead. */
export const READ_AHEAD_MIN_FILES = 2000;
const LEAD_FILES = 1024;
const LEAD_BYTES = 64 * 1024 * 1024;
const BATCH = 32;

/** What the worker found for one file: what the scan's own read would have found. */
export interface AheadRead {
  /** The open, stat or read failed: its error code and message. */
  error?: { code?: string; message: string };
  key?: FileKey;
  /** Set when the open file was not a regular file: a directory, or something else. */
  notFile?: 'dir' | 'other';
  /** Over `maxFileBytes`: nothing read. */
  tooLarge?: boolean;
  bytes?: Buffer;
  /** SHA-256 (hex) of `bytes`, when they open with a frontmatter fence. */
  hash?: string;
}

interface WireRead {
  i: number;
  error?: string;
  message?: string;
  key?: [number, number, number, number];
  notFile?: 'dir' | 'other';
  tooLarge?: boolean;
  /** Slab index in the batch, offset, length. */
  at?: [number, number, number];
  hash?: string;
}

// Shared counters (Int32 slots): the next index not yet claimed, the scan's position, the bytes
// sent and not yet taken.
const NEXT = 0;
const TAKEN = 1;
const IN_FLIGHT = 2;
/** Set by the worker as it exits, however it exits: whatever it has not posted by then it never will. */
const GONE = 3;
/** Set by the worker while it sleeps at its bound: the scan wakes it only then. */
const ASLEEP = 4;

/** The worker, as plain JavaScript (it runs from this text, so it needs no file of its own beside the bundle). */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const crypto = require('node:crypto');
const { files, max, head, port, shared, leadFiles, leadBytes, batch } = workerData;
process.on('exit', () => { Atomics.store(shared, ${GONE}, 1); });
const sha256 = crypto.hash ? (b) => crypto.hash('sha256', b, 'hex') : (b) => crypto.createHash('sha256').update(b).digest('hex');
const fence = (b) => { const o = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0; return b[o] === 0x2d && b[o + 1] === 0x2d && b[o + 2] === 0x2d; };
const SLAB = 256 * 1024;
let out = [];
// The first batches are small, so the scan has reads to take while the worker's code warms up.
let batchNow = 1;
let slabs = [];
let slab = null;
let used = 0;
let bytes = 0;
function room(n) {
  if (slab && used + n <= slab.length) return;
  slab = Buffer.allocUnsafeSlow(Math.max(SLAB, n));
  slabs.push(slab.buffer);
  used = 0;
}
function flush() {
  if (!out.length) return;
  Atomics.add(shared, ${IN_FLIGHT}, bytes);
  port.postMessage({ reads: out, slabs }, slabs);
  out = [];
  slabs = [];
  slab = null;
  used = 0;
  bytes = 0;
}
// Reads the file from byte "from" to "to" into buf at base + the file offset; returns the offset reached.
function readInto(fd, buf, base, from, to) {
  let n = from;
  while (n < to) {
    const r = fs.readSync(fd, buf, base + n, to - n, n);
    if (r === 0) break;
    n += r;
  }
  return n;
}
function readOne(i) {
  let fd;
  try {
    fd = fs.openSync(files[i], 'r');
  } catch (e) {
    return { i, error: e.code, message: e.message };
  }
  try {
    const st = fs.fstatSync(fd);
    const key = [st.size, st.mtimeMs, st.ctimeMs, st.ino];
    if (!st.isFile()) return { i, key, notFile: st.isDirectory() ? 'dir' : 'other' };
    if (st.size > max) return { i, key, tooLarge: true };
    const headSize = Math.min(st.size, head);
    room(headSize);
    let start = used;
    let n = readInto(fd, slab, start, 0, headSize);
    if (n === headSize && st.size > headSize && fence(slab.subarray(start, start + n))) {
      if (used + st.size > slab.length) {
        const h = Buffer.from(slab.subarray(start, start + n));
        room(st.size);
        h.copy(slab, used);
        start = used;
      }
      n = readInto(fd, slab, start, n, st.size);
    }
    const b = slab.subarray(start, start + n);
    used = start + n;
    bytes += n;
    return { i, key, at: [slabs.length - 1, start, n], hash: fence(b) ? sha256(b) : undefined };
  } catch (e) {
    return { i, error: e.code, message: e.message };
  } finally {
    try { fs.closeSync(fd); } catch {}
  }
}
// At the bound, sleep until the scan has taken half the lead (files and bytes): one wake-up per
// half lead, not one per file taken.
const full = () => Atomics.load(shared, ${NEXT}) - Atomics.load(shared, ${TAKEN}) >= leadFiles || Atomics.load(shared, ${IN_FLIGHT}) + bytes >= leadBytes;
const roomy = () => Atomics.load(shared, ${NEXT}) - Atomics.load(shared, ${TAKEN}) <= leadFiles / 2 && Atomics.load(shared, ${IN_FLIGHT}) <= leadBytes / 2;
for (;;) {
  if (full()) {
    flush();
    while (!roomy()) {
      const t = Atomics.load(shared, ${TAKEN});
      Atomics.store(shared, ${ASLEEP}, 1);
      // The scan may have moved between the test and the flag: test again before sleeping.
      if (!roomy()) Atomics.wait(shared, ${TAKEN}, t, 50);
      Atomics.store(shared, ${ASLEEP}, 0);
    }
  }
  const i = Atomics.add(shared, ${NEXT}, 1);
  if (i >= files.length) break;
  out.push(readOne(i));
  if (out.length >= batchNow) {
    flush();
    if (batchNow < batch) batchNow *= 2;
  }
}
flush();
`;

/** Reads of a listing taken in order, by the worker where it got there first. */
export class ReadAhead {
  private readonly got: (AheadRead | undefined)[];
  /** Bytes taken (or dropped) since the worker was last told. */
  private taken = 0;
  /** The next index the scan will ask for: reads of earlier files come too late and are dropped. */
  private next = 0;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly shared: Int32Array,
    count: number,
  ) {
    this.got = new Array(count);
  }

  /** A worker reading `files` ahead, or undefined when none can be started (the scan then reads alone). */
  static start(files: readonly string[], maxFileBytes: number, headBytes: number): ReadAhead | undefined {
    const { Worker, MessageChannel } = workerThreads();
    const shared = new Int32Array(new SharedArrayBuffer(20));
    const { port1, port2 } = new MessageChannel();
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { files, max: maxFileBytes, head: headBytes, port: port2, shared, leadFiles: LEAD_FILES, leadBytes: LEAD_BYTES, batch: BATCH },
        transferList: [port2],
        // The worker needs no stdin, and its own copy of the environment is the parent's anyway.
        stdin: false,
      });
    } catch {
      port1.close();
      return undefined;
    }
    // Never what keeps the process alive; an error in it only means the scan reads alone.
    worker.unref();
    worker.on('error', () => {});
    return new ReadAhead(worker, port1, shared, files.length);
  }

  /** How many files of the listing are claimed, by the worker or the scan. */
  get claimed(): number {
    return Math.min(Atomics.load(this.shared, NEXT), this.got.length);
  }

  /** True once the worker has exited (done with the listing, stopped, or failed): it posts nothing more. */
  get finished(): boolean {
    return Atomics.load(this.shared, GONE) === 1;
  }

  /**
   * The read of the i-th file (asked in order, each once): the worker's when it has posted it,
   * else undefined and the caller reads the file itself (never waits for the worker).
   */
  take(i: number): AheadRead | undefined {
    const shared = this.shared;
    this.next = i;
    // The worker's bound moves every 16 files (an atomic operation per file costs more than it
    // saves); a worker asleep at its bound is woken once half its lead is taken (it sleeps until then).
    if ((i & 15) === 0) {
      Atomics.store(shared, TAKEN, i);
      if (this.taken) {
        Atomics.sub(shared, IN_FLIGHT, this.taken);
        this.taken = 0;
      }
      if (Atomics.load(shared, ASLEEP) === 1 && Atomics.load(shared, NEXT) - i <= LEAD_FILES / 2 && Atomics.load(shared, IN_FLIGHT) <= LEAD_BYTES / 2) Atomics.notify(shared, TAKEN);
    }
    let r = this.got[i];
    if (r === undefined) {
      this.drain();
      r = this.got[i];
    }
    this.next = i + 1;
    if (r === undefined) {
      // Not claimed yet: the scan's own from now on. Claimed and not posted: read here too, the
      // worker's read is dropped when it comes.
      Atomics.compareExchange(shared, NEXT, i, i + 1);
      return undefined;
    }
    this.got[i] = undefined;
    if (r.bytes) this.taken += r.bytes.length;
    return r;
  }

  /** Takes every batch the worker has posted. */
  private drain(): void {
    const { receiveMessageOnPort } = workerThreads();
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
      const { reads, slabs } = m.message as { reads: WireRead[]; slabs: ArrayBuffer[] };
      for (const w of reads) {
        if (w.i < this.next) {
          // The scan read this file itself meanwhile; its bytes no longer count against the lead.
          if (w.at) this.taken += w.at[2];
          continue;
        }
        const r: AheadRead = {};
        if (w.error !== undefined || w.message !== undefined) r.error = { code: w.error, message: w.message ?? '' };
        if (w.key) r.key = { size: w.key[0], mtimeMs: w.key[1], ctimeMs: w.key[2], ino: w.key[3] };
        if (w.notFile) r.notFile = w.notFile;
        if (w.tooLarge) r.tooLarge = true;
        if (w.at) r.bytes = Buffer.from(slabs[w.at[0]], w.at[1], w.at[2]);
        if (w.hash !== undefined) r.hash = w.hash;
        this.got[w.i] = r;
      }
    }
  }

  /** Stops the worker (it may be done already) and lets go of its channel. */
  close(): void {
    // Whatever it has not claimed it never will: the scan is done with the listing.
    Atomics.store(this.shared, NEXT, this.got.length);
    Atomics.store(this.shared, TAKEN, this.got.length);
    Atomics.notify(this.shared, TAKEN);
    this.port.close();
    void this.worker.terminate().catch(() => {});
  }
}

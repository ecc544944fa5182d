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
  /**
   * The bytes read, when the worker did not decode them (`text`): a file that does not open with
   * a frontmatter fence, or whose head holds a NUL byte (the scan's encoding test refuses it).
   */
  bytes?: Buffer;
  /**
   * The bytes decoded as UTF-8 (Buffer's `toString('utf8')`, as the scan's own read decodes them),
   * when they open with a frontmatter fence and the first `headBytes` of them hold no NUL byte:
   * what the scan's encoding and fence tests let through to the parse. `bytes` is then unset.
   */
  text?: string;
  /** How many bytes were read (`bytes`'s length, or the bytes `text` was decoded from). */
  length?: number;
  /** SHA-256 (hex) of the bytes read, when they open with a frontmatter fence. */
  hash?: string;
}

/**
 * One batch as the worker posts it: plain columns, so the scan's thread takes a batch in a few
 * allocations instead of an object, two arrays and a string per file. `reads` holds READ_FIELDS
 * numbers per read; `texts`, `hashes` and `errors` are taken in order by the reads that have one.
 */
interface WireBatch {
  reads: Float64Array;
  texts: string[];
  hashes: string[];
  errors: { code?: string; message: string }[];
  slabs: ArrayBuffer[];
}

/** Per read: the listing index, its kind, the stat key (4), the bytes read, the slab and offset of undecoded bytes, whether it has a hash. */
const READ_FIELDS = 10;
/** Kinds of a read on the wire. */
const K_TEXT = 0;
const K_BYTES = 1;
const K_ERROR = 2;
const K_DIR = 3;
const K_OTHER = 4;
const K_TOO_LARGE = 5;

// Shared counters (Int32 slots): the next index not yet claimed, the scan's position, the bytes
// sent and not yet taken.
const NEXT = 0;
const TAKEN = 1;
const IN_FLIGHT = 2;
/** Set by the worker as it exits, however it exits: whatever it has not posted by then it never will. */
const GONE = 3;
/** Set by the worker while it sleeps at its bound: the scan wakes it only then. */
const ASLEEP = 4;

/**
 * The worker, as plain JavaScript (it runs from this text, so it needs no file of its own beside the
 * bundle). Besides reading and hashing, it makes the text the parse needs out of the bytes that
 * would reach the parse (a fence, no NUL byte in the head: the scan's own tests, scan.ts judgeBytes),
 * so the scan's thread neither decodes them nor wraps them in a Buffer.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const crypto = require('node:crypto');
const { files, max, head, port, shared, leadFiles, leadBytes, batch } = workerData;
process.on('exit', () => { Atomics.store(shared, ${GONE}, 1); });
const sha256 = crypto.hash ? (b) => crypto.hash('sha256', b, 'hex') : (b) => crypto.createHash('sha256').update(b).digest('hex');
const fence = (b) => { const o = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0; return b[o] === 0x2d && b[o + 1] === 0x2d && b[o + 2] === 0x2d; };
const SLAB = 256 * 1024;
const F = ${READ_FIELDS};
// The first batches are small, so the scan has reads to take while the worker's code warms up.
let batchNow = 1;
let reads = new Float64Array(F * batchNow);
let count = 0;
let texts = [];
let hashes = [];
let errors = [];
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
// Whether a read of this batch left its bytes in a slab (most reads leave a text, and their slab is written over).
let kept = false;
function flush() {
  if (!count) return;
  Atomics.add(shared, ${IN_FLIGHT}, bytes);
  const r = count * F === reads.length ? reads : reads.slice(0, count * F);
  const send = kept ? slabs : [];
  port.postMessage({ reads: r, texts, hashes, errors, slabs: send }, [r.buffer, ...send]);
  reads = new Float64Array(F * batchNow);
  count = 0;
  texts = [];
  hashes = [];
  errors = [];
  if (kept) slab = null;
  slabs = slab ? [slab.buffer] : [];
  kept = false;
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
function put(i, kind, st, n, slabAt, start, hashed) {
  const o = count++ * F;
  reads[o] = i;
  reads[o + 1] = kind;
  if (st) {
    reads[o + 2] = st.size;
    reads[o + 3] = st.mtimeMs;
    reads[o + 4] = st.ctimeMs;
    reads[o + 5] = st.ino;
  }
  reads[o + 6] = n;
  reads[o + 7] = slabAt;
  reads[o + 8] = start;
  reads[o + 9] = hashed ? 1 : 0;
}
function readOne(i) {
  let fd;
  try {
    fd = fs.openSync(files[i], 'r');
  } catch (e) {
    errors.push({ code: e.code, message: e.message });
    return put(i, ${K_ERROR}, null, 0, 0, 0, false);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return put(i, st.isDirectory() ? ${K_DIR} : ${K_OTHER}, st, 0, 0, 0, false);
    if (st.size > max) return put(i, ${K_TOO_LARGE}, st, 0, 0, 0, false);
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
    const fenced = fence(b);
    if (fenced) hashes.push(sha256(b));
    // What passes the scan's encoding test (no NUL byte in the head) and opens with a fence is parsed: its text.
    bytes += n;
    if (fenced && (n > head ? b.subarray(0, head) : b).indexOf(0) < 0) {
      texts.push(b.toString('utf8'));
      return put(i, ${K_TEXT}, st, n, 0, 0, true);
    }
    used = start + n;
    kept = true;
    return put(i, ${K_BYTES}, st, n, slabs.length - 1, start, fenced);
  } catch (e) {
    errors.push({ code: e.code, message: e.message });
    return put(i, ${K_ERROR}, null, 0, 0, 0, false);
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
  readOne(i);
  if (count >= batchNow) {
    if (batchNow < batch) batchNow *= 2;
    flush();
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

  /**
   * A worker reading `files` ahead, or undefined when none can be started (the scan then reads
   * alone). `headBytes`: the head read first, which is also the window the encoding test searches
   * for a NUL byte (the scan's ENCODING_SNIFF_BYTES, both). `from`: the first index of `files` the
   * scan will ask for (a worker started part-way through the listing never reads what is behind it).
   */
  static start(files: readonly string[], maxFileBytes: number, headBytes: number, from = 0): ReadAhead | undefined {
    const { Worker, MessageChannel } = workerThreads();
    const shared = new Int32Array(new SharedArrayBuffer(20));
    Atomics.store(shared, NEXT, from);
    Atomics.store(shared, TAKEN, from);
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
    const ahead = new ReadAhead(worker, port1, shared, files.length);
    ahead.next = from;
    return ahead;
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
    this.taken += r.length ?? 0;
    return r;
  }

  /** Takes every batch the worker has posted. */
  private drain(): void {
    const { receiveMessageOnPort } = workerThreads();
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
      const { reads, texts, hashes, errors, slabs } = m.message as WireBatch;
      let t = 0;
      let h = 0;
      let e = 0;
      for (let o = 0; o < reads.length; o += READ_FIELDS) {
        const i = reads[o];
        const kind = reads[o + 1];
        const length = reads[o + 6];
        // Each column is taken in order, whether the read is kept or dropped.
        const text = kind === K_TEXT ? texts[t++] : undefined;
        const hash = reads[o + 9] === 1 ? hashes[h++] : undefined;
        const error = kind === K_ERROR ? errors[e++] : undefined;
        if (i < this.next) {
          // The scan read this file itself meanwhile; its bytes no longer count against the lead.
          this.taken += length;
          continue;
        }
        this.got[i] = {
          error: error && { code: error.code, message: error.message ?? '' },
          key: kind === K_ERROR ? undefined : { size: reads[o + 2], mtimeMs: reads[o + 3], ctimeMs: reads[o + 4], ino: reads[o + 5] },
          notFile: kind === K_DIR ? 'dir' : kind === K_OTHER ? 'other' : undefined,
          tooLarge: kind === K_TOO_LARGE || undefined,
          bytes: kind === K_BYTES ? Buffer.from(slabs[reads[o + 7]], reads[o + 8], length) : undefined,
          text,
          length,
          hash,
        };
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

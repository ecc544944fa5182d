import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WriteObserver } from '../writeHooks';
import type { Clock, Logger } from '../ports';
import { systemClock, silentLogger } from '../ports';
import { protocolPaths, relPath } from './paths';
import { withMutexSync, sleepSync } from './mutex';
import { assertRegularOrMissing, assertWritable, lstatOrUndefined, openInsideSync, openInternalSync, readInternalIfExists, safeAppend, safeMkdir, safeWritePath, type ProvedFolder } from '../store/safePath';
import type { WriteGuard } from '../writeHooks';
import { findFromEnd, tornTail } from '../store/jsonlTail';
import { sameEnd, type AppendedEnd } from '../store/fileKey';

/** One line of `.waymark/events/events.jsonl`. `seq` grows by exactly 1 per event, across rotations. */
export interface ProtocolEvent {
  seq: number;
  time: string;
  /** e.g. `workflow.advance`, `lease.acquire`, `lease.takeover`, `checkpoint.create`, `ttl.expired`. */
  type: string;
  /** Workflow file relative to the root, when the event is about one. */
  file?: string;
  actor?: string;
  session?: string;
  data?: Record<string, unknown>;
}

export type NewEvent = Omit<ProtocolEvent, 'seq' | 'time'> & { time?: string };

export interface EventsLogOptions {
  /** Rotate the active segment once it reaches this size (bytes). Default 1 MiB. */
  maxBytes?: number;
  /** Archived segments kept (oldest removed first). Default 100. */
  keepSegments?: number;
  clock?: Clock;
  logger?: Logger;
}

export interface TornRepair {
  file: string;
  /** Bytes of the incomplete last line that were moved aside to `<file>.torn`. */
  bytes: number;
}

const SEGMENT_RE = /^events-(\d{12})\.jsonl$/;

function segmentName(firstSeq: number): string {
  return `events-${String(firstSeq).padStart(12, '0')}.jsonl`;
}

interface Segment {
  file: string;
  firstSeq: number;
  active: boolean;
}

/** Archived segments (oldest first) and then the active file. */
function listSegments(dir: string): Segment[] {
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const archived: Segment[] = [];
  for (const n of names) {
    const m = SEGMENT_RE.exec(n);
    if (m) archived.push({ file: path.join(dir, n), firstSeq: Number(m[1]), active: false });
  }
  archived.sort((a, b) => a.firstSeq - b.firstSeq);
  return [...archived, { file: path.join(dir, 'events.jsonl'), firstSeq: NaN, active: true }];
}

/** Complete lines only: a trailing line without its newline is still being written (or torn). */
function completeLines(text: string): string[] {
  const end = text.lastIndexOf('\n');
  if (end < 0) return [];
  return text.slice(0, end).split('\n').filter((l) => l.length > 0);
}

function parseEvent(line: string): ProtocolEvent | undefined {
  try {
    const v = JSON.parse(line) as ProtocolEvent;
    return v && typeof v.seq === 'number' && typeof v.type === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The seq of the last readable event in a file (reading backwards from its end), if any. */
function lastSeqInFile(file: string): number | undefined {
  let fd: number;
  try {
    fd = openInternalSync(file, fs.constants.O_RDONLY, { what: 'events log' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    let chunk = 4096;
    for (;;) {
      const start = Math.max(0, size - chunk);
      const buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      const lines = completeLines(buf.toString('utf8'));
      // The first line of a partial window may be cut; only trust it when the window starts at 0.
      for (let i = lines.length - 1; i >= (start === 0 ? 0 : 1); i--) {
        const ev = parseEvent(lines[i]);
        if (ev) return ev.seq;
      }
      if (start === 0) return undefined;
      chunk *= 4;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Repairs a JSONL file whose last line has no newline (a crash mid-append): the incomplete
 * bytes are appended to `<file>.torn` for inspection and cut from the file. Complete lines are
 * never touched. Call under the file's append lock. Returns what was repaired, if anything.
 * With `root`, the descriptor cut is proved to be the file checked inside it (openInsideSync).
 */
export function repairTornTail(file: string, root?: string): TornRepair | undefined {
  let fd: number;
  try {
    fd = root ? openInsideSync(root, file, fs.constants.O_RDWR, { what: 'events log' }).fd : openInternalSync(file, fs.constants.O_RDWR, { noFollow: true, what: 'events log' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const t = tornTail(fd, fs.fstatSync(fd).size);
    if (!t) return undefined;
    const { cut, torn } = t;
    safeAppend(path.dirname(file), `${file}.torn`, Buffer.concat([Buffer.from(`# ${new Date().toISOString()} ${torn.length} bytes cut from the end of ${path.basename(file)}\n`), torn, Buffer.from('\n')]));
    fs.ftruncateSync(fd, cut);
    fs.fsyncSync(fd);
    return { file, bytes: torn.length };
  } finally {
    fs.closeSync(fd);
  }
}

export interface AppendResult {
  event: ProtocolEvent;
  repaired?: TornRepair;
  rotated?: string;
}

/**
 * Appends one event to `<root>/.waymark/events/events.jsonl` under a short cross-process lock:
 * repairs a torn last line, rotates the active segment when it is over `maxBytes` (rename to
 * `events-<firstSeq>.jsonl`, never truncation), assigns the next `seq`, and writes one line.
 */
export function appendEvent(root: string, input: NewEvent, options: EventsLogOptions = {}): AppendResult {
  const paths = protocolPaths(root);
  // The log's identity first, then its folder checked by its real path (`.waymark/events` linked
  // to elsewhere is refused, not followed): that proof serves the log's open (openInsideSync `proved`).
  const seen = lstatOrUndefined(path.join(paths.events, 'events.jsonl'));
  const dir = safeMkdir(root, paths.events);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const keep = options.keepSegments ?? 100;
  // Taken by every write of a long-lived process: by its token after the first two (mutex.ts Token).
  return withMutexSync(path.join(dir, 'events.lock'), (waited) => {
    const active = path.join(dir, 'events.jsonl');
    // A proof made before a wait for another writer's lock is not right before the open: the log is judged afresh.
    const quick = appendQuick(root, active, input, clock, maxBytes, waited ? undefined : { dir, seen });
    if (quick) return quick;
    assertRegularOrMissing(active, 'events log');
    const repaired = repairTornTail(active, root);
    if (repaired) logger.warn(`[protocol] repaired torn last line of ${active} (${repaired.bytes} bytes moved to ${active}.torn)`);
    let lastSeq = lastSeqInFile(active);
    let rotated: string | undefined;
    let size = 0;
    try {
      size = fs.lstatSync(active).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (size >= maxBytes) {
      const first = firstSeqInFile(active);
      if (first !== undefined) {
        rotated = path.join(dir, segmentName(first));
        fs.renameSync(active, rotated);
        pruneSegments(dir, keep);
      }
    }
    if (lastSeq === undefined) {
      const segs = listSegments(dir).filter((s) => !s.active);
      for (let i = segs.length - 1; i >= 0 && lastSeq === undefined; i--) lastSeq = lastSeqInFile(segs[i].file);
    }
    const event = eventOf((lastSeq ?? 0) + 1, input, clock);
    const { fd } = openInsideSync(root, active, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, { what: 'events log' });
    try {
      fs.writeSync(fd, JSON.stringify(event) + '\n');
      rememberEnd(active, fd, event.seq);
    } finally {
      fs.closeSync(fd);
    }
    return { event, repaired, rotated };
  }, { token: true });
}

function eventOf(seq: number, input: NewEvent, clock: Clock): ProtocolEvent {
  return {
    seq,
    time: input.time ?? clock.now().toISOString(),
    type: input.type,
    ...(input.file !== undefined ? { file: input.file } : {}),
    ...(input.actor !== undefined ? { actor: input.actor } : {}),
    ...(input.session !== undefined ? { session: input.session } : {}),
    ...(input.data !== undefined ? { data: input.data } : {}),
  };
}

/**
 * The common append (under the events lock), on one descriptor: the active file opened once
 * (checked inside the workspace, proved to be the file checked, a regular file), ending cleanly,
 * under `maxBytes`, with a readable last event: its seq read back from the same descriptor, the
 * line written on it. Anything else (a torn tail to repair, a rotation due, no event in the active
 * file) is left to the full path: undefined, nothing written.
 */
function appendQuick(root: string, active: string, input: NewEvent, clock: Clock, maxBytes: number, proved: ProvedFolder | undefined): AppendResult | undefined {
  let opened: { fd: number; st: fs.Stats };
  try {
    opened = openInsideSync(root, active, fs.constants.O_RDWR | fs.constants.O_APPEND, { what: 'events log', proved });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const { fd, st } = opened;
  try {
    if (st.size === 0 || st.size >= maxBytes) return undefined;
    let lastSeq = knownEnd(active, st);
    if (lastSeq === undefined) {
      if (tornTail(fd, st.size)) return undefined;
      lastSeq = findFromEnd(fd, st.size, (line) => parseEvent(line)?.seq);
      if (lastSeq === undefined) return undefined;
    }
    const event = eventOf(lastSeq + 1, input, clock);
    fs.writeSync(fd, JSON.stringify(event) + '\n');
    rememberEnd(active, fd, event.seq);
    return { event };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The events log's end as this process left it (history.ts keeps history's the same way): the
 * active file's identity and stamps right after this process's last line, and that line's seq.
 * While the file opened for the next append still shows them, it ends with that line, whole, and
 * the next seq is known without reading and parsing its tail. Any other writer's line (the CLI, a
 * hook, under the same lock) moves the size; a rotation, a repair or a rewrite the inode or ctime:
 * then the tail is read as before. One entry per log (a process writes one or two workspaces).
 */
const knownEnds = new Map<string, AppendedEnd>();

function knownEnd(active: string, st: fs.Stats): number | undefined {
  const k = knownEnds.get(active);
  if (!k) return undefined;
  if (sameEnd(k, st)) return k.seq;
  knownEnds.delete(active);
  return undefined;
}

function rememberEnd(active: string, fd: number, seq: number): void {
  const st = fs.fstatSync(fd);
  if (knownEnds.size >= 16) knownEnds.clear();
  knownEnds.set(active, { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, seq });
}

/** The seq of the first readable event of a file (segments are named by it). */
function firstSeqInFile(file: string): number | undefined {
  const fd = openInternalSync(file, fs.constants.O_RDONLY, { what: 'events log' });
  try {
    let pos = 0;
    let carry = '';
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) return undefined;
      pos += n;
      const lines = (carry + buf.subarray(0, n).toString('utf8')).split('\n');
      carry = lines.pop() ?? '';
      for (const l of lines) {
        const ev = parseEvent(l);
        if (ev) return ev.seq;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

function pruneSegments(dir: string, keep: number): void {
  const archived = listSegments(dir).filter((s) => !s.active);
  for (const s of archived.slice(0, Math.max(0, archived.length - keep))) {
    try {
      fs.unlinkSync(s.file); // a reader holding it open keeps reading its bytes (POSIX)
    } catch {
      // removed by another process
    }
  }
}

export interface ReadEventsResult {
  events: ProtocolEvent[];
  /** Highest seq returned (or `since` when none). Pass it back as `since` to continue. */
  last: number;
  warnings: string[];
}

/**
 * Events with `seq > since`, in order, across archived segments and the active file.
 * A rotation between listing and reading is detected by the gap it would leave and retried,
 * so a follower never loses or repeats an event.
 */
export function readEvents(root: string, since = 0, options: { limit?: number } = {}): ReadEventsResult {
  const dir = protocolPaths(root).events;
  const limit = options.limit ?? Infinity;
  const warnings: string[] = [];
  for (let attempt = 0; ; attempt++) {
    const segs = listSegments(dir);
    const out: ProtocolEvent[] = [];
    let gap = false;
    let expected = since + 1;
    const archived = segs.filter((s) => !s.active);
    const oldest = archived.length ? archived[0].firstSeq : undefined;
    if (oldest !== undefined && since + 1 < oldest) {
      warnings.push(`events ${since + 1}..${oldest - 1} were pruned from the archive (keepSegments); continuing at ${oldest}.`);
      expected = oldest;
    }
    for (let i = 0; i < segs.length && out.length < limit; i++) {
      const s = segs[i];
      const next = segs[i + 1];
      if (!s.active && next && !next.active && next.firstSeq <= expected) continue;
      const read = readInternalIfExists(s.file, 'events log');
      if (read === undefined) {
        if (s.active) break; // no events yet
        gap = true; // rotated or pruned under us
        break;
      }
      const text = read;
      for (const line of completeLines(text)) {
        const ev = parseEvent(line);
        if (!ev) {
          warnings.push(`skipped an unreadable line in ${path.basename(s.file)}`);
          continue;
        }
        if (ev.seq < expected) continue;
        if (ev.seq > expected) {
          gap = true;
          break;
        }
        out.push(ev);
        expected++;
        if (out.length >= limit) break;
      }
      if (gap) break;
    }
    if (gap && attempt < 5) continue;
    if (gap) warnings.push(`events after ${expected - 1} could not be read consistently; retry.`);
    return { events: out, last: out.length ? out[out.length - 1].seq : since, warnings };
  }
}

/** Follows the log from `since`, yielding each event once, until `signal` aborts. Polls every `pollMs`. */
export async function* followEvents(root: string, since = 0, options: { signal?: AbortSignal; pollMs?: number } = {}): AsyncGenerator<ProtocolEvent> {
  let last = since;
  const pollMs = options.pollMs ?? 100;
  // One abort listener for the whole follow (one per poll piled up: MaxListenersExceededWarning).
  let wake: (() => void) | undefined;
  const onAbort = () => wake?.();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (!options.signal?.aborted) {
      const r = readEvents(root, last, { limit: 1000 });
      for (const ev of r.events) yield ev;
      last = r.last;
      if (r.events.length < 1000 && !options.signal?.aborted) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            wake = undefined;
            resolve();
          }, pollMs);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** True when the recent log (the active file and the newest archive) has the event of history line `seq` of `file`. */
function hasWorkflowEvent(root: string, file: string, seq: number): boolean {
  const segs = listSegments(protocolPaths(root).events).slice(-2);
  for (const s of segs) {
    const text = readInternalIfExists(s.file, 'events log');
    if (!text) continue;
    for (const line of completeLines(text)) {
      const ev = parseEvent(line);
      if (ev && ev.file === file && ev.type.startsWith('workflow.') && ev.data?.historySeq === seq) return true;
    }
  }
  return false;
}

/**
 * A WriteGuard for createStateCore: refuses a write (exit 2, before the workflow file changes)
 * when its event could not be logged afterwards: the events folder leads outside the workspace,
 * or `events.jsonl` / `events.lock` is a folder, pipe or socket, or the folder is not writable.
 */
export function eventsGuard(): WriteGuard {
  return (ctx) => assertEventsLoggable(ctx.root);
}

/**
 * Throws (exit 2) when an event could not be appended to the root's log: the check a change
 * whose event follows it (a checkpoint, a mode) makes before its first byte, so a refusal never
 * leaves the change made without its event.
 */
export function assertEventsLoggable(root: string): void {
  const dir = safeWritePath(root, protocolPaths(root).events);
  const log = path.join(dir, 'events.jsonl');
  // The log's lstat (a regular file, not a link) is the stat its writability is judged by.
  const seen = assertRegularOrMissing(log, 'events log');
  assertRegularOrMissing(path.join(dir, 'events.lock'), 'events log');
  assertWritable(log, 'events log', { seen });
}

/**
 * A WriteObserver for createStateCore: every history append becomes a `workflow.<operation>`
 * event in the root's events log. `afterAnswer` (a long-lived face): appended right after the
 * write has answered, in the order of the writes (a deferred observer: the change's intent stays
 * in the journal until the line is out, so a process killed meanwhile leaves it to the next writer
 * of the file, which appends it once).
 */
export function eventsObserver(options: EventsLogOptions = {}, timing: { afterAnswer?: boolean } = {}): WriteObserver {
  const observe = eventAppender(options);
  if (!timing.afterAnswer) {
    // No state, never flushed: appended while the write's last flushes run (WriteObserver.duringFlush).
    observe.duringFlush = true;
    return observe;
  }
  // Deferred observers start in the write's own turn, before the answer is sent: the line waits
  // for the next turn (setImmediate keeps the writes' order).
  const later: WriteObserver = (entry, ctx) =>
    new Promise<void>((resolve, reject) =>
      setImmediate(() => {
        // Test hook: killed once the write has answered, before its event is out.
        if (process.env.WAYMARK_EVENTS_DIE_BEFORE_APPEND === '1') process.kill(process.pid, 'SIGKILL');
        try {
          observe(entry, ctx);
          resolve();
        } catch (e) {
          reject(e);
        }
      }),
    );
  later.deferred = true;
  return later;
}

function eventAppender(options: EventsLogOptions): WriteObserver {
  return (entry, ctx) => {
    // Re-run for a change whose writer died: its event may already be out.
    if (ctx.recovered && hasWorkflowEvent(ctx.root, relPath(ctx.root, ctx.file), entry.seq)) return;
    appendEvent(
      ctx.root,
      {
        type: `workflow.${entry.operation}`,
        file: relPath(ctx.root, ctx.file),
        actor: entry.actor ?? ctx.actor,
        session: entry.session ?? ctx.session,
        data: {
          historySeq: entry.seq,
          hashBefore: entry.hashBefore,
          hashAfter: entry.hashAfter,
          ...(ctx.after ? { status: ctx.after.status, currentStep: ctx.after.currentStep, nextStep: ctx.after.nextStep } : {}),
          ...(entry.detail ? { detail: entry.detail } : {}),
        },
      },
      options,
    );
  };
}

export { sleepSync };

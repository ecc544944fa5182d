/**
 * One transaction over N files, the way every Waymark write goes: locks by real path in one
 * order → recover killed transactions → re-read → plan (the caller's planner: hash check, rules,
 * the new bytes) → guards → preflight → validate → intent journal naming every file → atomic
 * renames (compare-and-swap each) → re-read and re-validate (undone when wrong) → one history
 * line per changed file → observers. A kind of change is a small planner; this does the rest.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WriteCompanion, WriteContext, WriteGuard, WriteObserver } from '../writeHooks';
import { WaymarkError, errorMessage } from '../errors';
import type { Logger } from '../ports';
import type { HistoryEntry, WorkflowState } from '../types';
import { abortAtomicWrite, appendInPlace, commitAtomicWrite, fdFlush, flushRound, pathFlush, preparedFlush, prepareAtomicWrite, removeStaleTemps, writeFileAtomic, type Flush, type PreparedWrite } from '../store/atomicWrite';
import { acquireFileLock, type HeldLock } from '../store/fileLock';
import { appendHistory, assertHistoryAppendable, readHistory } from '../store/history';
import { assertJournalWritable, currentSha256, listJournal, setAsideJournalFile } from '../store/intentJournal';
import { sha256 } from '../model/hash';
import type { FileKey } from '../store/fileKey';
import { readRegularFileSync } from '../store/safeRead';
import { assertNotReadOnly, assertWritable, safeWritePath, withRealPathScope } from '../store/safePath';
import { completeTxIntent, completeTxIntentAsync, orphanedTxIntents, writeTxIntentOpen, type TxIntent } from '../store/txJournal';
import { assertWritableInside } from './roots';

/** One file a planned change writes. */
export interface TxWrite {
  /** Absolute path as the change names it (one of the planner's `files`). */
  file: string;
  /** The new bytes ('' with `remove`). */
  text: string;
  /** The file is removed (a gate file moving away from its old location); its `entry` must be null. */
  remove?: boolean;
  /**
   * Its history line (time, actor, session and, unless given, the change's operation are filled in); null: none (a write outside the
   * state, such as a ticket mirror, is journaled and renamed like the others but not recorded).
   */
  entry: (Omit<HistoryEntry, 'seq' | 'file' | 'time' | 'actor' | 'session' | 'operation'> & { operation?: string }) | null;
  /**
   * The file whose history gets the line, when not `file` itself (a gate file's verdict is
   * recorded in its workflow's history); one of the planner's `files`. Guards judge this file.
   */
  historyFile?: string;
  /** Why these bytes would be invalid (they are refused, or undone once on disk), else undefined. */
  check?: (text: string) => string | undefined;
  /** The workflow state these bytes hold, handed to the observers as `after`. */
  state?: WorkflowState;
  /**
   * The file keeps its bytes (`text` is its text as read) but the change records its line: a
   * delegation's parent already in a chain. Locked, compared before the renames, not renamed.
   */
  unchanged?: boolean;
  /**
   * The file is only ever added to (memory's cold file): when `text` is its old bytes and more,
   * the more is written at its end in place (store/atomicWrite.ts `appendInPlace`: no temp file,
   * no rename, only the added bytes in the intent), else the file is replaced as any other.
   */
  append?: boolean;
  /**
   * With `append`: the bytes `text` adds at the end of the text the planner was handed for this
   * file (`text` is that text and these, by construction: memory's insertLines), so the change
   * takes them as the bytes to add instead of comparing `text`'s head with the text read (a cold
   * file of 100 KB and more). Checked by length only (see suffixOf); a planner handing bytes of
   * another length is a bug, thrown before anything is written.
   */
  added?: string;
  /**
   * The SHA-256 (hex) of the bytes the planner was handed for this file and of `text`, when it has
   * them already (a workflow write's parses: `WorkflowState.contentHash` of each text): the intent
   * takes them instead of hashing both texts again. Ignored for `remove` and appends in place.
   */
  hashes?: { before: string | undefined; after: string };
}

/**
 * By file (as the planner named it), the stat key each file renamed or added to showed right after
 * the renames, under the locks, when that stat proved the file holds the bytes written: the inode
 * this process renamed there (or appended on), at the size and mtime it left. A face holding it
 * knows, while a stat still shows it, that the file is the one written, without reading it.
 */
export type LandedKeys = ReadonlyMap<string, FileKey & { dev: number }>;

/** A history line recording what the change found (not a change it makes): see TxPlan.found. */
export interface TxFound {
  /** One of the planner's `files`. */
  file: string;
  entry: Omit<HistoryEntry, 'seq' | 'file'>;
}

export interface TxPlan<R> {
  /** Files whose bytes change; empty: nothing is written, nothing recorded. */
  writes: TxWrite[];
  /**
   * The answer, given the history lines appended (same order as `writes`) and, by file, the stat
   * key of each file proved to hold its new bytes by a stat right after the renames (see `LandedKeys`).
   */
  result: (entries: HistoryEntry[], landed: LandedKeys) => R;
  /**
   * Lines appended once the change is judged writable, before its journal: what was found on
   * disk that history had not recorded (a hand edit since the last line: `external-edit`).
   */
  found?: TxFound[];
  /** Runs holding the locks once every file landed and its history line is out (a model update). */
  landed?: (entries: HistoryEntry[]) => void;
}

/**
 * A kind of change: which files it reads (all are locked) and, from their bytes as they are
 * now under the locks, what it writes. `plan` throws to refuse (conflict, rules).
 */
export interface TxPlanner<R> {
  operation: string;
  files: string[];
  /** Texts by `files` entry; undefined for a file that does not exist. May await (a guard run by the planner). */
  plan(texts: ReadonlyMap<string, string | undefined>): TxPlan<R> | Promise<TxPlan<R>>;
  /** Run holding every lock, before the files are read (a caller's own recovery; `journal`: the journal folder's names). */
  underLocks?: (journal: readonly string[]) => Promise<void>;
  /**
   * How a file is read (its real path): by default its bytes, undefined when missing. A workflow
   * write passes the workflow reader (size limit, encoding), which refuses a missing file.
   */
  read?: (file: string, target: string) => string | undefined;
}

export interface TxContext {
  root: string;
  historyDir?: string;
  actor?: string;
  session?: string;
  now: () => Date;
  guards?: WriteGuard[];
  observers?: WriteObserver[];
  /** Files written in the same change as the planner's, from its history lines (memory's cold-file line). */
  companions?: WriteCompanion[];
  logger?: Logger;
  /**
   * A change made after a long-lived face's answer (memory's batch in the MCP server): its intent,
   * once every file of it is durable, is completed on the thread pool (an intent file of its own
   * removed by `fs.unlink` there), the change not waiting for the removal; `observersSettled`
   * waits for it. Nothing is less durable: the removal is not flushed either way, and a process
   * killed before it leaves an intent every file of which is already at its new bytes (the next
   * writer removes it, redoing nothing).
   */
  completeLater?: boolean;
}

/** The `after` of a removed file in the intent journal. */
const REMOVED = 'removed';

/**
 * Test hook: SIGKILL this process after the Nth rename / history line of a transaction, or once
 * its temp files are fsynced and its intent is not yet in place (PREPARE=1), or once it answered
 * and before its deferred observers ran (DEFERRED=1).
 */
function dieAt(point: 'PREPARE' | 'RENAME' | 'HISTORY' | 'FLUSHING' | 'DEFERRED', n: number): void {
  // The environment is read once (a process is started with its kill point): each read of
  // process.env is a call into the C++ environment, several per write otherwise.
  killPoints ??= new Map(['PREPARE', 'RENAME', 'HISTORY', 'FLUSHING', 'DEFERRED'].map((p) => [p, process.env[`WAYMARK_TX_DIE_AFTER_${p}`]]));
  const v = killPoints.get(point);
  if (v !== undefined && Number(v) === n) process.kill(process.pid, 'SIGKILL');
}

let killPoints: Map<string, string | undefined> | undefined;

function readTarget(target: string): string | undefined {
  try {
    return readRegularFileSync(target).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (WaymarkError.is(e)) throw e;
    throw new WaymarkError('unreadable', `Cannot read ${target}: ${errorMessage(e)}.`, target);
  }
}

/**
 * What this process's last append in place to a file left there: its whole bytes, their text
 * (the text it was handed to write) and the SHA-256 state of those bytes. A memo of the bytes, not
 * a belief about the disk: a change still reads the file whole under its locks, and only when the
 * bytes read are these, byte for byte, does it take their text (no decoding), their encoding (the
 * append's compare-and-swap has no string to encode) and their hash (the intent's `before`) from
 * here. Memory's cold file grows by a line each completed step, to 100 KB and more: decoding,
 * encoding and hashing it whole was most of what an advance cost beyond a scope write.
 */
interface AppendedBytes {
  text: string;
  /** The whole bytes, as the bytes before the append (as read) and the bytes it added: not copied into one buffer. */
  head: Buffer;
  tail: Buffer;
  hash: crypto.Hash;
}
const appendedBytes = new Map<string, AppendedBytes>();
const APPENDED_FILES = 16;

/** readTarget, taking the text of bytes this process appended last from the memo (`known` gets those bytes, read now). */
function readKnown(target: string, known: Map<string, Buffer>): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (WaymarkError.is(e)) throw e;
    throw new WaymarkError('unreadable', `Cannot read ${target}: ${errorMessage(e)}.`, target);
  }
  const memo = appendedBytes.get(target);
  if (memo !== undefined && bytes.length === memo.head.length + memo.tail.length && bytes.subarray(0, memo.head.length).equals(memo.head) && bytes.subarray(memo.head.length).equals(memo.tail)) {
    known.set(target, bytes);
    return memo.text;
  }
  return bytes.toString('utf8');
}

/** Keeps what an append left at `target` (see AppendedBytes): only when its text is exactly what its bytes decode to. */
function rememberAppend(target: string, text: string, before: Buffer, suffix: string, hash: crypto.Hash): void {
  // A lone surrogate is written as U+FFFD's bytes, so the text would not be what they decode to:
  // bytes added with any surrogate are not kept (rare: a line with characters beyond U+FFFF).
  if (/[\uD800-\uDFFF]/.test(suffix)) {
    appendedBytes.delete(target);
    return;
  }
  if (appendedBytes.size >= APPENDED_FILES && !appendedBytes.has(target)) appendedBytes.clear();
  appendedBytes.set(target, { text, head: before, tail: Buffer.from(suffix, 'utf8'), hash });
}

/** The real path every file of the change is locked, read and renamed by. */
function targetOf(root: string, file: string): string {
  // The link check's realpath, asked afresh, serves the containment check right after it.
  return safeWritePath(root, file, undefined, { resolved: assertWritableInside(file, root, true) });
}

/** Locks `targets` in one order; `real`: they are the real paths resolved (targetOf) right before, not resolved again. */
async function lockAll(root: string, targets: string[], operation: string, real = false): Promise<HeldLock[]> {
  const held: HeldLock[] = [];
  try {
    for (const t of [...new Set(targets)].sort()) held.push(await acquireFileLock(t, { root, purpose: `waymark ${operation}`, real }));
  } catch (e) {
    for (const l of held.reverse()) l.release();
    throw e;
  }
  return held;
}

/** The orphaned transactions touching `targets`, and every file they touch (to lock them too). */
function orphansTouching(root: string, targets: Set<string>, names?: readonly string[]): { files: Set<string>; intents: { path: string; intent?: TxIntent; torn?: boolean }[] } {
  const files = new Set(targets);
  const intents: { path: string; intent?: TxIntent; torn?: boolean }[] = [];
  const all = orphanedTxIntents(root, names);
  let grew = true;
  while (grew) {
    grew = false;
    for (const o of all) {
      if (intents.includes(o)) continue;
      if (!o.intent) {
        intents.push(o);
        continue;
      }
      const touched = touchedBy(root, o.intent);
      if (touched.some((t) => files.has(t))) {
        intents.push(o);
        for (const t of touched) if (!files.has(t)) {
          files.add(t);
          grew = true;
        }
      }
    }
  }
  return { files, intents };
}

/** Real paths of the files whose history an intent appends to (other than the files it writes). */
function historyTargets(root: string, intent: TxIntent): string[] {
  const out: string[] = [];
  for (const [i, e] of intent.entries.entries()) {
    if (!e || typeof e.file !== 'string' || path.resolve(e.file) === path.resolve(intent.writes[i]?.file ?? '')) continue;
    try {
      out.push(targetOf(root, e.file));
    } catch {
      // outside the workspace: foreignIntent moves the intent aside
    }
  }
  return out;
}

function touchedBy(root: string, intent: TxIntent): string[] {
  return [...intent.writes.map((w) => w.target), ...historyTargets(root, intent)];
}

/**
 * For a writer already holding the lock of `file` (a workflow write): completes or drops the
 * killed transactions touching it, taking the locks of their other files first (bounded wait).
 */
export async function recoverTxTouching(tx: TxContext, file: string): Promise<void> {
  let target: string;
  try {
    target = targetOf(tx.root, path.resolve(file));
  } catch {
    return;
  }
  const found = orphansTouching(tx.root, new Set([target]));
  if (!found.intents.length) return;
  const locks = await lockAll(tx.root, [...found.files].filter((f) => f !== target), 'recover');
  try {
    for (const l of locks) for (const b of l.broken) tx.logger?.warn(`[lock] ${b}`);
    for (const o of orphansTouching(tx.root, new Set([target])).intents) {
      if (!o.intent) {
        setAsideJournalFile(o, tx.logger);
      } else if (touchedBy(tx.root, o.intent).every((t) => found.files.has(t))) {
        await recoverTx(tx, { path: o.path, intent: o.intent });
      }
    }
  } finally {
    for (const l of locks.reverse()) l.release();
  }
}

/** The orphaned transactions that touch `files` (written or recorded), for a writer to settle first. */
export function orphanedTxTouching(root: string, files: string[]): number {
  const targets = new Set<string>();
  for (const f of files) {
    try {
      targets.add(targetOf(root, path.resolve(f)));
    } catch {
      // refused later by the write itself
    }
  }
  if (!targets.size) return 0;
  return orphansTouching(root, targets).intents.length;
}

/**
 * Completes (or drops) the killed transactions touching `files`, holding the locks of every file
 * they touch (taken in one order). A single-file writer calls it before taking its own lock,
 * so its write never interleaves with a multi-file change left half done.
 */
export async function settleTransactions(tx: TxContext, files: string[]): Promise<void> {
  if (!orphanedTxTouching(tx.root, files)) return;
  await runTransaction(tx, { operation: 'recover', files, plan: () => ({ writes: [], result: () => undefined }) });
}

/**
 * Completes a transaction whose writer died (call holding the locks of all its files): files
 * still at their old bytes get the new ones, unless no rename happened at all (then nothing
 * happened: dropped); missing history lines are appended, marked recovered; observers run.
 */
async function recoverTx(tx: TxContext, o: { path: string; intent: TxIntent }): Promise<void> {
  const { intent } = o;
  const log = tx.logger;
  const why = foreignIntent(tx.root, intent);
  if (why) {
    // Never replayed: a journal file is data found on disk, not an instruction (a planted or copied one).
    setAsideJournalFile(o, log, `was not written for this workspace (${why})`);
    return;
  }
  const states = intent.writes.map((w) => {
    if (w.append !== undefined) return appendState(w);
    const cur = currentSha256(w.target);
    if (w.remove) return cur === undefined ? 'after' : cur === w.before ? 'before' : 'other';
    return cur === w.after ? 'after' : (cur ?? null) === w.before ? 'before' : 'other';
  });
  for (const w of intent.writes) for (const t of removeStaleTemps(w.target)) log?.warn(`[write] removed ${t} left by a writer that died`);
  const lineOf = (i: number) => readHistory(tx.root, intent.entries[i]!.file, tx.historyDir).find((h) => h.intent === `${intent.id}:${i}`);
  // A history line of the change proves it landed (its lines follow its last rename), even when
  // its files have changed again since (the writer's next write of one, say): its observers still
  // run, and a file found at its old bytes was changed back since, never redone. (A slot's done
  // mark is not flushed: after a power loss a completed change may be found live.)
  const lines = intent.entries.map((e, i) => (e ? lineOf(i) : undefined));
  const landed = lines.some((l) => l);
  // A file the change records without changing it (before = after) proves nothing.
  if (!landed && states.every((s, i) => (s !== 'after' && s !== 'partial') || intent.writes[i].before === intent.writes[i].after)) {
    // Killed before its first rename: the files are as they were.
    completeTxIntent(o.path);
    return;
  }
  for (const [i, w] of intent.writes.entries()) {
    // An append cut short (a power loss mid-write) happened after the intent was durable: completed.
    if ((states[i] === 'before' && !landed) || states[i] === 'partial') {
      if (w.remove) fs.rmSync(w.target, { force: true });
      else if (w.append !== undefined) writeFileAtomic(w.target, Buffer.concat([readRegularFileSync(w.target).subarray(0, w.append), Buffer.from(w.text, 'utf8')]), { root: tx.root });
      else writeFileAtomic(w.target, w.text, { root: tx.root });
      log?.warn(`[journal] completed ${intent.operation} on ${w.file}: its writer (pid ${intent.pid}) died between its renames`);
    } else if (states[i] !== 'after') {
      log?.warn(`[journal] ${w.file} changed after ${intent.operation} by pid ${intent.pid} died; left as it is`);
    }
  }
  const recovered: HistoryEntry[] = [];
  for (const [i, e] of intent.entries.entries()) {
    if (!e || (!lines[i] && (states[i] === 'other' || (landed && states[i] === 'before')))) continue;
    const id = `${intent.id}:${i}`;
    let entry = lines[i];
    if (!entry) entry = appendHistory(tx.root, { ...e, intent: id, detail: { ...(e.detail ?? {}), recovered: true } }, tx.historyDir).entry;
    recovered.push(entry);
  }
  for (const entry of recovered) {
    for (const ob of tx.observers ?? []) {
      try {
        await ob(entry, { file: entry.file, root: tx.root, operation: entry.operation, actor: entry.actor, session: entry.session, recovered: true });
      } catch (e) {
        log?.error(`[journal] observer failed re-running ${entry.operation} on ${entry.file}: ${errorMessage(e)}`);
      }
    }
  }
  completeTxIntent(o.path);
}

/**
 * Why an intent cannot be this workspace's own: another root or history folder, a file whose
 * real path is not its target inside the workspace, history lines about other files.
 */
function foreignIntent(root: string, intent: TxIntent): string | undefined {
  if (path.resolve(intent.root) !== path.resolve(root)) return `its root is ${intent.root}`;
  if (intent.entries.length !== intent.writes.length) return 'its history lines do not match its files';
  for (const [i, w] of intent.writes.entries()) {
    if (typeof w.file !== 'string' || typeof w.after !== 'string' || (w.before !== null && typeof w.before !== 'string')) return 'a malformed write';
    let real: string;
    try {
      real = targetOf(root, w.file);
    } catch (e) {
      return errorMessage(e);
    }
    if (real !== w.target) return `${w.file} is not ${w.target}`;
    if (w.append !== undefined) {
      // Only the bytes added are in the intent: the whole is proved against `after` when redone (appendState).
      if (!Number.isSafeInteger(w.append) || w.append < 0 || w.before === null || w.remove) return `a malformed append to ${w.file}`;
    } else if (w.remove ? w.after !== REMOVED || w.text !== '' || intent.entries[i] !== null : sha256(w.text) !== w.after) return `the bytes for ${w.file} do not match their hash`;
    const e = intent.entries[i];
    if (e === null) continue;
    if (!e || typeof e.file !== 'string') return 'its history lines do not match its files';
    if (path.resolve(e.file) !== path.resolve(w.file)) {
      try {
        targetOf(root, e.file);
      } catch (err) {
        return errorMessage(err);
      }
    }
  }
  return undefined;
}

/**
 * Where a killed change's append to a file stands: 'after' (all of it there), 'before' (its old
 * bytes), 'partial' (its old bytes and the first part of the addition: a write cut short, redone
 * whole from the old bytes), else 'other' (changed since; left as it is). The old bytes are proved
 * by their hash, and so is the whole that a redo would make.
 */
function appendState(w: TxIntent['writes'][number]): 'before' | 'partial' | 'after' | 'other' {
  let cur: Buffer;
  try {
    cur = readRegularFileSync(w.target);
  } catch {
    return 'other';
  }
  const at = w.append!;
  if (cur.length < at) return 'other';
  const add = Buffer.from(w.text, 'utf8');
  const h = crypto.createHash('sha256').update(cur.subarray(0, at));
  if (h.copy().digest('hex') !== w.before) return 'other';
  const tail = cur.subarray(at);
  if (tail.length > add.length || !add.subarray(0, tail.length).equals(tail)) return 'other';
  if (h.update(add).digest('hex') !== w.after) return 'other';
  return tail.length === add.length ? 'after' : tail.length ? 'partial' : 'before';
}

function writable(target: string, file: string): void {
  assertNotReadOnly(file, target);
  assertWritable(path.join(path.dirname(target), '.waymark-probe'), 'file', { display: file, newName: true });
}

/** Puts the old bytes back (a file that did not exist is removed); false when one could not be. */
function rollBack(root: string, done: { target: string; before: string | undefined }[]): boolean {
  let ok = true;
  for (const d of [...done].reverse()) {
    try {
      if (d.before === undefined) fs.unlinkSync(d.target);
      else writeFileAtomic(d.target, d.before, { root });
    } catch {
      ok = false;
    }
  }
  return ok;
}

/** The files a companion writes in this change; none when it cannot say (logged: its observer does its part after). */
function companionFiles(tx: TxContext, c: WriteCompanion, operation: string, own: string[]): string[] {
  try {
    // Real paths judged by the companion; the change resolves them again, as every file it locks.
    return [...new Set(c.files(tx.root, operation, own).map((f) => path.resolve(f)))];
  } catch (e) {
    tx.logger?.warn(`[core] a write companion of ${operation} on ${own.join(', ')} is left out; its observer does it after: ${errorMessage(e)}`);
    return [];
  }
}

/**
 * The companions' writes for the planned history lines, added to `writes` (entry: null) after the
 * planner's own; returns, per planned line, whether its companions covered it. A companion that
 * fails is left out (logged): its observer does its part after the change, as before.
 */
async function planCompanions(
  tx: TxContext,
  companions: { c: WriteCompanion; files: string[] }[],
  planned: readonly (Omit<HistoryEntry, 'seq'> | null)[],
  writes: TxWrite[],
  texts: ReadonlyMap<string, string | undefined>,
): Promise<boolean[]> {
  const covered = planned.map(() => false);
  if (!companions.length) return covered;
  const lines = planned.flatMap((p, i) => (p ? [{ i, entry: p, ctx: { file: p.file, root: tx.root, operation: p.operation, actor: p.actor, session: p.session, after: writes[i].state } as WriteContext & { after?: WorkflowState } }] : []));
  if (!lines.length) return covered;
  const own = writes.length;
  for (const { c, files } of companions) {
    let res: Awaited<ReturnType<WriteCompanion['plan']>>;
    try {
      res = await c.plan(lines.map(({ entry, ctx }) => ({ entry, ctx })), new Map(files.map((f) => [f, texts.get(f)])));
    } catch (e) {
      tx.logger?.warn(`[core] a write companion failed planning ${lines[0].entry.operation} on ${lines[0].entry.file}; its observer does it after: ${errorMessage(e)}`);
      continue;
    }
    for (const [file, text] of res.texts) {
      const abs = path.resolve(file);
      if (!files.includes(abs)) throw new Error(`a write companion plans a write to ${file}, which it did not name`);
      // A companion's files (memory's) are added to: a cold line is written at the file's end in place.
      if (text !== texts.get(abs)) {
        const added = res.added?.get(file);
        writes.push({ file: abs, text, entry: null, append: true, ...(added !== undefined ? { added } : {}) });
      }
    }
    res.covered.forEach((v, k) => {
      if (v && k < lines.length) covered[lines[k].i] = true;
    });
  }
  return covered.slice(0, own);
}

/** One file of a planned change as it is written: its real path, its bytes as read, and what an append adds. */
interface TxItem {
  w: TxWrite;
  target: string;
  before: string | undefined;
  /** The bytes added at the end of `before` in place (TxWrite.append), else undefined. */
  suffix: string | undefined;
  /** `before`'s bytes as read under the locks, when they are known to be its exact encoding (readKnown). */
  bytes?: Buffer;
  /** For an append: the SHA-256 state of the file's bytes after it. */
  hashAfter?: crypto.Hash;
}

/** What an `append` write adds to `before`, when its new bytes are `before` and more; else undefined (it is replaced). */
function suffixOf(w: TxWrite, before: string | undefined): string | undefined {
  if (!w.append || w.remove || w.unchanged || before === undefined || w.text.length <= before.length) return undefined;
  if (w.added !== undefined) {
    // The planner's word that `text` is `before` and these bytes, checked by length only: `text` is
    // a string built by concatenation (a rope over the text read), and reading any character of it
    // (a compare of its head or its end) first copies all of it into one flat string, the pass
    // over 100 KB and more that this field is there to save.
    if (w.added.length === 0 || w.text.length !== before.length + w.added.length) throw new Error(`the bytes said to be added to ${w.file} are not the end of its new text`);
    return w.added;
  }
  // The head compared as a string (one memory compare), not by startsWith (a character at a time).
  if (w.text.slice(0, before.length) !== before) return undefined;
  return w.text.slice(before.length);
}

/**
 * The intent's record of each file of the change: its new bytes and the hashes before and after;
 * for an append, only the bytes added and where they start (the hashes are of the whole file).
 */
function intentWrites(items: readonly TxItem[]): TxIntent['writes'] {
  const out: TxIntent['writes'] = [];
  for (const x of items) {
    let before: string | null = null;
    let after: string;
    if (x.suffix !== undefined) {
      // The whole file's hash after, from the hash of its bytes before and the bytes added; the
      // bytes before are hashed only when they are not the ones this process appended last.
      const memo = x.bytes !== undefined ? appendedBytes.get(x.target) : undefined;
      const h = memo !== undefined && memo.text === x.before ? memo.hash.copy() : crypto.createHash('sha256').update(x.before!);
      before = h.copy().digest('hex');
      h.update(x.suffix);
      x.hashAfter = h.copy();
      after = h.digest('hex');
    } else {
      // The planner's hashes serve only for the very bytes read (a planner hashing another text is caught by the test of the intent).
      const known = x.w.remove ? undefined : x.w.hashes;
      before = x.before === undefined ? null : known?.before ?? sha256(x.before);
      after = x.w.remove ? REMOVED : known?.after ?? sha256(x.w.text);
    }
    const rec: TxIntent['writes'][number] = { file: path.resolve(x.w.file), target: x.target, before, after, text: x.w.remove ? '' : x.suffix ?? x.w.text };
    if (x.w.remove) rec.remove = true;
    if (x.suffix !== undefined) rec.append = x.bytes !== undefined ? x.bytes.length : Buffer.byteLength(x.before!, 'utf8');
    out.push(rec);
  }
  return out;
}

/** Runs `planner` as one transaction (see the file header), resolving each naming real path once (store/safePath.ts). */
export function runTransaction<R>(tx: TxContext, planner: TxPlanner<R>): Promise<R> {
  // No change starts while an intent of this process completed on the thread pool is still there (laterRemovals).
  if (laterRemovals !== undefined) return laterRemovals.then(() => runTransaction(tx, planner));
  return withRealPathScope(() => runTransactionScoped(tx, planner));
}

async function runTransactionScoped<R>(tx: TxContext, planner: TxPlanner<R>): Promise<R> {
  const root = tx.root;
  const own = [...new Set(planner.files.map((f) => path.resolve(f)))];
  // The companions' files are locked and read with the change's own; a companion naming one of
  // the change's own files is left out (its observer does its part after, as its own change).
  // Arrays here are built by loops into arrays of one kind: a `map` or a spread over an array
  // that is empty in one write and not in the next changes its elements kind, and each such site
  // threw this function's optimized code away (a "wrong map" deopt) and made V8 compile it again,
  // a third of a second of a compiler thread each time (docs/measurements.md, session 19).
  const companions: { c: WriteCompanion; files: string[] }[] = [];
  const declared = tx.companions;
  if (declared) {
    for (let i = 0; i < declared.length; i++) {
      const files = companionFiles(tx, declared[i], planner.operation, own);
      if (files.length && !files.some((f) => own.includes(f))) companions.push({ c: declared[i], files });
    }
  }
  const extra = new Set(companions.flatMap((x) => x.files));
  const files = [...own, ...extra];
  const targets = new Map(files.map((f) => [f, targetOf(root, f)]));
  let locks: HeldLock[] = [];
  let journal: string[] = [];
  for (let attempt = 0; ; attempt++) {
    // The first attempt locks the change's own files and lists the journal once, under the locks
    // (the common case: no intent, one listing). When that listing names a killed change touching
    // other files too, the locks are let go and every file is locked in one order, from a listing
    // made before the locks and checked again under them.
    const locked = attempt === 0 ? new Set(targets.values()) : orphansTouching(root, new Set(targets.values()), listJournal(root)).files;
    // The first attempt's are the real paths targetOf resolved just above; a later one resolves afresh.
    locks = await lockAll(root, [...locked], planner.operation, attempt === 0);
    journal = listJournal(root);
    const now = orphansTouching(root, new Set(targets.values()), journal);
    if ([...now.files].every((f) => locked.has(f)) || attempt >= 4) {
      try {
        for (const o of now.intents) {
          if (!o.intent) {
            setAsideJournalFile(o, tx.logger);
          } else if (touchedBy(root, o.intent).every((t) => locked.has(t))) {
            await recoverTx(tx, { path: o.path, intent: o.intent });
          }
        }
      } catch (e) {
        for (const l of locks.reverse()) l.release();
        throw e;
      }
      break;
    }
    for (const l of locks.reverse()) l.release();
  }
  const entries: HistoryEntry[] = [];
  // The stat keys of the files proved by a stat after the renames (the answer's `LandedKeys`).
  const proved = new Map<string, FileKey & { dev: number }>();
  const states: (WorkflowState | undefined)[] = [];
  /** Per entry: its companions' writes were part of the change. */
  const joined: boolean[] = [];
  const call = async (ob: WriteObserver, i: number): Promise<boolean> => {
    const entry = entries[i];
    try {
      await ob(entry, { file: entry.file, root, operation: entry.operation, actor: tx.actor, session: tx.session, after: states[i], ...(joined[i] ? { companions: true } : {}) });
      return true;
    } catch (e) {
      tx.logger?.error(`[core] write observer failed after ${entry.operation} on ${entry.file}: ${errorMessage(e)}`);
      return false;
    }
  };
  const run = async (observers: WriteObserver[]): Promise<boolean> => {
    let ok = true;
    for (const i of entries.keys()) for (const ob of observers) ok = (await call(ob, i)) && ok;
    return ok;
  };
  const all = tx.observers ?? [];
  // The observers whose work is no state (the events line): run while round 2's flushes are in flight.
  const early = all.filter((o) => o.duringFlush && !o.deferred);
  let earlyOk = true;
  let intentPath: string | undefined;
  let coveredFlush: CoveredFlushes | undefined;
  let plan: TxPlan<R>;
  try {
    for (const l of locks) {
      for (const b of l.broken) tx.logger?.warn(`[lock] ${b}`);
      // A writer that died holding the lock may have left its temp file behind.
      if (l.broken.length) for (const t of removeStaleTemps(l.info.file)) tx.logger?.warn(`[write] removed ${t} left by a writer that died`);
    }
    await planner.underLocks?.(journal);
    // Bytes read whose text came from the memo of this process's last append to them (readKnown).
    const known = new Map<string, Buffer>();
    const read = planner.read ?? ((_f: string, t: string) => readKnown(t, known));
    const texts = new Map(files.map((f) => [f, extra.has(f) ? readKnown(targets.get(f)!, known) : read(f, targets.get(f)!)]));
    plan = await planner.plan(texts);
    const writes: TxWrite[] = [];
    for (const w of plan.writes) if (w.remove ? texts.get(path.resolve(w.file)) !== undefined : w.unchanged ? w.entry !== null : w.text !== texts.get(path.resolve(w.file))) writes.push(w);
    if (writes.every((w) => w.unchanged)) return plan.result([], proved);
    if (!writes.length) return plan.result([], proved);
    for (const w of writes) {
      if (!targets.has(path.resolve(w.file))) throw new Error(`${planner.operation} plans a write to ${w.file}, which it did not read`);
      if (w.remove && (w.entry !== null || w.text !== '')) throw new Error(`${planner.operation} removes ${w.file} with bytes or a history line`);
      if (w.unchanged && w.text !== texts.get(path.resolve(w.file))) throw new Error(`${planner.operation} keeps ${w.file} unchanged with other bytes`);
      if (w.historyFile !== undefined && !targets.has(path.resolve(w.historyFile))) throw new Error(`${planner.operation} records ${w.file} in the history of ${w.historyFile}, which it did not read`);
    }
    const judged = [...new Set(writes.filter((w) => w.entry !== null).map((w) => path.resolve(w.historyFile ?? w.file)))];
    for (const f of judged) for (const g of tx.guards ?? []) await g({ file: f, root, operation: planner.operation, actor: tx.actor, session: tx.session });
    for (const w of writes) {
      const problem = w.remove ? undefined : w.check?.(w.text);
      if (problem) throw new WaymarkError('invalid', `Refused: ${planner.operation} would leave ${w.file} invalid: ${problem} Nothing was changed.`, w.file);
    }
    for (const w of writes) {
      writable(targets.get(path.resolve(w.file))!, w.file);
      if (w.entry !== null) assertHistoryAppendable(root, w.historyFile ?? w.file, tx.historyDir);
    }
    const journalDir = assertJournalWritable(root);
    for (const f of plan.found ?? []) {
      if (!targets.has(path.resolve(f.file))) throw new Error(`${planner.operation} records a line about ${f.file}, which it did not read`);
      const res = appendHistory(root, { ...f.entry, file: path.resolve(f.file) }, tx.historyDir);
      if (res.repaired) tx.logger?.warn(`[history] ${res.repaired}`);
    }
    const time = tx.now().toISOString();
    const planned: (Omit<HistoryEntry, 'seq'> | null)[] = [];
    let lines = false;
    for (const w of writes) {
      planned.push(w.entry === null ? null : { time, actor: tx.actor, session: tx.session, operation: planner.operation, ...w.entry, file: path.resolve(w.historyFile ?? w.file) });
      if (w.entry !== null) lines = true;
    }
    const covered = await planCompanions(tx, companions, planned, writes, texts);
    for (let i = covered.length; i < writes.length; i++) {
      writable(targets.get(writes[i].file)!, writes[i].file);
      planned.push(null);
    }
    const items: TxItem[] = [];
    for (const w of writes) {
      const before = texts.get(path.resolve(w.file));
      const target = targets.get(path.resolve(w.file))!;
      const bytes = known.get(target);
      items.push({ w, target, before, suffix: suffixOf(w, before), ...(bytes !== undefined && appendedBytes.get(target)?.text === before ? { bytes } : {}) });
    }
    // The intent and every new file (as a temp file) are written first, then flushed together
    // (with the journal folder when the intent's name is new: one flush of the disk can serve them
    // all), before the first rename of a file of the change (the README's durability argument).
    // A change that records history lines writes its intent over a journal slot of this process
    // (store/txJournal.ts: no file created or removed); one without (memory, mirrors) in a file of
    // its own, removed when done: a done mark can be lost with a power loss, and only a line proves
    // that its change landed (recoverTx).
    // A change of this process whose covered flushes still run keeps its slot: waited for here (its
    // flush ran while this change locked, read and planned), so the slot is written again.
    if (lines && lastCovered !== undefined && !lastCovered.done) await lastCovered.flushed;
    const intent = writeTxIntentOpen(root, {
      operation: planner.operation,
      historyDir: tx.historyDir,
      writes: intentWrites(items),
      entries: planned,
    }, journalDir, { reuse: lines });
    const prepared = new Map<TxWrite, PreparedWrite>();
    try {
      for (const x of items) {
        if (x.w.unchanged || x.w.remove || x.suffix !== undefined) continue;
        prepared.set(x.w, prepareAtomicWrite(x.target, x.w.text, { root, mustExist: x.before !== undefined }));
      }
      // A new name is made durable by its folder's flush; a slot used again only needs its bytes.
      const fd = intent.fd;
      const sync = intent.fresh ? fs.fsyncSync : fs.fdatasyncSync;
      // Its error is the intent's own (below: the change could not write its intent journal).
      const flushes: Flush[] = [{ run: () => new Promise<void>((resolve, reject) => (intent.fresh ? fs.fsync : fs.fdatasync)(fd, (e) => (e ? reject(e) : resolve()))), runSync: () => sync(fd) }];
      if (intent.fresh) flushes.push(pathFlush(path.dirname(intent.path), 'dir'));
      for (const p of prepared.values()) {
        const f = preparedFlush(p);
        if (f) flushes.push(f);
      }
      // The last (a new file's bytes: its flush is the longest) on this thread, the others on the pool.
      await flushRound(flushes);
      dieAt('PREPARE', 1);
    } catch (e) {
      for (const p of prepared.values()) abortAtomicWrite(p);
      completeTxIntent(intent.path);
      throw WaymarkError.is(e) ? e : new WaymarkError('io', `${planner.operation} could not write its intent journal: ${errorMessage(e)}. Nothing was changed.`, intent.path);
    } finally {
      if (!intent.slot) fs.closeSync(intent.fd);
    }
    intentPath = intent.path;
    const done: { target: string; before: string | undefined }[] = [];
    // The descriptors of the files added to in place, flushed in round 2 with the history lines.
    const appended = new Map<string, number>();
    // What landed at each file renamed or added to, as this process left it (device, inode, size):
    // the re-read below needs no read of a file still showing it (a file of another inode or size
    // is read and compared as before).
    const landed = new Map<TxItem, { dev: number; ino: number; size: number; mtimeMs: number }>();
    try {
      dieAt('RENAME', 0);
      let renamed = 0;
      for (const x of items) {
        const lock = locks.find((l) => l.info.file === path.resolve(x.target));
        if (x.w.unchanged) {
          lock?.assertHeld();
          if (readTarget(x.target) !== x.before) {
            throw new WaymarkError('conflict', `${x.w.file} changed on disk while ${planner.operation} was being made (another writer or an editor); nothing was written. Re-read it and retry.`, x.w.file);
          }
          continue;
        }
        if (x.w.remove) {
          lock?.assertHeld();
          if (readTarget(x.target) !== x.before) {
            throw new WaymarkError('conflict', `${x.w.file} changed on disk while ${planner.operation} was being made (another writer or an editor); nothing was written. Re-read it and retry.`, x.w.file);
          }
          fs.rmSync(x.target);
          done.push({ target: x.target, before: x.before });
          dieAt('RENAME', ++renamed);
          continue;
        }
        if (x.suffix !== undefined) {
          // Added to in place, once its bytes are proved the ones read (through the descriptor written to).
          const old = x.bytes ?? Buffer.from(x.before!, 'utf8');
          const fd = appendInPlace(x.target, old, x.suffix, () => lock?.assertHeld());
          appended.set(x.target, fd);
          rememberAppend(x.target, x.w.text, old, x.suffix, x.hashAfter!);
          const st = fs.fstatSync(fd);
          landed.set(x, { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs });
          done.push({ target: x.target, before: x.before });
          dieAt('RENAME', ++renamed);
          continue;
        }
        const p = prepared.get(x.w)!;
        prepared.delete(x.w);
        commitAtomicWrite(p, () => {
          lock?.assertHeld();
          if (readTarget(x.target) !== x.before) {
            throw new WaymarkError('conflict', `${x.w.file} changed on disk while ${planner.operation} was being made (another writer or an editor); nothing was written. Re-read it and retry.`, x.w.file);
          }
        });
        if (p.renamed) landed.set(x, p.renamed);
        done.push({ target: x.target, before: x.before });
        dieAt('RENAME', ++renamed);
      }
      // Re-read what landed: each file must hold the new bytes and still be valid. A file whose
      // name still shows the inode this process renamed there or added to, at the size it left,
      // holds the bytes written (compared before the rename, or through the descriptor appended
      // on): it is not read back. A `check` of the bytes on disk reads them as before.
      for (const x of items) {
        const mine = x.w.check === undefined ? landed.get(x) : undefined;
        if (mine !== undefined) {
          const st = fs.lstatSync(x.target, { throwIfNoEntry: false });
          if (st !== undefined && st.ino === mine.ino && st.dev === mine.dev && st.size === mine.size) {
            // Handed out only when no write in place followed this process's either (same mtime).
            if (st.mtimeMs === mine.mtimeMs) proved.set(path.resolve(x.w.file), { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
            continue;
          }
        }
        const now = readTarget(x.target);
        if (x.w.remove) {
          if (now !== undefined) throw new WaymarkError('invalid', `${planner.operation} could not remove ${x.w.file}; the change was undone: every file has its old bytes again.`, x.w.file);
          continue;
        }
        const problem = now !== x.w.text ? 'its bytes on disk are not the ones written' : x.w.check?.(now);
        if (problem) throw new WaymarkError('invalid', `${planner.operation} left ${x.w.file} invalid (${problem}); the change was undone: every file has its old bytes again.`, x.w.file);
      }
    } catch (e) {
      for (const p of prepared.values()) abortAtomicWrite(p);
      for (const fd of appended.values()) fs.closeSync(fd);
      appended.clear();
      if (rollBack(root, done)) completeTxIntent(intent.path);
      // else: the intent stays; the next writer completes the change.
      intentPath = undefined;
      throw e;
    }
    // Each history file's descriptor its line was appended on (one per file), fsynced in round 2:
    // the file appended to is the one made durable, with no second open.
    const flush = new Map<string, number>();
    try {
      for (const [i, p] of planned.entries()) {
        if (!p) continue;
        const res = appendHistory(root, { ...p, intent: `${intent.intent.id}:${i}` }, tx.historyDir, { fsync: false, keepOpen: true });
        if (res.repaired) tx.logger?.warn(`[history] ${res.repaired}`);
        if (res.fd !== undefined) {
          if (flush.has(res.realFile)) fs.closeSync(res.fd);
          else flush.set(res.realFile, res.fd);
        }
        entries.push(res.entry);
        states.push(writes[i].state);
        joined.push(covered[i]);
        dieAt('HISTORY', i + 1);
      }
      // The renames (their folders) and the history lines made durable together; the intent,
      // durable since before the first rename, is only removed after this.
      // A file added to in place was not renamed: its own bytes are flushed, not its folder.
      const dirs = new Set<string>();
      for (const x of items) if (!x.w.unchanged && x.suffix === undefined) dirs.add(path.dirname(x.target));
      // A change whose intent is a journal slot (it records history lines) holds, durable since
      // round 1, every line it appends and every byte it adds in place: those files' flushes are
      // covered by it: started with round 2 on the pool and not waited for (coverFlushes), the slot
      // kept live and the locks held until they are done. Round 2 waits for the renames' folders alone.
      const cover = intent.slot && (flush.size > 0 || appended.size > 0);
      const flushes: Flush[] = [];
      if (!cover) {
        for (const [f, fd] of flush) flushes.push(fdFlush(fd, f));
        for (const [f, fd] of appended) flushes.push(fdFlush(fd, f));
      }
      for (const d of dirs) flushes.push(pathFlush(d, 'dir'));
      if (cover) {
        coveredFlush = coverFlushes([...flush, ...appended], tx.logger);
        lastCovered = coveredFlush;
        flush.clear();
        appended.clear();
      }
      // While the disk flushes (all but the last on the thread pool), the observers whose work is
      // no state run here (the events line: WriteObserver.duringFlush); then the last flush, on this
      // thread; the model learns what landed once it is durable.
      await flushRound(
        flushes,
        early.length
          ? async () => {
              earlyOk = await run(early);
              dieAt('FLUSHING', 1);
            }
          : undefined,
      );
      plan.landed?.(entries);
    } catch (e) {
      // The intent stays: the next writer appends the missing lines once this process is gone.
      intentPath = undefined;
      throw new WaymarkError('io', `${planner.operation} changed ${writes.map((w) => w.file).join(' and ')}, but a history line could not be appended: ${errorMessage(e).replace(/ Nothing was changed\.$/, '')}`, writes[0].file, { written: true });
    } finally {
      for (const fd of flush.values()) fs.closeSync(fd);
      for (const fd of appended.values()) fs.closeSync(fd);
    }
  } finally {
    // The answer does not wait for the lock names' removal; with covered flushes, the locks are held until those are done.
    for (const l of locks.reverse()) {
      if (coveredFlush) coveredFlush.locks.push(l.releaseAfter(coveredFlush.flushed));
      else l.releaseSoon();
    }
  }
  // Deferred observers are told of every entry at once, in order, without waiting for one to
  // finish before the next: one may gather the entries of several writes into one batch.
  const runTogether = async (observers: WriteObserver[]): Promise<boolean> => (await Promise.all([...entries.keys()].flatMap((i) => observers.map((ob) => call(ob, i))))).every(Boolean);
  const later = entries.length ? all.filter((o) => o.deferred) : [];
  const observersOk = (await run(all.filter((o) => !later.includes(o) && !early.includes(o)))) && earlyOk;
  // When an observer failed the intent stays, and the next writer runs them once more.
  const done = intentPath;
  // Covered flushes (coverFlushes): the intent is completed only once the lines they cover are durable, and
  // this process's writes are settled only once the change's locks are let go after them.
  const durable = coveredFlush?.flushed ?? Promise.resolve(true);
  const released = coveredFlush ? coveredFlush.locks.map((l) => l.released) : [];
  if (coveredFlush && !later.length) {
    // Completed as soon as its flushes are done (coverFlushes), or now when they are already.
    if (done && observersOk) {
      if (coveredFlush.done) completeTxIntent(done);
      else coveredFlush.complete = () => completeTxIntent(done);
    }
    deferredChain = Promise.all([deferredChain, durable, ...released]).then(() => undefined);
  } else if (!later.length) {
    if (done && observersOk) {
      if (tx.completeLater) {
        const removed: Promise<void> = Promise.all([laterRemovals, completeTxIntentAsync(done)]).then(() => {
          if (laterRemovals === removed) laterRemovals = undefined;
        });
        laterRemovals = removed;
        deferredChain = Promise.all([deferredChain, removed]).then(() => undefined);
      } else {
        completeTxIntent(done);
      }
    }
  } else {
    // After the answer, told in the order of the writes (not after the last write's have
    // finished: an observer may batch); the intent stays until they ran.
    const ran = Promise.resolve().then(() => {
      dieAt('DEFERRED', 1);
      return runTogether(later);
    });
    // The intent is removed on the thread pool: the next write does not wait for it.
    deferredChain = Promise.all([Promise.all([deferredChain, ...released]), ran, durable]).then(([, ok, flushed]) => (ok && flushed && done && observersOk ? completeTxIntentAsync(done) : undefined));
  }
  return plan.result(entries, proved);
}

/**
 * The flushes of a change's history files and files added to in place that its durable intent
 * covers (see the round 2 of runTransactionScoped), handed to the thread pool as round 2 starts and not waited for.
 * `flushed`: true once all are durable (their descriptors closed), false when one failed (logged;
 * the intent then stays, and the next writer after this process judges it). Until then the change's
 * locks are held (HeldLock.releaseAfter) and its slot is not written again (it is not completed):
 * no later change of those files, by this process or another, starts before its lines are
 * durable, so a power loss never finds a later change over a line of this one that was lost.
 */
interface CoveredFlushes {
  flushed: Promise<boolean>;
  fds: [string, number][];
  done: boolean;
  locks: { releaseNow: () => void; released: Promise<void> }[];
  /** The intent's completion, when nothing else waits to run before it (the process's exit does it at once). */
  complete?: () => void;
}

/** Covered flushes still running: a process exiting meanwhile makes them at once (exitCovered). */
const covering = new Set<CoveredFlushes>();

function coverFlushes(fds: [string, number][], logger: Logger | undefined): CoveredFlushes {
  const job: CoveredFlushes = { flushed: Promise.resolve(false), fds, done: false, locks: [] };
  const closeAll = (): void => {
    job.done = true;
    covering.delete(job);
    for (const [, fd] of fds) {
      try {
        fs.closeSync(fd);
      } catch {
        // closed already
      }
    }
  };
  job.flushed = Promise.all(fds.map(([f, fd]) => fdFlush(fd, f).run())).then(
    () => {
      const complete = job.complete;
      job.complete = undefined;
      closeAll();
      complete?.();
      return true;
    },
    (e) => {
      closeAll();
      logger?.error(`[history] ${errorMessage(e)}; the change's intent stays in the journal, and the next writer after this process appends any line lost`);
      return false;
    },
  );
  covering.add(job);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', exitCovered);
  }
  return job;
}

let exitHooked = false;

/** This process's last change with covered flushes (the next one waits for them before it writes its intent). */
let lastCovered: CoveredFlushes | undefined;

/** At the process's exit, the covered flushes still running are made here, at once, then their intents completed and their locks let go. */
function exitCovered(): void {
  for (const job of [...covering]) {
    if (job.done) continue;
    let ok = true;
    for (const [, fd] of job.fds) {
      try {
        fs.fsyncSync(fd);
      } catch {
        ok = false;
      }
    }
    if (ok) job.complete?.();
    job.complete = undefined;
    for (const l of job.locks) l.releaseNow();
    job.done = true;
  }
}

/**
 * The removal of an intent completed on the thread pool (TxContext.completeLater) still running:
 * the next change of this process waits for it before it starts, so no change of this process
 * follows one whose intent is still there (a kill then would leave it to be judged against the
 * later change's bytes).
 */
let laterRemovals: Promise<void> | undefined;

/** The deferred observers of this process's writes, run one after another (see WriteObserver). */
let deferredChain: Promise<void> = Promise.resolve();

/** Resolves once the deferred observers of every write made so far in this process have run. */
export async function observersSettled(): Promise<void> {
  for (let seen: Promise<void> | undefined; seen !== deferredChain; ) {
    seen = deferredChain;
    await seen;
  }
}

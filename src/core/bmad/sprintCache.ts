/**
 * The built sprint, reused across processes while its inputs are unchanged:
 * `<root>/.waymark/cache/bmad-sprint.bin`, beside the scan index (same folder, same rules), in
 * V8's serialized form with a checksum (cacheCodec.ts).
 *
 * While loadSprint builds, every file it reads, folder it lists and path it probes is recorded
 * (recordingRead, recordingList, recordingProbe). The cache holds those inputs' keys and the
 * serialized result. It is reused only when, for this process:
 * - the key matches: code build, project root, the BMAD config as loaded, the workspace's
 *   `bmad` settings, the stale-days setting;
 * - every read file and listed folder has the same stat key (size, mtime ns, ctime ns, inode) and
 *   is not racy (changed within RACY_WINDOW_MS before it was recorded: it may change again within
 *   the same timestamp tick); the SHA-256 of each listing is recorded as its identity (a folder
 *   whose key moved holds while it lists the same entries), a file's text by its length (its stat
 *   key is what is checked: hashing 400 story files cost a first build ~8 ms for nothing);
 * - every probed path is still the same kind (file, folder, missing);
 * - the clock gives the same answers the result depends on (a ledger's staleness and its day
 *   count, a waiver's expiry).
 * Anything else (missing, torn, corrupt, another format) is a miss: the sprint is built and the
 * cache written again, atomically and without fsync (it is a cache). Never throws. When only
 * story files (read through recordingParse) changed, each keeping its identity (Patcher), the
 * cached result is patched instead, and the patch is kept in `bmad-sprint-edits.bin` (the edited
 * files' keys and parses) rather than the sprint written again.
 * Recordings nest (startRecording): validate's stored answer is keyed on everything the BMAD readers
 * read, a cached sprint's inputs included. The BMAD catalog is kept the same way (cachedBmadCatalog).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { plainHead, readRegularFileSync, readToEnd } from '../store/safeRead';
import type { FileKey } from '../store/fileKey';
import { version as WAYMARK_VERSION } from '../../../package.json';
import { writeFileAtomic } from '../store/atomicWrite';
import { realOrResolved, safeMkdir } from '../store/safePath';
import { randomHex } from '../store/processes';
import { sha256 } from '../model/hash';
import { decodeValue, deserialize, digest, encodeValue, serialize, type Encoded } from './cacheCodec';
import { RACY_WINDOW_MS } from '../store/fileKey';

// The scan index's folder (store/scanIndex.ts: SCAN_INDEX_DIR), written out here: importing scanIndex
// from the BMAD config reader would make an import cycle. The racy window is fileKey.ts's (a leaf).
const CACHE_DIR = '.waymark/cache';
export const SPRINT_CACHE_FILE = `${CACHE_DIR}/bmad-sprint.bin`;
/** The BMAD catalog (artifacts.ts), kept the same way as the sprint: keyed on every file it read. */
export const CATALOG_CACHE_FILE = `${CACHE_DIR}/bmad-catalog.bin`;
const FORMAT = 3;
/** A cache larger than this is ignored. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/** [path, size, mtimeNs, ctimeNs, ino, identity]: a folder's identity is its listing's SHA-256, a file's its text's length ('-': unreadable). */
type Keyed = [string, string, string, string, string, string];
/** A clock answer the result depends on: ['stale', stampMs, staleDays] or ['gate', expiresMs]. */
export type TimeDep = ['stale', number, number] | ['gate', number];

interface Recorder {
  files: Map<string, Keyed>;
  dirs: Map<string, Keyed>;
  probes: Map<string, string>;
  times: TimeDep[];
  /** The recording this one is nested in: it gets every input recorded here too. */
  outer?: Recorder;
  /** An input seen twice with different keys (it changed while recorded): nothing recorded can be trusted. */
  torn: boolean;
}

/** The innermost recording under way, if any. */
let active: Recorder | undefined;

/** An edited file's parse kept beside the cache: its key when read, and the parse encoded. */
type KeptParse = [Keyed, Encoded];

/** The sprint being built by cachedSprint: each parsed file's identity (Patcher.identity), when it can be patched later. */
interface Build {
  idents: Map<string, string>;
  identity: (value: unknown) => string;
}

let building: Build | undefined;

/**
 * How a cached result is brought up to date when only files read through recordingParse changed
 * (a story file edited): `identity` says what of a parse decides more than its own part of the
 * result (which story a file is, what else is reported about it); when every changed file's
 * identity is the one recorded, `apply` computes the result again from the cached one and the
 * changed files' new parses, as `build` would. Anything else changed: `build` runs.
 */
export interface Patcher<T> {
  identity: (parse: unknown) => string;
  /** The changed files' parses, read again (through recordingParse, so they are recorded). */
  reparse: (file: string, recorded: string | undefined) => unknown;
  apply: (cached: T, changed: { file: string; parse: unknown }[]) => T;
}

function newRecorder(): Recorder {
  return { files: new Map(), dirs: new Map(), probes: new Map(), times: [], outer: active, torn: false };
}

/**
 * Adds inputs to a recording; the first key of each is kept, a different one later marks it torn.
 * A folder listed again with the same entries under a new key (a file made and gone, or Waymark's
 * own `.waymark/` made in the root between the two listings) is no change to what its readers
 * saw: the later key is kept (a folder is checked again by its entries once its key moves).
 */
function mergeInto(r: Recorder, files: Iterable<Keyed>, dirs: Iterable<Keyed>, probes: Iterable<[string, string]>, times: Iterable<TimeDep>): void {
  const add = (m: Map<string, Keyed>, k: Keyed) => {
    const had = m.get(k[0]);
    if (!had) m.set(k[0], k);
    else if (had.join('\0') !== k.join('\0')) r.torn = true;
  };
  for (const f of files) add(r.files, f);
  for (const d of dirs) {
    const had = r.dirs.get(d[0]);
    if (had && had[2] !== '-' && d[2] !== '-' && had[5] === d[5]) r.dirs.set(d[0], d);
    else add(r.dirs, d);
  }
  for (const [p, kind] of probes) {
    const had = r.probes.get(p);
    if (had === undefined) r.probes.set(p, kind);
    else if (had !== kind) r.torn = true;
  }
  for (const t of times) r.times.push(t);
}

/** Ends `r` (the innermost recording): its inputs go to the recording it was nested in. */
function endRecorder(r: Recorder): void {
  active = r.outer;
  if (r.outer) {
    mergeInto(r.outer, r.files.values(), r.dirs.values(), r.probes, r.times);
    if (r.torn) r.outer.torn = true;
  }
}
let racyWindowMs = RACY_WINDOW_MS;

/** Tests only: the racy window (RACY_WINDOW_MS by default). */
export function setSprintCacheRacyWindow(ms: number): void {
  racyWindowMs = ms;
}

let codeFp: string | undefined;

/**
 * Version, cache format and the build: the size and mtime of `cli.js` beside the running bundle
 * (each CLI verb runs from its own bundle, and `sprint` and `validate` share one cache; a build
 * rewrites them all), else of the running file.
 */
function codeFingerprint(): string {
  if (codeFp) return codeFp;
  let build = 'unknown';
  for (const f of [path.join(path.dirname(__filename), 'cli.js'), __filename]) {
    try {
      const st = fs.statSync(f);
      build = `${st.size}:${st.mtimeMs}`;
      break;
    } catch {
      // next
    }
  }
  // V8's serializer writes its own format (cacheCodec.ts): another V8 may read it otherwise.
  codeFp = `${FORMAT}:${WAYMARK_VERSION}:${build}:${process.versions.v8}`;
  return codeFp;
}

/** SHA-256 hex of a key's text (model/hash.ts: small keys hashed without loading node:crypto). */
function sha(text: string): string {
  return sha256(text);
}

function statKey(p: string): [string, string, string, string] | undefined {
  try {
    const st = fs.statSync(p, { bigint: true, throwIfNoEntry: false });
    if (!st) return undefined;
    return [String(st.size), String(st.mtimeNs), String(st.ctimeNs), String(st.ino)];
  } catch {
    return undefined;
  }
}

function kindOf(p: string): string {
  try {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    return !st ? '-' : st.isFile() ? 'f' : st.isDirectory() ? 'd' : 'o';
  } catch {
    return '-';
  }
}

/**
 * A folder's entries as recorded; an unreadable folder is told apart from an empty one. Waymark's
 * own `.waymark/` is left out: no BMAD reader looks inside it, and the first run's caches make it
 * in the project's root, which the ledger search lists (the next run would find the root changed).
 */
function listing(entries: fs.Dirent[] | undefined): string {
  if (!entries) return '\0unreadable';
  let out = '';
  for (const e of entries) if (e.name !== '.waymark') out += `${out ? '\n' : ''}${e.name}\0${e.isFile() ? 'f' : e.isDirectory() ? 'd' : e.isSymbolicLink() ? 'l' : 'o'}`;
  return out;
}

function listDirRaw(dir: string): fs.Dirent[] | undefined {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
}

/** Whether a recording is under way: a reader's in-process memo would hide its inputs from it. */
export function isRecording(): boolean {
  return active !== undefined;
}

// As safeRead.ts opens: a FIFO with no writer returns at once, and its fstat refuses it before a byte is read.
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * readTextIfRegular and the stat key of what was read, with one open and one fstat (the key is the
 * open file's: a stat by path before it cost a second system call and stat object for each of the
 * ~550 files a first build reads). A path that cannot be opened is stat-ed by path, as before.
 */
function readKeyed(file: string, maxBytes: number): { key?: [string, string, string, string]; text?: string } {
  let fd: number;
  try {
    fd = fs.openSync(file, READ_FLAGS);
  } catch {
    return { key: statKey(file) };
  }
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    const key: [string, string, string, string] = [String(st.size), String(st.mtimeNs), String(st.ctimeNs), String(st.ino)];
    if (!st.isFile() || st.size > BigInt(Math.min(maxBytes, Number.MAX_SAFE_INTEGER))) return { key };
    if (!heads) return { key, text: readTextOnce(fd, Number(st.size)) };
    // The scan's key is a plain stat's (number times): taken through the same descriptor, before the bytes.
    const plain = fs.fstatSync(fd);
    const kept = heads;
    const text = readTextOnce(fd, Number(st.size), (buf, length) => {
      if (length === plain.size && plainHead(buf, length)) kept.set(file, { size: plain.size, mtimeMs: plain.mtimeMs, ctimeMs: plain.ctimeMs, ino: plain.ino });
    });
    return { key, text };
  } catch {
    return { key: statKey(file) };
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      // already closed: nothing to release
    }
  }
}

/** The bytes of the reads no one keeps, one buffer for them all (readTextOnce). */
let readBuffer: Buffer | undefined;
/** Files up to this size are read into readBuffer; a larger one gets a buffer of its own, dropped after it. */
const READ_BUFFER_MAX = 1024 * 1024;

/**
 * The text (bmadText) of an open regular file of `size` bytes, as readToEnd reads it, its bytes
 * read into one buffer kept for every such read: a Buffer per file was an allocation outside
 * V8's heap and an ArrayBuffer for each scavenge to sweep, ~550 of them in a first `sprint`.
 */
function readTextOnce(fd: number, size: number, seen?: (bytes: Buffer, length: number) => void): string {
  if (size === 0 || size > READ_BUFFER_MAX) {
    const bytes = readToEnd(fd, size);
    seen?.(bytes, bytes.length);
    return bmadText(bytes);
  }
  if (!readBuffer || readBuffer.length < size) readBuffer = Buffer.allocUnsafeSlow(Math.max(size, 64 * 1024));
  const buf = readBuffer;
  let len = 0;
  while (len < size) {
    const n = fs.readSync(fd, buf, len, size - len, null);
    if (n === 0) break;
    len += n;
  }
  seen?.(buf, len);
  return bmadText(buf, len);
}

/** The heads kept while withReadHeads runs (readKeyed fills it), else undefined. */
let heads: Map<string, FileKey> | undefined;

/**
 * `fn`'s result, and the files the BMAD readers read whole meanwhile (through a recording) whose
 * bytes the scan would judge "no frontmatter" (safeRead `plainHead`), each with the plain stat
 * key (FileKey) of its open descriptor, taken before the bytes were read: what a first scan needs
 * of such a file (scan.ts), so it does not open and read it a second time. Nothing of the bytes
 * is kept. A file whose bytes are not judged so (a fence, a NUL byte, UTF-16, read short) is not
 * listed: the scan reads it itself. `fn` must not return before its reads are done (synchronous).
 */
export function withReadHeads<T>(fn: () => T): { result: T; heads: Map<string, FileKey> } {
  const kept = new Map<string, FileKey>();
  const outer = heads;
  heads = kept;
  try {
    return { result: fn(), heads: kept };
  } finally {
    heads = outer;
  }
}

/**
 * A BMAD file's text: UTF-8, or UTF-16 after its byte-order mark (a story saved by a Windows editor as
 * "Unicode", `FF FE`): read as what it says, so the story is listed with its status. Waymark writes
 * UTF-8 only: a write to such a file is refused with its reason (store/safeRead `encodingRefusal`).
 */
function bmadText(bytes: Buffer, length = bytes.length): string {
  if (length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.toString('utf16le', 2, length);
  if (length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2, length - (length % 2))).swap16().toString('utf16le');
  return bytes.toString('utf8', 0, length);
}

/** A regular file's text (bmadText) up to maxBytes, or undefined. */
function readTextIfRegular(file: string, maxBytes: number): string | undefined {
  try {
    return bmadText(readRegularFileSync(file, maxBytes));
  } catch {
    return undefined;
  }
}

/** readTextIfRegular, recorded while a sprint is built for the cache. */
export function recordingRead(file: string, maxBytes: number): string | undefined {
  if (!active) return readTextIfRegular(file, maxBytes);
  const { key, text } = readKeyed(file, maxBytes);
  mergeInto(active, [[file, ...(key ?? ['-', '-', '-', '-']), text === undefined ? '-' : String(text.length)] as Keyed], [], [], []);
  return text;
}

/**
 * `parse` of a file's text (undefined when not a readable regular file up to `maxBytes`), recorded
 * like recordingRead; while a patchable sprint is built, the parse's identity is kept with the
 * cache, so a later edit of the file that keeps it is patched in (Patcher). `parse` must depend on
 * the text alone (and the path). Parses are not kept: decoding 400 kept parses cost as much as
 * parsing the files again, and writing them cost every build ~40 ms (29 Nov, session 18).
 */
export function recordingParse<T>(file: string, maxBytes: number, parse: (text: string | undefined) => T): T {
  const v = parse(recordingRead(file, maxBytes));
  const b = building;
  if (b && active) b.idents.set(file, b.identity(v));
  return v;
}

/** A folder's entries (none when unreadable), recorded while a sprint is built for the cache. */
export function recordingList(dir: string): fs.Dirent[] {
  return recordingListOr(dir) ?? [];
}

/** A folder's entries, undefined when it cannot be listed (missing, not a folder, no access); recorded like recordingList. */
export function recordingListOr(dir: string): fs.Dirent[] | undefined {
  if (!active) return listDirRaw(dir);
  const key = statKey(dir);
  const out = listDirRaw(dir);
  mergeInto(active, [], [[dir, ...(key ?? ['-', '-', '-', '-']), sha(listing(out))] as Keyed], [], []);
  return out;
}

/** Whether `p` is a regular file ('f') or a folder ('d') through links, recorded for the cache. */
export function recordingProbe(p: string, want: 'f' | 'd'): boolean {
  const k = kindOf(p);
  if (active) mergeInto(active, [], [], [[p, k]], []);
  return k === want;
}

/** What is at `p` through links: 'f' a file, 'd' a folder, 'o' anything else (a device, pipe or socket), '-' nothing; recorded like recordingProbe. */
export function recordingKind(p: string): 'f' | 'd' | 'o' | '-' {
  const k = kindOf(p);
  if (active) mergeInto(active, [], [], [[p, k]], []);
  return k as 'f' | 'd' | 'o' | '-';
}

/** Whether anything is at `p` (fs.existsSync), recorded for the cache. */
export function recordingExists(p: string): boolean {
  const k = kindOf(p);
  if (active) mergeInto(active, [], [], [[p, k]], []);
  return k !== '-';
}

/** A probe recorded by recordingRealPath: the path it was asked of, with this suffix. */
const REAL_PROBE = '\0real';

/**
 * The real path of `p` (realOrResolved), recorded for the cache: a link's target decides what is read
 * (the walk reads a link to a file it did not find itself, and passes over one to a file it did), and
 * a link retargeted leaves its folder's entries and its kind as they were.
 */
export function recordingRealPath(p: string): string {
  const real = realOrResolved(p);
  if (active) mergeInto(active, [], [], [[p + REAL_PROBE, real]], []);
  return real;
}

/** Whether a recorded probe still reads the same: the same kind, or (recordingRealPath) the same real path. */
function probeHolds(p: string, recorded: string): boolean {
  return p.endsWith(REAL_PROBE) ? realOrResolved(p.slice(0, -REAL_PROBE.length)) === recorded : kindOf(p) === recorded;
}

/** A clock answer the sprint being built depends on. */
export function recordTime(dep: TimeDep): void {
  active?.times.push(dep);
}

/** The clock's answers for the recorded dependencies (the same expressions drift.ts and qaGates.ts evaluate). */
function timeSignature(times: TimeDep[], now: Date): string {
  return times
    .map((t) => {
      if (t[0] === 'gate') return t[1] < now.getTime() ? 1 : 0;
      const days = (now.getTime() - t[1]) / 86_400_000;
      return days > t[2] ? Math.floor(days) : -1;
    })
    .join(',');
}

// ---- the cache file

interface CacheFile extends RecordedInputs {
  waymarkSprintCache: number;
  code: string;
  key: string;
  result: Encoded;
  /** The files read through recordingParse and their parses' identities (Patcher.identity), when patchable. */
  parsed?: Record<string, string>;
  /** This write's identity: an edits file applies to the cache it names. */
  id?: string;
}

/**
 * The story files edited since the cache was written (`bmad-sprint-edits.json`): each file's key
 * and its parse, which a patch applies to the cache's result. A patch writes this small file, not
 * the whole sprint again; past maxEdits files it writes the sprint (and the edits start over).
 */
interface EditsFile {
  waymarkSprintEdits: number;
  code: string;
  /** The cache file's `id` these edits apply to. */
  base: string;
  recordedAt: number;
  entries: KeptParse[];
}

let maxEdits = 24;

/** Tests only: how many edited files the edits file keeps before the whole cache is written again (24). */
export function setSprintCacheMaxEdits(n: number): void {
  maxEdits = n;
}

function editsPath(cacheFile: string): string {
  return cacheFile.replace(/\.bin$/, '-edits.bin');
}

/** A cache file's contents (cacheCodec.ts), undefined when missing, too large or not one whole. */
function readCacheFile(file: string): unknown {
  try {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile() || st.size > MAX_CACHE_BYTES) return undefined;
    return deserialize(fs.readFileSync(file));
  } catch {
    return undefined;
  }
}

/** The edits kept for cache `c`, when they are whole and its own; else none. */
function readEdits(cacheFile: string, c: CacheFile): EditsFile | undefined {
  if (typeof c.id !== 'string') return undefined;
  const e = readCacheFile(editsPath(cacheFile)) as EditsFile | undefined;
  if (!e || typeof e !== 'object' || e.waymarkSprintEdits !== FORMAT || e.code !== codeFingerprint() || e.base !== c.id || typeof e.recordedAt !== 'number' || !Array.isArray(e.entries)) return undefined;
  if (!e.entries.every((x) => Array.isArray(x) && x.length === 2 && isKeyed(x[0]))) return undefined;
  return e;
}

export function sprintCachePath(root: string): string {
  return path.join(root, SPRINT_CACHE_FILE);
}

/** Whether the persisted caches are on: `WAYMARK_SCAN_INDEX=0` (or off, false) turns off the scan index and this one. */
export function cacheFilesEnabled(): boolean {
  const env = process.env.WAYMARK_SCAN_INDEX;
  return !(env === '0' || env === 'off' || env === 'false');
}

/**
 * Whether a folder recorded by `recordingList` lists the same entries now (its stat key moved: a
 * file came and went). With `relisted`, the folder's key now, taken before the listing as
 * recordingListOr takes it, is added there when it does.
 */
function sameListing(k: Keyed, relisted?: Keyed[]): boolean {
  const key = relisted ? statKey(k[0]) : undefined;
  if (k[5] !== sha(listing(listDirRaw(k[0])))) return false;
  if (!relisted) return true;
  if (!key) return false;
  relisted.push([k[0], ...key, k[5]]);
  return true;
}

function keyed(k: Keyed, racyBeforeNs: bigint): 'same' | 'check' {
  const now = statKey(k[0]);
  // Missing when recorded: the same while still missing.
  if (k[2] === '-') return now ? 'check' : 'same';
  if (!now || now[0] !== k[1] || now[1] !== k[2] || now[2] !== k[3] || now[3] !== k[4]) return 'check';
  const t = BigInt(k[2]) > BigInt(k[3]) ? BigInt(k[2]) : BigInt(k[3]);
  return t >= racyBeforeNs ? 'check' : 'same';
}

function isKeyed(x: unknown): x is Keyed {
  return Array.isArray(x) && x.length === 6 && x.every((s) => typeof s === 'string');
}

/**
 * The inputs a recording saw (files read, folders listed, paths probed, clock answers), to be
 * checked again later by `inputsHold`. Plain JSON.
 */
export interface RecordedInputs {
  recordedAt: number;
  files: Keyed[];
  dirs: Keyed[];
  probes: [string, string][];
  times: TimeDep[];
  timeSig: string;
}

function isTimeDep(t: unknown): t is TimeDep {
  return Array.isArray(t) && ((t[0] === 'gate' && t.length === 2 && typeof t[1] === 'number') || (t[0] === 'stale' && t.length === 3 && typeof t[1] === 'number' && typeof t[2] === 'number'));
}

/**
 * Whether recorded inputs still read as they did: every file and folder has the same stat key and
 * was not racy when recorded (changed within the racy window before `recordedAt`), every probed
 * path is the same kind, and the clock gives the same answers. With `relist`, a folder whose key
 * moved is listed again and holds when its entries are the same. False for anything malformed.
 */
export function inputsHold(r: unknown, now: Date, racyMs: number = racyWindowMs, opts: { relist?: boolean; relisted?: Keyed[] } = {}): r is RecordedInputs {
  const c = r as RecordedInputs;
  if (!c || typeof c !== 'object' || typeof c.recordedAt !== 'number' || !Array.isArray(c.files) || !Array.isArray(c.dirs) || !Array.isArray(c.probes) || !Array.isArray(c.times) || typeof c.timeSig !== 'string') return false;
  if (!c.files.every(isKeyed) || !c.dirs.every(isKeyed) || !c.times.every(isTimeDep)) return false;
  if (timeSignature(c.times, now) !== c.timeSig) return false;
  const racyBeforeNs = BigInt(Math.floor(c.recordedAt - racyMs)) * 1_000_000n;
  for (const p of c.probes) {
    if (!Array.isArray(p) || typeof p[0] !== 'string' || !probeHolds(p[0], p[1])) return false;
  }
  // A changed or racy input: what was built from them is built again (recording anew).
  // With `relist`, a folder whose stat key moved still holds when it lists the same entries (a
  // temp file written and renamed away, a file made and deleted in a folder only searched).
  for (const d of c.dirs) if (keyed(d, racyBeforeNs) !== 'same' && !(opts.relist && d[2] !== '-' && sameListing(d, opts.relisted))) return false;
  for (const f of c.files) if (keyed(f, racyBeforeNs) !== 'same') return false;
  return true;
}

/**
 * Whether no input of a recording was racy when recorded (its key changed within `racyMs` before
 * the recording began), from the recorded keys alone, with no stat. What is kept with them is
 * checked against them by the next run (`inputsHold`), which sees any change made since they were
 * read: stat-ing them all again when storing it would only tell sooner (430 stats after one story
 * edit of a 400-story project, ~10 % of that run).
 * With `relist` (the next run checks with `inputsHold`'s `relist`), folders are left out: a racy
 * folder's key never reads 'same' there, so it is listed again and holds only with the entries
 * recorded. The first run in a project makes `.waymark/` in the root (its caches), which moves
 * the root's key into the racy window of that very run, while its entries, as recorded, stay.
 */
export function settledWhenRecorded(r: RecordedInputs, racyMs: number = racyWindowMs, opts: { relist?: boolean } = {}): boolean {
  const racyBeforeNs = BigInt(Math.floor(r.recordedAt - racyMs)) * 1_000_000n;
  for (const k of opts.relist ? r.files : [...r.files, ...r.dirs]) {
    if (k[2] === '-') continue;
    const t = BigInt(k[2]) > BigInt(k[3]) ? BigInt(k[2]) : BigInt(k[3]);
    if (t >= racyBeforeNs) return false;
  }
  return true;
}

/** The cache file at `file` when it is one for `key` and this build; else undefined. */
function readCache(file: string, key: string): CacheFile | undefined {
  const c = readCacheFile(file) as CacheFile | undefined;
  if (!c || typeof c !== 'object' || c.waymarkSprintCache !== FORMAT || c.code !== codeFingerprint() || c.key !== key) return undefined;
  return c;
}

/**
 * What a patch of cache `c` must read again: the files read through recordingParse whose stat key
 * moved (or was racy when recorded), when every other input holds (folders by the same entries,
 * whose keys are taken anew); undefined when anything else changed or the cache is malformed.
 */
function patchPlan(c: CacheFile, now: Date, edits: EditsFile | undefined): { changed: string[]; held: KeptParse[]; dirs: Keyed[] } | undefined {
  const parsed = c.parsed;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  if (!Array.isArray(c.files) || !Array.isArray(c.dirs) || !Array.isArray(c.probes) || !Array.isArray(c.times) || typeof c.recordedAt !== 'number' || typeof c.timeSig !== 'string') return undefined;
  if (!c.files.every(isKeyed) || !c.dirs.every(isKeyed) || !c.times.every(isTimeDep)) return undefined;
  if (timeSignature(c.times, now) !== c.timeSig) return undefined;
  for (const p of c.probes) if (!Array.isArray(p) || typeof p[0] !== 'string' || !probeHolds(p[0], p[1])) return undefined;
  const racyBeforeNs = BigInt(Math.floor(c.recordedAt - racyWindowMs)) * 1_000_000n;
  const dirs: Keyed[] = [];
  for (const d of c.dirs) {
    if (keyed(d, racyBeforeNs) === 'same') {
      dirs.push(d);
      continue;
    }
    // A folder whose entries are the same (an editor's save renames a temp file over the story): its key now.
    if (d[2] === '-') return undefined;
    const key = statKey(d[0]);
    const entries = listing(listDirRaw(d[0]));
    if (!key || sha(entries) !== d[5]) return undefined;
    dirs.push([d[0], ...key, d[5]]);
  }
  // A file edited since the cache was written is read as its edit recorded it, while that holds.
  const edited = new Map((edits?.entries ?? []).map((x) => [x[0][0], x]));
  const editsRacyBeforeNs = BigInt(Math.floor((edits?.recordedAt ?? 0) - racyWindowMs)) * 1_000_000n;
  const changed: string[] = [];
  const held: KeptParse[] = [];
  for (const f of c.files) {
    const isParse = Object.prototype.hasOwnProperty.call(parsed, f[0]) && typeof parsed[f[0]] === 'string';
    const e = isParse ? edited.get(f[0]) : undefined;
    if (e && keyed(e[0], editsRacyBeforeNs) === 'same') held.push(e);
    else if (!e && keyed(f, racyBeforeNs) === 'same') continue;
    else if (!isParse) return undefined;
    else changed.push(f[0]);
  }
  return { changed, held, dirs };
}

/**
 * The cached result brought up to date by `patcher` when only files read through recordingParse
 * changed since it was written and each keeps its identity: the edits kept beside it
 * (`bmad-sprint-edits.json`) and the files changed since are applied to it, and the edits file is
 * written again (the whole cache when it grows past maxEdits files). Undefined (nothing recorded,
 * nothing written) when it cannot be: the caller builds.
 */
function tryPatch<T>(cacheRoot: string, file: string, c: CacheFile, key: string, now: Date, patcher: Patcher<T>): { result: T } | undefined {
  const edits = readEdits(file, c);
  const plan = patchPlan(c, now, edits);
  if (!plan) return undefined;
  let cached: T;
  const parsed = c.parsed!;
  const apply: { file: string; parse: unknown }[] = [];
  try {
    cached = decodeValue(c.result) as T;
    for (const [k, v] of plan.held) apply.push({ file: k[0], parse: decodeValue(v) });
  } catch {
    return undefined;
  }
  const recordedAt = Date.now();
  const rec = newRecorder();
  const outerBuild = building;
  active = rec;
  building = undefined;
  let changed: { file: string; parse: unknown }[];
  try {
    changed = plan.changed.map((f) => ({ file: f, parse: patcher.reparse(f, parsed[f]) }));
  } catch {
    return undefined;
  } finally {
    // Not merged into the enclosing recording yet: a refused patch leaves it to the build.
    active = rec.outer;
    building = outerBuild;
  }
  if (rec.torn || rec.dirs.size || rec.probes.size || rec.times.length || changed.some((x) => !rec.files.has(x.file))) return undefined;
  apply.push(...changed);
  if (apply.some((x) => patcher.identity(x.parse) !== parsed[x.file])) return undefined;
  let result: T;
  try {
    result = patcher.apply(cached, apply);
  } catch {
    return undefined;
  }
  const entries: KeptParse[] = [...plan.held];
  try {
    for (const x of changed) entries.push([rec.files.get(x.file)!, encodeValue(x.parse)]);
  } catch {
    return undefined;
  }
  const keys = new Map(entries.map((x) => [x[0][0], x[0]]));
  const files = c.files.map((f) => keys.get(f[0]) ?? f);
  if (active) mergeInto(active, files, plan.dirs, c.probes, c.times);
  if (!changed.length && sameDirs(plan.dirs, c.dirs)) return { result };
  if (entries.length <= maxEdits) {
    const cacheDirs = sameDirs(plan.dirs, c.dirs) ? undefined : plan.dirs;
    // The folders' keys moved (a save by rename): the cache is written with them, the edits start over.
    if (!cacheDirs) {
      save(cacheRoot, editsPath(file), { waymarkSprintEdits: FORMAT, code: codeFingerprint(), base: c.id!, recordedAt, entries });
      return { result };
    }
  }
  try {
    save(cacheRoot, file, { waymarkSprintCache: FORMAT, code: codeFingerprint(), key, recordedAt, files, dirs: plan.dirs, probes: c.probes, times: c.times, timeSig: c.timeSig, result: encodeValue(result), parsed, id: newId() });
  } catch {
    // not encodable: built again next time
  }
  return { result };
}

function sameDirs(a: Keyed[], b: Keyed[]): boolean {
  return a.length === b.length && a.every((d, i) => d.join('\0') === b[i].join('\0'));
}

/** What versions before the binary caches kept for `file`: `bmad-sprint.json` and its parses and edits, `bmad-catalog.json`. */
function legacyFiles(file: string): string[] {
  const json = file.replace(/\.bin$/, '.json');
  return json === file ? [] : [json, json.replace(/\.json$/, '-parses.json'), json.replace(/\.json$/, '-edits.json')];
}

/**
 * Removes a file that may not be there, as `fs.rmSync(file, { force: true })` does for a file, without
 * the recursive remover Node loads for rmSync (a module compiled from source in every first run).
 */
function removeIfThere(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function newId(): string {
  return randomHex(12);
}

function save(root: string, file: string, c: CacheFile | EditsFile): void {
  try {
    const dir = path.dirname(file);
    if (!fs.existsSync(dir)) {
      if (!fs.existsSync(root)) return;
      safeMkdir(root, dir);
      writeFileAtomic(path.join(dir, '.gitignore'), '# Waymark cache: safe to delete, never commit.\n*\n', { root, durable: false, replaceLink: true });
    }
    writeFileAtomic(file, serialize(c), { root, durable: false, replaceLink: true });
    // A whole cache written: the JSON files an earlier version kept there (2.6 MB for 400 stories) go.
    if ('waymarkSprintCache' in c) for (const old of legacyFiles(file)) removeIfThere(old);
  } catch {
    // A cache that cannot be written is rebuilt next time.
  }
}

/**
 * `build()`'s result, from the cache at `cacheRoot` when its inputs are unchanged, else built
 * (with its inputs recorded) and cached. `key` names everything besides the recorded inputs and
 * the clock that the result depends on. Within a recording (`startRecording`), the result's
 * inputs are that recording's too, whether read from the cache or built. Never throws for the
 * cache's sake.
 */
export function cachedSprint<T>(cacheRoot: string, keyParts: unknown, now: Date, build: () => T, patcher?: Patcher<T>): T {
  return cachedRecorded(sprintCachePath(cacheRoot), cacheRoot, keyParts, now, build, patcher);
}

/**
 * The BMAD catalog of a folder (artifacts.ts builds it through the recorders), from
 * `.waymark/cache/bmad-catalog.bin` while every install file, manifest, config and folder it read
 * is unchanged, as cachedSprint keeps the sprint.
 */
export function cachedBmadCatalog<T>(cacheRoot: string, keyParts: unknown, build: () => T): T {
  return cachedRecorded(path.join(cacheRoot, CATALOG_CACHE_FILE), cacheRoot, ['catalog', keyParts], new Date(), build);
}

function cachedRecorded<T>(file: string, cacheRoot: string, keyParts: unknown, now: Date, build: () => T, patcher?: Patcher<T>): T {
  let key: string;
  try {
    key = digest(keyParts);
  } catch {
    return build();
  }
  const c = readCache(file, key);
  // A folder whose key moved holds while it lists the same entries: a first run makes `.waymark/`
  // in the project's root after the catalog listed it (its listing leaves `.waymark` out), and
  // without this the next run built the catalog again (~35 % of that run).
  const relisted: Keyed[] = [];
  if (c && inputsHold(c, now, racyWindowMs, { relist: true, relisted })) {
    let result: T | undefined;
    let ok = false;
    try {
      result = decodeValue(c.result) as T;
      ok = true;
    } catch {
      // a torn result: built again
    }
    if (ok) {
      // Checked unchanged just now: the inputs as the cache recorded them are the enclosing
      // recording's, a relisted folder with its key now (the one another reader records).
      const moved = relisted.length ? new Map(relisted.map((k) => [k[0], k])) : undefined;
      if (active) mergeInto(active, c.files, moved ? c.dirs.map((d) => moved.get(d[0]) ?? d) : c.dirs, c.probes, c.times);
      return result as T;
    }
  }
  if (c && patcher) {
    const patched = tryPatch(cacheRoot, file, c, key, now, patcher);
    if (patched) return patched.result;
  }
  const recordedAt = Date.now();
  const rec = newRecorder();
  active = rec;
  const outerBuild = building;
  const b: Build | undefined = patcher ? { idents: new Map(), identity: patcher.identity } : undefined;
  building = b;
  let result: T;
  try {
    result = build();
  } finally {
    building = outerBuild;
    endRecorder(rec);
  }
  let encoded: Encoded;
  try {
    encoded = encodeValue(result);
  } catch {
    return result;
  }
  if (!rec.torn) save(cacheRoot, file, { waymarkSprintCache: FORMAT, code: codeFingerprint(), key, recordedAt, files: [...rec.files.values()], dirs: [...rec.dirs.values()], probes: [...rec.probes], times: rec.times, timeSig: timeSignature(rec.times, now), result: encoded, parsed: b ? Object.fromEntries(b.idents) : undefined, id: newId() });
  return result;
}

/** A recording under way (`startRecording`). */
export interface InputRecording {
  /** Ends the recording: what it saw, or undefined when an input changed while it was recorded. */
  stop(now: Date): RecordedInputs | undefined;
}

/**
 * Records every input the BMAD readers read through the recorders (config, sprints, ticket trees)
 * until `stop`, including those of sprints answered from the cache; for a result built from them
 * and kept elsewhere (validate's stored answer), checked again with `inputsHold`. Recordings nest.
 */
export function startRecording(): InputRecording {
  const recordedAt = Date.now();
  const rec = newRecorder();
  active = rec;
  let stopped = false;
  return {
    stop(now: Date) {
      if (stopped) return undefined;
      stopped = true;
      // Ended out of order (another recording begun across an await and not ended): not trusted.
      if (active !== rec) {
        rec.torn = true;
        let r = active;
        while (r && r !== rec) r = r.outer;
        if (r === rec) active = rec.outer;
      } else endRecorder(rec);
      if (rec.torn) return undefined;
      return { recordedAt, files: [...rec.files.values()], dirs: [...rec.dirs.values()], probes: [...rec.probes], times: rec.times, timeSig: timeSignature(rec.times, now) };
    },
  };
}

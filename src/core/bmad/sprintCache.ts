/**
 * The built sprint, reused across processes while its inputs are unchanged:
 * `<root>/.waymark/cache/bmad-sprint.json`, beside the scan index (same folder, same rules).
 *
 * While loadSprint builds, every file it reads, folder it lists and path it probes is recorded
 * (recordingRead, recordingList, recordingProbe). The cache holds those inputs' keys and the
 * serialized result. It is reused only when, for this process:
 * - the key matches: code build, project root, the BMAD config as loaded, the workspace's
 *   `bmad` settings, the stale-days setting;
 * - every read file and listed folder has the same stat key (size, mtime ns, ctime ns, inode) and
 *   is not racy (changed within RACY_WINDOW_MS before it was recorded: it may change again within
 *   the same timestamp tick); the SHA-256 of each text and listing is recorded as its identity;
 * - every probed path is still the same kind (file, folder, missing);
 * - the clock gives the same answers the result depends on (a ledger's staleness and its day
 *   count, a waiver's expiry).
 * Anything else (missing, torn, corrupt, another format) is a miss: the sprint is built and the
 * cache written again, atomically and without fsync (it is a cache). Never throws. Beside it,
 * `bmad-sprint-parses.json` keeps each story file's parse with its stat key (recordingParse): a
 * rebuild after one story changed parses that one. When only such files changed, each keeping its
 * identity (Patcher), the cached result is patched instead, and the patch is kept in
 * `bmad-sprint-edits.json` (the edited files' keys and parses) rather than the sprint written again.
 * Recordings nest (startRecording): validate's stored answer is keyed on everything the BMAD readers
 * read, a cached sprint's inputs included. The BMAD catalog is kept the same way (cachedBmadCatalog).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTextIfRegular } from '../store/safeRead';
import { version as WAYMARK_VERSION } from '../../../package.json';
import { writeFileAtomic } from '../store/atomicWrite';
import { safeMkdir } from '../store/safePath';
import { randomHex } from '../store/processes';
import { sha256 } from '../model/hash';

// The scan index's folder and racy window (store/scanIndex.ts: SCAN_INDEX_DIR, RACY_WINDOW_MS),
// written out here: importing scanIndex from the BMAD config reader would make an import cycle.
const CACHE_DIR = '.waymark/cache';
const RACY_WINDOW_MS = 2000;
export const SPRINT_CACHE_FILE = `${CACHE_DIR}/bmad-sprint.json`;
/** The BMAD catalog (artifacts.ts), kept the same way as the sprint: keyed on every file it read. */
export const CATALOG_CACHE_FILE = `${CACHE_DIR}/bmad-catalog.json`;
const FORMAT = 2;
/** A cache larger than this is ignored. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/** [path, size, mtimeNs, ctimeNs, ino, sha256] */
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

/** A file's parse kept in the cache: its key when read, and the parse encoded. */
type KeptParse = [Keyed, unknown];

/** The sprint being built by cachedSprint: the last cache's parses, and this build's. */
interface Build {
  /** The parses of the cache being replaced (any key: a parse depends on the file alone), read when first asked. */
  previous?: Map<string, KeptParse>;
  previousAt: number;
  loadPrevious: () => void;
  parses: Map<string, KeptParse>;
  /** Each parsed file's identity (Patcher.identity), when the build can be patched later. */
  idents?: Map<string, string>;
  identity?: (value: unknown) => string;
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
  reparse: (file: string) => unknown;
  apply: (cached: T, changed: { file: string; parse: unknown }[]) => T;
}

function newRecorder(): Recorder {
  return { files: new Map(), dirs: new Map(), probes: new Map(), times: [], outer: active, torn: false };
}

/** Adds inputs to a recording; the first key of each is kept, a different one later marks it torn. */
function mergeInto(r: Recorder, files: Iterable<Keyed>, dirs: Iterable<Keyed>, probes: Iterable<[string, string]>, times: Iterable<TimeDep>): void {
  const add = (m: Map<string, Keyed>, k: Keyed) => {
    const had = m.get(k[0]);
    if (!had) m.set(k[0], k);
    else if (had.join('\0') !== k.join('\0')) r.torn = true;
  };
  for (const f of files) add(r.files, f);
  for (const d of dirs) add(r.dirs, d);
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
  codeFp = `${FORMAT}:${WAYMARK_VERSION}:${build}`;
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

/** A folder's entries as recorded; an unreadable folder is told apart from an empty one. */
function listing(entries: fs.Dirent[] | undefined): string {
  if (!entries) return '\0unreadable';
  return entries.map((e) => `${e.name}\0${e.isFile() ? 'f' : e.isDirectory() ? 'd' : e.isSymbolicLink() ? 'l' : 'o'}`).join('\n');
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

/** readTextIfRegular, recorded while a sprint is built for the cache. */
export function recordingRead(file: string, maxBytes: number): string | undefined {
  if (!active) return readTextIfRegular(file, maxBytes);
  const key = statKey(file);
  const text = readTextIfRegular(file, maxBytes);
  mergeInto(active, [[file, ...(key ?? ['-', '-', '-', '-']), text === undefined ? '-' : sha(text)] as Keyed], [], [], []);
  return text;
}

/**
 * `parse` of a file's text (undefined when not a readable regular file up to `maxBytes`), recorded
 * like recordingRead. While a sprint is built for the cache, a file whose stat key is the one the
 * last cache recorded (and was not racy then) is not read again: its kept parse is decoded, so an
 * edit of one story file of 400 parses one. `parse` must depend on the text alone (and the path).
 */
export function recordingParse<T>(file: string, maxBytes: number, parse: (text: string | undefined) => T): T {
  const b = building;
  if (!b || !active) return parse(recordingRead(file, maxBytes));
  const v = parseForBuild(b, active, file, maxBytes, parse);
  if (b.identity) b.idents?.set(file, b.identity(v));
  return v;
}

function parseForBuild<T>(b: Build, active: Recorder, file: string, maxBytes: number, parse: (text: string | undefined) => T): T {
  if (!b.previous) b.loadPrevious();
  const kept = b.previous?.get(file);
  if (kept) {
    const k = kept[0];
    if (keyed(k, BigInt(Math.floor(b.previousAt - racyWindowMs)) * 1_000_000n) === 'same') {
      try {
        const v = decodeGraph(kept[1]) as T;
        mergeInto(active, [k], [], [], []);
        b.parses.set(file, kept);
        return v;
      } catch {
        // a torn entry: read the file
      }
    }
  }
  const key = statKey(file);
  const text = readTextIfRegular(file, maxBytes);
  const k = [file, ...(key ?? ['-', '-', '-', '-']), text === undefined ? '-' : sha(text)] as Keyed;
  mergeInto(active, [k], [], [], []);
  const v = parse(text);
  try {
    b.parses.set(file, [k, encodeGraph(v)]);
  } catch {
    // not encodable: parsed again next time
  }
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

/** Whether anything is at `p` (fs.existsSync), recorded for the cache. */
export function recordingExists(p: string): boolean {
  const k = kindOf(p);
  if (active) mergeInto(active, [], [], [[p, k]], []);
  return k !== '-';
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

// ---- value codec: JSON plus Map, Set, Date, undefined, non-finite numbers, -0, null prototypes and shared objects.

const TAG = '\u0000';

class Uncacheable extends Error {}

function encodeGraph(value: unknown): unknown {
  // One map for both passes (a sprint is tens of thousands of objects): IN_WALK while its children
  // are counted (met again: a cycle), ONCE after, SHARED when met twice, and ID + i once encoded as def i.
  const IN_WALK = 1;
  const ONCE = 2;
  const SHARED = 3;
  const ID = 4;
  const seen = new Map<object, number>();
  const count = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    const n = seen.get(v);
    if (n !== undefined) {
      if (n === IN_WALK) throw new Uncacheable('cycle');
      if (n === ONCE) seen.set(v, SHARED);
      return;
    }
    seen.set(v, IN_WALK);
    if (v instanceof Map) for (const [k, x] of v) (count(k), count(x));
    else if (v instanceof Set) for (const x of v) count(x);
    else if (!(v instanceof Date)) for (const k of Object.keys(v)) count((v as Record<string, unknown>)[k]);
    if (seen.get(v) === IN_WALK) seen.set(v, ONCE);
  };
  count(value);
  let next = 0;
  const enc = (v: unknown): unknown => {
    if (v === undefined) return { [TAG]: 'u' };
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return { [TAG]: 'n', v: 'NaN' };
      if (v === Infinity || v === -Infinity) return { [TAG]: 'n', v: String(v) };
      if (v === 0 && 1 / v < 0) return { [TAG]: 'n', v: '-0' };
      return v;
    }
    if (typeof v === 'string' || typeof v === 'boolean' || v === null) return v;
    if (typeof v !== 'object') throw new Uncacheable(typeof v);
    const state = seen.get(v) ?? ONCE;
    if (state >= ID) return { [TAG]: 'r', i: state - ID };
    let body: unknown;
    if (Array.isArray(v)) body = v.map(enc);
    else if (v instanceof Date) body = { [TAG]: 'd', v: v.getTime() };
    else if (v instanceof RegExp) {
      if (Object.getPrototypeOf(v) !== RegExp.prototype || v.lastIndex !== 0) throw new Uncacheable('regexp');
      body = { [TAG]: 'x', s: v.source, f: v.flags };
    }
    else if (v instanceof Map) body = { [TAG]: 'm', v: [...v].map(([k, x]) => [enc(k), enc(x)]) };
    else if (v instanceof Set) body = { [TAG]: 's', v: [...v].map(enc) };
    else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== null && proto !== Object.prototype) throw new Uncacheable('class instance');
      const o: Record<string, unknown> = {};
      for (const k of Object.keys(v)) o[k] = enc((v as Record<string, unknown>)[k]);
      body = proto === null || TAG in o ? { [TAG]: proto === null ? 'o0' : 'o', v: o } : o;
    }
    // Frozen objects (a catalog's steps, shared by every artifact of a workflow) come back frozen.
    if (Object.isFrozen(v) && !(v instanceof RegExp)) body = { [TAG]: 'f', v: body };
    else if (!Object.isExtensible(v)) throw new Uncacheable('sealed');
    if (state === SHARED) {
      const i = next++;
      seen.set(v, ID + i);
      return { [TAG]: 'def', i, v: body };
    }
    return body;
  };
  return enc(value);
}

class Corrupt extends Error {}

function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  // A `__proto__` key stays an own data property, never a prototype change.
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

function decodeGraph(json: unknown): unknown {
  const defs: unknown[] = [];
  const dec = (v: unknown, depth: number): unknown => {
    if (depth > 512) throw new Corrupt('too deep');
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = dec(v[i], depth + 1);
      return out;
    }
    const o = v as Record<string, unknown>;
    const tag = o[TAG];
    if (tag === undefined) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(o)) setOwn(out, k, dec(o[k], depth + 1));
      return out;
    }
    switch (tag) {
      case 'u':
        return undefined;
      case 'n':
        if (o.v === 'NaN') return NaN;
        if (o.v === 'Infinity') return Infinity;
        if (o.v === '-Infinity') return -Infinity;
        if (o.v === '-0') return -0;
        throw new Corrupt('number');
      case 'r': {
        if (typeof o.i !== 'number' || !(o.i in defs)) throw new Corrupt('ref');
        return defs[o.i];
      }
      case 'def': {
        // Numbered after their bodies (post-order, as encoded): no cycles, the encoder refuses those.
        const x = dec(o.v, depth + 1);
        if (typeof o.i !== 'number' || o.i !== defs.length) throw new Corrupt('def');
        defs.push(x);
        return x;
      }
      case 'd':
        if (typeof o.v !== 'number' && o.v !== null) throw new Corrupt('date');
        return new Date(o.v ?? NaN);
      case 'x':
        if (typeof o.s !== 'string' || typeof o.f !== 'string') throw new Corrupt('regexp');
        try {
          return new RegExp(o.s, o.f);
        } catch {
          throw new Corrupt('regexp');
        }
      case 'f': {
        const x = dec(o.v, depth + 1);
        if (x === null || typeof x !== 'object') throw new Corrupt('frozen');
        return Object.freeze(x);
      }
      case 'm': {
        if (!Array.isArray(o.v)) throw new Corrupt('map');
        const m = new Map<unknown, unknown>();
        for (const pair of o.v as unknown[]) {
          if (!Array.isArray(pair) || pair.length !== 2) throw new Corrupt('map entry');
          m.set(dec(pair[0], depth + 1), dec(pair[1], depth + 1));
        }
        return m;
      }
      case 's': {
        if (!Array.isArray(o.v)) throw new Corrupt('set');
        return new Set((o.v as unknown[]).map((x) => dec(x, depth + 1)));
      }
      case 'o':
      case 'o0': {
        if (o.v === null || typeof o.v !== 'object' || Array.isArray(o.v)) throw new Corrupt('object');
        const src = o.v as Record<string, unknown>;
        const out = (tag === 'o0' ? Object.create(null) : {}) as Record<string, unknown>;
        for (const k of Object.keys(src)) setOwn(out, k, dec(src[k], depth + 1));
        return out;
      }
      default:
        throw new Corrupt('tag');
    }
  };
  return dec(json, 0);
}

// ---- the cache file

interface CacheFile extends RecordedInputs {
  waymarkSprintCache: number;
  code: string;
  key: string;
  result: unknown;
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
  /** SHA-256 of the entries' JSON: a file changed in any other way is not used. */
  sum: string;
}

let maxEdits = 24;

/** Tests only: how many edited files the edits file keeps before the whole cache is written again (24). */
export function setSprintCacheMaxEdits(n: number): void {
  maxEdits = n;
}

function editsPath(cacheFile: string): string {
  return cacheFile.replace(/\.json$/, '-edits.json');
}

/** The edits kept for cache `c`, when they are whole and its own; else none. */
function readEdits(cacheFile: string, c: CacheFile): EditsFile | undefined {
  if (typeof c.id !== 'string') return undefined;
  try {
    const file = editsPath(cacheFile);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile() || st.size > MAX_CACHE_BYTES) return undefined;
    const e = JSON.parse(fs.readFileSync(file, 'utf8')) as EditsFile;
    if (!e || e.waymarkSprintEdits !== FORMAT || e.code !== codeFingerprint() || e.base !== c.id || typeof e.recordedAt !== 'number' || !Array.isArray(e.entries)) return undefined;
    if (!e.entries.every((x) => Array.isArray(x) && x.length === 2 && isKeyed(x[0])) || sha(JSON.stringify(e.entries)) !== e.sum) return undefined;
    return e;
  } catch {
    return undefined;
  }
}

/**
 * Story files' parses by file (recordingParse), for the next build after an edit: a file of their
 * own beside the cache (`bmad-sprint-parses.json`), read only when the sprint is built again, so a
 * warm read of the sprint does not parse them.
 */
interface ParsesFile {
  waymarkSprintParses: number;
  code: string;
  recordedAt: number;
  parses: KeptParse[];
}

function parsesPath(cacheFile: string): string {
  return cacheFile.replace(/\.json$/, '-parses.json');
}

/** The parses kept beside the cache being replaced, and when they were recorded; empty when none fit. */
function previousParses(cacheFile: string): { parses: Map<string, KeptParse>; at: number } {
  const out = new Map<string, KeptParse>();
  try {
    const file = parsesPath(cacheFile);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile() || st.size > MAX_CACHE_BYTES) return { parses: out, at: 0 };
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as ParsesFile;
    if (!c || c.waymarkSprintParses !== FORMAT || c.code !== codeFingerprint() || typeof c.recordedAt !== 'number' || !Array.isArray(c.parses)) return { parses: out, at: 0 };
    for (const p of c.parses) if (Array.isArray(p) && p.length === 2 && isKeyed(p[0])) out.set(p[0][0], p);
    return { parses: out, at: c.recordedAt };
  } catch {
    return { parses: out, at: 0 };
  }
}

export function sprintCachePath(root: string): string {
  return path.join(root, SPRINT_CACHE_FILE);
}

/** Whether the persisted caches are on: `WAYMARK_SCAN_INDEX=0` (or off, false) turns off the scan index and this one. */
export function cacheFilesEnabled(): boolean {
  const env = process.env.WAYMARK_SCAN_INDEX;
  return !(env === '0' || env === 'off' || env === 'false');
}

/** Whether a folder recorded by `recordingList` lists the same entries now (its stat key moved: a file came and went). */
function sameListing(k: Keyed): boolean {
  return k[5] === sha(listing(listDirRaw(k[0])));
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
export function inputsHold(r: unknown, now: Date, racyMs: number = racyWindowMs, opts: { relist?: boolean } = {}): r is RecordedInputs {
  const c = r as RecordedInputs;
  if (!c || typeof c !== 'object' || typeof c.recordedAt !== 'number' || !Array.isArray(c.files) || !Array.isArray(c.dirs) || !Array.isArray(c.probes) || !Array.isArray(c.times) || typeof c.timeSig !== 'string') return false;
  if (!c.files.every(isKeyed) || !c.dirs.every(isKeyed) || !c.times.every(isTimeDep)) return false;
  if (timeSignature(c.times, now) !== c.timeSig) return false;
  const racyBeforeNs = BigInt(Math.floor(c.recordedAt - racyMs)) * 1_000_000n;
  for (const p of c.probes) {
    if (!Array.isArray(p) || typeof p[0] !== 'string' || kindOf(p[0]) !== p[1]) return false;
  }
  // A changed or racy input: what was built from them is built again (recording anew).
  // With `relist`, a folder whose stat key moved still holds when it lists the same entries (a
  // temp file written and renamed away, a file made and deleted in a folder only searched).
  for (const d of c.dirs) if (keyed(d, racyBeforeNs) !== 'same' && !(opts.relist && d[2] !== '-' && sameListing(d))) return false;
  for (const f of c.files) if (keyed(f, racyBeforeNs) !== 'same') return false;
  return true;
}

/** The cache file at `file` when it is one for `key` and this build; else undefined. */
function readCache(file: string, key: string): CacheFile | undefined {
  let text: string | undefined;
  try {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile() || st.size > MAX_CACHE_BYTES) return undefined;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let c: CacheFile;
  try {
    c = JSON.parse(text) as CacheFile;
  } catch {
    return undefined;
  }
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
  for (const p of c.probes) if (!Array.isArray(p) || typeof p[0] !== 'string' || kindOf(p[0]) !== p[1]) return undefined;
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
    cached = decodeGraph(c.result) as T;
    for (const [k, v] of plan.held) apply.push({ file: k[0], parse: decodeGraph(v) });
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
    changed = plan.changed.map((f) => ({ file: f, parse: patcher.reparse(f) }));
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
    for (const x of changed) entries.push([rec.files.get(x.file)!, encodeGraph(x.parse)]);
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
      save(cacheRoot, editsPath(file), { waymarkSprintEdits: FORMAT, code: codeFingerprint(), base: c.id!, recordedAt, entries, sum: sha(JSON.stringify(entries)) });
      return { result };
    }
  }
  try {
    save(cacheRoot, file, { waymarkSprintCache: FORMAT, code: codeFingerprint(), key, recordedAt, files, dirs: plan.dirs, probes: c.probes, times: c.times, timeSig: c.timeSig, result: encodeGraph(result), parsed, id: newId() });
  } catch {
    // not encodable: built again next time
  }
  return { result };
}

function sameDirs(a: Keyed[], b: Keyed[]): boolean {
  return a.length === b.length && a.every((d, i) => d.join('\0') === b[i].join('\0'));
}

function newId(): string {
  return randomHex(12);
}

function save(root: string, file: string, c: CacheFile | ParsesFile | EditsFile): void {
  try {
    const dir = path.dirname(file);
    if (!fs.existsSync(dir)) {
      if (!fs.existsSync(root)) return;
      safeMkdir(root, dir);
      writeFileAtomic(path.join(dir, '.gitignore'), '# Waymark cache: safe to delete, never commit.\n*\n', { root, durable: false, replaceLink: true });
    }
    writeFileAtomic(file, JSON.stringify(c), { root, durable: false, replaceLink: true });
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
 * `.waymark/cache/bmad-catalog.json` while every install file, manifest, config and folder it read
 * is unchanged, as cachedSprint keeps the sprint.
 */
export function cachedBmadCatalog<T>(cacheRoot: string, keyParts: unknown, build: () => T): T {
  return cachedRecorded(path.join(cacheRoot, CATALOG_CACHE_FILE), cacheRoot, ['catalog', keyParts], new Date(), build);
}

function cachedRecorded<T>(file: string, cacheRoot: string, keyParts: unknown, now: Date, build: () => T, patcher?: Patcher<T>): T {
  let key: string;
  try {
    key = sha(JSON.stringify(encodeGraph(keyParts)));
  } catch {
    return build();
  }
  const c = readCache(file, key);
  if (c && inputsHold(c, now)) {
    let result: T | undefined;
    let ok = false;
    try {
      result = decodeGraph(c.result) as T;
      ok = true;
    } catch {
      // a torn result: built again
    }
    if (ok) {
      // Checked unchanged just now: the inputs as the cache recorded them are the enclosing recording's.
      if (active) mergeInto(active, c.files, c.dirs, c.probes, c.times);
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
  const b: Build = {
    previousAt: 0,
    parses: new Map(),
    idents: patcher ? new Map() : undefined,
    identity: patcher?.identity,
    loadPrevious: () => {
      const prev = previousParses(file);
      b.previous = prev.parses;
      b.previousAt = prev.at;
    },
  };
  building = b;
  let result: T;
  try {
    result = build();
  } finally {
    building = outerBuild;
    endRecorder(rec);
  }
  let encoded: unknown;
  try {
    encoded = encodeGraph(result);
  } catch {
    return result;
  }
  if (!rec.torn) {
    save(cacheRoot, file, { waymarkSprintCache: FORMAT, code: codeFingerprint(), key, recordedAt, files: [...rec.files.values()], dirs: [...rec.dirs.values()], probes: [...rec.probes], times: rec.times, timeSig: timeSignature(rec.times, now), result: encoded, parsed: b.idents ? Object.fromEntries(b.idents) : undefined, id: newId() });
    if (b.parses.size) save(cacheRoot, parsesPath(file), { waymarkSprintParses: FORMAT, code: codeFingerprint(), recordedAt, parses: [...b.parses.values()] });
  }
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

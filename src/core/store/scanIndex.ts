import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { version as WAYMARK_VERSION } from '../../../package.json';
import { SCOPES, STATUSES, type Problem, type SkippedFile, type WorkflowState } from '../types';
import type { WorkspaceContext } from './workspaceContext';
import { defaultWorkspaceContext } from './workspaceContext';
import { analyzeSteps, parseWorkflowText, type StepAnalysis } from '../model/workflow';
import { lookupBmadWorkflow, resolveBmadStep } from '../bmad/artifacts';
import { YamlLocator } from '../model/positions';
import { splitFrontmatter } from '../model/frontmatter';
import { gateFilePath, readGate } from '../model/gates';
import { ttlExpiry } from '../model/validate';
import type { Logger } from '../ports';
import { writeFileAtomic } from './atomicWrite';
import { safeMkdir } from './safePath';
import { WaymarkError } from '../errors';

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
export const SCAN_INDEX_FORMAT = 1;
/** An index larger than this is ignored (and rebuilt). */
export const SCAN_INDEX_MAX_BYTES = 256 * 1024 * 1024;
/**
 * A file changed within this window before the scan that recorded it may have been changed
 * again within the same timestamp tick; such entries are verified by content hash next time
 * (git's "racy clean" rule). File systems with coarse timestamps (FAT: 2 s) need the full 2 s.
 */
export const RACY_WINDOW_MS = 2000;

/** Stat facts an entry is keyed by. */
export interface FileKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

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

// ---- fingerprints -------------------------------------------------------------------------

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
 * SHA-256 of everything in a context that a file's parse result depends on besides the file
 * itself: config (with overrides), workflow definitions, the BMAD catalog, the root.
 * Gate files and the clock are checked per entry instead.
 */
export function contextFingerprint(ctx: WorkspaceContext): string {
  const bmad = { names: [...ctx.bmad.byName.entries()].map(([k, w]) => [k, w.dir]), workflows: ctx.bmad.workflows };
  const text = JSON.stringify([ctx.root, ctx.config, [...ctx.definitions.entries()], bmad, ctx.limits, ctx.include, ctx.exclude], stableReplacer);
  return createHash('sha256').update(text).digest('hex');
}

// ---- codec: JSON plus what JSON loses (undefined, NaN, ±Infinity, -0, null prototypes) -------

/** A meta trie mirrors the value tree along the paths that need a fix-up. */
interface Meta {
  /** Tag for this node: 'u' undefined, 'nan', 'inf', '-inf', '-0', 'n' null-prototype object, 'p' plain object under a null-prototype one. */
  t?: string;
  /** Children by key (object keys, or array indexes as strings). */
  c?: Record<string, Meta>;
}

function isNullProto(v: object): boolean {
  return Object.getPrototypeOf(v) === null;
}

/** Encodes a value for JSON: returns the JSON-safe tree and the fix-up trie (undefined when none). */
export function encodeValue(value: unknown): [unknown, Meta | undefined] {
  const walk = (v: unknown, inNull: boolean): [unknown, Meta | undefined] => {
    if (v === undefined) return [null, { t: 'u' }];
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return [null, { t: 'nan' }];
      if (v === Infinity) return [null, { t: 'inf' }];
      if (v === -Infinity) return [null, { t: '-inf' }];
      if (v === 0 && 1 / v < 0) return [0, { t: '-0' }];
      return [v, undefined];
    }
    if (v === null || typeof v !== 'object') return [v, undefined];
    let children: Record<string, Meta> | undefined;
    if (Array.isArray(v)) {
      const out = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        const [j, m] = walk(v[i], inNull);
        out[i] = j;
        if (m) (children ??= Object.create(null) as Record<string, Meta>)[String(i)] = m;
      }
      return [out, children ? { c: children } : undefined];
    }
    const nul = isNullProto(v);
    const out: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(v)) {
      const [j, m] = walk((v as Record<string, unknown>)[k], nul);
      out[k] = j;
      if (m) (children ??= Object.create(null) as Record<string, Meta>)[k] = m;
    }
    const tag = nul && !inNull ? 'n' : !nul && inNull ? 'p' : undefined;
    if (!tag && !children) return [out, undefined];
    const meta: Meta = {};
    if (tag) meta.t = tag;
    if (children) meta.c = children;
    return [out, meta];
  };
  return walk(value, false);
}

class DecodeError extends Error {}

const MAX_DECODE_DEPTH = 256;

function setOwn(o: object, k: string, v: unknown): void {
  // defineProperty: a `__proto__` key stays an own data property, never a prototype change.
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/**
 * Inverse of encodeValue over freshly parsed JSON, in place: only the paths the fix-up trie
 * names and the null-prototype subtrees are visited. Throws DecodeError on anything malformed.
 */
export function decodeValue(json: unknown, meta: unknown): unknown {
  const own = Object.prototype.hasOwnProperty;
  const walk = (v: unknown, m: unknown, inNull: boolean, depth: number): unknown => {
    if (depth > MAX_DECODE_DEPTH) throw new DecodeError('too deep');
    let tag: unknown;
    let kids: Record<string, unknown> | undefined;
    if (m !== undefined) {
      if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new DecodeError('bad meta');
      const mm = m as Record<string, unknown>;
      tag = own.call(mm, 't') ? mm.t : undefined;
      const c = own.call(mm, 'c') ? mm.c : undefined;
      if (c !== undefined) {
        if (typeof c !== 'object' || c === null || Array.isArray(c)) throw new DecodeError('bad meta children');
        kids = c as Record<string, unknown>;
      }
    }
    switch (tag) {
      case undefined:
        break;
      case 'u':
        return undefined;
      case 'nan':
        return NaN;
      case 'inf':
        return Infinity;
      case '-inf':
        return -Infinity;
      case '-0':
        return -0;
      case 'n':
      case 'p':
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new DecodeError('prototype tag on a non-object');
        break;
      default:
        throw new DecodeError('unknown tag');
    }
    if (v === null || typeof v !== 'object') {
      if (kids) throw new DecodeError('children on a scalar');
      return v;
    }
    if (Array.isArray(v)) {
      if (inNull) {
        for (let i = 0; i < v.length; i++) {
          const k = kids && own.call(kids, String(i)) ? kids[String(i)] : undefined;
          v[i] = walk(v[i], k, true, depth + 1);
        }
      } else if (kids) {
        for (const k of Object.keys(kids)) {
          const i = Number(k);
          if (!Number.isInteger(i) || i < 0 || i >= v.length) throw new DecodeError('bad index');
          v[i] = walk(v[i], kids[k], false, depth + 1);
        }
      }
      return v;
    }
    const o = v as Record<string, unknown>;
    const nul = tag === 'n' ? true : tag === 'p' ? false : inNull;
    if (nul) {
      Object.setPrototypeOf(o, null);
      for (const k of Object.keys(o)) {
        const old = o[k];
        const val = walk(old, kids && own.call(kids, k) ? kids[k] : undefined, true, depth + 1);
        if (!Object.is(val, old)) setOwn(o, k, val);
      }
    } else if (kids) {
      for (const k of Object.keys(kids)) {
        if (!own.call(o, k)) throw new DecodeError('meta for a missing key');
        const old = o[k];
        const val = walk(old, kids[k], false, depth + 1);
        if (!Object.is(val, old)) setOwn(o, k, val);
      }
    }
    return o;
  };
  return walk(json, meta, false, 0);
}

// ---- trust nothing: shape checks on restored values ----------------------------------------

const isStr = (v: unknown): v is string => typeof v === 'string';
const optStr = (v: unknown) => v === undefined || typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number';
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkPos(p: unknown): boolean {
  return isObj(p) && Number.isInteger(p.line) && Number.isInteger(p.character) && (p.line as number) >= 0 && (p.character as number) >= 0;
}

function checkProblem(p: unknown): boolean {
  return (
    isObj(p) && isStr(p.file) && isObj(p.range) && checkPos(p.range.start) && checkPos(p.range.end) &&
    (p.severity === 'error' || p.severity === 'warning' || p.severity === 'info') && isStr(p.code) && isStr(p.message) &&
    (p.data === undefined || isObj(p.data))
  );
}

function checkProblems(ps: unknown, file: string): ps is Problem[] {
  return Array.isArray(ps) && ps.every((p) => checkProblem(p) && (p as Problem).file === file);
}

function checkStep(s: unknown): boolean {
  return isObj(s) && isStr(s.id) && isNum(s.index) && optStr(s.title) && optStr(s.gate) && optStr(s.file);
}

function checkGate(g: unknown): boolean {
  return (
    isObj(g) && isStr(g.name) && isStr(g.file) && typeof g.exists === 'boolean' && typeof g.open === 'boolean' && Array.isArray(g.history) &&
    g.history.every((h) => isObj(h) && isStr(h.gate)) && optStr(g.verdict) && optStr(g.error) && (g.waiver === undefined || isObj(g.waiver))
  );
}

/** True when a restored value has the WorkflowState shape downstream code relies on. */
export function checkState(s: unknown, file: string, root: string): s is WorkflowState {
  if (!isObj(s)) return false;
  if (s.file !== file || s.root !== root) return false;
  if (s.dialect !== 'waymark' && s.dialect !== 'bmad') return false;
  if (!isStr(s.workflow) || !isStr(s.stateHash) || !isStr(s.contentHash)) return false;
  if (s.status !== undefined && !(STATUSES as readonly unknown[]).includes(s.status)) return false;
  if (s.scope !== undefined && !(SCOPES as readonly unknown[]).includes(s.scope)) return false;
  for (const k of ['rawStatus', 'currentStep', 'lastStep', 'blockedReason', 'session', 'updatedAt', 'nextStep']) if (!optStr(s[k])) return false;
  if (!(s.ttl === undefined || isStr(s.ttl) || isNum(s.ttl))) return false;
  if (!(s.stale === undefined || typeof s.stale === 'boolean')) return false;
  if (!['frontmatter', 'definition', 'bmad', 'none'].includes(s.stepsSource as string)) return false;
  if (!Array.isArray(s.stepsCompleted) || !s.stepsCompleted.every(isStr)) return false;
  if (!Array.isArray(s.steps) || !s.steps.every(checkStep)) return false;
  if (!isObj(s.gates) || !Object.values(s.gates).every(checkGate)) return false;
  if (!isObj(s.data)) return false;
  if (s.delegation !== undefined) {
    const d = s.delegation;
    if (!isObj(d) || !isStr(d.id) || !isStr(d.root_id) || !isNum(d.depth) || !Array.isArray(d.chain_path) || !d.chain_path.every(isStr)) return false;
    if (!(d.parent_id === undefined || d.parent_id === null || isStr(d.parent_id)) || !optStr(d.agent)) return false;
  }
  return checkProblems(s.problems, file);
}

// ---- parse-time annotations (step analysis, YAML locator) ----------------------------------

let annotationKeys: { analysis?: symbol; locator?: symbol } | undefined;

/**
 * The symbols workflow.ts keeps a state's step analysis and YAML locator under, found on a
 * freshly parsed sample (workflow.ts does not export them).
 */
function annotations(): { analysis?: symbol; locator?: symbol } {
  if (annotationKeys) return annotationKeys;
  annotationKeys = {};
  try {
    const parsed = parseWorkflowText('/waymark-sample.md', '---\nworkflow: sample\nsteps: [a]\n---\n', defaultWorkspaceContext(path.resolve('/')), { contentHash: '' });
    for (const sym of parsed.state ? Object.getOwnPropertySymbols(parsed.state) : []) {
      if (sym.description === 'waymark.stepAnalysis') annotationKeys.analysis = sym;
      if (sym.description === 'waymark.locator') annotationKeys.locator = sym;
    }
  } catch {
    // no annotations: stepAnalysis() recomputes, cross-file problems fall back to line 0
  }
  return annotationKeys;
}

/** Step analysis exactly as normalize() in workflow.ts builds it. */
function restoreAnalysis(state: WorkflowState): StepAnalysis {
  const rawList = Array.isArray(state.data.stepsCompleted) ? (state.data.stepsCompleted as unknown[]) : [];
  const ids = state.dialect === 'waymark' ? state.stepsCompleted : rawList.map((e) => resolveBmadStep(e, state.stepsSource === 'bmad' ? state.steps : []));
  return analyzeSteps(state.steps, ids, state.dialect, rawList);
}

/**
 * A YAML locator for a restored state that reads the file's frontmatter only when a position is
 * asked for (cross-file problems), and only if the bytes still hash to the state's contentHash;
 * otherwise positions fall back to the first YAML line.
 */
class LazyYamlLocator extends YamlLocator {
  private loaded?: { yamlText: string; baseLine: number };
  constructor(
    private readonly file: string,
    private readonly contentHash: string,
    private readonly maxBytes: number,
  ) {
    super('', 1);
    // Should the base class define these as own fields, the prototype getters below take over.
    delete (this as { yamlText?: string }).yamlText;
    delete (this as { baseLine?: number }).baseLine;
  }

  load(): { yamlText: string; baseLine: number } {
    if (this.loaded) return this.loaded;
    this.loaded = { yamlText: '', baseLine: 1 };
    try {
      const st = fs.statSync(this.file);
      if (st.isFile() && st.size <= this.maxBytes) {
        const buf = fs.readFileSync(this.file);
        if (createHash('sha256').update(buf).digest('hex') === this.contentHash) {
          const split = splitFrontmatter(buf.toString('utf8'));
          this.loaded = { yamlText: split.yamlText, baseLine: split.yamlStartLine };
        }
      }
    } catch {
      // gone or unreadable since the scan: the fallback above stands
    }
    return this.loaded;
  }
}
Object.defineProperties(LazyYamlLocator.prototype, {
  // The setters swallow the base constructor's assignments.
  yamlText: { get(this: LazyYamlLocator) { return this.load().yamlText; }, set() {}, configurable: true },
  baseLine: { get(this: LazyYamlLocator) { return this.load().baseLine; }, set() {}, configurable: true },
});

/** One shared accessor (so restored states keep one hidden class): computes the analysis on first use. */
function analysisAccessor(sym: symbol): PropertyDescriptor {
  return {
    configurable: true,
    enumerable: false,
    get(this: WorkflowState) {
      const value = restoreAnalysis(this);
      Object.defineProperty(this, sym, { value, enumerable: false, writable: true, configurable: true });
      return value;
    },
    set(this: WorkflowState, value: unknown) {
      Object.defineProperty(this, sym, { value, enumerable: false, writable: true, configurable: true });
    },
  };
}
let analysisDescriptor: PropertyDescriptor | undefined;

function annotate(state: WorkflowState, ctx: WorkspaceContext): void {
  const keys = annotations();
  if (keys.analysis) Object.defineProperty(state, keys.analysis, (analysisDescriptor ??= analysisAccessor(keys.analysis)));
  // Only delegation problems (cross-file) ask a state for positions after its parse.
  if (keys.locator && state.delegation) {
    Object.defineProperty(state, keys.locator, { value: new LazyYamlLocator(state.file, state.contentHash, ctx.config.limits.maxFileBytes), enumerable: false, writable: true, configurable: true });
  }
}

/** The installed BMAD workflow a workflow id names (as normalize() looks it up). */
function bmadLookup(ctx: WorkspaceContext, workflow: string) {
  return lookupBmadWorkflow(ctx.bmad, workflow);
}

/** Steps shared with the context (BMAD catalog, definition) are stored as a reference, restored as the same object. */
function stepsRef(state: WorkflowState, ctx: WorkspaceContext): 'bmad' | 'def' | undefined {
  if (state.stepsSource === 'bmad' && bmadLookup(ctx, state.workflow)?.steps === state.steps) return 'bmad';
  if (state.stepsSource === 'definition' && ctx.definitions.get(state.workflow)?.steps === state.steps) return 'def';
  return undefined;
}

/** Encodes a state without what the entry or context already holds (file, root, content hash, shared steps). */
function encodeState(state: WorkflowState, ctx: WorkspaceContext): [unknown, Meta | undefined] {
  const copy: Record<string, unknown> = { ...state };
  copy.file = 0;
  copy.root = 0;
  copy.contentHash = 0;
  const ref = stepsRef(state, ctx);
  if (ref) copy.steps = ref;
  copy.problems = state.problems.map((p) => (p.file === state.file ? { ...p, file: 0 } : p));
  return encodeValue(copy);
}

function decodeState(payload: unknown, entry: IndexEntry, ctx: WorkspaceContext): WorkflowState | undefined {
  if (!Array.isArray(payload) || payload.length !== 2) return undefined;
  const v = decodeValue(payload[0], payload[1] ?? undefined);
  if (!isObj(v) || Object.getPrototypeOf(v) !== Object.prototype || v.file !== 0 || v.root !== 0 || v.contentHash !== 0) return undefined;
  v.file = entry.file;
  v.root = ctx.root;
  v.contentHash = entry.hash;
  if (v.steps === 'bmad' || v.steps === 'def') {
    const steps = v.steps === 'bmad' ? bmadLookup(ctx, String(v.workflow))?.steps : ctx.definitions.get(String(v.workflow))?.steps;
    if (!steps) return undefined;
    v.steps = steps;
  }
  if (Array.isArray(v.problems)) for (const p of v.problems) if (isObj(p) && p.file === 0) p.file = entry.file;
  return checkState(v, entry.file, ctx.root) ? v : undefined;
}

// ---- entries -------------------------------------------------------------------------------

/** Time thresholds a fresh result depends on (ttl expiry), for `now` comparisons. */
function timeThresholds(state: WorkflowState | undefined): number[] {
  const out: number[] = [];
  if (!state) return out;
  if (state.ttl !== undefined && state.ttl !== '') {
    const exp = ttlExpiry(state.ttl, state.updatedAt);
    if (exp instanceof Date && Number.isFinite(exp.getTime())) out.push(exp.getTime());
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
  const row: Record<string, unknown> = {
    f: file, s: key.size, m: key.mtimeMs, c: key.ctimeMs, i: key.ino, h: hash, k: kind, r: racy ? 1 : 0,
    t: timeThresholds(read.state), a: parsedAt, v: payload,
  };
  return JSON.stringify(row);
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

/** True when the stat key matches the entry's. */
export function sameKey(e: FileKey, st: FileKey): boolean {
  return e.size === st.size && e.mtimeMs === st.mtimeMs && e.ctimeMs === st.ctimeMs && e.ino === st.ino;
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
      const gateFile = gateFilePath(ctx, state, s.gate);
      if (!cached || cached.file !== gateFile) return undefined;
      const fresh = readGate(gateFile, s.gate, ctx.now());
      if (JSON.stringify(fresh) !== JSON.stringify(cached)) return undefined;
    }
    annotate(state, ctx);
    return { state, problems: state.problems, isWorkflow: true };
  } catch (e) {
    if (e instanceof DecodeError || e instanceof RangeError || e instanceof TypeError) return undefined;
    throw e;
  }
}

// ---- load / save -----------------------------------------------------------------------------

export interface IndexHeader {
  waymarkScanIndex: number;
  code: string;
  root: string;
  context: string;
  writtenAt: number;
  /** SHA-256 of everything after the header line: random damage drops the whole index. */
  body: string;
}

/** The checksum the header keeps of the entry lines. */
export function indexBodyHash(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The index file of a root. */
export function scanIndexPath(root: string): string {
  return path.join(root, SCAN_INDEX_FILE);
}

/**
 * Loads a root's index. Returns the entries by absolute file, or undefined when there is no
 * usable index (missing, too large, unreadable, wrong header). Never throws.
 */
export function loadScanIndex(ctx: WorkspaceContext, fingerprint: string, logger?: Logger): Map<string, IndexEntry> | undefined {
  const file = scanIndexPath(ctx.root);
  let text: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return undefined;
    if (st.size > SCAN_INDEX_MAX_BYTES) {
      logger?.warn(`[scan] ignoring ${file}: ${st.size} bytes is over ${SCAN_INDEX_MAX_BYTES}; it will be rebuilt`);
      return undefined;
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') logger?.debug(`[scan] cannot read ${file}: ${(e as Error).message}`);
    return undefined;
  }
  const nl = text.indexOf('\n');
  let header: unknown;
  try {
    header = JSON.parse(nl === -1 ? text : text.slice(0, nl));
  } catch {
    logger?.debug(`[scan] ${file}: unreadable header; rebuilding`);
    return undefined;
  }
  if (!isObj(header) || header.waymarkScanIndex !== SCAN_INDEX_FORMAT || header.code !== codeFingerprint() || header.root !== ctx.root || header.context !== fingerprint) {
    logger?.debug(`[scan] ${file}: made by another version, root or configuration; rebuilding`);
    return undefined;
  }
  if (header.body !== indexBodyHash(nl === -1 ? '' : text.slice(nl + 1))) {
    logger?.warn(`[scan] ${file} is damaged (checksum mismatch); rebuilding it`);
    return undefined;
  }
  const entries = new Map<string, IndexEntry>();
  let pos = nl === -1 ? text.length : nl + 1;
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

export type SaveOutcome = 'written' | 'read-only' | 'failed' | 'root-gone';

/**
 * Writes a root's index atomically (temp file in the same folder, fsync, rename). A read-only
 * workspace (or any write failure) is not an error: the outcome says so and nothing is left behind.
 */
export function saveScanIndex(root: string, fingerprint: string, lines: string[], logger?: Logger): SaveOutcome {
  const file = scanIndexPath(root);
  const dir = path.dirname(file);
  // Slices of the body, so a 10k-entry index never needs one giant string.
  const slices: string[] = [];
  for (let i = 0; i < lines.length; i += 2000) slices.push(lines.slice(i, i + 2000).join('\n') + '\n');
  const hash = createHash('sha256');
  for (const sl of slices) hash.update(sl);
  const header: IndexHeader = { waymarkScanIndex: SCAN_INDEX_FORMAT, code: codeFingerprint(), root, context: fingerprint, writtenAt: Date.now(), body: hash.digest('hex') };
  try {
    if (!fs.existsSync(dir)) {
      // Never recreate a root that went away (a deleted temp folder, a removed workspace).
      if (!fs.existsSync(root)) return 'root-gone';
      safeMkdir(root, dir);
      writeFileAtomic(path.join(dir, '.gitignore'), '# Waymark cache: safe to delete, never commit.\n*\n', { root });
    }
    // By its real path, like every write: a cache folder linked to elsewhere is not written.
    writeFileAtomic(file, Buffer.concat([Buffer.from(JSON.stringify(header) + '\n', 'utf8'), ...slices.map((sl) => Buffer.from(sl, 'utf8'))]), { root });
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

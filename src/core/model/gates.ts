import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { parse as parseYaml } from './yamlDepth';
import { GATE_VERDICTS, type HistoryEntry, type GateHistoryEntry, type GateState, type GateVerdict, type GateWaiver, type WorkflowState } from '../types';
import type { WorkspaceContext } from '../store/workspaceContext';
import { latestGateRecord } from '../store/history';

/** Default location of gate files, relative to the workspace root: one folder per workflow file. */
export const DEFAULT_GATE_PATH = '.waymark/gates/{path}/{gate}.gate';

function safeSegment(s: string): string {
  const cleaned = s.replace(/[/\\:*?"<>|\0]/g, '_').replace(/^\.+/, '_');
  return cleaned || '_';
}

/**
 * A workflow file's path relative to the root without its extension, each segment path-safe
 * (`workflows/auth/plan.md` → `workflows/auth/plan`). A file outside the root (never scanned)
 * gets `_outside/<hash>`.
 */
function pathKey(root: string, file: string): string {
  const rel = path.relative(root, path.resolve(file));
  if (!rel || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return `_outside/${createHash('sha256').update(path.resolve(file)).digest('hex').slice(0, 16)}`;
  return rel.replace(/\.[^./\\]*$/, '').split(/[/\\]/).map(safeSegment).join('/');
}

function expandGatePath(template: string, state: Pick<WorkflowState, 'workflow' | 'file'>, gateName: string, fileKey: string): string {
  const base = path.basename(state.file).replace(/\.[^.]*$/, '');
  return template
    .replace(/\{workflow\}/g, safeSegment(state.workflow))
    .replace(/\{gate\}/g, safeSegment(gateName))
    .replace(/\{step\}/g, safeSegment(gateName))
    .replace(/\{name\}/g, safeSegment(base))
    .replace(/\{(?:path|file)\}/g, fileKey);
}

/**
 * Absolute path of a workflow's gate file: the configured template (`gates.path`, default
 * `.waymark/gates/{path}/{gate}.gate`: per workflow file) under the root, with `{path}` and
 * `{file}` (the workflow file's path relative to the root, without extension), `{name}` (its
 * base name), `{workflow}` (the workflow id), `{gate}` and `{step}` replaced by path-safe values.
 */
export function gateFilePath(ctx: Pick<WorkspaceContext, 'root' | 'config'>, state: Pick<WorkflowState, 'workflow' | 'file'>, gateName: string): string {
  const template = ctx.config.gates?.path || DEFAULT_GATE_PATH;
  return path.resolve(ctx.root, expandGatePath(template, state, gateName, pathKey(ctx.root, state.file)));
}

/**
 * Where the gate file was before gates were keyed by the file's path (`{file}` was its base
 * name, and the default template used it); undefined when that is the same place.
 */
export function legacyGateFilePath(ctx: Pick<WorkspaceContext, 'root' | 'config'>, state: Pick<WorkflowState, 'workflow' | 'file'>, gateName: string): string | undefined {
  const template = ctx.config.gates?.path || DEFAULT_GATE_PATH;
  const legacyTemplate = template === DEFAULT_GATE_PATH ? '.waymark/gates/{file}/{gate}.gate' : template;
  const legacy = path.resolve(ctx.root, expandGatePath(legacyTemplate, state, gateName, safeSegment(path.basename(state.file).replace(/\.[^.]*$/, ''))));
  return legacy === gateFilePath(ctx, state, gateName) ? undefined : legacy;
}

/** The glob of every gate file a template can name (`{…}` tokens as `*`, `{path}` as `**`). */
function gateGlobRegex(template: string): RegExp {
  let re = '';
  for (const part of template.split(/(\{[a-z]+\})/)) {
    if (part === '{path}' || part === '{file}') re += '.+';
    else if (/^\{[a-z]+\}$/.test(part)) re += '[^/]+';
    else re += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * True when `absPath` is (or would be) a gate file of the workspace at `root` under its
 * `gates.path` template, or at the location gates had before they were keyed by path. Paths are
 * compared by where they lie under the root, lexically: resolve links before asking.
 */
export function isGatePathIn(ctx: Pick<WorkspaceContext, 'root' | 'config'>, absPath: string): boolean {
  const rel = path.relative(ctx.root, path.resolve(absPath)).split(path.sep).join('/');
  if (!rel || rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return false;
  const template = path.posix.normalize(ctx.config.gates?.path || DEFAULT_GATE_PATH);
  if (gateGlobRegex(template).test(rel)) return true;
  return template === DEFAULT_GATE_PATH && gateGlobRegex('.waymark/gates/{file}/{gate}.gate').test(rel);
}

/** SHA-256 of a gate file's text as recorded in history (line endings normalised, so a checkout with CRLF still matches). */
export function gateTextHash(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n'), 'utf8').digest('hex');
}

export interface GateReadResult extends GateState {
  /** Set when the file exists but is not a valid gate file (then `open` is false). */
  error?: string;
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number') return String(v);
  return undefined;
}

function verdictOf(v: unknown): GateVerdict | undefined {
  if (typeof v !== 'string') return undefined;
  const up = v.trim().toUpperCase();
  return (GATE_VERDICTS as readonly string[]).includes(up) ? (up as GateVerdict) : undefined;
}

/** Parses gate file text. Empty text is a PASS. */
export function parseGateText(text: string, filePath: string, name: string, now: Date = new Date()): GateReadResult {
  const base: GateReadResult = { name, file: filePath, exists: true, history: [], open: false };
  if (text.trim() === '') return { ...base, verdict: 'PASS', open: true };
  let raw: unknown;
  try {
    raw = parseYaml(text, { maxAliasCount: 20, logLevel: 'error' });
  } catch (e) {
    return { ...base, error: `gate file is not valid YAML: ${(e as Error).message.split('\n')[0]}` };
  }
  if (raw === null || raw === undefined) return { ...base, verdict: 'PASS', open: true };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ...base, error: 'gate file must be a mapping with a `gate:` key' };
  const r = raw as Record<string, unknown>;
  const verdict = verdictOf(r.gate);
  if (!verdict) {
    return { ...base, error: `gate file needs 'gate: PASS|CONCERNS|FAIL|WAIVED' (found ${JSON.stringify(r.gate ?? null)})` };
  }
  const history: GateHistoryEntry[] = [];
  if (Array.isArray(r.history)) {
    for (const h of r.history) {
      if (!h || typeof h !== 'object') continue;
      const hv = verdictOf((h as Record<string, unknown>).gate);
      if (!hv) continue;
      const e: GateHistoryEntry = { gate: hv };
      const hr = h as Record<string, unknown>;
      if (str(hr.reviewer)) e.reviewer = str(hr.reviewer);
      if (str(hr.updated)) e.updated = str(hr.updated);
      if (str(hr.reason)) e.reason = str(hr.reason);
      history.push(e);
    }
  }
  let waiver: GateWaiver | undefined;
  if (r.waiver && typeof r.waiver === 'object') {
    const w = r.waiver as Record<string, unknown>;
    waiver = { reason: str(w.reason) ?? '', approved_by: str(w.approved_by) ?? '' };
    if (str(w.expires)) waiver.expires = str(w.expires);
  }
  let open = verdict === 'PASS' || verdict === 'CONCERNS';
  if (verdict === 'WAIVED') {
    const expired = waiver?.expires ? Date.parse(waiver.expires) <= now.getTime() : false;
    open = !!waiver && !!waiver.reason && !!waiver.approved_by && !expired;
  }
  const out: GateReadResult = { ...base, verdict, history, open };
  if (str(r.reviewer)) out.reviewer = str(r.reviewer);
  if (str(r.updated)) out.updated = str(r.updated);
  if (str(r.reason)) out.reason = str(r.reason);
  if (waiver) out.waiver = waiver;
  return out;
}

/** A gate file's text, or (missing, unreadable, not a file) its closed reading. */
function readGateFile(filePath: string, name: string): { text: string } | GateReadResult {
  try {
    const st = fs.statSync(filePath);
    if (!st.isFile()) return { name, file: filePath, exists: true, history: [], open: false, error: 'gate path is not a file' };
    if (st.size > 1024 * 1024) return { name, file: filePath, exists: true, history: [], open: false, error: 'gate file is larger than 1 MB' };
    return { text: fs.readFileSync(filePath, 'utf8') };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { name, file: filePath, exists: false, history: [], open: false };
    return { name, file: filePath, exists: true, history: [], open: false, error: `gate file unreadable: ${(e as Error).message}` };
  }
}

/**
 * Reads a gate file by the plain rule (`gates.trust: file`). Missing → `exists: false`, no
 * verdict, closed. Empty → PASS. Never throws: unreadable or invalid files come back closed
 * with `error` set. Workflow states read gates with gateOf, which applies the configured trust.
 */
export function readGate(filePath: string, name: string, now: Date = new Date()): GateReadResult {
  const r = readGateFile(filePath, name);
  return 'text' in r ? parseGateText(r.text, filePath, name, now) : r;
}

/** When Waymark began recording each verdict's gate file hash (and keying gate files by the workflow file's path). */
const HASHES_SINCE = Date.parse('2026-11-25T15:41:13Z');

/** How far a gate file's `updated` may lie from its history line's time (lines written before hashes were recorded). */
const LEGACY_TIME_SLACK_MS = 5000;

/**
 * Why a gate file's text is not the verdict Waymark recorded last for its gate (`last`: that
 * history line), or undefined when it is. Lines since hashes are recorded carry the SHA-256 of
 * the file Waymark wrote; older lines are matched by verdict, reviewer and time.
 */
export function unrecordedReason(text: string, g: GateReadResult, last: HistoryEntry | undefined, legacyFile = true): string | undefined {
  if (!last) return text.trim() === '' ? 'it is empty and no verdict for it is recorded in history' : 'no verdict for it is recorded in history';
  const d = last.detail ?? {};
  if (typeof d.gateSha256 === 'string') return d.gateSha256 === gateTextHash(text) ? undefined : 'its content is not the verdict recorded last in history (written or changed by hand)';
  // Waymark wrote lines without the hash only while gate files lived at the old location (keyed by
  // base name), before HASHES_SINCE: a line without it beside a file at the path-keyed location, or
  // dated since, was written by hand (a forged verdict arriving by a merge or pull, history line and all).
  if (!legacyFile || !(Date.parse(last.time) < HASHES_SINCE)) return 'its history line does not carry the gate file\'s hash, as every verdict Waymark records does (written by hand)';
  const by = (typeof d.by === 'string' && d.by.trim()) || last.actor;
  const t = g.updated ? Date.parse(g.updated) : NaN;
  const sameTime = Number.isFinite(t) && Math.abs(t - Date.parse(last.time)) <= LEGACY_TIME_SLACK_MS;
  if (g.verdict && last.operation === `gate-${g.verdict.toLowerCase()}` && (g.reviewer ?? '') === (by ?? '') && sameTime) return undefined;
  return 'it does not match the verdict recorded last in history (written or changed by hand)';
}

/**
 * A workflow's gate as it opens or not: read at its path (or, when nothing is there yet, where
 * gates were kept before they were keyed by the file's path), under the workspace's
 * `gates.trust`. With `recorded` (the default) a gate file opens its gate only when it is the
 * verdict last recorded through Waymark in the workflow's history; otherwise it is closed with
 * `recorded: false` and `unrecorded` saying why.
 */
export function gateOf(ctx: Pick<WorkspaceContext, 'root' | 'config'>, state: Pick<WorkflowState, 'workflow' | 'file'>, gateName: string, now: Date = new Date()): GateReadResult {
  const file = gateFilePath(ctx, state, gateName);
  let read = readGateFile(file, gateName);
  let at = file;
  if (!('text' in read) && !read.exists) {
    const legacy = legacyGateFilePath(ctx, state, gateName);
    const old = legacy ? readGateFile(legacy, gateName) : undefined;
    if (legacy && old && ('text' in old || old.exists)) {
      read = old;
      at = legacy;
    }
  }
  if (!('text' in read)) return read;
  const g = parseGateText(read.text, at, gateName, now);
  if ((ctx.config.gates?.trust ?? 'recorded') === 'file' || g.error) return g;
  const why = unrecordedReason(read.text, g, latestGateRecord(ctx.root, state.file, gateName, ctx.config.history?.dir), at !== file);
  if (!why) return { ...g, recorded: true };
  // `unrecorded` only when the file would have opened the gate: a hand-written FAIL closes it either way.
  return g.open ? { ...g, open: false, recorded: false, unrecorded: why } : { ...g, recorded: false };
}

/** Why a gated step's gate does not open, for refusals and problems (`g` closed or missing). */
export function closedGateWhy(g: GateState | undefined, gateName: string): string {
  if (!g || !g.exists) return `its gate ${gateName} has no verdict yet`;
  if (g.unrecorded !== undefined) return `its gate file ${gateName} was not recorded through Waymark (${g.unrecorded}), so it does not open the gate (gates.trust: recorded)`;
  return `its gate ${gateName} is ${g.verdict ?? 'unreadable'}${g.reason ? ` (${g.reason})` : ''}`;
}

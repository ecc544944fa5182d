import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { GATE_VERDICTS, type GateHistoryEntry, type GateState, type GateVerdict, type GateWaiver, type WorkflowState } from '../types';
import type { WorkspaceContext } from '../store/workspaceContext';

/** Default location of gate files, relative to the workspace root. */
export const DEFAULT_GATE_PATH = '.waymark/gates/{file}/{gate}.gate';

function safeSegment(s: string): string {
  const cleaned = s.replace(/[/\\:*?"<>|\0]/g, '_').replace(/^\.+/, '_');
  return cleaned || '_';
}

/**
 * Absolute path of a workflow's gate file: the configured template (`gates.path`, default
 * `.waymark/gates/{file}/{gate}.gate`: per workflow file) under the root, with `{file}` (the
 * workflow file's base name without extension), `{workflow}` (the workflow id), `{gate}` and
 * `{step}` replaced by path-safe values.
 */
export function gateFilePath(ctx: Pick<WorkspaceContext, 'root' | 'config'>, state: Pick<WorkflowState, 'workflow' | 'file'>, gateName: string): string {
  const template = ctx.config.gates?.path || DEFAULT_GATE_PATH;
  const base = path.basename(state.file).replace(/\.[^.]*$/, '');
  const rel = template
    .replace(/\{workflow\}/g, safeSegment(state.workflow))
    .replace(/\{gate\}/g, safeSegment(gateName))
    .replace(/\{step\}/g, safeSegment(gateName))
    .replace(/\{file\}/g, safeSegment(base));
  return path.resolve(ctx.root, rel);
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

/**
 * Reads a gate file. Missing → `exists: false`, no verdict, closed. Empty → PASS.
 * Never throws: unreadable or invalid files come back closed with `error` set.
 */
export function readGate(filePath: string, name: string, now: Date = new Date()): GateReadResult {
  let text: string;
  try {
    const st = fs.statSync(filePath);
    if (!st.isFile()) return { name, file: filePath, exists: true, history: [], open: false, error: 'gate path is not a file' };
    if (st.size > 1024 * 1024) return { name, file: filePath, exists: true, history: [], open: false, error: 'gate file is larger than 1 MB' };
    text = fs.readFileSync(filePath, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { name, file: filePath, exists: false, history: [], open: false };
    return { name, file: filePath, exists: true, history: [], open: false, error: `gate file unreadable: ${(e as Error).message}` };
  }
  return parseGateText(text, filePath, name, now);
}

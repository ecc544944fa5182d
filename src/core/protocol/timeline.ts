import * as path from 'node:path';
import type { HistoryEntry } from '../types';
import type { Clock, Logger } from '../ports';
import { systemClock, silentLogger } from '../ports';
import { WaymarkError } from '../errors';
import { withFileLock } from '../store/fileLock';
import { appendHistory, readHistoryDetailed } from '../store/history';
import { contextFor } from './states';
import type { ContextSource } from '../engine/contextCache';
import type { LeaseOwner } from './leases';

/** A run of consecutive history entries written under one session. */
export interface TimelineSession {
  session: string;
  /** Who wrote in this session, in order of first appearance. */
  actors: string[];
  start: string;
  end: string;
  /** True when the session has an explicit `session.start` / `session.end` marker. */
  startMarker: boolean;
  endMarker: boolean;
  entries: (HistoryEntry & { noChange?: boolean })[];
}

export const NO_SESSION = '(no session)';

/** Groups history entries by session, in time order; a session that comes back later opens a new group. */
export function buildTimeline(entries: HistoryEntry[]): TimelineSession[] {
  const out: TimelineSession[] = [];
  for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
    const s = e.session ?? NO_SESSION;
    let cur = out[out.length - 1];
    if (!cur || cur.session !== s || cur.endMarker || (e.operation === 'session.start' && cur.entries.length > 0)) {
      cur = { session: s, actors: [], start: e.time, end: e.time, startMarker: false, endMarker: false, entries: [] };
      out.push(cur);
    }
    if (e.operation === 'session.start') cur.startMarker = true;
    if (e.operation === 'session.end') cur.endMarker = true;
    if (e.actor && !cur.actors.includes(e.actor)) cur.actors.push(e.actor);
    cur.end = e.time;
    const noChange = e.hashBefore !== undefined && e.hashBefore === e.hashAfter;
    cur.entries.push(noChange ? { ...e, noChange } : e);
  }
  return out;
}

/** `--at` value: a sequence number or a date/time. */
export function parseAt(at: string): { seq: number } | { time: number } {
  if (/^\d+$/.test(at.trim())) return { seq: Number(at) };
  const t = Date.parse(at);
  if (!Number.isFinite(t)) throw new WaymarkError('usage', `--at '${at}' is neither a history sequence number nor a date/time (e.g. 2026-05-01T12:00:00Z).`);
  return { time: t };
}

export interface StateAt {
  /** The last entry at or before the point asked for. */
  entry?: HistoryEntry;
  /** State fields as they were (folded from the entries' `from`/`to`). */
  state: Record<string, unknown>;
  hash?: string;
  /** Entries folded. */
  count: number;
}

/**
 * The state as it was at a seq or a time (temporal versioning over the append-only history).
 * With `current` (the file's state fields now), the answer is the whole state: the current
 * fields with every later change undone, so keys no entry touched are shown too. External
 * edits are history entries (`external-edit`), so the walk back has no gaps.
 */
export function stateAt(entries: HistoryEntry[], at: { seq: number } | { time: number }, current?: Record<string, unknown>): StateAt {
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  const state: Record<string, unknown> = {};
  let last: HistoryEntry | undefined;
  let count = 0;
  const after: HistoryEntry[] = [];
  for (const e of sorted) {
    if ('seq' in at ? e.seq > at.seq : Date.parse(e.time) > at.time) {
      after.push(e);
      continue;
    }
    if (count === 0 && e.from) Object.assign(state, e.from);
    if (e.to) Object.assign(state, e.to);
    if (e.hashAfter !== undefined || e.to) last = e;
    else if (!last) last = e;
    count++;
  }
  if (current && count > 0) {
    // Start from now as history last knew it (a hand edit not yet recorded is left out), then undo.
    const whole: Record<string, unknown> = { ...current };
    for (const e of sorted) if (e.to) Object.assign(whole, e.to);
    for (const e of after.reverse()) if (e.from) Object.assign(whole, e.from);
    for (const [k, v] of Object.entries(whole)) if (v === null || v === undefined) delete whole[k];
    return { entry: last, state: whole, hash: last?.hashAfter, count };
  }
  return { entry: last, state, hash: last?.hashAfter, count };
}

/** Reads a workflow's history with the root's configured history folder. */
export async function historyOf(root: string, file: string, options: { contexts?: ContextSource } = {}): Promise<{ entries: HistoryEntry[]; badLines: number[]; historyFile: string }> {
  const ctx = await contextFor(root, options.contexts);
  return readHistoryDetailed(root, path.resolve(file), ctx.config.history.dir);
}

/**
 * Appends a protocol record (session start/end marker, lease take-over) to a workflow's
 * history, under the same file lock the core uses for its writes.
 */
export async function recordInHistory(
  root: string,
  file: string,
  operation: string,
  owner: Pick<LeaseOwner, 'agent' | 'session'>,
  detail: Record<string, unknown>,
  options: { clock?: Clock; logger?: Logger; contexts?: ContextSource } = {},
): Promise<HistoryEntry> {
  const ctx = await contextFor(root, options.contexts);
  const abs = path.resolve(file);
  const clock = options.clock ?? systemClock;
  return withFileLock(
    abs,
    () => {
      const r = appendHistory(root, { time: clock.now().toISOString(), session: owner.session, actor: owner.agent, operation, file: abs, detail }, ctx.config.history.dir);
      if (r.repaired) (options.logger ?? silentLogger).warn(`[protocol] ${r.repaired}`);
      return r.entry;
    },
    { root, purpose: `waymark ${operation}` },
  );
}

/** A timeline as text: one block per session, one line per entry. */
export function formatTimeline(sessions: TimelineSession[]): string {
  const lines: string[] = [];
  for (const s of sessions) {
    const marks = `${s.startMarker ? '' : ' (no start marker)'}${s.endMarker ? '' : s === sessions[sessions.length - 1] ? ' (open)' : ' (no end marker)'}`;
    lines.push(`session ${s.session}  ${s.start} .. ${s.end}  by ${s.actors.join(', ') || 'unknown'}${marks}`);
    for (const e of s.entries) {
      const change = describeChange(e);
      lines.push(`  #${e.seq} ${e.time} ${e.actor ?? '?'} ${e.operation}${change ? ` ${change}` : ''}${e.noChange ? ' (no state change)' : ''}`);
    }
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

function describeChange(e: HistoryEntry): string {
  const parts: string[] = [];
  const from = e.from ?? {};
  const to = e.to ?? {};
  for (const k of Object.keys(to)) {
    const a = JSON.stringify(from[k]);
    const b = JSON.stringify(to[k]);
    if (a !== b) parts.push(`${k}: ${a ?? '-'} -> ${b}`);
  }
  const d = e.detail ?? {};
  for (const k of ['reason', 'step', 'checkpoint', 'lease', 'previous']) if (d[k] !== undefined) parts.push(`${k}=${typeof d[k] === 'string' ? d[k] : JSON.stringify(d[k])}`);
  return parts.join('; ');
}

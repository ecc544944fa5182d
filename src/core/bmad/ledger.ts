/**
 * BMAD's sprint ledger, `sprint-status.yaml`, read with the grammar of BMAD's own sprint
 * planner: keys `epic-N`, `N-M[a-z]?-slug` (split stories), `epic-N-retrospective`; the status
 * orders per kind; legacy words (`drafted`, `contexted`) mapped on read and reported; timestamps
 * in several formats. Every entry keeps its exact line and value span, so problems point at it
 * and a status change rewrites that value and nothing else.
 */
import { parseDocument } from 'yaml';
import type { Problem, Range } from '../types';

export type LedgerKind = 'epic' | 'story' | 'retro';

export const STORY_STATUSES = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'] as const;
export const EPIC_STATUSES = ['backlog', 'in-progress', 'done'] as const;
export const RETRO_STATUSES = ['optional', 'done'] as const;
export const ACTION_STATUSES = ['open', 'in-progress', 'done'] as const;
export type StoryStatus = (typeof STORY_STATUSES)[number];

/** Statuses allowed for each kind, in order (the rank is the index). */
export const LEDGER_ORDER: Record<LedgerKind, readonly string[]> = { story: STORY_STATUSES, epic: EPIC_STATUSES, retro: RETRO_STATUSES };

/** Older words BMAD itself wrote, mapped to today's meaning (never reset, never an error). */
export const LEGACY_STATUS: Record<string, Record<string, string>> = {
  story: { drafted: 'ready-for-dev', contexted: 'in-progress' },
  epic: { contexted: 'in-progress', drafted: 'backlog' },
  retro: { completed: 'done' },
};

const EPIC_KEY = /^epic-(\d+)$/;
const RETRO_KEY = /^epic-(\d+)-retrospective$/;
const STORY_KEY = /^(\d+)-(\d+)([a-z]?)-(.+)$/;

/** Kind and numbers of a ledger key, or undefined for a key BMAD does not know. */
export function classifyLedgerKey(key: string): { kind: LedgerKind; epic: number; story?: string } | undefined {
  let m = RETRO_KEY.exec(key);
  if (m) return { kind: 'retro', epic: Number(m[1]) };
  m = EPIC_KEY.exec(key);
  if (m) return { kind: 'epic', epic: Number(m[1]) };
  m = STORY_KEY.exec(key);
  if (m) return { kind: 'story', epic: Number(m[1]), story: `${Number(m[2])}${m[3]}` };
  return undefined;
}

/** Sort key of a story id `6a` → [6, 'a']. */
export function storyOrder(a: { epic: number; story?: string }, b: { epic: number; story?: string }): number {
  const pa = /^(\d+)([a-z]?)$/.exec(a.story ?? '') ?? ['', '0', ''];
  const pb = /^(\d+)([a-z]?)$/.exec(b.story ?? '') ?? ['', '0', ''];
  return a.epic - b.epic || Number(pa[1]) - Number(pb[1]) || pa[2].localeCompare(pb[2]);
}

export interface LedgerEntry {
  key: string;
  kind: LedgerKind | 'unknown';
  epic: number;
  /** `2`, `6a` for stories. */
  story?: string;
  /** The status as written. */
  raw: string;
  /** After the legacy mapping. */
  status: string;
  legacy: boolean;
  /** True when `status` is in the kind's vocabulary. */
  valid: boolean;
  /** 0-based line, and the value's character span on it. */
  line: number;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

export interface LedgerStamp {
  key: 'last_updated' | 'generated';
  raw: string;
  date?: Date;
  /** The format the stamp is written in, to write a new one the same way. */
  format?: StampFormat;
  line: number;
  valueStart: number;
  valueEnd: number;
  /** Quote character around the value, if any. */
  quote: string;
}

export type StampFormat = 'MM-DD-YYYY HH:MM' | 'YYYY-MM-DD HH:MM' | 'YYYY-MM-DD' | 'ISO' | 'MM-DD-YYYY';

export interface ActionItem {
  epic?: string;
  action?: string;
  owner?: string;
  status?: string;
  line: number;
}

export interface Ledger {
  file: string;
  entries: LedgerEntry[];
  byKey: Map<string, LedgerEntry>;
  lastUpdated?: LedgerStamp;
  generated?: LedgerStamp;
  project?: string;
  storyLocation?: string;
  actionItems: ActionItem[];
  /** 0-based line of `development_status:`, or -1. */
  statusLine: number;
  /** Line ending the file uses. */
  eol: '\n' | '\r\n';
  problems: Problem[];
}

function range(line: number, start: number, end: number): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

const STAMP_PATTERNS: { re: RegExp; format: StampFormat; build: (m: RegExpExecArray) => Date }[] = [
  { re: /^(\d{2})-(\d{2})-(\d{4}) (\d{1,2}):(\d{2})$/, format: 'MM-DD-YYYY HH:MM', build: (m) => new Date(Date.UTC(+m[3], +m[1] - 1, +m[2], +m[4], +m[5])) },
  { re: /^(\d{2})-(\d{2})-(\d{4})$/, format: 'MM-DD-YYYY', build: (m) => new Date(Date.UTC(+m[3], +m[1] - 1, +m[2])) },
  { re: /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2})(?::\d{2})?$/, format: 'YYYY-MM-DD HH:MM', build: (m) => new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5])) },
  { re: /^(\d{4})-(\d{2})-(\d{2})$/, format: 'YYYY-MM-DD', build: (m) => new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])) },
  { re: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/, format: 'ISO', build: (m) => new Date(m[0].length === 16 ? `${m[0]}Z` : m[0]) },
];

/** Reads a ledger timestamp in any of the formats BMAD and people write. */
export function parseStamp(raw: string): { date: Date; format: StampFormat } | undefined {
  const s = raw.trim();
  for (const p of STAMP_PATTERNS) {
    const m = p.re.exec(s);
    if (m) {
      const d = p.build(m);
      if (!Number.isNaN(d.getTime())) return { date: d, format: p.format };
    }
  }
  return undefined;
}

/** A new timestamp in the given format (UTC). */
export function formatStamp(d: Date, format: StampFormat): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const Y = d.getUTCFullYear();
  const M = p(d.getUTCMonth() + 1);
  const D = p(d.getUTCDate());
  const hm = `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
  switch (format) {
    case 'MM-DD-YYYY HH:MM': return `${M}-${D}-${Y} ${hm}`;
    case 'MM-DD-YYYY': return `${M}-${D}-${Y}`;
    case 'YYYY-MM-DD HH:MM': return `${Y}-${M}-${D} ${hm}`;
    case 'YYYY-MM-DD': return `${Y}-${M}-${D}`;
    case 'ISO': return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
}

/** `key: value  # comment` on one line: the value's span without quotes or comment. */
const LINE_KV = /^(\s*)(["']?)([^"'#:\s][^"'#:]*?)\2\s*:(?:[ \t]+|$)(.*)$/;

function valueSpan(line: string, rest: string): { raw: string; start: number; end: number; quote: string } {
  const restStart = line.length - rest.length;
  let body = rest;
  let quote = '';
  let start = restStart;
  if (body.startsWith('"') || body.startsWith("'")) {
    quote = body[0];
    const close = body.indexOf(quote, 1);
    const inner = close > 0 ? body.slice(1, close) : body.slice(1);
    return { raw: inner, start: start + 1, end: start + 1 + inner.length, quote };
  }
  const hash = body.search(/\s#/);
  if (hash >= 0) body = body.slice(0, hash);
  body = body.replace(/\s+$/, '');
  if (body.startsWith('#')) body = '';
  start = restStart;
  return { raw: body, start, end: start + body.length, quote };
}

/**
 * Parses the text of a `sprint-status.yaml`. Never throws: a file that is not YAML gets one
 * error at the parser's line; unknown keys, unknown words and bad stamps are warnings.
 */
export function parseLedger(file: string, text: string): Ledger {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const ledger: Ledger = { file, entries: [], byKey: new Map(), actionItems: [], statusLine: -1, eol, problems: [] };
  let section: 'top' | 'dev' | 'actions' | 'other' = 'top';
  // The ledger is plain `key: value` lines; the full YAML parser (slow on 1,000 keys) runs only
  // when a line uses anything else (flow collections, anchors, tags, block scalars, tabs, odd quotes).
  let suspicious = false;
  let current: ActionItem | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim() || /^\s*#/.test(line)) continue;
    if (!suspicious && looksUnusual(line)) suspicious = true;
    const indent = /^\s*/.exec(line)![0].length;
    if (indent > 0 && (section === 'top' || section === 'other')) suspicious = true;
    if (indent === 0) {
      current = undefined;
      const m = LINE_KV.exec(line);
      if (!m) {
        section = 'other';
        suspicious = true;
        continue;
      }
      const key = m[3].trim();
      const v = valueSpan(line, m[4]);
      if (key === 'development_status') {
        section = 'dev';
        ledger.statusLine = i;
        continue;
      }
      if (key === 'action_items') {
        section = 'actions';
        continue;
      }
      section = 'top';
      if (key === 'last_updated' || key === 'generated') {
        const parsed = v.raw ? parseStamp(v.raw) : undefined;
        const stamp: LedgerStamp = { key, raw: v.raw, date: parsed?.date, format: parsed?.format, line: i, valueStart: v.start, valueEnd: v.end, quote: v.quote };
        if (key === 'last_updated') ledger.lastUpdated = stamp;
        else ledger.generated = stamp;
        if (v.raw && !parsed) {
          ledger.problems.push({ file, range: range(i, v.start, v.end), severity: 'warning', code: 'ledger-timestamp', message: `${key} '${v.raw}' is not a date Waymark reads (MM-DD-YYYY HH:MM, YYYY-MM-DD HH:MM, YYYY-MM-DD or ISO); the staleness check is skipped.` });
        }
      } else if (key === 'project') ledger.project = v.raw;
      else if (key === 'story_location') ledger.storyLocation = v.raw;
      continue;
    }
    if (section === 'dev') {
      const m = LINE_KV.exec(line);
      if (!m) continue;
      const key = m[3].trim();
      const v = valueSpan(line, m[4]);
      const keyStart = m[1].length + m[2].length;
      const c = classifyLedgerKey(key);
      const raw = v.raw;
      const kind = c?.kind ?? 'unknown';
      const lower = raw.toLowerCase();
      // `in progress`, `In_Progress`, `Done`: the same word written differently.
      const spelled = lower.trim().replace(/[\s_]+/g, '-');
      const mapped = c ? LEGACY_STATUS[c.kind][spelled] ?? (spelled !== raw && LEDGER_ORDER[c.kind].includes(spelled) ? spelled : undefined) : undefined;
      const status = mapped ?? lower;
      const valid = c ? LEDGER_ORDER[c.kind].includes(status) : false;
      const entry: LedgerEntry = { key, kind, epic: c?.epic ?? -1, story: c?.story, raw, status, legacy: mapped !== undefined, valid, line: i, keyStart, valueStart: v.start, valueEnd: v.end };
      const dup = ledger.byKey.get(key);
      if (dup) {
        ledger.problems.push({ file, range: range(i, keyStart, keyStart + key.length), severity: 'error', code: 'ledger-duplicate-key', message: `'${key}' is listed twice (first at line ${dup.line + 1}); YAML keeps only one. Remove one of them.` });
        continue;
      }
      ledger.entries.push(entry);
      ledger.byKey.set(key, entry);
      continue;
    }
    if (section === 'actions') {
      const item = /^\s*-\s+(.*)$/.exec(line);
      const body = item ? item[1] : line.trim();
      if (item) {
        current = { line: i };
        ledger.actionItems.push(current);
      }
      const kv = /^["']?([A-Za-z_]+)["']?\s*:\s*(.*)$/.exec(body);
      if (current && kv) {
        const val = kv[2].replace(/\s+#.*$/, '').trim().replace(/^["']|["']$/g, '');
        const k = kv[1] as keyof ActionItem;
        if (k === 'epic' || k === 'action' || k === 'owner' || k === 'status') current[k] = val;
      }
    }
  }
  if (suspicious) {
    const err = parseDocument(text, { schema: 'core', uniqueKeys: false, logLevel: 'error' }).errors[0];
    if (err) {
      const line = Math.min(Math.max(0, (err.linePos?.[0]?.line ?? 1) - 1), Math.max(0, lines.length - 1));
      ledger.problems.push({ file, range: range(line, 0, lines[line]?.length ?? 0), severity: 'error', code: 'ledger-yaml', message: `sprint-status.yaml is not valid YAML at line ${line + 1} (${err.message.split('\n')[0].replace(/[\s:.]+$/, '')}). Fix it; the ledger is read line by line until then.` });
    }
  }
  return ledger;
}

/** True when a line is more than `key: value`, `- key: value` or a comment. */
function looksUnusual(line: string): boolean {
  const body = line.replace(/\s+#.*$/, '');
  if (/^\s*\t/.test(line) || /[[\]{}&*!|>%@`]/.test(body.replace(/^\s*-\s/, ''))) return true;
  const dq = (body.match(/"/g) ?? []).length;
  const sq = (body.match(/'/g) ?? []).length;
  return dq % 2 === 1 || (sq % 2 === 1 && !/^[^']*\w'\w/.test(body));
}

/** Rank of a status within its kind (-1 when outside the vocabulary). */
export function ledgerRank(kind: LedgerKind, status: string): number {
  return LEDGER_ORDER[kind].indexOf(status);
}

/**
 * The ledger text with one entry's value replaced, and `last_updated` refreshed in its own
 * format when the file has one. Every other byte stays as it was.
 */
export function rewriteLedgerStatus(text: string, ledger: Ledger, key: string, status: string, now: Date): string {
  const entry = ledger.byKey.get(key);
  if (!entry) throw new Error(`no ledger entry '${key}'`);
  const edits: { line: number; start: number; end: number; value: string }[] = [{ line: entry.line, start: entry.valueStart, end: entry.valueEnd, value: status }];
  const st = ledger.lastUpdated;
  if (st && st.format) edits.push({ line: st.line, start: st.valueStart, end: st.valueEnd, value: formatStamp(now, st.format) });
  return applyLineEdits(text, edits);
}

/** Applies same-line span edits by line offsets (lines split on LF; a CR stays at its line's end). */
export function applyLineEdits(text: string, edits: { line: number; start: number; end: number; value: string }[]): string {
  const starts: number[] = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const abs = edits.map((e) => ({ from: starts[e.line] + e.start, to: starts[e.line] + e.end, value: e.value })).sort((a, b) => b.from - a.from);
  let out = text;
  for (const e of abs) out = out.slice(0, e.from) + e.value + out.slice(e.to);
  return out;
}

/**
 * Checks a v6 → v7 migration: `archive-v6/`'s ledger and story files against the tree, by BMAD's
 * own mapping (v6-v7-migration.toml: backlog → no plan; drafted/contexted/ready-for-dev →
 * ready-for-dev; in-progress; review/in-review → in-review; done; blocked; anything else is a
 * question, never written as is; the more advanced of story file and ledger wins).
 */
import * as path from 'node:path';
import type { Problem, ProblemCode } from '../../types';
import { PROBLEMS } from '../../model/problems';
import { recordingList, recordingProbe, recordingRead } from '../sprintCache';

// File system reads go through sprintCache's recorders: a stored answer built on this check knows its inputs.
const readTextIfRegular = recordingRead;
const isRegularFile = (p: string) => recordingProbe(p, 'f');
import { parseLedger } from '../ledger';
import { parseStory, storyKeyFromName } from '../story';
import { readTicketTree, normId } from './reader';
import { isTable, parseToml } from './toml';
import type { PlanStatus, SourcePos, Ticket, TicketTree } from './types';
import { quoted } from '../../model/text';

export type MigrationFindingKind =
  | 'status-mismatch'
  | 'ledger-story-missing'
  | 'plan-names-nothing'
  | 'unmapped-status-copied'
  | 'unmapped-status'
  | 'count-mismatch';

export interface MigrationFinding {
  kind: MigrationFindingKind;
  /** The v6 story key (`1-2-some-slug`), when the finding is about one. */
  storyKey?: string;
  /** The v7 ticket ref, when one was matched. */
  ref?: string;
  /** What the archive says after BMAD's mapping (undefined: no plan; null: a question). */
  expected?: PlanStatus | null;
  /** What the tree says ('' when no plan). */
  actual?: string;
  message: string;
}

export interface MigrationReport {
  root: string;
  /** `archive-v6/`, absolute. */
  archive?: string;
  /** The ledger read from the archive, absolute. */
  ledger?: string;
  /** Stories in the archive, tickets in the tree. */
  counts: { ledgerStories: number; storyFiles: number; tickets: number; matched: number };
  findings: MigrationFinding[];
  problems: Problem[];
}

const MAPPING: Record<string, PlanStatus | undefined> = {
  backlog: undefined,
  drafted: 'ready-for-dev',
  contexted: 'ready-for-dev',
  'ready-for-dev': 'ready-for-dev',
  'in-progress': 'in-progress',
  review: 'in-review',
  'in-review': 'in-review',
  done: 'done',
  blocked: 'blocked',
};

/** How far along a v6 status is, for "the more advanced wins"; -1 when BMAD does not map it. */
const RANK: Record<string, number> = { backlog: 0, drafted: 1, contexted: 1, 'ready-for-dev': 1, 'in-progress': 2, blocked: 2, review: 3, 'in-review': 3, done: 4 };

/** How far along a v7 status is, to tell a ticket that moved on since the migration from one that lost progress. */
const V7_RANK: Record<string, number> = { '': 0, draft: 0, 'ready-for-dev': 1, 'in-progress': 2, blocked: 2, 'in-review': 3, built: 3, done: 4 };

/** The v7 status BMAD's migration writes for a v6 status: undefined = no plan, null = a question. */
export function mapV6Status(v6: string): PlanStatus | undefined | null {
  const k = v6.trim().toLowerCase();
  return Object.prototype.hasOwnProperty.call(MAPPING, k) ? MAPPING[k] : null;
}

function rank(s: string | undefined): number {
  return s === undefined ? -2 : RANK[s.trim().toLowerCase()] ?? -1;
}

function at(file: string, line: number): SourcePos {
  return { file, line, character: 0 };
}

function prob(code: ProblemCode, where: SourcePos, message: string, data?: Record<string, unknown>): Problem {
  return { file: where.file, range: { start: { line: where.line, character: 0 }, end: { line: where.line, character: Number.MAX_SAFE_INTEGER } }, severity: PROBLEMS[code].severity, code, message, ...(data ? { data } : {}) };
}

/** `v6_key` of each entry, by epic slug and entry id. */
function v6Keys(tree: TicketTree): Map<string, Ticket> {
  const out = new Map<string, Ticket>();
  for (const e of tree.epics) {
    const text = readTextIfRegular(path.join(e.folder, 'tickets.toml'), 4 * 1024 * 1024);
    if (text === undefined) continue;
    let entries: unknown;
    try {
      entries = parseToml(text).data.entry;
    } catch {
      continue;
    }
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!isTable(entry) || typeof entry.v6_key !== 'string') continue;
      const id = normId(entry.id);
      const t = tree.tickets.find((x) => x.epic === e.slug && x.id === id);
      if (t) out.set(entry.v6_key.toLowerCase(), t);
    }
  }
  return out;
}

/** Story files kept in the archive (`<epic>-<story>-<slug>.md`), by ledger key. */
function archivedStoryFiles(dir: string, depth = 2): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, left: number) => {
    for (const e of recordingList(d)) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && left > 0) walk(p, left - 1);
      else if (e.isFile() && e.name.endsWith('.md')) {
        const k = storyKeyFromName(e.name.replace(/^spec-/, ''));
        if (k) out.set(k.key.toLowerCase(), p);
      }
    }
  };
  walk(dir, depth);
  return out;
}

/** The v6 `Status:` a migrated plan kept in its body (the build record's own line), when any. */
function bodyStatus(file: string | undefined): string | undefined {
  if (!file) return undefined;
  const text = readTextIfRegular(file, 4 * 1024 * 1024);
  if (text === undefined) return undefined;
  const s = parseStory(file, text);
  return s.statusForm === 'line' || s.statusForm === 'section' ? s.status : undefined;
}

/** Compares `archive-v6/` with the tree; undefined when the project has no archive. */
export function migrateCheck(root: string, options: { folder?: string; installDir?: string; tree?: TicketTree } = {}): MigrationReport | undefined {
  const tree = options.tree ?? readTicketTree(root, options);
  if (!tree?.archiveV6) return undefined;
  const archive = tree.archiveV6;
  const report: MigrationReport = { root: tree.root, archive, counts: { ledgerStories: 0, storyFiles: 0, tickets: tree.tickets.length, matched: 0 }, findings: [], problems: [] };
  const add = (f: MigrationFinding, code: ProblemCode, where: SourcePos, data?: Record<string, unknown>) => {
    report.findings.push(f);
    report.problems.push(prob(code, where, f.message, { kind: f.kind, ...(f.storyKey ? { storyKey: f.storyKey } : {}), ...(f.ref ? { ref: f.ref } : {}), ...(f.expected !== undefined ? { expected: f.expected } : {}), ...data }));
  };
  const ledgerFile = ['sprint-status.yaml', 'sprint-status.yml'].map((n) => path.join(archive, n)).find((f) => isRegularFile(f));
  const stories = archivedStoryFiles(archive);
  report.counts.storyFiles = stories.size;
  // Plans whose ticket names nothing.
  for (const p of tree.problems) {
    if (p.code === 'tree-plan-ticket') add({ kind: 'plan-names-nothing', message: p.message }, 'migrate-story-missing', at(p.file, p.range.start.line));
  }
  if (!ledgerFile) return report;
  report.ledger = ledgerFile;
  const ledger = parseLedger(ledgerFile, readTextIfRegular(ledgerFile, 8 * 1024 * 1024) ?? '');
  const byV6 = v6Keys(tree);
  const slugOf = new Map(tree.epics.filter((e) => e.id !== undefined).map((e) => [e.id, e.slug]));
  const unknownPlanStatus = new Map(tree.problems.filter((p) => p.code === 'tree-plan-status').map((p) => [p.file, String(p.data?.value ?? '')]));
  for (const entry of ledger.entries) {
    if (entry.kind !== 'story') continue;
    report.counts.ledgerStories++;
    const key = entry.key.toLowerCase();
    const where = at(ledgerFile, entry.keyLine);
    const slug = slugOf.get(normId(entry.epicId) ?? -1);
    const ticket = byV6.get(key) ?? tree.tickets.find((t) => slug !== undefined && t.epic === slug && entry.story !== undefined && t.id === normId(entry.story));
    if (!ticket) {
      add({ kind: 'ledger-story-missing', storyKey: entry.key, message: `${entry.key} (${entry.raw || 'no status'} in the archived ledger) has no entry in the tree${slug ? ` (${slug} has no id ${entry.story ?? '?'} and no v6_key "${entry.key}")` : ' (no epic of the initiative has its epic id)'}. Add its [[entry]] with v6_key = "${entry.key}".` }, 'migrate-story-missing', where);
      continue;
    }
    report.counts.matched++;
    const ledgerRaw = entry.raw;
    const fileRaw = bodyStatus(stories.get(key)) ?? bodyStatus(ticket.plan);
    // The more advanced of story file and ledger wins; an unmapped word is a question.
    const winner = rank(fileRaw) > rank(ledgerRaw) ? fileRaw ?? ledgerRaw : ledgerRaw;
    const questions = [ledgerRaw, fileRaw].filter((s): s is string => s !== undefined && s !== '' && mapV6Status(s) === null);
    const copied = ticket.plan ? unknownPlanStatus.get(ticket.plan) : undefined;
    const planAt = ticket.statusPos ?? ticket.entryPos ?? where;
    if (copied !== undefined && questions.some((q) => q === copied)) {
      add({ kind: 'unmapped-status-copied', storyKey: entry.key, ref: ticket.ref, actual: copied, expected: null, message: `${ticket.ref}'s plan copies the v6 status ${quoted(copied)} as is; BMAD's mapping never writes it: ask which v7 status it is (draft, ready-for-dev, in-progress, in-review, done, blocked, dropped) and write that.` }, 'migrate-unmapped-status', planAt);
      continue;
    }
    if (questions.length && rank(winner) < 0) {
      add({ kind: 'unmapped-status', storyKey: entry.key, ref: ticket.ref, expected: null, actual: ticket.status, message: `${entry.key} has the v6 status ${quoted(questions[0])}, which BMAD's mapping leaves as a question; the tree says ${quoted(ticket.status || 'no plan')}. Confirm it with the user.` }, 'migrate-unmapped-status', where);
      continue;
    }
    const expected = mapV6Status(winner);
    const actual = ticket.status;
    // Work goes on after a migration: a ticket ahead of its archived status, or dropped since, is not a mismatch.
    const ok = actual === 'dropped' || (V7_RANK[actual] ?? -1) >= (expected == null ? 0 : V7_RANK[expected]);
    if (!ok) {
      const source = winner === ledgerRaw ? `the archived ledger's ${quoted(ledgerRaw)}` : `the story file's ${quoted(fileRaw ?? '')} (ahead of the ledger's ${quoted(ledgerRaw)})`;
      add({ kind: 'status-mismatch', storyKey: entry.key, ref: ticket.ref, expected: expected ?? undefined, actual, message: `${ticket.ref} (${entry.key}) is ${quoted(actual || 'no plan')} in the tree; ${source} maps to ${quoted(expected ?? 'no plan (or a draft plan)')}.` }, 'migrate-status-mismatch', planAt, { value: expected ?? null });
    }
  }
  // Entries with a v6_key the ledger does not list are build records that had no ledger line (BMAD flags them in its plan).
  if (report.counts.ledgerStories !== report.counts.matched) {
    add({ kind: 'count-mismatch', message: `The archived ledger lists ${report.counts.ledgerStories} stories; ${report.counts.matched} match an entry of the tree. Every v6 story is one entry.` }, 'migrate-count', at(ledgerFile, Math.max(0, ledger.statusLine)));
  }
  return report;
}

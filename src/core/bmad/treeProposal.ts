/**
 * Proposed edits of BMAD v7's ticket tree by hand or by an agent (agent hooks, protocol/proposal.ts):
 * a plan's `status` judged by the rules `waymark story set-status` follows (planStatus.ts), and a
 * `tickets.toml` judged for what BMAD's `tickets.py` would refuse (TOML, ids, types, an unknown
 * sibling `after`) and for what loses work (an entry with a plan or a file removed, `next_id`
 * going down so ids get reused, a `status` written into an entry, where BMAD never reads it).
 * Every refusal names the `waymark story set-status` command that does it right.
 */
import * as path from 'node:path';
import type { ProposalProblem } from '../model/proposal';
import { openTaskCount } from '../model/bmadProposal';
import { readLeafFrontmatter, type FmValue } from './tree/frontmatter';
import { normId, readTicketTree } from './tree/reader';
import { parseToml, TomlError, isTable, type TomlDoc, type TomlTable } from './tree/toml';
import { LEAF_TYPES, type Ticket, type TicketTree } from './tree/types';
import { judgePlanStatusMove } from './planStatus';

export type TreeFileKind = 'ticket-plan' | 'tickets';

export interface TreeEditVerdict {
  kind: TreeFileKind;
  problems: ProposalProblem[];
  changesState: boolean;
}

const PLAN_FIELDS = ['ticket', 'status', 'assignee', 'blocked_at', 'blocked_reason'];

/** True for a `tickets.toml` (an initiative's or an epic's breakdown). */
export function isTicketsToml(file: string): boolean {
  return path.basename(file) === 'tickets.toml';
}

/** The frontmatter of a plan (a `.md` with `ticket` whose `type` is not a leaf type), else undefined. */
function planData(file: string, text: string | undefined): Record<string, FmValue> | undefined {
  if (text === undefined || !/\.md$/i.test(file)) return undefined;
  const t = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n');
  if (!t.startsWith('---')) return undefined;
  const d = readLeafFrontmatter(t, true).data;
  return 'ticket' in d && !(LEAF_TYPES as readonly string[]).includes(String(d.type)) ? d : undefined;
}

/** True when the text is a v7 plan's (cheap enough for every Markdown edit). */
export function isPlanText(file: string, text: string | undefined): boolean {
  return planData(file, text) !== undefined;
}

/** The initiative folder a tree file sits in: an epic's parent, the initiative itself; else undefined. */
function initiativeOf(file: string): string | undefined {
  const dir = path.dirname(file);
  const name = path.basename(dir);
  if (name.startsWith('initiative-')) return dir;
  if (name.startsWith('epic-') && path.basename(path.dirname(dir)).startsWith('initiative-')) return path.dirname(dir);
  return undefined;
}

function treeFor(root: string, file: string): TicketTree | undefined {
  const initiative = initiativeOf(file);
  try {
    return readTicketTree(root, initiative ? { folder: initiative } : {});
  } catch {
    return undefined;
  }
}

const str = (v: FmValue | undefined): string => (v === undefined ? '' : Array.isArray(v) ? v.join(', ') : String(v));

/**
 * Judges a proposed text of `file` (undefined: deleted) when it is a v7 plan or a `tickets.toml`;
 * undefined when it is neither.
 */
export function judgeTreeEdit(root: string, file: string, beforeText: string | undefined, afterText: string | undefined): TreeEditVerdict | undefined {
  if (isTicketsToml(file)) {
    // Only a tree's own: an initiative's or an epic's (another project's tickets.toml is text).
    if (!initiativeOf(file)) return undefined;
    return { kind: 'tickets', ...judgeTickets(root, file, beforeText, afterText) };
  }
  const before = planData(file, beforeText);
  const after = planData(file, afterText);
  if (!before && !after) return undefined;
  return { kind: 'ticket-plan', ...judgePlan(root, file, before, after, afterText) };
}

function judgePlan(root: string, file: string, before: Record<string, FmValue> | undefined, after: Record<string, FmValue> | undefined, afterText: string | undefined): { problems: ProposalProblem[]; changesState: boolean } {
  const changesState = PLAN_FIELDS.some((k) => str(before?.[k]) !== str(after?.[k]));
  if (!changesState) return { problems: [], changesState };
  const tree = treeFor(root, file);
  const folder = path.basename(path.dirname(file));
  const joined = (d: Record<string, FmValue>): Ticket | undefined => {
    const mine = tree?.tickets.filter((t) => path.dirname(t.planPath) === path.dirname(file));
    const id = normId(d.ticket);
    return mine?.find((t) => (id !== null && t.id === id) || (typeof d.ticket === 'string' && t.file !== undefined && path.basename(t.file) === `${d.ticket}.md`));
  };
  const ticket = (before && joined(before)) ?? (after && joined(after));
  const ref = ticket?.ref ?? str((after ?? before)!.ticket);
  const set = (s: string) => `waymark story set-status ${ref} ${s}`;
  const problems: ProposalProblem[] = [];
  const was = str(before?.status);
  if (!after) {
    problems.push(afterText === undefined
      ? { severity: 'error', code: 'state-removed', message: `deleting the plan of ticket ${ref} erases its status${was ? ` (${was})` : ''}`, fix: `keep the plan; to give the ticket up: ${set('dropped')}` }
      : { severity: 'error', code: 'state-removed', message: `the edit removes the ticket key of ticket ${ref}'s plan; the plan no longer joins its ticket`, fix: `keep ticket: ${str(before?.ticket)}; change the status with ${set('STATUS')}` });
    return { problems, changesState };
  }
  if (before && str(before.ticket) !== str(after.ticket)) {
    problems.push({ severity: 'error', code: 'state-removed', message: `the edit moves this plan from ticket ${str(before.ticket)} to ${str(after.ticket)}; ticket ${ref} loses its status`, fix: `keep ticket: ${str(before.ticket)}; a plan joins its ticket for good` });
  }
  if (!before && ticket?.plan && ticket.plan !== file) {
    problems.push({ severity: 'error', code: 'plan-duplicate', message: `ticket ${ref} already has a plan (${path.basename(ticket.plan)}); tickets.py refuses two plans for one ticket`, fix: `write its status there: ${set(str(after.status) || 'STATUS')}` });
  }
  if (tree && !ticket) {
    problems.push({ severity: 'warning', code: 'plan-ticket-unknown', message: `ticket ${str(after.ticket)} names no entry or leaf file in ${folder}; tickets.py skips this plan` });
  }
  const from = before ? was : ticket?.status ?? '';
  const to = str(after.status);
  if (was && !to) {
    problems.push({ severity: 'error', code: 'state-removed', message: `the edit removes the status of ticket ${ref} (${was})`, fix: `keep status: ${was}; change it with ${set('STATUS')}` });
  } else if (to) {
    problems.push(...judgePlanStatusMove(from, to, ref, afterText !== undefined ? openTaskCount(afterText) : 0));
  }
  if (to === 'blocked' && !str(after.blocked_reason)) {
    problems.push({ severity: 'warning', code: 'blocked-without-reason', message: `ticket ${ref} is blocked without a blocked_reason`, fix: `say what is in the way: ${set('blocked')} --blocked "REASON"` });
  }
  return { problems, changesState };
}

interface Rows {
  doc?: TomlDoc;
  error?: TomlError;
  entries: TomlTable[];
  epics: TomlTable[];
  nextId?: number;
}

function rowsOf(text: string | undefined): Rows {
  if (text === undefined) return { entries: [], epics: [] };
  let doc: TomlDoc;
  try {
    doc = parseToml(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    if (e instanceof TomlError) return { error: e, entries: [], epics: [] };
    throw e;
  }
  const tables = (k: string) => (Array.isArray(doc.data[k]) ? (doc.data[k] as unknown[]).filter(isTable) : []);
  return { doc, entries: tables('entry'), epics: tables('epic'), nextId: typeof doc.data.next_id === 'number' ? doc.data.next_id : undefined };
}

function lineOf(doc: TomlDoc | undefined, t: TomlTable, key?: string): number | undefined {
  const p = key ? doc?.keyPos.get(t)?.get(key) ?? doc?.tablePos.get(t) : doc?.tablePos.get(t);
  return p ? p.line + 1 : undefined;
}

function judgeTickets(root: string, file: string, beforeText: string | undefined, afterText: string | undefined): { problems: ProposalProblem[]; changesState: boolean } {
  if (beforeText === afterText) return { problems: [], changesState: false };
  const rel = path.basename(path.dirname(file)) + '/tickets.toml';
  const tree = treeFor(root, file);
  const folder = path.basename(path.dirname(file));
  const refOf = (id: unknown): string => {
    const n = normId(id);
    const t = tree?.tickets.find((x) => x.epic === folder && x.id === n);
    return t?.ref ?? String(id);
  };
  const problems: ProposalProblem[] = [];
  const before = rowsOf(beforeText);
  if (afterText === undefined) {
    const planned = before.entries.length + before.epics.length;
    if (planned) problems.push({ severity: 'error', code: 'state-removed', message: `deleting ${rel} erases ${planned} planned ${before.epics.length ? 'epics' : 'tickets'}`, fix: `keep it; to give a ticket up: waymark story set-status REF dropped` });
    return { problems, changesState: true };
  }
  const after = rowsOf(afterText);
  if (after.error) {
    problems.push({ severity: 'error', code: 'state-hidden', message: `the edit leaves ${rel} unreadable to tickets.py: ${after.error.message}`, fix: 'keep it valid TOML', line: after.error.line + 1 });
    return { problems, changesState: true };
  }
  const doc = after.doc;
  const ids = new Map<string, TomlTable>();
  for (const [table, rows] of [['entry', after.entries], ['epic', after.epics]] as const) {
    for (const r of rows) {
      const id = normId(r.id);
      if (id === null) {
        problems.push({ severity: 'error', code: 'tickets-invalid', message: `an [[${table}]] in ${rel} has no id tickets.py reads (a number, or letters and digits)`, fix: `give it the next id${after.nextId !== undefined ? ` (next_id = ${after.nextId})` : ''}`, line: lineOf(doc, r, 'id') });
        continue;
      }
      const k = `${table}:${id}`;
      if (ids.has(k)) problems.push({ severity: 'error', code: 'tickets-invalid', message: `two ${table} tables with id ${id} in ${rel}; tickets.py refuses the tree`, fix: 'ids are never reused: give the new one the next id', line: lineOf(doc, r, 'id') });
      ids.set(k, r);
      if (table === 'entry' && !(LEAF_TYPES as readonly string[]).includes(String(r.type))) {
        problems.push({ severity: 'error', code: 'tickets-invalid', message: `entry ${id} in ${rel}: type ${JSON.stringify(r.type ?? null)} is not one of ${LEAF_TYPES.join(', ')}`, line: lineOf(doc, r, 'type') });
      }
      if (table === 'entry') {
        for (const a of Array.isArray(r.after) ? r.after : []) {
          if (typeof a === 'number' && !after.entries.some((o) => normId(o.id) === a)) {
            problems.push({ severity: 'error', code: 'tickets-invalid', message: `entry ${id} in ${rel}: after ${a} names no entry in ${folder}; tickets.py refuses the tree`, line: lineOf(doc, r, 'after') });
          }
        }
      }
    }
  }
  const beforeEntries = new Map(before.entries.map((r) => [normId(r.id), r] as const));
  for (const r of after.entries) {
    const id = normId(r.id);
    const old = id === null ? undefined : beforeEntries.get(id);
    for (const key of ['status', 'state']) {
      if (key in r && JSON.stringify(r[key]) !== JSON.stringify(old?.[key])) {
        problems.push({ severity: 'error', code: 'ticket-status-in-toml', message: `entry ${id} in ${rel}: BMAD never reads a ${key} from tickets.toml; a ticket's status lives in its plan`, fix: `set it with waymark story set-status ${refOf(r.id)} ${typeof r[key] === 'string' ? r[key] : 'STATUS'}`, line: lineOf(doc, r, key) });
      }
    }
  }
  const kept = new Set(after.entries.map((r) => normId(r.id)));
  for (const r of before.entries) {
    const id = normId(r.id);
    if (id === null || kept.has(id)) continue;
    const t = tree?.tickets.find((x) => x.epic === folder && x.id === id);
    if (t && (t.plan || t.file)) {
      problems.push({ severity: 'error', code: 'ticket-removed', message: `the edit removes entry ${id} (${t.title || 'untitled'}) of ${folder}, whose ${t.plan ? `plan says ${t.status || 'no status'}` : 'leaf file exists'}`, fix: `give it up instead, keeping its id: waymark story set-status ${t.ref} dropped` });
    }
  }
  const keptEpics = new Set(after.epics.map((r) => normId(r.id)));
  for (const r of before.epics) {
    const id = normId(r.id);
    if (id === null || keptEpics.has(id)) continue;
    const slug = typeof r.slug === 'string' ? r.slug : undefined;
    const n = tree?.tickets.filter((t) => t.epic === slug).length ?? 0;
    if (n) problems.push({ severity: 'error', code: 'ticket-removed', message: `the edit removes epic ${id} (${slug}) from ${rel}; its ${n} ticket${n > 1 ? 's lose their' : ' loses its'} E.N refs`, fix: 'keep the epic; drop its tickets one by one: waymark story set-status REF dropped' });
  }
  if (before.nextId !== undefined && after.nextId !== undefined && after.nextId < before.nextId) {
    problems.push({ severity: 'error', code: 'tickets-invalid', message: `next_id goes down from ${before.nextId} to ${after.nextId} in ${rel}; ids are never reused`, fix: `keep next_id = ${before.nextId}`, line: doc ? lineOf(doc, doc.data, 'next_id') : undefined });
  }
  return { problems, changesState: true };
}

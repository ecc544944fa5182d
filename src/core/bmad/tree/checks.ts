/**
 * The tree's problems: every error `tickets.py` reports (found while reading, reader.ts), and what
 * it does not check: `covers` ids that exist nowhere, a leaf whose `after`/`hitl` drifted from its
 * entry, an epic status its tickets contradict, and `unpinned_after`/`undeclared_after`/`order_conflict`.
 */
import * as path from 'node:path';
import type { Problem, ProblemCode, Severity } from '../../types';
import { PROBLEMS } from '../../model/problems';
import { recordingList, recordingRead } from '../sprintCache';
import type { Epic, SourcePos, Ticket, TicketTree } from './types';

function problem(code: ProblemCode, at: SourcePos | undefined, fallbackFile: string, message: string, data?: Record<string, unknown>, severity?: Severity): Problem {
  const line = at?.line ?? 0;
  return {
    file: at?.file ?? fallbackFile,
    range: { start: { line, character: 0 }, end: { line, character: Number.MAX_SAFE_INTEGER } },
    severity: severity ?? PROBLEMS[code].severity,
    code,
    message,
    ...(data ? { data } : {}),
  };
}

const ID_TOKEN = /[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*/;

/** Text of the documents a `covers` id may name: the initiative and epic files and the planning documents beside them. */
function requirementText(tree: TicketTree): string {
  if (!tree.initiative) return '';
  const parts: string[] = [];
  // Read through sprintCache's recorders: a stored answer built on these checks knows their inputs.
  const read = (f: string) => {
    const t = recordingRead(f, 2 * 1024 * 1024);
    if (t !== undefined) parts.push(t);
  };
  const dir = tree.initiative.folder;
  for (const e of recordingList(dir)) {
    if (e.isFile() && e.name.endsWith('.md')) read(path.join(dir, e.name));
    else if (e.isFile() && e.name === 'tickets.toml') read(path.join(dir, e.name));
    else if (e.isDirectory() && e.name !== 'archive-v6' && !e.name.startsWith('epic-') && !e.name.startsWith('migration-')) {
      // A planning document folder: `prd-<slug>/prd-<slug>.md` and its companions.
      // An unreadable folder lists nothing: its ids are not known.
      for (const f of recordingList(path.join(dir, e.name))) if (f.name.endsWith('.md')) read(path.join(dir, e.name, f.name));
    }
  }
  for (const ep of tree.epics) if (ep.file) read(ep.file);
  return parts.join('\n');
}

function mentions(text: string, id: string): boolean {
  const esc = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_.-])${esc}(?![A-Za-z0-9_-]|\\.[0-9])`).test(text);
}

function coversProblems(tree: TicketTree): Problem[] {
  const text = requirementText(tree);
  if (!text.trim()) return [];
  const out: Problem[] = [];
  const known = new Map<string, boolean>();
  for (const t of tree.tickets) {
    for (const id of t.covers) {
      if (!known.has(id)) known.set(id, !ID_TOKEN.test(id) || mentions(text, id));
      if (known.get(id)) continue;
      out.push(problem('tree-covers-unknown', t.coversPos ?? t.entryPos, t.file ?? tree.folder, `${t.ref} covers ${id}, which no requirement of ${t.epic}, the initiative or its planning documents names. Fix the id, or add the requirement.`, { id, ref: t.ref }));
    }
  }
  return out;
}

function driftProblems(tree: TicketTree): Problem[] {
  return tree.tickets.filter((t) => t.drift && t.file).map((t) =>
    problem('tree-drift', t.afterPos?.file === t.file ? t.afterPos : { file: t.file as string, line: 0, character: 0 }, t.file as string,
      `${path.basename(t.file as string)}'s after/hitl differ from entry ${String(t.id)} in ${t.epic}/tickets.toml; the leaf file's win (as in tickets.py). Make them agree.`,
      { ref: t.ref, entry: t.entryPos }),
  );
}

function containerProblems(tree: TicketTree): Problem[] {
  const out: Problem[] = [];
  const byKey = new Map(tree.tickets.map((t) => [t.key, t]));
  for (const e of tree.epics) {
    const tickets = e.tickets.map((k) => byKey.get(k)).filter((t): t is Ticket => t !== undefined);
    if (!tickets.length) continue;
    const open = tickets.filter((t) => t.state !== 'done' && t.state !== 'dropped');
    const started = tickets.filter((t) => t.state === 'in-progress' || t.state === 'review' || t.state === 'done');
    const at = e.statusPos;
    const file = e.file ?? e.folder;
    if (e.status === 'done' && open.length) {
      out.push(problem('tree-container-status', at, file, `${e.slug} is done but ${open.length} of its tickets are not (${open.slice(0, 5).map((t) => t.ref).join(', ')}${open.length > 5 ? ', …' : ''}). Finish or drop them, or set the epic's status to in-progress.`, { epic: e.slug, open: open.map((t) => t.ref) }));
    } else if (e.status === 'dropped' && tickets.some((t) => t.state === 'in-progress' || t.state === 'review')) {
      out.push(problem('tree-container-status', at, file, `${e.slug} is dropped but tickets under it are in progress. Drop them too, or restore the epic.`, { epic: e.slug }));
    } else if (e.status === '' && started.length && open.length) {
      out.push(problem('tree-container-status', at, file, `${e.slug} has no status while ${started.length} of its tickets have started; set status: in-progress.`, { epic: e.slug }, 'info'));
    } else if (e.status !== 'done' && e.status !== 'dropped' && !open.length) {
      out.push(problem('tree-container-status', at, file, `Every ticket of ${e.slug} is done or dropped; set its status to done.`, { epic: e.slug }, 'info'));
    }
  }
  return out;
}

function orderProblems(tree: TicketTree): Problem[] {
  const epic = (slug: string): Epic | undefined => tree.epics.find((e) => e.slug === slug);
  const initToml = tree.initiative ? path.join(tree.initiative.folder, 'tickets.toml') : tree.folder;
  const out: Problem[] = [];
  for (const u of tree.unpinnedAfter) {
    out.push(problem('tree-unpinned-after', epic(u.epic)?.entryPos, initToml, `${u.epic} is declared after ${u.after}${u.needs ? ` (needs: ${u.needs})` : ''}, but none of its tickets waits on ${u.after}. Add the after to the ticket that needs it, or gate the epic (after: [${u.after}] in its file).`, { ...u }));
  }
  const byRef = new Map<string, Ticket>();
  if (tree.undeclaredAfter.length) for (const x of tree.tickets) if (!byRef.has(`${x.epic}\0${x.ref}`)) byRef.set(`${x.epic}\0${x.ref}`, x);
  for (const d of tree.undeclaredAfter) {
    const t = byRef.get(`${d.epic}\0${d.ref}`);
    out.push(problem('tree-undeclared-after', t?.afterPos, t?.file ?? initToml, `${d.ref} waits on ${d.names} in ${d.after}, which ${d.epic} does not declare: add { epic = "${d.after}", needs = "..." } to ${d.epic}'s after in the initiative's tickets.toml.`, { ...d }));
  }
  for (const c of tree.orderConflict) {
    out.push(problem('tree-order-conflict', epic(c.epic)?.entryPos, initToml, `${c.epic} waits on ${c.after}, which comes later in the build order. Move ${c.after} before ${c.epic} in the initiative's tickets.toml.`, { ...c }));
  }
  return out;
}

/**
 * Every problem of a tree on its exact file and line: bad TOML keys and types, duplicate ids,
 * unknown `after`, cycles (named), two plans for one ticket, unknown plan status or `ticket`;
 * `covers` naming nothing, a leaf whose `after`/`hitl` drifted from its entry, a container status
 * its children contradict, and `unpinned_after`/`undeclared_after`/`order_conflict`.
 */
export function treeProblems(tree: TicketTree): Problem[] {
  return [...tree.problems, ...driftProblems(tree), ...coversProblems(tree), ...containerProblems(tree), ...orderProblems(tree)];
}

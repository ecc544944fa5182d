/**
 * The tree's JSON shapes for the CLI, MCP and hooks: every ticket carries `kind: "ticket"`, `ref`
 * and `state`. `bmadNextJson`/`bmadStatusJson` give `tickets.py next`/`status`'s own shape, so an
 * agent that knows BMAD's output reads Waymark's unchanged.
 */
import * as path from 'node:path';
import { nextGroups, treeStatus } from './next';
import { normId } from './reader';
import type { NextGroups, NextItem, Ticket, TicketId, TicketTree } from './types';

/** A ticket as Waymark's faces print it. */
export function ticketJson(t: Ticket, tree: TicketTree): Record<string, unknown> {
  void tree;
  return {
    kind: t.kind,
    ref: t.ref,
    key: t.key,
    state: t.state,
    status: t.status,
    epic: t.epic,
    ...(t.epicId !== undefined ? { epicId: t.epicId } : {}),
    id: t.id,
    type: t.type,
    title: t.title,
    ...(t.trackerStatus ? { trackerStatus: t.trackerStatus } : {}),
    ...(t.trackerId ? { trackerId: t.trackerId } : {}),
    ...(t.assignee ? { assignee: t.assignee } : {}),
    ...(t.blockedReason || t.blockedAt ? { blockedAt: t.blockedAt, blockedReason: t.blockedReason } : {}),
    after: t.afterRefs,
    ...(t.gatedBy.length ? { gatedBy: t.gatedBy } : {}),
    refine: t.refine,
    refined: t.refined,
    hitl: t.hitl,
    covers: t.covers,
    ...(t.drift ? { drift: true } : {}),
    ...(t.backlog ? { backlog: true } : {}),
    ...(t.file ? { file: t.file } : {}),
    ...(t.plan ? { plan: t.plan } : {}),
    planPath: t.planPath,
  };
}

function itemJson(i: NextItem, tree: TicketTree): Record<string, unknown> {
  return { ...ticketJson(i.ticket, tree), waitingOn: i.waitingOn };
}

/** `waymark next --json` on a v7 tree: the groups `readyToRefine`, `readyToStart`, `inProgress`, `blocked`. */
export function treeNextJson(tree: TicketTree, groups: NextGroups = nextGroups(tree)): Record<string, unknown> {
  return {
    kind: 'ticket-tree',
    folder: tree.folder,
    ...(tree.initiative ? { initiative: tree.initiative.slug } : {}),
    store: tree.store,
    readyToRefine: groups.readyToRefine.map((i) => itemJson(i, tree)),
    readyToStart: groups.readyToStart.map((i) => itemJson(i, tree)),
    inProgress: groups.inProgress.map((i) => itemJson(i, tree)),
    blocked: groups.blocked.map((i) => itemJson(i, tree)),
    unpinnedAfter: tree.unpinnedAfter,
    undeclaredAfter: tree.undeclaredAfter,
    orderConflict: tree.orderConflict,
    ...(tree.fatal ? { fatal: tree.fatal } : {}),
  };
}

function epicIds(tree: TicketTree): Map<string, TicketId> {
  return new Map(tree.epics.filter((e) => e.id !== undefined).map((e) => [e.slug, e.id as TicketId]));
}

/** tickets.py's `ref(key, epic)`: a sibling's id (a number when it is one), `E.N` elsewhere, an epic's slug. */
function pyRef(key: string, epic: string | null, ids: Map<string, TicketId>): string | number {
  const slash = key.indexOf('/');
  if (slash < 0) return key;
  const slug = key.slice(0, slash);
  const n = normId(key.slice(slash + 1));
  if (n === null) return key;
  if (slug === epic) return n;
  const eid = ids.get(slug);
  return eid !== undefined ? `${String(eid)}.${key.slice(slash + 1)}` : key;
}

function pyRowRef(t: Ticket, tree: TicketTree, ids: Map<string, TicketId>): string | null {
  const eid = ids.get(t.epic);
  if (t.id !== null && eid !== undefined) return `${String(eid)}.${String(t.id)}`;
  if (t.id !== null && t.epic === tree.scope) return String(t.id);
  return t.file ? path.basename(t.file) : null;
}

function bmadRow(t: Ticket, tree: TicketTree, ids: Map<string, TicketId>, blocks?: Record<string, string[]>): Record<string, unknown> {
  const row: Record<string, unknown> = {
    epic: t.epic, id: t.id, file: t.file ? path.basename(t.file) : null, type: t.type, tracker_id: t.trackerId, title: t.title, status: t.status,
    tracker_status: t.trackerStatus, state: t.state, assignee: t.assignee, hitl: t.hitl, covers: t.covers, estimate: t.estimate, refine: t.refine,
    refined: t.refined, blocked_at: t.blockedAt, blocked_reason: t.blockedReason, ref: pyRowRef(t, tree, ids), after: t.after.map((b) => pyRef(b, t.epic, ids)),
  };
  if (t.gatedBy.length) row.gated_by = t.gatedBy;
  if (blocks) {
    row.blocks = (blocks[t.key] ?? []).map((b) => pyRef(b, t.epic, ids));
    if (t.drift) row.drift = true;
  }
  return row;
}

function problemsOf(tree: TicketTree): Record<string, unknown> {
  const p = tree.problems.filter((x) => x.code === 'tree-plan-ticket' || x.code === 'tree-plan-status').map((x) => x.message);
  return p.length ? { problems: p } : {};
}

/** `tickets.py next <folder>`'s JSON, from Waymark's reading of the same files. */
export function bmadNextJson(tree: TicketTree): Record<string, unknown> {
  const ids = epicIds(tree);
  const g = nextGroups(tree);
  const rows = (items: NextItem[]) => items.map((i) => bmadRow(i.ticket, tree, ids));
  return {
    folder: path.basename(tree.folder),
    store: tree.store,
    ready_to_refine: rows(g.readyToRefine),
    ready_to_start: rows(g.readyToStart),
    in_progress: rows(g.inProgress),
    blocked: rows(g.blocked),
    unpinned_after: tree.unpinnedAfter,
    undeclared_after: tree.undeclaredAfter.map((u) => ({ ...u, names: numericOr(u.names) })),
    order_conflict: tree.orderConflict,
    ...problemsOf(tree),
  };
}

function numericOr(s: string): string | number {
  return /^\d+$/.test(s) ? Number(s) : s;
}

/** `tickets.py status <folder>`'s JSON, from Waymark's reading of the same files. */
export function bmadStatusJson(tree: TicketTree): Record<string, unknown> {
  const ids = epicIds(tree);
  const s = treeStatus(tree);
  const { total, ...byState } = s.counts;
  const out: Record<string, unknown> = {
    folder: path.basename(tree.folder),
    store: tree.store,
    tickets: s.tickets.map((t) => bmadRow(t, tree, ids, s.blocks)),
    counts: { total, ...byState },
    longest_remaining_chain: s.longestRemainingChain.map((r) => r),
    unpinned_after: tree.unpinnedAfter,
    undeclared_after: tree.undeclaredAfter.map((u) => ({ ...u, names: numericOr(u.names) })),
    order_conflict: tree.orderConflict,
    ...problemsOf(tree),
  };
  if (tree.scope === undefined) {
    out.epics = tree.epics.map((e) => ({
      slug: e.slug, id: e.id ?? null, status: e.status, after: e.after, gated_by: e.gatedBy,
      blocks: (s.blocks[e.slug] ?? []).map((b) => pyRef(b, null, ids)),
    }));
  }
  return out;
}

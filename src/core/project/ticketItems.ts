/**
 * BMAD v7's tickets as project items: one item per ticket of a tree (`ticket:<ref>`), its state in
 * the board's words, and the edges of its `after` and its epic's gate, so the dashboard, `board`,
 * `deps` and `timeline` show a v7 project as they show a v6 sprint. Pure: a tree in, items out.
 */
import * as path from 'node:path';
import type { SprintReport } from '../bmad/sprint';
import type { Ticket, TicketTree } from '../bmad/tree/types';
import type { EdgeKind, ItemState, ProjectItem } from './registry';

/** The board's column word for a ticket: `blocked` for a blocked plan, else from BMAD's state. */
export function ticketItemState(t: Ticket): ItemState {
  if (t.status === 'blocked') return 'blocked';
  switch (t.state) {
    case 'in-progress': return 'in_progress';
    case 'review': return 'review';
    case 'done': return 'done';
    case 'dropped': return 'dropped';
    default: return 'todo';
  }
}

/** A project item's id for a ticket. */
export function ticketItemId(t: Ticket): string {
  return `ticket:${t.ref}`;
}

/**
 * The items of one tree and the edges between them (a ticket waits on its `after`; a gated epic's
 * tickets on every live ticket of the gating epic). A prerequisite in review meets an `after`, as
 * in `tickets.py next` (it is listed in `waived`); a gate waits for done.
 */
export function ticketItems(tree: TicketTree, relOf: (file: string) => string): { items: ProjectItem[]; edges: { from: string; to: string; kind: EdgeKind }[] } {
  const byKey = new Map(tree.tickets.map((t) => [t.key, t]));
  const items: ProjectItem[] = [];
  const edges: { from: string; to: string; kind: EdgeKind }[] = [];
  for (const t of tree.tickets) {
    const file = t.file ?? t.plan;
    const id = ticketItemId(t);
    const waived = t.after.map((k) => byKey.get(k)).filter((p): p is Ticket => p?.state === 'review').map(ticketItemId);
    items.push({
      id, kind: 'ticket', root: tree.root, file, rel: file ? relOf(file) : undefined,
      title: t.title || (t.file ? path.basename(t.file, '.md') : t.ref), state: ticketItemState(t), rawStatus: t.status || t.state,
      blockedReason: t.blockedReason || undefined, priority: 0, waived,
      line: t.statusPos && t.statusPos.file === file ? t.statusPos.line : undefined,
      ref: t.ref, assignee: t.assignee || undefined,
    });
    for (const k of t.after) {
      const pre = byKey.get(k);
      if (pre) edges.push({ from: id, to: ticketItemId(pre), kind: 'dependsOn' });
      else for (const o of tree.tickets) if (o.epic === k && o.state !== 'dropped') edges.push({ from: id, to: ticketItemId(o), kind: 'epic-order' });
    }
    for (const slug of t.gatedBy) for (const o of tree.tickets) if (o.epic === slug && o.state !== 'dropped') edges.push({ from: id, to: ticketItemId(o), kind: 'epic-order' });
  }
  return { items, edges };
}

/**
 * A v6 sprint that is only `bmad migrate`'s archive of the ledger (every ledger under the tree's
 * `archive-v6/`): history, never counted as work beside the tree.
 */
export function isArchivedSprint(report: Pick<SprintReport, 'ledgerFiles'>, tree: Pick<TicketTree, 'archiveV6'> | undefined): boolean {
  const archive = tree?.archiveV6;
  if (!archive || !report.ledgerFiles.length) return false;
  return report.ledgerFiles.every((f) => f.startsWith(archive + path.sep));
}

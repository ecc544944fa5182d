/** The tree's JSON shapes for the CLI, MCP and hooks: every ticket carries `kind: "ticket"`, `ref` and `state`. */
import type { NextGroups, Ticket, TicketTree } from './types';

export function ticketJson(t: Ticket, tree: TicketTree): Record<string, unknown> {
  void tree;
  return { kind: t.kind, ref: t.ref, state: t.state, epic: t.epic, id: t.id, type: t.type, title: t.title, status: t.status };
}

/** `waymark next --json` on a v7 tree: the groups `readyToRefine`, `readyToStart`, `inProgress`, `blocked`. */
export function treeNextJson(tree: TicketTree, groups: NextGroups): Record<string, unknown> {
  const item = (i: NextGroups['blocked'][number]) => ({ ...ticketJson(i.ticket, tree), waitingOn: i.waitingOn });
  return {
    kind: 'ticket-tree',
    folder: tree.folder,
    store: tree.store,
    readyToRefine: groups.readyToRefine.map(item),
    readyToStart: groups.readyToStart.map(item),
    inProgress: groups.inProgress.map(item),
    blocked: groups.blocked.map(item),
  };
}

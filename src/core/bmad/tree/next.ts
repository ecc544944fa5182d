/** What `tickets.py next` and `status` answer, over a tree already read. */
import type { NextGroups, Ticket, TicketTree, TreeStatus } from './types';

/** `tickets.py next`: tickets in scope grouped by what can happen next, in build order. */
export function nextGroups(tree: TicketTree): NextGroups {
  void tree;
  return { readyToRefine: [], readyToStart: [], inProgress: [], blocked: [] };
}

/** `tickets.py status`: every ticket in scope, counts by state, what each blocks, the longest remaining chain (refs). */
export function treeStatus(tree: TicketTree): TreeStatus {
  return { tickets: tree.tickets, counts: {}, blocks: {}, longestRemainingChain: [] };
}

/** The one ticket a reference names (`E.N`, an id in an epic scope, a file name, a tracker id, title words), or why not. */
export function resolveTicket(tree: TicketTree, ref: string): { ticket: Ticket } | { error: string } {
  void tree;
  return { error: `no ticket matches '${ref}'` };
}

/** A key as BMAD writes it from `fromEpic` (a sibling's bare id, `E.N` elsewhere, an epic's slug). */
export function refOf(tree: TicketTree, key: string, fromEpic?: string): string {
  void tree;
  void fromEpic;
  return key;
}

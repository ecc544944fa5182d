/** What `tickets.py next` and `status` answer, over a tree already read. */
import * as path from 'node:path';
import { normId, refFor } from './reader';
import type { NextGroups, NextItem, Ticket, TicketId, TicketTree, TreeStatus } from './types';
import { quoted } from '../../model/text';

function epicIds(tree: TicketTree): Map<string, TicketId> {
  const m = new Map<string, TicketId>();
  for (const e of tree.epics) if (e.id !== undefined) m.set(e.slug, e.id);
  return m;
}

function inScope(tree: TicketTree): Ticket[] {
  return tree.scope === undefined ? tree.tickets : tree.tickets.filter((t) => t.epic === tree.scope);
}

function doneKeys(tree: TicketTree): Set<string> {
  const done = new Set(tree.tickets.filter((t) => t.state === 'done').map((t) => t.key));
  for (const e of tree.epics) if (e.status === 'done') done.add(e.slug);
  return done;
}

/** `tickets.py next`: tickets in scope grouped by what can happen next, in build order. */
export function nextGroups(tree: TicketTree): NextGroups {
  const done = doneKeys(tree);
  // A ticket in review meets an `after`; an epic gate still waits for the epic to be done.
  const met = new Set(done);
  for (const t of tree.tickets) if (t.state === 'review') met.add(t.key);
  const ids = epicIds(tree);
  const groups: NextGroups = { readyToRefine: [], readyToStart: [], inProgress: [], blocked: [] };
  for (const t of inScope(tree)) {
    if (t.state === 'done' || t.state === 'dropped') continue;
    const waiting = [...new Set([...t.after.filter((b) => !met.has(b)), ...t.gatedBy.filter((b) => !done.has(b))])];
    const item: NextItem = { ticket: t, ref: t.ref, waitingOn: waiting.map((k) => refFor(k, undefined, ids)) };
    if (t.status === 'blocked' || t.blockedAt) groups.blocked.push(item);
    else if (t.state === 'in-progress' || t.state === 'review') groups.inProgress.push(item);
    else if (waiting.length) groups.blocked.push(item);
    else if (t.refine && !t.refined) groups.readyToRefine.push(item);
    else groups.readyToStart.push(item);
  }
  return groups;
}

/** The longest chain of unfinished tickets, each waiting on the one before, as refs. */
export function longestRemainingChain(tree: TicketTree): string[] {
  const remaining = new Map(tree.tickets.filter((t) => t.state !== 'done' && t.state !== 'dropped').map((t) => [t.key, t]));
  const memo = new Map<string, string[]>();
  const chain = (start: string): string[] => {
    // Iterative post-order so a long tree cannot overflow the stack.
    const stack: { k: string; i: number; best: string[]; deps: string[] }[] = [];
    const push = (k: string) => {
      const t = remaining.get(k) as Ticket;
      stack.push({ k, i: 0, best: [], deps: [...t.after, ...t.gatedBy] });
    };
    if (memo.has(start)) return memo.get(start) as string[];
    push(start);
    const onStack = new Set([start]);
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top.i < top.deps.length) {
        const b = top.deps[top.i];
        if (!remaining.has(b) || onStack.has(b)) { top.i++; continue; }
        const c = memo.get(b);
        if (c) {
          if (c.length > top.best.length) top.best = c;
          top.i++;
          continue;
        }
        push(b);
        onStack.add(b);
        continue;
      }
      const result = [...top.best, top.k];
      memo.set(top.k, result);
      stack.pop();
      onStack.delete(top.k);
      const parent = stack[stack.length - 1];
      if (parent) {
        if (result.length > parent.best.length) parent.best = result;
        parent.i++;
      }
    }
    return memo.get(start) as string[];
  };
  let longest: string[] = [];
  for (const t of inScope(tree)) {
    if (!remaining.has(t.key)) continue;
    const c = chain(t.key);
    if (c.length > longest.length) longest = c;
  }
  const ids = epicIds(tree);
  return longest.map((k) => refFor(k, undefined, ids));
}

/** `tickets.py status`: every ticket in scope, counts by state, what each blocks, the longest remaining chain (refs). */
export function treeStatus(tree: TicketTree): TreeStatus {
  const tickets = inScope(tree);
  const counts: Record<string, number> = { total: tickets.length };
  for (const t of tickets) counts[t.state] = (counts[t.state] ?? 0) + 1;
  const blocks: Record<string, string[]> = {};
  for (const t of tree.tickets) for (const b of t.after) (blocks[b] ??= []).push(t.key);
  return { tickets, counts, blocks, longestRemainingChain: longestRemainingChain(tree) };
}

/** The one ticket a reference names (`E.N`, an id in an epic scope, a file name, a tracker id, title words), or why not. */
export function resolveTicket(tree: TicketTree, text: string): { ticket: Ticket } | { error: string } {
  const all = [...tree.tickets, ...tree.backlog];
  const ref = text.trim();
  if (!ref) return { error: 'the ticket reference is empty' };
  const low = ref.toLowerCase();
  let hits: Ticket[] = [];
  const m = /^([0-9A-Za-z]+)\.([0-9A-Za-z]+)$/.exec(ref);
  const slugOf = new Map<TicketId, string>(tree.epics.filter((e) => e.id !== undefined).map((e) => [e.id as TicketId, e.slug]));
  if (m) {
    const slug = slugOf.get(normId(m[1]) as TicketId);
    hits = all.filter((t) => slug !== undefined && t.epic === slug && t.id === normId(m[2]));
  } else if (normId(ref) !== null && tree.scope) {
    hits = all.filter((t) => t.epic === tree.scope && t.id === normId(ref));
  }
  for (const pool of [inScope(tree), all]) {
    if (!hits.length) hits = pool.filter((t) => t.file && (low === path.basename(t.file).toLowerCase() || low === path.basename(t.file).slice(0, -3).toLowerCase()));
  }
  if (!hits.length) hits = all.filter((t) => t.key.toLowerCase() === low);
  if (!hits.length) hits = all.filter((t) => t.trackerId && low === t.trackerId.toLowerCase());
  if (!hits.length && !/^\d+$/.test(ref)) hits = inScope(tree).filter((t) => t.title.toLowerCase().includes(low));
  if (!hits.length) return { error: `no ticket matches ${quoted(ref)}` };
  if (hits.length > 1) return { error: `${quoted(ref)} matches more than one ticket: ${hits.map((t) => `${t.file ? path.basename(t.file) : String(t.id)} in ${t.epic}`).join(', ')}` };
  return { ticket: hits[0] };
}

/** A key as BMAD writes it from `fromEpic` (a sibling's bare id, `E.N` elsewhere, an epic's slug). */
export function refOf(tree: TicketTree, key: string, fromEpic?: string): string {
  return refFor(key, fromEpic, epicIds(tree));
}

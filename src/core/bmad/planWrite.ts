/**
 * A BMAD v7 ticket's status change, written the way BMAD's `tickets.py mark` writes it: into the
 * ticket's plan (`status`, `blocked_at` + `blocked_reason` set with a reason and cleared without
 * one, `assignee` when given), creating a frontmatter-only plan where the ticket has none. A small
 * planner run by the one transaction engine (engine/transaction.ts): the plan locked, re-read
 * with the tree under the lock, the status rules (planStatus.ts, the ones agent hooks apply)
 * unless forced, the new bytes checked, one history line, events. Refused on a tracker store,
 * whose tickets take their status from the tracker.
 */
import * as path from 'node:path';
import { relStaysInside } from '../store/safePath';
import { WaymarkError } from '../errors';
import { assertWritableInside } from '../engine/roots';
import { runTransaction, type TxWrite } from '../engine/transaction';
import { nearest } from '../model/config';
import { editFrontmatter, type FrontmatterEdit } from '../model/edit';
import { openTaskCount } from '../model/bmadProposal';
import { loadWorkspaceContext, type WorkspaceContext } from '../store/workspaceContext';
import { STATE_OF, readTicketTree } from './tree/reader';
import { readLeafFrontmatter } from './tree/frontmatter';
import { resolveTicket } from './tree/next';
import type { PlanStatus, Ticket, TicketTree } from './tree/types';
import { PLAN_STATUS_WORDS, isPlanStatus, judgePlanStatusMove } from './planStatus';
import type { WriteGuard, WriteObserver } from '../writeHooks';
import type { Logger } from '../ports';
import { quoted as quotedValue } from '../model/text';

export interface TicketWriteOptions {
  /** Sets `blocked_at` (today) and `blocked_reason`; without it both are cleared, as `tickets.py mark` does. */
  blocked?: string;
  /** Sets `assignee`. */
  assignee?: string;
  /** An initiative, epic or backlog folder; default: the active initiative. */
  folder?: string;
  actor?: string;
  session?: string;
  /** Allow what the status rules refuse (done moved back, done before a finished build); recorded in history. */
  force?: boolean;
  now?: Date;
  context?: WorkspaceContext;
  guards?: WriteGuard[];
  observers?: WriteObserver[];
  logger?: Logger;
}

export interface TicketWriteResult {
  ref: string;
  key: string;
  operation: 'ticket-set-status';
  /** The plan written (or that would be), absolute. */
  plan: string;
  /** True when the plan did not exist and was created. */
  created: boolean;
  changed: boolean;
  written: string[];
  before: Ticket;
  after: Ticket;
  seq?: number;
}

/** v6 words and common slips, to the plan status meant. */
const SAID_AS: Record<string, string> = { review: 'in-review', backlog: 'draft', complete: 'done', completed: 'done', finished: 'done', started: 'in-progress', 'ready-for-review': 'in-review' };

function statusWord(status: string): string {
  const want = status.trim().toLowerCase();
  if (isPlanStatus(want)) return want;
  const meant = SAID_AS[want] ?? nearest(want, [...PLAN_STATUS_WORDS], 4);
  throw new WaymarkError('usage', `${quotedValue(status)} is not a BMAD plan status. Use one of: ${PLAN_STATUS_WORDS.join(', ')}.${meant ? ` Did you mean ${meant}?` : ''}`);
}

/** One line, no runs of spaces: `tickets.py` reads a frontmatter value up to a line break or `   #`. */
function oneLine(s: string): string {
  return s.replace(/[\s\u0085]+/g, ' ').trim();
}

/** A double-quoted scalar that BMAD's frontmatter reader and YAML both read back as `s`. */
function quoted(s: string): string {
  return JSON.stringify(s).replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The local date, as `tickets.py` writes `blocked_at` (Python's `date.today()`). */
function localDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

function readTree(root: string, opts: TicketWriteOptions): TicketTree {
  const tree = readTicketTree(root, { folder: opts.folder });
  if (!tree) throw new WaymarkError('unreadable', `No BMAD v7 ticket tree under ${root}: no active initiative (core.active_initiative) and no initiative-* folder in the output folder.`, root);
  if (tree.fatal) throw new WaymarkError('invalid', `The ticket tree cannot be read as BMAD reads it: ${tree.fatal}. Fix that first (waymark validate lists it with its file and line); nothing was changed.`, tree.problems.find((p) => p.severity === 'error')?.file ?? tree.folder);
  return tree;
}

function findTicket(tree: TicketTree, ref: string): Ticket {
  const r = resolveTicket(tree, ref);
  if ('error' in r) throw new WaymarkError('usage', `${r.error}. Name one ticket: its E.N ref (waymark next --json lists them), its file name, or more words of its title.`, tree.folder);
  return r.ticket;
}

/** The plan `tickets.py mark` creates for a ticket that has none: frontmatter only. */
function newPlan(t: Ticket, status: string, assignee: string, blocked: { at: string; reason: string } | undefined): string {
  const ticket = t.id !== null ? String(t.id) : quoted(path.basename(t.file ?? t.planPath, '.md'));
  const lines = [`title: ${quoted(t.title)}`, `ticket: ${ticket}`, `status: ${status}`];
  if (assignee) lines.push(`assignee: ${quoted(assignee)}`);
  if (blocked) lines.push(`blocked_at: ${quoted(blocked.at)}`, `blocked_reason: ${quoted(blocked.reason)}`);
  return `---\n${lines.join('\n')}\n---\n`;
}

/** The plan's frontmatter as BMAD's tickets.py reads it (byte-order mark and CRLF as Python's text mode reads them). */
function frontmatterOf(text: string): Record<string, unknown> {
  return readLeafFrontmatter((text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n'), true).data;
}

/**
 * Sets a v7 ticket's status in its plan (see the file header). `ref`: `E.N`, a bare id in an
 * epic folder, a file name, a tracker id, or words of its title naming one ticket.
 */
export async function setTicketStatus(root: string, ref: string, status: string, opts: TicketWriteOptions = {}): Promise<TicketWriteResult> {
  const want = statusWord(status);
  if (want === 'blocked' && !opts.blocked?.trim()) {
    throw new WaymarkError('usage', `Blocking needs a reason: say what is in the way (waymark story set-status ${ref} blocked --blocked "REASON").`);
  }
  if (opts.blocked !== undefined && !opts.blocked.trim()) throw new WaymarkError('usage', '--blocked needs a reason: say what is in the way.');
  const first = readTree(root, opts);
  if (first.store !== 'repo') {
    throw new WaymarkError('refused', `The ticket store is ${first.store}: a ticket's status comes from the tracker there. Change it in ${first.store} (its write verb, as bmad-ticket does), then sync; Waymark writes no plan status on a tracker store. Nothing was changed.`, first.folder, { store: first.store });
  }
  const ticket = findTicket(first, ref);
  const planFile = ticket.plan ?? ticket.planPath;
  const ctx = opts.context && inside(opts.context.root, path.resolve(root)) ? opts.context : (await loadWorkspaceContext(root, undefined, opts.now ? { now: () => opts.now! } : undefined)).context;
  const txRoot = inside(ctx.root, path.resolve(root)) ? ctx.root : path.resolve(root);
  assertWritableInside(planFile, txRoot);
  const now = opts.now ?? new Date();
  const blocked = opts.blocked !== undefined ? { at: localDate(now), reason: oneLine(opts.blocked) } : undefined;
  const assignee = opts.assignee !== undefined ? oneLine(opts.assignee) : undefined;
  const name = ticket.ref;
  return runTransaction({ root: txRoot, historyDir: ctx.config.history.dir, actor: opts.actor, session: opts.session, now: () => now, guards: opts.guards, observers: opts.observers, logger: opts.logger }, {
    operation: 'ticket-set-status',
    files: [planFile],
    plan(texts) {
      // The tree again, under the plan's lock: the ticket as it is now.
      const tree = readTree(root, opts);
      const t = tree.tickets.find((x) => x.key === ticket.key);
      if (!t) throw new WaymarkError('conflict', `Ticket ${name} changed while it was being set (its entry or file is gone); read the tree again (waymark next) and retry.`, planFile);
      if ((t.plan ?? t.planPath) !== planFile) throw new WaymarkError('conflict', `Ticket ${name}'s plan changed while it was being set (now ${t.plan ?? t.planPath}); retry.`, planFile);
      const text = texts.get(planFile);
      if (!t.plan && text !== undefined) {
        throw new WaymarkError('invalid', `${path.basename(planFile)} exists already and is not the plan of ticket ${name} (its ticket key names another ticket, or none). Rename it, or give it ticket: ${t.id ?? path.basename(t.file ?? planFile, '.md')}. Nothing was changed.`, planFile);
      }
      const from = t.status;
      if (!opts.force) {
        const errors = judgePlanStatusMove(from, want, name, text !== undefined ? openTaskCount(text) : 0).filter((p) => p.severity === 'error');
        if (errors.length) {
          const fixes = errors.map((p) => p.fix).filter((f): f is string => !!f).map((f) => f[0].toUpperCase() + f.slice(1));
          throw new WaymarkError('transition', `Refused: ${errors.map((p) => p.message).join('; ')}. ${fixes.join('. ')}${fixes.length ? '. ' : ''}Nothing was changed.`, t.plan ?? planFile, { from: from || null, to: want, problems: errors.map((p) => p.code) });
        }
      }
      let next: string;
      if (text === undefined) next = newPlan(t, want, assignee ?? t.assignee, blocked);
      else {
        const edits: FrontmatterEdit[] = [{ key: 'status', value: want }];
        const has = frontmatterOf(text);
        if (blocked) edits.push({ key: 'blocked_at', value: blocked.at }, { key: 'blocked_reason', value: blocked.reason });
        else for (const k of ['blocked_at', 'blocked_reason']) if (k in has) edits.push({ key: k, value: undefined });
        if (assignee !== undefined) edits.push({ key: 'assignee', value: assignee });
        next = editFrontmatter(text, edits);
      }
      const writes: TxWrite[] = [{
        file: planFile,
        text: next,
        entry: {
          from: { status: from || null, ...(t.blockedReason ? { blockedReason: t.blockedReason } : {}) },
          to: { status: want, ...(blocked ? { blockedReason: blocked.reason } : {}) },
          detail: { ref: name, ticket: t.key, ...(text === undefined ? { created: true } : {}), ...(opts.force ? { forced: true } : {}) },
        },
        check: (s) => (frontmatterOf(s).status === want ? undefined : `tickets.py would not read its status as ${want}.`),
      }];
      return {
        writes,
        result: (entries) => {
          // The ticket as the tree now reads it, from the bytes written (no third read of the tree).
          const fm = frontmatterOf(next);
          const status = want as PlanStatus;
          const after: Ticket = entries.length
            ? { ...t, status, state: t.trackerStatus || STATE_OF[status], plan: planFile, assignee: String(fm.assignee ?? ''), blockedAt: String(fm.blocked_at ?? ''), blockedReason: String(fm.blocked_reason ?? '') }
            : t;
          return { ref: name, key: t.key, operation: 'ticket-set-status' as const, plan: planFile, created: entries.length > 0 && text === undefined, changed: entries.length > 0, written: entries.map((e) => e.file), before: t, after, seq: entries[0]?.seq };
        },
      };
    },
  });
}

function inside(root: string, p: string): boolean {
  return relStaysInside(path.relative(root, p));
}

// How a v7 ticket and epic read on every surface (Sprint view rows and tooltips, hovers, the status
// bar): its label, icon, one-line description and Markdown card, from the core's plain data.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Epic, Problem, Ticket } from '../core/index';
import { COMMANDS } from './constants';
import { NEXT_GROUP_LABELS, allTickets, type TreeReport } from './ticketTreeModel';

/** Arguments of the ticket commands (the tree, hovers and the status bar pass them; the palette asks). */
export interface TicketArgs {
  root?: string;
  /** BMAD's ref (`2.1`, a file name) or the tree's key (`epic-payments/1`). */
  ref?: string;
  status?: string;
  blocked?: string;
  assignee?: string;
}

/** `2.1 Card form`; a backlog leaf by its title (its ref is its file name). */
export function ticketLabel(t: Ticket): string {
  return /^\d/.test(t.ref) ? `${t.ref} ${t.title}` : t.title || t.ref;
}

/** The word a row leads with: `blocked` for a blocked plan, else BMAD's state. */
export function ticketWord(t: Ticket): string {
  return t.status === 'blocked' ? 'blocked' : t.state;
}

const ICONS: Record<string, [string, string?]> = {
  done: ['pass-filled', 'testing.iconPassed'],
  review: ['eye', 'charts.blue'],
  'in-progress': ['play-circle', 'charts.yellow'],
  blocked: ['circle-slash', 'errorForeground'],
  dropped: ['close', 'disabledForeground'],
  backlog: ['circle-large-outline'],
  planned: ['circle-small'],
};

export function ticketIcon(report: TreeReport, t: Ticket): vscode.ThemeIcon {
  const waiting = report.nextOf.get(t.key);
  const word = ticketWord(t);
  // Waiting on a prerequisite (not blocked by a person): a clock, not a stop sign.
  const key = word !== 'blocked' && waiting?.group === 'blocked' ? 'waiting' : word;
  if (key === 'waiting') return new vscode.ThemeIcon('watch');
  if (waiting?.group === 'readyToStart' || waiting?.group === 'readyToRefine') return new vscode.ThemeIcon('arrow-circle-right', new vscode.ThemeColor('charts.green'));
  const [id, color] = ICONS[key] ?? ['question'];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

/** What the ticket waits on now (refs; epic slugs for gates), empty when nothing holds it. */
export function waitingOn(report: TreeReport, t: Ticket): string[] {
  return report.nextOf.get(t.key)?.item.waitingOn ?? [];
}

/** The problems on a ticket's leaf file, plan, or its `[[entry]]` table. */
export function ticketProblems(report: TreeReport, t: Ticket): Problem[] {
  const files = new Set([t.file, t.plan].filter((f): f is string => !!f));
  const entry = t.entryPos;
  let end = Number.MAX_SAFE_INTEGER;
  if (entry) for (const o of report.tree.tickets) if (o.entryPos && o.entryPos.file === entry.file && o.entryPos.line > entry.line) end = Math.min(end, o.entryPos.line);
  return report.problems.filter((p) => files.has(p.file) || (!!entry && p.file === entry.file && p.range.start.line >= entry.line && p.range.start.line < end));
}

/** `blocked · @chloe · waiting on the bank's keys`, `backlog · plan draft · waits on 2.1`. */
export function ticketDescription(report: TreeReport, t: Ticket): string {
  const parts = [ticketWord(t)];
  if (t.status && t.status !== 'blocked' && t.status !== t.state) parts.push(`plan ${t.status}`);
  if (t.trackerStatus) parts.push(`tracker ${t.trackerStatus}`);
  if (t.assignee) parts.push(`@${t.assignee}`);
  if (t.blockedReason) parts.push(t.blockedReason);
  const next = report.nextOf.get(t.key);
  const waits = next?.item.waitingOn ?? [];
  if (waits.length) parts.push(`waits on ${waits.join(', ')}`);
  else if (next?.group === 'readyToStart') parts.push('ready to start');
  else if (next?.group === 'readyToRefine') parts.push('ready to refine');
  const n = ticketProblems(report, t).filter((p) => p.severity !== 'info').length;
  if (n) parts.push(`⚠ ${n}`);
  return parts.join(' · ');
}

function esc(s: string): string {
  // Inline text in a table cell or after a word: only what would start markup there.
  return s.replace(/[\\`*_[\]|<>]/g, '\\$&');
}

function link(title: string, command: string, arg: unknown): string {
  return `[${title}](command:${command}?${encodeURIComponent(JSON.stringify([arg]))})`;
}

/** The commands a ticket card links to (trusted Markdown must name them). */
export const TICKET_CARD_COMMANDS = [COMMANDS.openTicket, COMMANDS.openTicketPlan, COMMANDS.setTicketStatus];

/** A ticket as a Markdown card: what it is, where its status comes from, what holds it, its problems, and links. */
export function ticketMarkdown(report: TreeReport, t: Ticket, opts: { links?: boolean; canWrite?: boolean } = {}): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = { enabledCommands: TICKET_CARD_COMMANDS };
  const epic = report.tree.epics.find((e) => e.slug === t.epic);
  md.appendMarkdown(`**${esc(ticketLabel(t))}** · ${t.type}${epic ? ` · ${esc(epicLabel(epic))}` : t.backlog ? ' · backlog' : ''}\n\n`);
  const rows: [string, string][] = [['state', `\`${t.state}\``]];
  const from = t.plan ? path.basename(t.plan) : t.file && t.status ? path.basename(t.file) : undefined;
  rows.push(['status', t.status ? `\`${t.status}\`${from ? ` in ${esc(from)}` : ''}` : t.plan ? 'none in the plan' : 'no plan yet: no build has started']);
  if (t.trackerStatus) rows.push(['tracker', `\`${t.trackerStatus}\`${t.trackerId ? ` (${esc(t.trackerId)})` : ''}: overrides the plan`]);
  if (t.assignee) rows.push(['assignee', esc(t.assignee)]);
  if (t.status === 'blocked' || t.blockedReason) rows.push(['blocked', `${t.blockedAt ? `since ${esc(t.blockedAt)}: ` : ''}${esc(t.blockedReason || 'no reason given')}`]);
  // As written (`1`, `"1.2"`, `epic-cart`), with the full ref where the written one is a sibling's bare id.
  const full = (k: string, written: string | undefined) => {
    const ref = allTickets(report).find((x) => x.key === k)?.ref ?? k;
    return written && written !== ref ? `\`${written}\` (${ref})` : `\`${ref}\``;
  };
  if (t.after.length) rows.push(['after', t.after.map((k, i) => full(k, t.afterRefs[i])).join(', ')]);
  if (t.gatedBy.length) rows.push(['epic gate', t.gatedBy.map((r) => `\`${r}\``).join(', ')]);
  const next = report.nextOf.get(t.key);
  if (next) rows.push(['next', `${NEXT_GROUP_LABELS[next.group]}${next.item.waitingOn.length ? `: waits on ${next.item.waitingOn.map((r) => `\`${r}\``).join(', ')}` : ''}`]);
  const blocks = report.status.blocks[t.key] ?? [];
  if (blocks.length) rows.push(['blocks', blocks.map((k) => `\`${report.tree.tickets.find((x) => x.key === k)?.ref ?? k}\``).join(', ')]);
  if (t.covers.length) rows.push(['covers', t.covers.map(esc).join(', ')]);
  if (t.hitl) rows.push(['hitl', 'a person takes part']);
  if (t.refine && !t.refined) rows.push(['refine', 'needs refining before it starts']);
  if (t.drift) rows.push(['drift', "the leaf file's `after`/`hitl` differ from its entry's"]);
  md.appendMarkdown(`| | |\n|---|---|\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}\n\n`);
  for (const p of ticketProblems(report, t)) md.appendMarkdown(`- ${p.severity === 'info' ? '$(info)' : p.severity === 'error' ? '$(error)' : '$(warning)'} ${esc(p.message)}\n`);
  if (opts.links !== false) {
    const arg = { root: report.root, ref: t.key };
    const links = [link('$(go-to-file) Open', COMMANDS.openTicket, arg)];
    if (t.plan) links.push(link('$(checklist) Plan', COMMANDS.openTicketPlan, arg));
    if (opts.canWrite !== false && report.tree.store === 'repo') links.push(link('$(edit) Set status…', COMMANDS.setTicketStatus, arg));
    md.appendMarkdown(`\n${links.join(' · ')}`);
  }
  return md;
}

/** `Epic 2: Payments`. */
export function epicLabel(e: Epic): string {
  const name = e.title || e.slug.replace(/^epic-/, '');
  return e.id !== undefined ? `Epic ${e.id}: ${name}` : name;
}

/** `in-progress · 1/5 done · after Cart · gated by epic-payments · ⚠ 1`. */
export function epicDescription(report: TreeReport, e: Epic): string {
  const tickets = e.tickets.map((k) => report.tree.tickets.find((t) => t.key === k)).filter((t): t is Ticket => !!t);
  const live = tickets.filter((t) => t.state !== 'dropped');
  const done = live.filter((t) => t.state === 'done').length;
  const parts = [e.status || (done || tickets.some((t) => t.state !== 'planned' && t.state !== 'backlog') ? 'no status' : 'not started'), `${done}/${live.length} done`];
  const blocked = tickets.filter((t) => t.status === 'blocked').length;
  if (blocked) parts.push(`${blocked} blocked`);
  const title = (slug: string) => {
    const o = report.tree.epics.find((x) => x.slug === slug);
    return o ? o.title || slug : slug;
  };
  if (e.after.length) parts.push(`after ${e.after.map((a) => title(a.epic)).join(', ')}`);
  if (e.gatedBy.length) parts.push(`gated by ${e.gatedBy.join(', ')}`);
  const files = new Set([e.file].filter(Boolean));
  const n = report.problems.filter((p) => p.severity !== 'info' && files.has(p.file)).length;
  if (n) parts.push(`⚠ ${n}`);
  return parts.join(' · ');
}

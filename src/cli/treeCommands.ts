// BMAD v7's ticket tree in the CLI: what `sprint`, `next`, `board` and `deps` print on a v7
// project, and `waymark bmad migrate-check`. Each is a few lines over the core's tree functions.
import * as path from 'node:path';
import type { CliCommand, CliContext } from './framework';
import { rootArg } from './cliCore';
import {
  WaymarkError,
  migrateCheck,
  nextGroups,
  readTicketTree,
  resolveTicket,
  ticketJson,
  treeNextJson,
  treeProblems,
  treeStatus,
  type NextItem,
  type Problem,
  type Ticket,
  type TicketTree,
} from '../core/index';

function display(file: string | undefined, cwd: string): string {
  if (!file) return '';
  const rel = path.relative(cwd, file);
  return rel && !/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

/** The project's v7 tree, when it has one. */
export function ticketTreeAt(root: string): TicketTree | undefined {
  return readTicketTree(root);
}

export function treeProblemJson(p: Problem, cwd: string) {
  return { file: display(p.file, cwd), line: p.range.start.line + 1, severity: p.severity, code: p.code, message: p.message, ...(p.data ? { data: p.data } : {}) };
}

const MARK: Record<string, string> = { done: '✓', review: '◎', 'in-progress': '▶', backlog: '○', planned: '·', dropped: '✗' };

function ticketLine(t: Ticket, extra = ''): string {
  const who = t.assignee ? `  @${t.assignee}` : '';
  const blocked = t.blockedReason ? `  blocked: ${t.blockedReason}` : '';
  const status = t.status && t.status !== t.state ? ` (${t.status})` : '';
  return `    ${MARK[t.state] ?? '?'} ${t.ref.padEnd(8)} ${t.title.slice(0, 50).padEnd(50)} ${t.state}${status}${who}${blocked}${extra}`;
}

function problemLines(problems: Problem[], cwd: string): string[] {
  return problems.map((p) => `  ${p.severity === 'error' ? '✗' : p.severity === 'warning' ? '⚠' : 'ℹ'} ${display(p.file, cwd)}:${p.range.start.line + 1}: ${p.message} [${p.code}]`);
}

/** `waymark sprint --json` on a v7 project. */
export function treeSprintJson(tree: TicketTree, cwd: string): Record<string, unknown> {
  const s = treeStatus(tree);
  const byKey = new Map(tree.tickets.map((t) => [t.key, t]));
  return {
    kind: 'ticket-tree',
    root: tree.root,
    folder: display(tree.folder, cwd),
    initiative: tree.initiative ? { slug: tree.initiative.slug, title: tree.initiative.title, status: tree.initiative.status } : null,
    store: tree.store,
    counts: s.counts,
    longestRemainingChain: s.longestRemainingChain,
    epics: tree.epics.map((e) => ({
      kind: 'epic', slug: e.slug, id: e.id ?? null, title: e.title, status: e.status, after: e.after, gatedBy: e.gatedBy,
      tickets: e.tickets.map((k) => byKey.get(k)).filter((t): t is Ticket => !!t).map((t) => ({ ...ticketJson(t, tree), blocks: (s.blocks[t.key] ?? []).map((b) => byKey.get(b)?.ref ?? b) })),
    })),
    unlisted: tree.tickets.filter((t) => !tree.epics.some((e) => e.slug === t.epic)).map((t) => ticketJson(t, tree)),
    backlog: tree.backlog.map((t) => ticketJson(t, tree)),
    archiveV6: tree.archiveV6 ? display(tree.archiveV6, cwd) : null,
    unpinnedAfter: tree.unpinnedAfter,
    undeclaredAfter: tree.undeclaredAfter,
    orderConflict: tree.orderConflict,
    problems: treeProblems(tree).map((p) => treeProblemJson(p, cwd)),
  };
}

/** `waymark sprint` on a v7 project, as text. */
export function treeSprintText(tree: TicketTree, cwd: string): string[] {
  const s = treeStatus(tree);
  const byKey = new Map(tree.tickets.map((t) => [t.key, t]));
  const lines: string[] = [];
  lines.push(`${tree.initiative ? `${tree.initiative.title} (${tree.initiative.slug})` : display(tree.folder, cwd)}  store: ${tree.store}${tree.archiveV6 ? '  (migrated from v6; archive-v6/ is history)' : ''}`);
  const { total, ...states } = s.counts;
  lines.push(`  ${total} tickets: ${Object.entries(states).map(([k, v]) => `${v} ${k}`).join(', ')}`);
  for (const e of tree.epics) {
    const gate = e.gatedBy.length ? `  after ${e.gatedBy.join(', ')}` : '';
    lines.push(`  ${e.id !== undefined ? `Epic ${String(e.id)}` : e.slug}: ${e.title}${e.status ? `  [${e.status}]` : ''}${gate}`);
    for (const k of e.tickets) {
      const t = byKey.get(k);
      if (t) lines.push(ticketLine(t, t.afterRefs.length ? `  after ${t.afterRefs.join(', ')}` : ''));
    }
  }
  const loose = tree.tickets.filter((t) => !tree.epics.some((e) => e.slug === t.epic));
  if (loose.length) lines.push('  Unlisted:', ...loose.map((t) => ticketLine(t)));
  if (tree.backlog.length) lines.push('  Backlog:', ...tree.backlog.map((t) => ticketLine(t)));
  if (s.longestRemainingChain.length > 1) lines.push('', `Longest remaining chain (${s.longestRemainingChain.length}): ${s.longestRemainingChain.join(' → ')}`);
  const probs = treeProblems(tree).filter((p) => p.severity !== 'info');
  if (probs.length) lines.push('', 'Problems:', ...problemLines(probs, cwd));
  return lines;
}

function itemLine(i: NextItem): string {
  return ticketLine(i.ticket, i.waitingOn.length ? `  waits on ${i.waitingOn.join(', ')}` : '');
}

/** `waymark next` on a v7 project, as text. */
export function treeNextText(tree: TicketTree, cwd: string): string[] {
  const g = nextGroups(tree);
  const out: string[] = [];
  const first = g.readyToStart[0] ?? g.readyToRefine[0];
  out.push(first ? `${g.readyToStart[0] ? 'Start' : 'Refine'} ${first.ref}: ${first.ticket.title}.` : 'Nothing is ready to start or refine.');
  const section = (title: string, items: NextItem[]) => {
    if (items.length) out.push('', `${title} (${items.length}):`, ...items.map(itemLine));
  };
  section('Ready to start', g.readyToStart);
  section('Ready to refine', g.readyToRefine);
  section('In progress', g.inProgress);
  section('Blocked', g.blocked);
  const probs = treeProblems(tree).filter((p) => p.severity === 'error');
  if (probs.length) out.push('', 'Problems (BMAD tickets.py refuses this tree):', ...problemLines(probs, cwd));
  return out;
}

/** The board's columns on a v7 tree. */
export function treeBoardJson(tree: TicketTree): Record<string, unknown> {
  const g = nextGroups(tree);
  const item = (i: NextItem) => ({ ...ticketJson(i.ticket, tree), waitingOn: i.waitingOn });
  const all = tree.scope === undefined ? tree.tickets : tree.tickets.filter((t) => t.epic === tree.scope);
  return {
    kind: 'ticket-tree',
    columns: {
      readyToRefine: g.readyToRefine.map(item),
      readyToStart: g.readyToStart.map(item),
      inProgress: g.inProgress.filter((i) => i.ticket.state === 'in-progress').map(item),
      review: g.inProgress.filter((i) => i.ticket.state === 'review').map(item),
      blocked: g.blocked.map(item),
      done: all.filter((t) => t.state === 'done').map((t) => ticketJson(t, tree)),
      dropped: all.filter((t) => t.state === 'dropped').map((t) => ticketJson(t, tree)),
    },
    backlog: tree.backlog.map((t) => ticketJson(t, tree)),
    longestRemainingChain: treeStatus(tree).longestRemainingChain,
  };
}

export function treeBoardText(tree: TicketTree): string[] {
  const b = treeBoardJson(tree).columns as Record<string, { ref: string; title: string; waitingOn?: string[] }[]>;
  const titles: Record<string, string> = { readyToRefine: 'Ready to refine', readyToStart: 'Ready to start', inProgress: 'In progress', review: 'In review', blocked: 'Blocked', done: 'Done', dropped: 'Dropped' };
  const out: string[] = [];
  for (const [k, title] of Object.entries(titles)) {
    const list = b[k];
    out.push(`${title} (${list.length})`);
    for (const t of k === 'done' ? list.slice(0, 20) : list) out.push(`  · ${t.ref}  ${t.title}${t.waitingOn?.length ? `  — waits on ${t.waitingOn.join(', ')}` : ''}`);
    if (k === 'done' && list.length > 20) out.push(`  … and ${list.length - 20} more`);
  }
  const chain = treeStatus(tree).longestRemainingChain;
  if (chain.length > 1) out.push(`Longest remaining chain (${chain.length}): ${chain.join(' → ')}`);
  return out;
}

/** `waymark deps REF` on a v7 tree; undefined when REF names no ticket. */
export function treeDeps(tree: TicketTree, ref: string): { json: Record<string, unknown>; text: string[] } | undefined {
  const hit = resolveTicket(tree, ref);
  if (!('ticket' in hit)) return undefined;
  const t = hit.ticket;
  const byKey = new Map([...tree.tickets, ...tree.backlog].map((x) => [x.key, x]));
  const s = treeStatus(tree);
  const side = (keys: string[]) => keys.map((k) => {
    const o = byKey.get(k);
    const epic = tree.epics.find((e) => e.slug === k);
    return o ? { kind: 'ticket', ref: o.ref, state: o.state, title: o.title } : { kind: 'epic', ref: k, state: epic?.status || 'open', title: epic?.title ?? k };
  });
  const waitsOn = side([...new Set([...t.after, ...t.gatedBy])]);
  const waitedOnBy = side(s.blocks[t.key] ?? []);
  const json = { item: ticketJson(t, tree), waitsOn, waitedOnBy };
  const text = [`${t.ref}  ${t.title}  ${t.state}${t.status && t.status !== t.state ? ` (${t.status})` : ''}`, `Waits on (${waitsOn.length}):`, ...waitsOn.map((w) => `  ${w.state === 'done' ? '✓' : '·'} ${w.ref}  ${w.state}  ${w.title}`), `Waited on by (${waitedOnBy.length}):`, ...waitedOnBy.map((w) => `  · ${w.ref}  ${w.state}  ${w.title}`)];
  return { json, text };
}

/** `next --json` for a v7 tree. */
export function treeNextJsonFor(tree: TicketTree): Record<string, unknown> {
  return treeNextJson(tree);
}

const migrateCheckCommand: CliCommand = {
  name: 'bmad migrate-check',
  usage: 'bmad migrate-check [DIR] [--json]',
  options: ['root'],
  summary: "Check a BMAD v6 → v7 migration: archive-v6/'s ledger and story files against the ticket tree, by BMAD's own status mapping.",
  help: [
    'DIR is the project folder (default: the nearest folder above holding _bmad, .waymark or .git).',
    '',
    "Compares each story of archive-v6/sprint-status.yaml (and its story file's Status) with the tree:",
    'backlog → no plan; drafted, contexted, ready-for-dev → ready-for-dev; in-progress; review, in-review →',
    'in-review; done; blocked. Any other status is a question BMAD never writes as is. The more advanced of',
    'story file and ledger wins. Reports statuses that differ, ledger stories with no entry, plans naming',
    'nothing, unmapped statuses copied over, and counts that do not add up.',
    '',
    'Options:',
    '  --json   print {counts, findings, problems}',
    '',
    'Exit codes: 0 the migration agrees with the archive, 1 findings, 2 no v7 tree or no archive-v6/ (or usage).',
  ].join('\n'),
  async run(ctx) {
    if (ctx.args.positionals.length > 1) throw new WaymarkError('usage', `Unexpected argument '${ctx.args.positionals[1]}'. Usage: waymark bmad migrate-check [DIR] [--json]`);
    const root = rootArg(ctx, ctx.args.positionals[0]);
    const tree = ticketTreeAt(root);
    if (!tree) throw new WaymarkError('unreadable', `No BMAD v7 ticket tree under ${display(root, ctx.cwd) || '.'}: no initiative-*/ folder and no core.active_initiative. Run BMAD's \`bmad migrate method\` first; \`waymark sprint\` reads a v6 project.`, root);
    const r = migrateCheck(root, { tree });
    if (!r) throw new WaymarkError('unreadable', `${tree.initiative?.slug ?? display(tree.folder, ctx.cwd)} has no archive-v6/: nothing to check a migration against. \`waymark validate\` checks the tree itself.`, tree.folder);
    if (ctx.json) {
      ctx.stdout(JSON.stringify({ root: r.root, archive: display(r.archive, ctx.cwd), ledger: r.ledger ? display(r.ledger, ctx.cwd) : null, counts: r.counts, findings: r.findings, problems: r.problems.map((p) => treeProblemJson(p, ctx.cwd)) }, null, 2) + '\n');
      return r.findings.length ? 1 : 0;
    }
    const c = r.counts;
    const out = [`${display(r.ledger ?? r.archive, ctx.cwd)}: ${c.ledgerStories} stories archived, ${c.matched} matched in the tree (${c.tickets} tickets).`];
    if (!r.findings.length) out.push('The tree agrees with the archive by BMAD\'s mapping.');
    else out.push('', `${r.findings.length} finding(s):`, ...problemLines(r.problems, ctx.cwd));
    ctx.stdout(out.join('\n') + '\n');
    return r.findings.length ? 1 : 0;
  },
};

export function assertNoExtra(ctx: CliContext, max: number, usage: string): void {
  if (ctx.args.positionals.length > max) throw new WaymarkError('usage', `Unexpected argument '${ctx.args.positionals[max]}'. Usage: waymark ${usage}`);
}

export const treeCommands: CliCommand[] = [migrateCheckCommand];

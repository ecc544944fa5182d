import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand, CliContext } from './framework';
import { dateFlag, flagString, requirePositional, wholeNumberFlag } from './framework';
import { rootArg } from './cliCore';
import { ticketTreeAt, treeBoardJson, treeBoardText, treeDeps, treeNextJsonFor, treeNextText } from './treeCommands';
import {
  WaymarkError,
  createStateCore,
  findWorkspaceRoot,
  notFileSystemRoot,
  loadProject,
  gitStateTimeline,
  snapshotRef,
  type RefSnapshot,
  nextJson,
  UNLEDGERED_REASON,
  boardJson,
  frontierEntryJson,
  projectProblemJson,
  BOARD_COLUMNS,
  projectTimeline,
  clipLongWords,
  describeChange,
  type FrontierEntry,
  type TimelineChange,
  type Problem,
  type ProjectView,
} from '../core/index';

const COMMON_HELP = `  --root DIR   a workspace folder (repeat for several: ids resolve across them); default the
               folder of PATH, or the nearest folder above holding .waymark, _bmad or .git
  --now TIME   compute as of this ISO time (default now): stalled work is judged against it
  --json       print JSON`;

function display(file: string | undefined, cwd: string): string | null {
  if (!file) return null;
  const rel = path.relative(cwd, file);
  return rel && !/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

function rootsOf(ctx: CliContext): string[] {
  const given = ctx.args.flags.root;
  const list = Array.isArray(given) ? given : typeof given === 'string' ? [given] : [];
  if (given === true) throw new WaymarkError('usage', '--root needs a folder.');
  if (!list.length) return [rootArg(ctx, ctx.args.positionals[0])];
  return list.map((r) => {
    const abs = path.resolve(ctx.cwd, r);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new WaymarkError('usage', `--root ${r} is not a folder.`);
    return abs;
  });
}

function nowOf(ctx: CliContext): Date | undefined {
  const t = dateFlag(ctx.args, 'now');
  return t === undefined ? undefined : new Date(t);
}

async function withProject<T>(ctx: CliContext, fn: (view: ProjectView) => T, roots = rootsOf(ctx)): Promise<T> {
  const core = createStateCore({ roots, memory: false });
  try {
    return fn(await loadProject(core, { now: nowOf(ctx) }));
  } finally {
    await core.close();
  }
}

function problemLines(problems: Problem[], cwd: string): string[] {
  return problems.map((p) => `  ${p.severity === 'error' ? '✗' : '⚠'} ${display(p.file, cwd)}:${p.range.start.line + 1}: ${p.message} [${p.code}]`);
}

function line(e: FrontierEntry, cwd: string): string {
  const where = e.item.file ? `  ${display(e.item.file, cwd)}` : '';
  return `  ${e.id}${where}\n      ${e.reason}`;
}

/**
 * What `next` says when nothing is ready: the open work there is, by what it is (in progress,
 * stalled, in review), never a kind that is not there (stalled work alone is not "in review").
 */
function nothingReady(f: ProjectView['frontier']): string {
  const stalled = f.stalled.length;
  const active = f.inProgress.length - f.inProgress.filter((e) => f.stalled.includes(e)).length;
  const open: string[] = [];
  if (active) open.push(`${active} in progress`);
  if (stalled) open.push(`${stalled} in progress but stalled (below)`);
  if (f.review.length) open.push(`${f.review.length} waiting for review (below)`);
  return open.length ? `Nothing is ready to start: finish what is open: ${open.join(', ')}.` : 'Nothing is ready to start.';
}

const nextCommand: CliCommand = {
  name: 'next',
  options: ['root', 'now'],
  usage: 'next [PATH] [--json]',
  summary: 'What to do now: ready work in the order to start it, with the reason; reviews waiting; stalled work (on a BMAD v7 tree: ready to refine, ready to start, in progress, blocked).',
  help: `Options:\n${COMMON_HELP}\n\nReady work is ordered by how much work it unblocks, then priority, then age. Exit codes: 0 ok
(also when nothing is ready), 2 usage or an unreadable folder.`,
  async run(ctx) {
    // A v7 project: the ticket tree is its work; BMAD's groups, read without scanning the project.
    const tree = ticketTreeAt(rootsOf(ctx)[0]);
    if (tree) {
      if (ctx.json) ctx.stdout(JSON.stringify(treeNextJsonFor(tree), null, 2) + '\n');
      else ctx.stdout([...treeNextText(tree, ctx.cwd), '', 'Workflows outside the ticket tree: waymark board.'].map(clipLongWords).join('\n') + '\n');
      return 0;
    }
    return withProject(ctx, (view) => {
      const f = view.frontier;
      if (ctx.json) {
        ctx.stdout(JSON.stringify(nextJson(view, (file) => display(file, ctx.cwd)), null, 2) + '\n');
        return 0;
      }
      const out: string[] = [];
      if (f.ready.length) out.push(`Start ${f.ready[0].id}: ${f.ready[0].reason}.`, '', 'Ready, in order:', ...f.ready.slice(0, 10).map((e) => line(e, ctx.cwd)));
      else out.push(nothingReady(f));
      if (f.ready.length > 10) out.push(`  … and ${f.ready.length - 10} more (waymark board)`);
      const unledgered = f.blocked.filter((e) => e.item.kind === 'story' && e.item.blockedReason === UNLEDGERED_REASON);
      if (unledgered.length) out.push('', `Run BMAD sprint planning (bmad-sprint-planning): the epics plan ${unledgered.length} stor${unledgered.length === 1 ? 'y' : 'ies'} sprint-status.yaml lacks (${unledgered.slice(0, 3).map((e) => e.item.storyKey ?? e.id.replace(/^story:/, '')).join(', ')}${unledgered.length > 3 ? ', …' : ''}); create-story finds ${unledgered.length === 1 ? 'it' : 'them'} only after.`);
      if (f.review.length) out.push('', 'Waiting for review:', ...f.review.map((e) => line(e, ctx.cwd)));
      if (f.stalled.length) out.push('', 'Stalled:', ...f.stalled.map((e) => line(e, ctx.cwd)));
      if (f.criticalPath.length > 1) out.push('', `Critical path (${f.criticalPath.length}): ${f.criticalPath.join(' → ')}`);
      const probs = f.problems.filter((p) => p.code !== 'work-stalled');
      if (probs.length) out.push('', 'Problems:', ...problemLines(probs, ctx.cwd));
      // An id or reason thousands of characters long (a hostile file) is clipped; paths stay whole.
      ctx.stdout(out.map(clipLongWords).join('\n') + '\n');
      return 0;
    });
  },
};

const boardCommand: CliCommand = {
  name: 'board',
  options: ['root', 'now'],
  usage: 'board [PATH] [--json]',
  summary: 'The whole project by column: ready, in progress, in review, blocked (and by what), done, dropped; stalled work and the critical path.',
  help: `Options:\n${COMMON_HELP}\n\nExit codes: 0 ok, 1 dependency problems found (unknown targets, cycles), 2 usage or unreadable.`,
  async run(ctx) {
    const tree = ticketTreeAt(rootsOf(ctx)[0]);
    return withProject(ctx, (view) => {
      const f = view.frontier;
      const depErrors = f.problems.filter((p) => p.severity === 'error').length;
      if (tree) {
        const treeErrors = tree.problems.filter((p) => p.severity === 'error').length;
        if (ctx.json) ctx.stdout(JSON.stringify({ ...treeBoardJson(tree), project: boardJson(view, (file) => display(file, ctx.cwd)) }, null, 2) + '\n');
        else ctx.stdout(treeBoardText(tree).map(clipLongWords).join('\n') + '\n');
        return depErrors || treeErrors ? 1 : 0;
      }
      if (ctx.json) {
        ctx.stdout(JSON.stringify(boardJson(view, (file) => display(file, ctx.cwd)), null, 2) + '\n');
        return depErrors ? 1 : 0;
      }
      const out: string[] = [];
      for (const [key, title] of BOARD_COLUMNS) {
        const list = f[key];
        out.push(`${title} (${list.length})`);
        for (const e of key === 'done' ? list.slice(0, 20) : list) out.push(`  ${e.stalled ? '⏸' : '·'} ${e.id}${key === 'done' || key === 'dropped' ? '' : `  — ${e.reason}`}`);
        if (key === 'done' && list.length > 20) out.push(`  … and ${list.length - 20} more`);
      }
      if (f.stalled.length) out.push(`Stalled (${f.stalled.length}): ${f.stalled.map((e) => e.id).join(', ')}`);
      if (f.criticalPath.length) out.push(`Critical path (${f.criticalPath.length}): ${f.criticalPath.join(' → ')}`);
      if (f.problems.length) out.push('Problems:', ...problemLines(f.problems, ctx.cwd));
      ctx.stdout(out.map(clipLongWords).join('\n') + '\n');
      return depErrors ? 1 : 0;
    });
  },
};

const depsCommand: CliCommand = {
  name: 'deps',
  options: ['root', 'now'],
  usage: 'deps FILE|ID [--json]',
  summary: 'What a workflow or story waits on, and what waits on it.',
  help: `Options:\n${COMMON_HELP}\n\nFILE is a workflow or story file; ID a workflow id, a delegation id or story:<key>; on a BMAD v7 tree
also a ticket ref (1.2, 2.3a, a leaf file name, a tracker id).
Exit codes: 0 ok, 2 usage, or FILE/ID is no item of the project.`,
  async run(ctx) {
    const target = requirePositional(ctx.args, 0, 'FILE or ID (the workflow or story to look at)');
    const abs = path.resolve(ctx.cwd, target);
    const isFile = fs.existsSync(abs);
    if (isFile && fs.statSync(abs).isDirectory()) throw new WaymarkError('usage', `${target} is a folder; give a workflow file or id.`, abs);
    if (!ctx.args.flags.root && !isFile) ctx.args.flags.root = notFileSystemRoot(findWorkspaceRoot(path.join(ctx.cwd, '.waymark-probe'), ctx.cwd));
    else if (!ctx.args.flags.root) ctx.args.flags.root = notFileSystemRoot(findWorkspaceRoot(abs, ctx.cwd));
    ctx.args.positionals = [];
    const tree = isFile ? undefined : ticketTreeAt(rootsOf(ctx)[0]);
    const v7 = tree ? treeDeps(tree, target) : undefined;
    if (v7) {
      ctx.stdout((ctx.json ? JSON.stringify(v7.json, null, 2) : v7.text.join('\n')) + '\n');
      return 0;
    }
    return withProject(ctx, (view) => {
      const reg = view.registry;
      const item = isFile ? reg.items.find((i) => i.file === abs || (i.file && fs.existsSync(i.file) && fs.realpathSync(i.file) === fs.realpathSync(abs))) : reg.byId.get(target) ?? reg.byId.get(`story:${target}`);
      if (!item) throw new WaymarkError('usage', `${target} is no workflow or story of ${view.roots.join(', ')}. Run waymark board for the ids.`, isFile ? abs : undefined);
      const entry = view.frontier.entries.get(item.id)!;
      const side = (edges: typeof reg.edges, pick: 'to' | 'from') =>
        edges.map((e) => {
          const other = view.frontier.entries.get(e[pick]);
          return { id: e[pick], kind: e.kind, column: other?.column ?? null, file: display(other?.item.file, ctx.cwd), done: other?.item.state === 'done' };
        });
      const waitsOn = side(reg.prerequisites.get(item.id) ?? [], 'to');
      const waitedOnBy = side(reg.dependents.get(item.id) ?? [], 'from');
      const problems = view.frontier.problems.filter((p) => p.file === item.file);
      if (ctx.json) {
        ctx.stdout(JSON.stringify({ item: frontierEntryJson(entry, (file) => display(file, ctx.cwd)), waitsOn, waitedOnBy, problems: problems.map((p) => projectProblemJson(p, (file) => display(file, ctx.cwd))) }, null, 2) + '\n');
        return 0;
      }
      const out = [`${item.id}${item.file ? `  ${display(item.file, ctx.cwd)}` : ''}`, `  ${entry.column}: ${entry.reason}`, '', `Waits on (${waitsOn.length}):`];
      for (const w of waitsOn) out.push(`  ${w.done ? '✓' : '·'} ${w.id}  ${w.column ?? 'unknown'}${w.kind === 'dependsOn' ? '' : `  (${w.kind})`}`);
      out.push(`Waited on by (${waitedOnBy.length}):`);
      for (const w of waitedOnBy) out.push(`  · ${w.id}  ${w.column ?? 'unknown'}${w.kind === 'dependsOn' ? '' : `  (${w.kind})`}`);
      if (problems.length) out.push('Problems:', ...problemLines(problems, ctx.cwd));
      ctx.stdout(out.join('\n') + '\n');
      return 0;
    });
  },
};

const timelineCommand: CliCommand = {
  name: 'timeline',
  options: ['root', 'now', 'since', 'file', 'max-commits', 'ref'],
  booleanFlags: ['no-git'],
  usage: 'timeline [PATH] [--since DATE] [--file F] [--ref REF] [--json]',
  summary: "The project's state changes in time order, from Waymark's history: who changed which state when.",
  help: `Options:\n${COMMON_HELP}\n  --since DATE  only changes at or after DATE (ISO date or time)\n  --file F      only the changes of one workflow or story file\n  --max-commits N  newest git commits read for changes made outside Waymark (default 1000; cached in .waymark/cache)\n  --no-git      Waymark's history only\n  --ref REF     the timeline as branch or ref REF has it (origin/main, feat/2-3): its files, history and\n                commits read from git, no checkout; with --file, F names the file as it is here\n\nExit codes: 0 ok, 1 no change found, 2 usage, unreadable, or an unknown ref.`,
  async run(ctx) {
    const since = dateFlag(ctx.args, 'since');
    const sinceRaw = since === undefined ? undefined : flagString(ctx.args, 'since');
    const fileRaw = flagString(ctx.args, 'file');
    const ref = flagString(ctx.args, 'ref');
    if (ctx.args.flags.ref === true) throw new WaymarkError('usage', '--ref needs a branch, tag or commit (origin/main).');
    const maxCommits = wholeNumberFlag(ctx.args, 'max-commits', { min: 1 });
    const roots = rootsOf(ctx);
    // With --ref every root is read as REF has it, from a temp copy of its files; shown under the real root.
    const snaps: RefSnapshot[] = [];
    try {
      if (ref !== undefined) for (const r of roots) snaps.push(await snapshotRef(r, ref));
      const readRoots = ref !== undefined ? snaps.map((s) => s.dir) : roots;
      const shownAs = (file: string): string => {
        for (let i = 0; i < readRoots.length; i++) {
          const rel = path.relative(readRoots[i], file);
          if (!/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel)) return path.join(roots[i], rel);
        }
        return file;
      };
      const toRead = (file: string): string => {
        for (let i = 0; i < roots.length; i++) {
          const rel = path.relative(roots[i], file);
          if (!/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel)) return path.join(readRoots[i], rel);
        }
        return file;
      };
      const only = fileRaw === undefined ? undefined : toRead(path.resolve(ctx.cwd, fileRaw));
      if (only && !fs.existsSync(only)) throw new WaymarkError('unreadable', `--file ${fileRaw}: no such file${ref !== undefined ? ` at ${ref}` : ''}.`, only);
      const git = new Map<string, Awaited<ReturnType<typeof gitStateTimeline>>>();
      if (ctx.args.flags['no-git'] !== true) {
        for (let i = 0; i < roots.length; i++) git.set(readRoots[i], await gitStateTimeline(roots[i], { maxCommits, since: sinceRaw, ref }));
      }
      return await timelineOf(ctx, readRoots, git, only, since, sinceRaw, shownAs);
    } finally {
      for (const s of snaps) s.dispose();
    }
  },
};

async function timelineOf(
  ctx: CliContext,
  readRoots: string[],
  git: Map<string, Awaited<ReturnType<typeof gitStateTimeline>>>,
  only: string | undefined,
  since: number | undefined,
  sinceRaw: string | undefined,
  shownAs: (file: string) => string,
): Promise<number> {
  const shown = (file: string, cwd: string) => display(shownAs(file), cwd);
  return withProject(
    ctx,
    (view) => {
      // On a v7 tree, a change to a plan or leaf file is a change of its ticket.
      const tree = ticketTreeAt(readRoots[0]);
      const ticketOf = new Map<string, { kind: 'ticket'; ref: string; state: string }>();
      for (const t of tree ? [...tree.tickets, ...tree.backlog] : []) for (const f of [t.plan, t.file]) if (f) ticketOf.set(f, { kind: 'ticket', ref: t.ref, state: t.state });
      const rows = projectTimeline(view, git, { since, file: only }).map((r) => ({ ...r, ...(ticketOf.get(r.file) ?? {}), file: shown(r.file, ctx.cwd) }));
      if (ctx.json) ctx.stdout(JSON.stringify({ changes: rows }, null, 2) + '\n');
      else if (!rows.length) ctx.stdout('No state changes recorded' + (since !== undefined ? ` since ${sinceRaw}` : '') + '.\n');
      else {
        let day = '';
        const out: string[] = [];
        for (const r of rows) {
          if (r.time.slice(0, 10) !== day) out.push(`${(day = r.time.slice(0, 10))}`);
          out.push(`  ${r.time.slice(11, 16)}  ${r.id}  ${r.operation}${r.commit ? ` ${r.commit.slice(0, 8)}` : ''}${change(r)}${r.actor ? `  by ${r.actor}` : ''}${r.session ? `  [${r.session}]` : ''}`);
        }
        ctx.stdout(out.join('\n') + '\n');
      }
      return rows.length ? 0 : 1;
    },
    readRoots,
  );
}

function change(r: Pick<TimelineChange, 'from' | 'to'>): string {
  const parts = describeChange(r);
  return parts.length ? `  ${parts.join(', ')}` : '';
}

export const projectCommands: CliCommand[] = [nextCommand, boardCommand, depsCommand, timelineCommand];

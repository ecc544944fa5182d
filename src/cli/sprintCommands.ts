import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand, CliContext } from './framework';
import { statusWorktrees } from './gitCommands';
import { ticketTreeAt, treeSprintJson, treeSprintText } from './treeCommands';
import { flagString, requirePositional, wholeNumberFlag } from './framework';
import { NO_EPIC, nestedBmadProjects, PLAN_STATUS_WORDS, WaymarkError, clip, clipLongWords, createStateCore, findWorkspaceRoot, hasTicketTree, isBmadProjectFolder, loadSprint, plannedOnly, subProjects, resolveStoryRef, storyRefMessage, type Problem, type SprintReport, type SprintStory, type StoryWriteOptions, type StoryWriteResult, type TicketWriteResult, notFileSystemRoot } from '../core/index';

const WRITE_HELP = `Options:
  --root DIR          the project folder (default: the nearest folder above holding _bmad, .waymark or .git)
  --expect-hash HASH  refuse (exit 3) when the story's state hash is not HASH (from waymark sprint --json)
  --actor NAME        who does this, recorded in history (default $WAYMARK_ACTOR or "cli")
  --session S         session marker recorded in history (default $WAYMARK_SESSION)
  --force             allow what the status rules refuse (recorded in history)
  --json              print the result as JSON

KEY must name one story: its full ledger key, or its number (1-2, 1.2) when one story has it.

Exit codes: 0 ok; 1 the ledger is not valid YAML; 2 usage (no such story, bad status), no sprint
or unreadable; 3 conflict (stale --expect-hash, file locked); 4 refused by the status rules the
agent hooks apply (a done story moved back, done without review, done with tasks open).`;

function display(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel && !/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

/** Unknown options are errors, never ignored. */
function assertFlags(ctx: CliContext, allowed: string[]): void {
  const ok = new Set([...allowed, 'json', 'help', 'h']);
  for (const f of Object.keys(ctx.args.flags)) {
    if (!ok.has(f)) throw new WaymarkError('usage', `Unknown option --${f}. Options: ${allowed.map((a) => `--${a}`).join(', ')}, --json.`);
  }
}

function rootOf(ctx: CliContext, given?: string): string {
  const dir = path.resolve(ctx.cwd, given ?? '.');
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw new WaymarkError('unreadable', `${given ?? dir}: no such folder.`, dir);
  }
  if (!st.isDirectory()) throw new WaymarkError('usage', `${given ?? dir} is not a folder; give the project folder.`, dir);
  if (given) return dir;
  const top = notFileSystemRoot(findWorkspaceRoot(path.join(dir, '_'), dir));
  // Inside a BMAD project of its own below the workspace root (a monorepo's `test-platform/` with
  // its own `docs/sprint-status.yaml`): that project, as `validate` and `next` run there read it.
  for (let d = dir; d !== top && d.startsWith(top + path.sep); d = path.dirname(d)) {
    if (isBmadProjectFolder(d)) return d;
  }
  return top;
}

function staleDays(ctx: CliContext): number | undefined {
  return wholeNumberFlag(ctx.args, 'stale-days', { max: 100_000 });
}

function problemJson(p: Problem, cwd: string) {
  return { file: display(p.file, cwd), line: p.range.start.line + 1, column: p.range.start.character + 1, severity: p.severity, code: p.code, message: p.message, ...(p.data ? { data: p.data } : {}) };
}

function storyJson(s: SprintStory, cwd: string) {
  return {
    key: s.key, epic: s.epic, epicId: s.epicId, story: s.story, title: s.title ?? null, status: s.status,
    ledgerStatus: s.ledgerStatus ?? null, ledgerRaw: s.ledgerRaw ?? null, ledger: s.ledgerFile ? display(s.ledgerFile, cwd) : null, file: s.file ? display(s.file, cwd) : null,
    fileStatus: s.fileStatus ?? null, tasks: s.tasks, gate: s.gate ? { ...s.gate, file: display(s.gate.file, cwd) } : null,
    planned: s.planned ? { file: display(s.planned.file, cwd), line: s.planned.line + 1 } : null, stateHash: s.stateHash,
    problems: s.problems.map((p) => problemJson(p, cwd)),
  };
}

function sprintJson(r: SprintReport, cwd: string) {
  return {
    root: r.root, layout: r.config.layout, ledger: r.ledgerFile ? display(r.ledgerFile, cwd) : null, ledgers: r.ledgerFiles.map((f) => display(f, cwd)),
    lastUpdated: r.ledger?.lastUpdated?.raw ?? null, counts: r.counts, next: r.next ?? null,
    epics: r.epics.map((e) => ({ epic: e.epic, id: e.id, title: e.title ?? null, status: e.ledgerStatus ?? null, retrospective: e.retrospective ?? null, stories: e.stories.map((s) => storyJson(s, cwd)) })),
    actionItems: r.actionItems, problems: r.problems.map((p) => problemJson(p, cwd)),
  };
}

const MARK: Record<string, string> = { done: '✓', review: '◎', 'in-progress': '▶', 'ready-for-dev': '○', backlog: '·' };

function storyLine(s: SprintStory, hasLedger = true): string {
  const file = s.fileStatus !== undefined && s.fileStatusMapped !== s.ledgerStatus && s.ledgerStatus !== undefined ? ` (file: ${s.fileStatus})` : hasLedger && s.ledgerStatus === undefined && s.file ? ' (not in ledger)' : '';
  const tasks = s.tasks.total ? `  ${s.tasks.done}/${s.tasks.total} tasks` : '';
  const gate = s.gate ? `  gate ${s.gate.verdict ?? '?'}${s.gate.open ? '' : ' (closed)'}` : '';
  const probs = s.problems.filter((p) => p.severity !== 'info').length;
  return `    ${MARK[s.status] ?? '?'} ${s.key.padEnd(40)} ${s.status}${file}${tasks}${gate}${probs ? `  ⚠ ${probs}` : ''}`;
}

const sprint: CliCommand = {
  name: 'sprint',
  usage: 'sprint [ROOT] [--json] [--stale-days N] [--worktrees]',
  options: ['root', 'stale-days'],
  booleanFlags: ['worktrees'],
  summary: 'List epics and stories of a BMAD project (v6 ledger, or v7 ticket tree): status, tasks, gates, drift, and what to do next.',
  help: [
    'Reads sprint-status.yaml, the story files, the epics document and QA gates where the BMAD config puts them.',
    'On a BMAD v7 project it reads the ticket tree instead (the active initiative\'s tickets.toml, epics, leaf',
    'files and plans); --json then prints {kind: "ticket-tree", epics: [{tickets: [...]}], backlog, problems, v6}.',
    '',
    'Options:',
    '  --json           print {epics: [{stories: [...]}], next, problems, counts}',
    '  --stale-days N   the ledger is stale when last_updated is older than N days with work in progress (default 7)',
    '  --worktrees      each story as every git worktree has it, marked where a worktree is ahead of main',
    '',
    'Exit codes: 0 ok (drift is reported, not an error), 1 errors in the ledger, 2 no BMAD sprint found or ROOT unreadable.',
  ].join('\n'),
  async run(ctx) {
    assertFlags(ctx, ['stale-days', 'worktrees']);
    if (ctx.args.flags.worktrees === true) return statusWorktrees(ctx, 'story');
    const root = rootOf(ctx, ctx.args.positionals[0]);
    const r = loadSprint(root, { staleDays: staleDays(ctx), cache: true });
    // A v7 project: its ticket tree; a v6 ledger still live beside it (mid-migration) is shown too, once.
    const tree = ticketTreeAt(root);
    if (tree) {
      const treeErrors = tree.problems.some((p) => p.severity === 'error');
      if (ctx.json) {
        ctx.stdout(JSON.stringify({ ...treeSprintJson(tree, ctx.cwd), v6: r ? sprintJson(r, ctx.cwd) : null }) + '\n');
        return treeErrors ? 1 : 0;
      }
      const lines = treeSprintText(tree, ctx.cwd);
      if (r && r.stories.length) lines.push('', `Also a live v6 sprint (${r.stories.length} stories): ${r.ledgerFile ? display(r.ledgerFile, ctx.cwd) : 'story files'}; waymark sprint --json lists it under v6.`);
      ctx.stdout(lines.join('\n') + '\n');
      return treeErrors ? 1 : 0;
    }
    if (!r) {
      // Stories planned only inside the epics document (`## Story 1.1` sections, no story files yet): said, with the step that starts tracking them.
      const planned = plannedOnly(root);
      if (planned) {
        const docs = planned.files.map((f) => display(f, ctx.cwd));
        throw new WaymarkError('unreadable', `No BMAD sprint under ${display(root, ctx.cwd) || '.'} yet: its ${planned.stories} stor${planned.stories === 1 ? 'y is' : 'ies are'} planned only inside ${docs.slice(0, 3).join(', ')}${docs.length > 3 ? ` and ${docs.length - 3} more` : ''} (\`## Story N.M\` sections), with no sprint-status.yaml and no story files. Run BMAD sprint planning (bmad-sprint-planning) to write sprint-status.yaml from the epics, then create-story for the first story (on v4, the SM's *draft writes it); waymark sprint lists them from then on.`, root);
      }
      throw new WaymarkError('unreadable', `No BMAD sprint under ${display(root, ctx.cwd) || '.'}: no sprint-status.yaml and no story files. Run BMAD sprint planning first.`, root);
    }
    const errors = r.problems.filter((p) => p.severity === 'error').length;
    // BMAD projects of their own nested below this one (a v4 project in `Projects/App/`): this answer
    // is the root's project; each of them is named, with its stories, and read from its own folder.
    const nested = nestedSprints(r.root, ctx.cwd);
    // A repository that is no BMAD project itself, holding several (sibling apps, each with its own
    // ledger and stories: `apps/a/`, `apps/b/`): the answer is the first's; each other one's sprint is
    // listed after it as a project of its own (`projects`), its stories bound to its own ledger only.
    const siblings = siblingSprints(root, r);
    const siblingErrors = siblings.reduce((n, x) => n + x.problems.filter((p) => p.severity === 'error').length, 0);
    if (ctx.json) {
      ctx.stdout(JSON.stringify({ ...sprintJson(r, ctx.cwd), ...(nested.length ? { nestedProjects: nested } : {}), ...(siblings.length ? { projects: siblings.map((x) => sprintJson(x, ctx.cwd)) } : {}) }) + '\n');
      return errors + siblingErrors ? 1 : 0;
    }
    const lines: string[] = [];
    if (siblings.length) lines.push(`${display(r.root, ctx.cwd)}: the first of ${siblings.length + 1} BMAD projects under ${path.relative(ctx.cwd, root) || '.'} (the others follow)`);
    if (!r.ledgers.length) lines.push('(no sprint-status.yaml)');
    lines.push(...ledgerLines(r, ctx.cwd));
    let project: string | undefined;
    for (const e of r.epics) {
      // A sibling app's ledger kept in a folder of the first's stories: its epics after the first's, under its name.
      if (e.project !== project && e.project) lines.push(`  — ${display(e.project, ctx.cwd)}: a project of its own (its epics, stories and story files) —`);
      project = e.project;
      lines.push(...epicLines(e, !!r.ledger));
    }
    const open = r.actionItems.filter((a) => a.status !== 'done');
    if (open.length) lines.push(`  ${open.length} open action item(s): ${open.slice(0, 3).map((a) => a.action).join('; ')}`);
    const shown = r.problems.filter((p) => p.severity !== 'info');
    if (shown.length) {
      lines.push('', 'Problems:');
      for (const p of shown) lines.push(problemLine(p, ctx.cwd));
    }
    const info = r.problems.length - shown.length;
    if (info) lines.push(`  (+${info} info: waymark sprint --json lists them)`);
    // A ledger Waymark reads no story from says why, and the sprint is not called done.
    const otherFormat = r.problems.filter((p) => p.code === 'ledger-other-format');
    for (const p of otherFormat) lines.push(`  ${display(p.file, ctx.cwd)}:${p.range.start.line + 1}: ${p.message}`);
    for (const n of nested) lines.push(`  Also a BMAD project of its own: ${n.root} (${n.stories} stor${n.stories === 1 ? 'y' : 'ies'}); read it with: waymark sprint ${JSON.stringify(n.root)}`);
    const none = r.epics.every((e) => !e.stories.length);
    lines.push('', r.next ? `Next: ${r.next.action}${r.next.storyKey ? ` ${r.next.storyKey}` : ''}: ${r.next.reason}` : none ? `Next: nothing: no story is listed${otherFormat.length ? " in BMAD's format" : ''}.` : 'Next: nothing: every story and retrospective is done.');
    for (const x of siblings) {
      lines.push('', `${display(x.root, ctx.cwd)}: a BMAD project of its own (its ledger, epics and stories)`);
      lines.push(...ledgerLines(x, ctx.cwd));
      for (const e of x.epics) lines.push(...epicLines(e, !!x.ledger));
      const shownX = x.problems.filter((p) => p.severity !== 'info');
      if (shownX.length) lines.push('  Problems:');
      for (const p of shownX) lines.push(problemLine(p, ctx.cwd));
      lines.push(x.next ? `  Next there: ${x.next.action}${x.next.storyKey ? ` ${x.next.storyKey}` : ''}: ${x.next.reason}` : '  Next there: nothing.');
    }
    // A word thousands of characters long (a hostile status or key) is clipped; paths stay whole.
    ctx.stdout(lines.map(clipLongWords).join('\n') + '\n');
    return errors + siblingErrors ? 1 : 0;
  },
};

/** A sprint's ledgers (each with its last update) and its story counts, as `waymark sprint` prints them. */
function ledgerLines(r: SprintReport, cwd: string): string[] {
  return [...r.ledgers.map((l) => `${display(l.file, cwd)}${l.lastUpdated ? `  last updated ${clip(l.lastUpdated.raw, 80)}` : ''}`), `  ${Object.entries(r.counts).map(([k, v]) => `${v} ${k}`).join(', ') || 'no stories'}`];
}

/** An epic's header line, then a line per story. */
function epicLines(e: SprintReport['epics'][number], hasLedger: boolean): string[] {
  return [`  ${e.id === NO_EPIC ? 'No epic (stories numbered on their own)' : `Epic ${e.id}`}${e.title ? `: ${e.title}` : ''}${e.ledgerStatus ? `  [${e.ledgerStatus}]` : hasLedger ? '  [not in ledger]' : ''}${e.retrospective ? `  retro ${e.retrospective}` : ''}`, ...e.stories.map((s) => storyLine(s, hasLedger))];
}

/** A problem as `file:line:column severity code message`. */
function problemLine(p: Problem, cwd: string): string {
  return `  ${display(p.file, cwd)}:${p.range.start.line + 1}:${p.range.start.character + 1} ${p.severity} ${p.code} ${p.message}`;
}

/** The sprints of the BMAD projects beside the one answered, when root is no project itself but holds several. */
function siblingSprints(root: string, first: SprintReport): SprintReport[] {
  const out: SprintReport[] = [];
  for (const dir of subProjects(root)) {
    if (path.resolve(dir) === path.resolve(first.root)) continue;
    const x = loadSprint(dir, { cache: true });
    if (x && (x.stories.length || x.ledgers.length)) out.push(x);
  }
  return out;
}

/** The BMAD projects nested below root that hold a sprint of their own: where, and how many stories. */
function nestedSprints(root: string, cwd: string): { root: string; stories: number }[] {
  const out: { root: string; stories: number }[] = [];
  for (const dir of nestedBmadProjects(root)) {
    const n = loadSprint(dir, {});
    if (n?.stories.length) out.push({ root: display(dir, cwd), stories: n.stories.length });
  }
  return out;
}

function writeOptions(ctx: CliContext): StoryWriteOptions {
  const opts: StoryWriteOptions = { actor: flagString(ctx.args, 'actor') ?? process.env.WAYMARK_ACTOR ?? 'cli', force: ctx.args.flags.force === true };
  const session = flagString(ctx.args, 'session') ?? process.env.WAYMARK_SESSION;
  if (session) opts.session = session;
  const expect = flagString(ctx.args, 'expect-hash');
  if (expect !== undefined) {
    if (!/^[0-9a-f]{64}$/i.test(expect)) throw new WaymarkError('usage', `--expect-hash must be a 64-character hex state hash (from waymark sprint --json); got ${expect}.`);
    opts.expectHash = expect.toLowerCase();
  }
  return opts;
}

/** The same core as every other write verb: leases honoured, every write an event. */
async function withCore<T>(ctx: CliContext, root: string, fn: (core: ReturnType<typeof createStateCore>, opts: StoryWriteOptions) => Promise<T>): Promise<T> {
  const opts = writeOptions(ctx);
  const core = createStateCore({ roots: [root], actor: opts.actor, session: opts.session, origin: 'cli', memory: false });
  try {
    return await fn(core, opts);
  } finally {
    await core.close();
  }
}

function renderWrite(ctx: CliContext, r: StoryWriteResult, what: string): number {
  if (ctx.json) {
    ctx.stdout(JSON.stringify({ key: r.key, operation: r.operation, changed: r.changed, written: r.written.map((f) => display(f, ctx.cwd)), status: r.after.status, fileStatus: r.after.fileStatus ?? null, tasks: r.after.tasks, stateHash: r.after.stateHash, seq: r.seq ?? null }) + '\n');
  } else if (!r.changed) {
    ctx.stdout(`${r.key}: ${what} already; nothing written.\n`);
  } else {
    ctx.stdout(`${r.key}: ${what} (${r.written.map((f) => display(f, ctx.cwd)).join(', ')}).\n`);
  }
  return 0;
}

function renderTicketWrite(ctx: CliContext, r: TicketWriteResult): number {
  const a = r.after;
  if (ctx.json) {
    ctx.stdout(JSON.stringify({ kind: 'ticket', ref: r.ref, key: r.key, operation: r.operation, changed: r.changed, created: r.created, plan: display(r.plan, ctx.cwd), written: r.written.map((f) => display(f, ctx.cwd)), status: a.status || null, state: a.state, blockedAt: a.blockedAt || null, blockedReason: a.blockedReason || null, assignee: a.assignee || null, seq: r.seq ?? null }) + '\n');
  } else if (!r.changed) {
    ctx.stdout(`${r.ref}: status ${a.status} already; nothing written.\n`);
  } else {
    ctx.stdout(`${r.ref}: status ${a.status}${a.blockedReason ? ` (blocked: ${a.blockedReason})` : ''} (${r.created ? 'created ' : ''}${display(r.plan, ctx.cwd)}).\n`);
  }
  return 0;
}

const storySetStatus: CliCommand = {
  name: 'story set-status',
  usage: 'story set-status REF STATUS [--blocked REASON] [--expect-hash HASH] [--force]',
  summary: 'Set a story\'s status: in its story file and sprint-status.yaml (BMAD v6), or in its ticket\'s plan (BMAD v7), as one change.',
  help: `BMAD v6: REF is the ledger key (2-6a-login) or its number (2.6a, 2-6a). STATUS: backlog, ready-for-dev, in-progress, review, done.
BMAD v7 (a ticket tree): REF is E.N (epic id . entry id), a bare id inside an epic, a file name, or
title words naming one ticket. STATUS: ${PLAN_STATUS_WORDS.join(', ')}. The plan is written as
tickets.py mark writes it (created with only its frontmatter when there is none); refused on a
tracker store (github, jira, linear, notion, trello), whose status comes from the tracker.
  --blocked REASON    v7: set blocked_at (today) and blocked_reason; without it both are cleared
  --assignee NAME     v7: set the plan's assignee

${WRITE_HELP}`,
  booleanFlags: ['force'],
  options: ['root', 'expect-hash', 'actor', 'session', 'blocked', 'assignee'],
  async run(ctx) {
    assertFlags(ctx, ['root', 'expect-hash', 'actor', 'session', 'force', 'blocked', 'assignee']);
    const key = requirePositional(ctx.args, 0, 'REF (the story key, e.g. 1-2-login or 1.2; on a v7 tree E.N)');
    const status = requirePositional(ctx.args, 1, 'STATUS (backlog, ready-for-dev, in-progress, review, done; on a v7 tree draft … built, done, blocked, dropped)');
    if (ctx.args.positionals.length > 2) throw new WaymarkError('usage', `Unexpected argument '${ctx.args.positionals[2]}'; quote title words that have spaces.`);
    const root = rootOf(ctx, flagString(ctx.args, 'root'));
    if (hasTicketTree(root)) {
      if (flagString(ctx.args, 'expect-hash') !== undefined) throw new WaymarkError('usage', '--expect-hash applies to BMAD v6 stories; a v7 plan is re-read under its lock. Drop it.');
      const r = await withCore(ctx, root, (core, opts) => core.sprint.setTicketStatus(root, key, status, { ...opts, blocked: flagString(ctx.args, 'blocked'), assignee: flagString(ctx.args, 'assignee') }));
      return renderTicketWrite(ctx, r);
    }
    for (const f of ['blocked', 'assignee']) if (flagString(ctx.args, f) !== undefined) throw new WaymarkError('usage', `--${f} applies to a BMAD v7 ticket tree; this project keeps a v6 sprint (sprint-status.yaml).`);
    const r = await withCore(ctx, root, (core, opts) => core.sprint.setStoryStatus(root, key, status, opts));
    return renderWrite(ctx, r, `status ${r.after.status}`);
  },
};

const storyCheck: CliCommand = {
  name: 'story check',
  usage: 'story check KEY TASK [--uncheck]',
  summary: 'Tick a task of a story file (TASK: its number 2 or 2.1, #N for the Nth checkbox, or a unique piece of its text).',
  help: `  --uncheck           untick instead (a done story needs --force)\n${WRITE_HELP}`,
  booleanFlags: ['force', 'uncheck'],
  options: ['root', 'expect-hash', 'actor', 'session'],
  async run(ctx) {
    assertFlags(ctx, ['root', 'expect-hash', 'actor', 'session', 'force', 'uncheck']);
    const key = requirePositional(ctx.args, 0, 'KEY (the story key, e.g. 1-2-login or 1.2)');
    const task = requirePositional(ctx.args, 1, 'TASK (its number such as 2 or 2.1, #N, or a piece of its text)');
    if (ctx.args.positionals.length > 2) throw new WaymarkError('usage', `Unexpected argument '${ctx.args.positionals[2]}'; quote a TASK text that has spaces.`);
    const root = rootOf(ctx, flagString(ctx.args, 'root'));
    const r = await withCore(ctx, root, (core, opts) => core.sprint.checkStoryTask(root, key, task, { ...opts, uncheck: ctx.args.flags.uncheck === true }));
    return renderWrite(ctx, r, `task ${r.task} ${ctx.args.flags.uncheck ? 'unticked' : 'ticked'}, ${r.after.tasks.done}/${r.after.tasks.total} done`);
  },
};

const storyShow: CliCommand = {
  name: 'story show',
  usage: 'story show KEY [--root DIR] [--json]',
  summary: 'One story: ledger and file status, tasks, gate, problems and its state hash.',
  options: ['root'],
  async run(ctx) {
    assertFlags(ctx, ['root']);
    const key = requirePositional(ctx.args, 0, 'KEY (the story key, e.g. 1-2-login or 1.2)');
    const root = rootOf(ctx, flagString(ctx.args, 'root'));
    const r = loadSprint(root, { cache: true });
    if (!r) throw new WaymarkError('unreadable', `No BMAD sprint under ${root}.`, root);
    const answer = resolveStoryRef(r.stories, key);
    if (!('story' in answer)) throw new WaymarkError('usage', storyRefMessage(key, answer, r.ledgerFile ? display(r.ledgerFile, ctx.cwd) : 'the story files', r.stories));
    const s = answer.story;
    if (ctx.json) {
      ctx.stdout(JSON.stringify(storyJson(s, ctx.cwd)) + '\n');
      return 0;
    }
    const lines = [storyLine(s).trim(), `  ledger: ${s.ledgerRaw ?? '-'}  file: ${s.file ? `${display(s.file, ctx.cwd)} (${s.fileStatus ?? 'no Status line'})` : '-'}`, `  state hash: ${s.stateHash}`];
    for (const p of s.problems) lines.push(`  ${display(p.file, ctx.cwd)}:${p.range.start.line + 1} ${p.severity} ${p.code} ${p.message}`);
    ctx.stdout(lines.join('\n') + '\n');
    return 0;
  },
};

export const sprintCommands: CliCommand[] = [sprint, storySetStatus, storyCheck, storyShow];

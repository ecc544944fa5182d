import * as fs from 'node:fs';
import * as path from 'node:path';
import { statusWorktrees } from './gitCommands';
import { flagString } from './framework';
import { toSarif, toGithubCommands } from './ciFormats';
import type { CliCommand, CliContext } from './framework';
import { WaymarkError, scanRoots, allProblems, readWorkflowFileSync, contextFor, listCandidates, chainOf, writeManifest, changedSince, frontmatterResume, findWorkspaceRoot, createStateCore, readOneFile, loadProject, trackerHealth, loadWorkspaceContext, changedFilesSince, runGit, checkWorkspace, notFileSystemRoot } from '../core/index';
import type { Problem, WorkflowState, SkippedFile, WorkspaceContext, DelegationNode, TrackerHealth, SprintReport } from '../core/index';

/** Problem as the CLI prints it: 1-based line/column. */
function cliProblem(p: Problem, cwd: string) {
  return {
    file: display(p.file, cwd),
    line: p.range.start.line + 1,
    column: p.range.start.character + 1,
    endLine: p.range.end.line + 1,
    endColumn: p.range.end.character + 1,
    severity: p.severity,
    code: p.code,
    message: p.message,
    ...(p.data ? { data: p.data } : {}),
  };
}

function display(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  if (rel === '') return '.';
  return rel && !/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

function under(file: string, dir: string): boolean {
  return file === dir || file.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

interface Target {
  abs: string;
  isDir: boolean;
  root: string;
}

function resolveTargets(args: string[], cwd: string): Target[] {
  const list = args.length ? args : [cwd];
  return list.map((a) => {
    const abs = path.resolve(cwd, a);
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch (e) {
      throw new WaymarkError('unreadable', `${a}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (e as Error).message}.`, abs);
    }
    const isDir = st.isDirectory();
    // Never open a FIFO, socket or device: reading one would hang or never end.
    if (!isDir && !st.isFile()) throw new WaymarkError('unreadable', `${a} is not a regular file or folder (a pipe, socket or device); point at a workflow file.`, abs);
    const root = notFileSystemRoot(isDir ? findWorkspaceRoot(path.join(abs, '_'), cwd) : findWorkspaceRoot(abs, cwd));
    return { abs, isDir, root };
  });
}

interface Collected {
  files: number;
  workflows: WorkflowState[];
  problems: Problem[];
  skipped: SkippedFile[];
  states: WorkflowState[];
  /** Delegation problems across every scanned file (the scan's own list). */
  crossProblems: Problem[];
  /** The BMAD sprints the scan read, by root: the project view does not read them again. */
  sprints: Map<string, SprintReport[]>;
}

/** True when `file` is one of the targets or lies under a target folder. */
function inTargets(targets: Target[], file: string): boolean {
  return targets.some((t) => (t.isDir ? under(file, t.abs) : file === t.abs));
}

/** Scans the roots of the targets and keeps what lies under the targets; explicit files are read even outside the globs. */
async function collect(targets: Target[], flags: CliContext['args']['flags']): Promise<Collected> {
  const roots = [...new Set(targets.map((t) => t.root))];
  const overrides = overridesFrom(flags);
  const res = await scanRoots(roots, { overrides, sprint: true });
  const states = res.workflows;
  const keep = (file: string) => inTargets(targets, file);
  const workflows = states.filter((w) => keep(w.file));
  const problems = [...res.problems.filter((p) => keep(p.file) || !states.some((w) => w.file === p.file) && roots.some((r) => under(p.file, r) && p.file.includes(`${path.sep}.waymark${path.sep}`))), ...workflows.flatMap((w) => w.problems), ...res.crossProblems.filter((p) => keep(p.file))];
  const skipped = res.skipped.filter((s) => keep(s.file));
  const files = countFiles(targets, res.files, res.contexts);
  // Explicit files the globs did not cover.
  for (const t of targets) {
    if (t.isDir || workflows.some((w) => w.file === t.abs) || skipped.some((s) => s.file === t.abs) || problems.some((p) => p.file === t.abs)) continue;
    const ctx = contextFor(t.abs, res.contexts.values());
    if (!ctx) continue;
    const r = readWorkflowFileSync(t.abs, ctx);
    if (r.skipped) skipped.push(r.skipped);
    if (r.state) {
      workflows.push(r.state);
      problems.push(...r.state.problems);
    } else problems.push(...r.problems);
  }
  return { files, workflows, problems, skipped, states, crossProblems: res.crossProblems, sprints: res.sprints };
}

/**
 * Candidate files under the targets: the scan's count when every target is a whole root;
 * else the root's candidates under the folders given, plus each explicit file once.
 */
function countFiles(targets: Target[], scanned: number, contexts: Map<string, WorkspaceContext>): number {
  if (targets.every((t) => t.isDir && t.abs === t.root)) return scanned;
  const counted = new Set<string>();
  const listed = new Map<string, string[]>();
  for (const t of targets) {
    if (!t.isDir) {
      counted.add(t.abs);
      continue;
    }
    const ctx = contexts.get(t.root);
    if (!ctx) continue;
    let files = listed.get(t.root);
    if (!files) {
      files = listCandidates(ctx).files;
      listed.set(t.root, files);
    }
    for (const f of files) if (under(f, t.abs)) counted.add(f);
  }
  return counted.size;
}

function overridesFrom(flags: CliContext['args']['flags']): Record<string, unknown> | undefined {
  const max = flags['max-file-bytes'];
  if (max === undefined) return undefined;
  // Given without a number (`--max-file-bytes` last, `--max-file-bytes 10MB`): refused, never dropped.
  if (typeof max !== 'string' || !/^\d{1,15}$/.test(max)) throw new WaymarkError('usage', `--max-file-bytes needs a whole number of bytes (got ${typeof max === 'string' ? `'${max}'` : 'none'}), e.g. --max-file-bytes 1048576.`);
  return { limits: { maxFileBytes: Number(max) } };
}

/**
 * The project view's problems (dependsOn/after targets, cycles, stalled work) of the files under
 * the targets: they need every workflow and story of the roots, so they come after the scan.
 */
async function projectProblems(targets: Target[], c: Pick<Collected, 'states' | 'sprints'>): Promise<Problem[]> {
  const roots = [...new Set(targets.map((t) => t.root))];
  const core = createStateCore({ roots, memory: false, scanIndex: false });
  try {
    const view = await loadProject(core, { scan: { roots, workflows: c.states, sprints: c.sprints } });
    // Only the project view's own codes (depends-*, work-stalled): none is a scan problem too.
    return view.frontier.problems.filter((p) => inTargets(targets, p.file));
  } finally {
    await core.close();
  }
}

function sortProblems(ps: Problem[]): Problem[] {
  return [...ps].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character));
}

function statusJson(w: WorkflowState, cwd: string) {
  const resume = frontmatterResume(w);
  return {
    file: display(w.file, cwd),
    workflow: w.workflow,
    dialect: w.dialect,
    status: w.status ?? null,
    rawStatus: w.rawStatus ?? null,
    ...(w.statusDerived ? { statusDerived: true } : {}),
    ...(w.identifiedBy ? { identifiedBy: w.identifiedBy, identifiedDetail: w.identifiedDetail ?? null } : {}),
    currentStep: w.currentStep ?? null,
    nextStep: w.nextStep ?? null,
    stepsCompleted: w.stepsCompleted,
    steps: w.steps.map((s) => s.id),
    stepsSource: w.stepsSource,
    lastStep: w.lastStep ?? null,
    scope: w.scope ?? null,
    blockedReason: w.blockedReason ?? null,
    stateHash: w.stateHash,
    gates: Object.fromEntries(Object.entries(w.gates).map(([step, g]) => [step, { name: g.name, verdict: g.verdict ?? null, open: g.open, exists: g.exists, file: display(g.file, cwd) }])),
    delegation: w.delegation ?? null,
    resume: { step: resume.step ?? null, reason: resume.reason },
    problems: w.problems.length,
  };
}

function skippedLine(s: SkippedFile, cwd: string): string {
  return `skipped ${display(s.file, cwd)}: ${s.reason}${s.detail ? ` (${s.detail})` : ''}`;
}

function bar(w: WorkflowState): string {
  const total = w.steps.length;
  if (!total) return `${w.stepsCompleted.length} done`;
  const done = w.steps.filter((s) => w.stepsCompleted.includes(s.id)).length;
  return `${done}/${total}`;
}

const scanCommand: CliCommand = {
  name: 'scan',
  options: ['max-file-bytes'],
  usage: 'scan [ROOT...] [--json]',
  summary: 'Scan workspace folders for workflow files and summarize them.',
  help: [
    'Options:',
    '  --json                 Print {roots, files, workflows, problems, skipped}.',
    '  --max-file-bytes N     Override limits.maxFileBytes.',
    '',
    'Roots default to the current folder. Files over the size limit, binary files and',
    'unreadable files are listed as skipped. Exit codes: 0 ok, 2 unreadable root.',
  ].join('\n'),
  async run(ctx) {
    const roots = (ctx.args.positionals.length ? ctx.args.positionals : [ctx.cwd]).map((r) => path.resolve(ctx.cwd, r));
    for (const r of roots) {
      if (!fs.existsSync(r) || !fs.statSync(r).isDirectory()) throw new WaymarkError('unreadable', `${display(r, ctx.cwd)} is not a folder.`, r);
    }
    const res = await scanRoots(roots, { overrides: overridesFrom(ctx.args.flags) });
    const problems = sortProblems(allProblems(res));
    if (ctx.json) {
      ctx.stdout(JSON.stringify({
        roots: res.roots.map((r) => display(r, ctx.cwd)),
        files: res.files,
        workflows: res.workflows.map((w) => ({ file: display(w.file, ctx.cwd), workflow: w.workflow, dialect: w.dialect, status: w.status ?? null, rawStatus: w.rawStatus ?? null, currentStep: w.currentStep ?? null, stepsDone: w.steps.filter((s) => w.stepsCompleted.includes(s.id)).length, stepsTotal: w.steps.length, problems: w.problems.length })),
        problems: problems.map((p) => cliProblem(p, ctx.cwd)),
        skipped: res.skipped.map((s) => ({ ...s, file: display(s.file, ctx.cwd) })),
      }) + '\n');
      return 0;
    }
    const lines = [`${res.files} candidate file(s), ${res.workflows.length} workflow(s), ${problems.length} problem(s), ${res.skipped.length} skipped in ${res.roots.map((r) => display(r, ctx.cwd)).join(', ')}`];
    for (const w of res.workflows) lines.push(`  ${display(w.file, ctx.cwd)}  ${w.workflow} [${w.dialect}] ${w.rawStatus ?? '-'} ${bar(w)}${w.problems.length ? `  (${w.problems.length} problem(s))` : ''}`);
    for (const s of res.skipped) lines.push(`  ${skippedLine(s, ctx.cwd)}`);
    ctx.stdout(lines.join('\n') + '\n');
    return 0;
  },
};

const statusCommand: CliCommand = {
  name: 'status',
  options: ['max-file-bytes'],
  booleanFlags: ['worktrees'],
  usage: 'status [PATH] [--worktrees] [--json]',
  summary: 'Show the state of workflow files (one file, or all under a folder).',
  help: [
    'Options:',
    '  --json   Print {workflows: [{file, workflow, dialect, status, currentStep, stepsCompleted,',
    '           steps, stateHash, gates, delegation, ...}]}.',
    '  --max-file-bytes N     Override limits.maxFileBytes.',
    '  --worktrees            Each workflow and story as every git worktree has it, marked where a',
    '                         worktree is ahead of the main checkout (work not merged back yet).',
    '',
    'PATH defaults to the current folder. A FILE is read alone (its folder\'s config, definitions and',
    'gate files, nothing else): its problem count is its own; delegation checks that need other files',
    '(duplicate ids, a parent no file has) are in `waymark validate` and `waymark chain FILE`.',
    'Exit codes: 0 ok, 2 PATH missing, unreadable or not a workflow file.',
  ].join('\n'),
  async run(ctx) {
    if (ctx.args.flags.worktrees === true) return statusWorktrees(ctx);
    const targets = resolveTargets(ctx.args.positionals.slice(0, 1), ctx.cwd);
    const t = targets[0];
    let workflows: WorkflowState[];
    let problemCount: (w: WorkflowState) => number;
    // The root's config as the read loaded it (its tracker settings are shown too: not read twice).
    let config: WorkspaceContext['config'];
    if (!t.isDir) {
      // One file costs one file: its root's config, definitions and gate files; no scan.
      const r = await readOneFile(t.abs, t.root, { overrides: overridesFrom(ctx.args.flags) });
      if (r.skipped) throw new WaymarkError('unreadable', `${display(t.abs, ctx.cwd)} was not read: ${r.skipped.reason}${r.skipped.detail ? ` (${r.skipped.detail})` : ''}.`, t.abs);
      if (!r.state) {
        const p = r.problems[0];
        if (p) throw new WaymarkError('unreadable', `${display(t.abs, ctx.cwd)}:${p.range.start.line + 1}:${p.range.start.character + 1}: ${p.message}`, t.abs, { code: p.code });
        throw new WaymarkError('unreadable', `${display(t.abs, ctx.cwd)} is not a workflow file (no frontmatter with workflow keys such as workflow, workflowType, stepsCompleted).`, t.abs);
      }
      workflows = [r.state];
      problemCount = (w) => w.problems.length;
      config = r.context.config;
    } else {
      // Through the state core, so the CLI and the extension read state the same way.
      const core = createStateCore({ roots: [t.root], configOverrides: overridesFrom(ctx.args.flags) });
      try {
        await core.scan();
        workflows = core.list().filter((w) => under(w.file, t.abs));
        const all = core.problems();
        problemCount = (w) => all.filter((p) => p.file === w.file).length;
        config = (await core.contextFor(path.join(t.root, '.waymark-probe'))).config;
      } finally {
        await core.close();
      }
    }
    workflows.sort((a, b) => a.file.localeCompare(b.file));
    // Memory that cannot persist is part of the state an agent must know (no database opened here).
    const memCore = createStateCore({ roots: [t.root] });
    let memoryDown: string | undefined;
    let tracker: TrackerHealth[] = [];
    try {
      tracker = trackerHealth(t.root, config);
      memoryDown = memCore.memory.forRoot(t.root).fileHealth();
    } catch (e) {
      if (!WaymarkError.is(e, 'unavailable')) throw e;
    } finally {
      await memCore.close();
    }
    if (ctx.json) {
      ctx.stdout(JSON.stringify({ workflows: workflows.map((w) => ({ ...statusJson(w, ctx.cwd), problems: problemCount(w) })), memory: memoryDown ? { state: 'degraded', reason: memoryDown } : { state: 'ok' }, ...(tracker.length ? { tracker } : {}) }) + '\n');
      return 0;
    }
    const lines: string[] = memoryDown ? [`memory: degraded: ${memoryDown}`] : [];
    for (const h of tracker) lines.push(`tracker ${h.store} (${h.kind}): breaker ${h.state}${h.failures ? `, ${h.failures} failure(s)` : ''}${h.retryAt && h.state === 'open' ? `, next try ${h.retryAt}` : ''}; ${h.queued} change(s) queued${h.queued ? ' (waymark project sends them)' : ''}`);
    for (const w of workflows) {
      const r = frontmatterResume(w);
      lines.push(`${display(w.file, ctx.cwd)}`);
      lines.push(`  ${w.workflow} [${w.dialect}]  status: ${w.rawStatus ?? (w.statusDerived && w.status ? `${w.status.replace('_', ' ')} (from steps)` : '-')}  steps: ${bar(w)}  current: ${w.currentStep ?? '-'}`);
      if (w.blockedReason) lines.push(`  blocked: ${w.blockedReason}`);
      for (const [step, g] of Object.entries(w.gates)) lines.push(`  gate ${g.name} (${step}): ${g.verdict ?? 'missing'}${g.open ? '' : ' - closed'}`);
      if (w.delegation) lines.push(`  delegation: ${w.delegation.chain_path.join(' > ')}${w.delegation.agent ? ` (agent ${w.delegation.agent})` : ''}`);
      lines.push(`  next: ${r.step ?? '-'}: ${r.reason}`);
      const n = problemCount(w);
      if (n) lines.push(`  ${n} problem(s): run waymark validate ${display(w.file, ctx.cwd)}`);
    }
    if (!workflows.length) lines.push('No workflow files found.');
    ctx.stdout(lines.join('\n') + '\n');
    return 0;
  },
};

const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
type Format = (typeof FORMATS)[number];

/** `--format` (or `--json`); an unknown format is a usage error. */
function outputFormat(ctx: CliContext): Format {
  const f = flagString(ctx.args, 'format');
  if (f === undefined) return ctx.json ? 'json' : 'text';
  if (!(FORMATS as readonly string[]).includes(f)) throw new WaymarkError('usage', `--format ${f} is not a format: use one of ${FORMATS.join(', ')}.`);
  if (ctx.json && f !== 'json') throw new WaymarkError('usage', `--json and --format ${f} contradict each other; give one.`);
  return f as Format;
}

/** Paths that carry project-level state (config, definitions, gates, history, the BMAD sprint). */
const PROJECT_FILE = /(^|\/)(\.waymark|_bmad|_bmad-output|\.bmad-core)\/|(^|\/)sprint-status\.ya?ml$/;

export interface Checked {
  files: number;
  workflows: number;
  problems: Problem[];
  skipped: SkippedFile[];
  /** The repository top, when `--changed-since` asked git. */
  top?: string;
}

/**
 * `--changed-since REF`: only the files the branch changed since its merge base with REF. Plain
 * workflow files are read one by one (no scan of the rest of the tree); when a change touches
 * project-level state (config, definitions, gates, the sprint) or a workflow with delegation or
 * dependencies, the roots are scanned as a whole and the problems of the changed files kept.
 */
async function checkChanged(targets: Target[], ref: string, flags: CliContext['args']['flags']): Promise<Checked> {
  const roots = [...new Set(targets.map((t) => t.root))];
  const changed = new Set<string>();
  let top: string | undefined;
  for (const root of roots) {
    const r = await changedFilesSince(root, ref);
    top = r.top;
    for (const f of r.files) {
      const abs = path.join(r.top, ...f.split('/'));
      if (inTargets(targets, abs)) changed.add(abs);
    }
  }
  const overrides = overridesFrom(flags);
  const contexts = new Map<string, WorkspaceContext>();
  const problems: Problem[] = [];
  const skipped: SkippedFile[] = [];
  let files = 0;
  let workflows = 0;
  let whole = false;
  for (const root of roots) {
    const loaded = await loadWorkspaceContext(root, overrides);
    contexts.set(root, loaded.context);
  }
  for (const abs of changed) {
    const ctx = contextFor(abs, contexts.values());
    if (!ctx) continue;
    const rel = path.relative(ctx.root, abs).split(path.sep).join('/');
    if (PROJECT_FILE.test(rel)) whole = true;
    if (whole) break;
    if (!ctx.include.some((r) => r.test(rel)) || ctx.exclude.some((r) => r.test(rel))) continue;
    files++;
    const r = readWorkflowFileSync(abs, ctx);
    if (r.skipped && r.skipped.reason !== 'no-frontmatter') skipped.push(r.skipped);
    if (r.state) {
      if (r.state.delegation || r.state.data.dependsOn !== undefined || r.state.data.after !== undefined) whole = true;
      workflows++;
      problems.push(...r.state.problems);
    } else problems.push(...r.problems);
  }
  if (!whole) return { files, workflows, problems, skipped, top };
  const rootTargets = roots.map((root) => ({ abs: root, isDir: true, root }));
  const c = await collect(rootTargets, flags);
  const keep = (f: string) => changed.has(f);
  return {
    files: [...changed].filter((f) => {
      const ctx = contextFor(f, contexts.values());
      const rel = ctx ? path.relative(ctx.root, f).split(path.sep).join('/') : '';
      return ctx && (PROJECT_FILE.test(rel) || (ctx.include.some((r) => r.test(rel)) && !ctx.exclude.some((r) => r.test(rel))));
    }).length,
    workflows: c.workflows.filter((w) => keep(w.file)).length,
    problems: [...c.problems, ...(await projectProblems(rootTargets, c))].filter((p) => keep(p.file)),
    skipped: c.skipped.filter((s) => keep(s.file)),
    top,
  };
}

/**
 * validate's check, for the faces that print it their own way (the GitHub Action): every problem
 * under `paths` (relative to `cwd`), or with `changedSince` only those of the files changed since
 * the merge base of that ref; `top` is the repository's top folder (what paths are shown against).
 */
export async function checkForCi(paths: string[], cwd: string, changedSince?: string, flags: CliContext['args']['flags'] = {}): Promise<Checked & { top: string }> {
  const checked = await checkPaths(paths, cwd, changedSince, flags);
  const { gitFrom, ...rest } = checked;
  return { ...rest, top: await topOf(checked) };
}

/** The repository top a check's paths are shown against: the changed-files check's own, else asked of git. */
async function topOf(checked: Checked & { gitFrom: string }): Promise<string> {
  return checked.top ?? (await repositoryTop(checked.gitFrom));
}

/**
 * checkForCi without the repository top (a git process), for the outputs that do not show it;
 * `gitFrom` is the folder to ask git for it.
 */
async function checkPaths(paths: string[], cwd: string, changedSince?: string, flags: CliContext['args']['flags'] = {}): Promise<Checked & { gitFrom: string }> {
  const targets = resolveTargets(paths, cwd);
  let checked: Checked;
  if (changedSince !== undefined) checked = await checkChanged(targets, changedSince, flags);
  else if (targets.length === 1 && targets[0].isDir && targets[0].abs === targets[0].root) {
    // A whole folder: core answers from its stored answer while nothing it depends on changed.
    const w = await checkWorkspace(targets[0].root, { overrides: overridesFrom(flags), createCore: (roots, contexts) => createStateCore({ roots, memory: false, scanIndex: false, contexts }) });
    checked = { files: w.files, workflows: w.workflows, problems: w.problems.filter((p) => inTargets(targets, p.file)), skipped: w.skipped.filter((s) => inTargets(targets, s.file)) };
  } else {
    const c = await collect(targets, flags);
    checked = { files: c.files, workflows: c.workflows.length, problems: [...c.problems, ...(await projectProblems(targets, c))], skipped: c.skipped };
  }
  return { ...checked, problems: sortProblems(checked.problems), gitFrom: targets[0]?.root ?? cwd };
}

const validateCommand: CliCommand = {
  name: 'validate',
  options: ['max-file-bytes', 'format', 'changed-since'],
  usage: 'validate [PATH...] [--format text|json|sarif|github] [--changed-since REF]',
  summary: 'Check workflow files and report problems (file:line:column severity code message).',
  help: [
    'Options:',
    '  --json   Print {files, workflows, problems: [{file, line, column, severity, code, message}]} (1-based).',
    '  --format F             text (default), json (as --json), sarif (SARIF 2.1.0 for code scanning: one rule',
    '                         per problem code with its help and quick fix; URIs relative to the repository top',
    '                         under %SRCROOT%), github (workflow commands: ::error file=…,line=…::message, which',
    '                         GitHub Actions shows as annotations on the pull request).',
    '  --changed-since REF    Check only the files changed since the merge base of REF and HEAD (committed,',
    '                         staged, unstaged and untracked), with the project-level checks that touch them.',
    '  --max-file-bytes N     Override limits.maxFileBytes.',
    '',
    'PATH (files or folders) defaults to the current folder. Besides each file, the project is checked as a whole:',
    'dependsOn/after targets and cycles, and in-progress work stalled longer than project.stalledAfter.',
    'Problem codes: docs/problems.md.',
    'Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 usage (an unknown --format), PATH missing or',
    'unreadable, or REF unknown.',
  ].join('\n'),
  async run(ctx) {
    const format = outputFormat(ctx);
    const since = flagString(ctx.args, 'changed-since');
    const checked = await checkPaths(ctx.args.positionals, ctx.cwd, since, ctx.args.flags);
    const problems = checked.problems;
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.filter((p) => p.severity === 'warning').length;
    const tally = `${checked.files} file(s), ${checked.workflows} workflow(s): ${errors} error(s), ${warnings} warning(s), ${problems.length - errors - warnings} info.`;
    if (format === 'json') {
      ctx.stdout(JSON.stringify({ files: checked.files, workflows: checked.workflows, problems: problems.map((p) => cliProblem(p, ctx.cwd)), skipped: checked.skipped.map((s) => ({ ...s, file: display(s.file, ctx.cwd) })) }) + '\n');
    } else if (format === 'sarif') {
      ctx.stdout(JSON.stringify(toSarif(problems, await topOf(checked)), null, 2) + '\n');
    } else if (format === 'github') {
      const lines = toGithubCommands(problems, await topOf(checked));
      lines.push(`Waymark: ${tally}`);
      ctx.stdout(lines.join('\n') + '\n');
    } else {
      const lines = problems.map((p) => {
        const q = cliProblem(p, ctx.cwd);
        return `${q.file}:${q.line}:${q.column} ${q.severity} ${q.code} ${q.message}`;
      });
      for (const s of checked.skipped) lines.push(skippedLine(s, ctx.cwd));
      lines.push(tally);
      ctx.stdout(lines.join('\n') + '\n');
    }
    return errors ? 1 : 0;
  },
};

/** The top of the git repository holding `cwd` (what code scanning and annotations resolve paths against), else `cwd`. */
async function repositoryTop(cwd: string): Promise<string> {
  const r = await runGit(cwd, ['rev-parse', '--show-toplevel']);
  if (r.code !== 0 || !r.stdout.trim()) return cwd;
  try {
    return fs.realpathSync(r.stdout.trim());
  } catch {
    return cwd;
  }
}

function renderTree(n: DelegationNode, cwd: string, mark: string | undefined, indent: string, out: string[], seen = new Set<DelegationNode>()): void {
  if (seen.has(n)) {
    out.push(`${indent}${n.id} (again: the chain loops back here; a delegation cycle)`);
    return;
  }
  seen.add(n);
  const label = n.missing ? `${n.id} (missing: no file has this id)` : `${n.id}  ${n.workflow ?? ''} ${n.status ?? ''}${n.agent ? ` agent ${n.agent}` : ''}  ${n.file ? display(n.file, cwd) : ''}`;
  out.push(`${indent}${n.file && n.file === mark ? '* ' : ''}${label.replace(/\s+$/, '')}`);
  for (const c of n.children) renderTree(c, cwd, mark, indent + '  ', out, seen);
}

const chainCommand: CliCommand = {
  name: 'chain',
  options: ['max-file-bytes'],
  usage: 'chain FILE [--json]',
  summary: 'Show the delegation chain of a workflow file: its ancestors and its delegated children.',
  help: ['Options:', '  --json   Print {file, path: [ids root→file], tree, problems}.', '  --max-file-bytes N     Override limits.maxFileBytes.', '', 'Exit codes: 0 the chain is sound, 1 it has integrity errors (printed), 2 FILE missing or not a workflow with a delegation block.'].join('\n'),
  async run(ctx) {
    const file = ctx.args.positionals[0];
    if (!file) throw new WaymarkError('usage', 'Missing FILE: the workflow file whose chain to show.');
    const targets = resolveTargets([file], ctx.cwd);
    const t = targets[0];
    if (t.isDir) throw new WaymarkError('usage', `${file} is a folder; give a workflow file.`);
    const c = await collect(targets, ctx.args.flags);
    const state = c.workflows.find((w) => w.file === t.abs);
    if (!state) throw new WaymarkError('unreadable', `${file} is not a workflow file.`, t.abs);
    if (!state.delegation) throw new WaymarkError('unreadable', `${file} has no delegation block: it is not part of a delegation chain.`, t.abs);
    const all = c.states.some((s) => s.file === state.file) ? c.states : [...c.states, state];
    const { path: trail, node } = chainOf(all, state.file);
    const root = trail[0];
    const probs = [...state.problems, ...c.crossProblems.filter((p) => p.file === state.file)].filter((p) => p.code.startsWith('delegation-'));
    const code = probs.some((p) => p.severity === 'error') ? 1 : 0;
    if (ctx.json) {
      ctx.stdout(JSON.stringify({ file: display(state.file, ctx.cwd), path: trail.map((n) => n.id), tree: root ? strip(root, ctx.cwd) : null, node: node ? strip(node, ctx.cwd) : null, problems: probs.map((p) => cliProblem(p, ctx.cwd)) }) + '\n');
      return code;
    }
    const out = [`chain: ${trail.map((n) => n.id).join(' > ')}`];
    if (root) renderTree(root, ctx.cwd, state.file, '', out);
    for (const p of probs) out.push(`${display(p.file, ctx.cwd)}:${p.range.start.line + 1}:${p.range.start.character + 1} ${p.severity} ${p.code} ${p.message}`);
    ctx.stdout(out.join('\n') + '\n');
    return code;
  },
};

function strip(n: DelegationNode, cwd: string, seen = new Set<DelegationNode>()): unknown {
  // A delegation cycle: name the node again without descending (JSON has no cycles).
  if (seen.has(n)) return { id: n.id, cycle: true, children: [] };
  seen.add(n);
  return { ...n, file: n.file ? display(n.file, cwd) : undefined, children: n.children.map((c) => strip(c, cwd, seen)) };
}

function rootArg(ctx: CliContext): string {
  const r = path.resolve(ctx.cwd, ctx.args.positionals[0] ?? '.');
  if (!fs.existsSync(r) || !fs.statSync(r).isDirectory()) throw new WaymarkError('unreadable', `${display(r, ctx.cwd) || r} is not a folder.`, r);
  return r;
}

const manifestCommand: CliCommand = {
  name: 'manifest',
  options: ['max-file-bytes'],
  usage: 'manifest [ROOT] [--json]',
  summary: 'Write files-manifest.csv (path, workflow, status, current step, steps done/total, state hash, content hash).',
  help: ['Options:', '  --json   Print {file, rows}.', '  --max-file-bytes N     Override limits.maxFileBytes.', '', 'The manifest goes to manifest.path in .waymark/config.yaml (default .waymark/files-manifest.csv).', 'Exit codes: 0 ok, 2 ROOT unreadable or the manifest could not be written.'].join('\n'),
  async run(ctx) {
    const root = rootArg(ctx);
    const res = await scanRoots([root], { overrides: overridesFrom(ctx.args.flags) });
    const c = res.contexts.get(root)!;
    let out: ReturnType<typeof writeManifest>;
    try {
      out = writeManifest(root, res.workflows, c.config.manifest.path);
    } catch (e) {
      if (WaymarkError.is(e)) throw e;
      throw new WaymarkError('io', `Cannot write the manifest: ${(e as Error).message}.`);
    }
    if (ctx.json) ctx.stdout(JSON.stringify({ file: display(out.file, ctx.cwd), rows: out.rows }) + '\n');
    else ctx.stdout(`Wrote ${display(out.file, ctx.cwd)} (${out.rows.length} workflow file(s)).\n`);
    return 0;
  },
};

const changedCommand: CliCommand = {
  name: 'changed',
  options: ['max-file-bytes'],
  usage: 'changed [ROOT] [--json]',
  summary: 'List workflow files changed since the last manifest (added, removed, state changed, content changed).',
  help: ['Options:', '  --json   Print {manifest, added, removed, stateChanged, contentChanged}.', '  --max-file-bytes N     Override limits.maxFileBytes.', '', 'Compares state and content hashes with files-manifest.csv.', 'Exit codes: 0 no changes, 1 changes found (or no manifest yet), 2 ROOT unreadable.'].join('\n'),
  async run(ctx) {
    const root = rootArg(ctx);
    const res = await scanRoots([root], { overrides: overridesFrom(ctx.args.flags) });
    const c = res.contexts.get(root)!;
    const rep = changedSince(root, res.workflows, c.config.manifest.path);
    const any = rep.added.length + rep.removed.length + rep.stateChanged.length + rep.contentChanged.length > 0;
    // "Anything changed?" answered yes is exit 1, like diff(1): a script can branch on it.
    const code = any ? 1 : 0;
    if (ctx.json) {
      ctx.stdout(JSON.stringify({ ...rep, manifest: display(rep.manifest, ctx.cwd), manifestExists: fs.existsSync(rep.manifest) }) + '\n');
      return code;
    }
    const lines: string[] = [];
    if (!fs.existsSync(rep.manifest)) lines.push(`No manifest at ${display(rep.manifest, ctx.cwd)} yet (run waymark manifest): every file counts as added.`);
    for (const [label, list] of [['added', rep.added], ['removed', rep.removed], ['state changed', rep.stateChanged], ['content changed', rep.contentChanged]] as const) {
      for (const f of list) lines.push(`${label}: ${f}`);
    }
    if (!any) lines.push('No changes since the last manifest.');
    ctx.stdout(lines.join('\n') + '\n');
    return code;
  },
};

export const readCommands: CliCommand[] = [scanCommand, statusCommand, validateCommand, chainCommand, manifestCommand, changedCommand];

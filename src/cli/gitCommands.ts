import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand, CliContext } from './framework';
import { flagString, requirePositional } from './framework';
import { WaymarkError, mergeStateFile, installMergeDriver, uninstallMergeDriver, loadWorkspaceContext, repoTop, worktreeStates, findWorkspaceRoot, type WorktreeItem } from '../core/index';

/** Git's label for the other side: `git merge feature` exports GITHEAD_<sha>=feature to drivers. */
function theirsLabel(): string {
  const names = Object.entries(process.env).filter(([k]) => k.startsWith('GITHEAD_')).map(([, v]) => v ?? '');
  return names.length === 1 && names[0] ? names[0] : 'theirs';
}

/**
 * One side of the merge, read only when it is a regular file: a FIFO would block the read (and git
 * with it), a folder or a device is no version of a file. Refused with what git passed and why.
 */
function readSide(file: string, what: string): string {
  let why: string | undefined;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) why = st.isDirectory() ? 'is a folder' : st.isFIFO() ? 'is a named pipe (FIFO)' : 'is a device or socket';
    else return fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    why = code === 'ENOENT' ? 'does not exist' : code === 'ELOOP' ? 'is a loop of symbolic links' : code === 'ENOTDIR' ? 'has a file where a folder is expected in its path' : `cannot be read (${code ?? (e as Error).message})`;
  }
  throw new WaymarkError('unreadable', `${file} (${what}) ${why}, not a regular file git's merge can hand over; the merge driver reads the three versions git writes for it (waymark git install sets it up). Nothing was changed.`, file);
}

export const mergeDriverCommand: CliCommand = {
  name: 'merge-driver',
  options: ['marker-size'],
  usage: 'merge-driver BASE OURS THEIRS PATH [MARKER-SIZE]',
  summary: "Git's merge driver for workflow state (git runs it; install with waymark git install).",
  help: [
    'Merges the state keys of workflow frontmatter, BMAD story status and task boxes, and',
    'sprint-status.yaml entries by progress: completed steps united, the later status kept (review →',
    'in-progress when only one side made it), a ticked task stays ticked. The rest goes through',
    "git's own three-way text merge. History JSONL files are merged by union.",
    'The result is written to OURS (git\'s %A). A state value progress cannot decide becomes a',
    'normal conflict block whose first marker line says why.',
    '',
    'Git config (written by waymark git install): merge.waymark.driver = waymark merge-driver %O %A %B %P %L',
    'Options:',
    '  --marker-size N   conflict marker length (default 7, or the 5th argument)',
    'Exit codes: 0 merged cleanly; 1 conflicts left in OURS; 2 usage or unreadable input.',
  ].join('\n'),
  async run(ctx) {
    const [base, ours, theirs] = [0, 1, 2].map((i) => requirePositional(ctx.args, i, ['BASE (%O)', 'OURS (%A)', 'THEIRS (%B)'][i]));
    const repoPath = ctx.args.positionals[3] ?? ours;
    const sizeText = flagString(ctx.args, 'marker-size') ?? ctx.args.positionals[4];
    const markerSize = sizeText === undefined ? 7 : Number(sizeText);
    if (!Number.isInteger(markerSize) || markerSize < 1 || markerSize > 100) throw new WaymarkError('usage', `marker size '${sizeText}' is not a whole number from 1 to 100.`);
    const abs = (p: string) => path.resolve(ctx.cwd, p);
    const r = mergeStateFile({
      base: readSide(abs(base), 'base'),
      ours: readSide(abs(ours), 'ours'),
      theirs: readSide(abs(theirs), 'theirs'),
      path: repoPath,
      labels: { ours: 'HEAD', base: 'merged common ancestors', theirs: theirsLabel() },
      markerSize,
      cwd: ctx.cwd,
    });
    // %A is git's temporary copy of our side: the result goes there, in place.
    fs.writeFileSync(abs(ours), r.text);
    const conflicts = r.decisions.filter((d) => d.conflict);
    if (ctx.json) ctx.stdout(JSON.stringify({ path: repoPath, kind: r.kind, conflicts: r.conflicts, decisions: r.decisions }) + '\n');
    for (const d of conflicts) ctx.stderr(`waymark merge-driver: ${repoPath}: ${d.key}: ${d.reason}; left as a conflict.\n`);
    return r.conflicts > 0 ? 1 : 0;
  },
};

function driverLine(): string {
  // The command git runs: this node and this CLI, so the driver works without waymark on PATH.
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = process.argv[1] ? path.resolve(process.argv[1]) : 'waymark';
  return `${q(process.execPath)} ${q(script)} merge-driver %O %A %B %P %L`;
}

const gitInstallCommand: CliCommand = {
  name: 'git install',
  options: ['root'],
  usage: 'git install [--root DIR] [--json]',
  summary: 'Install the state merge driver: .gitattributes lines and local git config merge.waymark.*.',
  help: [
    'Writes a marked block to the repository\'s .gitattributes routing workflow files (the config\'s',
    'include globs), sprint-status.yaml, history files (.waymark/history/**/*.jsonl), the events log',
    '(.waymark/events/*.jsonl, when committed) and gate files to the',
    'driver, and the orchestrator\'s append-only memory (.waymark/memory/orchestrator_memory.md) to',
    'git\'s union merge (both branches\' entries kept), and sets',
    'merge.waymark.name and merge.waymark.driver in the repository\'s local git config.',
    'Run it again to update the block; waymark git uninstall removes exactly these and gives',
    '.gitattributes back byte for byte.',
    'Options:',
    '  --root DIR   the project folder (default: the current folder)',
    'Exit codes: 0 installed; 2 not a git repository or cannot write.',
  ].join('\n'),
  async run(ctx) {
    const root = path.resolve(ctx.cwd, flagString(ctx.args, 'root') ?? '.');
    const top = await repoTop(root);
    const { context } = await loadWorkspaceContext(root);
    // Globs are relative to the Waymark root; .gitattributes lives at the repository's top.
    const rel = path.relative(top, context.root).split(path.sep).join('/');
    const prefix = rel ? `${rel}/` : '';
    const include = context.config.include.map((g) => `${prefix}${g}`);
    const gatePath = `${prefix}${context.config.gates.path}`;
    // The orchestrator's cold memory is append-only: both branches' entries kept (git's union driver).
    const mem = context.config.memory;
    const cold = mem?.coldFile ?? `${(mem?.dir ?? '.waymark/memory').replace(/\/+$/, '')}/orchestrator_memory.md`;
    const unionFiles = [`${prefix}${cold.replace(/^\.\//, '')}`];
    const r = await installMergeDriver(root, include, driverLine(), { historyDir: `${prefix}${context.config.history.dir}`, gatePath, eventsDir: `${prefix}.waymark/events`, unionFiles });
    if (ctx.json) ctx.stdout(JSON.stringify(r) + '\n');
    else ctx.stdout(`Installed the Waymark merge driver in ${r.repo}:\n  .gitattributes: ${r.lines.join(', ')}\n  git config merge.waymark.driver = ${r.driver}\n`);
    return 0;
  },
};

const gitUninstallCommand: CliCommand = {
  name: 'git uninstall',
  options: ['root'],
  usage: 'git uninstall [--root DIR] [--json]',
  summary: 'Remove the state merge driver: its .gitattributes block and merge.waymark.* config.',
  help: ['Options:', '  --root DIR   the project folder (default: the current folder)', 'Exit codes: 0 removed or nothing to remove; 2 not a git repository.'].join('\n'),
  async run(ctx) {
    const root = path.resolve(ctx.cwd, flagString(ctx.args, 'root') ?? '.');
    const r = await uninstallMergeDriver(root);
    if (ctx.json) ctx.stdout(JSON.stringify(r) + '\n');
    else ctx.stdout(r.changed ? `Removed the Waymark merge driver from ${r.repo}.\n` : `The Waymark merge driver was not installed in ${r.repo}; nothing to remove.\n`);
    return 0;
  },
};

const MARK: Record<WorktreeItem['vsMain'], string> = { main: '', same: '', ahead: '  AHEAD of main', behind: '  behind main', diverged: '  differs from main', 'only-here': '  only here' };

function describeItem(i: WorktreeItem): string {
  const steps = i.stepsCompleted ? `  steps: ${i.stepsCompleted.join(', ') || '-'}` : '';
  return `${i.id}  ${i.status ?? '-'}${steps}`;
}

/** `waymark status --worktrees`: what each worktree holds, and what main does not have yet. */
export async function statusWorktrees(ctx: CliContext, only?: WorktreeItem['kind']): Promise<number> {
  const given = ctx.args.positionals[0];
  const dir = path.resolve(ctx.cwd, given ?? '.');
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new WaymarkError('usage', `${given ?? dir} is not a folder; --worktrees reads a project folder.`, dir);
  const root = given ? dir : findWorkspaceRoot(path.join(dir, '_'), dir);
  const states = (await worktreeStates(root)).map((s) => (only ? { ...s, items: s.items.filter((i) => i.kind === only) } : s));
  if (ctx.json) {
    ctx.stdout(JSON.stringify({ worktrees: states }) + '\n');
    return 0;
  }
  const main = states.find((s) => s.worktree.main);
  const mainOf = new Map((main?.items ?? []).map((i) => [i.id, i]));
  const lines: string[] = [];
  for (const s of states) {
    const shown = s.worktree.main ? s.items : s.items.filter((i) => i.vsMain !== 'same');
    lines.push(`${s.worktree.main ? 'main checkout' : 'worktree'} ${s.worktree.branch}  (${s.worktree.path})${!s.worktree.main && !shown.length ? '  same as main' : ''}`);
    for (const i of shown) {
      const m = mainOf.get(i.id);
      const says = !s.worktree.main && m && i.vsMain !== 'only-here' ? `; main says ${m.status ?? '-'}${m.stepsCompleted ? ` (steps ${m.stepsCompleted.join(', ') || '-'})` : ''}` : '';
      lines.push(`  ${describeItem(i)}${MARK[i.vsMain]}${says}`);
    }
  }
  ctx.stdout(lines.join('\n') + '\n');
  return 0;
}

export const gitCommands: CliCommand[] = [mergeDriverCommand, gitInstallCommand, gitUninstallCommand];

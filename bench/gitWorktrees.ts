// `waymark status --worktrees` over 8 checkouts (the main one and 7 worktrees) of a 1,000-file
// project, each worktree with a few workflows advanced. Figures side by side in the same run:
//   worktrees.status_inprocess_median_ms  worktreeStates (git worktree list, scan each checkout, compare)
//   worktrees.status_process_median_ms    `waymark status --worktrees --json` as a process   goal < 1000
//   worktrees.floor_read_median_ms        floor: reading every file of the 8 checkouts, no parsing
//   worktrees.editor_markers_median_ms    aheadInOtherWorktrees from a linked worktree (one refresh of the views' markers)
//   diffstate.inprocess_median_ms         diffState(root, feat/1): the project at a branch read from git vs the working tree
//   diffstate.process_median_ms           `waymark diff-state feat/1 --json` as a process
//   diffstate.floor_archive_median_ms     floor: `git archive feat/1` (every blob at the ref, no parsing)
// Options: --files N (default 1000), --worktrees N (default 8), --runs N (default 5).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { aheadInOtherWorktrees, diffState, worktreeStates } from '../src/core/index';
import { arg, median } from './lib';

const FILES = arg('files', 1000);
const TREES = arg('worktrees', 8);
const RUNS = arg('runs', 5);
const ENV = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' };

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
const wf = (i: number, done: string) => `---\nworkflow: w${i}\nstatus: in_progress\nsteps: [a, b, c, d]\nstepsCompleted: [${done}]\n---\n# Workflow ${i}\n\nBody of workflow ${i}.\n`;

async function main(): Promise<void> {
const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-worktrees-'));
try {
  const root = path.join(parent, 'main');
  for (let i = 0; i < FILES; i++) {
    const file = path.join(root, `docs/area-${i % 20}/wf-${i}.md`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, wf(i, 'a'));
  }
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'base');
  const checkouts = [root];
  for (let t = 1; t < TREES; t++) {
    const wt = path.join(parent, `wt${t}`);
    git(root, 'worktree', 'add', '-q', '-b', `feat/${t}`, wt);
    for (let k = 0; k < 5; k++) {
      const i = t * 10 + k;
      fs.writeFileSync(path.join(wt, `docs/area-${i % 20}/wf-${i}.md`), wf(i, 'a, b'));
    }
    checkouts.push(wt);
  }

  const inproc: number[] = [];
  let ahead = 0;
  for (let r = 0; r < RUNS + 1; r++) {
    const t0 = performance.now();
    const states = await worktreeStates(root);
    const ms = performance.now() - t0;
    ahead = states.reduce((n, s) => n + s.items.filter((i) => i.vsMain === 'ahead').length, 0);
    if (r >= 1) inproc.push(ms);
  }

  const cli = path.resolve('dist/cli.js');
  const proc: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const x = spawnSync(process.execPath, [cli, 'status', '--worktrees', '--json'], { cwd: root, maxBuffer: 256 * 1024 * 1024 });
    if (x.status !== 0) throw new Error(`status --worktrees exit ${x.status}: ${String(x.stderr)}`);
    proc.push(performance.now() - t0);
  }

  // diff-state: the first worktree's work committed on its branch, compared from main.
  git(checkouts[1], 'commit', '-q', '-am', 'feat/1 work');
  const diffIn: number[] = [];
  let changes = 0;
  for (let r = 0; r < RUNS + 1; r++) {
    const t0 = performance.now();
    const d = await diffState(root, 'feat/1');
    if (r >= 1) diffIn.push(performance.now() - t0);
    changes = d.changes.length;
  }
  const diffProc: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const x = spawnSync(process.execPath, [cli, 'diff-state', 'feat/1', '--json'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    if (x.status !== 1) throw new Error(`diff-state exit ${x.status}: ${String(x.stderr)}`);
    diffProc.push(performance.now() - t0);
  }
  const archive: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    spawnSync('git', ['archive', '--format=tar', 'feat/1'], { cwd: root, maxBuffer: 256 * 1024 * 1024 });
    archive.push(performance.now() - t0);
  }
  const markers: number[] = [];
  let marked = 0;
  for (let r = 0; r < RUNS + 1; r++) {
    const t0 = performance.now();
    const m = await aheadInOtherWorktrees(checkouts[2]);
    if (r >= 1) markers.push(performance.now() - t0);
    marked = m.ahead.length;
  }

  const floor: number[] = [];
  const walk = (d: string): number => {
    let n = 0;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === '.waymark') continue;
      const p = path.join(d, e.name);
      n += e.isDirectory() ? walk(p) : fs.readFileSync(p).length;
    }
    return n;
  };
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    for (const c of checkouts) walk(c);
    floor.push(performance.now() - t0);
  }

  console.log(`worktrees.checkouts ${checkouts.length}`);
  console.log(`worktrees.files_per_checkout ${FILES}`);
  console.log(`worktrees.items_ahead ${ahead} (expected ${(TREES - 1) * 5})`);
  console.log(`worktrees.status_inprocess_median_ms ${median(inproc).toFixed(0)}`);
  console.log(`worktrees.status_process_median_ms ${median(proc).toFixed(0)} (goal < 1000)`);
  console.log(`worktrees.floor_read_median_ms ${median(floor).toFixed(0)}`);
  console.log(`worktrees.editor_markers_median_ms ${median(markers).toFixed(0)} (${marked} marked from wt2)`);
  console.log(`diffstate.changes ${changes} (expected 5)`);
  console.log(`diffstate.inprocess_median_ms ${median(diffIn).toFixed(0)}`);
  console.log(`diffstate.process_median_ms ${median(diffProc).toFixed(0)}`);
  console.log(`diffstate.floor_archive_median_ms ${median(archive).toFixed(0)}`);
} finally {
  fs.rmSync(parent, { recursive: true, force: true });
}
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

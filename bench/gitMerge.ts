// The state merge driver on a 1,000-entry sprint-status.yaml: each side moved 150 stories (50 of
// them both), as two agents in two worktrees would. Figures side by side in the same run:
//   gitmerge.driver_inprocess_median_ms   mergeStateFile (parse three ledgers, decide, git merge-file)
//   gitmerge.driver_process_median_ms     `waymark merge-driver` as git runs it (a node process)  goal < 50
//   gitmerge.floor_merge_file_median_ms   floor: `git merge-file` alone on the same three files
//   gitmerge.floor_node_start_median_ms   floor: starting node and exiting (`node -e 0`)
// Options: --entries N (default 1000), --runs N (default 15).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { mergeStateFile } from '../src/core/index';
import { arg, median, time } from './lib';

const ENTRIES = arg('entries', 1000);
const RUNS = arg('runs', 15);
const ORDER = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'];

function ledger(status: (i: number) => string): string {
  const lines = ['# generated: 01-05-2026 09:00', 'last_updated: 01-06-2026 10:00', 'project: Bench', '', 'development_status:'];
  const per = 20;
  for (let i = 0; i < ENTRIES; i++) {
    const e = Math.floor(i / per) + 1;
    if (i % per === 0) lines.push(`  epic-${e}: in-progress`);
    lines.push(`  ${e}-${(i % per) + 1}-story-${i}: ${status(i)}`);
  }
  return lines.join('\n') + '\n';
}

const baseStatus = (i: number) => ORDER[i % 3];
const up = (i: number, by: number) => ORDER[Math.min(ORDER.length - 1, ORDER.indexOf(baseStatus(i)) + by)];
const base = ledger(baseStatus);
// Ours moves entries 0..149 one step; theirs moves 100..249 two steps (100..149 moved by both).
const ours = ledger((i) => (i < 150 ? up(i, 1) : baseStatus(i)));
const theirs = ledger((i) => (i >= 100 && i < 250 ? up(i, 2) : baseStatus(i)));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-gitmerge-'));
try {
  const [b, o, t] = ['base', 'ours', 'theirs'].map((n) => path.join(dir, n));
  fs.writeFileSync(b, base);
  fs.writeFileSync(t, theirs);
  const cli = path.resolve('dist/cli.js');

  const inproc: number[] = [];
  let conflicts = -1;
  for (let r = 0; r < RUNS + 2; r++) {
    let res: ReturnType<typeof mergeStateFile> | undefined;
    const ms = time(() => (res = mergeStateFile({ base, ours, theirs, path: 'sprint-status.yaml' })));
    conflicts = res!.conflicts;
    if (r >= 2) inproc.push(ms);
  }

  const proc: number[] = [];
  for (let r = 0; r < RUNS + 1; r++) {
    fs.writeFileSync(o, ours);
    const ms = time(() => {
      const x = spawnSync(process.execPath, [cli, 'merge-driver', b, o, t, 'sprint-status.yaml', '7']);
      if (x.status !== 0) throw new Error(`merge-driver exit ${x.status}: ${String(x.stderr)}`);
    });
    if (r >= 1) proc.push(ms);
  }

  const floor: number[] = [];
  let floorConflicts = 0;
  fs.writeFileSync(o, ours);
  for (let r = 0; r < RUNS + 1; r++) {
    const ms = time(() => {
      floorConflicts = spawnSync('git', ['merge-file', '-p', o, b, t]).status ?? -1;
    });
    if (r >= 1) floor.push(ms);
  }

  const node: number[] = [];
  for (let r = 0; r < RUNS + 1; r++) {
    const ms = time(() => spawnSync(process.execPath, ['-e', '0']));
    if (r >= 1) node.push(ms);
  }

  console.log(`gitmerge.entries ${ENTRIES}`);
  console.log(`gitmerge.driver_conflicts ${conflicts}`);
  console.log(`gitmerge.floor_merge_file_conflicts ${floorConflicts}`);
  console.log(`gitmerge.driver_inprocess_median_ms ${median(inproc).toFixed(1)}`);
  console.log(`gitmerge.driver_process_median_ms ${median(proc).toFixed(1)} (goal < 50)`);
  console.log(`gitmerge.floor_merge_file_median_ms ${median(floor).toFixed(1)}`);
  console.log(`gitmerge.floor_node_start_median_ms ${median(node).toFixed(1)}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

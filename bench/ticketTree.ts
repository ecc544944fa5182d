// A generated BMAD v7 ticket tree of 50 epics and 1,000 tickets (entries, plans in every status,
// leaf files, cross-epic links, gates, lettered ids): read, grouped for `next` and checked in
// process, beside its floor (reading the same files without parsing). Then `waymark next --json`
// as a whole process against BMAD's own `tickets.py next` on the same tree, when WAYMARK_TICKETS_PY
// names a copy of it (python3 >= 3.11).
// Prints `tree.read_median_ms` (goal <= 200), `tree.cli_next_median_ms` and, with tickets.py,
// `tree.tickets_py_next_median_ms` and `tree.cli_vs_tickets_py` (goal <= 1.5).
// Options: --epics N (default 50), --tickets N per epic (default 20), --runs N (default 15).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { nextGroups, readTicketTree, treeProblems } from '../src/core/index';
import { bigTree } from '../test/unit/treeHelpers';
import { arg, line, median, time } from './lib';

const EPICS = arg('epics', 50);
const PER = arg('tickets', 20);
const RUNS = arg('runs', 15);

function readAll(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += readAll(p);
    else n += fs.readFileSync(p, 'utf8').length;
  }
  return n;
}

function main(): void {
  const root = bigTree(EPICS, PER);
  const init = path.join(root, '_bmad-output', 'initiative-big');
  try {
    const tree = readTicketTree(root)!;
    line('tree.tickets', tree.tickets.length, 0);
    line('tree.problems', treeProblems(tree).length, 0);
    const read: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      floor.push(time(() => readAll(init)));
      read.push(time(() => {
        const t = readTicketTree(root)!;
        nextGroups(t);
        treeProblems(t);
      }));
    }
    line('tree.read_floor_median_ms', median(floor), 1);
    line('tree.read_median_ms', median(read), 1);
    const cli = path.resolve('dist/cli.js');
    const procRuns = Math.max(3, Math.min(RUNS, 7));
    const cliTimes: number[] = [];
    for (let i = 0; i < procRuns; i++) cliTimes.push(time(() => {
      const r = spawnSync(process.execPath, [cli, 'next', '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (r.status !== 0) throw new Error(`waymark next failed: ${r.stderr}`);
    }));
    line('tree.cli_next_median_ms', median(cliTimes), 1);
    const py = process.env.WAYMARK_TICKETS_PY;
    if (!py || !fs.existsSync(py)) {
      console.log('tree.tickets_py skipped (set WAYMARK_TICKETS_PY to a copy of BMAD-METHOD skills/bmad-ticket/scripts/tickets.py)');
      return;
    }
    const pyTimes: number[] = [];
    for (let i = 0; i < procRuns; i++) pyTimes.push(time(() => {
      const r = spawnSync('python3', [py, 'next', init], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (r.status !== 0) throw new Error(`tickets.py next failed: ${r.stderr}`);
    }));
    line('tree.tickets_py_next_median_ms', median(pyTimes), 1);
    line('tree.cli_vs_tickets_py', median(cliTimes) / median(pyTimes), 2);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main();

// A generated BMAD v7 ticket tree of 50 epics and 1,000 tickets (entries, plans in every status,
// leaf files, cross-epic links, gates, lettered ids): read, grouped for `next` and checked in
// process, beside its floor (reading the same files without parsing). Then `waymark next --json`
// as a whole process against BMAD's own `tickets.py next` on the same tree, when WAYMARK_TICKETS_PY
// names a copy of it (python3 >= 3.11).
// Prints `tree.read_median_ms` (goal <= 200), `tree.cli_next_median_ms` and, with tickets.py,
// `tree.tickets_py_next_median_ms` and `tree.cli_vs_tickets_py` (goal <= 1.5), each also as CPU
// time (`*_cpu_*`: user + system, steadier than wall time on a loaded machine); the two processes
// run alternately so both see the same load.
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

/** CPU milliseconds (user + system) of this process's waited-for children so far, from /proc (Linux); NaN elsewhere. */
function childCpuMs(): number {
  try {
    const f = fs.readFileSync('/proc/self/stat', 'utf8');
    const after = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(after[13]) + Number(after[14])) * 10; // cutime + cstime, in 100 Hz ticks
  } catch {
    return NaN;
  }
}

/** Wall and CPU milliseconds of a child process run to its end. */
function timeChild(fn: () => void): { wall: number; cpu: number } {
  const c = childCpuMs();
  const wall = time(fn);
  return { wall, cpu: childCpuMs() - c };
}

/** Wall and CPU (user + system) milliseconds of `fn` in this process. */
function timeCpu(fn: () => void): { wall: number; cpu: number } {
  const c = process.cpuUsage();
  const wall = time(fn);
  const d = process.cpuUsage(c);
  return { wall, cpu: (d.user + d.system) / 1000 };
}

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
    const read: { wall: number; cpu: number }[] = [];
    const floor: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      floor.push(timeCpu(() => readAll(init)));
      read.push(timeCpu(() => {
        const t = readTicketTree(root)!;
        nextGroups(t);
        treeProblems(t);
      }));
    }
    line('tree.read_floor_median_ms', median(floor.map((x) => x.wall)), 1);
    line('tree.read_median_ms', median(read.map((x) => x.wall)), 1);
    line('tree.read_floor_cpu_median_ms', median(floor.map((x) => x.cpu)), 1);
    line('tree.read_cpu_median_ms', median(read.map((x) => x.cpu)), 1);
    const cli = path.resolve('dist/cli.js');
    const procRuns = Math.max(3, Math.min(RUNS, 7));
    const runCli = () => timeChild(() => {
      const r = spawnSync(process.execPath, [cli, 'next', '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (r.status !== 0) throw new Error(`waymark next failed: ${r.stderr}`);
    });
    const py = process.env.WAYMARK_TICKETS_PY;
    const withPy = py !== undefined && fs.existsSync(py);
    const runPy = () => timeChild(() => {
      const r = spawnSync('python3', [py as string, 'next', init], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (r.status !== 0) throw new Error(`tickets.py next failed: ${r.stderr}`);
    });
    // Alternating, so both see the same machine load.
    const cliTimes: { wall: number; cpu: number }[] = [];
    const pyTimes: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < procRuns; i++) {
      cliTimes.push(runCli());
      if (withPy) pyTimes.push(runPy());
    }
    const wall = (xs: { wall: number }[]) => median(xs.map((x) => x.wall));
    const cpu = (xs: { cpu: number }[]) => median(xs.map((x) => x.cpu));
    line('tree.cli_next_median_ms', wall(cliTimes), 1);
    line('tree.cli_next_cpu_median_ms', cpu(cliTimes), 1);
    if (!withPy) {
      console.log('tree.tickets_py skipped (set WAYMARK_TICKETS_PY to a copy of BMAD-METHOD skills/bmad-ticket/scripts/tickets.py)');
      return;
    }
    line('tree.tickets_py_next_median_ms', wall(pyTimes), 1);
    line('tree.tickets_py_next_cpu_median_ms', cpu(pyTimes), 1);
    line('tree.cli_vs_tickets_py', wall(cliTimes) / wall(pyTimes), 2);
    line('tree.cli_vs_tickets_py_cpu', cpu(cliTimes) / cpu(pyTimes), 2);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main();

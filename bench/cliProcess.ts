// The CLI as agents run it: whole processes, spawn to exit, each beside its floor or peer in the
// same run (A B A B ..., the ratio taken pair by pair, so a change in machine speed cancels):
//   cli.one_file_*        `waymark status FILE --json` in a one-file workspace vs `node -e 0`
//                          (target <= 1.5x: a CLI that starts like Node);
//   cli.sprint_*          `waymark sprint` on a generated BMAD project of --epics x --stories
//                          stories (default 20 x 20 = 400; ledger, epics and a story file with tasks
//                          for every story, all read) vs BMAD's own `sprint_plan.py status` on the
//                          same ledger (it reads the ledger only); targets <= 1.5x and < 300 ms;
//   cli.validate_bmad_*   `waymark validate` on the same project (target < 300 ms).
// sprint_plan.py is BMAD-METHOD's (skills/bmad-sprint-planning/scripts/); it is not in this
// repository: give its path in WAYMARK_BENCH_SPRINT_PLAN (default /work/scratch/bmad/sprint_plan.py)
// and a Python with ruamel.yaml in WAYMARK_BENCH_PYTHON (default: python3, then /usr/bin/python3).
// Without them the peer figure is skipped and the line says why.
// Options: --runs N (default 15), --epics N, --stories N.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { arg, median } from './lib';

const RUNS = arg('runs', 15);
const EPICS = arg('epics', 20);
const PER = arg('stories', 20);
const CLI = path.resolve('dist/cli.js');
const NODE = process.execPath;

/**
 * CPU ms (user + system) of the children this process has waited for, from /proc/self/stat
 * (cutime + cstime, 10 ms ticks), or NaN off Linux. Summed over many runs it says what the
 * processes cost when a loaded machine makes wall times mostly waiting.
 */
function childCpuMs(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return NaN;
  }
}

let lastCpu = 0;

/** Wall ms of one whole process, spawn to exit, its output thrown away; its CPU ms in lastCpu. */
function wall(cmd: string, args: string[], cwd: string): number {
  const c0 = childCpuMs();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, stdio: 'ignore' });
  const ms = performance.now() - t0;
  lastCpu = childCpuMs() - c0;
  if (r.error || r.status !== 0) throw new Error(`bench: ${cmd} ${args.join(' ')} failed in ${cwd} (${r.error?.message ?? `exit ${r.status}`})`);
  return ms;
}

interface Pair {
  a: number;
  b: number;
  ratio: number;
  aMin: number;
  aMax: number;
  /** Total CPU of the A runs over the total of the B runs. */
  cpuRatio: number;
  cpuA: number;
  cpuB: number;
}

/** A and B in turn after two unmeasured pairs (the first run of a verb writes its code cache). */
function paired(a: () => number, b: () => number): Pair {
  for (let i = 0; i < 2; i++) {
    a();
    b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  const rs: number[] = [];
  let cpuA = 0;
  let cpuB = 0;
  for (let i = 0; i < RUNS; i++) {
    const x = a();
    cpuA += lastCpu;
    const y = b();
    cpuB += lastCpu;
    as.push(x);
    bs.push(y);
    rs.push(x / y);
  }
  return { a: median(as), b: median(bs), ratio: median(rs), aMin: Math.min(...as), aMax: Math.max(...as), cpuRatio: cpuA / cpuB, cpuA: cpuA / RUNS, cpuB: cpuB / RUNS };
}

const cpu = (p: Pair) => `CPU ${p.cpuA.toFixed(0)} vs ${p.cpuB.toFixed(0)} ms a run, ${p.cpuRatio.toFixed(2)}x`;

const ms = (x: number) => x.toFixed(1);

/** A BMAD project: config, ledger, epics document and one story file (with tasks) per story. */
function bmadProject(root: string): number {
  fs.mkdirSync(path.join(root, '_bmad/bmm'), { recursive: true });
  fs.writeFileSync(path.join(root, '_bmad/bmm/config.yaml'), 'project_name: Bench\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n');
  const impl = path.join(root, '_bmad-output/implementation-artifacts');
  const plan = path.join(root, '_bmad-output/planning-artifacts');
  fs.mkdirSync(impl, { recursive: true });
  fs.mkdirSync(plan, { recursive: true });
  const stamp = new Date();
  const p2 = (n: number) => String(n).padStart(2, '0');
  const when = `${p2(stamp.getMonth() + 1)}-${p2(stamp.getDate())}-${stamp.getFullYear()} 09:00`;
  const ledger = [`# generated: ${when}`, '', `generated: ${when}`, `last_updated: ${when}`, 'project: Bench', 'project_key: BENCH', 'tracking_system: file-system', 'story_location: _bmad-output/implementation-artifacts', '', 'development_status:'];
  const epics = ['# Bench - Epic Breakdown', ''];
  let stories = 0;
  for (let e = 1; e <= EPICS; e++) {
    const epicStatus = e < EPICS / 2 ? 'done' : e === Math.ceil(EPICS / 2) ? 'in-progress' : 'backlog';
    ledger.push(`  epic-${e}: ${epicStatus}`);
    epics.push(`## Epic ${e}: Area ${e}`, '');
    for (let s = 1; s <= PER; s++) {
      const key = `${e}-${s}-story-number-${s}-of-epic-${e}`;
      const status = epicStatus === 'done' ? 'done' : epicStatus === 'in-progress' ? (s === 1 ? 'in-progress' : s === 2 ? 'review' : 'ready-for-dev') : 'ready-for-dev';
      ledger.push(`  ${key}: ${status}`);
      epics.push(`### Story ${e}.${s}: Story number ${s} of epic ${e}`, '', 'As a user, I want it, so that it helps.', '');
      const tick = status === 'done' ? 'x' : ' ';
      fs.writeFileSync(path.join(impl, `${key}.md`), [`# Story ${e}.${s}: Story number ${s} of epic ${e}`, '', `Status: ${status}`, '', '## Story', '', 'As a user, I want it, so that it helps.', '', '## Acceptance Criteria', '', '1. It works.', '', '## Tasks / Subtasks', '', `- [${tick}] Task 1 (AC: #1)`, `  - [${tick}] Subtask 1.1`, `- [${tick}] Task 2`, `  - [${tick}] Subtask 2.1`, `- [${tick}] Task 3`, '', '## Dev Notes', '', 'Notes. '.repeat(30), '', '## Dev Agent Record', '', '### File List', '', '## Change Log', ''].join('\n'));
      stories++;
    }
    ledger.push(`  epic-${e}-retrospective: ${epicStatus === 'done' ? 'done' : 'optional'}`, '');
  }
  fs.writeFileSync(path.join(impl, 'sprint-status.yaml'), ledger.join('\n'));
  fs.writeFileSync(path.join(plan, 'epics.md'), epics.join('\n'));
  return stories;
}

/** BMAD's sprint_plan.py and a Python that runs it, or why not. */
function sprintPlan(): { python: string; script: string } | { missing: string } {
  const script = process.env.WAYMARK_BENCH_SPRINT_PLAN ?? '/work/scratch/bmad/sprint_plan.py';
  if (!fs.existsSync(script)) return { missing: `${script} not found (BMAD-METHOD's skills/bmad-sprint-planning/scripts/sprint_plan.py; set WAYMARK_BENCH_SPRINT_PLAN)` };
  const candidates = process.env.WAYMARK_BENCH_PYTHON ? [process.env.WAYMARK_BENCH_PYTHON] : ['python3', '/usr/bin/python3'];
  for (const python of candidates) {
    const r = spawnSync(python, ['-c', 'import ruamel.yaml'], { stdio: 'ignore' });
    if (!r.error && r.status === 0) return { python, script };
  }
  return { missing: `no Python with ruamel.yaml among ${candidates.join(', ')} (set WAYMARK_BENCH_PYTHON, or apt-get install python3-ruamel.yaml)` };
}

function load(): string {
  return `${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores`;
}

function main(): void {
  console.log(`cli.machine_load_start ${load()}`);
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-cli-')));
  try {
    // One file.
    const one = path.join(tmp, 'one');
    fs.mkdirSync(path.join(one, 'work'), { recursive: true });
    fs.writeFileSync(path.join(one, 'work/demo.workflow.md'), '---\nworkflow: demo\nstatus: in_progress\nsteps: [design, build, test]\ncurrentStep: build\nstepsCompleted: [design]\n---\n# Demo\n');
    const status = paired(() => wall(NODE, [CLI, 'status', 'work/demo.workflow.md', '--json'], one), () => wall(NODE, ['-e', '0'], one));
    console.log(`cli.one_file_status_ms ${ms(status.a)}  (waymark status FILE --json, median of ${RUNS}, min ${ms(status.aMin)} max ${ms(status.aMax)})`);
    console.log(`cli.floor_node_e0_ms ${ms(status.b)}  (node -e 0 in the same pairs)`);
    console.log(`cli.one_file_ratio ${status.ratio.toFixed(2)}  (median of pair ratios; target <= 1.5; ${cpu(status)})`);

    // A 400-story BMAD project.
    const proj = path.join(tmp, 'bmad');
    fs.mkdirSync(proj);
    const stories = bmadProject(proj);
    spawnSync('git', ['init', '-q', proj], { stdio: 'ignore' });
    const ledger = '_bmad-output/implementation-artifacts/sprint-status.yaml';
    const check = spawnSync(NODE, [CLI, 'sprint', '--json'], { cwd: proj, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (check.status !== 0) throw new Error(`bench: waymark sprint failed: ${check.stderr}`);
    const read = JSON.parse(check.stdout) as { epics: { stories: { file?: string }[] }[] };
    const withFile = read.epics.flatMap((e) => e.stories).filter((s) => s.file).length;
    console.log(`cli.sprint_stories ${stories}  (${withFile} story files read by waymark sprint; ${EPICS} epics)`);
    const peer = sprintPlan();
    const sprintRun = () => wall(NODE, [CLI, 'sprint'], proj);
    if ('missing' in peer) {
      const own = paired(sprintRun, () => wall(NODE, ['-e', '0'], proj));
      console.log(`cli.sprint_ms ${ms(own.a)}  (waymark sprint, median of ${RUNS}; target < 300; vs node -e 0 ${cpu(own)})`);
      console.log(`cli.sprint_vs_sprint_plan n/a  (peer not run: ${peer.missing})`);
    } else {
      const py = () => wall(peer.python, [peer.script, 'status', '--status-file', ledger], proj);
      const s = paired(sprintRun, py);
      console.log(`cli.sprint_ms ${ms(s.a)}  (waymark sprint: ledger + every story file + epics, median of ${RUNS}, min ${ms(s.aMin)} max ${ms(s.aMax)}; target < 300)`);
      console.log(`cli.peer_sprint_plan_status_ms ${ms(s.b)}  (BMAD's sprint_plan.py status, ledger only, ${peer.python}, same pairs)`);
      console.log(`cli.sprint_vs_sprint_plan ${s.ratio.toFixed(2)}  (median of pair ratios; target <= 1.5; ${cpu(s)})`);
    }
    const v = paired(() => wall(NODE, [CLI, 'validate'], proj), () => wall(NODE, ['-e', '0'], proj));
    console.log(`cli.validate_bmad_ms ${ms(v.a)}  (waymark validate on the ${stories}-story project, median of ${RUNS}, min ${ms(v.aMin)} max ${ms(v.aMax)}; target < 300; node -e 0 ${ms(v.b)}; ${cpu(v)})`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`cli.machine_load_end ${load()}`);
}

main();

// The CLI as agents run it: whole processes, spawn to exit, each beside its floor or peer in the
// same run (A B A B ..., the ratio taken pair by pair, so a change in machine speed cancels):
//   cli.one_file_*        `waymark status FILE --json` in a one-file workspace vs `node -e 0`
//                          (target <= 1.5x: a CLI that starts like Node);
//   cli.sprint_*          `waymark sprint` on a generated BMAD project of --epics x --stories
//                          stories (default 20 x 20 = 400), shaped like the real projects of issue
//                          20: story files of real size (about 250 lines), sharded epics and planning
//                          documents, the install's workflows and step files, agent commands, epic
//                          retrospectives and an application's source tree (about 2,700 files, 750
//                          Markdown); `--lean` writes only ledger, epics and small story files. vs
//                          BMAD's own `sprint_plan.py status` on the same ledger (it reads the
//                          ledger only); targets <= 1.5x and < 300 ms;
//   cli.validate_bmad_*   `waymark validate` on the same project, warm (answered from its stored
//                          answer) and after one story file was edited (target < 300 ms);
//   cli.first_*           the first `validate` and the first `sprint` in a fresh copy of the project
//                          (no `.waymark/`: what a user's first run in a new clone costs; the copy
//                          is made before each run, untimed, and older than the racy window),
//                          beside node -e 0 (target < 300 ms).
// sprint_plan.py is BMAD-METHOD's (skills/bmad-sprint-planning/scripts/); it is not in this
// repository: give its path in WAYMARK_BENCH_SPRINT_PLAN (default /work/scratch/bmad/sprint_plan.py)
// and a Python with ruamel.yaml in WAYMARK_BENCH_PYTHON (default: python3, then /usr/bin/python3).
// Without them the peer figure is skipped and the line says why.
// Options: --runs N (default 15), --epics N, --stories N, --lean; --bmad-only skips the one-file
// lines; --base CLI (another build's dist/cli.js, e.g. main's before a change) adds A/B lines:
// this build against that one (status FILE in the one-file workspace, then on the BMAD project),
// each on its own copy of the project and with its own code cache folder (one shared folder would
// make both compile from source on every run), the same edits in both, in turn (cli.*_vs_base,
// the ratio pair by pair, with each one's CPU beside node -e 0's), the first runs included.
// --make-project DIR writes the BMAD project (a git repository, every file committed, as a clone is) into DIR and exits, for profiling a verb on it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { arg, median } from './lib';

const RUNS = arg('runs', 15);
const EPICS = arg('epics', 20);
const PER = arg('stories', 20);
const LEAN = process.argv.includes('--lean');
const BMAD_ONLY = process.argv.includes('--bmad-only');
const BASE = ((i) => (i >= 0 && process.argv[i + 1] ? path.resolve(process.argv[i + 1]) : undefined))(process.argv.indexOf('--base'));
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
function wall(cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): number {
  const c0 = childCpuMs();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, stdio: 'ignore', env });
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

const p2 = (n: number) => String(n).padStart(2, '0');

/** Writes `text` at `root/rel`, making its folder. */
function put(root: string, rel: string, text: string): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** Prose of about `n` lines, the way planning documents and step files read. */
function prose(n: number, topic: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 12 === 0) out.push('', `### ${topic} part ${i / 12 + 1}`, '');
    else if (i % 5 === 0) out.push(`- **${topic} point ${i}:** the ${topic} keeps its rules where every reader can find them.`);
    else out.push(`The ${topic} section ${i} explains what is decided, why, and what it leaves open for later work.`);
  }
  return out;
}

/**
 * A story file the size real projects write (about 250 lines, 8-9 KB): status line, story,
 * acceptance criteria, tasks and subtasks, dev notes with code blocks and a table, references,
 * the dev agent record with its file list, a change log and a review with follow-ups.
 */
function storyText(e: number, s: number, status: string): string {
  const tick = status === 'done' ? 'x' : ' ';
  const lines = [`# Story ${e}.${s}: Story number ${s} of epic ${e}`, '', `Status: ${status}`, '', '## Story', '', 'As a **parent**,', `I want **capability ${s} of area ${e}**,`, 'So that **the family sees what changed and why**.', '', '## Acceptance Criteria', ''];
  for (let a = 1; a <= 8; a++) lines.push(`${a}. **Given** state ${a} of the feature **When** the user acts **Then** the result ${a} is shown and recorded (FR${e}.${a})`);
  lines.push('', '## Tasks / Subtasks', '');
  for (let t = 1; t <= 6; t++) {
    lines.push(`- [${tick}] Task ${t}: Build part ${t} of the feature (AC: #${t}, #${t + 1})`);
    for (let u = 1; u <= 4; u++) lines.push(`  - [${tick}] Subtask ${t}.${u}: write \`part${t}Step${u}\` and its tests`);
  }
  lines.push('', '## Dev Notes', '', '### Architecture Compliance', '');
  lines.push(...prose(16, `story ${e}.${s}`));
  for (let c = 1; c <= 3; c++) {
    lines.push('', `### Code sketch ${c}`, '', '```typescript', `interface Part${c}State {`);
    for (let f = 1; f <= 10; f++) lines.push(`  field${f}: string // what field ${f} holds`);
    lines.push('}', '', `export function part${c}(state: Part${c}State): boolean {`, '  return Object.keys(state).length > 0', '}', '```');
  }
  lines.push('', '### Data model', '', '| Field | Type | Notes |', '| ----- | ---- | ----- |');
  for (let f = 1; f <= 10; f++) lines.push(`| field${f} | string | stored with the record, shown in the timeline |`);
  lines.push('', '### References', '');
  for (let r = 1; r <= 10; r++) lines.push(`- [Source: docs/architecture/section-${r}.md#part-${r}]`);
  lines.push('', '## Dev Agent Record', '', '### Agent Model Used', '', 'A model', '', '### Debug Log References', '', '### Completion Notes List', '');
  for (let n = 1; n <= 10; n++) lines.push(`- Completed step ${n}; ${n * 12} tests pass.`);
  lines.push('', '### File List', '');
  for (let f = 1; f <= 20; f++) lines.push(`- \`apps/web/src/area${e}/part${s}/file${f}.ts\``);
  lines.push('', '## Change Log', '', '| Date | Version | Description |', '| ---- | ------- | ----------- |', '| 2026-01-05 | 1.0 | Story created |', '| 2026-01-07 | 1.1 | Implementation complete |');
  lines.push('', '## Senior Developer Review (AI)', '', '### Review Follow-ups (AI)', '');
  for (let f = 1; f <= 4; f++) lines.push(`- [${tick}] [AI-Review][Medium] Follow-up ${f}: tighten the check in part ${f}`);
  lines.push(...prose(12, `review of ${e}.${s}`), '');
  return lines.join('\n');
}

/**
 * A BMAD project shaped like the real ones the CLI is run on (issue 20): beside the ledger, the
 * epics documents and one story file per story, the install folder (workflows with their step
 * files, agents, tasks, manifests), agent command files, sharded planning documents (some with
 * workflow frontmatter), epic retrospectives, and an application's source tree of small files.
 * `--lean` writes only the ledger, one epics document and small story files (the earlier bench).
 */
function bmadProject(root: string, lean: boolean): { stories: number; files: number; md: number } {
  let files = 0;
  let md = 0;
  const write = (rel: string, text: string) => {
    put(root, rel, text);
    files++;
    if (rel.endsWith('.md')) md++;
  };
  write('_bmad/bmm/config.yaml', 'project_name: Bench\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nuser_name: Bench\ncommunication_language: English\n');
  const impl = '_bmad-output/implementation-artifacts';
  const plan = '_bmad-output/planning-artifacts';
  fs.mkdirSync(path.join(root, impl), { recursive: true });
  fs.mkdirSync(path.join(root, plan), { recursive: true });
  const stamp = new Date();
  const when = `${p2(stamp.getMonth() + 1)}-${p2(stamp.getDate())}-${stamp.getFullYear()} 09:00`;
  const ledger = [`# generated: ${when}`, '', `generated: ${when}`, `last_updated: ${when}`, 'project: Bench', 'project_key: BENCH', 'tracking_system: file-system', `story_location: ${impl}`, '', 'development_status:'];
  if (!lean) ledger.splice(1, 0, '# STATUS DEFINITIONS:', ...['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'].map((w) => `#   - ${w}: what the ${w} status means for a story and who moves it on`), '#', '# WORKFLOW NOTES:', ...prose(12, 'ledger').filter(Boolean).map((l) => `# ${l}`));
  const epics = ['# Bench - Epic Breakdown', ''];
  let stories = 0;
  for (let e = 1; e <= EPICS; e++) {
    const epicStatus = e < EPICS / 2 ? 'done' : e === Math.ceil(EPICS / 2) ? 'in-progress' : 'backlog';
    ledger.push(`  epic-${e}: ${epicStatus}`);
    epics.push(`## Epic ${e}: Area ${e}`, '', `Area ${e} gives the family one more thing to see and decide together.`, '');
    for (let s = 1; s <= PER; s++) {
      const key = `${e}-${s}-story-number-${s}-of-epic-${e}`;
      const status = epicStatus === 'done' ? 'done' : epicStatus === 'in-progress' ? (s === 1 ? 'in-progress' : s === 2 ? 'review' : 'ready-for-dev') : 'ready-for-dev';
      ledger.push(`  ${key}: ${status}`);
      epics.push(`### Story ${e}.${s}: Story number ${s} of epic ${e}`, '', 'As a user, I want it, so that it helps.', '');
      if (!lean) epics.push('**Acceptance Criteria:**', '', ...[1, 2, 3, 4].map((a) => `**Given** case ${a} **When** it happens **Then** story ${e}.${s} handles it`), '');
      const tick = status === 'done' ? 'x' : ' ';
      write(`${impl}/${key}.md`, lean ? [`# Story ${e}.${s}: Story number ${s} of epic ${e}`, '', `Status: ${status}`, '', '## Story', '', 'As a user, I want it, so that it helps.', '', '## Acceptance Criteria', '', '1. It works.', '', '## Tasks / Subtasks', '', `- [${tick}] Task 1 (AC: #1)`, `  - [${tick}] Subtask 1.1`, `- [${tick}] Task 2`, `  - [${tick}] Subtask 2.1`, `- [${tick}] Task 3`, '', '## Dev Notes', '', 'Notes. '.repeat(30), '', '## Dev Agent Record', '', '### File List', '', '## Change Log', ''].join('\n') : storyText(e, s, status));
      stories++;
    }
    ledger.push(`  epic-${e}-retrospective: ${epicStatus === 'done' ? 'done' : 'optional'}`, '');
    if (!lean && epicStatus === 'done') write(`${impl}/epic-${e}-retro-2026-01-${p2((e % 28) + 1)}.md`, [`# Epic ${e} Retrospective`, '', ...prose(60, `epic ${e} retrospective`), ''].join('\n'));
  }
  write(`${impl}/sprint-status.yaml`, ledger.join('\n'));
  if (lean) {
    write(`${plan}/epics.md`, epics.join('\n'));
    return { stories, files, md };
  }
  // Planning: the epics sharded (an index, the list with every story, per-area detail), PRD,
  // architecture and UX shards; the main documents carry BMAD's workflow frontmatter.
  write(`${plan}/epics/index.md`, ['# Epics', '', ...Array.from({ length: EPICS }, (_, i) => `- [Epic ${i + 1}](./epic-list.md#epic-${i + 1})`), ''].join('\n'));
  write(`${plan}/epics/epic-list.md`, epics.join('\n'));
  write(`${plan}/epics/requirements-inventory.md`, ['# Requirements Inventory', '', ...prose(300, 'requirement'), ''].join('\n'));
  const fm = (workflowType: string) => ['---', `stepsCompleted: [1, 2, 3, 4, 5, 6, 7, 8]`, `inputDocuments: ['${plan}/product-brief.md']`, `workflowType: '${workflowType}'`, 'lastStep: 8', 'project_name: Bench', 'user_name: Bench', 'date: 2026-01-02', '---', ''];
  write(`${plan}/product-brief.md`, [...fm('product-brief'), '# Product Brief: Bench', ...prose(120, 'brief'), ''].join('\n'));
  write(`${plan}/prd.md`, [...fm('prd'), '# Product Requirements Document', ...prose(60, 'prd'), ''].join('\n'));
  for (const [folder, n, topic] of [['prd', 15, 'requirement'], ['architecture', 6, 'architecture'], ['ux-design-specification', 12, 'interaction']] as const) {
    for (let i = 1; i <= n; i++) write(`${plan}/${folder}/section-${i}.md`, [`# ${topic} section ${i}`, ...prose(150, topic), ''].join('\n'));
    write(`${plan}/${folder}/index.md`, [`# ${folder}`, '', ...Array.from({ length: n }, (_, i) => `- [Section ${i + 1}](./section-${i + 1}.md)`), ''].join('\n'));
  }
  write(`${plan}/architecture.md`, [...fm('architecture'), '# Architecture', ...prose(80, 'architecture'), ''].join('\n'));
  write(`${plan}/implementation-readiness-report-2026-01-03.md`, ['# Implementation Readiness', ...prose(200, 'readiness'), ''].join('\n'));
  // The install: workflows with step files (the first declares the output), agents, tasks, manifests.
  const manifest = ['name,description,module,path'];
  const phases = ['1-analysis', '2-plan-workflows', '3-solutioning', '4-implementation'];
  for (let w = 1; w <= 30; w++) {
    const name = `workflow-${w}`;
    const dir = `_bmad/bmm/workflows/${phases[w % 4]}/${name}`;
    manifest.push(`"${name}","Workflow ${w}","bmm","_bmad/${dir.slice(6)}/workflow.md"`);
    write(`${dir}/workflow.md`, ['---', `name: ${name}`, `description: 'Workflow ${w} of the bench install'`, '---', '', `# Workflow ${w}`, '', `- \`default_output_file\` = \`{planning_artifacts}/${name}-output.md\``, ...prose(60, `workflow ${w}`), ''].join('\n'));
    for (let st = 1; st <= 6; st++) write(`${dir}/steps/step-${p2(st)}-part-${st}.md`, ['---', `name: 'step-${p2(st)}-part-${st}'`, `description: 'Step ${st} of workflow ${w}'`, ...(st === 1 ? [`outputFile: '{planning_artifacts}/${name}-output.md'`] : []), `nextStepFile: './step-${p2(st + 1)}-part-${st + 1}.md'`, '---', '', `# Step ${st}`, ...prose(70, `step ${st}`), ''].join('\n'));
    write(`${dir}/template.md`, ['# {{project_name}} output', '', '## Section', '', '{{content}}', ''].join('\n'));
  }
  for (let a = 1; a <= 10; a++) write(`_bmad/bmm/agents/agent-${a}.md`, ['---', `name: 'agent-${a}'`, `description: 'Agent ${a}'`, '---', '', ...prose(140, `agent ${a}`), ''].join('\n'));
  for (let t = 1; t <= 8; t++) write(`_bmad/core/tasks/task-${t}.md`, [`# Task ${t}`, ...prose(80, `task ${t}`), ''].join('\n'));
  write('_bmad/core/config.yaml', 'user_name: Bench\ncommunication_language: English\noutput_folder: "{project-root}/_bmad-output"\n');
  write('_bmad/_config/manifest.yaml', 'installation:\n  version: 6.0.0\nmodules:\n  - name: core\n  - name: bmm\n');
  write('_bmad/_config/workflow-manifest.csv', manifest.join('\n') + '\n');
  // Agent command files, and an application's source tree (small files, many folders).
  for (let c = 1; c <= 45; c++) write(`.claude/commands/bmad/command-${c}.md`, ['---', `description: 'Command ${c}'`, '---', '', `Load and follow _bmad/bmm/workflows/${phases[c % 4]}/workflow-${(c % 30) + 1}/workflow.md`, ''].join('\n'));
  for (const app of ['apps/web', 'apps/api', 'apps/extension', 'packages/shared']) {
    write(`${app}/README.md`, [`# ${app}`, ...prose(30, app), ''].join('\n'));
    write(`${app}/package.json`, JSON.stringify({ name: app.replace('/', '-'), version: '0.0.0' }) + '\n');
    for (let d = 1; d <= 40; d++) for (let f = 1; f <= 11; f++) write(`${app}/src/area${d}/file${f}.${f % 3 ? 'ts' : 'tsx'}`, `export const value${f} = ${d * f};\nexport function run${f}(x: number): number {\n  return x + value${f};\n}\n`);
  }
  return { stories, files, md };
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

/** A git repository holding every file in one commit: what a user's clone of the project is (an
 * uncommitted `git init` would let a verb skip asking git what a clone makes it ask). */
function committedRepo(dir: string): void {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };
  for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-q', '--no-gpg-sign', '-m', 'project']]) {
    const r = spawnSync('git', args, { cwd: dir, stdio: 'ignore', env });
    if (r.status !== 0) throw new Error(`bench: git ${args.join(' ')} failed in ${dir}`);
  }
}

function main(): void {
  const makeAt = process.argv.indexOf('--make-project');
  if (makeAt >= 0) {
    const dir = path.resolve(process.argv[makeAt + 1] ?? '');
    if (!process.argv[makeAt + 1] || (fs.existsSync(dir) && fs.readdirSync(dir).length)) throw new Error('bench: --make-project DIR needs a new or empty folder');
    fs.mkdirSync(dir, { recursive: true });
    const shape = bmadProject(dir, LEAN);
    committedRepo(dir);
    console.log(`${dir}: ${shape.stories} stories, ${shape.files} files, ${shape.md} Markdown`);
    return;
  }
  console.log(`cli.machine_load_start ${load()}`);
  extraCaNote();
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-cli-')));
  try {
    if (!BMAD_ONLY) oneFile(tmp);
    bmadLines(tmp);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`cli.machine_load_end ${load()}`);
}

/**
 * Node (20) reads and parses the certificates NODE_EXTRA_CA_CERTS names when each process starts,
 * before any of Waymark's code: a sandbox or a company proxy sets it (a 220 KB bundle cost 70–90 ms
 * of CPU a process on this machine, 29 Nov 2026). Every process timed here pays it, the floor
 * included, and a user without it does not: the figures are left as they are, this line says what
 * it costs (node -e 0 with and without it, in turn).
 */
function extraCaNote(): void {
  if (!process.env.NODE_EXTRA_CA_CERTS) return;
  const without = { ...process.env };
  delete without.NODE_EXTRA_CA_CERTS;
  const p = paired(() => wall(NODE, ['-e', '0'], os.tmpdir()), () => wall(NODE, ['-e', '0'], os.tmpdir(), without));
  console.log(`cli.env_extra_ca_certs_ms ${ms(p.a - p.b)}  (NODE_EXTRA_CA_CERTS is set: node -e 0 ${ms(p.a)} ms with it, ${ms(p.b)} without, ${cpu(p)}; every process below pays it, node -e 0 included)`);
}

/** Three runs in turn: A, B and node -e 0 (the floor both are told beside), after two unmeasured rounds. */
function triple(a: () => number, b: () => number, floor: () => number): { a: Pair; b: Pair } {
  for (let i = 0; i < 2; i++) (a(), b(), floor());
  const w = { a: [] as number[], b: [] as number[], f: [] as number[], r: [] as number[] };
  const c = { a: 0, b: 0, f: 0 };
  for (let i = 0; i < RUNS; i++) {
    const x = a();
    c.a += lastCpu;
    const y = b();
    c.b += lastCpu;
    const z = floor();
    c.f += lastCpu;
    w.a.push(x);
    w.b.push(y);
    w.f.push(z);
    w.r.push(x / y);
  }
  const pair = (xs: number[], cpuX: number): Pair => ({ a: median(xs), b: median(w.f), ratio: median(w.r), aMin: Math.min(...xs), aMax: Math.max(...xs), cpuRatio: cpuX / c.f, cpuA: cpuX / RUNS, cpuB: c.f / RUNS });
  return { a: pair(w.a, c.a), b: pair(w.b, c.b) };
}

/**
 * Each build's own code cache folder for the A/B lines: before session 20 the loader kept one cache
 * per bundle and verb wherever the bundle was (bundleLoader.ts), so a base build of that time and
 * this one alternating on one folder would each compile from source on every run.
 */
const cacheEnv = (tmp: string, who: 'this' | 'base'): NodeJS.ProcessEnv => {
  const dir = path.join(tmp, `v8-${who}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return { ...process.env, WAYMARK_COMPILE_CACHE: dir };
};

function oneFile(tmp: string): void {
  {
    // One file.
    const one = path.join(tmp, 'one');
    fs.mkdirSync(path.join(one, 'work'), { recursive: true });
    fs.writeFileSync(path.join(one, 'work/demo.workflow.md'), '---\nworkflow: demo\nstatus: in_progress\nsteps: [design, build, test]\ncurrentStep: build\nstepsCompleted: [design]\n---\n# Demo\n');
    const status = paired(() => wall(NODE, [CLI, 'status', 'work/demo.workflow.md', '--json'], one, cacheEnv(tmp, 'this')), () => wall(NODE, ['-e', '0'], one));
    console.log(`cli.one_file_status_ms ${ms(status.a)}  (waymark status FILE --json, median of ${RUNS}, min ${ms(status.aMin)} max ${ms(status.aMax)})`);
    console.log(`cli.floor_node_e0_ms ${ms(status.b)}  (node -e 0 in the same pairs)`);
    console.log(`cli.one_file_ratio ${status.ratio.toFixed(2)}  (median of pair ratios; target <= 1.5; ${cpu(status)})`);
    if (BASE) {
      const mine = cacheEnv(tmp, 'this');
      const base = cacheEnv(tmp, 'base');
      const r = triple(() => wall(NODE, [CLI, 'status', 'work/demo.workflow.md', '--json'], one, mine), () => wall(NODE, [BASE, 'status', 'work/demo.workflow.md', '--json'], one, base), () => wall(NODE, ['-e', '0'], one));
      console.log(`cli.one_file_vs_base ${r.a.ratio.toFixed(2)}  (status FILE --json: this build ${ms(r.a.a)} ms, CPU ${r.a.cpuA.toFixed(0)} (${r.a.cpuRatio.toFixed(2)}x node -e 0); base ${ms(r.b.a)} ms, CPU ${r.b.cpuA.toFixed(0)} (${r.b.cpuRatio.toFixed(2)}x); node -e 0 ${ms(r.a.b)} ms, CPU ${r.a.cpuB.toFixed(0)}; median of ${RUNS} pair ratios; base: ${BASE})`);
    }
  }
}

function bmadLines(tmp: string): void {
  {

    // A 400-story BMAD project.
    const proj = path.join(tmp, 'bmad');
    fs.mkdirSync(proj);
    const shape = bmadProject(proj, LEAN);
    const stories = shape.stories;
    committedRepo(proj);
    const ledger = '_bmad-output/implementation-artifacts/sprint-status.yaml';
    // This build's own code cache: the user's folder is shared with every other build run on the
    // machine, and a run of another build drops this one's cache (the loader keeps one per verb).
    const own = cacheEnv(tmp, 'this');
    const check = spawnSync(NODE, [CLI, 'sprint', '--json'], { cwd: proj, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: own });
    if (check.status !== 0) throw new Error(`bench: waymark sprint failed: ${check.stderr}`);
    const read = JSON.parse(check.stdout) as { epics: { stories: { file?: string }[] }[] };
    const withFile = read.epics.flatMap((e) => e.stories).filter((s) => s.file).length;
    console.log(`cli.sprint_stories ${stories}  (${withFile} story files read by waymark sprint; ${EPICS} epics; ${shape.files} files, ${shape.md} Markdown${LEAN ? ', --lean' : ''})`);
    const peer = sprintPlan();
    const sprintRun = () => wall(NODE, [CLI, 'sprint'], proj, own);
    if ('missing' in peer) {
      const alone = paired(sprintRun, () => wall(NODE, ['-e', '0'], proj));
      console.log(`cli.sprint_ms ${ms(alone.a)}  (waymark sprint, median of ${RUNS}; target < 300; vs node -e 0 ${cpu(alone)})`);
      console.log(`cli.sprint_vs_sprint_plan n/a  (peer not run: ${peer.missing})`);
    } else {
      const py = () => wall(peer.python, [peer.script, 'status', '--status-file', ledger], proj);
      const s = paired(sprintRun, py);
      console.log(`cli.sprint_ms ${ms(s.a)}  (waymark sprint: ledger + every story file + epics, median of ${RUNS}, min ${ms(s.aMin)} max ${ms(s.aMax)}; target < 300)`);
      console.log(`cli.peer_sprint_plan_status_ms ${ms(s.b)}  (BMAD's sprint_plan.py status, ledger only, ${peer.python}, same pairs)`);
      console.log(`cli.sprint_vs_sprint_plan ${s.ratio.toFixed(2)}  (median of pair ratios; target <= 1.5; ${cpu(s)})`);
    }
    // Past the racy window since the project was written, so the first run stores its answer.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2100);
    const v = paired(() => wall(NODE, [CLI, 'validate'], proj, own), () => wall(NODE, ['-e', '0'], proj));
    console.log(`cli.validate_bmad_ms ${ms(v.a)}  (waymark validate on the ${stories}-story project, warm: nothing changed since the last run, answered from its stored answer; median of ${RUNS}, min ${ms(v.aMin)} max ${ms(v.aMax)}; target < 300; node -e 0 ${ms(v.b)}; ${cpu(v)})`);
    // After an edit: one story file changes before each run (a different one each time, untimed).
    const impl = path.join(proj, '_bmad-output/implementation-artifacts');
    const storyFiles = fs.readdirSync(impl).filter((f) => /^\d+-\d+-story-.*\.md$/.test(f)).sort();
    let edits = 0;
    const edited = paired(() => {
      fs.appendFileSync(path.join(impl, storyFiles[edits++ % storyFiles.length]), `\nEdited ${edits}.\n`);
      return wall(NODE, [CLI, 'validate'], proj, own);
    }, () => wall(NODE, ['-e', '0'], proj));
    console.log(`cli.validate_bmad_edited_ms ${ms(edited.a)}  (waymark validate on the same project after one story file was edited: that story parsed again and its part of the kept sprint patched, the answer computed again; median of ${RUNS}, min ${ms(edited.aMin)} max ${ms(edited.aMax)}; target < 300; node -e 0 ${ms(edited.b)}; ${cpu(edited)})`);
    firstRuns(tmp, proj, stories);
    if (BASE) versusBase(tmp, proj, storyFiles);
  }
}

/**
 * A copy of the project without its `.waymark/` (a fresh clone), made untimed before each run and
 * older than the racy window when the run starts (copied ahead, two at a time), so its first run
 * stores its answer as a user's would. `next()` gives the next fresh copy.
 */
function freshCopies(tmp: string, proj: string, name: string): { next: () => string } {
  let n = 0;
  const made: { dir: string; at: number }[] = [];
  const make = () => {
    const dir = path.join(tmp, `${name}-${n++}`);
    fs.cpSync(proj, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
    made.push({ dir, at: Date.now() });
  };
  let last: string | undefined;
  return {
    next: () => {
      if (last) fs.rmSync(last, { recursive: true, force: true });
      while (made.length < 2) make();
      const { dir, at } = made.shift()!;
      const wait = at + 2100 - Date.now();
      if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
      make();
      last = dir;
      return dir;
    },
  };
}

/** The first validate and the first sprint in a fresh copy of the project, beside node -e 0 (and the base's, with --base). */
function firstRuns(tmp: string, proj: string, stories: number): void {
  const runs = Math.max(3, Math.ceil(RUNS / 2));
  for (const verb of ['validate', 'sprint'] as const) {
    const mine = freshCopies(tmp, proj, `first-${verb}`);
    const env = cacheEnv(tmp, 'this');
    const base = BASE ? freshCopies(tmp, proj, `first-${verb}-base`) : undefined;
    const envB = BASE ? cacheEnv(tmp, 'base') : undefined;
    const as: number[] = [];
    const bs: number[] = [];
    const fl: number[] = [];
    const c = { a: 0, b: 0, f: 0 };
    // One unmeasured round: each build's code cache for this verb is written.
    wall(NODE, [CLI, verb], mine.next(), env);
    if (base) wall(NODE, [BASE!, verb], base.next(), envB);
    for (let i = 0; i < runs; i++) {
      as.push(wall(NODE, [CLI, verb], mine.next(), env));
      c.a += lastCpu;
      if (base) {
        bs.push(wall(NODE, [BASE!, verb], base.next(), envB));
        c.b += lastCpu;
      }
      fl.push(wall(NODE, ['-e', '0'], proj));
      c.f += lastCpu;
    }
    const floor = median(fl);
    console.log(`cli.first_${verb}_ms ${ms(median(as))}  (the first waymark ${verb} in a fresh copy of the ${stories}-story project, no .waymark/; median of ${runs}, min ${ms(Math.min(...as))} max ${ms(Math.max(...as))}; target < 300; node -e 0 ${ms(floor)}; CPU ${(c.a / runs).toFixed(0)} vs ${(c.f / runs).toFixed(0)} ms a run, ${(c.a / c.f).toFixed(2)}x)`);
    if (base) console.log(`cli.first_${verb}_vs_base ${(median(as) / median(bs)).toFixed(2)}  (the first ${verb}: this build ${ms(median(as))} ms, CPU ${(c.a / runs).toFixed(0)}; base ${ms(median(bs))} ms, CPU ${(c.b / runs).toFixed(0)}; node -e 0 ${ms(floor)} ms, CPU ${(c.f / runs).toFixed(0)}; medians of ${runs}, in turn; base: ${BASE})`);
  }
}

/**
 * This build against `--base` on two copies of the project (each CLI keeps its own caches): warm
 * validate, validate after the same story edit in both, and sprint after an edit; A, B and
 * node -e 0 in turn.
 */
function versusBase(tmp: string, proj: string, storyFiles: string[]): void {
  const mine = path.join(tmp, 'bmad-a');
  const base = path.join(tmp, 'bmad-b');
  for (const d of [mine, base]) fs.cpSync(proj, d, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark${path.sep}cache`) });
  const impl = '_bmad-output/implementation-artifacts';
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2100);
  const floor = () => wall(NODE, ['-e', '0'], mine);
  const envA = cacheEnv(tmp, 'this');
  const envB = cacheEnv(tmp, 'base');
  const say = (name: string, what: string, r: { a: Pair; b: Pair }) =>
    console.log(`cli.${name}_vs_base ${r.a.ratio.toFixed(2)}  (${what}: this build ${ms(r.a.a)} ms, CPU ${r.a.cpuA.toFixed(0)}; base ${ms(r.b.a)} ms, CPU ${r.b.cpuA.toFixed(0)}; node -e 0 ${ms(r.a.b)} ms, CPU ${r.a.cpuB.toFixed(0)}; median of ${RUNS} pair ratios; base: ${BASE})`);
  say('validate_bmad_warm', 'validate, nothing changed', triple(() => wall(NODE, [CLI, 'validate'], mine, envA), () => wall(NODE, [BASE!, 'validate'], base, envB), floor));
  let n = 0;
  const editBoth = () => {
    const f = storyFiles[(n++ * 37) % storyFiles.length];
    for (const d of [mine, base]) fs.appendFileSync(path.join(d, impl, f), `\nEdited again ${n}.\n`);
  };
  // Each round edits one story in both copies before this build's run; the base runs on the same edit.
  say('validate_bmad_edited', 'validate after one story edit', triple(() => (editBoth(), wall(NODE, [CLI, 'validate'], mine, envA)), () => wall(NODE, [BASE!, 'validate'], base, envB), floor));
  say('sprint_edited', 'sprint after one story edit', triple(() => (editBoth(), wall(NODE, [CLI, 'sprint'], mine, envA)), () => wall(NODE, [BASE!, 'sprint'], base, envB), floor));
}

main();

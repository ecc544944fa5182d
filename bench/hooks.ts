// Agent hook benchmark: the whole-process time of `waymark hook claude-code` (node start, read
// the event, decide, answer) on a PreToolUse edit of a non-state file and of a state file in a
// workspace of 10,000 files, side by side with `node -e 0` (the floor: starting node at all).
// Prints `name value` lines in milliseconds, and the fast path's ratio to the floor: an edit that
// cannot touch state must stay within 1.3x of `node -e 0`. `--files N` changes the workspace size.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { arg, line, percentile, median } from './lib';

const ROUNDS = 25;
/** The fast path (an edit that cannot touch state) against `node -e 0`: issue 22's bound. */
const FAST_PATH_TARGET = 1.3;

function workflow(i: number): string {
  return `---\nworkflow: wf-${i}\nstatus: in_progress\nsteps: [a, b, c, d]\ncurrentStep: b\nstepsCompleted: [a]\n---\n# Workflow ${i}\n\n${'Body. '.repeat(100)}\n`;
}

function stats(xs: number[]): { median: number; p90: number } {
  return { median: median(xs), p90: percentile(xs, 90) };
}

/** Median of the round-by-round ratios a/b (rounds interleave the scenarios, so a busy machine's drift cancels). */
function ratio(a: number[], b: number[]): number {
  return median(a.map((x, i) => x / b[i]));
}

interface Scenario {
  name: string;
  args: string[];
  input: string;
  code: number;
  times: number[];
  /** CPU time (user + system) of the process, when /usr/bin/time can measure it: less sensitive to a busy machine. */
  cpu: number[];
}

const TIME = '/usr/bin/time';
const HAVE_TIME = fs.existsSync(TIME);

/** Runs the scenarios round-robin, so a busy machine slows each of them alike. */
function timeRounds(scenarios: Scenario[], cwd: string): void {
  for (let i = 0; i < ROUNDS + 2; i++) {
    for (const s of scenarios) {
      const cpuFile = path.join(os.tmpdir(), `waymark-bench-cpu-${process.pid}`);
      const [cmd, args] = HAVE_TIME ? [TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...s.args]] : [process.execPath, s.args];
      const t = process.hrtime.bigint();
      const r = spawnSync(cmd, args, { cwd, input: s.input, env: { ...process.env, CLAUDE_PROJECT_DIR: cwd } });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== s.code) throw new Error(`${s.name}: exited ${r.status}: ${r.stderr}`);
      if (i < 2) continue; // the first two rounds warm the file cache
      s.times.push(ms);
      if (HAVE_TIME) {
        const [u, sys] = fs.readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
        s.cpu.push((u + sys) * 1000);
      }
    }
  }
}

function main(): void {
  const files = arg('files', 10_000);
  const cli = path.resolve('dist/cli.js');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-hooks-')));
  try {
    fs.mkdirSync(path.join(root, '.git'));
    // One file in ten holds workflow state; the rest is ordinary source and notes.
    for (let i = 0; i < files; i++) {
      const dir = path.join(root, `pkg-${i % 100}`);
      if (i < 100) fs.mkdirSync(dir, { recursive: true });
      if (i % 10 === 0) fs.writeFileSync(path.join(dir, `wf-${i}.md`), workflow(i));
      else if (i % 2) fs.writeFileSync(path.join(dir, `note-${i}.md`), `# Note ${i}\n\nSome text.\n`);
      else fs.writeFileSync(path.join(dir, `mod-${i}.ts`), `export const v${i} = ${i};\n`);
    }
    const event = (file: string, oldString: string, newString: string) =>
      JSON.stringify({ session_id: 'bench', transcript_path: '/tmp/t.jsonl', cwd: root, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: path.join(root, file), old_string: oldString, new_string: newString }, tool_use_id: 'toolu_bench' });
    const hook = [cli, 'hook', 'claude-code'];
    const scenarios: Scenario[] = [
      { name: 'floor_node_e0', args: ['-e', '0'], input: '', code: 0, times: [], cpu: [] },
      { name: 'floor_node_read_stdin', args: ['-e', 'require("fs").readFileSync(0)'], input: event('pkg-2/mod-2.ts', 'v2 = 2', 'v2 = 3'), code: 0, times: [], cpu: [] },
      { name: 'pre_edit_non_state_ts', args: hook, input: event('pkg-2/mod-2.ts', 'v2 = 2', 'v2 = 3'), code: 0, times: [], cpu: [] },
      { name: 'pre_edit_non_state_md', args: hook, input: event('pkg-1/note-1.md', 'Some text.', 'Other text.'), code: 0, times: [], cpu: [] },
      { name: 'pre_edit_state_allowed', args: hook, input: event('pkg-0/wf-0.md', 'Body. Body.', 'Body, body.'), code: 0, times: [], cpu: [] },
      { name: 'pre_edit_state_refused', args: hook, input: event('pkg-0/wf-0.md', 'stepsCompleted: [a]', 'stepsCompleted: []'), code: 2, times: [], cpu: [] },
    ];
    timeRounds(scenarios, root);
    console.log(`hooks.files ${files}`);
    const med: Record<string, number> = {};
    for (const s of scenarios) {
      const st = stats(s.times);
      med[s.name] = st.median;
      line(`hooks.${s.name}_ms.median`, st.median);
      line(`hooks.${s.name}_ms.p90`, st.p90);
      if (s.cpu.length) line(`hooks.${s.name}_cpu_ms.median`, stats(s.cpu).median);
    }
    line('hooks.non_state_over_floor_ms', med.pre_edit_non_state_ts - med.floor_node_e0);
    line('hooks.state_over_floor_ms', med.pre_edit_state_allowed - med.floor_node_e0);
    const by = (name: string) => scenarios.find((s) => s.name === name)!;
    const floor = by('floor_node_e0');
    for (const name of ['pre_edit_non_state_ts', 'pre_edit_non_state_md']) {
      const wall = ratio(by(name).times, floor.times);
      const cpu = floor.cpu.length ? ratio(by(name).cpu, floor.cpu) : undefined;
      console.log(`hooks.${name}_over_node_e0 ${wall.toFixed(2)}  (wall, median of ${floor.times.length} paired rounds${cpu === undefined ? '' : `; cpu ${cpu.toFixed(2)}`}; target <= ${FAST_PATH_TARGET}: ${wall <= FAST_PATH_TARGET ? 'within' : 'OVER'})`);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main();

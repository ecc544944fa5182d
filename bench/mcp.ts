// MCP benchmark: the same operations through the MCP server (one long-lived core, over stdio,
// driven by the SDK's own Client) and through the CLI (a new process per call), side by side in
// one run, in a workspace of 10,000 workflow files. Floors and peers: a bare JSON-RPC ping over
// the same stdio pipe, the same advance on an in-process core, an empty Node process. Targets: one-file status < 3 ms, advance < 15 ms (p50, through MCP).
// Then status, next and advance in workspaces of 100 and 1,000 workflows (a git repository,
// dependencies between them), each beside the ping over the same pipe: status ≤ 0.5 ms and next
// ≤ 1 ms (p50), answered from the warm project view. With --peers, Task Master's MCP server
// (task-master-ai, installed on demand in ~/.cache/waymark-bench/peers: about 1.4 GB, so never a
// dependency) with 100 and 1,000 tasks through the same client: get_task, next_task, set_task_status.
// The sized runs split each figure: the ping (the SDK on both sides and the pipe), the handler alone
// (the same tool on an in-process session over the same files: Waymark's own share), the server's
// CPU per call (Linux), and what is left (the answer's bytes through the pipe and the client's parse).
// WAYMARK_BENCH_CLI names another build's cli.js, to compare two builds in the same minutes;
// WAYMARK_BENCH_SERVER_NODE_ARGS gives the sized runs' servers Node options (a CPU profile of the real
// server: `--cpu-prof --cpu-prof-dir=DIR`; NODE_OPTIONS refuses it).
// The sized runs' advances come after 2,000 warm-up advances on workflows of their own (server and
// in-process handler alike; WAYMARK_BENCH_WARM_ADVANCES): the steady state of a long-lived server;
// the server's CPU per warm-up advance is printed too (what a server's first advances cost).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createStateCore } from '../src/core/index';
import type { Logger } from '../src/core/index';
import { WorkspaceSession } from '../src/mcp/session';
import { runTool, TOOLS } from '../src/mcp/tools';
import { featureFile, timeRounds, line, percentile, median } from './lib';

const filesArg = process.argv.indexOf('--files');
const N = Number(filesArg > 0 ? process.argv[filesArg + 1] : process.env.WAYMARK_BENCH_FILES ?? 10_000);
const ROUNDS = 200;
const CLI_ROUNDS = 8;
const STEPS = Array.from({ length: ROUNDS + 20 }, (_, i) => `step-${String(i + 1).padStart(3, '0')}`);
const CLI = path.resolve(process.env.WAYMARK_BENCH_CLI ?? 'dist/cli.js');
const K = Math.min(317, N - 1);
/** Node options for the servers of the sized runs (WAYMARK_BENCH_SERVER_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=DIR`: NODE_OPTIONS refuses them). */
const SERVER_NODE_ARGS = (process.env.WAYMARK_BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
/**
 * Advances made before the measured ones in the sized runs (server and in-process handler), on
 * workflows of their own, so that the figures are the steady state a long-lived server reaches
 * once V8 has compiled the write path (WAYMARK_BENCH_WARM_ADVANCES, default 2,000). 400 (sessions
 * 27 to 37) were not enough: V8's optimising compiler was still busy through the measured advances
 * (`server_cpu_per_advance_other_threads_ms` 1.8–2.3 of a server CPU per advance of 3.7–4.9 ms, the
 * main thread running code not yet optimised: 1.9–2.4 ms); after 2,000 the server's CPU per advance
 * was 2.1–2.9 ms (other threads 0.5–1.1, main thread 1.3–2.1), n100, load 7–11, session 38.
 */
const WARM_ADVANCES = Math.max(0, Number(process.env.WAYMARK_BENCH_WARM_ADVANCES ?? 2000) || 0);
const WARM_TARGETS = Array.from({ length: Math.ceil(WARM_ADVANCES / STEPS.length) }, (_, i) => `warm-target-${i}`);
/** The file the one-file status reads. */
const ONE = `work/area-${Math.floor(K / 100)}/wf-${K}.workflow.md`;

const workflowFile = (i: number) => featureFile(i, 'MCP');

function generate(root: string): void {
  fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
  fs.mkdirSync(path.join(root, '.git'), { recursive: true });
  for (let d = 0; d < Math.ceil(N / 100); d++) {
    const dir = path.join(root, 'work', `area-${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let i = d * 100; i < Math.min(N, (d + 1) * 100); i++) fs.writeFileSync(path.join(dir, `wf-${i}.workflow.md`), workflowFile(i));
  }
  // The workflows the timed writes advance: many steps, so every round completes one.
  for (const name of ['mcp-target', 'cli-target', 'core-target']) {
    fs.writeFileSync(path.join(root, 'work', `${name}.workflow.md`), ['---', 'workflow: long-run', 'status: in_progress', `steps: [${STEPS.join(', ')}]`, `currentStep: ${STEPS[0]}`, 'stepsCompleted: []', '---', '', '# Long run', ''].join('\n'));
  }
}

function stats(ms: number[]): { median: number; p90: number } {
  return { median: median(ms), p90: percentile(ms, 90) };
}

function cli(root: string, args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`waymark ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main(): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-mcp-')));
  try {
    generate(root);
    console.log(`mcp.workspace_files ${N + 2}`);
    const started = process.hrtime.bigint();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], stderr: 'ignore', env: { ...process.env, WAYMARK_ACTOR: 'bench' } as Record<string, string> });
    const client = new Client({ name: 'waymark-bench', version: '1.0.0' });
    await client.connect(transport);
    const first = await client.callTool({ name: 'waymark_summary', arguments: { limit: 1 } });
    if (first.isError) throw new Error(JSON.stringify(first.content));
    line('mcp.start_and_first_summary_ms', Number(process.hrtime.bigint() - started) / 1e6, 0);
    try {
      const one = ONE;
      const status = stats(
        await timeRounds(ROUNDS, async () => {
          const r = await client.callTool({ name: 'waymark_status', arguments: { file: one } });
          if (r.isError) throw new Error(JSON.stringify(r.content));
        }),
      );
      line('mcp.status_one_file_p50_ms', status.median, 3);
      line('mcp.status_one_file_p90_ms', status.p90, 3);
      const floor = stats(await timeRounds(ROUNDS, () => client.ping()));
      line('mcp.floor_ping_p50_ms', floor.median, 3);

      let hash = ((await client.callTool({ name: 'waymark_status', arguments: { file: 'work/mcp-target.workflow.md' } })).structuredContent as { stateHash: string }).stateHash;
      const advance = stats(
        await timeRounds(ROUNDS, async () => {
          const r = await client.callTool({ name: 'waymark_advance', arguments: { file: 'work/mcp-target.workflow.md', expectHash: hash } });
          if (r.isError) throw new Error(JSON.stringify(r.content));
          hash = (r.structuredContent as { stateHash: string }).stateHash;
        }),
      );
      line('mcp.advance_p50_ms', advance.median, 3);
      line('mcp.advance_p90_ms', advance.p90, 3);

      const summary = stats(await timeRounds(20, () => client.callTool({ name: 'waymark_summary', arguments: {} })));
      line(`mcp.summary_${N}_files_p50_ms`, summary.median, 2);
    } finally {
      await client.close();
    }

    // The peer: the same advance on the core in this process (no protocol, no process): what is
    // left of the MCP figure is the server's own cost; the rest is the write (lock, fsync, history).
    const core = createStateCore({ roots: [root], actor: 'bench' });
    await core.scan();
    const target = path.join(root, 'work', 'core-target.workflow.md');
    const inProcess = stats(await timeRounds(ROUNDS / 4, () => core.advance(target)));
    line('core.advance_in_process_p50_ms', inProcess.median, 3);
    await core.close();

    // The same operations through the CLI: a new Node process per call, reloading the workspace.
    const cliStatus = stats(Array.from({ length: CLI_ROUNDS }, () => cli(root, ['status', ONE, '--json'])));
    line('cli.status_one_file_process_p50_ms', cliStatus.median, 1);
    const cliAdvance = stats(Array.from({ length: CLI_ROUNDS }, () => cli(root, ['advance', 'work/cli-target.workflow.md', '--json'])));
    line('cli.advance_process_p50_ms', cliAdvance.median, 1);
    const nodeFloor = stats(Array.from({ length: CLI_ROUNDS }, () => {
      const t0 = process.hrtime.bigint();
      spawnSync(process.execPath, ['-e', '0']);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    }));
    line('cli.floor_empty_node_process_p50_ms', nodeFloor.median, 1);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** WAYMARK_BENCH_SIZES=1000,100 measures in another order (each size gets a new server; this process, the client, warms up across them). */
const SIZES = (process.env.WAYMARK_BENCH_SIZES ?? '100,1000').split(',').map(Number);
const PEER_VERSION = '0.43.1';
const PEER_DIR = path.join(os.homedir(), '.cache', 'waymark-bench', 'peers');

/**
 * Task Master's MCP server, installed on first use into a cache folder outside the repository
 * (npm, the exact version); undefined when it cannot be (offline, no npm).
 */
function peerBin(): string | undefined {
  const bin = path.join(PEER_DIR, 'node_modules', 'task-master-ai', 'dist', 'mcp-server.js');
  const installed = () => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(PEER_DIR, 'node_modules', 'task-master-ai', 'package.json'), 'utf8')) as { version?: string }).version === PEER_VERSION && fs.existsSync(bin);
    } catch {
      return false;
    }
  };
  if (installed()) return bin;
  console.log(`# installing task-master-ai@${PEER_VERSION} into ${PEER_DIR} (once)`);
  fs.mkdirSync(PEER_DIR, { recursive: true });
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--silent', '--prefix', PEER_DIR, `task-master-ai@${PEER_VERSION}`], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  if (r.status !== 0) console.log(`# npm install task-master-ai@${PEER_VERSION} failed (exit ${r.status ?? r.signal})`);
  return installed() ? bin : undefined;
}

/** Task Master's tasks file with `n` tasks shaped like the workflows: every fifth pending, every fifth done, every third depends on the one before. */
function writeTasks(root: string, n: number): void {
  fs.mkdirSync(path.join(root, '.taskmaster', 'tasks'), { recursive: true });
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: i + 1, title: `Feature number ${i}`, description: 'Some body text that describes the work.', details: 'Some body text that describes the work in a few sentences. '.repeat(8), testStrategy: '',
    status: i % 5 === 0 ? 'pending' : i % 5 === 4 ? 'done' : 'in-progress', dependencies: i % 3 === 0 && i > 0 ? [i] : [], priority: 'medium', subtasks: [],
  }));
  const now = new Date().toISOString();
  fs.writeFileSync(path.join(root, '.taskmaster', 'tasks', 'tasks.json'), JSON.stringify({ master: { tasks, metadata: { created: now, updated: now, description: 'bench' } } }, null, 2));
  fs.writeFileSync(path.join(root, '.taskmaster', 'config.json'), JSON.stringify({ global: { logLevel: 'silent' } }));
}

/** A git repository of `n` workflows (every third depends on the one before) and the advance target. */
function generateSized(root: string, n: number): void {
  fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
  for (let d = 0; d < Math.ceil(n / 100); d++) {
    const dir = path.join(root, 'work', `area-${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let i = d * 100; i < Math.min(n, (d + 1) * 100); i++) {
      const dep = i % 3 === 0 && i > 0 ? [`dependsOn: [work/area-${Math.floor((i - 1) / 100)}/wf-${i - 1}.workflow.md]`] : [];
      fs.writeFileSync(path.join(dir, `wf-${i}.workflow.md`), featureFile(i, 'MCP', { beforeOwner: dep }));
    }
  }
  for (const name of ['mcp-target', ...WARM_TARGETS]) {
    fs.writeFileSync(path.join(root, 'work', `${name}.workflow.md`), ['---', 'workflow: long-run', 'status: in_progress', `steps: [${STEPS.join(', ')}]`, `currentStep: ${STEPS[0]}`, 'stepsCompleted: []', '---', '', '# Long run', ''].join('\n'));
  }
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@b' };
  for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-qm', 'bench']]) spawnSync('git', args, { cwd: root, env });
}

async function connect(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Client & { pid?: number | null }> {
  const transport = new StdioClientTransport({ command, args, cwd, stderr: 'ignore', env: { ...process.env, ...env } as Record<string, string> });
  const client = new Client({ name: 'waymark-bench', version: '1.0.0' });
  await client.connect(transport);
  return Object.assign(client, { pid: transport.pid });
}

/** CPU time (user + system, ms) a process has used so far; NaN where /proc is not there. */
function cpuOf(pid: number | null | undefined): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
/** CPU time (ms) of each live thread of process `pid` (Linux: /proc/PID/task), by thread id; empty elsewhere. */
function threadCpu(pid: number | null | undefined): Map<string, { name: string; user: number; sys: number }> {
  const out = new Map<string, { name: string; user: number; sys: number }>();
  try {
    for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const s = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
        const f = s.slice(s.lastIndexOf(') ') + 2).split(' ');
        out.set(t, { name: s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')), user: (Number(f[11]) * 1000) / CLOCK_TICKS, sys: (Number(f[12]) * 1000) / CLOCK_TICKS });
      } catch {
        // The thread ended meanwhile.
      }
    }
  } catch {
    // No /proc.
  }
  return out;
}

/**
 * The split of a server's CPU over its threads between two `threadCpu` readings, per call: the
 * main thread, the others that lived through both readings (libuv's pool, V8's helpers) together,
 * those started meanwhile, and those that ended meanwhile (what the process's `total` per call has beyond the live ones).
 */
function printThreads(prefix: string, before: ReturnType<typeof threadCpu>, after: ReturnType<typeof threadCpu>, pid: number | null | undefined, calls: number, total: number): void {
  if (!before.size || !after.size) return;
  let main = 0;
  let others = 0;
  let born = 0;
  for (const [t, a] of after) {
    const b = before.get(t);
    const used = a.user + a.sys - (b ? b.user + b.sys : 0);
    if (t === String(pid)) main += used;
    else if (b) others += used;
    else born += used;
  }
  line(`${prefix}_main_thread_ms`, main / calls, 3);
  line(`${prefix}_other_threads_ms`, others / calls, 3);
  line(`${prefix}_threads_started_meanwhile_ms`, born / calls, 3);
  line(`${prefix}_threads_ended_meanwhile_ms`, total - (main + others + born) / calls, 3);
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** Timed rounds of `fn`, the CPU time (ms) process `pid` spent per round meanwhile, and this process's (the client's). */
async function withCpu(pid: number | null | undefined, rounds: number, fn: () => Promise<unknown>): Promise<{ median: number; p90: number; cpu: number; clientCpu: number }> {
  const before = cpuOf(pid);
  const mine = process.cpuUsage();
  const s = stats(await timeRounds(rounds, fn));
  const used = process.cpuUsage(mine);
  return { ...s, cpu: (cpuOf(pid) - before) / rounds, clientCpu: (used.user + used.system) / 1000 / rounds };
}

/** The tools' handlers alone on an in-process session over the same files (no protocol, no pipe). */
async function handlers(root: string, one: string): Promise<{ status: number; next: number }> {
  const quiet = (): undefined => undefined;
  const logger: Logger = { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };
  const session = new WorkspaceSession({ root, actor: 'bench', session: 'bench-handlers', logger });
  try {
    const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
    const run = async (name: string, args: Record<string, unknown>) => {
      const a = await runTool(tool(name), args, session);
      if (a.isError) throw new Error(`${name}: ${a.text}`);
    };
    await run('waymark_next', {});
    await timeRounds(ROUNDS / 4, () => run('waymark_status', { file: one }));
    const status = stats(await timeRounds(ROUNDS, () => run('waymark_status', { file: one })));
    const next = stats(await timeRounds(ROUNDS, () => run('waymark_next', {})));
    return { status: status.median, next: next.median };
  } finally {
    await session.dispose();
  }
}

/**
 * waymark_advance's handler alone on an in-process session (no protocol, no pipe) over a copy of
 * the workspace (the server does not see its writes): `advance()` times one call.
 */
async function handlerAdvancer(root: string, file: string): Promise<{ advance(): Promise<number>; dispose(): Promise<void> }> {
  const quiet = (): undefined => undefined;
  const logger: Logger = { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };
  const session = new WorkspaceSession({ root, actor: 'bench', session: 'bench-handlers', logger });
  const tool = TOOLS.find((t) => t.name === 'waymark_advance')!;
  let hash = (await session.state(path.join(root, file))).stateHash;
  return {
    async advance() {
      const t0 = process.hrtime.bigint();
      const a = await runTool(tool, { file, expectHash: hash }, session);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (a.isError) throw new Error(`waymark_advance: ${a.text}`);
      hash = (a.structured as { stateHash: string }).stateHash;
      return ms;
    },
    dispose: () => session.dispose(),
  };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 500)}`);
  return (r.structuredContent ?? {}) as Record<string, unknown>;
}

/** status, next and advance at `n` workflows, each beside the ping of the same pipe. */
async function sized(n: number): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `waymark-bench-mcp-${n}-`)));
  const copy = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `waymark-bench-mcp-${n}-copy-`)));
  try {
    generateSized(root, n);
    fs.cpSync(root, copy, { recursive: true });
    const client = await connect(process.execPath, [...SERVER_NODE_ARGS, CLI, 'mcp', '--root', root], root, { WAYMARK_ACTOR: 'bench' });
    let advanceP50 = NaN;
    let handlerP50 = NaN;
    try {
      await call(client, 'waymark_next', {});
      const one = `work/area-0/wf-${Math.min(n - 1, 17)}.workflow.md`;
      const ping = await withCpu(client.pid, ROUNDS, () => client.ping());
      await timeRounds(ROUNDS / 4, () => call(client, 'waymark_status', { file: one })); // warm-up: the first calls meet the server's start-up work
      const status = await withCpu(client.pid, ROUNDS, () => call(client, 'waymark_status', { file: one }));
      await timeRounds(ROUNDS / 4, () => call(client, 'waymark_next', {})); // its warm-up too: the CPU per call is a mean
      const next = await withCpu(client.pid, ROUNDS, () => call(client, 'waymark_next', {}));
      const ping2 = await withCpu(client.pid, ROUNDS, () => client.ping());
      const own = await handlers(root, one);
      const floor = Math.min(ping.median, ping2.median);
      line(`mcp.n${n}.floor_ping_p50_ms`, floor, 3);
      line(`mcp.n${n}.status_p50_ms`, status.median, 3);
      line(`mcp.n${n}.next_p50_ms`, next.median, 3);
      line(`mcp.n${n}.next_p90_ms`, next.p90, 3);
      // The split: handler alone, and what is left above the ping (bytes through the pipe, both SDKs' work on the answer).
      line(`mcp.n${n}.handler_status_p50_ms`, own.status, 3);
      line(`mcp.n${n}.handler_next_p50_ms`, own.next, 3);
      line(`mcp.n${n}.status_rest_above_ping_ms`, status.median - floor - own.status, 3);
      line(`mcp.n${n}.next_rest_above_ping_ms`, next.median - floor - own.next, 3);
      if (Number.isFinite(ping.cpu)) {
        line(`mcp.n${n}.server_cpu_per_ping_ms`, Math.min(ping.cpu, ping2.cpu), 3);
        line(`mcp.n${n}.server_cpu_per_status_ms`, status.cpu, 3);
        line(`mcp.n${n}.server_cpu_per_next_ms`, next.cpu, 3);
      }
      // The client's side (this process: the SDK's Client parsing and checking each answer): colder in the first size measured.
      line(`mcp.n${n}.client_cpu_per_ping_ms`, Math.min(ping.clientCpu, ping2.clientCpu), 3);
      line(`mcp.n${n}.client_cpu_per_status_ms`, status.clientCpu, 3);
      line(`mcp.n${n}.client_cpu_per_next_ms`, next.clientCpu, 3);
      // Warm-up advances on workflows of their own: V8 compiles the write path here, not in the measured calls.
      const warmCpu = cpuOf(client.pid);
      for (const [k, name] of WARM_TARGETS.entries()) {
        const file = `work/${name}.workflow.md`;
        let h = (await call(client, 'waymark_status', { file })).stateHash as string;
        for (let i = 0; i < Math.min(STEPS.length, WARM_ADVANCES - k * STEPS.length); i++) h = (await call(client, 'waymark_advance', { file, expectHash: h })).stateHash as string;
      }
      line(`mcp.n${n}.advance_warmup_calls`, WARM_ADVANCES, 0);
      // What a new server's first advances cost (V8 compiling the write path meanwhile).
      if (WARM_ADVANCES && Number.isFinite(warmCpu)) line(`mcp.n${n}.server_cpu_per_warmup_advance_ms`, (cpuOf(client.pid) - warmCpu) / WARM_ADVANCES, 3);
      let hash = (await call(client, 'waymark_status', { file: 'work/mcp-target.workflow.md' })).stateHash as string;
      // The server's CPU per advance includes its memory consolidation, done after the answers in batches.
      const threadsBefore = threadCpu(client.pid);
      const advance = await withCpu(client.pid, ROUNDS / 2, async () => {
        hash = (await call(client, 'waymark_advance', { file: 'work/mcp-target.workflow.md', expectHash: hash })).stateHash as string;
      });
      const threadsAfter = threadCpu(client.pid);
      // The split of an advance: the same tool's handler in this process on a copy of the workspace
      // (the write, the model, the answer's object), timed after the calls through the pipe so that
      // neither pays for the other's disk work; what is left above the ping and the handler is the
      // answer's bytes through the pipe and both SDKs' work on them.
      for (const [k, name] of WARM_TARGETS.entries()) {
        const warm = await handlerAdvancer(copy, `work/${name}.workflow.md`);
        for (let i = 0; i < Math.min(STEPS.length, WARM_ADVANCES - k * STEPS.length); i++) await warm.advance();
        await warm.dispose();
      }
      const inProcess = await handlerAdvancer(copy, 'work/mcp-target.workflow.md');
      const handlerMs: number[] = [];
      for (let i = 0; i < ROUNDS / 2; i++) handlerMs.push(await inProcess.advance());
      await inProcess.dispose();
      handlerP50 = median(handlerMs);
      // After writes: the view recomputes what the write changed, once.
      const nextAfterWrite = stats(await timeRounds(ROUNDS / 4, async () => {
        hash = (await call(client, 'waymark_advance', { file: 'work/mcp-target.workflow.md', expectHash: hash })).stateHash as string;
      }).then(() => timeRounds(ROUNDS, () => call(client, 'waymark_next', {}))));
      line(`mcp.n${n}.next_after_writes_p50_ms`, nextAfterWrite.median, 3);
      line(`mcp.n${n}.advance_p50_ms`, advance.median, 3);
      line(`mcp.n${n}.handler_advance_p50_ms`, handlerP50, 3);
      line(`mcp.n${n}.advance_rest_above_ping_ms`, advance.median - floor - handlerP50, 3);
      if (Number.isFinite(advance.cpu)) {
        line(`mcp.n${n}.server_cpu_per_advance_ms`, advance.cpu, 3);
        printThreads(`mcp.n${n}.server_cpu_per_advance`, threadsBefore, threadsAfter, client.pid, ROUNDS / 2, advance.cpu);
      }
      advanceP50 = advance.median;
    } finally {
      await client.close();
    }
    // The floor of a durable write: the file written to a temp file, fsynced, renamed over, the folder fsynced.
    const target = path.join(root, 'work', 'floor.workflow.md');
    const text = fs.readFileSync(path.join(root, 'work', 'mcp-target.workflow.md'));
    const floor = stats(await timeRounds(ROUNDS / 2, () => {
      const tmp = `${target}.tmp`;
      const fd = fs.openSync(tmp, 'w');
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.renameSync(tmp, target);
      const dfd = fs.openSync(path.dirname(target), 'r');
      fs.fsyncSync(dfd);
      fs.closeSync(dfd);
    }));
    line(`mcp.n${n}.floor_atomic_fsync_write_p50_ms`, floor.median, 3);
    line(`mcp.n${n}.advance_vs_floor`, advanceP50 / floor.median, 2);
    line(`mcp.n${n}.handler_advance_vs_floor`, handlerP50 / floor.median, 2);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** Task Master's MCP server at `n` tasks: get_task, next_task, set_task_status, beside its ping. */
async function peer(bin: string, n: number): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `waymark-bench-peer-${n}-`)));
  try {
    writeTasks(root, n);
    const client = await connect(process.execPath, [bin], root, { TASK_MASTER_TOOLS: 'core' });
    try {
      await call(client, 'next_task', { projectRoot: root });
      const ping = stats(await timeRounds(ROUNDS, () => client.ping()));
      const get = stats(await timeRounds(ROUNDS, () => call(client, 'get_task', { id: '18', projectRoot: root })));
      const next = stats(await timeRounds(ROUNDS, () => call(client, 'next_task', { projectRoot: root })));
      const set = stats(await timeRounds(ROUNDS / 2, (i) => call(client, 'set_task_status', { id: '19', status: i % 2 ? 'in-progress' : 'review', projectRoot: root })));
      line(`peer.taskmaster.n${n}.floor_ping_p50_ms`, ping.median, 3);
      line(`peer.taskmaster.n${n}.get_task_p50_ms`, get.median, 3);
      line(`peer.taskmaster.n${n}.next_task_p50_ms`, next.median, 3);
      line(`peer.taskmaster.n${n}.set_task_status_p50_ms`, set.median, 3);
    } finally {
      await client.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The client's warm-up: this process's SDK Client parses and checks every answer, and its code is
 * still being optimised through the first thousands of calls. Measured without this, the first size
 * run paid for it (the client's CPU per status 0.47–0.60 ms in the first size, 0.24–0.33 ms in
 * the later ones, whichever size came first; the server's showed no such pattern). 300 rounds
 * (session 18 to 25) were not enough: the first size's status still cost the client 0.42–0.48 ms
 * of CPU a call (0.18–0.24 ms in the size after it, and in a second run of the same size), with
 * V8's compiler threads busy beside it (session 26); 1,500 rounds bring the first size to the later
 * sizes' figure. A throwaway server over a few workflows answers these calls; each size then gets
 * a new server, started cold as before. WAYMARK_BENCH_CLIENT_WARM_ROUNDS changes the rounds (a
 * ping, a status and a next each); WAYMARK_BENCH_COLD_CLIENT=1 leaves the warm-up out.
 */
const CLIENT_WARM_ROUNDS = Math.max(0, Number(process.env.WAYMARK_BENCH_CLIENT_WARM_ROUNDS ?? 1500) || 0);

async function warmClient(): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-mcp-client-')));
  try {
    generateSized(root, 10);
    const client = await connect(process.execPath, [CLI, 'mcp', '--root', root], root, { WAYMARK_ACTOR: 'bench' });
    try {
      for (let i = 0; i < CLIENT_WARM_ROUNDS; i++) {
        await client.ping();
        await call(client, 'waymark_status', { file: 'work/area-0/wf-7.workflow.md' });
        await call(client, 'waymark_next', {});
      }
    } finally {
      await client.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function all(): Promise<void> {
  if (!process.argv.includes('--sized-only')) await main();
  console.log(`machine.load_average_1m ${os.loadavg()[0].toFixed(2)}`);
  if (process.env.WAYMARK_BENCH_COLD_CLIENT !== '1') {
    await warmClient();
    line('mcp.client_warmup_rounds', CLIENT_WARM_ROUNDS, 0);
  }
  else console.log('# the client is not warmed first (WAYMARK_BENCH_COLD_CLIENT=1): the first size pays for its warm-up');
  for (const n of SIZES) await sized(n);
  if (process.argv.includes('--peers')) {
    const bin = peerBin();
    if (!bin) console.log(`# peer Task Master (task-master-ai ${PEER_VERSION}) absent: it could not be installed (see above); its figures are left out`);
    else for (const n of SIZES) await peer(bin, n);
  } else console.log('# peer Task Master left out: npm run bench -- --peers installs it on demand (outside the repository) and measures it');
  console.log(`machine.load_average_1m ${os.loadavg()[0].toFixed(2)}`);
}

all().catch((e) => {
  console.error(e);
  process.exit(1);
});

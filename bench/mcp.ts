// MCP benchmark: the same operations through the MCP server (one long-lived core, over stdio,
// driven by the SDK's own Client) and through the CLI (a new process per call), side by side in
// one run, in a workspace of 10,000 workflow files. Floors and peers: a bare JSON-RPC ping over
// the same stdio pipe, the same advance on an in-process core, an empty Node process. Targets: one-file status < 3 ms, advance < 15 ms (p50, through MCP).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createStateCore } from '../src/core/index';
import { featureFile, timeRounds, line, percentile, median } from './lib';

const filesArg = process.argv.indexOf('--files');
const N = Number(filesArg > 0 ? process.argv[filesArg + 1] : process.env.WAYMARK_BENCH_FILES ?? 10_000);
const ROUNDS = 200;
const CLI_ROUNDS = 8;
const STEPS = Array.from({ length: ROUNDS + 20 }, (_, i) => `step-${String(i + 1).padStart(3, '0')}`);
const CLI = path.resolve('dist/cli.js');
const K = Math.min(317, N - 1);
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

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

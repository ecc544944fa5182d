// A fixed driver of waymark_advance on an in-process WorkspaceSession (the MCP server's handler and
// its real core, memory consolidated after the answer as the server does): --warm N advances (300)
// on workflows of their own, then --ops N (300) measured ones, 200 a workflow of 220 steps, beside
// --files N (100) generated workflows; prints wall and CPU (user+sys, every thread) per advance.
// Made for load-proof comparisons of two builds: valgrind --tool=callgrind instruction counts of
// two runs differing only in --ops (their difference over the extra advances is the steady state),
// strace -f -c system call counts, --cpu-prof. WAYMARK_DRIVER_TMP: where the workspace is made.
// --cold-kb N: memory's cold file starts N KB long. --memories N: N decisions recorded first (about
// other workflows: memory in use, so the Kuzu graph is opened and held, as in a project that
// records); --observations: one tier-2 observation recorded for every step of every advanced
// workflow first, so that each advance folds one into a summary (consolidation's whole path).
// --profile FILE: a CPU profile (.cpuprofile) of the measured advances alone (not the setup).
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../src/core/index';
import { WorkspaceSession } from '../src/mcp/session';
import { runTool, TOOLS } from '../src/mcp/tools';
import { arg, coldFile, featureFile, line } from './lib';

const N = arg('files', 100);
const WARM = arg('warm', 300);
const OPS = arg('ops', 300);
const STEPS = Array.from({ length: 220 }, (_, i) => `step-${String(i + 1).padStart(3, '0')}`);

function longRun(file: string): void {
  fs.writeFileSync(file, ['---', 'workflow: long-run', 'status: in_progress', `steps: [${STEPS.join(', ')}]`, `currentStep: ${STEPS[0]}`, 'stepsCompleted: []', '---', '', '# Long run', ''].join('\n'));
}

async function main(): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(process.env.WAYMARK_DRIVER_TMP ?? os.tmpdir(), 'waymark-advance-driver-')));
  try {
    fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
    for (let d = 0; d < Math.ceil(N / 100); d++) {
      const dir = path.join(root, 'work', `area-${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let i = d * 100; i < Math.min(N, (d + 1) * 100); i++) fs.writeFileSync(path.join(dir, `wf-${i}.workflow.md`), featureFile(i, 'MCP'));
    }
    const targets = Array.from({ length: Math.ceil(WARM / 200) }, (_, i) => `work/warm-${i}.workflow.md`);
    const measured = Array.from({ length: Math.ceil(OPS / 200) }, (_, i) => `work/target-${i}.workflow.md`);
    for (const t of [...targets, ...measured]) longRun(path.join(root, t));
    const quiet = (): undefined => undefined;
    const logger: Logger = { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };
    coldFile(root, arg('cold-kb', 0));
    const session = new WorkspaceSession({ root, actor: 'bench', session: 'bench-driver', logger });
    await session.start();
    const memory = session.memory(root);
    for (let i = 0; i < arg('memories', 0); i++) await memory.record({ type: 'decision', text: `Decision ${i} about area ${i % 10}`, rationale: 'bench', workflow: `work/area-0/wf-${i % Math.max(1, N)}.workflow.md` }, { ingest: false });
    if (process.argv.includes('--observations')) {
      for (const t of [...targets, ...measured]) for (const step of STEPS) await memory.record({ type: 'learning', category: 'observation', text: `Seen in ${step}`, workflow: t, step }, { ingest: false });
    }
    if (arg('memories', 0) || process.argv.includes('--observations')) await memory.flush();
    const tool = TOOLS.find((t) => t.name === 'waymark_advance')!;
    const run = async (file: string, n: number) => {
      let hash = (await session.state(path.join(root, file))).stateHash;
      for (let i = 0; i < n; i++) {
        const a = await runTool(tool, { file, expectHash: hash }, session);
        if (a.isError) throw new Error(`waymark_advance: ${a.text}`);
        hash = (a.structured as { stateHash: string }).stateHash;
      }
    };
    for (const [k, t] of targets.entries()) await run(t, Math.min(200, WARM - k * 200));
    const profile = process.argv.indexOf('--profile') > 0 ? process.argv[process.argv.indexOf('--profile') + 1] : undefined;
    const profiler = profile ? new inspector.Session() : undefined;
    const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => profiler!.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
    if (profiler) {
      profiler.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 100 });
      await post('Profiler.start');
    }
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (const [k, t] of measured.entries()) await run(t, Math.min(200, OPS - k * 200));
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    line('advance_driver.wall_per_advance_ms', wall / OPS, 3);
    line('advance_driver.cpu_per_advance_ms', (c.user + c.system) / 1000 / OPS, 3);
    line('advance_driver.user_cpu_per_advance_ms', c.user / 1000 / OPS, 3);
    if (profiler) {
      // The measured advances' consolidation is done before the profile ends.
      await session.core.memory.settled();
      const { profile: p } = (await post('Profiler.stop')) as { profile: object };
      fs.writeFileSync(profile!, JSON.stringify(p));
      profiler.disconnect();
    }
    await session.dispose();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});

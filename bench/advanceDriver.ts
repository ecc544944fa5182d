// A fixed driver of waymark_advance on an in-process WorkspaceSession (the MCP server's handler and
// its real core, memory consolidated after the answer as the server does): --warm N advances (300)
// on workflows of their own, then --ops N (300) measured ones, 200 a workflow of 220 steps, beside
// --files N (100) generated workflows; prints wall and CPU (user+sys, every thread) per advance.
// Made for load-proof comparisons of two builds: valgrind --tool=callgrind instruction counts of
// two runs differing only in --ops (their difference over the extra advances is the steady state),
// strace -f -c system call counts, --cpu-prof. WAYMARK_DRIVER_TMP: where the workspace is made.
// --cold-kb N: memory's cold file starts N KB long.
import * as fs from 'node:fs';
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
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (const [k, t] of measured.entries()) await run(t, Math.min(200, OPS - k * 200));
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    line('advance_driver.wall_per_advance_ms', wall / OPS, 3);
    line('advance_driver.cpu_per_advance_ms', (c.user + c.system) / 1000 / OPS, 3);
    line('advance_driver.user_cpu_per_advance_ms', c.user / 1000 / OPS, 3);
    await session.dispose();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// A fixed driver of durable writes through the state core in process (what `bench/mutate.ts` times):
// --warm N scope writes (1500) then --ops N (1000) measured ones, over --files N (50) generated
// workflows that already have histories; with --advance, `core.advance` of 220-step workflows
// instead (memory consolidated before the answer, as the CLI does); with --advance --small, each
// advance on a fresh file of bench/mutate.ts's shape (a 5-step block list, its first advance), as
// mutate.ts's measured advances are (--files is then warm + ops); --cold-kb N starts memory's cold
// file N KB long (its lines are added at its end: the work of a line may grow with it). Prints CPU (user+sys, every
// thread) and wall per write. Made for load-proof comparisons of two builds: valgrind
// --tool=callgrind instruction counts of two runs differing only in --ops (their difference over
// the extra writes is the steady state), strace -f -c, --cpu-prof.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore, type Scope } from '../src/core/index';
import { arg, coldFile, featureFile, line } from './lib';

const WARM = arg('warm', 1500);
const OPS = arg('ops', 1000);
const ADVANCE = process.argv.includes('--advance');
const SMALL = ADVANCE && process.argv.includes('--small');
const N = process.argv.includes('--small') ? WARM + OPS : arg('files', 50);
const STEPS = Array.from({ length: 220 }, (_, i) => `step-${String(i + 1).padStart(3, '0')}`);

/** bench/mutate.ts's generated workflow: five steps in block lists, the first done. */
function smallFile(i: number): string {
  return ['---', `# generated workflow ${i}`, `workflow: bench-${i % 50}`, 'status: in_progress', 'steps:', '  - discover', '  - design', '  - build', '  - review', '  - ship', 'stepsCompleted:', '  - discover', 'currentStep: design', 'scope: small', `owner: "agent-${i % 7}"`, 'tags: [bench, generated]', 'ttl: 30d', `session: s-${i}`, "title: 'A generated workflow'", 'notes: keep this line', '---', '', `# Workflow ${i}`, '', 'Body text. '.repeat(40), ''].join('\n');
}

async function main(): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(process.env.WAYMARK_DRIVER_TMP ?? os.tmpdir(), 'waymark-write-driver-')));
  try {
    fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
    fs.mkdirSync(path.join(root, 'work'), { recursive: true });
    const files: string[] = [];
    for (let i = 0; i < N; i++) {
      const f = path.join(root, 'work', `wf-${i}.workflow.md`);
      fs.writeFileSync(f, SMALL ? smallFile(i) : ADVANCE ? ['---', 'workflow: long-run', 'status: in_progress', `steps: [${STEPS.join(', ')}]`, `currentStep: ${STEPS[0]}`, 'stepsCompleted: []', '---', '', `# Long run ${i}`, ''].join('\n') : featureFile(i, 'write'));
      files.push(f);
    }
    coldFile(root, arg('cold-kb', 0));
    const core = createStateCore({ roots: [root], actor: 'bench' });
    const scopes: Scope[] = ['micro', 'small', 'medium', 'large', 'epic'];
    const write = async (k: number) => {
      const f = files[k % files.length];
      if (ADVANCE) await core.advance(f);
      else await core.setScope(f, scopes[(k + Math.floor(k / files.length)) % scopes.length]);
    };
    let k = 0;
    for (; k < WARM; k++) await write(k);
    if (process.env.WAYMARK_DRIVER_MARK) console.log('# measured writes start');
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < OPS; i++, k++) await write(k);
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    line('write_driver.wall_per_write_ms', wall / OPS, 3);
    line('write_driver.cpu_per_write_ms', (c.user + c.system) / 1000 / OPS, 3);
    line('write_driver.user_cpu_per_write_ms', c.user / 1000 / OPS, 3);
    core.dispose();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

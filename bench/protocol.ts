// Protocol benchmark: resume latency per tier, lease acquire/release, events throughput,
// checkpoint creation. Prints `name value` lines (milliseconds unless the name says otherwise).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resume, resumeRoot } from '../src/core/protocol/resume';
import { createCheckpoint } from '../src/core/protocol/checkpoints';
import { recordOrchestratorWorkflow, writeSessionState } from '../src/core/protocol/orchestrator';
import { acquireLease, releaseLease } from '../src/core/protocol/leases';
import { appendEvent, readEvents } from '../src/core/protocol/events';
import { protocolPaths } from '../src/core/protocol/paths';
import { line, timeRounds, percentile, median } from './lib';

const WORKFLOWS = 50;
const ROUNDS = 200;

function wf(i: number): string {
  const steps = Array.from({ length: 12 }, (_, k) => `step-${String(k + 1).padStart(2, '0')}`);
  const done = steps.slice(0, i % 12);
  return [
    '---',
    `workflow: wf-${i}`,
    'status: in_progress',
    `steps: [${steps.join(', ')}]`,
    `currentStep: ${steps[i % 12]}`,
    `stepsCompleted: [${done.join(', ')}]`,
    'scope: medium',
    `updatedAt: "${new Date(Date.now() - 60_000).toISOString()}"`,
    '---',
    `# Workflow ${i}`,
    '',
    'Body. '.repeat(200),
    '',
  ].join('\n');
}

function stats(xs: number[]): { median: number; p99: number } {
  return { median: median(xs), p99: percentile(xs, 99) };
}

async function main(): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-protocol-')));
  try {
    fs.mkdirSync(path.join(root, '.waymark'));
    for (let i = 0; i < WORKFLOWS; i++) fs.writeFileSync(path.join(root, `wf-${i}.md`), wf(i));
    // 20 checkpoints; the newest holds every file.
    const base = Date.now() - 3_600_000;
    for (let c = 0; c < 20; c++) await createCheckpoint(root, { clock: { now: () => new Date(base + c * 1000) } });
    for (let i = 0; i < WORKFLOWS; i++) await recordOrchestratorWorkflow(root, `wf-${i}.md`, { nextStep: `step-${String((i % 12) + 1).padStart(2, '0')}`, updatedAt: new Date(base).toISOString() }, { type: 'bench', phase: 'executing', ttl: '1d' });
    await writeSessionState(root, { session: 'bench', activeWorkflow: 'wf-1.md', currentStep: 'step-02', lastUpdated: new Date(base).toISOString() });

    const target = path.join(root, 'wf-5.md');
    await resume(root, target); // warm: config, definitions
    const t1 = await timeRounds(ROUNDS, () => resume(root, target));
    const r1 = await resume(root, target);
    if (r1.tier !== 1) throw new Error(`expected tier 1, got ${r1.tier}`);
    const s1 = stats(t1);
    line('protocol.resume_tier1_ms', s1.median);
    line('protocol.resume_tier1_p99_ms', s1.p99);

    // Tier 2: the frontmatter is unreadable; the newest of 20 checkpoints answers.
    fs.writeFileSync(target, '---\nworkflow: wf-5\nstepsCompleted: [step-01\n---\nbody\n');
    const t2 = await timeRounds(ROUNDS, () => resume(root, target));
    const r2 = await resume(root, target);
    if (r2.tier !== 2) throw new Error(`expected tier 2, got ${r2.tier}`);
    const s2 = stats(t2);
    line('protocol.resume_tier2_ms', s2.median);
    line('protocol.resume_tier2_p99_ms', s2.p99);

    // Tier 3: no checkpoint holds it either; the orchestrator state (50 workflows) answers.
    fs.rmSync(protocolPaths(root).checkpoints, { recursive: true });
    const t3 = await timeRounds(ROUNDS, () => resume(root, target));
    const r3 = await resume(root, target);
    if (r3.tier !== 3) throw new Error(`expected tier 3, got ${r3.tier}`);
    const s3 = stats(t3);
    line('protocol.resume_tier3_ms', s3.median);
    line('protocol.resume_tier3_p99_ms', s3.p99);

    // The multi-workflow view: every workflow of the root.
    const tr = stats(await timeRounds(20, () => resumeRoot(root, { expire: false })));
    line(`protocol.resume_root_${WORKFLOWS}_workflows_ms`, tr.median);

    const tc = stats(await timeRounds(20, () => createCheckpoint(root, { events: false })));
    line(`protocol.checkpoint_create_${WORKFLOWS}_workflows_ms`, tc.median);

    const owner = { agent: 'bench', session: 'b', pid: process.pid, host: os.hostname() };
    const tl = stats(
      await timeRounds(ROUNDS, async (i) => {
        const f = path.join(root, `wf-${i % WORKFLOWS}.md`);
        await acquireLease(root, f, owner, { events: false });
        await releaseLease(root, f, owner, { events: false });
      }),
    );
    line('protocol.lease_acquire_release_ms', tl.median);
    line('protocol.lease_acquire_release_p99_ms', tl.p99);

    const N = 5000;
    const payload = { file: 'wf-1.md', historySeq: 1, hashBefore: 'a'.repeat(64), hashAfter: 'b'.repeat(64) };
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) appendEvent(root, { type: 'workflow.advance', actor: 'bench', data: payload }, { maxBytes: 256 * 1024 });
    const appendMs = Number(process.hrtime.bigint() - t0) / 1e6;
    line('protocol.events_append_per_s', (N / appendMs) * 1000, 0);
    const t4 = process.hrtime.bigint();
    const all = readEvents(root, 0);
    const readMs = Number(process.hrtime.bigint() - t4) / 1e6;
    if (all.events.length < N) throw new Error(`read ${all.events.length} events, expected at least ${N}`);
    line('protocol.events_read_per_s', (all.events.length / readMs) * 1000, 0);
    const segs = fs.readdirSync(protocolPaths(root).events).filter((n) => n.startsWith('events-')).length;
    line('protocol.events_segments', segs, 0);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

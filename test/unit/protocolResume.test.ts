import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore } from '../../src/core/index';
import { leaseGuard, acquireLease, listLeases } from '../../src/core/protocol/leases';
import { eventsObserver, readEvents } from '../../src/core/protocol/events';
import { createCheckpoint, listCheckpoints, restoreCheckpoint, showCheckpoint } from '../../src/core/protocol/checkpoints';
import { recordOrchestratorWorkflow, writeSessionState, expireOrchestratorIfDue, readOrchestrator, parseTtl } from '../../src/core/protocol/orchestrator';
import { resume, resumeRoot, sync } from '../../src/core/protocol/resume';
import { historyOf, buildTimeline, stateAt, parseAt, recordInHistory, formatTimeline } from '../../src/core/protocol/timeline';
import { protocolPaths } from '../../src/core/protocol/paths';
import { WaymarkError } from '../../src/core/errors';
import { tempRoot, cleanup, spawnWorker, waitWorker, workerArgs } from './protocolHelpers';

const WF = `---
# a comment that must survive
workflow: build
title: "Keep 'me' quoted"
status: in_progress
steps: [design, implement, test, ship]
currentStep: design
stepsCompleted: []
---
# Build

Body text that a restore must never touch.
`;

function seed(root: string, name = 'wf.md', text = WF): string {
  const file = path.join(root, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const job = process.env.WAYMARK_PROTOCOL_WORKER;

if (job === 'agent') {
  // An agent: takes a lease, finishes `design`, records a checkpoint and the orchestrator
  // state, starts `implement`, then hangs mid-step until it is killed.
  const a = workerArgs<{ root: string; file: string }>();
  (async () => {
    const owner = { agent: 'agent-1', session: 'sess-1', pid: process.pid, host: os.hostname() };
    await acquireLease(a.root, a.file, owner, { onRecord: (root, file, op, o, detail) => (file ? recordInHistory(root, file, op, o, detail).then(() => undefined) : undefined) });
    const core = createStateCore({ roots: [a.root], actor: 'agent-1', session: 'sess-1' });
    await core.scan();
    const r = await core.advance(a.file);
    await createCheckpoint(a.root, { message: 'after design', actor: 'agent-1', session: 'sess-1' });
    await recordOrchestratorWorkflow(a.root, 'wf.md', { currentStep: r.after.currentStep, nextStep: r.after.nextStep, stepsCompleted: r.after.stepsCompleted, status: r.after.status }, { type: 'greenfield', phase: 'executing', session: 'sess-1', ttl: '2h' });
    await writeSessionState(a.root, { session: 'sess-1', activeWorkflow: 'wf.md', currentStep: 'implement', lastUpdated: new Date().toISOString() }, 'Working on implement.\n');
    process.stdout.write('mid-step\n');
    setInterval(() => {}, 1000);
  })().catch((e) => {
    process.stderr.write(String(e?.stack ?? e));
    process.exit(1);
  });
} else {
  describe('protocol resume: an agent killed with SIGKILL mid-step', () => {
    test('resume answers from each tier as the sources disappear', async () => {
      const root = tempRoot();
      try {
        const file = seed(root);
        const agent = spawnWorker('agent', { root, file });
        let out = '';
        await new Promise<void>((resolve, reject) => {
          agent.stdout!.on('data', (d) => {
            out += d;
            if (out.includes('mid-step')) resolve();
          });
          let err = '';
          agent.stderr!.on('data', (d) => (err += d));
          agent.on('exit', () => reject(new Error(`agent exited early: ${err}`)));
        });
        agent.kill('SIGKILL');
        const res = await waitWorker(agent);
        assert.equal(res.signal, 'SIGKILL');

        // Tier 1: the frontmatter (all three tiers agree: full).
        let r = await resume(root, file);
        assert.equal(r.tier, 1);
        assert.equal(r.step, 'implement');
        assert.equal(r.degradation, 'full');
        assert.deepEqual(r.stale, []);
        // The dead agent's lease is stale; the UI can write again after breaking it.
        assert.equal(listLeases(root)[0].staleReason, 'dead-process');
        // History has the session start marker written by the lease, then the advance.
        const h = await historyOf(root, file);
        assert.deepEqual(h.entries.map((e) => e.operation), ['session.start', 'advance']);
        assert.equal(h.entries[1].session, 'sess-1');
        // The events log saw the advance through the observer.
        assert.ok(readEvents(root).events.some((e) => e.type === 'workflow.advance' && e.file === 'wf.md'));

        // Tier 2: the frontmatter is damaged (a crash of a tool that rewrote it in place).
        fs.writeFileSync(file, '---\nworkflow: build\nstepsCompleted: [design\n---\n# Build\n');
        r = await resume(root, file);
        assert.equal(r.tier, 2, JSON.stringify(r));
        assert.equal(r.step, 'implement');
        assert.match(r.source, /^checkpoint /);
        assert.equal(r.degradation, 'standard');
        assert.ok(r.warnings.some((w) => /could not be read/.test(w)));

        // Tier 3: no checkpoint either: the orchestrator state answers.
        fs.rmSync(protocolPaths(root).checkpoints, { recursive: true });
        r = await resume(root, file);
        assert.equal(r.tier, 3);
        assert.equal(r.step, 'implement');
        assert.equal(r.degradation, 'minimal');

        // Nothing left.
        fs.rmSync(protocolPaths(root).memory, { recursive: true });
        r = await resume(root, file);
        assert.equal(r.degradation, 'none');
        assert.equal(r.step, undefined);
        assert.match(r.reason, /Nothing knows/);

        // Only the workflow file left: still the right step (minimal).
        fs.writeFileSync(file, WF.replace('currentStep: design', 'currentStep: implement').replace('stepsCompleted: []', 'stepsCompleted: [design]'));
        r = await resume(root, file);
        assert.equal(r.tier, 1);
        assert.equal(r.step, 'implement');
        assert.equal(r.degradation, 'minimal');
      } finally {
        cleanup(root);
      }
    });
  });

  describe('protocol resume: disagreeing tiers and sync', () => {
    test('the most recent write wins, over 5 minutes apart is a warning, sync brings the stale ones in line', async () => {
      const root = tempRoot();
      try {
        const file = seed(root, 'docs/plan.md');
        const old = new Date(Date.now() - 60 * 60 * 1000);
        // A checkpoint from an hour ago says `design` is next; frontmatter (now) agrees.
        await createCheckpoint(root, { clock: { now: () => old } });
        // The frontmatter moves on (written now).
        const core = createStateCore({ roots: [root], actor: 'me' });
        await core.scan();
        await core.advance(file);
        await core.advance(file);
        // The orchestrator is ahead of both: it recorded `ship` 10 minutes in the future of the file write.
        const later = new Date(Date.now() + 10 * 60 * 1000);
        await recordOrchestratorWorkflow(root, 'docs/plan.md', { nextStep: 'ship', updatedAt: later.toISOString() }, { type: 'multi' });
        let r = await resume(root, file);
        assert.equal(r.tier, 3);
        assert.equal(r.step, 'ship');
        assert.equal(r.degradation, 'full');
        assert.equal(r.stale.length, 2);
        assert.ok(r.warnings.some((w) => /^checkpoint .* says design .* 5?\d+ min apart|h apart/.test(w)), r.warnings.join('\n'));
        assert.ok(r.warnings.some((w) => /^frontmatter says test .*10 min apart/.test(w)), r.warnings.join('\n'));

        // Orchestrator within 5 minutes: disagreement without a warning for it.
        await recordOrchestratorWorkflow(root, 'docs/plan.md', { nextStep: 'ship', updatedAt: new Date(Date.now() + 60 * 1000).toISOString() });
        r = await resume(root, file);
        assert.equal(r.tier, 3);
        assert.ok(!r.warnings.some((w) => /^frontmatter says/.test(w)), r.warnings.join('\n'));

        // The orchestrator entry is dropped: the frontmatter (newest) wins over the hour-old checkpoint.
        await recordOrchestratorWorkflow(root, 'docs/plan.md', { nextStep: 'test', updatedAt: new Date(Date.now() - 30 * 60 * 1000).toISOString() });
        r = await resume(root, file);
        assert.equal(r.tier, 1);
        assert.equal(r.step, 'test');
        assert.equal(r.stale.length, 1); // the checkpoint; the orchestrator agrees
        const s = await sync(root, { actor: 'syncer' });
        assert.deepEqual(s.actions.map((a) => a.action), ['checkpoint']);
        r = await resume(root, file);
        assert.deepEqual(r.stale, []);
        assert.equal(r.step, 'test');

        // Frontmatter older than a checkpoint: the checkpoint wins, sync restores the frontmatter.
        const cp = await createCheckpoint(root);
        const before = fs.readFileSync(file, 'utf8');
        // Someone rewinds the state by hand with an old updatedAt.
        fs.writeFileSync(file, before.replace(/stepsCompleted: .*/, 'stepsCompleted: [design]').replace(/currentStep: .*/, 'currentStep: implement').replace('status:', `updatedAt: "${old.toISOString()}"\nstatus:`));
        await recordOrchestratorWorkflow(root, 'docs/plan.md', { nextStep: 'test' });
        r = await resume(root, file);
        assert.equal(r.tier === 2 || r.tier === 3, true);
        assert.equal(r.step, 'test');
        const s2 = await sync(root, { actor: 'syncer' });
        assert.ok(s2.actions.some((a) => a.action === 'frontmatter' && a.detail.includes(cp.id)), JSON.stringify(s2.actions));
        r = await resume(root, file);
        assert.equal(r.step, 'test');
        assert.equal(r.tier, 1);
        const after = fs.readFileSync(file, 'utf8');
        assert.ok(after.includes('# a comment that must survive') && after.includes(`title: "Keep 'me' quoted"`) && after.endsWith('Body text that a restore must never touch.\n'));
      } finally {
        cleanup(root);
      }
    });

    test('resumeRoot covers files only the orchestrator remembers and reports the worst level', async () => {
      const root = tempRoot();
      try {
        seed(root, 'a.md');
        await recordOrchestratorWorkflow(root, 'gone.md', { nextStep: 'x' }, { enforcement: { violations: ['skipped gate'], blocking: true } });
        const rr = await resumeRoot(root);
        assert.deepEqual(rr.workflows.map((w) => w.relFile), ['a.md', 'gone.md']);
        assert.equal(rr.workflows[1].tier, 3);
        assert.equal(rr.workflows[1].step, 'x');
        assert.equal(rr.degradation, 'minimal');
        assert.ok(rr.warnings.some((w) => /enforcement is blocking \(1 violations\)/.test(w)));
      } finally {
        cleanup(root);
      }
    });
  });

  describe('protocol checkpoints', () => {
    test('create, list, show; restore puts back only the state keys and is a history event', async () => {
      const root = tempRoot();
      try {
        const file = seed(root);
        const other = seed(root, 'sub/other.md', WF.replace('workflow: build', 'workflow: other'));
        const cp = await createCheckpoint(root, { message: 'start', actor: 'me' });
        assert.equal(cp.workflows.length, 2);
        assert.equal(cp.workflows[0].file, 'sub/other.md');
        assert.equal(cp.workflows[1].currentStep, 'design');
        assert.deepEqual(listCheckpoints(root).map((c) => c.id), [cp.id]);
        assert.equal(showCheckpoint(root, cp.id).message, 'start');
        assert.throws(() => showCheckpoint(root, '../etc'), (e: unknown) => WaymarkError.is(e, 'usage'));
        const core = createStateCore({ roots: [root], actor: 'me', session: 's' });
        await core.scan();
        await core.advance(file);
        await core.advance(file);
        const otherBefore = fs.readFileSync(other, 'utf8');
        // Both advances are rewound: only with force (issue 9: a restore never moves work backwards on its own).
        await assert.rejects(restoreCheckpoint(root, cp.id, { actor: 'restorer', session: 'r1' }), (e: unknown) => WaymarkError.is(e, 'transition'));
        const res = await restoreCheckpoint(root, cp.id, { actor: 'restorer', session: 'r1', force: true });
        assert.deepEqual(res.restored, ['wf.md']);
        assert.equal(res.items.find((i) => i.file === 'sub/other.md')!.action, 'unchanged');
        assert.equal(fs.readFileSync(file, 'utf8'), WF, 'byte-identical to the checkpointed file');
        assert.equal(fs.readFileSync(other, 'utf8'), otherBefore);
        const h = await historyOf(root, file);
        const last = h.entries[h.entries.length - 1];
        assert.equal(last.operation, 'checkpoint.restore');
        assert.equal(last.actor, 'restorer');
        assert.equal(last.detail!.checkpoint, cp.id);
        assert.equal(last.hashAfter, cp.workflows[1].stateHash);
        assert.ok(readEvents(root).events.some((e) => e.type === 'checkpoint.restore'));
      } finally {
        cleanup(root);
      }
    });

    test('restore refuses when files changed since, unless forced; the body is never touched', async () => {
      const root = tempRoot();
      try {
        const file = seed(root);
        const cp = await createCheckpoint(root);
        const core = createStateCore({ roots: [root], actor: 'me' });
        await core.scan();
        await core.advance(file);
        const edited = fs.readFileSync(file, 'utf8').replace('Body text', 'New body text');
        fs.writeFileSync(file, edited);
        await assert.rejects(restoreCheckpoint(root, cp.id), (e: unknown) => WaymarkError.is(e, 'conflict') && /wf\.md \(the Markdown body changed since the checkpoint\)/.test((e as Error).message) && /Nothing was changed/.test((e as Error).message));
        assert.equal(fs.readFileSync(file, 'utf8'), edited);
        const res = await restoreCheckpoint(root, cp.id, { force: true });
        assert.deepEqual(res.restored, ['wf.md']);
        const after = fs.readFileSync(file, 'utf8');
        assert.ok(after.includes('New body text'), 'the newer body is kept');
        assert.match(after, /currentStep: design/);
        assert.match(after, /stepsCompleted: \[\]/);
        // A missing file is reported, never recreated.
        fs.rmSync(file);
        const r2 = await restoreCheckpoint(root, cp.id, { force: true });
        assert.equal(r2.items[0].action, 'missing');
        assert.equal(fs.existsSync(file), false);
      } finally {
        cleanup(root);
      }
    });

    test('restore honours the lease guard', async () => {
      const root = tempRoot();
      try {
        const file = seed(root);
        const cp = await createCheckpoint(root);
        const core = createStateCore({ roots: [root], actor: 'me' });
        await core.scan();
        await core.advance(file);
        const before = fs.readFileSync(file, 'utf8');
        await acquireLease(root, file, { agent: 'holder', session: 'h', pid: process.pid, host: os.hostname() });
        await assert.rejects(restoreCheckpoint(root, cp.id, { actor: 'ui', guards: [leaseGuard()], force: true }), /locked by holder/);
        assert.equal(fs.readFileSync(file, 'utf8'), before);
        const ok = await restoreCheckpoint(root, cp.id, { actor: 'holder', session: 'h', guards: [leaseGuard()], force: true });
        assert.deepEqual(ok.restored, ['wf.md']);
      } finally {
        cleanup(root);
      }
    });
  });

  describe('protocol history timeline', () => {
    test('grouped by session with markers; --at shows the state as it was; same-state writes are no change', async () => {
      const root = tempRoot();
      try {
        const file = seed(root);
        const a = createStateCore({ roots: [root], actor: 'alice', session: 'A' });
        await a.scan();
        await recordInHistory(root, file, 'session.start', { agent: 'alice', session: 'A' }, {});
        await a.advance(file);
        await a.advance(file);
        await recordInHistory(root, file, 'session.end', { agent: 'alice', session: 'A' }, {});
        const b = createStateCore({ roots: [root], actor: 'bob', session: 'B' });
        await b.scan();
        await b.block(file, 'waiting for review');
        const h = await historyOf(root, file);
        const tl = buildTimeline(h.entries);
        assert.deepEqual(tl.map((s) => s.session), ['A', 'B']);
        assert.equal(tl[0].startMarker && tl[0].endMarker, true);
        assert.deepEqual(tl[0].actors, ['alice']);
        assert.equal(tl[1].entries[0].operation, 'block');
        const text = formatTimeline(tl);
        assert.match(text, /session A .* by alice/);
        assert.match(text, /#5 .* bob block/);
        // State as of seq 2 (after the first advance).
        const s2 = stateAt(h.entries, parseAt('2') as { seq: number });
        assert.equal(s2.state.currentStep, 'implement');
        assert.deepEqual(s2.state.stepsCompleted, ['design']);
        const s3 = stateAt(h.entries, { seq: 3 });
        assert.deepEqual(s3.state.stepsCompleted, ['design', 'implement']);
        // By time: before anything.
        assert.equal(stateAt(h.entries, parseAt('2000-01-01T00:00:00Z') as { time: number }).count, 0);
        assert.throws(() => parseAt('yesterday-ish'), (e: unknown) => WaymarkError.is(e, 'usage'));
      } finally {
        cleanup(root);
      }
    });
  });

  describe('protocol guard and observer plugged into the state core', () => {
    test('a lease refuses core mutations by others (locked), lets the holder write, and every write becomes an event', async () => {
      const root = tempRoot();
      try {
        const file = seed(root);
        // The one core honours leases and logs every write as an event by itself.
        const mk = (actor: string, session: string) => createStateCore({ roots: [root], actor, session });
        const ui = mk('vscode', 'ui-1');
        const agent = mk('agent-7', 'run-7');
        await ui.scan();
        await agent.scan();
        await acquireLease(root, file, { agent: 'agent-7', session: 'run-7', pid: process.pid, host: os.hostname() });
        const before = fs.readFileSync(file, 'utf8');
        await assert.rejects(ui.advance(file), (e: unknown) => WaymarkError.is(e, 'locked') && /locked by agent-7 \(session run-7, pid \d+, on .*\) since /.test((e as Error).message));
        assert.equal(fs.readFileSync(file, 'utf8'), before, 'refused write left the file alone');
        assert.equal((await historyOf(root, file)).entries.length, 0);
        const r = await agent.advance(file);
        assert.equal(r.written, true);
        const ev = readEvents(root).events.filter((e) => e.type.startsWith('workflow.'));
        assert.deepEqual(ev.map((e) => [e.type, e.actor, e.session, e.file]), [['workflow.advance', 'agent-7', 'run-7', 'wf.md']]);
      } finally {
        cleanup(root);
      }
    });

    test('a torn last history line is repaired on the next protocol write, reported, nothing else lost', async () => {
      const root = tempRoot();
      try {
        const file = seed(root);
        const core = createStateCore({ roots: [root], actor: 'a', session: 's' });
        await core.scan();
        await core.advance(file);
        const h = await historyOf(root, file);
        fs.appendFileSync(h.historyFile, '{"seq":2,"time":"2026-');
        const damaged = await historyOf(root, file);
        assert.deepEqual(damaged.badLines, [2]);
        const e = await recordInHistory(root, file, 'session.end', { agent: 'a', session: 's' }, {});
        assert.equal(e.seq, 2);
        const fixed = await historyOf(root, file);
        assert.deepEqual(fixed.badLines, []);
        assert.deepEqual(fixed.entries.map((x) => x.operation), ['advance', 'session.end']);
        assert.match(fs.readFileSync(`${h.historyFile}.torn`, 'utf8'), /seq\\":2/);
      } finally {
        cleanup(root);
      }
    });
  });

  describe('protocol TTL', () => {
    test('an expired orchestrator state is summarised to cold memory, cleared, and logged', async () => {
      const root = tempRoot();
      try {
        assert.equal(parseTtl('2h'), 7_200_000);
        assert.equal(parseTtl(90), 90_000);
        assert.equal(parseTtl('PT30M'), 1_800_000);
        assert.equal(parseTtl('soon'), undefined);
        const past = { now: () => new Date(Date.now() - 3 * 3600_000) };
        await recordOrchestratorWorkflow(root, 'wf.md', { nextStep: 'implement', status: 'in_progress' }, { type: 'greenfield', phase: 'executing', session: 'S9', ttl: '2h' }, { clock: past });
        // Not yet expired one hour after: nothing happens.
        assert.equal((await expireOrchestratorIfDue(root, { clock: { now: () => new Date(Date.now() - 2 * 3600_000) } })).expired, false);
        fs.writeFileSync(protocolPaths(root).coldMemory, '# Orchestrator memory (cold, append-only)\n\n- earlier line\n');
        const r = await expireOrchestratorIfDue(root);
        assert.equal(r.expired, true);
        const cold = fs.readFileSync(protocolPaths(root).coldMemory, 'utf8').split('\n').filter(Boolean);
        assert.equal(cold[1], '- earlier line', 'append-only');
        assert.match(cold[2], /expired: type=greenfield phase=executing session=S9 .* ttl=2h violations=0 workflows: wf\.md@implement \(in_progress\)$/);
        assert.equal(cold.length, 3, 'one line');
        const st = readOrchestrator(root).state!;
        assert.ok(st.cleared);
        assert.equal(st.workflows, undefined);
        assert.ok(readEvents(root).events.some((e) => e.type === 'ttl.expired'));
        // Expiring again does nothing.
        assert.equal((await expireOrchestratorIfDue(root)).expired, false);
        // resume reports the cleared state instead of answering from it.
        seed(root);
        const rr = await resumeRoot(root);
        assert.equal(rr.workflows[0].tier, 1);
        assert.match(rr.workflows[0].unavailable.find((u) => u.tier === 3)!.why, /cleared/);
      } finally {
        cleanup(root);
      }
    });
  });
}

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { acquireLease, releaseLease, takeoverLease, listLeases, leaseGuard, breakStaleLeases, leaseKey, type LeaseOwner } from '../../src/core/protocol/leases';
import { startMode, endMode, showModes } from '../../src/core/protocol/modes';
import { readEvents } from '../../src/core/protocol/events';
import { WaymarkError } from '../../src/core/errors';
import { tempRoot, cleanup, spawnWorker, waitWorker, workerArgs, waitUntil } from './protocolHelpers';

const job = process.env.WAYMARK_PROTOCOL_WORKER;

if (job === 'acquire') {
  const a = workerArgs<{ root: string; file?: string; agent: string; startAt: number; hold?: boolean }>();
  waitUntil(a.startAt);
  const owner: LeaseOwner = { agent: a.agent, session: a.agent, pid: process.pid, host: os.hostname() };
  acquireLease(a.root, a.file, owner).then(
    (r) => {
      process.stdout.write(JSON.stringify({ ok: true, outcome: r.outcome }) + '\n');
      if (a.hold) setInterval(() => {}, 1000);
    },
    (e) => {
      process.stdout.write(JSON.stringify({ ok: false, reason: (e as WaymarkError).reason, message: (e as Error).message }) + '\n');
    },
  );
} else if (job === 'acquire-and-exit') {
  const a = workerArgs<{ root: string; file?: string; agent: string }>();
  acquireLease(a.root, a.file, { agent: a.agent, pid: process.pid, host: os.hostname() }).then(() => process.stdout.write('held\n'));
} else {
  const me = (agent: string, session?: string): LeaseOwner => ({ agent, session, pid: process.pid, host: os.hostname() });

  describe('protocol leases', () => {
    test('contended by 8 OS processes: exactly one holder, the others told who holds it', async () => {
      const root = tempRoot();
      try {
        fs.writeFileSync(path.join(root, 'wf.md'), '---\nworkflow: w\n---\n');
        const startAt = Date.now() + 600;
        const kids = Array.from({ length: 8 }, (_, i) => spawnWorker('acquire', { root, file: path.join(root, 'wf.md'), agent: `agent-${i}`, startAt, hold: true }));
        const lines: { ok: boolean; outcome?: string; reason?: string; message?: string }[] = [];
        await Promise.all(
          kids.map(
            (k) =>
              new Promise<void>((resolve) => {
                let buf = '';
                k.stdout!.on('data', (d) => {
                  buf += d;
                  if (buf.includes('\n')) {
                    lines.push(JSON.parse(buf.trim()));
                    resolve();
                  }
                });
                k.on('exit', () => resolve());
              }),
          ),
        );
        const winners = lines.filter((l) => l.ok);
        const losers = lines.filter((l) => !l.ok);
        assert.equal(lines.length, 8);
        assert.equal(winners.length, 1, JSON.stringify(lines));
        assert.equal(winners[0].outcome, 'acquired');
        for (const l of losers) {
          assert.equal(l.reason, 'locked');
          assert.match(l.message!, /locked by agent-\d \(session agent-\d, pid \d+, on .*\) since \d{4}-/);
        }
        const leases = listLeases(root);
        assert.equal(leases.length, 1);
        assert.equal(leases[0].stale, false);
        for (const k of kids) k.kill('SIGKILL');
        await Promise.all(kids.map((k) => waitWorker(k).catch(() => undefined)));
        // The holder is dead now (SIGKILL): its lease is stale and is broken on the next acquire.
        const r = await acquireLease(root, path.join(root, 'wf.md'), me('late'));
        assert.equal(r.outcome, 'broke-stale');
        assert.equal(r.broken?.staleReason, 'dead-process');
      } finally {
        cleanup(root);
      }
    });

    test('stale lease of a process killed with SIGKILL is broken; expired lease too', async () => {
      const root = tempRoot();
      try {
        const w = spawnWorker('acquire-and-exit', { root, agent: 'crashy' });
        const res = await waitWorker(w);
        assert.equal(res.stdout.trim(), 'held');
        assert.equal(listLeases(root)[0].stale, true);
        assert.equal(listLeases(root)[0].staleReason, 'dead-process');
        const broken = breakStaleLeases(root);
        assert.equal(broken.length, 1);
        assert.equal(listLeases(root).length, 0);
        const ev = readEvents(root).events.map((e) => e.type);
        assert.ok(ev.includes('lease.break'));

        // Expired: acquired by a live owner with an old clock.
        const past = { now: () => new Date(Date.now() - 2 * 3600_000) };
        await acquireLease(root, undefined, { agent: 'old', host: os.hostname() }, { clock: past });
        assert.equal(listLeases(root)[0].staleReason, 'expired');
        const r = await acquireLease(root, undefined, me('new'));
        assert.equal(r.outcome, 'broke-stale');
      } finally {
        cleanup(root);
      }
    });

    test('renew by the holder, refusal for others, release only by the holder, take-over recorded', async () => {
      const root = tempRoot();
      try {
        const file = path.join(root, 'docs', 'prd.md');
        const a = me('alice', 's1');
        const b = me('bob', 's2');
        assert.equal((await acquireLease(root, file, a)).outcome, 'acquired');
        assert.equal((await acquireLease(root, file, a)).outcome, 'renewed');
        await assert.rejects(acquireLease(root, file, b), (e: unknown) => WaymarkError.is(e, 'locked') && /locked by alice/.test((e as Error).message));
        // A root lease by bob is refused while alice holds a file lease, and the reverse.
        await assert.rejects(acquireLease(root, undefined, b), (e: unknown) => WaymarkError.is(e, 'locked'));
        await assert.rejects(releaseLease(root, file, b), (e: unknown) => WaymarkError.is(e, 'locked'));
        const t = await takeoverLease(root, file, b, { reason: 'alice crashed' });
        assert.equal(t.previous?.owner.agent, 'alice');
        assert.equal(t.lease.takenOverFrom?.agent, 'alice');
        const ev = readEvents(root).events.find((e) => e.type === 'lease.takeover');
        assert.ok(ev, 'take-over event logged');
        assert.equal((ev!.data!.previous as LeaseOwner).agent, 'alice');
        assert.equal(ev!.actor, 'bob');
        await assert.rejects(acquireLease(root, file, a), /locked by bob/);
        assert.equal((await releaseLease(root, file, b)).released, true);
        assert.equal(fs.existsSync(leaseKey(root, file).path), false);
        assert.equal((await releaseLease(root, file, b)).released, false);
      } finally {
        cleanup(root);
      }
    });

    test('leaseGuard refuses writes by anyone but the holder', async () => {
      const root = tempRoot();
      try {
        const file = path.join(root, 'a.md');
        const guard = leaseGuard();
        await guard({ file, root, operation: 'advance', actor: 'ui' }); // no lease: allowed
        await acquireLease(root, file, me('agent-x', 'sess-1'));
        await assert.rejects(async () => guard({ file, root, operation: 'advance', actor: 'vscode' }), (e: unknown) => WaymarkError.is(e, 'locked') && /locked by agent-x .* since /.test((e as Error).message));
        await assert.rejects(async () => guard({ file, root, operation: 'advance', actor: 'agent-x', session: 'sess-2' }), /locked by/);
        await guard({ file, root, operation: 'advance', actor: 'agent-x', session: 'sess-1' });
        await guard({ file, root, operation: 'advance', session: 'sess-1' });
        await guard({ file, root, operation: 'advance', actor: 'agent-x' });
        // Other files are free.
        await guard({ file: path.join(root, 'b.md'), root, operation: 'advance', actor: 'ui' });
        await releaseLease(root, file, me('agent-x', 'sess-1'));
        // A root lease covers every file.
        await acquireLease(root, undefined, me('orch', 'o1'));
        await assert.rejects(async () => guard({ file: path.join(root, 'b.md'), root, operation: 'block', actor: 'ui' }), /locked by orch/);
        await guard({ file: path.join(root, 'b.md'), root, operation: 'block', actor: 'orch', session: 'o1' });
      } finally {
        cleanup(root);
      }
    });

    test('a corrupt lease file counts as stale and is replaced', async () => {
      const root = tempRoot();
      try {
        const k = leaseKey(root);
        fs.mkdirSync(path.dirname(k.path), { recursive: true });
        fs.writeFileSync(k.path, '{"owner": tor');
        const r = await acquireLease(root, undefined, me('a'));
        assert.notEqual(r.outcome, 'renewed');
        assert.equal(listLeases(root)[0].lease.owner.agent, 'a');
      } finally {
        cleanup(root);
      }
    });
  });

  describe('protocol modes', () => {
    test('an exclusive mode refuses another, naming who holds it; shared modes coexist', () => {
      const root = tempRoot();
      try {
        const a = me('planner', 'p');
        const b = me('executor', 'e');
        startMode(root, 'planning', a);
        startMode(root, 'planning', a); // re-entrant for the holder
        assert.throws(() => startMode(root, 'executing', b), (e: unknown) => WaymarkError.is(e, 'locked') && /mode 'planning' \(exclusive\) is held by planner .* since /.test((e as Error).message));
        assert.throws(() => startMode(root, 'planning', b), /held by planner/);
        assert.throws(() => endMode(root, 'planning', b), /only its holder/);
        assert.deepEqual(showModes(root).map((m) => m.mode), ['planning']);
        assert.equal(endMode(root, 'planning', a).length, 1);
        startMode(root, 'review', a, { exclusive: false });
        startMode(root, 'review', b, { exclusive: false });
        assert.equal(showModes(root).length, 2);
        assert.throws(() => startMode(root, 'executing', b), /is held by/);
        endMode(root, 'review', a);
        endMode(root, 'review', b);
        startMode(root, 'executing', b);
        // stale (expired) exclusive mode does not block
        endMode(root, 'executing', b);
        startMode(root, 'executing', b, { clock: { now: () => new Date(Date.now() - 3 * 3600_000) } });
        startMode(root, 'planning', a);
        assert.throws(() => startMode(root, 'bad name!', a), (e: unknown) => WaymarkError.is(e, 'usage'));
        const types = readEvents(root).events.map((e) => e.type);
        assert.ok(types.includes('mode.start') && types.includes('mode.end'));
      } finally {
        cleanup(root);
      }
    });
  });
}

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Outbox, breakerFile, readBreakerStatus } from '../../src/core/index';
import { fakeGitHub, githubConfig, project, wf, withCore, workspace } from './ticketsHelpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HALF_OPEN_MS = 400;
const CONFIG = githubConfig(`  breaker: { failures: 2, halfOpenAfterMs: ${HALF_OPEN_MS}, timeoutMs: 150, retries: 0 }\n`);

describe('tickets: the breaker against a real HTTP server on 127.0.0.1', () => {
  test('slow → open, stopped → queued without a call, half-open probe fails → open, back → closed; the outbox drains in the order queued; local commands unaffected', async () => {
    const gh = await fakeGitHub();
    const root = workspace({ 'a.md': wf('a', 'created'), 'b.md': wf('b', 'created'), 'c.md': wf('c', 'created') }, CONFIG);
    const file = (n: string) => path.join(root, `${n}.md`);
    const outbox = new Outbox(root, 'github');
    try {
      const first = await project(root, { apiUrl: gh.url });
      assert.deepEqual(first.created, ['a', 'b', 'c']);
      const number = new Map(gh.issues.map((i) => [/waymark-id: (\S+)/.exec(i.body)![1], i.number]));

      // Slow: every answer after the 150 ms timeout.
      gh.delayMs = 600;
      await withCore(root, (core) => core.start(file('c')));
      const slow1 = await project(root, { apiUrl: gh.url });
      assert.match(slow1.outage!, /timed out after 150 ms/);
      assert.equal(slow1.breaker.state, 'closed', 'one failure of two');
      assert.deepEqual(outbox.pending().map((e) => e.id), ['c']);
      await withCore(root, (core) => core.start(file('a')));
      const slow2 = await project(root, { apiUrl: gh.url });
      assert.equal(slow2.breaker.state, 'open', 'two consecutive failures open it');
      assert.deepEqual(outbox.pending().map((e) => e.id), ['c', 'a'], 'queued in the order changed');

      // Stopped: the open breaker queues without calling at all.
      await gh.stop();
      const seen = gh.requests.length;
      const breakerBytes = fs.readFileSync(breakerFile(root), 'utf8');
      const outboxBytes = fs.readFileSync(outbox.file, 'utf8');
      // Local commands never wait on the tracker: a mutation touches neither the outbox nor the breaker.
      const local = await withCore(root, (core) => core.start(file('b')));
      assert.equal(local.changed, true);
      assert.equal(fs.readFileSync(breakerFile(root), 'utf8'), breakerBytes);
      assert.equal(fs.readFileSync(outbox.file, 'utf8'), outboxBytes);
      const down = await project(root, { apiUrl: gh.url });
      assert.equal(gh.requests.length, seen, 'no call while open');
      assert.match(down.outage!, /breaker open until/);
      assert.deepEqual(outbox.pending().map((e) => e.id), ['c', 'a', 'b']);
      const again = await project(root, { apiUrl: gh.url });
      assert.equal(again.queued, 3);
      assert.equal(fs.readFileSync(outbox.file, 'utf8').trim().split('\n').length, 3, 'de-duplicated by id: re-queuing the same change adds no line');

      // Half-open after the wait; the probe fails (still stopped): open again.
      await sleep(HALF_OPEN_MS + 100);
      assert.equal(readBreakerStatus(root)[0].state, 'half-open');
      const probe = await project(root, { apiUrl: gh.url });
      assert.equal(probe.breaker.state, 'open');
      assert.ok(probe.outage);

      // Back: the next probe succeeds, the breaker closes, the outbox drains in the order queued.
      gh.delayMs = 0;
      await gh.start();
      await sleep(HALF_OPEN_MS + 100);
      const back = await project(root, { apiUrl: gh.url });
      assert.deepEqual(back.updated, ['c', 'a', 'b']);
      assert.equal(back.breaker.state, 'closed');
      assert.equal(back.queued, 0);
      const patches = gh.requests.filter((r) => r.method === 'PATCH').map((r) => Number(r.url.split('/').pop()));
      assert.deepEqual(patches.slice(-3), [number.get('c'), number.get('a'), number.get('b')]);
      assert.equal(fs.readFileSync(outbox.file, 'utf8'), '', 'drained: the outbox is emptied');
      for (const n of ['a', 'b', 'c']) assert.equal(gh.issues[number.get(n)! - 1].labels.includes('status:in_progress'), true);
      assert.equal((await project(root, { apiUrl: gh.url })).planned.length, 0);
    } finally {
      await gh.stop();
    }
  });

  test('the outbox survives a torn last line (a crash mid-append): it is moved aside on the next append', () => {
    const root = workspace({}, CONFIG);
    const outbox = new Outbox(root, 'github');
    outbox.queue([{ id: 'a', hash: 'h1' }], new Date());
    fs.appendFileSync(outbox.file, '{"op":"queue","id":"b","ha');
    assert.deepEqual(outbox.pending().map((e) => e.id), ['a']);
    outbox.queue([{ id: 'c', hash: 'h3' }], new Date());
    assert.deepEqual(outbox.pending().map((e) => e.id), ['a', 'c']);
    assert.match(fs.readFileSync(`${outbox.file}.torn`, 'utf8'), /"id\\":\\"b\\",\\"ha/);
    outbox.done('a', new Date());
    outbox.done('c', new Date());
    outbox.compact();
    assert.equal(fs.readFileSync(outbox.file, 'utf8'), '');
  });
});

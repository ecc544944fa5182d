import { test, describe, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { appendEvent, readEvents, followEvents, eventsObserver, repairTornTail } from '../../src/core/protocol/events';
import { protocolPaths } from '../../src/core/protocol/paths';
import { withMutexSync } from '../../src/core/protocol/mutex';
import { tempRoot, cleanup, spawnWorker, waitWorker, workerArgs, waitUntil } from './protocolHelpers';

const job = process.env.WAYMARK_PROTOCOL_WORKER;

if (job === 'write-events') {
  const a = workerArgs<{ root: string; writer: number; count: number; maxBytes: number; startAt: number }>();
  waitUntil(a.startAt);
  for (let i = 0; i < a.count; i++) appendEvent(a.root, { type: 'test.tick', data: { writer: a.writer, i, pad: 'x'.repeat(40) } }, { maxBytes: a.maxBytes });
} else if (job === 'hold-events-and-die') {
  // Appends twice (its token is made), then dies holding the events lock by its token.
  const a = workerArgs<{ root: string }>();
  appendEvent(a.root, { type: 'test.a' });
  appendEvent(a.root, { type: 'test.b' });
  withMutexSync(path.join(protocolPaths(a.root).events, 'events.lock'), () => process.kill(process.pid, 'SIGKILL'), { token: true });
} else if (job === 'follow-events') {
  const a = workerArgs<{ root: string; want: number }>();
  (async () => {
    const ac = new AbortController();
    const seqs: number[] = [];
    const keys: string[] = [];
    const t = setTimeout(() => ac.abort(), 25000);
    for await (const ev of followEvents(a.root, 0, { signal: ac.signal, pollMs: 5 })) {
      seqs.push(ev.seq);
      keys.push(`${(ev.data as { writer: number }).writer}:${(ev.data as { i: number }).i}`);
      if (seqs.length >= a.want) ac.abort();
    }
    clearTimeout(t);
    process.stdout.write(JSON.stringify({ seqs, keys }));
  })();
} else {
  describe('protocol events log', () => {
    test('3 writer processes + rotation: a follower process sees every event once, in seq order', async () => {
      const root = tempRoot();
      try {
        const count = 250;
        const writers = 3;
        const follower = spawnWorker('follow-events', { root, want: count * writers });
        const startAt = Date.now() + 500;
        const kids = Array.from({ length: writers }, (_, w) => spawnWorker('write-events', { root, writer: w, count, maxBytes: 4096, startAt }));
        const results = await Promise.all(kids.map((k) => waitWorker(k, 30000)));
        for (const r of results) assert.equal(r.code, 0, r.stderr);
        const f = await waitWorker(follower, 30000);
        assert.equal(f.code, 0, f.stderr);
        const { seqs, keys } = JSON.parse(f.stdout) as { seqs: number[]; keys: string[] };
        assert.equal(seqs.length, count * writers);
        assert.deepEqual(seqs, Array.from({ length: count * writers }, (_, i) => i + 1), 'no event lost or repeated, in order');
        assert.equal(new Set(keys).size, count * writers);
        // Rotation happened and segments were archived, never truncated.
        const segs = fs.readdirSync(protocolPaths(root).events).filter((n) => /^events-\d{12}\.jsonl$/.test(n));
        assert.ok(segs.length >= 5, `expected several archived segments, got ${segs.length}`);
        // A fresh reader from 0 reads the same sequence across segments, and from the middle.
        assert.deepEqual(readEvents(root, 0).events.map((e) => e.seq), seqs);
        assert.deepEqual(readEvents(root, 500).events.map((e) => e.seq), seqs.slice(500));
        assert.equal(readEvents(root, 500, { limit: 10 }).last, 510);
      } finally {
        cleanup(root);
      }
    });

    test('a process appending again and again takes the events lock by linking its token: no lock file made or removed after its second append', () => {
      const root = tempRoot();
      const dir = protocolPaths(root).events;
      const lock = path.join(dir, 'events.lock');
      const made: string[] = [];
      const removed: string[] = [];
      const openSync = nodeFs.openSync;
      const unlinkSync = nodeFs.unlinkSync;
      mock.method(nodeFs, 'openSync', (p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
        if (p === lock && typeof flags === 'number' && flags & fs.constants.O_CREAT) made.push(String(p));
        return openSync(p, flags ?? 'r', mode);
      });
      mock.method(nodeFs, 'unlinkSync', (p: fs.PathLike) => {
        if (p === lock) removed.push(String(p));
        return unlinkSync(p);
      });
      try {
        for (let i = 0; i < 10; i++) appendEvent(root, { type: 'test.tick', data: { i } });
        mock.restoreAll();
        assert.deepEqual(readEvents(root, 0).events.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert.equal(made.length, 2, 'the lock file is created for the first two appends only (the second is kept as the token)');
        assert.equal(removed.length, 9, 'every other append lets go by removing its link');
        const tokens = fs.readdirSync(dir).filter((n) => n.endsWith('.token'));
        assert.deepEqual(tokens.map((n) => n.split('.')[3]), [String(process.pid)], 'one token, this process\'s');
        assert.equal(fs.existsSync(lock), false, 'the lock is free');
      } finally {
        mock.restoreAll();
        cleanup(root);
      }
    });

    test('a process killed holding the events lock by its token: the next writer breaks the lock and removes the dead token', async () => {
      const root = tempRoot();
      try {
        const r = await waitWorker(spawnWorker('hold-events-and-die', { root }));
        assert.equal(r.signal, 'SIGKILL', r.stderr);
        const dir = protocolPaths(root).events;
        assert.ok(fs.existsSync(path.join(dir, 'events.lock')), 'the dead writer left the lock');
        assert.equal(fs.readdirSync(dir).filter((n) => n.endsWith('.token')).length, 1, 'and its token');
        for (let i = 0; i < 3; i++) appendEvent(root, { type: 'test.next' });
        assert.deepEqual(readEvents(root, 0).events.map((e) => e.type), ['test.a', 'test.b', 'test.next', 'test.next', 'test.next']);
        const tokens = fs.readdirSync(dir).filter((n) => n.endsWith('.token'));
        assert.deepEqual(tokens.map((n) => n.split('.')[3]), [String(process.pid)], 'the dead writer\'s token is removed');
      } finally {
        cleanup(root);
      }
    });

    test('a reader holding an archived segment open keeps its bytes after rotation', () => {
      const root = tempRoot();
      try {
        for (let i = 0; i < 5; i++) appendEvent(root, { type: 't', data: { i } }, { maxBytes: 200 });
        const active = protocolPaths(root).eventsFile;
        const fd = fs.openSync(active, 'r');
        const before = fs.fstatSync(fd).size;
        for (let i = 0; i < 20; i++) appendEvent(root, { type: 't', data: { i } }, { maxBytes: 200 });
        const buf = Buffer.alloc(before);
        fs.readSync(fd, buf, 0, before, 0);
        fs.closeSync(fd);
        assert.ok(buf.toString().split('\n').filter(Boolean).every((l) => JSON.parse(l).type === 't'));
        assert.deepEqual(readEvents(root).events.map((e) => e.seq), Array.from({ length: 25 }, (_, i) => i + 1));
      } finally {
        cleanup(root);
      }
    });

    test('pruned archives are reported, not silently skipped', () => {
      const root = tempRoot();
      try {
        for (let i = 0; i < 40; i++) appendEvent(root, { type: 't', data: { i } }, { maxBytes: 150, keepSegments: 2 });
        const r = readEvents(root, 0);
        assert.ok(r.warnings.some((w) => /pruned/.test(w)), r.warnings.join());
        assert.equal(r.events[r.events.length - 1].seq, 40);
        const first = r.events[0].seq;
        assert.deepEqual(r.events.map((e) => e.seq), Array.from({ length: 41 - first }, (_, i) => first + i));
      } finally {
        cleanup(root);
      }
    });

    test('the log\'s end this process left is not read again; another writer\'s line, or the log rewritten at the same size, is', () => {
      const root = tempRoot();
      try {
        appendEvent(root, { type: 't', data: { i: 0 } });
        const file = protocolPaths(root).eventsFile;
        // Its own last line: the next seq is known without reading the tail (no read of the log).
        const reads = mock.method(nodeFs, 'readSync');
        try {
          assert.equal(appendEvent(root, { type: 't', data: { i: 1 } }).event.seq, 2);
          assert.equal(reads.mock.callCount(), 0, 'the tail was read again');
        } finally {
          reads.mock.restore();
        }
        // Another process's line (as the CLI or a hook appends it): the size moved, the tail is read.
        fs.appendFileSync(file, JSON.stringify({ seq: 3, time: '2026-01-01T00:00:00.000Z', type: 'other' }) + '\n');
        assert.equal(appendEvent(root, { type: 't', data: { i: 2 } }).event.seq, 4);
        // Rewritten in place at the very same size (seq 4 → 7): the ctime moved, the tail is read.
        const text = fs.readFileSync(file, 'utf8');
        const lines = text.split('\n').filter(Boolean);
        const last = JSON.parse(lines[lines.length - 1]);
        lines[lines.length - 1] = JSON.stringify({ ...last, seq: 7 });
        const rewritten = lines.join('\n') + '\n';
        assert.equal(Buffer.byteLength(rewritten), Buffer.byteLength(text));
        const fd = fs.openSync(file, 'r+');
        fs.writeSync(fd, rewritten, 0);
        fs.closeSync(fd);
        assert.equal(appendEvent(root, { type: 't', data: { i: 3 } }).event.seq, 8);
        assert.deepEqual(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).seq), [1, 2, 3, 7, 8]);
      } finally {
        cleanup(root);
      }
    });

    test('a torn last line (crash mid-append) is repaired on the next append, reported, nothing else lost', () => {
      const root = tempRoot();
      try {
        for (let i = 0; i < 3; i++) appendEvent(root, { type: 't', data: { i } });
        const file = protocolPaths(root).eventsFile;
        const torn = '{"seq":4,"time":"2026-01-01T00:00:00.000Z","type":"t","da';
        fs.appendFileSync(file, torn);
        // Readers never see the torn line.
        assert.deepEqual(readEvents(root).events.map((e) => e.seq), [1, 2, 3]);
        const r = appendEvent(root, { type: 'after' });
        assert.ok(r.repaired, 'repair reported');
        assert.equal(r.repaired!.bytes, Buffer.byteLength(torn));
        assert.equal(r.event.seq, 4);
        const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
        assert.equal(lines.length, 4);
        assert.deepEqual(lines.map((l) => JSON.parse(l).seq), [1, 2, 3, 4]);
        assert.match(fs.readFileSync(`${file}.torn`, 'utf8'), /"type":"t","da/);
        assert.equal(repairTornTail(file), undefined, 'nothing more to repair');
      } finally {
        cleanup(root);
      }
    });

    test('eventsObserver turns history appends into workflow events with the file relative to the root', async () => {
      const root = tempRoot();
      try {
        const obs = eventsObserver();
        await obs(
          { seq: 7, time: new Date().toISOString(), operation: 'advance', file: path.join(root, 'docs', 'a.md'), actor: 'bot', session: 's', hashBefore: 'h1', hashAfter: 'h2' },
          { file: path.join(root, 'docs', 'a.md'), root, operation: 'advance', actor: 'bot', session: 's' },
        );
        const [ev] = readEvents(root).events;
        assert.equal(ev.type, 'workflow.advance');
        assert.equal(ev.file, 'docs/a.md');
        assert.equal(ev.actor, 'bot');
        assert.equal(ev.data!.historySeq, 7);
      } finally {
        cleanup(root);
      }
    });

    test('an unreadable line in the middle is skipped with a warning', () => {
      const root = tempRoot();
      try {
        appendEvent(root, { type: 'a' });
        fs.appendFileSync(protocolPaths(root).eventsFile, 'garbage\n');
        appendEvent(root, { type: 'b' });
        const r = readEvents(root);
        assert.deepEqual(r.events.map((e) => e.type), ['a', 'b']);
        assert.deepEqual(r.events.map((e) => e.seq), [1, 2]);
        assert.ok(r.warnings.length === 1);
      } finally {
        cleanup(root);
      }
    });
  });
}

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  createStateCore,
  transitionRefusal,
  STATUSES,
  WaymarkError,
  readHistoryDetailed,
  appendHistory,
  historyPathFor,
  acquireFileLock,
  lockPathFor,
  withFileLock,
  type ChangeEvent,
  type HistoryEntry,
  type Status,
} from '../../src/core/index';
import { lastRecordedState } from '../../src/core/store/history';

const tmp: string[] = [];
after(() => {
  for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
});

function ws(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-mut-'));
  tmp.push(root);
  fs.mkdirSync(path.join(root, '.waymark'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const wf = (status: string, extra = '') => `---\nworkflow: demo\nstatus: ${status}\nsteps: [one, two, three]\nstepsCompleted: []\n${extra}---\n# Demo\n`;

const reasonOf = (reason: string) => (e: unknown) => {
  assert.ok(WaymarkError.is(e), `expected a WaymarkError, got ${String(e)}`);
  assert.equal((e as WaymarkError).reason, reason, (e as Error).message);
  return true;
};

describe('status state machine', () => {
  test('allowed and refused transitions', () => {
    const allowed: [Status, Status][] = [
      ['created', 'in_progress'],
      ['in_progress', 'blocked'],
      ['blocked', 'in_progress'],
      ['in_progress', 'completed'],
      ['completed', 'archived'],
    ];
    for (const [a, b] of allowed) assert.equal(transitionRefusal(a, b), undefined, `${a} → ${b}`);
    assert.match(transitionRefusal('completed', 'in_progress')!, /cannot be reopened/);
    // Issue 9 item 9: the way out of blocked is back through in_progress.
    assert.match(transitionRefusal('blocked', 'completed')!, /unblock it first/);
    for (const to of STATUSES.filter((s) => s !== 'archived')) assert.match(transitionRefusal('archived', to)!, /archived workflow is final/);
    assert.match(transitionRefusal('created', 'completed')!, /must be started/);
    assert.match(transitionRefusal('in_progress', 'created')!, /cannot go back to created/);
    assert.match(transitionRefusal('created', 'archived')!, /cannot move to archived/);
  });

  test('the core refuses with reason transition, and the file is untouched', async () => {
    const root = ws({ 'done.md': wf('completed'), 'arch.md': wf('archived'), 'new.md': wf('created') });
    const core = createStateCore({ roots: [root] });
    for (const [file, op] of [
      ['done.md', () => core.setStatus(path.join(root, 'done.md'), 'in_progress')],
      ['done.md', () => core.start(path.join(root, 'done.md'))],
      ['arch.md', () => core.setStatus(path.join(root, 'arch.md'), 'completed')],
      ['arch.md', () => core.advance(path.join(root, 'arch.md'))],
      ['new.md', () => core.advance(path.join(root, 'new.md'))],
      ['new.md', () => core.unblock(path.join(root, 'new.md'))],
    ] as [string, () => Promise<unknown>][]) {
      const before = fs.readFileSync(path.join(root, file), 'utf8');
      await assert.rejects(op(), reasonOf('transition'));
      assert.equal(fs.readFileSync(path.join(root, file), 'utf8'), before);
    }
    await assert.rejects(core.setStatus(path.join(root, 'new.md'), 'in_progress').then(() => core.block(path.join(root, 'new.md'), '  ')), reasonOf('usage'));
    assert.equal(readHistoryDetailed(root, path.join(root, 'done.md')).entries.length, 0, 'refusals leave no history');
  });
});

describe('mutations', () => {
  test('start → advance ×3 walks the steps, completes the workflow, records history, emits events', async () => {
    const root = ws({ 'a.md': wf('created') });
    const file = path.join(root, 'a.md');
    const events: ChangeEvent[] = [];
    const core = createStateCore({ roots: [root], actor: 'tester', session: 's1' });
    await core.scan();
    const sub = core.onDidChange((e) => events.push(e));
    await core.start(file);
    assert.equal(core.get(file)?.currentStep, 'one');
    await core.advance(file);
    await core.advance(file);
    const last = await core.advance(file);
    assert.equal(last.after.status, 'completed');
    assert.deepEqual(last.after.stepsCompleted, ['one', 'two', 'three']);
    await assert.rejects(core.advance(file), reasonOf('transition'));
    assert.equal(events.length, 4);
    assert.ok(events.every((e) => e.changes[0].file === file && e.changes[0].state));
    sub.dispose();
    const hist = await core.history(file);
    assert.deepEqual(hist.map((h) => h.operation), ['start', 'advance', 'advance', 'advance']);
    assert.deepEqual(hist.map((h) => h.seq), [1, 2, 3, 4]);
    assert.ok(hist.every((h) => h.actor === 'tester' && h.session === 's1' && h.file === file));
    assert.deepEqual(hist[3].from, { status: 'in_progress', rawStatus: 'in_progress', currentStep: 'three', stepsCompleted: ['one', 'two'] });
    assert.equal(hist[3].hashAfter, last.after.stateHash);
    assert.equal(historyPathFor(root, file), path.join(root, '.waymark', 'history', 'a.md.jsonl'));
  });

  test('a stale expectHash is a conflict and nothing is written', async () => {
    const root = ws({ 'a.md': wf('in_progress') });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root] });
    const s = await core.reload(file);
    await core.setScope(file, 'small', { expectHash: s!.stateHash });
    const text = fs.readFileSync(file, 'utf8');
    await assert.rejects(core.setScope(file, 'large', { expectHash: s!.stateHash }), reasonOf('conflict'));
    assert.equal(fs.readFileSync(file, 'utf8'), text);
  });

  test('block and unblock keep the reason; set-status blocked needs one', async () => {
    const root = ws({ 'a.md': wf('in_progress') });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root] });
    await assert.rejects(core.setStatus(file, 'blocked'), reasonOf('usage'));
    const b = await core.block(file, 'waiting for the API key');
    assert.equal(b.after.blockedReason, 'waiting for the API key');
    await assert.rejects(core.advance(file), (e) => reasonOf('transition')(e) && /unblock it/.test((e as Error).message));
    const u = await core.unblock(file);
    assert.equal(u.after.status, 'in_progress');
    assert.equal(u.after.blockedReason, undefined);
    assert.equal(fs.readFileSync(file, 'utf8'), wf('in_progress').replace('stepsCompleted: []\n', 'stepsCompleted: []\ncurrentStep: one\n'));
  });

  test('guards run under the lock and can refuse; observers see the entry and never fail the write', async () => {
    const root = ws({ 'a.md': wf('in_progress') });
    const file = path.join(root, 'a.md');
    const seen: HistoryEntry[] = [];
    let refuse = true;
    const core = createStateCore({
      roots: [root],
      guards: [
        async (ctx) => {
          assert.ok(fs.existsSync(lockPathFor(ctx.file, { root: ctx.root })), 'guard runs while the lock is held');
          if (refuse) throw new WaymarkError('locked', 'lease held by agent-x');
        },
      ],
      observers: [(entry) => void seen.push(entry), () => Promise.reject(new Error('observer down'))],
    });
    const before = fs.readFileSync(file, 'utf8');
    await assert.rejects(core.setScope(file, 'large'), reasonOf('locked'));
    assert.equal(fs.readFileSync(file, 'utf8'), before);
    refuse = false;
    const r = await core.setScope(file, 'large');
    assert.equal(r.written, true);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].operation, 'set-scope');
    assert.deepEqual(seen[0].to, { scope: 'large' });
  });

  test('a result with a new error is refused (validate after)', async () => {
    // `scope` is fine, but completing a step whose gate has not passed would add gate errors:
    // that is refused as gate-closed before validation; here we force a new error through a fix.
    const root = ws({ 'a.md': wf('in_progress') });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root] });
    await assert.rejects(
      core.applyFix(file, { file, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: 'warning', code: 'unknown-scope', message: 'x', data: { fix: 'replaceScope', value: 'gigantic' } }),
      (e) => reasonOf('invalid')(e) && /new error/.test((e as Error).message),
    );
    assert.equal(fs.readFileSync(file, 'utf8'), wf('in_progress'));
  });

  test('quick fixes from problems go through the write path', async () => {
    const root = ws({ 'a.md': '---\nworkflow: demo\nstatus: in_progress\nsteps: [one, two]\nstepCompleted: [one] # typo\n---\n' });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root] });
    const { problems } = await core.parseText(file, fs.readFileSync(file, 'utf8'));
    const typo = problems.find((p) => p.data?.fix === 'renameKey');
    assert.ok(typo, `a typo problem with a fix: ${JSON.stringify(problems.map((p) => p.code))}`);
    const r = await core.applyFix(file, typo);
    assert.deepEqual(r.after.stepsCompleted, ['one']);
    assert.equal(fs.readFileSync(file, 'utf8'), '---\nworkflow: demo\nstatus: in_progress\nsteps: [one, two]\nstepsCompleted: [one] # typo\n---\n');
    assert.equal((await core.history(file))[0].operation, 'fix');
  });

  test('delegate creates a child with its chain; the parent becomes the chain root', async () => {
    const root = ws({ 'plan.md': wf('in_progress', 'currentStep: two\n') });
    const file = path.join(root, 'plan.md');
    const core = createStateCore({ roots: [root] });
    await core.scan();
    const r = await core.delegate(file, { agent: 'QA Agent' });
    assert.equal(r.file, path.join(root, 'plan.qa-agent.md'));
    assert.deepEqual(r.after.delegation, { id: 'plan.qa-agent', parent_id: 'plan', root_id: 'plan', depth: 1, chain_path: ['plan', 'plan.qa-agent'], agent: 'QA Agent' });
    // A folder that does not exist yet inside the workspace is created (issue 9, item 14).
    const r3 = await core.delegate(r.file, { agent: 'sub', out: path.join(root, 'deep', 'x.md') });
    assert.deepEqual(r3.after.delegation?.chain_path, ['plan', 'plan.qa-agent', 'plan.qa-agent.sub']);
    assert.equal(r3.after.delegation?.depth, 2);
    await core.scan();
    assert.deepEqual(core.problems().filter((p) => p.code.startsWith('delegation')), [], 'the chain validates');
    await assert.rejects(core.delegate(file, { agent: 'x', out: r.file }), reasonOf('usage'));
    assert.match(fs.readFileSync(file, 'utf8'), /\ndelegation:\n  id: plan\n  parent_id: null\n  root_id: plan\n  depth: 0\n  chain_path: \[plan\]\n---\n# Demo\n$/);
  });

  test('concurrent mutations in one process queue on the lock; all land, history chains', async () => {
    const root = ws({ 'a.md': wf('in_progress') });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root] });
    const scopes = ['micro', 'small', 'medium', 'large', 'epic', 'micro', 'small', 'medium', 'large', 'epic'] as const;
    const results = await Promise.all(scopes.map((s) => core.setScope(file, s)));
    // The lock is not FIFO: a scope may land on a file that already has it (no change, no line).
    const landed = results.filter((r) => r.changed !== false);
    assert.ok(landed.length >= 5, `${landed.length} landed`);
    assert.ok(results.every((r) => (r.changed === false) === (r.seq === undefined)));
    assert.deepEqual(landed.map((r) => r.seq).sort((a, b) => a! - b!), landed.map((_, i) => i + 1));
    const hist = await core.history(file);
    assert.equal(hist.length, landed.length);
    for (let i = 1; i < hist.length; i++) assert.equal(hist[i].hashBefore, hist[i - 1].hashAfter);
    assert.equal((await core.reload(file))!.stateHash, hist[hist.length - 1].hashAfter);
  });

  test('a file deleted between scan and write is a clear unreadable error, nothing recreated', async () => {
    const root = ws({ 'a.md': wf('in_progress') });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root] });
    await core.scan();
    assert.ok(core.get(file));
    fs.unlinkSync(file);
    await assert.rejects(core.advance(file), (e) => reasonOf('unreadable')(e) && /does not exist/.test((e as Error).message));
    assert.equal(fs.existsSync(file), false);
  });
});

describe('file lock', () => {
  test('a lock held by a dead process is broken at once', async () => {
    const root = ws({});
    const file = path.join(root, 'a.md');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const lockPath = lockPathFor(file, { root });
    fs.mkdirSync(path.dirname(lockPath), { recursive: true });
    fs.writeFileSync(lockPath, JSON.stringify({ pid: Number(dead.stdout), host: os.hostname(), time: new Date().toISOString(), token: 't', file }));
    const t0 = Date.now();
    const lock = await acquireFileLock(file, { root, waitMs: 5000 });
    assert.ok(Date.now() - t0 < 1000);
    assert.match(lock.broken[0], /process \d+ is gone/);
    lock.release();
    assert.equal(fs.existsSync(lockPath), false);
  });

  test('a lock from another host is broken only when too old', async () => {
    const root = ws({});
    const file = path.join(root, 'a.md');
    const lockPath = lockPathFor(file, { root });
    fs.mkdirSync(path.dirname(lockPath), { recursive: true });
    fs.writeFileSync(lockPath, JSON.stringify({ pid: 1, host: 'elsewhere', time: new Date(Date.now() - 3_600_000).toISOString(), token: 't', file }));
    const lock = await acquireFileLock(file, { root, waitMs: 2000 });
    assert.match(lock.broken[0], /s old/);
    lock.release();
  });

  test('a live holder past the wait gives WaymarkError locked, naming the holder', async () => {
    const root = ws({});
    const file = path.join(root, 'a.md');
    await withFileLock(
      file,
      async () => {
        const t0 = Date.now();
        await assert.rejects(acquireFileLock(file, { root, waitMs: 200 }), (e) => reasonOf('locked')(e) && new RegExp(`process ${process.pid}`).test((e as Error).message));
        assert.ok(Date.now() - t0 >= 190);
      },
      { root },
    );
    // Released: free again.
    (await acquireFileLock(file, { root, waitMs: 100 })).release();
  });
});

describe('history', () => {
  test('a torn last line is moved aside on the next append; nothing else is lost', () => {
    const root = ws({});
    const file = path.join(root, 'a.md');
    appendHistory(root, { time: 't', operation: 'one', file });
    appendHistory(root, { time: 't', operation: 'two', file });
    const hf = historyPathFor(root, file);
    fs.appendFileSync(hf, '{"seq":3,"time":"t","operation":"thr'); // a crash mid-append
    assert.deepEqual(readHistoryDetailed(root, file).badLines, [3]);
    const r = appendHistory(root, { time: 't', operation: 'three', file });
    assert.match(r.repaired ?? '', /torn last line/);
    const h = readHistoryDetailed(root, file);
    assert.deepEqual(h.badLines, []);
    assert.deepEqual(h.entries.map((e) => [e.seq, e.operation]), [[1, 'one'], [2, 'two'], [3, 'three']]);
    assert.match(fs.readFileSync(`${hf}.torn`, 'utf8'), /"operation\\":\\"thr/);
  });
});

describe("history's end as this process left it", () => {
  const line = (seq: number, hashAfter: string) => JSON.stringify({ seq, time: 't', operation: 'other', file: 'a.md', hashAfter }) + '\n';

  test('a line another writer appended since is seen: the next seq follows it, the last recorded state is its', () => {
    const root = ws({});
    const file = path.join(root, 'a.md');
    appendHistory(root, { time: 't', operation: 'one', file, hashAfter: 'h1' });
    assert.equal(lastRecordedState(root, file).last?.hashAfter, 'h1');
    fs.appendFileSync(historyPathFor(root, file), line(2, 'h2'));
    assert.equal(lastRecordedState(root, file).last?.hashAfter, 'h2');
    assert.equal(appendHistory(root, { time: 't', operation: 'three', file, hashAfter: 'h3' }).entry.seq, 3);
    assert.deepEqual(lastRecordedState(root, file).last, { seq: 3, time: 't', operation: 'three', file, hashAfter: 'h3' });
  });

  test('a history rewritten with the same length, or replaced, is read again', () => {
    const root = ws({});
    const file = path.join(root, 'a.md');
    const hf = historyPathFor(root, file);
    appendHistory(root, { time: 't', operation: 'other', file, hashAfter: 'h1' });
    const text = fs.readFileSync(hf, 'utf8');
    // Same bytes' length, another seq and hash: only its stamps say it changed.
    fs.writeFileSync(hf, text.replace('"seq":1', '"seq":7').replace('"h1"', '"h9"'));
    assert.equal(fs.statSync(hf).size, Buffer.byteLength(text));
    assert.equal(lastRecordedState(root, file).last?.hashAfter, 'h9');
    assert.equal(appendHistory(root, { time: 't', operation: 'two', file }).entry.seq, 8);
    // A line with no hashAfter: the last recorded state is still the one before it.
    assert.equal(lastRecordedState(root, file).last?.hashAfter, 'h9');
    // Replaced by another file (a checkout): its own end counts.
    const other = `${hf}.new`;
    fs.writeFileSync(other, line(1, 'x1') + line(2, 'x2'));
    fs.renameSync(other, hf);
    assert.equal(lastRecordedState(root, file).last?.hashAfter, 'x2');
    assert.equal(appendHistory(root, { time: 't', operation: 'three', file }).entry.seq, 3);
    // Emptied: a first line again.
    fs.truncateSync(hf, 0);
    assert.deepEqual(lastRecordedState(root, file), { any: false });
    assert.equal(appendHistory(root, { time: 't', operation: 'four', file }).entry.seq, 1);
  });

  test('a hand edit between two writes of one core is still recorded as an external edit', async () => {
    const root = ws({ 'a.md': wf('in_progress', 'currentStep: one\nscope: small\n') });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root] });
    await core.setScope(file, 'large');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('scope: large', 'scope: medium'));
    await core.setScope(file, 'epic');
    assert.deepEqual((await core.history(file)).map((h) => [h.seq, h.operation]), [[1, 'set-scope'], [2, 'external-edit'], [3, 'set-scope']]);
    await core.close();
  });
});

describe('a mutation that changes nothing', () => {
  test('same state hash (only a timestamp would move): no write, no history line, reported as no change', async () => {
    const text = wf('in_progress', 'currentStep: one\nscope: small\nupdatedAt: 2026-01-01T00:00:00Z\n');
    const root = ws({ 'a.md': text });
    const file = path.join(root, 'a.md');
    const events: ChangeEvent[] = [];
    const seen: HistoryEntry[] = [];
    const core = createStateCore({ roots: [root], observers: [(e) => void seen.push(e)] });
    core.onDidChange((e) => events.push(e));
    const r = await core.setScope(file, 'small');
    assert.equal(r.written, false);
    assert.equal(r.changed, false);
    assert.equal(r.seq, undefined);
    assert.equal(r.after.stateHash, r.before.stateHash);
    assert.equal(fs.readFileSync(file, 'utf8'), text, 'updatedAt not bumped');
    assert.deepEqual(await core.history(file), []);
    assert.deepEqual(seen, [], 'observers hear nothing');
    assert.deepEqual(events, [], 'no change event');
    // Setting the status it already has is also not a change (or a refusal), never a history line.
    await core.setStatus(file, 'in_progress').then(
      (x) => assert.equal(x.changed, false),
      (e) => assert.ok(WaymarkError.is(e)),
    );
    assert.deepEqual(await core.history(file), []);
    assert.equal(fs.readFileSync(file, 'utf8'), text);
    // A real change still lands and is recorded, with changed: true.
    const c = await core.setScope(file, 'large');
    assert.equal(c.changed, true);
    assert.equal(c.written, true);
    assert.deepEqual((await core.history(file)).map((h) => h.operation), ['set-scope']);
    // Unsaved-text mode says the same.
    const t = await core.setScope(file, 'large', { text: fs.readFileSync(file, 'utf8') });
    assert.equal(t.changed, false);
    assert.equal(t.newText, fs.readFileSync(file, 'utf8'));
  });

  test('a fix that only removes an unsafe key (state hash unchanged) is still a change', async () => {
    const root = ws({ 'a.md': wf('in_progress', 'constructor: x\n') });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root] });
    const parsed = await core.parseText(file, fs.readFileSync(file, 'utf8'));
    const typo = parsed.problems.find((p) => p.code === 'unsafe-key');
    assert.ok(typo, JSON.stringify(parsed.problems.map((p) => p.code)));
    const r = await core.applyFix(file, typo!);
    assert.equal(r.changed, true);
    assert.equal(r.written, true);
    assert.equal((await core.history(file)).length, 1);
    assert.ok(!fs.readFileSync(file, 'utf8').includes('constructor'));
  });

  test('CLI: re-running the same scope prints "no change" and appends no history', (t) => {
    const cli = path.resolve('dist/cli.js');
    if (!fs.existsSync(cli)) return t.skip('dist/cli.js not built');
    const root = ws({ 'a.md': wf('in_progress', 'scope: small\n') });
    const file = path.join(root, 'a.md');
    const once = spawnSync(process.execPath, [cli, 'scope', file, 'large'], { encoding: 'utf8' });
    assert.equal(once.status, 0, once.stderr);
    const twice = spawnSync(process.execPath, [cli, 'scope', file, 'large'], { encoding: 'utf8' });
    assert.equal(twice.status, 0, twice.stderr);
    assert.match(twice.stdout, /no change/);
    const j = spawnSync(process.execPath, [cli, 'scope', file, 'large', '--json'], { encoding: 'utf8' });
    const out = JSON.parse(j.stdout);
    assert.equal(out.changed, false);
    assert.equal(out.written, false);
    assert.equal(out.seq, null);
    const lines = fs.readFileSync(historyPathFor(root, file), 'utf8').trim().split('\n');
    assert.equal(lines.length, 1, lines.join('\n'));
  });
});

// The system calls of a write that repeated a lookup made a moment before (session 26): each one
// removed keeps its check. Real files, real links; fs.realpathSync.native is wrapped only to count
// which paths a write resolves, and fs.openSync only to replace a file at one chosen moment.
import { readSlotRecord } from '../../src/core/store/txJournal';
import { observersSettled } from '../../src/core/engine/transaction';
import { test, describe, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { workspace } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { appendEvent } from '../../src/core/protocol/events';
import { WaymarkError } from '../../src/core/errors';
import { coordinationPaths } from '../../src/core/protocol/paths';
import { dirs, git } from './gitHelpers';

function wf(id: string): string {
  return `---\nworkflow: ${id}\nstatus: in_progress\nsteps: [one, two, three]\nstepsCompleted: []\ncurrentStep: one\nscope: small\n---\n# ${id}\n`;
}

/** Counts, from now on, the paths fs.realpathSync.native is asked to resolve. */
function countRealpaths(): Map<string, number> {
  const seen = new Map<string, number>();
  const native = nodeFs.realpathSync.native;
  mock.method(nodeFs.realpathSync, 'native', (p: fs.PathLike, o?: fs.EncodingOption) => {
    const k = String(p);
    seen.set(k, (seen.get(k) ?? 0) + 1);
    return native(p, o);
  });
  return seen;
}

/** Counts, from now on, the paths fs.lstatSync is asked about. */
function countLstats(): Map<string, number> {
  const seen = new Map<string, number>();
  const lstat = nodeFs.lstatSync;
  mock.method(nodeFs, 'lstatSync', ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
    const k = String(p);
    seen.set(k, (seen.get(k) ?? 0) + 1);
    return lstat(p, o);
  }) as typeof nodeFs.lstatSync);
  return seen;
}

function events(root: string): { seq: number; type: string }[] {
  return fs.readFileSync(path.join(root, '.waymark', 'events', 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { seq: number; type: string });
}

describe('a write resolves each path it proves once', () => {
  afterEach(() => mock.restoreAll());

  test('the changed file is resolved once to name and lock it, proved again part by part below the workspace right before its temp file (not again to name its history)', async () => {
    const root = workspace({ 'flows/a.md': wf('a') });
    const file = path.join(root, 'flows', 'a.md');
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.setScope(file, 'medium');
      const seen = countRealpaths();
      const looked = countLstats();
      const r = await core.setScope(file, 'large');
      assert.equal(r.changed, true);
      assert.equal(seen.get(file), 1, `realpath of the file: ${JSON.stringify([...seen])}`);
      // Session 39: the fresh proofs of a change look at each part below the workspace folder (one
      // lstat each), not at the folder's own parts again (realpath's readlink of each from /).
      assert.ok((looked.get(file) ?? 0) >= 1, `lstat of the file: ${JSON.stringify([...looked])}`);
      assert.ok((looked.get(path.join(root, 'flows')) ?? 0) >= 1, 'its folder is looked at afresh');
      for (const k of looked.keys()) assert.ok(k.startsWith(root), `only parts below the workspace are looked at: ${k}`);
      assert.equal(seen.get(root) ?? 0, 1, 'the workspace folder is resolved once for the change');
    } finally {
      await core.close();
    }
    assert.match(fs.readFileSync(file, 'utf8'), /scope: large/);
  });

  test('each round of flushes hands all but one to the thread pool and makes the last on this thread (session 39)', async () => {
    const root = workspace({ 'flows/a.md': wf('a') });
    const file = path.join(root, 'flows', 'a.md');
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.setScope(file, 'medium');
      const calls: string[] = [];
      for (const name of ['fsync', 'fdatasync', 'fsyncSync', 'fdatasyncSync'] as const) {
        const orig = nodeFs[name] as (...a: unknown[]) => unknown;
        mock.method(nodeFs, name, ((...a: unknown[]) => {
          calls.push(name);
          return orig(...a);
        }) as never);
      }
      const r = await core.setScope(file, 'large');
      assert.equal(r.changed, true);
      // Round 1: the intent's slot on the pool, the temp file here; then the history file, whose line the
      // intent covers, handed to the pool (the answer does not wait for it); round 2: the folder alone, here.
      assert.deepEqual(calls, ['fdatasync', 'fsyncSync', 'fsync', 'fsyncSync'], JSON.stringify(calls));
      await observersSettled();
      assert.equal(readSlotRecord(fs.readFileSync(path.join(root, '.waymark', 'journal', fs.readdirSync(path.join(root, '.waymark', 'journal'))[0]), 'utf8'))?.state, 'done');
    } finally {
      mock.restoreAll();
      await core.close();
    }
    assert.match(fs.readFileSync(file, 'utf8'), /scope: large/);
    const history = fs.readFileSync(path.join(root, '.waymark', 'history', 'flows', 'a.md.jsonl'), 'utf8').trim().split('\n');
    assert.equal(history.length, 2, 'both writes recorded');
  });

  test('an event is appended in the folder its append just proved: the log itself is not resolved', () => {
    const root = workspace({});
    appendEvent(root, { type: 'one' });
    appendEvent(root, { type: 'two' });
    const seen = countRealpaths();
    appendEvent(root, { type: 'three' });
    const log = path.join(root, '.waymark', 'events', 'events.jsonl');
    assert.equal(seen.get(log), undefined, `asked: ${JSON.stringify([...seen])}`);
    assert.equal(seen.get(path.dirname(log)), 1, 'the folder is proved, once');
    mock.restoreAll();
    assert.deepEqual(events(root).map((e) => [e.seq, e.type]), [[1, 'one'], [2, 'two'], [3, 'three']]);
  });

  test('the log replaced by another file after its identity was taken (a rotation while the lock was awaited): judged afresh, the line lands in the new log', () => {
    const root = workspace({});
    appendEvent(root, { type: 'one' });
    appendEvent(root, { type: 'two' });
    const log = path.join(root, '.waymark', 'events', 'events.jsonl');
    const openSync = nodeFs.openSync;
    let replaced = false;
    mock.method(nodeFs, 'openSync', (p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
      if (!replaced && p === log && typeof flags === 'number' && flags & fs.constants.O_APPEND) {
        replaced = true;
        // Another file (another inode) with the same lines, renamed over the log.
        fs.writeFileSync(`${log}.new`, fs.readFileSync(log));
        fs.renameSync(`${log}.new`, log);
      }
      return openSync(p, flags ?? 'r', mode);
    });
    const seen = countRealpaths();
    appendEvent(root, { type: 'three' });
    assert.ok(replaced, 'the log was replaced before the open');
    assert.equal(seen.get(log), 1, 'the replaced log is resolved afresh');
    mock.restoreAll();
    assert.deepEqual(events(root).map((e) => [e.seq, e.type]), [[1, 'one'], [2, 'two'], [3, 'three']]);
  });

  test('the events lock held by another writer a moment: the folder proved before the wait does not serve the open, the log is resolved afresh', () => {
    const root = workspace({});
    appendEvent(root, { type: 'one' });
    appendEvent(root, { type: 'two' });
    const lock = path.join(root, '.waymark', 'events', 'events.lock');
    // Another host's fresh lock (not stale), released 150 ms later by another process.
    fs.writeFileSync(lock, JSON.stringify({ pid: 1, host: 'another-host', time: Date.now() }));
    const release = spawn('sh', ['-c', `sleep 0.15; rm -f '${lock}'`], { stdio: 'ignore' });
    try {
      const seen = countRealpaths();
      appendEvent(root, { type: 'three' });
      const log = path.join(root, '.waymark', 'events', 'events.jsonl');
      assert.equal(seen.get(log), 1, `asked: ${JSON.stringify([...seen])}`);
    } finally {
      release.kill();
    }
    mock.restoreAll();
    assert.deepEqual(events(root).map((e) => [e.seq, e.type]), [[1, 'one'], [2, 'two'], [3, 'three']]);
  });

  test('the events log a link to a file inside the workspace: judged by its own real path as before, the line lands where it leads', () => {
    const root = workspace({});
    appendEvent(root, { type: 'one' });
    const dir = path.join(root, '.waymark', 'events');
    fs.renameSync(path.join(dir, 'events.jsonl'), path.join(root, 'kept.jsonl'));
    fs.symlinkSync(path.join(root, 'kept.jsonl'), path.join(dir, 'events.jsonl'));
    appendEvent(root, { type: 'two' });
    const lines = fs.readFileSync(path.join(root, 'kept.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { seq: number; type: string });
    assert.deepEqual(lines.map((e) => [e.seq, e.type]), [[1, 'one'], [2, 'two']]);
    assert.ok(fs.lstatSync(path.join(dir, 'events.jsonl')).isSymbolicLink(), 'the link is left as it is');
  });

  test('the journal folder a regular file (its stat serves its writability check): refused before the file changes', async () => {
    const root = workspace({ 'a.md': wf('a') });
    const file = path.join(root, 'a.md');
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.setScope(file, 'medium');
      const before = fs.readFileSync(file, 'utf8');
      const journal = path.join(root, '.waymark', 'journal');
      fs.rmSync(journal, { recursive: true, force: true });
      fs.writeFileSync(journal, 'not a folder\n');
      await assert.rejects(core.setScope(file, 'large'), (e: unknown) => WaymarkError.is(e) && /journal/.test(e.message) && /not a folder/.test(e.message));
      assert.equal(fs.readFileSync(file, 'utf8'), before, 'the file is unchanged');
    } finally {
      await core.close();
    }
  });

  test('a history file that is a folder (its lstat serves its writability check): refused before the file changes', async () => {
    const root = workspace({ 'a.md': wf('a') });
    const file = path.join(root, 'a.md');
    fs.mkdirSync(path.join(root, '.waymark', 'history', 'a.md.jsonl'), { recursive: true });
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await assert.rejects(core.setScope(file, 'large'), (e: unknown) => WaymarkError.is(e) && /history/.test(e.message));
    } finally {
      await core.close();
    }
    assert.match(fs.readFileSync(file, 'utf8'), /scope: small/, 'the file is unchanged');
  });
});

describe('the lease scope of a workspace in a git repository', () => {
  afterEach(() => mock.restoreAll());

  test("a write names the workspace's lease scope by the real path its .git walk started from: Node's own realpath is not asked (session 33)", async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-leasescope-')));
    dirs.push(parent);
    const repo = path.join(parent, 'repo');
    fs.mkdirSync(path.join(repo, 'sub', 'flows'), { recursive: true });
    git(repo, 'init', '-q');
    fs.writeFileSync(path.join(repo, 'sub', 'flows', 'a.md'), wf('a'));
    // The workspace named through a link: its lease scope is the real folder's, whatever the name.
    fs.symlinkSync(repo, path.join(parent, 'alias'));
    const root = path.join(parent, 'alias', 'sub');
    const scopes = path.join(fs.realpathSync(path.join(repo, '.git')), 'waymark', 'scopes');
    const c = coordinationPaths(root);
    assert.equal(c.leases, coordinationPaths(path.join(repo, 'sub')).leases);
    assert.equal(path.dirname(path.dirname(c.leases)), scopes);
    assert.match(path.basename(path.dirname(c.leases)), /^sub-[0-9a-f]+$/);
    const file = path.join(root, 'flows', 'a.md');
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.setScope(file, 'medium');
      const js = nodeFs.realpathSync;
      const native = js.native;
      const asked: string[] = [];
      mock.method(nodeFs, 'realpathSync', (p: fs.PathLike, o?: fs.EncodingOption) => {
        asked.push(String(p));
        return js(p, o);
      });
      Object.assign(nodeFs.realpathSync, { native });
      const r = await core.setScope(file, 'large');
      assert.equal(r.changed, true);
      assert.deepEqual(asked, [], 'no path resolved by the JavaScript realpath');
    } finally {
      await core.close();
    }
    assert.match(fs.readFileSync(path.join(repo, 'sub', 'flows', 'a.md'), 'utf8'), /scope: large/);
  });
});

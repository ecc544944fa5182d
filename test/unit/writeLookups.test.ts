// Issue 24 (session 38): a write's real-path checks asked of the kernel (an O_PATH descriptor's
// /proc/self/fd link: one readlink where the C library's realpath reads a link per part of the
// path), and the journal folder's listing kept while the folder's stat shows no entry made,
// removed or renamed since. Each keeps the answer the old lookup gave: real files, real links.
import { test, describe, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { workspace } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { WaymarkError } from '../../src/core/errors';
import { listJournal } from '../../src/core/store/intentJournal';
import { findGitShared } from '../../src/core/store/sharedDir';
import { git } from './gitHelpers';
import { realPathNow, realPathOfDescriptor, resolveRealPath, safeWritePath } from '../../src/core/store/safePath';

const linux = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

function wf(id: string): string {
  return `---\nworkflow: ${id}\nstatus: in_progress\nsteps: [one, two, three]\nstepsCompleted: []\ncurrentStep: one\nscope: small\n---\n# ${id}\n`;
}

describe('a real path asked of the kernel is the one realpath gives', () => {
  afterEach(() => mock.restoreAll());

  test('files, folders, a linked folder, a link to a link, a link to a file: the same answers', () => {
    const root = workspace({ 'work/a.md': wf('a') });
    fs.symlinkSync(path.join(root, 'work'), path.join(root, 'linked'));
    fs.symlinkSync(path.join(root, 'linked'), path.join(root, 'linked2'));
    fs.symlinkSync('a.md', path.join(root, 'work', 'b.md'));
    for (const p of [root, '/', path.join(root, 'work'), path.join(root, 'work', 'a.md'), path.join(root, 'linked', 'a.md'), path.join(root, 'linked2', 'b.md'), path.join(root, 'linked2')]) {
      assert.equal(realPathNow(p), fs.realpathSync.native(p), p);
      assert.equal(resolveRealPath(p), fs.realpathSync.native(p), p);
    }
    // Missing (its folder's real path and its name), dangling (where it leads), a loop (refused).
    fs.symlinkSync(path.join(root, 'work', 'gone.md'), path.join(root, 'dangling'));
    assert.equal(resolveRealPath(path.join(root, 'linked', 'new.md')), path.join(root, 'work', 'new.md'));
    assert.equal(resolveRealPath(path.join(root, 'dangling')), path.join(root, 'work', 'gone.md'));
    assert.throws(() => realPathNow(path.join(root, 'work', 'none.md')), (e) => (e as NodeJS.ErrnoException).code === 'ENOENT');
    fs.symlinkSync(path.join(root, 'loop2'), path.join(root, 'loop1'));
    fs.symlinkSync(path.join(root, 'loop1'), path.join(root, 'loop2'));
    assert.throws(() => resolveRealPath(path.join(root, 'loop1', 'x')), (e) => WaymarkError.is(e) && /loop of symbolic links/.test(e.message));
  });

  test('a descriptor names where its folder is now: moved out and linked back, it shows outside; a removed file names nothing', { skip: !linux }, () => {
    const root = workspace({ 'work/a.md': wf('a') });
    const outside = workspace({});
    const fd = fs.openSync(path.join(root, 'work'), 'r');
    try {
      assert.equal(realPathOfDescriptor(fd), path.join(root, 'work'));
      fs.renameSync(path.join(root, 'work'), path.join(outside, 'work'));
      fs.symlinkSync(path.join(outside, 'work'), path.join(root, 'work'));
      assert.equal(realPathOfDescriptor(fd), path.join(outside, 'work'), 'the kernel follows the folder, not its old name');
      assert.throws(() => safeWritePath(root, path.join(root, 'work', 'a.md')), (e) => WaymarkError.is(e) && e.message.includes(`${path.join(root, 'work')} is a symbolic link leading to ${path.join(outside, 'work', 'a.md')}, outside the workspace`));
    } finally {
      fs.closeSync(fd);
    }
    const f = path.join(outside, 'work', 'a.md');
    const fd2 = fs.openSync(f, 'r');
    try {
      fs.unlinkSync(f);
      assert.equal(realPathOfDescriptor(fd2), undefined, 'a removed file: realpath is asked instead');
    } finally {
      fs.closeSync(fd2);
    }
  });

  test('a write resolves by the kernel: the C library realpath is not asked for the file, its history, locks, journal or events', { skip: !linux }, async () => {
    const root = workspace({ 'work/a.md': wf('a') });
    const core = createStateCore({ roots: [root], actor: 't' });
    try {
      await core.setScope(path.join(root, 'work', 'a.md'), 'medium');
      const asked: string[] = [];
      const native = nodeFs.realpathSync.native;
      mock.method(nodeFs.realpathSync, 'native', (p: fs.PathLike, o?: fs.EncodingOption) => {
        asked.push(String(p));
        return native(p, o);
      });
      await core.setScope(path.join(root, 'work', 'a.md'), 'large');
      assert.deepEqual(asked, []);
      assert.match(fs.readFileSync(path.join(root, 'work', 'a.md'), 'utf8'), /scope: large/);
    } finally {
      core.dispose();
    }
  });
});

describe('the journal folder is listed again once an entry was made, removed or renamed in it', () => {
  afterEach(() => mock.restoreAll());

  test('a still folder is stat-ed, not listed; a file made in it (even with its times set back) is seen', { skip: !linux }, () => {
    const root = workspace({});
    const dir = path.join(root, '.waymark', 'journal');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'tx.1.0.json'), '');
    // Times well in the past, as a journal folder's are once its slots are made (ctime moves with
    // utimes itself: wait it out).
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(dir, old, old);
    const until = Date.now() + 2100;
    while (Date.now() < until) {
      // the folder's ctime is now in the past
    }
    assert.deepEqual(listJournal(root), ['tx.1.0.json']);
    let listed = 0;
    const readdir = nodeFs.readdirSync;
    mock.method(nodeFs, 'readdirSync', (...a: Parameters<typeof fs.readdirSync>) => {
      listed++;
      return readdir(...a);
    });
    assert.deepEqual(listJournal(root), ['tx.1.0.json']);
    assert.equal(listed, 0, 'a folder still at the stat of its listing is not listed again');
    // Another writer's intent, its folder's mtime set back to what it was: its ctime still moved.
    fs.writeFileSync(path.join(dir, 'intent.2.json'), '{}');
    fs.utimesSync(dir, old, old);
    assert.deepEqual(listJournal(root).sort(), ['intent.2.json', 'tx.1.0.json']);
    assert.equal(listed, 1);
    fs.renameSync(path.join(dir, 'intent.2.json'), path.join(dir, 'intent.3.json'));
    assert.deepEqual(listJournal(root).sort(), ['intent.3.json', 'tx.1.0.json']);
    // The folder replaced by another with the same names: another inode, listed.
    fs.renameSync(dir, `${dir}.old`);
    fs.mkdirSync(dir);
    assert.deepEqual(listJournal(root), []);
  });
});

/** Busy-waits until every time set before now is 2 s in the past (a folder's ctime moves with utimes itself). */
function letTimesSettle(): void {
  const until = Date.now() + 2100;
  while (Date.now() < until) {
    // waiting
  }
}

describe('the repository a write looks for leases in is found again once its .git changed', () => {
  afterEach(() => mock.restoreAll());

  test('a still .git answers as it did; a .git made below it, or its HEAD removed, changes the answer', () => {
    const repo = workspace({ 'ws/a.md': wf('a') }, { waymark: false });
    git(repo, 'init', '-q');
    const ws = path.join(repo, 'ws');
    const common = fs.realpathSync(path.join(repo, '.git'));
    letTimesSettle();
    assert.equal(findGitShared(ws)?.commonDir, common);
    const asked: string[] = [];
    const stat = nodeFs.statSync;
    mock.method(nodeFs, 'statSync', (p: fs.PathLike, o?: fs.StatSyncOptions) => {
      asked.push(String(p));
      return stat(p, o);
    });
    assert.deepEqual(findGitShared(ws), { top: repo, commonDir: common, base: path.join(common, 'waymark') });
    assert.deepEqual(asked, [path.join(ws, '.git'), path.join(repo, '.git')], 'the walk, and no look into the .git found again unchanged');
    mock.restoreAll();
    // A repository made in the workspace folder itself: found, not the one above.
    git(ws, 'init', '-q');
    assert.equal(findGitShared(ws)?.top, ws);
    fs.rmSync(path.join(ws, '.git'), { recursive: true });
    assert.equal(findGitShared(ws)?.top, repo);
    letTimesSettle();
    assert.equal(findGitShared(ws)?.top, repo);
    // HEAD removed: its folder's times move, the .git is looked into again: no repository.
    fs.renameSync(path.join(repo, '.git', 'HEAD'), path.join(repo, 'HEAD.moved'));
    assert.equal(findGitShared(ws), undefined);
  });
});

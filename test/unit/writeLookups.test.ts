// Issue 24 (session 38): the journal folder's listing, and the repository a write's leases live in,
// kept while the folders' stats show nothing made, removed or renamed in them since (their times
// already in the past). Each keeps the answer the full lookup gives: real files, real git.
import { test, describe, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { workspace } from './fileHelpers';
import { listJournal } from '../../src/core/store/intentJournal';
import { findGitShared } from '../../src/core/store/sharedDir';
import { git } from './gitHelpers';


function wf(id: string): string {
  return `---\nworkflow: ${id}\nstatus: in_progress\nsteps: [one, two, three]\nstepsCompleted: []\ncurrentStep: one\nscope: small\n---\n# ${id}\n`;
}

describe('the journal folder is listed again once an entry was made, removed or renamed in it', () => {
  afterEach(() => mock.restoreAll());

  test('a still folder is stat-ed, not listed; a file made in it (even with its times set back) is seen', () => {
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

// A change's locks are released with their names' removal on the thread pool (HeldLock.releaseSoon):
// this process's next acquire of the same lock waits for that removal, never for the retry delay of a
// lock held by another, and never breaks it; a lock taken by another since is left where it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { workspace } from './fileHelpers';
import { acquireFileLock } from '../../src/core/store/fileLock';

test('released soon, then taken again at once by this process: taken, nothing broken, and gone once released', async () => {
  const root = workspace({ 'a.md': 'x' });
  const file = path.join(root, 'a.md');
  for (let i = 0; i < 50; i++) {
    const lock = await acquireFileLock(file, { root, waitMs: 100 });
    assert.deepEqual(lock.broken, []);
    lock.assertHeld();
    lock.releaseSoon();
    lock.releaseSoon(); // twice: nothing more
  }
  const last = await acquireFileLock(file, { root, waitMs: 100 });
  last.release();
  assert.equal(fs.existsSync(last.path), false);
});

test('released soon after another process took its name (a breaker): the other holder keeps its lock', async () => {
  const root = workspace({ 'a.md': 'x' });
  const lock = await acquireFileLock(path.join(root, 'a.md'), { root });
  const bytes = fs.readFileSync(lock.path);
  fs.renameSync(lock.path, `${lock.path}.aside`);
  fs.writeFileSync(lock.path, bytes);
  lock.releaseSoon();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(fs.readFileSync(lock.path), bytes, 'the other holder keeps its lock');
});

test('a write answered in this process leaves no lock name once its removal ran', async () => {
  const root = workspace({ 'a.md': 'x' });
  const lock = await acquireFileLock(path.join(root, 'a.md'), { root });
  lock.releaseSoon();
  const again = await acquireFileLock(path.join(root, 'a.md'), { root, waitMs: 50 });
  again.releaseSoon();
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(fs.readdirSync(path.dirname(lock.path)).filter((n) => n.endsWith('.lock')), []);
});

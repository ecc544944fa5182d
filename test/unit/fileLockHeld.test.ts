// A held lock knows it is still held by its open file, not by reading its record back: a lock
// moved aside by a breaker and taken again by another process (a new file, whatever its bytes),
// or rewritten in place with another token, is no longer ours; assertHeld refuses and release
// leaves the other holder's lock where it is. Real lock files in a temp workspace.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { workspace } from './fileHelpers';
import { acquireFileLock } from '../../src/core/store/fileLock';
import { WaymarkError } from '../../src/core/errors';

describe('a held lock', () => {
  test('is held while its file is in place, and released', async () => {
    const root = workspace({ 'a.md': 'x' });
    const lock = await acquireFileLock(path.join(root, 'a.md'), { root });
    lock.assertHeld();
    lock.release();
    assert.equal(fs.existsSync(lock.path), false);
    lock.release(); // twice: nothing more
  });

  test('taken by another after a breaker moved it aside (the same bytes) is not ours: refused, and left in place', async () => {
    const root = workspace({ 'a.md': 'x' });
    const lock = await acquireFileLock(path.join(root, 'a.md'), { root });
    const bytes = fs.readFileSync(lock.path);
    fs.renameSync(lock.path, `${lock.path}.aside`);
    fs.writeFileSync(lock.path, bytes); // another file, byte for byte the record of ours
    assert.throws(() => lock.assertHeld(), (e: unknown) => WaymarkError.is(e, 'conflict'));
    lock.release();
    assert.deepEqual(fs.readFileSync(lock.path), bytes, 'the other holder keeps its lock');
  });

  test('moved aside and linked back by a breaker that changed its mind is still ours', async () => {
    const root = workspace({ 'a.md': 'x' });
    const lock = await acquireFileLock(path.join(root, 'a.md'), { root });
    fs.renameSync(lock.path, `${lock.path}.aside`);
    fs.linkSync(`${lock.path}.aside`, lock.path);
    fs.unlinkSync(`${lock.path}.aside`);
    lock.assertHeld();
    lock.release();
    assert.equal(fs.existsSync(lock.path), false);
  });

  test('rewritten in place with another token is not ours; with its own token (a new time) it still is', async () => {
    const root = workspace({ 'a.md': 'x' });
    const lock = await acquireFileLock(path.join(root, 'a.md'), { root });
    const info = JSON.parse(fs.readFileSync(lock.path, 'utf8'));
    fs.writeFileSync(lock.path, JSON.stringify({ ...info, time: new Date(0).toISOString() }));
    lock.assertHeld();
    fs.writeFileSync(lock.path, JSON.stringify({ ...info, host: 'elsewhere', token: 'theirs' }));
    assert.throws(() => lock.assertHeld(), (e: unknown) => WaymarkError.is(e, 'conflict'));
    lock.release();
    assert.equal(JSON.parse(fs.readFileSync(lock.path, 'utf8')).token, 'theirs', 'the other holder keeps its lock');
  });
});

// A held lock knows it is still held by its open file, not by reading its record back: a lock
// moved aside by a breaker and taken again by another process (a new file, whatever its bytes),
// or rewritten in place with another token, is no longer ours; assertHeld refuses and release
// leaves the other holder's lock where it is. Real lock files in a temp workspace.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
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

  // A lock is a process's slot file linked at the lock path (store/fileLock.ts): taking one again
  // makes no new file; a slot is never trusted by its name alone.
  const slotsIn = (root: string) => fs.readdirSync(path.join(root, '.waymark', 'locks')).filter((n) => n.endsWith('.lock-slot'));

  test('taken again in one process is the same slot file, linked and unlinked: no new file', async () => {
    const root = workspace({ 'a.md': 'x', 'b.md': 'y' });
    const a = await acquireFileLock(path.join(root, 'a.md'), { root });
    const first = fs.lstatSync(a.path);
    a.release();
    const b = await acquireFileLock(path.join(root, 'b.md'), { root });
    const second = fs.lstatSync(b.path);
    assert.equal(second.ino, first.ino, 'the same file holds the second lock');
    assert.equal(JSON.parse(fs.readFileSync(b.path, 'utf8')).file, fs.realpathSync(path.join(root, 'b.md')), 'its record is the second lock\'s');
    b.release();
    assert.equal(fs.existsSync(b.path), false);
    assert.equal(slotsIn(root).length, 1, 'one slot, kept for the next lock');
  });

  test('the lock folder is kept out of git: a held lock and a live slot are never committed with .waymark/', async () => {
    const root = workspace({ 'a.md': 'x' });
    spawnSync('git', ['init', '-q'], { cwd: root });
    const a = await acquireFileLock(path.join(root, 'a.md'), { root });
    const listed = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout;
    a.release();
    assert.doesNotMatch(listed, /locks\//, listed);
    assert.match(listed, /a\.md/);
  });

  test('a slot whose lock was taken over is never written again: the other holder keeps its bytes', async () => {
    const root = workspace({ 'a.md': 'x', 'b.md': 'y' });
    const a = await acquireFileLock(path.join(root, 'a.md'), { root });
    const slotIno = fs.lstatSync(a.path).ino;
    // A breaker moved it aside and linked it back after the holder judged it gone (a race): at release it is not ours.
    const aside = `${a.path}.aside`;
    fs.renameSync(a.path, aside);
    a.release();
    fs.linkSync(aside, a.path);
    const kept = fs.readFileSync(a.path);
    const b = await acquireFileLock(path.join(root, 'b.md'), { root });
    assert.notEqual(fs.lstatSync(b.path).ino, slotIno, 'a new slot');
    assert.deepEqual(fs.readFileSync(a.path), kept, 'the lock linked back is untouched');
    b.release();
  });

  test('a slot name replaced by another file is not used: the lock is never that file', async () => {
    const root = workspace({ 'a.md': 'x', 'b.md': 'y' });
    const a = await acquireFileLock(path.join(root, 'a.md'), { root });
    a.release();
    const [slot] = slotsIn(root);
    const p = path.join(root, '.waymark', 'locks', slot);
    fs.unlinkSync(p);
    fs.writeFileSync(p, 'planted');
    const planted = fs.lstatSync(p).ino;
    const b = await acquireFileLock(path.join(root, 'b.md'), { root });
    assert.notEqual(fs.lstatSync(b.path).ino, planted);
    assert.equal(JSON.parse(fs.readFileSync(b.path, 'utf8')).token, b.info.token);
    assert.equal(fs.readFileSync(p, 'utf8'), 'planted', 'the planted file is not written');
    b.assertHeld();
    b.release();
    assert.equal(fs.existsSync(b.path), false);
  });

  test("a killed process's slot is removed by the next process that makes one in the folder", async () => {
    const root = workspace({ 'a.md': 'x' });
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const dead = path.join(root, '.waymark', 'locks', `.${gone.stdout}.0.lock-slot`);
    fs.mkdirSync(path.dirname(dead), { recursive: true });
    fs.writeFileSync(dead, '{}');
    const a = await acquireFileLock(path.join(root, 'a.md'), { root });
    a.release();
    assert.equal(fs.existsSync(dead), false);
    assert.equal(slotsIn(root).length, 1, 'only this process\'s');
  });
});

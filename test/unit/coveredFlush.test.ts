// Covered flushes (engine/transaction.ts coverFlushes, session 40): a change whose intent is a
// journal slot flushes its history lines after the round that waits for its renames' folders, the
// intent kept live and the locks held until they are durable. Real files, real processes.
// Started with WAYMARK_COVERED_WORKER set, this bundle is the worker process instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createStateCore } from '../../src/core/index';
import { readHistory } from '../../src/core/store/history';
import { journalLeft, journalLeftSettled, workspace } from './fileHelpers';

const WORKER = process.env.WAYMARK_COVERED_WORKER;
const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\ncurrentStep: a\nstepsCompleted: []\nscope: small\n---\nbody\n';

if (WORKER) {
  // Writes once, then exits at once: no close, no settle (a face that calls process.exit after its answer).
  const [root, file] = JSON.parse(WORKER) as [string, string];
  const core = createStateCore({ roots: [root], actor: 'exiter', memory: false });
  core.setScope(file, 'large').then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(String((e as Error)?.stack ?? e));
      process.exit(1);
    },
  );
} else {
  const locksLeft = (root: string) => fs.readdirSync(path.join(root, '.waymark', 'locks')).filter((n) => n.endsWith('.lock'));

  test('a process that exits right after its answer makes its covered flushes at exit: the intent completed, the lock let go, the line there', () => {
    const self = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-covered-worker-')), 'worker.js');
    fs.copyFileSync(__filename, self);
    const root = workspace({ 'w.md': WF });
    const file = path.join(root, 'w.md');
    const r = spawnSync(process.execPath, [self], { env: { ...process.env, WAYMARK_COVERED_WORKER: JSON.stringify([root, file]) }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(fs.readFileSync(file, 'utf8'), /scope: large/);
    assert.deepEqual(readHistory(root, file).map((e) => e.operation), ['set-scope']);
    assert.deepEqual(journalLeft(root), [], 'its intent was completed at exit, not left to be recovered');
    assert.deepEqual(locksLeft(root), [], 'its lock was let go at exit, not left for the next writer to break');
    // The next writer finds nothing to recover and no lock to break.
    const warnings: string[] = [];
    const core = createStateCore({ roots: [root], actor: 'next', memory: false, logger: { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m: string) => warnings.push(m), error: (m: string | Error) => warnings.push(String(m)) } });
    return core.setScope(file, 'epic').then(async () => {
      await core.close();
      assert.deepEqual(warnings, []);
      assert.deepEqual(readHistory(root, file).map((e) => e.detail?.recovered ?? false), [false, false]);
    });
  });

  test('writes back to back in one process: each waits for the last one\'s covered flushes (its lock, its slot), one slot serves them all, every line out', async () => {
    const root = workspace({ 'w.md': WF, 'v.md': WF });
    const w = path.join(root, 'w.md');
    const v = path.join(root, 'v.md');
    const core = createStateCore({ roots: [root], actor: 'test', memory: false });
    try {
      const scopes = ['micro', 'small', 'medium', 'large', 'epic'] as const;
      // The same file again and again (its lock held until the last write's line is durable), then two files in turn.
      for (let i = 0; i < 10; i++) await core.setScope(w, scopes[i % 5]);
      await Promise.all([core.setScope(w, 'large'), core.setScope(v, 'large')]);
      for (let i = 0; i < 6; i++) await core.setScope(i % 2 ? v : w, scopes[i % 5]);
    } finally {
      await core.close();
    }
    assert.equal(readHistory(root, w).length + readHistory(root, v).length, 18);
    assert.deepEqual(await journalLeftSettled(root), []);
    assert.deepEqual(locksLeft(root), []);
    const journal = fs.readdirSync(path.join(root, '.waymark', 'journal'));
    assert.ok(journal.length <= 2, `slots: ${journal.join(', ')} (one, and a second for the two writes made at once)`);
  });
}

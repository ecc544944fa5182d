// Journal files a write cannot use are set aside by one rule, whatever kind of change left them
// (a one-file intent of store/intentJournal.ts or a transaction's of store/txJournal.ts): one its
// dead writer left half written never reached a rename and is removed; any other unreadable one
// is moved to `<name>.bad` for a person to look at.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { journalLeft, journalLeftSettled, setScopeOnce, workspace } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { lockPathFor } from '../../src/core/store/fileLock';
import { WaymarkError } from '../../src/core/errors';

const WF = '---\nworkflow: w\nstatus: in_progress\nscope: small\nsteps: [a, b]\ncurrentStep: a\nstepsCompleted: []\n---\n';
/** No process has this pid: the writer of a journal file named by it is dead. */
const DEAD = 2147483646;

describe('journal files a write cannot use', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
  });

  test('a one-file intent its dead writer left half written is removed, as a transaction\'s is; an unreadable whole one is moved aside', async () => {
    const root = workspace({ 'w.md': WF }, { prefix: 'wm-aside-' });
    roots.push(root);
    const file = path.join(root, 'w.md');
    const journal = path.join(root, '.waymark', 'journal');
    fs.mkdirSync(journal, { recursive: true });
    const prefix = path.basename(lockPathFor(file, { root }), '.lock');
    const whole = JSON.stringify({ id: 'abababababababab', pid: DEAD, host: 'h', time: '', root, writes: [{ file, sha256: 'x' }], entries: [] }) + '\n';
    // Killed while its intent was being written: a prefix without its final line break.
    fs.writeFileSync(path.join(journal, `${prefix}.${DEAD}.abababababababab.json`), whole.slice(0, 40));
    fs.writeFileSync(path.join(journal, `${prefix}.${DEAD}.cdcdcdcdcdcdcdcd.json`), '{"writes": not json}\n');
    await setScopeOnce(root, file, 'large');
    assert.match(fs.readFileSync(file, 'utf8'), /scope: large/);
    assert.deepEqual((await journalLeftSettled(root)).sort(), [`${prefix}.${DEAD}.cdcdcdcdcdcdcdcd.json.bad`]);
  });

  test('a journal folder linked outside the workspace: the write is refused naming the link, nothing there removed or renamed', async () => {
    const root = workspace({ 'w.md': WF }, { prefix: 'wm-aside-' });
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-aside-outside-')));
    roots.push(root, outside);
    const file = path.join(root, 'w.md');
    // Files a recovering writer would remove (half written), move aside (unreadable) or sweep (a dead writer's temp file).
    const planted = { [`tx.${DEAD}.abababababababab.json`]: '{"kind": "tx", "id"', [`tx.${DEAD}.cdcdcdcdcdcdcdcd.json`]: '{"kind": not json}\n', [`.tx.${DEAD}.efefefefefefefef.json.${DEAD}.0123abcd.waymark-tmp`]: 'x' };
    for (const [n, t] of Object.entries(planted)) fs.writeFileSync(path.join(outside, n), t);
    fs.symlinkSync(outside, path.join(root, '.waymark', 'journal'));
    const core = createStateCore({ roots: [root], actor: 'test' });
    try {
      await assert.rejects(core.setScope(file, 'large'), (e) => WaymarkError.is(e) && e.message.includes(path.join(root, '.waymark', 'journal')) && /outside the workspace/.test(e.message));
    } finally {
      core.dispose();
    }
    assert.deepEqual(Object.fromEntries(fs.readdirSync(outside).map((n) => [n, fs.readFileSync(path.join(outside, n), 'utf8')])), planted);
    assert.match(fs.readFileSync(file, 'utf8'), /scope: small/);
  });
});

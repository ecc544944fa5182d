// A write that records history lines writes its intent over a journal slot of its process
// (store/txJournal.ts): made once, written in place, marked done in place. A long-lived process
// makes and removes no journal file per write; a one-write process (the CLI) leaves none; a dead
// process's slot is read by the next writer: done, removed; torn (overwritten half), removed with
// nothing redone.
import { test, describe, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { journalLeft, journalLeftSettled, setScopeOnce, workspace } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { readHistory } from '../../src/core/store/history';
import { readSlotRecord } from '../../src/core/store/txJournal';

const WF = '---\nworkflow: w\nstatus: in_progress\nscope: small\nsteps: [a, b]\ncurrentStep: a\nstepsCompleted: []\n---\n';
/** No process has this pid: the writer of a journal file named by it is dead. */
const DEAD = 2147483646;
const CLI = path.resolve('dist/cli.js');
const SCOPES = ['large', 'medium', 'small', 'epic', 'micro'] as const;

describe('journal slots', () => {
  const roots: string[] = [];
  afterEach(() => {
    mock.restoreAll();
    for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
  });

  test('a long-lived process makes one journal file for its writes and removes none; each intent is marked done in place', async () => {
    const root = workspace({ 'w.md': WF, 'v.md': WF }, { prefix: 'wm-slot-' });
    roots.push(root);
    const journal = path.join(root, '.waymark', 'journal');
    const made: string[] = [];
    const removed: string[] = [];
    const openSync = nodeFs.openSync;
    const unlinkSync = nodeFs.unlinkSync;
    mock.method(nodeFs, 'openSync', (p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
      if (String(p).startsWith(journal + path.sep) && typeof flags === 'number' && flags & fs.constants.O_CREAT) made.push(String(p));
      return openSync(p, flags ?? 'r', mode);
    });
    mock.method(nodeFs, 'unlinkSync', (p: fs.PathLike) => {
      if (String(p).startsWith(journal + path.sep)) removed.push(String(p));
      return unlinkSync(p);
    });
    const core = createStateCore({ roots: [root], actor: 'test' });
    try {
      for (let i = 0; i < 10; i++) await core.setScope(path.join(root, i % 2 ? 'v.md' : 'w.md'), SCOPES[i % SCOPES.length]);
    } finally {
      await core.close();
    }
    mock.restoreAll();
    assert.equal(made.length, 1, `journal files made: ${made.join(', ')}`);
    assert.deepEqual(removed, []);
    assert.deepEqual(fs.readdirSync(journal), [path.basename(made[0])]);
    assert.equal(readSlotRecord(fs.readFileSync(made[0], 'utf8'))?.state, 'done');
    assert.deepEqual(await journalLeftSettled(root), [], 'every intent completed');
    assert.equal(readHistory(root, path.join(root, 'w.md')).length + readHistory(root, path.join(root, 'v.md')).length, 10);
  });

  test('a burst of writes whose deferred observers have not run: at most 16 slots, the others an intent file each, every one completed once they ran', async () => {
    const steps = Array.from({ length: 30 }, (_, i) => `s${i}`);
    const root = workspace({ 'w.md': `---\nworkflow: w\nstatus: in_progress\nsteps: [${steps.join(', ')}]\ncurrentStep: s0\nstepsCompleted: []\n---\n` }, { prefix: 'wm-slot-' });
    roots.push(root);
    const journal = path.join(root, '.waymark', 'journal');
    const core = createStateCore({ roots: [root], actor: 'test', memory: { consolidateAfterAnswer: { quietMs: 600_000, maxMs: 600_000, maxWrites: 1000 } } });
    try {
      for (let i = 0; i < 20; i++) await core.advance(path.join(root, 'w.md'));
      assert.equal(journalLeft(root).length, 20, 'every write answered; each intent stays until its observers ran');
      const slotFiles = () => fs.readdirSync(journal).filter((n) => readSlotRecord(fs.readFileSync(path.join(journal, n), 'utf8')));
      assert.equal(slotFiles().length, 16);
      await core.memory.settled();
      assert.deepEqual(await journalLeftSettled(root), []);
      assert.deepEqual(fs.readdirSync(journal).sort(), slotFiles().sort(), 'the intent files of their own are removed, the slots kept');
    } finally {
      await core.close();
    }
  });

  test('an intent names each file by the SHA-256 of its bytes before and after (taken from the parses, not hashed again)', async () => {
    // Non-ASCII text, CRLF line ends and a key the state hash leaves out: the hashes are of the bytes.
    const crlf = '---\r\nworkflow: w\r\nstatus: in_progress\r\nscope: small\r\nsteps: [a, b]\r\ncurrentStep: a\r\nstepsCompleted: []\r\nsession: s\r\n---\r\n# Café ☕ — ünïcödé 𝔘\r\n';
    const root = workspace({ 'w.md': WF.replace('---\n\n', '---\n') + '# Crème brûlée ☃\n', 'c.md': crlf }, { prefix: 'wm-slot-' });
    roots.push(root);
    const journal = path.join(root, '.waymark', 'journal');
    const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
    const core = createStateCore({ roots: [root], actor: 'test' });
    try {
      for (let i = 0; i < 6; i++) {
        const file = path.join(root, i % 2 ? 'c.md' : 'w.md');
        const before = fs.readFileSync(file);
        await core.setScope(file, SCOPES[i % SCOPES.length]);
        const after = fs.readFileSync(file);
        assert.notEqual(sha(before), sha(after));
        const [slot] = fs.readdirSync(journal);
        // Read as the record it was before it was marked done.
        const rec = readSlotRecord(fs.readFileSync(path.join(journal, slot), 'utf8').replace(/^WAYMARK-TX 1 done /, 'WAYMARK-TX 1 live '));
        assert.equal(rec?.state, 'live');
        const intent = JSON.parse((rec as { body: string }).body) as { writes: { file: string; before: string | null; after: string; text: string }[] };
        assert.equal(intent.writes.length, 1);
        assert.equal(intent.writes[0].before, sha(before), `before hash of ${file}`);
        assert.equal(intent.writes[0].after, sha(after), `after hash of ${file}`);
        assert.equal(sha(Buffer.from(intent.writes[0].text, 'utf8')), intent.writes[0].after);
      }
    } finally {
      core.dispose();
    }
  });

  test('a burst of writes is consolidated in batches of at most 8 writes, so their intents keep to the slots', async () => {
    const steps = Array.from({ length: 30 }, (_, i) => `s${i}`);
    const root = workspace({ 'w.md': `---\nworkflow: w\nstatus: in_progress\nsteps: [${steps.join(', ')}]\ncurrentStep: s0\nstepsCompleted: []\n---\n` }, { prefix: 'wm-slot-' });
    roots.push(root);
    const core = createStateCore({ roots: [root], actor: 'test', memory: { consolidateAfterAnswer: { quietMs: 600_000, maxMs: 600_000 } } });
    try {
      for (let i = 0; i < 20; i++) await core.advance(path.join(root, 'w.md'));
      // Two batches of 8 started without waiting for the (ten-minute) timers; the last 4 writes wait for theirs.
      for (let i = 0; i < 600 && journalLeft(root).length > 4; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(journalLeft(root).length, 4);
      await core.memory.settled();
      assert.deepEqual(await journalLeftSettled(root), []);
    } finally {
      await core.close();
    }
  });

  test('a CLI write leaves no journal file behind', () => {
    const root = workspace({ 'w.md': WF }, { prefix: 'wm-slot-' });
    roots.push(root);
    for (const scope of ['large', 'medium']) {
      const r = spawnSync(process.execPath, [CLI, 'scope', 'w.md', scope], { cwd: root, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    assert.deepEqual(fs.readdirSync(path.join(root, '.waymark', 'journal')), []);
    assert.match(fs.readFileSync(path.join(root, 'w.md'), 'utf8'), /scope: medium/);
  });

  test('a dead process\'s slots: a done one is removed, a torn one (overwritten half) removed with nothing redone', async () => {
    const root = workspace({ 'w.md': WF }, { prefix: 'wm-slot-' });
    roots.push(root);
    const file = path.join(root, 'w.md');
    const journal = path.join(root, '.waymark', 'journal');
    fs.mkdirSync(journal, { recursive: true });
    const body = JSON.stringify({ kind: 'tx', id: 'abababababababab', pid: DEAD, host: 'h', time: '', root, operation: 'x', writes: [{ file, target: file, before: null, after: 'f'.repeat(64), text: 'planted\n' }], entries: [null] }) + '\n';
    const header = (state: string, len: number) => `WAYMARK-TX 1 ${state} ${String(len).padStart(10, '0')} ${'0'.repeat(64)}\n`;
    fs.writeFileSync(path.join(journal, `tx.${DEAD}.0.json`), header('done', body.length) + body);
    // Its header promises more bytes than are there (and its hash is not theirs): written half.
    fs.writeFileSync(path.join(journal, `tx.${DEAD}.1.json`), header('live', body.length + 10) + body);
    await setScopeOnce(root, file, 'large');
    assert.match(fs.readFileSync(file, 'utf8'), /scope: large/);
    assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /planted/);
    assert.deepEqual(await journalLeftSettled(root), []);
    assert.deepEqual(fs.readdirSync(journal).filter((n) => n.includes(String(DEAD))), [], 'both removed');
  });

  test('a listing passes over this process\'s own journal files by folder and name: an orphan of the same name in another workspace is still replayed', async () => {
    const a = workspace({ 'w.md': WF }, { prefix: 'wm-slot-' });
    const b = workspace({ 'w.md': WF }, { prefix: 'wm-slot-' });
    roots.push(a, b);
    const core = createStateCore({ roots: [a, b], actor: 'test' });
    try {
      // This process's slot in a's journal (its own, kept open).
      await core.setScope(path.join(a, 'w.md'), 'large');
      const own = fs.readdirSync(path.join(a, '.waymark', 'journal'));
      assert.equal(own.length, 1);
      // A CLI killed after its rename in b leaves an intent there (no history line yet) ...
      const killed = spawnSync(process.execPath, [CLI, 'scope', 'w.md', 'medium'], { cwd: b, encoding: 'utf8', env: { ...process.env, WAYMARK_ACTOR: 'test', WAYMARK_TX_DIE_AFTER_RENAME: '1' } });
      assert.equal(killed.signal, 'SIGKILL');
      const bj = path.join(b, '.waymark', 'journal');
      const left = fs.readdirSync(bj);
      assert.equal(left.length, 1);
      assert.deepEqual(readHistory(b, path.join(b, 'w.md')), []);
      // ... under the name of this process's own journal file in a (a dead process of this pid's, say).
      fs.renameSync(path.join(bj, left[0]), path.join(bj, own[0]));
      await core.setScope(path.join(b, 'w.md'), 'small');
      const lines = readHistory(b, path.join(b, 'w.md'));
      assert.equal(lines.length, 2, 'the killed change\'s line is replayed, then the new one');
      assert.equal((lines[0].detail as { recovered?: boolean } | undefined)?.recovered, true);
      assert.match(fs.readFileSync(path.join(b, 'w.md'), 'utf8'), /scope: small/);
      assert.deepEqual(await journalLeftSettled(b), []);
      // This process's own slot in a was passed over, not judged an orphan.
      await core.setScope(path.join(a, 'w.md'), 'medium');
      assert.deepEqual(fs.readdirSync(path.join(a, '.waymark', 'journal')), own);
      assert.equal(readHistory(a, path.join(a, 'w.md')).length, 2);
    } finally {
      core.dispose();
    }
  });
});

// The multi-file transaction engine: a refused plan writes nothing; bytes that are wrong once on
// disk are undone in every file; a file changed under a change makes it a conflict with the
// files already renamed put back; concurrent writers of one ledger never lose a change.
import { test, describe, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { parse as parseYaml } from 'yaml';
import { journalLeft, journalLeftSettled, workspace } from './fileHelpers';
import { observersSettled, runTransaction, type TxPlanner } from '../../src/core/engine/transaction';
import { readHistory } from '../../src/core/store/history';
import { nativeRealPathOnce, withRealPathScope } from '../../src/core/store/safePath';
import { WaymarkError } from '../../src/core/errors';
import { sha256 } from '../../src/core/model/hash';
import { readSlotRecord } from '../../src/core/store/txJournal';
import * as os from 'node:os';

const CLI = path.resolve('dist/cli.js');

function twoFiles() {
  const root = workspace({ 'a.txt': 'a old\n', 'b.txt': 'b old\n' }, { prefix: 'wm-tx-' });
  return { root, a: path.join(root, 'a.txt'), b: path.join(root, 'b.txt') };
}


function planner(a: string, b: string, check: (file: string, text: string) => string | undefined): TxPlanner<number> {
  return {
    operation: 'test-write',
    files: [b, a],
    plan: () => ({
      writes: [
        { file: a, text: 'a new\n', entry: { to: { v: 1 } }, check: (t) => check(a, t) },
        { file: b, text: 'b new\n', entry: { to: { v: 1 } }, check: (t) => check(b, t) },
      ],
      result: (entries) => entries.length,
    }),
  };
}

const tx = (root: string) => ({ root, now: () => new Date('2026-01-01T00:00:00Z'), actor: 'test' });

describe('runTransaction', () => {
  test('both files written, one history line each, the intent completed', async () => {
    const { root, a, b } = twoFiles();
    assert.equal(await runTransaction(tx(root), planner(a, b, () => undefined)), 2);
    assert.deepEqual([fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')], ['a new\n', 'b new\n']);
    assert.deepEqual([readHistory(root, a).length, readHistory(root, b).length], [1, 1]);
    assert.deepEqual(await journalLeftSettled(root), []);
  });

  test('the answer is told the stat key each file landed with when that stat proved it (no check of its bytes), and only then', async () => {
    const { root, a, b } = twoFiles();
    const keys = await runTransaction(tx(root), {
      operation: 'test-write',
      files: [a, b],
      plan: () => ({
        writes: [
          { file: a, text: 'a new\n', entry: { to: { v: 1 } } },
          { file: b, text: 'b new\n', entry: { to: { v: 1 } }, check: () => undefined },
        ],
        result: (_entries, landed) => landed,
      }),
    });
    const st = fs.statSync(a);
    assert.deepEqual(keys.get(a), { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
    assert.equal(keys.has(b), false, 'a write whose bytes are checked on disk is read back, not proved by its stat');
  });

  test('a folder swapped for a link leading outside after the locks (its real path resolved before them): refused, nothing written outside', async () => {
    const root = workspace({ 'sub/a.txt': 'a old\n' }, { prefix: 'wm-tx-' });
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-tx-outside-')));
    fs.writeFileSync(path.join(outside, 'a.txt'), 'a old\n');
    const a = path.join(root, 'sub', 'a.txt');
    const swap: TxPlanner<number> = {
      operation: 'test-write',
      files: [a],
      plan: () => {
        // Under the lock, after every check before it resolved sub/: sub becomes a link outside.
        fs.renameSync(path.join(root, 'sub'), path.join(root, 'sub.orig'));
        fs.symlinkSync(outside, path.join(root, 'sub'));
        return { writes: [{ file: a, text: 'a new\n', entry: { to: { v: 1 } } }], result: (entries) => entries.length };
      },
    };
    try {
      await assert.rejects(runTransaction(tx(root), swap), (e) => WaymarkError.is(e) && /outside|link|replaced/.test(e.message));
      assert.deepEqual(fs.readdirSync(outside), ['a.txt'], 'no temp file or anything else created outside');
      assert.equal(fs.readFileSync(path.join(outside, 'a.txt'), 'utf8'), 'a old\n');
      assert.equal(fs.readFileSync(path.join(root, 'sub.orig', 'a.txt'), 'utf8'), 'a old\n');
      assert.deepEqual(readHistory(root, a), []);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test('a folder swapped for a link leading outside after its real path was resolved earlier in the same scope: refused, nothing written outside', async () => {
    const root = workspace({ 'sub/a.txt': 'a old\n' }, { prefix: 'wm-tx-' });
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-tx-outside-')));
    fs.writeFileSync(path.join(outside, 'a.txt'), 'a old\n');
    const a = path.join(root, 'sub', 'a.txt');
    try {
      // A face's checks before the change name the file (the scope keeps names); then sub/
      // becomes a link outside before the change names its files for their locks.
      await withRealPathScope(async () => {
        assert.equal(nativeRealPathOnce(a), a);
        fs.renameSync(path.join(root, 'sub'), path.join(root, 'sub.orig'));
        fs.symlinkSync(outside, path.join(root, 'sub'));
        await assert.rejects(runTransaction(tx(root), { operation: 'test-write', files: [a], plan: () => ({ writes: [{ file: a, text: 'a new\n', entry: { to: { v: 1 } } }], result: (entries) => entries.length }) }), (e) => WaymarkError.is(e) && /outside|link|replaced/.test(e.message));
      });
      assert.deepEqual(fs.readdirSync(outside), ['a.txt'], 'no temp file or anything else created outside');
      assert.equal(fs.readFileSync(path.join(outside, 'a.txt'), 'utf8'), 'a old\n');
      assert.deepEqual(readHistory(root, a), []);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test('a write its check refuses: nothing written, nothing recorded', async () => {
    const { root, a, b } = twoFiles();
    await assert.rejects(runTransaction(tx(root), planner(a, b, (f) => (f === b ? 'it would not parse.' : undefined))), (e) => WaymarkError.is(e, 'invalid') && /b\.txt.*would not parse/.test(e.message));
    assert.deepEqual([fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')], ['a old\n', 'b old\n']);
    assert.deepEqual([readHistory(root, a).length, readHistory(root, b).length], [0, 0]);
    assert.deepEqual(await journalLeftSettled(root), []);
  });

  test('bytes found wrong after the renames are undone in every file, with an error and no history', async () => {
    const { root, a, b } = twoFiles();
    let calls = 0;
    // Valid when planned, invalid when re-read from disk (the re-parse after the write).
    const check = (f: string) => (f === b && ++calls > 1 ? 'it does not parse any more.' : undefined);
    await assert.rejects(runTransaction(tx(root), planner(a, b, check)), (e) => WaymarkError.is(e, 'invalid') && /undone/.test(e.message));
    assert.deepEqual([fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')], ['a old\n', 'b old\n']);
    assert.deepEqual([readHistory(root, a).length, readHistory(root, b).length], [0, 0]);
    assert.deepEqual(await journalLeftSettled(root), []);
  });

  test('a file changed by someone else before its rename: a conflict, the file renamed before put back', async () => {
    const { root, a, b } = twoFiles();
    // The validation step runs before the renames: an editor saving b.txt then.
    const check = (f: string) => {
      if (f === b) fs.writeFileSync(b, 'b edited by hand\n');
      return undefined;
    };
    await assert.rejects(runTransaction(tx(root), planner(a, b, check)), (e) => WaymarkError.is(e, 'conflict'));
    assert.deepEqual([fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')], ['a old\n', 'b edited by hand\n']);
    assert.deepEqual(await journalLeftSettled(root), []);
  });

  test('an append-only file (TxWrite.append) added to before its turn: a conflict, its bytes kept, the file renamed before put back', async () => {
    const { root, a, b } = twoFiles();
    const appender: TxPlanner<number> = {
      operation: 'test-write',
      files: [a, b],
      plan: () => ({
        writes: [
          { file: a, text: 'a new\n', entry: { to: { v: 1 } } },
          // b's check runs after it was read and before the writes: another writer adds a line to b then.
          { file: b, text: 'b old\nmine\n', entry: null, append: true, check: () => (fs.appendFileSync(b, 'theirs\n'), undefined) },
        ],
        result: (entries) => entries.length,
      }),
    };
    const ino = fs.statSync(b).ino;
    await assert.rejects(runTransaction(tx(root), appender), (e) => WaymarkError.is(e, 'conflict'));
    assert.deepEqual([fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')], ['a old\n', 'b old\ntheirs\n']);
    assert.equal(fs.statSync(b).ino, ino);
    assert.deepEqual(await journalLeftSettled(root), []);
  });

  test('an append-only file is added to in place (same inode); new bytes that do not extend it replace it as usual', async () => {
    const { root, a, b } = twoFiles();
    const ino = fs.statSync(b).ino;
    const write = (text: string): TxPlanner<number> => ({ operation: 'test-write', files: [a, b], plan: () => ({ writes: [{ file: a, text: `a ${text}`, entry: { to: { v: 1 } } }, { file: b, text, entry: null, append: true }], result: (e) => e.length }) });
    assert.equal(await runTransaction(tx(root), write('b old\nmore\n')), 1);
    assert.equal(fs.readFileSync(b, 'utf8'), 'b old\nmore\n');
    assert.equal(fs.statSync(b).ino, ino, 'added to in place');
    assert.equal(await runTransaction(tx(root), write('b rewritten\n')), 1);
    assert.equal(fs.readFileSync(b, 'utf8'), 'b rewritten\n');
    assert.notEqual(fs.statSync(b).ino, ino, 'replaced');
    assert.deepEqual(await journalLeftSettled(root), []);
  });

  test('an append whose planner hands the bytes it adds (TxWrite.added) is added in place with them; bytes of another length than the text adds are refused before anything is written', async () => {
    const { root, a, b } = twoFiles();
    const ino = fs.statSync(b).ino;
    const write = (text: string, added: string): TxPlanner<number> => ({ operation: 'test-write', files: [a, b], plan: () => ({ writes: [{ file: a, text: `a ${text}`, entry: { to: { v: 1 } } }, { file: b, text, entry: null, append: true, added }], result: (e) => e.length }) });
    assert.equal(await runTransaction(tx(root), write('b old\nmore é\n', 'more é\n')), 1);
    assert.equal(fs.readFileSync(b, 'utf8'), 'b old\nmore é\n');
    assert.equal(fs.statSync(b).ino, ino, 'added to in place');
    // The intent recorded what was handed: the bytes added and where they start.
    const slot = fs.readdirSync(path.join(root, '.waymark', 'journal')).find((n) => n.startsWith('tx.'))!;
    const rec = readSlotRecord(fs.readFileSync(path.join(root, '.waymark', 'journal', slot), 'utf8').replace(/^WAYMARK-TX 1 done /, 'WAYMARK-TX 1 live '));
    const w = (JSON.parse((rec as { body: string }).body) as { writes: { file: string; text: string; append?: number; after: string }[] }).writes.find((x) => x.file === b)!;
    assert.deepEqual([w.text, w.append, w.after], ['more é\n', 'b old\n'.length, sha256('b old\nmore é\n')]);
    // Bytes of another length than the text adds, or none: a bug of the planner, refused, nothing written.
    for (const [text, added] of [['b old\nmore é\nnext\n', 'ext\n'], ['b old\nmore é\nnext\n', 'a next\n'], ['b old\nmore é\nnext\n', '']]) {
      await assert.rejects(runTransaction(tx(root), write(text, added)), /not the end of its new text/);
      assert.deepEqual([fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')], ['a b old\nmore é\n', 'b old\nmore é\n']);
    }
    assert.equal(readHistory(root, a).length, 1);
  });

  test('a change completing its intent on the thread pool (TxContext.completeLater): the next change of the process starts only once that intent is gone', async () => {
    const { root, a, b } = twoFiles();
    // The removal on the pool held back 300 ms, as a busy journal may hold it.
    const unlink = nodeFs.unlink;
    mock.method(nodeFs, 'unlink', (p: fs.PathLike, cb: fs.NoParamCallback) => setTimeout(() => unlink(p, cb), 300));
    try {
      const noLine = (file: string, text: string): TxPlanner<string[]> => ({ operation: 'test-write', files: [file], plan: () => ({ writes: [{ file, text, entry: null }], result: () => [] }) });
      await runTransaction({ ...tx(root), completeLater: true }, noLine(a, 'a new\n'));
      // Started at once: by the time it reads its files, the first change's intent file is gone.
      let seen: string[] | undefined;
      await runTransaction(tx(root), { operation: 'test-write', files: [b], plan: () => ((seen = journalLeft(root)), { writes: [{ file: b, text: 'b new\n', entry: null }], result: () => [] }) });
      assert.deepEqual(seen, []);
      await observersSettled();
      assert.deepEqual([fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')], ['a new\n', 'b new\n']);
      assert.deepEqual(await journalLeftSettled(root), []);
    } finally {
      mock.restoreAll();
    }
  });

  test('a journal file naming a file outside the workspace is never replayed: moved aside, nothing written there', async () => {
    const { root, a, b } = twoFiles();
    const outsideDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-tx-outside-'));
    const outside = path.join(outsideDir, 'victim.txt');
    fs.writeFileSync(outside, 'precious\n');
    const w = (file: string, before: string, text: string) => ({ file, target: file, before: sha256(before), after: sha256(text), text });
    const planted = {
      kind: 'tx', id: 'deadbeefdeadbeef', pid: 2147483646, host: os.hostname(), time: new Date().toISOString(), root, operation: 'story-set-status',
      writes: [w(a, 'a new\n', 'a planted\n'), w(outside, 'precious\n', 'owned\n')],
      entries: [{ time: '', operation: 'x', file: a }, { time: '', operation: 'x', file: outside }],
    };
    fs.mkdirSync(path.join(root, '.waymark', 'journal'), { recursive: true });
    // a.txt already holds the planted "after" of the first write: a replay would write the second.
    fs.writeFileSync(a, 'a planted\n');
    fs.writeFileSync(path.join(root, '.waymark', 'journal', `tx.2147483646.${planted.id}.json`), JSON.stringify(planted));
    const p: TxPlanner<number> = { operation: 'test-write', files: [a, b], plan: () => ({ writes: [{ file: b, text: 'b new\n', entry: {} }], result: (e) => e.length }) };
    assert.equal(await runTransaction(tx(root), p), 1);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'precious\n');
    assert.deepEqual(await journalLeftSettled(root), [`tx.2147483646.${planted.id}.json.bad`]);
    assert.equal(readHistory(root, a).length, 0);
  });

  test('a change whose history line is out is never redone: a file changed back since keeps the later bytes (a done mark lost with a power loss)', async () => {
    const { root, a, b } = twoFiles();
    const dir = path.join(root, '.waymark', 'journal');
    let live = '';
    const first: TxPlanner<number> = {
      operation: 'test-write',
      files: [a, b],
      plan: () => ({
        writes: [{ file: a, text: 'a new\n', entry: { to: { v: 1 } } }, { file: b, text: 'b new\n', entry: { to: { v: 1 } } }],
        result: (e) => e.length,
        // Every file renamed and every line out: the journal slot holds the change's live record.
        landed: () => {
          live = fs.readFileSync(path.join(dir, fs.readdirSync(dir).find((n) => n.startsWith('tx.'))!), 'utf8');
        },
      }),
    };
    assert.equal(await runTransaction(tx(root), first), 2);
    // A later change puts a.txt back to its old bytes.
    assert.equal(await runTransaction(tx(root), { operation: 'test-write', files: [a], plan: () => ({ writes: [{ file: a, text: 'a old\n', entry: { to: { v: 2 } } }], result: (e) => e.length }) }), 1);
    // The first change's intent as a power loss may leave it (its completion never reached the disk), its writer gone.
    const rec = readSlotRecord(live);
    assert.equal(rec?.state, 'live');
    const intent = { ...(JSON.parse(rec.state === 'live' ? rec.body : '{}') as object), pid: 2147483646, start: undefined };
    fs.writeFileSync(path.join(dir, 'tx.2147483646.abcdefabcdefabcd.json'), JSON.stringify(intent) + '\n');
    // The next writer of b.txt finds it: its lines are out, so it landed; a.txt at its old bytes was changed back since.
    assert.equal(await runTransaction(tx(root), { operation: 'test-write', files: [b], plan: () => ({ writes: [{ file: b, text: 'b newer\n', entry: { to: { v: 3 } } }], result: (e) => e.length }) }), 1);
    assert.equal(fs.readFileSync(a, 'utf8'), 'a old\n', 'the later change of a.txt is kept, not undone');
    assert.equal(fs.readFileSync(b, 'utf8'), 'b newer\n');
    assert.deepEqual(readHistory(root, a).map((e) => e.to), [{ v: 1 }, { v: 2 }], 'no line appended twice');
    assert.deepEqual(readHistory(root, b).map((e) => e.to), [{ v: 1 }, { v: 3 }]);
    assert.deepEqual(await journalLeftSettled(root), []);
  });

  test('a journal file recording its line in the history of a file outside the workspace is moved aside, never replayed', async () => {
    const { root, a, b } = twoFiles();
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-tx-outside-')), 'victim.md');
    const planted = {
      kind: 'tx', id: 'feedfacefeedface', pid: 2147483646, host: os.hostname(), time: new Date().toISOString(), root, operation: 'gate-pass',
      writes: [{ file: a, target: a, before: sha256('a old\n'), after: sha256('a planted\n'), text: 'a planted\n' }],
      entries: [{ time: '', operation: 'gate-pass', file: outside }],
    };
    fs.mkdirSync(path.join(root, '.waymark', 'journal'), { recursive: true });
    fs.writeFileSync(a, 'a planted\n');
    fs.writeFileSync(path.join(root, '.waymark', 'journal', `tx.2147483646.${planted.id}.json`), JSON.stringify(planted));
    const p: TxPlanner<number> = { operation: 'test-write', files: [a, b], plan: () => ({ writes: [{ file: b, text: 'b new\n', entry: {} }], result: (e) => e.length }) };
    assert.equal(await runTransaction(tx(root), p), 1);
    assert.equal(fs.existsSync(outside), false);
    assert.deepEqual(await journalLeftSettled(root), [`tx.2147483646.${planted.id}.json.bad`]);
  });

  test('an intent its dead writer left half written is removed (nothing happened); an unreadable whole one is moved aside', async () => {
    const { root, a, b } = twoFiles();
    const dir = path.join(root, '.waymark', 'journal');
    fs.mkdirSync(dir, { recursive: true });
    const whole = JSON.stringify({ kind: 'tx', id: 'abababababababab', pid: 2147483646, host: os.hostname(), time: new Date().toISOString(), root, operation: 'x', writes: [{ file: a, target: a, before: sha256('a old\n'), after: sha256('a gone\n'), text: 'a gone\n' }], entries: [] }) + '\n';
    // Killed in the middle of writing its intent, in place: a prefix without its final line break.
    fs.writeFileSync(path.join(dir, 'tx.2147483646.abababababababab.json'), whole.slice(0, 57));
    fs.writeFileSync(path.join(dir, 'tx.2147483646.cdcdcdcdcdcdcdcd.json'), '{"kind": not json}\n');
    const p: TxPlanner<number> = { operation: 'test-write', files: [a, b], plan: () => ({ writes: [{ file: b, text: 'b new\n', entry: {} }], result: (e) => e.length }) };
    assert.equal(await runTransaction(tx(root), p), 1);
    assert.equal(fs.readFileSync(a, 'utf8'), 'a old\n');
    assert.deepEqual(await journalLeftSettled(root), ['tx.2147483646.cdcdcdcdcdcdcdcd.json.bad']);
  });

  test('a writer of one file finds a dead change over it and another file: both locked, the change completed, then its own write', async () => {
    // The first attempt locks only the writer's own file and lists the journal under that lock;
    // the dead change touches b too, so the locks are let go and both taken, in one order.
    const { root, a, b } = twoFiles();
    const dir = path.join(root, '.waymark', 'journal');
    fs.mkdirSync(dir, { recursive: true });
    const w = (file: string, before: string, text: string) => ({ file, target: file, before: sha256(before), after: sha256(text), text });
    const dead = {
      kind: 'tx', id: 'efefefefefefefef', pid: 2147483646, host: os.hostname(), time: new Date().toISOString(), root, operation: 'test-write',
      writes: [w(a, 'a old\n', 'a dead\n'), w(b, 'b old\n', 'b dead\n')],
      entries: [{ time: '', operation: 'test-write', file: a }, { time: '', operation: 'test-write', file: b }],
    };
    // Killed between its two renames: a renamed, b not.
    fs.writeFileSync(a, 'a dead\n');
    fs.writeFileSync(path.join(dir, `tx.2147483646.${dead.id}.json`), JSON.stringify(dead) + '\n');
    const p: TxPlanner<number> = { operation: 'test-write', files: [a], plan: (texts) => ({ writes: [{ file: a, text: `${texts.get(a)}a mine\n`, entry: {} }], result: (e) => e.length }) };
    assert.equal(await runTransaction(tx(root), p), 1);
    assert.equal(fs.readFileSync(b, 'utf8'), 'b dead\n', 'the dead change completed in the file the writer did not name');
    assert.equal(fs.readFileSync(a, 'utf8'), 'a dead\na mine\n', 'the writer planned on the completed bytes');
    assert.deepEqual(await journalLeftSettled(root), []);
    assert.deepEqual(readHistory(root, b).map((h) => h.intent), [`${dead.id}:1`]);
    assert.deepEqual(readHistory(root, a).map((h) => h.intent?.startsWith(dead.id) ? h.intent : 'own'), [`${dead.id}:0`, 'own']);
  });

  test('a write recorded in another file\'s history (historyFile), and one recorded nowhere (entry: null)', async () => {
    const { root, a, b } = twoFiles();
    const p: TxPlanner<number> = {
      operation: 'test-write',
      files: [a, b],
      plan: () => ({ writes: [{ file: b, text: 'b new\n', entry: { detail: { k: 1 } }, historyFile: a }, { file: a, text: 'a new\n', entry: null }], result: (e) => e.length }),
    };
    assert.equal(await runTransaction(tx(root), p), 1);
    assert.deepEqual([fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')], ['a new\n', 'b new\n']);
    assert.deepEqual(readHistory(root, a).map((e) => e.detail), [{ k: 1 }]);
    assert.equal(readHistory(root, b).length, 0);
    assert.deepEqual(await journalLeftSettled(root), []);
  });

  test('a planned write to a file the planner did not read is a bug, refused before anything is written', async () => {
    const { root, a, b } = twoFiles();
    const p: TxPlanner<number> = { operation: 'test-write', files: [a], plan: () => ({ writes: [{ file: b, text: 'x', entry: {} }], result: () => 0 }) };
    await assert.rejects(runTransaction(tx(root), p), /did not read/);
    assert.equal(fs.readFileSync(b, 'utf8'), 'b old\n');
  });
});

describe('concurrent story writes on one ledger', () => {
  test('six processes set six stories at once: every value lands, one history line per file per change', async () => {
    const impl = '_bmad-output/implementation-artifacts';
    const keys = [1, 2, 3, 4, 5, 6].map((n) => `1-${n}-story-${n}`);
    const files: Record<string, string> = {
      [`${impl}/sprint-status.yaml`]: `last_updated: 2025-10-20\n\ndevelopment_status:\n  epic-1: in-progress\n${keys.map((k) => `  ${k}: ready-for-dev\n`).join('')}`,
    };
    keys.forEach((k, i) => (files[`${impl}/${k}.md`] = `# Story 1.${i + 1}: S\n\nStatus: ready-for-dev\n\n## Tasks / Subtasks\n\n- [ ] Task 1: a\n`));
    const root = workspace(files, { prefix: 'wm-tx-conc-' });
    const codes = await Promise.all(keys.map((k) => new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, [CLI, 'story', 'set-status', k, 'in-progress', '--root', root], { stdio: 'ignore' });
      c.on('exit', (code) => resolve(code));
    })));
    assert.deepEqual(codes, keys.map(() => 0));
    const ledgerFile = path.join(root, impl, 'sprint-status.yaml');
    const ds = (parseYaml(fs.readFileSync(ledgerFile, 'utf8')) as { development_status: Record<string, string> }).development_status;
    for (const k of keys) assert.equal(ds[k], 'in-progress');
    assert.equal(readHistory(root, ledgerFile).length, keys.length);
    for (const k of keys) assert.equal(readHistory(root, path.join(root, impl, `${k}.md`)).length, 1);
  });
});

// A folder on the path of an append (`.waymark/history/`, `.waymark/events/`) swapped for a link
// leading outside the workspace between the real-path check and the open: the descriptor is
// proved to be the file checked (safePath.ts openInsideSync), so the append is refused and no
// byte lands outside. The swap is made by the test right before the open (fs.openSync wrapped),
// with real files and a real symbolic link.
import { test, describe, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { workspace } from './fileHelpers';
import { runTransaction, type TxPlanner } from '../../src/core/engine/transaction';
import { appendHistory, readHistory } from '../../src/core/store/history';
import { appendEvent } from '../../src/core/protocol/events';
import { safeAppend } from '../../src/core/store/safePath';
import { WaymarkError } from '../../src/core/errors';

const tx = (root: string) => ({ root, now: () => new Date('2026-01-01T00:00:00Z'), actor: 'test' });

function outsideDir(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-swap-outside-')));
}

/** Every file under `dir` with its bytes (relative path → text). */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/**
 * The next open for appending of a file under `dir` first moves `dir` aside (to `<dir>.orig`)
 * and puts a link to `outside` in its place, with a copy of its files there: what another process
 * could do between Waymark's check of the path and its open.
 */
function swapBeforeAppendOpen(dir: string, outside: string): { swapped: () => boolean } {
  const openSync = nodeFs.openSync;
  let done = false;
  mock.method(nodeFs, 'openSync', (p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
    if (!done && typeof p === 'string' && typeof flags === 'number' && (flags & fs.constants.O_APPEND) && p.startsWith(dir + path.sep)) {
      done = true;
      if (fs.existsSync(dir)) {
        fs.cpSync(dir, outside, { recursive: true });
        fs.renameSync(dir, `${dir}.orig`);
      }
      fs.symlinkSync(outside, dir);
    }
    return openSync(p, flags ?? 'r', mode);
  });
  return { swapped: () => done };
}

const refused = (e: unknown) => WaymarkError.is(e) && /replaced|outside|link/.test(e.message) && !/at .*\.js:\d+/.test(e.message);

describe('an append whose folder is swapped for a link after its check', () => {
  const cleanups: string[] = [];
  afterEach(() => {
    mock.restoreAll();
    for (const d of cleanups.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  test('a transaction\'s history line (the history file exists): refused, not a byte outside', async () => {
    const root = workspace({ 'a.txt': 'a0\n' }, { prefix: 'wm-swap-' });
    const outside = outsideDir();
    cleanups.push(root, outside);
    const a = path.join(root, 'a.txt');
    const one = (text: string): TxPlanner<number> => ({ operation: 'test-write', files: [a], plan: () => ({ writes: [{ file: a, text, entry: { to: { v: text } } }], result: (e) => e.length }) });
    await runTransaction(tx(root), one('a1\n'));
    const hist = path.join(root, '.waymark', 'history');
    const before = tree(hist);
    const { swapped } = swapBeforeAppendOpen(hist, outside);
    await assert.rejects(runTransaction(tx(root), one('a2\n')), refused);
    assert.ok(swapped(), 'the swap happened');
    assert.deepEqual(tree(outside), before, 'the copy outside is byte for byte what it was');
    assert.deepEqual(tree(`${hist}.orig`), before);
  });

  test('the first history line of a file (no history file yet): refused, not a byte outside', () => {
    const root = workspace({ 'a.txt': 'a0\n' }, { prefix: 'wm-swap-' });
    const outside = outsideDir();
    cleanups.push(root, outside);
    const hist = path.join(root, '.waymark', 'history');
    fs.mkdirSync(hist);
    swapBeforeAppendOpen(hist, outside);
    assert.throws(() => appendHistory(root, { time: '2026-01-01T00:00:00Z', operation: 'test', file: path.join(root, 'a.txt') }), refused);
    for (const [name, text] of Object.entries(tree(outside))) assert.equal(text, '', `${name} outside holds no byte`);
    mock.restoreAll();
    fs.unlinkSync(hist);
    fs.renameSync(`${hist}.orig`, hist);
    assert.deepEqual(readHistory(root, path.join(root, 'a.txt')), []);
  });

  test('no swap: a history file named by a dangling link inside the workspace is created where the link leads', () => {
    const root = workspace({ 'a.txt': 'a0\n' }, { prefix: 'wm-swap-' });
    cleanups.push(root);
    const hist = path.join(root, '.waymark', 'history');
    fs.mkdirSync(path.join(hist, 'kept'), { recursive: true });
    fs.symlinkSync(path.join(hist, 'kept', 'a.jsonl'), path.join(hist, 'a.txt.jsonl'));
    appendHistory(root, { time: '2026-01-01T00:00:00Z', operation: 'test', file: path.join(root, 'a.txt') });
    assert.equal(readHistory(root, path.join(root, 'a.txt')).length, 1);
    assert.match(fs.readFileSync(path.join(hist, 'kept', 'a.jsonl'), 'utf8'), /"operation":"test"/);
  });

  test('an event: refused, not a byte outside', () => {
    const root = workspace({}, { prefix: 'wm-swap-' });
    const outside = outsideDir();
    cleanups.push(root, outside);
    appendEvent(root, { type: 'test' });
    const events = path.join(root, '.waymark', 'events');
    const before = tree(events);
    swapBeforeAppendOpen(events, outside);
    assert.throws(() => appendEvent(root, { type: 'test' }), refused);
    const after = tree(outside);
    assert.equal(after['events.jsonl'], before['events.jsonl'], 'the events log outside is byte for byte what it was');
  });

  test('safeAppend (torn lines, the outbox): refused, not a byte outside', () => {
    const root = workspace({ '.waymark/cache/x.torn': 'old\n' }, { prefix: 'wm-swap-' });
    const outside = outsideDir();
    cleanups.push(root, outside);
    const dir = path.join(root, '.waymark', 'cache');
    swapBeforeAppendOpen(dir, outside);
    assert.throws(() => safeAppend(root, path.join(dir, 'x.torn'), 'new\n'), refused);
    assert.deepEqual(tree(outside), { 'x.torn': 'old\n' });
  });
});

describe('an intent whose journal folder is swapped for a link after its check', () => {
  afterEach(() => mock.restoreAll());

  /** Swaps the journal folder for a link to `outside` right before the intent is created or written (after the folder was judged inside the workspace). */
  const swapAtIntent = (journal: string, outside: string, at: 'open' | 'write'): (() => boolean) => {
    let swapped = false;
    const swap = () => {
      swapped = true;
      fs.renameSync(journal, `${journal}.orig`);
      fs.symlinkSync(outside, journal);
    };
    const openSync = nodeFs.openSync;
    mock.method(nodeFs, 'openSync', (p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
      if (at === 'open' && !swapped && typeof p === 'string' && p.startsWith(journal + path.sep) && /tx\.\d+\.[0-9a-f]+\.json$/.test(p)) swap();
      return openSync(p, flags ?? 'r', mode);
    });
    const writeSync = nodeFs.writeSync as (...a: unknown[]) => number;
    mock.method(nodeFs, 'writeSync', (...a: unknown[]) => {
      // A journal slot of this process is written over in place: no open to swap before.
      if (at === 'write' && !swapped && Buffer.isBuffer(a[1]) && a[1].subarray(0, 10).toString() === 'WAYMARK-TX') swap();
      return writeSync(...a);
    });
    return () => swapped;
  };

  for (const at of ['write', 'open'] as const) {
    test(`the journal folder judged once is proved after the intent ${at === 'open' ? 'opens (a new journal file)' : 'is written (a journal slot used again)'}: refused, the file unchanged, nothing left outside`, async () => {
      const root = workspace({ 'a.txt': 'a0\n' }, { prefix: 'wm-swap-' });
      const outside = outsideDir();
      const a = path.join(root, 'a.txt');
      const one = (text: string): TxPlanner<number> => ({ operation: 'test-write', files: [a], plan: () => ({ writes: [{ file: a, text, entry: { to: { v: text } } }], result: (e) => e.length }) });
      try {
        await runTransaction(tx(root), one('a1\n'));
        const journal = path.join(root, '.waymark', 'journal');
        // A new journal file: the slot the first write made is taken away (as another process's would be).
        if (at === 'open') fs.renameSync(path.join(journal, fs.readdirSync(journal)[0]), path.join(root, 'slot-elsewhere'));
        const swapped = swapAtIntent(journal, outside, at);
        await assert.rejects(runTransaction(tx(root), one('a2\n')), refused);
        assert.ok(swapped(), 'the swap happened');
        mock.restoreAll();
        assert.deepEqual(tree(outside), {}, 'no intent left outside the workspace');
        assert.equal(fs.readFileSync(a, 'utf8'), 'a1\n', 'the file keeps its bytes');
        assert.deepEqual(readHistory(root, a).map((e) => e.to), [{ v: 'a1\n' }], 'no history line for the refused change');
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });
  }
});

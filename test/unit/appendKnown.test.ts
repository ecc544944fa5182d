// An advance's cold-memory line is added at the cold file's end in place (engine/transaction.ts,
// TxWrite.append). The bytes this process appended last are known: when the file read under the
// locks holds exactly them, their text, encoding and SHA-256 come from that memo instead of being
// decoded, encoded and hashed whole again (session 28). Real files, real core; crypto.createHash is
// wrapped only to count the bytes hashed.
import { test, describe, after, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import nodeCrypto from 'node:crypto';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { journalLeft, workspace } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { disposeSharedMemoryServices } from '../../src/core/memory/observer';
import { readSlotRecord } from '../../src/core/store/txJournal';

const STEPS = Array.from({ length: 12 }, (_, i) => `s${i + 1}`);
const WF = `---\nworkflow: long\nstatus: in_progress\nsteps: [${STEPS.join(', ')}]\ncurrentStep: s1\nstepsCompleted: []\n---\n# Long\n`;
const COLD = '.waymark/memory/orchestrator_memory.md';

/** A cold file of about `kb` KB, non-ASCII in every line (bytes and characters differ). */
function coldFile(kb: number): string {
  const lines = ['# Orchestrator memory', '', '<!-- Waymark cold memory: append-only. Historic entries are never edited. -->', '', '## Key decisions', '', '## Learned context', '', '## Preferences', '', '## Blockers', '', '## Session history', ''];
  for (let i = 0; lines.join('\n').length < kb * 1024; i++) lines.push(`- 2026-10-0${1 + (i % 9)} café ☕ (old-${i}.md): step s${i % 12} completed`);
  return `${lines.join('\n')}\n`;
}

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** Counts, from now on, the bytes (or characters) handed to SHA-256 hashes made with crypto.createHash. */
function countHashed(): { bytes: number } {
  const seen = { bytes: 0 };
  const createHash = nodeCrypto.createHash;
  mock.method(nodeCrypto, 'createHash', (alg: string, o?: crypto.HashOptions) => {
    const h = createHash(alg, o);
    const update = h.update.bind(h);
    (h as unknown as { update: (d: string | Buffer, e?: BufferEncoding) => crypto.Hash }).update = (d: string | Buffer, e?: BufferEncoding) => {
      seen.bytes += d.length;
      return e ? update(d as string, e) : update(d);
    };
    return h;
  });
  return seen;
}

/** The cold file's record in the process's journal slot, as it was before it was marked done. */
function coldIntent(root: string): { before: string | null; after: string; text: string; append?: number } {
  const journal = path.join(root, '.waymark', 'journal');
  const [slot] = fs.readdirSync(journal);
  const rec = readSlotRecord(fs.readFileSync(path.join(journal, slot), 'utf8').replace(/^WAYMARK-TX 1 done /, 'WAYMARK-TX 1 live '));
  assert.equal(rec?.state, 'live');
  const intent = JSON.parse((rec as { body: string }).body) as { writes: { file: string; before: string | null; after: string; text: string; append?: number }[] };
  const w = intent.writes.find((x) => x.file === path.join(root, COLD));
  assert.ok(w, `the cold file in the intent: ${JSON.stringify(intent.writes.map((x) => x.file))}`);
  return w;
}

describe('the bytes an append left are known to the next change', () => {
  const roots: string[] = [];
  afterEach(() => mock.restoreAll());
  after(async () => {
    await disposeSharedMemoryServices();
    for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
  });

  /** A workspace of one workflow and a cold file of `lines` lines, a core on it; `check` may return a last check, made after the core closed. */
  async function withCore(lines: number, check: (w: { root: string; file: string; cold: string; core: ReturnType<typeof createStateCore> }) => Promise<void | (() => void)>): Promise<void> {
    const root = workspace({ 'w.md': WF, [COLD]: coldFile(lines) }, { prefix: 'wm-appendknown-' });
    roots.push(root);
    const core = createStateCore({ roots: [root], actor: 'test' });
    let last: void | (() => void);
    try {
      last = await check({ root, file: path.join(root, 'w.md'), cold: path.join(root, COLD), core });
    } finally {
      await core.close();
    }
    if (last) last();
  }

  test('an advance after this process\'s own cold line: the cold file is not hashed again; the intent names its bytes before and after, and where the line starts', async () => {
    await withCore(48, async ({ root, file, cold, core }) => {
      await core.advance(file);
      for (let i = 0; i < 3; i++) {
        const before = fs.readFileSync(cold);
        const hashed = countHashed();
        await core.advance(file);
        mock.restoreAll();
        const after = fs.readFileSync(cold);
        assert.ok(after.length > before.length && after.subarray(0, before.length).equals(before), 'the line is added at the end');
        assert.ok(hashed.bytes < before.length / 4, `${hashed.bytes} bytes hashed for an advance beside a ${before.length}-byte cold file`);
        const w = coldIntent(root);
        assert.equal(w.before, sha(before), 'before: the SHA-256 of the bytes found');
        assert.equal(w.after, sha(after), 'after: the SHA-256 of the bytes left');
        assert.equal(w.append, before.length, 'the line starts at the old byte length');
        assert.equal(Buffer.from(w.text, 'utf8').toString('utf8'), after.subarray(before.length).toString('utf8'));
      }
      return () => assert.equal(fs.readFileSync(cold, 'utf8').split('\n').filter((l) => /\(w\.md\): step s\d+ completed/.test(l)).length, 4);
    });
  });

  test('memory\'s batch after the answer (the MCP server) adds its lines in place and completes its intent on the thread pool: no removal waited for', async () => {
    const root = workspace({ 'w.md': WF, [COLD]: coldFile(16) }, { prefix: 'wm-appendknown-' });
    roots.push(root);
    const core = createStateCore({ roots: [root], actor: 'test', memory: { consolidateAfterAnswer: { quietMs: 0, maxMs: 0 } } });
    const cold = path.join(root, COLD);
    try {
      const ino = fs.statSync(cold).ino;
      const unlinkSync = nodeFs.unlinkSync;
      const waited: string[] = [];
      mock.method(nodeFs, 'unlinkSync', (p: fs.PathLike) => {
        if (String(p).includes(`${path.sep}journal${path.sep}`)) waited.push(String(p));
        return unlinkSync(p);
      });
      for (let i = 0; i < 3; i++) {
        await core.advance(path.join(root, 'w.md'));
        await core.memory.settled();
      }
      mock.restoreAll();
      assert.deepEqual(waited, [], 'no intent removed on the main thread');
      assert.deepEqual(journalLeft(root), [], 'every intent done or removed once settled');
      assert.equal(fs.statSync(cold).ino, ino, 'added to in place');
      assert.equal(fs.readFileSync(cold, 'utf8').split('\n').filter((l) => /\(w\.md\): step s\d+ completed/.test(l)).length, 3);
    } finally {
      await core.close();
    }
  });

  test('the cold file rewritten by another writer to other bytes of the same size after this process\'s line: read, hashed and compared afresh, the next line lands after those bytes', async () => {
    await withCore(16, async ({ root, file, cold, core }) => {
      await core.advance(file);
      // Same size, same inode, other bytes: an earlier line changed in place.
      const was = fs.readFileSync(cold, 'utf8');
      const edited = was.replace('(old-3.md)', '(OLD-3.md)');
      assert.equal(Buffer.byteLength(edited), Buffer.byteLength(was));
      fs.writeFileSync(cold, edited);
      await core.advance(file);
      const now = fs.readFileSync(cold, 'utf8');
      assert.ok(now.startsWith(edited), 'the other writer\'s bytes are kept');
      assert.match(now.slice(edited.length), /^- \d{4}-\d\d-\d\d long \(w\.md\): step s2 completed/);
      const w = coldIntent(root);
      assert.equal(w.before, sha(Buffer.from(edited, 'utf8')));
      assert.equal(w.after, sha(fs.readFileSync(cold)));
    });
  });
});

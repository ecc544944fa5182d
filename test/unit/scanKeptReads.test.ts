import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scanRoots, allProblems, type ScanOptions } from '../../src/core/store/scan';
import type { FileKey } from '../../src/core/store/scanIndex';

// A first scan with the sprint check: the sprint reads each story whole (one shared read buffer),
// the scan reads each candidate itself (the 8 KiB head of a story with no frontmatter). Until
// session 34 the scan took the story files' bytes the sprint had kept (keepReads): one Buffer per
// story kept alive between the two, which cost a first `validate` more in page faults and garbage
// collection than the second open and head read (docs/measurements.md, first34). Same answer as a
// scan that reads every file itself, keys equal to a plain stat's (or the next scan would read
// every story again).

const FIX = path.resolve('test/fixtures');
const IMPL = '_bmad-output/implementation-artifacts';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function copyFixture(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wm-keptreads-${name}-`));
  fs.cpSync(path.join(FIX, name), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
  dirs.push(dir);
  return dir;
}

/** Index on, written before returning, nothing racy: the files are older than the scan's window of 0. */
const IDX: ScanOptions = { indexWrite: 'sync', racyWindowMs: 0, sprint: true };

function statKey(file: string): FileKey {
  const st = fs.statSync(file);
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
}

describe('a first scan with the sprint check', () => {
  test('the same states, problems and skips as a scan that reads every file itself; keys as a plain stat gives them; the next scan answers from its index', async () => {
    const root = copyFixture('bmad-v6');
    const impl = path.join(root, IMPL);
    // A story with frontmatter: the scan parses it, so the bytes it is handed are judged in full.
    const fm = path.join(impl, '1-2-account-settings.md');
    fs.writeFileSync(fm, `---\nworkflowType: story\nstatus: review\n---\n${fs.readFileSync(fm, 'utf8')}`);
    const stories = fs.readdirSync(impl).filter((f) => f.endsWith('.md')).map((f) => path.join(impl, f));
    const keys = new Map<string, FileKey>();
    const first = await scanRoots([root], { ...IDX, fileKeys: keys });
    await first.indexWritten;
    assert.equal(first.index[0].hadIndex, false);
    // Reading every file itself: no sprint check before the files (its problems are added apart), no index.
    const own = await scanRoots([root], { index: false });
    assert.deepStrictEqual(first.workflows, own.workflows);
    assert.deepStrictEqual(first.skipped, own.skipped);
    assert.equal(JSON.stringify(first.workflows), JSON.stringify(own.workflows));
    // Every problem of a file the scan judged is there as when it read the file itself.
    for (const p of allProblems(own)) assert.ok(allProblems(first).some((q) => JSON.stringify(q) === JSON.stringify(p)), `${p.file}: ${p.code}`);
    for (const f of stories) assert.deepStrictEqual(keys.get(f), statKey(f), `${f}: the key of the bytes judged`);
    const second = await scanRoots([root], IDX);
    await second.indexWritten;
    assert.equal(second.index[0].parsed, 0, 'every file answered from the index: the keys recorded were exact');
    assert.deepStrictEqual(second.workflows.map((w) => w.file), first.workflows.map((w) => w.file));
  });

  test('a story edited after a first scan is read again', async () => {
    const root = copyFixture('bmad-v6');
    const f = path.join(root, IMPL, '1-3-password-reset.md');
    const first = await scanRoots([root], IDX);
    await first.indexWritten;
    fs.writeFileSync(f, `---\nworkflowType: story\n---\n${fs.readFileSync(f, 'utf8')}`);
    fs.rmSync(path.join(root, '.waymark'), { recursive: true, force: true });
    const again = await scanRoots([root], IDX);
    const own = await scanRoots([root], { index: false });
    assert.deepStrictEqual(again.workflows, own.workflows);
    assert.ok(again.workflows.some((w) => w.file === f), 'the edit is seen');
  });
  test('no story is held between the sprint check and the scan: a first scan of 400 stories keeps no Buffer per story', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-keptreads-400-'));
    dirs.push(root);
    const impl = path.join(root, IMPL);
    fs.mkdirSync(impl, { recursive: true });
    const ledger = ['generated: 2026-01-01', 'project: t', 'development_status:', '  epic-1: in-progress'];
    const body = Array.from({ length: 60 }, (_, t) => `- [${t % 3 ? 'x' : ' '}] Task ${t + 1}: ${'words '.repeat(12)}`).join('\n');
    for (let i = 1; i <= 400; i++) {
      ledger.push(`  1-${i}-story-${i}: review`);
      fs.writeFileSync(path.join(impl, `1-${i}-story-${i}.md`), `# Story 1.${i}: Story ${i}\n\nStatus: review\n\n## Tasks / Subtasks\n\n${body}\n`);
    }
    fs.writeFileSync(path.join(impl, 'sprint-status.yaml'), ledger.join('\n') + '\n');
    const storyBytes = fs.statSync(path.join(impl, '1-1-story-1.md')).size * 400;
    assert.ok(storyBytes > 2_000_000, `${storyBytes} bytes of stories`);
    const before = process.memoryUsage().arrayBuffers;
    let during: number | undefined;
    // The first progress comes after the sprint check and the scan's first file: what is held then is what the sprint left for the scan.
    const r = await scanRoots([root], { sprint: true, indexWrite: 'manual', firstProgressFiles: 1, onProgress: () => (during ??= process.memoryUsage().arrayBuffers) });
    assert.equal(r.sprints.get(root)?.length, 1, 'the sprint was checked');
    assert.ok(during !== undefined);
    assert.ok(during - before < 1_200_000, `${during - before} bytes of array buffers held after the sprint check (the stories are ${storyBytes})`);
  });
});

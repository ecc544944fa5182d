import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { scanRoots, allProblems } from '../../src/core/store/scan';
import type { FileKey } from '../../src/core/store/scanIndex';

// A first scan with the sprint check: the sprint reads each story whole; what the scan needs of a
// story with no frontmatter (most) is its stat key and that verdict, which the sprint's read hands
// over (sprintCache withReadHeads), so the scan opens no such story a second time. A story whose
// head the scan would judge otherwise (a fence, a NUL byte, UTF-16) is still read by the scan.

const IMPL = '_bmad-output/implementation-artifacts';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function statKey(file: string): FileKey {
  const st = fs.statSync(file);
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
}

/** A v6 project of `n` stories in epic 1 (no frontmatter), its ledger listing each. */
function project(n: number): { root: string; stories: string[] } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-readheads-'));
  dirs.push(root);
  const impl = path.join(root, IMPL);
  fs.mkdirSync(impl, { recursive: true });
  const ledger = ['generated: 2026-01-01', 'project: t', 'development_status:', '  epic-1: in-progress'];
  const body = Array.from({ length: 20 }, (_, t) => `- [${t % 3 ? 'x' : ' '}] Task ${t + 1}: ${'words '.repeat(8)}`).join('\n');
  const stories: string[] = [];
  for (let i = 1; i <= n; i++) {
    ledger.push(`  1-${i}-story-${i}: ${i % 4 ? 'done' : 'review'}`);
    const f = path.join(impl, `1-${i}-story-${i}.md`);
    fs.writeFileSync(f, `# Story 1.${i}: Story ${i}\n\nStatus: ${i % 4 ? 'done' : 'review'}\n\n## Tasks / Subtasks\n\n${body}\n`);
    stories.push(f);
  }
  fs.writeFileSync(path.join(impl, 'sprint-status.yaml'), ledger.join('\n') + '\n');
  return { root, stories };
}

/** Read system calls of this process so far (Linux), else undefined. */
function readCalls(): number | undefined {
  try {
    const m = /^syscr:\s*(\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

describe('a first scan with the sprint check takes what the sprint read', () => {
  test('stories with a fence, a NUL byte, UTF-16 text, an empty one: the same answer and keys as a scan that reads every file itself', async () => {
    const { root, stories } = project(12);
    const [fenced, binary, utf16, empty, bomFenced] = stories;
    fs.writeFileSync(fenced, `---\nworkflowType: story\nstatus: review\n---\n${fs.readFileSync(fenced, 'utf8')}`);
    fs.writeFileSync(binary, Buffer.concat([Buffer.from('# Story 1.2: Two\n\nStatus: done\n'), Buffer.from([0, 1, 2]), Buffer.from('\n')]));
    fs.writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# Story 1.3: Three\n\nStatus: done\n', 'utf16le')]));
    fs.writeFileSync(empty, '');
    fs.writeFileSync(bomFenced, `\ufeff---\nstatus: review\n---\n# Story 1.5: Five\n`);
    // A story whose NUL byte lies past the head: the head decides, as the scan's own read.
    fs.writeFileSync(stories[5], `# Story 1.6: Six\n\nStatus: done\n${'x'.repeat(9000)}\0\n`);
    const keys = new Map<string, FileKey>();
    const first = await scanRoots([root], { sprint: true, racyWindowMs: 0, indexWrite: 'sync', fileKeys: keys });
    assert.equal(first.index[0].hadIndex, false);
    assert.equal(first.sprints.get(root)?.length, 1, 'the sprint was checked');
    const ownKeys = new Map<string, FileKey>();
    const own = await scanRoots([root], { index: false, fileKeys: ownKeys });
    assert.equal(JSON.stringify(first.workflows), JSON.stringify(own.workflows));
    assert.deepStrictEqual(first.skipped, own.skipped);
    assert.ok(first.skipped.some((s) => s.file === binary) && first.skipped.some((s) => s.file === utf16), 'the binary and UTF-16 stories are skipped, as the scan judges them');
    assert.ok(first.workflows.some((w) => w.file === fenced), 'the fenced story is parsed');
    for (const p of allProblems(own)) assert.ok(allProblems(first).some((q) => JSON.stringify(q) === JSON.stringify(p)), `${p.file}: ${p.code}`);
    assert.deepStrictEqual([...keys.keys()].sort(), [...ownKeys.keys()].sort());
    for (const f of stories) assert.deepStrictEqual(keys.get(f), statKey(f), `${f}: a plain stat's key`);
    const second = await scanRoots([root], { sprint: true, racyWindowMs: 0, indexWrite: 'sync' });
    // The UTF-16 story is reported unreadable, which the index never records (it is read again each time).
    assert.equal(second.index[0].parsed, 1, 'every other file answered from the index: the keys recorded were exact');
  });

  test('a story with no frontmatter is read once: 400 stories cost ~400 reads, not ~800', async (t) => {
    const { root, stories } = project(400);
    if (readCalls() === undefined) return t.skip('no /proc/self/io here');
    const before = readCalls()!;
    const r = await scanRoots([root], { sprint: true, indexWrite: 'manual' });
    const total = readCalls()! - before;
    assert.equal(r.sprints.get(root)?.[0].epics.flatMap((e) => e.stories).filter((s) => s.file).length, 400, 'every story read by the sprint');
    assert.equal(r.files, 400);
    // The sprint reads each story once (one shared buffer); the scan read each again (its head) before.
    assert.ok(total >= stories.length, `${total} reads`);
    assert.ok(total < stories.length * 1.5, `${total} read calls for ${stories.length} stories: the scan read them again`);
  });

  test("a first `validate` (the built CLI) loads no module the scan needs not: perf_hooks stays unloaded, as in `sprint`", (t) => {
    const cli = path.resolve(process.env.WAYMARK_CLI ?? 'dist/cli.js');
    if (!fs.existsSync(cli)) return t.skip('no built CLI (node esbuild.mjs)');
    const { root } = project(30);
    const preload = path.join(root, 'modules.cjs');
    const out = path.join(root, 'modules.txt');
    fs.writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    const r = spawnSync(process.execPath, ['-r', preload, cli, 'validate', '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    assert.ok(JSON.parse(r.stdout).files >= 30, 'the stories were checked');
    const loaded = fs.readFileSync(out, 'utf8').split('\n');
    assert.ok(loaded.includes('NativeModule fs'), 'the list is read');
    // internal/perf/utils is every Node process's (its bootstrap); the global `performance` loads these.
    assert.deepStrictEqual(loaded.filter((m) => /^NativeModule (perf_hooks|internal\/perf\/(performance|usertiming|observe))$/.test(m)), []);
  });
});

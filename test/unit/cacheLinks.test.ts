// The cache files under `.waymark/cache/` (the scan index, validate's stored answer, the BMAD
// sprint cache, an agent edit's snapshot) are Waymark's alone: a symbolic link found at one of
// their names can only have been planted (a cloned repository ships it). It is replaced by the
// new cache file, never followed: the file it points at, inside the workspace or not, keeps its bytes.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { workspace } from './fileHelpers';
import { checkWorkspace, createStateCore, gitStateTimeline, scanRoots, saveEditSnapshot } from '../../src/core/index';
import { execFileSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { sprintCachePath } from '../../src/core/bmad/sprintCache';
import { scanIndexPath } from '../../src/core/store/scanIndex';
import { CHECK_ANSWER_FILE } from '../../src/core/project/checkAnswer';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const WF = '---\nworkflow: w\nstatus: in_progress\nstepsCompleted: []\n---\n# w\n';
const PRECIOUS = '# my notes, not a cache\n';

/** A link at `at` (made with its folder) to `victim`, which holds PRECIOUS. */
function plant(at: string, victim: string): void {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.writeFileSync(victim, PRECIOUS);
  fs.symlinkSync(victim, at);
}

/** The victim kept its bytes, and the cache's name is no longer a link (or was not written). */
function unharmed(at: string, victim: string): void {
  assert.equal(fs.readFileSync(victim, 'utf8'), PRECIOUS, `${victim} keeps its bytes`);
  const st = fs.lstatSync(at, { throwIfNoEntry: false });
  assert.ok(!st || !st.isSymbolicLink() || fs.readFileSync(victim, 'utf8') === PRECIOUS);
}

function outsideFile(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-cachelink-outside-')));
  dirs.push(d);
  return path.join(d, 'victim.md');
}

describe('a symbolic link planted at a cache file\'s name', () => {
  test('the scan index: replaced, not followed (a file inside the workspace)', async () => {
    const root = workspace({ 'w.md': WF }, { prefix: 'wm-cachelink-' });
    dirs.push(root);
    const at = scanIndexPath(root);
    const victim = path.join(root, 'notes.md');
    plant(at, victim);
    await (await scanRoots([root], { index: true })).indexWritten;
    unharmed(at, victim);
    assert.equal(fs.lstatSync(at).isFile(), true, 'the index is written as a file of its own');
  });

  test('validate\'s stored answer: replaced, not followed (a file inside the workspace)', async () => {
    const root = workspace({ 'w.md': WF }, { prefix: 'wm-cachelink-' });
    dirs.push(root);
    const at = path.join(root, CHECK_ANSWER_FILE);
    const victim = path.join(root, 'notes.md');
    plant(at, victim);
    await checkWorkspace(root, { createCore: (roots) => createStateCore({ roots, memory: false, scanIndex: false }), racyWindowMs: 0 });
    unharmed(at, victim);
  });

  test('the BMAD sprint cache: replaced, not followed (a file inside the workspace)', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-cachelink-bmad-'));
    dirs.push(root);
    fs.cpSync(path.resolve('test/fixtures/bmad-v6'), root, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
    const at = sprintCachePath(root);
    const victim = path.join(root, 'notes.md');
    plant(at, victim);
    loadSprint(root, { now: new Date('2025-10-21T12:00:00Z'), cache: true });
    unharmed(at, victim);
  });

  test('the git timeline cache: replaced, not followed (a file inside the workspace)', async () => {
    const root = workspace({ 'w.md': WF }, { prefix: 'wm-cachelink-' });
    dirs.push(root);
    const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: root, stdio: 'ignore' });
    git('init', '-q');
    git('add', 'w.md');
    git('commit', '-q', '-m', 'w');
    const at = path.join(root, '.waymark', 'cache', 'git-timeline.json');
    const victim = path.join(root, 'notes.md');
    plant(at, victim);
    const t = await gitStateTimeline(root);
    assert.equal(t.cached, false);
    unharmed(at, victim);
  });

  test('an agent edit\'s snapshot: its temp file name is never followed', () => {
    const root = workspace({ 'w.md': WF }, { prefix: 'wm-cachelink-' });
    dirs.push(root);
    const hooks = path.join(root, '.waymark', 'cache', 'hooks');
    saveEditSnapshot(root, path.join(root, 'w.md'), WF);
    const [snap] = fs.readdirSync(hooks);
    const victim = outsideFile();
    plant(path.join(hooks, `${snap}.${process.pid}.tmp`), victim);
    saveEditSnapshot(root, path.join(root, 'w.md'), WF);
    assert.equal(fs.readFileSync(victim, 'utf8'), PRECIOUS);
  });
});

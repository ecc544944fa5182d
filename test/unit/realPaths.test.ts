import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createStateCore, historyPathFor, lockPathFor, readHistory } from '../../src/core/index';
import { workspace } from './fileHelpers';
import { relativeInside } from '../../src/core/store/safePath';

const CLI = path.resolve('dist/cli.js');

function wf(id: string): string {
  return `---\nworkflow: ${id}\nstatus: in_progress\nstepsCompleted: []\nsteps: [one, two, three, four]\n---\n# ${id}\n`;
}

/** A workspace with `flows/a.md` and `linked` → `flows` (a folder reached by two names). */
function aliased(): { root: string; real: string; alias: string } {
  const root = workspace({ 'flows/a.md': wf('a') });
  fs.symlinkSync(path.join(root, 'flows'), path.join(root, 'linked'));
  return { root, real: path.join(root, 'flows', 'a.md'), alias: path.join(root, 'linked', 'a.md') };
}

describe('real paths: one file, one lock, one history, one workflow', () => {
  test('the lock and the history of a file reached through a linked folder are those of its real path', () => {
    const { root, real, alias } = aliased();
    assert.equal(lockPathFor(alias, { root }), lockPathFor(real, { root }));
    assert.equal(historyPathFor(root, alias), historyPathFor(root, real));
    assert.equal(historyPathFor(root, alias), path.join(root, '.waymark', 'history', 'flows', 'a.md.jsonl'));
  });

  test('advances alternating between the two names: no conflict, no invented external-edit, one history', async () => {
    const { root, real, alias } = aliased();
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.scan();
      for (let i = 0; i < 4; i++) {
        const file = i % 2 ? real : alias;
        const r = await core.advance(file, { actor: 'test' });
        assert.equal(r.changed, true, `advance ${i + 1} through ${path.relative(root, file)}`);
      }
    } finally {
      await core.close();
    }
    const ops = readHistory(root, real).map((e) => e.operation);
    assert.deepEqual(ops, ['advance', 'advance', 'advance', 'advance'], 'no external-edit line');
    assert.equal(fs.existsSync(path.join(root, '.waymark', 'history', 'linked')), false, 'no second history under the alias');
    const events = fs.readFileSync(path.join(root, '.waymark', 'events', 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; file?: string });
    const advances = events.filter((e) => e.type === 'workflow.advance');
    assert.equal(advances.length, 4);
    assert.deepEqual([...new Set(advances.map((e) => e.file))], ['flows/a.md'], 'events name the file by its real workspace-relative path');
  });

  test('a workflow file reached by two names (a file link inside the workspace) is scanned once', async () => {
    const root = workspace({ 'a.md': wf('a'), 'docs/b.md': wf('b') });
    fs.symlinkSync(path.join(root, 'a.md'), path.join(root, 'alias-of-a.md'));
    fs.symlinkSync('../a.md', path.join(root, 'docs', 'a-again.md'));
    fs.symlinkSync(path.join(root, 'docs', 'b.md'), path.join(root, 'z-b.md'));
    const core = createStateCore({ roots: [root], memory: false });
    try {
      const scan = await core.scan();
      const files = scan.workflows.map((w) => path.relative(root, w.file)).sort();
      assert.deepEqual(files, ['a.md', 'docs/b.md'], 'each file once, by its own name');
    } finally {
      await core.close();
    }
  });

  test('a link whose target the scan does not list (excluded) still counts once', async () => {
    const root = workspace({ 'a.md': wf('a') }, { config: 'exclude: ["hidden/**"]\n' });
    fs.mkdirSync(path.join(root, 'hidden'));
    fs.writeFileSync(path.join(root, 'hidden', 'h.md'), wf('h'));
    fs.symlinkSync(path.join(root, 'hidden', 'h.md'), path.join(root, 'h1.md'));
    fs.symlinkSync(path.join(root, 'hidden', 'h.md'), path.join(root, 'h2.md'));
    const core = createStateCore({ roots: [root], memory: false });
    try {
      const files = (await core.scan()).workflows.map((w) => path.relative(root, w.file)).sort();
      assert.deepEqual(files, ['a.md', 'h1.md']);
    } finally {
      await core.close();
    }
  });
});

describe('history is portable: workspace-relative paths', () => {
  test('lines written by the core and the CLI name the file relative to the workspace; old absolute lines still read', async () => {
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.js not built (node esbuild.mjs)');
    const { root, real, alias } = aliased();
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.advance(alias, { actor: 'test' });
    } finally {
      await core.close();
    }
    const r = spawnSync(process.execPath, [CLI, 'advance', 'flows/a.md'], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const hist = historyPathFor(root, real);
    const raw = fs.readFileSync(hist, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { file: string });
    assert.deepEqual(raw.map((l) => l.file), ['flows/a.md', 'flows/a.md']);
    assert.ok(!fs.readFileSync(hist, 'utf8').includes(root), 'no absolute path of this machine in history');
    // A line an older Waymark wrote with an absolute path reads as before.
    fs.appendFileSync(hist, JSON.stringify({ seq: 3, time: new Date().toISOString(), operation: 'advance', file: real }) + '\n');
    const entries = readHistory(root, real);
    assert.equal(entries.length, 3);
    assert.deepEqual(entries.map((e) => e.file), [real, real, real], 'entries name the file by its absolute path in memory');
    // A delegation names its child and parent relative to the workspace too.
    const d = spawnSync(process.execPath, [CLI, 'delegate', 'flows/a.md', '--agent', 'dev', '--out', 'flows/a-dev.md'], { cwd: root, encoding: 'utf8' });
    assert.equal(d.status, 0, d.stdout + d.stderr);
    const child = fs.readFileSync(historyPathFor(root, path.join(root, 'flows', 'a-dev.md')), 'utf8');
    assert.ok(!child.includes(root), 'no absolute path in the child\'s history');
    assert.ok(!fs.readFileSync(hist, 'utf8').split('\n').slice(3).join('\n').includes(root), 'no absolute path in the parent\'s delegate line');
  });
});

describe('containment by prefix (store/safePath.ts relativeInside)', () => {
  test('answers as path.relative does over random paths, normalized or not (`.`, `..`, `..x`, empty parts, trailing slashes)', () => {
    const parts = ['a', 'b', '..', '.', '', '..x', 'a..', '...', 'ab'];
    const rnd = (k: number) => {
      let s = '';
      for (let i = 0, n = k % 5; i < n; i++) s += `/${parts[(k = (k * 1103515245 + 12345) % 2147483648) % parts.length]}`;
      return s || '/';
    };
    const expected = (dir: string, p: string) => {
      // Outside: `..` and `../x`; a first part that only starts with `..` (`..x`) is a name inside (red29).
      const rel = path.relative(dir, p);
      return !rel || rel === '..' || rel.startsWith('../') || path.isAbsolute(rel) ? undefined : rel;
    };
    for (let i = 1; i < 60000; i++) {
      const dir = rnd(i * 7);
      const p = i % 2 ? dir + rnd(i * 13) : rnd(i * 13);
      assert.equal(relativeInside(dir, p), expected(dir, p), `${dir} ⊇ ${p}`);
    }
  });
});

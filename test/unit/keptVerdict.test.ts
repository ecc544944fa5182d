// `waymark validate` as a process in a real git repository, with a git of the test's own on PATH
// that logs each run: after git said an in-progress file has local changes, a check right after
// another edit of it (within the racy window, where its stamp proves nothing) starts no git, and
// every answer is what a run without caches says (which asks git every time).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, tempDir } from './gitHelpers';
import { blobId, parseStatusV2 } from '../../src/core/project/gitVerdict';

function wf(id: string, status: string, body = ''): string {
  return `---\nworkflow: ${id}\nstatus: ${status}\nstepsCompleted: []\n---\n# ${id}\n${body}`;
}

/** Waits past the racy window (2 s), so what changed before is settled for the next check. */
function settle(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2100);
}

describe('validate keeps what git said of changed in-progress files (gitVerdict.ts)', () => {
  test('edits inside the racy window, an edit undone, a staged file, an untracked one, a commit and an attributes file: git only where needed, every answer as without caches', (t) => {
    if (!fs.existsSync(CLI)) return t.skip('dist/cli.js not built');
    const root = tempDir('wm-verdict-');
    const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    const bin = tempDir('wm-verdict-bin-');
    const log = path.join(bin, 'runs.log');
    fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    const runs = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (date: string, ...args: string[]) => {
      const r = spawnSync(real, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', ...args], { cwd: root, encoding: 'utf8', env: { ...env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
      assert.equal(r.status, 0, r.stderr);
    };
    const write = (rel: string, text: string, mtime?: string) => {
      const f = path.join(root, rel);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, text);
      // Days back, so the item is stalled and its last activity shows; its ctime is now (racy).
      if (mtime) fs.utimesSync(f, new Date(mtime), new Date(mtime));
    };
    const validate = (extra: NodeJS.ProcessEnv = {}) => {
      const r = spawnSync(process.execPath, [CLI, 'validate', '--json'], { cwd: root, encoding: 'utf8', env: { ...env, ...extra } });
      assert.ok(r.status === 0 || r.status === 1, r.stderr);
      const out = JSON.parse(r.stdout) as { problems: { code: string; file: string; message: string; data?: { lastActivity?: string } }[] };
      const last = Object.fromEntries(out.problems.filter((p) => p.code === 'work-stalled').map((p) => [p.file, p.data?.lastActivity]));
      const problems = out.problems.map((p) => (p.code === 'work-stalled' ? { ...p, message: p.message.replace(/untouched for [^(]+/, 'untouched for N'), data: { ...p.data, idleMs: 0 } } : p));
      return { last, problems };
    };
    /** A check: the git runs it started, and its answer, which must be a run without caches'. */
    const check = () => {
      const n = runs();
      const got = validate();
      const started = runs() - n;
      assert.deepStrictEqual(got.problems, validate({ WAYMARK_SCAN_INDEX: '0' }).problems, 'as without caches');
      return { started, last: got.last };
    };

    write('a/one.md', wf('one', 'in_progress'));
    write('a/two.md', wf('two', 'in_progress'));
    write('other.md', wf('other', 'created'));
    git('2026-02-01T10:00:00Z', 'init', '-q');
    git('2026-02-01T10:00:00Z', 'add', '.');
    git('2026-02-01T10:00:00Z', 'commit', '-qm', 'start');
    settle();
    let c = check();
    assert.ok(c.started > 0, 'the first check asks git');
    assert.equal(c.last['a/one.md'], '2026-02-01T10:00:00.000Z');

    // The agent edits its story: git is asked (it was clean), and says it has changes now.
    write('a/one.md', wf('one', 'in_progress', 'first edit\n'), '2026-02-03T10:00:00Z');
    write('b/three.md', wf('three', 'in_progress'), '2026-02-03T10:00:00Z'); // untracked
    c = check();
    assert.ok(c.started > 0, 'git is asked about the moved and the new file');
    assert.equal(c.last['a/one.md'], '2026-02-03T10:00:00.000Z');
    assert.equal(c.last['b/three.md'], '2026-02-03T10:00:00.000Z');

    // Edited again within the racy window of the last check: no git, the new file time.
    write('a/one.md', wf('one', 'in_progress', 'second edit\n'), '2026-02-04T10:00:00Z');
    write('b/three.md', wf('three', 'in_progress', 'more\n'), '2026-02-04T10:00:00Z');
    c = check();
    assert.equal(c.started, 0, 'no git for files git said have changes, while HEAD and the index read the same');
    assert.equal(c.last['a/one.md'], '2026-02-04T10:00:00.000Z');
    assert.equal(c.last['b/three.md'], '2026-02-04T10:00:00.000Z');

    // Another file edited within the racy window: no git either.
    write('other.md', wf('other', 'created', 'note\n'));
    c = check();
    assert.equal(c.started, 0, 'no git after an edit of a file not in progress');
    assert.equal(c.last['a/one.md'], '2026-02-04T10:00:00.000Z');

    // The edit undone (the committed bytes again): git is asked, and the commit time is back.
    write('a/one.md', wf('one', 'in_progress'), '2026-02-05T10:00:00Z');
    c = check();
    assert.ok(c.started > 0, 'bytes that hash to the index entry are asked of git');
    assert.equal(c.last['a/one.md'], '2026-02-01T10:00:00.000Z');

    // Staged: git is asked once the index moved, then not for a later edit.
    write('a/two.md', wf('two', 'in_progress', 'staged\n'), '2026-02-05T10:00:00Z');
    git('2026-02-05T10:00:00Z', 'add', 'a/two.md');
    settle();
    c = check();
    assert.ok(c.started > 0, 'the index moved');
    write('a/two.md', wf('two', 'in_progress', 'staged, then edited\n'), '2026-02-06T10:00:00Z');
    c = check();
    assert.equal(c.started, 0, 'a staged file has changes whatever its bytes');
    assert.equal(c.last['a/two.md'], '2026-02-06T10:00:00.000Z');

    // A commit: HEAD moved, git is asked, the commit's time shows.
    git('2026-02-07T10:00:00Z', 'add', '-A');
    git('2026-02-07T10:00:00Z', 'commit', '-qm', 'more');
    settle();
    c = check();
    assert.ok(c.started > 0, 'HEAD moved');
    assert.equal(c.last['a/two.md'], '2026-02-07T10:00:00.000Z');
    assert.equal(c.last['b/three.md'], '2026-02-07T10:00:00.000Z');

    // With an attributes file, git's clean step may change the bytes: git is asked every time.
    write('.gitattributes', '*.md text\n');
    write('a/one.md', wf('one', 'in_progress', 'after the commit\n'), '2026-02-08T10:00:00Z');
    c = check();
    assert.ok(c.started > 0);
    write('a/one.md', wf('one', 'in_progress', 'and again\n'), '2026-02-09T10:00:00Z');
    c = check();
    assert.ok(c.started > 0, 'no verdict proof where attributes may apply');
    assert.equal(c.last['a/one.md'], '2026-02-09T10:00:00.000Z');
    fs.rmSync(bin, { recursive: true, force: true });
  });
});

describe('git status --porcelain=v2 -z as gitVerdict.ts reads it', () => {
  test('staged, renamed, unmerged and untracked files are dirty; a working-tree change names its index blob; a submodule and an ignored file have no verdict', () => {
    const hH = 'a'.repeat(40), hI = 'b'.repeat(40);
    const out = [
      `1 M. N... 100644 100644 100644 ${hH} ${hI} staged.md`,
      `1 .M N... 100644 100644 100644 ${hH} ${hI} with space.md`,
      `2 R. N... 100644 100644 100644 ${hH} ${hI} R100 docs/new.md`,
      'docs/old.md',
      `u UU N... 100644 100644 100644 100644 ${hH} ${hI} ${hH} conflict.md`,
      '? sub/untracked.md',
      `1 .M SC.. 160000 160000 160000 ${hH} ${hI} module`,
      '! ignored.md',
      '',
    ].join('\0');
    assert.deepStrictEqual(Object.fromEntries(parseStatusV2(out)), {
      'staged.md': 'dirty',
      'with space.md': hI,
      'new.md': 'dirty',
      'conflict.md': 'dirty',
      'untracked.md': 'dirty',
      module: undefined,
      'ignored.md': undefined,
    });
  });

  test("a blob id is git's own (git hash-object)", () => {
    const dir = tempDir('wm-verdict-blob-');
    for (const text of ['', 'a\n', '# Story\n\nStatus: in-progress\n'.repeat(300)]) {
      const f = path.join(dir, 'x.md');
      fs.writeFileSync(f, text);
      const want = spawnSync('git', ['hash-object', '--no-filters', f], { encoding: 'utf8' }).stdout.trim();
      assert.equal(blobId(Buffer.from(text), 'c'.repeat(40)), want);
    }
  });
});

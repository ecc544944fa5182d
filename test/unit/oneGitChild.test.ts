// `waymark validate` as a process in a real git repository: what git says of the in-progress files
// (each folder's status, each clean file's last commit) is asked through one child of the process,
// not one per git (loadProject.ts askInOneChild): starting a child forks the whole process. Names
// a shell would read (quotes, spaces, `$`, a backslash, a leading dash) reach git as they are, and
// every answer is what git says of each file: the commit for a clean one, the file time for one
// with local changes and for an untracked one.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, tempDir } from './gitHelpers';

function wf(id: string, status: string, body = ''): string {
  return `---\nworkflow: ${id}\nstatus: ${status}\nstepsCompleted: []\n---\n# ${id}\n${body}`;
}

describe('validate asks git through one child (loadProject.ts askInOneChild)', () => {
  test('two folders, awkward names, a clean, a changed and an untracked file: one child, each file as git says', (t) => {
    if (!fs.existsSync(CLI)) return t.skip('dist/cli.js not built');
    if (process.platform === 'win32') return t.skip('POSIX only: Windows starts a process without a fork, each git is its own there');
    const root = tempDir('wm-onegit-');
    const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    const probeDir = tempDir('wm-onegit-probe-');
    const spawned = path.join(probeDir, 'spawned.log');
    // Counts the children the CLI's own process starts (every execFile/spawn goes through ChildProcess#spawn).
    const probe = path.join(probeDir, 'probe.js');
    fs.writeFileSync(probe, `const cp = require('node:child_process'); const fs = require('node:fs');\nconst orig = cp.ChildProcess.prototype.spawn;\ncp.ChildProcess.prototype.spawn = function (o) { fs.appendFileSync(${JSON.stringify(spawned)}, o.file + '\\n'); return orig.call(this, o); };\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (date: string, ...args: string[]) => {
      const r = spawnSync(real, ['-c', 'user.name=Ana O\'Neil', '-c', 'user.email=ana@example.com', ...args], { cwd: root, encoding: 'utf8', env: { ...env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
      assert.equal(r.status, 0, r.stderr);
    };
    const write = (rel: string, text: string, mtime?: string) => {
      const f = path.join(root, rel);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, text);
      if (mtime) fs.utimesSync(f, new Date(mtime), new Date(mtime));
    };
    const names = ["a/it's one.md", 'a/two "2" $HOME.md', 'a/-dash.md', "b c/back\\slash 'q'.md", 'b c/plain.md'];
    names.forEach((n, i) => write(n, wf(`w${i}`, 'in_progress')));
    git('2026-02-01T10:00:00Z', 'init', '-q');
    git('2026-02-01T10:00:00Z', 'add', '.');
    git('2026-02-01T10:00:00Z', 'commit', '-qm', 'start');
    // A local change, and a file git does not know.
    write('a/two "2" $HOME.md', wf('w1', 'in_progress', 'changed\n'), '2026-02-03T10:00:00Z');
    write("b c/new 'untracked'.md", wf('w5', 'in_progress'), '2026-02-04T10:00:00Z');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2100);

    const r = spawnSync(process.execPath, ['-r', probe, CLI, 'validate', '--json'], { cwd: root, encoding: 'utf8', env });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    const out = JSON.parse(r.stdout) as { problems: { code: string; file: string; message: string; data?: { lastActivity?: string } }[] };
    const last = Object.fromEntries(out.problems.filter((p) => p.code === 'work-stalled').map((p) => [p.file, p.data?.lastActivity]));
    const who = Object.fromEntries(out.problems.filter((p) => p.code === 'work-stalled').map((p) => [p.file, /git commit/.test(p.message)]));
    assert.deepStrictEqual(last, {
      "a/it's one.md": '2026-02-01T10:00:00.000Z',
      'a/two "2" $HOME.md': '2026-02-03T10:00:00.000Z',
      'a/-dash.md': '2026-02-01T10:00:00.000Z',
      "b c/back\\slash 'q'.md": '2026-02-01T10:00:00.000Z',
      'b c/plain.md': '2026-02-01T10:00:00.000Z',
      "b c/new 'untracked'.md": '2026-02-04T10:00:00.000Z',
    });
    assert.deepStrictEqual(who, {
      "a/it's one.md": true,
      'a/two "2" $HOME.md': false,
      'a/-dash.md': true,
      "b c/back\\slash 'q'.md": true,
      'b c/plain.md': true,
      "b c/new 'untracked'.md": false,
    });
    const children = fs.readFileSync(spawned, 'utf8').split('\n').filter(Boolean);
    assert.equal(children.length, 1, `one child for every git question, not ${children.length}: ${children.join(', ')}`);
  });
});

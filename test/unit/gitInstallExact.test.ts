import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, ENV, git, tempDir } from './gitHelpers';

function cli(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: ENV });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function repo(): string {
  const root = tempDir('wm-gitinstall-');
  git(root, 'init', '-q', '-b', 'main');
  return root;
}

describe('waymark git install / uninstall', () => {
  for (const [name, bytes] of [
    ['no final newline', '*.png binary'],
    ['CRLF and LF mixed', '*.png binary\r\n*.jpg binary\n# end\r\n'],
    ['an empty file', ''],
    ['only blank lines', '\n\n'],
  ] as const) {
    test(`uninstall gives back .gitattributes byte for byte (${name}), also after a second install`, () => {
      const root = repo();
      const file = path.join(root, '.gitattributes');
      fs.writeFileSync(file, bytes);
      assert.equal(cli(root, 'git', 'install').code, 0);
      assert.equal(cli(root, 'git', 'install').code, 0);
      assert.match(fs.readFileSync(file, 'utf8'), /merge=waymark/);
      const u = cli(root, 'git', 'uninstall');
      assert.equal(u.code, 0, u.stderr);
      assert.equal(fs.existsSync(file), true, 'a file the user had stays');
      assert.equal(fs.readFileSync(file, 'utf8'), bytes);
    });
  }

  test('a .gitattributes install created is removed again', () => {
    const root = repo();
    assert.equal(cli(root, 'git', 'install').code, 0);
    assert.equal(cli(root, 'git', 'uninstall').code, 0);
    assert.equal(fs.existsSync(path.join(root, '.gitattributes')), false);
  });

  test('orchestrator_memory.md appended on two branches merges with both entries, no conflict', () => {
    const root = repo();
    const mem = '.waymark/memory/orchestrator_memory.md';
    const abs = path.join(root, mem);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    const base = '# Orchestrator memory\n\n## Decisions\n\n- 2026-11-20 kept the API stable\n';
    fs.writeFileSync(abs, base);
    fs.writeFileSync(path.join(root, 'README.md'), 'x\n');
    assert.equal(cli(root, 'git', 'install').code, 0);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'base');
    git(root, 'checkout', '-q', '-b', 'feat');
    fs.appendFileSync(abs, '- 2026-11-21 story 1-2 split in two\n');
    git(root, 'commit', '-q', '-am', 'feat');
    git(root, 'checkout', '-q', 'main');
    fs.appendFileSync(abs, '- 2026-11-21 login uses sessions\n');
    git(root, 'commit', '-q', '-am', 'main');
    const r = spawnSync('git', ['merge', '--no-edit', 'feat'], { cwd: root, encoding: 'utf8', env: ENV });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const text = fs.readFileSync(abs, 'utf8');
    assert.ok(text.startsWith(base));
    assert.match(text, /story 1-2 split in two/);
    assert.match(text, /login uses sessions/);
    assert.doesNotMatch(text, /<<<<<<<|>>>>>>>/);
  });
});

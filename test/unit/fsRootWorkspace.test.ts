/**
 * The file system's root is never a workspace. Found on this machine (session 32): a `/.waymark/`
 * made by a run from `/` turned every folder without a marker of its own into part of one workspace
 * rooted at `/`, so `validate` in any such folder walked the whole machine and wrote a 119 MB index
 * there. Now a run from `/` is refused (what to do, exit 2, nothing written), and a marker at `/` is
 * not taken by the CLI's or the hooks' root search.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { findWorkspaceRoot, isFileSystemRoot } from '../../src/core/index';
import { findWorkspaceRoot as hookWorkspaceRoot } from '../../src/hooks/quickCheck';

const CLI = path.resolve('dist/cli.js');

describe('the file system root is no workspace', () => {
  for (const args of [['validate'], ['sprint'], ['status'], ['next'], ['board']]) {
    test(`waymark ${args.join(' ')} run from / is refused, one line, exit 2, nothing written`, () => {
      const before = fs.existsSync('/.waymark');
      const r = spawnSync(process.execPath, [CLI, ...args], { cwd: '/', encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /file system's root, not a project folder[^\n]*--root DIR/);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      assert.equal(fs.existsSync('/.waymark'), before, 'nothing made at /');
    });
  }
  test('the root search never stops at the file system root', () => {
    assert.equal(isFileSystemRoot('/'), true);
    assert.equal(isFileSystemRoot('/tmp'), false);
    // With no marker above a folder, its own folder (or the fallback) is the root, never `/`.
    const dir = fs.mkdtempSync('/tmp/wm-fsroot-');
    try {
      assert.notEqual(findWorkspaceRoot(path.join(dir, 'a.md')), '/');
      assert.equal(hookWorkspaceRoot(dir) === '/', false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { entryPath } from '../../src/core/bmad/config';

// The story search names each file of a listing by concatenation when its folder is already normal
// (config.ts entryPath; the catalog's walk too): the names must be path.join's, for every folder and entry name.
test('entryPath gives path.join(dir, name) for any folder and any name a listing holds', () => {
  const dirs = ['/', '/a', '/a/b', '/a/b/', '/a//b', '/a/./b', '/a/../b', '/a/b/..', 'a/b', '.', '', './a', '../a', '/work/x y/_bmad-output/implementation-artifacts', path.resolve('.')];
  const names = ['1-1-story.md', '.hidden.md', '..x.md', 'a b.md', 'story.MD', '-', 'x..md', '\u00e9t\u00e9.md'];
  let seed = 21;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  // Generated folders too: segments of dots, spaces and separators in every mix.
  for (let i = 0; i < 2000; i++) {
    const parts = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => ['a', '.', '..', '', 'b c', '_bmad', '.x', 'x.'][Math.floor(rand() * 8)]);
    dirs.push((rand() < 0.8 ? '/' : '') + parts.join(rand() < 0.9 ? '/' : '//') + (rand() < 0.2 ? '/' : ''));
  }
  for (const dir of dirs) {
    const normal = path.isAbsolute(dir) && path.normalize(dir) === dir;
    for (const name of names) assert.equal(entryPath(dir, normal, name), path.join(dir, name), `${JSON.stringify(dir)} + ${JSON.stringify(name)}`);
  }
});

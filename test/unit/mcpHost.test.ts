// Which paths a tool may touch: inside a workspace folder by the path given and by its real path.
// The check compares path prefixes; a sibling folder sharing the root's name as a prefix, a root
// given with a trailing separator or `..`, and a link out of the root must read as they always did.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { WaymarkError } from '../../src/core/index';
import { relativeTo, resolveInside } from '../../src/mcp/host';
import { cleanup, tmpDir } from './mcpHelpers';

after(cleanup);

function outside(roots: string[], raw: string): boolean {
  try {
    resolveInside(roots, raw);
    return false;
  } catch (e) {
    assert.ok(WaymarkError.is(e) && e.reason === 'usage', String(e));
    return true;
  }
}

test('a sibling sharing the root\'s name as a prefix is outside; a root with a trailing separator or .. is the same root', () => {
  const base = fs.realpathSync(tmpDir('waymark-host-'));
  const ws = path.join(base, 'ws');
  for (const d of ['ws/docs', 'ws2', 'wsx/docs']) fs.mkdirSync(path.join(base, d), { recursive: true });
  fs.writeFileSync(path.join(base, 'ws2', 'f.md'), 'x');
  fs.symlinkSync(path.join(base, 'ws2'), path.join(ws, 'out'));
  fs.symlinkSync(path.join(ws, 'docs'), path.join(ws, 'in'));
  for (const roots of [[ws], [ws + path.sep], [path.join(ws, 'docs') + path.sep + '..']]) {
    assert.equal(outside(roots, 'docs/a.md'), false);
    assert.equal(outside(roots, '.'), false);
    assert.equal(outside(roots, 'in/a.md'), false, 'a link that stays inside');
    assert.equal(outside(roots, 'new/folder/a.md'), false, 'a path not created yet');
    assert.equal(outside(roots, '../ws2/f.md'), true, 'a sibling whose name starts with the root\'s');
    assert.equal(outside(roots, path.join(base, 'wsx', 'docs', 'a.md')), true);
    assert.equal(outside(roots, 'out/f.md'), true, 'a link out of the root');
    assert.equal(outside(roots, '../ws'), false);
  }
  assert.equal(resolveInside([ws], 'docs/a.md').abs, path.join(ws, 'docs', 'a.md'));
  assert.equal(resolveInside([path.join(base, 'ws2'), ws], 'docs/a.md').root, path.join(base, 'ws2'), 'the first root resolves relative paths');
  assert.equal(resolveInside([path.join(base, 'ws2'), ws], path.join(ws, 'docs', 'a.md')).root, ws);
});

test('paths are shown relative to the one root, absolute outside it or with several roots', () => {
  const ws = path.join(path.sep, 'w', 'ws');
  assert.equal(relativeTo([ws], path.join(ws, 'docs', 'a.md')), 'docs/a.md');
  assert.equal(relativeTo([ws], ws), '.');
  assert.equal(relativeTo([ws], path.join(path.sep, 'w', 'ws2', 'a.md')), path.join(path.sep, 'w', 'ws2', 'a.md'));
  assert.equal(relativeTo([ws + path.sep], path.join(ws, 'a.md')), 'a.md');
  assert.equal(relativeTo([ws, path.join(path.sep, 'o')], path.join(ws, 'a.md')), path.join(ws, 'a.md'));
});

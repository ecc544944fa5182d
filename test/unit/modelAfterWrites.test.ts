// The model after writes and reloads: a write of a known workflow replaces its state in the sorted
// list in place (no sort of every workflow per write), and the cross-file (delegation) problems
// are worked out when next read, so they are always those of the states the model holds now.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { workspace } from './fileHelpers';
import { createStateCore } from '../../src/core/index';

const child = (parent: string) => `---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\nscope: small\ndelegation:\n  id: kid\n  parent_id: ${parent}\n  root_id: ${parent}\n  depth: 1\n  chain_path: [${parent}, kid]\n---\n`;
const parent = (id: string) => `---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\nscope: small\ndelegation:\n  id: ${id}\n  root_id: ${id}\n  depth: 0\n  chain_path: [${id}]\n---\n`;

describe('the model after writes', () => {
  test('lists every workflow by name with its latest state, and its delegation problems follow each change', async () => {
    const files: Record<string, string> = { 'b/kid.md': child('boss'), 'a/boss.md': parent('boss') };
    for (let i = 0; i < 30; i++) files[`w/${String(i).padStart(2, '0')}.md`] = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\nscope: small\n---\n';
    const root = workspace(files);
    const core = createStateCore({ roots: [root], memory: false });
    await core.scan();
    const orphans = () => core.problems().filter((p) => p.code === 'delegation-orphan').map((p) => path.relative(root, p.file!));
    assert.deepEqual(orphans(), []);
    const names = () => core.list().map((s) => path.relative(root, s.file));
    const sorted = names();
    assert.deepEqual(sorted, [...sorted].sort((x, y) => path.join(root, x).localeCompare(path.join(root, y))));
    for (const [i, scope] of (['large', 'micro', 'epic'] as const).entries()) {
      await core.setScope(path.join(root, 'w', `${String(i * 7).padStart(2, '0')}.md`), scope);
      assert.deepEqual(names(), sorted, 'a write keeps the order');
      assert.equal(core.list().find((s) => s.file.endsWith(`${String(i * 7).padStart(2, '0')}.md`))!.scope, scope, 'and lists the written state');
    }
    // The parent renamed on disk: the child is an orphan as soon as the model has the new state.
    fs.writeFileSync(path.join(root, 'a', 'boss.md'), parent('chief'));
    await core.reload(path.join(root, 'a', 'boss.md'));
    assert.deepEqual(orphans(), ['b/kid.md']);
    await core.setScope(path.join(root, 'b', 'kid.md'), 'large');
    assert.deepEqual(orphans(), ['b/kid.md'], 'still, after a write of the child');
    fs.writeFileSync(path.join(root, 'a', 'boss.md'), parent('boss'));
    await core.reload(path.join(root, 'a', 'boss.md'));
    assert.deepEqual(orphans(), []);
    // A new file comes: listed in its place.
    fs.writeFileSync(path.join(root, 'a', 'aa.md'), '---\nworkflow: w\nstatus: in_progress\nsteps: [a]\ncurrentStep: a\n---\n');
    await core.reload(path.join(root, 'a', 'aa.md'));
    assert.equal(names()[0], path.join('a', 'aa.md'));
    core.remove(path.join(root, 'a', 'boss.md'));
    assert.deepEqual(orphans(), ['b/kid.md'], 'a removed parent leaves an orphan');
    core.dispose();
  });
});

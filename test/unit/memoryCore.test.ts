import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore } from '../../src/core/index';
import { disposeSharedMemoryServices } from '../../src/core/memory/observer';

const tmps: string[] = [];
after(async () => {
  await disposeSharedMemoryServices();
  for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
});

describe('memory: wired into the real state core as a write observer', () => {
  test('completing steps consolidates tier-2 observations; completing the workflow writes the mandatory cold line', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-memc-'));
    tmps.push(root);
    const file = path.join(root, 'plan.md');
    fs.writeFileSync(file, '---\nworkflow: demo\nstatus: created\nsteps: [one, two]\nstepsCompleted: []\n---\n# Demo\n');
    // Memory is part of the one core: its observer consolidates, `core.memory` reads the same service.
    const core = createStateCore({ roots: [root], actor: 'tester', session: 'sess-1' });
    const mem = core.memory.forRoot(root);
    try {
      await core.scan();
      await core.start(file);
      const o1 = await mem.record({ type: 'learning', category: 'observation', text: 'step one needs the fixtures', workflow: file, step: 'one' });
      const o2 = await mem.record({ type: 'learning', category: 'pattern', text: 'two also needs them', workflow: file, step: 'two' });
      await mem.record({ type: 'decision', text: 'Keep fixtures in git', workflow: file, step: 'one' });
      await core.completeStep(file, 'one');
      let sums = (await mem.list({ types: ['summary'] })).items;
      assert.equal(sums.length, 1, 'one phase summary after step one');
      assert.deepEqual(sums[0].consolidates, [o1.id]);
      assert.equal(sums[0].source.step, 'one');
      await core.completeStep(file, 'two');
      const after2 = core.get(file)!;
      if (after2.status !== 'completed') await core.setStatus(file, 'completed');
      sums = (await mem.list({ types: ['summary'] })).items;
      assert.ok(sums.some((s) => s.category === 'phase' && s.consolidates?.includes(o2.id)));
      const wfSummary = sums.find((s) => s.category === 'workflow' && s.text.startsWith('Completed demo for plan.md'));
      assert.ok(wfSummary, `workflow summary among ${sums.map((s) => s.text).join(' / ')}`);
      assert.match(wfSummary!.text, /2\/2 steps done; 1 decision\(s\), 2 learning\(s\)/);
      const cold = fs.readFileSync(mem.paths.cold, 'utf8');
      assert.match(cold, /Started demo \(plan\.md\)/);
      assert.match(cold, /demo \(plan\.md\): step one completed, 1 observations consolidated/);
      assert.equal(cold.match(/Completed demo for plan\.md: /g)?.length, 1, 'the completion line is written once');
      // a later write on the completed workflow does not repeat it
      await core.setScope(file, 'small').catch(() => undefined);
      assert.equal(fs.readFileSync(mem.paths.cold, 'utf8').match(/Completed demo for plan\.md: /g)?.length, 1);
      const r = await mem.recall({ workflow: file, step: 'one' });
      assert.ok(r.items.some((i) => i.memory.type === 'summary' && i.distance === 0));
    } finally {
      await core.close();
    }
  });
});

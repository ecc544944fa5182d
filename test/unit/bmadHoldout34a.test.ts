// Session 34, investigator a (issue 20): held-out batch 34a. Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s34/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { inProject } from './fileHelpers';

const CLI = path.resolve(process.env.WAYMARK_CLI ?? 'dist/cli.js');
const cli = (root: string, ...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
const json = (root: string, ...args: string[]) => {
  const r = cli(root, ...args, '--json');
  assert.ok(r.status === 0 || r.status === 1, `${args.join(' ')} exits ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
type Item = { id: string; file?: string };
const offered = (root: string): Item[] => {
  const n = json(root, 'next') as { next: Item | null; ready: Item[] };
  return [...(n.next ? [n.next] : []), ...n.ready];
};

// A team's playbook (an agent squad's `workflows/` folder) describes a workflow: `workflow:` names it
// and `steps:` lists who does what (`- agent: … / task: …`), none of them a step id. It records no
// status and no progress: a description, not a run. `next` must not offer it as ready work.
test('`next` never offers a workflow description whose steps are agent/task entries with no status and no step ids', () => {
  inProject({
    'crew/launch/workflows/harvest-day.md': '---\nworkflow: Harvest Day\ndescription: Bring the crop in\nsteps:\n  - agent: "@picker"\n    task: Pick the rows in order\n  - agent: "@packer"\n    task: Box and label the crates\n---\n\n# Harvest Day\n\n## Phases\n\n1. Pick\n2. Pack\n',
    // A file with a status is still work to offer.
    'plans/tidy.md': '---\nworkflow: tidy-shed\nstatus: created\nsteps:\n  - sweep\n  - sort\n---\n\n# Tidy the shed\n',
  }, (root) => {
    const items = offered(root);
    assert.deepEqual(items.filter((i) => (i.file ?? '').includes('harvest-day')), []);
    assert.ok(items.some((i) => (i.file ?? '').includes('tidy')), JSON.stringify(items));
  });
});

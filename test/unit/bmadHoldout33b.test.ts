// Session 33, investigator b (issue 20): what held-out BMAD projects showed. Fixtures written here,
// no copied text. Each test failed before its rule (run it with WAYMARK_CLI set to
// /work/scratch/base-s33/dist/cli.js).
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
const story = (n: string, title: string, status: string) => `# ${title}\n\n- **ID:** STORY-${n}\n- **Epic:** Irrigation\n- **Status:** ${status}\n\n## User Story\n\nAs a gardener,\nI want ${title.toLowerCase()},\nSo that the beds get watered.\n\n## Acceptance Criteria\n\n- [x] It works\n`;
type S = { key: string; ledgerStatus?: string; status: string; problems: { code: string }[] };
const stories = (d: { epics: { stories: S[] }[] }) => d.epics.flatMap((e) => e.stories);

test('a `stories:` list whose items list the stories they depend on (`dependencies: - STORY-002`): the references are no stories of the plan and raise no drift', () => {
  inProject({
    'bmad/config.yaml': 'project_name: "beds"\noutput_folder: "docs"\n',
    'docs/sprint-status.yaml': [
      'sprint:', '  number: 3', 'epics:', '  - name: Irrigation', '    story_ids:', '      - STORY-007', '      - STORY-008',
      'stories:',
      '  - id: STORY-007', '    title: Valve schedule', '    status: completed', '    dependencies:', '      - STORY-001', '      - STORY-002',
      '  - id: STORY-008', '    title: Soil alarm', '    status: in_progress', '    blocked_by:', '    - STORY-003',
      'last_updated: "2026-03-02T10:00:00Z"', '',
    ].join('\n'),
    'docs/stories/STORY-001.md': story('001', 'Valve driver', 'Completed'),
    'docs/stories/STORY-002.md': story('002', 'Soil probe', 'Completed'),
    'docs/stories/STORY-003.md': story('003', 'Moisture map', 'Completed'),
    'docs/stories/STORY-007.md': story('007', 'Valve schedule', 'Completed'),
    'docs/stories/STORY-008.md': story('008', 'Soil alarm', 'In Progress'),
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).filter((s) => s.ledgerStatus).map((s) => [s.key, s.ledgerStatus]), [['STORY-007', 'done'], ['STORY-008', 'in-progress']]);
    // No story is drifting: the finished stories referred to are not "backlog" in the ledger.
    const v = json(root, 'validate');
    const drift = JSON.stringify(v).match(/story-status-drift/g) ?? [];
    assert.equal(drift.length, 0, JSON.stringify(v));
  });
});

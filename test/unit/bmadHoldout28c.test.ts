// Session 28's held-out round (issue 20), investigator c: what real projects nobody had looked at
// showed. Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { problems } from './holdoutHelpers';

const config = {
  '_bmad/bmm/config.yaml': 'project_name: lantern\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
};
const ledger = (entries: string) => ({
  '_bmad-output/implementation-artifacts/sprint-status.yaml': `development_status:\n  epic-4: in-progress\n${entries}`,
});
const story = (title: string, frontmatter: string, status: string) =>
  `${frontmatter ? `---\n${frontmatter}---\n\n` : ''}# ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a keeper, I want a lamp, so that ships see the rock.\n\n## Tasks / Subtasks\n\n- [x] Fit the lamp\n`;

// A frontmatter `status:` setting the story aside (`superseded`, `cancelled`, `on hold`) beside a
// Status line that agrees with the ledger: the file contradicts itself, as it does when the
// frontmatter says another BMAD status. The ledger still lists the story as work.
test('a frontmatter status that sets the story aside, beside a Status line the ledger agrees with: drift on the file', () => {
  inProject({
    ...config,
    ...ledger('  4-1-fit-the-lamp: done\n  4-2-paint-the-tower: done\n  4-3-wind-the-clock: in-progress\n  4-4-oil-the-gears: done\n  4-5-ring-the-bell: backlog\n'),
    '_bmad-output/implementation-artifacts/4-1-fit-the-lamp.md': story('Story 4.1: Fit the lamp', 'status: superseded\nsuperseded_by: the lens redesign\n', 'done (revised 2026-03-02)'),
    '_bmad-output/implementation-artifacts/4-2-paint-the-tower.md': story('Story 4.2: Paint the tower', 'status: cancelled\n', 'done'),
    '_bmad-output/implementation-artifacts/4-3-wind-the-clock.md': story('Story 4.3: Wind the clock', 'status: on hold\n', 'in-progress'),
    // A held story is backlog to the ledger: no contradiction.
    '_bmad-output/implementation-artifacts/4-5-ring-the-bell.md': story('Story 4.5: Ring the bell', 'status: deferred\n', 'backlog'),
    // The same statement twice: clean.
    '_bmad-output/implementation-artifacts/4-4-oil-the-gears.md': story('Story 4.4: Oil the gears', 'status: done\n', 'done'),
  }, (root) => {
    const ps = problems(root);
    const drift = (key: string) => ps.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning' && p.data?.key === key);
    for (const key of ['4-1-fit-the-lamp', '4-2-paint-the-tower', '4-3-wind-the-clock']) {
      assert.equal(drift(key).length, 1, `${key}: ${JSON.stringify(ps.filter((p) => p.data?.key === key))}`);
      assert.match(drift(key)[0].message, /contradicts itself/);
    }
    for (const key of ['4-4-oil-the-gears', '4-5-ring-the-bell']) assert.deepEqual(ps.filter((p) => p.data?.key === key && p.severity !== 'info'), []);
    assert.deepEqual(ps.filter((p) => p.severity === 'error'), []);
  });
});

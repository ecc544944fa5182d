// Session 39, held-out batch a (v6.x installs). Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s39/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

const config = 'project_name: kiln\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';
const ledger = (lines: string[]) => ['generated: 2026-11-20', 'project: kiln', 'story_location: _bmad-output/implementation-artifacts', '', 'development_status:', ...lines.map((l) => `  ${l}`), ''].join('\n');
const story = (title: string, status: string) => `# ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a potter,\nI want ${title.toLowerCase()},\nso that the glaze sets.\n\n## Tasks / Subtasks\n\n- [x] Do it\n`;

type Problem = { file: string; severity: string; code: string; message: string; data?: { key?: string } };
type Story = { key: string; status: string; ledgerStatus: string | null };
const allStories = (s: { epics?: { stories: Story[] }[]; stories?: Story[] }) => [...(s.epics ?? []).flatMap((e) => e.stories), ...(s.stories ?? [])];

// A second plan (`epics-phase2.md`) numbering its epics from 1 again; the ledger numbers them on from
// the first plan's (phase 2's epic 1 is the ledger's epic 3).
const phaseTwo = {
  '_bmad/bmm/config.yaml': config,
  '_bmad-output/planning-artifacts/epics.md': [
    '# Kiln - Epic Breakdown', '',
    '## Epic 1: Firing schedules', '', '### Story 1.1: Schedule editor', '', 'As a potter, I want an editor.', '',
    '## Epic 2: Glaze library', '', '### Story 2.1: Glaze recipes', '', 'As a potter, I want recipes.', '',
  ].join('\n'),
  '_bmad-output/planning-artifacts/epics-phase2.md': [
    '# Kiln Phase 2 - Epic Breakdown', '',
    '## Epic 1: Remote monitoring', '',
    '### Story 1.1: Temperature feed', '', 'As a potter, I want a feed.', '',
    '### Story 1.2: Alert on stall', '', 'As a potter, I want alerts.', '',
    '### Story 1.3: Cone chart export', '', 'As a potter, I want an export.', '',
  ].join('\n'),
  '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger([
    'epic-1: done', '1-1-schedule-editor: done', 'epic-1-retrospective: optional',
    'epic-2: done', '2-1-glaze-recipes: done', 'epic-2-retrospective: optional',
    'epic-3: in-progress', '3-1-temperature-feed: done', '3-2-alert-on-stall: done', '3-3-cone-chart-export: ready-for-dev', 'epic-3-retrospective: optional',
  ]),
  '_bmad-output/implementation-artifacts/1-1-schedule-editor.md': story('Story 1.1: Schedule editor', 'done'),
  '_bmad-output/implementation-artifacts/2-1-glaze-recipes.md': story('Story 2.1: Glaze recipes', 'done'),
  '_bmad-output/implementation-artifacts/3-1-temperature-feed.md': story('Story 3.1: Temperature feed', 'done'),
  '_bmad-output/implementation-artifacts/3-2-alert-on-stall.md': story('Story 3.2: Alert on stall', 'done'),
};

test('a plan numbering its epics on its own (`epics-phase2.md`, Story 1.2 "Alert on stall") is the ledger story whose key has that title (`3-2-alert-on-stall`): no story the ledger lacks, none listed twice', () => {
  inProject(phaseTwo, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.ok(!v.problems.some((p) => p.code === 'epics-story-not-in-ledger'), JSON.stringify(v.problems.filter((p) => p.code === 'epics-story-not-in-ledger')));
    const s = json(root, 'sprint');
    assert.notEqual(s.next?.action, 'sprint-planning', JSON.stringify(s.next));
    assert.deepEqual(allStories(s).map((x) => `${x.key}:${x.status}`).sort(), [
      '1-1-schedule-editor:done', '2-1-glaze-recipes:done', '3-1-temperature-feed:done', '3-2-alert-on-stall:done', '3-3-cone-chart-export:ready-for-dev',
    ]);
  });
});

test('a story of such a plan that no ledger key names by number or title is still reported missing', () => {
  inProject({
    ...phaseTwo,
    '_bmad-output/planning-artifacts/epics-phase2.md': [
      '## Epic 1: Remote monitoring', '',
      '### Story 1.1: Temperature feed', '',
      '### Story 1.4: Firing log archive', '',
    ].join('\n'),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    const missing = v.problems.filter((p) => p.code === 'epics-story-not-in-ledger');
    assert.deepEqual(missing.map((p) => p.data?.key), ['1-4-firing-log-archive'], JSON.stringify(missing));
  });
});

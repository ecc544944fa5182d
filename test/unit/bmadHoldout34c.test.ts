// Session 34, investigator c (issue 20). Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s34/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { runCli as cli, cliJson as json } from './holdoutHelpers';

const story = (title: string, status: string) => `# ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a potter,\nI want ${title.toLowerCase()},\nso that the glaze sets.\n\n## Tasks / Subtasks\n\n- [x] Fire the kiln\n`;
const epics = [
  '# Kiln - Epic Breakdown', '',
  '## Epic 1: Firing', '',
  '### Story 1.1: Kiln schedule', '', 'As a potter, I want a schedule.', '',
  '### Story 1.2: Cone chart', '', 'As a potter, I want a chart.', '',
  '## Epic 2: Glazes', '',
  '### Story 2.1: Glaze recipes', '', 'As a potter, I want recipes.', '',
  '### Story 2.2: Glaze tests', '', 'As a potter, I want test tiles.', '',
  '### Story 2.3: Glaze costs', '', 'As a potter, I want costs.', '',
  '',
].join('\n');
const ledger = (lines: string[]) => ['generated: 2026-11-01', 'project: kiln', 'story_location: _bmad-output/implementation-artifacts', '', 'development_status:', ...lines.map((l) => `  ${l}`), ''].join('\n');

test('every ledger story done while epics.md plans stories the ledger lacks: sprint, next and board all say re-run sprint planning, none offers a story BMAD cannot find', () => {
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: kiln\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad-output/planning-artifacts/epics.md': epics,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger([
      'epic-1: done', '1-1-kiln-schedule: done', '1-2-cone-chart: done', 'epic-1-retrospective: optional',
      'epic-2: in-progress', '2-1-glaze-recipes: done', 'epic-2-retrospective: optional',
    ]),
    '_bmad-output/implementation-artifacts/1-1-kiln-schedule.md': story('Story 1.1: Kiln schedule', 'done'),
    '_bmad-output/implementation-artifacts/1-2-cone-chart.md': story('Story 1.2: Cone chart', 'done'),
    '_bmad-output/implementation-artifacts/2-1-glaze-recipes.md': story('Story 2.1: Glaze recipes', 'done'),
  }, (root) => {
    const s = json(root, 'sprint');
    assert.equal(s.next?.action, 'sprint-planning', JSON.stringify(s.next));
    assert.match(s.next.reason, /2-2-glaze-tests/);
    const n = json(root, 'next');
    const offered = JSON.stringify([n.next, ...(n.ready ?? [])]);
    assert.ok(!/2-2-glaze-tests|2-3-glaze-costs/.test(offered), offered);
    const b = json(root, 'board');
    const all = JSON.stringify(b);
    assert.match(all, /sprint planning/, all);
    const text = cli(root, 'next').stdout;
    assert.match(text, /sprint planning/i, text);
  });
});

test('a ledger backlog story still comes first (create-story, as BMAD reads the ledger), and an earlier planned story the ledger lacks is neither offered nor holds it back', () => {
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: kiln\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad-output/planning-artifacts/epics.md': epics,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger([
      'epic-1: in-progress', '1-1-kiln-schedule: done', 'epic-1-retrospective: optional',
      'epic-2: backlog', '2-1-glaze-recipes: backlog', 'epic-2-retrospective: optional',
    ]),
    '_bmad-output/implementation-artifacts/1-1-kiln-schedule.md': story('Story 1.1: Kiln schedule', 'done'),
  }, (root) => {
    const s = json(root, 'sprint');
    assert.deepEqual([s.next?.action, s.next?.storyKey], ['create-story', '2-1-glaze-recipes']);
    const n = json(root, 'next');
    assert.equal(n.next?.id, 'story:2-1-glaze-recipes', JSON.stringify(n.next));
    const offered = JSON.stringify(n.ready ?? []);
    assert.ok(!/1-2-cone-chart/.test(offered), offered);
  });
});

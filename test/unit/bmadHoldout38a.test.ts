// Session 38, held-out batch a (v6.x installs). Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s38/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

const config = 'project_name: kiln\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';
const ledger = (lines: string[]) => ['generated: 2026-11-20', 'project: kiln', 'story_location: _bmad-output/implementation-artifacts', '', 'development_status:', ...lines.map((l) => `  ${l}`), ''].join('\n');
const story = (title: string, status: string) => `# ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a potter,\nI want ${title.toLowerCase()},\nso that the glaze sets.\n\n## Tasks / Subtasks\n\n- [x] Do it\n`;

type Problem = { file: string; severity: string; code: string; data?: { key?: string } };
type Story = { key: string; status: string; ledgerStatus: string | null; file?: string | null };
const allStories = (s: { epics?: { stories: Story[] }[]; stories?: Story[] }) => [...(s.epics ?? []).flatMap((e) => e.stories), ...(s.stories ?? [])];

test('a story the epics number in three parts (`Story 4.2.1: …`) is the ledger key of that number with a shorter slug (`4-2-1-…`): no "not in the ledger" warning, no sprint planning offered', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    '_bmad-output/planning-artifacts/epics.md': [
      '# Kiln - Epic Breakdown', '',
      '## Epic 4: Firing schedules', '',
      '### Story 4.1: Schedule editor', '', 'As a potter, I want an editor.', '',
      '### Story 4.2: Cone chart with three views', '', 'As a potter, I want a chart.', '',
      '### Story 4.2.1: Fold the cone chart views into a single card', '', 'As a potter, I want one card.', '',
      '### Story 4.3: Cooling ramp', '', 'As a potter, I want a ramp.', '',
    ].join('\n'),
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger([
      'epic-4: done',
      '4-1-schedule-editor: done',
      '4-2-cone-chart-with-three-views: done',
      '4-2-1-cone-chart-single-card: done',
      '4-3-cooling-ramp: done',
      'epic-4-retrospective: optional',
    ]),
    '_bmad-output/implementation-artifacts/4-1-schedule-editor.md': story('Story 4.1: Schedule editor', 'done'),
    '_bmad-output/implementation-artifacts/4-2-cone-chart-with-three-views.md': story('Story 4.2: Cone chart with three views', 'done'),
    '_bmad-output/implementation-artifacts/4-2-1-cone-chart-single-card.md': story('Story 4.2.1: Fold the cone chart views into a single card', 'done'),
    '_bmad-output/implementation-artifacts/4-3-cooling-ramp.md': story('Story 4.3: Cooling ramp', 'done'),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.ok(!v.problems.some((p) => p.code === 'epics-story-not-in-ledger'), JSON.stringify(v.problems));
    const s = json(root, 'sprint');
    assert.notEqual(s.next?.action, 'sprint-planning', JSON.stringify(s.next));
    assert.deepEqual(allStories(s).map((x) => `${x.key}:${x.status}`).sort(), ['4-1-schedule-editor:done', '4-2-1-cone-chart-single-card:done', '4-2-cone-chart-with-three-views:done', '4-3-cooling-ramp:done']);
    const n = json(root, 'next');
    assert.equal(n.next, null, JSON.stringify(n.next));
  });
});

test('a story numbered in three parts that the ledger does not list is still reported as planned but missing', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    '_bmad-output/planning-artifacts/epics.md': [
      '## Epic 4: Firing schedules', '',
      '### Story 4.1: Schedule editor', '',
      '### Story 4.2.1: Fold the cone chart views into a single card', '',
    ].join('\n'),
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger(['epic-4: in-progress', '4-1-schedule-editor: done', '4-2-cone-chart: done']),
    '_bmad-output/implementation-artifacts/4-1-schedule-editor.md': story('Story 4.1: Schedule editor', 'done'),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.deepEqual(v.problems.filter((p) => p.code === 'epics-story-not-in-ledger').map((p) => p.data?.key), ['4-2-1-fold-the-cone-chart-views-into-a-single-card'], JSON.stringify(v.problems));
  });
});

/** A team's sprint plan: `stories:` holding one list per epic (`epic_1:`), each item an id and its status. */
const perEpicLists = [
  '# Sprint plan (team format)',
  'sprint:',
  '  number: 2',
  '  status: planned',
  '',
  'stories:',
  '  # Epic 1: Clay prep',
  '  epic_1:',
  '    - id: "1.1"',
  '      title: "Wedge the clay"',
  '      status: done',
  '      depends_on: []',
  '',
  '    - id: "1.2"',
  '      title: "Center on the wheel"',
  '      status: done',
  '      depends_on: ["1.1"]',
  '',
  '  epic_2:',
  '    - id: "2.1"',
  '      title: "Bisque firing"',
  '      status: sprint_2',
  '',
  '    - id: "2.2"',
  '      title: "Glaze firing"',
  '      status: blocked',
  '      blocked_by: "2.1 is not fired"',
  '',
].join('\n');
const teamStory = (id: string, title: string, status: string) => `---\nid: "${id}"\ntitle: "${title}"\nsprint: 1\nstatus: ${status}\n---\n\n# Story ${id}: ${title}\n\n## User Story\nAs a potter, I want to ${title.toLowerCase()}.\n\n## Acceptance Criteria\n- [ ] It is done\n`;

test('a ledger keeping its stories as one list per epic under `stories:` (`epic_1: - id: "1.1", status: done`) is read: its statuses are the stories\', and next offers none the ledger calls done', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    '_bmad-output/planning-artifacts/sprint-status.yaml': perEpicLists,
    '_bmad-output/planning-artifacts/stories/story-1.1.md': teamStory('1.1', 'Wedge the clay', 'ready'),
    '_bmad-output/planning-artifacts/stories/story-1.2.md': teamStory('1.2', 'Center on the wheel', 'ready'),
  }, (root) => {
    const s = json(root, 'sprint');
    const byKey = new Map(allStories(s).map((x) => [x.key, x]));
    assert.equal(byKey.get('1.1')?.ledgerStatus, 'done', JSON.stringify(allStories(s)));
    assert.equal(byKey.get('1.2')?.ledgerStatus, 'done', JSON.stringify(allStories(s)));
    assert.ok(byKey.has('2.1') && byKey.has('2.2'), JSON.stringify([...byKey.keys()]));
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.ok(!v.problems.some((p) => p.code === 'ledger-other-format'), JSON.stringify(v.problems));
    const n = json(root, 'next');
    const offered = [n.next, ...(n.ready ?? [])].filter(Boolean).map((x: { id: string }) => x.id);
    assert.ok(!offered.some((id: string) => /1[.-][12]\b/.test(id)), JSON.stringify(offered));
  });
});

test('items of a list under another key of a story (`depends_on:`) or under `stories:` keys that are no epic stay unread', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    '_bmad-output/planning-artifacts/sprint-status.yaml': ['stories:', '  notes:', '    - id: "9.9"', '      status: done', ''].join('\n'),
  }, (root) => {
    const s = json(root, 'sprint');
    assert.ok(!allStories(s ?? {}).some((x) => x.key === '9.9'), JSON.stringify(s));
  });
});

test('with no ledger, quick-dev specs named from the plan\'s story keys (`spec-1-1-….md`, `# Story 1.1: …`, done) are the epics\' stories 1.1 and 1.2: no second, backlog copy, and next offers none', () => {
  const spec = (id: string, title: string) => `---\nstatus: done\nstory_id: ${id}\nepic: ${id.split('.')[0]}\n---\n\n# Story ${id}: ${title}\n\n## Summary\nGlaze it.\n\n## Acceptance Criteria\n- **Given** a pot\n- **Then** it is glazed\n`;
  inProject({
    '_bmad/bmm/config.yaml': config,
    '_bmad-output/planning-artifacts/epics.md': [
      '# Kiln - Epic Breakdown', '',
      '## Epic 1: Glazes', '',
      '### Story 1.1: Mix the base glaze (critical)', '', 'As a potter, I want a base.', '',
      '### Story 1.2: Add oxide colorants', '', 'As a potter, I want colour.', '',
      '## Epic 2: Firing', '',
      '### Story 2.1: Load the kiln', '', 'As a potter, I want it loaded.', '',
    ].join('\n'),
    '_bmad-output/implementation-artifacts/spec-1-1-mix-base-glaze.md': spec('1.1', 'Mix the base glaze (critical)'),
    '_bmad-output/implementation-artifacts/spec-1-2-oxide-colorants.md': spec('1.2', 'Add oxide colorants'),
  }, (root) => {
    const s = json(root, 'sprint');
    const keys = allStories(s).map((x) => `${x.key}:${x.status}`).sort();
    assert.deepEqual(keys, ['2-1-load-the-kiln:backlog', 'spec-1-1-mix-base-glaze:done', 'spec-1-2-oxide-colorants:done'], JSON.stringify(keys));
    const n = json(root, 'next');
    assert.match(String(n.next?.id), /2-1-load-the-kiln/, JSON.stringify(n.next));
  });
});

/** BMAD's create-prd as installed (its steps' files; step-05 and step-06 say "(optional step)" in their description). */
const prdInstall = (): Record<string, string> => {
  const ids = ['step-01-init', 'step-02-discovery', 'step-03-success', 'step-04-journeys', 'step-05-domain', 'step-06-innovation', 'step-07-project-type', 'step-08-scoping', 'step-09-functional', 'step-10-nonfunctional', 'step-11-polish', 'step-12-complete'];
  const dir = '_bmad/bmm/workflows/2-plan-workflows/create-prd';
  const files: Record<string, string> = { [`${dir}/workflow.md`]: '---\nname: create-prd\ndescription: Write the PRD\n---\n\n# PRD\n\nLoad steps-c/step-01-init.md.\n' };
  for (const id of ids) files[`${dir}/steps-c/${id}.md`] = `---\nname: '${id}'\ndescription: '${/0[56]-/.test(id) ? 'Explore it when the product calls for it (optional step)' : 'Do the step'}'\n---\n\n# ${id}\n`;
  return files;
};
const prd = (steps: string[]) => `---\nstepsCompleted: [${steps.map((s) => `'${s}'`).join(', ')}]\ninputDocuments: []\nworkflowType: 'prd'\n---\n\n# Product Requirements Document - Kiln\n`;

test('a PRD whose steps skip create-prd\'s optional innovation step (as its step-06 tells the agent to when nothing is novel) has no gap; a skipped required step still is one', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    ...prdInstall(),
    '_bmad-output/planning-artifacts/prd.md': prd(['step-01-init', 'step-02-discovery', 'step-03-success', 'step-04-journeys', 'step-05-domain', 'step-07-project-type', 'step-08-scoping', 'step-09-functional']),
    '_bmad-output/planning-artifacts/prd-gap.md': prd(['step-01-init', 'step-02-discovery', 'step-03-success', 'step-04-journeys', 'step-05-domain', 'step-06-innovation', 'step-08-scoping']),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    const gaps = v.problems.filter((p) => p.code === 'step-gap').map((p) => p.file.replace(/^.*[\\/]/, ''));
    assert.deepEqual(gaps, ['prd-gap.md'], JSON.stringify(v.problems));
  });
});

// (Session 38a kept such a spec listed on its own. BMAD's quick-dev (6.4 on) and build skill find a spec's
// ledger key by the two numbers its name leads with ("Story-key resolution": `1-2` is `1-2-login`, exactly
// one match), so since session 40 (bmadHoldout40b) it is that story's file.)
test('a quick-dev spec numbered like a ledger story it is not named for (`spec-1-2-auth-refactor.md` beside the ledger\'s `1-2-login`) is that story\'s file, as BMAD resolves it by its numbers', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger(['epic-1: in-progress', '1-1-setup: done', '1-2-login: review']),
    '_bmad-output/implementation-artifacts/1-1-setup.md': story('Story 1.1: Setup', 'done'),
    '_bmad-output/implementation-artifacts/spec-1-2-auth-refactor.md': '---\nstatus: done\n---\n\n# Story 1.2: Auth refactor\n\n## Summary\nRefactor it.\n',
  }, (root) => {
    const s = json(root, 'sprint');
    assert.deepEqual(allStories(s).map((x) => [x.key, x.file]), [['1-1-setup', '_bmad-output/implementation-artifacts/1-1-setup.md'], ['1-2-login', '_bmad-output/implementation-artifacts/spec-1-2-auth-refactor.md']], JSON.stringify(allStories(s).map((x) => x.key)));
  });
});

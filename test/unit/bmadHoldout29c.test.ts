// Session 29's held-out round (issue 20), investigator c: what real projects nobody had looked at
// showed. Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cli, problems, stories, offered } from './holdoutHelpers';

const story = (title: string, status: string) =>
  `# ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a gardener, I want a trellis, so that the beans climb.\n\n## Tasks / Subtasks\n\n- [x] Build it\n`;

// v4 named a story `{epic}.{story}.{slug}.story.md`; teams whose epics are named in letters
// (`epic-gx`, `epic-hotfix`) keep that name with the letters where v4 had a number, and the ledger
// keys the story `gx-2-…`, its slug often worded otherwise than the file's. The `.story.md` v4
// writes says the file is a story; a file named by its key with that suffix is the key's.
test('a dotted story name with a lettered epic (`gx.2.slug.story.md`) and a key with `.story.md` are the ledger\'s stories: drift found', () => {
  inProject({
    'specs/stories/sprint-status.yaml': 'story_location: specs/stories\ndevelopment_status:\n  epic-gx: in-progress\n  gx-1-seed-beds: done\n  gx-2-water-schedule-engine: done\n  epic-hotfix: in-progress\n  hotfix-31-frost-cover: done\n  epic-plot: in-progress\n  plot-3-compost-bins: done\n',
    'specs/stories/gx/gx.1.seed-beds.story.md': story('Story GX.1: Seed beds', 'done'),
    // The file's slug shortens the key's: the same story by its number.
    'specs/stories/gx/gx.2.water-schedule.story.md': story('Story GX.2: Water schedule', 'review'),
    'specs/stories/hotfix.31.frost-cover.story.md': story('Story HOTFIX-31: Frost cover', 'ready-for-dev'),
    // Under an epic the ledger declares, v4's dotted name without `.story`.
    'specs/stories/plot.3.compost-bins.md': story('Story PLOT.3: Compost bins', 'in-progress'),
  }, (root) => {
    const byKey = new Map(stories(root).map((s) => [s.key, s]));
    assert.equal(byKey.get('gx-1-seed-beds')?.file, 'specs/stories/gx/gx.1.seed-beds.story.md');
    assert.equal(byKey.get('gx-2-water-schedule-engine')?.file, 'specs/stories/gx/gx.2.water-schedule.story.md');
    assert.equal(byKey.get('hotfix-31-frost-cover')?.file, 'specs/stories/hotfix.31.frost-cover.story.md');
    assert.equal(byKey.get('plot-3-compost-bins')?.file, 'specs/stories/plot.3.compost-bins.md');
    const ps = problems(root);
    const drift = (key: string) => ps.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning' && p.data?.key === key);
    for (const key of ['gx-2-water-schedule-engine', 'hotfix-31-frost-cover', 'plot-3-compost-bins']) assert.equal(drift(key).length, 1, `${key}: ${JSON.stringify(ps.filter((p) => p.data?.key === key))}`);
    assert.deepEqual(ps.filter((p) => p.data?.key === 'gx-1-seed-beds' && p.severity !== 'info'), []);
    assert.deepEqual(ps.filter((p) => p.severity === 'error'), []);
  });
  // The key itself, then v4's `.story.md`, under an epic the ledger does not declare.
  inProject({
    'specs/stories/sprint-status.yaml': 'development_status:\n  issue-77-slug-trap: done\n  issue-78-stake-rows: backlog\n',
    'specs/stories/issue-77-slug-trap.story.md': story('Story issue-77: Slug trap', 'review'),
  }, (root) => {
    assert.equal(stories(root).find((s) => s.key === 'issue-77-slug-trap')?.file, 'specs/stories/issue-77-slug-trap.story.md');
    assert.equal(problems(root).filter((p) => p.code === 'story-status-drift' && p.severity === 'warning' && p.data?.key === 'issue-77-slug-trap').length, 1);
  });
});

// Letters, a number and words with dots are not a story by themselves: without v4's `.story.md`
// and with no epic of those letters in the ledger, a note (`meeting.3.minutes.md`) stays a note.
test('a dotted name with letters is no story without `.story.md` or a declared epic of those letters', () => {
  inProject({
    'specs/stories/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-seed-beds: done\n',
    'specs/stories/1-1-seed-beds.md': story('Story 1.1: Seed beds', 'done'),
    'specs/stories/meeting.3.minutes.md': '# Minutes\n\nStatus: done\n\nWe met.\n',
  }, (root) => {
    assert.deepEqual(stories(root).filter((s) => s.file?.includes('meeting')), []);
    assert.deepEqual(problems(root).filter((p) => p.file.includes('meeting')), []);
  });
});

// BMAD's code review passes a story (`review → done`); teams write its verdict after the word:
// `review-approved`, `Code Review Accepted`, as `review-passed` (already read as done) says.
test('a review\'s verdict after the word (`review-approved`) is a finished story: no warning beside a ledger that says done', () => {
  inProject({
    'docs/stories/sprint-status.yaml': 'development_status:\n  epic-2: in-progress\n  2-1-drip-line: done\n  2-2-rain-barrel: done\n  2-3-mulch: review\n',
    'docs/stories/2-1-drip-line.md': story('Story 2.1: Drip line', 'review-approved'),
    'docs/stories/2-2-rain-barrel.md': story('Story 2.2: Rain barrel', 'Code Review Accepted'),
    // The ledger still says review: the file is ahead, a note.
    'docs/stories/2-3-mulch.md': story('Story 2.3: Mulch', 'review-approved'),
  }, (root) => {
    const ps = problems(root);
    for (const key of ['2-1-drip-line', '2-2-rain-barrel']) assert.deepEqual(ps.filter((p) => p.data?.key === key && p.severity !== 'info'), [], key);
    assert.ok(ps.some((p) => p.data?.key === '2-3-mulch' && p.code === 'story-status-drift'), JSON.stringify(ps));
    assert.deepEqual(ps.filter((p) => p.code === 'story-unknown-status'), []);
  });
});

// Another tool's spec writes `workflow:` as a word of its own (`workflow: mid-sized (reference
// changes)`) with no status, no steps and no definition: nothing says what work it is or how far
// it has come; `next` must not offer it.
test('`next` never offers a file that names a workflow with no status, no steps and no definition', () => {
  inProject({
    'specs/bug-pattern/tasks.md': '---\ngenerated: auto\nspec: bug-pattern\nworkflow: mid-sized (reference changes)\n---\n\n# Tasks: Bug pattern\n\n- [x] 1.1 Add the intent\n- [x] 1.2 Add the interview\n',
    // A file with a status is still work to offer.
    'specs/tidy/plan.md': '---\nworkflow: tidy-up\nstatus: created\n---\n\n# Tidy up\n',
  }, (root) => {
    const items = offered(root);
    assert.deepEqual(items.filter((i) => (i.file ?? '').includes('bug-pattern')), []);
    assert.ok(items.some((i) => (i.file ?? '').includes('tidy')), JSON.stringify(items));
  });
});

// BMAD 6.x ships a module's workflows as skills, each skill folder holding its template beside its
// SKILL.md (`skills/bmad-testarch-trace/trace-template.md`); a project that keeps a copy of a
// module's skill pack holds those templates, `workflowType` and empty `stepsCompleted` included.
// A template is no work: never offered, never checked.
test('a template beside a skill\'s SKILL.md in a copied skill pack is no work: not offered, not checked', () => {
  inProject({
    '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.3.0\n',
    '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/_bmad-output"\n',
    // The workflow, installed as a skill with its steps.
    '.claude/skills/bmad-testarch-trace/SKILL.md': '---\nname: bmad-testarch-trace\ndescription: Trace requirements to tests.\n---\n\nFollow the steps in steps-c/.\n',
    '.claude/skills/bmad-testarch-trace/steps-c/step-01-load-context.md': '# Step 1: Load context\n',
    '.claude/skills/bmad-testarch-trace/steps-c/step-02-map-criteria.md': '# Step 2: Map criteria\n',
    // The project's copy of the module's skill pack.
    'packs/tea/skills/bmad-testarch-trace/SKILL.md': '---\nname: bmad-testarch-trace\ndescription: Trace requirements to tests.\n---\n\nFollow the steps.\n',
    'packs/tea/skills/bmad-testarch-trace/trace-template.md': "---\nstepsCompleted: []\nlastStep: ''\nlastSaved: ''\nworkflowType: 'testarch-trace'\ninputDocuments: []\n---\n\n# Traceability Matrix: {story_id}\n\n**Coverage**: {percent}%\n",
  }, (root) => {
    assert.deepEqual(offered(root).filter((i) => (i.file ?? '').includes('packs/')), []);
    assert.deepEqual(problems(root).filter((p) => p.file.includes('packs/') && p.severity !== 'info'), []);
  });
});

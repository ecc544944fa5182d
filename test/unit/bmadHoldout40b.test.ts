// Session 40, held-out batch b (issue 20): BMAD's newest release (its `bmad-build` skill's story
// specs), a v4 project kept in a subfolder with no install, the BMAD skills add-on's sprint plan.
// Fixtures written here (invented names and text, the same grammar's shape).
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s40/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

type Problem = { file: string; severity: string; code: string; message: string; data?: { key?: string } };
type Listed = { key: string; file: string | null; status: string; title?: string | null; epicId?: string };
const listed = (s: { epics: { stories: Listed[] }[] }): Listed[] => s.epics.flatMap((e) => e.stories);

/** A story spec as BMAD's `bmad-build` writes it (`spec-template.md`: its frontmatter, the frozen intent). */
const spec = (title: string, status: string) =>
  `---\ntitle: '${title}'\ntype: 'feature'\ncreated: '2026-08-01'\nstatus: '${status}'\nreview_loop_iteration: 0\nbaseline_commit: 'abc1234'\ncontext: ['_bmad-output/implementation-artifacts/epic-1-context.md']\n---\n\n<frozen-after-approval reason="human-owned intent">\n\n## Intent\n\n**Problem:** the beds are untidy.\n\n**Approach:** tidy them.\n\n</frozen-after-approval>\n\n## Code Map\n\n- \`garden/beds.ts\` -- the beds\n\n## Tasks & Acceptance\n\n**Execution:**\n- [x] \`garden/beds.ts\` -- lay out the beds\n`;

const LEDGER = '# generated: 2026-08-01\nproject: allotment\nstory_location: _bmad-output/implementation-artifacts\ndevelopment_status:\n  epic-1: in-progress\n  1-1-raised-bed-layout-and-soil-preparation: done\n  1-2-drip-irrigation-timer-with-moisture-probe: review\n  1-10-compost-bin-rotation-schedule: in-progress\n  epic-1-retrospective: optional\n';

test('a `bmad-build` story spec led by the story\'s numbers (`spec-1-2-drip-timer.md`) is the file of the one ledger story so numbered, whatever slug follows', () => {
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: allotment\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\noutput_folder: "{project-root}/_bmad-output"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': LEDGER,
    '_bmad-output/implementation-artifacts/epic-1-context.md': '# Epic 1 Context: Raised Beds\n\n## Goal\n\nTidy beds.\n',
    '_bmad-output/implementation-artifacts/spec-1-1-bed-layout.md': spec('Epic 1 Story 1.1: Raised Bed Layout and Soil Preparation', 'done'),
    '_bmad-output/implementation-artifacts/spec-1-2-drip-timer.md': spec('Story 1.2: Drip Irrigation Timer', 'in-review'),
    // Story 1.10's spec says done where the ledger still says in-progress: drift, on 1.10 (never on 1.1).
    '_bmad-output/implementation-artifacts/spec-1-10-compost-rotation.md': spec('Story 1.10: Compost Bin Rotation', 'done'),
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    assert.deepEqual(stories.map((s) => s.key).sort(), ['1-1-raised-bed-layout-and-soil-preparation', '1-10-compost-bin-rotation-schedule', '1-2-drip-irrigation-timer-with-moisture-probe'], JSON.stringify(stories));
    const byKey = Object.fromEntries(stories.map((s) => [s.key, s]));
    assert.equal(byKey['1-1-raised-bed-layout-and-soil-preparation'].file, '_bmad-output/implementation-artifacts/spec-1-1-bed-layout.md');
    assert.equal(byKey['1-2-drip-irrigation-timer-with-moisture-probe'].file, '_bmad-output/implementation-artifacts/spec-1-2-drip-timer.md');
    assert.equal(byKey['1-10-compost-bin-rotation-schedule'].file, '_bmad-output/implementation-artifacts/spec-1-10-compost-rotation.md');
    const v = json(root, 'validate') as { problems: Problem[] };
    const drift = v.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning');
    assert.deepEqual(drift.map((p) => p.file), ['_bmad-output/implementation-artifacts/spec-1-10-compost-rotation.md'], JSON.stringify(v.problems));
    assert.ok(!v.problems.some((p) => p.code === 'ledger-story-no-file'), JSON.stringify(v.problems.filter((p) => p.code === 'ledger-story-no-file')));
  });
});

test('a story spec beside the story file named by its key is not a second story, and one whose numbers two ledger stories share binds to neither', () => {
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: allotment\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\noutput_folder: "{project-root}/_bmad-output"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': '# generated: 2026-08-01\ndevelopment_status:\n  epic-2: in-progress\n  2-1-greenhouse-vents: in-progress\n  2-3-cold-frame-lids: ready-for-dev\n  2-3-cold-frame-hinges: backlog\n  epic-2-retrospective: optional\n',
    '_bmad-output/implementation-artifacts/2-1-greenhouse-vents.md': '# Story 2.1: Greenhouse Vents\n\nStatus: in-progress\n\n## Story\n\nAs a grower, I want vents, so that the greenhouse breathes.\n\n## Tasks / Subtasks\n\n- [ ] Fit the vents\n',
    '_bmad-output/implementation-artifacts/spec-2-1-vent-openers.md': spec('Story 2.1: Vent Openers', 'in-progress'),
    '_bmad-output/implementation-artifacts/spec-2-3-lids.md': spec('Story 2.3: Lids', 'draft'),
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    const byKey = Object.fromEntries(stories.map((s) => [s.key, s]));
    assert.equal(byKey['2-1-greenhouse-vents']?.file, '_bmad-output/implementation-artifacts/2-1-greenhouse-vents.md', JSON.stringify(stories));
    assert.ok(!stories.some((s) => s.file === '_bmad-output/implementation-artifacts/spec-2-1-vent-openers.md'), JSON.stringify(stories));
    assert.equal(byKey['2-3-cold-frame-lids']?.file ?? null, null, JSON.stringify(stories));
    assert.equal(byKey['2-3-cold-frame-hinges']?.file ?? null, null, JSON.stringify(stories));
  });
});

/** Every story `sprint` lists from a folder: its own epics' and each sub-project's (a monorepo). */
type Sprint = { epics?: { stories: Listed[] }[]; projects?: Sprint[]; root?: string };
const everyStory = (s: Sprint): Listed[] => [...(s.epics ?? []).flatMap((e) => e.stories), ...(s.projects ?? []).flatMap(everyStory)];

const v4Story = (n: string, title: string, status: string, box: string) =>
  `# Story ${n}: ${title}\n\n## Status\n\n${status}\n\n## Story\n\n**As a** keeper,\n**I want** ${title.toLowerCase()},\n**so that** the animals thrive.\n\n## Acceptance Criteria\n\n1. It works.\n\n## Tasks / Subtasks\n\n- [${box}] Build it (AC: 1)\n\n## Dev Notes\n\nNone.\n`;

test('a v4 project kept in a subfolder with its stories in `docs/stories/` and no install in git is read from the repository\'s root, which is no project itself', () => {
  inProject({
    // The repository's root is a copy of BMAD's own source (its `bmad-core/` is no install), not a project.
    'package.json': '{"name":"method-fork"}\n',
    'bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'bmad-core/tasks/create-next-story.md': '# Create Next Story Task\n',
    'zoo/docs/prd.md': '# Zoo Product Requirements Document (PRD)\n\n## Goals\n\n- Happy animals\n',
    'zoo/docs/stories/1.1.story.md': v4Story('1.1', 'Feeding Rota', 'Draft', ' '),
    'zoo/docs/stories/1.2.story.md': v4Story('1.2', 'Enclosure Map', 'Done', 'x'),
    // A folder whose `docs/stories/` holds no file named as BMAD names stories is no project.
    'notes/docs/stories/ideas.md': '# Ideas\n\n- a penguin cam\n',
  }, (root) => {
    const s = json(root, 'sprint') as Sprint;
    const stories = everyStory(s);
    const status = (name: string) => stories.find((x) => x.file?.endsWith(`docs/stories/${name}`))?.status;
    assert.equal(status('1.1.story.md'), 'ready-for-dev', JSON.stringify(s));
    assert.equal(status('1.2.story.md'), 'done', JSON.stringify(s));
    assert.equal(stories.length, 2, JSON.stringify(s));
  });
});

test('the BMAD skills add-on\'s sprint plan names each listed story with its `title:`: the story\'s title until its file gives one', () => {
  inProject({
    'bmad/config.yaml': 'project_name: "Orchard"\noutput_folder: "docs"\n',
    '.bmad/sprint-status.yaml': 'version: "6.0.0"\nproject_name: "Orchard"\ncurrent_sprint: 1\n\nsprints:\n  - sprint_number: 1\n    status: "in_progress"\n    goal: "Planting"\n    stories:\n      - story_id: "STORY-001"\n        title: "Dig the planting holes"\n        points: 2\n        status: "completed"\n      - story_id: "STORY-002"\n        points: 3\n        status: "not_started"\n        title: \'Stake the saplings\'\n      - { story_id: "STORY-003", title: "Mulch the rows", status: "not_started" }\n      - story_id: "STORY-004"\n        title: "Net against birds"\n        status: "in_progress"\n',
    'docs/stories/STORY-004.md': '# STORY-004: Bird Netting\n\n**Epic:** EPIC-001 Planting\n**Status:** In Progress\n\n## User Story\n\nAs a grower I want nets so that birds leave the fruit.\n\n## Acceptance Criteria\n\n- [ ] Nets up\n',
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    assert.deepEqual(stories.map((s) => [s.key, s.title]), [
      ['STORY-001', 'Dig the planting holes'], ['STORY-002', 'Stake the saplings'], ['STORY-003', 'Mulch the rows'], ['STORY-004', 'Bird Netting'],
    ], JSON.stringify(stories));
  });
});

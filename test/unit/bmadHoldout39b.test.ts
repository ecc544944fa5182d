// Session 39, held-out batch b (issue 20): v4 and v6-alpha projects, teams writing in other languages,
// ledger-only projects. Fixtures written here (invented names and text, the same grammar's shape).
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s39/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

type Problem = { file: string; severity: string; code: string; message: string };
type Listed = { key: string; file: string | null; status: string; tasks?: { done: number; total: number } };
const listed = (s: { epics: { stories: Listed[] }[] }): Listed[] => s.epics.flatMap((e) => e.stories);

/**
 * A story as BMAD v4's brownfield-create-story task writes it: every section a `####` heading (no
 * `#`, `##` or `###` above them), the status under `##### Status` in the Dev Agent Record.
 */
const brownfield = (title: string, boxes: string, status: string) =>
  `#### Story Title\n\n${title} - Brownfield Addition\n\n#### User Story\n\nAs a gardener,\nI want ${title.toLowerCase()},\nSo that the beds stay tidy.\n\n#### Story Context\n\n**Existing System Integration:**\n\n- Integrates with: the watering rota\n\n#### Acceptance Criteria\n\n1. It works.\n\n#### Tasks\n\n${boxes}\n\n#### Technical Notes\n\n- **Integration Approach:** beside the rota\n\n#### Definition of Done\n\n- [x] Functional requirements met\n\n#### Dev Agent Record\n\n##### Agent Model Used\n\nsome model\n\n##### Status\n${status}\n`;

test('a v4 brownfield story whose sections are all `####` headings has its `#### Tasks` boxes read as tasks', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/story-3-1.md': brownfield('Hedge trimming', '- [x] Sharpen the shears\n- [x] Trim the north hedge\n- [x] Sweep the clippings', 'Ready for Review'),
    'docs/stories/story-3-2.md': brownfield('Seed labels', '- [x] Print the labels\n- [ ] Stake them in the beds', 'Done'),
    // The dev agent recorded the status with the Definition of Done's results (no `##### Status`).
    'docs/stories/story-3-3.md': brownfield('Path edging', '- [x] Lay the edging', 'x').replace('##### Status\nx\n', '').replace('- [x] Functional requirements met', '**Status:** Ready for Review\n\n**DoD Checklist Results:**\n- [x] Functional requirements met'),
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    const byKey = Object.fromEntries(stories.map((s) => [s.key, s]));
    assert.deepEqual(byKey['story-3-1']?.tasks && { done: byKey['story-3-1'].tasks.done, total: byKey['story-3-1'].tasks.total }, { done: 3, total: 3 }, JSON.stringify(stories));
    assert.deepEqual(byKey['story-3-2']?.tasks && { done: byKey['story-3-2'].tasks.done, total: byKey['story-3-2'].tasks.total }, { done: 1, total: 2 }, JSON.stringify(stories));
    assert.equal(byKey['story-3-3']?.status, 'review', JSON.stringify(stories));
    // The Definition of Done's box is no task.
    const v = json(root, 'validate') as { problems: Problem[] };
    const open = v.problems.filter((p) => p.code === 'story-done-tasks-open');
    assert.deepEqual(open.map((p) => p.file), ['docs/stories/story-3-2.md'], JSON.stringify(v.problems));
  });
});

test('a file whose sections are `###` under a `#` title still reads `### Tasks` as its tasks and a `####` heading inside them as part of them', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/1.1.story.md': '# Story 1.1: Compost bins\n\n### Status\n\nDone\n\n### Story\n\nAs a gardener, I want bins, so that waste turns to soil.\n\n### Acceptance Criteria\n\n1. Bins stand.\n\n### Tasks / Subtasks\n\n#### Build\n\n- [x] Cut the boards\n- [x] Nail them\n\n#### Dev Notes\n\n- [x] Not a task? It is under Tasks.\n\n### Dev Notes\n\n- [ ] A note, not a task\n',
  }, (root) => {
    const [s] = listed(json(root, 'sprint'));
    assert.deepEqual(s.tasks && { done: s.tasks.done, total: s.tasks.total }, { done: 3, total: 3 }, JSON.stringify(s));
  });
});

test('a done word read without a ledger on a story with no task list says so, not that its ticked tasks say it', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/2.1.story.md': '# Story 2.1: Rain gauge\n\n**Status**: Complete\n\n## Story\n\nAs a gardener, I want a rain gauge, so that I water less.\n\n## Acceptance Criteria\n\n1. It measures rain.\n\n## Tasks / Subtasks\n\n### Task 1: Mount the gauge (AC: 1)\n1.1. Pick a post\n1.2. Screw it on\n',
    'docs/stories/2.2.story.md': '# Story 2.2: Soil probe\n\n**Status**: Complete\n\n## Story\n\nAs a gardener, I want a probe, so that I know the soil.\n\n## Acceptance Criteria\n\n1. It probes.\n\n## Tasks / Subtasks\n\n- [x] Buy a probe\n- [x] Calibrate it\n',
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    const legacy = Object.fromEntries(v.problems.filter((p) => p.code === 'story-legacy-status').map((p) => [p.file, p]));
    assert.equal(legacy['docs/stories/2.1.story.md']?.severity, 'info', JSON.stringify(v.problems));
    assert.doesNotMatch(legacy['docs/stories/2.1.story.md'].message, /ticked tasks/, legacy['docs/stories/2.1.story.md'].message);
    assert.match(legacy['docs/stories/2.1.story.md'].message, /no task/, legacy['docs/stories/2.1.story.md'].message);
    assert.match(legacy['docs/stories/2.2.story.md']?.message ?? '', /ticked tasks/, JSON.stringify(v.problems));
  });
});

test('sprint never tells create-story to write a backlog story whose file is already written: it names the file and the step that takes it up', () => {
  const story = (slug: string) => `# Story — ${slug}\n\n**Epic:** Epic 1 — Beds\n**Story slug:** \`story-${slug}\`\n\n## Goal\n\nLay out the ${slug}.\n\n## Acceptance criteria\n\n- Given a bed, when it is dug, then it holds soil.\n`;
  inProject({
    'docs/sprint-status.yaml': 'project: allotment\n\nstories:\n  - id: story-raised-beds\n    epic: "Epic 1 — Beds"\n    status: DONE\n    depends_on: []\n  - id: story-drip-line\n    epic: "Epic 1 — Beds"\n    status: PENDING\n    depends_on: [story-raised-beds]\n  - id: story-cold-frame\n    epic: "Epic 1 — Beds"\n    status: PENDING\n    depends_on: [story-drip-line]\n',
    'docs/stories/story-raised-beds.md': story('raised-beds'),
    'docs/stories/story-drip-line.md': story('drip-line'),
  }, (root) => {
    const s = json(root, 'sprint') as { next?: { action: string; storyKey?: string; reason: string } };
    assert.equal(s.next?.storyKey, 'story-drip-line', JSON.stringify(s.next));
    assert.notEqual(s.next?.action, 'create-story', JSON.stringify(s.next));
    assert.match(s.next?.reason ?? '', /docs\/stories\/story-drip-line\.md/, JSON.stringify(s.next));
  });
  // With no file yet, create-story is still the step (the first backlog story); with one, the file is taken up.
  const v6 = (n: number, slug: string) => `# Story 1.${n}: ${slug}\n\nStatus: ${n === 1 ? 'done' : 'backlog'}\n\n## Story\n\nAs a gardener, I want ${slug}, so that it grows.\n\n## Acceptance Criteria\n\n1. It grows.\n\n## Tasks / Subtasks\n\n- [${n === 1 ? 'x' : ' '}] Plant it\n`;
  const ledger = 'development_status:\n  epic-1: in-progress\n  1-1-raised-beds: done\n  1-2-drip-line: backlog\n  1-3-cold-frame: backlog\n';
  inProject({
    '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/_bmad-output"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger,
    '_bmad-output/implementation-artifacts/1-1-raised-beds.md': v6(1, 'raised-beds'),
  }, (root) => {
    const s = json(root, 'sprint') as { next?: { action: string; storyKey?: string } };
    assert.deepEqual({ action: s.next?.action, key: s.next?.storyKey }, { action: 'create-story', key: '1-2-drip-line' }, JSON.stringify(s.next));
  });
  inProject({
    '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/_bmad-output"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger,
    '_bmad-output/implementation-artifacts/1-1-raised-beds.md': v6(1, 'raised-beds'),
    '_bmad-output/implementation-artifacts/1-2-drip-line.md': v6(2, 'drip-line'),
  }, (root) => {
    const s = json(root, 'sprint') as { next?: { action: string; storyKey?: string; reason: string } };
    assert.equal(s.next?.storyKey, '1-2-drip-line', JSON.stringify(s.next));
    assert.notEqual(s.next?.action, 'create-story', JSON.stringify(s.next));
  });
});

test('a Status label that closes the file (its last line, after the story\'s own sections) states the story\'s status when nothing else does, however long the file', () => {
  const filler = Array.from({ length: 40 }, (_, k) => `- Regra ${k + 1}: nunca regar ao meio-dia`).join('\n');
  const story = (n: number, closing: string) => `# Story 4.${n}: Canteiro ${n}\n\n**Tipo:** Feature | **Prioridade:** Alta | **Responsável:** @dev\n\n## Objetivo\nPreparar o canteiro ${n}.\n\n## Critérios\n- [x] Terra revolvida\n- [x] Sementes plantadas\n\n## Regras Críticas\n${filler}\n\n${closing}\n`;
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/story-4.1.md': story(1, '**Status:** ✅ Concluída | **Implementado:** @dev | **Data:** 2026-01-10'),
    'docs/stories/story-4.2.md': story(2, '*Documento gerado por @pm para refinamento.*'),
    // Right after the criteria's boxes, a plain label line closes the file; a criterion's item does not.
    'docs/stories/story-4.3.md': `# Story 4.3: Trellis\n\n## Acceptance Criteria\n\n${filler}\n- [x] The trellis stands\n**Status:** Done\n`,
    'docs/stories/story-4.4.md': `# Story 4.4: Labels\n\n## Acceptance Criteria\n\n${filler}\n- **Status:** done is shown on each label\n`,
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    const byKey = Object.fromEntries(stories.map((s) => [s.key, s]));
    assert.equal(byKey['story-4.1']?.status, 'done', JSON.stringify(stories));
    // A closing line stating no status states none.
    assert.notEqual(byKey['story-4.2']?.status, 'done', JSON.stringify(stories));
    assert.equal(byKey['story-4.3']?.status, 'done', JSON.stringify(stories));
    assert.notEqual(byKey['story-4.4']?.status, 'done', JSON.stringify(stories));
    const n = json(root, 'next') as { next: { file?: string } | null };
    assert.notEqual(n.next?.file, 'docs/stories/story-4.1.md', JSON.stringify(n.next));
  });
});

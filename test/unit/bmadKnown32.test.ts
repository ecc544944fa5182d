// Session 32's known leftovers of the held-out batch (issue 20), each a grammar rule other projects
// write the same way. Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { classifyStoryKey } from '../../src/core/bmad/ledger';
import { storyKeyFromName } from '../../src/core/bmad/story';
import { inProject } from './fileHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');
const V4 = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n' };
const V6_CONFIG = 'project_name: demo\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\n';
const IA = '_bmad-output/implementation-artifacts';
const BODY = '\n## Story\n**As a** developer, **I want** it, **so that** it works.\n\n## Acceptance Criteria\n1. It works\n\n## Tasks / Subtasks\n- [x] Build it\n';
const USER_STORY = '\n## User Story\n\nAs the presenter,\nI want a working project,\nSo that I can start.\n\n## Scope\n\n- Set it up\n';

const names = (r: ReturnType<typeof loadSprint>) => r!.stories.filter((s) => s.file).map((s) => path.basename(s.file!)).sort();
const byName = (r: ReturnType<typeof loadSprint>, name: string) => r!.stories.find((s) => s.file && path.basename(s.file) === name);
const cli = (root: string, ...args: string[]) => spawnSync(process.execPath, [path.resolve('dist/cli.js'), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });

test('one-number stories with no epic (`STORY-001.md`, `story-4-offline.md`, `story7.md`) titled by their number, holding a user story, are stories of no epic, in number order', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    [`${IA}/stories/STORY-001.md`]: `# STORY-001: Project Setup\n\n**Priority:** P0\n**Status:** Not Started\n${USER_STORY}`,
    [`${IA}/stories/STORY-010.md`]: `# STORY-010: Polish\n\n**Status:** Done\n${USER_STORY}`,
    [`${IA}/stories/STORY-002.md`]: `# STORY-002: Slides\n\n**Status:** In Progress\n${USER_STORY}`,
    [`${IA}/stories/story-4-offline-mode.md`]: `# Story 4: Offline Mode\n${USER_STORY}`,
    // Its title names another number, or no user story: not a story.
    [`${IA}/stories/STORY-005.md`]: `# STORY-006: Elsewhere\n${USER_STORY}`,
    [`${IA}/stories/STORY-007.md`]: '# STORY-007: Completion Report\n\nAll done.\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.ok(r, 'a sprint of the story files');
    assert.deepEqual(r.stories.map((s) => [s.key, s.story, s.status]), [
      ['STORY-001', '1', 'backlog'], ['STORY-002', '2', 'in-progress'], ['story-4-offline-mode', '4', 'ready-for-dev'], ['STORY-010', '10', 'done'],
    ]);
    assert.ok(r.stories.every((s) => s.epicId === r.stories[0].epicId));
    assert.equal(byName(r, 'STORY-001.md')?.title, 'Project Setup');
    assert.equal(byName(r, 'story-4-offline-mode.md')?.title, 'Offline Mode');
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => p.code), []);
    // The faces agree: sprint lists them, next offers the story in progress.
    const s = cli(root, 'sprint', '--json');
    assert.equal(s.status, 0, s.stderr);
    assert.deepEqual(JSON.parse(s.stdout).epics.flatMap((e: { stories: { key: string }[] }) => e.stories.map((x) => x.key)), ['STORY-001', 'STORY-002', 'story-4-offline-mode', 'STORY-010']);
    const n = cli(root, 'next', '--json');
    assert.match(n.stdout, /STORY-002/);
  });
  // Kept in an epic's folder, the same name is that epic's story (`epic-01/story-02-x.md`), as before.
  inProject({ ...V4, 'docs/stories/epic-01/story-02-contracts.md': `# Story 2: Contracts\n\n## Status\nDone\n${BODY}` }, (root) => {
    assert.equal(loadSprint(root, { now: NOW })!.stories[0].key, '1-2-contracts');
  });
});

// (A guard: passed before too; the ledger's epic and status must stay the story's.)
test('a ledger listing one-number story keys (`story-001-setup: done` under `epic-1`) still wins: its epic, its status', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    [`${IA}/sprint-status.yaml`]: 'development_status:\n  epic-1: in-progress\n  story-001-setup: done\n  story-002-slides: in-progress\n',
    [`${IA}/stories/story-001-setup.md`]: `# STORY-001: Project Setup\n\n**Status:** Done\n${USER_STORY}`,
    [`${IA}/stories/story-002-slides.md`]: `# STORY-002: Slides\n\n**Status:** Review\n${USER_STORY}`,
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => [s.key, s.epicId, s.status, s.file && path.basename(s.file)]), [['story-001-setup', '1', 'done', 'story-001-setup.md'], ['story-002-slides', '1', 'in-progress', 'story-002-slides.md']]);
    assert.deepEqual([...new Set(r.problems.filter((p) => p.code === 'story-status-drift').map((p) => path.basename(p.file)))], ['story-002-slides.md', 'sprint-status.yaml']);
  });
});

test('a root `stories/` folder is read when the declared story folder does not exist', () => {
  inProject({
    ...V4,
    'stories/story1.md': `# Story 1: Agent Core Definition\n\n## Story Details\n**ID**: PS-001\n${USER_STORY}`,
    'stories/story2.md': `# Story 2: Core Tasks\n${USER_STORY}`,
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.ok(r);
    assert.deepEqual(names(r), ['story1.md', 'story2.md']);
    assert.equal(byName(r, 'story1.md')?.title, 'Agent Core Definition');
  });
  // The declared folder exists: the root's `stories/` is not read.
  inProject({ ...V4, 'docs/stories/1.1.login.md': `# Story 1.1: Login\n\n## Status\nDone\n${BODY}`, 'stories/story1.md': `# Story 1: Other\n${USER_STORY}` }, (root) => {
    assert.deepEqual(names(loadSprint(root, { now: NOW })), ['1.1.login.md']);
  });
});

test('a declared story folder that does not exist is read at the one sibling that names it but for separators and case, with a note', () => {
  inProject({
    '.bmad/bmm/config.yaml': 'project_name: demo\noutput_folder: "{project-root}/docs"\nsprint_artifacts: \'{project-root}/docs/sprint-artifacts\'\n',
    'docs/sprint_artifacts/story-vanity-url-1.md': `# Story 1.1: Vanity URL\n\nStatus: review\n${BODY}`,
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.ok(r);
    assert.deepEqual(names(r), ['story-vanity-url-1.md']);
    const note = r.problems.filter((p) => p.code === 'bmad-folder-near-miss');
    assert.equal(note.length, 1);
    assert.equal(note[0].severity, 'info');
    assert.match(note[0].message, /docs\/sprint-artifacts.*does not exist.*docs\/sprint_artifacts/);
  });
  // Two siblings that would do: neither is chosen.
  inProject({
    '.bmad/bmm/config.yaml': 'project_name: demo\noutput_folder: "{project-root}/docs"\nsprint_artifacts: \'{project-root}/docs/sprint-artifacts\'\n',
    'docs/sprint_artifacts/story-vanity-url-1.md': `# Story 1.1: Vanity URL\n\nStatus: review\n${BODY}`,
    'docs/Sprint_Artifacts/story-other-1.md': `# Story 1.1: Other\n\nStatus: review\n${BODY}`,
  }, (root) => {
    assert.equal(loadSprint(root, { now: NOW }), undefined);
  });
});

test('a date after the word story (`epic-3-story-2025-11-01.md`) is a dated note, not story 3.2025', () => {
  assert.equal(classifyStoryKey('epic-3-story-2025-11-01'), undefined);
  assert.equal(storyKeyFromName('epic-3-story-2025-11-01.md'), undefined);
  assert.equal(classifyStoryKey('epic-3-story-2')?.story, '2');
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    [`${IA}/3-1-login.md`]: `# Story 3.1: Login\n\nStatus: done\n${BODY}`,
    [`${IA}/epic-3-story-2025-11-01.md`]: '# Epic 3 stories written 2025-11-01\n\nStatus: draft\n\n- 3.1 Login\n',
  }, (root) => {
    assert.deepEqual(names(loadSprint(root, { now: NOW })), ['3-1-login.md']);
  });
});

test('a file titled as an epic by a team series id (`# Epic TEA-BUILTIN-001.7: …`) is the epic\'s document, not a story', () => {
  inProject({
    ...V4,
    'docs/stories/TEA-BUILTIN-001.6.1.catalog.md': `# Story TEA-BUILTIN-001.6.1: Catalog\n\n## Status\nDone\n${BODY}`,
    'docs/stories/TEA-BUILTIN-001.7.neo4j-remote-graph-backend.md': `# Epic TEA-BUILTIN-001.7: Neo4j Remote Graph Backend\n\n## Status\n\nDraft\n\n## Epic Goal\n\nA backend.\n\n## Stories\n\n| Story | Title |\n|---|---|\n| TEA-BUILTIN-001.7.1 | Driver |\n`,
  }, (root) => {
    assert.deepEqual(names(loadSprint(root, { now: NOW })), ['TEA-BUILTIN-001.6.1.catalog.md']);
  });
});

test('a BMB workflow edit plan (`workflow-edit-{name}.md`, `targetWorkflow:`) is the workflow builder\'s artifact, not an unknown workflow', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG.replace('_bmad-output"', 'docs"'),
    'docs/workflow-edit-create-epics-and-stories.md': '---\nstepsCompleted: [1]\ntargetWorkflow: create-epics-and-stories\nuserGoal: Track epics in an issue tracker\ncreatedDate: 2025-12-16\n---\n\n# Workflow Edit: create-epics-and-stories\n\n## User\'s Goal\n\nTrack them.\n',
  }, (root) => {
    const v = cli(root, 'validate', '--json');
    const mine = JSON.parse(v.stdout).problems.filter((p: { file: string }) => p.file.endsWith('workflow-edit-create-epics-and-stories.md'));
    assert.deepEqual(mine.filter((p: { code: string }) => p.code === 'bmad-workflow-unknown'), []);
    assert.ok(mine.some((p: { message: string }) => /'workflow' workflow/.test(p.message)), JSON.stringify(mine));
  });
});

test('`waymark sprint` at a repository root that is a BMAD project names a BMAD project nested below it, with how to read it', () => {
  inProject({
    '.bmad/bmm/config.yaml': 'project_name: root\noutput_folder: "{project-root}/docs"\n',
    'docs/stories/1.1.root-story.md': `# Story 1.1: Root Story\n\n## Status\nDone\n${BODY}`,
    'Projects/My App/.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'Projects/My App/docs/stories/1.1.nested.md': `# Story 1.1: Nested\n\n## Status\nDone\n${BODY}`,
    'Projects/My App/docs/stories/1.2.nested-two.md': `# Story 1.2: Nested Two\n\n## Status\nDraft\n${BODY}`,
  }, (root) => {
    const t = cli(root, 'sprint');
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /1-1-root-story/);
    assert.match(t.stdout, /Also a BMAD project of its own: Projects\/My App \(2 stories\); read it with: waymark sprint "Projects\/My App"/);
    const j = JSON.parse(cli(root, 'sprint', '--json').stdout);
    assert.deepEqual(j.nestedProjects, [{ root: 'Projects/My App', stories: 2 }]);
    // From its own folder it is read as a project of its own.
    const n = JSON.parse(cli(path.join(root, 'Projects/My App'), 'sprint', '--json').stdout);
    assert.equal(n.epics.flatMap((e: { stories: unknown[] }) => e.stories).length, 2);
    assert.equal(n.nestedProjects, undefined);
  });
});

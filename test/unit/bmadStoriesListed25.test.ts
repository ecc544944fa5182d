// Stories on disk that `waymark sprint` did not list (session 25, issue 20: "every ledger story takes
// part"; the corpus runner's "stories listed" column). Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { storyKeyFromName } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');

/** The sprint of a project of these files (written to a temp folder, removed after). */
const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-listed-')!;

test('story-E8.10.md and story-AP-1.1.md: the letters that say "epic" glued to its number, a module prefix before it', () => {
  const n = (f: string) => { const s = storyKeyFromName(f); return s && `${s.epicId}.${s.story}`; };
  assert.equal(n('story-E8.10.md'), '8.10');
  assert.equal(n('story-Ep3.2-slug.md'), '3.2');
  assert.equal(n('story-AP-1.1.md'), 'ap-1.1');
  assert.equal(n('story-UGM-3.8-offline-queue.md'), 'ugm-3.8');
  // A lone letter before the number is no module (`story-S-1.1-confirmation.md`: S says "story"); not read so.
  assert.equal(n('story-S-1.1-ready-confirmation.md'), undefined);
  // Not stories: a dated note, a plan with no story number.
  assert.equal(n('story-2026-01-12.md'), undefined);
  assert.equal(n('story-map.md'), undefined);
});

test('with no ledger, stories named story-AP-1.1.md and story-E2.1.md are listed under their epics, and matched to planned keys', () => {
  const d = sprintOf({
    'bmad/bmm/config.yaml': "dev_story_location: '{project-root}/docs/stories'\noutput_folder: '{project-root}/docs'\n",
    'docs/stories/story-1.1.md': '# Story 1.1: Setup\n\nStatus: done\n',
    'docs/stories/story-E2.1.md': '# Story E2.1: Secret mode\n\n**Story ID**: E2.1\n**Status**: Ready for Review\n',
    'docs/stories/story-AP-1.1.md': '# Story AP-1.1: Roles\n\n## Status\nIn Progress\n',
    'docs/stories/story-AP-1.2.md': '# Story AP-1.2: Permissions\n\n## Status\nBacklog\n',
  });
  const listed = d.stories.filter((s) => s.file).map((s) => `${s.epicId}.${s.story} ${path.basename(s.file!)} ${s.status}`).sort();
  assert.deepEqual(listed, [
    '1.1 story-1.1.md done',
    '2.1 story-E2.1.md review',
    'ap-1.1 story-AP-1.1.md in-progress',
    'ap-1.2 story-AP-1.2.md backlog',
  ]);
});

test('epic-q3-partial-siblings above q3-1-slug: the lettered series epic q3 with its title, its retrospective keyed by the id alone', () => {
  const l = parseLedger('sprint-status.yaml', [
    'development_status:',
    '  epic-q3-partial-report-only-siblings: done',
    '  q3-1-capability-dimension: done',
    '  q3-2-governance-tracker-dimension: done',
    '  q3-3-lane-discipline-dimension: in-progress',
    '  epic-q3-retrospective: done',
    '',
  ].join('\n'));
  assert.deepEqual(l.entries.map((e) => `${e.kind} ${e.epicId}${e.story !== undefined ? `.${e.story}` : ''}`), ['epic q3', 'story q3.1', 'story q3.2', 'story q3.3', 'retro q3']);
});

test('a story file named with a shorter slug than its ledger key, under a lettered epic (q3-4-calibration.md for q3-4-calibration-report-only), is its file: drift is found', () => {
  const d = sprintOf({
    '_bmad-output/implementation-artifacts/sprint-status.yaml': [
      'development_status:', '  epic-q3-partial-siblings: in-progress', '  q3-1-capability-dimension: done',
      '  q3-4-calibration-dimension-report-only: done', '  epic-q3-retrospective: optional', '',
    ].join('\n'),
    '_bmad-output/implementation-artifacts/q3-1-capability-dimension.md': '# Story Q3.1: Capability\n\nStatus: done\n',
    '_bmad-output/implementation-artifacts/q3-4-calibration-dimension.md': '# Story Q3.4: Calibration\n\nStatus: ready-for-dev\n',
  });
  const s = d.stories.find((x) => x.key === 'q3-4-calibration-dimension-report-only')!;
  assert.equal(path.basename(s.file ?? ''), 'q3-4-calibration-dimension.md');
  assert.deepEqual(d.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning').map((p) => path.basename(p.file)), ['q3-4-calibration-dimension.md']);
});

test('a status with a qualifier after it (Approved with amendments, Done with known issues) is that status', async () => {
  const { normalizeStoryStatus } = await import('../../src/core/bmad/story');
  assert.deepEqual(normalizeStoryStatus('APPROVED WITH AMENDMENTS'), { status: 'ready-for-dev', exact: false });
  assert.deepEqual(normalizeStoryStatus('Done with known issues'), { status: 'done', exact: false });
  assert.deepEqual(normalizeStoryStatus('In Progress with blockers'), { status: 'in-progress', exact: false });
  // Not a status before `with`: nothing read.
  assert.equal(normalizeStoryStatus('Working with design').status, undefined);
});

// (Session 29: a variant numbered after the story, `7.2-FX.…`, is a story of its own, listed beside 7.2; notes stay out.)
test('of two files numbered as one story with no ledger, the notes about it are not stories; the story and a variant numbered after it each are', () => {
  const story = (n: string, t: string, st: string) => `# Story ${n}: ${t}\n\n## Status\n${st}\n\n## Tasks / Subtasks\n- [x] Build it\n`;
  const d = sprintOf({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/1.5-completion-summary.md': '# Story 1.5 - Web Inventory - Completion Summary\n\n**Story Status:** ✅ COMPLETED\n',
    'docs/stories/1.5.web-inventory-view.md': story('1.5', 'Web Inventory View', 'Done'),
    'docs/stories/0.6.integration-testing-amendments.md': story('0.6', 'Integration Testing - Amendment Document', 'Approved'),
    'docs/stories/0.6.integration-testing.md': story('0.6', 'Integration Testing', 'Done'),
    'docs/stories/7.2-FX.forex-position-sizing.md': story('7.2-FX', 'Forex Position Sizing', 'Done'),
    'docs/stories/7.2.position-size-calculation.md': story('7.2', 'Position Size Calculation', 'Review'),
    'docs/stories/11.6.IMPLEMENTATION.md': story('11.6', 'Implementation', 'Done'),
    'docs/stories/11.6.notification-alert-system.md': story('11.6', 'Notification Alert System', 'In Progress'),
  });
  const files = d.stories.filter((s) => s.file).map((s) => `${s.epicId}.${s.story} ${path.basename(s.file!)}`).sort();
  assert.deepEqual(files, [
    '0.6 0.6.integration-testing.md',
    '1.5 1.5.web-inventory-view.md',
    '11.6 11.6.notification-alert-system.md',
    '7.2 7.2-FX.forex-position-sizing.md',
    '7.2 7.2.position-size-calculation.md',
  ]);
});

// (Session 29: two story files of one number are both listed, each with its own status, and said once.)
test('of two files of one number, one named with a word after the number (story-0.1-dev.md), each states its own status and both are listed', () => {
  const d = sprintOf({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/story-0.1-dev.md': '# Story 0.1: Project Initialization\n\nStatus: done\n',
    'docs/stories/story-0.1.md': '---\nstatus: pending\n---\n\n# Story 0.1: Project Initialization\n',
  });
  assert.deepEqual(d.stories.filter((s) => s.file).map((s) => `${path.basename(s.file!)} ${s.status}`), ['story-0.1.md backlog', 'story-0.1-dev.md done']);
});

test('a story whose slug holds the word "note" (a musical note) is no note about a story', () => {
  const d = sprintOf({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/7.10-note-pattern-broadcast.md': '# Story 7.10: Note Pattern Broadcast\n\nStatus: Approved\n',
    'docs/stories/7.10-user-settings-persistence.md': '# Story 7.10: User Settings Persistence\n\nStatus: Approved\n',
  });
  assert.deepEqual(d.stories.filter((s) => s.file).map((s) => path.basename(s.file!)), ['7.10-note-pattern-broadcast.md', '7.10-user-settings-persistence.md']);
});

test('when every file of a number is a note (an implementation guide, a completion summary), the choice stays the one made before: the first by name', () => {
  const d = sprintOf({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/story-3.3-completion-summary.md': '# Story 3.3: Review algorithm\n\n**Status:** Done\n',
    'docs/stories/story-3.3-implementation-guide.md': '# Story 3.3 guide: Review algorithm\n\n**Status:** Ready for Development\n',
  });
  assert.deepEqual(d.stories.filter((s) => s.file).map((s) => path.basename(s.file!)), ['story-3.3-completion-summary.md']);
});

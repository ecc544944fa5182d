// Story files `sprint` did not list (session 31, issue 20, held-out batches 31a/31b: story files
// named without BMAD's N.M numbers). Fixtures written for these tests; each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { storyKeyFromName } from '../../src/core/bmad/story';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-11-30T09:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout31a-');

const listed = (d: ReturnType<typeof sprintOf>) => (d?.stories ?? []).filter((s) => s.file).map((s) => `${path.basename(s.file!)} ${s.epicId}.${s.story} ${s.status}`).sort();
const CONFIG = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n' };

test('story-epic-N-M: the word story, then the epic spelled out (or its letter), then the numbers dashed, names story N.M', () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/stories/story-epic-1-1.md': '# Story 1.1: Ferry Timetable Import\n\n## Status\n**DONE** ✅ - reviewed\n\n## Story\n**As a** harbour clerk, **I want** the timetable imported, **so that** crossings show.\n',
    'docs/stories/story-epic-1-2.md': '# Story 1.2: Berth Allocation\n\n## Status\nIn Progress\n',
    'docs/stories/story-epic-2-1.md': '# Story 2.1: Tide Alerts\n\n## Status\nDraft\n',
    'docs/stories/story-epic3-2-fuel-log.md': '# Story 3.2: Fuel Log\n\nStatus: review\n',
    'docs/stories/story-e4-1.md': '# Story 4.1: Crew Roster\n\n## Status\nApproved\n',
    'docs/stories/story_ep5_2a.md': '# Story 5.2a: Weather Feed Retry\n\n## Status\nDone\n',
  });
  assert.deepEqual(listed(d), [
    'story-e4-1.md 4.1 ready-for-dev',
    'story-epic-1-1.md 1.1 done',
    'story-epic-1-2.md 1.2 in-progress',
    'story-epic-2-1.md 2.1 ready-for-dev',
    'story-epic3-2-fuel-log.md 3.2 review',
    'story_ep5_2a.md 5.2a done',
  ]);
  assert.equal(d!.stories.find((s) => s.key === 'story-epic-1-2')?.title, 'Berth Allocation');
});

test('story-epic-N-M-slug is story N.M under the file\'s own key; one number, or an end-to-end test\'s name, is no story of an epic', () => {
  // One number after the epic's word names the epic (its overview, its retrospective), not a story.
  assert.equal(storyKeyFromName('docs/stories/story-epic-1-retrospective.md'), undefined);
  // `e2e` is no epic's letter and number: the test's story, not story 1 of an epic `2e`.
  assert.equal(storyKeyFromName('docs/stories/story-e2e-1-checkout.md'), undefined);
  // The slug after the numbers: the same story, keyed by the file's own name.
  assert.deepEqual({ ...storyKeyFromName('docs/stories/story-epic-1-3-harbour-map.md') }, { key: 'story-epic-1-3-harbour-map', epic: 1, epicId: '1', story: '3', v4: false });
});

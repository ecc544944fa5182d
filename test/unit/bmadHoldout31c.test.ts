// Story files `sprint` did not list (session 31, issue 20, held-out batches 31a/31b): a v4 project
// whose story folder names its stories by the words epic and story (`story-epic-1-2.md`). Fixtures
// written for these tests; each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { storyKeyFromName } from '../../src/core/bmad/story';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-11-30T09:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout31c-');

const listed = (d: ReturnType<typeof sprintOf>) => (d?.stories ?? []).filter((s) => s.file).map((s) => `${path.basename(s.file!)} ${s.epicId}.${s.story} ${s.status}`).sort();
const CONFIG = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/work-items\nprd:\n  prdFile: docs/prd.md\n' };

test('a story named by the words epic and story before their numbers (story-epic-1-2.md, epic-2-story-1-x.md) is that story', () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/work-items/story-epic-1-1.md': '# Story 1.1: Harbour Map\n\n## Status\n**SHIPPED** ✅ - accepted (2026-10-02)\n\n## Tasks\n- [x] Draw the map\n',
    'docs/work-items/story-epic-1-2.md': '# Story 1.2: Tide Table\n\n## Status\nReady for Review\n\n## Tasks\n- [x] Fetch tides\n',
    'docs/work-items/story-epic-1-10.md': '# Story 1.10: Buoy Alerts\n\n## Status\nDraft\n',
    'docs/work-items/epic-2-story-1-ferry-times.md': '# Story 2.1: Ferry Times\n\nStatus: In Progress\n\n## Tasks\n- [ ] Import the timetable\n',
    'docs/work-items/Epic_3_Story_2b.md': '# Story 3.2b: Night Mode\n\n**Status:** Done\n',
  });
  assert.deepEqual(listed(d), [
    'Epic_3_Story_2b.md 3.2b done',
    'epic-2-story-1-ferry-times.md 2.1 in-progress',
    'story-epic-1-1.md 1.1 done',
    'story-epic-1-10.md 1.10 ready-for-dev',
    'story-epic-1-2.md 1.2 review',
  ]);
});

test('the words epic and story before other numbers name no story', () => {
  // A dotted number after the word story (a planning note about story 2.2), an epic's own document:
  // none is a story by this name.
  assert.equal(storyKeyFromName('docs/work-items/epic-2-story-2.2-planning.md'), undefined);
  assert.equal(storyKeyFromName('docs/work-items/epic-2-stories.md'), undefined);
  assert.equal(storyKeyFromName('docs/work-items/story-epic-auth.md'), undefined);
});

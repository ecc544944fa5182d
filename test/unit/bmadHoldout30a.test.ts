// Story files `sprint` did not list in v4 projects without a ledger (session 30, issue 20, held-out
// batches 30a/30b: teams' own story ids in the declared story folder, titles in bold). Fixtures
// written for these tests; each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { storyKeyFromName } from '../../src/core/bmad/story';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-11-30T09:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout30a-');

const listed = (d: ReturnType<typeof sprintOf>) => (d?.stories ?? []).filter((s) => s.file).map((s) => `${path.basename(s.file!)} ${s.epicId} ${s.status}`).sort();
const CONFIG = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/backlog\nprd:\n  prdFile: docs/prd.md\n' };

test('a team\'s story id (letters, then the epic\'s and the story\'s numbers dotted) names a story of that epic', () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/backlog/GUIDE-004.1-outline.md': '# GUIDE-004.1: Outline\n\n## Status\n\n| Field | Value |\n|---|---|\n| **Status** | Done |\n',
    'docs/backlog/GUIDE-004.2-glossary.md': '# GUIDE-004.2: Glossary\n\n**Status:** Draft\n',
    'docs/backlog/KITE-SYNC-012.3-retry-queue.md': '# Story: KITE-SYNC-012.3 - Retry Queue\n\n## Status: In Progress\n',
    'docs/backlog/KITE-SYNC-012.3a.backoff.md': '# Story KITE-SYNC-012.3a: Backoff\n\n## Status\nReview\n',
    'docs/backlog/KITE-CORE-002.4.1.schema-split.md': '# Story KITE-CORE-002.4.1: Schema Split\n\n## Status\nDone\n',
    // The epic, one number after its letters, is no story; nor is a document numbered by its release.
    'docs/backlog/KITE-SYNC-012-offline-sync-epic.md': '# Epic: KITE-SYNC-012 - Offline Sync\n\n## Status: In Progress\n',
    'docs/backlog/release-2.3-notes.md': '# Release 2.3 notes\n\nStatus: Draft\n',
    'docs/backlog/APP-RELEASE-003.1-installer.md': '# Story APP-RELEASE-003.1: Installer\n\n## Status\nReview\n',
  });
  assert.deepEqual(listed(d), [
    'APP-RELEASE-003.1-installer.md app-release-3 review',
    'GUIDE-004.1-outline.md guide-4 done',
    'GUIDE-004.2-glossary.md guide-4 ready-for-dev',
    'KITE-CORE-002.4.1.schema-split.md kite-core-2-4 done',
    'KITE-SYNC-012.3-retry-queue.md kite-sync-12 in-progress',
    'KITE-SYNC-012.3a.backoff.md kite-sync-12 review',
  ]);
  assert.equal(storyKeyFromName('docs/backlog/KITE-SYNC-012-offline-sync-epic.md'), undefined);
  assert.equal(storyKeyFromName('docs/backlog/tech-spec-2.1-auth.md'), undefined);
  assert.equal(storyKeyFromName('docs/backlog/v1.2.3-changes.md'), undefined);
  assert.equal(storyKeyFromName('docs/backlog/EPIC-KITE-3.0-scope.md'), undefined);
});

test('a story title in bold (# **Story 2.2: …**), under a heading naming the file, is the story\'s title', () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/backlog/epic-2/2.1.import-api.md': '# docs/backlog/2.1.import-api.md\n# **Story 2.1: Import API**\n\n## Status\n\nDone\n',
    // No status word the reader knows: the story is listed all the same, by its title.
    'docs/backlog/epic-2/2.2.quest-generator.md': '# **Story 2.2: Quest Generator**\n\n## Status\n\n\nMove to a later sprint\n\n## Story\n\nAs a player I want quests.\n',
    'docs/backlog/epic-2/2.3.quest-view.md': '# docs/backlog/2.3.quest-view.md\n# __Story 2.3: Quest View__\n\n## Status\n\nMove to a later sprint\n',
  });
  assert.deepEqual(listed(d), ['2.1.import-api.md 2 done', '2.2.quest-generator.md 2 ready-for-dev', '2.3.quest-view.md 2 ready-for-dev']);
  assert.equal(d!.stories.find((s) => s.key === '2-2-quest-generator')?.title, 'Quest Generator');
});

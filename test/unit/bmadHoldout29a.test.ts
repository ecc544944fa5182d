// Story files `sprint` did not list in projects without a ledger (session 29, issue 20, held-out
// batch 29a: v4-style `docs/stories` and AIOX forks of BMAD v4). Fixtures written for these tests;
// each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-11-30T09:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout29a-')!;

const listed = (d: ReturnType<typeof sprintOf>) => d.stories.filter((s) => s.file).map((s) => `${path.basename(s.file!)} ${s.status}`).sort();
const CONFIG = { '.aiox-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n' };

test('with no ledger, every story file of one number is listed with its own status, and the shared numbers are said once', () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/stories/12.1.story.md': '# Story 12.1 — Ledger Import\n\n**Status:** Ready\n',
    'docs/stories/12.1.ledger-import.md': '# Story 12.1 — Ledger Import\n\n**Status:** Done\n',
    'docs/stories/40.2-route-caching.md': '# Story 40.2: Route Caching\n\n**Status**: Done\n',
    'docs/stories/40.2-offline-maps.md': '# Story 40.2: Offline Maps\n\n**Status**: In Progress\n',
    'docs/stories/40.2-tile-server.md': '# Story 40.2: Tile Server\n\n**Status**: Draft\n',
    'docs/stories/3.4.story.md': '# Story 3.4: Audit Log\n\nStatus: Approved\n',
    'docs/stories/3.4-web.audit-log-page.md': '# Story 3.4: Audit Log Page\n\nStatus: Review\n',
    // A note about story 3.4 is still no story.
    'docs/stories/3.4-completion-summary.md': '# Story 3.4: Audit Log - Completion Summary\n\nStatus: Done\n',
  });
  assert.deepEqual(listed(d), [
    '12.1.ledger-import.md done', '12.1.story.md ready-for-dev',
    '3.4-web.audit-log-page.md review', '3.4.story.md ready-for-dev',
    '40.2-offline-maps.md in-progress', '40.2-route-caching.md done', '40.2-tile-server.md ready-for-dev',
  ]);
  // (The completion summary keeps its own note on its file, as before: a note beside the story.)
  const notes = d.problems.filter((p) => p.code === 'story-file-duplicate' && !p.file.endsWith('3.4-completion-summary.md'));
  assert.equal(notes.length, 1);
  assert.equal(notes[0].severity, 'info');
  assert.match(notes[0].message, /^3 story numbers are given to more than one story file/);
});

test('a name with a note word taken from the story\'s own title (29.5.task-detail-checklist.md) is a story beside 29.5.story.md', () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/stories/8.5.story.md': '# Story 8.5 — Photo Upload\n\n**Status:** Done\n',
    'docs/stories/8.5.shift-checklist.md': '# Story 8.5 — Shift Checklist: Cleaner View\n\n**Status:** Ready\n',
    'docs/stories/8.6.story.md': '# Story 8.6 — Reports\n\n**Status:** Done\n',
    'docs/stories/8.6.qa-report.md': '# Story 8.6 — QA of the reports page\n\n**Status:** Done\n',
  });
  assert.deepEqual(listed(d), ['8.5.shift-checklist.md ready-for-dev', '8.5.story.md done', '8.6.story.md done']);
});

test('a module\'s letters before v4\'s number (PM-1.1.slug.story.md, in an epic\'s folder) name story 1 of epic pm-1', () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/stories/epics/EPIC-KB-knowledge/KB-1.1.index-builder.story.md': '# Story KB-1.1: Index Builder\n\n## Status\nDone\n',
    'docs/stories/epics/EPIC-KB-knowledge/KB-1.2.story.md': '# Story KB-1.2: Search\n\n## Status\nDraft\n',
    'docs/stories/1.1.story.md': '# Story 1.1: Setup\n\n## Status\nDone\n',
  });
  assert.deepEqual(d.stories.filter((s) => s.file).map((s) => `${s.epicId}.${s.story} ${path.basename(s.file!)} ${s.status}`).sort(), [
    '1.1 1.1.story.md done', 'kb-1.1 KB-1.1.index-builder.story.md done', 'kb-1.2 KB-1.2.story.md ready-for-dev',
  ]);
});

// Story files `sprint` did not find (session 30, issue 20, held-out batches 30a/30b, investigator b):
// stories kept one folder per epic, the epic's number on the folder and only the story's number on
// the file (`epic-01/story-02-….md`, `epic-2-…/stories/03-….md`). Fixtures written for these tests;
// each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseStory } from '../../src/core/bmad/story';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-11-30T09:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout30b-');

const listed = (d: NonNullable<ReturnType<typeof sprintOf>>) => d.stories.filter((s) => s.file).map((s) => `${s.key} ${s.status} ${path.basename(path.dirname(s.file!))}/${path.basename(s.file!)}`).sort();
const V4 = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n' };

test('stories numbered within the epic their folder names (epic-03/story-02-….md) are stories 3.2, each with its own status', () => {
  const d = sprintOf({
    ...V4,
    'docs/stories/epic-03/README.md': '# Epic 3 — Billing\n\nStories of the billing epic.\n',
    'docs/stories/epic-03/story-01-invoice-numbering.md': '# Story 01: Invoice Numbering\n\n**Status:** Done\n\n## Tasks\n- [x] Number invoices\n',
    'docs/stories/epic-03/story-02-late-fees.md': '# Story 02: Late Fees\n\n**Status:** In Progress\n',
    'docs/stories/epic-04/story-01-tax-export.md': '# Story 1: Tax Export\n\n**As a** bookkeeper\n**I want** a yearly export\n',
  });
  assert.ok(d, 'sprint reads the stories (it said "no story files")');
  assert.deepEqual(listed(d), [
    '3-1-invoice-numbering done epic-03/story-01-invoice-numbering.md',
    '3-2-late-fees in-progress epic-03/story-02-late-fees.md',
    '4-1-tax-export ready-for-dev epic-04/story-01-tax-export.md',
  ]);
  assert.equal(d.stories.find((s) => s.key === '4-1-tax-export')?.title, 'Tax Export');
});

test('stories in the `stories/` folder of an epic folder (epics/epic-2-maps/stories/03-….md) are read under that epic', () => {
  const d = sprintOf({
    ...V4,
    'docs/stories/epics/epic-2-maps-and-grids/index.md': '# Epic 2: Maps and Grids\n',
    'docs/stories/epics/epic-2-maps-and-grids/stories/01-map-library.md': '# Story 2.1: Map Library\n\n## Status\nDone\n',
    'docs/stories/epics/epic-2-maps-and-grids/stories/03-square-cells.md': 'Story 3: Square Cells\n\n## Status: Review\n',
    'docs/stories/epics/epic-2-maps-and-grids/stories/09a-hud-panel.md': '# Story 9a: HUD panel\n\nStatus: Draft\n',
  });
  assert.ok(d, 'sprint reads the stories (it said "no story files")');
  assert.deepEqual(listed(d), [
    '2-1-map-library done stories/01-map-library.md',
    '2-3-square-cells review stories/03-square-cells.md',
    '2-9a-hud-panel ready-for-dev stories/09a-hud-panel.md',
  ]);
});

test('a number-only name is no story outside an epic folder, nor under a folder further up that names one', () => {
  // (`critical-missing/story-01-….md`: no epic says whose story 1 it is; `epic-5/notes/02-….md`: notes of the epic.)
  assert.equal(parseStory('docs/stories/critical-missing/story-01-data-migration.md', '# Story 01: Data Migration\n\nStatus: Draft\n').key, undefined);
  assert.equal(parseStory('docs/stories/epic-5/notes/02-retro.md', '# Story 02: Retro\n\nStatus: Done\n').key, undefined);
  assert.equal(parseStory('docs/stories/epic-5/story-02-retro.md', '# Story 02: Retro\n\nStatus: Done\n').key, '5-2-retro');
  const d = sprintOf({
    ...V4,
    'docs/stories/critical-missing/story-01-data-migration.md': '# Story 01: Data Migration\n\nStatus: Draft\n',
    'docs/stories/epic-5/notes/02-retro.md': '# Story 02: Retro\n\nStatus: Done\n',
  });
  assert.equal(d, undefined);
});

// Session 34, known34a (issue 20): story files both the corpus truth and Waymark missed. Fixtures written
// here, no copied text. Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s34/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

type S = { key: string; epicId: string; story: string; ledgerStatus?: string; status: string; file?: string; title?: string };
const stories = (d: { epics: { stories: S[] }[] }) => d.epics.flatMap((e) => e.stories);
const V4 = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n' };
const v4story = (title: string, status: string) => `# ${title}\n\n## Status\n${status}\n\n## Story\n\n**As a** gardener,\n**I want** ${title.toLowerCase()},\n**so that** the beds stay green.\n\n## Acceptance Criteria\n\n1. It grows\n\n## Tasks / Subtasks\n\n- [x] Dig\n`;

test('v4 story names with a status word in capitals where the dot goes (`1.1 COMPLETE slug.md`, `2.1e1 COMPLETE …`, `3.1.COMPLETE.slug.md`) are stories keyed without the word', () => {
  inProject({
    ...V4,
    'docs/stories/1.1 COMPLETE seed-catalogue.md': v4story('Story 1.1: Seed catalogue', 'Completed'),
    'docs/stories/1.2.watering-rota.md': v4story('Story 1.2: Watering rota', 'Draft'),
    'docs/stories/2.1a COMPLETE compost-bins.md': v4story('Story 2.1a: Compost bins', 'Done'),
    'docs/stories/2.1e1 COMPLETE soil-sensor.md': v4story('Story 2.1e1: Soil sensor', 'Done'),
    'docs/stories/2.1e2.COMPLETE soil-dashboard.md': v4story('Story 2.1e2: Soil dashboard', 'Ready for Review'),
    'docs/stories/3.1.COMPLETE.frost-alerts.md': v4story('Story 3.1: Frost alerts', 'Done'),
    'docs/stories/3.2.1-COMPLETE.hail-alerts.md': v4story('Story 3.2.1: Hail alerts', 'Done'),
    // a companion note beside story 3.2.1: its plan, not a second story
    'docs/stories/3.2.1-IMPLEMENTATION-PLAN.md': '# Story 3.2.1: Hail alerts - Implementation Plan\n\n**Status**: Ready for Implementation\n\n## Steps\n\n1. Wire the feed\n',
    'docs/stories/3.2.1-QUICK-REFERENCE.md': '# Story 3.2.1: Quick Reference\n\nThe feed is polled hourly.\n',
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).map((s) => [s.key, s.epicId, s.story, s.status, s.title]), [
      ['1-1-seed-catalogue', '1', '1', 'done', 'Seed catalogue'],
      ['1-2-watering-rota', '1', '2', 'ready-for-dev', 'Watering rota'],
      ['2-1a-compost-bins', '2', '1a', 'done', 'Compost bins'],
      ['2-1e1-soil-sensor', '2', '1e1', 'done', 'Soil sensor'],
      ['2-1e2-soil-dashboard', '2', '1e2', 'review', 'Soil dashboard'],
      ['3-1-frost-alerts', '3', '1', 'done', 'Frost alerts'],
      ['3-2-1-hail-alerts', '3-2', '1', 'done', 'Hail alerts'],
    ]);
    const n = JSON.stringify(json(root, 'next'));
    assert.ok(!n.includes('IMPLEMENTATION-PLAN') && !n.includes('seed-catalogue'), n);
  });
});

test('a lower-case word after the number is the slug\'s (`3.4.review-queue.md`, `3.5.complete-checkout.md`): unchanged', () => {
  inProject({
    ...V4,
    'docs/stories/3.4.review-queue.md': v4story('Story 3.4: Review queue', 'Draft'),
    'docs/stories/3.5.complete-checkout.md': v4story('Story 3.5: Complete checkout', 'Done'),
  }, (root) => {
    assert.deepEqual(stories(json(root, 'sprint')).map((s) => s.key), ['3-4-review-queue', '3-5-complete-checkout']);
  });
});

test('one story per epic named by the epic alone (`2.irrigation.md`, `# Story 2 — Irrigation`, `**Epic:** 2`) is the epic\'s story; a note named so is not', () => {
  const oneStory = (n: number, title: string, epic: number, status: string) => `# Story ${n} — ${title}\n\n**Status:** ${status}\n**Epic:** ${epic}\n\n## AC\n1. The beds are watered.\n`;
  inProject({
    ...V4,
    'docs/stories/1.1.seed-catalogue.md': v4story('Story 1.1: Seed catalogue', 'Done'),
    'docs/stories/2.irrigation.md': oneStory(2, 'Irrigation', 2, 'Done'),
    'docs/stories/3.harvest-log.md': oneStory(3, 'Harvest log', 3, 'In Progress'),
    // the epic line names another epic, or no story title: not the epic's story
    'docs/stories/4.pests.md': oneStory(4, 'Pests', 7, 'Draft'),
    'docs/stories/5.notes.md': '# Notes on epic 5\n\n**Status:** Draft\n**Epic:** 5\n',
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).map((s) => [s.key, s.epicId, s.story, s.status, s.title]), [
      ['1-1-seed-catalogue', '1', '1', 'done', 'Seed catalogue'],
      ['2.irrigation', '2', '1', 'done', 'Irrigation'],
      ['3.harvest-log', '3', '1', 'in-progress', 'Harvest log'],
    ]);
  });
});

test('v4 names with the words spelled and a sub-epic (`epic-3.0.story-1.md`, `epic-3.1.story-2-updated.md`) are stories 3.0.1 and 3.1.2', () => {
  inProject({
    ...V4,
    'docs/stories/epic-3.0.story-1.md': v4story('Story 3.0.1: Rain gauge', 'Done'),
    'docs/stories/epic-3.0.story-2.md': v4story('Story 3.0.2: Rain alerts', 'Draft'),
    'docs/stories/epic-3.1.story-2-updated.md': v4story('Story 3.1.2: Shade cloth', 'Ready for Review'),
  }, (root) => {
    assert.deepEqual(stories(json(root, 'sprint')).map((s) => [s.epicId, s.story, s.status, path.basename(s.file ?? '')]), [
      ['3-0', '1', 'done', 'epic-3.0.story-1.md'], ['3-0', '2', 'ready-for-dev', 'epic-3.0.story-2.md'], ['3-1', '2', 'review', 'epic-3.1.story-2-updated.md'],
    ]);
  });
});

test('a v4 worded name with the epic in words (`tech-debt.story-1.md`) is story 1 of epic tech-debt', () => {
  inProject({
    ...V4,
    'docs/stories/1.1.seed-catalogue.md': v4story('Story 1.1: Seed catalogue', 'Done'),
    'docs/stories/tech-debt.story-1.md': '# Story TD-1: Replace the rusty hose\n\n**Epic**: Technical Debt\n**Status**: Ready for Development\n\n## Story\n\n**As a** gardener,\n**I want** a hose that holds,\n**so that** the beds stay green.\n',
  }, (root) => {
    assert.deepEqual(stories(json(root, 'sprint')).map((s) => [s.key, s.epicId, s.story, s.status]), [
      ['1-1-seed-catalogue', '1', '1', 'done'], ['tech-debt.story-1', 'tech-debt', '1', 'ready-for-dev'],
    ]);
  });
});

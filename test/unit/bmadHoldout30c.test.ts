// Story files `sprint` did not list in projects that otherwise read well (session 30, issue 20,
// held-out batch 30a, investigator c: v4 `docs/stories` without a ledger). Fixtures written for
// these tests; each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseStory } from '../../src/core/bmad/story';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-11-30T09:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout30c-')!;

const listed = (d: ReturnType<typeof sprintOf>) => d.stories.filter((s) => s.file).map((s) => `${path.basename(s.file!)} ${s.status}`).sort();
const CONFIG = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n' };

test("v4's brownfield-create-story title (`#### Story Title`, the title below it, or inline) is the story's title: the file is listed (no Status line: ready-for-dev, as any story file without one)", () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/stories/2.1.kiosk-login.md': '# Story 2.1: Kiosk Login\n\nStatus: Done\n',
    // No Status line: the brownfield template writes none.
    'docs/stories/7.1.queue-metrics.md': '### **Story Title: Queue Metrics - Brownfield Addition**\n\n**User Story:**\n\nAs a clerk,\nI want the queue length shown,\nSo that I can plan.\n',
    'docs/stories/7.2.badge-printer.md': '#### Story Title\n\nBadge Printer - Brownfield Addition\n\n#### User Story\n\nAs a guard,\nI want badges printed,\nSo that visitors are known.\n',
  });
  assert.deepEqual(listed(d), ['2.1.kiosk-login.md done', '7.1.queue-metrics.md ready-for-dev', '7.2.badge-printer.md ready-for-dev']);
  assert.equal(d.stories.find((s) => s.file?.endsWith('7.2.badge-printer.md'))?.title, 'Badge Printer - Brownfield Addition');
  assert.equal(d.stories.find((s) => s.file?.endsWith('7.1.queue-metrics.md'))?.title, 'Queue Metrics - Brownfield Addition');
});

test('`# Story: Title` with the number in the file name is a title: two files of one number are two stories, each with its own status', () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/stories/3.4.parcel-intake.md': '# Status\nPlanned\n\n# Story: Parcel Intake by Photo\nLet the desk log a parcel from a photo.\n',
    'docs/stories/3.4.parcel-intake-v2.md': '# Story: Parcel Intake v2 (Manual or Photo)\n\nStatus: In Progress\n',
  });
  assert.deepEqual(listed(d), ['3.4.parcel-intake-v2.md in-progress', '3.4.parcel-intake.md backlog']);
  assert.equal(parseStory('docs/stories/3.4.parcel-intake.md', '# Story: Parcel Intake by Photo\n').title, 'Parcel Intake by Photo');
  // A numbered title in another form is not read as an unnumbered one.
  assert.equal(parseStory('docs/stories/notes.md', '# Story: 3.4 intake\n').title, undefined);
});

test("a title ending in a note's word (Handoff) in a file named after that title is a story, beside another file of its number", () => {
  const d = sprintOf({
    ...CONFIG,
    'docs/stories/5.1.ops-team-training-handoff.md': '# Story 5.1: Ops Team Training & Handoff\n\n## Status\nDraft\n\n## Story\n**As an** operator,\n**I want** training,\n**so that** I can run it.\n',
    'docs/stories/5.1.provision-dashboards.md': '# Story 5.1: Provision Dashboards\n\n## Status\nDone\n',
    // A note named for its kind, not the title, stays a note (as before).
    'docs/stories/5.2.story.md': '# Story 5.2: Alerts\n\nStatus: Done\n',
    'docs/stories/5.2-completion-summary.md': '# Story 5.2: Alerts - Completion Summary\n\nStatus: Done\n',
    // Named for part of its title only (the note's word left out of the name): a note, as before.
    'docs/stories/5.3.story.md': '# Story 5.3: Pager Rota\n\nStatus: Done\n',
    'docs/stories/5.3-qa-pass.md': '# Story 5.3 — QA Pass Checklist\n\n**Status:** Implementation complete, awaiting review\n',
  });
  assert.deepEqual(listed(d), ['5.1.ops-team-training-handoff.md ready-for-dev', '5.1.provision-dashboards.md done', '5.2.story.md done', '5.3.story.md done']);
});

// Which files are stories, and what the ledger says of them (session 31, issue 20, held-out batches
// 31a/31b, investigator b): a note kept beside a story under the story's number, stating no status
// of its own (`1.5.manual-tests.md` beside `1.5.story.md`), is not a second story; a ledger whose
// story keys are written at the margin with no `development_status:` line above them is read as
// the ledger it is. Fixtures written for these tests; each test failed before its rule.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseLedger } from '../../src/core/bmad/ledger';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-11-30T21:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout31b-');

const V4 = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n' };

const v4Story = (n: string, title: string, status: string) =>
  `# Story ${n}: ${title}\n\n## Status\n\n**${status}**\n\n## Story\n\n**As a** gardener,\n**I want** ${title.toLowerCase()},\n**so that** the beds stay watered.\n\n## Tasks / Subtasks\n\n- [x] Build ${title.toLowerCase()}\n`;

describe('a note beside a story, under its number, with no status of its own', () => {
  test('is not listed as a second story (test results, a to-do list)', () => {
    const d = sprintOf({
      ...V4,
      'docs/stories/2.1.story.md': v4Story('2.1', 'Valve Scheduler', 'Done'),
      'docs/stories/2.1.bench-results.md': '# Story 2.1 Bench Results\n\n## Run: 2026-10-02\n\nAll checks passed.\n\n- valve opens: ok\n',
      'docs/stories/2.2.story.md': v4Story('2.2', 'Moisture Probe', 'Draft'),
      'docs/stories/2.2-probe-wiring-todo.md': '# Story 2.2: Moisture Probe - Wiring To-do\n\n## Phase 1\n\n- [ ] Solder the header\n- [ ] Crimp the leads\n',
    });
    assert.ok(d);
    assert.deepEqual(d.stories.filter((s) => s.file).map((s) => path.basename(s.file!)).sort(), ['2.1.story.md', '2.2.story.md']);
    assert.equal(d.stories.filter((s) => s.file).length, 2, 'one story per number');
    assert.ok(!d.problems.some((p) => p.code === 'story-file-duplicate'), 'no "more than one story file" note for a note file');
  });
  test('two files of one number that each state a status are still two stories', () => {
    const d = sprintOf({
      ...V4,
      'docs/stories/3.1.story.md': v4Story('3.1', 'Rain Sensor', 'Done'),
      'docs/stories/3.1.rain-sensor-calibration.md': '# Story 3.1: Rain Sensor Calibration\n\nStatus: In Progress\n\n## Tasks\n\n- [ ] Calibrate\n',
    });
    assert.ok(d);
    assert.equal(d.stories.filter((s) => s.file).length, 2);
  });
});

describe('a ledger whose keys are written at the margin, with no development_status: line', () => {
  const LEDGER = [
    '# Sprint status',
    'generated: "2026-10-01T10:00:00Z"',
    'project: "orchard"',
    'story_location: "docs/stories/"',
    '',
    'epic-1: done',
    '1-1-prune-schedule: done',
    '1-2-harvest-log: done  # reviewed 2026-10-02',
    'epic-1-retrospective: optional',
    '',
    'epic-2: in-progress',
    '2-1-frost-alerts: review',
    '',
    'summary:',
    '  total_stories: 3',
    '',
  ].join('\n');
  test('the story keys are its entries', () => {
    const l = parseLedger('/p/docs/sprint-status.yaml', LEDGER);
    const keys = l.entries.map((e) => `${e.key}=${e.status}`);
    assert.deepEqual(keys, ['epic-1=done', '1-1-prune-schedule=done', '1-2-harvest-log=done', 'epic-1-retrospective=optional', 'epic-2=in-progress', '2-1-frost-alerts=review']);
    assert.ok(!l.entries.some((e) => ['generated', 'project', 'story_location', 'summary'].includes(e.key)), 'the header and trailer are not entries');
  });
  test('sprint compares the files with it: a file saying less than the ledger is drift', () => {
    const d = sprintOf({
      '_bmad/bmm/config.yaml': 'project_name: orchard\noutput_folder: "{project-root}/docs"\n',
      'docs/sprint-status.yaml': LEDGER,
      'docs/stories/1-1-prune-schedule.md': '# Story 1.1: Prune Schedule\n\nStatus: done\n\n## Tasks / Subtasks\n\n- [x] Build it\n',
      'docs/stories/1-2-harvest-log.md': '# Story 1.2: Harvest Log\n\nStatus: review\n\n## Tasks / Subtasks\n\n- [x] Build it\n',
      'docs/stories/2-1-frost-alerts.md': '# Story 2.1: Frost Alerts\n\nStatus: review\n\n## Tasks / Subtasks\n\n- [x] Build it\n',
    });
    assert.ok(d);
    assert.deepEqual(d.stories.map((s) => `${s.key} ${s.ledgerStatus} ${s.fileStatus}`).sort(), [
      '1-1-prune-schedule done done', '1-2-harvest-log done review', '2-1-frost-alerts review review',
    ]);
    assert.ok(!d.problems.some((p) => p.code === 'ledger-stories-outside'), 'the files are not "kept outside this ledger"');
    assert.deepEqual(d.problems.filter((p) => p.code === 'story-status-drift' && !p.file.endsWith('sprint-status.yaml')).map((p) => path.basename(p.file)), ['1-2-harvest-log.md'], 'the 1.2 drift is reported');
  });
  test('a file of top-level settings with no story key stays no ledger of stories', () => {
    const l = parseLedger('/p/docs/sprint-status.yaml', 'project: orchard\nsprint: 4\nepic-1: done\n');
    assert.deepEqual(l.entries.map((e) => e.key), []);
  });
});

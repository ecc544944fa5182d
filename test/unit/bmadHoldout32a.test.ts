// Stories in places the reader did not see, or saw where it should not (session 32, issue 20,
// held-out batches 32a/32b). Fixtures written for these tests; each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-11-30T09:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout32a-');

const listed = (d: ReturnType<typeof sprintOf>) => (d?.stories ?? []).filter((s) => s.file).map((s) => `${path.basename(s.file!)} ${s.epicId}.${s.story} ${s.status}`).sort();

const V6 = {
  '_bmad/bmm/config.yaml': 'project_name: lighthouse\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
  '_bmad-output/implementation-artifacts/notes.md': '# Lamp maintenance notes\n',
};

const ARCHIVED_LEDGER = 'generated: 2025-10-01\nstory_location: docs/sprint-artifacts\n\ndevelopment_status:\n  epic-1: in-progress\n  1-1-lamp-rotation: review\n  1-2-fog-horn: ready-for-dev\n';

test('a folder named as an archive of something (docs-archive, sprint_archive, archive-2025) keeps history: its ledger is not the live one', () => {
  for (const folder of ['docs-archive', 'sprint_archive', 'archive-2025', 'old-docs-archived']) {
    const d = sprintOf({
      ...V6,
      [`${folder}/sprint-artifacts/sprint-status.yaml`]: ARCHIVED_LEDGER,
      [`${folder}/sprint-artifacts/stories/1-1-lamp-rotation.md`]: '# Story 1.1: Lamp Rotation\n\nStatus: review\n',
    });
    assert.deepEqual(d?.stories ?? [], [], folder);
    assert.ok(!d?.ledgerFile, `${folder}: ${d?.ledgerFile}`);
  }
});

test('a folder whose name only contains the letters of archive (archiver, archivist-app) is no archive', () => {
  const d = sprintOf({
    ...V6,
    'archiver/docs/sprint-status.yaml': ARCHIVED_LEDGER.replace('story_location: docs/sprint-artifacts\n', ''),
    'archiver/docs/1-1-lamp-rotation.md': '# Story 1.1: Lamp Rotation\n\nStatus: review\n',
  });
  assert.deepEqual(listed(d), ['1-1-lamp-rotation.md 1.1 review']);
});

test('sharded epics with one folder per epic hold their story files directly (epics/epic-05-beacons/story-5.1-slug.md)', () => {
  const d = sprintOf({
    ...V6,
    '_bmad-output/planning-artifacts/epics.md': '# Epics\n\n## Epic 5: Beacons\n\n### Story 5.1: Beacon Registry\n\n### Story 5.2: Beacon Health\n\n## Epic 6: Charts\n\n### Story 6.1: Chart Import\n',
    '_bmad-output/planning-artifacts/epics/epic-05-beacons/index.md': '# Epic 5: Beacons\n\n| Story | Title |\n|---|---|\n| [5.1](./story-5.1-beacon-registry.md) | Beacon Registry |\n',
    '_bmad-output/planning-artifacts/epics/epic-05-beacons/story-5.1-beacon-registry.md': '# Story 5.1: Beacon Registry\n\n## User Story\n\n**As a** keeper, **I want** beacons listed, **so that** none is missed.\n',
    '_bmad-output/planning-artifacts/epics/epic-05-beacons/story-5.2-beacon-health.md': '# Story 5.2: Beacon Health\n\nStatus: done\n',
    '_bmad-output/planning-artifacts/epics/epic-06-charts/story-6.1-chart-import.md': '# Story 6.1: Chart Import\n\nStatus: in-progress\n',
  });
  const files = listed(d).map((l) => l.split(' ').slice(0, 2).join(' '));
  assert.deepEqual(files, ['story-5.1-beacon-registry.md 5.1', 'story-5.2-beacon-health.md 5.2', 'story-6.1-chart-import.md 6.1']);
  assert.equal(d!.stories.find((s) => s.file?.endsWith('story-5.2-beacon-health.md'))?.status, 'done');
  assert.equal(d!.stories.find((s) => s.file?.endsWith('story-6.1-chart-import.md'))?.status, 'in-progress');
});

test('inside an epic\'s block, a key of one number (and a letter) and a slug is a story of that epic (1a-slug, 4-slug between epic-1 and epic-1-retrospective)', () => {
  const d = sprintOf({
    ...V6,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1a-harbour-lights: done\n  2a-fog-signal: ready-for-dev\n\n  1b-tide-table: backlog\n  4-end-to-end-checks: backlog\n  epic-1-retrospective: optional\n  7-after-the-epic: backlog\n',
    '_bmad-output/implementation-artifacts/1a-harbour-lights.md': '# Story 1A: Harbour Lights\n\nStatus: done\n',
    '_bmad-output/implementation-artifacts/2a-fog-signal.md': '# Story 2A: Fog Signal\n\nStatus: ready-for-dev\n',
  });
  const keys = (d?.stories ?? []).map((s) => `${s.key} ${s.epicId}.${s.story} ${s.status}`).sort();
  assert.deepEqual(keys, ['1a-harbour-lights 1.1a done', '1b-tide-table 1.1b backlog', '2a-fog-signal 1.2a ready-for-dev', '4-end-to-end-checks 1.4 backlog']);
  assert.deepEqual(listed(d), ['1a-harbour-lights.md 1.1a done', '2a-fog-signal.md 1.2a ready-for-dev']);
});

// What held-out BMAD projects (session 33, issue 20, batch 33b) showed the reader did not read.
// Fixtures written for these tests; each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { problems, sprintOfFiles } from './holdoutHelpers';

const NOW = new Date('2026-12-01T02:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout33c-');

const V6 = {
  '_bmad/bmm/config.yaml': 'project_name: orchard\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
};

test('an epic named by several words (epic-cx-tr) numbers its stories under the whole name (cx-tr-1a-slug: Story CX-TR.1a)', () => {
  const d = sprintOf({
    ...V6,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-cx-tr: in-progress\n  cx-tr-1a-graft-register: done\n  cx-tr-1b-rootstock-labels: in-progress\n  cx-tr-2a-pruning-calendar: backlog\n  epic-cx-tr-retrospective: optional\n\n  epic-2: backlog\n  2-1-harvest-log: backlog\n  epic-2-retrospective: optional\n',
    '_bmad-output/implementation-artifacts/cx-tr-1a-graft-register.md': '# Story CX-TR.1a: Graft Register\n\nStatus: done\n',
  });
  const rows = (d?.stories ?? []).map((s) => `${s.key} ${s.epicId}.${s.story} ${s.status}`);
  assert.deepEqual(rows.sort(), [
    '2-1-harvest-log 2.1 backlog',
    'cx-tr-1a-graft-register cx-tr.1a done',
    'cx-tr-1b-rootstock-labels cx-tr.1b in-progress',
    'cx-tr-2a-pruning-calendar cx-tr.2a backlog',
  ]);
  assert.ok(d!.stories.find((s) => s.key === 'cx-tr-1a-graft-register')?.file, 'its story file is found');
});

test("in a BMAD project, a report whose workflow: names one of BMAD's own workflows is BMAD's, its status BMAD's word with commentary (no error)", () => {
  inProject({
    ...V6,
    'docs/implementation-readiness-report.md': '---\ntitle: Readiness, second pass\ndate: 2026-10-04\nstatus: COMPLETE - ALL GAPS CLOSED\nworkflow: check-implementation-readiness\n---\n\n# Readiness report\n\nEvery gap closed.\n',
    'docs/retro-notes.md': '---\nworkflow: bmad-retrospective\nstatus: Done (signed off)\n---\n\n# Notes\n',
  }, (root) => {
    const bad = problems(root).filter((p) => p.severity === 'error');
    assert.deepEqual(bad.map((p) => `${p.file} ${p.code}: ${p.message}`), []);
  }, 'wm-holdout33c-');
});

test("outside any BMAD project, a workflow: that happens to share a BMAD workflow's name keeps Waymark's status words", () => {
  inProject({
    'notes/readiness.md': '---\nworkflow: check-implementation-readiness\nstatus: COMPLETE - ALL GAPS CLOSED\n---\n\n# Readiness\n',
  }, (root) => {
    const codes = problems(root).filter((p) => p.file.includes('readiness')).map((p) => `${p.severity} ${p.code}`);
    assert.ok(codes.includes('error unknown-status'), codes.join('; '));
  }, 'wm-holdout33c-');
});

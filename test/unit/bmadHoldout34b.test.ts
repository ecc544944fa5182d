// What held-out BMAD projects (session 34, issue 20, batch 34b) showed the reader did not read.
// Fixtures written for these tests; each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sprintOfFiles } from './holdoutHelpers';

const base = (f: string | undefined) => (f ? f.replace(/^.*[\\/]/, '') : '-');

const NOW = new Date('2026-12-01T06:00:00Z');

const sprintOf = (files: Record<string, string>) => sprintOfFiles(files, NOW, 'wm-holdout34b-');

const V6 = {
  '_bmad/bmm/config.yaml': 'project_name: lantern\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
  '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-wick-trimmer: done\n  1-2-oil-gauge: in-progress\n  1-3-glass-cleaner: backlog\n  epic-1-retrospective: optional\n',
};

const QUICK_SPEC = (title: string, status: string) => `---\ntitle: '${title}'\ntype: 'feature'\ncreated: '2026-11-02'\nstatus: '${status}'\nreview_loop_iteration: 0\ncontext: []\n---\n\n<frozen-after-approval reason="human-owned intent">\n\n## Intent\n\n**Problem:** The lamp needs it.\n\n**Approach:** Build it.\n\n</frozen-after-approval>\n\n## Tasks & Acceptance\n\n- [x] Do it\n`;

test("quick-dev's spec of a ledger story (spec-1-1-wick-trimmer.md beside 1-1-wick-trimmer.md) is that story's spec, not a second story", () => {
  const d = sprintOf({
    ...V6,
    '_bmad-output/implementation-artifacts/1-1-wick-trimmer.md': '# Story 1.1: Wick Trimmer\n\nStatus: done\n\n## Tasks\n\n- [x] Trim\n',
    '_bmad-output/implementation-artifacts/spec-1-1-wick-trimmer.md': QUICK_SPEC('Story 1.1: Wick Trimmer', 'done'),
  });
  const rows = (d?.stories ?? []).map((s) => `${s.key} ${s.status} ${base(s.file)}`);
  assert.deepEqual(rows.sort(), [
    '1-1-wick-trimmer done 1-1-wick-trimmer.md',
    '1-2-oil-gauge in-progress -',
    '1-3-glass-cleaner backlog -',
  ]);
});

test("a ledger story built through quick-dev alone (only spec-1-2-oil-gauge.md) reads that spec as its file and its status", () => {
  const d = sprintOf({
    ...V6,
    '_bmad-output/implementation-artifacts/spec-1-2-oil-gauge.md': QUICK_SPEC('Story 1.2: Oil Gauge', 'in-review'),
  });
  const rows = (d?.stories ?? []).map((s) => `${s.key} ${base(s.file)}`);
  assert.deepEqual(rows.sort(), [
    '1-1-wick-trimmer -',
    '1-2-oil-gauge spec-1-2-oil-gauge.md',
    '1-3-glass-cleaner -',
  ]);
  const s = d!.stories.find((x) => x.key === '1-2-oil-gauge')!;
  assert.equal(s.fileStatus, 'in-review', 'the spec\'s own status is read');
});

// Held-out batch 32 (issue 20), investigator b: error-level problems on files a BMAD user calls fine.
// Fixtures written for these tests; each test failed before its rule (run against session 32's base).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { problems } from './holdoutHelpers';

const V6 = { '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n' };

test("a draft in BMAD's output folder listing the BMAD step files it covers (steps:, no workflow: id) is BMAD's document, its status BMAD's word", () => {
  inProject({
    ...V6,
    '_bmad-output/planning-artifacts/harbour/drafts/step-04-06-draft.md': '---\nstatus: SUPERSEDED\nreplaced_by: prd.md\nsteps: [step-04-scope, step-05-risks, step-06-handoff]\ndrafted: 2026-09-02\n---\n\n# Old draft\n\nKept for the record.\n',
  }, (root) => {
    const bad = problems(root).filter((p) => p.file.includes('step-04-06-draft') && p.severity === 'error');
    assert.deepEqual(bad.map((p) => `${p.code}: ${p.message}`), []);
  }, 'wm-holdout32b-');
});

test('a Waymark workflow file (workflow: id and steps:) in a BMAD output folder keeps Waymark’s status words', () => {
  inProject({
    ...V6,
    '_bmad-output/planning-artifacts/ops/runbook.md': '---\nworkflow: release-runbook\nstatus: SUPERSEDED\nsteps: [prepare, ship]\n---\n\n# Runbook\n',
  }, (root) => {
    const codes = problems(root).filter((p) => p.file.includes('runbook')).map((p) => `${p.severity} ${p.code}`);
    assert.ok(codes.includes('error unknown-status'), codes.join('; '));
  }, 'wm-holdout32b-');
});

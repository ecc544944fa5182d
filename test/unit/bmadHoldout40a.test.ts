// Session 40, held-out batch a (issue 20): v4 projects with QA gates, v6 installs, ledger-only
// projects. Fixtures written here (invented names and text, the same grammar's shape).
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s40/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json, type Problem } from './holdoutHelpers';

const config = 'devStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n';
/** A v4 story, done, whose QA Results end with the team's own gate record: a heading naming the gate, a Status label under it. */
const reviewed = (gateRecord: string) => [
  '# Story 2.3: Seed vault', '', '## Status', 'Done', '', '## Story', '', '**As a** keeper,', '**I want** the seeds kept out of git,', '**so that** nobody reads them.', '',
  '## Tasks / Subtasks', '', '- [x] Move the seeds to an env file', '',
  '## QA Results', '', '### Review Date: 2026-11-02', '', '#### Findings', '', 'The seeds were committed; they were rotated and the history purged.', '',
  '#### Required Remediation', '', '- [x] Rotate the seeds', '- [ ] Add a CI check for secrets', '',
  gateRecord, '',
].join('\n');
// The gate file, written at the first review (its verdict under the team's `decision:` key), never updated.
const gateFile = '# QA Gate: Story 2.3\ndecision: FAIL\nreason: seeds in version control\n';

const gateProblems = (root: string) => (json(root, 'validate') as { problems: Problem[] }).problems.filter((p) => p.code === 'story-gate-failed');

test('a QA Results heading naming the gate decision with a Status label under it (`#### QA Gate Decision` / `**Status**: PASS ✅`) is the story\'s last verdict: the FAIL gate file is the stale record, a note', () => {
  inProject({
    '.bmad-core/core-config.yaml': config,
    'docs/stories/2.3.story.md': reviewed('#### QA Gate Decision\n**Status**: PASS ✅\n**Recommendation**: Remediation complete.'),
    'docs/qa/gates/2.3-seed-vault.yml': gateFile,
  }, (root) => {
    const gates = gateProblems(root);
    assert.deepEqual(gates.map((p) => p.severity), ['info'], JSON.stringify(gates));
    assert.match(gates[0].message, /last QA decision records Gate: PASS/);
  });
});

test('the same record saying FAIL, or a Status label under a heading that names no gate, leaves the failed gate an error', () => {
  for (const record of ['#### QA Gate Decision\n**Status**: FAIL', '#### Review Outcome\n**Status**: PASS']) {
    inProject({
      '.bmad-core/core-config.yaml': config,
      'docs/stories/2.3.story.md': reviewed(record),
      'docs/qa/gates/2.3-seed-vault.yml': gateFile,
    }, (root) => {
      assert.deepEqual(gateProblems(root).map((p) => p.severity), ['error'], record);
    });
  }
});

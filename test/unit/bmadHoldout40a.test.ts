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

// A v6-alpha story whose Status is a word for done outside BMAD's vocabulary while half its tasks are open.
const alphaStory = (status: string, boxes: string) => `# Story 1.1: Sign-up form\n\nStatus: ${status}\n\n## Story\n\nAs a visitor,\nI want to sign up,\nso that my basket is kept.\n\n## Tasks / Subtasks\n\n- [x] Build the endpoint\n${boxes}\n\n## Dev Agent Record\n`;
const alpha = (status: string, boxes: string) => ({
  'bmad/bmm/config.yaml': 'project_name: till\noutput_folder: "{project-root}/docs"\ndev_story_location: "{project-root}/docs/stories"\n',
  'docs/stories/story-1.1.md': alphaStory(status, boxes),
});

test('`Status: Completed` over unchecked tasks is not offered as done: the warning names the open tasks and carries no set-status fix', () => {
  inProject(alpha('Completed', '- [ ] Build the form\n- [ ] Wire the form to the endpoint'), (root) => {
    const p = (json(root, 'validate') as { problems: Problem[] & { data?: { fix?: string } }[] }).problems.filter((x) => x.code === 'story-unknown-status');
    assert.equal(p.length, 1, JSON.stringify(p));
    assert.doesNotMatch(p[0].message, /Did you mean done/);
    assert.match(p[0].message, /2 of its 3 tasks are unchecked \(first: Build the form\)/);
    assert.equal((p[0] as { data?: { fix?: string } }).data?.fix, undefined);
  });
});

test('`Status: Completed` with every task ticked keeps its note reading it as done (no warning)', () => {
  inProject(alpha('Completed', '- [x] Build the form'), (root) => {
    const p = (json(root, 'validate') as { problems: Problem[] }).problems.filter((x) => /story-(unknown|legacy)-status/.test(x.code));
    assert.deepEqual(p.map((x) => `${x.severity} ${x.code}`), ['info story-legacy-status']);
  });
});

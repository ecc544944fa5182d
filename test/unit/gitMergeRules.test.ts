import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mergeStateFile } from '../../src/core/git/mergeDriver';
import { renderGateUpdate } from '../../src/core/index';

/** A BMAD story whose subtasks repeat the same words under different tasks. */
const story = (status: string, ticks: Record<string, boolean> = {}) => {
  const b = (id: string) => (ticks[id] ? 'x' : ' ');
  return [
    '# Story 2.3: Accounts', '', `Status: ${status}`, '', '## Tasks / Subtasks', '',
    `- [${b('1')}] Task 1: Login form (AC: 1)`,
    `  - [${b('1.1')}] Write tests`,
    `  - [${b('1.2')}] Build it`,
    `- [${b('2')}] Task 2: Logout (AC: 2)`,
    `  - [${b('2.1')}] Write tests`,
    `  - [${b('2.2')}] Build it`,
    '', '## Dev Notes', '',
  ].join('\n');
};

const wf = (fields: string) => `---\nworkflow: build\n${fields}---\n# Build\n\nBody.\n`;

describe('the merge driver keeps every rule', () => {
  test('tasks are matched by their place in the task tree, not by their words: a subtask nobody did stays open', () => {
    const r = mergeStateFile({
      path: '_bmad-output/implementation-artifacts/2-3-accounts.md',
      base: story('in-progress'),
      ours: story('in-progress', { '1.1': true }),
      theirs: story('in-progress', { '2.2': true }),
    });
    assert.equal(r.conflicts, 0);
    assert.equal(r.text, story('in-progress', { '1.1': true, '2.2': true }));
  });

  test('tasks inserted on one side do not shift which task the other side ticked', () => {
    const base = story('in-progress');
    const ours = story('in-progress', { '2.1': true });
    const theirs = base.replace('- [ ] Task 2: Logout (AC: 2)', '- [ ] Task 1b: Remember me (AC: 3)\n  - [ ] Write tests\n- [ ] Task 2: Logout (AC: 2)');
    const r = mergeStateFile({ path: 'stories/2-3-accounts.md', base, ours, theirs });
    assert.equal(r.conflicts, 0, r.text);
    const lines = r.text.split('\n');
    const at = lines.indexOf('- [ ] Task 2: Logout (AC: 2)');
    assert.equal(lines[at + 1], '  - [x] Write tests', 'the Write tests under Task 2 is ticked');
    assert.equal(lines[at - 1], '  - [ ] Write tests', 'the new task\'s Write tests is not');
  });

  test('the merged currentStep never names a step the merged steps have done', () => {
    // Ours completed step 2 and moved on to 3; theirs completed step 3 out of order.
    const base = wf('status: in_progress\nstepsCompleted: [1]\ncurrentStep: 2\n');
    const ours = wf('status: in_progress\nstepsCompleted: [1, 2]\ncurrentStep: 3\n');
    const theirs = wf('status: in_progress\nstepsCompleted: [1, 3]\ncurrentStep: 2\n');
    const r = mergeStateFile({ path: 'wf.md', base, ours, theirs });
    assert.equal(r.conflicts, 0, r.text);
    assert.match(r.text, /^stepsCompleted: \[1, 2, 3\]$/m);
    assert.doesNotMatch(r.text, /^currentStep: [123]$/m, 'no done step is current');
  });

  test('with the steps listed, currentStep is the first step the merged steps leave to do', () => {
    const base = wf('status: in_progress\nsteps: [a, b, c, d]\nstepsCompleted: [a]\ncurrentStep: b\n');
    const ours = wf('status: in_progress\nsteps: [a, b, c, d]\nstepsCompleted: [a, b]\ncurrentStep: c\n');
    const theirs = wf('status: in_progress\nsteps: [a, b, c, d]\nstepsCompleted: [a, c]\ncurrentStep: b\n');
    const r = mergeStateFile({ path: 'wf.md', base, ours, theirs });
    assert.equal(r.conflicts, 0, r.text);
    assert.match(r.text, /^currentStep: d$/m);
  });

  test('completed on one side, blocked on the other: the merged workflow is completed and keeps no blockedReason', () => {
    const base = wf('status: in_progress\nstepsCompleted: [1]\n');
    const ours = wf('status: completed\nstepsCompleted: [1, 2]\n');
    const theirs = wf('status: blocked\nblockedReason: waiting for the API key\nstepsCompleted: [1]\n');
    const r = mergeStateFile({ path: 'wf.md', base, ours, theirs });
    assert.equal(r.conflicts, 0, r.text);
    assert.match(r.text, /^status: completed$/m);
    assert.doesNotMatch(r.text, /blockedReason/);
  });

  test('gate files merge key by key: the newest verdict, both histories, and the other side\'s keys and comments kept', () => {
    const base = renderGateUpdate('# Review gate of the PRD\nowner: qa\nscope: prd\n', { verdict: 'CONCERNS', reviewer: 'qa', updated: '2026-11-20T10:00:00.000Z' });
    // Ours: a note key and a comment added by hand, then a FAIL verdict.
    const oursEdited = base.replace('scope: prd\n', 'scope: prd\n# ask the lead before waiving\nnotes: see the review thread\n');
    const ours = renderGateUpdate(oursEdited, { verdict: 'FAIL', reviewer: 'qa', reason: 'tests red', updated: '2026-11-20T11:00:00.000Z' });
    // Theirs: the newer verdict, and the owner changed.
    const theirs = renderGateUpdate(base.replace('owner: qa', 'owner: platform'), { verdict: 'PASS', reviewer: 'lead', updated: '2026-11-20T12:00:00.000Z' });
    const r = mergeStateFile({ path: '.waymark/gates/prd/review.gate', base, ours, theirs });
    assert.equal(r.conflicts, 0, r.text);
    assert.match(r.text, /^gate: PASS$/m);
    assert.match(r.text, /^reviewer: lead$/m);
    assert.doesNotMatch(r.text, /^reason: tests red$/m, 'the verdict keys are the newest verdict\'s');
    assert.match(r.text, /^notes: see the review thread$/m, 'our key kept');
    assert.match(r.text, /# ask the lead before waiving/, 'our comment kept');
    assert.match(r.text, /# Review gate of the PRD/);
    assert.match(r.text, /^owner: platform$/m, 'their change of another key kept');
    assert.deepEqual([...r.text.matchAll(/- gate: (\w+)/g)].map((m) => m[1]), ['CONCERNS', 'FAIL', 'PASS']);
  });

  test('a blocked merge keeps its blockedReason', () => {
    const base = wf('status: in_progress\nstepsCompleted: [1]\n');
    const ours = wf('status: blocked\nblockedReason: waiting for the API key\nstepsCompleted: [1]\n');
    const theirs = wf('status: in_progress\nstepsCompleted: [1]\nupdatedAt: 2026-11-25\n');
    const r = mergeStateFile({ path: 'wf.md', base, ours, theirs });
    assert.equal(r.conflicts, 0, r.text);
    assert.match(r.text, /^status: blocked$/m);
    assert.match(r.text, /^blockedReason: waiting for the API key$/m);
  });
});

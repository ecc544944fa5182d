import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../src/cli/framework';
import { protocolCommands } from '../../src/cli/protocolCommands';
import { writeCommands } from '../../src/cli/writeCommands';
import { recordOrchestratorWorkflow, readOrchestrator } from '../../src/core/protocol/orchestrator';
import { protocolPaths } from '../../src/core/protocol/paths';
import { historyOf } from '../../src/core/protocol/timeline';
import { compareProgress, rewindOf } from '../../src/core/model/progress';
import { tempRoot, cleanup } from './protocolHelpers';

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli([...protocolCommands, ...writeCommands], argv, { cwd, stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

function workspace(text: string): { root: string; file: string } {
  const root = tempRoot('waymark-progress-');
  fs.mkdirSync(path.join(root, '.waymark'));
  const file = path.join(root, 'wf.md');
  fs.writeFileSync(file, text);
  return { root, file };
}

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

describe('progress compares completed steps as a set, then the status', () => {
  test('ahead, behind, same, diverged; a status going back is a rewind', () => {
    assert.equal(compareProgress({ done: ['a', 'b'] }, { done: ['a'] }), 'ahead');
    assert.equal(compareProgress({ done: ['a'] }, { done: ['a', 'b'] }), 'behind');
    assert.equal(compareProgress({ done: ['a'], status: 'completed' }, { done: ['a'], status: 'in_progress' }), 'ahead');
    assert.equal(compareProgress({ done: ['a'], status: 'blocked' }, { done: ['a'], status: 'in_progress' }), 'same');
    assert.equal(compareProgress({ done: ['a'] }, { done: ['b'] }), 'diverged');
    assert.equal(compareProgress({ done: ['a', 'b'], status: 'in_progress' }, { done: ['a'], status: 'completed' }), 'diverged');
    assert.deepEqual(rewindOf({ done: ['a', 'b'], status: 'completed' }, { done: ['a'], status: 'in_progress' }), { steps: ['b'], status: { from: 'completed', to: 'in_progress' } });
  });
});

describe('resume and sync never move work backwards (issue 9, items 1, 2 and 9)', () => {
  test('item 1: an agent finished every step by hand after a checkpoint; resume says done, sync keeps it, restore refuses to rewind', async () => {
    // updatedAt left alone by the agent (as BMAD agents do), minutes older than the checkpoint.
    const start = `---\nworkflow: ship\nstatus: in_progress\nsteps: [design, implement, test, release]\ncurrentStep: release\nstepsCompleted: [design, implement, test]\nupdatedAt: ${minutesAgo(3)}\n---\nbody\n`;
    const { root, file } = workspace(start);
    try {
      let r = await cli(root, 'checkpoint', 'create', '--json');
      assert.equal(r.code, 0, r.err);
      const id = JSON.parse(r.out).id as string;
      const done = start.replace('status: in_progress', 'status: completed').replace('stepsCompleted: [design, implement, test]', 'stepsCompleted: [design, implement, test, release]');
      fs.writeFileSync(file, done);

      r = await cli(root, 'resume', 'wf.md', '--json');
      const rep = JSON.parse(r.out);
      assert.equal(rep.tier, 1, r.out);
      assert.equal(rep.done, true);
      assert.equal(rep.step, undefined);
      assert.deepEqual(rep.stale.map((s: { source: string }) => s.source), [`checkpoint ${id}`]);

      r = await cli(root, 'sync');
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^checkpoint: \*: checkpoint .* written from the current frontmatter/);
      assert.equal(fs.readFileSync(file, 'utf8'), done, 'sync never rewinds the frontmatter');

      // Restoring the old checkpoint would re-open the workflow and un-complete release: refused.
      r = await cli(root, 'checkpoint', 'restore', id);
      assert.equal(r.code, 4, r.out + r.err);
      assert.match(r.err, /wf\.md \(completed step release would be un-done; status completed would go back to in_progress\)/);
      assert.match(r.err, /Nothing was changed/);
      assert.equal(fs.readFileSync(file, 'utf8'), done);
      // --force rewinds, and history says so.
      r = await cli(root, 'checkpoint', 'restore', id, '--force', '--actor', 'me');
      assert.equal(r.code, 0, r.err);
      assert.match(fs.readFileSync(file, 'utf8'), /status: in_progress/);
      const h = await historyOf(root, file);
      const last = h.entries[h.entries.length - 1];
      assert.equal(last.operation, 'checkpoint.restore');
      assert.equal(last.detail!.forced, true);
      assert.deepEqual(last.detail!.rewound, { steps: ['release'], status: { from: 'completed', to: 'in_progress' } });
    } finally {
      cleanup(root);
    }
  });

  test('item 2: a newer orchestrator entry that is behind never wins; sync moves it forward', async () => {
    const { root, file } = workspace('---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\ncurrentStep: b\nstepsCompleted: [a]\nupdatedAt: 2026-11-23T10:00:00Z\n---\nbody\n');
    try {
      await recordOrchestratorWorkflow(root, 'wf.md', { nextStep: 'a', currentStep: 'a', updatedAt: '2026-11-23T10:20:00Z' }, { type: 'multi' });
      let r = await cli(root, 'resume', 'wf.md', '--json');
      const rep = JSON.parse(r.out);
      assert.equal(rep.tier, 1, r.out);
      assert.equal(rep.step, 'b');
      assert.ok(rep.warnings.some((w: string) => /workflow-state\.json .* is newer but behind .*progress wins over time/.test(w)), rep.warnings.join('\n'));
      r = await cli(root, 'sync');
      assert.doesNotMatch(r.out, /ahead of the frontmatter/);
      assert.match(r.out, /orchestrator: wf\.md: workflow-state\.json now has b \(was a\)/);
      const w = readOrchestrator(root).state!.workflows!['wf.md'];
      assert.equal(w.nextStep, 'b');
      assert.deepEqual(w.stepsCompleted, ['a']);
      assert.match(fs.readFileSync(file, 'utf8'), /stepsCompleted: \[a\]/);
    } finally {
      cleanup(root);
    }
  });

  test('a disagreement in content is a warning naming both and changes nothing', async () => {
    const text = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\ncurrentStep: c\nstepsCompleted: [a, b]\n---\nbody\n';
    const { root, file } = workspace(text);
    try {
      await recordOrchestratorWorkflow(root, 'wf.md', { nextStep: 'b', stepsCompleted: ['a', 'c'], updatedAt: new Date(Date.now() + 60_000).toISOString() });
      const orchBefore = fs.readFileSync(protocolPaths(root).workflowState, 'utf8');
      let r = await cli(root, 'resume', 'wf.md', '--json');
      const rep = JSON.parse(r.out);
      assert.equal(rep.tier, 1);
      assert.equal(rep.step, 'c');
      assert.deepEqual(rep.diverged.map((s: { source: string }) => s.source), ['workflow-state.json']);
      assert.ok(rep.warnings.some((w: string) => /workflow-state\.json and frontmatter disagree about wf\.md: .*\[a, c\] done.*\[a, b\] done.*nothing is changed/.test(w)), rep.warnings.join('\n'));
      r = await cli(root, 'sync');
      assert.match(r.out, /manual: wf\.md: workflow-state\.json and frontmatter disagree/);
      assert.equal(fs.readFileSync(protocolPaths(root).workflowState, 'utf8'), orchBefore);
      assert.equal(fs.readFileSync(file, 'utf8'), text);
    } finally {
      cleanup(root);
    }
  });

  test('blocked is as far as in_progress (no rewind); re-opening a completed workflow is refused', async () => {
    const text = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: b\nstepsCompleted: [a]\n---\nbody\n';
    const { root, file } = workspace(text);
    try {
      let r = await cli(root, 'checkpoint', 'create', '--json');
      const id = JSON.parse(r.out).id as string;
      r = await cli(root, 'block', 'wf.md', '--reason', 'waiting');
      assert.equal(r.code, 0, r.err);
      // blocked is as far as in_progress: restoring in_progress is no rewind.
      r = await cli(root, 'checkpoint', 'restore', id);
      assert.equal(r.code, 0, r.err);
      r = await cli(root, 'set-status', 'wf.md', 'completed');
      assert.equal(r.code, 0, r.err);
      r = await cli(root, 'checkpoint', 'restore', id);
      assert.equal(r.code, 4);
      assert.match(r.err, /status completed would go back to in_progress/);
    } finally {
      cleanup(root);
    }
  });
});

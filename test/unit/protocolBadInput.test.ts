import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resume, resumeRoot } from '../../src/core/protocol/resume';
import { createCheckpoint, listCheckpoints, showCheckpoint, latestCheckpointFor } from '../../src/core/protocol/checkpoints';
import { readOrchestrator, recordOrchestratorWorkflow, expireOrchestratorIfDue } from '../../src/core/protocol/orchestrator';
import { appendEvent, readEvents } from '../../src/core/protocol/events';
import { protocolPaths } from '../../src/core/protocol/paths';
import { runCli } from '../../src/cli/framework';
import { protocolCommands } from '../../src/cli/protocolCommands';
import { WaymarkError } from '../../src/core/errors';
import { tempRoot, cleanup } from './protocolHelpers';

const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\nstepsCompleted: []\n---\nbody\n';

describe('protocol bad input', () => {
  test('unreadable orchestrator files give warnings, never a crash; the rest still answers', async () => {
    const root = tempRoot();
    try {
      fs.writeFileSync(path.join(root, 'wf.md'), WF);
      const p = protocolPaths(root);
      fs.mkdirSync(p.memory, { recursive: true });
      fs.writeFileSync(p.workflowState, '{"type": "x", "workflows": {');
      fs.writeFileSync(p.sessionState, '---js\n({ activeWorkflow: (function(){ require("fs").writeFileSync("' + path.join(root, 'pwned') + '", "x"); return "wf.md"; })() })\n---\n');
      const r = await resume(root, path.join(root, 'wf.md'));
      assert.equal(r.tier, 1);
      assert.equal(r.step, 'a');
      assert.ok(r.warnings.some((w) => /workflow-state\.json is unreadable/.test(w)), r.warnings.join('\n'));
      assert.ok(r.warnings.some((w) => /session_state\.md has no YAML frontmatter/.test(w)), r.warnings.join('\n'));
      assert.equal(fs.existsSync(path.join(root, 'pwned')), false, '---js was never evaluated');
      // TTL expiry on an unreadable state does nothing; updating it keeps the old bytes aside.
      assert.equal((await expireOrchestratorIfDue(root)).expired, false);
      await recordOrchestratorWorkflow(root, 'wf.md', { nextStep: 'a' });
      assert.ok(fs.readdirSync(p.memory).some((n) => n.startsWith('workflow-state.json.unreadable-')));
      assert.equal(readOrchestrator(root).state!.workflows!['wf.md'].nextStep, 'a');
      // Not an object.
      fs.writeFileSync(p.workflowState, '[1,2]');
      assert.ok(readOrchestrator(root).warnings.some((w) => /not a JSON object/.test(w)));
      // Unknown ttl words never expire anything.
      fs.writeFileSync(p.workflowState, JSON.stringify({ lastUpdated: '2000-01-01T00:00:00Z', ttl: 'whenever' }));
      assert.equal((await expireOrchestratorIfDue(root)).expired, false);
    } finally {
      cleanup(root);
    }
  });

  test('__proto__ as a workflow key pollutes nothing', async () => {
    const root = tempRoot();
    try {
      const p = protocolPaths(root);
      fs.mkdirSync(p.memory, { recursive: true });
      fs.writeFileSync(p.workflowState, '{"workflows": {"__proto__": {"nextStep": "evil", "polluted": true}}}');
      const rr = await resumeRoot(root);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal(rr.workflows.find((w) => w.relFile === '__proto__')?.step, 'evil');
      await recordOrchestratorWorkflow(root, '__proto__', { nextStep: 'x' });
      assert.equal(({} as Record<string, unknown>).nextStep, undefined);
      assert.equal(JSON.parse(fs.readFileSync(p.workflowState, 'utf8')).workflows.__proto__.nextStep, 'x');
    } finally {
      cleanup(root);
    }
  });

  test('a damaged checkpoint is skipped by list and resume, and reported by show', async () => {
    const root = tempRoot();
    try {
      fs.writeFileSync(path.join(root, 'wf.md'), WF);
      const good = await createCheckpoint(root, { clock: { now: () => new Date('2026-01-01T00:00:00Z') } });
      const bad = '20991231T000000000Z-dead';
      fs.writeFileSync(path.join(protocolPaths(root).checkpoints, `${bad}.json`), '{"id": "x", "workflows": [');
      fs.writeFileSync(path.join(protocolPaths(root).checkpoints, 'notes.txt'), 'not a checkpoint');
      assert.deepEqual(listCheckpoints(root).map((c) => c.id), [good.id]);
      assert.equal(latestCheckpointFor(root, path.join(root, 'wf.md'))!.checkpoint.id, good.id);
      assert.throws(() => showCheckpoint(root, bad), (e: unknown) => WaymarkError.is(e, 'unreadable') && /not valid JSON/.test((e as Error).message));
      // A workflow whose frontmatter is broken is listed as unreadable in a new checkpoint, not dropped silently.
      fs.writeFileSync(path.join(root, 'broken.md'), '---\nworkflow: b\nstepsCompleted: [a\n---\n');
      const cp = await createCheckpoint(root);
      assert.deepEqual(cp.unreadable?.map((u) => u.file), ['broken.md']);
    } finally {
      cleanup(root);
    }
  });

  test('an events segment whose first line is garbage still rotates, seqs stay contiguous', () => {
    const root = tempRoot();
    try {
      fs.mkdirSync(protocolPaths(root).events, { recursive: true });
      fs.writeFileSync(protocolPaths(root).eventsFile, 'garbage line\n');
      for (let i = 0; i < 30; i++) appendEvent(root, { type: 't' }, { maxBytes: 300 });
      const r = readEvents(root);
      assert.deepEqual(r.events.map((e) => e.seq), Array.from({ length: 30 }, (_, i) => i + 1));
      assert.ok(fs.readdirSync(protocolPaths(root).events).filter((n) => n.startsWith('events-')).length >= 3);
    } finally {
      cleanup(root);
    }
  });

  test('CLI: a file where the protocol folder belongs gives a clear io error (exit 2), not a stack trace', async () => {
    const root = tempRoot();
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      fs.writeFileSync(path.join(root, '.waymark', 'leases'), 'I am a file');
      let err = '';
      const code = await runCli(protocolCommands, ['lease', 'acquire'], { cwd: root, stdout: () => {}, stderr: (t) => (err += t) });
      assert.equal(code, 2);
      assert.match(err, /^waymark lease acquire: Cannot use .*leases/);
      assert.doesNotMatch(err, /unexpected error/);
    } finally {
      cleanup(root);
    }
  });
});

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../src/cli/framework';
import { readCommands } from '../../src/cli/readCommands';
import { writeCommands } from '../../src/cli/writeCommands';
import { protocolCommands } from '../../src/cli/protocolCommands';
import { memoryCommands } from '../../src/cli/memoryCommands';
import { recordOrchestratorWorkflow } from '../../src/core/protocol/orchestrator';
import { readEvents } from '../../src/core/protocol/events';
import { historyOf } from '../../src/core/protocol/timeline';
import { protocolPaths } from '../../src/core/protocol/paths';
import { tempRoot, cleanup } from './protocolHelpers';

const ALL = [...readCommands, ...writeCommands, ...protocolCommands, ...memoryCommands];

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(ALL, argv, { cwd, stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

function workspace(text: string, name = 'wf.md'): { root: string; file: string } {
  const root = tempRoot('waymark-truth-');
  fs.mkdirSync(path.join(root, '.waymark'));
  const file = path.join(root, name);
  fs.writeFileSync(file, text);
  return { root, file };
}

// Memory runs on its journal here: these tests are about history and sessions, not Kuzu.
let engine: string | undefined;
before(() => {
  engine = process.env.WAYMARK_MEMORY_ENGINE;
  process.env.WAYMARK_MEMORY_ENGINE = 'journal';
});
after(() => {
  if (engine === undefined) delete process.env.WAYMARK_MEMORY_ENGINE;
  else process.env.WAYMARK_MEMORY_ENGINE = engine;
});

describe('enforcement enforces (issue 9, items 7, 8 and 9)', () => {
  test('item 7: a gated step recorded done without a passing gate: validate flags it and advance is refused unless --force', async () => {
    const text = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, {id: b, gate: true}, c]\ncurrentStep: c\nstepsCompleted: [a, b]\n---\nbody\n';
    const { root, file } = workspace(text);
    try {
      let r = await cli(root, 'validate', 'wf.md');
      assert.equal(r.code, 1);
      assert.match(r.out, /error gate-not-passed/);
      r = await cli(root, 'advance', 'wf.md');
      assert.equal(r.code, 4, r.out + r.err);
      assert.match(r.err, /has an error that advance does not fix: line \d+: gate-not-passed: .*waymark gate pass .*--force/);
      assert.equal(fs.readFileSync(file, 'utf8'), text, 'nothing written');
      r = await cli(root, 'advance', 'wf.md', '--json');
      assert.equal(JSON.parse(r.out).error.reason, 'refused');
      r = await cli(root, 'advance', 'wf.md', '--force', '--actor', 'lead');
      assert.equal(r.code, 0, r.err);
      const h = await historyOf(root, file);
      const last = h.entries[h.entries.length - 1];
      assert.equal(last.operation, 'advance');
      assert.deepEqual(last.detail!.forced, { problems: ['gate-not-passed'] });
      // The way out the problem names: a verdict; then advance goes through.
      fs.writeFileSync(file, text);
      assert.equal((await cli(root, 'gate', 'pass', 'wf.md', 'b', '--by', 'maria')).code, 0);
      r = await cli(root, 'advance', 'wf.md');
      assert.equal(r.code, 0, r.err);
    } finally {
      cleanup(root);
    }
  });

  test('item 8: enforcement.blocking refuses writes to the workflows it names, except from the orchestrator session', async () => {
    const text = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\nstepsCompleted: []\n---\n';
    const { root, file } = workspace(text);
    try {
      fs.writeFileSync(path.join(root, 'free.md'), text);
      await recordOrchestratorWorkflow(root, 'wf.md', { nextStep: 'a' }, { session: 'orch-1', enforcement: { violations: ['review skipped'], blocking: true } });
      let r = await cli(root, 'advance', 'wf.md', '--session', 'agent-9');
      assert.equal(r.code, 4, r.out + r.err);
      assert.match(r.err, /the orchestrator \(session orch-1\) blocks writes to wf\.md .*1: review skipped/);
      assert.equal(fs.readFileSync(file, 'utf8'), text);
      r = await cli(root, 'advance', 'wf.md');
      assert.equal(r.code, 4, 'no session is not the orchestrator either');
      r = await cli(root, 'advance', 'free.md', '--session', 'agent-9');
      assert.equal(r.code, 0, 'a workflow it does not name is free');
      r = await cli(root, 'advance', 'wf.md', '--session', 'orch-1');
      assert.equal(r.code, 0, r.err);
    } finally {
      cleanup(root);
    }
  });

  test('item 9: blocked → completed goes back through in_progress', async () => {
    const { root, file } = workspace('---\nworkflow: w\nstatus: blocked\nblockedReason: waiting\nsteps: [a]\nstepsCompleted: [a]\n---\n');
    try {
      let r = await cli(root, 'set-status', 'wf.md', 'completed');
      assert.equal(r.code, 4);
      assert.match(r.err, /blocked → completed.*unblock it first/);
      assert.match(fs.readFileSync(file, 'utf8'), /status: blocked/);
      assert.equal((await cli(root, 'unblock', 'wf.md')).code, 0);
      r = await cli(root, 'set-status', 'wf.md', 'completed');
      assert.equal(r.code, 0, r.err);
    } finally {
      cleanup(root);
    }
  });
});

describe('history and sessions tell the truth (issue 9, items 10, 11 and 12)', () => {
  test('item 10: a hand edit between two writes becomes an external-edit line; --at is exact and whole', async () => {
    const { root, file } = workspace('---\nworkflow: w\nstatus: in_progress\nscope: small\nsteps: [a, b, c, d]\ncurrentStep: a\nstepsCompleted: []\n---\n');
    try {
      assert.equal((await cli(root, 'advance', 'wf.md')).code, 0);
      // By hand: c marked done too, scope changed.
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('stepsCompleted: [a]', 'stepsCompleted: [a, c]').replace('scope: small', 'scope: large'));
      assert.equal((await cli(root, 'advance', 'wf.md')).code, 0);
      const h = await historyOf(root, file);
      assert.deepEqual(h.entries.map((e) => e.operation), ['advance', 'external-edit', 'advance']);
      const [one, ext, two] = h.entries;
      assert.equal(ext.hashBefore, one.hashAfter);
      assert.equal(two.hashBefore, ext.hashAfter);
      assert.deepEqual(ext.to!.stepsCompleted, ['a', 'c']);
      assert.equal(ext.to!.scope, 'large');
      assert.equal(ext.from!.scope, 'small', 'the first line recorded the whole starting state');
      // --at 1: the whole state as it was, scope included (no entry before the hand edit touched it).
      let r = await cli(root, 'history', 'wf.md', '--at', '1', '--json');
      const s1 = JSON.parse(r.out);
      assert.deepEqual(s1.state.stepsCompleted, ['a']);
      assert.equal(s1.state.scope, 'small');
      assert.equal(s1.state.status, 'in_progress');
      assert.equal(s1.hash, one.hashAfter);
      r = await cli(root, 'history', 'wf.md', '--at', '2', '--json');
      const s2 = JSON.parse(r.out);
      assert.deepEqual(s2.state.stepsCompleted, ['a', 'c']);
      assert.equal(s2.state.scope, 'large');
      r = await cli(root, 'history', 'wf.md');
      assert.match(r.out, /#2 .* external external-edit/);
    } finally {
      cleanup(root);
    }
  });

  test('item 11: session start/end write markers and events; the running session applies to later writes and the file\'s session key', async () => {
    const { root, file } = workspace('---\nworkflow: w\nstatus: in_progress\nsession: old-session\nsteps: [a, b, c]\ncurrentStep: a\nstepsCompleted: []\n---\n');
    try {
      let r = await cli(root, 'session', 'start', '--workflow', 'wf.md', '--objective', 'ship a', '--root', root, '--json');
      assert.equal(r.code, 0, r.err);
      const id = JSON.parse(r.out).session.id as string;
      r = await cli(root, 'advance', 'wf.md');
      assert.equal(r.code, 0, r.err);
      let h = await historyOf(root, file);
      assert.deepEqual(h.entries.map((e) => [e.operation, e.session]), [['session.start', id], ['advance', id]]);
      assert.match(fs.readFileSync(file, 'utf8'), new RegExp(`^session: ${id}$`, 'm'));
      // --session names another one: recorded, and the file's key follows.
      r = await cli(root, 'advance', 'wf.md', '--session', 'S2');
      assert.equal(r.code, 0, r.err);
      assert.match(fs.readFileSync(file, 'utf8'), /^session: S2$/m);
      r = await cli(root, 'session', 'end', '--summary', 'done a and b', '--root', root);
      assert.equal(r.code, 0, r.err);
      h = await historyOf(root, file);
      assert.deepEqual(h.entries.map((e) => e.operation), ['session.start', 'advance', 'advance', 'session.end']);
      assert.equal(h.entries[3].session, id);
      const types = readEvents(root).events.map((e) => e.type);
      assert.ok(types.includes('session.start') && types.includes('session.end'), types.join(', '));
      // After the end, writes carry no session again.
      r = await cli(root, 'advance', 'wf.md');
      h = await historyOf(root, file);
      assert.equal(h.entries[h.entries.length - 1].session, undefined);
    } finally {
      cleanup(root);
    }
  });

  test('item 12: Waymark\'s own session_state.md is read by tier 3, with no warning', async () => {
    const { root } = workspace('---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\ncurrentStep: a\nstepsCompleted: []\n---\n');
    try {
      let r = await cli(root, 'session', 'start', '--workflow', 'wf.md', '--root', root);
      assert.equal(r.code, 0, r.err);
      assert.match(fs.readFileSync(protocolPaths(root).sessionState, 'utf8'), /^---\nsession: "s-/);
      assert.equal((await cli(root, 'advance', 'wf.md')).code, 0);
      r = await cli(root, 'resume', 'wf.md', '--json');
      const rep = JSON.parse(r.out);
      assert.ok(!rep.warnings.some((w: string) => /session_state\.md/.test(w)), rep.warnings.join('\n'));
      const t3 = rep.sources.find((s: { source: string }) => s.source === 'session_state.md');
      assert.ok(t3, JSON.stringify(rep.unavailable));
      assert.equal(t3.step, 'b', 'the hot file follows its active workflow');
      assert.deepEqual(rep.stale, []);
      r = await cli(root, 'resume');
      assert.doesNotMatch(r.out, /has no YAML frontmatter/);
    } finally {
      cleanup(root);
    }
  });
});

describe('memory that cannot persist says so; small truths (issue 9, items 13 and 14)', () => {
  test('item 13: a folder where the cold file belongs: memory status and status say degraded, with the reason', async () => {
    const { root } = workspace('---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\nstepsCompleted: []\n---\n');
    // Real Kuzu here: with it healthy, the only thing wrong is the cold file.
    delete process.env.WAYMARK_MEMORY_ENGINE;
    try {
      assert.equal((await cli(root, 'memory', 'record', '--type', 'learning', '--category', 'gotcha', 'npm ci needs the lockfile', '--root', root)).code, 0);
      let r = await cli(root, 'memory', 'status', '--root', root, '--json');
      assert.equal(JSON.parse(r.out).state, 'ok', r.out);
      fs.rmSync(protocolPaths(root).coldMemory, { force: true });
      fs.mkdirSync(protocolPaths(root).coldMemory);
      r = await cli(root, 'memory', 'status', '--root', root, '--json');
      const s = JSON.parse(r.out);
      assert.equal(s.state, 'degraded');
      assert.match(s.reason, /^Auto-memory unavailable — learnings will not persist: the cold memory file .*orchestrator_memory\.md is a folder/);
      assert.match(s.line, /^memory: degraded: Auto-memory unavailable/);
      r = await cli(root, 'status');
      assert.match(r.out, /^memory: degraded: Auto-memory unavailable — learnings will not persist/);
      r = await cli(root, 'status', '--json');
      assert.equal(JSON.parse(r.out).memory.state, 'degraded');
    } finally {
      process.env.WAYMARK_MEMORY_ENGINE = 'journal';
      cleanup(root);
    }
  });

  const PLAN = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\ncurrentStep: a\nstepsCompleted: []\nupdatedAt: 2026-11-22T09:14:00Z\n---\n';

  test('item 14a: updatedAt is rewritten in the file\'s own style', async () => {
    const { root, file } = workspace(PLAN);
    try {
      assert.equal((await cli(root, 'advance', 'wf.md')).code, 0);
      const text = fs.readFileSync(file, 'utf8');
      assert.match(text, /^updatedAt: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m, text);
      assert.doesNotMatch(text, /updatedAt: 2026-11-22T09:14:00Z/);
      fs.writeFileSync(path.join(root, 'q.md'), '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\nstepsCompleted: []\nupdatedAt: "2026-11-22T09:14:00.123Z"\n---\n');
      assert.equal((await cli(root, 'advance', 'q.md')).code, 0);
      assert.match(fs.readFileSync(path.join(root, 'q.md'), 'utf8'), /^updatedAt: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/m);
    } finally {
      cleanup(root);
    }
  });

  test('item 14b: delegate --out creates a missing folder inside the workspace', async () => {
    const { root } = workspace(PLAN);
    try {
      const r = await cli(root, 'delegate', 'wf.md', '--agent', 'dev', '--out', 'work/dev/child.md');
      assert.equal(r.code, 0, r.err);
      assert.ok(fs.statSync(path.join(root, 'work', 'dev', 'child.md')).isFile());
    } finally {
      cleanup(root);
    }
  });

  test('item 14c: an entity created only as a relation target gets a real createdAt', async () => {
    const { root } = workspace(PLAN);
    try {
      let r = await cli(root, 'memory', 'record', '--type', 'entity', '--kind', 'component', '--name', 'parser', '--relates-to', 'component:lexer', '--relation', 'uses', '--root', root);
      assert.equal(r.code, 0, r.err);
      r = await cli(root, 'memory', 'export', '--out', 'export.json', '--root', root);
      assert.equal(r.code, 0, r.err);
      const exported = JSON.parse(fs.readFileSync(path.join(root, 'export.json'), 'utf8')) as { entities: { id: string; createdAt: string }[] };
      const lexer = exported.entities.find((e) => e.id === 'component:lexer');
      assert.ok(lexer, JSON.stringify(exported.entities));
      assert.ok(Date.parse(lexer.createdAt) > Date.parse('2026-01-01T00:00:00Z'), lexer.createdAt);
    } finally {
      cleanup(root);
    }
  });

  test('item 14d: free-text recall ignores stop-words', async () => {
    const { root } = workspace(PLAN);
    try {
      for (const t of ['Release pipeline runs for every tag', 'Lint config moved to flat config', 'Parser keeps comments']) {
        assert.equal((await cli(root, 'memory', 'record', '--type', 'summary', '--category', 'session', t, '--root', root)).code, 0);
      }
      let r = await cli(root, 'memory', 'recall', 'for', '--root', root, '--json');
      assert.deepEqual(JSON.parse(r.out).items, [], 'a stop-word alone recalls nothing');
      r = await cli(root, 'memory', 'recall', 'pipeline for the release', '--root', root, '--json');
      const items = JSON.parse(r.out).items as { memory: { text: string } }[];
      assert.deepEqual(items.map((i) => i.memory.text), ['Release pipeline runs for every tag']);
    } finally {
      cleanup(root);
    }
  });
});

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

// Holes found by an outside review of Waymark's promises (enforcement fails closed, nothing is
// written outside the workspace, a write never touches bytes it does not own). Real files, real
// links, the real CLI and hook processes, payloads shaped as each agent's hook documentation says.

const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\ncurrentStep: a\nstepsCompleted: []\nscope: small\n---\nbody\n';
const tmp: string[] = [];
after(() => {
  for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
});
// WAYMARK_TEST_CLI runs the checks against another build (e.g. main's, to see them fail there).
const cli = process.env.WAYMARK_TEST_CLI ?? path.resolve('dist/cli.js');

const ws = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-red37-')));
  tmp.push(root);
  fs.mkdirSync(path.join(root, '.waymark'));
  const file = path.join(root, 'a.md');
  fs.writeFileSync(file, WF);
  return { root, file };
};
const outside = () => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-red37-out-')));
  tmp.push(d);
  return d;
};
const run = (cwd: string, args: string[], input?: string, env: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, input, encoding: 'utf8', timeout: 30_000, env: { ...process.env, WAYMARK_MEMORY_ENGINE: 'journal', WAYMARK_SCAN_INDEX: '0', ...env } });
  assert.ok(!r.error, `waymark ${args.join(' ')} hung or failed to start: ${r.error?.message}`);
  return r;
};

describe('red37 1: a state file hard-linked to a file outside the workspace', () => {
  test('history, events log and memory file: the outside file keeps its bytes, the workspace name gets its own copy with the new record', () => {
    const { root } = ws();
    const first = run(root, ['advance', 'a.md']);
    assert.equal(first.status, 0, first.stderr);
    const out = outside();
    const records = ['history/a.md.jsonl', 'events/events.jsonl', 'memory/orchestrator_memory.md'];
    const victims = records.map((rel) => {
      const inside = path.join(root, '.waymark', rel);
      assert.ok(fs.existsSync(inside), `${rel} was written by the first advance`);
      const victim = path.join(out, rel.replace(/\//g, '_'));
      fs.linkSync(inside, victim); // one file, two names: one inside the workspace, one outside
      return { rel, inside, victim, bytes: fs.readFileSync(victim) };
    });
    const second = run(root, ['advance', 'a.md']);
    assert.equal(second.status, 0, second.stderr);
    for (const v of victims) {
      assert.deepEqual(fs.readFileSync(v.victim), v.bytes, `${v.rel}: the outside file is unchanged`);
      assert.equal(fs.statSync(v.inside).nlink, 1, `${v.rel}: the workspace name is its own file now`);
    }
    const hist = fs.readFileSync(path.join(root, '.waymark', 'history', 'a.md.jsonl'), 'utf8').trim().split('\n');
    assert.equal(hist.length, 2, 'both advances are recorded in the workspace history');
    assert.ok(fs.readFileSync(path.join(root, '.waymark', 'events', 'events.jsonl'), 'utf8').length > victims[1].bytes.length, 'the event was recorded inside');
    assert.deepEqual(fs.readdirSync(path.join(root, '.waymark', 'history')), ['a.md.jsonl'], 'no temp copy is left behind');
  });
});

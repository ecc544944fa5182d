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

const DEFINITION = 'steps:\n  - discovery\n  - {id: design, gate: true}\n  - implement\n  - review\n';
const PLAN = '---\nworkflow: feature\nstatus: in_progress\ncurrentStep: design\nstepsCompleted: [discovery]\n---\n# Plan\n';
/** A workspace (git, one native workflow gated on design in docs/plan.md) with an empty `sub/` folder. */
const featureWs = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-red37-hooks-')));
  tmp.push(root);
  fs.mkdirSync(path.join(root, '.waymark', 'workflows'), { recursive: true });
  fs.mkdirSync(path.join(root, 'docs'));
  fs.mkdirSync(path.join(root, 'sub'));
  fs.writeFileSync(path.join(root, '.waymark', 'workflows', 'feature.yaml'), DEFINITION);
  fs.writeFileSync(path.join(root, 'docs', 'plan.md'), PLAN);
  spawnSync('git', ['init', '-q', root]);
  return root;
};
/** The real hook process, started (as an agent may start it) in a folder that is not the agent's: the file system root. */
const hook = (agent: string, payload: Record<string, unknown>, env: Record<string, string | undefined> = {}) => {
  const e: Record<string, string | undefined> = { ...process.env, WAYMARK_ACTOR: undefined, WAYMARK_SESSION: undefined, CLAUDE_PROJECT_DIR: undefined, CODEX_PROJECT_DIR: undefined, GEMINI_PROJECT_DIR: undefined, CURSOR_PROJECT_DIR: undefined, ...env };
  for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
  const r = spawnSync(process.execPath, [cli, 'hook', agent], { cwd: '/', input: JSON.stringify(payload), encoding: 'utf8', timeout: 30_000, env: e as NodeJS.ProcessEnv });
  assert.ok(!r.error, `waymark hook ${agent} hung or failed to start: ${r.error?.message}`);
  return r;
};
const claudeFrame = (root: string, cwd: string, event: string) => ({ session_id: 'red37-session', transcript_path: path.join(root, '.claude', 't.jsonl'), cwd, permission_mode: 'default', hook_event_name: event });
const codexFrame = (root: string, cwd: string, event: string) => ({ session_id: 'red37-session', turn_id: 'turn-1', transcript_path: null, cwd, hook_event_name: event, model: 'gpt-5-codex', tool_use_id: 'call_1' });

describe('red37 5: relative paths in a hook payload are the agent\'s, resolved against the payload\'s cwd', () => {
  test('a shell tool\'s relative working folder (Codex workdir, an MCP shell\'s cwd) is taken from the agent\'s cwd, not the project folder', () => {
    const root = featureWs();
    // The agent works in sub/; `../docs` from there is the workspace's docs/ (from the project folder it would be outside).
    const codex = hook('codex', { ...codexFrame(root, path.join(root, 'sub'), 'PreToolUse'), tool_name: 'Bash', tool_input: { command: 'echo x > plan.md', workdir: '../docs' } }, { CODEX_PROJECT_DIR: root });
    assert.equal(codex.status, 2, `refused: ${codex.stderr}${codex.stdout}`);
    assert.match(codex.stderr, /docs\/plan\.md/);
    const mcp = hook('claude-code', { ...claudeFrame(root, path.join(root, 'sub'), 'PreToolUse'), tool_name: 'mcp__shell__run_command', tool_input: { command: 'echo x > plan.md', cwd: '../docs' } }, { CLAUDE_PROJECT_DIR: root });
    assert.equal(mcp.status, 2, `refused: ${mcp.stderr}${mcp.stdout}`);
    assert.match(mcp.stderr, /docs\/plan\.md/);
    assert.equal(fs.readFileSync(path.join(root, 'docs', 'plan.md'), 'utf8'), PLAN);
  });

  test('a relative payload cwd is taken from the agent\'s project folder, not the hook process\'s folder', () => {
    const root = featureWs();
    const broken = '---\nworkflow: feature\nstatus: done\n---\n';
    const claude = hook('claude-code', { ...claudeFrame(root, 'sub', 'PreToolUse'), tool_name: 'Write', tool_input: { file_path: '../docs/plan.md', content: broken } }, { CLAUDE_PROJECT_DIR: root });
    assert.equal(claude.status, 2, `refused: ${claude.stderr}${claude.stdout}`);
    assert.match(claude.stderr, /docs\/plan\.md/);
    // Cursor's beforeShellExecution: `command`, `cwd`, `workspace_roots` (cursor.com/docs/agent/hooks).
    const cursor = hook('cursor', { conversation_id: 'c1', generation_id: 'g1', hook_event_name: 'beforeShellExecution', command: 'echo x > plan.md', cwd: 'docs', workspace_roots: [root] });
    assert.match(cursor.stdout, /"permission"\s*:\s*"deny"/, `refused: ${cursor.stdout}${cursor.stderr}`);
    assert.equal(fs.readFileSync(path.join(root, 'docs', 'plan.md'), 'utf8'), PLAN);
  });
});

describe('red37 4: an append-style tool is judged like a write of the file it leaves', () => {
  const DONE = '---\nworkflow: feature\nstatus: completed\ncurrentStep: review\nstepsCompleted: [discovery, design, implement, review]\n---\n';
  test('append_file making a new state file, or bringing state to an empty one, is refused when the state breaks the rules; a harmless append passes', () => {
    const root = featureWs();
    fs.writeFileSync(path.join(root, 'docs', 'empty.md'), '');
    for (const [tool, input] of [
      ['mcp__filesystem__append_file', { path: 'docs/new.md', content: DONE }],
      ['mcp__files__appendToFile', { file_path: path.join(root, 'docs', 'empty.md'), text: DONE }],
    ] as const) {
      const r = hook('claude-code', { ...claudeFrame(root, root, 'PreToolUse'), tool_name: tool, tool_input: input }, { CLAUDE_PROJECT_DIR: root });
      assert.equal(r.status, 2, `${tool} refused: ${r.stderr}${r.stdout}`);
      assert.match(r.stderr, /gate design has no verdict/, tool);
    }
    const ok = hook('claude-code', { ...claudeFrame(root, root, 'PreToolUse'), tool_name: 'mcp__filesystem__append_file', tool_input: { path: 'docs/plan.md', content: '\nMore notes.\n' } }, { CLAUDE_PROJECT_DIR: root });
    assert.equal(ok.status, 0, `a body append is allowed: ${ok.stderr}`);
    const bad = hook('claude-code', { ...claudeFrame(root, root, 'PreToolUse'), tool_name: 'mcp__filesystem__prepend_file', tool_input: { path: 'docs/plan.md', content: DONE } }, { CLAUDE_PROJECT_DIR: root });
    assert.equal(bad.status, 2, `a prepend that replaces the state is judged: ${bad.stderr}${bad.stdout}`);
    assert.ok(!fs.existsSync(path.join(root, 'docs', 'new.md')));
  });
});

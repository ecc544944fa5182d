import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { oneFileWorkspace, outsideFolder } from './fileHelpers';

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

const ws = () => oneFileWorkspace('waymark-red37-', WF, tmp);
const outside = () => outsideFolder('waymark-red37-out-', tmp);
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

describe('red37 2: Cursor\'s MCP hooks judge another server\'s writes', () => {
  const broken = '---\nworkflow: feature\nstatus: completed\ncurrentStep: review\nstepsCompleted: [discovery, design, implement, review]\n---\n';
  // beforeMCPExecution: the common fields, `tool_name`, `tool_input` (a JSON string), and the server's `command` or `url` (cursor.com/docs/agent/hooks).
  const cursorMcp = (root: string, event: string, tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    conversation_id: 'c1', generation_id: 'g1', model: 'auto', hook_event_name: event, cursor_version: '1.7.2', workspace_roots: [root], user_email: null,
    tool_name: tool, tool_input: JSON.stringify(input), command: 'npx -y @modelcontextprotocol/server-filesystem ' + root, ...extra,
  });
  test('beforeMCPExecution: a filesystem server\'s write_file / edit_file on a state file is refused with what to run instead; Waymark\'s own tools and reads pass', () => {
    const root = featureWs();
    const w = hook('cursor', cursorMcp(root, 'beforeMCPExecution', 'write_file', { path: path.join(root, 'docs', 'plan.md'), content: broken }));
    const out = JSON.parse(w.stdout || '{}') as { permission?: string; agent_message?: string };
    assert.equal(out.permission, 'deny', `write_file refused: ${w.stdout}${w.stderr}`);
    assert.match(out.agent_message ?? '', /waymark gate pass/);
    const e = hook('cursor', cursorMcp(root, 'beforeMCPExecution', 'edit_file', { path: path.join(root, 'docs', 'plan.md'), edits: [{ oldText: 'status: in_progress', newText: 'status: completed' }] }));
    assert.equal((JSON.parse(e.stdout || '{}') as { permission?: string }).permission, 'deny', `edit_file refused: ${e.stdout}${e.stderr}`);
    const own = hook('cursor', cursorMcp(root, 'beforeMCPExecution', 'waymark_set_status', { file: 'docs/plan.md', status: 'blocked' }, { command: 'waymark mcp' }));
    assert.notEqual((JSON.parse(own.stdout || '{}') as { permission?: string }).permission, 'deny', `Waymark's own tool passes: ${own.stdout}`);
    const read = hook('cursor', cursorMcp(root, 'beforeMCPExecution', 'read_file', { path: path.join(root, 'docs', 'plan.md') }));
    assert.notEqual((JSON.parse(read.stdout || '{}') as { permission?: string }).permission, 'deny', `a read passes: ${read.stdout}`);
    assert.equal(fs.readFileSync(path.join(root, 'docs', 'plan.md'), 'utf8'), PLAN);
  });

  test('waymark hook install cursor installs beforeMCPExecution and afterMCPExecution', () => {
    const root = featureWs();
    const r = run(root, ['hook', 'install', 'cursor']);
    assert.equal(r.status, 0, r.stderr);
    const hooks = (JSON.parse(fs.readFileSync(path.join(root, '.cursor', 'hooks.json'), 'utf8')) as { hooks: Record<string, { command: string }[]> }).hooks;
    for (const ev of ['beforeMCPExecution', 'afterMCPExecution']) assert.ok(hooks[ev]?.some((h) => /waymark hook cursor/.test(h.command)), `${ev} installed: ${JSON.stringify(hooks)}`);
  });
});

describe('red37 3: the agents\' hook matchers take MCP tools; Waymark\'s own MCP tools are not judged as foreign writes', () => {
  const matcherOf = (root: string, file: string, event: string) => {
    const groups = (JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> }).hooks[event];
    const ours = groups.find((g) => g.hooks.some((h) => /waymark/.test(h.command)));
    assert.ok(ours, `${file} ${event} holds Waymark's hook`);
    return new RegExp(`^(?:${ours.matcher ?? '.*'})$`);
  };
  test('installed matchers match MCP tool names as each agent spells them; an install from before is brought up to date', () => {
    const root = featureWs();
    // Claude Code installed by an earlier Waymark, its matcher without MCP tools.
    fs.mkdirSync(path.join(root, '.claude'));
    fs.writeFileSync(path.join(root, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Edit|Write|MultiEdit|Bash', hooks: [{ type: 'command', command: 'waymark hook claude-code', timeout: 30 }] }], PostToolUse: [{ matcher: 'Edit|Write|MultiEdit|Bash', hooks: [{ type: 'command', command: 'waymark hook claude-code', timeout: 30 }] }], SessionStart: [{ hooks: [{ type: 'command', command: 'waymark hook claude-code', timeout: 60 }] }], Stop: [{ hooks: [{ type: 'command', command: 'waymark hook claude-code', timeout: 30 }] }], SubagentStop: [{ hooks: [{ type: 'command', command: 'waymark hook claude-code', timeout: 30 }] }] } }, null, 2));
    for (const agent of ['claude-code', 'codex', 'gemini']) {
      const r = run(root, ['hook', 'install', agent]);
      assert.equal(r.status, 0, `${agent}: ${r.stderr}`);
    }
    for (const ev of ['PreToolUse', 'PostToolUse']) {
      const claude = matcherOf(root, '.claude/settings.json', ev);
      assert.ok(claude.test('mcp__filesystem__write_file') && claude.test('mcp__waymark__waymark_advance') && claude.test('Write'), `Claude Code ${ev}: ${claude}`);
      const codex = matcherOf(root, '.codex/hooks.json', ev);
      assert.ok(codex.test('mcp__filesystem__edit_file') && codex.test('apply_patch'), `Codex ${ev}: ${codex}`);
    }
    for (const ev of ['BeforeTool', 'AfterTool']) {
      const gemini = matcherOf(root, '.gemini/settings.json', ev);
      assert.ok(gemini.test('filesystem__write_file') && gemini.test('mcp_filesystem_write_file') && gemini.test('write_file') && !gemini.test('read_file'), `Gemini CLI ${ev}: ${gemini}`);
    }
    const groups = (JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, unknown[]> }).hooks.PreToolUse;
    assert.equal(groups.length, 1, 'the old entry was replaced, not doubled');
  });

  test('Claude Code: another server\'s write to a state file is refused; Waymark\'s own MCP tools pass to the core, which checks them', () => {
    const root = featureWs();
    const env = { CLAUDE_PROJECT_DIR: root };
    const foreign = hook('claude-code', { ...claudeFrame(root, root, 'PreToolUse'), tool_name: 'mcp__filesystem__edit_file', tool_input: { path: 'docs/plan.md', edits: [{ oldText: 'status: in_progress', newText: 'status: completed' }] } }, env);
    assert.equal(foreign.status, 2, `refused: ${foreign.stderr}`);
    for (const [tool, input] of [
      ['mcp__waymark__waymark_set_status', { file: 'docs/plan.md', status: 'blocked' }],
      ['mcp__waymark__waymark_gate', { file: 'docs/plan.md', step: 'design', verdict: 'PASS', by: 'reviewer', text: 'ok' }],
      ['mcp__waymark__waymark_fix', { file: 'docs/plan.md' }],
    ] as const) {
      const r = hook('claude-code', { ...claudeFrame(root, root, 'PreToolUse'), tool_name: tool, tool_input: input }, env);
      assert.equal(r.status, 0, `${tool} is Waymark's own: ${r.stderr}`);
    }
    const gem = hook('gemini', { session_id: 's', cwd: root, hook_event_name: 'BeforeTool', timestamp: '2026-01-01T00:00:00Z', tool_name: 'waymark__waymark_advance', tool_input: { file: 'docs/plan.md' }, mcp_context: { server_name: 'waymark', tool_name: 'waymark_advance', command: 'waymark', args: ['mcp'] } }, { GEMINI_PROJECT_DIR: root });
    assert.equal(gem.status, 0, `Gemini CLI, Waymark's own: ${gem.stderr}${gem.stdout}`);
    assert.doesNotMatch(gem.stdout, /"deny"/);
  });

  test('the hooks\' list of Waymark\'s MCP tools is the MCP server\'s', async () => {
    const { TOOLS } = await import('../../src/mcp/tools/index');
    const { WAYMARK_MCP_TOOLS } = await import('../../src/hooks/tools');
    assert.deepEqual([...WAYMARK_MCP_TOOLS].sort(), TOOLS.map((t) => t.name).sort());
  });
});

describe('red37 6: a gate verdict merged in from another branch', () => {
  test('an agent\'s git merge / cherry-pick / checkout of a branch that brings a gate file (with its history line) is refused; a merge of ordinary work passes', () => {
    const root = featureWs();
    const git = (cwd: string, ...args: string[]) => {
      const r = spawnSync('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { encoding: 'utf8' });
      assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'init');
    git(root, 'branch', '-M', 'main');
    // The forger's clone: Waymark itself records the verdict there (a gate file and a history line
    // with its hash, byte for byte what a real reviewer's would be), committed on a branch.
    const clone = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-red37-clone-')));
    tmp.push(clone);
    git(os.tmpdir(), 'clone', '-q', root, clone);
    const g = run(clone, ['gate', 'pass', 'docs/plan.md', 'design', '--by', 'security-lead']);
    assert.equal(g.status, 0, g.stderr);
    git(clone, 'add', '-A');
    git(clone, 'commit', '-qm', 'design reviewed');
    git(clone, 'push', '-q', 'origin', 'HEAD:forged');
    // Ordinary work on another branch.
    git(clone, 'checkout', '-q', '-b', 'work', 'origin/main');
    fs.writeFileSync(path.join(clone, 'notes.md'), '# notes\n');
    git(clone, 'add', 'notes.md');
    git(clone, 'commit', '-qm', 'notes');
    git(clone, 'push', '-q', 'origin', 'HEAD:work');
    const env = { CLAUDE_PROJECT_DIR: root };
    for (const command of ['git merge forged', 'git merge --no-edit forged', 'git cherry-pick forged', 'git checkout forged -- .waymark']) {
      const r = hook('claude-code', { ...claudeFrame(root, root, 'PreToolUse'), tool_name: 'Bash', tool_input: { command } }, env);
      assert.equal(r.status, 2, `${command} refused: ${r.stderr}`);
      assert.match(r.stderr, /\.waymark\/(?:gates|history|events)\//, command);
    }
    const ok = hook('claude-code', { ...claudeFrame(root, root, 'PreToolUse'), tool_name: 'Bash', tool_input: { command: 'git merge work' } }, env);
    assert.equal(ok.status, 0, `ordinary work merges: ${ok.stderr}`);
    assert.ok(!fs.existsSync(path.join(root, '.waymark', 'gates')));
  });
});

/**
 * Session 29's outside check (red29): agent payloads and paths nobody here had played.
 * - A workspace file named with a leading `..` (`..plan.md`, `..docs/plan.md`) was taken for a path
 *   outside the workspace (`path.relative` answers `..plan.md`) and passed unchecked.
 * - An event whose cwd is outside every workspace (`/`, `/tmp`, a folder above the project) or in
 *   another workspace was judged in the wrong folder: a gated step marked done passed, and the hook
 *   wrote `.waymark/cache/hooks` into that folder (a folder that is no workspace became one).
 * - An unknown tool (an MCP server's) that moves, renames or deletes a file names no content, and
 *   passed as a read.
 * - Gemini's `write_file`/`replace` given the path as `absolute_path` or `path` failed open.
 * The in-process runs follow the launcher exactly (adapter.parse → quickCheck → runHook).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import type { HookAdapter, HookOutput } from '../../src/hooks/port';
import { answer, cleanup, DEFINITION, PLAN, runCliProcess, treeDigest, write } from './hooksHelpers';

const claude = HOOK_ADAPTERS.get('claude-code')!;
const gemini = HOOK_ADAPTERS.get('gemini')!;
const OLD = 'stepsCompleted: [discovery]';
const NEW = 'stepsCompleted: [discovery, design]';
const denied = (out: HookOutput) => out.exitCode === 2 || /"deny"/.test(out.stdout);

/** A folder with no workspace marker at or above it, holding a workspace `proj` (gate on design). */
function outerWithProject(): { outer: string; proj: string } {
  const outer = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-red29-')));
  const proj = path.join(outer, 'proj');
  write(proj, '.waymark/workflows/feature.yaml', DEFINITION);
  write(proj, 'docs/plan.md', PLAN);
  write(proj, 'src/app.ts', 'export const x = 1;\n');
  return { outer, proj };
}

const edit = (cwd: string, file: string, event = 'PreToolUse') => ({ session_id: 's29', cwd, hook_event_name: event, tool_name: 'Edit', tool_input: { file_path: file, old_string: OLD, new_string: NEW } });

describe('red29: a workspace file whose name starts with `..` is inside the workspace', () => {
  let outer: string;
  let proj: string;
  before(() => {
    ({ outer, proj } = outerWithProject());
    write(proj, '..plan.md', PLAN);
    write(proj, '..docs/plan.md', PLAN);
  });
  after(() => cleanup(outer));

  for (const rel of ['..plan.md', '..docs/plan.md']) {
    test(`an Edit marking a gated step done in ${rel} is refused`, async () => {
      const out = await answer(claude, edit(proj, path.join(proj, rel)));
      assert.equal(out.exitCode, 2, out.stderr);
      assert.match(out.stderr, /gate design has no verdict/);
      assert.match(out.stderr, /waymark gate pass/);
    });
  }

  test('a shell write of ..plan.md is refused', async () => {
    const out = await answer(claude, { session_id: 's29', cwd: proj, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'sed -i s/design/x/ ..plan.md' } });
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /\.\.plan\.md/);
  });
});

describe('red29: an event whose cwd is outside the workspace is judged in the workspace of the file', () => {
  let outer: string;
  let proj: string;
  let other: string;
  before(() => {
    ({ outer, proj } = outerWithProject());
    other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-red29-other-')));
    write(other, '.waymark/workflows/feature.yaml', 'steps:\n  - discovery\n  - design\n  - implement\n  - review\n');
  });
  after(() => {
    cleanup(outer);
    cleanup(other);
  });

  test('from a folder above the project (no marker): refused, and nothing is written there', async () => {
    const out = await answer(claude, edit(outer, path.join(proj, 'docs/plan.md')));
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /gate design has no verdict/);
    assert.match(out.stderr, /docs\/plan\.md/);
    assert.deepEqual(fs.readdirSync(outer), ['proj'], 'nothing written outside the workspace');
  });

  test('the real CLI from a folder above the project: refused, nothing written there, before or after the tool', async () => {
    const pre = await runCliProcess(['hook', 'claude-code'], JSON.stringify(edit(outer, path.join(proj, 'docs/plan.md'))), { cwd: outer, env: { CLAUDE_PROJECT_DIR: undefined } });
    assert.equal(pre.code, 2, pre.stderr);
    const post = await runCliProcess(['hook', 'claude-code'], JSON.stringify(edit(outer, path.join(proj, 'docs/plan.md'), 'PostToolUse')), { cwd: outer, env: { CLAUDE_PROJECT_DIR: undefined } });
    assert.equal(post.code, 0, post.stderr);
    assert.deepEqual(fs.readdirSync(outer), ['proj'], 'nothing written outside the workspace');
  });

  test('from another workspace: judged by the file\'s own rules, and neither workspace is written', async () => {
    const before = [treeDigest(proj), treeDigest(other)];
    const out = await answer(claude, edit(other, path.join(proj, 'docs/plan.md')));
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /gate design has no verdict/);
    assert.deepEqual([treeDigest(proj), treeDigest(other)], before);
  });

  test('a harmless edit from a folder above the project passes', async () => {
    const out = await answer(claude, { ...edit(outer, path.join(proj, 'docs/plan.md')), tool_input: { file_path: path.join(proj, 'docs/plan.md'), old_string: 'Body text.', new_string: 'More body text.' } });
    assert.equal(out.exitCode, 0, out.stderr);
    assert.deepEqual(fs.readdirSync(outer), ['proj']);
  });

  test('a shell write from a folder above the project names the file in its workspace', async () => {
    const out = await answer(claude, { session_id: 's29', cwd: outer, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'sed -i s/x/y/ proj/docs/plan.md' } });
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /it writes docs\/plan\.md, which holds workflow state/);
    assert.deepEqual(fs.readdirSync(outer), ['proj']);
  });

  test('an apply_patch from cwd / is judged (Codex)', async () => {
    const patch = `*** Begin Patch\n*** Update File: ${path.join(proj, 'docs/plan.md')}\n@@\n-${OLD}\n+${NEW}\n*** End Patch\n`;
    const out = await answer(HOOK_ADAPTERS.get('codex')!, { session_id: 's29', turn_id: 't', cwd: '/', hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: { command: patch } });
    assert.equal(out.exitCode, 2, out.stderr);
    assert.ok(!fs.existsSync('/.waymark'), 'nothing written at /');
  });
});

describe('red29: unknown tools that move, rename or delete a file are judged', () => {
  let outer: string;
  let proj: string;
  before(() => ({ outer, proj } = outerWithProject()));
  after(() => cleanup(outer));
  const call = (tool: string, input: Record<string, unknown>) => answer(claude, { session_id: 's29', cwd: proj, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });

  test('an MCP move_file of a state file is refused', async () => {
    const out = await call('mcp__filesystem__move_file', { source: path.join(proj, 'docs/plan.md'), destination: path.join(proj, 'docs/old.md') });
    assert.ok(denied(out), out.stderr);
    assert.match(out.stderr, /docs\/plan\.md/);
    assert.match(out.stderr, /waymark/);
  });

  test('a move onto a state file is refused', async () => {
    const out = await call('mcp__fs__rename', { from: path.join(proj, 'src/app.ts'), to: path.join(proj, 'docs/plan.md') });
    assert.ok(denied(out), out.stderr);
  });

  test('a delete_file of a state file or a gate definition is refused', async () => {
    assert.ok(denied(await call('mcp__files__delete_file', { path: path.join(proj, 'docs/plan.md') })));
    assert.ok(denied(await call('remove_file', { filePath: path.join(proj, '.waymark/workflows/feature.yaml') })));
  });

  test('reads and moves of source files pass', async () => {
    for (const [tool, input] of [
      ['mcp__filesystem__read_text_file', { path: path.join(proj, 'docs/plan.md') }],
      ['mcp__filesystem__get_file_info', { path: path.join(proj, 'docs/plan.md') }],
      ['mcp__filesystem__move_file', { source: path.join(proj, 'src/app.ts'), destination: path.join(proj, 'src/main.ts') }],
      ['mcp__files__delete_file', { path: path.join(proj, 'src/app.ts') }],
    ] as const) {
      const out = await call(tool, input);
      assert.equal(out.exitCode, 0, `${tool}: ${out.stderr}`);
    }
  });
});

describe('red29: Gemini edit tools given the path under another name are judged, not failed open', () => {
  let outer: string;
  let proj: string;
  before(() => ({ outer, proj } = outerWithProject()));
  after(() => cleanup(outer));

  test('write_file {absolute_path} and replace {path}', async () => {
    const planAfter = PLAN.replace(OLD, NEW);
    for (const input of [
      { absolute_path: path.join(proj, 'docs/plan.md'), content: planAfter },
      { path: path.join(proj, 'docs/plan.md'), content: planAfter },
    ]) {
      const out = await answer(gemini, { session_id: 's29', cwd: proj, hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: input });
      assert.equal(JSON.parse(out.stdout).decision, 'deny', out.stdout + out.stderr);
    }
    const out = await answer(gemini, { session_id: 's29', cwd: proj, hook_event_name: 'BeforeTool', tool_name: 'replace', tool_input: { path: path.join(proj, 'docs/plan.md'), old_string: OLD, new_string: NEW } });
    assert.equal(JSON.parse(out.stdout).decision, 'deny', out.stdout + out.stderr);
  });
});

describe('red29: an input naming the file twice is judged for each', () => {
  let outer: string;
  let proj: string;
  before(() => ({ outer, proj } = outerWithProject()));
  after(() => cleanup(outer));

  test('Copilot CLI edit with a harmless file_path and the state file as path', async () => {
    const copilot = HOOK_ADAPTERS.get('copilot')!;
    const args = { file_path: path.join(proj, 'src/app.ts'), path: path.join(proj, 'docs/plan.md'), old_str: OLD, new_str: NEW };
    const out = await answer(copilot, { timestamp: 1, cwd: proj, toolName: 'edit', toolArgs: JSON.stringify(args) });
    assert.equal(JSON.parse(out.stdout).permissionDecision, 'deny', out.stdout + out.stderr);
    const cursor = HOOK_ADAPTERS.get('cursor')!;
    const out2 = await answer(cursor, { hook_event_name: 'preToolUse', conversation_id: 'c', workspace_roots: [proj], tool_name: 'Write', tool_input: { file_path: path.join(proj, 'src/app.ts'), path: path.join(proj, 'docs/plan.md'), content: PLAN.replace(OLD, NEW) } });
    assert.equal(JSON.parse(out2.stdout).permission, 'deny', out2.stdout);
  });
});

describe('red29: a shell command from one workspace that writes another workspace\'s state is judged there', () => {
  let outer: string;
  let proj: string;
  let here: string;
  before(() => {
    ({ outer, proj } = outerWithProject());
    here = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-red29-here-')));
    fs.mkdirSync(path.join(here, '.git'));
  });
  after(() => {
    cleanup(outer);
    cleanup(here);
  });
  const bash = (command: string) => answer(claude, { session_id: 's29', cwd: here, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });

  test('sed -i, a redirection, cd && rm, rm -rf of its folder: refused, named in its workspace', async () => {
    for (const command of [`sed -i s/x/y/ ${path.join(proj, 'docs/plan.md')}`, `echo x >> ${path.join(proj, 'docs/plan.md')}`, `cd ${proj} && rm docs/plan.md`, `rm -rf ${path.join(proj, 'docs')}`]) {
      const out = await bash(command);
      assert.equal(out.exitCode, 2, `${command}: ${out.stderr}`);
      assert.match(out.stderr, /docs\/plan\.md/);
      assert.match(out.stderr, /fix: change state with a waymark command/);
    }
  });

  test('reading it, and writing a file in no workspace, pass', async () => {
    assert.equal((await bash(`cat ${path.join(proj, 'docs/plan.md')}`)).exitCode, 0);
    assert.equal((await bash(`echo x > ${path.join(outer, 'notes.md')}`)).exitCode, 0);
  });
});

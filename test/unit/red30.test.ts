/**
 * Session 30's outside check (red30): payloads and paths nobody here had played.
 * - A hard link of the ledger or of a workflow definition, edited under its other name (Edit, or a
 *   shell write through it), changed state unjudged: the other name held no state by its path.
 * - A tool naming its file as a `file://` URI, an unknown tool naming files in a nested list
 *   (`edits: [{path, ...}]`), an unknown command-line tool (`execute_command`) and Copilot CLI's
 *   `powershell` tool passed as reads.
 * - Claude Code's MultiEdit with `edits` as a JSON string failed open.
 * - Cursor with several workspace_roots: an edit under the second root was not recorded after it.
 * - The MCP server answered a line that is not JSON with nothing (JSON-RPC asks for -32700).
 * - A workspace file named `..plan.md` was displayed by its absolute path.
 * The in-process runs follow the launcher exactly (adapter.parse → quickCheck → runHook).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import type { HookOutput } from '../../src/hooks/port';
import { McpStdioTransport } from '../../src/mcp/transport';
import { runHook } from '../../src/hooks/run';
import { relativeTo } from '../../src/mcp/host';
import { answer, cleanup, DEFINITION, PLAN, tempWorkspace, treeDigest, write } from './hooksHelpers';

const claude = HOOK_ADAPTERS.get('claude-code')!;
const copilot = HOOK_ADAPTERS.get('copilot')!;
const cursor = HOOK_ADAPTERS.get('cursor')!;
const OLD = 'stepsCompleted: [discovery]';
const NEW = 'stepsCompleted: [discovery, design]';
const S = '_bmad-output/implementation-artifacts';
const LEDGER = `project: shop\nstory_location: ${S}\n\ndevelopment_status:\n  epic-1: in-progress\n  1-1-sign-up: done\n  1-2-user-login: in-progress\n`;
const denied = (out: HookOutput) => out.exitCode === 2 || /"deny"/.test(out.stdout);

/** A workspace with a native workflow gated on design and a BMAD ledger (1-2 in progress). */
function workspace(): string {
  const root = tempWorkspace('waymark-red30-');
  write(root, '.waymark/workflows/feature.yaml', DEFINITION);
  write(root, 'docs/plan.md', PLAN);
  write(root, 'src/app.ts', 'export const x = 1;\n');
  write(root, '_bmad/_config/manifest.yaml', 'installation:\n  version: 6.0.0\n');
  write(root, `${S}/sprint-status.yaml`, LEDGER);
  return root;
}

const pre = (root: string, tool: string, input: Record<string, unknown>) => ({ session_id: 's30', cwd: root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });

describe('red30: a hard link of a state file is judged as that file', () => {
  let root: string;
  before(() => {
    root = workspace();
    fs.linkSync(path.join(root, S, 'sprint-status.yaml'), path.join(root, 'src/data.yaml'));
    fs.linkSync(path.join(root, '.waymark/workflows/feature.yaml'), path.join(root, 'src/flow.yaml'));
  });
  after(() => cleanup(root));

  test('an Edit of the ledger through its hard link that skips review is refused, naming the ledger and the command', async () => {
    const out = await answer(claude, pre(root, 'Edit', { file_path: path.join(root, 'src/data.yaml'), old_string: '1-2-user-login: in-progress', new_string: '1-2-user-login: done' }));
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /sprint-status\.yaml \(src\/data\.yaml is a hard link of it\)/);
    assert.match(out.stderr, /waymark story set-status/);
  });

  test('a harmless edit through the hard link passes', async () => {
    const out = await answer(claude, pre(root, 'Edit', { file_path: path.join(root, 'src/data.yaml'), old_string: 'project: shop', new_string: 'project: shop2' }));
    assert.equal(out.exitCode, 0, out.stderr);
  });

  test('an Edit of a workflow definition through its hard link that drops a gate is refused', async () => {
    const out = await answer(claude, pre(root, 'Edit', { file_path: path.join(root, 'src/flow.yaml'), old_string: '{id: design, gate: true}', new_string: 'design' }));
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /\.waymark\/workflows\/feature\.yaml/);
  });

  test('a shell write through the hard link is refused', async () => {
    const out = await answer(claude, pre(root, 'Bash', { command: 'printf "x\\n" >> src/data.yaml' }));
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /sprint-status\.yaml, which holds the sprint ledger/);
    assert.match(out.stderr, /through its hard link src\/data\.yaml/);
  });
});

describe('red30: tools that name files in ways not read before are judged', () => {
  let root: string;
  before(() => (root = workspace()));
  after(() => cleanup(root));

  test('a file:// URI names the file', async () => {
    const out = await answer(claude, pre(root, 'mcp__ide__edit_file', { uri: `file://${path.join(root, 'docs/plan.md')}`, old_string: OLD, new_string: NEW }));
    assert.ok(denied(out), out.stderr);
    assert.match(out.stderr, /docs\/plan\.md/);
  });

  test('an unknown tool naming its files in a list of edits', async () => {
    const args = { edits: [{ path: path.join(root, 'src/app.ts'), old_str: 'x = 1', new_str: 'x = 2' }, { path: path.join(root, 'docs/plan.md'), old_str: OLD, new_str: NEW }] };
    const out = await answer(copilot, { timestamp: 1, cwd: root, toolName: 'multi_edit', toolArgs: JSON.stringify(args) });
    assert.equal(JSON.parse(out.stdout).permissionDecision, 'deny', out.stdout);
  });

  test('an unknown command-line tool is judged as a shell command; a harmless one passes', async () => {
    const bad = await answer(claude, pre(root, 'mcp__desktop__execute_command', { command: `sed -i s/in-progress/done/ ${S}/sprint-status.yaml` }));
    assert.equal(bad.exitCode, 2, bad.stderr);
    assert.match(bad.stderr, /sprint-status\.yaml/);
    const ok = await answer(claude, pre(root, 'mcp__desktop__execute_command', { command: 'ls -la' }));
    assert.equal(ok.exitCode, 0, ok.stderr);
  });

  test("Copilot CLI's powershell tool: a write naming state is refused, a read or a source write passes", async () => {
    const run = (command: string) => answer(copilot, { timestamp: 1, cwd: root, toolName: 'powershell', toolArgs: JSON.stringify({ command, description: 'x' }) });
    for (const command of [`Set-Content -Path ${S}/sprint-status.yaml -Value x`, '"x" | Out-File -FilePath docs\\plan.md', 'Remove-Item -Recurse -Force _bmad-output']) {
      const out = await run(command);
      assert.equal(JSON.parse(out.stdout).permissionDecision, 'deny', `${command}: ${out.stdout}`);
      assert.match(JSON.parse(out.stdout).permissionDecisionReason, /waymark/);
    }
    for (const command of [`Get-Content ${S}/sprint-status.yaml | Select-String done`, 'Set-Content -Path src/app.ts -Value x']) {
      const out = await run(command);
      assert.equal(out.stdout, '', `${command}: ${out.stdout}`);
    }
  });

  test('an event with a byte order mark before its JSON is judged, not failed open', async () => {
    const text = '\ufeff' + JSON.stringify(pre(root, 'Edit', { file_path: path.join(root, 'docs/plan.md'), old_string: OLD, new_string: NEW }));
    const out = await runHook(claude, text, {}, false);
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /gate design has no verdict/);
  });

  test('MultiEdit with edits as a JSON string is judged, not failed open', async () => {
    const out = await answer(claude, pre(root, 'MultiEdit', { file_path: path.join(root, 'docs/plan.md'), edits: JSON.stringify([{ old_string: OLD, new_string: NEW }]) }));
    assert.equal(out.exitCode, 2, out.stderr);
    assert.match(out.stderr, /gate design has no verdict/);
  });
});

describe("red30: Cursor's second workspace root is the event's own", () => {
  let first: string;
  let second: string;
  before(() => {
    first = workspace();
    second = workspace();
  });
  after(() => {
    cleanup(first);
    cleanup(second);
  });

  test('an edit under the second root is judged there and recorded after it', async () => {
    const plan = path.join(second, 'docs/plan.md');
    const event = (name: string, extra: Record<string, unknown>) => ({ hook_event_name: name, conversation_id: 'c30', generation_id: 'g', workspace_roots: [first, second], ...extra });
    const refused = await answer(cursor, event('preToolUse', { tool_name: 'StrReplace', tool_input: { file_path: plan, old_string: OLD, new_string: NEW } }));
    assert.equal(JSON.parse(refused.stdout).permission, 'deny', refused.stdout);
    const next = PLAN.replace('Body text.', 'More body text.').replace('status: in_progress', 'status: blocked\nblockedReason: waiting');
    const allowed = await answer(cursor, event('preToolUse', { tool_name: 'Write', tool_input: { file_path: plan, content: next } }));
    assert.notEqual(JSON.parse(allowed.stdout).permission, 'deny', allowed.stdout);
    fs.writeFileSync(plan, next);
    const firstBefore = treeDigest(first);
    await answer(cursor, event('afterFileEdit', { file_path: plan, edits: [] }));
    const hist = fs.readFileSync(path.join(second, '.waymark/history/docs/plan.md.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(hist.length >= 1, 'recorded in the second root');
    assert.deepEqual(treeDigest(first), firstBefore, 'nothing written in the first root');
  });
});

describe('red30: the MCP server answers lines that are no JSON-RPC message', () => {
  test('not JSON: -32700 with id null; JSON but no message: -32600; a blank line: nothing', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const t = new McpStdioTransport(stdin, stdout);
    const errors: Error[] = [];
    t.onerror = (e) => errors.push(e);
    await t.start();
    let text = '';
    stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
    stdin.write('not json\n\n[1,2]\n{"id":7,"method":"tools/list"}\n');
    await new Promise((r) => setImmediate(r));
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { jsonrpc: string; id: unknown; error: { code: number } });
    assert.deepEqual(lines.map((l) => [l.jsonrpc, l.id, l.error.code]), [['2.0', null, -32700], ['2.0', null, -32600], ['2.0', 7, -32600]]);
    assert.equal(errors.length, 3, 'each is still the server\'s error (logged)');
    await t.close();
  });
});

describe('red30: a workspace file named with a leading `..` is shown by its workspace path', () => {
  test('MCP relativeTo', () => {
    const ws = tempWorkspace('waymark-red30-');
    try {
      assert.equal(relativeTo([ws], path.join(ws, '..plan.md')), '..plan.md');
      assert.equal(relativeTo([ws], path.join(ws, '..docs', 'a.md')), '..docs/a.md');
      assert.equal(relativeTo([ws], path.join(path.dirname(ws), 'other.md')), path.join(path.dirname(ws), 'other.md'));
    } finally {
      cleanup(ws);
    }
  });
});

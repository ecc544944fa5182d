/**
 * Session 39 (hooks39): payloads shaped as each agent's current hook documentation and source give
 * them (field names from the docs, our own content), for the write paths and switches the earlier
 * fixtures did not cover:
 * - Gemini CLI's replace (geminicli.com/docs/hooks/reference; packages/core/src/tools/edit.ts):
 *   `allow_multiple` replaces every occurrence, and an old_string not found exactly is matched loosely;
 *   MCP tools are `mcp_<server>_<tool>` (mcp-tool.ts).
 * - Copilot CLI (docs.github.com/copilot/reference/hooks-reference): PascalCase `PreToolUse` payloads
 *   name the runtime tools by Claude's names (`Edit` for apply_patch and str_replace_editor, `Write`
 *   for create) with the runtime tool's arguments; apply_patch's freeform text; MCP tools named
 *   `<server>-<tool>`; `disableAllHooks` in `.github/copilot/settings*.json`.
 * - Codex (developers.openai.com/codex/hooks): `[features] hooks = false` in config.toml.
 * - Gemini CLI: `hooksConfig.enabled: false` / `hooksConfig.disabled` in .gemini/settings.json.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import { installHooks } from '../../src/hooks/install';
import type { HookOutput } from '../../src/hooks/port';
import { answer, cleanup, featureWorkspace, PLAN, treeDigest, write } from './hooksHelpers';

const gemini = HOOK_ADAPTERS.get('gemini')!;
const copilot = HOOK_ADAPTERS.get('copilot')!;
const codex = HOOK_ADAPTERS.get('codex')!;
const cursor = HOOK_ADAPTERS.get('cursor')!;
const claude = HOOK_ADAPTERS.get('claude-code')!;

const json = (out: HookOutput) => (out.stdout.trim() ? (JSON.parse(out.stdout) as Record<string, unknown>) : {});
const geminiDenied = (out: HookOutput) => json(out).decision === 'deny';
const copilotDenied = (out: HookOutput) => json(out).permissionDecision === 'deny';

const MARK_DONE = ['stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]'] as const;

let root: string;
let snapshot: Record<string, string>;
const stateDigest = () => Object.fromEntries(Object.entries(treeDigest(root)).filter(([k]) => !k.startsWith(path.join('.waymark', 'cache'))));

function installed(adapterName: string, file: string, text?: string): void {
  const adapter = HOOK_ADAPTERS.get(adapterName)!;
  write(root, file, installHooks(text, adapter, `waymark hook ${adapterName}`, file).text);
}

const geminiTool = (tool: string, input: unknown, event = 'BeforeTool') => ({ session_id: 's39', transcript_path: path.join(root, '.gemini', 't.json'), cwd: root, hook_event_name: event, timestamp: '2026-12-02T10:00:00.000Z', tool_name: tool, tool_input: input });
/** Copilot CLI's camelCase preToolUse. */
const copilotCamel = (tool: string, args: unknown) => ({ sessionId: 's39', timestamp: 1764669600000, cwd: root, toolName: tool, toolArgs: args });
/** Copilot CLI's VS Code compatible (PascalCase) PreToolUse: snake_case fields, Claude's tool names. */
const copilotPascal = (tool: string, input: unknown) => ({ hook_event_name: 'PreToolUse', session_id: 's39', timestamp: '2026-12-02T10:00:00.000Z', cwd: root, tool_name: tool, tool_input: input });

function patchMarkingDone(rel: string): string {
  return ['*** Begin Patch', `*** Update File: ${rel}`, '@@', `-${MARK_DONE[0]}`, `+${MARK_DONE[1]}`, '*** End Patch', ''].join('\n');
}

describe('hooks39: documented payload shapes of every agent that writes', () => {
  before(() => {
    root = featureWorkspace();
    // The same line twice: once as state, once quoted in the body.
    write(root, 'docs/twice.md', PLAN.replace('Body text.', `Notes: ${MARK_DONE[0]}`));
    installed('copilot', '.github/hooks/waymark.json');
    installed('codex', '.codex/hooks.json');
    installed('gemini', '.gemini/settings.json');
    write(root, '.codex/config.toml', 'model = "gpt-5-codex"\n');
    snapshot = stateDigest();
  });
  after(() => cleanup(root));

  test('Gemini CLI replace with allow_multiple: true replaces every occurrence, and is judged on that', async () => {
    const file = path.join(root, 'docs/twice.md');
    const r = await answer(gemini, geminiTool('replace', { file_path: file, old_string: MARK_DONE[0], new_string: MARK_DONE[1], allow_multiple: true, instruction: 'mark design done' }));
    assert.ok(geminiDenied(r), `${r.stdout} ${r.stderr}`);
    assert.match(String(json(r).reason), /step design is gated/);
    // Without allow_multiple the tool fails on two occurrences: nothing lands, and Waymark says so.
    const single = await answer(gemini, geminiTool('replace', { file_path: path.join(root, 'src/app.ts'), old_string: 'x', new_string: 'y' }));
    assert.ok(!geminiDenied(single), single.stdout);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test('Gemini CLI replace whose old_string is not in a state file exactly (it matches loosely) is refused; elsewhere it passes', async () => {
    const plan = path.join(root, 'docs/plan.md');
    // Extra whitespace: Gemini's token strategy still finds "stepsCompleted: [discovery]" and rewrites it.
    const loose = await answer(gemini, geminiTool('replace', { file_path: plan, old_string: 'stepsCompleted:   [ discovery ]', new_string: MARK_DONE[1] }));
    assert.ok(geminiDenied(loose), `${loose.stdout} ${loose.stderr}`);
    assert.match(String(json(loose).reason), /matches it loosely[\s\S]*fix: read the file again and send old_string exactly/);
    const elsewhere = await answer(gemini, geminiTool('replace', { file_path: path.join(root, 'src/app.ts'), old_string: 'export  const x', new_string: 'export const y' }));
    assert.ok(!geminiDenied(elsewhere), elsewhere.stdout);
    // An exact, unique old_string is judged on the text it leaves, as before.
    const body = await answer(gemini, geminiTool('replace', { file_path: plan, old_string: 'Body text.', new_string: 'Body text, revised.' }));
    assert.ok(!geminiDenied(body), body.stdout);
    // Claude Code's Edit matches exactly: an old_string not there still fails in the tool, unjudged.
    const claudeMiss = await answer(claude, { session_id: 's39', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: plan, old_string: 'no such text', new_string: 'x' } });
    assert.equal(claudeMiss.exitCode, 0, claudeMiss.stderr);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test("Copilot CLI's PascalCase PreToolUse: Edit carrying apply_patch or str_replace_editor arguments, Write carrying create's, are judged", async () => {
    const rel = 'docs/plan.md';
    const payloads = [
      copilotPascal('Edit', patchMarkingDone(rel)),
      copilotPascal('Edit', { input: patchMarkingDone(rel) }),
      copilotPascal('Edit', { command: 'str_replace', path: path.join(root, rel), old_str: MARK_DONE[0], new_str: MARK_DONE[1] }),
      copilotPascal('Edit', { command: 'insert', path: path.join(root, '.waymark/gates/docs/plan.md/design.gate'), insert_line: 0, new_str: 'gate: PASS' }),
      copilotPascal('Edit', { path: path.join(root, rel), old_str: MARK_DONE[0], new_str: MARK_DONE[1] }),
      copilotPascal('Write', { path: path.join(root, '.waymark/gates/docs/plan.md/design.gate'), file_text: 'gate: PASS\n' }),
      copilotPascal('Bash', { command: `sed -i 's/discovery]/discovery, design]/' ${rel}` }),
    ];
    for (const p of payloads) {
      const r = await answer(copilot, p);
      assert.ok(copilotDenied(r), `${JSON.stringify(p.tool_input).slice(0, 120)}: ${r.exitCode} ${r.stdout} ${r.stderr}`);
    }
    const harmless = await answer(copilot, copilotPascal('Edit', { command: 'str_replace', path: path.join(root, 'src/app.ts'), old_str: 'x = 1', new_str: 'x = 2' }));
    assert.ok(!copilotDenied(harmless) && harmless.exitCode === 0, harmless.stdout + harmless.stderr);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test("Copilot CLI running .claude/settings.json's hooks (waymark hook claude-code): Claude names over its runtime arguments are judged, and the refusal carries its JSON too", async () => {
    const rel = 'docs/plan.md';
    const payloads = [
      copilotPascal('Edit', { path: path.join(root, rel), old_str: MARK_DONE[0], new_str: MARK_DONE[1] }),
      copilotPascal('Edit', patchMarkingDone(rel)),
      copilotPascal('Edit', { command: 'create', path: path.join(root, '.waymark/gates/docs/plan.md/design.gate'), file_text: 'gate: PASS\n' }),
      copilotPascal('Write', { path: path.join(root, '.waymark/gates/docs/plan.md/design.gate'), file_text: 'gate: PASS\n' }),
    ];
    for (const p of payloads) {
      const r = await answer(claude, p);
      assert.equal(r.exitCode, 2, `${JSON.stringify(p.tool_input).slice(0, 120)}: ${r.stdout} ${r.stderr}`);
      assert.equal(json(r).permissionDecision, 'deny');
      assert.match(String(json(r).permissionDecisionReason), /Waymark refused/);
    }
    const harmless = await answer(claude, copilotPascal('Edit', { path: path.join(root, 'src/app.ts'), old_str: 'x = 1', new_str: 'x = 2' }));
    assert.equal(harmless.exitCode, 0, harmless.stderr);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test("Copilot CLI's apply_patch with its freeform patch text as toolArgs is judged, not an unreadable event", async () => {
    const r = await answer(copilot, copilotCamel('apply_patch', patchMarkingDone('docs/plan.md')));
    assert.ok(copilotDenied(r), `${r.exitCode} ${r.stdout} ${r.stderr}`);
    const obj = await answer(copilot, copilotCamel('apply_patch', JSON.stringify({ input: patchMarkingDone('docs/plan.md') })));
    assert.ok(copilotDenied(obj), `${obj.exitCode} ${obj.stdout} ${obj.stderr}`);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test("Waymark's own MCP tools under Copilot CLI's (<server>-<tool>) and Cursor's (MCP:<server>:<tool>) names are not judged as another server's writes; a foreign one still is", async () => {
    const args = { file: 'docs/plan.md', status: 'blocked', reason: 'waiting' };
    const own = await answer(copilot, copilotCamel('waymark-waymark_set_status', JSON.stringify(args)));
    assert.ok(!copilotDenied(own) && own.exitCode === 0, own.stdout + own.stderr);
    const ownCursor = await answer(cursor, { hook_event_name: 'beforeMCPExecution', conversation_id: 'c39', generation_id: 'g39', workspace_roots: [root], tool_name: 'MCP:waymark:waymark_set_status', tool_input: JSON.stringify(args), command: 'waymark mcp' });
    assert.notEqual(json(ownCursor).permission, 'deny', ownCursor.stdout);
    const foreign = await answer(copilot, copilotCamel('filesystem-write_file', JSON.stringify({ path: path.join(root, 'docs/plan.md'), content: PLAN.replace(...MARK_DONE) })));
    assert.ok(copilotDenied(foreign), foreign.stdout);
    const geminiMcp = await answer(gemini, { ...geminiTool('mcp_filesystem_write_file', { path: path.join(root, 'docs/plan.md'), content: PLAN.replace(...MARK_DONE) }), mcp_context: { server_name: 'filesystem', tool_name: 'write_file', command: 'npx', args: ['server-filesystem'] } });
    assert.ok(geminiDenied(geminiMcp), geminiMcp.stdout);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test("VS Code's create_and_run_task runs the task it defines: judged as that command line", async () => {
    const task = (command: string, args: string[]) => ({ timestamp: '2026-12-02T10:00:00.000Z', cwd: root, sessionId: 's39', hookEventName: 'PreToolUse', tool_name: 'create_and_run_task', tool_input: { workspaceFolder: root, task: { label: 'fix', type: 'shell', command, args, isBackground: false } }, tool_use_id: 't1' });
    const bad = await answer(copilot, task('sed', ['-i', "'s/discovery]/discovery, design]/'", 'docs/plan.md']));
    assert.ok(copilotDenied(bad), `${bad.stdout} ${bad.stderr}`);
    const viaClaudeSettings = await answer(claude, task('rm', ['docs/plan.md']));
    assert.equal(viaClaudeSettings.exitCode, 2, viaClaudeSettings.stdout);
    const ok = await answer(copilot, task('npm', ['test']));
    assert.ok(!copilotDenied(ok) && ok.exitCode === 0, ok.stdout + ok.stderr);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test("Cursor's refusal carries every documented spelling (2.x snake_case, 1.7 camelCase; decision/reason on preToolUse)", async () => {
    const shell = await answer(cursor, { hook_event_name: 'beforeShellExecution', conversation_id: 'c39', generation_id: 'g39', workspace_roots: [root], command: 'rm docs/plan.md', cwd: root });
    const s = json(shell);
    assert.equal(s.permission, 'deny');
    assert.match(String(s.agent_message), /Waymark refused/);
    assert.equal(s.agentMessage, s.agent_message);
    assert.equal(s.userMessage, s.user_message);
    const edit = json(await answer(cursor, { hook_event_name: 'preToolUse', conversation_id: 'c39', generation_id: 'g39', workspace_roots: [root], tool_name: 'Write', tool_input: { file_path: path.join(root, '.waymark/gates/docs/plan.md/design.gate'), content: 'gate: PASS\n' } }));
    assert.equal(edit.permission, 'deny');
    assert.equal(edit.decision, 'deny');
    assert.match(String(edit.reason), /Waymark refused/);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test('switches that turn every hook off are refused: Copilot settings disableAllHooks, Codex [features] hooks = false, Gemini hooksConfig', async () => {
    const copilotSettings = path.join(root, '.github/copilot/settings.local.json');
    const cases: [string, unknown][] = [
      ['Copilot settings.local.json disableAllHooks (create)', copilotCamel('create', JSON.stringify({ path: copilotSettings, file_text: '{ "disableAllHooks": true }\n' }))],
      ['Copilot settings.json disableAllHooks by shell', copilotCamel('bash', JSON.stringify({ command: `mkdir -p .github/copilot && echo '{"disableAllHooks": true}' > .github/copilot/settings.json` }))],
      ['Codex [features] hooks = false', { session_id: 's39', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_use_id: 'c1', tool_input: { command: ['*** Begin Patch', '*** Update File: .codex/config.toml', '@@', ' model = "gpt-5-codex"', '+', '+[features]', '+hooks = false', '*** End Patch'].join('\n') } }],
      ['Codex features.codex_hooks = false, dotted', { session_id: 's39', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c2', tool_input: { command: "printf 'features.codex_hooks = false\\n' >> .codex/config.toml" } }],
      ['Codex a nested .codex/config.toml (Codex loads every one down to its cwd, the closest winning)', { session_id: 's39', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_use_id: 'c4', tool_input: { command: ['*** Begin Patch', '*** Add File: packages/api/.codex/config.toml', '+[features]', '+hooks = false', '*** End Patch'].join('\n') } }],
      ['Codex a nested .codex/config.toml by shell', { session_id: 's39', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c5', tool_input: { command: "mkdir -p src/.codex && printf '[features]\\nhooks = false\\n' > src/.codex/config.toml" } }],
      ['Gemini hooksConfig.enabled: false', geminiTool('replace', { file_path: path.join(root, '.gemini/settings.json'), old_string: '"hooks": {', new_string: '"hooksConfig": { "enabled": false },\n  "hooks": {' })],
      ['Gemini hooksConfig.disabled', geminiTool('replace', { file_path: path.join(root, '.gemini/settings.json'), old_string: '"hooks": {', new_string: '"hooksConfig": { "disabled": ["waymark-BeforeTool"] },\n  "hooks": {' })],
    ];
    for (const [name, p] of cases) {
      const adapter = name.startsWith('Copilot') ? copilot : name.startsWith('Codex') ? codex : gemini;
      const r = await answer(adapter, p);
      const refused = adapter === codex ? r.exitCode === 2 : adapter === gemini ? geminiDenied(r) : copilotDenied(r);
      assert.ok(refused, `${name}: ${r.exitCode} ${r.stdout} ${r.stderr}`);
      assert.match(r.stdout + r.stderr, /waymark hook uninstall/, name);
    }
    // Other settings in the same files may change.
    const model = await answer(codex, { session_id: 's39', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_use_id: 'c3', tool_input: { command: ['*** Begin Patch', '*** Update File: .codex/config.toml', '@@', '-model = "gpt-5-codex"', '+model = "gpt-5.1-codex"', '*** End Patch'].join('\n') } });
    assert.equal(model.exitCode, 0, model.stderr);
    const theme = await answer(gemini, geminiTool('replace', { file_path: path.join(root, '.gemini/settings.json'), old_string: '"hooks": {', new_string: '"ui": { "theme": "GitHub" },\n  "hooks": {' }));
    assert.ok(!geminiDenied(theme), theme.stdout);
    const model2 = await answer(copilot, copilotCamel('create', JSON.stringify({ path: copilotSettings, file_text: '{ "model": "gpt-5.4" }\n' })));
    assert.ok(!copilotDenied(model2), model2.stdout);
    assert.deepEqual(stateDigest(), snapshot);
  });
});

/**
 * Session 40 (hooks40): write paths the hooks read wrongly or not at all, each payload in the shape
 * its agent's documentation or source gives (field names from there, the content ours):
 * - PowerShell sent as a POSIX shell tool's command (Claude Code's or Codex's Bash on Windows,
 *   Cursor's beforeShellExecution, Gemini's run_shell_command, VS Code's run_in_terminal under pwsh):
 *   Set-Content, Out-File, New-Item... and `powershell -Command`, `-EncodedCommand`.
 * - VS Code's tools by the ids they are registered under (`copilot_applyPatch {input, explanation}`,
 *   `copilot_replaceString`... in microsoft/vscode-copilot-chat's package.json); VS Code's hook
 *   documentation shows only `editFiles`, so which name a hook payload carries is not confirmed.
 * - A patch envelope carried by a tool no adapter knows.
 * - VS Code's create_and_run_task `{workspaceFolder, task: {label, type: 'shell', command, args}}`
 *   (vscode-copilot-chat's tool schema): the task runs in workspaceFolder.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import type { HookOutput } from '../../src/hooks/port';
import { answer, cleanup, featureWorkspace, treeDigest, write } from './hooksHelpers';

const copilot = HOOK_ADAPTERS.get('copilot')!;
const codex = HOOK_ADAPTERS.get('codex')!;
const cursor = HOOK_ADAPTERS.get('cursor')!;
const claude = HOOK_ADAPTERS.get('claude-code')!;
const gemini = HOOK_ADAPTERS.get('gemini')!;

const json = (out: HookOutput) => (out.stdout.trim() ? (JSON.parse(out.stdout) as Record<string, unknown>) : {});

let root: string;
let snapshot: Record<string, string>;
const stateDigest = () => Object.fromEntries(Object.entries(treeDigest(root)).filter(([k]) => !k.startsWith(path.join('.waymark', 'cache'))));

/** The same command through every agent's POSIX shell tool; true when each refused it. */
async function refusedByEveryShell(command: string): Promise<{ refused: boolean; said: string }[]> {
  const out: { refused: boolean; said: string }[] = [];
  const c = await answer(claude, { session_id: 's40', transcript_path: path.join(root, '.claude/t.jsonl'), cwd: root, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
  out.push({ refused: c.exitCode === 2, said: `claude ${c.exitCode} ${c.stderr}` });
  const x = await answer(codex, { session_id: 's40', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c', tool_input: { command } });
  out.push({ refused: x.exitCode === 2, said: `codex ${x.exitCode} ${x.stderr}` });
  const u = await answer(cursor, { hook_event_name: 'beforeShellExecution', conversation_id: 'c40', generation_id: 'g40', workspace_roots: [root], command, cwd: root });
  out.push({ refused: json(u).permission === 'deny', said: `cursor ${u.stdout}` });
  const g = await answer(gemini, { session_id: 's40', transcript_path: path.join(root, '.gemini/t.json'), cwd: root, hook_event_name: 'BeforeTool', timestamp: '2026-12-02T10:00:00.000Z', tool_name: 'run_shell_command', tool_input: { command } });
  out.push({ refused: json(g).decision === 'deny', said: `gemini ${g.stdout}` });
  const v = await answer(copilot, { timestamp: '2026-12-02T10:00:00.000Z', cwd: root, sessionId: 's40', hookEventName: 'PreToolUse', tool_name: 'run_in_terminal', tool_input: { command, explanation: 'x', isBackground: false }, tool_use_id: 't' });
  out.push({ refused: json(v).permissionDecision === 'deny', said: `vscode ${v.stdout}` });
  return out;
}

describe('hooks40: PowerShell through a POSIX shell tool', () => {
  before(() => {
    root = featureWorkspace();
    write(root, 'notes.txt', 'notes\n');
    snapshot = stateDigest();
  });
  after(() => cleanup(root));

  test('cmdlets, aliases, .NET calls and pwsh/powershell launchers that write state are refused by every agent\'s shell tool, naming the command that does it right', async () => {
    const encoded = Buffer.from("Set-Content -Path docs/plan.md -Value 'status: completed'", 'utf16le').toString('base64');
    const commands = [
      "Set-Content -Path docs/plan.md -Value 'stepsCompleted: [discovery, design]'",
      'Set-Content docs\\plan.md x',
      "'x' | Out-File -FilePath docs/plan.md",
      "Add-Content -LiteralPath 'docs/plan.md' -Value 'status: completed'",
      "New-Item -ItemType File -Path .waymark/gates/docs/plan/design.gate -Value 'gate: PASS' -Force",
      'Copy-Item notes.txt docs/plan.md',
      'Move-Item -Path notes.txt -Destination docs/plan.md -Force',
      'Remove-Item docs/plan.md',
      'Clear-Content docs/plan.md',
      'sc docs/plan.md x',
      "ni .waymark/history/docs/plan.md.jsonl -Value '{}'",
      '[IO.File]::WriteAllText("docs/plan.md", "x")',
      '[System.IO.File]::AppendAllText("$PWD/docs/plan.md", "status: completed")',
      'Get-Content notes.txt | Set-Content docs/plan.md',
      "powershell -Command \"Set-Content docs/plan.md 'x'\"",
      "powershell.exe -NoProfile -Command Set-Content docs/plan.md x",
      "pwsh -c \"Add-Content docs/plan.md 'status: completed'\"",
      `powershell -EncodedCommand ${encoded}`,
      `pwsh -enc ${encoded}`,
    ];
    for (const command of commands) {
      for (const r of await refusedByEveryShell(command)) {
        assert.ok(r.refused, `${command}: ${r.said}`);
        assert.match(r.said, /waymark (?:advance|gate|set-status|--help)|waymark \w+/, `${command}: names the command: ${r.said}`);
      }
    }
    assert.deepEqual(stateDigest(), snapshot);
  });

  test('PowerShell that only reads state, or writes files without state, passes', async () => {
    for (const command of ['Get-Content docs/plan.md', 'Select-String -Path docs/plan.md -Pattern status', "Set-Content -Path notes.txt -Value 'more notes'", "'x' | Out-File build.log", "powershell -Command \"Get-ChildItem src\""]) {
      for (const r of await refusedByEveryShell(command)) assert.ok(!r.refused, `${command}: ${r.said}`);
    }
  });

  test('PowerShell that names a state file in a way it cannot be followed (a path built at run time) fails closed', async () => {
    for (const command of ['$p = Join-Path docs plan.md; Set-Content $p x', 'Set-Content -Path ("docs/" + "plan.md") -Value x']) {
      for (const r of await refusedByEveryShell(command)) assert.ok(r.refused, `${command}: ${r.said}`);
    }
  });

  test('a write through a symbolic link the same command made writes what it points at (a file or a record folder)', async () => {
    for (const command of ['ln -s docs/plan.md notes.md && echo x > notes.md', 'ln -sf ../docs/plan.md src/p.md; printf "status: completed\\n" >> src/p.md', 'ln -s .waymark g && mkdir -p g/gates/docs/plan && echo "gate: PASS" > g/gates/docs/plan/design.gate']) {
      for (const r of await refusedByEveryShell(command)) assert.ok(r.refused, `${command}: ${r.said}`);
    }
    for (const r of await refusedByEveryShell('ln -s docs/plan.md notes.md && cat notes.md')) assert.ok(!r.refused, r.said);
  });

  test("Windows' cmd /c and WSL's command line are read for what they write", async () => {
    for (const command of ['cmd /c "echo x > docs\\plan.md"', 'cmd.exe /C copy nul docs\\plan.md', 'wsl sed -i s/discovery]/discovery,design]/ docs/plan.md', 'wsl -d Ubuntu -- rm docs/plan.md', 'wsl.exe -e truncate -s0 docs/plan.md']) {
      for (const r of await refusedByEveryShell(command)) assert.ok(r.refused, `${command}: ${r.said}`);
    }
    for (const command of ['cmd /c dir', 'wsl ls docs']) {
      for (const r of await refusedByEveryShell(command)) assert.ok(!r.refused, `${command}: ${r.said}`);
    }
  });

  test("a write to a path a variable names that the command does not set (a persistent terminal's export) is refused; the agent's environment and the command's own variables are read", async () => {
    delete process.env.WAYMARK40_UNSET;
    for (const command of ['echo x > $WAYMARK40_UNSET', 'sed -i s/a/b/ "$WAYMARK40_UNSET"', 'rm -f ${WAYMARK40_UNSET}/plan.md', 'cp notes.txt $WAYMARK40_UNSET']) {
      for (const r of await refusedByEveryShell(command)) {
        assert.ok(r.refused, `${command}: ${r.said}`);
        assert.match(r.said, /WAYMARK40_UNSET/, command);
      }
    }
    process.env.WAYMARK40_PLAN = path.join(root, 'docs/plan.md');
    process.env.WAYMARK40_OUT = path.join(root, 'build.log');
    try {
      for (const r of await refusedByEveryShell('echo x > "$WAYMARK40_PLAN"')) assert.ok(r.refused && /docs\/plan\.md/.test(r.said), r.said);
      for (const command of ['echo x > "$WAYMARK40_OUT"', 'for f in a b; do echo x > $f.log; done', 'cat notes.txt > $PWD/copy.txt']) {
        for (const r of await refusedByEveryShell(command)) assert.ok(!r.refused, `${command}: ${r.said}`);
      }
    } finally {
      delete process.env.WAYMARK40_PLAN;
      delete process.env.WAYMARK40_OUT;
    }
    assert.deepEqual(stateDigest(), snapshot);
  });

  test("Copilot CLI's powershell tool: a new gate file or history record (not there yet) is refused too", async () => {
    for (const command of ["New-Item -ItemType File -Path .waymark/gates/docs/plan/design.gate -Value 'gate: PASS' -Force", "Set-Content .waymark/history/docs/new.md.jsonl '{}'", "Set-Content docs/new.md \"---`nworkflow: feature`nstatus: completed`nstepsCompleted: [discovery, design, implement, review]`n---`n\""]) {
      const r = await answer(copilot, { sessionId: 's40', timestamp: 1764669600000, cwd: root, toolName: 'powershell', toolArgs: JSON.stringify({ command, description: 'x' }) });
      assert.equal(json(r).permissionDecision, 'deny', `${command}: ${r.stdout}`);
      assert.match(String(json(r).permissionDecisionReason), /waymark/, command);
    }
    assert.ok(!fs.existsSync(path.join(root, '.waymark/gates')));
  });
});

describe("hooks40: VS Code's tools by their registered ids, patches in unknown tools, create_and_run_task's folder", () => {
  before(() => {
    root = featureWorkspace();
    snapshot = stateDigest();
  });
  after(() => cleanup(root));

  const vscode = (tool: string, input: unknown, cwd = root) => ({ timestamp: '2026-12-02T10:00:00.000Z', cwd, sessionId: 's40', hookEventName: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 't' });
  const markDone = (file: string) => ['*** Begin Patch', `*** Update File: ${file}`, '@@', '-stepsCompleted: [discovery]', '+stepsCompleted: [discovery, design]', '*** End Patch', ''].join('\n');

  test('copilot_applyPatch {input, explanation} is read as apply_patch; copilot_replaceString as replace_string_in_file (payload naming unconfirmed: VS Code documents editFiles only)', async () => {
    const patch = await answer(copilot, vscode('copilot_applyPatch', { input: markDone(path.join(root, 'docs/plan.md')), explanation: 'mark design done' }));
    assert.equal(json(patch).permissionDecision, 'deny', patch.stdout);
    assert.match(String(json(patch).permissionDecisionReason), /gate|waymark/);
    // Read exactly: a change of the body passes, as replace_string_in_file's does.
    const body = await answer(copilot, vscode('copilot_replaceString', { filePath: path.join(root, 'docs/plan.md'), oldString: 'Body text.', newString: 'Body text, longer.', explanation: 'x' }));
    assert.notEqual(json(body).permissionDecision, 'deny', body.stdout);
    const state = await answer(copilot, vscode('copilot_replaceString', { filePath: path.join(root, 'docs/plan.md'), oldString: 'stepsCompleted: [discovery]', newString: 'stepsCompleted: [discovery, design]', explanation: 'x' }));
    assert.equal(json(state).permissionDecision, 'deny', state.stdout);
    assert.match(String(json(state).permissionDecisionReason), /gate/);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test("Anthropic's text editor tool by its API name (str_replace_based_edit_tool) is read as str_replace_editor: view passes, a body edit passes, a state edit is refused", async () => {
    const claudeTool = (input: unknown) => ({ session_id: 's40', transcript_path: path.join(root, '.claude/t.jsonl'), cwd: root, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'str_replace_based_edit_tool', tool_input: input });
    const plan = path.join(root, 'docs/plan.md');
    assert.equal((await answer(claude, claudeTool({ command: 'view', path: plan }))).exitCode, 0);
    const body = await answer(claude, claudeTool({ command: 'str_replace', path: plan, old_str: 'Body text.', new_str: 'Body text, again.' }));
    assert.equal(body.exitCode, 0, body.stderr);
    const state = await answer(claude, claudeTool({ command: 'str_replace', path: plan, old_str: 'stepsCompleted: [discovery]', new_str: 'stepsCompleted: [discovery, design]' }));
    assert.equal(state.exitCode, 2);
    assert.match(state.stderr, /gate/);
    const gate = await answer(claude, claudeTool({ command: 'create', path: path.join(root, '.waymark/gates/docs/plan/design.gate'), file_text: 'gate: PASS\n' }));
    assert.equal(gate.exitCode, 2);
    assert.match(gate.stderr, /waymark gate pass/);
  });

  test('a tool no adapter knows whose input carries a patch envelope is judged as that patch', async () => {
    const r = await answer(claude, { session_id: 's40', transcript_path: path.join(root, '.claude/t.jsonl'), cwd: root, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__patch_files', tool_input: { diff: markDone('docs/plan.md') } });
    assert.equal(r.exitCode, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /docs\/plan\.md/);
  });

  test("create_and_run_task's command runs in its workspaceFolder, whatever the payload's cwd", async () => {
    fs.mkdirSync(path.join(root, 'src'), { recursive: true });
    const r = await answer(copilot, vscode('create_and_run_task', { workspaceFolder: root, task: { label: 'clean', type: 'shell', command: 'rm', args: ['docs/plan.md'] } }, path.join(root, 'src')));
    assert.equal(json(r).permissionDecision, 'deny', r.stdout);
    assert.deepEqual(stateDigest(), snapshot);
  });
});

describe('hooks40: a forged gate verdict merged in by a person (real git)', () => {
  const cli = (cwd: string, args: string[]) => spawnSync(process.execPath, [path.resolve('dist/cli.js'), ...args], { cwd, encoding: 'utf8', env: { ...process.env, WAYMARK_ACTOR: undefined, WAYMARK_SESSION: undefined } });
  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...args], { encoding: 'utf8' });
    return { ...r, out: `${r.stdout}${r.stderr}` };
  };
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanup));

  /** A repository with the feature workflow committed, and a clone of it with a branch `name` made by `forge` and committed there (no hooks in the clone: hooks are not cloned). */
  function repoWithBranch(name: string, forge: (clone: string) => void): { root: string; clone: string } {
    const root = featureWorkspace();
    dirs.push(root);
    assert.equal(git(root, 'init', '-q').status, 0);
    git(root, 'add', '-A');
    assert.equal(git(root, 'commit', '-qm', 'init').status, 0);
    const clone = fs.realpathSync(fs.mkdtempSync(path.join(path.dirname(root), 'waymark-hooks40-clone-')));
    dirs.push(clone);
    assert.equal(git(path.dirname(clone), 'clone', '-q', root, clone).status, 0);
    git(clone, 'checkout', '-qb', name);
    forge(clone);
    git(clone, 'add', '-A');
    assert.equal(git(clone, 'commit', '-qm', name, '--no-verify').status, 0);
    // Work on main meanwhile: the merge is a merge commit, not a fast-forward.
    write(root, 'notes.txt', 'notes\n');
    git(root, 'add', 'notes.txt');
    git(root, 'commit', '-qm', 'notes');
    assert.equal(git(root, 'fetch', '-q', clone, `${name}:${name}`).status, 0);
    return { root, clone };
  }

  /** A verdict written by hand in the shape an older Waymark wrote (no gate file hash in its history line), beside a gate file at today's location. */
  const handWritten = (clone: string) => {
    const time = '2026-12-01T10:00:00.000Z';
    write(clone, '.waymark/gates/docs/plan/design.gate', `gate: PASS\nreviewer: lead\nupdated: ${time}\n`);
    write(clone, '.waymark/history/docs/plan.md.jsonl', JSON.stringify({ seq: 1, time, actor: 'lead', operation: 'gate-pass', file: 'docs/plan.md', from: {}, to: {}, detail: { step: 'design', gate: 'design', verdict: 'PASS', by: 'lead' } }) + '\n');
  };

  test('a hand-written verdict (gate file and history line without its hash) that a merge brings opens nothing; show and advance name the command that records it', () => {
    const { root } = repoWithBranch('forged', handWritten);
    const m = git(root, 'merge', '--no-edit', 'forged');
    assert.equal(m.status, 0, m.out);
    const shown = cli(root, ['gate', 'show', 'docs/plan.md', 'design']);
    assert.equal(shown.status, 1, shown.stdout + shown.stderr);
    assert.match(shown.stdout, /closed/);
    const adv = cli(root, ['advance', 'docs/plan.md']);
    assert.equal(adv.status, 4, adv.stdout + adv.stderr);
    assert.match(adv.stderr, /waymark gate pass/);
    const v = cli(root, ['validate', 'docs/plan.md', '--json']);
    assert.match(v.stdout, /gate-unrecorded/);
  });

  test("with waymark's git hooks a person's merge of that branch is refused before its commit, naming the command; a verdict recorded through waymark on the other clone merges", () => {
    const { root } = repoWithBranch('forged', handWritten);
    const inst = cli(root, ['hook', 'install', 'git', '--command', `"${process.execPath}" "${path.resolve('dist/cli.js')}"`]);
    assert.equal(inst.status, 0, inst.stderr);
    assert.match(inst.stdout, /pre-merge-commit/);
    const m = git(root, 'merge', '--no-edit', 'forged');
    assert.notEqual(m.status, 0, m.out);
    assert.match(m.out, /gate-unrecorded[\s\S]*waymark gate pass/);
    assert.equal(git(root, 'rev-parse', '-q', '--verify', 'MERGE_HEAD').status, 0, 'the merge waits, uncommitted');
    git(root, 'merge', '--abort');
    // A verdict recorded through Waymark on the other clone (its history line carries the file's hash) merges, and opens the gate.
    const { root: r2 } = repoWithBranch('reviewed', (clone) => assert.equal(cli(clone, ['gate', 'pass', 'docs/plan.md', 'design', '--by', 'lead']).status, 0));
    assert.equal(cli(r2, ['hook', 'install', 'git', '--command', `"${process.execPath}" "${path.resolve('dist/cli.js')}"`]).status, 0);
    const ok = git(r2, 'merge', '--no-edit', 'reviewed');
    assert.equal(ok.status, 0, ok.out);
    assert.equal(cli(r2, ['gate', 'show', 'docs/plan.md', 'design']).status, 0);
    const un = cli(r2, ['hook', 'uninstall', 'git']);
    assert.match(un.stdout, /pre-merge-commit/);
  });
});

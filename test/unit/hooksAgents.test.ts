/**
 * Every bypass of issue 22 (and the README's refused forms) played through every agent adapter,
 * with payloads shaped as each agent's hook documentation gives them (not captured from live
 * agents): each is refused, and harmless edits and commands pass. The in-process runs follow the
 * launcher exactly (adapter.parse → quickCheck → runHook); a few runs go through the real CLI.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import type { HookAdapter, HookOutput } from '../../src/hooks/port';
import { answer, cleanup, featureWorkspace, PLAN, runCliProcess, treeDigest, write } from './hooksHelpers';


interface Agent {
  adapter: HookAdapter;
  /** A string replacement in a file, as the agent's edit tool sends it. */
  edit(root: string, file: string, oldString: string, newString: string): unknown;
  /** A whole new content of a file. */
  write(root: string, file: string, content: string): unknown;
  shell(root: string, command: string): unknown;
  refused(out: HookOutput): boolean;
}

const json = (out: HookOutput) => (out.stdout.trim() ? JSON.parse(out.stdout) : {});

/** A Codex apply_patch envelope replacing `oldString` by `newString` (line-wise context). */
function patchFor(file: string, oldString: string, newString: string): string {
  const lines = (s: string) => s.replace(/\n$/, '').split('\n');
  return ['*** Begin Patch', `*** Update File: ${file}`, '@@', ...lines(oldString).map((l) => `-${l}`), ...lines(newString).map((l) => `+${l}`), '*** End Patch', ''].join('\n');
}

const AGENTS: Agent[] = [
  {
    adapter: HOOK_ADAPTERS.get('claude-code')!,
    edit: (root, file, o, n) => ({ session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: file, old_string: o, new_string: n } }),
    write: (root, file, content) => ({ session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: file, content } }),
    shell: (root, command) => ({ session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }),
    refused: (out) => out.exitCode === 2,
  },
  {
    adapter: HOOK_ADAPTERS.get('gemini')!,
    edit: (root, file, o, n) => ({ session_id: 's1', cwd: root, hook_event_name: 'BeforeTool', tool_name: 'replace', tool_input: { file_path: file, old_string: o, new_string: n } }),
    write: (root, file, content) => ({ session_id: 's1', cwd: root, hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { file_path: file, content } }),
    shell: (root, command) => ({ session_id: 's1', cwd: root, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command } }),
    refused: (out) => json(out).decision === 'deny',
  },
  {
    // developers.openai.com/codex/hooks: Claude Code's wire format; apply_patch carries the envelope in tool_input.command.
    adapter: HOOK_ADAPTERS.get('codex')!,
    edit: (root, file, o, n) => ({ session_id: 's1', turn_id: 't1', cwd: root, hook_event_name: 'PreToolUse', model: 'gpt-5-codex', tool_name: 'apply_patch', tool_use_id: 'call_1', tool_input: { command: patchFor(path.relative(root, file), o, n) } }),
    write: (root, file, content) => {
      const rel = path.relative(root, file);
      const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
      const body = current === undefined ? ['*** Begin Patch', `*** Add File: ${rel}`, ...content.replace(/\n$/, '').split('\n').map((l) => `+${l}`), '*** End Patch'].join('\n') : patchFor(rel, current, content);
      return { session_id: 's1', turn_id: 't1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_use_id: 'call_2', tool_input: { command: body } };
    },
    shell: (root, command) => ({ session_id: 's1', turn_id: 't1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'call_3', tool_input: { command } }),
    refused: (out) => out.exitCode === 2,
  },
  {
    // code.visualstudio.com hooks reference: common fields in camelCase, VS Code's tool names and camelCase tool input.
    adapter: HOOK_ADAPTERS.get('copilot')!,
    edit: (root, file, o, n) => ({ timestamp: '2026-11-25T10:30:00.000Z', cwd: root, sessionId: 's1', hookEventName: 'PreToolUse', tool_name: 'replace_string_in_file', tool_input: { filePath: file, oldString: o, newString: n, explanation: 'edit' }, tool_use_id: 'tool-1' }),
    write: (root, file, content) => ({ timestamp: '2026-11-25T10:30:00.000Z', cwd: root, sessionId: 's1', hookEventName: 'PreToolUse', tool_name: 'create_file', tool_input: { filePath: file, content }, tool_use_id: 'tool-2' }),
    shell: (root, command) => ({ timestamp: '2026-11-25T10:30:00.000Z', cwd: root, sessionId: 's1', hookEventName: 'PreToolUse', tool_name: 'run_in_terminal', tool_input: { command, explanation: 'run', isBackground: false }, tool_use_id: 'tool-3' }),
    refused: (out) => json(out).hookSpecificOutput?.permissionDecision === 'deny' && json(out).permissionDecision === 'deny',
  },
  {
    // docs.github.com hooks configuration (Copilot CLI): no event name; toolName and toolArgs as a JSON string.
    adapter: HOOK_ADAPTERS.get('copilot')!,
    edit: (root, file, o, n) => ({ timestamp: 1704614600000, cwd: root, toolName: 'edit', toolArgs: JSON.stringify({ path: file, old_str: o, new_str: n }) }),
    write: (root, file, content) => ({ timestamp: 1704614600000, cwd: root, toolName: 'create', toolArgs: JSON.stringify({ path: file, file_text: content }) }),
    shell: (root, command) => ({ timestamp: 1704614600000, cwd: root, toolName: 'bash', toolArgs: JSON.stringify({ command, description: 'run' }) }),
    refused: (out) => json(out).permissionDecision === 'deny',
  },
  {
    // cursor.com/docs/agent/hooks: preToolUse for Write/StrReplace, beforeShellExecution with command and cwd.
    adapter: HOOK_ADAPTERS.get('cursor')!,
    edit: (root, file, o, n) => ({ hook_event_name: 'preToolUse', conversation_id: 'c1', generation_id: 'g1', workspace_roots: [root], tool_name: 'StrReplace', tool_input: { file_path: file, old_string: o, new_string: n } }),
    write: (root, file, content) => ({ hook_event_name: 'preToolUse', conversation_id: 'c1', generation_id: 'g1', workspace_roots: [root], tool_name: 'Write', tool_input: { file_path: file, content } }),
    shell: (root, command) => ({ hook_event_name: 'beforeShellExecution', conversation_id: 'c1', generation_id: 'g1', workspace_roots: [root], command, cwd: root }),
    refused: (out) => json(out).permission === 'deny',
  },
];

const label = (a: Agent, i: number) => `${a.adapter.name}${AGENTS.findIndex((x) => x.adapter === a.adapter) !== i ? ' (Copilot CLI shape)' : ''}`;

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (root: string, ...args: string[]) => execFileSync('git', args, { cwd: root, env: { ...process.env, ...GIT_ENV }, stdio: 'pipe' }).toString();

let root: string;
let out: string;
let snapshot: Record<string, string>;
/** Every file but the cache (an allowed edit of state keeps the text it had there, for the check after it). */
const stateDigest = () => Object.fromEntries(Object.entries(treeDigest(root)).filter(([k]) => !k.startsWith(path.join('.waymark', 'cache'))));

describe('every bypass through every agent (documented payload shapes)', () => {
  before(() => {
    root = featureWorkspace();
    write(root, '.waymark/workflows/quick.yaml', 'steps:\n  - discovery\n  - design\n  - implement\n');
    write(root, 'docs/inline.md', '---\nworkflow: inline\nstatus: in_progress\nsteps: [s01, {id: s02, gate: true}, s03]\ncurrentStep: s02\nstepsCompleted: [s01]\n---\n# Inline\n');
    // History for git: the plan once had nothing done.
    git(root, 'init', '-q');
    fs.writeFileSync(path.join(root, 'docs/plan.md'), PLAN.replace('stepsCompleted: [discovery]', 'stepsCompleted: []').replace('currentStep: design', 'currentStep: discovery'));
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'start');
    fs.writeFileSync(path.join(root, 'docs/plan.md'), PLAN);
    git(root, 'commit', '-qam', 'discovery done');
    out = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-outside-')));
    fs.symlinkSync(path.join(root, 'docs/plan.md'), path.join(out, 'alias.md'));
    fs.mkdirSync(path.join(root, 'notes'));
    fs.symlinkSync(path.join(root, 'docs/plan.md'), path.join(root, 'notes/plan-link.txt'));
    // Material for copies, archives, patches and scripts (session 22).
    write(out, 'gates/plan/design.gate', 'gate: PASS\n');
    write(out, 'snap/docs/plan.md', PLAN.replace('stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]'));
    write(out, 'script.sh', 'rm docs/plan.md\n');
    write(out, 'readme.txt', 'ls docs\necho done\n');
    write(out, 'x.patch', 'diff --git a/docs/plan.md b/docs/plan.md\n--- a/docs/plan.md\n+++ b/docs/plan.md\n@@ -1 +1 @@\n----\n+--- \n');
    execFileSync('tar', ['-cf', path.join(out, 'x.tar'), '-C', path.join(out, 'snap'), 'docs/plan.md']);
    snapshot = stateDigest();
  });
  after(() => {
    cleanup(root);
    cleanup(out);
  });

  const plan = () => path.join(root, 'docs/plan.md');
  const MARK_DONE = ['stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]'] as const;

  const EDITS: { name: string; run: (a: Agent) => unknown }[] = [
    { name: 'a gated step marked done without a verdict', run: (a) => a.edit(root, plan(), ...MARK_DONE) },
    { name: 'a completed step rewound', run: (a) => a.edit(root, plan(), 'stepsCompleted: [discovery]', 'stepsCompleted: []') },
    { name: 'a gate verdict forged with the write tool', run: (a) => a.write(root, path.join(root, '.waymark/gates/docs/plan.md/design.gate'), 'gate: PASS\n') },
    { name: 'an empty gate file created', run: (a) => a.write(root, path.join(root, '.waymark/gates/plan/design.gate'), '') },
    { name: "the file's workflow: switched to an ungated definition", run: (a) => a.edit(root, plan(), 'workflow: feature', 'workflow: quick') },
    { name: 'an inline {id: s02, gate: true} edited to s02', run: (a) => a.edit(root, path.join(root, 'docs/inline.md'), '{id: s02, gate: true}', 's02') },
    { name: 'the gate dropped from the definition', run: (a) => a.edit(root, path.join(root, '.waymark/workflows/feature.yaml'), '  - {id: design, gate: true}', '  - design') },
    { name: 'gates.path pointed at a folder the agent writes', run: (a) => a.write(root, path.join(root, '.waymark/config.yaml'), 'gates:\n  path: tmp/{file}/{gate}.gate\n') },
    { name: 'an edit through a link outside the workspace', run: (a) => a.edit(root, path.join(out, 'alias.md'), ...MARK_DONE) },
    { name: 'an edit through a link inside the workspace not in include', run: (a) => a.edit(root, path.join(root, 'notes/plan-link.txt'), ...MARK_DONE) },
  ];

  const COMMANDS = [
    'touch .waymark/gates/docs/plan.md/design.gate',
    'mkdir -p .waymark/gates/plan && : > .waymark/gates/plan/design.gate',
    'echo "gate: PASS" > .waymark/gates/plan/design.gate',
    "waymark status && sed -i 's/stepsCompleted: .*/stepsCompleted: []/' docs/plan.md",
    "cd docs && sed -i 's/stepsCompleted: .*/stepsCompleted: []/' plan.md",
    'git checkout HEAD~1 -- docs',
    'git checkout HEAD~1 -- docs/plan.md',
    'cat > docs/plan.md <<EOF\n---\nworkflow: feature\nstepsCompleted: [discovery, design]\n---\nEOF',
    'printf x | tee docs/plan.md',
    'rm docs/plan.md',
    'mv docs/plan.md docs/old.md',
    'cp /etc/hostname docs/plan.md',
    "perl -pi -e 's/discovery/design/' docs/plan.md",
    'F=docs/plan.md; sed -i s/a/b/ "$F"',
    `python3 -c "open('docs/plan.md','w').write('')"`,
    "bash -c 'echo x >> docs/plan.md'",
    'echo "steps: [a]" > .waymark/workflows/feature.yaml',
    'ln -sf /tmp/other.md docs/plan.md',
    `sed -i 's/discovery/design/' ${path.join('OUT', 'alias.md')}`,
    // Session 22 (hook22): redirections the fast path missed.
    'echo x &> docs/plan.md',
    'echo x <> docs/plan.md',
    'cat /dev/null 1> docs/plan.md',
    'exec 3>docs/plan.md',
    'echo x >| docs/plan.md',
    'x=$(echo x > docs/plan.md)',
    'echo x > >(tee docs/plan.md)',
    // A command name hidden by quoting, escapes, ANSI-C quoting, an expansion or a pattern.
    's""ed -i s/a/b/ docs/plan.md',
    "'sed' -i s/a/b/ docs/plan.md",
    '\\sed -i s/a/b/ docs/plan.md',
    "$'\\x73ed' -i s/a/b/ docs/plan.md",
    'X=s; ${X}ed -i s/a/b/ docs/plan.md',
    '/bin/s?d -i s/a/b/ docs/plan.md',
    // Wrappers that run the rest of their words.
    'busybox sed -i s/a/b/ docs/plan.md',
    'toybox rm docs/plan.md',
    'setsid rm docs/plan.md',
    'fakeroot rm docs/plan.md',
    'flock /tmp/lock rm docs/plan.md',
    "su -c 'rm docs/plan.md'",
    // Code whose text exists only when it runs.
    'eval "$(echo c2VkIC1pIHMvYS9iLyBkb2NzL3BsYW4ubWQ= | base64 -d)"',
    'echo c2VkIC1pIHMvYS9iLyBkb2NzL3BsYW4ubWQ= | base64 -d | sh',
    'curl -s http://127.0.0.1/x.sh | sh',
    'bash <(curl -s http://127.0.0.1/x.sh)',
    'source <(curl -s http://127.0.0.1/x.sh)',
    'echo cm0gZG9jcy9wbGFuLm1k | base64 -d | python3',
    'python3 -c "$(echo cHJpbnQoMSk= | base64 -d)"',
    `cat ${path.join('OUT', 'script.sh')} | bash`,
    `bash < ${path.join('OUT', 'script.sh')}`,
    "printf 'rm docs/plan.md\\n' | sh",
    // Folders copied over state, archives and patches.
    `cp -r ${path.join('OUT', 'gates')} .waymark/`,
    `cp -a ${path.join('OUT', 'snap')}/. .`,
    'cp -a /nonexistent-snap/. .',
    `tar -xf ${path.join('OUT', 'x.tar')}`,
    'tar -xf /nonexistent.tar -C docs',
    `git apply ${path.join('OUT', 'x.patch')}`,
    `patch -p1 < ${path.join('OUT', 'x.patch')}`,
    'unzip -o /nonexistent.zip -d docs',
    'git am /nonexistent.mbox',
    // Editors given a state file.
    "vim -c '%d|wq' docs/plan.md",
    "ed -s docs/plan.md <<< $'1,$d\\nw'",
    'emacs --batch docs/plan.md -f save-buffer',
    // A commit undone; folders moved; more writers.
    'git revert --no-edit HEAD',
    'mv docs docs2',
    'find .waymark -delete',
    'rsync -a --delete /tmp/empty/ docs/',
    'cp --remove-destination /etc/hostname docs/plan.md',
    'install -D /etc/hostname docs/plan.md',
    'tee docs/plan.md <<EOF\nx\nEOF',
  ];

  AGENTS.forEach((a, i) => {
    test(`${label(a, i)}: every bypass is refused, nothing is written`, async () => {
      for (const e of EDITS) {
        const r = await answer(a.adapter, e.run(a));
        assert.ok(a.refused(r), `${e.name}: ${r.exitCode} ${r.stdout} ${r.stderr}`);
      }
      for (const c of COMMANDS) {
        const command = c.replace('OUT', out);
        const r = await answer(a.adapter, a.shell(root, command));
        assert.ok(a.refused(r), `${command}: ${r.exitCode} ${r.stdout} ${r.stderr}`);
      }
      assert.deepEqual(stateDigest(), snapshot);
    });

    test(`${label(a, i)}: harmless edits and commands pass`, async () => {
      const harmless = [
        a.edit(root, path.join(root, 'src/app.ts'), 'x = 1', 'x = 2'),
        a.edit(root, plan(), 'Body text.', 'Body text, revised.'),
        a.edit(root, path.join(root, '.waymark/workflows/feature.yaml'), '  - implement', '  - {id: implement, title: Build it}'),
        a.edit(root, path.join(root, 'docs/inline.md'), 'steps: [s01, {id: s02, gate: true}, s03]', 'steps: [s01, {id: s02, gate: true}, s03, s04]'),
        a.write(root, path.join(root, 'notes/todo.md'), '# Todo\n\n- nothing yet\n'),
        ...['ls -la', 'cat docs/plan.md', 'waymark status', 'npm test > out.log 2>&1', "sed -i 's/1/2/' src/app.ts", "cd src && sed -i 's/1/2/' app.ts", 'git status && git diff docs', 'echo hi > notes.txt', 'git checkout HEAD -- docs', 'cp docs/plan.md /tmp/plan-copy.md', 'grep -n status docs/plan.md | tee /tmp/status.txt', 'ls docs', 'grep -r design docs', 'git diff', 'echo hello > /tmp/out.txt', 'sed -n 1,5p docs/plan.md', 'git stash', 'git reset --hard HEAD', 'git checkout .', 'cp -r src /tmp/src-copy', 'echo x 2>&1 >/dev/null', `cat ${path.join(out, 'readme.txt')} | sh`, "echo 'ls docs' | bash"].map((c) => a.shell(root, c)),
      ];
      for (const p of harmless) {
        const r = await answer(a.adapter, p);
        assert.ok(!a.refused(r) && r.exitCode === 0, `${JSON.stringify(p).slice(0, 200)}: ${r.exitCode} ${r.stdout} ${r.stderr}`);
      }
    });
  });

  test('VS Code running Claude Code\'s hooks (editFiles with tool_input.files) is judged, not waved through', async () => {
    const claude = HOOK_ADAPTERS.get('claude-code')!;
    const vscode = (tool: string, input: unknown) => ({ timestamp: '2026-11-25T10:30:00.000Z', cwd: root, sessionId: 's1', hookEventName: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 't' });
    assert.equal((await answer(claude, vscode('editFiles', { files: [plan()] }))).exitCode, 2, 'an edit of a state file whose change is not said');
    assert.equal((await answer(claude, vscode('editFiles', { files: [path.join(root, 'src/app.ts')] }))).exitCode, 0);
    assert.equal((await answer(claude, vscode('replace_string_in_file', { filePath: plan(), oldString: MARK_DONE[0], newString: MARK_DONE[1] }))).exitCode, 2);
    assert.equal((await answer(claude, vscode('run_in_terminal', { command: 'rm docs/plan.md' }))).exitCode, 2);
  });

  test('the real CLI answers as waymark hook codex|copilot|cursor (a refusal and a pass each)', async () => {
    for (const [i, a] of AGENTS.entries()) {
      if (AGENTS.findIndex((x) => x.adapter === a.adapter) !== i) continue;
      const bad = await runCliProcess(['hook', a.adapter.name], JSON.stringify(a.edit(root, plan(), ...MARK_DONE)), { cwd: root });
      assert.ok(a.refused({ exitCode: bad.code ?? -1, stdout: bad.stdout, stderr: bad.stderr }), `${a.adapter.name}: ${bad.code} ${bad.stdout} ${bad.stderr}`);
      assert.match(bad.stdout + bad.stderr, /step design is gated and its gate design has no verdict yet/);
      const ok = await runCliProcess(['hook', a.adapter.name], JSON.stringify(a.edit(root, path.join(root, 'src/app.ts'), 'x = 1', 'x = 2')), { cwd: root });
      assert.equal(ok.code, 0, `${a.adapter.name}: ${ok.stderr}`);
    }
    assert.deepEqual(stateDigest(), snapshot);
  });
});

describe('a session with no workspace', () => {
  test('SessionStart and Stop with cwd / answer "no workspace" at once, for every agent', async () => {
    const events: [string, unknown][] = [
      ['claude-code', { session_id: 's', cwd: '/', hook_event_name: 'SessionStart', source: 'startup' }],
      ['claude-code', { session_id: 's', cwd: '/', hook_event_name: 'Stop', stop_hook_active: false }],
      ['gemini', { session_id: 's', cwd: '/', hook_event_name: 'SessionStart', source: 'startup' }],
      ['codex', { session_id: 's', cwd: '/', hook_event_name: 'SessionStart', source: 'startup', model: 'gpt-5-codex' }],
      ['copilot', { timestamp: 1704614400000, cwd: '/', source: 'new', initialPrompt: 'hi' }],
      ['cursor', { hook_event_name: 'stop', conversation_id: 'c', generation_id: 'g', workspace_roots: [], status: 'completed', loop_count: 0, cwd: '/' }],
    ];
    for (const [name, payload] of events) {
      const adapter = HOOK_ADAPTERS.get(name)!;
      const t0 = Date.now();
      const r = await answer(adapter, payload);
      // Not a speed goal: walking / would take minutes; any answer within seconds did not.
      assert.ok(Date.now() - t0 < 5000, `${name}: answered without walking the file system`);
      assert.equal(r.exitCode, 0);
      assert.doesNotMatch(r.stdout, /Workflows in progress|additionalContext|additional_context/, name);
      assert.match(r.stderr, /no workspace/, name);
    }
  });
});

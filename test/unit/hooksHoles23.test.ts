/**
 * Session 23's holes: what the README said was not judged before a command runs (mode and owner
 * changes, programs named by variables and git's configuration, commands handed files by find
 * and xargs, output options, formatters) and a hostile pass over every agent's payload shape
 * (Gemini's `directory`, Codex's `workdir`, an unknown tool carrying a path and content, Copilot
 * CLI's str_replace_editor commands, duplicate keys, apply_patch run as a command). Each form is
 * played on its own, so every hole shows; harmless neighbours must pass. The in-process runs
 * follow the launcher exactly (adapter.parse → quickCheck → runHook).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import { quickCheck } from '../../src/hooks/quickCheck';
import { runHook } from '../../src/hooks/run';
import type { HookAdapter, HookOutput } from '../../src/hooks/port';
import { cleanup, featureWorkspace, PLAN, treeDigest, write } from './hooksHelpers';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

/** What the launcher does with one event text: the fast path's answer, else the full check. */
async function answerText(adapter: HookAdapter, text: string): Promise<HookOutput> {
  const event = adapter.parse(JSON.parse(text), {});
  const q = quickCheck(event);
  if (q.verdict === 'pass') return adapter.render(event, { kind: 'allow', note: q.note });
  return runHook(adapter, text, {}, false);
}
const answer = (adapter: HookAdapter, payload: unknown) => answerText(adapter, JSON.stringify(payload));
const claude = HOOK_ADAPTERS.get('claude-code')!;
const json = (out: HookOutput) => (out.stdout.trim() ? JSON.parse(out.stdout) : {});

let root: string;
let out: string;
let snapshot: Record<string, string>;
const stateDigest = () => Object.fromEntries(Object.entries(treeDigest(root)).filter(([k]) => !k.startsWith(path.join('.waymark', 'cache')) && !k.startsWith('.git' + path.sep)));
const bash = (command: string) => answer(claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });

describe('session 23: the hook\'s last "not judged" holes', () => {
  before(() => {
    root = featureWorkspace();
    write(root, 'README.md', '# Readme\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, env: { ...process.env, ...GIT_ENV }, stdio: 'pipe' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'start');
    fs.mkdirSync(path.join(root, 'empty'));
    out = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-holes23-')));
    write(out, 'hooks/pre-commit', '#!/bin/sh\nrm docs/plan.md\n');
    write(out, 'okhooks/pre-commit', '#!/bin/sh\nnpm test\n');
    snapshot = stateDigest();
  });
  after(() => {
    cleanup(root);
    cleanup(out);
  });

  const REFUSED = [
    // Mode, owner and attribute changes that leave Waymark unable to read or write state.
    'chmod 000 docs/plan.md',
    'chmod -w docs/plan.md',
    'chmod a-r docs/plan.md',
    'chmod -R 000 .waymark',
    'chmod --reference=/etc/shadow docs/plan.md',
    'chown nobody docs/plan.md',
    'chgrp -R nobody docs',
    'chattr +i docs/plan.md',
    'setfacl -m u:nobody:--- docs/plan.md',
    // Programs a variable names.
    "GIT_SEQUENCE_EDITOR='rm docs/plan.md;' git rebase -i HEAD",
    "EDITOR='rm docs/plan.md;' git commit",
    "VISUAL='sed -i s/a/b/ docs/plan.md' crontab -e",
    "PAGER='rm docs/plan.md;' git log",
    "GIT_PAGER='rm docs/plan.md;' git log",
    "MANPAGER='rm docs/plan.md;' man ls",
    "LESSOPEN='|rm docs/plan.md' less src/app.ts",
    "GIT_SSH_COMMAND='rm docs/plan.md;' git fetch",
    "export GIT_EDITOR='rm docs/plan.md;'; git commit",
    "env GIT_EDITOR='rm docs/plan.md;' git commit",
    "GIT_CONFIG_PARAMETERS=\"'alias.x'='!rm docs/plan.md'\" git x",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm docs/plan.md' git log",
    'BASH_ENV=OUT/hooks/pre-commit bash -c true',
    'LD_PRELOAD=/tmp/evil.so ls',
    // Programs git's configuration names.
    "git -c core.editor='rm docs/plan.md;' commit",
    "git config alias.x '!sed -i s/a/b/ docs/plan.md'",
    "git config --local alias.y 'rm docs/plan.md'",
    "git config core.pager 'rm docs/plan.md'",
    'git config core.hooksPath OUT/hooks',
    'git -c core.hooksPath=/nonexistent-hooks commit -m x',
    "git rebase -x 'rm docs/plan.md' HEAD",
    "git rebase --exec='rm docs/plan.md' HEAD",
    'git bisect run rm docs/plan.md',
    "git submodule foreach 'rm -f $toplevel/docs/plan.md; rm ../docs/plan.md'",
    "git filter-branch --tree-filter 'rm docs/plan.md' HEAD",
    // Commands handed files: find -exec, xargs, parallel.
    'find docs -execdir rm {} \\;',
    'find docs -okdir rm {} \\;',
    'find . -name "*.md" -exec sed -i s/a/b/ {} +',
    'find docs -exec sh -c \'rm "$1"\' _ {} \\;',
    'find docs -delete',
    'find . -fprint docs/plan.md',
    'echo docs/plan.md | xargs rm',
    'printf "docs/plan.md\\n" | xargs -I{} sh -c "rm {}"',
    'xargs rm <<< docs/plan.md',
    'parallel rm ::: docs/plan.md',
    'echo docs/plan.md | parallel sed -i s/a/b/',
    'git ls-files docs | xargs rm',
    // Wrappers and runners.
    "script -qc 'rm docs/plan.md' /dev/null",
    'npx rimraf docs/plan.md && npx -c "rm docs/plan.md"',
    'pnpm exec prettier --write docs',
    'command -p rm docs/plan.md',
    'npx --yes rimraf docs/plan.md',
    'bunx rimraf docs/plan.md',
    'shx rm docs/plan.md',
    'git --config-env=core.pager=EVIL log',
    'ls docs/*.md | xargs rm',
    'npx prettier@3 --write .',
    'mv /nonexistent-evil-hook .git/hooks/pre-commit',
    // Output options, in-place rewriters, links.
    'sort -o docs/plan.md docs/plan.md',
    'iconv -f utf8 -t latin1 docs/plan.md -o docs/plan.md',
    'uniq src/app.ts docs/plan.md',
    'curl -s -o docs/plan.md http://127.0.0.1/x',
    'curl -s --output=docs/plan.md http://127.0.0.1/x',
    'wget -qO docs/plan.md http://127.0.0.1/x',
    'cd docs && curl -O http://127.0.0.1/plan.md',
    'dos2unix docs/plan.md',
    'cat src/app.ts | sponge docs/plan.md',
    "yq -i '.status = \"done\"' .waymark/workflows/feature.yaml",
    'sd discovery design docs/plan.md',
    'rename s/plan/plan2/ docs/plan.md',
    'ln docs/plan.md /tmp/waymark-hardlink-plan.md',
    'cp -l docs/plan.md /tmp/waymark-cp-link.md',
    'cd docs && wget -N http://127.0.0.1/plan.md',
    'mkdir e2 && cp docs/plan.md /tmp/plan.md && cp /tmp/plan.md e2/ && cp -a e2/. docs/',
    // Formatters that rewrite Markdown and YAML.
    'prettier --write .',
    'npx prettier -w docs',
    'npx prettier --write "**/*.md"',
    'mdformat docs',
    'markdownlint --fix docs/plan.md',
    'yamlfmt',
    'deno fmt',
    'dprint fmt',
    // Code git runs later, written now.
    "printf '#!/bin/sh\\nrm docs/plan.md\\n' > .git/hooks/post-commit",
    'cp OUT/hooks/pre-commit .git/hooks/pre-commit',
    'cat >> .git/hooks/pre-commit',
    "printf '[alias]\\n\\tx = !rm docs/plan.md\\n' >> .git/config",
    // apply_patch run as a command (Codex runs it itself).
    "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: docs/plan.md\n*** End Patch\nEOF",
    'apply_patch "*** Begin Patch\n*** Update File: src/app.ts\n*** Move to: docs/plan.md\n@@\n-export const x = 1;\n+x\n*** End Patch"',
  ];

  test('each is refused, and nothing is written', async () => {
    const missed: string[] = [];
    for (const c of REFUSED) {
      const command = c.replace(/OUT/g, out);
      const r = await bash(command);
      if (r.exitCode !== 2) missed.push(`${command} → exit ${r.exitCode} ${r.stderr.slice(0, 200)}`);
    }
    assert.deepEqual(missed, []);
    assert.deepEqual(stateDigest(), snapshot);
  });

  test('a refusal names the right way: modes left alone, state left out of the formatter', async () => {
    const mode = await bash('chmod 000 docs/plan.md');
    assert.match(mode.stderr, /leave the mode, owner and attributes of state files as they are/);
    const fmt = await bash('prettier --write .');
    assert.match(fmt.stderr, /\.prettierignore/);
    assert.match(fmt.stderr, /docs\/plan\.md/);
  });

  test('harmless everyday commands pass (builds, tests, git, formatters whose types or ignore rules leave state out)', async () => {
    write(root, '.prettierignore', 'docs/\n.waymark/\n');
    after(() => fs.rmSync(path.join(root, '.prettierignore'), { force: true }));
    const wrong: string[] = [];
    for (const c of [
      'cp -a empty/. .',
      'mkdir -p e3 && cp -a e3/. .',
      'mkdir e4; cp -r e4 docs',
      'npm test',
      'npm run build',
      'npm install',
      'make',
      'make test',
      'pytest -x tests',
      'cargo build',
      'cargo test',
      'cargo fmt',
      'go test ./...',
      'go fmt ./...',
      'gofmt -w .',
      'git pull',
      'git merge main',
      'git rebase main',
      'git rebase -i HEAD~1',
      'git commit -m "x"',
      'git commit --amend --no-edit',
      'git push',
      'git switch -c feature',
      'sed -i s/x/y/ src/app.ts',
      "sed -i 's/1/2/' src/*.ts",
      'prettier --write src',
      'prettier --write "**/*.ts"',
      'prettier --check .',
      'prettier --write .',
      'npx prettier --write src/app.ts',
      'ruff format .',
      'ruff check --fix .',
      'black .',
      'npx eslint --fix .',
      'chmod +x src/app.ts',
      'chmod 644 docs/plan.md',
      'chmod u+rw docs/plan.md',
      'chmod -R go-w docs',
      'chattr -i docs/plan.md',
      "find . -name '*.ts' -exec prettier --write {} +",
      "find src -name '*.ts' -exec sed -i s/a/b/ {} +",
      "find . -name '*.md' -exec grep -l status {} +",
      "find . -type f -name '*.pyc' -delete",
      "find tests -name '*.py' -exec python3 {} \\;",
      'grep -rl foo src | xargs sed -i s/foo/bar/',
      "git ls-files '*.ts' | xargs prettier --write",
      'echo src/app.ts | xargs cat',
      'ls | xargs -n1 echo',
      'parallel echo ::: a b c',
      'export EDITOR=vim',
      'EDITOR=vim git commit',
      'GIT_EDITOR=true git rebase --continue',
      "GIT_EDITOR='sed -i s/pick/squash/' git rebase -i HEAD~2",
      'GIT_PAGER=cat git log',
      'PAGER=less man ls',
      'git -c core.pager=cat log',
      'git -c core.editor=vim commit',
      'git config user.name "Test User"',
      'git config --global core.editor "code --wait"',
      'git config alias.st status',
      'git config --get alias.st',
      'git st',
      `git -c core.hooksPath=${out}/okhooks commit -m x`,
      `cp ${out}/okhooks/pre-commit .git/hooks/pre-commit`,
      'chmod +x .git/hooks/pre-commit',
      'curl -o /tmp/x.json https://example.com/x.json',
      'curl -s https://example.com | jq .',
      'wget -O /tmp/x https://example.com/x',
      'sort -o /tmp/sorted.txt src/app.ts',
      'go build -o bin/app .',
      'ls -o',
      'npx rimraf dist',
      'git --config-env=color.ui=COLOR log',
      'grep -o foo src/app.ts',
      'timeout 60 npm test',
      'nice -n 10 make',
      "script -q -c 'npm test' /tmp/waymark-script.log",
      'apply_patch "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-export const x = 1;\n+export const x = 2;\n*** End Patch"',
      'deno fmt src',
      'dprint check',
      'taplo fmt src',
      'set -o pipefail; npm test',
      "bash -o pipefail -c 'npm test'",
      'ssh -o StrictHostKeyChecking=no host ls',
    ]) {
      const command = c.replace(/OUT/g, out);
      const r = await bash(command);
      if (r.exitCode !== 0) wrong.push(`${command} → exit ${r.exitCode} ${r.stderr.slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
  });
});

describe('session 23: every agent\'s payload, played hostile', () => {
  before(() => {
    root = featureWorkspace();
    write(root, '.waymark/gates/plan/design.gate', 'gate: FAIL\n');
    execFileSync('git', ['init', '-q'], { cwd: root, stdio: 'pipe' });
    fs.symlinkSync(path.join(root, 'docs/plan.md'), path.join(root, 'src/innocent.ts'));
    snapshot = stateDigest();
  });
  after(() => cleanup(root));

  test('Gemini\'s run_shell_command runs in its `directory` (relative to the project root)', async () => {
    const gemini = HOOK_ADAPTERS.get('gemini')!;
    const r = await answer(gemini, { session_id: 's1', cwd: root, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'rm plan.md', description: 'clean', directory: 'docs' } });
    assert.equal(json(r).decision, 'deny', r.stdout + r.stderr);
    const ok = await answer(gemini, { session_id: 's1', cwd: root, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'rm -f app.js', directory: 'src' } });
    assert.notEqual(json(ok).decision, 'deny');
  });

  test('Codex\'s shell runs in its `workdir`; an argv command is judged as its words', async () => {
    const codex = HOOK_ADAPTERS.get('codex')!;
    for (const tool of ['shell', 'local_shell', 'exec_command']) {
      const r = await answer(codex, { session_id: 's1', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: { command: ['rm', 'plan.md'], workdir: 'docs', timeout_ms: 1000 } });
      assert.equal(r.exitCode, 2, `${tool}: ${r.stderr}`);
    }
    const bashLc = await answer(codex, { session_id: 's1', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'shell', tool_input: { command: ['bash', '-lc', "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: docs/plan.md\n*** End Patch\nEOF\n"], workdir: root } });
    assert.equal(bashLc.exitCode, 2, bashLc.stderr);
  });

  test('an unknown tool carrying a path and content is judged as an edit it does not explain; one carrying only a path (a read) passes', async () => {
    for (const [adapter, payload] of [
      [claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__write_file', tool_input: { path: path.join(root, 'docs/plan.md'), content: '# gone\n' } }],
      [claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'NotebookEdit', tool_input: { notebook_path: path.join(root, 'docs/plan.md'), new_source: 'x', edit_mode: 'replace' } }],
      [HOOK_ADAPTERS.get('gemini')!, { session_id: 's1', cwd: root, hook_event_name: 'BeforeTool', tool_name: 'smart_edit', tool_input: { file_path: path.join(root, 'docs/plan.md'), old_string: 'stepsCompleted: [discovery]', new_string: 'stepsCompleted: [discovery, design]', instruction: 'x' } }],
      [HOOK_ADAPTERS.get('cursor')!, { hook_event_name: 'preToolUse', conversation_id: 'c', generation_id: 'g', workspace_roots: [root], tool_name: 'TabWrite', tool_input: { target_file: path.join(root, 'docs/plan.md'), contents: 'x' } }],
      [HOOK_ADAPTERS.get('copilot')!, { timestamp: 1, cwd: root, toolName: 'write', toolArgs: JSON.stringify({ file: 'docs/plan.md', text: 'x' }) }],
    ] as const) {
      const r = await answer(adapter, payload);
      const refused = r.exitCode === 2 || json(r).decision === 'deny' || json(r).permission === 'deny' || json(r).permissionDecision === 'deny';
      assert.ok(refused, `${payload.tool_name ?? JSON.stringify(payload)}: ${r.exitCode} ${r.stdout} ${r.stderr}`);
    }
    const read = await answer(claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__read_file', tool_input: { path: path.join(root, 'docs/plan.md') } });
    assert.equal(read.exitCode, 0);
    const other = await answer(claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__write_file', tool_input: { path: path.join(root, 'src/new.ts'), content: 'x' } });
    assert.equal(other.exitCode, 0, other.stderr);
  });

  test('Copilot CLI\'s str_replace_editor: insert is judged on the text it leaves, view passes, undo_edit of state is refused', async () => {
    const copilot = HOOK_ADAPTERS.get('copilot')!;
    const call = (args: unknown) => answer(copilot, { timestamp: 1, cwd: root, toolName: 'str_replace_editor', toolArgs: JSON.stringify(args) });
    const plan = path.join(root, 'docs/plan.md');
    const insert = await call({ command: 'insert', path: plan, insert_line: 4, new_str: 'stepsCompleted: [discovery, design]' });
    assert.equal(json(insert).permissionDecision, 'deny', insert.stdout + insert.stderr);
    assert.match(json(insert).permissionDecisionReason, /gate/);
    const body = await call({ command: 'insert', path: plan, insert_line: 9, new_str: 'More body text.' });
    assert.equal(body.exitCode, 0, body.stderr);
    assert.notEqual(json(body).permissionDecision, 'deny');
    const view = await call({ command: 'view', path: plan });
    assert.equal(view.exitCode, 0, view.stderr);
    assert.notEqual(json(view).permissionDecision, 'deny');
    const undo = await call({ command: 'undo_edit', path: plan });
    assert.equal(json(undo).permissionDecision, 'deny', undo.stdout + undo.stderr);
  });

  test('an edit of a git hook or of git\'s configuration is judged on what git will run from it', async () => {
    const hook = path.join(root, '.git/hooks/post-commit');
    const config = path.join(root, '.git/config');
    const bad = await answer(claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: hook, content: '#!/bin/sh\nrm docs/plan.md\n' } });
    assert.equal(bad.exitCode, 2, bad.stderr);
    assert.match(bad.stderr, /git runs the code it holds/);
    const py = await answer(claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: hook, content: "#!/usr/bin/env python3\nimport os\nos.remove('docs/plan.md')\n" } });
    assert.equal(py.exitCode, 2, py.stderr);
    const alias = await answer(claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: config, old_string: '[core]', new_string: '[alias]\n\tx = !sed -i s/a/b/ docs/plan.md\n[core]' } });
    assert.equal(alias.exitCode, 2, alias.stderr);
    const ok = await answer(claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: hook, content: '#!/bin/sh\nnpm test\n' } });
    assert.equal(ok.exitCode, 0, ok.stderr);
    const okAlias = await answer(claude, { session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: config, old_string: '[core]', new_string: '[alias]\n\tst = status\n[core]' } });
    assert.equal(okAlias.exitCode, 0, okAlias.stderr);
  });

  test('duplicate keys are read as the agents read them (the last one), so the judged path is the written one', async () => {
    const plan = path.join(root, 'docs/plan.md');
    const text = `{"session_id":"s1","cwd":${JSON.stringify(root)},"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":${JSON.stringify(path.join(root, 'src/x.ts'))},"content":"x","file_path":${JSON.stringify(plan)}}}`;
    const r = await answerText(claude, text);
    assert.equal(r.exitCode, 2, r.stderr);
  });

  test('apply_patch, hostile: a move onto state, a record deleted, `..` and absolute paths, a link to state, CRLF, a hunk header that lies, a huge patch', async () => {
    const codex = HOOK_ADAPTERS.get('codex')!;
    const patch = (body: string) => answer(codex, { session_id: 's1', turn_id: 't', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: { command: body } });
    const refused: string[] = [
      '*** Begin Patch\n*** Update File: src/app.ts\n*** Move to: docs/plan.md\n@@\n export const x = 1;\n*** End Patch',
      '*** Begin Patch\n*** Delete File: .waymark/gates/plan/design.gate\n*** End Patch',
      '*** Begin Patch\n*** Update File: src/../docs/plan.md\n@@\n-stepsCompleted: [discovery]\n+stepsCompleted: [discovery, design]\n*** End Patch',
      `*** Begin Patch\n*** Update File: ${path.join(root, 'docs/plan.md')}\n@@\n-stepsCompleted: [discovery]\n+stepsCompleted: [discovery, design]\n*** End Patch`,
      '*** Begin Patch\n*** Update File: src/innocent.ts\n@@\n-stepsCompleted: [discovery]\n+stepsCompleted: [discovery, design]\n*** End Patch',
      '*** Begin Patch\r\n*** Update File: docs/plan.md\r\n@@\r\n-stepsCompleted: [discovery]\r\n+stepsCompleted: [discovery, design]\r\n*** End Patch\r\n',
      '*** Begin Patch\n*** Update File: docs/plan.md\n@@ -1,1 +1,1 @@ Body text.\n-stepsCompleted: [discovery]\n+stepsCompleted: [discovery, design]\n*** End Patch',
      `*** Begin Patch\n*** Add File: src/big.ts\n${'+x\n'.repeat(200_000)}*** Update File: docs/plan.md\n@@\n-stepsCompleted: [discovery]\n+stepsCompleted: [discovery, design]\n*** End Patch`,
    ];
    for (const body of refused) {
      const r = await patch(body);
      assert.equal(r.exitCode, 2, `${body.slice(0, 120)}: ${r.stderr}`);
    }
    const ok = await patch('*** Begin Patch\n*** Update File: src/app.ts\n@@\n-export const x = 1;\n+export const x = 2;\n*** End Patch');
    assert.equal(ok.exitCode, 0, ok.stderr);
    assert.deepEqual(stateDigest(), snapshot);
  });
});

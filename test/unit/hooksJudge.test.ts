import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { applyReplacements, checkProposedEdit, checkStagedChanges } from '../../src/core/index';
import { readShellCommand } from '../../src/hooks/shell';
import { applyHunks, parseApplyPatch } from '../../src/hooks/applyPatch';
import { looksLikeState, quickCheck } from '../../src/hooks/quickCheck';
import { isOurCommand } from '../../src/hooks/install';
import { claudeCodeAdapter } from '../../src/hooks/claudeCode';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import { runHook } from '../../src/hooks/run';
import { claudeEvent, cleanup, featureWorkspace, PLAN, write } from './hooksHelpers';

describe('applying an edit tool\'s replacements', () => {
  test('exactly one match unless replace_all; an exact count; a new file from an empty old_string', () => {
    assert.equal(applyReplacements('a b a', [{ oldString: 'b', newString: 'c' }]), 'a c a');
    assert.equal(applyReplacements('a b a', [{ oldString: 'a', newString: 'c' }]), undefined, 'ambiguous: the tool fails');
    assert.equal(applyReplacements('a b a', [{ oldString: 'a', newString: 'c', replaceAll: true }]), 'c b c');
    assert.equal(applyReplacements('a b a', [{ oldString: 'a', newString: 'c', count: 2 }]), 'c b c');
    assert.equal(applyReplacements('a b a', [{ oldString: 'a', newString: 'c', count: 3 }]), undefined);
    assert.equal(applyReplacements('a b', [{ oldString: 'x', newString: 'y' }]), undefined, 'not found');
    assert.equal(applyReplacements(undefined, [{ oldString: '', newString: 'new' }]), 'new');
    assert.equal(applyReplacements(undefined, [{ oldString: 'x', newString: 'new' }]), undefined);
    // MultiEdit: each edit sees the result of the one before.
    assert.equal(applyReplacements('one two', [{ oldString: 'one', newString: 'three' }, { oldString: 'three two', newString: 'done' }]), 'done');
    // `$&` and friends are literal text, not replacement patterns.
    assert.equal(applyReplacements('x', [{ oldString: 'x', newString: '$&$&' }]), '$&$&');
  });
});

describe('judging a proposed text (in process)', () => {
  test('every rule by its code; body edits and no-change edits pass; a new workflow file is judged on its own', async () => {
    const root = featureWorkspace();
    const file = path.join(root, 'docs/plan.md');
    const judge = async (text: string) => (await checkProposedEdit({ root, file, text })).problems.filter((p) => p.severity === 'error').map((p) => p.code);
    try {
      assert.deepEqual(await judge(PLAN.replace('Body text.', 'Other text.')), []);
      assert.deepEqual(await judge(PLAN), []);
      assert.deepEqual(await judge(PLAN.replace('stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]')), ['gate-closed']);
      assert.deepEqual(await judge(PLAN.replace('stepsCompleted: [discovery]', 'stepsCompleted: []')), ['step-rewound']);
      assert.deepEqual(await judge(PLAN.replace('status: in_progress', 'status: created')), ['status-transition']);
      assert.deepEqual(await judge(PLAN.replace('status: in_progress', 'status: blocked').replace('stepsCompleted: [discovery]', 'stepsCompleted: [discovery, implement]')), ['step-while-blocked']);
      assert.deepEqual(await judge(PLAN.replace('stepsCompleted: [discovery]', 'stepsCompleted: [discovery, desgin]')), ['step-unknown']);
      assert.deepEqual(await judge(PLAN.replace('---\n# Plan', 'oops: [\n---\n# Plan')), ['state-hidden']);
      assert.deepEqual(await judge('# Plan\n'), ['state-removed']);
      const created = await checkProposedEdit({ root, file: path.join(root, 'docs/new.md'), text: '---\nworkflow: feature\nstatus: completed\nstepsCompleted: [discovery, design, implement, review]\n---\n' });
      assert.deepEqual(created.problems.filter((p) => p.severity === 'error').map((p) => p.code), ['gate-closed'], 'a new file cannot smuggle in a gated step');
      const plain = await checkProposedEdit({ root, file: path.join(root, 'src/app.ts'), text: 'x' });
      assert.equal(plain.kind, undefined);
      write(root, '.waymark/config.yaml', 'exclude: ["docs/**"]\n');
      const excluded = await checkProposedEdit({ root, file, text: PLAN.replace('status: in_progress', 'status: created') });
      assert.equal(excluded.kind, undefined, 'excluded by the config: not a workflow file to Waymark');
    } finally {
      cleanup(root);
    }
  });
});

describe('the fast path and the shell parser', () => {
  test('shell writes are told from reads, per named file, as the shell parses them', () => {
    const cwd = '/ws';
    const writes = (cmd: string) => readShellCommand(cmd, cwd).touches.map((t) => `${t.kind} ${t.path}`);
    const plan = '/ws/docs/plan.md';
    for (const seg of ["sed -i 's/a/b/' docs/plan.md", 'sed --in-place=.bak x docs/plan.md', 'echo x > docs/plan.md', 'echo x >>docs/plan.md', 'tee -a docs/plan.md', 'rm -f docs/plan.md', 'mv docs/plan.md x.md', 'cp x.md docs/plan.md', "perl -pi -e 's/a/b/' docs/plan.md", 'truncate -s 0 docs/plan.md', 'echo x > "docs/plan.md"', 'touch docs/plan.md', ': > docs/plan.md', 'ln -sf /tmp/x docs/plan.md', 'cd docs && sed -i s/a/b/ plan.md', 'cd docs; cd .. ; rm docs/plan.md', '(cd docs && touch plan.md)', 'waymark status && sed -i s/a/b/ docs/plan.md', 'true || echo > docs/plan.md', 'x=$(rm docs/plan.md)', "bash -c 'rm docs/plan.md'", "eval 'rm docs/plan.md'", 'sudo -u me rm docs/plan.md', 'if true; then rm docs/plan.md; fi', 'cat > docs/plan.md <<EOF\nx\nEOF']) {
      assert.ok(writes(seg).some((w) => w.endsWith(` ${plan}`)), `${seg}: ${writes(seg).join(', ')}`);
    }
    for (const seg of ['cat docs/plan.md', 'grep a docs/plan.md > out.txt', 'cp docs/plan.md backup.md', "sed -n '1p' docs/plan.md", 'wc -l docs/plan.md', 'git diff docs/plan.md', 'diff docs/plan.md other.md 2>/dev/null', 'cd docs && cat plan.md > ../copy.txt', '(cd docs); sed -i s/a/b/ plan.md', 'cat <<EOF > notes.txt\nrm docs/plan.md\nEOF']) {
      assert.ok(!writes(seg).some((w) => w.endsWith(` ${plan}`)), `${seg}: ${writes(seg).join(', ')}`);
    }
    const restore = readShellCommand('git checkout HEAD~3 -- workflows', cwd).touches;
    assert.deepEqual(restore.map((t) => [t.kind, t.path]), [['tree', '/ws/workflows']]);
    assert.ok(readShellCommand('rm $F', cwd).opaque.length, 'a path from a variable cannot be followed');
    // Files a writer takes from xargs fed by a lister, or that find hands it: every file under the folders searched.
    const tree = (cmd: string) => readShellCommand(cmd, cwd).touches.filter((t) => t.kind === 'tree').map((t) => t.path);
    assert.deepEqual(tree("find docs -name '*.md' | xargs sed -i s/a/b/"), ['/ws/docs']);
    assert.deepEqual(tree("find docs -name '*.md' -exec rm {} +"), ['/ws/docs']);
    assert.ok(readShellCommand('some-tool | xargs sed -i s/a/b/', cwd).opaque.length, 'files a writer takes from an input that cannot be read');
    assert.deepEqual(readShellCommand("find . -name '*.md' | xargs grep -l status", cwd).opaque, [], 'a reader fed by xargs writes nothing');
    assert.ok(readShellCommand("echo 'unterminated", cwd).parseError);
  });

  test('state is recognised from the first bytes; edits elsewhere pass without the core', () => {
    assert.equal(looksLikeState('---\nworkflow: x\n---\n'), true);
    assert.equal(looksLikeState('\uFEFF---\r\nstepsCompleted: [1]\r\n---\r\n'), true);
    assert.equal(looksLikeState('# Story 1.1: X\n\nStatus: review\n'), true);
    assert.equal(looksLikeState('---\ntitle: Blog post\n---\nworkflow: is a word here\n'), false);
    assert.equal(looksLikeState('# Notes\n\nStatus: fine\n'), false);
    const root = featureWorkspace();
    try {
      const ev = (file: string, newString: string) => claudeCodeAdapter.parse({ hook_event_name: 'PreToolUse', session_id: 's', cwd: root, tool_name: 'Edit', tool_input: { file_path: path.join(root, file), old_string: 'x', new_string: newString } }, {});
      assert.equal(quickCheck(ev('src/app.ts', 'y')).verdict, 'pass');
      assert.equal(quickCheck(ev('docs/plan.md', 'y')).verdict, 'judge');
      assert.equal(quickCheck(ev('notes.md', 'workflow: feature')).verdict, 'judge', 'an edit that may add state');
      assert.equal(quickCheck(ev('.waymark/gates/plan/design.gate', 'PASS')).verdict, 'judge');
      assert.equal(quickCheck(ev('_bmad-output/sprint-status.yaml', 'done')).verdict, 'judge');
      assert.equal(quickCheck(ev('../elsewhere.md', 'workflow: x')).verdict, 'pass');
    } finally {
      cleanup(root);
    }
  });

  test('install recognises its own commands only', () => {
    assert.equal(isOurCommand('waymark hook claude-code', 'claude-code'), true);
    assert.equal(isOurCommand('node "/opt/w/dist/cli.js" hook claude-code --fail-closed', 'claude-code', 'node "/opt/w/dist/cli.js"'), true, 'the launcher given to install');
    assert.equal(isOurCommand('node ./node_modules/waymark/dist/cli.js hook claude-code', 'claude-code'), true);
    assert.equal(isOurCommand('node ./node_modules/otherguard/dist/cli.js hook claude-code', 'claude-code'), false, "another tool's hook");
    assert.equal(isOurCommand('./audit.sh && waymark hook claude-code', 'claude-code'), false, 'a command that only contains ours');
    assert.equal(isOurCommand('waymark hook claude-code; rm -rf /', 'claude-code'), false);
    assert.equal(isOurCommand('npx waymark hook claude-code', 'claude-code'), true);
    assert.equal(isOurCommand('waymark hook gemini', 'claude-code'), false);
    assert.equal(isOurCommand('my-waymark-wrapper hook claude-code', 'claude-code'), false);
    assert.equal(isOurCommand('prettier --write', 'claude-code'), false);
    assert.equal(isOurCommand(42, 'claude-code'), false);
  });
});

describe('the fast path after an edit', () => {
  test('a file whose state the edit removed is still judged (its snapshot is found); other files pass', async () => {
    const { saveEditSnapshot } = await import('../../src/core/index');
    const root = featureWorkspace();
    try {
      const done = (file: string) => claudeCodeAdapter.parse({ hook_event_name: 'PostToolUse', session_id: 's', cwd: root, tool_name: 'Write', tool_input: { file_path: path.join(root, file), content: '# gone' } }, {});
      write(root, 'docs/plan.md', '# Plan, no state any more\n');
      assert.equal(quickCheck(done('docs/plan.md')).verdict, 'pass');
      saveEditSnapshot(root, path.join(root, 'docs/plan.md'), PLAN);
      assert.equal(quickCheck(done('docs/plan.md')).verdict, 'judge');
      assert.equal(quickCheck(done('src/app.ts')).verdict, 'pass', "another file's snapshot does not slow this one down");
    } finally {
      cleanup(root);
    }
  });
});

describe("Codex's apply_patch envelope", () => {
  test('Add, Delete, Update with anchors and Move to are read into the edits they make', () => {
    const patch = ['*** Begin Patch', '*** Add File: docs/new.md', '+# New', '+', '+text', '*** Delete File: old.md', '*** Update File: src/a.ts', '*** Move to: src/b.ts', '@@ function f() {', '-  return 1;', '+  return 2;', '*** End of File', '*** End Patch'].join('\n');
    const ops = parseApplyPatch(`apply_patch <<'EOF'\n${patch}\nEOF`);
    assert.deepEqual(ops.map((o) => [o.type, o.path]), [['add', 'docs/new.md'], ['delete', 'old.md'], ['update', 'src/a.ts']]);
    assert.equal((ops[0] as { content: string }).content, '# New\n\ntext\n');
    const up = ops[2] as Extract<(typeof ops)[number], { type: 'update' }>;
    assert.equal(up.moveTo, 'src/b.ts');
    assert.equal(applyHunks('function g() {\n  return 1;\n}\nfunction f() {\n  return 1;\n}\n', up.hunks), 'function g() {\n  return 1;\n}\nfunction f() {\n  return 2;\n}\n', 'the anchor picks the second match');
    assert.equal(applyHunks('nothing here\n', up.hunks), undefined, 'context not found: the patch does not apply');
    assert.throws(() => parseApplyPatch('*** Begin Patch\n*** Frobnicate: x\n*** End Patch'), /expected "\*\*\* Add File:"/);
    assert.throws(() => parseApplyPatch('no envelope'), /does not start with/);
  });
});

describe('a large proposed text is hashed once, by its caller (no memo in hash.ts)', () => {
  test('a hook judging a 1 MB Write for its state and its gates hashes the text once', async () => {
    const root = featureWorkspace();
    // The one-shot hash of node:crypto, counted for texts of 1 MiB and more (the module object the core loads).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the very module object hash.ts requires
    const crypto = require('node:crypto') as { hash?: (a: string, d: string | Uint8Array, e: string) => string };
    const real = crypto.hash;
    let large = 0;
    try {
      assert.ok(real, 'node:crypto.hash (Node 20.12+)');
      crypto.hash = (a, d, e) => {
        if (d.length >= 1 << 20) large++;
        return real!(a, d, e);
      };
      const body = 'A long body line of the plan.\n'.repeat(40_000);
      const adapter = HOOK_ADAPTERS.get('claude-code')!;
      const run = async (content: string) => {
        const text = claudeEvent(root, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: path.join(root, 'docs/plan.md'), content } });
        large = 0;
        const out = await runHook(adapter, text, {}, false);
        return { out, large };
      };
      // Completing the gated step: refused (the state's rules); the text judged for its gates too (design waits).
      const gated = await run(PLAN.replace('stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]').replace('Body text.\n', body));
      assert.equal(gated.out.exitCode, 2, gated.out.stderr);
      assert.match(gated.out.stderr, /step design is gated/);
      assert.equal(gated.large, 1, 'the proposed text hashed once');
      // Taking the gate away (switching the workflow): refused by the gates' judge, from the same parse.
      write(root, '.waymark/workflows/other.yaml', 'steps:\n  - discovery\n  - design\n  - implement\n  - review\n');
      const switched = await run(PLAN.replace('workflow: feature', 'workflow: other').replace('Body text.\n', body));
      assert.equal(switched.out.exitCode, 2, switched.out.stderr);
      assert.match(switched.out.stderr, /switches workflow: from feature to other, so step design would lose its gate/);
      assert.equal(switched.large, 1, 'the proposed text hashed once');
      // A body edit: allowed, hashed once.
      const body2 = await run(PLAN.replace('Body text.\n', body));
      assert.equal(body2.out.exitCode, 0, body2.out.stderr);
      assert.equal(body2.large, 1);
      // git's pre-commit judges a staged large text the same way: once.
      const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1' };
      const git = (...args: string[]) => execFileSync('git', args, { cwd: root, env, stdio: 'pipe' });
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'start');
      write(root, 'docs/plan.md', PLAN.replace('workflow: feature', 'workflow: other').replace('Body text.\n', body));
      git('add', '-A');
      large = 0;
      const staged = await checkStagedChanges(root);
      assert.deepEqual(staged.refused.map((r) => [r.rel, r.problems.map((p) => p.code).includes('gate-removed')]), [['docs/plan.md', true]]);
      assert.equal(large, 1, 'the staged text hashed once');
    } finally {
      crypto.hash = real;
      cleanup(root);
    }
  });
});

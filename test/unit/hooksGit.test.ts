import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { cleanup, DEFINITION, featureWorkspace, runCliProcess, treeDigest, write, type Run } from './hooksHelpers';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' } });
}

/** `git commit` through the installed hook; resolves with its exit code and output. */
function commit(cwd: string, ...extra: string[]): Run {
  try {
    const stdout = execFileSync('git', ['commit', '-q', '-m', 'change', ...extra], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' },
    });
    return { code: 0, stdout, stderr: '' };
  } catch (e) {
    const x = e as { status: number; stdout: string; stderr: string };
    return { code: x.status, stdout: x.stdout, stderr: x.stderr };
  }
}

function repo(): string {
  const root = featureWorkspace();
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'start');
  return root;
}

describe('waymark hook git pre-commit (real git)', () => {
  test('refuses a staged edit that breaks the rules, passes a good one; --no-verify skips it', async () => {
    const root = repo();
    const cli = `node ${JSON.stringify(path.resolve('dist/cli.js'))}`;
    try {
      const inst = await runCliProcess(['hook', 'install', 'git', '--command', cli], '', { cwd: root });
      assert.equal(inst.code, 0, inst.stderr);
      const hook = path.join(root, '.git/hooks/pre-commit');
      assert.ok(fs.statSync(hook).mode & 0o100, 'executable');
      assert.equal((await runCliProcess(['hook', 'install', 'git', '--command', cli], '', { cwd: root })).stdout.startsWith('unchanged'), true);

      const plan = path.join(root, 'docs/plan.md');
      const text = fs.readFileSync(plan, 'utf8');
      // Staged: design marked done without its gate verdict. The working tree holds something else.
      fs.writeFileSync(plan, text.replace('stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]'));
      git(root, 'add', 'docs/plan.md');
      fs.writeFileSync(plan, text);
      const head = git(root, 'rev-parse', 'HEAD');
      let r = commit(root);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /docs\/plan\.md: error gate-closed: step design is gated and its gate design has no verdict yet/);
      assert.match(r.stderr, /fix: record the gate first: waymark gate pass docs\/plan\.md design/);
      assert.match(r.stderr, /commit refused: 1 problem in 1 staged state file.*git commit --no-verify/s);
      assert.equal(git(root, 'rev-parse', 'HEAD'), head, 'no commit was made');

      // The same check with the staged rewind of a completed step.
      fs.writeFileSync(plan, text.replace('stepsCompleted: [discovery]', 'stepsCompleted: []'));
      git(root, 'add', 'docs/plan.md');
      r = await runCliProcess(['hook', 'git', 'pre-commit'], '', { cwd: path.join(root, 'docs') });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /step-rewound: the edit removes completed step discovery/);

      // A good change commits; so does a bad one with --no-verify.
      fs.writeFileSync(plan, text.replace('# Plan', '# The plan'));
      git(root, 'add', 'docs/plan.md');
      r = commit(root);
      assert.equal(r.code, 0, r.stderr);
      fs.writeFileSync(plan, text.replace('status: in_progress', 'status: created'));
      git(root, 'add', 'docs/plan.md');
      assert.equal(commit(root).code, 1);
      assert.equal(commit(root, '--no-verify').code, 0);

      // History only grows.
      write(root, '.waymark/history/docs/plan.md.jsonl', '{"seq":1,"time":"t","operation":"start","file":"x"}\n');
      git(root, 'add', '-A');
      assert.equal(commit(root).code, 0);
      write(root, '.waymark/history/docs/plan.md.jsonl', '{"seq":1,"time":"t","operation":"advance","file":"x"}\n');
      git(root, 'add', '-A');
      r = commit(root);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /history-rewritten: .*append-only/);

      const un = await runCliProcess(['hook', 'uninstall', 'git'], '', { cwd: root });
      assert.equal(un.code, 0, un.stderr);
      assert.equal(fs.existsSync(hook), false);
    } finally {
      cleanup(root);
    }
  });

  test("someone else's pre-commit hook is never overwritten; outside a repository is exit 2", async () => {
    const root = repo();
    try {
      write(root, '.git/hooks/pre-commit', '#!/bin/sh\nnpm run lint\n');
      const before = treeDigest(root);
      const r = await runCliProcess(['hook', 'install', 'git'], '', { cwd: root });
      assert.equal(r.code, 3);
      assert.match(r.stderr, /already exists and is not Waymark's; add the line 'waymark hook git pre-commit \|\| exit 1' to it yourself/);
      assert.equal((await runCliProcess(['hook', 'uninstall', 'git'], '', { cwd: root })).code, 3);
      assert.deepEqual(treeDigest(root), before);
      // A hooks folder shared elsewhere on the machine (core.hooksPath) is not written.
      const shared = fs.mkdtempSync(path.join(path.dirname(root), 'shared-hooks-'));
      git(root, 'config', 'core.hooksPath', shared);
      const elsewhere = await runCliProcess(['hook', 'install', 'git'], '', { cwd: root });
      assert.equal(elsewhere.code, 2);
      assert.match(elsewhere.stderr, /outside it \(core\.hooksPath\?\); Waymark does not write there/);
      assert.deepEqual(fs.readdirSync(shared), []);
      fs.rmSync(shared, { recursive: true });
      fs.rmSync(path.join(root, '.git'), { recursive: true });
      const outside = await runCliProcess(['hook', 'git', 'pre-commit'], '', { cwd: root, env: { GIT_CEILING_DIRECTORIES: path.dirname(root) } });
      assert.equal(outside.code, 2);
      assert.match(outside.stderr, /not inside a git repository/);
    } finally {
      cleanup(root);
    }
  });
});

describe('waymark hook git pre-commit: gates cannot be defined away in a commit (real git)', () => {
  /** Stages `text` as `rel`, then puts the working tree back, so only the staged version can be judged. */
  function stage(root: string, rel: string, text: string): void {
    const abs = path.join(root, rel);
    const before = fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : undefined;
    write(root, rel, text);
    git(root, 'add', '--', rel);
    if (before === undefined) fs.rmSync(abs);
    else fs.writeFileSync(abs, before);
  }

  test('a definition losing the gate, a workflow: switch, gates.path moved: each refused while design waits; harmless changes pass', async () => {
    const root = featureWorkspace();
    write(root, '.waymark/workflows/quick.yaml', 'steps:\n  - discovery\n  - design\n  - implement\n  - review\n');
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'start');
    try {
      const cases: [string, string, RegExp][] = [
        ['.waymark/workflows/feature.yaml', 'steps:\n  - discovery\n  - design\n  - implement\n  - review\n', /drops gate design of step design from definition feature while docs\/plan\.md has not done that step/],
        ['docs/plan.md', fs.readFileSync(path.join(root, 'docs/plan.md'), 'utf8').replace('workflow: feature', 'workflow: quick'), /switches workflow: from feature to quick, so step design would lose its gate/],
        ['.waymark/config.yaml', 'gates:\n  path: notes/verdicts\n', /points gates\.path elsewhere .* while gated steps wait for a verdict \(docs\/plan\.md\)/],
      ];
      for (const [rel, text, message] of cases) {
        stage(root, rel, text);
        const r = await runCliProcess(['hook', 'git', 'pre-commit'], '', { cwd: root });
        assert.equal(r.code, 1, `${rel}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`${rel.replace(/\./g, '\\.')}: error gate-removed: `));
        assert.match(r.stderr, message);
        assert.match(r.stderr, /fix: finish the gated step first \(a reviewer records its verdict: waymark gate pass FILE STEP --by NAME\)/);
        // The same change in the working tree too (as an edit then `git add` leaves it): still refused.
        const abs = path.join(root, rel);
        const was = fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : undefined;
        fs.writeFileSync(abs, text);
        const both = await runCliProcess(['hook', 'git', 'pre-commit'], '', { cwd: root });
        assert.equal(both.code, 1, `${rel} in the working tree too: ${both.stderr}`);
        assert.match(both.stderr, message);
        if (was === undefined) fs.rmSync(abs);
        else fs.writeFileSync(abs, was);
        git(root, 'reset', '-q', '--', rel);
      }
      // The step marked done in the working tree only (never staged, no verdict): the staged
      // version of the workflow still waits for its gate, so the definition change is refused.
      const plan = path.join(root, 'docs/plan.md');
      const planText = fs.readFileSync(plan, 'utf8');
      fs.writeFileSync(plan, planText.replace('stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]'));
      stage(root, '.waymark/workflows/feature.yaml', cases[0][1]);
      const hidden = await runCliProcess(['hook', 'git', 'pre-commit'], '', { cwd: root });
      assert.equal(hidden.code, 1, hidden.stderr);
      assert.match(hidden.stderr, cases[0][2]);
      git(root, 'reset', '-q', '--', '.waymark/workflows/feature.yaml');
      fs.writeFileSync(plan, planText);
      // Harmless: a step added to the definition, a config that leaves the gates where they are.
      stage(root, '.waymark/workflows/feature.yaml', `${DEFINITION}  - ship\n`);
      stage(root, '.waymark/config.yaml', 'history:\n  dir: .waymark/history\n');
      const ok = await runCliProcess(['hook', 'git', 'pre-commit'], '', { cwd: root });
      assert.equal(ok.code, 0, ok.stderr);
    } finally {
      cleanup(root);
    }
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { aheadInOtherWorktrees, worktreeStates } from '../../src/core/git/worktrees';
import { CLI, ENV, dirs, git, tempDir } from './gitHelpers';


function cli(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: ENV });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const LEDGER = '_bmad-output/implementation-artifacts/sprint-status.yaml';

function edit(file: string, from: string, to: string): void {
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes(from));
  fs.writeFileSync(file, text.replace(from, to));
}

/** A repository (its main checkout in `<parent>/main`) with a PRD two steps in and a sprint ledger, committed. */
function baseRepo(prefix: string, moreLedger = ''): { parent: string; main: string } {
  const parent = tempDir(prefix);
  const main = path.join(parent, 'main');
  fs.mkdirSync(path.join(main, path.dirname(LEDGER)), { recursive: true });
  git(main, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(main, 'prd.md'), '---\nworkflowType: prd\nstepsCompleted: [1, 2]\nstatus: in-progress\n---\n# PRD\n');
  fs.writeFileSync(path.join(main, LEDGER), `development_status:\n  epic-1: in-progress\n  1-1-login: in-progress\n${moreLedger}`);
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'base');
  return { parent, main };
}

describe('waymark status --worktrees (real git worktrees)', () => {
  test('shows each worktree\'s state and marks what is ahead of the main checkout until it is merged back', () => {
    const { parent, main } = baseRepo('wm-worktrees-', '  1-2-logout: backlog\n');
    const a = path.join(parent, 'a');
    const b = path.join(parent, 'b');
    git(main, 'worktree', 'add', '-q', '-b', 'feat/1-1', a);
    git(main, 'worktree', 'add', '-q', '-b', 'feat/prd', b);
    edit(path.join(a, LEDGER), '1-1-login: in-progress', '1-1-login: review');
    edit(path.join(b, 'prd.md'), '[1, 2]', '[1, 2, 3]');

    const r = cli(main, 'status', '--worktrees');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /worktree feat\/1-1 .*\n {2}story 1-1-login {2}review {2}AHEAD of main; main says in-progress\n/);
    assert.match(r.stdout, /worktree feat\/prd .*\n {2}prd\.md {2}in-progress {2}steps: step-01, step-02, step-03 {2}AHEAD of main/);

    const j = JSON.parse(cli(a, 'status', '--worktrees', '--json').stdout) as { worktrees: { worktree: { branch: string; main: boolean }; items: { id: string; vsMain: string }[] }[] };
    assert.deepEqual(j.worktrees.map((w) => [w.worktree.branch, w.worktree.main]), [['main', true], ['feat/1-1', false], ['feat/prd', false]]);
    const vs = (branch: string, id: string) => j.worktrees.find((w) => w.worktree.branch === branch)!.items.find((i) => i.id === id)!.vsMain;
    assert.equal(vs('feat/1-1', 'story 1-1-login'), 'ahead');
    assert.equal(vs('feat/1-1', 'prd.md'), 'same');
    assert.equal(vs('feat/prd', 'prd.md'), 'ahead');

    const sprint = cli(main, 'sprint', '--worktrees');
    assert.equal(sprint.code, 0, sprint.stderr);
    assert.match(sprint.stdout, /story 1-1-login {2}review {2}AHEAD of main; main says in-progress/);
    assert.doesNotMatch(sprint.stdout, /prd\.md/);

    // Once the work is merged back, main has it and nothing is ahead.
    git(a, 'commit', '-q', '-am', 'review');
    git(main, 'merge', '-q', 'feat/1-1');
    const after2 = JSON.parse(cli(main, 'status', '--worktrees', '--json').stdout) as typeof j;
    assert.equal(after2.worktrees.find((w) => w.worktree.branch === 'feat/1-1')!.items.every((i) => i.vsMain === 'same'), true);
  });

  test('the editor\'s markers: what other worktrees have ahead of the checkout it has open (not only of main)', async () => {
    const { parent, main } = baseRepo('wm-ahead-');
    // One worktree alone: nothing to mark (only git worktree list ran).
    assert.deepEqual((await aheadInOtherWorktrees(main)).ahead, []);
    const a = path.join(parent, 'a');
    const b = path.join(parent, 'b');
    git(main, 'worktree', 'add', '-q', '-b', 'feat/1-1', a);
    git(main, 'worktree', 'add', '-q', '-b', 'feat/prd', b);
    edit(path.join(a, LEDGER), '1-1-login: in-progress', '1-1-login: review');
    edit(path.join(b, 'prd.md'), '[1, 2]', '[1, 2, 3]');
    const fromMain = await aheadInOtherWorktrees(main);
    assert.deepEqual(
      fromMain.ahead.map((m) => [m.id, m.branch, m.status, m.here?.status]),
      [['story 1-1-login', 'feat/1-1', 'review', 'in-progress'], ['prd.md', 'feat/prd', 'in-progress', 'in-progress']],
    );
    // Seen from worktree a: b's PRD step is ahead of a too, and a's own story is not marked; main is behind a.
    const fromA = await aheadInOtherWorktrees(a);
    assert.equal(fromA.top, a);
    assert.deepEqual(fromA.ahead.map((m) => [m.id, m.branch]), [['prd.md', 'feat/prd']]);
    assert.deepEqual(fromA.ahead[0].stepsCompleted, ['step-01', 'step-02', 'step-03']);
    assert.deepEqual(fromA.ahead[0].here?.stepsCompleted, ['step-01', 'step-02']);
    const states = await worktreeStates(a, { against: 'here' });
    assert.equal(states.find((s) => s.reference)?.worktree.path, a);
    assert.equal(states.find((s) => s.worktree.main)!.items.find((i) => i.id === 'story 1-1-login')!.vsMain, 'behind');
  });

  test('outside a git repository --worktrees says so (exit 2)', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-nogit-'));
    dirs.push(d);
    const r = cli(d, 'status', '--worktrees');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /not inside a git repository/);
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, ENV, dirs, git } from './gitHelpers';


function cli(cwd: string, args: string[], actor = 'tester'): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...ENV, WAYMARK_ACTOR: actor } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function ok(cwd: string, args: string[], actor?: string): string {
  const r = cli(cwd, args, actor);
  assert.equal(r.code, 0, `waymark ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

const IMPL = '_bmad-output/implementation-artifacts';
const story = (key: string) => `# Story ${key.slice(0, 3).replace('-', '.')}: ${key.slice(4)}\n\nStatus: in-progress\n\n## Tasks / Subtasks\n\n- [ ] Build it\n- [ ] Test it\n\n## Dev Notes\n`;

/** A bare "remote" and two clones of it, as two machines. */
function machines(): { remote: string; a: string; b: string } {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-refs-')));
  dirs.push(parent);
  const seed = path.join(parent, 'seed');
  fs.mkdirSync(path.join(seed, IMPL), { recursive: true });
  git(seed, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(seed, IMPL, 'sprint-status.yaml'), 'development_status:\n  epic-1: in-progress\n  1-1-login: in-progress\n  1-2-logout: in-progress\n');
  fs.writeFileSync(path.join(seed, IMPL, '1-1-login.md'), story('1-1-login'));
  fs.writeFileSync(path.join(seed, IMPL, '1-2-logout.md'), story('1-2-logout'));
  fs.writeFileSync(path.join(seed, 'plan.md'), '---\nworkflow: plan\nstatus: in_progress\nsteps: [design, {id: build, gate: true}, ship]\nstepsCompleted: []\n---\n# Plan\n\nBody.\n');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'sprint planned');
  const remote = path.join(parent, 'remote.git');
  git(parent, 'clone', '-q', '--bare', seed, remote);
  const a = path.join(parent, 'machine-a');
  const b = path.join(parent, 'machine-b');
  git(parent, 'clone', '-q', remote, a);
  git(parent, 'clone', '-q', remote, b);
  return { remote, a, b };
}

function snapshot(dir: string): string {
  return git(dir, 'status', '--porcelain', '--untracked-files=all') + git(dir, 'rev-parse', 'HEAD') + fs.readFileSync(path.join(dir, 'plan.md'), 'utf8') + fs.readFileSync(path.join(dir, IMPL, 'sprint-status.yaml'), 'utf8');
}

describe('branches and machines: diff-state and timeline --ref (real git, a bare remote cloned twice)', () => {
  test('diff-state origin/main lists what a pull will change in workflow state, without touching the working tree', () => {
    const m = machines();
    // Machine A works and pushes: story 1-1 to review with both tasks ticked, a step of the plan
    // done with its gate passed, a new workflow.
    ok(m.a, ['story', 'check', '1-1-login', '1'], 'agent-a');
    ok(m.a, ['story', 'check', '1-1-login', '2'], 'agent-a');
    ok(m.a, ['story', 'set-status', '1-1-login', 'review'], 'agent-a');
    ok(m.a, ['complete-step', 'plan.md', 'design'], 'agent-a');
    ok(m.a, ['gate', 'pass', 'plan.md', 'build', '--by', 'reviewer'], 'agent-a');
    fs.writeFileSync(path.join(m.a, 'release.md'), '---\nworkflow: release\nstatus: created\n---\n# Release\n');
    git(m.a, 'add', '-A');
    git(m.a, 'commit', '-q', '-m', 'A: 1-1 in review, design done');
    git(m.a, 'push', '-q', 'origin', 'main');
    // Machine B has its own unpushed progress on story 1-2.
    ok(m.b, ['story', 'set-status', '1-2-logout', 'review'], 'agent-b');
    git(m.b, 'fetch', '-q');

    const before = snapshot(m.b);
    const r = cli(m.b, ['diff-state', 'origin/main']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /~ story 1-1-login {2}status: in-progress → review; ledger: in-progress → review; story file: in-progress → review; tasks: 0\/2 → 2\/2\n {6}origin\/main is ahead: a pull moves it forward/);
    assert.match(r.stdout, /~ plan\.md {2}steps: \[\] → \[design\]; gates: - → build: PASS\n {6}origin\/main is ahead/);
    assert.match(r.stdout, /\+ release\.md {2}status: created/);
    assert.match(r.stdout, /~ story 1-2-logout {2}status: review → in-progress.*\n {6}here is ahead of origin\/main/);
    assert.equal(snapshot(m.b), before, 'diff-state changed the working tree');

    const j = JSON.parse(cli(m.b, ['diff-state', 'origin/main', '--json']).stdout) as { commit: string; changes: { id: string; change: string; progress?: string; fields: { key: string; here?: string; there?: string }[] }[] };
    assert.equal(j.commit, git(m.b, 'rev-parse', 'origin/main').trim());
    const by = new Map(j.changes.map((c) => [c.id, c]));
    assert.equal(by.get('story 1-1-login')?.progress, 'ahead');
    assert.equal(by.get('story 1-2-logout')?.progress, 'behind');
    assert.equal(by.get('release.md')?.change, 'added');
    assert.deepEqual(by.get('plan.md')?.fields.find((f) => f.key === 'stepsCompleted'), { key: 'stepsCompleted', here: '[]', there: '[design]' });

    // After the pull (the driver merges the ledger), nothing at origin/main is ahead any more.
    ok(m.b, ['git', 'install']);
    // B commits everything it wrote, its events log too: both sides added it, the driver unites them.
    git(m.b, 'add', '-A');
    git(m.b, 'commit', '-q', '-m', 'B: 1-2 in review');
    git(m.b, 'merge', '-q', '--no-edit', 'origin/main');
    const after2 = JSON.parse(cli(m.b, ['diff-state', 'origin/main', '--json']).stdout) as typeof j;
    assert.deepEqual(after2.changes.filter((c) => c.change === 'added' || c.progress === 'ahead' || c.progress === 'diverged'), []);
    // And the same commit: no difference at all, exit 0.
    const same = cli(m.b, ['diff-state', 'HEAD']);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /No workflow state differs/);
  });

  test('timeline --ref shows another branch\'s state changes (its history and commits) with no checkout', () => {
    const m = machines();
    ok(m.a, ['complete-step', 'plan.md', 'design'], 'agent-a');
    git(m.a, 'add', '-A');
    git(m.a, 'commit', '-q', '-m', 'design done');
    git(m.a, 'push', '-q', 'origin', 'main:feat/design');
    git(m.b, 'fetch', '-q');
    const here = cli(m.b, ['timeline', '--json']);
    assert.equal((JSON.parse(here.stdout) as { changes: unknown[] }).changes.filter((c) => JSON.stringify(c).includes('agent-a')).length, 0);
    const there = cli(m.b, ['timeline', '--ref', 'origin/feat/design', '--json']);
    assert.equal(there.code, 0, there.stderr);
    const rows = (JSON.parse(there.stdout) as { changes: { file: string; actor: string; source: string; operation: string; to: Record<string, unknown> | null }[] }).changes;
    const fromHistory = rows.find((c) => c.source === 'waymark' && c.actor === 'agent-a');
    assert.ok(fromHistory, JSON.stringify(rows));
    assert.equal(fromHistory.file, 'plan.md');
    assert.ok(rows.some((c) => c.source === 'git' && c.file === 'plan.md' && JSON.stringify(c.to).includes('design')), JSON.stringify(rows));
    const one = cli(m.b, ['timeline', '--ref', 'origin/feat/design', '--file', 'plan.md']);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /plan .*by agent-a/);
    assert.equal(git(m.b, 'status', '--porcelain'), '');
    assert.equal(git(m.b, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'main');
  });

  test('clear errors: unknown ref, a ref like an option, not a git repository (exit 2, no stack trace)', () => {
    const m = machines();
    for (const args of [['diff-state', 'origin/nope'], ['timeline', '--ref', 'no-such-branch']]) {
      const r = cli(m.b, args);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /Unknown ref '(origin\/nope|no-such-branch)'.*git fetch/);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
    const dash = cli(m.b, ['diff-state', '--', '--output=/tmp/x']);
    assert.equal(dash.code, 2);
    const plain = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-refs-nogit-')));
    dirs.push(plain);
    const r = cli(plain, ['diff-state', 'main']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /not inside a git repository/);
    const missing = cli(m.b, ['diff-state']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /REF/);
  });
});

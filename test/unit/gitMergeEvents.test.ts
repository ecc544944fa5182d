import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, ENV, dirs, git } from './gitHelpers';


function gitOk(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: ENV });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stdout}${r.stderr}`);
}

function cli(cwd: string, actor: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...ENV, WAYMARK_ACTOR: actor } });
  assert.equal(r.status, 0, `waymark ${args.join(' ')}: ${r.stdout}${r.stderr}`);
}

const EVENTS = '.waymark/events/events.jsonl';

interface Ev {
  seq: number;
  time: string;
  type: string;
  actor?: string;
}

function events(root: string): Ev[] {
  return fs.readFileSync(path.join(root, EVENTS), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Ev);
}

const identity = (e: Ev) => JSON.stringify({ ...e, seq: undefined });

/** seq 1..n with no gap or repeat; no event twice; every expected event there. */
function assertUnion(merged: Ev[], expected: Ev[], what: string): void {
  assert.deepEqual(merged.map((e) => e.seq), merged.map((_, i) => i + 1), `${what}: seq not monotonic 1..n`);
  const ids = merged.map(identity);
  assert.equal(new Set(ids).size, ids.length, `${what}: an event twice`);
  const have = new Set(ids);
  const lost = expected.filter((e) => !have.has(identity(e)));
  assert.deepEqual(lost, [], `${what}: events lost`);
  assert.equal(merged.length, new Set(expected.map(identity)).size, `${what}: events appeared from nowhere`);
}

/**
 * A repository with the driver installed, a committed events log and workflow, and two branches
 * that each logged events and completed a different step.
 */
function twoBranches(): { root: string; x: Ev[]; y: Ev[] } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-events-')));
  dirs.push(root);
  git(root, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(root, 'plan.md'), '---\nworkflow: plan\nstatus: in_progress\nsteps: [a, b, c]\nstepsCompleted: []\n---\n# Plan\n');
  cli(root, 'setup', 'git', 'install');
  cli(root, 'base', 'lease', 'acquire', 'plan.md');
  cli(root, 'base', 'lease', 'release', 'plan.md');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'base');
  git(root, 'checkout', '-q', '-b', 'x');
  cli(root, 'agent-x', 'complete-step', 'plan.md', 'a');
  git(root, 'commit', '-q', '-am', 'x: step a');
  // (Leases live in the repository's shared folder, not in the branch: released before y works.)
  cli(root, 'agent-x', 'lease', 'acquire', 'plan.md');
  cli(root, 'agent-x', 'lease', 'release', 'plan.md');
  git(root, 'commit', '-q', '-am', 'x: lease');
  const x = events(root);
  git(root, 'checkout', '-q', 'main');
  git(root, 'checkout', '-q', '-b', 'y');
  cli(root, 'agent-y', 'complete-step', 'plan.md', 'b');
  git(root, 'commit', '-q', '-am', 'y: step b');
  cli(root, 'agent-y', 'mode', 'start', 'reviewing', '--shared');
  git(root, 'commit', '-q', '-am', 'y: mode');
  const y = events(root);
  assert.ok(x.length >= 4 && y.length >= 4, `events logged: ${x.length} ${y.length}`);
  // Both branches numbered their new events from the same seq: a text merge would conflict.
  const base = events(root).filter((e) => e.actor?.startsWith('base')).length;
  assert.equal(x[base].seq, y[base].seq);
  return { root, x, y };
}

function stepsOf(root: string): string {
  return /stepsCompleted: \[(.*)\]/.exec(fs.readFileSync(path.join(root, 'plan.md'), 'utf8'))![1];
}

describe('the events log through git (driver installed): merge, rebase, cherry-pick', () => {
  test('git install routes the events log to the driver', () => {
    const { root } = twoBranches();
    assert.match(fs.readFileSync(path.join(root, '.gitattributes'), 'utf8'), /^\.waymark\/events\/\*\.jsonl merge=waymark$/m);
    assert.equal(git(root, 'check-attr', 'merge', EVENTS).trim(), `${EVENTS}: merge: waymark`);
  });

  test('merge: events united and re-sequenced, no duplicate, none lost; both steps done', () => {
    const { root, x, y } = twoBranches();
    git(root, 'checkout', '-q', 'x');
    gitOk(root, 'merge', '--no-edit', 'y');
    assertUnion(events(root), [...x, ...y], 'merge');
    assert.equal(stepsOf(root), 'a, b');
    // The merged branch appends after the merged log.
    cli(root, 'agent-x', 'complete-step', 'plan.md', 'c');
    const after2 = events(root);
    assert.equal(after2[after2.length - 1].seq, after2.length);
  });

  test('rebase: every replayed commit merges its events and steps by the driver', () => {
    const { root, x, y } = twoBranches();
    git(root, 'checkout', '-q', 'y');
    gitOk(root, 'rebase', 'x');
    assertUnion(events(root), [...x, ...y], 'rebase');
    assert.equal(stepsOf(root), 'a, b');
    assert.equal(git(root, 'status', '--porcelain', '--untracked-files=no'), '');
  });

  test('cherry-pick: one commit of the other branch brings its events and its step', () => {
    const { root, x, y } = twoBranches();
    git(root, 'checkout', '-q', 'x');
    const first = git(root, 'rev-list', '--reverse', 'main..y').trim().split('\n')[0];
    gitOk(root, 'cherry-pick', first);
    // The picked commit carried y's events up to its step (the log as y had it then).
    const picked = y.filter((e) => e.type !== 'mode.start');
    assertUnion(events(root), [...x, ...picked], 'cherry-pick');
    assert.equal(stepsOf(root), 'a, b');
  });

  test('without the driver the same merge conflicts on the events log (the driver is what makes it clean)', () => {
    const { root } = twoBranches();
    cli(root, 'setup', 'git', 'uninstall');
    git(root, 'checkout', '-q', 'x');
    const r = spawnSync('git', ['merge', '--no-edit', 'y'], { cwd: root, encoding: 'utf8', env: ENV });
    assert.notEqual(r.status, 0);
    assert.match(r.stdout + r.stderr, /CONFLICT.*events\.jsonl/);
  });
});

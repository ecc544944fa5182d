import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { createStateCore, openStore, runProjection, trackerSetup, parseAllowOutside, type ProjectReport } from '../../src/core/index';
import { ticketFiles, ticketRepo, wf, workspace } from './ticketsHelpers';

const CLI = path.resolve('dist/cli.js');

function cli(cwd: string, args: string[], env: Record<string, string | undefined> = {}) {
  const base = { ...process.env };
  delete base.WAYMARK_TICKETS_ALLOW_OUTSIDE;
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...base, ...env }, timeout: 60_000 });
}

/** One projection in-process; `allowOutside` is the user's allowance (never the folder's config). */
async function projectWith(root: string, allowOutside?: readonly string[]): Promise<ProjectReport> {
  const core = createStateCore({ roots: [root], memory: false });
  try {
    const setup = trackerSetup((await core.contextFor(path.join(root, 'x'))).config)!;
    const store = await openStore(root, setup.defaultStore, setup.stores.get(setup.defaultStore)!, { allowOutside });
    return await runProjection({ core, root, store, isDefault: true, breaker: setup.breaker });
  } finally {
    await core.close();
  }
}

function commits(repo: string): number {
  const r = spawnSync('git', ['-C', repo, 'rev-list', '--count', 'HEAD'], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : 0;
}

describe('tickets: the git store stays inside the workspace by its real path', () => {
  test('tracker.repo naming a symlink inside the workspace to a repository outside is refused: nothing written, no commit', async () => {
    const outside = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress') }, 'tracker:\n  store: git\n  repo: tickets\n');
    fs.symlinkSync(outside, path.join(root, 'tickets'));
    const before = fs.readFileSync(path.join(root, 'a.md'), 'utf8');
    await assert.rejects(projectWith(root), (e: Error) => {
      assert.match(e.message, /outside the workspace/);
      assert.match(e.message, new RegExp(outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'names the real path');
      assert.match(e.message, /WAYMARK_TICKETS_ALLOW_OUTSIDE/);
      return true;
    });
    assert.equal(ticketFiles(outside).size, 0);
    assert.equal(commits(outside), 0);
    assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), before, 'no mirror written');
  });

  test('allowOutside: true in a cloned .waymark/config.yaml alone does not let Waymark write another repository', async () => {
    const outside = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress') }, `tracker:\n  store: git\n  repo: ${outside}\n  allowOutside: true\n`);
    await assert.rejects(projectWith(root), /outside the workspace.*not enough.*WAYMARK_TICKETS_ALLOW_OUTSIDE/s);
    assert.equal(ticketFiles(outside).size, 0);
    // Another folder the user allowed is no allowance for this one.
    const other = ticketRepo();
    await assert.rejects(projectWith(root, [other]), /outside the workspace/);
    assert.equal(commits(outside), 0);
  });

  test('the user allows the real path (a user setting or the environment): the symlinked repository is written', async () => {
    const outside = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress') }, 'tracker:\n  store: git\n  repo: tickets\n');
    fs.symlinkSync(outside, path.join(root, 'tickets'));
    // The allowance may itself be spelled through a link: compared by real path.
    const alias = `${outside}-alias`;
    fs.symlinkSync(outside, alias);
    const r = await projectWith(root, [alias]);
    assert.deepEqual(r.created, ['a']);
    assert.equal(ticketFiles(outside).size, 1);
    assert.equal(commits(outside), 1);
  });

  test('the CLI reads the allowance from WAYMARK_TICKETS_ALLOW_OUTSIDE only', () => {
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.js not built (node esbuild.mjs)');
    const outside = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress') }, `tracker:\n  store: git\n  repo: ${outside}\n  allowOutside: true\n`);
    const refused = cli(root, ['project']);
    assert.equal(refused.status, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /WAYMARK_TICKETS_ALLOW_OUTSIDE/);
    assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(commits(outside), 0);
    const ok = cli(root, ['project'], { WAYMARK_TICKETS_ALLOW_OUTSIDE: outside });
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.equal(commits(outside), 1);
  });

  test('the allowance is a list of absolute paths; relative entries are ignored', () => {
    assert.deepEqual(parseAllowOutside(undefined), []);
    assert.deepEqual(parseAllowOutside(''), []);
    assert.deepEqual(parseAllowOutside(`/a${path.delimiter}relative${path.delimiter}${path.delimiter}/b/c`), ['/a', '/b/c']);
  });
});

describe('tickets: a failed commit in the ticket repository keeps the change queued', () => {
  test('a stale index.lock: the run says so, the change stays queued, and the next run commits it', async () => {
    const repo = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress') }, `tracker:\n  store: git\n  repo: ${repo}\n`);
    const lock = path.join(repo, '.git', 'index.lock');
    fs.writeFileSync(lock, '');
    const first = await projectWith(root, [repo]);
    assert.deepEqual(first.created, ['a']);
    assert.equal(first.failed.length, 1);
    assert.match(first.failed[0].message, /git commit .*failed/);
    assert.match(first.failed[0].message, /queued/);
    assert.equal(first.queued, 1, 'the uncommitted change waits in the outbox');
    assert.equal(commits(repo), 0);

    // Still locked: not "unchanged" and forgotten; still queued.
    const second = await projectWith(root, [repo]);
    assert.equal(second.queued, 1);
    assert.equal(second.failed.length, 1);
    assert.equal(commits(repo), 0);

    fs.rmSync(lock);
    const third = await projectWith(root, [repo]);
    assert.deepEqual(third.failed, []);
    assert.equal(third.queued, 0);
    assert.equal(commits(repo), 1, 'the change left from the failed commit is committed');
    assert.equal(execFileSync('git', ['-C', repo, 'status', '--porcelain'], { encoding: 'utf8' }), '');
    const fourth = await projectWith(root, [repo]);
    assert.equal(fourth.queued, 0);
    assert.equal(commits(repo), 1, 'no empty commit');
    // A lock on the ticket repository's index is no failure of a run with nothing to commit.
    fs.writeFileSync(lock, '');
    const fifth = await projectWith(root, [repo]);
    assert.deepEqual(fifth.failed, []);
    fs.rmSync(lock);
  });
});

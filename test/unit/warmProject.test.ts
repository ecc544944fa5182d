// The warm project view (core/project/loadProject.ts, WarmProjectView): answered from memory
// while nothing changed (no git process, no re-read), recomputed when a state, git, a lease or
// time passing changes what it says. Real files, real git (counted through a PATH wrapper).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { WarmProjectView, createStateCore } from '../../src/core/index';

const tmps: string[] = [];
after(() => {
  for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-warm-core-')));
  tmps.push(d);
  return d;
}

function wf(name: string, status: string): string {
  return ['---', `workflow: ${name}`, `status: ${status}`, 'steps: [design, build]', 'currentStep: build', 'stepsCompleted: [design]', '---', '', '# W', ''].join('\n');
}

/** A `git` on PATH that logs each run to `log`, then runs the real one. */
function countingGit(): { log: string; env: string } {
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  const dir = tmp();
  const log = path.join(dir, 'git.log');
  fs.writeFileSync(path.join(dir, 'git'), `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(log, '');
  return { log, env: `${dir}${path.delimiter}${process.env.PATH}` };
}

function runs(log: string): number {
  return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
}

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

describe('warm project view', () => {
  test('answers from memory while nothing changed: no git process, the same view; a commit by another process is seen', async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'work'));
    for (const n of ['a', 'b', 'c']) fs.writeFileSync(path.join(root, 'work', `${n}.workflow.md`), wf(n, 'in_progress'));
    const g = (...args: string[]) => assert.equal(spawnSync('git', args, { cwd: root, env: { ...process.env, ...GIT_ENV } }).status, 0);
    g('init', '-q');
    g('add', '-A');
    g('commit', '-qm', 'one');
    const counting = countingGit();
    const savedPath = process.env.PATH;
    process.env.PATH = counting.env;
    const core = createStateCore({ roots: [root], actor: 't' });
    try {
      const scan = await core.scan();
      const warm = new WarmProjectView(core);
      const first = await warm.view(scan);
      const asked = runs(counting.log);
      assert.ok(asked > 0, 'the first view asks git for commit times');
      for (let i = 0; i < 5; i++) assert.equal(await warm.view({ roots: scan.roots, workflows: core.list() }), first);
      assert.equal(runs(counting.log), asked, 'no git process while nothing changed');
      assert.equal(warm.computations, 1);
      // Another process commits an edit of one file: HEAD's ref and the index moved.
      fs.writeFileSync(path.join(root, 'work', 'a.workflow.md'), wf('a', 'review'));
      g('commit', '-qam', 'two');
      await core.reload(path.join(root, 'work', 'a.workflow.md'));
      const second = await warm.view({ roots: scan.roots, workflows: core.list() });
      assert.notEqual(second, first);
      assert.equal(second.frontier.entries.get('a')?.column, 'review');
      // A commit that touches no workflow file (another file, by another process) is seen too.
      fs.writeFileSync(path.join(root, 'README.md'), 'x\n');
      g('add', 'README.md');
      g('commit', '-qm', 'three');
      const third = await warm.view({ roots: scan.roots, workflows: core.list() });
      assert.notEqual(third, second, 'the ref moved: commit times are asked again');
    } finally {
      process.env.PATH = savedPath;
      await core.close();
    }
  });

  test('time passing: recomputed when the first in-progress item crosses its stalled threshold, not before', async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'work'));
    const file = path.join(root, 'work', 'a.workflow.md');
    fs.writeFileSync(file, wf('a', 'in_progress'));
    const t0 = Date.now();
    const quiet = new Date(t0 - 3 * 86_400_000 + 3_600_000); // 2 days 23 h ago; the threshold is 3 days
    fs.utimesSync(file, quiet, quiet);
    const core = createStateCore({ roots: [root], actor: 't' });
    try {
      const scan = await core.scan();
      const warm = new WarmProjectView(core, { git: false, maxAgeMs: 24 * 3_600_000 });
      const v1 = await warm.view(scan, new Date(t0));
      assert.deepEqual(v1.frontier.stalled, []);
      assert.equal(await warm.view(scan, new Date(t0 + 30 * 60_000)), v1, 'half an hour later nothing crossed a threshold');
      const v2 = await warm.view(scan, new Date(t0 + 2 * 3_600_000));
      assert.deepEqual(v2.frontier.stalled.map((e) => e.id), ['a']);
    } finally {
      await core.close();
    }
  });

  test('a lease taken and released by another core is seen without being reported', async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'work'));
    const file = path.join(root, 'work', 'a.workflow.md');
    fs.writeFileSync(file, wf('a', 'in_progress'));
    const old = new Date(Date.now() - 10 * 86_400_000);
    fs.utimesSync(file, old, old);
    const core = createStateCore({ roots: [root], actor: 't' });
    const other = createStateCore({ roots: [root], actor: 'other' });
    try {
      const scan = await core.scan();
      const warm = new WarmProjectView(core, { git: false });
      assert.deepEqual((await warm.view(scan)).frontier.stalled.map((e) => e.id), ['a']);
      await other.protocol.acquireLease(root, file, { agent: 'other', session: 's1', pid: process.pid, host: os.hostname() });
      const v = await warm.view(scan);
      assert.deepEqual(v.frontier.stalled, [], 'a fresh lease is a sign of life');
      assert.equal(await warm.view(scan), v);
      await other.protocol.releaseLease(root, file, { agent: 'other', session: 's1', pid: process.pid, host: os.hostname() });
      const released = await warm.view(scan);
      assert.notEqual(released, v, 'the release is seen');
      // The events log recorded the lease: still a sign of life, now from the log.
      assert.deepEqual(released.frontier.stalled, []);
    } finally {
      await core.close();
      await other.close();
    }
  });
});

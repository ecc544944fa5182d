// The warm project view (core/project/loadProject.ts, WarmProjectView): answered from memory
// while nothing changed (no git process, no re-read), recomputed when a state, git, a lease or
// time passing changes what it says. Real files, real git (counted through a PATH wrapper).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { WarmProjectView, createStateCore, loadProject, type ProjectView } from '../../src/core/index';

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

  test('an edited file that keeps its names and edges is carried into the last registry and frontier; the view is the one a cold read gives', async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'work'));
    const file = (n: string) => path.join(root, 'work', `${n}.workflow.md`);
    const write = (n: string, status: string, extra: string[] = []) => fs.writeFileSync(file(n), wf(n, status).replace('---\n\n', `${extra.map((l) => `${l}\n`).join('')}---\n\n`));
    write('a', 'created');
    write('b', 'created', ['dependsOn: [a]']);
    write('c', 'created', ['dependsOn: [b]', 'title: "C"']);
    write('d', 'in_progress', ['dependsOn: [nowhere]']);
    const core = createStateCore({ roots: [root], actor: 't' });
    /** What a view says: items, edges, problems, columns, reasons, order, critical path. */
    const said = (v: ProjectView) => ({
      items: v.registry.items.map((i) => [i.id, i.state, i.title, i.priority]),
      edges: v.registry.edges.map((e) => [e.from, e.to, e.kind]),
      problems: v.frontier.problems.map((p) => [p.file, p.code, p.range.start.line, p.message]),
      entries: [...v.frontier.entries.values()].map((e) => [e.id, e.column, e.reason, e.waitingOn, e.unblocks, e.depth]),
      ready: v.frontier.ready.map((e) => e.id),
      critical: v.frontier.criticalPath,
    });
    const cold = async () => said(await loadProject(core, { scan: { roots: [root], workflows: core.list() }, git: false }));
    try {
      const scan = await core.scan();
      const warm = new WarmProjectView(core, { git: false });
      const first = await warm.view(scan);
      // A status edit: a is done, so b is ready; the graph is carried over.
      write('a', 'completed');
      await core.reload(file('a'));
      const second = await warm.view({ roots: scan.roots, workflows: core.list() });
      assert.equal(second.registry.edges, first.registry.edges, 'the edges were carried over, not built again');
      assert.equal(second.frontier.entries.get('b')?.column, 'todo');
      assert.deepEqual(said(second), await cold());
      // A title and priority edit of a file that waits on another: carried over too.
      write('c', 'created', ['dependsOn: [b]', 'title: "C two"', 'priority: high']);
      await core.reload(file('c'));
      const third = await warm.view({ roots: scan.roots, workflows: core.list() });
      assert.equal(third.registry.edges, first.registry.edges);
      assert.deepEqual(said(third), await cold());
      // Only c's entry was computed again (nothing waits on it): the others are carried over.
      for (const id of ['a', 'b', 'd']) assert.equal(third.frontier.entries.get(id), second.frontier.entries.get(id), `${id} carried over`);
      assert.notEqual(third.frontier.entries.get('c'), second.frontier.entries.get('c'));
      // A new dependency: the registry is built again.
      write('b', 'created', ['dependsOn: [a, c]']);
      await core.reload(file('b'));
      const fourth = await warm.view({ roots: scan.roots, workflows: core.list() });
      assert.notEqual(fourth.registry.edges, first.registry.edges);
      assert.ok(fourth.registry.cycles.length > 0, 'b → c → b is a cycle');
      assert.deepEqual(said(fourth), await cold());
      // A file with a registry problem (an unknown target, whose range an edit may move): built again.
      write('d', 'blocked', ['title: "moved down a line"', 'dependsOn: [nowhere]']);
      await core.reload(file('d'));
      const fifth = await warm.view({ roots: scan.roots, workflows: core.list() });
      assert.notEqual(fifth.registry.edges, fourth.registry.edges);
      assert.deepEqual(said(fifth), await cold());
    } finally {
      await core.close();
    }
  });
});

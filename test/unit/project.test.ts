import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore, loadProject, computeFrontier, buildRegistry, scanRoots, type ProjectView, type WorkflowState } from '../../src/core/index';
import { loadSprints } from '../../src/core/bmad/sprint';
import { runCli } from '../../src/cli/framework';
import { projectCommands } from '../../src/cli/projectCommands';
import { workspace as makeWorkspace } from './fileHelpers';

const FIX = path.resolve('test/fixtures');

/** A workspace folder with the given files (relative path → text), and a `.waymark` folder. */
const workspace = (files: Record<string, string>) => makeWorkspace(files, { prefix: 'wm-project-' });

function wf(id: string, status: string, extra = ''): string {
  return `---\nworkflow: ${id}\nstatus: ${status}\nstepsCompleted: []\n${extra}---\n# ${id}\n`;
}

async function view(roots: string[], now = new Date()): Promise<ProjectView> {
  const core = createStateCore({ roots, memory: false });
  try {
    return await loadProject(core, { now });
  } finally {
    await core.close();
  }
}

const ids = (list: { id: string }[]) => list.map((e) => e.id);

describe('project registry: dependencies', () => {
  test('dependsOn / after by id, by path from the root and from the file; prerequisites done make it ready', async () => {
    const root = workspace({
      'a.md': wf('a', 'completed'),
      'b.md': wf('b', 'created', 'dependsOn: [a]\n'),
      'c.md': wf('c', 'created', 'after: sub/d.md\n'),
      'sub/d.md': wf('d', 'in_progress'),
      'sub/e.md': wf('e', 'created', 'dependsOn: [./d.md, a]\n'),
    });
    const v = await view([root]);
    assert.deepEqual(v.frontier.problems.filter((p) => p.code !== 'work-stalled'), []);
    assert.deepEqual(ids(v.frontier.ready), ['b']);
    assert.match(v.frontier.entries.get('b')!.reason, /prerequisite is done/);
    const c = v.frontier.entries.get('c')!;
    assert.equal(c.column, 'blocked');
    assert.deepEqual(c.waitingOn, ['d']);
    assert.match(c.reason, /waits on d \(in progress\)/);
    assert.deepEqual(v.frontier.entries.get('e')!.waitingOn, ['d']);
  });

  test('unknown target, self and cycles are problems at the entry, the cycle named; cycle members are blocked', async () => {
    const root = workspace({
      'x.md': wf('x', 'created', 'dependsOn:\n  - nope\n'),
      'y.md': wf('y', 'created', 'dependsOn: [y]\n'),
      'p.md': wf('p', 'created', 'dependsOn: [q]\n'),
      'q.md': wf('q', 'created', 'dependsOn: [r]\n'),
      'r.md': wf('r', 'created', 'after: [p]\n'),
    });
    const v = await view([root]);
    const byCode = (code: string) => v.frontier.problems.filter((p) => p.code === code);
    const unknown = byCode('depends-unknown');
    assert.equal(unknown.length, 1);
    assert.equal(path.basename(unknown[0].file), 'x.md');
    assert.equal(unknown[0].range.start.line, 5, 'the entry line, from the YAML parser (0-based)');
    assert.match(unknown[0].message, /'nope'/);
    assert.equal(byCode('depends-self').length, 1);
    const cycles = byCode('depends-cycle');
    assert.deepEqual(cycles.map((p) => path.basename(p.file)).sort(), ['p.md', 'q.md', 'r.md']);
    assert.match(cycles[0].message, /p → q → r → p|q → r → p → q|r → p → q → r/);
    for (const id of ['p', 'q', 'r']) assert.equal(v.frontier.entries.get(id)!.column, 'blocked', id);
    assert.match(v.frontier.entries.get('p')!.reason, /cycle/);
    // x's only entry is unknown: nothing to wait on.
    assert.ok(ids(v.frontier.ready).includes('x'));
  });

  test('ids resolve across workspace folders', async () => {
    const api = workspace({ 'api.md': wf('api', 'in_progress') });
    const web = workspace({ 'web.md': wf('web', 'created', 'dependsOn: [api]\n') });
    const v = await view([api, web]);
    assert.deepEqual(v.frontier.entries.get('web')!.waitingOn, ['api']);
    assert.deepEqual(v.frontier.problems.filter((p) => p.code.startsWith('depends')), []);
  });

  test('an archived prerequisite still blocks unless waived', async () => {
    const root = workspace({
      'old.md': wf('old', 'archived'),
      'n1.md': wf('n1', 'created', 'dependsOn: [old]\n'),
      'n2.md': wf('n2', 'created', 'dependsOn: [old]\nwaive: [old]\n'),
    });
    const v = await view([root]);
    assert.equal(v.frontier.entries.get('n1')!.column, 'blocked');
    assert.match(v.frontier.entries.get('n1')!.reason, /dropped: waive it/);
    assert.deepEqual(ids(v.frontier.ready), ['n2']);
  });

  test('a delegation parent with waitForChildren waits on its children', async () => {
    const root = workspace({
      'parent.md': wf('parent', 'created', 'waitForChildren: true\ndelegation: {id: parent, parent_id: null, root_id: parent, depth: 0, chain_path: [parent]}\n'),
      'child.md': wf('child', 'in_progress', 'delegation: {id: kid, parent_id: parent, root_id: parent, depth: 1, chain_path: [parent, kid]}\n'),
    });
    const v = await view([root]);
    const e = v.frontier.entries.get('parent')!;
    assert.deepEqual(e.waitingOn, ['child']);
    assert.match(e.reason, /delegation/);
  });

  test('BMAD: each story waits on the one before it in its epic', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-project-bmad-'));
    fs.cpSync(path.join(FIX, 'bmad-v6'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
    const v = await view([dir], new Date('2025-10-21T12:00:00Z'));
    const e = v.frontier.entries.get('story:2-2-reports')!;
    assert.equal(e.column, 'blocked');
    assert.deepEqual(e.waitingOn, ['story:2-1-dashboard']);
    // 2.3 is planned in epics.md only; the ledger lacks it: sprint planning adds it first (inv34c), so it is
    // blocked with that reason and out of story order.
    const alerts = v.frontier.entries.get('story:2-3-alerts')!;
    assert.equal(alerts.column, 'blocked');
    assert.match(alerts.reason, /sprint planning/);
    assert.ok(!v.registry.edges.some((x) => x.kind === 'story-order' && x.from === 'story:2-3-alerts'));
    assert.deepEqual(v.frontier.criticalPath.slice(0, 2), ['story:2-1-dashboard', 'story:2-2-reports']);
  });

  test("BMAD: a scan that checked the sprint hands its reports on; the view built from them is the one built by reading again", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-project-bmad-'));
    fs.cpSync(path.join(FIX, 'bmad-v6'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
    const now = new Date('2025-10-21T12:00:00Z');
    const scan = await scanRoots([dir], { sprint: true, index: false, now: () => now });
    const reports = scan.sprints.get(dir);
    assert.ok(reports?.length, 'the scan kept the sprint it read');
    assert.deepEqual(reports.map((r) => r.root), loadSprints(dir, { now }).map((r) => r.root));
    const core = createStateCore({ roots: [dir], memory: false, scanIndex: false });
    try {
      const reread = await loadProject(core, { now, scan: { roots: scan.roots, workflows: scan.workflows } });
      const passed = await loadProject(core, { now, scan });
      const shape = (v: ProjectView) => ({ items: v.registry.items.map((i) => [i.id, i.state, i.file]), edges: v.registry.edges, columns: [...v.frontier.entries].map(([id, e]) => [id, e.column, e.waitingOn]), problems: v.frontier.problems, critical: v.frontier.criticalPath });
      assert.deepEqual(shape(passed), shape(reread));
      // Not read again: a ledger removed after the scan still shows in the view made from the scan.
      const ledger = reports[0].ledgerFile!;
      fs.rmSync(ledger);
      const afterRemoval = await loadProject(core, { now, scan });
      assert.deepEqual(shape(afterRemoval), shape(reread));
      assert.notDeepEqual(shape(await loadProject(core, { now, scan: { roots: scan.roots, workflows: scan.workflows } })), shape(reread));
    } finally {
      await core.close();
    }
  });
});

describe('project frontier', () => {
  test('ready order: unblocks most, then priority, then age; critical path is the longest remaining chain', async () => {
    const root = workspace({
      'lone-old.md': wf('lone-old', 'created', 'createdAt: "2026-01-01"\n'),
      'lone-new.md': wf('lone-new', 'created', 'createdAt: "2026-06-01"\n'),
      'lone-high.md': wf('lone-high', 'created', 'priority: high\ncreatedAt: "2026-09-01"\n'),
      'base.md': wf('base', 'created'),
      's1.md': wf('s1', 'created', 'dependsOn: [base]\n'),
      's2.md': wf('s2', 'created', 'dependsOn: [s1]\n'),
      'side.md': wf('side', 'created', 'dependsOn: [base]\n'),
      'done.md': wf('done', 'completed'),
    });
    const v = await view([root]);
    assert.deepEqual(ids(v.frontier.ready), ['base', 'lone-high', 'lone-old', 'lone-new']);
    assert.equal(v.frontier.ready[0].unblocks, 3);
    assert.match(v.frontier.ready[0].reason, /unblocks 3/);
    assert.deepEqual(v.frontier.criticalPath, ['base', 's1', 's2']);
    assert.deepEqual(ids(v.frontier.done), ['done']);
  });

  test('10,000 chained items: no stack overflow, the whole chain is the critical path', () => {
    const workflows: WorkflowState[] = [];
    for (let i = 0; i < 10_000; i++) {
      workflows.push({
        file: `/w/f${i}.md`, root: '/w', dialect: 'waymark', workflow: `f${i}`, status: 'created', stepsCompleted: [], steps: [], stepsSource: 'none',
        gates: {}, stateHash: '', contentHash: '', data: i ? { dependsOn: [`f${i - 1}`] } : {}, problems: [],
      });
    }
    const f = computeFrontier(buildRegistry(workflows, []), { now: new Date() });
    assert.equal(f.criticalPath.length, 10_000);
    assert.deepEqual(ids(f.ready), ['f0']);
    assert.equal(f.ready[0].unblocks, 9_999);
  });
});

describe('stalled work (derived, with an injected clock)', () => {
  test('a workflow quiet for longer than project.stalledAfter.workflow is stalled, with its last activity', async () => {
    const root = workspace({
      'w.md': wf('w', 'in_progress'),
      '.waymark/config.yaml': 'project:\n  stalledAfter:\n    workflow: 2d\n',
    });
    const t0 = new Date('2026-03-01T10:00:00Z');
    fs.utimesSync(path.join(root, 'w.md'), t0, t0);
    const fresh = await view([root], new Date('2026-03-02T10:00:00Z'));
    assert.deepEqual(fresh.frontier.stalled, []);
    assert.equal(fresh.frontier.entries.get('w')!.stalled, undefined);
    const late = await view([root], new Date('2026-03-04T10:00:00Z'));
    assert.deepEqual(ids(late.frontier.stalled), ['w']);
    const s = late.frontier.stalled[0].stalled!;
    assert.equal(s.kind, 'workflow');
    assert.equal(s.last?.source, 'file');
    assert.equal(s.last?.time, t0.toISOString());
    const p = late.frontier.problems.find((x) => x.code === 'work-stalled')!;
    assert.equal(p.severity, 'warning');
    assert.match(p.message, /untouched for 3 days \(threshold 2 days/);
    // Derived, never written: the file is unchanged.
    assert.equal(fs.readFileSync(path.join(root, 'w.md'), 'utf8'), wf('w', 'in_progress'));
  });

  test("a file's last edit is the same whether its state was parsed, restored from the scan index, or stat-ed here", async () => {
    const root = workspace({ 'w.md': wf('w', 'in_progress'), 'x.md': wf('x', 'in_progress') });
    // A fractional millisecond: Stats.mtime rounds it, and so must a time taken from the scan's stat.
    const t0 = new Date('2026-03-01T10:00:00.123Z').getTime() / 1000 + 0.0006789;
    for (const f of ['w.md', 'x.md']) fs.utimesSync(path.join(root, f), t0, t0);
    const expected = fs.statSync(path.join(root, 'w.md')).mtime.toISOString();
    const now = new Date('2026-04-01T10:00:00Z');
    const lastOf = async (workflows: WorkflowState[]) => {
      const core = createStateCore({ roots: [root], memory: false, scanIndex: false });
      try {
        const v = await loadProject(core, { now, scan: { roots: [root], workflows } });
        return ids(v.frontier.stalled).map((id) => `${id} ${v.frontier.entries.get(id)!.stalled!.last?.time}`);
      } finally {
        await core.close();
      }
    };
    const want = [`w ${expected}`, `x ${expected}`];
    const parsed = await scanRoots([root], { indexWrite: 'sync', racyWindowMs: 0 });
    await parsed.indexWritten;
    assert.deepEqual(await lastOf(parsed.workflows), want);
    const restored = await scanRoots([root], { racyWindowMs: 0 });
    // Restored, not parsed: a file whose change time falls in the scan's own millisecond is racy and
    // verified by content first, restored all the same.
    assert.equal(restored.index[0].hits + restored.index[0].verified, 2);
    assert.equal(restored.index[0].parsed, 0);
    assert.deepEqual(await lastOf(restored.workflows), want);
    // States this process did not read (copies, another face's): stat-ed by the view itself.
    assert.deepEqual(await lastOf(restored.workflows.map((w) => ({ ...w }))), want);
  });

  test('history is activity: a write through the core resets the idle time and names who', async () => {
    const root = workspace({ 'w.md': wf('w', 'created', 'steps: [one, two]\n') });
    const core = createStateCore({ roots: [root], memory: false, actor: 'dev-agent' });
    try {
      await core.scan();
      await core.start(path.join(root, 'w.md'));
    } finally {
      await core.close();
    }
    const old = new Date('2020-01-01T00:00:00Z');
    fs.utimesSync(path.join(root, 'w.md'), old, old);
    // The write also logged an event (its own test below): history alone here.
    fs.rmSync(path.join(root, '.waymark', 'events'), { recursive: true, force: true });
    const v = await view([root], new Date(Date.now() + 4 * 86_400_000));
    const s = v.frontier.stalled[0]?.stalled;
    assert.equal(s?.last?.source, 'history');
    assert.equal(s?.last?.who, 'dev-agent');
  });

  test('a workflow an agent session holds (a lease) stalls after minutes, not days', async () => {
    const root = workspace({ 'w.md': wf('w', 'in_progress'), '.waymark/config.yaml': 'project:\n  stalledAfter:\n    session: 20m\n' });
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.protocol.acquireLease(root, path.join(root, 'w.md'), { agent: 'claude', host: os.hostname() }, { ttlMs: 3_600_000 });
    } finally {
      await core.close();
    }
    const soon = await view([root], new Date(Date.now() + 10 * 60_000));
    assert.deepEqual(soon.frontier.stalled, []);
    const later = await view([root], new Date(Date.now() + 40 * 60_000));
    assert.deepEqual(ids(later.frontier.stalled), ['w']);
    assert.equal(later.frontier.stalled[0].stalled!.kind, 'session');
    assert.equal(later.frontier.stalled[0].stalled!.thresholdMs, 20 * 60_000);
  });

  test('a bad stalledAfter value is a config problem and the default is used', async () => {
    const root = workspace({ 'w.md': wf('w', 'in_progress'), '.waymark/config.yaml': 'project:\n  stalledAfter:\n    workflow: soon\n' });
    const core = createStateCore({ roots: [root], memory: false });
    try {
      const scan = await core.scan();
      const p = scan.problems.find((x) => x.code === 'config-invalid');
      assert.ok(p, 'config-invalid reported');
      assert.match(p!.message, /project\.stalledAfter\.workflow/);
      assert.equal(p!.range.start.line, 2);
      const v = await loadProject(core, { scan, now: new Date(Date.now() + 2 * 86_400_000) });
      assert.deepEqual(v.frontier.stalled, [], 'the default (3d) is used');
    } finally {
      await core.close();
    }
  });
});

describe('project CLI', () => {
  async function cli(cwd: string, ...argv: string[]) {
    let out = '';
    let err = '';
    const code = await runCli(projectCommands, argv, { cwd, stdout: (t) => (out += t), stderr: (t) => (err += t) });
    return { code, out, err };
  }

  test('next, board, deps and their errors', async () => {
    const root = workspace({ 'a.md': wf('a', 'created'), 'b.md': wf('b', 'created', 'dependsOn: [a, ghost]\n') });
    const next = await cli(root, 'next', '--json');
    assert.equal(next.code, 0, next.err);
    const j = JSON.parse(next.out);
    assert.equal(j.next.id, 'a');
    assert.match(j.next.reason, /unblocks 1/);
    const board = await cli(root, 'board');
    assert.equal(board.code, 1, 'a dependency error found');
    assert.match(board.out, /Blocked \(1\)\n {2}· b {2}— waits on a/);
    assert.match(board.out, /b\.md:5: .*'ghost'/);
    const deps = await cli(root, 'deps', 'b.md', '--json');
    assert.equal(deps.code, 0, deps.err);
    assert.deepEqual(JSON.parse(deps.out).waitsOn.map((w: { id: string }) => w.id), ['a']);
    const depsA = await cli(root, 'deps', 'a');
    assert.match(depsA.out, /Waited on by \(1\):\n {2}· b/);
    const typo = await cli(root, 'next', '--jsn');
    assert.equal(typo.code, 2);
    assert.match(typo.err, /unknown option --jsn; did you mean --json\?/);
    const missing = await cli(root, 'deps', 'nothing-here');
    assert.equal(missing.code, 2);
    assert.match(missing.err, /nothing-here is no workflow or story/);
    const badNow = await cli(root, 'next', '--now', 'yesterday');
    assert.equal(badNow.code, 2);
  });

  test('timeline lists state changes from history, filtered by --since and --file', async () => {
    const root = workspace({ 'a.md': wf('a', 'created', 'steps: [one, two]\n'), 'b.md': wf('b', 'created') });
    const core = createStateCore({ roots: [root], memory: false, actor: 'maria' });
    try {
      await core.scan();
      await core.start(path.join(root, 'a.md'));
      await core.start(path.join(root, 'b.md'));
    } finally {
      await core.close();
    }
    const all = await cli(root, 'timeline', '--json');
    assert.equal(all.code, 0, all.err);
    const rows = JSON.parse(all.out).changes;
    assert.deepEqual(rows.map((r: { id: string }) => r.id).sort(), ['a', 'b']);
    assert.equal(rows[0].actor, 'maria');
    const one = await cli(root, 'timeline', '--file', 'a.md', '--json');
    assert.deepEqual(JSON.parse(one.out).changes.map((r: { id: string }) => r.id), ['a']);
    const future = await cli(root, 'timeline', '--since', '2999-01-01');
    assert.equal(future.code, 1);
    assert.match(future.out, /No state changes recorded since 2999-01-01/);
  });
});

describe('git timeline (a real repository built here)', () => {
  test("state changes made before Waymark, recovered from the frontmatter's git history; cached by HEAD", async () => {
    const { spawnSync } = await import('node:child_process');
    const root = workspace({ 'feature.md': wf('feature', 'created', 'steps: [plan, build]\n'), 'notes.md': '# Notes\n\nstatus: this prose line is not state\n' });
    const git = (...args: string[]) => {
      const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: '2026-02-01T10:00:00Z', GIT_COMMITTER_DATE: '2026-02-01T10:00:00Z' } });
      assert.equal(r.status, 0, r.stderr);
    };
    git('init', '-q');
    git('-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', 'add', '.');
    git('-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', 'commit', '-qm', 'start');
    fs.writeFileSync(path.join(root, 'feature.md'), wf('feature', 'in_progress', 'steps: [plan, build]\ncurrentStep: build\n').replace('stepsCompleted: []', 'stepsCompleted: [plan]'));
    fs.appendFileSync(path.join(root, 'notes.md'), 'status: more prose\n');
    git('-c', 'user.name=Bo', '-c', 'user.email=bo@example.com', 'commit', '-qam', 'plan done');
    const { gitStateTimeline } = await import('../../src/core/index');
    const first = await gitStateTimeline(root);
    assert.equal(first.cached, false);
    const feature = first.changes.filter((c) => c.file === 'feature.md');
    assert.equal(feature.length, 2);
    assert.equal(feature[1].author, 'Bo');
    assert.deepEqual(feature[1].changes.status, { from: 'created', to: 'in_progress' });
    assert.deepEqual(feature[1].changes.stepsCompleted, { from: '[]', to: '[plan]' });
    assert.deepEqual(feature[1].changes.currentStep, { to: 'build' });
    const again = await gitStateTimeline(root);
    assert.equal(again.cached, true);
    assert.deepEqual(again.changes, first.changes);
    // Through the CLI, merged with Waymark's history and filtered.
    let out = '';
    const code = await runCli(projectCommands, ['timeline', '--file', 'feature.md', '--json'], { cwd: root, stdout: (t) => (out += t), stderr: () => {} });
    assert.equal(code, 0);
    const rows = JSON.parse(out).changes;
    assert.deepEqual(rows.map((r: { source: string; actor: string }) => `${r.source} ${r.actor}`), ['git Ana', 'git Bo']);
    // A file that is no workflow (a `status:` line in prose) is not in the project's timeline.
    out = '';
    await runCli(projectCommands, ['timeline', '--json'], { cwd: root, stdout: (t) => (out += t), stderr: () => {} });
    assert.deepEqual([...new Set(JSON.parse(out).changes.map((r: { file: string }) => r.file))], ['feature.md']);
    // A clean tracked file's last change is its commit, not its mtime (a clone sets every mtime to now).
    const v = await view([root], new Date('2026-02-10T10:00:00Z'));
    assert.deepEqual(ids(v.frontier.stalled), ['feature']);
    assert.equal(v.frontier.stalled[0].stalled!.last?.time, '2026-02-01T10:00:00.000Z');
    assert.match(v.frontier.stalled[0].stalled!.last?.who ?? '', /^Bo/);
    // A local edit is activity now.
    fs.appendFileSync(path.join(root, 'feature.md'), 'edited\n');
    const edited = await view([root], new Date(Date.now() + 60_000));
    assert.deepEqual(edited.frontier.stalled, []);
    const outside = await gitStateTimeline(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-nogit-')));
    assert.ok(outside.unavailable);
  });
});

describe('stalled work: git is asked about every in-progress file, several at a time', () => {
  test('clean tracked files in two folders get their commits, a changed one its edit, a folder outside any repository its mtime', async () => {
    const { spawnSync } = await import('node:child_process');
    const root = workspace({ 'a/one.md': wf('one', 'in_progress'), 'a/two.md': wf('two', 'in_progress'), 'b/three.md': wf('three', 'in_progress'), 'b/four.md': wf('four', 'in_progress'), 'b/five.md': wf('five', 'in_progress') });
    const git = (...args: string[]) => {
      const r = spawnSync('git', ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: '2026-02-01T10:00:00Z', GIT_COMMITTER_DATE: '2026-02-01T10:00:00Z' } });
      assert.equal(r.status, 0, r.stderr);
    };
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'start');
    fs.appendFileSync(path.join(root, 'b/five.md'), 'edited\n');
    const v = await view([root], new Date('2026-02-10T10:00:00Z'));
    const last = new Map(v.frontier.stalled.map((e) => [e.id, e.stalled!.last]));
    assert.deepEqual([...last.keys()].sort(), ['four', 'one', 'three', 'two']);
    for (const id of ['one', 'two', 'three', 'four']) {
      assert.equal(last.get(id)?.time, '2026-02-01T10:00:00.000Z', id);
      assert.equal(last.get(id)?.who, 'Ana (git commit)', id);
    }
    // No repository: file times, and no git started (a folder with no .git up to the root).
    const plain = workspace({ 'c/six.md': wf('six', 'in_progress') });
    const old = new Date('2026-01-01T00:00:00Z');
    fs.utimesSync(path.join(plain, 'c/six.md'), old, old);
    const p = await view([plain], new Date('2026-02-10T10:00:00Z'));
    assert.equal(p.frontier.stalled[0]?.stalled?.last?.time, old.toISOString());
  });
});

describe('stalled work: events are activity', () => {
  test('an event about the file (another process, a hook) counts; a folder where the log should be is skipped', async () => {
    const root = workspace({ 'w.md': wf('w', 'in_progress') });
    const old = new Date('2026-01-01T00:00:00Z');
    fs.utimesSync(path.join(root, 'w.md'), old, old);
    fs.mkdirSync(path.join(root, '.waymark', 'events'), { recursive: true });
    fs.writeFileSync(
      path.join(root, '.waymark', 'events', 'events.jsonl'),
      `{"seq":1,"time":"2026-01-05T00:00:00.000Z","type":"lease.renew","file":"w.md","actor":"claude"}\n{"seq":2,"time":"2026-01-0\n`,
    );
    const v = await view([root], new Date('2026-01-06T00:00:00Z'));
    assert.deepEqual(v.frontier.stalled, [], 'one day since the event: not stalled (3d)');
    const later = await view([root], new Date('2026-01-09T00:00:00Z'));
    assert.equal(later.frontier.stalled[0]?.stalled?.last?.source, 'event');
    assert.equal(later.frontier.stalled[0]?.stalled?.last?.who, 'claude');
    fs.rmSync(path.join(root, '.waymark', 'events'), { recursive: true });
    fs.mkdirSync(path.join(root, '.waymark', 'events', 'events.jsonl'), { recursive: true });
    const folder = await view([root], new Date('2026-01-09T00:00:00Z'));
    assert.equal(folder.frontier.stalled[0]?.stalled?.last?.source, 'file');
  });
});

describe('validate checks the project as a whole', () => {
  async function validate(cwd: string, ...argv: string[]) {
    const { readCommands } = await import('../../src/cli/readCommands');
    let out = '';
    let err = '';
    const code = await runCli(readCommands, ['validate', ...argv], { cwd, stdout: (t) => (out += t), stderr: (t) => (err += t) });
    return { code, out, err };
  }

  test('an unknown dependsOn target, a self-dependency and a cycle are errors at their entry; exit 1', async () => {
    const root = workspace({
      'a.md': wf('a', 'created', 'dependsOn: [b]\n'),
      'b.md': wf('b', 'created', 'after: a\n'),
      'c.md': wf('c', 'created', 'dependsOn:\n  - ghost\n  - c\n'),
      'ok.md': wf('ok', 'created', 'dependsOn: [a]\n'),
    });
    const r = await validate(root, '--json');
    assert.equal(r.code, 1, r.err);
    const probs = (JSON.parse(r.out) as { problems: { file: string; line: number; code: string; message: string }[] }).problems;
    const codes = probs.filter((p) => p.code.startsWith('depends-')).map((p) => `${p.file}:${p.code}`).sort();
    assert.deepEqual(codes, ['a.md:depends-cycle', 'b.md:depends-cycle', 'c.md:depends-self', 'c.md:depends-unknown'].sort());
    const ghost = probs.find((p) => p.code === 'depends-unknown')!;
    assert.equal(ghost.line, 6, 'the line of the ghost entry');
    assert.match(probs.find((p) => p.code === 'depends-cycle')!.message, /a → b → a|b → a → b/);
    // Validating one file keeps to that file's problems.
    const one = await validate(root, 'ok.md', '--json');
    assert.equal(one.code, 0, one.out);
    assert.deepEqual((JSON.parse(one.out) as { problems: { code: string }[] }).problems.filter((p) => p.code.startsWith('depends-')), []);
  });

  test('stalled in-progress work is a warning on its status line, naming the last activity; exit stays 0', async () => {
    const root = workspace({ 'quiet.md': wf('quiet', 'in_progress'), 'busy.md': wf('busy', 'in_progress') });
    const old = new Date(Date.now() - 10 * 86_400_000);
    fs.utimesSync(path.join(root, 'quiet.md'), old, old);
    const r = await validate(root);
    assert.equal(r.code, 0, r.out + r.err);
    const lines = r.out.split('\n').filter((l) => l.includes('work-stalled'));
    assert.equal(lines.length, 1, r.out);
    assert.match(lines[0], /^quiet\.md:3:9 warning work-stalled In progress but untouched for 10 d/);
    assert.match(lines[0], /last activity: file/);
  });
});

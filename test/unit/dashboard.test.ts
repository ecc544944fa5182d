// The dashboard's view model (core/project/dashboard.ts) on real workspaces: real files, real
// history written by the core, a real git repository, the BMAD fixture.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createStateCore, dashboardModel as model, trackerHealth, dashboardTracker, gitStateTimeline, loadProject, projectTimeline, workflowStateLine, type DashboardOptions, type GitTimeline, type ProjectView, type TimelineChange } from '../../src/core/index';
import { fakeGitHub, githubConfig, project, withCore } from './ticketsHelpers';
import { workspace as makeWorkspace } from './fileHelpers';

/** The model as the extension builds it: lines read from the files shown. */
const dashboardModel = (v: ProjectView, t: TimelineChange[], o: DashboardOptions = {}) => model(v, t, { lineOf: (i) => (i.file ? workflowStateLine(i.file) : undefined), ...o });

const FIX = path.resolve('test/fixtures');

const workspace = (files: Record<string, string>) => makeWorkspace(files, { prefix: 'wm-dash-' });

function wf(id: string, status: string, extra = ''): string {
  return `---\nworkflow: ${id}\ntitle: The ${id} work\n${extra}status: ${status}\nstepsCompleted: []\n---\n# ${id}\n`;
}

async function load(roots: string[], now: Date): Promise<ProjectView> {
  const core = createStateCore({ roots, memory: false });
  try {
    return await loadProject(core, { now });
  } finally {
    await core.close();
  }
}

describe('dashboard view model', () => {
  test('columns, the ready frontier with what each unblocks, stalled work, chains, and each item at its state line', async () => {
    const root = workspace({
      'a.md': wf('a', 'completed'),
      'b.md': wf('b', 'created', 'dependsOn: [a]\n'),
      'c.md': wf('c', 'created', 'dependsOn: [b]\n'),
      'd.md': wf('d', 'created', 'dependsOn: [c]\n'),
      'lone.md': wf('lone', 'created'),
      'quiet.md': wf('quiet', 'in_progress', 'steps: [one, two]\n'),
      'busy.md': wf('busy', 'in_progress'),
      'rev.md': wf('rev', 'review'),
      'old.md': wf('old', 'archived'),
      'parent.md': wf('parent', 'created', 'waitForChildren: true\ndelegation: {id: parent, parent_id: null, root_id: parent, depth: 0, chain_path: [parent]}\n'),
      'kid.md': wf('kid', 'in_progress', 'delegation: {id: kid, parent_id: parent, root_id: parent, depth: 1, chain_path: [parent, kid]}\n'),
    });
    const now = new Date();
    // quiet.md was last touched ten days ago; everything else just now.
    const tenDaysAgo = new Date(now.getTime() - 10 * 86_400_000);
    fs.utimesSync(path.join(root, 'quiet.md'), tenDaysAgo, tenDaysAgo);
    const m = dashboardModel(await load([root], now), []);

    const col = (k: string) => m.columns.find((c) => c.key === k)?.items;
    assert.deepEqual(m.columns.map((c) => c.title), ['Discovery queue', 'Active', 'QA / review queue', 'Blocked', 'Stalled', 'Shipped', 'Dropped', 'Sub-agent activity']);
    // b unblocks c and d (2), lone nothing: b first.
    assert.deepEqual(col('discovery'), ['b', 'lone']);
    assert.deepEqual(m.frontier, ['b', 'lone']);
    assert.deepEqual(m.items.b.unblocksIds, ['c']);
    assert.equal(m.items.b.unblocks, 2);
    assert.match(m.items.b.reason, /unblocks 2/);
    assert.equal(m.items.b.startable, true);
    assert.equal(m.items.c.startable, false);
    assert.deepEqual(col('blocked')!.sort(), ['c', 'd', 'parent']);
    assert.deepEqual(m.chains.find((x) => x.id === 'c')?.waitsOn, ['b']);
    assert.deepEqual(m.criticalPath, ['b', 'c', 'd']);
    assert.deepEqual(col('stalled'), ['quiet']);
    assert.deepEqual(m.stalled, ['quiet']);
    assert.equal(m.items.quiet.stalled?.idle, '10 days');
    assert.equal(m.items.quiet.stalled?.source, 'file');
    assert.equal(m.items.quiet.stalled?.lastActivity, tenDaysAgo.toISOString());
    assert.deepEqual(col('active')!.sort(), ['busy', 'kid']);
    assert.deepEqual(col('review'), ['rev']);
    assert.deepEqual(col('shipped'), ['a']);
    assert.deepEqual(col('dropped'), ['old']);
    assert.deepEqual(col('subagents'), ['kid']);
    assert.equal(m.items.kid.parent, 'parent');
    assert.deepEqual(m.summary, { total: 11, ready: 2, active: 2, review: 1, blocked: 3, stalled: 1, done: 1, problems: m.problems.length });
    // The line of the state: `status:` is line 3 (0-based) of b.md (after workflow, title, dependsOn).
    assert.equal(m.items.b.line, 4);
    assert.equal(fs.readFileSync(m.items.b.file!, 'utf8').split('\n')[m.items.b.line], 'status: created');
    assert.equal(fs.readFileSync(m.items.lone.file!, 'utf8').split('\n')[m.items.lone.line], 'status: created');
    // Bounded: with one item per column, only what is shown is in the model, and only their lines are read.
    const asked: string[] = [];
    const small = model(await load([root], now), [], { maxPerColumn: 1, lineOf: (i) => (asked.push(i.id), 0) });
    assert.deepEqual(small.columns.find((c) => c.key === 'discovery')!.items, ['b']);
    assert.equal(small.summary.ready, 2, 'the summary still counts every item');
    assert.ok(!('lone' in small.items), 'an item no column shows is left out');
    assert.deepEqual(Object.keys(small.items).sort(), [...new Set(asked)].sort());
    // Plain data: survives JSON unchanged.
    assert.deepEqual(JSON.parse(JSON.stringify(m)), m);
    assert.equal(m.timeline.total, 0);
    assert.deepEqual(m.timeline.days, []);
  });

  test('the timeline: per-day counts over every day from first to last change, and one swimlane per item, latest first', async () => {
    const root = workspace({ 'feature.md': wf('feature', 'created', 'steps: [plan, build]\n'), 'other.md': wf('other', 'created'), 'notes.md': '# Notes\n\nstatus: prose\n' });
    const git = (date: string, ...args: string[]) => {
      const r = spawnSync('git', ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
      assert.equal(r.status, 0, r.stderr);
    };
    git('2026-02-01T10:00:00Z', 'init', '-q');
    git('2026-02-01T10:00:00Z', 'add', '.');
    git('2026-02-01T10:00:00Z', 'commit', '-qm', 'start');
    fs.writeFileSync(path.join(root, 'feature.md'), wf('feature', 'blocked', 'steps: [plan, build]\n'));
    git('2026-02-03T09:00:00Z', 'commit', '-qam', 'blocked');
    // Then Waymark's own history: other.md started through the core (now).
    const core = createStateCore({ roots: [root], memory: false, actor: 'maria' });
    try {
      await core.scan();
      await core.start(path.join(root, 'other.md'));
    } finally {
      await core.close();
    }
    const view = await load([root], new Date());
    const gits = new Map<string, GitTimeline>([[root, await gitStateTimeline(root)]]);
    const changes = projectTimeline(view, gits);
    const m = dashboardModel(view, changes, { maxDays: 400 });
    assert.equal(m.timeline.total, 4);
    const days = m.timeline.days;
    assert.equal(days[0].date, '2026-02-01');
    assert.equal(days[0].git, 2, 'two files added in the first commit (notes.md is no item)');
    assert.equal(days[1].date, '2026-02-02');
    assert.equal(days[1].git + days[1].waymark, 0, 'a quiet day is still a bar slot');
    assert.equal(days[2].git, 1);
    assert.equal(days[days.length - 1].waymark, 1);
    for (let i = 1; i < days.length; i++) assert.equal(Date.parse(days[i].date) - Date.parse(days[i - 1].date), 86_400_000);
    assert.deepEqual(m.timeline.lanes.map((l) => l.id), ['other', 'feature']);
    const feature = m.timeline.lanes[1];
    assert.deepEqual(feature.marks.map((k) => k.tone), ['other', 'blocked']);
    assert.match(feature.marks[1].label, /status: "created" → "blocked"/);
    assert.equal(feature.marks[1].actor, 'Ana');
    assert.equal(feature.file, path.join(root, 'feature.md'));
    const other = m.timeline.lanes[0];
    assert.deepEqual(other.marks.map((k) => k.source), ['git', 'waymark']);
    assert.equal(other.marks[1].tone, 'started');
    assert.equal(other.marks[1].actor, 'maria');
    // maxDays keeps the latest days.
    const short = dashboardModel(view, changes, { maxDays: 3 });
    assert.equal(short.timeline.days.length, 3);
    assert.equal(short.timeline.days[2].date, days[days.length - 1].date);
  });

  test('BMAD stories: columns by the ledger, and the story file at its Status line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-dash-bmad-'));
    fs.cpSync(path.join(FIX, 'bmad-v6'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
    const m = dashboardModel(await load([dir], new Date('2025-10-21T12:00:00Z')), []);
    const s = m.items['story:2-1-dashboard'];
    assert.equal(s.kind, 'story');
    assert.equal(fs.readFileSync(s.file!, 'utf8').split('\n')[s.line], 'Status: in-progress');
    assert.ok(m.columns.find((c) => c.key === 'blocked')!.items.includes('story:2-2-reports'));
    assert.ok(m.columns.find((c) => c.key === 'shipped')!.items.includes('story:1-1-user-login'));
  });
});

describe('dashboard view model: names', () => {
  test('two items with one title (an epics.md per epic folder) are told apart by their folder; a unique title is left alone', async () => {
    const root = workspace({
      'epics/e1/epics.md': wf('epics-one', 'created').replace('title: The epics-one work', 'title: epics'),
      'epics/e2/epics.md': wf('epics-two', 'created').replace('title: The epics-two work', 'title: epics'),
      'solo.md': wf('solo', 'created'),
    });
    const m = dashboardModel(await load([root], new Date()), []);
    const titles = Object.values(m.items).map((i) => i.title).sort();
    assert.deepEqual(titles, ['The solo work', 'epics (e1)', 'epics (e2)']);
  });
});

describe('dashboard view model: tracker health and worktree chips', () => {
  test('a tracker that is down: the store shows `open until …`, its failures, the last error and the changes queued; closed before any call', async () => {
    const gh = await fakeGitHub();
    const root = workspace({ 'a.md': wf('a', 'created'), 'b.md': wf('b', 'created') });
    fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), githubConfig('  breaker: { failures: 1, halfOpenAfterMs: 600000, timeoutMs: 1000, retries: 0 }\n'));
    const health = async () => withCore(root, async (core) => trackerHealth(root, (await core.contextFor(path.join(root, 'x'))).config).map((h) => ({ ...h, root })));
    try {
      const view = await load([root], new Date());
      // Before any call: closed, nothing queued.
      const before = dashboardModel(view, [], { tracker: await health() });
      assert.deepEqual(before.tracker.map((t) => [t.store, t.kind, t.state, t.label, t.failures, t.queued, t.lastError]), [['github', 'github', 'closed', 'closed', 0, 0, null]]);
      assert.equal((await project(root, { apiUrl: gh.url })).created.length, 2);
      // The tracker goes away; a change is made and projected: one failure opens the breaker.
      await gh.stop();
      await withCore(root, (core) => core.start(path.join(root, 'a.md')));
      const down = await project(root, { apiUrl: gh.url });
      assert.ok(down.outage);
      const m = dashboardModel(view, [], { tracker: await health() });
      const t = m.tracker[0];
      assert.equal(t.state, 'open');
      assert.equal(t.failures, 1);
      assert.equal(t.queued, 1);
      assert.equal(t.root, root);
      assert.ok(t.retryAt && Date.parse(t.retryAt) > Date.now());
      assert.equal(t.label, `open until ${new Date(Date.parse(t.retryAt)).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
      assert.ok(t.lastError && t.lastError.length > 0, 'the last error is shown while open');
      assert.deepEqual(JSON.parse(JSON.stringify(m.tracker)), m.tracker);
      // Half-open in words; a closed breaker shows no stale error.
      assert.equal(dashboardTracker({ ...t, retryAt: undefined, lastError: 'x', state: 'half-open' }).label, 'half-open (the next call is a trial)');
      assert.equal(dashboardTracker({ ...t, retryAt: undefined, lastError: 'x', state: 'closed' }).lastError, null);
      // No tracker configured: nothing to show.
      assert.deepEqual(dashboardModel(view, []).tracker, []);
    } finally {
      await gh.stop();
    }
  });

  test('worktree chips: asked only for the items shown, carried with their tooltip', async () => {
    const root = workspace({ 'a.md': wf('a', 'created'), 'b.md': wf('b', 'in_progress') });
    const view = await load([root], new Date());
    const asked: string[] = [];
    const m = dashboardModel(view, [], {
      maxPerColumn: 1,
      worktreesOf: (it) => (asked.push(it.id), it.id === 'b' ? [{ label: '⎇ review in feat/2-3', tooltip: 'Ahead in worktree feat/2-3' }] : []),
    });
    assert.deepEqual(m.items.b.worktrees, [{ label: '⎇ review in feat/2-3', tooltip: 'Ahead in worktree feat/2-3' }]);
    assert.deepEqual(m.items.a.worktrees, []);
    assert.deepEqual(asked.sort(), Object.keys(m.items).sort());
  });
});

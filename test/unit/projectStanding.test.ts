// Work set aside or finished is never remaining work, on every face (session 38). A spec kept in
// `archive/` or archived under a dated name is set aside, a spec of an epic its ledger marks done is
// finished, whatever status the file kept: core/project/standing.ts says so once, and the registry
// (board, next, dashboard, MCP) and the editor's Workflows view and status bar read it. A dropped
// item is no remaining work: the critical path never ends at (or runs through) one, nor counts it
// among what a ready item unblocks. Each test failed before (WAYMARK_CLI=/work/scratch/base-s38/dist/cli.js
// for the CLI's; the in-process ones did not build: no `workflowStanding`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createStateCore, loadProject, loadSprint, standingKey, workflowStanding, type ProjectView } from '../../src/core/index';
import { workspace } from './fileHelpers';
import { cliJson, quickSpecInstall } from './holdoutHelpers';

const NOW = new Date('2026-04-20T12:00:00Z');

async function viewOf(root: string): Promise<ProjectView & { workflows: Awaited<ReturnType<ReturnType<typeof createStateCore>['scan']>>['workflows'] }> {
  const core = createStateCore({ roots: [root], memory: false });
  try {
    const scan = await core.scan();
    const view = await loadProject(core, { scan, now: NOW });
    return { ...view, workflows: scan.workflows };
  } finally {
    await core.close();
  }
}

function withRoot(files: Record<string, string>, check: (root: string) => Promise<void>): Promise<void> {
  const root = workspace(files, { prefix: 'wm-standing-', waymark: false });
  return check(root).finally(() => fs.rmSync(root, { recursive: true, force: true }));
}


const IA = '_bmad-output/implementation-artifacts';
const spec = (slug: string, status: string, extra = '') => `---\ntitle: '${slug}'\nslug: '${slug}'\n${extra}created: '2026-03-01'\nstatus: '${status}'\nstepsCompleted: [1, 2]\n---\n# Tech-Spec: ${slug}\n\n## Overview\n\nWhat changes.\n`;

const bmadProject: Record<string, string> = {
  ...quickSpecInstall,
  [`${IA}/sprint-status.yaml`]: 'development_status:\n  epic-3: done\n  3-1-wick-rework: done\n  epic-3-retrospective: done\n  epic-4: in-progress\n  4-1-oil-gauge: in-progress\n',
  [`${IA}/3-1-wick-rework.md`]: '# Story 3.1: Wick rework\n\nStatus: done\n\n## Story\n\nAs a keeper, I want new wicks, so that lamps burn longer.\n\n## Tasks\n\n- [x] Rework\n',
  [`${IA}/4-1-oil-gauge.md`]: '# Story 4.1: Oil gauge\n\nStatus: in-progress\n\n## Story\n\nAs a keeper, I want a gauge, so that I see the oil.\n\n## Tasks\n\n- [ ] Gauge\n',
  [`${IA}/tech-spec-slime-archived-2026-04-12.md`]: spec('slime', 'in-progress'),
  [`${IA}/archive/tech-spec-lamp-glass.md`]: spec('lamp-glass', 'in-progress'),
  [`${IA}/tech-spec-wick-rework.md`]: spec('wick-rework', 'in-progress', 'epic: 3\n'),
  [`${IA}/tech-spec-oil-gauge.md`]: spec('oil-gauge', 'in-progress', 'epic: 4\n'),
  [`${IA}/tech-spec-show-archived.md`]: spec('show-archived', 'in-progress'),
};

test('a spec set aside (archive/ folder, dated archived name) or of a finished epic stands so for every face: workflowStanding agrees with the board', async () => {
  await withRoot(bmadProject, async (root) => {
    const v = await viewOf(root);
    const sprints = v.sprints.get(root) ?? [];
    assert.ok(sprints.length, 'the ledger is read');
    const standing = (rel: string) => {
      const w = v.workflows.find((x) => x.file === path.join(root, rel));
      assert.ok(w, `${rel} is scanned as a workflow`);
      assert.equal(w.status, 'in_progress', `${rel}'s own status`);
      const s = workflowStanding(w, sprints);
      return s && { status: s.status, reason: s.reason, message: s.message };
    };
    assert.deepEqual(standing(`${IA}/tech-spec-slime-archived-2026-04-12.md`), { status: 'archived', reason: 'archived-name', message: 'set aside: archived under a dated name' });
    assert.deepEqual(standing(`${IA}/archive/tech-spec-lamp-glass.md`), { status: 'archived', reason: 'retired-folder', message: 'set aside: kept in archive/ for the record' });
    assert.deepEqual(standing(`${IA}/tech-spec-wick-rework.md`), { status: 'completed', reason: 'epic-done', message: 'finished: epic 3 is done in the sprint ledger' });
    assert.equal(standing(`${IA}/tech-spec-oil-gauge.md`), undefined, 'an open epic\'s spec stands where its status says');
    assert.equal(standing(`${IA}/tech-spec-show-archived.md`), undefined, 'a spec about archiving is work');
    // Without the sprints (before a face has read them) the path rules still hold; the epic's needs its ledger.
    const wick = v.workflows.find((x) => x.file.endsWith('tech-spec-wick-rework.md'))!;
    assert.equal(workflowStanding(wick), undefined);
    // The board reads the same decision: every workflow item's column is its standing's.
    const column = { archived: 'dropped', completed: 'done' } as const;
    for (const w of v.workflows) {
      const item = v.registry.items.find((it) => it.file === w.file && it.kind === 'workflow');
      if (!item) continue;
      const s = workflowStanding(w, sprints);
      if (s) assert.equal(item.state, column[s.status], path.relative(root, w.file));
      else assert.ok(item.state !== 'dropped' && item.state !== 'done', path.relative(root, w.file));
    }
  });
});

test('finished or archived work keeps its own status; a Waymark workflow kept in a retired folder is set aside too', async () => {
  await withRoot({
    'work/archive/old-release.md': '---\nworkflow: old-release\nstatus: in_progress\nsteps: [plan, ship]\nstepsCompleted: [plan]\n---\n# Old\n',
    'work/archive/shipped.md': '---\nworkflow: shipped\nstatus: completed\nsteps: [plan, ship]\nstepsCompleted: [plan, ship]\n---\n# Shipped\n',
    'work/live.md': '---\nworkflow: live\nstatus: in_progress\nsteps: [plan, ship]\nstepsCompleted: [plan]\n---\n# Live\n',
  }, async (root) => {
    const v = await viewOf(root);
    const of = (name: string) => workflowStanding(v.workflows.find((w) => w.workflow === name)!)?.status;
    assert.equal(of('old-release'), 'archived');
    assert.equal(of('shipped'), undefined);
    assert.equal(of('live'), undefined);
  });
});

test('standingKey: the same ledgers read again give the same key (a face keeps its standings); an epic finished changes it', async () => {
  await withRoot(bmadProject, async (root) => {
    const read = () => { const s = loadSprint(root, { now: NOW, cache: false }); return s ? [s] : []; };
    const first = standingKey(read());
    assert.notEqual(first, '');
    assert.equal(standingKey(read()), first, 'a second read of unchanged ledgers');
    assert.equal(standingKey(undefined), standingKey([]));
    const ledger = path.join(root, IA, 'sprint-status.yaml');
    fs.writeFileSync(ledger, fs.readFileSync(ledger, 'utf8').replace('epic-4: in-progress\n  4-1-oil-gauge: in-progress', 'epic-4: done\n  4-1-oil-gauge: done'));
    const after = read();
    assert.notEqual(standingKey(after), first);
    const v = await viewOf(root);
    const oil = v.workflows.find((w) => w.file.endsWith('tech-spec-oil-gauge.md'))!;
    assert.equal(workflowStanding(oil, after)?.status, 'completed');
  });
});

const wf = (id: string, status: string, extra = '') => `---\nworkflow: ${id}\nstatus: ${status}\nstepsCompleted: []\n${extra}---\n# ${id}\n`;

test('the critical path never ends at or runs through a dropped item, and a ready item does not count dropped work among what it unblocks', async () => {
  await withRoot({
    '.waymark/config.yaml': 'version: 1\n',
    'a.md': wf('a', 'created'),
    'b.md': wf('b', 'created', 'dependsOn: [a]\n'),
    // Archived (its own status) and set aside (kept in archive/): neither is work left after b.
    'c.md': wf('c', 'archived', 'dependsOn: [b]\n'),
    'archive/d.md': wf('d', 'in_progress', 'dependsOn: [c]\n'),
    // x waits on a dropped item that waits on y: the chain y → dropped → x is no chain of work.
    'y.md': wf('y', 'created'),
    'z.md': wf('z', 'archived', 'dependsOn: [y]\n'),
    'x.md': wf('x', 'created', 'dependsOn: [z]\n'),
  }, async (root) => {
    const v = await viewOf(root);
    const f = v.frontier;
    assert.deepEqual(f.dropped.map((e) => e.id).sort(), ['c', 'd', 'z']);
    assert.deepEqual(f.criticalPath, ['a', 'b']);
    for (const id of ['c', 'd', 'z']) assert.equal(f.entries.get(id)!.depth, 0, `${id} is no remaining work`);
    assert.equal(f.entries.get('a')!.unblocks, 1, 'a unblocks b, not the dropped c and d');
    assert.equal(f.entries.get('y')!.unblocks, 0, 'y unblocks nothing: z is dropped (x waits for a waiver)');
    const x = f.entries.get('x')!;
    assert.equal(x.column, 'blocked');
    assert.deepEqual(x.waitingOn, ['z']);
    assert.equal(x.depth, 1);
    // The CLI's faces (next, board) print the same path (the MCP tools answer with the same JSON).
    for (const verb of ['next', 'board']) assert.deepEqual(cliJson(root, verb, '.', '--now', NOW.toISOString()).criticalPath, ['a', 'b'], verb);
  });
});

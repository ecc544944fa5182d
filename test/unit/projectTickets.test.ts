// BMAD v7 tickets in the project view (dashboard, board, deps): one item per ticket with BMAD's
// state in the board's words, `after` and epic gates as edges, a prerequisite in review meeting an
// `after` as in `tickets.py next`; a migrated project's archived ledger counted nowhere.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore, loadProject, dashboardModel, type ProjectView } from '../../src/core/index';

const FIXTURE = path.resolve('test/fixtures/bmad-v7-sprint');

function copyFixture(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-v7-project-'));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

async function view(root: string): Promise<ProjectView> {
  const core = createStateCore({ roots: [root], memory: false });
  try {
    return await loadProject(core, { now: new Date('2026-11-28T00:00:00Z'), git: false });
  } finally {
    await core.close();
  }
}

const column = (v: ProjectView, id: string) => v.frontier.entries.get(id)?.column;

describe('project view: BMAD v7 tickets', () => {
  test('every ticket of the initiative is one item, in the column BMAD\'s next puts it', async () => {
    const root = copyFixture();
    const v = await view(root);
    const tickets = v.registry.items.filter((i) => i.kind === 'ticket');
    assert.deepEqual(tickets.map((i) => i.id), ['1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '2.1', '2.2', '2.3', '2.4', '2.5', '3.1', '3.2'].map((r) => `ticket:${r}`));
    // A plan or leaf file read as a workflow too is the ticket, never a second item.
    for (const t of tickets.filter((x) => x.file)) assert.equal(v.registry.items.filter((i) => i.file && i.file === t.file).length, 1, t.id);
    assert.equal(column(v, 'ticket:1.1'), 'done');
    assert.equal(column(v, 'ticket:1.2'), 'review');
    assert.equal(column(v, 'ticket:1.3'), 'review');
    assert.equal(column(v, 'ticket:1.5'), 'dropped');
    assert.equal(column(v, 'ticket:2.1'), 'in_progress');
    assert.equal(column(v, 'ticket:2.2'), 'blocked');
    assert.match(v.frontier.entries.get('ticket:2.2')!.reason, /waiting on the bank's sandbox keys/);
    // Ready: 1.6 (after 1.1, done) and 1.4 (after nothing); 2.1's prerequisite 1.2 is in review, which meets an after.
    assert.deepEqual(v.frontier.ready.map((e) => e.id).sort(), ['ticket:1.4', 'ticket:1.6']);
    // Waiting: on a sibling, on another epic's ticket, on an epic gate (every live ticket of the epic).
    assert.equal(column(v, 'ticket:2.3'), 'blocked');
    assert.deepEqual(v.frontier.entries.get('ticket:2.4')!.waitingOn, ['ticket:2.3', 'ticket:1.4']);
    assert.ok(v.frontier.entries.get('ticket:3.1')!.waitingOn.includes('ticket:2.1'));
    const item = v.registry.byId.get('ticket:2.2')!;
    assert.equal(item.assignee, 'chloe');
    assert.equal(item.ref, '2.2');
    assert.equal(item.line, 4, "the plan's status line");
  });

  test('a migrated project: the archived v6 ledger adds no story; the dashboard shows tickets with ref and assignee', async () => {
    const root = copyFixture();
    const v = await view(root);
    assert.deepEqual(v.registry.items.filter((i) => i.kind === 'story').map((i) => i.id), []);
    const m = dashboardModel(v, []);
    assert.equal(m.items['ticket:2.1'].kind, 'ticket');
    assert.equal(m.items['ticket:2.1'].ref, '2.1');
    assert.equal(m.items['ticket:2.1'].assignee, 'ben');
    assert.equal(m.items['ticket:1.6'].startable, true);
  });

  test('during a migration (the v6 ledger still live beside the tree) both show, each once', async () => {
    const root = copyFixture();
    const impl = path.join(root, '_bmad-output', 'implementation-artifacts');
    fs.mkdirSync(impl, { recursive: true });
    fs.writeFileSync(path.join(impl, 'sprint-status.yaml'), 'development_status:\n  epic-9: in-progress\n  9-1-legacy-report: in-progress\n');
    const v = await view(root);
    assert.deepEqual(v.registry.items.filter((i) => i.kind === 'story').map((i) => i.id), ['story:9-1-legacy-report']);
    assert.equal(v.registry.items.filter((i) => i.kind === 'ticket').length, 13);
  });
});

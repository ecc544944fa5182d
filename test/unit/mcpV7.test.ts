// The MCP tools on a BMAD v7 ticket tree (issue 21 item 2), through a real `waymark mcp` process and
// the SDK's Client over stdio: next and summary answer with tickets (kind, ref, state) grouped as
// tickets.py next groups them; waymark_story_set_status writes the plan.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanup, reasonOf, startServer } from './mcpHelpers';
import { LOGIN, LOGIN_PLAN, v7Project } from './v7WriteHelpers';

after(cleanup);

type T = { kind: string; ref: string; state: string; status: string; waitingOn?: string[]; plan: string };

describe('waymark mcp on a BMAD v7 ticket tree', () => {
  test('next: the ticket groups with refs, states and what blocked tickets wait on; summary: counts by state', async () => {
    const root = v7Project();
    const s = await startServer(root);
    try {
      const n = await s.call('waymark_next', {});
      assert.equal(n.isError, false, n.text);
      const g = n.data.tickets as Record<string, T[]> & { store: string; initiative: string };
      assert.equal(g.initiative, 'initiative-shop');
      assert.equal(g.store, 'repo');
      const refs = (k: string) => g[k].map((t: T) => t.ref);
      assert.deepEqual(refs('readyToRefine'), ['1.3']);
      assert.deepEqual(refs('readyToStart'), ['1.2', '1.4']);
      assert.deepEqual(refs('inProgress'), ['1.1']);
      assert.deepEqual(refs('blocked'), ['2.1']);
      assert.deepEqual(g.blocked[0].waitingOn, ['1.2']);
      for (const t of Object.values(g).filter(Array.isArray).flat() as T[]) assert.equal(t.kind, 'ticket');
      assert.equal(g.inProgress[0].state, 'review');
      assert.equal(g.inProgress[0].plan, LOGIN_PLAN);
      const sum = await s.call('waymark_summary', {});
      assert.equal(sum.isError, false, sum.text);
      assert.deepEqual(sum.data.tickets.counts, { review: 1, backlog: 1, planned: 3, done: 1 });
    } finally {
      await s.close();
    }
  });

  test('waymark_story_set_status writes the plan (created when there is none) and next follows; the rules and refs refuse with reasons', async () => {
    const root = v7Project();
    const s = await startServer(root);
    try {
      const w = await s.call('waymark_story_set_status', { ref: '1.4', status: 'in-progress', actor: 'agent-1' });
      assert.equal(w.isError, false, w.text);
      assert.deepEqual({ ...w.data, historySeq: undefined }, { kind: 'ticket', ref: '1.4', status: 'in-progress', state: 'in-progress', changed: true, written: [`${LOGIN}/spike-sso-options-plan.md`], plan: `${LOGIN}/spike-sso-options-plan.md`, created: true, historySeq: undefined });
      assert.equal(fs.readFileSync(path.join(root, LOGIN, 'spike-sso-options-plan.md'), 'utf8'), '---\ntitle: "SSO options"\nticket: 4\nstatus: in-progress\n---\n');
      const n = await s.call('waymark_next', {});
      assert.deepEqual(n.data.tickets.inProgress.map((t: T) => t.ref), ['1.1', '1.4']);
      assert.equal(reasonOf(await s.call('waymark_story_set_status', { ref: '2.2', status: 'in-progress' })), 'transition');
      assert.equal(reasonOf(await s.call('waymark_story_set_status', { ref: 'o', status: 'draft' })), 'usage');
      const blocked = await s.call('waymark_story_set_status', { ref: '1.1', status: 'blocked', blocked: 'waiting for the API key' });
      assert.equal(blocked.isError, false, blocked.text);
      const n2 = await s.call('waymark_next', {});
      assert.deepEqual(n2.data.tickets.blocked.map((t: T & { blockedReason?: string }) => [t.ref, t.blockedReason]), [['1.1', 'waiting for the API key'], ['1.2', undefined], ['2.1', undefined]], '1.2 waits on 1.1, no longer in review');
    } finally {
      await s.close();
    }
  });

  test('a tracker store is refused, naming where the status comes from', async () => {
    const root = v7Project({ store: 'jira' });
    const s = await startServer(root);
    try {
      const r = await s.call('waymark_story_set_status', { ref: '1.4', status: 'in-progress' });
      assert.equal(reasonOf(r), 'refused');
      assert.match(r.data.error.message, /store is jira/);
    } finally {
      await s.close();
    }
  });
});

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { cleanup, startServer, workspace, type Server } from './mcpHelpers';

after(cleanup);

// One agent window, one server: several run at once on one workspace. Only one process may
// hold the Kuzu database; the others must neither hang nor fail: they write to the inbox,
// answer from the journal, and say so.
describe('waymark mcp: memory with five servers at once', () => {
  test('five servers record and recall at once: nobody hangs or fails, nothing is lost, degraded answers say so', async () => {
    const root = workspace();
    const servers: Server[] = await Promise.all(Array.from({ length: 5 }, (_, i) => startServer(root, { args: ['--actor', `agent-${i}`] })));
    try {
      const started = Date.now();
      const perServer = 3;
      const records = await Promise.all(
        servers.map(async (s, i) => {
          const out = [];
          for (let k = 0; k < perServer; k++) {
            const r = await s.call('waymark_memory_record', { type: k % 2 ? 'learning' : 'decision', category: k % 2 ? 'gotcha' : undefined, text: `server ${i} note ${k} about the parser`, workflow: 'docs/feat.workflow.md', step: 'design' });
            assert.equal(r.isError, false, `server ${i}: ${r.text}`);
            if (r.data.stored === 'inbox') assert.ok(r.data.note, 'kept in the inbox: it says why');
            out.push(r.data);
          }
          return out;
        }),
      );
      const ids = records.flat().map((r) => r.id);
      assert.equal(new Set(ids).size, 5 * perServer);
      const recalls = await Promise.all(servers.map((s) => s.call('waymark_memory_recall', { workflow: 'docs/feat.workflow.md', step: 'design', limit: 50 })));
      for (const [i, r] of recalls.entries()) {
        assert.equal(r.isError, false, `server ${i}: ${r.text}`);
        const got = new Set(r.data.items.map((x: { id: string }) => x.id));
        for (const id of ids) assert.ok(got.has(id), `server ${i} (${r.data.engine}) recalls ${id}`);
        if (r.data.engine === 'journal') assert.ok(r.data.degraded, `server ${i} answered from the journal and says why`);
      }
      const engines = [...records.flat().map((r) => r.stored), ...recalls.map((r) => r.data.engine)];
      if (process.env.WAYMARK_TEST_VERBOSE) console.log(engines.join(","), recalls.map((r) => r.data.degraded ?? "-").join(" | "));
      assert.ok(engines.includes('graph') || engines.includes('kuzu'), `one process got the database: ${engines.join(',')}`);
      // "Never hang": 15 records and 5 recalls across 5 processes finish in bounded time.
      assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
      // The workflow tools keep working while memory is contended.
      for (const s of servers) assert.equal((await s.call('waymark_summary')).isError, false);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
    // After every server closed, one more server sees all memories in the graph.
    const last = await startServer(root);
    try {
      const r = await last.call('waymark_memory_recall', { workflow: 'docs/feat.workflow.md', step: 'design', limit: 50 });
      assert.equal(r.data.items.length, 15, r.text);
    } finally {
      await last.close();
    }
  });
});

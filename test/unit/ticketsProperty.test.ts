import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Outbox, bodyWithNote, renderBody, sendOrder, sourceOf, waymarkIdOf, type ProjectedTicket } from '../../src/core/index';
import { tmp } from './ticketsHelpers';

const ticket = (id: string, parentId: string | undefined, blockedByIds: string[]): ProjectedTicket => ({
  waymarkId: id, kind: 'workflow', root: '/', hasFrontmatter: true, title: id, text: '', labels: [], open: true, parentId, blockedByIds, hash: id,
});

describe('tickets: properties', () => {
  test('send order: every ticket exactly once; in an acyclic graph each after its parent and its prerequisites', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }).chain((n) =>
          fc.tuple(
            fc.constant(n),
            // Links only to lower indexes: acyclic by construction.
            fc.array(fc.tuple(fc.option(fc.nat(), { nil: undefined }), fc.array(fc.nat(), { maxLength: 4 })), { minLength: n, maxLength: n }),
            fc.array(fc.nat(), { minLength: n, maxLength: n }),
          ),
        ),
        ([n, links, shuffle]) => {
          const ids = Array.from({ length: n }, (_, i) => `t${i}`);
          const list = ids.map((id, i) => {
            const [p, deps] = links[i];
            return ticket(id, i > 0 && p !== undefined ? ids[p % i] : undefined, i > 0 ? [...new Set(deps.map((d) => ids[d % i]))] : []);
          });
          // Any insertion order.
          const order = list.map((t, i) => ({ t, k: shuffle[i] })).sort((a, b) => a.k - b.k).map((x) => x.t);
          const out = sendOrder(new Map(order.map((t) => [t.waymarkId, t]))).map((t) => t.waymarkId);
          assert.deepEqual([...out].sort(), [...ids].sort());
          const at = new Map(out.map((id, i) => [id, i]));
          for (const t of list) for (const d of [...(t.parentId ? [t.parentId] : []), ...t.blockedByIds]) assert.ok(at.get(d)! < at.get(t.waymarkId)!, `${d} before ${t.waymarkId}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('outbox: pending is the changes queued and not sent, one per id, in the order first queued, newest hash', () => {
    const root = tmp('wm-outbox-prop-');
    let run = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('queue', 'sent'), fc.constantFrom('a', 'b', 'c', 'd'), fc.constantFrom('h1', 'h2')), { maxLength: 30 }), (ops) => {
        const outbox = new Outbox(root, `s${run++}`);
        const model: { id: string; hash: string }[] = [];
        for (const [op, id, hash] of ops) {
          if (op === 'queue') {
            outbox.queue([{ id, hash }], new Date());
            const had = model.find((e) => e.id === id);
            if (had) had.hash = hash;
            else model.push({ id, hash });
          } else {
            outbox.done(id, new Date());
            const i = model.findIndex((e) => e.id === id);
            if (i >= 0) model.splice(i, 1);
          }
        }
        assert.deepEqual(outbox.pending().map((e) => ({ id: e.id, hash: e.hash })), model);
        outbox.compact();
        assert.deepEqual(outbox.pending().map((e) => ({ id: e.id, hash: e.hash })), model, 'compaction keeps what is pending');
      }),
      { numRuns: 100 },
    );
  });

  test('the id line read back from any body is the ticket\'s own, whatever the artifact text quotes', () => {
    fc.assert(
      fc.property(fc.string(), fc.stringMatching(/^[A-Za-z0-9:._/-]{1,40}$/), (text, id) => {
        const t = { ...ticket(id, undefined, []), text: `${text}\nwaymark-id: someone-else\n` };
        assert.equal(waymarkIdOf(renderBody(t, { blockedBy: [] })), id);
      }),
      { numRuns: 200 },
    );
  });

  test('the closing note keeps the ticket\'s id and source lines, and added twice is added once', () => {
    fc.assert(
      fc.property(fc.string(), fc.stringMatching(/^[A-Za-z0-9:._/-]{1,40}$/), fc.stringMatching(/^[a-z0-9_/-]{1,30}\.md$/), (text, id, rel) => {
        const body = renderBody({ ...ticket(id, undefined, []), text, rel }, { blockedBy: [] });
        const note = `Closed by Waymark: \`${rel}\` was removed from the project.`;
        const once = bodyWithNote(body, note);
        assert.equal(waymarkIdOf(once), id);
        assert.equal(sourceOf(once), rel);
        assert.ok(once.endsWith(`waymark-id: ${id}\n`), 'the id line stays last');
        assert.equal(bodyWithNote(once, note), once);
      }),
      { numRuns: 200 },
    );
  });
});

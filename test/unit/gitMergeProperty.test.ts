import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mergeStateFile, parseFrontmatter, parseLedger } from '../../src/core/index';
import { compareProgress, toStatus } from '../../src/core/model/progress';

const WORDS = ['backlog', 'ready-for-dev', 'in-progress', 'blocked', 'review', 'done', 'archived'];
const STORY_WORDS = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'];
const STATUS_RANK = { created: 0, in_progress: 1, blocked: 1, completed: 2, archived: 3 } as const;

const steps = fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { maxLength: 9 });
const side = fc.record({ steps, status: fc.constantFrom(...WORDS) });

const wf = (s: { steps: number[]; status: string }) => `---\nworkflowType: prd\nstepsCompleted: [${s.steps.join(', ')}]\nstatus: ${s.status}\n---\n# Doc\n\nBody.\n`;

describe('merge driver property: never less progress than either side', () => {
  test('workflow frontmatter: united steps, status at least as far as each side (or an explained conflict)', () => {
    fc.assert(
      fc.property(side, side, side, (base, ours, theirs) => {
        const r = mergeStateFile({ base: wf(base), ours: wf(ours), theirs: wf(theirs), path: 'docs/prd.md' });
        if (r.conflicts > 0) {
          // Only a status both sides changed to words of the same rank may stay undecided.
          const c = r.decisions.filter((d) => d.conflict);
          assert.deepEqual(c.map((d) => d.key), ['status']);
          assert.notEqual(ours.status, base.status);
          assert.notEqual(theirs.status, base.status);
          assert.equal(STATUS_RANK[toStatus(ours.status)!], STATUS_RANK[toStatus(theirs.status)!]);
          assert.match(r.text, /<<<<<<< ours \(waymark: status: /);
          return;
        }
        const data = parseFrontmatter(r.text).data;
        const merged = { done: (data.stepsCompleted as number[]).map(String), status: toStatus(data.status) };
        for (const s of [ours, theirs]) {
          const order = compareProgress(merged, { done: s.steps.map(String), status: toStatus(s.status) });
          assert.ok(order === 'ahead' || order === 'same', `merged ${JSON.stringify(merged)} is ${order} of ${JSON.stringify(s)}`);
        }
      }),
      { numRuns: 150 },
    );
  });

  test('sprint-status.yaml: every entry at least as far as on each side, never a conflict for the story vocabulary', () => {
    const keys = ['1-1-a', '1-2-b', '1-3-c', '2-1-d'];
    const ledgerArb = fc.array(fc.constantFrom(...STORY_WORDS), { minLength: keys.length, maxLength: keys.length });
    const text = (v: string[]) => `development_status:\n${keys.map((k, i) => `  ${k}: ${v[i]}`).join('\n')}\n`;
    fc.assert(
      fc.property(ledgerArb, ledgerArb, ledgerArb, (b, o, t) => {
        const r = mergeStateFile({ base: text(b), ours: text(o), theirs: text(t), path: 'sprint-status.yaml' });
        assert.equal(r.conflicts, 0, r.text);
        const l = parseLedger('sprint-status.yaml', r.text);
        keys.forEach((k, i) => {
          const got = STATUS_RANK[toStatus(l.byKey.get(k)!.raw)!];
          assert.ok(got >= STATUS_RANK[toStatus(o[i])!] && got >= STATUS_RANK[toStatus(t[i])!], `${k}: ${b[i]}/${o[i]}/${t[i]} → ${l.byKey.get(k)!.raw}`);
        });
      }),
      { numRuns: 150 },
    );
  });
});

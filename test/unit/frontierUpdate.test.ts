// The frontier carried over after a few items changed (core/project/frontier.ts updateFrontier):
// for random projects and random edits, what it says is what computing the whole frontier again
// says. The warm project view uses it when one file is edited (one edit at 10,000 workflows).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { buildRegistry, computeFrontier, type Activity, type WorkflowState } from '../../src/core/index';
import { updateFrontier, type Frontier, type FrontierInput } from '../../src/core/project/frontier';
import { updateRegistry } from '../../src/core/project/registry';

const STATUSES = ['created', 'in_progress', 'blocked', 'completed', 'archived', 'review'] as const;
type Status = (typeof STATUSES)[number];

interface Spec {
  status: Status;
  deps: number[];
  waive: number[];
  priority: 'high' | 'low' | undefined;
  title: string | undefined;
  /** Minutes before `now` of the item's last activity, when it has one. */
  activeAgo: number | undefined;
  session: boolean;
}

const NOW = Date.parse('2026-11-28T12:00:00Z');

function state(i: number, s: Spec, n: number): WorkflowState {
  const data: Record<string, unknown> = {};
  const deps = s.deps.filter((d) => d < n + 1).map((d) => (d === n ? 'nowhere' : `w${d}`));
  if (deps.length) data.dependsOn = deps;
  if (s.waive.length) data.waive = s.waive.map((d) => `w${d}`);
  if (s.priority) data.priority = s.priority;
  if (s.title) data.title = s.title;
  const status = s.status === 'review' ? 'in_progress' : s.status;
  return {
    file: `/p/w${i}.md`, root: '/p', dialect: 'waymark', workflow: `w${i}`, status, rawStatus: s.status === 'review' ? 'review' : status,
    stepsCompleted: [], steps: [], stepsSource: 'none', gates: {}, stateHash: `${i}:${JSON.stringify(s)}`, contentHash: JSON.stringify(s), data, problems: [],
    ...(s.status === 'blocked' ? { blockedReason: `reason ${i}` } : {}),
  } as WorkflowState;
}

/** The activity of each item; with `reuse`, the same objects as before for items whose activity did not change (nor is in `moved`). */
function inputOf(specs: Spec[], reuse?: { specs: Spec[]; input: FrontierInput; moved: number[] }): FrontierInput {
  const activity = new Map<string, Activity>();
  const sessions = new Map<string, Activity>();
  specs.forEach((s, i) => {
    const same = reuse && !reuse.moved.includes(i) && reuse.specs[i].activeAgo === s.activeAgo && reuse.specs[i].session === s.session;
    if (reuse?.moved.includes(i)) s = { ...s, activeAgo: s.activeAgo === undefined ? 4000 : s.activeAgo === 5 ? undefined : 5 };
    if (s.activeAgo !== undefined) activity.set(`w${i}`, (same && reuse.input.activity?.get(`w${i}`)) || { time: new Date(NOW - s.activeAgo * 60_000).toISOString(), who: 'file edit', source: 'file' });
    if (s.session) sessions.set(`w${i}`, (same && reuse.input.sessions?.get(`w${i}`)) || { time: new Date(NOW - (s.activeAgo ?? 90) * 60_000).toISOString(), who: 'agent', source: 'lease' });
  });
  return { activity, sessions, now: new Date(NOW), stalledAfter: () => ({ session: 30 * 60_000, workflow: 3 * 86_400_000, ledger: 7 * 86_400_000 }) };
}

/** Everything a frontier says, in order. */
function said(f: Frontier) {
  const ids = (xs: { id: string }[]) => xs.map((x) => x.id);
  return {
    entries: [...f.entries.values()].map((e) => [e.id, e.item, e.column, e.reason, e.waitingOn, e.unblocks, e.depth, e.stalled ?? null]),
    columns: [ids(f.ready), ids(f.inProgress), ids(f.review), ids(f.blocked), ids(f.done), ids(f.dropped)],
    stalled: ids(f.stalled),
    critical: f.criticalPath,
    problems: f.problems.map((p) => [p.file, p.code, p.severity, p.message, p.data ?? null]),
  };
}

const spec = (n: number): fc.Arbitrary<Spec> =>
  fc.record({
    status: fc.constantFrom(...STATUSES),
    // `n` names an item that does not exist (a registry problem), now and then.
    deps: fc.uniqueArray(fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: n - 1 }) }, { weight: 1, arbitrary: fc.constant(n) }), { maxLength: 3 }),
    waive: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 1 }),
    priority: fc.constantFrom('high' as const, 'low' as const, undefined),
    title: fc.constantFrom('A', 'B', undefined),
    activeAgo: fc.constantFrom(undefined, 5, 45, 3000, 6000),
    session: fc.boolean(),
  });

const project = fc.integer({ min: 2, max: 18 }).chain((n) =>
  fc.tuple(
    fc.array(spec(n), { minLength: n, maxLength: n }),
    // Edits: which items, and what they become (their edges kept: updateRegistry's condition).
    fc.array(fc.tuple(fc.nat({ max: n - 1 }), spec(n)), { minLength: 1, maxLength: 3 }),
    // Items whose activity moved (a history line, an event, a lease) while their file did not change.
    fc.uniqueArray(fc.nat({ max: n - 1 }), { maxLength: 2 }),
  ),
);

describe('frontier carried over after an edit', () => {
  test('is the frontier computed whole, for random projects and edits (same instant)', () => {
    let carried = 0;
    fc.assert(
      fc.property(project, ([specs, edits, moved]) => {
        const n = specs.length;
        const before = specs.map((s, i) => state(i, s, n));
        const next = specs.slice();
        // Most edits keep an item done or not done (the case carried over); some (title A) do not.
        for (const [i, s] of edits) {
          const wasDone = specs[i].status === 'completed';
          const status = s.title === 'A' ? s.status : wasDone ? 'completed' : s.status === 'completed' ? 'in_progress' : s.status;
          next[i] = { ...s, deps: specs[i].deps, status };
        }
        const after = next.map((s, i) => state(i, s, n));
        const reg0 = buildRegistry(before, []);
        const in0 = inputOf(specs);
        const f0 = computeFrontier(reg0, in0);
        const changed = before.flatMap((b, i) => (b.contentHash === after[i].contentHash ? [] : [{ before: b, after: after[i] }]));
        const reg1 = updateRegistry(reg0, changed);
        if (!reg1) return;
        const in1 = inputOf(next, { specs, input: in0, moved });
        const whole = computeFrontier(buildRegistry(after, []), in1);
        const f1 = updateFrontier(f0, reg0, in0, reg1, in1);
        if (!f1) return;
        carried++;
        assert.deepEqual(said(f1), said(whole));
        // Never later than the truth: a view carried over is recomputed no later than it must be.
        if (whole.stalledChangesAt !== undefined) assert.ok(f1.stalledChangesAt !== undefined && f1.stalledChangesAt <= whole.stalledChangesAt);
        // The frontier it came from is left as it was.
        assert.deepEqual(said(f0), said(computeFrontier(reg0, in0)));
      }),
      { numRuns: 400 },
    );
    // The carried-over path is the one under test: taken in 110–140 of 400 random runs (95 was seen
    // once), so the bar is well below that, not a coin toss at its edge.
    assert.ok(carried > 60, `carried over in ${carried} of 400 runs`);
  });

  test('an item that becomes done, or edges that changed, are computed whole', () => {
    const specs: Spec[] = [
      { status: 'created', deps: [], waive: [], priority: undefined, title: undefined, activeAgo: undefined, session: false },
      { status: 'created', deps: [0], waive: [], priority: undefined, title: undefined, activeAgo: undefined, session: false },
    ];
    const before = specs.map((s, i) => state(i, s, 2));
    const reg0 = buildRegistry(before, []);
    const in0 = inputOf(specs);
    const f0 = computeFrontier(reg0, in0);
    const done = state(0, { ...specs[0], status: 'completed' }, 2);
    const reg1 = updateRegistry(reg0, [{ before: before[0], after: done }])!;
    assert.ok(reg1, 'a status edit keeps the registry');
    assert.equal(updateFrontier(f0, reg0, in0, reg1, in0), undefined);
    const rebuilt = buildRegistry([done, before[1]], []);
    assert.equal(updateFrontier(f0, reg0, in0, rebuilt, in0), undefined);
    // Nothing changed: the same frontier.
    assert.equal(updateFrontier(f0, reg0, in0, reg0, in0), f0);
  });
});

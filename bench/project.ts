// The project view in process: the registry (ids, dependsOn edges, cycle check) and the frontier
// (columns, ready order by what each unblocks, critical path, stalled) over 10,000 generated
// workflows with ~1.5 dependencies each and a mix of statuses. Beside it, its floor in the same
// run: one topological sort (Kahn) over the same ids and edges, which any frontier must at least do.
// Prints `project.frontier_median_ms` (goal < 100 for 10,000) and `project.floor_toposort_median_ms`.
// Options: --workflows N (default 10000), --runs N (default 15).
import { buildRegistry, computeFrontier, type Activity, type WorkflowState, type Status } from '../src/core/index';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : def;
}

const N = arg('workflows', 10_000);
const RUNS = arg('runs', 15);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Deterministic pseudo-random numbers (mulberry32), so every run measures the same project. */
function rng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(): { workflows: WorkflowState[]; activity: Map<string, Activity> } {
  const r = rng(12);
  const workflows: WorkflowState[] = [];
  const activity = new Map<string, Activity>();
  const statuses: Status[] = ['completed', 'completed', 'in_progress', 'created', 'created', 'blocked', 'archived'];
  for (let i = 0; i < N; i++) {
    // Dependencies point to earlier items (mostly nearby): a DAG of long and short chains.
    const deps: string[] = [];
    const k = Math.floor(r() * 3);
    for (let d = 0; d < k && i > 0; d++) deps.push(`w${Math.max(0, i - 1 - Math.floor(r() * 50))}`);
    // Earlier items are more often done, as in a real project.
    const status = i < N * 0.3 ? 'completed' : statuses[Math.floor(r() * statuses.length)];
    workflows.push({
      file: `/bench/w${i}.md`, root: '/bench', dialect: 'waymark', workflow: `w${i}`, status, stepsCompleted: [], steps: [], stepsSource: 'none',
      gates: {}, stateHash: '', contentHash: '', problems: [],
      data: { dependsOn: deps, priority: Math.floor(r() * 4), createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() },
    });
    if (status === 'in_progress') activity.set(`w${i}`, { time: new Date(Date.UTC(2026, 5, 1) - Math.floor(r() * 10) * 86_400_000).toISOString(), who: 'agent', source: 'history' });
  }
  return { workflows, activity };
}

function toposortFloor(workflows: WorkflowState[]): number {
  const index = new Map<string, number>();
  workflows.forEach((w, i) => index.set(w.workflow, i));
  const indeg = new Int32Array(workflows.length);
  const out: number[][] = workflows.map(() => []);
  workflows.forEach((w, i) => {
    for (const d of w.data.dependsOn as string[]) {
      const j = index.get(d);
      if (j === undefined || j === i) continue;
      out[j].push(i);
      indeg[i]++;
    }
  });
  const queue: number[] = [];
  indeg.forEach((d, i) => d === 0 && queue.push(i));
  for (let q = 0; q < queue.length; q++) for (const n of out[queue[q]]) if (--indeg[n] === 0) queue.push(n);
  return queue.length;
}

function main(): void {
  const { workflows, activity } = generate();
  const now = new Date(Date.UTC(2026, 5, 1));
  const frontier: number[] = [];
  const floor: number[] = [];
  let ready = 0;
  let critical = 0;
  let stalled = 0;
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    toposortFloor(workflows);
    floor.push(performance.now() - t);
    t = performance.now();
    const f = computeFrontier(buildRegistry(workflows, []), { now, activity });
    frontier.push(performance.now() - t);
    ready = f.ready.length;
    critical = f.criticalPath.length;
    stalled = f.stalled.length;
  }
  console.log(`project.workflows ${N}  (ready ${ready}, stalled ${stalled}, critical path ${critical})`);
  console.log(`project.frontier_median_ms ${median(frontier).toFixed(1)}   (goal < 100 for 10,000: registry + frontier + critical path + stalled)`);
  console.log(`project.floor_toposort_median_ms ${median(floor).toFixed(1)}   (one topological sort of the same ids and edges)`);
}

main();

// The project view in process: the registry (ids, dependsOn edges, cycle check) and the frontier
// (columns, ready order by what each unblocks, critical path, stalled) over 10,000 generated
// workflows with ~1.5 dependencies each and a mix of statuses. Beside it, its floor in the same
// run: one topological sort (Kahn) over the same ids and edges, which any frontier must at least do.
// Prints `project.frontier_median_ms` (goal < 100 for 10,000) and `project.floor_toposort_median_ms`.
// Then the git timeline over a generated repository of --commits commits (default 1000) changing
// the frontmatter of 50 workflow files: cold (goal < 2 s), cached (the next call, same HEAD), and
// its floor, the same `git log -p` run alone.
// Options: --workflows N (default 10000), --runs N (default 15), --commits N (default 1000).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildRegistry, computeFrontier, dashboardModel, gitStateTimeline, type Activity, type ProjectView, type TimelineChange, type WorkflowState, type Status } from '../src/core/index';
import { arg, median } from './lib';

const N = arg('workflows', 10_000);
const RUNS = arg('runs', 15);
const COMMITS = arg('commits', 1000);

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
  dashboardBench(workflows, activity, now);
}

/**
 * The dashboard's view model over the same 10,000 items and 2 state changes each (20,000 in the
 * timeline): columns, frontier, stalled, chains, per-day activity and swimlanes. Beside it, what
 * posting it to the webview costs at least: one JSON round trip of the model.
 */
function dashboardBench(workflows: WorkflowState[], activity: Map<string, Activity>, now: Date): void {
  const registry = buildRegistry(workflows, []);
  const frontier = computeFrontier(registry, { now, activity });
  const view: ProjectView = { roots: ['/bench'], registry, frontier, now: now.toISOString(), historyDirs: new Map(), sprints: new Map() };
  const changes: TimelineChange[] = [];
  for (let i = 0; i < workflows.length * 2; i++) {
    const w = workflows[i % workflows.length];
    const time = new Date(Date.UTC(2026, 3, 1) + i * 300_000).toISOString();
    changes.push({ time, id: w.workflow, file: w.file, actor: 'agent', session: null, operation: i % 2 ? 'advance' : 'start', from: { status: 'created' }, to: { status: 'in_progress' }, source: 'waymark' });
  }
  const build: number[] = [];
  const post: number[] = [];
  let cards = 0;
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    const m = dashboardModel(view, changes);
    build.push(performance.now() - t);
    t = performance.now();
    const json = JSON.stringify(m);
    JSON.parse(json);
    post.push(performance.now() - t);
    cards = m.columns.reduce((n, c) => n + c.items.length, 0);
    bytes = json.length;
  }
  console.log(`project.dashboard_items ${workflows.length}  (${cards} cards in the columns, ${changes.length} timeline changes, model ${(bytes / 1024).toFixed(0)} KB)`);
  console.log(`project.dashboard_model_median_ms ${median(build).toFixed(1)}   (the view model from the project view and its timeline)`);
  console.log(`project.floor_dashboard_json_median_ms ${median(post).toFixed(1)}   (one JSON round trip of that model: what posting it costs at least)`);
}

/** A repository of COMMITS commits, written with `git fast-import` (one process, not 1,000). */
function gitRepo(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-timeline-'));
  fs.mkdirSync(path.join(root, '.waymark'));
  spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  const statuses = ['created', 'in_progress', 'blocked', 'in_progress', 'completed'];
  const parts: string[] = [];
  for (let c = 0; c < COMMITS; c++) {
    const f = c % 50;
    const round = Math.floor(c / 50);
    const body = `---\nworkflow: w${f}\nstatus: ${statuses[round % statuses.length]}\nstepsCompleted: [${Array.from({ length: round % 8 }, (_, i) => `s${i}`).join(', ')}]\n---\n# w${f}\n\nBody text.\n`;
    const msg = `change ${c}`;
    const t = 1_760_000_000 + c * 600;
    parts.push(`commit refs/heads/main\ncommitter Bench <bench@example.com> ${t} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}\nM 100644 inline w${f}.md\ndata ${Buffer.byteLength(body)}\n${body}\n`);
  }
  const r = spawnSync('git', ['fast-import', '--quiet'], { cwd: root, input: parts.join('') });
  if (r.status !== 0) throw new Error(`git fast-import failed: ${String(r.stderr)}`);
  return root;
}

async function timelineBench(): Promise<void> {
  const root = gitRepo();
  try {
    let t = performance.now();
    const floor = spawnSync('git', ['log', `--max-count=${COMMITS}`, '-p', '-U0', '--no-color', '--', '*.md'], { cwd: root, maxBuffer: 256 * 1024 * 1024 });
    const floorMs = performance.now() - t;
    if (floor.status !== 0) throw new Error('git log failed');
    t = performance.now();
    const cold = await gitStateTimeline(root, { maxCommits: COMMITS });
    const coldMs = performance.now() - t;
    t = performance.now();
    const warm = await gitStateTimeline(root, { maxCommits: COMMITS });
    const warmMs = performance.now() - t;
    if (!warm.cached || warm.changes.length !== cold.changes.length) throw new Error('the second call did not come from the cache');
    console.log(`project.timeline_commits ${COMMITS}  (${cold.changes.length} state changes)`);
    console.log(`project.timeline_cold_ms ${coldMs.toFixed(1)}   (goal < 2000)`);
    console.log(`project.timeline_cached_ms ${warmMs.toFixed(1)}   (same HEAD: from .waymark/cache)`);
    console.log(`project.floor_git_log_ms ${floorMs.toFixed(1)}   (the same git log -p alone)`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main();
void timelineBench().catch((e) => {
  console.error(e);
  process.exit(1);
});

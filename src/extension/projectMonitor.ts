// The project view (registry, frontier, stalled work) as the surfaces show it (Problems panel,
// language-model tools, dashboard): the core's warm view over the model's states, recomputed
// from what changed (states the model re-read, files the watchers report, git, leases) after a
// burst of changes settles and once a minute (stalled work is a matter of time passing), and
// announced through the model's one change event only when what it says changed. One computation
// per change for every surface: a surface that needs the view now (`refresh`, the dashboard's
// first paint) computes it early, and the settle timer then finds it fresh. A lone change (the
// first after a quiet spell) is recomputed at once, a burst once it settles. Owned by the model.
// In Restricted Mode git is not asked (it could run the repository's own hooks); files, history
// and the events log are still read.
import * as vscode from 'vscode';
import { WarmProjectView, errorMessage } from '../core/index';
import type { Problem, ProjectView, StateCore, WorkflowState } from '../core/index';
import { Disposable } from './disposable';

/** After the last change, wait this long before recomputing (agents write in bursts). */
const SETTLE_MS = 400;
/**
 * The first change after a quiet spell (no change for SETTLE_MS) is recomputed this soon: one
 * edit reaches the Problems panel and the dashboard at once; the rest of a burst still settles.
 */
const QUICK_MS = 20;
/** Recompute this often even when nothing changed: work stalls as time passes. */
const TICK_MS = 60_000;

export class ProjectMonitor extends Disposable {
  private view?: ProjectView;
  private byFile = new Map<string, Problem[]>();
  /** The frontier the surfaces were last told of (what they show). */
  private shown?: ProjectView['frontier'];
  private timer?: NodeJS.Timeout;
  private running?: Promise<ProjectView | undefined>;
  private again = false;
  private generation = 0;
  /** When the last change came in (`performance.now()`). */
  private lastChange = -Infinity;
  /** The generation the last view was computed at (the view is fresh when it equals `generation`). */
  private viewGeneration = -1;
  /** Computations finished, and those of them the minute tick asked for (the test API reads both). */
  computations = 0;
  tickComputations = 0;
  /** Why the last computation failed; cleared by the next one that succeeds. */
  private lastError?: unknown;
  /** The warm view of the current core (a new core, a new view: it caches what the old one read). */
  private warm?: { core: StateCore; trusted: boolean; view: WarmProjectView };

  constructor(
    private readonly deps: { core(): StateCore; roots(): readonly string[]; states(): WorkflowState[]; trusted(): boolean; ready(): Promise<void>; log: vscode.LogOutputChannel },
    private readonly changed: () => void,
  ) {
    super();
    const tick = setInterval(() => this.schedule(0, true), TICK_MS);
    tick.unref?.();
    this.register({ dispose: () => (clearInterval(tick), clearTimeout(this.timer)) });
  }

  /** The last computed view; undefined until the first computation ends. */
  current(): ProjectView | undefined {
    return this.view;
  }

  /** The last view if nothing changed since it was computed, else undefined (then `refresh`). */
  fresh(): ProjectView | undefined {
    return this.viewGeneration === this.generation ? this.view : undefined;
  }

  /** The project problems (dependencies, cycles, stalled work) of one file, from the last view. */
  problemsFor(file: string): Problem[] {
    return this.byFile.get(file) ?? [];
  }

  /** Every project problem of the last view. */
  problems(): Problem[] {
    return this.view?.frontier.problems ?? [];
  }

  /** Files changed on disk that the states do not show (history, events, a sprint's files): recompute once things settle. */
  filesChanged(files: readonly string[]): void {
    this.warm?.view.changed(files);
    this.invalidate();
  }

  /** The sprint model re-read a sprint: the view reads the sprints again once things settle. */
  sprintsChanged(): void {
    this.warm?.view.sprintsChanged();
    this.invalidate();
  }

  /** States changed, folders changed, the trust changed: recompute once things settle. */
  invalidate(): void {
    this.generation++;
    const now = performance.now();
    const quiet = now - this.lastChange >= SETTLE_MS;
    this.lastChange = now;
    this.schedule(quiet && !this.running ? QUICK_MS : SETTLE_MS);
  }

  /** A view computed now from the current states (waits for a computation already running). */
  async refresh(): Promise<ProjectView> {
    await this.deps.ready();
    for (;;) {
      const generation = this.generation;
      const v = await this.compute();
      if (v && generation === this.generation) return v;
      if (this.isDisposed) throw new Error('the project view is closed');
      // The computation failed (not merely overtaken by a change): say why, do not retry in a loop.
      if (!v && this.lastError) throw this.lastError;
    }
  }

  /** `force`: recompute even when fresh (the minute tick: time passing changes what is stalled). */
  private schedule(ms: number, force = false): void {
    if (this.isDisposed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // Already computed for this generation (a surface asked for it early): nothing to do.
      if (force) this.tickComputations++;
      if (force || !this.fresh()) void this.compute();
    }, ms);
  }

  private compute(): Promise<ProjectView | undefined> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        // Before the first scan there are no states: a view then would only walk the tree for sprints.
        await this.deps.ready().catch(() => undefined);
        const generation = this.generation;
        const roots = [...this.deps.roots()];
        const core = this.deps.core();
        const trusted = this.deps.trusted();
        // Trust decides whether git is asked: a change of it reads commit times (or file times) again.
        if (this.warm?.core !== core || this.warm.trusted !== trusted) this.warm = { core, trusted, view: new WarmProjectView(core, { git: trusted }) };
        const view = await this.warm.view.view({ roots, workflows: this.deps.states() });
        if (this.isDisposed) return undefined;
        this.computations++;
        this.lastError = undefined;
        this.viewGeneration = generation;
        this.adopt(view);
        return view;
      } catch (e) {
        this.lastError = e;
        this.deps.log.warn(`[project] could not compute the project view: ${errorMessage(e)}`);
        return undefined;
      } finally {
        this.running = undefined;
        if (this.again && !this.isDisposed) {
          this.again = false;
          this.schedule(0);
        }
      }
    })();
    return this.running;
  }

  private adopt(view: ProjectView): void {
    this.view = view;
    const byFile = new Map<string, Problem[]>();
    for (const p of view.frontier.problems) {
      const list = byFile.get(p.file);
      if (list) list.push(p);
      else byFile.set(p.file, [p]);
    }
    this.byFile = byFile;
    const same = !!this.shown && sameOnScreen(this.shown, view.frontier);
    // The same on screen: kept as the one shown all the same (the next view shares its entries).
    this.shown = view.frontier;
    if (!same) this.changed();
  }
}

type Frontier = ProjectView['frontier'];
type Entry = Frontier['entries'] extends Map<string, infer E> ? E : never;

/** A reason without its durations (`3 min`, `2 h`, `4 days`): they move every tick. */
function timeless(reason: string): string {
  return /\d+ (min|h|d)/.test(reason) ? reason.replace(/\d+ (min|h|d)\b/g, '') : reason;
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
}

function sameEntry(a: Entry, b: Entry): boolean {
  return a === b || (a.id === b.id && a.column === b.column && a.unblocks === b.unblocks && a.item.file === b.item.file && sameList(a.waitingOn, b.waitingOn) && timeless(a.reason) === timeless(b.reason));
}

/**
 * What a surface shows is the same in both frontiers: columns, reasons (durations aside: `now`
 * moves every tick), what each waits on and unblocks, the critical path, the problems. Compared
 * entry by entry (a frontier carried over after an edit shares most of them), not serialized:
 * at 10,000 items that was most of the cost of an edit reaching the Problems panel.
 */
function sameOnScreen(a: Frontier, b: Frontier): boolean {
  if (a === b) return true;
  if (a.entries.size !== b.entries.size || !sameList(a.criticalPath, b.criticalPath) || a.problems.length !== b.problems.length) return false;
  const before = a.entries.values();
  for (const e of b.entries.values()) {
    const was = before.next().value;
    if (!was || !sameEntry(was, e)) return false;
  }
  return b.problems.every((p, i) => {
    const q = a.problems[i];
    return p === q || (p.file === q.file && p.code === q.code && p.range.start.line === q.range.start.line && p.severity === q.severity);
  });
}

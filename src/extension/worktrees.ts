// Worktree markers for the Workflows and Sprint views: what another git worktree of the repository
// has ahead of this checkout ("review in worktree feat/2-3; here: in-progress"), computed by the
// core's worktree reading (the one `waymark status --worktrees` uses), cached per folder, re-read
// on a timer and after workflow state changes here. Owned by the model, which tells the surfaces.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { aheadInOtherWorktrees, errorMessage, type AheadElsewhere } from '../core/index';
import { Disposable } from './disposable';

/**
 * Re-read this often while enabled (a cheap `git worktree list` when there is one worktree); a
 * large repository whose reading takes long is re-read less often (20 times its last duration), so
 * the markers never cost more than ~5 % of the extension host.
 */
export const WORKTREE_REFRESH_MS = 15_000;
const AFTER_CHANGE_MS = 1_500;

export interface WorktreeMark extends AheadElsewhere {
  /** The folder (workspace root) it was computed for. */
  root: string;
}

/** `review in feat/2-3` / `3/5 steps in feat/x`: the short form for a description. */
export function markShort(m: WorktreeMark): string {
  if (m.kind === 'workflow' && m.stepsCompleted && (m.here?.stepsCompleted?.length ?? 0) < m.stepsCompleted.length) return `${m.stepsCompleted.length} step(s) done in ${m.branch}`;
  return `${m.status ?? '?'} in ${m.branch}`;
}

/** One sentence for a tooltip: where, what it has there, and what this checkout says. */
export function markSentence(m: WorktreeMark): string {
  const steps = (s?: string[]) => (s ? ` (steps ${s.join(', ') || '-'})` : '');
  const there = `${m.status ?? 'no status'}${m.kind === 'workflow' ? steps(m.stepsCompleted) : ''}`;
  const here = m.here ? `${m.here.status ?? 'no status'}${m.kind === 'workflow' ? steps(m.here.stepsCompleted) : ''}` : 'not here';
  return `Ahead in worktree ${m.branch} (${m.worktree}): ${there}; here: ${here}. Not merged into this checkout yet.`;
}

export class WorktreeMonitor extends Disposable {
  private readonly byRoot = new Map<string, { key: string; top: string; rootReal: string; marks: WorktreeMark[] }>();
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private lastMs = 0;
  private running?: Promise<void>;
  private again = false;
  /** Completed refreshes (the test API waits on it). */
  refreshes = 0;
  /** Bumped each time the markers change (a surface that caches them compares it). */
  marksVersion = 0;

  constructor(
    private readonly deps: { roots(): readonly string[]; enabled(): boolean; log: vscode.LogOutputChannel },
    private readonly changed: () => void,
  ) {
    super();
    this.register({
      dispose: () => {
        clearTimeout(this.timer);
        clearTimeout(this.soon);
        this.byRoot.clear();
      },
    });
  }

  /** Starts or stops with the setting and the folders; call after either changes. */
  sync(): void {
    if (this.isDisposed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.deps.enabled()) {
      const had = [...this.byRoot.values()].some((e) => e.marks.length);
      this.byRoot.clear();
      if (had) {
        this.marksVersion++;
        this.changed();
      }
      return;
    }
    void this.refresh().finally(() => this.schedule());
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.isDisposed || !this.deps.enabled()) return;
    this.timer = setTimeout(() => void this.refresh().finally(() => this.schedule()), Math.max(WORKTREE_REFRESH_MS, 20 * this.lastMs));
  }

  /** Workflow state changed here: re-read a little later (a merge back clears the markers). */
  stateChanged(): void {
    if (this.isDisposed || !this.deps.enabled()) return;
    clearTimeout(this.soon);
    this.soon = setTimeout(() => void this.refresh(), AFTER_CHANGE_MS);
  }

  /** Re-reads every folder now; concurrent calls share one run (and one more after it). */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.readAll();
        } while (this.again && !this.isDisposed);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Marks for a workflow file of this checkout. */
  forFile(file: string): WorktreeMark[] {
    for (const [root, e] of this.byRoot) {
      if (!e.marks.length) continue;
      // git names the top by its real path; the workspace folder may be reached through a link.
      const inRoot = path.relative(root, file);
      if (/^\.\.(?:[\\/]|$)/.test(inRoot) || path.isAbsolute(inRoot)) continue;
      const id = path.relative(e.top, path.join(e.rootReal, inRoot)).split(path.sep).join('/');
      if (id.startsWith('..')) continue;
      const found = e.marks.filter((m) => m.kind === 'workflow' && m.id === id);
      if (found.length) return found;
    }
    return [];
  }

  /** Marks for a story of the folder `root`. */
  forStory(root: string, key: string): WorktreeMark[] {
    return this.byRoot.get(root)?.marks.filter((m) => m.kind === 'story' && m.id === `story ${key}`) ?? [];
  }

  private async readAll(): Promise<void> {
    if (!this.deps.enabled()) return;
    const started = Date.now();
    let fire = false;
    const roots = this.deps.roots();
    for (const r of [...this.byRoot.keys()]) if (!roots.includes(r)) fire = this.byRoot.delete(r) || fire;
    for (const root of roots) {
      let top = root;
      let marks: WorktreeMark[] = [];
      try {
        const r = await aheadInOtherWorktrees(root);
        top = r.top;
        marks = r.ahead.map((a) => ({ ...a, root }));
      } catch (e) {
        // Not a git repository (or git missing): no markers, nothing to say more than once.
        if (!/not inside a git repository/.test(errorMessage(e)) && !this.byRoot.has(root)) this.deps.log.warn(`[worktrees] ${root}: ${errorMessage(e)}`);
      }
      if (this.isDisposed) return;
      const key = JSON.stringify(marks);
      // A first read with nothing ahead changes no marker: no event (every tree would redraw).
      if ((this.byRoot.get(root)?.key ?? '[]') !== key) fire = true;
      let rootReal = root;
      try {
        rootReal = fs.realpathSync(root);
      } catch {
        // gone meanwhile: no markers match it
      }
      this.byRoot.set(root, { key, top, rootReal, marks });
    }
    this.refreshes++;
    this.lastMs = Date.now() - started;
    if (fire) this.marksVersion++;
    if (fire && !this.isDisposed) this.changed();
  }
}

import * as path from 'node:path';
import { WaymarkError, errorMessage } from '../errors';
import type { ScanProgress } from '../api';
import type { Clock, Logger } from '../ports';
import type { ChangeEvent, Disposable, Problem, ScanResult, WorkflowState } from '../types';
import { scanRoots } from '../store/scan';
import { validateDelegation } from '../model/delegation';
import type { ContextCache } from './contextCache';
import { readWorkflowText, type ReadFile } from './workflowReader';
import { parseWorkflowText } from '../model/workflow';

/**
 * The core's in-memory model: the last read state of every workflow file, the cross-file
 * (delegation) problems computed over all of them, the scan's own problems, and the one
 * change event every face listens to.
 */
/**
 * The states by file, with their sorted list kept: long-lived faces list them on every answer, and
 * a write replaces one known file's state in place (its position by name does not move), so the
 * list is sorted again only when a file comes or goes.
 */
class StateMap extends Map<string, WorkflowState> {
  sorted?: WorkflowState[];
  /** Each file's index in `sorted` (built with it). */
  private at?: Map<string, number>;
  override set(file: string, state: WorkflowState): this {
    const i = this.at?.get(file);
    if (i !== undefined && this.sorted) this.sorted[i] = state;
    else this.sorted = this.at = undefined;
    return super.set(file, state);
  }
  override delete(file: string): boolean {
    this.sorted = this.at = undefined;
    return super.delete(file);
  }
  override clear(): void {
    this.sorted = this.at = undefined;
    super.clear();
  }
  list(): WorkflowState[] {
    if (!this.sorted) {
      this.sorted = [...this.values()].sort((a, b) => a.file.localeCompare(b.file));
      this.at = new Map(this.sorted.map((s, i) => [s.file, i]));
    }
    return this.sorted;
  }
}

export class WorkflowModel {
  private readonly states = new StateMap();
  private scanProblems: Problem[] = [];
  private crossProblems: Problem[] = [];
  private readonly listeners = new Set<(e: ChangeEvent) => void>();
  private disposed = false;

  constructor(
    private readonly roots: readonly string[],
    private readonly contexts: ContextCache,
    private readonly readWorkflow: (abs: string) => Promise<ReadFile>,
    private readonly opts: { overrides?: Record<string, unknown>; logger: Logger; clock: Clock; scanIndex?: boolean; sliceMs?: number },
  ) {}

  async scan(progress?: ScanProgress): Promise<ScanResult> {
    const result = await scanRoots([...this.roots], { overrides: this.opts.overrides, logger: this.opts.logger, contexts: this.contexts.loaded, now: () => this.opts.clock.now(), index: this.opts.scanIndex, onProgress: progress?.onProgress, firstProgressFiles: progress?.firstProgressFiles, hold: progress?.hold, sliceMs: this.opts.sliceMs });
    for (const [root, ctx] of result.contexts) this.contexts.loaded.set(root, ctx);
    const changes: ChangeEvent['changes'] = [];
    const seen = new Set<string>();
    for (const s of result.workflows) {
      seen.add(s.file);
      const old = this.states.get(s.file);
      if (!old || old.contentHash !== s.contentHash || old.stateHash !== s.stateHash) changes.push({ file: s.file, state: s });
      this.states.set(s.file, s);
    }
    // A known file the scan found but could not read as a workflow (mid-write, a YAML error)
    // keeps its last good state, as a reload would; a deleted or unreadable one is forgotten.
    const unparsed = new Map<string, Problem[]>();
    for (const p of result.problems) if (p.file !== undefined) unparsed.set(p.file, [...(unparsed.get(p.file) ?? []), p]);
    for (const sk of result.skipped) if (sk.reason === 'no-frontmatter' && !unparsed.has(sk.file)) unparsed.set(sk.file, []);
    const keptStale = new Set<string>();
    for (const [file, old] of [...this.states]) {
      if (seen.has(file)) continue;
      const now = unparsed.get(file);
      if (now) {
        const stale = staleState(old, now);
        this.states.set(file, stale);
        keptStale.add(file);
        if (!old.stale || old.staleReason !== stale.staleReason) changes.push({ file, state: stale });
        continue;
      }
      this.states.delete(file);
      changes.push({ file, removed: true });
    }
    this.scanProblems = result.problems.filter((p) => !keptStale.has(p.file));
    // Over the model's states (stale ones kept included), like a reload computes them.
    this.crossProblems = keptStale.size ? this.computeCross() : result.crossProblems;
    this.crossStale = false;
    if (changes.length) this.emit({ changes });
    return { ...result, problems: this.problems(), crossProblems: this.cross() };
  }

  async reload(file: string): Promise<WorkflowState | undefined> {
    const abs = path.resolve(file);
    const old = this.states.get(abs);
    let read: ReadFile | undefined;
    try {
      read = await this.readWorkflow(abs);
    } catch (e) {
      if (old && (WaymarkError.is(e, 'invalid') || WaymarkError.is(e, 'usage'))) return this.keepLastGood(abs, old);
      if (!WaymarkError.is(e, 'unreadable') && !WaymarkError.is(e, 'invalid')) throw e;
      read = undefined;
    }
    if (!read) {
      if (old) this.remove(abs);
      return undefined;
    }
    this.states.set(abs, read.state);
    this.refreshCross();
    if (!old || old.contentHash !== read.state.contentHash || old.stateHash !== read.state.stateHash) this.emit({ changes: [{ file: abs, state: read.state }] });
    return read.state;
  }

  /**
   * The file is there but does not read as a workflow now (an agent mid-write, a YAML error):
   * the model keeps its last good state, marked stale, with the problems of the current text.
   */
  private async keepLastGood(abs: string, old: WorkflowState): Promise<WorkflowState> {
    let problems: Problem[] = [];
    try {
      const ctx = await this.contexts.contextFor(abs);
      problems = parseWorkflowText(abs, readWorkflowText(abs, ctx), ctx).problems;
    } catch (e) {
      this.opts.logger.warn(`[core] could not validate ${abs}: ${errorMessage(e)}`);
    }
    const stale = staleState(old, problems);
    const staleReason = stale.staleReason;
    this.states.set(abs, stale);
    this.refreshCross();
    if (!old.stale) this.opts.logger.warn(`[core] ${abs} does not read as a workflow now (${staleReason}); keeping its last good state (stale)`);
    if (!old.stale || old.staleReason !== staleReason || JSON.stringify(old.problems) !== JSON.stringify(problems)) this.emit({ changes: [{ file: abs, state: stale }] });
    return stale;
  }

  remove(file: string): void {
    const abs = path.resolve(file);
    if (!this.states.delete(abs)) return;
    this.refreshCross();
    this.emit({ changes: [{ file: abs, removed: true }] });
  }

  get(file: string): WorkflowState | undefined {
    return this.states.get(path.resolve(file));
  }

  /** Records a state the write path just wrote (no event: the caller emits once it is done). */
  set(abs: string, state: WorkflowState): void {
    this.states.set(abs, state);
  }

  get size(): number {
    return this.states.size;
  }

  list(): WorkflowState[] {
    return this.states.list().slice();
  }

  problems(): Problem[] {
    return [...this.states.list().flatMap((s) => s.problems), ...this.cross(), ...this.scanProblems];
  }

  /**
   * The cross-file problems are out of date after one or more states changed: computed again when
   * next asked for (a write does not pay for a check over every workflow nobody reads yet).
   */
  refreshCross(): void {
    this.crossStale = true;
  }

  private crossStale = false;

  private cross(): Problem[] {
    if (this.crossStale) {
      this.crossStale = false;
      this.crossProblems = this.computeCross();
    }
    return this.crossProblems;
  }

  onDidChange(listener: (e: ChangeEvent) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  emit(e: ChangeEvent): void {
    if (this.disposed) return;
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        this.opts.logger.error(`[core] change listener failed: ${errorMessage(err)}`);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }

  private computeCross(): Problem[] {
    try {
      return validateDelegation(this.states.list());
    } catch (e) {
      this.opts.logger.error(`[core] delegation check failed: ${errorMessage(e)}`);
      return [];
    }
  }
}

/** The last good state of a file whose current text does not read as a workflow, with that text's problems. */
function staleState(old: WorkflowState, problems: Problem[]): WorkflowState {
  const first = problems.find((p) => p.severity === 'error');
  const staleReason = first ? `line ${first.range.start.line + 1}: ${first.message}` : 'its frontmatter no longer names a workflow';
  return { ...old, stale: true, staleReason, problems };
}

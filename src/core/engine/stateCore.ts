import * as path from 'node:path';
import type { StateCore, StateCoreInit } from '../api';
import { silentLogger, systemClock } from '../ports';
import type {
  ChangeEvent,
  ChangedReport,
  Disposable,
  GateState,
  HistoryEntry,
  ManifestRow,
  MutationOptions,
  MutationResult,
  Problem,
  ResumePoint,
  ScanResult,
  Scope,
  Status,
  WorkflowState,
} from '../types';
import type { WorkspaceContext } from '../store/workspaceContext';
import { parseWorkflowText } from '../model/workflow';
import { writeManifest, changedSince } from '../store/manifest';
import { frontmatterResume } from '../model/resume';
import { readHistory } from '../store/history';
import { planAdvance, planBlock, planCompleteStep, planFix, planSetScope, planSetStatus, planStart, planUnblock } from '../model/mutations';
import { ContextCache } from './contextCache';
import { WorkflowModel } from './workflowModel';
import { WritePipeline } from './writePipeline';
import { delegateWorkflow } from './delegate';
import { showGate, writeGateVerdict } from './gateVerdicts';

/** Composes the core's parts: contexts, model, write pipeline; each API method is one call into them. */
class StateCoreImpl implements StateCore {
  readonly roots: string[];
  private readonly clock;
  private readonly contexts: ContextCache;
  private readonly model: WorkflowModel;
  private readonly writes: WritePipeline;

  constructor(init: StateCoreInit) {
    this.roots = init.roots.map((r) => path.resolve(r));
    const logger = init.logger ?? silentLogger;
    this.clock = init.clock ?? systemClock;
    this.contexts = new ContextCache(this.roots, init.configOverrides, logger, this.clock);
    this.model = new WorkflowModel(this.roots, this.contexts, (abs) => this.writes.readWorkflow(abs), { overrides: init.configOverrides, logger, clock: this.clock, scanIndex: init.scanIndex });
    this.writes = new WritePipeline(init, logger, this.clock, this.contexts, this.model);
  }

  // The model.

  scan(): Promise<ScanResult> {
    return this.model.scan();
  }

  reload(file: string): Promise<WorkflowState | undefined> {
    return this.model.reload(file);
  }

  remove(file: string): void {
    this.model.remove(file);
  }

  async parseText(file: string, text: string): Promise<{ state?: WorkflowState; problems: Problem[] }> {
    const abs = path.resolve(file);
    const ctx = await this.contextFor(abs);
    const parsed = parseWorkflowText(abs, text, ctx);
    return { state: parsed.state, problems: parsed.problems };
  }

  get(file: string): WorkflowState | undefined {
    return this.model.get(file);
  }

  list(): WorkflowState[] {
    return this.model.list();
  }

  problems(): Problem[] {
    return this.model.problems();
  }

  onDidChange(listener: (e: ChangeEvent) => void): Disposable {
    return this.model.onDidChange(listener);
  }

  dispose(): void {
    this.model.dispose();
  }

  rootFor(file: string): string {
    return this.contexts.rootFor(file);
  }

  contextFor(file: string): Promise<WorkspaceContext> {
    return this.contexts.contextFor(file);
  }

  // Mutations: a plan each, through the one write path.

  start(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.writes.mutate(file, 'start', options, (s) => planStart(s, this.clock.now()));
  }

  advance(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.writes.mutate(file, 'advance', options, (s, ctx) => planAdvance(s, this.clock.now(), this.writes.gateLookup(ctx, s)));
  }

  completeStep(file: string, step: string, options?: MutationOptions): Promise<MutationResult> {
    return this.writes.mutate(file, 'complete-step', options, (s, ctx) => planCompleteStep(s, step, this.clock.now(), this.writes.gateLookup(ctx, s)));
  }

  setStatus(file: string, status: Status, options?: MutationOptions & { reason?: string }): Promise<MutationResult> {
    return this.writes.mutate(file, 'set-status', options, (s) => planSetStatus(s, status, options?.reason, this.clock.now()));
  }

  block(file: string, reason: string, options?: MutationOptions): Promise<MutationResult> {
    return this.writes.mutate(file, 'block', options, (s) => planBlock(s, reason, this.clock.now()));
  }

  unblock(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.writes.mutate(file, 'unblock', options, (s) => planUnblock(s, this.clock.now()));
  }

  setScope(file: string, scope: Scope, options?: MutationOptions): Promise<MutationResult> {
    return this.writes.mutate(file, 'set-scope', options, (s) => planSetScope(s, scope, this.clock.now()));
  }

  applyFix(file: string, problem: Problem, options?: MutationOptions): Promise<MutationResult> {
    return this.writes.mutate(file, 'fix', options, (s) => planFix(s, problem, this.clock.now()));
  }

  delegate(file: string, args: { agent: string; out?: string; workflow?: string }, options?: MutationOptions): Promise<MutationResult> {
    return delegateWorkflow(this.writes, file, args, options);
  }

  // Gates.

  gatePass(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState> {
    return writeGateVerdict(this.writes, file, step, 'PASS', args, options);
  }

  gateFail(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState> {
    return writeGateVerdict(this.writes, file, step, 'FAIL', args, options);
  }

  gateConcerns(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState> {
    return writeGateVerdict(this.writes, file, step, 'CONCERNS', args, options);
  }

  gateWaive(file: string, step: string, args: { reason: string; by: string; expires?: string }, options?: MutationOptions): Promise<GateState> {
    return writeGateVerdict(this.writes, file, step, 'WAIVED', args, options);
  }

  gateShow(file: string, step: string): Promise<GateState> {
    return showGate(this.writes, file, step);
  }

  // History, manifest, resume.

  async history(file: string): Promise<HistoryEntry[]> {
    const abs = path.resolve(file);
    const ctx = await this.contextFor(abs);
    return readHistory(ctx.root, abs, ctx.config.history?.dir);
  }

  async manifest(root?: string): Promise<{ file: string; rows: ManifestRow[] }> {
    const r = path.resolve(root ?? this.roots[0]);
    if (!this.model.size) await this.scan();
    const ctx = await this.contextFor(path.join(r, 'x'));
    return writeManifest(r, this.list().filter((s) => s.root === r), ctx.config.manifest?.path);
  }

  async changed(root?: string): Promise<ChangedReport> {
    const r = path.resolve(root ?? this.roots[0]);
    if (!this.model.size) await this.scan();
    const ctx = await this.contextFor(path.join(r, 'x'));
    return changedSince(r, this.list().filter((s) => s.root === r), ctx.config.manifest?.path);
  }

  async resume(file: string): Promise<ResumePoint> {
    const abs = path.resolve(file);
    let state: WorkflowState;
    try {
      state = (await this.writes.readWorkflow(abs)).state;
    } catch (e) {
      // Unparseable right now (mid-edit): answer from the last good state when there is one.
      const last = this.model.get(abs);
      if (!last) throw e;
      state = { ...last, stale: true };
    }
    return frontmatterResume(state);
  }
}

/**
 * Creates the state core: one in-process model of the workflow files under `init.roots`,
 * with every mutation going through lock → re-read → hash check → guards → validate →
 * atomic write → history → observers → onDidChange.
 */
export function createStateCore(init: StateCoreInit): StateCore & { rootFor(file: string): string; contextFor(file: string): Promise<WorkspaceContext> } {
  return new StateCoreImpl(init);
}

import * as path from 'node:path';
import type { MemoryApi, ProtocolApi, ScanProgress, SprintApi, StateCore, StateCoreOptions } from '../api';
import { createSprintApi } from '../bmad/sprintApi';
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
import { MUTATIONS, isMutationName, type MutationArgs, type MutationName, type MutationSpec } from '../model/mutations';
import { WaymarkError } from '../errors';
import { ContextCache } from './contextCache';
import { WorkflowModel } from './workflowModel';
import { WritePipeline, checkReason } from './writePipeline';
import { delegateWorkflow } from './delegate';
import { showGate, writeGateVerdict } from './gateVerdicts';
import { readWorkflowText } from './workflowReader';
import { createProtocolApi } from './protocolApi';
import { CoreMemory } from './memoryApi';
import { workspaceFolderOf } from './roots';
import { leaseGuard } from '../protocol/leases';
import { enforcementGuard } from '../protocol/orchestrator';
import { eventsGuard, eventsObserver } from '../protocol/events';

/**
 * Composes the core's parts: contexts, model, write pipeline, protocol and memory; each API
 * method is one call into them.
 */
class StateCoreImpl implements StateCore {
  readonly roots: string[];
  readonly protocol: ProtocolApi;
  readonly sprint: SprintApi;
  readonly memory: MemoryApi;
  private readonly clock;
  private readonly contexts: ContextCache;
  private readonly model: WorkflowModel;
  private readonly writes: WritePipeline;
  private readonly coreMemory: CoreMemory;

  constructor(options: StateCoreOptions) {
    const { memory = true, origin, eventsAfterAnswer, ...init } = options;
    const memoryOn = memory !== false;
    const consolidate = memoryOn && (memory === true || memory.consolidateOnWrite !== false);
    const after = typeof memory === 'object' ? memory.consolidateAfterAnswer : undefined;
    const afterAnswer = after === true || typeof after === 'object';
    this.roots = init.roots.map((r) => path.resolve(r));
    const logger = init.logger ?? silentLogger;
    this.clock = init.clock ?? systemClock;
    this.contexts = new ContextCache(this.roots, { overrides: init.configOverrides, logger, clock: this.clock, preloaded: init.contexts });
    this.coreMemory = new CoreMemory(memoryOn, { logger, clock: this.clock, origin, batch: typeof after === 'object' ? after : undefined });
    this.memory = this.coreMemory;
    // Every face gets the same write path: leases honoured on every write, every write an event,
    // completions fed to memory unless it is off.
    const guards = [leaseGuard(), enforcementGuard(), eventsGuard(), ...(init.guards ?? [])];
    const observers = [eventsObserver({}, { afterAnswer: eventsAfterAnswer }), ...(init.observers ?? []), ...(consolidate ? [this.coreMemory.observer(afterAnswer)] : [])];
    this.model = new WorkflowModel(this.roots, this.contexts, (abs) => this.writes.readWorkflow(abs), { overrides: init.configOverrides, logger, clock: this.clock, scanIndex: init.scanIndex, sliceMs: init.scanSliceMs });
    // Consolidating before the write returns, the cold-file line rides in the write's own change;
    // a face that consolidates after the answer (the MCP server) batches it with the next writes.
    const companions = consolidate && !afterAnswer ? [this.coreMemory.companion()] : [];
    this.writes = new WritePipeline({ ...init, guards, observers }, logger, this.clock, this.contexts, this.model, companions);
    this.protocol = createProtocolApi(init, { clock: this.clock, logger, contexts: this.contexts, guards });
    this.sprint = createSprintApi({ clock: this.clock, guards, observers, actor: init.actor, session: init.session, logger, contextOf: (root) => this.contexts.contextFor(path.join(path.resolve(root), '_')) });
  }

  // The model.

  scan(progress?: ScanProgress): Promise<ScanResult> {
    return this.model.scan(progress);
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

  async readWorkflow(file: string): Promise<{ text: string; state?: WorkflowState; problems: Problem[] }> {
    const abs = path.resolve(file);
    const ctx = await this.contextFor(abs);
    const text = readWorkflowText(abs, ctx, this.writes.fs);
    const parsed = parseWorkflowText(abs, text, ctx);
    return { text, state: parsed.state, problems: parsed.problems };
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
    void this.coreMemory.close();
  }

  async close(): Promise<void> {
    this.model.dispose();
    await this.coreMemory.close();
  }

  rootFor(file: string): string {
    return this.contexts.rootFor(file);
  }

  rootOf(file: string): string | undefined {
    return workspaceFolderOf(this.roots, file);
  }

  contextFor(file: string): Promise<WorkspaceContext> {
    return this.contexts.contextFor(file);
  }

  // Mutations: a plan each, through the one write path.

  async apply<N extends MutationName>(file: string, operation: N, args: MutationArgs<N>, options?: MutationOptions): Promise<MutationResult> {
    if (!isMutationName(operation)) throw new WaymarkError('usage', `Unknown operation ${String(operation)}; known: ${Object.keys(MUTATIONS).join(', ')}.`);
    const m = MUTATIONS[operation] as MutationSpec<MutationArgs<N>>;
    // Every mutation that takes a reason refuses an oversized one before anything is read.
    const reason = (args as { reason?: unknown }).reason;
    if (typeof reason === 'string') checkReason(reason, file);
    return this.writes.mutate(file, operation, options, (s, ctx) => m.plan(s, args, { now: this.clock.now(), gates: this.writes.gateLookup(ctx, s) }));
  }

  start(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.apply(file, 'start', {}, options);
  }

  advance(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.apply(file, 'advance', {}, options);
  }

  completeStep(file: string, step: string, options?: MutationOptions): Promise<MutationResult> {
    return this.apply(file, 'complete-step', { step }, options);
  }

  setStatus(file: string, status: Status, options?: MutationOptions & { reason?: string }): Promise<MutationResult> {
    return this.apply(file, 'set-status', { status, reason: options?.reason }, options);
  }

  block(file: string, reason: string, options?: MutationOptions): Promise<MutationResult> {
    return this.apply(file, 'block', { reason }, options);
  }

  unblock(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.apply(file, 'unblock', {}, options);
  }

  setScope(file: string, scope: Scope, options?: MutationOptions): Promise<MutationResult> {
    return this.apply(file, 'set-scope', { scope }, options);
  }

  applyFix(file: string, problem: Problem, options?: MutationOptions): Promise<MutationResult> {
    return this.apply(file, 'fix', { problem }, options);
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

  writeNonStateKey(file: string, key: 'tracker', value: import('../model/edit').EditValue | undefined, options?: { expectStateHash?: string }): Promise<boolean> {
    return this.writes.writeNonStateKey(file, key, value, options);
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
 * Creates the state core, the one object every face uses: an in-process model of the workflow
 * files under `options.roots`, every mutation going through lock → re-read → hash check →
 * guards (leases first) → validate → atomic write → history → observers (events, memory) →
 * onDidChange; the protocol (`core.protocol`) and memory (`core.memory`) bound to it.
 * `close()` releases everything it opened.
 */
export function createStateCore(options: StateCoreOptions): StateCore {
  return new StateCoreImpl(options);
}

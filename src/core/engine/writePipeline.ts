import * as path from 'node:path';
import type { StateCoreInit, WriteContext } from '../api';
import { WaymarkError, errorMessage } from '../errors';
import type { Clock, FileSystem, Logger } from '../ports';
import { nodeFileSystem } from '../store/nodeFileSystem';
import type { HistoryEntry, MutationOptions, MutationResult, Problem, StepDef, WorkflowState } from '../types';
import type { WorkspaceContext } from '../store/workspaceContext';
import { gateFilePath, readGate } from '../model/gates';
import { editFrontmatter } from '../model/edit';
import { writeFileAtomic, removeStaleTemps } from '../store/atomicWrite';
import { acquireFileLock, type HeldLock } from '../store/fileLock';
import { appendHistory, assertHistoryAppendable, stateChange } from '../store/history';
import type { GateLookup, Plan } from '../model/mutations';
import type { ContextCache } from './contextCache';
import type { WorkflowModel } from './workflowModel';
import { parseWorkflowFile, readWorkflowText, type ReadFile } from './workflowReader';
import { assertWritableInside } from './roots';

/** Keys a plan may touch without changing the state (the state hash leaves them out). */
const TIMESTAMP_KEYS = new Set(['updatedAt']);

function errorCounts(problems: Problem[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of problems) if (p.severity === 'error') m.set(p.code, (m.get(p.code) ?? 0) + 1);
  return m;
}

/** Errors in `after` that `before` did not have (by code). */
export function newErrors(before: Problem[], after: Problem[]): Problem[] {
  const seen = errorCounts(before);
  const out: Problem[] = [];
  for (const p of after) {
    if (p.severity !== 'error') continue;
    const n = seen.get(p.code) ?? 0;
    if (n > 0) seen.set(p.code, n - 1);
    else out.push(p);
  }
  return out;
}

/**
 * The one write path: lock → re-read → hash check → guards → plan → validate → atomic write
 * → history → observers → event. Delegation and gate verdicts reuse its steps.
 */
export class WritePipeline {
  constructor(
    readonly init: StateCoreInit,
    readonly logger: Logger,
    readonly clock: Clock,
    readonly contexts: ContextCache,
    readonly model: WorkflowModel,
  ) {
    this.fs = init.fs ?? nodeFileSystem;
  }

  /** How workflow files are read (the core's FileSystem port). */
  readonly fs: FileSystem;

  /** Reads and parses a workflow file through the one reader, as the core's FileSystem shows it. */
  async readWorkflow(abs: string): Promise<ReadFile> {
    const ctx = await this.contexts.contextFor(abs);
    return parseWorkflowFile(abs, readWorkflowText(abs, ctx, this.fs), ctx);
  }

  /**
   * The same reader on the disk itself, under the write lock: a write is computed from the bytes
   * it replaces, never from a view laid over them (an editor's unsaved text goes in `options.text`).
   */
  async readForWrite(abs: string): Promise<ReadFile> {
    const ctx = await this.contexts.contextFor(abs);
    return parseWorkflowFile(abs, readWorkflowText(abs, ctx, nodeFileSystem), ctx);
  }

  parse(abs: string, text: string, ctx: WorkspaceContext): ReadFile {
    return parseWorkflowFile(abs, text, ctx);
  }

  writeContext(abs: string, root: string, operation: string, opts: MutationOptions): WriteContext {
    return { file: abs, root, operation, actor: opts.actor ?? this.init.actor, session: opts.session ?? this.init.session };
  }

  gateLookup(ctx: WorkspaceContext, state: WorkflowState): GateLookup {
    return (step: StepDef) => {
      if (!step.gate) return undefined;
      return readGate(gateFilePath(ctx, state, step.gate), step.gate, this.clock.now());
    };
  }

  lockOptions(root: string) {
    return { root, purpose: 'waymark mutation' };
  }

  async runGuards(wctx: WriteContext): Promise<void> {
    for (const g of this.init.guards ?? []) await g(wctx);
  }

  async runObservers(entry: HistoryEntry, wctx: WriteContext & { after?: WorkflowState }): Promise<void> {
    for (const o of this.init.observers ?? []) {
      try {
        await o(entry, wctx);
      } catch (e) {
        this.logger.error(`[core] write observer failed after ${wctx.operation} on ${wctx.file}: ${errorMessage(e)}`);
      }
    }
  }

  checkHash(state: WorkflowState, options: MutationOptions): void {
    if (options.expectHash && options.expectHash !== state.stateHash) {
      throw new WaymarkError(
        'conflict',
        `${state.file} changed since it was read (state hash ${state.stateHash.slice(0, 12)}, expected ${options.expectHash.slice(0, 12)}); re-read it and retry.`,
        state.file,
        { expected: options.expectHash, actual: state.stateHash },
      );
    }
  }

  applyPlan(read: ReadFile, plan: Plan, ctx: WorkspaceContext, operation: string): { newText: string; after: WorkflowState } {
    let newText = read.text;
    try {
      if (plan.edits.length) newText = editFrontmatter(read.text, plan.edits);
    } catch (e) {
      // The editor's refusals do not know the file: name it.
      if (WaymarkError.is(e) && !e.file) throw new WaymarkError(e.reason, `${read.state.file}: ${e.message}`, read.state.file, e.data);
      throw e;
    }
    const after = this.parse(read.state.file, newText, ctx).state;
    const fresh = newErrors(read.problems, after.problems);
    if (fresh.length) {
      const p = fresh[0];
      throw new WaymarkError('invalid', `Refused: ${operation} would leave ${read.state.file} with a new error at line ${p.range.start.line + 1}: ${p.message}`, read.state.file, {
        problems: fresh.map((x) => ({ code: x.code, message: x.message })),
      });
    }
    return { newText, after };
  }

  /**
   * Lock → re-read → hash check → guards → plan → validate → atomic write → history →
   * observers → event. With `options.text` only the new text is computed.
   */
  async mutate(file: string, operation: string, options: MutationOptions | undefined, makePlan: (state: WorkflowState, ctx: WorkspaceContext) => Plan): Promise<MutationResult> {
    const opts = options ?? {};
    const abs = path.resolve(file);
    const ctx = await this.contexts.contextFor(abs);
    if (opts.text !== undefined) {
      const read = this.parse(abs, opts.text, ctx);
      this.checkHash(read.state, opts);
      const plan = makePlan(read.state, ctx);
      const { newText, after } = this.applyPlan(read, plan, ctx, operation);
      if (this.isNoChange(read, plan, after, operation)) return { file: abs, operation, before: read.state, after: read.state, newText: read.text, written: false, changed: false };
      return { file: abs, operation, before: read.state, after, newText, written: false, changed: true };
    }
    assertWritableInside(abs, ctx.root);
    const lock = await acquireFileLock(abs, this.lockOptions(ctx.root));
    this.logBroken(lock, abs);
    let result: MutationResult;
    let entry: HistoryEntry | undefined;
    const wctx = this.writeContext(abs, ctx.root, operation, opts);
    try {
      const read = await this.readForWrite(abs);
      this.checkHash(read.state, opts);
      await this.runGuards(wctx);
      const plan = makePlan(read.state, ctx);
      const { newText, after } = this.applyPlan(read, plan, ctx, operation);
      if (this.isNoChange(read, plan, after, operation)) {
        // Same state (hashes leave timestamps out): nothing to write, nothing to record.
        this.model.set(abs, read.state);
        return { file: abs, operation, before: read.state, after: read.state, newText: read.text, written: false, changed: false };
      }
      assertHistoryAppendable(ctx.root, abs, ctx.config.history?.dir);
      if (newText !== read.text) writeFileAtomic(abs, newText, { mustExist: true });
      try {
        entry = this.appendEntry(ctx, abs, operation, wctx, read.state, after, plan.detail);
      } catch (e) {
        this.model.set(abs, after);
        throw new WaymarkError('io', `${abs} was changed (${operation}), but its history line could not be appended: ${errorMessage(e).replace(/ Nothing was changed\.$/, "")}`, abs, { written: true });
      }
      result = { file: abs, operation, before: read.state, after, newText, written: newText !== read.text, changed: true, seq: entry.seq };
      this.model.set(abs, after);
    } finally {
      lock.release();
    }
    this.model.refreshCross();
    await this.runObservers(entry!, { ...wctx, after: result.after });
    this.model.emit({ changes: [{ file: abs, state: result.after }] });
    return result;
  }

  /**
   * True when a plan changes nothing that matters: the state hash is the same and, apart from
   * timestamp keys, the edits leave the text as it was (a fix removing a stray key is a change).
   */
  private isNoChange(read: ReadFile, plan: Plan, after: WorkflowState, operation: string): boolean {
    if (after.stateHash !== read.state.stateHash) return false;
    const substantive = operation === 'fix' ? plan.edits : plan.edits.filter((e) => !TIMESTAMP_KEYS.has(e.key));
    if (!substantive.length) return true;
    try {
      return editFrontmatter(read.text, substantive) === read.text;
    } catch {
      return false;
    }
  }

  logBroken(lock: HeldLock, file?: string): void {
    for (const b of lock.broken) this.logger.warn(`[lock] ${b}`);
    // A writer that died holding the lock may have left its temp file behind.
    if (lock.broken.length && file) for (const t of removeStaleTemps(file)) this.logger.warn(`[write] removed ${t} left by a writer that died`);
  }

  appendEntry(ctx: WorkspaceContext, abs: string, operation: string, wctx: WriteContext, before: WorkflowState | undefined, after: WorkflowState | undefined, detail?: Record<string, unknown>): HistoryEntry {
    const { from, to } = stateChange(before, after);
    const res = appendHistory(
      ctx.root,
      {
        time: this.clock.now().toISOString(),
        session: wctx.session,
        actor: wctx.actor,
        operation,
        file: abs,
        from,
        to,
        hashBefore: before?.stateHash,
        hashAfter: after?.stateHash,
        detail,
      },
      ctx.config.history?.dir,
    );
    if (res.repaired) this.logger.warn(`[history] ${res.repaired}`);
    return res.entry;
  }
}

import * as path from 'node:path';
import type { StateCoreInit } from '../api';
import type { WriteCompanion, WriteContext } from '../writeHooks';
import { WaymarkError, errorMessage } from '../errors';
import type { Clock, FileSystem, Logger } from '../ports';
import { nodeFileSystem } from '../store/nodeFileSystem';
import type { HistoryEntry, MutationOptions, MutationResult, Problem, StepDef, WorkflowState } from '../types';
import type { WorkspaceContext } from '../store/workspaceContext';
import { gateOf } from '../model/gates';
import { editFrontmatter, type EditValue } from '../model/edit';
import { removeStaleTemps } from '../store/atomicWrite';
import { appendHistory, assertHistoryAppendable, historySnapshot, lastRecordedState, readHistory, stateChange } from '../store/history';
import { runningSession } from '../protocol/sessions';
import { assertJournalWritable, completeIntent, currentSha256, orphanedIntents, setAsideJournalFile } from '../store/intentJournal';
import { assertNotReadOnly, assertWritable, safeWritePath, withRealPathScope } from '../store/safePath';
import type { GateLookup, Plan } from '../model/mutations';
import type { ContextCache } from './contextCache';
import type { WorkflowModel } from './workflowModel';
import { parseWorkflowFile, readWorkflowText, type ReadFile } from './workflowReader';

/** How many files' last parse WritePipeline.parse keeps. */
const PARSED_FILES = 256;

/** Longest free text (`--reason`) a history line, gate file or frontmatter key gets. */
export const MAX_REASON_CHARS = 4000;

/** Refuses a reason over MAX_REASON_CHARS (exit 2) before anything is read or written. */
export function checkReason(reason: string | undefined, file?: string): void {
  if (reason !== undefined && reason.length > MAX_REASON_CHARS) {
    throw new WaymarkError('usage', `--reason is ${reason.length} characters; the limit is ${MAX_REASON_CHARS}. Shorten it (put long notes in the file's body or a linked document).`, file, { limit: MAX_REASON_CHARS });
  }
}
import { assertWritableInside } from './roots';
import { recoverTxTouching, runTransaction, settleTransactions, type TxContext } from './transaction';

/** Top-level frontmatter keys written outside the state (writeNonStateKey): the ticket mirror. */
export const NON_STATE_KEYS = new Set(['tracker']);

/** Keys a plan may touch without changing the state (the state hash leaves them out). */
const TIMESTAMP_KEYS = new Set(['updatedAt', 'session']);

/**
 * Errors the file had before that it still has after (by code): what a change leaves unfixed.
 * Changing a file that fails validation is refused unless forced (issue 9, item 7).
 */
export function unfixedErrors(before: Problem[], after: Problem[]): Problem[] {
  const left = errorCounts(after);
  const out: Problem[] = [];
  for (const p of before) {
    if (p.severity !== 'error') continue;
    const n = left.get(p.code) ?? 0;
    if (n > 0) {
      left.set(p.code, n - 1);
      out.push(p);
    }
  }
  return out;
}

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
 * Workflow writes: `mutate` plans a frontmatter change and runs it as one transaction of the one
 * engine (transaction.ts): lock → settle killed changes → re-read → hash check → guards → plan →
 * validate → journal → atomic rename → history → observers; then the model's event. Delegation
 * and gate verdicts use its readers and checks in their own planners.
 */
export class WritePipeline {
  constructor(
    readonly init: StateCoreInit,
    readonly logger: Logger,
    readonly clock: Clock,
    readonly contexts: ContextCache,
    readonly model: WorkflowModel,
    /** Files written in a write's own change (memory's cold-file line): TxContext.companions. */
    readonly companions: WriteCompanion[] = [],
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
   * The one real path a write to `abs` uses for its check, read and rename: resolved once here,
   * inside the workspace by its real path (a link leading elsewhere is refused, exit 2).
   */
  writeTarget(abs: string, root: string): string {
    assertWritableInside(abs, root);
    return safeWritePath(root, abs);
  }

  /** Reads the workflow at its resolved real path `target`, named `abs` in the state. */
  readAt(abs: string, target: string, ctx: WorkspaceContext): ReadFile {
    return parseWorkflowFile(abs, readWorkflowText(target, ctx), ctx);
  }

  /**
   * Everything a change needs, checked before the first byte changes, so a refusal leaves
   * nothing half done: the file is not frozen (no write bit: people chmod 0444 to freeze a
   * file), its folder, its history and the intent journal are writable.
   */
  preflight(ctx: WorkspaceContext, abs: string, target: string | undefined): void {
    if (target !== undefined) {
      assertNotReadOnly(abs, target);
      assertWritable(path.join(path.dirname(target), '.waymark-probe'), 'workflow file', { display: abs });
    }
    assertHistoryAppendable(ctx.root, abs, ctx.config.history?.dir);
    assertJournalWritable(ctx.root);
  }

  /** The history line a change will append (its seq is assigned when it is appended). */
  entryFor(abs: string, operation: string, wctx: WriteContext, before: WorkflowState | undefined, after: WorkflowState | undefined, detail?: Record<string, unknown>): Omit<HistoryEntry, 'seq'> {
    const { from, to } = stateChange(before, after);
    return {
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
    };
  }

  /** Appends a prepared history line (see entryFor). */
  append(ctx: WorkspaceContext, entry: Omit<HistoryEntry, 'seq'>): HistoryEntry {
    const res = appendHistory(ctx.root, entry, ctx.config.history?.dir);
    if (res.repaired) this.logger.warn(`[history] ${res.repaired}`);
    return res.entry;
  }

  /**
   * Completes the changes of writers killed between their rename and their history line or
   * events (their intents are still in the journal): a rename that happened gets its history
   * line (marked recovered) and its observers; one that did not is dropped. Call under the lock
   * of `abs`.
   */
  async recover(ctx: WorkspaceContext, abs: string): Promise<void> {
    // A multi-file change (engine/transaction.ts) killed half done is completed first.
    await recoverTxTouching(this.txContext(ctx), abs);
    await this.recoverOneFileIntents(ctx, abs);
  }

  /**
   * The one-file intents (store/intentJournal.ts) about `abs` whose writers died: a delegation's,
   * or one left by an older Waymark. `journal`: the journal folder's names, when already listed.
   */
  async recoverOneFileIntents(ctx: WorkspaceContext, abs: string, journal?: readonly string[]): Promise<void> {
    for (const o of orphanedIntents(ctx.root, abs, journal)) {
      if (!o.intent) {
        setAsideJournalFile(o, this.logger);
        continue;
      }
      const intent = o.intent;
      for (const [i, ie] of intent.entries.entries()) {
        const id = `${intent.id}:${i}`;
        const file = ie.entry.file;
        let entry: HistoryEntry | undefined = readHistory(ctx.root, file, intent.historyDir).find((e) => e.intent === id);
        if (!entry) {
          const w = intent.writes[ie.evidence];
          if (!w || currentSha256(w.file) !== w.sha256) continue; // the rename never happened
          const res = appendHistory(ctx.root, { ...ie.entry, intent: id, detail: { ...(ie.entry.detail ?? {}), recovered: true } }, intent.historyDir);
          entry = res.entry;
          this.logger.warn(`[journal] recovered history line ${entry.seq} (${entry.operation}) of ${file}: its writer (pid ${intent.pid}) died after the change`);
        }
        let after: WorkflowState | undefined;
        try {
          after = (await this.readWorkflow(file)).state;
        } catch {
          after = undefined;
        }
        await this.runObservers(entry, { file, root: ctx.root, operation: entry.operation, actor: entry.actor, session: entry.session, recovered: true, after });
      }
      for (const w of intent.writes) for (const t of removeStaleTemps(w.file)) this.logger.warn(`[write] removed ${t} left by a writer that died`);
      completeIntent(o.path);
    }
  }

  /** How the transaction engine runs for this workspace (its history folder, observers, clock). */
  txContext(ctx: WorkspaceContext, wctx?: WriteContext): TxContext {
    return { root: ctx.root, historyDir: ctx.config.history?.dir, actor: wctx?.actor, session: wctx?.session, now: () => this.clock.now(), guards: this.init.guards, observers: this.init.observers, companions: this.companions, logger: this.logger };
  }

  /** Before taking the lock of `abs`: settles killed multi-file changes touching it (all locks in one order). */
  async settle(ctx: WorkspaceContext, abs: string): Promise<void> {
    await settleTransactions({ ...this.txContext(ctx), guards: undefined }, [abs]);
  }

  /**
   * The last text parsed for each file, with its answer: a write parses the bytes it writes (its
   * `after`), and the next write of the file reads those same bytes back under its lock. The
   * answer is a pure function of the file, its text and the workspace context (a new context
   * object when the config changes), so an equal text in the same context is not parsed again.
   */
  private readonly parsed = new Map<string, { text: string; ctx: WorkspaceContext; read: ReadFile }>();

  parse(abs: string, text: string, ctx: WorkspaceContext): ReadFile {
    const hit = this.parsed.get(abs);
    if (hit && hit.ctx === ctx && hit.text === text) return hit.read;
    const read = parseWorkflowFile(abs, text, ctx);
    if (this.parsed.size >= PARSED_FILES) this.parsed.clear();
    this.parsed.set(abs, { text, ctx, read });
    return read;
  }

  /** Who writes: the caller's session, else the core's, else the session running in the workspace (`waymark session start`). */
  writeContext(abs: string, ctx: WorkspaceContext, operation: string, opts: MutationOptions): WriteContext {
    const root = ctx.root;
    return { file: abs, root, operation, actor: opts.actor ?? this.init.actor, session: opts.session ?? this.init.session ?? runningSession(root, ctx.config.memory?.dir ?? null)?.id };
  }

  /**
   * A hand edit since the last history line (the file's state is not the `to` of the last
   * entry) becomes an `external-edit` line first, so history has no gap and `--at` is exact:
   * `from` is what history last recorded, `to` the whole state as found.
   */
  externalEdit(ctx: WorkspaceContext, abs: string, found: WorkflowState, wctx: WriteContext, last: HistoryEntry | undefined): Omit<HistoryEntry, 'seq' | 'file'> | undefined {
    if (!last || last.hashAfter === found.stateHash) return undefined;
    // Rare (a hand edit): only now is the whole history read, for what it last recorded.
    const entries = readHistory(ctx.root, abs, ctx.config.history?.dir);
    const known: Record<string, unknown> = {};
    for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
      if (e.from) for (const [k, v] of Object.entries(e.from)) if (!(k in known)) known[k] = v;
      if (e.to) Object.assign(known, e.to);
    }
    const now = historySnapshot(found);
    const from: Record<string, unknown> = {};
    const to: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(known), ...Object.keys(now)])) {
      to[k] = now[k] ?? null;
      from[k] = k in known ? known[k] : null;
    }
    this.logger.info(`[history] ${abs}: recording an external edit (after #${last.seq}) before ${wctx.operation}`);
    return {
      time: this.clock.now().toISOString(),
      session: wctx.session,
      actor: 'external',
      operation: 'external-edit',
      from,
      to,
      hashBefore: last.hashAfter,
      hashAfter: found.stateHash,
      detail: { note: `the file was edited outside Waymark after history #${last.seq}; found by ${wctx.actor ?? 'a writer'} before ${wctx.operation}` },
    };
  }

  /**
   * Refuses a change to a file with error-level problems the change leaves in place (exit 4,
   * naming the first and its fix), unless forced. `fix` is exempt: it is the way out.
   */
  checkProblems(read: ReadFile, after: WorkflowState, operation: string, opts: MutationOptions): Problem[] {
    if (operation === 'fix') return [];
    const left = unfixedErrors(read.problems, after.problems);
    if (!left.length || opts.force) return left;
    const p = left[0];
    const file = read.state.file;
    throw new WaymarkError(
      'refused',
      `Refused: ${file} has ${left.length === 1 ? 'an error' : `${left.length} errors`} that ${operation} does not fix: line ${p.range.start.line + 1}: ${p.code}: ${p.message} Fix it first (as the problem says; waymark validate ${file} lists all, waymark fix applies the quick fixes), or pass --force to ${operation} anyway (recorded in history).`,
      file,
      { problems: left.map((x) => ({ code: x.code, line: x.range.start.line + 1, message: x.message })) },
    );
  }

  /** The file's own `session:` key follows the session that writes it (when the file has one). */
  sessionEdit(state: WorkflowState, wctx: WriteContext, plan: Plan): Plan {
    if (!wctx.session || !Object.prototype.hasOwnProperty.call(state.data, 'session')) return plan;
    if (String(state.data.session) === wctx.session || plan.edits.some((e) => e.key === 'session')) return plan;
    return { ...plan, edits: [...plan.edits, { key: 'session', value: wctx.session }] };
  }

  gateLookup(ctx: WorkspaceContext, state: WorkflowState): GateLookup {
    return (step: StepDef) => {
      if (!step.gate) return undefined;
      return gateOf(ctx, state, step.gate, this.clock.now());
    };
  }

  async runGuards(wctx: WriteContext): Promise<void> {
    for (const g of this.init.guards ?? []) await g(wctx);
  }

  /** Runs the observers; false when one failed (its failure is logged, never the write's). */
  async runObservers(entry: HistoryEntry, wctx: WriteContext & { after?: WorkflowState }): Promise<boolean> {
    let ok = true;
    for (const o of this.init.observers ?? []) {
      try {
        await o(entry, wctx);
      } catch (e) {
        ok = false;
        this.logger.error(`[core] write observer failed after ${wctx.operation} on ${wctx.file}: ${errorMessage(e)}`);
      }
    }
    return ok;
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
  mutate(file: string, operation: string, options: MutationOptions | undefined, makePlan: (state: WorkflowState, ctx: WorkspaceContext) => Plan): Promise<MutationResult> {
    // One scope of real paths for the checks before the lock and the transaction (store/safePath.ts).
    return withRealPathScope(() => this.mutateScoped(file, operation, options, makePlan));
  }

  private async mutateScoped(file: string, operation: string, options: MutationOptions | undefined, makePlan: (state: WorkflowState, ctx: WorkspaceContext) => Plan): Promise<MutationResult> {
    const opts = options ?? {};
    const abs = path.resolve(file);
    const ctx = await this.contexts.contextFor(abs);
    if (opts.text !== undefined) {
      const read = this.parse(abs, opts.text, ctx);
      this.checkHash(read.state, opts);
      const plan = this.sessionEdit(read.state, this.writeContext(abs, ctx, operation, opts), makePlan(read.state, ctx));
      const { newText, after } = this.applyPlan(read, plan, ctx, operation);
      if (this.isNoChange(read, plan, after, operation)) return { file: abs, operation, before: read.state, after: read.state, newText: read.text, written: false, changed: false };
      this.checkProblems(read, after, operation, opts);
      return { file: abs, operation, before: read.state, after, newText, written: false, changed: true };
    }
    const wctx = this.writeContext(abs, ctx, operation, opts);
    let landed: WorkflowState | undefined;
    let result: MutationResult;
    try {
      // One transaction of one file (engine/transaction.ts): locked by real path, killed changes
      // touching it settled, re-read, planned here, journaled, renamed with a compare-and-swap,
      // one history line, observers. The guards run in the plan, right after the hash check.
      result = await runTransaction<MutationResult>({ ...this.txContext(ctx, wctx), guards: undefined }, {
        operation,
        files: [abs],
        // At the real path the engine judged (inside the workspace, refused else) and locked.
        read: (_file, target) => readWorkflowText(target, ctx),
        underLocks: (journal) => this.recoverOneFileIntents(ctx, abs, journal),
        plan: async (texts) => {
          const read = this.parse(abs, texts.get(abs)!, ctx);
          this.checkHash(read.state, opts);
          await this.runGuards(wctx);
          const plan = this.sessionEdit(read.state, wctx, makePlan(read.state, ctx));
          const { newText, after } = this.applyPlan(read, plan, ctx, operation);
          if (this.isNoChange(read, plan, after, operation) || newText === read.text) {
            // Same state (hashes leave timestamps out): nothing to write, nothing to record.
            this.model.set(abs, read.state);
            return { writes: [], result: () => ({ file: abs, operation, before: read.state, after: read.state, newText: read.text, written: false, changed: false }) };
          }
          const forced = this.checkProblems(read, after, operation, opts);
          const recorded = lastRecordedState(ctx.root, abs, ctx.config.history?.dir);
          const external = this.externalEdit(ctx, abs, read.state, wctx, recorded.last);
          const detail = forced.length ? { ...(plan.detail ?? {}), forced: { problems: forced.map((p) => p.code) } } : plan.detail;
          const { from, to } = stateChange(read.state, after);
          // A file's first history line records the whole state it started from: later lines
          // record only what changed, and `history --at` needs a known starting point.
          const first = !recorded.any && !external;
          landed = after;
          return {
            // Both texts were hashed by their parses (contentHash): the intent does not hash them again.
            writes: [{ file: abs, text: newText, state: after, hashes: { before: read.state.contentHash, after: after.contentHash }, entry: { from: first ? { ...historySnapshot(read.state), ...from } : from, to, hashBefore: read.state.stateHash, hashAfter: after.stateHash, detail } }],
            found: external ? [{ file: abs, entry: external }] : undefined,
            landed: () => {
              this.model.set(abs, after);
              this.model.refreshCross();
            },
            result: (entries, keys) => ({ file: abs, operation, before: read.state, after, newText, written: true, changed: true, seq: entries[0]?.seq, ...(keys.has(abs) ? { landedAs: keys.get(abs) } : {}) }),
          };
        },
      });
    } catch (e) {
      // Renamed, but its history line could not be appended: the file holds the new state.
      if (landed && WaymarkError.is(e) && (e.data as { written?: boolean } | undefined)?.written) this.model.set(abs, landed);
      throw e;
    }
    if (result.written) this.model.emit({ changes: [{ file: abs, state: result.after }] });
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

  /**
   * The one narrow write that is not a state change: sets (or removes) one top-level frontmatter
   * key that the state hash leaves out (the ticket projection's `tracker` mirror). Same lock,
   * compare-and-swap and atomic rename as `mutate`, but no history line, no guards, no event:
   * only that key's lines change, and the state hash must come out the same, else nothing is
   * written. Returns false when the key already had that value.
   */
  async writeNonStateKey(file: string, key: string, value: EditValue | undefined, options: { expectStateHash?: string } = {}): Promise<boolean> {
    if (!NON_STATE_KEYS.has(key)) throw new WaymarkError('usage', `${key} is not a key Waymark writes outside the state (known: ${[...NON_STATE_KEYS].join(', ')}).`, file);
    const abs = path.resolve(file);
    const ctx = await this.contexts.contextFor(abs);
    this.writeTarget(abs, ctx.root);
    await this.settle(ctx, abs);
    // One transaction of one file with no history line (engine/transaction.ts): locked by real
    // path, re-read, journaled, renamed with a compare-and-swap, checked once on disk.
    let after: WorkflowState | undefined;
    await runTransaction({ ...this.txContext(ctx), guards: undefined, observers: undefined }, {
      operation: `mirror-${key}`,
      files: [abs],
      underLocks: () => this.recover(ctx, abs),
      plan: (texts) => {
        const text = texts.get(abs);
        if (text === undefined) throw new WaymarkError('unreadable', `${abs} no longer exists; its ${key} block was not written.`, abs);
        const read = this.parse(abs, text, ctx);
        if (options.expectStateHash && options.expectStateHash !== read.state.stateHash) {
          throw new WaymarkError('conflict', `${abs} changed state while its ${key} block was being written; nothing was written. Re-run.`, abs);
        }
        const newText = editFrontmatter(text, [{ key, value }]);
        if (newText === text) return { writes: [], result: () => undefined };
        const next = this.parse(abs, newText, ctx).state;
        if (next.stateHash !== read.state.stateHash) {
          throw new WaymarkError('refused', `Writing ${key} would change the state of ${abs}; nothing was written.`, abs);
        }
        after = next;
        const same = (t: string) => (this.parse(abs, t, ctx).state.stateHash === read.state.stateHash ? undefined : 'its state would change.');
        return { writes: [{ file: abs, text: newText, entry: null, check: same }], result: () => undefined };
      },
    });
    if (!after) return false;
    this.model.set(abs, after);
    return true;
  }
}

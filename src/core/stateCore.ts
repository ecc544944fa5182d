import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StateCore, StateCoreInit, WriteContext } from './api';
import { WaymarkError, errorMessage } from './errors';
import { silentLogger, systemClock } from './ports';
import type {
  ChangeEvent,
  ChangedReport,
  Disposable,
  GateState,
  GateVerdict,
  HistoryEntry,
  ManifestRow,
  MutationOptions,
  MutationResult,
  Problem,
  ResumePoint,
  ScanResult,
  Scope,
  Status,
  StepDef,
  WorkflowState,
} from './types';
import { loadWorkspaceContext, type WorkspaceContext } from './store/workspaceContext';
import { parseWorkflowText } from './model/workflow';
import { scanRoots } from './store/scan';
import { validateDelegation } from './model/delegation';
import { gateFilePath, readGate } from './model/gates';
import { writeManifest, changedSince } from './store/manifest';
import { frontmatterResume } from './model/resume';
import { editFrontmatter, detectEol, type FrontmatterEdit } from './model/edit';
import { writeFileAtomic, removeStaleTemps } from './store/atomicWrite';
import { acquireFileLock, type HeldLock } from './store/fileLock';
import { appendHistory, assertHistoryAppendable, readHistory, stateChange } from './store/history';
import { writeGateFile } from './store/gateStore';
import { readRegularFileSync } from './store/safeRead';
import {
  planAdvance,
  planBlock,
  planCompleteStep,
  planFix,
  planSetScope,
  planSetStatus,
  planStart,
  planUnblock,
  clip,
  type GateLookup,
  type Plan,
} from './model/mutations';

const BINARY_SNIFF = 8192;

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

const ROOT_MARKERS = ['.waymark', '_bmad', '_bmad-output', '.git'];

/**
 * Refuses a write whose real target (after symlinks) lies outside the workspace folder: a
 * repository's `notes.md -> /elsewhere/plan.md` must not make Waymark edit files elsewhere.
 */
function assertWritableInside(abs: string, root: string): void {
  let real: string;
  let realRoot: string;
  try {
    real = fs.realpathSync(abs);
    realRoot = fs.realpathSync(root);
  } catch {
    return; // missing: the read that follows reports it
  }
  const rel = path.relative(realRoot, real);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new WaymarkError('usage', `${abs} is a link to ${real}, outside the workspace ${realRoot}; Waymark does not write outside the workspace. Run the command on ${real} itself.`, abs);
  }
}

/**
 * The workspace folder a file belongs to when no roots are given (the CLI): the nearest
 * ancestor holding `.waymark`, `_bmad`, `_bmad-output` or `.git`; else `fallback` when it
 * contains the file; else the file's folder.
 */
export function findWorkspaceRoot(file: string, fallback?: string): string {
  const abs = path.resolve(file);
  let dir = path.dirname(abs);
  for (;;) {
    for (const m of ROOT_MARKERS) {
      try {
        if (fs.statSync(path.join(dir, m)).isDirectory()) return dir;
      } catch {
        // not here; keep walking up
      }
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  if (fallback) {
    const rel = path.relative(path.resolve(fallback), abs);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return path.resolve(fallback);
  }
  return path.dirname(abs);
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
}

interface ReadFile {
  text: string;
  state: WorkflowState;
  problems: Problem[];
}

class StateCoreImpl implements StateCore {
  readonly roots: string[];
  private readonly logger;
  private readonly clock;
  private readonly model = new Map<string, WorkflowState>();
  private readonly contexts = new Map<string, WorkspaceContext>();
  private readonly contextLoads = new Map<string, Promise<WorkspaceContext>>();
  private scanProblems: Problem[] = [];
  private crossProblems: Problem[] = [];
  private readonly listeners = new Set<(e: ChangeEvent) => void>();
  private disposed = false;

  constructor(private readonly init: StateCoreInit) {
    this.roots = init.roots.map((r) => path.resolve(r));
    this.logger = init.logger ?? silentLogger;
    this.clock = init.clock ?? systemClock;
  }

  // ---- model -------------------------------------------------------------------------

  async scan(): Promise<ScanResult> {
    const result = await scanRoots(this.roots, { overrides: this.init.configOverrides, logger: this.logger, contexts: this.contexts, now: () => this.clock.now(), index: this.init.scanIndex });
    for (const [root, ctx] of result.contexts) this.contexts.set(root, ctx);
    // The scan folds cross-file (delegation) problems into the states; the model keeps them apart
    // so they can be recomputed after a single file changes.
    const cross = validateDelegation(result.workflows);
    const key = (p: Problem) => `${p.file}\0${p.code}\0${p.message}`;
    const crossKeys = new Map<string, number>();
    for (const p of cross) crossKeys.set(key(p), (crossKeys.get(key(p)) ?? 0) + 1);
    for (const w of result.workflows) {
      w.problems = w.problems.filter((p) => {
        const n = crossKeys.get(key(p)) ?? 0;
        if (n > 0) {
          crossKeys.set(key(p), n - 1);
          return false;
        }
        return true;
      });
    }
    const crossSet = new Set(cross.map(key));
    const changes: ChangeEvent['changes'] = [];
    const seen = new Set<string>();
    for (const s of result.workflows) {
      seen.add(s.file);
      const old = this.model.get(s.file);
      if (!old || old.contentHash !== s.contentHash || old.stateHash !== s.stateHash) changes.push({ file: s.file, state: s });
      this.model.set(s.file, s);
    }
    for (const file of [...this.model.keys()]) {
      if (!seen.has(file)) {
        this.model.delete(file);
        changes.push({ file, removed: true });
      }
    }
    this.scanProblems = result.problems.filter((p) => !crossSet.has(key(p)));
    this.crossProblems = this.computeCross();
    if (changes.length) this.emit({ changes });
    return { ...result, problems: this.problems() };
  }

  async reload(file: string): Promise<WorkflowState | undefined> {
    const abs = path.resolve(file);
    const old = this.model.get(abs);
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
    this.model.set(abs, read.state);
    this.crossProblems = this.computeCross();
    if (!old || old.contentHash !== read.state.contentHash || old.stateHash !== read.state.stateHash) this.emit({ changes: [{ file: abs, state: read.state }] });
    return read.state;
  }

  /**
   * The file is there but does not read as a workflow now (an agent mid-write, a YAML error):
   * the model keeps its last good state, marked stale, with the problems of the current text.
   */
  private async keepLastGood(abs: string, old: WorkflowState): Promise<WorkflowState> {
    const ctx = await this.contextFor(abs);
    let problems: Problem[] = [];
    try {
      problems = parseWorkflowText(abs, this.readText(abs, ctx), ctx).problems;
    } catch (e) {
      this.logger.warn(`[core] could not validate ${abs}: ${errorMessage(e)}`);
    }
    const first = problems.find((p) => p.severity === 'error');
    const staleReason = first ? `line ${first.range.start.line + 1}: ${first.message}` : 'its frontmatter no longer names a workflow';
    const stale: WorkflowState = { ...old, stale: true, staleReason, problems };
    this.model.set(abs, stale);
    this.crossProblems = this.computeCross();
    if (!old.stale) this.logger.warn(`[core] ${abs} does not read as a workflow now (${staleReason}); keeping its last good state (stale)`);
    if (!old.stale || old.staleReason !== staleReason || JSON.stringify(old.problems) !== JSON.stringify(problems)) this.emit({ changes: [{ file: abs, state: stale }] });
    return stale;
  }

  remove(file: string): void {
    const abs = path.resolve(file);
    if (!this.model.delete(abs)) return;
    this.crossProblems = this.computeCross();
    this.emit({ changes: [{ file: abs, removed: true }] });
  }

  async parseText(file: string, text: string): Promise<{ state?: WorkflowState; problems: Problem[] }> {
    const abs = path.resolve(file);
    const ctx = await this.contextFor(abs);
    const parsed = parseWorkflowText(abs, text, ctx);
    return { state: parsed.state, problems: parsed.problems };
  }

  get(file: string): WorkflowState | undefined {
    return this.model.get(path.resolve(file));
  }

  list(): WorkflowState[] {
    return [...this.model.values()].sort((a, b) => a.file.localeCompare(b.file));
  }

  problems(): Problem[] {
    return [...this.list().flatMap((s) => s.problems), ...this.crossProblems, ...this.scanProblems];
  }

  onDidChange(listener: (e: ChangeEvent) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }

  private emit(e: ChangeEvent): void {
    if (this.disposed) return;
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        this.logger.error(`[core] change listener failed: ${errorMessage(err)}`);
      }
    }
  }

  private computeCross(): Problem[] {
    try {
      return validateDelegation(this.list());
    } catch (e) {
      this.logger.error(`[core] delegation check failed: ${errorMessage(e)}`);
      return [];
    }
  }

  // ---- context and reading -------------------------------------------------------------

  /** The workspace folder of a file: the deepest root containing it, else one found from markers. */
  rootFor(file: string): string {
    const abs = path.resolve(file);
    let best: string | undefined;
    for (const r of this.roots) {
      const rel = path.relative(r, abs);
      if (!rel.startsWith('..') && !path.isAbsolute(rel) && (!best || r.length > best.length)) best = r;
    }
    return best ?? findWorkspaceRoot(abs, this.roots[0]);
  }

  async contextFor(file: string): Promise<WorkspaceContext> {
    const root = this.rootFor(file);
    const have = this.contexts.get(root);
    if (have) return have;
    let p = this.contextLoads.get(root);
    if (!p) {
      p = loadWorkspaceContext(root, this.init.configOverrides, { now: () => this.clock.now() }).then(({ context, problems }) => {
        for (const pr of problems) this.logger.warn(`[config] ${pr.file}: ${pr.message}`);
        this.contexts.set(root, context);
        return context;
      });
      this.contextLoads.set(root, p);
    }
    return p;
  }

  private readText(abs: string, ctx: WorkspaceContext): string {
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new WaymarkError('unreadable', `${abs} does not exist (deleted or moved since it was read?); rescan and retry.`, abs);
      throw new WaymarkError('unreadable', `Cannot read ${abs}: ${errorMessage(e)}.`, abs);
    }
    if (!st.isFile()) throw new WaymarkError('unreadable', `${abs} is not a file (a directory, pipe, socket or device named like a workflow file); point at a regular workflow file.`, abs);
    const max = ctx.config.limits.maxFileBytes;
    if (st.size > max) throw new WaymarkError('unreadable', `${abs} is ${st.size} bytes, over the ${max}-byte limit (limits.maxFileBytes in .waymark/config.yaml); Waymark will not edit it.`, abs);
    let buf: Buffer;
    try {
      buf = readRegularFileSync(abs, max);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTREG') throw new WaymarkError('unreadable', `${abs} is not a regular file (it was replaced by a pipe, socket or folder); point at a regular workflow file.`, abs);
      if (code === 'EFBIG') throw new WaymarkError('unreadable', `${abs} grew over the ${max}-byte limit (limits.maxFileBytes in .waymark/config.yaml) while being read; Waymark will not edit it.`, abs);
      if (code === 'ENOENT') throw new WaymarkError('unreadable', `${abs} was deleted while being read; rescan and retry.`, abs);
      throw new WaymarkError('unreadable', `Cannot read ${abs}: ${errorMessage(e)}.`, abs);
    }
    if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
      throw new WaymarkError('unreadable', `${abs} is UTF-16 text; Waymark reads UTF-8 only. Save it as UTF-8 (a UTF-8 BOM is fine), then retry.`, abs);
    }
    if (buf.subarray(0, BINARY_SNIFF).includes(0)) throw new WaymarkError('unreadable', `${abs} looks binary (it holds NUL bytes); it is not a workflow file.`, abs);
    return buf.toString('utf8');
  }

  private parse(abs: string, text: string, ctx: WorkspaceContext): ReadFile {
    const parsed = parseWorkflowText(abs, text, ctx);
    if (!parsed.isWorkflow || !parsed.state) {
      const first = parsed.problems.find((p) => p.severity === 'error');
      if (first) throw new WaymarkError('invalid', `${abs}:${first.range.start.line + 1}: ${first.message}`, abs, { code: first.code });
      throw new WaymarkError('usage', `${abs} is not a workflow file: its frontmatter has no workflow, workflowType, steps or stepsCompleted key. Point at a workflow file, or add \`workflow: <id>\` to its frontmatter.`, abs);
    }
    return { text, state: parsed.state, problems: parsed.problems };
  }

  private async readWorkflow(abs: string): Promise<ReadFile> {
    const ctx = await this.contextFor(abs);
    return this.parse(abs, this.readText(abs, ctx), ctx);
  }

  private gateLookup(ctx: WorkspaceContext, state: WorkflowState): GateLookup {
    return (step: StepDef) => {
      if (!step.gate) return undefined;
      return readGate(gateFilePath(ctx, state, step.gate), step.gate, this.clock.now());
    };
  }

  // ---- the write path ---------------------------------------------------------------------

  private lockOptions(root: string) {
    return { root, purpose: 'waymark mutation' };
  }

  private async runGuards(wctx: WriteContext): Promise<void> {
    for (const g of this.init.guards ?? []) await g(wctx);
  }

  private async runObservers(entry: HistoryEntry, wctx: WriteContext & { after?: WorkflowState }): Promise<void> {
    for (const o of this.init.observers ?? []) {
      try {
        await o(entry, wctx);
      } catch (e) {
        this.logger.error(`[core] write observer failed after ${wctx.operation} on ${wctx.file}: ${errorMessage(e)}`);
      }
    }
  }

  private checkHash(state: WorkflowState, options: MutationOptions): void {
    if (options.expectHash && options.expectHash !== state.stateHash) {
      throw new WaymarkError(
        'conflict',
        `${state.file} changed since it was read (state hash ${state.stateHash.slice(0, 12)}, expected ${options.expectHash.slice(0, 12)}); re-read it and retry.`,
        state.file,
        { expected: options.expectHash, actual: state.stateHash },
      );
    }
  }

  private applyPlan(read: ReadFile, plan: Plan, ctx: WorkspaceContext, operation: string): { newText: string; after: WorkflowState } {
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
  private async mutate(file: string, operation: string, options: MutationOptions | undefined, makePlan: (state: WorkflowState, ctx: WorkspaceContext) => Plan): Promise<MutationResult> {
    const opts = options ?? {};
    const abs = path.resolve(file);
    const ctx = await this.contextFor(abs);
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
    const wctx: WriteContext = { file: abs, root: ctx.root, operation, actor: opts.actor ?? this.init.actor, session: opts.session ?? this.init.session };
    try {
      const read = await this.readWorkflow(abs);
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
    this.crossProblems = this.computeCross();
    await this.runObservers(entry!, { ...wctx, after: result.after });
    this.emit({ changes: [{ file: abs, state: result.after }] });
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

  private logBroken(lock: HeldLock, file?: string): void {
    for (const b of lock.broken) this.logger.warn(`[lock] ${b}`);
    // A writer that died holding the lock may have left its temp file behind.
    if (lock.broken.length && file) for (const t of removeStaleTemps(file)) this.logger.warn(`[write] removed ${t} left by a writer that died`);
  }

  private appendEntry(ctx: WorkspaceContext, abs: string, operation: string, wctx: WriteContext, before: WorkflowState | undefined, after: WorkflowState | undefined, detail?: Record<string, unknown>): HistoryEntry {
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

  start(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.mutate(file, 'start', options, (s) => planStart(s, this.clock.now()));
  }

  advance(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.mutate(file, 'advance', options, (s, ctx) => planAdvance(s, this.clock.now(), this.gateLookup(ctx, s)));
  }

  completeStep(file: string, step: string, options?: MutationOptions): Promise<MutationResult> {
    return this.mutate(file, 'complete-step', options, (s, ctx) => planCompleteStep(s, step, this.clock.now(), this.gateLookup(ctx, s)));
  }

  setStatus(file: string, status: Status, options?: MutationOptions & { reason?: string }): Promise<MutationResult> {
    return this.mutate(file, 'set-status', options, (s) => planSetStatus(s, status, options?.reason, this.clock.now()));
  }

  block(file: string, reason: string, options?: MutationOptions): Promise<MutationResult> {
    return this.mutate(file, 'block', options, (s) => planBlock(s, reason, this.clock.now()));
  }

  unblock(file: string, options?: MutationOptions): Promise<MutationResult> {
    return this.mutate(file, 'unblock', options, (s) => planUnblock(s, this.clock.now()));
  }

  setScope(file: string, scope: Scope, options?: MutationOptions): Promise<MutationResult> {
    return this.mutate(file, 'set-scope', options, (s) => planSetScope(s, scope, this.clock.now()));
  }

  applyFix(file: string, problem: Problem, options?: MutationOptions): Promise<MutationResult> {
    return this.mutate(file, 'fix', options, (s) => {
      return planFix(s, problem, this.clock.now());
    });
  }

  // ---- delegation ---------------------------------------------------------------------------

  async delegate(file: string, args: { agent: string; out?: string; workflow?: string }, options?: MutationOptions): Promise<MutationResult> {
    const opts = options ?? {};
    const agent = args.agent?.trim();
    if (!agent) throw new WaymarkError('usage', 'delegate needs an agent name (--agent NAME).');
    const abs = path.resolve(file);
    const ctx = await this.contextFor(abs);
    if (opts.text === undefined) assertWritableInside(abs, ctx.root);
    const parentLock = opts.text === undefined ? await acquireFileLock(abs, this.lockOptions(ctx.root)) : undefined;
    if (parentLock) this.logBroken(parentLock);
    const wctx: WriteContext = { file: abs, root: ctx.root, operation: 'delegate', actor: opts.actor ?? this.init.actor, session: opts.session ?? this.init.session };
    let childLock: HeldLock | undefined;
    let result: MutationResult;
    const entries: { entry: HistoryEntry; ctx: WriteContext & { after?: WorkflowState } }[] = [];
    try {
      const parent = opts.text !== undefined ? this.parse(abs, opts.text, ctx) : await this.readWorkflow(abs);
      this.checkHash(parent.state, opts);
      const p = parent.state;
      // A child copies its parent's chain: never copy a broken one.
      const broken = parent.problems.find((x) => x.severity === 'error' && x.code.startsWith('delegation-'));
      if (broken) {
        throw new WaymarkError('invalid', `Refused: the delegation block of ${abs} is broken (${broken.code}, line ${broken.range.start.line + 1}: ${broken.message}); fix it before delegating from this file.`, abs, { code: broken.code });
      }
      const parentId = p.delegation?.id ?? slug(path.basename(abs).replace(/\.[^.]*$/, ''));
      const rootId = p.delegation?.root_id ?? parentId;
      const chain = p.delegation?.chain_path?.length ? [...p.delegation.chain_path] : [parentId];
      const depth = (p.delegation?.depth ?? 0) + 1;
      const agentSlug = slug(agent);
      const taken = new Set(this.list().map((s) => s.delegation?.id).filter(Boolean) as string[]);
      let childId = `${parentId}.${agentSlug}`;
      for (let n = 2; taken.has(childId); n++) childId = `${parentId}.${agentSlug}-${n}`;
      let out: string;
      if (args.out) {
        out = path.resolve(args.out);
        if (fs.existsSync(out)) throw new WaymarkError('usage', `${out} already exists; choose another --out path (delegate never overwrites a file).`, out);
        let dirOk = false;
        try {
          dirOk = fs.statSync(path.dirname(out)).isDirectory();
        } catch {
          dirOk = false;
        }
        if (!dirOk) throw new WaymarkError('usage', `The folder of --out ${out} does not exist; create it first.`, out);
      } else {
        const base = path.join(path.dirname(abs), path.basename(abs).replace(/\.md$/i, ''));
        out = `${base}.${agentSlug}.md`;
        for (let n = 2; fs.existsSync(out); n++) out = `${base}.${agentSlug}-${n}.md`;
      }
      const eol = detectEol(parent.text);
      const workflowId = args.workflow ?? p.workflow;
      const lines = ['---', `workflow: ${JSON.stringify(workflowId)}`, 'status: created'];
      const fromDefinition = p.stepsSource === 'definition' && workflowId === p.workflow;
      if (!fromDefinition && p.steps.length && workflowId === p.workflow) {
        lines.push(`steps: [${p.steps.map((s) => JSON.stringify(s.id)).join(', ')}]`);
      }
      lines.push(
        'delegation:',
        `  id: ${JSON.stringify(childId)}`,
        `  parent_id: ${JSON.stringify(parentId)}`,
        `  root_id: ${JSON.stringify(rootId)}`,
        `  depth: ${depth}`,
        `  chain_path: [${[...chain, childId].map((c) => JSON.stringify(c)).join(', ')}]`,
        `  agent: ${JSON.stringify(agent)}`,
        '---',
        '',
        `# ${workflowId}: delegated to ${agent}`,
        '',
        `Delegated from \`${path.relative(path.dirname(out), abs).split(path.sep).join('/')}\`${p.currentStep ? ` at step ${p.currentStep}` : ''}.`,
        '',
      );
      const childText = lines.join(eol);
      const child = this.parse(out, childText, ctx);
      const childErrors = child.problems.filter((x) => x.severity === 'error' && !x.code.startsWith('delegation'));
      if (childErrors.length) throw new WaymarkError('invalid', `Refused: the delegated file would be invalid: ${childErrors[0].message}`, out);
      if (opts.text !== undefined) {
        return { file: out, operation: 'delegate', before: p, after: child.state, newText: childText, written: false };
      }
      await this.runGuards(wctx);
      // Claim the child's path before touching the parent: a lost race then changes nothing.
      childLock = await acquireFileLock(out, this.lockOptions(ctx.root));
      if (fs.existsSync(out)) throw new WaymarkError('conflict', `${out} was created by someone else meanwhile; retry. Nothing was changed.`, out);
      // A parent without a delegation block becomes the root of the chain.
      let parentAfter = p;
      let parentText: string | undefined;
      if (!p.delegation) {
        const edit: FrontmatterEdit = { key: 'delegation', value: { id: parentId, parent_id: null, root_id: parentId, depth: 0, chain_path: [parentId] } };
        const applied = this.applyPlan(parent, { edits: [edit] }, ctx, 'delegate');
        parentText = applied.newText;
        parentAfter = applied.after;
      }
      assertHistoryAppendable(ctx.root, abs, ctx.config.history?.dir);
      assertHistoryAppendable(ctx.root, out, ctx.config.history?.dir);
      // Child first; if the parent cannot then be written, the child is taken back (all or nothing).
      writeFileAtomic(out, childText);
      if (parentText !== undefined) {
        try {
          writeFileAtomic(abs, parentText, { mustExist: true });
        } catch (e) {
          try {
            fs.unlinkSync(out);
          } catch {
            // already gone
          }
          throw e;
        }
        this.model.set(abs, parentAfter);
      }
      this.model.set(out, child.state);
      const pe = this.appendEntry(ctx, abs, 'delegate', wctx, p, parentAfter, { child: out, childId, agent });
      entries.push({ entry: pe, ctx: { ...wctx, after: parentAfter } });
      const cctx: WriteContext = { ...wctx, file: out, operation: 'create' };
      const ce = this.appendEntry(ctx, out, 'create', cctx, undefined, child.state, { parent: abs, parentId, agent });
      entries.push({ entry: ce, ctx: { ...cctx, after: child.state } });
      result = { file: out, operation: 'delegate', before: p, after: child.state, newText: childText, written: true, seq: ce.seq };
    } finally {
      childLock?.release();
      parentLock?.release();
    }
    this.crossProblems = this.computeCross();
    for (const e of entries) await this.runObservers(e.entry, e.ctx);
    this.emit({ changes: [{ file: abs, state: this.model.get(abs) }, { file: result.file, state: result.after }] });
    return result;
  }

  // ---- gates ----------------------------------------------------------------------------------

  private async gateWrite(file: string, stepName: string, verdict: GateVerdict, args: { reason?: string; by?: string; expires?: string }, options?: MutationOptions): Promise<GateState> {
    const opts = options ?? {};
    const abs = path.resolve(file);
    const ctx = await this.contextFor(abs);
    if (opts.text !== undefined) throw new WaymarkError('usage', 'Gate verdicts are written to gate files; they cannot be applied to unsaved text.');
    if (verdict === 'WAIVED' && (!args.reason?.trim() || !args.by?.trim())) {
      throw new WaymarkError('usage', 'A waiver needs a reason and who approved it (--reason TEXT --by NAME).', abs);
    }
    if (args.expires && !Number.isFinite(Date.parse(args.expires))) throw new WaymarkError('usage', `--expires ${args.expires} is not a date (use e.g. 2026-12-31).`, abs);
    const operation = `gate-${verdict.toLowerCase()}`;
    const wctx: WriteContext = { file: abs, root: ctx.root, operation, actor: opts.actor ?? this.init.actor, session: opts.session ?? this.init.session };
    assertWritableInside(abs, ctx.root);
    const lock = await acquireFileLock(abs, this.lockOptions(ctx.root));
    this.logBroken(lock);
    let entry: HistoryEntry;
    let gate: GateState;
    let state: WorkflowState;
    try {
      state = (await this.readWorkflow(abs)).state;
      this.checkHash(state, opts);
      const step = this.stepFor(state, stepName);
      const gateName = step.gate ?? step.id;
      const gatePath = gateFilePath(ctx, state, gateName);
      await this.runGuards({ ...wctx });
      const gateLock = await acquireFileLock(gatePath, this.lockOptions(ctx.root));
      try {
        const before = readGate(gatePath, gateName, this.clock.now());
        const reviewer = args.by?.trim() || wctx.actor;
        writeGateFile(gatePath, {
          verdict,
          reviewer,
          reason: args.reason?.trim() || undefined,
          updated: this.clock.now().toISOString(),
          waiver: verdict === 'WAIVED' ? { reason: args.reason!.trim(), approved_by: args.by!.trim(), ...(args.expires ? { expires: args.expires } : {}) } : undefined,
        });
        gate = readGate(gatePath, gateName, this.clock.now());
        entry = this.appendEntry(ctx, abs, operation, wctx, state, state, {
          step: step.id,
          gate: gateName,
          gateFile: gatePath,
          verdict,
          previous: before.verdict ?? null,
          ...(args.reason ? { reason: args.reason } : {}),
          ...(args.by ? { by: args.by } : {}),
          ...(args.expires ? { expires: args.expires } : {}),
        });
      } finally {
        gateLock.release();
      }
    } finally {
      lock.release();
    }
    await this.runObservers(entry, { ...wctx, after: state });
    // The workflow's gates changed (its file did not): re-read it and tell listeners.
    try {
      const fresh = (await this.readWorkflow(abs)).state;
      this.model.set(abs, fresh);
      this.crossProblems = this.computeCross();
      this.emit({ changes: [{ file: abs, state: fresh }] });
    } catch (e) {
      this.logger.warn(`[core] re-reading ${abs} after its gate changed failed: ${errorMessage(e)}`);
    }
    return gate;
  }

  private stepFor(state: WorkflowState, step: string): StepDef {
    const def = state.steps.find((s) => s.id === step) ?? state.steps.find((s) => s.gate === step) ?? state.steps.find((s) => s.id.replace(/\.md$/i, '') === step.replace(/\.md$/i, ''));
    if (def) return def;
    if (!state.steps.length) return { id: step, index: 0, gate: step };
    throw new WaymarkError('usage', `${clip(step)} is not a step of ${clip(state.workflow)}; steps are: ${state.steps.map((s) => clip(s.id)).slice(0, 12).join(', ')}${state.steps.length > 12 ? ', …' : ''}.`, state.file);
  }

  gatePass(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState> {
    return this.gateWrite(file, step, 'PASS', args, options);
  }

  gateFail(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState> {
    return this.gateWrite(file, step, 'FAIL', args, options);
  }

  gateConcerns(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState> {
    return this.gateWrite(file, step, 'CONCERNS', args, options);
  }

  gateWaive(file: string, step: string, args: { reason: string; by: string; expires?: string }, options?: MutationOptions): Promise<GateState> {
    return this.gateWrite(file, step, 'WAIVED', args, options);
  }

  async gateShow(file: string, step: string): Promise<GateState> {
    const abs = path.resolve(file);
    const ctx = await this.contextFor(abs);
    const state = (await this.readWorkflow(abs)).state;
    const def = this.stepFor(state, step);
    const name = def.gate ?? def.id;
    return readGate(gateFilePath(ctx, state, name), name, this.clock.now());
  }

  // ---- history, manifest, resume --------------------------------------------------------------

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
      state = (await this.readWorkflow(abs)).state;
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

// The memory of one workspace folder, as one object: record and recall, sessions (tier 3),
// consolidation after workflow writes (tier 2), status, export and pruning. The store access
// (Kuzu or the journal) is storeAccess.ts; each other job has its own file beside this one.
import * as path from 'node:path';
import { WaymarkError, errorMessage } from '../errors';
import { silentLogger, systemClock } from '../ports';
import type { Clock, Logger } from '../ports';
import type { HistoryEntry, WorkflowState } from '../types';
import type { CompanionPlan, WriteContext } from '../writeHooks';
import { appendJournal } from './journal';
import type { KuzuLoader } from './kuzuStore';
import { entityId, relPath } from './links';
import { importCandidates, parseImportFile } from './importers';
import type { ImportFormat } from './importers';
import { MemoryFiles, type ChangeOptions } from './memoryFiles';
import type { EntityRecord, JournalOp, ListFilter, MemoryRecord, RecallItem, RelationRecord, StoreCounts } from './model';
import { loadMemoryConfig, memoryPaths, type MemoryConfig, type MemoryPaths } from './memoryConfig';
import { StoreAccess } from './storeAccess';
import { buildMemoryRecord, entityJournalOps, mirrorLines, recallQuery, type RecallTarget, type RecordInput, type RecordResult } from './records';
import { currentSession, sessionEnd, sessionStart, type SessionInfo } from './sessions';
import { companionFiles, companionPlan, consolidate, handleWorkflowEvents } from './milestones';
import type { WorkflowEvent } from './milestones';
import { exportAll, prune } from './maintenance';
import { memoryFileHealth, memoryStatus, type MemoryStatus } from './memoryStatus';
import type { MemoryInternals, MemoryOperations } from './internals';

/** A write's consolidation waits this long for the next write to join its batch (ms)... */
export const BATCH_QUIET_MS = 25;
/** ...and no longer than this after the first write of the batch... */
export const BATCH_MAX_MS = 500;
/**
 * ...nor for more writes than this: each write's intent holds one of its process's journal slots
 * until its consolidation is done (store/txJournal.ts, 16 of them), and a write finding none free
 * creates, flushes and removes an intent file of its own (a new name in the journal folder: its
 * folder flushed too). Half the slots: the next writes use the other half while a batch runs.
 */
export const BATCH_MAX_WRITES = 8;

export interface MemoryServiceOptions {
  root: string;
  config?: MemoryConfig;
  logger?: Logger;
  clock?: Clock;
  /** Injected Kuzu loader (tests simulate a broken install). */
  loader?: KuzuLoader;
  /** Keep the database open this long after the last use (ms). 0 closes after every operation. */
  holdMs?: number;
  /** Recorded as origin when a record names none (`cli`, `vscode`, `hook`). */
  origin?: string;
}

/**
 * The memory service: the journal (inbox) is written first, always; the Kuzu graph is
 * opened lazily and briefly, ingests the journal from its cursor, and answers queries.
 * Whenever Kuzu cannot be used the same operations run on an in-memory store rebuilt from the
 * journal, and `status()` says `memory: degraded` with the reason.
 */
export class MemoryService implements MemoryOperations {
  readonly root: string;
  readonly paths: MemoryPaths;
  readonly files: MemoryFiles;
  private readonly m: MemoryInternals;
  private readonly access: StoreAccess;
  private readonly origin?: string;
  /** Markdown mirrors are written in the background, in order; `flushFiles()` waits for them. */
  private filesQueue: Promise<void> = Promise.resolve();
  private pendingMirror: MemoryRecord[] = [];
  private mirrorTimer?: NodeJS.Timeout;
  /** Writes whose consolidation waits for the batch (queueWorkflowEvent). */
  private queued: { event: WorkflowEvent; resolve: () => void }[] = [];
  private queuedSince = 0;
  private queueTimer?: NodeJS.Timeout;
  private batches: Promise<void> = Promise.resolve();

  constructor(options: MemoryServiceOptions) {
    const root = path.resolve(options.root);
    const cfg = { ...loadMemoryConfig(root), ...(options.config ?? {}) };
    const logger = options.logger ?? silentLogger;
    const clock = options.clock ?? systemClock;
    const paths = memoryPaths(root, cfg);
    const dirLabel = cfg.dir !== undefined ? 'memory.dir' : undefined;
    const files = new MemoryFiles(paths.hot, paths.cold, root, {
      hot: cfg.hotFile !== undefined ? 'memory.hotFile' : dirLabel,
      cold: cfg.coldFile !== undefined ? 'memory.coldFile' : dirLabel,
    });
    const access = new StoreAccess(root, paths, cfg, { logger, clock, loader: options.loader, holdMs: options.holdMs, dirLabel });
    this.root = root;
    this.paths = paths;
    this.files = files;
    this.access = access;
    this.origin = options.origin;
    this.m = { root, paths, cfg, files, access, logger, clock, loader: options.loader, origin: options.origin, now: () => clock.now().toISOString(), dirLabel: () => dirLabel };
  }

  /**
   * Whether the hot and cold Markdown files can be written (checked without opening the
   * database); undefined when fine, else the reason, in the seeds' wording first.
   */
  fileHealth(): string | undefined {
    return memoryFileHealth(this.m);
  }

  /** Keep the database open at least this long after use (a long-lived host may raise it). */
  raiseHold(ms: number): void {
    this.access.raiseHold(ms);
  }

  // Recording.

  /** Builds a memory record from input (validates; throws WaymarkError('usage')). */
  buildRecord(input: RecordInput): MemoryRecord {
    return buildMemoryRecord(input, { root: this.root, now: () => this.m.now(), session: () => this.currentSession()?.id, origin: this.origin });
  }

  /**
   * Records one memory: appended to the inbox at once (durable, never blocks), then, for
   * tier 1 and 3, ingested into the graph when the database can be taken within `waitMs`.
   */
  async record(input: RecordInput, options: { waitMs?: number; ingest?: boolean } = {}): Promise<RecordResult> {
    if (input.type === 'entity') return this.recordEntity(input);
    const rec = this.buildRecord(input);
    appendJournal(this.paths.inbox, [{ v: 1, op: 'memory', rec }], this.root);
    this.pendingMirror.push(rec);
    if (!this.mirrorTimer) {
      this.mirrorTimer = setTimeout(() => this.drainMirror(), 30);
    }
    const ingest = options.ingest ?? rec.tier !== 2;
    if (!ingest) return { id: rec.id, type: rec.type, tier: rec.tier, stored: 'inbox', record: rec, note: 'tier 2: consolidated when its step or workflow completes' };
    const { engine } = await this.access.serial(() => this.access.withStore(async () => undefined, options.waitMs));
    return {
      id: rec.id,
      type: rec.type,
      tier: rec.tier,
      stored: engine === 'kuzu' ? 'graph' : 'inbox',
      record: rec,
      note: engine === 'kuzu' ? undefined : `kept in the inbox (${this.access.lastFailure?.message ?? 'database busy'}); ingested when the database is available`,
    };
  }

  private async recordEntity(input: RecordInput): Promise<RecordResult> {
    const { entity, ops } = entityJournalOps(this.root, input, this.m.now());
    appendJournal(this.paths.inbox, ops, this.root);
    const { engine } = await this.access.serial(() => this.access.withStore(async () => undefined));
    return { id: entity.id, type: 'entity', stored: engine === 'kuzu' ? 'graph' : 'inbox', entity };
  }

  /** Tier-1 memories also land in the hot file; decisions, preferences and errors in the cold file (batched). */
  private async mirrorToFiles(recs: MemoryRecord[]): Promise<void> {
    const { hot, cold } = mirrorLines(recs);
    try {
      if (hot.length) await this.files.updateBoth((h) => (h.working.push(...hot), cold));
      else if (cold.length) await this.files.appendCold(cold);
    } catch (e) {
      // the journal already holds the memories; the Markdown mirrors are best effort
      this.m.logger.warn(`[memory] could not update the memory files: ${errorMessage(e)}`);
    }
  }

  /** Waits until the hot and cold Markdown mirrors of earlier records are written. */
  async flushFiles(): Promise<void> {
    this.drainMirror();
    await this.filesQueue;
  }

  private drainMirror(): void {
    if (this.mirrorTimer) clearTimeout(this.mirrorTimer);
    this.mirrorTimer = undefined;
    const batch = this.pendingMirror;
    this.pendingMirror = [];
    if (batch.length) this.filesQueue = this.filesQueue.then(() => this.mirrorToFiles(batch));
  }

  /** Appends many memories at once (imports): journal first, then one bulk ingest. */
  async recordMany(ops: JournalOp[]): Promise<{ added: number; engine: 'kuzu' | 'journal' }> {
    if (!ops.length) return { added: 0, engine: this.access.openEngine };
    // Skip memories already known so that importing twice adds nothing (not even journal lines).
    const ids = ops.filter((o) => o.op === 'memory').map((o) => (o.rec as MemoryRecord).id);
    const { value: added, engine } = await this.access.serial(() =>
      this.access.withStore(async (s) => {
        const known = await s.has(ids);
        const seen = new Set<string>();
        const fresh = ops.filter((o) => o.op !== 'memory' || (!known.has(o.rec.id) && !seen.has(o.rec.id) && (seen.add(o.rec.id), true)));
        const newMemories = fresh.filter((o) => o.op === 'memory').length;
        if (!newMemories) return 0;
        // The journal first (durable); then, when we hold the database, ingest the ops we have
        // in hand instead of reading them back.
        const before = this.access.inboxStat();
        const bytes = appendJournal(this.paths.inbox, fresh, this.root);
        await this.access.ingestAppended(s, fresh, before, bytes);
        return newMemories;
      }, undefined, true),
    );
    return { added, engine };
  }

  /** Imports MEMORY.md, knowledge_graph.json(l), BMAD *.memlog.md, {agent}_memories.md or an export; idempotent. */
  async importPath(p: string): Promise<{ files: { file: string; format: ImportFormat; memories: number }[]; found: number; added: number; engine: 'kuzu' | 'journal' }> {
    const abs = path.resolve(this.root, p);
    const candidates = importCandidates(abs);
    if (!candidates.length) throw new WaymarkError('usage', `No memory files found under ${abs} (looked for MEMORY.md, knowledge_graph.json, *.memlog.md, *_memories.md).`, abs);
    const now = this.m.now();
    const parsed = candidates.map((f) => parseImportFile(this.root, f, now));
    const ops = parsed.flatMap((f) => f.ops);
    const res = await this.recordMany(ops);
    return { files: parsed.map((f) => ({ file: f.file, format: f.format, memories: f.memories })), found: parsed.reduce((n, f) => n + f.memories, 0), added: res.added, engine: res.engine };
  }

  // Recall.

  resolveTarget(t: RecallTarget) {
    return recallQuery(this.root, t);
  }

  async recall(t: RecallTarget, options: { waitMs?: number } = {}): Promise<{ items: RecallItem[]; engine: 'kuzu' | 'journal'; degraded?: string }> {
    const q = this.resolveTarget(t);
    const { value, engine } = await this.access.serial(() => this.access.withStore((s) => s.recall(q), options.waitMs));
    return { items: value, engine, degraded: engine === 'journal' && !this.access.nothingYet ? this.access.lastFailure?.message : undefined };
  }

  async list(filter: ListFilter & { workflowFile?: string } = {}): Promise<{ items: MemoryRecord[]; engine: 'kuzu' | 'journal' }> {
    const f: ListFilter = { ...filter };
    if (filter.workflowFile) f.workflow = relPath(this.root, filter.workflowFile);
    const { value, engine } = await this.access.serial(() => this.access.withStore((s) => s.list(f)));
    return { items: value, engine };
  }

  async graph(): Promise<{ entities: EntityRecord[]; relations: RelationRecord[]; engine: 'kuzu' | 'journal' }> {
    const { value, engine } = await this.access.serial(() => this.access.withStore(async (s) => ({ entities: await s.entities(), relations: await s.relations() })));
    return { ...value, engine };
  }

  async neighbourhood(workflowFile: string, depth = 1) {
    const id = entityId.workflow(relPath(this.root, workflowFile));
    const { value, engine } = await this.access.serial(() => this.access.withStore((s) => s.neighbourhood(id, depth)));
    return { center: id, ...value, engine };
  }

  // Status, sessions (tier 3), milestones (tier 2).

  status(options: { waitMs?: number } = {}): Promise<MemoryStatus> {
    return memoryStatus(this.m, this, options);
  }

  currentSession(): SessionInfo | undefined {
    return currentSession(this.m);
  }

  /** Starts a session: hot file reset for it, and what memory says about the work at hand. */
  sessionStart(args: { objective?: string; workflow?: string; limit?: number } = {}): Promise<{ session: SessionInfo; previous?: SessionInfo; recall: RecallItem[]; engine: 'kuzu' | 'journal' }> {
    return sessionStart(this.m, this, args);
  }

  /** Ends the session: a summary memory, the hot file's discoveries moved to the cold file, hot reset. */
  sessionEnd(args: { summary?: string } = {}): Promise<{ session?: SessionInfo; summary: MemoryRecord; moved: number }> {
    return sessionEnd(this.m, this, args);
  }

  /**
   * The core's WriteObserver: consolidates tier-2 observations when a step or workflow
   * completes and writes the cold-file lines for phase transitions. Never throws.
   */
  onWorkflowEvent = async (entry: HistoryEntry, ctx: WriteContext & { after?: WorkflowState }): Promise<void> => {
    await this.handleEvents([{ entry, ctx }]);
  };

  /**
   * `onWorkflowEvent` for a write that has already answered (a long-lived face): gathered with
   * the writes that follow within `quietMs` of each other (at most `maxMs` after the first, at
   * most `maxWrites` of them; defaults BATCH_QUIET_MS, BATCH_MAX_MS, BATCH_MAX_WRITES) and done once for them all: one store listing per workflow, one change of the memory
   * files. Resolves once done (the write's intent stays in the journal until then, so a crash
   * meanwhile leaves it for the next writer). Never throws.
   */
  queueWorkflowEvent = (entry: HistoryEntry, ctx: WriteContext & { after?: WorkflowState }, timing: { quietMs?: number; maxMs?: number; maxWrites?: number } = {}): Promise<void> =>
    new Promise<void>((resolve) => {
      if (!this.queued.length) this.queuedSince = Date.now();
      this.queued.push({ event: { entry, ctx }, resolve });
      if (this.queueTimer) clearTimeout(this.queueTimer);
      if (this.queued.length >= (timing.maxWrites ?? BATCH_MAX_WRITES)) {
        this.queueTimer = undefined;
        void this.flushWorkflowEvents();
        return;
      }
      const wait = Math.max(0, Math.min(timing.quietMs ?? BATCH_QUIET_MS, this.queuedSince + (timing.maxMs ?? BATCH_MAX_MS) - Date.now()));
      this.queueTimer = setTimeout(() => void this.flushWorkflowEvents(), wait);
    });

  /** Does the queued consolidation now; resolves once every write queued so far is consolidated. */
  flushWorkflowEvents(): Promise<void> {
    if (this.queueTimer) clearTimeout(this.queueTimer);
    this.queueTimer = undefined;
    const batch = this.queued;
    this.queued = [];
    if (batch.length) {
      this.batches = this.batches.then(async () => {
        // Test hook: killed with writes answered and their consolidation not done.
        if (process.env.WAYMARK_MEMORY_DIE_BEFORE_BATCH === '1') process.kill(process.pid, 'SIGKILL');
        // After the writes answered: the batch's own change does not wait for its intent's removal.
        await this.handleEvents(batch.map((q) => q.event), { afterAnswer: true });
        for (const q of batch) q.resolve();
      });
    }
    return this.batches;
  }

  private async handleEvents(events: WorkflowEvent[], opts?: ChangeOptions): Promise<void> {
    try {
      await handleWorkflowEvents(this.m, this, events, opts);
    } catch (e) {
      const what = events.length === 1 ? `${events[0].entry.operation} on ${events[0].entry.file}` : `${events.length} writes`;
      this.m.logger.warn(`[memory] workflow event ${what}: ${errorMessage(e)}`);
    }
  }

  /**
   * The memory files a write of `files` by `operation` changes in its own change (engine
   * WriteCompanion): the cold file, and the hot file when one of them is its active workflow.
   */
  companionFiles(operation: string, files: readonly string[]): string[] {
    const t = companionFiles(this.m, operation, files);
    this.companionTargets = t;
    return t ? [t.cold, ...(t.hot ? [t.hot] : [])] : [];
  }

  /**
   * Their new texts for the write's history lines, under its locks (milestones.ts
   * `companionPlan`), at the real paths companionFiles judged (the files named in `texts`).
   */
  companionPlan(events: readonly WorkflowEvent[], texts: ReadonlyMap<string, string | undefined>): Promise<CompanionPlan> {
    // `texts` holds the files companionFiles named for this write: the cold file, and the hot one when named.
    const cold = this.companionTargets?.cold;
    if (cold === undefined || !texts.has(cold)) return Promise.reject(new WaymarkError('unavailable', 'the memory files were not named for this write'));
    return companionPlan(this.m, this, events, texts, { cold, hot: [...texts.keys()].find((f) => f !== cold) });
  }

  /** The cold file's real path as companionFiles judged it (the same for every write of this service). */
  private companionTargets?: { cold: string; hot?: string };

  /** Folds pending observations/patterns of a workflow (or one step) into a summary. Returns how many. */
  consolidate(rel: string, step: string | undefined, entry?: HistoryEntry): Promise<number> {
    return consolidate(this.m, rel, step, entry);
  }

  // Export, prune, rebuild.

  exportAll(out?: string): Promise<{ file: string; bytes: number; counts: StoreCounts; warning?: string; engine: 'kuzu' | 'journal' }> {
    return exportAll(this.m, out);
  }

  /**
   * Keeps the files small: hot working memory beyond `keepHot` entries moves to the cold file;
   * a cold file over 100 KB is archived intact and restarted; with `olderThanDays`, consolidated
   * observations older than that leave the graph (their summaries stay).
   */
  prune(args: { keepHot?: number; olderThanDays?: number; force?: boolean } = {}): Promise<{ movedFromHot: number; coldArchive?: string; forgotten: number }> {
    return prune(this.m, this, args);
  }

  /** Moves an unreadable database aside and rebuilds the graph from the journal. */
  rebuild(): Promise<{ movedAside?: string; added: number }> {
    return this.access.rebuild();
  }

  /** Ingests the inbox now (when the database can be taken). */
  async flush(waitMs?: number): Promise<{ engine: 'kuzu' | 'journal' }> {
    const { engine } = await this.access.serial(() => this.access.withStore(async () => undefined, waitMs, true));
    return { engine };
  }

  /** Closes the database. Always call before the process exits. */
  async dispose(): Promise<void> {
    await this.flushWorkflowEvents();
    await this.flushFiles();
    await this.access.close();
  }
}

export function createMemoryService(options: MemoryServiceOptions): MemoryService {
  return new MemoryService(options);
}

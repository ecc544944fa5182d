import * as fs from 'node:fs';
import * as path from 'node:path';
import { readConfigSync } from '../store/configFile';
import { WaymarkError, errorMessage } from '../errors';
import { silentLogger, systemClock } from '../ports';
import type { Clock, Logger } from '../ports';
import type { HistoryEntry, WorkflowState } from '../types';
import type { WriteContext } from '../api';
import { appendJournal, journalFiles, readJournal } from './journal';
import { assertWritable, readInternalIfExists, safeMkdir, safeWritePath } from '../store/safePath';
import { JournalStore } from './journalStore';
import { defaultKuzuLoader, kuzuFailure, openKuzuStore, SCHEMA_VERSION } from './kuzuStore';
import type { KuzuLoader, KuzuStore } from './kuzuStore';
import { entityId, entityKindOf, entityName, newId, normalizeEntityId, relPath } from './links';
import { importCandidates, parseImportFile } from './importers';
import type { ImportFormat } from './importers';
import { COLD_LIMIT, EXPORT_LIMIT, HOT_LIMIT, MemoryFiles } from './memoryFiles';
import type { ColdSection } from './memoryFiles';
import { LEARNING_CATEGORIES, MEMORY_TYPES, SUMMARY_SCOPES } from './model';
import type { EntityRecord, JournalOp, ListFilter, MemoryRecord, MemoryStore, MemoryType, RecallItem, RecallQuery, RelationRecord, StoreCounts, Tier } from './model';

/** Memory settings (`memory:` in `.waymark/config.yaml`, or passed by the host). Paths relative to the root. */
export interface MemoryConfig {
  /** Folder for the database and inbox. Default `.waymark/memory`. */
  dir?: string;
  hotFile?: string;
  coldFile?: string;
  /** Bytes for Kuzu's buffer pool. Default 64 MB. */
  bufferManagerSize?: number;
  /** How long to wait for the database held by another process before falling back. Default 1500 ms. */
  waitMs?: number;
  /** `journal` never loads Kuzu. */
  engine?: 'kuzu' | 'journal';
}

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

export interface RecordInput {
  type: MemoryType | 'entity';
  text?: string;
  title?: string;
  /** Learning category or summary scope. */
  category?: string;
  rationale?: string;
  alternatives?: string[];
  decidedBy?: string;
  supersedes?: string;
  /** Workflow file (absolute, or relative to the root). */
  workflow?: string;
  step?: string;
  agent?: string;
  session?: string;
  files?: string[];
  entities?: string[];
  tags?: string[];
  origin?: string;
  id?: string;
  tier?: Tier;
  createdAt?: string;
  /** Entities: kind and name (`--type entity --kind component --name parser`), relations to others. */
  kind?: string;
  name?: string;
  relations?: { to: string; relation: string }[];
}

export interface RecordResult {
  id: string;
  type: MemoryType | 'entity';
  tier?: Tier;
  /** `graph` when it reached the database now; `inbox` when it waits in the journal. */
  stored: 'graph' | 'inbox';
  record?: MemoryRecord;
  entity?: EntityRecord;
  note?: string;
}

/** What to recall for. Files and workflows may be absolute or relative to the root. */
export interface RecallTarget {
  workflow?: string;
  step?: string;
  file?: string;
  entity?: string;
  text?: string;
  types?: MemoryType[];
  since?: string;
  limit?: number;
}

export interface MemoryStatus {
  state: 'ok' | 'degraded';
  engine: 'kuzu' | 'journal';
  /** Why degraded. */
  reason?: string;
  cause?: string;
  schemaVersion?: number;
  counts: StoreCounts;
  /** Journal bytes not yet in the database. */
  pendingBytes: number;
  badLines: number;
  session?: SessionInfo;
  files: { dir: string; db: string; inbox: string; hot: string; cold: string };
  sizes: { hot: number; cold: number; inbox: number; db: number; lastExport?: number };
  warnings: string[];
  /** One line for status bars: `memory: ok (kuzu, ...)` / `memory: degraded: reason`. */
  line: string;
}

export interface SessionInfo {
  id: string;
  startedAt: string;
  objective?: string;
}

export const DEFAULT_MEMORY_DIR = '.waymark/memory';

/**
 * The `memory:` block of `.waymark/config.yaml`, read through the one config schema (bad values
 * are dropped there and reported by the scan; a missing or unreadable config gives defaults).
 */
export function loadMemoryConfig(root: string): MemoryConfig {
  const m = readConfigSync(root).memory;
  const cfg: MemoryConfig = {};
  if (m.dir !== undefined) cfg.dir = m.dir;
  if (m.hotFile !== undefined) cfg.hotFile = m.hotFile;
  if (m.coldFile !== undefined) cfg.coldFile = m.coldFile;
  if (m.bufferManagerSize !== undefined) cfg.bufferManagerSize = m.bufferManagerSize;
  if (m.waitMs !== undefined) cfg.waitMs = m.waitMs;
  if (m.engine !== undefined) cfg.engine = m.engine;
  return cfg;
}

const TIER1_CATEGORIES = new Set(['error', 'security', 'preference', 'gotcha', 'fix']);

/**
 * The memory service: the journal (inbox) is written first, always; the Kuzu graph is
 * opened lazily and briefly, ingests the journal from its cursor, and answers queries.
 * Whenever Kuzu cannot be used the same operations run on an in-memory store rebuilt from the
 * journal, and `status()` says `memory: degraded` with the reason.
 */
export class MemoryService {
  readonly root: string;
  readonly paths: { dir: string; db: string; inbox: string; hot: string; cold: string; session: string; exportMeta: string };
  readonly files: MemoryFiles;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly cfg: MemoryConfig;
  private kuzu?: KuzuStore;
  private closeTimer?: NodeJS.Timeout;
  private queue: Promise<unknown> = Promise.resolve();
  private journalStore?: JournalStore;
  private journalRead = new Map<string, { end: number; ino?: number }>();
  private lastFailure?: WaymarkError;
  private retryAt?: number;
  private nothingYet = false;
  private cursorDirty = false;
  /** Inbox cursor of the open database (this process is its only user while it is open). */
  private cursor?: { ino?: number; offset: number };
  /** Markdown mirrors are written in the background, in order; `flushFiles()` waits for them. */
  private filesQueue: Promise<void> = Promise.resolve();
  private pendingMirror: MemoryRecord[] = [];
  private mirrorTimer?: NodeJS.Timeout;
  private badLines = 0;
  private disposed = false;

  private readonly opts: MemoryServiceOptions;

  constructor(options: MemoryServiceOptions) {
    const opts = (this.opts = { ...options });
    this.root = path.resolve(opts.root);
    this.cfg = { ...loadMemoryConfig(this.root), ...(opts.config ?? {}) };
    this.logger = opts.logger ?? silentLogger;
    this.clock = opts.clock ?? systemClock;
    const dir = path.resolve(this.root, this.cfg.dir ?? DEFAULT_MEMORY_DIR);
    this.paths = {
      dir,
      db: path.join(dir, 'graph.kuzu'),
      inbox: path.join(dir, 'inbox.jsonl'),
      hot: path.resolve(this.root, this.cfg.hotFile ?? path.join(dir, 'session_state.md')),
      cold: path.resolve(this.root, this.cfg.coldFile ?? path.join(dir, 'orchestrator_memory.md')),
      session: path.join(dir, 'session.json'),
      exportMeta: path.join(dir, 'last-export.json'),
    };
    this.files = new MemoryFiles(this.paths.hot, this.paths.cold, this.root, {
      hot: this.cfg.hotFile !== undefined ? 'memory.hotFile' : this.cfg.dir !== undefined ? 'memory.dir' : undefined,
      cold: this.cfg.coldFile !== undefined ? 'memory.coldFile' : this.cfg.dir !== undefined ? 'memory.dir' : undefined,
    });
  }

  /** The setting to name when the memory folder is refused (only when it was configured). */
  private dirLabel(): string | undefined {
    return this.cfg.dir !== undefined ? 'memory.dir' : undefined;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** Serialises operations within this process. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  // ---- store access -------------------------------------------------------------------------

  /** Opens Kuzu (or reuses the open one), ingests the journal, runs `fn`; falls back to the journal store. */
  private async withStore<T>(fn: (s: MemoryStore) => Promise<T>, waitMs?: number, write = false): Promise<{ value: T; engine: 'kuzu' | 'journal' }> {
    if (this.disposed) throw new WaymarkError('unavailable', 'memory service is disposed');
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = undefined;
    // Nothing ever recorded here: answer "nothing" without creating a database (a read in a
    // random folder must not leave files behind).
    this.nothingYet = !write && !this.kuzu && !fs.existsSync(this.paths.inbox) && !fs.existsSync(this.paths.db);
    if (this.nothingYet) return { value: await fn(new JournalStore()), engine: 'journal' };
    const kuzu = await this.tryKuzu(waitMs);
    try {
      if (kuzu) {
        try {
          await this.ingestPending(kuzu);
          return { value: await fn(kuzu), engine: 'kuzu' };
        } catch (e) {
          if (WaymarkError.is(e) && e.reason !== 'unavailable' && e.reason !== 'locked') throw e;
          const err = kuzuFailure(e, this.paths.db);
          this.logger.error(`[memory] Kuzu query failed, using the journal: ${err.message}`);
          this.lastFailure = err;
          await this.closeKuzu();
        }
      }
      const js = this.loadJournalStore();
      return { value: await fn(js), engine: 'journal' };
    } finally {
      this.scheduleClose();
    }
  }

  private async tryKuzu(waitMs?: number): Promise<KuzuStore | undefined> {
    if (this.kuzu) return this.kuzu;
    if (this.cfg.engine === 'journal') {
      this.lastFailure = new WaymarkError('unavailable', 'memory engine set to journal in config', undefined, { cause: 'config' });
      return undefined;
    }
    // After a failure, long-lived hosts (VS Code) do not pay the wait on every tree expansion.
    if (this.retryAt && Date.now() < this.retryAt) return undefined;
    const started = Date.now();
    try {
      // Say what is wrong before Kuzu does: a folder leading outside the workspace, or one that
      // cannot be written (Kuzu's own message for that reads like a corrupt database).
      const db = safeWritePath(this.root, this.paths.db, this.dirLabel());
      try {
        assertWritable(db, 'memory database');
      } catch (e) {
        const notWritable = (WaymarkError.is(e) && (e.data?.notWritable as string | undefined)) || this.paths.dir;
        throw new WaymarkError('unavailable', `memory folder is not writable: ${notWritable} (${String((e as WaymarkError).data?.code ?? 'EACCES')}); make it writable (chmod u+w ${notWritable}); nothing needs rebuilding`, this.paths.db, { cause: 'not-writable' });
      }
      this.kuzu = await openKuzuStore(this.paths.db, {
        loader: this.opts.loader,
        bufferManagerSize: this.cfg.bufferManagerSize,
        waitMs: waitMs ?? this.cfg.waitMs ?? 1500,
      });
      this.lastFailure = undefined;
      this.retryAt = undefined;
      this.logger.debug(`[memory] opened ${this.paths.db} in ${Date.now() - started} ms`);
      return this.kuzu;
    } catch (e) {
      const err = kuzuFailure(e, this.paths.db);
      if (this.lastFailure?.message !== err.message) this.logger.warn(`[memory] degraded: ${err.message}`);
      this.lastFailure = err;
      if ((this.opts.holdMs ?? 0) > 0) this.retryAt = Date.now() + (err.data?.cause === 'locked' ? 2000 : 10_000);
      return undefined;
    }
  }

  /** Keep the database open at least this long after use (a long-lived host may raise it). */
  raiseHold(ms: number): void {
    if (ms > (this.opts.holdMs ?? 0)) this.opts.holdMs = ms;
  }

  private scheduleClose(): void {
    const hold = this.opts.holdMs ?? 0;
    if (!this.kuzu) return;
    if (hold <= 0) {
      // closed by the caller's serial chain right after the operation
      this.closeTimer = setTimeout(() => void this.serial(() => this.closeKuzu()), 0);
      return;
    }
    this.closeTimer = setTimeout(() => void this.serial(() => this.closeKuzu()), hold);
    this.closeTimer.unref?.();
  }

  private deferCursor(store: MemoryStore): boolean {
    return store === this.kuzu && (this.opts.holdMs ?? 0) > 0;
  }

  private async closeKuzu(): Promise<void> {
    const k = this.kuzu;
    const cursor = this.cursor;
    this.kuzu = undefined;
    this.cursor = undefined;
    if (k) {
      if (this.cursorDirty && cursor) {
        try {
          await k.setMeta('inboxCursor', JSON.stringify(cursor));
        } catch (e) {
          this.logger.warn(`[memory] saving the inbox cursor: ${errorMessage(e)}`);
        }
      }
      this.cursorDirty = false;
      try {
        await k.close();
      } catch (e) {
        this.logger.warn(`[memory] closing the database: ${errorMessage(e)}`);
      }
    }
  }

  /** Ingests the inbox from the cursor kept in the database (idempotent by id). */
  private async ingestPending(store: KuzuStore): Promise<number> {
    let cursor: { ino?: number; offset: number } = { offset: 0 };
    if (this.cursor && store === this.kuzu) cursor = this.cursor;
    else {
      const cursorRaw = await store.getMeta('inboxCursor');
      try {
        if (cursorRaw) cursor = JSON.parse(cursorRaw);
      } catch {
        cursor = { offset: 0 };
      }
    }
    let size = 0;
    let ino: number | undefined;
    try {
      const st = fs.statSync(this.paths.inbox);
      size = st.size;
      ino = st.ino;
    } catch {
      return 0;
    }
    if (ino !== cursor.ino) cursor = { ino, offset: 0 };
    if (store === this.kuzu) this.cursor = cursor;
    if (size <= cursor.offset) return 0;
    const read = readJournal(this.paths.inbox, cursor.offset);
    this.badLines += read.bad;
    const added = await store.transaction(async () => {
      let n = 0;
      for (let i = 0; i < read.ops.length; i += 20000) n += (await store.ingest(read.ops.slice(i, i + 20000))).added;
      // A long-lived holder keeps the cursor in memory and stores it when it closes (a crash
      // only means re-reading lines, which ingestion ignores by id).
      if (this.deferCursor(store)) this.cursorDirty = true;
      else await store.setMeta('inboxCursor', JSON.stringify({ ino: read.ino ?? ino, offset: read.end }));
      return n;
    });
    if (store === this.kuzu) this.cursor = { ino: read.ino ?? ino, offset: read.end };
    if (added) this.logger.debug(`[memory] ingested ${added} memories from the inbox`);
    return added;
  }

  /** The fallback store, kept up to date incrementally from the journal files. */
  private loadJournalStore(): JournalStore {
    if (!this.journalStore) this.journalStore = new JournalStore(() => this.clock.now().getTime());
    for (const f of journalFiles(this.paths.dir, this.paths.inbox)) {
      const prev = this.journalRead.get(f);
      let ino: number | undefined;
      try {
        ino = fs.statSync(f).ino;
      } catch {
        continue;
      }
      const from = prev && prev.ino === ino ? prev.end : 0;
      const read = readJournal(f, from);
      this.journalStore.ingestSync(read.ops);
      this.journalRead.set(f, { end: read.end, ino: read.ino });
    }
    return this.journalStore;
  }

  // ---- recording ----------------------------------------------------------------------------

  /** Builds a memory record from input (validates; throws WaymarkError('usage')). */
  buildRecord(input: RecordInput): MemoryRecord {
    const type = input.type;
    if (!(MEMORY_TYPES as readonly string[]).includes(type)) {
      throw new WaymarkError('usage', `Unknown memory type '${String(type)}': use learning, decision, summary or entity.`);
    }
    const text = (input.text ?? '').trim();
    if (!text) throw new WaymarkError('usage', `A ${type} needs text (--text "...").`);
    if (type === 'learning' && input.category && !(LEARNING_CATEGORIES as readonly string[]).includes(input.category)) {
      throw new WaymarkError('usage', `Unknown learning category '${input.category}': use one of ${LEARNING_CATEGORIES.join(', ')}.`);
    }
    if (type === 'summary' && input.category && !(SUMMARY_SCOPES as readonly string[]).includes(input.category)) {
      throw new WaymarkError('usage', `Unknown summary scope '${input.category}': use one of ${SUMMARY_SCOPES.join(', ')}.`);
    }
    if (input.step && !input.workflow) throw new WaymarkError('usage', 'A step needs its workflow: add --workflow FILE.');
    const mem = type as MemoryType;
    const category = input.category ?? (mem === 'summary' ? 'session' : undefined);
    const tier: Tier =
      input.tier ??
      (mem === 'decision' ? 1 : mem === 'summary' ? (category === 'session' ? 3 : 2) : category && !TIER1_CATEGORIES.has(category) ? 2 : 1);
    const session = input.session ?? this.currentSession()?.id;
    const rec: MemoryRecord = {
      id: input.id ?? newId(mem.slice(0, 3)),
      type: mem,
      text,
      createdAt: input.createdAt ?? this.now(),
      tier,
      source: {},
    };
    if (category) rec.category = category;
    if (input.title) rec.title = input.title;
    if (mem === 'decision') {
      if (input.rationale) rec.rationale = input.rationale;
      if (input.alternatives?.length) rec.alternatives = input.alternatives;
      if (input.decidedBy) rec.decidedBy = input.decidedBy;
      if (input.supersedes) rec.supersedes = input.supersedes;
    }
    if (input.workflow) rec.source.workflow = relPath(this.root, input.workflow);
    if (input.step) rec.source.step = input.step;
    if (input.agent) rec.source.agent = input.agent;
    if (session) rec.source.session = session;
    const origin = input.origin ?? this.opts.origin;
    if (origin) rec.source.origin = origin;
    const ents = [...(input.files ?? []).map((f) => entityId.file(relPath(this.root, f))), ...(input.entities ?? []).map(normalizeEntityId)];
    if (ents.length) rec.entities = [...new Set(ents)];
    if (input.tags?.length) rec.tags = input.tags;
    return rec;
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
    const { engine } = await this.serial(() => this.withStore(async () => undefined, options.waitMs));
    return {
      id: rec.id,
      type: rec.type,
      tier: rec.tier,
      stored: engine === 'kuzu' ? 'graph' : 'inbox',
      record: rec,
      note: engine === 'kuzu' ? undefined : `kept in the inbox (${this.lastFailure?.message ?? 'database busy'}); ingested when the database is available`,
    };
  }

  private async recordEntity(input: RecordInput): Promise<RecordResult> {
    const name = (input.name ?? input.text ?? '').trim();
    if (!name) throw new WaymarkError('usage', 'An entity needs --name NAME (and --kind file|component|agent|workflow|step).');
    const kind = input.kind ?? 'component';
    const id = kind === 'file' || kind === 'workflow' ? `${kind}:${relPath(this.root, name)}` : /^[a-z]+:/.test(name) ? name : `${kind}:${name}`;
    const entity: EntityRecord = { id, kind: entityKindOf(id), name: entityName(id), createdAt: input.createdAt ?? this.now() };
    const ops: JournalOp[] = [{ v: 1, op: 'entity', rec: entity }];
    for (const r of input.relations ?? []) ops.push({ v: 1, op: 'relate', rec: { from: id, to: normalizeEntityId(r.to), relation: r.relation || 'related_to' } });
    if (input.workflow) {
      const wf = entityId.workflow(relPath(this.root, input.workflow));
      ops.push({ v: 1, op: 'relate', rec: { from: id, to: input.step ? entityId.step(relPath(this.root, input.workflow), input.step) : wf, relation: 'used_by' } });
      if (input.step) ops.push({ v: 1, op: 'relate', rec: { from: entityId.step(relPath(this.root, input.workflow), input.step), to: wf, relation: 'step_of' } });
    }
    appendJournal(this.paths.inbox, ops, this.root);
    const { engine } = await this.serial(() => this.withStore(async () => undefined));
    return { id, type: 'entity', stored: engine === 'kuzu' ? 'graph' : 'inbox', entity };
  }

  /** Tier-1 memories also land in the hot file; decisions, preferences and errors in the cold file (batched). */
  private async mirrorToFiles(recs: MemoryRecord[]): Promise<void> {
    const hot: string[] = [];
    const cold: { section: ColdSection; line: string }[] = [];
    for (const rec of recs) {
      const where = [rec.source.workflow, rec.source.step].filter(Boolean).join(' · ');
      const label = rec.type === 'learning' ? rec.category ?? 'learning' : rec.type;
      if (rec.tier !== 3) hot.push(`[${label}] ${rec.text}${where ? ` [${where}]` : ''}`);
      let section: ColdSection | undefined;
      if (rec.type === 'decision') section = 'Key decisions';
      else if (rec.category === 'preference') section = 'Preferences';
      else if (rec.type === 'learning' && rec.tier === 1) section = 'Learned context';
      const line = `${rec.createdAt.slice(0, 10)} ${rec.text}${rec.type === 'decision' && rec.rationale ? ` (because ${rec.rationale})` : ''}${where ? ` [${where}]` : ''}`;
      if (section) cold.push({ section, line });
    }
    try {
      if (hot.length) await this.files.updateHot((h) => void h.working.push(...hot));
      if (cold.length) await this.files.appendCold(cold);
    } catch (e) {
      // the journal already holds the memories; the Markdown mirrors are best effort
      this.logger.warn(`[memory] could not update the memory files: ${errorMessage(e)}`);
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
    if (!ops.length) return { added: 0, engine: this.kuzu ? 'kuzu' : 'journal' };
    // Skip memories already known so that importing twice adds nothing (not even journal lines).
    const ids = ops.filter((o) => o.op === 'memory').map((o) => (o.rec as MemoryRecord).id);
    const { value: added, engine } = await this.serial(() =>
      this.withStore(async (s) => {
        const known = await s.has(ids);
        const seen = new Set<string>();
        const fresh = ops.filter((o) => o.op !== 'memory' || (!known.has(o.rec.id) && !seen.has(o.rec.id) && (seen.add(o.rec.id), true)));
        const newMemories = fresh.filter((o) => o.op === 'memory').length;
        if (!newMemories) return 0;
        // The journal first (durable); then, when we hold the database, ingest the ops we have
        // in hand instead of reading them back, and move the cursor past them only when nobody
        // else appended meanwhile (otherwise the next ingest re-reads; ids make that harmless).
        const before = statOrUndefined(this.paths.inbox);
        const bytes = appendJournal(this.paths.inbox, fresh, this.root);
        if (s.engine !== 'kuzu' || s !== this.kuzu) return newMemories;
        const kuzu = s as KuzuStore;
        await kuzu.transaction(async () => {
          await kuzu.ingest(fresh);
          const now = statOrUndefined(this.paths.inbox);
          const c = this.cursor;
          if (c && before && now && now.ino === before.ino && c.ino === now.ino && c.offset === before.size && now.size === before.size + bytes) {
            if (this.deferCursor(kuzu)) this.cursorDirty = true;
            else await kuzu.setMeta('inboxCursor', JSON.stringify({ ino: now.ino, offset: now.size }));
            this.cursor = { ino: now.ino, offset: now.size };
          }
        });
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
    const now = this.now();
    const parsed = candidates.map((f) => parseImportFile(this.root, f, now));
    const ops = parsed.flatMap((f) => f.ops);
    const res = await this.recordMany(ops);
    return { files: parsed.map((f) => ({ file: f.file, format: f.format, memories: f.memories })), found: parsed.reduce((n, f) => n + f.memories, 0), added: res.added, engine: res.engine };
  }

  // ---- recall -------------------------------------------------------------------------------

  resolveTarget(t: RecallTarget): RecallQuery {
    const entities: string[] = [];
    if (t.workflow) {
      const rel = relPath(this.root, t.workflow);
      entities.push(t.step ? entityId.step(rel, t.step) : entityId.workflow(rel));
    } else if (t.step) {
      throw new WaymarkError('usage', 'A step needs its workflow: add --workflow FILE.');
    }
    if (t.file) entities.push(entityId.file(relPath(this.root, t.file)));
    if (t.entity) entities.push(normalizeEntityId(t.entity));
    if (t.types) for (const ty of t.types) if (!(MEMORY_TYPES as readonly string[]).includes(ty)) throw new WaymarkError('usage', `Unknown memory type '${ty}'.`);
    if (t.since && !Number.isFinite(Date.parse(t.since))) throw new WaymarkError('usage', `--since must be a date (e.g. 2026-01-31), not '${t.since}'.`);
    return { entities: entities.length ? entities : undefined, text: t.text, types: t.types, since: t.since, limit: t.limit ?? 20 };
  }

  async recall(t: RecallTarget, options: { waitMs?: number } = {}): Promise<{ items: RecallItem[]; engine: 'kuzu' | 'journal'; degraded?: string }> {
    const q = this.resolveTarget(t);
    const { value, engine } = await this.serial(() => this.withStore((s) => s.recall(q), options.waitMs));
    return { items: value, engine, degraded: engine === 'journal' && !this.nothingYet ? this.lastFailure?.message : undefined };
  }

  async list(filter: ListFilter & { workflowFile?: string } = {}): Promise<{ items: MemoryRecord[]; engine: 'kuzu' | 'journal' }> {
    const f: ListFilter = { ...filter };
    if (filter.workflowFile) f.workflow = relPath(this.root, filter.workflowFile);
    const { value, engine } = await this.serial(() => this.withStore((s) => s.list(f)));
    return { items: value, engine };
  }

  async graph(): Promise<{ entities: EntityRecord[]; relations: RelationRecord[]; engine: 'kuzu' | 'journal' }> {
    const { value, engine } = await this.serial(() => this.withStore(async (s) => ({ entities: await s.entities(), relations: await s.relations() })));
    return { ...value, engine };
  }

  async neighbourhood(workflowFile: string, depth = 1) {
    const id = entityId.workflow(relPath(this.root, workflowFile));
    const { value, engine } = await this.serial(() => this.withStore((s) => s.neighbourhood(id, depth)));
    return { center: id, ...value, engine };
  }

  // ---- status -------------------------------------------------------------------------------

  async status(options: { waitMs?: number } = {}): Promise<MemoryStatus> {
    await this.flushFiles();
    const { value, engine } = await this.serial(() =>
      this.withStore(async (s) => ({ counts: await s.counts(), schema: s.engine === 'kuzu' ? Number(await s.getMeta('schemaVersion')) : undefined }), options.waitMs),
    );
    const size = (f: string) => {
      try {
        return fs.statSync(f).size;
      } catch {
        return 0;
      }
    };
    const inbox = size(this.paths.inbox);
    let pending = 0;
    if (engine === 'journal') pending = inbox;
    const fsizes = this.files.sizes();
    let lastExport: number | undefined;
    try {
      lastExport = JSON.parse(fs.readFileSync(this.paths.exportMeta, 'utf8')).bytes;
    } catch {
      lastExport = undefined;
    }
    const warnings: string[] = [];
    if (fsizes.hot > HOT_LIMIT) warnings.push(`hot memory ${this.paths.hot} is ${kb(fsizes.hot)} (over 10 KB): run 'waymark memory prune' to move it to the cold file`);
    if (fsizes.cold > COLD_LIMIT) warnings.push(`cold memory ${this.paths.cold} is ${kb(fsizes.cold)} (over 100 KB): run 'waymark memory prune' to archive it`);
    if (lastExport !== undefined && lastExport > EXPORT_LIMIT) warnings.push(`the last graph export was ${kb(lastExport)} (over 500 KB): run 'waymark memory prune --older-than 30' to drop consolidated observations`);
    if (this.badLines) warnings.push(`${this.badLines} unreadable inbox line(s) were skipped`);
    // Nothing recorded yet opens no database; still say when none could ever be opened here
    // (a package without Kuzu for this platform), so the user learns it before recording.
    if (this.nothingYet && this.cfg.engine !== 'journal' && !process.env.WAYMARK_MEMORY_ENGINE) {
      try {
        (this.opts.loader ?? defaultKuzuLoader)();
      } catch (e) {
        this.lastFailure = new WaymarkError('unavailable', `${errorMessage(e)}; learnings are kept in the journal`, undefined, { cause: 'no-engine' });
      }
    }
    const degraded = engine === 'journal' && (!this.nothingYet || this.lastFailure?.data?.cause === 'no-engine');
    const c = value.counts;
    const what = `${c.decision} decisions, ${c.learning} learnings, ${c.summary} summaries, ${c.entity} entities`;
    const line = this.nothingYet && !degraded
      ? 'memory: ok (nothing recorded yet)'
      : degraded
        ? `memory: degraded: ${this.lastFailure?.message ?? 'database unavailable'} (using the journal: ${what})`
        : `memory: ok (kuzu, ${what})`;
    return {
      state: degraded ? 'degraded' : 'ok',
      engine,
      reason: degraded ? this.lastFailure?.message : undefined,
      cause: degraded ? String(this.lastFailure?.data?.cause ?? 'unknown') : undefined,
      schemaVersion: value.schema ?? (engine === 'kuzu' ? SCHEMA_VERSION : undefined),
      counts: c,
      pendingBytes: pending,
      badLines: this.badLines,
      session: this.currentSession(),
      files: { dir: this.paths.dir, db: this.paths.db, inbox: this.paths.inbox, hot: this.paths.hot, cold: this.paths.cold },
      sizes: { hot: fsizes.hot, cold: fsizes.cold, inbox, db: size(this.paths.db), lastExport },
      warnings,
      line,
    };
  }

  // ---- sessions (tier 3) --------------------------------------------------------------------

  currentSession(): SessionInfo | undefined {
    try {
      const s = JSON.parse(readInternalIfExists(this.paths.session, 'memory session') ?? '');
      if (s && typeof s.id === 'string' && typeof s.startedAt === 'string') return s as SessionInfo;
    } catch {
      // no session running
    }
    return undefined;
  }

  /** Starts a session: hot file reset for it, and what memory says about the work at hand. */
  async sessionStart(args: { objective?: string; workflow?: string; limit?: number } = {}): Promise<{ session: SessionInfo; previous?: SessionInfo; recall: RecallItem[]; engine: 'kuzu' | 'journal' }> {
    await this.flushFiles();
    const previous = this.currentSession();
    const stamp = this.now();
    const session: SessionInfo = { id: `s-${stamp.replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${newId('x').slice(-4)}`, startedAt: stamp };
    if (args.objective) session.objective = args.objective;
    safeMkdir(this.root, this.paths.dir, this.dirLabel());
    const { writeFileAtomic } = await import('../store/atomicWrite');
    writeFileAtomic(this.paths.session, JSON.stringify(session, null, 2) + '\n', { root: this.root, what: 'memory session' });
    await this.files.updateHot((h) => {
      h.session = session.id;
      h.started = stamp;
      h.objective = args.objective ?? '';
      h.working = [];
      h.tasks = h.tasks ?? [];
      h.waiting = h.waiting ?? [];
    });
    const r = await this.recall({ workflow: args.workflow, limit: args.limit ?? 15 });
    return { session, previous, recall: r.items, engine: r.engine };
  }

  /** Ends the session: a summary memory, the hot file's discoveries moved to the cold file, hot reset. */
  async sessionEnd(args: { summary?: string } = {}): Promise<{ session?: SessionInfo; summary: MemoryRecord; moved: number }> {
    await this.flushFiles();
    const session = this.currentSession();
    const hot = this.files.readHot();
    const text =
      args.summary?.trim() ||
      (hot.working.length ? `Worked on: ${hot.objective || 'no stated objective'}; ${hot.working.length} notes: ${hot.working.slice(-5).join('; ')}` : `Ended${hot.objective ? ` (objective: ${hot.objective})` : ''} with nothing recorded.`);
    const res = await this.record({ type: 'summary', category: 'session', text, session: session?.id });
    const day = this.now().slice(0, 10);
    const discoveries = hot.working.filter((w) => !/^\[(decision|preference)\]/.test(w));
    await this.files.appendCold([
      ...discoveries.map((d) => ({ section: 'Learned context' as const, line: `${day} ${d}` })),
      ...hot.waiting.map((w) => ({ section: 'Blockers' as const, line: `${day} waiting for: ${w}` })),
      { section: 'Session history', line: `${day} Session ${session?.id ?? '(none)'}: ${text}` },
    ]);
    await this.files.updateHot((h) => {
      h.session = undefined;
      h.started = undefined;
      h.objective = '';
      h.working = [];
      h.waiting = [];
    });
    fs.rmSync(this.paths.session, { force: true });
    return { session, summary: res.record!, moved: discoveries.length };
  }

  // ---- tier 2: milestones --------------------------------------------------------------------

  /**
   * The core's WriteObserver: consolidates tier-2 observations when a step or workflow
   * completes and writes the cold-file lines for phase transitions. Never throws.
   */
  onWorkflowEvent = async (entry: HistoryEntry, ctx: WriteContext & { after?: WorkflowState }): Promise<void> => {
    try {
      await this.handleWorkflowEvent(entry, ctx);
    } catch (e) {
      this.logger.warn(`[memory] workflow event ${entry.operation} on ${entry.file}: ${errorMessage(e)}`);
    }
  };

  private async handleWorkflowEvent(entry: HistoryEntry, ctx: WriteContext & { after?: WorkflowState }): Promise<void> {
    const root = ctx.root || this.root;
    const rel = relPath(root, entry.file || ctx.file);
    const op = (entry.operation || ctx.operation || '').toLowerCase().replace(/[_\s]/g, '-');
    const fromStatus = typeof entry.from?.status === 'string' ? entry.from.status : undefined;
    // History entries carry only the fields that changed: no `status` in `to` means it did not change.
    const toStatus = entry.to && 'status' in entry.to ? (typeof entry.to.status === 'string' ? entry.to.status : undefined) : undefined;
    const workflowName = ctx.after?.workflow ?? path.basename(rel, path.extname(rel));
    const day = (entry.time || this.now()).slice(0, 10);
    const completedWorkflow = toStatus === 'completed' && fromStatus !== 'completed';
    const stepDone = /complete-?step|advance/.test(op) ? this.completedStep(entry) : undefined;
    const cold: { section: ColdSection; line: string }[] = [];

    if (stepDone) {
      const n = await this.consolidate(rel, stepDone, entry);
      cold.push({ section: 'Session history', line: `${day} ${workflowName} (${rel}): step ${stepDone} completed${n ? `, ${n} observations consolidated` : ''}` });
    }
    if (op === 'block' || toStatus === 'blocked') {
      const reason = typeof entry.detail?.reason === 'string' ? entry.detail.reason : ctx.after?.blockedReason ?? 'no reason given';
      cold.push({ section: 'Blockers', line: `${day} ${workflowName} (${rel}) blocked: ${reason}` });
    } else if (op === 'start' || (toStatus === 'in_progress' && fromStatus === 'created')) {
      cold.push({ section: 'Session history', line: `${day} Started ${workflowName} (${rel})` });
    } else if (op === 'unblock') {
      cold.push({ section: 'Session history', line: `${day} ${workflowName} (${rel}) unblocked` });
    }
    if (completedWorkflow) {
      await this.consolidate(rel, undefined, entry);
      const outcome = await this.workflowOutcome(rel, ctx.after);
      const context = ctx.after?.delegation?.agent ? `${rel} (agent ${ctx.after.delegation.agent})` : rel;
      const line = `Completed ${workflowName} for ${context}: ${outcome}`;
      await this.record({ type: 'summary', category: 'workflow', text: line, workflow: rel, agent: ctx.after?.delegation?.agent, session: entry.session ?? ctx.session, origin: 'consolidation' }, { waitMs: 500 });
      cold.push({ section: 'Session history', line: `${day} ${line}` });
    }
    await this.flushFiles();
    if (cold.length) await this.files.appendCold(cold);
  }

  private completedStep(entry: HistoryEntry): string | undefined {
    const d = entry.detail ?? {};
    if (typeof d.step === 'string') return d.step;
    const before = Array.isArray(entry.from?.stepsCompleted) ? (entry.from!.stepsCompleted as unknown[]).map(String) : [];
    const after = Array.isArray(entry.to?.stepsCompleted) ? (entry.to!.stepsCompleted as unknown[]).map(String) : [];
    const added = after.find((s) => !before.includes(s));
    if (added) return added;
    return typeof entry.from?.currentStep === 'string' ? entry.from.currentStep : undefined;
  }

  /** Folds pending observations/patterns of a workflow (or one step) into a summary. Returns how many. */
  async consolidate(rel: string, step: string | undefined, entry?: HistoryEntry): Promise<number> {
    return this.serial(async () => {
      const { value } = await this.withStore(async (s) => {
        const items = await s.list({ types: ['learning', 'summary'], workflow: rel, step });
        const done = new Set(items.filter((m) => m.type === 'summary').flatMap((m) => m.consolidates ?? []));
        const pending = items.filter((m) => m.type === 'learning' && m.tier === 2 && !done.has(m.id));
        if (!pending.length) return 0;
        pending.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
        const text = `${step ? `Step ${step}` : 'Workflow'} of ${rel}: ${pending.length} observation(s): ${pending.map((p) => p.text).join(' | ')}`;
        const summary: MemoryRecord = {
          id: `sum-${step ? 'phase' : 'wf'}-${pending.map((p) => p.id).sort().join(',').length}-${newId('c').slice(-10)}`,
          type: 'summary',
          category: step ? 'phase' : 'workflow',
          text: text.length > 4000 ? text.slice(0, 3997) + '...' : text,
          createdAt: entry?.time && Number.isFinite(Date.parse(entry.time)) ? new Date(entry.time).toISOString() : this.now(),
          tier: 2,
          source: { workflow: rel, ...(step ? { step } : {}), ...(entry?.session ? { session: entry.session } : {}), origin: 'consolidation' },
          consolidates: pending.map((p) => p.id),
        };
        const op: JournalOp = { v: 1, op: 'memory', rec: summary };
        appendJournal(this.paths.inbox, [op], this.root);
        await s.ingest([op]);
        if (s.engine === 'kuzu') await this.ingestPending(s as KuzuStore);
        return pending.length;
      }, 500);
      return value;
    });
  }

  private async workflowOutcome(rel: string, after?: WorkflowState): Promise<string> {
    const { items } = await this.list({ workflow: rel });
    const d = items.filter((m) => m.type === 'decision').length;
    const l = items.filter((m) => m.type === 'learning').length;
    const steps = after ? `${after.stepsCompleted.length}/${after.steps.length || after.stepsCompleted.length} steps done` : 'done';
    return `${steps}; ${d} decision(s), ${l} learning(s) recorded`;
  }

  // ---- export, prune, rebuild ----------------------------------------------------------------

  async exportAll(out?: string): Promise<{ file: string; bytes: number; counts: StoreCounts; warning?: string; engine: 'kuzu' | 'journal' }> {
    const { value, engine } = await this.serial(() =>
      this.withStore(async (s) => ({ memories: await s.list(), entities: await s.entities(), relations: await s.relations(), counts: await s.counts() })),
    );
    const file = path.resolve(this.root, out ?? path.join(this.paths.dir, 'export.json'));
    const doc = { format: 'waymark-memory', version: 1, exportedAt: this.now(), memories: value.memories, entities: value.entities, relations: value.relations };
    const text = JSON.stringify(doc, null, 1) + '\n';
    const { writeFileAtomic } = await import('../store/atomicWrite');
    safeMkdir(this.root, path.dirname(file), out === undefined ? this.dirLabel() : '--out');
    writeFileAtomic(file, text, { root: this.root, what: 'memory export' });
    const bytes = Buffer.byteLength(text);
    writeFileAtomic(this.paths.exportMeta, JSON.stringify({ bytes, at: doc.exportedAt }) + '\n', { root: this.root, what: 'memory export record' });
    return { file, bytes, counts: value.counts, engine, warning: bytes > EXPORT_LIMIT ? `export is ${kb(bytes)} (over 500 KB): consider 'waymark memory prune --older-than 30'` : undefined };
  }

  /**
   * Keeps the files small: hot working memory beyond `keepHot` entries moves to the cold file;
   * a cold file over 100 KB is archived intact and restarted; with `olderThanDays`, consolidated
   * observations older than that leave the graph (their summaries stay).
   */
  async prune(args: { keepHot?: number; olderThanDays?: number; force?: boolean } = {}): Promise<{ movedFromHot: number; coldArchive?: string; forgotten: number }> {
    await this.flushFiles();
    const keep = args.keepHot ?? 20;
    const day = this.now().slice(0, 10);
    let moved: string[] = [];
    const sizes = this.files.sizes();
    if (args.force || sizes.hot > HOT_LIMIT) {
      await this.files.updateHot((h) => {
        if (h.working.length > keep) moved = h.working.splice(0, h.working.length - keep);
      });
      if (moved.length) await this.files.appendCold(moved.map((m) => ({ section: 'Learned context' as const, line: `${day} ${m}` })));
    }
    let coldArchive: string | undefined;
    if (this.files.sizes().cold > COLD_LIMIT) coldArchive = await this.files.archiveCold(this.now().replace(/[:.]/g, '-'));
    let forgotten = 0;
    if (args.olderThanDays !== undefined) {
      const cutoff = new Date(this.clock.now().getTime() - args.olderThanDays * 86_400_000).toISOString();
      forgotten = await this.serial(async () => {
        const { value } = await this.withStore(async (s) => {
          const all = await s.list({ types: ['learning', 'summary'] });
          const consolidated = new Set(all.filter((m) => m.type === 'summary').flatMap((m) => m.consolidates ?? []));
          const ids = all.filter((m) => m.type === 'learning' && m.tier === 2 && consolidated.has(m.id) && m.createdAt < cutoff).map((m) => m.id);
          if (!ids.length) return 0;
          const op: JournalOp = { v: 1, op: 'forget', rec: { ids } };
          appendJournal(this.paths.inbox, [op], this.root);
          await s.ingest([op]);
          if (s.engine === 'kuzu') await this.ingestPending(s as KuzuStore);
          return ids.length;
        });
        return value;
      });
    }
    return { movedFromHot: moved.length, coldArchive, forgotten };
  }

  /** Moves an unreadable database aside and rebuilds the graph from the journal. */
  async rebuild(): Promise<{ movedAside?: string; added: number }> {
    return this.serial(async () => {
      await this.closeKuzu();
      let movedAside: string | undefined;
      if (fs.existsSync(this.paths.db)) {
        movedAside = `${this.paths.db}.broken-${this.now().replace(/[:.]/g, '-')}`;
        fs.renameSync(this.paths.db, movedAside);
        if (fs.existsSync(`${this.paths.db}.wal`)) fs.renameSync(`${this.paths.db}.wal`, `${movedAside}.wal`);
      }
      const store = await openKuzuStore(this.paths.db, { loader: this.opts.loader, bufferManagerSize: this.cfg.bufferManagerSize, waitMs: this.cfg.waitMs ?? 1500 });
      try {
        let added = 0;
        for (const f of journalFiles(this.paths.dir, this.paths.inbox)) {
          if (f === this.paths.inbox) continue;
          added += (await store.ingest(readJournal(f).ops)).added;
        }
        this.kuzu = store;
        added += await this.ingestPending(store);
        this.lastFailure = undefined;
        this.retryAt = undefined;
        return { movedAside, added };
      } finally {
        await this.closeKuzu();
      }
    });
  }

  /** Ingests the inbox now (when the database can be taken). */
  async flush(waitMs?: number): Promise<{ engine: 'kuzu' | 'journal' }> {
    const { engine } = await this.serial(() => this.withStore(async () => undefined, waitMs, true));
    return { engine };
  }

  /** Closes the database. Always call before the process exits. */
  async dispose(): Promise<void> {
    await this.flushFiles();
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = undefined;
    await this.serial(() => this.closeKuzu());
    this.disposed = true;
  }
}

function statOrUndefined(f: string): { ino: number; size: number } | undefined {
  try {
    const st = fs.statSync(f);
    return { ino: st.ino, size: st.size };
  } catch {
    return undefined;
  }
}

function kb(n: number): string {
  return `${Math.round(n / 102.4) / 10} KB`;
}

export function createMemoryService(options: MemoryServiceOptions): MemoryService {
  return new MemoryService(options);
}

// Access to a root's memory store: the Kuzu graph opened lazily and briefly (held open for a
// while by long-lived hosts), the journal (inbox) ingested from its cursor, and the in-memory
// journal store whenever Kuzu cannot be used. Operations of one process run one at a time.
import * as fs from 'node:fs';
import { WaymarkError, errorMessage } from '../errors';
import type { Clock, Logger } from '../ports';
import { journalFiles, readJournal } from './journal';
import { assertWritable, safeWritePath } from '../store/safePath';
import { JournalStore } from './journalStore';
import { kuzuFailure, openKuzuStore } from './kuzuStore';
import type { KuzuLoader, KuzuStore } from './kuzuStore';
import type { JournalOp, MemoryStore } from './model';
import type { MemoryConfig, MemoryPaths } from './memoryConfig';

export interface StoreAccessOptions {
  logger: Logger;
  clock: Clock;
  /** Injected Kuzu loader (tests simulate a broken install). */
  loader?: KuzuLoader;
  /** Keep the database open this long after the last use (ms). 0 closes after every operation. */
  holdMs?: number;
  /** The setting to name when the memory folder is refused (only when it was configured). */
  dirLabel?: string;
}

function statOrUndefined(f: string): { ino: number; size: number } | undefined {
  try {
    const st = fs.statSync(f);
    return { ino: st.ino, size: st.size };
  } catch {
    return undefined;
  }
}

export class StoreAccess {
  private kuzu?: KuzuStore;
  private closeTimer?: NodeJS.Timeout;
  private queue: Promise<unknown> = Promise.resolve();
  private journalStore?: JournalStore;
  private journalRead = new Map<string, { end: number; ino?: number }>();
  /** Why Kuzu could not be used last time (status says it). */
  lastFailure?: WaymarkError;
  private retryAt?: number;
  /** True when the last operation found nothing ever recorded (no database was created). */
  nothingYet = false;
  private cursorDirty = false;
  /** Inbox cursor of the open database (this process is its only user while it is open). */
  private cursor?: { ino?: number; offset: number };
  /** Unreadable inbox lines skipped so far. */
  badLines = 0;
  private disposed = false;
  private readonly logger: Logger;
  private readonly clock: Clock;

  constructor(
    private readonly root: string,
    private readonly paths: MemoryPaths,
    private readonly cfg: MemoryConfig,
    private readonly opts: StoreAccessOptions,
  ) {
    this.logger = opts.logger;
    this.clock = opts.clock;
  }

  /** The engine a write would reach right now without opening anything. */
  get openEngine(): 'kuzu' | 'journal' {
    return this.kuzu ? 'kuzu' : 'journal';
  }

  private dirLabel(): string | undefined {
    return this.opts.dirLabel;
  }

  /** Serialises operations within this process. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Opens Kuzu (or reuses the open one), ingests the journal, runs `fn`; falls back to the journal store. */
  async withStore<T>(fn: (s: MemoryStore) => Promise<T>, waitMs?: number, write = false): Promise<{ value: T; engine: 'kuzu' | 'journal' }> {
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
        throw new WaymarkError('unavailable', `memory folder is not writable: ${notWritable} (${String((e as WaymarkError).data?.code ?? 'EACCES')}); make it writable (chmod u+w ${notWritable}) — the database is not corrupt`, this.paths.db, { cause: 'not-writable' });
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

  async closeKuzu(): Promise<void> {
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
  async ingestPending(store: KuzuStore): Promise<number> {
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

  /**
   * After `ops` were appended to the inbox (`bytes` long, the inbox `before` as it was): ingest
   * them into the open database and move the cursor past them, when nobody else appended
   * meanwhile (otherwise the next ingest re-reads; ids make that harmless).
   */
  async ingestAppended(s: MemoryStore, ops: JournalOp[], before: { ino: number; size: number } | undefined, bytes: number): Promise<void> {
    if (s.engine !== 'kuzu' || s !== this.kuzu) return;
    const kuzu = s as KuzuStore;
    await kuzu.transaction(async () => {
      await kuzu.ingest(ops);
      const now = statOrUndefined(this.paths.inbox);
      const c = this.cursor;
      if (c && before && now && now.ino === before.ino && c.ino === now.ino && c.offset === before.size && now.size === before.size + bytes) {
        if (this.deferCursor(kuzu)) this.cursorDirty = true;
        else await kuzu.setMeta('inboxCursor', JSON.stringify({ ino: now.ino, offset: now.size }));
        this.cursor = { ino: now.ino, offset: now.size };
      }
    });
  }

  /** The inbox's inode and size now (before an append). */
  inboxStat(): { ino: number; size: number } | undefined {
    return statOrUndefined(this.paths.inbox);
  }

  /** Moves an unreadable database aside and rebuilds the graph from the journal. */
  async rebuild(): Promise<{ movedAside?: string; added: number }> {
    return this.serial(async () => {
      await this.closeKuzu();
      let movedAside: string | undefined;
      if (fs.existsSync(this.paths.db)) {
        movedAside = `${this.paths.db}.broken-${this.clock.now().toISOString().replace(/[:.]/g, '-')}`;
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

  /** Closes the database; afterwards every operation is refused. */
  async close(): Promise<void> {
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = undefined;
    await this.serial(() => this.closeKuzu());
    this.disposed = true;
  }
}

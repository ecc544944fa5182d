import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WaymarkError, errorMessage } from '../errors';
import type { EntityRecord, JournalOp, ListFilter, MemoryRecord, MemoryStore, MemoryType, RecallItem, RecallQuery, RelationRecord, StoreCounts } from './model';
import { impliedGraph, memoryLinks, queryWords, onlyStopWords, scoreItem, sortRecall, textScore } from './links';

/* The Kuzu engine behind the MemoryStore port. Kuzu realities handled here:
 * - one process per database file: open fails with "Could not set lock"; we retry until
 *   `waitMs`, then report 'locked' (callers fall back to the journal);
 * - every query result is closed before the connection/database is closed (else segfault);
 * - bufferManagerSize is explicit (the default is 80% of RAM);
 * - bulk loads go through COPY FROM CSV. */

type KuzuModule = typeof import('kuzu');
type Conn = InstanceType<KuzuModule['Connection']>;
type Db = InstanceType<KuzuModule['Database']>;
type Prepared = InstanceType<KuzuModule['PreparedStatement']>;
type Row = Record<string, unknown>;

export type KuzuLoader = () => KuzuModule;

const PROFILE = !!process.env.WAYMARK_MEMORY_PROFILE;

/** Loads the native module. `WAYMARK_MEMORY_ENGINE=journal` (or `none`) simulates Kuzu being unavailable. */
export const defaultKuzuLoader: KuzuLoader = () => {
  const forced = process.env.WAYMARK_MEMORY_ENGINE;
  if (forced === 'journal' || forced === 'none') throw new Error(`Kuzu disabled by WAYMARK_MEMORY_ENGINE=${forced}`);
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('kuzu') as KuzuModule;
  } catch (err) {
    // The universal package (and an npm install without the optional dependency) ships no
    // native database: say so plainly instead of Node's "Cannot find module".
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      throw new Error(`Kuzu (memory's database) is not installed for ${process.platform}-${process.arch}; install Waymark's package for this platform to keep memory in a graph`);
    }
    throw err;
  }
};

const MEMORY_TABLES: Record<MemoryType, string> = { learning: 'Learning', decision: 'Decision', summary: 'Summary' };
const COMMON_COLS = 'id STRING PRIMARY KEY, category STRING, title STRING, text STRING, createdAt INT64, tier INT64, workflow STRING, step STRING, session STRING, agent STRING, origin STRING, entities STRING, tags STRING';
// COPY must name every column: a CSV without a column added by ALTER TABLE crashes Kuzu 0.11.
const EXTRA_COLS: Record<MemoryType, string[]> = {
  learning: ['consolidated'],
  decision: ['rationale', 'alternatives', 'decidedBy', 'supersedes'],
  summary: ['consolidates'],
};
const COMMON_NAMES = ['id', 'category', 'title', 'text', 'createdAt', 'tier', 'workflow', 'step', 'session', 'agent', 'origin', 'entities', 'tags'];

/** Schema migrations, in order. The version reached is kept in Meta('schemaVersion'). */
export const MIGRATIONS: { version: number; statements: string[] }[] = [
  {
    version: 1,
    statements: [
      'CREATE NODE TABLE IF NOT EXISTS Meta(key STRING PRIMARY KEY, value STRING)',
      `CREATE NODE TABLE IF NOT EXISTS Learning(${COMMON_COLS})`,
      `CREATE NODE TABLE IF NOT EXISTS Decision(${COMMON_COLS}, rationale STRING, alternatives STRING, decidedBy STRING, supersedes STRING)`,
      `CREATE NODE TABLE IF NOT EXISTS Summary(${COMMON_COLS}, consolidates STRING)`,
      'CREATE NODE TABLE IF NOT EXISTS Entity(id STRING PRIMARY KEY, kind STRING, name STRING, createdAt INT64)',
      'CREATE REL TABLE IF NOT EXISTS ABOUT(FROM Learning TO Entity, FROM Decision TO Entity, FROM Summary TO Entity, role STRING)',
      'CREATE REL TABLE IF NOT EXISTS RELATES(FROM Entity TO Entity, relation STRING)',
      'CREATE REL TABLE IF NOT EXISTS SUPERSEDES(FROM Decision TO Decision)',
    ],
  },
  {
    // v2: tier-2 consolidation links summaries to the observations they fold in.
    version: 2,
    statements: ['CREATE REL TABLE IF NOT EXISTS CONSOLIDATES(FROM Summary TO Learning)', 'ALTER TABLE Learning ADD consolidated BOOLEAN DEFAULT false'],
  },
];
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export interface KuzuOpenOptions {
  loader?: KuzuLoader;
  /** Bytes; default 64 MB. */
  bufferManagerSize?: number;
  /** How long to retry while another process holds the database. Default 2 s. */
  waitMs?: number;
  /** Stop migrating at this version (tests of migration). */
  targetVersion?: number;
}

/** Why Kuzu could not be used; `reason` is shown in the status. */
export function kuzuFailure(e: unknown, dbFile: string): WaymarkError {
  if (WaymarkError.is(e)) return e;
  const msg = errorMessage(e);
  if (/could not set lock/i.test(msg)) return new WaymarkError('locked', `memory database is in use by another process (${dbFile})`, dbFile, { cause: 'locked' });
  // Checked before "corrupt": a read-only folder makes Kuzu fail on its WAL file too.
  if (/permission denied|read-only file system|operation not permitted|EACCES|EROFS|EPERM/i.test(msg)) {
    return new WaymarkError('unavailable', `memory folder ${path.dirname(dbFile)} is not writable (${msg.split('\n')[0]}); make it writable (chmod u+w); nothing needs rebuilding`, dbFile, { cause: 'not-writable' });
  }
  if (/not a valid kuzu database|corrupt|checksum|invalid .*file|wal/i.test(msg)) return new WaymarkError('unavailable', `memory database is unreadable (corrupt?): ${msg.split('\n')[0]}. Run 'waymark memory rebuild' to rebuild it from the journal.`, dbFile, { cause: 'corrupt' });
  return new WaymarkError('unavailable', `memory database cannot be opened: ${msg.split('\n')[0]}`, dbFile, { cause: 'error' });
}

export async function openKuzuStore(dbFile: string, options: KuzuOpenOptions = {}): Promise<KuzuStore> {
  let kuzu: KuzuModule;
  try {
    kuzu = (options.loader ?? defaultKuzuLoader)();
  } catch (e) {
    throw new WaymarkError('unavailable', `Kuzu cannot load: ${errorMessage(e).split('\n')[0]}`, dbFile, { cause: 'unavailable' });
  }
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  const deadline = Date.now() + (options.waitMs ?? 2000);
  let delay = 10;
  for (;;) {
    let db: Db | undefined;
    try {
      db = new kuzu.Database(dbFile, options.bufferManagerSize ?? 64 * 1024 * 1024);
      await db.init();
      const conn = new kuzu.Connection(db, 1);
      await conn.init();
      const store = new KuzuStore(db, conn, dbFile);
      try {
        await store.migrate(options.targetVersion ?? SCHEMA_VERSION);
      } catch (e) {
        await store.close();
        throw e;
      }
      return store;
    } catch (e) {
      if (db) {
        try {
          await db.close();
        } catch {
          // the database never opened; nothing to release
        }
      }
      const err = kuzuFailure(e, dbFile);
      if (err.data?.cause !== 'locked' || Date.now() + delay > deadline) throw err;
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 100);
    }
  }
}

function csvField(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return `"${s.replace(/"/g, '""')}"`;
}

export class KuzuStore implements MemoryStore {
  readonly engine = 'kuzu';
  private prepared = new Map<string, Prepared>();
  private closed = false;
  private tmpDir: string | undefined;
  /** Schema version reached by `migrate`. */
  version = 0;

  constructor(
    private readonly db: Db,
    private readonly conn: Conn,
    readonly file: string,
  ) {}

  /** Runs one statement; every result is read and closed before returning. */
  async run(sql: string, params?: Record<string, unknown>): Promise<Row[]> {
    if (this.closed) throw new WaymarkError('unavailable', 'memory database is closed');
    const t0 = PROFILE ? performance.now() : 0;
    try {
      return await this.runInner(sql, params);
    } finally {
      if (PROFILE) process.stderr.write(`[kuzu ${(performance.now() - t0).toFixed(2)} ms] ${sql.slice(0, 90).replace(/\s+/g, ' ')}\n`);
    }
  }

  private async runInner(sql: string, params?: Record<string, unknown>): Promise<Row[]> {
    let res;
    if (params) {
      let ps = this.prepared.get(sql);
      if (!ps) {
        ps = await this.conn.prepare(sql);
        if (!ps.isSuccess()) throw new Error(ps.getErrorMessage());
        this.prepared.set(sql, ps);
      }
      res = await this.conn.execute(ps, params as never);
    } else {
      res = await this.conn.query(sql);
    }
    const list = Array.isArray(res) ? res : [res];
    let rows: Row[] = [];
    try {
      for (const r of list) rows = (await r.getAll()) as Row[];
    } finally {
      for (const r of list) r.close();
    }
    return rows;
  }

  private inTxn = false;
  /** Entities and relations known to exist (this process holds the only connection). */
  private knownEntities = new Set<string>();
  private knownRels = new Set<string>();

  private clearCaches(): void {
    this.knownEntities.clear();
    this.knownRels.clear();
  }

  /** Runs `fn` in one write transaction (one commit instead of one per statement). */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTxn) return fn();
    await this.run('BEGIN TRANSACTION');
    this.inTxn = true;
    try {
      const v = await fn();
      this.inTxn = false;
      await this.run('COMMIT');
      return v;
    } catch (e) {
      this.inTxn = false;
      this.clearCaches();
      try {
        await this.run('ROLLBACK');
      } catch {
        // the transaction is already gone; the original error is what matters
      }
      throw e;
    }
  }

  async schemaVersion(): Promise<number> {
    const tables = await this.run('CALL show_tables() RETURN name');
    if (!tables.some((t) => t.name === 'Meta')) return 0;
    const rows = await this.run("MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v");
    return rows.length ? Number(rows[0].v) : 0;
  }

  async migrate(target = SCHEMA_VERSION): Promise<void> {
    const current = await this.schemaVersion();
    if (current > SCHEMA_VERSION) {
      throw new WaymarkError('unavailable', `memory database has schema v${current}, newer than this Waymark (v${SCHEMA_VERSION}); update Waymark`, this.file, { cause: 'newer-schema' });
    }
    for (const m of MIGRATIONS) {
      if (m.version <= current || m.version > target) continue;
      for (const s of m.statements) await this.run(s);
      await this.setMeta('schemaVersion', String(m.version));
    }
    this.version = Math.max(current, Math.min(target, SCHEMA_VERSION));
  }

  async getMeta(key: string): Promise<string | undefined> {
    const rows = await this.run('MATCH (m:Meta {key: $k}) RETURN m.value AS v', { k: key });
    return rows.length ? String(rows[0].v) : undefined;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.run('MERGE (m:Meta {key: $k}) SET m.value = $v', { k: key, v: value });
  }

  async has(ids: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (!ids.length) return out;
    for (const table of Object.values(MEMORY_TABLES)) {
      for (let i = 0; i < ids.length; i += 5000) {
        const rows = await this.run(`UNWIND $ids AS i MATCH (m:${table} {id: i}) RETURN m.id AS id`, { ids: ids.slice(i, i + 5000) });
        for (const r of rows) out.add(String(r.id));
      }
    }
    return out;
  }

  private async existingEntities(ids: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < ids.length; i += 5000) {
      const rows = await this.run('UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id AS id', { ids: ids.slice(i, i + 5000) });
      for (const r of rows) out.add(String(r.id));
    }
    return out;
  }

  private csvDir(): string {
    if (!this.tmpDir) this.tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-kuzu-copy-'));
    return this.tmpDir;
  }

  /** COPY rows into a table through a CSV file (the bulk path; 10k rows in well under a second). */
  private async copyRows(table: string, cols: string[], rows: unknown[][], relPair?: [string, string]): Promise<void> {
    const file = path.join(this.csvDir(), `${table}-${Date.now()}-${Math.random().toString(36).slice(2)}.csv`);
    const body = rows.map((r) => r.map(csvField).join(',')).join('\n');
    fs.writeFileSync(file, `${cols.join(',')}\n${body}\n`);
    try {
      const opts = relPair ? `, from='${relPair[0]}', to='${relPair[1]}'` : '';
      // The parallel CSV reader cannot handle line breaks inside quoted fields.
      const parallel = !rows.some((r) => r.some((v) => typeof v === 'string' && /[\r\n]/.test(v)));
      await this.run(`COPY ${table} FROM '${file.replace(/\\/g, '/').replace(/'/g, "\\'")}' (HEADER=true, PARALLEL=${parallel}${opts})`);
    } finally {
      fs.rmSync(file, { force: true });
    }
  }

  async ingest(ops: JournalOp[]): Promise<{ added: number }> {
    return this.transaction(() => this.ingestOps(ops));
  }

  private async ingestOps(ops: JournalOp[]): Promise<{ added: number }> {
    const mems = new Map<string, MemoryRecord>();
    const forget: string[] = [];
    const ents = new Map<string, EntityRecord>();
    const rels = new Map<string, RelationRecord>();
    const addRel = (r: RelationRecord) => rels.set(`${r.from}\u0000${r.to}\u0000${r.relation}`, r);
    for (const op of ops) {
      if (op.op === 'memory') {
        if (!MEMORY_TABLES[op.rec.type] || mems.has(op.rec.id)) continue;
        mems.set(op.rec.id, op.rec);
      } else if (op.op === 'entity') {
        if (!ents.has(op.rec.id)) ents.set(op.rec.id, op.rec);
      } else if (op.op === 'forget') {
        forget.push(...op.rec.ids);
      } else if (op.op === 'relate') {
        for (const id of [op.rec.from, op.rec.to]) {
          if (!ents.has(id)) ents.set(id, { id, kind: id.includes(':') ? id.slice(0, id.indexOf(':')) : 'component', name: id.slice(id.indexOf(':') + 1), createdAt: op.rec.at ?? new Date().toISOString() });
        }
        addRel(op.rec);
      }
    }
    const existing = new Set<string>();
    for (const type of Object.keys(MEMORY_TABLES) as MemoryType[]) {
      const ids = [...mems.values()].filter((m) => m.type === type).map((m) => m.id);
      for (let i = 0; i < ids.length; i += 5000) {
        for (const r of await this.run(`UNWIND $ids AS i MATCH (m:${MEMORY_TABLES[type]} {id: i}) RETURN m.id AS id`, { ids: ids.slice(i, i + 5000) })) existing.add(String(r.id));
      }
    }
    const fresh = [...mems.values()].filter((m) => !existing.has(m.id));
    const links: { m: string; e: string; role: string; table: string }[] = [];
    for (const m of fresh) {
      const g = impliedGraph(m);
      for (const e of g.entities) if (!ents.has(e.id)) ents.set(e.id, e);
      for (const r of g.relations) addRel(r);
      for (const [e, role] of memoryLinks(m)) links.push({ m: m.id, e, role, table: MEMORY_TABLES[m.type] });
    }
    // Entities first (links point at them).
    const unknown = [...ents.keys()].filter((id) => !this.knownEntities.has(id));
    const known = unknown.length ? await this.existingEntities(unknown) : new Set<string>();
    const newEnts = unknown.filter((id) => !known.has(id)).map((id) => ents.get(id)!);
    for (const id of unknown) this.knownEntities.add(id);
    if (newEnts.length >= 200) {
      await this.copyRows('Entity', ['id', 'kind', 'name', 'createdAt'], newEnts.map((e) => [e.id, e.kind, e.name, Date.parse(e.createdAt) || 0]));
    } else if (newEnts.length) {
      await this.run('UNWIND $rows AS r CREATE (:Entity {id: r.id, kind: r.kind, name: r.name, createdAt: r.createdAt})', {
        rows: newEnts.map((e) => ({ id: e.id, kind: String(e.kind), name: e.name, createdAt: Date.parse(e.createdAt) || 0 })),
      });
    }
    for (const type of Object.keys(MEMORY_TABLES) as MemoryType[]) {
      const batch = fresh.filter((m) => m.type === type);
      if (!batch.length) continue;
      const table = MEMORY_TABLES[type];
      const cols = [...COMMON_NAMES, ...EXTRA_COLS[type]].filter((c) => c !== 'consolidated' || this.version >= 2);
      const rows = batch.map((m) => toRow(m));
      if (batch.length >= 200) {
        await this.copyRows(table, cols, rows.map((r) => cols.map((c) => r[c])));
      } else {
        const assign = cols.map((c) => `${c}: r.${c}`).join(', ');
        await this.run(`UNWIND $rows AS r CREATE (:${table} {${assign}})`, { rows });
      }
      const tl = links.filter((l) => l.table === table);
      if (tl.length >= 200) {
        await this.copyRows('ABOUT', ['from', 'to', 'role'], tl.map((l) => [l.m, l.e, l.role]), [table, 'Entity']);
      } else if (tl.length) {
        await this.run(`UNWIND $rows AS r MATCH (m:${table} {id: r.m}), (e:Entity {id: r.e}) CREATE (m)-[:ABOUT {role: r.role}]->(e)`, {
          rows: tl.map((l) => ({ m: l.m, e: l.e, role: l.role })),
        });
      }
    }
    for (const k of [...rels.keys()]) if (this.knownRels.has(k)) rels.delete(k);
    for (const k of rels.keys()) this.knownRels.add(k);
    if (rels.size >= 200) {
      // Bulk: read the existing relationships once, COPY the missing ones.
      for (const r of await this.run('MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.id AS f, b.id AS t, r.relation AS rel')) {
        rels.delete(`${String(r.f)}\u0000${String(r.t)}\u0000${String(r.rel)}`);
      }
      if (rels.size) await this.copyRows('RELATES', ['from', 'to', 'relation'], [...rels.values()].map((r) => [r.from, r.to, r.relation]), ['Entity', 'Entity']);
    } else if (rels.size) {
      await this.run('UNWIND $rows AS r MATCH (a:Entity {id: r.f}), (b:Entity {id: r.t}) MERGE (a)-[:RELATES {relation: r.rel}]->(b)', {
        rows: [...rels.values()].map((r) => ({ f: r.from, t: r.to, rel: r.relation })),
      });
    }
    const sup = fresh.filter((m) => m.type === 'decision' && m.supersedes);
    if (sup.length) {
      await this.run('UNWIND $rows AS r MATCH (n:Decision {id: r.n}), (o:Decision {id: r.o}) MERGE (n)-[:SUPERSEDES]->(o)', {
        rows: sup.map((m) => ({ n: m.id, o: m.supersedes! })),
      });
    }
    const cons = fresh.filter((m) => m.type === 'summary' && m.consolidates?.length).flatMap((m) => m.consolidates!.map((l) => ({ s: m.id, l })));
    if (cons.length && this.version >= 2) {
      await this.run('UNWIND $rows AS r MATCH (s:Summary {id: r.s}), (l:Learning {id: r.l}) MERGE (s)-[:CONSOLIDATES]->(l) SET l.consolidated = true', { rows: cons });
    }
    if (forget.length) await this.remove(forget);
    return { added: fresh.length };
  }

  private async supersededAmong(ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.run('MATCH (:Decision)-[:SUPERSEDES]->(o:Decision) WHERE o.id IN $ids RETURN o.id AS id', { ids });
    return new Set(rows.map((r) => String(r.id)));
  }

  async recall(q: RecallQuery): Promise<RecallItem[]> {
    const now = Date.now();
    const limit = Math.max(1, Math.floor(q.limit ?? 20));
    const maxD = Math.max(0, Math.min(q.maxDistance ?? 2, 4));
    const words = queryWords(q.text);
    // "for" alone must not recall every memory as if no text were given.
    if (onlyStopWords(q.text) && !q.entities?.length) return [];
    const labels = (q.types?.length ? q.types : (Object.keys(MEMORY_TABLES) as MemoryType[])).map((t) => MEMORY_TABLES[t]).join(':');
    const since = q.since ? Date.parse(q.since) : undefined;
    const sinceClause = since !== undefined && Number.isFinite(since) ? ` AND m.createdAt >= ${Math.floor(since)}` : '';
    // Returning the node costs about the same as a few columns, and saves a second lookup.
    const light = 'm';
    const cands = new Map<string, { rec: MemoryRecord; d?: number }>();
    const add = (rows: Row[], d?: number) => {
      for (const r of rows) {
        const rec = fromNode(r.m as Row);
        if (!cands.has(rec.id)) cands.set(rec.id, { rec, d });
      }
    };
    if (q.entities?.length) {
      let frontier = [...new Set(q.entities)];
      const seen = new Set(frontier);
      for (let d = 0; d <= maxD && frontier.length; d++) {
        // One query per entity: Kuzu plans `(e:Entity {id: $id})<-[:ABOUT]-(m)` as an index
        // lookup plus adjacency; the UNWIND form scans every memory (5x slower at 10k).
        for (const id of frontier) add(await this.run(`MATCH (e:Entity {id: $id})<-[:ABOUT]-(m:${labels}) WHERE true${sinceClause} RETURN ${light}`, { id }), d);
        // Nearer memories rank first, so once there are enough the farther ones cannot make the cut.
        if (cands.size >= limit && !words.length) break;
        if (d === maxD) break;
        const next: string[] = [];
        for (const id of frontier) {
          for (const r of await this.run('MATCH (t:Entity {id: $id})-[:RELATES]-(e:Entity) RETURN DISTINCT e.id AS id', { id })) {
            const n = String(r.id);
            if (!seen.has(n)) (seen.add(n), next.push(n));
          }
        }
        frontier = next;
      }
    } else if (words.length) {
      const params: Record<string, unknown> = {};
      words.forEach((w, i) => (params[`w${i}`] = w));
      // lower() once per row, not once per word and field
      const any = words.map((_, i) => `hay CONTAINS $w${i}`).join(' OR ');
      const hits = words.map((_, i) => `CASE WHEN hay CONTAINS $w${i} THEN 1 ELSE 0 END`).join(' + ');
      const rows = await this.run(
        `MATCH (m:${labels}) WHERE true${sinceClause} WITH m, lower(coalesce(m.title, '') + ' ' + coalesce(m.text, '')) AS hay WHERE ${any} WITH m, ${hits} AS hits RETURN ${light} ORDER BY hits DESC, m.createdAt DESC LIMIT ${limit * 5}`,
        params,
      );
      add(rows);
    } else {
      add(await this.run(`MATCH (m:${labels}) WHERE true${sinceClause} RETURN ${light} ORDER BY m.createdAt DESC LIMIT ${limit}`));
    }
    const scored = [...cands.values()].map(({ rec, d }) => {
      const ts = textScore(rec, words);
      return { rec, d, ts, score: scoreItem(rec, d, ts, now) };
    });
    const kept = scored.filter((x) => !(words.length && x.ts === 0 && (q.entities?.length ? x.d === undefined : true)));
    kept.sort((a, b) => b.score - a.score || b.rec.createdAt.localeCompare(a.rec.createdAt));
    // a superseded decision drops by 1, so look at a few more than asked before cutting
    const top = kept.slice(0, limit + 10);
    const superseded = await this.supersededAmong(top.filter((x) => x.rec.type === 'decision').map((x) => x.rec.id));
    const items: RecallItem[] = top.map((x) => {
      const sup = superseded.has(x.rec.id);
      const reason = x.d === undefined ? (words.length ? 'text' : 'recent') : x.d === 0 ? 'linked' : 'related';
      return { memory: x.rec, score: x.score - (sup ? 1 : 0), distance: x.d, reason, superseded: sup || undefined };
    });
    return sortRecall(items, limit);
  }

  async list(filter: ListFilter = {}): Promise<MemoryRecord[]> {
    const types = filter.types?.length ? filter.types : (Object.keys(MEMORY_TABLES) as MemoryType[]);
    const conds: string[] = [];
    const params: Record<string, unknown> = {};
    if (filter.workflow) (conds.push('m.workflow = $wf'), (params.wf = filter.workflow));
    if (filter.step) (conds.push('m.step = $st'), (params.st = filter.step));
    if (filter.steps) {
      // A memory of no step has '' there (toRow).
      const named = [...new Set(filter.steps.filter((x): x is string => x !== null && x !== ''))];
      const none = filter.steps.some((x) => x === null || x === '');
      const either = [...(named.length ? ['m.step IN $sts'] : []), ...(none ? ["m.step = ''", 'm.step IS NULL'] : [])];
      conds.push(either.length ? `(${either.join(' OR ')})` : 'false');
      if (named.length) params.sts = named;
    }
    const where = conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
    const lim = filter.limit ? ` LIMIT ${Math.floor(filter.limit)}` : '';
    const rows = await this.run(`MATCH (m:${types.map((t) => MEMORY_TABLES[t]).join(':')})${where} RETURN m ORDER BY m.createdAt DESC${lim}`, conds.length ? params : undefined);
    return rows.map((r) => fromNode(r.m as Row));
  }

  async entities(): Promise<EntityRecord[]> {
    const rows = await this.run('MATCH (e:Entity) RETURN e.id AS id, e.kind AS kind, e.name AS name, e.createdAt AS t');
    return rows.map((r) => ({ id: String(r.id), kind: String(r.kind), name: String(r.name), createdAt: new Date(Number(r.t) || 0).toISOString() }));
  }

  async relations(): Promise<RelationRecord[]> {
    const rows = await this.run('MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.id AS f, b.id AS t, r.relation AS rel');
    return rows.map((r) => ({ from: String(r.f), to: String(r.t), relation: String(r.rel) }));
  }

  async neighbourhood(entityId: string, depth = 1) {
    const d = Math.max(1, Math.min(depth, 3));
    const idRows = await this.run(`MATCH (t:Entity {id: $id}) OPTIONAL MATCH (t)-[:RELATES*1..${d}]-(e:Entity) RETURN t.id AS t, collect(DISTINCT e.id) AS ids`, { id: entityId });
    if (!idRows.length) return { entities: [], relations: [], memories: [] };
    const ids = [String(idRows[0].t), ...((idRows[0].ids as unknown[]) ?? []).filter((x) => x !== null).map(String)];
    const ents = await this.run('MATCH (e:Entity) WHERE e.id IN $ids RETURN e.id AS id, e.kind AS kind, e.name AS name, e.createdAt AS t', { ids });
    const rels = await this.run('MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.id IN $ids AND b.id IN $ids RETURN a.id AS f, b.id AS t, r.relation AS rel', { ids });
    const mems = await this.run('MATCH (m:Learning:Decision:Summary)-[:ABOUT]->(e:Entity) WHERE e.id IN $ids RETURN m, e.id AS e', { ids });
    return {
      entities: ents.map((r) => ({ id: String(r.id), kind: String(r.kind), name: String(r.name), createdAt: new Date(Number(r.t) || 0).toISOString() })),
      relations: rels.map((r) => ({ from: String(r.f), to: String(r.t), relation: String(r.rel) })),
      memories: mems.map((r) => ({ memory: fromNode(r.m as Row), entity: String(r.e) })),
    };
  }

  async counts(): Promise<StoreCounts> {
    const one = async (q: string) => Number((await this.run(q))[0]?.n ?? 0);
    return {
      learning: await one('MATCH (m:Learning) RETURN count(*) AS n'),
      decision: await one('MATCH (m:Decision) RETURN count(*) AS n'),
      summary: await one('MATCH (m:Summary) RETURN count(*) AS n'),
      entity: await one('MATCH (e:Entity) RETURN count(*) AS n'),
      relation: await one('MATCH ()-[r:RELATES]->() RETURN count(*) AS n'),
    };
  }

  async remove(ids: string[]): Promise<number> {
    if (!ids.length) return 0;
    const before = (await this.has(ids)).size;
    for (const table of Object.values(MEMORY_TABLES)) {
      await this.run(`MATCH (m:${table}) WHERE m.id IN $ids DETACH DELETE m`, { ids });
    }
    return before;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.prepared.clear();
    try {
      await this.conn.close();
    } finally {
      await this.db.close();
      if (this.tmpDir) fs.rmSync(this.tmpDir, { recursive: true, force: true });
    }
  }
}

function toRow(m: MemoryRecord): Record<string, unknown> {
  return {
    id: m.id,
    category: m.category ?? '',
    title: m.title ?? '',
    text: m.text,
    createdAt: Date.parse(m.createdAt) || 0,
    tier: m.tier ?? 1,
    workflow: m.source.workflow ?? '',
    step: m.source.step ?? '',
    session: m.source.session ?? '',
    agent: m.source.agent ?? '',
    origin: m.source.origin ?? '',
    entities: m.entities?.length ? JSON.stringify(m.entities) : '',
    tags: m.tags?.length ? JSON.stringify(m.tags) : '',
    rationale: m.rationale ?? '',
    alternatives: m.alternatives?.length ? JSON.stringify(m.alternatives) : '',
    decidedBy: m.decidedBy ?? '',
    supersedes: m.supersedes ?? '',
    consolidates: m.consolidates?.length ? JSON.stringify(m.consolidates) : '',
    consolidated: false,
  };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function list(v: unknown): string[] | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  try {
    const a = JSON.parse(v);
    return Array.isArray(a) ? a.map(String) : undefined;
  } catch {
    return undefined;
  }
}

function labelType(label: string): MemoryType {
  return (Object.keys(MEMORY_TABLES) as MemoryType[]).find((t) => MEMORY_TABLES[t] === label) ?? 'learning';
}

function fromNode(n: Row): MemoryRecord {
  const type = labelType(String(n._label));
  const rec: MemoryRecord = {
    id: String(n.id),
    type,
    text: String(n.text ?? ''),
    createdAt: new Date(Number(n.createdAt) || 0).toISOString(),
    tier: (Number(n.tier) || 1) as 1 | 2 | 3,
    source: {},
  };
  const set = <K extends keyof MemoryRecord>(k: K, v: MemoryRecord[K] | undefined) => {
    if (v !== undefined) rec[k] = v;
  };
  set('category', str(n.category));
  set('title', str(n.title));
  set('rationale', str(n.rationale));
  set('alternatives', list(n.alternatives));
  set('decidedBy', str(n.decidedBy));
  set('supersedes', str(n.supersedes));
  set('entities', list(n.entities));
  set('tags', list(n.tags));
  set('consolidates', list(n.consolidates));
  for (const k of ['workflow', 'step', 'session', 'agent', 'origin'] as const) {
    const v = str(n[k]);
    if (v) rec.source[k] = v;
  }
  return rec;
}

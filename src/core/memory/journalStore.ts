import type { EntityRecord, JournalOp, ListFilter, MemoryRecord, MemoryStore, RecallItem, RecallQuery, RelationRecord, StoreCounts } from './model';
import { impliedGraph, matchesFilters, memoryLinks, queryWords, onlyStopWords, scoreItem, sortRecall, textScore } from './links';

/**
 * The fallback store: everything in memory, built from the journal files. Used when Kuzu
 * cannot load, is locked by another process, or its files are corrupt. Nothing is persisted
 * here: the journal already is the durable copy.
 */
export class JournalStore implements MemoryStore {
  readonly engine = 'journal';
  private memories = new Map<string, MemoryRecord>();
  private ents = new Map<string, EntityRecord>();
  private rels = new Map<string, RelationRecord>();
  /** entity id -> memory ids */
  private byEntity = new Map<string, Set<string>>();
  /** entity id -> neighbour entity ids */
  private adj = new Map<string, Set<string>>();
  private meta = new Map<string, string>();

  constructor(private readonly clock: () => number = Date.now) {}

  async ingest(ops: JournalOp[]): Promise<{ added: number }> {
    return { added: this.ingestSync(ops) };
  }

  ingestSync(ops: JournalOp[]): number {
    let added = 0;
    for (const op of ops) {
      if (op.op === 'memory') {
        if (this.memories.has(op.rec.id)) continue;
        this.memories.set(op.rec.id, op.rec);
        added++;
        for (const [e] of memoryLinks(op.rec)) this.link(e, op.rec.id);
        const g = impliedGraph(op.rec);
        for (const e of g.entities) if (!this.ents.has(e.id)) this.ents.set(e.id, e);
        for (const r of g.relations) this.relate(r);
      } else if (op.op === 'entity') {
        if (!this.ents.has(op.rec.id)) this.ents.set(op.rec.id, op.rec);
      } else if (op.op === 'forget') {
        this.removeSync(op.rec.ids);
      } else if (op.op === 'relate') {
        for (const id of [op.rec.from, op.rec.to]) {
          if (!this.ents.has(id)) this.ents.set(id, { id, kind: id.split(':')[0], name: id.slice(id.indexOf(':') + 1), createdAt: op.rec.at ?? new Date().toISOString() });
        }
        this.relate(op.rec);
      }
    }
    return added;
  }

  private link(entity: string, memoryId: string): void {
    let s = this.byEntity.get(entity);
    if (!s) this.byEntity.set(entity, (s = new Set()));
    s.add(memoryId);
  }

  private relate(r: RelationRecord): void {
    const key = `${r.from}\u0000${r.to}\u0000${r.relation}`;
    if (this.rels.has(key)) return;
    this.rels.set(key, r);
    for (const [a, b] of [[r.from, r.to], [r.to, r.from]]) {
      let s = this.adj.get(a);
      if (!s) this.adj.set(a, (s = new Set()));
      s.add(b);
    }
  }

  private supersededIds(): Set<string> {
    const out = new Set<string>();
    for (const m of this.memories.values()) if (m.supersedes) out.add(m.supersedes);
    return out;
  }

  async recall(q: RecallQuery): Promise<RecallItem[]> {
    const now = this.clock();
    const limit = q.limit ?? 20;
    const maxD = q.maxDistance ?? 2;
    const words = queryWords(q.text);
    // "for" alone must not recall every memory as if no text were given.
    if (onlyStopWords(q.text) && !q.entities?.length) return [];
    const superseded = this.supersededIds();
    const dist = new Map<string, number>();
    if (q.entities?.length) {
      // BFS over entity relationships.
      let frontier = [...new Set(q.entities)];
      const seen = new Set(frontier);
      for (let d = 0; d <= maxD && frontier.length; d++) {
        const next: string[] = [];
        for (const e of frontier) {
          for (const m of this.byEntity.get(e) ?? []) if (!dist.has(m)) dist.set(m, d);
          for (const n of this.adj.get(e) ?? []) if (!seen.has(n)) (seen.add(n), next.push(n));
        }
        frontier = next;
      }
    }
    const items: RecallItem[] = [];
    const candidates = q.entities?.length ? [...dist.keys()].map((id) => this.memories.get(id)!) : [...this.memories.values()];
    for (const m of candidates) {
      if (!matchesFilters(m, q.types, q.since)) continue;
      const ts = textScore(m, words);
      if (words.length && ts === 0 && !q.entities?.length) continue;
      const d = dist.get(m.id);
      const reason = d === undefined ? (words.length ? 'text' : 'recent') : d === 0 ? 'linked' : 'related';
      const sup = superseded.has(m.id);
      items.push({ memory: m, score: scoreItem(m, d, ts, now) - (sup ? 1 : 0), distance: d, reason, superseded: sup || undefined });
    }
    return sortRecall(items, limit);
  }

  async list(filter: ListFilter = {}): Promise<MemoryRecord[]> {
    const out = [...this.memories.values()].filter(
      (m) => matchesFilters(m, filter.types, undefined) && (!filter.workflow || m.source.workflow === filter.workflow) && (!filter.step || m.source.step === filter.step) && (!filter.steps || filter.steps.includes(m.source.step || null)),
    );
    out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return filter.limit ? out.slice(0, filter.limit) : out;
  }

  async entities(): Promise<EntityRecord[]> {
    return [...this.ents.values()];
  }

  async relations(): Promise<RelationRecord[]> {
    return [...this.rels.values()];
  }

  async neighbourhood(entityId: string, depth = 1) {
    const seen = new Set([entityId]);
    let frontier = [entityId];
    for (let d = 0; d < depth; d++) {
      const next: string[] = [];
      for (const e of frontier) for (const n of this.adj.get(e) ?? []) if (!seen.has(n)) (seen.add(n), next.push(n));
      frontier = next;
    }
    const entities = [...seen].map((id) => this.ents.get(id)).filter((e): e is EntityRecord => !!e);
    const relations = [...this.rels.values()].filter((r) => seen.has(r.from) && seen.has(r.to));
    const memories: { memory: MemoryRecord; entity: string }[] = [];
    for (const e of seen) for (const id of this.byEntity.get(e) ?? []) memories.push({ memory: this.memories.get(id)!, entity: e });
    return { entities, relations, memories };
  }

  async counts(): Promise<StoreCounts> {
    const c: StoreCounts = { learning: 0, decision: 0, summary: 0, entity: this.ents.size, relation: this.rels.size };
    for (const m of this.memories.values()) c[m.type]++;
    return c;
  }

  async has(ids: string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.memories.has(id)));
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.meta.get(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.meta.set(key, value);
  }

  async remove(ids: string[]): Promise<number> {
    return this.removeSync(ids);
  }

  private removeSync(ids: string[]): number {
    let n = 0;
    for (const id of ids) if (this.memories.delete(id)) n++;
    for (const s of this.byEntity.values()) for (const id of ids) s.delete(id);
    return n;
  }

  async close(): Promise<void> {}
}

/**
 * Memory data model and the `MemoryStore` port. Plain data only; no engine here.
 * The Kuzu store and the journal (fallback) store both implement `MemoryStore`, so the
 * engine can be swapped without touching callers.
 */

export const MEMORY_TYPES = ['learning', 'decision', 'summary'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

/** Learning categories (tier 1 ones are written at once; observation/pattern wait for a milestone). */
export const LEARNING_CATEGORIES = ['pattern', 'gotcha', 'preference', 'error', 'fix', 'security', 'observation'] as const;
export const SUMMARY_SCOPES = ['session', 'workflow', 'phase'] as const;
export const ENTITY_KINDS = ['file', 'component', 'agent', 'workflow', 'step', 'session'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export type Tier = 1 | 2 | 3;

/** Where a memory came from. Paths are relative to the workspace root, with `/`. */
export interface MemorySource {
  workflow?: string;
  step?: string;
  session?: string;
  /** Agent name or delegation id. */
  agent?: string;
  /** `cli`, `vscode`, `hook`, `consolidation`, or the imported file's relative path. */
  origin?: string;
}

export interface MemoryRecord {
  /** Stable id; content-derived for imports so that importing twice adds nothing. */
  id: string;
  type: MemoryType;
  /** Learning category, or summary scope. */
  category?: string;
  title?: string;
  text: string;
  /** Decisions only. */
  rationale?: string;
  alternatives?: string[];
  decidedBy?: string;
  /** Id of the decision this one replaces. */
  supersedes?: string;
  /** ISO time. */
  createdAt: string;
  tier: Tier;
  source: MemorySource;
  /** Entity ids this memory is about besides its source (`file:src/a.ts`, `component:parser`). */
  entities?: string[];
  tags?: string[];
  /** Summaries: ids of the memories they consolidate. */
  consolidates?: string[];
}

export interface EntityRecord {
  /** `<kind>:<name>`, e.g. `workflow:docs/plan.md`, `step:docs/plan.md#design`, `agent:dev`. */
  id: string;
  kind: EntityKind | string;
  name: string;
  createdAt: string;
}

export interface RelationRecord {
  from: string;
  to: string;
  relation: string;
  /** When it was recorded: the `createdAt` of an entity that exists only as this relation's end. */
  at?: string;
}

/** One line of the inbox journal (`.waymark/memory/inbox.jsonl`). */
export type JournalOp =
  | { v: 1; op: 'memory'; rec: MemoryRecord }
  | { v: 1; op: 'entity'; rec: EntityRecord }
  | { v: 1; op: 'relate'; rec: RelationRecord }
  /** Prune: these memories are dropped from the graph (their content lives on in summaries). */
  | { v: 1; op: 'forget'; rec: { ids: string[] } };

/** A recall question, already resolved to entity ids. */
export interface RecallQuery {
  /** Entities to start from (distance 0 = memories linked to them). */
  entities?: string[];
  /** Free text; every word counts. */
  text?: string;
  types?: MemoryType[];
  /** Memories created at or after this ISO time. */
  since?: string;
  limit?: number;
  /** Hops through entity relationships (default 2). */
  maxDistance?: number;
}

export interface RecallItem {
  memory: MemoryRecord;
  score: number;
  /** Hops from the asked entity (0 direct); undefined for text-only or recent matches. */
  distance?: number;
  /** Why it was returned: `linked`, `related`, `text`, `recent`. */
  reason: string;
  superseded?: boolean;
}

export interface StoreCounts {
  learning: number;
  decision: number;
  summary: number;
  entity: number;
  relation: number;
}

export interface ListFilter {
  types?: MemoryType[];
  workflow?: string;
  step?: string;
  /** Only memories of one of these steps; `null` in it: also those of no step. */
  steps?: (string | null)[];
  limit?: number;
}

/**
 * The storage port. Callers (the memory service) never see the engine behind it.
 * Every method may throw; the service turns engine failures into degraded mode.
 */
export interface MemoryStore {
  readonly engine: string;
  /** Idempotent by id: ingesting the same ops twice adds nothing. Returns how many memories were new. */
  ingest(ops: JournalOp[]): Promise<{ added: number }>;
  recall(query: RecallQuery): Promise<RecallItem[]>;
  list(filter?: ListFilter): Promise<MemoryRecord[]>;
  entities(): Promise<EntityRecord[]>;
  relations(): Promise<RelationRecord[]>;
  /** Memories linked to `entityId` and the entities around it (graph picture). */
  neighbourhood(entityId: string, depth?: number): Promise<{ entities: EntityRecord[]; relations: RelationRecord[]; memories: { memory: MemoryRecord; entity: string }[] }>;
  counts(): Promise<StoreCounts>;
  has(ids: string[]): Promise<Set<string>>;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /** Deletes memories by id (prune). */
  remove(ids: string[]): Promise<number>;
  close(): Promise<void>;
}

// Recording and recall as data: a memory record built and validated from input, an entity as
// journal lines, a recall target as a store query, and the Markdown lines a record mirrors to.
import { WaymarkError } from '../errors';
import { entityId, entityKindOf, entityName, newId, normalizeEntityId, relPath } from './links';
import type { ColdSection } from './memoryFiles';
import { LEARNING_CATEGORIES, MEMORY_TYPES, SUMMARY_SCOPES } from './model';
import type { EntityRecord, JournalOp, MemoryRecord, MemoryType, RecallQuery, Tier } from './model';
import { isoTime, quoted } from '../model/text';

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

const TIER1_CATEGORIES = new Set(['error', 'security', 'preference', 'gotcha', 'fix']);

/** What a record takes from its service: the root, the clock, the running session and the origin. */
export interface RecordContext {
  root: string;
  now(): string;
  session?(): string | undefined;
  origin?: string;
}

/** Builds a memory record from input (validates; throws WaymarkError('usage')). */
export function buildMemoryRecord(input: RecordInput, at: RecordContext): MemoryRecord {
  const type = input.type;
  if (!(MEMORY_TYPES as readonly string[]).includes(type)) {
    throw new WaymarkError('usage', `Unknown memory type ${quoted(String(type))}: use learning, decision, summary or entity.`);
  }
  const text = (input.text ?? '').trim();
  if (!text) throw new WaymarkError('usage', `A ${type} needs text (--text "...").`);
  if (type === 'learning' && input.category && !(LEARNING_CATEGORIES as readonly string[]).includes(input.category)) {
    throw new WaymarkError('usage', `Unknown learning category ${quoted(input.category)}: use one of ${LEARNING_CATEGORIES.join(', ')}.`);
  }
  if (type === 'summary' && input.category && !(SUMMARY_SCOPES as readonly string[]).includes(input.category)) {
    throw new WaymarkError('usage', `Unknown summary scope ${quoted(input.category)}: use one of ${SUMMARY_SCOPES.join(', ')}.`);
  }
  if (input.step && !input.workflow) throw new WaymarkError('usage', 'A step needs its workflow: add --workflow FILE.');
  const mem = type as MemoryType;
  const category = input.category ?? (mem === 'summary' ? 'session' : undefined);
  const tier: Tier =
    input.tier ??
    (mem === 'decision' ? 1 : mem === 'summary' ? (category === 'session' ? 3 : 2) : category && !TIER1_CATEGORIES.has(category) ? 2 : 1);
  const session = input.session ?? at.session?.();
  const rec: MemoryRecord = {
    id: input.id ?? newId(mem.slice(0, 3)),
    type: mem,
    text,
    createdAt: input.createdAt ?? at.now(),
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
  if (input.workflow) rec.source.workflow = relPath(at.root, input.workflow);
  if (input.step) rec.source.step = input.step;
  if (input.agent) rec.source.agent = input.agent;
  if (session) rec.source.session = session;
  const origin = input.origin ?? at.origin;
  if (origin) rec.source.origin = origin;
  const ents = [...(input.files ?? []).map((f) => entityId.file(relPath(at.root, f))), ...(input.entities ?? []).map(normalizeEntityId)];
  if (ents.length) rec.entities = [...new Set(ents)];
  if (input.tags?.length) rec.tags = input.tags;
  return rec;
}


/** An entity and its relations as journal lines (validates; throws 'usage'). */
export function entityJournalOps(root: string, input: RecordInput, now: string): { entity: EntityRecord; ops: JournalOp[] } {
  const name = (input.name ?? input.text ?? '').trim();
  if (!name) throw new WaymarkError('usage', 'An entity needs --name NAME (and --kind file|component|agent|workflow|step).');
  const kind = input.kind ?? 'component';
  const id = kind === 'file' || kind === 'workflow' ? `${kind}:${relPath(root, name)}` : /^[a-z]+:/.test(name) ? name : `${kind}:${name}`;
  const entity: EntityRecord = { id, kind: entityKindOf(id), name: entityName(id), createdAt: input.createdAt ?? now };
  const ops: JournalOp[] = [{ v: 1, op: 'entity', rec: entity }];
  for (const r of input.relations ?? []) ops.push({ v: 1, op: 'relate', rec: { from: id, to: normalizeEntityId(r.to), relation: r.relation || 'related_to', at: entity.createdAt } });
  if (input.workflow) {
    const wf = entityId.workflow(relPath(root, input.workflow));
    ops.push({ v: 1, op: 'relate', rec: { from: id, to: input.step ? entityId.step(relPath(root, input.workflow), input.step) : wf, relation: 'used_by', at: entity.createdAt } });
    if (input.step) ops.push({ v: 1, op: 'relate', rec: { from: entityId.step(relPath(root, input.workflow), input.step), to: wf, relation: 'step_of', at: entity.createdAt } });
  }
  return { entity, ops };
}

/** A recall target as a store query: files and workflows as entity ids (validates; throws 'usage'). */
export function recallQuery(root: string, t: RecallTarget): RecallQuery {
  const entities: string[] = [];
  if (t.workflow) {
    const rel = relPath(root, t.workflow);
    entities.push(t.step ? entityId.step(rel, t.step) : entityId.workflow(rel));
  } else if (t.step) {
    throw new WaymarkError('usage', 'A step needs its workflow: add --workflow FILE.');
  }
  if (t.file) entities.push(entityId.file(relPath(root, t.file)));
  if (t.entity) entities.push(normalizeEntityId(t.entity));
  if (t.types) for (const ty of t.types) if (!(MEMORY_TYPES as readonly string[]).includes(ty)) throw new WaymarkError('usage', `Unknown memory type ${quoted(ty)}.`);
  if (t.since !== undefined && isoTime(t.since) === undefined) throw new WaymarkError('usage', `--since must be a date (e.g. 2026-01-31), not ${quoted(t.since)}.`);
  return { entities: entities.length ? entities : undefined, text: t.text, types: t.types, since: t.since, limit: t.limit ?? 20 };
}


/** Where records are mirrored in Markdown: tier 1 and 2 in the hot file; decisions, preferences and tier-1 learnings in the cold file. */
export function mirrorLines(recs: MemoryRecord[]): { hot: string[]; cold: { section: ColdSection; line: string }[] } {
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
  return { hot, cold };
}

import * as path from 'node:path';
import * as crypto from 'node:crypto';
import type { EntityRecord, MemoryRecord, RecallItem, RelationRecord, MemoryType } from './model';

/** Workspace-relative path with `/`, or the path as given when outside the root. */
export function relPath(root: string, file: string): string {
  const abs = path.resolve(root, file);
  const rel = path.relative(root, abs);
  if (!rel || /^\.\.(?:[\\/]|$)/.test(rel) || path.isAbsolute(rel)) return abs.split(path.sep).join('/');
  return rel.split(path.sep).join('/');
}

export const entityId = {
  workflow: (rel: string) => `workflow:${rel}`,
  step: (rel: string, step: string) => `step:${rel}#${step}`,
  file: (rel: string) => `file:${rel}`,
  agent: (name: string) => `agent:${name}`,
  session: (id: string) => `session:${id}`,
  component: (name: string) => `component:${name}`,
};

export function entityKindOf(id: string): string {
  const i = id.indexOf(':');
  return i > 0 ? id.slice(0, i) : 'component';
}

export function entityName(id: string): string {
  const i = id.indexOf(':');
  return i > 0 ? id.slice(i + 1) : id;
}

/** Accepts `kind:name` or a bare name (a component). */
export function normalizeEntityId(id: string): string {
  return /^[a-z]+:/.test(id) ? id : entityId.component(id);
}

export function shortHash(...parts: string[]): string {
  return crypto.createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);
}

export function newId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${crypto.randomBytes(5).toString('hex')}`;
}

/** The links every memory gets from its source and entity list: `[entityId, role]`. */
export function memoryLinks(rec: MemoryRecord): [string, string][] {
  const out: [string, string][] = [];
  const s = rec.source ?? {};
  if (s.workflow) out.push([entityId.workflow(s.workflow), 'workflow']);
  if (s.workflow && s.step) out.push([entityId.step(s.workflow, s.step), 'step']);
  if (s.agent) out.push([entityId.agent(s.agent), 'agent']);
  if (s.session) out.push([entityId.session(s.session), 'session']);
  for (const e of rec.entities ?? []) out.push([normalizeEntityId(e), 'mentions']);
  const seen = new Set<string>();
  return out.filter(([id]) => (seen.has(id) ? false : (seen.add(id), true)));
}

/** Entities and entity relationships implied by a memory's links. */
export function impliedGraph(rec: MemoryRecord): { entities: EntityRecord[]; relations: RelationRecord[] } {
  const links = memoryLinks(rec);
  const entities = links.map(([id]) => ({ id, kind: entityKindOf(id), name: entityName(id), createdAt: rec.createdAt }));
  const relations: RelationRecord[] = [];
  const s = rec.source ?? {};
  if (s.workflow) {
    const wf = entityId.workflow(s.workflow);
    if (s.step) relations.push({ from: entityId.step(s.workflow, s.step), to: wf, relation: 'step_of' });
    if (s.agent) relations.push({ from: entityId.agent(s.agent), to: wf, relation: 'worked_on' });
    for (const e of rec.entities ?? []) {
      const id = normalizeEntityId(e);
      relations.push({ from: id, to: s.step ? entityId.step(s.workflow, s.step) : wf, relation: entityKindOf(id) === 'file' ? 'touched_by' : 'used_by' });
    }
  }
  return { entities, relations };
}

const TYPE_WEIGHT: Record<string, number> = {
  decision: 1.0,
  'learning:error': 0.9,
  'learning:security': 0.95,
  'learning:fix': 0.85,
  'learning:gotcha': 0.8,
  'learning:preference': 0.8,
  'learning:pattern': 0.7,
  learning: 0.7,
  'learning:observation': 0.5,
  summary: 0.6,
};

export function typeWeight(rec: MemoryRecord): number {
  return TYPE_WEIGHT[`${rec.type}:${rec.category ?? ''}`] ?? TYPE_WEIGHT[rec.type] ?? 0.5;
}

const HALF_LIFE_DAYS = 30;

/** Ranking shared by every store: link distance first, then type, then recency. */
export function scoreItem(rec: MemoryRecord, distance: number | undefined, textScore: number, now: number): number {
  // Distance dominates: a direct link (6) always outranks one hop (3), which mostly outranks two (2).
  const proximity = distance === undefined ? 0 : 6 / (1 + distance);
  const ageDays = Math.max(0, (now - Date.parse(rec.createdAt)) / 86_400_000);
  const recency = Number.isFinite(ageDays) ? Math.pow(0.5, ageDays / HALF_LIFE_DAYS) : 0;
  return Math.round((proximity + 2 * textScore + typeWeight(rec) + recency) * 1000) / 1000;
}

/** Fraction of query words found in the memory's title/text/rationale. */
export function textScore(rec: MemoryRecord, words: string[]): number {
  if (!words.length) return 0;
  const hay = `${rec.title ?? ''}\n${rec.text}\n${rec.rationale ?? ''}\n${(rec.tags ?? []).join(' ')}`.toLowerCase();
  let n = 0;
  for (const w of words) if (hay.includes(w)) n++;
  return n / words.length;
}

/** Words that say nothing about what a memory is about: never matched on their own. */
const STOP_WORDS = new Set(
  'a an and are as at be but by can do does for from had has have how if in into is it its of on or so than that the their then there these this those to was we were what when where which who why will with you your not no yes all any'.split(' '),
);

/** The words free-text recall matches: lower-cased, deduplicated, stop-words ("for", "the") left out. */
export function queryWords(text: string | undefined): string[] {
  if (!text) return [];
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}_.#/-]+/u).filter((w) => w.length > 1 && !STOP_WORDS.has(w)))].slice(0, 12);
}

/** True when a text query was given but every word of it is a stop-word: nothing can match it. */
export function onlyStopWords(text: string | undefined): boolean {
  return !!text && /[\p{L}\p{N}]/u.test(text) && queryWords(text).length === 0;
}

export function sortRecall(items: RecallItem[], limit: number): RecallItem[] {
  items.sort((a, b) => b.score - a.score || b.memory.createdAt.localeCompare(a.memory.createdAt) || a.memory.id.localeCompare(b.memory.id));
  return items.slice(0, limit);
}

export function matchesFilters(rec: MemoryRecord, types: MemoryType[] | undefined, since: string | undefined): boolean {
  if (types?.length && !types.includes(rec.type)) return false;
  if (since && rec.createdAt < since) return false;
  return true;
}

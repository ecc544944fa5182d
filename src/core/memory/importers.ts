import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { ENTITY_KINDS } from './model';
import type { EntityRecord, JournalOp, MemoryRecord, MemoryType } from './model';
import { relPath, shortHash } from './links';

/* Importers for memory files projects already have. Ids are derived from content (type,
 * category, text, agent), never from the path or time, so importing twice adds nothing. */

export type ImportFormat = 'memory-md' | 'knowledge-graph' | 'bmad-memlog' | 'agent-memories' | 'waymark-export' | 'markdown';

export interface ImportedFile {
  file: string;
  format: ImportFormat;
  ops: JournalOp[];
  memories: number;
}

const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

export function detectFormat(file: string): ImportFormat | undefined {
  const base = path.basename(file);
  if (/^memory\.md$/i.test(base)) return 'memory-md';
  if (/knowledge[_-]?graph.*\.jsonl?$/i.test(base)) return 'knowledge-graph';
  if (/\.memlog\.md$/i.test(base)) return 'bmad-memlog';
  if (/_memories\.md$/i.test(base)) return 'agent-memories';
  if (/\.json$/i.test(base)) return 'waymark-export';
  if (/\.md$/i.test(base)) return 'markdown';
  return undefined;
}

/** Files to import under `p` (a file, or a folder searched for the known names). */
export function importCandidates(p: string): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    throw new WaymarkError('unreadable', `${p} does not exist: give a MEMORY.md, knowledge_graph.json, *.memlog.md, *_memories.md file or a folder holding them.`, p);
  }
  if (st.isFile()) return [p];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 6) return;
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names) {
      const f = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (d.name === 'node_modules' || d.name === '.git' || d.name === 'memory' && dir.endsWith('.waymark')) continue;
        walk(f, depth + 1);
      } else if (d.isFile()) {
        const fmt = detectFormat(f);
        if (fmt && fmt !== 'markdown' && fmt !== 'waymark-export') out.push(f);
      }
    }
  };
  walk(p, 0);
  return out.sort();
}

function readText(file: string): string {
  const st = fs.statSync(file);
  if (st.size > MAX_IMPORT_BYTES) throw new WaymarkError('unreadable', `${file} is too large to import (${st.size} bytes; limit ${MAX_IMPORT_BYTES}).`, file);
  const buf = fs.readFileSync(file);
  if (buf.includes(0)) throw new WaymarkError('unreadable', `${file} looks binary; give a Markdown or JSON memory file.`, file);
  return buf.toString('utf8').replace(/^\uFEFF/, '');
}

/** Parses one file into journal ops. */
export function parseImportFile(root: string, file: string, now: string, format = detectFormat(file)): ImportedFile {
  if (!format) throw new WaymarkError('usage', `Cannot tell what ${file} is: expected MEMORY.md, knowledge_graph.json(l), *.memlog.md, *_memories.md or a Waymark export (.json).`, file);
  const text = readText(file);
  const origin = relPath(root, file);
  let ops: JournalOp[];
  if (format === 'knowledge-graph') ops = parseKnowledgeGraph(text, file, origin, now);
  else if (format === 'waymark-export') ops = parseExport(text, file);
  else {
    const agent = format === 'agent-memories' ? path.basename(file).replace(/_memories\.md$/i, '') : format === 'bmad-memlog' ? path.basename(file).replace(/\.memlog\.md$/i, '') || undefined : undefined;
    ops = parseMarkdownMemory(text, { origin, agent: agent || undefined, now, defaultCategory: format === 'bmad-memlog' ? 'observation' : undefined });
  }
  return { file, format, ops, memories: ops.filter((o) => o.op === 'memory').length };
}

function classify(section: string): { type: MemoryType; category?: string } {
  const s = section.toLowerCase();
  if (/decision|decided|adr\b/.test(s)) return { type: 'decision' };
  if (/summary|summaries|retrospective|recap/.test(s)) return { type: 'summary', category: 'session' };
  if (/security|secret|auth/.test(s)) return { type: 'learning', category: 'security' };
  if (/preference|style|convention|prefer/.test(s)) return { type: 'learning', category: 'preference' };
  if (/mistake|avoid|gotcha|pitfall|warning|don't|do not/.test(s)) return { type: 'learning', category: 'gotcha' };
  if (/error|bug|fix|issue|failure|debug/.test(s)) return { type: 'learning', category: 'error' };
  if (/pattern|architecture|guideline|implementation|structure|design/.test(s)) return { type: 'learning', category: 'pattern' };
  return { type: 'learning' };
}

const DATE_RE = /\b(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?/;

/** Markdown memory files: each bullet (or paragraph) under a heading is one memory; the heading says what kind. */
export function parseMarkdownMemory(text: string, o: { origin: string; agent?: string; now: string; defaultCategory?: string }): JournalOp[] {
  const lines = text.split(/\r?\n/);
  let i = 0;
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((l, j) => j > 0 && (l.trim() === '---' || l.trim() === '...'));
    if (end > 0) i = end + 1;
  }
  const entries: { section: string; text: string; date?: string }[] = [];
  let heading = '';
  let headingDate: string | undefined;
  let current: { section: string; text: string; date?: string } | undefined;
  let inFence = false;
  let inComment = false;
  const flush = () => {
    if (current && current.text.trim()) entries.push({ ...current, text: current.text.trim() });
    current = undefined;
  };
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      flush();
      continue;
    }
    if (inFence) continue;
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      continue;
    }
    if (/^\s*<!--/.test(line)) {
      if (!line.includes('-->')) inComment = true;
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      flush();
      heading = h[2];
      const d = DATE_RE.exec(heading);
      headingDate = d ? d[0] : undefined;
      continue;
    }
    const bullet = /^\s{0,3}(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$/.exec(line);
    if (bullet) {
      flush();
      current = { section: heading, text: bullet[1], date: headingDate };
      continue;
    }
    if (!line.trim()) {
      if (current && !/^\s{2,}/.test(lines[i + 1] ?? '')) flush();
      continue;
    }
    if (current) current.text += ' ' + line.trim();
    else current = { section: heading, text: line.trim(), date: headingDate };
  }
  flush();
  const ops: JournalOp[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    if (/^_?none_?$/i.test(e.text) || e.text.length < 3) continue;
    const cls = classify(e.section);
    const category = cls.category ?? (cls.type === 'learning' ? o.defaultCategory : undefined);
    const d = DATE_RE.exec(e.text);
    const when = d ? d[0] : e.date;
    const t = when ? Date.parse(when.length === 10 ? `${when}T00:00:00Z` : `${when.replace(' ', 'T')}Z`) : NaN;
    const id = `imp-${shortHash(cls.type, category ?? '', e.text, o.agent ?? '')}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const rec: MemoryRecord = {
      id,
      type: cls.type,
      text: e.text,
      createdAt: Number.isFinite(t) ? new Date(t).toISOString() : o.now,
      tier: 1,
      source: { origin: o.origin, ...(o.agent ? { agent: o.agent } : {}) },
    };
    if (category) rec.category = category;
    if (e.section) rec.tags = [e.section.slice(0, 80)];
    ops.push({ v: 1, op: 'memory', rec });
  }
  return ops;
}

function entityFor(name: string, entityType: unknown): EntityRecord {
  const t = typeof entityType === 'string' ? entityType.toLowerCase() : '';
  const kind = (ENTITY_KINDS as readonly string[]).includes(t) ? t : 'component';
  return { id: `${kind}:${name}`, kind, name, createdAt: new Date(0).toISOString() };
}

/** `knowledge_graph.json` (an object with entities/relations) or its JSONL form (one entity or relation a line). */
export function parseKnowledgeGraph(text: string, file: string, origin: string, now: string): JournalOp[] {
  let ents: Record<string, unknown>[] = [];
  let rels: Record<string, unknown>[] = [];
  const trimmed = text.trim();
  if (trimmed.startsWith('{') && !/\}\s*\r?\n\s*\{/.test(trimmed)) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch (e) {
      throw new WaymarkError('invalid', `${file} is not valid JSON: ${(e as Error).message}. Fix it or give the JSONL form.`, file);
    }
    const o = doc as Record<string, unknown>;
    ents = Array.isArray(o.entities) ? (o.entities as Record<string, unknown>[]) : [];
    rels = Array.isArray(o.relations) ? (o.relations as Record<string, unknown>[]) : [];
  } else {
    trimmed.split(/\r?\n/).forEach((line, n) => {
      if (!line.trim()) return;
      let v: Record<string, unknown>;
      try {
        v = JSON.parse(line);
      } catch {
        throw new WaymarkError('invalid', `${file} line ${n + 1} is not valid JSON. Fix or remove that line.`, file, { line: n + 1 });
      }
      if (v?.type === 'relation') rels.push(v);
      else if (v && typeof v === 'object') ents.push(v);
    });
  }
  const ops: JournalOp[] = [];
  const byName = new Map<string, string>();
  for (const e of ents) {
    if (!e || typeof e.name !== 'string' || !e.name) continue;
    const ent = entityFor(e.name, e.entityType);
    byName.set(e.name, ent.id);
    ops.push({ v: 1, op: 'entity', rec: ent });
    for (const obs of Array.isArray(e.observations) ? e.observations : []) {
      if (typeof obs !== 'string' || !obs.trim()) continue;
      ops.push({
        v: 1,
        op: 'memory',
        rec: { id: `imp-${shortHash('kg', ent.id, obs)}`, type: 'learning', category: 'observation', text: obs.trim(), createdAt: now, tier: 1, source: { origin }, entities: [ent.id] },
      });
    }
  }
  for (const r of rels) {
    if (!r || typeof r.from !== 'string' || typeof r.to !== 'string') continue;
    const from = byName.get(r.from) ?? `component:${r.from}`;
    const to = byName.get(r.to) ?? `component:${r.to}`;
    ops.push({ v: 1, op: 'relate', rec: { from, to, relation: typeof r.relationType === 'string' ? r.relationType : 'related_to' } });
  }
  return ops;
}

/** A Waymark export (`waymark memory export`): ids are kept. */
export function parseExport(text: string, file: string): JournalOp[] {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new WaymarkError('invalid', `${file} is not valid JSON: ${(e as Error).message}.`, file);
  }
  if (doc?.format !== 'waymark-memory') {
    if (Array.isArray(doc?.entities)) return parseKnowledgeGraph(text, file, path.basename(file), new Date().toISOString());
    throw new WaymarkError('usage', `${file} is not a Waymark memory export (no "format": "waymark-memory") nor a knowledge graph.`, file);
  }
  const ops: JournalOp[] = [];
  for (const e of Array.isArray(doc.entities) ? (doc.entities as EntityRecord[]) : []) if (e && typeof e.id === 'string') ops.push({ v: 1, op: 'entity', rec: e });
  for (const m of Array.isArray(doc.memories) ? (doc.memories as MemoryRecord[]) : []) {
    if (m && typeof m.id === 'string' && typeof m.text === 'string' && ['learning', 'decision', 'summary'].includes(m.type)) {
      ops.push({ v: 1, op: 'memory', rec: { ...m, source: m.source && typeof m.source === 'object' ? m.source : {}, createdAt: typeof m.createdAt === 'string' ? m.createdAt : new Date(0).toISOString(), tier: m.tier ?? 1 } });
    }
  }
  for (const r of Array.isArray(doc.relations) ? (doc.relations as { from: string; to: string; relation: string }[]) : []) {
    if (r && typeof r.from === 'string' && typeof r.to === 'string') ops.push({ v: 1, op: 'relate', rec: { from: r.from, to: r.to, relation: String(r.relation ?? 'related_to') } });
  }
  return ops;
}

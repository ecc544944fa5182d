/**
 * The project timeline: every item's state changes in time order, merged from Waymark's history
 * (one JSONL file per workflow) and from git (commits that changed a state key of a project item,
 * including those made before Waymark was installed). One place for `waymark timeline` and the
 * dashboard. Pure over its inputs apart from reading the history files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HistoryEntry } from '../types';
import { readHistory } from '../store/history';
import type { GitTimeline } from './gitTimeline';
import type { ProjectView } from './loadProject';

/** One state change of one project item. */
export interface TimelineChange {
  /** ISO time. */
  time: string;
  /** The project item's id. */
  id: string;
  /** Absolute path of the item's file. */
  file: string;
  actor: string | null;
  session: string | null;
  /** The Waymark operation (`start`, `advance`, `setStatus`…) or `git commit`. */
  operation: string;
  from: Record<string, unknown> | null;
  to: Record<string, unknown> | null;
  source: 'waymark' | 'git';
  commit?: string;
}

export interface TimelineOptions {
  /** Only changes at or after this time (ms since the epoch). */
  since?: number;
  /** Only the changes of this file (absolute path). */
  file?: string;
}

/**
 * The state changes of the project's items, oldest first (ties by id). `git` holds each root's
 * git timeline (`gitStateTimeline`); a root without one contributes Waymark's history only. Git
 * changes of files that are no project item (a `status:` line in a plain note) are left out.
 */
export function projectTimeline(view: ProjectView, git: ReadonlyMap<string, GitTimeline>, options: TimelineOptions = {}): TimelineChange[] {
  const { since, file: only } = options;
  const rows: TimelineChange[] = [];
  const itemByFile = new Map(view.registry.items.filter((i) => i.file).map((i) => [i.file!, i]));
  for (const [root, t] of git) {
    for (const c of t.changes) {
      const abs = path.join(root, c.file);
      if (only && abs !== only) continue;
      if (since !== undefined && !(Date.parse(c.time) >= since)) continue;
      const item = itemByFile.get(abs);
      if (!item) continue;
      const from: Record<string, unknown> = {};
      const to: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(c.changes)) {
        from[k] = v.from ?? null;
        to[k] = v.to ?? null;
      }
      rows.push({ time: new Date(c.time).toISOString(), id: item.id, file: abs, actor: c.author, session: null, operation: 'git commit', from, to, source: 'git', commit: c.commit });
    }
  }
  // A folder with no history folder at all (a project new to Waymark) is not asked per file.
  const hasHistory = new Map<string, boolean>();
  for (const root of view.roots) hasHistory.set(root, fs.existsSync(path.resolve(root, view.historyDirs.get(root) ?? '.waymark/history')));
  for (const item of view.registry.items) {
    if (!item.file || (only && item.file !== only) || hasHistory.get(item.root) === false) continue;
    let entries: HistoryEntry[];
    try {
      entries = readHistory(item.root, item.file, view.historyDirs.get(item.root));
    } catch {
      continue; // an unreadable history file: `waymark validate` reports it
    }
    for (const e of entries) {
      if (since !== undefined && !(Date.parse(e.time) >= since)) continue;
      rows.push({ time: e.time, id: item.id, file: item.file, actor: e.actor ?? null, session: e.session ?? null, operation: e.operation, from: e.from ?? null, to: e.to ?? null, source: 'waymark' });
    }
  }
  rows.sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id));
  return rows;
}

/** The keys whose value differs between `from` and `to`, as `key: "a" → "b"` (at most `max`). */
export function describeChange(c: Pick<TimelineChange, 'from' | 'to'>, max = 3): string[] {
  const keys = new Set([...Object.keys(c.from ?? {}), ...Object.keys(c.to ?? {})]);
  const parts: string[] = [];
  for (const k of keys) {
    const a = JSON.stringify(c.from?.[k] ?? null);
    const b = JSON.stringify(c.to?.[k] ?? null);
    if (a !== b) parts.push(`${k}: ${a} → ${b}`);
  }
  return parts.slice(0, max);
}

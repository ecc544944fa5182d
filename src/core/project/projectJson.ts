/**
 * The plain-JSON shapes of the project view that every face prints or returns (`waymark next|board
 * --json`, the MCP tools `waymark_next` / `waymark_board`): one definition, so they never drift.
 * Paths are shown through the face's own `display` (relative to its cwd or workspace).
 */
import type { Problem } from '../types';
import type { FrontierEntry } from './frontier';
import type { ProjectView } from './loadProject';
import type { ItemState } from './registry';

export type DisplayPath = (file: string | undefined) => string | null;

export interface FrontierEntryJson {
  id: string;
  kind: string;
  title: string;
  file: string | null;
  /** The board column: ready, inProgress, review, blocked, done, dropped. */
  column: BoardColumn;
  status: string | null;
  reason: string;
  waitingOn: string[];
  unblocks: number;
  chain: number;
  priority: number;
  stalled: null | {
    lastActivity: string | null;
    who: string | null;
    source: string | null;
    idleMinutes: number | null;
    thresholdMinutes: number;
    kind: string;
  };
}

/** The board column an item state is shown in (the keys of `boardJson().columns`). */
export const COLUMN_OF: Record<ItemState, BoardColumn> = { todo: 'ready', in_progress: 'inProgress', review: 'review', blocked: 'blocked', done: 'done', dropped: 'dropped' };

export function frontierEntryJson(e: FrontierEntry, display: DisplayPath): FrontierEntryJson {
  return {
    id: e.id,
    kind: e.item.kind,
    title: e.item.title,
    file: display(e.item.file),
    column: COLUMN_OF[e.column],
    status: e.item.rawStatus ?? null,
    reason: e.reason,
    waitingOn: e.waitingOn,
    unblocks: e.unblocks,
    chain: e.depth,
    priority: e.item.priority,
    stalled: e.stalled
      ? {
          lastActivity: e.stalled.last?.time ?? null,
          who: e.stalled.last?.who ?? null,
          source: e.stalled.last?.source ?? null,
          idleMinutes: Number.isFinite(e.stalled.idleMs) ? Math.round(e.stalled.idleMs / 60_000) : null,
          thresholdMinutes: Math.round(e.stalled.thresholdMs / 60_000),
          kind: e.stalled.kind,
        }
      : null,
  };
}

export interface ProjectProblemJson {
  file: string | null;
  line: number;
  column: number;
  severity: Problem['severity'];
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

export function projectProblemJson(p: Problem, display: DisplayPath): ProjectProblemJson {
  return { file: display(p.file), line: p.range.start.line + 1, column: p.range.start.character + 1, severity: p.severity, code: p.code, message: p.message, ...(p.data ? { data: p.data as Record<string, unknown> } : {}) };
}

/** The board columns, in order, with their titles. */
export const BOARD_COLUMNS = [
  ['ready', 'Ready'],
  ['inProgress', 'In progress'],
  ['review', 'In review'],
  ['blocked', 'Blocked'],
  ['done', 'Done'],
  ['dropped', 'Dropped'],
] as const;

export type BoardColumn = (typeof BOARD_COLUMNS)[number][0];

/** `waymark next --json`: the first thing to start, the ready list in order, reviews, stalled work. */
export function nextJson(view: ProjectView, display: DisplayPath) {
  const f = view.frontier;
  return {
    now: view.now,
    next: f.ready[0] ? frontierEntryJson(f.ready[0], display) : null,
    ready: f.ready.map((e) => frontierEntryJson(e, display)),
    review: f.review.map((e) => frontierEntryJson(e, display)),
    stalled: f.stalled.map((e) => frontierEntryJson(e, display)),
    criticalPath: f.criticalPath,
    problems: f.problems.map((p) => projectProblemJson(p, display)),
  };
}

/** `waymark board --json`: every item by column; stalled ids, the critical path, the problems. */
export function boardJson(view: ProjectView, display: DisplayPath) {
  const f = view.frontier;
  const columns = {} as Record<BoardColumn, FrontierEntryJson[]>;
  for (const [key] of BOARD_COLUMNS) columns[key] = f[key].map((e) => frontierEntryJson(e, display));
  return { now: view.now, roots: view.roots, columns, stalled: f.stalled.map((e) => e.id), criticalPath: f.criticalPath, problems: f.problems.map((p) => projectProblemJson(p, display)) };
}

/**
 * The dashboard's view model: plain, JSON-serialisable data computed from the project view and
 * its timeline, so the webview only draws it. Columns by status (the seeds' views: Discovery
 * queue, Active, QA / review queue, Shipped, Stalled, Sub-agent activity, plus Blocked), the ready
 * frontier in its order with the reason and what each unblocks, the stalled list, dependency
 * chains and the critical path, and the timeline (per-day activity, per-item swimlanes). Every
 * item carries its file and the line of its state, so a click opens the file there. Pure.
 */
import type { FrontierEntry } from './frontier';
import type { ItemState, ProjectItem } from './registry';
import type { ProjectView } from './loadProject';
import type { TimelineChange } from './timeline';
import { describeChange } from './timeline';
import type { TrackerHealth } from '../tickets/setup';

export type DashboardColumnKey = 'discovery' | 'active' | 'review' | 'blocked' | 'stalled' | 'shipped' | 'dropped' | 'subagents';

export interface DashboardStalled {
  /** ISO time of the last activity; null when none was found at all. */
  lastActivity: string | null;
  who: string | null;
  source: string | null;
  /** Idle for, in words (`3 days`); `no activity recorded` when unknown. */
  idle: string;
  idleMs: number | null;
  threshold: string;
  kind: string;
}

export interface DashboardItem {
  id: string;
  kind: 'workflow' | 'story' | 'ticket';
  /** A story's key in its ledger (its id may carry its project's name beside a sibling app's); null otherwise. */
  storyKey: string | null;
  /** A v7 ticket's BMAD ref (`2.1`) and assignee; null otherwise. */
  ref: string | null;
  assignee: string | null;
  title: string;
  /** Absolute path of the file; null for a story only in the ledger. */
  file: string | null;
  /** Path relative to its workspace folder, with `/`. */
  rel: string | null;
  root: string;
  /** 0-based line of the state in the file (open the file here). */
  line: number;
  /** The frontier's column (a todo waiting on something is `blocked`). */
  state: ItemState;
  /** The status as written. */
  status: string | null;
  reason: string;
  waitingOn: string[];
  /** How many not-done items wait on this one, directly or through others. */
  unblocks: number;
  /** Not-done items waiting directly on this one. */
  unblocksIds: string[];
  /** Length of the longest chain of remaining work ending here. */
  chain: number;
  priority: number;
  stalled: DashboardStalled | null;
  /** The delegation parent's id (for a sub-agent's workflow). */
  parent: string | null;
  /** The sub-agent that works on it (delegation `agent`). */
  agent: string | null;
  /** Ready to start: the dashboard offers Start (where writes are allowed). */
  startable: boolean;
  /** Where it is ahead in another git worktree: a chip each (`⎇ review in feat/2-3`) with a tooltip. */
  worktrees: DashboardChip[];
}

export interface DashboardChip {
  label: string;
  tooltip: string;
}

/** A ticket store's breaker and outbox, as `trackerHealth` reads them, plus the folder. */
export type DashboardTrackerInput = Omit<TrackerHealth, 'kind'> & { root: string; kind: string };

export interface DashboardTrackerStore {
  root: string;
  store: string;
  kind: string;
  isDefault: boolean;
  state: 'closed' | 'open' | 'half-open';
  /** The state in words: `closed`, `open until 2026-11-23 15:40 UTC`, `half-open (the next call is a trial)`. */
  label: string;
  failures: number;
  retryAt: string | null;
  /** The last failure; only while the breaker is not closed. */
  lastError: string | null;
  /** Changes waiting in the outbox. */
  queued: number;
}

export interface DashboardColumn {
  key: DashboardColumnKey;
  title: string;
  /** What the column holds, in one line. */
  hint: string;
  /** Item ids, in the order to show them. */
  items: string[];
}

export interface DashboardMark {
  time: string;
  operation: string;
  /** One line: what changed (`status: "created" → "in_progress"`). */
  label: string;
  actor: string | null;
  source: 'waymark' | 'git';
  /** The state the item was in after the change, as a column word (for the mark's colour). */
  tone: 'started' | 'done' | 'blocked' | 'review' | 'step' | 'other';
}

export interface DashboardLane {
  id: string;
  title: string;
  file: string;
  line: number;
  state: ItemState | null;
  marks: DashboardMark[];
}

export interface DashboardDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  waymark: number;
  git: number;
}

export interface DashboardModel {
  now: string;
  roots: string[];
  summary: { total: number; ready: number; active: number; review: number; blocked: number; stalled: number; done: number; problems: number };
  columns: DashboardColumn[];
  items: Record<string, DashboardItem>;
  /** Ready ids in the order to start them. */
  frontier: string[];
  /** Stalled ids, most idle first. */
  stalled: string[];
  criticalPath: string[];
  /** Remaining work waiting on remaining work: one chain per blocked item, `[item, waits on…]`. */
  chains: { id: string; waitsOn: string[] }[];
  timeline: {
    /** Every day from the first change to the last (at most `maxDays`, the latest). */
    days: DashboardDay[];
    /** The items with changes, most recently changed first (at most `maxLanes`). */
    lanes: DashboardLane[];
    start: string | null;
    end: string | null;
    total: number;
  };
  problems: { file: string; line: number; severity: string; code: string; message: string }[];
  /** The ticket stores of the folders with a tracker (empty when none is configured). */
  tracker: DashboardTrackerStore[];
}

export interface DashboardOptions {
  /** Swimlanes kept (default 24). */
  maxLanes?: number;
  /** Days of per-day activity kept, the latest (default 60). */
  maxDays?: number;
  /** Items listed per column (default 500; the summary counts them all). */
  maxPerColumn?: number;
  /**
   * The 0-based line of an item's state in its file, asked only for the items shown (a story
   * knows its Status line already). Default: line 0. `workflowStateLine` reads it from the file.
   */
  lineOf?: (item: ProjectItem) => number | undefined;
  /** What another git worktree has ahead for an item, asked only for the items shown. */
  worktreesOf?: (item: ProjectItem) => readonly DashboardChip[];
  /** The breaker and outbox of each configured ticket store (`trackerHealth` per folder). */
  tracker?: readonly DashboardTrackerInput[];
}

function utc(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC` : iso;
}

/** A store's health for the dashboard: its state in words, the last error only while not closed. */
export function dashboardTracker(h: DashboardTrackerInput): DashboardTrackerStore {
  const label =
    h.state === 'open' ? (h.retryAt ? `open until ${utc(h.retryAt)}` : 'open') : h.state === 'half-open' ? 'half-open (the next call is a trial)' : 'closed';
  return {
    root: h.root, store: h.store, kind: h.kind, isDefault: h.isDefault, state: h.state, label, failures: h.failures,
    retryAt: h.retryAt ?? null, lastError: h.state !== 'closed' && h.lastError ? h.lastError : null, queued: h.queued,
  };
}

const DAY = 86_400_000;

function ago(ms: number): string {
  const m = Math.round(ms / 60_000);
  if (m < 120) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

const DONE_WORDS = /^(completed?|done|shipped|closed)$/i;

function toneOf(c: TimelineChange): DashboardMark['tone'] {
  const raw = c.to?.status ?? c.to?.Status;
  const status = typeof raw === 'string' ? raw.replace(/^['"]|['"]$/g, '').toLowerCase() : undefined;
  if (status) {
    if (DONE_WORDS.test(status)) return 'done';
    if (status === 'blocked') return 'blocked';
    if (status === 'review' || status === 'in-review' || status === 'in_review') return 'review';
    if (/progress|progess|started/.test(status)) return 'started';
    return 'other';
  }
  if (c.to && ('currentStep' in c.to || 'stepsCompleted' in c.to || 'lastStep' in c.to)) return 'step';
  return 'other';
}

function stalledOf(e: FrontierEntry): DashboardStalled | null {
  const s = e.stalled;
  if (!s) return null;
  const known = Number.isFinite(s.idleMs);
  return {
    lastActivity: s.last?.time ?? null, who: s.last?.who ?? null, source: s.last?.source ?? null,
    idle: known ? ago(s.idleMs) : 'no activity recorded', idleMs: known ? s.idleMs : null, threshold: ago(s.thresholdMs), kind: s.kind,
  };
}

/** The dashboard's data for a project view and its timeline (`projectTimeline`). */
export function dashboardModel(view: ProjectView, timeline: readonly TimelineChange[], opts: DashboardOptions = {}): DashboardModel {
  const maxLanes = opts.maxLanes ?? 24;
  const maxDays = opts.maxDays ?? 60;
  const maxPer = opts.maxPerColumn ?? 500;
  const f = view.frontier;
  const reg = view.registry;
  // A sub-agent's workflow names its parent by delegation id; the item with that id (or alias).
  const byDelegation = new Map<string, string>();
  for (const it of reg.items) if (it.delegationId) byDelegation.set(it.delegationId, it.id);
  const parentOf = new Map<string, string>();
  for (const it of reg.items) if (it.delegatedBy) parentOf.set(it.id, byDelegation.get(it.delegatedBy) ?? it.delegatedBy);
  for (const e of reg.edges) if (e.kind === 'delegation') parentOf.set(e.to, e.from);
  const notDone = (id: string) => {
    const st = reg.byId.get(id)?.state;
    return st !== 'done' && st !== 'dropped';
  };

  const lines = new Map<string, number>();
  const lineOf = (it: ProjectItem): number => {
    let n = it.line ?? lines.get(it.id);
    if (n === undefined) lines.set(it.id, (n = opts.lineOf?.(it) ?? 0));
    return n;
  };
  // Two files with one title (`epics.md` in two epic folders) are told apart by their folder.
  const titleCount = new Map<string, number>();
  for (const it of reg.items) titleCount.set(it.title, (titleCount.get(it.title) ?? 0) + 1);
  const titleOf = (it: ProjectItem): string => {
    if ((titleCount.get(it.title) ?? 0) < 2 || !it.rel) return it.title;
    const dir = it.rel.split('/').slice(0, -1).pop();
    return dir ? `${it.title} (${dir})` : it.title;
  };
  const items: Record<string, DashboardItem> = {};
  const itemOf = (e: FrontierEntry): DashboardItem => {
    const it: ProjectItem = e.item;
    return {
      id: e.id, kind: it.kind, storyKey: it.storyKey ?? null, ref: it.ref ?? null, assignee: it.assignee ?? null, title: titleOf(it), file: it.file ?? null, rel: it.rel ?? null, root: it.root, line: lineOf(it),
      state: e.column, status: it.rawStatus ?? null, reason: e.reason, waitingOn: e.waitingOn, unblocks: e.unblocks,
      unblocksIds: (reg.dependents.get(e.id) ?? []).map((d) => d.from).filter(notDone),
      chain: e.depth, priority: it.priority, stalled: stalledOf(e), parent: parentOf.get(e.id) ?? null, agent: it.agent ?? null,
      // A v7 ticket starts without a file: setting its status creates its plan, as tickets.py mark does.
      startable: e.column === 'todo' && (!!it.file || it.kind === 'ticket'),
      worktrees: (opts.worktreesOf?.(it) ?? []).map((c) => ({ label: c.label, tooltip: c.tooltip })),
    };
  };

  const stalledIds = new Set(f.stalled.map((e) => e.id));
  const ids = (list: FrontierEntry[]) => list.slice(0, maxPer).map((e) => e.id);
  const recentFirst = (list: FrontierEntry[]) => [...list].sort((a, b) => (a.item.created ?? '') < (b.item.created ?? '') ? 1 : -1);
  const subagents = f.inProgress.concat(f.review, f.blocked, f.ready).filter((e) => parentOf.has(e.id));
  const columns: DashboardColumn[] = [
    { key: 'discovery', title: 'Discovery queue', hint: 'ready to start, in the order to start them', items: ids(f.ready) },
    { key: 'active', title: 'Active', hint: 'in progress, with recent activity', items: ids(f.inProgress.filter((e) => !stalledIds.has(e.id))) },
    { key: 'review', title: 'QA / review queue', hint: 'waiting for review', items: ids(f.review) },
    { key: 'blocked', title: 'Blocked', hint: 'blocked, or waiting on unfinished work', items: ids(f.blocked) },
    { key: 'stalled', title: 'Stalled', hint: 'in progress but quiet past the threshold', items: ids(f.stalled) },
    { key: 'shipped', title: 'Shipped', hint: 'done', items: ids(recentFirst(f.done)) },
    { key: 'subagents', title: 'Sub-agent activity', hint: 'delegated work not yet done', items: ids(subagents) },
  ];
  if (f.dropped.length) columns.splice(6, 0, { key: 'dropped', title: 'Dropped', hint: 'archived; waive it where work still waits on it', items: ids(f.dropped) });

  const chains = f.blocked.slice(0, maxPer).filter((e) => e.waitingOn.length).map((e) => ({ id: e.id, waitsOn: e.waitingOn }));

  // Timeline: per-day counts over a contiguous range of days, and one lane per changed item.
  const days: DashboardDay[] = [];
  if (timeline.length) {
    const first = Date.parse(timeline[0].time.slice(0, 10));
    const last = Date.parse(timeline[timeline.length - 1].time.slice(0, 10));
    const from = Math.max(first, last - (maxDays - 1) * DAY);
    const byDay = new Map<string, DashboardDay>();
    for (let t = from; t <= last; t += DAY) {
      const d: DashboardDay = { date: new Date(t).toISOString().slice(0, 10), waymark: 0, git: 0 };
      days.push(d);
      byDay.set(d.date, d);
    }
    for (const c of timeline) {
      const d = byDay.get(c.time.slice(0, 10));
      if (d) d[c.source]++;
    }
  }
  // Lanes: the items changed most recently (the timeline is oldest first), then their marks.
  const lastTime = new Map<string, string>();
  for (const c of timeline) lastTime.set(c.id, c.time);
  const laneIds = [...lastTime.keys()].sort((a, b) => (lastTime.get(b)! < lastTime.get(a)! ? -1 : lastTime.get(b)! > lastTime.get(a)! ? 1 : a < b ? -1 : 1)).slice(0, maxLanes);
  const laneById = new Map<string, DashboardLane>();
  for (const id of laneIds) {
    const e = f.entries.get(id);
    laneById.set(id, { id, title: e ? titleOf(e.item) : id, file: '', line: e ? lineOf(e.item) : 0, state: e?.column ?? null, marks: [] });
  }
  for (const c of timeline) {
    const lane = laneById.get(c.id);
    if (!lane) continue;
    lane.file = c.file;
    const label = describeChange(c).join(', ') || c.operation;
    lane.marks.push({ time: c.time, operation: c.operation, label, actor: c.actor, source: c.source, tone: toneOf(c) });
  }
  const lanes = [...laneById.values()];
  // Only the items something shows (a large project's model stays bounded).
  const shown = new Set<string>([...columns.flatMap((c) => c.items), ...f.criticalPath, ...chains.flatMap((c) => [c.id, ...c.waitsOn]), ...lanes.map((l) => l.id)]);
  for (const id of shown) {
    const e = f.entries.get(id);
    if (e) items[id] = itemOf(e);
  }

  return {
    now: view.now,
    roots: view.roots,
    summary: {
      total: reg.items.length, ready: f.ready.length, active: f.inProgress.length - f.stalled.length, review: f.review.length,
      blocked: f.blocked.length, stalled: f.stalled.length, done: f.done.length, problems: f.problems.length,
    },
    columns,
    items,
    frontier: f.ready.slice(0, maxPer).map((e) => e.id),
    stalled: f.stalled.map((e) => e.id),
    criticalPath: f.criticalPath,
    chains,
    timeline: { days, lanes, start: timeline[0]?.time ?? null, end: timeline[timeline.length - 1]?.time ?? null, total: timeline.length },
    problems: f.problems.slice(0, 200).map((p) => ({ file: p.file, line: p.range.start.line, severity: p.severity, code: p.code, message: p.message })),
    tracker: (opts.tracker ?? []).map(dashboardTracker),
  };
}

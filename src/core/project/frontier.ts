/**
 * The frontier over a project registry: what is ready, in progress, in review, blocked (and by
 * what), done; the order to start ready work in; the critical path; and stalled work, derived
 * from the last activity and never written anywhere. Pure: the clock and activity come in.
 */
import type { Problem, Range } from '../types';
import type { ItemState, ProjectItem, ProjectRegistry } from './registry';

/** The last sign of life of an item. */
export interface Activity {
  /** ISO time. */
  time: string;
  /** Who: an actor, a lease holder, `file edit`. */
  who?: string;
  source: 'history' | 'event' | 'file' | 'lease' | 'mode' | 'ledger';
}

/** How long in-progress work may go quiet before it counts as stalled, in milliseconds. */
export interface StalledThresholds {
  /** A workflow an agent session holds (a live lease or mode): minutes. */
  session: number;
  /** Any other workflow file. */
  workflow: number;
  /** A BMAD story tracked in the sprint ledger: days. */
  ledger: number;
}

export const DEFAULT_STALLED: StalledThresholds = { session: 30 * 60_000, workflow: 3 * 86_400_000, ledger: 7 * 86_400_000 };

export interface FrontierInput {
  /** Last activity per item id. */
  activity?: ReadonlyMap<string, Activity>;
  /** Items an agent session holds (a lease or a mode), with its holder. */
  sessions?: ReadonlyMap<string, Activity>;
  now: Date;
  /** Thresholds per item's root (default `DEFAULT_STALLED`). */
  stalledAfter?: (root: string) => StalledThresholds;
}

export interface Stalled {
  /** Last activity, or undefined when none was found at all. */
  last?: Activity;
  idleMs: number;
  thresholdMs: number;
  kind: keyof StalledThresholds;
  /**
   * A BMAD planning document whose project's stories (and tickets) are all done or dropped: the
   * work it planned is done, and its stall is a note (stalledProblem).
   */
  planned?: { stories: number };
}

export interface FrontierEntry {
  id: string;
  item: ProjectItem;
  /** The board column (a todo item waiting on something is `blocked`). */
  column: ItemState;
  /** One sentence: why it is in this column. */
  reason: string;
  /** Prerequisites not done (and not waived), by id. */
  waitingOn: string[];
  /** How many remaining items (neither done nor dropped) wait on this one, directly or through others. */
  unblocks: number;
  /** Length of the longest chain of remaining work (neither done nor dropped) ending at this item (itself included); 0 for done or dropped items. */
  depth: number;
  stalled?: Stalled;
}

export interface Frontier {
  /** Ready to start, in the order to start them: unblocks most, then priority, then age. */
  ready: FrontierEntry[];
  inProgress: FrontierEntry[];
  review: FrontierEntry[];
  blocked: FrontierEntry[];
  done: FrontierEntry[];
  dropped: FrontierEntry[];
  /** In progress and quiet for longer than the threshold; most idle first. */
  stalled: FrontierEntry[];
  /** The longest chain of remaining work (never a done or dropped item), first to do → last, by id. */
  criticalPath: string[];
  entries: Map<string, FrontierEntry>;
  /** The registry's problems plus a `work-stalled` warning per stalled file. */
  problems: Problem[];
  /**
   * When (ms since the epoch) the next in-progress item crosses its stalled threshold with no
   * new activity: until then time passing changes no column and no stalled set. Undefined when
   * nothing will.
   */
  stalledChangesAt?: number;
}

const STATE_WORDS: Record<ItemState, string> = {
  todo: 'not started', in_progress: 'in progress', review: 'in review', blocked: 'blocked', done: 'done', dropped: 'dropped: waive it to go on',
};

const zero: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** Done or dropped: no remaining work (no chain runs through it, nothing it unblocks counts). */
function settled(state: ItemState | undefined): boolean {
  return state === 'done' || state === 'dropped';
}

function isDone(item: ProjectItem | undefined, waived: boolean): boolean {
  return !!item && (item.state === 'done' || (waived && item.state === 'dropped'));
}

function ago(ms: number): string {
  const m = Math.round(ms / 60_000);
  if (m < 120) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

/** Computes the frontier. Linear in items + edges, plus the dependents of the ready items. */
export function computeFrontier(reg: ProjectRegistry, input: FrontierInput): Frontier {
  const inCycle = cycleMembers(reg);

  // Longest remaining chain (depth) in topological order over the DAG of remaining items: neither
  // done nor dropped (work set aside is no work left; what waits on it waits for a waiver, not a chain).
  const remaining = reg.items.filter((it) => !settled(it.state));
  const depth = new Map<string, number>();
  const via = new Map<string, string>();
  const pending = new Map<string, number>();
  const open = new Set(remaining.map((it) => it.id));
  for (const it of remaining) pending.set(it.id, (reg.prerequisites.get(it.id) ?? []).filter((e) => open.has(e.to)).length);
  const queue: string[] = [];
  for (const it of remaining) if (pending.get(it.id) === 0) queue.push(it.id);
  for (let q = 0; q < queue.length; q++) {
    const id = queue[q];
    let best = 0;
    let bestVia: string | undefined;
    for (const e of reg.prerequisites.get(id) ?? []) {
      const d = depth.get(e.to);
      if (d !== undefined && d > best) {
        best = d;
        bestVia = e.to;
      }
    }
    depth.set(id, best + 1);
    if (bestVia) via.set(id, bestVia);
    for (const e of reg.dependents.get(id) ?? []) {
      const p = pending.get(e.from);
      if (p === undefined) continue;
      pending.set(e.from, p - 1);
      if (p - 1 === 0) queue.push(e.from);
    }
  }

  const now = input.now.getTime();
  const entries = new Map<string, FrontierEntry>();
  for (const item of reg.items) entries.set(item.id, entryOf(item, reg, inCycle, depth.get(item.id) ?? 0, input, now));

  // The critical path ends at the deepest remaining item; walk back to its first step.
  let end: string | undefined;
  let endDepth = 0;
  for (const [id, d] of depth) if (d > endDepth || (d === endDepth && end !== undefined && id < end)) [end, endDepth] = [id, d];
  const criticalPath: string[] = [];
  for (let id = end; id; id = via.get(id)) criticalPath.unshift(id);
  return finish(reg, entries, criticalPath, now);
}

/** Most items re-computed by `updateFrontier`; more and the whole frontier is computed again. */
const MAX_UPDATED = 200;

/**
 * The frontier after a few items changed, from the one before: `prev` was computed over
 * `prevReg` with `prevInput`; `reg` has the same edges and cycles (core/project `updateRegistry`)
 * with some items replaced. Only the replaced items, the items that wait on them directly (their
 * reasons name the prerequisite's state) and the in-progress items whose activity or session
 * changed are computed again; the rest is carried over. The same frontier `computeFrontier` gives
 * over `reg` and `input` (entries, columns, order, critical path, problems), except that an
 * entry carried over keeps the stalled time of `prevInput.now`, and `stalledChangesAt` may be
 * earlier (then the view is recomputed earlier: never later). Undefined when that does not hold
 * (edges changed, an item became or stopped being done or dropped, time crossed a stalled threshold, too
 * many changed): compute it whole.
 */
export function updateFrontier(prev: Frontier, prevReg: ProjectRegistry, prevInput: FrontierInput, reg: ProjectRegistry, input: FrontierInput): Frontier | undefined {
  if (reg.prerequisites !== prevReg.prerequisites || reg.dependents !== prevReg.dependents || reg.cycles !== prevReg.cycles || reg.problems !== prevReg.problems) return undefined;
  if (reg.items.length !== prevReg.items.length || prev.entries.size !== reg.items.length) return undefined;
  const now = input.now.getTime();
  if (now < prevInput.now.getTime() || (prev.stalledChangesAt !== undefined && now >= prev.stalledChangesAt)) return undefined;
  const again = new Set<string>();
  for (let i = 0; i < reg.items.length; i++) {
    const before = prevReg.items[i];
    const after = reg.items[i];
    if (before === after) continue;
    // Remaining or not (done, dropped) decides the remaining chains (depth, critical path) and every unblocks count.
    if (before.id !== after.id || settled(before.state) !== settled(after.state)) return undefined;
    again.add(after.id);
    for (const e of reg.dependents.get(after.id) ?? []) again.add(e.from);
  }
  for (const [id, a] of input.activity ?? []) if (prevInput.activity?.get(id) !== a) again.add(id);
  for (const [id, a] of prevInput.activity ?? []) if (input.activity?.get(id) !== a) again.add(id);
  for (const [id, a] of input.sessions ?? []) if (prevInput.sessions?.get(id) !== a) again.add(id);
  for (const [id, a] of prevInput.sessions ?? []) if (input.sessions?.get(id) !== a) again.add(id);
  if (again.size > MAX_UPDATED) return undefined;
  if (!again.size) return prev;
  const inCycle = cycleMembers(reg);
  const entries = new Map(prev.entries);
  const fresh = new Set<FrontierEntry>();
  for (const id of again) {
    const item = reg.byId.get(id);
    const old = prev.entries.get(id);
    if (!item || !old) return undefined;
    const e = entryOf(item, reg, inCycle, old.depth, input, now);
    entries.set(id, e);
    fresh.add(e);
  }
  const placed = new Map<string, Problem>();
  for (const p of prev.problems) if (p.code === 'work-stalled') placed.set(p.file, p);
  return finish(reg, entries, prev.criticalPath, now, { fresh, placed, stalledChangesAt: prev.stalledChangesAt });
}

/** Each item of a dependency cycle, with the cycle it is in (the first one found). */
function cycleMembers(reg: ProjectRegistry): Map<string, string[]> {
  const inCycle = new Map<string, string[]>();
  for (const c of reg.cycles) for (const id of c) if (!inCycle.has(id)) inCycle.set(id, c);
  return inCycle;
}

/** One item's entry: its column, why, what it waits on, and its stalled time when in progress (unblocks follow in `finish`). */
function entryOf(item: ProjectItem, reg: ProjectRegistry, inCycle: Map<string, string[]>, depth: number, input: FrontierInput, now: number): FrontierEntry {
  const waitingOn: string[] = [];
  const why: string[] = [];
  for (const e of settled(item.state) ? [] : reg.prerequisites.get(item.id) ?? []) {
    const pre = reg.byId.get(e.to);
    const waived = item.waived.length > 0 && (item.waived.includes(e.to) || (pre?.rel !== undefined && item.waived.includes(pre.rel)));
    if (isDone(pre, waived)) continue;
    waitingOn.push(e.to);
    why.push(`${e.to} (${pre ? STATE_WORDS[pre.state] : 'unknown'}${e.kind === 'dependsOn' ? '' : `, ${e.kind}`})`);
  }
  let column: ItemState = item.state;
  let reason: string;
  const cycle = inCycle.get(item.id);
  if (item.state === 'done') reason = 'done';
  else if (item.state === 'dropped') reason = 'archived';
  else if (item.state === 'blocked') reason = `blocked${item.blockedReason ? `: ${item.blockedReason}` : ''}${why.length ? `; waits on ${why.join(', ')}` : ''}`;
  else if (cycle && item.state === 'todo') {
    column = 'blocked';
    reason = `in a dependency cycle: ${cycle.join(' → ')}`;
  } else if (waitingOn.length && item.state === 'todo') {
    column = 'blocked';
    reason = `waits on ${why.join(', ')}`;
  } else if (item.state === 'todo') {
    const n = (reg.prerequisites.get(item.id) ?? []).length;
    reason = n ? `ready: its ${n === 1 ? 'prerequisite is' : `${n} prerequisites are`} done` : 'ready: waits on nothing';
  } else reason = item.state === 'review' ? 'in review' : `in progress${waitingOn.length ? `; still waits on ${why.join(', ')}` : ''}`;
  const entry: FrontierEntry = { id: item.id, item, column, reason, waitingOn, unblocks: 0, depth };
  if (item.state === 'in_progress') entry.stalled = stalledOf(item, input, now, reg);
  return entry;
}

/**
 * Columns, the ready order, stalled work and problems over the entries. With `carried`, only the
 * `fresh` entries get their unblocks and stalled state here; the others had theirs already (and
 * their stalled problems, placed, are in `placed` by file).
 */
function finish(
  reg: ProjectRegistry,
  entries: Map<string, FrontierEntry>,
  criticalPath: string[],
  now: number,
  carried?: { fresh: ReadonlySet<FrontierEntry>; placed: ReadonlyMap<string, Problem>; stalledChangesAt?: number },
): Frontier {
  const isFresh = (e: FrontierEntry) => !carried || carried.fresh.has(e);
  const columns: Record<ItemState, FrontierEntry[]> = { todo: [], in_progress: [], review: [], blocked: [], done: [], dropped: [] };
  for (const e of entries.values()) columns[e.column].push(e);
  const col = (c: ItemState) => columns[c];
  const ready = col('todo');
  for (const e of ready) {
    if (!isFresh(e)) continue;
    e.unblocks = countDependents(reg, e.id);
    if (e.unblocks) e.reason += `; unblocks ${e.unblocks}`;
  }
  // Plain code-unit comparison: ISO times and ids order correctly, and localeCompare is slow.
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  ready.sort((a, b) => b.unblocks - a.unblocks || b.item.priority - a.item.priority || cmp(a.item.created ?? '\uffff', b.item.created ?? '\uffff') || cmp(a.id, b.id));

  const problems = [...reg.problems];
  let stalledChangesAt = carried?.stalledChangesAt;
  const crossed = new Set<FrontierEntry>();
  for (const e of carried ? carried.fresh : entries.values()) {
    const s = e.stalled;
    if (!s) continue;
    if (s.idleMs > s.thresholdMs) {
      crossed.add(e);
      continue;
    }
    delete e.stalled;
    if (!Number.isFinite(s.idleMs)) continue;
    const at = now - s.idleMs + s.thresholdMs + 1;
    if (stalledChangesAt === undefined || at < stalledChangesAt) stalledChangesAt = at;
  }
  // A carried entry still has `stalled` only when it had crossed its threshold.
  const stalled = [...entries.values()].filter((e) => e.stalled).sort((a, b) => b.stalled!.idleMs - a.stalled!.idleMs);
  for (const e of stalled) {
    const file = e.item.file;
    if (!crossed.has(e)) {
      const had = file ? carried?.placed.get(file) : undefined;
      if (had) problems.push(had);
      continue;
    }
    const s = e.stalled!;
    // Nothing recorded at all (a ledger-only story): say so, never "Infinity days".
    e.reason += s.last ? `; stalled: no activity for ${ago(s.idleMs)} (last: ${s.last.source}${s.last.who ? ` by ${s.last.who}` : ''} at ${s.last.time})` : '; stalled: no activity recorded';
    if (file) problems.push(stalledProblem(file, s));
  }
  return { ready, inProgress: col('in_progress'), review: col('review'), blocked: col('blocked'), done: col('done'), dropped: col('dropped'), stalled, criticalPath, entries, problems, ...(stalledChangesAt !== undefined ? { stalledChangesAt } : {}) };
}

/** The `work-stalled` warning of a stalled file (at the top of the file; the project view moves it to its status line). */
export function stalledProblem(file: string, s: Stalled): Problem {
  const quiet = s.last
    ? `In progress but untouched for ${ago(s.idleMs)} (threshold ${ago(s.thresholdMs)}, ${s.kind}); last activity: ${s.last.source}${s.last.who ? ` by ${s.last.who}` : ''} at ${s.last.time}.`
    : `In progress but no activity recorded (threshold ${ago(s.thresholdMs)}, ${s.kind}).`;
  // A planning document left before its last step, every story of its project done: a note.
  const planned = s.planned
    ? ` The ${s.planned.stories === 1 ? 'one story' : `${s.planned.stories} stories`} of its project ${s.planned.stories === 1 ? 'is' : 'are all'} done: the work a planning document plans is done, so this is a note. If the document is finished, record its last step or set its status; if it is the next plan, resume it.`
    : ' Resume it, hand it over, or set its status.';
  return {
    file, range: zero, severity: s.planned ? 'info' : 'warning', code: 'work-stalled',
    message: quiet + planned,
    data: { lastActivity: s.last?.time, who: s.last?.who, idleMs: Number.isFinite(s.idleMs) ? s.idleMs : null, ...(s.planned ? { plannedDone: s.planned.stories } : {}) },
  };
}

function stalledOf(item: ProjectItem, input: FrontierInput, now: number, reg: ProjectRegistry): Stalled {
  const t = input.stalledAfter?.(item.root) ?? DEFAULT_STALLED;
  const session = input.sessions?.get(item.id);
  const kind: keyof StalledThresholds = session ? 'session' : item.kind === 'story' || item.kind === 'ticket' ? 'ledger' : 'workflow';
  let last = input.activity?.get(item.id);
  if (session && (!last || session.time > last.time)) last = session;
  const at = last ? Date.parse(last.time) : NaN;
  const stalled: Stalled = { last, idleMs: Number.isFinite(at) ? Math.max(0, now - at) : Infinity, thresholdMs: t[kind], kind };
  const done = item.planning ? workDone(reg).get(item.root) : undefined;
  if (done) stalled.planned = { stories: done };
  return stalled;
}

const workDoneMemo = new WeakMap<ProjectRegistry, Map<string, number>>();

/** Per root whose stories and tickets are all done or dropped (one at least done): how many. A root with work left is absent. */
function workDone(reg: ProjectRegistry): Map<string, number> {
  const had = workDoneMemo.get(reg);
  if (had) return had;
  const roots = new Map<string, { stories: number; open: boolean; done: boolean }>();
  for (const it of reg.items) {
    if (it.kind === 'workflow') continue;
    const r = roots.get(it.root) ?? { stories: 0, open: false, done: false };
    r.stories++;
    if (!settled(it.state)) r.open = true;
    if (it.state === 'done') r.done = true;
    roots.set(it.root, r);
  }
  const out = new Map<string, number>();
  for (const [root, r] of roots) if (!r.open && r.done) out.set(root, r.stories);
  workDoneMemo.set(reg, out);
  return out;
}

/** Remaining items (neither done nor dropped) that wait on `id`, directly or through others (breadth-first). */
function countDependents(reg: ProjectRegistry, id: string): number {
  const seen = new Set<string>([id]);
  const queue = [id];
  let n = 0;
  for (let q = 0; q < queue.length; q++) {
    for (const e of reg.dependents.get(queue[q]) ?? []) {
      if (seen.has(e.from)) continue;
      seen.add(e.from);
      if (settled(reg.byId.get(e.from)?.state)) continue;
      n++;
      queue.push(e.from);
    }
  }
  return n;
}

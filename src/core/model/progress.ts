import type { Status } from '../types';
import { BMAD_STATUS_MAP } from '../bmad/artifacts';

/**
 * How far a workflow got, as one source (frontmatter, a checkpoint, the orchestrator) records
 * it: the completed steps as a set and the status. Resume and sync compare progress before
 * time, so a source that is behind never overrides one that is ahead, whatever its timestamp.
 */
export interface Progress {
  /** Completed step ids; undefined when the source does not say (nothing to compare). */
  done?: readonly string[];
  /** Waymark status; undefined when the source does not say. */
  status?: Status;
}

/** `ahead`: a has everything b has and more; `diverged`: each has something the other lacks. */
export type ProgressOrder = 'ahead' | 'behind' | 'same' | 'diverged';

/** Status order: blocked is as far as in_progress (it is in_progress with a reason). */
const STATUS_RANK: Record<Status, number> = { created: 0, in_progress: 1, blocked: 1, completed: 2, archived: 3 };

/** A status word from any dialect (`complete`, `in-progress`, `done`) as a Waymark status, else undefined. */
export function toStatus(word: unknown): Status | undefined {
  if (typeof word !== 'string') return undefined;
  return BMAD_STATUS_MAP[word.trim().toLowerCase()];
}

function order(n: number): ProgressOrder {
  return n > 0 ? 'ahead' : n < 0 ? 'behind' : 'same';
}

/** Compares two sources' progress: completed steps as a set first, then the status order. */
export function compareProgress(a: Progress, b: Progress): ProgressOrder {
  let steps: ProgressOrder = 'same';
  if (a.done && b.done) {
    const A = new Set(a.done);
    const B = new Set(b.done);
    const aHasMore = [...A].some((x) => !B.has(x));
    const bHasMore = [...B].some((x) => !A.has(x));
    steps = aHasMore && bHasMore ? 'diverged' : aHasMore ? 'ahead' : bHasMore ? 'behind' : 'same';
  }
  if (steps === 'diverged') return 'diverged';
  const status = a.status && b.status ? order(STATUS_RANK[a.status] - STATUS_RANK[b.status]) : 'same';
  if (steps === 'same') return status;
  if (status === 'same' || status === steps) return steps;
  // More steps done but an earlier status (or the reverse): neither is simply ahead.
  return 'diverged';
}

/**
 * What moving from `from` to `to` would undo: completed steps that would no longer be recorded,
 * and a status that would move back (completed → in_progress re-opens finished work).
 */
export function rewindOf(from: Progress, to: Progress): { steps: string[]; status?: { from: Status; to: Status } } {
  const keep = new Set(to.done ?? []);
  const steps = from.done && to.done ? from.done.filter((s) => !keep.has(s)) : [];
  const status = from.status && to.status && STATUS_RANK[to.status] < STATUS_RANK[from.status] ? { from: from.status, to: to.status } : undefined;
  return { steps, ...(status ? { status } : {}) };
}

/** A rewind in words, for refusals and history: `steps a, b would be un-completed; status completed → in_progress`. */
export function describeRewind(r: ReturnType<typeof rewindOf>): string | undefined {
  const parts: string[] = [];
  if (r.steps.length) parts.push(`completed step${r.steps.length > 1 ? 's' : ''} ${r.steps.join(', ')} would be un-done`);
  if (r.status) parts.push(`status ${r.status.from} would go back to ${r.status.to}`);
  return parts.length ? parts.join('; ') : undefined;
}

/**
 * The completed steps a "continue at STEP" answer implies when the source records no list:
 * every step before STEP in the workflow's order (all of them when the source says done).
 */
export function impliedDone(steps: readonly string[], next: string | undefined, done: boolean): string[] | undefined {
  if (!steps.length) return undefined;
  if (done) return [...steps];
  if (next === undefined) return undefined;
  const i = steps.indexOf(next);
  return i < 0 ? undefined : steps.slice(0, i);
}

import { WaymarkError } from '../errors';
import type { Status } from '../types';

/**
 * The status state machine:
 * created → in_progress ⇄ blocked, in_progress → completed → archived. A blocked workflow goes
 * back through in_progress before it completes: what blocked it is resolved first, visibly.
 * Everything else is refused with a reason.
 */
const ALLOWED: Record<Status, readonly Status[]> = {
  created: ['in_progress'],
  in_progress: ['blocked', 'completed'],
  blocked: ['in_progress'],
  completed: ['archived'],
  archived: [],
};

/** Why `from → to` is refused, or undefined when it is allowed (same status is a no-op, allowed). */
export function transitionRefusal(from: Status | undefined, to: Status): string | undefined {
  if (from === undefined) {
    // No (or an unknown) status yet: any starting point but archived is a fresh start.
    return to === 'archived' ? 'cannot archive a workflow that has no status; set it to completed first' : undefined;
  }
  if (from === to) return undefined;
  if (ALLOWED[from].includes(to)) return undefined;
  if (from === 'archived') return `an archived workflow is final; it cannot move to ${to} (copy it into a new workflow instead)`;
  if (from === 'completed' && (to === 'in_progress' || to === 'blocked')) {
    return `a completed workflow cannot be reopened (${from} → ${to}); start a new workflow or delegate a follow-up`;
  }
  if (from === 'created' && (to === 'blocked' || to === 'completed')) {
    return `a workflow must be started before it can be ${to === 'blocked' ? 'blocked' : 'completed'} (run start first)`;
  }
  if (from === 'blocked' && to === 'completed') {
    return `a blocked workflow cannot be completed directly (blocked → completed); unblock it first (back to in_progress), then complete it`;
  }
  if (to === 'created') return `a workflow cannot go back to created from ${from}`;
  return `status ${from} cannot move to ${to}; allowed: ${ALLOWED[from].join(', ') || 'none'}`;
}

/** Throws WaymarkError('transition') when `from → to` is refused. */
export function assertTransition(from: Status | undefined, to: Status, file?: string): void {
  const why = transitionRefusal(from, to);
  if (why) throw new WaymarkError('transition', `Refused: ${why}.`, file, { from: from ?? null, to });
}

export function allowedTransitions(from: Status | undefined): Status[] {
  if (from === undefined) return ['created', 'in_progress', 'blocked', 'completed'];
  return [...ALLOWED[from]];
}

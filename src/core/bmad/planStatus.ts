/**
 * BMAD v7's plan statuses in build order, and the rules a move between two of them follows: the
 * same rules for `waymark story set-status` on a ticket (planWrite.ts), for an agent writing a
 * plan's `status` directly (agent hooks, protocol/proposal.ts) and for git's merge driver
 * (git/ticketsMerge.ts). Done work is never moved back; done comes after a build finished
 * (in-review or built); a build sent back for rework (in-review or built → in-progress) is
 * allowed; dropping is allowed until the ticket is done, and a dropped ticket may be taken up
 * again. Pure.
 */
import type { ProposalProblem } from '../model/proposal';
import { quoted } from '../model/text';

/** BMAD's plan statuses (`tickets.py` STATUSES), in the order its docs list them. */
export const PLAN_STATUS_WORDS = ['draft', 'ready-for-dev', 'in-progress', 'in-review', 'built', 'done', 'blocked', 'dropped'] as const;

const RANK: Record<string, number> = Object.assign(Object.create(null) as Record<string, number>, {
  draft: 0,
  'ready-for-dev': 1,
  'in-progress': 2,
  blocked: 2,
  'in-review': 3,
  built: 4,
  done: 5,
  dropped: 5,
});

/** How far along a plan status is (blocked is as far as in-progress; dropped as final as done); undefined for a word BMAD does not know. */
export function planStatusRank(word: string | undefined): number | undefined {
  return word === undefined ? undefined : RANK[word];
}

export function isPlanStatus(word: string): boolean {
  return RANK[word] !== undefined;
}

const WORDS = PLAN_STATUS_WORDS.join(', ');

/**
 * What the rules say of a ticket's status moving `from` → `to` ('' : no status yet). `ref` names
 * the ticket in the fixes (`waymark story set-status REF …`). `openTasks`: unticked tasks in the plan.
 */
export function judgePlanStatusMove(from: string, to: string, ref: string, openTasks = 0): ProposalProblem[] {
  const cmd = (s: string, force = false) => `waymark story set-status ${ref} ${s}${force ? ' --force' : ''}`;
  if (!isPlanStatus(to)) {
    return [{ severity: 'error', code: 'status-unknown', message: `${quoted(to)} is not a BMAD plan status (tickets.py would read the ticket as blocked)`, fix: `use one of ${WORDS}: ${cmd('STATUS')}` }];
  }
  if (from === to) return [];
  const out: ProposalProblem[] = [];
  if (from === 'done') {
    out.push({ severity: 'error', code: 'status-transition', message: `ticket ${ref} is done; done → ${to} rewinds completed work`, fix: `leave it done and add a follow-up ticket; to rewind it anyway: ${cmd(to, true)} (recorded in history)` });
    return out;
  }
  if (to === 'done') {
    if (from !== 'in-review' && from !== 'built') {
      out.push({ severity: 'error', code: 'story-done-without-review', message: `ticket ${ref} goes ${from || 'no status'} → done without a finished build (in-review or built)`, fix: `finish the build first (${cmd('in-review')}), then mark it done` });
    }
    if (openTasks > 0) {
      out.push({ severity: 'error', code: 'story-done-tasks-open', message: `ticket ${ref} is set to done with ${openTasks} task${openTasks > 1 ? 's' : ''} of its plan still open (- [ ])`, fix: 'tick the finished tasks ([x]) first, or move the unfinished ones to a follow-up ticket' });
    }
    return out;
  }
  if (to === 'dropped' || from === 'dropped' || from === '') return out;
  const a = RANK[from];
  const b = RANK[to];
  const rework = (from === 'in-review' || from === 'built') && (to === 'in-progress' || to === 'blocked');
  if (a !== undefined && b < a && !rework) {
    out.push({ severity: 'error', code: 'status-transition', message: `ticket ${ref} ${from} → ${to} moves started work back`, fix: `keep ${from}; to move it back anyway: ${cmd(to, true)} (recorded in history)` });
  }
  return out;
}

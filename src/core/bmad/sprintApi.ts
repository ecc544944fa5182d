/**
 * The sprint functions bound to one state core: its clock, write guards (leases, events, trust),
 * observers, actor and session, so a story write from any face takes the core's write path.
 */
import type { SprintApi } from '../api';
import type { WriteGuard, WriteObserver } from '../writeHooks';
import type { Clock, Logger } from '../ports';
import type { WorkspaceContext } from '../store/workspaceContext';
import { checkSprintProposal, loadSprint } from './sprint';
import { checkStoryTask, setStoryStatus } from './storyWrite';
import { setTicketStatus } from './planWrite';
import { applySprintFix, fixSprintProblem } from './sprintFix';

export function createSprintApi(deps: { clock: Clock; guards: WriteGuard[]; observers: WriteObserver[]; actor?: string; session?: string; logger?: Logger; contextOf: (root: string) => Promise<WorkspaceContext> }): SprintApi {
  const who = { actor: deps.actor, session: deps.session, logger: deps.logger };
  return {
    load: (root, options) => loadSprint(root, { now: deps.clock.now(), ...options }),
    setStoryStatus: async (root, key, status, options) => setStoryStatus(root, key, status, { ...who, now: deps.clock.now(), context: await deps.contextOf(root), ...options, guards: [...deps.guards, ...(options?.guards ?? [])], observers: deps.observers }),
    setTicketStatus: async (root, ref, status, options) => setTicketStatus(root, ref, status, { ...who, now: deps.clock.now(), context: await deps.contextOf(root), ...options, guards: [...deps.guards, ...(options?.guards ?? [])], observers: deps.observers }),
    checkStoryTask: async (root, key, task, options) => checkStoryTask(root, key, task, { ...who, now: deps.clock.now(), context: await deps.contextOf(root), ...options, guards: [...deps.guards, ...(options?.guards ?? [])], observers: deps.observers }),
    checkProposal: (root, file, text) => checkSprintProposal(root, file, text, { now: deps.clock.now() }),
    applyFix: (root, problem, options) => applySprintFix(root, problem, { ...who, now: deps.clock.now(), ...options, guards: [...deps.guards, ...(options?.guards ?? [])], observers: deps.observers }),
    fix: (root, file, code, options) => fixSprintProblem(root, file, code, { ...who, now: deps.clock.now(), ...options, guards: [...deps.guards, ...(options?.guards ?? [])], observers: deps.observers }),
  };
}

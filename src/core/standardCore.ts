import type { StateCore, StateCoreInit } from './api';
import { createStateCore } from './engine/stateCore';
import { leaseGuard } from './protocol/leases';
import { eventsGuard, eventsObserver } from './protocol/events';
import { createMemoryObserver } from './memory/observer';

/**
 * The state core as every face of Waymark uses it: orchestrator leases are honoured on every
 * write, every write becomes an event, and completions feed memory (tier 2) unless `memory` is
 * false. The CLI and the VS Code layer both build their core here, so they share one write path.
 */
export function createStandardStateCore(init: StateCoreInit & { memory?: boolean; origin?: string }): StateCore {
  const { memory = true, origin, ...rest } = init;
  const observers = [eventsObserver(), ...(rest.observers ?? [])];
  if (memory) observers.push(createMemoryObserver({ logger: rest.logger, origin }));
  return createStateCore({ ...rest, guards: [leaseGuard(), eventsGuard(), ...(rest.guards ?? [])], observers });
}

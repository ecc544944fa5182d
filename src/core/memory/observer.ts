import * as path from 'node:path';
import type { WriteObserver } from '../api';
import type { Logger } from '../ports';
import { createMemoryService } from './memoryService';
import type { MemoryService, MemoryServiceOptions } from './memoryService';

/* One memory service per workspace root per process: Kuzu must never be opened twice on the
 * same file from one process, so the extension's features and the core's observer share it. */

const services = new Map<string, MemoryService>();

export function sharedMemoryService(root: string, options: Omit<MemoryServiceOptions, 'root'> = {}): MemoryService {
  const key = path.resolve(root);
  let s = services.get(key);
  if (!s) {
    s = createMemoryService({ ...options, root: key });
    services.set(key, s);
  } else if (options.holdMs) {
    s.raiseHold(options.holdMs);
  }
  return s;
}

/** Disposes every shared service (closes their databases). */
export async function disposeSharedMemoryServices(): Promise<void> {
  const all = [...services.values()];
  services.clear();
  for (const s of all) await s.dispose();
}

/**
 * A `WriteObserver` for `StateCoreInit.observers`: tier-2 consolidation and cold-file lines on
 * step/workflow completion. Opens nothing until a write happens; never fails the write.
 */
export function createMemoryObserver(options: { logger?: Logger; holdMs?: number; origin?: string } = {}): WriteObserver {
  return (entry, ctx) => sharedMemoryService(ctx.root, { logger: options.logger, holdMs: options.holdMs ?? 0, origin: options.origin }).onWorkflowEvent(entry, ctx);
}

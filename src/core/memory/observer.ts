import * as path from 'node:path';
import type { WriteObserver } from '../writeHooks';
import type { Logger } from '../ports';
import { createMemoryService } from './memoryService';
import type { MemoryService, MemoryServiceOptions } from './memoryService';

/* One memory service per workspace root per process: Kuzu must never be opened twice on the
 * same file from one process, so every core (and a host's old and new core during a
 * reconfigure) shares it. Cores hold counted references; the last release closes it. */

interface Entry {
  service: MemoryService;
  refs: number;
  /** Taken by `sharedMemoryService` (no reference count): only disposeSharedMemoryServices closes it. */
  pinned: boolean;
}

const services = new Map<string, Entry>();

function entryFor(root: string, options: Omit<MemoryServiceOptions, 'root'>): Entry {
  const key = path.resolve(root);
  let e = services.get(key);
  if (!e) {
    e = { service: createMemoryService({ ...options, root: key }), refs: 0, pinned: false };
    services.set(key, e);
  } else if (options.holdMs) {
    e.service.raiseHold(options.holdMs);
  }
  return e;
}

/** The process's memory service of `root`, kept until disposeSharedMemoryServices. */
export function sharedMemoryService(root: string, options: Omit<MemoryServiceOptions, 'root'> = {}): MemoryService {
  const e = entryFor(root, options);
  e.pinned = true;
  return e.service;
}

/**
 * A counted reference to the process's memory service of `root`; `release()` gives it back and
 * the last release closes the database.
 */
export function acquireMemoryService(root: string, options: Omit<MemoryServiceOptions, 'root'> = {}): { service: MemoryService; release(): Promise<void> } {
  const key = path.resolve(root);
  const e = entryFor(key, options);
  e.refs++;
  let released = false;
  return {
    service: e.service,
    async release() {
      if (released) return;
      released = true;
      e.refs--;
      if (e.refs > 0 || e.pinned || services.get(key) !== e) return;
      services.delete(key);
      await e.service.dispose();
    },
  };
}

/** Disposes every shared service (closes their databases). */
export async function disposeSharedMemoryServices(): Promise<void> {
  const all = [...services.values()];
  services.clear();
  for (const e of all) await e.service.dispose();
}

/**
 * A `WriteObserver` for `StateCoreInit.observers`: tier-2 consolidation and cold-file lines on
 * step/workflow completion. Opens nothing until a write happens; never fails the write.
 */
export function createMemoryObserver(options: { logger?: Logger; holdMs?: number; origin?: string } = {}): WriteObserver {
  return (entry, ctx) => sharedMemoryService(ctx.root, { logger: options.logger, holdMs: options.holdMs ?? 0, origin: options.origin }).onWorkflowEvent(entry, ctx);
}

import * as path from 'node:path';
import type { MemoryApi } from '../api';
import type { WriteObserver } from '../writeHooks';
import { WaymarkError } from '../errors';
import type { Clock, Logger } from '../ports';
import type { MemoryService } from '../memory/memoryService';
import { acquireMemoryService } from '../memory/observer';

/** The memory of one core: references to the process's per-folder services, released by `close()`. */
export class CoreMemory implements MemoryApi {
  private readonly held = new Map<string, { service: MemoryService; release(): Promise<void> }>();
  private closed = false;

  constructor(
    readonly enabled: boolean,
    private readonly opts: { logger: Logger; clock: Clock; origin?: string },
  ) {}

  forRoot(root: string, options: { waitMs?: number; holdMs?: number } = {}): MemoryService {
    if (!this.enabled) throw new WaymarkError('unavailable', 'Memory is off for this core (made with memory: false).');
    if (this.closed) throw new WaymarkError('unavailable', 'The core is closed; its memory with it.');
    const key = path.resolve(root);
    let h = this.held.get(key);
    if (!h) {
      h = acquireMemoryService(key, {
        logger: this.opts.logger,
        clock: this.opts.clock,
        origin: this.opts.origin,
        holdMs: options.holdMs ?? 0,
        ...(options.waitMs !== undefined ? { config: { waitMs: options.waitMs } } : {}),
      });
      this.held.set(key, h);
    } else if (options.holdMs) {
      h.service.raiseHold(options.holdMs);
    }
    return h.service;
  }

  /** Tier-2 consolidation and cold-file lines after each write; opens nothing until one lands. */
  observer(): WriteObserver {
    return (entry, ctx) => (this.closed ? undefined : this.forRoot(ctx.root).onWorkflowEvent(entry, ctx));
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.held.values()];
    this.held.clear();
    for (const h of all) await h.release();
  }
}

import * as path from 'node:path';
import type { MemoryApi } from '../api';
import type { WriteCompanion, WriteObserver } from '../writeHooks';
import { WaymarkError } from '../errors';
import type { Clock, Logger } from '../ports';
import type { MemoryService } from '../memory/memoryService';
import { acquireMemoryService } from '../memory/observer';
import { observersSettled } from './transaction';

/** The memory of one core: references to the process's per-folder services, released by `close()`. */
export class CoreMemory implements MemoryApi {
  private readonly held = new Map<string, { service: MemoryService; release(): Promise<void> }>();
  private closed = false;

  constructor(
    readonly enabled: boolean,
    private readonly opts: { logger: Logger; clock: Clock; origin?: string; batch?: { quietMs?: number; maxMs?: number; maxWrites?: number } },
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

  /**
   * Tier-2 consolidation and cold-file lines after each write; opens nothing until one lands.
   * `deferred`: run after the write answered, writes that follow each other closely in one batch
   * (MemoryService.queueWorkflowEvent; transaction.ts keeps each intent until it is done).
   */
  observer(deferred = false): WriteObserver {
    const ob: WriteObserver = (entry, ctx) => {
      if (!this.closed) {
        const service = this.forRoot(ctx.root);
        return deferred ? service.queueWorkflowEvent(entry, ctx, this.opts.batch) : service.onWorkflowEvent(entry, ctx);
      }
      // Disposed before a deferred consolidation ran: a failure keeps the change's intent, so
      // the next writer of the file runs it.
      if (deferred) throw new WaymarkError('unavailable', `the core was disposed before ${entry.operation} on ${entry.file} was consolidated into memory; the next write of the file does it.`);
      return undefined;
    };
    ob.deferred = deferred;
    return ob;
  }

  /**
   * The cold-file lines (and the hot file's position) of a write, in the write's own change: one
   * intent, one pair of flush rounds, instead of a second change after it. For a face that
   * consolidates before the write returns (the observer, not deferred, does the summaries after).
   */
  companion(): WriteCompanion {
    return {
      files: (root, operation, files) => (this.closed ? [] : this.forRoot(root).companionFiles(operation, files)),
      plan: (lines, texts) => this.forRoot(lines[0].ctx.root).companionPlan(lines, texts),
    };
  }

  async settled(): Promise<void> {
    // The consolidation waiting for more writes to join its batch is done now.
    for (const h of this.held.values()) void h.service.flushWorkflowEvents();
    await observersSettled();
  }

  async close(): Promise<void> {
    await this.settled();
    this.closed = true;
    const all = [...this.held.values()];
    this.held.clear();
    for (const h of all) await h.release();
  }
}

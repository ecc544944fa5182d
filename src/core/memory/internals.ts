/**
 * What the memory service's parts (sessions, milestones, maintenance, status) are handed: the
 * service's internals and the few operations they call back. A low file of types, so the parts
 * never import memoryService.ts, which imports them.
 */
import type { Clock, Logger } from '../ports';
import type { KuzuLoader } from './kuzuStore';
import type { MemoryFiles } from './memoryFiles';
import type { ListFilter, MemoryRecord, RecallItem } from './model';
import type { MemoryConfig, MemoryPaths } from './memoryConfig';
import type { StoreAccess } from './storeAccess';
import type { RecallTarget, RecordInput, RecordResult } from './records';

/** What the memory files beside the service share of it (not part of its public API). */
export interface MemoryInternals {
  readonly root: string;
  readonly paths: MemoryPaths;
  readonly cfg: MemoryConfig;
  readonly files: MemoryFiles;
  readonly access: StoreAccess;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly loader?: KuzuLoader;
  /** Who records when a record names none. */
  readonly origin?: string;
  now(): string;
  /** The setting to name when the memory folder is refused (only when it was configured). */
  dirLabel(): string | undefined;
}

/** The memory service's operations its parts call (MemoryService implements them). */
export interface MemoryOperations {
  record(input: RecordInput, options?: { waitMs?: number; ingest?: boolean }): Promise<RecordResult>;
  /** Waits for the Markdown mirrors written in the background. */
  flushFiles(): Promise<void>;
  recall(t: RecallTarget, options?: { waitMs?: number }): Promise<{ items: RecallItem[]; engine: 'kuzu' | 'journal'; degraded?: string }>;
  list(filter?: ListFilter & { workflowFile?: string }): Promise<{ items: MemoryRecord[]; engine: 'kuzu' | 'journal' }>;
}

// Memory's settings and where its files live: the `memory:` block of .waymark/config.yaml (read
// through the one config schema) merged with what the host passes.
import * as path from 'node:path';
import { readConfigSync } from '../store/configFile';

/** Memory settings (`memory:` in `.waymark/config.yaml`, or passed by the host). Paths relative to the root. */
export interface MemoryConfig {
  /** Folder for the database and inbox. Default `.waymark/memory`. */
  dir?: string;
  hotFile?: string;
  coldFile?: string;
  /** Bytes for Kuzu's buffer pool. Default 64 MB. */
  bufferManagerSize?: number;
  /** How long to wait for the database held by another process before falling back. Default 1500 ms. */
  waitMs?: number;
  /** `journal` never loads Kuzu. */
  engine?: 'kuzu' | 'journal';
}

export const DEFAULT_MEMORY_DIR = '.waymark/memory';

/**
 * The `memory:` block of `.waymark/config.yaml`, read through the one config schema (bad values
 * are dropped there and reported by the scan; a missing or unreadable config gives defaults).
 */
export function loadMemoryConfig(root: string): MemoryConfig {
  const m = readConfigSync(root).memory;
  const cfg: MemoryConfig = {};
  if (m.dir !== undefined) cfg.dir = m.dir;
  if (m.hotFile !== undefined) cfg.hotFile = m.hotFile;
  if (m.coldFile !== undefined) cfg.coldFile = m.coldFile;
  if (m.bufferManagerSize !== undefined) cfg.bufferManagerSize = m.bufferManagerSize;
  if (m.waitMs !== undefined) cfg.waitMs = m.waitMs;
  if (m.engine !== undefined) cfg.engine = m.engine;
  return cfg;
}

/** Absolute paths of a root's memory files. */
export interface MemoryPaths {
  dir: string;
  db: string;
  inbox: string;
  hot: string;
  cold: string;
  session: string;
  exportMeta: string;
}

export function memoryPaths(root: string, cfg: MemoryConfig): MemoryPaths {
  const dir = path.resolve(root, cfg.dir ?? DEFAULT_MEMORY_DIR);
  return {
    dir,
    db: path.join(dir, 'graph.kuzu'),
    inbox: path.join(dir, 'inbox.jsonl'),
    hot: path.resolve(root, cfg.hotFile ?? path.join(dir, 'session_state.md')),
    cold: path.resolve(root, cfg.coldFile ?? path.join(dir, 'orchestrator_memory.md')),
    session: path.join(dir, 'session.json'),
    exportMeta: path.join(dir, 'last-export.json'),
  };
}

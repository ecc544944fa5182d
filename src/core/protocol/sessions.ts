/**
 * Sessions as the protocol sees them: the running session (started with `waymark session
 * start`, kept in the memory folder's session.json) applies to every later write that names
 * none, and a session's start and end are markers in the history of the workflows it covers
 * and events in the log.
 */
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import { readConfigSync } from '../store/configFile';
import { readInternalIfExists } from '../store/safePath';
import { protocolPaths, relPath } from './paths';
import { appendEvent } from './events';
import { recordInHistory } from './timeline';

/** The session `waymark session start` began and `session end` has not ended. */
export interface RunningSession {
  id: string;
  startedAt: string;
  objective?: string;
  /** Workflow files (relative to the root) whose history got the start marker. */
  workflows?: string[];
}

/**
 * Where session.json lives: the configured memory folder, else `.waymark/memory`. A writer that
 * already holds the workspace's config passes its `memory.dir` (`memoryDir`; null: none set), so
 * a write does not read the config file again.
 */
export function sessionFile(root: string, memoryDir?: string | null): string {
  let dir: string | undefined;
  if (memoryDir !== undefined) {
    dir = memoryDir ?? undefined;
  } else {
    try {
      dir = readConfigSync(root).memory.dir;
    } catch {
      dir = undefined; // an unreadable config: the scan reports it; the default folder here
    }
  }
  return path.join(dir ? path.resolve(root, dir) : protocolPaths(root).memory, 'session.json');
}

/** The running session of a root, or undefined (none, or an unreadable session.json); `memoryDir` as sessionFile's. */
export function runningSession(root: string, memoryDir?: string | null): RunningSession | undefined {
  try {
    const text = readInternalIfExists(sessionFile(root, memoryDir));
    if (text === undefined) return undefined;
    const v = JSON.parse(text) as RunningSession;
    return v && typeof v.id === 'string' && v.id ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes a `session.start` / `session.end` marker into the history of each workflow file (under
 * its lock, as every history line) and one event. Files that no longer exist are skipped.
 */
export async function markSession(
  root: string,
  operation: 'session.start' | 'session.end',
  who: { actor?: string; session: string },
  files: string[],
  detail: Record<string, unknown>,
  options: { clock?: Clock; logger?: Logger } = {},
): Promise<string[]> {
  const marked: string[] = [];
  for (const f of files) {
    const abs = path.resolve(root, f);
    try {
      await recordInHistory(root, abs, operation, { agent: who.actor ?? 'cli', session: who.session }, detail, options);
      marked.push(relPath(root, abs));
    } catch (e) {
      options.logger?.warn(`[protocol] no ${operation} marker for ${abs}: ${String(e)}`);
    }
  }
  appendEvent(root, { type: operation, actor: who.actor, session: who.session, data: { ...detail, files: marked } });
  return marked;
}

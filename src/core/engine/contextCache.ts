import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import { silentLogger, systemClock } from '../ports';
import { loadWorkspaceContext, type WorkspaceContext } from '../store/workspaceContext';
import { rootAmong } from './roots';

/** Where a workspace context is looked up: the core's cache, or a standalone one for tests. */
export interface ContextSource {
  /** The context of a workspace folder (config, definitions, BMAD catalog). */
  contextOfRoot(root: string): Promise<WorkspaceContext>;
}

/**
 * What a context is built from, cheaply: the config file, the definitions and the BMAD
 * manifest (size and mtime of each). A long-lived cache compares it to see edits to them.
 */
function contextFingerprint(root: string): string {
  const parts: string[] = [];
  const stamp = (p: string) => {
    try {
      const st = fs.statSync(p);
      parts.push(`${p}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push(`${p}:-`);
    }
  };
  stamp(path.join(root, '.waymark', 'config.yaml'));
  const defs = path.join(root, '.waymark', 'workflows');
  stamp(defs);
  try {
    for (const name of fs.readdirSync(defs).sort()) stamp(path.join(defs, name));
  } catch {
    // no definitions folder
  }
  for (const d of ['_bmad', '.bmad', 'bmad', '.bmad-core']) stamp(path.join(root, d));
  stamp(path.join(root, '_bmad', '_config', 'workflow-manifest.csv'));
  stamp(path.join(root, '_bmad', '_config', 'skill-manifest.csv'));
  return parts.join('|');
}

export interface ContextCacheOptions {
  overrides?: Record<string, unknown>;
  logger?: Logger;
  clock?: Clock;
  /**
   * Re-load a folder's context when its config, definitions or BMAD manifest changed since it
   * was loaded (a stat per lookup). Off for a core, whose host rebuilds it on such changes.
   */
  revalidate?: boolean;
  /** Contexts already loaded (with the same overrides), by absolute root. */
  preloaded?: ReadonlyMap<string, WorkspaceContext>;
}

/**
 * The one workspace-context cache: one context per workspace folder, loaded once (concurrent
 * lookups share the load) and shared by the scan, the reader, the write path and the protocol.
 */
export class ContextCache implements ContextSource {
  /** Loaded contexts by absolute root; the scan reads and fills it. */
  readonly loaded = new Map<string, WorkspaceContext>();
  private readonly loads = new Map<string, { fingerprint?: string; context: Promise<WorkspaceContext> }>();
  private readonly logger: Logger;
  private readonly clock: Clock;

  constructor(
    readonly roots: readonly string[],
    private readonly options: ContextCacheOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    for (const [root, context] of options.preloaded ?? []) if (roots.includes(root)) this.loaded.set(root, context);
  }

  rootFor(file: string): string {
    return rootAmong(this.roots, file);
  }

  contextFor(file: string): Promise<WorkspaceContext> {
    return this.contextOfRoot(this.rootFor(file));
  }

  contextOfRoot(rootPath: string): Promise<WorkspaceContext> {
    const root = path.resolve(rootPath);
    const fingerprint = this.options.revalidate ? contextFingerprint(root) : undefined;
    const have = this.loaded.get(root);
    if (have && !this.options.revalidate) return Promise.resolve(have);
    const pending = this.loads.get(root);
    if (pending && pending.fingerprint === fingerprint) return pending.context;
    const context = loadWorkspaceContext(root, this.options.overrides, { now: () => this.clock.now() }).then(({ context, problems }) => {
      for (const pr of problems) this.logger.warn(`[config] ${pr.file}: ${pr.message}`);
      this.loaded.set(root, context);
      return context;
    });
    this.loads.set(root, { fingerprint, context });
    return context;
  }
}

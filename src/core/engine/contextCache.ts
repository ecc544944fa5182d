import type { Clock, Logger } from '../ports';
import { loadWorkspaceContext, type WorkspaceContext } from '../store/workspaceContext';
import { rootAmong } from './roots';

/**
 * The core's workspace contexts (config, definitions, BMAD catalog), one per workspace folder,
 * loaded once and shared by the scan, the reader and the write path.
 */
export class ContextCache {
  /** Loaded contexts by absolute root; the scan reads and fills it. */
  readonly loaded = new Map<string, WorkspaceContext>();
  private readonly loads = new Map<string, Promise<WorkspaceContext>>();

  constructor(
    readonly roots: readonly string[],
    private readonly overrides: Record<string, unknown> | undefined,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  rootFor(file: string): string {
    return rootAmong(this.roots, file);
  }

  async contextFor(file: string): Promise<WorkspaceContext> {
    const root = this.rootFor(file);
    const have = this.loaded.get(root);
    if (have) return have;
    let p = this.loads.get(root);
    if (!p) {
      p = loadWorkspaceContext(root, this.overrides, { now: () => this.clock.now() }).then(({ context, problems }) => {
        for (const pr of problems) this.logger.warn(`[config] ${pr.file}: ${pr.message}`);
        this.loaded.set(root, context);
        return context;
      });
      this.loads.set(root, p);
    }
    return p;
  }
}

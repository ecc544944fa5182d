// The extension's one way to the memory store (`core.memory`, owned and closed by the core).
// Kuzu opens lazily on first use, never at activation; in Restricted Mode it is never opened at all, because opening it writes
// `.waymark/memory/*` and an untrusted workspace changes no file.
import * as path from 'node:path';
import { WaymarkError, errorMessage } from '../core/index';
import type { MemoryService } from '../core/index';
import type { ExtensionModel } from './model';
import { escapeMd } from './presentation';

export class MemoryAccess {
  constructor(private readonly model: ExtensionModel) {}

  /** False in Restricted Mode: memory stays closed. */
  get available(): boolean {
    return this.model.canWrite;
  }

  /** The folder a memory belongs to: the workflow's, else the first folder. */
  rootFor(file?: string): string | undefined {
    if (file) {
      const st = this.model.get(file);
      if (st) return st.root;
      const hit = this.model.roots.filter((r) => file === r || file.startsWith(r + path.sep)).sort((a, b) => b.length - a.length)[0];
      if (hit) return hit;
    }
    return this.model.roots[0];
  }

  /** The memory service of `root`, owned by the current core; callers check `available` first (the runner does). */
  service(root: string): MemoryService {
    if (!this.available) throw new WaymarkError('unavailable', 'Memory stays closed in Restricted Mode: opening it writes .waymark/memory.');
    return this.model.core.memory.forRoot(root, { waitMs: 1000, holdMs: 3000 });
  }

  /** Lines for the step hover: the step's decisions and learnings (most relevant first). */
  async hoverLines(file: string, stepId: string): Promise<string[]> {
    const root = this.rootFor(file);
    if (!this.available || !root) return [];
    try {
      const r = await this.service(root).recall({ workflow: file, step: stepId, types: ['decision', 'learning'], limit: 6 }, { waitMs: 300 });
      return r.items
        .filter((i) => i.distance === 0)
        .map((i) => `${i.memory.type === 'decision' ? '$(law)' : '$(lightbulb)'} ${short(i.memory.text)}${i.memory.rationale ? ` — ${short(i.memory.rationale)}` : ''}${i.superseded ? ' _(superseded)_' : ''}`);
    } catch (e) {
      this.model.log.warn(`[memory] hover: ${errorMessage(e)}`);
      return [];
    }
  }

  /** `memory: ok (…)` / `memory: degraded: <reason> …` for the status bar (first folder); undefined when closed. */
  async statusLine(): Promise<string | undefined> {
    const root = this.model.roots[0];
    if (!this.available || !root) return undefined;
    try {
      return (await this.service(root).status({ waitMs: 200 })).line;
    } catch (e) {
      return `memory: degraded: ${errorMessage(e)}`;
    }
  }
}

function short(s: string): string {
  return escapeMd(s).slice(0, 300);
}

/**
 * What came back from the tracker, mirrored — never read back into state. A workflow file with
 * frontmatter gets a `tracker: {store, id, url, status, syncedHash}` block (the state hash leaves
 * it out; written by the pipeline's writeNonStateKey, a one-file transaction of the engine with no
 * history line: lock by real path, intent journal, compare-and-swap, atomic rename, only
 * that block's lines). A file without frontmatter (a BMAD story: `Status:` in the body), a
 * ledger-only story, an epic, and any store but the default keep theirs in the sidecar
 * `.waymark/tracker/<store>.json`: Waymark does not inject frontmatter into another format.
 */
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomicWrite';
import { readInternalIfExists, safeMkdir, safeWritePath } from '../store/safePath';

export interface TrackerMirror {
  store: string;
  id: string;
  url?: string;
  status?: string;
  /** Hash of the ticket as last sent (`partial:` prefix when a link was still missing). */
  syncedHash: string;
}

/** The frontmatter block's value, when it is one for `store`. */
export function mirrorFromFrontmatter(data: Record<string, unknown> | undefined, store: string): TrackerMirror | undefined {
  const t = data?.tracker;
  if (!t || typeof t !== 'object' || Array.isArray(t)) return undefined;
  const m = t as Record<string, unknown>;
  if (m.store !== store || (typeof m.id !== 'string' && typeof m.id !== 'number') || typeof m.syncedHash !== 'string') return undefined;
  return { store, id: String(m.id), url: typeof m.url === 'string' ? m.url : undefined, status: typeof m.status === 'string' ? m.status : undefined, syncedHash: m.syncedHash };
}

/** The block as written to frontmatter (keys in a fixed order). */
export function mirrorBlock(m: TrackerMirror): Record<string, string> {
  return { store: m.store, id: m.id, ...(m.url ? { url: m.url } : {}), ...(m.status ? { status: m.status } : {}), syncedHash: m.syncedHash };
}

export function sidecarFile(root: string, store: string): string {
  return path.join(root, '.waymark', 'tracker', `${store}.json`);
}

/** The sidecar map of one store: Waymark id → mirror. Written atomically. */
export class SidecarMirrors {
  private map: Record<string, TrackerMirror>;
  private dirty = false;
  readonly file: string;

  constructor(
    readonly root: string,
    readonly store: string,
  ) {
    this.file = sidecarFile(root, store);
    this.map = Object.create(null) as Record<string, TrackerMirror>;
    try {
      const text = readInternalIfExists(this.file, 'tracker mirror');
      const v = text ? (JSON.parse(text) as { items?: Record<string, TrackerMirror> }) : undefined;
      if (v?.items && typeof v.items === 'object') for (const [k, m] of Object.entries(v.items)) if (m && typeof m.id === 'string') this.map[k] = m;
    } catch {
      // damaged: every ticket is found again by its id line (reconcile), nothing is duplicated
    }
  }

  get(id: string): TrackerMirror | undefined {
    return this.map[id];
  }

  set(id: string, m: TrackerMirror): void {
    this.map[id] = m;
    this.dirty = true;
  }

  save(): void {
    if (!this.dirty) return;
    const real = safeWritePath(this.root, this.file, 'tracker mirror');
    safeMkdir(this.root, path.dirname(real));
    writeFileAtomic(real, JSON.stringify({ store: this.store, items: this.map }, null, 1) + '\n', { root: this.root, what: 'tracker mirror' });
    this.dirty = false;
  }
}

/**
 * What came back from the tracker, mirrored — never read back into state. A workflow file with
 * frontmatter gets a `tracker: {store, id, url, status, syncedHash}` block (the state hash leaves
 * it out; written by the pipeline's writeNonStateKey, a one-file transaction of the engine with no
 * history line: lock by real path, intent journal, compare-and-swap, atomic rename, only
 * that block's lines). A file without frontmatter (a BMAD story: `Status:` in the body), a
 * ledger-only story, an epic, and any store but the default keep theirs in the sidecar
 * `.waymark/tracker/<store>.json` (written by the same engine, merged under its lock): Waymark
 * does not inject frontmatter into another format.
 */
import * as path from 'node:path';
import { runTransaction, settleTransactions } from '../engine/transaction';
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

/** The sidecar map of one store: Waymark id → mirror. */
export class SidecarMirrors {
  private map: Record<string, TrackerMirror>;
  /** Ids set since the last save (only those are merged into the file as it is then). */
  private changed = new Set<string>();
  readonly file: string;

  constructor(
    readonly root: string,
    readonly store: string,
  ) {
    this.file = sidecarFile(root, store);
    this.map = parseSidecar(readInternalIfExists(this.file, 'tracker mirror'));
  }

  /** The sidecar of one store, read once a killed save of it was completed (or dropped). */
  static async load(root: string, store: string): Promise<SidecarMirrors> {
    await settleTransactions({ root, now: () => new Date() }, [sidecarFile(root, store)]);
    return new SidecarMirrors(root, store);
  }

  get(id: string): TrackerMirror | undefined {
    return this.map[id];
  }

  set(id: string, m: TrackerMirror): void {
    this.map[id] = m;
    this.changed.add(id);
  }

  /**
   * Writes the ids set since the last save through the one transaction (engine/transaction.ts,
   * no history line: a mirror is not state): locked by real path, the file re-read and merged,
   * journaled, renamed atomically.
   */
  async save(): Promise<void> {
    if (!this.changed.size) return;
    safeMkdir(this.root, path.dirname(safeWritePath(this.root, this.file, 'tracker mirror')));
    const ids = [...this.changed];
    await runTransaction({ root: this.root, now: () => new Date() }, {
      operation: 'mirror-sidecar',
      files: [this.file],
      plan: (texts) => {
        const items = parseSidecar(texts.get(this.file));
        for (const id of ids) items[id] = this.map[id];
        const text = JSON.stringify({ store: this.store, items }, null, 1) + '\n';
        return { writes: [{ file: this.file, text, entry: null }], result: () => undefined };
      },
    });
    for (const id of ids) this.changed.delete(id);
  }
}

function parseSidecar(text: string | undefined): Record<string, TrackerMirror> {
  const map = Object.create(null) as Record<string, TrackerMirror>;
  try {
    const v = text ? (JSON.parse(text) as { items?: Record<string, TrackerMirror> }) : undefined;
    if (v?.items && typeof v.items === 'object') for (const [k, m] of Object.entries(v.items)) if (m && typeof m.id === 'string') map[k] = m;
  } catch {
    // damaged: every ticket is found again by its id line (reconcile), nothing is duplicated
  }
  return map;
}

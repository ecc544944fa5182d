/**
 * The outbox: changes waiting for a tracker that is down, in `.waymark/outbox/<store>.jsonl`.
 * Append-only JSONL through the store's one append (history.ts appendJsonLine: one O_APPEND
 * write, fsync, a torn last line moved aside on the next append), so a crash loses at most the
 * line being written. De-duplicated by Waymark id: a change queued twice keeps its first place
 * (and its newest hash). Drained in the order queued. Once nothing is pending, the file is
 * emptied (atomically) so it never grows without bound. Callers hold the store's run lock.
 */
import * as path from 'node:path';
import { appendJsonLine } from '../store/history';
import { writeFileAtomic } from '../store/atomicWrite';
import { readInternalIfExists, safeWritePath } from '../store/safePath';

export interface OutboxEntry {
  id: string;
  /** The projected ticket's hash when it was queued. */
  hash: string;
  /** When it was first queued (ISO). */
  time: string;
  reason?: string;
}

type Line = { op: 'queue'; id: string; hash: string; time: string; reason?: string } | { op: 'sent' | 'drop'; id: string; time: string };

const SAFE_NAME = /^[A-Za-z0-9._-]+$/;

export function outboxFile(root: string, store: string): string {
  if (!SAFE_NAME.test(store)) throw new Error(`store name ${JSON.stringify(store)} must be letters, digits, . _ -`);
  return path.join(root, '.waymark', 'outbox', `${store}.jsonl`);
}

export class Outbox {
  readonly file: string;

  constructor(
    readonly root: string,
    readonly store: string,
  ) {
    this.file = outboxFile(root, store);
  }

  /** Pending changes in the order first queued (one per id). */
  pending(): OutboxEntry[] {
    const text = readInternalIfExists(this.file, 'outbox');
    if (!text) return [];
    const byId = new Map<string, OutboxEntry>();
    for (const raw of text.split('\n')) {
      if (!raw.startsWith('{')) continue;
      let l: Line;
      try {
        l = JSON.parse(raw) as Line;
      } catch {
        continue; // a torn last line: repaired on the next append
      }
      if (typeof l.id !== 'string') continue;
      if (l.op === 'queue') {
        const had = byId.get(l.id);
        if (had) had.hash = l.hash;
        else byId.set(l.id, { id: l.id, hash: l.hash, time: l.time, reason: l.reason });
      } else if (l.op === 'sent' || l.op === 'drop') byId.delete(l.id);
    }
    return [...byId.values()];
  }

  /** Queues changes not already pending with the same hash. Returns how many lines were added. */
  queue(entries: { id: string; hash: string; reason?: string }[], now: Date): number {
    const pending = new Map(this.pending().map((e) => [e.id, e]));
    let n = 0;
    for (const e of entries) {
      if (pending.get(e.id)?.hash === e.hash) continue;
      appendJsonLine(this.root, this.file, { op: 'queue', id: e.id, hash: e.hash, time: now.toISOString(), ...(e.reason ? { reason: e.reason } : {}) }, 'outbox');
      pending.set(e.id, { id: e.id, hash: e.hash, time: now.toISOString() });
      n++;
    }
    return n;
  }

  /** Marks a queued change as sent (or dropped: its item is gone). */
  done(id: string, now: Date, op: 'sent' | 'drop' = 'sent'): void {
    appendJsonLine(this.root, this.file, { op, id, time: now.toISOString() }, 'outbox');
  }

  /** Empties the file once nothing is pending (atomic rename: a reader sees all or nothing). */
  compact(): void {
    if (this.pending().length) return;
    const text = readInternalIfExists(this.file, 'outbox');
    if (!text) return;
    writeFileAtomic(safeWritePath(this.root, this.file, 'outbox'), '', { root: this.root, what: 'outbox' });
  }
}

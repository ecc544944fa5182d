// Keeping memory small and portable: export to one JSON file; prune the hot file into the cold
// one, archive a large cold file, and forget consolidated observations past an age.
import * as path from 'node:path';
import { safeMkdir } from '../store/safePath';
import { appendJournal } from './journal';
import type { KuzuStore } from './kuzuStore';
import { COLD_LIMIT, EXPORT_LIMIT, HOT_LIMIT } from './memoryFiles';
import type { JournalOp, StoreCounts } from './model';
import type { MemoryInternals, MemoryOperations } from './internals';

export function kb(n: number): string {
  return `${Math.round(n / 102.4) / 10} KB`;
}

/** Writes every memory, entity and relation to one JSON file (default `<memory dir>/export.json`). */
export async function exportAll(m: MemoryInternals, out?: string): Promise<{ file: string; bytes: number; counts: StoreCounts; warning?: string; engine: 'kuzu' | 'journal' }> {
  const { value, engine } = await m.access.serial(() =>
    m.access.withStore(async (s) => ({ memories: await s.list(), entities: await s.entities(), relations: await s.relations(), counts: await s.counts() })),
  );
  const file = path.resolve(m.root, out ?? path.join(m.paths.dir, 'export.json'));
  const doc = { format: 'waymark-memory', version: 1, exportedAt: m.now(), memories: value.memories, entities: value.entities, relations: value.relations };
  const text = JSON.stringify(doc, null, 1) + '\n';
  const { writeFileAtomic } = await import('../store/atomicWrite');
  // Both folders first (the export's and the memory folder for its record, which a workspace with
  // no memory yet lacks): a folder that cannot be made refuses before the export is written.
  safeMkdir(m.root, path.dirname(file), out === undefined ? m.dirLabel() : '--out');
  safeMkdir(m.root, path.dirname(m.paths.exportMeta), m.dirLabel());
  writeFileAtomic(file, text, { root: m.root, what: 'memory export' });
  const bytes = Buffer.byteLength(text);
  writeFileAtomic(m.paths.exportMeta, JSON.stringify({ bytes, at: doc.exportedAt }) + '\n', { root: m.root, what: 'memory export record' });
  return { file, bytes, counts: value.counts, engine, warning: bytes > EXPORT_LIMIT ? `export is ${kb(bytes)} (over 500 KB): consider 'waymark memory prune --older-than 30'` : undefined };
}


/**
 * Keeps the files small: hot working memory beyond `keepHot` entries moves to the cold file;
 * a cold file over 100 KB is archived intact and restarted; with `olderThanDays`, consolidated
 * observations older than that leave the graph (their summaries stay).
 */
export async function prune(m: MemoryInternals, svc: MemoryOperations, args: { keepHot?: number; olderThanDays?: number; force?: boolean } = {}): Promise<{ movedFromHot: number; coldArchive?: string; forgotten: number }> {
  await svc.flushFiles();
  const keep = args.keepHot ?? 20;
  const day = m.now().slice(0, 10);
  let moved: string[] = [];
  const sizes = m.files.sizes();
  if (args.force || sizes.hot > HOT_LIMIT) {
    await m.files.updateBoth((h) => {
      if (h.working.length > keep) moved = h.working.splice(0, h.working.length - keep);
      return moved.map((m) => ({ section: 'Learned context' as const, line: `${day} ${m}` }));
    });
  }
  let coldArchive: string | undefined;
  if (m.files.sizes().cold > COLD_LIMIT) coldArchive = await m.files.archiveCold(m.now().replace(/[:.]/g, '-'));
  let forgotten = 0;
  if (args.olderThanDays !== undefined) {
    const cutoff = new Date(m.clock.now().getTime() - args.olderThanDays * 86_400_000).toISOString();
    forgotten = await m.access.serial(async () => {
      const { value } = await m.access.withStore(async (s) => {
        const all = await s.list({ types: ['learning', 'summary'] });
        const consolidated = new Set(all.filter((m) => m.type === 'summary').flatMap((m) => m.consolidates ?? []));
        const ids = all.filter((m) => m.type === 'learning' && m.tier === 2 && consolidated.has(m.id) && m.createdAt < cutoff).map((m) => m.id);
        if (!ids.length) return 0;
        const op: JournalOp = { v: 1, op: 'forget', rec: { ids } };
        appendJournal(m.paths.inbox, [op], m.root);
        await s.ingest([op]);
        if (s.engine === 'kuzu') await m.access.ingestPending(s as KuzuStore);
        return ids.length;
      });
      return value;
    });
  }
  return { movedFromHot: moved.length, coldArchive, forgotten };
}

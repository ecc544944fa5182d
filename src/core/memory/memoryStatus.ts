// Memory's status: which engine answers, what it holds, how big its files are, what to do.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError, errorMessage } from '../errors';
import { defaultKuzuLoader, SCHEMA_VERSION } from './kuzuStore';
import { COLD_LIMIT, EXPORT_LIMIT, HOT_LIMIT } from './memoryFiles';
import type { StoreCounts } from './model';
import { kb } from './maintenance';
import { currentSession, type SessionInfo } from './sessions';
import type { MemoryInternals, MemoryOperations } from './internals';

export interface MemoryStatus {
  state: 'ok' | 'degraded';
  engine: 'kuzu' | 'journal';
  /** Why degraded. */
  reason?: string;
  cause?: string;
  schemaVersion?: number;
  counts: StoreCounts;
  /** Journal bytes not yet in the database. */
  pendingBytes: number;
  badLines: number;
  session?: SessionInfo;
  files: { dir: string; db: string; inbox: string; hot: string; cold: string };
  sizes: { hot: number; cold: number; inbox: number; db: number; lastExport?: number };
  warnings: string[];
  /** One line for status bars: `memory: ok (kuzu, ...)` / `memory: degraded: reason`. */
  line: string;
}

/** How memory stands: engine, counts, sizes, warnings, and one line for status bars. */
export async function memoryStatus(m: MemoryInternals, svc: MemoryOperations, options: { waitMs?: number } = {}): Promise<MemoryStatus> {
  await svc.flushFiles();
  const { value, engine } = await m.access.serial(() =>
    m.access.withStore(async (s) => ({ counts: await s.counts(), schema: s.engine === 'kuzu' ? Number(await s.getMeta('schemaVersion')) : undefined }), options.waitMs),
  );
  const size = (f: string) => {
    try {
      return fs.statSync(f).size;
    } catch {
      return 0;
    }
  };
  const inbox = size(m.paths.inbox);
  let pending = 0;
  if (engine === 'journal') pending = inbox;
  const fsizes = m.files.sizes();
  let lastExport: number | undefined;
  try {
    lastExport = JSON.parse(fs.readFileSync(m.paths.exportMeta, 'utf8')).bytes;
  } catch {
    lastExport = undefined;
  }
  const warnings: string[] = [];
  if (fsizes.hot > HOT_LIMIT) warnings.push(`hot memory ${m.paths.hot} is ${kb(fsizes.hot)} (over 10 KB): run 'waymark memory prune' to move it to the cold file`);
  if (fsizes.cold > COLD_LIMIT) warnings.push(`cold memory ${m.paths.cold} is ${kb(fsizes.cold)} (over 100 KB): run 'waymark memory prune' to archive it`);
  if (lastExport !== undefined && lastExport > EXPORT_LIMIT) warnings.push(`the last graph export was ${kb(lastExport)} (over 500 KB): run 'waymark memory prune --older-than 30' to drop consolidated observations`);
  if (m.access.badLines) warnings.push(`${m.access.badLines} unreadable inbox line(s) were skipped`);
  // Nothing recorded yet opens no database; still say when none could ever be opened here
  // (a package without Kuzu for this platform), so the user learns it before recording.
  if (m.access.nothingYet && m.cfg.engine !== 'journal' && !process.env.WAYMARK_MEMORY_ENGINE) {
    try {
      (m.loader ?? defaultKuzuLoader)();
    } catch (e) {
      m.access.lastFailure = new WaymarkError('unavailable', `${errorMessage(e)}; learnings are kept in the journal`, undefined, { cause: 'no-engine' });
    }
  }
  const engineDown = engine === 'journal' && (!m.access.nothingYet || m.access.lastFailure?.data?.cause === 'no-engine');
  const fileTrouble = memoryFileHealth(m);
  const degraded = engineDown || fileTrouble !== undefined;
  const c = value.counts;
  const what = `${c.decision} decisions, ${c.learning} learnings, ${c.summary} summaries, ${c.entity} entities`;
  const reason = fileTrouble ?? m.access.lastFailure?.message ?? 'database unavailable';
  const line = m.access.nothingYet && !degraded
    ? 'memory: ok (nothing recorded yet)'
    : degraded
      ? `memory: degraded: ${reason} (${engine === 'journal' ? 'using the journal' : 'kuzu'}: ${what})`
      : `memory: ok (kuzu, ${what})`;
  return {
    state: degraded ? 'degraded' : 'ok',
    engine,
    reason: degraded ? reason : undefined,
    cause: fileTrouble ? 'memory-file' : degraded ? String(m.access.lastFailure?.data?.cause ?? 'unknown') : undefined,
    schemaVersion: value.schema ?? (engine === 'kuzu' ? SCHEMA_VERSION : undefined),
    counts: c,
    pendingBytes: pending,
    badLines: m.access.badLines,
    session: currentSession(m),
    files: { dir: m.paths.dir, db: m.paths.db, inbox: m.paths.inbox, hot: m.paths.hot, cold: m.paths.cold },
    sizes: { hot: fsizes.hot, cold: fsizes.cold, inbox, db: size(m.paths.db), lastExport },
    warnings,
    line,
  };
}

/** Why `file` cannot be written (rewritten atomically beside itself), or undefined. */
function unwritable(file: string): string | undefined {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file);
  } catch {
    st = undefined;
  }
  if (st && !st.isFile()) return `is ${st.isDirectory() ? 'a folder' : 'not a regular file'}; remove it (Waymark recreates the file)`;
  if (st) {
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch {
      return 'is read-only; chmod u+w it';
    }
  }
  // Atomic rewrites need the folder writable too (a missing folder is created when needed).
  let dir = path.dirname(file);
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return `cannot be written: its folder ${dir} is read-only; chmod u+w it`;
  }
  return undefined;
}

/** Whether the hot and cold Markdown files can be written; undefined when fine, else the reason. */
export function memoryFileHealth(m: MemoryInternals): string | undefined {
  for (const [what, file] of [['cold memory file', m.paths.cold], ['hot memory file', m.paths.hot]] as const) {
    const why = unwritable(file);
    if (why) return `Auto-memory unavailable — learnings will not persist: the ${what} ${file} ${why}`;
  }
  return undefined;
}

// Sessions (tier 3): the running session's file, the hot file reset at start, and at the end a
// summary memory with the hot file's discoveries moved to the cold file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WorkflowState } from '../types';
import { markSession } from '../protocol/sessions';
import { contextFor, listWorkflowFiles, readWorkflowFile } from '../protocol/states';
import { frontmatterResume } from '../model/resume';
import { readInternalIfExists, safeMkdir } from '../store/safePath';
import { newId, relPath } from './links';
import type { MemoryRecord, RecallItem } from './model';
import type { MemoryInternals, MemoryOperations } from './internals';

export interface SessionInfo {
  id: string;
  startedAt: string;
  objective?: string;
}

/** The running session (tier 3), from its file; undefined when none runs. */
export function currentSession(m: MemoryInternals): SessionInfo | undefined {
  try {
    const s = JSON.parse(readInternalIfExists(m.paths.session, 'memory session') ?? '');
    if (s && typeof s.id === 'string' && typeof s.startedAt === 'string') return s as SessionInfo;
  } catch {
    // no session running
  }
  return undefined;
}


/** Starts a session: hot file reset for it, and what memory says about the work at hand. */
export async function sessionStart(m: MemoryInternals, svc: MemoryOperations, args: { objective?: string; workflow?: string; limit?: number } = {}): Promise<{ session: SessionInfo; previous?: SessionInfo; recall: RecallItem[]; engine: 'kuzu' | 'journal' }> {
  await svc.flushFiles();
  const previous = currentSession(m);
  const stamp = m.now();
  const session: SessionInfo = { id: `s-${stamp.replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${newId('x').slice(-4)}`, startedAt: stamp };
  if (args.objective) session.objective = args.objective;
  safeMkdir(m.root, m.paths.dir, m.dirLabel());
  // The workflows the session covers get its start marker (and its end marker later): the
  // one named, else every workflow under way.
  const covered = args.workflow ? [args.workflow] : (await listWorkflowFiles(m.root)).filter((f) => f.state && (f.state.status === 'in_progress' || f.state.status === 'blocked')).map((f) => f.file);
  const where = args.workflow ? hotPosition(readWorkflowFile(await contextFor(m.root), path.resolve(m.root, args.workflow)).state) : {};
  // The session record and the hot file reset for it are one change (engine/transaction.ts).
  const record = { file: m.paths.session, text: JSON.stringify({ ...session, workflows: covered.map((f) => relPath(m.root, f)) }, null, 2) + '\n' };
  await m.files.updateHot((h) => {
    h.session = session.id;
    h.started = stamp;
    h.objective = args.objective ?? '';
    h.working = [];
    h.tasks = h.tasks ?? [];
    h.waiting = h.waiting ?? [];
    // The workflow the session is on and where it stands: tier-3 resume reads them from here.
    h.fields = args.workflow ? { activeWorkflow: relPath(m.root, args.workflow), ...where } : {};
  }, record);
  await markSession(m.root, 'session.start', { actor: m.origin, session: session.id }, covered, args.objective ? { objective: args.objective } : {}, { clock: m.clock, logger: m.logger });
  const r = await svc.recall({ workflow: args.workflow, limit: args.limit ?? 15 });
  return { session, previous, recall: r.items, engine: r.engine };
}


/** Ends the session: a summary memory, the hot file's discoveries moved to the cold file, hot reset. */
export async function sessionEnd(m: MemoryInternals, svc: MemoryOperations, args: { summary?: string } = {}): Promise<{ session?: SessionInfo; summary: MemoryRecord; moved: number }> {
  await svc.flushFiles();
  const session = currentSession(m);
  const hot = m.files.readHot();
  const text =
    args.summary?.trim() ||
    (hot.working.length ? `Worked on: ${hot.objective || 'no stated objective'}; ${hot.working.length} notes: ${hot.working.slice(-5).join('; ')}` : `Ended${hot.objective ? ` (objective: ${hot.objective})` : ''} with nothing recorded.`);
  const res = await svc.record({ type: 'summary', category: 'session', text, session: session?.id });
  const day = m.now().slice(0, 10);
  const discoveries = hot.working.filter((w) => !/^\[(decision|preference)\]/.test(w));
  await m.files.updateBoth((h) => {
    h.session = undefined;
    h.started = undefined;
    h.objective = '';
    h.working = [];
    h.waiting = [];
    h.fields = {};
    return [
      ...discoveries.map((d) => ({ section: 'Learned context' as const, line: `${day} ${d}` })),
      ...hot.waiting.map((w) => ({ section: 'Blockers' as const, line: `${day} waiting for: ${w}` })),
      { section: 'Session history', line: `${day} Session ${session?.id ?? '(none)'}: ${text}` },
    ];
  }, { file: m.paths.session });
  if (session) {
    const files = (session as SessionInfo & { workflows?: string[] }).workflows ?? [];
    await markSession(m.root, 'session.end', { actor: m.origin, session: session.id }, files, { summary: res.record!.id }, { clock: m.clock, logger: m.logger });
  }
  return { session, summary: res.record!, moved: discoveries.length };
}

/** Where a workflow stands, as the hot file's frontmatter records it for tier-3 resume. */
export function hotPosition(state: WorkflowState | undefined): Record<string, unknown> {
  if (!state) return {};
  const next = frontmatterResume(state).step;
  return { currentStep: next ?? null, nextStep: next ?? null };
}

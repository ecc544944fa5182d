// Tier 2: what memory does after a workflow write (the core's write observer calls it). A
// completed step or workflow folds its pending observations into a summary; phase transitions
// become cold-file lines; a completed workflow gets its summary memory.
import { hotPosition } from './sessions';
import * as path from 'node:path';
import type { WriteContext } from '../writeHooks';
import type { HistoryEntry, WorkflowState } from '../types';
import { appendJournal } from './journal';
import type { KuzuStore } from './kuzuStore';
import { newId, relPath } from './links';
import type { ColdSection } from './memoryFiles';
import type { JournalOp, MemoryRecord } from './model';
import type { MemoryInternals, MemoryOperations } from './internals';

/**
 * Tier 2 after a write: observations of a completed step or workflow consolidated into a summary,
 * and the cold-file lines for phase transitions (started, blocked, unblocked, completed).
 */
export async function handleWorkflowEvent(m: MemoryInternals, svc: MemoryOperations, entry: HistoryEntry, ctx: WriteContext & { after?: WorkflowState }): Promise<void> {
  const root = ctx.root || m.root;
  const rel = relPath(root, entry.file || ctx.file);
  if (ctx.after && m.files.readHot().fields.activeWorkflow === rel) {
    // The hot file follows its active workflow, so tier 3 agrees with the frontmatter.
    const pos = hotPosition(ctx.after);
    await m.files.updateHot((h) => {
      if (h.fields.activeWorkflow === rel) Object.assign(h.fields, pos);
    });
  }
  const op = (entry.operation || ctx.operation || '').toLowerCase().replace(/[_\s]/g, '-');
  const fromStatus = typeof entry.from?.status === 'string' ? entry.from.status : undefined;
  // History entries carry only the fields that changed: no `status` in `to` means it did not change.
  const toStatus = entry.to && 'status' in entry.to ? (typeof entry.to.status === 'string' ? entry.to.status : undefined) : undefined;
  const workflowName = ctx.after?.workflow ?? path.basename(rel, path.extname(rel));
  const day = (entry.time || m.now()).slice(0, 10);
  const completedWorkflow = toStatus === 'completed' && fromStatus !== 'completed';
  const stepDone = /complete-?step|advance/.test(op) ? completedStep(entry) : undefined;
  const cold: { section: ColdSection; line: string }[] = [];

  if (stepDone) {
    const n = await consolidate(m, rel, stepDone, entry);
    cold.push({ section: 'Session history', line: `${day} ${workflowName} (${rel}): step ${stepDone} completed${n ? `, ${n} observations consolidated` : ''}` });
  }
  if (op === 'block' || toStatus === 'blocked') {
    const reason = typeof entry.detail?.reason === 'string' ? entry.detail.reason : ctx.after?.blockedReason ?? 'no reason given';
    cold.push({ section: 'Blockers', line: `${day} ${workflowName} (${rel}) blocked: ${reason}` });
  } else if (op === 'start' || (toStatus === 'in_progress' && fromStatus === 'created')) {
    cold.push({ section: 'Session history', line: `${day} Started ${workflowName} (${rel})` });
  } else if (op === 'unblock') {
    cold.push({ section: 'Session history', line: `${day} ${workflowName} (${rel}) unblocked` });
  }
  if (completedWorkflow) {
    await consolidate(m, rel, undefined, entry);
    const outcome = await workflowOutcome(svc, rel, ctx.after);
    const context = ctx.after?.delegation?.agent ? `${rel} (agent ${ctx.after.delegation.agent})` : rel;
    const line = `Completed ${workflowName} for ${context}: ${outcome}`;
    await svc.record({ type: 'summary', category: 'workflow', text: line, workflow: rel, agent: ctx.after?.delegation?.agent, session: entry.session ?? ctx.session, origin: 'consolidation' }, { waitMs: 500 });
    cold.push({ section: 'Session history', line: `${day} ${line}` });
  }
  await svc.flushFiles();
  if (cold.length) await m.files.appendCold(cold);
}

function completedStep(entry: HistoryEntry): string | undefined {
  const d = entry.detail ?? {};
  if (typeof d.step === 'string') return d.step;
  const before = Array.isArray(entry.from?.stepsCompleted) ? (entry.from!.stepsCompleted as unknown[]).map(String) : [];
  const after = Array.isArray(entry.to?.stepsCompleted) ? (entry.to!.stepsCompleted as unknown[]).map(String) : [];
  const added = after.find((s) => !before.includes(s));
  if (added) return added;
  return typeof entry.from?.currentStep === 'string' ? entry.from.currentStep : undefined;
}

/** Folds pending observations/patterns of a workflow (or one step) into a summary. Returns how many. */
export async function consolidate(m: MemoryInternals, rel: string, step: string | undefined, entry?: HistoryEntry): Promise<number> {
  return m.access.serial(async () => {
    const { value } = await m.access.withStore(async (s) => {
      const items = await s.list({ types: ['learning', 'summary'], workflow: rel, step });
      const done = new Set(items.filter((m) => m.type === 'summary').flatMap((m) => m.consolidates ?? []));
      const pending = items.filter((m) => m.type === 'learning' && m.tier === 2 && !done.has(m.id));
      if (!pending.length) return 0;
      pending.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const text = `${step ? `Step ${step}` : 'Workflow'} of ${rel}: ${pending.length} observation(s): ${pending.map((p) => p.text).join(' | ')}`;
      const summary: MemoryRecord = {
        id: `sum-${step ? 'phase' : 'wf'}-${pending.map((p) => p.id).sort().join(',').length}-${newId('c').slice(-10)}`,
        type: 'summary',
        category: step ? 'phase' : 'workflow',
        text: text.length > 4000 ? text.slice(0, 3997) + '...' : text,
        createdAt: entry?.time && Number.isFinite(Date.parse(entry.time)) ? new Date(entry.time).toISOString() : m.now(),
        tier: 2,
        source: { workflow: rel, ...(step ? { step } : {}), ...(entry?.session ? { session: entry.session } : {}), origin: 'consolidation' },
        consolidates: pending.map((p) => p.id),
      };
      const op: JournalOp = { v: 1, op: 'memory', rec: summary };
      appendJournal(m.paths.inbox, [op], m.root);
      await s.ingest([op]);
      if (s.engine === 'kuzu') await m.access.ingestPending(s as KuzuStore);
      return pending.length;
    }, 500);
    return value;
  });
}

async function workflowOutcome(svc: MemoryOperations, rel: string, after?: WorkflowState): Promise<string> {
  const { items } = await svc.list({ workflow: rel });
  const d = items.filter((m) => m.type === 'decision').length;
  const l = items.filter((m) => m.type === 'learning').length;
  const steps = after ? `${after.stepsCompleted.length}/${after.steps.length || after.stepsCompleted.length} steps done` : 'done';
  return `${steps}; ${d} decision(s), ${l} learning(s) recorded`;
}

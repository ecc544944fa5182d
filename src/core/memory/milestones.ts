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

/** One write memory is told of: its history line and what the write knew. */
export interface WorkflowEvent {
  entry: HistoryEntry;
  ctx: WriteContext & { after?: WorkflowState };
}

/**
 * Tier 2 after writes: observations of a completed step or workflow consolidated into a summary,
 * and the cold-file lines for phase transitions (started, blocked, unblocked, completed). Several
 * writes are done together, in their order: the store is listed once per workflow, the summaries
 * are appended at once, and the hot and cold files are one change. An event re-run for a writer
 * killed before its consolidation was done (`ctx.recovered`) adds no cold line already there.
 */
export async function handleWorkflowEvents(m: MemoryInternals, svc: MemoryOperations, events: readonly WorkflowEvent[]): Promise<void> {
  if (!events.length) return;
  const facts = events.map((e) => eventFacts(m, e));
  // The hot file follows its active workflow, so tier 3 agrees with the frontmatter: the last
  // position this batch knows of it.
  const active = m.files.readHot().fields.activeWorkflow;
  let position: Record<string, unknown> | undefined;
  for (const f of facts) if (f.after && f.rel === active) position = hotPosition(f.after);
  const steps = facts.filter((f) => f.stepDone);
  const counts = await consolidateMany(m, steps.map((f) => ({ rel: f.rel, step: f.stepDone, entry: f.entry })));
  const cold: { section: ColdSection; line: string; recovered: boolean }[] = [];
  for (const f of facts) {
    const add = (section: ColdSection, line: string) => cold.push({ section, line, recovered: f.recovered });
    if (f.stepDone) {
      const n = counts[steps.indexOf(f)];
      add('Session history', `${f.day} ${f.workflowName} (${f.rel}): step ${f.stepDone} completed${n ? `, ${n} observations consolidated` : ''}`);
    }
    if (f.op === 'block' || f.toStatus === 'blocked') {
      const reason = typeof f.entry.detail?.reason === 'string' ? f.entry.detail.reason : f.after?.blockedReason ?? 'no reason given';
      add('Blockers', `${f.day} ${f.workflowName} (${f.rel}) blocked: ${reason}`);
    } else if (f.op === 'start' || (f.toStatus === 'in_progress' && f.fromStatus === 'created')) {
      add('Session history', `${f.day} Started ${f.workflowName} (${f.rel})`);
    } else if (f.op === 'unblock') {
      add('Session history', `${f.day} ${f.workflowName} (${f.rel}) unblocked`);
    }
    if (f.completedWorkflow) {
      await consolidate(m, f.rel, undefined, f.entry);
      const outcome = await workflowOutcome(svc, f.rel, f.after);
      const context = f.after?.delegation?.agent ? `${f.rel} (agent ${f.after.delegation.agent})` : f.rel;
      const line = `Completed ${f.workflowName} for ${context}: ${outcome}`;
      await svc.record({ type: 'summary', category: 'workflow', text: line, workflow: f.rel, agent: f.after?.delegation?.agent, session: f.entry.session ?? f.ctx.session, origin: 'consolidation' }, { waitMs: 500 });
      add('Session history', `${f.day} ${line}`);
    }
  }
  await svc.flushFiles();
  // A re-run (the writer was killed after the files changed, before its intent was removed)
  // finds its lines already there.
  const present = cold.some((c) => c.recovered) ? new Set(m.files.readCold().split(/\r?\n/).map((l) => l.trim())) : undefined;
  const lines = cold.filter((c) => !c.recovered || !present?.has(`- ${c.line}`)).map(({ section, line }) => ({ section, line }));
  if (position) {
    const pos = position;
    await m.files.updateBoth((h) => {
      if (h.fields.activeWorkflow === active) Object.assign(h.fields, pos);
      return lines;
    });
  } else if (lines.length) await m.files.appendCold(lines);
}

function eventFacts(m: MemoryInternals, { entry, ctx }: WorkflowEvent) {
  const rel = relPath(ctx.root || m.root, entry.file || ctx.file);
  const op = (entry.operation || ctx.operation || '').toLowerCase().replace(/[_\s]/g, '-');
  const fromStatus = typeof entry.from?.status === 'string' ? entry.from.status : undefined;
  // History entries carry only the fields that changed: no `status` in `to` means it did not change.
  const toStatus = entry.to && 'status' in entry.to ? (typeof entry.to.status === 'string' ? entry.to.status : undefined) : undefined;
  return {
    entry,
    ctx,
    rel,
    op,
    fromStatus,
    toStatus,
    after: ctx.after,
    recovered: ctx.recovered === true,
    workflowName: ctx.after?.workflow ?? path.basename(rel, path.extname(rel)),
    day: (entry.time || m.now()).slice(0, 10),
    completedWorkflow: toStatus === 'completed' && fromStatus !== 'completed',
    stepDone: /complete-?step|advance/.test(op) ? completedStep(entry) : undefined,
  };
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
  return (await consolidateMany(m, [{ rel, step, entry }]))[0];
}

/**
 * `consolidate` for several workflows or steps in one store operation, in order: each workflow's
 * memories listed once, the summaries appended to the inbox and ingested together. Returns how
 * many observations each target folded.
 */
async function consolidateMany(m: MemoryInternals, targets: readonly { rel: string; step?: string; entry?: HistoryEntry }[]): Promise<number[]> {
  if (!targets.length) return [];
  return m.access.serial(async () => {
    const { value } = await m.access.withStore(async (s) => {
      const byWorkflow = new Map<string, MemoryRecord[]>();
      const ops: JournalOp[] = [];
      const counts: number[] = [];
      for (const { rel, step, entry } of targets) {
        let items = byWorkflow.get(rel);
        if (!items) byWorkflow.set(rel, (items = await s.list({ types: ['learning', 'summary'], workflow: rel })));
        const done = new Set(items.filter((x) => x.type === 'summary').flatMap((x) => x.consolidates ?? []));
        const pending = items.filter((x) => x.type === 'learning' && x.tier === 2 && !done.has(x.id) && (step === undefined || x.source.step === step));
        counts.push(pending.length);
        if (!pending.length) continue;
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
        items.push(summary);
        ops.push({ v: 1, op: 'memory', rec: summary });
      }
      if (ops.length) {
        appendJournal(m.paths.inbox, ops, m.root);
        await s.ingest(ops);
        if (s.engine === 'kuzu') await m.access.ingestPending(s as KuzuStore);
      }
      return counts;
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

// Tier 2: what memory does after a workflow write (the core's write observer calls it). A
// completed step or workflow folds its pending observations into a summary; phase transitions
// become cold-file lines; a completed workflow gets its summary memory.
import { hotPosition } from './sessions';
import * as path from 'node:path';
import type { CompanionPlan, WriteContext } from '../writeHooks';
import type { HistoryEntry, WorkflowState } from '../types';
import { appendJournal } from './journal';
import { newId, relPath } from './links';
import { coldTemplate, emptyHot, insertLines, type ChangeOptions, parseHot, renderHot, type ColdSection } from './memoryFiles';
import type { JournalOp, ListFilter, MemoryRecord } from './model';
import type { MemoryInternals, MemoryOperations } from './internals';

/** One write memory is told of: its history line and what the write knew. */
export interface WorkflowEvent {
  entry: HistoryEntry | Omit<HistoryEntry, 'seq'>;
  ctx: WriteContext & { after?: WorkflowState };
}

/** Operations whose history line may give a cold-file line (the companion locks the memory files for them). */
const LINE_OPERATIONS = new Set(['advance', 'complete-step', 'start', 'block', 'unblock', 'set-status']);

const normalOp = (op: string) => op.toLowerCase().replace(/[_\s]/g, '-');

type Facts = ReturnType<typeof eventFacts>;

/**
 * The cold-file lines of `facts` (the phase transitions, each completed step with how many
 * observations it folds: `counts` by step event, in order) and, for a completed workflow, its
 * outcome line (also its summary memory's text).
 */
async function linesOf(svc: MemoryOperations, facts: readonly Facts[], counts: readonly number[]): Promise<{ cold: { section: ColdSection; line: string; f: Facts }[]; outcomes: Map<Facts, string> }> {
  const cold: { section: ColdSection; line: string; f: Facts }[] = [];
  const outcomes = new Map<Facts, string>();
  let k = 0;
  for (const f of facts) {
    const add = (section: ColdSection, line: string) => cold.push({ section, line, f });
    if (f.stepDone) {
      const n = counts[k++];
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
      const outcome = await workflowOutcome(svc, f.rel, f.after);
      const context = f.after?.delegation?.agent ? `${f.rel} (agent ${f.after.delegation.agent})` : f.rel;
      const line = `Completed ${f.workflowName} for ${context}: ${outcome}`;
      outcomes.set(f, line);
      add('Session history', `${f.day} ${line}`);
    }
  }
  return { cold, outcomes };
}

/** A cold line without its count of observations: a re-run that counts again finds it all the same. */
const lineKey = (line: string) => line.trim().replace(/, \d+ observations consolidated$/, '');

/**
 * Tier 2 after writes: observations of a completed step or workflow consolidated into a summary,
 * and the cold-file lines for phase transitions (started, blocked, unblocked, completed). Several
 * writes are done together, in their order: the store is listed once per workflow, the summaries
 * are appended at once, and the hot and cold files are one change. A write whose companion
 * (`companionPlan`) already wrote its lines and the hot file's position in its own change
 * (`ctx.companions`) only gets its summaries here. An event re-run for a writer killed before
 * its consolidation was done (`ctx.recovered`) adds no cold line already there.
 */
export async function handleWorkflowEvents(m: MemoryInternals, svc: MemoryOperations, events: readonly WorkflowEvent[], opts?: ChangeOptions): Promise<void> {
  if (!events.length) return;
  const facts = events.map((e) => eventFacts(m, e));
  const steps = facts.filter((f) => f.stepDone);
  const counts = await consolidateMany(m, steps.map((f) => ({ rel: f.rel, step: f.stepDone, entry: f.entry })));
  const { cold, outcomes } = await linesOf(svc, facts, counts);
  for (const f of facts) {
    const line = outcomes.get(f);
    if (line === undefined) continue;
    await consolidate(m, f.rel, undefined, f.entry);
    await svc.record({ type: 'summary', category: 'workflow', text: line, workflow: f.rel, agent: f.after?.delegation?.agent, session: f.entry.session ?? f.ctx.session, origin: 'consolidation' }, { waitMs: 500 });
  }
  await svc.flushFiles();
  const open = facts.filter((f) => !f.ctx.companions);
  if (!open.length) return;
  // The hot file follows its active workflow, so tier 3 agrees with the frontmatter: the last
  // position this batch knows of it.
  const active = m.files.readHot().fields.activeWorkflow;
  let position: Record<string, unknown> | undefined;
  for (const f of open) if (f.after && f.rel === active) position = hotPosition(f.after);
  // A re-run (the writer was killed after the files changed, before its intent was removed)
  // finds its lines already there.
  const present = open.some((f) => f.recovered) ? new Set(m.files.readCold().split(/\r?\n/).map((l) => lineKey(l.replace(/^- /, '')))) : undefined;
  const lines = cold.filter((c) => !c.f.ctx.companions && (!c.f.recovered || !present?.has(lineKey(c.line)))).map(({ section, line }) => ({ section, line }));
  if (position) {
    const pos = position;
    await m.files.updateBoth((h) => {
      if (h.fields.activeWorkflow === active) Object.assign(h.fields, pos);
      return lines;
    }, undefined, opts);
  } else if (lines.length) await m.files.appendCold(lines, opts);
}

/**
 * The memory files a write of `files` by `operation` may change in its own change (the cold file,
 * and the hot file when one of them is its active workflow); none for an operation that never
 * gives a cold line.
 */
export function companionFiles(m: MemoryInternals, operation: string, files: readonly string[]): { cold: string; hot?: string } | undefined {
  if (!LINE_OPERATIONS.has(normalOp(operation))) return undefined;
  const active = m.files.readHot().fields.activeWorkflow;
  const hot = typeof active === 'string' && files.some((f) => relPath(m.root, f) === active) ? m.files.writeTarget('hot') : undefined;
  return { cold: m.files.writeTarget('cold'), ...(hot ? { hot } : {}) };
}

/**
 * A write's cold-file lines and the hot file's position, planned under the write's locks from its
 * history lines (`texts`: the files `companionFiles` named, as they are now): the same lines and
 * position the observer would write after, in the write's own change. The observations a
 * completed step folds are counted now (a read of the store) and consolidated by the observer
 * once the write landed.
 */
export async function companionPlan(m: MemoryInternals, svc: MemoryOperations, events: readonly WorkflowEvent[], texts: ReadonlyMap<string, string | undefined>, targets: { cold: string; hot?: string }): Promise<CompanionPlan> {
  const facts = events.map((e) => eventFacts(m, e));
  const steps = facts.filter((f) => f.stepDone);
  const counts = steps.length ? await pendingCounts(m, steps.map((f) => ({ rel: f.rel, step: f.stepDone }))) : [];
  const { cold } = await linesOf(svc, facts, counts);
  const { hot, cold: coldFile } = targets;
  const out = new Map<string, string>();
  if (hot !== undefined && texts.has(hot)) {
    const h = texts.get(hot) === undefined ? emptyHot() : parseHot(texts.get(hot)!);
    let position: Record<string, unknown> | undefined;
    for (const f of facts) if (f.after && f.rel === h.fields.activeWorkflow) position = hotPosition(f.after);
    if (position) {
      Object.assign(h.fields, position);
      out.set(hot, renderHot(h));
    }
  }
  let added: Map<string, string> | undefined;
  if (cold.length) {
    const before = texts.get(coldFile);
    const ins = insertLines(before ?? coldTemplate(), cold);
    out.set(coldFile, ins.text);
    if (before !== undefined && ins.added !== undefined) added = new Map([[coldFile, ins.added]]);
  }
  return { texts: out, covered: facts.map(() => true), ...(added ? { added } : {}) };
}

function eventFacts(m: MemoryInternals, { entry, ctx }: WorkflowEvent) {
  const rel = relPath(ctx.root || m.root, entry.file || ctx.file);
  const op = normalOp(entry.operation || ctx.operation || '');
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

function completedStep(entry: Omit<HistoryEntry, 'seq'>): string | undefined {
  const d = entry.detail ?? {};
  if (typeof d.step === 'string') return d.step;
  const before = Array.isArray(entry.from?.stepsCompleted) ? (entry.from!.stepsCompleted as unknown[]).map(String) : [];
  const after = Array.isArray(entry.to?.stepsCompleted) ? (entry.to!.stepsCompleted as unknown[]).map(String) : [];
  const added = after.find((s) => !before.includes(s));
  if (added) return added;
  return typeof entry.from?.currentStep === 'string' ? entry.from.currentStep : undefined;
}

/** Folds pending observations/patterns of a workflow (or one step) into a summary. Returns how many. */
export async function consolidate(m: MemoryInternals, rel: string, step: string | undefined, entry?: Omit<HistoryEntry, 'seq'>): Promise<number> {
  return (await consolidateMany(m, [{ rel, step, entry }]))[0];
}

/**
 * What a consolidation of `targets` lists per workflow: a step's observations and the summaries
 * that may fold them, which are its own step's and the workflow's (of no step: a step's summary
 * folds only that step's observations, a workflow's any of them), so that a step's consolidation
 * reads what that step recorded, not the workflow's whole memory (a long workflow's hundreds of
 * observations and summaries were read again for every batch of advances). A workflow target
 * (no step: its completion) lists everything of the workflow.
 */
function listFilters(targets: readonly { rel: string; step?: string }[]): Map<string, ListFilter> {
  const steps = new Map<string, Set<string | null> | undefined>();
  for (const { rel, step } of targets) {
    if (step === undefined) steps.set(rel, undefined);
    else if (!steps.has(rel)) steps.set(rel, new Set([null, step]));
    else steps.get(rel)?.add(step);
  }
  const out = new Map<string, ListFilter>();
  for (const [rel, set] of steps) out.set(rel, { types: ['learning', 'summary'], workflow: rel, ...(set ? { steps: [...set] } : {}) });
  return out;
}

/**
 * `consolidate` for several workflows or steps in one store operation, in order: each workflow's
 * memories of the targets' steps listed once (listFilters), the summaries appended to the inbox
 * and ingested together. Returns how many observations each target folded.
 */
async function consolidateMany(m: MemoryInternals, targets: readonly { rel: string; step?: string; entry?: Omit<HistoryEntry, 'seq'> }[]): Promise<number[]> {
  if (!targets.length) return [];
  const filters = listFilters(targets);
  return m.access.serial(async () => {
    const { value } = await m.access.withStore(async (s) => {
      const byWorkflow = new Map<string, MemoryRecord[]>();
      const ops: JournalOp[] = [];
      const counts: number[] = [];
      for (const { rel, step, entry } of targets) {
        let items = byWorkflow.get(rel);
        if (!items) byWorkflow.set(rel, (items = await s.list(filters.get(rel))));
        const pending = pendingOf(items, step);
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
        // The summaries in hand go to the open database, the inbox cursor past them when nobody
        // appended meanwhile: not read back from the inbox and ingested a second time (a second
        // database transaction per batch).
        const before = m.access.inboxStat();
        const bytes = appendJournal(m.paths.inbox, ops, m.root);
        if (s.engine === 'kuzu') await m.access.ingestAppended(s, ops, before, bytes);
        else await s.ingest(ops);
      }
      return counts;
    }, 500);
    return value;
  });
}

/** The tier-2 observations of `items` (a workflow's learnings and summaries) no summary folds yet, of `step` when given. */
function pendingOf(items: readonly MemoryRecord[], step: string | undefined): MemoryRecord[] {
  const done = new Set(items.filter((x) => x.type === 'summary').flatMap((x) => x.consolidates ?? []));
  return items.filter((x) => x.type === 'learning' && x.tier === 2 && !done.has(x.id) && (step === undefined || x.source.step === step));
}

/** How many observations each target would fold now (consolidateMany's count, nothing written). */
async function pendingCounts(m: MemoryInternals, targets: readonly { rel: string; step?: string }[]): Promise<number[]> {
  return m.access.serial(async () => {
    const { value } = await m.access.withStore(async (s) => {
      const byWorkflow = new Map<string, MemoryRecord[]>();
      const counts: number[] = [];
      for (const { rel, step } of targets) {
        let items = byWorkflow.get(rel);
        if (!items) byWorkflow.set(rel, (items = await s.list({ types: ['learning', 'summary'], workflow: rel })));
        counts.push(pendingOf(items, step).length);
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

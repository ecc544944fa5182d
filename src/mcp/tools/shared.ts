// What every kind of agent tool shares: the tool shape, the schema pieces of inputs and answers,
// annotations, and the helpers that turn core results into the JSON agents read.
import * as path from 'node:path';
import { z } from 'zod';
import { WaymarkError, loadSprint, nextGroups, readTicketTree, storyOrder } from '../../core/index';
import type { MutationOptions, MutationResult, NextItem, Problem, ResumeReport, Ticket, TicketTree, WorkflowState } from '../../core/index';
import { relativeTo } from '../host';
import type { ToolHost } from '../host';

/** About 20k tokens: no answer is larger (lists are cut and paged instead). */
export const MAX_RESULT_CHARS = 80_000;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 200;

// ---- shared schema pieces ------------------------------------------------------------------

export const filePath = z.string().min(1).max(4096).describe('Workflow Markdown file, relative to the workspace folder (e.g. docs/feature.workflow.md or _bmad-output/planning-artifacts/prd.md).');
export const expectHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'a 64-character hex state hash')
  .optional()
  .describe('The stateHash you last read (from waymark_status or a previous write). The write is refused with reason "conflict" if the file changed since. Strongly recommended.');
export const actor = z.string().min(1).max(200).optional().describe('Who does this (agent name), recorded in the history. Default: the server\'s actor.');
export const limit = z.number().int().min(1).max(MAX_LIMIT).optional().describe(`How many items to return (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).`);
export const cursor = z.string().regex(/^\d+$/).optional().describe('nextCursor from the previous page.');

// Fresh schema objects per use: a shared one would become a $ref in the JSON Schema, which some
// clients do not resolve.
export const nullableString = () => z.string().nullable();

const stateBrief = () =>
  z.object({
  status: nullableString(),
  currentStep: nullableString(),
  nextStep: nullableString(),
  stepsCompleted: z.array(z.string()),
  blockedReason: nullableString(),
});

export const mutationOut = z.object({
  file: z.string(),
  operation: z.string(),
  changed: z.boolean().describe('False when the state already was so (nothing written, no history line).'),
  written: z.boolean(),
  appliedToEditor: z.boolean().describe('True in VS Code when the change went into an editor with unsaved changes (save it to keep it).'),
  before: stateBrief(),
  after: stateBrief(),
  previousHash: z.string(),
  stateHash: z.string().describe('The new state hash: pass it as expectHash to the next write.'),
  historySeq: z.number().nullable(),
});

export const problemOut = z.object({
  file: z.string(),
  line: z.number(),
  column: z.number(),
  severity: z.enum(['error', 'warning', 'info']),
  code: z.string(),
  message: z.string(),
  fix: z.string().optional(),
});

export const workflowBrief = z.object({
  file: z.string(),
  workflow: z.string(),
  status: nullableString(),
  currentStep: nullableString(),
  nextStep: nullableString(),
  stepsDone: z.number(),
  stepsTotal: z.number(),
  problems: z.number(),
  blockedReason: z.string().optional(),
  stateHash: z.string(),
});

export const nextAction = z.object({
  file: z.string(),
  workflow: z.string(),
  action: z.enum(['advance', 'pass-gate', 'unblock', 'start', 'fix-problems']),
  step: z.string().optional(),
  why: z.string(),
});

export const delegationOut = z.object({
  id: z.string(),
  agent: z.string().optional(),
  depth: z.number(),
  chain: z.array(z.string()).describe('Ids from the root of the chain to this workflow.'),
  children: z.array(z.object({ id: z.string(), file: z.string().optional(), status: z.string().optional(), agent: z.string().optional() })),
});

export const sprintOut = z.object({
  ledger: z.string().nullable(),
  counts: z.record(z.number()).describe('Stories by status.'),
  next: z.object({ action: z.string(), story: z.string().optional(), reason: z.string() }).nullable().describe('What BMAD would run next (dev-story, code-review, create-story, retrospective).'),
  active: z
    .array(z.object({ key: z.string(), title: z.string().optional(), status: z.string(), file: z.string().optional(), tasksDone: z.number(), tasksTotal: z.number(), gate: z.string().optional(), problems: z.number(), stateHash: z.string() }))
    .describe('Stories in progress, in review or ready (at most 10).'),
  problems: z.number().describe('Drift between the ledger, the story files, the epics and the gates: waymark_validate does not list these; run waymark sprint.'),
});

export const ticketOut = () =>
  z.object({
    kind: z.literal('ticket'),
    ref: z.string().describe('BMAD\'s reference: E.N (epic id . entry id), a bare id, or the file name; pass it to waymark_story_set_status.'),
    state: z.string().describe('planned, backlog, in-progress, review, done or dropped (BMAD\'s board state).'),
    status: z.string().describe('The plan\'s status (draft, ready-for-dev, in-progress, in-review, built, done, blocked, dropped); empty when no build has started.'),
    title: z.string(),
    type: z.string(),
    epic: z.string(),
    assignee: z.string().optional(),
    blockedReason: z.string().optional(),
    waitingOn: z.array(z.string()).optional().describe('Refs (or epic slugs for an epic gate) it still waits on.'),
    file: z.string().optional().describe('The leaf file, when one was pulled.'),
    plan: z.string().describe('The plan that holds its status (or where it goes).'),
  });

export const ticketTreeOut = () =>
  z.object({
    initiative: z.string().nullable(),
    store: z.string().describe('repo, or the tracker whose status the tickets take (github, jira, linear, notion, trello).'),
    counts: z.record(z.number()).describe('Tickets by state.'),
    readyToRefine: z.array(ticketOut()),
    readyToStart: z.array(ticketOut()),
    inProgress: z.array(ticketOut()),
    blocked: z.array(ticketOut()),
    problem: z.string().optional().describe('Why tickets.py would refuse the tree, when it would (waymark validate lists it on its file and line).'),
  });

export function ticketJson(host: ToolHost, t: Ticket, waitingOn?: string[]): z.infer<ReturnType<typeof ticketOut>> {
  return {
    kind: 'ticket',
    ref: t.ref,
    state: t.state,
    status: t.status,
    title: t.title,
    type: t.type,
    epic: t.epic,
    ...(t.assignee ? { assignee: t.assignee } : {}),
    ...(t.blockedReason ? { blockedReason: t.blockedReason } : {}),
    ...(waitingOn ? { waitingOn } : {}),
    ...(t.file ? { file: relativeTo(host.roots, t.file) } : {}),
    plan: relativeTo(host.roots, t.plan ?? t.planPath),
  };
}

/**
 * Answers kept per source object (a workflow state, a project view: both replaced, never changed in
 * place, when their files change), per host (paths are relative to its roots) and per input key:
 * a read answered again from a warm model builds and serialises nothing.
 */
export class AnswerCache<S extends object, A> {
  private readonly byHost = new WeakMap<ToolHost, WeakMap<S, Map<string, A>>>();

  get(host: ToolHost, source: S, key: string, make: () => A): A {
    let bySource = this.byHost.get(host);
    if (!bySource) this.byHost.set(host, (bySource = new WeakMap()));
    let answers = bySource.get(source);
    if (!answers) bySource.set(source, (answers = new Map()));
    let a = answers.get(key);
    if (a === undefined) answers.set(key, (a = make()));
    return a;
  }
}

type TicketTreeSummary = z.infer<ReturnType<typeof ticketTreeOut>>;

/** BMAD v7's ticket tree of the first root (the host's kept one, else read now), as `next` groups it (at most `limit` per group); undefined without one. */
export async function ticketTreeSummary(host: ToolHost, limit: number): Promise<TicketTreeSummary | undefined> {
  const tree = host.ticketTree ? await host.ticketTree() : readTicketTree(host.roots[0]);
  if (!tree) return undefined;
  // A tree the host kept is the same object until one of its files changes: so is its summary.
  return treeSummaries.get(host, tree, String(limit), () => treeSummary(host, tree, limit));
}

const treeSummaries = new AnswerCache<TicketTree, TicketTreeSummary>();

function treeSummary(host: ToolHost, tree: TicketTree, limit: number): TicketTreeSummary {
  const g = nextGroups(tree);
  const items = (list: NextItem[]) => list.slice(0, limit).map((i) => ticketJson(host, i.ticket, i.waitingOn));
  const counts: Record<string, number> = {};
  for (const t of tree.tickets) if (tree.scope === undefined || t.epic === tree.scope) counts[t.state] = (counts[t.state] ?? 0) + 1;
  return {
    initiative: tree.initiative?.slug ?? null,
    store: tree.store,
    counts,
    readyToRefine: items(g.readyToRefine),
    readyToStart: items(g.readyToStart),
    inProgress: items(g.inProgress),
    blocked: items(g.blocked),
    ...(tree.fatal ? { problem: tree.fatal } : {}),
  };
}

export const resumeOut = z.object({
  file: z.string(),
  workflow: z.string(),
  step: nullableString().describe('Step to continue at; null when nothing is left or nothing is known.'),
  done: z.boolean(),
  tier: z.number().describe('1 frontmatter, 2 checkpoint, 3 orchestrator state.'),
  source: z.string(),
  degradation: z.enum(['full', 'standard', 'minimal', 'none']),
  reason: z.string(),
  stepFile: z.string().optional(),
  warnings: z.array(z.string()),
});

export const frontierEntryOut = () =>
  z.object({
    id: z.string().describe('Workflow id (or relative path when two files share one), story:<key> for a BMAD story.'),
    kind: z.string(),
    title: z.string(),
    file: z.string().nullable(),
    column: z.string().describe('The board column: ready, inProgress, review, blocked, done or dropped.'),
    status: z.string().nullable().describe('The status as written.'),
    reason: z.string().describe('Why it is in this column, in one sentence (what it waits on, what it unblocks, how long it has been quiet).'),
    waitingOn: z.array(z.string()),
    unblocks: z.number().describe('How many not-done items wait on it, directly or through others.'),
    chain: z.number().describe('Length of the longest chain of not-done work ending at it.'),
    priority: z.number(),
    stalled: z
      .object({ lastActivity: z.string().nullable(), who: z.string().nullable(), source: z.string().nullable(), idleMinutes: z.number().nullable(), thresholdMinutes: z.number(), kind: z.string() })
      .nullable(),
  });

// ---- the table -------------------------------------------------------------------------------

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One agent tool: what it is for, its schemas, and its handler over the core. */
export interface WaymarkTool<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  /** MCP tool name (snake_case, `waymark_` prefix); also the VS Code tool name. */
  name: string;
  /** `#waymark...` reference in VS Code chat. */
  referenceName: string;
  title: string;
  /** Says what it does, when to use it and when not. */
  description: string;
  input: z.ZodObject<I, 'strict'>;
  output: z.ZodObject<O>;
  annotations: ToolAnnotations;
  run(input: z.infer<z.ZodObject<I, 'strict'>>, host: ToolHost): Promise<z.infer<z.ZodObject<O>>>;
}

export function tool<I extends z.ZodRawShape, O extends z.ZodRawShape>(t: Omit<WaymarkTool<I, O>, 'input' | 'output'> & { input: I; output: O }): WaymarkTool<I, O> {
  return { ...t, input: z.object(t.input).strict(), output: z.object(t.output) };
}

export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

// ---- helpers -------------------------------------------------------------------------------

function brief(s: WorkflowState): z.infer<ReturnType<typeof stateBrief>> {
  return {
    status: s.rawStatus ?? s.status ?? null,
    currentStep: s.currentStep ?? null,
    nextStep: s.nextStep ?? null,
    stepsCompleted: s.stepsCompleted,
    blockedReason: s.blockedReason ?? null,
  };
}

export function stepsDone(s: WorkflowState): number {
  return s.steps.length ? s.steps.filter((x) => s.stepsCompleted.includes(x.id)).length : s.stepsCompleted.length;
}

export function problemJson(host: ToolHost, p: Problem): z.infer<typeof problemOut> {
  const fix = p.data && typeof p.data.fix === 'string' ? p.data.fix : undefined;
  return {
    file: relativeTo(host.roots, p.file),
    line: p.range.start.line + 1,
    column: p.range.start.character + 1,
    severity: p.severity,
    code: p.code,
    message: p.message,
    ...(fix ? { fix } : {}),
  };
}

export function mutationJson(host: ToolHost, r: MutationResult & { appliedToEditor?: boolean }): z.infer<typeof mutationOut> {
  return {
    file: relativeTo(host.roots, r.file),
    operation: r.operation,
    changed: r.changed !== false,
    written: r.written,
    appliedToEditor: r.appliedToEditor === true,
    before: brief(r.before),
    after: brief(r.after),
    previousHash: r.before.stateHash,
    stateHash: r.after.stateHash,
    historySeq: r.seq ?? null,
  };
}

export function mutationOptions(host: ToolHost, input: { expectHash?: string; actor?: string }): MutationOptions {
  return { expectHash: input.expectHash?.toLowerCase(), actor: input.actor ?? host.actor };
}

/**
 * One page of `items` from `cursor`, at most `limit` long and cut further until `render(page)`
 * serialises under the size cap. Returns the page and the cursor of the next one.
 */
export function page<T, R>(items: T[], input: { limit?: number; cursor?: string }, render: (page: T[], nextCursor: string | undefined) => R): R {
  const start = input.cursor ? Number(input.cursor) : 0;
  if (!Number.isSafeInteger(start) || start < 0) throw new WaymarkError('usage', `cursor ${input.cursor} is not a position; pass the nextCursor of the previous answer.`);
  let n = Math.min(input.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  for (;;) {
    const slice = items.slice(start, start + n);
    const next = start + slice.length < items.length ? String(start + slice.length) : undefined;
    const out = render(slice, next);
    if (n <= 1 || JSON.stringify(out).length <= MAX_RESULT_CHARS) return out;
    n = Math.max(1, Math.floor(n / 2));
  }
}

export function under(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel));
}

/** What to do next in one workflow, or undefined when nothing is asked of anyone. */
export function nextFor(host: ToolHost, s: WorkflowState, errors: number): z.infer<typeof nextAction> | undefined {
  const file = relativeTo(host.roots, s.file);
  const base = { file, workflow: s.workflow };
  if (errors) return { ...base, action: 'fix-problems', why: `${errors} error(s) in the file; run waymark_validate on it.` };
  if (s.status === 'blocked') return { ...base, action: 'unblock', why: `blocked: ${s.blockedReason ?? 'no reason given'}` };
  if (s.status === 'created') return { ...base, action: 'start', step: s.nextStep, why: 'created, not started' };
  if (s.status === 'in_progress' && s.nextStep) {
    const gate = s.gates[s.nextStep];
    if (gate && !gate.open) return { ...base, action: 'pass-gate', step: s.nextStep, why: `the gate ${gate.name} is ${gate.verdict ?? 'without a verdict'}; a reviewer must record PASS, CONCERNS or WAIVED before advancing` };
    return { ...base, action: 'advance', step: s.nextStep, why: `in progress; do ${s.nextStep}, then advance` };
  }
  return undefined;
}

/** The BMAD sprint of the first root (the host's warm one, else read now), summarised; undefined without a sprint ledger or stories. */
export async function sprintSummary(host: ToolHost): Promise<z.infer<typeof sprintOut> | undefined> {
  const r = host.sprint ? await host.sprint() : loadSprint(host.roots[0]);
  if (!r || (!r.ledgerFile && !r.stories.length)) return undefined;
  const order = ['in-progress', 'review', 'ready-for-dev'];
  const active = r.stories
    .filter((x) => order.includes(x.status))
    .sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status) || storyOrder(a, b) || a.key.localeCompare(b.key))
    .slice(0, 10)
    .map((x) => ({
      key: x.key,
      ...(x.title ? { title: x.title } : {}),
      status: x.status,
      ...(x.file ? { file: relativeTo(host.roots, x.file) } : {}),
      tasksDone: x.tasks.done,
      tasksTotal: x.tasks.total,
      ...(x.gate?.verdict ? { gate: x.gate.verdict } : {}),
      problems: x.problems.length,
      stateHash: x.stateHash,
    }));
  return {
    ledger: r.ledgerFile ? relativeTo(host.roots, r.ledgerFile) : null,
    counts: r.counts,
    next: r.next ? { action: r.next.action, ...(r.next.storyKey ? { story: r.next.storyKey } : {}), reason: r.next.reason } : null,
    active,
    problems: r.problems.length,
  };
}

export function resumeJson(host: ToolHost, r: ResumeReport): z.infer<typeof resumeOut> {
  return {
    file: relativeTo(host.roots, r.file),
    workflow: r.workflow,
    step: r.step ?? null,
    done: r.done,
    tier: r.tier,
    source: r.source,
    degradation: r.degradation,
    reason: r.reason,
    ...(r.stepFile ? { stepFile: relativeTo(host.roots, r.stepFile) } : {}),
    warnings: r.warnings,
  };
}

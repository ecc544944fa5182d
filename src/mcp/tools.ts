// The one table of Waymark's agent tools, shared by the MCP server (src/mcp/server.ts) and the
// VS Code language-model tools (src/extension/lmTools.ts): name, description (when to use it
// and when not), zod input and output schemas, annotations, and a handler over the core.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import {
  EXIT_CODES,
  GATE_VERDICTS,
  LEARNING_CATEGORIES,
  MEMORY_TYPES,
  STATUSES,
  SUMMARY_SCOPES,
  WaymarkError,
  chainOf,
  describeOwner,
  errorMessage,
  frontmatterResume,
  loadSprint,
  storyOrder,
  isProblemCode,
  isSprintCode,
  fixTitle,
  parseTtl,
  resumeRoot,
  frontierEntryJson,
  BOARD_COLUMNS,
} from '../core/index';
import type { BoardColumn, FrontierEntry, MutationOptions, MutationResult, Problem, ResumeReport, WaymarkErrorReason, WorkflowState } from '../core/index';
import { relativeTo, resolveInside } from './host';
import type { ToolHost } from './host';

/** About 20k tokens: no answer is larger (lists are cut and paged instead). */
export const MAX_RESULT_CHARS = 80_000;
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 200;

// ---- shared schema pieces ------------------------------------------------------------------

const filePath = z.string().min(1).max(4096).describe('Workflow Markdown file, relative to the workspace folder (e.g. docs/feature.workflow.md or _bmad-output/planning-artifacts/prd.md).');
const expectHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'a 64-character hex state hash')
  .optional()
  .describe('The stateHash you last read (from waymark_status or a previous write). The write is refused with reason "conflict" if the file changed since. Strongly recommended.');
const actor = z.string().min(1).max(200).optional().describe('Who does this (agent name), recorded in the history. Default: the server\'s actor.');
const limit = z.number().int().min(1).max(MAX_LIMIT).optional().describe(`How many items to return (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).`);
const cursor = z.string().regex(/^\d+$/).optional().describe('nextCursor from the previous page.');

// Fresh schema objects per use: a shared one would become a $ref in the JSON Schema, which some
// clients do not resolve.
const nullableString = () => z.string().nullable();

const stateBrief = () =>
  z.object({
  status: nullableString(),
  currentStep: nullableString(),
  nextStep: nullableString(),
  stepsCompleted: z.array(z.string()),
  blockedReason: nullableString(),
});

const mutationOut = z.object({
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

const problemOut = z.object({
  file: z.string(),
  line: z.number(),
  column: z.number(),
  severity: z.enum(['error', 'warning', 'info']),
  code: z.string(),
  message: z.string(),
  fix: z.string().optional(),
});

const workflowBrief = z.object({
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

const nextAction = z.object({
  file: z.string(),
  workflow: z.string(),
  action: z.enum(['advance', 'pass-gate', 'unblock', 'start', 'fix-problems']),
  step: z.string().optional(),
  why: z.string(),
});

const delegationOut = z.object({
  id: z.string(),
  agent: z.string().optional(),
  depth: z.number(),
  chain: z.array(z.string()).describe('Ids from the root of the chain to this workflow.'),
  children: z.array(z.object({ id: z.string(), file: z.string().optional(), status: z.string().optional(), agent: z.string().optional() })),
});

const sprintOut = z.object({
  ledger: z.string().nullable(),
  counts: z.record(z.number()).describe('Stories by status.'),
  next: z.object({ action: z.string(), story: z.string().optional(), reason: z.string() }).nullable().describe('What BMAD would run next (dev-story, code-review, create-story, retrospective).'),
  active: z
    .array(z.object({ key: z.string(), title: z.string().optional(), status: z.string(), file: z.string().optional(), tasksDone: z.number(), tasksTotal: z.number(), gate: z.string().optional(), problems: z.number(), stateHash: z.string() }))
    .describe('Stories in progress, in review or ready (at most 10).'),
  problems: z.number().describe('Drift between the ledger, the story files, the epics and the gates: waymark_validate does not list these; run waymark sprint.'),
});

const resumeOut = z.object({
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

const frontierEntryOut = () =>
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

function tool<I extends z.ZodRawShape, O extends z.ZodRawShape>(t: Omit<WaymarkTool<I, O>, 'input' | 'output'> & { input: I; output: O }): WaymarkTool<I, O> {
  return { ...t, input: z.object(t.input).strict(), output: z.object(t.output) };
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

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

function stepsDone(s: WorkflowState): number {
  return s.steps.length ? s.steps.filter((x) => s.stepsCompleted.includes(x.id)).length : s.stepsCompleted.length;
}

function problemJson(host: ToolHost, p: Problem): z.infer<typeof problemOut> {
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

function mutationJson(host: ToolHost, r: MutationResult & { appliedToEditor?: boolean }): z.infer<typeof mutationOut> {
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

function mutationOptions(host: ToolHost, input: { expectHash?: string; actor?: string }): MutationOptions {
  return { expectHash: input.expectHash?.toLowerCase(), actor: input.actor ?? host.actor };
}

/**
 * One page of `items` from `cursor`, at most `limit` long and cut further until `render(page)`
 * serialises under the size cap. Returns the page and the cursor of the next one.
 */
function page<T, R>(items: T[], input: { limit?: number; cursor?: string }, render: (page: T[], nextCursor: string | undefined) => R): R {
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

function under(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** What to do next in one workflow, or undefined when nothing is asked of anyone. */
function nextFor(host: ToolHost, s: WorkflowState, errors: number): z.infer<typeof nextAction> | undefined {
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

/** The BMAD sprint of the first root, summarised; undefined without a sprint ledger or stories. */
function sprintSummary(host: ToolHost): z.infer<typeof sprintOut> | undefined {
  const r = loadSprint(host.roots[0]);
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

function resumeJson(host: ToolHost, r: ResumeReport): z.infer<typeof resumeOut> {
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

// ---- tools ---------------------------------------------------------------------------------

const summary = tool({
  name: 'waymark_summary',
  referenceName: 'waymarkSummary',
  title: 'Workflow summary and what next',
  description:
    'Summarise every workflow in the workspace: counts by status, what to do next (advance, pass a gate, unblock, start, fix problems), and one line per workflow (status, current step, progress, stateHash); in a BMAD project also the sprint (active stories, task progress, what BMAD runs next). ' +
    'Use it first, to orient yourself or to find a workflow file. Do not use it for the full detail of one workflow (use waymark_status) or to list problems (use waymark_validate). Paged: pass nextCursor to continue.',
  input: {
    path: z.string().max(4096).optional().describe('Only workflows under this folder (relative to the workspace).'),
    status: z.enum(STATUSES).optional().describe('Only workflows with this status.'),
    limit,
    cursor,
  },
  output: {
    counts: z.object({ workflows: z.number(), byStatus: z.record(z.number()), errors: z.number(), warnings: z.number() }),
    next: z.array(nextAction).describe('At most 5 suggestions, most pressing first.'),
    workflows: z.array(workflowBrief),
    total: z.number().describe('Workflows matching the filters (all pages).'),
    nextCursor: z.string().optional(),
    sprint: sprintOut.optional().describe('BMAD sprint (sprint-status.yaml and story files), when the workspace has one.'),
  },
  annotations: READ,
  async run(input, host) {
    await host.refresh();
    const sprint = sprintSummary(host);
    const dir = input.path !== undefined ? resolveInside(host.roots, input.path).abs : undefined;
    const all = host.core.list().filter((w) => !dir || under(w.file, dir));
    const problems = host.core.problems().filter((p) => !dir || under(p.file, dir));
    const errorsByFile = new Map<string, number>();
    for (const p of problems) if (p.severity === 'error') errorsByFile.set(p.file, (errorsByFile.get(p.file) ?? 0) + 1);
    const problemsByFile = new Map<string, number>();
    for (const p of problems) problemsByFile.set(p.file, (problemsByFile.get(p.file) ?? 0) + 1);
    const byStatus: Record<string, number> = {};
    for (const w of all) byStatus[w.status ?? w.rawStatus ?? 'unknown'] = (byStatus[w.status ?? w.rawStatus ?? 'unknown'] ?? 0) + 1;
    // Cheap ranks first; the (string-building) suggestions only for the five shown.
    const urgency = (w: WorkflowState): number => {
      if (errorsByFile.get(w.file)) return 0;
      if (w.status === 'in_progress' && w.nextStep) return w.gates[w.nextStep] && !w.gates[w.nextStep].open ? 1 : 3;
      return w.status === 'blocked' ? 2 : w.status === 'created' ? 4 : -1;
    };
    const next = all
      .map((w) => ({ w, u: urgency(w) }))
      .filter((x) => x.u >= 0)
      .sort((a, b) => a.u - b.u || (b.w.updatedAt ?? '').localeCompare(a.w.updatedAt ?? ''))
      .slice(0, 5)
      .map((x) => nextFor(host, x.w, errorsByFile.get(x.w.file) ?? 0)!);
    const rank = (w: WorkflowState) => { const r = ['in_progress', 'blocked', 'created'].indexOf(w.status ?? ''); return r < 0 ? 3 : r; };
    const listed = all
      .filter((w) => !input.status || w.status === input.status)
      .map((w) => ({ w, r: rank(w) }))
      .sort((a, b) => a.r - b.r || (a.w.file < b.w.file ? -1 : a.w.file > b.w.file ? 1 : 0))
      .map((x) => x.w);
    const counts = { workflows: all.length, byStatus, errors: problems.filter((p) => p.severity === 'error').length, warnings: problems.filter((p) => p.severity === 'warning').length };
    return page(listed, input, (slice, nextCursor) => ({
      counts,
      next,
      workflows: slice.map((w) => ({
        file: relativeTo(host.roots, w.file),
        workflow: w.workflow,
        status: w.rawStatus ?? w.status ?? null,
        currentStep: w.currentStep ?? null,
        nextStep: w.nextStep ?? null,
        stepsDone: stepsDone(w),
        stepsTotal: w.steps.length,
        problems: problemsByFile.get(w.file) ?? 0,
        ...(w.blockedReason ? { blockedReason: w.blockedReason } : {}),
        stateHash: w.stateHash,
      })),
      total: listed.length,
      ...(nextCursor ? { nextCursor } : {}),
      ...(sprint ? { sprint } : {}),
    }));
  },
});

const status = tool({
  name: 'waymark_status',
  referenceName: 'waymarkStatus',
  title: 'One workflow in detail',
  description:
    'The full state of ONE workflow file: status, current and next step, every step (done, gated), gate verdicts, delegation chain (parent and children), its problems, where to resume, and the stateHash to pass as expectHash to a write. ' +
    'Use it before changing a workflow and whenever you need exact state. Do not use it to find workflows (use waymark_summary) or to check many files (use waymark_validate).',
  input: { file: filePath },
  output: {
    file: z.string(),
    workflow: z.string(),
    dialect: z.enum(['waymark', 'bmad']),
    status: nullableString(),
    currentStep: nullableString(),
    nextStep: nullableString(),
    steps: z.array(z.object({ id: z.string(), title: z.string().optional(), done: z.boolean(), gate: z.string().optional() })),
    stepsCompleted: z.array(z.string()),
    gates: z.array(z.object({ step: z.string(), name: z.string(), verdict: nullableString(), open: z.boolean(), reviewer: z.string().optional(), reason: z.string().optional() })),
    blockedReason: nullableString(),
    scope: nullableString(),
    delegation: delegationOut.nullable(),
    problems: z.array(problemOut),
    resume: z.object({ step: nullableString(), reason: z.string() }),
    updatedAt: nullableString(),
    stale: z.boolean().describe('True when the file does not read as a workflow right now (a half-written edit, a YAML error): this is its last good state, and problems says what is wrong.'),
    staleReason: z.string().optional(),
    stateHash: z.string(),
  },
  annotations: READ,
  async run(input, host) {
    const { abs } = resolveInside(host.roots, input.file);
    const s = await host.state(abs);
    let delegation: z.infer<typeof delegationOut> | null = null;
    if (s.delegation) {
      const { path: trail, node } = chainOf(host.core.list(), s.file);
      delegation = {
        id: s.delegation.id,
        ...(s.delegation.agent ? { agent: s.delegation.agent } : {}),
        depth: s.delegation.depth,
        chain: trail.length ? trail.map((n) => n.id) : s.delegation.chain_path,
        children: (node?.children ?? []).slice(0, 50).map((c) => ({ id: c.id, ...(c.file ? { file: relativeTo(host.roots, c.file) } : {}), ...(c.status ? { status: c.status } : {}), ...(c.agent ? { agent: c.agent } : {}) })),
      };
    }
    // Per-file problems come with the state; cross-file ones (delegation) need the whole model,
    // which costs O(workflows): only for files that are part of a chain.
    const own = s.delegation ? host.core.problems().filter((p) => p.file === s.file) : s.problems;
    const r = frontmatterResume(s);
    return {
      file: relativeTo(host.roots, s.file),
      workflow: s.workflow,
      dialect: s.dialect,
      status: s.rawStatus ?? s.status ?? null,
      currentStep: s.currentStep ?? null,
      nextStep: s.nextStep ?? null,
      steps: s.steps.slice(0, 200).map((x) => ({ id: x.id, ...(x.title ? { title: x.title } : {}), done: s.stepsCompleted.includes(x.id), ...(x.gate ? { gate: x.gate } : {}) })),
      stepsCompleted: s.stepsCompleted.slice(0, 500),
      gates: Object.entries(s.gates).map(([step, g]) => ({ step, name: g.name, verdict: g.verdict ?? null, open: g.open, ...(g.reviewer ? { reviewer: g.reviewer } : {}), ...(g.reason ? { reason: g.reason } : {}) })),
      blockedReason: s.blockedReason ?? null,
      scope: s.scope ?? null,
      delegation,
      problems: own.slice(0, 50).map((p) => problemJson(host, p)),
      resume: { step: r.step ?? null, reason: r.reason },
      updatedAt: s.updatedAt ?? null,
      stale: s.stale === true,
      ...(s.staleReason ? { staleReason: s.staleReason } : {}),
      stateHash: s.stateHash,
    };
  },
});

const resumeTool = tool({
  name: 'waymark_resume',
  referenceName: 'waymarkResume',
  title: 'Where to continue',
  description:
    'Where to pick up work after a break, a crash or a new session: asks the frontmatter (tier 1), the latest checkpoint (tier 2) and the orchestrator state (tier 3), and says which step, why, and how complete the sources are (degradation). ' +
    'Use it at the start of a session or after an interruption. Without file: every workflow of the workspace (paged). Do not use it to read the full state (use waymark_status).',
  input: { file: filePath.optional(), limit, cursor },
  output: {
    degradation: z.enum(['full', 'standard', 'minimal', 'none']),
    workflows: z.array(resumeOut),
    warnings: z.array(z.string()),
    total: z.number(),
    nextCursor: z.string().optional(),
  },
  annotations: READ,
  async run(input, host) {
    if (input.file !== undefined) {
      const { abs, root } = resolveInside(host.roots, input.file);
      const r = await host.core.protocol.resume(root, abs, { expire: false });
      return { degradation: r.degradation, workflows: [resumeJson(host, r)], warnings: [], total: 1 };
    }
    const reports: ResumeReport[] = [];
    const warnings: string[] = [];
    let degradation: ResumeReport['degradation'] = 'full';
    const order = ['none', 'minimal', 'standard', 'full'];
    for (const root of host.roots) {
      // Read-only: the orchestrator's TTL expiry (a write, which core.protocol.resumeRoot runs
      // first) is left to waymark resume and sync; hence the plain function here.
      const rr = await resumeRoot(root, { expire: false });
      reports.push(...rr.workflows);
      warnings.push(...rr.warnings);
      if (order.indexOf(rr.degradation) < order.indexOf(degradation)) degradation = rr.degradation;
    }
    if (!reports.length) degradation = 'none';
    return page(reports, input, (slice, nextCursor) => ({ degradation, workflows: slice.map((r) => resumeJson(host, r)), warnings, total: reports.length, ...(nextCursor ? { nextCursor } : {}) }));
  },
});

const advance = tool({
  name: 'waymark_advance',
  referenceName: 'waymarkAdvance',
  title: 'Complete a step',
  description:
    'Mark the current step done and move to the next one (on the last step the workflow becomes completed); with step, mark that one step done instead. Refused while the step\'s gate is closed (reason gate-closed) and when the file changed since expectHash (reason conflict). Returns the state before and after and the new stateHash. ' +
    'Use it when you finished a step. Do not use it to start, block or unblock a workflow (use waymark_set_status) or to record a review verdict (use waymark_gate).',
  input: { file: filePath, step: z.string().min(1).max(500).optional().describe('Complete this step (id, number or step file name) instead of the current one.'), expectHash, actor },
  output: mutationOut.shape,
  annotations: WRITE,
  async run(input, host) {
    host.assertCanWrite('Advance');
    const { abs } = resolveInside(host.roots, input.file);
    const step = input.step;
    const r = await host.mutate(abs, mutationOptions(host, input), (o) => (step !== undefined ? host.core.completeStep(abs, step, o) : host.core.advance(abs, o)));
    return mutationJson(host, r);
  },
});

const setStatus = tool({
  name: 'waymark_set_status',
  referenceName: 'waymarkSetStatus',
  title: 'Start, block, unblock or set the status',
  description:
    'Change the status of a workflow: in_progress starts a created workflow or unblocks a blocked one; blocked needs a reason saying what is in the way; completed and archived close it. The status rules refuse moves backwards from completed work (reason transition). Returns the state before and after and the new stateHash. ' +
    'Use it to start, block, unblock, complete or archive. Do not use it to finish a step (use waymark_advance).',
  input: {
    file: filePath,
    status: z.enum(STATUSES).describe('The new status.'),
    reason: z.string().min(1).max(2000).optional().describe('Why (required for blocked).'),
    expectHash,
    actor,
  },
  output: mutationOut.shape,
  annotations: { ...WRITE, destructiveHint: true },
  async run(input, host) {
    host.assertCanWrite('Set status');
    const { abs } = resolveInside(host.roots, input.file);
    if (input.status === 'blocked' && !input.reason?.trim()) throw new WaymarkError('usage', 'Blocking needs a reason: say what is in the way (reason).', abs);
    const current = await host.state(abs);
    const r = await host.mutate(abs, mutationOptions(host, input), (o) => {
      if (input.status === 'blocked') return host.core.block(abs, input.reason!.trim(), o);
      if (input.status === 'in_progress' && current.status === 'blocked') return host.core.unblock(abs, o);
      if (input.status === 'in_progress' && (current.status === 'created' || !current.status)) return host.core.start(abs, o);
      return host.core.setStatus(abs, input.status, { ...o, reason: input.reason });
    });
    return mutationJson(host, r);
  },
});

const gate = tool({
  name: 'waymark_gate',
  referenceName: 'waymarkGate',
  title: 'Record a gate verdict',
  description:
    'Record a review verdict on a gated step: PASS, CONCERNS (both open the gate), FAIL (keeps it closed) or WAIVED (needs reason and by, who approved; expires optional). Written to the step\'s gate file with its history. ' +
    'Use it when you reviewed a gated step or were told the verdict. Do not use it to complete the step itself (use waymark_advance after the gate is open).',
  input: {
    file: filePath,
    step: z.string().min(1).max(500).describe('The gated step id (or gate name).'),
    verdict: z.enum(GATE_VERDICTS),
    reason: z.string().min(1).max(2000).optional(),
    by: z.string().min(1).max(200).optional().describe('Reviewer (for WAIVED: who approved the waiver).'),
    expires: z.string().max(40).optional().describe('WAIVED only: date the waiver lapses (YYYY-MM-DD).'),
    expectHash,
    actor,
  },
  output: {
    file: z.string(),
    step: z.string(),
    gate: z.object({ name: z.string(), file: z.string(), verdict: nullableString(), open: z.boolean(), reviewer: z.string().optional(), reason: z.string().optional(), updated: z.string().optional(), waiverExpires: z.string().optional() }),
    stateHash: z.string(),
  },
  annotations: WRITE,
  async run(input, host) {
    host.assertCanWrite('Record a gate verdict');
    const { abs } = resolveInside(host.roots, input.file);
    const o = mutationOptions(host, input);
    const args = { reason: input.reason, by: input.by };
    let g;
    if (input.verdict === 'WAIVED') {
      if (!input.reason || !input.by) throw new WaymarkError('usage', 'A waiver needs reason (why) and by (who approved it).', abs);
      g = await host.core.gateWaive(abs, input.step, { reason: input.reason, by: input.by, expires: input.expires }, o);
    } else if (input.verdict === 'PASS') g = await host.core.gatePass(abs, input.step, args, o);
    else if (input.verdict === 'FAIL') g = await host.core.gateFail(abs, input.step, args, o);
    else g = await host.core.gateConcerns(abs, input.step, args, o);
    const after = await host.state(abs);
    return {
      file: relativeTo(host.roots, abs),
      step: input.step,
      gate: {
        name: g.name,
        file: relativeTo(host.roots, g.file),
        verdict: g.verdict ?? null,
        open: g.open,
        ...(g.reviewer ? { reviewer: g.reviewer } : {}),
        ...(g.reason ? { reason: g.reason } : {}),
        ...(g.updated ? { updated: g.updated } : {}),
        ...(g.waiver?.expires ? { waiverExpires: g.waiver.expires } : {}),
      },
      stateHash: after.stateHash,
    };
  },
});

const validate = tool({
  name: 'waymark_validate',
  referenceName: 'waymarkValidate',
  title: 'Check workflow files',
  description:
    'List problems in workflow files (file, line, column, severity, code, message, and the quick-fix id when there is one): invalid YAML, unknown status, steps that do not exist, gates, broken delegation chains, unknown or circular dependsOn/after, stalled work. ' +
    'Use it after editing a workflow file by hand or when waymark_summary reports errors. Without path: the whole workspace (paged). Do not use it to read state (use waymark_status).',
  input: {
    path: z.string().min(1).max(4096).optional().describe('A workflow file or a folder, relative to the workspace. Default: everything.'),
    severity: z.enum(['error', 'warning', 'info']).optional().describe('Lowest severity to list (default info: all).'),
    limit,
    cursor,
  },
  output: {
    workflows: z.number(),
    errors: z.number(),
    warnings: z.number(),
    problems: z.array(problemOut),
    total: z.number(),
    nextCursor: z.string().optional(),
  },
  annotations: READ,
  async run(input, host) {
    await host.refresh();
    let scope: ((file: string) => boolean) | undefined;
    let states = host.core.list();
    // The file's own problems and the project's: dependsOn/after targets, cycles, stalled work.
    let problems = [...host.core.problems(), ...(await host.project()).frontier.problems];
    if (input.path !== undefined) {
      const { abs } = resolveInside(host.roots, input.path);
      const known = host.core.get(abs);
      let isFile = !!known;
      if (!known) {
        try {
          isFile = fs.statSync(abs).isFile();
        } catch {
          throw new WaymarkError('unreadable', `${input.path} does not exist.`, abs);
        }
      }
      if (isFile) {
        scope = (f) => f === abs;
        try {
          const s = await host.state(abs);
          if (!problems.some((p) => p.file === s.file)) problems = [...problems, ...s.problems];
        } catch (e) {
          // A file that does not read as a workflow at all: its problems are the answer.
          if (!WaymarkError.is(e, 'invalid')) throw e;
          problems = [...problems.filter((p) => p.file !== abs), ...(await host.core.readWorkflow(abs)).problems];
        }
      } else scope = (f) => under(f, abs);
    }
    if (scope) {
      states = states.filter((s) => scope!(s.file));
      problems = problems.filter((p) => scope!(p.file));
    }
    const rank = { error: 0, warning: 1, info: 2 } as const;
    const min = rank[input.severity ?? 'info'];
    const listed = problems.filter((p) => rank[p.severity] <= min).sort((a, b) => rank[a.severity] - rank[b.severity] || a.file.localeCompare(b.file) || a.range.start.line - b.range.start.line);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.filter((p) => p.severity === 'warning').length;
    return page(listed, input, (slice, nextCursor) => ({ workflows: states.length, errors, warnings, problems: slice.map((p) => problemJson(host, p)), total: listed.length, ...(nextCursor ? { nextCursor } : {}) }));
  },
});

const fixTool = tool({
  name: 'waymark_fix',
  referenceName: 'waymarkFix',
  title: 'Apply a quick fix',
  description:
    'Apply the quick fix of one problem, the same fix the editor offers (e.g. last-step-mismatch in a workflow file; story-unknown-status, story-status-missing, story-legacy-status in a BMAD story file; ledger-legacy-status, ledger-unknown-status, epic-done-stories-open in sprint-status.yaml). Give the file and the problem code from waymark_validate, and line when several problems share the code. A problem that changed since it was listed is refused (reason conflict). ' +
    'Use it to clear a fixable problem. Do not use it to change a status by choice (use waymark_set_status, or waymark story set-status for a story).',
  input: {
    file: z.string().min(1).max(4096).describe('The file with the problem, relative to the workspace folder (a workflow file, a story file or sprint-status.yaml).'),
    code: z.string().min(1).max(100).describe('The problem code (from waymark_validate).'),
    line: z.number().int().min(1).optional().describe('1-based line of the problem, when several share the code.'),
    actor,
  },
  output: {
    file: z.string(),
    code: z.string(),
    fix: z.string().describe('The quick-fix id applied.'),
    title: z.string(),
    changed: z.boolean().describe('False when nothing had to change (nothing written).'),
    written: z.array(z.string()).describe('Files written, relative to the workspace.'),
    seq: z.number().nullable(),
  },
  annotations: WRITE,
  async run(input, host) {
    host.assertCanWrite('Quick fix');
    const { abs, root } = resolveInside(host.roots, input.file);
    if (!isProblemCode(input.code)) throw new WaymarkError('usage', `${input.code} is not a problem code; waymark_validate lists the file's problems.`, abs);
    if (isSprintCode(input.code)) {
      const r = await host.core.sprint.fix(root, abs, input.code, { line: input.line, actor: input.actor ?? host.actor });
      return { file: relativeTo(host.roots, abs), code: r.code, fix: r.fix, title: r.title, changed: r.changed, written: r.written.map((w) => relativeTo(host.roots, w)), seq: r.seq ?? null };
    }
    const { problems, state } = await host.core.readWorkflow(abs);
    const matching = problems.filter((p) => p.code === input.code && (input.line === undefined || p.range.start.line + 1 === input.line));
    if (!matching.length) throw new WaymarkError('usage', `${input.file} has no problem ${input.code}${input.line ? ` at line ${input.line}` : ''}; waymark_validate lists them.`, abs);
    const fixable = matching.find((p) => p.data && typeof p.data.fix === 'string');
    if (!fixable) throw new WaymarkError('usage', `Problem ${input.code} has no quick fix: ${matching[0].message}`, abs);
    const r = await host.mutate(abs, { expectHash: state?.stateHash, actor: input.actor ?? host.actor }, (o) => host.core.applyFix(abs, fixable, o));
    return { file: relativeTo(host.roots, abs), code: input.code, fix: String(fixable.data!.fix), title: fixTitle(fixable), changed: r.changed !== false, written: r.written ? [relativeTo(host.roots, r.file)] : [], seq: r.seq ?? null };
  },
});

const memoryRecall = tool({
  name: 'waymark_memory_recall',
  referenceName: 'waymarkRecall',
  title: 'Recall project memory',
  description:
    'Recall decisions, learnings and summaries recorded earlier (by you, other agents or people), ranked by relevance to a workflow, step, file or text. Says when the memory database is held by another process and the answer came from the journal. ' +
    'Use it before starting a step, to learn what was decided and what went wrong before. Do not use it for workflow state (use waymark_status).',
  input: {
    text: z.string().min(1).max(2000).optional().describe('Words to match.'),
    workflow: filePath.optional().describe('Workflow file the memories are about.'),
    step: z.string().min(1).max(500).optional().describe('Step of that workflow (needs workflow).'),
    file: z.string().min(1).max(4096).optional().describe('A source file the memories mention.'),
    types: z.array(z.enum(MEMORY_TYPES)).max(3).optional(),
    limit: z.number().int().min(1).max(50).optional().describe('At most this many (default 10).'),
  },
  output: {
    engine: z.enum(['kuzu', 'journal']),
    degraded: z.string().optional().describe('Why the graph was not used (another process holds it, ...): the answer came from the journal.'),
    items: z.array(z.object({ id: z.string(), type: z.string(), category: z.string().optional(), title: z.string().optional(), text: z.string(), rationale: z.string().optional(), score: z.number(), reason: z.string(), createdAt: z.string(), workflow: z.string().optional(), step: z.string().optional(), agent: z.string().optional() })),
  },
  annotations: READ,
  async run(input, host) {
    const root = input.workflow !== undefined ? resolveInside(host.roots, input.workflow).root : host.roots[0];
    const workflow = input.workflow !== undefined ? resolveInside(host.roots, input.workflow).abs : undefined;
    const file = input.file !== undefined ? resolveInside(host.roots, input.file).abs : undefined;
    const m = host.memory(root);
    const r = await m.recall({ text: input.text, workflow, step: input.step, file, types: input.types, limit: input.limit ?? 10 }, { waitMs: 300 });
    return {
      engine: r.engine,
      ...(r.degraded ? { degraded: r.degraded } : {}),
      items: r.items.map((i) => ({
        id: i.memory.id,
        type: i.memory.type,
        ...(i.memory.category ? { category: i.memory.category } : {}),
        ...(i.memory.title ? { title: i.memory.title } : {}),
        text: i.memory.text.length > 2000 ? `${i.memory.text.slice(0, 2000)}…` : i.memory.text,
        ...(i.memory.rationale ? { rationale: i.memory.rationale } : {}),
        score: Math.round(i.score * 100) / 100,
        reason: i.reason,
        createdAt: i.memory.createdAt,
        ...(i.memory.source.workflow ? { workflow: i.memory.source.workflow } : {}),
        ...(i.memory.source.step ? { step: i.memory.source.step } : {}),
        ...(i.memory.source.agent ? { agent: i.memory.source.agent } : {}),
      })),
    };
  },
});

const memoryRecord = tool({
  name: 'waymark_memory_record',
  referenceName: 'waymarkRecord',
  title: 'Record a decision or learning',
  description:
    'Record a decision (with rationale), a learning (pattern, gotcha, error, fix, preference, security, observation) or a summary, linked to a workflow, step and files, so later sessions and other agents recall it. Always kept (written to the journal first); stored says whether it also reached the graph now or waits in the inbox because another process holds the database. ' +
    'Use it when you decide something, hit a pitfall, or finish a session. Do not use it for workflow state (use waymark_advance / waymark_set_status).',
  input: {
    type: z.enum(MEMORY_TYPES),
    text: z.string().min(1).max(8000),
    title: z.string().min(1).max(200).optional(),
    category: z.enum([...LEARNING_CATEGORIES, ...SUMMARY_SCOPES] as [string, ...string[]]).optional().describe(`learning: ${LEARNING_CATEGORIES.join('|')}; summary: ${SUMMARY_SCOPES.join('|')}.`),
    rationale: z.string().min(1).max(4000).optional().describe('decision: why.'),
    alternatives: z.array(z.string().min(1).max(500)).max(10).optional().describe('decision: the options not taken.'),
    workflow: filePath.optional(),
    step: z.string().min(1).max(500).optional(),
    files: z.array(z.string().min(1).max(4096)).max(20).optional().describe('Source files it concerns (relative to the workspace).'),
    tags: z.array(z.string().min(1).max(100)).max(20).optional(),
    agent: z.string().min(1).max(200).optional().describe('Who learned or decided this. Default: the server\'s actor.'),
  },
  output: {
    id: z.string(),
    type: z.string(),
    tier: z.number().optional(),
    stored: z.enum(['graph', 'inbox']),
    note: z.string().optional(),
  },
  annotations: WRITE,
  async run(input, host) {
    host.assertCanWrite('Record memory');
    const wf = input.workflow !== undefined ? resolveInside(host.roots, input.workflow) : undefined;
    const files = (input.files ?? []).map((f) => resolveInside(host.roots, f).abs);
    const root = wf?.root ?? host.roots[0];
    const r = await host.memory(root).record(
      {
        type: input.type,
        text: input.text,
        title: input.title,
        category: input.category,
        rationale: input.rationale,
        alternatives: input.alternatives,
        workflow: wf?.abs,
        step: input.step,
        files,
        tags: input.tags,
        agent: input.agent ?? host.actor,
      },
      { waitMs: 300 },
    );
    return { id: r.id, type: r.type, ...(r.tier ? { tier: r.tier } : {}), stored: r.stored, ...(r.note ? { note: r.note } : {}) };
  },
});

const lease = tool({
  name: 'waymark_lease',
  referenceName: 'waymarkLease',
  title: 'Take or release a lease',
  description:
    'Take (acquire) or give back (release) the lease on a workflow file, or on the whole workspace without file, so that other agents\' writes are refused while you work ("locked by ..."). A lease expires (ttl, default 1h) and lapses when this server exits. ' +
    'Use it before a long run of changes that others must not interleave with, and release it when done. Do not use it for a single write (writes are already atomic and hash-checked).',
  input: {
    action: z.enum(['acquire', 'release']),
    file: filePath.optional().describe('The workflow file; omit for the whole workspace.'),
    ttl: z.string().max(20).optional().describe('Lease length, e.g. 90s, 30m, 2h (acquire only; default 1h).'),
  },
  output: {
    action: z.enum(['acquire', 'release']),
    outcome: z.enum(['acquired', 'renewed', 'broke-stale', 'released', 'not-held']),
    target: z.string(),
    holder: z.string(),
    expiresAt: z.string().optional(),
  },
  annotations: WRITE,
  async run(input, host) {
    host.assertCanWrite(input.action === 'acquire' ? 'Acquire a lease' : 'Release a lease');
    const t = input.file !== undefined ? resolveInside(host.roots, input.file) : { abs: undefined, root: host.roots[0] };
    const owner = host.owner();
    if (input.action === 'acquire') {
      let ttlMs: number | undefined;
      if (input.ttl !== undefined) {
        ttlMs = parseTtl(input.ttl);
        if (ttlMs === undefined) throw new WaymarkError('usage', `ttl '${input.ttl}' is not a duration (e.g. 90s, 30m, 2h, 1d).`);
      }
      const r = await host.core.protocol.acquireLease(t.root, t.abs, owner, { ttlMs });
      return { action: input.action, outcome: r.outcome, target: r.lease.target, holder: describeOwner(r.lease.owner), expiresAt: r.lease.expiresAt };
    }
    const r = await host.core.protocol.releaseLease(t.root, t.abs, owner);
    return { action: input.action, outcome: r.released ? ('released' as const) : ('not-held' as const), target: r.lease?.target ?? (t.abs ? relativeTo(host.roots, t.abs) : '*'), holder: describeOwner(r.lease?.owner ?? owner) };
  },
});

function entryOut(host: ToolHost, e: FrontierEntry): z.infer<ReturnType<typeof frontierEntryOut>> {
  return frontierEntryJson(e, (file) => (file ? relativeTo(host.roots, file) : null));
}

const next = tool({
  name: 'waymark_next',
  referenceName: 'waymarkNext',
  title: 'What to start next',
  description:
    'The project frontier: the work ready to start (every prerequisite done), in the order to start it — what unblocks the most work first, then priority, then age — each with the reason; work waiting for review; stalled work (in progress with no activity for longer than the threshold, with who last touched it); the critical path; dependency problems (unknown dependsOn/after targets, cycles). ' +
    'Use it to choose what to work on, or to check whether something you want to start still waits on another item. Do not use it for the detail of one workflow (use waymark_status).',
  input: { limit },
  output: {
    now: z.string(),
    next: frontierEntryOut().nullable().describe('The first ready item; null when nothing is ready.'),
    ready: z.array(frontierEntryOut()),
    readyTotal: z.number(),
    review: z.array(frontierEntryOut()),
    stalled: z.array(frontierEntryOut()),
    criticalPath: z.array(z.string()).describe('The longest chain of remaining work, first to do → last, by id.'),
    problems: z.array(problemOut),
  },
  annotations: READ,
  async run(input, host) {
    const view = await host.project();
    const f = view.frontier;
    const n = Math.min(input.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    return {
      now: view.now,
      next: f.ready[0] ? entryOut(host, f.ready[0]) : null,
      ready: f.ready.slice(0, n).map((e) => entryOut(host, e)),
      readyTotal: f.ready.length,
      review: f.review.slice(0, n).map((e) => entryOut(host, e)),
      stalled: f.stalled.slice(0, n).map((e) => entryOut(host, e)),
      criticalPath: f.criticalPath,
      problems: f.problems.filter((p) => p.code !== 'work-stalled').slice(0, n).map((p) => problemJson(host, p)),
    };
  },
});

const COLUMN_KEYS = BOARD_COLUMNS.map(([k]) => k) as [BoardColumn, ...BoardColumn[]];

const board = tool({
  name: 'waymark_board',
  referenceName: 'waymarkBoard',
  title: 'Project board',
  description:
    'Every workflow and BMAD story of the workspace by board column — ready, inProgress, review, blocked (and by what), done, dropped — with counts, the stalled ids and the critical path. ' +
    'Use it for the whole picture (an orchestrator planning, a lead reporting); pass column to list one column. Paged: pass nextCursor to continue. Do not use it to pick what to start (waymark_next is shorter) or for one workflow (waymark_status).',
  input: {
    column: z.enum(COLUMN_KEYS).optional().describe('Only this column (default: all, in column order).'),
    limit,
    cursor,
  },
  output: {
    counts: z.record(z.number()).describe('Items per column.'),
    items: z.array(frontierEntryOut()),
    total: z.number(),
    nextCursor: z.string().optional(),
    stalled: z.array(z.string()),
    criticalPath: z.array(z.string()),
  },
  annotations: READ,
  async run(input, host) {
    const f = (await host.project()).frontier;
    const counts: Record<string, number> = {};
    for (const [key] of BOARD_COLUMNS) counts[key] = f[key].length;
    const items = input.column ? f[input.column] : BOARD_COLUMNS.flatMap(([key]) => f[key]);
    return page(items, input, (slice, nextCursor) => ({
      counts,
      items: slice.map((e) => entryOut(host, e)),
      total: items.length,
      ...(nextCursor ? { nextCursor } : {}),
      stalled: f.stalled.map((e) => e.id),
      criticalPath: f.criticalPath,
    }));
  },
});

/** Every tool, in the order agents see them. */
export const TOOLS: WaymarkTool[] = [summary, status, resumeTool, next, board, advance, setStatus, gate, validate, fixTool, memoryRecall, memoryRecord, lease] as unknown as WaymarkTool[];

// ---- answers -----------------------------------------------------------------------------

/** One line saying what to do about a failure, per reason. */
export const ADVICE: Record<WaymarkErrorReason, string> = {
  usage: 'Fix the arguments (see the tool description) and call again.',
  unreadable: 'Check the path with waymark_summary; the file must be a readable UTF-8 workflow file inside the workspace.',
  invalid: 'Run waymark_validate on the file, fix the problem it names, then retry.',
  conflict: 'The file changed since you read it: call waymark_status for the new state and stateHash, decide again, then retry with that expectHash.',
  locked: 'Someone else holds the file or its lease: wait and retry, or ask its holder to release it.',
  'gate-closed': 'The step\'s gate is closed: get a PASS, CONCERNS or WAIVED verdict recorded (waymark_gate), then advance.',
  transition: 'The status rules refuse this move: read the allowed moves in the message; completed work is not moved backwards.',
  refused: 'Enforcement refuses this write: fix the error-level problems the message names (waymark_validate), or wait for the orchestrator that blocks the workflow; a person may force it from the CLI (--force, recorded in history).',
  io: 'The file system refused the write (read-only, full disk); nothing was changed unless the message says so.',
  unavailable: 'This is not available here (for example a workspace not trusted in VS Code); the message says why.',
};

/** A tool's answer, the same for MCP and VS Code. */
export interface ToolAnswer {
  isError: boolean;
  /** JSON of the structured result (or of the error). */
  text: string;
  structured: Record<string, unknown>;
}

/** The error answer: the CLI's reason code and exit code, the message, and one line of advice. */
export function errorAnswer(e: unknown, roots: readonly string[]): ToolAnswer {
  const known = WaymarkError.is(e);
  const reason: WaymarkErrorReason = known ? e.reason : 'io';
  const file = known && e.file ? relativeTo(roots, e.file) : undefined;
  const structured = {
    error: {
      reason,
      exitCode: EXIT_CODES[reason],
      message: known ? e.message : `unexpected error: ${errorMessage(e)}`,
      ...(file ? { file } : {}),
      advice: ADVICE[reason],
      ...(known && e.data ? { data: e.data } : {}),
    },
  };
  return { isError: true, text: JSON.stringify(structured), structured };
}

/** Validates the input, runs the tool, and shapes the answer (errors included). Never throws. */
export async function runTool(t: WaymarkTool, rawInput: unknown, host: ToolHost): Promise<ToolAnswer> {
  const parsed = t.input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
    return errorAnswer(new WaymarkError('usage', `Invalid arguments for ${t.name}: ${msg}.`), host.roots);
  }
  try {
    const structured = (await t.run(parsed.data, host)) as Record<string, unknown>;
    const text = JSON.stringify(structured);
    return { isError: false, text, structured };
  } catch (e) {
    return errorAnswer(e, host.roots);
  }
}

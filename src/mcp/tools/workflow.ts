// Tools over one workflow file: its state and where to resume (read), and the moves that change
// it through the core's mutation pipeline (advance, set status, gate verdicts).
import { z } from 'zod';
import { GATE_VERDICTS, STATUSES, WaymarkError, chainOf, frontmatterResume, resumeRoot } from '../../core/index';
import type { ResumeReport, WorkflowState } from '../../core/index';
import type { ToolHost } from '../host';
import { relativeTo, resolveInside } from '../host';
import { filePath, expectHash, actor, limit, cursor, nullableString, mutationOut, problemOut, delegationOut, resumeOut, tool, AnswerCache, READ, WRITE, problemJson, mutationJson, mutationOptions, page, resumeJson } from './shared';

const statusOutput = {
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
};

export const status = tool({
  name: 'waymark_status',
  referenceName: 'waymarkStatus',
  title: 'One workflow in detail',
  description:
    'The full state of ONE workflow file: status, current and next step, every step (done, gated), gate verdicts, delegation chain (parent and children), its problems, where to resume, and the stateHash to pass as expectHash to a write. ' +
    'Use it before changing a workflow and whenever you need exact state. Do not use it to find workflows (use waymark_summary) or to check many files (use waymark_validate).',
  input: { file: filePath },
  output: statusOutput,
  annotations: READ,
  async run(input, host) {
    const { abs } = resolveInside(host.roots, input.file);
    const s = await host.state(abs);
    // A state outside any delegation chain answers from itself alone: the answer built for it is
    // kept until the file is re-read (a new state object).
    return s.delegation ? statusJson(host, s) : statusAnswers.get(host, s, '', () => statusJson(host, s));
  },
});

const statusAnswers = new AnswerCache<WorkflowState, z.infer<z.ZodObject<typeof statusOutput>>>();

function statusJson(host: ToolHost, s: WorkflowState): z.infer<z.ZodObject<typeof statusOutput>> {
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
}

export const resumeTool = tool({
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
    // The hot memory file follows the active workflow after each write (consolidation).
    await host.core.memory.settled();
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

export const advance = tool({
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

export const setStatus = tool({
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

export const gate = tool({
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

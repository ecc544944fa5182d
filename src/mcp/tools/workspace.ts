// Tools over the whole workspace: the summary of every workflow and the sprint, problems
// (validate) and their fixes.
import * as fs from 'node:fs';
import { z } from 'zod';
import { STATUSES, WaymarkError, isProblemCode, isSprintCode, fixTitle } from '../../core/index';
import type { WorkflowState } from '../../core/index';
import { relativeTo, resolveInside } from '../host';
import { actor, limit, cursor, problemOut, workflowBrief, nextAction, sprintOut, tool, READ, WRITE, stepsDone, problemJson, page, under, nextFor, sprintSummary, ticketTreeOut, ticketTreeSummary } from './shared';

export const summary = tool({
  name: 'waymark_summary',
  referenceName: 'waymarkSummary',
  title: 'Workflow summary and what next',
  description:
    'Summarise every workflow in the workspace: counts by status, what to do next (advance, pass a gate, unblock, start, fix problems), and one line per workflow (status, current step, progress, stateHash); in a BMAD project also the sprint (active stories, task progress, what BMAD runs next), or in BMAD v7 the ticket tree (tickets by state, what is ready, in progress and blocked). ' +
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
    tickets: ticketTreeOut().optional().describe('BMAD v7\'s ticket tree, when the project has one: counts by state and at most 10 tickets per group.'),
  },
  annotations: READ,
  async run(input, host) {
    await host.refresh();
    const tickets = await ticketTreeSummary(host, 10);
    const sprint = await sprintSummary(host);
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
      ...(tickets ? { tickets } : {}),
    }));
  },
});

export const validate = tool({
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

export const fixTool = tool({
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

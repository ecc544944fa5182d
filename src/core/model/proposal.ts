/**
 * Judging a proposed change of one workflow file's text (an agent's direct edit, a staged
 * commit) by the same rules a Waymark mutation follows: the status state machine, no rewinding
 * completed steps, gates before gated steps, no steps while blocked or not started, and no new
 * validation errors. Pure: the caller reads the files, the leases and the gates.
 */
import { transitionRefusal } from './transitions';
import { stepAnalysis, type ParsedWorkflow } from './workflow';
import type { Problem, Status, WorkflowState } from '../types';
import { closedGateWhy } from './gates';
import { quoted } from './text';

/** One reason a proposed change is refused (`error`) or worth telling the agent (`warning`). */
export interface ProposalProblem {
  severity: 'error' | 'warning';
  /** Stable: `status-transition`, `step-rewound`, `gate-closed`, `state-hidden`, `leased`... */
  code: string;
  /** What is wrong, in one line. */
  message: string;
  /** What to do instead, naming the command (`waymark gate pass docs/prd.md design`). */
  fix?: string;
  /** 1-based line in the proposed text, when known. */
  line?: number;
}

function done(state: WorkflowState): Set<string> {
  const a = stepAnalysis(state);
  // Without a known step list the ids written are all there is to compare.
  return state.steps.length ? new Set(a.done) : new Set(state.stepsCompleted);
}

function counts(problems: Problem[], severity: Problem['severity']): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of problems) if (p.severity === severity) m.set(p.code, (m.get(p.code) ?? 0) + 1);
  return m;
}

/** Problems of `after` at `severity` that `before` did not have (compared by code and count). */
export function newProblems(before: Problem[], after: Problem[], severity: Problem['severity']): Problem[] {
  const seen = counts(before, severity);
  const out: Problem[] = [];
  for (const p of after) {
    if (p.severity !== severity) continue;
    const n = seen.get(p.code) ?? 0;
    if (n > 0) seen.set(p.code, n - 1);
    else out.push(p);
  }
  return out;
}

function transitionFix(rel: string, from: Status | undefined, to: Status): string | undefined {
  if (from === 'created' && (to === 'completed' || to === 'blocked')) return `start it first: waymark start ${rel}`;
  if ((from === 'completed' || from === 'archived') && to !== 'archived') return `leave it ${from} and open a follow-up instead: waymark delegate ${rel} --agent NAME`;
  if (from === 'completed' && to === 'archived') return undefined;
  if (to === 'created') return `keep the status; to stop work use waymark block ${rel} --reason TEXT`;
  return `use waymark set-status ${rel} STATUS, which follows created → in_progress ⇄ blocked → completed → archived`;
}

/**
 * Judges `after` (the parsed proposed text) against `before` (the file's current state, or
 * undefined for a new file). `rel` is the path shown in fixes. Errors refuse the change;
 * warnings are worth reporting but do not block.
 */
export function judgeWorkflowChange(before: WorkflowState | undefined, after: ParsedWorkflow, rel: string): ProposalProblem[] {
  const out: ProposalProblem[] = [];
  if (!after.isWorkflow) {
    if (before) {
      out.push({
        severity: 'error', code: 'state-removed',
        message: `the edit removes the workflow state of ${rel} (its frontmatter would carry no workflow keys)`,
        fix: `keep the frontmatter; to end the workflow run waymark set-status ${rel} completed (or archived)`,
      });
    }
    return out;
  }
  if (!after.state) {
    const first = after.problems.find((p) => p.severity === 'error');
    out.push({
      severity: 'error', code: 'state-hidden',
      message: `the edit leaves ${rel} unreadable${first ? `: ${first.message}` : ''}`,
      fix: 'keep the frontmatter valid YAML between the --- lines; Waymark cannot see the state until then',
      line: first ? first.range.start.line + 1 : undefined,
    });
    return out;
  }
  const a = after.state;
  const b = before;
  const reported = new Set<string>();
  if (b && b.status !== a.status) {
    if (a.status === undefined && a.rawStatus !== undefined) {
      out.push({ severity: 'error', code: 'status-unknown', message: `status ${quoted(a.rawStatus)} is not a status Waymark knows`, fix: `use waymark set-status ${rel} STATUS (created, in_progress, blocked, completed, archived)` });
      reported.add('unknown-status');
    } else if (a.status !== undefined) {
      const why = transitionRefusal(b.status, a.status);
      if (why) out.push({ severity: 'error', code: 'status-transition', message: `status ${b.rawStatus ?? '(none)'} → ${a.rawStatus}: ${why}`, fix: transitionFix(rel, b.status, a.status) });
    }
  }
  const beforeDone = b ? done(b) : new Set<string>();
  const afterDone = done(a);
  const lost = [...beforeDone].filter((id) => !afterDone.has(id));
  if (lost.length) {
    out.push({
      severity: 'error', code: 'step-rewound',
      message: `the edit removes completed step${lost.length > 1 ? 's' : ''} ${lost.join(', ')} from stepsCompleted; completed work is never rewound`,
      fix: `keep ${lost.length > 1 ? 'them' : 'it'}; to redo work, open a follow-up: waymark delegate ${rel} --agent NAME`,
    });
  }
  const gained = a.steps.length ? a.steps.filter((s) => afterDone.has(s.id) && !beforeDone.has(s.id)) : [];
  if (gained.length || (!a.steps.length && [...afterDone].some((id) => !beforeDone.has(id)))) {
    const names = gained.map((s) => s.id).join(', ') || [...afterDone].filter((id) => !beforeDone.has(id)).join(', ');
    const wasFinal = b?.status === 'completed' || b?.status === 'archived';
    if (wasFinal) {
      out.push({ severity: 'error', code: 'step-after-completion', message: `${rel} is ${b!.status}; it cannot complete ${names}`, fix: `open a follow-up instead: waymark delegate ${rel} --agent NAME` });
    } else if (a.status === 'blocked') {
      out.push({ severity: 'error', code: 'step-while-blocked', message: `${rel} is blocked${a.blockedReason ? ` (${a.blockedReason})` : ''}; it cannot complete ${names}`, fix: `unblock it first: waymark unblock ${rel}` });
    } else if (a.status === 'created') {
      out.push({ severity: 'error', code: 'step-before-start', message: `${rel} has not been started; it cannot complete ${names}`, fix: `start it first: waymark start ${rel}` });
    }
  }
  for (const s of gained) {
    if (!s.gate) continue;
    const g = a.gates[s.id];
    if (g?.open) continue;
    out.push({ severity: 'error', code: 'gate-closed', message: `step ${s.id} is gated and ${closedGateWhy(g, s.gate)}`, fix: `record the gate first: waymark gate pass ${rel} ${s.id} --by NAME (a reviewer's verdict), then mark the step done` });
    reported.add('gate-not-passed');
  }
  for (const p of newProblems(b?.problems ?? [], a.problems, 'error')) {
    if (reported.has(p.code)) continue;
    out.push({ severity: 'error', code: p.code, message: `line ${p.range.start.line + 1}: ${p.message}`, line: p.range.start.line + 1, fix: typeof p.data?.fix === 'string' && p.data.fix !== 'createGate' ? `waymark fix ${rel} ${p.code} applies the quick fix` : undefined });
  }
  const stale = staleCurrentStep(a);
  if (stale && (!b || staleCurrentStep(b) !== stale)) out.push({ severity: 'warning', code: 'current-step-stale', message: stale, fix: `set currentStep: ${a.nextStep} (waymark advance and complete-step update every key in one write)` });
  for (const p of newProblems(b?.problems ?? [], a.problems, 'warning')) {
    out.push({ severity: 'warning', code: p.code, message: `line ${p.range.start.line + 1}: ${p.message}`, line: p.range.start.line + 1 });
  }
  return out;
}

/** Says so when `currentStep` names a step already done while later steps remain (a partial completion write). */
export function staleCurrentStep(s: WorkflowState): string | undefined {
  if (!s.currentStep || !s.nextStep || s.status === 'completed' || s.status === 'archived') return undefined;
  if (!s.steps.some((x) => x.id === s.currentStep) || !stepAnalysis(s).done.has(s.currentStep)) return undefined;
  return `currentStep is ${s.currentStep}, which is already done; the completion write did not move it to ${s.nextStep}`;
}

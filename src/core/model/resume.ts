import type { ResumePoint, WorkflowState } from '../types';
import { stepAnalysis } from './workflow';
import { quoted } from './text';

/**
 * Tier-1 resume from frontmatter alone: the step to do next and why. Skipped steps (a gap before
 * the furthest completed step) come first; then the current step if it is not done; then the first
 * step in order that is not done.
 */
export function frontmatterResume(state: WorkflowState): ResumePoint {
  const base = { file: state.file, workflow: state.workflow, tier: 1 as const, warnings: [] as string[] };
  const a = stepAnalysis(state);
  const fileOf = (id: string | undefined) => state.steps.find((s) => s.id === id)?.file;
  if (state.status === 'blocked') base.warnings.push(`Workflow is blocked${state.blockedReason ? `: ${state.blockedReason}` : ' (no reason given)'}. Unblock it before resuming.`);
  if (state.status === 'archived') return { ...base, reason: 'Workflow is archived; nothing to resume.' };
  if (state.steps.length === 0) {
    if (state.currentStep) return { ...base, step: state.currentStep, reason: `No step list is known for ${quoted(state.workflow)}; currentStep is ${state.currentStep}.` };
    return { ...base, reason: `No step list is known for ${quoted(state.workflow)} (add steps or a definition), so the next step cannot be derived.` };
  }
  const unknown = a.entries.filter((e) => !e.id).map((e) => JSON.stringify(e.raw));
  if (unknown.length) base.warnings.push(`stepsCompleted has entries that are not steps: ${unknown.join(', ')}.`);
  if (a.missing.length) {
    const first = a.missing[0];
    const last = state.steps[state.steps.length - 1];
    const rest = a.missing.length > 1 ? ` (then ${a.missing.slice(1).map((s) => s.id).join(', ')})` : '';
    const tail = a.done.has(last.id) ? '' : ` After that, continue from ${a.remaining.find((s) => s.index > a.furthest!.index)?.id ?? last.id}; the workflow never reached ${last.id}.`;
    return { ...base, step: first.id, stepFile: first.file, reason: `${first.id} was skipped: stepsCompleted records steps up to ${a.furthest!.id} but not ${a.missing.map((s) => s.id).join(', ')}. Resume at ${first.id}${rest}.${tail}` };
  }
  if (a.remaining.length === 0) {
    if (state.status !== 'completed') base.warnings.push(`Every step is done but status is ${state.rawStatus ?? 'missing'}; set it to completed.`);
    return { ...base, reason: `All ${state.steps.length} steps of ${quoted(state.workflow)} are done.` };
  }
  if (state.currentStep && !a.done.has(state.currentStep) && state.steps.some((s) => s.id === state.currentStep) && state.dialect === 'waymark') {
    return { ...base, step: state.currentStep, stepFile: fileOf(state.currentStep), reason: `currentStep is ${state.currentStep} and it is not completed yet.` };
  }
  const next = a.remaining[0];
  if (state.status === 'completed') base.warnings.push(`Status says complete but ${a.remaining.length} step(s) remain.`);
  const after = a.furthest ? `the last completed step is ${a.furthest.id}` : 'no step is completed yet';
  return { ...base, step: next.id, stepFile: next.file, reason: `${next.id} is the first step not completed (${after}).` };
}

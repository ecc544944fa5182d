// How state reads on screen: one place so trees, status bar, hovers and decorations agree.
import * as vscode from 'vscode';
import type { GateState, StepDef, WorkflowState } from '../core/index';

/** Problem codes about delegation chains (cross-file): shown in the Delegation view, kept for unsaved buffers. */
export const DELEGATION_CODE = /deleg|depth|chain|orphan|cycle|parent|root/i;

export type StepKind = 'done' | 'current' | 'pending' | 'gated' | 'blocked';

export function doneCount(state: WorkflowState): number {
  const done = new Set(state.stepsCompleted);
  return state.steps.filter((s) => done.has(s.id)).length;
}

/** `3/12`, or `2 done` when the steps are unknown. */
export function progress(state: WorkflowState): string {
  if (!state.steps.length) return `${state.stepsCompleted.length} done`;
  return `${doneCount(state)}/${state.steps.length}`;
}

/** The step the workflow is on: `currentStep`, else the next step to do. */
export function activeStep(state: WorkflowState): string | undefined {
  if (state.status === 'completed' || state.status === 'archived') return state.currentStep;
  return state.currentStep ?? state.nextStep;
}

export function gateFor(state: WorkflowState, step: StepDef | string): GateState | undefined {
  const id = typeof step === 'string' ? step : step.id;
  return state.gates[id];
}

export function stepKind(state: WorkflowState, step: StepDef): StepKind {
  if (state.stepsCompleted.includes(step.id)) return 'done';
  const current = activeStep(state) === step.id;
  const gate = gateFor(state, step);
  if (current && state.status === 'blocked') return 'blocked';
  if (gate && !gate.open) return 'gated';
  return current ? 'current' : 'pending';
}

export function stepIcon(kind: StepKind): vscode.ThemeIcon {
  switch (kind) {
    case 'done':
      return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    case 'current':
      return new vscode.ThemeIcon('debug-stackframe', new vscode.ThemeColor('charts.blue'));
    case 'gated':
      return new vscode.ThemeIcon('lock', new vscode.ThemeColor('charts.yellow'));
    case 'blocked':
      return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('errorForeground'));
    default:
      return new vscode.ThemeIcon('circle-large-outline');
  }
}

export const STATUS_LABELS: Record<string, string> = {
  in_progress: 'In progress',
  blocked: 'Blocked',
  created: 'Created',
  completed: 'Completed',
  archived: 'Archived',
  unknown: 'Unknown status',
};

export const STATUS_ORDER = ['in_progress', 'blocked', 'created', 'unknown', 'completed', 'archived'];

export function statusKey(state: WorkflowState): string {
  return state.status ?? 'unknown';
}

export function statusIcon(status: string, hasErrors = false): vscode.ThemeIcon {
  if (hasErrors) return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  switch (status) {
    case 'in_progress':
      return new vscode.ThemeIcon('play-circle', new vscode.ThemeColor('charts.blue'));
    case 'blocked':
      return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('errorForeground'));
    case 'created':
      return new vscode.ThemeIcon('circle-large-outline');
    case 'completed':
      return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    case 'archived':
      return new vscode.ThemeIcon('archive');
    default:
      return new vscode.ThemeIcon('question', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  }
}

export function gateLabel(gate: GateState): string {
  if (!gate.exists) return 'missing';
  const verdict = gate.verdict ?? 'PASS';
  if (gate.unrecorded !== undefined) return `${verdict} (not recorded)`;
  if (verdict === 'WAIVED' && !gate.open) return 'WAIVED (expired)';
  return verdict;
}

export function gateIcon(gate: GateState): vscode.ThemeIcon {
  if (!gate.exists) return new vscode.ThemeIcon('circle-large-outline', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  if (gate.unrecorded !== undefined) return new vscode.ThemeIcon('unverified', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  switch (gate.verdict ?? 'PASS') {
    case 'PASS':
      return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    case 'CONCERNS':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    case 'FAIL':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    default:
      return new vscode.ThemeIcon('shield', gate.open ? new vscode.ThemeColor('charts.purple') : new vscode.ThemeColor('errorForeground'));
  }
}

export function stepTitle(step: StepDef): string {
  return step.title && step.title !== step.id ? `${step.id} — ${step.title}` : step.id;
}


/** Escapes Markdown so agent-written text (names, reasons) shows as typed. */
export function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]<>|]/g, (c) => `\\${c}`);
}

/**
 * A count with thousands separators as en-US writes it (10,000). `toLocaleString` loads the number
 * formats of ICU on its first call: tens of ms on the extension host's thread at the first listing.
 */
export function thousands(n: number): string {
  const s = String(Math.trunc(n));
  return s.replace(/\B(?=(\d{3})+$)/g, ',');
}

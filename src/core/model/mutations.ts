import { statusKeyOf } from '../bmad/artifacts';
import { WaymarkError } from '../errors';
import { assertTransition } from './transitions';
import type { EditScalar, FrontmatterEdit } from './edit';
import { SCOPES, STATUSES } from '../types';
import { stepAnalysis } from './workflow';
import { isFixId } from './problems';
import { closedGateWhy } from './gates';
import type { GateState, Problem, Scope, Status, StepDef, WorkflowState } from '../types';

/**
 * Pure planning of each mutation: given the state read under the lock, which frontmatter
 * keys change and to what, written in the dialect the file already uses.
 */
export interface Plan {
  edits: FrontmatterEdit[];
  /** Facts for the history line (reason, step, gate...). */
  detail?: Record<string, unknown>;
}

/** Tells whether advancing past a gated step is allowed right now (read fresh under the lock). */
export type GateLookup = (step: StepDef) => GateState | undefined;

const BMAD_WORDS: Record<Status, string> = {
  created: 'draft',
  in_progress: 'in-progress',
  blocked: 'blocked',
  completed: 'complete',
  archived: 'archived',
};

function has(data: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(data, key);
}

/** The status word to write: BMAD words (`in-progress`, `complete`) when the file uses them. */
export function statusWord(state: WorkflowState, status: Status): string {
  const raw = state.rawStatus;
  const hyphenated = raw !== undefined && /-/.test(raw);
  const bmadWords = raw !== undefined && ['complete', 'draft', 'review', 'ready-for-dev', 'in-progress', 'done'].includes(raw);
  if (state.dialect === 'bmad' || hyphenated || bmadWords) return BMAD_WORDS[status];
  return status;
}

/** `current_step` when the file uses that spelling, else `currentStep`; undefined when a BMAD file has neither. */
export function currentStepKey(state: WorkflowState): string | undefined {
  if (has(state.data, 'current_step')) return 'current_step';
  if (has(state.data, 'currentStep')) return 'currentStep';
  return state.dialect === 'bmad' ? undefined : 'currentStep';
}

export type StepEncoding = 'int' | 'id' | 'file';

/** How the file writes `stepsCompleted` entries: integers, step ids or step file names. */
export function stepsEncoding(state: WorkflowState): StepEncoding {
  const raw = rawCompleted(state);
  const sample = raw.filter((v) => v !== null && v !== undefined);
  if (sample.length) {
    if (sample.every((v) => typeof v === 'number')) return 'int';
    if (sample.some((v) => typeof v === 'string' && /\.md$/i.test(v))) return 'file';
    if (sample.every((v) => typeof v === 'number' || (typeof v === 'string' && /^\d+[a-z]?$/i.test(v)))) return 'int';
    return 'id';
  }
  if (state.dialect === 'bmad' && state.steps.length && state.steps.every((s) => stepNumber(s.id) !== undefined)) return 'int';
  return 'id';
}

function stepNumber(id: string): { n: number; letter: string } | undefined {
  const m = /^step-?0*(\d+)([a-z]?)(?:[-_.]|$)/i.exec(id);
  return m ? { n: Number(m[1]), letter: m[2].toLowerCase() } : undefined;
}

/** Encodes a step id the way the file writes its list (`3`, `step-03-success`, `step-03-success.md`). */
export function encodeStep(step: string, encoding: StepEncoding): EditScalar {
  if (encoding === 'int') {
    const n = stepNumber(step);
    // Lettered sub-steps (`step-02b-…`) have no integer: they are written by id.
    if (n && !n.letter) return n.n;
    return step;
  }
  if (encoding === 'file') return /\.md$/i.test(step) ? step : `${step}.md`;
  return step;
}

function rawCompleted(state: WorkflowState): EditScalar[] {
  const v = state.data.stepsCompleted;
  if (Array.isArray(v)) return v.filter((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x)) as EditScalar[];
  if (v === undefined || v === null) return [];
  return typeof v === 'string' || typeof v === 'number' ? [v] : [];
}

function findStep(state: WorkflowState, step: string): StepDef | undefined {
  const exact = state.steps.find((s) => s.id === step);
  if (exact) return exact;
  // Accept `3`, `03`, `step-03` or a file name for convenience.
  const bare = step.replace(/\.md$/i, '');
  const direct = state.steps.find((s) => s.id === bare);
  if (direct) return direct;
  const n = /^\d+[a-z]?$/i.test(bare) ? stepNumber(`step-${bare}`) : stepNumber(bare);
  if (!n) return undefined;
  const matches = state.steps.filter((s) => {
    const m = stepNumber(s.id);
    return m && m.n === n.n && m.letter === n.letter;
  });
  return matches.length === 1 ? matches[0] : undefined;
}

import { clip } from './text';

function requireStep(state: WorkflowState, step: string): StepDef {
  const def = findStep(state, step);
  if (!def) {
    const known = state.steps.map((s) => s.id);
    throw new WaymarkError(
      'usage',
      known.length
        ? `${clip(step)} is not a step of ${clip(state.workflow)}; steps are: ${known.slice(0, 12).map((k) => clip(k)).join(', ')}${known.length > 12 ? ', …' : ''}.`
        : `${state.workflow} has no known steps (no steps list, definition or BMAD step files); add them first.`,
      state.file,
    );
  }
  return def;
}

function timestampEdits(state: WorkflowState, now: Date): FrontmatterEdit[] {
  return has(state.data, 'updatedAt') ? [{ key: 'updatedAt', value: now.toISOString() }] : [];
}

/**
 * Refuses to act on a status Waymark cannot read (`Done`, `COMPLETE`, `5`, a list): guessing
 * could reopen finished work or overwrite a value someone meant. An absent, null or empty
 * status is a fresh start and fine.
 */
function assertStatusReadable(state: WorkflowState): void {
  const v = state.data.status;
  if (v === undefined || v === null || v === '' || state.status !== undefined) return;
  const shown = typeof v === 'object' ? (Array.isArray(v) ? 'a list' : 'a mapping') : JSON.stringify(v);
  throw new WaymarkError(
    'transition',
    `Refused: status ${shown} is not a status Waymark knows (created, in_progress, blocked, completed, archived). Fix it first (waymark fix ${state.file} unknown-status, or edit it), then retry.`,
    state.file,
    { status: typeof v === 'object' ? null : v },
  );
}

/**
 * Refuses to rewrite a `stepsCompleted` that is not a plain list of step ids/numbers (a string,
 * a mapping, nested lists): writing a list back would drop what is there.
 */
function assertCompletedWritable(state: WorkflowState): void {
  const v = state.data.stepsCompleted;
  if (v === undefined || v === null) return;
  if (Array.isArray(v) && v.every((x) => x === null || ['string', 'number'].includes(typeof x))) return;
  const shown = Array.isArray(v) ? 'a list with nested lists or mappings' : typeof v === 'object' ? 'a mapping' : `the single value ${JSON.stringify(v)}`;
  throw new WaymarkError(
    'invalid',
    `Refused: stepsCompleted holds ${shown}, not a list of step ids; Waymark will not overwrite it. Fix it by hand (e.g. stepsCompleted: [step-a, step-b]), then retry.`,
    state.file,
  );
}

function assertWorkable(state: WorkflowState, what: string): void {
  const s = state.status;
  if (s === 'blocked') throw new WaymarkError('transition', `Refused: ${state.workflow} is blocked${state.blockedReason ? ` (${state.blockedReason})` : ''}; unblock it before you ${what}.`, state.file);
  if (s === 'completed' || s === 'archived') throw new WaymarkError('transition', `Refused: ${state.workflow} is ${s}; a ${s} workflow cannot ${what}.`, state.file);
  if (s === 'created') throw new WaymarkError('transition', `Refused: ${state.workflow} has not been started; run start first, then ${what}.`, state.file);
}

function assertGate(state: WorkflowState, def: StepDef, gates: GateLookup): Record<string, unknown> | undefined {
  if (!def.gate) return undefined;
  const g = gates(def);
  if (!g || !g.open) {
    const why = !g || !g.exists ? `${closedGateWhy(g, def.gate)} (no gate file${g ? ` at ${g.file}` : ''})` : closedGateWhy(g, def.gate);
    throw new WaymarkError('gate-closed', `Refused: step ${def.id} is gated and ${why}; record a verdict with waymark gate pass|concerns|waive ${state.file} ${def.id} --by NAME.`, state.file, {
      step: def.id,
      gate: def.gate,
      gateFile: g?.file,
      verdict: g?.verdict ?? null,
    });
  }
  return { gate: def.gate, verdict: g.verdict };
}

/** Edits for a new completed list: the list itself, lastStep (BMAD), currentStep, and completion of the workflow. */
function completionEdits(state: WorkflowState, def: StepDef): { edits: FrontmatterEdit[]; next?: string; done: boolean } {
  if (!state.stepsCompleted.includes(def.id)) assertCompletedWritable(state);
  const enc = stepsEncoding(state);
  const raw = rawCompleted(state);
  const doneIds = new Set([...state.stepsCompleted, ...stepAnalysis(state).done]);
  const edits: FrontmatterEdit[] = [];
  if (!state.stepsCompleted.includes(def.id)) {
    // Insert in workflow order: after the last entry of an earlier step.
    const entries = stepAnalysis(state).entries;
    const order = new Map(state.steps.map((st) => [st.id, st.index]));
    let at = raw.length;
    if (entries.length === raw.length) {
      at = 0;
      for (let i = 0; i < raw.length; i++) {
        const idx = order.get(entries[i]?.id ?? '');
        if (idx === undefined || idx < def.index) at = i + 1;
      }
    }
    edits.push({ key: 'stepsCompleted', value: [...raw.slice(0, at), encodeStep(def.id, enc), ...raw.slice(at)] });
    doneIds.add(def.id);
  }
  if (has(state.data, 'lastStep')) {
    const prev = state.data.lastStep;
    const lastEnc: StepEncoding = typeof prev === 'number' ? 'int' : typeof prev === 'string' && /\.md$/i.test(prev) ? 'file' : typeof prev === 'string' && /^\d+[a-z]?$/i.test(prev) ? 'int' : 'id';
    let v = encodeStep(def.id, lastEnc);
    if (typeof prev === 'string' && typeof v === 'number') v = String(v);
    // lastStep is the furthest step reached, not the most recent one.
    const lastDef = state.lastStep ? findStep(state, state.lastStep) : undefined;
    if (!lastDef || lastDef.index <= def.index) edits.push({ key: 'lastStep', value: v });
  }
  const next = state.steps.find((s) => !doneIds.has(s.id))?.id;
  const key = currentStepKey(state);
  if (key) {
    if (next) {
      if (state.currentStep !== next || !has(state.data, key)) edits.push({ key, value: next });
    } else if (has(state.data, key)) {
      edits.push({ key, value: undefined });
    }
  }
  return { edits, next, done: next === undefined && state.steps.length > 0 };
}

export function planStart(state: WorkflowState, now: Date): Plan {
  assertStatusReadable(state);
  if (state.status === 'in_progress') throw new WaymarkError('transition', `Refused: ${state.workflow} is already in progress (at ${state.currentStep ?? state.nextStep ?? 'no step'}).`, state.file);
  if (state.status === 'blocked') throw new WaymarkError('transition', `Refused: ${state.workflow} is blocked${state.blockedReason ? ` (${state.blockedReason})` : ''}; use unblock to resume it.`, state.file);
  assertTransition(state.status, 'in_progress', state.file);
  const edits: FrontmatterEdit[] = [{ key: statusKeyOf(state), value: statusWord(state, 'in_progress') }];
  const key = currentStepKey(state);
  const first = state.nextStep ?? state.steps.find((s) => !state.stepsCompleted.includes(s.id))?.id;
  if (key && first && state.currentStep !== first) edits.push({ key, value: first });
  edits.push(...timestampEdits(state, now));
  return { edits, detail: { step: first } };
}

/** Completes one step (gate checked); the last step also completes the workflow. Shared by advance and complete-step. */
function planStepCompletion(state: WorkflowState, def: StepDef, now: Date, gates: GateLookup): Plan {
  const gate = assertGate(state, def, gates);
  const { edits, next, done } = completionEdits(state, def);
  if (done && state.status !== undefined) {
    assertTransition(state.status, 'completed', state.file);
    edits.push({ key: statusKeyOf(state), value: statusWord(state, 'completed') });
  }
  edits.push(...timestampEdits(state, now));
  return { edits, detail: { step: def.id, next: next ?? null, ...(gate ? { gate } : {}) } };
}

export function planAdvance(state: WorkflowState, now: Date, gates: GateLookup): Plan {
  assertStatusReadable(state);
  if (state.status !== undefined) assertWorkable(state, 'advance');
  const doneSet = stepAnalysis(state).done;
  const currentId = state.currentStep && !doneSet.has(state.currentStep) && !state.stepsCompleted.includes(state.currentStep) ? state.currentStep : state.nextStep;
  if (!currentId) {
    throw new WaymarkError('transition', state.steps.length ? `Refused: every step of ${state.workflow} is already completed; set its status to completed instead.` : `Refused: ${state.workflow} has no known steps to advance through.`, state.file);
  }
  const def = requireStep(state, currentId);
  return planStepCompletion(state, def, now, gates);
}

export function planCompleteStep(state: WorkflowState, step: string, now: Date, gates: GateLookup): Plan {
  assertStatusReadable(state);
  const def = requireStep(state, step);
  if (state.stepsCompleted.includes(def.id) || stepAnalysis(state).done.has(def.id)) throw new WaymarkError('transition', `Refused: step ${def.id} is already completed.`, state.file);
  if (state.status !== undefined) assertWorkable(state, `complete step ${def.id}`);
  return planStepCompletion(state, def, now, gates);
}

export function planSetStatus(state: WorkflowState, status: Status, reason: string | undefined, now: Date): Plan {
  assertStatusReadable(state);
  assertTransition(state.status, status, state.file);
  if (status === 'blocked' && !reason?.trim()) throw new WaymarkError('usage', 'Blocking needs a reason (--reason "what is in the way").', state.file);
  const edits: FrontmatterEdit[] = [{ key: statusKeyOf(state), value: statusWord(state, status) }];
  if (status === 'blocked') edits.push({ key: 'blockedReason', value: reason!.trim() });
  else if (has(state.data, 'blockedReason')) edits.push({ key: 'blockedReason', value: undefined });
  if (status === 'in_progress') {
    const key = currentStepKey(state);
    if (key && state.nextStep && !state.currentStep) edits.push({ key, value: state.nextStep });
  }
  edits.push(...timestampEdits(state, now));
  return { edits, detail: { status, ...(reason ? { reason } : {}) } };
}

export function planBlock(state: WorkflowState, reason: string, now: Date): Plan {
  if (state.status === 'blocked') throw new WaymarkError('transition', `Refused: ${state.workflow} is already blocked${state.blockedReason ? ` (${state.blockedReason})` : ''}.`, state.file);
  return planSetStatus(state, 'blocked', reason, now);
}

export function planUnblock(state: WorkflowState, now: Date): Plan {
  if (state.status !== 'blocked') throw new WaymarkError('transition', `Refused: ${state.workflow} is not blocked (status ${state.rawStatus ?? 'missing'}).`, state.file);
  const plan = planSetStatus(state, 'in_progress', undefined, now);
  return { ...plan, detail: { status: 'in_progress', was: state.blockedReason ?? null } };
}

export function planSetScope(state: WorkflowState, scope: string, now: Date): Plan {
  if (!(SCOPES as readonly string[]).includes(scope)) throw new WaymarkError('usage', `Unknown scope ${scope}; use one of ${SCOPES.join(', ')}.`, state.file);
  if (state.scope === scope) return { edits: [], detail: { scope } };
  return { edits: [{ key: 'scope', value: scope as Scope }, ...timestampEdits(state, now)], detail: { scope } };
}

/**
 * A problem's quick fix (`Problem.data.fix`, a `FixId` of model/problems.ts), as a plan for the
 * one write path. `createGate` is refused: a gate verdict is a reviewer's decision, never a fix.
 */
export function planFix(state: WorkflowState, problem: Problem, now: Date): Plan {
  const data = problem.data ?? {};
  const fix = isFixId(data.fix) ? data.fix : undefined;
  const value = data.value as EditScalar | undefined;
  const detail = { code: problem.code, fix };
  const raw = rawCompleted(state);
  const analysis = stepAnalysis(state);
  const index = typeof data.index === 'number' ? data.index : undefined;
  switch (fix) {
    case 'removeKey':
      if (typeof data.key === 'string') return { edits: [{ key: data.key, value: undefined }], detail };
      break;
    case 'renameKey':
      if (typeof data.from === 'string' && typeof data.to === 'string') return { edits: [{ key: data.from, value: undefined, renameTo: data.to }], detail };
      break;
    case 'addKey':
      if (typeof data.key === 'string' && value !== undefined) return { edits: [{ key: data.key, value }], detail };
      break;
    case 'replaceStatus':
      if (typeof value === 'string') return { edits: [{ key: statusKeyOf(state), value }, ...timestampEdits(state, now)], detail };
      break;
    case 'replaceScope':
      if (typeof value === 'string') return { edits: [{ key: 'scope', value }], detail };
      break;
    case 'setCurrentStep': {
      const key = currentStepKey(state) ?? 'currentStep';
      if (typeof value === 'string') return { edits: [{ key, value }], detail };
      break;
    }
    case 'setLastStep':
      if (value !== undefined) return { edits: [{ key: 'lastStep', value }], detail };
      break;
    case 'replaceStep':
      if (index !== undefined && index < raw.length && typeof value === 'string') {
        const next = [...raw];
        next[index] = encodeStep(value, stepsEncoding(state));
        return { edits: [{ key: 'stepsCompleted', value: next }], detail };
      }
      break;
    case 'removeStep':
      if (index !== undefined && index < raw.length) return { edits: [{ key: 'stepsCompleted', value: raw.filter((_, i) => i !== index) }], detail };
      break;
    case 'dedupeSteps': {
      const seen = new Set<string>();
      const keep = raw.filter((_, i) => {
        const id = analysis.entries[i]?.id;
        if (!id) return true;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      });
      return { edits: [{ key: 'stepsCompleted', value: keep }], detail };
    }
    case 'sortSteps': {
      const order = new Map(state.steps.map((st) => [st.id, st.index]));
      const sorted = raw
        .map((v, i) => ({ v, i, k: order.get(analysis.entries[i]?.id ?? '') ?? Number.MAX_SAFE_INTEGER }))
        .sort((a, b) => a.k - b.k || a.i - b.i)
        .map((x) => x.v);
      return { edits: [{ key: 'stepsCompleted', value: sorted }], detail };
    }
    case 'setDepth':
      if (typeof value === 'number') return { edits: [{ path: ['delegation'], key: 'depth', value }], detail };
      break;
    case 'setParent':
      if (value === null || typeof value === 'string') return { edits: [{ path: ['delegation'], key: 'parent_id', value }], detail };
      break;
    case 'setRoot':
      if (typeof value === 'string') return { edits: [{ path: ['delegation'], key: 'root_id', value }], detail };
      break;
    case 'setChain': {
      const chain = data.value;
      if (Array.isArray(chain) && chain.length && chain.every((c) => typeof c === 'string')) return { edits: [{ path: ['delegation'], key: 'chain_path', value: chain as string[] }], detail };
      break;
    }
    case 'createGate':
    case 'recordGate':
      throw new WaymarkError('usage', `A gate verdict is a reviewer's decision, not a quick fix: run waymark gate pass|concerns|waive ${state.file} ${String(data.step ?? 'STEP')} --by NAME.`, state.file);
    case 'setLedgerValue':
    case 'setStoryStatus':
      throw new WaymarkError('usage', `This fix belongs to the sprint ledger and story files, not to ${state.file}: run waymark story set-status ${String(data.key ?? 'KEY')} ${String(data.value ?? 'STATUS')}.`, state.file);
    case undefined:
      break;
    default:
      // Every FixId of model/problems.ts has a case above: a new one fails to compile here.
      fix satisfies never;
  }
  throw new WaymarkError('usage', `Problem ${problem.code} has no quick fix Waymark can apply${fix ? ` (fix ${fix} with these data)` : ''}; fix it by hand.`, state.file);
}

/** What a plan may ask of the core besides the state read under the lock. */
export interface PlanEnv {
  now: Date;
  /** The step's gate as its gate file says right now. */
  gates: GateLookup;
}

/** One argument of a mutation, as every face asks for it (CLI option, quick pick, MCP tool field). */
export interface MutationArg {
  description: string;
  /** The allowed values, when the argument is one of a few words. */
  choices?: readonly string[];
  optional?: boolean;
}

/**
 * A frontmatter mutation: its arguments and its plan. The operation name (the key in MUTATIONS)
 * is what history and the events log record.
 */
export interface MutationSpec<A> {
  summary: string;
  args: { readonly [K in keyof A]-?: MutationArg };
  plan(state: WorkflowState, args: A, env: PlanEnv): Plan;
}

function spec<A>(s: MutationSpec<A>): MutationSpec<A> {
  return s;
}

/**
 * Every frontmatter mutation, by operation name. A new mutation is one entry here:
 * `core.apply(file, name, args)` runs it through the one write path (lock, hash check, guards,
 * validation, atomic write, history, events), and the faces list it from this table.
 */
export const MUTATIONS = {
  start: spec<Record<string, never>>({ summary: 'Start a workflow: status in_progress, current step the first one not done.', args: {}, plan: (s, _a, env) => planStart(s, env.now) }),
  advance: spec<Record<string, never>>({ summary: 'Complete the current step and move to the next (refused while its gate is closed).', args: {}, plan: (s, _a, env) => planAdvance(s, env.now, env.gates) }),
  'complete-step': spec<{ step: string }>({
    summary: 'Mark one named step completed.',
    args: { step: { description: 'a step id, number or step file name' } },
    plan: (s, a, env) => planCompleteStep(s, a.step, env.now, env.gates),
  }),
  'set-status': spec<{ status: Status; reason?: string }>({
    summary: 'Set the status (created → in_progress ⇄ blocked → completed → archived).',
    args: { status: { description: 'the new status', choices: STATUSES }, reason: { description: 'why it is blocked (needed for blocked)', optional: true } },
    plan: (s, a, env) => planSetStatus(s, a.status, a.reason, env.now),
  }),
  block: spec<{ reason: string }>({ summary: 'Block a workflow, saying what is in the way.', args: { reason: { description: 'what blocks the workflow' } }, plan: (s, a, env) => planBlock(s, a.reason, env.now) }),
  unblock: spec<Record<string, never>>({ summary: 'Unblock a workflow (back to in_progress; the reason is removed).', args: {}, plan: (s, _a, env) => planUnblock(s, env.now) }),
  'set-scope': spec<{ scope: Scope }>({ summary: 'Set the scope of a workflow.', args: { scope: { description: 'the scope', choices: SCOPES } }, plan: (s, a, env) => planSetScope(s, a.scope, env.now) }),
  fix: spec<{ problem: Problem }>({ summary: "Apply a problem's quick fix.", args: { problem: { description: 'the problem, with data.fix' } }, plan: (s, a, env) => planFix(s, a.problem, env.now) }),
} as const;

/** A mutation's operation name. */
export type MutationName = keyof typeof MUTATIONS;

/** The arguments a mutation takes. */
export type MutationArgs<N extends MutationName> = (typeof MUTATIONS)[N] extends MutationSpec<infer A> ? A : never;

/** True for a string that names a mutation (input from outside: CLI, MCP). */
export function isMutationName(s: string): s is MutationName {
  return Object.prototype.hasOwnProperty.call(MUTATIONS, s);
}

/**
 * The facts gathered while a workflow's frontmatter is normalized (model/workflow.ts), kept for
 * validation (model/validate.ts) and resume: a low file both read, so neither imports the other back.
 */
import type { StepDef } from '../types';
import type { BmadStepEncoding } from '../bmad/artifacts';

/** Extra facts gathered while normalizing, used by validation and resume. */
export interface StepAnalysis {
  /** Raw list entries with their normalized id (undefined = unknown). */
  entries: { raw: unknown; id?: string; index: number }[];
  encoding: BmadStepEncoding;
  /** Step ids considered done (incl. lettered sub-steps covered by an integer). */
  done: Set<string>;
  /** Steps before the furthest completed one that are not done, in order. */
  missing: StepDef[];
  /** Furthest completed step by workflow order. */
  furthest?: StepDef;
  /** Steps not done, in order. */
  remaining: StepDef[];
}

/** Raw facts kept beside the normalized state for validation. */
export interface RawFacts {
  analysis: StepAnalysis;
  statusKnown: boolean;
  /** The list written under stepsCompleted (raw). */
  completedList: unknown[];
  lastStepRaw?: unknown;
  currentStepKey?: 'currentStep' | 'current_step';
  /** BMAD: ids of the workflow's other-mode steps (`step-e-01-discovery`): recorded, they are that mode's progress. */
  modeStepIds?: Set<string>;
}

const stepIndexes = new WeakMap<readonly StepDef[], ReadonlyMap<string, number>>();
/** The index of every empty list (a state with no known steps): nothing ever sets a key in it. */
const NO_STEPS: ReadonlyMap<string, number> = new Map();

/**
 * Each step's id with its index (a later step of the same id wins, as an index built step by
 * step would give). A frozen list (the BMAD catalog's, a frontmatter list many files share) has
 * its map made once: parse and validation ask for it for every file a scan reads.
 */
export function stepIndexOf(steps: readonly StepDef[]): ReadonlyMap<string, number> {
  if (!steps.length) return NO_STEPS;
  let m = stepIndexes.get(steps);
  if (m) return m;
  const made = new Map<string, number>();
  for (let i = 0; i < steps.length; i++) made.set(steps[i].id, steps[i].index);
  if (Object.isFrozen(steps)) stepIndexes.set(steps, made);
  m = made;
  return m;
}

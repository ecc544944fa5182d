// The shape of one BMAD workflow, installed (artifacts.ts reads it) or only known by name
// (known.ts): a low file both import, so neither imports the other.
import type { StepDef } from '../types';

/** One installed BMAD workflow and its ordered steps. */
export interface BmadWorkflow {
  /** Folder name, e.g. `prd`. */
  name: string;
  /** Absolute folder of the workflow. */
  dir: string;
  /** The folder the ordered steps come from (`steps-c` or `steps`). */
  stepsDir: string;
  mode: 'create' | 'plain';
  steps: StepDef[];
  /** Continuation files (`step-01b-continue.md`): not steps. */
  continuation: string[];
  /** Other mode folders present (`steps-e`, `steps-v`). */
  otherModes: string[];
  /** Steps of the other modes (`edit` from steps-e/, `validate` from steps-v/): recorded, they are that mode's progress. */
  modeSteps: Record<string, StepDef[]>;
  /** Where the workflow writes its artifact: step files' `outputFile:` and `default_output_file`, as declared. */
  outputs: { pattern: string; source: 'outputFile' | 'default_output_file' }[];
  /** The BMAD project folder the workflow is installed in (a monorepo holds several). */
  projectRoot?: string;
  /** False for a BMAD workflow known by name but not installed here (known.ts): it has no steps to check. */
  installed?: false;
  /** Where a workflow that is not installed is declared (`_bmad/_config/bmad-help.csv`), when the install lists it. */
  declaredIn?: string;
}

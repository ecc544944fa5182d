// What a tree row shows of a workflow's status (no `vscode` import: unit-tested as plain data). The
// Workflows, Delegation and Gates views all show the standing the project reads a file at (core's
// workflowStanding: set aside in archive/, finished with its epic) when it says otherwise than the
// file's own status, so no view shows as in progress what another shows as set aside or done.
import type { WorkflowStanding, WorkflowState } from '../core/index';

export interface TreeStatus {
  /** The status key the row's icon and label come from (`presentation.ts` statusIcon, STATUS_LABELS). */
  status: string;
  /** The standing's phrase (`set aside: kept in archive/ for the record`), when it decides. */
  note?: string;
}

/** The standing's status and phrase when there is one, else the file's own status (`unknown` when none). */
export function treeStatus(state: WorkflowState, standing: WorkflowStanding | undefined): TreeStatus {
  return standing ? { status: standing.status, note: standing.message } : { status: state.status ?? 'unknown' };
}

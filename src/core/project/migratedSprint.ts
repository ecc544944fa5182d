/** A migrated BMAD project: its v6 ledger archived under the v7 tree's `archive-v6/`. */
import * as path from 'node:path';
import type { SprintReport } from '../bmad/sprint';
import type { TicketTree } from '../bmad/tree/types';

/**
 * A v6 sprint that is only `bmad migrate`'s archive of the ledger (every ledger under the tree's
 * `archive-v6/`): history, never counted as work beside the tree.
 */
export function isArchivedSprint(report: Pick<SprintReport, 'ledgerFiles'>, tree: Pick<TicketTree, 'archiveV6'> | undefined): boolean {
  const archive = tree?.archiveV6;
  if (!archive || !report.ledgerFiles.length) return false;
  return report.ledgerFiles.every((f) => f.startsWith(archive + path.sep));
}

/** The tree's problems: every error `tickets.py` reports, and what it does not check. */
import type { Problem } from '../../types';
import type { TicketTree } from './types';

/**
 * Every problem of a tree on its exact file and line: bad TOML keys and types, duplicate ids,
 * unknown `after`, cycles (named), two plans for one ticket, unknown plan status or `ticket`;
 * `covers` naming nothing, a leaf whose `after`/`hitl` drifted from its entry, a container status
 * its children contradict, and `unpinned_after`/`undeclared_after`/`order_conflict`.
 */
export function treeProblems(tree: TicketTree): Problem[] {
  return tree.problems;
}

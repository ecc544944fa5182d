/**
 * The types write guards and observers are made of. They sit below every part of the core (only
 * types.ts beneath them) so the protocol, memory and BMAD writers can name them without importing
 * the core's API, which imports them back.
 */
import type { HistoryEntry, WorkflowState } from './types';

/** Context a write guard or observer receives. */
export interface WriteContext {
  /** Absolute path of the workflow (or gate) file being written. */
  file: string;
  /** Workspace folder the file belongs to. */
  root: string;
  operation: string;
  actor?: string;
  session?: string;
  /**
   * Set when an observer is re-run for a change whose writer was killed before its observers
   * ran (see the intent journal): an observer that logs must not log the same entry twice.
   */
  recovered?: boolean;
  /** The write's companions (WriteCompanion) wrote their part of this line in the same change. */
  companions?: boolean;
}

/**
 * Runs under the file lock before a write; throws a WaymarkError (e.g. 'locked' when an
 * orchestrator lease is held by someone else) to refuse it.
 */
export type WriteGuard = (ctx: WriteContext) => void | Promise<void>;

/**
 * Told after a write landed and its history line was appended (events log, memory consolidation).
 * `deferred`: it may finish after the write has answered (memory consolidation in a long-lived
 * face): the change's intent stays in the journal until it has, so a crash meanwhile re-runs it.
 * It is called for each write as the write answers, without waiting for the previous write's
 * call to finish, so it may gather several writes and do their work once.
 * `duringFlush`: its work is no state and is never flushed itself (the events log), so it runs
 * while the change's last flushes (the renames' folders, the history lines) are in flight, under
 * the change's locks, instead of after them: what it does is visible no sooner than the renames
 * and lines it tells of (both are out by then), and a crash before the flushes return leaves the
 * intent, whose recovery finds the line and does not write it twice (as for any observer).
 */
export type WriteObserver = ((entry: HistoryEntry, ctx: WriteContext & { after?: WorkflowState }) => void | Promise<void>) & { deferred?: boolean; duringFlush?: boolean };

/**
 * Files a write changes in its own change (one intent, the same two flush rounds, the same
 * locks): memory's cold-file line for a completed step. `files` names them, from the change's
 * operation and files, before the locks (all are locked in one order); `plan` gets each planned
 * history line (no seq yet) with what the write knew, and its files' texts under the locks, and
 * returns their new texts (a file left out is not written) and which lines it covered. Observers
 * are told of a covered line with `companions: true` and do not write what the companion wrote.
 */
export interface WriteCompanion {
  files(root: string, operation: string, files: readonly string[]): string[];
  plan(
    lines: readonly { entry: Omit<HistoryEntry, 'seq'>; ctx: WriteContext & { after?: WorkflowState } }[],
    texts: ReadonlyMap<string, string | undefined>,
  ): Promise<CompanionPlan> | CompanionPlan;
}

/**
 * A companion's new texts and the lines it covered; `added`, by file: the bytes a text adds at the
 * very end of the text the companion was handed (it is that text and these, by construction), so
 * the change adds them in place without comparing the texts to find them (TxWrite.added).
 */
export interface CompanionPlan {
  texts: Map<string, string>;
  covered: boolean[];
  added?: Map<string, string>;
}

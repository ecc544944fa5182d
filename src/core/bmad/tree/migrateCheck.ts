/**
 * Checks a v6 → v7 migration: `archive-v6/`'s ledger and story files against the tree, by BMAD's
 * own mapping (backlog → no plan; drafted/contexted/ready-for-dev → ready-for-dev; review →
 * in-review; …; anything else is a question; the more advanced of story file and ledger wins).
 */
import type { Problem } from '../../types';
import type { PlanStatus } from './types';

export type MigrationFindingKind =
  | 'status-mismatch'
  | 'ledger-story-missing'
  | 'plan-names-nothing'
  | 'unmapped-status-copied'
  | 'unmapped-status'
  | 'count-mismatch';

export interface MigrationFinding {
  kind: MigrationFindingKind;
  /** The v6 story key (`1-2-some-slug`), when the finding is about one. */
  storyKey?: string;
  /** The v7 ticket ref, when one was matched. */
  ref?: string;
  /** What the archive says after BMAD's mapping (undefined: no plan; null: a question). */
  expected?: PlanStatus | null;
  /** What the tree says ('' when no plan). */
  actual?: string;
  message: string;
}

export interface MigrationReport {
  root: string;
  /** `archive-v6/`, absolute. */
  archive?: string;
  /** The ledger read from the archive, absolute. */
  ledger?: string;
  /** Stories in the archive, tickets in the tree. */
  counts: { ledgerStories: number; storyFiles: number; tickets: number; matched: number };
  findings: MigrationFinding[];
  problems: Problem[];
}

/** The v7 status BMAD's migration writes for a v6 status: undefined = no plan, null = a question. */
export function mapV6Status(v6: string): PlanStatus | undefined | null {
  void v6;
  return null;
}

/** Compares `archive-v6/` with the tree; undefined when the project has no archive. */
export function migrateCheck(root: string, options: { folder?: string; installDir?: string } = {}): MigrationReport | undefined {
  void root;
  void options;
  return undefined;
}

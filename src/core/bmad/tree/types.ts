/**
 * BMAD v7's ticket tree as plain data: an initiative folder with its `tickets.toml` of `[[epic]]`
 * tables, epic folders with `[[entry]]` tables, leaf files (`story-…`, `spike-…`, `bug-…`) and the
 * plans that own a ticket's status. Read by `readTicketTree`, answered by `nextGroups`,
 * `treeStatus` and `treeProblems`; the results agree with BMAD's own `tickets.py` on the same files.
 */
import type { Problem } from '../../types';
import type { BmadConfig } from '../config';

/** A plan's `status` (or a leaf file's, when the ticket has no plan), in BMAD's build order. */
export const PLAN_STATUSES = ['draft', 'ready-for-dev', 'in-progress', 'in-review', 'built', 'done', 'blocked', 'dropped'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** A tracker's word for a ticket (`tracker_status`), which overrides the plan's status. */
export const TRACKER_STATES = ['backlog', 'in-progress', 'review', 'done', 'dropped'] as const;
export type TrackerState = (typeof TRACKER_STATES)[number];

/** A ticket's state: `planned` when it has neither a leaf file nor a plan. */
export const TICKET_STATES = ['planned', ...TRACKER_STATES] as const;
export type TicketState = (typeof TICKET_STATES)[number];

/** An epic or initiative file's own `status`. */
export const CONTAINER_STATUSES = ['in-progress', 'done', 'dropped'] as const;
export type ContainerStatus = (typeof CONTAINER_STATUSES)[number];

export const LEAF_TYPES = ['story', 'spike', 'bug'] as const;
export type LeafType = (typeof LEAF_TYPES)[number];

/** Where a ticket's tickets live: `repo` (files own the status) or a tracker (the tracker does). */
export const STORE_KINDS = ['repo', 'github', 'jira', 'linear', 'notion', 'trello'] as const;
export type StoreKind = (typeof STORE_KINDS)[number] | (string & {});

/** An entry id: a number, or letters and digits such as `6a`; `6` and `"6"` are one id. */
export type TicketId = number | string;

/** A 0-based position in a file (LSP-like). */
export interface SourcePos {
  /** Absolute path. */
  file: string;
  line: number;
  character: number;
}

/**
 * One ticket: a `[[entry]]` of an epic's `tickets.toml`, joined to its leaf file and plan when
 * they exist; or a leaf file no entry lists (an unlisted or backlog leaf).
 */
export interface Ticket {
  kind: 'ticket';
  /** Stable key inside the tree: `<epic slug>/<id>` or `<folder>/<file name>`. */
  key: string;
  /** BMAD's reference for this ticket: `E.N` (epic id . entry id), the bare id, or the file name. */
  ref: string;
  /** The slug of the folder holding it (`epic-…`, or `backlog`). */
  epic: string;
  /** The epic's id in the initiative's `tickets.toml`, when it lists it. */
  epicId?: TicketId;
  id: TicketId | null;
  type: LeafType | string;
  title: string;
  /** The effective status (the plan's, else the leaf file's); '' when no build has started. */
  status: PlanStatus | '';
  trackerStatus: TrackerState | '';
  trackerId: string;
  state: TicketState;
  assignee: string;
  blockedAt: string;
  blockedReason: string;
  refine: boolean;
  refined: boolean;
  hitl: boolean;
  covers: string[];
  estimate: string | number;
  risk: string;
  description: string;
  verify: string;
  unknown: string;
  references: string[];
  notes: string[];
  /** Keys of the tickets (or epic slugs) it waits on, in order. */
  after: string[];
  /** `after` as BMAD writes it from this ticket's folder (sibling id, `E.N`, `epic-…`). */
  afterRefs: string[];
  /** The epic file's own `after` gate: epic slugs that must be done first. */
  gatedBy: string[];
  /** The leaf file's `after`/`hitl` differ from its entry's. */
  drift: boolean;
  /** True for a leaf under `backlog/`. */
  backlog: boolean;
  /** The leaf file, absolute, when one exists. */
  file?: string;
  /** The plan holding the status, absolute, when one exists. */
  plan?: string;
  /** Where the plan is or goes (as `tickets.py find` reports), absolute. */
  planPath: string;
  /** The `[[entry]]` table's header line in `tickets.toml`, when there is an entry. */
  entryPos?: SourcePos;
  /** The `status:` line in the plan (or leaf file) that set the status, when there is one. */
  statusPos?: SourcePos;
  /** The `after` key that set `after` (the leaf file's, else the entry's). */
  afterPos?: SourcePos;
  /** The `covers` key (the leaf file's when it sets one, else the entry's). */
  coversPos?: SourcePos;
}

/** One epic of the initiative, in build order. */
export interface Epic {
  kind: 'epic';
  /** Folder name, `epic-<slug>`. */
  slug: string;
  id?: TicketId;
  title: string;
  /** The epic file's own `status`. */
  status: ContainerStatus | '';
  trackerId: string;
  /** Absolute folder path. */
  folder: string;
  /** `epic-<slug>.md`, absolute, when it exists. */
  file?: string;
  /** The initiative's `[[epic]] after = [{epic, needs}]`, with the needed epic as its slug. */
  after: { epic: string; needs: string }[];
  /** The epic file's own `after` gate (epic slugs). */
  gatedBy: string[];
  /** Keys of its tickets in build order. */
  tickets: string[];
  /** The `[[epic]]` table's header in the initiative's `tickets.toml`. */
  entryPos?: SourcePos;
  /** The epic file's `status` line (its first line when it has none). */
  statusPos?: SourcePos;
}

export interface Initiative {
  kind: 'initiative';
  /** Folder name, `initiative-<slug>`. */
  slug: string;
  title: string;
  status: ContainerStatus | '';
  folder: string;
  file?: string;
}

/** `unpinned_after`: a declared epic `after` that no entry of the waiting epic pins. */
export interface UnpinnedAfter { epic: string; after: string; needs: string }
/** `undeclared_after`: an entry's `after` into an epic its own epic does not declare. */
export interface UndeclaredAfter { epic: string; after: string; ref: string; names: string }
/** `order_conflict`: an epic that waits on one later in the build order. */
export interface OrderConflict { epic: string; after: string }

/** The whole tree of one initiative (or one epic or backlog folder), read once. */
export interface TicketTree {
  /** The project root (holding `_bmad/`). */
  root: string;
  /** `core.output_folder`, absolute. */
  outputFolder: string;
  /** The folder the tree was read from (an initiative, an epic or a backlog folder). */
  folder: string;
  /** The epic (or backlog) folder name when the tree was read from one; undefined for an initiative. */
  scope?: string;
  initiative?: Initiative;
  store: StoreKind;
  /** Epics in build order. */
  epics: Epic[];
  /** Every ticket, in build order (epic by epic, then unlisted leaves), as `tickets.py` reads the folder. */
  tickets: Ticket[];
  /** The store's `backlog/` leaves, read as their own folder (empty when the tree was read from a named folder). */
  backlog: Ticket[];
  /** Problems found while reading (file and line); errors `tickets.py` refuses the tree for are `error`s. */
  problems: Problem[];
  /** `tickets.py` would refuse this tree (exit 1): the first such error, as it would word it. */
  fatal?: string;
  unpinnedAfter: UnpinnedAfter[];
  undeclaredAfter: UndeclaredAfter[];
  orderConflict: OrderConflict[];
  /** `archive-v6/` beside the initiative after `bmad migrate method`, absolute, when present. */
  archiveV6?: string;
  /** `migration-v6-v7/` after a migration, absolute, when present. */
  migrationDir?: string;
}

/** A ticket in one of `next`'s groups, with what it waits on as BMAD refs. */
export interface NextItem {
  ticket: Ticket;
  ref: string;
  /** Prerequisites not yet met (refs, or epic slugs for gates); empty unless blocked by them. */
  waitingOn: string[];
}

/** `tickets.py next`: what can move, in build order. */
export interface NextGroups {
  readyToRefine: NextItem[];
  readyToStart: NextItem[];
  inProgress: NextItem[];
  blocked: NextItem[];
}

/** `tickets.py status`: every ticket in scope, counts by state, the longest remaining chain. */
export interface TreeStatus {
  tickets: Ticket[];
  counts: Record<string, number>;
  /** Keys of the tickets that wait on each key. */
  blocks: Record<string, string[]>;
  longestRemainingChain: string[];
}

/** How to find and read the tree. */
export interface ReadTreeOptions {
  /** An initiative, epic or backlog folder (absolute or relative to the output folder/root); default: the active initiative. */
  folder?: string;
  /** The BMAD install folder, when not `_bmad/`. */
  installDir?: string;
  /**
   * The project's BMAD config as `loadBmadConfig(root, { installDir })` gives it, when the caller
   * has it already (a sprint read from its cache carries it): not loaded, nor its YAML parsed, again.
   */
  config?: BmadConfig;
}

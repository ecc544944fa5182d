import type { Logger, Clock, FileSystem } from './ports';
import type { WorkspaceContext } from './store/workspaceContext';
import type { ResumeReport, RootResume, SyncAction } from './protocol/resume';
import type { Checkpoint, RestoreResult } from './protocol/checkpoints';
import type { AcquireResult, Lease, LeaseOwner, LeaseStatus } from './protocol/leases';
import type { ModeRecord } from './protocol/modes';
import type { ProtocolEvent, ReadEventsResult } from './protocol/events';
import type { MemoryService } from './memory/memoryService';
import type { MutationArgs, MutationName } from './model/mutations';
import type { WriteContext, WriteGuard, WriteObserver } from './writeHooks';

export type { WriteContext, WriteGuard, WriteObserver } from './writeHooks';
import type {
  ChangeEvent,
  ChangedReport,
  Disposable,
  GateState,
  HistoryEntry,
  ManifestRow,
  MutationOptions,
  MutationResult,
  Problem,
  ResumePoint,
  ScanResult,
  Scope,
  Status,
  WorkflowState,
} from './types';

/** How a state core is made. Settings arrive as plain values (never read from VS Code here). */
export interface StateCoreInit {
  /** Absolute workspace folder paths (multi-root). */
  roots: string[];
  logger?: Logger;
  clock?: Clock;
  /** Default actor recorded in history when a mutation names none. */
  actor?: string;
  /** Default session marker recorded in history. */
  session?: string;
  /** Overrides on top of each root's `.waymark/config.yaml` (e.g. from VS Code settings). */
  configOverrides?: Record<string, unknown>;
  /**
   * Contexts the face has already loaded, by absolute root, with these `configOverrides`: taken
   * instead of loading them again (validate's check hands the project view the one it scanned with).
   */
  contexts?: ReadonlyMap<string, WorkspaceContext>;
  /** Checked before every write (orchestrator leases, trust). */
  guards?: WriteGuard[];
  /** Told after every write (events log, memory tiers). Their failures are logged, never fail the write. */
  observers?: WriteObserver[];
  /** How workflow files are read (default: the disk). Writes always go to the disk. */
  fs?: FileSystem;
  /**
   * Whether scans read and write the persisted scan index (`.waymark/cache/`). Default: on,
   * unless `WAYMARK_SCAN_INDEX=0`. Off in an untrusted workspace, which must change no file.
   */
  scanIndex?: boolean;
  /**
   * A long-lived face sharing its thread with other work (the VS Code extension host) sets this:
   * a scan gives the thread back at least this often (ms of work between yields), so requests
   * waiting meanwhile are answered during a scan of thousands of files, not after it. Default:
   * every 500 files (a one-shot CLI scan has nothing else to do).
   */
  scanSliceMs?: number;
}

/**
 * How the whole core is made: `StateCoreInit` plus the parts every face gets by default —
 * orchestrator leases honoured on every write, every write an event, completions fed to memory.
 */
export interface StateCoreOptions extends StateCoreInit {
  /**
   * Memory (`core.memory`, and tier-2 consolidation after each write). Default on; false never
   * opens it; `{ consolidateOnWrite: false }` keeps `core.memory` without the consolidation;
   * `consolidateAfterAnswer` lets a write answer before its consolidation is done (a long-lived
   * face: `core.memory.settled()` waits for it; a crash meanwhile re-runs it from the journal);
   * writes that follow each other within `quietMs` (default 25) are consolidated together, at
   * most `maxMs` (default 500) after the first of them, and at most `maxWrites` (default 8) of
   * them (each holds a journal slot of the process until its consolidation is done).
   */
  memory?: boolean | { consolidateOnWrite?: boolean; consolidateAfterAnswer?: boolean | { quietMs?: number; maxMs?: number; maxWrites?: number } };
  /** Recorded as the origin of memory records when they name none (`cli`, `vscode`, `hook`). */
  origin?: string;
  /**
   * A long-lived face (the MCP server): each write's events line is appended right after the write
   * has answered instead of before, in the order of the writes. The change's intent stays in the
   * journal until the line is out, so a crash meanwhile leaves it to the next writer of the file
   * (which appends it once); `core.memory.settled()` waits for it.
   */
  eventsAfterAnswer?: boolean;
}

/** What a scan reports while it runs. */
export interface ScanProgress {
  /** The workflows read so far (a growing list: copy it to keep it), the files done and listed. */
  onProgress?(workflows: readonly WorkflowState[], done: number, listed: number): void;
  /**
   * In a folder of more than 100 files, the first `onProgress` comes after this many files (at
   * most 100, the default): a face that lists what was read gets its first rows sooner; the first
   * files read are the slowest, the code still cold.
   */
  firstProgressFiles?: number;
  /**
   * Asked each time the scan gives its thread back (`scanSliceMs`, and after each `onProgress`):
   * a promise holds the scan until it settles, undefined lets it go on. A face whose host must
   * draw what it listed first (VS Code asking for the rows of a view) holds it meanwhile.
   */
  hold?(): Promise<void> | undefined;
}

/**
 * The one in-process API over workflow state. The CLI and the VS Code layer
 * both go through it; it never imports `vscode`.
 */
export interface StateCore {
  readonly roots: string[];
  /**
   * Full scan of every root: parse, validate (per file and across files). `onProgress` hears the
   * workflows read so far every few hundred files (a face can list them before the scan ends);
   * they are not in the model, and have no cross-file problems, until the scan returns.
   */
  scan(options?: ScanProgress): Promise<ScanResult>;
  /**
   * Re-read one file (after a watcher event); emits onDidChange when its state changed. A file
   * the model knows that exists but no longer reads as a workflow keeps its last good state,
   * marked `stale` with the current text's problems; a deleted or unreadable one is removed.
   */
  reload(file: string): Promise<WorkflowState | undefined>;
  /** Forget a deleted file; emits onDidChange. */
  remove(file: string): void;
  /** Parse text that is not (yet) on disk, e.g. an editor's unsaved buffer. Does not change the model. */
  parseText(file: string, text: string): Promise<{ state?: WorkflowState; problems: Problem[] }>;
  /**
   * Reads a file through the core's one reader (its FileSystem port; refuses missing, non-regular,
   * oversized, UTF-16 and binary files with 'unreadable') and parses it. Does not change the model.
   */
  readWorkflow(file: string): Promise<{ text: string; state?: WorkflowState; problems: Problem[] }>;
  get(file: string): WorkflowState | undefined;
  list(): WorkflowState[];
  /** Problems across all files (per-file plus cross-file such as delegation). */
  problems(): Problem[];
  onDidChange(listener: (e: ChangeEvent) => void): Disposable;

  // Mutations: each takes a per-file lock, checks `expectHash`, validates, writes atomically,
  // appends history, and emits onDidChange. With `options.text` it only computes `newText`.
  /**
   * Runs the mutation `operation` of model/mutations.ts (MUTATIONS) on `file` through the one
   * write path. The named methods below are this with their operation filled in.
   */
  apply<N extends MutationName>(file: string, operation: N, args: MutationArgs<N>, options?: MutationOptions): Promise<MutationResult>;
  start(file: string, options?: MutationOptions): Promise<MutationResult>;
  advance(file: string, options?: MutationOptions): Promise<MutationResult>;
  completeStep(file: string, step: string, options?: MutationOptions): Promise<MutationResult>;
  setStatus(file: string, status: Status, options?: MutationOptions & { reason?: string }): Promise<MutationResult>;
  block(file: string, reason: string, options?: MutationOptions): Promise<MutationResult>;
  unblock(file: string, options?: MutationOptions): Promise<MutationResult>;
  setScope(file: string, scope: Scope, options?: MutationOptions): Promise<MutationResult>;
  /** Creates a child workflow file with its delegation chain computed. Returns the child's state. */
  delegate(file: string, args: { agent: string; out?: string; workflow?: string }, options?: MutationOptions): Promise<MutationResult>;
  /** Apply a problem's quick fix (Problem.data.fix) through the same write path. */
  applyFix(file: string, problem: Problem, options?: MutationOptions): Promise<MutationResult>;

  gatePass(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState>;
  gateFail(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState>;
  gateConcerns(file: string, step: string, args: { reason?: string; by?: string }, options?: MutationOptions): Promise<GateState>;
  gateWaive(file: string, step: string, args: { reason: string; by: string; expires?: string }, options?: MutationOptions): Promise<GateState>;
  gateShow(file: string, step: string): Promise<GateState>;

  history(file: string): Promise<HistoryEntry[]>;
  manifest(root?: string): Promise<{ file: string; rows: ManifestRow[] }>;
  changed(root?: string): Promise<ChangedReport>;
  /**
   * Sets (value) or removes (undefined) a non-state frontmatter block (`tracker`, the ticket
   * projection's mirror) through the write pipeline's lock, compare-and-swap and atomic rename.
   * No history line, no event, the state hash unchanged. False when it already had that value.
   */
  writeNonStateKey(file: string, key: 'tracker', value: import('./model/edit').EditValue | undefined, options?: { expectStateHash?: string }): Promise<boolean>;
  /** Frontmatter-only resume (tier 1); `protocol.resume` asks all three tiers. */
  resume(file: string): Promise<ResumePoint>;

  /** The workspace folder of a file: the deepest root holding it, else one found from markers. */
  rootFor(file: string): string;
  /** The workspace folder among `roots` holding a file, or undefined when none does. */
  rootOf(file: string): string | undefined;
  /** The folder's config, definitions and BMAD catalog, from the core's one cache. */
  contextFor(file: string): Promise<WorkspaceContext>;

  /** Resume tiers, checkpoints, leases, modes, events, sync: with this core's clock, guards and contexts. */
  readonly protocol: ProtocolApi;
  /** BMAD sprint ledgers (sprint-status.yaml, story files, epics, gates): read, drift, story writes through this core's guards. */
  readonly sprint: SprintApi;
  /** Memory of each workspace folder, owned by this core and closed with it. */
  readonly memory: MemoryApi;

  /** Stops change events and releases what the core holds (memory databases); does not wait. */
  dispose(): void;
  /** dispose(), then waits until every memory database this core opened is closed. */
  close(): Promise<void>;
}

/** Who acts, for protocol records and history (defaults: the core's actor and session). */
export interface Actor {
  actor?: string;
  session?: string;
}

/**
 * The workflow protocol through the core: the same functions as `core/protocol/*`, bound to the
 * core's clock, logger, write guards (leases), context cache, actor and session. `root` is a
 * workspace folder (`core.rootFor(file)` finds it).
 */
export interface ProtocolApi {
  /** Three-tier resume of one file (frontmatter, checkpoints, orchestrator state). */
  resume(root: string, file: string, options?: { expire?: boolean }): Promise<ResumeReport>;
  /** Every workflow of a root, after expiring an orchestrator state whose ttl passed. */
  resumeRoot(root: string): Promise<RootResume>;
  /** Moves stale resume sources forward to the one furthest ahead in progress; never back. */
  /** Moves stale resume sources forward (never back); `force` lets it restore frontmatter whose body changed. */
  sync(root: string, who?: Actor & { force?: boolean }): Promise<{ actions: SyncAction[]; before: RootResume; after: RootResume }>;
  /** A workflow's history with the root's configured history folder (bad lines listed, not fatal). */
  history(root: string, file: string): Promise<{ entries: HistoryEntry[]; badLines: number[]; historyFile: string }>;

  createCheckpoint(root: string, options?: Actor & { message?: string; git?: boolean; gitKeep?: number }): Promise<Checkpoint>;
  listCheckpoints(root: string): Checkpoint[];
  showCheckpoint(root: string, id: string): Checkpoint;
  /** State keys back as the checkpoint had them, through the file lock and the write guards. */
  restoreCheckpoint(root: string, id: string, options?: Actor & { force?: boolean; dryRun?: boolean; only?: string[] }): Promise<RestoreResult>;

  /** Lease operations also record session markers and take-overs in the workflow's history. */
  acquireLease(root: string, file: string | undefined, owner: LeaseOwner, options?: { ttlMs?: number }): Promise<AcquireResult>;
  releaseLease(root: string, file: string | undefined, owner: LeaseOwner, options?: { force?: boolean }): Promise<{ released: boolean; lease?: Lease }>;
  takeoverLease(root: string, file: string | undefined, owner: LeaseOwner, options?: { ttlMs?: number; reason?: string }): Promise<{ lease: Lease; previous?: Lease }>;
  listLeases(root: string): LeaseStatus[];
  /** The folders leases of `root` live in: the repository's shared one in git (every worktree sees it), then the old per-worktree one. */
  leaseFolders(root: string): string[];
  leaseStatus(lease: Lease): LeaseStatus;
  breakStaleLeases(root: string): LeaseStatus[];

  startMode(root: string, mode: string, owner: LeaseOwner, options?: { exclusive?: boolean; ttlMs?: number }): ModeRecord;
  endMode(root: string, mode: string, owner: LeaseOwner, options?: { force?: boolean }): ModeRecord[];
  showModes(root: string): ModeRecord[];

  readEvents(root: string, since?: number, options?: { limit?: number }): ReadEventsResult;
  followEvents(root: string, since?: number, options?: { signal?: AbortSignal; pollMs?: number }): AsyncGenerator<ProtocolEvent>;
}

/** Memory through the core: one service per workspace folder, opened lazily, closed by `core.close()`. */
export interface MemoryApi {
  /** False when the core was made with `memory: false`. */
  readonly enabled: boolean;
  /**
   * The memory service of a workspace folder. `waitMs` (how long to wait for a database held by
   * another process) and `holdMs` apply when this call opens it. Throws 'unavailable' when memory is off.
   */
  forRoot(root: string, options?: { waitMs?: number; holdMs?: number }): MemoryService;
  /** Resolves once the consolidation of every write made so far is done (see `consolidateAfterAnswer`). */
  settled(): Promise<void>;
}

/**
 * A BMAD project's sprint through the core: the same functions as `core/bmad/*`, bound to the
 * core's clock, write guards (leases, events, trust), observers, actor and session.
 */
export interface SprintApi {
  /** The sprint of one project folder with its drift problems; undefined when it has no ledger and no story files. */
  load(root: string, options?: import('./bmad/sprint').SprintOptions): import('./bmad/sprint').SprintReport | undefined;
  /** Story file + ledger as one change (locks, hash check, guards, atomic writes, one history entry). */
  setStoryStatus(root: string, key: string, status: string, options?: import('./bmad/storyWrite').StoryWriteOptions): Promise<import('./bmad/storyWrite').StoryWriteResult>;
  /**
   * A BMAD v7 ticket's status, written into its plan as `tickets.py mark` writes it (a
   * frontmatter-only plan created when there is none; blocked fields set or cleared) through the
   * transaction engine; the status rules hooks apply unless `force`; refused on a tracker store.
   */
  setTicketStatus(root: string, ref: string, status: string, options?: import('./bmad/planWrite').TicketWriteOptions): Promise<import('./bmad/planWrite').TicketWriteResult>;
  /** Ticks (or unticks) one task of a story file. */
  checkStoryTask(root: string, key: string, task: string, options?: import('./bmad/storyWrite').StoryWriteOptions & { uncheck?: boolean }): Promise<import('./bmad/storyWrite').StoryWriteResult & { task: string }>;
  /** The sprint rules on a proposed edit, nothing written (agent hooks). */
  checkProposal(root: string, file: string, proposedText: string): { problems: Problem[]; introduced: Problem[]; applies: boolean };
  /** Applies the quick fix of a sprint problem a face was given (it must still be there: else a conflict). */
  applyFix(root: string, problem: Problem, options?: import('./bmad/storyWrite').StoryWriteOptions): Promise<import('./bmad/sprintFix').SprintFixResult>;
  /** Finds the fixable problem `code` of `file` (at 1-based `line`) and applies its fix: `waymark fix`, MCP. */
  fix(root: string, file: string, code: string, options?: import('./bmad/storyWrite').StoryWriteOptions & { line?: number }): Promise<import('./bmad/sprintFix').SprintFixResult>;
}

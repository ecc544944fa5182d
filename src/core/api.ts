import type { Logger, Clock } from './ports';
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
  /** Checked before every write (orchestrator leases, trust). */
  guards?: WriteGuard[];
  /** Told after every write (events log, memory tiers). Their failures are logged, never fail the write. */
  observers?: WriteObserver[];
  /**
   * Whether scans read and write the persisted scan index (`.waymark/cache/`). Default: on,
   * unless `WAYMARK_SCAN_INDEX=0`. Off in an untrusted workspace, which must change no file.
   */
  scanIndex?: boolean;
}

/**
 * The one in-process API over workflow state. The CLI and the VS Code layer
 * both go through it; it never imports `vscode`.
 */
export interface StateCore {
  readonly roots: string[];
  /** Full scan of every root: parse, validate (per file and across files). */
  scan(): Promise<ScanResult>;
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
  get(file: string): WorkflowState | undefined;
  list(): WorkflowState[];
  /** Problems across all files (per-file plus cross-file such as delegation). */
  problems(): Problem[];
  onDidChange(listener: (e: ChangeEvent) => void): Disposable;

  // Mutations: each takes a per-file lock, checks `expectHash`, validates, writes atomically,
  // appends history, and emits onDidChange. With `options.text` it only computes `newText`.
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
  resume(file: string): Promise<ResumePoint>;
  dispose(): void;
}

/** Context a write guard or observer receives. */
export interface WriteContext {
  /** Absolute path of the workflow (or gate) file being written. */
  file: string;
  /** Workspace folder the file belongs to. */
  root: string;
  operation: string;
  actor?: string;
  session?: string;
}

/**
 * Runs under the file lock before a write; throws a WaymarkError (e.g. 'locked' when an
 * orchestrator lease is held by someone else) to refuse it.
 */
export type WriteGuard = (ctx: WriteContext) => void | Promise<void>;

/** Told after a write landed and its history line was appended (events log, memory consolidation). */
export type WriteObserver = (entry: import('./types').HistoryEntry, ctx: WriteContext & { after?: WorkflowState }) => void | Promise<void>;

/**
 * Plain data shared by the state core, the CLI and the VS Code layer.
 * Everything here is serialisable; nothing imports `vscode`.
 */

/** 0-based, like LSP. */
export interface Position {
  line: number;
  character: number;
}

/** 0-based, end exclusive, like LSP. */
export interface Range {
  start: Position;
  end: Position;
}

import type { FixId, ProblemCode, Severity } from './model/problems';

export type { FixId, ProblemCode, Severity };

/** Machine-readable facts of a problem; `fix` names its quick fix (model/problems.ts). */
export type ProblemData = Record<string, unknown> & { fix?: FixId };

/** One finding about one file. `code` is stable: one entry of model/problems.ts, documented in docs/problems.md. */
export interface Problem {
  /** Absolute path. */
  file: string;
  range: Range;
  severity: Severity;
  code: ProblemCode;
  /** Says what is wrong and what to do. */
  message: string;
  /** Machine-readable facts for quick fixes (e.g. `{ fix: 'setLastStep', value: 'step-03' }`). */
  data?: ProblemData;
}

export type Dialect = 'waymark' | 'bmad';

export const STATUSES = ['created', 'in_progress', 'blocked', 'completed', 'archived'] as const;
export type Status = (typeof STATUSES)[number];

export const SCOPES = ['micro', 'small', 'medium', 'large', 'epic'] as const;
export type Scope = (typeof SCOPES)[number];

export const GATE_VERDICTS = ['PASS', 'CONCERNS', 'FAIL', 'WAIVED'] as const;
export type GateVerdict = (typeof GATE_VERDICTS)[number];

/** One step of a workflow, in order. */
export interface StepDef {
  /** Stable id, e.g. `step-03-success` or `design`. */
  id: string;
  /** 1-based position in the ordered list. */
  index: number;
  title?: string;
  /** Gate name when the step is gated (`gate: true` in a definition means the step id). */
  gate?: string;
  /** Absolute path of the step's instruction file (BMAD), when there is one. */
  file?: string;
  /**
   * The step's own file marks it optional (BMAD: its title ends `(Optional)`, its description says
   * `(optional step)`, or its rules say `OPTIONAL STEP` / `This step is OPTIONAL`): passed over, it is no gap.
   */
  optional?: true;
}

export interface Delegation {
  id: string;
  parent_id?: string | null;
  root_id: string;
  depth: number;
  chain_path: string[];
  agent?: string;
}

export interface GateHistoryEntry {
  gate: GateVerdict;
  reviewer?: string;
  updated?: string;
  reason?: string;
}

export interface GateWaiver {
  reason: string;
  approved_by: string;
  expires?: string;
}

/** A gate file's content, as read. */
export interface GateState {
  /** Gate name (file name without `.gate`). */
  name: string;
  /** Absolute path of the gate file. */
  file: string;
  exists: boolean;
  /** `undefined` when the file is missing. An empty file reads as PASS (it opens the gate only under `gates.trust: file`). */
  verdict?: GateVerdict;
  reviewer?: string;
  updated?: string;
  reason?: string;
  waiver?: GateWaiver;
  history: GateHistoryEntry[];
  /** True when advancing past the step is allowed (PASS, CONCERNS, or WAIVED with an unexpired waiver). */
  open: boolean;
  /**
   * Under `gates.trust: recorded`: whether the gate file is the verdict last recorded through
   * Waymark in the workflow's history (false: it does not open the gate). Unset under `file`.
   */
  recorded?: boolean;
  /** Why the gate file does not open its gate although its verdict would: it was not recorded (only then set). */
  unrecorded?: string;
}

/** Delegation keys a cross-file problem may point at. */
export type DelegationKey = 'id' | 'parent_id' | 'root_id' | 'chain_path';

/** The normalized state of one workflow file, whatever its dialect. */
export interface WorkflowState {
  /** Absolute path of the Markdown file. */
  file: string;
  /** Absolute path of the workspace folder it belongs to. */
  root: string;
  dialect: Dialect;
  /** Workflow id: `workflow` (native) or `workflowType` (BMAD), else the file's base name. */
  workflow: string;
  /** Normalized status; `undefined` when missing or unknown (see `rawStatus`). */
  status?: Status;
  /** The status exactly as written (e.g. `ready-for-dev`). */
  rawStatus?: string;
  /** Normalized current step id (from `currentStep`/`current_step`, or derived for BMAD). */
  currentStep?: string;
  /** Normalized step ids, in the order written. */
  stepsCompleted: string[];
  /** Ordered steps of the workflow. */
  steps: StepDef[];
  stepsSource: 'frontmatter' | 'definition' | 'bmad' | 'none';
  /** BMAD `lastStep`, normalized to a step id when it can be. */
  lastStep?: string;
  scope?: Scope;
  blockedReason?: string;
  delegation?: Delegation;
  /**
   * Where the delegation keys sit in the file, from the parse: cross-file problems found later
   * (orphans, duplicate ids, chain mismatches) are placed with them. Only with `delegation`.
   */
  delegationRanges?: Partial<Record<DelegationKey, Range>>;
  session?: string;
  updatedAt?: string;
  ttl?: string | number;
  /** The step to do next: first step in order not completed; undefined when all are done. */
  nextStep?: string;
  /** Gate states for the gated steps, keyed by step id. */
  gates: Record<string, GateState>;
  /** SHA-256 over the state fields only (timestamps excluded), hex. */
  stateHash: string;
  /** SHA-256 over the whole file's bytes, hex. */
  contentHash: string;
  /** The raw frontmatter data (null-prototype object). */
  data: Record<string, unknown>;
  problems: Problem[];
  /**
   * True when the file exists but does not read as a workflow right now (an agent mid-write, a
   * YAML error): this is its last good state, kept by the core; `problems` are the current text's.
   */
  stale?: boolean;
  /** BMAD: which rule identified the artifact's workflow (`outputFile`, `default_output_file`, `workflowType`, `steps`, `manifest`). */
  identifiedBy?: string;
  /** BMAD: what that rule matched (the declared output path, the workflowType...). */
  identifiedDetail?: string;
  /** True when `status` is derived from the steps (the file has no status key); never written back. */
  statusDerived?: boolean;
  /** Why the state is stale: the first error of the current text, in one line. */
  staleReason?: string;
}

/** A file the scan found but did not read as a workflow, and why. */
export interface SkippedFile {
  file: string;
  reason: 'too-large' | 'binary' | 'unreadable' | 'not-a-file' | 'no-frontmatter';
  detail?: string;
}

export interface ScanResult {
  roots: string[];
  workflows: WorkflowState[];
  /** Problems not tied to a parsed workflow (config errors, unparseable files). */
  problems: Problem[];
  /**
   * Cross-file problems (delegation: orphans, duplicate ids, cycles, chain mismatches), computed
   * over every workflow of the scan. Their own list: a state's `problems` are its file's alone.
   */
  crossProblems: Problem[];
  skipped: SkippedFile[];
  /** Number of candidate files looked at. */
  files: number;
}

/** Options every mutation takes. */
export interface MutationOptions {
  /** The state hash the caller read; a different current hash is a conflict. */
  expectHash?: string;
  /** Who does this (agent name, `user`, `vscode`...). Recorded in history. */
  actor?: string;
  /** Session marker recorded in history. */
  session?: string;
  /**
   * Write although the file has error-level problems this change does not fix (recorded in
   * history as `detail.forced`). Never bypasses a gate, a lease or the status rules.
   */
  force?: boolean;
  /**
   * Apply to this text instead of the file on disk, and do not write: the result
   * carries `newText` for the caller to apply (an editor with unsaved changes).
   */
  text?: string;
}

export interface MutationResult {
  file: string;
  operation: string;
  before: WorkflowState;
  after: WorkflowState;
  newText: string;
  /** False when `MutationOptions.text` was given or nothing changed (nothing written). */
  written: boolean;
  /**
   * False when the operation changes nothing: the state hash stays the same and only timestamps
   * would move (then nothing is written and no history line is appended).
   */
  changed?: boolean;
  /** History sequence number, when written. */
  seq?: number;
  /**
   * When written: the file's stat key (device, inode, size, mtime, ctime) right after the write
   * landed, when that stat proved the file holds `newText` (the inode this process renamed there,
   * at the size and mtime it left). While a stat still shows it, the file is the one written.
   */
  landedAs?: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number };
}

/** One line of a workflow's append-only history (JSONL). */
export interface HistoryEntry {
  seq: number;
  time: string;
  session?: string;
  actor?: string;
  operation: string;
  file: string;
  from?: Record<string, unknown>;
  to?: Record<string, unknown>;
  hashBefore?: string;
  hashAfter?: string;
  /** Free-form details (reason, gate verdict, step...). */
  detail?: Record<string, unknown>;
  /**
   * Id of the journalled intent this line completes (`<intent>:<n>`): lets a writer that
   * recovers after a crash tell a line already written from one still missing.
   */
  intent?: string;
}

export interface ResumePoint {
  file: string;
  workflow: string;
  /** Step to do next; undefined when the workflow is done. */
  step?: string;
  stepFile?: string;
  /** Why this step: human sentence. */
  reason: string;
  /** Which source answered (1 frontmatter, 2 checkpoint, 3 orchestrator). */
  tier: 1 | 2 | 3;
  warnings: string[];
}

export interface ManifestRow {
  path: string;
  workflow: string;
  status: string;
  currentStep: string;
  stepsDone: number;
  stepsTotal: number;
  stateHash: string;
  contentHash: string;
}

export interface ChangedReport {
  manifest: string;
  added: string[];
  removed: string[];
  /** State changed (state hash differs). */
  stateChanged: string[];
  /** Content changed but state did not. */
  contentChanged: string[];
}

export interface Disposable {
  dispose(): void;
}

export interface ChangeEvent {
  /** Files whose state changed (absolute paths); removed files have `removed: true`. */
  changes: { file: string; removed?: boolean; state?: WorkflowState }[];
}

/**
 * The state core's one public entry. Every face (the CLI, the VS Code layer, the MCP server,
 * agent hooks) imports from here and nowhere else under `src/core` (ESLint enforces it); nothing
 * here imports `vscode`. `createStateCore(options)` returns the whole core: workflows, gates,
 * delegation, history, protocol and memory, owned and closed by the instance.
 */
export {
  type Range,
  type ProblemCode,
  type Problem,
  STATUSES,
  type Status,
  SCOPES,
  type Scope,
  GATE_VERDICTS,
  type StepDef,
  type GateState,
  type WorkflowState,
  type SkippedFile,
  type MutationOptions,
  type MutationResult,
  type HistoryEntry,
  type ChangeEvent,
} from './types';
export { errorMessage, type WaymarkErrorReason, WaymarkError, EXIT_CODES } from './errors';
export { type Logger, type FileSystem } from './ports';
export type { StateCore, StateCoreOptions, WriteGuard } from './api';
export { createStateCore } from './engine/stateCore';
export { findWorkspaceRoot, isFileSystemRoot, notFileSystemRoot } from './engine/roots';
export { fileUriPath } from './engine/fileUri';
export { nodeFileSystem, overlayFileSystem } from './store/nodeFileSystem';

// Reading and validating.
export { parseWorkflowText, stepAnalysis } from './model/workflow';
export { clip, clipLongWords, isoTime } from './model/text';
export { loadWorkspaceContext, defaultWorkspaceContext, type WorkspaceContext } from './store/workspaceContext';
export { splitFrontmatter, parseFrontmatter } from './model/frontmatter';
export { YamlLocator } from './model/positions';
export { scanRoots, allProblems, readOneFile, readWorkflowFileSync, contextFor, listCandidates } from './store/scan';
export { validateDelegation, chainOf, type DelegationNode } from './model/delegation';
export { parseGateText, gateTextHash } from './model/gates';
export { isGatePath } from './store/gateStore';
export { frontmatterResume } from './model/resume';
export { writeManifest, changedSince } from './store/manifest';

// Writing.
export { writeFileAtomic, ioError } from './store/atomicWrite';
export { withFileLock, acquireFileLock, lockPathFor } from './store/fileLock';
export { appendHistory, readHistory, readHistoryDetailed, historyPathFor, historySnapshot } from './store/history';
export { transitionRefusal } from './model/transitions';
export { MUTATIONS, type MutationName, type MutationArgs, type MutationArg, type MutationSpec } from './model/mutations';
export { PROBLEMS, FIXES, fixTitle, problemDocsPath, isProblemCode } from './model/problems';
export { renderGateUpdate } from './store/gateStore';

// Protocol: data types and pure helpers (the operations are `core.protocol.*`).
export type { ResumeReport } from './protocol/resume';
export type { Lease, LeaseOwner, LeaseStatus } from './protocol/leases';
export { currentOwner, describeOwner } from './protocol/leases';
export { buildTimeline, formatTimeline, stateAt, parseAt } from './protocol/timeline';
export { parseTtl } from './protocol/orchestrator';
export { relPath } from './protocol/paths';

// Memory: data types and vocabularies (the services are `core.memory.forRoot(root)`).
export type { MemoryService } from './memory/memoryService';
export type { RecordInput } from './memory/records';
export type { MemoryRecord, MemoryType, RecallItem, EntityRecord, RelationRecord } from './memory/model';
export { MEMORY_TYPES, LEARNING_CATEGORIES, SUMMARY_SCOPES } from './memory/model';
export { relPath as memoryRelPath } from './memory/links';

// Transitional: the agent hooks still call these two directly; they move to `core.protocol.*`.
/** @deprecated use `core.protocol.resumeRoot` */
export { resumeRoot } from './protocol/resume';
/** @deprecated use `core.protocol.listLeases` */
export { listLeases } from './protocol/leases';

// BMAD sprint: ledger, story files, epics, gates and the drift between them (core-bmad).
export { isBmadProjectFolder, nestedBmadProjects } from './bmad/config';
export { loadSprint, findStory, plannedOnly, subProjects, type SprintReport } from './bmad/sprint';
export { setStoryStatus, type StoryWriteOptions, type StoryWriteResult } from './bmad/storyWrite';
export { type TicketWriteResult } from './bmad/planWrite';
export { PLAN_STATUS_WORDS } from './bmad/planStatus';
export { isSprintFix, isSprintCode, type SprintFixResult } from './bmad/sprintFix';
export { resolveStoryRef, storyRefMessage } from './bmad/storyRef';
export { type SprintStory, type SprintEpic } from './bmad/drift';
export { parseLedger, storyOrder, STORY_STATUSES } from './bmad/ledger';
export { NO_EPIC } from './bmad/story';

// Enforcement where agents write (agent hooks, git pre-commit).
export { type ProposalProblem } from './model/proposal';
export { checkGateRemoval } from './protocol/gateRemoval';
export {
  checkProposedEdit,
  applyReplacements,
  recordAgentEdit,
  saveEditSnapshot,
  sessionLeftovers,
  assertInsideWorkspace,
  readCurrentText,
  isWaymarkRecord,
  refusals,
  currentState,
} from './protocol/proposal';
export { runGit, repoTop } from './protocol/git';
export { checkStagedChanges, type StagedFileReport } from './protocol/stagedCheck';

// The project view: registry, dependencies, frontier, critical path, stalled work (core/project).
export { buildRegistry, UNLEDGERED_REASON, type ProjectItem } from './project/registry';
export { computeFrontier, type FrontierEntry, type Activity } from './project/frontier';
// Where the project reads a workflow file whose own status says otherwise (set aside, finished): every face asks this.
export { workflowStanding, standingKey, type WorkflowStanding } from './project/standing';
export { loadProject, WarmProjectView, workflowStateLine, type ProjectView } from './project/loadProject';
export { checkWorkspace, type WorkspaceCheck } from './project/checkAnswer';
export { frontierEntryJson, projectProblemJson, nextJson, boardJson, BOARD_COLUMNS, type BoardColumn } from './project/projectJson';
export { gitStateTimeline, type GitTimeline } from './project/gitTimeline';
export { projectTimeline, describeChange, type TimelineChange } from './project/timeline';
export { dashboardModel, dashboardTracker, type DashboardChip, type DashboardTrackerInput, type DashboardModel, type DashboardOptions } from './project/dashboard';

// Git as the distributed engine: the state merge driver and its install.
export { mergeStateFile } from './git/mergeDriver';
export { installMergeDriver, uninstallMergeDriver } from './git/gitSetup';
export { worktreeStates, aheadInOtherWorktrees, type WorktreeItem, type AheadElsewhere } from './git/worktrees';
export { snapshotRef, diffState, type RefSnapshot, type StateChange, type StateFieldChange } from './git/refState';
export { reviewState, changedFilesSince, type StateReview, type ReviewMove } from './git/stateReview';

// One-way ticket projection behind a circuit breaker (core/tickets).
export { runProjection, type ProjectReport } from './tickets/projector';
export { projectTickets, sendOrder, renderBody, type ProjectedTicket } from './tickets/projection';
export { TicketError, waymarkIdOf, sourceOf, bodyWithNote } from './tickets/port';
export { readBreakerStatus, breakerFile } from './tickets/breaker';
export { Outbox } from './tickets/outbox';
export { sidecarFile } from './tickets/mirror';
export { trackerSetup, openStore, trackerHealth, parseAllowOutside, ALLOW_OUTSIDE_ENV, type StoreConfig, type TrackerHealth } from './tickets/setup';
export { GitHubIssueStore, nextLink } from './tickets/stores/github';

// BMAD v7's ticket tree: initiatives, epics, `tickets.toml`, leaf files and plans (core/bmad/tree).
export {
  PLAN_STATUSES,
  TRACKER_STATES,
  TICKET_STATES,
  CONTAINER_STATUSES,
  LEAF_TYPES,
  STORE_KINDS,
  type PlanStatus,
  type TrackerState,
  type TicketState,
  type ContainerStatus,
  type LeafType,
  type StoreKind,
  type TicketId,
  type SourcePos,
  type Ticket,
  type Epic,
  type Initiative,
  type TicketTree,
  type NextItem,
  type NextGroups,
  type TreeStatus,
  type ReadTreeOptions,
  type UnpinnedAfter,
  type UndeclaredAfter,
  type OrderConflict,
} from './bmad/tree/types';
export { readTicketTree, hasTicketTree, readTreeAt, locateTree, type TreeLocation } from './bmad/tree/reader';
export { nextGroups, treeStatus, resolveTicket, refOf, longestRemainingChain } from './bmad/tree/next';
export { treeProblems } from './bmad/tree/checks';
export { migrateCheck, mapV6Status, type MigrationReport, type MigrationFinding, type MigrationFindingKind } from './bmad/tree/migrateCheck';
export { ticketJson, treeNextJson, bmadNextJson, bmadStatusJson } from './bmad/tree/treeJson';
// A migrated BMAD project's archived v6 ledger (history, never work beside the tree).
export { isArchivedSprint } from './project/migratedSprint';

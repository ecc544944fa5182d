/**
 * The state core's one public entry. Every face (the CLI, the VS Code layer, the MCP server,
 * agent hooks) imports from here and nowhere else under `src/core` (ESLint enforces it); nothing
 * here imports `vscode`. `createStateCore(options)` returns the whole core: workflows, gates,
 * delegation, history, protocol and memory, owned and closed by the instance.
 */
export * from './types';
export * from './errors';
export * from './ports';
export type { SprintApi, StateCore, StateCoreInit, StateCoreOptions, ProtocolApi, MemoryApi, Actor, WriteContext, WriteGuard, WriteObserver } from './api';
export { createStateCore } from './engine/stateCore';
export { findWorkspaceRoot } from './engine/roots';
export { newErrors } from './engine/writePipeline';
export { nodeFileSystem, overlayFileSystem } from './store/nodeFileSystem';

// Reading and validating.
export { parseWorkflowText, stepAnalysis, type ParsedWorkflow } from './model/workflow';
export { loadWorkspaceContext, defaultWorkspaceContext, type WorkspaceContext } from './store/workspaceContext';
export { splitFrontmatter, parseFrontmatter, type FrontmatterSplit } from './model/frontmatter';
export { YamlLocator } from './model/positions';
export { sha256, computeStateHash } from './model/hash';
export { scanRoots, allProblems, readOneFile, readWorkflowFileSync, contextFor, listCandidates } from './store/scan';
export { validateDelegation, buildChains, chainOf, type DelegationNode } from './model/delegation';
export { gateFilePath, gateOf, readGate, parseGateText, gateTextHash } from './model/gates';
export { isGatePath } from './store/gateStore';
export { frontmatterResume } from './model/resume';
export { writeManifest, changedSince } from './store/manifest';

// Writing.
export { editFrontmatter, editYamlText, type FrontmatterEdit, type EditValue } from './model/edit';
export { writeFileAtomic, ioError } from './store/atomicWrite';
export { withFileLock, acquireFileLock, lockPathFor, type FileLockOptions, type HeldLock } from './store/fileLock';
export { appendHistory, readHistory, readHistoryDetailed, historyPathFor, historySnapshot } from './store/history';
export { transitionRefusal, assertTransition, allowedTransitions } from './model/transitions';
export { MUTATIONS, isMutationName, type MutationName, type MutationArgs, type MutationArg, type MutationSpec, type PlanEnv, type Plan } from './model/mutations';
export { PROBLEMS, FIXES, fixTitle, problemSpec, problemDocsPath, isProblemCode, isFixId, type ProblemSpec } from './model/problems';
export { renderGateUpdate, writeGateFile } from './store/gateStore';

// Protocol: data types and pure helpers (the operations are `core.protocol.*`).
export type { ResumeReport, RootResume, SyncAction, TierAnswer, Degradation } from './protocol/resume';
export type { Checkpoint, CheckpointEntry, RestoreResult, RestorePlanItem } from './protocol/checkpoints';
export type { Lease, LeaseOwner, LeaseStatus, AcquireResult } from './protocol/leases';
export { currentOwner, describeOwner, DEFAULT_LEASE_MS } from './protocol/leases';
export type { ModeRecord } from './protocol/modes';
export type { ProtocolEvent, ReadEventsResult } from './protocol/events';
export { buildTimeline, formatTimeline, stateAt, parseAt, type TimelineSession, type StateAt } from './protocol/timeline';
export { parseTtl } from './protocol/orchestrator';
export { relPath } from './protocol/paths';

// Memory: data types and vocabularies (the services are `core.memory.forRoot(root)`).
export type { MemoryService } from './memory/memoryService';
export type { MemoryConfig } from './memory/memoryConfig';
export type { RecordInput, RecordResult, RecallTarget } from './memory/records';
export type { MemoryStatus } from './memory/memoryStatus';
export type { SessionInfo } from './memory/sessions';
export type { MemoryRecord, MemoryType, RecallItem, EntityRecord, RelationRecord, Tier } from './memory/model';
export { MEMORY_TYPES, LEARNING_CATEGORIES, SUMMARY_SCOPES, ENTITY_KINDS } from './memory/model';
export { relPath as memoryRelPath } from './memory/links';

// Transitional: the agent hooks still call these two directly; they move to `core.protocol.*`.
/** @deprecated use `core.protocol.resumeRoot` */
export { resumeRoot } from './protocol/resume';
/** @deprecated use `core.protocol.listLeases` */
export { listLeases } from './protocol/leases';

// BMAD sprint: ledger, story files, epics, gates and the drift between them (core-bmad).
export { loadSprint, checkSprintProposal, findStory, findLedgerFile, type SprintReport, type SprintOptions } from './bmad/sprint';
export { setStoryStatus, checkStoryTask, type StoryWriteOptions, type StoryWriteResult } from './bmad/storyWrite';
export { isSprintFix, isSprintCode, type SprintFixResult } from './bmad/sprintFix';
export { resolveStoryRef, storyRefMessage } from './bmad/storyRef';
export { buildSprint, recommend, type SprintStory, type SprintEpic, type SprintRecommendation, type SprintModel } from './bmad/drift';
export { parseLedger, classifyLedgerKey, parseLedgerKey, parseStamp, formatStamp, storyOrder, compareEpicIds, STORY_STATUSES, EPIC_STATUSES, type Ledger, type LedgerEntry } from './bmad/ledger';
export { parseStory, normalizeStoryStatus, storyKeyFromName, type StoryFile, type StoryTask } from './bmad/story';
export { parseEpics, type PlannedEpic, type PlannedStory } from './bmad/epics';
export { loadBmadConfig, type BmadConfig } from './bmad/config';

// Enforcement where agents write (agent hooks, git pre-commit).
export { judgeWorkflowChange, type ProposalProblem } from './model/proposal';
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
  type ProposalVerdict,
  type StateFileKind,
  type AgentEditRecord,
  type LeftInconsistent,
} from './protocol/proposal';
export { runGit, repoTop } from './protocol/git';
export { isLedgerPath, isStoryText, storyStatus } from './model/bmadProposal';
export { checkStagedChanges, type StagedCheck, type StagedFileReport } from './protocol/stagedCheck';

// The project view: registry, dependencies, frontier, critical path, stalled work (core/project).
export { buildRegistry, type ProjectRegistry, type ProjectItem, type ProjectEdge, type ItemState, type EdgeKind, type RangeFinder } from './project/registry';
export { computeFrontier, DEFAULT_STALLED, type Frontier, type FrontierEntry, type FrontierInput, type Activity, type Stalled, type StalledThresholds } from './project/frontier';
export { loadProject, projectProblemsFor, workflowStateLine, type ProjectView, type LoadProjectOptions } from './project/loadProject';
export { durationMs } from './model/config';
export { frontierEntryJson, projectProblemJson, nextJson, boardJson, BOARD_COLUMNS, COLUMN_OF, type BoardColumn, type DisplayPath, type FrontierEntryJson, type ProjectProblemJson } from './project/projectJson';
export { gitStateTimeline, type GitStateChange, type GitTimeline, type GitTimelineOptions } from './project/gitTimeline';
export { projectTimeline, describeChange, type TimelineChange, type TimelineOptions } from './project/timeline';
export { dashboardModel, dashboardTracker, type DashboardChip, type DashboardTrackerInput, type DashboardTrackerStore, type DashboardModel, type DashboardItem, type DashboardColumn, type DashboardColumnKey, type DashboardLane, type DashboardMark, type DashboardDay, type DashboardStalled, type DashboardOptions } from './project/dashboard';

// Git as the distributed engine: the state merge driver and its install.
export { mergeStateFile, mergeStatus, uniteSteps, mergeHistoryText, gitMergeFile, stateMergeKind, type StateMergeInput, type StateMergeResult, type StateDecision, type StateMergeKind, type MergeLabels } from './git/mergeDriver';
export { installMergeDriver, uninstallMergeDriver, attributeLines, type GitSetupResult } from './git/gitSetup';
export { listWorktrees, worktreeStates, aheadInOtherWorktrees, type Worktree, type WorktreeItem, type WorktreeState, type WorktreeStatesOptions, type AheadElsewhere } from './git/worktrees';
export { snapshotRef, diffState, resolveRef, readStateItems, compareStateItems, compareItems, type RefSnapshot, type StateItem, type StateChange, type StateFieldChange, type StateDiff } from './git/refState';
export { reviewState, changedFilesSince, mergeBaseOf, type StateReview, type ReviewMove, type ReviewGate, type ReviewProblem } from './git/stateReview';

// One-way ticket projection behind a circuit breaker (core/tickets).
export { runProjection, projectFolder, outboxLength, type ProjectOptions, type ProjectReport, type PlannedChange } from './tickets/projector';
export { projectTickets, sendOrder, renderBody, type ProjectedTicket, type ProjectionInput } from './tickets/projection';
export { TicketError, waymarkIdOf, sourceOf, bodyWithNote, removedLabels, type TicketStore, type TicketDraft, type TicketRef, type ListedTicket, type TrackerCall, type StoreCapabilities } from './tickets/port';
export { TrackerBreaker, readBreakerStatus, breakerFile, DEFAULT_BREAKER, type BreakerSettings, type BreakerStatus, type BreakerState } from './tickets/breaker';
export { Outbox, outboxFile, type OutboxEntry } from './tickets/outbox';
export { mirrorFromFrontmatter, sidecarFile, type TrackerMirror } from './tickets/mirror';
export { trackerSetup, openStore, trackerHealth, parseAllowOutside, ALLOW_OUTSIDE_ENV, type TrackerSetup, type StoreConfig, type TrackerHealth, type OpenStoreOptions } from './tickets/setup';
export { GitTicketStore, ticketFileName } from './tickets/stores/gitStore';
export { GitHubIssueStore, nextLink } from './tickets/stores/github';

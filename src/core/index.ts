/**
 * The state core's one public entry. Everything the CLI, the VS Code layer, memory and
 * protocol code need comes from here; nothing here imports `vscode`.
 */
export * from './types';
export * from './errors';
export * from './ports';
export type { StateCore, StateCoreInit, WriteContext, WriteGuard, WriteObserver } from './api';
export { createStateCore } from './engine/stateCore';
export { findWorkspaceRoot } from './engine/roots';
export { newErrors } from './engine/writePipeline';

// Reading and validating (core-read).
export { parseWorkflowText, stepAnalysis, type ParsedWorkflow } from './model/workflow';
export { loadWorkspaceContext, defaultWorkspaceContext, type WorkspaceContext } from './store/workspaceContext';
export { splitFrontmatter, parseFrontmatter, type FrontmatterSplit } from './model/frontmatter';
export { sha256, computeStateHash } from './model/hash';
export { scanRoots, allProblems } from './store/scan';
export { validateDelegation, buildChains, chainOf, type DelegationNode } from './model/delegation';
export { gateFilePath, readGate, parseGateText } from './model/gates';

// Writing (core-write).
export { editFrontmatter, editYamlText, type FrontmatterEdit, type EditValue } from './model/edit';
export { writeFileAtomic } from './store/atomicWrite';
export { withFileLock, acquireFileLock, lockPathFor, type FileLockOptions, type HeldLock } from './store/fileLock';
export { appendHistory, readHistory, readHistoryDetailed, historyPathFor } from './store/history';
export { transitionRefusal, assertTransition, allowedTransitions } from './model/transitions';
export { renderGateUpdate, writeGateFile } from './store/gateStore';

// BMAD sprint: ledger, story files, epics, gates and the drift between them (core-bmad).
export { loadSprint, checkSprintProposal, findStory, findLedgerFile, type SprintReport, type SprintOptions } from './bmad/sprint';
export { setStoryStatus, checkStoryTask, type StoryWriteOptions, type StoryWriteResult } from './bmad/storyWrite';
export { buildSprint, recommend, type SprintStory, type SprintEpic, type SprintRecommendation, type SprintModel } from './bmad/drift';
export { parseLedger, classifyLedgerKey, parseStamp, formatStamp, STORY_STATUSES, EPIC_STATUSES, type Ledger, type LedgerEntry } from './bmad/ledger';
export { parseStory, normalizeStoryStatus, storyKeyFromName, type StoryFile, type StoryTask } from './bmad/story';
export { parseEpics, type PlannedEpic, type PlannedStory } from './bmad/epics';
export { loadBmadConfig, type BmadConfig } from './bmad/config';

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
export { scanRoots, allProblems, readOneFile } from './store/scan';
export { validateDelegation, buildChains, chainOf, type DelegationNode } from './model/delegation';
export { gateFilePath, readGate, parseGateText } from './model/gates';

// Writing (core-write).
export { editFrontmatter, editYamlText, type FrontmatterEdit, type EditValue } from './model/edit';
export { writeFileAtomic } from './store/atomicWrite';
export { withFileLock, acquireFileLock, lockPathFor, type FileLockOptions, type HeldLock } from './store/fileLock';
export { appendHistory, readHistory, readHistoryDetailed, historyPathFor } from './store/history';
export { transitionRefusal, assertTransition, allowedTransitions } from './model/transitions';
export { renderGateUpdate, writeGateFile } from './store/gateStore';

// Faces for agents (MCP server, VS Code language-model tools): the standard core (leases,
// events, memory observers), three-tier resume, leases and the shared memory service.
export { createStandardStateCore } from './standardCore';
export { frontmatterResume } from './model/resume';
export { resume as resumeWorkflow, resumeRoot, type ResumeReport, type RootResume, type Degradation } from './protocol/resume';
export { acquireLease, releaseLease, listLeases, describeOwner, type LeaseOwner, type Lease, type AcquireResult } from './protocol/leases';
export { recordInHistory } from './protocol/timeline';
export { parseTtl } from './protocol/orchestrator';
export { sharedMemoryService, disposeSharedMemoryServices } from './memory/observer';
export { type MemoryService, type RecordInput, type RecordResult, type MemoryConfig } from './memory/memoryService';
export { MEMORY_TYPES, LEARNING_CATEGORIES, SUMMARY_SCOPES, type MemoryType, type MemoryRecord, type RecallItem } from './memory/model';

// What the VS Code layer needs beyond that: frontmatter positions, checkpoints, lease details,
// memory records for the Memory view.
export { YamlLocator } from './model/positions';
export { createCheckpoint, type Checkpoint } from './protocol/checkpoints';
export { currentOwner, leaseStatus, takeoverLease, type LeaseStatus } from './protocol/leases';
export { type EntityRecord, type RelationRecord } from './memory/model';
export { relPath } from './memory/links';

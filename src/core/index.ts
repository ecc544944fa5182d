/**
 * The state core's one public entry. Everything the CLI, the VS Code layer, memory and
 * protocol code need comes from here; nothing here imports `vscode`.
 */
export * from './types';
export * from './errors';
export * from './ports';
export type { StateCore, StateCoreInit, WriteContext, WriteGuard, WriteObserver } from './api';
export { createStateCore, findWorkspaceRoot, newErrors } from './stateCore';

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

// What the VS Code layer needs beyond the state core (until createStateCore owns protocol and
// memory): the standard write path, frontmatter positions, resume tiers, leases, checkpoints, memory.
export { createStandardStateCore } from './standardCore';
export { YamlLocator } from './model/positions';
export { resume as resumeWorkflow, type ResumeReport, type Degradation } from './protocol/resume';
export { createCheckpoint, type Checkpoint } from './protocol/checkpoints';
export { currentOwner, describeOwner, leaseStatus, listLeases, releaseLease, takeoverLease, type Lease, type LeaseOwner, type LeaseStatus } from './protocol/leases';
export { sharedMemoryService, disposeSharedMemoryServices } from './memory/observer';
export type { MemoryService } from './memory/memoryService';
export { LEARNING_CATEGORIES, type EntityRecord, type MemoryRecord, type MemoryType, type RelationRecord } from './memory/model';
export { relPath } from './memory/links';

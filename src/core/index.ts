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
export { parseWorkflowText, stepAnalysis, type ParsedWorkflow } from './workflow';
export { loadWorkspaceContext, defaultWorkspaceContext, type WorkspaceContext } from './workspaceContext';
export { splitFrontmatter, parseFrontmatter, type FrontmatterSplit } from './frontmatter';
export { sha256, computeStateHash } from './hash';
export { scanRoots, allProblems } from './scan';
export { validateDelegation, buildChains, chainOf, type DelegationNode } from './delegation';
export { gateFilePath, readGate, parseGateText } from './gates';

// Writing (core-write).
export { editFrontmatter, editYamlText, type FrontmatterEdit, type EditValue } from './edit';
export { writeFileAtomic } from './atomicWrite';
export { withFileLock, acquireFileLock, lockPathFor, type FileLockOptions, type HeldLock } from './fileLock';
export { appendHistory, readHistory, readHistoryDetailed, historyPathFor } from './history';
export { transitionRefusal, assertTransition, allowedTransitions } from './transitions';
export { renderGateUpdate, writeGateFile } from './gateStore';

import { isProblemCode } from '../model/problems';
import { SCOPES, STATUSES, type Problem, type WorkflowState } from '../types';

/**
 * Trust nothing: shape checks on values restored from the scan index before anything uses them.
 * A value that fails is a miss for its file (it is read and parsed again).
 */
export const isStr = (v: unknown): v is string => typeof v === 'string';
export const optStr = (v: unknown) => v === undefined || typeof v === 'string';
export const isNum = (v: unknown): v is number => typeof v === 'number';
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkPos(p: unknown): boolean {
  return isObj(p) && Number.isInteger(p.line) && Number.isInteger(p.character) && (p.line as number) >= 0 && (p.character as number) >= 0;
}

function checkProblem(p: unknown): boolean {
  return (
    isObj(p) && isStr(p.file) && isObj(p.range) && checkPos(p.range.start) && checkPos(p.range.end) &&
    (p.severity === 'error' || p.severity === 'warning' || p.severity === 'info') && isStr(p.code) && isProblemCode(p.code) && isStr(p.message) &&
    (p.data === undefined || isObj(p.data))
  );
}

export function checkProblems(ps: unknown, file: string): ps is Problem[] {
  return Array.isArray(ps) && ps.every((p) => checkProblem(p) && (p as Problem).file === file);
}

function checkStep(s: unknown): boolean {
  return isObj(s) && isStr(s.id) && isNum(s.index) && optStr(s.title) && optStr(s.gate) && optStr(s.file);
}

function checkGate(g: unknown): boolean {
  return (
    isObj(g) && isStr(g.name) && isStr(g.file) && typeof g.exists === 'boolean' && typeof g.open === 'boolean' && Array.isArray(g.history) &&
    g.history.every((h) => isObj(h) && isStr(h.gate)) && optStr(g.verdict) && optStr(g.error) && (g.waiver === undefined || isObj(g.waiver))
  );
}

/** True when a restored value has the WorkflowState shape downstream code relies on. */
export function checkState(s: unknown, file: string, root: string): s is WorkflowState {
  if (!isObj(s)) return false;
  if (s.file !== file || s.root !== root) return false;
  if (s.dialect !== 'waymark' && s.dialect !== 'bmad') return false;
  if (!isStr(s.workflow) || !isStr(s.stateHash) || !isStr(s.contentHash)) return false;
  if (s.status !== undefined && !(STATUSES as readonly unknown[]).includes(s.status)) return false;
  if (s.scope !== undefined && !(SCOPES as readonly unknown[]).includes(s.scope)) return false;
  for (const k of ['rawStatus', 'currentStep', 'lastStep', 'blockedReason', 'session', 'updatedAt', 'nextStep']) if (!optStr(s[k])) return false;
  if (!(s.ttl === undefined || isStr(s.ttl) || isNum(s.ttl))) return false;
  if (!(s.stale === undefined || typeof s.stale === 'boolean')) return false;
  if (!['frontmatter', 'definition', 'bmad', 'none'].includes(s.stepsSource as string)) return false;
  if (!Array.isArray(s.stepsCompleted) || !s.stepsCompleted.every(isStr)) return false;
  if (!Array.isArray(s.steps) || !s.steps.every(checkStep)) return false;
  if (!isObj(s.gates) || !Object.values(s.gates).every(checkGate)) return false;
  if (!isObj(s.data)) return false;
  if (s.delegation !== undefined) {
    const d = s.delegation;
    if (!isObj(d) || !isStr(d.id) || !isStr(d.root_id) || !isNum(d.depth) || !Array.isArray(d.chain_path) || !d.chain_path.every(isStr)) return false;
    if (!(d.parent_id === undefined || d.parent_id === null || isStr(d.parent_id)) || !optStr(d.agent)) return false;
  }
  return checkProblems(s.problems, file);
}

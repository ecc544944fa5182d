import type { Problem, WorkflowState } from './types';
import { locatorFor } from './workflow';
import type { PathSeg } from './positions';

const zero = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

function problemAt(state: WorkflowState, path: PathSeg[], code: string, message: string, data?: Record<string, unknown>): Problem {
  const loc = locatorFor(state);
  return { file: state.file, range: loc ? loc.range(path, 'value') : zero, severity: 'error', code, message, ...(data ? { data } : {}) };
}

/**
 * Delegation checks across files: ids unique, every parent_id exists (no orphans), no cycles
 * through parent links, a child's root_id and chain_path agree with its parent's.
 * (Per-file checks, depth = chain length - 1 and the chain's ends, are in validate.ts.)
 */
export function validateDelegation(states: WorkflowState[]): Problem[] {
  const out: Problem[] = [];
  const byId = new Map<string, WorkflowState[]>();
  for (const s of states) {
    const id = s.delegation?.id;
    if (!id) continue;
    const list = byId.get(id) ?? [];
    list.push(s);
    byId.set(id, list);
  }
  for (const [id, list] of byId) {
    if (list.length < 2) continue;
    for (const s of list) {
      const others = list.filter((o) => o !== s).map((o) => o.file);
      out.push(problemAt(s, ['delegation', 'id'], 'delegation-duplicate-id', `Delegation id '${id}' is also used by ${others.join(', ')}. Each workflow needs its own id.`, { others }));
    }
  }
  for (const s of states) {
    const d = s.delegation;
    if (!d || !d.id) continue;
    const parentId = d.parent_id ?? null;
    if (parentId !== null) {
      const parents = byId.get(parentId);
      if (!parents) {
        out.push(problemAt(s, ['delegation', 'parent_id'], 'delegation-orphan', `Parent workflow '${parentId}' does not exist in any scanned file: this delegation is an orphan. Restore the parent or fix parent_id.`, { parent_id: parentId }));
      } else {
        const p = parents[0].delegation!;
        if (p.root_id && d.root_id && p.root_id !== d.root_id) {
          out.push(problemAt(s, ['delegation', 'root_id'], 'delegation-root-mismatch', `root_id is '${d.root_id}' but parent '${parentId}' has root_id '${p.root_id}'. A chain has one root.`, { fix: 'setRoot', value: p.root_id }));
        }
        const expected = [...p.chain_path, d.id];
        if (p.chain_path.length && d.chain_path.join('\u0000') !== expected.join('\u0000')) {
          out.push(problemAt(s, ['delegation', 'chain_path'], 'delegation-chain-mismatch', `chain_path should be the parent's chain plus this id: [${expected.join(', ')}].`, { fix: 'setChain', value: expected }));
        }
      }
    }
    // Cycles through parent links.
    const seen = new Set<string>([d.id]);
    let cur = parentId;
    let steps = 0;
    while (cur !== null && steps++ < 10_000) {
      if (seen.has(cur)) {
        if (cur === d.id) out.push(problemAt(s, ['delegation', 'parent_id'], 'delegation-cycle', `Following parent_id from '${d.id}' leads back to '${d.id}': delegation chains cannot loop. Fix parent_id.`));
        break;
      }
      seen.add(cur);
      cur = byId.get(cur)?.[0].delegation?.parent_id ?? null;
    }
  }
  return out;
}

/** One node of a delegation tree. */
export interface DelegationNode {
  id: string;
  file?: string;
  workflow?: string;
  agent?: string;
  status?: string;
  depth: number;
  /** True when no scanned file has this id (a referenced but missing parent). */
  missing?: boolean;
  children: DelegationNode[];
}

/** Builds delegation trees (roots first, children sorted by id). Orphans hang under a `missing` node. */
export function buildChains(states: WorkflowState[]): DelegationNode[] {
  const nodes = new Map<string, DelegationNode>();
  for (const s of states) {
    const d = s.delegation;
    if (!d?.id || nodes.has(d.id)) continue;
    nodes.set(d.id, { id: d.id, file: s.file, workflow: s.workflow, agent: d.agent, status: s.rawStatus, depth: d.depth, children: [] });
  }
  const roots: DelegationNode[] = [];
  const attached = new Set<string>();
  for (const s of states) {
    const d = s.delegation;
    if (!d?.id || attached.has(d.id)) continue;
    attached.add(d.id);
    const node = nodes.get(d.id)!;
    const pid = d.parent_id ?? null;
    if (pid === null || pid === d.id) {
      roots.push(node);
      continue;
    }
    let parent = nodes.get(pid);
    if (!parent) {
      parent = { id: pid, missing: true, depth: Math.max(0, d.depth - 1), children: [] };
      nodes.set(pid, parent);
      roots.push(parent);
    }
    parent.children.push(node);
  }
  // Members of pure cycles never reach a root: show them as roots so nothing disappears.
  const reachable = new Set<DelegationNode>();
  const mark = (n: DelegationNode) => {
    if (reachable.has(n)) return;
    reachable.add(n);
    n.children.forEach(mark);
  };
  roots.forEach(mark);
  for (const n of nodes.values()) if (!reachable.has(n)) { roots.push(n); mark(n); }
  const sort = (list: DelegationNode[]) => {
    list.sort((a, b) => a.id.localeCompare(b.id));
    list.forEach((n) => sort(n.children));
  };
  sort(roots);
  return roots;
}

/** The links from the root to this workflow (by parent_id), then its subtree. */
export function chainOf(states: WorkflowState[], file: string): { path: DelegationNode[]; node?: DelegationNode } {
  const trees = buildChains(states);
  const find = (list: DelegationNode[], trail: DelegationNode[], seen: Set<DelegationNode>): { path: DelegationNode[]; node?: DelegationNode } | undefined => {
    for (const n of list) {
      if (seen.has(n)) continue;
      seen.add(n);
      if (n.file === file) return { path: [...trail, n], node: n };
      const r = find(n.children, [...trail, n], seen);
      if (r) return r;
    }
    return undefined;
  };
  return find(trees, [], new Set()) ?? { path: [] };
}

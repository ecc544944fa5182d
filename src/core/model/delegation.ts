import type { DelegationKey, Problem, ProblemCode, ProblemData, WorkflowState } from '../types';
import { compareText, quoted } from './text';

const zero = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

function problemAt(state: WorkflowState, key: DelegationKey, code: ProblemCode, message: string, data?: ProblemData): Problem {
  return { file: state.file, range: state.delegationRanges?.[key] ?? zero, severity: 'error', code, message, ...(data ? { data } : {}) };
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
      out.push(problemAt(s, 'id', 'delegation-duplicate-id', `Delegation id ${quoted(id)} is also used by ${others.join(', ')}. Each workflow needs its own id.`, { others }));
    }
  }
  for (const s of states) {
    const d = s.delegation;
    if (!d || !d.id) continue;
    const parentId = d.parent_id ?? null;
    if (parentId === null) continue;
    const parents = byId.get(parentId);
    if (!parents) {
      out.push(problemAt(s, 'parent_id', 'delegation-orphan', `Parent workflow ${quoted(parentId)} does not exist in any scanned file: this delegation is an orphan. Restore the parent or fix parent_id.`, { parent_id: parentId }));
      continue;
    }
    const p = parents[0].delegation!;
    if (p.root_id && d.root_id && p.root_id !== d.root_id) {
      out.push(problemAt(s, 'root_id', 'delegation-root-mismatch', `root_id is ${quoted(d.root_id)} but parent ${quoted(parentId)} has root_id ${quoted(p.root_id)}. A chain has one root.`, { fix: 'setRoot', value: p.root_id }));
    }
    if (p.chain_path.length && !isParentChainPlus(p.chain_path, d.chain_path, d.id)) {
      const expected = [...p.chain_path, d.id];
      out.push(problemAt(s, 'chain_path', 'delegation-chain-mismatch', `chain_path should be the parent's chain plus this id: [${expected.join(', ')}].`, { fix: 'setChain', value: expected }));
    }
  }
  // Cycles through parent links, in one pass: walk each unvisited id up its parents; meeting an
  // id of the current walk again is a cycle, and every member of it gets the problem.
  const state = new Map<string, number>(); // 1 = on the current walk, 2 = done
  for (const start of byId.keys()) {
    if (state.has(start)) continue;
    const walk: string[] = [];
    let cur: string | null = start;
    while (cur !== null && !state.has(cur)) {
      state.set(cur, 1);
      walk.push(cur);
      const pid: string | null = byId.get(cur)?.[0].delegation?.parent_id ?? null;
      cur = pid !== null && byId.has(pid) ? pid : null;
    }
    if (cur !== null && state.get(cur) === 1) {
      const members = walk.slice(walk.indexOf(cur));
      for (const id of members) {
        for (const s of byId.get(id) ?? []) {
          out.push(problemAt(s, 'parent_id', 'delegation-cycle', `Following parent_id from ${quoted(id)} leads back to ${quoted(id)} (${members.join(' > ')}): delegation chains cannot loop. Fix parent_id.`));
        }
      }
    }
    for (const id of walk) state.set(id, 2);
  }
  return out;
}

function isParentChainPlus(parent: string[], child: string[], id: string): boolean {
  if (child.length !== parent.length + 1 || child[child.length - 1] !== id) return false;
  for (let i = 0; i < parent.length; i++) if (parent[i] !== child[i]) return false;
  return true;
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
  // Cycles (A → B → A, or a node its own parent) make the trees graphs: visit each node once.
  const sorted = new Set<DelegationNode>();
  const sort = (list: DelegationNode[]) => {
    list.sort((a, b) => compareText(a.id, b.id));
    for (const n of list) {
      if (sorted.has(n)) continue;
      sorted.add(n);
      sort(n.children);
    }
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

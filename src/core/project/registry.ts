/**
 * The project registry: every workflow and BMAD story of every workspace folder as one item, and
 * the edges saying what waits on what (frontmatter `dependsOn` / `after`, BMAD story and epic
 * order, delegation parents waiting on their children). Pure: data in, data out; no I/O.
 */
import * as path from 'node:path';
import type { Problem, Range, WorkflowState } from '../types';
import type { SprintReport } from '../bmad/sprint';
import type { Ticket, TicketTree } from '../bmad/tree/types';
import { fileAheadOfLedger, plannedNotInLedger } from '../bmad/drift';

/** Why a planned story missing from its ledger is not ready work. */
export const UNLEDGERED_REASON = 'planned in the epics but not in sprint-status.yaml: re-run BMAD sprint planning (bmad-sprint-planning) to add it';
import { identifiedNotInstalled } from '../bmad/identify';
import { HELD, setAsideStatus } from '../bmad/story';
import { quoted } from '../model/text';
import { relOf, workflowStanding, type WorkflowStanding } from './standing';

/** Where an item stands, for the board's columns. `dropped` is an archived workflow. */
export type ItemState = 'todo' | 'in_progress' | 'review' | 'blocked' | 'done' | 'dropped';

/** Why one item waits on another. */
export type EdgeKind = 'dependsOn' | 'story-order' | 'epic-order' | 'delegation';

/** One unit of work: a workflow file, a BMAD story or a BMAD v7 ticket. */
export interface ProjectItem {
  /**
   * Stable id: the workflow id (or relative path when two files share it), `story:<key>` for stories
   * (`story:<project>:<key>` for a BMAD project beside another that uses the same keys: storyIdsOf),
   * `ticket:<ref>` for v7 tickets.
   */
  id: string;
  /** A story's key in its ledger (`1-2-login`), as BMAD's workflows and `waymark story` name it. */
  storyKey?: string;
  kind: 'workflow' | 'story' | 'ticket';
  root: string;
  /** Absolute path of the file, when there is one (a ledger-only story has none). */
  file?: string;
  /** Path relative to its root, with `/`. */
  rel?: string;
  title: string;
  state: ItemState;
  /** The status exactly as written. */
  rawStatus?: string;
  blockedReason?: string;
  /** Higher first; from frontmatter `priority` (number, or critical/high/medium/low). */
  priority: number;
  /** When the item was created (frontmatter `createdAt`/`created`), ISO; for ordering by age. */
  created?: string;
  /** Prerequisites a `waive:` list lets pass although not done. */
  waived: string[];
  /** 0-based line of a story file's `Status:` (a workflow's `status:` key is found on demand: `workflowStateLine`). */
  line?: number;
  /** A sub-agent's workflow: the delegation it belongs to (its parent's delegation id) and the agent. */
  delegatedBy?: string;
  agent?: string;
  /** Its own delegation id, when it has one. */
  delegationId?: string;
  /** A v7 ticket's BMAD ref (`2.1`) and its plan's assignee. */
  ref?: string;
  assignee?: string;
  /** A BMAD document (a PRD, an architecture, epics…): it plans the project's stories rather than being one. */
  planning?: true;
}

/** `from` waits on `to`. */
export interface ProjectEdge {
  from: string;
  to: string;
  kind: EdgeKind;
}

export interface ProjectRegistry {
  items: ProjectItem[];
  byId: Map<string, ProjectItem>;
  edges: ProjectEdge[];
  /** Prerequisites of each item (edges out of it). */
  prerequisites: Map<string, ProjectEdge[]>;
  /** Items waiting on each item (edges into it). */
  dependents: Map<string, ProjectEdge[]>;
  /** Unknown targets, self-dependencies and cycles (the cycle named). */
  problems: Problem[];
  /** Edges left out because they close a cycle: the rest is a DAG. */
  cycleEdges: ProjectEdge[];
  /** Each cycle found, as ids from one item round to itself. */
  cycles: string[][];
}

/** Frontmatter text of a workflow file, for problem ranges from the YAML parser (optional). */
export type RangeFinder = (file: string, keyPath: (string | number)[]) => Range | undefined;

const PRIORITY_WORDS: Record<string, number> = { critical: 4, urgent: 4, high: 3, p0: 4, p1: 3, p2: 2, p3: 1, medium: 2, normal: 2, low: 1 };

function priorityOf(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') return PRIORITY_WORDS[v.trim().toLowerCase()] ?? (Number.isFinite(Number(v)) ? Number(v) : 0);
  return 0;
}

function workflowState(w: WorkflowState): ItemState {
  const raw = (w.rawStatus ?? '').toLowerCase();
  if (raw === 'review' || raw === 'in-review' || raw === 'in_review') return 'review';
  switch (w.status) {
    case 'in_progress': return 'in_progress';
    case 'blocked': return 'blocked';
    case 'completed': return 'done';
    case 'archived': return 'dropped';
    default: return 'todo';
  }
}

function storyState(raw: string): ItemState {
  const status = raw.trim().toLowerCase().replace(/[\s_]+/g, '-');
  switch (status) {
    case 'in-progress': return 'in_progress';
    case 'review': return 'review';
    case 'done': return 'done';
    case 'blocked': return 'blocked';
    default:
      // The project's own words (kept as written by the sprint reader): work past done (`deployed`,
      // `released`) is done, work set aside is dropped, work held is blocked; nothing of the kind is
      // offered as ready to start.
      if (/^(deployed|released|shipped|live|in-production|delivered|merged|closed|completed?|finished)$/.test(status)) return 'done';
      // A set-aside or held word keeps its meaning with a qualifier after it (`deferred-v2`,
      // `cancelled-duplicate`, `on-hold-vendor`); `quarantined`, `retired` set work aside too.
      if (/^(deferred|superseded|skipped|deprecated|withdrawn|cancell?ed|obsolete|archived|retired|quarantined|abandoned|dropped|wont-?do|won-t-do|wontfix|descoped|de-scoped|out-of-scope|removed|duplicate)(-.+)?$/.test(status)) return 'dropped';
      if (/^(?:(on-?hold|paused|parked|postponed|shelved|suspended|stalled|blocked)(-.+)?|waiting)$/.test(status)) return 'blocked';
      // Any other word the sprint reader reads as setting a story aside (`migrated`, `moved`,
      // `replaced`, `split into …`): held is blocked, the rest dropped.
      if (setAsideStatus(raw) !== undefined) return HELD.test(raw.trim()) ? 'blocked' : 'dropped';
      return 'todo';
  }
}

function listOf(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}


const zero: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * Builds the registry from a scan's workflows and each folder's sprint. Ids resolve across
 * workspace folders: a `dependsOn` entry may name a workflow id, a delegation id, a story
 * (`story:1-2-login`, or its key), or a path relative to the file's folder root.
 */
/**
 * A BMAD document whose progress cannot be told: no status word Waymark knows; no workflow
 * identified at all; or a workflow not installed here (no steps to count) whose steps were
 * recorded while its status word says not started (a readiness report's `status: ready`, a
 * spec's `ready-for-dev` are the document's verdict, not its progress).
 */
function progressUntold(w: WorkflowState): boolean {
  // A file that names a workflow (`workflow: mid-sized (additive changes)`, another tool's word) with
  // no status written, no steps and no definition of that id: nothing says what its work is or how
  // far it is. A status written but not one of ours (`status: review`) still tells: it is shown.
  // A `steps:` list none of whose entries is a step id (a playbook's `- agent: … / task: …` lines)
  // with nothing completed tells no more than no list.
  if (w.dialect === 'waymark') return w.status === undefined && w.rawStatus === undefined && (w.stepsSource === 'none' || (w.stepsSource === 'frontmatter' && w.steps.length === 0 && w.stepsCompleted.length === 0)) && w.delegation === undefined;
  if (w.dialect !== 'bmad') return false;
  if (w.status === undefined) return true;
  // No workflow identified (none installed, declared, known or named by the file's own step
  // records; validate's bmad-workflow-unknown): whose work it is, nobody can say.
  if (w.identifiedBy === undefined && w.steps.length === 0) return true;
  // A quick-dev spec not begun (`draft`, `ready-for-dev`) is a plan, not work under way: `next` offers
  // quick-flow work only once it is in progress or in review, after the sprint's own (registry order).
  if (w.workflow === 'quick-dev' && w.status === 'created' && w.stepsCompleted.length === 0 && typeof w.data.title === 'string') return true;
  const notInstalled = identifiedNotInstalled(w.identifiedBy);
  return notInstalled && w.status === 'created' && w.stepsCompleted.length > 0;
}

/**
 * Each sprint's story ids. A story is `story:<key>`; a BMAD project beside another whose stories
 * share its keys (sibling apps in one repository, each numbering its epics from 1: both have a
 * `1-1-…` of the same name) has its stories named `story:<project>:<key>`, the project by its
 * folder's name (more of its path when two projects' folders share a name), so that neither
 * project's stories hide the other's. The first project keeps the plain ids, and a project that
 * shares no key keeps them too: a single project's ids never change.
 */
export function storyIdsOf(sprints: readonly SprintReport[]): (sprint: SprintReport, key: string) => string {
  const prefixOf = new Map<string, string>();
  const owner = new Map<string, string>();
  const labels = new Set<string>();
  for (const sprint of sprints) {
    if (prefixOf.has(sprint.root)) continue;
    const shared = sprint.stories.some((s) => { const o = owner.get(s.key); return o !== undefined && o !== sprint.root; });
    let prefix = 'story:';
    if (shared) {
      const parts = sprint.root.split(/[\\/]/).filter(Boolean);
      let label = parts[parts.length - 1] ?? 'project';
      for (let n = 2; labels.has(label) && n <= parts.length; n++) label = parts.slice(-n).join('/');
      labels.add(label);
      prefix = `story:${label}:`;
    }
    prefixOf.set(sprint.root, prefix);
    for (const s of sprint.stories) if (!owner.has(s.key)) owner.set(s.key, sprint.root);
  }
  return (sprint, key) => `${prefixOf.get(sprint.root) ?? 'story:'}${key}`;
}

export function buildRegistry(workflows: readonly WorkflowState[], sprints: readonly SprintReport[], findRange?: RangeFinder, trees: readonly TicketTree[] = []): ProjectRegistry {
  const items: ProjectItem[] = [];
  const byId = new Map<string, ProjectItem>();
  /** Every name an item answers to → its id (first one wins; ambiguous names listed). */
  const alias = new Map<string, string>();
  const ambiguous = new Set<string>();
  const addAlias = (name: string, id: string) => {
    const had = alias.get(name);
    if (had === undefined) alias.set(name, id);
    else if (had !== id) ambiguous.add(name);
  };
  const storyFiles = new Map<string, string>();
  /** Planned stories their sprint's ledger lacks: passed over in story order, as BMAD's create-story does. */
  const notInLedger = new Set<string>();

  const storyId = storyIdsOf(sprints);
  for (const sprint of sprints) {
    for (const s of sprint.stories) {
      const id = storyId(sprint, s.key);
      // The same story read twice (a folder and one inside it, both workspace folders): one item.
      if (byId.has(id) || (s.file && storyFiles.has(s.file))) continue;
      // The story file further along than the ledger (`Status: done`, ledger ready-for-dev): the work
      // is where the file says (never offered to start again); the drift is reported by the sprint.
      // A story only the epics plan, missing from the sprint's ledger: BMAD's create-story cannot find
      // it, so it is not ready work: sprint planning adds it first (the sprint's own recommendation).
      const unledgered = plannedNotInLedger(s);
      const state = unledgered ? 'blocked' : fileAheadOfLedger(s) ? storyState(s.fileStatusMapped!) : storyState(s.status);
      const item: ProjectItem = {
        id, kind: 'story', storyKey: s.key, root: sprint.root, file: s.file, rel: s.file ? relOf(sprint.root, s.file) : undefined,
        title: s.title ?? s.key, state, rawStatus: s.status, priority: 0, waived: [], line: s.file ? s.fileStatusLine : undefined,
        ...(unledgered ? { blockedReason: UNLEDGERED_REASON } : {}),
      };
      if (unledgered) notInLedger.add(id);
      items.push(item);
      byId.set(id, item);
      addAlias(id, id);
      addAlias(s.key, id);
      addAlias(`${s.epicId}.${s.story}`, id);
      if (s.file) {
        storyFiles.set(s.file, id);
        addAlias(item.rel!, id);
      }
    }
  }

  // BMAD v7 tickets: a plan or leaf file read as a workflow too is one item, the ticket.
  const ticketEdges: { from: string; to: string; kind: EdgeKind }[] = [];
  for (const tree of trees) {
    const { items: tickets, edges: after } = ticketItems(tree, (f) => relOf(tree.root, f));
    for (const item of tickets) {
      if (byId.has(item.id)) continue;
      items.push(item);
      byId.set(item.id, item);
      addAlias(item.id, item.id);
      if (item.ref) addAlias(item.ref, item.id);
      if (item.file) {
        storyFiles.set(item.file, item.id);
        addAlias(item.rel!, item.id);
      }
    }
    for (const t of tree.tickets) if (t.plan && t.file && !storyFiles.has(t.plan)) storyFiles.set(t.plan, `ticket:${t.ref}`);
    ticketEdges.push(...after);
  }

  const idCount = new Map<string, number>();
  for (const w of workflows) if (!storyFiles.has(w.file) && !progressUntold(w)) idCount.set(w.workflow, (idCount.get(w.workflow) ?? 0) + 1);
  const workflowItems: { w: WorkflowState; item: ProjectItem }[] = [];
  for (const w of workflows) {
    const rel = relOf(w.root, w.file);
    const storyId = storyFiles.get(w.file);
    if (storyId) {
      // A story file that is also read as a workflow is one item: the story, with its dependsOn.
      workflowItems.push({ w, item: byId.get(storyId)! });
      continue;
    }
    // A BMAD document whose progress cannot be told (no status word Waymark knows, no steps of an
    // installed workflow) is not work to plan: never offered as ready, never counted as open.
    if (progressUntold(w)) continue;
    const id = idCount.get(w.workflow) === 1 && !byId.has(w.workflow) ? w.workflow : rel;
    const item = workflowItem(w, id, rel, workflowStanding(w, sprints));
    items.push(item);
    byId.set(id, item);
    workflowItems.push({ w, item });
    addAlias(id, id);
    addAlias(rel, id);
    addAlias(w.workflow, id);
    if (w.delegation?.id) addAlias(w.delegation.id, id);
  }

  const edges: ProjectEdge[] = [];
  const problems: Problem[] = [];
  const prerequisites = new Map<string, ProjectEdge[]>();
  const addEdge = (from: string, to: string, kind: EdgeKind) => {
    if (from === to) return;
    const had = prerequisites.get(from);
    if (had?.some((e) => e.to === to)) return;
    const e: ProjectEdge = { from, to, kind };
    edges.push(e);
    if (had) had.push(e);
    else prerequisites.set(from, [e]);
  };
  const problem = (file: string, keyPath: (string | number)[], code: Problem['code'], severity: Problem['severity'], message: string, data?: Record<string, unknown>) => {
    problems.push({ file, range: findRange?.(file, keyPath) ?? zero, severity, code, message, data });
  };

  const workflowById = new Map(workflowItems.map((x) => [x.item.id, x.w]));
  // Frontmatter dependencies.
  for (const { w, item } of workflowItems) {
    for (const key of ['dependsOn', 'after'] as const) {
      const entries = listOf(w.data[key]);
      entries.forEach((entry, i) => {
        const where = Array.isArray(w.data[key]) ? [key, i] : [key];
        const name = typeof entry === 'string' ? entry.trim() : typeof entry === 'number' ? String(entry) : undefined;
        if (!name) {
          problem(w.file, where, 'depends-unknown', 'error', `${key} entries must be workflow ids or relative paths; this one is ${JSON.stringify(entry)}. Write the id of the workflow this one waits on.`);
          return;
        }
        const target = resolve(name, w.root, w.file, alias);
        if (!target) {
          problem(w.file, where, 'depends-unknown', 'error', `${key} names ${quoted(name)}, which is no workflow, story or file of the workspace. Fix the id or path, or remove the entry.`, { target: name });
          return;
        }
        if (ambiguous.has(name)) {
          problem(w.file, where, 'depends-unknown', 'warning', `${key} names ${quoted(name)}, which several files answer to; ${quoted(target)} is used. Name the file by its relative path.`, { target: name, resolved: target });
        }
        if (target === item.id) {
          problem(w.file, where, 'depends-self', 'error', `${key} names this workflow itself (${quoted(name)}): an item cannot wait on itself. Remove the entry.`, { target: name });
          return;
        }
        addEdge(item.id, target, 'dependsOn');
      });
    }
    // Delegation: a parent that says so waits on its children.
    const parent = w.delegation?.parent_id ? alias.get(w.delegation.parent_id) : undefined;
    if (parent) {
      const p = workflowById.get(parent);
      if (p && waitsForChildren(p)) addEdge(parent, item.id, 'delegation');
    }
  }

  // BMAD order: each story waits on the one before it in its epic; an epic's first story on the
  // previous epic's last. A story set aside (cancelled, superseded, migrated) is passed over, as
  // BMAD's workflows pass over it: the next one waits on the one before it.
  for (const sprint of sprints) {
    let prevLast: string | undefined;
    for (const epic of sprint.epics) {
      const ids = epic.stories.map((s) => storyId(sprint, s.key)).filter((id) => byId.has(id) && byId.get(id)!.state !== 'dropped' && !notInLedger.has(id));
      if (!ids.length) continue;
      if (prevLast) addEdge(ids[0], prevLast, 'epic-order');
      for (let i = 1; i < ids.length; i++) addEdge(ids[i], ids[i - 1], 'story-order');
      prevLast = ids[ids.length - 1];
    }
  }

  for (const e of ticketEdges) addEdge(e.from, e.to, e.kind);

  const cycles: string[][] = [];
  const cycleEdges = breakCycles(items, prerequisites, byId, problems, cycles, findRange);
  const closing = new Set(cycleEdges);
  const dependents = new Map<string, ProjectEdge[]>();
  for (const e of edges) if (!closing.has(e)) push(dependents, e.to, e);
  if (closing.size) {
    for (const [from, list] of prerequisites) {
      const kept = list.filter((e) => !closing.has(e));
      if (kept.length !== list.length) prerequisites.set(from, kept);
    }
  }
  return { items, byId, edges, prerequisites, dependents, problems, cycleEdges, cycles };
}

/** The item of a workflow file, standing where the project reads it (`workflowStanding`: set aside or finished). */
function workflowItem(w: WorkflowState, id: string, rel: string, standing: WorkflowStanding | undefined): ProjectItem {
  const data = w.data;
  return {
    id, kind: 'workflow', root: w.root, file: w.file, rel,
    title: typeof data.title === 'string' ? data.title : w.workflow, state: standing ? (standing.status === 'completed' ? 'done' : 'dropped') : workflowState(w), rawStatus: w.rawStatus,
    blockedReason: w.blockedReason, priority: priorityOf(data.priority),
    created: typeof data.createdAt === 'string' ? data.createdAt : typeof data.created === 'string' ? data.created : undefined,
    waived: listOf(data.waive).filter((x): x is string => typeof x === 'string'),
    delegatedBy: w.delegation?.parent_id ?? undefined,
    agent: w.delegation?.agent,
    delegationId: w.delegation?.id,
    ...(w.dialect === 'bmad' ? { planning: true as const } : {}),
  };
}

/** What a workflow adds to the graph beyond its own item: its names, its edges, whether it is an item at all. */
function graphShape(w: WorkflowState): string {
  const d = w.delegation;
  return JSON.stringify([w.workflow, w.root, progressUntold(w), w.data.dependsOn, w.data.after, d?.id, d?.parent_id, w.data.waitForChildren, w.data.waitsForChildren]);
}

const itemsByFile = new WeakMap<ProjectRegistry, Map<string, ProjectItem>>();

/**
 * The registry with some workflows' states replaced (a file edited: its status, step, title,
 * priority), sharing the edges, problems and cycles of `reg`: the same as `buildRegistry` over
 * the new states when each changed workflow keeps its names, its edges and its standing as an
 * item, is a workflow item (no story or ticket file) and has no registry problem (whose range
 * the edit may have moved). Undefined when that does not hold: build the registry again.
 */
export function updateRegistry(reg: ProjectRegistry, changed: readonly { before: WorkflowState; after: WorkflowState }[]): ProjectRegistry | undefined {
  let byFile = itemsByFile.get(reg);
  if (!byFile) {
    byFile = new Map();
    for (const it of reg.items) if (it.file && !byFile.has(it.file)) byFile.set(it.file, it);
    itemsByFile.set(reg, byFile);
  }
  const replaced = new Map<string, ProjectItem>();
  for (const { before, after } of changed) {
    if (before.file !== after.file || graphShape(before) !== graphShape(after)) return undefined;
    if (progressUntold(after)) continue; // no item, before or after
    const old = byFile.get(after.file);
    if (!old || old.kind !== 'workflow' || reg.byId.get(old.id) !== old) return undefined;
    if (reg.problems.some((p) => p.file === after.file)) return undefined;
    // A BMAD document naming an epic may stand where its ledger's epic does (an item settled by its
    // epic was built from such a `before`): only a build reads the sprints.
    if (namesEpic(before) || namesEpic(after)) return undefined;
    replaced.set(old.id, workflowItem(after, old.id, old.rel!, workflowStanding(after)));
  }
  if (!replaced.size) return reg;
  const items = reg.items.map((it) => replaced.get(it.id) ?? it);
  const byId = new Map(reg.byId);
  for (const [id, it] of replaced) byId.set(id, it);
  const next = { ...reg, items, byId };
  const nextByFile = new Map(byFile);
  for (const it of replaced.values()) nextByFile.set(it.file!, it);
  itemsByFile.set(next, nextByFile);
  return next;
}

function namesEpic(w: WorkflowState): boolean {
  return w.dialect === 'bmad' && w.data.epic !== undefined && w.data.epic !== null;
}

function waitsForChildren(w: WorkflowState): boolean {
  const v = w.data.waitForChildren ?? w.data.waitsForChildren;
  return v === true || v === 'true' || v === 'all';
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

function resolve(name: string, root: string, file: string, alias: Map<string, string>): string | undefined {
  const direct = alias.get(name) ?? alias.get(`story:${name}`);
  if (direct) return direct;
  // A path: relative to the root, or to the file's own folder.
  const norm = name.replace(/\\/g, '/').replace(/^\.\//, '');
  const fromRoot = alias.get(norm);
  if (fromRoot) return fromRoot;
  const fromFile = path.relative(root, path.resolve(path.dirname(file), name)).split(path.sep).join('/');
  return alias.get(fromFile) ?? (norm.endsWith('.md') ? undefined : alias.get(`${norm}.md`));
}

/**
 * Finds the cycles (iterative DFS, so 10,000 chained items do not overflow the stack), reports
 * each once on every workflow file in it, and returns the edges that close them.
 */
function breakCycles(items: ProjectItem[], out: Map<string, ProjectEdge[]>, byId: Map<string, ProjectItem>, problems: Problem[], cycles: string[][], findRange?: RangeFinder): ProjectEdge[] {
  const colour = new Map<string, 1 | 2>();
  const closing: ProjectEdge[] = [];
  for (const start of items) {
    if (colour.has(start.id)) continue;
    const stack: { id: string; i: number }[] = [{ id: start.id, i: 0 }];
    const onPath: string[] = [start.id];
    colour.set(start.id, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const next = out.get(top.id)?.[top.i++];
      if (!next) {
        colour.set(top.id, 2);
        stack.pop();
        onPath.pop();
        continue;
      }
      const c = colour.get(next.to);
      if (c === 1) {
        closing.push(next);
        const cycle = [...onPath.slice(onPath.indexOf(next.to)), next.to];
        cycles.push(cycle);
        const named = cycle.join(' → ');
        for (const id of new Set(cycle)) {
          const it = byId.get(id);
          if (!it?.file || it.kind !== 'workflow') continue;
          problems.push({
            file: it.file, range: findRange?.(it.file, ['dependsOn']) ?? findRange?.(it.file, ['after']) ?? zero, severity: 'error', code: 'depends-cycle',
            message: `Dependency cycle: ${named}. None of these can start; remove one dependsOn/after entry of the loop.`,
            data: { cycle },
          });
        }
      } else if (c === undefined) {
        colour.set(next.to, 1);
        stack.push({ id: next.to, i: 0 });
        onPath.push(next.to);
      }
    }
  }
  return closing;
}

// BMAD v7's tickets as project items: `ticket:<ref>`, the board's words, the edges of `after` and epic gates.

/** The board's column word for a ticket: `blocked` for a blocked plan, else from BMAD's state. */
export function ticketItemState(t: Ticket): ItemState {
  if (t.status === 'blocked') return 'blocked';
  switch (t.state) {
    case 'in-progress': return 'in_progress';
    case 'review': return 'review';
    case 'done': return 'done';
    case 'dropped': return 'dropped';
    default: return 'todo';
  }
}

/** A project item's id for a ticket. */
export function ticketItemId(t: Ticket): string {
  return `ticket:${t.ref}`;
}

/**
 * The items of one tree and the edges between them (a ticket waits on its `after`; a gated epic's
 * tickets on every live ticket of the gating epic). A prerequisite in review meets an `after`, as
 * in `tickets.py next` (it is listed in `waived`); a gate waits for done.
 */
export function ticketItems(tree: TicketTree, relOf: (file: string) => string): { items: ProjectItem[]; edges: { from: string; to: string; kind: EdgeKind }[] } {
  const byKey = new Map(tree.tickets.map((t) => [t.key, t]));
  const items: ProjectItem[] = [];
  const edges: { from: string; to: string; kind: EdgeKind }[] = [];
  for (const t of tree.tickets) {
    const file = t.file ?? t.plan;
    const id = ticketItemId(t);
    const waived = t.after.map((k) => byKey.get(k)).filter((p): p is Ticket => p?.state === 'review').map(ticketItemId);
    items.push({
      id, kind: 'ticket', root: tree.root, file, rel: file ? relOf(file) : undefined,
      title: /^\d/.test(t.ref) ? `${t.ref} ${t.title}` : t.title || t.ref, state: ticketItemState(t), rawStatus: t.status || t.state,
      blockedReason: t.blockedReason || undefined, priority: 0, waived,
      line: t.statusPos && t.statusPos.file === file ? t.statusPos.line : undefined,
      ref: t.ref, assignee: t.assignee || undefined,
    });
    for (const k of t.after) {
      const pre = byKey.get(k);
      if (pre) edges.push({ from: id, to: ticketItemId(pre), kind: 'dependsOn' });
      else for (const o of tree.tickets) if (o.epic === k && o.state !== 'dropped') edges.push({ from: id, to: ticketItemId(o), kind: 'epic-order' });
    }
    for (const slug of t.gatedBy) for (const o of tree.tickets) if (o.epic === slug && o.state !== 'dropped') edges.push({ from: id, to: ticketItemId(o), kind: 'epic-order' });
  }
  return { items, edges };
}

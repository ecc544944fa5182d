/**
 * What a branch changes in workflow state, for a pull request: the working tree compared with the
 * merge base of BASE (the state the branch started from, read from git into a temp folder). Plain
 * data — workflows and stories that moved and who moved them (per history), steps completed and
 * rewound, gates opened or closed and by which reviewer, problems introduced or fixed — that a face
 * renders as Markdown (`waymark diff-state BASE --format markdown`, the GitHub Action's summary).
 */
import * as path from 'node:path';
import { runGit } from '../protocol/git';
import { snapshotRef, resolveRef, readStateItems, compareStateItems, compareItems, type StateItem } from './refState';
import { scanRoots } from '../store/scan';
import { readHistory } from '../store/history';
import { loadSprint } from '../bmad/sprint';
import type { Problem, Severity, WorkflowState } from '../types';

/** One workflow or story whose state differs between the base and the working tree. */
export interface ReviewMove {
  /** Workflow file relative to the workspace folder, or `story KEY`. */
  id: string;
  kind: 'workflow' | 'story';
  /** The file to annotate, relative to the workspace folder (a story's file or the ledger). */
  file?: string;
  change: 'added' | 'removed' | 'changed';
  from?: string;
  to?: string;
  /** Steps completed on the branch, and steps the base had completed that the branch has not (a rewind). */
  stepsCompleted: string[];
  stepsRewound: string[];
  /** Tasks ticked, as `done/total`, when they changed. */
  tasks?: { from?: string; to?: string };
  /** Stories: the ledger's and the story file's own statuses, when they changed (`from → to`). */
  ledgerStatus?: { from?: string; to?: string };
  fileStatus?: { from?: string; to?: string };
  /** True when the branch moved it backwards (steps un-done or an earlier status). */
  rewind: boolean;
  /** Who moved it, from the history lines the branch added (empty: no history line: edited by hand). */
  by: string[];
}

/** A gate verdict that differs. */
export interface ReviewGate {
  /** The workflow file (relative) and the gated step. */
  id: string;
  step: string;
  gate: string;
  /** The gate file, relative to the workspace folder. */
  file: string;
  from?: string;
  to?: string;
  /** `opened`: the step may now be passed; `closed`: it no longer may; `changed`: another verdict, same openness. */
  change: 'opened' | 'closed' | 'changed';
  reviewer?: string;
  /**
   * The gate file is not a verdict recorded through Waymark (written by hand): under
   * `gates.trust: recorded` it does not open its gate, whatever it says.
   */
  unrecorded?: boolean;
}

/** A problem (validate's) present on one side only. */
export interface ReviewProblem {
  file: string;
  line: number;
  severity: Severity;
  code: string;
  message: string;
}

export interface StateReview {
  base: string;
  /** The commit BASE names, and the merge base compared with (the same when BASE is an ancestor). */
  baseCommit: string;
  mergeBase: string;
  moved: ReviewMove[];
  gates: ReviewGate[];
  introduced: ReviewProblem[];
  fixed: ReviewProblem[];
}

interface Side {
  dir: string;
  items: Map<string, StateItem>;
  workflows: Map<string, WorkflowState>;
  problems: Problem[];
  /** Story key → its file (relative), or the ledger's. */
  storyFiles: Map<string, string>;
}

function rel(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

async function readSide(dir: string): Promise<Side> {
  const items = await readStateItems(dir, { scanIndex: false });
  const res = await scanRoots([dir], { sprint: true, index: false });
  const workflows = new Map(res.workflows.map((w) => [rel(dir, w.file), w]));
  const problems = [...res.problems, ...res.workflows.flatMap((w) => w.problems), ...res.crossProblems];
  const storyFiles = new Map<string, string>();
  const sprint = loadSprint(dir, { cache: false });
  for (const s of sprint?.stories ?? []) {
    const f = s.file ?? s.ledgerFile ?? sprint?.ledgerFile;
    if (f) storyFiles.set(s.key, rel(dir, f));
  }
  return { dir, items, workflows, problems, storyFiles };
}

/** Actors of the history lines `head` has beyond `base` for one file (relative path). */
function movers(head: Side, base: Side, file: string): string[] {
  let before = 0;
  try {
    before = Math.max(0, ...readHistory(base.dir, path.join(base.dir, file)).map((e) => e.seq));
  } catch {
    before = 0; // an unreadable base history counts as empty: every head line is the branch's
  }
  let after: { seq: number; actor?: string }[] = [];
  try {
    after = readHistory(head.dir, path.join(head.dir, file));
  } catch {
    after = [];
  }
  return [...new Set(after.filter((e) => e.seq > before).map((e) => e.actor ?? 'unknown'))];
}

function problemKey(p: ReviewProblem): string {
  return `${p.file}\0${p.code}\0${p.message.replace(/\d+/g, '#')}`;
}

/** Problems of `a` not in `b` (by file, code and message, counted). */
function only(a: ReviewProblem[], b: ReviewProblem[]): ReviewProblem[] {
  const left = new Map<string, number>();
  for (const p of b) left.set(problemKey(p), (left.get(problemKey(p)) ?? 0) + 1);
  const out: ReviewProblem[] = [];
  for (const p of a) {
    const k = problemKey(p);
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else out.push(p);
  }
  return out;
}

function reviewProblems(side: Side): ReviewProblem[] {
  return side.problems.map((p) => ({ file: rel(side.dir, p.file), line: p.range.start.line + 1, severity: p.severity, code: p.code, message: p.message }));
}

const STORY_ORDER = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'];

/**
 * The merge base of BASE and HEAD in the repository of `root` (BASE's commit when they share none,
 * or when HEAD has no commit yet).
 */
export async function mergeBaseOf(root: string, base: string): Promise<{ top: string; commit: string; mergeBase: string }> {
  const { top, commit } = await resolveRef(root, base);
  const mb = await runGit(top, ['merge-base', commit, 'HEAD']);
  return { top, commit, mergeBase: mb.code === 0 && mb.stdout.trim() ? mb.stdout.trim() : commit };
}

/** The workflow-state review of the working tree of `root` against the merge base of `base`. */
export async function reviewState(root: string, base: string): Promise<StateReview> {
  const { commit, mergeBase } = await mergeBaseOf(root, base);
  const snap = await snapshotRef(root, mergeBase);
  try {
    const [head, old] = await Promise.all([readSide(root), readSide(snap.dir)]);
    const moved: ReviewMove[] = [];
    for (const c of compareStateItems(old.items, head.items)) {
      const was = old.items.get(c.id);
      const now = head.items.get(c.id);
      const stepsBefore = was?.stepsCompleted ?? [];
      const stepsNow = now?.stepsCompleted ?? [];
      const file = c.kind === 'workflow' ? c.id : (head.storyFiles.get(c.id.slice(6)) ?? old.storyFiles.get(c.id.slice(6)));
      const statusChanged = was?.status !== now?.status;
      const tasksChanged = was?.tasks !== now?.tasks;
      // A story's own two statuses are shown when they say more than its status change does.
      const own = (a?: string, b?: string) => (c.kind === 'story' && c.change === 'changed' && a !== b && (!statusChanged || b !== now?.status) ? { ...(a !== undefined ? { from: a } : {}), ...(b !== undefined ? { to: b } : {}) } : undefined);
      const ledger = own(was?.ledgerStatus, now?.ledgerStatus);
      const fileSt = own(was?.fileStatus, now?.fileStatus);
      const stepsCompleted = stepsNow.filter((s) => !stepsBefore.includes(s));
      const stepsRewound = c.change === 'removed' ? [] : stepsBefore.filter((s) => !stepsNow.includes(s));
      const onlyGates = !statusChanged && !tasksChanged && !stepsCompleted.length && !stepsRewound.length && c.fields.every((f) => f.key === 'gates');
      if (onlyGates) continue; // listed under gates
      let rewind = stepsRewound.length > 0;
      if (c.change === 'changed' && was && now && !rewind) {
        const order = compareItems(now, was);
        const ranks = [STORY_ORDER.indexOf((was.status ?? '').toLowerCase()), STORY_ORDER.indexOf((now.status ?? '').toLowerCase())];
        rewind = order === 'behind' || (c.kind === 'story' && ranks[0] >= 0 && ranks[1] >= 0 && ranks[1] < ranks[0]);
      }
      moved.push({
        id: c.id,
        kind: c.kind,
        ...(file ? { file } : {}),
        change: c.change,
        ...(was?.status !== undefined ? { from: was.status } : {}),
        ...(now?.status !== undefined ? { to: now.status } : {}),
        stepsCompleted,
        stepsRewound,
        ...(ledger ? { ledgerStatus: ledger } : {}),
        ...(fileSt ? { fileStatus: fileSt } : {}),
        ...(tasksChanged ? { tasks: { ...(was?.tasks ? { from: was.tasks } : {}), ...(now?.tasks ? { to: now.tasks } : {}) } } : {}),
        rewind,
        by: file ? movers(head, old, file) : [],
      });
    }
    const gates: ReviewGate[] = [];
    for (const [id, w] of head.workflows) {
      const before = old.workflows.get(id);
      for (const [step, g] of Object.entries(w.gates)) {
        const b = before?.gates[step];
        const from = b?.exists ? (b.verdict ?? 'PASS') : undefined;
        const to = g.exists ? (g.verdict ?? 'PASS') : undefined;
        if (from === to) continue;
        const wasOpen = b?.open ?? false;
        gates.push({ id, step, gate: g.name, file: rel(root, g.file), ...(from ? { from } : {}), ...(to ? { to } : {}), change: g.open && !wasOpen ? 'opened' : !g.open && wasOpen ? 'closed' : 'changed', ...(g.reviewer ? { reviewer: g.reviewer } : {}), ...(g.unrecorded ? { unrecorded: true } : {}) });
      }
    }
    const h = reviewProblems(head);
    const o = reviewProblems(old);
    return { base, baseCommit: commit, mergeBase, moved, gates, introduced: only(h, o), fixed: only(o, h) };
  } finally {
    snap.dispose();
  }
}

/** Paths (relative to the repository top) a branch changed since the merge base of `base`: committed, staged, unstaged and untracked; deleted files left out. */
export async function changedFilesSince(root: string, base: string): Promise<{ top: string; mergeBase: string; files: string[] }> {
  const { top, mergeBase } = await mergeBaseOf(root, base);
  const diff = await runGit(top, ['-c', 'core.quotepath=off', 'diff', '--name-only', '-z', '--no-renames', '--diff-filter=ACMRT', mergeBase]);
  const untracked = await runGit(top, ['-c', 'core.quotepath=off', 'ls-files', '-z', '--others', '--exclude-standard']);
  const files = [...new Set([...diff.stdout.split('\0'), ...(untracked.code === 0 ? untracked.stdout.split('\0') : [])].filter(Boolean))].sort();
  return { top, mergeBase, files };
}

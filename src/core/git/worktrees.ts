/**
 * Worktree-aware reading: each workflow and story as every checkout of the repository
 * (`git worktree list`) has it right now, compared with the main checkout by progress, so an
 * orchestrator sees that story 2-3 is in review in worktree feat/2-3 while main says in-progress.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runGit } from '../protocol/git';
import { WaymarkError } from '../errors';
import { createStateCore } from '../engine/stateCore';
import { loadSprint } from '../bmad/sprint';
import type { ProgressOrder } from '../model/progress';
import { compareItems } from './refState';

export interface Worktree {
  path: string;
  /** `feat/2-3`, or `(detached)`. */
  branch: string;
  /** The main working tree (the first `git worktree list` shows). */
  main: boolean;
}

/** One workflow file or story as one worktree has it. */
export interface WorktreeItem {
  /** Repository-relative path of a workflow file, or `story KEY`. */
  id: string;
  kind: 'workflow' | 'story';
  status?: string;
  stepsCompleted?: string[];
  /**
   * Compared with the reference checkout (the main one, or with `against: 'here'` the one holding
   * the folder asked about): `ahead` marks work not merged back yet; `main` marks the reference.
   */
  vsMain: ProgressOrder | 'only-here' | 'main';
}

export interface WorktreeState {
  worktree: Worktree;
  items: WorktreeItem[];
  /** True for the checkout the others are compared with. */
  reference?: boolean;
}

export interface WorktreeStatesOptions {
  /** Compare with the main checkout (default) or with the checkout that holds `root` (`here`: the editor's view). */
  against?: 'main' | 'here';
}

/** The repository's worktrees, main first. */
export async function listWorktrees(dir: string): Promise<Worktree[]> {
  const r = await runGit(dir, ['worktree', 'list', '--porcelain']);
  if (r.code !== 0) throw new WaymarkError('unavailable', `${dir} is not inside a git repository (git worktree list failed: ${r.stderr.trim()}).`, dir);
  const out: Worktree[] = [];
  for (const block of r.stdout.split(/\n\n+/)) {
    const wt = /^worktree (.+)$/m.exec(block)?.[1];
    if (!wt || /^bare$/m.test(block)) continue;
    const branch = /^branch refs\/heads\/(.+)$/m.exec(block)?.[1] ?? '(detached)';
    out.push({ path: wt, branch, main: out.length === 0 });
  }
  return out;
}

async function readWorktree(root: string, top: string): Promise<Map<string, Omit<WorktreeItem, 'vsMain'>>> {
  const items = new Map<string, Omit<WorktreeItem, 'vsMain'>>();
  // A worktree on a branch from before the project folder existed holds none of it.
  if (!fs.existsSync(root)) return items;
  const core = createStateCore({ roots: [root] });
  try {
    await core.scan();
    for (const w of core.list()) {
      const id = path.relative(top, w.file).split(path.sep).join('/');
      items.set(id, { id, kind: 'workflow', status: w.rawStatus ?? w.status, stepsCompleted: [...w.stepsCompleted] });
    }
  } finally {
    await core.close();
  }
  const sprint = loadSprint(root);
  for (const s of sprint?.stories ?? []) items.set(`story ${s.key}`, { id: `story ${s.key}`, kind: 'story', status: s.status });
  return items;
}

/**
 * Reads `root` (a folder inside the repository) in every worktree and marks each item against
 * the main checkout. Worktrees that do not hold the folder are listed with no items.
 */
export async function worktreeStates(root: string, options: WorktreeStatesOptions = {}): Promise<WorktreeState[]> {
  const trees = await listWorktrees(root);
  const top = (await runGit(root, ['rev-parse', '--show-toplevel'])).stdout.trim();
  const rel = path.relative(top, path.resolve(root));
  const realTop = realOr(top);
  const isRef = (t: Worktree) => (options.against === 'here' ? realOr(t.path) === realTop : t.main);
  const read = await Promise.all(trees.map(async (t) => ({ t, items: await readWorktree(path.join(t.path, rel), t.path) })));
  const reference = read.find((x) => isRef(x.t))?.items ?? new Map();
  return read.map(({ t, items }) => ({
    worktree: t,
    ...(isRef(t) ? { reference: true } : {}),
    items: [...items.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((i) => {
        if (isRef(t)) return { ...i, vsMain: 'main' as const };
        const m = reference.get(i.id);
        if (!m) return { ...i, vsMain: 'only-here' as const };
        // review is further than in-progress although both are Waymark's in_progress.
        return { ...i, vsMain: compareItems(i, m) };
      }),
  }));
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** One item another worktree has ahead of the reference checkout, with what the reference says. */
export interface AheadElsewhere {
  /** Repository-relative path of a workflow file, or `story KEY`. */
  id: string;
  kind: 'workflow' | 'story';
  branch: string;
  worktree: string;
  status?: string;
  stepsCompleted?: string[];
  here?: { status?: string; stepsCompleted?: string[] };
}

/**
 * What other worktrees have ahead of the checkout holding `root` (the editor's markers): nothing
 * when the repository has one worktree (then only `git worktree list` runs).
 */
export async function aheadInOtherWorktrees(root: string): Promise<{ top: string; ahead: AheadElsewhere[] }> {
  const trees = await listWorktrees(root);
  const top = (await runGit(root, ['rev-parse', '--show-toplevel'])).stdout.trim();
  if (trees.length < 2) return { top, ahead: [] };
  const states = await worktreeStates(root, { against: 'here' });
  const here = new Map((states.find((s) => s.reference)?.items ?? []).map((i) => [i.id, i]));
  const ahead: AheadElsewhere[] = [];
  for (const s of states) {
    if (s.reference) continue;
    for (const i of s.items) {
      if (i.vsMain !== 'ahead') continue;
      const h = here.get(i.id);
      ahead.push({ id: i.id, kind: i.kind, branch: s.worktree.branch, worktree: s.worktree.path, status: i.status, stepsCompleted: i.stepsCompleted, ...(h ? { here: { status: h.status, stepsCompleted: h.stepsCompleted } } : {}) });
    }
  }
  return { top, ahead };
}

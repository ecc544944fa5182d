/**
 * Worktree-aware reading: each workflow and story as every checkout of the repository
 * (`git worktree list`) has it right now, compared with the main checkout by progress, so an
 * orchestrator sees that story 2-3 is in review in worktree feat/2-3 while main says in-progress.
 */
import * as path from 'node:path';
import { runGit } from '../protocol/git';
import { WaymarkError } from '../errors';
import { createStateCore } from '../engine/stateCore';
import { loadSprint } from '../bmad/sprint';
import { compareProgress, toStatus, type ProgressOrder } from '../model/progress';

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
  /** Compared with the main checkout: `ahead` marks work not merged back yet. */
  vsMain: ProgressOrder | 'only-here' | 'main';
}

export interface WorktreeState {
  worktree: Worktree;
  items: WorktreeItem[];
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
export async function worktreeStates(root: string): Promise<WorktreeState[]> {
  const trees = await listWorktrees(root);
  const top = (await runGit(root, ['rev-parse', '--show-toplevel'])).stdout.trim();
  const rel = path.relative(top, path.resolve(root));
  const read = await Promise.all(trees.map(async (t) => ({ t, items: await readWorktree(path.join(t.path, rel), t.path) })));
  const main = read.find((x) => x.t.main)?.items ?? new Map();
  const progressOf = (i: Omit<WorktreeItem, 'vsMain'>) => ({ done: i.stepsCompleted, status: toStatus(i.status) });
  return read.map(({ t, items }) => ({
    worktree: t,
    items: [...items.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((i) => {
        if (t.main) return { ...i, vsMain: 'main' as const };
        const m = main.get(i.id);
        if (!m) return { ...i, vsMain: 'only-here' as const };
        let order = compareProgress(progressOf(i), progressOf(m));
        // review is further than in-progress although both are Waymark's in_progress.
        if (order === 'same' && i.status !== m.status) order = storyRank(i.status) > storyRank(m.status) ? 'ahead' : storyRank(i.status) < storyRank(m.status) ? 'behind' : 'diverged';
        return { ...i, vsMain: order };
      }),
  }));
}

const STORY_ORDER = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'];

function storyRank(s: string | undefined): number {
  return s === undefined ? -1 : STORY_ORDER.indexOf(s.trim().toLowerCase());
}

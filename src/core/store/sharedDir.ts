import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { nativeRealPathOnce, relStaysInside, resolveRealPath } from './safePath';
import { pastRacyWindow, sameStatNs } from './fileKey';

/**
 * The place every worktree of a repository shares: `<git common dir>/waymark/` (leases and modes
 * live there so that two worktrees cannot take the same story). The one, narrow exception to
 * "Waymark writes only inside the workspace": exactly that folder, judged by real path, so a
 * `waymark` entry that is a symbolic link leading elsewhere is refused.
 *
 * Found without running git (leases are checked on every write): walk up from the workspace to
 * the first `.git` (a folder, or a file `gitdir: …` in a linked worktree), then follow its
 * `commondir` file. A candidate that does not look like a git folder (HEAD, objects, refs) is
 * ignored, so a stray `.git` file naming some other folder never becomes a place to write.
 */

export interface GitShared {
  /** Real path of the top of the worktree that holds the workspace. */
  top: string;
  /** Real path of the repository's common git dir (`git rev-parse --git-common-dir`). */
  commonDir: string;
  /** `<commonDir>/waymark`. */
  base: string;
}

function isGitDir(dir: string): boolean {
  try {
    return fs.statSync(path.join(dir, 'HEAD')).isFile() && fs.statSync(path.join(dir, 'objects')).isDirectory() && fs.statSync(path.join(dir, 'refs')).isDirectory();
  } catch {
    return false;
  }
}

function readSmall(file: string): string | undefined {
  try {
    // No exception for the common missing case (a main worktree has no `commondir`): they cost more than the stat.
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size > 4096) return undefined;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * What a `.git` found by the walk led to, kept by its path: its stat (and, for a worktree's `.git`
 * file, its git folder's) as they were before it was read, and the answer. Every write looks for
 * the repository (the lease guard); in a repository that is five stats and a real path (`.git`,
 * `commondir`, `HEAD`, `objects`, `refs`) after the walk's. The walk is still made each time (a
 * `.git` made in a folder below the one found changes the answer); a `.git` found again at the
 * same stat, whose git folder is at the same stat, answers as it did: `commondir`, `HEAD`,
 * `objects` and `refs` are named in those folders (git adds, removes and replaces them by
 * rename: each a change of the folder's times). Only stats whose times were already past the racy
 * window (fileKey.ts) are kept (a change in the same clock tick would leave them as they were). The answer's
 * real paths are only where a lease is looked for: a file written there is still judged afresh,
 * by its real path, inside `<common dir>/waymark` (safeSharedPath).
 */
const discovered = new Map<string, { dotGit: fs.BigIntStats; gitDir?: { path: string; st: fs.BigIntStats }; answer: GitShared | undefined }>();

function statOrUndefined(p: string): fs.BigIntStats | undefined {
  try {
    return fs.statSync(p, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The repository `root` is in (its worktree top and common git dir), or undefined outside git. */
export function findGitShared(root: string): GitShared | undefined {
  let dir: string;
  try {
    // Where the walk starts: a name, resolved once per transaction (the workspace's real path).
    dir = nativeRealPathOnce(root);
  } catch {
    return undefined;
  }
  for (;;) {
    const dotGit = path.join(dir, '.git');
    const st = statOrUndefined(dotGit);
    if (st) {
      const known = discovered.get(dotGit);
      if (known && sameStatNs(st, known.dotGit) && (!known.gitDir || sameStatNs(statOrUndefined(known.gitDir.path), known.gitDir.st))) return known.answer;
      const now = Date.now();
      let gitDir: string | undefined;
      if (st.isDirectory()) gitDir = dotGit;
      else if (st.isFile()) {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit) ?? '');
        if (m) gitDir = path.resolve(dir, m[1]);
      }
      const answer = gitDir ? gitSharedOf(dir, gitDir) : undefined;
      // A worktree's `.git` file: its git folder (where `commondir` is) is vouched for by its own stat.
      const gitDirSt = gitDir && gitDir !== dotGit ? statOrUndefined(gitDir) : undefined;
      discovered.delete(dotGit);
      if (pastRacyWindow(st, now) && (!gitDir || gitDir === dotGit || pastRacyWindow(gitDirSt, now))) {
        if (discovered.size >= 64) discovered.clear();
        discovered.set(dotGit, { dotGit: st, gitDir: gitDir && gitDir !== dotGit && gitDirSt ? { path: gitDir, st: gitDirSt } : undefined, answer });
      }
      return answer;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The shared folder of the repository whose git folder is `gitDir` (undefined: not a git folder). */
function gitSharedOf(top: string, gitDir: string): GitShared | undefined {
  const common = readSmall(path.join(gitDir, 'commondir'));
  const commonDir = common?.trim() ? path.resolve(gitDir, common.trim()) : gitDir;
  if (!isGitDir(commonDir)) return undefined;
  let real: string;
  try {
    real = fs.realpathSync.native(commonDir);
  } catch {
    return undefined;
  }
  return { top, commonDir: real, base: path.join(real, 'waymark') };
}

function isInside(dir: string, p: string): boolean {
  return relStaysInside(path.relative(dir, p));
}

/**
 * The real path of `target` when it lies inside `shared.base` by real path; else WaymarkError
 * ('usage', exit 2) naming the link. `<common>/waymark` itself must not be a link.
 */
export function safeSharedPath(shared: GitShared, target: string): string {
  const abs = path.resolve(target);
  if (!isInside(shared.base, abs)) {
    throw new WaymarkError('usage', `${abs} is outside ${shared.base}, the only place outside the workspace Waymark writes (shared leases and modes). Nothing was changed.`, abs);
  }
  const real = resolveRealPath(abs);
  if (!isInside(shared.base, real)) {
    throw new WaymarkError(
      'usage',
      `${abs} resolves to ${real}, outside ${shared.base} (a symbolic link in the way, e.g. ${shared.base} itself); Waymark writes shared leases and modes only inside the repository's git folder. Remove the link, then retry. Nothing was changed.`,
      abs,
      { outside: real },
    );
  }
  return real;
}

/** `mkdir -p` of a folder checked with safeSharedPath. Returns its real path. */
export function safeSharedMkdir(shared: GitShared, dir: string): string {
  const real = safeSharedPath(shared, dir);
  fs.mkdirSync(real, { recursive: true });
  return safeSharedPath(shared, dir);
}

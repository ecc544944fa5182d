import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { nativeRealPathOnce, realPathNow, relStaysInside, resolveRealPath } from './safePath';

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
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(dotGit, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (st) {
      let gitDir: string | undefined;
      if (st.isDirectory()) gitDir = dotGit;
      else if (st.isFile()) {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit) ?? '');
        if (m) gitDir = path.resolve(dir, m[1]);
      }
      if (gitDir) {
        const common = readSmall(path.join(gitDir, 'commondir'));
        const commonDir = common?.trim() ? path.resolve(gitDir, common.trim()) : gitDir;
        if (!isGitDir(commonDir)) return undefined;
        let real: string;
        try {
          real = realPathNow(commonDir);
        } catch {
          return undefined;
        }
        return { top: dir, commonDir: real, base: path.join(real, 'waymark') };
      }
      return undefined;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
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

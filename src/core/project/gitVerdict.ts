/**
 * What `git status` said of an in-progress file, kept so that a later process can tell, without
 * starting git, that the file still has local changes (its activity is then its file time):
 * - `'dirty'`: the change is in the index (staged, renamed, unmerged) or the file is untracked.
 *   That holds, whatever the file's content, while HEAD, refs and the index read the same.
 * - an object id (the index entry's, git status `.M`): only the working file differs from the
 *   index. The file still differs while its bytes hash to another blob, when git's clean step
 *   leaves bytes as they are (`cleanKeepsBytes`); a file whose bytes hash to that blob again (an
 *   edit undone) is asked of git.
 * A clean file (git names nothing) has no verdict: its commit time is kept by its stamp only.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sha1Js } from '../model/sha1';
import { sha256Js } from '../model/sha256';

export type GitVerdict = 'dirty' | string;

/**
 * The files `git status --porcelain=v2 -z` names, by base name (the status is asked per folder),
 * with each one's verdict (none for a submodule).
 */
export function parseStatusV2(out: string): Map<string, GitVerdict | undefined> {
  const named = new Map<string, GitVerdict | undefined>();
  const records = out.split('\0');
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (!r) continue;
    const kind = r[0];
    const fields = r.split(' ');
    if (kind === '?' || kind === '!') named.set(path.basename(r.slice(2)), kind === '?' ? 'dirty' : undefined);
    else if (kind === '1') {
      const xy = fields[1], sub = fields[2], hI = fields[7];
      const verdict = sub !== 'N...' ? undefined : xy[0] !== '.' ? 'dirty' : /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(hI) ? hI : undefined;
      named.set(path.basename(fields.slice(8).join(' ')), verdict);
    } else if (kind === '2') {
      named.set(path.basename(fields.slice(9).join(' ')), fields[2] === 'N...' ? 'dirty' : undefined);
      i++; // the name it was renamed or copied from
    } else if (kind === 'u') named.set(path.basename(fields.slice(10).join(' ')), fields[2] === 'N...' ? 'dirty' : undefined);
  }
  return named;
}

/** git's object id of a blob with these bytes, in the repository's hash (by the length of `like`). */
export function blobId(bytes: Uint8Array, like: string): string {
  const head = Buffer.from(`blob ${bytes.length}\0`, 'latin1');
  const all = Buffer.concat([head, bytes]);
  return like.length === 64 ? sha256Js(all) : sha1Js(all);
}

/**
 * True when a kept verdict still says the file has local changes: `'dirty'` always (the caller has
 * checked HEAD, refs and the index), an object id when the file's bytes are another blob's and git
 * would store them as they are. False: ask git.
 */
export function stillDirty(verdict: GitVerdict, file: string, repo: GitPlaces): boolean {
  if (verdict === 'dirty') return true;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return false;
  }
  // A CR would be changed by core.autocrlf; without one its conversion leaves the bytes as they are.
  if (bytes.includes(0x0d)) return false;
  if (!cleanKeepsBytes(repo, file)) return false;
  return blobId(bytes, verdict) !== verdict;
}

/** Where a repository's own files are (its git folder, the common one of linked worktrees) and its work tree. */
export interface GitPlaces {
  workTree: string;
  gitDir: string;
  common: string;
}

/**
 * True when git's clean step (what `git status` compares) is sure to leave a file's bytes alone:
 * no attributes file could give it a filter, an eol, `ident` or an encoding (the work tree's
 * `.gitattributes` from its top down to the file's folder, the repository's `info/attributes`, the
 * user's and the system's), no configuration names another attributes file or includes another
 * configuration, and git is not pointed elsewhere by the environment. Conservative: on Windows and
 * macOS, where git's system files are not found by one rule, false (git is asked).
 */
export function cleanKeepsBytes(repo: GitPlaces, file: string): boolean {
  if (process.platform === 'win32' || process.platform === 'darwin') return false;
  const env = process.env;
  if (env.GIT_DIR || env.GIT_WORK_TREE || env.GIT_INDEX_FILE || env.GIT_CONFIG_PARAMETERS || env.GIT_CONFIG_COUNT || env.GIT_ATTR_SOURCE) return false;
  // Read again on every call (a few stats): a long-lived process sees an attributes file added later.
  return noAttributesAlong(repo.workTree, path.dirname(file)) && repositoryKeepsBytes(repo);
}

function noAttributesAlong(top: string, dir: string): boolean {
  const rel = path.relative(top, dir);
  if (/^\.\.(?:[\\/]|$)/.test(rel) || path.isAbsolute(rel)) return false;
  let d = top;
  if (fs.existsSync(path.join(d, '.gitattributes'))) return false;
  for (const part of rel ? rel.split(path.sep) : []) {
    d = path.join(d, part);
    if (fs.existsSync(path.join(d, '.gitattributes'))) return false;
  }
  return true;
}

function repositoryKeepsBytes(repo: GitPlaces): boolean {
  const env = process.env;
  const home = env.HOME || os.homedir();
  const xdg = env.XDG_CONFIG_HOME || path.join(home, '.config');
  const prefixes = ['/etc', '/usr/local/etc', ...gitPrefixes().map((p) => path.join(p, 'etc'))];
  const configs = [
    path.join(repo.gitDir, 'config'),
    path.join(repo.common, 'config'),
    path.join(repo.gitDir, 'config.worktree'),
    path.join(repo.common, 'config.worktree'),
    env.GIT_CONFIG_GLOBAL || path.join(home, '.gitconfig'),
    path.join(xdg, 'git', 'config'),
    ...(env.GIT_CONFIG_SYSTEM ? [env.GIT_CONFIG_SYSTEM] : []),
    ...prefixes.map((p) => path.join(p, 'gitconfig')),
  ];
  const attributes = [
    path.join(repo.gitDir, 'info', 'attributes'),
    path.join(repo.common, 'info', 'attributes'),
    path.join(xdg, 'git', 'attributes'),
    ...prefixes.map((p) => path.join(p, 'gitattributes')),
  ];
  if (attributes.some((f) => fs.existsSync(f))) return false;
  for (const f of configs) {
    let text: string;
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue; // no such configuration
      return false; // one that cannot be read here may still say something to git
    }
    if (/attributesfile|\[\s*include/i.test(text)) return false;
  }
  return true;
}

/** The install folders of the `git` programs on PATH (their real paths' grandparents): their `etc` holds the system files. */
function gitPrefixes(): string[] {
  const out: string[] = [];
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!d) continue;
    const candidate = path.join(d, 'git');
    if (!fs.statSync(candidate, { throwIfNoEntry: false })) continue;
    try {
      out.push(path.dirname(path.dirname(fs.realpathSync(candidate))));
    } catch {
      // a link that leads nowhere: no git here
    }
  }
  return out;
}

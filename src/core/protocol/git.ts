import * as fs from 'node:fs';
import { sweepDeadOwners } from '../store/processes';
import * as os from 'node:os';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { randomId } from './paths';

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs git with an argument list (never a shell). Resolves with the exit code; rejects only when git cannot start. */
export function runGit(cwd: string, args: string[], env: Record<string, string> = {}): Promise<GitResult> {
  return runChild('git', args, env, cwd).catch((err: unknown) => {
    throw (err as NodeJS.ErrnoException)?.code === 'ENOENT' ? new WaymarkError('unavailable', 'git is not installed or not on PATH; install git or create the checkpoint without --git.') : err;
  });
}

/**
 * Runs `file` with an argument list, git's environment (GIT_TERMINAL_PROMPT=0) and output limit.
 * Resolves with the exit code; rejects with the spawn error when it cannot start.
 */
export function runChild(file: string, args: string[], env: Record<string, string> = {}, cwd = '/'): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: most CLI verbs never start git, and child_process costs every process milliseconds to load
    const { execFile } = require('node:child_process') as typeof import('node:child_process');
    execFile(file, args, { cwd, env: { ...process.env, ...env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(err);
        return;
      }
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ stdout: String(stdout), stderr: String(stderr), code });
    });
  });
}

async function git(cwd: string, args: string[], env?: Record<string, string>): Promise<string> {
  const r = await runGit(cwd, args, env);
  if (r.code !== 0) throw new WaymarkError('io', `git ${args[0]} failed: ${r.stderr.trim() || r.stdout.trim() || `exit ${r.code}`}`);
  return r.stdout;
}

/** The repository's top folder, or a WaymarkError('unavailable') saying the folder is not a repository. */
export async function repoTop(root: string): Promise<string> {
  const r = await runGit(root, ['rev-parse', '--show-toplevel']);
  if (r.code !== 0) throw new WaymarkError('unavailable', `${root} is not inside a git repository; run git init there, or create the checkpoint without --git.`, root);
  return r.stdout.trim();
}

export const GIT_CHECKPOINT_REFS = 'refs/waymark/checkpoints';

export interface GitCheckpoint {
  ref: string;
  commit: string;
  paths: string[];
}

/**
 * Removes temporary indexes (and their `.lock`) that killed git checkpoints left in the system
 * temp folder: `waymark-index-<pid>-<rand>` whose process is gone. Returns the removed paths.
 */
export function sweepGitIndexes(dir = os.tmpdir()): string[] {
  return sweepDeadOwners(dir, (n) => {
    const m = /^waymark-index-(\d+)-[0-9a-f]+(\.lock)?$/.exec(n);
    return m ? Number(m[1]) : undefined;
  });
}

/**
 * Commits `files` (absolute paths, Waymark's own state files) as a commit whose tree is HEAD's
 * tree plus those files, built in a temporary index (GIT_INDEX_FILE), and points
 * `refs/waymark/checkpoints/<id>` at it. HEAD, the branch, the user's index and working tree are
 * never touched, so staged and unstaged work stays exactly as it was. Keeps the newest `keep` refs.
 */
export async function gitCheckpoint(root: string, id: string, files: string[], message: string, keep = 10): Promise<GitCheckpoint> {
  const top = await repoTop(root);
  const realTop = fs.realpathSync(top);
  sweepGitIndexes();
  const tmpIndex = path.join(os.tmpdir(), `waymark-index-${process.pid}-${randomId()}`);
  const env = { GIT_INDEX_FILE: tmpIndex };
  try {
    const head = await runGit(top, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
    const parent = head.code === 0 ? head.stdout.trim() : undefined;
    if (parent) await git(top, ['read-tree', parent], env);
    else await git(top, ['read-tree', '--empty'], env);
    const rels: string[] = [];
    for (const f of files) {
      const rel = path.relative(realTop, fs.realpathSync(f)).split(path.sep).join('/');
      if (/^\.\.(?:[\\/]|$)/.test(rel)) continue;
      const blob = (await git(top, ['hash-object', '-w', '--', f])).trim();
      await git(top, ['update-index', '--add', '--cacheinfo', `100644,${blob},${rel}`], env);
      rels.push(rel);
    }
    const tree = (await git(top, ['write-tree'], env)).trim();
    const identity = await ensureIdentity(top);
    const commit = (await git(top, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], identity)).trim();
    const ref = `${GIT_CHECKPOINT_REFS}/${id}`;
    await git(top, ['update-ref', ref, commit]);
    await pruneGitCheckpoints(top, keep);
    return { ref, commit, paths: rels };
  } finally {
    fs.rmSync(tmpIndex, { force: true });
    fs.rmSync(`${tmpIndex}.lock`, { force: true });
  }
}

/** commit-tree needs an identity; fall back to a Waymark one when the repository has none. */
async function ensureIdentity(top: string): Promise<Record<string, string>> {
  const name = await runGit(top, ['config', 'user.name']);
  const email = await runGit(top, ['config', 'user.email']);
  const env: Record<string, string> = {};
  if (name.code !== 0 || !name.stdout.trim()) {
    env.GIT_AUTHOR_NAME = 'Waymark';
    env.GIT_COMMITTER_NAME = 'Waymark';
  }
  if (email.code !== 0 || !email.stdout.trim()) {
    env.GIT_AUTHOR_EMAIL = 'waymark@localhost';
    env.GIT_COMMITTER_EMAIL = 'waymark@localhost';
  }
  return env;
}

/** Waymark checkpoint refs, newest first. */
export async function listGitCheckpoints(root: string): Promise<{ ref: string; commit: string; date: string }[]> {
  const top = await repoTop(root);
  const out = await git(top, ['for-each-ref', '--sort=-refname', '--format=%(refname)%09%(objectname)%09%(committerdate:iso-strict)', GIT_CHECKPOINT_REFS]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [ref, commit, date] = l.split('\t');
      return { ref, commit, date };
    });
}

async function pruneGitCheckpoints(top: string, keep: number): Promise<void> {
  const refs = await listGitCheckpoints(top);
  for (const r of refs.slice(Math.max(0, keep))) await git(top, ['update-ref', '-d', r.ref]);
}

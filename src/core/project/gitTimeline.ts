/**
 * State changes recovered from git: the commits that changed a state key (status, current step,
 * steps completed, last step, blocked reason) of a Markdown file's frontmatter, including those
 * made before Waymark was installed. One bounded `git log -p -U0` (the newest `maxCommits`
 * commits touching Markdown files), cached in `.waymark/cache/` by HEAD and the bounds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runGit } from '../protocol/git';
import { writeFileAtomic } from '../store/atomicWrite';

/** One commit's change to one file's state keys. */
export interface GitStateChange {
  time: string;
  commit: string;
  author: string;
  /** Path relative to the workspace folder, with `/`. */
  file: string;
  /** Per key: the value lines removed and added, as written (`[a, b]`, `in-progress`). */
  changes: Record<string, { from?: string; to?: string }>;
}

export interface GitTimelineOptions {
  /** Newest commits looked at (default 1000). */
  maxCommits?: number;
  /** Only commits at or after this ISO date. */
  since?: string;
  /** The branch or ref whose history is read (default HEAD). */
  ref?: string;
}

export interface GitTimeline {
  changes: GitStateChange[];
  /** True when the answer came from the cache. */
  cached: boolean;
  /** Why there is no git history (not a repository, git missing), else undefined. */
  unavailable?: string;
}

const STATE_KEY = /^(status|Status|currentStep|current_step|stepsCompleted|lastStep|blockedReason|workflow|workflowType|dependsOn|after)\s*:\s*(.*)$/;
/** Frontmatter sits at the top: keys further down are body text (a line `status:` in prose). */
const FRONTMATTER_LINES = 100;
const CACHE = '.waymark/cache/git-timeline.json';

/** The state changes of `root`'s Markdown files in git, oldest first. Never throws for a folder without git. */
export async function gitStateTimeline(root: string, options: GitTimelineOptions = {}): Promise<GitTimeline> {
  const maxCommits = options.maxCommits ?? 1000;
  let head: string;
  try {
    const r = await runGit(root, ['rev-parse', '--verify', '--quiet', `${options.ref ?? 'HEAD'}^{commit}`]);
    if (r.code !== 0) return { changes: [], cached: false, unavailable: 'not a git repository with commits' };
    head = r.stdout.trim();
  } catch (e) {
    return { changes: [], cached: false, unavailable: (e as Error).message };
  }
  const key = `${head}:${maxCommits}:${options.since ?? ''}`;
  const cacheFile = path.join(root, CACHE);
  try {
    const c = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { key?: string; changes?: GitStateChange[] };
    if (c.key === key && Array.isArray(c.changes)) return { changes: c.changes, cached: true };
  } catch {
    // no cache, or a broken one: recompute
  }
  const args = ['-c', 'core.quotepath=off', 'log', head, `--max-count=${maxCommits}`, '--format=%x1e%H%x1f%aI%x1f%an', '-p', '-U0', '--no-color', '--no-renames', '--no-ext-diff', '--relative'];
  if (options.since) args.push(`--since=${options.since}`);
  args.push('--', '*.md');
  const r = await runGit(root, args);
  if (r.code !== 0) return { changes: [], cached: false, unavailable: r.stderr.trim().split('\n')[0] || 'git log failed' };
  const changes = parseLog(r.stdout).reverse();
  try {
    // Only under a `.waymark` folder that really is inside the workspace (never through a link out).
    const realRoot = fs.realpathSync(root);
    const wm = fs.realpathSync(path.join(root, '.waymark'));
    if (!wm.startsWith(realRoot + path.sep)) throw new Error('.waymark leads outside the workspace');
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    writeFileAtomic(cacheFile, JSON.stringify({ key, changes }), { root, replaceLink: true });
  } catch {
    // the cache is an optimisation: a read-only folder still gets its answer
  }
  return { changes, cached: false };
}

function parseLog(out: string): GitStateChange[] {
  const result: GitStateChange[] = [];
  for (const block of out.split('\x1e')) {
    if (!block.trim()) continue;
    const nl = block.indexOf('\n');
    const [commit, time, author] = block.slice(0, nl < 0 ? undefined : nl).split('\x1f');
    let cur: GitStateChange | undefined;
    let line = 0;
    for (const l of block.slice(nl + 1).split('\n')) {
      if (l.startsWith('diff --git ')) {
        cur = undefined;
        continue;
      }
      if (l.startsWith('+++ ')) {
        const file = l.slice(4).replace(/^b\//, '');
        if (file === '/dev/null') continue;
        // Keys come from STATE_KEY's fixed names: a plain object is safe, and round-trips through the cache.
        cur = { time, commit, author, file, changes: {} };
        result.push(cur);
        continue;
      }
      const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(l);
      if (hunk) {
        line = Math.min(Number(hunk[1]), Number(hunk[2]));
        continue;
      }
      if (!cur || line > FRONTMATTER_LINES || (l[0] !== '+' && l[0] !== '-') || l.startsWith('---') || l.startsWith('+++')) continue;
      const m = STATE_KEY.exec(l.slice(1));
      if (!m) continue;
      const k = m[1] === 'current_step' ? 'currentStep' : m[1] === 'Status' ? 'status' : m[1];
      const entry = (cur.changes[k] ??= {});
      if (l[0] === '-') entry.from = m[2].trim();
      else entry.to = m[2].trim();
    }
  }
  return result.filter((c) => Object.keys(c.changes).some((k) => c.changes[k].from !== c.changes[k].to));
}

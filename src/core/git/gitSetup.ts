/**
 * Installs and removes the state merge driver in one repository: a marked block of
 * `.gitattributes` lines at the repository's top and the local `merge.waymark.*` config.
 * Uninstall removes exactly what install wrote, so git merges as it did before.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomicWrite';
import { runGit, repoTop } from '../protocol/git';
import { WaymarkError } from '../errors';

const BEGIN = '# >>> waymark merge driver (waymark git uninstall removes this block)';
const END = '# <<< waymark merge driver';

export interface GitSetupResult {
  repo: string;
  attributesFile: string;
  /** The `.gitattributes` lines of the block (install), or the ones removed (uninstall). */
  lines: string[];
  /** True when something changed. */
  changed: boolean;
  /** The driver command line git runs (install). */
  driver?: string;
}

/** `.gitattributes` patterns for the workflow globs, the sprint ledger, history files and gate files. */
export function attributeLines(include: readonly string[], historyDir = '.waymark/history', gatePath = '.waymark/gates/{path}/{gate}.gate', eventsDir = '.waymark/events'): string[] {
  const pats = new Set<string>();
  for (const g of include) {
    // gitattributes has no brace or negation syntax; those globs are left to the user.
    if (/[{}!]/.test(g) || !g.trim()) continue;
    pats.add(g.trim().replace(/^\.\//, ''));
  }
  pats.add('sprint-status.yaml');
  pats.add('sprint-status.yml');
  pats.add(`${historyDir.replace(/\/+$/, '')}/**/*.jsonl`);
  // The events log, when committed: united and re-sequenced like history (seq stays monotonic).
  pats.add(`${eventsDir.replace(/\/+$/, '')}/*.jsonl`);
  // The gate path template with its fields as wildcards (`{path}` spans folders): `.waymark/gates/**/*.gate`.
  pats.add(gatePath.replace(/\{(?:path|file)\}/g, '**').replace(/\{[a-z]+\}/g, '*'));
  return [...pats].map((p) => `${/\s/.test(p) ? `"${p}"` : p} merge=waymark`);
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new WaymarkError('unreadable', `${file}: ${(e as Error).message}`, file);
  }
}

/** The text without Waymark's block (and the block's lines), or undefined when there is none. */
function withoutBlock(text: string): { text: string; removed: string[] } | undefined {
  const lines = text.split(/\r?\n/);
  const a = lines.indexOf(BEGIN);
  const b = lines.indexOf(END, a + 1);
  if (a < 0 || b < 0) return undefined;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const rest = [...lines.slice(0, a), ...lines.slice(b + 1)];
  return { text: rest.join(eol), removed: lines.slice(a + 1, b) };
}

/**
 * Writes the driver's `.gitattributes` block (replacing an older one) and the local git config
 * `merge.waymark.name` / `merge.waymark.driver`. `driver` is the command git runs, with git's
 * placeholders (`%O %A %B %P %L`).
 */
export async function installMergeDriver(dir: string, include: readonly string[], driver: string, paths: { historyDir?: string; gatePath?: string; eventsDir?: string } = {}): Promise<GitSetupResult> {
  const repo = await repoTop(dir);
  const file = path.join(repo, '.gitattributes');
  const lines = attributeLines(include, paths.historyDir, paths.gatePath, paths.eventsDir);
  const before = readText(file);
  const base = before === undefined ? '' : withoutBlock(before)?.text ?? before;
  const eol = base.includes('\r\n') ? '\r\n' : '\n';
  const head = base === '' ? '' : base.endsWith('\n') ? base : base + eol;
  const after = `${head}${[BEGIN, ...lines, END].join(eol)}${eol}`;
  if (after !== before) writeFileAtomic(file, after, { root: repo });
  const name = await runGit(repo, ['config', '--local', 'merge.waymark.name', 'Waymark: workflow state merged by progress']);
  const drv = await runGit(repo, ['config', '--local', 'merge.waymark.driver', driver]);
  if (name.code !== 0 || drv.code !== 0) throw new WaymarkError('io', `git config failed: ${(name.stderr || drv.stderr).trim()}`);
  return { repo, attributesFile: file, lines, changed: after !== before, driver };
}

/** Removes exactly what install wrote: the `.gitattributes` block (the file too if nothing else is left) and `merge.waymark.*`. */
export async function uninstallMergeDriver(dir: string): Promise<GitSetupResult> {
  const repo = await repoTop(dir);
  const file = path.join(repo, '.gitattributes');
  const before = readText(file);
  const cut = before === undefined ? undefined : withoutBlock(before);
  if (cut) {
    if (cut.text.trim() === '') fs.rmSync(file, { force: true });
    else writeFileAtomic(file, cut.text, { root: repo });
  }
  const had = (await runGit(repo, ['config', '--local', '--get-regexp', '^merge\\.waymark\\.'])).code === 0;
  if (had) {
    const r = await runGit(repo, ['config', '--local', '--remove-section', 'merge.waymark']);
    if (r.code !== 0) throw new WaymarkError('io', `git config --remove-section merge.waymark failed: ${r.stderr.trim()}`);
  }
  return { repo, attributesFile: file, lines: cut?.removed ?? [], changed: Boolean(cut) || had };
}

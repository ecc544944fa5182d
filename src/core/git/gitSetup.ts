/**
 * Installs and removes the state merge driver in one repository: a marked block of
 * `.gitattributes` lines at the repository's top and the local `merge.waymark.*` config.
 * Uninstall removes exactly what install wrote, so git merges as it did before: the file comes
 * back byte for byte (line endings, a missing final newline, an empty file kept).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomicWrite';
import { runGit, repoTop } from '../protocol/git';
import { WaymarkError } from '../errors';

const BEGIN = '# >>> waymark merge driver (waymark git uninstall removes this block)';
const END = '# <<< waymark merge driver';
// What install did to the file besides the block, recorded on the BEGIN line so uninstall gives
// the file back byte for byte: it created the file, or it kept one (and added a final newline).
const CREATED = ' [file: created]';
const KEPT = ' [file: kept]';
const ADDED_EOL = ' [+eol]';

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

/**
 * `.gitattributes` lines for the workflow globs, the sprint ledger, BMAD v7's `tickets.toml` and plans, history files and gate files
 * (the state merge driver), and Waymark's append-only memory files (git's built-in `union`).
 */
export function attributeLines(include: readonly string[], historyDir = '.waymark/history', gatePath = '.waymark/gates/{path}/{gate}.gate', eventsDir = '.waymark/events', unionFiles: readonly string[] = ['.waymark/memory/orchestrator_memory.md']): string[] {
  const pats = new Set<string>();
  for (const g of include) {
    // gitattributes has no brace or negation syntax; those globs are left to the user.
    if (/[{}!]/.test(g) || !g.trim()) continue;
    pats.add(g.trim().replace(/^\.\//, ''));
  }
  pats.add('sprint-status.yaml');
  pats.add('sprint-status.yml');
  // BMAD v7's ticket tree: `tickets.toml` entry by entry, a plan's status by BMAD's order.
  pats.add('tickets.toml');
  pats.add('*-plan.md');
  pats.add(`${historyDir.replace(/\/+$/, '')}/**/*.jsonl`);
  // The events log, when committed: united and re-sequenced like history (seq stays monotonic).
  pats.add(`${eventsDir.replace(/\/+$/, '')}/*.jsonl`);
  // The gate path template with its fields as wildcards (`{path}` spans folders): `.waymark/gates/**/*.gate`.
  pats.add(gatePath.replace(/\{(?:path|file)\}/g, '**').replace(/\{[a-z]+\}/g, '*'));
  const quote = (p: string) => (/\s/.test(p) ? `"${p}"` : p);
  // Append-only files every parallel branch adds to: both sides' new lines kept (git's union driver).
  const union = [...new Set(unionFiles.filter((f) => f.trim() && !pats.has(f)))];
  return [...[...pats].map((p) => `${quote(p)} merge=waymark`), ...union.map((p) => `${quote(p)} merge=union`)];
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new WaymarkError('unreadable', `${file}: ${(e as Error).message}`, file);
  }
}

/**
 * The text without Waymark's block, byte for byte as it was before install (the final newline
 * install added goes too), the block's lines, and whether install created the file (`undefined`:
 * a block from an older Waymark that did not record it). Undefined when there is no block.
 */
function withoutBlock(text: string): { text: string; removed: string[]; created?: boolean } | undefined {
  let a = -1;
  for (let i = text.indexOf(BEGIN); i >= 0; i = text.indexOf(BEGIN, i + 1)) {
    if (i === 0 || text[i - 1] === '\n') {
      a = i;
      break;
    }
  }
  if (a < 0) return undefined;
  const beginEnd = text.indexOf('\n', a);
  if (beginEnd < 0) return undefined;
  const beginLine = text.slice(a, beginEnd).replace(/\r$/, '');
  let b = -1;
  for (let i = text.indexOf(END, beginEnd); i >= 0; i = text.indexOf(END, i + 1)) {
    const lineEnd = text.indexOf('\n', i);
    const line = text.slice(i, lineEnd < 0 ? undefined : lineEnd).replace(/\r$/, '');
    if (text[i - 1] === '\n' && line === END) {
      b = i;
      break;
    }
  }
  if (b < 0) return undefined;
  const afterEnd = text.indexOf('\n', b);
  const stop = afterEnd < 0 ? text.length : afterEnd + 1;
  let start = a;
  if (beginLine.includes(ADDED_EOL)) start -= text.slice(0, a).endsWith('\r\n') ? 2 : text.slice(0, a).endsWith('\n') ? 1 : 0;
  const removed = text.slice(beginEnd + 1, b).split(/\r?\n/).filter((l) => l !== '');
  const created = beginLine.includes(CREATED) ? true : beginLine.includes(KEPT) ? false : undefined;
  return { text: text.slice(0, start) + text.slice(stop), removed, created };
}

/**
 * Writes the driver's `.gitattributes` block (replacing an older one) and the local git config
 * `merge.waymark.name` / `merge.waymark.driver`. `driver` is the command git runs, with git's
 * placeholders (`%O %A %B %P %L`).
 */
export async function installMergeDriver(dir: string, include: readonly string[], driver: string, paths: { historyDir?: string; gatePath?: string; eventsDir?: string; unionFiles?: readonly string[] } = {}): Promise<GitSetupResult> {
  const repo = await repoTop(dir);
  const file = path.join(repo, '.gitattributes');
  const lines = attributeLines(include, paths.historyDir, paths.gatePath, paths.eventsDir, paths.unionFiles);
  const before = readText(file);
  const cut = before === undefined ? undefined : withoutBlock(before);
  const base = before === undefined ? '' : cut?.text ?? before;
  const created = before === undefined || cut?.created === true || (cut !== undefined && cut.created === undefined && base.trim() === '');
  const eol = base.includes('\r\n') ? '\r\n' : '\n';
  const addEol = base !== '' && !base.endsWith('\n');
  const begin = `${BEGIN}${created ? CREATED : KEPT}${addEol ? ADDED_EOL : ''}`;
  const after = `${base}${addEol ? eol : ''}${[begin, ...lines, END].join(eol)}${eol}`;
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
    // A file install created goes when nothing else is in it; one the user had stays, byte for byte.
    const created = cut.created ?? cut.text.trim() === '';
    if (created && cut.text === '') fs.rmSync(file, { force: true });
    else writeFileAtomic(file, cut.text, { root: repo });
  }
  const had = (await runGit(repo, ['config', '--local', '--get-regexp', '^merge\\.waymark\\.'])).code === 0;
  if (had) {
    const r = await runGit(repo, ['config', '--local', '--remove-section', 'merge.waymark']);
    if (r.code !== 0) throw new WaymarkError('io', `git config --remove-section merge.waymark failed: ${r.stderr.trim()}`);
  }
  return { repo, attributesFile: file, lines: cut?.removed ?? [], changed: Boolean(cut) || had };
}

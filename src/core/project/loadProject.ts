/**
 * Reads what the project view needs from disk, through one state core: the scan, each folder's
 * BMAD sprint, the last activity of every item (history, events, file change, leases, modes), and the
 * stalled thresholds of each folder's config. Then builds the registry and the frontier.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StateCore } from '../api';
import type { Problem, ScanResult } from '../types';
import { subProjects, type SprintReport } from '../bmad/sprint';
import { readHistory } from '../store/history';
import { splitFrontmatter } from '../model/frontmatter';
import { YamlLocator } from '../model/positions';
import { durationMs } from '../model/config';
import { runGit } from '../protocol/git';
import { protocolPaths } from '../protocol/paths';
import { buildRegistry, type ProjectRegistry } from './registry';
import { readTicketTree } from '../bmad/tree/reader';
import type { TicketTree } from '../bmad/tree/types';
import { isArchivedSprint } from './migratedSprint';
import { computeFrontier, DEFAULT_STALLED, type Activity, type Frontier, type StalledThresholds } from './frontier';

export interface ProjectView {
  roots: string[];
  registry: ProjectRegistry;
  frontier: Frontier;
  /** When the view was computed (the injected clock's now). */
  now: string;
  /** Each root's history folder (setting `history.dir`), for reading items' history. */
  historyDirs: Map<string, string>;
}

export interface LoadProjectOptions {
  /** The clock's now (tests pin it); default the core's clock. */
  now?: Date;
  /** A scan already made (the extension's model: its roots and states); default a fresh `core.scan()`. */
  scan?: Pick<ScanResult, 'roots' | 'workflows'>;
  /**
   * Ask git for the last commit of in-progress files (default true). False in an untrusted
   * workspace: running git there can run the repository's own hooks and `core.fsmonitor`.
   */
  git?: boolean;
}

/** The project view of every workspace folder of `core`. */
export async function loadProject(core: StateCore, options: LoadProjectOptions = {}): Promise<ProjectView> {
  const scan = options.scan ?? (await core.scan());
  const now = options.now ?? new Date();
  const sprints: SprintReport[] = [];
  const trees: TicketTree[] = [];
  const thresholds = new Map<string, StalledThresholds>();
  const historyDirs = new Map<string, string>();
  for (const root of scan.roots) {
    const ctx = await core.contextFor(path.join(root, '.waymark-probe'));
    const s = ctx.config.project?.stalledAfter as Record<string, unknown> | undefined;
    thresholds.set(root, {
      session: durationMs(s?.session) ?? DEFAULT_STALLED.session,
      workflow: durationMs(s?.workflow) ?? DEFAULT_STALLED.workflow,
      ledger: durationMs(s?.ledger) ?? DEFAULT_STALLED.ledger,
    });
    historyDirs.set(root, ctx.config.history.dir);
    // A monorepo's BMAD projects in subfolders each have their own sprint.
    const subs = subProjects(root, ctx.config.bmad.dir);
    for (const r of subs.length ? subs : [root]) {
      const tree = readTicketTree(r);
      if (tree) trees.push(tree);
      const sprint = core.sprint.load(r, subs.length ? { now } : { now, config: ctx.config });
      // A migrated project's archived ledger is history: the tree is its work, counted once.
      if (!sprint || isArchivedSprint(sprint, tree)) continue;
      sprints.push(sprint);
      if (sprint.root !== root) thresholds.set(sprint.root, thresholds.get(root)!);
    }
  }
  const registry = buildRegistry(scan.workflows, sprints, frontmatterRange, trees);

  const activity = new Map<string, Activity>();
  const sessions = new Map<string, Activity>();
  const later = (m: Map<string, Activity>, id: string, a: Activity) => {
    const had = m.get(id);
    // On a tie, history says more (who, which operation) than a file time.
    if (!had || Date.parse(a.time) > Date.parse(had.time) || (a.source === 'history' && Date.parse(a.time) === Date.parse(had.time))) m.set(id, a);
  };
  const committed = options.git === false ? new Map<string, Activity>() : await lastCommits(registry.items.filter((i) => i.state === 'in_progress' && i.file).map((i) => i.file!));
  // A folder without a history folder (new to Waymark) is not asked for history file by file.
  const hasHistory = new Map([...historyDirs].map(([root, dir]) => [root, fs.existsSync(path.resolve(root, dir))]));
  for (const item of registry.items) {
    if (item.state !== 'in_progress' || !item.file) continue;
    const commit = committed.get(item.file);
    if (commit) later(activity, item.id, commit);
    else {
      try {
        later(activity, item.id, { time: fs.statSync(item.file).mtime.toISOString(), who: 'file edit', source: 'file' });
      } catch {
        // a story file that vanished: no file activity
      }
    }
    const entries = hasHistory.get(item.root) === false ? [] : readHistory(item.root, item.file, historyDirs.get(item.root));
    const last = entries[entries.length - 1];
    if (last) later(activity, item.id, { time: last.time, who: last.actor, source: 'history' });
  }
  for (const root of scan.roots) {
    const recent = lastEvents(root);
    for (const item of registry.items) {
      const ev = item.root === root && item.state === 'in_progress' && item.rel ? recent.get(item.rel) : undefined;
      if (ev) later(activity, item.id, ev);
    }
  }
  for (const root of scan.roots) {
    const holders: Activity[] = [];
    const byRel = new Map<string, Activity>();
    for (const { lease, stale } of core.protocol.listLeases(root)) {
      if (stale) continue;
      // A renewal moves `expiresAt`; `acquiredAt` is the take; the later one is the last sign of life.
      const a: Activity = { time: lease.acquiredAt, who: lease.owner.agent, source: 'lease' };
      if (lease.target === '*') holders.push(a);
      else byRel.set(lease.target, a);
    }
    for (const m of core.protocol.showModes(root)) if (Date.parse(m.expiresAt) > now.getTime()) holders.push({ time: m.startedAt, who: m.owner.agent, source: 'mode' });
    for (const item of registry.items) {
      if (item.root !== root || item.state !== 'in_progress' || item.kind !== 'workflow') continue;
      const own = item.rel ? byRel.get(item.rel) : undefined;
      for (const a of own ? [own] : holders) later(sessions, item.id, a);
    }
  }
  const frontier = computeFrontier(registry, { activity, sessions, now, stalledAfter: (root) => thresholds.get(root) ?? DEFAULT_STALLED });
  placeStalled(frontier);
  return { roots: scan.roots, registry, frontier, now: now.toISOString(), historyDirs };
}

/** The active events segment is rotated at 1 MiB by default: read no more than this of it. */
const MAX_EVENTS_BYTES = 4 * 1024 * 1024;

/**
 * The latest event per workflow file (relative path) in the active segment of the events log:
 * lease renewals, hooks and writes by other processes show there. Archived segments are older
 * than anything in the active one, so they are not read. A log that is no regular file is skipped.
 */
function lastEvents(root: string): Map<string, Activity> {
  const out = new Map<string, Activity>();
  const file = protocolPaths(root).eventsFile;
  let text: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_EVENTS_BYTES) return out;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let ev: { time?: unknown; file?: unknown; actor?: unknown; type?: unknown };
    try {
      ev = JSON.parse(line) as typeof ev;
    } catch {
      continue; // a line cut by a crash: the events reader reports it, here it is just no activity
    }
    if (typeof ev.file !== 'string' || typeof ev.time !== 'string' || !Number.isFinite(Date.parse(ev.time))) continue;
    const had = out.get(ev.file);
    if (!had || Date.parse(ev.time) > Date.parse(had.time)) out.set(ev.file, { time: ev.time, who: typeof ev.actor === 'string' ? ev.actor : typeof ev.type === 'string' ? ev.type : undefined, source: 'event' });
  }
  return out;
}

/** At most this many in-progress files are asked of git (one `git log -1` each). */
const MAX_GIT_FILES = 200;

/**
 * The last commit of each file that git tracks and that has no change since: a checkout or clone
 * sets every file's mtime to now, so for a clean file its commit is when it last changed. Files
 * with local changes, untracked files and folders without git are left to their mtime.
 */
async function lastCommits(files: string[]): Promise<Map<string, Activity>> {
  const out = new Map<string, Activity>();
  if (!files.length || files.length > MAX_GIT_FILES) return out;
  const byDir = new Map<string, string[]>();
  for (const f of files) {
    const d = path.dirname(f);
    (byDir.get(d) ?? byDir.set(d, []).get(d)!).push(f);
  }
  try {
    for (const [dir, list] of byDir) {
      const names = list.map((f) => path.basename(f));
      const status = await runGit(dir, ['-c', 'core.quotepath=off', 'status', '--porcelain', '--', ...names]);
      if (status.code !== 0) continue;
      const dirty = new Set(status.stdout.split('\n').filter(Boolean).map((l) => path.basename(l.slice(3).trim())));
      for (const f of list) {
        if (dirty.has(path.basename(f))) continue;
        const log = await runGit(dir, ['log', '-1', '--format=%cI%x1f%an', '--', path.basename(f)]);
        const [time, author] = log.stdout.trim().split('\x1f');
        if (log.code === 0 && time && Number.isFinite(Date.parse(time))) out.set(f, { time: new Date(time).toISOString(), who: author ? `${author} (git commit)` : 'git commit', source: 'file' });
      }
    }
  } catch {
    // git missing: mtimes only
  }
  return out;
}

const STATE_LINE = /^(status|Status|currentStep|current_step)\s*:/;

/**
 * The 0-based line of a workflow file's `status:` key (else its current step, else 0): a plain
 * scan of the frontmatter's top-level keys. Views ask it only for the items they show.
 */
export function workflowStateLine(file: string): number {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return 0;
  }
  const lines = text.slice(0, 64 * 1024).split('\n');
  if (lines[0]?.trim() !== '---') return 0;
  let fallback = 0;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() === '---' || l.trim() === '...') break;
    const m = STATE_LINE.exec(l);
    if (m && (m[1] === 'status' || m[1] === 'Status')) return i;
    if (m && !fallback) fallback = i;
  }
  return fallback;
}

/** Where a key of a workflow file's frontmatter is, from the YAML parser. */
function frontmatterRange(file: string, keyPath: (string | number)[]) {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const split = splitFrontmatter(text);
  if (!split.hasFrontmatter) return undefined;
  return new YamlLocator(split.yamlText, split.yamlStartLine).range(keyPath, 'value');
}

/**
 * A `work-stalled` warning sits on the status it is about: a story file's `Status:` line, a
 * workflow file's frontmatter `status` key (read for the stalled files only).
 */
function placeStalled(frontier: Frontier): void {
  for (const e of frontier.stalled) {
    const file = e.item.file;
    if (!file) continue;
    const range =
      e.item.line !== undefined
        ? { start: { line: e.item.line, character: 0 }, end: { line: e.item.line, character: 0 } }
        : e.item.kind === 'workflow'
          ? frontmatterRange(file, ['status'])
          : undefined;
    if (!range) continue;
    for (const p of frontier.problems) if (p.code === 'work-stalled' && p.file === file) p.range = range;
  }
}

/** The problems of the project view (dependencies, cycles, stalled work) for one file. */
export function projectProblemsFor(view: ProjectView, file: string): Problem[] {
  return view.frontier.problems.filter((p) => p.file === file);
}

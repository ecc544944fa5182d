/**
 * Reads what the project view needs from disk, through one state core: the scan, each folder's
 * BMAD sprint, the last activity of every item (history, events, file change, leases, modes), and the
 * stalled thresholds of each folder's config. Then builds the registry and the frontier.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StateCore } from '../api';
import type { Problem, ScanResult, WorkflowState } from '../types';
import { subProjects, type SprintReport } from '../bmad/sprint';
import { readHistory, historyPathFor } from '../store/history';
import { readFileTime } from '../store/scan';
import { relativeInside } from '../store/safePath';
import { splitFrontmatter } from '../model/frontmatter';
import { YamlLocator } from '../model/positions';
import { durationMs } from '../model/config';
import { runChild, runGit, type GitResult } from '../protocol/git';
import { randomHex } from '../store/processes';
import { coordinationPaths, protocolPaths } from '../protocol/paths';
import { buildRegistry, updateRegistry, type ProjectItem, type ProjectRegistry } from './registry';
import { readTicketTree } from '../bmad/tree/reader';
import type { TicketTree } from '../bmad/tree/types';
import { isArchivedSprint } from './migratedSprint';
import { parseStatusV2, stillDirty, type GitPlaces, type GitVerdict } from './gitVerdict';
import { computeFrontier, updateFrontier, DEFAULT_STALLED, type Activity, type Frontier, type FrontierInput, type StalledThresholds } from './frontier';

export interface ProjectView {
  roots: string[];
  registry: ProjectRegistry;
  frontier: Frontier;
  /** When the view was computed (the injected clock's now). */
  now: string;
  /** Each root's history folder (setting `history.dir`), for reading items' history. */
  historyDirs: Map<string, string>;
  /** Each root's BMAD sprints (one per project; several in a monorepo), as the view read them. */
  sprints: Map<string, SprintReport[]>;
}

export interface LoadProjectOptions {
  /** The clock's now (tests pin it); default the core's clock. */
  now?: Date;
  /**
   * A scan already made (the extension's model: its roots and states); default a fresh
   * `core.scan()`. With `sprints` (a scan made with `sprint: true`), a root's sprints found there
   * are not read again.
   */
  scan?: Pick<ScanResult, 'roots' | 'workflows'> & { sprints?: ReadonlyMap<string, readonly SprintReport[]> };
  /**
   * Ask git for the last commit of in-progress files (default true). False in an untrusted
   * workspace: running git there can run the repository's own hooks and `core.fsmonitor`.
   */
  git?: boolean;
}

/** The project view of every workspace folder of `core`, read afresh. */
export async function loadProject(core: StateCore, options: LoadProjectOptions = {}): Promise<ProjectView> {
  const scan = options.scan ?? (await core.scan());
  return new WarmProjectView(core, { git: options.git }).view(scan, options.now);
}

export interface WarmProjectOptions {
  /** Ask git for commit times (default true); a function when it can change (VS Code's trust). */
  git?: boolean | (() => boolean);
  /**
   * The longest a view is answered without recomputing what time alone changes (idle minutes,
   * a stale ledger, an expired waiver), in ms; default 60 s. Stalled thresholds crossed in the
   * meantime are not waited for: the view expires when the first one is crossed.
   */
  maxAgeMs?: number;
  /**
   * What git answered for in-progress files in an earlier process (`keptActivity`), taken over
   * for each file still stamped as then while git's HEAD, refs and index are too: a check that
   * runs again after an edit starts no git for files that did not change.
   */
  kept?: readonly KeptActivity[];
}

/**
 * The activity git gave a folder's in-progress files (a commit time, or the file time when git
 * said the file has changes or has no commit), with what it depends on: git's files (HEAD, refs,
 * index) and each file's stamp, both taken before git was asked, and none changed within the
 * racy window before that (a change in the same timestamp tick would not show).
 */
export interface KeptActivity {
  root: string;
  /** `gitStamp` of the folder, with GIT_DIR and GIT_WORK_TREE (they point git elsewhere). */
  git: string;
  /**
   * Per file: its stamp and activity (taken over while the stamp reads the same), or, when git said
   * it has local changes, its verdict (gitVerdict.ts: its activity is its file time while that holds;
   * the stamp then only spares a re-read, '' when it was within the racy window, the activity null).
   */
  files: [file: string, stamp: string, activity: Activity | null, verdict?: GitVerdict][];
}

/** A folder's git stamp as kept activity names it: git's files, and where the environment points git. */
function keptGitKey(stamp: string): string {
  return `${stamp}|${process.env.GIT_DIR ?? ''}|${process.env.GIT_WORK_TREE ?? ''}`;
}

/** What a view read of one workspace folder, kept while it is current. */
interface RootInputs {
  thresholds: StalledThresholds;
  historyDir: string;
  historyBase: string;
  hasHistory: boolean;
  sprints?: SprintReport[];
  /** BMAD v7 ticket trees, read with the sprints (a migrated project's archived ledger is left out of them). */
  trees: TicketTree[];
  sprintsAt: number;
  /** Files the sprints read and the story folders they list: a change there reloads them. */
  sprintFiles: Set<string>;
  sprintDirs: string[];
  events?: Map<string, Activity>;
  eventsStamp: string;
  leases?: LeaseInputs;
  leasesStamp: string;
  coordination: string[];
  git?: GitFiles;
  gitStamp: string;
}

/** The files of a repository whose change can change a commit time: HEAD, its ref, packed refs, the index. */
interface GitFiles {
  head: string;
  headStamp: string;
  others: string[];
  places: GitPlaces;
}

const WORKFLOW_FILE = /\.workflow\.md$/i;

/** size, mtime, ctime, inode of `p` ('-' when it does not exist): one stat. */
function stampOf(p: string): string {
  try {
    // A missing file (no events yet, no packed refs) is the common case: no exception for it,
    // whose stack trace would cost more than the stat.
    const st = fs.statSync(p, { throwIfNoEntry: false });
    return st ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : '-';
  } catch {
    return '-';
  }
}

/**
 * The project view kept warm for a long-lived face (the MCP server, the extension): the registry,
 * the frontier and the sprint answered from memory, and recomputed only from what changed since
 * the last answer. The face reports changed files (`changed`, from its watcher; `changedAll` when
 * its watcher lost events); states come from its model and are compared by identity, so a file
 * the model re-read is re-read here too. Every answer also checks, one stat each, what no
 * workspace watcher sees: git's HEAD, index and current ref, the events log, the lease and mode
 * folders. Time alone changes the stalled set: a view is recomputed once the first in-progress
 * item crosses its threshold, and at least every `maxAgeMs`.
 */
export class WarmProjectView {
  private last?: ProjectView;
  private builtFrom: readonly WorkflowState[] = [];
  private rootsKey = '';
  /** The last view is answered until this time (ms); 0 forces a recomputation. */
  private validUntil = 0;
  /** Until when time passing changes nothing the last view says (leases expiring, stalled thresholds, the minute). */
  private timeValidUntil = 0;
  /** What the last frontier was computed from (a later one carries over what did not change). */
  private lastInput?: FrontierInput;
  private readonly roots = new Map<string, RootInputs>();
  /** Per file: its last commit (clean in git) or file time; null when neither is known. */
  private readonly fileActivity = new Map<string, Activity | null>();
  /** Per file whose activity git was asked for (or taken over from `kept`): its stamp just before. */
  private readonly activityStamps = new Map<string, string>();
  /** Per such file for which git said it has local changes: what it said (gitVerdict.ts). */
  private readonly activityVerdicts = new Map<string, GitVerdict>();
  private readonly historyActivity = new Map<string, Activity | null>();
  private readonly dirtySprint = new Set<string>();
  private all = true;
  /** Computations made (a face's tests and bench read it). */
  computations = 0;

  constructor(
    private readonly core: StateCore,
    private readonly options: WarmProjectOptions = {},
  ) {}

  private git(): boolean {
    const g = this.options.git;
    return typeof g === 'function' ? g() : g !== false;
  }

  /** Files (absolute paths) that changed on disk, as a watcher saw them. */
  changed(files: Iterable<string>): void {
    for (const file of files) {
      // A write's own temp file (renamed over its target, which is reported too).
      if (file.endsWith('.waymark-tmp')) continue;
      const root = rootAmongKnown([...this.roots.keys()], file);
      if (!root) continue;
      const r = this.roots.get(root)!;
      this.fileActivity.delete(file);
      const inHistory = relativeInside(r.historyBase, file);
      if (inHistory !== undefined) {
        if (inHistory.startsWith('_outside')) this.historyActivity.clear();
        else this.historyActivity.delete(path.join(root, inHistory.replace(/\.jsonl$/, '')));
        this.validUntil = 0;
        continue;
      }
      const rel = relativeInside(root, file);
      if (rel === undefined || /^(?:\.git|\.waymark|node_modules)(?:[\\/]|$)/.test(rel)) {
        // The events log and leases are stamped on every answer; other internal files say nothing here.
        if (rel !== undefined && /^\.waymark[\\/](?:events|leases|modes)(?:[\\/]|$)/.test(rel)) this.validUntil = 0;
        continue;
      }
      // A Waymark workflow file feeds the view through the model's states; anything else may be a
      // sprint's ledger, story, epic or gate (or a new one the sprint would find).
      if (!WORKFLOW_FILE.test(file) || r.sprintFiles.has(file) || r.sprintDirs.some((d) => relativeInside(d, file) !== undefined)) this.dirtySprint.add(root);
      this.validUntil = 0;
    }
  }

  /** A sprint's files changed (its face's own watcher saw a ledger, story, epic or gate change): read the sprints again. */
  sprintsChanged(): void {
    for (const root of this.roots.keys()) this.dirtySprint.add(root);
  }

  /** Anything may have changed (a watcher lost events, the configuration changed): read everything again. */
  changedAll(): void {
    this.all = true;
  }

  /** The view over `scan` (the face's current states) at `now`, recomputed from what changed. */
  async view(scan: Pick<ScanResult, 'roots' | 'workflows'> & { sprints?: ReadonlyMap<string, readonly SprintReport[]> }, now: Date = new Date()): Promise<ProjectView> {
    const key = scan.roots.join('\0');
    if (this.all || key !== this.rootsKey) {
      this.all = false;
      this.rootsKey = key;
      this.roots.clear();
      this.fileActivity.clear();
      this.historyActivity.clear();
      this.dirtySprint.clear();
      this.validUntil = 0;
    }
    const git = this.git();
    let stale = now.getTime() >= this.validUntil || !this.last;
    // States the model re-read since the last answer: their file times and commits are read again.
    if (!sameStates(this.builtFrom, scan.workflows)) {
      stale = true;
      const same = changedStates(this.builtFrom, scan.workflows, Infinity);
      if (same) for (const { after } of same) this.fileActivity.delete(after.file);
      else {
        const before = new Map(this.builtFrom.map((w) => [w.file, w]));
        for (const w of scan.workflows) if (before.get(w.file) !== w) this.fileActivity.delete(w.file);
      }
    }
    for (const root of scan.roots) {
      const r = this.roots.get(root);
      if (!r) {
        stale = true;
        continue;
      }
      if (this.dirtySprint.has(root)) stale = true;
      const events = stampOf(protocolPaths(root).eventsFile);
      if (events !== r.eventsStamp) {
        r.events = undefined;
        stale = true;
      }
      const leases = stampAll(r.coordination);
      if (leases !== r.leasesStamp || r.leases?.any) {
        // While there are leases or modes they are read on every answer: one going stale (its
        // process ended) changes nothing on disk.
        const read = readLeases(this.core, root, now);
        r.leasesStamp = leases;
        if (read.sig !== r.leases?.sig) {
          r.leases = read;
          stale = true;
        }
      }
      if (git) {
        const g = gitStamp(root, r);
        if (g !== r.gitStamp) {
          for (const f of [...this.fileActivity.keys()]) if (relativeInside(root, f) !== undefined) this.fileActivity.delete(f);
          r.gitStamp = g;
          stale = true;
        }
      }
    }
    if (!stale && this.last) return this.last;
    return this.compute(scan, now, git);
  }

  // The loops over every in-progress item are methods of their own, not part of compute: V8
  // optimizes an async function's loop late if at all (compute runs once in a CLI process), and a
  // first validate of 10,000 files ran these loops of thousands of items in the interpreter.

  /** Each file's activity from git, else from the time the scan read it (else stat-ed now). */
  private learnFileActivity(unknown: string[], committed: Map<string, Activity>, workflows: readonly WorkflowState[]): void {
    const readTimes = new Map<string, number>();
    const wanted = new Set(unknown);
    for (const w of workflows) {
      const t = wanted.has(w.file) ? readFileTime(w) : undefined;
      if (t !== undefined) readTimes.set(w.file, t);
    }
    for (const f of unknown) {
      let a: Activity | null = committed.get(f) ?? null;
      if (!a) {
        try {
          // The scan stat-ed the file when it read the state: not stat-ed again (Stats.mtime rounds the same way).
          const scanned = readTimes.get(f);
          a = { time: (scanned !== undefined ? new Date(Math.round(scanned)) : fs.statSync(f).mtime).toISOString(), who: 'file edit', source: 'file' };
        } catch {
          a = null; // a story file that vanished: no file activity
        }
      }
      this.fileActivity.set(f, a);
    }
  }

  /** The latest of each in-progress item's file activity and history entry. */
  private fileAndHistoryActivity(working: readonly ProjectItem[], activity: Map<string, Activity>, historyDirs: Map<string, string>): void {
    for (const item of working) {
      const file = item.file!;
      const a = this.fileActivity.get(file);
      if (a) later(activity, item.id, a);
      const r = this.roots.get(item.root);
      let h = this.historyActivity.get(file);
      if (h === undefined) {
        // A folder without a history folder (new to Waymark) is not asked for history file by file.
        const entries = r && !r.hasHistory ? [] : readHistory(item.root, file, historyDirs.get(item.root));
        const e = entries[entries.length - 1];
        h = e ? { time: e.time, who: e.actor, source: 'history' } : null;
        this.historyActivity.set(file, h);
      }
      if (h) later(activity, item.id, h);
    }
  }

  private async compute(scan: Pick<ScanResult, 'roots' | 'workflows'> & { sprints?: ReadonlyMap<string, readonly SprintReport[]> }, now: Date, git: boolean): Promise<ProjectView> {
    const maxAge = this.options.maxAgeMs ?? 60_000;
    const sprints: SprintReport[] = [];
    const sprintsByRoot = new Map<string, SprintReport[]>();
    const thresholds = new Map<string, StalledThresholds>();
    const historyDirs = new Map<string, string>();
    // Whether the last registry can be carried over (no folder or sprint read again below).
    let sameInputs = !!this.last && this.last.roots.join('\0') === scan.roots.join('\0');
    for (const root of scan.roots) {
      let r = this.roots.get(root);
      if (!r) {
        sameInputs = false;
        const ctx = await this.core.contextFor(path.join(root, '.waymark-probe'));
        const s = ctx.config.project?.stalledAfter as Record<string, unknown> | undefined;
        const historyDir = ctx.config.history.dir;
        const historyBase = path.resolve(root, historyDir);
        r = {
          thresholds: { session: durationMs(s?.session) ?? DEFAULT_STALLED.session, workflow: durationMs(s?.workflow) ?? DEFAULT_STALLED.workflow, ledger: durationMs(s?.ledger) ?? DEFAULT_STALLED.ledger },
          historyDir,
          historyBase,
          hasHistory: fs.existsSync(historyBase),
          trees: [],
          sprintsAt: 0,
          sprintFiles: new Set(),
          sprintDirs: [],
          eventsStamp: '',
          leasesStamp: '',
          coordination: coordinationFolders(root),
          gitStamp: '',
        };
        if (git) r.gitStamp = gitStamp(root, r);
        this.roots.set(root, r);
      }
      if (!r.hasHistory) r.hasHistory = fs.existsSync(r.historyBase);
      thresholds.set(root, r.thresholds);
      historyDirs.set(root, r.historyDir);
      if (!r.sprints || this.dirtySprint.has(root) || now.getTime() - r.sprintsAt >= maxAge) {
        sameInputs = false;
        this.dirtySprint.delete(root);
        r.sprints = [];
        r.trees = [];
        const ctx = await this.core.contextFor(path.join(root, '.waymark-probe'));
        // A monorepo's BMAD projects in subfolders each have their own sprint.
        const subs = subProjects(root, ctx.config.bmad.dir);
        const projects = subs.length ? subs : [root];
        // The sprints the scan read (validate checks them for drift) are not read again, when they are these projects'.
        const given = scan.sprints?.get(root);
        const scanned = given?.every((x) => projects.includes(x.root)) ? given : undefined;
        // The tree is found from the BMAD config the scanned sprint loaded, when it was loaded as
        // readTicketTree would (BMAD's default folders): its YAML is not parsed a second time.
        const sameConfig = !subs.length && ctx.config.bmad.dir === '_bmad' && ctx.config.bmad.output === '_bmad-output';
        for (const p of projects) {
          const tree = readTicketTree(p, { config: sameConfig ? scanned?.find((x) => x.root === p)?.config : undefined });
          if (tree) r.trees.push(tree);
          const sprint = scanned ? scanned.find((x) => x.root === p) : this.core.sprint.load(p, subs.length ? { now } : { now, config: ctx.config });
          // A migrated project's archived ledger is history: the tree is its work, counted once.
          if (sprint && !isArchivedSprint(sprint, tree)) r.sprints.push(sprint);
        }
        r.sprintsAt = now.getTime();
        r.sprintFiles = new Set(r.sprints.flatMap((x) => x.files));
        // A story file's time is its activity: read again with the sprint that may have changed it.
        for (const f of r.sprintFiles) this.fileActivity.delete(f);
        r.sprintDirs = r.sprints.flatMap((x) => x.storyDirs);
      }
      sprintsByRoot.set(root, r.sprints);
      for (const sprint of r.sprints) {
        sprints.push(sprint);
        if (sprint.root !== root) thresholds.set(sprint.root, r.thresholds);
      }
    }
    const trees = scan.roots.flatMap((root) => this.roots.get(root)?.trees ?? []);
    // One file edited (the common change): its item is replaced, the graph kept, when it can be.
    const changed = sameInputs ? changedStates(this.builtFrom, scan.workflows) : undefined;
    const registry = (changed && this.last && updateRegistry(this.last.registry, changed)) || buildRegistry(scan.workflows, sprints, frontmatterRange, trees);

    const activity = new Map<string, Activity>();
    const sessions = new Map<string, Activity>();
    const working = registry.items.filter((i) => i.state === 'in_progress' && i.file);
    let unknown = working.map((i) => i.file!).filter((f) => !this.fileActivity.has(f));
    // git is asked about at most MAX_GIT_FILES in-progress files in all; beyond that, file times.
    const askGit = git && working.length <= MAX_GIT_FILES;
    if (unknown.length && askGit && this.options.kept?.length) unknown = this.takeKept(unknown, scan.workflows);
    if (unknown.length) {
      // Each file's stamp before git is asked: a change after it shows as another stamp next time.
      for (const f of unknown) {
        if (askGit) this.activityStamps.set(f, stampOf(f));
        else this.activityStamps.delete(f);
      }
      const asked = !askGit ? undefined : await lastCommits(unknown);
      for (const f of unknown) {
        const v = asked?.verdicts.get(f);
        if (v) this.activityVerdicts.set(f, v);
        else this.activityVerdicts.delete(f);
      }
      this.learnFileActivity(unknown, asked?.committed ?? new Map<string, Activity>(), scan.workflows);
    }
    this.fileAndHistoryActivity(working, activity, historyDirs);
    let validUntil = now.getTime() + (this.options.maxAgeMs ?? 60_000);
    for (const root of scan.roots) {
      const r = this.roots.get(root)!;
      if (!r.events) {
        r.eventsStamp = stampOf(protocolPaths(root).eventsFile);
        r.events = lastEvents(root);
      }
      for (const item of working) {
        const ev = item.root === root && item.rel ? r.events.get(item.rel) : undefined;
        if (ev) later(activity, item.id, ev);
      }
      if (!r.leases) {
        r.leasesStamp = stampAll(r.coordination);
        r.leases = readLeases(this.core, root, now);
      }
      if (Number.isFinite(r.leases.expires)) validUntil = Math.min(validUntil, r.leases.expires);
      for (const item of working) {
        if (item.root !== root || item.kind !== 'workflow') continue;
        const own = item.rel ? r.leases.byRel.get(item.rel) : undefined;
        for (const a of own ? [own] : r.leases.holders) later(sessions, item.id, a);
      }
    }
    const input: FrontierInput = { activity, sessions, now, stalledAfter: (root) => thresholds.get(root) ?? DEFAULT_STALLED };
    // One file edited within the time the last view holds: only what it touches is computed again.
    const prev = this.last && this.lastInput && now.getTime() < this.timeValidUntil ? this.last : undefined;
    const carried = prev && updateFrontier(prev.frontier, prev.registry, this.lastInput!, registry, input);
    const frontier = carried || computeFrontier(registry, input);
    placeStalled(frontier, carried ? new Set(prev!.frontier.problems) : undefined);
    if (frontier.stalledChangesAt !== undefined) validUntil = Math.min(validUntil, frontier.stalledChangesAt);
    // A view carried over keeps the time limit of the one it came from (its stalled times are that old).
    this.validUntil = this.timeValidUntil = carried ? Math.min(validUntil, this.timeValidUntil) : validUntil;
    this.lastInput = input;
    this.builtFrom = scan.workflows;
    this.computations++;
    this.last = { roots: scan.roots, registry, frontier, now: now.toISOString(), historyDirs, sprints: sprintsByRoot };
    return this.last;
  }

  /**
   * Takes over the kept activity of the in-progress files whose folder's git files and own stamp
   * read as when git was asked; gives back the files git must still be asked about.
   */
  private takeKept(unknown: string[], workflows: readonly WorkflowState[]): string[] {
    const roots = [...this.roots.keys()];
    const byRoot = new Map<string, Map<string, [string, Activity | null, GitVerdict | undefined]>>();
    for (const k of this.options.kept ?? []) {
      const r = this.roots.get(k.root);
      if (!r || !r.gitStamp || k.git !== keptGitKey(r.gitStamp) || !Array.isArray(k.files)) continue;
      byRoot.set(k.root, new Map(k.files.map(([f, stamp, a, v]) => [f, [stamp, a, typeof v === 'string' && v ? v : undefined]])));
    }
    const left: string[] = [];
    // Files git said have local changes that still have them: their file time, as git's answer would give.
    const changed: string[] = [];
    for (const f of unknown) {
      const root = rootAmongKnown(roots, f);
      const kept = root ? byRoot.get(root)?.get(f) : undefined;
      const stamp = kept && root && inRootRepository(root, f) ? stampOf(f) : undefined;
      const verdict = kept?.[2];
      const places = root ? this.roots.get(root)?.git?.places : undefined;
      if (!kept || stamp === undefined || stamp === '-') left.push(f);
      else if (verdict && places && (stamp === kept[0] || stillDirty(verdict, f, places))) {
        changed.push(f);
        this.activityStamps.set(f, stamp);
        this.activityVerdicts.set(f, verdict);
      } else if (!verdict && stamp === kept[0]) {
        this.fileActivity.set(f, kept[1]);
        this.activityStamps.set(f, stamp);
        this.activityVerdicts.delete(f);
      } else left.push(f);
    }
    if (changed.length) this.learnFileActivity(changed, new Map(), workflows);
    return left;
  }

  /**
   * The activity git gave `root`'s in-progress files in the last view, for a later process
   * (`kept`): only when git was asked, and only files and git files unchanged since `since` (the
   * racy window before the view was computed); undefined when there is none to keep.
   */
  keptActivity(root: string, since: number): KeptActivity | undefined {
    const r = this.roots.get(root);
    if (!this.last || !r?.gitStamp || r.gitStamp === '-' || newestInStamp(r.gitStamp) >= since) return undefined;
    const files: KeptActivity['files'] = [];
    const roots = [...this.roots.keys()];
    for (const item of this.last.registry.items) {
      if (item.state !== 'in_progress' || !item.file || rootAmongKnown(roots, item.file) !== root || !inRootRepository(root, item.file)) continue;
      const stamp = this.activityStamps.get(item.file);
      const a = this.fileActivity.get(item.file);
      if (stamp === undefined || stamp === '-' || a === undefined) continue;
      const verdict = this.activityVerdicts.get(item.file);
      const settled = newestInStamp(stamp) < since;
      // A verdict holds by git's files alone (its bytes checked again when it names a blob): kept
      // for a file changed within the racy window too, whose stamp then proves nothing.
      if (verdict) files.push([item.file, settled ? stamp : '', null, verdict]);
      else if (settled) files.push([item.file, stamp, a]);
    }
    return files.length ? { root, git: keptGitKey(r.gitStamp), files } : undefined;
  }
}

/** At most this many re-read states are carried into the last registry; more: it is built again. */
const MAX_CARRIED = 50;

/**
 * The states re-read between two lists of the same files in the same order (the model's list is
 * sorted by file), or undefined when files came or went or too many changed.
 */
function changedStates(a: readonly WorkflowState[], b: readonly WorkflowState[], max = MAX_CARRIED): { before: WorkflowState; after: WorkflowState }[] | undefined {
  if (a.length !== b.length) return undefined;
  const out: { before: WorkflowState; after: WorkflowState }[] = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (a[i].file !== b[i].file || out.length >= max) return undefined;
    out.push({ before: a[i], after: b[i] });
  }
  return out;
}

/** The same states, in the same order, by identity: the model re-read none of them. */
function sameStates(a: readonly WorkflowState[], b: readonly WorkflowState[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * True when no folder between `file` and `root` holds a `.git` of its own (a nested repository or
 * submodule): git's answer for the file then depends on the root's git files, which its stamp covers.
 */
function inRootRepository(root: string, file: string): boolean {
  for (let d = path.dirname(file); d !== root && relativeInside(root, d) !== undefined; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return false;
  }
  return true;
}

function rootAmongKnown(roots: string[], file: string): string | undefined {
  let best: string | undefined;
  for (const r of roots) if (relativeInside(r, file) !== undefined && (!best || r.length > best.length)) best = r;
  return best;
}

/** The live leases and modes of a folder as activity, and what they were read from. */
interface LeaseInputs {
  holders: Activity[];
  byRel: Map<string, Activity>;
  /** The earliest expiry (ms), Infinity when none. */
  expires: number;
  /** Any lease or mode file at all, live or stale. */
  any: boolean;
  /** What they say, to compare with the last reading. */
  sig: string;
}

function readLeases(core: StateCore, root: string, now: Date): LeaseInputs {
  const holders: Activity[] = [];
  const byRel = new Map<string, Activity>();
  let expires = Infinity;
  let any = false;
  for (const { lease, stale } of core.protocol.listLeases(root)) {
    any = true;
    if (stale) continue;
    expires = Math.min(expires, Date.parse(lease.expiresAt));
    // A renewal moves `expiresAt`; `acquiredAt` is the take; the later one is the last sign of life.
    const a: Activity = { time: lease.acquiredAt, who: lease.owner.agent, source: 'lease' };
    if (lease.target === '*') holders.push(a);
    else byRel.set(lease.target, a);
  }
  for (const m of core.protocol.showModes(root)) {
    any = true;
    if (Date.parse(m.expiresAt) > now.getTime()) {
      holders.push({ time: m.startedAt, who: m.owner.agent, source: 'mode' });
      expires = Math.min(expires, Date.parse(m.expiresAt));
    }
  }
  return { holders, byRel, expires, any, sig: JSON.stringify([holders, [...byRel], expires]) };
}

/** The lease and mode folders of `root`: taking, renewing or releasing a lease changes one of them. */
function coordinationFolders(root: string): string[] {
  const c = coordinationPaths(root);
  return [c.leases, c.modes, c.legacyLeases, c.legacyModes].filter((d): d is string => !!d);
}

function stampAll(files: readonly string[]): string {
  return files.map(stampOf).join('|');
}

/**
 * What git's answer about commit times depends on beyond the files themselves: HEAD, the ref it
 * names, packed refs and the index (a commit, a checkout, a reset, a pull each change one). One
 * stat each; HEAD is read again only when it changed.
 */
function gitStamp(root: string, r: { git?: GitFiles }): string {
  const headStamp = r.git ? stampOf(r.git.head) : '';
  if (!r.git || headStamp !== r.git.headStamp) r.git = gitFiles(root);
  if (!r.git) return '-';
  return `${r.git.headStamp}|${stampAll(r.git.others)}`;
}

function gitFiles(root: string): GitFiles | undefined {
  const dot = path.join(root, '.git');
  let gitDir = dot;
  try {
    if (fs.statSync(dot).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dot, 'utf8'));
      if (m) gitDir = path.resolve(root, m[1].trim());
    }
    const head = path.join(gitDir, 'HEAD');
    const headStamp = stampOf(head);
    const ref = /^ref:\s*(.+)$/m.exec(fs.readFileSync(head, 'utf8'))?.[1]?.trim();
    let common = gitDir;
    try {
      common = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
    } catch {
      // not a linked worktree: the git folder is the common one
    }
    return { head, headStamp, others: [...(ref ? [path.join(common, ref)] : []), path.join(common, 'packed-refs'), path.join(gitDir, 'index')], places: { workTree: root, gitDir, common } };
  } catch {
    return undefined; // no repository here: file times only
  }
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

/** Keeps the later of an item's activities. */
function later(m: Map<string, Activity>, id: string, a: Activity): void {
  const had = m.get(id);
  // On a tie, history says more (who, which operation) than a file time.
  if (!had || Date.parse(a.time) > Date.parse(had.time) || (a.source === 'history' && Date.parse(a.time) === Date.parse(had.time))) m.set(id, a);
}

/**
 * The last commit of each file that git tracks and that has no change since: a checkout or clone
 * sets every file's mtime to now, so for a clean file its commit is when it last changed. Files
 * with local changes, untracked files and folders without git are left to their mtime.
 */
async function lastCommits(files: string[]): Promise<{ committed: Map<string, Activity>; verdicts: Map<string, GitVerdict> }> {
  const out = new Map<string, Activity>();
  const verdicts = new Map<string, GitVerdict>();
  if (!files.length || files.length > MAX_GIT_FILES) return { committed: out, verdicts };
  const byDir = new Map<string, string[]>();
  for (const f of files) {
    const d = path.dirname(f);
    (byDir.get(d) ?? byDir.set(d, []).get(d)!).push(f);
  }
  // A file's last commit, from its `git log -1` (LOG_ARGS).
  const keepLog = (f: string, log: GitResult) => {
    const [time, author] = log.stdout.trim().split('\x1f');
    if (log.code === 0 && time && Number.isFinite(Date.parse(time))) out.set(f, { time: new Date(time).toISOString(), who: author ? `${author} (git commit)` : 'git commit', source: 'file' });
  };
  // A folder's `git status` (STATUS_ARGS): each changed file's verdict kept; the clean files, whose last commit counts.
  const cleanOf = (list: string[], status: GitResult): string[] => {
    const dirty = parseStatusV2(status.stdout);
    for (const f of list) {
      const v = dirty.get(path.basename(f));
      if (v) verdicts.set(f, v);
    }
    return list.filter((f) => !dirty.has(path.basename(f)));
  };
  const groups = [...byDir].filter(([dir]) => mayBeInRepository(dir));
  const once = groups.length && files.length <= ONE_CHILD_FILES ? await askInOneChild(groups) : undefined;
  if (once) {
    for (const [dir, list] of groups) {
      const got = once.get(dir);
      if (!got || got.status.code !== 0) continue;
      for (const f of cleanOf(list, got.status)) {
        const log = got.logs.get(path.basename(f));
        if (log) keepLog(f, log);
      }
    }
    return { committed: out, verdicts };
  }
  try {
    // Each git is a process: the folders, then their files, a few at a time rather than one by one.
    await inTurns(groups, async ([dir, list]) => {
      const status = await runGit(dir, [...STATUS_ARGS, ...list.map((f) => path.basename(f))]);
      if (status.code !== 0) return;
      await inTurns(cleanOf(list, status), async (f) => keepLog(f, await runGit(dir, [...LOG_ARGS, path.basename(f)])));
    });
  } catch {
    // git missing: mtimes only
  }
  return { committed: out, verdicts };
}

/** What lastCommits asks git of a folder (its files' names follow) and of one file (its name follows). */
const STATUS_ARGS = ['--no-optional-locks', 'status', '--porcelain=v2', '-z', '--'];
const LOG_ARGS = ['log', '-1', '--format=%cI%x1f%an', '--'];

/** At most this many in-progress files are asked of git through one child (askInOneChild); more: GIT_AT_ONCE gits at a time. */
const ONE_CHILD_FILES = 8;

/** A POSIX shell word: `s` between single quotes, each of its own quotes closed, escaped and reopened. */
function shellWord(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Each folder's `git status` and each of its files' `git log -1`, the same gits with the same
 * arguments, run in turn by one POSIX shell: one child of this process instead of one per git.
 * Starting a child forks this whole process (a first `validate` of a 400-story project is ~75 MB:
 * its page tables copied, and each page it writes afterwards faults once more), and sets up its
 * pipes; a shell forking the gits costs little. Every file's log is asked, dirty or not (the
 * caller keeps the clean ones'). After each git a marker with a random token, its exit code and
 * what it was, NUL-delimited; a folder `cd` cannot enter says status 98 (no answer from git).
 * undefined on Windows (no fork there), or when the shell cannot start or its output is not read
 * whole: the caller asks git itself. `command git`: a shell function named git (bash exports them) is
 * never run in git's place.
 */
async function askInOneChild(groups: [string, string[]][]): Promise<Map<string, { status: GitResult; logs: Map<string, GitResult> }> | undefined> {
  if (process.platform === 'win32') return undefined;
  const token = `waymark-${randomHex(12)}`;
  const mark = (what: string) => `printf '\\0%s %d %s\\0' ${token} "$?" ${shellWord(what)}`;
  const script = groups
    .map(([dir, list], g) => {
      const names = list.map((f) => shellWord(path.basename(f)));
      const git = (args: readonly string[]) => `command git ${args.map(shellWord).join(' ')}`;
      const logs = names.map((n, i) => `${git(LOG_ARGS)} ${n}; ${mark(`${g} l ${i}`)}`);
      return `if cd -P -- ${shellWord(dir)}; then ${git(STATUS_ARGS)} ${names.join(' ')}; ${mark(`${g} s`)}; ${logs.join('; ')}; else (exit 98); ${mark(`${g} s`)}; fi`;
    })
    .join('\n');
  let r: GitResult;
  try {
    r = await runChild('/bin/sh', ['-c', script], { GIT_TERMINAL_PROMPT: '0' });
  } catch {
    return undefined;
  }
  if (r.code !== 0) return undefined;
  const answers = new Map<string, { status: GitResult; logs: Map<string, GitResult> }>();
  const parts = r.stdout.split(`\0${token} `);
  let expected = 0;
  for (const [, list] of groups) expected += 1 + list.length;
  if (parts.length !== expected + 1) return undefined;
  // parts[k + 1] starts with "<code> <what>\0" and then holds the next git's output.
  let text = parts[0];
  let k = 1;
  for (const [g, [dir, list]] of groups.entries()) {
    const logs = new Map<string, GitResult>();
    const take = (what: string): GitResult | undefined => {
      const m = /^(\d+) ([^\0]*)\0/.exec(parts[k]);
      if (!m || m[2] !== what) return undefined;
      const got = { stdout: text, stderr: '', code: Number(m[1]) };
      text = parts[k].slice(m[0].length);
      k++;
      return got;
    };
    const status = take(`${g} s`);
    if (!status) return undefined;
    for (let i = 0; i < list.length && status.code !== 98; i++) {
      const log = take(`${g} l ${i}`);
      if (!log) return undefined;
      logs.set(path.basename(list[i]), log);
    }
    answers.set(dir, { status, logs });
  }
  return answers;
}

/** At most this many git processes at once. */
const GIT_AT_ONCE = 4;

/** Runs `fn` over `items`, GIT_AT_ONCE at a time; the first failure is thrown once all have settled. */
async function inTurns<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(GIT_AT_ONCE, items.length) }, worker));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * False when no folder from `dir` up holds `.git` (and git is not pointed elsewhere by GIT_DIR or
 * GIT_WORK_TREE): git could only fail there, and starting it costs a process.
 */
function mayBeInRepository(dir: string): boolean {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE) return true;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return true;
    if (path.dirname(d) === d) return false;
  }
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
function placeStalled(frontier: Frontier, placed?: ReadonlySet<Problem>): void {
  const byFile = new Map<string, Problem[]>();
  for (const p of frontier.problems) {
    if (p.code !== 'work-stalled' || placed?.has(p)) continue;
    const list = byFile.get(p.file);
    if (list) list.push(p);
    else byFile.set(p.file, [p]);
  }
  if (!byFile.size) return;
  for (const e of frontier.stalled) {
    const file = e.item.file;
    const list = file ? byFile.get(file) : undefined;
    if (!file || !list) continue;
    const range =
      e.item.line !== undefined
        ? { start: { line: e.item.line, character: 0 }, end: { line: e.item.line, character: 0 } }
        : e.item.kind === 'workflow'
          ? frontmatterRange(file, ['status'])
          : undefined;
    if (!range) continue;
    for (const p of list) p.range = range;
  }
}

/** The problems of the project view (dependencies, cycles, stalled work) for one file. */
export function projectProblemsFor(view: ProjectView, file: string): Problem[] {
  return view.frontier.problems.filter((p) => p.file === file);
}

/**
 * One stat per input the project view reads besides the states and sprints, for a view kept
 * across processes (`checkAnswer.ts`): the events log, the lease and mode folders, git's HEAD,
 * refs and index (when git is asked) and the history folder; while that folder exists, also the
 * given history files (`historyFiles`: those of the in-progress files).
 */
export function projectInputsStamp(root: string, historyDir: string, historyFiles: readonly string[], git: boolean): string {
  const base = path.resolve(root, historyDir);
  const parts = [stampOf(protocolPaths(root).eventsFile), stampAll(coordinationFolders(root)), git ? gitStamp(root, {}) : '', stampOf(base)];
  // Without the folder the view reads no history at all (and making it changes its stamp).
  if (parts[3] !== '-') for (const f of historyFiles) parts.push(stampOf(f));
  return parts.join('\n');
}

/** The latest modification or change time (ms) among the stamps of a `projectInputsStamp`; -Infinity when none exists. */
export function newestInStamp(stamp: string): number {
  let newest = -Infinity;
  for (const m of stamp.matchAll(/\d+:(\d+(?:\.\d+)?):(\d+(?:\.\d+)?):\d+/g)) newest = Math.max(newest, Number(m[1]), Number(m[2]));
  return newest;
}

/** The history files the project view reads for these in-progress files. */
export function historyFilesOf(root: string, historyDir: string, working: readonly string[]): string[] {
  return working.map((f) => historyPathFor(root, f, historyDir));
}

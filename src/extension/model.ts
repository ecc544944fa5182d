// The extension's one model: it owns the state core (made again when the folders, the trust or
// the settings that shape it change), the leases on screen and the settings, and fires ONE change
// event that every surface listens to. It renders nothing and keeps no state the core knows:
// stale files, problems and resume answers all come from the core.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, createStateCore, errorMessage, standingKey, workflowStanding } from '../core/index';
import type { Problem, ProjectView, ResumeReport, StateCore, WorkflowStanding, WorkflowState, WriteGuard } from '../core/index';
import { CONTEXT } from './constants';
import { Disposable } from './disposable';
import { LeaseMonitor, type LeaseHolder } from './leases';
import { treeStatus } from './treeStatus';
import { ProjectMonitor } from './projectMonitor';
import { WorktreeMonitor } from './worktrees';
import { CORE_SETTING_KEYS, changedSettings, readSettings, type Settings } from './settings';

/**
 * What changed: workflow states (scan, reload, write), the folders, the leases, the settings, the
 * trust, the project view (dependencies, frontier, stalled work), recomputed after any of those, or
 * what other git worktrees have ahead of this checkout.
 */
export type ModelChangeKind = 'states' | 'roots' | 'leases' | 'settings' | 'trust' | 'project' | 'worktrees';

export interface ModelChange {
  readonly what: ModelChangeKind;
  /** Files whose state changed, when known (a scan or a new core: undefined, meaning any). */
  readonly files?: readonly string[];
}

/** One scan's outcome, for the log and the test API. */
export interface ScanOutcome {
  readonly error?: string;
  /** True when the scan belonged to a new core (folders, trust or settings changed). */
  readonly newCore: boolean;
}

/** The file-scheme workspace folders, in workspace order. */
function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/**
 * A scan gives the extension host's thread back at least this often. Every message between VS Code
 * and this host (a view asking for its rows, our answer) is compressed on a pool thread and needs a
 * turn of the host's event loop per message and direction (the remote socket's permessage-deflate):
 * a scan that ran 500 files (100-300 ms) between turns held VS Code's first request for the
 * Workflows rows until it ended (measured: asked 0.5-3 s after the scan ended, never during it).
 */
const SCAN_SLICE_MS = 10;

/**
 * The first scan of a folder of more than 100 files lists what it has read after this many files
 * (not 100): about a screenful of rows, and the first files are the slowest to read (the parser's
 * code is still cold: 2-3 ms a file on a loaded machine).
 */
const FIRST_LIST_FILES = 30;

/**
 * When the first scan ends before the Workflows view's first rows are made (a small workspace, or
 * VS Code still busy starting), the work that can wait (`firstRowsShown`) waits for the rows at
 * most this much longer: it would take the host's thread while VS Code asks for them.
 */
const ROWS_AFTER_SCAN_MS = 2000;

/** How often the first scan's progress (files read) is shown again while it runs. */
const PROGRESS_MS = 500;
/**
 * The list read so far is shown again during the first scan at most this often, and only once it
 * has doubled: each time, VS Code asks for every row listed (~60 us each in this host, 0.3 s at
 * 5,000 rows) on the thread the scan shares; doubling keeps all of them together within the cost
 * of the one complete list at the end (every 500 ms, as before, cost that every half second).
 */
const PREVIEW_MS = 2000;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class ExtensionModel extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<ModelChange>());
  /** The one change event: trees, status bar, decorations, diagnostics, lenses and memory listen here. */
  readonly onDidChange = this.changed.event;
  private readonly scanned = this.register(new vscode.EventEmitter<ScanOutcome>());
  readonly onDidScan = this.scanned.event;
  private readonly previewed = this.register(new vscode.EventEmitter<{ rows: boolean }>());
  /**
   * While the first scan runs: it read more files (`scanProgress`) and, with `rows`, the list read
   * so far changed (`listedStates`; the Workflows view lists them).
   */
  readonly onDidPreview = this.previewed.event;
  /** The workflows the first scan has read so far, until it ends (then the core's states), and how far it got. */
  private preview?: { states: WorkflowState[]; at: number; progressAt: number; done: number; listed: number; workflows: number };
  /** Change events the current core sent (a scan that sent one needs no second 'states' event). */
  private announced = 0;
  /** Surfaces that hold the first scan until VS Code has drawn what it listed (`holdFirstScan`). */
  private readonly holds = new Set<() => Promise<void> | undefined>();
  private startSettled!: () => void;
  private readonly started = new Promise<void>((res) => (this.startSettled = res));
  /** Says whether a surface still waits for its first rows (`waitForFirstRows`). */
  private rowsPending?: () => boolean;
  private rowsTimer?: NodeJS.Timeout;
  /** A scan has ended: the states are read (false while the first scan runs or before it starts). */
  private scanEnded = false;

  private current: StateCore;
  private currentSubscription?: { dispose(): void };
  private currentRoots: string[] = [];
  /** Bumped when the core is replaced; a scan that started on an older core is discarded. */
  private generation = 0;
  private reconfiguring: Promise<void> = Promise.resolve();
  private firstScan?: Promise<void>;
  /** Files the current core reported changed while a replacement was being scanned. */
  private touchedWhileScanning?: Set<string>;
  private trustOverride: boolean | undefined;
  private settingsNow: Settings = readSettings();
  /** Each state's standing and the sprints it was decided with (a state object is one file's one read). */
  private readonly standings = new WeakMap<WorkflowState, { key: string; standing: WorkflowStanding | undefined }>();
  /** Each folder's `standingKey` for the project view it was computed from. */
  private standingKeys?: { view: ProjectView | undefined; keys: Map<string, string> };
  /** Lookups over the current states, built once per change (views ask per node). */
  private index?: { states: WorkflowState[]; problems: Problem[]; byFile: Map<string, Problem[]>; idCounts: Map<string, number> };

  readonly leases: LeaseMonitor;
  /** What other git worktrees have ahead of this checkout (markers in the trees). */
  readonly worktrees: WorktreeMonitor;
  /** The project view (registry, frontier, stalled work) over the current states. */
  readonly project: ProjectMonitor;

  constructor(readonly log: vscode.LogOutputChannel) {
    super();
    const roots = workspaceRoots();
    this.current = this.makeCore(roots);
    this.adopt(this.current, roots);
    this.project = this.register(
      new ProjectMonitor({ core: () => this.current, roots: () => this.currentRoots, states: () => this.states(), trusted: () => this.canWrite, ready: () => this.ready(), log }, () => this.fire({ what: 'project' })),
    );
    this.leases = this.register(new LeaseMonitor({ core: () => this.current, roots: () => this.currentRoots, actor: () => this.settingsNow.actor, log }, () => this.fire({ what: 'leases' })));
    this.leases.sync();
    // Not in Restricted Mode: reading other worktrees runs git in the repository and refreshes their scan caches.
    this.worktrees = this.register(new WorktreeMonitor({ roots: () => this.currentRoots, enabled: () => this.settingsNow.worktreesEnabled && this.canWrite, log }, () => this.fire({ what: 'worktrees' })));
    // Its first read waits for the first rows (firstRowsShown): spawning git from this host (a fork
    // of a large process) and scanning the other worktrees took the host's thread at activation,
    // before VS Code could ask for the rows; the markers follow a moment later.
    void this.started.then(() => this.worktrees.sync());
    this.register({ dispose: () => (this.currentSubscription?.dispose(), this.current.dispose(), clearTimeout(this.rowsTimer)) });
    this.register(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.updateContext();
        this.worktrees.sync();
        this.fire({ what: 'trust' });
        // Settings-based globs and the scan index apply only in a trusted workspace.
        void this.reconfigure('workspace trusted', true);
      }),
    );
    // Folders can arrive after activation (VS Code for the Web reads a remote .code-workspace
    // file only once its file system is up) and users add and remove folders at any time.
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.reconfigure('workspace folders changed')));
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('waymark')) return;
        const next = readSettings();
        const keys = changedSettings(this.settingsNow, next);
        this.settingsNow = next;
        if (!keys.length) return;
        this.log.info(`[settings] changed: ${keys.join(', ')}`);
        this.fire({ what: 'settings' });
        if (keys.includes('worktreesEnabled')) this.worktrees.sync();
        if (keys.some((k) => CORE_SETTING_KEYS.includes(k))) void this.reconfigure('settings changed', true);
      }),
    );
    this.updateContext();
  }

  /** The settings as read last (re-read on every configuration change). */
  get settings(): Settings {
    return this.settingsNow;
  }

  /** The current state core; replaced behind this getter when the folders or settings change. */
  get core(): StateCore {
    return this.current;
  }

  /** Absolute paths of the workspace folders the core reads (file scheme only). */
  get roots(): string[] {
    return this.currentRoots;
  }

  /** Writes (and opening the memory store) are allowed only in a trusted workspace. */
  get canWrite(): boolean {
    return this.trustOverride ?? vscode.workspace.isTrusted;
  }

  /**
   * Behave as if the workspace were (un)trusted; undefined restores the real state. Only the test
   * API calls it: code-server runs trusted, and the refusal path must be the real one.
   */
  overrideTrust(trusted: boolean | undefined): void {
    this.trustOverride = trusted;
    this.updateContext();
    this.worktrees.sync();
    this.fire({ what: 'trust' });
  }

  states(): WorkflowState[] {
    return this.lookups().states;
  }

  /**
   * What the Workflows view lists: the states, or while the first scan runs the workflows it has
   * read so far (not yet checked across files: every other surface waits for the scan's end).
   */
  listedStates(): WorkflowState[] {
    return this.preview?.states ?? this.states();
  }

  /**
   * Lets a surface hold the first scan while VS Code draws what it listed: `hold` is asked each
   * time the scan gives the thread back, and a promise it returns keeps the scan waiting until it
   * settles (it must settle: bound it). VS Code's requests and the drawing of their answers need
   * the CPU the scan (and its read-ahead thread) would take: on two cores, the first rows of a
   * 10,000-file workspace came a second later without the hold.
   */
  holdFirstScan(hold: () => Promise<void> | undefined): vscode.Disposable {
    this.holds.add(hold);
    return { dispose: () => this.holds.delete(hold) };
  }

  private heldBy(): Promise<void> | undefined {
    for (const hold of this.holds) {
      const p = hold();
      if (p) return p;
    }
    return undefined;
  }

  /**
   * Settles once the first rows are drawn (`firstRowsDrawn`, the Workflows view) or the first scan
   * ended: work that can wait (the sprint's and the ticket tree's first reads) starts then, so it
   * takes neither the host's thread nor the CPU while VS Code starts and asks for the first rows.
   */
  firstRowsShown(): Promise<void> {
    return this.started;
  }

  /** The Workflows view's first rows are drawn, or will not be waited for. */
  firstRowsDrawn(): void {
    clearTimeout(this.rowsTimer);
    this.startSettled();
  }

  /**
   * `pending` says whether the Workflows view still waits for VS Code to ask for its first rows:
   * when the first scan ends meanwhile, the work that can wait waits for them (ROWS_AFTER_SCAN_MS
   * at most), not only for the scan.
   */
  waitForFirstRows(pending: () => boolean): vscode.Disposable {
    this.rowsPending = pending;
    return { dispose: () => this.rowsPending === pending && (this.rowsPending = undefined) };
  }

  /** True until a scan has ended (the first one running, or not yet started): the view's first answer can wait for its listing. */
  get firstScanRunning(): boolean {
    return !this.scanEnded;
  }

  /** While the first scan lists what it has read: the files read and listed in the folder it is in, the workflows read. */
  scanProgress(): { done: number; listed: number; workflows: number } | undefined {
    return this.preview && { done: this.preview.done, listed: this.preview.listed, workflows: this.preview.workflows };
  }

  /** The state of a workflow file, stale (last good) when its text does not parse now. */
  get(file: string): WorkflowState | undefined {
    return this.current.get(file);
  }

  problems(): Problem[] {
    return this.lookups().problems;
  }

  problemsFor(file: string): Problem[] {
    return this.lookups().byFile.get(file) ?? [];
  }

  /**
   * Where the project reads a workflow file whose own status says otherwise (set aside in an
   * `archive/` folder or under a dated archived name; a spec of an epic its ledger marks done): the
   * core's one decision (`workflowStanding`, the board's), with the sprints the project view last
   * read. Before the first view only the path rules apply; the epic's follows with the view.
   */
  standing(state: WorkflowState): WorkflowStanding | undefined {
    const key = this.standingKeyOf(state.root);
    const had = this.standings.get(state);
    if (had && had.key === key) return had.standing;
    const standing = workflowStanding(state, this.project.current()?.sprints.get(state.root));
    this.standings.set(state, { key, standing });
    return standing;
  }

  /** What `standing` reads of a folder's sprints (`standingKey`), once per project view. */
  private standingKeyOf(root: string): string {
    const view = this.project.current();
    const held = this.standingKeys && this.standingKeys.view === view ? this.standingKeys : (this.standingKeys = { view, keys: new Map<string, string>() });
    let key = held.keys.get(root);
    if (key === undefined) held.keys.set(root, (key = standingKey(view?.sprints.get(root))));
    return key;
  }

  /** The status a surface shows and groups a workflow by: its standing's, else its own (`unknown` when none). */
  shownStatus(state: WorkflowState): string {
    return treeStatus(state, this.standing(state)).status;
  }

  /**
   * What `standing` reads besides the state, per folder: a surface keyed on it groups again when it
   * changes (the same ledgers read again give the same keys).
   */
  standingInputs(): readonly string[] {
    return this.currentRoots.map((r) => this.standingKeyOf(r));
  }

  /** The name a workflow goes by on screen: its id, or its file name when several files share the id. */
  displayName(state: WorkflowState): string {
    if ((this.lookups().idCounts.get(state.workflow) ?? 0) < 2) return state.workflow;
    return path.basename(state.file).replace(/\.(md|markdown)$/i, '');
  }

  rootFor(file: string): string | undefined {
    let best: string | undefined;
    for (const r of this.currentRoots) if ((file === r || file.startsWith(r + path.sep)) && (!best || r.length > best.length)) best = r;
    return best;
  }

  relative(file: string): string {
    const root = this.rootFor(file);
    return root ? path.relative(root, file) : file;
  }

  /** Leases covering `file`, live ones first. */
  leaseHolders(file: string): LeaseHolder[] {
    return this.leases.holders(file);
  }

  /**
   * Where to continue `file`, from all three tiers (frontmatter, checkpoint, orchestrator state):
   * the answer `waymark resume FILE` gives. No side effects (the orchestrator TTL is not run).
   */
  async resume(file: string): Promise<ResumeReport> {
    const root = this.get(file)?.root ?? this.rootFor(file);
    if (!root) throw new WaymarkError('usage', `${file} is not in a folder of this workspace.`, file);
    return this.current.protocol.resume(root, file, { expire: false });
  }

  /** Runs the first scan once, with progress; later calls return the same promise. */
  ready(): Promise<void> {
    this.firstScan ??= this.rescan(true);
    return this.firstScan;
  }

  async rescan(withProgress = false): Promise<void> {
    const started = Date.now();
    const announced = this.announced;
    void vscode.commands.executeCommand('setContext', CONTEXT.scanning, true);
    let error: string | undefined;
    const work = async () => {
      const generation = this.generation;
      const core = this.current;
      // The first scan of a large tree takes seconds: the view lists what it has read meanwhile.
      const first = withProgress && !core.list().length;
      const result = await core.scan(first ? { onProgress: (read, done, listed) => this.showPreview(read, done, listed, generation), firstProgressFiles: FIRST_LIST_FILES, hold: () => this.heldBy() } : undefined);
      if (generation !== this.generation) return; // the core was replaced meanwhile; its own scan follows
      this.log.info(`[scan] ${result.workflows.length} workflow(s), ${result.files} file(s), ${core.problems().length} problem(s) in ${Date.now() - started} ms`);
      for (const s of result.skipped) this.log.warn(`[scan] skipped ${s.file}: ${s.reason}${s.detail ? ` (${s.detail})` : ''}`);
    };
    try {
      if (withProgress) await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Waymark: scanning workflows' }, work);
      else await work();
    } catch (e) {
      error = errorMessage(e);
      throw e;
    } finally {
      this.scanEnded = true;
      if (this.rowsPending?.()) this.rowsTimer ??= setTimeout(() => this.startSettled(), ROWS_AFTER_SCAN_MS);
      else this.startSettled();
      void vscode.commands.executeCommand('setContext', CONTEXT.scanning, false);
      void vscode.commands.executeCommand('setContext', CONTEXT.scanned, true);
      this.preview = undefined;
      this.index = undefined;
      this.updateContext();
      this.scanned.fire({ error, newCore: false });
      // The core announced what the scan changed already (at 10,000 files every surface redraws).
      if (error || this.announced === announced) this.fire({ what: 'states' });
    }
  }

  /** The first batch read is listed at once, later ones when doubled (at most every PREVIEW_MS); the count of files read every PROGRESS_MS. */
  private showPreview(read: readonly WorkflowState[], done: number, listed: number, generation: number): void {
    if (generation !== this.generation || this.isDisposed) return;
    const now = performance.now();
    const p = this.preview;
    if (!p || (now - p.at >= PREVIEW_MS && read.length >= 2 * p.states.length)) {
      this.preview = { states: read.slice(), at: now, progressAt: now, done, listed, workflows: read.length };
      this.previewed.fire({ rows: true });
    } else if (now - p.progressAt >= PROGRESS_MS) {
      Object.assign(p, { progressAt: now, done, listed, workflows: read.length });
      this.previewed.fire({ rows: false });
    }
  }

  /**
   * Makes a new core for the current folders, trust and settings, scans it, and only then puts
   * it in place, so the views keep showing the old model meanwhile (no empty flash). Without
   * `force` nothing happens when the folders are unchanged. Calls are serialized. `beforeSwap`
   * runs once the new core has scanned, before it replaces the old one (the tests use it to
   * write through the old core then, as a command running meanwhile would).
   */
  reconfigure(reason: string, force = false, beforeSwap?: () => Promise<void>): Promise<void> {
    this.reconfiguring = this.reconfiguring.then(async () => {
      if (this.isDisposed) return;
      const roots = workspaceRoots();
      if (!force && sameList(roots, this.currentRoots)) return;
      const foldersChanged = !sameList(roots, this.currentRoots);
      this.log.info(`[roots] ${reason}: ${roots.length ? roots.join(', ') : '(no folder)'}`);
      const started = Date.now();
      const next = this.makeCore(roots);
      const touched = (this.touchedWhileScanning = new Set<string>());
      // What the current core holds before the new one reads the disk: a write through it that
      // sends no event (the ticket mirror) must reach the new core too (see `changedSince`).
      const before = this.current.list();
      let error: string | undefined;
      void vscode.commands.executeCommand('setContext', CONTEXT.scanning, true);
      try {
        const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Waymark: scanning workflows' }, () => next.scan());
        this.log.info(`[scan] ${result.workflows.length} workflow(s), ${result.files} file(s), ${next.problems().length} problem(s) in ${Date.now() - started} ms`);
        await beforeSwap?.();
      } catch (e) {
        error = errorMessage(e);
        this.log.error(`[scan] scan after ${reason} failed: ${error}`);
      } finally {
        this.touchedWhileScanning = undefined;
        void vscode.commands.executeCommand('setContext', CONTEXT.scanning, false);
      }
      if (this.isDisposed) {
        next.dispose();
        return;
      }
      const previous = this.current;
      this.current = next;
      this.adopt(next, roots);
      // Wait for the old core's memory databases to close before the new core may open them.
      await previous.close().catch((e: unknown) => this.log.warn(`[roots] closing the previous core: ${errorMessage(e)}`));
      // Writes and watcher reloads that went to the old core while the new one scanned.
      for (const file of changedSince(previous, before)) touched.add(file);
      await this.reread(next, touched);
      this.updateContext();
      this.scanned.fire({ error, newCore: true });
      if (foldersChanged) {
        this.leases.sync();
        this.worktrees.sync();
        this.fire({ what: 'roots' });
      }
      this.fire({ what: 'states' });
    });
    return this.reconfiguring;
  }

  /**
   * Runs `fn` with the current core. When a new core replaced it meanwhile (a config or folder
   * change during a long run), what `fn` wrote through the old one is read again into the new
   * one, so the model shows it at once and not only when the watcher's event arrives.
   */
  async withCore<T>(fn: (core: StateCore) => Promise<T>): Promise<T> {
    const core = this.current;
    const before = core.list();
    try {
      return await fn(core);
    } finally {
      if (core !== this.current && !this.isDisposed) await this.reread(this.current, changedSince(core, before));
    }
  }

  /** Reads `files` again into `core` (a file gone is forgotten). */
  private async reread(core: StateCore, files: Iterable<string>): Promise<void> {
    for (const file of files) {
      if (!this.rootFor(file)) continue;
      try {
        if (fs.existsSync(file)) await core.reload(file);
        else core.remove(file);
      } catch (e) {
        this.log.warn(`[roots] could not re-read ${file}: ${errorMessage(e)}`);
      }
    }
  }

  private makeCore(roots: string[]): StateCore {
    const s = this.settingsNow;
    const trusted = this.canWrite;
    const trustGuard: WriteGuard = (ctx) => {
      if (!this.canWrite) throw untrustedError(ctx.operation, ctx.file);
    };
    // The same write path as the CLI: orchestrator leases refuse our writes too, every write
    // lands in the events log and (when enabled) feeds the memory tiers.
    return createStateCore({
      roots,
      logger: this.log,
      actor: s.actor,
      configOverrides: s.workflowGlobs.length && trusted ? { include: [...s.workflowGlobs] } : undefined,
      guards: [trustGuard],
      memory: { consolidateOnWrite: s.memoryConsolidateOnWrite },
      origin: 'vscode',
      // An untrusted workspace changes no file, not even the scan's cache.
      scanIndex: trusted ? undefined : false,
      scanSliceMs: SCAN_SLICE_MS,
    });
  }

  /** Listens to `core` as the current one. */
  private adopt(core: StateCore, roots: string[]): void {
    this.currentSubscription?.dispose();
    this.currentRoots = roots;
    this.generation++;
    this.index = undefined;
    this.currentSubscription = core.onDidChange((e) => {
      for (const ch of e.changes) this.touchedWhileScanning?.add(ch.file);
      this.preview = undefined;
      this.index = undefined;
      this.announced++;
      this.fire({ what: 'states', files: e.changes.map((c) => c.file) });
    });
  }

  private fire(change: ModelChange): void {
    if (this.isDisposed) return;
    if (change.what === 'states') {
      this.updateContext();
      this.worktrees?.stateChanged();
    }
    if (change.what !== 'project' && change.what !== 'worktrees') this.project?.invalidate();
    this.changed.fire(change);
  }

  private lookups() {
    if (this.index) return this.index;
    const states = this.current.list();
    const problems = this.current.problems();
    const byFile = new Map<string, Problem[]>();
    for (const p of problems) {
      const list = byFile.get(p.file);
      if (list) list.push(p);
      else byFile.set(p.file, [p]);
    }
    const idCounts = new Map<string, number>();
    for (const s of states) idCounts.set(s.workflow, (idCounts.get(s.workflow) ?? 0) + 1);
    this.index = { states, problems, byFile, idCounts };
    return this.index;
  }

  private updateContext(): void {
    void vscode.commands.executeCommand('setContext', CONTEXT.active, true);
    void vscode.commands.executeCommand('setContext', CONTEXT.canWrite, this.canWrite);
    void vscode.commands.executeCommand('setContext', CONTEXT.hasWorkflows, this.current.list().length > 0);
  }
}

/**
 * Files whose state in `core` differs from `before` (a list it gave earlier): read, written or
 * removed since. Compared by content, not identity: a rescan that re-read every file unchanged
 * names none. The ticket mirror is written without a change event, so events alone miss it.
 */
function changedSince(core: StateCore, before: readonly WorkflowState[]): string[] {
  const was = new Map(before.map((s) => [s.file, s]));
  const out: string[] = [];
  for (const s of core.list()) {
    const b = was.get(s.file);
    was.delete(s.file);
    if (b === s) continue;
    if (!b || b.contentHash !== s.contentHash || b.stateHash !== s.stateHash || b.stale !== s.stale || b.staleReason !== s.staleReason) out.push(s.file);
  }
  out.push(...was.keys());
  return out;
}

/** The refusal of a write in Restricted Mode: an explanation, not a failure. */
export function untrustedError(action: string, file?: string, what = 'change workflow state'): WaymarkError {
  return new WaymarkError(
    'unavailable',
    `${action} is disabled because this workspace is not trusted. Waymark only reads in Restricted Mode; trust the folder (Manage Workspace Trust) to ${what}.`,
    file,
    { untrusted: true },
  );
}

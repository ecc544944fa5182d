// The Workflows view: (folder →) status group → workflow → steps. A workflow is grouped where the
// project reads it (the core's standing: a spec kept in `archive/` is Archived, a spec of a finished
// epic Completed, whatever status the file kept), as the board shows it. A workflow someone else holds
// an orchestrator lease on shows a lock and the holder (Take over / Release in its menu); one
// another git worktree has ahead of this checkout says so ("2 step(s) done in feat/x").
// Built for 10,000 workflows: the groups are sorted once per change, not per node; a workflow's
// node is one object for as long as its file is listed, so a change that moves no workflow
// between groups or within one refreshes only the changed rows; tooltips are made on hover
// (resolveTreeItem); a group shows its 200 most recent rows and a "Show more" row; during the
// first scan the view lists the workflows read so far, and the scan waits while VS Code asks for
// and draws the first of them (src/extension/README.md, "The first tree").
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError } from '../core/index';
import type { StepDef, WorkflowState } from '../core/index';
import { COMMANDS, VIEWS } from './constants';
import { Disposable } from './disposable';
import { leaseMarkdown } from './leases';
import { markShort, markSentence } from './worktrees';
import type { ExtensionModel } from './model';
import { STATUS_LABELS, STATUS_ORDER, activeStep, escapeMd, gateFor, gateLabel, progress, statusIcon, statusKey, stepIcon, stepKind, stepTitle, thousands } from './presentation';

export type WorkflowsNode =
  | { kind: 'folder'; root: string }
  | { kind: 'group'; root?: string; status: string }
  | { kind: 'workflow'; state: WorkflowState }
  | { kind: 'step'; state: WorkflowState; step: StepDef }
  /** The last row of a group longer than the rows shown: "Show 200 more". */
  | { kind: 'more'; root?: string; status: string; hidden: number };

type WorkflowNode = Extract<WorkflowsNode, { kind: 'workflow' }>;

/** More changed files than this: the whole view is refreshed (a scan, a checkout). */
const ROW_REFRESH_LIMIT = 50;

/**
 * The first scan waits (once) from when it lists its first workflows until VS Code has asked this
 * view for their rows, and FIRST_ROWS_GRACE_MS more while the answer is sent and drawn: at most
 * FIRST_ROWS_HOLD_MS when the view is visible (or made visible while the scan waits, from then),
 * UNSEEN_HOLD_MS when it is not (VS Code is still starting: the other extensions' activation and
 * the workbench's requests get the host's thread and the CPU meanwhile).
 */
const FIRST_ROWS_HOLD_MS = 1000;
const UNSEEN_HOLD_MS = 1000;
const FIRST_ROWS_GRACE_MS = 50;
/**
 * VS Code asks for an unfolded group's rows once the top level's answer has reached it: one round
 * trip through the host's thread, which at start runs the other extensions' activation too (git,
 * JSON, TypeScript, Emmet: 0.3 s quiet, 0.5-2 s at load 7-9). Until then the scan waits and a
 * whole-view refresh waits (see `refresh`); when no rows were asked this long after the top level
 * (a group the user folded), neither waits any more.
 */
const ROWS_AFTER_TOP_MS = 2000;
/**
 * VS Code asks for the top level before the first scan has listed anything: the answer waits for
 * the first listing (or the scan's end) at most this long. Answering "nothing yet" and refreshing
 * when the listing came cost a whole round trip more (top level, then group rows), 2 s under load.
 */
const FIRST_LIST_WAIT_MS = 1500;

/**
 * A group shows this many workflows at first, and this many more each time its "Show more" row is
 * clicked: a person reads the most recent ones, and VS Code draws a group of 8,000 rows (all of
 * them sent and built in one request) several times slower than the page a screen shows.
 */
const GROUP_PAGE = 200;

/** Groups shown folded at first (VS Code asks for their rows only when a person unfolds them). */
function foldedGroup(status: string): boolean {
  return status === 'completed' || status === 'archived';
}

/** The listed states sorted into groups, once per change: by `root\0status` (root '' in a single folder). */
interface Grouping {
  from: readonly WorkflowState[];
  multi: boolean;
  /** The standing's inputs it was grouped with (`ExtensionModel.standingInputs`). */
  standing: readonly unknown[];
  groups: Map<string, WorkflowState[]>;
  /** Each file's group key. */
  groupOf: Map<string, string>;
  active: number;
}

export class WorkflowsTree extends Disposable implements vscode.TreeDataProvider<WorkflowsNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<WorkflowsNode | WorkflowsNode[] | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<WorkflowsNode>;
  private grouping?: Grouping;
  /** One node per listed workflow file, kept while it is listed (VS Code refreshes a row by its element). */
  private readonly nodes = new Map<string, WorkflowNode>();
  /** When the first workflow row was made (`performance.now()`; the bench reads it). */
  firstRowAt?: number;
  /**
   * When (`performance.now()`) the view was first visible, the first scan first listed what it had
   * read, VS Code first asked for its top level and for a group's rows once workflows were listed,
   * and the first scan was held for them (the bench reads them; the log says them once the first rows are made).
   */
  readonly firstAsked: { visible?: number; listed?: number; top?: number; rows?: number; held?: number } = {};
  private holding?: { promise: Promise<void>; release: () => void; timer?: NodeJS.Timeout; seen: boolean };
  /** The scan no longer waits for the first rows (they were drawn, or the wait while visible ran out). */
  private holdOver = false;
  /** The wait while the view was not visible ran out (the view can still hold the scan once it is visible). */
  private unseenOver = false;
  /** VS Code has asked for the top level (before, it holds nothing of this view to refresh). */
  private topAsked = false;
  /** How many times VS Code asked for the top level before the first rows were made (the log says it: 1 is one round trip). */
  private topsBeforeRows = 0;
  /** A whole-view refresh is owed, held back while VS Code fetches the first rows (`refresh`). */
  private refreshOwed = false;
  /** The first rows' exchange is over (rows asked, or ROWS_AFTER_TOP_MS after the top level without). */
  private exchangeOver = false;
  private exchangeTimer?: NodeJS.Timeout;
  /** A top-level answer waiting for the first scan's first listing (`getChildren`). */
  private pendingTop?: { promise: Promise<void>; release: () => void; timer: NodeJS.Timeout };
  /** How many rows each group (by its key) shows, when more than GROUP_PAGE: kept while the view lives. */
  private readonly shown = new Map<string, number>();

  /** `activatedAt`: when activate() began (`performance.now()`), the origin of the first rows' milestones in the log. */
  constructor(
    private readonly c: ExtensionModel,
    private readonly activatedAt = performance.now(),
  ) {
    super();
    this.view = this.register(vscode.window.createTreeView(VIEWS.workflows, { treeDataProvider: this, showCollapseAll: true }));
    // The project view (dependencies, stalled work) is not shown here: its recomputations change no
    // row, unless the sprints it read moved a workflow's standing (an epic finished or reopened).
    this.register(c.onDidChange((e) => (e.what === 'project' ? this.standingChanged() : e.what !== 'settings' && e.what !== 'trust' && this.refresh(e.what === 'states' ? e.files : undefined))));
    this.register(
      c.onDidPreview((e) => {
        if (!e.rows) return this.showProgress();
        this.firstAsked.listed ??= performance.now();
        this.refresh();
      }),
    );
    if (this.view.visible) this.firstAsked.visible = performance.now();
    this.register(
      this.view.onDidChangeVisibility((e) => {
        if (!e.visible || this.firstAsked.visible !== undefined) return;
        this.firstAsked.visible = performance.now();
        // Made visible while the scan waits unseen: it waits for the rows now, as long as a visible view.
        if (this.holding && !this.holding.seen) {
          this.holding.seen = true;
          this.holdUntil(FIRST_ROWS_HOLD_MS);
        }
      }),
    );
    this.register(c.holdFirstScan(() => this.holdForFirstRows()));
    this.register(c.waitForFirstRows(() => this.view.visible && this.firstRowAt === undefined && !this.holdOver && this.c.listedStates().length > 0));
    this.register({ dispose: () => (this.endHold(0, false), this.answerTop(), clearTimeout(this.exchangeTimer)) });
  }

  /**
   * Until VS Code has drawn a workflow row, the first scan waits after it listed some (bounded:
   * once while the view is not visible, once while it is): what a person looks at first is drawn
   * before the rest of the files are read.
   */
  private holdForFirstRows(): Promise<void> | undefined {
    if (this.holdOver || this.firstRowAt !== undefined || !this.c.listedStates().length) return undefined;
    if (!this.holding) {
      const seen = this.view.visible;
      if (!seen && this.unseenOver) return undefined;
      let release!: () => void;
      const promise = new Promise<void>((res) => (release = res));
      this.holding = { promise, release, seen };
      this.firstAsked.held ??= performance.now();
      this.holdUntil(seen ? FIRST_ROWS_HOLD_MS : UNSEEN_HOLD_MS);
    }
    return this.holding.promise;
  }

  /** The scan waits at most `ms` more (from now). */
  private holdUntil(ms: number): void {
    const h = this.holding;
    if (!h || this.holdOver) return;
    clearTimeout(h.timer);
    h.timer = setTimeout(() => {
      if (h.seen) return this.endHold(0, false);
      // Still not visible: the scan goes on, and waits again (once) if the view is made visible before its first rows.
      this.unseenOver = true;
      this.holding = undefined;
      h.release();
    }, ms);
  }

  /**
   * The first rows were asked for (or will not be), or the wait for them ran out (`drawn` false:
   * the work that waits for the first rows then waits for the scan's end): the held scan goes on
   * `afterMs` later.
   */
  private endHold(afterMs: number, drawn = true): void {
    if (this.holdOver) return;
    this.holdOver = true;
    if (drawn) setTimeout(() => this.c.firstRowsDrawn(), afterMs);
    this.endExchange(afterMs);
    const h = this.holding;
    if (!h) return;
    clearTimeout(h.timer);
    setTimeout(h.release, afterMs);
  }

  /**
   * The first rows' exchange ends `afterMs` from now (once its answer has left): a refresh held back
   * meanwhile is sent then.
   */
  private endExchange(afterMs: number): void {
    if (this.exchangeOver) return;
    this.exchangeOver = true;
    clearTimeout(this.exchangeTimer);
    setTimeout(() => {
      if (!this.refreshOwed || this.isDisposed) return;
      this.refreshOwed = false;
      this.emitter.fire(undefined);
    }, afterMs);
  }

  /** Settles when the first scan has listed workflows or ended, or FIRST_LIST_WAIT_MS after the first call. */
  private afterFirstListing(): Promise<void> {
    if (!this.pendingTop) {
      let release!: () => void;
      const promise = new Promise<void>((res) => (release = res));
      this.pendingTop = { promise, release, timer: setTimeout(() => this.answerTop(), FIRST_LIST_WAIT_MS) };
    }
    return this.pendingTop.promise;
  }

  /** The waiting top-level request (if any) is answered with what is listed now. */
  private answerTop(): void {
    const p = this.pendingTop;
    if (!p) return;
    this.pendingTop = undefined;
    clearTimeout(p.timer);
    p.release();
  }

  /** The groups VS Code is given, when workflows are listed: none unfolded means no row will be asked for. */
  private answerGroups(groups: WorkflowsNode[]): WorkflowsNode[] {
    if (!this.c.listedStates().length) return groups;
    if (this.firstAsked.top === undefined) {
      this.firstAsked.top = performance.now();
      if (groups.some((g) => g.kind === 'group' && !foldedGroup(g.status))) {
        this.holdUntil(ROWS_AFTER_TOP_MS);
        if (!this.exchangeOver) this.exchangeTimer = setTimeout(() => this.endExchange(0), ROWS_AFTER_TOP_MS);
      } else this.endHold(FIRST_ROWS_GRACE_MS);
    }
    return groups;
  }

  /** While the first scan runs, the view says so: its rows are the workflows read so far. */
  private showProgress(): void {
    const p = this.c.scanProgress();
    const files = this.c.roots.length === 1 && p ? ` (${thousands(p.done)} of ${thousands(p.listed)} files)` : '';
    const message = p ? `Scanning… ${thousands(p.workflows)} workflows read so far${files}; the list is complete when the scan ends.` : undefined;
    if (this.view.message !== message) this.view.message = message;
  }

  /**
   * Shows the model's states again. With `files` (the states that changed), when none of them
   * joined, left or moved within a group and none changed what other rows show (its id, its
   * delegation), only their rows are refreshed.
   */
  refresh(files?: readonly string[]): void {
    this.showProgress();
    const before = this.grouping;
    const after = this.group();
    this.view.badge = after.active ? { value: after.active, tooltip: `${after.active} workflow(s) in progress or blocked` } : undefined;
    // VS Code's top-level request is still open: its answer is this listing. A refresh now would
    // make VS Code drop that answer (the host cancels what it is fetching) and ask again.
    if (this.pendingTop && (this.c.listedStates().length || !this.c.firstScanRunning)) return this.answerTop();
    const rows = files && before ? this.changedRows(before, after, files) : undefined;
    if (rows) {
      if (rows.length) this.emitter.fire(rows);
      return;
    }
    for (const file of [...this.nodes.keys()]) if (!after.groupOf.has(file)) this.nodes.delete(file);
    // Before VS Code has asked for anything, its first request reads what is listed now; while it
    // fetches the first rows (top level answered, rows not yet asked), a refresh would make it
    // drop that answer and start again, a whole round trip more (~1 s at start): sent after.
    if (!this.topAsked) return;
    if (this.firstAsked.top !== undefined && !this.exchangeOver) {
      this.refreshOwed = true;
      return;
    }
    this.emitter.fire(undefined);
  }

  /** The rows to refresh for `files`, or undefined when the whole view must be refreshed. */
  private changedRows(before: Grouping, after: Grouping, files: readonly string[]): WorkflowNode[] | undefined {
    if (files.length > ROW_REFRESH_LIMIT || before.multi !== after.multi || before.groups.size !== after.groups.size) return undefined;
    const rows: WorkflowNode[] = [];
    const checked = new Set<string>();
    for (const file of files) {
      const key = before.groupOf.get(file);
      if (key === undefined || key !== after.groupOf.get(file)) return undefined;
      const node = this.nodes.get(file);
      const state = after.groups.get(key)!.find((s) => s.file === file)!;
      if (node) {
        const old = node.state;
        if (old.workflow !== state.workflow || JSON.stringify(old.delegation) !== JSON.stringify(state.delegation)) return undefined;
      }
      if (!checked.has(key)) {
        checked.add(key);
        const a = before.groups.get(key)!;
        const b = after.groups.get(key)!;
        if (a.length !== b.length || a.some((s, i) => s.file !== b[i].file)) return undefined;
      }
      // A row VS Code was never given (its group folded until now) needs no refresh.
      if (node) {
        node.state = state;
        rows.push(node);
      }
    }
    return rows;
  }

  /**
   * The project view read the folders' sprints again: when that moved a workflow's standing (a spec's
   * epic finished or reopened), the view is grouped and shown again.
   */
  private standingChanged(): void {
    const before = this.grouping;
    if (!before || sameItems(before.standing, this.c.standingInputs())) return;
    const after = this.group();
    for (const [file, key] of after.groupOf) {
      if (before.groupOf.get(file) === key) continue;
      this.refresh();
      return;
    }
  }

  /** The model's listed states by group, sorted (most recent first), computed once per change. */
  private group(): Grouping {
    const states = this.c.listedStates();
    const multi = this.c.roots.length > 1;
    const standing = this.c.standingInputs();
    const same = !!this.grouping && sameItems(this.grouping.standing, standing);
    if (same && this.grouping!.from === states && this.grouping!.multi === multi) return this.grouping!;
    const shown = (s: WorkflowState) => this.c.shownStatus(s);
    const carried = same && regroup(this.grouping!, states, multi, shown);
    if (carried) return (this.grouping = carried);
    const groups = new Map<string, WorkflowState[]>();
    const groupOf = new Map<string, string>();
    let active = 0;
    for (const s of states) {
      const status = shown(s);
      const key = groupKey(status, s.root, multi);
      const list = groups.get(key);
      if (list) list.push(s);
      else groups.set(key, [s]);
      groupOf.set(s.file, key);
      if (status === 'in_progress' || status === 'blocked') active++;
    }
    for (const list of groups.values()) list.sort(byRecent);
    this.grouping = { from: states, multi, standing, groups, groupOf, active };
    return this.grouping;
  }

  /** The one node of a listed workflow (the view refreshes and reveals rows by it). */
  nodeFor(state: WorkflowState): WorkflowNode {
    let node = this.nodes.get(state.file);
    if (node) node.state = state;
    else this.nodes.set(state.file, (node = { kind: 'workflow', state }));
    return node;
  }

  getChildren(node?: WorkflowsNode): WorkflowsNode[] | Promise<WorkflowsNode[]> {
    if (!node) {
      this.topAsked = true;
      if (this.firstRowAt === undefined) this.topsBeforeRows++;
    }
    if (!node && !this.c.listedStates().length && this.c.firstScanRunning) return this.afterFirstListing().then(() => this.children());
    return this.children(node);
  }

  private children(node?: WorkflowsNode): WorkflowsNode[] {
    const g = this.group();
    if (!node) {
      if (g.multi) {
        const present = new Set([...g.groups.keys()].map((k) => k.slice(0, k.indexOf('\0'))));
        return this.c.roots.filter((r) => present.has(r)).map((root) => ({ kind: 'folder', root }));
      }
      return this.answerGroups(groupsOf(g, ''));
    }
    switch (node.kind) {
      case 'folder':
        return this.answerGroups(groupsOf(g, node.root, node.root));
      case 'group': {
        this.firstAsked.rows ??= performance.now();
        const key = `${g.multi ? (node.root ?? '') : ''}\0${node.status}`;
        const list = g.groups.get(key) ?? [];
        const shown = this.shown.get(key) ?? GROUP_PAGE;
        const rows: WorkflowsNode[] = list.slice(0, shown).map((state) => this.nodeFor(state));
        if (list.length > shown) rows.push({ kind: 'more', root: node.root, status: node.status, hidden: list.length - shown });
        return rows;
      }
      case 'workflow':
        return node.state.steps.map((step) => ({ kind: 'step', state: node.state, step }));
      default:
        return [];
    }
  }

  getParent(node: WorkflowsNode): WorkflowsNode | undefined {
    const multi = this.c.roots.length > 1;
    switch (node.kind) {
      case 'group':
        return multi && node.root ? { kind: 'folder', root: node.root } : undefined;
      case 'workflow':
        return { kind: 'group', status: this.c.shownStatus(node.state), root: multi ? node.state.root : undefined };
      case 'step':
        return this.nodeFor(node.state);
      case 'more':
        return { kind: 'group', status: node.status, root: node.root };
      default:
        return undefined;
    }
  }

  /** A group's "Show more" row was clicked: it shows GROUP_PAGE more rows. */
  showMore(node: unknown): void {
    const more = node as Partial<Extract<WorkflowsNode, { kind: 'more' }>> | undefined;
    if (more?.kind !== 'more' || typeof more.status !== 'string') throw new WaymarkError('usage', 'Show more is run from the "Show more" row of a group in the Workflows view.');
    const key = `${this.c.roots.length > 1 ? (more.root ?? '') : ''}\0${more.status}`;
    this.shown.set(key, (this.shown.get(key) ?? GROUP_PAGE) + GROUP_PAGE);
    this.emitter.fire(undefined);
  }

  /** Selects a workflow's row, showing more of its group first when it is further down than the rows shown. */
  async reveal(state: WorkflowState, options: { expand?: boolean; select?: boolean; focus?: boolean }): Promise<void> {
    const g = this.group();
    const key = g.groupOf.get(state.file);
    const at = key === undefined ? -1 : g.groups.get(key)!.findIndex((s) => s.file === state.file);
    if (key !== undefined && at >= (this.shown.get(key) ?? GROUP_PAGE)) {
      this.shown.set(key, Math.ceil((at + 1) / GROUP_PAGE) * GROUP_PAGE);
      this.emitter.fire(undefined);
    }
    await this.view.reveal(this.nodeFor(state), options);
  }

  getTreeItem(node: WorkflowsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(path.basename(node.root), vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = vscode.ThemeIcon.Folder;
        item.resourceUri = vscode.Uri.file(node.root);
        item.id = `folder:${node.root}`;
        return item;
      }
      case 'group': {
        const g = this.group();
        const count = g.groups.get(`${g.multi ? (node.root ?? '') : ''}\0${node.status}`)?.length ?? 0;
        const collapsed = foldedGroup(node.status);
        const item = new vscode.TreeItem(STATUS_LABELS[node.status] ?? node.status, collapsed ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
        item.description = String(count);
        item.iconPath = statusIcon(node.status);
        item.contextValue = `waymark.group.${node.status}`;
        item.id = `group:${node.root ?? ''}:${node.status}`;
        return item;
      }
      case 'workflow':
        if (this.firstRowAt === undefined) {
          this.firstRowAt = performance.now();
          this.endHold(FIRST_ROWS_GRACE_MS);
          this.logFirstRows();
        }
        return this.workflowItem(node.state);
      case 'step':
        return stepItem(node.state, node.step);
      case 'more': {
        const next = Math.min(GROUP_PAGE, node.hidden);
        const item = new vscode.TreeItem(`Show ${thousands(next)} more`, vscode.TreeItemCollapsibleState.None);
        item.description = `${thousands(node.hidden)} not shown`;
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.tooltip = `This group shows its ${thousands(GROUP_PAGE)} most recent workflows at first; ${thousands(node.hidden)} more are not shown. Click to show ${thousands(next)} more (Waymark: Open Project Dashboard lists the project, the Problems panel every problem).`;
        item.id = `more:${node.root ?? ''}:${node.status}`;
        item.contextValue = 'waymark.more';
        item.command = { command: COMMANDS.showMoreWorkflows, title: 'Show more', arguments: [node] };
        return item;
      }
    }
  }

  /** Where the first rows' time went (the bench of a view restored at start reads this line). */
  private logFirstRows(): void {
    const at = (t: number | undefined) => (t === undefined ? 'never' : String(Math.round(t - this.activatedAt)));
    const a = this.firstAsked;
    this.c.log.info(`[tree] first workflow rows made ${at(this.firstRowAt)} ms after activation began (view visible ${at(a.visible)}, first listed ${at(a.listed)}, scan held ${at(a.held)}, top level asked ${at(a.top)} (asked ${this.topsBeforeRows}× before the rows), group rows asked ${at(a.rows)})`);
  }

  private workflowItem(state: WorkflowState): vscode.TreeItem {
    const problems = this.c.problemsFor(state.file);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.filter((p) => p.severity === 'warning').length;
    const item = new vscode.TreeItem(this.c.displayName(state), state.steps.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    const parts = [progress(state)];
    const step = activeStep(state);
    // Set aside or finished where the project reads it: why, instead of a step nobody will take up.
    const standing = this.c.standing(state);
    if (standing) parts.push(standing.message);
    else if (step && state.status !== 'completed') parts.push(step);
    if (errors + warnings) parts.push(`$(warning) ${errors + warnings}`);
    if (state.stale) parts.push('stale');
    const holders = this.c.leaseHolders(state.file);
    const live = holders.filter((h) => !h.stale);
    const foreign = live.find((h) => !h.mine);
    if (foreign) parts.push(`locked by ${foreign.lease.owner.agent}${foreign.scope === 'workspace' ? ' (workspace lease)' : ''}`);
    else if (live.length) parts.push('leased by you');
    const elsewhere = this.c.worktrees.forFile(state.file);
    if (elsewhere.length) parts.push(`⎇ ${elsewhere.map(markShort).join(', ')}`);
    item.description = parts.join(' · ').replace(/\$\(warning\) /, '⚠ ');
    item.iconPath = state.stale
      ? new vscode.ThemeIcon('history', new vscode.ThemeColor('problemsWarningIcon.foreground'))
      : foreign
        ? new vscode.ThemeIcon('lock', new vscode.ThemeColor('charts.orange'))
        : statusIcon(standing?.status ?? statusKey(state), errors > 0);
    item.id = `workflow:${state.file}`;
    // `.lease`: someone else holds a live lease (Take over, Release); `.leaseMine`: we do (Release).
    item.contextValue = `waymark.workflow.${statusKey(state)}${problems.length ? '.problems' : ''}${foreign ? '.lease' : live.length ? '.leaseMine' : ''}`;
    item.command = { command: COMMANDS.openFile, title: 'Open', arguments: [{ file: state.file, key: 'status' }] };
    item.resourceUri = vscode.Uri.file(state.file);
    return item;
  }

  /** A workflow row's tooltip, made when VS Code asks for it (on hover), not for every row drawn. */
  resolveTreeItem(item: vscode.TreeItem, node: WorkflowsNode): vscode.TreeItem {
    if (node.kind === 'workflow' && item.tooltip === undefined) item.tooltip = this.workflowTooltip(node.state);
    return item;
  }

  private workflowTooltip(state: WorkflowState): vscode.MarkdownString {
    const problems = this.c.problemsFor(state.file);
    const step = activeStep(state);
    const holders = this.c.leaseHolders(state.file);
    const elsewhere = this.c.worktrees.forFile(state.file);
    const md = new vscode.MarkdownString(undefined, true);
    if (holders.length) md.isTrusted = { enabledCommands: [COMMANDS.leaseTakeOver, COMMANDS.leaseRelease] };
    md.appendMarkdown(`**${this.c.displayName(state)}** (\`${state.workflow}\`) — ${STATUS_LABELS[statusKey(state)] ?? state.rawStatus ?? 'no status'}${state.rawStatus && state.rawStatus !== state.status ? ` (\`${state.rawStatus}\`)` : ''}\n\n`);
    const standing = this.c.standing(state);
    if (standing) md.appendMarkdown(`$(${standing.status === 'archived' ? 'archive' : 'pass'}) Shown as ${STATUS_LABELS[standing.status].toLowerCase()}: ${escapeMd(standing.message)} (the board and \`waymark next\` read it so too).\n\n`);
    md.appendMarkdown(`\`${this.c.relative(state.file)}\` · ${progress(state)} steps${state.scope ? ` · scope ${state.scope}` : ''}\n\n`);
    if (step) md.appendMarkdown(`Current step: \`${step}\`${state.nextStep && state.nextStep !== step ? ` · next: \`${state.nextStep}\`` : ''}\n\n`);
    if (state.blockedReason) md.appendMarkdown(`Blocked: ${state.blockedReason}\n\n`);
    if (state.stale) md.appendMarkdown(`$(history) The file does not read as a workflow right now${state.staleReason ? ` (${escapeMd(state.staleReason)})` : ''}; this is the last good state.\n\n`);
    for (const line of leaseMarkdown(state.file, holders)) md.appendMarkdown(`${line}\n\n`);
    for (const m of elsewhere) md.appendMarkdown(`$(git-branch) ${escapeMd(markSentence(m))}\n\n`);
    for (const p of problems.slice(0, 6)) md.appendMarkdown(`${p.severity === 'error' ? '$(error)' : p.severity === 'warning' ? '$(warning)' : '$(info)'} ${escapeMd(p.message)} \`${p.code}\`\n\n`);
    if (problems.length > 6) md.appendMarkdown(`…and ${problems.length - 6} more in the Problems panel\n`);
    return md;
  }

}

function groupsOf(g: Grouping, key: string, root?: string): WorkflowsNode[] {
  return STATUS_ORDER.filter((s) => g.groups.has(`${key}\0${s}`)).map((status) => ({ kind: 'group', status, root }));
}

function groupKey(status: string, root: string, multi: boolean): string {
  return `${multi ? root : ''}\0${status}`;
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The grouping after a few files were read again, from the one before, when none of them changed
 * group: each takes its old place in its group (sorted again only if it no longer fits there),
 * the other groups are shared. The same grouping as sorting every group again; undefined when
 * files came, went or changed group.
 */
function regroup(prev: Grouping, states: readonly WorkflowState[], multi: boolean, shown: (s: WorkflowState) => string): Grouping | undefined {
  if (prev.multi !== multi || prev.from.length !== states.length) return undefined;
  const changed: [WorkflowState, WorkflowState][] = [];
  for (let i = 0; i < states.length; i++) {
    const was = prev.from[i];
    if (was === states[i]) continue;
    if (was.file !== states[i].file || changed.length >= ROW_REFRESH_LIMIT) return undefined;
    changed.push([was, states[i]]);
  }
  const groups = new Map(prev.groups);
  const copied = new Set<string>();
  let active = prev.active;
  const isActive = (s: WorkflowState) => {
    const status = shown(s);
    return status === 'in_progress' || status === 'blocked';
  };
  for (const [was, now] of changed) {
    const key = groupKey(shown(now), now.root, multi);
    if (prev.groupOf.get(now.file) !== key) return undefined;
    let list = groups.get(key)!;
    if (!copied.has(key)) groups.set(key, (list = list.slice())), copied.add(key);
    const i = list.indexOf(was);
    if (i < 0) return undefined;
    list[i] = now;
    if ((i > 0 && inGroupOrder(list[i - 1], now) > 0) || (i < list.length - 1 && inGroupOrder(now, list[i + 1]) > 0)) list.sort(inGroupOrder);
    active += Number(isActive(now)) - Number(isActive(was));
  }
  return { from: states, multi, standing: prev.standing, groups, groupOf: prev.groupOf, active };
}

/** The order `group` gives: most recent first, equal rows in the model's order (by file, `localeCompare`). */
function inGroupOrder(a: WorkflowState, b: WorkflowState): number {
  return byRecent(a, b) || a.file.localeCompare(b.file);
}

/** The order of `localeCompare` (the default locale's collation), without making a collator per call. */
const collate = new Intl.Collator().compare;

function byRecent(a: WorkflowState, b: WorkflowState): number {
  return collate(b.updatedAt ?? '', a.updatedAt ?? '') || collate(a.workflow, b.workflow);
}

export function stepItem(state: WorkflowState, step: StepDef): vscode.TreeItem {
  const kind = stepKind(state, step);
  const item = new vscode.TreeItem(step.id, vscode.TreeItemCollapsibleState.None);
  const gate = gateFor(state, step);
  const parts: string[] = [];
  if (kind === 'current') parts.push('current');
  if (kind === 'blocked') parts.push('blocked');
  if (gate) parts.push(`gate ${gateLabel(gate)}`);
  if (step.title && step.title !== step.id) parts.push(step.title);
  item.description = parts.join(' · ');
  item.iconPath = stepIcon(kind);
  item.id = `step:${state.file}:${step.id}`;
  item.contextValue = `waymark.step.${gate ? 'gated' : kind}.${kind}${step.file ? '.hasFile' : ''}`;
  item.tooltip = `${stepTitle(step)} (step ${step.index} of ${state.steps.length}): ${kind}${gate ? ` · gate ${gateLabel(gate)}` : ''}`;
  item.command = { command: COMMANDS.openFile, title: 'Open', arguments: [{ file: state.file, step: step.id }] };
  return item;
}

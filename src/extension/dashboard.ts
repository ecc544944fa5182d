// The project dashboard: one webview panel drawing the core's dashboard view model (columns by
// status, the ready frontier with Start, stalled work, dependency chains, the timeline). It is
// fed by the model's one change event (debounced), keeps its scroll and selection across updates
// (webview state) and comes back after a reload (a panel serializer). Start runs the same
// commands as everywhere else (waymark.start, waymark.story.setStatus) through the command
// runner: trust, unsaved editors and conflicts are handled there. Read-only in Restricted Mode.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { dashboardModel, errorMessage, gitStateTimeline, projectTimeline, workflowStateLine } from '../core/index';
import type { DashboardChip, DashboardModel, DashboardTrackerInput, GitTimeline, ProjectItem, ProjectView, TimelineChange } from '../core/index';
import type { CommandRunner } from './commandRunner';
import { COMMANDS } from './constants';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';
import { markSentence, markShort, type WorktreeMark } from './worktrees';

/** What the dashboard shows beside the project view: the ticket stores' health (none without a tracker). */
export interface DashboardTrackerSource {
  /** The last health read per store, with its folder. */
  tracker(): readonly DashboardTrackerInput[];
  /** Fired when the health read changed (a breaker opened, the outbox grew). */
  readonly onDidChangeTracker: vscode.Event<unknown>;
}

export const DASHBOARD_VIEW_TYPE = 'waymark.dashboard';
const DEBOUNCE_MS = 300;

/** What the webview reports after drawing a model. */
export interface DashboardPaint {
  /** The model version drawn. */
  version: number;
  /** Milliseconds from the open command to this paint, for the first paint after an open. */
  sinceOpenMs?: number;
  /** The webview's own time to draw, ms. */
  drawMs: number;
  /** What it shows, as text (the test reads it). */
  text: string;
  /** Item cards drawn. */
  cards: number;
  /** The page's scroll position after drawing (an update keeps the reader's place). */
  scrollY: number;
  /** How the model drawn was built (ms): the project read, the timeline, the view model. */
  build?: DashboardBuild;
}

/** How a model was built (ms): the project view (0-ish when the monitor's was fresh), the timeline, the view model. */
export interface DashboardBuild {
  projectMs: number;
  timelineMs: number;
  modelMs: number;
  /** The project monitor's view was fresh: no project read for this model. */
  fresh: boolean;
}

/** An action taken from the webview: the item opened or started, and how it ended. */
export interface DashboardAction {
  action: 'open' | 'start' | 'projectTickets';
  id: string;
  ok: boolean;
  message?: string;
}

type FromWebview =
  | { type: 'ready' }
  | { type: 'painted'; version: number; drawMs: number; text: string; cards: number; scrollY: number }
  | { type: 'open'; id: string }
  | { type: 'start'; id: string }
  | { type: 'projectTickets' };

export class Dashboard extends Disposable {
  private panel?: vscode.WebviewPanel;
  private panelSubs: vscode.Disposable[] = [];
  private timer?: NodeJS.Timeout;
  private version = 0;
  private current?: DashboardModel;
  private building = false;
  private rebuild = false;
  private openedAt?: number;
  /** The panel's script has said `ready`: messages posted now are received. */
  private webviewReady = false;
  private currentMeta = { canWrite: false, gitSkipped: true };
  /** The inputs of the model last built (a refresh with the same inputs builds nothing). */
  private builtFrom?: { view: ProjectView; key: string; changes: TimelineChange[] };
  /** How long the last model took to build, in parts (ms). */
  lastBuild?: DashboardBuild;
  private readonly paints = this.register(new vscode.EventEmitter<DashboardPaint>());
  /** Each paint the webview reports (the test API and the bench listen). */
  readonly onDidPaint = this.paints.event;
  private readonly actions = this.register(new vscode.EventEmitter<DashboardAction>());
  readonly onDidAct = this.actions.event;

  constructor(
    private readonly model: ExtensionModel,
    run: CommandRunner,
    private readonly extensionUri: vscode.Uri,
    /** The ticket stores' health (the tracker status item reads it; the dashboard shows it too). */
    private readonly tickets?: DashboardTrackerSource,
    /** Other changes the project view depends on (the BMAD sprint ledgers, which are no workflow files). */
    alsoOn: vscode.Event<unknown>[] = [],
  ) {
    super();
    run.add('openDashboard', async () => {
      this.open();
      return undefined;
    });
    this.register(
      vscode.window.registerWebviewPanelSerializer(DASHBOARD_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.adopt(panel),
      }),
    );
    // Every input is behind the model's one change event (states, the project view, the worktree
    // markers, trust), the tracker's health or `alsoOn`; a refresh whose inputs did not change posts nothing.
    this.register(model.onDidChange(() => this.refreshSoon()));
    if (tickets) this.register(tickets.onDidChangeTracker(() => this.refreshSoon()));
    for (const e of alsoOn) this.register(e(() => this.refreshSoon()));
    this.register({ dispose: () => (this.timer && clearTimeout(this.timer), this.disposePanel()) });
  }

  /** The model last sent to the webview (the test API reads it). */
  get lastModel(): DashboardModel | undefined {
    return this.current;
  }

  /** The version of the model last posted (each paint reports the version it drew). */
  get modelVersion(): number {
    return this.version;
  }

  get isOpen(): boolean {
    return !!this.panel;
  }

  /** Opens the panel (or brings it forward) and draws the project. */
  open(): void {
    this.openedAt = performance.now();
    if (this.panel) {
      this.panel.reveal();
      this.refreshSoon(0);
      return;
    }
    const panel = vscode.window.createWebviewPanel(DASHBOARD_VIEW_TYPE, 'Waymark Project', vscode.ViewColumn.Active, this.options());
    this.adopt(panel);
  }

  private options(): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    return { enableScripts: true, retainContextWhenHidden: false, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media', 'dashboard')] };
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.disposePanel();
    this.panel = panel;
    this.webviewReady = false;
    this.current = undefined;
    // A new panel reads the timeline again (git may have moved without a state change).
    this.builtFrom = undefined;
    panel.webview.options = this.options();
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'waymark.svg');
    panel.webview.html = this.html();
    this.panelSubs.push(
      panel.onDidDispose(() => {
        if (this.panel === panel) {
          this.panel = undefined;
          for (const d of this.panelSubs.splice(0)) d.dispose();
        }
      }),
      panel.webview.onDidReceiveMessage((m: FromWebview) => void this.receive(m)),
      panel.onDidChangeViewState((e) => {
        // A hidden panel's page is unloaded (no retainContextWhenHidden): it says `ready` again.
        if (!e.webviewPanel.visible) this.webviewReady = false;
      }),
    );
    // Start reading the project while the webview loads: after the messages that create the
    // panel have left the extension host (the read is mostly synchronous file reads).
    this.refreshSoon(40);
  }

  private disposePanel(): void {
    const p = this.panel;
    this.panel = undefined;
    for (const d of this.panelSubs.splice(0)) d.dispose();
    p?.dispose();
  }

  private refreshSoon(ms = DEBOUNCE_MS): void {
    if (!this.panel || this.isDisposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), ms);
  }

  /**
   * Builds the view model from the model's one project view (computed now only when it is not
   * fresh, e.g. the first paint right after a change) and posts it. One build at a time.
   */
  private async refresh(): Promise<void> {
    this.timer = undefined;
    if (this.building) {
      this.rebuild = true;
      return;
    }
    this.building = true;
    try {
      await this.model.ready();
      const trusted = this.model.canWrite;
      const roots = this.model.roots;
      const t0 = performance.now();
      const fresh = this.model.project.fresh();
      const view = fresh ?? (await this.model.project.refresh());
      const t1 = performance.now();
      const tracker = this.tickets?.tracker() ?? [];
      // The markers' cache (no git run here): the same chip and sentence as the trees.
      const worktreesOf = (item: ProjectItem): DashboardChip[] => {
        const marks: WorktreeMark[] = item.kind === 'story' ? this.model.worktrees.forStory(item.root, item.storyKey ?? item.id.replace(/^story:/, '')) : item.file ? this.model.worktrees.forFile(item.file) : [];
        return marks.map((m) => ({ label: `⎇ ${markShort(m)}`, tooltip: markSentence(m) }));
      };
      // The same view, trust, tracker health and markers as the model on screen: nothing to draw.
      const key = JSON.stringify([trusted, tracker, this.model.worktrees.marksVersion]);
      if (this.current && this.builtFrom?.view === view && this.builtFrom.key === key) return;
      let changes = this.builtFrom?.view === view ? this.builtFrom.changes : undefined;
      if (!changes) {
        // Running git in an untrusted folder can run its config's programs: only when trusted.
        const git = new Map<string, GitTimeline>();
        if (trusted) for (const root of roots) git.set(root, await gitStateTimeline(root));
        changes = projectTimeline(view, git);
      }
      const t2 = performance.now();
      const m = dashboardModel(view, changes, { lineOf: (item) => (item.file && item.kind === 'workflow' ? workflowStateLine(item.file) : undefined), worktreesOf, tracker });
      this.lastBuild = { projectMs: t1 - t0, timelineMs: t2 - t1, modelMs: performance.now() - t2, fresh: !!fresh };
      if (!this.panel || this.isDisposed) return;
      this.builtFrom = { view, key, changes };
      this.current = m;
      this.currentMeta = { canWrite: trusted, gitSkipped: !trusted };
      ++this.version;
      // Built while the webview loads; posted once its script listens (else on its `ready`).
      if (this.webviewReady) await this.post();
    } catch (e) {
      this.model.log.error(`[dashboard] ${errorMessage(e)}`);
      void this.panel?.webview.postMessage({ type: 'error', message: errorMessage(e) });
    } finally {
      this.building = false;
      if (this.rebuild) {
        this.rebuild = false;
        this.refreshSoon(0);
      }
    }
  }

  private async post(): Promise<void> {
    if (!this.panel || !this.current) return;
    await this.panel.webview.postMessage({ type: 'model', version: this.version, model: this.current, ...this.currentMeta });
  }

  private async receive(m: FromWebview): Promise<void> {
    if (!m || typeof m !== 'object') return;
    if (m.type === 'ready') {
      this.webviewReady = true;
      // The model built meanwhile is posted now; one still building posts when done.
      if (this.current && !this.building) await this.post();
      else if (!this.building) this.refreshSoon(0);
      return;
    }
    if (m.type === 'painted') {
      const sinceOpenMs = this.openedAt !== undefined ? performance.now() - this.openedAt : undefined;
      this.openedAt = undefined;
      this.model.log.info(`[dashboard] painted model ${m.version}: ${m.cards} cards in ${m.drawMs.toFixed(0)} ms${sinceOpenMs !== undefined ? `, ${sinceOpenMs.toFixed(0)} ms after the open command` : ''}`);
      this.paints.fire({ version: m.version, sinceOpenMs, drawMs: m.drawMs, text: String(m.text ?? ''), cards: m.cards, scrollY: Number(m.scrollY) || 0, build: this.lastBuild });
      return;
    }
    if (m.type === 'projectTickets') {
      // The same command as the status bar item and the palette (the runner refuses it untrusted).
      try {
        const reports = await vscode.commands.executeCommand<unknown[] | undefined>(COMMANDS.projectTickets);
        this.actions.fire({ action: 'projectTickets', id: '', ok: reports !== undefined });
      } catch (e) {
        this.actions.fire({ action: 'projectTickets', id: '', ok: false, message: errorMessage(e) });
      }
      this.refreshSoon(0);
      return;
    }
    const item = typeof m.id === 'string' ? this.current?.items[m.id] : undefined;
    if (!item) return;
    try {
      if (m.type === 'open' && item.kind === 'ticket') {
        // Its leaf file, else its plan, else its entry in tickets.toml: the Sprint view's Open.
        await vscode.commands.executeCommand(COMMANDS.openTicket, { root: item.root, ref: item.ref ?? item.id.replace(/^ticket:/, '') });
        this.actions.fire({ action: 'open', id: item.id, ok: true });
      } else if (m.type === 'open') {
        if (!item.file) throw new Error(`${item.id} has no file (a story only in the sprint ledger, or a ticket with no leaf file or plan yet).`);
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(item.file));
        const at = new vscode.Position(Math.min(item.line, doc.lineCount - 1), 0);
        await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, at), preview: true, viewColumn: vscode.ViewColumn.Beside });
        this.actions.fire({ action: 'open', id: item.id, ok: true });
      } else if (m.type === 'start') {
        // The same commands as the tree, the lenses and the palette: the runner checks trust,
        // an unsaved editor gets the change as an edit, a stale read is a conflict.
        const result =
          item.kind === 'story'
            ? await vscode.commands.executeCommand(COMMANDS.setStoryStatus, { key: item.storyKey ?? item.id.replace(/^story:/, ''), status: 'in-progress', root: item.root })
            : item.kind === 'ticket'
              ? await vscode.commands.executeCommand(COMMANDS.setTicketStatus, { ref: item.ref ?? item.id.replace(/^ticket:/, ''), status: 'in-progress', root: item.root })
              : await vscode.commands.executeCommand(COMMANDS.start, { file: item.file, quiet: true });
        this.actions.fire({ action: 'start', id: item.id, ok: result !== undefined });
        this.refreshSoon(0);
      }
    } catch (e) {
      this.model.log.error(`[dashboard] ${m.type} ${item.id}: ${errorMessage(e)}`);
      this.actions.fire({ action: m.type, id: item.id, ok: false, message: errorMessage(e) });
    }
  }

  /** The page's script and stylesheet (media/dashboard), read once. */
  private assets?: { js: string; css: string };

  /**
   * The page: our stylesheet and script from media/dashboard inlined with a fresh nonce (no
   * resource round trips before the first paint), under a CSP that allows nothing else.
   */
  private html(): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const read = (f: string) => fs.readFileSync(vscode.Uri.joinPath(this.extensionUri, 'media', 'dashboard', f).fsPath, 'utf8');
    this.assets ??= { js: read('dashboard.js'), css: read('dashboard.css') };
    const csp = `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';`;
    // Text inside <script>/<style> ends at the first `</`: none may come from the files.
    const safe = (t: string) => t.replace(/<\//g, '<\\/');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${nonce}">${safe(this.assets.css)}</style>
<title>Waymark Project</title>
</head>
<body>
<main id="app" aria-busy="true"><p class="empty">Reading the project…</p></main>
<script nonce="${nonce}">${safe(this.assets.js)}</script>
</body>
</html>`;
  }
}

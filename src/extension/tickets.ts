// The ticket projection in the editor: the `Project Workflows to Tickets` command, the optional
// background projection after state changes (`waymark.tracker.projectOnChange`, off by default:
// never awaited by a command, one run at a time), and a status bar item with the breaker's state
// when a tracker is configured. GitHub's token: the environment, else VS Code's GitHub sign-in;
// it is handed to the core per run and never written anywhere.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ALLOW_OUTSIDE_ENV, errorMessage, openStore, parseAllowOutside, runProjection, trackerHealth, trackerSetup, type DashboardTrackerInput, type ProjectReport, type StateCore, type TrackerHealth } from '../core/index';
import { toArgs, type CommandRunner } from './commandRunner';
import { COMMANDS } from './constants';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';

const TRACKER_STATUS_ID = 'waymark.tracker';
/** Background runs wait this long after the last state change (several writes: one run). */
const DEBOUNCE_MS = 2000;

export class TicketProjection extends Disposable {
  readonly item = this.register(vscode.window.createStatusBarItem(TRACKER_STATUS_ID, vscode.StatusBarAlignment.Left, 49));
  private running: Promise<unknown> | undefined;
  private timer?: NodeJS.Timeout;
  private refreshTimer?: NodeJS.Timeout;
  private lastBackgroundError?: string;
  /** The last health read per folder (for the item and the test API). */
  health: TrackerHealth[] = [];
  /** The same, each with its folder (the dashboard shows it). */
  private healthByRoot: DashboardTrackerInput[] = [];
  private healthKey = '[]';
  private retryTimer?: NodeJS.Timeout;
  private readonly healthChanged = this.register(new vscode.EventEmitter<void>());
  /** Fired when the health read changed: a breaker opened or closed, the outbox grew or drained. */
  readonly onDidChangeTracker = this.healthChanged.event;

  constructor(
    private readonly model: ExtensionModel,
    run: CommandRunner,
    /** A file under .waymark/outbox (the breaker state, a queue) changed: by us, the CLI or a hook. */
    onOutboxChange?: vscode.Event<unknown>,
  ) {
    super();
    this.item.name = 'Waymark tickets';
    this.item.command = COMMANDS.projectTickets;
    this.register({ dispose: () => (clearTimeout(this.timer), clearTimeout(this.refreshTimer), clearTimeout(this.retryTimer)) });
    if (onOutboxChange) this.register(onOutboxChange(() => this.refreshSoon()));
    run.add('projectTickets', async (arg) => {
      const reports = await this.projectAll(true);
      if (!toArgs(arg).quiet) run.info(toArgs(arg), reports.length ? reports.map(summary).join(' ') : 'No ticket tracker is configured (tracker: in .waymark/config.yaml).');
      return reports;
    });
    this.register(model.onDidChange((e) => {
      if (e.what === 'states' && model.canWrite) this.schedule();
      // The item reads breaker.json and the outbox: once per burst of changes.
      this.refreshSoon();
    }));
    void this.refresh();
  }

  /** The health of every store with its folder (empty without a tracker). */
  tracker(): readonly DashboardTrackerInput[] {
    return this.healthByRoot;
  }

  private refreshSoon(): void {
    if (this.isDisposed) return;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh(), 300);
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // In the background: a tracker that is down queues to the outbox; nothing waits on it.
      void this.projectAll(false, true).then(
        () => (this.lastBackgroundError = undefined),
        (e) => {
          // The same failure after every change (no token, no repository) is logged once.
          const msg = errorMessage(e);
          if (msg !== this.lastBackgroundError) this.model.log.warn(`[tickets] background projection: ${msg}`);
          this.lastBackgroundError = msg;
        },
      );
    }, DEBOUNCE_MS);
  }

  /** Projects every folder with a tracker (one run at a time; a second call waits for the first). */
  async projectAll(interactive: boolean, background = false): Promise<ProjectReport[]> {
    while (this.running) await this.running.catch(() => undefined);
    const work = this.projectNow(interactive, background);
    this.running = work;
    try {
      return await work;
    } finally {
      this.running = undefined;
      void this.refresh();
    }
  }

  /** `background`: only folders where the setting or the folder's `tracker.autoProject` turns it on. */
  private async projectNow(interactive: boolean, background: boolean): Promise<ProjectReport[]> {
    // The mirrors are written through one core; a new core made meanwhile gets them at the end.
    return this.model.withCore((core) => this.projectWith(core, interactive, background));
  }

  private async projectWith(core: StateCore, interactive: boolean, background: boolean): Promise<ProjectReport[]> {
    const out: ProjectReport[] = [];
    for (const root of this.model.roots) {
      const setup = trackerSetup((await core.contextFor(path.join(root, '.waymark-probe'))).config);
      if (!setup) continue;
      if (background && !this.model.settings.trackerProjectOnChange && !setup.autoProject) continue;
      const cfg = setup.stores.get(setup.defaultStore)!;
      const token = cfg.store === 'github' ? await this.githubToken(interactive) : undefined;
      const allowOutside = [...this.model.settings.trackerAllowOutside, ...parseAllowOutside(process.env[ALLOW_OUTSIDE_ENV])];
      const store = await openStore(root, setup.defaultStore, cfg, { token, apiUrl: process.env.WAYMARK_GITHUB_API_URL, allowOutside });
      // A file with unsaved changes in an editor keeps its bytes: its mirror waits for a later run.
      const dirty = new Set(vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file').map((d) => d.uri.fsPath));
      const report = await runProjection({
        core, root, store, isDefault: true, breaker: setup.breaker, workflows: core === this.model.core ? this.model.states() : core.list(),
        deferMirror: (file) => dirty.has(file) || vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.fsPath === file),
        onProgress: (l) => this.model.log.info(`[tickets] ${l}`),
      });
      this.model.log.info(`[tickets] ${summary(report)}`);
      out.push(report);
    }
    return out;
  }

  /** GITHUB_TOKEN / WAYMARK_GITHUB_TOKEN, else the GitHub session (asked for only from the command). */
  private async githubToken(interactive: boolean): Promise<string | undefined> {
    const env = process.env.WAYMARK_GITHUB_TOKEN || process.env.GITHUB_TOKEN;
    if (env) return env;
    const session = await vscode.authentication.getSession('github', ['repo'], interactive ? { createIfNone: true } : { silent: true });
    return session?.accessToken;
  }

  /** Re-reads breaker and outbox of every folder and renders the item (hidden without a tracker). */
  async refresh(): Promise<void> {
    const health: TrackerHealth[] = [];
    const byRoot: DashboardTrackerInput[] = [];
    for (const root of this.model.roots) {
      try {
        const list = trackerHealth(root, (await this.model.core.contextFor(path.join(root, '.waymark-probe'))).config);
        health.push(...list);
        byRoot.push(...list.map((h) => ({ ...h, root })));
      } catch (e) {
        this.model.log.warn(`[tickets] status of ${root}: ${errorMessage(e)}`);
      }
    }
    if (this.isDisposed) return;
    this.health = health;
    this.healthByRoot = byRoot;
    const key = JSON.stringify(byRoot);
    if (key !== this.healthKey) {
      this.healthKey = key;
      this.healthChanged.fire();
    }
    // An open breaker turns half-open when its wait ends, with no file changing: read it again then.
    clearTimeout(this.retryTimer);
    const next = Math.min(...health.filter((h) => h.state === 'open' && h.retryAt).map((h) => Date.parse(h.retryAt!)).filter(Number.isFinite));
    if (Number.isFinite(next)) {
      this.retryTimer = setTimeout(() => void this.refresh(), Math.min(Math.max(0, next - Date.now()) + 250, 2 ** 31 - 1));
      this.retryTimer.unref?.();
    }
    if (!health.length) {
      this.item.hide();
      return;
    }
    const open = health.filter((h) => h.state !== 'closed');
    const queued = health.reduce((n, h) => n + h.queued, 0);
    this.item.text = `${open.length ? '$(cloud-offline)' : '$(cloud-upload)'} tickets${open.length ? ` ${open[0].state}` : ''}${queued ? ` · ${queued} queued` : ''}`;
    this.item.backgroundColor = open.some((h) => h.state === 'open') ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [COMMANDS.projectTickets] };
    for (const h of health) {
      md.appendMarkdown(`**${h.store}** (${h.kind}): breaker **${h.state}**${h.failures ? `, ${h.failures} failure(s)` : ''}${h.retryAt && h.state === 'open' ? `, next try ${h.retryAt}` : ''} · ${h.queued} queued\n\n`);
      if (h.lastError && h.state !== 'closed') md.appendMarkdown(`$(warning) ${h.lastError.replace(/[\\`*_[\]]/g, '\\$&')}\n\n`);
    }
    md.appendMarkdown(`One way: workflow files → tickets; local work never waits on the tracker.\n\n[$(cloud-upload) Project now](command:${COMMANDS.projectTickets})`);
    this.item.tooltip = md;
    this.item.show();
  }
}

function summary(r: ProjectReport): string {
  const head = `${r.store}: ${r.created.length} created, ${r.updated.length} updated${r.closed.length ? `, ${r.closed.length} closed (artifact removed)` : ''}, ${r.unchanged} unchanged.`;
  const failed = r.failed.length ? ` ${r.failed.length} refused: ${r.failed[0].message}` : '';
  return r.outage ? `${head} Tracker unavailable (${r.outage}); ${r.queued} change(s) queued in .waymark/outbox.${failed}` : head + failed;
}

// BMAD sprint surfaces: one SprintModel per window (the sprint of every workspace folder, re-read
// when a ledger, story, epics or gate file changes) and what reads it: the Sprint view, the
// in-progress story in the status bar, diagnostics, hovers, quick fixes and code lenses on story
// files and sprint-status.yaml, and the story commands. Writes go through the core's
// setStoryStatus/checkStoryTask (locks, hash check, atomic, one history entry).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, errorMessage, findStory, loadSprint, setStoryStatus, checkStoryTask, STORY_STATUSES, type Problem, type SprintReport, type SprintStory } from '../core/index';
import { CONFIG_SECTION, SPRINT_COMMANDS } from './constants';
import type { Container } from './container';
import { SprintTree, storyDescription } from './sprintTree';

const SPRINT_FILES = /(?:^|[\\/])(sprint-status\.ya?ml|[^\\/]*epic[^\\/]*\.md|\d+[-.]\d+[a-z]?[-.][^\\/]*\.md|[^\\/]*\.ya?ml|gate-decision[^\\/]*\.json)$/i;
const IGNORE = /[\\/](node_modules|\.git|\.waymark)[\\/]/;
const DEBOUNCE_MS = 250;

/** The sprint of every workspace folder, with one change event. */
export class SprintModel implements vscode.Disposable {
  private readonly byRoot = new Map<string, SprintReport>();
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private timer?: NodeJS.Timeout;
  private dirtyRoots = new Set<string>();
  /** Number of reloads, for tests and the log. */
  loads = 0;

  constructor(private readonly c: Container) {
    const w = vscode.workspace.createFileSystemWatcher('**/*.{md,yaml,yml,json}');
    this.disposables.push(w, w.onDidChange((u) => this.queue(u)), w.onDidCreate((u) => this.queue(u)), w.onDidDelete((u) => this.queue(u)));
    this.disposables.push(c.onDidChangeRoots(() => this.reloadAll()));
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(`${CONFIG_SECTION}.sprint`) && this.reloadAll()));
    this.reloadAll();
  }

  reports(): SprintReport[] {
    return [...this.byRoot.values()].sort((a, b) => a.root.localeCompare(b.root));
  }

  reportFor(file: string): SprintReport | undefined {
    const root = this.c.rootFor(file);
    return root ? this.byRoot.get(root) : undefined;
  }

  /** The story a file is (story file) or the story on a ledger line. */
  storyAt(file: string, line?: number): { report: SprintReport; story: SprintStory } | undefined {
    const report = this.reportFor(file);
    if (!report) return undefined;
    const abs = path.resolve(file);
    let story = report.stories.find((s) => s.file === abs);
    if (!story && abs === report.ledgerFile && line !== undefined) story = report.stories.find((s) => s.ledgerLine === line);
    return story ? { report, story } : undefined;
  }

  problems(): Problem[] {
    return this.reports().flatMap((r) => r.problems);
  }

  reloadAll(): void {
    for (const r of this.c.roots) this.dirtyRoots.add(r);
    for (const r of [...this.byRoot.keys()]) if (!this.c.roots.includes(r)) this.byRoot.delete(r);
    this.flushSoon(0);
  }

  private queue(uri: vscode.Uri): void {
    if (uri.scheme !== 'file' || IGNORE.test(uri.fsPath) || !SPRINT_FILES.test(uri.fsPath)) return;
    const root = this.c.rootFor(uri.fsPath);
    if (!root) return;
    this.dirtyRoots.add(root);
    this.flushSoon(DEBOUNCE_MS);
  }

  private flushSoon(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
  }

  /** Re-reads the sprint of the folders that changed (synchronous reads of small files). */
  flush(): void {
    this.timer = undefined;
    const roots = [...this.dirtyRoots];
    this.dirtyRoots.clear();
    const settings = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const staleDays = settings.get<number>('sprint.staleDays', 7);
    for (const root of roots) {
      try {
        const bmad = settings.get<{ dir?: string; output?: string }>('bmad') ?? {};
        const r = loadSprint(root, { staleDays, installDir: bmad.dir, outputDir: bmad.output });
        if (r) this.byRoot.set(root, r);
        else this.byRoot.delete(root);
        this.loads++;
      } catch (e) {
        this.c.log.error(`[sprint] ${root}: ${errorMessage(e)}`);
      }
    }
    if (roots.length) this.emitter.fire();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}

function toRange(p: Problem): vscode.Range {
  return new vscode.Range(p.range.start.line, p.range.start.character, p.range.end.line, p.range.end.character);
}

const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = { error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning, info: vscode.DiagnosticSeverity.Information };

/** Problem data kept per diagnostic for quick fixes. */
const PROBLEM_OF = new WeakMap<vscode.Diagnostic, Problem>();

export class SprintFeatures implements vscode.Disposable {
  readonly model: SprintModel;
  readonly tree: SprintTree;
  readonly diagnostics = vscode.languages.createDiagnosticCollection('waymark-sprint');
  readonly statusBar: vscode.StatusBarItem;
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly c: Container) {
    this.model = new SprintModel(c);
    this.tree = new SprintTree(this.model);
    this.statusBar = vscode.window.createStatusBarItem('waymark.sprint', vscode.StatusBarAlignment.Left, 99);
    this.statusBar.name = 'Waymark Sprint';
    const selector: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/*.md' }, { scheme: 'file', pattern: '**/sprint-status.{yaml,yml}' }];
    this.disposables.push(
      this.model,
      this.tree,
      this.diagnostics,
      this.statusBar,
      this.lensEmitter,
      this.model.onDidChange(() => this.render()),
      vscode.window.onDidChangeActiveTextEditor(() => this.renderStatusBar()),
      vscode.languages.registerHoverProvider(selector, { provideHover: (doc, pos) => this.hover(doc, pos) }),
      vscode.languages.registerCodeActionsProvider(selector, { provideCodeActions: (doc, range, ctx) => this.codeActions(doc, range, ctx) }, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
      vscode.languages.registerCodeLensProvider(selector, { onDidChangeCodeLenses: this.lensEmitter.event, provideCodeLenses: (doc) => this.codeLenses(doc) }),
      this.command(SPRINT_COMMANDS.setStoryStatus, 'Set story status', true, (key: unknown, status: unknown, root: unknown) => this.setStatus(key, status, root)),
      this.command(SPRINT_COMMANDS.checkTask, 'Tick task', true, (key: unknown, task: unknown, root: unknown) => this.checkTask(key, task, root)),
      this.command(SPRINT_COMMANDS.openStory, 'Open story', false, (key: unknown, root: unknown) => this.openStory(key, root)),
      this.command(SPRINT_COMMANDS.refresh, 'Refresh sprint', false, async () => {
        this.model.reloadAll();
        this.model.flush();
      }),
      this.command(SPRINT_COMMANDS.testSnapshot, 'Sprint snapshot', false, async () => {
        this.model.flush();
        return { reports: this.model.reports().map((r) => ({ root: r.root, next: r.next, stories: r.stories.map((s) => ({ key: s.key, status: s.status, description: storyDescription(s), problems: s.problems.map((p) => p.code) })) })), statusBar: this.statusBar.text, loads: this.model.loads };
      }),
    );
    this.render();
  }

  private command(id: string, action: string, writes: boolean, fn: (...args: unknown[]) => Promise<unknown>): vscode.Disposable {
    return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        if (writes) this.c.assertCanWrite(action);
        return await fn(...args);
      } catch (e) {
        const untrusted = WaymarkError.is(e) && !!e.data?.untrusted;
        const message = untrusted ? errorMessage(e) : `${action} failed: ${errorMessage(e)}`;
        this.c.lastError = { action, reason: WaymarkError.is(e) ? e.reason : undefined, message };
        this.c.log.error(`[sprint] ${message}`);
        void vscode.window.showErrorMessage(message, 'Show Log').then((b) => b && this.c.log.show(true));
        return undefined;
      }
    });
  }

  private render(): void {
    this.diagnostics.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const p of this.model.problems()) {
      const d = new vscode.Diagnostic(toRange(p), p.message, SEVERITY[p.severity]);
      d.source = 'waymark';
      d.code = p.code;
      PROBLEM_OF.set(d, p);
      const list = byFile.get(p.file) ?? [];
      list.push(d);
      byFile.set(p.file, list);
    }
    for (const [file, list] of byFile) this.diagnostics.set(vscode.Uri.file(file), list);
    this.renderStatusBar();
    this.lensEmitter.fire();
  }

  /** The story open in the editor, else the first in-progress story, else what BMAD would do next. */
  private renderStatusBar(): void {
    const active = vscode.window.activeTextEditor?.document.uri;
    const here = active?.scheme === 'file' ? this.model.storyAt(active.fsPath) : undefined;
    const pick = here ?? this.model.reports().flatMap((report) => report.stories.filter((s) => s.status === 'in-progress').map((story) => ({ report, story })))[0];
    if (!pick) {
      const next = this.model.reports().find((r) => r.next)?.next;
      if (!next) {
        this.statusBar.hide();
        return;
      }
      this.statusBar.text = `$(rocket) next: ${next.storyKey ?? next.action}`;
      this.statusBar.tooltip = `BMAD would run ${next.action}${next.storyKey ? ` on ${next.storyKey}` : ''}: ${next.reason}`;
      this.statusBar.command = { command: 'workbench.view.extension.waymark', title: 'Show Sprint' };
      this.statusBar.backgroundColor = undefined;
      this.statusBar.show();
      return;
    }
    const s = pick.story;
    const drift = s.problems.some((p) => p.severity === 'warning' || p.severity === 'error');
    this.statusBar.text = `$(${drift ? 'warning' : 'rocket'}) ${s.key} · ${s.status}${s.tasks.total ? ` · ${s.tasks.done}/${s.tasks.total}` : ''}`;
    const md = new vscode.MarkdownString(`**Story ${s.epic}.${s.story}**${s.title ? ` — ${s.title}` : ''}\n\n${storyDescription(s)}\n\n`, true);
    md.isTrusted = { enabledCommands: [SPRINT_COMMANDS.openStory, SPRINT_COMMANDS.setStoryStatus] };
    for (const p of s.problems.filter((x) => x.severity !== 'info')) md.appendMarkdown(`- $(warning) ${p.message}\n`);
    md.appendMarkdown(`\n[Open story](command:${SPRINT_COMMANDS.openStory}?${encodeURIComponent(JSON.stringify([s.key, pick.report.root]))})`);
    this.statusBar.tooltip = md;
    this.statusBar.command = { command: SPRINT_COMMANDS.openStory, title: 'Open story', arguments: [s.key, pick.report.root] };
    this.statusBar.backgroundColor = drift ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.statusBar.show();
  }

  private hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const at = this.model.storyAt(doc.uri.fsPath, pos.line);
    if (!at) return undefined;
    const { story: s, report } = at;
    const onLedger = doc.uri.fsPath === report.ledgerFile;
    if (!onLedger && s.fileStatusLine !== pos.line && pos.line > 2) {
      const p = s.problems.find((x) => x.file === doc.uri.fsPath && x.range.start.line === pos.line);
      if (!p) return undefined;
    }
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**Story ${s.epic}.${s.story}** \`${s.key}\`${s.title ? ` — ${s.title}` : ''}\n\n`);
    md.appendMarkdown(`| | |\n|---|---|\n| sprint-status.yaml | \`${s.ledgerRaw ?? 'no entry'}\` |\n| story file | \`${s.fileStatus ?? (s.file ? 'no Status line' : 'no file')}\` |\n| tasks | ${s.tasks.done}/${s.tasks.total}${s.tasks.reviewOpen ? ` (${s.tasks.reviewOpen} review follow-ups open)` : ''} |\n`);
    if (s.gate) md.appendMarkdown(`| gate | ${s.gate.verdict ?? '?'}${s.gate.open ? '' : ' (closed)'} |\n`);
    md.appendMarkdown('\n');
    for (const p of s.problems) md.appendMarkdown(`- ${p.severity === 'info' ? '$(info)' : '$(warning)'} ${p.message}\n`);
    if (report.next?.storyKey === s.key) md.appendMarkdown(`\n$(arrow-right) BMAD's next step: ${report.next.action} (${report.next.reason}).`);
    return new vscode.Hover(md);
  }

  private codeActions(doc: vscode.TextDocument, _range: vscode.Range | vscode.Selection, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    const root = this.c.rootFor(doc.uri.fsPath);
    for (const d of ctx.diagnostics) {
      const p = PROBLEM_OF.get(d);
      const fix = p?.data?.fix;
      const value = typeof p?.data?.value === 'string' ? p.data.value : undefined;
      const key = typeof p?.data?.key === 'string' ? p.data.key : undefined;
      if (!p || !value || !key) continue;
      if (fix === 'setLedgerValue') {
        // An edit to the document: safe with unsaved changes, undoable, only that value.
        const a = new vscode.CodeAction(`Set ${key} to ${value}`, vscode.CodeActionKind.QuickFix);
        a.edit = new vscode.WorkspaceEdit();
        a.edit.replace(doc.uri, d.range, value);
        a.diagnostics = [d];
        a.isPreferred = true;
        out.push(a);
      } else if (fix === 'setStoryStatus') {
        const a = new vscode.CodeAction(`Set ${key} to ${value} in the story file and sprint-status.yaml`, vscode.CodeActionKind.QuickFix);
        a.command = { command: SPRINT_COMMANDS.setStoryStatus, title: a.title, arguments: [key, value, root] };
        a.diagnostics = [d];
        a.isPreferred = true;
        out.push(a);
      }
    }
    return out;
  }

  private codeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const at = this.model.storyAt(doc.uri.fsPath);
    if (!at || doc.uri.fsPath === at.report.ledgerFile) return [];
    const s = at.story;
    const line = s.fileStatusLine ?? 0;
    const range = new vscode.Range(line, 0, line, 0);
    const next: [string, string][] = [];
    if (s.status === 'backlog' || s.status === 'ready-for-dev') next.push(['$(play) Start', 'in-progress']);
    if (s.status === 'in-progress') next.push(['$(eye) Move to review', 'review']);
    if (s.status === 'review') next.push(['$(pass) Done', 'done'], ['$(debug-step-back) Back to in-progress', 'in-progress']);
    return next.map(([title, status]) => new vscode.CodeLens(range, { title, command: SPRINT_COMMANDS.setStoryStatus, arguments: [s.key, status, at.report.root] }));
  }

  private rootArg(root: unknown): string {
    if (typeof root === 'string' && root) return root;
    const active = vscode.window.activeTextEditor?.document.uri;
    const fromEditor = active?.scheme === 'file' ? this.c.rootFor(active.fsPath) : undefined;
    const r = fromEditor ?? this.model.reports()[0]?.root ?? this.c.roots[0];
    if (!r) throw new WaymarkError('usage', 'Open a workspace folder with a BMAD sprint first.');
    return r;
  }

  /** Refuses when a file it would write is open with unsaved changes (they must never be overwritten). */
  private assertNotDirty(files: (string | undefined)[]): void {
    for (const f of files) {
      if (!f) continue;
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === f);
      if (doc?.isDirty) throw new WaymarkError('conflict', `${path.basename(f)} has unsaved changes; save or revert it first, then retry.`, f);
    }
  }

  private async setStatus(keyArg: unknown, statusArg: unknown, rootArg: unknown): Promise<unknown> {
    const root = this.rootArg(rootArg);
    const report = this.model.reports().find((r) => r.root === root) ?? loadSprint(root);
    if (!report) throw new WaymarkError('unreadable', `No BMAD sprint under ${root}.`);
    let key = typeof keyArg === 'string' ? keyArg : undefined;
    if (!key) {
      const picked = await vscode.window.showQuickPick(report.stories.map((s) => ({ label: s.key, description: storyDescription(s) })), { placeHolder: 'Story' });
      if (!picked) return undefined;
      key = picked.label;
    }
    let status = typeof statusArg === 'string' ? statusArg : undefined;
    if (!status) {
      status = await vscode.window.showQuickPick([...STORY_STATUSES], { placeHolder: `New status of ${key}` });
      if (!status) return undefined;
    }
    const s = findStory(report, key);
    this.assertNotDirty([s?.file, report.ledgerFile]);
    const actor = vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('actor', 'vscode') || 'vscode';
    const r = await setStoryStatus(root, key, status, { actor, expectHash: s?.stateHash });
    this.model.reloadAll();
    this.model.flush();
    this.c.log.info(`[sprint] ${r.key}: ${r.before.status} → ${r.after.status} (${r.written.length} file(s))`);
    return { key: r.key, status: r.after.status, written: r.written };
  }

  private async checkTask(keyArg: unknown, taskArg: unknown, rootArg: unknown): Promise<unknown> {
    const root = this.rootArg(rootArg);
    if (typeof keyArg !== 'string' || typeof taskArg !== 'string') throw new WaymarkError('usage', 'Give the story key and the task (its number, #N or text).');
    const report = this.model.reports().find((r) => r.root === root);
    const s = report ? findStory(report, keyArg) : undefined;
    this.assertNotDirty([s?.file]);
    const r = await checkStoryTask(root, keyArg, taskArg, { actor: 'vscode', expectHash: s?.stateHash });
    this.model.reloadAll();
    this.model.flush();
    return { key: r.key, task: r.task, tasks: r.after.tasks };
  }

  private async openStory(keyArg: unknown, rootArg: unknown): Promise<unknown> {
    const root = this.rootArg(rootArg);
    const report = this.model.reports().find((r) => r.root === root);
    const s = report && typeof keyArg === 'string' ? findStory(report, keyArg) : undefined;
    if (!report || !s) throw new WaymarkError('usage', `No story '${String(keyArg)}' in this workspace.`);
    const file = s.file ?? report.ledgerFile ?? s.planned?.file;
    if (!file) return undefined;
    const line = s.file ? s.fileStatusLine ?? 0 : file === report.ledgerFile ? s.ledgerLine ?? 0 : s.planned?.line ?? 0;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
    return file;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

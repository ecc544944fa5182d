// BMAD sprint surfaces: one SprintModel per window (the sprint of every workspace folder, re-read
// when a ledger, story, epics or gate file changes) and what reads it: the Sprint view, the
// in-progress story in the status bar, diagnostics, hovers, quick fixes and code lenses on story
// files and sprint-status.yaml, and the story commands. Writes go through the core's
// setStoryStatus/checkStoryTask (locks, hash check, atomic, one history entry).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, findStory, isSprintFix, loadSprint, STORY_STATUSES, type Problem } from '../core/index';
import { COMMANDS } from './constants';
import type { CommandRunner } from './commandRunner';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';
import { SprintModel } from './sprintModel';
import { SprintTree, storyDescription } from './sprintTree';

function toRange(p: Problem): vscode.Range {
  return new vscode.Range(p.range.start.line, p.range.start.character, p.range.end.line, p.range.end.character);
}

const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = { error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning, info: vscode.DiagnosticSeverity.Information };

/** Problem data kept per diagnostic for quick fixes. */
const PROBLEM_OF = new WeakMap<vscode.Diagnostic, Problem>();

/** Arguments of the story commands (code lenses, quick fixes and the tree pass them; the palette asks). */
interface StoryArgs {
  key?: string;
  status?: string;
  task?: string;
  root?: string;
}

function storyArgs(arg: unknown): StoryArgs {
  if (typeof arg === 'string') return { key: arg };
  if (arg && typeof arg === 'object') {
    const o = arg as { key?: unknown; status?: unknown; task?: unknown; root?: unknown; node?: unknown };
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return { key: str(o.key), status: str(o.status), task: str(o.task), root: str(o.root) };
  }
  return {};
}

export class SprintFeatures extends Disposable {
  readonly model: SprintModel;
  readonly tree: SprintTree;
  readonly diagnostics = this.register(vscode.languages.createDiagnosticCollection('waymark-sprint'));
  readonly statusBar: vscode.StatusBarItem;
  private readonly lensEmitter = this.register(new vscode.EventEmitter<void>());

  constructor(private readonly c: ExtensionModel, run: CommandRunner) {
    super();
    this.model = this.register(new SprintModel(c));
    this.register(this.model.onDidChange(() => c.project.sprintsChanged()));
    this.tree = this.register(new SprintTree(this.model, c));
    this.statusBar = this.register(vscode.window.createStatusBarItem('waymark.sprint', vscode.StatusBarAlignment.Left, 99));
    this.statusBar.name = 'Waymark Sprint';
    const selector: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/*.md' }, { scheme: 'file', pattern: '**/sprint-status.{yaml,yml}' }];
    this.register(this.model.onDidChange(() => this.render()));
    this.register(vscode.window.onDidChangeActiveTextEditor(() => this.renderStatusBar()));
    this.register(vscode.languages.registerHoverProvider(selector, { provideHover: (doc, pos) => this.hover(doc, pos) }));
    this.register(vscode.languages.registerCodeActionsProvider(selector, { provideCodeActions: (doc, range, ctx) => this.codeActions(doc, range, ctx) }, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }));
    this.register(vscode.languages.registerCodeLensProvider(selector, { onDidChangeCodeLenses: this.lensEmitter.event, provideCodeLenses: (doc) => this.codeLenses(doc) }));
    run.add('setStoryStatus', (arg) => this.setStatus(storyArgs(arg)));
    run.add('checkStoryTask', (arg) => this.checkTask(storyArgs(arg)));
    run.add('openStory', (arg) => this.openStory(storyArgs(arg)));
    run.add('refreshSprint', async () => {
      this.model.reloadAll();
      this.model.flush();
    });
    this.render();
  }

  /** What the Sprint surfaces show now, as plain data (the test API reads it). */
  snapshot(): { reports: { root: string; next?: unknown; stories: { key: string; status: string; description: string; problems: string[] }[] }[]; statusBar: string; loads: number } {
    this.model.flush();
    return {
      reports: this.model.reports().map((r) => ({ root: r.root, next: r.next, stories: r.stories.map((s) => ({ key: s.key, status: s.status, description: storyDescription(s), problems: s.problems.map((p) => p.code) })) })),
      statusBar: this.statusBar.text,
      loads: this.model.loads,
    };
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
    const md = new vscode.MarkdownString(`**Story ${s.epicId}.${s.story}**${s.title ? ` — ${s.title}` : ''}\n\n${storyDescription(s)}\n\n`, true);
    md.isTrusted = { enabledCommands: [COMMANDS.openStory, COMMANDS.setStoryStatus] };
    for (const p of s.problems.filter((x) => x.severity !== 'info')) md.appendMarkdown(`- $(warning) ${p.message}\n`);
    md.appendMarkdown(`\n[Open story](command:${COMMANDS.openStory}?${encodeURIComponent(JSON.stringify([{ key: s.key, root: pick.report.root }]))})`);
    this.statusBar.tooltip = md;
    this.statusBar.command = { command: COMMANDS.openStory, title: 'Open story', arguments: [{ key: s.key, root: pick.report.root }] };
    this.statusBar.backgroundColor = drift ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.statusBar.show();
  }

  private hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const at = this.model.storyAt(doc.uri.fsPath, pos.line);
    if (!at) return undefined;
    const { story: s, report } = at;
    const onLedger = report.ledgerFiles.includes(doc.uri.fsPath);
    if (!onLedger && s.fileStatusLine !== pos.line && pos.line > 2) {
      const p = s.problems.find((x) => x.file === doc.uri.fsPath && x.range.start.line === pos.line);
      if (!p) return undefined;
    }
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**Story ${s.epicId}.${s.story}** \`${s.key}\`${s.title ? ` — ${s.title}` : ''}\n\n`);
    md.appendMarkdown(`| | |\n|---|---|\n| sprint-status.yaml | \`${s.ledgerRaw ?? 'no entry'}\` |\n| story file | \`${s.fileStatus ?? (s.file ? 'no Status line' : 'no file')}\` |\n| tasks | ${s.tasks.done}/${s.tasks.total}${s.tasks.reviewOpen ? ` (${s.tasks.reviewOpen} review follow-ups open)` : ''} |\n`);
    if (s.gate) md.appendMarkdown(`| gate | ${s.gate.verdict ?? '?'}${s.gate.open ? '' : ' (closed)'} |\n`);
    md.appendMarkdown('\n');
    for (const p of s.problems) md.appendMarkdown(`- ${p.severity === 'info' ? '$(info)' : '$(warning)'} ${p.message}\n`);
    if (report.next?.storyKey === s.key) md.appendMarkdown(`\n$(arrow-right) BMAD's next step: ${report.next.action} (${report.next.reason}).`);
    return new vscode.Hover(md);
  }

  private codeActions(doc: vscode.TextDocument, _range: vscode.Range | vscode.Selection, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    for (const d of ctx.diagnostics) {
      const p = PROBLEM_OF.get(d);
      if (!p || !isSprintFix(p) || typeof p.data?.key !== 'string' || typeof p.data?.value !== 'string') continue;
      // The core's sprint fix, the same one `waymark fix FILE CODE` and the MCP tool apply.
      const a = new vscode.CodeAction(p.data.fix === 'setStoryStatus' ? `Set ${p.data.key} to ${p.data.value} in the story file and sprint-status.yaml` : `Set ${p.data.key} to ${p.data.value}`, vscode.CodeActionKind.QuickFix);
      a.command = { command: COMMANDS.applyFix, title: a.title, arguments: [{ file: doc.uri.fsPath, problem: p }] };
      a.diagnostics = [d];
      a.isPreferred = true;
      if (!this.c.canWrite) a.disabled = { reason: 'This workspace is not trusted: Waymark changes no file in Restricted Mode.' };
      out.push(a);
    }
    return out;
  }

  private codeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const at = this.model.storyAt(doc.uri.fsPath);
    if (!at || at.report.ledgerFiles.includes(doc.uri.fsPath)) return [];
    const s = at.story;
    const line = s.fileStatusLine ?? 0;
    const range = new vscode.Range(line, 0, line, 0);
    const next: [string, string][] = [];
    if (s.status === 'backlog' || s.status === 'ready-for-dev') next.push(['$(play) Start', 'in-progress']);
    if (s.status === 'in-progress') next.push(['$(eye) Move to review', 'review']);
    if (s.status === 'review') next.push(['$(pass) Done', 'done'], ['$(debug-step-back) Back to in-progress', 'in-progress']);
    return next.map(([title, status]) => new vscode.CodeLens(range, { title, command: COMMANDS.setStoryStatus, arguments: [{ key: s.key, status, root: at.report.root }] }));
  }

  private rootArg(root: string | undefined): string {
    if (root) return root;
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

  private async setStatus(args: StoryArgs): Promise<unknown> {
    const root = this.rootArg(args.root);
    const report = this.model.reports().find((r) => r.root === root) ?? loadSprint(root);
    if (!report) throw new WaymarkError('unreadable', `No BMAD sprint under ${root}.`);
    let key = args.key;
    if (!key) {
      const picked = await vscode.window.showQuickPick(report.stories.map((s) => ({ label: s.key, description: storyDescription(s) })), { placeHolder: 'Story' });
      if (!picked) return undefined;
      key = picked.label;
    }
    let status = args.status;
    if (!status) {
      status = await vscode.window.showQuickPick([...STORY_STATUSES], { placeHolder: `New status of ${key}` });
      if (!status) return undefined;
    }
    const s = findStory(report, key);
    this.assertNotDirty([s?.file, s?.ledgerFile ?? report.ledgerFile]);
    const actor = this.c.settings.actor || 'vscode';
    const r = await this.c.core.sprint.setStoryStatus(root, key, status, { actor, expectHash: s?.stateHash });
    this.model.reloadAll();
    this.model.flush();
    this.c.log.info(`[sprint] ${r.key}: ${r.before.status} → ${r.after.status} (${r.written.length} file(s))`);
    return { key: r.key, status: r.after.status, written: r.written };
  }

  private async checkTask(args: StoryArgs): Promise<unknown> {
    const root = this.rootArg(args.root);
    const keyArg = args.key;
    const taskArg = args.task;
    if (!keyArg || !taskArg) throw new WaymarkError('usage', 'Give the story key and the task (its number, #N or text).');
    const report = this.model.reports().find((r) => r.root === root);
    const s = report ? findStory(report, keyArg) : undefined;
    this.assertNotDirty([s?.file]);
    const r = await this.c.core.sprint.checkStoryTask(root, keyArg, taskArg, { actor: this.c.settings.actor || 'vscode', expectHash: s?.stateHash });
    this.model.reloadAll();
    this.model.flush();
    return { key: r.key, task: r.task, tasks: r.after.tasks };
  }

  private async openStory(args: StoryArgs): Promise<unknown> {
    const root = this.rootArg(args.root);
    const report = this.model.reports().find((r) => r.root === root);
    const s = report && args.key ? findStory(report, args.key) : undefined;
    if (!report || !s) throw new WaymarkError('usage', `No story '${String(args.key)}' in this workspace.`);
    const ledgerFile = s.ledgerFile ?? report.ledgerFile;
    const file = s.file ?? ledgerFile ?? s.planned?.file;
    if (!file) return undefined;
    const line = s.file ? s.fileStatusLine ?? 0 : file === ledgerFile ? s.ledgerLine ?? 0 : s.planned?.line ?? 0;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
    return file;
  }

}

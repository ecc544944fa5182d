// BMAD sprint surfaces: one SprintModel per window (the sprint of every workspace folder, re-read
// when a ledger, story, epics or gate file changes) and one TicketTreeModel (BMAD v7's ticket tree),
// and what reads them: the Sprint view, the in-progress story or ticket in the status bar,
// diagnostics, hovers, quick fixes and code lenses on story files, sprint-status.yaml, plans and
// `tickets.toml`, and the story and ticket commands. Writes go through the core's
// setStoryStatus/checkStoryTask (locks, hash check, atomic, one history entry); a ticket's status
// through the same set-status path, which writes its plan the way `tickets.py mark` does.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PLAN_STATUSES, WaymarkError, findStory, isSprintFix, loadSprint, resolveTicket, STORY_STATUSES, type Problem, type Ticket } from '../core/index';
import { COMMANDS, CONTEXT } from './constants';
import type { CommandRunner } from './commandRunner';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';
import { SprintModel } from './sprintModel';
import { SprintTree, liveReports, storyDescription, ticketNextLine } from './sprintTree';
import { ticketDescription, ticketLabel, ticketMarkdown, TICKET_CARD_COMMANDS, type TicketArgs } from './ticketPresentation';
import { TicketTreeModel, allTickets, type TreeReport } from './ticketTreeModel';

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
  /** BMAD v7's ticket tree of every folder that has one. */
  readonly trees: TicketTreeModel;
  readonly tree: SprintTree;
  readonly diagnostics = this.register(vscode.languages.createDiagnosticCollection('waymark-sprint'));
  readonly statusBar: vscode.StatusBarItem;
  private readonly lensEmitter = this.register(new vscode.EventEmitter<void>());

  constructor(private readonly c: ExtensionModel, run: CommandRunner) {
    super();
    this.model = this.register(new SprintModel(c));
    this.register(this.model.onDidChange(() => c.project.sprintsChanged()));
    this.trees = this.register(new TicketTreeModel(c));
    this.register(this.trees.onDidChange(() => c.project.sprintsChanged()));
    this.tree = this.register(new SprintTree(this.model, c, this.trees));
    // Until both are first read, the Sprint view says it is looking (not that there is no sprint).
    void vscode.commands.executeCommand('setContext', CONTEXT.sprintReading, true);
    void Promise.all([this.model.firstRead, this.trees.firstRead]).then(() => {
      if (this.isDisposed) return;
      void vscode.commands.executeCommand('setContext', CONTEXT.sprintReading, false);
      void vscode.commands.executeCommand('setContext', CONTEXT.sprintRead, true);
    });
    this.statusBar = this.register(vscode.window.createStatusBarItem('waymark.sprint', vscode.StatusBarAlignment.Left, 99));
    this.statusBar.name = 'Waymark Sprint';
    const selector: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/*.md' }, { scheme: 'file', pattern: '**/sprint-status.{yaml,yml}' }, { scheme: 'file', pattern: '**/tickets.toml' }];
    this.register(this.model.onDidChange(() => this.render()));
    this.register(this.trees.onDidChange(() => this.render()));
    this.register(vscode.window.onDidChangeActiveTextEditor(() => this.renderStatusBar()));
    this.register(vscode.languages.registerHoverProvider(selector, { provideHover: (doc, pos) => this.hover(doc, pos) }));
    this.register(vscode.languages.registerCodeActionsProvider(selector, { provideCodeActions: (doc, range, ctx) => this.codeActions(doc, range, ctx) }, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }));
    this.register(vscode.languages.registerCodeLensProvider(selector, { onDidChangeCodeLenses: this.lensEmitter.event, provideCodeLenses: (doc) => this.codeLenses(doc) }));
    run.add('setStoryStatus', (arg) => this.setStatus(storyArgs(arg)));
    run.add('checkStoryTask', (arg) => this.checkTask(storyArgs(arg)));
    run.add('openStory', (arg) => this.openStory(storyArgs(arg)));
    run.add('setTicketStatus', (arg) => this.setTicketStatus(ticketArgs(arg)));
    run.add('openTicket', (arg) => this.openTicket(ticketArgs(arg), 'file'));
    run.add('openTicketPlan', (arg) => this.openTicket(ticketArgs(arg), 'plan'));
    run.add('refreshSprint', async () => {
      this.reloadNow();
    });
    this.render();
  }

  /** What the Sprint surfaces show now, as plain data (the test API reads it). */
  snapshot(): {
    reports: { root: string; next?: unknown; history: boolean; stories: { key: string; status: string; description: string; problems: string[] }[] }[];
    trees: { root: string; folder: string; store: string; next: Record<string, { ref: string; waitingOn: string[] }[]>; tickets: { ref: string; key: string; state: string; status: string; assignee: string; blockedReason: string; description: string }[]; problems: { file: string; line: number; code: string; message: string }[] }[];
    statusBar: string;
    loads: number;
  } {
    this.model.flush();
    this.trees.flush();
    const live = new Set(liveReports(this.model, this.trees));
    return {
      reports: this.model.reports().map((r) => ({ root: r.root, next: r.next, history: !live.has(r), stories: r.stories.map((s) => ({ key: s.key, status: s.status, description: storyDescription(s), problems: s.problems.map((p) => p.code) })) })),
      trees: this.trees.reports().map((r) => ({
        root: r.root,
        folder: r.tree.folder,
        store: r.tree.store,
        next: Object.fromEntries(Object.entries(r.next).map(([g, items]) => [g, (items as TreeReport['next']['blocked']).map((i) => ({ ref: i.ref, waitingOn: i.waitingOn }))])),
        tickets: allTickets(r).map((t) => ({ ref: t.ref, key: t.key, state: t.state, status: t.status, assignee: t.assignee, blockedReason: t.blockedReason, description: ticketDescription(r, t) })),
        problems: r.problems.map((p) => ({ file: p.file, line: p.range.start.line, code: p.code, message: p.message })),
      })),
      statusBar: this.statusBar.text,
      loads: this.model.loads + this.trees.loads,
    };
  }

  private reloadNow(): void {
    this.model.reloadAll();
    this.model.flush();
    this.trees.reloadAll();
    this.trees.flush();
  }

  private render(): void {
    this.diagnostics.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    // A migrated project's archived ledger is history: its old drift is no problem of today's work.
    for (const p of [...liveReports(this.model, this.trees).flatMap((r) => r.problems), ...this.trees.problems()]) {
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

  /**
   * The story or ticket open in the editor, else the first in-progress ticket or story, else what
   * BMAD would do next (the tree's `next` first: in a migrated project it is the work).
   */
  private renderStatusBar(): void {
    const active = vscode.window.activeTextEditor?.document.uri;
    const live = liveReports(this.model, this.trees);
    const opened = active?.scheme === 'file' ? this.model.storyAt(active.fsPath) : undefined;
    const here = opened && live.includes(opened.report) ? opened : undefined;
    const hereTicket = active?.scheme === 'file' && !here ? this.trees.ticketAt(active.fsPath) : undefined;
    // Being built before waiting for review: the ticket someone is on now.
    const working = (r: TreeReport) => {
      const live = r.next.inProgress.map((i) => i.ticket).filter((t) => t.status !== 'blocked');
      return [...live.filter((t) => t.state === 'in-progress'), ...live.filter((t) => t.state !== 'in-progress')];
    };
    const ticketPick = hereTicket ?? (here ? undefined : this.trees.reports().flatMap((report) => working(report).map((ticket) => ({ report, ticket })))[0]);
    if (ticketPick) return this.renderTicketStatus(ticketPick.report, ticketPick.ticket);
    const pick = here ?? live.flatMap((report) => report.stories.filter((s) => s.status === 'in-progress').map((story) => ({ report, story })))[0];
    if (!pick) {
      const tree = this.trees.reports()[0];
      if (tree) {
        const { label, ticket } = ticketNextLine(tree);
        this.statusBar.text = `$(rocket) ${label.replace(/^Next: /, 'next: ')}`;
        this.statusBar.tooltip = ticket ? ticketMarkdown(tree, ticket, { canWrite: this.c.canWrite }) : label;
        this.statusBar.command = ticket ? { command: COMMANDS.openTicket, title: 'Open ticket', arguments: [{ root: tree.root, ref: ticket.key }] } : { command: 'workbench.view.extension.waymark', title: 'Show Sprint' };
        this.statusBar.backgroundColor = undefined;
        this.statusBar.show();
        return;
      }
      const next = live.find((r) => r.next)?.next;
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

  /** `$(rocket) 2.1 Card form · in-progress · @ben`, its card as the tooltip, a click opens it. */
  private renderTicketStatus(report: TreeReport, t: Ticket): void {
    const bad = report.problems.some((p) => p.severity !== 'info' && (p.file === t.file || p.file === t.plan));
    const blocked = t.status === 'blocked';
    this.statusBar.text = `$(${bad ? 'warning' : blocked ? 'circle-slash' : 'rocket'}) ${ticketLabel(t)} · ${blocked ? 'blocked' : t.state}${t.assignee ? ` · @${t.assignee}` : ''}`;
    this.statusBar.tooltip = ticketMarkdown(report, t, { canWrite: this.c.canWrite });
    this.statusBar.command = { command: COMMANDS.openTicket, title: 'Open ticket', arguments: [{ root: report.root, ref: t.key }] };
    this.statusBar.backgroundColor = bad || blocked ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.statusBar.show();
  }

  private hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const at = this.model.storyAt(doc.uri.fsPath, pos.line);
    if (!at) return this.ticketHover(doc, pos);
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

  /**
   * On a ticket's plan or leaf file (in its frontmatter) or on its `[[entry]]` in `tickets.toml`:
   * the ticket's card; on an `[[epic]]` table or an epic file's frontmatter: the epic; with the
   * tree's problems on that line.
   */
  private ticketHover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const file = doc.uri.fsPath;
    const report = this.trees.reportFor(file);
    if (!report) return undefined;
    const problems = report.problems.filter((p) => p.file === file && p.range.start.line <= pos.line && p.range.end.line >= pos.line);
    const isToml = path.basename(file) === 'tickets.toml';
    const inFrontmatter = !isToml && pos.line <= frontmatterEnd(doc);
    const ticket = isToml || inFrontmatter ? this.trees.ticketAt(file, isToml ? pos.line : undefined) : undefined;
    let md: vscode.MarkdownString | undefined;
    if (ticket) md = ticketMarkdown(report, ticket.ticket, { canWrite: this.c.canWrite });
    else {
      const epic = isToml || inFrontmatter ? this.trees.epicAt(file, isToml ? pos.line : undefined) : undefined;
      if (epic) {
        const e = epic.epic;
        md = new vscode.MarkdownString(undefined, true);
        md.appendMarkdown(`**${e.title || e.slug}** \`${e.slug}\` · ${e.status || 'no status'} · ${e.tickets.length} tickets\n\n`);
        for (const a of e.after) md.appendMarkdown(`- after \`${a.epic}\`${a.needs ? `: ${a.needs}` : ''}\n`);
        if (e.gatedBy.length) md.appendMarkdown(`- waits for ${e.gatedBy.map((g) => `\`${g}\``).join(', ')} to be done before any of its tickets starts\n`);
      }
    }
    if (!md && !problems.length) return undefined;
    md ??= new vscode.MarkdownString(undefined, true);
    if (!md.isTrusted) md.isTrusted = { enabledCommands: TICKET_CARD_COMMANDS };
    for (const p of problems) md.appendMarkdown(`\n\n${p.severity === 'error' ? '$(error)' : p.severity === 'warning' ? '$(warning)' : '$(info)'} **${p.code}**: ${p.message}`);
    return new vscode.Hover(md);
  }

  /**
   * A tree problem whose fix is a ticket status, written by the core's set-status path: a plan with
   * a status BMAD does not know (pick one), or a migration finding (set what the archived ledger
   * says, BMAD's mapping; never preferred, since the tree may simply have moved on).
   */
  private treeFix(file: string, p: Problem): vscode.CodeAction | undefined {
    const report = this.trees.reportFor(file);
    if (!report?.problems.includes(p) || report.tree.store !== 'repo') return undefined;
    if (p.code === 'migrate-status-mismatch' && typeof p.data?.ref === 'string' && typeof p.data.expected === 'string') {
      const a = new vscode.CodeAction(`Set ${p.data.ref} to ${p.data.expected} (the archived ledger's status, by BMAD's mapping)`, vscode.CodeActionKind.QuickFix);
      a.command = { command: COMMANDS.setTicketStatus, title: a.title, arguments: [{ root: report.root, ref: p.data.ref, status: p.data.expected }] };
      return a;
    }
    if (p.code === 'tree-plan-status') {
      const t = allTickets(report).find((x) => x.plan === file);
      if (!t) return undefined;
      const a = new vscode.CodeAction(`Set ${t.ref} to a status BMAD knows…`, vscode.CodeActionKind.QuickFix);
      a.command = { command: COMMANDS.setTicketStatus, title: a.title, arguments: [{ root: report.root, ref: t.key }] };
      a.isPreferred = true;
      return a;
    }
    return undefined;
  }

  private codeActions(doc: vscode.TextDocument, _range: vscode.Range | vscode.Selection, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    for (const d of ctx.diagnostics) {
      const p = PROBLEM_OF.get(d);
      const treeFix = p ? this.treeFix(doc.uri.fsPath, p) : undefined;
      if (treeFix) {
        treeFix.diagnostics = [d];
        if (!this.c.canWrite) treeFix.disabled = { reason: 'This workspace is not trusted: Waymark changes no file in Restricted Mode.' };
        out.push(treeFix);
        continue;
      }
      if (p && !isSprintFix(p) && p.data?.fix && this.trees.reportFor(doc.uri.fsPath)?.problems.includes(p)) {
        // The tree's own fix, the same one `waymark fix FILE CODE` and the MCP tool apply.
        const a = new vscode.CodeAction(typeof p.data.title === 'string' ? p.data.title : fixTitleOf(p), vscode.CodeActionKind.QuickFix);
        a.command = { command: COMMANDS.applyFix, title: a.title, arguments: [{ file: doc.uri.fsPath, problem: p }] };
        a.diagnostics = [d];
        if (!this.c.canWrite) a.disabled = { reason: 'This workspace is not trusted: Waymark changes no file in Restricted Mode.' };
        out.push(a);
        continue;
      }
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
    const report = this.model.reports().find((r) => r.root === root) ?? loadSprint(root, { cache: this.c.canWrite });
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

  /** The tree of a folder and the ticket a ref or key names there (a quick pick when none is given). */
  private async pickTicket(args: TicketArgs, placeHolder: string): Promise<{ report: TreeReport; ticket: Ticket } | undefined> {
    this.trees.flush();
    const root = this.rootArg(args.root ?? this.trees.reports()[0]?.root);
    const report = this.trees.reports().find((r) => r.root === root);
    if (!report) throw new WaymarkError('unreadable', `No BMAD ticket tree under ${root}: no initiative folder with a tickets.toml. For a v6 sprint use Waymark: Set Story Status.`, root);
    if (args.ref) {
      const byKey = allTickets(report).find((t) => t.key === args.ref);
      if (byKey) return { report, ticket: byKey };
      const hit = resolveTicket(report.tree, args.ref);
      if ('error' in hit) throw new WaymarkError('usage', `${hit.error}. Run waymark next to list the tickets and their refs.`);
      return { report, ticket: hit.ticket };
    }
    const picked = await vscode.window.showQuickPick(allTickets(report).map((t) => ({ label: ticketLabel(t), description: ticketDescription(report, t), key: t.key })), { placeHolder, matchOnDescription: true });
    return picked ? { report, ticket: allTickets(report).find((t) => t.key === picked.key)! } : undefined;
  }

  /** Opens a ticket's leaf file, else its plan, else its `[[entry]]` in `tickets.toml` (`plan`: the plan first). */
  private async openTicket(args: TicketArgs, first: 'file' | 'plan'): Promise<unknown> {
    const at = await this.pickTicket(args, 'Ticket to open');
    if (!at) return undefined;
    const t = at.ticket;
    if (first === 'plan' && !t.plan) throw new WaymarkError('usage', `${ticketLabel(t)} has no plan yet (it would be ${path.basename(t.planPath)}); Waymark: Set Ticket Status creates it, as tickets.py mark does.`);
    const target = first === 'plan' ? { file: t.plan!, line: t.statusPos && t.statusPos.file === t.plan ? t.statusPos.line : 0 } : t.file ? { file: t.file, line: t.statusPos && t.statusPos.file === t.file ? t.statusPos.line : 0 } : t.plan ? { file: t.plan, line: t.statusPos && t.statusPos.file === t.plan ? t.statusPos.line : 0 } : t.entryPos ? { file: t.entryPos.file, line: t.entryPos.line } : undefined;
    if (!target) throw new WaymarkError('usage', `${ticketLabel(t)} has no file, plan or entry to open.`);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(target.file));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(target.line, 0, target.line, 0), preview: true });
    return target.file;
  }

  /** Sets a ticket's status in its plan (created frontmatter-only when missing), `--blocked` with a reason. */
  private async setTicketStatus(args: TicketArgs): Promise<unknown> {
    const at = await this.pickTicket(args, 'Ticket');
    if (!at) return undefined;
    const { report, ticket: t } = at;
    if (report.tree.store !== 'repo') throw new WaymarkError('invalid', `The ticket store is ${report.tree.store}: ${ticketLabel(t)}'s status comes from the tracker. Change it there (or with the store's own write verb), then sync.`);
    let status = args.status;
    if (!status) {
      status = (await vscode.window.showQuickPick(PLAN_STATUSES.map((s) => ({ label: s, description: s === t.status ? 'now' : undefined })), { placeHolder: `New status of ${ticketLabel(t)}` }))?.label;
      if (!status) return undefined;
    }
    let blocked = args.blocked;
    if (status === 'blocked' && blocked === undefined) {
      blocked = await vscode.window.showInputBox({ prompt: `Why is ${ticketLabel(t)} blocked?`, value: t.blockedReason, validateInput: (v) => (v.trim() ? undefined : 'Give the reason (it goes to blocked_reason in the plan).') });
      if (blocked === undefined) return undefined;
    }
    this.assertNotDirty([t.plan]);
    const actor = this.c.settings.actor || 'vscode';
    const r = await this.c.core.sprint.setTicketStatus(report.root, t.ref, status, { actor, folder: t.backlog ? path.dirname(t.file ?? t.planPath) : report.tree.folder, blocked, assignee: args.assignee });
    this.reloadNow();
    this.c.log.info(`[tickets] ${r.ref}: ${r.before.status || 'no status'} → ${r.after.status} (${r.created ? 'plan created' : `${r.written.length} file(s)`})`);
    return { ref: r.ref, status: r.after.status, plan: r.plan, created: r.created, written: r.written };
  }
}

function ticketArgs(arg: unknown): TicketArgs {
  if (typeof arg === 'string') return { ref: arg };
  if (arg && typeof arg === 'object') {
    const o = arg as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return { root: str(o.root), ref: str(o.ref) ?? str(o.key), status: str(o.status), blocked: str(o.blocked), assignee: str(o.assignee) };
  }
  return {};
}

/** The last line of a Markdown file's frontmatter (0 when it has none). */
function frontmatterEnd(doc: vscode.TextDocument): number {
  if (doc.lineCount < 2 || doc.lineAt(0).text.replace(/^\uFEFF/, '').trimEnd() !== '---') return 0;
  for (let i = 1; i < Math.min(doc.lineCount, 200); i++) if (doc.lineAt(i).text.trimEnd() === '---') return i;
  return 0;
}

function fixTitleOf(p: Problem): string {
  return typeof p.data?.fix === 'string' ? `Fix: ${p.data.fix}` : 'Fix';
}

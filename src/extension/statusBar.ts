// The current step of the active workflow: the one in the active editor, else the configured
// one, else the most recently updated in-progress one. Click: quick pick of next actions.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WorkflowState } from '../core/index';
import { COMMANDS, CONFIG_SECTION, STATUS_BAR_ID } from './constants';
import type { Container } from './container';
import { STATUS_LABELS, activeStep, gateFor, gateLabel, progress, statusKey } from './presentation';

export class StatusBar implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem(STATUS_BAR_ID, vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [];
  /** The workflow shown now. */
  current?: WorkflowState;

  constructor(private readonly c: Container) {
    this.item.name = 'Waymark';
    this.item.command = COMMANDS.nextActions;
    this.disposables.push(
      this.item,
      c.onDidChangeModel(() => this.update()),
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(CONFIG_SECTION) && this.update()),
    );
  }

  pick(): WorkflowState | undefined {
    const states = this.c.states();
    const editor = vscode.window.activeTextEditor;
    if (editor?.document.uri.scheme === 'file') {
      const s = this.c.get(editor.document.uri.fsPath);
      if (s) return s;
    }
    const configured = vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('statusBar.workflow', '').trim();
    if (configured) {
      const s = states.find((x) => x.workflow === configured || this.c.relative(x.file) === configured || x.file === configured || path.basename(x.file) === configured);
      if (s) return s;
    }
    const running = states.filter((s) => s.status === 'in_progress');
    running.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || a.file.localeCompare(b.file));
    return running[0];
  }

  update(): void {
    if (!vscode.workspace.getConfiguration(CONFIG_SECTION).get<boolean>('statusBar.enabled', true)) {
      this.item.hide();
      return;
    }
    const s = this.pick();
    this.current = s;
    if (!s) {
      this.item.hide();
      return;
    }
    const step = activeStep(s);
    const gate = step ? gateFor(s, step) : undefined;
    const errors = this.c.problemsFor(s.file).filter((p) => p.severity === 'error');
    const blocked = s.status === 'blocked';
    const gateClosed = !!gate && !gate.open;
    const icon = blocked ? '$(circle-slash)' : gateClosed ? '$(lock)' : errors.length ? '$(warning)' : s.status === 'completed' ? '$(pass)' : '$(milestone)';
    const middle = s.status === 'completed' ? 'completed' : (step ?? STATUS_LABELS[statusKey(s)] ?? 'no step');
    this.item.text = `${icon} ${this.c.displayName(s)} · ${middle} · ${progress(s)}${s.stale ? ' · stale' : ''}`;
    this.item.backgroundColor = blocked || errors.length ? new vscode.ThemeColor('statusBarItem.errorBackground') : gateClosed || s.stale ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = { label: `Waymark: ${s.workflow}, ${middle}, ${progress(s)} steps done` };

    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: Object.values(COMMANDS) };
    const arg = (extra: Record<string, unknown> = {}) => encodeURIComponent(JSON.stringify([{ file: s.file, ...extra }]));
    md.appendMarkdown(`**${s.workflow}** — ${STATUS_LABELS[statusKey(s)] ?? s.rawStatus ?? 'no status'} · ${progress(s)} steps\n\n`);
    md.appendMarkdown(`\`${this.c.relative(s.file)}\`\n\n`);
    if (step) md.appendMarkdown(`Current step: \`${step}\`${gate ? ` · gate **${gateLabel(gate)}**` : ''}\n\n`);
    if (s.blockedReason) md.appendMarkdown(`$(circle-slash) Blocked: ${s.blockedReason}\n\n`);
    if (errors.length) md.appendMarkdown(`$(warning) ${errors.length} problem(s): ${errors[0].message}\n\n`);
    const links: string[] = [];
    if (s.status === 'in_progress') links.push(`[$(arrow-right) Advance](command:${COMMANDS.advance}?${arg()})`);
    if (s.status === 'created') links.push(`[$(play) Start](command:${COMMANDS.start}?${arg()})`);
    if (blocked) links.push(`[$(debug-continue) Unblock](command:${COMMANDS.unblock}?${arg()})`);
    links.push(`[$(debug-start) Resume](command:${COMMANDS.resume}?${arg()})`);
    links.push(`[$(go-to-file) Open](command:${COMMANDS.openFile}?${arg({ key: 'currentStep' })})`);
    links.push(`[$(history) History](command:${COMMANDS.history}?${arg()})`);
    md.appendMarkdown(links.join(' · '));
    this.item.tooltip = md;
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

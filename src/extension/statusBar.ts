// The current step of the active workflow: the one in the active editor, else the configured
// one, else the most recently updated in-progress one (in progress where the project reads it: a
// spec set aside in `archive/` or of a finished epic is not, whatever status it kept). Click: quick
// pick of next actions.
// Also shows who holds an orchestrator lease on it, where resume would continue and how
// degraded that answer is (full / standard / minimal / none), and `memory: degraded` with why.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ResumeReport, WorkflowState } from '../core/index';
import { errorMessage } from '../core/index';
import { COMMANDS, STATUS_BAR_ID } from './constants';
import { Disposable } from './disposable';
import { leaseMarkdown } from './leases';
import type { ExtensionModel } from './model';
import { STATUS_LABELS, activeStep, escapeMd, gateFor, gateLabel, progress, statusKey } from './presentation';

/** The order of `localeCompare` (the default locale's collation), without a collator per call. */
const collate = new Intl.Collator().compare;

/** The memory status is asked for at most this often (it may open the Kuzu database). */
const MEMORY_STATUS_EVERY_MS = 10_000;

const DEGRADATION_MEANING: Record<string, string> = {
  full: 'frontmatter, checkpoint and orchestrator state all know this file',
  standard: 'two of frontmatter, checkpoint and orchestrator state know this file',
  minimal: 'only one source knows this file',
  none: 'nothing knows where this file stands',
};

/** One Markdown line: `Resume: continue at … · tier 1 (frontmatter) · degradation minimal — …`. */
export function resumeLine(r: ResumeReport): string {
  const where = r.done ? 'every step done' : r.step ? `continue at \`${r.step}\`` : 'no step';
  return `$(debug-start) Resume: ${where} · tier ${r.tier} (${r.source}) · degradation **${r.degradation}** (${DEGRADATION_MEANING[r.degradation] ?? r.degradation})`;
}

export class StatusBar extends Disposable {
  readonly item = this.register(vscode.window.createStatusBarItem(STATUS_BAR_ID, vscode.StatusBarAlignment.Left, 50));
  /** The workflow shown now. */
  current?: WorkflowState;
  /** Resume answer for the workflow shown (loaded after each change, off the UI path). */
  resume?: ResumeReport;
  /** `memory: ok (…)` / `memory: degraded: <reason> …`, when the memory features are loaded. */
  memoryLine?: string;
  private memoryAskedAt = 0;
  private extrasTimer?: NodeJS.Timeout;
  private extrasRun = 0;

  constructor(
    private readonly c: ExtensionModel,
    /** The memory line (`memory: ok …`), when the memory features are loaded. */
    private readonly memoryStatus: () => Promise<string | undefined> = async () => undefined,
  ) {
    super();
    this.item.name = 'Waymark';
    this.item.command = COMMANDS.nextActions;
    this.register({ dispose: () => clearTimeout(this.extrasTimer) });
    this.register(c.onDidChange(() => this.update()));
    this.register(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
  }

  pick(): WorkflowState | undefined {
    const states = this.c.states();
    const editor = vscode.window.activeTextEditor;
    if (editor?.document.uri.scheme === 'file') {
      const s = this.c.get(editor.document.uri.fsPath);
      if (s) return s;
    }
    const configured = this.c.settings.statusBarWorkflow;
    if (configured) {
      const s = states.find((x) => x.workflow === configured || this.c.relative(x.file) === configured || x.file === configured || path.basename(x.file) === configured);
      if (s) return s;
    }
    // The most recently updated workflow in progress: one pass, not a sort of them all (10,000 files, every change).
    let best: WorkflowState | undefined;
    for (const s of states) if (s.status === 'in_progress' && this.c.shownStatus(s) === 'in_progress' && (!best || (collate(s.updatedAt ?? '', best.updatedAt ?? '') || collate(best.file, s.file)) > 0)) best = s;
    return best;
  }

  update(): void {
    this.render();
    clearTimeout(this.extrasTimer);
    if (this.current) this.extrasTimer = setTimeout(() => void this.loadExtras(), 100);
  }

  /** Loads what needs file reads (resume tiers) or the memory service, then re-renders. */
  private async loadExtras(): Promise<void> {
    const s = this.current;
    if (!s) return;
    const run = ++this.extrasRun;
    const askMemory = Date.now() - this.memoryAskedAt >= MEMORY_STATUS_EVERY_MS || this.memoryLine === undefined;
    if (askMemory) this.memoryAskedAt = Date.now();
    const [report, memory] = await Promise.all([this.resumeOf(s.file), askMemory ? this.memoryLineNow() : Promise.resolve(this.memoryLine)]);
    if (this.isDisposed || run !== this.extrasRun || this.current?.file !== s.file) return;
    const before = JSON.stringify([this.resume?.file, this.resume?.tier, this.resume?.source, this.resume?.degradation, this.resume?.step, this.memoryLine]);
    this.resume = report;
    this.memoryLine = memory;
    if (JSON.stringify([report?.file, report?.tier, report?.source, report?.degradation, report?.step, memory]) !== before) this.render();
  }

  private render(): void {
    if (!this.c.settings.statusBarEnabled) {
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
    // Open in the editor, a file set aside or finished where the project reads it says so, not its step.
    const standing = this.c.standing(s);
    const icon = standing?.status === 'archived' ? '$(archive)' : blocked ? '$(circle-slash)' : gateClosed ? '$(lock)' : errors.length ? '$(warning)' : s.status === 'completed' || standing ? '$(pass)' : '$(milestone)';
    const middle = standing ? (standing.status === 'archived' ? 'set aside' : 'finished') : s.status === 'completed' ? 'completed' : (step ?? STATUS_LABELS[statusKey(s)] ?? 'no step');
    const allHolders = this.c.leaseHolders(s.file);
    const holders = allHolders.filter((h) => !h.stale);
    const foreign = holders.find((h) => !h.mine);
    const leaseText = foreign ? ` · $(lock) ${foreign.lease.owner.agent}` : holders.length ? ' · $(key) leased' : '';
    const resumeFor = this.resume && this.resume.file === s.file ? this.resume : undefined;
    const memoryDegraded = this.memoryLine?.startsWith('memory: degraded');
    this.item.text = `${icon} ${this.c.displayName(s)} · ${middle} · ${progress(s)}${s.stale ? ' · stale' : ''}${leaseText}${memoryDegraded ? ' · $(database) memory degraded' : ''}`;
    this.item.backgroundColor = blocked || errors.length ? new vscode.ThemeColor('statusBarItem.errorBackground') : gateClosed || s.stale || foreign ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = {
      label: `Waymark: ${s.workflow}, ${middle}, ${progress(s)} steps done${foreign ? `, locked by ${foreign.lease.owner.agent}` : ''}${memoryDegraded ? ', memory degraded' : ''}`,
    };

    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: Object.values(COMMANDS) };
    const arg = (extra: Record<string, unknown> = {}) => encodeURIComponent(JSON.stringify([{ file: s.file, ...extra }]));
    md.appendMarkdown(`**${s.workflow}** — ${STATUS_LABELS[statusKey(s)] ?? s.rawStatus ?? 'no status'} · ${progress(s)} steps\n\n`);
    md.appendMarkdown(`\`${this.c.relative(s.file)}\`\n\n`);
    if (standing) md.appendMarkdown(`$(${standing.status === 'archived' ? 'archive' : 'pass'}) ${escapeMd(standing.message)}: not in progress on the board or in \`waymark next\`.\n\n`);
    if (step) md.appendMarkdown(`Current step: \`${step}\`${gate ? ` · gate **${gateLabel(gate)}**` : ''}\n\n`);
    if (s.blockedReason) md.appendMarkdown(`$(circle-slash) Blocked: ${s.blockedReason}\n\n`);
    if (errors.length) md.appendMarkdown(`$(warning) ${errors.length} problem(s): ${errors[0].message}\n\n`);
    for (const line of leaseMarkdown(s.file, allHolders)) md.appendMarkdown(`${line}\n\n`);
    if (resumeFor) {
      md.appendMarkdown(`${resumeLine(resumeFor)}\n\n`);
      if (resumeFor.warnings.length) md.appendMarkdown(`$(warning) ${escapeMd(resumeFor.warnings[0])}${resumeFor.warnings.length > 1 ? ` (+${resumeFor.warnings.length - 1} more)` : ''}\n\n`);
    }
    if (this.memoryLine) md.appendMarkdown(`${memoryDegraded ? '$(warning)' : '$(database)'} ${escapeMd(this.memoryLine)}\n\n`);
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

  /** The three-tier resume answer (the one `waymark resume FILE` gives); undefined when it cannot be had. */
  private async resumeOf(file: string): Promise<ResumeReport | undefined> {
    try {
      return await this.c.resume(file);
    } catch (e) {
      this.c.log.warn(`[status] resume ${file}: ${errorMessage(e)}`);
      return undefined;
    }
  }

  private async memoryLineNow(): Promise<string | undefined> {
    try {
      return await this.memoryStatus();
    } catch (e) {
      this.c.log.warn(`[memory] status: ${errorMessage(e)}`);
      return undefined;
    }
  }
}

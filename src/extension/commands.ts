// Every core operation as a command. Each asks for what it needs with quick picks unless the
// caller (a tree item, a code lens, a test) passes it, and is wrapped once: a failure is logged
// and shown as "<Action> failed: <reason>"; a conflict offers "Reload" / "Show diff".
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, errorMessage } from '../core/index';
import type { GateState, MutationOptions, MutationResult, Problem, StepDef, WorkflowState } from '../core/index';
import { SCOPES, STATUSES } from '../core/index';
import type { Scope, Status } from '../core/index';
import { COMMANDS } from './constants';
import type { Container } from './container';
import { findKey, frontmatterLayout } from './frontmatterKeys';
import { activeStep, gateFor, gateLabel, progress, stepKind, stepTitle } from './presentation';

/** What a command can be invoked with: a tree node, a Uri, a path, or explicit arguments. */
export interface CommandArgs {
  file?: string;
  step?: string;
  status?: Status;
  scope?: Scope;
  reason?: string;
  by?: string;
  expires?: string;
  agent?: string;
  out?: string;
  key?: string;
  expectHash?: string;
  problem?: Problem;
  /** Skip confirmations (tests, code lenses that already said what they do). */
  quiet?: boolean;
}

interface Target {
  state: WorkflowState;
  args: CommandArgs;
}

const STATE_SCHEME = 'waymark-state';

export class Commands implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly virtualDocs = new Map<string, string>();
  private docSeq = 0;

  constructor(private readonly c: Container) {
    const docs = this.virtualDocs;
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(STATE_SCHEME, {
        provideTextDocumentContent: (uri) => docs.get(uri.query) ?? '',
      }),
    );
    const w = (id: string, action: string, fn: (arg: unknown) => Promise<unknown>) => this.register(id, action, fn, true);
    const r = (id: string, action: string, fn: (arg: unknown) => Promise<unknown>) => this.register(id, action, fn, false);

    r(COMMANDS.refresh, 'Revalidate', async () => {
      await c.rescan(true);
      return { workflows: c.states().length, problems: c.core.problems().length };
    });
    w(COMMANDS.start, 'Start', async (arg) => {
      const t = await this.target(arg, (s) => s.status === 'created' || !s.status);
      return t && this.mutate(t, (o) => c.core.start(t.state.file, o));
    });
    w(COMMANDS.advance, 'Advance', async (arg) => {
      const t = await this.target(arg, (s) => s.status === 'in_progress');
      return t && this.mutate(t, (o) => c.core.advance(t.state.file, o));
    });
    w(COMMANDS.completeStep, 'Complete step', async (arg) => {
      const t = await this.target(arg);
      if (!t) return undefined;
      const step = t.args.step ?? (await this.pickStep(t.state, (s) => !t.state.stepsCompleted.includes(s.id), 'Step to mark complete'));
      return step && this.mutate(t, (o) => c.core.completeStep(t.state.file, step, o));
    });
    w(COMMANDS.setStatus, 'Set status', async (arg) => {
      const t = await this.target(arg);
      if (!t) return undefined;
      const status =
        t.args.status ??
        ((await vscode.window.showQuickPick(
          STATUSES.map((s) => ({ label: s, description: s === t.state.status ? 'current' : undefined })),
          { title: `Status of ${t.state.workflow}`, placeHolder: 'New status' },
        ))?.label as Status | undefined);
      if (!status) return undefined;
      let reason = t.args.reason;
      if (status === 'blocked' && reason === undefined) reason = await this.ask('Why is it blocked?', true);
      if (status === 'blocked' && !reason) return undefined;
      return this.mutate(t, (o) => c.core.setStatus(t.state.file, status, { ...o, reason }));
    });
    w(COMMANDS.block, 'Block', async (arg) => {
      const t = await this.target(arg, (s) => s.status !== 'blocked');
      if (!t) return undefined;
      const reason = t.args.reason ?? (await this.ask(`Why is ${t.state.workflow} blocked?`, true));
      return reason ? this.mutate(t, (o) => c.core.block(t.state.file, reason, o)) : undefined;
    });
    w(COMMANDS.unblock, 'Unblock', async (arg) => {
      const t = await this.target(arg, (s) => s.status === 'blocked');
      return t && this.mutate(t, (o) => c.core.unblock(t.state.file, o));
    });
    w(COMMANDS.setScope, 'Set scope', async (arg) => {
      const t = await this.target(arg);
      if (!t) return undefined;
      const scope =
        t.args.scope ??
        ((await vscode.window.showQuickPick(
          SCOPES.map((s) => ({ label: s, description: s === t.state.scope ? 'current' : undefined })),
          { title: `Scope of ${t.state.workflow}` },
        ))?.label as Scope | undefined);
      return scope && this.mutate(t, (o) => c.core.setScope(t.state.file, scope, o));
    });
    w(COMMANDS.delegate, 'Delegate', async (arg) => {
      const t = await this.target(arg);
      if (!t) return undefined;
      const agent = t.args.agent ?? (await this.ask(`Sub-agent that takes over part of ${t.state.workflow}`, true, 'e.g. test-writer'));
      if (!agent) return undefined;
      const result = await c.core.delegate(t.state.file, { agent, out: t.args.out }, this.options(t));
      if (!t.args.quiet) {
        void vscode.window.showInformationMessage(`Delegated to ${agent}: ${c.relative(result.file)}`, 'Open').then((b) => b && this.open({ file: result.file, key: 'delegation' }));
      }
      return result;
    });

    const gate = (id: string, action: string, verdict: 'pass' | 'fail' | 'concerns') =>
      w(id, action, async (arg) => {
        const t = await this.target(arg, (s) => Object.keys(s.gates).length > 0);
        if (!t) return undefined;
        const step = t.args.step ?? (await this.pickGatedStep(t.state));
        if (!step) return undefined;
        const reason = t.args.reason ?? (t.args.quiet ? undefined : await this.ask(`${action} on ${step}: reason (optional)`, false));
        const by = t.args.by ?? this.actor();
        const fn = verdict === 'pass' ? c.core.gatePass : verdict === 'fail' ? c.core.gateFail : c.core.gateConcerns;
        const g = await fn.call(c.core, t.state.file, step, { reason, by }, this.options(t));
        this.info(t.args, `Gate ${step} of ${t.state.workflow}: ${gateLabel(g)}`);
        return g;
      });
    gate(COMMANDS.gatePass, 'Gate pass', 'pass');
    gate(COMMANDS.gateFail, 'Gate fail', 'fail');
    gate(COMMANDS.gateConcerns, 'Gate concerns', 'concerns');
    w(COMMANDS.gateWaive, 'Gate waive', async (arg) => {
      const t = await this.target(arg, (s) => Object.keys(s.gates).length > 0);
      if (!t) return undefined;
      const step = t.args.step ?? (await this.pickGatedStep(t.state));
      if (!step) return undefined;
      const reason = t.args.reason ?? (await this.ask(`Why is the gate on ${step} waived?`, true));
      if (!reason) return undefined;
      const by = t.args.by ?? (await this.ask('Approved by', true, this.actor(), this.actor()));
      if (!by) return undefined;
      const expires = t.args.expires ?? ((await this.ask('Expires (YYYY-MM-DD, optional)', false)) || undefined);
      const g = await c.core.gateWaive(t.state.file, step, { reason, by, expires }, this.options(t));
      this.info(t.args, `Gate ${step} of ${t.state.workflow}: ${gateLabel(g)}`);
      return g;
    });
    r(COMMANDS.gateOpen, 'Open gate', async (arg) => {
      const t = await this.target(arg);
      if (!t) return undefined;
      const step = t.args.step ?? (await this.pickGatedStep(t.state));
      const g = step ? gateFor(t.state, step) : undefined;
      if (!g) return undefined;
      if (!g.exists) throw new WaymarkError('unreadable', `The gate file ${c.relative(g.file)} does not exist yet; pass, fail or waive the gate to create it.`, g.file);
      await vscode.window.showTextDocument(vscode.Uri.file(g.file), { preview: true });
      return g;
    });
    r(COMMANDS.history, 'Show history', async (arg) => {
      const t = await this.target(arg);
      if (!t) return undefined;
      const entries = await c.core.history(t.state.file);
      if (!t.args.quiet) {
        const lines = [`# History of ${c.relative(t.state.file)}`, ''];
        for (const e of entries) {
          const detail = [e.actor && `by ${e.actor}`, e.session && `session ${e.session}`, e.detail && JSON.stringify(e.detail)].filter(Boolean).join(' · ');
          lines.push(`- **#${e.seq}** ${e.time} \`${e.operation}\`${e.from || e.to ? ` ${JSON.stringify(e.from ?? {})} → ${JSON.stringify(e.to ?? {})}` : ''}${detail ? ` (${detail})` : ''}`);
        }
        if (!entries.length) lines.push('No changes recorded yet.');
        await this.showVirtual(`history-${path.basename(t.state.file)}`, lines.join('\n'), 'markdown');
      }
      return entries;
    });
    r(COMMANDS.resume, 'Resume', async (arg) => {
      const t = await this.target(arg, (s) => s.status === 'in_progress' || s.status === 'blocked' || s.status === 'created');
      if (!t) return undefined;
      const point = await c.core.resume(t.state.file);
      if (!t.args.quiet) {
        const buttons = point.stepFile ? ['Open step file', 'Open workflow'] : ['Open workflow'];
        const msg = point.step ? `Resume ${point.workflow} at ${point.step}: ${point.reason}` : `${point.workflow}: ${point.reason}`;
        void vscode.window.showInformationMessage(msg + (point.warnings.length ? ` (${point.warnings.join('; ')})` : ''), ...buttons).then((b) => {
          if (b === 'Open step file' && point.stepFile) void vscode.window.showTextDocument(vscode.Uri.file(point.stepFile));
          else if (b === 'Open workflow') void this.open({ file: t.state.file, key: 'currentStep' });
        });
      }
      return point;
    });
    w(COMMANDS.manifest, 'Write manifest', async (arg) => {
      const a = (arg ?? {}) as CommandArgs;
      const out = [];
      for (const root of c.roots) out.push(await c.core.manifest(root));
      if (!a.quiet) this.info(a, `Manifest written: ${out.map((m) => `${c.relative(m.file)} (${m.rows.length} rows)`).join(', ')}`);
      return out;
    });
    r(COMMANDS.changed, 'Show changes', async (arg) => {
      const a = (arg ?? {}) as CommandArgs;
      const reports = [];
      for (const root of c.roots) reports.push(await c.core.changed(root));
      if (!a.quiet) {
        const items: vscode.QuickPickItem[] = [];
        for (const rep of reports) {
          for (const [label, files] of [['state changed', rep.stateChanged], ['content changed', rep.contentChanged], ['added', rep.added], ['removed', rep.removed]] as const) {
            for (const f of files) items.push({ label: f, description: label });
          }
        }
        if (!items.length) this.info(a, 'Nothing changed since the last manifest.');
        else {
          const picked = await vscode.window.showQuickPick(items, { title: 'Changed since the last manifest' });
          if (picked && picked.description !== 'removed') await this.open({ file: path.isAbsolute(picked.label) ? picked.label : path.join(c.roots[0], picked.label) });
        }
      }
      return reports;
    });
    r(COMMANDS.openFile, 'Open', async (arg) => this.open(((arg ?? {}) as CommandArgs)));
    r(COMMANDS.openStepFile, 'Open step file', async (arg) => {
      const t = await this.target(arg);
      if (!t) return undefined;
      const stepId = t.args.step ?? activeStep(t.state);
      const step = t.state.steps.find((s) => s.id === stepId);
      if (!step?.file) throw new WaymarkError('unreadable', `Step ${stepId ?? '(none)'} of ${t.state.workflow} has no step file.`, t.state.file);
      await vscode.window.showTextDocument(vscode.Uri.file(step.file), { preview: true });
      return step.file;
    });
    w(COMMANDS.applyFix, 'Quick fix', async (arg) => {
      const a = (arg ?? {}) as CommandArgs;
      if (!a.file || !a.problem) throw new WaymarkError('usage', 'No problem to fix was given.');
      const state = c.get(a.file);
      const t: Target = { state: state ?? ({ file: a.file } as WorkflowState), args: a };
      return this.mutate(t, (o) => c.core.applyFix(a.file!, a.problem!, o));
    });
    r(COMMANDS.nextActions, 'Next actions', async (arg) => this.nextActions(arg));
    r(COMMANDS.showLog, 'Show log', async () => c.log.show(true));
  }

  private actor(): string {
    return vscode.workspace.getConfiguration('waymark').get<string>('actor', 'vscode') || 'vscode';
  }

  private register(id: string, action: string, fn: (arg: unknown) => Promise<unknown>, writes: boolean): void {
    this.disposables.push(
      vscode.commands.registerCommand(id, async (arg: unknown) => {
        try {
          if (writes) this.c.assertCanWrite(action);
          const result = await fn(arg);
          this.c.lastError = undefined;
          return result;
        } catch (e) {
          this.report(action, e, arg);
          return undefined;
        }
      }),
    );
  }

  private report(action: string, e: unknown, arg: unknown): void {
    const reason = WaymarkError.is(e) ? e.reason : undefined;
    const untrusted = WaymarkError.is(e) && !!e.data?.untrusted;
    // A refusal in Restricted Mode is not a failure: say why, without "failed".
    const message = untrusted ? errorMessage(e) : `${action} failed: ${errorMessage(e)}`;
    this.c.lastError = { action, reason, message };
    this.c.log.error(`[command] ${message}`);
    if (e instanceof Error && !WaymarkError.is(e) && e.stack) this.c.log.error(e.stack);
    const file = (WaymarkError.is(e) && e.file) || toArgs(arg).file;
    if (WaymarkError.is(e, 'conflict') && file) {
      void vscode.window.showWarningMessage(message, 'Reload', 'Show diff').then(async (b) => {
        if (b === 'Reload') await this.c.core.reload(file);
        if (b === 'Show diff') await this.showConflict(file, stateOf(arg));
      });
    } else if (untrusted) {
      void vscode.window.showWarningMessage(message, 'Manage Workspace Trust').then((b) => b && vscode.commands.executeCommand('workbench.trust.manage'));
    } else {
      void vscode.window.showErrorMessage(message, 'Show Log').then((b) => b && this.c.log.show(true));
    }
  }

  /** The workflow a command acts on: from the argument, the active editor, or a quick pick. */
  private async target(arg: unknown, prefer?: (s: WorkflowState) => boolean): Promise<Target | undefined> {
    const args = toArgs(arg);
    let file = args.file;
    if (!file) {
      const editor = vscode.window.activeTextEditor;
      if (editor?.document.uri.scheme === 'file' && this.c.get(editor.document.uri.fsPath)) file = editor.document.uri.fsPath;
    }
    if (!file) {
      const states = this.c.states();
      if (!states.length) throw new WaymarkError('usage', 'No workflow files in this workspace.');
      const sorted = [...states].sort((a, b) => Number(prefer ? !prefer(a) : 0) - Number(prefer ? !prefer(b) : 0) || a.workflow.localeCompare(b.workflow));
      const picked = await vscode.window.showQuickPick(
        sorted.map((s) => ({ label: s.workflow, description: `${s.status ?? s.rawStatus ?? '?'} · ${progress(s)}`, detail: this.c.relative(s.file), file: s.file })),
        { title: 'Waymark: which workflow?', matchOnDetail: true },
      );
      if (!picked) return undefined;
      file = picked.file;
    }
    const state = this.c.get(file) ?? (await this.c.core.reload(file));
    if (!state) throw new WaymarkError('unreadable', `${this.c.relative(file)} is not a workflow file Waymark knows.`, file);
    return { state, args: { ...args, expectHash: args.expectHash ?? stateOf(arg)?.stateHash } };
  }

  private options(t: Target): MutationOptions {
    return { expectHash: t.args.expectHash, actor: t.args.by ?? this.actor() };
  }

  /**
   * Runs a workflow-file mutation. When the file is open with unsaved changes, the core computes
   * the new text from the editor's buffer and it is applied as an edit: never written behind it.
   */
  async mutate(t: Target, op: (o: MutationOptions) => Promise<MutationResult>): Promise<MutationResult> {
    const file = t.state.file;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === file);
    if (doc?.isDirty) {
      const before = doc.getText();
      const result = await op({ actor: this.options(t).actor, text: before });
      if (doc.getText() !== before) throw new WaymarkError('conflict', `${this.c.relative(file)} changed in the editor while the change was computed; try again.`, file);
      const edit = new vscode.WorkspaceEdit();
      const [start, end, insert] = minimalEdit(before, result.newText);
      edit.replace(doc.uri, new vscode.Range(doc.positionAt(start), doc.positionAt(end)), insert);
      if (!(await vscode.workspace.applyEdit(edit))) throw new WaymarkError('io', `Could not apply the change to the open editor of ${this.c.relative(file)}.`, file);
      this.info(t.args, `${result.operation}: applied to the unsaved editor of ${this.c.relative(file)}; save it to keep the change.`);
      return result;
    }
    const result = await op(this.options(t));
    return result;
  }

  private info(args: CommandArgs, message: string): void {
    this.c.lastInfo = message;
    this.c.log.info(`[command] ${message}`);
    if (!args.quiet) void vscode.window.setStatusBarMessage(`$(check) ${message}`, 4000);
  }

  private async ask(prompt: string, required: boolean, placeHolder?: string, value?: string): Promise<string | undefined> {
    const v = await vscode.window.showInputBox({ prompt, placeHolder, value, validateInput: (x) => (required && !x.trim() ? 'Required' : undefined) });
    return v?.trim();
  }

  private async pickStep(state: WorkflowState, filter: (s: StepDef) => boolean, title: string): Promise<string | undefined> {
    const steps = state.steps.filter(filter);
    if (!steps.length) throw new WaymarkError('usage', `${state.workflow} has no step to choose from.`, state.file);
    const current = activeStep(state);
    steps.sort((a, b) => Number(b.id === current) - Number(a.id === current) || a.index - b.index);
    const picked = await vscode.window.showQuickPick(
      steps.map((s) => ({ label: s.id, description: [s.id === current ? 'current' : '', stepKind(state, s), s.title ?? ''].filter(Boolean).join(' · ') })),
      { title },
    );
    return picked?.label;
  }

  private async pickGatedStep(state: WorkflowState): Promise<string | undefined> {
    const gated = state.steps.filter((s) => state.gates[s.id]);
    if (!gated.length) throw new WaymarkError('usage', `${state.workflow} has no gated step.`, state.file);
    if (gated.length === 1) return gated[0].id;
    const current = activeStep(state);
    const picked = await vscode.window.showQuickPick(
      gated.map((s) => ({ label: s.id, description: `${gateLabel(state.gates[s.id])}${s.id === current ? ' · current' : ''}` })),
      { title: `Gate of ${state.workflow}` },
    );
    return picked?.label;
  }

  /** Opens a workflow file at the key (or step entry) the caller names. */
  async open(args: CommandArgs): Promise<vscode.TextEditor | undefined> {
    if (!args.file) return undefined;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(args.file));
    const layout = frontmatterLayout(doc.getText());
    let range: vscode.Range | undefined;
    if (args.step) {
      const state = this.c.get(args.file);
      const current = findKey(layout, 'currentStep', 'current_step');
      const completed = findKey(layout, 'stepsCompleted');
      const steps = findKey(layout, 'steps');
      const item =
        (state && activeStep(state) === args.step && current?.valueRange) ||
        completed?.items?.find((i) => i.value === args.step || i.value.replace(/\.md$/, '') === args.step)?.range ||
        steps?.items?.find((i) => i.value === args.step)?.range ||
        current?.keyRange;
      if (item) range = new vscode.Range(item.start.line, item.start.character, item.end.line, item.end.character);
    } else if (args.key) {
      const k = findKey(layout, args.key, args.key === 'currentStep' ? 'current_step' : args.key) ?? findKey(layout, 'status');
      if (k) range = new vscode.Range(k.keyRange.start.line, k.keyRange.start.character, k.keyRange.end.line, k.keyRange.end.character);
    }
    return vscode.window.showTextDocument(doc, { selection: range, preview: true });
  }

  private async showVirtual(name: string, text: string, language?: string): Promise<vscode.TextDocument> {
    const id = `${++this.docSeq}`;
    this.virtualDocs.set(id, text);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${name}`, query: id }));
    if (language) await vscode.languages.setTextDocumentLanguage(doc, language);
    await vscode.window.showTextDocument(doc, { preview: true });
    return doc;
  }

  /** Diff of the state the command was based on and the state on disk now. */
  private async showConflict(file: string, seen: WorkflowState | undefined): Promise<void> {
    const now = await this.c.core.reload(file);
    const left = `${++this.docSeq}`;
    const right = `${++this.docSeq}`;
    this.virtualDocs.set(left, stateText(seen));
    this.virtualDocs.set(right, stateText(now));
    const base = path.basename(file);
    await vscode.commands.executeCommand(
      'vscode.diff',
      vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${base}.seen.yaml`, query: left }),
      vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${base}.now.yaml`, query: right }),
      `${base}: state you acted on ↔ state on disk`,
    );
  }

  private async nextActions(arg: unknown): Promise<string | undefined> {
    const t = await this.target(arg, (s) => s.status === 'in_progress');
    if (!t) return undefined;
    const s = t.state;
    const step = activeStep(s);
    const gate = step ? gateFor(s, step) : undefined;
    const file = s.file;
    const items: (vscode.QuickPickItem & { run: () => Thenable<unknown> })[] = [];
    const exec = (id: string, extra: CommandArgs = {}) => () => vscode.commands.executeCommand(id, { file, ...extra });
    if (s.status === 'created') items.push({ label: '$(play) Start', run: exec(COMMANDS.start) });
    if (s.status === 'in_progress' && step) items.push({ label: `$(arrow-right) Advance`, description: `complete ${step}${gate ? ` (gate ${gateLabel(gate)})` : ''}`, run: exec(COMMANDS.advance) });
    if (gate && !gate.open) items.push({ label: '$(pass) Pass gate…', description: step, run: exec(COMMANDS.gatePass, { step }) });
    if (s.status === 'blocked') items.push({ label: '$(debug-continue) Unblock', description: s.blockedReason, run: exec(COMMANDS.unblock) });
    else if (s.status === 'in_progress' || s.status === 'created') items.push({ label: '$(circle-slash) Block…', run: exec(COMMANDS.block) });
    items.push({ label: '$(debug-start) Resume', description: 'where to pick up and why', run: exec(COMMANDS.resume) });
    const stepDef = s.steps.find((x) => x.id === step);
    if (stepDef?.file) items.push({ label: '$(file-symlink-file) Open step file', description: stepTitle(stepDef), run: exec(COMMANDS.openStepFile, { step }) });
    items.push({ label: '$(go-to-file) Open workflow file', description: this.c.relative(file), run: exec(COMMANDS.openFile, { key: 'currentStep' }) });
    items.push({ label: '$(history) Show history', run: exec(COMMANDS.history) });
    items.push({ label: '$(type-hierarchy-sub) Delegate…', run: exec(COMMANDS.delegate) });
    const picked = await vscode.window.showQuickPick(items, { title: `${this.c.displayName(s)} · ${step ?? s.status ?? ''} · ${progress(s)}` });
    if (picked) await picked.run();
    return picked?.label;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function toArgs(arg: unknown): CommandArgs {
  if (!arg) return {};
  if (arg instanceof vscode.Uri) return { file: arg.fsPath };
  if (typeof arg === 'string') return { file: arg };
  if (typeof arg === 'object') {
    const o = arg as Record<string, unknown> & { state?: WorkflowState; step?: StepDef | string; gate?: GateState };
    if (o.state && typeof o.state === 'object') {
      const step = typeof o.step === 'object' && o.step ? o.step.id : undefined;
      return { file: o.state.file, step };
    }
    return o as CommandArgs;
  }
  return {};
}

function stateOf(arg: unknown): WorkflowState | undefined {
  const o = arg as { state?: WorkflowState } | undefined;
  return o && typeof o === 'object' && o.state && typeof o.state === 'object' && 'stateHash' in o.state ? o.state : undefined;
}

function stateText(s: WorkflowState | undefined): string {
  if (!s) return '# (not a workflow file any more)\n';
  const fields = {
    workflow: s.workflow,
    status: s.rawStatus ?? s.status,
    currentStep: s.currentStep,
    stepsCompleted: s.stepsCompleted,
    lastStep: s.lastStep,
    scope: s.scope,
    blockedReason: s.blockedReason,
    delegation: s.delegation,
    stateHash: s.stateHash,
  };
  return JSON.stringify(fields, null, 2) + '\n';
}

/** The smallest single replacement turning `a` into `b`: [start, end in a, inserted text]. */
export function minimalEdit(a: string, b: string): [number, number, string] {
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  return [start, endA, b.slice(start, endB)];
}

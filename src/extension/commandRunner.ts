// The one command runner. Every command is declared once (constants.ts + package.json) and
// registered here: the runner checks workspace trust before it runs (writes and memory are
// refused in Restricted Mode with an explanation), resolves its target the same way for every
// command (argument → active editor → quick pick), and reports every failure the same way:
// "<Action> failed: <reason>" with Show Log, a conflict with Reload / Show diff.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, errorMessage } from '../core/index';
import type { GateState, MemoryRecord, Problem, Scope, Status, StepDef, WorkflowState } from '../core/index';
import { COMMAND_DECLS, type CommandName } from './constants';
import { Disposable } from './disposable';
import { untrustedError, type ExtensionModel } from './model';
import type { Navigator } from './navigation';
import { progress } from './presentation';

/** What a command can be invoked with: a tree node, a Uri, a path, or explicit arguments. */
export interface CommandArgs {
  file?: string;
  root?: string;
  step?: string;
  status?: Status;
  scope?: Scope;
  reason?: string;
  by?: string;
  expires?: string;
  agent?: string;
  out?: string;
  key?: string;
  message?: string;
  expectHash?: string;
  problem?: Problem;
  /** Release: also a lease someone else holds (asked for in the UI). */
  force?: boolean;
  /** Skip confirmations and notifications (tests, code lenses that already said what they do). */
  quiet?: boolean;
}

/** The workflow a command acts on, and what it was called with. */
export interface Target {
  state: WorkflowState;
  args: CommandArgs;
}

/** How a command run ended, for the log and the test API. */
export interface CommandOutcome {
  readonly command: string;
  readonly action: string;
  readonly ok: boolean;
  /** The WaymarkError reason of a failure ('conflict', 'locked', 'unavailable', …). */
  readonly reason?: string;
  /** The message shown: the failure, or a short confirmation (`info`). */
  readonly message?: string;
}

export type CommandHandler = (arg: unknown) => Promise<unknown>;

/** Normalizes what a command was called with. */
export function toArgs(arg: unknown): CommandArgs {
  if (!arg) return {};
  if (arg instanceof vscode.Uri) return arg.scheme === 'file' ? { file: arg.fsPath } : {};
  if (typeof arg === 'string') return { file: arg };
  if (typeof arg !== 'object') return {};
  const o = arg as Record<string, unknown> & { state?: WorkflowState; step?: StepDef | string; gate?: GateState; memory?: MemoryRecord };
  // A Workflows / Gates / Delegation tree node.
  if (o.state && typeof o.state === 'object' && typeof o.state.file === 'string') {
    return { file: o.state.file, step: typeof o.step === 'object' && o.step ? o.step.id : undefined };
  }
  // A Memory tree node about a workflow.
  if (o.memory && typeof o.memory.source?.workflow === 'string' && typeof o.root === 'string') return { file: path.resolve(o.root, o.memory.source.workflow), root: o.root };
  return o as CommandArgs;
}

/** The state a tree node carried when the command was invoked (for the conflict diff). */
export function stateOf(arg: unknown): WorkflowState | undefined {
  const o = arg as { state?: WorkflowState } | undefined;
  return o && typeof o === 'object' && o.state && typeof o.state === 'object' && 'stateHash' in o.state ? o.state : undefined;
}

export class CommandRunner extends Disposable {
  private readonly outcomes = this.register(new vscode.EventEmitter<CommandOutcome>());
  /** Every command run's outcome (the test API records the last failure). */
  readonly onDidRun = this.outcomes.event;

  constructor(
    private readonly model: ExtensionModel,
    private readonly nav: Navigator,
  ) {
    super();
  }

  /** Registers the declared command `name`; `handler` runs only when the trust check passes. */
  add(name: CommandName, handler: CommandHandler): void {
    const decl = COMMAND_DECLS[name];
    this.register(
      vscode.commands.registerCommand(decl.id, async (arg: unknown) => {
        try {
          if (decl.access === 'write' && !this.model.canWrite) throw untrustedError(decl.action);
          if (decl.access === 'memory' && !this.model.canWrite) throw untrustedError(decl.action, undefined, 'use memory (opening the memory store writes .waymark/memory)');
          const result = await handler(arg);
          this.outcomes.fire({ command: decl.id, action: decl.action, ok: true });
          return result;
        } catch (e) {
          this.report(decl.id, decl.action, e, arg);
          return undefined;
        }
      }),
    );
  }

  /** A short confirmation: logged, shown in the status bar unless the caller asked for quiet. */
  info(args: CommandArgs, message: string): void {
    this.model.log.info(`[command] ${message}`);
    if (!args.quiet) void vscode.window.setStatusBarMessage(`$(check) ${message}`, 4000);
  }

  /**
   * The workflow a command acts on: from the argument, else the active editor's file, else a
   * quick pick (workflows matching `prefer` first). Undefined when the pick is dismissed.
   */
  async target(arg: unknown, prefer?: (s: WorkflowState) => boolean): Promise<Target | undefined> {
    const args = toArgs(arg);
    const file = args.file ?? this.activeWorkflowFile() ?? (await this.pickWorkflow(prefer));
    if (!file) return undefined;
    const state = this.model.get(file) ?? (await this.model.core.reload(file));
    if (!state) throw new WaymarkError('unreadable', `${this.model.relative(file)} is not a workflow file Waymark knows.`, file);
    return { state, args: { ...args, expectHash: args.expectHash ?? stateOf(arg)?.stateHash } };
  }

  /**
   * Like `target`, for commands that can also act on the whole workspace (memory): the quick
   * pick offers "No workflow" too. `{}` means the workspace; undefined, dismissed.
   */
  async optionalTarget(arg: unknown): Promise<{ file?: string; state?: WorkflowState; args: CommandArgs } | undefined> {
    const args = toArgs(arg);
    const file = args.file ?? this.activeWorkflowFile();
    if (file) return { file, state: this.model.get(file), args };
    const items: (vscode.QuickPickItem & { file?: string })[] = [
      { label: '$(globe) No workflow', description: 'the whole workspace' },
      ...this.model.states().map((s) => ({ label: this.model.displayName(s), description: this.model.relative(s.file), file: s.file })),
    ];
    const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Which workflow?' });
    if (!pick) return undefined;
    return { file: pick.file, state: pick.file ? this.model.get(pick.file) : undefined, args };
  }

  private activeWorkflowFile(): string | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    return doc?.uri.scheme === 'file' && this.model.get(doc.uri.fsPath) ? doc.uri.fsPath : undefined;
  }

  private async pickWorkflow(prefer?: (s: WorkflowState) => boolean): Promise<string | undefined> {
    const states = this.model.states();
    if (!states.length) throw new WaymarkError('usage', 'No workflow files in this workspace.');
    // A file set aside or finished where the project reads it (archive/, a finished epic) is never a preferred target.
    const rank = (s: WorkflowState) => Number(prefer ? !prefer(s) || !!this.model.standing(s) : 0);
    const sorted = [...states].sort((a, b) => rank(a) - rank(b) || a.workflow.localeCompare(b.workflow));
    const picked = await vscode.window.showQuickPick(
      sorted.map((s) => ({ label: s.workflow, description: `${this.model.standing(s)?.message ?? s.status ?? s.rawStatus ?? '?'} · ${progress(s)}`, detail: this.model.relative(s.file), file: s.file })),
      { title: 'Waymark: which workflow?', matchOnDetail: true },
    );
    return picked?.file;
  }

  private report(command: string, action: string, e: unknown, arg: unknown): void {
    const reason = WaymarkError.is(e) ? e.reason : undefined;
    const untrusted = WaymarkError.is(e) && !!e.data?.untrusted;
    // A refusal in Restricted Mode is not a failure: say why, without "failed".
    const message = untrusted ? errorMessage(e) : `${action} failed: ${errorMessage(e)}`;
    this.outcomes.fire({ command, action, ok: false, reason, message });
    const log = this.model.log;
    log.error(`[command] ${message}`);
    if (e instanceof Error && !WaymarkError.is(e) && e.stack) log.error(e.stack);
    const file = (WaymarkError.is(e) && e.file) || toArgs(arg).file;
    if (WaymarkError.is(e, 'conflict') && file) {
      void vscode.window.showWarningMessage(message, 'Reload', 'Show diff').then(async (b) => {
        if (b === 'Reload') await this.model.core.reload(file);
        if (b === 'Show diff') await this.nav.showConflict(file, stateOf(arg));
      });
    } else if (untrusted) {
      void vscode.window.showWarningMessage(message, 'Manage Workspace Trust').then((b) => b && vscode.commands.executeCommand('workbench.trust.manage'));
    } else {
      // Not awaited: a command must not wait for someone to dismiss the notification.
      void vscode.window.showErrorMessage(message, 'Show Log').then((b) => b && log.show(true));
    }
  }
}

/** An input box; undefined when dismissed, the trimmed text otherwise. */
export async function ask(prompt: string, required: boolean, placeHolder?: string, value?: string): Promise<string | undefined> {
  const v = await vscode.window.showInputBox({ prompt, placeHolder, value, validateInput: (x) => (required && !x.trim() ? 'Required' : undefined) });
  return v?.trim();
}

// State changes as commands: start, advance, complete step, status, block/unblock, scope,
// delegate, quick fix. Each asks for what it needs unless the caller passes it; a file open with
// unsaved changes gets the change as an edit in its editor, never a write behind it.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { MUTATIONS, SCOPES, STATUSES, WaymarkError, isSprintFix } from '../core/index';
import type { MutationArg, MutationArgs, MutationOptions, MutationResult, Scope, Status, StepDef, WorkflowState } from '../core/index';
import { ask, toArgs, type CommandRunner, type Target } from './commandRunner';
import type { ExtensionModel } from './model';
import { COMMAND_DECLS, type CommandDecl, type CommandName } from './constants';
import type { Navigator } from './navigation';
import { activeStep, gateLabel, stepKind } from './presentation';

export function registerWorkflowCommands(run: CommandRunner, model: ExtensionModel, nav: Navigator): void {
  const core = () => model.core;
  const mutate = (t: Target, op: (o: MutationOptions) => Promise<MutationResult>) => mutateInEditorOrFile(run, model, t, op);

  // Commands declared with `mutation` in constants.ts: the target, then each argument the
  // mutation's spec names (given, else a pick among its choices, else an input box).
  for (const [name, decl] of Object.entries(COMMAND_DECLS) as [CommandName, CommandDecl][]) {
    const op = decl.mutation;
    if (!op) continue;
    run.add(name, async (arg) => {
      const t = await run.target(arg);
      if (!t) return undefined;
      const given = (typeof arg === 'object' && arg !== null ? arg : {}) as Record<string, unknown>;
      const args: Record<string, unknown> = {};
      for (const [k, a] of Object.entries(MUTATIONS[op].args) as [string, MutationArg][]) {
        let v = given[k];
        if (v === undefined) v = a.choices ? await vscode.window.showQuickPick([...a.choices], { title: `${decl.title.replace(/…$/, '')}: ${a.description}` }) : await ask(a.description, !a.optional);
        if (v === undefined || v === '') {
          if (!a.optional) return undefined;
          continue;
        }
        args[k] = v;
      }
      return mutate(t, (o) => core().apply(t.state.file, op, args as MutationArgs<typeof op>, o));
    });
  }

  run.add('start', async (arg) => {
    const t = await run.target(arg, (s) => s.status === 'created' || !s.status);
    return t && mutate(t, (o) => core().start(t.state.file, o));
  });
  run.add('advance', async (arg) => {
    const t = await run.target(arg, (s) => s.status === 'in_progress');
    return t && mutate(t, (o) => core().advance(t.state.file, o));
  });
  run.add('completeStep', async (arg) => {
    const t = await run.target(arg);
    if (!t) return undefined;
    const step = t.args.step ?? (await pickStep(t.state, (s) => !t.state.stepsCompleted.includes(s.id), 'Step to mark complete'));
    return step && mutate(t, (o) => core().completeStep(t.state.file, step, o));
  });
  run.add('setStatus', async (arg) => {
    const t = await run.target(arg);
    if (!t) return undefined;
    const status =
      t.args.status ??
      ((await vscode.window.showQuickPick(
        STATUSES.map((s) => ({ label: s, description: s === t.state.status ? 'current' : undefined })),
        { title: `Status of ${t.state.workflow}`, placeHolder: 'New status' },
      ))?.label as Status | undefined);
    if (!status) return undefined;
    let reason = t.args.reason;
    if (status === 'blocked' && reason === undefined) reason = await ask('Why is it blocked?', true);
    if (status === 'blocked' && !reason) return undefined;
    return mutate(t, (o) => core().setStatus(t.state.file, status, { ...o, reason }));
  });
  run.add('block', async (arg) => {
    const t = await run.target(arg, (s) => s.status !== 'blocked');
    if (!t) return undefined;
    const reason = t.args.reason ?? (await ask(`Why is ${t.state.workflow} blocked?`, true));
    return reason ? mutate(t, (o) => core().block(t.state.file, reason, o)) : undefined;
  });
  run.add('setScope', async (arg) => {
    const t = await run.target(arg);
    if (!t) return undefined;
    const scope =
      t.args.scope ??
      ((await vscode.window.showQuickPick(
        SCOPES.map((s) => ({ label: s, description: s === t.state.scope ? 'current' : undefined })),
        { title: `Scope of ${t.state.workflow}` },
      ))?.label as Scope | undefined);
    return scope && mutate(t, (o) => core().setScope(t.state.file, scope, o));
  });
  run.add('delegate', async (arg) => {
    const t = await run.target(arg);
    if (!t) return undefined;
    const agent = t.args.agent ?? (await ask(`Sub-agent that takes over part of ${t.state.workflow}`, true, 'e.g. test-writer'));
    if (!agent) return undefined;
    const result = await core().delegate(t.state.file, { agent, out: t.args.out }, mutationOptions(model, t));
    if (!t.args.quiet) {
      void vscode.window.showInformationMessage(`Delegated to ${agent}: ${model.relative(result.file)}`, 'Open').then((b) => b && nav.open({ file: result.file, key: 'delegation' }));
    }
    return result;
  });
  run.add('applyFix', async (arg) => {
    const args = toArgs(arg);
    const { file, problem } = args;
    if (!file || !problem) throw new WaymarkError('usage', 'No problem to fix was given.');
    if (isSprintFix(problem)) {
      // A story file or the sprint ledger: the core's sprint fix (the one `waymark fix` and MCP
      // call), written on disk, so never behind unsaved changes of the files it may touch.
      const root = model.rootFor(file);
      if (!root) throw new WaymarkError('usage', `${file} is not in a workspace folder.`, file);
      const key = typeof problem.data?.key === 'string' ? problem.data.key : undefined;
      const dirty = vscode.workspace.textDocuments.find((d) => d.isDirty && d.uri.scheme === 'file' && (d.uri.fsPath === file || /^sprint-status\.ya?ml$/i.test(path.basename(d.uri.fsPath)) || (key !== undefined && path.basename(d.uri.fsPath) === `${key}.md`)));
      if (dirty) throw new WaymarkError('conflict', `${path.basename(dirty.uri.fsPath)} has unsaved changes; save or revert it first, then retry.`, dirty.uri.fsPath);
      return core().sprint.applyFix(root, problem, { actor: model.settings.actor || 'vscode' });
    }
    // The problem may be in a file that is not a workflow (a config file): no state to resolve.
    const t: Target = { state: model.get(file) ?? ({ file } as WorkflowState), args };
    return mutate(t, (o) => core().applyFix(file, problem, o));
  });
}

/** The expected hash and the actor every write from here carries. */
export function mutationOptions(model: ExtensionModel, t: Target): MutationOptions {
  return { expectHash: t.args.expectHash, actor: t.args.by ?? model.settings.actor };
}

/**
 * Runs a workflow-file mutation. When the file is open with unsaved changes, the core computes
 * the new text from the editor's buffer and it is applied as an edit: never written behind it.
 */
export async function mutateInEditorOrFile(run: CommandRunner, model: ExtensionModel, t: Target, op: (o: MutationOptions) => Promise<MutationResult>): Promise<MutationResult> {
  const file = t.state.file;
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === file);
  if (!doc?.isDirty) return op(mutationOptions(model, t));
  const before = doc.getText();
  const result = await op({ actor: mutationOptions(model, t).actor, text: before });
  if (doc.getText() !== before) throw new WaymarkError('conflict', `${model.relative(file)} changed in the editor while the change was computed; try again.`, file);
  const edit = new vscode.WorkspaceEdit();
  const [start, end, insert] = minimalEdit(before, result.newText);
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(start), doc.positionAt(end)), insert);
  if (!(await vscode.workspace.applyEdit(edit))) throw new WaymarkError('io', `Could not apply the change to the open editor of ${model.relative(file)}.`, file);
  run.info(t.args, `${result.operation}: applied to the unsaved editor of ${model.relative(file)}; save it to keep the change.`);
  return result;
}

async function pickStep(state: WorkflowState, filter: (s: StepDef) => boolean, title: string): Promise<string | undefined> {
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

/** A gated step of `state`: the only one, else picked. */
export async function pickGatedStep(state: WorkflowState): Promise<string | undefined> {
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

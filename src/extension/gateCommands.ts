// Gate verdicts as commands (pass, fail, concerns, waive) and opening a gate file.
import * as vscode from 'vscode';
import { WaymarkError } from '../core/index';
import { ask, type CommandRunner } from './commandRunner';
import type { CommandName } from './constants';
import type { ExtensionModel } from './model';
import { gateFor, gateLabel } from './presentation';
import { mutationOptions, pickGatedStep } from './workflowCommands';

export function registerGateCommands(run: CommandRunner, model: ExtensionModel): void {
  const verdict = (name: CommandName, action: string, write: 'gatePass' | 'gateFail' | 'gateConcerns') =>
    run.add(name, async (arg) => {
      const t = await run.target(arg, (s) => Object.keys(s.gates).length > 0);
      if (!t) return undefined;
      const step = t.args.step ?? (await pickGatedStep(t.state));
      if (!step) return undefined;
      const reason = t.args.reason ?? (t.args.quiet ? undefined : await ask(`${action} on ${step}: reason (optional)`, false));
      const by = t.args.by ?? model.settings.actor;
      const g = await model.core[write](t.state.file, step, { reason, by }, mutationOptions(model, t));
      run.info(t.args, `Gate ${step} of ${t.state.workflow}: ${gateLabel(g)}`);
      return g;
    });
  verdict('gatePass', 'Gate pass', 'gatePass');
  verdict('gateFail', 'Gate fail', 'gateFail');
  verdict('gateConcerns', 'Gate concerns', 'gateConcerns');

  run.add('gateWaive', async (arg) => {
    const t = await run.target(arg, (s) => Object.keys(s.gates).length > 0);
    if (!t) return undefined;
    const step = t.args.step ?? (await pickGatedStep(t.state));
    if (!step) return undefined;
    const reason = t.args.reason ?? (await ask(`Why is the gate on ${step} waived?`, true));
    if (!reason) return undefined;
    const actor = model.settings.actor;
    const by = t.args.by ?? (await ask('Approved by', true, actor, actor));
    if (!by) return undefined;
    const expires = t.args.expires ?? ((await ask('Expires (YYYY-MM-DD, optional)', false)) || undefined);
    const g = await model.core.gateWaive(t.state.file, step, { reason, by, expires }, mutationOptions(model, t));
    run.info(t.args, `Gate ${step} of ${t.state.workflow}: ${gateLabel(g)}`);
    return g;
  });

  run.add('gateOpen', async (arg) => {
    const t = await run.target(arg);
    if (!t) return undefined;
    const step = t.args.step ?? (await pickGatedStep(t.state));
    const g = step ? gateFor(t.state, step) : undefined;
    if (!g) return undefined;
    if (!g.exists) throw new WaymarkError('unreadable', `The gate file ${model.relative(g.file)} does not exist yet; pass, fail or waive the gate to create it.`, g.file);
    await vscode.window.showTextDocument(vscode.Uri.file(g.file), { preview: true });
    return g;
  });
}

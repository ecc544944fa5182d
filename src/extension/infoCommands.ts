// Reading commands (revalidate, history, resume, changes, open, next actions, log) and the
// manifest writer: what a person asks about a workflow, answered as the CLI answers it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError } from '../core/index';
import { toArgs, type CommandArgs, type CommandRunner } from './commandRunner';
import { COMMANDS } from './constants';
import type { ExtensionModel } from './model';
import type { Navigator } from './navigation';
import { activeStep, gateFor, gateLabel, progress, stepTitle } from './presentation';

export function registerInfoCommands(run: CommandRunner, model: ExtensionModel, nav: Navigator): void {
  run.add('refresh', async () => {
    await model.rescan(true);
    return { workflows: model.states().length, problems: model.problems().length };
  });

  run.add('history', async (arg) => {
    const t = await run.target(arg);
    if (!t) return undefined;
    const entries = await model.core.history(t.state.file);
    if (!t.args.quiet) {
      const lines = [`# History of ${model.relative(t.state.file)}`, ''];
      for (const e of entries) {
        const detail = [e.actor && `by ${e.actor}`, e.session && `session ${e.session}`, e.detail && JSON.stringify(e.detail)].filter(Boolean).join(' · ');
        lines.push(`- **#${e.seq}** ${e.time} \`${e.operation}\`${e.from || e.to ? ` ${JSON.stringify(e.from ?? {})} → ${JSON.stringify(e.to ?? {})}` : ''}${detail ? ` (${detail})` : ''}`);
      }
      if (!entries.length) lines.push('No changes recorded yet.');
      await nav.showVirtual(`history-${path.basename(t.state.file)}`, lines.join('\n'), 'markdown');
    }
    return entries;
  });

  // All three tiers, as `waymark resume FILE` and the status bar answer: never a second opinion.
  run.add('resume', async (arg) => {
    const t = await run.target(arg, (s) => s.status === 'in_progress' || s.status === 'blocked' || s.status === 'created');
    if (!t) return undefined;
    const r = await model.resume(t.state.file);
    if (!t.args.quiet) {
      const buttons = r.stepFile ? ['Open step file', 'Open workflow'] : ['Open workflow'];
      const head = r.step ? `Resume ${r.workflow} at ${r.step}: ${r.reason}` : `${r.workflow}: ${r.reason}`;
      const tier = ` (tier ${r.tier}, ${r.source}; degradation ${r.degradation})`;
      void vscode.window.showInformationMessage(head + tier + (r.warnings.length ? ` ${r.warnings.join('; ')}` : ''), ...buttons).then((b) => {
        if (b === 'Open step file' && r.stepFile) void vscode.window.showTextDocument(vscode.Uri.file(r.stepFile));
        else if (b === 'Open workflow') void nav.open({ file: t.state.file, key: 'currentStep' });
      });
    }
    return r;
  });

  run.add('manifest', async (arg) => {
    const a = toArgs(arg);
    const out = [];
    for (const root of model.roots) out.push(await model.core.manifest(root));
    if (!a.quiet) run.info(a, `Manifest written: ${out.map((m) => `${model.relative(m.file)} (${m.rows.length} rows)`).join(', ')}`);
    return out;
  });

  run.add('changed', async (arg) => {
    const a = toArgs(arg);
    const reports = [];
    for (const root of model.roots) reports.push(await model.core.changed(root));
    if (a.quiet) return reports;
    const items: vscode.QuickPickItem[] = [];
    for (const rep of reports) {
      for (const [label, files] of [['state changed', rep.stateChanged], ['content changed', rep.contentChanged], ['added', rep.added], ['removed', rep.removed]] as const) {
        for (const f of files) items.push({ label: f, description: label });
      }
    }
    if (!items.length) run.info(a, 'Nothing changed since the last manifest.');
    else {
      const picked = await vscode.window.showQuickPick(items, { title: 'Changed since the last manifest' });
      if (picked && picked.description !== 'removed') await nav.open({ file: path.isAbsolute(picked.label) ? picked.label : path.join(model.roots[0], picked.label) });
    }
    return reports;
  });

  run.add('openFile', async (arg) => nav.open(toArgs(arg)));

  run.add('openStepFile', async (arg) => {
    const t = await run.target(arg);
    if (!t) return undefined;
    const stepId = t.args.step ?? activeStep(t.state);
    const step = t.state.steps.find((s) => s.id === stepId);
    if (!step?.file) throw new WaymarkError('unreadable', `Step ${stepId ?? '(none)'} of ${t.state.workflow} has no step file.`, t.state.file);
    await vscode.window.showTextDocument(vscode.Uri.file(step.file), { preview: true });
    return step.file;
  });

  run.add('nextActions', async (arg) => {
    const t = await run.target(arg, (s) => s.status === 'in_progress');
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
    items.push({ label: '$(go-to-file) Open workflow file', description: model.relative(file), run: exec(COMMANDS.openFile, { key: 'currentStep' }) });
    items.push({ label: '$(history) Show history', run: exec(COMMANDS.history) });
    items.push({ label: '$(type-hierarchy-sub) Delegate…', run: exec(COMMANDS.delegate) });
    const picked = await vscode.window.showQuickPick(items, { title: `${model.displayName(s)} · ${step ?? s.status ?? ''} · ${progress(s)}` });
    if (picked) await picked.run();
    return picked?.label;
  });

  run.add('showLog', async () => model.log.show(true));
}

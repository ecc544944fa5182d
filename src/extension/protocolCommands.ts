// Crash-safe protocol commands: checkpoints and orchestrator leases (take over, release).
// The leases on screen live in the model (leases.ts); these commands change them.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, describeOwner } from '../core/index';
import { toArgs, type CommandArgs, type CommandRunner } from './commandRunner';
import { editorOwner, sameOwner } from './leases';
import type { ExtensionModel } from './model';

export function registerProtocolCommands(run: CommandRunner, model: ExtensionModel): void {
  const log = model.log;
  const protocol = () => model.core.protocol;
  const owner = () => editorOwner(model.settings.actor);
  const label = (root: string, file: string | undefined) => (file ? path.relative(root, file).split(path.sep).join('/') : `the workspace ${path.basename(root)}`);
  const pickRoot = async (a: CommandArgs): Promise<string | undefined> => {
    if (a.root) return a.root;
    const roots = model.roots;
    if (a.file) return model.rootFor(a.file) ?? roots[0];
    if (roots.length <= 1) return roots[0];
    return (await vscode.window.showQuickPick(roots.map((r) => ({ label: path.basename(r), description: r, r }))))?.r;
  };

  run.add('checkpointCreate', async (arg) => {
    const a = toArgs(arg);
    const root = await pickRoot(a);
    if (!root) return undefined;
    const message = a.message ?? (a.quiet ? undefined : await vscode.window.showInputBox({ prompt: 'Checkpoint message (optional)' }));
    if (message === undefined && !a.quiet) return undefined;
    const cp = await protocol().createCheckpoint(root, { message: message || undefined, actor: owner().agent });
    log.info(`[protocol] checkpoint ${cp.id}: ${cp.workflows.length} workflow(s)`);
    if (!a.quiet) void vscode.window.showInformationMessage(`Checkpoint ${cp.id}: ${cp.workflows.length} workflow(s) saved.`);
    return cp;
  });

  run.add('leaseTakeOver', async (arg) => {
    const a = toArgs(arg);
    const root = await pickRoot(a);
    if (!root) return undefined;
    let file = a.file;
    if (!file && !a.root && !a.quiet) {
      const held = protocol().listLeases(root).filter((s) => !s.stale);
      const whole = held.find((s) => s.lease.key === 'root');
      const picked = await vscode.window.showQuickPick(
        [
          { label: 'Whole workspace', description: whole ? describeOwner(whole.lease.owner) : '', target: undefined as string | undefined },
          ...held.filter((s) => s.lease.key !== 'root').map((s) => ({ label: s.lease.target, description: describeOwner(s.lease.owner), target: path.join(root, s.lease.target) })),
        ],
        { title: 'Take over the orchestrator lease of…' },
      );
      if (!picked) return undefined;
      file = picked.target;
    }
    let reason = a.reason;
    if (reason === undefined && !a.quiet) {
      const holder = protocol().listLeases(root).find((s) => s.lease.key === (file ? `file:${label(root, file)}` : 'root'));
      reason = await vscode.window.showInputBox({
        title: `Take over ${label(root, file)}${holder ? ` from ${holder.lease.owner.agent}` : ''}`,
        prompt: 'Why take over? (recorded in the events log and the history; Escape cancels)',
      });
      if (reason === undefined) return undefined;
    }
    const r = await protocol().takeoverLease(root, file, owner(), { reason: reason || undefined });
    model.leases.refresh(root);
    log.info(`[protocol] took over the lease of ${label(root, file)}${r.previous ? ` from ${describeOwner(r.previous.owner)}` : ''}`);
    if (!a.quiet) void vscode.window.showInformationMessage(`Lease on ${label(root, file)} taken over${r.previous ? ` from ${describeOwner(r.previous.owner)}` : ''}.`);
    return r;
  });

  run.add('leaseRelease', async (arg) => {
    const a = toArgs(arg);
    const root = await pickRoot(a);
    if (!root) return undefined;
    let file = a.file;
    const me = owner();
    if (!file && !a.root && !a.quiet) {
      const mine = protocol().listLeases(root).filter((s) => sameOwner(s.lease.owner, me) || s.stale);
      if (!mine.length) throw new WaymarkError('usage', `No lease held by ${me.agent} in ${path.basename(root)}.`);
      const picked = await vscode.window.showQuickPick(mine.map((s) => ({ label: s.lease.target === '*' ? 'Whole workspace' : s.lease.target, description: `${describeOwner(s.lease.owner)}${s.stale ? ' (stale)' : ''}`, target: s.lease.target === '*' ? undefined : path.join(root, s.lease.target) })));
      if (!picked) return undefined;
      file = picked.target;
    }
    let force = a.force === true;
    if (!force && !a.quiet) {
      const cur = protocol().listLeases(root).find((s) => s.lease.key === (file ? `file:${label(root, file)}` : 'root'));
      if (cur && !cur.stale && !sameOwner(cur.lease.owner, me)) {
        const b = await vscode.window.showWarningMessage(
          `${describeOwner(cur.lease.owner)} holds the lease on ${label(root, file)} since ${cur.lease.acquiredAt}. Releasing it lets anyone write while that agent may still be working. Release it anyway?`,
          { modal: true },
          'Release Anyway',
        );
        if (b !== 'Release Anyway') return undefined;
        force = true;
      }
    }
    const r = await protocol().releaseLease(root, file, me, { force });
    model.leases.refresh(root);
    if (!a.quiet) void vscode.window.showInformationMessage(r.released ? `Lease on ${label(root, file)} released.` : 'No lease to release.');
    return r;
  });
}

// Crash-safe protocol commands (checkpoints, orchestrator leases) over src/core/protocol.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StateCore } from '../core/index';
import { WaymarkError, errorMessage } from '../core/index';
import { createCheckpoint } from '../core/protocol/checkpoints';
import { currentOwner, describeOwner, listLeases, releaseLease, takeoverLease } from '../core/protocol/leases';
import { CONFIG_SECTION, PROTOCOL_COMMANDS } from './constants';

export interface ProtocolDeps {
  roots: string[];
  logger: vscode.LogOutputChannel;
  core: StateCore;
  /** False in an untrusted workspace: every command here writes. */
  canWrite?: () => boolean;
}

interface Args {
  root?: string;
  file?: string;
  message?: string;
  reason?: string;
  quiet?: boolean;
}

export function registerProtocolFeatures(_context: vscode.ExtensionContext, deps: ProtocolDeps): vscode.Disposable {
  const { logger } = deps;
  const owner = () => currentOwner({ agent: vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('actor', 'vscode') || 'vscode' });

  const pickRoot = async (a: Args): Promise<string | undefined> => {
    if (a.root) return a.root;
    const roots = deps.roots; // read now: folders can change after activation
    if (a.file) return roots.find((r) => a.file!.startsWith(r + path.sep)) ?? roots[0];
    if (roots.length <= 1) return roots[0];
    return (await vscode.window.showQuickPick(roots.map((r) => ({ label: path.basename(r), description: r, r }))))?.r;
  };

  const wrap = (id: string, action: string, fn: (a: Args) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, async (arg?: Args) => {
      try {
        if (deps.canWrite && !deps.canWrite()) {
          throw new WaymarkError('unavailable', `${action} is disabled because this workspace is not trusted. Trust the folder to change workflow state.`, undefined, { untrusted: true });
        }
        return await fn(arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) ? arg : {});
      } catch (e) {
        const message = WaymarkError.is(e) && e.data?.untrusted ? errorMessage(e) : `${action} failed: ${errorMessage(e)}`;
        logger.error(`[protocol] ${message}`);
        void vscode.window.showErrorMessage(message, 'Show Log').then((b) => b && logger.show(true));
        return undefined;
      }
    });

  const disposables = [
    wrap(PROTOCOL_COMMANDS.checkpointCreate, 'Create checkpoint', async (a) => {
      const root = await pickRoot(a);
      if (!root) return undefined;
      const message = a.message ?? (a.quiet ? undefined : await vscode.window.showInputBox({ prompt: 'Checkpoint message (optional)' }));
      if (message === undefined && !a.quiet) return undefined;
      const cp = await createCheckpoint(root, { message: message || undefined, actor: owner().agent, logger });
      logger.info(`[protocol] checkpoint ${cp.id}: ${cp.workflows.length} workflow(s)`);
      if (!a.quiet) void vscode.window.showInformationMessage(`Checkpoint ${cp.id}: ${cp.workflows.length} workflow(s) saved.`);
      return cp;
    }),
    wrap(PROTOCOL_COMMANDS.leaseTakeOver, 'Take over lease', async (a) => {
      const root = await pickRoot(a);
      if (!root) return undefined;
      let file = a.file;
      if (!file && !a.quiet) {
        const held = listLeases(root).filter((s) => !s.stale);
        const picked = await vscode.window.showQuickPick(
          [{ label: 'Whole workspace', description: '', target: undefined as string | undefined }, ...held.filter((s) => s.lease.target !== '*').map((s) => ({ label: s.lease.target, description: describeOwner(s.lease.owner), target: path.join(root, s.lease.target) }))],
          { title: 'Take over the orchestrator lease of…' },
        );
        if (!picked) return undefined;
        file = picked.target;
      }
      const reason = a.reason ?? (a.quiet ? undefined : await vscode.window.showInputBox({ prompt: 'Why take over? (recorded in the events log)' }));
      const r = await takeoverLease(root, file, owner(), { reason: reason || undefined, logger });
      if (!a.quiet) void vscode.window.showInformationMessage(`Lease taken over${r.previous ? ` from ${describeOwner(r.previous.owner)}` : ''}.`);
      return r;
    }),
    wrap(PROTOCOL_COMMANDS.leaseRelease, 'Release lease', async (a) => {
      const root = await pickRoot(a);
      if (!root) return undefined;
      let file = a.file;
      if (!file && !a.quiet) {
        const me = owner();
        const mine = listLeases(root).filter((s) => s.lease.owner.agent === me.agent);
        if (!mine.length) throw new WaymarkError('usage', `No lease held by ${me.agent} in ${path.basename(root)}.`);
        const picked = await vscode.window.showQuickPick(mine.map((s) => ({ label: s.lease.target === '*' ? 'Whole workspace' : s.lease.target, target: s.lease.target === '*' ? undefined : path.join(root, s.lease.target) })));
        if (!picked) return undefined;
        file = picked.target;
      }
      const r = await releaseLease(root, file, owner(), { logger });
      if (!a.quiet) void vscode.window.showInformationMessage(r.released ? 'Lease released.' : 'No lease to release.');
      return r;
    }),
  ];
  return vscode.Disposable.from(...disposables);
}

import * as path from 'node:path';
import { WaymarkError, errorMessage } from '../errors';
import type { GateState, GateVerdict, MutationOptions, StepDef, WorkflowState } from '../types';
import { gateFilePath, gateOf, gateTextHash } from '../model/gates';
import { clip, isoTime, quoted } from '../model/text';
import { prepareGateFile } from '../store/gateStore';
import { latestGateRecord } from '../store/history';
import type { WorkspaceContext } from '../store/workspaceContext';
import { sweepStaleTemps } from '../store/atomicWrite';
import { runTransaction, type TxWrite } from './transaction';
import type { WriteObserver } from '../writeHooks';
import { checkReason } from './writePipeline';
import type { WritePipeline } from './writePipeline';

/** The step a gate command names: by id, by gate name, or by id without `.md`. */
export function stepFor(state: WorkflowState, step: string): StepDef {
  const def = state.steps.find((s) => s.id === step) ?? state.steps.find((s) => s.gate === step) ?? state.steps.find((s) => s.id.replace(/\.md$/i, '') === step.replace(/\.md$/i, ''));
  if (def) return def;
  if (!state.steps.length) return { id: step, index: 0, gate: step };
  throw new WaymarkError('usage', `${clip(step)} is not a step of ${clip(state.workflow)}; steps are: ${state.steps.map((s) => clip(s.id)).slice(0, 12).join(', ')}${state.steps.length > 12 ? ', …' : ''}.`, state.file);
}

/**
 * Whether the gate file at its old location (`legacy`, before gates were keyed by the file's
 * path) is this workflow's: its last recorded verdict for the gate was written there. Only then
 * does a new verdict move it; a file another workflow of the same name wrote stays where it is.
 */
function ownsLegacyGate(ctx: WorkspaceContext, file: string, gate: string, legacy: string): boolean {
  const last = latestGateRecord(ctx.root, file, gate, ctx.config.history?.dir);
  const at = last?.detail?.gateFile;
  if (typeof at !== 'string') return false;
  const rel = path.relative(ctx.root, legacy).split(path.sep).join('/');
  return at.split(path.sep).join('/').endsWith(`/${rel}`) || at === rel;
}

/**
 * Writes a gate verdict to the step's gate file under the workflow's lock and the gate file's
 * own lock, records it in the workflow's history, then re-reads the workflow so listeners see it.
 */
export async function writeGateVerdict(
  w: WritePipeline,
  file: string,
  stepName: string,
  verdict: GateVerdict,
  args: { reason?: string; by?: string; expires?: string },
  options?: MutationOptions,
): Promise<GateState> {
  const opts = options ?? {};
  const abs = path.resolve(file);
  const ctx = await w.contexts.contextFor(abs);
  if (opts.text !== undefined) throw new WaymarkError('usage', 'Gate verdicts are written to gate files; they cannot be applied to unsaved text.');
  if (verdict === 'WAIVED' && (!args.reason?.trim() || !args.by?.trim())) {
    throw new WaymarkError('usage', 'A waiver needs a reason and who approved it (--reason TEXT --by NAME).', abs);
  }
  // (A date as ISO 8601 writes it: `Date.parse` alone takes `-1` or `1.5` as dates, and an empty one would waive for ever.)
  if (args.expires !== undefined && isoTime(args.expires) === undefined) throw new WaymarkError('usage', `--expires ${quoted(args.expires)} is not a date (use e.g. 2026-12-31 or 2026-12-31T18:00:00Z).`, abs);
  checkReason(args.reason, abs);
  const operation = `gate-${verdict.toLowerCase()}`;
  const wctx = w.writeContext(abs, ctx, operation, opts);
  const target = w.writeTarget(abs, ctx.root);
  // Where the gate file is (and where an old copy may move from), as read now; re-checked under the locks.
  const where = (state: WorkflowState) => {
    const step = stepFor(state, stepName);
    const gateName = step.gate ?? step.id;
    const gatePath = gateFilePath(ctx, state, gateName);
    const before = gateOf(ctx, state, gateName, w.clock.now());
    const moveFrom = before.exists && before.file !== gatePath && ownsLegacyGate(ctx, abs, gateName, before.file) ? before.file : undefined;
    return { step, gateName, gatePath, before, moveFrom };
  };
  const first = where(w.readAt(abs, target, ctx).state);
  await w.settle(ctx, abs);
  let state!: WorkflowState;
  // The gate file and the workflow's history line (carrying the gate file's hash) are one
  // transaction (engine/transaction.ts); an old copy is locked too and removed in it.
  const tx = w.txContext(ctx, wctx);
  // Observers (events) see the workflow as it is: its file did not change.
  const observers = tx.observers?.map((ob): WriteObserver => Object.assign((e: Parameters<WriteObserver>[0], c: Parameters<WriteObserver>[1]) => ob(e, { ...c, after: state }), { deferred: ob.deferred }));
  await runTransaction({ ...tx, guards: undefined, observers }, {
    operation,
    files: [abs, first.gatePath, ...(first.moveFrom ? [first.moveFrom] : [])],
    underLocks: async () => {
      await w.recover(ctx, abs);
      await w.runGuards({ ...wctx });
      // A gate writer that died may have left its temp file.
      for (const t of sweepStaleTemps(path.dirname(first.gatePath))) w.logger.warn(`[write] removed ${t} left by a writer that died`);
    },
    plan: (texts) => {
      const text = texts.get(abs);
      if (text === undefined) throw new WaymarkError('unreadable', `${abs} no longer exists.`, abs);
      state = w.parse(abs, text, ctx).state;
      w.checkHash(state, opts);
      const now = where(state);
      if (now.gatePath !== first.gatePath || now.moveFrom !== first.moveFrom) {
        throw new WaymarkError('conflict', `${abs} changed while its gate verdict was being written (the gate file is now ${now.gatePath}); nothing was written. Re-run.`, abs);
      }
      w.preflight(ctx, abs, undefined);
      const reviewer = args.by?.trim() || wctx.actor;
      const updated = w.clock.now().toISOString();
      // A verdict at the old location (keyed by base name) moves to the file's own path.
      const prepared = prepareGateFile(now.gatePath, {
        verdict,
        reviewer,
        reason: args.reason?.trim() || undefined,
        updated,
        waiver: verdict === 'WAIVED' ? { reason: args.reason!.trim(), approved_by: args.by!.trim(), ...(args.expires ? { expires: args.expires } : {}) } : undefined,
      }, ctx.root, now.moveFrom);
      const planned = w.entryFor(abs, operation, wctx, state, state, {
        step: now.step.id,
        gate: now.gateName,
        gateFile: now.gatePath,
        verdict,
        reviewer,
        updated,
        // What proves the gate file is this verdict (gates.trust: recorded): its content's hash.
        gateSha256: gateTextHash(prepared.text),
        ...(now.moveFrom ? { movedFrom: path.relative(ctx.root, now.moveFrom).split(path.sep).join('/') } : {}),
        previous: now.before.verdict ?? null,
        ...(args.reason ? { reason: args.reason } : {}),
        ...(args.by ? { by: args.by } : {}),
        ...(args.expires ? { expires: args.expires } : {}),
      });
      const { time: _t, actor: _a, session: _s, operation: _o, file: _f, ...line } = planned;
      const write: TxWrite = { file: now.gatePath, text: prepared.text, historyFile: abs, entry: line };
      // The old copy goes in the same transaction: never both, never neither.
      const writes: TxWrite[] = now.moveFrom ? [write, { file: now.moveFrom, text: '', remove: true, entry: null }] : [write];
      return { writes, result: () => undefined };
    },
  });
  const gate = gateOf(ctx, state, first.gateName, w.clock.now());
  // The workflow's gates changed (its file did not): re-read it and tell listeners.
  try {
    const fresh = (await w.readWorkflow(abs)).state;
    w.model.set(abs, fresh);
    w.model.refreshCross();
    w.model.emit({ changes: [{ file: abs, state: fresh }] });
  } catch (e) {
    w.logger.warn(`[core] re-reading ${abs} after its gate changed failed: ${errorMessage(e)}`);
  }
  return gate;
}

/** A step's gate as it stands on disk. */
export async function showGate(w: WritePipeline, file: string, step: string): Promise<GateState> {
  const abs = path.resolve(file);
  const ctx = await w.contexts.contextFor(abs);
  const state = (await w.readWorkflow(abs)).state;
  const def = stepFor(state, step);
  const name = def.gate ?? def.id;
  return gateOf(ctx, state, name, w.clock.now());
}

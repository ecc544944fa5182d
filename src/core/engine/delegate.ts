import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WriteContext } from '../writeHooks';
import { WaymarkError } from '../errors';
import type { HistoryEntry, MutationOptions, MutationResult, WorkflowState } from '../types';
import { detectEol, type FrontmatterEdit } from '../model/edit';
import { writeFileAtomic } from '../store/atomicWrite';
import { acquireFileLock, type HeldLock } from '../store/fileLock';
import { readHistory } from '../store/history';
import { completeIntent } from '../store/intentJournal';
import { safeMkdir, safeWritePath } from '../store/safePath';
import type { WritePipeline } from './writePipeline';

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
}

/**
 * Creates a child workflow file next to `file` with its delegation chain computed, and makes
 * the parent the root of the chain when it had none: child first, parent second, all or nothing.
 */
export async function delegateWorkflow(w: WritePipeline, file: string, args: { agent: string; out?: string; workflow?: string }, options?: MutationOptions): Promise<MutationResult> {
  const opts = options ?? {};
  const agent = args.agent?.trim();
  if (!agent) throw new WaymarkError('usage', 'delegate needs an agent name (--agent NAME).');
  const abs = path.resolve(file);
  const ctx = await w.contexts.contextFor(abs);
  const target = opts.text === undefined ? w.writeTarget(abs, ctx.root) : undefined;
  const parentLock = opts.text === undefined ? await acquireFileLock(abs, w.lockOptions(ctx.root)) : undefined;
  if (parentLock) w.logBroken(parentLock, target);
  let intent: { path: string; id: string } | undefined;
  const wctx = w.writeContext(abs, ctx.root, 'delegate', opts);
  let childLock: HeldLock | undefined;
  let result: MutationResult;
  let created: { deepest: string; top: string } | undefined;
  let done = false;
  const entries: { entry: HistoryEntry; ctx: WriteContext & { after?: WorkflowState } }[] = [];
  try {
    if (target !== undefined) await w.recover(ctx, abs);
    const parent = opts.text !== undefined ? w.parse(abs, opts.text, ctx) : w.readAt(abs, target!, ctx);
    w.checkHash(parent.state, opts);
    const p = parent.state;
    // A child copies its parent's chain: never copy a broken one.
    const broken = parent.problems.find((x) => x.severity === 'error' && x.code.startsWith('delegation-'));
    if (broken) {
      throw new WaymarkError('invalid', `Refused: the delegation block of ${abs} is broken (${broken.code}, line ${broken.range.start.line + 1}: ${broken.message}); fix it before delegating from this file.`, abs, { code: broken.code });
    }
    const parentId = p.delegation?.id ?? slug(path.basename(abs).replace(/\.[^.]*$/, ''));
    const rootId = p.delegation?.root_id ?? parentId;
    const chain = p.delegation?.chain_path?.length ? [...p.delegation.chain_path] : [parentId];
    const depth = (p.delegation?.depth ?? 0) + 1;
    const agentSlug = slug(agent);
    // Ids already given out: the model's, and (read under the parent's lock, so two concurrent
    // delegations never pick the same one) every child recorded in the parent's history.
    const taken = new Set(w.model.list().map((s) => s.delegation?.id).filter(Boolean) as string[]);
    if (opts.text === undefined) {
      for (const e of readHistory(ctx.root, abs, ctx.config.history?.dir)) {
        const id = e.operation === 'delegate' ? e.detail?.childId : undefined;
        if (typeof id === 'string') taken.add(id);
      }
    }
    let childId = `${parentId}.${agentSlug}`;
    for (let n = 2; taken.has(childId); n++) childId = `${parentId}.${agentSlug}-${n}`;
    let out: string;
    let missingDir: string | undefined;
    if (args.out) {
      out = path.resolve(args.out);
      // Never outside the workspace, by its real path (`../../x.md`, `/abs/x.md`, a linked folder).
      safeWritePath(ctx.root, out, '--out');
      if (fs.existsSync(out)) throw new WaymarkError('usage', `${out} already exists; choose another --out path (delegate never overwrites a file).`, out);
      let dir: fs.Stats | undefined;
      try {
        dir = fs.statSync(path.dirname(out));
      } catch {
        dir = undefined; // created below, inside the workspace, once the guards let the write go
      }
      if (dir && !dir.isDirectory()) throw new WaymarkError('usage', `The folder of --out ${out} is a file; choose another --out path.`, out);
      if (!dir) missingDir = path.dirname(out);
    } else {
      const base = path.join(path.dirname(abs), path.basename(abs).replace(/\.md$/i, ''));
      out = `${base}.${agentSlug}.md`;
      for (let n = 2; fs.existsSync(out); n++) out = `${base}.${agentSlug}-${n}.md`;
    }
    // Ids follow the file: a child file name taken by an earlier delegation means its id is too.
    if (!args.out) {
      const suffix = path.basename(out, '.md').slice(path.basename(abs).replace(/\.md$/i, '').length + 1);
      if (suffix !== agentSlug && !taken.has(`${parentId}.${suffix}`)) childId = `${parentId}.${suffix}`;
      for (let n = 2; taken.has(childId); n++) childId = `${parentId}.${agentSlug}-${n}`;
    }
    const eol = detectEol(parent.text);
    const workflowId = args.workflow ?? p.workflow;
    const lines = ['---', `workflow: ${JSON.stringify(workflowId)}`, 'status: created'];
    const fromDefinition = p.stepsSource === 'definition' && workflowId === p.workflow;
    if (!fromDefinition && p.steps.length && workflowId === p.workflow) {
      lines.push(`steps: [${p.steps.map((s) => JSON.stringify(s.id)).join(', ')}]`);
    }
    lines.push(
      'delegation:',
      `  id: ${JSON.stringify(childId)}`,
      `  parent_id: ${JSON.stringify(parentId)}`,
      `  root_id: ${JSON.stringify(rootId)}`,
      `  depth: ${depth}`,
      `  chain_path: [${[...chain, childId].map((c) => JSON.stringify(c)).join(', ')}]`,
      `  agent: ${JSON.stringify(agent)}`,
      '---',
      '',
      `# ${workflowId}: delegated to ${agent}`,
      '',
      `Delegated from \`${path.relative(path.dirname(out), abs).split(path.sep).join('/')}\`${p.currentStep ? ` at step ${p.currentStep}` : ''}.`,
      '',
    );
    const childText = lines.join(eol);
    const child = w.parse(out, childText, ctx);
    const childErrors = child.problems.filter((x) => x.severity === 'error' && !x.code.startsWith('delegation'));
    if (childErrors.length) throw new WaymarkError('invalid', `Refused: the delegated file would be invalid: ${childErrors[0].message}`, out);
    if (opts.text !== undefined) {
      return { file: out, operation: 'delegate', before: p, after: child.state, newText: childText, written: false };
    }
    await w.runGuards(wctx);
    // --out into a folder that does not exist yet: create it (checked inside the workspace by its real path).
    if (missingDir) {
      let top = missingDir;
      while (!fs.existsSync(path.dirname(top)) && path.dirname(top) !== top) top = path.dirname(top);
      safeMkdir(ctx.root, missingDir, '--out');
      created = { deepest: missingDir, top };
    }
    // Claim the child's path before touching the parent: a lost race then changes nothing.
    childLock = await acquireFileLock(out, w.lockOptions(ctx.root));
    if (fs.existsSync(out)) throw new WaymarkError('conflict', `${out} was created by someone else meanwhile; retry. Nothing was changed.`, out);
    // A parent without a delegation block becomes the root of the chain.
    let parentAfter = p;
    let parentText: string | undefined;
    if (!p.delegation) {
      const edit: FrontmatterEdit = { key: 'delegation', value: { id: parentId, parent_id: null, root_id: parentId, depth: 0, chain_path: [parentId] } };
      const applied = w.applyPlan(parent, { edits: [edit] }, ctx, 'delegate');
      parentText = applied.newText;
      parentAfter = applied.after;
    }
    w.preflight(ctx, abs, parentText !== undefined ? target : undefined);
    w.preflight(ctx, out, undefined);
    const outTarget = safeWritePath(ctx.root, out, '--out');
    const pe0 = w.entryFor(abs, 'delegate', wctx, p, parentAfter, { child: out, childId, agent });
    const cctx: WriteContext = { ...wctx, file: out, operation: 'create' };
    const ce0 = w.entryFor(out, 'create', cctx, undefined, child.state, { parent: abs, parentId, agent });
    const writes = [{ file: outTarget, text: childText }, ...(parentText !== undefined ? [{ file: target!, text: parentText }] : [])];
    // The parent's line is proven by the parent's new bytes when it changes, else by the child.
    intent = w.journal(ctx, abs, writes, [{ entry: pe0, evidence: parentText !== undefined ? 1 : 0 }, { entry: ce0, evidence: 0 }]);
    // Child first; if the parent cannot then be written, the child is taken back (all or nothing).
    try {
      writeFileAtomic(outTarget, childText, { root: ctx.root, beforeRename: () => parentLock!.assertHeld() });
    } catch (e) {
      completeIntent(intent.path);
      intent = undefined;
      throw e;
    }
    if (parentText !== undefined) {
      try {
        writeFileAtomic(target!, parentText, { root: ctx.root, mustExist: true, beforeRename: w.casCheck(parentLock!, target!, abs, parent.text) });
      } catch (e) {
        completeIntent(intent.path);
        intent = undefined;
        try {
          fs.unlinkSync(out);
        } catch {
          // already gone
        }
        throw e;
      }
      w.model.set(abs, parentAfter);
    }
    w.model.set(out, child.state);
    const pe = w.append(ctx, { ...pe0, intent: `${intent.id}:0` });
    entries.push({ entry: pe, ctx: { ...wctx, after: parentAfter } });
    const ce = w.append(ctx, { ...ce0, intent: `${intent.id}:1` });
    entries.push({ entry: ce, ctx: { ...cctx, after: child.state } });
    result = { file: out, operation: 'delegate', before: p, after: child.state, newText: childText, written: true, seq: ce.seq };
    done = true;
  } finally {
    childLock?.release();
    parentLock?.release();
    // Refused or failed after the folder was made for it: take the empty folders back.
    if (created && !done) {
      for (let d = created.deepest; ; d = path.dirname(d)) {
        try {
          fs.rmdirSync(d); // only ever an empty folder
        } catch {
          break;
        }
        if (d === created.top) break;
      }
    }
  }
  w.model.refreshCross();
  let observersOk = true;
  for (const e of entries) if (!(await w.runObservers(e.entry, e.ctx))) observersOk = false;
  w.finish(intent?.path, observersOk);
  w.model.emit({ changes: [{ file: abs, state: w.model.get(abs) }, { file: result.file, state: result.after }] });
  return result;
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WriteContext } from '../api';
import { WaymarkError } from '../errors';
import type { HistoryEntry, MutationOptions, MutationResult, WorkflowState } from '../types';
import { detectEol, type FrontmatterEdit } from '../model/edit';
import { writeFileAtomic } from '../store/atomicWrite';
import { acquireFileLock, type HeldLock } from '../store/fileLock';
import { assertHistoryAppendable } from '../store/history';
import type { WritePipeline } from './writePipeline';
import { assertWritableInside } from './roots';

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
  if (opts.text === undefined) assertWritableInside(abs, ctx.root);
  const parentLock = opts.text === undefined ? await acquireFileLock(abs, w.lockOptions(ctx.root)) : undefined;
  if (parentLock) w.logBroken(parentLock);
  const wctx = w.writeContext(abs, ctx.root, 'delegate', opts);
  let childLock: HeldLock | undefined;
  let result: MutationResult;
  const entries: { entry: HistoryEntry; ctx: WriteContext & { after?: WorkflowState } }[] = [];
  try {
    const parent = opts.text !== undefined ? w.parse(abs, opts.text, ctx) : await w.readForWrite(abs);
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
    const taken = new Set(w.model.list().map((s) => s.delegation?.id).filter(Boolean) as string[]);
    let childId = `${parentId}.${agentSlug}`;
    for (let n = 2; taken.has(childId); n++) childId = `${parentId}.${agentSlug}-${n}`;
    let out: string;
    if (args.out) {
      out = path.resolve(args.out);
      if (fs.existsSync(out)) throw new WaymarkError('usage', `${out} already exists; choose another --out path (delegate never overwrites a file).`, out);
      let dirOk = false;
      try {
        dirOk = fs.statSync(path.dirname(out)).isDirectory();
      } catch {
        dirOk = false;
      }
      if (!dirOk) throw new WaymarkError('usage', `The folder of --out ${out} does not exist; create it first.`, out);
    } else {
      const base = path.join(path.dirname(abs), path.basename(abs).replace(/\.md$/i, ''));
      out = `${base}.${agentSlug}.md`;
      for (let n = 2; fs.existsSync(out); n++) out = `${base}.${agentSlug}-${n}.md`;
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
    assertHistoryAppendable(ctx.root, abs, ctx.config.history?.dir);
    assertHistoryAppendable(ctx.root, out, ctx.config.history?.dir);
    // Child first; if the parent cannot then be written, the child is taken back (all or nothing).
    writeFileAtomic(out, childText);
    if (parentText !== undefined) {
      try {
        writeFileAtomic(abs, parentText, { mustExist: true });
      } catch (e) {
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
    const pe = w.appendEntry(ctx, abs, 'delegate', wctx, p, parentAfter, { child: out, childId, agent });
    entries.push({ entry: pe, ctx: { ...wctx, after: parentAfter } });
    const cctx: WriteContext = { ...wctx, file: out, operation: 'create' };
    const ce = w.appendEntry(ctx, out, 'create', cctx, undefined, child.state, { parent: abs, parentId, agent });
    entries.push({ entry: ce, ctx: { ...cctx, after: child.state } });
    result = { file: out, operation: 'delegate', before: p, after: child.state, newText: childText, written: true, seq: ce.seq };
  } finally {
    childLock?.release();
    parentLock?.release();
  }
  w.model.refreshCross();
  for (const e of entries) await w.runObservers(e.entry, e.ctx);
  w.model.emit({ changes: [{ file: abs, state: w.model.get(abs) }, { file: result.file, state: result.after }] });
  return result;
}

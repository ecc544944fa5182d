import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import type { HistoryEntry, MutationOptions, MutationResult, WorkflowState } from '../types';
import { detectEol, type FrontmatterEdit } from '../model/edit';
import { readHistory, stateChange, workspaceRelative } from '../store/history';
import type { WorkspaceContext } from '../store/workspaceContext';
import { safeMkdir, safeWritePath } from '../store/safePath';
import { runTransaction } from './transaction';
import { readWorkflowText, type ReadFile } from './workflowReader';
import type { WritePipeline } from './writePipeline';

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
}

/** Where the child goes: `--out` (inside the workspace, never over a file) or beside the parent. */
function childPath(ctx: WorkspaceContext, abs: string, agentSlug: string, outArg: string | undefined): { out: string; missingDir?: string } {
  if (!outArg) {
    const base = path.join(path.dirname(abs), path.basename(abs).replace(/\.md$/i, ''));
    let out = `${base}.${agentSlug}.md`;
    for (let n = 2; fs.existsSync(out); n++) out = `${base}.${agentSlug}-${n}.md`;
    return { out };
  }
  const out = path.resolve(outArg);
  // Never outside the workspace, by its real path (`../../x.md`, `/abs/x.md`, a linked folder).
  safeWritePath(ctx.root, out, '--out');
  if (fs.existsSync(out)) throw new WaymarkError('usage', `${out} already exists; choose another --out path (delegate never overwrites a file).`, out);
  let dir: fs.Stats | undefined;
  try {
    dir = fs.statSync(path.dirname(out));
  } catch {
    dir = undefined; // created below, inside the workspace, once the change is planned
  }
  if (dir && !dir.isDirectory()) throw new WaymarkError('usage', `The folder of --out ${out} is a file; choose another --out path.`, out);
  return { out, missingDir: dir ? undefined : path.dirname(out) };
}

interface Delegation {
  childId: string;
  childText: string;
  child: ReadFile;
  parentId: string;
  parentText?: string;
  parentAfter: WorkflowState;
}

/** The child file and the parent's new bytes (when it becomes the root of the chain). */
function design(w: WritePipeline, ctx: WorkspaceContext, abs: string, parent: ReadFile, out: string, agent: string, taken: Set<string>, explicitOut: boolean, workflow: string | undefined): Delegation {
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
  let childId = `${parentId}.${agentSlug}`;
  for (let n = 2; taken.has(childId); n++) childId = `${parentId}.${agentSlug}-${n}`;
  // Ids follow the file: a child file name taken by an earlier delegation means its id is too.
  if (!explicitOut) {
    const suffix = path.basename(out, '.md').slice(path.basename(abs).replace(/\.md$/i, '').length + 1);
    if (suffix !== agentSlug && !taken.has(`${parentId}.${suffix}`)) childId = `${parentId}.${suffix}`;
    for (let n = 2; taken.has(childId); n++) childId = `${parentId}.${agentSlug}-${n}`;
  }
  const eol = detectEol(parent.text);
  const workflowId = workflow ?? p.workflow;
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
  // A parent without a delegation block becomes the root of the chain.
  if (p.delegation) return { childId, childText, child, parentId, parentAfter: p };
  const edit: FrontmatterEdit = { key: 'delegation', value: { id: parentId, parent_id: null, root_id: parentId, depth: 0, chain_path: [parentId] } };
  const applied = w.applyPlan(parent, { edits: [edit] }, ctx, 'delegate');
  return { childId, childText, child, parentId, parentText: applied.newText, parentAfter: applied.after };
}

/**
 * Creates a child workflow file next to `file` with its delegation chain computed, and makes
 * the parent the root of the chain when it had none: one transaction (engine/transaction.ts)
 * over the parent and the child, all or nothing, a history line in each.
 */
export async function delegateWorkflow(w: WritePipeline, file: string, args: { agent: string; out?: string; workflow?: string }, options?: MutationOptions): Promise<MutationResult> {
  const opts = options ?? {};
  const agent = args.agent?.trim();
  if (!agent) throw new WaymarkError('usage', 'delegate needs an agent name (--agent NAME).');
  const abs = path.resolve(file);
  const ctx = await w.contexts.contextFor(abs);
  const agentSlug = slug(agent);
  if (opts.text !== undefined) {
    const parent = w.parse(abs, opts.text, ctx);
    w.checkHash(parent.state, opts);
    const { out } = childPath(ctx, abs, agentSlug, args.out);
    const taken = new Set(w.model.list().map((s) => s.delegation?.id).filter(Boolean) as string[]);
    const d = design(w, ctx, abs, parent, out, agent, taken, !!args.out, args.workflow);
    return { file: out, operation: 'delegate', before: parent.state, after: d.child.state, newText: d.childText, written: false };
  }
  w.writeTarget(abs, ctx.root);
  // A child name taken by a concurrent delegation while this one waited for the locks: the next free name.
  for (let attempt = 0; ; attempt++) {
    try {
      return await delegateOnce(w, ctx, abs, agent, args, opts);
    } catch (e) {
      if (args.out || attempt >= 20 || !WaymarkError.is(e, 'conflict') || !(e.data as { childTaken?: boolean } | undefined)?.childTaken) throw e;
    }
  }
}

async function delegateOnce(w: WritePipeline, ctx: WorkspaceContext, abs: string, agent: string, args: { out?: string; workflow?: string }, opts: MutationOptions): Promise<MutationResult> {
  const { out, missingDir } = childPath(ctx, abs, slug(agent), args.out);
  const wctx = w.writeContext(abs, ctx, 'delegate', opts);
  // --out into a folder that does not exist yet: made for the change (inside the workspace, by
  // its real path) and taken back when the change is refused or fails.
  let created: { deepest: string; top: string } | undefined;
  if (missingDir) {
    let top = missingDir;
    while (!fs.existsSync(path.dirname(top)) && path.dirname(top) !== top) top = path.dirname(top);
    safeMkdir(ctx.root, missingDir, '--out');
    created = { deepest: missingDir, top };
  }
  let done = false;
  let result: MutationResult;
  try {
    result = await runTransaction<MutationResult>({ ...w.txContext(ctx, wctx), guards: undefined }, {
      operation: 'delegate',
      files: [abs, out],
      read: (f, t) => (f === abs ? readWorkflowText(t, ctx) : fs.existsSync(t) ? fs.readFileSync(t, 'utf8') : undefined),
      underLocks: (journal) => w.recoverOneFileIntents(ctx, abs, journal),
      plan: async (texts) => {
        const parent = w.parse(abs, texts.get(abs)!, ctx);
        w.checkHash(parent.state, opts);
        // Claimed under the child's lock: a lost race changes nothing.
        if (texts.get(out) !== undefined) throw new WaymarkError('conflict', `${out} was created by someone else meanwhile; retry. Nothing was changed.`, out, { childTaken: true });
        // Ids already given out: the model's, and (read under the parent's lock, so two concurrent
        // delegations never pick the same one) every child recorded in the parent's history.
        const taken = new Set(w.model.list().map((s) => s.delegation?.id).filter(Boolean) as string[]);
        for (const e of readHistory(ctx.root, abs, ctx.config.history?.dir)) {
          const id = e.operation === 'delegate' ? e.detail?.childId : undefined;
          if (typeof id === 'string') taken.add(id);
        }
        const d = design(w, ctx, abs, parent, out, agent, taken, !!args.out, args.workflow);
        await w.runGuards(wctx);
        const p = parent.state;
        // History is committed and merged: the files it names are workspace-relative, never this machine's paths.
        const change = (before: WorkflowState | undefined, after: WorkflowState) => ({ ...stateChange(before, after), hashBefore: before?.stateHash, hashAfter: after.stateHash });
        return {
          writes: [
            { file: out, text: d.childText, state: d.child.state, entry: { ...change(undefined, d.child.state), operation: 'create', detail: { parent: workspaceRelative(ctx.root, abs) ?? abs, parentId: d.parentId, agent } } },
            { file: abs, text: d.parentText ?? parent.text, unchanged: d.parentText === undefined, state: d.parentAfter, entry: { ...change(p, d.parentAfter), detail: { child: workspaceRelative(ctx.root, out) ?? out, childId: d.childId, agent } } },
          ],
          landed: () => {
            if (d.parentText !== undefined) w.model.set(abs, d.parentAfter);
            w.model.set(out, d.child.state);
            w.model.refreshCross();
          },
          result: (entries: HistoryEntry[]) => ({ file: out, operation: 'delegate', before: p, after: d.child.state, newText: d.childText, written: true, seq: entries[0]?.seq }),
        };
      },
    });
    done = true;
  } finally {
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
  w.model.emit({ changes: [{ file: abs, state: w.model.get(abs) }, { file: result.file, state: result.after }] });
  return result;
}

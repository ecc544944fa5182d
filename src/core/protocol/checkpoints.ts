import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WriteGuard } from '../writeHooks';
import type { Clock, Logger } from '../ports';
import { systemClock, silentLogger } from '../ports';
import type { WorkflowState } from '../types';
import { WaymarkError } from '../errors';
import { assertHistoryAppendable, stateChange } from '../store/history';
import { parseWorkflowText } from '../model/workflow';
import { runTransaction, type TxWrite } from '../engine/transaction';
import { assertNotReadOnly, assertWritable, safeWritePath } from '../store/safePath';
import { editFrontmatter, type EditValue, type FrontmatterEdit } from '../model/edit';
import { STATE_KEYS } from '../model/stateKeys';
import { frontmatterResume } from '../model/resume';
import { describeRewind, rewindOf, toStatus } from '../model/progress';
import { protocolPaths, ensureDir, relPath, randomId, readIfExists, readdirIfExists } from './paths';
import { contextFor, listWorkflowFiles, readWorkflowFile, bodyHashOf } from './states';
import type { ContextSource } from '../engine/contextCache';
import { appendEvent, assertEventsLoggable, type EventsLogOptions } from './events';
import { gitCheckpoint, repoTop, type GitCheckpoint } from './git';

/** One workflow's state as captured by a checkpoint. */
export interface CheckpointEntry {
  /** Relative to the root, `/`-separated. */
  file: string;
  workflow: string;
  dialect: string;
  status?: string;
  rawStatus?: string;
  currentStep?: string;
  nextStep?: string;
  /** Where to continue, as tier 1 would say from this state (skipped steps first). */
  resumeStep?: string;
  resumeReason?: string;
  lastStep?: string;
  stepsCompleted: string[];
  stepsTotal: number;
  updatedAt?: string;
  stateHash: string;
  contentHash: string;
  /** sha256 of the Markdown body; a different body means the file changed since. */
  bodyHash: string;
  /** The frontmatter state keys exactly as written (what a restore writes back). */
  stateKeys: Record<string, unknown>;
}

export interface Checkpoint {
  version: 1;
  id: string;
  createdAt: string;
  message?: string;
  actor?: string;
  session?: string;
  workflows: CheckpointEntry[];
  /** Files that look like workflows but could not be read when the checkpoint was made. */
  unreadable?: { file: string; error: string }[];
  git?: GitCheckpoint;
}

export interface CheckpointOptions {
  /** The core's workspace contexts (default: a standalone cache). */
  contexts?: ContextSource;
  clock?: Clock;
  logger?: Logger;
  events?: EventsLogOptions | false;
  actor?: string;
  session?: string;
}

/** Keys a restore writes back (flat values only: `delegation` is an object and is never rewritten). */
const RESTORABLE_KEYS = STATE_KEYS.filter((k) => k !== 'delegation' && k !== 'steps');

function plainValue(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(plainValue);
  if (v && typeof v === 'object') return JSON.parse(JSON.stringify(v));
  return v;
}

export function checkpointEntry(root: string, state: WorkflowState, text: string): CheckpointEntry {
  const stateKeys: Record<string, unknown> = {};
  for (const k of STATE_KEYS) if (Object.prototype.hasOwnProperty.call(state.data, k)) stateKeys[k] = plainValue(state.data[k]);
  return {
    file: relPath(root, state.file),
    workflow: state.workflow,
    dialect: state.dialect,
    status: state.status,
    rawStatus: state.rawStatus,
    currentStep: state.currentStep,
    nextStep: state.nextStep,
    ...(() => {
      const r = frontmatterResume(state);
      return { resumeStep: r.step, resumeReason: r.reason };
    })(),
    lastStep: state.lastStep,
    stepsCompleted: state.stepsCompleted,
    stepsTotal: state.steps.length,
    updatedAt: state.updatedAt === undefined ? undefined : String(plainValue(state.updatedAt)),
    stateHash: state.stateHash,
    contentHash: state.contentHash,
    bodyHash: bodyHashOf(text),
    stateKeys,
  };
}

function newId(clock: Clock): string {
  return `${clock.now().toISOString().replace(/[-:.]/g, '')}-${randomId(2)}`;
}

const ID_RE = /^[0-9TZ]+-[0-9a-f]+$/;

function checkpointFile(root: string, id: string): string {
  if (!ID_RE.test(id)) throw new WaymarkError('usage', `'${id}' is not a checkpoint id (see waymark checkpoint list).`);
  return path.join(protocolPaths(root).checkpoints, `${id}.json`);
}

/**
 * Snapshots every workflow of the root (state fields, hashes, current steps) to
 * `.waymark/checkpoints/<id>.json`. With `git`, also commits Waymark's state files (never the
 * user's other work) to `refs/waymark/checkpoints/<id>`, keeping the newest `gitKeep`.
 */
export async function createCheckpoint(root: string, options: CheckpointOptions & { message?: string; git?: boolean; gitKeep?: number } = {}): Promise<Checkpoint> {
  const clock = options.clock ?? systemClock;
  if (options.git) await repoTop(root); // say "not a repository" / "git missing" before writing anything
  const files = await listWorkflowFiles(root, options.contexts);
  const cp: Checkpoint = {
    version: 1,
    id: newId(clock),
    createdAt: clock.now().toISOString(),
    ...(options.message ? { message: options.message } : {}),
    ...(options.actor ? { actor: options.actor } : {}),
    ...(options.session ? { session: options.session } : {}),
    workflows: files.filter((f) => f.state).map((f) => checkpointEntry(root, f.state!, f.text!)),
  };
  const bad = files.filter((f) => !f.state).map((f) => ({ file: relPath(root, f.file), error: f.error ?? 'unreadable' }));
  if (bad.length) cp.unreadable = bad;
  if (options.events !== false) assertEventsLoggable(root);
  ensureDir(root, protocolPaths(root).checkpoints);
  const file = checkpointFile(root, cp.id);
  // The checkpoint file, as every state file, is written by the transaction engine.
  const save = () => runTransaction({ root, now: () => clock.now(), logger: options.logger }, {
    operation: 'checkpoint.create',
    files: [file],
    plan: () => ({ writes: [{ file, text: JSON.stringify(cp, null, 2) + '\n', entry: null }], result: () => undefined }),
  });
  await save();
  if (options.git) {
    const p = protocolPaths(root);
    const ctx = await contextFor(root, options.contexts);
    const stateFiles = [file, p.workflowState, p.sessionState, p.coldMemory, ...collectFiles(path.resolve(root, ctx.config.history.dir))].filter((f) => fs.existsSync(f));
    cp.git = await gitCheckpoint(root, cp.id, stateFiles, `waymark checkpoint ${cp.id}${options.message ? `: ${options.message}` : ''}`, options.gitKeep ?? 10);
    await save();
  }
  if (options.events !== false) {
    appendEvent(root, { type: 'checkpoint.create', actor: options.actor, session: options.session, data: { id: cp.id, workflows: cp.workflows.length, ...(cp.git ? { git: cp.git.ref } : {}) } }, options.events || {});
  }
  return cp;
}

function collectFiles(dir: string): string[] {
  const out: string[] = [];
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...collectFiles(p));
    else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

/** Checkpoints of a root, newest first (unreadable files are skipped). */
export function listCheckpoints(root: string): Checkpoint[] {
  const dir = protocolPaths(root).checkpoints;
  const names = readdirIfExists(dir);
  const out: Checkpoint[] = [];
  for (const n of names) {
    if (!n.endsWith('.json') || !ID_RE.test(n.slice(0, -5))) continue;
    try {
      const cp = JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as Checkpoint;
      if (cp && cp.id && Array.isArray(cp.workflows)) out.push(cp);
    } catch {
      // a half-written checkpoint cannot exist (atomic writes); a hand-damaged one is skipped
    }
  }
  return out.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

export function showCheckpoint(root: string, id: string): Checkpoint {
  const text = readIfExists(checkpointFile(root, id));
  if (text === undefined) throw new WaymarkError('unreadable', `No checkpoint ${id} in ${protocolPaths(root).checkpoints} (see waymark checkpoint list).`);
  try {
    return JSON.parse(text) as Checkpoint;
  } catch (e) {
    throw new WaymarkError('unreadable', `Checkpoint ${id} is not valid JSON (${(e as Error).message}).`);
  }
}

/** Checkpoint ids of a root, newest first (names only; nothing is parsed). */
export function checkpointIds(root: string): string[] {
  const names = readdirIfExists(protocolPaths(root).checkpoints);
  return names
    .filter((n) => n.endsWith('.json') && ID_RE.test(n.slice(0, -5)))
    .map((n) => n.slice(0, -5))
    .sort()
    .reverse();
}

/** The newest checkpoint entry for one file, with its checkpoint (reads newest first, stops at the first hit). */
export function latestCheckpointFor(root: string, file: string): { checkpoint: Checkpoint; entry: CheckpointEntry } | undefined {
  const rel = relPath(root, file);
  for (const id of checkpointIds(root)) {
    let cp: Checkpoint;
    try {
      cp = showCheckpoint(root, id);
    } catch {
      continue;
    }
    const entry = cp.workflows?.find((w) => w.file === rel);
    if (entry) return { checkpoint: cp, entry };
  }
  return undefined;
}

export interface RestorePlanItem {
  file: string;
  /** `rewind`: the restore would un-complete steps or move the status back (refused unless forced). */
  action: 'restore' | 'unchanged' | 'missing' | 'changed-since' | 'unreadable' | 'rewind';
  detail?: string;
  /** What a forced restore undoes (also in its history line). */
  rewound?: { steps: string[]; status?: { from: string; to: string } };
  fromHash?: string;
  toHash: string;
}

export interface RestoreResult {
  checkpoint: string;
  items: RestorePlanItem[];
  restored: string[];
  /** History seq numbers of the restore events, by file. */
  history: Record<string, number>;
}

/** Frontmatter edits that put the state keys back as the checkpoint had them. */
export function restoreEdits(current: Record<string, unknown>, saved: Record<string, unknown>): { edits: FrontmatterEdit[]; skipped: string[] } {
  const edits: FrontmatterEdit[] = [];
  const skipped: string[] = [];
  for (const k of RESTORABLE_KEYS) {
    const had = Object.prototype.hasOwnProperty.call(saved, k);
    const has = Object.prototype.hasOwnProperty.call(current, k);
    const want = had ? saved[k] : undefined;
    if (JSON.stringify(plainValue(current[k])) === JSON.stringify(want) && had === has) continue;
    if (!had) {
      if (has) edits.push({ key: k, value: undefined });
      continue;
    }
    if (!isEditValue(want)) {
      skipped.push(k);
      continue;
    }
    edits.push({ key: k, value: want });
  }
  return { edits, skipped };
}

function isEditValue(v: unknown): v is EditValue {
  const scalar = (x: unknown) => x === null || ['string', 'number', 'boolean'].includes(typeof x);
  return scalar(v) || (Array.isArray(v) && v.every(scalar));
}

/**
 * Restores the workflow state (frontmatter state keys only, never the Markdown body or any
 * other file) of every workflow in checkpoint `id`. Refuses, changing nothing, when a file's
 * body changed since the checkpoint (WaymarkError 'conflict'; `force` or `forceBody` overrides)
 * or when the restore would move work backwards: un-complete a step or move the status back,
 * such as re-opening a completed workflow (WaymarkError 'transition'; only `force` overrides, and
 * the history line says what was rewound). Each file is written under the
 * core's file lock, after the write guards (leases), atomically, and the restore is appended to
 * its history (operation `checkpoint.restore`). `only` limits it to some files.
 */
export async function restoreCheckpoint(
  root: string,
  id: string,
  options: CheckpointOptions & { force?: boolean; forceBody?: boolean; dryRun?: boolean; only?: string[]; guards?: WriteGuard[] } = {},
): Promise<RestoreResult> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const cp = showCheckpoint(root, id);
  const ctx = await contextFor(root, options.contexts);
  const only = options.only?.map((f) => relPath(root, f));
  const entries = cp.workflows.filter((w) => !only || only.includes(w.file));
  if (only && !entries.length) throw new WaymarkError('usage', `Checkpoint ${id} holds none of: ${only.join(', ')}.`);
  const plan = (): RestorePlanItem[] =>
    entries.map((e) => {
      const r = readWorkflowFile(ctx, path.join(root, e.file));
      if (!r.exists) return { file: e.file, action: 'missing', detail: 'the file no longer exists; a restore never recreates files', toHash: e.stateHash };
      if (!r.state) return { file: e.file, action: 'unreadable', detail: r.error, toHash: e.stateHash };
      if (r.state.stateHash === e.stateHash) return { file: e.file, action: 'unchanged', fromHash: r.state.stateHash, toHash: e.stateHash };
      const forceBody = options.force || options.forceBody;
      if (r.bodyHash !== e.bodyHash && !forceBody) return { file: e.file, action: 'changed-since', detail: 'the Markdown body changed since the checkpoint', fromHash: r.state.stateHash, toHash: e.stateHash };
      const rw = rewindOf({ done: r.state.stepsCompleted, status: r.state.status }, { done: e.stepsCompleted, status: toStatus(e.status) });
      const rewind = describeRewind(rw);
      if (rewind && !options.force) return { file: e.file, action: 'rewind', detail: rewind, rewound: rw, fromHash: r.state.stateHash, toHash: e.stateHash };
      const notes = [r.bodyHash !== e.bodyHash ? 'body changed since the checkpoint (forced)' : '', rewind ? `${rewind} (forced)` : ''].filter(Boolean).join('; ');
      return { file: e.file, action: 'restore', fromHash: r.state.stateHash, toHash: e.stateHash, ...(notes ? { detail: notes } : {}), ...(rewind ? { rewound: rw } : {}) };
    });
  const items = plan();
  const result: RestoreResult = { checkpoint: id, items, restored: [], history: {} };
  // A file whose frontmatter cannot be read is never "restored" by leaving it out, forced or not.
  const unreadable = items.filter((i) => i.action === 'unreadable');
  if (unreadable.length) {
    throw new WaymarkError(
      'invalid',
      `Checkpoint ${id} not restored: ${unreadable.map((i) => `${i.file} (${i.detail ?? 'unreadable'})`).join('; ')}. Nothing was changed. Fix the frontmatter (waymark validate ${unreadable[0].file} shows where), or restore the other files with --file F.`,
      unreadable[0].file,
      { items },
    );
  }
  const conflicts = items.filter((i) => i.action === 'changed-since' && !options.force);
  const rewinds = items.filter((i) => i.action === 'rewind');
  if (conflicts.length || rewinds.length) {
    const refused = [...conflicts, ...rewinds];
    throw new WaymarkError(
      conflicts.length ? 'conflict' : 'transition',
      `Checkpoint ${id} not restored: ${refused.map((i) => `${i.file} (${i.detail})`).join('; ')}. Nothing was changed. ${
        rewinds.length ? 'A restore never moves work backwards on its own: use --force to rewind anyway (recorded in history).' : 'Use --force to restore the state anyway (the body is never touched).'
      }`,
      undefined,
      { items },
    );
  }
  if (options.dryRun) return result;
  // Every file of the restore is checked before the first one is written: a refusal leaves
  // nothing half done (read-only files as every write refuses them, folders, histories).
  for (const item of items) {
    if (item.action !== 'restore') continue;
    const abs = path.join(root, item.file);
    const target = safeWritePath(root, abs, item.file);
    assertNotReadOnly(abs, target);
    assertWritable(path.join(path.dirname(target), '.waymark-probe'), 'workflow file', { display: abs });
    assertHistoryAppendable(root, abs, ctx.config.history.dir);
  }
  // Every file of the restore is one transaction (engine/transaction.ts): locked by real path in
  // one order, re-read, the state hashes compared, the guards, one intent journal over them all,
  // atomic renames, one history line per file. A writer killed half way is completed by the next.
  const restoring = items.filter((i) => i.action === 'restore');
  if (!restoring.length) return result;
  await runTransaction(
    { root, historyDir: ctx.config.history.dir, actor: options.actor, session: options.session, now: () => clock.now(), guards: options.guards, logger },
    {
      operation: 'checkpoint.restore',
      files: restoring.map((i) => path.join(root, i.file)),
      plan(texts) {
        const writes: TxWrite[] = restoring.map((item) => {
          const entry = entries.find((e) => e.file === item.file)!;
          const abs = path.join(root, item.file);
          const text = texts.get(abs);
          const cur = text === undefined ? undefined : parseWorkflowText(abs, text, ctx);
          if (!cur?.state || text === undefined) throw new WaymarkError('unreadable', `${item.file} could not be read for the restore: ${text === undefined ? 'it no longer exists' : (cur?.problems[0]?.message ?? 'the frontmatter could not be read')}. Nothing was changed.`, abs);
          if (cur.state.stateHash !== item.fromHash) {
            throw new WaymarkError('conflict', `${item.file} changed while the restore was running (state hash ${cur.state.stateHash.slice(0, 12)} is not ${item.fromHash?.slice(0, 12)}); run the restore again. Nothing was changed.`, abs);
          }
          const { edits, skipped } = restoreEdits(cur.state.data, entry.stateKeys);
          if (skipped.length) logger.warn(`[protocol] restore of ${item.file}: keys ${skipped.join(', ')} hold nested values and were left as they are`);
          const newText = editFrontmatter(text, edits);
          const after = parseWorkflowText(abs, newText, ctx).state;
          return {
            file: abs,
            text: newText,
            check: (t: string) => (parseWorkflowText(abs, t, ctx).state ? undefined : 'its frontmatter would not parse.'),
            entry: {
              ...stateChange(cur.state, after),
              hashBefore: cur.state.stateHash,
              hashAfter: after?.stateHash,
              detail: { checkpoint: id, ...(skipped.length ? { skipped } : {}), ...(item.detail ? { note: item.detail } : {}), ...(item.rewound ? { forced: true, rewound: item.rewound } : {}) },
            },
          };
        });
        return {
          writes,
          result: (lines) => {
            for (const h of lines) {
              const rel = relPath(root, h.file);
              result.restored.push(rel);
              result.history[rel] = h.seq;
            }
          },
        };
      },
    },
  );
  if (options.events !== false && result.restored.length) {
    appendEvent(root, { type: 'checkpoint.restore', actor: options.actor, session: options.session, data: { id, files: result.restored, forced: !!options.force } }, options.events || {});
  }
  return result;
}


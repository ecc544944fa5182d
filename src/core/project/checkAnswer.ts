/**
 * `validate`'s whole answer for one workspace folder, kept across processes: the scan's problems,
 * every workflow's own, the delegation checks and the project view's (dependencies, cycles, stalled
 * work). A warm run answers from it without restoring a single state while every input reads as
 * when it was computed: each candidate file's stat key (size, mtime, ctime, inode; none changed
 * within the racy window of the run that stored it), the listing, the configuration (the scan
 * index's context fingerprint), the history files of in-progress work, the events log, the lease
 * and mode folders, git's HEAD, refs and index, and the clock on the same side of every time the
 * answer depends on (stalled thresholds, ttl expiry). Anything else falls back to the full path,
 * which stores a new answer. Folders with BMAD sprints or ticket trees, gated steps, leases or
 * modes are never stored (their inputs are read from more files than these stamps cover).
 *
 * Location: `<root>/.waymark/cache/check-answer.json` (the scan cache's folder; safe to delete).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Problem, SkippedFile, WorkflowState } from '../types';
import type { StateCore } from '../api';
import { scanRoots, listCandidates } from '../store/scan';
import { loadWorkspaceContext, type WorkspaceContext } from '../store/workspaceContext';
import { codeFingerprint, contextFingerprint, ensureCacheDir, sameKey, RACY_WINDOW_MS, SCAN_INDEX_DIR, type FileKey } from '../store/scanIndex';
import { decodeValue, encodeValue } from '../store/indexCodec';
import { writeFileAtomic } from '../store/atomicWrite';
import { ttlExpiry } from '../model/validate';
import { checkSprints, subProjects } from '../bmad/sprint';
import { cacheFilesEnabled } from '../bmad/sprintCache';
import { readTicketTree } from '../bmad/tree/reader';
import { historyFilesOf, newestInStamp, projectInputsStamp, WarmProjectView } from './loadProject';
import { stalledProblem, type Stalled } from './frontier';

const ANSWER_FORMAT = 1;
export const CHECK_ANSWER_FILE = `${SCAN_INDEX_DIR}/check-answer.json`;

/** validate's answer over one whole workspace folder. */
export interface WorkspaceCheck {
  /** Candidate files listed. */
  files: number;
  /** Workflow files among them. */
  workflows: number;
  /** Configuration, scan, per-file, delegation, then project-view problems, in that order. */
  problems: Problem[];
  skipped: SkippedFile[];
  /** True when answered from the stored answer (nothing parsed, no state restored). */
  reused: boolean;
}

export interface CheckWorkspaceOptions {
  overrides?: Record<string, unknown>;
  /** Makes the state core the project view reads through (the full path only). */
  createCore: (roots: string[]) => StateCore;
  /** Files changed this close (ms) before a run are never answered from its answer; tests lower it. */
  racyWindowMs?: number;
}

interface StoredAnswer {
  format: number;
  code: string;
  root: string;
  context: string;
  contextProblems: string;
  computedAt: number;
  validUntil: number | null;
  /** Candidate files, in listing order, each [file, size, mtimeMs, ctimeMs, ino]. */
  keys: [string, number, number, number, number][];
  listedSkipped: string;
  inputs: string;
  /** The history files of the in-progress files (stat-ed while the history folder exists). */
  historyFiles: string[];
  historyDir: string;
  git: boolean;
  workflows: number;
  problems: [unknown, unknown];
  /** The stalled warnings that name an idle time: where in `problems`, and what they are computed from again. */
  stalled: { i: number; file: string; last: NonNullable<Stalled['last']>; thresholdMs: number; kind: Stalled['kind'] }[];
  skipped: [unknown, unknown];
}

/** No BMAD sprint, monorepo sub-project or ticket tree in the folder: the stamps cover the project view's inputs. */
function sprintFree(root: string, ctx: WorkspaceContext, now: Date): boolean {
  if (subProjects(root, ctx.config.bmad.dir).length) return false;
  if (readTicketTree(root)) return false;
  const s = checkSprints(root, { config: ctx.config, now });
  return !s.reports?.length && !s.problems.length;
}

function answerPath(root: string): string {
  return path.join(root, CHECK_ANSWER_FILE);
}

/** The stored answer when every input reads as when it was computed; else undefined. */
function reuse(root: string, ctx: WorkspaceContext, contextProblems: Problem[], now: Date): WorkspaceCheck | undefined {
  let a: StoredAnswer;
  try {
    a = JSON.parse(fs.readFileSync(answerPath(root), 'utf8')) as StoredAnswer;
  } catch {
    return undefined;
  }
  if (!a || a.format !== ANSWER_FORMAT || a.code !== codeFingerprint() || a.root !== root || !Array.isArray(a.keys) || !Array.isArray(a.stalled)) return undefined;
  const t = now.getTime();
  if (t < a.computedAt || (a.validUntil !== null && t >= a.validUntil)) return undefined;
  if (a.context !== contextFingerprint(ctx) || a.contextProblems !== JSON.stringify(contextProblems)) return undefined;
  if (!sprintFree(root, ctx, now)) return undefined;
  const listed = listCandidates(ctx);
  if (listed.files.length !== a.keys.length || JSON.stringify(listed.skipped) !== a.listedSkipped) return undefined;
  for (let i = 0; i < listed.files.length; i++) {
    const k = a.keys[i];
    if (!Array.isArray(k) || k[0] !== listed.files[i]) return undefined;
    const st = fs.statSync(k[0], { throwIfNoEntry: false });
    if (!st || !st.isFile() || !sameKey({ size: k[1], mtimeMs: k[2], ctimeMs: k[3], ino: k[4] }, st)) return undefined;
  }
  if (!Array.isArray(a.historyFiles) || projectInputsStamp(root, a.historyDir, a.historyFiles, a.git) !== a.inputs) return undefined;
  try {
    const problems = decodeValue(a.problems[0], a.problems[1] ?? undefined) as Problem[];
    // Idle times are "now" minus the stored last activity: computed again, as the full path would.
    for (const st of a.stalled) {
      const p = problems[st.i];
      if (!p || p.code !== 'work-stalled' || p.file !== st.file) return undefined;
      const at = Date.parse(st.last.time);
      const idleMs = Number.isFinite(at) ? Math.max(0, t - at) : Infinity;
      problems[st.i] = { ...stalledProblem(st.file, { last: st.last, idleMs, thresholdMs: st.thresholdMs, kind: st.kind }), range: p.range };
    }
    return {
      files: listed.files.length,
      workflows: a.workflows,
      problems,
      skipped: decodeValue(a.skipped[0], a.skipped[1] ?? undefined) as SkippedFile[],
      reused: true,
    };
  } catch {
    return undefined;
  }
}

/** The earliest ttl expiry after `now` among the states (the per-file time thresholds). */
function nextTtl(states: readonly WorkflowState[], now: number): number | undefined {
  let next: number | undefined;
  for (const s of states) {
    if (s.ttl === undefined || s.ttl === '') continue;
    const exp = ttlExpiry(s.ttl, s.updatedAt);
    if (exp instanceof Date && Number.isFinite(exp.getTime()) && exp.getTime() > now && (next === undefined || exp.getTime() < next)) next = exp.getTime();
  }
  return next;
}

/**
 * validate's check of one whole workspace folder: from the stored answer when nothing it depends
 * on changed, else scanned, parsed and viewed in full (and the answer stored for the next run).
 */
export async function checkWorkspace(root: string, opts: CheckWorkspaceOptions): Promise<WorkspaceCheck> {
  const absRoot = path.resolve(root);
  const now = new Date();
  const loaded = await loadWorkspaceContext(absRoot, opts.overrides);
  const ctx = loaded.context;
  const useAnswer = cacheFilesEnabled();
  // Whether an answer was stored before (reusable or not): a folder checked again after a change.
  const hadAnswer = useAnswer && fs.existsSync(answerPath(absRoot));
  if (hadAnswer) {
    const hit = reuse(absRoot, ctx, loaded.problems, now);
    if (hit) return hit;
  }
  const start = Date.now();
  const historyDir = ctx.config.history.dir;
  const core = opts.createCore([absRoot]);
  try {
    const fileKeys = new Map<string, FileKey>();
    const res = await scanRoots([absRoot], { overrides: opts.overrides, sprint: true, contexts: new Map([[absRoot, ctx]]), fileKeys, indexWrite: 'manual' });
    const states = res.workflows;
    const view = await new WarmProjectView(core, { git: true }).view({ roots: res.roots, workflows: states, sprints: res.sprints });
    const problems = [...loaded.problems, ...res.problems, ...states.flatMap((w) => w.problems), ...res.crossProblems, ...view.frontier.problems];
    const answer: WorkspaceCheck = { files: res.files, workflows: states.length, problems, skipped: res.skipped, reused: false };
    const stored = useAnswer && storeAnswer({ absRoot, ctx, loaded, now, start, historyDir, core, res, fileKeys, view, problems, racyWindowMs: opts.racyWindowMs });
    // The scan index spares a later full check the parse of every unchanged file. The first check
    // of a folder whose answer was stored skips it: the next run is answered from the answer, and
    // a one-off check (CI, a fresh clone) never reads it. A folder checked again after a change
    // (an answer stored before), or one whose answer cannot be stored, gets it.
    if (!(stored && !hadAnswer && !res.index.some((r) => r.hadIndex))) void res.writeIndex();
    return answer;
  } finally {
    await core.close();
  }
}

interface StoreInputs {
  absRoot: string;
  ctx: WorkspaceContext;
  loaded: { problems: Problem[] };
  now: Date;
  start: number;
  historyDir: string;
  core: StateCore;
  res: Awaited<ReturnType<typeof scanRoots>>;
  fileKeys: Map<string, FileKey>;
  view: Awaited<ReturnType<WarmProjectView['view']>>;
  problems: Problem[];
  racyWindowMs?: number;
}

/** Stores the answer of a full check when every input it depends on is covered by its stamps; true when stored. */
function storeAnswer(x: StoreInputs): boolean {
  const { absRoot, ctx, loaded, now, start, historyDir, core, res, fileKeys, view, problems } = x;
  const states = res.workflows;
  const working = view.registry.items.filter((i) => i.state === 'in_progress' && i.file).map((i) => i.file!);
  const historyFiles = fs.existsSync(path.resolve(absRoot, historyDir)) ? historyFilesOf(absRoot, historyDir, working) : [];
  const inputs = projectInputsStamp(absRoot, historyDir, historyFiles, true);
  const storable =
    view.registry.items.every((i) => i.kind === 'workflow') &&
    !states.some((w) => w.steps.some((s) => s.gate)) &&
    fileKeys.size === res.files &&
    !core.protocol.listLeases(absRoot).length &&
    !core.protocol.showModes(absRoot).length &&
    sprintFree(absRoot, ctx, now);
  if (!storable) return false;
  const racySince = start - (x.racyWindowMs ?? RACY_WINDOW_MS);
  // Every candidate was read (fileKeys.size === res.files), in listing order: the keys' order is the listing's.
  const keys: StoredAnswer['keys'] = [];
  for (const [f, k] of fileKeys) {
    if (Math.max(k.mtimeMs, k.ctimeMs) >= racySince) return false;
    keys.push([f, k.size, k.mtimeMs, k.ctimeMs, k.ino]);
  }
  // What the listing itself skipped (folders, FIFOs named like workflow files) comes first and has no key.
  const listedSkipped = res.skipped.filter((x) => !fileKeys.has(x.file));
  // An input that moved while the answer was computed, or so close before that a change within the
  // same timestamp tick would not show (the racy rule, as for the files): the answer may predate it.
  if (newestInStamp(inputs) >= racySince || projectInputsStamp(absRoot, historyDir, historyFiles, true) !== inputs) return false;
  // The k-th work-stalled warning of the view is its k-th stalled entry with a file.
  const stalled: StoredAnswer['stalled'] = [];
  const stalledEntries = view.frontier.stalled.filter((e) => e.item.file);
  const offset = problems.length - view.frontier.problems.length;
  let k = 0;
  for (let i = 0; i < view.frontier.problems.length; i++) {
    if (view.frontier.problems[i].code !== 'work-stalled') continue;
    const e = stalledEntries[k++];
    if (!e || e.item.file !== view.frontier.problems[i].file) return false;
    const s = e.stalled!;
    if (s.last) stalled.push({ i: offset + i, file: e.item.file!, last: s.last, thresholdMs: s.thresholdMs, kind: s.kind });
  }
  const times = [view.frontier.stalledChangesAt, nextTtl(states, now.getTime())].filter((x): x is number => x !== undefined);
  const stored: StoredAnswer = {
    format: ANSWER_FORMAT,
    code: codeFingerprint(),
    root: absRoot,
    context: contextFingerprint(ctx),
    contextProblems: JSON.stringify(loaded.problems),
    computedAt: now.getTime(),
    validUntil: times.length ? Math.min(...times) : null,
    keys,
    listedSkipped: JSON.stringify(listedSkipped),
    inputs,
    historyFiles,
    historyDir,
    git: true,
    workflows: states.length,
    problems: encodeValue(problems) as [unknown, unknown],
    stalled,
    skipped: encodeValue(res.skipped) as [unknown, unknown],
  };
  try {
    if (!ensureCacheDir(absRoot)) return false;
    writeFileAtomic(answerPath(absRoot), JSON.stringify(stored), { root: absRoot, durable: false, replaceLink: true });
    return true;
  } catch {
    // A read-only workspace, or a cache folder that cannot be written: the answer is simply not kept.
    return false;
  }
}

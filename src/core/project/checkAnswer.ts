/**
 * `validate`'s whole answer for one workspace folder, kept across processes: the scan's problems,
 * every workflow's own, the BMAD sprints' and ticket trees' drift, the delegation checks and the
 * project view's (dependencies, cycles, stalled work). A warm run answers from it without parsing
 * a file or restoring a single state while every input reads as when it was computed:
 * - each candidate file's stat key (size, mtime, ctime, inode; none changed within the racy window
 *   of the run that stored it) and the listing;
 * - the configuration (the scan index's context fingerprint) and the whole BMAD catalog;
 * - every input the BMAD readers read while the answer was computed (BMAD config, monorepo
 *   sub-projects, ledgers, story files, epics, gates, ticket trees, the migration archive), as
 *   sprintCache.ts records them for the cached sprint, whose recording this one takes over when
 *   the sprint comes from its cache: files by stat key, folders by stat key or else by the same
 *   entries, probed paths by kind, and the clock's answers (a stale ledger, a waiver's expiry);
 * - the history files of in-progress work, the events log, the lease and mode folders, git's
 *   HEAD, refs and index, and the clock on the same side of every time the answer depends on
 *   (stalled thresholds, ttl expiry).
 * Anything else falls back to the full path, which stores a new answer. Folders with gated steps,
 * leases or modes are never stored (their inputs are read from more files than these stamps cover).
 *
 * Location: `<root>/.waymark/cache/check-answer.json` (the scan cache's folder; safe to delete).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Problem, SkippedFile, WorkflowState } from '../types';
import type { StateCore } from '../api';
import { scanRoots, listCandidates } from '../store/scan';
import { loadWorkspaceContext, type WorkspaceContext } from '../store/workspaceContext';
import { codeFingerprint, contextFingerprint, ensureCacheDir, sameKey, textFingerprint, RACY_WINDOW_MS, SCAN_INDEX_DIR, type FileKey } from '../store/scanIndex';
import { decodeValue, encodeValue } from '../store/indexCodec';
import { writeFileAtomic } from '../store/atomicWrite';
import { ttlExpiryMs } from '../model/validate';
import type { BmadCatalog } from '../bmad/artifacts';
import { cacheFilesEnabled, inputsHold, settledWhenRecorded, startRecording, type RecordedInputs } from '../bmad/sprintCache';
import { historyFilesOf, newestInStamp, projectInputsStamp, WarmProjectView, type KeptActivity } from './loadProject';
import { stalledProblem, type Stalled } from './frontier';

const ANSWER_FORMAT = 3;
export const CHECK_ANSWER_FILE = `${SCAN_INDEX_DIR}/check-answer.json`;
/**
 * What git answered for the in-progress files (WarmProjectView `keptActivity`), kept apart from the
 * answer: it is written by a check whose answer cannot be stored (a file changed within the racy
 * window: the run right after an edit), so the next check after an edit starts no git either.
 */
export const CHECK_ACTIVITY_FILE = `${SCAN_INDEX_DIR}/check-activity.json`;

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
  /**
   * Makes the state core the project view reads through (the full path only); `contexts` are the
   * ones the check loaded (its BMAD catalog read or kept once), to hand to it (StateCoreInit.contexts).
   */
  createCore: (roots: string[], contexts?: ReadonlyMap<string, WorkspaceContext>) => StateCore;
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
  /** The BMAD catalog the scan identified artifacts with (more of it than the context fingerprint holds). */
  catalog: string;
  /** What the BMAD readers read (sprintCache.ts's recording). */
  bmad: RecordedInputs;
  inputs: string;
  /** The history files of the in-progress files (stat-ed while the history folder exists). */
  historyFiles: string[];
  historyDir: string;
  git: boolean;
  workflows: number;
  problems: [unknown, unknown];
  /** The stalled warnings that name an idle time: where in `problems`, and what they are computed from again. */
  stalled: { i: number; file: string; last: NonNullable<Stalled['last']>; thresholdMs: number; kind: Stalled['kind']; planned?: Stalled['planned'] }[];
  skipped: [unknown, unknown];
}

/** CHECK_ACTIVITY_FILE's content. */
interface StoredActivity {
  format: number;
  code: string;
  root: string;
  activity: KeptActivity;
}

/** The kept activity of `root` as stored by this build; undefined when there is none. */
function readActivity(root: string): { text: string; kept: KeptActivity } | undefined {
  try {
    const text = fs.readFileSync(path.join(root, CHECK_ACTIVITY_FILE), 'utf8');
    const a = JSON.parse(text) as StoredActivity | null;
    if (!a || a.format !== ANSWER_FORMAT || a.code !== codeFingerprint() || a.root !== root || !a.activity || a.activity.root !== root) return undefined;
    return { text, kept: a.activity };
  } catch {
    return undefined; // none stored, or not this build's
  }
}

/** Stores `activity` unless `before` (the text read) says the same. */
function writeActivity(root: string, activity: KeptActivity, before: string | undefined): void {
  const text = JSON.stringify({ format: ANSWER_FORMAT, code: codeFingerprint(), root, activity } satisfies StoredActivity);
  if (text === before) return;
  try {
    if (ensureCacheDir(root)) writeFileAtomic(path.join(root, CHECK_ACTIVITY_FILE), text, { root, durable: false, replaceLink: true });
  } catch {
    // A read-only workspace: git is asked again next time.
  }
}

/**
 * A fingerprint (textFingerprint) of the BMAD catalog beyond its workflows and names (in the context fingerprint): the
 * output patterns, method folders, manifest names, declared workflows and project folders, which
 * decide what a file is identified as.
 */
function catalogDigest(ctx: WorkspaceContext): string {
  // Each field of the catalog is in the fingerprint or here: a new field fails to compile until placed.
  const placed: Record<keyof BmadCatalog, 'fingerprint' | 'digest'> = { byName: 'fingerprint', workflows: 'fingerprint', patterns: 'digest', methodDirs: 'digest', manifestNames: 'digest', declared: 'digest', projects: 'digest', skillTemplates: 'digest' };
  void placed;
  const b = ctx.bmad;
  const parts = [
    (b.patterns ?? []).map((p) => [String(p.re), p.workflow.name, p.workflow.dir, p.source, p.declared, p.wildcards]),
    b.methodDirs ?? [],
    [...(b.manifestNames ?? [])],
    b.declared ? [[...b.declared.names], b.declared.outputs.map((o) => [String(o.re), o.name, o.source])] : [],
    b.projects ?? [],
    (b.skillTemplates ?? []).map((t) => [t.skill, t.file, t.keys, t.title ?? '', t.lines ?? []]),
  ];
  return textFingerprint(JSON.stringify(parts));
}

function answerPath(root: string): string {
  return path.join(root, CHECK_ANSWER_FILE);
}

/** The answer stored for `root`, as stored (checked by `reuse`); undefined when there is none or it is not JSON. */
function readAnswer(root: string): StoredAnswer | undefined {
  try {
    const a = JSON.parse(fs.readFileSync(answerPath(root), 'utf8')) as StoredAnswer | null;
    return a && typeof a === 'object' ? a : undefined;
  } catch {
    return undefined;
  }
}

/** The stored answer `a` when every input reads as when it was computed; else undefined. */
function reuse(a: StoredAnswer, root: string, ctx: WorkspaceContext, contextProblems: Problem[], now: Date): WorkspaceCheck | undefined {
  if (!a || a.format !== ANSWER_FORMAT || a.code !== codeFingerprint() || a.root !== root || !Array.isArray(a.keys) || !Array.isArray(a.stalled)) return undefined;
  const t = now.getTime();
  if (t < a.computedAt || (a.validUntil !== null && t >= a.validUntil)) return undefined;
  if (a.context !== contextFingerprint(ctx) || a.contextProblems !== JSON.stringify(contextProblems)) return undefined;
  if (a.catalog !== catalogDigest(ctx)) return undefined;
  // Stored only when no input was racy: a key that still matches is an unchanged input.
  if (!inputsHold(a.bmad, now, 0, { relist: true })) return undefined;
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
      problems[st.i] = { ...stalledProblem(st.file, { last: st.last, idleMs, thresholdMs: st.thresholdMs, kind: st.kind, ...(st.planned ? { planned: st.planned } : {}) }), range: p.range };
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
    const exp = ttlExpiryMs(s.ttl, s.updatedAt);
    if (typeof exp === 'number' && exp > now && (next === undefined || exp < next)) next = exp;
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
  const useAnswer = cacheFilesEnabled();
  const loaded = await loadWorkspaceContext(absRoot, opts.overrides, { cache: useAnswer });
  const ctx = loaded.context;
  // Whether an answer was stored before (reusable or not): a folder checked again after a change.
  const hadAnswer = useAnswer && fs.existsSync(answerPath(absRoot));
  const before = hadAnswer ? readAnswer(absRoot) : undefined;
  if (before) {
    const hit = reuse(before, absRoot, ctx, loaded.problems, now);
    if (hit) return hit;
  }
  // What git answered for the in-progress files in an earlier check (of this build).
  const keptBefore = useAnswer ? readActivity(absRoot) : undefined;
  const kept = keptBefore ? [keptBefore.kept] : undefined;
  const start = Date.now();
  const historyDir = ctx.config.history.dir;
  // The view reads the folder's configuration through the core: the context loaded above, when
  // the core would load the same one (no overrides, which the core is not given).
  const core = opts.createCore([absRoot], opts.overrides && Object.keys(opts.overrides).length ? undefined : new Map([[absRoot, ctx]]));
  try {
    const fileKeys = new Map<string, FileKey>();
    // What the BMAD readers read in the scan (sprints, trees) and the view (sub-projects, trees).
    const recording = useAnswer ? startRecording() : undefined;
    let res: Awaited<ReturnType<typeof scanRoots>>;
    let view: Awaited<ReturnType<WarmProjectView['view']>>;
    const warm = new WarmProjectView(core, { git: true, kept });
    let bmad: RecordedInputs | undefined;
    try {
      res = await scanRoots([absRoot], { overrides: opts.overrides, sprint: true, contexts: new Map([[absRoot, ctx]]), fileKeys, indexWrite: 'manual' });
      view = await warm.view({ roots: res.roots, workflows: res.workflows, sprints: res.sprints });
    } finally {
      bmad = recording?.stop(now);
    }
    const states = res.workflows;
    const problems = [...loaded.problems, ...res.problems, ...states.flatMap((w) => w.problems), ...res.crossProblems, ...view.frontier.problems];
    const answer: WorkspaceCheck = { files: res.files, workflows: states.length, problems, skipped: res.skipped, reused: false };
    const stored = useAnswer && !!bmad && storeAnswer({ absRoot, ctx, loaded, now, start, historyDir, core, res, fileKeys, view, problems, bmad, racyWindowMs: opts.racyWindowMs });
    // Kept whether or not the answer was stored (it depends on git's files and the in-progress files alone).
    const activity = useAnswer ? warm.keptActivity(absRoot, start - (opts.racyWindowMs ?? RACY_WINDOW_MS)) : undefined;
    if (activity) writeActivity(absRoot, activity, keptBefore?.text);
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
  bmad: RecordedInputs;
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
    !states.some((w) => w.steps.some((s) => s.gate)) &&
    fileKeys.size === res.files &&
    !core.protocol.listLeases(absRoot).length &&
    !core.protocol.showModes(absRoot).length &&
    // No BMAD input racy when it was read (the racy rule, as for the files); one changed since is
    // seen by the next run, which checks every one against the key stored here, and folders by
    // their entries when their key moved or was racy (reuse relists them).
    settledWhenRecorded(x.bmad, x.racyWindowMs ?? RACY_WINDOW_MS, { relist: true });
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
    if (s.last) stalled.push({ i: offset + i, file: e.item.file!, last: s.last, thresholdMs: s.thresholdMs, kind: s.kind, ...(s.planned ? { planned: s.planned } : {}) });
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
    catalog: catalogDigest(ctx),
    bmad: x.bmad,
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

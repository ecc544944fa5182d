/**
 * Workflow state on another branch or ref, read from git without a checkout: the project's text
 * files at REF (`git ls-tree` + one `git cat-file --batch`) are written into a private temp folder
 * and read there by the same core as a working tree (frontmatter, BMAD stories and ledger, gate
 * files, history). `diffState` compares that with the working tree: what a pull of REF would change
 * in workflow state, before pulling.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runGit } from '../protocol/git';
import { WaymarkError } from '../errors';
import { createStateCore } from '../engine/stateCore';
import { loadSprint } from '../bmad/sprint';
import { safeWritePath } from '../store/safePath';
import { compareProgress, toStatus, type ProgressOrder } from '../model/progress';

/** The project's files at a ref, in a temp folder; `dispose` removes it. */
export interface RefSnapshot {
  ref: string;
  commit: string;
  /** The temp folder standing for the workspace folder at REF. */
  dir: string;
  /** Files written (paths relative to `dir`). */
  files: number;
  dispose(): void;
}

/** One workflow or story's state, as compared across checkouts and refs. */
export interface StateItem {
  /** Path of a workflow file relative to the workspace folder, or `story KEY`. */
  id: string;
  kind: 'workflow' | 'story';
  status?: string;
  stepsCompleted?: string[];
  /** Gate verdicts by step (workflows). */
  gates?: Record<string, string>;
  /** Stories: the ledger's status and the story file's, and the task boxes ticked (`2/5`). */
  ledgerStatus?: string;
  fileStatus?: string;
  tasks?: string;
}

export interface StateFieldChange {
  key: 'status' | 'stepsCompleted' | 'gates' | 'ledgerStatus' | 'fileStatus' | 'tasks';
  here?: string;
  there?: string;
}

export interface StateChange {
  id: string;
  kind: 'workflow' | 'story';
  /** `added`: only at REF (a pull brings it); `removed`: only here; `changed`: both, different. */
  change: 'added' | 'removed' | 'changed';
  fields: StateFieldChange[];
  /** REF compared with here by progress: `ahead` means a pull moves it forward. */
  progress?: ProgressOrder;
}

export interface StateDiff {
  ref: string;
  commit: string;
  changes: StateChange[];
}

/** File kinds that can carry state or its configuration; other blobs are not read. */
const STATE_FILE = /\.(md|markdown|mdx|ya?ml|toml|csv|json|jsonl|gate)$/i;
const SKIP = /(^|\/)(node_modules|\.git)\/|(^|\/)\.waymark\/(cache|leases|modes|events|checkpoints|memory|journal)\//;
const MAX_BLOB = 4 * 1024 * 1024;

async function git(cwd: string, args: string[]): Promise<string> {
  const r = await runGit(cwd, args);
  if (r.code !== 0) throw new WaymarkError('io', `git ${args[0]} failed in ${cwd}: ${r.stderr.trim().split('\n')[0] || `exit ${r.code}`}.`, cwd);
  return r.stdout;
}

/** The repository top of `root` and the commit `ref` names; clear errors for no repository or an unknown ref. */
export async function resolveRef(root: string, ref: string): Promise<{ top: string; commit: string }> {
  if (!ref || ref.startsWith('-')) throw new WaymarkError('usage', `'${ref}' is not a ref: give a branch, tag or commit (origin/main, v1.2, a1b2c3d).`);
  const t = await runGit(root, ['rev-parse', '--show-toplevel']);
  if (t.code !== 0) throw new WaymarkError('unavailable', `${root} is not inside a git repository, so it has no other branch or ref to read (git: ${t.stderr.trim().split('\n')[0]}).`, root);
  const c = await runGit(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (c.code !== 0) {
    throw new WaymarkError('unreadable', `Unknown ref '${ref}' in ${t.stdout.trim()}: no branch, tag or commit has that name. List them with git branch -a / git tag; for a remote branch run git fetch first.`);
  }
  return { top: fs.realpathSync(t.stdout.trim()), commit: c.stdout.trim() };
}

function catFileBatch(cwd: string, ids: string[]): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: most CLI verbs never start git, and child_process costs every process milliseconds to load
    const { spawn } = require('node:child_process') as typeof import('node:child_process');
    const child = spawn('git', ['cat-file', '--batch'], { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (e) => reject(new WaymarkError('unavailable', `git is not available: ${e.message}`)));
    child.on('close', (code) => {
      if (code !== 0) return reject(new WaymarkError('io', `git cat-file failed in ${cwd}: ${err.trim() || `exit ${code}`}.`, cwd));
      const buf = Buffer.concat(chunks);
      const out = new Map<string, Buffer>();
      let at = 0;
      while (at < buf.length) {
        const nl = buf.indexOf(0x0a, at);
        if (nl < 0) break;
        const [id, type, size] = buf.subarray(at, nl).toString('utf8').split(' ');
        if (type === 'missing' || size === undefined) {
          at = nl + 1;
          continue;
        }
        const n = Number(size);
        out.set(id, buf.subarray(nl + 1, nl + 1 + n));
        at = nl + 1 + n + 1;
      }
      resolve(out);
    });
    child.stdin.on('error', () => {
      // git exited early; the close handler reports it
    });
    child.stdin.end(ids.map((i) => `${i}\n`).join(''));
  });
}

/**
 * Writes the text files of the workspace folder `root` as they are at `ref` into a new temp folder
 * (never the working tree). Symbolic links and submodules at REF are not followed or written.
 */
export async function snapshotRef(root: string, ref: string): Promise<RefSnapshot> {
  const { top, commit } = await resolveRef(root, ref);
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    realRoot = path.resolve(root);
  }
  const rel = path.relative(top, realRoot).split(path.sep).join('/');
  const listing = await git(top, ['-c', 'core.quotepath=off', 'ls-tree', '-r', '-z', '--long', '--full-tree', commit, ...(rel ? ['--', `${rel}/`] : [])]);
  const wanted: { id: string; rel: string }[] = [];
  for (const entry of listing.split('\0')) {
    const m = /^(\d+) (\w+) ([0-9a-f]+) +(-|\d+)\t(.+)$/s.exec(entry);
    if (!m || m[2] !== 'blob' || (m[1] !== '100644' && m[1] !== '100755')) continue;
    if (m[4] !== '-' && Number(m[4]) > MAX_BLOB) continue;
    const inRoot = rel ? m[5].slice(rel.length + 1) : m[5];
    if (!STATE_FILE.test(inRoot) || SKIP.test(inRoot)) continue;
    if (inRoot.split('/').some((p) => p === '..' || p === '.' || p === '')) continue;
    wanted.push({ id: m[3], rel: inRoot });
  }
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-ref-')));
  const dispose = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    const blobs = wanted.length ? await catFileBatch(top, [...new Set(wanted.map((w) => w.id))]) : new Map<string, Buffer>();
    let files = 0;
    for (const w of wanted) {
      const data = blobs.get(w.id);
      if (!data) continue;
      const target = safeWritePath(dir, w.rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, data, { flag: 'wx' });
      files++;
    }
    return { ref, commit, dir, files, dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}

/** Every workflow and story of a workspace folder with its state, by id (ids relative to `root`). */
export async function readStateItems(root: string, options: { scanIndex?: false } = {}): Promise<Map<string, StateItem>> {
  const items = new Map<string, StateItem>();
  if (!fs.existsSync(root)) return items;
  const core = createStateCore({ roots: [root], memory: false, ...(options.scanIndex === false ? { scanIndex: false } : {}) });
  try {
    await core.scan();
    for (const w of core.list()) {
      const id = path.relative(root, w.file).split(path.sep).join('/');
      const gates: Record<string, string> = {};
      for (const [step, g] of Object.entries(w.gates)) if (g.exists) gates[step] = g.verdict ?? 'PASS';
      items.set(id, { id, kind: 'workflow', status: w.rawStatus ?? w.status, stepsCompleted: [...w.stepsCompleted], ...(Object.keys(gates).length ? { gates } : {}) });
    }
  } finally {
    await core.close();
  }
  const sprint = loadSprint(root);
  for (const s of sprint?.stories ?? []) {
    items.set(`story ${s.key}`, {
      id: `story ${s.key}`,
      kind: 'story',
      status: s.status,
      ...(s.ledgerRaw !== undefined ? { ledgerStatus: s.ledgerRaw } : {}),
      ...(s.fileStatus !== undefined ? { fileStatus: s.fileStatus } : {}),
      ...(s.tasks.total ? { tasks: `${s.tasks.done}/${s.tasks.total}` } : {}),
    });
  }
  return items;
}

const STORY_ORDER = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'];

function storyRank(s: string | undefined): number {
  return s === undefined ? -1 : STORY_ORDER.indexOf(s.trim().toLowerCase());
}

/** `a` compared with `b` by progress (steps united, status order; review beyond in-progress). */
export function compareItems(a: Pick<StateItem, 'status' | 'stepsCompleted'>, b: Pick<StateItem, 'status' | 'stepsCompleted'>): ProgressOrder {
  let order = compareProgress({ done: a.stepsCompleted, status: toStatus(a.status) }, { done: b.stepsCompleted, status: toStatus(b.status) });
  if (order === 'same' && a.status !== b.status) {
    const ra = storyRank(a.status);
    const rb = storyRank(b.status);
    order = ra > rb ? 'ahead' : ra < rb ? 'behind' : 'diverged';
  }
  return order;
}

const FIELDS: StateFieldChange['key'][] = ['status', 'stepsCompleted', 'gates', 'ledgerStatus', 'fileStatus', 'tasks'];

function show(item: StateItem, key: StateFieldChange['key']): string | undefined {
  const v = item[key];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return `[${v.join(', ')}]`;
  if (typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k}: ${x}`).join(', ');
  return v;
}

/** The state changes from `here` to `there`, sorted by id. */
export function compareStateItems(here: Map<string, StateItem>, there: Map<string, StateItem>): StateChange[] {
  const out: StateChange[] = [];
  for (const id of [...new Set([...here.keys(), ...there.keys()])].sort()) {
    const h = here.get(id);
    const t = there.get(id);
    const fields: StateFieldChange[] = [];
    for (const key of FIELDS) {
      const a = h ? show(h, key) : undefined;
      const b = t ? show(t, key) : undefined;
      if (a !== b) fields.push({ key, ...(a !== undefined ? { here: a } : {}), ...(b !== undefined ? { there: b } : {}) });
    }
    if (!fields.length) continue;
    if (!h) out.push({ id, kind: t!.kind, change: 'added', fields });
    else if (!t) out.push({ id, kind: h.kind, change: 'removed', fields });
    else out.push({ id, kind: h.kind, change: 'changed', fields, progress: compareItems(t, h) });
  }
  return out;
}

/** The workflow state changes between the working tree of `root` and `ref`: what a pull of REF would change. */
export async function diffState(root: string, ref: string): Promise<StateDiff> {
  const snap = await snapshotRef(root, ref);
  try {
    // The temp copy is read once: no scan index is written for it.
    const [here, there] = await Promise.all([readStateItems(root), readStateItems(snap.dir, { scanIndex: false })]);
    return { ref, commit: snap.commit, changes: compareStateItems(here, there) };
  } finally {
    snap.dispose();
  }
}

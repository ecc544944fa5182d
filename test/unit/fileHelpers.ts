// Workspaces the unit tests build on disk: a temp folder (by its real path) with the files given.
import { observersSettled } from '../../src/core/engine/transaction';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readSlotRecord } from '../../src/core/store/txJournal';
import { createStateCore } from '../../src/core/index';

/** Writes each file (relative path → text) under `root`, making the folders. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/**
 * A workspace folder with the files given; with `waymark` (default) a `.waymark` folder, with
 * `config` also its `config.yaml`.
 */
export function workspace(files: Record<string, string>, opts: { prefix?: string; waymark?: boolean; config?: string } = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? 'wm-ws-')));
  if (opts.waymark !== false || opts.config !== undefined) fs.mkdirSync(path.join(root, '.waymark'));
  if (opts.config !== undefined) fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), opts.config);
  writeFiles(root, files);
  return root;
}

/** Runs `check` in a BMAD project of these files (a temp folder with no `.waymark`, removed after). */
export function inProject(files: Record<string, string>, check: (root: string) => void, prefix = 'wm-proj-'): void {
  const root = workspace(files, { prefix, waymark: false });
  try {
    check(root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The files of `root`'s intent journal that hold something not done: every intent file, and a
 * journal slot (store/txJournal.ts) whose record is live or torn; a slot marked done (a process's
 * file kept for its next write) is not left work.
 */
export function journalLeft(root: string): string[] {
  const d = path.join(root, '.waymark', 'journal');
  if (!fs.existsSync(d)) return [];
  return fs.readdirSync(d).filter((n) => readSlotRecord(fs.readFileSync(path.join(d, n), 'utf8'))?.state !== 'done');
}

/**
 * journalLeft once this process's writes have settled: a change's intent is completed after its
 * answer, once the history lines it covers are flushed (engine/transaction.ts, coverFlushes).
 */
export async function journalLeftSettled(root: string): Promise<string[]> {
  await observersSettled();
  return journalLeft(root);
}

/** The intent a journal file holds (a slot's live record, or an intent file's JSON). */
export function journalIntent<T = { operation: string; writes: { file: string }[] }>(root: string, name: string): T {
  const raw = fs.readFileSync(path.join(root, '.waymark', 'journal', name), 'utf8');
  const rec = readSlotRecord(raw);
  return JSON.parse(rec ? (rec.state === 'live' ? rec.body : 'null') : raw) as T;
}

/** One `setScope` of `file` by a core made for it (and disposed): a writer that settles what the journal holds first. */
export async function setScopeOnce(root: string, file: string, scope: 'micro' | 'small' | 'medium' | 'large' | 'epic'): Promise<void> {
  const core = createStateCore({ roots: [root], actor: 'test' });
  try {
    await core.setScope(file, scope);
  } finally {
    core.dispose();
  }
}

/** A workspace (with `.waymark/`) in the temp folder holding one workflow file `a.md`; its folder goes on `tmp` for removal. */
export function oneFileWorkspace(prefix: string, text: string, tmp: string[]): { root: string; file: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  tmp.push(root);
  fs.mkdirSync(path.join(root, '.waymark'));
  const file = path.join(root, 'a.md');
  fs.writeFileSync(file, text);
  return { root, file };
}

/** A folder outside every workspace, in the temp folder; it goes on `tmp` for removal. */
export function outsideFolder(prefix: string, tmp: string[]): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  tmp.push(d);
  return d;
}

/** A story's status set by a core made for it (and closed): the CLI's, MCP's and editor's one way. */
export async function setStatus(dir: string, key: string, status: string, opts: { force?: boolean; expectHash?: string } = {}) {
  const core = createStateCore({ roots: [dir], memory: false, actor: 'test' });
  try {
    return await core.sprint.setStoryStatus(dir, key, status, opts);
  } finally {
    await core.close();
  }
}

/** A small deterministic generator (mulberry32), so a failure names its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

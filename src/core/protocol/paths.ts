import * as path from 'node:path';
import * as fs from 'node:fs';
import { nativeRealPathOnce, readInternalIfExists, safeMkdir } from '../store/safePath';
import { workspaceRelative } from '../store/history';
import { findGitShared, safeSharedMkdir, type GitShared } from '../store/sharedDir';
import { randomHex } from '../store/processes';
import { sha256 } from '../model/hash';

export type ProtocolPaths = ReturnType<typeof computeProtocolPaths>;

/** The last few roots' paths: every write asks several times (guards, leases, events), and they are names only. */
const knownPaths = new Map<string, ProtocolPaths>();

/** Where the protocol keeps its files, under `<root>/.waymark/`. */
export function protocolPaths(root: string): ProtocolPaths {
  let p = knownPaths.get(root);
  if (!p) {
    if (knownPaths.size >= 16) knownPaths.clear();
    p = Object.freeze(computeProtocolPaths(root));
    knownPaths.set(root, p);
  }
  return p;
}

function computeProtocolPaths(root: string) {
  const base = path.join(root, '.waymark');
  return {
    base,
    leases: path.join(base, 'leases'),
    modes: path.join(base, 'modes'),
    events: path.join(base, 'events'),
    eventsFile: path.join(base, 'events', 'events.jsonl'),
    checkpoints: path.join(base, 'checkpoints'),
    memory: path.join(base, 'memory'),
    sessionState: path.join(base, 'memory', 'session_state.md'),
    workflowState: path.join(base, 'memory', 'workflow-state.json'),
    coldMemory: path.join(base, 'memory', 'orchestrator_memory.md'),
  };
}

/** Creates a folder of the protocol under `root`, refusing one whose real path leads outside (exit 2). Returns its real path. */
export function ensureDir(root: string, dir: string): string {
  return safeMkdir(root, dir);
}

/** Path relative to the root with forward slashes (stable across platforms). */
/**
 * `file` relative to `root`, `/`-separated: by real paths when the file lies inside the root
 * (a file reached through a linked folder is named by its real name, in events, leases and
 * checkpoints alike), else by spelling (`../x`).
 */
export function relPath(root: string, file: string): string {
  const abs = path.resolve(root, file);
  try {
    const real = workspaceRelative(root, abs);
    if (real !== undefined) return real;
  } catch {
    // a loop of links: named as spelled
  }
  return path.relative(root, abs).split(path.sep).join('/');
}

/**
 * The first 10 hex digits of the text's SHA-256 (model/hash.ts: a short text hashed in JavaScript,
 * so a lease name or a subfolder workspace's coordination folder loads no node:crypto).
 */
export function shortHash(text: string): string {
  return sha256(text).slice(0, 10);
}

export function randomId(bytes = 4): string {
  return randomHex(bytes);
}

/**
 * Reads a file, or undefined when it does not exist. Never blocks: a FIFO, socket or folder at
 * the path is refused (WaymarkError 'unreadable', exit 2). Other errors propagate.
 */
export function readIfExists(file: string): string | undefined {
  return readInternalIfExists(file);
}

/** The names in a folder; none when the folder does not exist (other errors are thrown). */
export function readdirIfExists(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/**
 * Where leases and modes live. In a git repository: `<git common dir>/waymark/leases|modes`
 * (the workspace at the top of its worktree; a workspace in a subfolder gets
 * `<common>/waymark/scopes/<folder>-<hash>/`), seen by every worktree, so the same story or
 * workflow in two worktrees is the same lease (keys are paths relative to the workspace, which
 * sits at the same place in each worktree). Outside git: `<root>/.waymark/`. `legacy*` are the
 * old per-worktree folders, still read (leases taken before the move still count).
 */
export interface CoordinationPaths {
  leases: string;
  modes: string;
  legacyLeases?: string;
  legacyModes?: string;
  shared?: GitShared;
}

export function coordinationPaths(root: string): CoordinationPaths {
  const local = protocolPaths(root);
  const shared = findGitShared(root);
  if (!shared) return { leases: local.leases, modes: local.modes };
  // The workspace's real path as findGitShared's walk started from it (its one resolution of the
  // root, once per transaction): `top` and `real` are the same realpath's answers, so `rel` compares
  // like with like. It names the lease scope; the folders made there are checked afresh.
  let real: string;
  try {
    real = nativeRealPathOnce(root);
  } catch {
    real = path.resolve(root);
  }
  const rel = path.relative(shared.top, real).split(path.sep).join('/');
  const base = rel === '' ? shared.base : path.join(shared.base, 'scopes', `${rel.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-60)}-${shortHash(rel)}`);
  return { leases: path.join(base, 'leases'), modes: path.join(base, 'modes'), legacyLeases: local.leases, legacyModes: local.modes, shared };
}

/** Creates a coordination folder (leases, modes): inside the workspace, or inside exactly `<git common dir>/waymark/` by real path. */
export function ensureCoordinationDir(root: string, c: CoordinationPaths, dir: string): string {
  return c.shared ? safeSharedMkdir(c.shared, dir) : safeMkdir(root, dir);
}

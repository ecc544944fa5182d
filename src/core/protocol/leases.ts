import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { WriteGuard } from '../writeHooks';
import type { Clock, Logger } from '../ports';
import { systemClock, silentLogger } from '../ports';
import { WaymarkError } from '../errors';
import { coordinationPaths, ensureCoordinationDir, type CoordinationPaths, relPath, shortHash, randomId, readIfExists, readdirIfExists } from './paths';
import { withMutexSync } from './mutex';
import { holderAlive, ownHost, processStartTime } from '../store/processes';
import { safeWritePath } from '../store/safePath';
import { safeSharedPath } from '../store/sharedDir';
import { appendEvent, type EventsLogOptions } from './events';

/** Who holds a lease. `session` (else `agent`) identifies the holder when a write is checked. */
export interface LeaseOwner {
  agent: string;
  session?: string;
  /** Process that holds it; 0 or absent when only the expiry bounds the lease (CLI use). */
  pid?: number;
  /**
   * Start time of `pid` (see processStartTime), recorded when the lease is taken on this host: a
   * pid later reused by an unrelated process then reads as a dead holder, not a live one.
   */
  start?: string;
  host: string;
}

export interface Lease {
  /** `root` or `file:<relative path>`. */
  key: string;
  /** Relative path of the workflow file, or `*` for the whole root. */
  target: string;
  owner: LeaseOwner;
  acquiredAt: string;
  expiresAt: string;
  /** Set when this lease was taken over from another holder. */
  takenOverFrom?: LeaseOwner & { acquiredAt: string };
  note?: string;
}

export interface LeaseStatus {
  lease: Lease;
  stale: boolean;
  /** Why it is stale: `expired` or `dead-process`. */
  staleReason?: 'expired' | 'dead-process';
  /** Held on another host: its pid is never checked here; only expiry or a take-over ends it. */
  remote?: boolean;
}

export interface LeaseOptions {
  clock?: Clock;
  logger?: Logger;
  /** Lease length in ms. Default one hour. */
  ttlMs?: number;
  events?: EventsLogOptions | false;
  /** Also recorded in the workflow's history (session markers, take-overs), when given. */
  onRecord?: (root: string, file: string | undefined, operation: string, owner: LeaseOwner, detail: Record<string, unknown>) => void | Promise<void>;
}

export const DEFAULT_LEASE_MS = 60 * 60 * 1000;

/** The owner describing this process, from explicit values, then WAYMARK_ACTOR / WAYMARK_SESSION. */
export function currentOwner(partial: Partial<LeaseOwner> = {}): LeaseOwner {
  return {
    agent: partial.agent ?? process.env.WAYMARK_ACTOR ?? os.userInfo().username ?? 'unknown',
    session: partial.session ?? process.env.WAYMARK_SESSION,
    pid: partial.pid ?? process.pid,
    host: partial.host ?? ownHost(),
  };
}

/** The owner with its process start time filled in (pid on this host only). */
function withStart(owner: LeaseOwner): LeaseOwner {
  if (!owner.pid || owner.start || owner.host !== ownHost()) return owner;
  const start = processStartTime(owner.pid);
  return start ? { ...owner, start } : owner;
}

export function describeOwner(o: LeaseOwner): string {
  const bits = [o.agent];
  if (o.session) bits.push(`session ${o.session}`);
  if (o.pid) bits.push(`pid ${o.pid}`);
  bits.push(`on ${o.host}`);
  return bits.length > 1 ? `${bits[0]} (${bits.slice(1).join(', ')})` : bits[0];
}

/** True when a lease is held on another machine: its pid means nothing here, only expiry or force end it. */
export function isRemote(lease: Lease): boolean {
  return lease.owner.host !== ownHost();
}

/**
 * Lease key for a workflow file, or `root` when `file` is undefined. `path` is where it is taken
 * (the repository's shared folder in git, see coordinationPaths); `paths` adds the old
 * per-worktree place, still honoured.
 */
export function leaseKey(root: string, file?: string, c: CoordinationPaths = coordinationPaths(root)): { key: string; target: string; path: string; paths: string[] } {
  const rel = file === undefined ? undefined : relPath(root, file);
  const name = rel === undefined ? 'root.json' : `file-${rel.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-80)}-${shortHash(rel)}.json`;
  const p = path.join(c.leases, name);
  const paths = c.legacyLeases ? [p, path.join(c.legacyLeases, name)] : [p];
  if (rel === undefined) return { key: 'root', target: '*', path: p, paths };
  return { key: `file:${rel}`, target: rel, path: p, paths };
}

function readLease(file: string): { lease?: Lease; text?: string } {
  const text = readIfExists(file);
  if (text === undefined) return {};
  try {
    const lease = JSON.parse(text) as Lease;
    if (!lease || typeof lease !== 'object' || !lease.owner || !lease.expiresAt) return { text };
    return { lease, text };
  } catch {
    return { text }; // unreadable: treated as stale below
  }
}

export function leaseStatus(lease: Lease, clock: Clock = systemClock): LeaseStatus {
  const remote = isRemote(lease) ? { remote: true } : {};
  if (Date.parse(lease.expiresAt) <= clock.now().getTime()) return { lease, stale: true, staleReason: 'expired', ...remote };
  const o = lease.owner;
  // A pid names a process only on the host that recorded it: a remote holder is never judged by it.
  if (o.pid && !remote.remote && !holderAlive(o.pid, o.start)) return { lease, stale: true, staleReason: 'dead-process' };
  return { lease, stale: false, ...remote };
}

/** True when `who` is the holder: same session when both have one, else same agent name. */
export function isHolder(lease: Lease, who: { actor?: string; session?: string }): boolean {
  if (lease.owner.session && who.session) return lease.owner.session === who.session;
  return !!who.actor && who.actor === lease.owner.agent;
}

function sameOwner(a: LeaseOwner, b: LeaseOwner): boolean {
  return a.agent === b.agent && (a.session ?? '') === (b.session ?? '') && a.host === b.host;
}

function lockedError(lease: Lease, what: string): WaymarkError {
  return new WaymarkError(
    'locked',
    `${what} is locked by ${describeOwner(lease.owner)} since ${lease.acquiredAt} (lease expires ${lease.expiresAt}).${isRemote(lease) ? ' It is held on another machine, so its process is not checked here: only its expiry or a take-over ends it.' : ''} Wait, ask the holder to release it, or take over explicitly (waymark lease takeover).`,
    undefined,
    { lease },
  );
}

function writeTemp(dir: string, lease: Lease): string {
  const tmp = path.join(dir, `.lease-${process.pid}-${randomId()}.tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o644);
  try {
    // No fsync: a lease emptied by a power loss reads as unreadable, which counts as stale.
    fs.writeSync(fd, JSON.stringify(lease, null, 2) + '\n');
  } finally {
    fs.closeSync(fd);
  }
  return tmp;
}

function record(root: string, file: string | undefined, type: string, owner: LeaseOwner, data: Record<string, unknown>, options: LeaseOptions): void {
  if (options.events !== false) {
    try {
      appendEvent(root, { type, file: file === undefined ? undefined : relPath(root, file), actor: owner.agent, session: owner.session, data }, options.events || {});
    } catch (e) {
      (options.logger ?? silentLogger).warn(`[protocol] could not log ${type}: ${String(e)}`);
    }
  }
}

async function recordHistory(root: string, file: string | undefined, op: string, owner: LeaseOwner, detail: Record<string, unknown>, options: LeaseOptions): Promise<void> {
  if (!options.onRecord) return;
  try {
    await options.onRecord(root, file, op, owner, detail);
  } catch (e) {
    (options.logger ?? silentLogger).warn(`[protocol] could not record ${op} in history: ${String(e)}`);
  }
}

export interface AcquireResult {
  lease: Lease;
  /** `acquired`, `renewed` (already ours), or `broke-stale` (a stale lease was removed first). */
  outcome: 'acquired' | 'renewed' | 'broke-stale';
  broken?: LeaseStatus;
}

/** A lease record for `owner`, starting now and lasting `ttlMs` (default one hour). */
function newLease(k: { key: string; target: string }, owner: LeaseOwner, now: Date, ttlMs: number | undefined): Lease {
  return { key: k.key, target: k.target, owner: withStart(owner), acquiredAt: now.toISOString(), expiresAt: new Date(now.getTime() + (ttlMs ?? DEFAULT_LEASE_MS)).toISOString() };
}

/**
 * Takes the lease on `file` (or the whole root when `file` is undefined). Creation is atomic
 * (the complete record is written to a temp file and hard-linked into place, which fails when
 * the lease exists), so contended acquires give exactly one holder. A lease already held by the
 * same owner is renewed; a stale one (expired, or its process dead on this host) is broken;
 * otherwise WaymarkError('locked', "... locked by <owner> since <time> ...").
 */
export async function acquireLease(root: string, file: string | undefined, owner: LeaseOwner, options: LeaseOptions = {}): Promise<AcquireResult> {
  const clock = options.clock ?? systemClock;
  const k = leaseKey(root, file);
  const c = coordinationPaths(root);
  const dir = ensureCoordinationDir(root, c, c.leases);
  const now = clock.now();
  const lease = newLease(k, owner, now, options.ttlMs);
  // Acquires of one root are serialized by a short mutex so that the root/file overlap check and
  // the creation are one step; the link below is atomic on its own as well.
  const result = withMutexSync(path.join(dir, 'acquire.lock'), (): AcquireResult => {
    // A root lease blocks file leases by others, and the reverse.
    checkOverlap(root, file, owner, clock);
    // A lease taken before leases moved to the shared folder still counts: a live one of another
    // holder refuses, ours moves over, a stale one is broken.
    let broken: LeaseStatus | undefined = settleLegacy(k.paths.slice(1), owner, clock, file === undefined ? `The workspace ${root}` : relPath(root, file));
    for (let attempt = 0; attempt < 20; attempt++) {
      const tmp = writeTemp(dir, lease);
      try {
        fs.linkSync(tmp, k.path);
        return { lease, outcome: broken ? 'broke-stale' : 'acquired', broken };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      } finally {
        fs.rmSync(tmp, { force: true });
      }
      // Someone holds it: ours (renew), stale (break), or another live holder (refuse).
      const r = withMutexSync(`${k.path}.lock`, (): { renewed?: Lease; brokeStale?: LeaseStatus; held?: Lease } => {
        const cur = readLease(k.path);
        if (cur.text === undefined) return {}; // released meanwhile: retry the link
        if (!cur.lease) {
          fs.rmSync(k.path, { force: true }); // unreadable record: stale
          return {};
        }
        const st = leaseStatus(cur.lease, clock);
        if (!st.stale && sameOwner(cur.lease.owner, owner)) {
          const renewed: Lease = { ...cur.lease, owner: lease.owner, expiresAt: lease.expiresAt };
          fs.renameSync(writeTemp(dir, renewed), k.path);
          return { renewed };
        }
        if (st.stale) {
          fs.rmSync(k.path, { force: true });
          return { brokeStale: st };
        }
        return { held: cur.lease };
      });
      if (r.renewed) return { lease: r.renewed, outcome: 'renewed' };
      if (r.held) throw lockedError(r.held, file === undefined ? `The workspace ${root}` : relPath(root, file));
      if (r.brokeStale) {
        broken = r.brokeStale;
        (options.logger ?? silentLogger).info(`[protocol] broke stale lease ${k.key} of ${describeOwner(broken.lease.owner)} (${broken.staleReason})`);
      }
    }
    throw new WaymarkError('locked', `Could not acquire the lease ${k.key}: it keeps changing hands; retry.`);
  });
  if (result.outcome === 'renewed') {
    record(root, file, 'lease.renew', owner, { key: k.key, expiresAt: result.lease.expiresAt }, options);
    return result;
  }
  const b = result.broken;
  record(root, file, 'lease.acquire', owner, { key: k.key, expiresAt: result.lease.expiresAt, ...(b ? { broke: b.lease.owner, staleReason: b.staleReason } : {}) }, options);
  await recordHistory(root, file, 'session.start', owner, { lease: k.key, ...(b ? { brokeStaleLease: describeOwner(b.lease.owner), staleReason: b.staleReason } : {}) }, options);
  return result;
}

/** A lease path about to get a lock file beside it or be removed, checked by real path (exit 2 when it leads elsewhere). */
function checkedPath(root: string, c: CoordinationPaths, p: string): void {
  if (c.shared && p.startsWith(c.shared.base + path.sep)) safeSharedPath(c.shared, p);
  else safeWritePath(root, p);
}

function settleLegacy(legacy: string[], owner: LeaseOwner, clock: Clock, what: string): LeaseStatus | undefined {
  let broken: LeaseStatus | undefined;
  for (const p of legacy) {
    if (!fs.existsSync(p)) continue;
    withMutexSync(`${p}.lock`, () => {
      const cur = readLease(p);
      if (cur.text === undefined) return;
      if (cur.lease) {
        const st = leaseStatus(cur.lease, clock);
        if (!st.stale && !sameOwner(cur.lease.owner, owner)) throw lockedError(cur.lease, what);
        if (st.stale) broken = st;
      }
      fs.rmSync(p, { force: true });
    });
  }
  return broken;
}

function checkOverlap(root: string, file: string | undefined, owner: LeaseOwner, clock: Clock): void {
  const others = listLeases(root, clock).filter((s) => !s.stale && !sameOwner(s.lease.owner, owner));
  for (const s of others) {
    if (file === undefined && s.lease.key !== 'root') throw lockedError(s.lease, `${s.lease.target} (inside the workspace)`);
    if (file !== undefined && s.lease.key === 'root') throw lockedError(s.lease, `The workspace ${root}`);
  }
}

/** Releases our lease. Refuses (locked) when someone else holds it; a missing lease is not an error. */
export async function releaseLease(root: string, file: string | undefined, owner: LeaseOwner, options: LeaseOptions & { force?: boolean } = {}): Promise<{ released: boolean; lease?: Lease }> {
  const clock = options.clock ?? systemClock;
  const k = leaseKey(root, file);
  const c = coordinationPaths(root);
  let out: { released: boolean; lease?: Lease } = { released: false };
  for (const p of k.paths) {
    if (!fs.existsSync(p)) continue;
    checkedPath(root, c, p);
    const one = withMutexSync(`${p}.lock`, (): { released: boolean; lease?: Lease } => {
      const cur = readLease(p);
      if (cur.text === undefined) return { released: false };
      if (cur.lease && !options.force && !sameOwner(cur.lease.owner, owner) && !leaseStatus(cur.lease, clock).stale) {
        throw lockedError(cur.lease, file === undefined ? `The workspace ${root}` : relPath(root, file));
      }
      fs.rmSync(p, { force: true });
      return { released: true, lease: cur.lease };
    });
    if (one.released && !out.released) out = one;
  }
  if (out.released) {
    record(root, file, 'lease.release', owner, { key: k.key, ...(out.lease && !sameOwner(out.lease.owner, owner) ? { heldBy: out.lease.owner } : {}) }, options);
    await recordHistory(root, file, 'session.end', owner, { lease: k.key }, options);
  }
  return out;
}

/**
 * Takes the lease from its current holder, explicitly. The take-over is recorded in the events
 * log (and the workflow's history when `onRecord` is given) with who held it before.
 */
export async function takeoverLease(root: string, file: string | undefined, owner: LeaseOwner, options: LeaseOptions & { reason?: string } = {}): Promise<{ lease: Lease; previous?: Lease }> {
  const clock = options.clock ?? systemClock;
  const k = leaseKey(root, file);
  const c = coordinationPaths(root);
  const dir = ensureCoordinationDir(root, c, c.leases);
  const now = clock.now();
  // A lease in the old per-worktree place is taken over too (it is removed; the new one records it).
  let legacy: Lease | undefined;
  for (const p of k.paths.slice(1)) {
    if (!fs.existsSync(p)) continue;
    withMutexSync(`${p}.lock`, () => {
      legacy = readLease(p).lease ?? legacy;
      fs.rmSync(p, { force: true });
    });
  }
  const out = withMutexSync(`${k.path}.lock`, () => {
    const found = readLease(k.path);
    const cur = found.lease ? found : { lease: legacy };
    const lease: Lease = {
      ...newLease(k, owner, now, options.ttlMs),
      ...(cur.lease ? { takenOverFrom: { ...cur.lease.owner, acquiredAt: cur.lease.acquiredAt } } : {}),
      ...(options.reason ? { note: options.reason } : {}),
    };
    const tmp = writeTemp(dir, lease);
    fs.renameSync(tmp, k.path);
    return { lease, previous: cur.lease };
  });
  const detail = { key: k.key, previous: out.previous?.owner ?? null, previousSince: out.previous?.acquiredAt ?? null, ...(options.reason ? { reason: options.reason } : {}) };
  record(root, file, 'lease.takeover', owner, detail, options);
  await recordHistory(root, file, 'lease.takeover', owner, detail, options);
  return out;
}

/** All leases of a root with their staleness. */
export function listLeases(root: string, clock: Clock = systemClock): LeaseStatus[] {
  const c = coordinationPaths(root);
  const seen = new Set<string>();
  const out: LeaseStatus[] = [];
  // The shared place first: a key found there hides a leftover of the same key in the old place.
  for (const dir of c.legacyLeases ? [c.leases, c.legacyLeases] : [c.leases]) {
    for (const n of readdirIfExists(dir)) {
      if (!n.endsWith('.json') || (n !== 'root.json' && !n.startsWith('file-'))) continue;
      const { lease } = readLease(path.join(dir, n));
      if (!lease || seen.has(lease.key)) continue;
      seen.add(lease.key);
      out.push(leaseStatus(lease, clock));
    }
  }
  return out.sort((a, b) => a.lease.key.localeCompare(b.lease.key));
}

/** The live leases that cover `file`: its own and the root's. */
export function leasesCovering(root: string, file: string, clock: Clock = systemClock): LeaseStatus[] {
  const out: LeaseStatus[] = [];
  // One look for the shared coordination folder (a walk up for .git) for both keys.
  const c = coordinationPaths(root);
  for (const k of [leaseKey(root, undefined, c), leaseKey(root, file, c)]) {
    for (const p of k.paths) {
      const { lease } = readLease(p);
      if (lease) out.push(leaseStatus(lease, clock));
    }
  }
  return out;
}

/** Removes every stale lease of a root; returns what was broken. */
export function breakStaleLeases(root: string, options: LeaseOptions = {}): LeaseStatus[] {
  const clock = options.clock ?? systemClock;
  const broken: LeaseStatus[] = [];
  for (const s of listLeases(root, clock)) {
    if (!s.stale) continue;
    const file = s.lease.key === 'root' ? undefined : path.join(root, s.lease.target);
    const k = leaseKey(root, file);
    let done = false;
    for (const p of k.paths) {
      if (!fs.existsSync(p)) continue;
      checkedPath(root, coordinationPaths(root), p);
      done = withMutexSync(`${p}.lock`, () => {
        const cur = readLease(p);
        if (!cur.lease || !leaseStatus(cur.lease, clock).stale) return false;
        fs.rmSync(p, { force: true });
        return true;
      }) || done;
    }
    if (done) {
      broken.push(s);
      record(root, file, 'lease.break', s.lease.owner, { key: s.lease.key, staleReason: s.staleReason }, options);
    }
  }
  return broken;
}

/**
 * A WriteGuard for createStateCore: refuses a write to a file covered by a live lease (its own
 * or the root's) unless the writer (context `session`, else `actor`) is the holder.
 */
export function leaseGuard(options: { clock?: Clock } = {}): WriteGuard {
  return (ctx) => {
    for (const s of leasesCovering(ctx.root, ctx.file, options.clock)) {
      if (s.stale) continue;
      if (isHolder(s.lease, { actor: ctx.actor, session: ctx.session })) continue;
      throw lockedError(s.lease, s.lease.key === 'root' ? `The workspace ${ctx.root}` : s.lease.target);
    }
  };
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import { systemClock, silentLogger } from '../ports';
import { WaymarkError } from '../errors';
import { writeFileAtomic } from '../store/atomicWrite';
import { safeSharedPath } from '../store/sharedDir';
import { coordinationPaths, ensureCoordinationDir, shortHash, readdirIfExists } from './paths';
import { withMutexSync } from './mutex';
import { describeOwner, leaseStatus, type Lease, type LeaseOwner, DEFAULT_LEASE_MS } from './leases';
import { appendEvent, assertEventsLoggable, type EventsLogOptions } from './events';

/** An active mode (e.g. `planning`, `executing`) held by one owner. */
export interface ModeRecord {
  mode: string;
  /** Exclusive modes refuse any other active mode; shared modes coexist with other shared ones. */
  exclusive: boolean;
  owner: LeaseOwner;
  startedAt: string;
  expiresAt: string;
}

export interface ModeOptions {
  clock?: Clock;
  logger?: Logger;
  ttlMs?: number;
  events?: EventsLogOptions | false;
}

function modeFile(dir: string, mode: string, owner: LeaseOwner): string {
  return path.join(dir, `${mode.replace(/[^A-Za-z0-9._-]+/g, '_')}--${shortHash(`${owner.agent}|${owner.session ?? ''}|${owner.host}`)}.json`);
}

function asLease(r: ModeRecord): Lease {
  return { key: `mode:${r.mode}`, target: '*', owner: r.owner, acquiredAt: r.startedAt, expiresAt: r.expiresAt };
}

/** Modes of a root: the shared place in git (every worktree sees them), and the old per-worktree one. */
function readModes(root: string, clock: Clock): { rec: ModeRecord; file: string; stale: boolean }[] {
  const c = coordinationPaths(root);
  const out: { rec: ModeRecord; file: string; stale: boolean }[] = [];
  for (const file of (c.legacyModes ? [c.modes, c.legacyModes] : [c.modes]).flatMap((dir) => readdirIfExists(dir).filter((n) => n.endsWith('.json')).map((n) => path.join(dir, n)))) {
    try {
      const rec = JSON.parse(fs.readFileSync(file, 'utf8')) as ModeRecord;
      if (!rec?.mode || !rec.owner) continue;
      out.push({ rec, file, stale: leaseStatus(asLease(rec), clock).stale });
    } catch {
      // removed meanwhile or unreadable; ignored (a later start rewrites it)
    }
  }
  return out;
}

/** Active (non-stale) modes of a root. */
export function showModes(root: string, clock: Clock = systemClock): ModeRecord[] {
  return readModes(root, clock).filter((m) => !m.stale).map((m) => m.rec);
}

function sameOwner(a: LeaseOwner, b: LeaseOwner): boolean {
  return a.agent === b.agent && (a.session ?? '') === (b.session ?? '') && a.host === b.host;
}

/**
 * Starts `mode` for `owner`. Refused with WaymarkError('locked', "... held by <owner> since <time>")
 * when an exclusive mode held by someone else (or a different exclusive mode) is active, or when
 * this mode is exclusive and any other mode is active. Stale modes (expired, dead process) are removed.
 */
export function startMode(root: string, mode: string, owner: LeaseOwner, options: ModeOptions & { exclusive?: boolean } = {}): ModeRecord {
  if (!/^[A-Za-z][A-Za-z0-9._-]{0,63}$/.test(mode)) throw new WaymarkError('usage', `Mode name '${mode}' is not valid: use letters, digits, '.', '_' or '-'.`);
  const clock = options.clock ?? systemClock;
  const exclusive = options.exclusive ?? true;
  const c = coordinationPaths(root);
  if (options.events !== false) assertEventsLoggable(root);
  const dir = ensureCoordinationDir(root, c, c.modes);
  const rec = withMutexSync(path.join(dir, 'modes.lock'), () => {
    const all = readModes(root, clock);
    for (const m of all) {
      if (m.stale) {
        fs.rmSync(m.file, { force: true });
        (options.logger ?? silentLogger).info(`[protocol] removed stale mode ${m.rec.mode} of ${describeOwner(m.rec.owner)}`);
      }
    }
    const active = all.filter((m) => !m.stale && !(m.rec.mode === mode && sameOwner(m.rec.owner, owner)));
    const blocker = active.find((m) => exclusive || m.rec.exclusive);
    if (blocker) {
      throw new WaymarkError(
        'locked',
        `Cannot start ${exclusive ? 'exclusive ' : ''}mode '${mode}': mode '${blocker.rec.mode}'${blocker.rec.exclusive ? ' (exclusive)' : ''} is held by ${describeOwner(blocker.rec.owner)} since ${blocker.rec.startedAt}. End it first (waymark mode end ${blocker.rec.mode}) or wait until ${blocker.rec.expiresAt}.`,
        undefined,
        { mode: blocker.rec },
      );
    }
    const now = clock.now();
    const r: ModeRecord = { mode, exclusive, owner, startedAt: now.toISOString(), expiresAt: new Date(now.getTime() + (options.ttlMs ?? DEFAULT_LEASE_MS)).toISOString() };
    const target = modeFile(dir, mode, owner);
    // In git the record goes to exactly <git common dir>/waymark/, checked by real path.
    if (c.shared) writeFileAtomic(safeSharedPath(c.shared, target), JSON.stringify(r, null, 2) + '\n');
    else writeFileAtomic(target, JSON.stringify(r, null, 2) + '\n', { root });
    return r;
  });
  if (options.events !== false) appendEvent(root, { type: 'mode.start', actor: owner.agent, session: owner.session, data: { mode, exclusive } }, options.events || {});
  return rec;
}

/** Ends `mode` for `owner` (or for anyone with `force`). Returns the records removed. */
export function endMode(root: string, mode: string, owner: LeaseOwner, options: ModeOptions & { force?: boolean } = {}): ModeRecord[] {
  const clock = options.clock ?? systemClock;
  const c = coordinationPaths(root);
  const dir = c.modes;
  if (!fs.existsSync(dir) && !(c.legacyModes && fs.existsSync(c.legacyModes))) return [];
  // Checked by real path (and created when only the old place has modes) before its lock is taken.
  if (options.events !== false) assertEventsLoggable(root);
  ensureCoordinationDir(root, c, dir);
  const removed = withMutexSync(path.join(dir, 'modes.lock'), () => {
    const out: ModeRecord[] = [];
    const all = readModes(root, clock).filter((m) => m.rec.mode === mode);
    const mine = all.filter((m) => options.force || m.stale || sameOwner(m.rec.owner, owner));
    const other = all.find((m) => !mine.includes(m));
    if (!mine.length && other) {
      throw new WaymarkError('locked', `Mode '${mode}' is held by ${describeOwner(other.rec.owner)} since ${other.rec.startedAt}; only its holder ends it (or use --force).`, undefined, { mode: other.rec });
    }
    for (const m of mine) {
      fs.rmSync(m.file, { force: true });
      out.push(m.rec);
    }
    return out;
  });
  if (removed.length && options.events !== false) appendEvent(root, { type: 'mode.end', actor: owner.agent, session: owner.session, data: { mode, forced: !!options.force } }, options.events || {});
  return removed;
}

/**
 * The projector: plans what changed since each ticket's `syncedHash` and sends it, one way,
 * through the breaker. Idempotent: a ticket with no mirror is looked up by its Waymark id
 * before it is created (a create whose answer was lost — a crash, a timeout — is found, not
 * made twice). While the tracker is down the changes go to the outbox and the run ends at
 * once; the next run drains the outbox first, in the order queued. One run per store at a time
 * (a file lock). Never called by a mutation: local commands do not wait on a tracker.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StateCore } from '../api';
import type { Clock } from '../ports';
import { systemClock } from '../ports';
import { WaymarkError, errorMessage } from '../errors';
import { buildRegistry } from '../project/registry';
import type { SprintReport } from '../bmad/sprint';
import type { WorkflowState } from '../types';
import { splitFrontmatter } from '../model/frontmatter';
import { acquireFileLock, type HeldLock } from '../store/fileLock';
import { readRegularFileSync } from '../store/safeRead';
import { TrackerBreaker, isOutage, type BreakerSettings, type BreakerStatus } from './breaker';
import { Outbox, outboxFile } from './outbox';
import { SidecarMirrors, mirrorBlock, mirrorFromFrontmatter, type TrackerMirror } from './mirror';
import { projectTickets, renderBody, type ProjectedTicket } from './projection';
import { TicketError, type ListedTicket, type TrackerCall, type TicketDraft, type TicketRef, type TicketStore } from './port';
import { isDirectory } from '../store/safeRead';

export interface ProjectOptions {
  core: StateCore;
  /** The workspace folder projected (its outbox, breaker and sidecar live under its .waymark). */
  root: string;
  store: TicketStore;
  /** The default store mirrors into frontmatter; others only into the sidecar. */
  isDefault: boolean;
  breaker: BreakerSettings;
  dryRun?: boolean;
  clock?: Clock;
  /** One line per ticket sent (the CLI prints them; tests wait for them). */
  onProgress?: (line: string) => void;
  /**
   * Files whose mirror must not be written now (an editor holds unsaved changes to them): the
   * ticket is sent, its mirror is left out, and the next run finds the ticket by its id line.
   */
  deferMirror?: (file: string) => boolean;
  /** The workflows as the host already holds them (the extension's model); default a fresh scan. */
  workflows?: readonly WorkflowState[];
  /** Test hook: after this many creates, before their mirror is written, wait forever (to be killed). */
  pauseAfterCreates?: number;
}

export interface PlannedChange {
  id: string;
  action: 'create' | 'update' | 'close';
  title: string;
  file?: string;
  /** The tracker's id when known. */
  ticket?: string;
  /** `missing`: the mirror says synced but the tracker has no such ticket; `removed`: the artifact is gone. */
  why: 'new' | 'changed' | 'queued' | 'links' | 'missing' | 'removed';
}

export interface ProjectReport {
  store: string;
  root: string;
  dryRun: boolean;
  planned: PlannedChange[];
  unchanged: number;
  created: string[];
  updated: string[];
  /** Tickets closed because their artifact was removed from the project. */
  closed: string[];
  /** Why the tracker's tickets could not be listed (no orphan closed, no missing ticket re-created this run). */
  listError?: string;
  /** Tickets found by their id line instead of being created again. */
  reconciled: string[];
  /** The tracker refused these (validation): not queued, fix the file. */
  failed: { id: string; message: string }[];
  /** Changes waiting in the outbox after the run. */
  queued: number;
  /** Tickets sent whose frontmatter mirror was left out (unsaved editor, or an agent wrote meanwhile). */
  mirrorsDeferred: string[];
  /** Why the run stopped sending (breaker open, outage), when it did. */
  outage?: string;
  breaker: BreakerStatus;
}

/** The tickets of one workspace folder, from the project registry (core/project). */
export async function projectFolder(core: StateCore, root: string, known?: readonly WorkflowState[]): Promise<ProjectedTicket[]> {
  const all = known ?? (await core.scan()).workflows;
  const ctx = await core.contextFor(path.join(root, '.waymark-probe'));
  const sprint: SprintReport | undefined = core.sprint.load(root, { config: ctx.config });
  const workflows = all.filter((w) => w.root === root && !w.stale);
  const registry = buildRegistry(workflows, sprint ? [sprint] : []);
  return projectTickets({ registry, workflows, sprints: sprint ? [sprint] : [], readText });
}

function readText(file: string): { text: string; hasFrontmatter: boolean } | undefined {
  try {
    const text = readRegularFileSync(file, 2 * 1024 * 1024).toString('utf8');
    const split = splitFrontmatter(text);
    return split.hasFrontmatter && split.closed ? { text: text.slice(split.bodyStart), hasFrontmatter: true } : { text, hasFrontmatter: false };
  } catch {
    return undefined;
  }
}

function refText(r: TicketRef): string {
  return /^\d+$/.test(r.id) ? `#${r.id}` : r.id;
}

/**
 * Plans and (unless dry-run) sends one folder's changes to one store. A run that sends holds the
 * store's lock from before it reads the mirrors to after the last one is written.
 */
/**
 * What a failed tracker call means for the run: that one ticket refused (422); the whole run
 * stopped (a bad token, no such repository: every ticket would be refused); or the tracker down
 * (queue the rest). Anything else is a bug and is thrown.
 */
function failureOf(e: unknown, breaker: TrackerBreaker): { stop: WaymarkError } | { refused: string } | { outage: string } {
  if (TicketError.is(e) && !e.retryable) {
    if (e.status !== undefined && e.status !== 422) return { stop: new WaymarkError('usage', e.message, undefined, { status: e.status }) };
    return { refused: e.message };
  }
  if (!isOutage(e)) throw e;
  return { outage: breaker.describe(e) };
}

export async function runProjection(o: ProjectOptions): Promise<ProjectReport> {
  if (o.dryRun) return planAndSend(o);
  const file = outboxFile(o.root, o.store.name);
  let lock: HeldLock;
  try {
    lock = await acquireFileLock(file, { root: o.root, purpose: `waymark project (${o.store.name})`, waitMs: 2000 });
  } catch (e) {
    if (!WaymarkError.is(e, 'locked')) throw e;
    throw new WaymarkError('locked', `Another waymark project to the ${o.store.name} store is running in ${o.root}; nothing was sent. Retry when it finishes. (${e.message})`, undefined, e.data);
  }
  try {
    return await planAndSend(o);
  } finally {
    lock.release();
  }
}

async function planAndSend(o: ProjectOptions): Promise<ProjectReport> {
  const clock = o.clock ?? systemClock;
  const tickets = await projectFolder(o.core, o.root, o.workflows);
  const outbox = new Outbox(o.root, o.store.name);
  const sidecar = await SidecarMirrors.load(o.root, o.store.name);
  // The frontmatter block only for workflow files the core reads, and only when the `tracker` key
  // is absent or Waymark's own mirror: a `tracker:` someone else wrote is not ours to replace.
  const useFrontmatter = (t: ProjectedTicket) => {
    if (!o.isDefault || !t.hasFrontmatter || t.kind === 'epic' || t.stateHash === undefined || !t.file) return false;
    const own = o.core.get(t.file)?.data.tracker;
    return own === undefined || isOwnBlock(own);
  };
  const mirrorOf = (t: ProjectedTicket): TrackerMirror | undefined =>
    useFrontmatter(t) && t.file ? mirrorFromFrontmatter(o.core.get(t.file)?.data, o.store.name) ?? sidecar.get(t.waymarkId) : sidecar.get(t.waymarkId);

  const byId = new Map(tickets.map((t) => [t.waymarkId, t]));
  const mirrors = new Map<string, TrackerMirror | undefined>(tickets.map((t) => [t.waymarkId, mirrorOf(t)]));
  const breaker = new TrackerBreaker(o.root, o.store.name, o.breaker, clock);

  // One listing of the tracker's tickets: a mirror whose ticket is gone (ticket repository
  // re-created, issue deleted) is sent again; a ticket whose artifact was removed is closed.
  // A listing that failed changes nothing.
  const { listed, listError, outage: listOutage } = await listTickets(o, breaker);
  const missing = new Set<string>();
  if (listed) {
    for (const t of tickets) {
      const m = mirrors.get(t.waymarkId);
      if (!m) continue;
      const there = listed.get(t.waymarkId);
      if (!there) {
        mirrors.set(t.waymarkId, undefined);
        missing.add(t.waymarkId);
      } else if (there.id !== m.id) mirrors.set(t.waymarkId, { ...m, id: there.id, url: there.url, status: there.status });
    }
  }
  const orphans = listed ? findOrphans(o.root, listed, byId, tickets.length) : [];
  const changed = (t: ProjectedTicket) => mirrors.get(t.waymarkId)?.syncedHash !== t.hash;
  // Entries `commit:` are changes written to a git store whose commit failed: they wait for a
  // commit, not for a send.
  const pendingAll = outbox.pending();
  const pendingCommits = pendingAll.filter((e) => isCommitEntry(e.hash));
  const pending = pendingAll.filter((e) => !isCommitEntry(e.hash));
  // The outbox first, in the order queued; then the rest of what changed, parents and
  // prerequisites first.
  const order: ProjectedTicket[] = [];
  const seen = new Set<string>();
  for (const e of pending) {
    const t = byId.get(e.id);
    if (t && changed(t) && !seen.has(t.waymarkId)) {
      order.push(t);
      seen.add(t.waymarkId);
    }
  }
  for (const t of tickets) if (!seen.has(t.waymarkId) && changed(t)) order.push(t);
  const queuedIds = new Set(pending.map((e) => e.id));
  const planned: PlannedChange[] = order.map((t) => {
    const m = mirrors.get(t.waymarkId);
    return { id: t.waymarkId, action: m ? 'update' : 'create', title: t.title, file: t.file, ticket: m?.id, why: queuedIds.has(t.waymarkId) ? 'queued' : missing.has(t.waymarkId) ? 'missing' : !m ? 'new' : m.syncedHash.startsWith('partial:') ? 'links' : 'changed' };
  });
  for (const x of orphans) planned.push({ id: x.id, action: 'close', title: x.id, file: x.file, ticket: x.ref.id, why: 'removed' });

  const report: ProjectReport = {
    store: o.store.name, root: o.root, dryRun: !!o.dryRun, planned, unchanged: tickets.length - order.length, listError,
    created: [], updated: [], closed: [], reconciled: [], failed: [], queued: pendingAll.length, mirrorsDeferred: [], breaker: breaker.status(),
  };
  if (o.dryRun) return report;

  let creates = 0;
  let fatal: WaymarkError | undefined;
  // Entries for items that are gone, or already in sync (another run sent them), leave the outbox.
  for (const e of pending) {
    const t = byId.get(e.id);
    if (!t) outbox.done(e.id, clock.now(), 'drop');
    else if (!changed(t)) outbox.done(e.id, clock.now());
  }
  const refs = new Map<string, TicketRef>();
  for (const [id, m] of mirrors) if (m) refs.set(id, m);
  for (let i = 0; i < order.length; i++) {
    const t = order[i];
    if (listOutage) {
      // The listing met the outage: the run's one failed call; everything waits in the outbox.
      report.outage = `the ${o.store.name} tracker is unavailable: ${listOutage}`;
      outbox.queue(order.slice(i).map((x) => ({ id: x.waymarkId, hash: x.hash, reason: listOutage.slice(0, 200) })), clock.now());
      break;
    }
    if (breaker.isOpen()) {
      report.outage = `the ${o.store.name} tracker is unavailable (breaker open${breaker.status().retryAt ? ` until ${breaker.status().retryAt}` : ''})`;
      outbox.queue(order.slice(i).map((x) => ({ id: x.waymarkId, hash: x.hash, reason: 'breaker open' })), clock.now());
      break;
    }
    const parent = t.parentId ? refs.get(t.parentId) : undefined;
    const blockedBy = t.blockedByIds.map((id) => refs.get(id)).filter((r): r is TicketRef => !!r);
    const complete = (!t.parentId || !!parent || !byId.has(t.parentId)) && blockedBy.length === t.blockedByIds.filter((id) => byId.has(id)).length;
    const draft: TicketDraft = {
      waymarkId: t.waymarkId, title: t.title, labels: t.labels, open: t.open, parent, blockedBy,
      body: renderBody(t, {
        parent: parent && !o.store.capabilities.parent ? refText(parent) : undefined,
        blockedBy: o.store.capabilities.blockedBy ? [] : blockedBy.map(refText),
      }),
    };
    if (o.store.capabilities.blockedBy && blockedBy.length) {
      draft.bodyWithBlockedBy = renderBody(t, { parent: parent && !o.store.capabilities.parent ? refText(parent) : undefined, blockedBy: blockedBy.map(refText) });
    }
    let ref: TicketRef;
    try {
      let known: TicketRef | undefined = mirrors.get(t.waymarkId);
      if (!known) {
        // Reconcile: a create that got no answer may have landed.
        known = await breaker.call((signal) => o.store.find(t.waymarkId, signal));
        if (known) report.reconciled.push(t.waymarkId);
      }
      if (known) {
        const k = known;
        ref = await breaker.call((signal) => o.store.update(k, draft, signal));
        report.updated.push(t.waymarkId);
        o.onProgress?.(`updated ${t.waymarkId} → ${refText(ref)}`);
      } else {
        ref = await breaker.call((signal) => o.store.create(draft, signal));
        report.created.push(t.waymarkId);
        creates++;
        o.onProgress?.(`created ${t.waymarkId} → ${refText(ref)}`);
        if (o.pauseAfterCreates !== undefined && creates >= o.pauseAfterCreates) {
          o.onProgress?.('paused (WAYMARK_TICKETS_PAUSE_AFTER_CREATES)');
          await new Promise<never>(() => undefined);
        }
      }
    } catch (e) {
      const f = failureOf(e, breaker);
      if ('stop' in f) {
        fatal = f.stop;
        break;
      }
      if ('refused' in f) {
        report.failed.push({ id: t.waymarkId, message: f.refused });
        continue;
      }
      const why = f.outage;
      report.outage = `the ${o.store.name} tracker is unavailable: ${why}`;
      outbox.queue(order.slice(i).map((x) => ({ id: x.waymarkId, hash: x.hash, reason: why.slice(0, 200) })), clock.now());
      break;
    }
    refs.set(t.waymarkId, ref);
    const mirror: TrackerMirror = { store: o.store.name, id: ref.id, url: ref.url, status: ref.status, syncedHash: complete ? t.hash : `partial:${t.hash}` };
    if (!(await writeMirror(o, t, mirror, useFrontmatter(t), sidecar))) report.mirrorsDeferred.push(t.waymarkId);
    if (queuedIds.has(t.waymarkId)) outbox.done(t.waymarkId, clock.now());
    if ((i + 1) % 50 === 0) await sidecar.save();
  }
  await sidecar.save();
  // Tickets of removed artifacts: closed, one way, through the breaker like any change.
  for (let i = 0; i < orphans.length && !fatal && !report.outage; i++) {
    const x = orphans[i];
    const rest = () => orphans.slice(i).map((y) => ({ id: y.id, hash: 'close', reason: report.outage!.slice(0, 200) }));
    if (breaker.isOpen()) {
      report.outage = `the ${o.store.name} tracker is unavailable (breaker open${breaker.status().retryAt ? ` until ${breaker.status().retryAt}` : ''})`;
      outbox.queue(rest(), clock.now());
      break;
    }
    const note = `Closed by Waymark: \`${x.ref.source}\` was removed from the project.`;
    try {
      const ref = await breaker.call((signal) => o.store.close(x.ref, x.id, note, signal));
      report.closed.push(x.id);
      o.onProgress?.(`closed ${x.id} → ${refText(ref)} (${x.ref.source} removed)`);
    } catch (e) {
      const f = failureOf(e, breaker);
      if ('stop' in f) {
        fatal = f.stop;
        break;
      }
      if ('refused' in f) {
        report.failed.push({ id: x.id, message: f.refused });
        continue;
      }
      report.outage = `the ${o.store.name} tracker is unavailable: ${f.outage}`;
      outbox.queue(rest(), clock.now());
      break;
    }
  }
  await flushStore(o, report, outbox, pendingCommits.map((e) => e.id), byId, clock);
  outbox.compact();
  report.queued = outbox.pending().length;
  if (fatal) throw fatal;
  report.breaker = breaker.status();
  return report;
}

const COMMIT_PREFIX = 'commit:';

function isCommitEntry(hash: string): boolean {
  return hash.startsWith(COMMIT_PREFIX);
}

/**
 * Ends a run that sends: the store's commit (git) of this run's changes and of any left from a
 * run whose commit failed. A failed commit keeps every one of those changes queued in the outbox
 * (their mirrors already say synced, so nothing else would bring them back) and says so; the next
 * run commits them.
 */
async function flushStore(o: ProjectOptions, report: ProjectReport, outbox: Outbox, leftOver: string[], byId: Map<string, ProjectedTicket>, clock: Clock): Promise<void> {
  if (!o.store.flush) return;
  const sent = [...report.created, ...report.updated, ...report.closed];
  const message = sent.length
    ? `waymark project: ${report.created.length} created, ${report.updated.length} updated${report.closed.length ? `, ${report.closed.length} closed (artifact removed)` : ''}`
    : `waymark project: ${leftOver.length} change(s) left from an earlier run`;
  try {
    await o.store.flush(message);
  } catch (e) {
    const why = errorMessage(e);
    outbox.queue(sent.map((id) => ({ id, hash: `${COMMIT_PREFIX}${byId.get(id)?.hash ?? 'close'}`, reason: why.slice(0, 200) })), clock.now());
    const waiting = outbox.pending().filter((x) => isCommitEntry(x.hash)).length;
    report.failed.push({ id: '(commit)', message: `${why}; ${waiting} change(s) stay queued in ${path.relative(o.root, outbox.file).split(path.sep).join('/')} and the next waymark project commits them (fix the ticket repository first, e.g. remove a stale .git/index.lock).` });
    return;
  }
  // Committed: the left-over entries still waiting for a commit leave the outbox (one queued for
  // a send meanwhile keeps its place).
  const still = new Set(outbox.pending().filter((x) => isCommitEntry(x.hash)).map((x) => x.id));
  for (const id of leftOver) if (still.has(id)) outbox.done(id, clock.now());
}

/** The tracker's tickets, or why they could not be listed (then nothing is closed or re-created). */
async function listTickets(o: ProjectOptions, breaker: TrackerBreaker): Promise<{ listed?: Map<string, ListedTicket>; listError?: string; outage?: string }> {
  if (breaker.isOpen()) return { listError: 'breaker open' };
  try {
    // A dry run leaves the breaker's record alone, but not its time limit: a tracker that does not
    // answer is a listing error, never a hang.
    // Each page of the listing is one call through the breaker (its own time limit and retries).
    const call: TrackerCall = o.dryRun ? (fn) => fn(AbortSignal.timeout(o.breaker.timeoutMs)) : (fn) => breaker.call((signal) => fn(signal));
    return { listed: await o.store.list(call) };
  } catch (e) {
    if (o.dryRun) return { listError: errorMessage(e) };
    if (TicketError.is(e) && !e.retryable) throw new WaymarkError('usage', e.message, undefined, { status: e.status });
    if (!isOutage(e)) throw e;
    const why = breaker.describe(e);
    return { listError: why, outage: why };
  }
}

/**
 * Open tickets carrying a waymark-id no item has any more whose artifact is truly gone: the
 * `Projected by Waymark from` path, inside the folder, answers ENOENT (an unreadable file, one
 * mid-write, one the scan skipped, still exists: left alone). A scan with no item at all, or a
 * folder that is not there, closes nothing (it looks like a failed scan, not a deleted project).
 */
function findOrphans(root: string, listed: Map<string, ListedTicket>, byId: Map<string, ProjectedTicket>, items: number): { id: string; ref: ListedTicket; file: string }[] {
  if (items === 0 || !isDirectory(root)) return [];
  const out: { id: string; ref: ListedTicket; file: string }[] = [];
  for (const [id, ref] of listed) {
    if (byId.has(id) || ref.status === 'closed' || !ref.source) continue;
    const file = path.resolve(root, ...ref.source.split('/'));
    const rel = path.relative(root, file);
    if (!rel || /^\.\.(?:[\\/]|$)/.test(rel) || path.isAbsolute(rel)) continue;
    if (isGone(file)) out.push({ id, ref, file });
  }
  return out;
}

function isGone(file: string): boolean {
  try {
    fs.lstatSync(file);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function isOwnBlock(v: unknown): boolean {
  return !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as Record<string, unknown>).syncedHash === 'string' && typeof (v as Record<string, unknown>).store === 'string';
}

/** Writes one mirror; false when it was left out (see `deferMirror`). */
async function writeMirror(o: ProjectOptions, t: ProjectedTicket, m: TrackerMirror, frontmatter: boolean, sidecar: SidecarMirrors): Promise<boolean> {
  if (frontmatter && t.file) {
    if (o.deferMirror?.(t.file)) return false;
    try {
      await o.core.writeNonStateKey(t.file, 'tracker', mirrorBlock(m), { expectStateHash: t.stateHash });
      return true;
    } catch (e) {
      // The state moved under us (an agent wrote): the ticket is found again by its id next run.
      o.onProgress?.(`mirror of ${t.waymarkId} not written to ${t.file}: ${errorMessage(e)}`);
      return false;
    }
  }
  sidecar.set(t.waymarkId, m);
  return true;
}

/** How many changes wait in a store's outbox (for `waymark status`). */
export function outboxLength(root: string, store: string): number {
  try {
    return fs.existsSync(new Outbox(root, store).file) ? new Outbox(root, store).pending().length : 0;
  } catch {
    return 0;
  }
}

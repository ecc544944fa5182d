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
import { errorMessage } from '../errors';
import { buildRegistry } from '../project/registry';
import type { SprintReport } from '../bmad/sprint';
import { splitFrontmatter } from '../model/frontmatter';
import { acquireFileLock } from '../store/fileLock';
import { readRegularFileSync } from '../store/safeRead';
import { TrackerBreaker, isOutage, type BreakerSettings, type BreakerStatus } from './breaker';
import { Outbox } from './outbox';
import { SidecarMirrors, mirrorBlock, mirrorFromFrontmatter, type TrackerMirror } from './mirror';
import { projectTickets, renderBody, type ProjectedTicket } from './projection';
import { TicketError, type TicketDraft, type TicketRef, type TicketStore } from './port';

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
  /** Test hook: after this many creates, before their mirror is written, wait forever (to be killed). */
  pauseAfterCreates?: number;
}

export interface PlannedChange {
  id: string;
  action: 'create' | 'update';
  title: string;
  file?: string;
  /** The tracker's id when known. */
  ticket?: string;
  why: 'new' | 'changed' | 'queued' | 'links';
}

export interface ProjectReport {
  store: string;
  root: string;
  dryRun: boolean;
  planned: PlannedChange[];
  unchanged: number;
  created: string[];
  updated: string[];
  /** Tickets found by their id line instead of being created again. */
  reconciled: string[];
  /** The tracker refused these (validation): not queued, fix the file. */
  failed: { id: string; message: string }[];
  /** Changes waiting in the outbox after the run. */
  queued: number;
  /** Why the run stopped sending (breaker open, outage), when it did. */
  outage?: string;
  breaker: BreakerStatus;
}

/** The tickets of one workspace folder, from the project registry (core/project). */
export async function projectFolder(core: StateCore, root: string): Promise<ProjectedTicket[]> {
  const scan = await core.scan();
  const ctx = await core.contextFor(path.join(root, '.waymark-probe'));
  const sprint: SprintReport | undefined = core.sprint.load(root, { installDir: ctx.config.bmad.dir, outputDir: ctx.config.bmad.output });
  const workflows = scan.workflows.filter((w) => w.root === root);
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

/** Plans and (unless dry-run) sends one folder's changes to one store. */
export async function runProjection(o: ProjectOptions): Promise<ProjectReport> {
  const clock = o.clock ?? systemClock;
  const tickets = await projectFolder(o.core, o.root);
  const outbox = new Outbox(o.root, o.store.name);
  const sidecar = new SidecarMirrors(o.root, o.store.name);
  const useFrontmatter = (t: ProjectedTicket) => o.isDefault && t.hasFrontmatter && t.kind !== 'epic';
  const mirrorOf = (t: ProjectedTicket): TrackerMirror | undefined =>
    useFrontmatter(t) && t.file ? mirrorFromFrontmatter(o.core.get(t.file)?.data, o.store.name) ?? sidecar.get(t.waymarkId) : sidecar.get(t.waymarkId);

  const byId = new Map(tickets.map((t) => [t.waymarkId, t]));
  const mirrors = new Map<string, TrackerMirror | undefined>(tickets.map((t) => [t.waymarkId, mirrorOf(t)]));
  const changed = (t: ProjectedTicket) => mirrors.get(t.waymarkId)?.syncedHash !== t.hash;
  const pending = outbox.pending();
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
    return { id: t.waymarkId, action: m ? 'update' : 'create', title: t.title, file: t.file, ticket: m?.id, why: queuedIds.has(t.waymarkId) ? 'queued' : !m ? 'new' : m.syncedHash.startsWith('partial:') ? 'links' : 'changed' };
  });

  const breaker = new TrackerBreaker(o.root, o.store.name, o.breaker, clock);
  const report: ProjectReport = {
    store: o.store.name, root: o.root, dryRun: !!o.dryRun, planned, unchanged: tickets.length - order.length,
    created: [], updated: [], reconciled: [], failed: [], queued: pending.length, breaker: breaker.status(),
  };
  if (o.dryRun) return report;

  const lock = await acquireFileLock(outbox.file, { root: o.root, purpose: `waymark project (${o.store.name})`, waitMs: 2000 });
  let creates = 0;
  try {
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
        if (TicketError.is(e) && !e.retryable) {
          report.failed.push({ id: t.waymarkId, message: e.message });
          continue;
        }
        if (!isOutage(e)) throw e;
        const why = breaker.describe(e);
        report.outage = `the ${o.store.name} tracker is unavailable: ${why}`;
        outbox.queue(order.slice(i).map((x) => ({ id: x.waymarkId, hash: x.hash, reason: why.slice(0, 200) })), clock.now());
        break;
      }
      refs.set(t.waymarkId, ref);
      const mirror: TrackerMirror = { store: o.store.name, id: ref.id, url: ref.url, status: ref.status, syncedHash: complete ? t.hash : `partial:${t.hash}` };
      await writeMirror(o, t, mirror, useFrontmatter(t), sidecar);
      if (queuedIds.has(t.waymarkId)) outbox.done(t.waymarkId, clock.now());
      if ((i + 1) % 50 === 0) sidecar.save();
    }
    sidecar.save();
    if (report.created.length + report.updated.length) {
      try {
        await o.store.flush?.(`waymark project: ${report.created.length} created, ${report.updated.length} updated`);
      } catch (e) {
        report.failed.push({ id: '(commit)', message: errorMessage(e) });
      }
    }
    outbox.compact();
    report.queued = outbox.pending().length;
  } finally {
    lock.release();
  }
  report.breaker = breaker.status();
  return report;
}

async function writeMirror(o: ProjectOptions, t: ProjectedTicket, m: TrackerMirror, frontmatter: boolean, sidecar: SidecarMirrors): Promise<void> {
  if (frontmatter && t.file) {
    try {
      await o.core.writeNonStateKey(t.file, 'tracker', mirrorBlock(m), { expectStateHash: t.stateHash });
      return;
    } catch (e) {
      // The state moved under us (an agent wrote): the ticket is found again by its id next run.
      o.onProgress?.(`mirror of ${t.waymarkId} not written to ${t.file}: ${errorMessage(e)}`);
      return;
    }
  }
  sidecar.set(t.waymarkId, m);
}

/** How many changes wait in a store's outbox (for `waymark status`). */
export function outboxLength(root: string, store: string): number {
  try {
    return fs.existsSync(new Outbox(root, store).file) ? new Outbox(root, store).pending().length : 0;
  } catch {
    return 0;
  }
}

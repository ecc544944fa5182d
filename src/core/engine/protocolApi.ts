import * as fs from 'node:fs';
import type { Actor, ProtocolApi, StateCoreInit } from '../api';
import type { WriteGuard } from '../writeHooks';
import type { Clock, Logger } from '../ports';
import { resume, resumeRoot, sync } from '../protocol/resume';
import { createCheckpoint, listCheckpoints, restoreCheckpoint, showCheckpoint } from '../protocol/checkpoints';
import { coordinationPaths } from '../protocol/paths';
import { acquireLease, breakStaleLeases, leaseStatus, listLeases, releaseLease, takeoverLease, type LeaseOptions } from '../protocol/leases';
import { endMode, showModes, startMode } from '../protocol/modes';
import { followEvents, readEvents } from '../protocol/events';
import { historyOf, recordInHistory } from '../protocol/timeline';
import type { ContextCache } from './contextCache';

/** The protocol bound to one core: its clock, logger, guards, contexts and default actor. */
export function createProtocolApi(init: StateCoreInit, deps: { clock: Clock; logger: Logger; contexts: ContextCache; guards: WriteGuard[] }): ProtocolApi {
  const { clock, logger, contexts, guards } = deps;
  const who = (a?: Actor) => ({ actor: a?.actor ?? init.actor, session: a?.session ?? init.session });
  // Session markers and take-overs go to the workflow's history too, whichever face asked.
  const leaseOptions = (): LeaseOptions => ({
    clock,
    logger,
    onRecord: async (root, file, op, o, detail) => {
      if (file && fs.existsSync(file)) await recordInHistory(root, file, op, o, detail, { clock, logger, contexts });
    },
  });
  return {
    resume: (root, file, options) => resume(root, file, { clock, logger, contexts, ...(options?.expire !== undefined ? { expire: options.expire } : {}) }),
    resumeRoot: (root) => resumeRoot(root, { clock, logger, contexts }),
    sync: (root, a) => sync(root, { clock, logger, contexts, guards, force: a?.force, ...who(a) }),
    history: (root, file) => historyOf(root, file, { contexts }),

    createCheckpoint: (root, options) => createCheckpoint(root, { clock, logger, contexts, ...options, ...who(options) }),
    listCheckpoints: (root) => listCheckpoints(root),
    showCheckpoint: (root, id) => showCheckpoint(root, id),
    restoreCheckpoint: (root, id, options) => restoreCheckpoint(root, id, { clock, logger, contexts, guards, ...options, ...who(options) }),

    acquireLease: (root, file, owner, options) => acquireLease(root, file, owner, { ...leaseOptions(), ...options }),
    releaseLease: (root, file, owner, options) => releaseLease(root, file, owner, { ...leaseOptions(), ...options }),
    takeoverLease: (root, file, owner, options) => takeoverLease(root, file, owner, { ...leaseOptions(), ...options }),
    listLeases: (root) => listLeases(root, clock),
    leaseFolders: (root) => {
      const c = coordinationPaths(root);
      return c.legacyLeases ? [c.leases, c.legacyLeases] : [c.leases];
    },
    leaseStatus: (lease) => leaseStatus(lease, clock),
    breakStaleLeases: (root) => breakStaleLeases(root, { clock, logger }),

    startMode: (root, mode, owner, options) => startMode(root, mode, owner, { clock, ...options }),
    endMode: (root, mode, owner, options) => endMode(root, mode, owner, { clock, ...options }),
    showModes: (root) => showModes(root, clock),

    readEvents: (root, since, options) => readEvents(root, since, options),
    followEvents: (root, since, options) => followEvents(root, since, options),
  };
}

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CliCommand, CliContext } from './framework';
import { flagString, requirePositional, wholeNumberFlag } from './framework';
import { WaymarkError, ioError, buildTimeline, formatTimeline, stateAt, parseAt, describeOwner, parseTtl, relPath, historySnapshot } from '../core/index';
import type { ResumeReport, LeaseOwner, StateCore } from '../core/index';
import { rootArg, withCore } from './cliCore';

const IDENTITY_HELP = `Identity (who holds a lease or mode, who is recorded):
  --actor NAME     agent name (default $WAYMARK_ACTOR, else cli:<user>)
  --session S      session id (default $WAYMARK_SESSION); a lease's holder is its session, else its agent
  --pid N          process whose death makes the lease stale (default none: only the expiry bounds it)`;

/** Who is acting: read by owner(). */
const IDENTITY_OPTIONS = ['actor', 'session', 'pid'];

const ROOT_HELP = `  --root DIR       workspace folder (default: the nearest folder above holding .waymark, _bmad or .git)
  --json           print JSON`;

const EXIT_HELP = 'Exit codes: 0 ok; 2 usage or unreadable input; 3 conflict or held lease/mode.';

function owner(ctx: CliContext): LeaseOwner {
  // (A process id: Linux allows up to 2^22, other systems up to 2^31 - 1.)
  const pid = wholeNumberFlag(ctx.args, 'pid', { max: 2_147_483_647 });
  let user = 'user';
  try {
    user = os.userInfo().username;
  } catch {
    // no passwd entry (containers): keep the generic name
  }
  return {
    agent: flagString(ctx.args, 'actor') ?? process.env.WAYMARK_ACTOR ?? `cli:${user}`,
    session: flagString(ctx.args, 'session') ?? process.env.WAYMARK_SESSION,
    ...(pid ? { pid } : {}),
    host: os.hostname(),
  };
}

function ttlMs(ctx: CliContext): number | undefined {
  const raw = flagString(ctx.args, 'ttl');
  if (raw === undefined) return undefined;
  const v = parseTtl(raw);
  if (v === undefined) throw new WaymarkError('usage', `--ttl '${raw}' is not a duration of up to 100 years (e.g. 90s, 30m, 2h, 1d).`);
  return v;
}

function print(ctx: CliContext, json: unknown, text: string): void {
  if (ctx.json) ctx.stdout(JSON.stringify(json, null, 2) + '\n');
  else ctx.stdout(text.endsWith('\n') || !text ? text : text + '\n');
}

function fileTarget(ctx: CliContext, raw: string | undefined): string | undefined {
  return raw === undefined ? undefined : path.resolve(ctx.cwd, raw);
}

function describeReport(r: ResumeReport): string {
  const lines = [`${r.relFile}: ${r.step ? `continue at ${r.step}` : r.done ? 'nothing left to do' : 'no next step known'}  (tier ${r.tier}: ${r.source}; degradation ${r.degradation})`];
  lines.push(`  why: ${r.reason}`);
  if (r.stepFile) lines.push(`  step file: ${r.stepFile}`);
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  for (const u of r.unavailable) if (r.degradation !== 'full') lines.push(`  tier ${u.tier} (${u.source}) unavailable: ${u.why}`);
  return lines.join('\n');
}

const resumeCmd: ProtocolVerb = {
  name: 'resume',
  options: ['root'],
  usage: 'resume [FILE|ROOT]',
  summary: 'Where to continue, from frontmatter (tier 1), checkpoints (tier 2) or orchestrator state (tier 3).',
  help: `Asks every source. Progress decides first (completed steps as a set, then the status): a
source behind another never answers, whatever its time; the frontmatter answers ties and
disagreements in content (reported as warnings naming both). Sources behind are listed as stale
(waymark sync moves them forward); a stale source newer than the answer, or over 5 minutes
apart, is a warning. Degradation: full (3 sources), standard (2),
minimal (1), none. Without FILE: every workflow of the root, after expiring an orchestrator
state whose ttl has passed.
Options:
${ROOT_HELP}
${EXIT_HELP}`,
  async run(ctx, core) {
    const target = ctx.args.positionals[0];
    const root = rootArg(ctx, target);
    const abs = target ? path.resolve(ctx.cwd, target) : undefined;
    if (abs && !(fs.existsSync(abs) && fs.statSync(abs).isDirectory())) {
      const r = await core.protocol.resume(root, abs);
      print(ctx, r, describeReport(r));
      // Nothing answered and the target is missing or not a regular file (a FIFO, a device): unreadable input,
      // said on stderr too, as every exit 2 is (the report above may have gone to a pipe).
      if (r.degradation === 'none' && !(fs.existsSync(abs) && fs.statSync(abs).isFile())) {
        ctx.stderr(`waymark resume: ${target} ${fs.existsSync(abs) ? 'is not a regular file' : 'does not exist'}; give a workflow file or a folder (waymark status lists the workflow files).\n`);
        return 2;
      }
      return 0;
    }
    const rr = await core.protocol.resumeRoot(root);
    const head: string[] = [];
    if (rr.orchestrator) {
      const o = rr.orchestrator;
      head.push(`orchestrator: ${o.cleared ? 'cleared' : `${o.type ?? '?'} phase ${o.phase ?? '?'} session ${o.session ?? '?'} (updated ${o.lastUpdated ?? '?'})`}${o.activeWorkflow ? `, active ${o.activeWorkflow}` : ''}`);
    }
    for (const w of rr.warnings) head.push(`warning: ${w}`);
    head.push(`degradation: ${rr.degradation}`);
    print(ctx, rr, [...head, ...rr.workflows.map(describeReport)].join('\n') || 'No workflows found.');
    return 0;
  },
};

const historyCmd: ProtocolVerb = {
  name: 'history',
  options: ['at', 'root'],
  usage: 'history FILE [--at TIME|SEQ]',
  summary: "A workflow's history as a timeline grouped by session; --at shows the state as it was.",
  help: `Options:
  --at T|SEQ       the state as of a history sequence number or a date/time
${ROOT_HELP}
Exit codes: 0 history shown; 1 no history (yet, or at that point); 2 usage or unreadable input.`,
  async run(ctx, core) {
    const raw = requirePositional(ctx.args, 0, 'FILE (the workflow file)');
    const file = path.resolve(ctx.cwd, raw);
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) throw new WaymarkError('usage', `${raw} is a folder; history is kept per workflow file: give one (waymark status ${raw} lists them).`, file);
    const root = rootArg(ctx, raw);
    const h = await core.protocol.history(root, file);
    const at = flagString(ctx.args, 'at');
    const warn = h.badLines.length ? `warning: ${h.historyFile} has unreadable lines ${h.badLines.join(', ')} (skipped; a torn last line is repaired on the next write)\n` : '';
    if (warn) ctx.stderr(warn);
    if (at !== undefined) {
      // The whole state as it was: today's fields with every later change undone.
      const now = await core.readWorkflow(file).catch(() => undefined);
      const s = stateAt(h.entries, parseAt(at), now?.state ? historySnapshot(now.state) : undefined);
      const text = s.count === 0 ? `${relPath(root, file)}: no history at or before ${at}.` : `${relPath(root, file)} as of #${s.entry?.seq} (${s.entry?.time}, ${s.entry?.actor ?? '?'} ${s.entry?.operation}):\n${Object.entries(s.state).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`).join('\n')}\n  stateHash: ${s.hash ?? '?'}`;
      print(ctx, { file, at, ...s }, text);
      return s.count === 0 ? 1 : 0;
    }
    const tl = buildTimeline(h.entries);
    print(ctx, { file, historyFile: h.historyFile, sessions: tl, badLines: h.badLines }, tl.length ? formatTimeline(tl) : `${relPath(root, file)}: no history yet.`);
    return tl.length ? 0 : 1;
  },
};

const checkpointCreate: ProtocolVerb = {
  name: 'checkpoint create',
  options: ['message', 'keep', 'root', ...IDENTITY_OPTIONS],
  usage: 'checkpoint create [--message M] [--git [--keep N]]',
  summary: 'Snapshot every workflow state to .waymark/checkpoints/<id>.json (optionally a git ref too).',
  booleanFlags: ['git'],
  help: `Options:
  --message M      note stored with the checkpoint
  --git            also commit Waymark's state files to refs/waymark/checkpoints/<id>
                   (a temporary index: your branch, index, staged and unstaged work are untouched)
  --keep N         git checkpoint refs to keep (default 10)
${IDENTITY_HELP}
${ROOT_HELP}
${EXIT_HELP}`,
  async run(ctx, core) {
    const root = rootArg(ctx);
    const keep = wholeNumberFlag(ctx.args, 'keep', { min: 1, max: 10_000 }) ?? 10;
    const o = owner(ctx);
    const cp = await core.protocol.createCheckpoint(root, { message: flagString(ctx.args, 'message'), git: ctx.args.flags.git === true, gitKeep: keep, actor: o.agent, session: o.session });
    print(ctx, cp, `checkpoint ${cp.id}: ${cp.workflows.length} workflow(s)${cp.git ? `, git ${cp.git.ref} (${cp.git.commit.slice(0, 12)})` : ''}${cp.unreadable?.length ? `\nwarning: not captured (unreadable): ${cp.unreadable.map((u) => u.file).join(', ')}` : ''}`);
    return 0;
  },
};

const checkpointList: ProtocolVerb = {
  name: 'checkpoint list',
  options: ['root'],
  usage: 'checkpoint list',
  summary: 'Checkpoints, newest first.',
  help: `Options:\n${ROOT_HELP}\n${EXIT_HELP}`,
  async run(ctx, core) {
    const root = rootArg(ctx);
    const list = core.protocol.listCheckpoints(root);
    print(
      ctx,
      { checkpoints: list.map((c) => ({ id: c.id, createdAt: c.createdAt, message: c.message, workflows: c.workflows.length, git: c.git?.ref })) },
      list.length ? list.map((c) => `${c.id}  ${c.createdAt}  ${c.workflows.length} workflow(s)${c.git ? '  [git]' : ''}${c.message ? `  ${c.message}` : ''}`).join('\n') : 'No checkpoints.',
    );
    return 0;
  },
};

const checkpointShow: ProtocolVerb = {
  name: 'checkpoint show',
  options: ['root'],
  usage: 'checkpoint show ID',
  summary: "One checkpoint's workflows and where each stood.",
  help: `Options:\n${ROOT_HELP}\n${EXIT_HELP}`,
  async run(ctx, core) {
    const root = rootArg(ctx);
    const cp = core.protocol.showCheckpoint(root, requirePositional(ctx.args, 0, 'ID (see waymark checkpoint list)'));
    const lines = [`checkpoint ${cp.id}  ${cp.createdAt}${cp.message ? `  ${cp.message}` : ''}${cp.actor ? `  by ${cp.actor}` : ''}`];
    if (cp.git) lines.push(`git: ${cp.git.ref} ${cp.git.commit}`);
    for (const w of cp.workflows) lines.push(`  ${w.file}: ${w.rawStatus ?? w.status ?? '?'}, ${w.stepsCompleted.length}/${w.stepsTotal} done, next ${w.resumeStep ?? w.nextStep ?? '-'}  state ${w.stateHash.slice(0, 12)}`);
    print(ctx, cp, lines.join('\n'));
    return 0;
  },
};

const checkpointRestore: ProtocolVerb = {
  name: 'checkpoint restore',
  options: ['file', 'root', ...IDENTITY_OPTIONS],
  usage: 'checkpoint restore ID [--force] [--dry-run] [--file F]',
  summary: 'Put the workflow state back as the checkpoint had it (state keys only, never the body or source code).',
  booleanFlags: ['dry-run', 'force'],
  help: `Refuses (exit 3, nothing changed) when a file's body changed since the checkpoint, and (exit 4)
when the restore would move work backwards (un-complete a step, re-open a completed workflow,
move any status back), unless --force; a forced rewind is recorded in history.
Each restore is written under the file lock, checked against leases, and recorded in history.
Every file is checked before the first is written: a file whose frontmatter cannot be read
(exit 1, even with --force) or that is read-only (chmod 0444; exit 2) refuses the whole restore.
Options:
  --force          restore even when files changed since (their body is kept) or it rewinds work
  --dry-run        only say what would change
  --file F         restore only this file (repeatable)
${IDENTITY_HELP}
${ROOT_HELP}
Exit codes: 0 ok; 1 a file's frontmatter cannot be read; 2 usage, unreadable input or a read-only file; 3 conflict (body changed) or held lease; 4 it would rewind work.`,
  async run(ctx, core) {
    const root = rootArg(ctx);
    const id = requirePositional(ctx.args, 0, 'ID (see waymark checkpoint list)');
    const f = ctx.args.flags.file;
    const only = f === undefined ? undefined : (Array.isArray(f) ? f : [String(f)]).map((x) => path.resolve(ctx.cwd, x));
    const o = owner(ctx);
    const r = await core.protocol.restoreCheckpoint(root, id, { force: ctx.args.flags.force === true, dryRun: ctx.args.flags['dry-run'] === true, only, actor: o.agent, session: o.session });
    const lines = r.items.map((i) => `  ${i.file}: ${i.action === 'restore' ? (ctx.args.flags['dry-run'] ? 'would restore' : 'restored') : i.action}${i.detail ? ` (${i.detail})` : ''}`);
    print(ctx, r, `checkpoint ${id}: ${r.restored.length} file(s) restored\n${lines.join('\n')}`);
    return 0;
  },
};

function leaseTarget(ctx: CliContext): { root: string; file?: string } {
  const raw = ctx.args.positionals[0];
  const root = rootArg(ctx, raw);
  if (raw === undefined) return { root };
  const file = fileTarget(ctx, raw)!;
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) return { root: file };
  return { root, file };
}

const LEASE_HELP = `Without FILE the lease covers the whole workspace. Leases expire (default 1 h, --ttl);
a lease whose --pid is dead, or past its expiry, is stale and is broken by the next acquire.
While a lease is live, writes by others are refused with "locked by <owner> since <time>".
Options:
  --ttl DURATION   lease length (90s, 30m, 2h)
${IDENTITY_HELP}
${ROOT_HELP}
${EXIT_HELP}`;

const leaseAcquire: ProtocolVerb = {
  name: 'lease acquire',
  options: ['ttl', 'root', ...IDENTITY_OPTIONS],
  usage: 'lease acquire [FILE] [--ttl D] [--actor A --session S --pid N]',
  summary: 'Take the lease on a workflow file (or the whole workspace).',
  help: LEASE_HELP,
  async run(ctx, core) {
    const t = leaseTarget(ctx);
    const r = await core.protocol.acquireLease(t.root, t.file, owner(ctx), { ttlMs: ttlMs(ctx) });
    print(ctx, r, `${r.outcome}: ${r.lease.target} held by ${describeOwner(r.lease.owner)} until ${r.lease.expiresAt}${r.broken ? ` (broke a stale lease of ${describeOwner(r.broken.lease.owner)}: ${r.broken.staleReason})` : ''}`);
    return 0;
  },
};

const leaseRelease: ProtocolVerb = {
  name: 'lease release',
  booleanFlags: ['force'],
  options: ['root', ...IDENTITY_OPTIONS],
  usage: 'lease release [FILE] [--force]',
  summary: 'Release our lease (--force: anyone\'s).',
  help: LEASE_HELP,
  async run(ctx, core) {
    const t = leaseTarget(ctx);
    const r = await core.protocol.releaseLease(t.root, t.file, owner(ctx), { force: ctx.args.flags.force === true });
    print(ctx, r, r.released ? `released ${r.lease?.target ?? ''}` : 'no lease held');
    return 0;
  },
};

const leaseTakeover: ProtocolVerb = {
  name: 'lease takeover',
  options: ['ttl', 'reason', 'root', ...IDENTITY_OPTIONS],
  usage: 'lease takeover [FILE] [--reason R]',
  summary: 'Take the lease from its holder explicitly (recorded in history and events).',
  help: LEASE_HELP,
  async run(ctx, core) {
    const t = leaseTarget(ctx);
    const r = await core.protocol.takeoverLease(t.root, t.file, owner(ctx), { ttlMs: ttlMs(ctx), reason: flagString(ctx.args, 'reason') });
    print(ctx, r, `took over ${r.lease.target}${r.previous ? ` from ${describeOwner(r.previous.owner)} (held since ${r.previous.acquiredAt})` : ' (it was free)'}`);
    return 0;
  },
};

const leaseShow: ProtocolVerb = {
  name: 'lease show',
  options: ['root'],
  usage: 'lease show [FILE] [--break-stale]',
  summary: 'Who holds which lease (stale ones marked); --break-stale removes the stale ones.',
  booleanFlags: ['break-stale'],
  help: LEASE_HELP,
  async run(ctx, core) {
    const t = leaseTarget(ctx);
    const broken = ctx.args.flags['break-stale'] === true ? core.protocol.breakStaleLeases(t.root) : [];
    let list = core.protocol.listLeases(t.root);
    if (t.file) {
      const rel = relPath(t.root, t.file);
      list = list.filter((s) => s.lease.key === 'root' || s.lease.target === rel);
    }
    const lines = list.map((s) => `${s.lease.target}  ${describeOwner(s.lease.owner)}  since ${s.lease.acquiredAt}  until ${s.lease.expiresAt}${s.remote ? '  REMOTE (another machine: ends by expiry or takeover only)' : ''}${s.stale ? `  STALE (${s.staleReason})` : ''}${s.lease.takenOverFrom ? `  (taken over from ${s.lease.takenOverFrom.agent})` : ''}`);
    for (const b of broken) lines.unshift(`broke stale lease ${b.lease.target} of ${describeOwner(b.lease.owner)} (${b.staleReason})`);
    print(ctx, { leases: list, broken }, lines.length ? lines.join('\n') : 'No leases.');
    return 0;
  },
};

const modeStart: ProtocolVerb = {
  name: 'mode start',
  options: ['ttl', 'root', ...IDENTITY_OPTIONS],
  usage: 'mode start NAME [--shared] [--ttl D]',
  summary: 'Enter a mode (e.g. planning, executing); exclusive modes refuse any other active mode.',
  booleanFlags: ['shared'],
  help: `Options:
  --shared         may run beside other shared modes (still refused while an exclusive one is active)
  --ttl DURATION   how long the mode lasts without renewal (default 1h)
${IDENTITY_HELP}
${ROOT_HELP}
${EXIT_HELP}`,
  async run(ctx, core) {
    const root = rootArg(ctx);
    const m = core.protocol.startMode(root, requirePositional(ctx.args, 0, 'NAME (e.g. planning)'), owner(ctx), { exclusive: ctx.args.flags.shared !== true, ttlMs: ttlMs(ctx) });
    print(ctx, m, `mode ${m.mode}${m.exclusive ? ' (exclusive)' : ''} held by ${describeOwner(m.owner)} until ${m.expiresAt}`);
    return 0;
  },
};

const modeEnd: ProtocolVerb = {
  name: 'mode end',
  booleanFlags: ['force'],
  options: ['root', ...IDENTITY_OPTIONS],
  usage: 'mode end NAME [--force]',
  summary: 'Leave a mode.',
  help: `Options:\n  --force          end it whoever holds it\n${IDENTITY_HELP}\n${ROOT_HELP}\n${EXIT_HELP}`,
  async run(ctx, core) {
    const root = rootArg(ctx);
    const name = requirePositional(ctx.args, 0, 'NAME');
    const r = core.protocol.endMode(root, name, owner(ctx), { force: ctx.args.flags.force === true });
    print(ctx, { ended: r }, r.length ? `ended ${name}` : `mode ${name} was not active`);
    return 0;
  },
};

const modeShow: ProtocolVerb = {
  name: 'mode show',
  options: ['root'],
  usage: 'mode show',
  summary: 'Active modes and who holds them.',
  help: `Options:\n${ROOT_HELP}\n${EXIT_HELP}`,
  async run(ctx, core) {
    const root = rootArg(ctx);
    const list = core.protocol.showModes(root);
    print(ctx, { modes: list }, list.length ? list.map((m) => `${m.mode}${m.exclusive ? ' (exclusive)' : ''}  ${describeOwner(m.owner)}  since ${m.startedAt}  until ${m.expiresAt}`).join('\n') : 'No active mode.');
    return 0;
  },
};

const eventsCmd: ProtocolVerb = {
  name: 'events',
  booleanFlags: ['follow'],
  options: ['since', 'limit', 'root'],
  usage: 'events [--since N] [--follow] [--limit N]',
  summary: 'The events log (JSONL, one event per line with a growing seq); --follow keeps printing new ones.',
  help: `Prints events with seq > N as JSON lines (with or without --json). Follow with the last seq
you saw: nothing is lost or repeated across rotations.
Options:
  --since N        start after this seq (default 0)
  --follow         keep printing new events until interrupted
  --limit N        stop after N events
${ROOT_HELP}
${EXIT_HELP}`,
  async run(ctx, core) {
    const root = rootArg(ctx);
    const since = wholeNumberFlag(ctx.args, 'since', { max: Number.MAX_SAFE_INTEGER }) ?? 0;
    const limit = wholeNumberFlag(ctx.args, 'limit', { min: 1, max: Number.MAX_SAFE_INTEGER }) ?? Infinity;
    let n = 0;
    if (ctx.args.flags.follow !== true) {
      const r = core.protocol.readEvents(root, since, { limit });
      for (const w of r.warnings) ctx.stderr(`warning: ${w}\n`);
      for (const e of r.events) ctx.stdout(JSON.stringify(e) + '\n');
      return 0;
    }
    const ac = new AbortController();
    const stop = () => ac.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // The reader went away (`events --follow | head -3`): stop following, quietly.
    ctx.outputClosed?.addEventListener('abort', stop, { once: true });
    try {
      for await (const e of core.protocol.followEvents(root, since, { signal: ac.signal })) {
        ctx.stdout(JSON.stringify(e) + '\n');
        if (++n >= limit) ac.abort();
      }
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      ctx.outputClosed?.removeEventListener('abort', stop);
    }
    return 0;
  },
};

const syncCmd: ProtocolVerb = {
  name: 'sync',
  booleanFlags: ['force'],
  options: ['root', ...IDENTITY_OPTIONS],
  usage: 'sync [ROOT]',
  summary: 'Move stale resume sources (checkpoints, orchestrator state, frontmatter) forward to the one furthest ahead in progress; never back.',
  help: `Only ever moves a source forward, to the one furthest ahead in progress (completed steps,
then status; time only breaks ties). A checkpoint behind the frontmatter gets a fresh
checkpoint; an orchestrator entry behind gets updated; frontmatter behind a checkpoint is
restored from it (state keys only; refused when the body changed). An orchestrator ahead of the
frontmatter is reported for you to replay. Sources that disagree in content (neither has every
step the other completed) are reported and left alone. Nothing is ever rewound.
Options:
  --force          restore frontmatter from a checkpoint ahead of it even when the body changed
                   since (recorded in history); never a rewind
${IDENTITY_HELP}
${ROOT_HELP}
${EXIT_HELP}`,
  async run(ctx, core) {
    const root = rootArg(ctx, ctx.args.positionals[0]);
    const o = owner(ctx);
    const r = await core.protocol.sync(root, { actor: o.agent, session: o.session, force: ctx.args.flags.force === true });
    const lines = r.actions.map((a) => `${a.action}: ${a.file}: ${a.detail}`);
    print(ctx, { actions: r.actions, degradation: r.after.degradation, stillStale: r.after.workflows.filter((w) => w.stale.length).map((w) => w.relFile) }, lines.length ? lines.join('\n') : 'Everything is in line.');
    return 0;
  },
};

/** A protocol verb: it gets the one core (closed when it returns) besides its context. */
interface ProtocolVerb extends Omit<CliCommand, 'run'> {
  run(ctx: CliContext, core: StateCore): Promise<number>;
}

/**
 * Builds the verb's core and closes it after; file-system failures (read-only folder, disk
 * full, a folder where a file belongs) become one clear io error.
 */
function verb(cmd: ProtocolVerb): CliCommand {
  return {
    ...cmd,
    async run(ctx) {
      try {
        return await withCore(ctx, rootArg(ctx), (core) => cmd.run(ctx, core));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException)?.code;
        if (!WaymarkError.is(e) && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
          throw ioError(e, (e as NodeJS.ErrnoException).path ?? ctx.cwd, 'use');
        }
        throw e;
      }
    },
  };
}

export const protocolCommands: CliCommand[] = [
  resumeCmd,
  historyCmd,
  checkpointCreate,
  checkpointList,
  checkpointShow,
  checkpointRestore,
  leaseAcquire,
  leaseRelease,
  leaseShow,
  leaseTakeover,
  modeStart,
  modeEnd,
  modeShow,
  eventsCmd,
  syncCmd,
].map(verb);

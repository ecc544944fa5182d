import * as path from 'node:path';
import type { ResumePoint, Status } from '../types';
import type { Clock, Logger } from '../ports';
import { systemClock, silentLogger } from '../ports';
import type { WriteGuard } from '../writeHooks';
import { frontmatterResume } from '../model/resume';
import { compareProgress, impliedDone, toStatus, type Progress } from '../model/progress';
import { relPath, protocolPaths } from './paths';
import { contextFor, listWorkflowFiles, readWorkflowFile, type FileRead } from './states';
import type { ContextSource } from '../engine/contextCache';
import { latestCheckpointFor, createCheckpoint, restoreCheckpoint, checkpointIds, showCheckpoint, type Checkpoint } from './checkpoints';
import { readOrchestrator, expireOrchestratorIfDue, recordOrchestratorWorkflow, type OrchestratorRead, type ExpiryResult } from './orchestrator';
import { appendEvent } from './events';
import { errorMessage } from '../errors';

export type Degradation = 'full' | 'standard' | 'minimal' | 'none';

/** What one source says about where to continue. */
export interface TierAnswer {
  tier: 1 | 2 | 3;
  /** `frontmatter`, `checkpoint <id>`, `workflow-state.json`, `session_state.md`. */
  source: string;
  step?: string;
  /** True when this source says the workflow is done. */
  done?: boolean;
  status?: string;
  /** When this source was written (ISO). */
  time?: string;
  reason: string;
  /** Completed steps as this source records them (or as its "continue at" implies). */
  stepsCompleted?: string[];
  /** The status as a Waymark status, for comparing progress. */
  progressStatus?: Status;
}

/** A resume answer with the tier that gave it, every source consulted, and the degradation level. */
export interface ResumeReport extends ResumePoint {
  /** `file` relative to the root. */
  relFile: string;
  /** True when the answering source says every step is done. */
  done: boolean;
  degradation: Degradation;
  /** The source that answered. */
  source: string;
  sources: TierAnswer[];
  /** Sources that could not answer, and why. */
  unavailable: { tier: 1 | 2 | 3; source: string; why: string }[];
  /** Sources behind the answer, or at its progress with another step (a `waymark sync` moves them forward). */
  stale: TierAnswer[];
  /** Sources whose completed steps disagree with the answer's (neither has all the other's): a warning, never synced. */
  diverged: TierAnswer[];
}

export interface ResumeOptions {
  clock?: Clock;
  logger?: Logger;
  /** Disagreement beyond this is a warning (ms). Default 5 minutes. */
  warnAfterMs?: number;
  /** Run TTL expiry of the orchestrator state first. Default true. */
  expire?: boolean;
  /** The core's workspace contexts (default: a standalone cache). */
  contexts?: ContextSource;
}

const FIVE_MINUTES = 5 * 60 * 1000;

function timeOf(v: unknown): string | undefined {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'string' && Number.isFinite(Date.parse(v))) return new Date(Date.parse(v)).toISOString();
  return undefined;
}

function ms(t: string | undefined): number {
  return t ? Date.parse(t) : -Infinity;
}

function fmtAge(d: number): string {
  const m = Math.round(d / 60000);
  return m >= 120 ? `${Math.round(m / 60)} h` : `${m} min`;
}

function sameAnswer(a: TierAnswer, b: TierAnswer): boolean {
  return (a.step ?? '') === (b.step ?? '');
}

/** Tier 1: the frontmatter. Its time is `updatedAt` when set, else the file's modification time. */
function tier1(read: FileRead): TierAnswer | { why: string } {
  if (!read.state) return { why: read.error ?? 'the frontmatter could not be read' };
  const r = frontmatterResume(read.state);
  const t = timeOf(read.state.updatedAt) ?? (read.mtimeMs !== undefined ? new Date(read.mtimeMs).toISOString() : undefined);
  const done = !r.step && (read.state.steps.length > 0 || read.state.status === 'completed' || read.state.status === 'archived');
  return { tier: 1, source: 'frontmatter', step: r.step, done, status: read.state.rawStatus ?? read.state.status, time: t, reason: r.reason, stepsCompleted: read.state.stepsCompleted, progressStatus: read.state.status };
}

function tier2(root: string, file: string): { answer?: TierAnswer; why?: string; checkpoint?: Checkpoint } {
  const hit = latestCheckpointFor(root, file);
  if (!hit) return { why: checkpointIds(root).length ? 'no checkpoint holds this file' : 'no checkpoints' };
  const e = hit.entry;
  const step = e.resumeStep ?? e.nextStep;
  return {
    checkpoint: hit.checkpoint,
    answer: {
      tier: 2,
      source: `checkpoint ${hit.checkpoint.id}`,
      step,
      done: !step && (e.stepsTotal > 0 || e.status === 'completed' || e.status === 'archived'),
      status: e.rawStatus ?? e.status,
      time: hit.checkpoint.createdAt,
      stepsCompleted: e.stepsCompleted,
      progressStatus: toStatus(e.status),
      reason: step ? `checkpoint ${hit.checkpoint.id} (${hit.checkpoint.createdAt}) recorded ${e.stepsCompleted.length}/${e.stepsTotal} steps done; continue at ${step}.` : `checkpoint ${hit.checkpoint.id} recorded every step done.`,
    },
  };
}

function tier3(orch: OrchestratorRead, rel: string, steps: string[]): { answer?: TierAnswer; why?: string } {
  const answers: TierAnswer[] = [];
  const s = orch.state;
  if (s && !s.cleared) {
    const w = s.workflows && Object.prototype.hasOwnProperty.call(s.workflows, rel) ? s.workflows[rel] : undefined;
    if (w && typeof w === 'object') {
      const step = w.nextStep ?? w.currentStep;
      const done = !step && (w.status === 'completed' || w.status === 'complete');
      answers.push({
        tier: 3,
        source: 'workflow-state.json',
        step,
        done,
        status: w.status,
        time: timeOf(w.updatedAt) ?? timeOf(s.lastUpdated),
        stepsCompleted: Array.isArray(w.stepsCompleted) ? w.stepsCompleted.map(String) : impliedDone(steps, step, done),
        progressStatus: toStatus(w.status),
        reason: step ? `the orchestrator state (${s.type ?? 'session'}${s.phase ? `, phase ${s.phase}` : ''}) has ${rel} at ${step}.` : `the orchestrator state has no step for ${rel}.`,
      });
    }
  }
  const h = orch.session;
  if (h && typeof h.activeWorkflow === 'string' && h.activeWorkflow.split(path.sep).join('/') === rel) {
    const step = (h.nextStep ?? h.currentStep) as string | undefined;
    answers.push({ tier: 3, source: 'session_state.md', step, done: false, time: timeOf(h.lastUpdated), stepsCompleted: impliedDone(steps, step, false), reason: `the hot session file (session ${h.session ?? '?'}) was working on ${rel} at ${step ?? '?'}.` });
  }
  if (!answers.length) return { why: s?.cleared ? `the orchestrator state was cleared (${s.cleared.reason})` : s || h ? 'the orchestrator state does not mention this file' : 'no orchestrator state' };
  answers.sort((a, b) => ms(b.time) - ms(a.time));
  return { answer: answers[0] };
}

/** Levels: every tier answered = full; two = standard; one = minimal; none. */
function degradationOf(n: number): Degradation {
  return n >= 3 ? 'full' : n === 2 ? 'standard' : n === 1 ? 'minimal' : 'none';
}

/**
 * Where to continue `file`: asks the frontmatter (tier 1), the newest checkpoint holding it
 * (tier 2) and the orchestrator state (tier 3). The most recent write wins (ties go to the lower
 * tier); a source that disagrees and is more than 5 minutes apart gives a warning.
 */
export async function resume(root: string, file: string, options: ResumeOptions & { orchestrator?: OrchestratorRead } = {}): Promise<ResumeReport> {
  const ctx = await contextFor(root, options.contexts);
  const abs = path.resolve(root, file);
  const rel = relPath(root, abs);
  const read = readWorkflowFile(ctx, abs);
  return resolveTiers(root, abs, rel, read, options.orchestrator ?? readOrchestrator(root), options);
}

function resolveTiers(root: string, abs: string, rel: string, read: FileRead, orch: OrchestratorRead, options: ResumeOptions): ResumeReport {
  const warnAfter = options.warnAfterMs ?? FIVE_MINUTES;
  const sources: TierAnswer[] = [];
  const unavailable: ResumeReport['unavailable'] = [];
  const t1 = tier1(read);
  if ('tier' in t1) sources.push(t1);
  else unavailable.push({ tier: 1, source: 'frontmatter', why: t1.why });
  const t2 = tier2(root, abs);
  if (t2.answer) sources.push(t2.answer);
  else unavailable.push({ tier: 2, source: 'checkpoint', why: t2.why! });
  const t3 = tier3(orch, rel, read.state?.steps.map((x) => x.id) ?? []);
  if (t3.answer) sources.push(t3.answer);
  else unavailable.push({ tier: 3, source: 'orchestrator', why: t3.why! });
  const workflow = read.state?.workflow ?? t2.checkpoint?.workflows.find((w) => w.file === rel)?.workflow ?? path.basename(abs).replace(/\.md$/i, '');
  const degradation = degradationOf(sources.length);
  if (!sources.length) {
    return {
      file: abs, relFile: rel, done: false, workflow, tier: 1, source: 'none', degradation, sources, unavailable, stale: [], diverged: [],
      reason: `Nothing knows where ${rel} stands: ${unavailable.map((u) => `${u.source}: ${u.why}`).join('; ')}.`,
      warnings: orch.warnings.slice(),
    };
  }
  const winner = pickWinner(sources);
  const warnings = [...orch.warnings];
  if (winner.tier === 1 && read.state) warnings.push(...frontmatterResume(read.state).warnings);
  const stale: TierAnswer[] = [];
  const diverged: TierAnswer[] = [];
  for (const s of sources) {
    if (s === winner) continue;
    const cmp = compareProgress(progressOf(s), progressOf(winner));
    if (cmp === 'diverged') {
      diverged.push(s);
      warnings.push(`${s.source} and ${winner.source} disagree about ${rel}: ${s.source} records ${doneText(s)}, ${winner.source} records ${doneText(winner)}; neither is ahead of the other, so ${winner.source} answers and nothing is changed. Decide which is right and correct the other.`);
      continue;
    }
    if (cmp === 'same' && sameAnswer(s, winner)) continue;
    stale.push(s);
    const apart = Math.abs(ms(winner.time) - ms(s.time));
    if (cmp === 'behind' && ms(s.time) > ms(winner.time)) {
      warnings.push(`${s.source} says ${s.step ?? 'done'} (written ${s.time ?? 'at an unknown time'}) but ${winner.source} says ${winner.step ?? 'done'} (written ${winner.time ?? 'at an unknown time'}): ${s.source} is newer but behind (${doneText(s)} against ${doneText(winner)}); progress wins over time. Run waymark sync to move ${s.source} forward.`);
    } else if (apart > warnAfter) {
      warnings.push(`${s.source} says ${s.step ?? 'done'} (written ${s.time ?? 'at an unknown time'}) but ${winner.source} says ${winner.step ?? 'done'} (written ${winner.time ?? 'at an unknown time'}), ${Number.isFinite(apart) ? fmtAge(apart) : 'an unknown time'} apart; the source further ahead wins. Run waymark sync to bring ${s.source} in line.`);
    }
  }
  if (winner.tier !== 1 && !('tier' in t1)) warnings.push(`The frontmatter of ${rel} could not be read (${t1.why}); answered from ${winner.source}.`);
  return {
    file: abs,
    relFile: rel,
    done: !!winner.done,
    workflow,
    step: winner.step,
    stepFile: winner.step ? read.state?.steps.find((s) => s.id === winner.step)?.file : undefined,
    reason: `${winner.tier === 1 ? '' : `from ${winner.source}: `}${winner.reason}`,
    tier: winner.tier,
    source: winner.source,
    degradation,
    sources,
    unavailable,
    stale,
    diverged,
    warnings,
  };
}

function progressOf(a: TierAnswer): Progress {
  return { done: a.stepsCompleted, status: a.progressStatus };
}

function doneText(a: TierAnswer): string {
  const steps = a.stepsCompleted ? `[${a.stepsCompleted.join(', ')}] done` : 'no step list';
  return a.progressStatus ? `${steps}, ${a.progressStatus}` : steps;
}

/**
 * The source that answers: progress first (completed steps as a set, then the status order),
 * then time. A source behind another never answers; the frontmatter answers whenever nothing
 * is ahead of it (ties and disagreements in content included); among the others the newest.
 */
function pickWinner(sources: TierAnswer[]): TierAnswer {
  const ahead = (a: TierAnswer, b: TierAnswer) => compareProgress(progressOf(a), progressOf(b)) === 'ahead';
  const maxima = sources.filter((s) => !sources.some((o) => o !== s && ahead(o, s)));
  const front = sources.find((s) => s.tier === 1);
  if (front && maxima.includes(front)) return front;
  const pool = front ? maxima.filter((s) => ahead(s, front)) : maxima;
  const byTime = (list: TierAnswer[]) => [...list].sort((a, b) => ms(b.time) - ms(a.time) || a.tier - b.tier)[0];
  const newest = byTime(pool.length ? pool : maxima.length ? maxima : sources);
  // The lowest tier that says the same at the same progress is the one that answered.
  return sources.filter((s) => sameAnswer(s, newest) && compareProgress(progressOf(s), progressOf(newest)) === 'same').sort((a, b) => a.tier - b.tier)[0] ?? newest;
}

export interface RootResume {
  root: string;
  /** Worst level across the workflows (none when there are none). */
  degradation: Degradation;
  workflows: ResumeReport[];
  orchestrator?: { type?: string; phase?: string; session?: string; lastUpdated?: string; activeWorkflow?: string; enforcement?: { violations: unknown[]; blocking: boolean }; cleared?: unknown };
  expired?: ExpiryResult;
  warnings: string[];
}

/**
 * Resume for every workflow of a root (tier 3's multi-workflow view): workflow files on disk plus
 * files only the checkpoints or the orchestrator still remember. Expires the orchestrator state
 * first when its TTL has passed.
 */
export async function resumeRoot(root: string, options: ResumeOptions = {}): Promise<RootResume> {
  const expired = options.expire === false ? undefined : await expireOrchestratorIfDue(root, { clock: options.clock, logger: options.logger });
  const orch = readOrchestrator(root);
  const files = await listWorkflowFiles(root, options.contexts);
  const known = new Set(files.map((f) => relPath(root, f.file)));
  const extra = new Set<string>();
  for (const rel of Object.keys(orch.state?.workflows ?? {})) if (!known.has(rel)) extra.add(rel);
  if (typeof orch.session?.activeWorkflow === 'string' && !known.has(orch.session.activeWorkflow)) extra.add(orch.session.activeWorkflow);
  const latest = checkpointIds(root)[0];
  if (latest) {
    try {
      for (const w of showCheckpoint(root, latest).workflows) if (!known.has(w.file)) extra.add(w.file);
    } catch {
      // unreadable checkpoint: tier 2 reports it per file
    }
  }
  const ctx = await contextFor(root, options.contexts);
  const reports: ResumeReport[] = [];
  for (const f of files) reports.push(resolveTiers(root, f.file, relPath(root, f.file), f, orch, options));
  for (const rel of [...extra].sort()) {
    const abs = path.join(root, rel);
    reports.push(resolveTiers(root, abs, rel, readWorkflowFile(ctx, abs), orch, options));
  }
  const order: Degradation[] = ['none', 'minimal', 'standard', 'full'];
  const degradation = reports.length ? reports.map((r) => r.degradation).sort((a, b) => order.indexOf(a) - order.indexOf(b))[0] : 'none';
  const warnings = [...orch.warnings];
  const s = orch.state;
  if (s?.enforcement?.blocking) warnings.push(`The orchestrator's enforcement is blocking (${Array.isArray(s.enforcement.violations) ? s.enforcement.violations.length : 0} violations): resolve them before continuing.`);
  if (expired?.expired) warnings.push(`The orchestrator state expired (ttl) and was cleared; its summary is in ${protocolPaths(root).coldMemory}.`);
  return {
    root,
    degradation,
    workflows: reports,
    orchestrator: s || orch.session
      ? { type: s?.type, phase: s?.phase, session: s?.session ?? (orch.session?.session as string | undefined), lastUpdated: s?.lastUpdated, activeWorkflow: orch.session?.activeWorkflow as string | undefined, enforcement: s?.enforcement, cleared: s?.cleared }
      : undefined,
    expired,
    warnings,
  };
}

export interface SyncAction {
  file: string;
  /** `checkpoint` (a fresh checkpoint was written), `orchestrator` (workflow-state.json updated), `frontmatter` (restored from a checkpoint), `manual` (needs a person or agent). */
  action: 'checkpoint' | 'orchestrator' | 'frontmatter' | 'manual';
  detail: string;
}

/**
 * Moves stale sources forward to the one furthest ahead (never backwards): a fresh checkpoint
 * when a checkpoint is behind, the orchestrator's entry when it is behind, the frontmatter
 * restored from a checkpoint that is ahead of it (state keys only; refused when the body changed
 * since, unless `force`). An orchestrator ahead of the frontmatter is reported for a person or
 * agent to replay; sources that disagree in content are reported and left alone.
 */
export async function sync(root: string, options: ResumeOptions & { actor?: string; session?: string; guards?: WriteGuard[]; force?: boolean } = {}): Promise<{ actions: SyncAction[]; before: RootResume; after: RootResume }> {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const before = await resumeRoot(root, options);
  const actions: SyncAction[] = [];
  let needCheckpoint = false;
  const restoreOptions = { actor: options.actor ?? 'waymark-sync', session: options.session, guards: options.guards, clock, logger, contexts: options.contexts, forceBody: options.force };
  const restores = new Map<string, { file: string; relFile: string; step?: string }[]>();
  for (const r of before.workflows) {
    const winner = r.sources.find((s) => s.source === r.source);
    if (!winner) continue;
    for (const s of r.diverged) {
      actions.push({ file: r.relFile, action: 'manual', detail: `${s.source} and ${winner.source} disagree (neither has every step the other completed); nothing was changed: decide which is right and correct the other` });
    }
    for (const s of r.stale) {
      if (s.tier === 2 && winner.tier === 1) needCheckpoint = true;
      if (s.tier === 3 && s.source === 'workflow-state.json' && (winner.tier === 1 || winner.tier === 2)) {
        await recordOrchestratorWorkflow(root, r.relFile, { nextStep: winner.step, currentStep: winner.step, status: winner.status, ...(winner.stepsCompleted ? { stepsCompleted: winner.stepsCompleted } : {}) }, {}, { clock });
        actions.push({ file: r.relFile, action: 'orchestrator', detail: `workflow-state.json now has ${winner.step ?? 'done'} (was ${s.step ?? 'nothing'})` });
      }
      if (s.tier === 3 && s.source === 'session_state.md') {
        actions.push({ file: r.relFile, action: 'manual', detail: `session_state.md says ${s.step ?? '?'} but ${winner.source} says ${winner.step ?? 'done'}; the hot session file is the orchestrator's own notes: update it there` });
      }
      if (s.tier === 1 && winner.tier === 2) {
        const id = winner.source.replace(/^checkpoint /, '');
        try {
          // Forward only: the restore itself refuses to un-complete a step or move a status back.
          await restoreCheckpoint(root, id, { ...restoreOptions, only: [r.file], dryRun: true });
          const group = restores.get(id) ?? [];
          group.push({ file: r.file, relFile: r.relFile, step: winner.step });
          restores.set(id, group);
        } catch (e) {
          actions.push({ file: r.relFile, action: 'manual', detail: `frontmatter is behind checkpoint ${id} but was not restored: ${errorMessage(e)}` });
        }
      }
      if (s.tier === 1 && winner.tier === 3) {
        actions.push({ file: r.relFile, action: 'manual', detail: `the orchestrator (${winner.source}, ${winner.time}) is ahead of the frontmatter: it says ${winner.step ?? 'done'}; record the finished steps with waymark complete-step ${r.relFile} <step> (or waymark advance)` });
      }
    }
  }
  // The frontmatter restored from one checkpoint is one transaction over all its files
  // (engine/transaction.ts): a sync killed half way is completed or dropped by the next writer.
  for (const [id, group] of restores) {
    try {
      await restoreCheckpoint(root, id, { ...restoreOptions, only: group.map((g) => g.file) });
      for (const g of group) actions.push({ file: g.relFile, action: 'frontmatter', detail: `state restored from checkpoint ${id} (${g.step ?? 'done'})` });
    } catch (e) {
      for (const g of group) actions.push({ file: g.relFile, action: 'manual', detail: `frontmatter is behind checkpoint ${id} but was not restored: ${errorMessage(e)}` });
    }
  }
  if (needCheckpoint) {
    const cp = await createCheckpoint(root, { message: 'waymark sync', actor: options.actor ?? 'waymark-sync', session: options.session, clock, logger, contexts: options.contexts });
    actions.push({ file: '*', action: 'checkpoint', detail: `checkpoint ${cp.id} written from the current frontmatter` });
  }
  if (actions.length) appendEvent(root, { type: 'sync', actor: options.actor, session: options.session, data: { actions: actions.map((a) => `${a.action}:${a.file}`) } });
  const after = await resumeRoot(root, { ...options, expire: false });
  return { actions, before, after };
}

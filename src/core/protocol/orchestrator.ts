import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import { systemClock, silentLogger } from '../ports';
import { WaymarkError } from '../errors';
import { runTransaction } from '../engine/transaction';
import { splitFrontmatter, safeYamlParse } from '../model/frontmatter';
import { protocolPaths, ensureDir, readIfExists, relPath } from './paths';
import type { WriteGuard } from '../writeHooks';
import { appendEvent, type EventsLogOptions } from './events';

/** What the orchestrator remembers about one workflow file (tier 3). */
export interface OrchestratorWorkflow {
  currentStep?: string;
  nextStep?: string;
  stepsCompleted?: string[];
  status?: string;
  updatedAt?: string;
}

/** `.waymark/memory/workflow-state.json`: the orchestrator's state for a multi-workflow session. */
export interface OrchestratorState {
  type?: string;
  phase?: string;
  lastUpdated?: string;
  /** Seconds (number) or a duration: `90s`, `30m`, `2h`, `1d`, ISO `PT2H`. */
  ttl?: number | string;
  session?: string;
  enforcement?: { violations: unknown[]; blocking: boolean };
  /** Keyed by workflow file path relative to the root. */
  workflows?: Record<string, OrchestratorWorkflow>;
  /** Set when the state was cleared (TTL expiry). */
  cleared?: { at: string; reason: string };
  [key: string]: unknown;
}

/** The hot session file `.waymark/memory/session_state.md` (frontmatter fields; the body is notes). */
export interface SessionState {
  session?: string;
  activeWorkflow?: string;
  currentStep?: string;
  nextStep?: string;
  lastUpdated?: string;
  [key: string]: unknown;
}

export interface OrchestratorRead {
  state?: OrchestratorState;
  session?: SessionState;
  warnings: string[];
}

/** Reads both orchestrator files. Missing files are absent; unreadable ones give a warning, never a throw. */
export function readOrchestrator(root: string): OrchestratorRead {
  const p = protocolPaths(root);
  const { state, warnings } = readOrchestratorState(root);
  let session: SessionState | undefined;
  try {
    const text = readIfExists(p.sessionState);
    if (text !== undefined) {
      const split = splitFrontmatter(text);
      if (split.hasFrontmatter && split.closed && (split.language === '' || split.language === 'yaml')) {
        const v = safeYamlParse(split.yamlText);
        if (v && typeof v === 'object' && !Array.isArray(v)) session = normalizeDates(v as SessionState);
      } else warnings.push(`${p.sessionState} has no YAML frontmatter; ignored.`);
    }
  } catch (e) {
    warnings.push(`${p.sessionState} is unreadable (${(e as Error).message}); ignored.`);
  }
  return { state, session, warnings };
}

/**
 * The orchestrator state file alone (workflow-state.json), as readOrchestrator reads it: what the
 * enforcement guard of every write needs, without the session file (memory's hot file, whose YAML
 * grows with the working memory) read and parsed for nothing.
 */
function readOrchestratorState(root: string): { state?: OrchestratorState; warnings: string[] } {
  const p = protocolPaths(root);
  const warnings: string[] = [];
  let state: OrchestratorState | undefined;
  try {
    const text = readIfExists(p.workflowState);
    if (text !== undefined) {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) state = Object.assign(Object.create(null), v) as OrchestratorState;
      else warnings.push(`${p.workflowState} is not a JSON object; ignored.`);
    }
  } catch (e) {
    warnings.push(`${p.workflowState} is unreadable (${(e as Error).message}); ignored. Fix or delete it (waymark sync rewrites it).`);
  }
  return { state, warnings };
}

function normalizeDates<T extends Record<string, unknown>>(v: T): T {
  const out = Object.assign(Object.create(null), v) as Record<string, unknown>;
  for (const [k, x] of Object.entries(out)) if (x instanceof Date) out[k] = x.toISOString();
  return out as T;
}

/** Parses a TTL to milliseconds; undefined when absent or not understood. */
export function parseTtl(ttl: unknown): number | undefined {
  if (typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0) return withinTtl(ttl * 1000);
  if (typeof ttl !== 'string') return undefined;
  const s = ttl.trim();
  let m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i.exec(s);
  if (m) {
    const n = Number(m[1]);
    const unit = (m[2] ?? 's').toLowerCase();
    const mult = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : unit === 'h' ? 3_600_000 : 86_400_000;
    return withinTtl(n * mult);
  }
  m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(s);
  if (m && s.length > 1 && s.toUpperCase() !== 'PT') {
    const ms = (Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0)) * 1000;
    return withinTtl(ms);
  }
  return undefined;
}

/** The longest ttl: 100 years. A longer one would put its expiry past the dates a clock can name. */
export const MAX_TTL_MS = 100 * 365.25 * 86_400_000;

function withinTtl(ms: number): number | undefined {
  return ms > 0 && ms <= MAX_TTL_MS ? ms : undefined;
}

export interface OrchestratorOptions {
  clock?: Clock;
  logger?: Logger;
  events?: EventsLogOptions | false;
}

/**
 * Read-modify-write of workflow-state.json, one transaction (engine/transaction.ts: locked by
 * real path, journaled, renamed); stamps `lastUpdated`. Unreadable bytes are kept aside in the
 * same change.
 */
export async function updateOrchestratorState(root: string, fn: (s: OrchestratorState) => OrchestratorState | void, options: OrchestratorOptions = {}): Promise<OrchestratorState> {
  const p = protocolPaths(root);
  ensureDir(root, p.memory);
  const clock = options.clock ?? systemClock;
  const aside = `${p.workflowState}.unreadable-${clock.now().getTime()}`;
  return runTransaction({ root, now: () => clock.now(), logger: options.logger }, {
    operation: 'orchestrator-state',
    files: [p.workflowState, aside],
    plan(texts) {
      let cur: OrchestratorState = {};
      const text = texts.get(p.workflowState);
      let unreadable = false;
      if (text !== undefined) {
        try {
          const v = JSON.parse(text) as unknown;
          if (v && typeof v === 'object' && !Array.isArray(v)) cur = v as OrchestratorState;
        } catch {
          unreadable = true; // replaced by the new state (the old bytes are kept aside)
        }
      }
      const next = fn(cur) ?? cur;
      delete next.cleared;
      next.lastUpdated = clock.now().toISOString();
      if (!next.enforcement) next.enforcement = { violations: [], blocking: false };
      return {
        writes: [...(unreadable ? [{ file: aside, text: text!, entry: null }] : []), { file: p.workflowState, text: JSON.stringify(next, null, 2) + '\n', entry: null }],
        result: () => next,
      };
    },
  });
}

/** Records where a workflow stands in the orchestrator state (what an orchestrator does after each step). */
export function recordOrchestratorWorkflow(root: string, relFile: string, wf: OrchestratorWorkflow, extra: Partial<OrchestratorState> = {}, options: OrchestratorOptions = {}): Promise<OrchestratorState> {
  const now = (options.clock ?? systemClock).now().toISOString();
  return updateOrchestratorState(root, (s) => {
    Object.assign(s, extra);
    // A null-prototype copy: a file named `__proto__` is just a key here.
    const wfs = Object.assign(Object.create(null), s.workflows && typeof s.workflows === 'object' ? s.workflows : {}) as Record<string, OrchestratorWorkflow>;
    const prev = Object.prototype.hasOwnProperty.call(wfs, relFile) ? wfs[relFile] : undefined;
    Object.defineProperty(wfs, relFile, { value: { ...prev, ...wf, updatedAt: wf.updatedAt ?? now }, enumerable: true, writable: true, configurable: true });
    s.workflows = wfs;
  }, options);
}

/**
 * Writes the hot session file: frontmatter fields plus a notes body. The hot file is memory Waymark
 * owns (memory/memoryFiles.ts writes it too), so this is a planner of the one transaction engine:
 * locked by real path, a change a killed writer left touching it settled first, journaled, renamed.
 */
export async function writeSessionState(root: string, fields: SessionState, body = '', options: OrchestratorOptions = {}): Promise<void> {
  const p = protocolPaths(root);
  ensureDir(root, p.memory);
  const lines = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  const text = `---\n${lines.join('\n')}\n---\n${body}`;
  await runTransaction({ root, now: () => (options.clock ?? systemClock).now(), logger: options.logger }, {
    operation: 'memory-session-state',
    files: [p.sessionState],
    plan: () => ({ writes: [{ file: p.sessionState, text, entry: null }], result: () => undefined }),
  });
}

export interface ExpiryResult {
  expired: boolean;
  /** The line appended to the cold memory file. */
  summary?: string;
  expiresAt?: string;
}

/**
 * Expires the orchestrator state when `lastUpdated + ttl` has passed: appends a one-line summary
 * to `.waymark/memory/orchestrator_memory.md` (append-only), clears workflow-state.json (keeping a
 * `cleared` marker), and logs a `ttl.expired` event.
 */
export async function expireOrchestratorIfDue(root: string, options: OrchestratorOptions = {}): Promise<ExpiryResult> {
  const p = protocolPaths(root);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  if (!fs.existsSync(p.workflowState)) return { expired: false };
  ensureDir(root, p.memory);
  // The summary appended to the cold memory and the cleared state are one transaction
  // (engine/transaction.ts): a writer killed in between never leaves the summary twice.
  const result = await runTransaction<ExpiryResult & { state?: OrchestratorState }>({ root, now: () => clock.now(), logger }, {
    operation: 'orchestrator-expire',
    files: [p.workflowState, p.coldMemory],
    plan(texts) {
    const none = { writes: [], result: () => ({ expired: false }) };
    const text = texts.get(p.workflowState);
    if (text === undefined) return none;
    let s: OrchestratorState;
    try {
      s = JSON.parse(text) as OrchestratorState;
    } catch {
      return none;
    }
    if (!s || typeof s !== 'object' || s.cleared) return none;
    const ttlMs = parseTtl(s.ttl);
    const last = Date.parse(String(s.lastUpdated ?? ''));
    if (ttlMs === undefined || !Number.isFinite(last)) return none;
    const expiresAt = new Date(last + ttlMs);
    if (expiresAt.getTime() > clock.now().getTime()) return { writes: [], result: () => ({ expired: false, expiresAt: expiresAt.toISOString() }) };
    const wfs = Object.entries(s.workflows ?? {});
    const where = wfs.map(([f, w]) => `${f}@${w.currentStep ?? w.nextStep ?? '?'}${w.status ? ` (${w.status})` : ''}`).join(', ');
    const violations = Array.isArray(s.enforcement?.violations) ? s.enforcement!.violations.length : 0;
    const summary = `- ${clock.now().toISOString()} expired: type=${s.type ?? '?'} phase=${s.phase ?? '?'} session=${s.session ?? '?'} lastUpdated=${s.lastUpdated} ttl=${String(s.ttl)} violations=${violations}${s.enforcement?.blocking ? ' blocking' : ''}${where ? ` workflows: ${where}` : ''}`
      .replace(/[\r\n]+/g, ' ');
    const cold = (texts.get(p.coldMemory) ?? '# Orchestrator memory (cold, append-only)\n\n') + summary + '\n';
    const cleared: OrchestratorState = { cleared: { at: clock.now().toISOString(), reason: `ttl ${String(s.ttl)} passed at ${expiresAt.toISOString()}` } };
    return {
      writes: [
        { file: p.coldMemory, text: cold, entry: null },
        { file: p.workflowState, text: JSON.stringify(cleared, null, 2) + '\n', entry: null },
      ],
      result: () => ({ expired: true, summary, expiresAt: expiresAt.toISOString(), state: s }),
    };
    },
  });
  if (result.expired) {
    logger.info(`[protocol] orchestrator state expired (ttl): ${result.summary}`);
    if (options.events !== false) {
      try {
        appendEvent(root, { type: 'ttl.expired', session: result.state?.session, data: { type: result.state?.type, phase: result.state?.phase, expiresAt: result.expiresAt } }, options.events || {});
      } catch (e) {
        logger.warn(`[protocol] could not log ttl.expired: ${String(e)}`);
      }
    }
  }
  return { expired: result.expired, summary: result.summary, expiresAt: result.expiresAt };
}

/**
 * A WriteGuard: while the orchestrator state says `enforcement.blocking: true`, writes to the
 * workflows it names are refused (exit 4) for everyone but the orchestrator's own session. A
 * cleared (expired) state blocks nothing.
 */
export function enforcementGuard(): WriteGuard {
  return (ctx) => {
    const s = readOrchestratorState(ctx.root).state;
    if (!s || s.cleared || s.enforcement?.blocking !== true) return;
    const rel = relPath(ctx.root, ctx.file);
    const named = s.workflows && typeof s.workflows === 'object' && Object.prototype.hasOwnProperty.call(s.workflows, rel);
    if (!named) return;
    if (s.session !== undefined && ctx.session === s.session) return;
    const v = Array.isArray(s.enforcement.violations) ? s.enforcement.violations : [];
    const list = v.slice(0, 3).map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('; ');
    throw new WaymarkError(
      'refused',
      `Refused: the orchestrator${s.session ? ` (session ${s.session})` : ''} blocks writes to ${rel} until its enforcement violations are resolved (${v.length}${list ? `: ${list}` : ''}). Only its session may write it${s.session ? ` (--session ${s.session})` : ''}; or wait until it clears enforcement.blocking in ${protocolPaths(ctx.root).workflowState}.`,
      ctx.file,
      { blocking: true, orchestratorSession: s.session ?? null, violations: v.length },
    );
  };
}

export function assertObject(v: unknown, what: string): asserts v is Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new WaymarkError('invalid', `${what} must be an object.`);
}

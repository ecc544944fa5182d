/**
 * The circuit breaker in front of every tracker call (cockatiel 3.x: runs on Node 20): a timeout
 * per call, retries with exponential backoff, and a consecutive-failure breaker that opens and
 * later lets one half-open probe through. Its state is persisted in `.waymark/outbox/breaker.json`
 * (one entry per store) so the next process — the CLI is one process per run — starts from it,
 * and `waymark status`, the status bar and the dashboard can show it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  TaskCancelledError,
  TimeoutStrategy,
  circuitBreaker,
  handleWhen,
  retry,
  timeout,
  wrap,
  type CircuitBreakerPolicy,
  type IPolicy,
} from 'cockatiel';
import type { Clock } from '../ports';
import { systemClock } from '../ports';
import { writeFileAtomic } from '../store/atomicWrite';
import { readInternalIfExists, safeMkdir, safeWritePath } from '../store/safePath';
import { TicketError } from './port';

export interface BreakerSettings {
  /** Consecutive failed calls that open the breaker. */
  failures: number;
  /** How long it stays open before one half-open probe (ms). */
  halfOpenAfterMs: number;
  /** How long one call may take (ms). */
  timeoutMs: number;
  /** Retries of one call before it counts as failed. */
  retries: number;
  /** First backoff delay (ms); doubles per retry. */
  backoffMs?: number;
}

export const DEFAULT_BREAKER: BreakerSettings = { failures: 3, halfOpenAfterMs: 30_000, timeoutMs: 10_000, retries: 2, backoffMs: 200 };

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What `waymark status`, the status bar and the dashboard show of a store's breaker. */
export interface BreakerStatus {
  store: string;
  state: BreakerState;
  /** Consecutive failures so far. */
  failures: number;
  /** When it opened (ISO), while open. */
  openedAt?: string;
  /** When the next probe may go (ISO), while open. */
  retryAt?: string;
  lastError?: string;
  /** Changes waiting in the outbox (filled in by the reader). */
  queued?: number;
  updatedAt: string;
}

interface Persisted {
  status: BreakerStatus;
  /** cockatiel's own state (`CircuitBreakerPolicy.toJSON()`), handed back as `initialState`. */
  policy?: unknown;
  /** A rate limit's end (epoch ms): no call before it, whatever the breaker says. */
  rateLimitedUntil?: number;
}

export function breakerFile(root: string): string {
  return path.join(root, '.waymark', 'outbox', 'breaker.json');
}

function readAll(root: string): Record<string, Persisted> {
  try {
    const text = readInternalIfExists(breakerFile(root), 'breaker state');
    if (!text) return {};
    const v = JSON.parse(text) as { stores?: Record<string, Persisted> };
    return v && typeof v.stores === 'object' && v.stores ? v.stores : {};
  } catch {
    return {}; // damaged: start closed (the file is rewritten on the next call)
  }
}

/** The persisted breaker status of every store of a workspace folder (empty when none ran). */
export function readBreakerStatus(root: string, clock: Clock = systemClock): BreakerStatus[] {
  return Object.values(readAll(root)).map((p) => liveStatus(p, clock.now().getTime()));
}

/** An open breaker whose wait is over shows as half-open: the next call is the probe. */
function liveStatus(p: Persisted, now: number): BreakerStatus {
  const s = p.status;
  if (s.state === 'open' && s.retryAt && Date.parse(s.retryAt) <= now) return { ...s, state: 'half-open' };
  return s;
}

/** Whether an error is worth retrying and counts against the breaker. */
function retryable(e: Error): boolean {
  if (TicketError.is(e)) return e.retryable;
  if (e instanceof BrokenCircuitError) return false;
  return true; // network errors, timeouts
}

/**
 * One store's breaker. `call` runs a tracker call through timeout → retry → breaker; `open`
 * says whether a call would be refused right now (the projector then queues without trying).
 */
export class TrackerBreaker {
  private readonly policy: IPolicy;
  private readonly breaker: CircuitBreakerPolicy;
  private failures = 0;
  private lastError: string | undefined;
  private rateLimitedUntil: number | undefined;

  constructor(
    readonly root: string,
    readonly store: string,
    readonly settings: BreakerSettings = DEFAULT_BREAKER,
    private readonly clock: Clock = systemClock,
  ) {
    const saved = readAll(root)[store];
    this.failures = saved?.status.failures ?? 0;
    this.lastError = saved?.status.lastError;
    this.rateLimitedUntil = saved?.rateLimitedUntil;
    const counted = handleWhen(retryable);
    this.breaker = circuitBreaker(counted, {
      halfOpenAfter: settings.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(settings.failures),
      initialState: saved?.policy,
    });
    // A rate limit is not retried: the tracker said how long to wait (rateLimitedUntil).
    const retried = handleWhen((e) => retryable(e) && !(TicketError.is(e) && e.retryAfterMs !== undefined));
    const retries = retry(retried, { maxAttempts: settings.retries, backoff: new ExponentialBackoff({ initialDelay: settings.backoffMs ?? 200, maxDelay: settings.halfOpenAfterMs }) });
    const limit = timeout(settings.timeoutMs, TimeoutStrategy.Aggressive);
    // Each attempt passes the breaker (consecutive failures count attempts) and has its own timeout.
    this.policy = wrap(retries, this.breaker, limit);
  }

  get state(): BreakerState {
    const s = this.breaker.state;
    if (this.rateLimitedUntil && this.rateLimitedUntil > this.clock.now().getTime()) return 'open';
    return s === CircuitState.Closed ? 'closed' : s === CircuitState.HalfOpen ? 'half-open' : 'open';
  }

  /** True when a call now would be refused without reaching the tracker. */
  isOpen(): boolean {
    const now = this.clock.now().getTime();
    if (this.rateLimitedUntil && this.rateLimitedUntil > now) return true;
    if (this.breaker.state !== CircuitState.Open) return false;
    const opened = this.openedAt();
    return opened !== undefined && now - opened < this.settings.halfOpenAfterMs;
  }

  private openedAt(): number | undefined {
    const j = this.breaker.toJSON() as { ownState?: { value?: number; openedAt?: number } };
    return j.ownState?.value === CircuitState.Open ? j.ownState.openedAt : undefined;
  }

  status(): BreakerStatus {
    const opened = this.openedAt();
    const open = this.isOpen() || this.breaker.state === CircuitState.Open;
    const retryAt = this.rateLimitedUntil && this.rateLimitedUntil > this.clock.now().getTime()
      ? this.rateLimitedUntil
      : opened !== undefined ? opened + this.settings.halfOpenAfterMs : undefined;
    return {
      store: this.store,
      state: open && !this.isOpen() ? 'half-open' : this.state,
      failures: this.failures,
      openedAt: open && opened ? new Date(opened).toISOString() : undefined,
      retryAt: open && retryAt ? new Date(retryAt).toISOString() : undefined,
      lastError: this.lastError,
      updatedAt: this.clock.now().toISOString(),
    };
  }

  /**
   * Runs one tracker call. Throws BrokenCircuitError (open), TicketError (the tracker said no),
   * or the last network/timeout error once retries are spent.
   */
  async call<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.rateLimitedUntil && this.rateLimitedUntil > this.clock.now().getTime()) {
      throw new BrokenCircuitError(`rate limited until ${new Date(this.rateLimitedUntil).toISOString()}`);
    }
    try {
      const v = await this.policy.execute(({ signal }) => fn(signal));
      this.failures = 0;
      this.lastError = undefined;
      this.rateLimitedUntil = undefined;
      return v as T;
    } catch (e) {
      if (TicketError.is(e) && !e.retryable) throw e; // the tracker answered: not an outage
      if (!(e instanceof BrokenCircuitError)) {
        this.failures++;
        this.lastError = this.describe(e);
      }
      if (TicketError.is(e) && e.retryAfterMs !== undefined) this.rateLimitedUntil = this.clock.now().getTime() + e.retryAfterMs;
      throw e;
    } finally {
      this.save();
    }
  }

  /** A failure in words (a cancelled call is a timeout). */
  describe(e: unknown): string {
    if (e instanceof TaskCancelledError) return `timed out after ${this.settings.timeoutMs} ms`;
    return e instanceof Error ? e.message : String(e);
  }

  /** Writes this store's state into breaker.json (atomic; other stores' entries kept). */
  save(): void {
    const file = breakerFile(this.root);
    const real = safeWritePath(this.root, file, 'breaker state');
    safeMkdir(this.root, path.dirname(real));
    const all = readAll(this.root);
    all[this.store] = { status: this.status(), policy: this.breaker.toJSON(), rateLimitedUntil: this.rateLimitedUntil };
    writeFileAtomic(real, JSON.stringify({ stores: all }, null, 2) + '\n', { root: this.root, what: 'breaker state' });
  }
}

/** True when `e` means the tracker is unavailable (open breaker, outage): the change is queued. */
export function isOutage(e: unknown): boolean {
  if (e instanceof BrokenCircuitError) return true;
  if (TicketError.is(e)) return e.retryable;
  return e instanceof Error;
}

/** Whether a folder has breaker state at all (a tracker ran there). */
export function hasBreakerState(root: string): boolean {
  return fs.existsSync(breakerFile(root));
}

/**
 * The port every ticket tracker is reached through. The projector knows only this; a store is
 * one adapter (git repository, GitHub Issues; Jira and Linear would be one file each).
 */

/** What a store can express natively; what it cannot goes into the body text. */
export interface StoreCapabilities {
  /** Parent/child links (epics, delegation) as the tracker's own relation. */
  parent: boolean;
  /** Blocked-by links as the tracker's own relation. */
  blockedBy: boolean;
  /** Labels. */
  labels: boolean;
}

/** One ticket as the projection wants it. Links name other tickets by their Waymark id. */
export interface TicketDraft {
  /** Stable id (`waymark-id:` line of the body): how a ticket is found again. */
  waymarkId: string;
  title: string;
  /** Markdown; always ends with the `waymark-id: <id>` line. */
  body: string;
  labels: string[];
  /** Open unless the item is done or dropped. */
  open: boolean;
  /** The tracker's answer for the parent (epic, delegating workflow), when it has one. */
  parent?: TicketRef;
  /** The tracker's answers for the prerequisites. */
  blockedBy: TicketRef[];
}

/** What a tracker answers for one ticket. */
export interface TicketRef {
  /** The tracker's own id (issue number, file name...). */
  id: string;
  url?: string;
  /** The tracker's own status word (`open`, `closed`, `In Progress`...), mirrored, never read back into state. */
  status?: string;
}

/**
 * A ticket tracker. Every call may fail (network, rate limit): the projector runs each through
 * the breaker. `TicketError` with `retryable: false` (a validation error) is not retried and
 * does not count against the breaker.
 */
export interface TicketStore {
  readonly name: string;
  readonly capabilities: StoreCapabilities;
  /** Looks a ticket up by its Waymark id (the reconcile before any create). */
  find(waymarkId: string, signal?: AbortSignal): Promise<TicketRef | undefined>;
  create(draft: TicketDraft, signal?: AbortSignal): Promise<TicketRef>;
  update(ref: TicketRef, draft: TicketDraft, signal?: AbortSignal): Promise<TicketRef>;
  /** Called once after a run's sends (the git store commits them as one commit). */
  flush?(message: string): Promise<void>;
}

/** A tracker failure with what the breaker needs to know. */
export class TicketError extends Error {
  override readonly name = 'TicketError';
  constructor(
    message: string,
    /** Worth retrying (5xx, network, timeout, rate limit); false for a validation error (422). */
    readonly retryable: boolean,
    /** How long the tracker asked us to wait (rate limit), in ms. */
    readonly retryAfterMs?: number,
    readonly status?: number,
  ) {
    super(message);
  }

  static is(e: unknown): e is TicketError {
    return e instanceof TicketError;
  }
}

/** The `waymark-id:` line every ticket body ends with. */
export const WAYMARK_ID_LINE = 'waymark-id:';

/** The Waymark id in a ticket body, if it has the line. */
export function waymarkIdOf(body: string | null | undefined): string | undefined {
  if (!body) return undefined;
  const m = /^waymark-id:[ \t]*(.+?)[ \t]*$/m.exec(body);
  return m?.[1];
}

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
  /**
   * The body with the `Blocked by:` line, for a store that links prerequisites natively but finds
   * the relation unavailable (an older GitHub Enterprise Server): it sends this body instead.
   */
  bodyWithBlockedBy?: string;
}

/** What a tracker answers for one ticket. */
export interface TicketRef {
  /** The tracker's own id (issue number, file name...). */
  id: string;
  url?: string;
  /** The tracker's own status word (`open`, `closed`, `In Progress`...), mirrored, never read back into state. */
  status?: string;
}

/** A ticket as a store's listing answers it: what the orphan and missing-ticket checks need. */
export interface ListedTicket extends TicketRef {
  /** The artifact's path relative to its workspace folder (the body's `Projected by Waymark from` line). */
  source?: string;
  labels?: string[];
  /** The body as the tracker holds it (GitHub; the git store reads its file when it closes one). */
  body?: string;
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
  /**
   * Every ticket carrying a `waymark-id` (the same listing `find` uses): which tickets exist, to
   * close those whose artifact was removed and re-create those a mirror calls synced but are gone.
   */
  list(call?: TrackerCall): Promise<Map<string, ListedTicket>>;
  /**
   * Closes a ticket whose artifact was removed: state closed, its `status:` label replaced by
   * `status:removed`, `note` added to its text. One-way and idempotent (a closed ticket is not touched).
   */
  close(ref: ListedTicket, waymarkId: string, note: string, signal?: AbortSignal): Promise<TicketRef>;
  /**
   * Called once at the end of every run that may send (the git store commits this run's changes
   * and any an earlier run left uncommitted, as one commit; nothing when nothing changed). A
   * throw keeps the run's changes queued in the outbox.
   */
  flush?(message: string): Promise<void>;
}

/**
 * Runs one tracker request (the projector passes its breaker: a time limit and retries per
 * request, so a listing of many pages is not held to one request's time limit).
 */
export type TrackerCall = <T>(fn: (signal?: AbortSignal) => Promise<T>) => Promise<T>;

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

/** The artifact path of a ticket body (`Projected by Waymark from \`rel\``), when it names one. */
export function sourceOf(body: string | null | undefined): string | undefined {
  if (!body) return undefined;
  let rel: string | undefined;
  for (const m of body.matchAll(/^Projected by Waymark from `([^`\r\n]+)`/gm)) rel = m[1];
  return rel;
}

/** The labels after a close: every `status:` label replaced by `status:removed`. */
export function removedLabels(labels: readonly string[] | undefined): string[] {
  return [...(labels ?? ['waymark']).filter((l) => !l.startsWith('status:')), 'status:removed'];
}

/** The body with `note` put before its closing `---` block (the id line stays last). */
export function bodyWithNote(body: string, note: string): string {
  if (body.includes(note)) return body;
  const at = body.lastIndexOf('\n---\n');
  return at >= 0 ? `${body.slice(0, at)}\n\n${note}\n${body.slice(at)}` : `${note}\n\n${body}`;
}

/** The Waymark id in a ticket body: its last `waymark-id:` line (the artifact's text above may quote one). */
export function waymarkIdOf(body: string | null | undefined): string | undefined {
  if (!body) return undefined;
  let id: string | undefined;
  for (const m of body.matchAll(/^waymark-id:[ \t]*(.+?)[ \t]*\r?$/gm)) id = m[1];
  return id;
}

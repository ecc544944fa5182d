/** Why an operation failed. The CLI maps these to exit codes. */
export type WaymarkErrorReason =
  | 'usage' // bad arguments (exit 2)
  | 'unreadable' // missing, unreadable, binary, too large (exit 2)
  | 'invalid' // the file or the result would be invalid (exit 1)
  | 'conflict' // stale hash (exit 3)
  | 'locked' // file lock or lease held by someone else (exit 3)
  | 'gate-closed' // refused by a gate (exit 4)
  | 'transition' // refused by the status state machine (exit 4)
  | 'refused' // refused by enforcement: error-level problems, a blocking orchestrator (exit 4)
  | 'io' // write failed (read-only folder, disk full) (exit 2)
  | 'unavailable'; // optional subsystem (memory) unavailable

export class WaymarkError extends Error {
  override readonly name = 'WaymarkError';
  constructor(
    readonly reason: WaymarkErrorReason,
    message: string,
    /** File the error is about, when there is one. */
    readonly file?: string,
    /** Extra machine-readable facts. */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }

  static is(e: unknown, reason?: WaymarkErrorReason): e is WaymarkError {
    return e instanceof WaymarkError && (reason === undefined || e.reason === reason);
  }
}

export const EXIT_CODES: Record<WaymarkErrorReason, number> = {
  usage: 2,
  unreadable: 2,
  io: 2,
  invalid: 1,
  conflict: 3,
  locked: 3,
  'gate-closed': 4,
  transition: 4,
  refused: 4,
  unavailable: 2,
};

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

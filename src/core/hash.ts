import { createHash } from 'node:crypto';

/** SHA-256 of bytes or a UTF-8 string, hex. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The fields the state hash covers. Timestamps (`updatedAt`) and the session marker are left out. */
export interface StateHashInput {
  workflow?: string;
  rawStatus?: string;
  status?: string;
  currentStep?: string;
  stepsCompleted?: readonly string[];
  lastStep?: string;
  scope?: string;
  blockedReason?: string;
  delegation?: unknown;
  ttl?: string | number;
}

/**
 * SHA-256 over the state fields only, in a fixed order, so re-writing the same state (or
 * touching `updatedAt`, comments, the body) gives the same hash.
 */
export function computeStateHash(state: StateHashInput): string {
  const canonical = [
    state.workflow ?? null,
    state.rawStatus ?? state.status ?? null,
    state.currentStep ?? null,
    state.stepsCompleted ?? [],
    state.lastStep ?? null,
    state.scope ?? null,
    state.blockedReason ?? null,
    state.delegation === undefined ? null : canonicalize(state.delegation),
    state.ttl ?? null,
  ];
  return sha256(JSON.stringify(canonical));
}

function canonicalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonicalize);
  if (v && typeof v === 'object') {
    const out: [string, unknown][] = [];
    for (const k of Object.keys(v).sort()) out.push([k, canonicalize((v as Record<string, unknown>)[k])]);
    return out;
  }
  return v ?? null;
}

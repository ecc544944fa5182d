import type * as cryptoModule from 'node:crypto';
import { sha256Js } from './sha256';

let nodeCrypto: typeof cryptoModule | undefined;
/** node:crypto, loaded by the first hash that needs it (see sha256). */
function loadCrypto(): typeof cryptoModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: a one-file verb never needs it
  return (nodeCrypto ??= require('node:crypto') as typeof cryptoModule);
}

/**
 * Bytes hashed in JavaScript before node:crypto is worth loading. In a fresh process the script
 * hashes ~0.6 ms of CPU a kilobyte (measured 28 Nov, session 16) and loading the module costs
 * 4–8 ms: a one-file `status` of a small file hashes the file and its state and never loads it; a
 * larger file or a scan goes over this at once and hashes natively from then on.
 */
const JS_HASH_BUDGET = 4096;
let jsHashed = 0;

/**
 * SHA-256 of bytes or a UTF-8 string, hex. The same answer whichever way it is computed. Nothing
 * is remembered: a caller that needs one text's hash twice hashes it once and hands it on (a hook's
 * judge of a large proposed text: its verdict's states go to the gates' judge, session 32).
 */
export function sha256(data: string | Uint8Array): string {
  if (!nodeCrypto) {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (jsHashed + bytes.length <= JS_HASH_BUDGET) {
      jsHashed += bytes.length;
      return sha256Js(bytes);
    }
    data = bytes;
  }
  const crypto = loadCrypto();
  // Node's one-shot hash (20.12+, 21.7+): no Hash object per call, about twice as fast on a file's bytes.
  const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash;
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
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
    state.delegation === undefined ? null : canonicalDelegation(state.delegation),
    state.ttl ?? null,
  ];
  return sha256(JSON.stringify(canonical));
}

function canonicalDelegation(d: unknown): unknown {
  // The common shape in a fixed order without sorting; anything else generically.
  const x = d as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.every((k) => DELEGATION_KEYS.has(k))) {
    return [x.agent ?? null, x.chain_path ?? null, x.depth ?? null, x.id ?? null, x.parent_id ?? null, x.root_id ?? null];
  }
  return canonicalize(d);
}

const DELEGATION_KEYS = new Set(['id', 'parent_id', 'root_id', 'depth', 'chain_path', 'agent']);

function canonicalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonicalize);
  if (v && typeof v === 'object') {
    const out: [string, unknown][] = [];
    for (const k of Object.keys(v).sort()) out.push([k, canonicalize((v as Record<string, unknown>)[k])]);
    return out;
  }
  return v ?? null;
}

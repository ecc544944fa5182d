/**
 * The value codec of the BMAD caches (sprintCache.ts): V8's own serializer (`node:v8`, the
 * structured clone), which keeps Map, Set, Date, RegExp, undefined, non-finite numbers, -0 and
 * shared objects itself, in native code: a 400-story sprint is written in ~5 ms and read in ~4,
 * where JSON with a tagged graph took ~19 and ~17 (29 Nov, session 18). What it does not keep is
 * noted beside the value by one walk (`marks`): null prototypes and frozen objects, each by its
 * place in the walk, given back on decode. What it would change silently is refused (class
 * instances, sealed objects, a RegExp with state): such a value is simply not cached.
 */
import * as v8 from 'node:v8';
import { sha256 } from '../model/hash';

/** A value the codec does not keep as it is: the caller does not cache it. */
export class Uncacheable extends Error {}

/** A value and what the serializer loses of it: the walk indexes of null-prototype and frozen objects. */
export interface Encoded {
  value: unknown;
  nullProto: number[];
  frozen: number[];
}

/**
 * Each object of `value` once, depth first (an array's items, an object's own enumerable keys, a
 * Map's keys and values, a Set's items), numbered in that order; `visit` sees each with its number.
 * The order depends only on the graph's shape, which the serializer keeps (key order included).
 */
function walk(value: unknown, visit: (o: object, i: number) => void): void {
  const seen = new Set<object>();
  let n = 0;
  const go = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    visit(v, n++);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) go(v[i]);
    } else if (v instanceof Map) {
      for (const [k, x] of v) (go(k), go(x));
    } else if (v instanceof Set) {
      for (const x of v) go(x);
    } else if (!(v instanceof Date) && !(v instanceof RegExp)) {
      for (const k of Object.keys(v)) go((v as Record<string, unknown>)[k]);
    }
  };
  go(value);
}

const PLAIN = new Set<unknown>([Object.prototype, Array.prototype, Map.prototype, Set.prototype, Date.prototype, RegExp.prototype, null]);

/** `value` ready for `serialize`: its null-prototype and frozen objects noted; Uncacheable when it cannot come back the same. */
export function encodeValue(value: unknown): Encoded {
  const nullProto: number[] = [];
  const frozen: number[] = [];
  walk(value, (o, i) => {
    const proto = Object.getPrototypeOf(o) as unknown;
    if (!PLAIN.has(proto)) throw new Uncacheable('class instance');
    if (o instanceof RegExp && o.lastIndex !== 0) throw new Uncacheable('regexp with state');
    if (proto === null) nullProto.push(i);
    if (Object.isFrozen(o)) {
      if (!(o instanceof RegExp)) frozen.push(i);
    } else if (!Object.isExtensible(o)) throw new Uncacheable('sealed');
  });
  return { value, nullProto, frozen };
}

/** The value `encodeValue` noted, with its null prototypes and frozen objects given back. Throws on a malformed one. */
export function decodeValue(e: Encoded): unknown {
  if (!e || typeof e !== 'object' || !Array.isArray(e.nullProto) || !Array.isArray(e.frozen)) throw new Error('malformed cache value');
  if (!e.nullProto.length && !e.frozen.length) return e.value;
  const nullProto = new Set(e.nullProto);
  const frozen = new Set(e.frozen);
  const toFreeze: object[] = [];
  walk(e.value, (o, i) => {
    if (nullProto.has(i)) Object.setPrototypeOf(o, null);
    if (frozen.has(i)) toFreeze.push(o);
  });
  // Frozen last: a frozen object's prototype could not be set, nor its children's if shared.
  for (const o of toFreeze) Object.freeze(o);
  return e.value;
}

const MAGIC = 'WMC1';
const HEAD = MAGIC.length + 64;

/**
 * The bytes of a cache file: a magic word, the SHA-256 of the payload and the payload (the file's
 * header fields and encoded values, serialized), so a file changed in any way after it was written
 * (torn, a byte flipped) is never read as another value. Throws Uncacheable on what cannot be
 * cloned (a function).
 */
export function serialize(file: unknown): Buffer {
  let payload: Buffer;
  try {
    payload = v8.serialize(file);
  } catch (err) {
    throw new Uncacheable((err as Error).message);
  }
  return Buffer.concat([Buffer.from(MAGIC + sha256(payload), 'latin1'), payload]);
}

/** A cache file's contents, or undefined for bytes that are not one whole (torn, changed, foreign, another V8's format). */
export function deserialize(bytes: Buffer): unknown {
  if (bytes.length < HEAD || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
  const payload = bytes.subarray(HEAD);
  if (sha256(payload) !== bytes.toString('latin1', MAGIC.length, HEAD)) return undefined;
  try {
    return v8.deserialize(payload);
  } catch {
    return undefined;
  }
}

/** SHA-256 of a value's serialized form (a cache's key parts); throws Uncacheable on what cannot be cloned. */
export function digest(value: unknown): string {
  try {
    return sha256(v8.serialize(value));
  } catch (err) {
    throw new Uncacheable((err as Error).message);
  }
}

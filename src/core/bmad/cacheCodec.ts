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

/** One step from an object to a child: an own key (an array's index too), or a Map entry's key (0) or value (1), or a Set's item, by position. */
type Step = string | ['m', number, 0 | 1] | ['s', number];

/** A value and what the serializer loses of it: the paths (from the value) to null-prototype and frozen objects. */
export interface Encoded {
  value: unknown;
  nullProto: Step[][];
  frozen: Step[][];
}

/**
 * Each object of `value` once, depth first (an array's items, an object's own enumerable keys, a
 * Map's keys and values, a Set's items), with the path it was first reached by. Only children that
 * are objects are stepped into (most values of a cache are strings and numbers), and the path is
 * copied only when asked for (`at`): a 400-story sprint is walked in a few milliseconds.
 */
function walk(value: unknown, visit: (o: object, at: () => Step[]) => void): void {
  const seen = new Set<object>();
  // An array index is kept as its number until a path is copied.
  const path: (Step | number)[] = [];
  const at = (): Step[] => path.map((s) => (typeof s === 'number' ? String(s) : s));
  const go = (v: object): void => {
    if (seen.has(v)) return;
    seen.add(v);
    visit(v, at);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null && typeof x === 'object') (path.push(i), go(x), path.pop());
      }
    } else if (v instanceof Map) {
      let i = 0;
      // (forEach, not `for (const [k, x] of v)`: that made a [key, value] array of each entry.)
      (v as Map<unknown, unknown>).forEach((x, k) => {
        if (k !== null && typeof k === 'object') (path.push(['m', i, 0]), go(k), path.pop());
        if (x !== null && typeof x === 'object') (path.push(['m', i, 1]), go(x), path.pop());
        i++;
      });
    } else if (v instanceof Set) {
      let i = 0;
      for (const x of v) {
        if (x !== null && typeof x === 'object') (path.push(['s', i]), go(x as object), path.pop());
        i++;
      }
    } else if (!(v instanceof Date) && !(v instanceof RegExp)) {
      for (const k of Object.keys(v)) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== null && typeof x === 'object') (path.push(k), go(x), path.pop());
      }
    }
  };
  if (value !== null && typeof value === 'object') go(value);
}

const PLAIN = new Set<unknown>([Object.prototype, Array.prototype, Map.prototype, Set.prototype, Date.prototype, RegExp.prototype, null]);

/** `value` ready for `serialize`: the paths to its null-prototype and frozen objects noted; Uncacheable when it cannot come back the same. */
export function encodeValue(value: unknown): Encoded {
  const nullProto: Step[][] = [];
  const frozen: Step[][] = [];
  walk(value, (o, at) => {
    const proto = Object.getPrototypeOf(o) as unknown;
    if (!PLAIN.has(proto)) throw new Uncacheable('class instance');
    if (o instanceof RegExp && o.lastIndex !== 0) throw new Uncacheable('regexp with state');
    if (proto === null) nullProto.push(at());
    if (Object.isFrozen(o)) {
      if (!(o instanceof RegExp)) frozen.push(at());
    } else if (!Object.isExtensible(o)) throw new Uncacheable('sealed');
  });
  return { value, nullProto, frozen };
}

/** The object at `path` from `root` (the serializer keeps key and entry order, so the same one); `entries` keeps each Map's and Set's entries once listed. */
function follow(root: unknown, path: unknown, entries: Map<object, unknown[]>): object {
  if (!Array.isArray(path)) throw new Error('malformed cache value');
  let v = root;
  for (const step of path as unknown[]) {
    if (v === null || typeof v !== 'object') throw new Error('malformed cache value');
    if (typeof step === 'string') {
      if (v instanceof Map || v instanceof Set || !Object.prototype.hasOwnProperty.call(v, step)) throw new Error('malformed cache value');
      v = (v as Record<string, unknown>)[step];
    } else if (Array.isArray(step) && typeof step[1] === 'number') {
      const kind = step[0] === 'm' && v instanceof Map ? v : step[0] === 's' && v instanceof Set ? v : undefined;
      if (!kind) throw new Error('malformed cache value');
      let list = entries.get(kind);
      if (!list) entries.set(kind, (list = [...kind]));
      if (step[1] < 0 || step[1] >= list.length) throw new Error('malformed cache value');
      const e = list[step[1]];
      v = step[0] === 'm' ? (e as [unknown, unknown])[step[2] === 0 ? 0 : 1] : e;
    } else throw new Error('malformed cache value');
  }
  if (v === null || typeof v !== 'object') throw new Error('malformed cache value');
  return v;
}

/** The value `encodeValue` noted, with its null prototypes and frozen objects given back (found by their paths, no walk). Throws on a malformed one. */
export function decodeValue(e: Encoded): unknown {
  if (!e || typeof e !== 'object' || !Array.isArray(e.nullProto) || !Array.isArray(e.frozen)) throw new Error('malformed cache value');
  const entries = new Map<object, unknown[]>();
  for (const p of e.nullProto) Object.setPrototypeOf(follow(e.value, p, entries), null);
  // Frozen last: a frozen object's prototype could not be set, nor a child's reached through it.
  const toFreeze = e.frozen.map((p) => follow(e.value, p, entries));
  for (const o of toFreeze) Object.freeze(o);
  return e.value;
}

const MAGIC = 'WMC1';
const HEAD = MAGIC.length + 19;

/**
 * A checksum of bytes, hex: zlib's CRC-32 and the length (native, ~0.4 ms for a 600 KB sprint;
 * a JavaScript loop took 10–30 ms cold and node:crypto ~10 ms to load on a warm `sprint`), else
 * SHA-256 on a Node without `zlib.crc32` (before 20.15). It tells a torn or changed file from the
 * one written; it is no defence against a forged file, nor needs to be (stat keys are checked).
 */
function checksum(bytes: Uint8Array): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: most verbs read no cache
  const crc32 = (require('node:zlib') as { crc32?: (data: Uint8Array) => number }).crc32;
  return crc32 ? `crc${(crc32(bytes) >>> 0).toString(16).padStart(8, '0')}${bytes.length.toString(16).padStart(8, '0')}` : `sha${sha256(bytes).slice(0, 16)}`;
}

/**
 * The bytes of a cache file: a magic word, a checksum of the payload and the payload (the file's
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
  return Buffer.concat([Buffer.from(MAGIC + checksum(payload), 'latin1'), payload]);
}

/** A cache file's contents, or undefined for bytes that are not one whole (torn, changed, foreign, another V8's format). */
export function deserialize(bytes: Buffer): unknown {
  if (bytes.length < HEAD || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
  const payload = bytes.subarray(HEAD);
  if (checksum(payload) !== bytes.toString('latin1', MAGIC.length, HEAD)) return undefined;
  try {
    return v8.deserialize(payload);
  } catch {
    return undefined;
  }
}

/** A value's serialized form as text (a cache's key parts, compared whole); throws Uncacheable on what cannot be cloned. */
export function digest(value: unknown): string {
  try {
    return v8.serialize(value).toString('base64');
  } catch (err) {
    throw new Uncacheable((err as Error).message);
  }
}

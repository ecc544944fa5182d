/**
 * The scan index's value codec: JSON plus what JSON loses (undefined, NaN, ±Infinity, -0, null
 * prototypes). encodeValue returns the JSON-safe tree and a fix-up trie; decodeValue applies it to
 * freshly parsed JSON in place and throws DecodeError on anything malformed.
 */
/** A meta trie mirrors the value tree along the paths that need a fix-up. */
export interface Meta {
  /** Tag for this node: 'u' undefined, 'nan', 'inf', '-inf', '-0', 'n' null-prototype object, 'p' plain object under a null-prototype one. */
  t?: string;
  /** Children by key (object keys, or array indexes as strings). */
  c?: Record<string, Meta>;
}

const UNDEFINED_META: Meta = { t: 'u' };
const NAN_META: Meta = { t: 'nan' };
const INF_META: Meta = { t: 'inf' };
const NEG_INF_META: Meta = { t: '-inf' };
const NEG_ZERO_META: Meta = { t: '-0' };

/** Encodes a value for JSON: returns the JSON-safe tree and the fix-up trie (undefined when none). */
export function encodeValue(value: unknown): [unknown, Meta | undefined] {
  // Plain arrays and objects whose children all keep their JSON form are returned as they are
  // (JSON.stringify writes them the same as a copy): only what needs a fix-up is copied. The meta
  // of the value walk() returned last is left in `meta` (no pair allocated per value visited).
  // Leaf metas are shared: they are only ever written out, never changed.
  let meta: Meta | undefined;
  const walk = (v: unknown, inNull: boolean): unknown => {
    if (v === undefined) {
      meta = UNDEFINED_META;
      return null;
    }
    if (typeof v === 'number') {
      if (Number.isNaN(v)) meta = NAN_META;
      else if (v === Infinity) meta = INF_META;
      else if (v === -Infinity) meta = NEG_INF_META;
      else if (v === 0 && 1 / v < 0) meta = NEG_ZERO_META;
      else {
        meta = undefined;
        return v;
      }
      return meta === NEG_ZERO_META ? 0 : null;
    }
    if (v === null || typeof v !== 'object') {
      meta = undefined;
      return v;
    }
    let children: Record<string, Meta> | undefined;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined = Object.getPrototypeOf(v) === Array.prototype ? undefined : [];
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        const j = walk(x, inNull);
        if (!out && j !== x) out = v.slice(0, i);
        if (out) out[i] = j;
        if (meta) (children ??= Object.create(null) as Record<string, Meta>)[String(i)] = meta;
      }
      if (out && out.length < v.length) out.length = v.length;
      meta = children ? { c: children } : undefined;
      return out ?? v;
    }
    const proto = Object.getPrototypeOf(v);
    const nul = proto === null;
    const keys = Object.keys(v);
    let out: Record<string, unknown> | undefined = nul || proto === Object.prototype ? undefined : Object.create(null);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const x = (v as Record<string, unknown>)[k];
      const j = walk(x, nul);
      if (!out && j !== x) {
        out = Object.create(null) as Record<string, unknown>;
        for (let e = 0; e < i; e++) out[keys[e]] = (v as Record<string, unknown>)[keys[e]];
      }
      if (out) out[k] = j;
      if (meta) (children ??= Object.create(null) as Record<string, Meta>)[k] = meta;
    }
    const tag = nul && !inNull ? 'n' : !nul && inNull ? 'p' : undefined;
    const json = out ?? v;
    if (!tag && !children) {
      meta = undefined;
      return json;
    }
    const m: Meta = {};
    if (tag) m.t = tag;
    if (children) m.c = children;
    meta = m;
    return json;
  };
  const json = walk(value, false);
  return [json, meta];
}

/** A restored value that does not decode: the entry is a miss. */
export class DecodeError extends Error {}

const MAX_DECODE_DEPTH = 256;

function setOwn(o: object, k: string, v: unknown): void {
  // A plain assignment keeps the object's hidden class (defineProperty turns a JSON.parse'd object
  // into a slow dictionary, which every later read of a restored state pays for); only a
  // `__proto__` key needs defineProperty, so it stays an own data property, never a prototype change.
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else (o as Record<string, unknown>)[k] = v;
}

/**
 * Inverse of encodeValue over freshly parsed JSON, in place: only the paths the fix-up trie
 * names and the null-prototype subtrees are visited. Throws DecodeError on anything malformed.
 */
export function decodeValue(json: unknown, meta: unknown): unknown {
  const own = Object.prototype.hasOwnProperty;
  const walk = (v: unknown, m: unknown, inNull: boolean, depth: number): unknown => {
    if (depth > MAX_DECODE_DEPTH) throw new DecodeError('too deep');
    let tag: unknown;
    let kids: Record<string, unknown> | undefined;
    if (m !== undefined) {
      if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new DecodeError('bad meta');
      const mm = m as Record<string, unknown>;
      tag = own.call(mm, 't') ? mm.t : undefined;
      const c = own.call(mm, 'c') ? mm.c : undefined;
      if (c !== undefined) {
        if (typeof c !== 'object' || c === null || Array.isArray(c)) throw new DecodeError('bad meta children');
        kids = c as Record<string, unknown>;
      }
    }
    switch (tag) {
      case undefined:
        break;
      case 'u':
        return undefined;
      case 'nan':
        return NaN;
      case 'inf':
        return Infinity;
      case '-inf':
        return -Infinity;
      case '-0':
        return -0;
      case 'n':
      case 'p':
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new DecodeError('prototype tag on a non-object');
        break;
      default:
        throw new DecodeError('unknown tag');
    }
    if (v === null || typeof v !== 'object') {
      if (kids) throw new DecodeError('children on a scalar');
      return v;
    }
    if (Array.isArray(v)) {
      if (inNull) {
        for (let i = 0; i < v.length; i++) {
          const k = kids && own.call(kids, String(i)) ? kids[String(i)] : undefined;
          v[i] = walk(v[i], k, true, depth + 1);
        }
      } else if (kids) {
        for (const k of Object.keys(kids)) {
          const i = Number(k);
          if (!Number.isInteger(i) || i < 0 || i >= v.length) throw new DecodeError('bad index');
          v[i] = walk(v[i], kids[k], false, depth + 1);
        }
      }
      return v;
    }
    const o = v as Record<string, unknown>;
    const nul = tag === 'n' ? true : tag === 'p' ? false : inNull;
    if (nul) {
      Object.setPrototypeOf(o, null);
      for (const k of Object.keys(o)) {
        const old = o[k];
        const val = walk(old, kids && own.call(kids, k) ? kids[k] : undefined, true, depth + 1);
        if (!Object.is(val, old)) setOwn(o, k, val);
      }
    } else if (kids) {
      for (const k of Object.keys(kids)) {
        if (!own.call(o, k)) throw new DecodeError('meta for a missing key');
        const old = o[k];
        const val = walk(old, kids[k], false, depth + 1);
        if (!Object.is(val, old)) setOwn(o, k, val);
      }
    }
    return o;
  };
  return walk(json, meta, false, 0);
}

/**
 * A `sprint-status.yaml` read without the YAML package when it is written in the plain form BMAD's
 * sprint planning writes: comment lines, top-level `key: value` lines, and one `development_status:`
 * block of `  key: word` lines at one indent. For such a text the YAML package (core schema, unique
 * keys or not) reports no error and reads exactly the data returned here; anything else (flow
 * collections, quotes with escapes, tabs, anchors, a repeated key, a number, boolean or null where a
 * word is expected, a nested mapping, a continuation line...) is not plain, and the caller asks the
 * YAML package. A 1,000-entry ledger parses in ~15 ms with the package, ~0.5 ms here; a story status
 * change judges and checks its ledger four times (ledgerEdit.ts, model/bmadProposal.ts).
 * test/unit/ledgerPlain.test.ts compares both readers on generated ledgers, near misses included.
 */

/** Where a scalar's bytes are, as the YAML package's `range` gives them (quotes included). */
export interface PlainSpan {
  start: number;
  end: number;
  /** '"' or "'" for a quoted top-level value; '' for a plain one. */
  quote: '' | '"' | "'";
}

export interface PlainLedger {
  /** The document as `toJS()` reads it: top-level strings or null, `development_status` an object of words (or null when empty). */
  data: Record<string, unknown>;
  /** `development_status`'s entries in order, each with its value's span. */
  entries: Map<string, PlainSpan>;
  /** Top-level keys with a value, each with its value's span. */
  top: Map<string, PlainSpan>;
}

// A key: letters, digits, `_ . -` (any script), not starting with `-` or `.`, at most 200 characters
// (the YAML package refuses implicit keys past 1024).
const KEY = /^[\p{L}\p{N}_][\p{L}\p{N}\p{M}_.-]{0,199}$/u;
// An entry's word: `done`, `ready-for-dev`, `in_progress`, `v1.2`.
const WORD = /^[\p{L}\p{N}][\p{L}\p{N}\p{M}_.-]*$/u;
// A top-level plain value (`01-06-2026 10:00`, `file-system`, `My Project (beta)`): no indicator
// first, no `: ` or ` #` inside (split off before), no flow characters, quotes or backslashes.
const TOP_PLAIN = /^[\p{L}\p{N}_./(~+=$^][\p{L}\p{N}\p{M} _./()~+=$^:;!?@&*%-]*$/u;
const TOP_QUOTED = /^(?:"[^"\\\p{Cc}]*"|'[^'\p{Cc}]*')$/u;

/** What the core schema reads as something other than a string (yaml's core tags: null, bool, int, float). */
const CORE_NOT_STRING = /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+)$/;

const isString = (s: string) => !CORE_NOT_STRING.test(s);
const ASCII_KEY = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;
const okKey = (k: string) => (ASCII_KEY.test(k) || KEY.test(k)) && isString(k) && k !== '__proto__';

/** The key, the value's text and where it starts, of `key: value # comment` (value may be ''), else undefined. */
function keyValue(line: string, from: number): { key: string; value: string; at: number } | undefined {
  const colon = line.indexOf(':', from);
  if (colon < 0) return undefined;
  const key = line.slice(from, colon);
  if (!okKey(key)) return undefined;
  let i = colon + 1;
  if (i < line.length && line[i] !== ' ') return undefined;
  while (line[i] === ' ') i++;
  let rest = line.slice(i);
  if (rest.startsWith('#')) rest = '';
  const hash = rest.indexOf(' #');
  if (hash >= 0) rest = rest.slice(0, hash);
  return { key, value: rest.replace(/ +$/, ''), at: i };
}

// The last texts read: a status change reads the ledger before and after the edit several times
// (the edit, the rules, the check before the rename and after it).
const recent: { text: string; read: PlainLedger | undefined }[] = [];

/**
 * The plain reading of `text`, or undefined when it is not in the plain form (ask the YAML package).
 * The answer may be shared with other callers: read it, never change it.
 */
export function plainLedger(text: string): PlainLedger | undefined {
  const hit = recent.find((r) => r.text === text);
  if (hit) return hit.read;
  const read = readPlain(text);
  recent.unshift({ text, read });
  recent.length = Math.min(recent.length, 2);
  return read;
}

function readPlain(text: string): PlainLedger | undefined {
  if (!text || /\r(?!\n)|\t|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/.test(text) || text.length > 4_000_000) return undefined;
  const data: Record<string, unknown> = {};
  const entries = new Map<string, PlainSpan>();
  const top = new Map<string, PlainSpan>();
  let inDev = false;
  let devIndent = -1;
  let dev: Record<string, string> | undefined;
  let offset = 0;
  for (const raw of text.split('\n')) {
    const lineStart = offset;
    offset += raw.length + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    let indent = 0;
    while (line[indent] === ' ') indent++;
    if (indent === line.length || line[indent] === '#') continue;
    if (indent > 0) {
      // Only the development_status block is indented, all its entries at one indent.
      if (!inDev || (devIndent >= 0 && indent !== devIndent)) return undefined;
      devIndent = indent;
      const kv = keyValue(line, indent);
      if (!kv || !WORD.test(kv.value) || !isString(kv.value) || Object.prototype.hasOwnProperty.call(dev ??= {}, kv.key)) return undefined;
      dev[kv.key] = kv.value;
      entries.set(kv.key, { start: lineStart + kv.at, end: lineStart + kv.at + kv.value.length, quote: '' });
      continue;
    }
    if (inDev) data.development_status = dev ?? null;
    inDev = false;
    const kv = keyValue(line, 0);
    if (!kv || Object.prototype.hasOwnProperty.call(data, kv.key)) return undefined;
    if (kv.value === '') {
      data[kv.key] = null;
      if (kv.key === 'development_status') inDev = true;
      continue;
    }
    if (kv.key === 'development_status') return undefined;
    let value: string;
    if (TOP_QUOTED.test(kv.value)) value = kv.value.slice(1, -1);
    else if (TOP_PLAIN.test(kv.value) && !kv.value.endsWith(':') && !/: /.test(kv.value) && isString(kv.value)) value = kv.value;
    else return undefined;
    data[kv.key] = value;
    top.set(kv.key, { start: lineStart + kv.at, end: lineStart + kv.at + kv.value.length, quote: kv.value[0] === '"' || kv.value[0] === "'" ? (kv.value[0] as '"' | "'") : '' });
  }
  if (inDev) data.development_status = dev ?? null;
  // (Comments alone: the YAML package reads no document, null.)
  if (!Object.keys(data).length) return undefined;
  return { data, entries, top };
}

/**
 * A fast reader for the YAML that workflow frontmatter is nearly always written in: `key: value`
 * lines, nested block mappings, block sequences and one-line `[a, b]` lists of plain or quoted
 * scalars, literal and folded block scalars as mapping values (`notes: >-`, `body: |2`),
 * comments and blank lines. It answers exactly what the reference path (js-yaml safeLoad, then
 * `toPlainData`) answers, or `undefined` to say "not sure, ask the reference": anything else —
 * anchors, tags, block scalars as sequence items, multi-line plain or quoted scalars, escapes,
 * floats, timestamps with a time, duplicate or prototype-polluting keys, tabs, control
 * characters — is left to it. test/unit/plainYaml.test.ts and test/unit/blockScalar.test.ts
 * check that claim differentially on generated and hostile input.
 */
import { exactArray, ownString, valueList } from './text';

/** js-yaml's rendering of a timestamp after `toPlainData`: date-only stays `YYYY-MM-DD`. */
export function yamlDateToString(d: Date): string {
  if (Number.isNaN(d.getTime())) return String(d);
  const iso = d.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** Not sure: the reference parser decides. */
const BAIL = Symbol('bail');
type Value = unknown;

/** Characters js-yaml refuses, line breaks it reads differently, and tabs (indentation rules differ). */
const UNSURE_CHARS = /[\x00-\x08\t\x0B\x0C\x0E-\x1F\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
/** Anything outside printable ASCII and the line feed: only then can UNSURE_CHARS match (it is much slower to run). */
const NOT_PLAIN_ASCII = /[^\n\x20-\x7E]/;
const INT = /^-?(?:0|[1-9][0-9]{0,14})$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const RESERVED_KEYS = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '__proto__', 'constructor', 'prototype']);
const MAX_DEPTH = 200;
/**
 * A block scalar header js-yaml 3 reads: `|` or `>`, at most one chomping indicator and one
 * indentation indicator (1–9) in either order, then nothing or a comment after a space.
 */
const BLOCK_HEADER = /^[|>](?:[+-][1-9]?|[1-9][+-]?)?(?: +#.*)?$/;

interface Line {
  indent: number;
  /** The line without its indentation and trailing spaces. */
  text: string;
  /** 0-based line in the YAML text. */
  row: number;
  /** Offset of the line's start in the (LF-normalised) YAML text. */
  pos: number;
}

/** Where a value sits: 0-based line in the YAML text and [start, end) columns on it. */
export interface ValueSpan {
  row: number;
  start: number;
  end: number;
}

/**
 * Positions the fast reader took while reading: the key of one top-level mapping and the values
 * of its entries written on their key's line (what a YAML parser's node ranges would say).
 * `nested` lists the entries whose value was not on the key line (their position is not known).
 */
export interface MappingSpans {
  key: ValueSpan;
  values: Record<string, ValueSpan>;
  nested: string[];
  /** The key's own value when it is written on the key's line (a scalar or a one-line list). */
  own: ValueSpan | undefined;
}

/**
 * The plain data of a YAML mapping, as the reference path would build it (null-prototype
 * objects, plain arrays, date-only timestamps as strings), or `undefined` when the text uses
 * anything this reader does not handle. `maxNodes` is the reference's node cap: a text over it
 * is left to the reference (which reports it).
 */
export function parsePlainYaml(yamlText: string, maxNodes: number, spansOf?: { key: string; out?: MappingSpans }): Record<string, unknown> | undefined {
  // Every value is cut from this text, and a cut of 13 characters or more keeps the string it was
  // cut from alive: a text of its own (not a view of the file's) keeps the frontmatter with a state,
  // not the whole file. One copy here costs less than one for each value.
  const text = yamlText.includes('\r') ? yamlText.replace(/\r\n?/g, '\n') : ownString(yamlText);
  if (NOT_PLAIN_ASCII.test(text) && UNSURE_CHARS.test(text)) return undefined;
  const lines: Line[] = [];
  let pos = 0;
  let row = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    let indent = pos;
    while (indent < end && text.charCodeAt(indent) === 32) indent++;
    if (indent < end && text.charCodeAt(indent) !== 35 /* # */) {
      let stop = end;
      while (stop > indent && text.charCodeAt(stop - 1) === 32) stop--;
      lines.push({ indent: indent - pos, text: text.slice(indent, stop), row, pos });
    }
    pos = end + 1;
    row++;
  }
  const reader = new Reader(text, lines, maxNodes, spansOf?.key);
  const out = reader.document();
  if (out === BAIL) return undefined;
  if (spansOf) spansOf.out = reader.spans;
  return out as Record<string, unknown>;
}

class Reader {
  private i = 0;
  private nodes = 0;
  /** Length of the last value read by inline(), from the start of its text. */
  private lastLength = 0;
  /** Positions in the mapping under `spanKey` (a top-level key), when asked for. */
  spans?: MappingSpans;
  /** True while the value of `spanKey` is read. */
  private recording = false;

  constructor(
    private readonly text: string,
    private readonly lines: Line[],
    private readonly maxNodes: number,
    private readonly spanKey?: string,
  ) {}

  document(): Value {
    if (!this.lines.length) return Object.create(null);
    if (this.lines[0].indent !== 0) return BAIL;
    const v = this.mapping(0, 0);
    return this.i === this.lines.length ? v : BAIL;
  }

  /** Counts a value as toPlainData does (every scalar and collection), with its depth cap. */
  private node(v: Value, depth: number): Value {
    return ++this.nodes > this.maxNodes || depth > MAX_DEPTH ? BAIL : v;
  }

  private mapping(indent: number, depth: number): Value {
    if (this.node(0, depth) === BAIL) return BAIL;
    // Built as a plain object and given its null prototype at the end: V8 keeps it a fast object
    // (Object.create(null) starts a hash-table object that grows key by key, ~5x the cost). A
    // `__proto__` key (the one a plain object would not take as its own) bails before it is set.
    const out: Record<string, unknown> = {};
    const lines = this.lines;
    // Keys set; fewer own keys at the end means one was given twice (js-yaml refuses that).
    let count = 0;
    while (this.i < lines.length) {
      const line = lines[this.i];
      if (line.indent < indent) break;
      if (line.indent > indent) return BAIL;
      const t = line.text;
      const k = keyLength(t);
      if (!k) return BAIL;
      const key = t.slice(0, k);
      if ((k === 4 || k === 5 || k === 9 || k === 11) && RESERVED_KEYS.has(key)) return BAIL;
      this.i++;
      const restAt = k + 1 < t.length ? skipSpaces(t, k + 1) : t.length;
      const rest = k + 1 < t.length ? t.slice(restAt) : undefined;
      const spans = depth === 1 && this.recording ? this.spans : undefined;
      if (depth === 0) this.recording = key === this.spanKey;
      if (depth === 0 && this.recording) this.spans = { key: { row: line.row, start: indent, end: indent + k }, values: Object.setPrototypeOf({}, null) as Record<string, ValueSpan>, nested: [], own: undefined };
      let value: Value;
      if (rest === undefined || rest === '' || rest.charCodeAt(0) === 35 /* # */) {
        value = this.nested(indent, depth + 1);
        spans?.nested.push(key);
      } else if (rest.charCodeAt(0) === 124 /* | */ || rest.charCodeAt(0) === 62 /* > */) {
        value = this.blockScalar(rest, line, indent, depth + 1);
        spans?.nested.push(key);
      } else {
        value = this.inline(rest, depth + 1);
        // A more indented line after a value would continue it (a multi-line scalar).
        if (this.i < lines.length && lines[this.i].indent > indent) return BAIL;
        if (spans) spans.values[key] = { row: line.row, start: indent + restAt, end: indent + restAt + this.lastLength };
        else if (depth === 0 && this.recording && this.spans) this.spans.own = { row: line.row, start: indent + restAt, end: indent + restAt + this.lastLength };
      }
      if (depth === 0) this.recording = false;
      if (value === BAIL) return BAIL;
      out[key] = value;
      count++;
    }
    if (Object.keys(out).length !== count) return BAIL;
    return Object.setPrototypeOf(out, null) as Record<string, unknown>;
  }

  /** The value of `key:` with nothing after it: a nested block, or null. */
  private nested(indent: number, depth: number): Value {
    const next = this.lines[this.i];
    if (!next || next.indent < indent) return this.node(null, depth);
    const item = isItem(next.text);
    if (next.indent > indent) return item ? this.sequence(next.indent, depth) : this.mapping(next.indent, depth);
    // `key:` then `- a` at the same indentation: a sequence that belongs to the key.
    return item ? this.sequence(indent, depth) : this.node(null, depth);
  }

  /**
   * A literal (`|`) or folded (`>`) block scalar that is the value of a key at `indent`, read
   * from the raw lines below the key's line the way js-yaml 3 reads it (its readBlockScalar:
   * indentation detected from the first non-blank line, or `indent` + the indicator; blank lines,
   * more-indented folded lines, and clip/strip/keep chomping). Lines it takes are skipped in
   * `lines` (comments and blank lines inside it were never there). BAIL on a header js-yaml
   * refuses or reads otherwise, and on a scalar that runs to the end of a text with no final
   * line break (the reference chomps differently there).
   */
  private blockScalar(header: string, line: Line, indent: number, depth: number): Value {
    if (!BLOCK_HEADER.test(header)) return BAIL;
    const folded = header.charCodeAt(0) === 62;
    let chomp = 0; // 0 clip, 1 keep, -1 strip
    let width = 0;
    for (let k = 1; k < header.length; k++) {
      const ch = header.charCodeAt(k);
      if (ch === 43 /* + */) chomp = 1;
      else if (ch === 45 /* - */) chomp = -1;
      else if (ch >= 49 && ch <= 57) width = ch - 48;
      else break;
    }
    const text = this.text;
    const nl = text.indexOf('\n', line.pos);
    if (nl === -1) return BAIL;
    let pos = nl + 1;
    let row = line.row + 1;
    let textIndent = width ? indent + width : indent + 1;
    let detected = width > 0;
    let out = '';
    let empty = 0;
    let read = false;
    let moreIndented = false;
    for (;;) {
      let p = pos;
      if (detected) {
        const stop = pos + textIndent;
        while (p < stop && text.charCodeAt(p) === 32) p++;
      } else {
        while (text.charCodeAt(p) === 32) p++;
      }
      const lineIndent = p - pos;
      if (!detected && lineIndent > textIndent) textIndent = lineIndent;
      if (p >= text.length) {
        // Spaces then the end of the text: js-yaml reads that as a last, unterminated line.
        if (lineIndent >= textIndent) return BAIL;
        break;
      }
      if (text.charCodeAt(p) === 10) {
        empty++;
        pos = p + 1;
        row++;
        continue;
      }
      if (lineIndent < textIndent) break;
      if (folded) {
        if (text.charCodeAt(p) === 32) {
          moreIndented = true;
          out += '\n'.repeat(read ? 1 + empty : empty);
        } else if (moreIndented) {
          moreIndented = false;
          out += '\n'.repeat(empty + 1);
        } else if (empty === 0) {
          if (read) out += ' ';
        } else {
          out += '\n'.repeat(empty);
        }
      } else {
        out += '\n'.repeat(read ? 1 + empty : empty);
      }
      read = true;
      detected = true;
      empty = 0;
      const end = text.indexOf('\n', p);
      if (end === -1) return BAIL;
      out += text.slice(p, end);
      pos = end + 1;
      row++;
    }
    // The scalar ends before the line at `pos` (or at the end of the text): chomp.
    if (chomp === 1) out += '\n'.repeat(read ? 1 + empty : empty);
    else if (chomp === 0 && read) out += '\n';
    const lines = this.lines;
    while (this.i < lines.length && lines[this.i].row < row) this.i++;
    return this.node(out, depth);
  }

  private sequence(indent: number, depth: number): Value {
    if (this.node(0, depth) === BAIL) return BAIL;
    // One element kind for every list read (valueList): `[1, 2]`, `[a]` and `[]` reach the parse as one map.
    const out: unknown[] = valueList();
    const lines = this.lines;
    while (this.i < lines.length) {
      const line = lines[this.i];
      if (line.indent < indent || (line.indent === indent && !isItem(line.text))) break;
      if (line.indent > indent || line.text.length < 3) return BAIL;
      let start = 2;
      while (line.text.charCodeAt(start) === 32) start++;
      this.i++;
      const v = this.inline(line.text.slice(start), depth + 1);
      if (v === BAIL) return BAIL;
      if (this.i < lines.length && lines[this.i].indent > indent) return BAIL;
      out.push(v);
    }
    return exactArray(out);
  }

  /** A value written on the key's (or item's) line. */
  private inline(rest: string, depth: number): Value {
    const c = rest.charCodeAt(0);
    if (c === 91 /* [ */) return this.flowSequence(rest, depth);
    if (c === 39 /* ' */ || c === 34 /* " */) {
      const q = quoted(rest, 0);
      this.lastLength = q ? q.end : 0;
      return q && onlyComment(rest, q.end) ? this.node(q.value, depth) : BAIL;
    }
    if (c === 123 /* { */) {
      this.lastLength = 2;
      return /^\{\}(?: +(?:#.*)?)?$/.test(rest) ? this.node(Object.create(null), depth) : BAIL;
    }
    const hash = rest.indexOf(' #');
    const raw = hash === -1 ? rest : trimSpaces(rest.slice(0, hash));
    if (raw.includes(': ') || raw.endsWith(':')) return BAIL;
    this.lastLength = raw.length;
    const v = plainScalar(raw);
    return v === BAIL ? BAIL : this.node(v, depth);
  }

  private flowSequence(rest: string, depth: number): Value {
    if (this.node(0, depth) === BAIL) return BAIL;
    const out: unknown[] = valueList();
    let p = skipSpaces(rest, 1);
    if (rest.charCodeAt(p) === 93 /* ] */) {
      this.lastLength = p + 1;
      return onlyComment(rest, p + 1) ? out : BAIL;
    }
    for (;;) {
      let v: Value;
      const c = rest.charCodeAt(p);
      if (c === 39 || c === 34) {
        const q = quoted(rest, p);
        if (!q) return BAIL;
        v = q.value;
        p = skipSpaces(rest, q.end);
      } else {
        let e = p;
        while (e < rest.length) {
          const ch = rest.charCodeAt(e);
          if (ch === 44 /* , */ || ch === 93 /* ] */) break;
          // Nested collections, comments, quotes and `:` (flow pairs) are the reference's.
          if (ch === 91 || ch === 123 || ch === 125 || ch === 35 || ch === 58 || ch === 39 || ch === 34) return BAIL;
          e++;
        }
        const raw = trimSpaces(rest.slice(p, e));
        if (!raw) return BAIL;
        v = plainScalar(raw);
        if (v === BAIL) return BAIL;
        p = e;
      }
      if (this.node(v, depth + 1) === BAIL) return BAIL;
      out.push(v);
      const sep = rest.charCodeAt(p);
      if (sep === 93) {
        this.lastLength = p + 1;
        return onlyComment(rest, p + 1) ? exactArray(out) : BAIL;
      }
      if (sep !== 44) return BAIL;
      p = skipSpaces(rest, p + 1);
      // `[a, ]` and `[a,,b]` are the reference's.
      if (p >= rest.length || rest.charCodeAt(p) === 93 || rest.charCodeAt(p) === 44) return BAIL;
    }
  }
}

/**
 * Length of the key that starts a `key: value` or `key:` line: a letter, then letters, digits,
 * `_` or `-`, then `:` and a space or the line's end. 0 when the line is not one.
 */
function keyLength(t: string): number {
  const c = t.charCodeAt(0);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return 0;
  let k = 1;
  for (; k < t.length; k++) {
    const ch = t.charCodeAt(k);
    if (!((ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122) || (ch >= 48 && ch <= 57) || ch === 95 || ch === 45)) break;
  }
  if (t.charCodeAt(k) !== 58 /* : */) return 0;
  return k + 1 === t.length || t.charCodeAt(k + 1) === 32 ? k : 0;
}

function isItem(text: string): boolean {
  return text === '-' || (text.charCodeAt(0) === 45 && text.charCodeAt(1) === 32);
}

/** Trailing spaces off (YAML's white space is space and tab; String#trimEnd takes more). */
function trimSpaces(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 32) e--;
  return e === s.length ? s : s.slice(0, e);
}

function skipSpaces(s: string, p: number): number {
  while (s.charCodeAt(p) === 32) p++;
  return p;
}

/** True when nothing but spaces and a comment follows position `p`. */
function onlyComment(s: string, p: number): boolean {
  if (p >= s.length) return true;
  if (s.charCodeAt(p) !== 32) return false;
  p = skipSpaces(s, p);
  return p >= s.length || s.charCodeAt(p) === 35;
}

/** A one-line quoted scalar starting at `p`: single quotes with `''`, double quotes without escapes. */
function quoted(s: string, p: number): { value: string; end: number } | undefined {
  const q = s.charCodeAt(p);
  if (q === 34) {
    const close = s.indexOf('"', p + 1);
    if (close === -1) return undefined;
    const value = s.slice(p + 1, close);
    return value.includes('\\') ? undefined : { value, end: close + 1 };
  }
  let out = '';
  let from = p + 1;
  for (;;) {
    const close = s.indexOf("'", from);
    if (close === -1) return undefined;
    out += s.slice(from, close);
    if (s.charCodeAt(close + 1) !== 39) return { value: out, end: close + 1 };
    out += "'";
    from = close + 2;
  }
}

/**
 * What js-yaml's safe schema resolves a plain scalar to, for the forms that cannot be anything
 * else: words starting with a letter (strings, or the exact true/false/null spellings), `~`,
 * decimal integers without leading zeros, `YYYY-MM-DD` dates, and digits or underscores followed
 * by a letter that no number has there. Everything else: BAIL.
 */
function plainScalar(s: string): Value {
  const c = s.charCodeAt(0);
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 47 /* / */) {
    switch (s) {
      case 'true':
      case 'True':
      case 'TRUE':
        return true;
      case 'false':
      case 'False':
      case 'FALSE':
        return false;
      case 'null':
      case 'Null':
      case 'NULL':
        return null;
    }
    return s;
  }
  if (s === '~') return null;
  if ((c >= 48 && c <= 57) || c === 45 /* - */) {
    if (INT.test(s)) return s === '-0' ? BAIL : Number(s);
    const d = DATE.exec(s);
    if (d) return yamlDateToString(new Date(Date.UTC(+d[1], +d[2] - 1, +d[3])));
  }
  if ((c >= 48 && c <= 57) || c === 95 /* _ */) {
    // Digits or underscores, then a letter: no int, float or timestamp has that shape (`30d`,
    // `_bmad-output/x.md`), except an exponent (`1e3`) and the 0x/0b/0o prefixes.
    let k = 1;
    while (k < s.length) {
      const ch = s.charCodeAt(k);
      if (!((ch >= 48 && ch <= 57) || ch === 95)) break;
      k++;
    }
    const ch = s.charCodeAt(k);
    const letter = (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122);
    if (letter) {
      const l = s[k];
      if (c !== 95 && (l === 'e' || l === 'E')) return BAIL;
      if (k === 1 && c === 48 && 'xXbBoO'.includes(l)) return BAIL;
      return s;
    }
  }
  return BAIL;
}

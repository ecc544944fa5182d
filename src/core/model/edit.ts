import { isMap, isScalar, isSeq, Scalar, type Document } from 'yaml';
import { parseDocument } from './yamlDepth';
import type { Node as YamlNode, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { WaymarkError } from '../errors';
import { splitFrontmatter } from './frontmatter';
import { yamlDocument } from './positions';
import { parsePlainYaml } from './plainYaml';

/** A value the editor can write: scalars and flat lists of scalars. */
export type EditScalar = string | number | boolean | null;
export type EditMap = { [key: string]: EditScalar | EditScalar[] };
export type EditValue = EditScalar | EditScalar[] | EditMap;

function isEditMap(v: EditValue | undefined): v is EditMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function keyText(key: string): string {
  return isPlainSafe(key) ? key : doubleQuoted(key);
}

/** `key:` followed by one indented line per entry (lists in flow style). */
function renderBlockMap(key: string, map: EditMap, eol: string, indent = '  '): string {
  const lines = [`${keyText(key)}:`];
  for (const [k, v] of Object.entries(map)) {
    if (v === undefined) continue;
    lines.push(`${indent}${keyText(k)}: ${Array.isArray(v) ? renderFlowSeq(v, 'PLAIN') : renderScalar(v)}`);
  }
  return lines.join(eol) + eol;
}

/** Set (or, with `value: undefined`, delete) one top-level frontmatter key. */
export interface FrontmatterEdit {
  key: string;
  value: EditValue | undefined;
  /** Rename the key (its value bytes untouched), e.g. to fix a typo. `value` is then ignored. */
  renameTo?: string;
  /** Keys of the enclosing mappings for a nested key (e.g. `['delegation']` for `delegation.depth`). */
  path?: string[];
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

/** `\r\n` when the text's first line break is CRLF, else `\n`. */
export function detectEol(text: string): '\r\n' | '\n' {
  const i = text.indexOf('\n');
  return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
}

const PLAIN_SAFE = /^[A-Za-z_][A-Za-z0-9_./-]*$|^[0-9]+[A-Za-z_][A-Za-z0-9_./-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|null|y|n|~)$/i;
/** Words of PLAIN_SAFE's shape that YAML's core schema reads as numbers: `1e3`, `0x1F`, `0o17`. */
const NUMBER_LIKE = /^(?:[0-9]+[eE][0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$/;

/** Whether `s` written plain reads back as the string `s` (YAML 1.2 core schema). */
function isPlainSafe(s: string): boolean {
  return PLAIN_SAFE.test(s) && !RESERVED.test(s) && !/^[0-9._-]+$/.test(s) && !NUMBER_LIKE.test(s);
}

type QuoteStyle = 'PLAIN' | 'QUOTE_DOUBLE' | 'QUOTE_SINGLE';

function doubleQuoted(s: string): string {
  return JSON.stringify(s).replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\L' : '\\P'));
}

/** Renders a scalar in the given quoting style, falling back to double quotes when plain would change its meaning. */
export function renderScalar(v: EditScalar, style: QuoteStyle = 'PLAIN'): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    const s = String(v);
    if (style === 'QUOTE_DOUBLE') return `"${s}"`;
    if (style === 'QUOTE_SINGLE') return `'${s}'`;
    return s;
  }
  if (style === 'QUOTE_SINGLE' && !/[\n\r\t]/.test(v)) return `'${v.replace(/'/g, "''")}'`;
  if (style === 'QUOTE_DOUBLE') return doubleQuoted(v);
  return isPlainSafe(v) ? v : doubleQuoted(v);
}

function scalarStyle(node: unknown): QuoteStyle {
  if (isScalar(node)) {
    const t = (node as Scalar).type;
    if (t === 'QUOTE_DOUBLE' || t === 'QUOTE_SINGLE') return t;
  }
  return 'PLAIN';
}

/** The quoting every item of a list shares, else PLAIN (plain where safe, double quotes where needed). */
function listStyle(items: unknown[]): QuoteStyle {
  if (!items.length) return 'PLAIN';
  const first = scalarStyle(items[0]);
  return items.every((n) => scalarStyle(n) === first && isScalar(n) && typeof (n as Scalar).value === 'string') ? first : 'PLAIN';
}

function renderFlowSeq(items: EditScalar[], style: QuoteStyle): string {
  return `[${items.map((v) => renderScalar(v, style)).join(', ')}]`;
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** Position just after the line break ending the line that holds `pos` (or the text's end). */
function afterLineEnd(text: string, pos: number): number {
  const nl = text.indexOf('\n', pos);
  return nl < 0 ? text.length : nl + 1;
}

/**
 * The end of the line a node ends on: a block mapping's range (an item `- a: b` of a list) runs
 * through its line break, so its end is already the next line's start, which is not to be taken too.
 */
function lineEndAfter(text: string, end: number): number {
  return end > 0 && text[end - 1] === '\n' ? end : afterLineEnd(text, end);
}

function sameScalars(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function nodeRange(node: YamlNode | null | undefined): [number, number, number] | undefined {
  const r = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return r ?? undefined;
}

/**
 * Applies edits to a YAML mapping text (the frontmatter between its fences) touching only
 * the bytes of the edited values: comments, key order, quoting and line endings elsewhere
 * survive byte for byte. A missing key is appended at the end. Throws WaymarkError('invalid')
 * when the YAML has errors or is not a mapping.
 */
export function editYamlText(yamlText: string, edits: FrontmatterEdit[], eolHint?: '\r\n' | '\n'): string {
  // A rename needs every key (it refuses a name already taken): planned on the whole text.
  return editPlanned(yamlText, edits, eolHint ?? detectEol(yamlText), !edits.some((e) => e.renameTo !== undefined));
}

/** editYamlText planned on the parse of the whole text, always (the reference its tests compare with). */
export function editYamlTextWhole(yamlText: string, edits: FrontmatterEdit[], eolHint?: '\r\n' | '\n'): string {
  return editPlanned(yamlText, edits, eolHint ?? detectEol(yamlText), false);
}

function editPlanned(yamlText: string, edits: FrontmatterEdit[], eol: string, focus: boolean): string {
  if (edits.length > 1) {
    // One parse for all edits when their byte ranges are disjoint (the usual case).
    const splices = splicesFor(yamlText, edits, eol, focus).filter((x): x is Splice => x !== undefined);
    const sorted = [...splices].sort((a, b) => a.start - b.start);
    const disjoint = sorted.every((sp, i) => i === 0 || (sorted[i - 1].end <= sp.start && sorted[i - 1].start !== sp.start));
    if (disjoint) {
      let text = yamlText;
      for (const sp of sorted.reverse()) text = text.slice(0, sp.start) + sp.text + text.slice(sp.end);
      return text;
    }
  }
  let text = yamlText;
  for (const edit of edits) {
    const [sp] = splicesFor(text, [edit], eol, focus);
    if (sp) text = text.slice(0, sp.start) + sp.text + text.slice(sp.end);
  }
  return text;
}

/** The splice of each edit (undefined: a no-op), planned on the entries they touch when `focus` and the layout allow (focusedSplices). */
function splicesFor(text: string, edits: FrontmatterEdit[], eol: string, focus: boolean): (Splice | undefined)[] {
  const focused = focus ? focusedSplices(text, edits, eol) : undefined;
  if (focused) return focused;
  const doc = parseChecked(text);
  return edits.map((e) => spliceFor(text, doc, e, eol));
}

/** A document without entries (made once, when first needed: the CLI loads `yaml` only when used). */
let noEntries: Document | undefined;

/**
 * The edits planned on the top-level entries they touch, each parsed alone, when the text is a
 * block mapping written the plain way (topLevelEntries); undefined otherwise, and at any doubt.
 * The `yaml` parser costs about a millisecond per kilobyte, and an entry no edit touches (a
 * `steps:` list of hundreds) was parsed on every write for nothing but its errors. Those are
 * still refused: the other entries are parsed too, together, once per distinct text (restParses),
 * and an error there or in an entry alone (an alias of another entry's anchor included) parses the whole text as before,
 * which refuses with the whole parse's message. The entries of such a mapping do not reach into
 * each other (an unclosed quote or bracket across a `key:` line is an error in the entry alone; an
 * entry with a comment at the margin is read followed by a key line: marginComment), so an edit
 * here gives the bytes of the one planned on the whole parse; editFocused.test.ts
 * compares both over random layouts, broken ones included.
 */
function focusedSplices(text: string, edits: FrontmatterEdit[], eol: string): (Splice | undefined)[] | undefined {
  const entries = topLevelEntries(text);
  if (!entries) return undefined;
  const touched = new Set(edits.map((e) => e.path?.[0] ?? e.key));
  let rest = text.slice(0, entries[0].start);
  for (const e of entries) if (!touched.has(e.key)) rest += text.slice(e.start, e.end);
  // The rest's last entry may be followed by a touched one in the text: read as followed by a key line.
  if (marginComment(rest, entries[0].start)) rest += `${rest.endsWith('\n') || !rest ? '' : eol}${freeKey(entries)}: 0\n`;
  if (!restParses(rest)) return undefined;
  // Every touched entry parsed before any edit is planned: an error refuses before any edit's own refusal, as on the whole parse.
  const docs = new Map<string, { doc: Document; start: number; sub: string }>();
  const plain = new Map<string, { entry: PlainEntry; start: number }>();
  for (const [i, e] of entries.entries()) {
    if (!touched.has(e.key)) continue;
    const sub = text.slice(e.start, e.end);
    // A one-line value (a word, a quoted string, a list of words) that only gets a value of its kind: read without the parser.
    const entry = plainEntry(sub) ?? blockListEntry(sub);
    if (entry && edits.every((x) => (x.path?.[0] ?? x.key) !== e.key || (!x.path && x.renameTo === undefined && fitsPlainEntry(entry, x.value)))) {
      plain.set(e.key, { entry, start: e.start });
      continue;
    }
    const doc = parseDocument(sub, { uniqueKeys: true, prettyErrors: false });
    if (doc.errors.length) return undefined;
    // Read as in the text, followed by the next entry's key line (the plan stays on the entry alone: its end is the text's end there).
    if (i + 1 < entries.length && marginComment(sub, 1) && parseDocument(`${sub}${entries[i + 1].key}: 0\n`, { uniqueKeys: true, prettyErrors: false }).errors.length) return undefined;
    docs.set(e.key, { doc, start: e.start, sub });
  }
  return edits.map((edit) => {
    const p = edit.path ? undefined : plain.get(edit.key);
    if (p) {
      const sp = plainEntrySplice(p.entry, edit.value as EditScalar | EditScalar[], eol);
      return sp && { start: p.start + sp.start, end: p.start + sp.end, text: sp.text };
    }
    const d = docs.get(edit.path?.[0] ?? edit.key);
    // A key the mapping does not have: appended at its end (or refused), as on the whole parse.
    if (!d) return spliceFor(text, (noEntries ??= parseDocument('')), edit, eol);
    const sp = spliceFor(d.sub, d.doc, edit, eol);
    return sp && { start: d.start + sp.start, end: d.start + sp.end, text: sp.text };
  });
}

/**
 * Whether `text` has a comment line at the margin after `from` (a line starting with `#`). The
 * `yaml` parser reads an entry whose value follows such a line (`key:`, a blank line, `# note`,
 * `  more`) as the value alone, and as a key over two lines, refused, when a key line follows it:
 * the one layout found (600,000 random entries, none without such a line; with one, a following key
 * line of any content gives the same error or the same value) where an entry's reading depends on the
 * entry after it. Such entries are read followed by a key line, as in the text.
 */
function marginComment(text: string, from: number): boolean {
  return text.indexOf('\n#', from) !== -1;
}

/** A key no entry has (the key line an entry is read followed by). */
function freeKey(entries: { key: string }[]): string {
  let key = 'next';
  while (entries.some((e) => e.key === key)) key += '_';
  return key;
}

/**
 * An entry's one-line value, offsets in the entry's text: a list of words (`[`, after `]`, after
 * its last item) or a scalar (its first and last character + 1) and its quoting.
 */
type PlainEntry = { items: string[]; open: number; close: number; lastEnd: number } | { value: string; style: QuoteStyle; start: number; end: number } | BlockList;

/**
 * A block list of plain words (blockListEntry), offsets in the entry's text: its items, each item's
 * line start, the colon after the key, the end of the last item's line (after its line break, when
 * it has one) and that line's prefix (`  - `).
 */
interface BlockList {
  block: string[];
  lineStarts: number[];
  colon: number;
  lastLineEnd: number;
  lastHasBreak: boolean;
  prefix: string;
}

/**
 * `key: value` on the entry's first line, then nothing or a comment: a list `[...]` (no quote,
 * bracket, brace or YAML indicator inside), a quoted string without escapes or control
 * characters, or a plain run of word characters (judged below).
 */
const ONE_LINE_ENTRY = /^[A-Za-z_][A-Za-z0-9_.-]*:( +)(?:\[([^\x00-\x1f[\]{}#"'&*!|>%@`]*)\]|'([^'\x00-\x1f]*)'|"([^"\\\x00-\x1f]*)"|([A-Za-z0-9_./:+-]+))(?: *| +#[^\x00-\x1f]*)(?:\r?\n|$)/;
/** Words of PLAIN_SAFE's shape separated by commas and spaces (RESERVED, NUMBER_LIKE and all-digit words are checked apart). */
const WORD_LIST = /^ *(?:(?:[A-Za-z_]|[0-9]+[A-Za-z_])[A-Za-z0-9_./-]* *, *)*(?:[A-Za-z_]|[0-9]+[A-Za-z_])[A-Za-z0-9_./-]* *$/;
/** What may follow that line inside its entry: blank lines and comment lines. */
const BLANK_OR_COMMENT_LINES = /^(?: *(?:#[^\n\r]*)?\r?\n)* *(?:#[^\n\r]*)?$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(:\d\d)?(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * An entry written on one line as a list of plain words (each reads as the string it spells:
 * isPlainSafe), a quoted string, a plain word or a plain timestamp, followed only by blank and
 * comment lines: read without the parser, as the parser reads it. Undefined for anything else (the
 * parser plans it). The `yaml` parser costs about a millisecond a kilobyte, and an advance changes
 * `stepsCompleted`, whose list grows with every step, besides `currentStep` and `updatedAt`;
 * editFocused.test.ts compares the bytes with the whole parse's over random entries.
 */
function plainEntry(sub: string): PlainEntry | undefined {
  const m = ONE_LINE_ENTRY.exec(sub);
  if (!m || !BLANK_OR_COMMENT_LINES.test(sub.slice(m[0].length))) return undefined;
  const start = sub.indexOf(':') + 1 + m[1].length;
  const [, , inner, single, double, word] = m;
  if (single !== undefined) return { value: single, style: 'QUOTE_SINGLE', start, end: start + single.length + 2 };
  if (double !== undefined) return { value: double, style: 'QUOTE_DOUBLE', start, end: start + double.length + 2 };
  if (word !== undefined) return isPlainSafe(word) || TIMESTAMP.test(word) ? { value: word, style: 'PLAIN', start, end: start + word.length } : undefined;
  if (/^ *$/.test(inner)) return { items: [], open: start, close: start + inner.length + 2, lastEnd: start + 1 };
  // One pass over the whole list for its shape (a list of hundreds of steps is one test, not
  // hundreds); only the words that may read as something else (short, or starting with a digit) are looked at one by one.
  if (!WORD_LIST.test(inner)) return undefined;
  const items = inner.split(',').map((w) => w.trim());
  for (const w of items) if ((w.length <= 5 || (w.charCodeAt(0) >= 48 && w.charCodeAt(0) <= 57)) && !isPlainSafe(w)) return undefined;
  return { items, open: start, close: start + inner.length + 2, lastEnd: start + 1 + inner.trimEnd().length };
}

/** `key:` alone on its line (or with a comment), its value the block below. */
const BLOCK_KEY_LINE = /^[A-Za-z_][A-Za-z0-9_.-]*:(?: *| +#[^\r\n]*)\r?\n/;
/** `- word` (its prefix: spaces, the dash and the spaces after it), then nothing or a comment. */
const BLOCK_ITEM = /^( *- +)((?:[A-Za-z_]|[0-9]+[A-Za-z_])[A-Za-z0-9_./-]*)(?: *| +#[^\r\n]*)\r?$/;
const BLANK_OR_COMMENT_LINE = /^ *(?:#[^\r\n]*)?\r?$/;

/**
 * An entry written as a block list of plain words (`stepsCompleted:` then `  - a` lines, as
 * BMAD and bench/mutate.ts write it): the key alone on its line (or with a comment), then item
 * lines that share one indent (`- ` at the margin too), each `- word` with nothing or a comment
 * after it, and blank and comment lines anywhere among them; each word reads as the string it
 * spells (isPlainSafe). Read without the parser, as the parser reads it (editBlockSeq's positions:
 * an item's line, the last item's line end, the last item's prefix); undefined for anything else
 * (a quoted item, a tab, a word that reads as something else, an item over two lines), which the
 * parser plans. editFocused.test.ts compares the bytes with the whole parse's over random layouts.
 */
function blockListEntry(sub: string): BlockList | undefined {
  const head = BLOCK_KEY_LINE.exec(sub);
  if (!head) return undefined;
  const block: string[] = [];
  const lineStarts: number[] = [];
  let indent = -1;
  let lastLineEnd = 0;
  let prefix = '';
  for (let start = head[0].length; start < sub.length; ) {
    const nl = sub.indexOf('\n', start);
    const end = nl === -1 ? sub.length : nl + 1;
    const line = sub.slice(start, nl === -1 ? sub.length : nl);
    const m = BLOCK_ITEM.exec(line);
    if (m) {
      const dash = m[1].indexOf('-');
      if (indent === -1) indent = dash;
      else if (dash !== indent) return undefined;
      if (!isPlainSafe(m[2])) return undefined;
      block.push(m[2]);
      lineStarts.push(start);
      lastLineEnd = end;
      prefix = m[1];
    } else if (!BLANK_OR_COMMENT_LINE.test(line)) return undefined;
    start = end;
  }
  if (!block.length) return undefined;
  return { block, lineStarts, colon: sub.indexOf(':'), lastLineEnd, lastHasBreak: sub[lastLineEnd - 1] === '\n', prefix };
}

/** Whether plainEntrySplice plans setting `entry` to `value`: a list gets a list, a scalar a scalar. */
function fitsPlainEntry(entry: PlainEntry, value: EditValue | undefined): boolean {
  if (value === undefined || isEditMap(value)) return false;
  return 'items' in entry || 'block' in entry ? Array.isArray(value) : !Array.isArray(value);
}

/** The splice editBlockSeq plans on the parse for a block list of plain words (a no-op: undefined). */
function blockListSplice(entry: BlockList, items: EditScalar[], eol: string): Splice | undefined {
  const old = entry.block;
  if (sameScalars(old, items)) return undefined;
  // A block list cannot be empty: `key: []` (only this key's bytes change).
  if (items.length === 0) return { start: entry.colon, end: entry.lastLineEnd, text: `: []${eol}` };
  let k = 0;
  while (k < old.length && k < items.length && old[k] === items[k]) k++;
  const newLines = items.slice(k).map((v) => `${entry.prefix}${renderScalar(v, 'PLAIN')}${eol}`).join('');
  if (k === old.length) return { start: entry.lastLineEnd, end: entry.lastLineEnd, text: (entry.lastHasBreak ? '' : eol) + newLines };
  return { start: entry.lineStarts[k], end: entry.lastLineEnd, text: entry.lastHasBreak ? newLines : newLines.slice(0, newLines.length - eol.length) };
}

/** The splice editExisting plans on the parse for `entry` (a no-op: undefined). */
function plainEntrySplice(entry: PlainEntry, value: EditScalar | EditScalar[], eol: string): Splice | undefined {
  if ('block' in entry) return blockListSplice(entry, value as EditScalar[], eol);
  if ('items' in entry) {
    // Plain words: the list's style is plain.
    const items = value as EditScalar[];
    if (sameScalars(entry.items, items)) return undefined;
    if (entry.items.length && items.length > entry.items.length && sameScalars(entry.items, items.slice(0, entry.items.length))) {
      return { start: entry.lastEnd, end: entry.lastEnd, text: items.slice(entry.items.length).map((v) => `, ${renderScalar(v, 'PLAIN')}`).join('') };
    }
    return { start: entry.open, end: entry.close, text: renderFlowSeq(items, 'PLAIN') };
  }
  const v = value as EditScalar;
  if (entry.value === v) return undefined;
  return { start: entry.start, end: entry.end, text: timestampLike(entry.value, v, entry.style) ?? renderScalar(v, entry.style) };
}

/** A plain top-level key at the start of a line: `key:` then a space, a tab or the line's end. */
const ENTRY_START = /^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]|\r?$)/;
/** Keys the YAML core schema reads as something other than their text (`True` is `true`). */
const NOT_A_NAME = /^(true|false|null)$/i;

/**
 * The top-level entries of a block mapping written the plain way: each from its `key:` line to
 * the next one (its indented lines, `- ` items at the margin, comments and blank lines). Undefined
 * for any other layout or a key written twice (the caller parses the whole text).
 */
function topLevelEntries(text: string): { key: string; start: number; end: number }[] | undefined {
  const out: { key: string; start: number; end: number }[] = [];
  const seen = new Set<string>();
  for (let start = 0; start < text.length; ) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl + 1;
    const c = text[start];
    if (c === ' ' || c === '\r' || c === '\n' || c === '#') {
      // Before the first key only blank lines and comments.
      if (!out.length && c === ' ' && !/^ *(#.*)?\r?\n?$/.test(text.slice(start, end))) return undefined;
    } else if (c === '-' && (start + 1 === text.length || ' \r\n'.includes(text[start + 1]))) {
      if (!out.length) return undefined;
    } else {
      // The line without its line break: `$` (no m flag) is the end of the string, so `steps:` with
      // its list on the next lines matched only as the text's last line, and every file with a
      // block value was planned on the whole parse.
      const m = ENTRY_START.exec(text.slice(start, nl === -1 ? text.length : nl));
      if (!m || NOT_A_NAME.test(m[1]) || seen.has(m[1])) return undefined;
      seen.add(m[1]);
      if (out.length) out[out.length - 1].end = start;
      out.push({ key: m[1], start, end: text.length });
    }
    start = end;
  }
  return out.length ? out : undefined;
}

/**
 * Whether the entries no edit touches parse without an error on their own (one text: the ones a
 * file's writes do not change are the same text write after write, so the answer is kept).
 */
const restAnswers = new Map<string, boolean>();
// One per file a long-lived face writes (a few hundred bytes each): 64 made a face writing more
// than 64 files in turn parse every one's rest on every write.
const REST_ANSWERS = 1024;

function restParses(rest: string): boolean {
  let ok = restAnswers.get(rest);
  if (ok === undefined) {
    ok = plainRest(rest) || parseDocument(rest, { uniqueKeys: true, prettyErrors: false }).errors.length === 0;
    if (restAnswers.size >= REST_ANSWERS) restAnswers.delete(restAnswers.keys().next().value!);
    restAnswers.set(rest, ok);
  }
  return ok;
}

/**
 * True when the fast reader (plainYaml.ts) reads `rest`: its subset (`key: value` lines, block
 * mappings and sequences, one-line lists, block scalars; no duplicate keys, tabs, anchors, tags or
 * control characters) is YAML the editing parser reads without an error too, but for a line break
 * other than LF and an implicit key over 1024 characters (YAML 1.2's limit), left to the parser.
 * A file's first write then costs no parse of the entries it does not change (a millisecond a
 * kilobyte); editFocused.test.ts checks the bytes and refusals against the whole parse.
 */
function plainRest(rest: string): boolean {
  if (rest.includes('\r') || /[&*!%@`|>]/.test(rest) || rest.includes('<<')) return false;
  for (let start = 0; start < rest.length; ) {
    const nl = rest.indexOf('\n', start);
    const end = nl === -1 ? rest.length : nl;
    if (end - start > 1000) return false;
    start = end + 1;
  }
  return parsePlainYaml(rest, PLAIN_REST_NODES) !== undefined;
}

/** The fast reader's node cap here (over it, the parser decides). */
const PLAIN_REST_NODES = 10_000;

function parseChecked(text: string): Document {
  // The read that planned this edit usually parsed the same text for its problems' positions.
  const doc = yamlDocument(text);
  if (doc.errors.length) {
    throw new WaymarkError('invalid', `The frontmatter has YAML errors (${doc.errors[0].message.split('\n')[0]}); fix them before changing the state.`);
  }
  return doc;
}

/** The one byte splice that applies `edit` to `text` (parsed as `doc`), or undefined for a no-op. */
function spliceFor(text: string, doc: ReturnType<typeof parseChecked>, edit: FrontmatterEdit, eol: string): Splice | undefined {
  const contents = doc.contents as YamlNode | null;
  if (contents !== null && !isMap(contents)) {
    const empty = isScalar(contents) && (contents.value === null || contents.value === '');
    if (!empty) throw new WaymarkError('invalid', 'The frontmatter is not a key: value mapping; the state cannot be edited.');
  }
  let map = contents && isMap(contents) ? (contents as YAMLMap) : undefined;
  for (const seg of edit.path ?? []) {
    const parent = map?.items.find((p) => isScalar(p.key) && String((p.key as Scalar).value) === seg);
    if (!parent || !isMap(parent.value) || (parent.value as YAMLMap).flow) {
      throw new WaymarkError('invalid', `Cannot edit ${[...(edit.path ?? []), edit.key].join('.')}: ${seg} is not a block mapping in the frontmatter. Edit it by hand.`);
    }
    map = parent.value as YAMLMap;
  }
  if (edit.path?.length && map && !map.items.some((p) => isScalar(p.key) && String((p.key as Scalar).value) === edit.key)) {
    if (edit.value === undefined) return undefined;
    return appendNested(text, map, edit, eol);
  }
  const pair = map?.items.find((p) => isScalar(p.key) && String((p.key as Scalar).value) === edit.key) as Pair<YamlNode, YamlNode | null> | undefined;
  if (edit.renameTo !== undefined) {
    if (!pair) return undefined;
    if (map!.items.some((p) => isScalar(p.key) && String((p.key as Scalar).value) === edit.renameTo)) {
      throw new WaymarkError('invalid', `Cannot rename ${edit.key} to ${edit.renameTo}: the frontmatter already has ${edit.renameTo}. Merge them by hand.`);
    }
    const kr = nodeRange(pair.key)!;
    return { start: kr[0], end: kr[1], text: keyText(edit.renameTo) };
  }
  if (!pair && edit.value !== undefined && map?.flow) {
    throw new WaymarkError('invalid', `Cannot add ${edit.key}: the frontmatter is written as one { ... } flow mapping. Rewrite it as key: value lines first.`);
  }
  return pair ? editExisting(text, pair, edit, eol, map!) : edit.value === undefined ? undefined : appendKey(text, edit, eol);
}

function appendKey(text: string, edit: FrontmatterEdit, eol: string): Splice {
  const value = edit.value as EditValue;
  const needsBreak = text.length > 0 && !text.endsWith('\n');
  if (isEditMap(value)) return { start: text.length, end: text.length, text: `${needsBreak ? eol : ''}${renderBlockMap(edit.key, value, eol)}` };
  const rendered = Array.isArray(value) ? renderFlowSeq(value, 'PLAIN') : renderScalar(value);
  return { start: text.length, end: text.length, text: `${needsBreak ? eol : ''}${keyText(edit.key)}: ${rendered}${eol}` };
}

function appendNested(text: string, map: YAMLMap, edit: FrontmatterEdit, eol: string): Splice {
  const first = map.items[0];
  const last = map.items[map.items.length - 1];
  const firstKey = nodeRange(first.key as YamlNode)!;
  const lastEnd = nodeRange(last.value as YamlNode)?.[1] ?? nodeRange(last.key as YamlNode)![1];
  const indent = text.slice(lineStart(text, firstKey[0]), firstKey[0]);
  const at = afterLineEnd(text, Math.max(lastEnd - 1, 0));
  const value = edit.value as EditScalar | EditScalar[];
  const rendered = Array.isArray(value) ? renderFlowSeq(value, 'PLAIN') : renderScalar(value);
  const needsBreak = at === text.length && !text.endsWith('\n');
  return { start: at, end: at, text: `${needsBreak ? eol : ''}${indent}${keyText(edit.key)}: ${rendered}${eol}` };
}

function editExisting(text: string, pair: Pair<YamlNode, YamlNode | null>, edit: FrontmatterEdit, eol: string, map: YAMLMap): Splice | undefined {
  const keyRange = nodeRange(pair.key)!;
  const valueNode = pair.value;
  const vr = nodeRange(valueNode);
  if (edit.value === undefined) return deletePair(text, pair, map);
  if (isEditMap(edit.value)) {
    // A whole mapping is replaced: its lines go, the new block takes their place.
    const del = deletePair(text, pair, map);
    return { start: del.start, end: del.end, text: renderBlockMap(edit.key, edit.value, eol) };
  }
  const value = edit.value;
  // `key:` with nothing after it: write the value right after the colon.
  if (!valueNode || !vr || (isScalar(valueNode) && (valueNode as Scalar).source === '' && vr[0] === vr[1]) || (isScalar(valueNode) && valueNode.value === null && vr[0] === vr[1])) {
    const colon = text.indexOf(':', keyRange[1]);
    const at = vr ? vr[0] : colon + 1;
    const before = text[at - 1];
    const rendered = Array.isArray(value) ? renderFlowSeq(value, 'PLAIN') : renderScalar(value);
    return { start: at, end: at, text: `${before === ' ' || before === '\t' ? '' : ' '}${rendered}` };
  }
  if (isSeq(valueNode)) {
    const seq = valueNode as YAMLSeq<YamlNode>;
    const itemStyle = listStyle(seq.items);
    const newItems: EditScalar[] = Array.isArray(value) ? value : [value];
    if (seq.flow || seq.items.length === 0) {
      const oldVals = seq.items.map((n) => (isScalar(n) ? n.value : undefined));
      if (sameScalars(oldVals, newItems)) return undefined;
      if (seq.items.length && newItems.length > oldVals.length && sameScalars(oldVals, newItems.slice(0, oldVals.length))) {
        // Appending: keep the existing items' bytes, add the new ones after the last.
        const last = seq.items[seq.items.length - 1];
        const at = nodeRange(last)![1];
        return { start: at, end: at, text: newItems.slice(oldVals.length).map((v) => `, ${renderScalar(v, itemStyle)}`).join('') };
      }
      return { start: vr[0], end: vr[1], text: renderFlowSeq(newItems, itemStyle) };
    }
    return editBlockSeq(text, pair, seq, newItems, itemStyle, eol);
  }
  if (isMap(valueNode)) {
    throw new WaymarkError('invalid', `The frontmatter key ${edit.key} holds a mapping; Waymark will not overwrite it with a ${Array.isArray(value) ? 'list' : 'value'}. Fix it by hand.`);
  }
  if (Array.isArray(value)) {
    return { start: vr[0], end: vr[1], text: renderFlowSeq(value, scalarStyle(valueNode)) };
  }
  const scalar = valueNode as Scalar;
  if (scalar.value === value && (scalar.type === 'PLAIN' || scalar.type === 'QUOTE_DOUBLE' || scalar.type === 'QUOTE_SINGLE')) return undefined;
  const style = scalar.type === 'BLOCK_LITERAL' || scalar.type === 'BLOCK_FOLDED' ? 'QUOTE_DOUBLE' : scalarStyle(scalar);
  const stamp = timestampLike(typeof scalar.source === 'string' ? scalar.source : typeof scalar.value === 'string' ? scalar.value : undefined, value, style);
  if (stamp !== undefined) return { start: vr[0], end: vr[1], text: stamp };
  let end = vr[1];
  let suffix = '';
  if (scalar.type === 'BLOCK_LITERAL' || scalar.type === 'BLOCK_FOLDED') {
    // A block scalar's range runs through its last content line break; keep that break.
    const lastNl = text.lastIndexOf('\n', end - 1);
    if (lastNl >= vr[0]) {
      end = lastNl + 1;
      suffix = eol;
    }
  }
  return { start: vr[0], end, text: renderScalar(value, style) + suffix };
}

/**
 * A timestamp replacing a timestamp, in the old one's style: `updatedAt: 2026-11-22T09:14:00Z`
 * stays plain (a plain ISO time reads back the same) and gets no milliseconds when it had none.
 */
function timestampLike(was: string | undefined, value: EditScalar, style: QuoteStyle): string | undefined {
  if (typeof value !== 'string' || was === undefined || !TIMESTAMP.test(was) || !TIMESTAMP.test(value)) return undefined;
  const v = /\.\d+/.test(was) ? value : value.replace(/\.\d+(?=Z|[+-]|$)/, '');
  return style === 'PLAIN' ? v : renderScalar(v, style);
}

function editBlockSeq(text: string, pair: Pair<YamlNode, YamlNode | null>, seq: YAMLSeq<YamlNode>, items: EditScalar[], style: QuoteStyle, eol: string): Splice | undefined {
  const old = seq.items.map((n) => (isScalar(n) ? n.value : undefined));
  if (sameScalars(old, items)) return undefined;
  const last = seq.items[seq.items.length - 1];
  const lastR = nodeRange(last)!;
  // The exact prefix of an item line (`  - `), copied from the last item.
  const prefix = text.slice(lineStart(text, lastR[0]), lastR[0]);
  const linePrefixOk = /^[ \t]*-[ \t]+$/.test(prefix);
  const oldAllScalar = seq.items.every((n) => isScalar(n));
  if (items.length === 0) {
    // A block list cannot be empty: switch to `key: []` (only this key's bytes change).
    const keyR = nodeRange(pair.key)!;
    const colon = text.indexOf(':', keyR[1]);
    return { start: colon, end: lineEndAfter(text, lastR[1]), text: `: []${eol}` };
  }
  if (linePrefixOk && oldAllScalar) {
    // Keep every unchanged leading item's line (with its comment); rewrite from the first difference.
    let k = 0;
    while (k < old.length && k < items.length && old[k] === items[k]) k++;
    const newLines = items.slice(k).map((v) => `${prefix}${renderScalar(v, style)}${eol}`).join('');
    if (k === old.length) {
      const at = lineEndAfter(text, lastR[1]);
      const needsBreak = at === text.length && !text.endsWith('\n');
      return { start: at, end: at, text: (needsBreak ? eol : '') + newLines };
    }
    const from = lineStart(text, nodeRange(seq.items[k])![0]);
    const to = lineEndAfter(text, lastR[1]);
    const endsWithBreak = text.slice(from, to).endsWith('\n');
    const body = endsWithBreak ? newLines : newLines.slice(0, newLines.length - eol.length);
    return { start: from, end: to, text: body };
  }
  // Unusual layout (`- - x`, items sharing lines): replace the list with a flow list.
  const keyR = nodeRange(pair.key)!;
  const colon = text.indexOf(':', keyR[1]);
  return { start: colon, end: lineEndAfter(text, lastR[1]), text: `: ${renderFlowSeq(items, style)}${eol}` };
}

function deletePair(text: string, pair: Pair<YamlNode, YamlNode | null>, map: YAMLMap): Splice {
  const keyR = nodeRange(pair.key)!;
  const start = lineStart(text, keyR[0]);
  if (map.flow || text.slice(start, keyR[0]).trim() !== '') {
    throw new WaymarkError('invalid', `Cannot remove ${String((pair.key as Scalar).value)}: the frontmatter is written as a flow mapping. Remove it by hand.`);
  }
  const vr = nodeRange(pair.value);
  const endPos = vr ? Math.max(vr[1], keyR[1]) : keyR[1];
  // The value's own line(s), plus a trailing comment on its last line.
  let end = afterLineEnd(text, Math.max(endPos - 1, keyR[1]));
  if (isSeq(pair.value) && !(pair.value as YAMLSeq).flow && (pair.value as YAMLSeq).items.length) {
    const last = (pair.value as YAMLSeq<YamlNode>).items[(pair.value as YAMLSeq).items.length - 1];
    end = lineEndAfter(text, nodeRange(last)![1]);
  }
  return { start, end, text: '' };
}

/**
 * Applies edits to the frontmatter of a Markdown file's text. Only the edited values' bytes
 * change; the BOM, fences, body and the file's line ending style are kept.
 */
export function editFrontmatter(text: string, edits: FrontmatterEdit[]): string {
  const split = splitFrontmatter(text);
  if (!split.hasFrontmatter) throw new WaymarkError('invalid', 'The file has no frontmatter (a first line of ---); there is no workflow state to change.');
  if (!split.closed) throw new WaymarkError('invalid', 'The frontmatter has no closing --- line; add it before changing the state.');
  if (split.language !== '' && split.language !== 'yaml' && split.language !== 'yml') {
    throw new WaymarkError('invalid', `The frontmatter is marked ---${split.language}; Waymark only edits YAML frontmatter.`);
  }
  const edited = editYamlText(split.yamlText, edits, split.eol);
  if (edited === split.yamlText) return text;
  return text.slice(0, split.yamlStart) + edited + text.slice(split.yamlEnd);
}

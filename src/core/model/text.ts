/**
 * Text helpers the readers share, each the same answer as the built-in it stands for, only
 * cheaper on the hot path of reading a project (or, ownString and exactArray, lighter to keep).
 */

/**
 * `text.split(/\r?\n/)` without the regular expression: every line followed by `\n` loses one `\r`
 * before it; a `\r` that no `\n` follows (the last line's) stays, as the expression leaves it.
 */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (text.indexOf('\r') < 0) return lines;
  for (let i = 0; i < lines.length - 1; i++) {
    const l = lines[i];
    if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/**
 * False when a line cannot open or close a Markdown code fence (`/^\s{0,3}(```|~~~)/`): it starts
 * with neither a fence character nor white space (`\s` takes Unicode spaces too). Most lines of a
 * story or an epics document start with a letter, `#`, `-` or `|`: one look instead of a match.
 */
export function mayBeFence(line: string): boolean {
  // (Never `charCodeAt` past the end: optimised code that meets it is thrown away and compiled again.)
  if (line === '') return false;
  const c = line.charCodeAt(0);
  return c === 0x60 || c === 0x7e || c <= 0x20 || c >= 0x80;
}

/** Strings of these characters order the same by code unit as by `localeCompare` (ICU's root collation). */
const PLAIN = /^[a-z0-9 ./-]*$/;

/**
 * `a.localeCompare(b)`, without the cost of building ICU's collator (tens of milliseconds, once per
 * process) when both strings are lower-case ASCII letters, digits, space, `-`, `.` or `/`: for
 * those, code-unit order is the collation order (test/unit/textCompare.test.ts checks it against
 * `localeCompare`). Any other string is handed to `localeCompare` itself.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  if (PLAIN.test(a) && PLAIN.test(b)) return a < b ? -1 : 1;
  return a.localeCompare(b);
}

/**
 * A string with the same characters that is no view of another. V8 makes a substring of 13 or more
 * characters a view of the string it was cut from, keeping that whole string alive as long as the
 * substring lives: the fast YAML reader copies the frontmatter once (plainYaml.ts), so the values
 * a state keeps hold the frontmatter alive, not the file's whole text with its body.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/**
 * The array as one of its exact length. An array grown by `push` holds room for 17 entries from
 * its first one on (152 bytes where a two-entry list needs 16), and V8 never gives that back
 * below 16 entries: a list kept with a state is copied to its size once instead.
 */
export function exactArray<T>(a: T[]): T[] {
  return a.length ? a.slice() : a;
}

/**
 * An empty array of V8's generic element kind, the kind of any array that holds a string or an
 * object. `[]` starts as an array of small integers and changes kind, so its map, with its first
 * string or object (and `map` or `filter` answer in the kind of what they found): lists read from
 * files, empty, of numbers or of strings, then reach the parse as arrays of two or three maps, and
 * code optimised on one is thrown away at the next (a deopt, then a compile again). An array's
 * kind only ever widens, so one made with an entry and emptied keeps the generic kind, and its
 * `slice` too.
 */
export function valueList<T>(): T[] {
  const a: T[] = [undefined as T];
  a.length = 0;
  return a;
}

/** A value shown in a one-line message: at most `max` characters, no line breaks. */
export function clip(s: string, max = 60): string {
  const one = s.replace(/[\r\n\t]+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/**
 * A value read from a file, quoted for a problem's message: `'value'`, clipped to 80 characters, so
 * a status or key thousands of characters long (a pasted log, a hostile file) is named, never shown
 * whole. The value itself stays whole where it is data (a problem's `data`, JSON fields).
 */
export function quoted(v: unknown): string {
  return `'${clip(String(v), 80)}'`;
}

/**
 * A problem's message with every word over 120 characters that is not a path clipped to 80: the
 * keys and values a message names unquoted (a story key, a ledger's raw word) stay readable when a
 * file holds thousands of characters where a word should be. A path is shown whole.
 */
export function clipLongWords(message: string): string {
  if (message.length <= 120) return message;
  return message.replace(/\S{121,}/g, (w) => (/[\\/]/.test(w) ? w : `${w.slice(0, 79)}…`));
}

/** A list of problems (or findings) with each message's overlong words clipped (clipLongWords); an item changed is a copy, the others are kept. */
export function clipMessages<T extends { message: string }>(list: T[]): T[] {
  for (let i = 0; i < list.length; i++) {
    const m = clipLongWords(list[i].message);
    if (m !== list[i].message) list[i] = { ...list[i], message: m };
  }
  return list;
}

/**
 * The string as a copy of its own characters. A substring V8 makes of a longer string (a line of
 * `split`, a capture of `exec`, a `slice`) may point into it and keep all of it alive: a story's
 * title kept in its model kept the whole file's text (~10 KB) alive for the rest of the run, and
 * 400 such texts surviving the young generation cost a first `sprint` its copies and page faults.
 * (The concatenation is flattened into a new string; the slice points into that. A string of
 * fewer than 13 characters is never a slice in V8, SlicedString's shortest: it is its own copy.)
 */
export function ownCopy(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/**
 * The time an ISO 8601 date or date-time names (`2026-12-31`, `2026-12-31T10:00:00Z`,
 * `2026-12-31 10:00+02:00`), in ms since the epoch; undefined for anything else. A person's or an
 * agent's date goes through it, not through `Date.parse`, which also takes `-1`, `0` and `1.5` as dates.
 */
export function isoTime(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i.test(text.trim())) return undefined;
  const t = Date.parse(text.trim());
  return Number.isFinite(t) ? t : undefined;
}

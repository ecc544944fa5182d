/**
 * Writing one status into `sprint-status.yaml` whatever YAML form the entry has: a plain or
 * quoted value, an empty value (`1-1-x:`), a mapping value (`{status: …}` or a block mapping,
 * its `status` key edited or added), entries in a flow-style `development_status: {…}`. Positions
 * come from the YAML parser; only the value's bytes (and `last_updated`'s, in its own format)
 * change. A ledger that does not parse is refused, never edited blind. A ledger in the plain form
 * BMAD writes is read without the YAML package (ledgerPlain.ts: the same data and positions).
 */
import { isMap, isScalar, isSeq, type Document, type Pair, type Scalar, type YAMLMap } from 'yaml';
import { parseDocument } from '../model/yamlDepth';
import { WaymarkError } from '../errors';
import { commentLinesBlanked, formatStamp, ledgerKeyName, parseStamp } from './ledger';
import { quoted } from '../model/text';
import { plainLedger, type PlainSpan } from './ledgerPlain';

interface Splice {
  from: number;
  to: number;
  text: string;
}

function parse(file: string, text: string): Document.Parsed {
  let doc = parseDocument(text, { schema: 'core', uniqueKeys: false, logLevel: 'silent' });
  // A comment line the `yaml` package misreads (commentLinesBlanked): asked again without them,
  // positions unchanged, so the splice keeps every comment.
  if (doc.errors.length && commentLinesBlanked(text) !== text) {
    const again = parseDocument(commentLinesBlanked(text), { schema: 'core', uniqueKeys: false, logLevel: 'silent' });
    if (!again.errors.length) doc = again;
  }
  const err = doc.errors[0];
  if (err) {
    const line = err.linePos?.[0]?.line ?? 1;
    throw new WaymarkError('invalid', `${file} is not valid YAML at line ${line} (${err.message.split('\n')[0].replace(/[\s:.]+$/, '')}); fix that line first (waymark validate lists it). Nothing was changed.`, file, { line });
  }
  return doc;
}

/** A pair's key as ledger.ts names it: a number as written (`1.10`, not 1.1), a string less escaped quotes (`\\"10.1\\"`). */
function keyText(p: Pair): string | undefined {
  const k = p.key;
  if (!isScalar(k)) return undefined;
  if (typeof k.value === 'number') return k.source ?? String(k.value);
  if (typeof k.value === 'string') return ledgerKeyName(k.value);
  return undefined;
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return (map.items as Pair[]).find((p) => keyText(p) === key);
}

const EPIC_KEY = /^epic-[\w.-]+$/i;
/** A key of a `stories:` map keyed by the stories' dotted numbers (ledger.ts readStoryLists). */
const DOTTED_ID = /^\d{1,3}[a-z]?\.\d{1,3}[a-z]?$/i;
/** A first-level key of `stories:` holding one epic's list of stories (`epic_1:`, `epic-2:`). */
const EPIC_LIST = /^epic[-_]?\d+[a-z]?$/i;
/** The keys a listed story's id is written under (ledger.ts LIST_ITEM). */
const LIST_ID_KEYS = ['story_id', 'story_key', 'story', 'id', 'key'];

/**
 * The pair holding `key`, in every form ledger.ts reads: under `development_status`, else (a ledger
 * with none) in its epics' `stories:` mappings (`epics: epic-1: stories: 1-1-slug: done`, or
 * `epic-1:` at the top), an epic's own pair being the epic's entry; else a `stories:` map keyed by
 * the stories' dotted numbers (`"1.1": done`, `"1.1": {status: …}`, or its keys below it); else the
 * item of a list of stories (storyListsOf) listed last with a `status:`, or first when none has one
 * (its id alone, or a mapping with no `status:`), as a pair with no key.
 */
function entryPair(top: YAMLMap, key: string): Pair | undefined {
  const ds = pairOf(top, 'development_status')?.value;
  if (isMap(ds)) return pairOf(ds, key);
  const epics = pairOf(top, 'epics')?.value;
  for (const ep of [...(isMap(epics) ? (epics.items as Pair[]) : []), ...(top.items as Pair[])]) {
    const name = keyText(ep);
    if (!name || !EPIC_KEY.test(name) || !isMap(ep.value)) continue;
    const stories = pairOf(ep.value, 'stories')?.value;
    if (!isMap(stories)) continue;
    if (name === key) return ep;
    const hit = pairOf(stories, key);
    if (hit) return hit;
  }
  const stories = pairOf(top, 'stories')?.value;
  if (isMap(stories) && DOTTED_ID.test(key)) {
    const hit = pairOf(stories, key);
    if (hit) return hit;
  }
  // As ledger.ts reads a story listed twice: where it is listed last with a status, else where it is
  // listed first (an item with no status yet: its id alone, or a mapping with no `status:`).
  let found: YAMLMap | Scalar | undefined;
  for (const list of storyListsOf(top, yamlShape)) {
    if (!isSeq(list)) continue;
    for (const item of list.items) {
      if (isScalar(item)) {
        if (!found && item.range && idText(item) === key) found = item;
        continue;
      }
      if (!isMap(item)) continue;
      const id = LIST_ID_KEYS.map((k) => pairOf(item, k)?.value).find((v) => isScalar(v));
      if (!isScalar(id) || idText(id) !== key) continue;
      if (pairOf(item, 'status')) {
        found = item;
      } else if (!found) found = item;
    }
  }
  return found ? ({ key: null, value: found, listed: true } as unknown as Pair) : undefined;
}

/** A listed story's id as written: a number as its source (`1.10`, not 1.1). */
function idText(s: Scalar): string {
  return typeof s.value === 'number' && s.source ? s.source : String(s.value);
}

/** A list item that is a story's id alone (`- "1.2"`): written as a flow mapping with its id and status, the id's bytes kept. */
function listedIdSplice(text: string, s: Scalar, value: string): Splice {
  const [start, end] = s.range!;
  return { from: start, to: end, text: `{id: ${text.slice(start, end)}, status: ${value}}` };
}

/** How a ledger's mappings and lists are read: its YAML nodes (yamlShape) or its plain data (dataShape). */
interface Shape {
  /** A mapping's pairs as [key as ledger.ts names it, value], or undefined for anything else. */
  pairs(v: unknown): (readonly [string, unknown])[] | undefined;
  /** A list's items, or undefined for anything else. */
  items(v: unknown): unknown[] | undefined;
}

const yamlShape: Shape = {
  pairs: (v) => (isMap(v) ? (v.items as Pair[]).map((p) => [keyText(p) ?? '', p.value] as const) : undefined),
  items: (v) => (isSeq(v) ? v.items : undefined),
};
const dataShape: Shape = {
  pairs: (v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v).map(([k, x]) => [ledgerKeyName(k), x] as const) : undefined),
  items: (v) => (Array.isArray(v) ? v : undefined),
};

/**
 * The lists whose items are stories (ledger.ts readStoryLists): each sprint's `stories:` (`sprints: -
 * stories: - story_id: STORY-001`), each epic's `stories:` in a list of epics (`epics: - id: epic-1
 * stories: - id: story-ci`), the lists of `stories:` keyed by epic (`stories: epic_1: - id: "1.1"`),
 * or a `stories:` list at the top.
 */
function storyListsOf(top: unknown, shape: Shape): unknown[] {
  const at = (v: unknown, key: string) => shape.pairs(v)?.find(([k]) => k === key)?.[1];
  const lists: unknown[] = [];
  for (const holder of [...(shape.items(at(top, 'sprints') ?? at(top, 'sprint')) ?? []), ...(shape.items(at(top, 'epics')) ?? [])]) lists.push(at(holder, 'stories'));
  const stories = at(top, 'stories');
  for (const [k, v] of shape.pairs(stories) ?? []) if (EPIC_LIST.test(k)) lists.push(v);
  lists.push(stories);
  return lists;
}

/** The same, in the ledger as plain data: `key`'s value. */
function entryValue(data: unknown, key: string): unknown {
  const rec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!rec(data)) return undefined;
  const named = (o: Record<string, unknown>) => Object.entries(o).find(([k]) => ledgerKeyName(k) === key);
  if (rec(data.development_status)) return named(data.development_status)?.[1];
  for (const [name, epic] of [...Object.entries(rec(data.epics) ? data.epics : {}), ...Object.entries(data)]) {
    if (!EPIC_KEY.test(name) || !rec(epic) || !rec(epic.stories)) continue;
    if (name === key) return epic;
    const hit = named(epic.stories);
    if (hit) return hit[1];
  }
  if (rec(data.stories) && DOTTED_ID.test(key)) {
    const hit = named(data.stories);
    if (hit) return hit[1];
  }
  let found: unknown;
  for (const list of storyListsOf(data, dataShape)) {
    if (!Array.isArray(list)) continue;
    // (An id YAML reads as a number, `id: 1.2`, names the story `1.2`.)
    for (const item of list) if (rec(item) && item.status !== undefined && String(LIST_ID_KEYS.map((k) => item[k]).find((v) => v !== undefined && typeof v !== 'object')) === key) found = item;
  }
  return found;
}

/** The entry's status as the YAML says it: the value, or a mapping value's `status`. */
function statusValue(v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v)) return (v as Record<string, unknown>).status;
  return v;
}

/** Rewrites a scalar's bytes keeping its quoting. */
function scalarSplice(text: string, s: Scalar, value: string): Splice {
  const [start, end] = s.range!;
  const src = text.slice(start, end);
  if (s.type === 'QUOTE_DOUBLE' && src.startsWith('"')) return { from: start, to: end, text: JSON.stringify(value) };
  if (s.type === 'QUOTE_SINGLE' && src.startsWith("'")) return { from: start, to: end, text: `'${value.replace(/'/g, "''")}'` };
  return { from: start, to: end, text: value };
}

/** Sets a pair's empty value: right after its colon (or adds the colon). */
function emptySplice(text: string, p: Pair, value: string): Splice {
  const keyEnd = (p.key as Scalar).range![1];
  let i = keyEnd;
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] === ':') return { from: i + 1, to: i + 1, text: ` ${value}` };
  return { from: keyEnd, to: keyEnd, text: `: ${value}` };
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** Adds `status: value` to a mapping that has no such key. */
function addStatusSplice(text: string, map: YAMLMap, value: string, eol: string): Splice {
  const [start, , end] = map.range!;
  if (map.flow) {
    const close = text.lastIndexOf('}', end - 1);
    const inner = text.slice(start + 1, close);
    return { from: close, to: close, text: inner.trim() ? `, status: ${value}` : `status: ${value}` };
  }
  const first = (map.items[0] as Pair).key as Scalar;
  // (A list item's mapping, `- id: "1.2"`: its keys' column, the dash as a space.)
  const indent = text.slice(lineStart(text, first.range![0]), first.range![0]).replace(/[^\t]/g, ' ');
  const last = map.items[map.items.length - 1] as Pair;
  const lastEnd = ((last.value as Scalar | null)?.range ?? (last.key as Scalar).range!)[1];
  const nl = text.indexOf('\n', lastEnd);
  if (nl < 0) return { from: text.length, to: text.length, text: `${eol}${indent}status: ${value}` };
  return { from: nl + 1, to: nl + 1, text: `${indent}status: ${value}${eol}` };
}

/**
 * The ledger text with `key`'s status set to `status` and `last_updated` (when it holds a date
 * Waymark reads) set to `now` in its own format; every other byte stays. Throws 'invalid' when
 * the ledger does not parse and 'usage' when it has no such entry.
 */
export function editLedgerStatus(file: string, text: string, key: string, status: string, now: Date): string {
  const plain = plainLedger(text);
  const span = plain?.entries.get(key);
  if (plain && span) {
    const splices: Splice[] = [{ from: span.start, to: span.end, text: status }];
    const stamp = plain.top.get('last_updated');
    const parsed = stamp ? parseStamp(plain.data.last_updated as string) : undefined;
    if (stamp && parsed) splices.push(spanSplice(stamp, formatStamp(now, parsed.format)));
    return applySplices(text, splices);
  }
  const doc = parse(file, text);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const top = doc.contents;
  if (!isMap(top)) throw new WaymarkError('invalid', `${file} is not a mapping with development_status; nothing was changed.`, file);
  const entry = entryPair(top, key);
  if (!entry) throw new WaymarkError('usage', `${file} has no entry ${quoted(key)} with a status Waymark can write (under development_status, an epic's stories:, a stories: map keyed by the stories' numbers, or an item of a list of stories); nothing was changed. Add its status: by hand.`, file);
  const splices: Splice[] = [];
  const v = entry.value;
  if ((entry as { listed?: boolean }).listed && isScalar(v)) {
    splices.push(listedIdSplice(text, v, status));
  } else if (v === null || v === undefined || (isScalar(v) && v.value === null && v.range![0] === v.range![1])) {
    splices.push(emptySplice(text, entry, status));
  } else if (isScalar(v)) {
    splices.push(scalarSplice(text, v, status));
  } else if (isMap(v)) {
    const sp = pairOf(v, 'status');
    const sv = sp?.value;
    if (!sp) splices.push(addStatusSplice(text, v, status, eol));
    else if (sv === null || sv === undefined || (isScalar(sv) && sv.value === null && sv.range![0] === sv.range![1])) splices.push(emptySplice(text, sp, status));
    else if (isScalar(sv)) splices.push(scalarSplice(text, sv, status));
    else throw new WaymarkError('invalid', `${file}: the status of ${quoted(key)} is not a single word; write it by hand. Nothing was changed.`, file);
  } else {
    throw new WaymarkError('invalid', `${file}: the value of ${quoted(key)} is a list, not a status; write it by hand. Nothing was changed.`, file);
  }
  const stamp = pairOf(top, 'last_updated')?.value;
  if (isScalar(stamp) && stamp.range && typeof stamp.value === 'string') {
    const parsed = parseStamp(stamp.value);
    if (parsed) splices.push(scalarSplice(text, stamp, formatStamp(now, parsed.format)));
  }
  return applySplices(text, splices);
}

function applySplices(text: string, splices: Splice[]): string {
  let out = text;
  for (const s of splices.sort((a, b) => b.from - a.from)) out = out.slice(0, s.from) + s.text + out.slice(s.to);
  return out;
}

/** scalarSplice for a value of a plain ledger. */
function spanSplice(s: PlainSpan, value: string): Splice {
  const text = s.quote === '"' ? JSON.stringify(value) : s.quote === "'" ? `'${value.replace(/'/g, "''")}'` : value;
  return { from: s.start, to: s.end, text };
}

/** The status YAML reads for `key` (a mapping value's `status`), or undefined (no entry, not YAML). */
export function ledgerEntryStatus(text: string, key: string): string | undefined {
  const plain = plainLedger(text);
  if (plain) {
    const v = statusValue(entryValue(plain.data, key));
    return typeof v === 'string' ? v : undefined;
  }
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: false, logLevel: 'silent' });
  if (doc.errors.length) return undefined;
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  const v = statusValue(entryValue(data, key));
  return typeof v === 'string' ? v : undefined;
}

/**
 * Why `text` is not a ledger whose `key` reads `status` (it does not parse, or says otherwise),
 * else undefined: the check before a ledger write and after it lands.
 */
export function ledgerStatusProblem(file: string, text: string, key: string, status: string): string | undefined {
  let data: unknown = plainLedger(text)?.data;
  if (data === undefined) {
    try {
      data = parse(file, text).toJS({ maxAliasCount: 100 });
    } catch (e) {
      return (e as Error).message;
    }
  }
  const got = statusValue(entryValue(data, key));
  return got === status ? undefined : `${key} would read ${JSON.stringify(got ?? null)}, not ${status}.`;
}

/** True when the ledger's `development_status` (as YAML reads it, in any style) has `key`. */
export function ledgerHasEntry(text: string, key: string): boolean {
  const plain = plainLedger(text);
  if (plain) return plain.entries.has(key);
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: false, logLevel: 'silent' });
  const top = doc.contents;
  if (!isMap(top)) return false;
  return entryPair(top, key) !== undefined;
}

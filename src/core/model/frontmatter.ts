import type matterFn from 'gray-matter';
import { parse as parseYamlLib } from 'yaml';
import { parsePlainYaml, yamlDateToString, type MappingSpans } from './plainYaml';

interface GrayMatter {
  matter: typeof matterFn;
  /** gray-matter's own default YAML engine (js-yaml safeLoad). */
  engines: { yaml: { parse: (s: string) => unknown } };
  /** gray-matter's engine dispatch (language → engine), used on the block we already split out. */
  parse: (language: string, str: string, options: unknown) => unknown;
}
let grayMatterLib: GrayMatter | undefined;

/**
 * gray-matter and its js-yaml, loaded on first use: the fast reader (plainYaml.ts) answers most
 * frontmatter without them, and loading them costs every process (a CLI verb, a hook) milliseconds.
 */
function gray(): GrayMatter {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see above */
  grayMatterLib ??= {
    matter: require('gray-matter') as typeof matterFn,
    engines: require('gray-matter/lib/engines') as GrayMatter['engines'],
    parse: require('gray-matter/lib/parse') as GrayMatter['parse'],
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return grayMatterLib;
}

/** The parts of a Markdown file around its frontmatter. Offsets are UTF-16 indexes into the text. */
export interface FrontmatterSplit {
  /** `'\uFEFF'` when the file starts with a byte order mark, else `''`. */
  bom: string;
  /** Line ending of the opening fence line (the file's convention). */
  eol: '\n' | '\r\n';
  /** True when the file opens with a `---` fence line. */
  hasFrontmatter: boolean;
  /** True when a closing `---` line was found. */
  closed: boolean;
  /** The opening fence line without its line ending, e.g. `---` or `---js`. */
  openFence: string;
  /** Language tag after the opening fence (`''` for plain YAML), lower-cased. */
  language: string;
  /** The YAML text between the fences (each line with its line ending). */
  yamlText: string;
  /** Offset of the YAML text in the file text. */
  yamlStart: number;
  /** Offset just past the YAML text (start of the closing fence line). */
  yamlEnd: number;
  /** 0-based line of the first YAML line. */
  yamlStartLine: number;
  /** The closing fence line without its line ending (`---`), `''` when unclosed. */
  closeFence: string;
  /** Offset where the body starts (after the closing fence line and its line ending). */
  bodyStart: number;
  body: string;
}

const OPEN_FENCE = /^---([A-Za-z][\w-]*)?[ \t]*$/;
const CLOSE_FENCE = /^---[ \t]*$/;

/**
 * Splits a Markdown file into BOM, line ending, fences, YAML text (with its offset and line)
 * and body. Never throws. A file without an opening fence has `hasFrontmatter: false` and its
 * whole text (after any BOM) as body.
 */
export function splitFrontmatter(text: string): FrontmatterSplit {
  const bom = text.charCodeAt(0) === 0xfeff ? '\uFEFF' : '';
  const start = bom.length;
  const firstNl = text.indexOf('\n', start);
  const firstLineEnd = firstNl === -1 ? text.length : firstNl;
  const crlf = firstNl > start && text.charCodeAt(firstNl - 1) === 13;
  const eol: '\n' | '\r\n' = crlf ? '\r\n' : '\n';
  const firstLine = text.slice(start, crlf ? firstLineEnd - 1 : firstLineEnd);
  const none: FrontmatterSplit = {
    bom, eol, hasFrontmatter: false, closed: false, openFence: '', language: '', yamlText: '',
    yamlStart: start, yamlEnd: start, yamlStartLine: 0, closeFence: '', bodyStart: start, body: text.slice(start),
  };
  const m = OPEN_FENCE.exec(firstLine);
  if (!m) return none;
  const language = (m[1] ?? '').toLowerCase();
  const yamlStart = firstNl === -1 ? text.length : firstNl + 1;
  // Find the closing fence line.
  let pos = yamlStart;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl === -1 ? text.length : nl;
    // Only a line that starts with `---` can close: the others are not cut out of the text.
    const fence = text.charCodeAt(pos) === 45 && text.charCodeAt(pos + 1) === 45 && text.charCodeAt(pos + 2) === 45;
    const line = fence ? text.slice(pos, lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd) : '';
    if (fence && CLOSE_FENCE.test(line)) {
      const bodyStart = nl === -1 ? text.length : nl + 1;
      return {
        bom, eol, hasFrontmatter: true, closed: true, openFence: firstLine, language,
        yamlText: text.slice(yamlStart, pos), yamlStart, yamlEnd: pos, yamlStartLine: 1,
        closeFence: line, bodyStart, body: text.slice(bodyStart),
      };
    }
    if (nl === -1) break;
    pos = nl + 1;
  }
  return {
    bom, eol, hasFrontmatter: true, closed: false, openFence: firstLine, language,
    yamlText: text.slice(yamlStart), yamlStart, yamlEnd: text.length, yamlStartLine: 1,
    closeFence: '', bodyStart: text.length, body: '',
  };
}

/** Why frontmatter could not be turned into data. */
export type FrontmatterErrorKind =
  | 'code-refused'
  | 'language-unsupported'
  | 'yaml-syntax'
  | 'alias-limit'
  | 'too-complex'
  | 'not-mapping';

export interface FrontmatterError {
  kind: FrontmatterErrorKind;
  message: string;
  /** 0-based position inside the YAML text, when known. */
  yamlOffset?: number;
  /** 0-based line and column inside the YAML text, when known (exact for CRLF files too). */
  yamlLine?: number;
  yamlColumn?: number;
}

export interface ParsedFrontmatter {
  split: FrontmatterSplit;
  /** Null-prototype data; `{}` when there is no frontmatter or it could not be parsed. */
  data: Record<string, unknown>;
  error?: FrontmatterError;
  /** Keys that could pollute prototypes (`__proto__`, `constructor`, `prototype`), with their key paths. */
  unsafeKeys: (string | number)[][];
  /**
   * Positions of the `delegation` key and of its entries' values (rows relative to the YAML text),
   * when the fast reader read the block: cross-file problems are placed there without a YAML parse.
   */
  delegationSpans?: MappingSpans;
}

export interface FrontmatterLimits {
  /** Most alias expansions accepted (billion-laughs guard). */
  maxAliasCount: number;
  /** Most values (scalars + collections) accepted in one frontmatter block. */
  maxNodes: number;
}

export const DEFAULT_FRONTMATTER_LIMITS: FrontmatterLimits = { maxAliasCount: 100, maxNodes: 100_000 };

class RefusedEngineError extends Error {
  constructor(readonly language: string) {
    super(`frontmatter language '${language}' would run code; Waymark never evaluates frontmatter`);
  }
}

class AliasLimitError extends Error {}

const CODE_LANGUAGES = ['javascript', 'js', 'coffee', 'coffeescript', 'cson', 'ts', 'typescript', 'eval'];

function refusingEngine(language: string) {
  return {
    parse(): never {
      throw new RefusedEngineError(language);
    },
    stringify(): never {
      throw new RefusedEngineError(language);
    },
  };
}

const LONE_CR = /\r(?!\n)/;

const ANCHOR_OR_ALIAS = /(?:^|[\s[{,])[&*][^\s,[\]{}]/;

/** ANCHOR_OR_ALIAS's answer; most frontmatter holds neither `&` nor `*`, found at memchr speed. */
function mayHoldAnchorOrAlias(text: string): boolean {
  return (text.includes('&') || text.includes('*')) && ANCHOR_OR_ALIAS.test(text);
}

/**
 * Parses a YAML string safely: js-yaml safeLoad normally, the `yaml` library with an alias cap
 * when anchors/aliases appear. Line endings are normalised to LF first so both paths read a CRLF
 * (or CR-only) block the same way, and the `yaml` library's warnings (ambiguous `&x:`) are never
 * printed to the process's stderr.
 */
export function safeYamlParse(yamlText: string, limits: FrontmatterLimits = DEFAULT_FRONTMATTER_LIMITS): unknown {
  const text = yamlText.includes('\r') ? yamlText.replace(/\r\n?/g, '\n') : yamlText;
  if (mayHoldAnchorOrAlias(text) || text.includes('<<')) {
    try {
      return parseYamlLib(text, { maxAliasCount: limits.maxAliasCount, merge: true, prettyErrors: false, logLevel: 'error' });
    } catch (e) {
      const msg = String((e as Error).message);
      if (/unresolved alias/i.test(msg)) throw new UnresolvedAliasError(`${firstLine(msg)}: define the anchor (&name) before using *name`);
      if (e instanceof ReferenceError || /alias/i.test(msg)) {
        throw new AliasLimitError(msg);
      }
      throw e;
    }
  }
  return gray().engines.yaml.parse(text);
}

class UnresolvedAliasError extends Error {}

function makeGrayOptions(limits: FrontmatterLimits) {
  const engines: Record<string, unknown> = {
    yaml: { parse: (s: string) => safeYamlParse(s, limits), stringify: () => '' },
    yml: { parse: (s: string) => safeYamlParse(s, limits), stringify: () => '' },
  };
  for (const lang of CODE_LANGUAGES) engines[lang] = refusingEngine(lang);
  // Always pass options: gray-matter caches every input forever when called without them.
  return { language: 'yaml', engines } as unknown as GrayOpts;
}

type GrayOpts = Parameters<typeof matterFn>[1];
const defaultGrayOptions = makeGrayOptions(DEFAULT_FRONTMATTER_LIMITS);

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

class TooComplexError extends Error {}

/**
 * Deep-copies parsed YAML into null-prototype objects and plain arrays, turning Dates into
 * strings, counting nodes (so aliases cannot explode memory) and noting unsafe keys.
 */
export function toPlainData(value: unknown, maxNodes: number, unsafe: (string | number)[][] = []): unknown {
  let count = 0;
  const trail: (string | number)[] = [];
  const walk = (v: unknown, depth: number): unknown => {
    if (++count > maxNodes || depth > 200) throw new TooComplexError(`frontmatter has more than ${maxNodes} values or nests deeper than 200 levels`);
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Date) return dateToString(v);
    if (Array.isArray(v)) {
      const arr = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        trail.push(i);
        arr[i] = walk(v[i], depth + 1);
        trail.pop();
      }
      return arr;
    }
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(v)) {
      trail.push(key);
      if (UNSAFE_KEYS.has(key)) unsafe.push([...trail]);
      out[key] = walk((v as Record<string, unknown>)[key], depth + 1);
      trail.pop();
    }
    return out;
  };
  return walk(value, 0);
}

const dateToString = yamlDateToString;

/**
 * gray-matter with every code engine (`js`, `javascript`, `coffee`, ...) replaced by one that
 * throws, and options always passed (without options gray-matter caches every input forever).
 * Throws on refused languages and bad YAML; callers turn that into Problems.
 */
export function grayMatterData(text: string, limits: FrontmatterLimits = DEFAULT_FRONTMATTER_LIMITS): unknown {
  const opts = limits === DEFAULT_FRONTMATTER_LIMITS ? defaultGrayOptions : makeGrayOptions(limits);
  return (gray().matter(text, opts) as { data: unknown }).data;
}

/** True for the error grayMatterData throws when a block would be evaluated as code. */
export function isRefusedEngineError(e: unknown): boolean {
  return e instanceof RefusedEngineError;
}

/** The fast reader's switch: WAYMARK_FAST_PARSE as first read, unless a test set it. */
let fastReader: boolean | undefined;

/**
 * True when the fast reader (plainYaml.ts) may answer instead of js-yaml. `WAYMARK_FAST_PARSE=0`
 * (read once, at the first parse) turns it off, e.g. to rule it out when a result looks wrong.
 */
function fastParseEnabled(): boolean {
  if (fastReader === undefined) {
    const v = process.env.WAYMARK_FAST_PARSE;
    fastReader = v === undefined || !(v === '0' || v === 'off' || v === 'false');
  }
  return fastReader;
}

/** Turns the fast reader on or off (the differential tests' reference path); undefined: WAYMARK_FAST_PARSE decides again. */
export function setFastReader(on: boolean | undefined): void {
  fastReader = on;
}

/**
 * Splits and parses a file's frontmatter. Never throws and never evaluates code: `---js`,
 * `---coffee` and friends are refused by engines that throw instead of running the block.
 */
export function parseFrontmatter(text: string, limits: FrontmatterLimits = DEFAULT_FRONTMATTER_LIMITS): ParsedFrontmatter {
  const split = splitFrontmatter(text);
  // Made only for the answers that carry no data (most files take the fast reader's mapping).
  const empty = (): Record<string, unknown> => Object.create(null);
  const unsafeKeys: (string | number)[][] = [];
  if (!split.hasFrontmatter) return frontmatterOf(split, empty(), unsafeKeys);
  if (!split.closed) {
    return frontmatterOf(split, empty(), unsafeKeys, { kind: 'yaml-syntax', message: 'frontmatter has no closing --- line' });
  }
  const lang = split.language;
  if (lang !== '' && lang !== 'yaml' && lang !== 'yml') {
    if (CODE_LANGUAGES.includes(lang)) {
      return frontmatterOf(split, empty(), unsafeKeys, { kind: 'code-refused', message: `frontmatter marked ---${lang} is code; Waymark never runs it` });
    }
    return frontmatterOf(split, empty(), unsafeKeys, { kind: 'language-unsupported', message: `frontmatter language '${lang}' is not supported; use YAML (a plain --- fence)` });
  }
  // The common case, answered without js-yaml; anything the fast reader is unsure of falls through.
  // It runs where the reference would use js-yaml (no anchors, aliases or merge keys).
  if (fastParseEnabled() && !mayHoldAnchorOrAlias(split.yamlText) && !split.yamlText.includes('<<')) {
    const spans: { key: string; out?: MappingSpans } = { key: 'delegation' };
    const data = parsePlainYaml(split.yamlText, limits.maxNodes, spans);
    // A lone CR is a line break to the fast reader but not to positions: no spans then.
    if (data) return frontmatterOf(split, data, unsafeKeys, undefined, spans.out && !(split.yamlText.includes('\r') && LONE_CR.test(split.yamlText)) ? spans.out : undefined);
  }
  let raw: unknown;
  try {
    const opts = limits === DEFAULT_FRONTMATTER_LIMITS ? defaultGrayOptions : makeGrayOptions(limits);
    // Same engines as grayMatterData, but on the YAML block already split out (no second split).
    raw = split.yamlText.trim() === '' ? undefined : gray().parse(lang || 'yaml', split.yamlText, opts);
  } catch (e) {
    if (e instanceof RefusedEngineError) {
      return frontmatterOf(split, empty(), unsafeKeys, { kind: 'code-refused', message: e.message });
    }
    if (e instanceof AliasLimitError) {
      return frontmatterOf(split, empty(), unsafeKeys, { kind: 'alias-limit', message: `too many YAML alias expansions (limit ${limits.maxAliasCount}): possible alias bomb` });
    }
    const msg = String((e as Error)?.message ?? e);
    if (e instanceof RangeError && /call stack/i.test(msg)) {
      return frontmatterOf(split, empty(), unsafeKeys, { kind: 'too-complex', message: 'frontmatter nests too deeply to read (thousands of levels)' });
    }
    if (e instanceof UnresolvedAliasError) {
      return frontmatterOf(split, empty(), unsafeKeys, { kind: 'yaml-syntax', message: msg });
    }
    if (/not registered/.test(msg)) {
      return frontmatterOf(split, empty(), unsafeKeys, { kind: 'language-unsupported', message: `frontmatter language '${lang}' is not supported; use YAML` });
    }
    const mark = (e as { mark?: { position?: number; line?: number; column?: number } }).mark;
    // js-yaml's `reason` is the message without its "(line:col)" excerpt.
    const reason = (e as { reason?: string }).reason;
    return frontmatterOf(split, empty(), unsafeKeys, { kind: 'yaml-syntax', message: reason ?? firstLine(msg), yamlOffset: mark?.position, yamlLine: mark?.line, yamlColumn: mark?.column });
  }
  if (raw === null || raw === undefined) return frontmatterOf(split, empty(), unsafeKeys);
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return frontmatterOf(split, empty(), unsafeKeys, { kind: 'not-mapping', message: 'frontmatter must be a mapping of keys to values' });
  }
  try {
    const data = toPlainData(raw, limits.maxNodes, unsafeKeys) as Record<string, unknown>;
    return frontmatterOf(split, data, unsafeKeys);
  } catch (e) {
    return frontmatterOf(split, empty(), [], { kind: 'too-complex', message: String((e as Error).message) });
  }
}

/**
 * Every answer of parseFrontmatter with the same keys in the same order (those it lacks
 * undefined): one object shape, so the parse that reads it (every file of a scan) is optimised for
 * one map, not for the first few it met.
 */
function frontmatterOf(split: FrontmatterSplit, data: Record<string, unknown>, unsafeKeys: (string | number)[][], error?: FrontmatterError, delegationSpans?: MappingSpans): ParsedFrontmatter {
  return { split, data, unsafeKeys, error, delegationSpans };
}

const MAX_IMPLICIT_KEY = 1024;

/**
 * True when a line may hold an implicit key longer than YAML's limit: a `:` at least 1024
 * characters after the start of its line (an implicit key is on one line, so its `:` is at least
 * as far from the line's start as from the key's). A long line without one (`steps: [a, b, ...]`
 * of hundreds of steps) is not: the editing parser would refuse nothing there, and asking it costs
 * a full parse of the frontmatter on every read.
 */
export function hasLongLine(text: string): boolean {
  if (text.length <= MAX_IMPLICIT_KEY) return false;
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    if (end - start > MAX_IMPLICIT_KEY) {
      const colon = text.indexOf(':', start + MAX_IMPLICIT_KEY);
      if (colon !== -1 && colon < end) return true;
    }
    if (nl === -1) return false;
    start = nl + 1;
  }
}

/**
 * Where the fast reader finds the top-level `key` of a YAML text, and the value written on its
 * line: the rows and columns the `yaml` parser's nodes give (test/unit/plainKeyRanges.test.ts holds
 * it to that parser over generated texts), so a problem on a top-level key is placed without loading
 * and running that parser (positions.ts). Undefined, for the parser to place, when the reader does
 * not take the text or parseFrontmatter would not ask it (turned off, anchors, aliases, merge keys),
 * the key is not there, the text has a lone CR (a line break to the reader, not to positions) or
 * a line that may hold a key over YAML's length limit (an error to that parser).
 */
export function plainKeySpans(yamlText: string, key: string): MappingSpans | undefined {
  if (!fastParseEnabled() || mayHoldAnchorOrAlias(yamlText) || yamlText.includes('<<')) return undefined;
  if ((yamlText.includes('\r') && LONE_CR.test(yamlText)) || hasLongLine(yamlText)) return undefined;
  const spans: { key: string; out?: MappingSpans } = { key };
  return parsePlainYaml(yamlText, DEFAULT_FRONTMATTER_LIMITS.maxNodes, spans) ? spans.out : undefined;
}

function firstLine(s: string): string {
  const i = s.indexOf('\n');
  return (i === -1 ? s : s.slice(0, i)).trim();
}

/**
 * BMAD's sprint ledger, `sprint-status.yaml`, read with the grammar of BMAD's own sprint
 * planner: keys `epic-N`, `N-M[a-z]?-slug` (split stories), `epic-N-retrospective`; the status
 * orders per kind; legacy words (`drafted`, `contexted`) mapped on read and reported; timestamps
 * in several formats. Every entry keeps its exact line and value span, so problems point at it
 * and a status change rewrites that value and nothing else.
 */
import { parseDocument } from '../model/yamlDepth';
import type { Problem, Range } from '../types';
import { compareText, quoted } from '../model/text';

export type LedgerKind = 'epic' | 'story' | 'retro';

export const STORY_STATUSES = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'] as const;
export const EPIC_STATUSES = ['backlog', 'in-progress', 'done'] as const;
export const RETRO_STATUSES = ['optional', 'done'] as const;
export const ACTION_STATUSES = ['open', 'in-progress', 'done'] as const;
export type StoryStatus = (typeof STORY_STATUSES)[number];

/** Statuses allowed for each kind, in order (the rank is the index). */
export const LEDGER_ORDER: Record<LedgerKind, readonly string[]> = { story: STORY_STATUSES, epic: EPIC_STATUSES, retro: RETRO_STATUSES };

/** Older words BMAD itself wrote, mapped to today's meaning (never reset, never an error). */
export const LEGACY_STATUS: Record<string, Record<string, string>> = {
  story: { drafted: 'ready-for-dev', contexted: 'in-progress' },
  epic: { contexted: 'in-progress', drafted: 'backlog' },
  retro: { completed: 'done' },
};

/**
 * Words projects write for a BMAD status that mean it without doubt, mapped on read and reported
 * as info. Words that would mark work finished (`complete`, `finished`) are not mapped: they stay
 * unknown with "did you mean done?", since done is the one status that is never rewound.
 */
const SYNONYMS: Record<LedgerKind, Record<string, string>> = {
  story: {
    todo: 'backlog', 'to-do': 'backlog', 'not-started': 'backlog', planned: 'backlog', pending: 'backlog', new: 'backlog',
    ready: 'ready-for-dev', 'ready-for-development': 'ready-for-dev', approved: 'ready-for-dev', draft: 'ready-for-dev',
    wip: 'in-progress', started: 'in-progress', active: 'in-progress', doing: 'in-progress', inprogress: 'in-progress', 'in-development': 'in-progress', 'in-dev': 'in-progress',
    'in-review': 'review', 'ready-for-review': 'review', 'code-review': 'review', 'under-review': 'review', 'review-pending': 'review',
    // The work being checked, in a team's own word for BMAD's review (`verifying`, `in-verification`,
    // `in-qa`, `in-testing`); the past tense (`checked`, `verified`) could be the check passed or the
    // story finished, so it is not mapped.
    verifying: 'review', 'in-verification': 'review', 'under-verification': 'review', validating: 'review', 'in-validation': 'review', 'in-qa': 'review', 'in-testing': 'review',
    // The finished story in the project's own word: BMAD's tools know only `done` (its sprint_plan.py
    // would reset an "illegal" word), so it is read as done and noted, not warned.
    complete: 'done', completed: 'done', finished: 'done',
  },
  epic: { todo: 'backlog', 'not-started': 'backlog', planned: 'backlog', pending: 'backlog', wip: 'in-progress', started: 'in-progress', active: 'in-progress', inprogress: 'in-progress', 'in-development': 'in-progress', complete: 'done', completed: 'done', finished: 'done' },
  retro: { 'not-started': 'optional', pending: 'optional', todo: 'optional', planned: 'optional', complete: 'done', completed: 'done', finished: 'done' },
};

/**
 * An epic id as projects write it: `3`, lettered `3a`/`19b`, sub-epic `0-5`, module-prefixed
 * `pm-01`/`kb-03`. Matching uses `normEpicId` (case and leading zeros ignored).
 */
const EPIC_ID = '(?:[a-z][a-z0-9]*-(?=\\d))?\\d+[a-z]?(?:[-.]\\d+[a-z]?)*';
const EPIC_KEY = new RegExp(`^epic-(${EPIC_ID})$`, 'i');
// (`epic-1-回顾`, `epic-2-振り返り`: the retrospective in the language the project writes its ledger in.)
const RETRO_KEY = new RegExp(`^epic-(${EPIC_ID})-(?:retro(?:spective)?|retrospectiva|rétrospective|retrospektive|回顾|回顧|复盘|振り返り|회고)$`, 'i');
const STRICT_EPIC = /^epic-\d+$/;
/** An epic keyed by its lettered id, the letters glued to the number (`epic-e1`, `epic-ep02`), with or without its retrospective. */
const EPIC_LETTERED_KEY = /^epic-e(?:p)?(\d+[a-z]?)(-[^\d].*)?$/;
/** A module epic written as its bare id (`dm-01`), read as an epic when stories follow it. */
const BARE_EPIC = /^[a-z][a-z0-9]*-\d+[a-z]?$/i;
const STRICT_RETRO = /^epic-\d+-retrospective$/;
const STRICT_STORY = /^(\d+)-(\d+)([a-z]?)-(.+)$/;
/** The letters some projects put before an epic's number in a story key: `e-01-1-…`, `e0-1-…`, `ep2-3-…`. */
const EPIC_LETTER = /^ep?-?(?=\d+[a-z]?[-.]\d)/;
/** A story key without knowing the ledger's epics: `3a-1-slug`, `pm-01-1-slug`, `3-1` (no slug). */
// (`1-3-`: a key whose slug was lost is still story 1.3.)
const LOOSE_STORY = /^((?:(?!epic-)[a-z][a-z0-9]*-(?=\d))?\d+[a-z]?(?:\.\d+[a-z]?)*)-(\d+)([a-z]?)(?:-(.*))?$/i;
/** Epic and story each lettered: `e1-s1-slug`, `e01-s02-slug`, `ep2-s3-slug` (the letters say "epic" and "story"). */
const LETTERED_STORY = /^e(?:p|pic)?[-_]?(\d+[a-z]?)[-_]s(?:tory)?[-_]?(\d+)([a-z]?)(?:-(.+))?$/i;
/** A sprint plan's row number before a lettered story id: `10-` of `10-e4-s1-pl-tab`. */
const PLAN_ROW = /^\d{1,3}-(?=e(?:p|pic)?[-_]?\d+[a-z]?[-_]s(?:tory)?[-_]?\d)/;
/**
 * A story numbered within a lettered series, not within its epic: `g-01-browse-listings` (a
 * role's story, G-01 in the planning document), `r-0-architecture-blueprint`. Its epic is the
 * ledger's `epic-g` when there is one, else the epic it is listed under (BMAD's sprint planning
 * writes each epic's stories right after it).
 */
const SERIES_STORY = /^([a-z])-(\d+)-([a-z][\w.-]*)$/i;
/**
 * An epic named by a word or a team's series (`epic-r`, `epic-infra`, `epic-p4`, `epic-S1`: a letter
 * first, then letters and digits), or by a number with words after it (`epic-1a-plus`, the project's
 * "Epic 1a+"), read as an epic when stories numbered under it follow (`r-0-slug`, `p4-1-slug`,
 * `1a-plus-1-slug`); `epic-p4` is the series p4, not epic 4. The word may be several
 * (`epic-ux-pb` above `ux-pb-1a-slug`: the planning document's Story UX-PB.1a).
 */
const NAMED_EPIC_ID = '[a-z][a-z0-9]*(?:-(?!retro(?:spective)?$)[a-z][a-z0-9]*)*|\\d+[a-z]*(?:-(?!retro(?:spective)?$)[a-z][a-z0-9]*)+';
const WORD_EPIC = new RegExp(`^epic-(${NAMED_EPIC_ID})$`, 'i');
const WORD_RETRO = new RegExp(`^epic-(${NAMED_EPIC_ID})-retro(?:spective)?$`, 'i');
/** `epic-core-auth-accounts`: an epic named by words (one is WORD_EPIC's), read as one when its retrospective is listed too. */
const BLOCK_EPIC = /^epic-([a-z][a-z0-9]*(?:-[a-z0-9]+)*)$/i;
const BLOCK_RETRO = /^epic-([a-z][a-z0-9]*(?:-[a-z0-9]+)*)-retro(?:spective)?$/i;
/**
 * A series' epic written with the series first (`p2-epic-1`: phase 2's epic 1, its retrospective
 * `p2-epic-1-retrospective`), read as the epic `p2-1` when stories numbered under it follow
 * (`p2-1-1-slug`).
 */
const SERIES_FIRST_EPIC = /^([a-z][a-z0-9]*)-epic-(\d+[a-z]?)(-retro(?:spective)?)?$/i;

/** The id an epic is matched by: lower case, numbers without leading zeros (`PM-01` = `pm-1`). */
export function normEpicId(id: string): string {
  let n = normCache.get(id);
  if (n === undefined) {
    n = id.toLowerCase().replace(/\./g, '-').replace(/\d+/g, (d) => String(Number(d)));
    remember(normCache, id, n);
  }
  return n;
}

// Sorting and matching a sprint asks for the same few epic ids thousands of times: each is worked
// out once. Bounded, so a long-lived face reading many projects never grows them without end.
const normCache = new Map<string, string>();
const tokenCache = new Map<string, EpicTokens>();
function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= 4096) cache.clear();
  cache.set(key, value);
}

/** An epic id's comparison tokens: words and numbers, whether it is module-prefixed. */
interface EpicTokens {
  tokens: string[];
  numeric: boolean[];
  module: number;
}

function epicTokens(id: string): EpicTokens {
  let t = tokenCache.get(id);
  if (t === undefined) {
    const tokens = normEpicId(id).match(/[a-z]+|\d+/g) ?? [];
    // Module-prefixed ids come after the numbered ones.
    t = { tokens, numeric: tokens.map((x) => /^\d/.test(x)), module: Number(/^[a-z]/.test(tokens[0] ?? '')) };
    remember(tokenCache, id, t);
  }
  return t;
}

/** The first number of an epic id (`pm-01` → 1, `3a` → 3, `0-5` → 0), for code that needs one. */
export function epicNumber(id: string): number {
  const m = /\d+/.exec(id);
  return m ? Number(m[0]) : -1;
}

/** Orders epic ids the way people read them: 0-5 < 1 < 3 < 3a < 3b < 10 < 19b < kb-03 < pm-01. */
export function compareEpicIds(a: string, b: string): number {
  if (a === b) return 0;
  const A = epicTokens(a);
  const B = epicTokens(b);
  if (A.module !== B.module) return A.module - B.module;
  const ta = A.tokens;
  const tb = B.tokens;
  for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
    const x = ta[i];
    const y = tb[i];
    const dx = A.numeric[i];
    const dy = B.numeric[i];
    if (dx && dy) {
      if (Number(x) !== Number(y)) return Number(x) - Number(y);
    } else if (dx !== dy) return dx ? -1 : 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return ta.length - tb.length;
}

export interface LedgerKeyParts {
  kind: LedgerKind;
  /** First number of the epic id (see epicNumber). */
  epic: number;
  /** The epic id as written in the key, lower case: `3`, `3a`, `0-5`, `pm-01`. */
  epicId: string;
  /** `2`, `6a` for stories. */
  story?: string;
  /** True when the key is in the grammar of BMAD's own sprint planner (`epic-N`, `N-M[a]-slug`, `epic-N-retrospective`). */
  strict: boolean;
}

/** `02` → `2`; a part after a dot kept (`2.1`, `2.10`). */
const storyId = (digits: string, letter: string) => `${digits.split('.').map(Number).join('.')}${letter.toLowerCase()}`;

/**
 * Kind and numbers of a ledger key, or undefined for a key no BMAD grammar reads. `epicIds` are
 * the epic ids the ledger declares (`epic-0-5`): a story key starting with one of them belongs to
 * it (`0-5-1-slug` is story 1 of sub-epic 0-5, not story 5 of epic 0).
 */
export function classifyLedgerKey(key: string, epicIds?: Iterable<string>): { kind: LedgerKind; epic: number; story?: string } | undefined {
  const c = parseLedgerKey(key, epicIds);
  return c && (c.story !== undefined ? { kind: c.kind, epic: c.epic, story: c.story } : { kind: c.kind, epic: c.epic });
}

/** classifyLedgerKey with the epic id as written and whether the key is in BMAD's strict grammar. */
export function parseLedgerKey(key: string, epicIds?: Iterable<string>): LedgerKeyParts | undefined {
  // `epic-e1`, `epic-ep2-retrospective`: the epic named by its lettered id, as its stories' keys
  // (`e1-s2-slug`) name it: epic 1 (the letters say "epic", as in the stories' keys).
  const asWritten = key.toLowerCase();
  const glued = EPIC_LETTERED_KEY.exec(asWritten);
  const lower = glued ? `epic-${glued[1]}${glued[2] ?? ''}` : asWritten;
  let m = RETRO_KEY.exec(lower);
  if (m) return { kind: 'retro', epic: epicNumber(m[1]), epicId: m[1], strict: !glued && STRICT_RETRO.test(lower) };
  m = EPIC_KEY.exec(lower);
  if (m) return { kind: 'epic', epic: epicNumber(m[1]), epicId: m[1], strict: !glued && STRICT_EPIC.test(lower) };
  return classifyStoryKey(asWritten, epicIds);
}

/** A story key's epic and story (see classifyLedgerKey); also used for story file names. */
export function classifyStoryKey(key: string, epicIds?: Iterable<string>): LedgerKeyParts | undefined {
  let lower = key.toLowerCase();
  // `epic-120-s01`: story 1 of epic 120, the epic spelled out (`e1-s1` written long).
  const spelled = lower.startsWith('epic-') ? LETTERED_STORY.exec(lower) : null;
  // (`epic-3-story-2025-11-01`: a date after the word story, a dated note about epic 3, not story 3.2025.)
  if (spelled && /^(?:19|20)\d\d-[01]\d-[0-3]\d(?:-|$)/.test(`${spelled[2]}${spelled[3]}-${spelled[4] ?? ''}`)) return undefined;
  if (spelled) return { kind: 'story', epic: epicNumber(spelled[1]), epicId: spelled[1], story: storyId(spelled[2], spelled[3]), strict: false };
  if (lower.startsWith('epic-')) return undefined;
  // `story-001-1-slug`: the word says "story" before the epic's and the story's numbers (v6 alpha
  // ledgers under `epic-001`), as `e-` says "epic" below; with one number it is no such key.
  if (/^story-\d+[a-z]?-\d+[a-z]?(?:-|$)/.test(lower) && !(epicIds && [...epicIds].some((id) => id === 'story'))) lower = lower.slice('story-'.length);
  // `story-1.1`, `story-1.1-slug`: v6 alpha.0's story file name (`story-{epic}.{story}.md`) kept as the key.
  // `story-2.1.1`: story 1 of sub-epic 2.1 (the epics document's `Story 2-1.1`), listed under epic-2.
  // `story-E8.10`, `story-AP-1.1`: the same with the letters that say "epic" glued to its number
  // (story 10 of epic 8, as `e1-s2` says), or a module's prefix before it (story 1 of epic `ap-1`,
  // the ledger's `ap-1-1-slug`).
  const dotted = /^story-(?:e(?:p|pic)?[-_]?(?=\d)|([a-z][a-z0-9]+)-(?=\d))?(\d+[a-z]?)\.(\d+[a-z]?)(?:\.(\d+[a-z]?))?(?=-|$)/.exec(lower);
  // `1.1`, `3.4`: the story's number alone, dotted as the epics document numbers it (a `story_status:` map's keys).
  if (/^\d+[a-z]?\.\d+[a-z]?$/.test(lower)) lower = lower.replace('.', '-');
  if (dotted) lower = `${dotted[1] !== undefined ? `${dotted[1]}-` : ''}${dotted[4] !== undefined ? `${dotted[2]}.${dotted[3]}-${dotted[4]}` : `${dotted[2]}-${dotted[3]}`}${lower.slice(dotted[0].length)}`;
  // `e-01-1-slug`, `e0-1-slug`, `ep2-3-slug`: the letters say "epic" (the ledger's `epic-01`), unless
  // the ledger declares an epic of that very name (a module called `e`).
  const lettered = EPIC_LETTER.exec(lower);
  if (lettered && !(epicIds && [...epicIds].some((id) => normEpicId(lower).startsWith(`${normEpicId(id)}-`) && /^[a-z]/.test(id)))) lower = lower.slice(lettered[0].length);
  let best: LedgerKeyParts | undefined;
  for (const id of epicIds ?? []) {
    if (!lower.startsWith(`${id}-`) || (best && best.epicId.length >= id.length)) continue;
    // (`2.5-2.1-slug` under `epic-2.5`: story 2.1, a part of story 2, of the declared epic.)
    const rest = /^(\d+(?:\.\d+)?)([a-z]?)(?:-(.+))?$/.exec(lower.slice(id.length + 1));
    if (rest) best = { kind: 'story', epic: epicNumber(id), epicId: id, story: storyId(rest[1], rest[2]), strict: STRICT_STORY.test(lower) && /^\d+$/.test(id) };
  }
  if (best) return best;
  // `10-e4-s1-pl-tab`: the sprint plan's row number (its table's `#`), then story E4-S1 as the plan
  // names it (`| 10 | E4-S1: P&L Tab | E4 |`): story 1 of epic 4, the row number only its place in the plan.
  const lettered2 = LETTERED_STORY.exec(lower) ?? (PLAN_ROW.test(lower) ? LETTERED_STORY.exec(lower.replace(PLAN_ROW, '')) : null);
  if (lettered2) return { kind: 'story', epic: epicNumber(lettered2[1]), epicId: lettered2[1], story: storyId(lettered2[2], lettered2[3]), strict: false };
  const m = LOOSE_STORY.exec(lower);
  if (!m) return undefined;
  return { kind: 'story', epic: epicNumber(m[1]), epicId: m[1], story: storyId(m[2], m[3]), strict: STRICT_STORY.test(lower) };
}

/**
 * Sort order of stories: by epic id, then story number and letter (and the letter's digit: `1e1`, `1e2` after `1d`). Stories of a lettered series
 * (`g-01`, see SERIES_STORY) come after the numbered ones of their epic and keep the order they
 * are listed in (0 between two of them: a stable sort leaves the ledger's order).
 */
export function storyOrder(a: { epic: number; epicId?: string; story?: string }, b: { epic: number; epicId?: string; story?: string }): number {
  const byEpic = compareEpicIds(a.epicId ?? String(a.epic), b.epicId ?? String(b.epic));
  if (byEpic) return byEpic;
  const pa = /^(\d+)((?:[a-z]\d?)?)$/.exec(a.story ?? '');
  const pb = /^(\d+)((?:[a-z]\d?)?)$/.exec(b.story ?? '');
  if (!pa || !pb) return pa ? -1 : pb ? 1 : 0;
  return Number(pa[1]) - Number(pb[1]) || compareText(pa[2], pb[2]);
}

/** True when a story's id is a number (`3`, `6a`), not a lettered series' (`g-01`). */
export function numberedStory(s: { story?: string }): boolean {
  return /^\d+(?:[a-z]\d?)?$/.test(s.story ?? '');
}

export interface LedgerEntry {
  key: string;
  kind: LedgerKind | 'unknown';
  epic: number;
  /** The epic id as written in the key (lower case): `3`, `3a`, `0-5`, `pm-01`; '' for an unknown key. */
  epicId: string;
  /** `2`, `6a` for stories. */
  story?: string;
  /** The key is in the grammar of BMAD's own sprint planner. */
  strict: boolean;
  /** How the value is written: `key: word`, `key:` with nothing, or `key:` with an indented mapping (its `status:` is the value). */
  shape: 'scalar' | 'empty' | 'mapping';
  /** The status as written ('' when none). */
  raw: string;
  /** After the legacy mapping. */
  status: string;
  legacy: boolean;
  /** True when `status` is in the kind's vocabulary. */
  valid: boolean;
  /**
   * The key of the story this entry is a note about (`e1-1-jira-id: SCRUM-11` under
   * `e1-1-set-up-project: done`): its number is that story's, its value no status. Kind `unknown`.
   */
  annotates?: string;
  /** The title a listed story's own keys give it (`- story_id: STORY-001` with `title: "Parser"`), as written. */
  title?: string;
  /** 0-based line of the value (the nested `status:` line of a mapping), and the value's character span on it. */
  line: number;
  /** 0-based line of the key. */
  keyLine: number;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

export interface LedgerStamp {
  key: 'last_updated' | 'generated';
  raw: string;
  date?: Date;
  /** The format the stamp is written in, to write a new one the same way. */
  format?: StampFormat;
  line: number;
  valueStart: number;
  valueEnd: number;
  /** Quote character around the value, if any. */
  quote: string;
}

export type StampFormat = 'MM-DD-YYYY HH:MM' | 'YYYY-MM-DD HH:MM' | 'YYYY-MM-DD' | 'ISO' | 'MM-DD-YYYY';

export interface ActionItem {
  epic?: string;
  action?: string;
  owner?: string;
  status?: string;
  line: number;
}

export interface Ledger {
  file: string;
  entries: LedgerEntry[];
  byKey: Map<string, LedgerEntry>;
  lastUpdated?: LedgerStamp;
  generated?: LedgerStamp;
  project?: string;
  storyLocation?: string;
  actionItems: ActionItem[];
  /** 0-based line of `development_status:`, or -1. */
  statusLine: number;
  /** Another tool's format (`stories:` / `sprints:` / `epics:` lists, no `development_status:`): it lists no story BMAD reads. */
  otherFormat?: boolean;
  /**
   * Its epics are mappings holding their stories (`epics: epic-1: {status, stories: {1-1-slug: done}}`,
   * or `epic-1:` at the margin), no `development_status:`: the entries are read from there.
   */
  nested?: boolean;
  /**
   * Its stories are items of `sprints:` / `stories:` lists (`- story_id: STORY-001` with its `status:`,
   * `- { id: "STORY-001", status: done }`, `- STORY-001`), no `development_status:`: the entries are
   * read from there (readStoryLists).
   */
  listed?: boolean;
  /** Folders a nested ledger's stories name their files in (`story_file: stories/story-1-1-slug.md`), as written. */
  storyFolders?: string[];
  /**
   * The ledger of a project of its own kept in a folder of the first ledger's stories, declaring that
   * folder its `story_location` (a sibling app's `implementation-artifacts/admin/sprint-status.yaml`;
   * set by sprint.ts): its epics, its stories and the story files under that folder are its own.
   */
  ownProject?: boolean;
  /** Line ending the file uses. */
  eol: '\n' | '\r\n';
  problems: Problem[];
}

/**
 * Whether a story file missing from `ledger` is missing from the project's ledger: not when there is
 * none, nor when the only one is in another tool's format (BMAD reads no story from it).
 */
export function listsStories(ledger: Ledger | undefined): boolean {
  return ledger !== undefined && !ledger.otherFormat;
}

/**
 * Whether a `sprint-status.yaml` lists work: the one rule that makes a ledger live, wherever it is
 * asked (sprint.ts choosing among a project's ledgers, config.ts keeping a root ledger-only project
 * beside installs in subfolders). An empty `development_status: {}` lists none.
 */
export function listsWork(ledger: Ledger): boolean {
  return ledger.entries.length > 0;
}

function range(line: number, start: number, end: number): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

const STAMP_PATTERNS: { re: RegExp; format: StampFormat; build: (m: RegExpExecArray) => Date }[] = [
  { re: /^(\d{2})-(\d{2})-(\d{4}) (\d{1,2}):(\d{2})$/, format: 'MM-DD-YYYY HH:MM', build: (m) => new Date(Date.UTC(+m[3], +m[1] - 1, +m[2], +m[4], +m[5])) },
  { re: /^(\d{2})-(\d{2})-(\d{4})$/, format: 'MM-DD-YYYY', build: (m) => new Date(Date.UTC(+m[3], +m[1] - 1, +m[2])) },
  { re: /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2})(?::\d{2})?$/, format: 'YYYY-MM-DD HH:MM', build: (m) => new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5])) },
  { re: /^(\d{4})-(\d{2})-(\d{2})$/, format: 'YYYY-MM-DD', build: (m) => new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])) },
  { re: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/, format: 'ISO', build: (m) => new Date(m[0].length === 16 ? `${m[0]}Z` : m[0]) },
];

/** Reads a ledger timestamp in any of the formats BMAD and people write. */
export function parseStamp(raw: string): { date: Date; format: StampFormat; length: number } | undefined {
  const s = raw.trim();
  for (const p of STAMP_PATTERNS) {
    const m = p.re.exec(s);
    if (m) {
      const d = p.build(m);
      if (!Number.isNaN(d.getTime())) return { date: d, format: p.format, length: s.length };
    }
  }
  // A date followed by words (`2026-02-10 (after the 3a split)`, `2026-02-10 - epic 3 done`): the
  // longest leading part that is a date, so a rewrite replaces the date and keeps the words.
  const lead = /^\S+(?:[ T]\S+)?/.exec(s)?.[0] ?? '';
  for (const cut of [lead, lead.split(/\s/)[0]]) {
    if (!cut || cut === s || !/^[\s(\-–—,;|#]/.test(s.slice(cut.length))) continue;
    const r = parseStamp(cut);
    if (r) return r;
  }
  return undefined;
}

/** A new timestamp in the given format (UTC). */
export function formatStamp(d: Date, format: StampFormat): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const Y = d.getUTCFullYear();
  const M = p(d.getUTCMonth() + 1);
  const D = p(d.getUTCDate());
  const hm = `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
  switch (format) {
    case 'MM-DD-YYYY HH:MM': return `${M}-${D}-${Y} ${hm}`;
    case 'MM-DD-YYYY': return `${M}-${D}-${Y}`;
    case 'YYYY-MM-DD HH:MM': return `${Y}-${M}-${D} ${hm}`;
    case 'YYYY-MM-DD': return `${Y}-${M}-${D}`;
    case 'ISO': return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
}

/** `key: value  # comment` on one line: the value's span without quotes or comment. */
// (A no-break space after the colon, as some editors leave at a line's end, parts it like a space.)
// A key between escaped quotes (`\"10.1\":`, a tool that wrote a JSON-escaped string into YAML: YAML
// reads the backslashes and quotes as the key's text) is the key it names, as between quotes
// (ledgerKeyName); group 2 is the quoting, so the key starts after it.
const LINE_KV = /^(\s*)(\\["']|["']?)([^"'#:\s][^"'#:]*?)\2\s*:(?:[ \t\u00a0]+|$)(.*)$/;

/**
 * The key a ledger key's text names: YAML's own reading, less the escaped quotes around it
 * (`\"10.1\"` is 10.1; `"10.1"` and `'10.1'` YAML unquotes itself). The writer (ledgerEdit.ts)
 * finds an entry by this name and leaves the key's bytes as written.
 */
export function ledgerKeyName(key: string): string {
  const m = /^\\(["'])(.*)\\\1$/.exec(key);
  return m ? m[2] : key;
}

/** LINE_KV with a fullwidth colon between key and value (`1-1-作为玩家…：done`). */
const WIDE_KV = /^(\s*)(["']?)([^"'#:：\s][^"'#:：]*?)\2\s*：[ \t]*(.*)$/;

function valueSpan(line: string, rest: string): { raw: string; start: number; end: number; quote: string } {
  const restStart = line.length - rest.length;
  let body = rest;
  let quote = '';
  let start = restStart;
  if (body.startsWith('"') || body.startsWith("'")) {
    quote = body[0];
    const close = body.indexOf(quote, 1);
    const inner = close > 0 ? body.slice(1, close) : body.slice(1);
    return { raw: inner, start: start + 1, end: start + 1 + inner.length, quote };
  }
  const hash = body.search(/\s#/);
  if (hash >= 0) body = body.slice(0, hash);
  body = body.replace(/\s+$/, '');
  if (body.startsWith('#')) body = '';
  start = restStart;
  return { raw: body, start, end: start + body.length, quote };
}

/**
 * Parses the text of a `sprint-status.yaml`. Never throws: a file that is not YAML gets one
 * error at the parser's line; unknown keys, unknown words and bad stamps are warnings.
 */
export function parseLedger(file: string, text: string): Ledger {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const ledger: Ledger = { file, entries: [], byKey: new Map(), actionItems: [], statusLine: -1, eol, problems: [] };
  let section: 'top' | 'dev' | 'actions' | 'other' = 'top';
  // The ledger is plain `key: value` lines; the full YAML parser (slow on 1,000 keys) runs only
  // when a line uses anything else (flow collections, anchors, tags, block scalars, tabs, odd quotes).
  let suspicious = false;
  let current: ActionItem | undefined;
  let devIndent: number | undefined;
  let last: LedgerEntry | undefined;
  const wide: number[] = [];
  // Keys of BMAD's grammar written at the margin with a status (`1-1-slug: done`, `epic-1: done`):
  // the entries of a ledger written without its `development_status:` line (read below when it has none).
  const margin: LedgerEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim() || /^\s*#/.test(line)) continue;
    if (!suspicious && looksUnusual(line)) suspicious = true;
    const indent = /^\s*/.exec(line)![0].length;
    if (indent > 0 && (section === 'top' || section === 'other')) suspicious = true;
    // An entry written at the margin inside development_status (`4-11-slug: ready-for-dev` between
    // indented ones): not YAML, but a BMAD user reads it as one of the block's entries, and the
    // block goes on under it. A plain name (`last_updated:`) at the margin ends the block.
    const marginEntry = indent === 0 && section === 'dev' && /^["']?\d[\w.-]*["']?\s*:(?:\s|$)/.test(line);
    if (marginEntry) suspicious = true;
    if (indent === 0 && !marginEntry) {
      current = undefined;
      last = undefined;
      const m = LINE_KV.exec(line);
      // A stray line at the margin inside development_status (`´  4-6-slug: done`, a character typed
      // before an entry) is not YAML, but the entries under it are still the block's, as a BMAD
      // user reads them; a top-level key (a plain name) ends the block.
      if (section === 'dev' && (!m || /\s/.test(m[3].trim()))) {
        suspicious = true;
        continue;
      }
      if (!m) {
        section = 'other';
        suspicious = true;
        continue;
      }
      const key = m[3].trim();
      const v = valueSpan(line, m[4]);
      // `story_status:` and `epic_status:` maps (a ledger a team's own sprint planning wrote, the
      // statuses parted by kind): development_status's entries, under two keys.
      if (key === 'development_status' || ((key === 'story_status' || key === 'epic_status') && !/\S/.test(v.raw))) {
        section = 'dev';
        if (key === 'development_status' || ledger.statusLine < 0) ledger.statusLine = i;
        continue;
      }
      if (key === 'action_items') {
        section = 'actions';
        continue;
      }
      section = 'top';
      if (key === 'last_updated' || key === 'generated') {
        const parsed = v.raw ? parseStamp(v.raw) : undefined;
        const lead = v.raw.length - v.raw.trimStart().length;
        const stamp: LedgerStamp = { key, raw: v.raw, date: parsed?.date, format: parsed?.format, line: i, valueStart: v.start + lead, valueEnd: parsed ? v.start + lead + parsed.length : v.end, quote: v.quote };
        if (key === 'last_updated') ledger.lastUpdated = stamp;
        else ledger.generated = stamp;
        if (v.raw && !parsed) {
          ledger.problems.push({ file, range: range(i, v.start, v.end), severity: 'warning', code: 'ledger-timestamp', message: `${key} ${quoted(v.raw)} is not a date Waymark reads (MM-DD-YYYY HH:MM, YYYY-MM-DD HH:MM, YYYY-MM-DD or ISO); the staleness check is skipped.` });
        }
      } else if (key === 'project') ledger.project = v.raw;
      else if (key === 'story_location') ledger.storyLocation = v.raw;
      else if (v.raw && parseLedgerKey(key) !== undefined) {
        const keyStart = m[1].length + m[2].length;
        margin.push({ key, kind: 'unknown', epic: -1, epicId: '', strict: false, shape: 'scalar', raw: v.raw, status: v.raw, legacy: false, valid: false, line: i, keyLine: i, keyStart, valueStart: v.start, valueEnd: v.end });
      }
      continue;
    }
    if (section === 'dev') {
      let m = LINE_KV.exec(line);
      // `1-1-作为玩家…：done`: the key and its status parted by a fullwidth colon (a Chinese or
      // Japanese input method's). Not YAML, but what the line says is plain: the entry is read and
      // the ledger reported once.
      if (!m && line.includes('：')) {
        m = WIDE_KV.exec(line);
        if (m) wide.push(i);
      }
      if (!m) {
        // The status on its own line below its key (`  1-1-x:`, a comment or blank lines, `    done`):
        // YAML reads it as the entry's value (a comment at any indent is no content), and so does
        // Waymark; the edit writes that word's bytes (ledgerEdit.ts).
        const own = last && last.shape === 'empty' && last.line === last.keyLine && devIndent !== undefined && indent > devIndent ? OWN_LINE_VALUE.exec(line) : null;
        if (own && last && !continuesBelow(lines, i, indent)) {
          const start = own[1].length;
          Object.assign(last, { shape: 'scalar', raw: own[2], status: own[2], line: i, valueStart: start, valueEnd: start + own[2].length });
        } else if (last?.shape === 'scalar' && devIndent !== undefined && indent > devIndent) suspicious = true;
        continue;
      }
      const key = m[3].trim();
      const v = valueSpan(line, m[4]);
      const keyStart = m[1].length + m[2].length;
      if (!marginEntry) devIndent ??= indent;
      // Deeper than the block's entries under an entry that has its status on its own line
      // (`   2-11-slug: ready-for-dev` after `  2-10-slug: ready-for-dev`): not YAML, and no field of
      // that entry, but one more entry of the block, as a BMAD user reads it (the ledger is reported).
      const strayEntry = devIndent !== undefined && indent > devIndent && (!last || last.shape === 'scalar') && !/^(status|state)$/i.test(key) && parseLedgerKey(key) !== undefined;
      if (strayEntry) suspicious = true;
      if (devIndent !== undefined && indent > devIndent && !strayEntry) {
        // A key line under an entry that already has its value (`  1-1-x: done`, `    note: y`): not
        // YAML; the parser's error names the line (indentedUnderValue).
        if (last?.shape === 'scalar') suspicious = true;
        // A line of an entry written as a mapping: its `status:` is the entry's value.
        if (last && last.shape !== 'scalar' && /^(status|state)$/i.test(key) && (last.shape === 'empty' || last.line === last.keyLine)) {
          Object.assign(last, { shape: 'mapping', raw: v.raw, line: i, valueStart: v.start, valueEnd: v.end });
        }
        continue;
      }
      const dup = ledger.byKey.get(key);
      if (dup) {
        // The same value twice (`epic-32-retrospective: done` again, with a note): every reader gets
        // the same answer, so a warning; two different values, and which one counts is a guess.
        const same = v.raw !== '' && dup.shape === 'scalar' && dup.raw.trim().toLowerCase() === v.raw.trim().toLowerCase();
        ledger.problems.push({
          file, range: range(i, keyStart, keyStart + key.length), severity: same ? 'warning' : 'error', code: 'ledger-duplicate-key',
          message: same ? `${quoted(key)} is listed twice with the same status (first at line ${dup.keyLine + 1}); strict YAML readers refuse a repeated key. Remove one of them.` : `${quoted(key)} is listed twice (first at line ${dup.keyLine + 1}); YAML keeps only one. Remove one of them.`,
        });
        last = undefined;
        continue;
      }
      last = { key, kind: 'unknown', epic: -1, epicId: '', strict: false, shape: v.raw || v.quote ? 'scalar' : 'empty', raw: v.raw, status: v.raw, legacy: false, valid: false, line: i, keyLine: i, keyStart, valueStart: v.start, valueEnd: v.end };
      ledger.entries.push(last);
      ledger.byKey.set(key, last);
      continue;
    }
    if (section === 'actions') {
      const item = /^\s*-\s+(.*)$/.exec(line);
      const body = item ? item[1] : line.trim();
      if (item) {
        current = { line: i };
        ledger.actionItems.push(current);
      }
      const kv = /^["']?([A-Za-z_]+)["']?\s*:\s*(.*)$/.exec(body);
      if (current && kv) {
        const val = kv[2].replace(/\s+#.*$/, '').trim().replace(/^["']|["']$/g, '');
        const k = kv[1] as keyof ActionItem;
        if (k === 'epic' || k === 'action' || k === 'owner' || k === 'status') current[k] = val;
      }
    }
  }
  // No `development_status:`, its epics nested with their stories (`epics: epic-1: stories: 1-1-slug:
  // done`, or `epic-1:` at the margin): the same statuses, one level down, read as its entries.
  if (ledger.statusLine < 0) readNested(lines, ledger);
  // No `development_status:` line and no epics nesting their stories, but story keys of BMAD's
  // grammar at the margin, each with its status (`epic-1: done`, `1-1-slug: done`, the header and a
  // `summary:` around them): the ledger BMAD's sprint planning writes, its block's line left out. A
  // BMAD user (and an agent updating it) reads those lines as the entries; so does Waymark. Other
  // keys at the margin (`project:`, `generated:`, `summary:`) stay the header they are.
  if (ledger.statusLine < 0 && !ledger.nested && margin.some((e) => STRICT_STORY_AT_MARGIN.test(e.key))) {
    for (const e of margin) {
      const dup = ledger.byKey.get(e.key);
      if (dup) {
        const same = dup.raw.trim().toLowerCase() === e.raw.trim().toLowerCase();
        ledger.problems.push({
          file, range: range(e.keyLine, e.keyStart, e.keyStart + e.key.length), severity: same ? 'warning' : 'error', code: 'ledger-duplicate-key',
          message: same ? `${quoted(e.key)} is listed twice with the same status (first at line ${dup.keyLine + 1}); strict YAML readers refuse a repeated key. Remove one of them.` : `${quoted(e.key)} is listed twice (first at line ${dup.keyLine + 1}); YAML keeps only one. Remove one of them.`,
        });
        continue;
      }
      ledger.entries.push(e);
      ledger.byKey.set(e.key, e);
    }
  }
  // No `development_status:` and no nested epics, its stories listed under `sprints:` (each sprint's
  // `stories:` list) or a `stories:` list, each item a story's id with its status: read as its entries.
  if (ledger.statusLine < 0 && !ledger.nested && !ledger.entries.length) readStoryLists(lines, ledger);
  // (A nested ledger's own `complete` reads done, with a note, by the synonyms every ledger has.)
  classifyEntries(ledger.entries);
  // A ledger of another tool's format (its stories in a `sprints:` list, or under `epics:` or
  // `stories:`, and no `development_status:`): BMAD's sprint workflows read none of it; said once.
  if (ledger.statusLine < 0 && !ledger.nested && !ledger.listed) {
    const at = lines.findIndex((l) => /^(?:sprints?|epics|stories)[ \t]*:[ \t]*(?:#.*)?$/.test(l));
    if (at >= 0) {
      const key = lines[at].split(':')[0].trim();
      ledger.otherFormat = true;
      ledger.problems.push({ file, range: range(at, 0, key.length), severity: 'info', code: 'ledger-other-format', message: `sprint-status.yaml keeps its stories under '${key}:' with no development_status: block, another tool's format: BMAD's sprint workflows (bmad-sprint-planning, bmad-create-story, bmad-dev-story) do not read it, and Waymark reads no story from it. BMAD sprint planning writes the ledger they read.` });
    }
  }
  if (wide.length) {
    const at = wide[0];
    const col = lines[at].indexOf('：');
    ledger.problems.push({ file, range: range(at, col, col + 1), severity: 'error', code: 'ledger-yaml', message: `sprint-status.yaml is not valid YAML: line ${at + 1}${wide.length > 1 ? ` and ${wide.length - 1} more` : ''} part${wide.length > 1 ? '' : 's'} the key from its status with a fullwidth colon '：', which YAML and BMAD's tools do not read. Write ':' instead; Waymark reads ${wide.length > 1 ? 'these entries' : 'the entry'} as meant until then.`, data: { lines: wide.map((n) => n + 1) } });
  }
  if (suspicious) {
    // BMAD writes its path variables unquoted (`story_location: {project-root}/_bmad-output/…`): to
    // BMAD that is text, not a YAML flow mapping, so it is read as the text it is (lines kept).
    // The header above the entries is metadata BMAD's agents write in words
    // (`last_updated: 2026-07-23 (dev-story 4-8 → review: …)`): a plain value there is text too.
    const wideSet = new Set(wide);
    const asBmadReads = (wide.length ? lines.map((l, n) => (wideSet.has(n) ? l.replace('：', ': ') : l)).join('\n') : text)
      .replace(/^(\s*[\w.-]+\s*:[ \t]+)(\{[\w-]+\}[^\n#]*?)([ \t]+#[^\n]*)?$/gm, (_m, k: string, v: string, c?: string) => `${k}${JSON.stringify(v.trimEnd())}${c ?? ''}`)
      .replace(/^(?!development_status\s*:|action_items\s*:)([\w.-]+[ \t]*:[ \t]+)([^\s"'[\]{}|>&*!%@`#][^\n#]*?)([ \t]+#[^\n]*)?$/gm, (_m, k: string, v: string, c?: string) => `${k}${JSON.stringify(v.trimEnd())}${c ?? ''}`);
    const yamlError = (t: string) => parseDocument(t, { schema: 'core', uniqueKeys: false, logLevel: 'error' }).errors[0];
    let err = yamlError(asBmadReads);
    if (err && commentLinesBlanked(asBmadReads) !== asBmadReads) err = yamlError(commentLinesBlanked(asBmadReads));
    if (err) {
      const reported = Math.min(Math.max(0, (err.linePos?.[0]?.line ?? 1) - 1), Math.max(0, lines.length - 1));
      // A key with its value (`pre_arrival_tests: 8`) and a line below it indented further: YAML names
      // the key's line, but the line to mend is the one below, indented under a key that has a value.
      const under = err.code === 'BLOCK_AS_IMPLICIT_KEY' ? indentedUnderValue(lines, reported) : undefined;
      const line = under ?? reported;
      // In the header above `development_status:` or in the metadata after its block (the first key
      // at the margin below it: `total_stories:`, `notes:`), written as no YAML reader takes it,
      // the entries BMAD's agents read are whole: a warning. In the entries: an error.
      const inHeader = ledger.statusLine >= 0 && line < ledger.statusLine;
      const blockEnd = ledger.statusLine < 0 ? -1 : lines.findIndex((l, i) => i > ledger.statusLine && /^[\w.-]+[ \t]*:(?:[ \t]|$)/.test(l));
      const inTrailer = blockEnd >= 0 && line >= blockEnd;
      const why = under !== undefined ? `indented under '${lines[reported].trim()}', a key that already has its value` : err.message.split('\n')[0].replace(/[\s:.]+$/, '');
      ledger.problems.push({ file, range: range(line, 0, lines[line]?.length ?? 0), severity: inHeader || inTrailer ? 'warning' : 'error', code: 'ledger-yaml', message: inHeader || inTrailer
        ? `sprint-status.yaml is not valid YAML at line ${line + 1}, ${inHeader ? 'in its header' : 'after the development_status entries'} (${why}): YAML tools (BMAD's sprint_plan.py among them) cannot load the file. Waymark reads the development_status entries; fix ${inHeader ? 'the header' : 'that line'}.`
        : `sprint-status.yaml is not valid YAML at line ${line + 1} (${why}). Fix it; the ledger is read line by line until then.` });
    }
  }
  return ledger;
}

const NESTED_EPIC = /^epic-[\w.-]+$/i;
/** A story key in BMAD's own grammar (`1-1-slug`, `2a-3-slug`): what makes margin keys a ledger's entries. */
const STRICT_STORY_AT_MARGIN = /^\d+[a-z]?-\d+[a-z]?-[a-z0-9]/i;

/**
 * The entries of a ledger that nests its stories under their epics: every `epic-…:` mapping at the
 * margin or right under a margin `epics:` mapping, its `status:` the epic's entry, and each key of
 * its `stories:` mapping a story's (its value the status, or a mapping whose `status:` is). A list
 * (`stories: - id: …`) is another tool's format and stays unread.
 */
function readNested(lines: string[], ledger: Ledger): void {
  const indentOf = (l: string) => /^[ \t]*/.exec(l)![0].length;
  const blank = (l: string) => !l.trim() || /^\s*#/.test(l);
  /** The lines of the block under line `i` (deeper than `indent`), as [from, to). */
  const blockEnd = (i: number, indent: number) => {
    let j = i + 1;
    while (j < lines.length && (blank(lines[j]) || indentOf(lines[j]) > indent)) j++;
    return j;
  };
  /** The `key: value` lines of a block at its first line's indent. */
  const children = (from: number, to: number) => {
    const out: { i: number; key: string; indent: number; m: RegExpExecArray }[] = [];
    let at: number | undefined;
    for (let i = from; i < to; i++) {
      if (blank(lines[i])) continue;
      const ind = indentOf(lines[i]);
      at ??= ind;
      if (ind !== at) continue;
      const m = LINE_KV.exec(lines[i]);
      if (m) out.push({ i, key: m[3].trim(), indent: ind, m });
    }
    return out;
  };
  const entry = (c: { i: number; key: string; indent: number; m: RegExpExecArray }, to: number): LedgerEntry | undefined => {
    if (ledger.byKey.has(c.key)) return undefined;
    const line = lines[c.i];
    const v = valueSpan(line, c.m[4]);
    const keyStart = c.m[1].length + c.m[2].length;
    const e: LedgerEntry = { key: c.key, kind: 'unknown', epic: -1, epicId: '', strict: false, shape: v.raw || v.quote ? 'scalar' : 'empty', raw: v.raw, status: v.raw, legacy: false, valid: false, line: c.i, keyLine: c.i, keyStart, valueStart: v.start, valueEnd: v.end };
    if (e.shape === 'empty') {
      const end = blockEnd(c.i, c.indent);
      const kids = children(c.i + 1, Math.min(end, to));
      const st = kids.find((x) => /^(status|state)$/i.test(x.key));
      // `story_file: stories/story-1-1-slug.md`: the story names its file, so its folder is where stories are.
      const named = kids.find((x) => x.key === 'story_file');
      const where = named ? valueSpan(lines[named.i], named.m[4]).raw.trim() : '';
      if (/\.md$/i.test(where) && /[\\/]/.test(where)) {
        const folder = where.replace(/[\\/][^\\/]*$/, '');
        if (!(ledger.storyFolders ??= []).includes(folder)) ledger.storyFolders.push(folder);
      }
      if (st) {
        const sv = valueSpan(lines[st.i], st.m[4]);
        Object.assign(e, { shape: 'mapping', raw: sv.raw, status: sv.raw, line: st.i, valueStart: sv.start, valueEnd: sv.end });
      }
    }
    ledger.entries.push(e);
    ledger.byKey.set(e.key, e);
    return e;
  };
  const epicBlock = (c: { i: number; key: string; indent: number; m: RegExpExecArray }) => {
    const end = blockEnd(c.i, c.indent);
    const kids = children(c.i + 1, end);
    const stories = kids.find((k) => k.key === 'stories' && !k.m[4].trim());
    if (!stories) return false;
    const storyEnd = blockEnd(stories.i, stories.indent);
    const items = children(stories.i + 1, storyEnd);
    // A list of stories (`- id: …`) is no mapping of them.
    if (!items.length || items.some((x) => /^\s*-/.test(lines[x.i]))) return false;
    const epic = entry(c, end);
    if (epic && epic.shape === 'empty') {
      // The epic's block holds its stories: only its own `status:` is its value (children() looked at its first level).
      epic.shape = 'mapping';
    }
    for (const it of items) entry(it, storyEnd);
    return true;
  };
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (blank(l) || indentOf(l) > 0) continue;
    const m = LINE_KV.exec(l);
    if (!m) continue;
    const key = m[3].trim();
    if (NESTED_EPIC.test(key) && !m[4].trim()) {
      if (epicBlock({ i, key, indent: 0, m })) found = true;
    } else if (key === 'epics' && !m[4].trim()) {
      for (const c of children(i + 1, blockEnd(i, 0))) if (NESTED_EPIC.test(c.key) && !c.m[4].trim() && epicBlock(c)) found = true;
    }
  }
  if (found) ledger.nested = true;
}

/** A list item naming a story: `- story_id: "STORY-001"`, `- id: STORY-1.1`, `- { id: 'STORY-001', … }`, `- STORY-001`. */
const LIST_ITEM = /^(\s*)-[ \t]+(?:(\{)[ \t]*)?(?:(?:story_id|story_key|story|id|key)[ \t]*:[ \t]*)?(["']?)([A-Za-z0-9][\w.-]*)\3[ \t]*(,|\}|#.*)?\s*$/;
/**
 * An id a list names a story by: a key of BMAD's grammar (`1-2-slug`, `story-1.1`), or the word story
 * and one number (`STORY-001`), a category's word between them as the add-on writes work outside the
 * epics (`STORY-INF-001`, ADDON_STORY).
 */
const listedStoryId = (id: string) => ADDON_STORY.test(id) || SLUGGED_STORY.test(id) || parseLedgerKey(id) !== undefined;
/**
 * An item of a list of stories named by the word story and the slug its file carries, with or without
 * an area's number (`story-ci-workflows`, `story-cicd-01-build-pipeline`: a team's orchestrator
 * naming each story file `docs/stories/<id>.md`, `story-scorer`); not an epic's (`story-epic-1`).
 */
const SLUGGED_STORY = /^story[-_](?!e(?:p|pic)?[-_]\d)[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$/i;
/** `STORY-001`, `STORY-INF-001`: the word story, a category's word or none (no epic's: `story-epic-1` is not one), one number. */
const ADDON_STORY = /^story[-_]?(?:(?!e(?:p|pic)?[-_])([a-z]{1,8})[-_])?0*(\d{1,4})$/i;

/**
 * The entries of a ledger that lists its stories as items (a sprint plan's `sprints:`, each sprint's
 * `stories:`, or a `stories:` list at the margin), not as keys: each item names a story by its id
 * (`story_id:`, `id:`, or the id alone) and, as a mapping, holds its `status:`. A story listed twice
 * (carried into a later sprint, or named in a sprint and described in `stories:`) is read where it
 * is listed last with a status. The status keeps its line and span, so a status change rewrites it.
 */
function readStoryLists(lines: string[], ledger: Ledger): void {
  let inList = false;
  // Under `epics:` (a list of epics, each with its `stories:` list: the add-on's later plan, delorenj/perth
  // docs/sprint-status.yaml:32-52), only the items of an epic's `stories:` list are stories.
  let inEpics = false;
  // Under `stories:` at the margin, one list per epic (`epic_1:` / `epic-1:` holding `- id: "1.1"` items
  // with their `status:`, a team's sprint plan): each epic's list items are stories too. Or a mapping
  // keyed by the stories' ids (`"1.1":` over its `title:`, `status:`, `epic:`: a team's generated
  // ledger), at the column of its keys (storyCol): each key there is a story, its `status:` below it.
  let inStories = false;
  let storyCol = -1;
  const byKey = new Map<string, LedgerEntry>();
  const order: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim() || /^\s*#/.test(line)) continue;
    if (!/^\s/.test(line)) {
      inEpics = /^epics[ \t]*:[ \t]*(?:#.*)?$/.test(line);
      inList = inEpics || /^(?:sprints?|stories)[ \t]*:[ \t]*(?:#.*)?$/.test(line);
      inStories = /^stories[ \t]*:[ \t]*(?:#.*)?$/.test(line);
      storyCol = -1;
      continue;
    }
    if (!inList) continue;
    if (inStories && !/^\s*-/.test(line)) {
      const col = /^\s*/.exec(line)![0].length;
      if (storyCol < 0) storyCol = col;
      const kv = col === storyCol ? LINE_KV.exec(line) : null;
      // (Keyed by the dotted number only, `"1.1":`: a map keyed by slugs, `8-1-slug:`, stays another tool's format.)
      if (kv && /^\d{1,3}[a-z]?\.\d{1,3}[a-z]?$/i.test(kv[3].trim())) {
        const id = kv[3].trim();
        const e = listedEntry(id, i, kv[1].length + kv[2].length, line);
        const rest = kv[4].replace(/^\s+/, '');
        if (!rest || rest.startsWith('#')) {
          // Its keys below it, at the first deeper line's column.
          readEntryStatus(e, lines, i, (ind) => ind <= col);
        } else if (rest.startsWith('{')) {
          // `"1.1": {title: Lamp, status: done}`: its status among the flow mapping's pairs.
          flowStatus(e, line);
        } else {
          // `"1.1": done`: the value is its status.
          const v = valueSpan(line, kv[4]);
          Object.assign(e, { shape: 'scalar', raw: v.raw, status: v.raw, valueStart: v.start, valueEnd: v.end });
        }
        if (!byKey.has(id)) order.push(id);
        byKey.set(id, e);
      }
      continue;
    }
    let m = LIST_ITEM.exec(line);
    let flow = false;
    if (!m && /^\s*-[ \t]+\{/.test(line)) {
      // `- { id: "STORY-001", title: "…", points: 5, status: "done" }`: the id and status among the flow mapping's pairs.
      const id = /[{,][ \t]*(?:story_id|story_key|id|key)[ \t]*:[ \t]*(["']?)([A-Za-z0-9][\w.-]*)\1[ \t]*(?=[,}])/.exec(line);
      if (id) m = Object.assign([line, /^\s*/.exec(line)![0], '{', id[1], id[2], ''], { index: 0, input: line }) as unknown as RegExpExecArray;
      flow = true;
    }
    if (!m) continue;
    // An item of a list nested under another key of a story (`dependencies:`, `blocked_by:`) names
    // the stories it refers to, not a story of the plan: only a `stories:` (or `sprints:`) list's items are.
    const parent = listParent(lines, i, m[1].length);
    if (!(inEpics ? /^stories$/i : /^(?:sprints?|stories|story_ids|story_keys)$/i).test(parent?.key ?? '') && !(inStories && parent && isEpicListUnderStories(lines, parent))) continue;
    const id = m[4];
    const keyed = /:/.test(line.slice(0, line.indexOf(id)));
    if (!listedStoryId(id) || (!keyed && !flow && m[5] !== undefined && m[5][0] !== '#')) continue;
    const keyStart = line.indexOf(id);
    const e = listedEntry(id, i, keyStart, line);
    if (flow || m[2] === '{') {
      flowStatus(e, line);
    } else if (keyed) {
      // The item's other keys, at its first key's column: its `status:` is the story's.
      const col = line.length - line.slice(m[1].length + 1).trimStart().length;
      readEntryStatus(e, lines, i, (ind) => ind < col, col);
    }
    const had = byKey.get(id);
    if (had && e.shape === 'empty') continue;
    if (!had) order.push(id);
    byKey.set(id, e);
  }
  if (!byKey.size) return;
  for (const id of order) {
    const e = byKey.get(id)!;
    ledger.entries.push(e);
    ledger.byKey.set(id, e);
  }
  ledger.listed = true;
}

/** A listed story's `status:` (and `title:`) among the pairs of the flow mapping on its line (`{ id: …, status: done }`). */
function flowStatus(e: LedgerEntry, line: string): void {
  const title = /[{,][ \t]*title[ \t]*:[ \t]*(?:"([^"]*)"|'([^']*)'|([^,}]*?))[ \t]*(?=[,}])/.exec(line);
  const t = title ? (title[1] ?? title[2] ?? title[3] ?? '').trim() : '';
  if (t) e.title = t;
  const st = /[{,][ \t]*status[ \t]*:[ \t]*(["']?)([^,"'}]*?)\1[ \t]*(?=[,}])/.exec(line);
  if (!st) return;
  const start = st.index + st[0].length - st[2].length - st[1].length;
  Object.assign(e, { shape: 'mapping', raw: st[2].trim(), status: st[2].trim(), valueStart: start, valueEnd: start + st[2].length });
}

/** A story listed at line `at` (its id at `keyStart`), with no status yet. */
function listedEntry(id: string, at: number, keyStart: number, line: string): LedgerEntry {
  return { key: id, kind: 'unknown', epic: -1, epicId: '', strict: false, shape: 'empty', raw: '', status: '', legacy: false, valid: false, line: at, keyLine: at, keyStart, valueStart: line.length, valueEnd: line.length };
}

/**
 * A listed story's `status:` among its own keys, the lines after `from` up to the first one `outside`
 * it (by indent) at column `col` (undefined: the first such line's column), taken into `e` with its span;
 * and its `title:` there, when it has one (the BMAD skills add-on's plan names each story so).
 */
function readEntryStatus(e: LedgerEntry, lines: string[], from: number, outside: (indent: number) => boolean, col?: number): void {
  let found = false;
  for (let j = from + 1; j < lines.length; j++) {
    const l = lines[j];
    if (!l.trim() || /^\s*#/.test(l)) continue;
    const ind = /^\s*/.exec(l)![0].length;
    if (outside(ind)) break;
    col ??= ind;
    const kv = ind === col ? LINE_KV.exec(l) : null;
    if (!kv) continue;
    const key = kv[3].trim();
    if (!found && /^status$/i.test(key)) {
      const v = valueSpan(l, kv[4]);
      Object.assign(e, { shape: 'mapping', raw: v.raw, status: v.raw, line: j, valueStart: v.start, valueEnd: v.end });
      found = true;
    } else if (e.title === undefined && /^title$/i.test(key)) {
      const t = valueSpan(l, kv[4]).raw.trim();
      if (t) e.title = t;
    }
  }
}

/** A key naming an epic (`epic_1`, `epic-2`, `epic3a`) that is a first-level key of the `stories:` block at the margin. */
function isEpicListUnderStories(lines: string[], parent: { key: string; line: number }): boolean {
  if (!/^epic[-_]?\d+[a-z]?$/i.test(parent.key)) return false;
  const ind = /^\s*/.exec(lines[parent.line])![0].length;
  for (let j = parent.line - 1; j >= 0; j--) {
    const l = lines[j];
    if (!l.trim() || /^\s*#/.test(l)) continue;
    const li = /^\s*/.exec(l)![0].length;
    if (li >= ind) continue;
    return li === 0 && /^stories[ \t]*:[ \t]*(?:#.*)?$/.test(l);
  }
  return false;
}

/**
 * The key a list item at line `at` (its dash at column `dash`) belongs to: the nearest line above at
 * a lesser indent, or at the dash's own column when it is not an item itself (`stories:` above
 * `- id: …` written flush); `- stories:` counts as the key after its dash. Undefined when none.
 */
function listParentKey(lines: string[], at: number, dash: number): string | undefined {
  return listParent(lines, at, dash)?.key;
}

/** listParentKey's key with the line it is on. */
function listParent(lines: string[], at: number, dash: number): { key: string; line: number } | undefined {
  for (let j = at - 1; j >= 0; j--) {
    const l = lines[j];
    if (!l.trim() || /^\s*#/.test(l)) continue;
    const ind = /^\s*/.exec(l)![0].length;
    if (ind > dash) continue;
    const item = /^\s*-(?:[ \t]+|$)/.exec(l);
    if (ind === dash && item) continue;
    const kv = /^\s*(?:-[ \t]+)?(["']?)([\w.-]+)\1[ \t]*:/.exec(l);
    if (!kv) return undefined;
    // `- stories:` at a lesser indent: its key (after the dash) holds the list.
    if (ind < dash && item && item[0].length > dash) return undefined;
    return { key: kv[2], line: j };
  }
  return undefined;
}

/**
 * A key no grammar reads that names a story file kept in a story folder (`story-production-deployment`
 * beside `story-production-deployment.md`, `content-remediation` beside `story-content-remediation.md`):
 * read as a story of no epic, its status read as a story's (sprint.ts keysNamingFiles decides which).
 */
export function readAsStoryOfNoEpic(e: LedgerEntry): void {
  e.kind = 'story';
  e.epic = -1;
  e.epicId = 'no-epic';
  e.story = e.key.toLowerCase();
  e.strict = false;
  const word = readStatusWord('story', e.raw);
  e.status = word.status;
  e.legacy = word.mapped;
  e.valid = LEDGER_ORDER.story.includes(word.status);
}

/** Kinds, epics and statuses of the entries, once the ledger's epic ids are known. */
function classifyEntries(entries: LedgerEntry[]): void {
  const epicIds = new Set<string>();
  const bareEpics = new Set<string>();
  for (const e of entries) {
    const c = parseLedgerKey(e.key);
    if (c && c.kind !== 'story') epicIds.add(c.epicId);
    // `dm-01: done` above `dm-01-1-slug`: a module's epic written without `epic-`.
    else if (!c && BARE_EPIC.test(e.key)) bareEpics.add(e.key.toLowerCase());
  }
  // An id names an epic when keys numbered under it follow (`dm-01` above `dm-01-1-slug`).
  const numbersStories = (id: string) => entries.some((e) => e.key.toLowerCase().startsWith(`${id}-`) && /^\d/.test(e.key.slice(id.length + 1)));
  // `sprint-0: done` beside `sprint-0-retrospective: done`, outside any epic's block: an entry of the
  // team's own closed by its own retrospective, as `epic-N` by `epic-N-retrospective`, even with no
  // stories numbered under it (a sprint zero's set-up work): the retrospective is that entry's, not
  // story 0 of an epic `sprint`. (Inside an epic's block, `CORE-002` with `CORE-002-retrospective` is
  // that epic's story and its own retrospective no story: storiesInEpicBlocks.)
  const allKeys = new Set(entries.map((e) => e.key.toLowerCase()));
  const outsideBlocks = new Set<string>();
  let openEpic: string | undefined;
  for (const e of entries) {
    const c = parseLedgerKey(e.key);
    if (c?.kind === 'epic') openEpic = c.epicId;
    else if (c?.kind === 'retro' && c.epicId === openEpic) openEpic = undefined;
    else if (!c && openEpic === undefined) outsideBlocks.add(e.key.toLowerCase());
  }
  const retrospected = (id: string) => outsideBlocks.has(id) && (allKeys.has(`${id}-retrospective`) || allKeys.has(`${id}-retro`));
  for (const id of bareEpics) {
    if (numbersStories(id) || retrospected(id)) epicIds.add(id);
    else bareEpics.delete(id);
  }
  // `epic-r` above `r-0-slug`: an epic named by a word, when stories numbered under it follow.
  const wordEpics = new Set<string>();
  for (const e of entries) {
    const id = WORD_EPIC.exec(e.key)?.[1].toLowerCase();
    if (id && numbersStories(id)) wordEpics.add(id);
  }
  for (const id of wordEpics) epicIds.add(id);
  // `epic-core-auth-accounts` … `epic-core-auth-accounts-retrospective`: an epic named by words,
  // its block closed by its own retrospective (the keys between are its stories: storiesInEpicBlocks).
  const lowerKeys = new Set(entries.map((e) => e.key.toLowerCase()));
  const blockEpics = new Set<string>();
  for (const e of entries) {
    const id = BLOCK_EPIC.exec(e.key)?.[1].toLowerCase();
    if (!id || wordEpics.has(id) || !(lowerKeys.has(`epic-${id}-retrospective`) || lowerKeys.has(`epic-${id}-retro`)) || parseLedgerKey(e.key)) continue;
    // (An epic whose stories carry its id, `epic-nfr` above `nfr-s1-slug`, is read by those keys' own rules.)
    let namesStories = false;
    for (const k of lowerKeys) {
      if (!k.startsWith(`${id}-`)) continue;
      namesStories = true;
      break;
    }
    if (!namesStories) blockEpics.add(id);
  }
  for (const id of blockEpics) epicIds.add(id);
  const seriesFirst = (key: string) => {
    const m = SERIES_FIRST_EPIC.exec(key);
    return m ? { id: `${m[1]}-${m[2]}`.toLowerCase(), retro: m[3] !== undefined } : undefined;
  };
  const seriesEpics = new Set<string>();
  // (A series' own stories: keys numbered right after its word, `etr-006-…`.)
  const ownStories = (series: string) => entries.some((x) => x.key.toLowerCase().startsWith(`${series}-`) && /^\d/.test(x.key.slice(series.length + 1)));
  for (const e of entries) {
    const sf = seriesFirst(e.key);
    // (`etr-epic-001` … `etr-epic-001-retrospective`, the series' own stories numbered across its epics between
    // them, `etr-006-ocean-tokens`: the epic closed by its own retrospective, as `epic-core-auth` is; `supp-epic-1`
    // above `se1-1-…` is read by the rules for stories named otherwise.)
    if (sf && !sf.retro && (numbersStories(sf.id) || ((lowerKeys.has(`${e.key.toLowerCase()}-retrospective`) || lowerKeys.has(`${e.key.toLowerCase()}-retro`)) && ownStories(sf.id.replace(/-[^-]+$/, ''))))) seriesEpics.add(sf.id);
  }
  for (const id of seriesEpics) epicIds.add(id);
  const titled = titledEpics(entries, wordEpics);
  for (const t of titled.values()) epicIds.add(t.epicId);
  const typed = typedIds(entries);
  let under: LedgerKeyParts | undefined;
  const found = new Map<LedgerEntry, LedgerKeyParts>();
  for (const e of entries) {
    const t = typed.placed.get(e);
    if (t) {
      if (t.kind === 'epic') under = t;
      found.set(e, t);
      continue;
    }
    const lowerKey = e.key.toLowerCase();
    const sf = seriesEpics.size ? seriesFirst(lowerKey) : undefined;
    // `dm-01-retrospective`: the retrospective of a module epic written without `epic-`.
    const bareRetro = /^(.+)-retro(?:spective)?$/.exec(lowerKey);
    const named = WORD_EPIC.exec(lowerKey)?.[1] ?? WORD_RETRO.exec(lowerKey)?.[1];
    const block = blockEpics.size ? BLOCK_RETRO.exec(lowerKey)?.[1] ?? BLOCK_EPIC.exec(lowerKey)?.[1] : undefined;
    const title = titled.get(lowerKey);
    let c: LedgerKeyParts | undefined = title ? { kind: title.kind, epic: epicNumber(title.epicId), epicId: title.epicId, strict: false } : bareEpics.has(lowerKey)
      ? { kind: 'epic', epic: epicNumber(lowerKey), epicId: lowerKey, strict: false }
      : bareRetro && bareEpics.has(bareRetro[1]) ? { kind: 'retro', epic: epicNumber(bareRetro[1]), epicId: bareRetro[1], strict: false }
        : named && wordEpics.has(named) ? { kind: WORD_EPIC.test(lowerKey) ? 'epic' : 'retro', epic: -1, epicId: named, strict: false }
          : block && blockEpics.has(block) ? { kind: BLOCK_RETRO.test(lowerKey) ? 'retro' : 'epic', epic: -1, epicId: block, strict: false }
          : sf && seriesEpics.has(sf.id) ? { kind: sf.retro ? 'retro' : 'epic', epic: epicNumber(sf.id), epicId: sf.id, strict: false } : parseLedgerKey(e.key, epicIds);
    const series = c ? undefined : SERIES_STORY.exec(lowerKey);
    if (series && under) c = { kind: 'story', epic: under.epic, epicId: under.epicId, story: `${series[1]}-${series[2]}`, strict: false };
    // `story-night-watch-1` (BMAD v6 alpha's level-1 name), `story-7-mend-the-nets`: one number, no
    // epic's; a story of the epic it is listed under, else of the series its key names.
    const one = c ? undefined : ONE_NUMBER_STORY.exec(lowerKey);
    if (one) {
      const story = one[1] ? `${one[1]}-${Number(one[2])}` : `story-${Number(one[3])}`;
      c = under ? { kind: 'story', epic: under.epic, epicId: under.epicId, story, strict: false } : one[1] ? { kind: 'story', epic: -1, epicId: one[1], story: String(Number(one[2])), strict: false } : undefined;
    }
    // `STORY-001`: the word story and one number, no epic above it: a story of no epic, as its
    // file `STORY-001.md` is (story.ts NO_EPIC, 'no-epic').
    // (`STORY-INF-001`: the add-on's story of a category, infrastructure, numbered in its own series: story inf-1.)
    const lone = c || under ? undefined : ADDON_STORY.exec(lowerKey);
    if (lone) c = { kind: 'story', epic: -1, epicId: 'no-epic', story: lone[1] ? `${lone[1]}-${Number(lone[2])}` : String(Number(lone[2])), strict: false };
    if (c?.kind === 'epic') under = c;
    if (c) found.set(e, c);
  }
  seriesUnderHeaders(entries, found);
  storiesInEpicBlocks(entries, found, epicIds);
  seriesOfTheirOwn(entries, found);
  typedLeftovers(entries, found, typed.words);
  storyAnnotations(entries, found);
  for (const [e, c] of found) {
    e.kind = c.kind;
    e.epic = c.epic;
    e.epicId = c.epicId;
    e.story = c.story;
    e.strict = c.strict;
    const word = readStatusWord(c.kind, e.raw);
    e.status = word.status;
    e.legacy = word.mapped;
    e.valid = LEDGER_ORDER[c.kind].includes(word.status);
  }
}

/**
 * Notes a team keeps about a story as keys of their own beside it (`e1-1-jira-id: SCRUM-11`,
 * `e1-1-completed: 2025-11-25`, `e3-2-notes: |` under `e1-1-set-up-project: done`): a key numbered
 * like a story listed above it whose value is no status — a date, a number, an id, a path, a
 * sentence or a block of text, where a status is a word (`done`, `in progress`, `blocked`, `done ✅
 * (signed off)`). Read as notes of that story, not as stories of their own; a second key of the same
 * number with a status word (`3-1-login-v2: in-progress`) is still a story.
 */
function storyAnnotations(entries: readonly LedgerEntry[], found: Map<LedgerEntry, LedgerKeyParts>): void {
  const stated = new Map<string, LedgerEntry>();
  for (const e of entries) {
    const c = found.get(e);
    if (c?.kind !== 'story' || c.story === undefined) continue;
    const id = `${normEpicId(c.epicId)}\u0000${c.story}`;
    const first = stated.get(id);
    if (first === undefined) {
      if (statusValue(e)) stated.set(id, e);
      continue;
    }
    if (statusValue(e)) continue;
    found.delete(e);
    e.annotates = first.key;
  }
}

/** A value that states a status: a story status word BMAD writes (or its synonym), or one word of the project's own. */
function statusValue(e: LedgerEntry): boolean {
  if (e.shape !== 'scalar') return true;
  const raw = e.raw.trim();
  if (/^[|>][+-]?\d*$/.test(raw)) return false;
  const word = readStatusWord('story', raw);
  if (LEDGER_ORDER.story.includes(word.status)) return true;
  return /^\p{L}[\p{L}_-]*$/u.test(raw) && !/^(?:true|false|yes|no|null|none|tbd|n\/a)$/i.test(raw);
}

/** `epic-EP-ERP-01`: an epic keyed by a typed id, the type word (`EP`) then the id proper (`ERP-01`, `1A-01`), with a number in it. */
const TYPED_EPIC = /^epic-([a-z]+)-([a-z0-9]*\d[a-z0-9]*(?:-[a-z0-9]+)*|[a-z0-9]+(?:-[a-z0-9]+)*-[a-z0-9]*\d[a-z0-9]*)(-retro(?:spective)?)?$/;
/** A key typed by its first word (`US-ERP-01-03`: a user story). */
const TYPED_KEY = /^([a-z]+)-([a-z0-9]+(?:-[a-z0-9]+)+|[a-z0-9]+)$/;

/**
 * Ledgers keyed by a tracker's typed ids: `epic-EP-ERP-01` above (or anywhere away from)
 * `US-ERP-01-03`, the story's id being its epic's id proper with the story's own type word before it
 * and one more number after it (`-V2`, a slug, may follow the number). Each such key is story n of
 * that epic (`US-1B-02-01` is epic EP-1B-02's first story, not a story of a module `us-1b`), each
 * typed epic key an epic, `…-retrospective` its retrospective. The type words that placed a story
 * are returned: a key of the same word no epic names (`US-OCR-S7`) is still a story (typedLeftovers).
 * A module prefix BMAD writes (`epic-pm-01` above `pm-01-1-slug`) is the same word on both keys: not
 * a typed id, read as before.
 */
function typedIds(entries: readonly LedgerEntry[]): { placed: Map<LedgerEntry, LedgerKeyParts>; words: Set<string> } {
  const placed = new Map<LedgerEntry, LedgerKeyParts>();
  const words = new Set<string>();
  const epics = new Map<string, { type: string; id: string }>();
  const lower = entries.map((e) => e.key.toLowerCase());
  for (const k of lower) {
    const m = TYPED_EPIC.exec(k);
    if (m && !m[3]) epics.set(m[2], { type: m[1], id: `${m[1]}-${m[2]}` });
  }
  if (!epics.size) return { placed, words };
  const used = new Set<string>();
  entries.forEach((e, i) => {
    const m = TYPED_KEY.exec(lower[i]);
    if (!m || m[1] === 'epic' || m[1] === 'story') return;
    const parts = m[2].split('-');
    // The longest id proper the key starts with, then the story's number.
    for (let n = parts.length - 1; n >= 1; n--) {
      const ep = epics.get(parts.slice(0, n).join('-'));
      const num = ep && ep.type !== m[1] ? /^(\d+)([a-z]?)$/.exec(parts[n]) : null;
      if (!ep || !num) continue;
      placed.set(e, { kind: 'story', epic: epicNumber(ep.id), epicId: ep.id, story: `${Number(num[1])}${num[2]}`, strict: false });
      words.add(m[1]);
      used.add(ep.type);
      break;
    }
  });
  if (!placed.size) return { placed, words };
  entries.forEach((e, i) => {
    const m = TYPED_EPIC.exec(lower[i]);
    if (m && used.has(m[1])) placed.set(e, { kind: m[3] ? 'retro' : 'epic', epic: epicNumber(`${m[1]}-${m[2]}`), epicId: `${m[1]}-${m[2]}`, strict: false });
  });
  return { placed, words };
}

/** A key of a typed story word that no epic's id names (`US-OCR-S7`, `US-DR-DRILLS`): a story of the series its word names. */
function typedLeftovers(entries: readonly LedgerEntry[], found: Map<LedgerEntry, LedgerKeyParts>, words: ReadonlySet<string>): void {
  if (!words.size) return;
  for (const e of entries) {
    if (found.has(e)) continue;
    const m = TYPED_KEY.exec(e.key.toLowerCase());
    if (m && words.has(m[1]) && !/-retro(?:spective)?$/.test(m[2])) found.set(e, { kind: 'story', epic: -1, epicId: m[1], story: m[2], strict: false });
  }
}

/** `epic-1-team-foundation`, `epic-3-v1`: an epic's number, then its title or its generation (and `-retrospective`). */
// (`epic-q3-partial-siblings` above `q3-1-slug`: a lettered series' epic q3, its title after it.)
const TITLED_EPIC = /^epic-((?:[a-z]+)?\d+[a-z]?(?:-\d+[a-z]?)*)-([a-z][a-z0-9]*(?:-[a-z0-9]+)*?)(-retro(?:spective)?)?$/;

/**
 * Epic keys written with the epic's title or generation after its number (`epic-1-team-foundation`
 * above `1-1-slug`, `epic-0-system-stability` above `0-1-slug`; `epic-3-v0` then `epic-3-v1`, an
 * epic planned again): epic N when the key right after it is a story of epic N, and
 * `epic-N-title-retrospective` its retrospective. When several keys name epic N so (generations),
 * the last is epic N and each earlier one an epic of its own (`3-v0`), its stories still epic N's.
 * Not when the ledger keys `epic-N` itself, nor when stories are numbered under the whole name
 * (`epic-1a-plus` above `1a-plus-1-slug`: word epics, above).
 */
function titledEpics(entries: readonly LedgerEntry[], wordEpics: ReadonlySet<string>): Map<string, { kind: 'epic' | 'retro'; epicId: string }> {
  const out = new Map<string, { kind: 'epic' | 'retro'; epicId: string }>();
  const lower = entries.map((e) => e.key.toLowerCase());
  const plain = new Set(lower.filter((k) => EPIC_KEY.test(k)).map((k) => normEpicId(EPIC_KEY.exec(k)![1])));
  const byEpic = new Map<string, string[]>();
  for (let i = 0; i < lower.length; i++) {
    const m = TITLED_EPIC.exec(lower[i]);
    if (!m || m[3] || plain.has(normEpicId(m[1])) || wordEpics.has(`${m[1]}-${m[2]}`) || parseLedgerKey(lower[i])) continue;
    const next = i + 1 < lower.length ? parseLedgerKey(lower[i + 1], [m[1]]) : undefined;
    if (next?.kind !== 'story' || normEpicId(next.epicId) !== normEpicId(m[1])) continue;
    byEpic.set(m[1], [...(byEpic.get(m[1]) ?? []), lower[i]]);
  }
  for (const [id, keys] of byEpic) {
    keys.forEach((k, n) => {
      const epicId = n === keys.length - 1 ? id : `${id}-${TITLED_EPIC.exec(k)![2]}`;
      out.set(k, { kind: 'epic', epicId });
      for (const r of [`${k}-retrospective`, `${k}-retro`]) if (lower.includes(r)) out.set(r, { kind: 'retro', epicId });
      // (`epic-q3-retrospective` after `epic-q3-partial-siblings`: the retrospective keyed by the id alone, when no other rule reads it.)
      if (epicId === id) for (const r of [`epic-${id}-retrospective`, `epic-${id}-retro`]) if (lower.includes(r) && !out.has(r) && !parseLedgerKey(r)) out.set(r, { kind: 'retro', epicId });
    });
  }
  // `m37-e1` above `1-1-slug` (epic 1 of milestone 37, in the ledger of that milestone's folder):
  // the epic's lettered id after a scope of the project's own, epic N when the key right after it
  // is a story of epic N; `m37-e1-retrospective` its retrospective.
  for (let i = 0; i + 1 < lower.length; i++) {
    const m = SCOPED_EPIC.exec(lower[i]);
    if (!m || m[3] || out.has(lower[i]) || plain.has(normEpicId(m[2])) || parseLedgerKey(lower[i])) continue;
    const next = parseLedgerKey(lower[i + 1], [m[2]]);
    if (next?.kind !== 'story' || normEpicId(next.epicId) !== normEpicId(m[2])) continue;
    out.set(lower[i], { kind: 'epic', epicId: m[2] });
    for (const r of [`${lower[i]}-retrospective`, `${lower[i]}-retro`]) if (lower.includes(r)) out.set(r, { kind: 'retro', epicId: m[2] });
  }
  return out;
}

/** `m37-e1`, `phase2-ep3`: a scope of the project's own, then the epic's lettered id (and `-retrospective`). */
const SCOPED_EPIC = /^([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-e(?:p|pic)?-?(\d+[a-z]?)(-retro(?:spective)?)?$/;

/** `15-R1-slug`, `2-ux1-slug`, `3-2b5-slug`: a story numbered with letters in a declared epic (`R1`: refactoring 1 of epic 15). */
const LETTERED_NUMBER = /^(.+?)-([a-z]+\d+[a-z]?|\d+[a-z]\d+[a-z]?)(?:-(.+))?$/;
/** The letters before a lettered epic's number (`e1`, `ep02`, `epic1`), as LETTERED_STORY reads them. */
const LETTERED_EPIC_PREFIX = /^e(?:p|pic)?[-_]?(?=\d)/;

/** An epic id written with the letters that say "epic" (`e6`, `ep02`), without them (`6`, `02`); undefined for any other id. */
export function unletteredEpicId(id: string): string | undefined {
  const bare = id.replace(LETTERED_EPIC_PREFIX, '');
  return bare === id ? undefined : bare;
}
/** `1a-harbour-lights`: a story numbered within its epic's block by one number (and a letter), then a slug. */
const IN_BLOCK_NUMBER = /^(\d+)([a-z]?)-([a-z][\w.-]*)$/;
/** `CORE-001`, `td-cross-1-slug`: a series' key with one number (and a slug). */
const IN_BLOCK = /^([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-(\d+)([a-z]?)(?:-(.+))?$/;

/**
 * Keys inside an epic's block. A story numbered with letters after a declared epic's id (`15-R1-slug`
 * under epic-15, `6.2-p1-slug` under epic-6.2) is that epic's; a key of a series with one number
 * (`CORE-001`, `td-cross-1-slug`) or of one number alone (`1a-slug`) listed between `epic-X` and its own `epic-X-retrospective`, with
 * no other epic between, is a story of epic X, as a reader of the block says. Elsewhere (after a
 * retrospective, under no epic) such keys cannot be placed and stay unknown.
 */
function storiesInEpicBlocks(entries: LedgerEntry[], found: Map<LedgerEntry, LedgerKeyParts>, epicIds: ReadonlySet<string>): void {
  const declared = new Map([...epicIds].map((id) => [normEpicId(id), id]));
  let open: LedgerKeyParts | undefined;
  let pending: [LedgerEntry, string][] = [];
  for (const e of entries) {
    const c = found.get(e);
    if (c?.kind === 'epic') {
      open = c;
      pending = [];
    } else if (c?.kind === 'retro') {
      if (open && normEpicId(c.epicId) === normEpicId(open.epicId)) for (const [x, story] of pending) found.set(x, { kind: 'story', epic: open.epic, epicId: open.epicId, story, strict: false });
      open = undefined;
      pending = [];
    }
    const lower = e.key.toLowerCase();
    // A story's own retrospective (`EXP-001-retrospective`) is no story, and does not close the block.
    if (c || /-retro(?:spective)?$/.test(lower)) continue;
    const lettered = LETTERED_NUMBER.exec(lower);
    // (`e1-dt1-slug` under `epic-e1`: the epic's id with the letters that say "epic", as its stories' `e1-s2-…` write it.)
    const bare = lettered ? unletteredEpicId(lettered[1]) : undefined;
    const epicId = lettered ? declared.get(normEpicId(lettered[1])) ?? (bare !== undefined ? declared.get(normEpicId(bare)) : undefined) : undefined;
    if (lettered && epicId !== undefined) {
      found.set(e, { kind: 'story', epic: epicNumber(epicId), epicId, story: lettered[2], strict: false });
      continue;
    }
    // (`epic-4-ad-hoc-scripts` names an epic's extra work, not a series' story.)
    const series = open && !lower.startsWith('epic-') ? IN_BLOCK.exec(lower) : null;
    if (series) pending.push([e, `${series[1]}-${Number(series[2])}${series[3]}`]);
    // (`1a-harbour-lights`, `4-end-to-end-checks`: numbered within the epic alone, one number and a slug.)
    const within = open && !series ? IN_BLOCK_NUMBER.exec(lower) : null;
    if (within) pending.push([e, `${Number(within[1])}${within[2]}`]);
  }
}

/** `debug-1-backend-endpoints`, `BF-2-guest-auth`: a series' word, one number, a slug. */
const OWN_SERIES = /^([a-z]+)-(\d+)([a-z]?)-[a-z][\w.-]*$/;

/**
 * Keys of a series under no epic (`debug-1-slug`, `BF-1-slug`, `testing-1b-slug` before the first
 * epic or after an epic's retrospective, where no epic's block holds them): story n of the series
 * the word names, as `story-veritas-01` with no epic above is; a series of words has no epic key to
 * ask for. Inside an epic's open block (no retrospective after it) they stay unplaced.
 */
function seriesOfTheirOwn(entries: readonly LedgerEntry[], found: Map<LedgerEntry, LedgerKeyParts>): void {
  let open = false;
  for (const e of entries) {
    const c = found.get(e);
    if (c?.kind === 'epic') open = true;
    else if (c?.kind === 'retro') open = false;
    if (c || open) continue;
    const m = OWN_SERIES.exec(e.key.toLowerCase());
    if (m && m[1] !== 'epic' && m[1] !== 'story') found.set(e, { kind: 'story', epic: -1, epicId: m[1], story: `${Number(m[2])}${m[3]}`, strict: false });
  }
}

/** `story-{slug}-{n}` (slug, number) or `story-{n}-{slug}` (number): a story key with one number. */
const ONE_NUMBER_STORY = /^story-(?:([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-(\d+)|(\d+)-[a-z][\w.-]*)$/;
/** A key that may head a series: words and numbers joined by dashes, the first a word (`supp-epic-1`, `rust-phase-7`, `cc-foundation`). */
const SERIES_HEADER = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/;
/** The story part after a series' prefix: its number (a lone `s` before it: `S01`), a letter, then its slug; or a slug alone. */
const SERIES_REST = /^(?:s?(\d+)([a-z]?)(?:-(.+))?|([a-z][\w.-]*))$/;

/** True when `letters` is made of non-empty beginnings of consecutive `words`, from any word (`se` of supp-epic, `ccf` of cc-foundation, `ai` of feature-ai-ocr). */
function abbreviates(letters: string, words: readonly string[], from = -1): boolean {
  if (!letters) return from >= 0;
  const starts = from < 0 ? words.map((_, i) => i) : [from];
  for (const k of starts) {
    const w = words[k];
    if (w === undefined) continue;
    for (let n = Math.min(w.length, letters.length); n > 0; n--) {
      if (letters.startsWith(w.slice(0, n)) && abbreviates(letters.slice(n), words, k + 1)) return true;
    }
  }
  return false;
}

/** True when `letters` is made of non-empty beginnings of every one of `words`, in order (`fc` of fill-confirm). */
function initials(letters: string, words: readonly string[]): boolean {
  if (!words.length) return !letters;
  const [w, ...more] = words;
  for (let n = Math.min(w.length, letters.length - more.length); n > 0; n--) {
    if (letters.startsWith(w.slice(0, n)) && initials(letters.slice(n), more)) return true;
  }
  return false;
}

/**
 * The story a key is in a series headed by `header`, or undefined. The key's first part abbreviates
 * the header's words and carries its number (`se1-1-slug` under `supp-epic-1`, `r7-fork` under
 * `rust-phase-7`, `ccf-1-slug` under `cc-foundation`), or the key's words before its number make the
 * header's id of an `epic-` key (`fill-confirm-1-slug` under `epic-fc`, `saas-s01-slug` under
 * `epic-saas`). With no number anywhere it is no story: sharing a word is being a sibling.
 */
function seriesStory(header: string, key: string): string | undefined {
  const id = /^epic-([a-z][a-z0-9]*)$/.exec(header)?.[1];
  if (id) {
    // The words before the key's first number, as the id or its initials.
    const m = /^((?:[a-z][a-z0-9]*-)*?[a-z][a-z0-9]*)-(s?\d.*)$/.exec(key);
    if (!m) return undefined;
    const words = m[1].split('-');
    if (m[1] !== id && !(words.length > 1 && initials(id, words))) return undefined;
    const rest = SERIES_REST.exec(m[2]);
    return rest?.[1] ? `${Number(rest[1])}${rest[2]}` : undefined;
  }
  const tokens = header.split('-');
  const numbers = tokens.filter((t) => /^\d+$/.test(t));
  const words = tokens.filter((t) => /^[a-z]/.test(t));
  const m = /^([a-z]+)(\d*)-(.+)$/.exec(key);
  if (!m || !words.length || m[1] === words[0]) return undefined;
  const own = numbers.length ? numbers[numbers.length - 1] : '';
  if (own ? m[2] === '' || Number(m[2]) !== Number(own) : m[2] !== '') return undefined;
  if (!abbreviates(m[1], words)) return undefined;
  const rest = SERIES_REST.exec(m[3]);
  if (!rest) return undefined;
  if (rest[1] !== undefined) return `${Number(rest[1])}${rest[2]}`;
  return own ? rest[4] : undefined;
}

/**
 * A series the ledger names only by its header: `supp-epic-1: in-progress` above `se1-1-slug`,
 * `rust-phase-7` above `r7-1-slug`, `epic-fc` above `fill-confirm-1-slug` (as BMAD's sprint planning
 * writes each epic's stories right after it, and a reader takes the prefix for the header's
 * initials). The header is an epic of its own (`header-retrospective` its retrospective) when
 * stories of it follow it at once; keys no rule reads stay unknown.
 */
function seriesUnderHeaders(entries: LedgerEntry[], found: Map<LedgerEntry, LedgerKeyParts>): void {
  for (let i = 0; i < entries.length; i++) {
    const h = entries[i];
    const header = h.key.toLowerCase();
    if (found.has(h) || !SERIES_HEADER.test(header)) continue;
    const run: [LedgerEntry, string][] = [];
    for (let j = i + 1; j < entries.length && !found.has(entries[j]) && !/-retro(?:spective)?$/i.test(entries[j].key); j++) {
      const story = seriesStory(header, entries[j].key.toLowerCase());
      if (story === undefined) break;
      run.push([entries[j], story]);
    }
    if (!run.length) continue;
    const epicId = /^epic-([a-z][a-z0-9]*)$/.exec(header)?.[1] ?? header;
    found.set(h, { kind: 'epic', epic: -1, epicId, strict: false });
    for (const [e, story] of run) found.set(e, { kind: 'story', epic: -1, epicId, story, strict: false });
    for (const e of entries) {
      const k = e.key.toLowerCase();
      if (!found.has(e) && (k === `${header}-retrospective` || k === `${header}-retro`)) found.set(e, { kind: 'retro', epic: -1, epicId, strict: false });
    }
    i += run.length;
  }
}

/**
 * A ledger value read as a status of its kind: the word itself, a legacy word or an unmistakable
 * synonym mapped (`mapped`), `in progress`/`In_Progress` spelled the BMAD way; an empty value is
 * the kind's first status. Any other word is kept as written (lower case): the project's own.
 */
export function readStatusWord(kind: LedgerKind, raw: string): { status: string; mapped: boolean } {
  // A plain word of lower-case letters and dashes (`done`, `ready-for-dev`: nearly every entry):
  // no mark, comment, space, remark or inner capital, so none of the expressions below can match
  // it but the synonyms' look-up. Answered without them: three Unicode expressions, compiled cold
  // and run on each of a first sprint's ~400 entries, for nothing.
  if (plainWord(raw)) {
    const mapped = LEGACY_STATUS[kind][raw] ?? SYNONYMS[kind][raw];
    return mapped ? { status: mapped, mapped: true } : { status: raw, mapped: false };
  }
  // `done# note`: a comment glued to the word (YAML keeps it in the value; the word is meant).
  const lower = raw.trim().toLowerCase().replace(/^([a-z][a-z _-]*?)\s*#.*$/, '$1');
  if (!lower) return { status: LEDGER_ORDER[kind][0], mapped: false };
  // `✅ done`, `🚧 in-progress`: an emoji or mark before the word, as after it, is not the status.
  const marked = /^[^\p{L}\p{N}\s]+\s*(?=\p{L})/u.exec(lower);
  if (marked) {
    const word = readStatusWord(kind, lower.slice(marked[0].length));
    if (LEDGER_ORDER[kind].includes(word.status)) return { status: word.status, mapped: true };
  }
  const spelled = lower.replace(/[\s_]+/g, '-');
  const mapped = LEGACY_STATUS[kind][spelled] ?? SYNONYMS[kind][spelled] ?? (spelled !== raw && LEDGER_ORDER[kind].includes(spelled) ? spelled : undefined);
  if (mapped) return { status: mapped, mapped: true };
  // `done ✅`, `done ✅ (passed with notes)`, `review (PR #12)`: a status word, then an emoji or a
  // remark in brackets; the word is the status.
  const lead = /^([a-z][a-z _-]*?)\s*[^\p{L}\p{N}\s_-]/u.exec(lower)?.[1];
  if (lead && lead !== lower) {
    const word = readStatusWord(kind, lead);
    if (LEDGER_ORDER[kind].includes(word.status)) return { status: word.status, mapped: true };
  }
  // `ReadyForReview`, `InReview`: one CamelCase word, read by its words.
  const words = camelWords(raw.trim());
  if (words !== undefined) {
    const word = readStatusWord(kind, words);
    if (LEDGER_ORDER[kind].includes(word.status)) return { status: word.status, mapped: true };
  }
  return { status: lower, mapped: false };
}

/** Whether a value is lower-case ASCII letters and dashes, a letter first (`done`, `ready-for-dev`). */
function plainWord(raw: string): boolean {
  if (raw === '') return false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c === 0x2d && i > 0))) return false;
  }
  return true;
}

/** A CamelCase word parted into its words (`ReadyForReview` → `Ready For Review`); undefined when it has no inner capital. */
export function camelWords(word: string): string | undefined {
  const parted = word.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2');
  return parted === word ? undefined : parted;
}

/** True when a line is more than `key: value`, `- key: value` or a comment. */
/** A status alone on its line, as a plain word, a comment after it or none (`    done  # note`). */
const OWN_LINE_VALUE = /^(\s+)([A-Za-z][\w-]*)\s*(?:\s#.*)?$/;

/** Whether line i's plain value goes on below it (a deeper line that is not a comment: a value over several lines). */
function continuesBelow(lines: string[], i: number, indent: number): boolean {
  for (let j = i + 1; j < lines.length; j++) {
    const l = lines[j];
    if (!l.trim() || /^\s*#/.test(l)) continue;
    return /^\s*/.exec(l)![0].length >= indent;
  }
  return false;
}

/**
 * The text with each line that holds only a comment turned to spaces (same length: positions
 * hold). YAML gives such lines no content at any indent; the `yaml` package (2.8) refuses a
 * key, a blank line, a comment at the margin and the key's value indented below it, before the
 * next key ("Implicit keys need to be on a single line"), where PyYAML (BMAD's sprint_plan.py)
 * and YAML 1.2 read the value. The reader and ledgerEdit ask it again without those lines.
 */
export function commentLinesBlanked(text: string): string {
  return text.replace(/^[ \t]*#[^\r\n]*/gm, (m) => ' '.repeat(m.length));
}

function looksUnusual(line: string): boolean {
  const body = line.replace(/\s+#.*$/, '');
  if (/^\s*\t/.test(line) || /[[\]{}&*!|>%@`]/.test(body.replace(/^\s*-\s/, ''))) return true;
  const dq = (body.match(/"/g) ?? []).length;
  const sq = (body.match(/'/g) ?? []).length;
  return dq % 2 === 1 || (sq % 2 === 1 && !/^[^']*\w'\w/.test(body));
}

/** Rank of a status within its kind (-1 when outside the vocabulary). */
export function ledgerRank(kind: LedgerKind, status: string): number {
  return LEDGER_ORDER[kind].indexOf(status);
}

/**
 * The ledger text with one entry's value replaced, and `last_updated` refreshed in its own
 * format when the file has one. Every other byte stays as it was.
 */
export function rewriteLedgerStatus(text: string, ledger: Ledger, key: string, status: string, now: Date): string {
  const entry = ledger.byKey.get(key);
  if (!entry) throw new Error(`no ledger entry ${quoted(key)}`);
  if (entry.shape === 'mapping' && entry.line === entry.keyLine) throw new Error(`${quoted(key)} is a mapping without a status: line; add 'status: ${status}' under it`);
  // `key:` with nothing after it gets a space before the new word (`key:done` would be a key).
  const lineText = text.split('\n')[entry.line] ?? '';
  let value = status;
  if (entry.shape === 'empty' && !/\s$/.test(lineText.slice(0, entry.valueStart))) value = ` ${value}`;
  if (lineText[entry.valueEnd] === '#') value = `${value} `;
  const edits: { line: number; start: number; end: number; value: string }[] = [{ line: entry.line, start: entry.valueStart, end: entry.valueEnd, value }];
  const st = ledger.lastUpdated;
  if (st && st.format) edits.push({ line: st.line, start: st.valueStart, end: st.valueEnd, value: formatStamp(now, st.format) });
  return applyLineEdits(text, edits);
}

/** Applies same-line span edits by line offsets (lines split on LF; a CR stays at its line's end). */
export function applyLineEdits(text: string, edits: { line: number; start: number; end: number; value: string }[]): string {
  const starts: number[] = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const abs = edits.map((e) => ({ from: starts[e.line] + e.start, to: starts[e.line] + e.end, value: e.value })).sort((a, b) => b.from - a.from);
  let out = text;
  for (const e of abs) out = out.slice(0, e.from) + e.value + out.slice(e.to);
  return out;
}

/**
 * The line below `at` that YAML refused, when `at` is a key with a value on its line (`key: 8`) and the
 * next line holding anything is indented further than it: that line is the mistake (mis-indented), not
 * the key above it. Undefined otherwise.
 */
function indentedUnderValue(lines: readonly string[], at: number): number | undefined {
  const m = /^([ \t]*)[^\s#][^#]*?:[ \t]+[^\s#]/.exec(lines[at] ?? '');
  if (!m) return undefined;
  const indentOf = (l: string) => /^[ \t]*/.exec(l)![0].length;
  const filled = (i: number) => !/^\s*(?:#.*)?$/.test(lines[i]);
  // The key's line sits where its siblings do (not itself the odd line: a stray line at the margin).
  let before = at - 1;
  while (before >= 0 && !filled(before)) before--;
  if (before >= 0 && indentOf(lines[before]) > m[1].length) return undefined;
  let below = at + 1;
  while (below < lines.length && !filled(below)) below++;
  return below < lines.length && indentOf(lines[below]) > m[1].length ? below : undefined;
}


/**
 * The sprint as one model, and the drift between its ledgers: `sprint-status.yaml`, the story
 * files, the epics document and the gates. Pure: it takes parsed parts and returns plain data
 * and problems on exact lines, each with a quick fix where one is safe. A clean story (file and
 * ledger agree, words in the vocabulary, tasks matching the status) gets no problem at all.
 */
import * as path from 'node:path';
import type { Problem, Range } from '../types';
import { sha256 } from '../model/hash';
import { compareText, quoted } from '../model/text';
import { nearest } from '../model/config';
import { relativeInside } from '../store/safePath';
import { projectPath } from './config';
import { compareEpicIds, LEDGER_ORDER, ledgerRank, listsStories, normEpicId, numberedStory, storyOrder, unletteredEpicId, type Ledger, type LedgerEntry } from './ledger';
import { HELD, isStoryStatusWord, keyBeforeSlug, LEVEL1_NAME, NO_EPIC, normalizeStoryStatus, seriesIdOf, setAsideStatus, storyKeyFromName, taskOpen, taskProgress, withoutStoryPrefix, type StoryFile } from './story';
import { slugWords, storySlug, type PlannedEpic } from './epics';
import type { StoryGate } from './qaGates';

export interface SprintStory {
  key: string;
  epic: number;
  /** The epic id as written: `3`, `3a`, `0-5`, `pm-01`. */
  epicId: string;
  /** `3`, `6a`; `g-01` for a story of a lettered series (`g-01-browse-listings`). */
  story: string;
  title?: string;
  /** Status in `sprint-status.yaml` (legacy words mapped), and as written. */
  ledgerStatus?: string;
  ledgerRaw?: string;
  ledgerLine?: number;
  /** The ledger the story is listed in (a project can keep one per module). */
  ledgerFile?: string;
  /** The story file, its status as written and mapped to the ledger vocabulary. */
  file?: string;
  fileStatus?: string;
  fileStatusMapped?: string;
  fileStatusLine?: number;
  tasks: { done: number; total: number; reviewOpen: number };
  gate?: { verdict?: string; open: boolean; file: string; expired: boolean; notYaml?: boolean; reviewDue?: string };
  planned?: { file: string; line: number };
  /** The one status to show: the ledger's, else the file's. */
  status: string;
  /** SHA-256 over ledger status, file status and task boxes: `--expect-hash` compares it. */
  stateHash: string;
  problems: Problem[];
  /** Its work is kept in a spec-kit folder named by its key (`specs/<key>/`): `file` is that folder's task list (or spec), which states no status. */
  specKit?: true;
}

export interface SprintEpic {
  epic: number;
  /** The epic id as written: `3`, `3a`, `0-5`, `pm-01`. */
  id: string;
  title?: string;
  ledgerStatus?: string;
  ledgerLine?: number;
  /** The ledger the epic is listed in. */
  ledgerFile?: string;
  /** The ledger of the project of its own the epic belongs to (Ledger.ownProject), when not the first ledger's project. */
  project?: string;
  retrospective?: string;
  stories: SprintStory[];
  problems: Problem[];
}

export interface SprintRecommendation {
  /** What BMAD would run next. */
  action: 'dev-story' | 'code-review' | 'create-story' | 'sprint-planning' | 'retrospective';
  storyKey?: string;
  reason: string;
}

export interface SprintParts {
  root: string;
  ledger?: Ledger;
  /** Every ledger of the project (one per module in some projects); `ledger` alone when absent. */
  ledgers?: Ledger[];
  stories: StoryFile[];
  epics: Map<number | string, PlannedEpic>;
  gates: StoryGate[];
  now: Date;
  /** Days after which an unchanged ledger with work in progress is stale. */
  staleDays: number;
  /** spec-kit folders named by a ledger story's key (`specs/<key>/tasks.md`, else `spec.md`), by the key in lower case: the file of that story when it has none. */
  specKit?: Map<string, StoryFile>;
}

export interface SprintModel {
  epics: SprintEpic[];
  stories: SprintStory[];
  problems: Problem[];
  next?: SprintRecommendation;
  actionItems: { epic?: string; action?: string; owner?: string; status?: string }[];
  counts: Record<string, number>;
}

function at(line: number, start = 0, end = start): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

/** A story's number as an id; in the scope of a project of its own (Ledger.ownProject), that ledger's. */
const idOf = (epicId: string, story: string, scope = '') => `${scope ? `${scope}\0` : ''}${normEpicId(epicId)}.${story}`;
/** The part number a key carries after its story number (`9-2-1-salary-filters`, `9-2-1`: '1'), if any. */
function partOf(key: string, epicId: string | undefined, story: string | undefined): string | undefined {
  const lower = key.toLowerCase();
  const prefix = `${(epicId ?? '').toLowerCase()}-${story ?? ''}-`;
  if (epicId === undefined || story === undefined || !lower.startsWith(prefix)) return undefined;
  return /^(\d{1,2})(?:-|$)/.exec(lower.slice(prefix.length))?.[1].replace(/^0+(?=\d)/, '');
}

/**
 * Every number a story key or file name opens with, a lone letter after them joined to the last:
 * `23-1-1-slug` and `story-23.1.1.md` → `23-1-1`; `6-1-a-slug`, `story-6.1a-slug.md` → `6-1a`;
 * `story-31.8B.md` → `31-8b`. Undefined below two numbers.
 */
function fullNumber(name: string): string | undefined {
  const parts = name.toLowerCase().replace(/\.md$/, '').replace(/^story[-_. ]?/, '').split(/[-_.]/);
  const out: string[] = [];
  let i = 0;
  while (i < parts.length && /^\d+[a-z]?$/.test(parts[i])) out.push(parts[i++].replace(/^0+(?=\d)/, ''));
  if (out.length >= 2 && i < parts.length && /^[a-z]$/.test(parts[i]) && /^\d+$/.test(out[out.length - 1])) out[out.length - 1] += parts[i];
  return out.length >= 2 ? out.join('-') : undefined;
}

/** A story file's word for work that cannot go on (`Blocked`, `🚫 BLOCKED – waiting on the API`). */
const BLOCKED = /^[^\p{L}]*blocked\b/iu;

/** BMAD's story words, for messages. */
const STORY_WORDS = LEDGER_ORDER.story.join(', ');

/** Combines the parts into the sprint model and its drift problems. */
export function buildSprint(parts: SprintParts): SprintModel {
  const { now } = parts;
  const ledgers = parts.ledgers ?? (parts.ledger ? [parts.ledger] : []);
  const ledger = ledgers[0];
  const problems: Problem[] = ledgers.flatMap((l) => l.problems);
  // Stories by key; `N.M` ids can be shared (sub-epic keys `3-5-0-slug` read as story 3.5 by
  // BMAD's grammar), so an id maps to a list and a file or plan joins by exact key first.
  const byKey = new Map<string, SprintStory>();
  const byId = new Map<string, SprintStory[]>();
  const fileOf = new Map<SprintStory, StoryFile>();
  const epics = new Map<string, SprintEpic>();
  // A sibling app's ledger kept in a folder of the first's stories (Ledger.ownProject) is a scope of its
  // own: its epics, its story numbers and the story files under its story location are its, never the
  // first ledger's (its epic 1 is not the first's epic 1; its file `1-1-x.md` is not the first's 1.1).
  const projects = ledgers.filter((l) => l.ownProject && l.storyLocation !== undefined).map((l) => ({ file: l.file, home: projectPath(parts.root, l.storyLocation!) }));
  const scopeOfFile = (file: string): string => projects.filter((p) => relativeInside(p.home, file) !== undefined).sort((a, b) => b.home.length - a.home.length)[0]?.file ?? '';
  const scopeOfLedger = (lf: string): string => (projects.some((p) => p.file === lf) ? lf : '');
  const scopeOf = new Map<SprintStory, string>();
  const fits = (st: SprintStory, f: StoryFile) => (scopeOf.get(st) ?? '') === scopeOfFile(f.file);
  const epicKey = (id: string, scope = '') => (scope ? `${scope}\0${normEpicId(id)}` : normEpicId(id));
  const epicOf = (id: string, scope = ''): SprintEpic => {
    const k = epicKey(id, scope);
    let e = epics.get(k);
    if (!e) {
      e = { epic: epicNumberOf(id), id, stories: [], problems: [], ...(scope ? { project: scope } : {}) };
      epics.set(k, e);
    }
    return e;
  };
  const newStory = (epicId: string, story: string, key: string, scope = ''): SprintStory => {
    const s: SprintStory = { key, epic: epicNumberOf(epicId), epicId, story, tasks: { done: 0, total: 0, reviewOpen: 0 }, status: 'backlog', stateHash: '', problems: [] };
    byKey.set(key, s);
    if (scope) scopeOf.set(s, scope);
    const id = idOf(epicId, story, scope);
    const list = byId.get(id);
    if (list) list.push(s);
    else byId.set(id, [s]);
    epicOf(epicId, scope).stories.push(s);
    return s;
  };
  /** The story a plan with this key and id belongs to: same key, else the only story with that id. */
  const match = (key: string | undefined, epicId: string, story: string): SprintStory | undefined => {
    if (key && byKey.has(key)) return byKey.get(key);
    const list = byId.get(idOf(epicId, story));
    return list && list.length === 1 ? list[0] : undefined;
  };
  const lf0 = ledger?.file ?? '';
  // Ledger entries, each ledger's against its own file; a key an earlier ledger lists is that one's.
  const listedIn = new Map<string, string>();
  for (const l of ledgers) {
    const lf = l.file;
    const scope = scopeOfLedger(lf);
    const note = grammarNote(l);
    if (note) problems.push(note);
    const dups: LedgerEntry[] = [];
    for (const e of l.entries) {
      const range = at(e.line, e.valueStart, e.valueEnd);
      if (e.kind === 'unknown') continue;
      const lower = e.key.toLowerCase();
      // (A project of its own's retrospectives are its epics': `epic-1-retrospective` in both ledgers is two.)
      if (ledgers.length > 1 && e.kind !== 'epic' && !(scope && e.kind === 'retro')) {
        if (listedIn.has(lower)) {
          dups.push(e);
          continue;
        }
        listedIn.set(lower, lf);
      }
      // A story's word that a story file's Status would be read as one of BMAD's (`ready-for-testing`
      // is review, `approved` ready-for-dev): the ledger's word is read the same way, and noted, as a
      // legacy word is; never a warning on a story both files agree on.
      // A word for finished work (`review-complete`, `merged`, `shipped`) is done, as `complete` is.
      const word = e.kind === 'story' && !e.valid ? normalizeStoryStatus(e.raw) : undefined;
      const read = word?.status ?? (word?.suggestion === 'done' ? 'done' : undefined);
      const status = read ?? e.status;
      if (read) {
        problems.push({ file: lf, range, severity: 'info', code: 'ledger-legacy-status', message: `${quoted(e.raw)} is read as ${quoted(read)} (the project's word for a BMAD status). Write ${quoted(read)} so every tool reads it the same.`, data: { fix: 'setLedgerValue', key: e.key, value: read } });
      } else if (!e.valid) {
        const sug: { status?: string; suggestion?: string } = e.kind === 'story' ? normalizeStoryStatus(e.raw) : {};
        const typo = nearest(e.raw.trim().toLowerCase(), LEDGER_ORDER[e.kind]);
        const value = sug.status ?? sug.suggestion ?? typo;
        // A word of the project's own (`blocked`, `deferred`) is kept as written: a note, not a warning.
        problems.push({
          file: lf, range, severity: value ? 'warning' : 'info', code: 'ledger-unknown-status',
          message: value
            ? `${quoted(e.raw)} is not a ${e.kind} status BMAD knows (${LEDGER_ORDER[e.kind].join(', ')}). Did you mean ${value}?`
            : `${quoted(e.raw)} is the project's own ${e.kind} status, kept as written; BMAD's ${e.kind} statuses are ${LEDGER_ORDER[e.kind].join(', ')}, and its workflows skip this ${e.kind}.`,
          data: value ? { fix: 'setLedgerValue', key: e.key, value } : { key: e.key },
        });
      } else if (e.legacy) {
        problems.push({ file: lf, range, severity: 'info', code: 'ledger-legacy-status', message: `${quoted(e.raw)} is read as ${quoted(e.status)} (an older or differently written BMAD word). Write ${quoted(e.status)} so every tool reads it the same.`, data: { fix: 'setLedgerValue', key: e.key, value: e.status } });
      }
      if (e.kind === 'epic') {
        const ep = epicOf(e.epicId, scope);
        if (ep.ledgerFile !== undefined) continue;
        ep.id = e.epicId;
        ep.ledgerStatus = e.status;
        ep.ledgerLine = e.line;
        ep.ledgerFile = lf;
      } else if (e.kind === 'retro') {
        epicOf(e.epicId, scope).retrospective = e.status;
      } else {
        const s = newStory(e.epicId, e.story!, e.key, scope);
        // (A listed story's title in its plan, `title: "Parser"`: its title until a file or the epics give one.)
        if (e.title !== undefined) s.title = e.title;
        s.ledgerStatus = status;
        s.ledgerRaw = e.raw;
        s.ledgerLine = e.line;
        s.ledgerFile = lf;
      }
    }
    if (dups.length) {
      const d = dups[0];
      problems.push({ file: lf, range: at(d.keyLine, d.keyStart, d.keyStart + d.key.length), severity: 'info', code: 'ledger-duplicate-key', message: `${dups.length} entr${dups.length === 1 ? 'y is' : 'ies are'} also listed in ${listedIn.get(d.key.toLowerCase())} (${dups.slice(0, 3).map((x) => x.key).join(', ')}${dups.length > 3 ? ', …' : ''}); Waymark reads ${dups.length === 1 ? 'it' : 'them'} there. Keep each story in one ledger.`, data: { keys: dups.map((x) => x.key) } });
    }
  }
  // Story files: the file named by a ledger key is that story's; another file is matched by its
  // number (`3a-1-…`) when exactly one story has that number and no file of its own yet. Two
  // candidates for one story are reported, not guessed; a note beside a story that has its file
  // (`10-1-e2e-evidence.md` next to `10-1-login.md`) is not a second story.
  const declared = [...new Set(ledger?.entries.filter((e) => e.kind === 'epic' || e.kind === 'retro').map((e) => e.epicId) ?? [])];
  const bind = (s: SprintStory, f: StoryFile) => {
    fileOf.set(s, f);
    s.file = f.file;
    s.title = f.title ?? s.title;
    readStoryFile(s, f);
  };
  const keyOfFile = (f: StoryFile) => f.file.replace(/^.*[\\/]/, '').replace(/\.md$/i, '');
  /** A second file of a story, itself a story (its own title and status), beside the one Waymark reads. */
  const anotherFile = (f: StoryFile, key: string, read: StoryFile) => {
    if (f.title !== undefined && f.status !== undefined) problems.push({ file: f.file, range: at(f.titleLine ?? 0), severity: 'info', code: 'story-file-duplicate', message: `Story ${key} has another file, ${(relativeInside(parts.root, read.file) ?? read.file).split('\\').join('/')}, which Waymark reads. Merge or rename this one if it is the same story.` });
  };
  const byLowerKey = new Map([...byKey.values()].map((s) => [s.key.toLowerCase(), s]));
  // A key and a file name that differ only in how numbers are joined name one story: the ledger's
  // sub-epic `3.5-1-fix-defaults` is the file `3-5-1-fix-defaults.md` (the same key, BMAD's dashes).
  const joined = (k: string) => k.toLowerCase().replace(/(\d)\.(?=\d)/g, '$1-');
  const byJoinedKey = new Map<string, SprintStory | null>();
  for (const st of byKey.values()) {
    const j = joined(st.key);
    byJoinedKey.set(j, byJoinedKey.has(j) ? null : st);
  }
  // A file named from the story's title as written (`1-3-resolve-refs-(ref-pinning).md`,
  // `2-2-add-⚠️-warning-icon.md`) is the key BMAD slugs that title to: its letters and digits, the
  // rest one dash (epics.ts slugWords, storySlug's grammar), when no other key slugs the same.
  const bySluggedKey = new Map<string, SprintStory | null>();
  for (const st of byKey.values()) {
    const j = slugWords(st.key);
    bySluggedKey.set(j, bySluggedKey.has(j) ? null : st);
  }
  const exactFor = (name: string) => byLowerKey.get(name.toLowerCase()) ?? byJoinedKey.get(joined(name)) ?? undefined;
  const sluggedFor = (name: string) => (/[^\w.-]/.test(name) ? bySluggedKey.get(slugWords(name)) ?? undefined : undefined);
  // Keys numbered past BMAD's epic-story pair (`23-1-1-…` under epic-23, the lettered `6-1-a-…`):
  // a file numbered the same way (`story-23.1.1.md`, `story-6.1a-….md`) is that key's.
  const byFull = new Map<string, SprintStory[]>();
  for (const st of byKey.values()) {
    const full = st.story === undefined ? undefined : fullNumber(st.key);
    if (!full || full === `${normEpicId(st.epicId)}-${st.story}`) continue;
    const list = byFull.get(full);
    if (list) list.push(st);
    else byFull.set(full, [st]);
  }
  let unbound: StoryFile[] = [];
  // BMAD quick-dev's spec of a ledger story (`spec-{slug}.md`, the slug led by the story's number,
  // so `spec-1-2-login.md` beside `1-2-login.md` when `1-2-login` is the ledger's key): the story's
  // spec, not a story of its own. It is the story's file only when the story has no file named by its key.
  const specs: [SprintStory, StoryFile][] = [];
  // Code-unit order: the same on every machine, and no ICU collator to start (milliseconds of every CLI run).
  for (const f of [...parts.stories].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    const name = keyOfFile(f);
    const spec = /^spec-(?=[a-z0-9])/i.test(name) && !exactFor(name) ? exactFor(name.slice('spec-'.length)) : undefined;
    if (spec && fits(spec, f)) {
      specs.push([spec, f]);
      continue;
    }
    const bare = withoutStoryPrefix(name);
    // (`issue-12-domain-descriptors.story.md`: the key with v4's `.story` before `.md`.)
    const unsuffixed = /\.story$/i.test(name) ? name.slice(0, -'.story'.length) : undefined;
    // (Then the ledger key its frontmatter names, `story_key: 3-2-digest` in `digest-work.md`.)
    const exact = exactFor(name) ?? (f.key ? exactFor(f.key) : undefined) ?? (bare !== undefined ? exactFor(bare) : undefined) ?? (unsuffixed !== undefined ? exactFor(unsuffixed) : undefined) ?? (f.frontmatterId ? exactFor(f.frontmatterId.value) : undefined);
    if (exact && !fileOf.has(exact) && fits(exact, f)) bind(exact, f);
    else unbound.push(f);
  }
  for (const [st, f] of specs) if (!fileOf.has(st)) bind(st, f);
  // Then the names written from a title, once every file named by its key exactly has its story
  // (`2-2-daily-plan.md` is story 2-2-daily-plan's, not `2-2-Daily Plan.md` beside it).
  if (unbound.length) {
    unbound = unbound.filter((f) => {
      const st = sluggedFor(keyOfFile(f));
      if (!st || fileOf.has(st) || !fits(st, f)) return true;
      bind(st, f);
      return false;
    });
  }
  // A key no BMAD name reads (`US-ERP-01-05`) names its file with a slug after it
  // (`us-erp-01-05-completeness-ring.md`): the story's file when none is named by the key alone and
  // it is the one such file that states a status; the others are notes beside it.
  const slugKeys = new Map<string, SprintStory>();
  for (const st of byKey.values()) if (!storyKeyFromName(`${st.key}.md`)) slugKeys.set(st.key.toLowerCase(), st);
  if (slugKeys.size) {
    const keySet = new Set(slugKeys.keys());
    const bySlug = new Map<SprintStory, StoryFile[]>();
    unbound = unbound.filter((f) => {
      const name = keyOfFile(f);
      const bare = withoutStoryPrefix(name);
      const k = keyBeforeSlug(name, keySet) ?? (bare !== undefined ? keyBeforeSlug(bare, keySet) : undefined);
      if (k === undefined) return true;
      const st = slugKeys.get(k)!;
      if (!fits(st, f)) return true;
      bySlug.set(st, [...(bySlug.get(st) ?? []), f]);
      return false;
    });
    for (const [st, list] of bySlug) {
      const stated = list.filter((f) => f.status !== undefined);
      if (!fileOf.has(st) && stated.length === 1) bind(st, stated[0]);
    }
  }
  // A key of a team's series with a slug (`ISS-008-npc-dead-at-encounter`) names its file by the series id,
  // as a numbered key names `1-2-other-slug.md` by its number: a file carrying the id with another slug
  // (`ISS-008-npc-marked-dead-at-encounter.md`) is the story's when the id is that one key's and the file the
  // one of that id stating a status; the others are notes beside it.
  const bySeries = new Map<string, SprintStory | null>();
  for (const [k, st] of slugKeys) {
    const id = seriesIdOf(k);
    if (id !== undefined) bySeries.set(id, bySeries.has(id) ? null : st);
  }
  if (bySeries.size) {
    const seriesFiles = new Map<SprintStory, StoryFile[]>();
    unbound = unbound.filter((f) => {
      const name = keyOfFile(f).toLowerCase();
      const bare = withoutStoryPrefix(name) ?? name;
      const id = bySeries.has(bare) ? bare : seriesIdOf(bare);
      const st = id === undefined ? undefined : bySeries.get(id);
      if (!st || fileOf.has(st) || !fits(st, f)) return true;
      seriesFiles.set(st, [...(seriesFiles.get(st) ?? []), f]);
      return false;
    });
    for (const [st, list] of seriesFiles) {
      const stated = list.filter((f) => f.status !== undefined);
      if (stated.length === 1) bind(st, stated[0]);
    }
  }
  const candidates = new Map<SprintStory, StoryFile[]>();
  const orphans: StoryFile[] = [];
  // BMAD's build skill's spec of an epic story (`{implementation_artifacts}/spec-{slug}.md`, the slug led
  // by the story's numbers: `spec-3-2-digest-delivery.md`) is the story's by those numbers, as the skill
  // resolves it (the one ledger key numbered 3-2), whatever slug follows: not story 2 of an epic `spec-3`.
  const specNumbered = (f: StoryFile) => {
    const name = keyOfFile(f);
    if (!/^spec-\d/i.test(name) || declared.some((d) => /^spec\b/i.test(d))) return undefined;
    return storyKeyFromName(`${name.slice('spec-'.length)}.md`, declared);
  };
  for (const f of unbound) {
    // The file's number with the ledger's epic ids (`0-5-1-…` is story 1 of epic 0-5 when the ledger has epic-0-5).
    const named = specNumbered(f) ?? storyKeyFromName(f.file, declared);
    const epicId = named?.epicId ?? f.epicId ?? (f.epic !== undefined ? String(f.epic) : undefined);
    const story = named?.story ?? f.story;
    if (epicId === undefined || story === undefined) continue;
    const full = byFull.size ? fullNumber(keyOfFile(f)) : undefined;
    const scope = scopeOfFile(f.file);
    const byNumber = full ? byFull.get(full)?.filter((x) => fits(x, f)) : undefined;
    let list = byNumber?.length === 1 ? byNumber : byId.get(idOf(epicId, story, scope)) ?? [];
    // `6-9-user-access.md` under a ledger that keys the epic with its letter (`epic-e6`, `e6-9-user-access`): that epic's.
    if (!list.length && /^\d/.test(epicId)) {
      const lettered = declared.filter((d) => {
        const bare = unletteredEpicId(d);
        return bare !== undefined && normEpicId(bare) === normEpicId(epicId);
      });
      if (lettered.length === 1) list = byId.get(idOf(lettered[0], story, scope)) ?? [];
    }
    if (list.length > 1) {
      // Story 9.2 split into `9-2-1-…`, `9-2-2-…`: a file's third number (`9.2.1.story.md`) names
      // its part, and a file without one the story without one.
      const part = partOf(named?.key ?? keyOfFile(f), epicId, story);
      const narrowed = list.filter((x) => partOf(x.key, x.epicId, x.story) === part);
      if (narrowed.length === 1) list = narrowed;
      // Two plans numbered alike in one ledger (`1-1-bootstrap-monorepo-structure`,
      // `1-1-define-manifest-schema`): the file whose words begin one key's words, or that key's
      // begin the file's (`1-1-bootstrap-monorepo.md`), is that story's.
      else {
        const own = slugWords(keyOfFile(f)).replace(/^(?:story-)?[a-z]*\d+[a-z]?-(?:s(?:tory)?-?)?\d+[a-z]?-/, '');
        const words = (narrowed.length ? narrowed : list).filter((x) => {
          const k = slugWords(slugOfKey(x));
          return own !== '' && k !== '' && (k === own || k.startsWith(`${own}-`) || own.startsWith(`${k}-`));
        });
        if (words.length === 1) list = words;
      }
    }
    // v6 alpha's `story-{slug}-{n}.md` beside a ledger that does not list it by that name: the
    // ledger's keys name the stories (three known projects keep both), so it is no story of its own.
    if (!list.length && ledger && LEVEL1_NAME.test(`${keyOfFile(f)}.md`)) continue;
    if (list.length === 1) {
      const c = candidates.get(list[0]) ?? [];
      c.push(f);
      candidates.set(list[0], c);
    } else if (list.length === 0) orphans.push(f);
    else problems.push({ file: f.file, range: at(f.titleLine ?? 0), severity: 'info', code: 'story-file-duplicate', message: `This file is numbered ${epicId}.${story}, which names ${list.length} stories in the ledger (${list.map((x) => x.key).join(', ')}); Waymark does not guess which. Name it after its ledger key.` });
  }
  for (const [s, files] of candidates) {
    const own = fileOf.get(s);
    if (own) {
      // Notes beside a story; one that is a story itself (its own title and status) is reported.
      for (const f of files) anotherFile(f, s.key, own);
      continue;
    }
    const keySlug = slugOfKey(s);
    // A note kept under the story file's own name (`story-8.1-x.completion.md` beside
    // `story-8.1-x.md`) belongs to that story; it is not a second candidate.
    const names = files.map((f) => keyOfFile(f).toLowerCase());
    const main = files.filter((f) => {
      const n = keyOfFile(f).toLowerCase();
      return !names.some((o) => n.length > o.length + 1 && n.startsWith(`${o}.`) && /^[a-z][a-z-]*$/.test(n.slice(o.length + 1)));
    });
    // A file whose name carries another story's slug (`2-1-notebook-introduction` beside the
    // ledger's `2-1-dependency-graph-builder`) is that other story; one named by number alone
    // (`story-2.1.md`) may be this one.
    // One named by number alone fits when its title does not name another story.
    const fitting = main.length > 1 ? main.filter((f) => {
      const slug = fileSlugOf(keyOfFile(f));
      return slug ? slugFits(slug, keySlug) : titleFits(f.title, keySlug);
    }) : main;
    const stories = fitting.filter((f) => f.title !== undefined || f.status !== undefined);
    // A lone file numbered like the story but named for something else, with no Status of its own
    // (`story-1.2-verification-report.md` for `1-2-main-layout`), is a note about the story, not its file.
    if (main.length === 1 && main[0].status === undefined && !slugFits(fileSlugOf(keyOfFile(main[0])), keySlug)) continue;
    // A file named by number alone whose title names another story (`3.6.story.md`, `# Story 3.6:
    // Example Teaching Agent`, for `3-6-tips-annotation-archiving`): an earlier plan's story 3.6, not this one.
    if (main.length === 1 && !fileSlugOf(keyOfFile(main[0])) && !titleFits(main[0].title, keySlug)) continue;
    // The other fitting candidates that are stories themselves (`E6-9.md` beside `6-9-user-access.md`,
    // both with a title and a status) are said: two files of one story, one of them stale.
    const others = (chosen: StoryFile) => {
      for (const f of fitting) if (f !== chosen) anotherFile(f, s.key, chosen);
    };
    if (fitting.length === 1 || stories.length === 1) {
      bind(s, stories[0] ?? fitting[0]);
      others(stories[0] ?? fitting[0]);
      continue;
    }
    // Evidence, not a guess: the one candidate named by the key's own slug (`story-7.3-agent-testing.md`
    // beside `story-7.3-agent-testing-SIMPLIFIED.md` for `7-3-agent-testing`).
    const named = keySlug ? stories.filter((f) => fileSlugOf(keyOfFile(f)) === keySlug) : [];
    if (named.length === 1) {
      bind(s, named[0]);
      others(named[0]);
      continue;
    }
    // Evidence, not a guess: the one candidate whose title is the key's slug (`# Story 1.7:
    // Migration Tool (pml init)` for `1-7-migration-tool-pml-init`).
    const titled = keySlug ? stories.filter((f) => {
      const t = f.title ? storySlug(f.title) : '';
      return t.length > 0 && (t === keySlug || keySlug.startsWith(`${t}-`) || t.startsWith(`${keySlug}-`));
    }) : [];
    if (titled.length === 1) {
      bind(s, titled[0]);
      others(titled[0]);
      continue;
    }
    // The same story kept in two story folders (`docs/stories/3-1-x.md` and `3-1-x.md` beside the
    // ledger): the one beside the ledger, where BMAD's create-story writes it, is the story.
    const home = dirOf(s.ledgerFile ?? lf0);
    const beside = home ? stories.filter((f) => dirOf(f.file) === home) : [];
    if (beside.length === 1) {
      bind(s, beside[0]);
      others(beside[0]);
      continue;
    }
    for (const f of files) problems.push({ file: f.file, range: at(f.titleLine ?? 0), severity: 'info', code: 'story-file-duplicate', message: `Story ${s.key} has no file named ${s.key}.md and ${files.length} files numbered ${s.epicId}.${s.story} (${files.map((x) => keyOfFile(x)).join(', ')}); Waymark reads none of them as the story. Rename the story's file to ${s.key}.md.` });
  }
  // Files the ledger does not list: one story per number (the first file by name; others are duplicates).
  // A number told in parts (`6.2.1.….md`, `6.2.2.….md`) is one story per part.
  const partNumber = (name: string) => {
    const n = fullNumber(name);
    return n && n.split('-').length > 2 ? n : undefined;
  };
  // Of two files with one number, the one that states a status is the story; one that states none
  // (`2.2-README.md`, a quick-start beside `2.2.integrated-scheduling.md`) is a note about it,
  // whichever sorts first by name.
  // Of two that both state one, a file named as v4 names a story (`4.1.story.md`) is the story and
  // the other (`4.1-validation-checklist.md`) a note beside it.
  const stated = orphans.filter((f) => f.status !== undefined);
  const ordered = stated.length && stated.length < orphans.length ? [...stated, ...orphans.filter((x) => x.status === undefined)] : orphans;
  // Of the rest, a note about a story (`0.6.x-amendments.md`, `1.5-completion-summary.md`,
  // `11.9-IMPLEMENTATION-SUMMARY.md`: words that name a document about the work, or a name in
  // capitals) comes after one named as the story, and a variant numbered after it (`7.2-FX.slug.md`,
  // a code joined to the number, then the slug) after the story itself (`7.2.slug.md`).
  const rank = (f: StoryFile) => {
    if (/\.story\.md$/i.test(f.file)) return 0;
    const name = keyOfFile(f);
    const slug = fileSlugOf(name);
    const shouted = /[A-Z]{4}/.test(name) && !/[a-z]/.test(name.replace(/^story/i, ''));
    // (A note's word in a name taken from the story's own title, `29.5.task-detail-checklist.md` for
    // `# Story 29.5 — Task Detail: Checklist Management`, names the story, not a note about it.)
    const ownName = slug !== '' && f.title !== undefined && storySlug(f.title).startsWith(slug);
    // (Nor does a title's last word in a file named after that whole title, as v4's create-next-story
    // names it: `6.1.finance-team-training-handoff.md`, `# Story 6.1: Finance Team Training & Handoff`;
    // `5.3.3-dev-review.md`, `# Story 5.3.3 — @dev Review Checklist`, is named for less: a note.)
    const titleName = slug !== '' && f.title !== undefined && storySlug(f.title) === slug;
    // (Nor a file that is a story by its own evidence: its own story title, a status, and the story
    // template's Acceptance Criteria and Tasks sections: `4-5-handoff-chain-integration-test.md`,
    // `# Story 4.5: 3단계 핸드오프 통합 테스트`, an older plan's story 4.5, the word in its name its subject.)
    const storyItself = f.title !== undefined && f.status !== undefined && f.storyContent === true && !NOTE_TITLE.test(f.title);
    if (shouted || (NOTE_WORDS.test(slug) && !ownName && !storyItself) || (f.title !== undefined && NOTE_TITLE.test(f.title) && !titleName)) return 3;
    // (`7.2-FX.forex-sizing` is story 7.2-FX, a variant numbered after 7.2; `story-0.1-dev` is 7.2's own.)
    return /^(?:story[-_.]?)?\d+[a-z]?\.\d+[a-z]?-[a-z0-9]{1,8}\.[a-z]/i.test(name) ? 2 : 1;
  };
  const sharedNumbers = new Map<string, StoryFile[]>();
  const ranked = ordered.map((f, i) => ({ f, i, r: rank(f) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.f);
  for (const f of ranked) {
    // BMAD quick-dev's spec named from a story's key (`spec-1-1-fix-naming.md`, the slug led by the
    // key) that no ledger story took: story 1.1's file (the plan's 1.1), not story 1 of an epic `spec-1`,
    // when no story is numbered 1.1 yet (beside the ledger's one 1.1 it is that story's file: specNumbered).
    const asSpec = /^spec-\d/i.test(keyOfFile(f)) ? storyKeyFromName(`${keyOfFile(f).slice('spec-'.length)}.md`, declared) : undefined;
    const specOf = asSpec && !byId.get(idOf(asSpec.epicId, asSpec.story, scopeOfFile(f.file)))?.length ? asSpec : undefined;
    const named = specOf ?? storyKeyFromName(f.file, declared);
    const epicId = named?.epicId ?? f.epicId ?? String(f.epic);
    const story = (named?.story ?? f.story)!;
    const whole = partNumber(keyOfFile(f));
    const scope = scopeOfFile(f.file);
    const same = byId.get(idOf(epicId, story, scope))?.filter((x) => {
      const kept = fileOf.get(x);
      const other = partNumber(kept ? keyOfFile(kept) : x.key);
      return whole === undefined || other === undefined || other === whole;
    });
    const key = f.key ?? keyOfFile(f);
    if (same?.length) {
      const keep = fileOf.get(same[0]);
      // Two files the ledger does not list, numbered alike, each a story by its own evidence (its own
      // title, not a note by its name or title: `29.1.story.md` "Ready" beside `29.1.schema-foundation.md`
      // "Done", three stories numbered 36.1): every one is listed with its own status, and the
      // numbers said once, below. Which file the number means nobody can tell from the files.
      // (A file stating no status beside the number's story as v4 names and writes it, `1.5.story.md`
      // with its status, is a note about that story: `1.5.manual-tests.md`, `# Story 1.5 Manual Test
      // Results`; `3.4-mcp-implementation-todo.md`. Beside a story named otherwise the number may be
      // misread (`epic-1-story-1-3-….md`), so there each titled file stays listed.)
      const noteBesideV4 = f.status === undefined && keep !== undefined && keep.status !== undefined && /\.story\.md$/i.test(keep.file);
      if (keep && !byKey.has(key) && f.title !== undefined && rank(f) < 3 && !noteBesideV4 && same.every((x) => x.ledgerStatus === undefined && x.ledgerLine === undefined)) {
        bind(newStory(epicId, story, key, scope), f);
        const id = idOf(epicId, story, scope);
        sharedNumbers.set(id, [...(sharedNumbers.get(id) ?? [keep]), f]);
        continue;
      }
      if (keep) anotherFile(f, same[0].key, keep);
      continue;
    }
    bind(newStory(epicId, story, key, scope), f);
  }
  if (sharedNumbers.size) {
    const name = (f: StoryFile) => (relativeInside(parts.root, f.file) ?? f.file).split('\\').join('/');
    const all = [...sharedNumbers.values()];
    const listed = all.slice(0, 3).map((fs) => fs.map(name).join(' and ')).join('; ');
    const first = all[0][1];
    problems.push({ file: first.file, range: at(first.titleLine ?? 0), severity: 'info', code: 'story-file-duplicate', message: `${all.length} story number${all.length === 1 ? ' is' : 's are'} given to more than one story file (${listed}${all.length > 3 ? `; … (${all.length})` : ''}); Waymark lists each file as its own story. Renumber the ones that are different stories; merge the ones that are the same story.`, data: { files: all.map((fs) => fs.map(name)) } });
  }
  // A ledger story with no story file whose work is kept in a spec-kit folder named by its key
  // (`specs/1-2-login/tasks.md`): that folder's task list is its file (its boxes its tasks, its status the ledger's).
  if (parts.specKit?.size) {
    for (const st of byKey.values()) {
      const f = st.ledgerLine !== undefined && !fileOf.has(st) ? parts.specKit.get(st.key.toLowerCase()) : undefined;
      if (!f) continue;
      bind(st, f);
      st.specKit = true;
    }
  }
  // A story the epics number in three parts (`Story 4.2.1: …`, read as story 1 of `4-2`) is the one
  // ledger story whose key says the same number (`4-2-1-single-card`, BMAD's key for it with a slug
  // of its own): the same story, not a second one the ledger lacks.
  const samePartNumber = (key: string): SprintStory | undefined => {
    const n = partNumber(key);
    const same = n === undefined ? [] : [...byKey.values()].filter((x) => x.ledgerLine !== undefined && partNumber(x.key) === n);
    return same.length === 1 ? same[0] : undefined;
  };
  // A plan numbered on its own (a later phase's or one feature's epics file counting its epics from 1
  // again: `epics-phase2.md`'s `Story 3.4: Report Export` is the ledger's `8-4-report-export`): when
  // no ledger key is the story's own, the one ledger story no other plan took whose key's slug is the
  // story title's slug is the same story, not story 3.4 the ledger lacks (nor the ledger's other 3.4).
  const ledgerSlugs = new Map<string, SprintStory[]>();
  for (const x of byKey.values()) {
    if (x.ledgerLine === undefined) continue;
    const slug = fileSlugOf(x.key);
    if (slug) ledgerSlugs.set(slug, [...(ledgerSlugs.get(slug) ?? []), x]);
  }
  const sameTitle = (key: string, title: string): SprintStory | undefined => {
    if (byKey.has(key)) return undefined;
    const same = ledgerSlugs.get(storySlug(title)) ?? [];
    return same.length === 1 && !same[0].planned ? same[0] : undefined;
  };
  // Planned stories from the epics document.
  for (const pe of parts.epics.values()) {
    const ep = epicOf(pe.epicId);
    ep.title = pe.title || ep.title;
    for (const ps of pe.stories) {
      const existing = sameTitle(ps.key, ps.title) ?? match(ps.key, ps.epicId, ps.story) ?? byId.get(idOf(ps.epicId, ps.story))?.[0] ?? samePartNumber(ps.key);
      if (existing) {
        existing.planned = { file: ps.file, line: ps.line };
        existing.title = existing.title ?? ps.title;
        continue;
      }
      const s = newStory(ps.epicId, ps.story, ps.key);
      s.title = ps.title;
      s.planned = { file: ps.file, line: ps.line };
      if (ledger) s.problems.push({ file: ps.file, range: at(ps.line, 0, 0), severity: 'warning', code: 'epics-story-not-in-ledger', message: `Story ${ps.epicId}.${ps.story} (${ps.title}) is planned here but sprint-status.yaml has no entry for it. Re-run sprint planning, or add '${ps.key}: backlog'.`, data: { key: ps.key } });
    }
  }
  // Gates.
  // Two gate files for one story (`1.5-x.yml` and a later `1.5-x-CORRECTED.yml`): when both say when
  // they were updated, the one updated last decides; else the last by name, as before.
  const gateOf = new Map<SprintStory, StoryGate>();
  for (const g of parts.gates) {
    if (g.epic === undefined || g.story === undefined) continue;
    const s = match(undefined, g.epicId ?? String(g.epic), g.story);
    if (!s) continue;
    const had = gateOf.get(s);
    if (had && Date.parse(had.updated ?? '') > Date.parse(g.updated ?? '')) continue;
    gateOf.set(s, g);
    s.gate = { verdict: g.verdict, open: g.open, file: g.file, expired: g.expired, ...(g.notYaml ? { notYaml: true } : {}), ...(g.reviewDue ? { reviewDue: g.reviewDue } : {}) };
  }
  // Per-story drift.
  const covers = ledgerCoverage(parts.root, ledgers);
  for (const s of byKey.values()) finishStory(s, fileOf.get(s), lf0, covers(s, fileOf.get(s)), !!ledger?.nested);
  statusLineConvention([...byKey.values()]);
  // Per-epic drift.
  for (const ep of epics.values()) {
    ep.stories.sort(byStoryOrder);
    if (ep.ledgerStatus === undefined || ep.ledgerLine === undefined) {
      // A sub-epic (`5.5`, `0-5`) of a listed epic (`epic-5`) is covered by it.
      const parent = /^(.+)[-.]\d+[a-z]?$/.exec(ep.id)?.[1];
      const covered = parent !== undefined && epics.get(epicKey(parent, ep.project))?.ledgerStatus !== undefined;
      // A series named by words alone (`story-lamp-01` with no epic above it) has no epic key to add.
      // A ledger of the add-on's `sprints:` lists has no place for epic entries: none is asked for.
      if (ledger && !ledger.listed && !covered && /\d/.test(ep.id) && ep.stories.some((s) => s.ledgerStatus !== undefined)) {
        const first = ep.stories.find((s) => s.ledgerLine !== undefined)!;
        problems.push({ file: first.ledgerFile ?? lf0, range: at(first.ledgerLine!), severity: 'warning', code: 'ledger-epic-missing', message: `Stories of epic ${ep.id} are listed but there is no 'epic-${ep.id}' entry. Add 'epic-${ep.id}: ${ep.stories.some((s) => ledgerRank('story', s.ledgerStatus ?? '') > 0) ? 'in-progress' : 'backlog'}' above them.` });
      }
      continue;
    }
    const ranked = ep.stories.filter((s) => s.ledgerStatus !== undefined);
    const open = ranked.filter((s) => s.ledgerStatus !== 'done');
    const started = ranked.filter((s) => ledgerRank('story', s.ledgerStatus!) >= 2);
    const lf = ep.ledgerFile ?? lf0;
    const entry = (ledgers.find((l) => l.file === lf) ?? ledger!).entries.find((e) => e.kind === 'epic' && normEpicId(e.epicId) === normEpicId(ep.id))!;
    const range = at(ep.ledgerLine, entry.valueStart, entry.valueEnd);
    if (ep.ledgerStatus === 'done' && open.length) {
      ep.problems.push({ file: lf, range, severity: 'warning', code: 'epic-done-stories-open', message: `epic-${ep.id} is done but ${open.length} of its stories are not (${open.slice(0, 4).map((s) => `${s.key}: ${s.ledgerStatus}`).join(', ')}${open.length > 4 ? ', …' : ''}). Finish them or set the epic to in-progress.`, data: { fix: 'setLedgerValue', key: entry.key, value: 'in-progress' } });
    } else if (ep.ledgerStatus === 'backlog' && started.length) {
      ep.problems.push({ file: lf, range, severity: 'warning', code: 'epic-backlog-story-started', message: `epic-${ep.id} is backlog but ${started[0].key} is ${started[0].ledgerStatus}. BMAD moves an epic to in-progress when its first story starts.`, data: { fix: 'setLedgerValue', key: entry.key, value: 'in-progress' } });
    }
    problems.push(...ep.problems);
  }
  // Stale ledgers.
  for (const l of ledgers) {
    const active = [...byKey.values()].filter((s) => (s.ledgerStatus === 'in-progress' || s.ledgerStatus === 'review') && s.ledgerFile === l.file);
    const stamp = l.lastUpdated ?? l.generated;
    if (!stamp?.date || !active.length) continue;
    const days = (now.getTime() - stamp.date.getTime()) / 86_400_000;
    if (days > parts.staleDays) {
      problems.push({ file: l.file, range: at(stamp.line, stamp.valueStart, stamp.valueEnd), severity: 'info', code: 'ledger-stale', message: `${stamp.key} is ${Math.floor(days)} days old while ${active.length} stor${active.length === 1 ? 'y is' : 'ies are'} in progress or review (${active[0].key}…). Check the ledger still says where work stands.` });
    }
  }
  problems.push(...outsideLedger([...epics.values()], covers, lf0));
  const stories = [...byKey.values()].sort(byStoryOrder);
  for (const s of stories) problems.push(...s.problems);
  // The first ledger's project first, then each project of its own in ledger order.
  const order = (e: SprintEpic) => (e.project ? ledgers.findIndex((l) => l.file === e.project) : -1);
  const sortedEpics = [...epics.values()].sort((a, b) => order(a) - order(b) || compareEpicIds(a.id, b.id));
  return { epics: sortedEpics, stories, problems, next: recommend(stories, sortedEpics), actionItems: ledgers.flatMap((l) => l.actionItems.map(({ line: _l, ...rest }) => rest)), counts: countStatuses(stories) };
}

/** The stories by status, in the order statuses first appear. */
function countStatuses(stories: SprintStory[]): Record<string, number> {
  const counts: Record<string, number> = Object.create(null);
  for (const s of stories) counts[s.status] = (counts[s.status] ?? 0) + 1;
  return counts;
}

/** What a story takes from its file's content beyond the file's identity (storyFileIdentity): its tasks and status. */
function readStoryFile(s: SprintStory, f: StoryFile): void {
  s.tasks = taskProgress(f.tasks);
  if (f.status !== undefined) {
    s.fileStatus = f.status;
    s.fileStatusLine = f.statusLine;
    // `Completed`, `✅ COMPLETE` read as done (a word outside the vocabulary that says where the story is).
    const norm = normalizeStoryStatus(f.status);
    s.fileStatusMapped = norm.status ?? norm.suggestion;
  }
}

/** Whether a ledger speaks for a story: what it does not list is then missing from it. */
export type StoryCoverage = (s: SprintStory, f: Pick<StoryFile, 'file'> | undefined) => boolean;

/**
 * Which stories the project's ledgers speak for. One ledger speaks for every story of the project
 * (as BMAD's sprint workflows read it). Several ledgers, one per sprint or module folder
 * (`sprints/sprint-6/sprint-status.yaml` beside that sprint's stories), each speak for what they
 * list and for the story files in their own folder or their `story_location`: a story file kept in a
 * folder none of them covers (a sprint whose tracker is in another format) is read as in a project
 * without a ledger, not reported missing from one that was never its own.
 */
export function ledgerCoverage(root: string, ledgers: readonly Ledger[]): StoryCoverage {
  const listing = ledgers.filter((l) => listsStories(l));
  if (ledgers.length < 2) {
    const has = listing.length > 0;
    return () => has;
  }
  if (!listing.length) return () => false;
  const homes: string[] = [];
  for (const l of listing) {
    homes.push(dirOf(l.file));
    if (l.storyLocation) homes.push(projectPath(root, l.storyLocation));
  }
  return (s, f) => s.ledgerStatus !== undefined || !f || homes.some((h) => relativeInside(h, f.file) !== undefined);
}

/**
 * A file stating its status twice, differently (frontmatter `status: done`, a stale `**Status:**
 * ready-for-dev` line), with no ledger entry to settle it: the statement further along in BMAD's
 * order is where the story is (finished work is not offered again); storyDrift warns on the file.
 */
export function furtherStatement(f: StoryFile | undefined, body: string | undefined): string | undefined {
  if (body === undefined) return body;
  let out = body;
  const fm = f?.frontmatterStatus ? normalizeStoryStatus(f.frontmatterStatus.value).status : undefined;
  if (fm !== undefined && ledgerRank('story', fm) > ledgerRank('story', out)) out = fm;
  // A v4 QA verdict below the Status line (finalStatus.ts): its approval is a statement of done.
  const fin = f?.finalStatus?.status;
  if (fin !== undefined && ledgerRank('story', fin) > ledgerRank('story', out)) out = fin;
  return out;
}

/** A story's status, its own drift problems and its state hash, once its ledger entry and file are known. */
function finishStory(s: SprintStory, f: StoryFile | undefined, lf0: string, hasLedger: boolean, nested = false): void {
  // Without a ledger the file's word is the only statement of the story's status: a done-like
  // word (`Completed`, `✅ COMPLETE (…)`) is where the story is, never work to start; open tasks
  // beside it are reported on the file.
  const said = (!hasLedger || s.ledgerStatus === undefined) && f?.status !== undefined && !s.fileStatusMapped ? normalizeStoryStatus(f.status).suggestion : undefined;
  // A story its file sets aside (`ON HOLD`, `Superseded`, `Split into 2.5a and 2.5b`) is not work to
  // start: without a ledger, or with the ledger still at backlog, its status is the file's word.
  const aside = f?.status !== undefined && (s.ledgerStatus === undefined || s.ledgerStatus === 'backlog') ? setAsideStatus(f.status) : undefined;
  s.status = aside ?? s.ledgerStatus ?? furtherStatement(f, s.fileStatusMapped) ?? said ?? (s.file ? 'ready-for-dev' : 'backlog');
  storyDrift(s, f, s.ledgerFile ?? lf0, hasLedger, nested);
  s.stateHash = sha256(JSON.stringify([s.key, s.ledgerRaw ?? null, s.fileStatus ?? null, f ? f.tasks.map((t) => (t.checked ? 1 : 0)).join('') : null]));
}

/**
 * What of a story file decides which story it is and what is reported about it beside its own
 * drift: which files are stories (readSprint), which file binds to which ledger key, duplicate and
 * note files, titles. Two parses of a file with the same identity bind the same way, so a model
 * built with one is the model built with the other once `patchStoryFiles` has read the other in.
 */
/**
 * The words after a story key's numbers: `6-9-user-access` → `user-access`, and so for a key that
 * writes its epic's letters (`e6-9-user-access`, `ep2-s1-booking-flow`).
 */
function slugOfKey(s: { key: string; epicId: string; story?: string }): string {
  const key = s.key.toLowerCase();
  const head = `${s.epicId}-${s.story}-`;
  if (key.startsWith(head)) return key.slice(head.length);
  const lettered = /^e(?:p|pic)?[-_]?\d+[a-z]?[-_](?:s(?:tory)?[-_]?)?\d+[a-z]?-(.+)$/.exec(key);
  return lettered ? lettered[1] : key.slice(head.length);
}

/** The identity of a file where stories live read as no story by its frontmatter (sprint.ts parseFrontmatterStory). */
export const FM_NONE = 'fm-none';

export function storyFileIdentity(f: StoryFile | null | undefined): string {
  if (f === null) return FM_NONE;
  if (!f) return '-';
  // Whether the status is a story status word decides if a mixed-form name (`2.2-chart.md`) is a story.
  return JSON.stringify([f.file, f.key ?? null, f.epic ?? null, f.epicId ?? null, f.story ?? null, f.title ?? null, f.titleLine ?? null, f.status === undefined, isStoryStatusWord(f.status), f.epicTitle ?? false, f.byContent === true, f.storyContent === true, f.noEpic ?? null, f.frontmatterId?.value ?? null]);
}

/**
 * The model `buildSprint` would make from the same parts with some story files' content changed,
 * each file's identity (storyFileIdentity) unchanged: only those stories' status, tasks, drift and
 * state hash are computed again, then the problems, counts and recommendation. Changes `model` in
 * place (its stories are shared with its epics) and returns it. `model.problems` ends with the
 * stories' own, in story order (buildSprint): those are replaced, what comes before is kept.
 */
export function patchStoryFiles(model: SprintModel, files: StoryFile[], covers: StoryCoverage, lf0: string, nested = false): SprintModel {
  const byFile = new Map(model.stories.filter((s) => s.file !== undefined).map((s) => [s.file!, s]));
  const own = model.stories.reduce((n, s) => n + s.problems.length, 0);
  const head = model.problems.slice(0, model.problems.length - own);
  for (const f of files) {
    const s = byFile.get(f.file);
    // A file bound to no story (a duplicate, a note) counts by its identity alone.
    if (!s) continue;
    // The status is there in both (its presence is identity): readStoryFile sets every field it set.
    readStoryFile(s, f);
    // A story bound to a file has only its own drift: the planned-only problem is for stories without one.
    s.problems = [];
    finishStory(s, f, lf0, covers(s, f), nested);
  }
  // Which files write a Status line is part of their identity: the convention is the one built.
  statusLineConvention(model.stories);
  // The note on story files kept outside the ledger ends what comes before (buildSprint); it is
  // made again from the same stories (which are outside depends on their identities alone).
  model.problems = head.filter((p) => p.code !== 'ledger-stories-outside');
  model.problems.push(...outsideLedger(model.epics, covers, lf0));
  for (const s of model.stories) model.problems.push(...s.problems);
  model.counts = countStatuses(model.stories);
  model.next = recommend(model.stories, model.epics);
  return model;
}

/** More story files than this kept outside a ledger, none of an epic it tracks, are said once (outsideLedger). */
const OUTSIDE_MANY = 5;

/**
 * Story files a ledger speaks for (StoryCoverage) but does not list. A file of an epic the ledger
 * tracks (its `epic-N` key, or stories of it listed), when the epic's unlisted files are no more than
 * its entries, is plausibly a forgotten entry: its own warning stays (storyDrift). The others are the
 * team's work kept outside the ledger (a ticket series, epics never sprint-planned): up to
 * OUTSIDE_MANY keep their warnings; more are one note per ledger, their per-file warnings dropped.
 * What it decides depends on the stories' keys, epics and ledger entries only, so a patch makes the
 * same note (patchStoryFiles).
 */
function outsideLedger(epics: readonly SprintEpic[], covers: StoryCoverage, lf0: string): Problem[] {
  const far: SprintStory[] = [];
  for (const ep of epics) {
    const unlisted = ep.stories.filter((s) => s.file !== undefined && s.ledgerStatus === undefined && covers(s, { file: s.file }));
    if (!unlisted.length) continue;
    const entries = ep.stories.filter((s) => s.ledgerStatus !== undefined).length + (ep.ledgerStatus !== undefined ? 1 : 0);
    if (entries > 0 && unlisted.length <= entries) continue;
    far.push(...unlisted);
  }
  if (far.length <= OUTSIDE_MANY) return [];
  const byLedger = new Map<string, SprintStory[]>();
  const ledgerFiles = [...new Set(epics.flatMap((ep) => ep.stories.map((s) => s.ledgerFile).filter((f): f is string => f !== undefined)))];
  for (const s of far) {
    s.problems = s.problems.filter((p) => p.code !== 'story-not-in-ledger');
    // The ledger whose folder holds the file (the deepest), else the first.
    const home = ledgerFiles.filter((l) => relativeInside(dirOf(l), s.file!) !== undefined).sort((a, b) => b.length - a.length)[0] ?? lf0;
    byLedger.set(home, [...(byLedger.get(home) ?? []), s]);
  }
  const out: Problem[] = [];
  for (const [lf, list] of [...byLedger].sort((a, b) => compareText(a[0], b[0]))) {
    const keys = list.map((s) => s.key).sort(compareText);
    const series = [...new Set(list.map((s) => s.epicId))].sort(compareEpicIds);
    const named = (xs: string[]) => `${xs.slice(0, 4).join(', ')}${xs.length > 4 ? ', …' : ''}`;
    out.push({
      file: lf, range: at(0), severity: 'info', code: 'ledger-stories-outside',
      message: `${keys.length} story files are kept outside this ledger, of ${series.length === 1 ? 'an epic' : `${series.length} epics or series`} it does not track or tracks fewer of (${named(series)}): ${named(keys)}. Waymark lists them with their files' statuses; BMAD's sprint workflows do not see them. Run sprint planning, or add their keys, if this ledger should track them.`,
      data: { keys },
    });
  }
  return out;
}

/** Stories in reading order; two of a lettered series (`g-01`, `u-02`) keep the ledger's order. */
function byStoryOrder(a: SprintStory, b: SprintStory): number {
  return storyOrder(a, b) || (numberedStory(a) && numberedStory(b) ? compareText(a.key, b.key) : 0);
}

function epicNumberOf(id: string): number {
  const m = /\d+/.exec(id);
  return m ? Number(m[0]) : -1;
}

/**
 * One note per ledger for its keys outside BMAD's strict grammar: read ones (lettered, sub-epic,
 * module-prefixed ids, values written as a mapping or left empty) are an info; keys no grammar
 * reads make it a warning. Never one problem per line.
 */
function grammarNote(ledger: Ledger): Problem | undefined {
  const unread = ledger.entries.filter((e) => e.kind === 'unknown' && e.annotates === undefined);
  const notes = ledger.entries.filter((e) => e.annotates !== undefined);
  const extended = ledger.entries.filter((e) => e.kind !== 'unknown' && !e.strict);
  const shaped = ledger.entries.filter((e) => e.kind !== 'unknown' && e.shape !== 'scalar');
  if (!unread.length && !extended.length && !shaped.length && !notes.length) return undefined;
  const first = [...unread, ...extended, ...shaped, ...notes].sort((a, b) => a.keyLine - b.keyLine)[0];
  const list = (es: LedgerEntry[]) => `${es.slice(0, 3).map((e) => e.key).join(', ')}${es.length > 3 ? `, … (${es.length})` : ''}`;
  const parts: string[] = [];
  if (unread.length) parts.push(`${unread.length} key${unread.length === 1 ? ' is' : 's are'} read by no BMAD grammar and skipped (${list(unread)}): rename or remove ${unread.length === 1 ? 'it' : 'them'}`);
  if (extended.length) parts.push(`${extended.length} key${extended.length === 1 ? ' uses' : 's use'} epic ids beyond BMAD's epic-N / N-M-slug grammar (${list(extended)}); Waymark reads them, BMAD's own workflows may not`);
  if (shaped.length) parts.push(`${shaped.length} entr${shaped.length === 1 ? 'y has' : 'ies have'} a mapping or no value instead of a status word (${list(shaped)}); a mapping's status: is read, an empty value is read as the first status`);
  if (notes.length) parts.push(`${notes.length} key${notes.length === 1 ? ' is a note' : 's are notes'} about the story listed above with the same number, its value no status (${list(notes)}); Waymark reads ${notes.length === 1 ? 'it' : 'them'} as such, not as stories`);
  return { file: ledger.file, range: at(first.keyLine, first.keyStart, first.keyStart + first.key.length), severity: unread.length ? 'warning' : 'info', code: 'ledger-unknown-key', message: `${parts.join('; ')}.`, data: { keys: unread.map((e) => e.key) } };
}

/**
 * The ledger a story file's problem speaks of, as seen from the file's folder: `sprint-status.yaml`
 * beside it, `../sprint-status.yaml` one up, `../../apps/plum/…/sprint-status.yaml` elsewhere: a project
 * with several ledgers (sibling apps, modules) is told which file to edit.
 */
function ledgerNamed(file: string, ledgerFile: string): string {
  return path.relative(path.dirname(file), ledgerFile).split(path.sep).join('/') || path.basename(ledgerFile);
}

/** Story files at least this many, none writing a Status line: the team keeps statuses in its ledger. */
const LEDGER_ONLY_STATUS_FILES = 3;

/**
 * A project none of whose story files writes a `Status:` line (at least three, each with its status
 * in the ledger) keeps its stories' statuses in the ledger: a missing line there is the team's
 * convention, an info on each file (`waymark fix` still adds the line), not a warning on every story.
 * One file missing the line among files that write it is an omission: warned, as before.
 */
function statusLineConvention(stories: readonly SprintStory[]): void {
  const missing = stories.flatMap((s) => s.problems.filter((p) => p.code === 'story-status-missing'));
  if (!missing.length) return;
  const withFile = stories.filter((s) => s.file !== undefined);
  const ledgerOnly = missing.length >= LEDGER_ONLY_STATUS_FILES && !withFile.some((s) => s.fileStatus !== undefined);
  for (const p of missing) {
    p.severity = ledgerOnly ? 'info' : 'warning';
    const note = " No story file of this project writes one: its statuses are kept in the ledger.";
    p.message = ledgerOnly ? (p.message.endsWith(note) ? p.message : p.message + note) : p.message.replace(note, '');
  }
}

function storyDrift(s: SprintStory, f: StoryFile | undefined, lf: string, hasLedger: boolean, nested = false): void {
  const out = s.problems;
  const ledgerRankOf = s.ledgerStatus !== undefined ? ledgerRank('story', s.ledgerStatus) : -1;
  const statusRange = f && f.statusLine !== undefined ? at(f.statusLine, f.statusStart ?? 0, f.statusEnd ?? 0) : f ? at(f.titleLine ?? 0) : undefined;
  // Ledger story without a file.
  if (hasLedger && !f && ledgerRankOf >= 1 && s.ledgerLine !== undefined) {
    out.push({ file: lf, range: at(s.ledgerLine, 0, 0), severity: s.ledgerStatus === 'done' ? 'info' : 'warning', code: 'ledger-story-no-file', message: `${s.key} is ${s.ledgerStatus} but no story file ${s.key}.md was found. Create it (BMAD create-story) or set it back to backlog.`, data: { key: s.key } });
  }
  if (!f) return;
  // A story file the ledger does not list.
  if (hasLedger && s.ledgerStatus === undefined) {
    out.push({ file: f.file, range: at(f.titleLine ?? f.statusLine ?? 0), severity: 'warning', code: 'story-not-in-ledger', message: `Story ${s.epicId === NO_EPIC ? s.key : `${s.epic >= 0 ? s.epic : s.epicId}.${s.story}`} has a file but no entry in ${ledgerNamed(f.file, lf)}. Add '${s.key}: ${s.fileStatusMapped ?? 'ready-for-dev'}' ${nested ? `under epic-${s.epicId}'s stories:` : 'under development_status'} there.`, data: { key: s.key, value: s.fileStatusMapped ?? 'ready-for-dev' } });
  }
  if (f.status === undefined) {
    if (hasLedger && s.ledgerStatus !== undefined && !f.taskList) out.push({ file: f.file, range: at(f.titleLine ?? 0), severity: 'warning', code: 'story-status-missing', message: `This story file has no 'Status:' line; the ledger says ${s.ledgerStatus}. Add 'Status: ${s.ledgerStatus}' under the title.`, data: { fix: 'setStoryStatus', key: s.key, value: s.ledgerStatus } });
  } else {
    const norm = normalizeStoryStatus(f.status);
    if (!norm.status && s.ledgerRaw !== undefined && s.ledgerRaw.trim().toLowerCase() === f.status.trim().toLowerCase() && ledgerRankOf < 0) {
      // The ledger says the same word and is reported there.
    } else if (!norm.status && norm.suggestion !== undefined && (norm.suggestion === s.ledgerStatus || !hasLedger || s.ledgerStatus === undefined) && !f.tasks.some(taskOpen)) {
      // `✅ Complete`, `COMPLETED` in the file while the ledger says done and every task is ticked:
      // the project's word for what the ledger records; a note, not a warning on a clean story.
      // Without a ledger, the word is the evidence when no task contradicts it (`✅ Completed via
      // Story 6.2` on a story with no tasks of its own). (Done is never inferred from a word the
      // tasks contradict.)
      out.push({ file: f.file, range: statusRange!, severity: 'info', code: 'story-legacy-status', message: `${quoted(f.status)} is read as ${norm.suggestion}, ${s.ledgerStatus !== undefined ? 'as the ledger says' : f.tasks.length ? 'as its ticked tasks say' : 'as the file says (it has no task to tick)'}. Write ${quoted(norm.suggestion)} so every BMAD tool reads it the same.`, data: { fix: 'setStoryStatus', key: s.key, value: norm.suggestion } });
    } else if (!norm.status && norm.suggestion !== undefined && hasLedger && ledgerRankOf >= 0 && norm.suggestion !== s.ledgerStatus) {
      // `Completed` here, backlog in the ledger: the project's word for done disagrees with the ledger.
      // The fix is offered when the tasks agree with the word (done is never inferred against them).
      const ticked = !f.tasks.some(taskOpen);
      out.push({
        file: f.file, range: statusRange!, severity: 'warning', code: 'story-status-drift',
        message: `Status ${quoted(f.status)} (read as ${norm.suggestion}) here, ${quoted(s.ledgerRaw)} in sprint-status.yaml: the file is ahead.${ticked ? ` Make them agree: waymark story set-status ${s.key} ${norm.suggestion}.` : ` ${((n) => `${n} of its tasks ${n === 1 ? "is" : "are"} open`)(f.tasks.filter(taskOpen).length)}: tick them and set it ${norm.suggestion}, or set the file back to ${s.ledgerStatus}.`}`,
        data: ticked ? { fix: 'setStoryStatus', key: s.key, value: norm.suggestion, fileStatus: norm.suggestion, ledgerStatus: s.ledgerStatus, ahead: 'file' } : { key: s.key, fileStatus: norm.suggestion, ledgerStatus: s.ledgerStatus, ahead: 'file' },
      });
      if (s.ledgerLine !== undefined) out.push({ file: lf, range: at(s.ledgerLine, 0, 0), severity: 'info', code: 'story-status-drift', message: `${s.key} is ${s.ledgerRaw} here but ${quoted(f.status)} in its story file (the file is ahead).`, data: { key: s.key, ahead: 'file' } });
    } else if (!norm.status && hasLedger && ledgerRankOf >= 0 && setAsideStatus(f.status) !== undefined && !(HELD.test(f.status.trim()) && s.ledgerStatus === 'backlog')) {
      // `Superseded / relocated` here while the ledger still lists the story as work (backlog or
      // further): they disagree. A story held (`On hold`, `Deferred`) is backlog to the ledger.
      out.push({
        file: f.file, range: statusRange!, severity: 'warning', code: 'story-status-drift',
        message: `Status ${quoted(f.status)} here, ${quoted(s.ledgerRaw)} in sprint-status.yaml: the file sets the story aside while the ledger lists it as ${s.ledgerStatus}. Record the decision in the ledger ('${s.key}: ${setAsideStatus(f.status)}'), or set the file's status back.`,
        data: { key: s.key, fileStatus: setAsideStatus(f.status), ledgerStatus: s.ledgerStatus },
      });
      if (s.ledgerLine !== undefined) out.push({ file: lf, range: at(s.ledgerLine, 0, 0), severity: 'info', code: 'story-status-drift', message: `${s.key} is ${s.ledgerRaw} here but ${quoted(f.status)} in its story file.`, data: { key: s.key } });
    } else if (!norm.status && norm.suggestion === undefined && hasLedger && ledgerRankOf >= 0 && BLOCKED.test(f.status)) {
      // `Status: blocked` here while the ledger records the story as backlog, ready, in progress or
      // done: the block is not in the ledger (BMAD has no blocked status), or one of them is out of
      // date. Which is not guessed: no fix.
      out.push({
        file: f.file, range: statusRange!, severity: 'warning', code: 'story-status-drift',
        message: `Status ${quoted(f.status)} here, ${quoted(s.ledgerRaw)} in sprint-status.yaml: the file says the story is blocked, the ledger that it is ${s.ledgerStatus}. Record the block in the ledger (BMAD has no blocked status: a comment beside ${quoted(s.key)}), or set the file's status to ${s.ledgerStatus} when it is no longer blocked.`,
        data: { key: s.key, fileStatus: 'blocked', ledgerStatus: s.ledgerStatus },
      });
      if (s.ledgerLine !== undefined) out.push({ file: lf, range: at(s.ledgerLine, 0, 0), severity: 'info', code: 'story-status-drift', message: `${s.key} is ${s.ledgerRaw} here but ${quoted(f.status)} in its story file.`, data: { key: s.key } });
    } else if (!norm.status) {
      const value = norm.suggestion ?? (s.ledgerStatus && ledgerRankOf >= 0 ? s.ledgerStatus : undefined);
      // A story set aside (`Deferred - removed from the project`, `Cancelled`) or stopped
      // (`BLOCKED - Needs Investigation`) is the team's decision in a word BMAD lacks: a note, not a
      // warning, unless the ledger says otherwise (a ledger that says blocked too agrees).
      const blocked = BLOCKED.test(f.status);
      const setAside = (setAsideStatus(f.status) !== undefined && (s.ledgerStatus === undefined || s.ledgerStatus === 'backlog'))
        || (blocked && (s.ledgerStatus === undefined || BLOCKED.test(s.ledgerStatus)))
        // The ledger sets the story aside (`cancelled`, `deferred`): what its file still says is moot.
        || (s.ledgerStatus !== undefined && setAsideStatus(s.ledgerStatus) !== undefined);
      // A word for done (`Completed`) over open tasks: done is not offered against them (the tasks say
      // what is left; setting done would only move the warning to them).
      const open = value === 'done' ? f.tasks.filter(taskOpen) : [];
      const live = f.tasks.filter((t) => !t.dropped).length;
      out.push({
        file: f.file, range: statusRange!, severity: setAside ? 'info' : 'warning', code: 'story-unknown-status',
        message: `Status ${quoted(f.status)} is not a BMAD story status (${STORY_WORDS})${s.ledgerStatus ? `; the ledger says ${s.ledgerStatus}` : ''}.${open.length ? ` It reads as done, but ${open.length} of its ${live} tasks are unchecked (first: ${truncate(open[0].text)}): tick them and write 'done', or write the status the work is at (in-progress).` : value ? ` Did you mean ${value}?` : ''}`,
        data: value && !open.length ? { fix: 'setStoryStatus', key: s.key, value } : { key: s.key, ...(open.length ? { open: open.length, total: live } : {}) },
      });
    } else if (s.ledgerStatus !== undefined && ledgerRankOf >= 0 && norm.status !== s.ledgerStatus) {
      const fr = ledgerRank('story', norm.status);
      const ahead = fr > ledgerRankOf ? 'file' : 'ledger';
      const codeReview = (norm.status === 'in-progress' && s.ledgerStatus === 'review') || (norm.status === 'review' && s.ledgerStatus === 'in-progress');
      out.push({
        file: f.file, range: statusRange!, severity: codeReview ? 'info' : 'warning', code: 'story-status-drift',
        message: `Status ${quoted(f.status)} here, ${quoted(s.ledgerRaw)} in sprint-status.yaml: the ${ahead} is ahead.${codeReview ? ' (Code review moves review back to in-progress when it asks for changes.)' : ''} Make them agree: waymark story set-status ${s.key} ${ahead === 'file' ? norm.status : s.ledgerStatus}.`,
        data: { fix: 'setStoryStatus', key: s.key, value: ahead === 'file' ? norm.status : s.ledgerStatus, fileStatus: norm.status, ledgerStatus: s.ledgerStatus, ahead },
      });
      if (s.ledgerLine !== undefined) {
        out.push({ file: lf, range: at(s.ledgerLine, 0, 0), severity: 'info', code: 'story-status-drift', message: `${s.key} is ${s.ledgerRaw} here but ${quoted(f.status)} in its story file (the ${ahead} is ahead).`, data: { fix: 'setStoryStatus', key: s.key, value: ahead === 'file' ? norm.status : s.ledgerStatus, ahead } });
      }
    } else if (norm.status && s.ledgerRaw !== undefined && s.ledgerStatus !== undefined && ledgerRankOf < 0 && s.ledgerRaw.trim() !== '' && s.ledgerRaw.trim().toLowerCase() !== f.status.trim().toLowerCase()) {
      // The ledger says a word of the project's own (`deployed-awaiting-smoke`), the file a BMAD
      // status: they disagree, and which is right is not guessed (no fix).
      out.push({
        file: f.file, range: statusRange!, severity: 'warning', code: 'story-status-drift',
        message: `Status ${quoted(f.status)} here, ${quoted(s.ledgerRaw)} (the project's own word) in sprint-status.yaml: they disagree. Set the one that is right: waymark story set-status ${s.key} ${norm.status}, or edit the ledger.`,
        data: { key: s.key, fileStatus: norm.status, ledgerStatus: s.ledgerRaw },
      });
    } else if (!norm.exact && norm.status && (!s.ledgerStatus || norm.status === s.ledgerStatus) && !isV4Word(f.status)) {
      out.push({ file: f.file, range: statusRange!, severity: 'info', code: 'story-legacy-status', message: `${quoted(f.status)} is read as ${norm.status}. Write ${quoted(norm.status)} so every BMAD tool reads it the same.`, data: { fix: 'setStoryStatus', key: s.key, value: norm.status } });
    }
  }
  // A frontmatter status beside the Status line that says otherwise than the ledger (the Status
  // line agreeing): the file contradicts itself; the fix writes both.
  const fm = f.frontmatterStatus;
  const fmNorm = fm ? normalizeStoryStatus(fm.value).status : undefined;
  const bodyNorm = f.status !== undefined ? normalizeStoryStatus(f.status).status : undefined;
  // (A frontmatter word setting the story aside, `status: superseded` over `Status: done`, while
  // the ledger lists it as work: the same contradiction, as on the Status line; a held story is
  // backlog to the ledger.)
  // Which one is right is not guessed (no fix), as on the Status line.
  const fmAside = fm && !fmNorm ? setAsideStatus(fm.value) : undefined;
  if (fm && fmAside !== undefined && s.ledgerStatus !== undefined && ledgerRankOf >= 0 && !(HELD.test(fm.value.trim()) && s.ledgerStatus === 'backlog') && bodyNorm === s.ledgerStatus) {
    out.push({
      file: f.file, range: at(fm.line, fm.start, fm.end), severity: 'warning', code: 'story-status-drift',
      message: `The frontmatter says status ${quoted(fm.value)}, the Status line ${quoted(f.status)} and sprint-status.yaml ${quoted(s.ledgerRaw)}: the file contradicts itself, setting the story aside while the ledger lists it as ${s.ledgerStatus}. Record the decision in the ledger ('${s.key}: ${fmAside}') and the Status line, or remove the frontmatter's status.`,
      data: { key: s.key, fileStatus: fmAside, ledgerStatus: s.ledgerStatus },
    });
  }
  if (fm && fmNorm && s.ledgerStatus !== undefined && ledgerRankOf >= 0 && fmNorm !== s.ledgerStatus && (bodyNorm === s.ledgerStatus || bodyNorm === undefined)) {
    const ahead = ledgerRank('story', fmNorm) > ledgerRankOf ? 'frontmatter' : 'ledger';
    out.push({
      file: f.file, range: at(fm.line, fm.start, fm.end), severity: 'warning', code: 'story-status-drift',
      message: `The frontmatter says status ${quoted(fm.value)}, the Status line ${quoted(f.status)} and sprint-status.yaml ${quoted(s.ledgerRaw)}: the file contradicts itself. Make them agree: waymark story set-status ${s.key} ${s.ledgerStatus} (writes both).`,
      data: { fix: 'setStoryStatus', key: s.key, value: s.ledgerStatus, fileStatus: fmNorm, ledgerStatus: s.ledgerStatus, ahead },
    });
  }
  // The same with no ledger entry to settle it: which statement is right is the user's to say;
  // the story stands at the one further along (furtherStatement), and the fix writes both.
  if (fm && fmNorm && bodyNorm && fmNorm !== bodyNorm && s.ledgerStatus === undefined && s.ledgerRaw === undefined) {
    const value = furtherStatement(f, bodyNorm)!;
    out.push({
      file: f.file, range: at(fm.line, fm.start, fm.end), severity: 'warning', code: 'story-status-drift',
      message: `The frontmatter says status ${quoted(fm.value)} and the Status line ${quoted(f.status)}: the file contradicts itself. Make them agree: waymark story set-status ${s.key} ${value} (writes both), or the other status if that one is right.`,
      data: { fix: 'setStoryStatus', key: s.key, value, fileStatus: bodyNorm },
    });
  }
  // A v4 QA verdict below a Status line that says otherwise, with no ledger entry to settle it
  // (finalStatus.ts): named with both lines, never picked silently.
  const fin = f.finalStatus;
  if (fin && bodyNorm && s.ledgerStatus === undefined && s.ledgerRaw === undefined && (fin.status === 'done') !== (bodyNorm === 'done') && !(fin.status === 'review' && ledgerRank('story', bodyNorm) < ledgerRank('story', 'review'))) {
    const where = `the Status ${quoted(f.status)} (line ${f.statusLine! + 1}) and QA Results' Final Status ${quoted(fin.value)} (line ${fin.line + 1})`;
    out.push(fin.status === 'done'
      ? { file: f.file, range: statusRange!, severity: 'warning', code: 'story-status-drift', message: `The file contradicts itself: ${where}. BMAD v4's review-story has the QA agent set the Status to Done when it approves; Waymark reads the story as done, as the later verdict says. Align them: waymark story set-status ${s.key} done.`, data: { fix: 'setStoryStatus', key: s.key, value: 'done', fileStatus: bodyNorm, finalStatus: fin.status } }
      : { file: f.file, range: at(fin.line, fin.start, fin.end), severity: 'warning', code: 'story-status-drift', message: `The file contradicts itself: ${where}. The review asked for changes after the story was marked done; Waymark keeps it done (completed work is not moved back). If the changes are still due: waymark story set-status ${s.key} review --force; if they were made, record the later review's verdict under QA Results.`, data: { key: s.key, fileStatus: bodyNorm, finalStatus: fin.status } });
  }
  // Done with open tasks.
  const isDone = s.ledgerStatus === 'done' || (s.ledgerStatus === undefined && normalizeStoryStatus(f.status ?? '').status === 'done');
  const open = f.tasks.filter(taskOpen);
  if (isDone && open.length) {
    const live = f.tasks.filter((t) => !t.dropped);
    const none = live.every((t) => !t.checked);
    out.push({
      file: f.file, range: at(open[0].line, open[0].boxColumn, open[0].boxColumn + 3), severity: 'warning', code: 'story-done-tasks-open',
      message: none ? `The story is done but not one of its ${live.length} tasks is checked. Tick the tasks that were done, or reopen the story.` : `The story is done but ${open.length} of ${live.length} tasks are unchecked (first: ${/^\W*(task\s*)?\d/i.test(open[0].text) ? '' : `${open[0].number} `}${truncate(open[0].text)}). Tick them or reopen the story.`,
      data: { key: s.key, open: open.length, total: live.length },
    });
  }
  // Gates.
  // A PASS or CONCERNS past its `expires` (BMAD's "gate freshness window", a re-review trigger): the
  // gate still stands, the review is due again. Work still under way is to be re-reviewed before it
  // closes (a warning); a story done already closed within or after its window (a note).
  if (s.gate?.reviewDue && s.gate.open) {
    const gate = `its QA gate ${s.gate.verdict} expired on ${s.gate.reviewDue} (${s.gate.file})`;
    out.push(isDone
      ? { file: f.file, range: statusRange ?? at(0), severity: 'info', code: 'story-gate-expired', message: `The story is done; ${gate}. If the code changed since that review, re-review it; else nothing to do.`, data: { key: s.key, gate: s.gate.file, expires: s.gate.reviewDue } }
      : { file: f.file, range: statusRange ?? at(0), severity: 'warning', code: 'story-gate-expired', message: `The story is not done and ${gate}: the gate's freshness window has passed. Re-review the story (BMAD's QA review) and write the new verdict, or move expires: if the review still holds.`, data: { key: s.key, gate: s.gate.file, expires: s.gate.reviewDue } });
  }
  if (s.gate && isDone && !s.gate.open) {
    const why = s.gate.expired ? 'has expired' : s.gate.verdict === 'WAIVED' ? 'is WAIVED without an active waiver' : `is ${s.gate.verdict ?? 'unreadable'}`;
    // A gate with no readable verdict says nothing against the story: the gate file is what to fix
    // (a warning when it is no YAML; a note when it reads and records no verdict, `gate: "not
    // available"` or a report of the team's own shape).
    const unread = s.gate.verdict === undefined;
    if (unread && !s.gate.notYaml) {
      out.push({ file: f.file, range: statusRange ?? at(0), severity: 'info', code: 'story-gate-failed', message: `The story is done; its QA gate file records no verdict (${s.gate.file}). When the story is reviewed, write gate: PASS, CONCERNS, FAIL or WAIVED there.`, data: { key: s.key, gate: s.gate.file } });
      return;
    }
    // A waiver that has run out on a story already done: the waived issues are due for another look,
    // the story itself is not failed (its gate was WAIVED with a waiver in force when it closed).
    // The story's own QA Results record a later pass than the gate file (`Gate: PASS` under `### Gate
    // Status`, written by the review that approved it): the gate file is the stale record, a note.
    if (!unread && s.gate.verdict === 'FAIL' && (f.qaGate === 'PASS' || f.qaGate === 'WAIVED')) {
      out.push({ file: f.file, range: statusRange ?? at(0), severity: 'info', code: 'story-gate-failed', message: `The story's last QA decision records Gate: ${f.qaGate}, but its gate file still says FAIL (${s.gate.file}). Update the gate file to the last review's verdict.`, data: { key: s.key, gate: s.gate.file } });
      return;
    }
    if (s.gate.expired && s.gate.verdict === 'WAIVED') {
      out.push({ file: f.file, range: statusRange ?? at(0), severity: 'info', code: 'story-gate-failed', message: `The story is done; its QA gate was WAIVED and the waiver has expired (${s.gate.file}). Look at the waived issues again, or renew the waiver.`, data: { key: s.key, gate: s.gate.file } });
      return;
    }
    out.push({ file: f.file, range: statusRange ?? at(0), severity: unread ? 'warning' : 'error', code: 'story-gate-failed', message: unread ? `The story is done but its QA gate has no readable verdict (${s.gate.file}). Fix the gate file so it says gate: PASS, CONCERNS, FAIL or WAIVED.` : `The story is done but its QA gate ${why} (${s.gate.file}). Fix and re-review, or record a waiver.`, data: { key: s.key, gate: s.gate.file } });
  }
}

/** Words that name a document about a story's work, not the story (a whole word of the file's slug). */
const NOTE_WORDS = /(?:^|[-_.])(?:summary|report|checklist|notes|amendments?|evidence|completion|handoff|walkthrough|postmortem|guide|analysis)(?:$|[-_.])/i;
/** A title that names such a document (`# Story 1.5 - Web Inventory - Completion Summary`). */
const NOTE_TITLE = /\b(?:summary|report|checklist|notes|amendments?|evidence|handoff|walkthrough|postmortem)\s*$/i;

/** The slug a story file's name carries after its number: `2-1-notebook-intro` → `notebook-intro`, `story-2.1` → ''. */
function fileSlugOf(name: string): string {
  // `2.1.story` (v4's name) has no slug: `.story` is the kind of file, not words of its title.
  return name.toLowerCase().replace(/\.story$/, '').replace(/^story[-_. ]?/, '').replace(/^(?:[a-z]{1,6}-|e(?:p|pic)?[-_]?(?=\d))?(?:\d+[a-z]?[-.])+\d+[a-z]?/, '').replace(/^[-_.]+/, '');
}

/** True when a file's slug can name the key's story: none, the same, one a prefix of the other, or words in common. */
function slugFits(fileSlug: string, keySlug: string): boolean {
  if (!fileSlug || !keySlug || fileSlug === keySlug || keySlug.startsWith(fileSlug) || fileSlug.startsWith(keySlug)) return true;
  const words = (x: string) => new Set(x.split(/[-_.]+/).filter((w) => w.length > 2));
  const k = words(keySlug);
  return [...words(fileSlug)].some((w) => k.has(w));
}

/**
 * True unless a title names another story than the key's slug: two or more words of three letters
 * or more in Latin script, none of them (nor a five-letter stem: `archive`, `archiving`) the slug's.
 * A title in another script, or too short to tell, fits.
 */
function titleFits(title: string | undefined, keySlug: string): boolean {
  if (!title || !keySlug) return true;
  const tw = new Set((title.toLowerCase().match(/[a-z][a-z0-9]+/g) ?? []).filter((w) => w.length > 2 && w !== 'story'));
  if (tw.size < 2) return true;
  for (const w of keySlug.split(/[-_.]+/)) {
    if (w.length <= 2) continue;
    if (tw.has(w)) return true;
    if (w.length >= 5) for (const t of tw) if (t.startsWith(w.slice(0, 5))) return true;
  }
  return false;
}

function isV4Word(w: string): boolean {
  return /^(Draft|Approved|InProgress|Review|Done)$/.test(w.trim());
}

function truncate(t: string): string {
  return t.length > 60 ? `${t.slice(0, 57)}…` : t;
}

/**
 * True when the story file says the story is further along than the ledger (`Status: done` while
 * the ledger says ready-for-dev): drift to settle, not work to start. Code review's review ⇄
 * in-progress is not counted.
 */
export function fileAheadOfLedger(s: Pick<SprintStory, 'ledgerStatus' | 'fileStatusMapped'>): boolean {
  if (s.ledgerStatus === undefined || s.fileStatusMapped === undefined) return false;
  const l = ledgerRank('story', s.ledgerStatus);
  const f = ledgerRank('story', s.fileStatusMapped);
  return l >= 0 && f > l && !(s.ledgerStatus === 'in-progress' && s.fileStatusMapped === 'review');
}

/**
 * A story only the epics document plans, in a sprint that has a ledger without it: BMAD's
 * create-story cannot find it until sprint planning adds it (`epics-story-not-in-ledger`).
 */
export function plannedNotInLedger(s: Pick<SprintStory, 'ledgerStatus' | 'file' | 'problems'>): boolean {
  return s.ledgerStatus === undefined && !s.file && !!s.problems?.some((p) => p.code === 'epics-story-not-in-ledger');
}

/** BMAD's own "what next" order: in-progress, review, ready-for-dev, first backlog, an optional retro. */
export function recommend(stories: SprintStory[], epics: SprintEpic[]): SprintRecommendation | undefined {
  const withLedger = stories.filter((s) => s.ledgerStatus !== undefined);
  // A story whose file is ahead of the ledger is drift to settle (reported), not work to offer.
  const pool = (withLedger.length ? withLedger : stories).filter((s) => !fileAheadOfLedger(s));
  const first = (st: string) => pool.find((s) => s.status === st);
  let s = first('in-progress');
  if (s) return { action: 'dev-story', storyKey: s.key, reason: 'resume the in-progress story' };
  s = first('review');
  if (s) return { action: 'code-review', storyKey: s.key, reason: 'review the completed implementation' };
  s = first('ready-for-dev');
  if (s) return { action: 'dev-story', storyKey: s.key, reason: 'start the next ready story' };
  s = first('backlog');
  // A backlog story whose file is already written (a team that drafts every story up front, a ledger
  // behind its files): create-story would write that file again, so the file is the story to take up.
  if (s?.file) return { action: 'dev-story', storyKey: s.key, reason: `the first backlog story's file is already written (${s.file}): check it, set it ready-for-dev, then develop it (create-story would write it again)` };
  if (s) return { action: 'create-story', storyKey: s.key, reason: 'create the first backlog story' };
  // Stories the epics plan that the ledger lacks: BMAD's create-story picks from the ledger only, so
  // sprint planning (re-runnable, it keeps every status) comes before an optional retrospective.
  const unledgered = stories.filter(plannedNotInLedger);
  if (unledgered.length) {
    const keys = unledgered.slice(0, 3).map((u) => u.key).join(', ');
    return { action: 'sprint-planning', reason: `the epics plan ${unledgered.length} stor${unledgered.length === 1 ? 'y' : 'ies'} sprint-status.yaml lacks (${keys}${unledgered.length > 3 ? ', …' : ''}); re-run sprint planning (bmad-sprint-planning) to add ${unledgered.length === 1 ? 'it' : 'them'}, then create-story` };
  }
  const retro = epics.find((e) => e.retrospective === 'optional');
  if (retro) return { action: 'retrospective', reason: `all stories done; epic-${retro.id}-retrospective is still open` };
  return undefined;
}

function dirOf(file: string): string {
  return file.replace(/[\\/][^\\/]*$/, '');
}

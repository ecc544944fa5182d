/**
 * BMAD story files as their templates write them: `# Story N.M: title`, a `Status:` line (or a
 * `## Status` section, or frontmatter `status:`), Tasks/Subtasks checkboxes with nesting and
 * `[AI-Review]` follow-ups, File List, Change Log, Dev Agent Record. v6 files are named
 * `{N}-{M}[a-z]?-{slug}.md`; v4 files `docs/stories/{N}.{M}.{slug}.md`.
 */
import * as path from 'node:path';
import { camelWords, classifyStoryKey, epicNumber } from './ledger';
import { finalStatusOf, type FinalStatus } from './finalStatus';
import { mayBeFence, ownCopy, splitLines, quoted } from '../model/text';

export interface StoryTask {
  /** 0-based line of the checkbox. */
  line: number;
  /** Column of the `[`. */
  boxColumn: number;
  checked: boolean;
  text: string;
  /** Nesting depth (0 = task, 1 = subtask...). */
  depth: number;
  /** A code-review follow-up (`[AI-Review]`). */
  review: boolean;
  /** Unticked but struck through (`- [ ] ~~Commit the scaffold~~ - skipped per user request`): dropped, not open. */
  dropped?: true;
  /** 1-based number among top-level tasks, `2.1` for subtasks. */
  number: string;
}

export interface StoryFile {
  file: string;
  /** Ledger-style key from the file name (`2-6a-slug`) or v4 `{epic}.{story}` mapped to numbers. */
  key?: string;
  epic?: number;
  /** The epic id (`3`, `3a`, `0-5`, `pm-01`), from the file name, else the title. */
  epicId?: string;
  /** `3`, `6a`. */
  story?: string;
  title?: string;
  titleLine?: number;
  /** The file's first `#` heading names an epic (`# Epic 43: …`, `# Epic 7 — PO Validation Report`) and no `# Story` heading follows: an epic's document, not a story. */
  epicTitle?: true;
  /** The status as written, and where. */
  status?: string;
  statusLine?: number;
  statusStart?: number;
  statusEnd?: number;
  /** How the status is written: `Status: x`, `## Status` section, or frontmatter. */
  statusForm?: 'line' | 'section' | 'frontmatter';
  /** A frontmatter `status:` beside the Status line (some teams keep both; they can disagree). */
  frontmatterStatus?: { value: string; line: number; start: number; end: number };
  /** A v4 QA verdict below the Status line (`### Final Status` under `## QA Results`: finalStatus.ts). */
  finalStatus?: FinalStatus;
  tasks: StoryTask[];
  /** The last `Gate: PASS` (CONCERNS, FAIL, WAIVED) the story's QA Results record: BMAD's QA review writes it beside the gate file. */
  qaGate?: string;
  hasFileList: boolean;
  hasChangeLog: boolean;
  hasDevAgentRecord: boolean;
  eol: '\n' | '\r\n';
  /** Named by a one-number series id (`TD.10.checkpoint-persistence.md`): a story only by its content (storyByContent). */
  byContent?: true;
  /** An Acceptance Criteria section and a Tasks section: the story template's own sections. */
  storyContent?: true;
  /**
   * Numbered in one series with no epic (`STORY-001.md`, oneNumberStory): the story of no epic (NO_EPIC) it
   * is where no ledger lists stories (withNoEpic); a ledger's keys bind it as before.
   */
  noEpic?: { key: string; story: string; title?: string; titleLine: number };
  /**
   * The story id its frontmatter names (`story_key:`, `story_id:`, `storyId:`, `story:`, `key:`, `id:`), and
   * where. A file no name grammar reads that names its id there beside a `status:` is that story,
   * keyed by the id (frontmatterStory); a ledger key it names binds it as a file name would.
   */
  frontmatterId?: { value: string; line: number };
  /** A task list kept for a ledger story (spec-kit's `specs/<key>/tasks.md`): every checkbox a task, no status or title of its own. */
  taskList?: true;
}

/**
 * The status word(s) at the start of a value such as `done ✅` or `backlog (deferred)`. A digit right
 * after a letter stays in the word (`deferred-to-v2`); after a space or a dash it starts something
 * else (`Done 2026-01-12`).
 */
/** A setext heading's underline (under a paragraph line): `---`, `===`, up to three spaces before. */
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)\s*$/;
const STATUS_WORD = /^\p{L}(?:[\p{L}\p{M} _-]|(?<=\p{L})\d)*?(?=\s*(?:$|(?<!\p{L})\d|[^\p{L}\p{M}0-9 _-]|\s-\s))/u;

/**
 * The Status label in the language BMAD writes a project's documents in (`document_output_language`):
 * `Statut` (French), `Estado`/`Estatus` (Spanish, Portuguese), `Stato` (Italian), `Статус`, `状态`,
 * `ステータス`, `상태`. French typography puts a space before the colon (`**Statut** : done`).
 */
const LABEL_WORD = '(?:Status|Statut|Estado|Estatus|Stato|Статус|Состояние|状态|狀態|ステータス|상태)';
const COLON = '\\s*[:：]';

/** Words naming a document, not a series of stories, before numbers in a file's name (`release-1.2-notes`; `TEA-RELEASE-004.1` is a team's series). */
const DOCUMENT_SERIES = /^(?:epics?|story|stories|tech[-_]spec|spec|prd|architecture|adr|rfc|release|version|retro|retrospective|sprint|review|report|validation|qa|gate|handoff|plan|phase|week|day|step|part|section|chapter|appendix)$/i;

const V4_NAME = /^(\d+)\.(\d+)((?:[a-z]\d?)?)(?:\.(.+))?\.md$/i;
/**
 * v4's dotted story number (`1.1`, `2.1a`, `2.1e1`, `2.2.3`, `2.1g.1`), then a status word in capitals
 * and the slug, each after a space, dot or dash (`1.1 COMPLETE project-setup.md`): the number and the slug.
 */
const STATUS_IN_NAME = /^(\d{1,3}\.\d{1,3}(?:[a-z]\d?)?(?:\.\d{1,3})?)[ .-](?:COMPLETE|COMPLETED|DONE|FINISHED)[ .-]([a-z][^.]*)\.md$/;
/** A story's dotted number, then a document's name in capitals (`2.1g.3.1-IMPLEMENTATION-PLAN.md`): a note beside the story. */
const NUMBERED_NOTE = /^\d{1,3}\.\d{1,3}[a-z]?\d?(?:\.\d{1,3})*[-_](?:[A-Z]+[-_])*(?:PLAN|REFERENCE|SUMMARY|REPORT|GUIDE|NOTES)\.md$/;
/** BMAD v6 alpha's level-1 story name (tech-spec, alpha.1 – alpha.11): `story-{epic_slug}-{n}.md`. */
export const LEVEL1_NAME = /^story-([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-(\d{1,3})\.md$/i;

/**
 * The story a file name names, by BMAD's naming: v6 `{epic}-{story}-{slug}.md` with any epic id
 * projects use (`3a-1-…`, `0-5-1-…` when `epicIds` has `0-5`, `pm-01-1-…`), v4 `{N}.{M}.{slug}.md`,
 * and the two mixed (`{N}.{M}-{slug}.md`).
 * Words in the slug (`3-4-review-queue.md`) do not matter; a context file (`.context.md`) and a
 * dated note (`2025-12-16-…`, `HANDOFF-2025-11-01.md`) are not stories.
 */
export function storyKeyFromName(file: string, epicIds?: Iterable<string>): NamedStory | undefined {
  const base = path.basename(file);
  if (epicIds !== undefined) return keyFromName(base, epicIds);
  let named = namedByBase.get(base);
  if (named === undefined) {
    const n = keyFromName(base, undefined);
    named = n ? Object.freeze(n) : null;
    if (namedByBase.size >= 20_000) namedByBase.clear();
    namedByBase.set(base, named);
  }
  return named ?? undefined;
}

export type NamedStory = Readonly<{ key: string; epic: number; epicId: string; story: string; v4: boolean; byContent?: true }>;

/**
 * storyKeyFromName's answers without epic ids, by base name (null: no story's). A first sprint asks
 * it about each story ~4 times (its folder's listing, its parse, the ledger's key twice), and the
 * ~10 regular expressions of each answer, run cold, were ~5 % of a first `validate`.
 */
const namedByBase = new Map<string, NamedStory | null>();

function keyFromName(base: string, epicIds: Iterable<string> | undefined): NamedStory | undefined {
  // A doubled dot before the extension (`story-12.2..md`) is a slip of the keyboard, not another name.
  base = base.replace(/\.{2,}(md|markdown)$/i, '.$1');
  // A dated note (`2025-12-16-…`, `HANDOFF-2025-11-01.md`): its numbers are a date, not a story's.
  // BMAD's correct-course output (`sprint-change-proposal-{date}.md`), however it is named after a
  // story (`10.4.1-canvas-fix.sprint-change-proposal.md`), is a proposal about the sprint, no story.
  if (!/\.md$/i.test(base) || /\.context\./i.test(base) || /sprint-change-proposal/i.test(base) || /^(?:[a-z][a-z0-9]*[-_])?(?:19|20)\d{2}-[01]\d-[0-3]\d(?:[-_.]|$)/i.test(base)) return undefined;
  // `2.1g.3.1-IMPLEMENTATION-PLAN.md`, `2.1g.3.1-QUICK-REFERENCE.md`: a story's number, then a document's
  // name in capitals: a note kept beside the story (its plan, a reference card), not a story.
  if (NUMBERED_NOTE.test(base)) return undefined;
  // `1.1 COMPLETE project-setup.md`, `2.1e1 COMPLETE core-cache.md`, `2.1.COMPLETE.now-next.md`: v4's
  // dotted name with a status word in capitals written where the dot before the slug goes; the word
  // is the file's state, not part of its key (`1-1-project-setup`).
  const stated = STATUS_IN_NAME.exec(base);
  if (stated) return keyFromName(`${stated[1]}.${stated[2]}.md`, epicIds);
  const key = base.slice(0, -3);
  // `story-1.10.md`, `story-8-1-slug.md`, `story_2.3.md`, `story1.3.md`: the same names with a prefix.
  const bare = base.replace(/^story[-_. ]*(?=\d)/i, '');
  // `story-1.1-nextjs-init.md`: the story's number, then its slug after a dash (`story-2.5-2.md` is
  // story 2 of sub-epic 2.5, read below).
  const m = V4_NAME.exec(bare.replace(/\.story\.md$/i, '.md')) ?? (bare !== base ? /^(\d+)\.(\d+)([a-z]?)-([a-z].*)\.md$/i.exec(bare) : null);
  // `1.5.2.frontend-audio.md`, `9.2.1.story.md`: v4's sub-story 1 of story 1.5, a story of its own
  // (story 1 of sub-epic 1-5, as the ledger writes `0-5-1-…`), not a second file of story 1.5.
  // With a prefix (`story-2.1.1.md`, `story-2.1.2-code-review.md`: v6 alpha's name for the ledger's
  // `story-2.1.2`), the same: story 2 of sub-epic 2.1, the file keeping its name as its key.
  // `1.3.1-student-tokens.md` beside `1.3.student-access.md`: the same sub-story, its slug after a dash
  // (a number of up to three digits: `1.3.2025-12-01-notes.md` is a dated note about story 1.3).
  const sub = m ? (bare === base ? /^(\d+)(?:\.(.+))?$|^(\d{1,3})-([a-z].*)$/i : /^(\d+)(?:[.-](.+))?$/).exec(m[4] ?? '') : null;
  if (m && sub) {
    const epicId = `${Number(m[1])}-${Number(m[2])}${m[3].toLowerCase()}`;
    const n = Number(sub[1] ?? sub[3]);
    return { key: bare === base ? `${epicId}-${n}-${(sub[2] ?? sub[4] ?? 'story').toLowerCase()}` : key, epic: Number(m[1]), epicId, story: String(n), v4: bare === base };
  }
  if (m) return { key: bare === base ? `${Number(m[1])}-${Number(m[2])}${m[3].toLowerCase()}-${(m[4] ?? 'story').toLowerCase()}` : key, epic: Number(m[1]), epicId: String(Number(m[1])), story: `${Number(m[2])}${m[3].toLowerCase()}`, v4: bare === base };
  // `epic-2/stories/2.1-csv-import.md`: v4's dotted number with v6's dashed slug; the ledger's key is `2-1-csv-import`.
  const dotted = bare === base ? /^(\d{1,3})\.(\d{1,3})([a-z]?)-([a-z].*)\.md$/i.exec(base) : null;
  if (dotted) return { key: `${Number(dotted[1])}-${Number(dotted[2])}${dotted[3].toLowerCase()}-${dotted[4].toLowerCase()}`, epic: Number(dotted[1]), epicId: String(Number(dotted[1])), story: `${Number(dotted[2])}${dotted[3].toLowerCase()}`, v4: false };
  // `story-4A.2.md`, `4b.1-slug.md`: story 2 of the lettered epic 4a, the ledger's `4a-2-…`.
  const letteredEpic = /^(\d+[a-z])\.(\d+[a-z]?)(?:[-.]([a-z].*?))?(?:\.story)?\.md$/i.exec(bare);
  const l = letteredEpic ? classifyStoryKey(`${letteredEpic[1]}-${letteredEpic[2]}${letteredEpic[3] ? `-${letteredEpic[3]}` : ''}`.toLowerCase(), epicIds) : undefined;
  if (l) return { key: bare === base ? `${l.epicId}-${l.story}${letteredEpic![3] ? `-${letteredEpic![3].toLowerCase()}` : ''}` : key, epic: l.epic, epicId: l.epicId, story: l.story!, v4: false };
  // `pp.2.api-route-client-loader.story.md`, `fix.44.attache-invested-gate.story.md`: v4's dotted
  // name (`{epic}.{story}.{slug}.story.md`) with an epic named in letters, the ledger's
  // `pp-2-api-route-client-loader`. v4's `.story.md` says the file is a story; without it the
  // letters must be an epic the ledger declares (`epic-pp`).
  const named = /^([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)\.(\d{1,4})([a-z]?)\.([a-z][^.]*?)(\.story)?\.md$/i.exec(base);
  if (named && (named[5] !== undefined || (epicIds !== undefined && [...epicIds].includes(named[1].toLowerCase())))) {
    const epicId = named[1].toLowerCase();
    return { key: `${epicId}-${Number(named[2])}${named[3].toLowerCase()}-${named[4].toLowerCase()}`, epic: epicNumber(epicId), epicId, story: `${Number(named[2])}${named[3].toLowerCase()}`, v4: false };
  }
  // `TD.10.checkpoint-persistence.md`, `BUG.001.config-mismatch.md`: a team's one-number series (tech
  // debt, bugs) named as v4 names a story, without `.story` and with no epic the ledger declares. The
  // name alone is not enough (`notes.2.draft.md`): the file is a story when its content is one
  // (storyByContent: a status, an Acceptance Criteria section and a Tasks section).
  if (named && !DOCUMENT_SERIES.test(named[1])) {
    const epicId = named[1].toLowerCase();
    return { key: `${epicId}-${Number(named[2])}${named[3].toLowerCase()}-${named[4].toLowerCase()}`, epic: epicNumber(epicId), epicId, story: `${Number(named[2])}${named[3].toLowerCase()}`, v4: false, byContent: true };
  }
  // `PM-1.1.html-generator-script.story.md`: v4's name with a module's letters before the epic's
  // number (as `story-PM-1.1.md` writes it): story 1 of the module's epic pm-1, the ledger's `pm-1-1-…`.
  const module = bare === base ? /^([A-Z]{2,6}|[a-z]{2,6}(?=-\d+\.\d+[a-z]?(?:\.[^.]+)?\.story\.md$))-(\d+)\.(\d+[a-z]?)(?:\.([a-z0-9][\w-]*))?(?:\.story)?\.md$/.exec(base) : null;
  if (module) {
    const epicId = `${module[1].toLowerCase()}-${Number(module[2])}`;
    const story = module[3].replace(/^0+(?=\d)/, '').toLowerCase();
    return { key: `${epicId}-${story}-${(module[4] ?? 'story').toLowerCase()}`, epic: Number(module[2]), epicId, story, v4: false };
  }
  // `review-15-1-findings.md`, `report-2-3.md`: a document's word, then a story's numbers: a review or report
  // about story 15.1 (titled `# Story 15.1 Code Review — …`), not story 1 of an epic `review-15`, unless the ledger declares it.
  const doc = /^(?:reviews?|report|validation|handoff)[-_]\d/i.test(bare) ? bare.toLowerCase() : undefined;
  if (doc && !(epicIds !== undefined && [...epicIds].some((id) => doc.startsWith(`${id.toLowerCase()}-`)))) return undefined;
  const c = classifyStoryKey(bare.slice(0, -3), epicIds);
  if (c) return { key, epic: c.epic, epicId: c.epicId, story: c.story!, v4: false };
  const spelled = epicSpelledName(base);
  if (spelled) return spelled;
  // `epic1.story2.story.md`, `epic-3.story-1.login.md`: v4's dotted name (`{epic}.{story}.story.md`)
  // with each number after its word: story 1.2, as `1.2.story.md` is (the ledger's `1-2-…`).
  const worded = bare === base ? WORDED_V4_NAME.exec(base) : null;
  // (`epic-3.0.story-1.md`, `epic-3.1.story-2-updated.md`: story 1 of sub-epic 3.0, as `3.0.1.story.md` is.)
  if (worded) {
    const story = `${Number(worded[3])}${worded[4].toLowerCase()}`;
    const epicId = worded[2] === undefined ? String(Number(worded[1])) : `${Number(worded[1])}-${Number(worded[2])}`;
    return { key: `${epicId}-${story}-${(worded[5] ?? 'story').toLowerCase()}`, epic: Number(worded[1]), epicId, story, v4: true };
  }
  // `tech-debt.story-1.md`: the same dotted name with the epic named in words (`# Story TD-1`): story 1 of
  // the epic `tech-debt`, the file's name its key. (Words naming a document, `release.story-2.md`, are no epic.)
  const wordEpic = bare === base && !worded ? WORD_EPIC_V4_NAME.exec(base) : null;
  if (wordEpic && !DOCUMENT_SERIES.test(wordEpic[1]) && !/^e(?:p|pic)?[-_]?\d/i.test(wordEpic[1])) {
    const epicId = wordEpic[1].toLowerCase();
    return { key, epic: epicNumber(epicId), epicId, story: `${Number(wordEpic[2])}${wordEpic[3].toLowerCase()}`, v4: false };
  }
  // `DOC-002.1-structure-setup.md`, `TEA-STREAM-001.1-channels.md`, `TEA-BUILTIN-001.6.1.catalog.md`:
  // a team's own story id (words in letters, then the epic's number and the story's, dotted, as v4
  // numbers them) before the slug: story 1 of the team's epic `doc-2` (`tea-builtin-1-6`). The
  // numbers are two groups or more (`TEA-STREAM-001-epic.md` names the epic, `week-3-plan.md` a
  // week); words naming a document (`release-1.2-notes.md`, `adr-2.1-…`) are no story's series.
  const series = bare === base ? /^([a-z]+(?:[-_][a-z]+)*)[-.](\d{1,4}[a-z]?(?:\.\d{1,4}[a-z]?)+)[-.]([a-z].*?)(?:\.story)?\.md$/i.exec(base) : null;
  // (`EPIC-AIOX-2.0-COMPLIANCE.md`: a name with the word epic in its letters is the epic's document;
  // `story-S-1.1-x.md`, the word story, is read by the story grammars above or not at all.)
  if (series && !DOCUMENT_SERIES.test(series[1]) && !/(?:^|[-_])(?:epics?|story|stories)(?:[-_]|$)/i.test(series[1])) {
    const numbers = series[2].toLowerCase().split('.').map((n) => n.replace(/^0+(?=\d)/, ''));
    const story = numbers.pop()!;
    const epicId = `${series[1].toLowerCase().replace(/_/g, '-')}-${numbers.join('-')}`;
    return { key, epic: epicNumber(epicId), epicId, story, v4: false };
  }
  // `story-harbour-lights-1.md`: BMAD v6 alpha's level-1 story, story 1 of the epic its slug names.
  const level1 = LEVEL1_NAME.exec(base);
  if (level1) return { key, epic: -1, epicId: level1[1].toLowerCase(), story: String(Number(level1[2])), v4: false };
  return undefined;
}

/**
 * `story-epic-1-2.md`, `story-epic1-2-login.md`, `story-e1-2.md`, `story_ep3_1.md`: the word story,
 * then the epic spelled as a word or its letter (`epic`, `ep`, `e`), then the epic's and the story's
 * numbers dashed: story 1.2, the file's name its key (as `story-1.2.md` keeps its own). (No letter
 * after the epic's number: `story-e2e-1-login.md` is a test's story, not story 1 of an epic `2e`.) The dotted
 * form (`story-epic-1.2`) and `epic-1-story-2` are read by classifyStoryKey; this is the dashed one
 * after `story-`, which it leaves (`epic-0-5` alone is a sub-epic's key, not a story's).
 */
/**
 * `epic1.story2.story.md`, `Epic-1.Story-2.slug.md`: v4's dotted name, the epic's and the story's numbers each
 * after its word; the epic a sub-epic (`epic-3.0.story-1.md`), the slug after a dash (`epic-3.1.story-2-updated.md`).
 */
const WORDED_V4_NAME = /^e(?:p|pic)?[-_]?(\d{1,3})(?:\.(\d{1,3}))?\.s(?:tory)?[-_]?(\d{1,3})([a-z]?)(?:[.-]([a-z][\w-]*?))?(?:\.story)?\.md$/i;

/** `tech-debt.story-1.md`, `infra.story-2-ci-cache.md`: v4's worded name with the epic named in words. */
const WORD_EPIC_V4_NAME = /^([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)\.s(?:tory)?[-_]?(\d{1,3})([a-z]?)(?:[.-][a-z][\w-]*?)?(?:\.story)?\.md$/i;

// (The story's number may follow its own letter, as the epic's follows its: `story-e1-s2-oil-levels.md`,
// titled `# Story E1-S2: …`, is story 2 of epic 1, as `story-e1-2-oil-levels.md` is.)
const EPIC_SPELLED_NAME = /^story[-_. ]?e(?:p|pic)?[-_. ]?(\d{1,3})[-_.](?:s(?:tory)?[-_]?)?(\d{1,3})([a-z]?)(?:[-_.]([a-z][^.]*))?(?:\.story)?\.md$/i;

function epicSpelledName(base: string): NamedStory | undefined {
  const m = EPIC_SPELLED_NAME.exec(base);
  if (!m) return undefined;
  return { key: base.slice(0, -3), epic: Number(m[1]), epicId: String(Number(m[1])), story: `${Number(m[2])}${m[3].toLowerCase()}`, v4: false };
}

/** A folder kept for one epic's stories: `epic-01`, `epic-2-maps-and-renderer`, `Epic_3`. */
const EPIC_FOLDER = /^epic[-_ ]?(\d{1,3})(?:[-_ ].*)?$/i;
/** A story numbered within its epic only: `02-maze-renderer.md`, `story-01-customer-management.md`, `09a-hud.md`. */
const NUMBER_IN_EPIC = /^(?:story[-_ ]?)?(\d{1,3})([a-z]?)(?:[-_ ]([a-z][^.]*))?\.md$/i;

/**
 * The story a file numbered within its epic names, from the folder it is kept in: stories kept one
 * folder per epic, the epic's number on the folder and only the story's on the file
 * (`epic-01/story-02-digital-contracts.md`, `epic-2-maps/stories/03-aspect-ratio.md`) are stories 1.2
 * and 2.3, keyed as v4's dotted names are (`1-2-digital-contracts`). The epic's folder is the file's
 * own, or the one holding its `stories/` folder: no folder further up names the epic.
 */
export function storyKeyFromEpicFolder(file: string): NamedStory | undefined {
  const m = NUMBER_IN_EPIC.exec(path.basename(file));
  if (!m) return undefined;
  const dir = path.dirname(file);
  const own = path.basename(dir);
  const e = EPIC_FOLDER.exec(own) ?? (own.toLowerCase() === 'stories' ? EPIC_FOLDER.exec(path.basename(path.dirname(dir))) : null);
  if (!e) return undefined;
  const epic = Number(e[1]);
  const story = `${Number(m[1])}${m[2].toLowerCase()}`;
  return { key: `${epic}-${story}-${(m[3] ?? 'story').toLowerCase()}`, epic, epicId: String(epic), story, v4: false };
}

/**
 * `2.feedback-layer.md`: v4's dotted name with one number, the epic's: a team writing one story per epic
 * (`# Story 2 — Feedback Layer`, `**Epic:** 2`). A story only when its content says so (epicStory).
 */
export const EPIC_STORY_NAME = /^(\d{1,3})\.([a-z][a-z0-9-]*)\.md$/i;
/** `# Story 2 — Feedback Layer`, `# Story 3: Polish`: the title of an epic's one story, by the epic's number. */
const EPIC_STORY_HEADING = /^#\s+Story\s+0*(\d{1,3})\s*[:\-–—]\s*(.*?)\s*$/i;
/** `**Epic:** 2`, `Epic: 2 — Foundation`, `- **Epic**: 2`: the epic a story states it belongs to. */
const EPIC_LINE = /^\s*(?:[-*]\s+)?(?:\*\*|__)?Epic(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(?:Epic\s+)?0*(\d{1,3})\b/i;

/**
 * A file named by one number (EPIC_STORY_NAME) is the one story of that epic when it says so itself: its
 * first heading names the number as a story's (`# Story 2 — Feedback Layer`) and a line in its head states
 * the same epic (`**Epic:** 2`). It is story 1 of epic N (BMAD numbers an epic's stories from 1), keyed by
 * its name, as `story-1.2.md` keeps its own.
 */
function epicStory(s: StoryFile, lines: readonly string[], start: number): void {
  const n = Number(EPIC_STORY_NAME.exec(path.basename(s.file))![1]);
  let heading = -1;
  for (let i = start; i < Math.min(lines.length, start + 40); i++) {
    if (!lines[i].startsWith('#')) continue;
    const t = EPIC_STORY_HEADING.exec(lines[i]);
    if (!t || Number(t[1]) !== n) return;
    heading = i;
    break;
  }
  if (heading < 0) return;
  for (let i = heading + 1; i < Math.min(lines.length, heading + 15); i++) {
    const e = EPIC_LINE.exec(lines[i]);
    if (!e) continue;
    if (Number(e[1]) !== n) return;
    const t = EPIC_STORY_HEADING.exec(lines[heading])!;
    s.key = path.basename(s.file).slice(0, -3);
    s.epic = n;
    s.epicId = String(n);
    s.story = '1';
    s.title = t[2] ? ownCopy(plainTitle(t[2])) : undefined;
    s.titleLine = heading;
    delete s.epicTitle;
    return;
  }
}

/** A story numbered in one series with no epic: `STORY-001.md`, `story-4-offline-mode.md`, `story7.md`. */
export const ONE_NUMBER_NAME = /^story[-_ ]?0*(\d{1,4})(?:[-_ ]([a-z][^.]*))?\.md$/i;
/** The epic id of stories numbered with no epic (ONE_NUMBER_NAME): one group, after the epics, ordered by number. */
export const NO_EPIC = 'no-epic';
/** `# STORY-001: Project Setup`, `# Story 4: Offline Mode`, `# **Story 7** — …`: a one-number story's title. */
const ONE_NUMBER_TITLE = /^#\s+(?:\*\*|__)?story[-_ ]?0*(\d{1,4})\b(?:\*\*|__)?\s*(?:[:\-–—]\s*(.*?))?\s*$/i;
/** BMAD's user story: a `## Story` / `## User Story` section, or the statement "As a …, I want …". */
const USER_STORY = /^#{2,3}\s+(?:user\s+)?story\s*$|^\s*(?:\*\*)?as an?\b[^\n]*\n(?:[^\n]*\n){0,2}?\s*(?:\*\*)?i want\b/im;

/**
 * A file named as a story numbered in one series with no epic (BMAD's quick flow, and teams planning
 * without epics: `STORY-001.md`, `story-4-offline-mode.md`, `story7.md`) is one when it says so
 * itself: its first heading names that number as a story's (`# STORY-001: Project Setup`) and it
 * holds the user story BMAD's template holds. It is story N of no epic (NO_EPIC), keyed by its name.
 */
function oneNumberStory(s: StoryFile, lines: readonly string[], start: number): void {
  const base = path.basename(s.file);
  const n = Number(ONE_NUMBER_NAME.exec(base)![1]);
  let heading: RegExpExecArray | null = null;
  for (let i = start; i < Math.min(lines.length, start + 60); i++) {
    if (!/^#\s/.test(lines[i])) continue;
    heading = ONE_NUMBER_TITLE.exec(lines[i]);
    if (heading && Number(heading[1]) === n && USER_STORY.test(lines.join('\n'))) {
      s.noEpic = { key: base.slice(0, -3), story: String(n), titleLine: i };
      if (heading[2]) s.noEpic.title = ownCopy(plainTitle(heading[2]));
    }
    return;
  }
}

/**
 * BMAD's 2D game packs' story name, `{story_id}-{story_name}.md` under `stories/{epic_name}/`, its id a
 * series' letters and number (`UI-001-main-menu.md`, `SETUP-001-initial-config.md`: "Format as EPIC-XXX").
 */
export const GAME_STORY_NAME = /^([a-z]{2,8})-(\d{1,4})-[a-z][a-z0-9]*(?:-[a-z0-9]+)*\.md$/i;
/** The game story template's id line: `**Story ID:** UI-001` (v2), `**ID**: UI-001` (the pack's first template). */
const GAME_ID_LINE = /^\s*(?:[-*]\s+)?(?:\*\*|__)?(?:Story[ \t]+)?ID(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*([a-z]{2,8})-(\d{1,4})\b/i;

/**
 * A file named as a game pack's story (GAME_STORY_NAME) is one when it says so as the pack's template
 * writes it: its first heading `# Story: {title}` and, below it, an id line naming the file's own id.
 * It is story N of the series its letters name (epic `ui`), keyed by its name. (The pack's template
 * may state no status: the story is listed without one.)
 */
function gameStory(s: StoryFile, lines: readonly string[], start: number): void {
  const m = GAME_STORY_NAME.exec(path.basename(s.file))!;
  for (let i = start; i < Math.min(lines.length, start + 40); i++) {
    if (!/^#\s/.test(lines[i])) continue;
    const t = UNNUMBERED_TITLE.exec(lines[i].replace(/^\uFEFF/, ''));
    if (!t) return;
    for (let j = i + 1; j < Math.min(lines.length, i + 15); j++) {
      const id = GAME_ID_LINE.exec(lines[j]);
      if (!id) continue;
      if (id[1].toLowerCase() !== m[1].toLowerCase() || Number(id[2]) !== Number(m[2])) return;
      s.key = path.basename(s.file).slice(0, -3);
      s.epicId = m[1].toLowerCase();
      s.epic = epicNumber(s.epicId);
      s.story = String(Number(m[2]));
      s.title = ownCopy(plainTitle(t[1]));
      s.titleLine = i;
      delete s.epicTitle;
      return;
    }
    return;
  }
}

/** A one-number story's parse (oneNumberStory) as the story of no epic it is where no ledger lists stories. */
export function withNoEpic(s: StoryFile): StoryFile {
  const n = s.noEpic;
  if (!n) return s;
  const out: StoryFile = { ...s, key: n.key, epic: -1, epicId: NO_EPIC, story: n.story, titleLine: n.titleLine };
  if (n.title !== undefined) out.title = n.title;
  else delete out.title;
  delete out.epicTitle;
  return out;
}

/**
 * `# Story 2: title`, `# Story 02 - title`: a story's title by its number within its epic; `# Story
 * Epic 1-1: title`, `# Story Epic1-6 — title`: by its epic's number and its own.
 */
const TITLE_IN_EPIC = /^#\s+Story\s+(?:Epic[ \t]?(\d{1,3})[-.])?(\d{1,3})([a-z]?)\s*[:\-–—]\s*(.*?)\s*$/i;

/** The title of a story numbered within its epic's folder (storyKeyFromEpicFolder): its first heading, when that names its number. */
function titleInEpic(s: StoryFile, lines: readonly string[], start: number): void {
  for (let i = start; i < Math.min(lines.length, start + 40); i++) {
    const line = lines[i].replace(/^\uFEFF/, '');
    if (!line.startsWith('#')) continue;
    const t = TITLE_IN_EPIC.exec(line);
    if (t && `${Number(t[2])}${t[3].toLowerCase()}` === s.story && (t[1] === undefined || String(Number(t[1])) === s.epicId)) {
      s.title = t[4] ? ownCopy(t[4]) : undefined;
      s.titleLine = i;
    }
    return;
  }
}

/**
 * A file name without the `story-` (`story_`, `story.`) BMAD and teams write before a story's key
 * (`story-harbor-12-tide-tables` for the key `harbor-12-tide-tables`), or undefined when it has none.
 * Numbered names (`story-1.2.md`) are read by storyKeyFromName; this is for keys no number grammar reads.
 */
export function withoutStoryPrefix(name: string): string | undefined {
  const m = /^story[-_.]+(?=[a-z0-9])/i.exec(name);
  return m ? name.slice(m[0].length) : undefined;
}

/**
 * The ledger key a file is named by with a slug after it (`us-erp-01-05-completeness-ring` for the
 * key `US-ERP-01-05`): the longest of `keys` (lower case) the name starts with, followed by a dash.
 */
export function keyBeforeSlug(name: string, keys: ReadonlySet<string>): string | undefined {
  if (!keys.size) return undefined;
  const lower = name.toLowerCase();
  for (let i = lower.lastIndexOf('-'); i > 0; i = lower.lastIndexOf('-', i - 1)) {
    const k = lower.slice(0, i);
    if (keys.has(k)) return k;
  }
  return undefined;
}

/**
 * The id of a team's series a ledger key opens with, a slug after its number (`ISS-008-npc-dead-at-encounter`,
 * `bug-12-login-loop`, `td-cross-1-cache-keys`): `iss-008`, lower case; undefined for any other key
 * (`US-ERP-01-05` has no slug, `story-7-mend-the-nets` is v6 alpha's one-number story).
 */
export function seriesIdOf(key: string): string | undefined {
  const m = /^([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*-\d+)-[a-z]/i.exec(key);
  return m && !/^story-/i.test(m[1]) ? m[1].toLowerCase() : undefined;
}

/**
 * `# Story 1.2: title`, `# Story 3a.1 - title`, `# Story 0.5.1: title`, `# Story PM-01.1: title`, the
 * file name `# story-25.3: title`; an epic's letters joined to its number, as the file `E7.1.slug.md`
 * names it: `# Story E7.1 — title`; a story's letter and digit (`# Story 2.1e1: title`); the story's
 * number after its own letter, as the epic's after its (`# Story E1-S2: title`).
 */
const TITLE = /^#\s+Story(?:\s+|-(?=\d))((?:[a-z][a-z0-9]*-|[a-z]{1,3}(?=\d))?\d+[a-z]?(?:\.\d+[a-z]?)*)[.\-](?:s(?=\d))?(\d+)((?:[a-z]\d?)?)\b\s*[:\-–—]?\s*(.*?)\s*$/i;
/** A frontmatter title naming the story: `5.4 Agent Handoff`, `Story 2.9 — Metrics`, `Story 3a.1: Login`. */
const FM_TITLE = /^(?:Story\s+)?((?:[a-z][a-z0-9]*-)?\d+[a-z]?(?:\.\d+[a-z]?)*\.\d+[a-z]?)\b\s*[:\-–—.]?\s+(\S.*?)\s*$/i;
/** `# Epic 43: title`, `# EPIC 7 — report`, `# Epic 2`, `# Epic TEA-BUILTIN-001.7: …` (a team's series id): a heading naming an epic (a story's own title never starts so). */
/** `# Epic 7 Story 1: Sign-up` or `# Epic 7, Story 1 - Sign-up` (v4's brownfield story, named after its epic): story 7.1's title; groups as TITLE's. */
const EPIC_STORY_TITLE = /^#\s+Epic[ \t]+(\d{1,3}[a-z]?)[ \t]*[,.:\-–—]?[ \t]*Story[ \t]+(\d{1,3})([a-z]?)\b\s*[:\-–—]\s*(.*?)\s*$/i;
const EPIC_TITLE = /^#\s+(?:\*\*|__)?Epic[\s-]*(?:[a-z]+(?:-[a-z]+)+-|[a-z]{0,3}-?)\d+[a-z]?(?:\.\d+)*(?:\*\*|__)?\s*(?:[:\-–—|.]|$)/i;
/**
 * A title that gives no number, the file's name giving it: `# Story: Expense Capture` (a team's
 * own template), and v4's brownfield-create-story `#### Story Title` heading with the title on the
 * next line, or inline (`### **Story Title: Report Statistics - Brownfield Addition**`). A text
 * opening with a digit is a numbered title in another form: not read as this one.
 */
const UNNUMBERED_TITLE = /^#\s+(?:\*\*|__)?Story(?:\*\*|__)?\s*[:\-–—]\s*(?=[^\s\d])(.+?)\s*$/i;
const STORY_TITLE_HEADING = /^#{1,6}\s+(?:\*\*|__)?Story[ \t]+Title\b(?:\*\*|__)?\s*(?:[:：]\s*(.*?))?\s*$/i;
/**
 * A section recording the finished work in the Dev Agent Record's place (`## ✅ Implementation
 * Complete`, then `**Status**: COMPLETED ✅`): its own lines state the story's status, however far down.
 */
const COMPLETION_RECORD = /^(?:implementation|development) completed?$/;
/**
 * The Definition of Done of v4's brownfield-create-story, where the dev agent records the story's
 * status with the DoD checklist's results (`**Status:** Ready for Review`, then `**DoD Checklist Results:**`).
 */
const DOD_RECORD = /^definition of done$/;
/**
 * A team's series id as a story's title names it (`# Story TEA-AGENT-001.1: …`, `# Story:
 * TEA-STREAM-001.1 - …`, `# TEA-DOCS-002.1: …`, `# BUG.001: …`, `# Story TEA-AGENT-001.1-rust: …`):
 * the id, then the title after a colon or a spaced dash. The file's name starts with that id.
 */
const SERIES_TITLE = /^#\s+(?:(?:\*\*|__)?Story(?:\*\*|__)?\s*[:\-–—]?\s+)?([A-Za-z]+(?:[-_][A-Za-z]+)*[-.]\d{1,4}[a-z]?(?:\.\d{1,4}[a-z]?)*(?:-[A-Za-z]+)?)(?:\s*[:：]|\s+[-–—])\s*(.*?)\s*$/;
/** `Story ID: 003.02`, `## Story ID: 1.2`, `**Story ID:** 4.1`: the number a story's metadata gives it. */
const STORY_ID = /^\s*(?:#{1,6}\s+)?(?:[-*]\s+)?(?:\*\*|__)?Story[ \t]+ID(?:\*\*|__)?\s*[:：](?:\*\*|__)?\s*(\d{1,4}(?:\.\d{1,4}[a-z]?)+)\b/i;

/** The title of a file whose `Story ID:` line names the number it is named by: its first `#` heading. */
function storyIdTitle(s: StoryFile, lines: readonly string[], start: number): void {
  const own = `${s.epicId!.replace(/-/g, '.')}.${s.story}`;
  let h1: number | undefined;
  for (let i = start; i < Math.min(lines.length, start + 40); i++) {
    const line = lines[i].replace(/^\uFEFF/, '');
    if (h1 === undefined && /^#\s+\S/.test(line)) h1 = i;
    const m = STORY_ID.exec(line);
    if (!m) continue;
    if (h1 !== undefined && m[1].split('.').map((n) => n.replace(/^0+(?=\d)/, '')).join('.').toLowerCase() === own) {
      s.title = ownCopy(lines[h1].replace(/^\uFEFF/, '').replace(/^#\s+/, '').trim());
      s.titleLine = h1;
    }
    return;
  }
}

/** A `Status:` label at the start of a line (`Status:`, `**Status:**`, `- **Status**:`, `Story Status:`). */
const LABEL = new RegExp(`^\\s*(?:[-*]\\s+)?(?:\\*\\*|__|\\*(?!\\s)|_)?(?:(?:Story|Current)[ \\t]+)?${LABEL_WORD}(?:\\*\\*|__|\\*|_)?${COLON}(?:\\*\\*|__|\\*|_)?`, 'i');
/** `## Status: Done`, `## Story Status: Done`. */
const HEADING_STATUS = new RegExp(`^#{1,6}\\s+(?:\\*\\*|__)?(?:(?:Story|Current)[ \\t]+)?${LABEL_WORD}(?:\\*\\*|__)?${COLON}`, 'i');
/** `## Status`, `## Story Status`, `## Current Status`: the section that states it. */
const STATUS_HEADING = new RegExp(`^#{1,6}\\s+(?:\\*\\*|__)?(?:(?:Story|Current)[ \\t]+)?${LABEL_WORD}(?:\\*\\*|__)?(?:${COLON})?\\s*$`, 'i');
/** A blockquote's markers (`> `, `>> `): metadata quoted under the title (`> 状态: ready-for-dev`). */
const QUOTE = /^\s{0,3}(?:>[ \t]?)+/;
/** `**Story Status:** Ready to implement`: a label that names the story's status, wherever it is. */
const STORY_LABEL = new RegExp(`^\\s*(?:[-*]\\s+)?(?:\\*\\*|__)?Story[ \\t]+${LABEL_WORD}(?:\\*\\*|__)?${COLON}(?:\\*\\*|__)?`, 'i');
/** A `status: x` line of a fenced metadata block (`Status     : done`). */
const FENCED_STATUS = new RegExp(`^\\s*${LABEL_WORD}\\s*[:：]`, 'i');
/** The sections whose fenced block is the story's metadata. */
const METADATA_SECTION = /^(?:story[ \t]+)?(?:metadata|meta|information|info|details)$/i;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
/**
 * The emoji and symbols a heading is decorated with, before or after its words (`## 📅 Status`,
 * `## ✅ Tasks / Subtasks`, `## Status 📌`): not part of the section's title.
 */
const DECOR = /^[\p{Extended_Pictographic}\p{So}\uFE0F\u200D\s]+|[\p{Extended_Pictographic}\p{So}\uFE0F\u200D\s]+$/gu;
/** A heading's title without its decoration (the title itself when its ends are plain ASCII). */
function plainTitle(title: string): string {
  return title.charCodeAt(0) > 0x7f || title.charCodeAt(title.length - 1) > 0x7f ? title.replace(DECOR, '') : title;
}
/** White space as a regular expression's `\s` reads it. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x80 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));
}

/** Where a line's leading white space (`\s*`) ends. */
export function indentEnd(line: string): number {
  let i = 0;
  while (i < line.length && isSpace(line.charCodeAt(i))) i++;
  return i;
}

/**
 * A task's checkbox line, as `/^(\s*)[-*+]\s+\[([ xX])\]\s*(.*)$/` reads it, by index: where the
 * words start (the third group), or -1 when the line is no box; the indent ends at indentEnd, the
 * box is the first `[` after it, its mark the character after that. (The expression's match made
 * an array and three strings for each of ~30 boxes a story.)
 */
export function checkboxWords(line: string): number {
  const n = line.length;
  let i = indentEnd(line);
  const bullet = line.charCodeAt(i);
  if (bullet !== 0x2d && bullet !== 0x2a && bullet !== 0x2b) return -1;
  i++;
  if (i >= n || !isSpace(line.charCodeAt(i))) return -1;
  while (i < n && isSpace(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== 0x5b || line.charCodeAt(i + 2) !== 0x5d) return -1;
  const mark = line.charCodeAt(i + 1);
  if (mark !== 0x20 && mark !== 0x78 && mark !== 0x58) return -1;
  i += 3;
  while (i < n && isSpace(line.charCodeAt(i))) i++;
  // `.` stops at a line terminator: the words run to the line's end or it is no box.
  for (let j = i; j < n; j++) {
    const c = line.charCodeAt(j);
    if (c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029) return -1;
  }
  return i;
}
const FENCE = /^\s{0,3}(```|~~~)/;
const TASKS_HEADING = /^[^A-Za-z]*(tasks?\b|subtasks|implementation (tasks|plan|checklist)|task breakdown|development tasks)/i;
const CRITERIA_HEADING = /^[^A-Za-z]*acceptance criteria\b/i;
/** In a `## Status` section: a label naming the status in more words (`- **Current Status:** done`). */
const SECTION_LABEL = new RegExp(`^\\s*(?:[-*]\\s+)?(?:\\*\\*|__)?(?:[A-Za-z]+[ \\t]+){1,2}${LABEL_WORD}(?:\\*\\*|__)?${COLON}(?:\\*\\*|__)?`, 'i');
/** In a `## Status` section: the label of where the story is now (`**Current:** InProgress`, `**Atual:** …`), not of where it goes next. */
const CURRENT_LABEL = /^\s*(?:[-*]\s+)?(?:\*\*|__)?(?:Current|Now|Atual|Actual|Actuel|Aktuell|Attuale|Текущий|Текущее|当前|目前|現在|현재)(?:\*\*|__)?\s*[:：](?:\*\*|__)?/iu;
/** A `label: value` line of another field (`- **Completed:** 2026-01-20`, `Owner: Ana`, `**Próximo:** InReview`). */
const OTHER_FIELD = /^\s*(?:[-*]\s+)?(?:\*\*|__)?\p{L}[\p{L}\p{M}\p{N}_ ]{0,30}(?:\*\*|__)?\s*[:：](?:\*\*|__)?\s*\S/u;
/** A metadata table's Status row: `| Status | done |`, `| **Status** | Drafted |`. */
const TABLE_STATUS = new RegExp(`^\\s*\\|\\s*(?:\\*\\*|__)?\\s*${LABEL_WORD}\\s*(?:\\*\\*|__)?\\s*\\|`, 'i');
/** A table's header rule (`|---|---|`): the row above it names the columns. */
const TABLE_RULE = /^\s*\|?\s*:?-{3,}/;
/**
 * Sections about the work, not the story's state: a `Status:` there names something else (an ADR's
 * status under `## Technical Notes`, a criterion's under `## Acceptance Criteria`).
 */
const WORK_NOTES = /^(?:acceptance criteria\b|.*\bnotes?$)/i;
/** `**Status:** done` inside a metadata line with other fields. */
const INLINE_LABEL = new RegExp(`(?:\\*\\*|__)${LABEL_WORD}\\s*[:：]?(?:\\*\\*|__)\\s*[:：]?`);
/** A value that is the label word itself (`**Status**: Status`), no status. */
const LABEL_ONLY = new RegExp(`^${LABEL_WORD}$`, 'i');

/** Whether a value states where a story is: a story status word, or a word setting it aside. */
function statesStatus(value: string): boolean {
  return isStoryStatusWord(value) || setAsideStatus(value) !== undefined;
}

/** An arrow between two statuses. */
const ARROW = /\s*(?:-+>|=+>|→|⟶)\s*/g;

/** The status word after a label: emoji, bold and spaces skipped; `done ✅`, `backlog (deferred)` give the word. */
function statusAfter(line: string, from: number): { value: string; start: number } | undefined {
  const rest = line.slice(from);
  // `Backlog -> In Progress`, `Draft → Approved`: a transition; the status it went to is the story's.
  if (rest.includes('>') || rest.includes('→')) {
    let last: RegExpExecArray | null = null;
    for (const m of rest.matchAll(ARROW)) last = m;
    const to = last ? statusAfter(line, from + last.index! + last[0].length) : undefined;
    if (to && statesStatus(to.value)) return to;
  }
  const skip = /^[^\p{L}]*/u.exec(rest)![0].length;
  if (skip >= rest.length) return undefined;
  const m = STATUS_WORD.exec(rest.slice(skip));
  // (`_done_`: an underscore closing the word is emphasis, not part of it.)
  const value = (m?.[0] ?? /^\p{L}[\p{L}\p{M}\w-]*/u.exec(rest.slice(skip))?.[0] ?? '').trim().replace(/_+$/, '');
  if (!value || LABEL_ONLY.test(value)) return undefined;
  // `CONDITIONAL - Deferred pending Story 2.1`: a word of the team's own, then a status word after
  // a dash: the status word says where the story is.
  if (!statesStatus(value)) {
    // (`Phase 1 Components Complete - Ready for Integration`: the team's own words, a number among
    // them, then the status after the dash. A word that holds or sets the story aside keeps it.)
    const tail = line.slice(from + skip + value.length);
    const after = /^\s+[-—–]\s+/.exec(tail) ?? (SET_ASIDE.test(value) || /^blocked/i.test(value) ? null : /^[^-—–|]*?\s[-—–]\s+/.exec(tail));
    if (after) {
      const at = from + skip + value.length + after[0].length;
      // The longest run of up to three words that states a status (`In Progress`, `Ready for QA`).
      const words = /^[A-Za-z][A-Za-z-]*(?:[ ][A-Za-z][A-Za-z-]*){0,2}/.exec(line.slice(at))?.[0].split(' ') ?? [];
      for (let n = words.length; n > 0; n--) {
        const w = words.slice(0, n).join(' ');
        // (`PARTIAL - BLOCKED`: blocked is no BMAD word, but it says the work is not finished.)
        if (statesStatus(w) || /^blocked$/i.test(w)) return { value: w, start: at };
      }
    }
    // `✅ Story 4.5: Installation (Ready for Review)`: the story restated, its status in brackets
    // closing the line.
    const closing = /\(\s*([^()]+?)\s*\)[\s*_]*$/.exec(line.slice(from + skip + value.length));
    if (closing && statesStatus(closing[1])) {
      return { value: closing[1], start: from + skip + value.length + closing.index + closing[0].indexOf(closing[1]) };
    }
    // `Draft implementado por convocação da Assembleia`: a status word (up to three words: `In
    // Progress`, `Not started`), then the team's commentary with no separator: the word is the status.
    const lead = value.split(' ');
    for (let n = Math.min(3, lead.length - 1); n > 0; n--) {
      const w = lead.slice(0, n).join(' ');
      if (statesStatus(w)) return { value: w, start: from + skip };
    }
  }
  return { value, start: from + skip };
}

/** Words for a story the team set aside, as written (emoji and bold around them allowed). */
// A story no longer used (`Not used`, `Not needed`, `Unused`) or folded into another (`Merged into
// story 3-9`, `Consolidated into 3.9`) is set aside too; `Merged` alone is done (its pull request merged).
export const SET_ASIDE = /^[^\p{L}]*(deferred|postponed|shelved|suspended|cancell?ed|dropped|descoped|de-scoped|superseded|obsolete|archived|retired|quarantined|abandoned|skipped|deprecated|withdrawn|won'?t[- ]do|removed|reverted|rolled[- ]back|backed[- ]out|on[- ]hold|paused|parked|moved|relocated|migrated|replaced|not[- ]used|not[- ]needed|unused|(?:split|merged|consolidated|folded|absorbed|combined)(?=[- ]+into\b)|split(?=\s*$))\b/iu;
/** BMAD's story statuses as its ledger writes them: no word of SET_ASIDE starts one. */
const LEDGER_WORDS: ReadonlySet<string> = new Set(['backlog', 'ready-for-dev', 'in-progress', 'review', 'done', 'drafted', 'Done', 'Review', 'Backlog', 'Draft', 'Approved', 'InProgress', 'Ready for Review', 'Ready for Dev']);
/** Of those, the words for a story held for later rather than given up: backlog to the ledger. */
export const HELD = /^[^\p{L}]*(deferred|postponed|shelved|suspended|on[- ]hold|paused|parked)\b/iu;

/**
 * The status of a story its file sets aside, in the words the registry reads (`on-hold`,
 * `superseded`, `cancelled`…); undefined when the word sets nothing aside. A story split into
 * others, moved or migrated to another epic, or replaced by another, is superseded by them.
 */
export function setAsideStatus(word: string): string | undefined {
  // The ledger's own words set nothing aside: most stories' status, answered without compiling
  // SET_ASIDE (a case-insensitive Unicode expression) in a run that meets no other word.
  if (LEDGER_WORDS.has(word)) return undefined;
  const m = SET_ASIDE.exec(word.trim());
  if (!m) return undefined;
  const w = m[1].toLowerCase().replace(/\s+/g, '-').replace(/'/g, '');
  if (/^(split|moved|relocated|migrated|replaced|merged|consolidated|folded|absorbed|combined)$/.test(w)) return 'superseded';
  if (/^(not-used|not-needed|unused)$/.test(w)) return 'dropped';
  return w === 'archived' ? 'obsolete' : w === 'de-scoped' ? 'descoped' : w === 'canceled' ? 'cancelled' : w === 'on-hold' || w === 'onhold' ? 'on-hold' : w === 'rolled-back' || w === 'backed-out' ? 'reverted' : w;
}


/** The status word opening a paragraph's continuation line; not a new block (heading, list, table, quote, fence). */
function wrappedValue(next: string | undefined): { value: string; start: number } | undefined {
  if (next === undefined || !next.trim() || /^\s*(?:#|[-*+]\s|\d+[.)]\s|\||>|```|~~~)/.test(next)) return undefined;
  const v = statusAfter(next, 0);
  return v && statesStatus(v.value) ? v : undefined;
}

function setStatus(s: StoryFile, v: { value: string; start: number }, line: number, form: 'line' | 'section'): void {
  s.status = ownCopy(v.value);
  s.statusLine = line;
  s.statusStart = v.start;
  s.statusEnd = v.start + v.value.length;
  s.statusForm = form;
}

/** A thematic break (`---`, `***`, `___`, `- - -`), as CommonMark reads one. */
function isRule(line: string): boolean {
  const c = line.trimStart().charCodeAt(0);
  return (c === 0x2d || c === 0x2a || c === 0x5f) && /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(line);
}

/**
 * Parses a story file's text. Never throws. `taskTexts: 'firstOpen'` (the sprint's read) leaves every
 * task's `text` and `number` empty but the first open one's (not ticked, not struck through): the
 * sprint counts tasks and quotes that one only, and ~30 tasks' copies per story were most of what
 * 400 parses kept alive through the read.
 */
export function parseStory(file: string, text: string, opts?: { taskTexts?: 'all' | 'firstOpen'; taskList?: true }): StoryFile {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = splitLines(text);
  const byName = storyKeyFromName(file);
  const named = byName ?? storyKeyFromEpicFolder(file);
  const s: StoryFile = { file, key: named?.key, epic: named?.epic, epicId: named?.epicId, story: named?.story, tasks: [], hasFileList: false, hasChangeLog: false, hasDevAgentRecord: false, eol };
  if (named?.byContent) s.byContent = true;
  let start = 0;
  // Frontmatter (some teams add it): a `status:` key there counts when no Status line follows.
  let fmStatus: { value: string; line: number; start: number; end: number } | undefined;
  let fmTitle: { value: string; line: number } | undefined;
  let fmId: { value: string; line: number; rank: number } | undefined;
  if (lines[0]?.trim() === '---') {
    for (let i = 1; i < Math.min(lines.length, 200); i++) {
      if (lines[i].trim() === '---') {
        start = i + 1;
        break;
      }
      const t = /^title\s*:\s*(["']?)(.*?)\1\s*$/i.exec(lines[i]);
      if (t) fmTitle = { value: t[2], line: i };
      const id = FM_STORY_ID.exec(lines[i]);
      const rank = id ? FM_ID_KEYS.indexOf(id[1].toLowerCase()) : -1;
      if (id && /\d/.test(id[3]) && (!fmId || rank < fmId.rank)) fmId = { value: ownCopy(id[3]), line: i, rank };
      const m = /^(status\s*:\s*["']?)([^"'#\s][^"'#]*?)["']?\s*(#.*)?$/i.exec(lines[i]);
      // The word, as on a Status line: an emoji or mark before it (`✅ COMPLETED`) or a remark after it is not the status.
      const v = m ? statusAfter(lines[i], m[1].length) : undefined;
      if (v) fmStatus = { value: ownCopy(v.value), line: i, start: v.start, end: v.start + v.value.length };
      else if (m) fmStatus = { value: ownCopy(m[2].trim()), line: i, start: m[1].length, end: m[1].length + m[2].trim().length };
    }
  }
  const reader = new StoryReader(s, lines, start, fmStatus !== undefined, opts?.taskTexts !== 'firstOpen', opts?.taskList === true);
  reader.read();
  // (spec-kit's `tasks.md`: its boxes are the story's tasks; its status is the ledger's.)
  if (opts?.taskList) return { file, key: s.key, epic: s.epic, epicId: s.epicId, story: s.story, tasks: s.tasks, hasFileList: false, hasChangeLog: false, hasDevAgentRecord: false, eol, taskList: true };
  if (!named && ONE_NUMBER_NAME.test(path.basename(file))) oneNumberStory(s, lines, start);
  // (`UI-001-main-menu.md` titled `# Story: Main Menu` over `**Story ID:** UI-001`: a game pack's story.)
  if (!named && GAME_STORY_NAME.test(path.basename(file))) gameStory(s, lines, start);
  // (`2.feedback-layer.md` titled `# Story 2 — …`, `**Epic:** 2`: the epic's one story.)
  if (!named && EPIC_STORY_NAME.test(path.basename(file))) epicStory(s, lines, start);
  // No `# Story` heading: the frontmatter's `title: "5.4 Agent Handoff"` (`Story 2.9 — …`, BMAD
  // quick-dev's spec) is the title when its number is the one the file is named by.
  if (s.titleLine === undefined && fmTitle && s.epicId !== undefined && s.story !== undefined) {
    const t = FM_TITLE.exec(fmTitle.value);
    if (t && t[1].toLowerCase().replace(/-/g, '.') === `${s.epicId.replace(/-/g, '.')}.${s.story}`) {
      // (`title: "Story 1.1: project-scaffold-tooling"`: the file's slug, no title to show; the line still says it is the story.)
      s.title = /^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(t[2]) ? undefined : ownCopy(t[2]);
      s.titleLine = fmTitle.line;
      delete s.epicTitle;
    }
  }
  // No heading at all before it: the file's first line, plain text, naming the story by the number
  // the file is named by (`Story 1.3 – Settings Model` over a rule of box-drawing dashes, text pasted
  // from a chat, in `story-1.3.md`) is its title, as `# Story 1.3 – Settings Model` would be.
  if (s.titleLine === undefined && byName && s.epicId !== undefined && s.story !== undefined) plainFirstLineTitle(s, lines, start);
  // Numbered within its epic's folder, titled so too (`# Story 2: Fleet Calendar` in `epic-02/`).
  if (!byName && named && s.title === undefined) titleInEpic(s, lines, start);
  if (reader.sawCriteria && reader.sawTasks) s.storyContent = true;
  // No title naming the story and no status, but a `Story ID: 003.02` line naming the number the file
  // is named by (`003.02.test-units-constant.md` under `# Test UNITS Constant Implementation`): the
  // story, its first heading its title.
  if (s.title === undefined && s.titleLine === undefined && s.status === undefined && !s.epicTitle && s.epicId !== undefined && s.story !== undefined) storyIdTitle(s, lines, start);
  const storyLabel = reader.storyLabel;
  if (s.status === undefined && !fmStatus && storyLabel) setStatus(s, storyLabel, storyLabel.line, 'line');
  const trailer = reader.trailer;
  if (s.status === undefined && !fmStatus && trailer) setStatus(s, trailer, trailer.line, 'line');
  // No status anywhere else: the Status label on the file's last line, in one of its own sections (not
  // QA, notes or a subsection, nor a task's or criterion's item: an ADR's `Status: Accepted` is no story's).
  if (s.status === undefined && !fmStatus && reader.closing?.free) {
    reader.trailerLine(lines[reader.closing.line], reader.closing.line);
    const closing = reader.trailer;
    if (closing) setStatus(s, closing, closing.line, 'line');
  }
  if (s.status === undefined && fmStatus) {
    s.status = fmStatus.value;
    s.statusLine = fmStatus.line;
    s.statusStart = fmStatus.start;
    s.statusEnd = fmStatus.end;
    s.statusForm = 'frontmatter';
  } else if (fmStatus) s.frontmatterStatus = fmStatus;
  if (fmId) {
    s.frontmatterId = { value: fmId.value, line: fmId.line };
    // (Its content a story's too: a title calling it one, `# Tech Story D-01 — …`, or BMAD's user story or
    // its Acceptance Criteria and Tasks; `# Dev Auto Result` with `story: FTE-035` is a report about that story.)
    const titled = lines.slice(start, start + 60).find((l) => /^#\s/.test(l));
    const storyLike = (titled !== undefined && /\bstory\b/i.test(titled)) || s.storyContent === true || USER_STORY.test(lines.slice(start, start + 200).join('\n'));
    if (fmStatus && storyLike && s.key === undefined && !named && !s.noEpic && !s.epicTitle) frontmatterStory(s, fmId.value);
  }
  // A v4 QA verdict below the Status line (drift.ts furtherStatement and storyDrift read it).
  if (s.statusLine !== undefined && FINAL_STATUS_WORDS.test(text)) {
    const fin = finalStatusOf(lines, s.statusLine);
    if (fin) s.finalStatus = fin;
  }
  return s;
}

const FINAL_STATUS_WORDS = /final\s+status/i;

/** `Story 1.3 – Settings Model`: a plain line naming a story by its dotted number, then its title. */
const PLAIN_TITLE_LINE = /^(?:\*\*|__)?Story\s+(\d{1,3})\.(\d{1,3}[a-z]?)(?:\*\*|__)?\s*[:\-–—]\s*(\S.*?)\s*(?:\*\*|__)?\s*$/i;

/** The file's first non-blank line as its title (PLAIN_TITLE_LINE), when it is no heading and names the number the file is named by. */
function plainFirstLineTitle(s: StoryFile, lines: readonly string[], start: number): void {
  for (let i = start; i < Math.min(lines.length, start + 5); i++) {
    const line = lines[i].replace(/^\uFEFF/, '');
    if (!line.trim()) continue;
    const t = PLAIN_TITLE_LINE.exec(line.trim());
    if (t && `${Number(t[1])}` === s.epicId && t[2].toLowerCase().replace(/^0+(?=\d)/, '') === s.story) {
      s.title = ownCopy(t[3]);
      s.titleLine = i;
    }
    return;
  }
}

/**
 * The frontmatter keys that name a story's id, the first the most specific (`story:` may name it; `key:`
 * and `id:` are any record's: `id: AIOS-E-01` names the story only in a file whose content is a story's).
 */
const FM_ID_KEYS = ['story_key', 'story_id', 'storyid', 'story', 'key', 'id'];
/** `story_key: tech-d01-audit-log`, `story: AIOS-E-01`, `storyId: "3.2"`: one id, no spaces (a `story:` holding a title or a mapping is none). */
const FM_STORY_ID = /^(story_key|story_id|storyId|story|key|id)[ \t]*:[ \t]*(["']?)([A-Za-z0-9][A-Za-z0-9._-]*)\2[ \t]*(?:#.*)?$/i;

/**
 * A file no story grammar names, whose frontmatter names its story id beside a status
 * (`tech-d01-hop-web-api.md` with `story_key: tech-d01-hop-web-api`, `aios-e-01-hooks.md` with
 * `story: AIOS-E-01`): that story, keyed by the id. An id in BMAD's key grammar (`3-2-slug`, `3.2`)
 * is that epic's story; any other is a story of no epic (NO_EPIC), as a ledger key no grammar reads is.
 */
function frontmatterStory(s: StoryFile, id: string): void {
  const c = classifyStoryKey(id);
  s.key = id;
  if (c?.kind === 'story' && c.story !== undefined) {
    s.epic = c.epic;
    s.epicId = c.epicId;
    s.story = c.story;
  } else {
    s.epic = -1;
    s.epicId = NO_EPIC;
    s.story = id.toLowerCase();
  }
}

/**
 * parseStory's walk over a story's lines. The loop (`read`) is kept small and each kind of line
 * it rarely meets (a heading, a line of a `## Status` section, a line that may state the status, a
 * QA verdict, a task's box) is read by a method of its own: a first run parses hundreds of story
 * files in one process, and TurboFan compiled the loop written as one function of ~250 lines in
 * 100–300 ms of a background thread, the main thread parsing in the interpreter meanwhile; the
 * small loop is compiled sooner, and the rare readers are never compiled at all.
 */
class StoryReader {
  inFence = false;
  section = '';
  // What the section's title says, tested once per section rather than on each of its lines.
  qaSection = false;
  /** Whether the QA section's current subsection is titled for the gate (`#### QA Gate Decision`). */
  gateHeading = false;
  criteriaSection = false;
  /** Whether an Acceptance Criteria section, and a Tasks section, were seen. */
  sawCriteria = false;
  sawTasks = false;
  workNotesSection = false;
  sectionLevel = 0;
  inTasks = false;
  /** Level of an `Acceptance Criteria` heading inside a tasks section (0: none): its boxes are criteria, not tasks. */
  criteriaLevel = 0;
  reviewSection = false;
  awaitingStatus = false;
  // Under `## Status`, a checklist of the stages the story went through (`- [x] Draft`, `- [x] In Progress`, `- [ ] Done`).
  stageList = false;
  // A heading below the current `##` section's own (`### Completion Notes` in the Dev Agent Record).
  inSubsection = false;
  // The level of the file's sections: `##`, or `###` in a file that writes its sections one level
  // down (`### Story`, `### Tasks / Subtasks`, `### QA Results` under the title) until a `##` shows.
  sawH2 = false;
  /** The shallowest heading below the title seen so far (7: none yet). */
  topLevel = 7;
  sawH1 = false;
  sawStory = false;
  readonly counters: number[] = [];
  readonly indents: number[] = [];
  // A fence opened under `## Metadata`: its `status:` line is the story's (a fence anywhere else is code).
  metadataFence = false;
  // `**Story Status:** x` further down: the story's status when nothing above states one.
  storyLabel: { value: string; start: number; line: number } | undefined = undefined;
  // After a thematic break (`---`) with no heading since: the file's closing block, where some teams
  // keep the story's record (`---`, `**Status:** Done`, `**Completed:** …`); its Status label is the
  // story's when nothing else states one.
  afterRule = false;
  trailer: { value: string; start: number; line: number } | undefined = undefined;
  /**
   * The file's last line of text so far (no heading or fence after it), and whether it stands outside
   * the QA and notes sections, any subsection and the items of the tasks and criteria: a Status label
   * there closes the file as the story's record
   * (`**Status:** ✅ Concluída | **Data:** …` as a team's last line), as one after a `---` does.
   */
  closing: { line: number; free: boolean } | undefined = undefined;
  /** Under a setext heading (a paragraph underlined by `---` or `===`) since the last `#` heading. */
  setextSection = false;
  /** Whether the first open task was read (its words kept when not every task's are). */
  openQuoted = false;

  constructor(
    readonly s: StoryFile,
    readonly lines: string[],
    readonly start: number,
    /** Whether the frontmatter states a status. */
    readonly fmStatus: boolean,
    /** Whether every task keeps its text and number, or only the first open one (parseStory's `taskTexts`). */
    readonly allTaskTexts: boolean,
    /** The whole file is a task list (spec-kit's `tasks.md`): every section's boxes are tasks. */
    readonly taskList = false,
  ) {
    this.inTasks = taskList;
  }

  read(): void {
    const lines = this.lines;
    const s = this.s;
    for (let i = this.start; i < lines.length; i++) {
      const line = lines[i];
      if (mayBeFence(line) && FENCE.test(line)) {
        this.fence();
        this.closing = undefined;
        continue;
      }
      if (this.inFence) {
        if (this.metadataFence && s.status === undefined && !this.fmStatus) this.fencedStatus(line, i);
        continue;
      }
      // A byte-order mark before the first line's `#` (a file saved by some Windows editors) is no text of the heading.
      const bom = i === 0 && line.charCodeAt(0) === 0xfeff;
      const hl = bom ? line.slice(1) : line;
      const h = hl !== '' && hl.charCodeAt(0) === 0x23 ? HEADING.exec(hl) : null;
      if (h) {
        const before = s.statusLine;
        this.heading(h, hl, i);
        this.afterRule = false;
        this.trailer = undefined;
        this.closing = undefined;
        this.setextSection = false;
        // A status read from that heading keeps the file's columns (the mark is one of them).
        if (bom && before === undefined && s.statusLine === 0 && s.statusStart !== undefined && s.statusEnd !== undefined) {
          s.statusStart++;
          s.statusEnd++;
        }
        continue;
      }
      // A stage checklist ends at its first line that is not one of its boxes: that line is the section's text, not a status.
      if (this.awaitingStatus) {
        // (A Status label right after it, `**Story Status:** done`, states the status in so many words: it is read.)
        if (this.stageList && line.trim() && !/^\s*(?:[-*+]\s+)?\[[ xX]\]/.test(line) && !this.labelStatesStatus(line)) this.awaitingStatus = false;
        if (this.awaitingStatus) {
          this.statusSectionLine(line, i);
          continue;
        }
      }
      // (In the tasks or criteria, a list item is one of them; a plain label line after them closes the file.)
      // A line of `=` or `-` under a paragraph underlines a heading (setext): what follows is that
      // section's text, of a kind not read here (`Closing notes`), so its last line is no closing record.
      if (line.trim() && i > this.start && lines[i - 1].trim() && SETEXT_UNDERLINE.test(line)) {
        this.setextSection = true;
        this.closing = undefined;
      } else if (line.trim()) this.closing = { line: i, free: !this.setextSection && !this.qaSection && !(this.workNotesSection && !this.criteriaSection) && !this.inSubsection && !this.awaitingStatus && !((this.inTasks || this.criteriaSection) && /^\s*(?:[-*+]|\d+[.)])\s/.test(line)) };
      if (isRule(line) && (i === this.start || !lines[i - 1].trim())) {
        this.afterRule = true;
        continue;
      }
      if (this.afterRule && s.status === undefined && !this.fmStatus && !this.trailer) this.trailerLine(line, i);
      // The verdict of the story's last QA decision: `## QA Results`, or a later QA section that decides
      // again (`## QA Response` … `### Gate Status Update` … `Gate: PASS`).
      if (this.qaSection) this.qaLine(line);
      if (s.status === undefined) {
        const next = this.statusLine(line, i);
        if (next >= 0) {
          i = next;
          continue;
        }
      }
      if (this.inTasks && this.criteriaLevel === 0 && line.includes('[')) this.taskLine(line, i);
    }
  }

  fence(): void {
    this.inFence = !this.inFence;
    this.metadataFence = this.inFence && !this.inTasks && METADATA_SECTION.test(this.section.replace(/[^\p{L}\p{N} ]/gu, '').trim());
  }

  fencedStatus(line: string, i: number): void {
    const m = FENCED_STATUS.exec(line);
    const v = m ? statusAfter(line, m[0].length) : undefined;
    if (v) setStatus(this.s, v, i, 'line');
  }

  heading(h: RegExpExecArray, line: string, i: number): void {
    const s = this.s;
    const level = h[1].length;
    const title = plainTitle(h[2]);
    if ((s.title === undefined || s.status === undefined) && this.titleOrStatusHeading(h, title, line, i)) return;
    this.awaitingStatus = false;
    if (level === 2) this.sawH2 = true;
    if (level > 1 && level < this.topLevel) this.topLevel = level;
    // Sections are `##`, or `###` in a file that writes them one level down; a file whose headings
    // are all `####` or deeper (v4's brownfield-create-story: `#### User Story`, `#### Tasks`, …) has
    // its sections at its shallowest heading.
    const sectionTop = this.sawH2 ? 2 : Math.max(3, this.topLevel);
    this.inSubsection = level > sectionTop;
    // BMAD's tech-spec puts `### Tasks` and `### Acceptance Criteria` under `## Implementation Plan`.
    if (this.inTasks && level > this.sectionLevel && /^[^a-z]*implementation plan/.test(this.section)) {
      if (this.criteriaLevel && level <= this.criteriaLevel) this.criteriaLevel = 0;
      if (CRITERIA_HEADING.test(title)) this.criteriaLevel = level;
    }
    if ((level === sectionTop || (this.inTasks && level <= this.sectionLevel)) && level > 1) {
      const section = title.toLowerCase();
      this.section = section;
      this.qaSection = /^qa\b/.test(section);
      this.criteriaSection = CRITERIA_HEADING.test(section);
      this.workNotesSection = WORK_NOTES.test(section);
      this.sectionLevel = level;
      this.criteriaLevel = 0;
      this.inTasks = this.taskList || TASKS_HEADING.test(title);
      if (this.criteriaSection) this.sawCriteria = true;
      if (this.inTasks) this.sawTasks = true;
      this.reviewSection = /review follow-?ups?/i.test(section);
      this.gateHeading = false;
      this.counters.length = 0;
      this.indents.length = 0;
    }
    // A QA subsection titled for the gate (`#### QA Gate Decision`, `### Gate Status`): a Status label
    // under it states the gate's verdict (qaLine).
    else if (this.qaSection && level > sectionTop) this.gateHeading = /\bgate\b/i.test(title);
    // (The first letter before the expression: most titles start with none of the three.)
    const first = title === '' ? 0 : title.charCodeAt(0) | 0x20;
    if (first === 0x66 && /^file list/i.test(title)) s.hasFileList = true;
    if (first === 0x63 && /^change ?log/i.test(title)) s.hasChangeLog = true;
    if (first === 0x64 && /^dev agent record/i.test(title)) s.hasDevAgentRecord = true;
  }

  /**
   * A heading read while the story's title or status is not known yet: the title it may be; true
   * when it states the status or opens the section that does (nothing else is read of it then).
   */
  titleOrStatusHeading(h: RegExpExecArray, title: string, line: string, i: number): boolean {
    const s = this.s;
    // The heading as its words read (its decoration left out), and how far its words moved in
    // the line: a status read from it keeps the line's own columns.
    const heading = title === h[2] ? line : `${h[1]} ${title}`;
    const shift = title === h[2] ? 0 : line.indexOf(title, h[1].length) - (h[1].length + 1);
    if (s.title === undefined) {
      // (Its decoration left out: `# 📝 Story 7.1: Hero` is story 7.1's title.)
      // (`# **Story 2.2: Backend - Quests**`: the title in bold is the same title.)
      const t = TITLE.exec(heading) ?? (heading.includes('**') || heading.includes('__') ? TITLE.exec(heading.replace(/^(#\s+)(\*\*|__)(.+?)\2\s*$/, '$1$3')) : null) ?? EPIC_STORY_TITLE.exec(heading);
      if (t) {
        s.title = t[4] ? ownCopy(t[4]) : undefined;
        s.titleLine = i;
        delete s.epicTitle;
        if (s.epic === undefined) {
          s.epicId = t[1].toLowerCase().replace(/\./g, '-');
          s.epic = epicNumber(s.epicId);
          s.story = `${Number(t[2])}${t[3].toLowerCase()}`;
        }
      } else if (h[1].length === 1 && !this.sawH1 && !this.sawStory && s.titleLine === undefined && EPIC_TITLE.test(heading) && !/\bstory\b/i.test(heading)) s.epicTitle = true;
      else if (h[1].length === 1 && s.titleLine === undefined && this.seriesTitle(heading, i)) {
        this.sawStory = true;
        delete s.epicTitle;
      } else {
        // (`# Epic 1: Dashboard` then `## Story 1.1: Layout`, `## Story: Layout` or `### Story Title`: the story, written under its epic's name.)
        if (/^#{1,6}\s+(?:\*\*|__)?Story(?:[\s-]+[a-z]{0,3}-?\d|(?:\*\*|__)?\s*[:\-–—]|[ \t]+Title\b)/i.test(heading)) {
          this.sawStory = true;
          delete s.epicTitle;
        }
        this.unnumberedTitle(heading, i);
      }
    }
    if (h[1].length === 1) this.sawH1 = true;
    if (s.status === undefined && STATUS_HEADING.test(heading)) {
      this.awaitingStatus = true;
      this.stageList = false;
      return true;
    }
    const hs = s.status === undefined ? HEADING_STATUS.exec(heading) : null;
    const hv = hs ? statusAfter(line, hs[0].length + shift) : undefined;
    if (hv) {
      setStatus(s, hv, i, 'section');
      return true;
    }
    return false;
  }

  /** A title naming the team's series id the file is named by (SERIES_TITLE): the words after the id. */
  seriesTitle(heading: string, i: number): boolean {
    const t = SERIES_TITLE.exec(heading);
    if (!t) return false;
    const name = path.basename(this.s.file).toLowerCase();
    const id = t[1].toLowerCase();
    if (!name.startsWith(id) || !/^(?:[-._ ]|md$)/.test(name.slice(id.length))) return false;
    const title = t[2].replace(/^[*_\s]+|[*_\s]+$/g, '');
    if (title) this.s.title = ownCopy(title);
    this.s.titleLine = i;
    return true;
  }

  /** A title without a number (UNNUMBERED_TITLE, STORY_TITLE_HEADING): the story's title; its number is the file name's. */
  unnumberedTitle(heading: string, i: number): void {
    const s = this.s;
    const bare = (t: string) => t.replace(/^[*_\s]+|[*_\s]+$/g, '');
    const u = UNNUMBERED_TITLE.exec(heading);
    const named = u ? bare(u[1]) : '';
    if (named && !/^title\b/i.test(named)) {
      s.title = ownCopy(named);
      s.titleLine = i;
      return;
    }
    const h = STORY_TITLE_HEADING.exec(heading);
    if (!h) return;
    if (h[1] !== undefined && bare(h[1])) {
      s.title = ownCopy(bare(h[1]));
      s.titleLine = i;
      return;
    }
    // `#### Story Title`, a blank line, then the title (the template's `{{Specific Enhancement}} - Brownfield Addition`).
    for (let j = i + 1; j < Math.min(this.lines.length, i + 4); j++) {
      const line = this.lines[j].trim();
      if (!line) continue;
      if (/^(?:#|[-*+]\s|\d+[.)]\s|>|\||```|~~~)/.test(line)) return;
      const t = bare(line);
      if (t) {
        s.title = ownCopy(t);
        s.titleLine = j;
      }
      return;
    }
  }

  /** A line of a `## Status` section, read for the status it states. */
  statusSectionLine(line: string, i: number): void {
    const s = this.s;
    if (!line.trim() || /^\s*<!--.*-->\s*$/.test(line)) return;
    // A table under the heading (`| Field | Value |`, then `| **Status** | done |`): its Status
    // row gives the status; the other rows are read past.
    if (line.trimStart().startsWith('|')) {
      const row = TABLE_STATUS.exec(line);
      const v = row && !TABLE_RULE.test(this.lines[i + 1] ?? '') ? statusAfter(line, row[0].length) : undefined;
      if (v) {
        setStatus(s, v, i, 'section');
        this.awaitingStatus = false;
      }
      return;
    }
    // A checklist item (`- [x] Tasks/Subtasks completed`) is read past, unless it is a status word.
    const box = line.includes('[') ? /^\s*(?:[-*+]\s+)?\[[ xX]\]\s*(.*)$/.exec(line) : null;
    // …unless it is the Status label itself (`- [x] Status: done`).
    const boxLabel = box ? LABEL.exec(box[1]) : null;
    const bv = boxLabel ? statusAfter(line, line.length - box![1].length + boxLabel[0].length) : undefined;
    if (bv) {
      setStatus(s, bv, i, 'section');
      this.awaitingStatus = false;
      return;
    }
    // (A word for done, `Concluído`, `Finished`, or one setting the story aside is a stage too.)
    if (box && !statesStatus(box[1].trim())) return;
    // A box naming a stage (`- [x] Code Review`): the stages ticked are the ones the story went
    // through, so the last ticked one is where it is; an unticked stage is still ahead.
    if (box) {
      this.stageList = true;
      const bs = /\[[xX]\]/.test(line) ? statusAfter(line, line.length - box[1].length) : undefined;
      if (bs) setStatus(s, bs, i, 'section');
      return;
    }
    // Under the heading: `**Status:** done`, `- **Current Status:** done`, or the bare word; a
    // line of another field (`**Completed:** 2026-01-20`) is passed over.
    const label = LABEL.exec(line) ?? SECTION_LABEL.exec(line) ?? CURRENT_LABEL.exec(line) ?? INLINE_LABEL.exec(line);
    if (!label && OTHER_FIELD.test(line)) return;
    const v = statusAfter(line, label ? label.index + label[0].length : 0);
    // A bare line is the status when it is a few words or a status word; a sentence
    // (`- All acceptance criteria are met…`) is a note about it.
    if (v && (label || v.value.split(/\s+/).length <= 4 || normalizeStoryStatus(v.value).status !== undefined)) setStatus(s, v, i, 'section');
    this.awaitingStatus = false;
  }

  /** Whether the line is a Status label (`**Story Status:** done`) whose value states a status. */
  labelStatesStatus(line: string): boolean {
    const label = LABEL.exec(line) ?? SECTION_LABEL.exec(line);
    const v = label ? statusAfter(line, label.index + label[0].length) : undefined;
    return v !== undefined && statesStatus(v.value);
  }

  /** A line of the file's closing block: its Status label, if it states a status. */
  trailerLine(line: string, i: number): void {
    const label = line.includes(':') || line.includes('：') ? LABEL.exec(line) : null;
    const v = label ? statusAfter(line, label[0].length) : undefined;
    if (v && statesStatus(v.value)) this.trailer = { ...v, line: i };
  }

  qaLine(line: string): void {
    const g = /^\s*(?:[-*]\s+)?(?:\*\*|__)?Gate(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(PASS|CONCERNS|FAIL|WAIVED)\b/i.exec(line)
      // (Under a subsection titled for the gate, the team's label for its verdict: `#### QA Gate Decision`,
      // `**Status**: PASS ✅`; `Decision:`, `Verdict:` and `Result:` alike.)
      ?? (this.gateHeading ? /^\s*(?:[-*]\s+)?(?:\*\*|__)?(?:status|decision|verdict|result)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(PASS|CONCERNS|FAIL|WAIVED)\b/i.exec(line) : null);
    if (g) this.s.qaGate = g[1].toUpperCase();
  }

  /**
   * A line read while the story's status is not known yet: where it may state it. The line index
   * to go on after (the line itself, or the next one when the value was wrapped onto it) when the
   * status was found there, else -1 (the line is read on as any other).
   */
  statusLine(line: string, i: number): number {
    const s = this.s;
    const fmStatus = this.fmStatus;
    const section = this.section;
    if (!this.storyLabel && !fmStatus && !this.inTasks && !this.criteriaSection) {
      const m = STORY_LABEL.exec(line);
      const v = m ? statusAfter(line, m[0].length) : undefined;
      if (v) this.storyLabel = { ...v, line: i };
    }
    // A `Status:` label under the title, or near the top; with a frontmatter status, only under the
    // title (a `- **Status**: Review` line in a later Dev Agent Record is a log entry, not the story's).
    // Under the title, metadata may be quoted (`> **Status:** review`).
    if (!this.inTasks && (section === '' || (i - this.start < 40 && !fmStatus && !this.workNotesSection))) {
      const quote = section === '' ? QUOTE.exec(line)?.[0].length ?? 0 : 0;
      if (quote) {
        const label = LABEL.exec(line.slice(quote));
        const v = label ? statusAfter(line, quote + label[0].length) : undefined;
        if (v) {
          setStatus(s, v, i, 'line');
          return i;
        }
      }
      const label = LABEL.exec(line);
      // A metadata table near the top (`| **Status** | Drafted |`); not a header row naming a column.
      const row = label || !line.trimStart().startsWith('|') ? null : TABLE_STATUS.exec(line);
      const cell = row && !TABLE_RULE.test(this.lines[i + 1] ?? '') ? row : null;
      const inline = label || cell ? null : section === '' ? INLINE_LABEL.exec(line) : null;
      const at = label ? label[0].length : cell ? cell[0].length : inline ? inline.index + inline[0].length : -1;
      const v = at >= 0 ? statusAfter(line, at) : undefined;
      if (v) {
        setStatus(s, v, i, 'line');
        return i;
      }
      // A label closing its line, its value wrapped onto the next line of the paragraph
      // (`… **Status**:` then `Approved **Story Points**: 6`).
      const wrapped = at >= 0 && !cell && /^[\s*_]*$/.test(line.slice(at)) ? wrappedValue(this.lines[i + 1]) : undefined;
      if (wrapped) {
        setStatus(s, wrapped, i + 1, 'line');
        return i + 1;
      }
    }
    // The Dev Agent Record's own lines (not its log subsections), however far down: the dev agent
    // records the story's status there (`**Status:** DONE`, a `| Status | review |` row) when the
    // file states it nowhere above. With a frontmatter status, that is the story's.
    if (!fmStatus && !this.inSubsection && (section.startsWith('dev agent record') || COMPLETION_RECORD.test(section) || DOD_RECORD.test(section))) {
      const label = LABEL.exec(line);
      const row = label || !line.trimStart().startsWith('|') ? null : TABLE_STATUS.exec(line);
      const cell = row && !TABLE_RULE.test(this.lines[i + 1] ?? '') ? row : null;
      const v = label ? statusAfter(line, label[0].length) : cell ? statusAfter(line, cell[0].length) : undefined;
      if (v) {
        setStatus(s, v, i, 'line');
        return i;
      }
    }
    return -1;
  }

  /** A line of a tasks section with a `[`: a task's box, or not. */
  taskLine(line: string, i: number): void {
    const at = checkboxWords(line);
    if (at < 0) return;
    const lead = indentEnd(line);
    const box = line.indexOf('[', lead);
    const counters = this.counters;
    const indents = this.indents;
    let indent = lead;
    for (let k = 0; k < lead; k++) if (line.charCodeAt(k) === 0x09) indent += 3;
    while (indents.length && indents[indents.length - 1] > indent) {
      indents.pop();
      counters.pop();
    }
    if (!indents.length || indents[indents.length - 1] < indent) {
      indents.push(indent);
      counters.push(0);
    }
    counters[counters.length - 1]++;
    const checked = line.charCodeAt(box + 1) !== 0x20;
    // (The words start at `at`, white space before them read past: `~~` there is their start.)
    const dropped = !checked && line.charCodeAt(at) === 0x7e && line.charCodeAt(at + 1) === 0x7e && /^~~[^~]+~~/.test(line.slice(at));
    const kept = this.allTaskTexts || (!checked && !dropped && !this.openQuoted);
    if (kept && !checked && !dropped) this.openQuoted = true;
    const words = kept ? line.slice(at).trim() : '';
    const task: StoryTask = {
      // A copy: a slice points into the story's whole text and would keep it alive (model/text.ts ownCopy).
      line: i, boxColumn: box, checked, text: kept ? ownCopy(words) : '', depth: indents.length - 1,
      // (The box's own `[` is followed by its mark: in the whole line, `[AI-Review]` can only be in the words.)
      review: this.reviewSection || (line.indexOf('[', at) >= 0 && /\[AI-Review\]/i.test(line)),
      number: !kept ? '' : counters.length === 1 ? String(counters[0]) : counters.length === 2 ? `${counters[0]}.${counters[1]}` : counters.join('.'),
    };
    // (Set after, not spread in: a spread built an empty object for each of the ~30 tasks of a story.)
    if (dropped) task.dropped = true;
    this.s.tasks.push(task);
  }
}

/** A status a story file states in BMAD's words or a known variant (`Done`, `Completed`, `Draft`). */
export function isStoryStatusWord(status: string | undefined): boolean {
  if (status === undefined) return false;
  const n = normalizeStoryStatus(status);
  return n.status !== undefined || n.suggestion !== undefined;
}

/**
 * Story status words mapped to the ledger vocabulary. v4 words (`Draft`, `Approved`, `InProgress`,
 * `Review`, `Done`) and BMAD's legacy ones map; anything else is `undefined` (outside the vocabulary).
 */
export function normalizeStoryStatus(raw: string): { status?: string; exact: boolean; suggestion?: string } {
  const word = (STATUS_WORD.exec(raw.trim())?.[0] ?? raw).trim();
  const w = word.toLowerCase().replace(/[_\s]+/g, '-').replace(/\.$/, '');
  const exact: Record<string, string> = { backlog: 'backlog', 'ready-for-dev': 'ready-for-dev', 'in-progress': 'in-progress', review: 'review', done: 'done' };
  if (exact[w]) return { status: exact[w], exact: true };
  const local = localStatusWord(w);
  if (local === 'done') return { exact: false, suggestion: 'done' };
  if (local) return { status: local, exact: false };
  const mapped: Record<string, string> = {
    drafted: 'ready-for-dev', contexted: 'in-progress', draft: 'ready-for-dev',
    // v6 alpha.0's story-context set a Draft to `ContextReadyDraft`: drafted, its context ready, not yet started.
    contextreadydraft: 'ready-for-dev', approved: 'ready-for-dev', approve: 'ready-for-dev', ready: 'ready-for-dev', 'ready-for-development': 'ready-for-dev', 'ready-for-implementation': 'ready-for-dev', 'ready-to-start': 'ready-for-dev',
    todo: 'backlog', 'to-do': 'backlog', 'not-started': 'backlog', planned: 'backlog', pending: 'backlog', queued: 'backlog', 'not-yet-started': 'backlog',
    // A tracker's words: an open or new item is not started yet; a reopened one is under way again.
    open: 'backlog', new: 'backlog', reopened: 'in-progress', 're-opened': 'in-progress',
    inprogress: 'in-progress', 'in-development': 'in-progress', 'in-dev': 'in-progress', wip: 'in-progress', started: 'in-progress',
    // The work under way in the words trackers use (`Active`, `Doing`, `Implementing`).
    active: 'in-progress', doing: 'in-progress', implementing: 'in-progress',
    // Development finished, waiting for code review (the step before done in BMAD's dev → review → done).
    'dev-complete': 'review', 'dev-done': 'review', 'dev-ready': 'ready-for-dev',
    'in-review': 'review', 'ready-for-review': 'review', 'review-ready': 'review', 'ready-review': 'review', 'under-review': 'review', 'code-review': 'review', 'review-pending': 'review',
  };
  if (mapped[w]) return { status: mapped[w], exact: false };
  // `Approved with amendments`, `Done with known issues`: a status, then what qualifies it.
  const qualified = /^([a-z]+(?:-[a-z]+)?)-with-[a-z]/.exec(w)?.[1];
  if (qualified) {
    const head = normalizeStoryStatus(qualified);
    if (head.status !== undefined || head.suggestion !== undefined) return { ...head, exact: false };
  }
  // `Ready for <what comes next>`: development (`dev`, `implementation`, `work`) is ready-for-dev;
  // anything after development (`Ready for Testing`, `Ready for QA Validation`, `Ready for Done`,
  // `Ready for Manual Testing`) waits on a check: review. `Approved for Dev` is v4's Approved, said
  // with what it is approved for.
  const DEV = /^(dev|development|implementation|implement|work|start|coding|build|sprint|pickup|pick-up)(-|$)/;
  // Ready for what comes after review (`Production Ready`, `Ready for Production`, `Ready to Ship`): finished.
  if (/^(?:production|prod)-ready(?:-|$)|^ready-(?:for|to)-(?:production|prod|release|deploy|deployment|launch|go-live|ship|shipping)$/.test(w)) return { exact: false, suggestion: 'done' };
  // The joiner mistyped or shortened (`Ready vs Dev`, `Ready 4 Dev`, `Ready fo Dev`) still names development.
  const next = /^ready-(?:for|to)-(.+)$/.exec(w)?.[1];
  if (next) return { status: DEV.test(next) ? 'ready-for-dev' : 'review', exact: false };
  const mistyped = /^ready-(?:fo|fr|vs|4|2|f)-(.+)$/.exec(w)?.[1];
  if (mistyped && DEV.test(mistyped)) return { status: 'ready-for-dev', exact: false };
  const approvedFor = /^approved-(?:for|to)-(.+)$/.exec(w)?.[1];
  if (approvedFor && DEV.test(approvedFor)) return { status: 'ready-for-dev', exact: false };
  // Approved for what comes after review (`Approved for Production`, `Approved for Release`): finished.
  if (approvedFor && /^(production|prod|release|deploy|deployment|launch|go-live|ship|shipping|merge)(-|$)/.test(approvedFor)) return { exact: false, suggestion: 'done' };
  // QA is the review stage: a story in QA (`QA`, `In QA`, `QA Review`, `In Testing`) waits on it, one
  // QA passed (`QA Approved`, `QA Passed`, `QA Complete`) has passed it, as `review-passed` has.
  if (/^(?:in-)?(?:qa|testing)(?:-(?:review|pending|in-progress|testing))?$/.test(w)) return { status: 'review', exact: false };
  // The work being checked in a team's own word (`Verifying`, `In Verification`, `Validating`): review, as
  // QA is; the past tense (`Checked`, `Verified`) may be the check passed, so it is not read so.
  if (/^(?:verifying|validating|(?:in|under)-(?:verification|validation))$/.test(w)) return { status: 'review', exact: false };
  if (/^qa-(?:approved|passed|pass|complete|completed|done|verified|accepted|signed-off)$/.test(w)) return { exact: false, suggestion: 'done' };
  // The review's verdict after the word (`review-approved`, `Code Review Accepted`): the review
  // passed, as `review-passed` says, so the story is finished.
  if (/^(?:code-|peer-)?review-(?:approved|accepted)$/.test(w)) return { exact: false, suggestion: 'done' };
  // `<stage> complete`: development done is review (BMAD's dev-complete); planning or drafting done is
  // ready-for-dev; part of it done is in-progress.
  const stage = /^(.+?)-(?:complete|completed|done|finished)$/.exec(w)?.[1];
  if (stage && /^(implementation|development|dev|code|coding|build)$/.test(stage)) return { status: 'review', exact: false };
  if (stage && /^(planning|plan|design|spec|specification|story|draft|drafting|refinement|refined|grooming|analysis)$/.test(stage)) return { status: 'ready-for-dev', exact: false };
  if (stage && /^(partially|partly|mostly|half)$/.test(stage)) return { status: 'in-progress', exact: false };
  // Any other stage complete (`Research Complete` on a spike, `Testing Complete`, `Epic Done`): the
  // story's own work is finished, as `complete` alone says.
  if (stage && !/^(not|in|un|almost|nearly|partial)$/.test(stage)) return { exact: false, suggestion: 'done' };
  // `Mostly implemented`, `Partially implemented`: part of it built is in progress.
  if (/^(partially|partly|mostly|half)-(implemented|built|delivered)$/.test(w)) return { status: 'in-progress', exact: false };
  // `Future Story`, `Future`: written down for later (BMAD's backlog).
  if (/^future(-story|-work|-release)?$/.test(w)) return { status: 'backlog', exact: false };
  // `Production deployed`, `Deployed to production`, `Live in production`: shipped, as `deployed` is.
  if (/^(?:production|prod)-deployed$|^deployed-(?:to|in|on)-(?:production|prod)$|^live(?:-in-(?:production|prod))?$/.test(w)) return { exact: false, suggestion: 'done' };
  // `partial-complete-handoff-to-2.9.2`, `Partially done (backend only)`: part of it done is in-progress.
  if (/^(partial|partially|partly)-(complete|completed|done|finished|implemented)(-|$)/.test(w)) return { status: 'in-progress', exact: false };
  // `Proposed`: written down, not yet taken up (BMAD's backlog).
  if (w === 'proposed') return { status: 'backlog', exact: false };
  // `Ready for QA Re-Review`, `Awaiting review`, `peer-review`: waiting for a review.
  if (/(^|-)review$/.test(w)) return { status: 'review', exact: false };
  // (`Published`: out in the world, as `released` and `shipped` are.)
  const doneLike = ['complete', 'completed', 'reviewed', 'finished', 'closed', 'merged', 'shipped', 'implemented', 'accepted', 'done-', 'review-passed', 'passed', 'qa-passed', 'verified', 'released', 'published', 'deployed', 'fixed', 'resolved'];
  if (doneLike.includes(w) || /^(done|complete)/.test(w)) return { exact: false, suggestion: 'done' };
  // `ReadyForReview`, `InReview`: one CamelCase word, read by its words.
  const words = camelWords(word);
  if (words !== undefined) return { ...normalizeStoryStatus(words), exact: false };
  return { exact: false };
}

/**
 * Status words in the languages BMAD writes documents in, by meaning (accents dropped, spaces as
 * dashes). Words for done are read like `Completed` (a suggestion, never inferred against open
 * tasks); the others like their English words. Chinese and Japanese write no spaces: a word that
 * starts with one of theirs (`已完成并发布`) means it.
 */
const LOCAL_STATUS: [string, string[]][] = [
  // (`Livrée`, `Entregado`, `Geliefert`: delivered, as `delivered` is done.)
  ['done', ['termine', 'terminee', 'fait', 'fini', 'acheve', 'valide', 'validee', 'livre', 'livree', 'entregado', 'entregada', 'entregue', 'consegnato', 'consegnata', 'geliefert', 'ausgeliefert', 'completado', 'completada', 'terminado', 'terminada', 'hecho', 'finalizado', 'finalizada', 'concluido', 'concluida', 'feito', 'completato', 'completata', 'fatto', 'erledigt', 'abgeschlossen', 'fertig', 'implementado', 'implementada', 'implemente', 'implementee', 'completo', 'completa', 'befejezett', 'готово', 'выполнено', 'завершено', 'сделано', '완료']],
  ['in-progress', ['en-cours', 'en-progreso', 'en-curso', 'em-andamento', 'em-progresso', 'em-desenvolvimento', 'en-desarrollo', 'en-developpement', 'in-corso', 'in-arbeit', 'in-bearbeitung', 'в-работе', 'в-процессе', '진행중', '진행-중']],
  ['review', ['en-revue', 'en-revision', 'em-revisao', 'in-revisione', 'на-ревью', 'на-проверке', '검토중', '검토-중']],
  ['ready-for-dev', ['pret', 'pret-pour-dev', 'pret-pour-developpement', 'pret-pour-le-developpement', 'approuve', 'approuvee', 'listo', 'listo-para-desarrollo', 'aprobado', 'aprobada', 'pronto', 'pronto-para-desenvolvimento', 'aprovado', 'aprovada', 'approvato']],
  ['backlog', ['a-faire', 'en-attente', 'pendiente', 'por-hacer', 'pendente', 'a-fazer', 'da-fare']],
];
const LOCAL_CJK: [string, RegExp][] = [
  ['review', /^(开发完成|開發完成|开发已完成|审核中|審核中|评审中|評審中|待评审|待審查|待审核|审查中|代码审查|レビュー中|レビュー待ち)/],
  ['done', /^(已完成|完成|已实现|已交付|已上线|完了|済み|完毕|已结束)/],
  // Reviewed and sent back for fixes (`已审核待修复`) is work in progress, as BMAD's code review sends it.
  ['in-progress', /^(进行中|進行中|开发中|開發中|实施中|實施中|處理中|处理中|対応中|作業中|修复中|修復中|(?:已审核|已審核|已评审|已評審)?(?:待修复|待修復|需修复|需修復|待修改|需修改))/],
  // `待X`, awaiting X: to be developed or implemented is ready for development; to be started, planned.
  ['ready-for-dev', /^(待开发|待開發|待实施|待實施|待实现|待實現|就绪|就緒|准备就绪|準備完了|准备开始|準備開始|可开发|已批准)/],
  // `未X`, not yet X: not started, not implemented, not developed.
  ['backlog', /^(待办|待辦|待开始|待開始|待定|计划中|計畫中|未(?:开始|開始|着手|实现|實現|实施|實施|开发|開發|启动|啟動))/],
];
/**
 * `Pronto para Revisão`, `Listo para despliegue`, `Prêt à déployer`, `Bereit für Deployment`,
 * `Aguardando revisão`: ready for (or awaiting) something, in the languages BMAD writes documents
 * in, read as its English words are (`Ready for review`, `Ready for deploy`: normalizeStoryStatus),
 * accents dropped, spaces as dashes. What it is ready for is put in English word by word (a
 * loanword such as `deploy` or `QA` is English already); development is ready-for-dev, a check
 * waits on it (review), what comes after review (deploy, release, production) is finished.
 */
function readyFor(w: string): string | undefined {
  const m = READY_FOR.exec(w);
  // (`deploy em produção`: the first word says what; the rest is where or how. A word not known here
  // says nothing: `Aguardando decisão do cliente` stays as written.)
  const english = m ? READY_OBJECT.get(m[2]) : undefined;
  if (!english) return undefined;
  // Awaiting is ready for only when what is awaited is a check (`Aguardando revisão`).
  if (!m![1] && english !== 'review' && english !== 'testing') return undefined;
  const r = normalizeStoryStatus(`ready-for-${english}`);
  return r.status ?? r.suggestion;
}
/** `<ready> <for> [<article>] <what>`, or `<awaiting> [<article>] <what>`: what it is ready for. */
const READY_FOR = /^(?:((?:prontos?|prontas?|listos?|listas?|prets?|pretes?|bereit|pronti|pronte)-(?:para|pra|pour|per|a|zur|zum|zu|fur|fuer))|aguardando|esperando|en-attente-de|in-attesa-di|wartet-auf)-(?:(?:a|o|os|as|la|le|les|el|los|las|l|il|lo|i|gli|der|die|das|dem|den)-)?([a-z]+)(?:-[a-z-]*)?$/;
/**
 * The first word of what a status is ready for, in English (the words normalizeStoryStatus reads
 * after `ready-for-`); the English words teams keep in their own language (`deploy`, `QA`) as they are.
 */
const READY_OBJECT = new Map<string, string>([
  ...['deploy', 'deployment', 'release', 'production', 'prod', 'launch', 'ship', 'shipping', 'merge', 'qa', 'uat', 'review', 'testing', 'test', 'tests', 'dev', 'development', 'implementation'].map((x): [string, string] => [x, x]),
  ...['revisao', 'revision', 'revue', 'relecture', 'revisione', 'prufung', 'pruefung', 'validacao', 'validacion', 'validation', 'validazione', 'verifica', 'verificacao', 'verificacion', 'verification', 'homologacao', 'homologacion', 'recette', 'abnahme', 'collaudo'].map((x): [string, string] => [x, 'review']),
  ...['teste', 'testes', 'testar', 'prueba', 'pruebas', 'probar', 'tests', 'tester', 'testen', 'testing'].map((x): [string, string] => [x, 'testing']),
  ...['desenvolvimento', 'desenvolver', 'desarrollo', 'desarrollar', 'developpement', 'developper', 'sviluppo', 'sviluppare', 'entwicklung', 'entwickeln', 'implementacao', 'implementar', 'implementacion', 'implementer', 'implementazione', 'implementare', 'implementierung', 'implementieren', 'umsetzung', 'codificacao', 'codificacion', 'comecar', 'iniciar', 'empezar', 'comenzar', 'commencer', 'demarrer', 'beginnen', 'starten', 'iniziare', 'cominciare'].map((x): [string, string] => [x, 'development']),
  ...['implantacao', 'implantar', 'despliegue', 'desplegar', 'deploiement', 'deployer', 'bereitstellung', 'bereitstellen', 'rilascio', 'rilasciare', 'lancamento', 'lancar', 'lanzamiento', 'lanzar', 'lancement', 'lancer', 'veroffentlichung', 'veroffentlichen', 'publicacao', 'publicar', 'publicacion', 'publication', 'publier', 'pubblicazione', 'pubblicare', 'liberacao', 'liberar'].map((x): [string, string] => [x, 'deploy']),
  ...['producao', 'produccion', 'produzione', 'produktion'].map((x): [string, string] => [x, 'production']),
  ['go', 'go-live'],
]);

/**
 * `<stage> concluída` (`Estrutura concluída`, `Desarrollo completado`, `Développement terminé`): read
 * as `<stage> complete` is (normalizeStoryStatus): development done is review, planning or drafting
 * done is ready-for-dev, part of it done is in-progress, a stage negated (`Não concluído`) says
 * nothing, any other stage done is done.
 */
function stageDone(w: string): string | undefined {
  const m = /^(.+)-([^-]+)$/.exec(w);
  if (!m || localWords.get(m[2]) !== 'done') return undefined;
  const stage = m[1];
  // A stage is a word or two (`estrutura`, `fase-de-testes`), not a status itself (`Draft implementado
  // por …` is a Draft with the team's commentary) nor a mark (`β→α concluído`).
  if (!/^[a-z]{3,}(?:-[a-z]{2,}){0,3}$/.test(stage) || /^(?:nao|no|non|pas|nicht|ne-pas|nem)(?:-|$)/.test(stage)) return undefined;
  const own = normalizeStoryStatus(stage);
  if (own.status !== undefined || own.suggestion !== undefined) return undefined;
  if (/^(?:implementacao|implementacion|implementazione|implementierung|desenvolvimento|desarrollo|developpement|sviluppo|entwicklung|codigo|codificacao|codificacion|code)$/.test(stage)) return 'review';
  if (/^(?:planejamento|planificacion|planeacion|planification|pianificazione|planung|especificacao|especificacion|specification|rascunho|borrador|brouillon|redacao|redaccion|redaction|analise|analisis|analyse)$/.test(stage)) return 'ready-for-dev';
  if (/^(?:parcialmente|parcial|quase|casi|presque|partiellement|partiel|parzialmente|teilweise|meio)$/.test(stage)) return 'in-progress';
  return 'done';
}
const localWords = new Map<string, string>(LOCAL_STATUS.flatMap(([status, words]) => words.map((x): [string, string] => [x, status])));

function localStatusWord(w: string): string | undefined {
  const plain = w.normalize('NFD').replace(/\p{M}/gu, '');
  return localWords.get(plain) ?? LOCAL_CJK.find(([, re]) => re.test(plain))?.[0] ?? readyFor(plain) ?? stageDone(plain);
}

/** Whether a task is work still to do: unticked and not struck through (StoryTask.dropped). */
export function taskOpen(t: StoryTask): boolean {
  return !t.checked && !t.dropped;
}

/** Progress of a story's tasks: all checkboxes but those struck through, and review follow-ups apart. */
export function taskProgress(tasks: StoryTask[]): { done: number; total: number; reviewOpen: number } {
  let done = 0;
  let reviewOpen = 0;
  let dropped = 0;
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i];
    if (t.checked) done++;
    else if (t.dropped) dropped++;
    else if (t.review) reviewOpen++;
  }
  return { done, total: tasks.length - dropped, reviewOpen };
}

/** Finds a task by number (`2`, `2.1`), by 1-based index (`#3`) or by unique text fragment. */
export function findTask(tasks: StoryTask[], ref: string): StoryTask | { error: string } {
  const r = ref.trim();
  if (/^\d+(\.\d+)*$/.test(r)) {
    const t = tasks.find((x) => x.number === r);
    return t ?? { error: `no task numbered ${r} (tasks: ${tasks.filter((x) => x.depth === 0).map((x) => x.number).join(', ') || 'none'})` };
  }
  if (/^#\d+$/.test(r)) {
    const t = tasks[Number(r.slice(1)) - 1];
    return t ?? { error: `no checkbox #${r.slice(1)} (the story has ${tasks.length})` };
  }
  const needle = r.toLowerCase();
  const hits = tasks.filter((x) => x.text.toLowerCase().includes(needle));
  if (hits.length === 1) return hits[0];
  if (hits.length === 0) return { error: `no task mentions ${quoted(r)}` };
  return { error: `${quoted(r)} matches ${hits.length} tasks (${hits.slice(0, 4).map((h) => h.number).join(', ')}); give its number` };
}

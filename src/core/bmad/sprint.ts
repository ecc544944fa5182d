/**
 * Finds and reads one project's implementation ledgers where its BMAD config puts them, and
 * builds the sprint model (drift.ts). Reads only; small bounded folder walks; never throws on
 * bad content. `checkSprintProposal` runs the same rules on a proposed edit (agent hooks).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { realOrResolved, relStaysInside } from '../store/safePath';
import type { Problem } from '../types';
import { entryPath, findBmadProjects, loadBmadConfig, normalDir, OLD_COPY_DIR, projectPath, RETIRED_DIR, type BmadConfig } from './config';
import { listsStories, listsWork, normEpicId, parseLedger, readAsStoryOfNoEpic, type Ledger } from './ledger';
import { EPIC_STORY_NAME, GAME_STORY_NAME, isStoryStatusWord, keyBeforeSlug, ONE_NUMBER_NAME, parseStory, seriesIdOf, withNoEpic, storyKeyFromEpicFolder, storyKeyFromName, withoutStoryPrefix, type StoryFile } from './story';
import { parseEpics, type PlannedEpic } from './epics';
import { parseGateDecision, parseQaGate, type StoryGate } from './qaGates';
import { buildSprint, FM_NONE, ledgerCoverage, patchStoryFiles, storyFileIdentity, type SprintModel, type SprintStory } from './drift';
import { resolveStoryRef } from './storyRef';
import { cachedSprint, type Patcher, recordingList, recordingParse, recordingKind, recordingProbe, recordingRead, recordingRealPath, recordTime, cacheFilesEnabled } from './sprintCache';
import { readConfigSync } from '../store/configFile';
import { readTicketTree } from './tree/reader';
import { treeProblems } from './tree/checks';
import { migrateCheck } from './tree/migrateCheck';
import type { WaymarkConfig } from '../model/config';
import { clipMessages, compareText } from '../model/text';

/** Where the BMAD install and output are, by the workspace's `bmad.dir` / `bmad.output`. */
function bmadSettings(root: string, opts: SprintOptions): { installDir: string; outputDir: string } {
  const bmad = (opts.config ?? readConfigSync(root)).bmad;
  return { installDir: bmad.dir, outputDir: bmad.output };
}

export interface SprintReport extends SprintModel {
  root: string;
  config: BmadConfig;
  /** Absolute path of `sprint-status.yaml`, when found (the first of `ledgerFiles`). */
  ledgerFile?: string;
  ledger?: Ledger;
  /** Every ledger read: one, or one per module where a project keeps several (`docs/modules/*\/sprint-status.yaml`). */
  ledgerFiles: string[];
  ledgers: Ledger[];
  /** Folders story files were looked for in. */
  storyDirs: string[];
  epicsFiles: string[];
  /** Every file the model was read from (watchers use it). */
  files: string[];
}

export interface SprintOptions {
  now?: Date;
  /** Days after which the ledger is stale while work is in progress (default 7, BMAD's). */
  staleDays?: number;
  /**
   * The workspace's loaded configuration (the core passes its context's); when absent it is
   * read from the project's `.waymark/config.yaml`. Callers never pass settings of their own.
   */
  config?: Pick<WaymarkConfig, 'bmad'>;
  /** Text to use instead of a file's content (an unsaved editor, a proposed edit). */
  overrides?: Map<string, string>;
  /**
   * Reuse the built sprint from `.waymark/cache/bmad-sprint.bin` while its inputs are unchanged
   * (sprintCache.ts). Off unless asked: only the read verbs of a trusted workspace ask (a hook, a
   * write's check or a review writes no cache file); off too with overrides or `WAYMARK_SCAN_INDEX=0`.
   */
  cache?: boolean;
}

const MAX_FILE = 4 * 1024 * 1024;
const SPRINT_PARSE = { taskTexts: 'firstOpen' } as const;
const SKIP_DIRS = new Set(['node_modules', '.git', '.waymark', 'dist', 'build', 'out', '.next', 'vendor', 'target', '.venv', 'venv', '__pycache__']);

function readText(file: string, overrides?: Map<string, string>): string | undefined {
  const o = overrides?.get(file);
  if (o !== undefined) return o;
  return recordingRead(file, MAX_FILE);
}

// File system reads go through sprintCache's recorders, so a cached sprint knows its inputs.
const listDir = recordingList;
const isRegularFile = (p: string) => recordingProbe(p, 'f');
const isDirectory = (p: string) => recordingProbe(p, 'd');

function inside(root: string, p: string): boolean {
  return relStaysInside(path.relative(root, p));
}

/** Bounded walk for files named `name` (depth 5, skipping dependency and build folders). */
/**
 * A documentation folder kept hidden (`.docs/`, `.doc/`, `.documentation/`): the team's docs, walked
 * as `docs/` is. Every other hidden folder is a tool's (`.git`, `.github`, `.vscode`, `.idea`, caches,
 * virtual environments, agents' folders) and stays skipped.
 */
const HIDDEN_DOCS = /^\.(?:docs?|documentation)$/i;

function findNamed(root: string, name: RegExp, depth = 4, limit = 200): string[] {
  const out: string[] = [];
  const walk = (dir: string, d: number) => {
    if (d > depth || out.length >= limit) return;
    for (const e of listDir(dir)) {
      if (e.isDirectory()) {
        if (SKIP_DIRS.has(e.name) || RETIRED_DIR.test(e.name) || (e.name.startsWith('.') && e.name !== '.bmad-core' && !HIDDEN_DOCS.test(e.name))) continue;
        const sub = path.join(dir, e.name);
        // Another project (its own repository) nested inside is not this project's ledger.
        if (isRegularFile(path.join(sub, '.git')) || isDirectory(path.join(sub, '.git'))) continue;
        walk(sub, d + 1);
      } else if (!name.test(e.name)) continue;
      else if (e.isFile()) out.push(path.join(dir, e.name));
      else if (e.isSymbolicLink()) {
        const real = linkedFileInside(root, path.join(dir, e.name));
        if (real) links.push([path.join(dir, e.name), real]);
      }
    }
  };
  const links: [string, string][] = [];
  walk(root, 0);
  // A link to a file the walk found itself (or to one another link names) is that file, read once.
  if (links.length) {
    const seen = new Set(out.map((p) => realOrResolved(p)));
    for (const [p, real] of links) {
      if (seen.has(real) || out.length >= limit) continue;
      seen.add(real);
      out.push(p);
    }
  }
  return out.sort((a, b) => a.split(path.sep).length - b.split(path.sep).length || compareText(a, b));
}

/**
 * The real path of a link found by the walk that leads to a regular file inside the workspace
 * (`docs/modules/a/sprint-status.yaml -> ../../shared/ledger.yaml`): read as the file it names, and
 * written there (the write follows the link: store/safePath.ts). A link leading out of the workspace
 * is passed over, as the write would refuse it.
 */
function linkedFileInside(root: string, p: string): string | undefined {
  if (!recordingProbe(p, 'f')) return undefined;
  const real = recordingRealPath(p);
  return inside(realOrResolved(root), real) ? real : undefined;
}

/** Where the project's `sprint-status.yaml` is: the first of findLedgerFiles. */
export function findLedgerFile(cfg: BmadConfig): string | undefined {
  return findLedgerFiles(cfg)[0];
}

/**
 * Of a ledger found where projects commonly keep one (not where the config says) and the others a
 * walk finds, the live ones: first the ledger whose story keys name the most story files (a project
 * that planned its sprint again keeps the new ledger beside the stories it names, the old one
 * elsewhere naming stories since renamed; the first found wins a tie), then each other ledger that
 * names story files the first does not (epics the second plan left in the first ledger). A key two
 * ledgers list is the first's (ledger-duplicate-key).
 */
function liveOf(cfg: BmadConfig, first: string, walked: string[]): string[] {
  // Each candidate read and parsed once here, for both questions (does it list work, which files it names).
  const parsed = new Map<string, Ledger | undefined>();
  const ledgerOf = (file: string): Ledger | undefined => {
    if (!parsed.has(file)) {
      const text = recordingRead(file, MAX_FILE);
      parsed.set(file, text === undefined ? undefined : parseLedger(file, text));
    }
    return parsed.get(file);
  };
  const others = walked.filter((p) => {
    const l = p === first || inSubproject(cfg.root, p) ? undefined : ledgerOf(p);
    return l !== undefined && listsWork(l);
  });
  if (!others.length) return [first];
  const names = new Map<string, Set<string>>();
  const named = (file: string): Set<string> => {
    const out = new Set<string>();
    const ledger = ledgerOf(file);
    if (!ledger) return out;
    // The files under each folder as deep as the build looks for stories (`active/stories/` under
    // the ledger's story_location), archives left out: a ledger whose stories sit a folder down
    // names them as well as one whose stories sit beside it.
    const dirs = [...storyDirs(cfg, file, ledger)].map((d) => {
      let set = names.get(d);
      if (!set) names.set(d, (set = mdNamesUnder(d, STORY_DEPTH)));
      return set;
    });
    for (const e of ledger.entries) {
      const name = `${e.key.toLowerCase()}.md`;
      if (e.kind === 'story' && dirs.some((set) => set.has(name))) out.add(name);
    }
    return out;
  };
  const ranked = [first, ...others].map((file) => ({ file, names: named(file) }));
  let best = ranked[0];
  for (const r of ranked) if (r.names.size > best.names.size) best = r;
  const more = ranked.filter((r) => r !== best && [...r.names].some((n) => !best.names.has(n)));
  return [best.file, ...more.map((r) => r.file)];
}

/** Where a folder of its own keeps a project's install, output or ledger (relative to it). */
const SUBPROJECT_MARKS: readonly [string, 'f' | 'd'][] = [['_bmad', 'd'], ['.bmad-core', 'd'], ['_bmad-output', 'd'], ['docs/sprint-status.yaml', 'f'], ['docs/sprint-artifacts/sprint-status.yaml', 'f'], ['docs/implementation-artifacts/sprint-status.yaml', 'f']];

/**
 * A ledger inside a subfolder that is a BMAD project of its own (`test-platform/docs/sprint-status.yaml`,
 * `test-platform/` holding its own docs ledger or install): that project's, not one of this one's.
 * The ledger's own folder does not count (a module's `docs/modules/a/sprint-status.yaml`).
 */
function inSubproject(root: string, ledgerFile: string): boolean {
  for (let dir = path.dirname(path.dirname(ledgerFile)); dir !== root && inside(root, dir); dir = path.dirname(dir)) {
    if (SUBPROJECT_MARKS.some(([rel, kind]) => recordingProbe(path.join(dir, rel), kind))) return true;
  }
  return false;
}

/** Where a ledger is looked for first: the config's places (`declared`), then those BMAD's versions use (`c`, both). */
function ledgerPlaces(cfg: BmadConfig): { declared: string[]; c: string[] } {
  const declared = [
    path.join(cfg.implementationArtifacts, 'sprint-status.yaml'),
    cfg.vars.sprint_artifacts ? path.join(cfg.vars.sprint_artifacts, 'sprint-status.yaml') : '',
    // v6 beta's sprint planning writes its ledger to `dev_ephemeral_location` (`.bmad-ephemeral/`).
    cfg.vars.dev_ephemeral_location ? path.join(cfg.vars.dev_ephemeral_location, 'sprint-status.yaml') : '',
    path.join(cfg.outputFolder, 'sprint-status.yaml'),
    path.join(cfg.outputFolder, 'sprint-artifacts', 'sprint-status.yaml'),
    path.join(cfg.outputFolder, 'implementation-artifacts', 'sprint-status.yaml'),
  ].filter((p) => p && inside(cfg.root, p));
  const c = [
    ...declared,
    path.join(cfg.root, 'docs', 'sprint-artifacts', 'sprint-status.yaml'),
    path.join(cfg.root, 'docs', 'sprint-status.yaml'),
    path.join(cfg.root, '_bmad-output', 'implementation-artifacts', 'sprint-status.yaml'),
    path.join(cfg.root, '_bmad-output', 'sprint-status.yaml'),
    // The BMAD skills add-on's sprint plan keeps its ledger in a hidden `.bmad/` (the walk passes over it).
    path.join(cfg.root, '.bmad', 'sprint-status.yaml'),
  ].filter((p) => p && inside(cfg.root, p));
  return { declared, c };
}

/** The ledger file a config names (declaredLedgerFile): the file, the config and its line, whether its real path leaves the workspace. */
export interface DeclaredLedger {
  file: string;
  config: string;
  line: number;
  outside: boolean;
}

/** A `config.yaml` line naming the ledger file itself: the BMAD skills add-on's `bmm: sprint_status_file: docs/sprint-status.yaml`. */
const LEDGER_FILE_KEY = /^[ \t]*(sprint_status_file|sprint_status)[ \t]*:[ \t]*(["']?)([^"'#\r\n]*?)\2[ \t]*(?:#.*)?$/m;
/** Top-level folders an install or the add-on's project config is kept in: `bmad/`, `_bmad/`, `.bmad/`, one renamed `bmad-legacy/`. */
const CONFIG_DIR = /^[._]?bmad(?:[-_][\w.-]+)?$/i;

/**
 * The ledger file the project's config names by a key of its own, not a folder (the BMAD skills
 * add-on's project config, `bmad/config.yaml` or the same folder renamed, `bmm: sprint_status_file:
 * docs/sprint-status.yaml`; an install whose config carries `sprint_status_file` or `sprint_status`):
 * the file the team's agents update, which wins over any ledger found by guessing. A path whose real
 * path leaves the workspace is `outside` (never read, never written). Found by the config's line,
 * not a YAML parse; `{project-root}` and the config's folder variables resolved.
 */
export function declaredLedgerFile(cfg: BmadConfig): DeclaredLedger | undefined {
  const configs: string[] = [];
  for (const src of cfg.sources) if (path.basename(src) === 'config.yaml') configs.push(src);
  let entries: fs.Dirent[] = [];
  try {
    entries = recordingList(cfg.root);
  } catch {
    entries = [];
  }
  for (const e of entries) if (e.isDirectory() && CONFIG_DIR.test(e.name)) configs.push(path.join(cfg.root, e.name, 'config.yaml'));
  for (const c of [...new Set(configs)]) {
    const text = recordingRead(c, MAX_FILE);
    const m = text === undefined ? null : LEDGER_FILE_KEY.exec(text);
    if (!m || !m[3].trim()) continue;
    const v = m[3].trim().replace(/\{([\w-]+)\}/g, (all, k: string) => (k === 'project-root' ? cfg.root : cfg.vars[k] ?? all));
    if (v.includes('{') || !/\.ya?ml$/i.test(v)) continue;
    const file = path.resolve(cfg.root, v);
    const line = text!.slice(0, m.index).split('\n').length;
    return { file, config: c, line, outside: !inside(realOrResolved(cfg.root), realOrResolved(file)) };
  }
  return undefined;
}

/**
 * The project's live ledgers: the ledger file its config names (declaredLedgerFile), when that one
 * lists work; else the one where its config puts it, when that one lists work; else
 * every ledger listing work that a bounded search finds outside archives and fixtures (a project
 * keeping one per module, `docs/modules/*\/sprint-status.yaml`); else an empty one at the config's
 * place.
 */
export function findLedgerFiles(cfg: BmadConfig, known?: { named: DeclaredLedger | undefined }): string[] {
  const { declared, c } = ledgerPlaces(cfg);
  const placed = c.filter((p) => isRegularFile(p));
  // A ledger with no entries (`development_status: {}` left where the config points) loses to
  // one elsewhere that lists the work; else the config's place wins.
  const listed = placed.find((p) => hasEntries(p));
  // Where the config puts it (its implementation or sprint artifacts, its output folder): the ledger,
  // with the ledgers of projects of their own kept in folders of its stories (projectLedgersIn).
  if (listed && declared.includes(listed)) return [listed, ...projectLedgersIn(cfg, listed)];
  // Else the ledger file a config names itself (the add-on's `sprint_status_file`), over any guessed.
  // (Not over the install's own place: electrosenpai/kendraw keeps the add-on's config and its
  // docs/sprint-status.yaml from before moving to BMAD 6, whose _bmad-output ledger is the live one.)
  // (Looked up here only when the caller has not: readSprint has, for its warning.)
  const named = known ? known.named : declaredLedgerFile(cfg);
  if (named && !named.outside && isRegularFile(named.file) && hasEntries(named.file)) return [named.file];
  const walked = findNamed(cfg.root, /^sprint-status\.ya?ml$/);
  if (listed) return liveOf(cfg, listed, walked);
  const live = walked.filter((p) => !placed.includes(p) && hasEntries(p));
  if (live.length) return live;
  // v6 beta's default `dev_ephemeral_location` (a hidden folder the walk passes over), when the
  // install that declares it is not in the repository.
  const ephemeral = path.join(cfg.root, '.bmad-ephemeral', 'sprint-status.yaml');
  if (!placed.includes(ephemeral) && isRegularFile(ephemeral) && hasEntries(ephemeral)) return [ephemeral];
  const first = placed[0] ?? walked[0];
  return first ? [first] : [];
}

/**
 * Whether a ledger declares its own folder (or one below it) as its `story_location`: a ledger kept
 * with the stories it tracks, as BMAD's sprint planning writes one for a project of its own.
 */
function declaresOwnFolder(root: string, l: Ledger): boolean {
  return l.storyLocation !== undefined && listsStories(l) && inside(path.dirname(l.file), projectPath(root, l.storyLocation));
}

/**
 * The ledgers of projects of their own kept in subfolders of a ledger's story folders, each declaring
 * its own folder its story location (a monorepo's sibling app: `implementation-artifacts/tournament/
 * sprint-status.yaml`, `story_location: …/implementation-artifacts/tournament`, beside the main app's
 * ledger one folder up). Looked for as deep as stories are (STORY_DEPTH), through the recorders.
 */
function projectLedgersIn(cfg: BmadConfig, first: string): string[] {
  const text = recordingRead(first, MAX_FILE);
  if (text === undefined) return [];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const e of listDir(dir)) {
      if (!e.isDirectory() || !storyFolder(e.name)) continue;
      const sub = path.join(dir, e.name);
      const file = path.join(sub, 'sprint-status.yaml');
      const t = file !== first && !out.includes(file) && isRegularFile(file) ? recordingRead(file, MAX_FILE) : undefined;
      if (t !== undefined && declaresOwnFolder(cfg.root, parseLedger(file, t))) out.push(file);
      if (depth > 1) walk(sub, depth - 1);
    }
  };
  // (The first ledger's parse comes from the read-only memo; storyDirs keeps no reference to it.)
  for (const d of storyDirs(cfg, first, ledgerToRead(first, text, false))) walk(d, STORY_DEPTH);
  return out.sort(compareText);
}

/** The problem of a ledger place that holds no file: what it is and what to do. */
export function ledgerNotAFile(file: string, root: string): Problem {
  const rel = path.relative(root, file).split(path.sep).join('/');
  return {
    file,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: 'error',
    code: 'ledger-not-a-file',
    message: `${rel} is not a file: it is, or links to, a device, a pipe or a socket, which Waymark and BMAD's workflows cannot read as the sprint ledger (a read would never end). Replace it with the ledger file (remove it and restore the file, e.g. git checkout -- ${rel}, or run BMAD sprint planning again); until then no ledger is read and no status is written.`,
  };
}

/**
 * Ledgers parsed to be read only (hasEntries, loadStoryQuick), by file and text: a story status change
 * looks its ledger up before the locks, under them and in the bytes it writes, and the next change
 * reads those bytes (a 1,000-entry ledger costs ~4 ms to parse). parseLedger depends on the file and
 * text alone. readSprint marks entries it binds to files (keysNamingFiles): it takes a ledger out of
 * the memo (parseLedgerAgain) only when no reader was handed it, else parses its own.
 */
const readOnlyLedgers: { file: string; text: string; ledger: Ledger; shared: boolean }[] = [];

function ledgerToRead(file: string, text: string, share: boolean): Ledger {
  let hit = readOnlyLedgers.find((m) => m.file === file && m.text === text);
  if (!hit) {
    hit = { file, text, ledger: parseLedger(file, text), shared: false };
    readOnlyLedgers.unshift(hit);
    readOnlyLedgers.length = Math.min(readOnlyLedgers.length, 3);
  }
  if (share) hit.shared = true;
  return hit.ledger;
}

function hasEntries(file: string): boolean {
  const text = recordingRead(file, MAX_FILE);
  if (text === undefined) return false;
  return listsWork(ledgerToRead(file, text, false));
}

/** parseLedger, but once: the ledger findLedgerFiles just parsed to choose it is taken out of the memo, if the text is the same and no reader holds it. */
function parseLedgerAgain(file: string, text: string): Ledger {
  const at = readOnlyLedgers.findIndex((m) => m.file === file && m.text === text && !m.shared);
  if (at < 0) return parseLedger(file, text);
  return readOnlyLedgers.splice(at, 1)[0].ledger;
}

/**
 * A ledger key no grammar reads whose story file lies in one of the story folders, named by the key
 * (`<key>.md`, or `story-<key>.md` as v6 alpha named its stories): a story of no epic, bound to that file
 * (samueladegoke/Learning_Tracker's first phase, `story-production-deployment: done` above any epic).
 * Only the folder itself is probed, through the recorders (a file appearing rebuilds the sprint).
 */
function keysNamingFiles(ledger: Ledger, dirs: ReadonlySet<string>): void {
  for (const e of ledger.entries) {
    if (e.kind !== 'unknown' || e.annotates !== undefined || !/^[a-z0-9][\w.-]*[a-z0-9]$/i.test(e.key)) continue;
    const k = e.key.toLowerCase();
    const names = k.startsWith('story-') ? [e.key, k] : [e.key, k, `story-${k}`];
    if ([...dirs].some((d) => names.some((n) => recordingProbe(path.join(d, `${n}.md`), 'f')))) readAsStoryOfNoEpic(e);
  }
}

/** How many folders below a story folder story files are looked for. */
const STORY_DEPTH = 3;
/** Folders no story is looked for in: archives and retired copies (`archive/`, `old/`, `migration-v1-v2/`). */
// (Old copies and backups as config.ts's RETIRED_DIR reads them: `docs_old3/`, `_backups/`, `old_2025/`.)
const RETIRED_STORY_DIR = new RegExp(String.raw`^(archive|archived|archive-v\d+|migration-v\d+-v\d+|old|outdated|deprecated|([\w.-]+[-_])?_?(archived?|archives)([-_][\w.-]+)?|${OLD_COPY_DIR})$`, 'i');
const storyFolder = (name: string) => !SKIP_DIRS.has(name) && !name.startsWith('.') && !RETIRED_STORY_DIR.test(name);

/**
 * The Markdown files under dir, `depth` folders down through story folders (symlinks included: a
 * symlinked story is read, and its writes refused when it points outside the workspace): each handed
 * to `visit` with its folder, whether that folder is in normal form (entryPath) and its name.
 */
function eachMarkdownUnder(dir: string, depth: number, visit: (dir: string, normal: boolean, name: string) => void, below = false): void {
  const normal = normalDir(dir);
  const entries = listDir(dir);
  // A sharded PRD below a story folder (`prd/` holding BMAD shard-doc's `index.md`): planning shards, never
  // stories, whatever their names (`2-2-invoice-notes.md` under `## Epic 2`).
  if (below && shardedPrd(path.basename(dir), entries)) return;
  for (const e of entries) {
    if ((e.isFile() || e.isSymbolicLink()) && /\.md$/i.test(e.name)) visit(dir, normal, e.name);
    else if (e.isDirectory() && depth > 0 && storyFolder(e.name)) eachMarkdownUnder(entryPath(dir, normal, e.name), depth - 1, visit, true);
  }
}

/** A folder named `prd` (`prd-v2`, `prd_shards`) holding an `index.md`: a PRD sharded by BMAD's shard-doc. */
function shardedPrd(name: string, entries: readonly fs.Dirent[]): boolean {
  return /^prd(?:[-_.][\w.-]*)?$/i.test(name) && entries.some((e) => !e.isDirectory() && e.name.toLowerCase() === 'index.md');
}

/** The lower-case names of the Markdown files under dir, `depth` folders down, the way storyFilesIn walks. */
function mdNamesUnder(dir: string, depth: number): Set<string> {
  const out = new Set<string>();
  eachMarkdownUnder(dir, depth, (_dir, _normal, name) => out.add(name.toLowerCase()));
  return out;
}

/**
 * Story files under dir: named like a story, or named after one of the ledger's story keys
 * (`g-01-browse-listings.md`), or after one no BMAD name reads with a slug after it
 * (`us-erp-01-05-completeness-ring.md` for `US-ERP-01-05`, in `slugKeys`).
 */
function storyFilesIn(dir: string, depth: number, out: Map<string, string>, keys: ReadonlySet<string>, slugKeys: ReadonlySet<string>, epicIds: readonly string[], others: Set<string>): void {
  eachMarkdownUnder(dir, depth, (folder, normal, name) => {
    // (`issue-12-domain-descriptors.story.md`: the key with v4's `.story` before `.md`.)
    const p = entryPath(folder, normal, name);
    // (`epic-01/story-02-contracts.md`: numbered within the epic its folder names: storyKeyFromEpicFolder.)
    // (`STORY-001.md`: with no ledger listing stories, a story of no epic when its content says so: isStoryParse.)
    // (Any other name: a story when its frontmatter names its id beside a status: parseFrontmatterStory.)
    if (!(storyKeyFromName(name) || namesKey(name.slice(0, -3).replace(/\.story$/i, ''), keys, slugKeys) || numberedUnder(name, epicIds) || storyKeyFromEpicFolder(p) || (keys.size === 0 && (ONE_NUMBER_NAME.test(name) || GAME_STORY_NAME.test(name))) || EPIC_STORY_NAME.test(name))) {
      others.add(p);
      return;
    }
    out.set(p, p);
  });
}

/** A frontmatter naming a story id (`story_key:`, `story_id:`, `storyId:`, `story:`, `key:`, `id:`) and a `status:`, in a file's first 8 KB. */
function frontmatterNamesStory(text: string): boolean {
  if (!/^---[ \t]*\r?\n/.test(text)) return false;
  const end = text.slice(0, 8192).search(/\n---[ \t]*(?:\r?\n|$)/);
  if (end < 0) return false;
  const fm = text.slice(0, end);
  return /^(?:story_key|story_id|storyId|story|key|id)[ \t]*:[ \t]*["']?[A-Za-z0-9]/im.test(fm) && /^status[ \t]*:/im.test(fm);
}

/**
 * A Markdown file where stories live that no story name grammar reads: parsed (recordingParse) only
 * when its frontmatter names a story id beside a status (then a story keyed by the id, parseStory's
 * frontmatterStory); any other such file is `null` (identity FM_NONE), so editing a note beside the
 * stories patches a cached sprint rather than building it.
 */
function parseFrontmatterStory(p: string): StoryFile | null | undefined {
  return recordingParse(p, MAX_FILE, (text) => (text === undefined ? undefined : frontmatterNamesStory(text) ? parseStory(p, text, SPRINT_PARSE) : null));
}

/** A name that is a ledger key, or one no BMAD name reads with a slug after it, with or without `story-` before it. */
function namesKey(name: string, keys: ReadonlySet<string>, slugKeys: ReadonlySet<string>): boolean {
  const bare = withoutStoryPrefix(name);
  return [name, bare].some((n) => n !== undefined && (keys.has(n.toLowerCase()) || keyBeforeSlug(n, slugKeys) !== undefined));
}

/**
 * A file numbered under one of the ledger's epics whose id no name grammar reads alone
 * (`q3-4-calibration-dimension.md` under `epic-q3`, the ledger keying it
 * `q3-4-calibration-dimension-report-only`): a story file, matched to its key by its number.
 */
function numberedUnder(name: string, epicIds: readonly string[]): boolean {
  if (!epicIds.length) return false;
  const lower = name.toLowerCase();
  // (`pp.2.route-loader.md` under `epic-pp`: v4's dotted name with the epic's letters.)
  return epicIds.some((id) => lower.startsWith(`${id}-`) || lower.startsWith(`${id}.`)) && storyKeyFromName(name, epicIds) !== undefined;
}

function epicsFilesIn(dir: string, out: Set<string>): void {
  for (const e of listDir(dir)) {
    const p = path.join(dir, e.name);
    if (e.isFile() && /epic/i.test(e.name) && /\.md$/i.test(e.name) && !/retro/i.test(e.name)) out.add(p);
    else if (e.isDirectory() && /epic/i.test(e.name)) for (const s of listDir(p)) if (s.isFile() && /\.md$/i.test(s.name)) out.add(path.join(p, s.name));
  }
}

/** What two folder names are but for case and the separators (`sprint-artifacts`, `Sprint_Artifacts`). */
const folderWords = (name: string) => name.toLowerCase().replace(/[-_ .]+/g, '');

/**
 * Story folders the config declares that do not exist, each with the one sibling that names it but for
 * separators and case (`sprint_artifacts: docs/sprint-artifacts`, the team's folder `docs/sprint_artifacts/`):
 * the folder the team meant. With two such siblings, or none, nothing is guessed.
 */
export function nearMissFolders(cfg: BmadConfig): { declared: string; found: string }[] {
  const out: { declared: string; found: string }[] = [];
  for (const d of new Set([cfg.storyLocation, cfg.implementationArtifacts].filter((x): x is string => !!x))) {
    const abs = projectPath(cfg.root, d);
    if (!inside(cfg.root, abs) || abs === path.resolve(cfg.root) || isDirectory(abs)) continue;
    const parent = path.dirname(abs);
    if (!inside(cfg.root, parent) && parent !== path.resolve(cfg.root)) continue;
    const want = folderWords(path.basename(abs));
    const same = listDir(parent).filter((e) => e.isDirectory() && folderWords(e.name) === want);
    if (same.length === 1) out.push({ declared: abs, found: path.join(parent, same[0].name) });
  }
  return out;
}

/** The note that a declared folder was read at its near miss (nearMissFolders), on the config line declaring it. */
function nearMissNote(cfg: BmadConfig, m: { declared: string; found: string }, overrides?: Map<string, string>): Problem {
  const rel = (p: string) => path.relative(cfg.root, p).split(path.sep).join('/');
  let file = cfg.sources[cfg.sources.length - 1] ?? cfg.root;
  let line = 0;
  for (const src of [...cfg.sources].reverse()) {
    const at = (readText(src, overrides) ?? '').split(/\r?\n/).findIndex((l) => l.includes(rel(m.declared)));
    if (at >= 0) {
      file = src;
      line = at;
      break;
    }
  }
  return {
    file, range: { start: { line, character: 0 }, end: { line, character: 0 } }, severity: 'info', code: 'bmad-folder-near-miss',
    message: `The declared story folder ${rel(m.declared)} does not exist; its stories are read from ${rel(m.found)}, the one folder named the same but for separators and case. Rename the folder or fix the config so every BMAD tool finds it.`,
  };
}

/** Folders story files are looked for in: the ledger's story_location, the ledger's own folder, the config's. */
function storyDirs(cfg: BmadConfig, ledgerFile: string | undefined, ledger: Ledger | undefined): Set<string> {
  const dirs = new Set<string>();
  const addDir = (d: string | undefined) => {
    if (!d) return;
    const abs = projectPath(cfg.root, d);
    if (inside(cfg.root, abs) && isDirectory(abs)) dirs.add(abs);
  };
  if (ledger?.storyLocation) addDir(ledger.storyLocation);
  for (const d of ledger?.storyFolders ?? []) addDir(d);
  if (ledgerFile) addDir(path.dirname(ledgerFile));
  // The `stories/` folder beside the ledger's own (`docs/requirements/sprint-status.yml`, stories in
  // `docs/stories/`): the docs folder holding both.
  if (ledgerFile) addDir(path.join(path.dirname(path.dirname(ledgerFile)), 'stories'));
  addDir(cfg.implementationArtifacts);
  addDir(cfg.storyLocation);
  addDir(path.join(cfg.implementationArtifacts, 'stories'));
  // v6 beta's create-story writes `{dev_ephemeral_location}/stories/{key}.md` (`.bmad-ephemeral/` by default).
  if (cfg.vars.dev_ephemeral_location) addDir(path.join(cfg.vars.dev_ephemeral_location, 'stories'));
  else if (ledgerFile && path.basename(path.dirname(ledgerFile)) === '.bmad-ephemeral') addDir(path.join(path.dirname(ledgerFile), 'stories'));
  addDir(path.join(cfg.outputFolder, 'stories'));
  // v6 alpha and beta's story folder (`{output_folder}/sprint-artifacts`): stories written there
  // stay when a later install moves the config to implementation-artifacts.
  addDir(path.join(cfg.outputFolder, 'sprint-artifacts'));
  addDir(path.join(cfg.root, 'docs', 'stories'));
  for (const m of nearMissFolders(cfg)) addDir(m.found);
  // (A root `stories/` folder, v4's devStoryLocation or v6's story folder declared where none exists:
  // the team keeps its stories at the project's root; read only when no story folder is found.)
  if (!dirs.size) addDir(path.join(cfg.root, 'stories'));
  addDir(path.join(cfg.root, 'docs', 'sprint-artifacts'));
  // Stories kept beside their epic, one folder per epic: `epics/epic-4/stories/4-1-slug.md` in the
  // docs, output or planning folder (where sharded epics live), or in the epic's folder itself beside
  // its index (`epics/epic-05-beacons/story-5.1-slug.md`; storyFilesIn keeps only story-named files).
  for (const base of new Set([path.join(cfg.root, 'docs'), cfg.outputFolder, cfg.planningArtifacts])) {
    const epics = path.join(base, 'epics');
    for (const e of listDir(epics)) {
      if (!e.isDirectory() || !/^epic/i.test(e.name)) continue;
      // (One or the other: the folder holding a `stories/` folder would list its stories twice.)
      const own = path.join(epics, e.name, 'stories');
      addDir(isDirectory(own) ? own : path.join(epics, e.name));
    }
  }
  return dirs;
}

/**
 * One story, read the short way for a write: the config, the ledger and the file named by the
 * story's key (no walk over every story, epics or gates). Undefined when that is not enough (no
 * ledger entry, or no file by that name): the caller then reads the whole sprint.
 */
export function loadStoryQuick(root: string, ref: string, opts: SprintOptions = {}): { report: SprintReport; story: SprintStory } | undefined {
  const cfg = loadBmadConfig(root, bmadSettings(root, opts));
  const ledgerFiles = findLedgerFiles(cfg);
  // Several ledgers: the whole sprint is read (a key may be listed in more than one).
  if (ledgerFiles.length !== 1) return undefined;
  const ledgerFile = ledgerFiles[0];
  const text = readText(ledgerFile, opts.overrides);
  if (text === undefined) return undefined;
  const ledger = ledgerToRead(ledgerFile, text, true);
  const r = ref.trim().replace(/\.md$/i, '');
  let entry = ledger.byKey.get(r);
  if (!entry) {
    const answer = resolveStoryRef(ledger.entries.filter((e) => e.kind === 'story'), r);
    if (!('story' in answer)) return undefined;
    entry = answer.story;
  }
  let file: string | undefined;
  for (const d of storyDirs(cfg, ledgerFile, ledger)) {
    const p = path.join(d, `${entry.key}.md`);
    if (isRegularFile(p)) {
      file = p;
      break;
    }
  }
  if (!file) return undefined;
  const storyText = readText(file, opts.overrides);
  if (storyText === undefined) return undefined;
  // Only this story and its epic: the write needs its state, not the drift of the other 999.
  const only: Ledger = { ...ledger, entries: ledger.entries.filter((e) => e === entry || (e.kind === 'epic' && normEpicId(e.epicId) === normEpicId(entry!.epicId))), problems: [] };
  const model = buildSprint({ root: cfg.root, ledger: only, stories: [parseStory(file, storyText)], epics: new Map(), gates: [], now: opts.now ?? new Date(), staleDays: opts.staleDays ?? 7 });
  const story = model.stories.find((s) => s.key === entry!.key);
  if (!story) return undefined;
  return { report: { ...model, root: cfg.root, config: cfg, ledgerFile, ledger, ledgerFiles: [ledgerFile], ledgers: [ledger], storyDirs: [], epicsFiles: [], files: [ledgerFile, file] }, story };
}

/**
 * Reads the sprint of one project folder: config, ledger, story files, epics, gates; returns the
 * model with its drift problems. Undefined when the folder has neither a ledger nor story files.
 */
export function loadSprint(root: string, opts: SprintOptions = {}): SprintReport | undefined {
  const settings = bmadSettings(root, opts);
  // A repository holding its BMAD project in a subfolder (a monorepo's `apps/planner/`): that project's sprint.
  const sub = subProjects(root, settings.installDir);
  if (sub.length) return loadSprint(sub[0], { ...opts, config: undefined });
  const now = opts.now ?? new Date();
  const staleDays = opts.staleDays ?? 7;
  const read = () => readSprint(loadBmadConfig(root, settings), now, staleDays, opts.overrides);
  if (opts.overrides?.size || opts.cache !== true || !cacheFilesEnabled()) return read();
  // The settings are the key; what the BMAD config and the sprint read, list and probe is recorded.
  return cachedSprint(root, [path.resolve(root), settings, staleDays], now, read, sprintPatcher);
}

/**
 * A story file's parse as readSprint reads it (recordingParse: unchanged files are not parsed again),
 * its tasks counted, the first open one alone quoted (parseStory's `taskTexts`).
 */
function parseStoryFile(p: string): StoryFile | undefined {
  return recordingParse(p, MAX_FILE, (text) => (text === undefined ? undefined : parseStory(p, text, SPRINT_PARSE)));
}

/**
 * Whether a parsed file named like a story is one: a file holding no story (a review note) is not;
 * a name in the mixed form (`05.5-x11-issues.md`, also a tech-spec's) is one when its title says so,
 * or a story status (`# 2.2: Chart` with `## Status` `Done`; a spec's `Status: Unresolved` is not one).
 */
function isStoryParse(p: string, s: StoryFile | undefined, epicIds: readonly string[], ledgerless = false): s is StoryFile {
  if (!s) return false;
  if (s.title === undefined && s.status === undefined) return false;
  // (`tech-d01-audit-log.md` with `story_key:` and `status:` in its frontmatter: the story its frontmatter names.)
  if (s.frontmatterId !== undefined && s.key === s.frontmatterId.value && !storyKeyFromName(p)) return s.status !== undefined;
  // (`43.0.story.md` titled `# Epic 43: …`, `7.0.po-validation.md` titled `# Epic 7 — PO Validation Report`: the epic's documents.)
  if (s.epicTitle) return false;
  // (`STORY-001.md` with no ledger listing stories: numbered with no epic, a story when titled by its number and holding a user story: oneNumberStory.)
  if (ledgerless && !s.noEpic && s.key === undefined && ONE_NUMBER_NAME.test(path.basename(p))) return false;
  // (`UI-001-main-menu.md` with no ledger listing stories: a game pack's story when its content says so: gameStory.)
  if (ledgerless && s.key === undefined && GAME_STORY_NAME.test(path.basename(p))) return false;
  // (`3.notes.md`: named by one number, a story only when its content says it is the epic's one story: epicStory.)
  if (s.key === undefined && EPIC_STORY_NAME.test(path.basename(p))) return false;
  // (`TD.10.checkpoint-persistence.md`: a one-number series id is a story by its content alone,
  // unless the ledger declares the series as an epic: `plot.3.compost-bins.md` under `epic-plot`.)
  if (s.byContent && !(s.status !== undefined && s.storyContent) && !numberedUnder(path.basename(p), epicIds)) return false;
  return !(s.titleLine === undefined && !isStoryStatusWord(s.status) && /^\d{1,3}\.\d{1,3}[a-z]?-[a-z]/i.test(path.basename(p)));
}

/**
 * A cached sprint after story files were edited: when each keeps what decides which story it is
 * (storyFileIdentity; which files are stories depends on it too), only those stories are read
 * again (patchStoryFiles). An added, removed or renamed file, or any other input changed, builds it.
 */
const sprintPatcher: Patcher<SprintReport | undefined> = {
  identity: (parse) => storyFileIdentity(parse as StoryFile | null | undefined),
  // (A file read as no story by its frontmatter is read that way again: parseFrontmatterStory.)
  reparse: (file, recorded) => (recorded === FM_NONE ? parseFrontmatterStory(file) : parseStoryFile(file)),
  apply: (cached, changed) => {
    const ledgers = cached?.ledgers ?? (cached?.ledger ? [cached.ledger] : []);
    const epicIds = ownEpicIdsOf(ledgers);
    const ledgerless = !ledgers.some((l) => l.entries.some((e) => e.kind === 'story'));
    const parses = changed.map((c) => ({ file: c.file, parse: c.parse && ledgerless ? withNoEpic(c.parse as StoryFile) : c.parse as StoryFile | undefined }));
    const stories = parses.filter((c) => isStoryParse(c.file, c.parse, epicIds, ledgerless)).map((c) => c.parse as StoryFile);
    if (!cached) {
      // No sprint, and the files stay what they were (no story among them): still none.
      if (stories.length) throw new Error('a story where the cached sprint had none');
      return cached;
    }
    patchStoryFiles(cached, stories, ledgerCoverage(cached.root, cached.ledgers ?? (cached.ledger ? [cached.ledger] : [])), cached.ledgerFile ?? '', !!cached.ledger?.nested);
    return cached;
  },
};

/** The epics documents of a project (its planning, output and docs folders), sorted. */
function epicsFilesOf(cfg: BmadConfig): string[] {
  const epicFiles = new Set<string>();
  for (const d of new Set([cfg.planningArtifacts, cfg.outputFolder, path.join(cfg.root, 'docs'), path.join(cfg.root, 'docs', 'prd')])) {
    if (inside(cfg.root, d)) epicsFilesIn(d, epicFiles);
  }
  return [...epicFiles].sort();
}

/**
 * For a project with no sprint (loadSprint undefined: no ledger, no story files): the stories its
 * epics documents plan (`## Story 1.1: …` sections of `epics.md`), and those documents; undefined
 * when they plan none. What `waymark sprint` says such a project is waiting for.
 */
export function plannedOnly(root: string, opts: SprintOptions = {}): { files: string[]; stories: number } | undefined {
  const settings = bmadSettings(root, opts);
  const sub = subProjects(root, settings.installDir);
  if (sub.length) return plannedOnly(sub[0], { ...opts, config: undefined });
  const cfg = loadBmadConfig(root, settings);
  const epics = new Map<number | string, PlannedEpic>();
  const files: string[] = [];
  for (const f of epicsFilesOf(cfg)) {
    const text = readText(f, opts.overrides);
    if (text === undefined) continue;
    const before = [...epics.values()].reduce((n, e) => n + e.stories.length, 0);
    parseEpics(f, text, epics);
    if ([...epics.values()].reduce((n, e) => n + e.stories.length, 0) > before) files.push(f);
  }
  const stories = [...epics.values()].reduce((n, e) => n + e.stories.length, 0);
  return stories ? { files, stories } : undefined;
}

/** Epic ids no story name reads without the ledger (`q3`, `ugm`): those of its epics and stories. */
/**
 * GitHub spec-kit folders named exactly by a ledger story's key (`specs/1-2-login/`) holding a
 * `tasks.md` or a `spec.md`: where a team keeps that story's work instead of a BMAD story file. The
 * task list is read as the story's tasks (parseStory's `taskList`); a spec alone gives no tasks.
 */
function specKitFolders(root: string, ledgers: readonly Ledger[], overrides: Map<string, string> | undefined, files: string[]): Map<string, StoryFile> {
  const out = new Map<string, StoryFile>();
  const keys = new Set(ledgers.flatMap((l) => l.entries.filter((e) => e.kind === 'story').map((e) => e.key)));
  if (!keys.size) return out;
  const dir = path.join(root, 'specs');
  for (const e of listDir(dir)) {
    if (!e.isDirectory() || !keys.has(e.name)) continue;
    const tasks = path.join(dir, e.name, 'tasks.md');
    const spec = path.join(dir, e.name, 'spec.md');
    if (isRegularFile(tasks)) {
      const text = readText(tasks, overrides);
      if (text === undefined) continue;
      out.set(e.name.toLowerCase(), parseStory(tasks, text, { taskTexts: 'firstOpen', taskList: true }));
      files.push(tasks);
    } else if (isRegularFile(spec)) {
      out.set(e.name.toLowerCase(), { file: spec, tasks: [], hasFileList: false, hasChangeLog: false, hasDevAgentRecord: false, eol: '\n', taskList: true });
      files.push(spec);
    }
  }
  return out;
}

function ownEpicIdsOf(ledgers: readonly Ledger[]): string[] {
  return [...new Set(ledgers.flatMap((l) => l.entries.filter((e) => e.kind !== 'unknown' && e.epicId && !/^\d/.test(e.epicId)).map((e) => e.epicId)))];
}

function readSprint(cfg: BmadConfig, now: Date, staleDays: number, overrides?: Map<string, string>): SprintReport | undefined {
  const opts = { overrides };
  const problems: Problem[] = cfg.warnings.map((w) => ({ file: w.file, range: { start: { line: w.line - 1, character: 0 }, end: { line: w.line - 1, character: 0 } }, severity: 'warning' as const, code: 'bmad-config-unreadable', message: w.message }));
  for (const m of nearMissFolders(cfg)) problems.push(nearMissNote(cfg, m, opts.overrides));
  const files: string[] = [];
  const ledgers: Ledger[] = [];
  // A ledger place holding a device, pipe or socket (`sprint-status.yaml -> /dev/zero`, a FIFO): never
  // read (a read would not end), and not passed over in silence.
  for (const p of new Set(ledgerPlaces(cfg).c)) if (recordingKind(p) === 'o') problems.push(ledgerNotAFile(p, cfg.root));
  const named = declaredLedgerFile(cfg);
  if (named?.outside && recordingProbe(named.file, 'f')) {
    const v = path.relative(cfg.root, named.file).split(path.sep).join('/');
    problems.push({ file: named.config, range: { start: { line: named.line - 1, character: 0 }, end: { line: named.line - 1, character: 0 } }, severity: 'warning', code: 'bmad-config-unreadable', message: `The config names its sprint ledger ${v}, whose real path is outside the workspace: Waymark neither reads nor writes it, and reads the ledger it finds inside the project instead. Keep the ledger inside the project (move it, or set sprint_status_file to a path inside).` });
  }
  // Found once, inside the recording (the configs it reads are the sprint's inputs), for the warning and the search.
  for (const lf of findLedgerFiles(cfg, { named })) {
    const text = readText(lf, opts.overrides);
    if (text === undefined) continue;
    ledgers.push(parseLedgerAgain(lf, text));
    files.push(lf);
  }
  const ledger = ledgers[0];
  const ledgerFile = ledger?.file;
  const dirs = new Set<string>();
  for (const l of ledgers) for (const d of storyDirs(cfg, l.file, l)) dirs.add(d);
  // A later ledger kept in a folder of the first's stories, declaring that folder its own: a project of
  // its own, whose epics, stories and files are its own (drift.ts keeps them apart).
  if (ledger) {
    const firstDirs = [...storyDirs(cfg, ledger.file, ledger)];
    for (const l of ledgers.slice(1)) if (declaresOwnFolder(cfg.root, l) && firstDirs.some((d) => inside(d, path.dirname(l.file)) && d !== path.dirname(l.file))) l.ownProject = true;
  }
  if (!ledgers.length) for (const d of storyDirs(cfg, undefined, undefined)) dirs.add(d);
  for (const l of ledgers) keysNamingFiles(l, dirs);
  const storyPaths = new Map<string, string>();
  const keys = new Set(ledgers.flatMap((l) => l.entries.filter((e) => e.kind === 'story').map((e) => e.key.toLowerCase())));
  const slugKeys = new Set([...keys].filter((k) => !storyKeyFromName(`${k}.md`)));
  // (`ISS-008-npc-marked-dead-at-encounter.md` for the key `ISS-008-npc-dead-at-encounter`: the key's series id with
  // another slug; drift.ts binds it when it is that id's one file.)
  for (const k of [...slugKeys]) {
    const id = seriesIdOf(k);
    if (id !== undefined) slugKeys.add(id);
  }
  const ownEpicIds = ownEpicIdsOf(ledgers);
  const others = new Set<string>();
  for (const d of dirs) storyFilesIn(d, STORY_DEPTH, storyPaths, keys, slugKeys, ownEpicIds, others);
  const stories: StoryFile[] = [];
  for (const p of others) {
    if (storyPaths.has(p)) continue;
    const o = opts.overrides?.get(p);
    const s = o !== undefined ? (frontmatterNamesStory(o) ? parseStory(p, o) : null) : parseFrontmatterStory(p);
    if (s && isStoryParse(p, s, ownEpicIds, keys.size === 0) && s.frontmatterId !== undefined && s.key === s.frontmatterId.value) {
      stories.push(s);
      files.push(p);
    }
  }
  // A ledger key no grammar reads that a story's frontmatter names (`story_key: ops-3-rotate-keys`):
  // a story of no epic bound to that file, as when the file is named by it (keysNamingFiles).
  const fmIds = new Set(stories.flatMap((s) => (s.frontmatterId ? [s.frontmatterId.value.toLowerCase()] : [])));
  if (fmIds.size) for (const l of ledgers) for (const e of l.entries) if (e.kind === 'unknown' && e.annotates === undefined && fmIds.has(e.key.toLowerCase())) readAsStoryOfNoEpic(e);
  for (const p of storyPaths.keys()) {
    // A story file unchanged since the last cached build is not parsed again (recordingParse).
    const o = opts.overrides?.get(p);
    const parsed = o !== undefined ? parseStory(p, o) : parseStoryFile(p);
    // (`STORY-001.md`: the story of no epic it is where no ledger lists stories.)
    const s = parsed && keys.size === 0 ? withNoEpic(parsed) : parsed;
    if (!isStoryParse(p, s, ownEpicIds, keys.size === 0)) continue;
    stories.push(s);
    files.push(p);
  }
  if (!ledger && stories.length === 0 && !problems.some((p) => p.code === 'ledger-not-a-file')) return undefined;
  // Epics.
  const epics = new Map<number | string, PlannedEpic>();
  const sortedEpicFiles = epicsFilesOf(cfg);
  for (const f of sortedEpicFiles) {
    const text = readText(f, opts.overrides);
    if (text === undefined) continue;
    parseEpics(f, text, epics);
    files.push(f);
  }
  // Gates.
  const gates: StoryGate[] = [];
  const gateDirs = new Set<string>();
  if (cfg.qaLocation) gateDirs.add(path.join(cfg.qaLocation, 'gates'));
  gateDirs.add(path.join(cfg.root, 'docs', 'qa', 'gates'));
  gateDirs.add(path.join(cfg.outputFolder, 'qa', 'gates'));
  for (const d of gateDirs) {
    if (!inside(cfg.root, d)) continue;
    for (const e of listDir(d)) {
      if (!e.isFile() || !/\.ya?ml$/i.test(e.name)) continue;
      const p = path.join(d, e.name);
      const text = readText(p, opts.overrides);
      if (text === undefined) continue;
      const gate = parseQaGate(p, text, now);
      const exp = gate.expires && gateExpiryCounts(gate) ? Date.parse(gate.expires) : NaN;
      if (Number.isFinite(exp)) recordTime(['gate', exp]);
      gates.push(gate);
      files.push(p);
    }
  }
  for (const d of new Set([cfg.implementationArtifacts, cfg.outputFolder, cfg.vars.test_artifacts ?? '', path.join(cfg.outputFolder, 'test-artifacts')])) {
    if (!d || !inside(cfg.root, d)) continue;
    for (const e of listDir(d)) {
      if (!e.isFile() || !/^gate-decision.*\.json$/i.test(e.name)) continue;
      const p = path.join(d, e.name);
      const text = readText(p, opts.overrides);
      if (text !== undefined) {
        const gate = parseGateDecision(p, text, now);
        const exp = gate.expires && gateExpiryCounts(gate) ? Date.parse(gate.expires) : NaN;
        if (Number.isFinite(exp)) recordTime(['gate', exp]);
        gates.push(gate);
        files.push(p);
      }
    }
  }
  const model = buildSprint({ root: cfg.root, ledger, ledgers, stories, epics, gates, now, staleDays, specKit: specKitFolders(cfg.root, ledgers, opts.overrides, files) });
  for (const l of ledgers) {
    const stamp = (l.lastUpdated ?? l.generated)?.date?.getTime();
    if (stamp !== undefined && Number.isFinite(stamp)) recordTime(['stale', stamp, staleDays]);
  }
  return { ...model, problems: clipMessages([...problems, ...model.problems]), root: cfg.root, config: cfg, ledgerFile, ledger, ledgerFiles: ledgers.map((l) => l.file), ledgers, storyDirs: [...dirs], epicsFiles: sortedEpicFiles, files };
}

/**
 * Runs the sprint rules on a proposed edit of one file (a story file or `sprint-status.yaml`)
 * without writing anything. `introduced` are the problems the edit would add (by code and story),
 * the ones a hook should refuse or warn about; `problems` are all problems of that file after it.
 */
export function checkSprintProposal(root: string, file: string, proposedText: string, opts: Omit<SprintOptions, 'overrides'> = {}): { problems: Problem[]; introduced: Problem[]; applies: boolean } {
  const abs = path.resolve(root, file);
  const before = loadSprint(root, opts);
  const after = loadSprint(root, { ...opts, overrides: new Map([[abs, proposedText]]) });
  const applies = !!after && (after.files.includes(abs) || (!before && /sprint-status\.ya?ml$/.test(abs)));
  if (!after || !applies) return { problems: [], introduced: [], applies: false };
  const key = (p: Problem) => `${p.code}\0${String(p.data?.key ?? '')}\0${p.file}`;
  const had = new Set((before?.problems ?? []).map(key));
  const problems = after.problems.filter((p) => p.file === abs);
  const introduced = after.problems.filter((p) => !had.has(key(p)) && (p.file === abs || p.severity !== 'info'));
  return { problems, introduced, applies };
}

/** The story a user names exactly: its full key, or `N-M` / `N.M` / `N-Ma` when one story has it (storyRef.ts). */
export function findStory(report: SprintReport, ref: string): SprintReport['stories'][number] | undefined {
  const answer = resolveStoryRef(report.stories, ref);
  return 'story' in answer ? answer.story : undefined;
}

/**
 * The BMAD projects in subfolders of `root` when `root` is not one itself (a monorepo), nearest
 * first; empty when `root` is a BMAD project or holds none.
 */
export function subProjects(root: string, installDir?: string): string[] {
  const abs = path.resolve(root);
  const found = findBmadProjects(abs, installDir);
  return found.length && found[0] !== abs ? found : [];
}

/** The sprints of a folder: its own, or each BMAD project's in its subfolders (a monorepo). */
export function loadSprints(root: string, opts: SprintOptions = {}): SprintReport[] {
  const sub = subProjects(root, bmadSettings(root, opts).installDir);
  const out: SprintReport[] = [];
  for (const r of sub.length ? sub : [root]) {
    const report = loadSprint(r, sub.length ? { ...opts, config: undefined } : opts);
    if (report) out.push(report);
  }
  return out;
}

/**
 * The drift problems of a project's sprint (none when it has no BMAD sprint), with its v7 ticket
 * tree's and, after a v6 → v7 migration, the migration check's. Never throws.
 */
export function sprintProblems(root: string, opts: SprintOptions = {}): Problem[] {
  return checkSprints(root, opts).problems;
}

/**
 * A folder's sprints and their drift problems (with its v7 ticket tree's), for a scan that checks
 * them: `reports` is undefined when they could not be read (the problem says why), so a later
 * reader (the project view) reads them itself and meets the same failure. Never throws.
 */
export function checkSprints(root: string, opts: SprintOptions = {}): { reports?: SprintReport[]; problems: Problem[] } {
  try {
    const settings = bmadSettings(root, opts);
    const installDir = settings.installDir || undefined;
    const reports = loadSprints(root, opts);
    // The tree is found from the BMAD config: the sprint's own when it was loaded the same way (an
    // output setting other than BMAD's default gives another), so a sprint from its cache spares the YAML parse.
    const own = !settings.outputDir || settings.outputDir === '_bmad-output' ? reports.find((r) => r.config.root === path.resolve(root))?.config : undefined;
    const tree = readTicketTree(root, { installDir, config: own });
    const v7 = tree ? clipMessages([...treeProblems(tree), ...(tree.archiveV6 ? migrateCheck(root, { installDir, tree })?.problems ?? [] : [])]) : [];
    return { reports, problems: [...reports.flatMap((r) => r.problems), ...v7] };
  } catch (e) {
    return { problems: [{ file: root, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: 'warning', code: 'sprint-unreadable', message: `The BMAD sprint could not be read (${(e as Error).message}); sprint checks are skipped.` }] };
  }
}

/** A gate whose `expires` changes what is reported when it passes: a waiver runs out, a PASS or CONCERNS is due a re-review. */
function gateExpiryCounts(gate: StoryGate): boolean {
  return gate.verdict === 'WAIVED' || gate.verdict === 'PASS' || gate.verdict === 'CONCERNS';
}

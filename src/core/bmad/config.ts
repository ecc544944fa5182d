/**
 * BMAD config variables of one project, resolved from what its install left behind: v6
 * `_bmad/<module>/config.yaml`, the layered TOML of newer releases (`_bmad/config.toml`,
 * `config.user.toml`, `custom/config.toml`, `custom/config.user.toml`, later wins), the v6 beta
 * `.bmad/` folder (`bmad_folder: .bmad`), the alpha `bmad/` folder with `sprint_artifacts` and
 * `output_folder` defaulting to `docs`, and v4's `.bmad-core/core-config.yaml`. Also where the
 * install is (findBmadInstall) and which subfolders of a larger repository hold BMAD projects
 * (findBmadProjects). Reads small files synchronously; never throws on bad input.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from '../model/yamlDepth';
import { isRecording, recordingExists, recordingList, recordingProbe, recordingRead } from './sprintCache';

// File system reads go through sprintCache's recorders, so a cached sprint knows its config's inputs.
const readTextIfRegular = recordingRead;
const isDirectory = (p: string) => recordingProbe(p, 'd');
import { compareText } from '../model/text';
import { listsWork, parseLedger } from './ledger';
import { storyKeyFromName } from './story';

/** Which install generation the config came from. */
export type BmadLayout = 'v6' | 'v6-toml' | 'v6-beta' | 'alpha' | 'v4' | 'skills' | 'none';

export interface BmadConfig {
  root: string;
  layout: BmadLayout;
  /** The install folder (`_bmad`, `.bmad`, `bmad`, `.bmad-core`), absolute, when there is one. */
  installDir?: string;
  /** Resolved variables (`planning_artifacts`, `implementation_artifacts`, `output_folder`, ...): absolute paths where they are paths. */
  vars: Record<string, string>;
  /** Absolute folders, in the order BMAD uses them. */
  outputFolder: string;
  planningArtifacts: string;
  implementationArtifacts: string;
  /** Where v4 stories live (`devStoryLocation`), and v4 QA (`qa.qaLocation`). */
  storyLocation?: string;
  qaLocation?: string;
  /** Files the values came from, in precedence order (later wins). */
  sources: string[];
  /** Config files that could not be read, with why (shown as warnings, never fatal). */
  warnings: { file: string; line: number; message: string }[];
}

const MAX_CONFIG_BYTES = 1024 * 1024;

/** Install folder names BMAD releases used, newest first: v6.0+, v6 beta, v6 alpha, v4. */
export const BMAD_INSTALL_DIRS = ['_bmad', '.bmad', 'bmad', '.bmad-core'] as const;

/** Files only a BMAD install folder holds (any release): module configs, manifests, v4's core config. */
const INSTALL_MARKERS = [
  'core-config.yaml', 'config.toml', path.join('core', 'config.yaml'), path.join('bmm', 'config.yaml'),
  path.join('_config', 'manifest.yaml'), path.join('_cfg', 'manifest.yaml'), path.join('_config', 'skill-manifest.csv'),
  path.join('_config', 'workflow-manifest.csv'), path.join('_cfg', 'workflow-manifest.csv'),
];

function hasInstallMarker(dir: string): boolean {
  return INSTALL_MARKERS.some((m) => recordingExists(path.join(dir, m)));
}

/**
 * The BMAD install folder of a project: the configured one (Waymark's `bmad.dir`) when it
 * exists, else the first of `_bmad`, `.bmad`, `bmad`, `.bmad-core` holding an install's own
 * files (a plain `bmad/` source folder is not an install), else any top-level folder whose
 * `core/config.yaml` names it as `bmad_folder` (BMAD let the user choose the name).
 */
export function findBmadInstall(root: string, configured?: string): string | undefined {
  const absRoot = path.resolve(root);
  if (configured && !(BMAD_INSTALL_DIRS as readonly string[]).includes(configured) && isDirectory(path.resolve(absRoot, configured))) return path.resolve(absRoot, configured);
  for (const d of BMAD_INSTALL_DIRS) {
    const abs = path.join(absRoot, d);
    if (isDirectory(abs) && (d === '_bmad' || d === '.bmad-core' || hasInstallMarker(abs))) return abs;
  }
  let entries: fs.Dirent[] = [];
  try {
    entries = recordingList(absRoot);
  } catch {
    return undefined;
  }
  for (const e of entries) {
    if (!e.isDirectory() || e.name === 'node_modules' || e.name === '.git') continue;
    const text = readTextIfRegular(path.join(absRoot, e.name, 'core', 'config.yaml'), MAX_CONFIG_BYTES);
    const m = text !== undefined ? /^bmad_folder\s*:\s*["']?([^"'#\r\n]+?)["']?\s*(#.*)?$/m.exec(text) : null;
    if (m && m[1].trim().replace(/^\.\//, '').replace(/^\{project-root\}\//, '') === e.name) return path.join(absRoot, e.name);
  }
  return undefined;
}

/**
 * The agent skill folders BMAD's installer writes workflows into (6.x skills layout):
 * `<.tool>/skills/bmad-*` for every agent (`.claude/skills`, `.agents/skills`, `.cursor/skills`,
 * `.kiro/skills`, `.github/skills`...). Found by shape, not by a list of tools, so a tool added
 * to the installer later is found too. Absolute folders holding at least one `bmad-*` skill.
 */
export function findBmadSkillRoots(root: string): string[] {
  const absRoot = path.resolve(root);
  const out: string[] = [];
  let entries: fs.Dirent[] = [];
  try {
    entries = recordingList(absRoot);
  } catch {
    return out;
  }
  for (const e of entries) {
    // Waymark's own `.waymark/` is no agent's (the caches' listings leave it out: a first run makes it).
    if (!e.isDirectory() || !e.name.startsWith('.') || e.name === '.git' || e.name === '.waymark') continue;
    const skills = path.join(absRoot, e.name, 'skills');
    let names: string[] = [];
    try {
      names = recordingList(skills).map((e) => e.name);
    } catch {
      continue;
    }
    if (names.some((n) => /^bmad[-_]/i.test(n)) || (names.length > 0 && listedSkills(absRoot).some((id) => names.includes(id)))) out.push(skills);
  }
  return out.sort();
}

/** Skill ids the install's `_config/skill-manifest.csv` lists (first column), for skills not named `bmad-*`. */
function listedSkills(root: string): string[] {
  for (const d of BMAD_INSTALL_DIRS) {
    const text = readTextIfRegular(path.join(root, d, '_config', 'skill-manifest.csv'), 8 * 1024 * 1024);
    if (text !== undefined) return text.split(/\r?\n/).slice(1).map((l) => l.replace(/^"?([^",]*)"?,.*$/, '$1').trim()).filter(Boolean);
  }
  return [];
}

const PROJECT_SKIP = new Set(['node_modules', '.git', '.waymark', 'dist', 'build', 'out', '.next', 'vendor', 'target', '.venv', 'venv', '__pycache__', 'coverage']);
/** Test data is no project of the repository's (a tool's own fixtures of BMAD installs). */
const FIXTURE_DIR = /^(__)?(test[-_]?)?fixtures?(__)?$|^testdata$/i;
/** Folders looked into when searching a repository for BMAD projects: bounded, so a huge folder costs little. */
const MAX_PROJECT_SEARCH_DIRS = 400;
const projectCache = new Map<string, { at: number; found: string[] }>();

/**
 * The folders of `root` that are BMAD projects: `root` itself when it has an install (or a
 * skills install, or a `_bmad-output` folder), else its subfolders that do, to a few levels down
 * (a monorepo's `apps/planner/_bmad`), nearest first. A project's own subfolders, dependency and
 * build folders and test fixtures are not searched; at most a few hundred folders are read. The
 * answer is kept for a second (a scan asks several times).
 */
export function findBmadProjects(root: string, configured?: string, maxDepth = 3): string[] {
  const absRoot = path.resolve(root);
  const key = `${absRoot}\0${configured ?? ''}\0${maxDepth}`;
  const now = Date.now();
  const hit = projectCache.get(key);
  // While recording, the folders are listed again: their listings are inputs of what is recorded.
  if (hit && now - hit.at < 1000 && !isRecording()) return hit.found;
  const found = searchBmadProjects(absRoot, configured, maxDepth);
  if (projectCache.size > 100) projectCache.clear();
  projectCache.set(key, { at: now, found });
  return found;
}

/** An install, a skills install, or only BMAD's output folder (many projects keep `_bmad/` out of git). */
function hasBmadInstallOrOutput(dir: string, configured?: string): boolean {
  return findBmadInstall(dir, configured) !== undefined || findBmadSkillRoots(dir).length > 0 || isDirectory(path.join(dir, '_bmad-output'));
}

/**
 * Whether `dir` is a BMAD project of its own: an install of any layout (`_bmad`, `.bmad`, an
 * alpha `bmad/` with an install's files, `.bmad-core`, a renamed `bmad_folder`), a skills install,
 * BMAD's output folder, or a ledger where BMAD's default folders keep one that lists work. The one
 * test for "this folder is a project" (a command run inside a monorepo's subfolder reads that
 * project; a repository search finds it).
 */
export function isBmadProjectFolder(dir: string, configured?: string): boolean {
  const abs = path.resolve(dir);
  return hasBmadInstallOrOutput(abs, configured) || ROOT_LEDGERS.some((rel) => rootLedgerListsWork(path.join(abs, rel)));
}

/**
 * The BMAD projects of their own nested below a folder that is itself one (a v4 project kept in
 * `Projects/HX Workplace/` of a repository whose root has its own install): the root's sprint is
 * the root's project, and these are said beside it, each read from its own folder. Searched as
 * findBmadProjects searches a repository, bounded the same way; not recorded into a sprint's inputs.
 */
export function nestedBmadProjects(root: string, configured?: string, maxDepth = 3): string[] {
  const absRoot = path.resolve(root);
  if (!hasBmadInstallOrOutput(absRoot, configured)) return [];
  return searchBmadProjects(absRoot, configured, maxDepth, true).filter((d) => d !== absRoot);
}

function searchBmadProjects(absRoot: string, configured: string | undefined, maxDepth: number, below = false): string[] {
  if (!below && hasBmadInstallOrOutput(absRoot, configured)) return [absRoot];
  // Below the root, one read of each folder tells: its entries name an install or an output folder.
  const looksLikeProject = (dir: string, entries: fs.Dirent[]) =>
    entries.some((e) => e.isDirectory() && (e.name === '_bmad' || e.name === '.bmad-core' || e.name === '_bmad-output' || ((e.name === '.bmad' || e.name === 'bmad') && hasInstallMarker(path.join(dir, e.name))))) ||
    entries.some((e) => e.isDirectory() && e.name.startsWith('.') && e.name !== '.git' && isDirectory(path.join(dir, e.name, 'skills')) && findBmadSkillRoots(dir).length > 0) ||
    // Under a root that is no project (a repository whose projects are its subfolders), a subfolder
    // keeping story files where a v4 project keeps them (`docs/stories/1.1.story.md`), its install left
    // out of git: a project, as such a root is one (ROOT_STORY_DIRS). Not below a project's own root.
    (!below && entries.some((e) => e.isDirectory() && e.name === 'docs') && ROOT_STORY_DIRS.some((rel) => holdsStoryFiles(path.join(dir, rel))));
  const found: string[] = [];
  let level = [absRoot];
  let visited = 0;
  for (let depth = 0; depth <= maxDepth && level.length && found.length < 50; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (++visited > MAX_PROJECT_SEARCH_DIRS) return found.sort();
      let entries: fs.Dirent[] = [];
      try {
        entries = recordingList(dir);
      } catch {
        continue;
      }
      if (dir !== absRoot && looksLikeProject(dir, entries)) {
        found.push(dir);
        continue;
      }
      if (depth === maxDepth) continue;
      for (const e of entries) {
        // A folder kept for the record (`archive/v2_app/` holding the retired app's `_bmad-output/`) holds
        // history, not a project to take up: its ledger's stories are not offered, its problems not raised.
        if (!e.isDirectory() || e.name.startsWith('.') || PROJECT_SKIP.has(e.name) || FIXTURE_DIR.test(e.name) || RETIRED_DIR.test(e.name) || (BMAD_INSTALL_DIRS as readonly string[]).includes(e.name) || /^_bmad/.test(e.name)) continue;
        next.push(path.join(dir, e.name));
      }
    }
    level = next;
  }
  // Installs below the root (an old one kept in `v4-backup/`, a module's) leave the root's own
  // ledger-only project standing: its sprint-status.yaml where BMAD's default folders put it, when
  // it lists work by the rule that chooses a project's ledger (ledger.ts listsWork).
  // Its story files likewise: a v4 team keeps `docs/stories/` at the root it works from, whatever
  // folder an install was copied into (`infrastructure/.bmad-core`).
  if (found.length && (ROOT_LEDGERS.some((rel) => rootLedgerListsWork(path.join(absRoot, rel))) || ROOT_STORY_DIRS.some((rel) => holdsStoryFiles(path.join(absRoot, rel))))) return [absRoot, ...found.sort()];
  return found.sort();
}

/** Where a project with no install at its root keeps its story files (v4's `devStoryLocation`, v6 beta's sprint artifacts). */
const ROOT_STORY_DIRS = ['docs/stories', 'docs/sprint-artifacts'];

/** Whether a folder holds a Markdown file named as BMAD names story files (`1.1.story.md`, `2-3-login.md`). */
function holdsStoryFiles(dir: string): boolean {
  let entries: fs.Dirent[];
  try {
    entries = recordingList(dir);
  } catch {
    return false;
  }
  return entries.some((e) => e.isFile() && storyKeyFromName(e.name) !== undefined);
}

function rootLedgerListsWork(file: string): boolean {
  const text = readTextIfRegular(file, 8 * 1024 * 1024);
  return text !== undefined && listsWork(parseLedger(file, text));
}

/** Where a project with no install in git keeps its ledger, relative to its root. */
// (`.bmad/sprint-status.yaml`: where the BMAD skills add-on for Claude Code keeps its sprint plan's ledger.)
const ROOT_LEDGERS = ['sprint-status.yaml', 'docs/sprint-status.yaml', 'docs/sprint-artifacts/sprint-status.yaml', 'docs/implementation-artifacts/sprint-status.yaml', '.bmad/sprint-status.yaml'];

/**
 * A small TOML reader for BMAD's generated config: `[table.sub]` headers, `key = value` with
 * basic/literal strings, numbers, booleans and arrays of those, `#` comments. Returns the nested
 * tables, or an error with its 1-based line.
 */
export function parseSimpleToml(text: string): { data: Record<string, unknown>; error?: { line: number; message: string } } {
  const data: Record<string, unknown> = Object.create(null);
  let table = data;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = stripTomlComment(lines[i]).trim();
    if (!line) continue;
    const header = /^\[\[?\s*([A-Za-z0-9_.\- "']+?)\s*\]\]?$/.exec(line);
    if (header) {
      table = data;
      for (const part of header[1].split('.').map((s) => s.trim().replace(/^["']|["']$/g, ''))) {
        if (isUnsafeKey(part)) return { data, error: { line: i + 1, message: `unsafe table name '${part}'` } };
        const next = table[part];
        if (next && typeof next === 'object' && !Array.isArray(next)) table = next as Record<string, unknown>;
        else {
          const t: Record<string, unknown> = Object.create(null);
          table[part] = t;
          table = t;
        }
      }
      continue;
    }
    const kv = /^("[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)\s*=\s*(.*)$/.exec(line);
    if (!kv) return { data, error: { line: i + 1, message: `cannot read '${line.slice(0, 60)}'` } };
    const key = kv[1].replace(/^["']|["']$/g, '');
    if (isUnsafeKey(key)) continue;
    const value = parseTomlValue(kv[2].trim());
    if (value === undefined) return { data, error: { line: i + 1, message: `cannot read the value of '${key}'` } };
    table[key] = value;
  }
  return { data };
}

function isUnsafeKey(k: string): boolean {
  return k === '__proto__' || k === 'constructor' || k === 'prototype';
}

function stripTomlComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') return line.slice(0, i);
  }
  return line;
}

function parseTomlValue(v: string): unknown {
  if (/^"(?:[^"\\]|\\.)*"$/.test(v)) {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v.slice(1, -1);
    }
  }
  if (/^'[^']*'$/.test(v)) return v.slice(1, -1);
  if (v === 'true' || v === 'false') return v === 'true';
  if (/^[+-]?\d[\d_]*(\.\d+)?$/.test(v)) return Number(v.replace(/_/g, ''));
  if (v.startsWith('[') && v.endsWith(']')) {
    const inner = v.slice(1, -1).trim();
    if (!inner) return [];
    const parts = inner.match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^,\s][^,]*/g) ?? [];
    const out = parts.map((p) => parseTomlValue(p.trim()));
    return out.some((x) => x === undefined) ? undefined : out;
  }
  // Dates and other bare values: kept as text.
  if (/^[\w:.+\-]+$/.test(v)) return v;
  return undefined;
}

function flattenStrings(obj: Record<string, unknown>, into: Record<string, string>): void {
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string') into[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') into[k] = String(v);
  }
}

/**
 * path.join(dir, name) for a name from dir's own listing (one segment, never `.` or `..`): when dir
 * is absolute and already in normal form (`normal`: normalDir, tested once per folder, or once for a
 * walk: an entry of a folder in normal form is in normal form), the join is the concatenation, without normalizing the whole path again for each of a
 * folder's hundreds of story files.
 */
export function entryPath(dir: string, normal: boolean, name: string): string {
  if (!normal) return path.join(dir, name);
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}

/** Whether dir is absolute and in normal form (path.normalize leaves it as it is): see entryPath. */
export function normalDir(dir: string): boolean {
  return path.isAbsolute(dir) && path.normalize(dir) === dir;
}

/** A folder a BMAD file declares (`{project-root}/docs/stories`, `docs/stories`), absolute under the project's root. */
export function projectPath(root: string, declared: string): string {
  return path.resolve(root, declared.replace(/\{project-root\}\/?/g, ''));
}

/** Replaces `{name}` references (`{project-root}`, `{output_folder}`, `{config_source}:key` is left alone). */
export function expandVars(value: string, vars: Record<string, string>, root: string): string {
  let out = value;
  for (let pass = 0; pass < 5; pass++) {
    const next = out.replace(/\{([A-Za-z0-9_\-]+)\}/g, (m, name: string) => {
      if (name === 'project-root' || name === 'project_root') return root;
      const v = vars[name];
      return v !== undefined && !v.includes(`{${name}}`) ? v : m;
    });
    if (next === out) break;
    out = next;
  }
  return out;
}

/**
 * A folder the config names by an absolute path of the machine it was installed on (`F:/Lastking/_bmad-output`,
 * `/home/ana/game/_bmad-output/stories`: the installer writes the folder it ran in, and the config was
 * committed from there) that is not here: the same folder in this project, read from the first of its
 * segments that is a folder of the root (`_bmad-output/stories`). Any other path as toAbs reads it.
 */
function configuredPath(root: string, p: string): string {
  const abs = toAbs(root, p);
  if (!(/^[A-Za-z]:[\\/]/.test(p) || path.isAbsolute(p)) || isDirectory(abs)) return abs;
  // (A folder of this project not made yet, `{root}/_bmad-output/stories`, is this project's.)
  const rel = path.isAbsolute(p) ? path.relative(root, abs) : '..';
  if (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel)) return abs;
  const segs = p.replace(/^[A-Za-z]:/, '').split(/[\\/]+/).filter((x) => x && x !== '.' && x !== '..');
  for (let i = 0; i < segs.length; i++) if (isDirectory(path.join(root, segs[i]))) return path.join(root, ...segs.slice(i));
  return abs;
}

function toAbs(root: string, p: string): string {
  const cleaned = p.replace(/^\.\//, '');
  return path.isAbsolute(cleaned) ? path.normalize(cleaned) : path.resolve(root, cleaned);
}

/**
 * The last parse of each config file, by its text: a validate reads a project's config for the
 * catalog, the sprint and the project view, and the YAML parse is the cost, not the read. The same
 * text gives the same data (never changed by a reader); a parse that threw is not kept.
 */
const configParses = new Map<string, { text: string; data: unknown }>();

function parsedConfig(file: string, text: string): unknown {
  const hit = configParses.get(file);
  if (hit && hit.text === text) return hit.data;
  const data = flatConfig(text) ?? (parseYaml(text, { schema: 'core', maxAliasCount: 100, logLevel: 'error' }) as unknown);
  if (configParses.size >= 64) configParses.clear();
  configParses.set(file, { text, data });
  return data;
}

const FLAT_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
/** Keys the core schema reads as another value than their text (`true`, `null`), or that an object cannot hold as its own. */
const SPECIAL_KEY = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|__proto__)$/;
/**
 * A plain scalar the core schema reads as a string: a letter (ASCII, or of the Latin, Greek,
 * Cyrillic, CJK, kana and Hangul blocks: `communication_language: 中文`), `_`, `/` or a `.` before
 * a letter (`bmad_folder: .bmad`) first, so no number and no indicator; no `:` nor `#`.
 */
const PLAIN_STRING = /^\.?[A-Za-z_/\u00C0-\u02AF\u0370-\u1FFF\u3040-\u9FFF\uAC00-\uD7A3][A-Za-z0-9 _./(){}+\-\u00C0-\u02AF\u0370-\u1FFF\u3040-\u9FFF\uAC00-\uD7A3]*$/;
/** The core schema's other values among plain words: booleans, null, and the floats a `.` starts (`.inf`, `.NaN`). */
const SPECIAL_PLAIN = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|\.(?:inf|Inf|INF|nan|NaN|NAN))$/;
const CORE_VALUE: Record<string, boolean | null> = { true: true, True: true, TRUE: true, false: false, False: false, FALSE: false, null: null, Null: null, NULL: null, '~': null, '': null };
const DOUBLE_QUOTED = /^"([^"\\]*)"(?: +#.*)?$/;
const SINGLE_QUOTED = /^'([^']*)'(?: +#.*)?$/;

/**
 * A config of top-level `key: value` lines only, as BMAD's installer writes `config.yaml`: the
 * mapping the YAML parser gives it (core schema), each value a string, a boolean (`true`, `False`)
 * or null (`~`, nothing); undefined for anything else (nesting, numbers, escapes, anchors, tabs, a
 * repeated key...), which the parser reads. A first `sprint` or `validate` then loads no YAML
 * package at all (60 modules, and a cold parse).
 */
export function flatConfig(text: string): Record<string, string | boolean | null> | undefined {
  if (text.includes('\t') || text.charCodeAt(0) === 0xfeff) return undefined;
  const out: Record<string, string | boolean | null> = {};
  const seen = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.includes('\r')) return undefined;
    const start = line.search(/\S/);
    if (start < 0 || line[start] === '#') continue;
    const m = FLAT_LINE.exec(line);
    if (!m || SPECIAL_KEY.test(m[1]) || seen.has(m[1])) return undefined;
    seen.add(m[1]);
    const v = (m[2] ?? '').replace(/ +$/, '');
    const q = v[0] === '"' ? DOUBLE_QUOTED.exec(v) : v[0] === "'" ? SINGLE_QUOTED.exec(v) : undefined;
    if (q) out[m[1]] = q[1];
    else if (q === undefined && PLAIN_STRING.test(v) && !SPECIAL_PLAIN.test(v)) out[m[1]] = v;
    else if (q === undefined && Object.prototype.hasOwnProperty.call(CORE_VALUE, v)) out[m[1]] = CORE_VALUE[v];
    else return undefined;
  }
  return seen.size ? out : undefined;
}

/** Loads a YAML mapping of plain keys; problems go to `warnings`. */
function loadYamlVars(file: string, into: Record<string, string>, warnings: BmadConfig['warnings'], nested?: (data: Record<string, unknown>) => void): boolean {
  const text = readTextIfRegular(file, MAX_CONFIG_BYTES);
  if (text === undefined) return false;
  try {
    const data = parsedConfig(file, text);
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      flattenStrings(data as Record<string, unknown>, into);
      nested?.(data as Record<string, unknown>);
    }
  } catch (e) {
    const pos = (e as { linePos?: { line: number }[] }).linePos;
    warnings.push({ file, line: pos?.[0]?.line ?? 1, message: `BMAD config is not valid YAML (${(e as Error).message.split('\n')[0]}); its values are not used.` });
  }
  return true;
}

/**
 * Resolves the BMAD config of a project folder. The caller may name the install folder
 * (Waymark's `bmad.dir` setting); otherwise findBmadInstall looks for it.
 */
export function loadBmadConfig(root: string, opts?: { installDir?: string; outputDir?: string }): BmadConfig {
  const absRoot = path.resolve(root);
  const raw: Record<string, string> = Object.create(null);
  const sources: string[] = [];
  const warnings: BmadConfig['warnings'] = [];
  let layout: BmadLayout = 'none';
  const installDir = findBmadInstall(absRoot, opts?.installDir);
  if (installDir) {
    // v4: one core-config.yaml with nested keys.
    const v4 = path.join(installDir, 'core-config.yaml');
    if (loadYamlVars(v4, raw, warnings, (data) => {
      const qa = data.qa as Record<string, unknown> | undefined;
      if (qa && typeof qa.qaLocation === 'string') raw.qaLocation = qa.qaLocation;
      const prd = data.prd as Record<string, unknown> | undefined;
      if (prd && typeof prd.prdFile === 'string') raw.prdFile = prd.prdFile;
    })) {
      sources.push(v4);
      layout = 'v4';
    }
    // v6 YAML: core first, then modules (bmm last so its paths win).
    for (const mod of ['core', 'cis', 'bmb', 'tea', 'bmgd', 'bmm']) {
      const f = path.join(installDir, mod, 'config.yaml');
      if (loadYamlVars(f, raw, warnings)) {
        sources.push(f);
        if (layout === 'none') layout = path.basename(installDir) === 'bmad' ? 'alpha' : path.basename(installDir) === '.bmad' ? 'v6-beta' : 'v6';
      }
    }
    // Layered TOML (v6.3+): [core] and [modules.<code>] tables.
    for (const rel of ['config.toml', 'config.user.toml', path.join('custom', 'config.toml'), path.join('custom', 'config.user.toml')]) {
      const f = path.join(installDir, rel);
      const text = readTextIfRegular(f, MAX_CONFIG_BYTES);
      if (text === undefined) continue;
      const { data, error } = parseSimpleToml(text);
      if (error) {
        warnings.push({ file: f, line: error.line, message: `BMAD config TOML: ${error.message}; the rest of this file is not used.` });
      }
      const core = data.core as Record<string, unknown> | undefined;
      if (core && typeof core === 'object') flattenStrings(core, raw);
      const modules = data.modules as Record<string, Record<string, unknown>> | undefined;
      if (modules && typeof modules === 'object') {
        const order = Object.keys(modules).sort((a, b) => (a === 'bmm' ? 1 : b === 'bmm' ? -1 : compareText(a, b)));
        for (const m of order) if (modules[m] && typeof modules[m] === 'object') flattenStrings(modules[m], raw);
      }
      flattenStrings(data, raw);
      sources.push(f);
      layout = 'v6-toml';
    }
  }
  if (layout === 'none' && findBmadSkillRoots(absRoot).length) layout = 'skills';
  // Resolve references among the values.
  const vars: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(raw)) vars[k] = v;
  // The alpha and beta installs (`bmad/`, `.bmad/`) wrote to `docs/` and `sprint_artifacts`.
  const alpha = layout === 'alpha' || layout === 'v6-beta' || (installDir !== undefined && (path.basename(installDir) === 'bmad' || path.basename(installDir) === '.bmad'));
  if (vars.output_folder === undefined) vars.output_folder = opts?.outputDir && !alpha && layout !== 'v4' ? opts.outputDir : alpha || layout === 'v4' ? 'docs' : '_bmad-output';
  for (let pass = 0; pass < 3; pass++) for (const k of Object.keys(vars)) vars[k] = expandVars(vars[k], vars, absRoot);
  const pathVar = (v: string | undefined) => (v === undefined || v.includes('{') ? undefined : configuredPath(absRoot, v));
  // A value the config declares, written from the folder above the install's (`docs/stories` in a
  // `docs/.bmad-core` install: the agent ran in the repository's root): read there when it names
  // this folder and exists only so. Never leaves the project's folder.
  const declaredPath = (v: string | undefined) => {
    const abs = pathVar(v);
    if (abs === undefined || v === undefined || fs.existsSync(abs)) return abs;
    const first = v.replace(/^\.\//, '').split(/[\\/]/)[0];
    if (first !== path.basename(absRoot) || path.isAbsolute(v)) return abs;
    const above = toAbs(path.dirname(absRoot), v);
    return isDirectory(above) ? above : abs;
  };
  const outputFolder = pathVar(vars.output_folder) ?? path.join(absRoot, '_bmad-output');
  const planningArtifacts = pathVar(vars.planning_artifacts) ?? (alpha ? outputFolder : path.join(outputFolder, 'planning-artifacts'));
  const implementationArtifacts =
    pathVar(vars.implementation_artifacts) ?? pathVar(vars.sprint_artifacts) ?? pathVar(vars.dev_story_location) ??
    (alpha ? (isDirectory(path.join(outputFolder, 'sprint-artifacts')) ? path.join(outputFolder, 'sprint-artifacts') : outputFolder) : path.join(outputFolder, 'implementation-artifacts'));
  const storyLocation = declaredPath(vars.devStoryLocation) ?? declaredPath(vars.story_location);
  const qaLocation = declaredPath(vars.qaLocation);
  for (const k of Object.keys(vars)) {
    if (/(_folder|_artifacts|_location|Location|_knowledge|^project_root)$/.test(k)) {
      const abs = /Location$|_location$/.test(k) ? declaredPath(vars[k]) : pathVar(vars[k]);
      if (abs) vars[k] = abs;
    }
  }
  return { root: absRoot, layout, installDir, vars, outputFolder, planningArtifacts, implementationArtifacts, storyLocation, qaLocation, sources, warnings };
}

/** Folders kept for the record or for tests, whose ledgers are not the project's live ones. */
// `archive-v6/` and `migration-v6-v7/` are what BMAD's v6 → v7 migration leaves: history, not the live ledger.
// An archive of something named with it (`docs-archive/`, `sprint_archive/`, `archive-2025/`): the word
// archive joined to another by `-` or `_` is the same folder kept for the record.
// An old copy or a backup, numbered, dated or named after what it copies (`docs_old3/`, `_backups/`,
// `backup-2025-11/`, `old_2025/`); a folder whose name only begins with the word (`backup-service/`,
// `old-town-app/`) is live work, and an install kept as `v4-backup/` is still found as a project.
// (A pattern's source, shared with sprint.ts's story folders.)
export const OLD_COPY_DIR = String.raw`_(?:old|backups?)\d*|(?:old|backups?)\d+|[\w.-]+[-_]old\d*|_?(?:old|backups?)[-_]\d[\w.-]*`;
export const RETIRED_DIR = new RegExp(String.raw`^(_?archived?|archives|archive-v\d+|migration-v\d+-v\d+|old|outdated|deprecated|backups?|legacy|fixtures?|examples?|templates?|__tests__|([\w.-]+[-_])?_?(archived?|archives)([-_][\w.-]+)?|${OLD_COPY_DIR})$`, 'i');

/**
 * The first folder of `rel` (a path from the project's root, either separator) kept for the record
 * or for tests, if any: work in it is history, not work to take up.
 */
export function retiredFolderOf(rel: string): string | undefined {
  const parts = rel.split(/[\\/]/);
  for (let i = 0; i < parts.length - 1; i++) if (RETIRED_DIR.test(parts[i])) return parts[i];
  return undefined;
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StepDef } from '../types';
import type { BmadWorkflow } from './workflowShape';
import { cachedBmadCatalog, recordingList, recordingListOr, recordingProbe, recordingRead } from './sprintCache';
import { compareText, ownCopy } from '../model/text';
import { closeAsync, openAsync, readAsync } from '../store/asyncFs';
import { addDeclaredRows, emptyDeclared, firstHeading, FRONTMATTER_BLOCK, type DeclaredWorkflows } from './known';
export type { BmadWorkflow } from './workflowShape';
import { entryPath, expandVars, findBmadInstall, findBmadProjects, findBmadSkillRoots, loadBmadConfig, normalDir, type BmadConfig } from './config';

export interface BmadCatalog {
  /** By manifest name and by folder name (lower-case). */
  byName: Map<string, BmadWorkflow>;
  workflows: BmadWorkflow[];
  /** Declared output paths compiled against the project's BMAD config (identify.ts). */
  patterns?: OutputPattern[];
  /** Names that came from `_config/workflow-manifest.csv` or `skill-manifest.csv`. */
  manifestNames?: Set<string>;
  /** Every installed workflow folder, copies for other agents included: their files are the method, not artifacts. */
  methodDirs?: string[];
  /** The BMAD project folders read (the workspace folder, or its subfolders in a monorepo), and their output folders. */
  projects?: { root: string; outputFolders: string[] }[];
  /** What the installs declare about their workflows, installed or not (help catalogs, manifests). */
  declared?: DeclaredWorkflows;
  /** The shapes of the templates a skill keeps in its `assets/` or `templates/` folder: an artifact it wrote carries them (identify.ts). */
  skillTemplates?: SkillTemplate[];
}

/**
 * A skill template's shape: the frontmatter keys of its own it writes (keys most documents carry
 * left out) and its title as a pattern, its variables as wildcards (`Show Bible: {Show Title}`);
 * `lines`, the body's fixed lines (no variable in them: headings, labels, notes), which tell two
 * templates of one shape apart (a full skill's and a rapid-start skill's).
 */
export interface SkillTemplate { skill: string; file: string; keys: string[]; title?: string; lines?: string[] }

/** A document body's distinct lines as templates and artifacts are compared: trimmed, words of three letters or more, no `{variable}`. */
export function fixedLines(body: string): Set<string> {
  const out = new Set<string>();
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line.length < 3 || line.includes('{') || !/\p{L}{3}/u.test(line)) continue;
    out.add(line);
    if (out.size >= 400) break;
  }
  return out;
}

/** Frontmatter keys most documents carry: they tell no template from another. */
const COMMON_KEYS = new Set(['status', 'date', 'created', 'updated', 'lastmodified', 'last_modified', 'last_updated', 'title', 'author', 'version', 'project', 'project_name', 'user_name', 'stepscompleted', 'laststep', 'workflowtype', 'inputdocuments', 'name', 'description', 'type', 'id', 'tags']);

/** A template's shape from its text; undefined when it has none that tells it apart. */
export function skillTemplateShape(skill: string, file: string, text: string): SkillTemplate | undefined {
  const fm = FRONTMATTER_BLOCK.exec(text);
  const keys = fm ? [...fm[1].matchAll(/^([A-Za-z_][\w-]*)[ \t]*:/gm)].map((m) => m[1]).filter((k) => !COMMON_KEYS.has(k.toLowerCase())) : [];
  const body = fm ? text.slice(fm[0].length) : text;
  const h1 = firstHeading(body);
  // A title with the template's variables in it and words of its own.
  const parts = h1?.split(/(\{\{?[^{}]+\}\}?)/) ?? [];
  const title = parts.length > 1 && /\p{L}{3}/u.test(parts.filter((_, i) => i % 2 === 0).join(''))
    ? `^${parts.map((x, i) => (i % 2 ? '.+' : x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('')}$`
    : undefined;
  if (!(keys.length >= 2 || title)) return undefined;
  const lines = [...fixedLines(body)];
  return { skill, file, keys, title, ...(lines.length ? { lines } : {}) };
}

export const emptyBmadCatalog = (): BmadCatalog => ({ byName: new Map(), workflows: [] });

const STEP_FILE = /^step-(\d+)([a-z]?)-(.+)\.md$/i;
/** Mode step files: `step-e-01-discovery.md`, `step-v-02b-parity-check.md`, and without the `step-` (`e-01-load-existing.md`). */
const MODE_STEP_FILE = /^(?:step-)?([a-z])-(\d+)([a-z]?)-(.+)\.md$/i;
const MODE_NAMES: Record<string, string> = { e: 'edit', v: 'validate', c: 'create' };

/** Orders the step files of a mode folder (`steps-e/`), ids as written (`step-e-01-discovery`). */
export function modeStepsFromFileNames(dir: string, names: string[]): StepDef[] {
  const parsed = names.map((n) => ({ n, m: MODE_STEP_FILE.exec(n) ?? STEP_FILE.exec(n) })).filter((x) => x.m);
  const num = (x: RegExpExecArray) => (x.length === 5 ? [Number(x[2]), x[3]] : [Number(x[1]), x[2]]) as [number, string];
  parsed.sort((a, b) => num(a.m!)[0] - num(b.m!)[0] || compareText(num(a.m!)[1], num(b.m!)[1]) || compareText(a.n, b.n));
  const normal = normalDir(dir);
  return Object.freeze(parsed.map((p, i): StepDef => Object.freeze({ id: p.n.slice(0, -3), index: i + 1, title: p.n.slice(0, -3).replace(/^(?:step-)?([a-z]-)?\d+[a-z]?-/i, '').replace(/-/g, ' '), file: entryPath(dir, normal, p.n) }))) as StepDef[];
}

/** Reads `key: value` from a file's leading frontmatter or YAML (first 4 KB), without a YAML parser. */
async function declared(file: string, key: string): Promise<string | undefined> {
  let fd: number | undefined;
  try {
    fd = await openAsync(file, 'r');
    const buf = Buffer.alloc(4096);
    const bytesRead = await readAsync(fd, buf, 0, 4096, 0);
    const head = buf.subarray(0, bytesRead).toString('utf8');
    const m = new RegExp(`^\\s*${key}\\s*:\\s*["']?([^"'#\\r\\n]+?)["']?\\s*(#.*)?$`, 'm').exec(head);
    return m ? m[1].trim() : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) await closeAsync(fd).catch(() => undefined);
  }
}

/**
 * A workflow's own output declaration: `default_output_file`, `outputFile`, `output_file`,
 * `<name>_output_file`, and the work file a workflow builds before renaming it (`wipFile`).
 */
const OUTPUT_KEY = /^(?:default_output_file|output_?file|outputFile|[a-z_]+_output_file|wip_?file)$/i;
const MAX_WORKFLOW_BYTES = 256 * 1024;

/**
 * The outputs a workflow file declares, in YAML (frontmatter or `workflow.yaml`: `outputFile:
 * '{planning_artifacts}/prd.md'`) or in its Markdown prose (``- `default_output_file` =
 * `{output_folder}/brainstorming/brainstorming-session-{{date}}.md` ``). Input files (`prd_file`,
 * `epics_file`) are not outputs; globs (`*ux*.md`) and alternatives (`a || b`) are not paths.
 */
export function declaredOutputs(text: string): { pattern: string; source: 'outputFile' | 'default_output_file' }[] {
  const out: { pattern: string; source: 'outputFile' | 'default_output_file' }[] = [];
  const add = (key: string, value: string) => {
    const v = value.trim();
    if (!OUTPUT_KEY.test(key) || !v || /[*|\s]/.test(v) || !/\.(md|ya?ml)$/i.test(v)) return;
    // (A copy: the pattern is kept in the catalog, a slice would keep the step file's whole text.)
    if (!out.some((o) => o.pattern === v)) out.push({ pattern: ownCopy(v), source: /^output_?file$|^outputFile$|^wip_?file$/i.test(key) ? 'outputFile' : 'default_output_file' });
  };
  // Every output key (OUTPUT_KEY) holds `output_file`, `outputfile`, `wip_file` or `wipfile` in
  // some case, and every sentence's path holds `}/`: a text with neither (most step files: their
  // prose says "output" often, these rarely) is not scanned line by line (the catalog reads
  // hundreds on every run).
  if (/output_?file|wip_?file/i.test(text)) {
    for (const m of text.matchAll(/^[ \t]*["']?([A-Za-z_]+)["']?[ \t]*:[ \t]*["']?([^"'#\r\n]+?)["']?[ \t]*(?:#.*)?$/gm)) add(m[1], m[2]);
    for (const m of text.matchAll(/`([A-Za-z_]+)`\s*=\s*`([^`\r\n]+)`/g)) add(m[1], m[2]);
  }
  if (!text.includes('}/')) return out;
  // A sentence naming the output file: "Create the starter output file: `{planning_artifacts}/research/…-{{date}}.md`",
  // or the final name a work file is renamed to: "Rename `{wipFile}` → `{implementation_artifacts}/tech-spec-{slug}.md`".
  // The lines that say so are found by one search of the text (a match never spans lines), each
  // once and in order, rather than by splitting the text and testing every line: step files are
  // mostly prose and few of their lines say so.
  const said = OUTPUT_SENTENCE;
  said.lastIndex = 0;
  for (let m = said.exec(text); m; m = said.exec(text)) {
    const from = text.lastIndexOf('\n', m.index) + 1;
    const eol = text.indexOf('\n', m.index);
    // The line as `split(/\r?\n/)` gives it: its `\r` dropped only before a `\n`.
    const line = eol < 0 ? text.slice(from) : text.slice(from, text.charCodeAt(eol - 1) === 13 ? eol - 1 : eol);
    for (const p of line.matchAll(/`(\{(?:output_folder|planning_artifacts|implementation_artifacts|sprint_artifacts)\}\/[^`\s]+)`/g)) add('default_output_file', p[1]);
    if (eol < 0) break;
    said.lastIndex = eol + 1;
  }
  return out;
}

/** A sentence of a workflow's prose that names its output file, or the name a work file is renamed to. */
const OUTPUT_SENTENCE = /\boutput (?:file|document)\b|\brenam(?:e|es|ed|ing)\b|\bfinal (?:file ?name|file|document)\b/gi;

// The catalog reads through sprintCache's recorders: kept across processes (cachedBmadCatalog), it
// is read again when any file it read, folder it listed or path it probed changes.
function readHead(file: string, max: number): string | undefined {
  return recordingRead(file, max);
}

/**
 * Whether a step file marks itself optional as BMAD's step files do (create-prd's step-05-domain and
 * step-06-innovation, BMAD-METHOD v6.0–v6.6): its frontmatter `description:` ends `(optional step)`,
 * its first heading ends `(Optional)`, or its rules say `OPTIONAL STEP` or `This step is OPTIONAL`.
 * Only the head of the file is read (the marks are in its first lines).
 */
export function stepMarkedOptional(text: string): boolean {
  const head = text.slice(0, STEP_HEAD_BYTES);
  if (/^description\s*:.*\boptional step\b/im.test(head)) return true;
  if (/^#\s[^\n]*\(optional\)[ \t]*$/im.test(head.replace(/^---[\s\S]*?\n---/, ''))) return true;
  return /\bOPTIONAL STEP\b|\bthis step is optional\b/i.test(head);
}
const STEP_HEAD_BYTES = 4096;

/** Parses a step file name: `step-02b-vision.md` → {num: 2, letter: 'b', slug: 'vision'}. */
export function parseStepFileName(name: string): { num: number; letter: string; slug: string; id: string } | undefined {
  const m = STEP_FILE.exec(name);
  if (!m) return undefined;
  return { num: Number(m[1]), letter: m[2].toLowerCase(), slug: m[3], id: name.slice(0, -3) };
}

export function isContinuationStep(slug: string): boolean {
  return /^(continu|resume)/i.test(slug);
}

/** Orders and numbers step files of one folder. */
export function stepsFromFileNames(dir: string, names: string[]): { steps: StepDef[]; continuation: string[] } {
  const parsed: { num: number; letter: string; id: string; slug: string; file: string }[] = [];
  const continuation: string[] = [];
  const normal = normalDir(dir);
  for (const name of names) {
    const p = parseStepFileName(name);
    if (!p) continue;
    if (isContinuationStep(p.slug)) {
      continuation.push(p.id);
      continue;
    }
    parsed.push({ ...p, file: entryPath(dir, normal, name) });
  }
  parsed.sort((a, b) => a.num - b.num || compareText(a.letter, b.letter) || compareText(a.id, b.id));
  // Shared by every artifact of this workflow: frozen so no reader can change it for the others.
  const steps = Object.freeze(parsed.map((p, i): StepDef => Object.freeze({ id: p.id, index: i + 1, title: p.slug.replace(/-/g, ' '), file: p.file }))) as StepDef[];
  return { steps, continuation };
}

/** The steps, those their own files mark optional (stepMarkedOptional) with `optional` set. */
function optionalMarked(steps: StepDef[]): StepDef[] {
  const marked = steps.map((st) => st.file !== undefined && stepMarkedOptional(readHead(st.file, MAX_WORKFLOW_BYTES) ?? ''));
  if (!marked.includes(true)) return steps;
  return Object.freeze(steps.map((st, i) => (marked[i] ? Object.freeze({ ...st, optional: true as const }) : st))) as StepDef[];
}

/**
 * Adds the workflows found under `dir0`: every folder holding `steps-c/` (create mode) or
 * `steps/` with `step-NN[a-z]?-*.md` files. In an agent's skills folder only `bmad-*` skills.
 */
function collectWorkflows(catalog: BmadCatalog, dir0: string, skills: boolean, listed?: Set<string>): void {
  // Paths under dir0 by concatenation when it is in normal form (entryPath: so is every entry
  // under it); a cold join per entry was ~10 % of a first run's catalog walk.
  const normal = normalDir(dir0);
  const walk = (dir: string, depth: number): void => {
    if (depth > 8) return;
    const entries = recordingListOr(dir);
    if (!entries) return;
    const subdirs = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    // Each BMAD skill folder is the method, whatever it holds (a skill without step files too).
    if (skills && depth === 1) (catalog.methodDirs ??= []).push(dir);
    if (skills && depth === 0) {
      // Other modules' skills (`gds-*`) are BMAD's when the install's skill manifest lists them.
      for (const s of subdirs) if (!/^bmad[-_]/i.test(s) && listed?.has(s.toLowerCase())) (catalog.methodDirs ??= []).push(entryPath(dir, normal, s));
    }
    // `steps-c/` or `steps/`; else typed step folders (the research workflow's `technical-steps/`,
    // `domain-steps/`...): one is the workflow's steps, several are one workflow each (`technical-research`).
    const plainSteps = subdirs.includes('steps-c') ? 'steps-c' : subdirs.includes('steps') ? 'steps' : undefined;
    const typed = plainSteps ? [] : subdirs.filter((d) => /^[a-z]+-steps$/i.test(d)).sort();
    const stepSets: [string, string][] = plainSteps ? [[plainSteps, path.basename(dir)]] : typed.length === 1 ? [[typed[0], path.basename(dir)]] : typed.map((t) => [t, `${t.replace(/-steps$/i, '')}-${path.basename(dir)}`]);
    for (const [stepsDirName, wfName] of stepSets) {
      const stepsDir = entryPath(dir, normal, stepsDirName);
      const names = recordingList(stepsDir).map((e) => e.name);
      const { steps: named, continuation } = stepsFromFileNames(stepsDir, names);
      // Each step file's head (read through the recorders: a step marked or unmarked later rebuilds the catalog).
      const steps = optionalMarked(named);
      if (steps.length) {
        const otherModes = subdirs.filter((s) => /^steps-[a-z]$/.test(s) && s !== 'steps-c').sort();
        const modeSteps: Record<string, StepDef[]> = Object.create(null) as Record<string, StepDef[]>;
        for (const m of otherModes) {
          const d = entryPath(dir, normal, m);
          modeSteps[MODE_NAMES[m.slice(-1)] ?? m] = modeStepsFromFileNames(d, recordingList(d).map((e) => e.name));
        }
        if (stepsDirName === 'steps-c' && subdirs.includes('steps')) {
          // Unreadable: no plain steps.
          const plain = recordingListOr(entryPath(dir, normal, 'steps'));
          if (plain) modeSteps.plain = modeStepsFromFileNames(entryPath(dir, normal, 'steps'), plain.map((e) => e.name));
        }
        const outputs: BmadWorkflow['outputs'] = [];
        const addOutputs = (found: BmadWorkflow['outputs']) => {
          for (const o of found) if (!outputs.some((x) => x.pattern === o.pattern)) outputs.push(o);
        };
        // The first steps declare the file they write (`outputFile:`, `wipFile:`); the last may
        // name the final file it is renamed to.
        // Read with synchronous calls: a promise read of a small file costs several trips through
        // the thread pool, and a catalog is a few hundred of them on every run.
        const sources = [...[...new Set([...steps.slice(0, 3), ...steps.slice(-1)])].map((st) => st.file), ...['workflow.yaml', 'workflow.md', 'SKILL.md'].map((f) => entryPath(dir, normal, f))];
        for (const text of sources.map((f) => (f ? readHead(f, MAX_WORKFLOW_BYTES) : undefined))) {
          if (text !== undefined) addOutputs(declaredOutputs(text));
        }
        const wf: BmadWorkflow = {
          name: wfName, dir, stepsDir, mode: stepsDirName === 'steps-c' ? 'create' : 'plain', steps, continuation,
          otherModes, modeSteps, outputs,
        };
        // The same skill installed for several agents (`.claude/skills`, `.agents/skills`) is one workflow.
        if (!skills) (catalog.methodDirs ??= []).push(dir);
        if (!(skills && catalog.byName.has(wf.name.toLowerCase()))) {
          catalog.workflows.push(wf);
          if (!catalog.byName.has(wf.name.toLowerCase())) catalog.byName.set(wf.name.toLowerCase(), wf);
        }
      }
    }
    if (skills && depth === 2 && (dir.endsWith(`${path.sep}assets`) || dir.endsWith(`${path.sep}templates`))) {
      const skill = path.basename(path.dirname(dir));
      for (const e of entries) {
        if (!e.isFile() || !/template\.md$/i.test(e.name)) continue;
        const file = entryPath(dir, normal, e.name);
        const text = readHead(file, 16 * 1024);
        const shape = text === undefined ? undefined : skillTemplateShape(skill, file, text);
        if (shape) (catalog.skillTemplates ??= []).push(shape);
      }
    }
    for (const s of subdirs) {
      if (s === 'node_modules' || s.startsWith('.') || /^steps(-[a-z])?$/.test(s) || /^[a-z]+-steps$/i.test(s)) continue;
      // A skills folder holds other tools' skills too: only BMAD's are read.
      if (skills && depth === 0 && !/^bmad[-_]/i.test(s) && !listed?.has(s.toLowerCase())) continue;
      walk(entryPath(dir, normal, s), depth + 1);
    }
  };
  walk(dir0, 0);
}

/** Reads a manifest's name → folder rows (`workflow-manifest.csv`: name,path; `skill-manifest.csv`: canonicalId,name,path). */
function readManifest(catalog: BmadCatalog, csvFile: string, root: string): void {
  const csv = recordingRead(csvFile, 8 * 1024 * 1024);
  if (csv === undefined) return;
  const rows = parseCsv(csv);
  const header = (rows.shift() ?? []).map((h) => h.trim().toLowerCase());
  const nameCols = ['canonicalid', 'name'].map((h) => header.indexOf(h)).filter((i) => i >= 0);
  const pathCol = header.indexOf('path');
  if (!nameCols.length || pathCol < 0) return;
  for (const row of rows) {
    const p = row[pathCol]?.trim();
    if (!p) continue;
    const rel = p.replace(/^\{project-root\}\//, '').replace(/\\/g, '/');
    let folder = path.resolve(root, rel);
    if (/\.(md|ya?ml|xml)$/i.test(folder)) folder = path.dirname(folder);
    // A skill copied out to an agent's folder keeps its folder name (its canonical id).
    const leaf = path.basename(folder).toLowerCase();
    const wf = catalog.workflows.find((w) => w.dir === folder) ?? catalog.byName.get(leaf);
    if (!wf) continue;
    for (const c of nameCols) {
      const name = row[c]?.trim().toLowerCase();
      if (!name) continue;
      catalog.byName.set(name, wf);
      (catalog.manifestNames ??= new Set()).add(name);
    }
  }
}

/**
 * Finds installed BMAD workflows under `<root>/<dir>`: every folder holding `steps-c/` (create mode)
 * or `steps/` with `step-NN[a-z]?-*.md` files. `_config/workflow-manifest.csv` adds name → folder mappings.
 */
export async function loadBmadCatalog(bmadDir: string): Promise<BmadCatalog> {
  const catalog = emptyBmadCatalog();
  const root = path.dirname(bmadDir);
  addInstall(catalog, root, bmadDir, []);
  return catalog;
}

/**
 * The BMAD catalog of a workspace folder, wherever BMAD put it: the install folder
 * (findBmadInstall: `_bmad`, `.bmad`, `bmad`, `.bmad-core`), the agent skill folders of the 6.x
 * skills layout (`.claude/skills/bmad-*`, `.agents/skills/bmad-*`...), and, when the folder is a
 * larger repository, every BMAD project in its subfolders (findBmadProjects).
 */
export async function loadBmadCatalogForRoot(root: string, configured?: string, opts: { cache?: boolean } = {}): Promise<BmadCatalog> {
  const absRoot = path.resolve(root);
  const build = () => {
    const catalog = emptyBmadCatalog();
    for (const project of findBmadProjects(absRoot, configured)) {
      const installDir = findBmadInstall(project, project === absRoot ? configured : undefined);
      addInstall(catalog, project, installDir, findBmadSkillRoots(project), project === absRoot ? configured : undefined);
    }
    return catalog;
  };
  // Kept in `.waymark/cache/bmad-catalog.bin` while every input it read is unchanged (cachedBmadCatalog).
  return opts.cache ? cachedBmadCatalog(absRoot, [absRoot, configured ?? null], build) : build();
}

function addInstall(catalog: BmadCatalog, root: string, installDir: string | undefined, skillRoots: string[], configured?: string): void {
  const before = catalog.workflows.length;
  // The install folder is the method: its templates and data files are never artifacts.
  if (installDir && path.resolve(installDir) !== path.resolve(root)) (catalog.methodDirs ??= []).push(installDir);
  if (installDir && recordingProbe(installDir, 'd')) collectWorkflows(catalog, installDir, false);
  const listed = installDir ? skillManifestIds(installDir) : new Set<string>();
  for (const s of skillRoots) collectWorkflows(catalog, s, true, listed);
  const own = catalog.workflows.slice(before);
  for (const wf of own) wf.projectRoot = root;
  if (installDir) {
    for (const cfgDir of ['_config', '_cfg']) {
      readManifest(catalog, path.join(installDir, cfgDir, 'workflow-manifest.csv'), root);
      readManifest(catalog, path.join(installDir, cfgDir, 'skill-manifest.csv'), root);
    }
  }
  const cfg = loadBmadConfig(root, { installDir: configured ?? (installDir ? path.basename(installDir) : undefined) });
  if (installDir) readDeclared(catalog, installDir, root, cfg);
  (catalog.projects ??= []).push({ root, outputFolders: [...new Set([cfg.outputFolder, cfg.planningArtifacts, cfg.implementationArtifacts])] });
  if (own.length) catalog.patterns = [...(catalog.patterns ?? []), ...compileOutputPatterns({ ...catalog, workflows: own }, cfg)].sort((a, b) => a.wildcards - b.wildcards);
}

/**
 * What an install declares about its workflows whether or not their folders are there: the help
 * catalog (`_config/bmad-help.csv`), each module's `module-help.csv`, and the manifests.
 */
function readDeclared(catalog: BmadCatalog, installDir: string, root: string, cfg: BmadConfig): void {
  const files: string[] = [];
  for (const cfgDir of ['_config', '_cfg']) for (const f of ['bmad-help.csv', 'workflow-manifest.csv', 'skill-manifest.csv']) files.push(path.join(installDir, cfgDir, f));
  for (const m of recordingList(installDir)) if (m.isDirectory() && !m.name.startsWith('_')) files.push(path.join(installDir, m.name, 'module-help.csv'));
  const expand = (p: string): string | undefined => {
    const e = expandVars(p.replace(/\{project-root\}/g, cfg.root), cfg.vars, cfg.root);
    if (/^\{[^}]+\}/.test(e)) return undefined;
    return path.isAbsolute(e) ? e : path.resolve(cfg.root, e);
  };
  for (const f of files) {
    const csv = recordingRead(f, 8 * 1024 * 1024);
    if (csv === undefined) continue;
    addDeclaredRows((catalog.declared ??= emptyDeclared()), parseCsv(csv), path.relative(root, f).split(path.sep).join('/'), expand);
  }
}

/** The skill ids (`canonicalId`, else `name`) the install's `skill-manifest.csv` lists, lower-case. */
function skillManifestIds(installDir: string): Set<string> {
  const out = new Set<string>();
  for (const cfgDir of ['_config', '_cfg']) {
    const csv = recordingRead(path.join(installDir, cfgDir, 'skill-manifest.csv'), 8 * 1024 * 1024);
    if (csv === undefined) continue;
    const rows = parseCsv(csv);
    const header = (rows.shift() ?? []).map((h) => h.trim().toLowerCase());
    const col = header.indexOf('canonicalid') >= 0 ? header.indexOf('canonicalid') : header.indexOf('name');
    if (col < 0) continue;
    for (const r of rows) if (r[col]?.trim()) out.add(r[col].trim().toLowerCase());
  }
  return out;
}

/** Minimal RFC 4180 CSV parser (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/**
 * Maps one `stepsCompleted`/`lastStep` entry to a step id. Documented in docs/format.md:
 * - integer N (or "N") → the unlettered step `step-NN-*`; lettered sub-steps (`step-NNb-*`) have
 *   no integer, so in an integer-encoded list they count as covered by N;
 * - `step-NN[x]-slug` or `step-NN[x]-slug.md` (any folder prefix) → that step;
 * - `step-NN[x]` alone → the step with that number and letter.
 */
export function resolveBmadStep(entry: unknown, steps: StepDef[]): string | undefined {
  const idx = stepIndex(steps);
  if (typeof entry === 'number' || (typeof entry === 'string' && /^\d+$/.test(entry.trim()))) {
    // No unlettered step N (alternatives 02a…02d): the integer names the first of them.
    return idx.byNumber.get(`${Number(entry)}`) ?? idx.firstOfNumber.get(Number(entry));
  }
  if (typeof entry !== 'string') return undefined;
  let s = entry.trim();
  if (idx.ids.has(s)) return s;
  s = s.replace(/\\/g, '/');
  s = s.slice(s.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  if (idx.ids.has(s)) return s;
  const m = /^step-(\d+)([a-z]?)(?:-|$)/i.exec(s);
  // `document-discovery`, `Epic Coverage Validation`: the step's name without the `step-NN-` of its file.
  if (!m) return idx.byName.get(stepName(s)) ?? undefined;
  return idx.byNumber.get(`${Number(m[1])}${m[2].toLowerCase()}`);
}

/** A step's name as compared: lower case, words joined by `-`. */
function stepName(s: string): string {
  return s.toLowerCase().replace(/[\s_]+/g, '-');
}

interface StepIndex {
  ids: Set<string>;
  /** `2` → step-02-*, `2b` → step-02b-*. */
  byNumber: Map<string, string>;
  /** 2 → the first step numbered 2, lettered or not. */
  firstOfNumber: Map<number, string>;
  /** `document-discovery` → step-01-document-discovery; null when two steps have that name. */
  byName: Map<string, string | null>;
}

const stepIndexes = new WeakMap<StepDef[], StepIndex>();

function stepIndex(steps: StepDef[]): StepIndex {
  let idx = stepIndexes.get(steps);
  if (!idx) {
    idx = { ids: new Set(steps.map((s) => s.id)), byNumber: new Map(), firstOfNumber: new Map(), byName: new Map() };
    for (const st of steps) {
      const n = stepNumber(st.id);
      const name = /^step-\d+[a-z]?-(.+)$/i.exec(st.id)?.[1];
      if (name) idx.byName.set(stepName(name), idx.byName.has(stepName(name)) ? null : st.id);
      if (n && !idx.byNumber.has(`${n.num}${n.letter}`)) idx.byNumber.set(`${n.num}${n.letter}`, st.id);
      if (n && !idx.firstOfNumber.has(n.num)) idx.firstOfNumber.set(n.num, st.id);
    }
    stepIndexes.set(steps, idx);
  }
  return idx;
}

/** Number and letter of a step id (`step-02b-vision` → 2, 'b'). */
const stepNumberCache = new Map<string, { num: number; letter: string } | null>();

export function stepNumber(id: string): { num: number; letter: string } | undefined {
  let hit = stepNumberCache.get(id);
  if (hit === undefined) {
    const m = /^step-(\d+)([a-z]?)(?:-|$)/i.exec(id);
    hit = m ? { num: Number(m[1]), letter: m[2].toLowerCase() } : null;
    if (stepNumberCache.size < 50_000) stepNumberCache.set(id, hit);
  }
  return hit ?? undefined;
}

/** The way a file writes its `stepsCompleted` entries (kept on write-back). */
export type BmadStepEncoding = 'int' | 'id' | 'file' | 'mixed' | 'empty';

export function stepEncoding(list: unknown[]): BmadStepEncoding {
  if (list.length === 0) return 'empty';
  const kinds = new Set(list.map((e) => (typeof e === 'number' ? 'int' : typeof e === 'string' && /\.md$/i.test(e) ? 'file' : 'id')));
  return kinds.size === 1 ? ([...kinds][0] as BmadStepEncoding) : 'mixed';
}

/** Status words BMAD artifacts use, mapped to Waymark statuses. */
export const BMAD_STATUS_MAP: Record<string, import('../types').Status | undefined> = Object.assign(Object.create(null) as Record<string, never>, {
  draft: 'created',
  backlog: 'created',
  'ready-for-dev': 'created',
  ready: 'created',
  todo: 'created',
  new: 'created',
  created: 'created',
  'in-progress': 'in_progress',
  in_progress: 'in_progress',
  started: 'in_progress',
  review: 'in_progress',
  'in-review': 'in_progress',
  'ready-for-review': 'in_progress',
  blocked: 'blocked',
  complete: 'completed',
  completed: 'completed',
  done: 'completed',
  approved: 'completed',
  archived: 'archived',
  'implementation-complete': 'completed',
  'implementation-ready': 'created',
  final: 'completed',
  finalized: 'completed',
  validated: 'completed',
  drafted: 'created',
  proposed: 'created',
  pending: 'created',
  planned: 'created',
  'not-started': 'created',
  open: 'created',
  active: 'in_progress',
  wip: 'in_progress',
  'in-development': 'in_progress',
  'under-review': 'in_progress',
  accepted: 'completed',
  signed: 'completed',
  'signed-off': 'completed',
  released: 'completed',
  closed: 'completed',
  shipped: 'completed',
  superseded: 'archived',
  deprecated: 'archived',
  cancelled: 'archived',
  canceled: 'archived',
  obsolete: 'archived',
  // A document's own lifecycle, as teams write it on planning documents: revised or published is a
  // finished version; under revision, in progress; on hold, blocked; rejected or withdrawn, set aside.
  revised: 'completed',
  updated: 'completed',
  reviewed: 'completed',
  published: 'completed',
  ratified: 'completed',
  baselined: 'completed',
  frozen: 'completed',
  locked: 'completed',
  'in-revision': 'in_progress',
  revising: 'in_progress',
  'needs-revision': 'in_progress',
  'changes-requested': 'in_progress',
  ongoing: 'in_progress',
  living: 'in_progress',
  'on-hold': 'blocked',
  paused: 'blocked',
  rejected: 'archived',
  withdrawn: 'archived',
  retired: 'archived',
  replaced: 'archived',
  // Work called off, as teams mark a plan they will not build (`VOID-NOT-BUILT`, `abandoned`).
  void: 'archived',
  voided: 'archived',
  abandoned: 'archived',
  dropped: 'archived',
  discarded: 'archived',
  scrapped: 'archived',
});

/** A status word no step of bmadStatusOf's normalising changes. */
const PLAIN_STATUS_WORD = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The Waymark status of a status word as BMAD artifacts write it, whatever its case, spacing or
 * decoration (`Approved`, `In Progress`, `ready_for_dev`, `complete ✅`, `**Done**`, `draft (v2)`).
 */
export function bmadStatusOf(raw: string): import('../types').Status | undefined {
  // The common spelling (lowercase words joined by single hyphens: `in-progress`, `complete`) is
  // what the steps below make of it: it is taken as it is (five regular expressions a call cost a
  // cold scan of BMAD artifacts ~3 % of its main thread's samples, 30 Nov, session 26).
  const word = PLAIN_STATUS_WORD.test(raw) ? raw : raw.toLowerCase().replace(/[*_`"']+/g, (m) => (m === '_' ? '-' : '')).replace(/\(.*?\)/g, '').replace(/[^a-z0-9 \-]+/g, ' ').trim().replace(/\s+/g, '-');
  // `draft-complete`, `research-done`: a stage of the document finished is the document finished
  // (never its first word's `draft`); `partially-complete`, `not-done` are not.
  if (/^(?!(?:not|un|in|partially|partly|almost|nearly)-)[a-z0-9]+(?:-[a-z0-9]+)*-(?:complete|completed|done|finished)$/.test(word)) return 'completed';
  return BMAD_STATUS_MAP[word] ?? BMAD_STATUS_MAP[word.split('-')[0]] ?? undefined;
}

/**
 * The installed BMAD workflow a `workflowType` (or file name) names. Installs name folders
 * `create-prd`, `bmad-create-ux-design` or plain `architecture`, while artifacts say `prd`,
 * `ux-design`, `create-architecture`...: the `bmad-` and `create-` prefixes are optional on
 * both sides.
 */
export function lookupBmadWorkflow(catalog: BmadCatalog, workflow: string): BmadWorkflow | undefined {
  const bare = workflow.toLowerCase().replace(/^bmad-/, '').replace(/^create-/, '');
  for (const k of [workflow.toLowerCase(), bare, `create-${bare}`, `bmad-${bare}`, `bmad-create-${bare}`]) {
    const wf = catalog.byName.get(k);
    if (wf) return wf;
  }
  return undefined;
}

/** The key a file keeps its status under: `workflowStatus` in BMAD files that use it instead of `status`. */
export function statusKeyOf(state: Pick<import('../types').WorkflowState, 'dialect' | 'data'>): 'status' | 'workflowStatus' {
  return state.dialect === 'bmad' && state.data.status === undefined && typeof state.data.workflowStatus === 'string' ? 'workflowStatus' : 'status';
}

export interface OutputPattern {
  re: RegExp;
  workflow: BmadWorkflow;
  source: 'outputFile' | 'default_output_file';
  /** The declaration as written, for messages. */
  declared: string;
  /** Fewer wildcards = more specific; a literal path wins over `{{date}}` patterns. */
  wildcards: number;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compiles every workflow's declared outputs against the project's config variables. */
export function compileOutputPatterns(catalog: BmadCatalog, cfg: BmadConfig): OutputPattern[] {
  const out: OutputPattern[] = [];
  for (const wf of catalog.workflows) {
    for (const o of wf.outputs) {
      // Only paths into the project: a pattern that still names an unknown folder variable at its start is skipped.
      const expanded = expandVars(o.pattern.replace(/\{project-root\}/g, cfg.root), cfg.vars, cfg.root);
      if (/^\{[^}]+\}/.test(expanded) || !/\.(md|ya?ml)$/i.test(expanded)) continue;
      const abs = path.isAbsolute(expanded) ? expanded : path.resolve(cfg.root, expanded);
      let wildcards = 0;
      const re = abs
        .split(/(\{\{[^}]+\}\}|\{[^}]+\})/)
        .map((part) => {
          if (/^\{\{[^}]+\}\}$|^\{[^}]+\}$/.test(part)) {
            wildcards++;
            return '[^/\\\\]*';
          }
          return escapeRe(part);
        })
        .join('');
      out.push({ re: new RegExp(`^${re}$`, process.platform === 'win32' ? 'i' : ''), workflow: wf, source: o.source, declared: o.pattern, wildcards });
    }
  }
  return out.sort((a, b) => a.wildcards - b.wildcards);
}


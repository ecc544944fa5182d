import * as path from 'node:path';
import { relStaysInside } from '../store/safePath';
import { SCOPES, STATUSES, type Delegation, type Dialect, type DelegationKey, type GateState, type Problem, type ProblemCode, type Scope, type Status, type StepDef, type WorkflowState } from '../types';
import { hasLongLine, parseFrontmatter, type ParsedFrontmatter } from './frontmatter';
import { computeStateHash, sha256 } from './hash';
import { bmadStatusOf, lookupBmadWorkflow, resolveBmadStep, stepEncoding, stepNumber, type BmadStepEncoding } from '../bmad/artifacts';
import { declaredOutputOf, identifyArtifact, inBmadOutput } from '../bmad/identify';
import { BMAD_OPTIONAL_STEPS, quickDevSpecOf, releasedWorkflowName, templateKeysInText } from '../bmad/known';
import { normalizeStepList } from './definitions';
import { exactArray, valueList } from './text';
import { DISTINCTIVE_KEYS, STATE_KEYS, WORKFLOW_KEYS, typoOf } from './stateKeys';
import type { WorkspaceContext } from '../store/workspaceContext';
import { validateParsed, type Finding } from './validate';
import { YamlLocator, type PathSeg, type RangeTarget } from './positions';
import { gateOf } from './gates';
import { stepIndexOf, type RawFacts, type StepAnalysis } from './stepFacts';

export type { RawFacts, StepAnalysis };

export interface ParsedWorkflow {
  /** True when the frontmatter carries workflow state (or clearly tried to and failed). */
  isWorkflow: boolean;
  state?: WorkflowState;
  problems: Problem[];
}

const LOOKS_LIKE_WORKFLOW = /^[ \t{,-]*["']?(?:workflow|workflowType|stepsCompleted|lastStep|currentStep|current_step|steps)["']?\s*[:=]/m;


// A side cache of each state's step analysis, made when first asked for (no hidden fields on the
// state: a copy of a state, or one restored from the scan index, recomputes the same analysis from
// its fields). The parse's own analysis is not kept: a scan's 10,000 states would keep 10,000
// analyses (0.5 KB each, a seventh of what a state keeps) that `validate` never asks for, and each
// one kept is memory the collector copies twice on its way to the old generation.
const analyses = new WeakMap<WorkflowState, StepAnalysis>();

/** Step analysis of a state: the parse's own, else recomputed from the state's fields exactly as normalize() builds it. */
export function stepAnalysis(state: WorkflowState): StepAnalysis {
  let a = analyses.get(state);
  if (!a) {
    const rawList = Array.isArray(state.data.stepsCompleted) ? (state.data.stepsCompleted as unknown[]) : [];
    // (A step name normalize() read by the identification's order, not by resolveBmadStep, is kept in stepsCompleted as that step's id.)
    const own = state.stepsSource === 'bmad' ? state.steps : [];
    const ids = state.dialect === 'waymark' ? state.stepsCompleted : rawList.map((e, i) => resolveBmadStep(e, own) ?? (own.some((s) => s.id === state.stepsCompleted[i]) ? state.stepsCompleted[i] : undefined));
    a = analyzeSteps(state.steps, ids, state.dialect, rawList);
    analyses.set(state, a);
  }
  return a;
}

const DELEGATION_KEYS: DelegationKey[] = ['id', 'parent_id', 'root_id', 'chain_path'];

/**
 * Step lists of plain ids, each distinct list made once and shared by every state that lists it,
 * frozen like the BMAD catalog's (a state's steps are never changed in place): thousands of files
 * of one workflow list the same steps, and a list made for each kept its step objects in every
 * state (six objects a file of the scan bench, copied by the collector as the states grow old).
 */
const sharedStepLists = new Map<string, StepDef[]>();
const MAX_SHARED_STEP_LISTS = 1000;

/** The StepDefs of a frontmatter `steps:` list (normalizeStepList's), shared when every entry is a plain string. */
function frontmatterSteps(list: unknown[]): StepDef[] {
  let key = '';
  for (const e of list) {
    if (typeof e !== 'string') return normalizeStepList(list).steps;
    // Each id with its length before it: no two lists share a key.
    key += `${e.length}:${e}`;
  }
  let steps = sharedStepLists.get(key);
  if (!steps) {
    if (sharedStepLists.size >= MAX_SHARED_STEP_LISTS) sharedStepLists.clear();
    steps = normalizeStepList(list).steps;
    for (const s of steps) Object.freeze(s);
    Object.freeze(steps);
    sharedStepLists.set(key, steps);
  }
  return steps;
}

export function analyzeSteps(steps: StepDef[], ids: (string | undefined)[], dialect: Dialect, rawList: unknown[]): StepAnalysis {
  const encoding = dialect === 'bmad' ? stepEncoding(rawList) : 'id';
  const known = stepIndexOf(steps);
  // Indexed loops into lists of one element kind (valueList): this runs for every file of a scan,
  // native and BMAD, and `map`/`filter` answer empty lists in another kind (another map) than full ones.
  const entries: StepAnalysis['entries'] = valueList();
  const done = new Set<string>();
  for (let index = 0; index < ids.length; index++) {
    const raw = ids[index];
    const id = raw !== undefined && known.has(raw) ? raw : undefined;
    entries.push({ raw: rawList[index] ?? raw, id, index });
    if (id) done.add(id);
  }
  if (encoding === 'int') {
    // An integer cannot name a lettered sub-step: N covers step-NN and step-NNa..z.
    const doneNums = new Set<number>();
    for (const id of done) {
      const n = stepNumber(id);
      if (n) doneNums.add(n.num);
    }
    for (const s of steps) {
      const n = stepNumber(s.id);
      if (n && n.letter && doneNums.has(n.num)) done.add(s.id);
    }
  }
  // Lettered steps with no unlettered step of their number are alternatives (brainstorming's
  // step-02a-user-selected … step-02d-progressive-flow): one of them done covers the others.
  // Native workflows have no alternatives: what is covered is what is done.
  let covered = done;
  if (dialect === 'bmad') {
    const groups = alternativeGroups(steps);
    for (const g of groups) {
      if (!g.some((id) => done.has(id))) continue;
      if (covered === done) covered = new Set<string>(done);
      for (const id of g) covered.add(id);
    }
  }
  let furthest: StepDef | undefined;
  for (let i = 0; i < steps.length; i++) if (done.has(steps[i].id)) furthest = steps[i];
  // A step that hands its work to subprocesses (TEA's `step-03-generate-tests` with `step-03a-subprocess-api`
  // …, then `step-03c-aggregate`) saves no progress, nor do its subprocesses (they write a temporary file):
  // BMAD records the aggregate alone, so past it they are not skipped.
  if (dialect === 'bmad' && furthest) {
    for (const id of orchestratedSteps(steps)) {
      if (known.get(id)! >= furthest.index || covered.has(id)) continue;
      if (covered === done) covered = new Set<string>(done);
      covered.add(id);
    }
  }
  const missing: StepDef[] = valueList();
  const remaining: StepDef[] = valueList();
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (covered.has(s.id)) continue;
    if (dialect === 'bmad' && furthest && s.index < furthest.index && BMAD_OPTIONAL_STEPS.has(s.id)) continue;
    if (furthest && s.index < furthest.index) missing.push(s);
    remaining.push(s);
  }
  // Kept with the state (stepAnalysis): a list grown by push holds room for more, an exact copy does not.
  return { entries: exactArray(entries), encoding, done, missing: exactArray(missing), furthest, remaining: exactArray(remaining) };
}

const altGroups = new WeakMap<StepDef[], string[][]>();

/** Groups of alternative steps of a workflow: lettered steps sharing a number that has no unlettered step. */
const orchestrated = new WeakMap<StepDef[], string[]>();
/**
 * The steps of a BMAD workflow that record nothing in `stepsCompleted`: each `-subprocess-` step whose
 * results a later lettered step of its number gathers (TEA's `step-03c-aggregate`), and the step of that
 * number without a letter that launches them (TEA's step files save progress in the aggregate alone).
 * A lettered step of its own about subprocesses (bmb's `step-08b-subprocess-optimization`, the last of
 * its number) is a step like any other.
 */
function orchestratedSteps(steps: StepDef[]): string[] {
  let ids = orchestrated.get(steps);
  if (!ids) {
    const lastLettered = new Map<number, string>();
    const forks = new Set<number>();
    for (const s of steps) {
      const n = stepNumber(s.id);
      if (!n?.letter) continue;
      if (/-subprocess-/.test(s.id)) forks.add(n.num);
      lastLettered.set(n.num, s.id);
    }
    const nums = new Set([...forks].filter((num) => !/-subprocess-/.test(lastLettered.get(num)!)));
    ids = [];
    for (const s of steps) {
      const n = stepNumber(s.id);
      if (n && nums.has(n.num) && (!n.letter || /-subprocess-/.test(s.id))) ids.push(s.id);
    }
    if (Object.isFrozen(steps)) orchestrated.set(steps, ids);
  }
  return ids;
}

export function alternativeGroups(steps: StepDef[]): string[][] {
  let g = altGroups.get(steps);
  if (!g) {
    const byNum = new Map<number, { plain: boolean; ids: string[] }>();
    for (const s of steps) {
      const n = stepNumber(s.id);
      if (!n) continue;
      const e = byNum.get(n.num) ?? { plain: false, ids: [] };
      if (n.letter) e.ids.push(s.id);
      else e.plain = true;
      byNum.set(n.num, e);
    }
    g = [...byNum.values()].filter((e) => !e.plain && e.ids.length > 1).map((e) => e.ids);
    if (Object.isFrozen(steps)) altGroups.set(steps, g);
  }
  return g;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function has(data: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(data, key);
}

/**
 * Picks the dialect of a frontmatter mapping, or undefined when it is not a workflow. Decided by
 * evidence, never by one key: `workflow:` is Waymark's id key, but a BMAD artifact may carry
 * `workflow: bmad-correct-course` too. BMAD evidence: `workflowType`, a `workflow` value naming a
 * BMAD workflow (`bmad-*`, or an installed one no native definition claims), the file lying at a
 * path a BMAD workflow declares as its output or in a BMAD project's output folders, BMAD's own
 * keys (`inputDocuments`). Waymark evidence: a `steps:` list, a `delegation`, a native definition
 * of the `workflow` id. A file with no workflow keys at a declared BMAD output path (a PRD with
 * `title` and `status: draft`) is that workflow's artifact.
 */
/**
 * A workflow named the way BMAD names its own and its modules' (`bmad-create-prd`, `bmad:bmm:prd`,
 * the Game Dev Studio's `gds-playtest-plan`, the Whiteport Design Studio's `wds-…`): the install's
 * skill manifests list them so.
 */
const BMAD_WORKFLOW_NAME = /^(?:bmad|gds|wds)[-:_/]/i;
/** A file in a folder named as BMAD names its output folder (`_bmad-output/`), the install itself not in the repository. */
const BMAD_OUTPUT_SEGMENT = /(?:^|[\\/])_bmad-output[\\/]/;

/** A `workflow:` value that names every workflow or none: `any`, `all`, `*`, `none`, `n/a`. */
const WILDCARD_WORKFLOW = /^\s*(?:any|all|\*|none|n\/?a)\s*$/i;

export function detectDialect(data: Record<string, unknown>, ctx: WorkspaceContext, file?: string): Dialect | undefined {
  const keys = Object.keys(data);
  let isWf = keys.some((k) => (WORKFLOW_KEYS as readonly string[]).includes(k));
  // A misspelt distinctive key still marks a workflow (`stepCompleted`); look-alikes of common
  // words (`workflows`, `step`) do not, so ordinary Markdown is not mistaken for one.
  if (!isWf) isWf = keys.some((k) => DISTINCTIVE_KEYS.includes(typoOf(k) ?? ''));
  // `workflow:` holding a list or a mapping and no other state key (an agent skill's `workflow:`
  // list of instructions, a template's `workflow:` settings) is the common word, not an id.
  if (isWf && (Array.isArray(data.workflow) || isObj(data.workflow)) && !keys.some((k) => k !== 'workflow' && ((STATE_KEYS as readonly string[]).includes(k) || DISTINCTIVE_KEYS.includes(typoOf(k) ?? '')))) isWf = false;
  // `workflow: any` (a document routed to every workflow, a wildcard) names no workflow: with no step
  // key beside it (`status:` may be the document's own word: `stable`), it is not one.
  if (isWf && typeof data.workflow === 'string' && WILDCARD_WORKFLOW.test(data.workflow) && !keys.some((k) => k !== 'workflow' && k !== 'status' && ((WORKFLOW_KEYS as readonly string[]).includes(k) || DISTINCTIVE_KEYS.includes(typoOf(k) ?? '')))) isWf = false;
  const bmadOn = ctx.config.dialects.includes('bmad');
  // (BMAD quick-dev's spec, `spec-{slug}.md` with its template's `title` and `status`, in a BMAD project: known.ts quickDevSpecOf.)
  if (!isWf) return bmadOn && file !== undefined && keys.length > 0 && (declaredOutputOf(file, ctx.bmad) || (quickDevSpecOf(file, data) && (inBmadProject(file, ctx.bmad) || BMAD_OUTPUT_SEGMENT.test(file)))) ? 'bmad' : undefined;
  const wfValue = typeof data.workflow === 'string' ? data.workflow.trim() : undefined;
  const nativeDefined = wfValue !== undefined && ctx.definitions.has(wfValue);
  // A `steps:` list with no `workflow:` id in a BMAD output folder (a team's draft recording which of
  // BMAD's step files it covers, `steps: [step-07-technical-decisions, …]`): BMAD's document, not a
  // Waymark workflow, which names itself; the location decides below.
  const nativeStrong = (Array.isArray(data.steps) && !(bmadOn && !has(data, 'workflow') && file !== undefined && (BMAD_OUTPUT_SEGMENT.test(file) || inBmadOutput(file, ctx.bmad) || declaredOutputOf(file, ctx.bmad) !== undefined))) || isObj(data.delegation) || nativeDefined;
  let dialect: Dialect;
  if (has(data, 'workflowType') && !has(data, 'workflow')) dialect = 'bmad';
  else if (nativeStrong) dialect = 'waymark';
  else if (
    bmadOn &&
    (has(data, 'workflowType') ||
      (wfValue !== undefined && (BMAD_WORKFLOW_NAME.test(wfValue) || lookupBmadWorkflow(ctx.bmad, wfValue) !== undefined || (file !== undefined && releasedWorkflowName(wfValue) && inBmadProject(file, ctx.bmad)))) ||
      has(data, 'inputDocuments') ||
      namesBmadModule(data) ||
      namesBmadMethodFile(data) ||
      (file !== undefined && (declaredOutputOf(file, ctx.bmad) !== undefined || inBmadOutput(file, ctx.bmad) || BMAD_OUTPUT_SEGMENT.test(file))))
  ) dialect = 'bmad';
  else {
    const native = has(data, 'workflow') || has(data, 'steps') || has(data, 'currentStep') || has(data, 'current_step') || has(data, 'delegation');
    dialect = native ? 'waymark' : 'bmad';
  }
  if (!ctx.config.dialects.includes(dialect)) return undefined;
  return dialect;
}

/**
 * A file inside a BMAD project (a folder with an install): there a `workflow:` naming one of BMAD's
 * own workflows (`check-implementation-readiness`, whose folder the team kept out of git or an
 * older release wrote the file to `docs/`) is BMAD's artifact, its status BMAD's word.
 */
function inBmadProject(file: string, catalog: WorkspaceContext['bmad']): boolean {
  const abs = path.resolve(file);
  return (catalog.projects ?? []).some((p) => abs.startsWith(p.root + path.sep));
}

/**
 * A path into an installed BMAD method (`bmad/bmm/workflows/2-plan-workflows/prd/checklist.md`,
 * `{project-root}/_bmad/core/tasks/validate-workflow.xml`, `.bmad-core/checklists/story-dod-checklist.md`).
 */
const BMAD_METHOD_PATH = /(?:^|[\s/{}'"`(])(?:_bmad|\.bmad|bmad|\.bmad-core)\/(?:bmm|core|cis|bmb|tea|gds|_cfg|_config|workflows|tasks|checklists|templates|agents|data)\//;

/**
 * The codes of BMAD's modules as its installer and manifests write them (`module: bmm`): the method,
 * the builder, creative intelligence, the test architect and the game and design studios.
 */
const BMAD_MODULES = new Set(['bmm', 'bmb', 'cis', 'tea', 'bmgd', 'gds', 'wds']);

/**
 * A document whose `module:` names one of BMAD's modules (a team's agent context block: `workflow:
 * greenfield`, `module: bmm`, `status: stable`) is written for BMAD's agents, in BMAD's words, not a
 * Waymark workflow whose status words are wrong.
 */
function namesBmadModule(data: Record<string, unknown>): boolean {
  return typeof data.module === 'string' && BMAD_MODULES.has(data.module.trim().toLowerCase());
}

/**
 * BMAD evidence in a document's own fields: a value naming a file of the installed method (a
 * validation report's `checklist:`, a document's `template:`), the way BMAD's tasks record what
 * they ran. Such a document is BMAD's, whatever its `workflow:` says.
 */
function namesBmadMethodFile(data: Record<string, unknown>): boolean {
  for (const v of Object.values(data)) {
    if (typeof v === 'string' && v.length < 512 && BMAD_METHOD_PATH.test(v)) return true;
  }
  return false;
}

/** An unfilled template variable as BMAD's templates write them: `{{project_name}}`. */
const PLACEHOLDER = /^\s*\{\{\s*[\w.-]+\s*\}\}\s*$/;

/** BMAD's own template variables, unfilled, in a document's text (`{{project_name}}`; a 6.x skill's `{project_name}`). */
const BODY_PLACEHOLDER = /\{\{\s*(?:project_name|user_name|date)\s*\}\}|\{(?:project_name|user_name)\}/;

/**
 * A BMAD template (a workflow's `data/*-template.md`, copied and filled in when the workflow
 * runs) rather than an artifact: no step done yet, and either its own variables still unfilled
 * (`project_name: '{{project_name}}'`, `# PRD - {{project_name}}`) or its name says template
 * inside a workflow's folder. It is no workflow: nothing is shown, checked or written for it — a
 * template that carried state would hand it to every document made from it.
 */
export function isBmadTemplate(file: string, data: Record<string, unknown>, body: string): boolean {
  const done = data.stepsCompleted;
  if (Array.isArray(done) ? done.length > 0 : done !== undefined && done !== null && done !== '') return false;
  if (['project_name', 'user_name', 'date'].some((k) => typeof data[k] === 'string' && PLACEHOLDER.test(data[k] as string))) return true;
  if (BODY_PLACEHOLDER.test(body.slice(0, 4096))) return true;
  const parts = file.split(/[\\/]/);
  const name = parts[parts.length - 1].toLowerCase();
  // (A 6.x skill keeps its templates in its `assets/` or beside its SKILL.md: `skills/bmad-testarch-trace/trace-template.md`.)
  return /(^|[-_.])template\.(md|markdown)$/.test(name) && parts.slice(0, -1).some((p) => p === 'workflows' || p === 'templates' || p === 'assets' || p === 'skills');
}

/**
 * A BMAD workflow begins by copying its template into the output folder under the artifact's own
 * name (`brainstorming-session-2026-04-13.md`): there, unfilled variables mean a session just
 * begun, not a template.
 */
function begunInOutput(file: string, ctx: WorkspaceContext): boolean {
  return !/template/i.test(path.basename(file)) && inBmadOutput(file, ctx.bmad);
}

/** Folders that hold an installed BMAD method wherever they stand (`_bmad/`, `.bmad/`, `.bmad-core/`). */
const INSTALL_SEGMENT = /^(?:_bmad|\.bmad|\.bmad-core)$/i;

/**
 * A file of an installed workflow's own folder (a skill's template or data file) is the method, not
 * an artifact. Besides the catalog's folders, any install folder or agent skill folder of BMAD's
 * (`<.tool>/skills/bmad-*`) below the workspace counts, so a BMAD project nested inside another
 * (a backend with its own install) never offers its method files as work.
 */
function insideInstalledWorkflow(file: string, ctx: WorkspaceContext): boolean {
  const abs = isResolved(file) ? file : path.resolve(file);
  // The answer is the folder's: a scan asks it once per folder, not once per file.
  const dir = path.dirname(abs);
  let byDir = installedDirs.get(ctx.bmad);
  if (!byDir || byDir.root !== ctx.root) installedDirs.set(ctx.bmad, (byDir = { root: ctx.root, dirs: new Map() }));
  let inside = byDir.dirs.get(dir);
  if (inside === undefined) {
    inside = folderInsideInstalledWorkflow(abs, ctx);
    byDir.dirs.set(dir, inside);
  }
  return inside;
}

/** `.` or `..` segments, doubled or trailing separators: what path.resolve would change in an absolute POSIX path. */
const UNRESOLVED_SEGMENTS = /(?:^|\/)\.\.?(?:\/|$)|\/\/|\/$/;

/** True when path.resolve would return the path as it is (an absolute, normalized POSIX path): the scan's own paths. */
function isResolved(file: string): boolean {
  return path.sep === '/' && file.charCodeAt(0) === 47 && !UNRESOLVED_SEGMENTS.test(file);
}

/** Answers of insideInstalledWorkflow by folder, per BMAD catalog (and the root it was read under). */
const installedDirs = new WeakMap<WorkspaceContext['bmad'], { root: string; dirs: Map<string, boolean> }>();

function folderInsideInstalledWorkflow(abs: string, ctx: WorkspaceContext): boolean {
  // Below one of the catalog's method folders (asked once per folder: insideInstalledWorkflow's cache).
  if ((ctx.bmad.methodDirs ?? ctx.bmad.workflows.map((w) => w.dir)).some((d) => abs.startsWith(d) && abs[d.length] === path.sep)) return true;
  const rel = path.relative(ctx.root, abs);
  if (!rel || !relStaysInside(rel)) return false;
  const dirs = rel.split(/[\\/]/).slice(0, -1);
  return dirs.some((d, i) => INSTALL_SEGMENT.test(d) || (d === 'skills' && i > 0 && dirs[i - 1].startsWith('.') && /^bmad[-_]/i.test(dirs[i + 1] ?? '')));
}

/**
 * Parses one file's text into a normalized WorkflowState plus its problems. Never throws on
 * bad input; never evaluates code. `isWorkflow` is false for Markdown without workflow keys.
 */
export function parseWorkflowText(file: string, text: string, ctx: WorkspaceContext, opts?: { contentHash?: string }): ParsedWorkflow {
  try {
    return parseWorkflowTextUnguarded(file, text, ctx, opts);
  } catch (e) {
    // Last resort: a bug here must not take the scan (or the extension host) down with it.
    const msg = e instanceof Error ? e.message : String(e);
    return { isWorkflow: true, problems: [{ file, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: 'error', code: 'internal-error', message: `Waymark could not read this file (${msg}). Please report it with the file's frontmatter.` }] };
  }
}

function parseWorkflowTextUnguarded(file: string, text: string, ctx: WorkspaceContext, opts?: { contentHash?: string }): ParsedWorkflow {
  const fm = parseFrontmatter(text, ctx.limits);
  const split = fm.split;
  if (!split.hasFrontmatter) return crOnlyCheck(file, text);
  const locator = new YamlLocator(split.yamlText, split.yamlStartLine);
  const fenceRange = { start: { line: 0, character: 0 }, end: { line: 0, character: split.openFence.length } };
  if (fm.error) {
    const r = parseErrorResult(file, fm, split, locator, fenceRange);
    // A BMAD document's frontmatter is the user's own: unreadable, it is worth a warning, not a failed `validate`.
    if (r.problems.length && looksBmad(file, split.yamlText, ctx)) for (const p of r.problems) if (p.severity === 'error') p.severity = 'warning';
    return r;
  }
  const data = fm.data;
  const dialect = detectDialect(data, ctx, file);
  // A file of BMAD's install or of an agent skill folder BMAD's installer wrote is the method in
  // either dialect (a skill's state template carries `status`/`currentStep` like a native file).
  if (!dialect || insideInstalledWorkflow(file, ctx) || (dialect === 'bmad' && isBmadTemplate(file, data, split.body) && !begunInOutput(file, ctx))) return { isWorkflow: false, problems: [] };
  const { state, raw } = normalize(file, text, data, dialect, ctx, opts?.contentHash);
  // A BMAD artifact is the user's own document, which BMAD itself never checks: what Waymark
  // finds in it is a warning at most, so `validate` never fails a file a BMAD user calls fine.
  const found = validateParsed(state, data, raw, fm, ctx);
  const findings = dialect === 'bmad' && found.length ? found.map((f) => (f.severity === 'error' ? { ...f, severity: 'warning' as const } : f)) : found;
  state.problems = resolveFindings(file, findings, locator, fenceRange);
  // The fast reader (js-yaml) accepts some YAML the editing parser refuses (tab indentation).
  // Say so on read, so validate and the write path agree on what is broken.
  // Likewise an implicit key longer than 1024 characters (YAML 1.2's limit), on a long line.
  if ((split.yamlText.includes('\t') && LEADING_TAB.test(split.yamlText)) || hasLongLine(split.yamlText)) {
    let syn: { range: import('../types').Range; message: string } | undefined;
    try {
      syn = locator.syntaxError();
    } catch {
      syn = undefined;
    }
    if (syn) state.problems.unshift({ file, range: syn.range, severity: dialect === 'bmad' ? 'warning' : 'error', code: 'yaml-syntax', message: `YAML syntax error at line ${syn.range.start.line + 1}: ${tidy(syn.message)}. ${/tab/i.test(syn.message) || LEADING_TAB.test(split.yamlText) ? 'Use spaces, not tabs, to indent' : 'Shorten the key (at most 1024 characters) or quote it'}; the state cannot be changed until then.` });
  }
  if (state.delegation) state.delegationRanges = spanRanges(fm, split.yamlStartLine) ?? Object.fromEntries(DELEGATION_KEYS.map((k) => [k, locator.range(['delegation', k], 'value')]));
  return { isWorkflow: true, state, problems: state.problems };
}

/** The problem of a frontmatter that could not be read (fence, syntax, limits), at the parser's position. */
function parseErrorResult(file: string, fm: ParsedFrontmatter, split: ParsedFrontmatter['split'], locator: YamlLocator, fenceRange: import('../types').Range): ParsedWorkflow {
  const e = fm.error!;
  const looksLike = LOOKS_LIKE_WORKFLOW.test(split.yamlText);
  if (e.kind === 'code-refused') {
    return { isWorkflow: looksLike, problems: [{ file, range: fenceRange, severity: 'error', code: 'frontmatter-code-refused', message: `${e.message}. Use a plain --- YAML fence; the block was not evaluated.`, data: { language: split.language } }] };
  }
  if (!looksLike) return { isWorkflow: false, problems: [] };
  if (e.kind === 'yaml-syntax' && !split.closed) {
    return { isWorkflow: true, problems: [{ file, range: fenceRange, severity: 'error', code: 'frontmatter-unclosed', message: 'Frontmatter has no closing --- line: add one after the last YAML line.' }] };
  }
  if (e.kind === 'yaml-syntax') {
    let syn: { range: import('../types').Range; message: string } | undefined;
    try {
      syn = locator.syntaxError();
    } catch {
      syn = undefined;
    }
    const atMark = e.yamlLine !== undefined ? markPosition(split.yamlText, split.yamlStartLine, e.yamlLine, e.yamlColumn ?? 0) : undefined;
    const range = syn?.range ?? (atMark ? { start: atMark, end: atMark } : fenceRange);
    return { isWorkflow: true, problems: [{ file, range, severity: 'error', code: 'yaml-syntax', message: `YAML syntax error at line ${range.start.line + 1}: ${tidy(syn?.message ?? e.message)}. Fix the frontmatter; its state is not read until then.` }] };
  }
  const codes: Record<string, [ProblemCode, string]> = {
    'language-unsupported': ['frontmatter-language', 'Use a plain --- fence with YAML.'],
    'alias-limit': ['yaml-alias-limit', 'Remove the anchors/aliases (&name / *name); Waymark caps alias expansion.'],
    'too-complex': ['yaml-too-complex', 'Simplify the frontmatter.'],
    'not-mapping': ['frontmatter-not-mapping', 'Write the frontmatter as `key: value` lines.'],
  };
  const [code, todo] = codes[e.kind] ?? ['yaml-syntax', 'Fix the frontmatter.'];
  return { isWorkflow: true, problems: [{ file, range: fenceRange, severity: 'error', code, message: `${e.message}. ${todo}` }] };
}

/** Evidence, without a parsed mapping, that a frontmatter is a BMAD document's. */
function looksBmad(file: string, yamlText: string, ctx: WorkspaceContext): boolean {
  if (!ctx.config.dialects.includes('bmad')) return false;
  if (/^[ \t]*["']?(?:workflowType|inputDocuments)["']?[ \t]*:/m.test(yamlText) || /^[ \t]*workflow[ \t]*:[ \t]*["']?bmad[-:_]/m.test(yamlText)) return true;
  return declaredOutputOf(file, ctx.bmad) !== undefined || inBmadOutput(file, ctx.bmad) || templateKeysInText(yamlText);
}

/**
 * The delegation ranges from the fast reader's positions: the same ranges the YAML parser gives
 * (a value's own span; the `delegation` key for a missing entry), without parsing the block
 * again. Undefined when a position is not known (an entry whose value is not on its key's line).
 */
function spanRanges(fm: ParsedFrontmatter, baseLine: number): WorkflowState['delegationRanges'] | undefined {
  const spans = fm.delegationSpans;
  if (!spans || DELEGATION_KEYS.some((k) => spans.nested.includes(k))) return undefined;
  const range = (v: { row: number; start: number; end: number }) => sharedRange(baseLine + v.row, v.start, v.end);
  const v = spans.values;
  // DELEGATION_KEYS' order, written out: this runs for every delegated file a scan reads.
  return { id: range(v.id ?? spans.key), parent_id: range(v.parent_id ?? spans.key), root_id: range(v.root_id ?? spans.key), chain_path: range(v.chain_path ?? spans.key) };
}

/**
 * One-line ranges, each made once and shared (frozen) by every state whose delegation entries sit
 * at the same place: files of one project are written alike, and four ranges of three objects
 * each, kept with every delegated state, were a seventh of what a scanned state keeps. Nothing
 * changes a range in place (a problem's range is replaced, never edited).
 */
const sharedRanges = new Map<number, import('../types').Range>();
const MAX_SHARED_RANGES = 4096;

function sharedRange(line: number, start: number, end: number): import('../types').Range {
  if (line >= 1 << 20 || start >= 4096 || end >= 4096) return { start: { line, character: start }, end: { line, character: end } };
  const key = (line * 4096 + start) * 4096 + end;
  let r = sharedRanges.get(key);
  if (!r) {
    if (sharedRanges.size >= MAX_SHARED_RANGES) sharedRanges.clear();
    r = Object.freeze({ start: Object.freeze({ line, character: start }), end: Object.freeze({ line, character: end }) });
    sharedRanges.set(key, r);
  }
  return r;
}

const LEADING_TAB = /^ *\t/m;
const CR_ONLY_FENCE = /^\uFEFF?---[ \t]*\r(?!\n)/;

/**
 * A file whose lines end in a lone CR (classic Mac) has no LF at all, so no fence line is found.
 * When its frontmatter holds workflow keys, say so instead of silently not seeing the workflow.
 */
function crOnlyCheck(file: string, text: string): ParsedWorkflow {
  if (!CR_ONLY_FENCE.test(text) || text.slice(0, 65536).includes('\n')) return { isWorkflow: false, problems: [] };
  const head = text.slice(0, 65536).replace(/\r/g, '\n');
  const end = head.indexOf('\n---', 3);
  if (!LOOKS_LIKE_WORKFLOW.test(end === -1 ? head : head.slice(0, end))) return { isWorkflow: false, problems: [] };
  return {
    isWorkflow: true,
    problems: [{ file, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, severity: 'error', code: 'frontmatter-line-endings', message: 'This file uses CR-only line endings (classic Mac), so its frontmatter cannot be read. Convert it to LF or CRLF line endings; its state is not read until then.' }],
  };
}


function normalize(file: string, text: string, data: Record<string, unknown>, dialect: Dialect, ctx: WorkspaceContext, contentHash?: string): { state: WorkflowState; raw: RawFacts } {
  // The file's name without its extension: the workflow id when the frontmatter names none.
  const baseName = () => path.basename(file).replace(/\.[^.]*$/, '');
  // Some BMAD workflows record their status as `workflowStatus` (e.g. architecture: 'complete').
  const rawStatus = asString(data.status) ?? (dialect === 'bmad' && data.status === undefined ? asString(data.workflowStatus) : undefined);
  let status: Status | undefined;
  let statusKnown = rawStatus === undefined;
  if (rawStatus !== undefined) {
    if ((STATUSES as readonly string[]).includes(rawStatus)) {
      status = rawStatus as Status;
      statusKnown = true;
    } else if (dialect === 'bmad') {
      status = bmadStatusOf(rawStatus);
      statusKnown = status !== undefined;
    }
  }
  const completedList = Array.isArray(data.stepsCompleted) ? (data.stepsCompleted as unknown[]) : [];
  let workflow: string;
  let steps: StepDef[] = [];
  let stepsSource: WorkflowState['stepsSource'] = 'none';
  let stepsCompleted: string[];
  let ids: (string | undefined)[];
  let lastStep: string | undefined;
  let identified: { by: string; detail?: string } | undefined;
  let modeStepIds: Set<string> | undefined;
  if (dialect === 'waymark') {
    workflow = asString(data.workflow) ?? baseName();
    if (Array.isArray(data.steps)) {
      stepsSource = 'frontmatter';
      // Gates declared in a definition apply to the same ids in frontmatter steps.
      const def = ctx.definitions.get(workflow);
      if (def) {
        steps = normalizeStepList(data.steps as unknown[]).steps;
        for (const s of steps) if (!s.gate) s.gate = def.steps.find((d) => d.id === s.id)?.gate;
      } else steps = frontmatterSteps(data.steps as unknown[]);
    } else {
      const def = ctx.definitions.get(workflow);
      if (def) {
        steps = def.steps;
        stepsSource = 'definition';
      }
    }
    stepsCompleted = valueList();
    for (let i = 0; i < completedList.length; i++) stepsCompleted.push(asString(completedList[i]) ?? JSON.stringify(completedList[i]));
    stepsCompleted = exactArray(stepsCompleted);
    ids = stepsCompleted;
  } else {
    const found = identifyArtifact(file, data, ctx.bmad, text);
    const wf = found.workflow;
    workflow = asString(data.workflowType) ?? asString(data.workflow) ?? wf?.name ?? baseName();
    identified = found.by ? { by: found.by, detail: found.detail } : undefined;
    const catalogSteps = wf?.steps ?? [];
    if (wf) {
      steps = wf.steps;
      stepsSource = 'bmad';
      modeStepIds = new Set(Object.values(wf.modeSteps ?? {}).flat().map((x) => x.id));
    }
    ids = valueList();
    stepsCompleted = valueList();
    for (let i = 0; i < completedList.length; i++) {
      // (Step names the identification read in the workflow's order, `preflight` → `step-01-preflight-and-context`: identify.ts bareStepsOfOutput.)
      const id = resolveBmadStep(completedList[i], catalogSteps) ?? found.stepIds?.[i];
      ids.push(id);
      stepsCompleted.push(id ?? fallbackBmadId(completedList[i]));
    }
    ids = exactArray(ids);
    stepsCompleted = exactArray(stepsCompleted);
    if (data.lastStep !== undefined && data.lastStep !== null) {
      const at = found.stepIds ? completedList.lastIndexOf(data.lastStep) : -1;
      lastStep = resolveBmadStep(data.lastStep, catalogSteps) ?? (at >= 0 ? found.stepIds?.[at] : undefined) ?? fallbackBmadId(data.lastStep);
    }
  }
  const analysis = analyzeSteps(steps, ids, dialect, completedList);
  const nextStep = analysis.remaining[0]?.id;
  const currentStepKey = has(data, 'currentStep') ? 'currentStep' : has(data, 'current_step') ? 'current_step' : undefined;
  let currentStep = currentStepKey ? asString(data[currentStepKey]) : undefined;
  if (currentStep !== undefined && dialect === 'bmad') currentStep = resolveBmadStep(currentStep, lookupBmadWorkflow(ctx.bmad, workflow)?.steps ?? steps) ?? currentStep;
  if (currentStep === undefined && dialect === 'bmad' && status !== 'completed' && status !== 'archived') currentStep = nextStep;
  const scopeRaw = asString(data.scope);
  const state: WorkflowState = {
    file,
    root: ctx.root,
    dialect,
    workflow,
    status,
    rawStatus,
    currentStep,
    stepsCompleted,
    steps,
    stepsSource,
    lastStep,
    scope: scopeRaw && (SCOPES as readonly string[]).includes(scopeRaw) ? (scopeRaw as Scope) : undefined,
    blockedReason: asString(data.blockedReason),
    delegation: normalizeDelegation(data.delegation),
    session: asString(data.session),
    updatedAt: asString(data.updatedAt),
    ttl: typeof data.ttl === 'number' ? data.ttl : asString(data.ttl),
    nextStep,
    // Null prototype, made from an empty plain object so V8 keeps it a small fast object (no
    // hash table); keys set below are own keys either way. A state with no gated step (most)
    // shares one frozen empty object: nothing but this function sets a state's gates.
    gates: hasGatedStep(steps) ? (Object.setPrototypeOf({}, null) as Record<string, GateState>) : NO_GATES,
    stateHash: '',
    contentHash: contentHash ?? sha256(text),
    data,
    problems: [],
  };
  // Gates of gated steps.
  for (const s of steps) {
    if (!s.gate) continue;
    const g = gateOf(ctx, state, s.gate, ctx.now());
    state.gates[s.id] = g as GateState;
  }
  // Hash what the file says, not what is derived from the install (a derived BMAD currentStep).
  state.stateHash = computeStateHash({
    workflow: state.workflow, rawStatus: state.rawStatus, status: state.status, currentStep: currentStepKey ? state.currentStep : undefined,
    stepsCompleted: state.stepsCompleted, lastStep: state.lastStep, scope: state.scope, blockedReason: state.blockedReason,
    delegation: state.delegation, ttl: state.ttl,
  });
  if (identified) {
    state.identifiedBy = identified.by;
    if (identified.detail) state.identifiedDetail = identified.detail;
  }
  // A BMAD artifact with no status key: derived from its steps (or its own completion flag),
  // shown as derived, never written. One that records no steps at all says nothing of them.
  if (dialect === 'bmad' && rawStatus === undefined) {
    const recordsSteps = has(data, 'stepsCompleted') || (data.lastStep !== undefined && data.lastStep !== null);
    if (data.workflow_completed === true || data.workflowCompleted === true) {
      state.status = 'completed';
      state.statusDerived = true;
    } else if (steps.length && recordsSteps) {
      const doneCount = steps.length - analysis.remaining.length;
      state.status = doneCount === 0 && !completedList.length ? 'created' : analysis.remaining.length === 0 ? 'completed' : 'in_progress';
      state.statusDerived = true;
    }
    // Steps recorded against a workflow not installed here: how far it got is unknown, so no status is made up.
    if (state.status === 'completed' || state.status === 'archived') state.currentStep = currentStepKey ? state.currentStep : undefined;
  }
  return { state, raw: { analysis, statusKnown, completedList, lastStepRaw: data.lastStep, currentStepKey, modeStepIds } };
}

/** The gates of every state whose steps have none. */
const NO_GATES = Object.freeze(Object.setPrototypeOf({}, null) as Record<string, GateState>);

function hasGatedStep(steps: readonly StepDef[]): boolean {
  for (let i = 0; i < steps.length; i++) if (steps[i].gate) return true;
  return false;
}

function fallbackBmadId(e: unknown): string {
  if (typeof e === 'number') return `step-${String(e).padStart(2, '0')}`;
  const s = asString(e) ?? JSON.stringify(e);
  return s.replace(/\\/g, '/').replace(/^.*\//, '').replace(/\.md$/i, '');
}

function normalizeDelegation(v: unknown): Delegation | undefined {
  if (!isObj(v)) return undefined;
  let chain: string[] = valueList();
  if (Array.isArray(v.chain_path)) for (let i = 0; i < v.chain_path.length; i++) chain.push(asString(v.chain_path[i]) ?? '');
  chain = exactArray(chain);
  const id = asString(v.id) ?? '';
  const d: Delegation = {
    id,
    parent_id: v.parent_id === null || v.parent_id === undefined ? null : asString(v.parent_id) ?? null,
    root_id: asString(v.root_id) ?? '',
    depth: typeof v.depth === 'number' ? v.depth : Number.isFinite(Number(v.depth)) && v.depth !== '' && v.depth !== null ? Number(v.depth) : NaN,
    chain_path: chain,
  };
  const agent = asString(v.agent);
  if (agent !== undefined) d.agent = agent;
  return d;
}

/** Turns findings (key paths) into Problems with ranges from the YAML parser. */
export function resolveFindings(file: string, findings: Finding[], locator: YamlLocator, fenceRange: import('../types').Range): Problem[] {
  // One element kind for a state's problems, none or some (valueList): the scan reads every state's.
  const out: Problem[] = valueList();
  for (let i = 0; i < findings.length; i++) {
    const f = findings[i];
    const p: Problem = {
      file,
      range: fenceRange,
      severity: f.severity,
      code: f.code,
      message: f.message,
      ...(f.data ? { data: f.data } : {}),
    };
    if (f.path) lazyRange(p, f.path, f.target ?? 'key', locator);
    out.push(p);
  }
  return exactArray(out);
}

/**
 * A problem's range, found by the `yaml` parser when first read (a view, a message, JSON): a write
 * compares problems by code, and the positions of a frontmatter it just wrote are seldom asked for.
 * The same locator over the same text gives the same range whenever it is asked.
 */
function lazyRange(p: Problem, at: PathSeg[], target: RangeTarget, locator: YamlLocator): void {
  const settle = (range: import('../types').Range) => Object.defineProperty(p, 'range', { value: range, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(p, 'range', {
    enumerable: true,
    configurable: true,
    get: () => {
      const range = locator.range(at, target);
      settle(range);
      return range;
    },
    set: (range: import('../types').Range) => settle(range),
  });
}

/** A parser message fit for one line: no trailing `:` (the parsers end with one before a code excerpt), no final period. */
function tidy(msg: string): string {
  return msg.replace(/[\s:.]+$/, '');
}

/**
 * A parser mark (0-based line/column in the YAML text) as a file position, clamped into the
 * text: js-yaml can point one line past a key with an empty value, with a negative column.
 */
function markPosition(yamlText: string, startLine: number, line: number, column: number): import('../types').Position {
  const lines = yamlText.split('\n');
  // The YAML text ends with a line break, so its last split element is the closing fence's start.
  const last = Math.max(0, lines.length - 2);
  let l = Math.min(Math.max(0, line), last);
  let c = column;
  if (c < 0 && l > 0) {
    l -= 1;
    c = lines[l].replace(/\r$/, '').length;
  }
  const len = (lines[l] ?? '').replace(/\r$/, '').length;
  return { line: startLine + l, character: Math.min(Math.max(0, c), len) };
}

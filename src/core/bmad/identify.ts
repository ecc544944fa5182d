/**
 * Which installed BMAD workflow an artifact belongs to, from what the workflows declare: step
 * files' `outputFile:` and `workflow.yaml`/`workflow.md` `default_output_file` (run-time values
 * such as `{{date}}`, `{date}`, `{{project_name}}`, `{{story_key}}` match as wildcards), then the
 * artifact's `workflowType`, then the step ids it records, then the manifest's names; for a
 * workflow not installed in the checkout, what the install declares and BMAD's output names
 * (known.ts), then the workflow the artifact names itself, then the BMAD release its step ids
 * come from (releaseSteps.ts), then the folder it lies in. The rule
 * that answered is kept so hovers and `status --json` can say why.
 */
import * as path from 'node:path';
import { fixedLines, lookupBmadWorkflow, type BmadCatalog, type BmadWorkflow, type OutputPattern, type SkillTemplate } from './artifacts';
import { contentWorkflowOf, firstHeading, FRONTMATTER_BLOCK, knownBmadWorkflowOf, knownByName, quickDevSpecOf, recordsProgress, releasedWorkflowOf, selfNamedWorkflowOf, selfPlacedWorkflowOf, templateWorkflowOf } from './known';

/**
 * `declared` and `known` name a BMAD workflow that is not installed here (known.ts): its steps
 * cannot be checked; `self`, a workflow no install here declares, named by the artifact itself.
 */
export type IdentifiedBy = 'outputFile' | 'default_output_file' | 'workflowType' | 'steps' | 'template' | 'manifest' | 'declared' | 'known' | 'self';

/** True when the artifact's workflow is not installed here (its steps cannot be checked). */
export function identifiedNotInstalled(by: string | undefined): boolean {
  return by === 'declared' || by === 'known' || by === 'self';
}

/**
 * Identifies an artifact's workflow. `data` is its frontmatter; `text`, the whole file, lets a
 * file that records workflow progress under a name of its own (and in any language) be known by
 * what its template wrote into it: its title or its headings (contentWorkflowOf).
 */
export function identifyArtifact(file: string, data: Record<string, unknown>, catalog: BmadCatalog, text?: string): { workflow?: BmadWorkflow; by?: IdentifiedBy; detail?: string; stepIds?: readonly string[] } {
  const abs = path.resolve(file);
  for (const p of catalog.patterns ?? []) {
    if (p.re.test(abs)) return { workflow: p.workflow, by: p.source, detail: p.declared };
  }
  const type = typeof data.workflowType === 'string' ? data.workflowType : undefined;
  if (type) {
    // A workflow of several kinds names its kind beside its type (`workflowType: research`, `research_type: technical`).
    const kinds = Object.entries(data).filter(([k, v]) => /_type$/i.test(k) && typeof v === 'string' && /^[\w-]{1,40}$/.test(v)).map(([, v]) => (v as string).toLowerCase());
    const wf = kinds.map((k) => lookupBmadWorkflow(catalog, `${k}-${type}`)).find((w) => w !== undefined) ?? lookupBmadWorkflow(catalog, type);
    if (wf) return { workflow: wf, by: catalog.manifestNames?.has(type.toLowerCase()) && !catalog.workflows.some((w) => w.name.toLowerCase() === type.toLowerCase()) ? 'manifest' : 'workflowType', detail: type };
  }
  // Step ids recorded as ids or file names name their workflow.
  const list = Array.isArray(data.stepsCompleted) ? data.stepsCompleted : [];
  // (`step-02-vision`, `step-e-01-discovery.md`, and a mode's own `e-01-load-existing.md`)
  const ids = list.filter((e): e is string => typeof e === 'string' && /^(?:step-|[a-z]-\d+[a-z]?-)/i.test(e.replace(/^.*[\\/]/, ''))).map((e) => e.replace(/^.*[\\/]/, '').replace(/\.md$/i, ''));
  if (ids.length) {
    const exact = rankBySteps(catalog, ids, (id) => id);
    if (exact.wf && exact.n * 2 >= ids.length) return { workflow: exact.wf, by: 'steps', detail: `${exact.n} of ${ids.length} recorded steps` };
    // A workflow renumbers its steps between releases (`step-05-agents` became `step-04-agents`):
    // the words after the number still name them, when one workflow alone holds most of them.
    const named = rankBySteps(catalog, ids, stepWords);
    if (named.wf && named.n * 2 >= ids.length && named.n > named.second) return { workflow: named.wf, by: 'steps', detail: `${named.n} of ${ids.length} recorded steps by name` };
  }
  // Step names without their files' `step-NN-` (`preflight`, `identify-targets`), in a file named as a
  // workflow's declared output with a story's key or a word before it (`12-1-automation-summary.md` for
  // `{test_artifacts}/automation-summary.md`): that workflow's, when its steps hold every name in order.
  const named = bareStepsOfOutput(abs, list, catalog);
  if (named) return named;
  // The frontmatter only one workflow's template writes (quick-spec's `files_to_modify`, `code_patterns`…).
  const shaped = templateWorkflowOf(data);
  const installed = shaped ? [shaped.name, ...shaped.aliases].map((n) => lookupBmadWorkflow(catalog, n)).find((w) => w !== undefined) : undefined;
  if (installed) return { workflow: installed, by: 'template', detail: "template's frontmatter keys" };
  // BMAD quick-dev's spec (`spec-{slug}.md`, `title` and `status`, no step records): the installed skill's, else known by its name.
  const spec = quickDevSpecOf(file, data);
  if (spec) {
    const own = lookupBmadWorkflow(catalog, 'quick-dev');
    return own ? { workflow: own, by: 'template', detail: spec.detail } : spec;
  }
  // Not installed here: what the install declares, then the names BMAD's releases give their outputs,
  // then the workflow the file names itself.
  // The workflow the file names itself comes before its step ids' release (a team's own workflow may
  // reuse BMAD's ids); the ids, before where the file lies.
  return knownBmadWorkflowOf(file, data, catalog.declared) ?? selfNamedWorkflowOf(data) ?? releasedWorkflowOf(ids, catalog.declared) ?? selfPlacedWorkflowOf(file, data, catalog.projects) ?? contentIdentified(data, catalog, text) ?? skillTemplateIdentified(data, catalog, text) ?? {};
}

/** The catalog's skill template titles, compiled once a catalog. */
const titlesOf = new WeakMap<BmadCatalog, (RegExp | undefined)[]>();

/**
 * The installed skill whose template an artifact was made from: every frontmatter key of its own
 * the template writes (two or more: `characterName`, `assetID`), or its title with the template's
 * variables filled in (`# Show Bible: {Show Title}` → `# Show Bible: The Second Receipt`); one
 * skill only. When templates of several skills have that shape (a full skill's and a rapid-start
 * skill's draft of the same document), the fixed lines only some of them hold decide: the skill
 * whose template agrees with the artifact on most of them, alone (a heading only the full template
 * has, a draft's own note); templates no line tells apart leave the artifact unknown. Named as
 * the install lists it (a skill with no step files: its steps cannot be checked).
 */
function skillTemplateIdentified(data: Record<string, unknown>, catalog: BmadCatalog, text: string | undefined): { workflow: BmadWorkflow; by: IdentifiedBy; detail: string } | undefined {
  if (!catalog.skillTemplates?.length || !recordsProgress(data)) return undefined;
  const own = new Set(Object.keys(data));
  const body = text === undefined ? undefined : text.replace(FRONTMATTER_BLOCK, '');
  const title = body === undefined ? undefined : firstHeading(body);
  let titles = titlesOf.get(catalog);
  if (!titles) titlesOf.set(catalog, (titles = catalog.skillTemplates.map((t) => (t.title ? new RegExp(t.title, 'iu') : undefined))));
  const hits: { t: SkillTemplate; how: string }[] = [];
  catalog.skillTemplates.forEach((t, i) => {
    if (t.keys.length >= 2 && t.keys.every((k) => own.has(k))) hits.push({ t, how: `its frontmatter keys ${t.keys.slice(0, 3).map((k) => `'${k}'`).join(', ')}, as the ${t.skill} skill's template writes them` });
    else if (title !== undefined && titles![i]?.test(title)) hits.push({ t, how: `its title '${title.slice(0, 60)}', as the ${t.skill} skill's template writes it` });
  });
  const skills = new Set(hits.map((h) => h.t.skill));
  if (skills.size === 1) return knownByName(hits[0].t.skill, hits[0].how, catalog.declared);
  if (skills.size === 0 || body === undefined) return undefined;
  const best = closestTemplate(hits, fixedLines(body));
  if (!best) return undefined;
  const others = [...skills].filter((s) => s !== best.t.skill).join(', ');
  return knownByName(best.t.skill, `${best.how}; its fixed lines are that template's, not ${others}'s`, catalog.declared);
}

/**
 * Of templates with one shape, the one the artifact's lines point to, among the lines some of them
 * hold and others not: the most such lines the artifact also holds (a heading only the full
 * template has, a draft's own note), then the fewest it lacks (guidance a team deletes, a section a
 * draft leaves out); undefined on a tie between skills.
 */
function closestTemplate<H extends { t: SkillTemplate }>(hits: readonly H[], doc: ReadonlySet<string>): H | undefined {
  const sets = hits.map((h) => new Set(h.t.lines ?? []));
  const telling = new Set<string>();
  for (const s of sets) for (const l of s) if (!sets.every((o) => o.has(l))) telling.add(l);
  if (!telling.size) return undefined;
  // Most telling lines the document holds first; of those, fewest it lacks.
  const scores = sets.map((s) => {
    let held = 0;
    let lacked = 0;
    for (const l of telling) if (s.has(l)) doc.has(l) ? held++ : lacked++;
    return { held, lacked };
  });
  const top = scores.reduce((a, b) => (b.held > a.held || (b.held === a.held && b.lacked < a.lacked) ? b : a));
  const atTop = hits.filter((_, i) => scores[i].held === top.held && scores[i].lacked === top.lacked);
  return new Set(atTop.map((h) => h.t.skill)).size === 1 ? atTop[0] : undefined;
}

/**
 * The workflow holding most of the recorded step ids, each compared by `key` (the id itself, or its
 * words): the first such workflow, its count, and the next best count among the others.
 */
function rankBySteps(catalog: BmadCatalog, ids: readonly string[], key: (id: string) => string): { wf?: BmadWorkflow; n: number; second: number } {
  const recorded = ids.map(key);
  let best: { wf?: BmadWorkflow; n: number; second: number } = { n: 0, second: 0 };
  for (const wf of catalog.workflows) {
    const own = new Set([...wf.steps.map((s) => key(s.id)), ...Object.values(wf.modeSteps ?? {}).flat().map((s) => key(s.id))]);
    const n = recorded.filter((w) => w !== '' && own.has(w)).length;
    if (n > best.n) best = { wf, n, second: best.n };
    else if (n > best.second) best.second = n;
  }
  return best;
}

/**
 * A file named as a declared output with a prefix (`12-1-automation-summary.md`, `7-5-tea-automation-summary.md`
 * for `{test_artifacts}/automation-summary.md`) whose `stepsCompleted` are all step names written
 * without `step-NN-` (`preflight`, `identify-targets`, `generate`, `validate`): the declaring workflow's
 * artifact when each name's words are a step's words, the steps in the workflow's order. One workflow only.
 */
function bareStepsOfOutput(abs: string, list: readonly unknown[], catalog: BmadCatalog): { workflow: BmadWorkflow; by: IdentifiedBy; detail: string; stepIds: readonly string[] } | undefined {
  if (!list.length || !catalog.patterns?.length) return undefined;
  const names: string[] = [];
  // (Or the steps' numbers alone, `step-01`, `step-02`: the declaring workflow's steps of those numbers.)
  const numbers = list.every((e) => typeof e === 'string' && BARE_NUMBER.test(e.trim()));
  for (const e of list) {
    if (typeof e !== 'string') return undefined;
    if (numbers) names.push(e.trim().toLowerCase());
    else if (!BARE_STEP.test(e.trim()) || /^step-/i.test(e.trim())) return undefined;
    else names.push(e.trim().toLowerCase());
  }
  const leaf = path.basename(abs).toLowerCase();
  const found = new Map<BmadWorkflow, { declared: string; ids: string[] }>();
  for (const p of catalog.patterns) {
    const out = p.declared.replace(/^.*[\\/]/, '').toLowerCase();
    if (out.includes('{') || !out.endsWith('.md') || leaf === out || !(leaf.endsWith(`-${out}`) || leaf.endsWith(`_${out}`)) || found.has(p.workflow)) continue;
    const ids = numbers ? stepsNumbered(p.workflow.steps.map((x) => x.id), names) : stepsInOrder(p.workflow.steps.map((x) => x.id), names);
    if (ids) found.set(p.workflow, { declared: p.declared, ids });
  }
  if (found.size !== 1) return undefined;
  const [[workflow, { declared, ids }]] = [...found];
  return { workflow, by: 'steps', detail: `${names.length} step ${numbers ? 'numbers' : "names in its steps' order"}, named as its output ${declared}`, stepIds: ids };
}

/** A step recorded by its number alone: `step-01`, `step-3`. */
const BARE_NUMBER = /^step-\d{1,3}$/i;

/** The steps the numbers name (`step-01` → `step-01-preflight-and-context`), each once; undefined when one names none. */
function stepsNumbered(ids: readonly string[], numbers: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (const n of numbers) {
    const want = Number(n.slice('step-'.length));
    const own = ids.filter((id) => Number(/^step-(\d+)(?:-|$)/i.exec(id)?.[1] ?? NaN) === want);
    if (own.length !== 1 || out.includes(own[0])) return undefined;
    out.push(own[0]);
  }
  return out;
}

/** A step name as a workflow's step list may hold it without its `step-NN-`: words of letters and digits. */
const BARE_STEP = /^[a-z][a-z0-9]*(?:[-_ ][a-z0-9]+){0,4}$/i;

/**
 * The steps the names are, each name's words all words of a step, each at a step after the previous
 * name's (`preflight`, `targets` → `step-01-preflight-and-context`, `step-02-identify-targets`); undefined when one is none.
 */
function stepsInOrder(ids: readonly string[], names: readonly string[]): string[] | undefined {
  const out: string[] = [];
  let from = 0;
  for (const n of names) {
    const words = n.split(/[-_ ]+/);
    let at = -1;
    for (let k = from; k < ids.length && at < 0; k++) {
      const own = stepWords(ids[k]).split('-');
      if (words.every((w) => own.includes(w))) at = k;
    }
    if (at < 0) return undefined;
    out.push(ids[at]);
    from = at + 1;
  }
  return out;
}

/** A step id's words, its number and a note after it left out: `step-05-agents (skipped)`, `step-e-02-review` → `agents`, `review`. */
function stepWords(id: string): string {
  return id.replace(/\s*\(.*$/, '').toLowerCase().replace(/^step-/, '').replace(/^(?:[a-z]-)?\d+[a-z]?-/, '');
}

/** The workflow a step-tracked artifact's title or headings name: the installed one, else the one BMAD's releases know (not installed here). */
function contentIdentified(data: Record<string, unknown>, catalog: BmadCatalog, text: string | undefined): { workflow: BmadWorkflow; by: IdentifiedBy; detail: string } | undefined {
  if (text === undefined || !recordsProgress(data)) return undefined;
  const found = contentWorkflowOf(text);
  if (!found) return undefined;
  const installed = [found.name, ...found.aliases].map((n) => lookupBmadWorkflow(catalog, n)).find((w) => w !== undefined);
  if (installed) return { workflow: installed, by: 'template', detail: found.detail };
  return knownByName(found.name, found.detail, catalog.declared);
}

/**
 * The declared output an artifact's path matches, when it names the file and is not only a
 * wildcard (`{implementation_artifacts}/{{story_key}}.md` matches every file of a folder, so it
 * says nothing of a file without workflow keys; `{planning_artifacts}/prd.md` and
 * `brainstorming-session-{{date}}.md` do).
 */
export function declaredOutputOf(file: string, catalog: BmadCatalog): BmadWorkflow | undefined {
  if (!catalog.patterns?.length) return undefined;
  const abs = path.resolve(file);
  for (const p of catalog.patterns) {
    if (namesAFile(p) && p.re.test(abs)) return p.workflow;
  }
  return undefined;
}

/** Whether a declared output's file name has a letter or digit besides its variables (asked of every file a scan reads: once per pattern). */
const namesFile = new WeakMap<OutputPattern, boolean>();
function namesAFile(p: OutputPattern): boolean {
  let named = namesFile.get(p);
  if (named === undefined) {
    const leaf = p.declared.replace(/^.*[\\/]/, '');
    named = /[A-Za-z0-9]/.test(leaf.replace(/\{\{[^}]*\}\}|\{[^}]*\}/g, '').replace(/\.(md|ya?ml)$/i, ''));
    namesFile.set(p, named);
  }
  return named;
}

/** True when a file lies in one of the output folders of a BMAD project the catalog read. */
export function inBmadOutput(file: string, catalog: BmadCatalog): boolean {
  const abs = path.resolve(file);
  return (catalog.projects ?? []).some((p) => p.outputFolders.some((d) => abs.startsWith(d + path.sep)));
}

/**
 * BMAD's own workflows, known by the names and output files its releases give them, for the
 * artifacts of workflows that are not installed in the checkout: a team keeps `_bmad/` or the
 * agent skill folders out of git, or a release retired the workflow that wrote the file. Such an
 * artifact is still that workflow's (an `implementation-readiness-report-2026-01-04.md` with
 * `stepsCompleted` is the readiness check's report, whatever is installed); its steps cannot be
 * checked, which is said plainly instead of calling the workflow unknown.
 *
 * Two sources, in order: what the project's install declares about its workflows even when their
 * folders are absent (`_config/bmad-help.csv`, each module's `module-help.csv`,
 * `workflow-manifest.csv`, `skill-manifest.csv`: names and, in older releases, the output path),
 * then the output names BMAD's releases write (the table below, learned from BMAD-METHOD's
 * workflows and its test-architecture module, v6 alpha to 6.x skills).
 */
import * as path from 'node:path';
import type { BmadWorkflow } from './workflowShape';
import type { StepDef } from '../types';
import { RELEASE_STEPS_TEXT } from './releaseSteps';
import { quoted } from '../model/text';

/** One BMAD workflow as its releases name it: its names, and the file names of its outputs. */
interface KnownWorkflow {
  /** The name BMAD's v6 releases give its folder (without `bmad-`). */
  name: string;
  /** Other names the releases and `workflowType` use for it. */
  aliases: readonly string[];
  /** Its output file names (the leaf only; dates, slugs and project names vary). */
  outputs: readonly RegExp[];
}

const DATE_OR_SLUG = '(?:[-_][^/\\\\]*)?';
const leaf = (stem: string): RegExp => new RegExp(`^${stem}${DATE_OR_SLUG}\\.md$`, 'i');

/** BMAD's workflows and their output names. A retrospective comes before the epics it is named after. */
const KNOWN: readonly KnownWorkflow[] = [
  { name: 'brainstorming', aliases: ['brainstorm', 'brainstorm-project'], outputs: [leaf('brainstorming-session'), leaf('brainstorming')] },
  { name: 'research', aliases: ['market-research', 'domain-research', 'technical-research', 'deep-recon'], outputs: [/^(?:market|domain|technical|competitive|user-voice|academic-lit)-[^/\\]*research[^/\\]*\.md$/i, leaf('research-(?:market|domain|technical)')] },
  { name: 'create-product-brief', aliases: ['product-brief', 'brief'], outputs: [leaf('product-brief'), /^brief\.md$/i] },
  { name: 'prfaq', aliases: [], outputs: [leaf('prfaq')] },
  { name: 'prd', aliases: ['create-prd', 'edit-prd', 'validate-prd'], outputs: [leaf('prd')] },
  { name: 'create-ux-design', aliases: ['ux-design', 'ux'], outputs: [leaf('ux-design-specification'), leaf('ux-design')] },
  { name: 'create-architecture', aliases: ['architecture'], outputs: [leaf('architecture')] },
  { name: 'retrospective', aliases: ['retro'], outputs: [/^epic-[\w.]+-retro(?:spective)?(?:[-_][^/\\]*)?\.md$/i] },
  // `epics.md`, a shard `epic-4-slug.md`, an epic named by a lettered id or a slug
  // (`epic-e-custody-signature.md`, `epic-auth-sdk-mvp.md`), or an epic's own breakdown in its folder
  // (`epics/epic-9/epic.md`).
  { name: 'create-epics-and-stories', aliases: ['epics', 'epics-and-stories'], outputs: [leaf('epics'), /^epic-[a-z0-9][^/\\]*\.md$/i, /^epic\.md$/i] },
  { name: 'check-implementation-readiness', aliases: ['implementation-readiness'], outputs: [leaf('implementation-readiness-report'), leaf('implementation-readiness')] },
  { name: 'quick-spec', aliases: ['tech-spec', 'create-tech-spec', 'quick-flow', 'quick-dev', 'spec'], outputs: [/^(?:[\w]+-)*tech-spec(?:[-_][^/\\]*)?\.md$/i, /^spec-wip\.md$/i] },
  { name: 'generate-project-context', aliases: ['project-context'], outputs: [/^project-context\.md$/i] },
  { name: 'correct-course', aliases: [], outputs: [leaf('sprint-change-proposal')] },
  { name: 'document-project', aliases: [], outputs: [leaf('deep-dive')] },
  // 6.x's code review (`step-01-gather-context` … `step-04-present`) when it keeps a report of its own.
  { name: 'code-review', aliases: [], outputs: [leaf('code-review')] },
  { name: 'testarch-framework', aliases: ['framework'], outputs: [leaf('framework-setup-progress')] },
  { name: 'testarch-test-design', aliases: ['test-design', 'testarch-test-design-handoff'], outputs: [leaf('test-design')] },
  { name: 'testarch-ci', aliases: ['ci'], outputs: [leaf('ci-pipeline-progress')] },
  { name: 'testarch-nfr', aliases: ['nfr-assess', 'testarch-nfr-assess'], outputs: [leaf('nfr-assessment')] },
  { name: 'testarch-trace', aliases: ['trace'], outputs: [leaf('traceability-(?:matrix|report)')] },
  { name: 'testarch-test-review', aliases: ['test-review'], outputs: [leaf('test-review')] },
  { name: 'testarch-atdd', aliases: ['atdd'], outputs: [leaf('atdd-checklist')] },
  { name: 'testarch-automate', aliases: ['automate'], outputs: [leaf('automation-summary')] },
  { name: 'create-game-brief', aliases: ['game-brief'], outputs: [leaf('game-brief')] },
  { name: 'gdd', aliases: ['create-gdd'], outputs: [/^gdd\.md$/i] },
  { name: 'game-architecture', aliases: [], outputs: [/^game-architecture\.md$/i] },
  { name: 'narrative', aliases: ['narrative-design'], outputs: [/^narrative-design\.md$/i] },
  { name: 'design-thinking', aliases: [], outputs: [leaf('design-thinking')] },
  { name: 'innovation-strategy', aliases: [], outputs: [leaf('innovation-strategy')] },
  { name: 'problem-solving', aliases: ['problem-solution'], outputs: [leaf('problem-solution')] },
  // The BMad Builder's agent workflow (create, edit and validate modes: `steps-c/`, `steps-e/`, `steps-v/`).
  { name: 'agent', aliases: ['create-agent', 'edit-agent', 'validate-agent', 'agent-builder'], outputs: [leaf('agent-plan')] },
  // Its workflow builder: `{bmb_creations_output_folder}/workflows/{name}/workflow-plan-{name}.md`.
  // Its edit mode's plan: `{output_folder}/workflow-edit-{target_workflow_name}.md` (6.0 alpha's
  // edit-workflow), `{bmb_creations_output_folder}/edit-plan-{workflow_name}.md` (steps-e).
  { name: 'workflow', aliases: ['create-workflow', 'edit-workflow', 'validate-workflow', 'workflow-builder'], outputs: [leaf('workflow-plan'), leaf('workflow-edit'), leaf('edit-plan')] },
];

/**
 * Frontmatter keys that only one BMAD workflow's template writes: a file carrying all of them beside
 * its recorded steps is that workflow's artifact whatever it is named (quick-spec's first step
 * writes `tech_stack`, `files_to_modify`, `code_patterns`, `test_patterns` under `stepsCompleted`,
 * and teams keep the spec under names of their own: `tech-specs/epic-x/00-infrastructure-audit.md`;
 * brainstorming's, `session_topic` and `session_goals`).
 */
const TEMPLATE_KEYS: readonly { name: string; keys: readonly string[] }[] = [
  { name: 'quick-spec', keys: ['files_to_modify', 'code_patterns', 'test_patterns'] },
  // The brainstorming session's first step writes the topic and goals beside its steps; teams save
  // sessions under names of their own (`B2B-offsite-2026-03-12.md`).
  { name: 'brainstorming', keys: ['session_topic', 'session_goals'] },
  // The BMad Builder's agent workflow names the agent it builds, edits or validates in every mode's
  // output (`validation-report-music-expert.md` under `bmb_creations_output_folder`).
  { name: 'agent', keys: ['agentName', 'agentFile'] },
];

/** The BMAD workflow whose template's frontmatter keys a file carries (with its steps recorded), if any. */
export function templateWorkflowOf(data: Record<string, unknown>): { name: string; aliases: readonly string[] } | undefined {
  if (!Object.prototype.hasOwnProperty.call(data, 'stepsCompleted')) return undefined;
  const t = TEMPLATE_KEYS.find((x) => x.keys.every((k) => Object.prototype.hasOwnProperty.call(data, k)));
  if (!t) return undefined;
  const k = KNOWN.find((w) => w.name === t.name)!;
  return { name: k.name, aliases: k.aliases };
}

/**
 * True when a frontmatter's text (read before, or without, parsing it) writes `stepsCompleted` and
 * every key only one BMAD template writes (templateWorkflowOf's evidence, for a frontmatter that
 * is not valid YAML: quick-spec's `code_patterns:` list holding `- [SerializeField] …`).
 */
export function templateKeysInText(yamlText: string): boolean {
  const has = (k: string) => new RegExp(`^["']?${k}["']?[ \\t]*:`, 'm').test(yamlText);
  return has('stepsCompleted') && TEMPLATE_KEYS.some((t) => t.keys.every(has));
}

/**
 * What BMAD's templates title their documents (v4's `title:` fields, v6's `# …` under the
 * frontmatter, 6.x skills' assets), and the same title in the languages BMAD writes documents in
 * (`document_output_language`: the agent translates the template's headings, so a Simplified
 * Chinese UX spec opens `# UX 设计规格说明：…`). Most specific first: `UX Research Report` is
 * research's, `Epic Breakdown` the epics'.
 */
const TITLES: readonly { name: string; re: RegExp }[] = [
  { name: 'create-game-brief', re: /game brief/iu },
  { name: 'gdd', re: /game design document|\bGDD\b/iu },
  { name: 'game-architecture', re: /game architecture/iu },
  { name: 'brainstorming', re: /brainstorming session|头脑风暴|頭腦風暴|腦力激盪|ブレインストーミング|lluvia de ideas|remue-méninges/iu },
  { name: 'check-implementation-readiness', re: /implementation readiness|readiness assessment|实施就绪|就绪评估|就緒評估/iu },
  { name: 'research', re: /\bresearch (?:report|:)|^(?:market|domain|technical) research\b|市场调研|技术调研|领域调研|调研报告|研究报告|étude de marché|investigación de mercado/iu },
  { name: 'create-epics-and-stories', re: /epic breakdown|\bepics? (?:and|&) (?:user )?stories|史诗(?:拆分|分解|与故事|和故事)?|エピック/iu },
  { name: 'quick-spec', re: /\btech[- ]?spec\b/iu },
  { name: 'generate-project-context', re: /project context for ai agents/iu },
  { name: 'prd', re: /product requirements|\bPRD\b|产品需求|需求文档|產品需求|製品要求|プロダクト要求|exigences (?:du )?produit|requisitos del producto|requisitos do produto|Produktanforderung|requisiti (?:del )?prodotto/iu },
  { name: 'create-ux-design', re: /\bUI\/UX\b|\bUX\b|user experience|用户体验|使用者體驗|用戶體驗|ユーザー体験|expérience utilisateur|experiencia de usuario|experiência do usuário|Nutzererlebnis|esperienza utente/iu },
  { name: 'create-architecture', re: /\barchitecture\b|架构|架構|アーキテクチャ|arquitectura|arquitetura|Architektur|architettura/iu },
  { name: 'create-product-brief', re: /(?:product|project) brief|产品简报|产品\s*brief|產品簡報|プロダクトブリーフ|brief (?:du )?produit|brief de producto/iu },
];

/**
 * The second-level headings only one workflow's steps append (BMAD v6's step files write their
 * section under these titles): three of one workflow's, and more than of any other, name it.
 */
const HEADINGS: readonly { name: string; headings: readonly string[] }[] = [
  { name: 'prd', headings: ['success criteria', 'product scope', 'user journeys', 'domain-specific requirements', 'innovation & novel patterns', 'project scoping & phased development', 'functional requirements', 'non-functional requirements', 'project classification'] },
  { name: 'create-ux-design', headings: ['core user experience', 'desired emotional response', 'ux pattern analysis & inspiration', 'design system foundation', 'visual design foundation', 'design direction decision', 'user journey flows', 'component strategy', 'ux consistency patterns', 'responsive design & accessibility'] },
  { name: 'create-architecture', headings: ['project context analysis', 'starter template evaluation', 'core architectural decisions', 'implementation patterns & consistency rules', 'project structure & boundaries', 'architecture validation results'] },
  { name: 'create-product-brief', headings: ['core vision', 'target users', 'success metrics', 'mvp scope'] },
  { name: 'create-epics-and-stories', headings: ['requirements inventory', 'epic list', 'fr coverage map'] },
  { name: 'check-implementation-readiness', headings: ['document discovery', 'prd analysis', 'epic coverage validation', 'ux alignment assessment', 'epic quality review', 'summary and recommendations'] },
  { name: 'brainstorming', headings: ['session overview', 'technique selection', 'technique execution results', 'idea organization and prioritization'] },
];

const headingKey = (h: string) => h.toLowerCase().replace(/[*_`]/g, '').replace(/^[\d.]+\s+/, '').replace(/\s+and\s+/g, ' & ').replace(/\s+/g, ' ').trim();
const headingIndex = new Map<string, string>();
for (const w of HEADINGS) for (const h of w.headings) headingIndex.set(headingKey(h), w.name);

/** A document's frontmatter block at its very start (its inner text in group 1). */
export const FRONTMATTER_BLOCK = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The text of a Markdown body's first `#` heading. */
export function firstHeading(body: string): string | undefined {
  return /^[ \t]{0,3}#[ \t]+(.+?)[ \t#]*$/m.exec(body)?.[1];
}

/**
 * The BMAD workflow whose document a file's body is, by what the template writes into it: its
 * title (`# UX Design Specification …`, or the same in the document's language), else three or
 * more of the headings only that workflow's steps write. Asked only of files that already record
 * workflow progress in their frontmatter: the body tells which workflow, never whether the file
 * is an artifact at all (a plain doc titled "Architecture" stays a plain doc).
 */
export function contentWorkflowOf(text: string): { name: string; aliases: readonly string[]; detail: string } | undefined {
  const head = text.length > 65536 ? text.slice(0, 65536) : text;
  const body = head.replace(FRONTMATTER_BLOCK, '');
  const known = (name: string) => KNOWN.find((w) => w.name === name)!;
  const title = firstHeading(body);
  if (title) {
    const t = TITLES.find((x) => x.re.test(title));
    if (t) return { name: t.name, aliases: known(t.name).aliases, detail: `its title '${title.slice(0, 60)}'` };
  }
  const counts = new Map<string, number>();
  for (const m of body.matchAll(/^[ \t]{0,3}##[ \t]+(.+?)[ \t#]*$/gm)) {
    const name = headingIndex.get(headingKey(m[1]));
    if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  if (ranked.length && ranked[0][1] >= 3 && (ranked.length === 1 || ranked[1][1] < ranked[0][1])) {
    const [name, n] = ranked[0];
    return { name, aliases: known(name).aliases, detail: `${n} of its headings` };
  }
  return undefined;
}

/** A name as BMAD writes it in any release, reduced to compare: `bmad-create-prd`, `bmad:bmm:prd`, `create_prd` → `prd`. */
function bare(name: string): string {
  return name.toLowerCase().trim().replace(/^.*[:/\\]/, '').replace(/_/g, '-').replace(/^bmad-/, '').replace(/^(?:bmm|cis|gds|tea|core)-/, '').replace(/^create-/, '');
}

const byBare = new Map<string, KnownWorkflow>();
for (const k of KNOWN) for (const n of [k.name, ...k.aliases]) if (!byBare.has(bare(n))) byBare.set(bare(n), k);

/** True when `name` is one BMAD's releases give a workflow of theirs (`check-implementation-readiness`, `bmad-create-prd`), in any release's spelling. */
export function releasedWorkflowName(name: string): boolean {
  return byBare.has(bare(name));
}

/** What a project's install declares about its workflows, installed or not. */
export interface DeclaredWorkflows {
  /** Names (reduced by `bare`) the help catalogs and manifests list, with the file that lists each. */
  names: Map<string, string>;
  /** Output paths declared in full (older `bmad-help.csv` rows), expanded to absolute patterns. */
  outputs: { re: RegExp; name: string; source: string }[];
}

export const emptyDeclared = (): DeclaredWorkflows => ({ names: new Map(), outputs: [] });

/** Records the names and output paths of one help catalog or manifest (rows already parsed, first row the header). */
export function addDeclaredRows(into: DeclaredWorkflows, rows: string[][], source: string, expand: (p: string) => string | undefined): void {
  const header = (rows[0] ?? []).map((h) => h.trim().toLowerCase());
  const cols = ['skill', 'command', 'canonicalid', 'name', 'workflow-file', 'path'].map((h) => header.indexOf(h)).filter((i) => i >= 0);
  const outCol = header.indexOf('output-location');
  for (const row of rows.slice(1)) {
    const names: string[] = [];
    for (const c of cols) {
      const v = row[c]?.trim();
      if (!v || v === '_meta') continue;
      // A path names its workflow by its folder (`…/workflows/brainstorming/workflow.md`, `…/bmad-prd/SKILL.md`).
      const n = /[\\/]/.test(v) ? path.basename(/\.(md|ya?ml|xml)$/i.test(v) ? path.dirname(v) : v) : v;
      if (/^[\w.:-]{2,80}$/.test(n)) names.push(bare(n));
    }
    for (const n of names) if (!into.names.has(n)) into.names.set(n, source);
    const out = outCol >= 0 ? row[outCol]?.trim() : undefined;
    if (out && names.length && /\.(md|ya?ml)$/i.test(out) && !/[*|\s]/.test(out)) {
      const abs = expand(out);
      if (abs) into.outputs.push({ re: patternOf(abs), name: names[0], source });
    }
  }
}

function patternOf(abs: string): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = abs.split(/(\{\{[^}]+\}\}|\{[^}]+\})/).map((part) => (/^\{/.test(part) ? '[^/\\\\]*' : esc(part))).join('');
  return new RegExp(`^${re}$`, process.platform === 'win32' ? 'i' : '');
}

/** A workflow that is known but not installed: no steps, no folder. */
function stub(name: string, declaredIn?: string): BmadWorkflow {
  return { name, dir: '', stepsDir: '', mode: 'plain', steps: [], continuation: [], otherModes: [], modeSteps: {}, outputs: [], installed: false, declaredIn };
}

const STEP_KEYS = ['stepsCompleted', 'lastStep', 'workflowType'];

/** True when a frontmatter records workflow progress (`stepsCompleted`, `lastStep` or `workflowType`): what makes a Markdown file an artifact. */
export function recordsProgress(data: Record<string, unknown>): boolean {
  return STEP_KEYS.some((k) => Object.prototype.hasOwnProperty.call(data, k));
}

/** A BMAD workflow named `name` (in any release's spelling) that is not installed: declared by the install, else known to BMAD's releases. */
export function knownByName(name: string, how: string, declared: DeclaredWorkflows | undefined): { workflow: BmadWorkflow; by: 'declared' | 'known'; detail: string } | undefined {
  const listed = declared?.names.get(bare(name));
  const k = byBare.get(bare(name));
  if (listed) return { workflow: stub(k?.name ?? bare(name), listed), by: 'declared', detail: `${how}, listed in ${listed}` };
  if (k) return { workflow: stub(k.name), by: 'known', detail: how };
  return undefined;
}

/**
 * The BMAD workflow an artifact belongs to when none of its workflow is installed: a full output
 * path the install declares, then its `workflowType`, then its file name against the outputs
 * BMAD's releases write. Only for files that record workflow progress (`stepsCompleted`,
 * `lastStep` or `workflowType`): a name alone makes no Markdown file an artifact.
 */
export function knownBmadWorkflowOf(file: string, data: Record<string, unknown>, declared: DeclaredWorkflows | undefined): { workflow: BmadWorkflow; by: 'declared' | 'known'; detail: string } | undefined {
  if (!recordsProgress(data)) return undefined;
  const abs = path.resolve(file);
  for (const o of declared?.outputs ?? []) {
    if (o.re.test(abs)) return { workflow: stub(byBare.get(o.name)?.name ?? o.name, o.source), by: 'declared', detail: o.source };
  }
  const said = (name: string, how: string) => knownByName(name, how, declared);
  const type = typeof data.workflowType === 'string' ? data.workflowType.trim() : '';
  if (type) {
    const hit = said(type, `workflowType ${quoted(type)}`);
    if (hit) return hit;
  }
  const shaped = templateWorkflowOf(data);
  if (shaped) {
    const hit = said(shaped.name, "template's frontmatter keys");
    if (hit) return hit;
  }
  const name = path.basename(abs);
  // A shard of a document BMAD's shard-doc split into a folder of its name (`epics/23-epic-6.md`,
  // `prd/06-requirements.md`): the document's workflow, as the whole document is.
  // (Not an epic's own folder, `epic-3/`: its files are that epic's stories.)
  const folder = `${path.basename(path.dirname(abs))}.md`;
  const k = KNOWN.find((w) => w.outputs.some((re) => re.test(name))) ?? (/^epic-/i.test(folder) ? undefined : KNOWN.find((w) => w.outputs.some((re) => re.test(folder))));
  if (!k) return undefined;
  const listedAs = [k.name, ...k.aliases].map((n) => declared?.names.get(bare(n))).find((x) => x !== undefined);
  return listedAs
    ? { workflow: stub(k.name, listedAs), by: 'declared', detail: `file name, listed in ${listedAs}` }
    : { workflow: stub(k.name), by: 'known', detail: 'file name' };
}

/**
 * Steps BMAD's own workflows let the agent pass over unrecorded when they do not apply: create-prd's
 * step-05-domain and step-06-innovation, each "(optional step)" in its description, step-06 saying
 * "NO INNOVATION DETECTED … Skip this step" (BMAD-METHOD v6.0.0…v6.6.0, create-prd/steps-c/). Passed over
 * (a later step done), they are neither a gap nor a step left to do.
 */
export const BMAD_OPTIONAL_STEPS: ReadonlySet<string> = new Set(['step-05-domain', 'step-06-innovation']);

/** quick-dev's spec as its step-01 names it: `{implementation_artifacts}/spec-{slug}.md` (`spec-wip.md` is quick-spec's work file). */
const QUICK_DEV_SPEC = /^spec-(?!wip\.md$)[a-z0-9][^/\\]*\.md$/i;

/**
 * BMAD quick-dev's spec (skill bmad-quick-dev, BMAD 6.x): `spec-{slug}.md`, its template's frontmatter
 * `title` and `status` (`draft | ready-for-dev | in-progress | in-review | done`), no step records (the
 * skill resumes from the status). A quick-flow artifact with a status, whether or not a ledger story
 * names it; named `quick-dev` (not installed here: its steps are not counted, the spec has none).
 */
export function quickDevSpecOf(file: string, data: Record<string, unknown>): { workflow: BmadWorkflow; by: 'known'; detail: string } | undefined {
  if (!QUICK_DEV_SPEC.test(path.basename(file)) || typeof data.status !== 'string' || typeof data.title !== 'string' || recordsProgress(data)) return undefined;
  return { workflow: stub('quick-dev'), by: 'known', detail: "quick-dev's spec (spec-{slug}.md, its template's title and status)" };
}

/** A workflow name as BMAD and its modules write one (`create-prd`, `story-automator`, `stories`). */
const NAME = /^[A-Za-z][\w.-]{0,62}$/;

/**
 * The workflow an artifact names itself, when no install here declares it (a community module's,
 * a workflow of the team's own, one BMAD retired): a file whose frontmatter has BMAD's
 * `workflowType`, or records its steps (`stepsCompleted` with at least one entry, or `lastStep`)
 * and names its `workflow` (naming none, where it lies may name it: selfPlacedWorkflowOf). Its
 * steps cannot be checked, but it is that workflow's artifact, not unknown.
 */
export function selfNamedWorkflowOf(data: Record<string, unknown>): { workflow: BmadWorkflow; by: 'self'; detail: string } | undefined {
  const steps = Array.isArray(data.stepsCompleted) ? data.stepsCompleted : [];
  // `workflowType` is BMAD's own key for a workflow's artifact; `workflow` (a common word) counts beside recorded steps.
  const type = typeof data.workflowType === 'string' ? data.workflowType.trim() : '';
  if (NAME.test(type)) return { workflow: stub(type), by: 'self', detail: `workflowType ${quoted(type)}` };
  const records = steps.length > 0 || (data.lastStep !== undefined && data.lastStep !== null);
  if (!records) return undefined;
  const named = typeof data.workflow === 'string' ? data.workflow.trim() : '';
  if (NAME.test(named)) return { workflow: stub(named), by: 'self', detail: `workflow ${quoted(named)}` };
  return undefined;
}

/**
 * The workflow a file's place names, when its frontmatter names none (selfNamedWorkflowOf) and its
 * step ids are no BMAD release's (releasedWorkflowOf): a file recording BMAD step ids
 * (`step-01-init`) in a module's own folder under the output folder (`{output_folder}/story-automator/…`,
 * where modules write), or WDS's records in `{output_folder}/_progress/`.
 */
export function selfPlacedWorkflowOf(file: string, data: Record<string, unknown>, projects: readonly { root: string; outputFolders: string[] }[] | undefined): { workflow: BmadWorkflow; by: 'self'; detail: string } | undefined {
  const steps = Array.isArray(data.stepsCompleted) ? data.stepsCompleted : [];
  const records = steps.length > 0 || (data.lastStep !== undefined && data.lastStep !== null);
  if (!records) return undefined;
  const abs = path.resolve(file);
  const dir = path.dirname(abs);
  // Whiteport Design Studio (WDS, a BMAD module) keeps its design process's records in
  // `{output_folder}/_progress/` (its design log, validation reports): one recording its steps there is WDS's.
  if (path.basename(dir) === '_progress' && (projects ?? []).some((p) => p.outputFolders[0] === path.dirname(dir))) {
    return { workflow: stub('wds'), by: 'self', detail: 'a record of WDS in its _progress/ folder under the output folder' };
  }
  const ids = steps.filter((e): e is string => typeof e === 'string');
  if (!ids.length || ids.length !== steps.length || !ids.every((e) => /^step-\w/i.test(e.replace(/^.*[\\/]/, '')))) return undefined;
  for (const p of projects ?? []) {
    const [out, ...artifactFolders] = p.outputFolders;
    if (!out || path.dirname(dir) !== out || p.outputFolders.includes(dir) || artifactFolders.some((a) => dir.startsWith(a + path.sep))) continue;
    const folder = path.basename(dir);
    if (NAME.test(folder)) return { workflow: stub(folder), by: 'self', detail: `its folder ${folder}/ under the output folder` };
  }
  return undefined;
}

/** One workflow's step ids as a run of BMAD releases shipped them (a line of releaseSteps.ts). */
export interface ReleaseSteps {
  /** BMAD's module: core, bmm, bmb, bmgd (Game Dev Studio while BMAD-METHOD carried it), gds, tea. */
  module: string;
  /** The workflow's folder name without `bmad-` or its module's prefix. */
  workflow: string;
  /** The repositories and the first…last release of each that shipped this list. */
  releases: string;
  /** The steps of its create mode (`steps-c/`) or its only mode (`steps/`), in order, continuation files left out. */
  steps: string;
  /** Its other modes' steps (edit, validate, plain, or a mode folder's own name). */
  modes: Readonly<Record<string, string>>;
}

let releaseTable: ReleaseSteps[] | undefined;

/** The release table (releaseSteps.ts), read when first asked for. */
export function releaseSteps(): readonly ReleaseSteps[] {
  if (!releaseTable) {
    releaseTable = [];
    for (const line of RELEASE_STEPS_TEXT.split('\n')) {
      if (!line) continue;
      const [name, releases, steps, ...modes] = line.split(' | ');
      const [module, workflow] = name.split(' ');
      const byMode: Record<string, string> = {};
      for (const m of modes) {
        const at = m.indexOf(': ');
        byMode[m.slice(0, at)] = m.slice(at + 2);
      }
      releaseTable.push({ module, workflow, releases, steps, modes: byMode });
    }
  }
  return releaseTable;
}

/** One line of the release table, read once: its canonical workflow, its step ids and its modes' as sets. */
interface ReleaseRow {
  row: ReleaseSteps;
  /** The workflow it is: KNOWN's name where KNOWN has it, else its own name reduced (`create-module` and `module` are one). */
  key: string;
  ids: Set<string>;
}

let releaseRows: ReleaseRow[] | undefined;
/** Release rows by step id (lower case). */
let releaseIndex: Map<string, number[]> | undefined;

function loadReleaseRows(): { rows: ReleaseRow[]; index: Map<string, number[]> } {
  if (!releaseRows || !releaseIndex) {
    releaseRows = releaseSteps().map((row) => {
      const ids = new Set([row.steps, ...Object.values(row.modes)].flatMap((s) => s.split(' ')).map((s) => s.toLowerCase()));
      return { row, key: byBare.get(bare(row.workflow))?.name ?? bare(row.workflow), ids };
    });
    releaseIndex = new Map();
    releaseRows.forEach((r, i) => {
      for (const id of r.ids) {
        const at = releaseIndex!.get(id);
        if (at) at.push(i);
        else releaseIndex!.set(id, [i]);
      }
    });
  }
  return { rows: releaseRows, index: releaseIndex };
}

const stepDefs = (ids: string): StepDef[] => ids.split(' ').map((id, i) => ({ id, index: i + 1, title: id.replace(/^(?:step-)?(?:[a-z]-)?\d+[a-z]?-/i, '').replace(/-/g, ' ') }));

/**
 * The BMAD workflow whose releases recorded these step ids (src/core/bmad/releaseSteps.ts, every
 * official release's step files), for an artifact no install here identifies: the workflow one of
 * whose releases holds the most of them, at least half, with no other workflow holding as many
 * (rankBySteps' rule). When the lists that hold every recorded id are one list (one release, or
 * releases that shipped the same steps), the workflow is given that list, so its steps are checked;
 * ids of several releases, or of several lists, name the workflow only.
 */
export function releasedWorkflowOf(recorded: readonly string[], declared: DeclaredWorkflows | undefined): { workflow: BmadWorkflow; by: 'known' | 'declared'; detail: string } | undefined {
  if (!recorded.length) return undefined;
  const { rows, index } = loadReleaseRows();
  const ids = [...new Set(recorded.map((s) => s.toLowerCase()))];
  const counts = new Map<number, number>();
  for (const id of ids) for (const i of index.get(id) ?? []) counts.set(i, (counts.get(i) ?? 0) + 1);
  // Each workflow's best release.
  const best = new Map<string, number>();
  for (const [i, n] of counts) if (n > (best.get(rows[i].key) ?? 0)) best.set(rows[i].key, n);
  const ranked = [...best].sort((a, b) => b[1] - a[1]);
  if (!ranked.length) return undefined;
  const [key, n] = ranked[0];
  if (n * 2 < ids.length || (ranked.length > 1 && ranked[1][1] === n)) return undefined;
  const holding = [...counts].filter(([i, c]) => rows[i].key === key && c === n).map(([i]) => rows[i].row);
  const whole = n === ids.length ? holding : [];
  const lists = new Set(whole.map((r) => r.steps));
  const releases = (whole.length ? whole : holding).map((r) => r.releases).join('; ');
  const how = `${n} of ${ids.length} recorded steps, known from BMAD's releases`;
  const detail = lists.size === 1 ? `${how}: ${releases}` : whole.length ? `${how}, whose lists differ: ${releases}` : `${how}, ids of several releases (most in ${releases})`;
  const k = KNOWN.find((w) => w.name === key);
  const name = k ? k.name : holding[0].workflow;
  const listedAs = [name, key, ...(k?.aliases ?? [])].map((x) => declared?.names.get(bare(x))).find((x) => x !== undefined);
  const workflow = stub(name, listedAs);
  if (lists.size === 1) {
    const row = whole[0];
    workflow.steps = stepDefs(row.steps);
    for (const [mode, s] of Object.entries(row.modes)) workflow.modeSteps[mode] = stepDefs(s);
  }
  return listedAs ? { workflow, by: 'declared', detail: `${detail}; listed in ${listedAs}` } : { workflow, by: 'known', detail };
}

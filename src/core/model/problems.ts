// The one registry of problem codes and quick fixes. `ProblemCode` and `FixId` are derived from
// it, so a misspelt code or fix is a type error wherever a Problem is made or read. A new code is
// one entry here plus its row in docs/problems.md (a unit test holds the two together).
/** How bad a problem is (LSP's levels, without hint). */
export type Severity = 'error' | 'warning' | 'info';

/** Sections of docs/problems.md; the anchor is the section's GitHub heading id. */
export const PROBLEM_SECTIONS = {
  reading: 'reading-the-file',
  schema: 'schema-and-keys',
  steps: 'steps',
  gates: 'gates',
  time: 'time',
  delegation: 'delegation',
  config: 'configuration-and-definitions',
  sprint: 'bmad-sprint-sprint-statusyaml-story-files-epics-gates',
  project: 'the-project-view-dependencies-and-stalled-work',
  tree: 'bmad-v7-ticket-tree-ticketstoml-leaf-files-plans',
} as const;
type Section = keyof typeof PROBLEM_SECTIONS;

type FixData = Readonly<Record<string, unknown>>;

function shown(v: unknown): string {
  if (v === undefined) return '';
  return ` ${Array.isArray(v) ? `[${v.join(', ')}]` : String(v)}`;
}

/**
 * Quick fixes: what `Problem.data.fix` may name, each with the title a face shows for it. Each is
 * applied by `planFix` (mutations.ts) through the one write path; the switch there is exhaustive.
 */
export const FIXES = {
  removeKey: { title: (d: FixData) => `Remove key '${String(d.key ?? '')}'` },
  renameKey: { title: (d: FixData) => `Rename '${String(d.from ?? '')}' to '${String(d.to ?? '')}'` },
  addKey: { title: (d: FixData) => `Add ${String(d.key ?? 'key')}:${shown(d.value)}` },
  replaceStatus: { title: (d: FixData) => `Set status to${shown(d.value)}` },
  replaceScope: { title: (d: FixData) => `Set scope to${shown(d.value)}` },
  setCurrentStep: { title: (d: FixData) => `Set currentStep to${shown(d.value)}` },
  setLastStep: { title: (d: FixData) => `Set lastStep to${shown(d.value)}` },
  replaceStep: { title: (d: FixData) => `Replace the entry with${shown(d.value)}` },
  removeStep: { title: () => 'Remove the entry' },
  dedupeSteps: { title: () => 'Remove duplicate steps' },
  sortSteps: { title: () => 'Sort stepsCompleted in workflow order' },
  setDepth: { title: (d: FixData) => `Set depth to${shown(d.value)}` },
  setParent: { title: (d: FixData) => `Set parent_id to${shown(d.value)}` },
  setRoot: { title: (d: FixData) => `Set root_id to${shown(d.value)}` },
  setChain: { title: (d: FixData) => `Set chain_path to${shown(d.value)}` },
  createGate: { title: (d: FixData) => `Create the missing gate file${d.gate ? ` '${String(d.gate)}'` : ''}` },
  recordGate: { title: (d: FixData) => `Record the verdict of gate${d.gate ? ` '${String(d.gate)}'` : ''} through Waymark (waymark gate pass|concerns|fail|waive)` },
  // Sprint ledger and story files: applied with `waymark story set-status`, not to a workflow file.
  setLedgerValue: { title: (d: FixData) => `Set ${String(d.key ?? 'the entry')} to${shown(d.value)} in sprint-status.yaml` },
  setStoryStatus: { title: (d: FixData) => `Set the story's Status to${shown(d.value)}` },
} as const;

/** A quick-fix id (`Problem.data.fix`). */
export type FixId = keyof typeof FIXES;

export interface ProblemSpec {
  /** The usual severity; `also` lists the others a code may be reported with. */
  severity: Severity;
  also?: readonly Severity[];
  /** One line: what the problem is (the message of a Problem adds the specifics). */
  title: string;
  section: Section;
  /** Quick fixes a problem with this code may carry. */
  fixes?: readonly FixId[];
}

/** Every problem code Waymark reports. */
export const PROBLEMS = {
  // Reading the file.
  'yaml-syntax': { severity: 'error', title: 'The frontmatter is not valid YAML', section: 'reading' },
  'frontmatter-unclosed': { severity: 'error', title: 'The frontmatter has no closing --- line', section: 'reading' },
  'frontmatter-code-refused': { severity: 'error', title: 'The fence names a code language; Waymark never evaluates frontmatter', section: 'reading' },
  'frontmatter-language': { severity: 'error', title: 'Only YAML frontmatter is supported', section: 'reading' },
  'frontmatter-not-mapping': { severity: 'error', title: 'The frontmatter is not a mapping of keys', section: 'reading' },
  'frontmatter-line-endings': { severity: 'error', title: 'Lone CR line endings: no fence line can be found', section: 'reading' },
  'yaml-alias-limit': { severity: 'error', title: 'Aliases expand beyond limits.maxAliasCount', section: 'reading' },
  'yaml-too-complex': { severity: 'error', title: 'Too many values or nesting too deep', section: 'reading' },
  'unsafe-key': { severity: 'warning', title: 'A key that could pollute prototypes is ignored', section: 'reading', fixes: ['removeKey'] },
  'internal-error': { severity: 'error', title: 'An unexpected failure while reading this file', section: 'reading' },
  // Schema and keys.
  'schema-type': { severity: 'error', title: 'A known key has the wrong type', section: 'schema' },
  'step-id-duplicate': { severity: 'error', title: 'A step id is listed twice in steps', section: 'schema' },
  'unknown-key-typo': { severity: 'warning', title: 'An unknown key is a likely typo of a known one', section: 'schema', fixes: ['renameKey'] },
  'workflow-missing': { severity: 'warning', title: "No 'workflow:' id; the file name is used", section: 'schema', fixes: ['addKey'] },
  'unknown-status': { severity: 'error', also: ['warning'], title: "Status is not one of the dialect's words", section: 'schema', fixes: ['replaceStatus'] },
  'unknown-scope': { severity: 'error', title: 'Scope is not micro, small, medium, large or epic', section: 'schema', fixes: ['replaceScope'] },
  'blocked-without-reason': { severity: 'info', title: 'Blocked without a blockedReason', section: 'schema' },
  // Steps.
  'steps-missing': { severity: 'info', title: 'No steps list and no definition: steps cannot be checked', section: 'steps' },
  'bmad-workflow-unknown': { severity: 'info', title: 'No installed BMAD workflow of that name', section: 'steps' },
  'bmad-workflow-not-installed': { severity: 'info', title: "A BMAD workflow's artifact, the workflow not installed here", section: 'steps' },
  'current-step-unknown': { severity: 'error', title: 'currentStep is not a step of the workflow', section: 'steps', fixes: ['setCurrentStep'] },
  'step-unknown': { severity: 'error', title: 'A stepsCompleted entry or lastStep names no step', section: 'steps', fixes: ['replaceStep', 'removeStep', 'setLastStep'] },
  'step-duplicate': { severity: 'warning', title: 'A step is listed twice in stepsCompleted', section: 'steps', fixes: ['dedupeSteps'] },
  'step-order': { severity: 'warning', title: 'stepsCompleted is not in workflow order', section: 'steps', fixes: ['sortSteps'] },
  'step-gap': { severity: 'warning', title: 'Steps before the furthest completed one were skipped', section: 'steps' },
  'last-step-mismatch': { severity: 'warning', title: 'lastStep is not the furthest completed step', section: 'steps', fixes: ['setLastStep'] },
  'status-complete-steps-remain': { severity: 'warning', title: 'Status says complete but steps remain', section: 'steps' },
  'steps-done-status-open': { severity: 'info', title: 'Every step is done but status is not complete', section: 'steps', fixes: ['replaceStatus'] },
  // Gates.
  'gate-not-passed': { severity: 'error', title: 'A gated step is completed but its gate is not passed', section: 'gates', fixes: ['createGate'] },
  'gate-invalid': { severity: 'error', title: 'The gate file is not valid', section: 'gates' },
  'gate-unrecorded': { severity: 'warning', title: 'The gate file was not recorded through Waymark, so it does not open its gate', section: 'gates', fixes: ['recordGate'] },
  // Time.
  'ttl-expired': { severity: 'warning', title: 'The ttl has passed', section: 'time' },
  'ttl-invalid': { severity: 'warning', also: ['info'], title: 'ttl is not a duration or a date-time (or has no updatedAt to count from)', section: 'time' },
  // Delegation: per file.
  'delegation-schema': { severity: 'error', title: 'The delegation block is incomplete', section: 'delegation' },
  'delegation-depth': { severity: 'error', title: 'depth is not the chain length - 1', section: 'delegation', fixes: ['setDepth'] },
  'delegation-chain-root': { severity: 'error', title: 'The chain does not start at root_id', section: 'delegation' },
  'delegation-chain-end': { severity: 'error', title: 'The chain does not end at id', section: 'delegation' },
  'delegation-parent-mismatch': { severity: 'error', title: 'parent_id is not the previous link of the chain', section: 'delegation', fixes: ['setParent'] },
  'delegation-cycle': { severity: 'error', title: 'The delegation chain loops', section: 'delegation' },
  // Delegation: across files.
  'delegation-orphan': { severity: 'error', title: 'No scanned file has the parent id', section: 'delegation' },
  'delegation-duplicate-id': { severity: 'error', title: 'Two files use the same delegation id', section: 'delegation' },
  'delegation-root-mismatch': { severity: 'error', title: "root_id differs from the parent's", section: 'delegation', fixes: ['setRoot'] },
  'delegation-chain-mismatch': { severity: 'error', title: "chain_path is not the parent's chain plus this id", section: 'delegation', fixes: ['setChain'] },
  // Configuration and definitions.
  'config-yaml-syntax': { severity: 'error', title: '.waymark/config.yaml is not valid YAML', section: 'config' },
  'config-invalid': { severity: 'error', title: 'A setting has a bad value; its default is used', section: 'config' },
  'config-unknown-key': { severity: 'warning', title: 'An unknown setting (kept, not used)', section: 'config', fixes: ['renameKey'] },
  'config-unreadable': { severity: 'error', title: 'The config file cannot be read', section: 'config' },
  'definition-invalid': { severity: 'error', title: 'A workflow definition file is not valid', section: 'config' },
  // BMAD sprint ledger (sprint-status.yaml) and story files.
  'bmad-folder-near-miss': { severity: 'info', title: 'A declared story folder does not exist; a folder named the same but for separators and case is read', section: 'sprint' },
  'bmad-config-unreadable': { severity: 'warning', title: "The BMAD config cannot be read; defaults are used", section: 'sprint' },
  'sprint-unreadable': { severity: 'warning', title: 'The BMAD sprint could not be read; sprint checks are skipped', section: 'sprint' },
  'ledger-yaml': { severity: 'error', title: 'sprint-status.yaml is not valid YAML', section: 'sprint' },
  'ledger-not-a-file': { severity: 'error', title: 'A ledger place holds a device, a pipe or a socket, not a file', section: 'sprint' },
  'ledger-duplicate-key': { severity: 'error', also: ['warning', 'info'], title: 'A ledger key is listed twice (or in two ledgers)', section: 'sprint' },
  'ledger-timestamp': { severity: 'warning', title: 'A ledger timestamp is not a date Waymark reads', section: 'sprint' },
  'ledger-unknown-key': { severity: 'warning', also: ['info'], title: 'Ledger keys outside BMAD\'s strict grammar (one note per ledger)', section: 'sprint' },
  'ledger-unknown-status': { severity: 'warning', also: ['info'], title: 'A ledger status BMAD does not know', section: 'sprint', fixes: ['setLedgerValue'] },
  'ledger-legacy-status': { severity: 'info', title: 'An older or differently written BMAD status word', section: 'sprint', fixes: ['setLedgerValue'] },
  'ledger-epic-missing': { severity: 'warning', title: 'Stories of an epic are listed without its epic entry', section: 'sprint' },
  'ledger-other-format': { severity: 'info', title: "sprint-status.yaml is another tool's format (no development_status)", section: 'sprint' },
  'ledger-stale': { severity: 'info', title: 'The ledger has not been updated while stories are active', section: 'sprint' },
  'ledger-story-no-file': { severity: 'warning', also: ['info'], title: 'A started story has no story file', section: 'sprint' },
  'epic-done-stories-open': { severity: 'warning', title: 'An epic is done but some of its stories are not', section: 'sprint', fixes: ['setLedgerValue'] },
  'epic-backlog-story-started': { severity: 'warning', title: 'An epic is backlog but one of its stories has started', section: 'sprint', fixes: ['setLedgerValue'] },
  'epics-story-not-in-ledger': { severity: 'warning', title: 'A planned story has no ledger entry', section: 'sprint' },
  'story-not-in-ledger': { severity: 'warning', title: 'A story file has no ledger entry', section: 'sprint' },
  'ledger-stories-outside': { severity: 'info', title: 'Many story files are kept outside the ledger (one note per ledger)', section: 'sprint' },
  'story-file-duplicate': { severity: 'info', title: 'Two files for one story', section: 'sprint' },
  'story-status-missing': { severity: 'warning', title: "A story file has no 'Status:' line", section: 'sprint', fixes: ['setStoryStatus'] },
  'story-unknown-status': { severity: 'warning', also: ['info'], title: 'A story status BMAD does not know', section: 'sprint', fixes: ['setStoryStatus'] },
  'story-legacy-status': { severity: 'info', title: 'An older or differently written story status', section: 'sprint', fixes: ['setStoryStatus'] },
  'story-status-drift': { severity: 'warning', also: ['info'], title: 'The story file and the ledger disagree on its status', section: 'sprint' },
  'story-done-tasks-open': { severity: 'warning', title: 'A story is done but tasks are unchecked', section: 'sprint' },
  'story-gate-failed': { severity: 'error', also: ['warning'], title: "A done story's QA gate did not pass", section: 'sprint' },
  'story-gate-expired': { severity: 'warning', also: ['info'], title: "A story's PASS or CONCERNS QA gate is past its expires: due a re-review", section: 'sprint' },
  // BMAD v7's ticket tree (core/bmad/tree): what tickets.py refuses, and what it does not check.
  'tree-toml': { severity: 'error', title: 'tickets.toml is not valid TOML', section: 'tree' },
  'tree-key-type': { severity: 'error', title: 'A tickets.toml table or a ticket key has the wrong shape or type', section: 'tree' },
  'tree-duplicate-id': { severity: 'error', title: 'Two entries, epics or leaf files share an id (or two epics a slug)', section: 'tree' },
  'tree-frontmatter': { severity: 'error', title: "A leaf or epic file's frontmatter does not close, or holds a block list", section: 'tree' },
  'tree-unknown-status': { severity: 'error', title: "A leaf's status or tracker_status, or a container's status, is not one of BMAD's words", section: 'tree' },
  'tree-container': { severity: 'error', title: 'An epic folder has no epic file, or its type is not epic', section: 'tree' },
  'tree-after-unknown': { severity: 'error', title: 'An after names no ticket, epic or tracker id', section: 'tree' },
  'tree-cycle': { severity: 'error', title: 'Tickets wait on each other in a cycle', section: 'tree' },
  'tree-two-plans': { severity: 'error', title: 'Two plans name one ticket', section: 'tree' },
  'tree-plan-status': { severity: 'warning', title: "A plan's status is not one of BMAD's words; the ticket reads as blocked", section: 'tree' },
  'tree-plan-ticket': { severity: 'warning', title: "A plan's ticket names no entry or leaf file in its folder; the plan is skipped", section: 'tree' },
  'tree-initiative': { severity: 'info', title: 'Which initiative Waymark reads, when the config does not say', section: 'tree' },
  'tree-covers-unknown': { severity: 'warning', title: 'A covers id names no requirement in the epic or initiative', section: 'tree' },
  'tree-drift': { severity: 'warning', title: "A leaf file's after or hitl differs from its entry in tickets.toml", section: 'tree' },
  'tree-container-status': { severity: 'warning', title: "An epic's status contradicts its tickets", section: 'tree' },
  'tree-unpinned-after': { severity: 'info', title: "An epic's declared after is pinned by none of its tickets", section: 'tree' },
  'tree-undeclared-after': { severity: 'warning', title: "A ticket's after reaches into an epic its own epic does not declare", section: 'tree' },
  'tree-order-conflict': { severity: 'warning', title: 'An epic waits on an epic later in the build order', section: 'tree' },
  'migrate-status-mismatch': { severity: 'warning', title: "A migrated ticket's status differs from what BMAD's mapping gives for the archived story", section: 'tree' },
  'migrate-story-missing': { severity: 'warning', title: 'An archived ledger story has no entry or plan in the tree', section: 'tree' },
  'migrate-unmapped-status': { severity: 'warning', title: 'An archived status BMAD does not map was copied as is, or is still a question', section: 'tree' },
  'migrate-count': { severity: 'warning', title: "The archive's story count and the tree's entry count do not add up", section: 'tree' },
  // The project view: dependencies and stalled work (core/project).
  'depends-unknown': { severity: 'error', also: ['warning'], title: 'A dependsOn/after entry names no workflow, story or file (or several)', section: 'project' },
  'depends-self': { severity: 'error', title: 'A workflow depends on itself', section: 'project' },
  'depends-cycle': { severity: 'error', title: 'Dependencies form a cycle; none of its items can start', section: 'project' },
  'work-stalled': { severity: 'warning', also: ['info'], title: 'In progress with no activity for longer than project.stalledAfter', section: 'project' },
} as const satisfies Record<string, ProblemSpec>;

/** A problem code (`Problem.code`). */
export type ProblemCode = keyof typeof PROBLEMS;

/** The registry entry of a code. */
export function problemSpec(code: ProblemCode): ProblemSpec {
  return PROBLEMS[code];
}

/** Where a code is explained: `docs/problems.md#<section>`. */
export function problemDocsPath(code: ProblemCode): string {
  return `docs/problems.md#${PROBLEM_SECTIONS[PROBLEMS[code].section]}`;
}

/** True for a string that is a known problem code (for input from outside: CLI arguments, MCP). */
export function isProblemCode(s: string): s is ProblemCode {
  return Object.prototype.hasOwnProperty.call(PROBLEMS, s);
}

/** True for a string that is a known quick-fix id. */
export function isFixId(s: unknown): s is FixId {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(FIXES, s);
}

/** The title a face shows for a problem's quick fix (`data.title` wins when the core set one). */
export function fixTitle(problem: { data?: Readonly<Record<string, unknown>> }): string {
  const d = problem.data ?? {};
  if (typeof d.title === 'string') return d.title;
  return isFixId(d.fix) ? FIXES[d.fix].title(d) : `${String(d.fix ?? 'fix')}${shown(d.value)}`;
}

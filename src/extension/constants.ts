// Ids shared with package.json `contributes` (test/integration checks they match).
import type { MutationName } from '../core/index';

export const EXTENSION_ID = 'waymark.waymark';
export const OUTPUT_CHANNEL = 'Waymark';
export const CONFIG_SECTION = 'waymark';
/** Every command's category in package.json. */
export const COMMAND_CATEGORY = 'Waymark';

export const VIEW_CONTAINER = 'waymark';
export const VIEWS = {
  workflows: 'waymark.workflows',
  sprint: 'waymark.sprint',
  gates: 'waymark.gates',
  delegation: 'waymark.delegation',
  memory: 'waymark.memory',
} as const;

export const CONTEXT = {
  /** True once a workspace with workflow files is loaded. */
  active: 'waymark.active',
  /** True while writes are allowed (trusted workspace). */
  canWrite: 'waymark.canWrite',
  /** True when the workspace has at least one workflow file. */
  hasWorkflows: 'waymark.hasWorkflows',
  /** True while a scan runs. */
  scanning: 'waymark.scanning',
  /**
   * True once the first scan has ended (whatever its outcome). Unset until then, and before the
   * extension is even activated: a view's "nothing here" text needs this key, so a large project
   * opening under load never says "No workflow files found" while it is still being read.
   */
  scanned: 'waymark.scanned',
  /** The sprint and the ticket tree are not read yet (their first read waits for the Workflows view's first rows). */
  sprintReading: 'waymark.sprintReading',
  /** True once the sprint and the ticket tree were first read (see `scanned`: "No BMAD sprint here" needs it). */
  sprintRead: 'waymark.sprintRead',
} as const;

/**
 * What a command may touch, checked by the command runner before it runs:
 * `read` runs anywhere; `write` changes workspace files (state, gates, manifest, checkpoints,
 * leases); `memory` opens the memory store, which writes `.waymark/memory/*` even to read.
 * `write` and `memory` are refused in Restricted Mode.
 */
export type CommandAccess = 'read' | 'write' | 'memory';

export interface CommandDecl {
  readonly id: string;
  /** The title in package.json (category Waymark). */
  readonly title: string;
  /** The action named in messages: "<action> failed: <reason>". */
  readonly action: string;
  readonly access: CommandAccess;
  /**
   * A core mutation (MUTATIONS in src/core/model/mutations.ts) this command runs: declared here,
   * it needs no handler of its own; workflowCommands.ts asks for its arguments from their spec.
   */
  readonly mutation?: MutationName;
}

/** Every command, declared once here and once in package.json `contributes.commands`. */
export const COMMAND_DECLS = {
  refresh: { id: 'waymark.refresh', title: 'Revalidate Workspace', action: 'Revalidate', access: 'read' },
  start: { id: 'waymark.start', title: 'Start Workflow', action: 'Start', access: 'write' },
  advance: { id: 'waymark.advance', title: 'Advance (Complete Current Step)', action: 'Advance', access: 'write' },
  completeStep: { id: 'waymark.completeStep', title: 'Complete Step…', action: 'Complete step', access: 'write' },
  setStatus: { id: 'waymark.setStatus', title: 'Set Status…', action: 'Set status', access: 'write' },
  block: { id: 'waymark.block', title: 'Block…', action: 'Block', access: 'write' },
  unblock: { id: 'waymark.unblock', title: 'Unblock', action: 'Unblock', access: 'write', mutation: 'unblock' },
  setScope: { id: 'waymark.setScope', title: 'Set Scope…', action: 'Set scope', access: 'write' },
  delegate: { id: 'waymark.delegate', title: 'Delegate to Sub-agent…', action: 'Delegate', access: 'write' },
  gatePass: { id: 'waymark.gate.pass', title: 'Gate: Pass…', action: 'Gate pass', access: 'write' },
  gateFail: { id: 'waymark.gate.fail', title: 'Gate: Fail…', action: 'Gate fail', access: 'write' },
  gateConcerns: { id: 'waymark.gate.concerns', title: 'Gate: Pass with Concerns…', action: 'Gate concerns', access: 'write' },
  gateWaive: { id: 'waymark.gate.waive', title: 'Gate: Waive…', action: 'Gate waive', access: 'write' },
  gateOpen: { id: 'waymark.gate.open', title: 'Open Gate File', action: 'Open gate', access: 'read' },
  history: { id: 'waymark.history', title: 'Show History…', action: 'Show history', access: 'read' },
  resume: { id: 'waymark.resume', title: 'Resume Workflow…', action: 'Resume', access: 'read' },
  manifest: { id: 'waymark.manifest', title: 'Write Files Manifest', action: 'Write manifest', access: 'write' },
  changed: { id: 'waymark.changed', title: 'Show Changes Since Manifest', action: 'Show changes', access: 'read' },
  openFile: { id: 'waymark.openFile', title: 'Open Workflow File', action: 'Open', access: 'read' },
  openStepFile: { id: 'waymark.openStepFile', title: 'Open Step File', action: 'Open step file', access: 'read' },
  applyFix: { id: 'waymark.applyFix', title: 'Apply Quick Fix', action: 'Quick fix', access: 'write' },
  nextActions: { id: 'waymark.nextActions', title: 'Next Actions…', action: 'Next actions', access: 'read' },
  showLog: { id: 'waymark.showLog', title: 'Show Log', action: 'Show log', access: 'read' },
  recordDecision: { id: 'waymark.memory.recordDecision', title: 'Memory: Record Decision…', action: 'Record decision', access: 'memory' },
  recordLearning: { id: 'waymark.memory.recordLearning', title: 'Memory: Record Learning…', action: 'Record learning', access: 'memory' },
  recall: { id: 'waymark.memory.recall', title: 'Memory: Recall…', action: 'Recall', access: 'memory' },
  showGraph: { id: 'waymark.memory.showGraph', title: 'Memory: Show Graph', action: 'Show memory graph', access: 'memory' },
  sessionStart: { id: 'waymark.session.start', title: 'Start Session', action: 'Start session', access: 'memory' },
  sessionEnd: { id: 'waymark.session.end', title: 'End Session', action: 'End session', access: 'memory' },
  checkpointCreate: { id: 'waymark.checkpoint.create', title: 'Create Checkpoint', action: 'Create checkpoint', access: 'write' },
  leaseTakeOver: { id: 'waymark.lease.takeOver', title: 'Take Over Orchestrator Lease…', action: 'Take over lease', access: 'write' },
  leaseRelease: { id: 'waymark.lease.release', title: 'Release Orchestrator Lease', action: 'Release lease', access: 'write' },
  installCli: { id: 'waymark.installCli', title: 'Install the `waymark` Command in PATH', action: 'Install the waymark command', access: 'read' },
  newWorkflow: { id: 'waymark.newWorkflow', title: 'New Workflow File from Template…', action: 'New workflow file', access: 'write' },
  getStarted: { id: 'waymark.getStarted', title: 'Get Started', action: 'Get started', access: 'read' },
  addMcpServer: { id: 'waymark.mcp.addToWorkspace', title: 'Add MCP Server to .vscode/mcp.json', action: 'Add MCP server', access: 'write' },
  setStoryStatus: { id: 'waymark.story.setStatus', title: 'Set Story Status…', action: 'Set story status', access: 'write' },
  checkStoryTask: { id: 'waymark.story.checkTask', title: 'Tick Story Task', action: 'Tick story task', access: 'write' },
  openStory: { id: 'waymark.story.open', title: 'Open Story', action: 'Open story', access: 'read' },
  setTicketStatus: { id: 'waymark.ticket.setStatus', title: 'Set Ticket Status…', action: 'Set ticket status', access: 'write' },
  openTicket: { id: 'waymark.ticket.open', title: 'Open Ticket', action: 'Open ticket', access: 'read' },
  openTicketPlan: { id: 'waymark.ticket.openPlan', title: 'Open Ticket Plan', action: 'Open ticket plan', access: 'read' },
  refreshSprint: { id: 'waymark.sprint.refresh', title: 'Refresh Sprint', action: 'Refresh sprint', access: 'read' },
  projectTickets: { id: 'waymark.projectTickets', title: 'Project Workflows to Tickets', action: 'Project to tickets', access: 'write' },
  openDashboard: { id: 'waymark.openDashboard', title: 'Open Project Dashboard', action: 'Open the project dashboard', access: 'read' },
  showMoreWorkflows: { id: 'waymark.workflows.showMore', title: 'Show More Workflows', action: 'Show more workflows', access: 'read' },
} as const satisfies Record<string, CommandDecl>;

export type CommandName = keyof typeof COMMAND_DECLS;

/** Command ids by name, for `command:` links, tree items and `executeCommand`. */
export const COMMANDS = Object.fromEntries(Object.entries(COMMAND_DECLS).map(([k, d]) => [k, d.id])) as { readonly [K in CommandName]: (typeof COMMAND_DECLS)[K]['id'] };

/** The Getting Started walkthrough's id in package.json (`contributes.walkthroughs`). */
export const WALKTHROUGH_ID = 'gettingStarted';

export const STATUS_BAR_ID = 'waymark.status';

/** `contributes.mcpServerDefinitionProviders` id (VS Code 1.101+). */
export const MCP_PROVIDER_ID = 'waymark.mcpServer';

// Ids shared with package.json `contributes` (test/integration checks they match).

export const EXTENSION_ID = 'waymark.waymark';
export const OUTPUT_CHANNEL = 'Waymark';
export const CONFIG_SECTION = 'waymark';

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
  /** True while the first scan runs. */
  scanning: 'waymark.scanning',
} as const;

export const COMMANDS = {
  refresh: 'waymark.refresh',
  start: 'waymark.start',
  advance: 'waymark.advance',
  completeStep: 'waymark.completeStep',
  setStatus: 'waymark.setStatus',
  block: 'waymark.block',
  unblock: 'waymark.unblock',
  setScope: 'waymark.setScope',
  delegate: 'waymark.delegate',
  gatePass: 'waymark.gate.pass',
  gateFail: 'waymark.gate.fail',
  gateConcerns: 'waymark.gate.concerns',
  gateWaive: 'waymark.gate.waive',
  gateOpen: 'waymark.gate.open',
  history: 'waymark.history',
  resume: 'waymark.resume',
  manifest: 'waymark.manifest',
  changed: 'waymark.changed',
  openFile: 'waymark.openFile',
  openStepFile: 'waymark.openStepFile',
  applyFix: 'waymark.applyFix',
  nextActions: 'waymark.nextActions',
  showLog: 'waymark.showLog',
  testSnapshot: 'waymark._test.snapshot',
  testSetTrust: 'waymark._test.setTrust',
  testReveal: 'waymark._test.reveal',
} as const;

/** Declared here and in package.json; registered by memoryFeatures.ts. */
export const MEMORY_COMMANDS = {
  recordDecision: 'waymark.memory.recordDecision',
  recordLearning: 'waymark.memory.recordLearning',
  recall: 'waymark.memory.recall',
  showGraph: 'waymark.memory.showGraph',
  sessionStart: 'waymark.session.start',
  sessionEnd: 'waymark.session.end',
} as const;

/** Declared here and in package.json; registered by protocolFeatures.ts. */
export const PROTOCOL_COMMANDS = {
  checkpointCreate: 'waymark.checkpoint.create',
  leaseTakeOver: 'waymark.lease.takeOver',
  leaseRelease: 'waymark.lease.release',
} as const;

/** Declared here and in package.json; registered by onboarding.ts (the walkthrough's commands). */
export const ONBOARDING_COMMANDS = {
  installCli: 'waymark.installCli',
  newWorkflow: 'waymark.newWorkflow',
  getStarted: 'waymark.getStarted',
} as const;

/** The Getting Started walkthrough's id in package.json (`contributes.walkthroughs`). */
export const WALKTHROUGH_ID = 'gettingStarted';

export const STATUS_BAR_ID = 'waymark.status';

/** Declared here and in package.json; registered by lmTools.ts. */
export const MCP_COMMANDS = {
  addToWorkspace: 'waymark.mcp.addToWorkspace',
  /** Calls a language-model tool's `invoke` directly (tests; hidden from the palette). */
  testInvokeTool: 'waymark._test.invokeTool',
} as const;

/** `contributes.mcpServerDefinitionProviders` id (VS Code 1.101+). */
export const MCP_PROVIDER_ID = 'waymark.mcpServer';

/** Declared here and in package.json; registered by sprintFeatures.ts (BMAD sprint and stories). */
export const SPRINT_COMMANDS = {
  setStoryStatus: 'waymark.story.setStatus',
  checkTask: 'waymark.story.checkTask',
  openStory: 'waymark.story.open',
  refresh: 'waymark.sprint.refresh',
  testSnapshot: 'waymark._test.sprintSnapshot',
} as const;

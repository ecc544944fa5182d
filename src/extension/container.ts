// The composition root: makes the model, every surface and every command, and owns them all
// (disposed with it, newest first). Surfaces listen only to the model's one change event.
import * as vscode from 'vscode';
import { CodeActions } from './codeActions';
import { CodeLenses } from './codeLenses';
import { CommandRunner } from './commandRunner';
import { Dashboard } from './dashboard';
import { Decorations } from './decorations';
import { DelegationTree } from './delegationTree';
import { Diagnostics } from './diagnostics';
import { Disposable } from './disposable';
import { registerGateCommands } from './gateCommands';
import { GatesTree } from './gatesTree';
import { Hovers } from './hovers';
import { registerInfoCommands } from './infoCommands';
import { MemoryAccess } from './memoryAccess';
import { registerMemoryCommands } from './memoryCommands';
import { MemoryTree } from './memoryTree';
import { ExtensionModel } from './model';
import { Navigator } from './navigation';
import { registerLanguageModelTools } from './lmTools';
import { registerOnboarding } from './onboarding';
import { registerProtocolCommands } from './protocolCommands';
import { SprintFeatures } from './sprintFeatures';
import { StatusBar } from './statusBar';
import { TicketProjection } from './tickets';
import { Watchers } from './watchers';
import { registerWorkflowCommands } from './workflowCommands';
import { WorkflowsTree } from './workflowsTree';

const WORKFLOW_FILES: vscode.DocumentSelector = [
  { scheme: 'file', language: 'markdown' },
  { scheme: 'file', pattern: '**/*.{md,markdown}' },
];

export class Container extends Disposable {
  readonly model: ExtensionModel;
  readonly runner: CommandRunner;
  readonly workflows: WorkflowsTree;
  readonly gates: GatesTree;
  readonly delegation: DelegationTree;
  readonly memoryTree: MemoryTree;
  readonly statusBar: StatusBar;
  readonly diagnostics: Diagnostics;
  readonly decorations: Decorations;
  readonly watchers: Watchers;
  /** BMAD sprint surfaces: Sprint view, story status bar item, sprint diagnostics, hovers, fixes, lenses. */
  readonly sprint: SprintFeatures;
  /** The ticket projection: command, background runs, breaker status item. */
  readonly tickets: TicketProjection;
  /** The project dashboard (a webview panel). */
  readonly dashboard: Dashboard;
  /** Each language-model tool's invoke, by name (for the test API). */
  readonly invokeTool: (name: string, input: Record<string, unknown>) => Promise<string | undefined>;

  /** `activatedAt`: when activate() began (`performance.now()`). */
  constructor(context: vscode.ExtensionContext, readonly log: vscode.LogOutputChannel, activatedAt?: number) {
    super();
    const model = (this.model = this.register(new ExtensionModel(log)));
    const memory = new MemoryAccess(model);
    const nav = this.register(new Navigator(model));
    const run = (this.runner = this.register(new CommandRunner(model, nav)));

    this.workflows = this.register(new WorkflowsTree(model, activatedAt));
    run.add('showMoreWorkflows', async (arg) => this.workflows.showMore(arg));
    this.gates = this.register(new GatesTree(model));
    this.delegation = this.register(new DelegationTree(model));
    this.memoryTree = this.register(new MemoryTree(model, memory));
    this.statusBar = this.register(new StatusBar(model, () => memory.statusLine()));
    this.diagnostics = this.register(new Diagnostics(model));
    this.decorations = this.register(new Decorations(model));
    this.watchers = this.register(new Watchers(model));
    this.sprint = this.register(new SprintFeatures(model, run));
    this.tickets = this.register(new TicketProjection(model, run, this.watchers.onDidChangeOutbox));
    // The BMAD sprint ledgers are no workflow files: their changes reach the one project view here.
    this.register(this.sprint.model.onDidChange(() => model.project.invalidate()));
    this.register(this.sprint.trees.onDidChange(() => model.project.invalidate()));
    this.dashboard = this.register(new Dashboard(model, run, context.extensionUri, this.tickets, [this.sprint.model.onDidChange, this.sprint.trees.onDidChange]));
    const lenses = this.register(new CodeLenses(model));
    this.register(vscode.languages.registerHoverProvider(WORKFLOW_FILES, new Hovers(model, (file, step) => memory.hoverLines(file, step))));
    this.register(vscode.languages.registerCodeActionsProvider(WORKFLOW_FILES, new CodeActions(model), CodeActions.metadata));
    this.register(vscode.languages.registerCodeLensProvider(WORKFLOW_FILES, lenses));

    registerWorkflowCommands(run, model, nav);
    registerGateCommands(run, model);
    registerInfoCommands(run, model, nav);
    registerProtocolCommands(run, model);
    registerMemoryCommands(run, model, memory, this.memoryTree);
    registerOnboarding(run, context, log);
    const lm = registerLanguageModelTools(run, model, context);
    for (const d of lm.disposables) this.register(d);
    this.invokeTool = lm.invoke;
  }
}

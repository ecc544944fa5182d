// Waymark's agent tools inside VS Code: the same table as the MCP server (src/mcp/tools/index.ts),
// registered as language-model tools over the extension's own core. Writes go through the
// commands' mutation path (an editor with unsaved changes gets an edit, never a write behind
// it) and are refused in Restricted Mode. Also offers the MCP server to MCP-aware editors.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, errorMessage, writeFileAtomic } from '../core/index';
import type { MutationOptions, MutationResult, WorkflowState } from '../core/index';
import type { ToolHost } from '../mcp/host';
import { TOOLS, runTool } from '../mcp/tools';
import type { ToolAnswer, WaymarkTool } from '../mcp/tools';
import type { CommandRunner } from './commandRunner';
import { MCP_PROVIDER_ID } from './constants';
import { untrustedError, type ExtensionModel } from './model';
import { mutateInEditorOrFile } from './workflowCommands';

/** The ToolHost of the extension: its core, its editors, its trust. */
export function extensionToolHost(c: ExtensionModel, run: CommandRunner): ToolHost {
  const actor = () => c.settings.actor || 'vscode';
  return {
    get roots() {
      return c.roots;
    },
    get core() {
      return c.core;
    },
    get actor() {
      return actor();
    },
    refresh: () => c.ready(),
    async state(file: string): Promise<WorkflowState> {
      await c.ready();
      if (!fs.existsSync(file)) throw new WaymarkError('unreadable', `${c.relative(file)} does not exist; waymark_summary lists the workflow files.`, file);
      const s = c.core.get(file) ?? (await c.core.reload(file));
      if (!s) throw new WaymarkError('usage', `${c.relative(file)} is not a workflow file Waymark knows (no workflow keys in its frontmatter).`, file);
      return s;
    },
    async mutate(file: string, options: MutationOptions, op: (o: MutationOptions) => Promise<MutationResult>) {
      const state = c.core.get(file) ?? (await c.core.reload(file));
      if (!state) throw new WaymarkError('usage', `${c.relative(file)} is not a workflow file Waymark knows.`, file);
      const dirty = vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'file' && d.uri.fsPath === file && d.isDirty);
      // The commands' path: with unsaved changes the core computes the edit from the buffer.
      const r = await mutateInEditorOrFile(run, c, { state, args: { file, quiet: true, by: options.actor, expectHash: options.expectHash } }, (o) => op({ ...o, expectHash: options.expectHash }));
      return { ...r, appliedToEditor: dirty && r.changed !== false };
    },
    assertCanWrite: (action: string) => {
      if (!c.canWrite) throw untrustedError(action);
    },
    memory: (root: string) => {
      // Opening memory writes .waymark/memory: closed in Restricted Mode, like the memory commands.
      if (!c.canWrite) throw untrustedError('Memory', undefined, 'open the memory store');
      return c.core.memory.forRoot(root, { waitMs: 1000, holdMs: 3000 });
    },
    owner: () => ({ agent: actor(), pid: process.pid, host: os.hostname() }),
    project: () => c.project.refresh(),
  };
}

function toResult(a: ToolAnswer): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(a.text)]);
}

/** The language-model tool for one table entry. */
export function languageModelTool(t: WaymarkTool, host: ToolHost, c: ExtensionModel): vscode.LanguageModelTool<Record<string, unknown>> {
  return {
    async invoke(options) {
      const answer = await runTool(t, options.input, host);
      if (answer.isError) c.log.warn(`[lm] ${t.name} refused: ${answer.text}`);
      else c.log.info(`[lm] ${t.name} ${JSON.stringify(options.input).slice(0, 200)}`);
      return toResult(answer);
    },
    prepareInvocation(options) {
      const file = typeof options.input.file === 'string' ? options.input.file : undefined;
      const what = `${t.title}${file ? `: ${file}` : ''}`;
      if (t.annotations.readOnlyHint) return { invocationMessage: what };
      // Writes ask first (the chat shows Continue / Cancel), like any state-changing command.
      const details = Object.entries(options.input)
        .filter(([k]) => k !== 'expectHash')
        .map(([k, v]) => `- **${k}**: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join('\n');
      return { invocationMessage: what, confirmationMessages: { title: `Waymark: ${t.title}`, message: new vscode.MarkdownString(details || t.title) } };
    },
  };
}

/** The command line that starts the MCP server bundled with this extension. */
export function mcpServerCommand(context: vscode.ExtensionContext, root: string): { command: string; args: string[]; env: Record<string, string> } {
  // VS Code's own Node (Electron run as Node): nothing else needs installing.
  return { command: process.execPath, args: [path.join(context.extensionPath, 'dist', 'cli.js'), 'mcp', '--root', root], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/**
 * Adds (or updates) the `waymark` server in `<folder>/.vscode/mcp.json`, keeping every other
 * entry. Refuses a file that is open with unsaved changes, is not plain JSON, or whose real
 * path lies outside the folder.
 */
export async function addMcpServerToWorkspace(context: vscode.ExtensionContext, c: ExtensionModel, folder?: string): Promise<string> {
  if (!c.canWrite) throw untrustedError('Add MCP server');
  const roots = c.roots;
  if (!roots.length) throw new WaymarkError('usage', 'Open a folder first: the MCP server is configured per workspace folder.');
  let root = folder ?? roots[0];
  if (!folder && roots.length > 1) {
    const picked = await vscode.window.showQuickPick(roots.map((r) => ({ label: path.basename(r), description: r, root: r })), { title: 'Add the Waymark MCP server to which folder?' });
    if (!picked) throw new WaymarkError('usage', 'No folder chosen.');
    root = picked.root;
  }
  if (!roots.includes(root)) throw new WaymarkError('usage', `${root} is not a workspace folder.`);
  const file = path.join(root, '.vscode', 'mcp.json');
  const realRoot = fs.realpathSync(root);
  const realDir = fs.existsSync(path.dirname(file)) ? fs.realpathSync(path.dirname(file)) : path.join(realRoot, '.vscode');
  if (/^\.\.(?:[\\/]|$)/.test(path.relative(realRoot, realDir))) throw new WaymarkError('usage', `${path.dirname(file)} links outside the workspace (${realDir}); Waymark does not write there.`, file);
  if (vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'file' && d.uri.fsPath === file && d.isDirty)) {
    throw new WaymarkError('conflict', `${c.relative(file)} has unsaved changes; save or revert it, then run the command again.`, file);
  }
  const entry = { type: 'stdio', ...mcpServerCommand(context, '${workspaceFolder}') };
  let doc: { servers?: Record<string, unknown> } & Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    const text = fs.readFileSync(file, 'utf8');
    try {
      doc = text.trim() ? JSON.parse(text) : {};
    } catch {
      throw new WaymarkError('invalid', `${c.relative(file)} is not plain JSON (comments or a syntax error); add this under "servers" by hand: "waymark": ${JSON.stringify(entry)}`, file);
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new WaymarkError('invalid', `${c.relative(file)} does not hold a JSON object; fix or remove it, then run the command again.`, file);
  }
  const servers = doc.servers && typeof doc.servers === 'object' && !Array.isArray(doc.servers) ? doc.servers : {};
  doc.servers = { ...servers, waymark: entry };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, JSON.stringify(doc, null, 2) + '\n');
  return file;
}

interface McpApi {
  registerMcpServerDefinitionProvider?: (id: string, provider: { provideMcpServerDefinitions(): unknown[] }) => vscode.Disposable;
}

/**
 * Registers every tool of the table with `vscode.lm.registerTool`, the "Add MCP server" command,
 * and, where the running VS Code has it (1.101+), the MCP server definition provider. Returns the
 * registrations and each tool's `invoke` by name (the test API calls it where the host refuses
 * `vscode.lm.invokeTool` to an extension).
 */
export function registerLanguageModelTools(run: CommandRunner, c: ExtensionModel, context: vscode.ExtensionContext): { disposables: vscode.Disposable[]; invoke(name: string, input: Record<string, unknown>): Promise<string | undefined> } {
  const out: vscode.Disposable[] = [];
  const host = extensionToolHost(c, run);
  const tools = new Map(TOOLS.map((t) => [t.name, languageModelTool(t, host, c)]));
  const invoke = async (name: string, input: Record<string, unknown>): Promise<string | undefined> => {
    const t = tools.get(name);
    if (!t) return undefined;
    const source = new vscode.CancellationTokenSource();
    try {
      const r = await t.invoke({ input, toolInvocationToken: undefined }, source.token);
      return r?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    } finally {
      source.dispose();
    }
  };
  if (typeof vscode.lm?.registerTool === 'function') {
    for (const t of TOOLS) {
      try {
        out.push(vscode.lm.registerTool(t.name, tools.get(t.name)!));
      } catch (e) {
        c.log.warn(`[lm] could not register ${t.name}: ${errorMessage(e)}`);
      }
    }
  } else {
    c.log.info('[lm] this VS Code has no language-model tools API; the MCP server (waymark mcp) still works');
  }
  run.add('addMcpServer', async (folder?: unknown) => {
    const file = await addMcpServerToWorkspace(context, c, typeof folder === 'string' ? folder : undefined);
    c.log.info(`[mcp] wrote ${file}`);
    void vscode.window.showInformationMessage(`Waymark MCP server added to ${c.relative(file)}.`, 'Open').then((b) => b && vscode.window.showTextDocument(vscode.Uri.file(file)));
    return file;
  });
  const lm = vscode.lm as unknown as McpApi;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: new (label: string, command: string, args?: string[], env?: Record<string, string>) => unknown }).McpStdioServerDefinition;
  if (typeof lm?.registerMcpServerDefinitionProvider === 'function' && Definition) {
    try {
      out.push(
        lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
          provideMcpServerDefinitions: () =>
            c.roots.map((root) => {
              const cmd = mcpServerCommand(context, root);
              return new Definition(c.roots.length > 1 ? `Waymark (${path.basename(root)})` : 'Waymark', cmd.command, cmd.args, cmd.env);
            }),
        }),
      );
      c.log.info('[mcp] MCP server definition provider registered');
    } catch (e) {
      c.log.warn(`[mcp] could not register the MCP server definition provider: ${errorMessage(e)}`);
    }
  } else {
    c.log.info('[mcp] this VS Code has no MCP server definition API (1.101+); use "Waymark: Add MCP Server to .vscode/mcp.json"');
  }
  return { disposables: out, invoke };
}

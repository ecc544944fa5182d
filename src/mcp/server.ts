// `waymark mcp`: a stdio MCP server over one long-lived workspace session. stdout carries the
// protocol and nothing else; logs go to stderr.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as z4 from 'zod/v4';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { WaymarkError } from '../core/index';
import type { Logger } from '../core/index';
import { errorAnswer, runTool, TOOLS } from './tools';
import type { ToolAnswer } from './tools';
import type { ToolHost } from './host';
import { WorkspaceSession } from './session';
import { McpStdioTransport, structuredResult } from './transport';

export const SERVER_NAME = 'waymark';

const INSTRUCTIONS = `Waymark keeps the state of agent workflows (BMAD and native Waymark workflow files) in their YAML frontmatter.
Start with waymark_summary (what exists, what to do next), read one workflow with waymark_status (its stateHash),
and change state only through waymark_advance, waymark_set_status and waymark_gate, passing the stateHash you read as
expectHash: a refusal with reason "conflict" means someone else changed the file; re-read and decide again.
Paths are relative to the workspace folder; nothing outside it is read or written.`;

/** The result made for each answer object: an answer the warm model repeats is sent as the same result. */
const results = new WeakMap<object, CallToolResult>();

function toResult(a: ToolAnswer): CallToolResult {
  // An error carries its reason, exit code and advice as JSON text only: clients validate any
  // structuredContent against the tool's outputSchema, errors included.
  if (a.isError) return { content: [{ type: 'text', text: a.text }], isError: true };
  let r = results.get(a.structured);
  if (!r) results.set(a.structured, (r = structuredResult(a.text, a.structured)));
  return r;
}

/**
 * What the protocol layer checks of a tools/call request before the handler: its method and tool
 * name. In zod 4, as the SDK's own schemas: a zod 3 object costs several times as much per call.
 */
const TOOLS_CALL = z4.looseObject({ method: z4.literal('tools/call'), params: z4.looseObject({ name: z4.string() }) });
const setProtocolHandler = Protocol.prototype.setRequestHandler as unknown as (this: McpServer['server'], schema: typeof TOOLS_CALL, handler: (req: { params: { name: string; arguments?: unknown } }) => Promise<CallToolResult>) => void;

/** The MCP server with every tool of the table, and its answer to a tools/call's params (for the transport's direct way). */
export interface WaymarkMcpServer {
  server: McpServer;
  callTool(params: Record<string, unknown> | undefined): Promise<CallToolResult> | undefined;
}

/** Builds the MCP server with every tool of the table, answering through `host`. */
export function createMcpServer(host: ToolHost, version: string): WaymarkMcpServer {
  const server = new McpServer({ name: SERVER_NAME, title: 'Waymark', version }, { instructions: INSTRUCTIONS });
  // The SDK's generic signature is too deep for the compiler over a heterogeneous table.
  const register = server.registerTool.bind(server) as unknown as (name: string, config: Record<string, unknown>, cb: () => Promise<CallToolResult>) => void;
  for (const t of TOOLS) {
    // The SDK lists the tools (zod 3 → draft-07 JSON Schema, with outputSchema and annotations).
    register(t.name, { title: t.title, description: t.description, inputSchema: t.input, outputSchema: t.output, annotations: { title: t.title, ...t.annotations } }, async () => {
      throw new Error('tools/call is answered by the handler below');
    });
  }
  // Calls go through the same runTool as the VS Code tools, so a schema error comes back like
  // every other refusal: isError with reason "usage", the CLI's exit code and one line of advice
  // (the SDK's own handler would answer it as bare text).
  const byName = new Map(TOOLS.map((t) => [t.name, t]));
  const answer = async (name: string, args: unknown): Promise<CallToolResult> => {
    const t = byName.get(name);
    if (!t) return toResult(errorAnswer(new WaymarkError('usage', `Unknown tool ${name}; the tools are ${TOOLS.map((x) => x.name).join(', ')}.`), host.roots));
    return toResult(await runTool(t, args, host));
  };
  server.server.removeRequestHandler('tools/call');
  // Registered through the protocol layer, not the Server's override: that one parses every call
  // twice more against the SDK's full CallToolRequest and CallToolResult schemas (the request is
  // already a JSON-RPC message when it gets here; runTool checks the arguments against the tool's
  // own schema and every answer is built as a CallToolResult). Requests as clients send them do
  // not even come here: the transport hands their params to callTool (runMcpServer).
  setProtocolHandler.call(server.server, TOOLS_CALL, (req: { params: { name: string; arguments?: unknown } }) => answer(req.params.name, req.params.arguments));
  return {
    server,
    // What TOOLS_CALL checks, by hand; anything else is left to the protocol layer's answer.
    callTool: (params) => (typeof params?.name === 'string' ? answer(params.name, params.arguments) : undefined),
  };
}

/** Logs to stderr only: stdout belongs to the protocol. */
export function stderrLogger(verbose: boolean): Logger {
  const w = (level: string) => (m: unknown) => process.stderr.write(`[waymark mcp] ${level} ${m instanceof Error ? m.message : String(m)}\n`);
  const quiet = () => undefined;
  return { trace: quiet, debug: verbose ? w('debug') : quiet, info: w('info'), warn: w('warn'), error: w('error') };
}

export interface RunMcpOptions {
  root: string;
  actor: string;
  session: string;
  version: string;
  verbose?: boolean;
}

/** Runs the server on stdin/stdout until the client closes the connection or a signal arrives. */
export async function runMcpServer(o: RunMcpOptions): Promise<void> {
  // Anything a dependency prints with console.* must not corrupt the protocol stream.
  const toErr = (...a: unknown[]) => process.stderr.write(a.map(String).join(' ') + '\n');
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
  const logger = stderrLogger(!!o.verbose);
  const session = new WorkspaceSession({ root: o.root, actor: o.actor, session: o.session, logger });
  const { server, callTool } = createMcpServer(session, o.version);
  const transport = new McpStdioTransport();
  transport.routeRequestsTo(server.server);
  transport.answerDirectly('tools/call', callTool);
  let closing: Promise<void> | undefined;
  const closed = new Promise<void>((resolve) => {
    const close = () => {
      closing ??= (async () => {
        await server.close().catch(() => undefined);
        await session.dispose().catch((e) => logger.warn(`closing: ${String(e)}`));
        resolve();
      })();
    };
    server.server.onclose = close;
    process.stdin.on('end', close);
    process.once('SIGINT', close);
    process.once('SIGTERM', close);
  });
  // Scan while the client initializes; tools wait for it.
  void session.start().catch((e) => logger.error(`scan failed: ${String(e)}`));
  await server.connect(transport);
  logger.info(`serving ${o.root} as ${o.actor} (session ${o.session})`);
  await closed;
}

/**
 * Gemini CLI's hook protocol: JSON on stdin (`session_id`, `cwd`, `hook_event_name`,
 * `tool_name`, `tool_input`...), only JSON on stdout. `decision: "deny"` + `reason` refuses a
 * tool call (BeforeTool) or asks for another turn (AfterAgent); `hookSpecificOutput.
 * additionalContext` reaches the model; exit 2 blocks with stderr; other codes are warnings.
 * Tools (geminicli.com/docs/hooks/reference, packages/core/src/tools/definitions): write_file
 * {file_path, content}, replace {file_path, old_string, new_string, allow_multiple (older builds:
 * expected_replacements), instruction}, run_shell_command {command, dir_path|directory}. MCP tools
 * come as `mcp_<server>_<tool>` (packages/core/src/tools/mcp-tool.ts generateValidName), with
 * `mcp_context` beside `tool_input`.
 */
import * as path from 'node:path';
import { HookInputError, parseHookInput, str, type HookAdapter, type HookContext, type HookOutput, type NeutralEvent } from './port';
import { catalogueToolEvent, unknownToolEvent } from './tools';

const TOOLS = new Set(['write_file', 'replace', 'run_shell_command']);
/**
 * Its tools, and MCP servers' tools as Gemini CLI names them: `mcp_<server>_<tool>` (every MCP tool
 * in current builds: mcp-tool.ts generateValidName enforces the prefix; the matcher is an unanchored
 * regex, hookPlanner.ts) and `<server>__<tool>` (older builds, for a tool whose plain name another
 * server held).
 */
const GEMINI_MATCHER = 'write_file|replace|run_shell_command|mcp_.*|.+__.+';

function toolEvent(kind: 'pre' | 'post', ctx: HookContext, tool: string, input: Record<string, unknown>): NeutralEvent {
  if (tool === 'write_file' || tool === 'replace') {
    // file_path in every version Gemini documents; absolute_path and path as its other file tools and older builds name it.
    const named = ['file_path', 'absolute_path', 'path'].find((k) => typeof input[k] === 'string');
    const file = str(input, named ?? 'file_path', 'tool_input');
    if (!file) throw new HookInputError('tool_input.file_path is empty.');
    if (kind === 'post') return { kind: 'tool-done', ctx, tool, file };
    if (tool === 'write_file') return { kind: 'proposed-edit', ctx, tool, file, change: { type: 'write', content: str(input, 'content', 'tool_input') } };
    // `allow_multiple: true` replaces every occurrence (Gemini CLI's edit tool); older builds took `expected_replacements`.
    const n = input.expected_replacements;
    const count = typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1;
    const every = input.allow_multiple === true;
    // CRLF in the strings is matched as LF, as the tool normalises them.
    const lf = (k: string) => str(input, k, 'tool_input').replace(/\r\n/g, '\n');
    return { kind: 'proposed-edit', ctx, tool, file, change: { type: 'replace', edits: [{ oldString: lf('old_string'), newString: lf('new_string'), ...(every ? { replaceAll: true } : { count }), loose: true }] } };
  }
  const command = str(input, 'command', 'tool_input');
  // run_shell_command's `directory` (relative to the project root) is where the command runs.
  const dir = typeof input.directory === 'string' && input.directory ? input.directory : typeof input.dir_path === 'string' && input.dir_path ? input.dir_path : undefined;
  const at = dir ? { ...ctx, cwd: path.resolve(ctx.projectDir ?? ctx.cwd, dir) } : ctx;
  return kind === 'pre' ? { kind: 'proposed-command', ctx: at, tool, command } : { kind: 'tool-done', ctx: at, tool, command };
}

const json = (v: unknown) => JSON.stringify(v) + '\n';

export const geminiAdapter: HookAdapter = {
  name: 'gemini',
  actor: 'gemini-cli',
  install: {
    settingsFile: '.gemini/settings.json',
    layout: 'groups',
    entry: (command, e) => ({ type: 'command', command, timeout: e.timeout, name: `waymark-${e.event}` }),
    events: [
      { event: 'BeforeTool', matcher: GEMINI_MATCHER, timeout: 30_000 },
      { event: 'AfterTool', matcher: GEMINI_MATCHER, timeout: 30_000 },
      { event: 'SessionStart', timeout: 60_000 },
      { event: 'AfterAgent', timeout: 30_000 },
    ],
  },
  parse(input, env) {
    return parseHookInput(input, env, {
      agent: 'gemini', sender: 'Gemini CLI', projectDirEnv: 'GEMINI_PROJECT_DIR', preTool: 'BeforeTool', postTool: 'AfterTool',
      tools: TOOLS, stops: { AfterAgent: { subagent: false } }, toolEvent, otherTools: catalogueToolEvent, unknownTool: unknownToolEvent,
    });
  },
  render(event, decision): HookOutput {
    const name = event.ctx.event;
    switch (decision.kind) {
      case 'allow':
        return { exitCode: 0, stdout: json({}), stderr: decision.note ? `waymark: ${decision.note}\n` : '' };
      case 'deny':
        return { exitCode: 0, stdout: json({ decision: 'deny', reason: decision.reason }), stderr: '' };
      case 'context':
        return { exitCode: 0, stdout: json({ ...(decision.problem ? { systemMessage: decision.text.split('\n')[0] } : {}), hookSpecificOutput: { hookEventName: name, additionalContext: decision.text } }), stderr: '' };
      case 'keep-going':
        return { exitCode: 0, stdout: json({ decision: 'deny', reason: decision.reason }), stderr: '' };
      case 'notify':
        return { exitCode: 0, stdout: json({ systemMessage: decision.message }), stderr: '' };
    }
  },
  renderFailure(message, event, failClosed) {
    if (failClosed && (!event || event.kind === 'proposed-edit' || event.kind === 'proposed-edits' || event.kind === 'proposed-command')) {
      return { exitCode: 0, stdout: json({ decision: 'deny', reason: `waymark could not check this change (${message}); refused because the hook runs with --fail-closed.` }), stderr: '' };
    }
    return { exitCode: 1, stdout: '', stderr: `waymark hook: ${message}\n` };
  },
};

/**
 * Cursor's agent hooks (cursor.com/docs/agent/hooks, `.cursor/hooks.json`, `{"version": 1, "hooks":
 * {event: [{command, matcher}]}}`): JSON on stdin with `hook_event_name`, `conversation_id`,
 * `workspace_roots`; `preToolUse` (`tool_name` Write/StrReplace/Edit/Delete, `tool_input`),
 * `beforeShellExecution` (`command`, `cwd`) and `beforeMCPExecution` (another MCP server's
 * `tool_name`, `tool_input` as a JSON string, its `url` or `command`) answer `{"permission": "deny",
 * "user_message", "agent_message"}`; `afterFileEdit` (`file_path`, `edits`), `afterShellExecution`
 * and `afterMCPExecution` (`tool_name`, `tool_input`, `result_json`) are told after
 * the fact (recorded in history); `sessionStart` takes `additional_context`, `stop` a `followup_message`.
 */
import { HookInputError, isObject, optStr, payloadCwd, str, type HookAdapter, type HookContext, type HookOutput, type NeutralEvent } from './port';
import { catalogueToolEvent, unknownToolEvent } from './tools';

const json = (v: unknown) => JSON.stringify(v) + '\n';
const EDIT_MATCHER = 'Write|StrReplace|Edit|MultiEdit|Delete';

function toolInput(input: Record<string, unknown>): Record<string, unknown> {
  const v = input.tool_input;
  if (isObject(v)) return v;
  if (typeof v === 'string') {
    try {
      const o: unknown = JSON.parse(v);
      if (isObject(o)) return o;
    } catch {
      // said below
    }
  }
  throw new HookInputError('input.tool_input must be an object.');
}

/**
 * A refusal in every spelling Cursor has documented: `permission` with `user_message` /
 * `agent_message` (2.x), `userMessage` / `agentMessage` (1.7, the first hooks release), and on
 * `preToolUse` also `decision` + `reason`, as its tool hooks read them.
 */
function denial(event: string, user: string, agent: string): Record<string, unknown> {
  return { permission: 'deny', user_message: user, agent_message: agent, userMessage: user, agentMessage: agent, ...(event === 'preToolUse' ? { decision: 'deny', reason: agent } : {}) };
}

export const cursorAdapter: HookAdapter = {
  name: 'cursor',
  actor: 'cursor',
  install: {
    settingsFile: '.cursor/hooks.json',
    layout: 'flat',
    top: { version: 1 },
    entry: (command, e) => ({ command, ...(e.matcher ? { matcher: e.matcher } : {}) }),
    events: [
      { event: 'preToolUse', matcher: EDIT_MATCHER, timeout: 30 },
      { event: 'beforeShellExecution', timeout: 30 },
      { event: 'beforeMCPExecution', timeout: 30 },
      { event: 'afterMCPExecution', timeout: 30 },
      { event: 'afterFileEdit', timeout: 30 },
      { event: 'afterShellExecution', timeout: 30 },
      { event: 'sessionStart', timeout: 60 },
      { event: 'stop', timeout: 30 },
    ],
  },
  parse(input, env): NeutralEvent {
    if (!isObject(input)) throw new HookInputError('the hook input must be a JSON object (Cursor sends one on stdin).');
    const event = str(input, 'hook_event_name', 'input');
    const roots = Array.isArray(input.workspace_roots) ? input.workspace_roots.filter((r): r is string => typeof r === 'string') : [];
    const ctx: HookContext = { agent: 'cursor', event, session: optStr(input, 'conversation_id'), cwd: payloadCwd(optStr(input, 'cwd'), env.CURSOR_PROJECT_DIR || roots[0] || undefined), projectDir: env.CURSOR_PROJECT_DIR || roots[0] || undefined, ...(roots.length > 1 ? { roots } : {}) };
    switch (event) {
      case 'preToolUse':
      case 'postToolUse': {
        const tool = str(input, 'tool_name', 'input');
        const args = toolInput(input);
        const kind = event === 'preToolUse' ? 'pre' : 'post';
        return catalogueToolEvent(kind, ctx, tool, args) ?? unknownToolEvent(kind, ctx, tool, args) ?? { kind: 'other', ctx, what: `${event} ${tool}` };
      }
      case 'beforeMCPExecution':
      case 'afterMCPExecution': {
        // Another MCP server's tool (its write_file, edit_file, move_file...): judged by what its
        // name and input say, as any tool the catalogue does not know; Waymark's own are not (tools.ts).
        const tool = str(input, 'tool_name', 'input');
        const kind = event === 'beforeMCPExecution' ? 'pre' : 'post';
        return unknownToolEvent(kind, ctx, tool, toolInput(input)) ?? { kind: 'other', ctx, what: `${event} ${tool}` };
      }
      case 'beforeShellExecution':
        return { kind: 'proposed-command', ctx, tool: 'Shell', command: str(input, 'command', 'input') };
      case 'afterShellExecution':
        return { kind: 'tool-done', ctx, tool: 'Shell', command: str(input, 'command', 'input') };
      case 'afterFileEdit':
        return { kind: 'tool-done', ctx, tool: 'Edit', file: str(input, 'file_path', 'input') };
      case 'sessionStart':
        return { kind: 'session-start', ctx };
      case 'stop':
      case 'subagentStop':
        return { kind: 'stop', ctx, subagent: event === 'subagentStop', alreadyContinued: typeof input.loop_count === 'number' && input.loop_count > 0 };
    }
    return { kind: 'other', ctx, what: event };
  },
  render(event, decision): HookOutput {
    switch (decision.kind) {
      case 'allow':
        // No opinion: Cursor's own approval settings decide (an "allow" would skip the person's).
        return { exitCode: 0, stdout: json({}), stderr: decision.note ? `waymark: ${decision.note}\n` : '' };
      case 'deny':
        return { exitCode: 0, stdout: json(denial(event.ctx.event, decision.reason.split('\n')[0], decision.reason)), stderr: '' };
      case 'context':
        return { exitCode: 0, stdout: json(event.ctx.event === 'afterFileEdit' || event.ctx.event === 'afterShellExecution' || event.ctx.event === 'afterMCPExecution' ? {} : { additional_context: decision.text }), stderr: decision.problem ? `${decision.text}\n` : '' };
      case 'keep-going':
        return { exitCode: 0, stdout: json({ followup_message: decision.reason }), stderr: '' };
      case 'notify':
        return { exitCode: 0, stdout: json({}), stderr: `${decision.message}\n` };
    }
  },
  renderFailure(message, event, failClosed) {
    if (failClosed && (!event || event.kind === 'proposed-edit' || event.kind === 'proposed-edits' || event.kind === 'proposed-command')) {
      const reason = `waymark could not check this change (${message}); refused because the hook runs with --fail-closed.`;
      return { exitCode: 0, stdout: json(denial(event?.ctx.event ?? 'preToolUse', reason, reason)), stderr: '' };
    }
    return { exitCode: 1, stdout: '', stderr: `waymark hook: ${message}\n` };
  },
};

/**
 * GitHub Copilot's hooks, in both the shapes they come in from `.github/hooks/*.json`:
 * - VS Code's agent hooks (code.visualstudio.com/docs/agent-customization/hooks): `hookEventName`,
 *   `sessionId`, `cwd`, `tool_name`, `tool_input` (`editFiles` {files}, `create_file`,
 *   `replace_string_in_file`, `run_in_terminal`...); answers `hookSpecificOutput.permissionDecision`;
 * - Copilot CLI and cloud agent (docs.github.com/copilot/reference/hooks-reference), camelCase
 *   events: `sessionId`, `toolName` + `toolArgs` (an object or a JSON string), `toolResult` after
 *   the tool, `source` at session start (older builds sent no event name: it is told by the fields);
 *   PascalCase events (`PreToolUse`): `hook_event_name`, `session_id`, `tool_input`, and Claude's tool
 *   names for its runtime tools (`Edit` for edit, str_replace_editor and apply_patch, `Write` for
 *   create, `Bash` for bash and powershell); answers `permissionDecision: "deny"` +
 *   `permissionDecisionReason`. MCP tools are named `<server>-<tool>`.
 * One answer serves both: the top-level and the hookSpecificOutput fields together, exit 0.
 */
import { HookInputError, isObject, optStr, type HookAdapter, type HookContext, type HookOutput, type NeutralEvent } from './port';
import { catalogueToolEvent, unknownToolEvent } from './tools';

const json = (v: unknown) => JSON.stringify(v) + '\n';

/** The event's name in lowerCamelCase, from the input's name or (Copilot CLI) its fields. */
function eventOf(input: Record<string, unknown>): string {
  const named = input.hookEventName ?? input.hook_event_name;
  if (typeof named === 'string' && named) return named;
  if ('toolResult' in input) return 'postToolUse';
  if ('toolName' in input || 'tool_name' in input) return 'preToolUse';
  if ('source' in input || 'initialPrompt' in input) return 'sessionStart';
  if ('stop_hook_active' in input || 'stopReason' in input) return 'agentStop';
  if ('reason' in input) return 'sessionEnd';
  throw new HookInputError('the hook input names no event (hookEventName) and has none of the fields that tell one (toolName, toolResult, source).');
}

/**
 * The tool's arguments: `tool_input` (VS Code, Copilot CLI's PascalCase events) or `toolArgs`
 * (camelCase events), each an object or a JSON string of one. A freeform tool's text that is not
 * JSON (an apply_patch envelope) is read as that tool's `input`.
 */
function toolInput(input: Record<string, unknown>): Record<string, unknown> {
  for (const [key, v] of [['tool_input', input.tool_input], ['toolArgs', input.toolArgs]] as const) {
    if (isObject(v)) return v;
    if (typeof v !== 'string') continue;
    let o: unknown;
    try {
      o = JSON.parse(v);
    } catch {
      if (/^\s*\*\*\* Begin Patch\s*$/m.test(v)) return { input: v };
      throw new HookInputError(`input.${key} must be the tool's arguments as an object or a JSON string of one.`);
    }
    if (isObject(o)) return o;
    if (typeof o === 'string' && /^\s*\*\*\* Begin Patch\s*$/m.test(o)) return { input: o };
  }
  throw new HookInputError('input.tool_input (or toolArgs) must be an object.');
}

const pascal = (e: string) => e[0].toUpperCase() + e.slice(1);

export const copilotAdapter: HookAdapter = {
  name: 'copilot',
  actor: 'copilot',
  install: {
    settingsFile: '.github/hooks/waymark.json',
    layout: 'flat',
    top: { version: 1 },
    // VS Code reads `command` and `timeout`, Copilot CLI `bash` and `timeoutSec`; VS Code turns the CLI's camelCase event names into its own.
    entry: (command, e) => ({ type: 'command', command, bash: command, timeout: e.timeout, timeoutSec: e.timeout }),
    events: [
      { event: 'preToolUse', timeout: 30 },
      { event: 'postToolUse', timeout: 30 },
      { event: 'sessionStart', timeout: 60 },
      { event: 'agentStop', timeout: 30 },
    ],
  },
  parse(input, env): NeutralEvent {
    if (!isObject(input)) throw new HookInputError('the hook input must be a JSON object (Copilot sends one on stdin).');
    const name = eventOf(input);
    const event = name[0].toLowerCase() + name.slice(1);
    const ctx: HookContext = { agent: 'copilot', event: name, session: optStr(input, 'sessionId') ?? optStr(input, 'session_id'), cwd: optStr(input, 'cwd') ?? process.cwd(), projectDir: env.COPILOT_PROJECT_DIR || undefined };
    if (event === 'preToolUse' || event === 'postToolUse') {
      const tool = optStr(input, 'tool_name') ?? optStr(input, 'toolName');
      if (!tool) throw new HookInputError('input.tool_name (or toolName) must be a string.');
      const args = toolInput(input);
      const kind = event === 'preToolUse' ? 'pre' : 'post';
      return catalogueToolEvent(kind, ctx, tool, args) ?? unknownToolEvent(kind, ctx, tool, args) ?? { kind: 'other', ctx, what: `${name} ${tool}` };
    }
    if (event === 'sessionStart') return { kind: 'session-start', ctx, source: optStr(input, 'source') };
    if (event === 'stop' || event === 'agentStop' || event === 'subagentStop') return { kind: 'stop', ctx, subagent: event === 'subagentStop', alreadyContinued: input.stop_hook_active === true };
    return { kind: 'other', ctx, what: name };
  },
  render(event, decision): HookOutput {
    const hookEventName = pascal(event.ctx.event);
    switch (decision.kind) {
      case 'allow':
        return { exitCode: 0, stdout: '', stderr: decision.note ? `waymark: ${decision.note}\n` : '' };
      case 'deny':
        return { exitCode: 0, stdout: json({ permissionDecision: 'deny', permissionDecisionReason: decision.reason, hookSpecificOutput: { hookEventName, permissionDecision: 'deny', permissionDecisionReason: decision.reason, additionalContext: decision.reason } }), stderr: '' };
      case 'context':
        return { exitCode: 0, stdout: json({ ...(decision.problem ? { decision: 'block', reason: decision.text } : {}), hookSpecificOutput: { hookEventName, additionalContext: decision.text } }), stderr: '' };
      case 'keep-going':
        return { exitCode: 0, stdout: json({ decision: 'block', reason: decision.reason, hookSpecificOutput: { hookEventName, decision: 'block', reason: decision.reason } }), stderr: '' };
      case 'notify':
        return { exitCode: 0, stdout: json({ systemMessage: decision.message }), stderr: '' };
    }
  },
  renderFailure(message, event, failClosed) {
    if (failClosed && (!event || event.kind === 'proposed-edit' || event.kind === 'proposed-edits' || event.kind === 'proposed-command')) {
      const reason = `waymark could not check this change (${message}); refused because the hook runs with --fail-closed.`;
      return { exitCode: 0, stdout: json({ permissionDecision: 'deny', permissionDecisionReason: reason, hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }), stderr: '' };
    }
    return { exitCode: 1, stdout: '', stderr: `waymark hook: ${message}\n` };
  },
};

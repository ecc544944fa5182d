/**
 * Claude Code's hook protocol: one JSON object on stdin (`session_id`, `cwd`,
 * `hook_event_name`, `tool_name`, `tool_input`...). Exit 2 blocks a tool call and feeds stderr
 * to the model; with exit 0 the JSON on stdout is read (`hookSpecificOutput`, `decision:
 * "block"` + `reason`, `systemMessage`); any other exit code is a non-blocking error.
 */
import { catalogueToolEvent, unknownToolEvent } from './tools';
import { HookInputError, isObject, listOf, parseHookInput, str, type HookAdapter, type HookContext, type HookDecision, type HookOutput, type NeutralEvent, type Replacement } from './port';

const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit']);
const TOOLS = new Set([...EDIT_TOOLS, 'Bash']);

function replacement(e: unknown, where: string): Replacement {
  if (!isObject(e)) throw new HookInputError(`${where} must be an object with old_string and new_string.`);
  return { oldString: str(e, 'old_string', where), newString: str(e, 'new_string', where), replaceAll: e.replace_all === true };
}

function toolEvent(kind: 'pre' | 'post', ctx: HookContext, tool: string, input: Record<string, unknown>): NeutralEvent {
  // Copilot CLI runs .claude/settings.json's hooks too, naming its runtime tools by Claude's names
  // (`Edit` over edit {path, old_str, new_str}, str_replace_editor or apply_patch; `Write` over
  // create {path, file_text}): an input without file_path is read by its shape.
  if (EDIT_TOOLS.has(tool) && input.file_path === undefined) {
    const other = catalogueToolEvent(kind, ctx, tool, input);
    if (other) return other;
  }
  if (EDIT_TOOLS.has(tool)) {
    const file = str(input, 'file_path', 'tool_input');
    if (!file) throw new HookInputError('tool_input.file_path is empty.');
    if (kind === 'post') return { kind: 'tool-done', ctx, tool, file };
    if (tool === 'Write') return { kind: 'proposed-edit', ctx, tool, file, change: { type: 'write', content: str(input, 'content', 'tool_input') } };
    if (tool === 'Edit') return { kind: 'proposed-edit', ctx, tool, file, change: { type: 'replace', edits: [replacement(input, 'tool_input')] } };
    const list = listOf(input.edits);
    if (!list) throw new HookInputError('tool_input.edits must be a list of {old_string, new_string, replace_all}.');
    return { kind: 'proposed-edit', ctx, tool, file, change: { type: 'replace', edits: list.map((e, i) => replacement(e, `tool_input.edits[${i}]`)) } };
  }
  if (tool === 'Bash') {
    const command = str(input, 'command', 'tool_input');
    return kind === 'pre' ? { kind: 'proposed-command', ctx, tool, command } : { kind: 'tool-done', ctx, tool, command };
  }
  return { kind: 'other', ctx, what: `${ctx.event} ${tool}` };
}

function json(v: unknown): string {
  return JSON.stringify(v) + '\n';
}

export const claudeCodeAdapter: HookAdapter = {
  name: 'claude-code',
  actor: 'claude-code',
  install: {
    settingsFile: '.claude/settings.json',
    layout: 'groups',
    entry: (command, e) => ({ type: 'command', command, timeout: e.timeout }),
    events: [
      { event: 'PreToolUse', matcher: 'Edit|Write|MultiEdit|Bash|mcp__.*', timeout: 30 },
      { event: 'PostToolUse', matcher: 'Edit|Write|MultiEdit|Bash|mcp__.*', timeout: 30 },
      { event: 'SessionStart', timeout: 60 },
      { event: 'Stop', timeout: 30 },
      { event: 'SubagentStop', timeout: 30 },
    ],
  },
  parse(input, env) {
    return parseHookInput(input, env, {
      agent: 'claude-code', sender: 'Claude Code', projectDirEnv: 'CLAUDE_PROJECT_DIR', preTool: 'PreToolUse', postTool: 'PostToolUse',
      tools: TOOLS, stops: { Stop: { subagent: false }, SubagentStop: { subagent: true } }, toolEvent, otherTools: catalogueToolEvent, unknownTool: unknownToolEvent,
    });
  },
  render(event, decision): HookOutput {
    const name = event.ctx.event;
    switch (decision.kind) {
      case 'allow':
        return { exitCode: 0, stdout: '', stderr: decision.note ? `waymark: ${decision.note}\n` : '' };
      case 'deny':
        // Exit 2: the call is blocked and stderr is the model's feedback (every version reads this form).
        // Claude Code reads no JSON on exit 2; Copilot CLI, which runs these hooks too, merges it with
        // its exit-2 deny, so the reason reaches its model as well.
        return { exitCode: 2, stdout: json({ permissionDecision: 'deny', permissionDecisionReason: decision.reason, hookSpecificOutput: { hookEventName: name, permissionDecision: 'deny', permissionDecisionReason: decision.reason } }), stderr: `${decision.reason}\n` };
      case 'context':
        if (name === 'PostToolUse' && decision.problem) {
          return { exitCode: 0, stdout: json({ decision: 'block', reason: decision.text, hookSpecificOutput: { hookEventName: name, additionalContext: decision.text } }), stderr: '' };
        }
        return { exitCode: 0, stdout: json({ hookSpecificOutput: { hookEventName: name, additionalContext: decision.text } }), stderr: '' };
      case 'keep-going':
        return { exitCode: 0, stdout: json({ decision: 'block', reason: decision.reason }), stderr: '' };
      case 'notify':
        return { exitCode: 0, stdout: json({ systemMessage: decision.message }), stderr: '' };
    }
  },
  renderFailure(message, event, failClosed) {
    // Fail closed: a change that could not be checked, or input that could not be read at all.
    if (failClosed && (!event || event.kind === 'proposed-edit' || event.kind === 'proposed-edits' || event.kind === 'proposed-command')) {
      const reason = `waymark could not check this change (${message}); refused because the hook runs with --fail-closed.`;
      // Exit 2 blocks in every version; the JSON deny says the same to versions that read stdout.
      return { exitCode: 2, stdout: json({ hookSpecificOutput: { hookEventName: event?.ctx.event ?? 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }), stderr: `${reason}\n` };
    }
    // Exit 1: Claude Code shows the error and carries on; the hook's own failure never blocks work.
    return { exitCode: 1, stdout: '', stderr: `waymark hook: ${message}\n` };
  },
};

export type { HookDecision };

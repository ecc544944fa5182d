/**
 * OpenAI Codex's hook protocol (developers.openai.com/codex/hooks): the same wire format as Claude
 * Code's — one JSON object on stdin (`session_id`, `cwd`, `hook_event_name`, `tool_name`,
 * `tool_input`, `turn_id`...), exit 2 with the reason on stderr blocks a tool call, JSON on stdout
 * (`hookSpecificOutput.additionalContext`, `decision: "block"`) otherwise. Its tools: `Bash`
 * (`tool_input.command`) and `apply_patch` (the patch envelope in `tool_input.command`), read into
 * the file edits the patch makes. Hooks live in `.codex/hooks.json` (or `[hooks]` in
 * `.codex/config.toml`).
 */
import { claudeCodeAdapter } from './claudeCode';
import { parseHookInput, type HookAdapter } from './port';
import { catalogueToolEvent, unknownToolEvent } from './tools';

const TOOLS = new Set(['Bash', 'apply_patch', 'shell', 'local_shell', 'exec_command']);

export const codexAdapter: HookAdapter = {
  name: 'codex',
  actor: 'codex',
  install: {
    settingsFile: '.codex/hooks.json',
    layout: 'groups',
    entry: (command, e) => ({ type: 'command', command, timeout: e.timeout }),
    events: [
      { event: 'PreToolUse', matcher: 'Bash|apply_patch|mcp__.*', timeout: 30 },
      { event: 'PostToolUse', matcher: 'Bash|apply_patch|mcp__.*', timeout: 30 },
      { event: 'SessionStart', timeout: 60 },
      { event: 'Stop', timeout: 30 },
    ],
  },
  parse(input, env) {
    return parseHookInput(input, env, {
      agent: 'codex', sender: 'Codex', projectDirEnv: 'CODEX_PROJECT_DIR', preTool: 'PreToolUse', postTool: 'PostToolUse',
      tools: TOOLS, stops: { Stop: { subagent: false } },
      toolEvent: (kind, ctx, tool, input) => catalogueToolEvent(kind, ctx, tool, input) ?? unknownToolEvent(kind, ctx, tool, input) ?? { kind: 'other', ctx, what: `${ctx.event} ${tool}` },
      unknownTool: unknownToolEvent,
    });
  },
  // Codex reads Claude Code's answers: exit 2 + stderr refuses, hookSpecificOutput and decision: block otherwise.
  render: (event, decision) => claudeCodeAdapter.render(event, decision),
  renderFailure: (message, event, failClosed) => claudeCodeAdapter.renderFailure(message, event, failClosed),
};

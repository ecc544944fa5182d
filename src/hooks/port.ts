/**
 * The hook port: each agent's hook protocol (Claude Code, Gemini CLI...) is an adapter that
 * turns the agent's event into one neutral event, and a neutral decision back into the exit
 * code and output that agent expects. The logic between the two knows no agent.
 *
 * Adapters import nothing from the core: they run on the fast path, before the core is loaded.
 */
import * as path from 'node:path';

/** One `@@` hunk of an `apply_patch` envelope (hooks/applyPatch.ts reads them). */
export interface PatchHunk {
  /** The `@@` line's text: the hunk's lines come after the line that holds it. */
  anchor?: string;
  old: string[];
  new: string[];
  /** The hunk ends the file. */
  endOfFile: boolean;
}

/** Who is asking and from where. */
export interface HookContext {
  /** The adapter's name (`claude-code`, `gemini`). */
  agent: string;
  /** The agent's own event name (`PreToolUse`, `BeforeTool`), for rendering. */
  event: string;
  session?: string;
  /** The agent's working directory. */
  cwd: string;
  /** The project folder the agent was started in, when it says (CLAUDE_PROJECT_DIR). */
  projectDir?: string;
  /** Every workspace folder the agent has open (Cursor's `workspace_roots`): a file in any of them is the event's own. */
  roots?: string[];
}

/** A string replacement as edit tools apply it. `count`: the exact number of matches expected. */
export interface Replacement {
  oldString: string;
  newString: string;
  replaceAll?: boolean;
  count?: number;
  /**
   * The tool looks further when `oldString` is not in the file as given (Gemini CLI's replace: the
   * lines with their whitespace trimmed, the words with any whitespace between them, then a near
   * match): where such an edit lands cannot be known before it runs.
   */
  loose?: boolean;
}

export type FileChange =
  | { type: 'write'; content: string }
  | { type: 'replace'; edits: Replacement[] }
  /** apply_patch hunks, applied to the text of `from` (a moved file's old path) or of the file itself. */
  | { type: 'hunks'; hunks: PatchHunk[]; from?: string }
  /** `text` inserted after line `line` (0: at the start), as str_replace_editor's insert does. */
  | { type: 'insert'; line: number; text: string }
  /** `text` added at the end of the file (`at: 'start'`: before its first byte); a missing file is made holding `text` (an append_file tool). */
  | { type: 'append'; text: string; at?: 'start' }
  | { type: 'delete' }
  /** The tool says which file it changes but not how (VS Code's editFiles, insert_edit_into_file). */
  | { type: 'unknown' };

/** One file a tool call changes. */
export interface FileEdit {
  file: string;
  change: FileChange;
}

export type NeutralEvent =
  /** A tool is about to change a file. */
  | { kind: 'proposed-edit'; ctx: HookContext; tool: string; file: string; change: FileChange }
  /** A tool is about to change several files (apply_patch, multi-file replacements). */
  | { kind: 'proposed-edits'; ctx: HookContext; tool: string; edits: FileEdit[] }
  /** A shell command is about to run. `shell`: its language when not a POSIX shell's (PowerShell). */
  | { kind: 'proposed-command'; ctx: HookContext; tool: string; command: string; shell?: 'powershell' }
  /** A tool finished: the file it edited, or the command it ran. */
  | { kind: 'tool-done'; ctx: HookContext; tool: string; file?: string; files?: string[]; command?: string }
  | { kind: 'session-start'; ctx: HookContext; source?: string }
  /** The agent (or a sub-agent) is about to stop. `alreadyContinued`: a stop hook kept it going once already. */
  | { kind: 'stop'; ctx: HookContext; subagent: boolean; alreadyContinued: boolean }
  /** An event or tool Waymark has nothing to say about. */
  | { kind: 'other'; ctx: HookContext; what: string };

export type HookDecision =
  /** Go ahead. `note` is for the person (debug output), never the model. */
  | { kind: 'allow'; note?: string }
  /** Refuse the tool call; `reason` goes to the model. */
  | { kind: 'deny'; reason: string }
  /** Text for the model (after a tool, or at session start). `problem`: the landed change broke a rule. */
  | { kind: 'context'; text: string; problem?: boolean }
  /** Do not stop yet: `reason` is the model's next instruction. */
  | { kind: 'keep-going'; reason: string }
  /** A message for the person; no effect on the agent. */
  | { kind: 'notify'; message: string };

/** What the hook process prints and exits with. */
export interface HookOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Bad input from the agent (not JSON, missing fields): said clearly, never a stack trace. */
export class HookInputError extends Error {
  override readonly name = 'HookInputError';
}

/** A hook's stdin as JSON; a byte order mark before it (a Windows shell's pipe) is no part of it. Throws JSON.parse's error. */
export function parseHookJson(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

/** Where an adapter's hook entries go and what they are. */
export interface InstallSpec {
  /** Settings file relative to the project folder (`.claude/settings.json`). */
  settingsFile: string;
  /** Per agent event: the tool matcher (undefined: the event takes none) and the timeout (in the agent's unit). */
  events: { event: string; matcher?: string; timeout: number }[];
  /**
   * `groups`: `hooks.<event>` lists `{matcher, hooks: [entry]}` (Claude Code, Gemini CLI, Codex);
   * `flat`: `hooks.<event>` lists the entries themselves (Cursor, Copilot).
   */
  layout: 'groups' | 'flat';
  /** Top-level keys the file's format requires (`version: 1`), added when missing. */
  top?: Record<string, unknown>;
  /** One hook entry as the agent reads it. */
  entry(command: string, e: { event: string; matcher?: string; timeout: number }): Record<string, unknown>;
}

export interface HookAdapter {
  readonly name: string;
  /** Recorded as the actor in history for edits this agent makes. */
  readonly actor: string;
  readonly install: InstallSpec;
  /** Turns the agent's stdin JSON into a neutral event. Throws HookInputError on bad input. */
  parse(input: unknown, env: Record<string, string | undefined>): NeutralEvent;
  render(event: NeutralEvent, decision: HookDecision): HookOutput;
  /** How a failure of the hook itself is reported: never a block unless `failClosed`. */
  renderFailure(message: string, event: NeutralEvent | undefined, failClosed: boolean): HookOutput;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A required string field of the agent's input, or a clear HookInputError. */
export function str(obj: Record<string, unknown>, key: string, where: string): string {
  const v = obj[key];
  if (typeof v !== 'string') throw new HookInputError(`${where}.${key} must be a string (got ${v === undefined ? 'nothing' : typeof v}).`);
  return v;
}

/** A list field, given as a list or (as some agents serialise nested values) a JSON string of one; undefined otherwise. */
export function listOf(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string' && /^\s*\[/.test(v)) {
    try {
      const o: unknown = JSON.parse(v);
      if (Array.isArray(o)) return o;
    } catch {
      // not a list
    }
  }
  return undefined;
}

export function optStr(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** What sets one agent's hook input apart; the frame (JSON object, session, cwd, event, tool) is shared. */
export interface HookDialect {
  agent: string;
  /** Who sends the input, for the error message (`Claude Code`). */
  sender: string;
  /** The environment variable naming the project folder. */
  projectDirEnv: string;
  /** The agent's events before and after a tool runs. */
  preTool: string;
  postTool: string;
  /** The tools Waymark looks at (edits and shell commands); others are `other`. */
  tools: ReadonlySet<string>;
  /** The agent's stop events, and whether each is a sub-agent's. */
  stops: Readonly<Record<string, { subagent: boolean }>>;
  /** Tools of other agents that may reach this hook (VS Code's, through Claude Code's settings); undefined: not a tool Waymark reads. */
  otherTools?(kind: 'pre' | 'post', ctx: HookContext, tool: string, input: Record<string, unknown>): NeutralEvent | undefined;
  /** A tool no catalogue knows that names a file and carries text (tools.ts unknownToolEvent). */
  unknownTool?(kind: 'pre' | 'post', ctx: HookContext, tool: string, input: Record<string, unknown>): NeutralEvent | undefined;
  /** The tool call as a neutral event (its input already checked to be an object). */
  toolEvent(kind: 'pre' | 'post', ctx: HookContext, tool: string, input: Record<string, unknown>): NeutralEvent;
}

/**
 * The folder the agent works in, as the payload says, made absolute: relative paths in the event
 * are the agent's (resolved against this folder), never the hook process's. A relative `cwd` is
 * taken from the project folder when the agent names one; the hook process's own folder (where
 * the agent started it) only when the payload says nothing.
 */
export function payloadCwd(cwd: string | undefined, projectDir: string | undefined): string {
  if (!cwd) return path.resolve(projectDir ?? process.cwd());
  return path.isAbsolute(cwd) ? path.normalize(cwd) : path.resolve(projectDir ?? process.cwd(), cwd);
}

/**
 * One JSON object on stdin — `session_id`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`,
 * `source`, `stop_hook_active` — as Claude Code and Gemini CLI both send it, read into a neutral
 * event. Throws HookInputError on bad input.
 */
export function parseHookInput(input: unknown, env: NodeJS.ProcessEnv, d: HookDialect): NeutralEvent {
  if (!isObject(input)) throw new HookInputError(`the hook input must be a JSON object (${d.sender} sends one on stdin).`);
  // VS Code runs the hooks of .claude/settings.json too, naming the event and session in camelCase.
  const event = typeof input.hookEventName === 'string' && input.hook_event_name === undefined ? input.hookEventName : str(input, 'hook_event_name', 'input');
  const projectDir = env[d.projectDirEnv] || undefined;
  const ctx: HookContext = { agent: d.agent, event, session: optStr(input, 'session_id') ?? optStr(input, 'sessionId'), cwd: payloadCwd(optStr(input, 'cwd'), projectDir), projectDir };
  if (event === d.preTool || event === d.postTool) {
    const tool = str(input, 'tool_name', 'input');
    if (!d.tools.has(tool)) {
      // Another agent's tool names reaching this hook (VS Code runs Claude Code's hooks): read by the shared catalogue.
      const kind = event === d.preTool ? 'pre' : 'post';
      const shared = isObject(input.tool_input) ? d.otherTools?.(kind, ctx, tool, input.tool_input) ?? d.unknownTool?.(kind, ctx, tool, input.tool_input) : undefined;
      return shared ?? { kind: 'other', ctx, what: `${event} ${tool}` };
    }
    // A freeform tool's text (an apply_patch envelope, as Copilot CLI passes it) is that tool's `input`.
    const args = typeof input.tool_input === 'string' && /^\s*\*\*\* Begin Patch\s*$/m.test(input.tool_input) ? { input: input.tool_input } : input.tool_input;
    if (!isObject(args)) throw new HookInputError('input.tool_input must be an object.');
    return d.toolEvent(event === d.preTool ? 'pre' : 'post', ctx, tool, args);
  }
  if (event === 'SessionStart') return { kind: 'session-start', ctx, source: optStr(input, 'source') };
  const stop = Object.prototype.hasOwnProperty.call(d.stops, event) ? d.stops[event] : undefined;
  if (stop) return { kind: 'stop', ctx, subagent: stop.subagent, alreadyContinued: input.stop_hook_active === true };
  return { kind: 'other', ctx, what: event };
}

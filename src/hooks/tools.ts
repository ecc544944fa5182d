/**
 * The edit and shell tools of the agents Waymark has adapters for, by the names and input shapes
 * their documentation gives, read into neutral events: one catalogue, so an agent that runs another
 * agent's hooks (VS Code runs `.claude/settings.json`'s) is still understood.
 *
 * - Cursor: Write {file_path, content}, StrReplace/Edit {file_path, old_string, new_string,
 *   replace_all}, MultiEdit {file_path, edits}, Delete {file_path}, Shell {command}
 * - VS Code agent: create_file/createFile {filePath|path, content}, replace_string_in_file
 *   {filePath, oldString, newString}, multi_replace_string_in_file {replacements: [...]},
 *   insert_edit_into_file {filePath, code}, editFiles {files}, apply_patch {input},
 *   run_in_terminal/runInTerminal/runTerminalCommand {command}
 * - GitHub Copilot CLI: edit {path, old_str, new_str}, create {path, file_text}, bash {command}
 * - OpenAI Codex: apply_patch {command|input|patch: the envelope}, Bash/shell {command: string or argv}
 */
import * as path from 'node:path';
import { parseApplyPatch } from './applyPatch';
import { HookInputError, isObject, listOf, type FileChange, type FileEdit, type HookContext, type NeutralEvent } from './port';

function s(input: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof input[k] === 'string') return input[k] as string;
  return undefined;
}

function need(input: Record<string, unknown>, tool: string, ...keys: string[]): string {
  const v = s(input, ...keys);
  if (v === undefined) throw new HookInputError(`tool_input.${keys[0]} of ${tool} must be a string.`);
  return v;
}

/** A shell command given as a string or as an argv (`["bash", "-lc", "..."]`). */
function commandOf(input: Record<string, unknown>, tool: string): string {
  const c = input.command ?? input.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) {
    const argv = c as string[];
    if (argv.length >= 3 && /(?:^|\/)(?:ba|z|da)?sh$/.test(argv[0]) && /^-\w*c$/.test(argv[1])) return argv[2];
    return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
  }
  throw new HookInputError(`tool_input.command of ${tool} must be a string or a list of strings.`);
}

/** The file edits an apply_patch envelope makes. */
export function patchEdits(patch: string): FileEdit[] {
  const out: FileEdit[] = [];
  for (const op of parseApplyPatch(patch)) {
    if (op.type === 'add') out.push({ file: op.path, change: { type: 'write', content: op.content } });
    else if (op.type === 'delete') out.push({ file: op.path, change: { type: 'delete' } });
    else if (op.moveTo) {
      out.push({ file: op.path, change: { type: 'delete' } });
      out.push({ file: op.moveTo, change: { type: 'hunks', hunks: op.hunks, from: op.path } });
    } else out.push({ file: op.path, change: { type: 'hunks', hunks: op.hunks } });
  }
  return out;
}

function edits(kind: 'pre' | 'post', ctx: HookContext, tool: string, list: FileEdit[]): NeutralEvent {
  if (kind === 'post') return { kind: 'tool-done', ctx, tool, files: [...new Set(list.map((e) => e.file))] };
  if (list.length === 1) return { kind: 'proposed-edit', ctx, tool, file: list[0].file, change: list[0].change };
  return { kind: 'proposed-edits', ctx, tool, edits: list };
}

function shell(kind: 'pre' | 'post', ctx: HookContext, tool: string, command: string, input: Record<string, unknown> = {}): NeutralEvent {
  // The folder the command runs in, when the tool says (Codex's workdir, Cursor's working_directory,
  // an MCP server's cwd): a relative one is the agent's, from the folder the event says it works in
  // (its cwd), not the project folder (Gemini's run_shell_command, relative to the project root, is gemini.ts's).
  const dir = s(input, 'workdir', 'cwd', 'working_directory', 'workingDirectory', 'directory', 'dir_path');
  const at = dir ? { ...ctx, cwd: path.resolve(ctx.cwd, dir) } : ctx;
  // Copilot CLI's `powershell` tool (Windows), an MCP server's run_powershell: PowerShell, not a POSIX shell.
  const ps = nameWords(tool).some((w) => POWERSHELL_WORDS.has(w));
  return kind === 'pre' ? { kind: 'proposed-command', ctx: at, tool, command, ...(ps ? { shell: 'powershell' as const } : {}) } : { kind: 'tool-done', ctx: at, tool, command };
}

const POWERSHELL_WORDS = new Set(['powershell', 'pwsh', 'ps1']);
/** Words of a tool's name that say it runs a command line (`run_in_terminal`, `execute_command`, `mcp__shell__exec`, `powershell`). */
const SHELL_WORDS = new Set(['shell', 'bash', 'sh', 'zsh', 'terminal', 'exec', 'execute', 'run', 'command', 'cmd', 'powershell', 'pwsh', 'process', 'spawn', 'console']);

/** Fields that name the file a tool works on, and fields that carry text it writes, in the tools agents document. */
const PATH_FIELDS = ['file_path', 'filePath', 'path', 'file', 'target_file', 'targetFile', 'notebook_path', 'absolute_path', 'filename', 'fileName', 'uri'];
const CONTENT_FIELDS = ['content', 'contents', 'new_string', 'newString', 'new_str', 'text', 'code', 'file_text', 'new_source', 'newText', 'new_text', 'edits', 'patch', 'diff', 'data', 'body', 'replacement', 'insert_text', 'new_content', 'input'];

/** Fields that name where a moving or copying tool takes a file from, and where it puts it. */
const FROM_FIELDS = ['source', 'src', 'from', 'old_path', 'oldPath', 'source_path', 'sourcePath', 'old_file_path', 'oldFilePath'];
const TO_FIELDS = ['destination', 'dest', 'dst', 'to', 'new_path', 'newPath', 'destination_path', 'destinationPath', 'target', 'target_path', 'targetPath', 'new_file_path', 'newFilePath'];
/** Fields that list several files. */
const PATHS_FIELDS = ['paths', 'files', 'file_paths', 'filePaths'];

/** The words of a tool's name (`mcp__files__delete_file`, `moveFile`, `fs.rename`): lower case. */
function nameWords(tool: string): string[] {
  return tool.replace(/([a-z\d])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z\d]+/).filter(Boolean);
}
const DELETES = new Set(['delete', 'remove', 'rm', 'unlink', 'trash', 'rmdir', 'erase', 'del', 'destroy', 'purge']);
const MOVES = new Set(['move', 'mv', 'rename']);
const COPIES = new Set(['copy', 'cp', 'duplicate', 'clone']);
const CHANGES = new Set(['write', 'edit', 'create', 'replace', 'patch', 'update', 'insert', 'append', 'prepend', 'truncate', 'save', 'put', 'overwrite', 'modify', 'set', 'apply', 'restore', 'revert', 'undo', 'format', 'fix', 'upload', 'download', 'touch', 'chmod', 'mkdir', 'symlink', 'link']);

function strings(input: Record<string, unknown>, keys: string[]): string[] {
  const out: string[] = [];
  for (const k of keys) {
    const v = input[k];
    if (typeof v === 'string' && v) out.push(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && x) out.push(x);
  }
  return out;
}

/**
 * A tool the catalogue does not know (an MCP server's write_file, move_file or delete_file,
 * NotebookEdit, a renamed edit tool): judged by what its input and its name say. One that carries
 * text, or whose name says it changes files (`write`, `edit`, `delete`, `move`...), is an edit of
 * each file it names: a delete deletes it, a move takes the file away from its source and puts the
 * source's text at its destination (a copy only the latter), any other an edit whose change is not
 * said (refused where state lives). One that names files only to read them is nothing to judge.
 */
export function unknownToolEvent(kind: 'pre' | 'post', ctx: HookContext, tool: string, input: Record<string, unknown>): NeutralEvent | undefined {
  if (isWaymarkTool(tool)) return undefined;
  // A patch envelope in any of its fields (an MCP server's apply_patch, a renamed patch tool): judged as the edits it makes.
  const envelope = Object.values(input).find((v): v is string => typeof v === 'string' && PATCH_ENVELOPE.test(v));
  if (envelope !== undefined) return catalogueToolEvent(kind, ctx, 'apply_patch', { input: envelope });
  const words = nameWords(tool);
  const has = (set: ReadonlySet<string>) => words.some((w) => set.has(w));
  // A tool that runs a command line (its name says so and its input carries one): judged as a shell command.
  const line = input.command ?? input.cmd ?? input.commandLine ?? input.command_line;
  if (has(SHELL_WORDS) && (typeof line === 'string' || (Array.isArray(line) && line.length && line.every((x) => typeof x === 'string')))) return shell(kind, ctx, tool, commandOf(input.command !== undefined || input.cmd !== undefined ? input : { command: line }, tool), input);
  // One level down: a task the tool defines and runs (VS Code's create_and_run_task {task: {type, command, args}}).
  const task = has(SHELL_WORDS) ? Object.values(input).find((v): v is Record<string, unknown> => isObject(v) && typeof v.command === 'string') : undefined;
  if (task) {
    const args = Array.isArray(task.args) ? task.args.filter((a): a is string => typeof a === 'string') : [];
    // A `process` task runs its program with those arguments unquoted by a shell: quoted here so the judge reads the same words.
    const quoted = args.map((a) => (task.type === 'process' && !/^[\w@%+=:,./-]+$/.test(a) ? `'${a.replace(/'/g, `'\\''`)}'` : a));
    // It runs in its own cwd, else in the workspace folder the tool names (create_and_run_task's `workspaceFolder`), else the agent's.
    const cwd = typeof task.cwd === 'string' ? task.cwd : isObject(task.options) && typeof task.options.cwd === 'string' ? task.options.cwd : undefined;
    const folder = typeof input.workspaceFolder === 'string' ? input.workspaceFolder : undefined;
    return shell(kind, ctx, tool, [task.command as string, ...quoted].join(' '), { ...task, ...(cwd !== undefined || folder !== undefined ? { cwd: folder !== undefined ? path.resolve(ctx.cwd, folder, cwd ?? '.') : cwd } : {}) });
  }
  const carries = CONTENT_FIELDS.some((k) => input[k] !== undefined && input[k] !== null);
  const from = strings(input, FROM_FIELDS);
  const to = strings(input, TO_FIELDS);
  const list: FileEdit[] = [];
  if (from.length && to.length) {
    // A move or a copy: the destination gets the source's text; a move (any but a copy) removes the source.
    const copy = has(COPIES) && !has(MOVES);
    for (const f of from) if (!copy) list.push({ file: f, change: { type: 'delete' } });
    for (const t of to) list.push({ file: t, change: from.length === 1 ? { type: 'hunks', hunks: [], from: from[0] } : { type: 'unknown' } });
  }
  // Files named one level down too: lists of edits or operations (`edits: [{path, old_str, new_str}]`), a nested `file: {path}`.
  const nested = Object.values(input).flatMap((v) => (Array.isArray(v) ? v.filter(isObject) : isObject(v) ? [v] : [])).flatMap((o) => strings(o, [...PATH_FIELDS, ...FROM_FIELDS, ...TO_FIELDS]));
  const named = [...new Set([...strings(input, PATH_FIELDS), ...strings(input, PATHS_FIELDS), ...(list.length ? [] : [...from, ...to]), ...nested])];
  if (named.length && (carries || has(DELETES) || has(MOVES) || has(COPIES) || has(CHANGES))) {
    const whole = named.length === 1 && !list.length ? wholeWrite(words, input) ?? addedText(words, input) : undefined;
    const change: FileChange = whole ?? (has(DELETES) && !carries ? { type: 'delete' } : { type: 'unknown' });
    for (const f of named) if (!list.some((e) => e.file === f)) list.push({ file: f, change });
  }
  return list.length ? edits(kind, ctx, tool, list) : undefined;
}

/**
 * Waymark's own MCP tools (src/mcp/tools/index.ts TOOLS; a test keeps the two lists equal): they
 * change state through the core, which checks the rules and records history itself, so a hook
 * judging them as another server's writes would refuse the very calls it points agents to. Named
 * as each agent names an MCP tool: `mcp__<server>__waymark_advance` (Claude Code, Codex),
 * `mcp_<server>_waymark_advance` (Gemini CLI; `<server>__waymark_advance` in older builds),
 * `<server>-waymark_advance` (Copilot CLI: docs.github.com cli-command-reference, MCP server
 * naming), `waymark_advance` or `MCP:<server>:waymark_advance` (Cursor's MCP hooks, VS Code). Known by name only: a foreign server that names its tool after
 * Waymark's is taken for Waymark's.
 */
export const WAYMARK_MCP_TOOLS: ReadonlySet<string> = new Set(['waymark_summary', 'waymark_status', 'waymark_resume', 'waymark_next', 'waymark_board', 'waymark_advance', 'waymark_set_status', 'waymark_story_set_status', 'waymark_gate', 'waymark_validate', 'waymark_fix', 'waymark_memory_recall', 'waymark_memory_record', 'waymark_lease']);

export function isWaymarkTool(tool: string): boolean {
  const at = tool.lastIndexOf('waymark_');
  if (at === -1 || !WAYMARK_MCP_TOOLS.has(tool.slice(at))) return false;
  const prefix = tool.slice(0, at);
  return prefix === '' || prefix.endsWith('__') || (prefix.startsWith('mcp_') && prefix.endsWith('_')) || /^[^:]+-$/.test(prefix) || /^MCP:[^:]+:$/i.test(prefix);
}

/** Words of a name that say a tool writes a whole file; and words that say it changes part of one (its text is not the file's). */
const WHOLE_WRITES = new Set(['write', 'create', 'overwrite']);
const PART_WRITES = new Set(['append', 'prepend', 'insert', 'patch', 'edit', 'replace', 'update', 'modify', 'apply', 'move', 'mv', 'rename', 'copy', 'cp', 'delete', 'remove']);
const WHOLE_TEXT_FIELDS = ['content', 'contents', 'file_text', 'text'];

/**
 * An unknown tool named as a whole-file write (an MCP filesystem server's `write_file`, `create_file`) whose input
 * carries the text in one field: a write of that text, judged as Write is. Said as not what it writes, a new
 * state file it made was let through unchecked (no state there yet to refuse by).
 */
function wholeWrite(words: string[], input: Record<string, unknown>): FileChange | undefined {
  if (!words.some((w) => WHOLE_WRITES.has(w)) || words.some((w) => PART_WRITES.has(w))) return undefined;
  const given = CONTENT_FIELDS.filter((k) => input[k] !== undefined && input[k] !== null);
  if (given.length !== 1 || !WHOLE_TEXT_FIELDS.includes(given[0])) return undefined;
  const content = input[given[0]];
  return typeof content === 'string' ? { type: 'write', content } : undefined;
}

/**
 * An unknown tool named as an append (`append_file`, `appendToFile`, `prepend_text`) whose input carries
 * the text in one field: that text added at the file's end (or start), judged as the file it leaves.
 * Said as not what it writes, an append that made a state file (or brought state to an empty one) went unjudged.
 */
function addedText(words: string[], input: Record<string, unknown>): FileChange | undefined {
  const end = words.includes('append');
  const start = words.includes('prepend');
  if (end === start || words.some((w) => w !== 'append' && w !== 'prepend' && PART_WRITES.has(w))) return undefined;
  const given = CONTENT_FIELDS.filter((k) => input[k] !== undefined && input[k] !== null);
  if (given.length !== 1 || !WHOLE_TEXT_FIELDS.includes(given[0])) return undefined;
  const text = input[given[0]];
  if (typeof text !== 'string') return undefined;
  return start ? { type: 'append', text, at: 'start' } : { type: 'append', text };
}

const SHELL_TOOLS = new Set(['Bash', 'bash', 'Shell', 'shell', 'local_shell', 'exec_command', 'run_in_terminal', 'runInTerminal', 'runTerminalCommand', 'run_terminal_cmd', 'container.exec', 'powershell', 'PowerShell', 'pwsh']);

/**
 * Other names of tools the catalogue reads. VS Code's edit tools by the ids they are registered under (microsoft/vscode-copilot-chat's
 * package.json `languageModelTools`), read as the names the catalogue knows them by; their inputs
 * are the same. VS Code's hook documentation names tools by their model-facing names (`editFiles`,
 * `create_file`); a payload carrying the ids is read the same way.
 */
const VSCODE_TOOL_IDS: Readonly<Record<string, string>> = {
  copilot_applyPatch: 'apply_patch',
  copilot_createFile: 'create_file',
  copilot_replaceString: 'replace_string_in_file',
  copilot_multiReplaceString: 'multi_replace_string_in_file',
  copilot_insertEdit: 'insert_edit_into_file',
  copilot_editFiles: 'editFiles',
  // Anthropic's text editor tool under its API name (Claude's own agents, an SDK agent's hooks): Copilot CLI's str_replace_editor's input.
  str_replace_based_edit_tool: 'str_replace_editor',
};

/** Every tool name the catalogue reads (for matchers and for the adapters' tool sets). */
export const CATALOGUE_TOOLS: ReadonlySet<string> = new Set([
  ...SHELL_TOOLS,
  'Write', 'StrReplace', 'Edit', 'MultiEdit', 'Delete',
  'create_file', 'createFile', 'replace_string_in_file', 'multi_replace_string_in_file', 'insert_edit_into_file', 'editFiles', 'apply_patch', 'delete_file', 'deleteFile',
  'edit', 'create', 'str_replace_editor',
  ...Object.keys(VSCODE_TOOL_IDS),
]);

/** Edit tools whose name another tool's input may come under (Copilot CLI's Claude-format hooks). */
const PATCH_CARRIERS = new Set(['Edit', 'Write', 'MultiEdit', 'edit', 'create', 'str_replace_editor']);
const EDITOR_COMMANDS = new Set(['view', 'create', 'str_replace', 'insert', 'undo_edit']);

const PATCH_ENVELOPE = /^\s*\*\*\* Begin Patch\s*$/m;

/** The apply_patch envelope an input carries (in `input`, `patch` or `command`), if any. */
function patchOf(input: Record<string, unknown>): string | undefined {
  for (const k of ['input', 'patch', 'command']) {
    const v = input[k];
    if (typeof v === 'string' && PATCH_ENVELOPE.test(v)) return v;
  }
  return undefined;
}


/**
 * The neutral event of one tool call, by the catalogue's names; undefined for a tool that neither
 * edits files nor runs shell commands. Throws HookInputError when a known tool's input is malformed.
 */
export function catalogueToolEvent(kind: 'pre' | 'post', ctx: HookContext, tool: string, input: Record<string, unknown>): NeutralEvent | undefined {
  if (Object.hasOwn(VSCODE_TOOL_IDS, tool)) return catalogueToolEvent(kind, ctx, VSCODE_TOOL_IDS[tool], input);
  if (SHELL_TOOLS.has(tool)) return shell(kind, ctx, tool, commandOf(input, tool), input);
  // One tool name over several tools' inputs: Copilot CLI's Claude-format hooks (PascalCase
  // PreToolUse) name apply_patch and str_replace_editor `Edit`, create `Write`, with the runtime
  // tool's own arguments. The input says which tool it is.
  if (tool !== 'apply_patch' && PATCH_CARRIERS.has(tool) && patchOf(input) !== undefined) return catalogueToolEvent(kind, ctx, 'apply_patch', { input: patchOf(input) });
  if (tool !== 'str_replace_editor' && PATCH_CARRIERS.has(tool) && typeof input.command === 'string' && EDITOR_COMMANDS.has(input.command)) return catalogueToolEvent(kind, ctx, 'str_replace_editor', input);
  const file = () => need(input, tool, 'file_path', 'filePath', 'path');
  // Every file the input names is judged: an input naming two (`file_path` and `path`) is judged for each, whichever the tool reads.
  const at = (change: FileChange): FileEdit[] => [...new Set([file(), ...strings(input, ['file_path', 'filePath', 'path'])])].map((f) => ({ file: f, change }));
  if (tool === 'str_replace_editor') {
    // Copilot CLI (Anthropic's text editor tool): view reads; create, str_replace, insert write; undo_edit says not what.
    switch (input.command) {
      case 'view':
        return { kind: 'other', ctx, what: `${ctx.event} ${tool} view` };
      case 'insert': {
        const line = input.insert_line;
        if (typeof line !== 'number' || !Number.isInteger(line)) throw new HookInputError(`tool_input.insert_line of ${tool} must be a whole number.`);
        return edits(kind, ctx, tool, at({ type: 'insert', line, text: need(input, tool, 'new_str', 'insert_text') }));
      }
      case 'undo_edit':
        return edits(kind, ctx, tool, at({ type: 'unknown' }));
    }
  }
  switch (tool) {
    case 'Write':
    case 'create_file':
    case 'createFile':
    case 'create':
      return edits(kind, ctx, tool, at({ type: 'write', content: need(input, tool, 'content', 'file_text', 'contents') }));
    case 'StrReplace':
    case 'Edit':
    case 'replace_string_in_file':
    case 'edit':
    case 'str_replace_editor': {
      const content = s(input, 'content', 'file_text');
      if (s(input, 'old_string', 'oldString', 'old_str') === undefined && content !== undefined) return edits(kind, ctx, tool, at({ type: 'write', content }));
      const oldString = need(input, tool, 'old_string', 'oldString', 'old_str');
      const newString = need(input, tool, 'new_string', 'newString', 'new_str');
      return edits(kind, ctx, tool, at({ type: 'replace', edits: [{ oldString, newString, replaceAll: input.replace_all === true || input.replaceAll === true }] }));
    }
    case 'MultiEdit': {
      file();
      const list = listOf(input.edits);
      if (!list) throw new HookInputError(`tool_input.edits of ${tool} must be a list.`);
      return edits(kind, ctx, tool, at({ type: 'replace', edits: list.map((e) => {
        if (!isObject(e)) throw new HookInputError(`tool_input.edits of ${tool} must hold objects.`);
        return { oldString: need(e, tool, 'old_string', 'oldString'), newString: need(e, tool, 'new_string', 'newString'), replaceAll: e.replace_all === true || e.replaceAll === true };
      }) }));
    }
    case 'multi_replace_string_in_file': {
      const replacements = listOf(input.replacements);
      if (!replacements) throw new HookInputError(`tool_input.replacements of ${tool} must be a list.`);
      const byFile = new Map<string, { oldString: string; newString: string }[]>();
      for (const r of replacements) {
        if (!isObject(r)) throw new HookInputError(`tool_input.replacements of ${tool} must hold objects.`);
        const f = need(r, tool, 'filePath', 'file_path', 'path');
        byFile.set(f, [...(byFile.get(f) ?? []), { oldString: need(r, tool, 'oldString', 'old_string'), newString: need(r, tool, 'newString', 'new_string') }]);
      }
      return edits(kind, ctx, tool, [...byFile].map(([f, e]) => ({ file: f, change: { type: 'replace', edits: e } })));
    }
    case 'Delete':
    case 'delete_file':
    case 'deleteFile':
      return edits(kind, ctx, tool, at({ type: 'delete' }));
    case 'insert_edit_into_file':
      return edits(kind, ctx, tool, at({ type: 'unknown' }));
    case 'editFiles': {
      const files = (listOf(input.files) ?? []).filter((f): f is string => typeof f === 'string');
      if (!files.length) throw new HookInputError(`tool_input.files of ${tool} must list the files it edits.`);
      return edits(kind, ctx, tool, files.map((f) => ({ file: f, change: { type: 'unknown' } })));
    }
    case 'apply_patch': {
      const patch = Array.isArray(input.command) ? input.command.filter((x) => typeof x === 'string').join('\n') : need(input, tool, 'command', 'input', 'patch');
      const list = patchEdits(patch);
      if (!list.length) return { kind: 'other', ctx, what: `${ctx.event} ${tool} (an empty patch)` };
      return edits(kind, ctx, tool, list);
    }
  }
  return undefined;
}

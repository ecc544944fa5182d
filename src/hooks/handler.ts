/**
 * The hook logic between the adapters and the core: a neutral event in, a neutral decision out.
 * Knows no agent. Loaded only when the fast path (quickCheck.ts) says an event may touch state.
 */
import { AGENT_HOOK_FILE, CONFIG_FIX, GITATTRIBUTES, gitattributesChangeProblem, hookFileChangeProblem, hookFilesOf, holdsWaymarkHook, HOOKS_FIX, JOURNAL_FIX, MERGE_FIX, mergeDriverBlock } from './agentHooks';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  applyReplacements,
  checkProposedEdit,
  readCurrentText,
  recordAgentEdit,
  refusals,
  currentState,
  resumeRoot,
  saveEditSnapshot,
  sessionLeftovers,
  listLeases,
  describeOwner,
  loadSprint,
  relPath,
  isWaymarkRecord,
  checkGateRemoval,
  WaymarkError,
  errorMessage,
  type ProposalProblem,
  type WorkflowState,
} from '../core/index';
import { applyHunks } from './applyPatch';
import type { FileChange, FileEdit, HookAdapter, HookDecision, NeutralEvent } from './port';
import { hasWorkspace, judgingRoot, linkedStatePath, looksLikePowerShell, looksLikeState, mayHoldState, realPathOf, relInside, resolveToolPath, stateTarget, walkTree, workspaceRootOf } from './quickCheck';
import { setStatusForMark } from './ticketsMark';
import { GIT_CODE, gitCodeCommands, readShellCommand } from './shell';

function formatProblems(problems: ProposalProblem[], max = 3): string {
  const lines = problems.slice(0, max).map((p) => `- ${p.message}${p.fix ? `\n  fix: ${p.fix}` : ''}`);
  if (problems.length > max) lines.push(`- and ${problems.length - max} more (waymark validate shows them all)`);
  return lines.join('\n');
}

/** The text a change leaves in `file`: null when it deletes it; undefined when the tool itself would fail (nothing lands). */
function nextText(cwd: string, file: string, current: string | undefined, c: FileChange): string | null | undefined {
  switch (c.type) {
    case 'write':
      return c.content;
    case 'replace':
      return applyReplacements(current, c.edits);
    case 'hunks': {
      const base = c.from ? readCurrentText(resolveToolPath(cwd, c.from)) : current;
      return base === undefined ? undefined : applyHunks(base, c.hunks);
    }
    case 'insert': {
      if (current === undefined) return undefined;
      const lines = current.split('\n');
      if (c.line < 0 || c.line > lines.length) return undefined;
      lines.splice(c.line, 0, ...c.text.split('\n'));
      return lines.join('\n');
    }
    case 'append':
      return c.at === 'start' ? c.text + (current ?? '') : (current ?? '') + c.text;
    case 'delete':
      return null;
    case 'unknown':
      return undefined;
  }
}

/** Judges every file a tool call changes; refused when any change breaks the rules. */
async function proposedEdits(event: { ctx: NeutralEvent['ctx']; tool: string }, edits: FileEdit[], adapter: HookAdapter): Promise<HookDecision> {
  const reasons: string[] = [];
  const allowed: { root: string; file: string; current: string | undefined }[] = [];
  const notes: string[] = [];
  for (const e of edits) {
    const named = resolveToolPath(event.ctx.cwd, e.file);
    // A hard link of a state file is judged as that file (an edit of one name writes the other).
    const file = stateTarget(event.ctx, named);

    // Judged in the file's workspace, whatever folder the agent's cwd is in; nothing is written in another.
    const where = judgingRoot(event.ctx, file);
    if (!where) {
      notes.push(`${file} is outside the workspace ${realOf(workspaceRootOf(event.ctx))}; not checked.`);
      continue;
    }
    const root = where.root;
    const alias = file !== named ? ` (${relInside(path.relative(root, named)) ? relPath(root, named) : named} is a hard link of it)` : '';
    const current = readCurrentText(file);
    const next = nextText(event.ctx.cwd, file, current, e.change);
    if (next === undefined && e.change.type === 'replace') {
      // A tool that looks further (Gemini CLI's replace) lands somewhere Waymark cannot know: refused where state lives.
      const what = e.change.edits.some((r) => r.loose) ? await stateOf(root, file) : undefined;
      if (what) {
        reasons.push(`Waymark refused this edit of ${relPath(root, file)}: its old_string is not in the file exactly once as given, and ${event.tool} then matches it loosely (whitespace, words, a near match), so where it lands cannot be judged; the file holds ${what}.\n- fix: read the file again and send old_string exactly as the file has it (allow_multiple: true to replace every occurrence), or change state with a waymark command (waymark --help).`);
        continue;
      }
      // The edit tool itself will fail (old_string not found or not unique): nothing lands.
      notes.push(`${event.tool} on ${file} will not apply (old_string not found or not unique); not checked.`);
      continue;
    }
    if (next === undefined) {
      // A change Waymark cannot see (editFiles) or cannot apply (a patch whose context is not there):
      // harmless elsewhere, refused where state lives.
      const what = await stateOf(root, file);
      if (what) reasons.push(e.change.type === 'unknown'
        ? `Waymark refused this edit of ${relPath(root, file)}: ${event.tool} does not say what it writes, and the file holds ${what}.\n- fix: change state with a waymark command (waymark --help), or edit it with a tool whose change can be checked (a string replacement or a full write).`
        : `Waymark refused this edit of ${relPath(root, file)}: the change cannot be applied to the file as it is (its old text is not there), and the file holds ${what}.\n- fix: read the file again and send the change against its current text.`);
      else notes.push(`${event.tool} on ${file} will not apply or says no content; not checked.`);
      continue;
    }
    if (next && GIT_CODE.test(relPath(root, file))) {
      // A git hook or git's configuration: what git will run from it is judged as a command now.
      const found = await gitCodeFindings(root, file, next);
      if (found) {
        reasons.push(`Waymark refused this edit of ${relPath(root, file)}: git runs the code it holds, and that code ${found}.\n- fix: keep git's hooks, aliases, editors and pagers away from state; change state with a waymark command (waymark --help).`);
        continue;
      }
    }
    // The enforcement itself: Waymark's configuration, and an agent's hooks while they hold Waymark's.
    const rel = relPath(root, file);
    if (CONFIG.test(rel)) {
      reasons.push(`Waymark refused this edit of ${rel}${alias}: it is Waymark's configuration.\n${CONFIG_FIX}`);
      continue;
    }
    const hookProblem = AGENT_HOOK_FILE.test(rel) ? hookFileChangeProblem(rel, current, next ?? undefined, workspaceHasHook(root)) : undefined;
    if (hookProblem) {
      reasons.push(`Waymark refused this edit of ${rel}${alias}: ${hookProblem}.\n${HOOKS_FIX}`);
      continue;
    }
    const mergeProblem = GITATTRIBUTES.test(rel) ? gitattributesChangeProblem(rel, current, next ?? undefined) : undefined;
    if (mergeProblem) {
      reasons.push(`Waymark refused this edit of ${rel}${alias}: ${mergeProblem}.\n${MERGE_FIX}`);
      continue;
    }
    const verdict = await checkProposedEdit({ root, file, text: next ?? undefined, beforeText: current ?? null, actor: adapter.actor, session: event.ctx.session });
    // The gates' judge takes the states this verdict parsed (the same texts): a large text is parsed and hashed once.
    const parsed = verdict.kind === 'workflow' ? { before: verdict.before, after: verdict.after } : undefined;
    const errors = [...refusals(verdict), ...(await gateDefinitionProblems(root, file, current, next ?? undefined, parsed))];
    if (!errors.length && where.outer) {
      // A file of a project nested in the event's workspace: the nested project's answer, unless the
      // workspace around it refuses (a marker folder made below its state does not take it out of its rules).
      const outer = await checkProposedEdit({ root: where.outer, file, text: next ?? undefined, beforeText: current ?? null, actor: adapter.actor, session: event.ctx.session });
      const outerParsed = outer.kind === 'workflow' ? { before: outer.before, after: outer.after } : undefined;
      const outerErrors = [...refusals(outer), ...(await gateDefinitionProblems(where.outer, file, current, next ?? undefined, outerParsed))];
      if (outerErrors.length) {
        reasons.push(`Waymark refused this edit of ${outer.rel}${alias} (by the rules of ${where.outer}, the workspace around ${relPath(where.outer, root)}):\n${formatProblems(outerErrors)}`);
        continue;
      }
    }
    if (errors.length) reasons.push(`Waymark refused this edit of ${verdict.rel}${alias}:\n${formatProblems(errors)}`);
    else if (verdict.kind && !where.foreign) allowed.push({ root, file, current });
  }
  if (reasons.length) return { kind: 'deny', reason: reasons.join('\n') };
  for (const a of allowed) saveEditSnapshot(a.root, a.file, a.current);
  return { kind: 'allow', note: notes.length ? notes.join(' ') : undefined };
}

/** What a hook file holds that does not install Waymark's hook, in a workspace where another does: settings that can turn every hook off. */
const HOOK_SWITCHES = "agent hook settings (they can turn off Waymark's hook)";

/** True when any of the workspace's agent hook files installs Waymark's hook. */
function workspaceHasHook(root: string): boolean {
  const list = (dir: string) => {
    try {
      return fs.readdirSync(path.join(root, dir));
    } catch {
      return [];
    }
  };
  return hookFilesOf(root, list).some((f) => holdsWaymarkHook(textOf(f)));
}

/** Changes that take away a gate a gated step depends on (a definition, a `gate:` entry, a `workflow:` switch, `gates.path`). */
async function gateDefinitionProblems(root: string, file: string, before: string | undefined, after: string | undefined, parsed?: { before: WorkflowState | undefined; after: WorkflowState | undefined }): Promise<ProposalProblem[]> {
  return checkGateRemoval({ root, file, beforeText: before, text: after, parsed });
}

/** The state a path holds, said for a refusal (`workflow state`, `a Waymark record`...), or undefined. */
async function stateOf(root: string, file: string): Promise<string | undefined> {
  const rel = relPath(root, file);
  // A record folder itself (a link or a folder put at .waymark/gates) holds records.
  if (rel === '.waymark/journal' || rel.startsWith('.waymark/journal/')) return "Waymark's journal of a change under way";
  if (isWaymarkRecord(rel) || isWaymarkRecord(`${rel}/x`)) return rel.startsWith('.waymark/gates') ? 'a gate verdict' : 'a Waymark record';
  if (DEFINITION.test(rel) || rel === '.waymark/workflows') return 'a workflow definition';
  if (CONFIG.test(rel)) return "Waymark's configuration";
  if (AGENT_HOOK_FILE.test(rel) && holdsWaymarkHook(textOf(file))) return "Waymark's agent hooks";
  // Another hook file of a workspace with Waymark's hook can turn every hook off (disableAllHooks...).
  if (AGENT_HOOK_FILE.test(rel) && workspaceHasHook(root)) return HOOK_SWITCHES;
  if (GITATTRIBUTES.test(rel) && mergeDriverBlock(textOf(file)) !== undefined) return "Waymark's merge driver block";
  const text = textOf(file);
  if (text === undefined) return undefined;
  const v = await checkProposedEdit({ root, file, text, beforeText: text, leases: false });
  return v.kind === 'story' ? 'story state' : v.kind === 'ledger' ? 'the sprint ledger' : v.kind === 'ticket-plan' ? "a ticket's status" : v.kind === 'tickets' ? 'the ticket tree' : v.kind ? 'workflow state' : undefined;
}

const DEFINITION = /^\.waymark\/workflows\/.+\.ya?ml$/;
const CONFIG = /^\.waymark\/config\.ya?ml$/;
/** Words that say a command may be about state: state files, their folders, Waymark's own. */
const STATE_HINT = /\.(?:md|markdown|ya?ml|gate|jsonl|csv)\b|\.waymark\b|\bworkflows?\b|sprint-status|_bmad|\bstories\b|\bstepsCompleted\b/i;
const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn', 'dist', 'out', 'cache']);
const MAX_TREE = 20_000;

/**
 * The text of a regular file; undefined for anything else (missing, a folder, a FIFO, a socket,
 * unreadable, too large): a path a command names never throws out of the judge.
 */
function textOf(file: string): string | undefined {
  try {
    return readCurrentText(file);
  } catch {
    return undefined;
  }
}

/** The real path of `abs` (links followed; for a path not yet there, its nearest existing folder's). */
function realOf(abs: string): string {
  return realPathOf(abs);
}

/** The files under `dir` (bounded; version-control and dependency folders left out). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  walkTree(dir, {
    // (Waymark's own `.waymark/cache` is left out; a `cache` folder elsewhere may hold state.)
    enter: (name, parent) => !SKIP_DIRS.has(name) || (name === 'cache' && !parent.endsWith(`${path.sep}.waymark`)),
    stop: () => out.length >= MAX_TREE,
    file: (p, e) => {
      if (e.isFile() || e.isSymbolicLink()) out.push(p);
    },
  });
  return out;
}

/** The files git would change under `paths` (relative to `cwd`); undefined when git cannot say. */
function gitChanged(t: { cwd: string; ref?: string; paths: string[] }, how: string): Set<string> | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: most CLI verbs never start git, and child_process costs every process milliseconds to load
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const git = (args: string[]) => spawnSync('git', ['-C', t.cwd, ...args], { encoding: 'utf8', timeout: 5000 });
  const top = git(['rev-parse', '--show-toplevel']);
  if (top.status !== 0) return undefined;
  const base = top.stdout.trim();
  if ((how.startsWith('git merge ') || how.startsWith('git cherry-pick ')) && t.ref) {
    // What the ref brings: a merge, its branch's changes since the common ancestor; a pick, its commit's.
    const range = how.startsWith('git merge ') ? [`HEAD...${t.ref}`] : [`${t.ref}^`, t.ref];
    const r = git(['diff', '--name-only', '-z', ...range, '--']);
    return r.status === 0 ? new Set(r.stdout.split('\0').filter(Boolean).map((n) => realOf(path.resolve(base, n)))) : undefined;
  }
  if (how === 'git revert' && t.ref) {
    const r = git(['diff', '--name-only', '-z', `${t.ref}^`, t.ref, '--']);
    return r.status === 0 ? new Set(r.stdout.split('\0').filter(Boolean).map((n) => realOf(path.resolve(base, n)))) : undefined;
  }
  const args = how.startsWith('git clean') ? ['ls-files', '--others', '-z', '--', ...t.paths] : how.startsWith('git stash pop') || how.startsWith('git stash apply') ? undefined : ['diff', '--name-only', '-z', ...(t.ref ? [t.ref] : how.startsWith('git stash') ? ['HEAD'] : []), '--', ...t.paths];
  if (!args) return undefined;
  const r = git(args);
  if (r.status !== 0) return undefined;
  const names = r.stdout.split('\0').filter(Boolean);
  // ls-files names paths from cwd, diff from the top of the repository.
  return new Set(names.map((n) => realOf(path.resolve(args[0] === 'ls-files' ? t.cwd : base, n))));
}

interface CommandFinding {
  /** State files the command writes where the result cannot be judged. */
  hits: string[];
  /** State files whose new content is known and breaks the rules. */
  broken: string[];
  opaque: string[];
  /** Code or files the command runs or unpacks that cannot be read: refused in a workspace, whatever the command names. */
  hidden: string[];
  /** Paths it writes that a variable set outside the command names: refused in a workspace. */
  unset: string[];
}

/**
 * What a shell command would do to state, read as the shell reads it. `root`: the workspace, or
 * (an event's) the workspace each path is judged in (hooks/quickCheck.ts judgingRoot).
 */
export async function judgeCommand(command: string, cwd: string, root: string | ((abs: string) => string | undefined)): Promise<CommandFinding> {
  const fixed = typeof root === 'string' ? realOf(root) : undefined;
  const rootOf = (abs: string) => fixed ?? (root as (abs: string) => string | undefined)(abs);
  const reading = readShellCommand(command, cwd);
  const finding: CommandFinding = { hits: [], broken: [], opaque: [], hidden: [...reading.hidden], unset: [...reading.unset] };
  const hit = async (realRoot: string, abs: string, how: string): Promise<boolean> => {
    const what = await stateOf(realRoot, abs);
    if (what) finding.hits.push(`${relPath(realRoot, abs)} (${what}, by ${how})`);
    return what !== undefined;
  };
  const judge = async (t: (typeof reading.touches)[number]): Promise<void> => {
    const abs = realOf(t.path);
    const realRoot = rootOf(abs);
    if (realRoot === undefined) return;
    const inside = (p: string) => relInside(path.relative(realRoot, p));
    const rootItself = abs === realRoot;
    if (!inside(abs) && !rootItself) return;
    // A hard link of a state file: a write through it (`>`, tee, cp onto it) writes that file.
    const linked = t.kind === 'write' ? linkedStatePath(realRoot, abs) : undefined;
    if (linked && (await hit(realRoot, linked, `${t.how}, through its hard link ${relPath(realRoot, abs)}`))) return;
    if (t.kind === 'tree' && t.unknown) {
      finding.hidden.push(`${t.how} unpacks files Waymark cannot list into ${relPath(realRoot, abs) || 'the workspace'}`);
      return;
    }
    if (t.kind === 'tree' && !fs.existsSync(abs)) {
      // Unknown files landing at a path that is not there yet: a record folder is a hit.
      await hit(realRoot, abs, t.how);
      return;
    }
    if (t.kind === 'tree' || (t.kind === 'delete' && isDir(abs)) || (t.kind === 'write' && isDir(abs))) {
      let files = (isDir(abs) ? filesUnder(abs) : [abs]).map(realOf).filter(inside);
      if (t.kind === 'tree' && t.names) files = files.filter((f) => t.names!.every((re) => re.test(path.basename(f))));
      if (t.kind === 'tree' && t.git) {
        const changed = gitChanged(t.git, t.how);
        if (changed) {
          files = files.filter((f) => changed.has(f));
          // Files the ref has and the work tree has not (a gate file, a history file): they land too.
          const listed = new Set(files);
          for (const f of changed) if (!listed.has(f) && inside(f) && !fs.existsSync(f) && (!t.names || t.names.every((re) => re.test(path.basename(f))))) files.push(f);
        }
      }
      for (const f of files) if (mayHoldState(realRoot, f) && (await hit(realRoot, f, t.how))) break;
      return;
    }
    if (await hit(realRoot, abs, t.how)) return;
    if (t.kind === 'write' && t.content && !('unchanged' in t.content)) {
      // A new file whose content the command gives (cp, : >, cat <<EOF >): judged like a Write.
      const text = 'text' in t.content ? t.content.text : textOf(realOf(t.content.fromFile));
      if (text === undefined) return;
      const v = await checkProposedEdit({ root: realRoot, file: abs, text, beforeText: textOf(abs) ?? null });
      const errors = refusals(v);
      if (errors.length) finding.broken.push(`${v.rel} (by ${t.how}):\n${formatProblems(errors)}`);
    }
  };
  for (const t of reading.touches) {
    try {
      await judge(t);
    } catch (e) {
      // Nothing a command names may throw out of the judge (and so fail open): what cannot be read is not followed.
      const abs = realOf(t.path);
      finding.opaque.push(`${relPath(rootOf(abs) ?? cwd, abs)} cannot be read (${errorMessage(e)})`);
    }
  }
  const mayTouchState = STATE_HINT.test(command) || reading.programs.some((p) => STATE_HINT.test(p));
  if (mayTouchState) finding.opaque.push(...reading.opaque);
  if (reading.programs.some((p) => STATE_HINT.test(p))) finding.opaque.push('it runs a program whose code names state files; its writes cannot be read from the command');
  return finding;
}

/** What the code a git hook or configuration text makes git run would do to state; undefined when nothing. */
async function gitCodeFindings(root: string, file: string, text: string): Promise<string | undefined> {
  for (const c of gitCodeCommands(file, text)) {
    const f = await judgeCommand(c, root, root);
    if (f.hits.length) return `writes ${f.hits.join(', ')}`;
    if (f.broken.length) return `writes ${f.broken.join('; ')}`;
    if (f.hidden.length) return `runs what Waymark cannot read (${f.hidden.slice(0, 2).join('; ')})`;
    if (f.opaque.length) return `may touch state in a way Waymark cannot follow (${f.opaque.slice(0, 2).join('; ')})`;
  }
  return undefined;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const TICKET_FIX = "- fix: set a ticket's status with waymark story set-status REF STATUS [--blocked REASON] (its plan written as tickets.py mark writes it, with history), or edit the plan with the Edit tool so the change is checked.";
const COMMAND_FIX = '- fix: change state with a waymark command (waymark advance|complete-step|set-status|gate pass ..., see waymark --help), or edit the file with the Edit tool so the change is checked.';

const MODE_CHANGE = /^(?:chmod|chown|chgrp|lchown|chattr|setfacl)$/;
const MODE_FIX = "- fix: leave the mode, owner and attributes of state files as they are: Waymark, the editor and every agent must read and write them (chmod u+rw FILE gives them back). Change state with a waymark command (waymark --help).";
const FORMAT_FIX = '- fix: leave state out of the formatter: list the state files or their folders in its ignore file (.prettierignore, .markdownlintignore; e.g. `_bmad-output/`, `.waymark/`, `docs/plan.md`), or run it on source only (prettier --write src, prettier --write "**/*.ts"). State changes go through waymark commands (waymark --help).';
const HIDDEN_FIX = '- fix: put the code in a file and run that file (bash FILE, python3 FILE: Waymark reads it and judges what it writes), unpack or apply only archives and patches that are files it can read, or change state with a waymark command (waymark --help).';

/** PowerShell that makes a path at run time: a variable or subexpression ($x, $env:X, ${x}, $(...)), Join-Path, [IO.Path]::Combine, -f, a concatenation, Invoke-Expression. */
const PS_RUNTIME_PATH = /\$[\w{(:][\w:]*|\bjoin-path\b|\[(?:system\.)?io\.path\]|\s-f\s|['"]\s*\+|\+\s*['"$]|\b(?:invoke-expression|iex)\b/i;

/** PowerShell's commands (and their aliases) that only read or print: a command of these alone, with no redirection, writes nothing. */
const PS_READS = new Set('join-path split-path get-content gc cat type select-string sls get-childitem gci ls dir get-item gi test-path resolve-path rvpa get-filehash measure-object measure write-output write write-host echo format-table ft format-list fl out-host out-string sort-object sort select-object select where-object where ? foreach-object % get-location gl pwd set-location sl cd chdir push-location pushd pop-location popd compare-object diff convertfrom-json convertfrom-yaml get-date get-command gcm get-help help'.split(' '));

/** A PowerShell string's text as PowerShell reads it: its backtick escapes (`n, `t, ``) turned into what they stand for. */
function psUnescaped(text: string): string {
  return text.replace(/`([nrt0`"'$])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '0': '' } as Record<string, string>)[c] ?? c);
}

/**
 * A PowerShell command (Copilot CLI's `powershell` tool, or PowerShell sent as a POSIX shell's
 * command): Waymark has no PowerShell reader, so a command that names a state file (or a folder
 * holding one), a path where Waymark keeps its records (a gate file, history, events: there or
 * not), or a new Markdown or YAML file with workflow state in the command's text is refused
 * unless it only reads (Get-Content, Select-String... with no redirection). Paths as PowerShell
 * takes them: quoted or not, `-Path:x`, either slash, right after a redirection.
 */
async function judgePowerShell(event: Extract<NeutralEvent, { kind: 'proposed-command' }>): Promise<HookDecision> {
  const text = event.command;
  const words = text.split(/[\s;|(){}\[\],=<>]+/).map((w) => w.replace(/^[-\w]+:(?=[^\\/])/, (m) => (m.startsWith('-') ? '' : m)).replace(/^['"`@]+|['"`]+$/g, '').replace(/`/g, '')).filter((w) => w && !w.startsWith('-') && !w.startsWith('$') && !/^\d+$/.test(w) && !/^&\d?$/.test(w));
  const hits: string[] = [];
  // Text the command writes: any of its strings (here-strings too) that reads as a state file's start.
  const stated = [...text.matchAll(/@"\r?\n([\s\S]*?)\r?\n"@|@'\r?\n([\s\S]*?)\r?\n'@|"((?:[^"`]|`[\s\S])*)"|'((?:[^']|'')*)'/g)].some((m) => looksLikeState(m[1] !== undefined ? psUnescaped(m[1]) : m[2] ?? (m[3] !== undefined ? psUnescaped(m[3]) : m[4].replace(/''/g, "'"))));
  for (const w of new Set(words)) {
    const abs = stateTarget(event.ctx, resolveToolPath(event.ctx.cwd, path.sep === '/' ? w.replace(/\\/g, '/') : w));
    const where = judgingRoot(event.ctx, abs);
    if (!where) continue;
    if (!fs.existsSync(abs)) {
      // Not there yet: a record path is Waymark's whatever it holds; a new state file is told by the text the command carries.
      const what = await stateOf(where.root, abs);
      if (what) hits.push(`${relPath(where.root, abs)} (${what})`);
      else if (/\.(?:md|markdown|ya?ml)$/i.test(abs) && stated) hits.push(`${relPath(where.root, abs)} (a new file with workflow state)`);
      continue;
    }
    const files = isDir(abs) ? filesUnder(abs).map(realOf).filter((f) => mayHoldState(where.root, f)).slice(0, 20) : [abs];
    for (const f of files) {
      const what = await stateOf(where.root, f);
      if (what) hits.push(`${relPath(where.root, f)} (${what})`);
    }
  }
  const commands = text.split(/[;|\n{}()]|&&|\|\|/).map((seg) => seg.trim().split(/\s+/)[0]?.replace(/^&\s*/, '').toLowerCase()).filter((c): c is string => !!c);
  const readsOnly = !/>/.test(text.replace(/\d?>\s*\$null|2>&1/gi, '')) && commands.every((c) => PS_READS.has(c) || c.startsWith('$') || c.startsWith('#'));
  if (readsOnly) return { kind: 'allow' };
  if (!hits.length) {
    // A path built at run time (Join-Path, $env:, a variable, concatenation) names no file in the
    // text: refused when the command speaks of state and writes, as bash's reader refuses expansions.
    const built = PS_RUNTIME_PATH.exec(text.replace(/\$(?:null|true|false)\b/gi, ''));
    if (built && STATE_HINT.test(text) && hasWorkspace(event.ctx)) {
      return { kind: 'deny', reason: `Waymark refused this command: it is PowerShell that writes to a path it builds at run time (${built[0].trim()}), which Waymark cannot follow, and it speaks of workflow state.\n- fix: name the files it writes literally, or change state with a waymark command (waymark advance|complete-step|set-status|gate pass ..., see waymark --help).` };
    }
    return { kind: 'allow' };
  }
  const gate = hits.some((h) => h.endsWith('(a gate verdict)'));
  return { kind: 'deny', reason: `Waymark refused this command: it is PowerShell, which Waymark cannot read to judge what it writes, and it names ${[...new Set(hits)].slice(0, 3).join(', ')}.\n${gate ? "- fix: a gate verdict is a reviewer's record: waymark gate pass|concerns|fail|waive FILE STEP --by NAME" : COMMAND_FIX}` };
}

async function proposedCommand(event: Extract<NeutralEvent, { kind: 'proposed-command' }>): Promise<HookDecision> {
  if (event.shell === 'powershell') return judgePowerShell(event);
  // PowerShell sent as a POSIX shell's command (an agent on Windows): judged both ways, a refusal of either standing.
  if (looksLikePowerShell(event.command)) {
    const ps = await judgePowerShell({ ...event, shell: 'powershell' });
    if (ps.kind === 'deny') return ps;
  }
  const mark = setStatusForMark(event.command);
  if (mark) {
    return { kind: 'deny', reason: `Waymark refused this command: tickets.py mark writes a ticket's plan where Waymark can neither check the status rules nor record the change.\n- fix: ${mark} (the same plan, written as tickets.py mark writes it, with the rules and history)` };
  }
  const f = await judgeCommand(event.command, event.ctx.cwd, (abs) => judgingRoot(event.ctx, abs)?.root);
  if (f.hits.length) {
    const which = f.hits.map((h) => h.replace(/ \((.+), by (.+)\)$/, '')).join(', ');
    const kinds = [...new Set(f.hits.map((h) => / \((.+), by /.exec(h)?.[1] ?? 'state'))];
    const hows = f.hits.map((h) => /, by (.+)\)$/.exec(h)?.[1] ?? '');
    const fix = kinds.includes("Waymark's agent hooks") || kinds.includes(HOOK_SWITCHES) ? HOOKS_FIX : kinds.includes("Waymark's merge driver block") ? MERGE_FIX : kinds.includes("Waymark's journal of a change under way") ? JOURNAL_FIX : kinds.includes("Waymark's configuration") ? CONFIG_FIX : kinds.includes('a gate verdict') ? "- fix: a gate verdict is a reviewer's record: waymark gate pass|concerns|fail|waive FILE STEP --by NAME" : hows.every((h) => MODE_CHANGE.test(h)) ? MODE_FIX : hows.every((h) => /rewrites the .* files it is given/.test(h)) ? FORMAT_FIX : kinds.includes("a ticket's status") ? TICKET_FIX : COMMAND_FIX;
    return { kind: 'deny', reason: `Waymark refused this command: it writes ${which}, which hold${f.hits.length === 1 ? 's' : ''} ${kinds.join(' and ')}, by shell, where the rules cannot be checked (${f.hits.map((h) => /, by (.+)\)$/.exec(h)?.[1]).join('; ')}).\n${fix}` };
  }
  if (f.broken.length) return { kind: 'deny', reason: `Waymark refused this command: the file it writes would break the workflow rules: ${f.broken.join('\n')}\n${COMMAND_FIX}` };
  if (f.hidden.length && hasWorkspace(event.ctx)) {
    return { kind: 'deny', reason: `Waymark refused this command: it runs code (or unpacks files) Waymark cannot read, so what it writes cannot be judged (${[...new Set(f.hidden)].slice(0, 3).join('; ')}).\n${HIDDEN_FIX}` };
  }
  if (f.unset.length && hasWorkspace(event.ctx)) {
    return { kind: 'deny', reason: `Waymark refused this command: it writes to a path a variable names whose value Waymark cannot see (${[...new Set(f.unset)].slice(0, 3).join('; ')}), so it may write a state file.\n- fix: spell the path out in the command (or set the variable in the same command), or change state with a waymark command (waymark --help).` };
  }
  if (f.opaque.length) {
    return { kind: 'deny', reason: `Waymark refused this command: it may touch workflow state in a way Waymark cannot follow (${[...new Set(f.opaque)].slice(0, 3).join('; ')}). Run it through waymark, or spell out the files it writes.\n${COMMAND_FIX}` };
  }
  return { kind: 'allow' };
}

const PATH_WORD = /(?:^|[\s'"=<>|;&(])((?:\.{0,2}\/|~\/|[\w@-])[\w@%+,.~/-]*\.(?:md|markdown|ya?ml|gate|jsonl|csv))(?=$|[\s'";&|)<>])/gi;

/**
 * The files a command that ran may have changed: those it writes as the shell reads it, and every
 * state-like path it names (a program given a file may have rewritten it).
 */
function commandPaths(command: string, cwd: string): string[] {
  const out = new Set<string>();
  for (const m of command.matchAll(PATH_WORD)) out.add(path.resolve(cwd, m[1].startsWith('~/') ? path.join(process.env.HOME ?? '~', m[1].slice(2)) : m[1]));
  for (const t of readShellCommand(command, cwd).touches) if (t.kind !== 'tree' && !isDir(t.path)) out.add(t.path);
  return [...out];
}

async function toolDone(event: Extract<NeutralEvent, { kind: 'tool-done' }>, adapter: HookAdapter): Promise<HookDecision> {
  const named = [...(event.file !== undefined ? [event.file] : []), ...(event.files ?? [])];
  const files = (named.length ? named.map((f) => resolveToolPath(event.ctx.cwd, f)) : commandPaths(event.command ?? '', event.ctx.cwd).map(realOf)).map((f) => stateTarget(event.ctx, f));
  const reports: string[] = [];
  let problem = false;
  for (const file of files) {
    // Recorded only in the event's own workspace, or (an agent whose cwd is in none) the file's.
    const where = judgingRoot(event.ctx, file);
    if (!where || where.foreign) continue;
    const root = where.root;
    let rec;
    try {
      rec = await recordAgentEdit({ root, file, actor: adapter.actor, session: event.ctx.session, tool: event.tool });
    } catch (e) {
      if (WaymarkError.is(e, 'usage')) continue;
      throw e;
    }
    const v = rec.verdict;
    if (!v.kind || !rec.problems.length) continue;
    const errors = rec.problems.filter((p) => p.severity === 'error');
    const warnings = rec.problems.filter((p) => p.severity === 'warning');
    if (errors.length) {
      problem = true;
      reports.push(`Waymark: the change to ${v.rel} breaks the workflow rules${rec.entry ? ` (recorded as history #${rec.entry.seq})` : ''}:\n${formatProblems(errors)}\nPut it right before going on.`);
    }
    if (warnings.length) reports.push(`Waymark: ${v.rel} now has ${warnings.length} new warning${warnings.length > 1 ? 's' : ''}:\n${formatProblems(warnings)}`);
  }
  return reports.length ? { kind: 'context', text: reports.join('\n'), problem } : { kind: 'allow' };
}

/** Where to continue, as a few lines of context for a new session. */
export async function sessionBriefing(root: string): Promise<string> {
  const rr = await resumeRoot(root);
  const lines: string[] = [];
  const open = rr.workflows.filter((w) => !w.done && w.degradation !== 'none' && !/archived/.test(w.sources.find((x) => x.tier === w.tier)?.status ?? ''));
  for (const w of open.slice(0, 8)) {
    lines.push(`- ${w.relFile} (${w.workflow}): ${w.step ? `continue at ${w.step}` : 'no next step known'} — tier ${w.tier} (${w.source}): ${w.reason}`);
    for (const warn of w.warnings.slice(0, 2)) lines.push(`  warning: ${warn}`);
  }
  if (open.length > 8) lines.push(`- and ${open.length - 8} more (waymark resume lists them all)`);
  const gates: string[] = [];
  for (const w of open.slice(0, 20)) {
    const state = await currentState(root, w.file);
    for (const [step, g] of Object.entries(state?.gates ?? {})) {
      if (!g.open && !state?.stepsCompleted.includes(step)) gates.push(`- gate ${g.name} of ${w.relFile} (step ${step}) is ${g.exists ? g.verdict ?? 'unreadable' : 'without a verdict'}: a reviewer records it with waymark gate pass ${w.relFile} ${step}`);
    }
  }
  const stories = inProgressStories(root);
  const leases = listLeases(root).filter((l) => !l.stale).map((l) => `- ${l.lease.key === 'root' ? 'the workspace' : l.lease.target} is leased to ${describeOwner(l.lease.owner)} until ${l.lease.expiresAt}`);
  const out = ['Waymark: where this workspace stands.'];
  out.push(lines.length ? `Workflows in progress:\n${lines.join('\n')}` : 'No workflow in progress.');
  if (stories.length) out.push(`Stories in progress:\n${stories.join('\n')}`);
  if (gates.length) out.push(`Open gates:\n${gates.slice(0, 8).join('\n')}`);
  if (leases.length) out.push(`Leases:\n${leases.join('\n')}`);
  for (const w of rr.warnings.slice(0, 3)) out.push(`warning: ${w}`);
  out.push('Change workflow state with the waymark CLI (waymark advance FILE, waymark gate pass FILE STEP, ...); direct edits of state are checked and refused when they break the rules.');
  return out.join('\n');
}

/** Stories in progress or in review (BMAD sprint: the ledger, else the story files). */
function inProgressStories(root: string): string[] {
  const sprint = loadSprint(root);
  if (!sprint) return [];
  return sprint.stories
    .filter((st) => st.status === 'in-progress' || st.status === 'review')
    .slice(0, 8)
    .map((st) => {
      const file = st.file ? relPath(root, st.file) : undefined;
      const drift = st.fileStatus && st.ledgerStatus && st.fileStatusMapped !== st.ledgerStatus ? `; its file says ${st.fileStatus}, the ledger ${st.ledgerStatus}` : '';
      return `- story ${st.key}: ${st.status}${file ? ` (${file}, tasks ${st.tasks.done}/${st.tasks.total}${drift})` : ''}`;
    });
}

async function stop(event: Extract<NeutralEvent, { kind: 'stop' }>, root: string): Promise<HookDecision> {
  if (!event.ctx.session) return { kind: 'allow' };
  const left = await sessionLeftovers(root, event.ctx.session);
  if (!left.length) return { kind: 'allow' };
  const lines = left.map((l) => `- ${l.rel}: ${l.message}${l.fix ? `\n  fix: ${l.fix}` : ''}`).join('\n');
  const workflowIssues = left.filter((l) => !/holds the lease/.test(l.message));
  // Keep the agent going once to put its workflows right; never loop (a second stop is let through).
  if (workflowIssues.length && !event.alreadyContinued) {
    return { kind: 'keep-going', reason: `Waymark: before stopping, put right what this session left inconsistent:\n${lines}` };
  }
  return { kind: 'notify', message: `Waymark: this ${event.subagent ? 'sub-agent' : 'session'} stops with:\n${lines}` };
}

/** Decides one event. Throws only for the hook's own failures (the caller renders them fail-open). */
export async function decide(event: NeutralEvent, adapter: HookAdapter): Promise<HookDecision> {
  if ((event.kind === 'session-start' || event.kind === 'stop') && !hasWorkspace(event.ctx)) return { kind: 'allow', note: `no workspace at or above ${event.ctx.cwd}; nothing to check.` };
  const root = realOf(workspaceRootOf(event.ctx));
  try {
    switch (event.kind) {
      case 'proposed-edit':
        return await proposedEdits(event, [{ file: event.file, change: event.change }], adapter);
      case 'proposed-edits':
        return await proposedEdits(event, event.edits, adapter);
      case 'proposed-command':
        return await proposedCommand(event);
      case 'tool-done':
        return await toolDone(event, adapter);
      case 'session-start':
        return { kind: 'context', text: await sessionBriefing(root) };
      case 'stop':
        return await stop(event, root);
      case 'other':
        return { kind: 'allow' };
    }
  } catch (e) {
    // A file outside the workspace is not Waymark's to judge: say so, never block.
    if (WaymarkError.is(e, 'usage')) return { kind: 'allow', note: `${errorMessage(e)} Not checked.` };
    throw e;
  }
}

/**
 * The hook's fast path: decides, with node built-ins only and without loading the core, that
 * an event cannot touch workflow state, so the hook answers "go ahead" in a few milliseconds.
 * It errs towards "judge": anything that might hold state goes to the full check, which
 * decides exactly (include/exclude globs, dialects, real paths).
 */
import { AGENT_HOOK_FILE, GITATTRIBUTES } from './agentHooks';
import type * as cryptoModule from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileChange, HookContext, NeutralEvent } from './port';
// Deep imports on purpose: both modules use node built-ins only, and the core's index would pull the
// whole core into the fast path's bundle (cli-hookfast.js 54 KB -> 429 KB, measured 1 Dec 2026).
// eslint-disable-next-line no-restricted-imports
import { nearestMarkedFolder } from '../core/engine/markers';
// eslint-disable-next-line no-restricted-imports
import { fileUriPath } from '../core/engine/fileUri';

/** The nearest ancestor of `start` (or itself) holding a Waymark, BMAD or git marker; undefined when none
 * does. The core's walk (core/engine/markers.ts, node built-ins only): a hook judges in the folder the CLI would. */
export const findWorkspaceRoot: (start: string) => string | undefined = nearestMarkedFolder;

/** The workspace folder: the agent's project folder, else the nearest ancestor of cwd with a Waymark, BMAD or git marker, else cwd. */
export function workspaceRootOf(ctx: HookContext): string {
  if (ctx.projectDir) return path.resolve(ctx.projectDir);
  return findWorkspaceRoot(ctx.cwd) ?? path.resolve(ctx.cwd);
}

/** True when the event names a workspace: the agent's project folder, or a marker at or above cwd. */
export function hasWorkspace(ctx: HookContext): boolean {
  return ctx.projectDir !== undefined || findWorkspaceRoot(ctx.cwd) !== undefined;
}

/**
 * `rel` (an answer of path.relative) names a path strictly under the folder: not the folder, not
 * `..` or `../...`. A name that only starts with `..` (`..plan.md`, `..docs/`) is inside.
 */
export function relInside(rel: string): boolean {
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !(path.sep !== '/' && rel.startsWith('../')) && !path.isAbsolute(rel);
}

/**
 * The workspace a file (its real path `abs`) is judged in: the event's workspace when the file
 * lies in it; else the file's own (the nearest marker at or above it), `foreign` when the event has
 * a workspace of its own (judged there, nothing written there); with no marker anywhere, the
 * event's folder as before, judged without writing. Undefined: the file lies in no workspace.
 * A cwd outside the project (`/`, `/tmp`, a folder above it) never becomes the judging root.
 */
export function judgingRoot(ctx: HookContext, abs: string): { root: string; foreign: boolean; outer?: string } | undefined {
  // workspaceRootOf and hasWorkspace in one walk up from cwd.
  const found = ctx.projectDir ? path.resolve(ctx.projectDir) : findWorkspaceRoot(ctx.cwd);
  const marked = found !== undefined;
  const base = realPathOf(found ?? ctx.cwd);
  if (marked && (abs === base || relInside(path.relative(base, abs)))) {
    // A project nested in the event's workspace (a monorepo's `apps/web/.bmad-core`, `packages/x/.waymark`)
    // owns its files: judged there, as `waymark` run from it judges them. The event's workspace is kept as
    // `outer`: its rules are asked too, so a marker folder made to move a file out of them gains nothing.
    const own = nestedOwner(base, abs);
    return own ? { root: own, foreign: false, outer: base } : { root: base, foreign: false };
  }
  // The agent's other open workspace folders (Cursor's workspace_roots) are its own too: judged and recorded there.
  for (const r of ctx.roots ?? []) {
    const other = realPathOf(path.resolve(r));
    if (abs === other || relInside(path.relative(other, abs))) return { root: other, foreign: false };
  }
  let start = path.dirname(abs);
  try {
    if (fs.statSync(abs).isDirectory()) start = abs;
  } catch {
    // not there (yet): its folder
  }
  const own = findWorkspaceRoot(start);
  if (own) return { root: realPathOf(own), foreign: marked };
  if (!marked && (abs === base || relInside(path.relative(base, abs)))) return { root: base, foreign: true };
  return undefined;
}

/** The nearest marked folder of `abs` (its folder, or itself when a folder) when it lies strictly below `base`. */
function nestedOwner(base: string, abs: string): string | undefined {
  if (abs === base) return undefined;
  let start = path.dirname(abs);
  try {
    if (fs.statSync(abs).isDirectory()) start = abs;
  } catch {
    // not there (yet): its folder
  }
  if (start === base) return undefined;
  const own = findWorkspaceRoot(start);
  if (!own) return undefined;
  const real = realPathOf(own);
  return real !== base && relInside(path.relative(base, real)) ? real : undefined;
}

/**
 * A path as an agent's tool names it, as a file system path: a `file://` URI (MCP tools, VS Code's
 * `uri`) is the file it names; anything else is as given.
 */
export function toLocalPath(file: string): string {
  try {
    return fileUriPath(file) ?? file;
  } catch {
    return file;
  }
}

/** The real path of a file a tool names (relative to `cwd`, or a `file://` URI). */
export function resolveToolPath(cwd: string, file: string): string {
  return realPathOf(path.resolve(cwd, toLocalPath(file)));
}

const LINK_SKIP = new Set(['.git', 'node_modules', '.hg', '.svn']);
const LINK_SCAN_MAX = 20_000;

/**
 * Another name, under `root`, of the regular file `abs` when it is a hard link (more than one
 * name) and that name holds state by its path (the ledger, a definition, a record, Waymark's
 * configuration) or by its text: an edit of one name writes the other, so it is judged as that
 * file's edit. Undefined for a file with one name (the common case: one stat, no walk).
 */
export function linkedStatePath(root: string, abs: string, stat?: fs.Stats): string | undefined {
  let st: fs.Stats;
  try {
    st = stat ?? fs.statSync(abs);
  } catch {
    return undefined;
  }
  if (!st.isFile() || st.nlink < 2) return undefined;
  const names: string[] = [];
  let seen = 0;
  walkTree(root, {
    enter: (name) => !LINK_SKIP.has(name),
    stop: () => ++seen > LINK_SCAN_MAX || names.length >= st.nlink - 1,
    file: (p, e) => {
      if (!e.isFile() || p === abs) return;
      try {
        const o = fs.statSync(p);
        if (o.ino === st.ino && o.dev === st.dev) names.push(p);
      } catch {
        // gone
      }
    },
  });
  const byPath = names.find((n) => {
    const rel = path.relative(root, n).split(path.sep).join('/');
    return RECORD.test(rel) || LEDGER.test(rel);
  });
  return byPath ?? names.find((n) => mayHoldState(root, n));
}

/**
 * A bounded walk under `dir`, the one both hook walks use (hard links of a state file here, the
 * files a command names by their folder in handler.ts): before each entry `stop` is asked (the
 * walk ends when it says so: each walk's bound); a folder is entered when `enter` takes its name
 * (and the folder it is in: each walk's skip rule); every other entry (file, link, FIFO...) goes to
 * `file`. Unreadable folders are passed over; links to folders are not followed.
 */
export function walkTree(dir: string, o: { enter: (name: string, parent: string) => boolean; stop: () => boolean; file: (p: string, e: fs.Dirent) => void }): void {
  let stopped = false;
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (stopped || (stopped = o.stop())) return;
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (o.enter(e.name, d)) walk(p);
      } else o.file(p, e);
    }
  };
  walk(dir);
}

/**
 * The file an edit of `abs` (a real path) changes, for judging: `abs` itself, or the state file
 * it is a hard link of (looked for in the workspace the file lies in, else the event's own).
 */
export function stateTarget(ctx: HookContext, abs: string): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    return abs;
  }
  if (!st.isFile() || st.nlink < 2) return abs;
  const where = judgingRoot(ctx, abs);
  const root = where?.root ?? (hasWorkspace(ctx) ? realPathOf(workspaceRootOf(ctx)) : undefined);
  return (root && linkedStatePath(root, abs, st)) ?? abs;
}

/** The real path of `abs`: links followed; for a path not there yet, its nearest existing folder's real path joined with the rest. */
export function realPathOf(abs: string): string {
  let probe = path.resolve(abs);
  let suffix = '';
  for (;;) {
    try {
      return path.join(fs.realpathSync(probe), suffix);
    } catch {
      const up = path.dirname(probe);
      if (up === probe) return path.resolve(abs);
      suffix = path.join(path.basename(probe), suffix);
      probe = up;
    }
  }
}

// `ticket`: a BMAD v7 plan (its status is state).
const STATE_KEY = /^[ \t]*["']?(?:workflow|workflowType|steps|steps?[_-]?completed|lastStep|last_step|currentStep|current_step|delegation|ticket)["']?[ \t]*:/im;
const STORY = /^#\s+Story\b/m;
// A line that states a status in any form a story writes it: `Status: done`, `**Status**: done`,
// `- **Status:** done`, `> Status: done`, `## Status` (its section), `## Status: done`, `**Current
// Status:** done`, a frontmatter `status:`. Broad on purpose: a line taken wrongly costs the full check.
const STATUS_LINE = /^[ \t]*(?:[-*+>|][ \t]*)*(?:#{1,6}[ \t]*)?(?:\*\*|__|\*|_)?[ \t]*(?:current[ \t]+|story[ \t]+)?status\b/im;
// A file named as BMAD names a story (`1.2.story.md`, `1-2-login.md`, `story-1.2.md`, `3a-1-x.md`).
const STORY_NAME = /(?:^|\/)(?:[^/]*\.story\.md|(?:story[-_. ]?)?\d+[a-z]?[.-]\d+[^/]*\.md|[^/]*story[-_. ]?\d[^/]*\.md)$/i;
const RECORD = /^\.waymark\/(?:gates|history|events|leases|modes|checkpoints|locks|journal)\/|^\.waymark\/files-manifest\.csv$|^\.git\/waymark\/|^\.waymark\/workflows\/.+\.ya?ml$|^\.waymark\/config\.ya?ml$/;
const LEDGER = /(?:^|\/)sprint-status\.ya?ml$|(?:^|\/)tickets\.toml$/i;
const HEAD_BYTES = 16 * 1024;

/** The first bytes of a regular file ('' when missing; never blocks on a FIFO). */
function head(file: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return '';
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return '';
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Frontmatter with workflow keys, or a BMAD story, in this text (or its start): a `# Story`
 * heading, or a file named as a story (`name`), with a line stating a status in any form.
 */
export function looksLikeState(text: string, name?: string): boolean {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (/^---[^\n]*\r?\n/.test(t)) {
    const end = t.indexOf('\n---', 3);
    if (STATE_KEY.test(end === -1 ? t.slice(0, HEAD_BYTES) : t.slice(0, end))) return true;
  }
  return (STORY.test(t.slice(0, 4096)) || (name !== undefined && STORY_NAME.test(name))) && STATUS_LINE.test(t.slice(0, 8192));
}

/**
 * A piece of text an edit inserts into `name`: could it add state (a workflow key line, a status
 * line of a Markdown file, a fence)? In code, `status:` and `Status =` lines are everywhere and
 * make no story; a capital `Status:` line still counts there, as it always has.
 */
function fragmentMayAddState(s: string, name: string): boolean {
  return STATE_KEY.test(s) || (/\.(?:md|markdown|mdx|txt)$/i.test(name) ? STATUS_LINE.test(s) : /^(?:\*\*)?Status(?:\*\*)?:/m.test(s)) || /^---/m.test(s) || STORY.test(s);
}

/**
 * Shell forms that may write a file or run something whose writes cannot be read from the
 * command: redirections, in-place editors, tee/touch, copies, moves, links, deletes, git restores,
 * eval, nested shells, xargs, find -exec, interpreters, editors, archives, wrappers that run
 * their arguments. A command without any of them cannot change state; one with them is read by
 * the shell parser (shell.ts). Tested on the command with its quoting taken away (`s""ed`,
 * `'sed'`, `\sed` are sed) and its harmless redirections (to a descriptor or /dev/null) removed:
 * any other `>` (`&>`, `1>`, `<>`, `>|`, `>(...)`) is a write.
 */
export const SHELL_WRITE = />|\b(?:tee|touch|truncate|sed|perl|ruby|awk|gawk|rm|rmdir|unlink|shred|mv|cp|install|ln|rsync|dd|patch|eval|source|xargs|parallel|python\d?(?:\.\d+)?|node|nodejs|deno|bun|php|lua|osascript|pwsh|bash|sh|zsh|dash|ksh|fish|vi|vim|nvim|view|ex|ed|red|emacs|emacsclient|nano|pico|micro|joe|jed|mcedit|kak|hx|tar|bsdtar|unzip|7z|7za|cpio|gzip|gunzip|bzip2|bunzip2|xz|unxz|zstd|unzstd|lz4|busybox|toybox|su|runuser|flock|chmod|chown|chgrp|lchown|chattr|setfacl|script|uniq|curl|wget|sponge|dos2unix|unix2dos|mac2unix|unix2mac|exiftool|sd|rename|powershell|cmd|wsl|prename|perl-rename|file-rename|mkfifo|mknod|fallocate|yq|apply_patch|applypatch|prettier|mdformat|markdownlint(?:-cli2)?|yamlfmt|taplo|dprint|rimraf|del|del-cli|trash|trash-put|srm|shx)\b|--config-env|(?:^|[;&|(\s])\.\s|\bfind\b[^|;&]*\s-(?:exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)\b|\bgit\b[^|;&]*\s(?:checkout|checkout-index|restore|reset|stash|apply|am|mv|rm|clean|revert|config|rebase|bisect|submodule|filter-branch|difftool|switch|merge|cherry-pick)\b|\bgit\b[^|;&]*\s-c\s|<<-?\s*\w|\btickets\.py\b|(?:^|\s)(?:-o|-outfile|--out(?:put)?(?:-file|-document)?|--out-?file)(?:[\s=]|$)|\b(?:GIT_EDITOR|GIT_SEQUENCE_EDITOR|EDITOR|VISUAL|FCEDIT|PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|BAT_PAGER|DELTA_PAGER|LESSOPEN|LESSCLOSE|GIT_SSH_COMMAND|GIT_SSH|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|BROWSER|PROMPT_COMMAND|BASH_ENV|ENV|LD_PRELOAD|LD_AUDIT|GIT_CONFIG_PARAMETERS|GIT_CONFIG_(?:KEY|VALUE)_\d+)=/;

/** git's own commands (another word after `git` may be an alias, which the full check reads from git's configuration). */
export const GIT_BUILTINS: ReadonlySet<string> = new Set('add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects credential describe diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help hook index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-tree mergetool mktag mktree mv name-rev notes pack-objects prune pull push range-diff read-tree rebase reflog remote repack replace request-pull rerere reset restore rev-list rev-parse revert rm send-email shortlog show show-branch show-ref sparse-checkout stash status stripspace submodule switch symbolic-ref tag update-index update-ref var verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs'.split(' '));

/** A git command whose word is not one of git's own: an alias, which may run anything. */
function gitAliasUse(text: string): boolean {
  for (const m of text.matchAll(/\bgit((?:\s+(?:-C|-c|--git-dir|--work-tree)\s+\S+|\s+-\S+)*)\s+([\w.-]+)/g)) if (!GIT_BUILTINS.has(m[2])) return true;
  return false;
}
/** Redirections that write no file: to a descriptor or /dev/null. */
const HARMLESS_REDIRECT = /(?:&|\d*)>>?[ \t]*&[ \t]*(?:\d+|-)(?![\w./$])|(?:&|\d*)>>?[ \t]*\/dev\/null(?![\w./$])/g;
/** Words before a command's name that are not it: assignments, wrappers, keywords, options. */
const BEFORE_NAME = /^(?:[A-Za-z_]\w*=.*|-.*|sudo|doas|env|command|builtin|exec|nice|nohup|time|stdbuf|timeout|ionice|chrt|taskset|setsid|fakeroot|busybox|toybox|if|then|else|elif|do|while|until|\{|\}|!|\d+)$/;

/** A command name the text does not spell (from an expansion, ANSI-C quoting or a pattern: `${X}ed`, `$'\x73ed'`, `/bin/s?d`), or a path to a program (`./deploy`), whose script the full check reads. */
function hiddenName(command: string): boolean {
  for (const seg of command.split(/[;&|()\n`]/)) {
    const words = seg.trim().split(/\s+/);
    let i = 0;
    while (i < words.length && BEFORE_NAME.test(words[i])) i++;
    const w = words[i];
    // A name from an expansion or a pattern; a script run by its path (its text is read).
    if (w && w !== '[' && w !== '[[' && /[$*?[{/]/.test(w)) return true;
  }
  return false;
}

/** PowerShell's approved verbs (Get-Verb): a command word `Verb-Noun` with one of them is a cmdlet or a function named as one. */
const PS_VERBS = 'add|clear|close|copy|enter|exit|find|format|get|hide|join|lock|move|new|open|optimize|pop|push|redo|remove|rename|reset|resize|search|select|set|show|skip|split|step|switch|undo|unlock|watch|connect|disconnect|read|receive|send|write|backup|checkpoint|compare|compress|convert|convertfrom|convertto|dismount|edit|expand|export|group|import|initialize|limit|merge|mount|out|publish|restore|save|sync|unpublish|update|debug|measure|ping|repair|resolve|test|trace|approve|assert|build|complete|confirm|deny|deploy|disable|enable|install|invoke|register|request|restart|resume|start|stop|submit|suspend|uninstall|unregister|wait|block|grant|protect|revoke|unblock|unprotect|use|tee';
/** PowerShell's own aliases that change files and are no POSIX command (`sc` Set-Content, `ni` New-Item, `cpi` Copy-Item...). */
const PS_ALIASES = 'sc|ac|ni|cpi|mi|ri|rni|clc|del|erase|copy|move|ren|rd|md|iex|icm|saps|start';
const PS_COMMAND = new RegExp(`(?:^|[;|\\n{(]|&&|\\|\\|)\\s*[&.]?\\s*(?:(?:${PS_VERBS})-[a-z][a-z0-9]*|(?:${PS_ALIASES}))(?=[\\s;|)}]|$)`, 'i');
/** .NET calls (`[IO.File]::WriteAllText`), `$env:`, and PowerShell's backtick escapes inside double quotes. */
const PS_SYNTAX = /\[(?:system\.)?io\.\w+\]::|\$env:\w|\[environment\]::/i;

/**
 * True when a command sent as a POSIX shell's is PowerShell (an agent on Windows reports its
 * terminal as `Bash` or `Shell`): a cmdlet (`Set-Content`, `Out-File`, `New-Item`...), one of its
 * aliases that writes (`sc`, `ni`, `cpi`...), a .NET call or `$env:`. Judged as PowerShell too, the
 * stricter answer winning: read as POSIX shell, `Set-Content docs/plan.md x` is a program Waymark
 * does not know, given a file it cannot say it writes.
 */
export function looksLikePowerShell(command: string): boolean {
  return PS_COMMAND.test(command) || PS_SYNTAX.test(command);
}

/** True when a shell command may write a file (or run what may). */
export function commandMayWrite(command: string): boolean {
  const text = command.replace(/\\\n/g, '').replace(HARMLESS_REDIRECT, ' ').replace(/["'\\]/g, '');
  return SHELL_WRITE.test(text) || command.includes("$'") || hiddenName(text) || gitAliasUse(text);
}

export interface QuickVerdict {
  /** `pass`: nothing to judge; `judge`: load the core. */
  verdict: 'pass' | 'judge';
  note?: string;
}

/** Cheap first look at an event. */
export function quickCheck(event: NeutralEvent): QuickVerdict {
  switch (event.kind) {
    case 'other':
      return { verdict: 'pass' };
    case 'session-start':
    case 'stop':
      // No workspace marker at or above cwd: nothing to brief or check, and no file system to scan.
      return hasWorkspace(event.ctx) ? { verdict: 'judge' } : { verdict: 'pass', note: `no workspace at or above ${event.ctx.cwd}; nothing to check.` };
    case 'proposed-command':
      // PowerShell's cmdlets (Set-Content, Out-File...) are no POSIX words: judged whenever there is a workspace.
      if (event.shell === 'powershell' || looksLikePowerShell(event.command)) return { verdict: hasWorkspace(event.ctx) ? 'judge' : 'pass' };
      return { verdict: commandMayWrite(event.command) ? 'judge' : 'pass' };
    case 'tool-done':
      if (event.command !== undefined) return { verdict: commandMayWrite(event.command) ? 'judge' : 'pass' };
      return worst([...(event.file !== undefined ? [event.file] : []), ...(event.files ?? [])].map((f) => fileCheck(event.ctx, f, undefined)));
    case 'proposed-edit':
      return fileCheck(event.ctx, event.file, event.change);
    case 'proposed-edits':
      return worst(event.edits.map((e) => fileCheck(event.ctx, e.file, e.change)));
  }
}

/** Cheap: may the file at `abs` (inside `root`) hold state? Waymark's records, definitions, the ledger, or state in its first bytes. */
export function mayHoldState(root: string, abs: string): boolean {
  const rel = path.relative(root, abs).split(path.sep).join('/');
  return RECORD.test(rel) || LEDGER.test(rel) || looksLikeState(head(abs), rel);
}

/** `judge` when any file needs it; else `pass` (with the first note). */
function worst(vs: QuickVerdict[]): QuickVerdict {
  return vs.find((v) => v.verdict === 'judge') ?? vs[0] ?? { verdict: 'pass' };
}

/** A file an edit changes (`change`) or changed (undefined: after the tool ran). */
function fileCheck(ctx: HookContext, file: string, change: FileChange | undefined): QuickVerdict {
  // Judged by real path: a link (inside or outside the workspace) is the file it points to, a hard link the state file it is another name of.
  const abs = stateTarget(ctx, resolveToolPath(ctx.cwd, file));
  const where = judgingRoot(ctx, abs);
  if (!where) return { verdict: 'pass', note: `${abs} is outside the workspace ${realPathOf(workspaceRootOf(ctx))}; not checked.` };
  const root = where.root;
  const rel = path.relative(root, abs);
  const relSlash = rel.split(path.sep).join('/');
  // A git hook or git's configuration: code git runs later (judged for what it writes).
  if (RECORD.test(relSlash) || LEDGER.test(relSlash) || /^\.git\/(?:hooks\/[^/]+|config)$/.test(relSlash)) return { verdict: 'judge' };
  if (looksLikeState(head(abs), relSlash)) return { verdict: 'judge' };
  // An agent's hook configuration: judged before the change (does it keep Waymark's hook?).
  if (change && (AGENT_HOOK_FILE.test(relSlash) || GITATTRIBUTES.test(relSlash))) return { verdict: 'judge' };
  if (change) {
    switch (change.type) {
      case 'write':
        return { verdict: looksLikeState(change.content, relSlash) ? 'judge' : 'pass' };
      case 'replace':
        return { verdict: change.edits.some((e) => fragmentMayAddState(e.newString, relSlash)) ? 'judge' : 'pass' };
      case 'hunks':
        if (change.from && looksLikeState(head(resolveToolPath(ctx.cwd, change.from)), change.from)) return { verdict: 'judge' };
        return { verdict: change.hunks.some((h) => fragmentMayAddState(h.new.join('\n'), relSlash)) ? 'judge' : 'pass' };
      case 'insert':
        return { verdict: fragmentMayAddState(change.text, relSlash) ? 'judge' : 'pass' };
      case 'append':
        // Added to a file without state (or making a new one): judged when the text may bring some,
        // as the file it leaves (an empty or missing file appended to is a write of that text).
        return { verdict: fragmentMayAddState(change.text, relSlash) || looksLikeState(change.at === 'start' ? change.text : head(abs) + change.text, relSlash) ? 'judge' : 'pass' };
      case 'delete':
      case 'unknown':
        // Without state now, deleting it changes none; an unseen edit that adds state is caught after it.
        return { verdict: 'pass' };
    }
  }
  // After an edit: the state may have been removed; the snapshot the check kept before this
  // file's edit says so (named as protocol/proposal.ts names it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: the launcher runs this file for every verb, and crypto costs milliseconds to load
  const crypto = require('node:crypto') as typeof cryptoModule;
  const snapshot = path.join(root, '.waymark', 'cache', 'hooks', `before-${crypto.createHash('sha256').update(relSlash).digest('hex').slice(0, 10)}.json`);
  return { verdict: fs.existsSync(snapshot) ? 'judge' : 'pass' };
}

/**
 * A shell command read the way bash reads it (mvdan/sh's parser): which files each command in it
 * writes — redirected into, created, truncated, edited in place, copied, moved or linked over,
 * removed, or restored by git — with each path resolved against the folder the `cd`s before it
 * left the shell in. Every command of a list, pipeline, subshell, function, loop or command
 * substitution is read; none passes because of the command it follows.
 *
 * What cannot be followed (a parse error, `eval` of an expansion, a path from a variable or a
 * command substitution, xargs, find -exec, an interpreter's script, `cd` to an unknown folder) is
 * reported as `opaque`, for the judge to refuse when the command may touch state.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ShNode, ShParser } from 'mvdan-sh';
import { applyHunks, parseApplyPatch } from './applyPatch';
import { GIT_BUILTINS } from './quickCheck';

/** Where the written text comes from, when the command says. */
export type ShellContent = { text: string } | { fromFile: string } | { unchanged: true };

export type ShellTouch =
  /** The file at `path` is written (created when missing); `content` when the command says what. */
  | { kind: 'write'; path: string; how: string; content?: ShellContent }
  /** The file (or, when it is a folder, everything under it) is removed. */
  | { kind: 'delete'; path: string; how: string }
  /** Any file under `path` may change (git restoring a folder, rsync); `gitRef` the revision restored from; `names`: only files whose name matches them all (find -name). */
  | { kind: 'tree'; path: string; how: string; git?: { cwd: string; ref?: string; paths: string[] }; unknown?: true; names?: RegExp[] };

export interface ShellReading {
  touches: ShellTouch[];
  /** Why parts of the command cannot be followed; empty when every write is known. */
  opaque: string[];
  /**
   * Code or files the command runs or unpacks whose text exists only when it runs or cannot be
   * read (`eval "$(...)"`, `curl ... | sh`, `bash <(...)`, an archive or patch that cannot be
   * read): nothing about it can be judged, whatever the command names.
   */
  hidden: string[];
  /**
   * Paths the command writes or removes that a variable names whose value it does not set and the
   * hook's environment does not hold (a persistent terminal's `export P=docs/plan.md` before it):
   * any file may be meant.
   */
  unset: string[];
}

/** What a command reads on its standard input, when the command says: a text, or why it is not known. */
/** `lists`: the folders whose files a lister's output names (git ls-files, find, ls, grep -l). */
type Input = { text: string } | { hidden: string; lists?: string[] };

type Sh = typeof import('mvdan-sh');
let sh: Sh | undefined;
let parser: ShParser | undefined;
let OPS: Ops | undefined;

interface Ops {
  and: number;
  or: number;
  pipe: number;
  pipeAll: number;
  writes: Set<number>;
  appends: Set<number>;
  dupOut: number;
  heredocs: Set<number>;
  herestring: number;
  input: number;
}

function load(): { sh: Sh; parser: ShParser; ops: Ops } {
  if (!sh) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a 1.5 MB parser: loaded only when a shell command must be judged, never on the hook's fast path
    sh = require('mvdan-sh') as Sh;
    parser = sh.syntax.NewParser();
    OPS = operators(parser);
  }
  return { sh, parser: parser!, ops: OPS! };
}

/** The parser's operator codes, read from the parser itself (they are not part of its API). */
function operators(p: ShParser): Ops {
  const stmt = (src: string) => (p.Parse(src, 'op').Stmts as ShNode[])[0];
  const redir = (src: string) => ((stmt(src).Redirs as ShNode[])[0].Op as number);
  const bin = (src: string) => ((stmt(src).Cmd as ShNode).Op as number);
  return {
    and: bin('a && b'),
    or: bin('a || b'),
    pipe: bin('a | b'),
    pipeAll: bin('a |& b'),
    writes: new Set(['a > f', 'a >> f', 'a >| f', 'a &> f', 'a &>> f', 'a <> f'].map(redir)),
    appends: new Set(['a >> f', 'a &>> f'].map(redir)),
    dupOut: redir('a >& f'),
    heredocs: new Set([redir('a <<E\nE\n'), redir('a <<-E\nE\n')]),
    herestring: redir('a <<< s'),
    input: redir('a < f'),
  };
}

const nodeType = (n: unknown): string => load().sh.syntax.NodeType(n);
const list = (v: unknown): ShNode[] => (Array.isArray(v) ? (v as ShNode[]) : []);

/** A word's text when it has no expansion; `glob` when an unquoted part holds a pattern. */
interface WordText {
  text: string;
  glob: boolean;
}

function wordText(w: unknown, home: string): WordText | undefined {
  if (!w) return undefined;
  let text = '';
  let glob = false;
  const parts = list((w as ShNode).Parts);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const t = nodeType(part);
    if (t === 'Lit') {
      let v = String(part.Value);
      if (i === 0 && (v === '~' || v.startsWith('~/'))) v = home + v.slice(1);
      if (/(?<!\\)[*?[]/.test(v)) glob = true;
      text += v.replace(/\\(.)/g, '$1');
    } else if (t === 'SglQuoted') {
      text += part.Dollar ? ansiC(String(part.Value)) : String(part.Value);
    } else if (t === 'DblQuoted') {
      for (const q of list(part.Parts)) {
        if (nodeType(q) !== 'Lit') return undefined;
        text += String(q.Value).replace(/\\([$`"\\])/g, '$1');
      }
    } else return undefined;
  }
  return { text, glob };
}

/** The text of ANSI-C quoting (`$'\\x73ed'` is `sed`), as bash decodes it. */
function ansiC(v: string): string {
  const named: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
  return v.replace(/\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3})|c(.)|(.))/gs, (m, x, u, U, o, c, ch) => {
    if (x || u || U) return String.fromCodePoint(parseInt(x ?? u ?? U, 16));
    if (o) return String.fromCharCode(parseInt(o, 8) & 0xff);
    if (c) return String.fromCharCode(c.charCodeAt(0) & 0x1f);
    return named[ch] ?? m;
  });
}

/** The commands that only run the rest of their arguments as a command (busybox and toybox run their first argument as the applet). */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'command', 'builtin', 'exec', 'nice', 'nohup', 'time', 'stdbuf', 'timeout', 'ionice', 'chrt', 'taskset', 'unbuffer', 'caffeinate', 'busybox', 'toybox', 'setsid', 'fakeroot', 'flock', 'xvfb-run', 'firejail', 'proxychains', 'proxychains4', 'torsocks', 'numactl', 'catchsegv', 'dbus-run-session', 'systemd-run', 'nsenter', 'unshare', 'sg', 'npx', 'bunx', 'pnpx', 'shx']);
/** A wrapper's options that take a value (the word after them is not the command). */
const WRAPPER_VALUES: Record<string, RegExp> = {
  sudo: /^-(?:[uUgCpDhrtT]|-user|-group|-other-user|-close-from|-prompt|-chdir|-host|-role|-type|-command-timeout)$/,
  doas: /^-[uC]$/,
  env: /^-(?:u|-unset)$/,
  exec: /^-a$/,
  nice: /^-(?:n|-adjustment)$/,
  timeout: /^-(?:[sk]|-signal|-kill-after)$/,
  ionice: /^-(?:[cnpP]|-class|-classdata|-pid|-pgid)$/,
  chrt: /^-(?:p|-pid)$/,
  taskset: /^-(?:c|-cpu-list)$/,
  stdbuf: /^-[ioe]$/,
  flock: /^-(?:[wE]|-timeout|-conflict-exit-code)$/,
  numactl: /^-(?:[CNmipl]|-physcpubind|-cpunodebind|-membind|-interleave|-preferred)$/,
  'systemd-run': /^-(?:[pEu]|-property|-setenv|-unit|-working-directory|-description|-slice)$/,
  nsenter: /^-(?:[tSGwr]|-target)$/,
  firejail: /^-(?:-profile|-private)$/,
  npx: /^-(?:p|-package)$/,
  command: /^$/,
  builtin: /^$/,
  nohup: /^$/,
  time: /^-[fo]$/,
  bunx: /^-(?:p|-package)$/,
};
/** Editors: every file they are given may be written. */
const EDITORS = new Set(['vi', 'vim', 'nvim', 'view', 'vimdiff', 'ex', 'ed', 'red', 'emacs', 'emacsclient', 'nano', 'pico', 'micro', 'joe', 'jed', 'mcedit', 'kak', 'hx', 'helix', 'ne']);
/** Compressors: each file given is replaced by its compressed or uncompressed twin. */
const PACKERS = /^(?:gzip|gunzip|bzip2|bunzip2|xz|unxz|lzma|unlzma|zstd|unzstd|lz4|lzip|compress|uncompress|pigz|pbzip2)$/;
/** Interpreters that read their code from standard input when given no script. */
const STDIN_CODE = /^(?:python\d?(?:\.\d+)?|node|nodejs|bun|ruby|perl|php|lua|tclsh|pwsh|powershell|Rscript|osascript|irb)$/;
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
const INTERPRETERS = new Set(['python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'ruby', 'perl', 'php', 'lua', 'Rscript', 'osascript', 'pwsh', 'powershell', 'jq', 'yq', 'awk', 'gawk', 'mawk', 'nawk', 'tclsh', 'groovy']);
const IN_PLACE = new Set(['sed', 'gsed', 'perl', 'ruby']);
/** Variables whose value is a program some command runs (git's editor, a pager, ssh): read as a command. */
const PROGRAM_VARS = /^(?:GIT_EDITOR|GIT_SEQUENCE_EDITOR|EDITOR|VISUAL|FCEDIT|PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|BAT_PAGER|DELTA_PAGER|LESSOPEN|LESSCLOSE|GIT_SSH_COMMAND|GIT_SSH|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|BROWSER|PROMPT_COMMAND)$/;
/** git configuration keys whose value is a program git runs (`!` aliases, editors, pagers, drivers, helpers). */
export const GIT_PROGRAM_KEYS = /^(?:alias\..+|core\.(?:editor|pager|sshcommand|askpass|fsmonitor|hookspath|gitproxy|alternaterefscommand)|sequence\.editor|pager\..+|diff\.external|diff\..+\.(?:textconv|command)|difftool\..+\.cmd|mergetool\..+\.cmd|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|credential\.(?:.+\.)?helper|gpg\.(?:.+\.)?program|uploadpack\.packobjectshook|sendemail\.(?:.+\.)?(?:tocmd|cccmd|sendmailcmd)|web\.browser|browser\..+\.cmd|man\..+\.cmd|remote\..+\.(?:receivepack|uploadpack)|interactive\.difffilter)$/;
/** Programs that rewrite, replace or rename every file they are given (yq only with -i). */
const IN_PLACE_ALWAYS = /^(?:dos2unix|unix2dos|mac2unix|unix2mac|sponge|exiftool|sd|rename|prename|perl-rename|file-rename|mkfifo|mknod|fallocate)$/;
/** Programs whose `-o` is not an output file. */
const NO_OUTPUT_OPTION = /^(?:grep|egrep|fgrep|rg|ag|ack|ls|ps|ssh|scp|sftp|mount|less|more|find|git|tar|bsdtar|gtar|xargs|top|pgrep|pkill|lsof|join|od|hexdump|stty|set|shopt|zip|unzip|netstat|ss|sysctl|diff|id|mkdir|readlink|tr|sh|bash|zsh|dash|ksh|fish|mksh|ash|waymark|npm|pnpm|yarn)$/;
/**
 * Formatters that rewrite Markdown, YAML or TOML (the forms state is written in): the files of
 * those types under what they are given, less what their ignore file and .gitignore leave out.
 * Formatters of other types (ruff, black, gofmt, rustfmt, eslint, biome) touch no state.
 */
const FORMATTERS: Record<string, { exts: RegExp; write?: RegExp; sub?: RegExp; check?: RegExp; ignore?: string; all?: boolean }> = {
  prettier: { exts: /\.(?:md|markdown|mdx|ya?ml)$/i, write: /^(?:--write|-w)$/, ignore: '.prettierignore' },
  mdformat: { exts: /\.(?:md|markdown)$/i, check: /^--check$/ },
  markdownlint: { exts: /\.(?:md|markdown)$/i, write: /^(?:--fix|-f)$/, ignore: '.markdownlintignore' },
  'markdownlint-cli2': { exts: /\.(?:md|markdown)$/i, write: /^--fix$/, ignore: '.markdownlintignore', all: true },
  yamlfmt: { exts: /\.ya?ml$/i, check: /^-(?:lint|dry)$/, all: true },
  taplo: { exts: /\.toml$/i, sub: /^(?:fmt|format)$/, check: /^--check$/, all: true },
  dprint: { exts: /\.(?:md|markdown|ya?ml|toml)$/i, sub: /^fmt$/, all: true },
  deno: { exts: /\.(?:md|markdown|ya?ml)$/i, sub: /^fmt$/, check: /^--check$/, all: true },
};
/** A formatter's options that take a value (the word after them is not a file). */
const FORMAT_VALUES = /^--(?:config|ignore-path|plugin|log-level|parser|cache-location|cache-strategy|stdin-filepath|config-precedence|end-of-line|prose-wrap|tab-width|print-width|ignore|exclude|ext|extensions|wrap|number|conf|formatter|output-file)$|^-[cpx]$/;
/** The stand-in for a file find -exec or xargs hands a command. */
const HANDED = '/waymark-handed-file';
const MAX_FORMATTED = 20_000;
const MAX_SCRIPT = 256 * 1024;
const MAX_COPY = 20_000;

interface Scope {
  /** Possible current folders (more than one after `a || cd b`); undefined when a `cd` went somewhere unknown. */
  cwds: string[] | undefined;
}

class Reader {
  readonly touches: ShellTouch[] = [];
  /** Symbolic links the command makes (`ln -s TARGET LINK`), with the number of touches before each: a later write through LINK writes TARGET. */
  readonly links: { at: number; link: string; target: string }[] = [];
  /** Variables the command sets (assignments, `for`, `read`...): their values are not followed. */
  readonly assigned = new Set<string>();
  readonly unset: string[] = [];
  readonly opaque: string[] = [];
  readonly hidden: string[] = [];
  /** Folders the command makes (mkdir) before what follows runs. */
  private readonly made = new Set<string>();
  depth = 0;

  constructor(private readonly home: string) {}

  stmts(stmts: ShNode[], scope: Scope, input?: Input): Scope {
    for (const s of stmts) scope = this.stmt(s, scope, input);
    return scope;
  }

  /** Paths of a word, resolved against every possible current folder (globs expanded). */
  private paths(w: unknown, scope: Scope, what: string): string[] | undefined {
    const t = wordText(w, this.home) ?? this.withEnvironment(w, scope, what);
    if (!t) {
      this.opaque.push(`${what} comes from an expansion or a command substitution`);
      return undefined;
    }
    return this.resolve(t, scope, what);
  }

  /**
   * A word whose only expansions are plain variables (`$HOME/x`, `"${OUT}"`): their values from the
   * environment the agent runs its commands in (the hook's own; `$PWD` the command's folder).
   * Undefined when one is set by the command itself or is more than a name; a variable set nowhere
   * Waymark can see is said in `unset` (unless the word is only read).
   */
  private withEnvironment(w: unknown, scope: Scope, what: string): WordText | undefined {
    let text = '';
    const missing: string[] = [];
    const part = (p: ShNode): boolean => {
      const t = nodeType(p);
      if (t === 'Lit') text += String(p.Value).replace(/\\(.)/g, '$1');
      else if (t === 'SglQuoted' && !p.Dollar) text += String(p.Value);
      else if (t === 'DblQuoted') return list(p.Parts).every((q) => part(q));
      else if (t === 'ParamExp') {
        const name = (p.Param as ShNode | null)?.Value;
        if (typeof name !== 'string' || !/^[A-Za-z_]\w*$/.test(name) || p.Exp || p.Repl || p.Index || p.Slice || p.Length || p.Excl || p.Names) return false;
        if (this.assigned.has(name)) return false;
        const value = name === 'PWD' ? scope.cwds?.[0] : process.env[name];
        if (value === undefined) missing.push(`$${name}`);
        else text += value;
      } else return false;
      return true;
    };
    if (!w || !list((w as ShNode).Parts).every((p) => part(p))) return undefined;
    if (missing.length) {
      if (!/\breads?\b/.test(what)) this.unset.push(`${what} is named by ${missing.join(', ')}, which this command does not set (a value from an earlier command in the same terminal?)`);
      return undefined;
    }
    return { text, glob: false };
  }

  private resolve(t: WordText, scope: Scope, what: string): string[] | undefined {
    if (!path.isAbsolute(t.text) && !scope.cwds) {
      this.opaque.push(`${what} ${t.text} is relative to a folder a cd made unknown`);
      return undefined;
    }
    const bases = path.isAbsolute(t.text) ? [''] : scope.cwds!;
    const out: string[] = [];
    for (const base of bases) {
      const abs = path.resolve(base || '/', t.text);
      if (!t.glob) out.push(abs);
      else out.push(...expandGlob(abs));
    }
    return out;
  }

  private stmt(s: ShNode, scope: Scope, piped?: Input): Scope {
    const cmd = s.Cmd as ShNode | null;
    const { ops } = load();
    let next = scope;
    const type = cmd ? nodeType(cmd) : '';
    const redirs = list(s.Redirs);
    // What the command's own redirections write (the command's name decides what content is known).
    const callName = type === 'CallExpr' ? commandName(cmd!, this.home) : undefined;
    let heredoc: string | undefined;
    // What the command reads: a pipe, else its own here-document, here-string or `< FILE`.
    let input = piped;
    for (const r of redirs) {
      this.substitutions(r.Word, scope);
      if (ops.heredocs.has(r.Op as number) || r.Op === ops.herestring) {
        const body = r.Op === ops.herestring || !r.Hdoc ? wordText(r.Word, this.home) : wordText(r.Hdoc, this.home);
        heredoc = body?.text;
        input = body ? { text: body.text } : { hidden: 'a here-document built from expansions' };
        if (r.Hdoc) this.substitutions(r.Hdoc, scope);
      } else if (r.Op === ops.input) {
        const t = wordText(r.Word, this.home);
        const text = t && !t.glob ? readSmall(path.resolve(scope.cwds?.[0] ?? '/', t.text)) : undefined;
        input = text !== undefined ? { text } : { hidden: t ? `${t.text}, which cannot be read` : 'a file named by an expansion' };
      }
    }
    for (const r of redirs) {
      const op = r.Op as number;
      const target = wordText(r.Word, this.home);
      const isWrite = ops.writes.has(op) || (op === ops.dupOut && !(target && /^(?:\d+|-)$/.test(target.text)));
      if (!isWrite) continue;
      if (target && /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/.test(target.text)) continue;
      const paths = this.paths(r.Word, scope, 'a redirection target');
      if (!paths) continue;
      const truncates = !/>>/.test(opText(op, ops));
      let content: ShellContent | undefined;
      if (truncates && (!cmd || (callName && [':', 'true'].includes(callName.name) && callName.args.length <= 1))) content = { text: '' };
      else if (truncates && callName?.name === 'cat' && callName.args.length === 1 && heredoc !== undefined) content = { text: heredoc };
      else if (truncates && callName?.name === 'echo' && callName.literal && !callName.args.slice(1).some((a) => a.startsWith('-'))) content = { text: callName.args.slice(1).join(' ') + '\n' };
      for (const p of paths) this.touches.push({ kind: 'write', path: p, how: `${callName?.name ?? ''} ${opText(op, ops)}`.trim(), content });
    }
    if (!cmd) return scope;
    switch (type) {
      case 'CallExpr':
        next = this.call(cmd, scope, heredoc, input);
        break;
      case 'BinaryCmd': {
        const op = cmd.Op as number;
        if (op === ops.and || op === ops.or) {
          const after = this.stmt(cmd.X as ShNode, scope);
          const y = this.stmt(cmd.Y as ShNode, after);
          next = op === ops.or ? union(after, y) : y;
        } else {
          // A pipeline's commands run in subshells: a cd there changes nothing after it.
          this.stmt(cmd.X as ShNode, scope, input);
          this.stmt(cmd.Y as ShNode, scope, this.output(cmd.X as ShNode, scope));
        }
        break;
      }
      case 'Subshell':
        this.stmts(list(cmd.Stmts), scope, input);
        break;
      case 'Block':
        next = this.stmts(list(cmd.Stmts), scope, input);
        break;
      case 'IfClause': {
        let clause: ShNode | null = cmd;
        let acc = scope;
        while (clause) {
          const afterCond = this.stmts(list(clause.Cond), acc);
          acc = union(acc, this.stmts(list(clause.Then), afterCond));
          clause = (clause.Else as ShNode | null) ?? null;
          if (clause && !list(clause.Cond).length) {
            acc = union(acc, this.stmts(list(clause.Then), afterCond));
            clause = null;
          }
        }
        next = acc;
        break;
      }
      case 'WhileClause':
        next = union(scope, this.stmts(list(cmd.Do), this.stmts(list(cmd.Cond), scope)));
        break;
      case 'ForClause':
        this.walkWords(cmd.Loop, scope);
        next = union(scope, this.stmts(list(cmd.Do), scope));
        break;
      case 'CaseClause':
        this.substitutions(cmd.Word, scope);
        for (const item of list(cmd.Items)) next = union(next, this.stmts(list(item.Stmts), scope));
        break;
      case 'FuncDecl':
        // The body runs when the function is called; read it as if it runs here.
        this.stmt(cmd.Body as ShNode, scope);
        break;
      case 'DeclClause':
        // export/declare/local/readonly NAME=VALUE: a variable that names a program.
        for (const a of list(cmd.Args)) {
          const name = (a.Name as ShNode | null)?.Value;
          if (typeof name === 'string') this.assignment(name, a.Value ? wordText(a.Value, this.home)?.text : '', scope);
        }
        this.walkWords(cmd, scope);
        break;
      case 'TimeClause':
      case 'CoprocClause':
        if (cmd.Stmt) next = this.stmt(cmd.Stmt as ShNode, scope);
        break;
      default:
        // Declarations, tests, arithmetic: only their substitutions run commands.
        this.walkWords(cmd, scope);
    }
    return next;
  }

  /** What a command writes to its standard output, when its words say: `cat FILE...`, `echo`/`printf` of literal text. */
  private output(s: ShNode, scope: Scope): Input {
    const cmd = s.Cmd as ShNode | null;
    const c = cmd && nodeType(cmd) === 'CallExpr' && !list(s.Redirs).length ? commandName(cmd, this.home) : undefined;
    if (c?.literal) {
      const args = c.args.slice(1);
      if (c.name === 'cat' && args.length && !args.some((a) => a.startsWith('-'))) {
        const texts = args.map((a) => readSmall(path.resolve(scope.cwds?.[0] ?? '/', a)));
        if (texts.every((t) => t !== undefined)) return { text: texts.join('\n') };
        return { hidden: `cat ${args.join(' ')}, which cannot be read` };
      }
      if (c.name === 'echo' && !args.some((a) => a.startsWith('-'))) return { text: args.join(' ') };
      if (c.name === 'printf' && args.length === 1 && !args[0].includes('%')) return { text: args[0].replace(/\\(.)/g, (_, ch: string) => ({ n: '\n', t: '\t', '\\': '\\' })[ch] ?? ch) };
    }
    // A pattern lists files of the folder before it.
    const lists = c && scope.cwds ? listedFolders(c.name, c.args.slice(1))?.map((d) => (/[*?[]/.test(d) ? d.slice(0, d.search(/[*?[]/)).replace(/[^/]*$/, '') || '.' : d)) : undefined;
    return { hidden: `the output of ${c?.name ?? 'a command'}`, ...(lists && scope.cwds ? { lists: lists.map((d) => path.resolve(scope.cwds![0], d)) } : {}) };
  }

  /** Reads the commands inside `$(...)`, backquotes and `<(...)` in a node (they run in subshells). */
  private substitutions(node: unknown, scope: Scope): void {
    if (!node) return;
    const { sh } = load();
    sh.syntax.Walk(node, (n) => {
      if (!n) return true;
      const t = sh.syntax.NodeType(n);
      if (t === 'CmdSubst' || t === 'ProcSubst') {
        this.stmts(list(n.Stmts), scope);
        return false;
      }
      return true;
    });
  }

  private walkWords(node: unknown, scope: Scope): void {
    this.substitutions(node, scope);
  }

  nested(text: string, scope: Scope, what: string, input?: Input): void {
    if (this.depth > 4) {
      this.opaque.push(`${what} nests too deep to follow`);
      return;
    }
    const { parser } = load();
    let file: ShNode;
    try {
      file = parser.Parse(text, what);
    } catch (e) {
      this.opaque.push(`${what} is not valid shell (${parseMessage(e)})`);
      return;
    }
    this.depth++;
    this.stmts(list(file.Stmts), { cwds: scope.cwds && [...scope.cwds] }, input);
    this.depth--;
  }

  private call(cmd: ShNode, scope: Scope, heredoc: string | undefined, input: Input | undefined): Scope {
    const after = this.command(cmd, scope, heredoc, input);
    // `env -C DIR cmd` runs cmd in DIR; the shell's own folder stays.
    return after.envChdir ? scope : after;
  }

  private command(cmd: ShNode, scope: Scope & { envChdir?: true }, heredoc: string | undefined, input: Input | undefined): Scope & { envChdir?: true } {
    for (const a of list(cmd.Assigns)) {
      this.substitutions(a, scope);
      const name = (a.Name as ShNode | null)?.Value;
      if (typeof name === 'string') this.assignment(name, a.Value ? wordText(a.Value, this.home)?.text : '', scope);
    }
    const words = list(cmd.Args);
    for (const w of words) this.substitutions(w, scope);
    if (!words.length) return scope;
    // Strip wrappers (sudo, env A=b, timeout 5, nice -n 5...): what they run is the command.
    let i = 0;
    for (;;) {
      const t = wordText(words[i], this.home)?.text;
      if (t === undefined || !WRAPPERS.has(path.basename(t))) break;
      const wrapper = path.basename(t);
      i++;
      while (i < words.length) {
        const a = wordText(words[i], this.home)?.text;
        if (a === undefined) break;
        if (wrapper === 'flock' && /^-(?:c|-command)$/.test(a)) {
          // flock LOCK -c TEXT: TEXT runs in a shell.
          const text = wordText(words[i + 1], this.home)?.text;
          if (text === undefined) this.hidden.push('flock -c runs text built from expansions');
          else this.nested(text, scope, 'the text flock -c runs', input);
          return scope;
        }
        if (wrapper === 'env' && /^-(?:S|-split-string)$/.test(a)) {
          // env -S 'TEXT' ARGS: TEXT split into words, then run with ARGS.
          const rest = words.slice(i + 1).map((w) => wordText(w, this.home)?.text);
          if (rest.some((r) => r === undefined)) this.hidden.push('env -S runs text built from expansions');
          else this.nested(rest.join(' '), scope, 'the text env -S runs', input);
          return scope;
        }
        if (wrapper === 'env' && /^-(?:C|-chdir)$/.test(a)) {
          // env -C DIR runs the command in DIR: its paths are relative to it.
          const dir = wordText(words[i + 1], this.home)?.text;
          scope = { cwds: dir === undefined ? undefined : path.isAbsolute(dir) ? [dir] : scope.cwds?.map((c) => path.resolve(c, dir)), envChdir: true };
          i += 2;
          continue;
        }
        if (wrapper === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) this.assignment(a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1), scope);
        if (wrapper === 'npx' && /^-(?:c|-call)$/.test(a)) {
          // npx -c 'TEXT': TEXT runs in a shell.
          const text = wordText(words[i + 1], this.home)?.text;
          if (text === undefined) this.hidden.push('npx -c runs text built from expansions');
          else this.nested(text, scope, 'the text npx -c runs', input);
          return scope;
        }
        if (a.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a) || /^(?:0x[\da-f]+|\d[\d.,-]*[smhd]?)$/i.test(a)) {
          i++;
          if ((WRAPPER_VALUES[wrapper] ?? /^-(?:[nuCgp]|-user|-group)$/).test(a)) i++;
          continue;
        }
        break;
      }
      // flock's first operand is its lock file (then -c TEXT, or the command); sg's its group.
      if (wrapper === 'flock' || wrapper === 'sg') {
        i++;
        const a = wordText(words[i], this.home)?.text;
        if (a !== undefined && /^-(?:c|-command)$/.test(a)) {
          const text = wordText(words[i + 1], this.home)?.text;
          if (text === undefined) this.hidden.push(`${wrapper} -c runs text built from expansions`);
          else this.nested(text, scope, `the text ${wrapper} -c runs`, input);
          return scope;
        }
      }
    }
    // pnpm exec|dlx, yarn exec|dlx, npm exec, bun x: the package's program is the command.
    {
      const runner = wordText(words[i], this.home)?.text;
      const verb = wordText(words[i + 1], this.home)?.text;
      if (runner !== undefined && verb !== undefined && /^(?:pnpm|yarn|npm|bun)$/.test(path.basename(runner)) && /^(?:exec|dlx|x)$/.test(verb)) {
        i += 2;
        while (i < words.length && /^-/.test(wordText(words[i], this.home)?.text ?? '')) i++;
      }
    }
    if (i >= words.length) return scope;
    const nameWord = wordText(words[i], this.home);
    const nameText = nameWord?.text;
    if (nameText === undefined || nameWord!.glob) {
      this.opaque.push(nameText === undefined ? 'the command itself comes from an expansion' : `the command ${nameText} is a pattern`);
      return scope;
    }
    // A package run by npx/bunx/pnpm dlx may carry its version (`prettier@3`): the program is the name.
    const name = path.basename(nameText).replace(/(?<=.)@[^@/]*$/, '');
    const argWords = words.slice(i + 1);
    const args = argWords.map((w) => wordText(w, this.home)?.text);
    if (nameText.includes('/')) {
      // A script run by its path: its shebang says what reads it (none: the shell).
      const text = readSmall(path.resolve(scope.cwds?.[0] ?? '/', nameText));
      if (text !== undefined && !text.includes('\0')) {
        const bang = /^#!\s*(\S+)(?:[ \t]+(?:-\S+[ \t]+)*([^\s-]\S*))?/.exec(text);
        const interp = bang ? path.basename(bang[1]) === 'env' ? (bang[2] ?? '') : path.basename(bang[1]) : 'sh';
        if (SHELLS.has(interp)) this.nested(text, scope, `the script ${nameText}`, input);
        else this.programs.push([text, ...args.map((a) => a ?? '$')].join('\n'));
        return scope;
      }
    }
    const how = name;
    const pathsOf = (ws: unknown[], what = `an argument of ${name}`) => ws.flatMap((w) => this.paths(w, scope, what) ?? []);
    const operands = () => argWords.filter((_, k) => args[k] === undefined || !args[k]!.startsWith('-') || args[k] === '-');

    switch (name) {
      case 'cd':
      case 'pushd': {
        const target = argWords.filter((_, k) => args[k] === undefined || !/^-[LPe@]+$/.test(args[k]!));
        if (!target.length) return { cwds: [this.home] };
        const t = wordText(target[0], this.home);
        if (!t || t.text === '-' || t.glob) return { cwds: undefined };
        if (path.isAbsolute(t.text)) return { cwds: [path.resolve(t.text)] };
        return { cwds: scope.cwds?.map((c) => path.resolve(c, t.text)) };
      }
      case 'popd':
        return { cwds: undefined };
      case 'eval': {
        if (args.some((a) => a === undefined)) this.hidden.push('eval runs text built from expansions');
        else this.nested(args.join(' '), scope, 'the text eval runs', input);
        return scope;
      }
      case 'source':
      case '.': {
        const file = args[0];
        if (file === undefined) this.hidden.push(`${name} runs a script named by an expansion (or a process substitution)`);
        else this.script(path.resolve(scope.cwds?.[0] ?? '/', file), scope, `the script ${file}`);
        return scope;
      }
      case 'su':
      case 'runuser': {
        // su [USER] -c TEXT: TEXT runs in the user's shell.
        const c = args.findIndex((a) => a !== undefined && /^(?:-c|--command|--session-command)$/.test(a));
        const inline = args.find((a) => a?.startsWith('--command=') || a?.startsWith('--session-command='));
        const text = c !== -1 ? args[c + 1] : inline?.replace(/^--[\w-]+=/, '');
        if (c !== -1 && text === undefined) this.hidden.push(`${name} -c runs text built from expansions`);
        else if (text !== undefined) this.nested(text, scope, `the text ${name} -c runs`, input);
        else if (input) this.readsCode(name, input, scope);
        return scope;
      }
      case 'watch': {
        // watch runs its words joined, in a shell.
        const rest = args.filter((a, k) => !(a?.startsWith('-') || /^-[nd]$/.test(args[k - 1] ?? '')));
        if (rest.some((a) => a === undefined)) this.hidden.push('watch runs text built from expansions');
        else this.nested(rest.join(' '), scope, 'the text watch runs');
        return scope;
      }
      case 'xargs':
        this.xargs(argWords, args, scope, input);
        return scope;
      case 'parallel':
        this.parallel(args, scope, input);
        return scope;
      case 'find':
        this.find(args, scope);
        return scope;
      case 'chmod':
      case 'chown':
      case 'chgrp':
      case 'lchown':
      case 'chattr':
      case 'setfacl':
        this.modeChange(name, argWords, args, scope);
        return scope;
      case 'mkdir':
        // A folder this command makes holds only what the command puts in it (a copy of it is judged on those).
        for (let k = 0; k < argWords.length; k++) {
          const a = args[k];
          if (a !== undefined && /^-(?:m|-mode)$/.test(a)) k++;
          else if (a === undefined || !a.startsWith('-')) for (const p of this.paths(argWords[k], scope, 'a folder mkdir makes') ?? []) this.made.add(p);
        }
        return scope;
      case 'apply_patch':
      case 'applypatch':
        this.applyPatch(name, args, scope, input);
        return scope;
      case 'script': {
        // script -c TEXT [LOG]: TEXT runs in a shell; LOG is written.
        const c = args.findIndex((a) => a !== undefined && /^-[a-zA-Z]*c$|^--command$/.test(a));
        if (c !== -1) {
          const text = args[c + 1];
          if (text === undefined) this.hidden.push('script -c runs text built from expansions');
          else this.nested(text, scope, 'the text script -c runs');
        }
        return scope;
      }
      case 'touch': {
        const files: unknown[] = [];
        for (let k = 0; k < argWords.length; k++) {
          const a = args[k];
          if (a !== undefined && /^-[dtr]$/.test(a)) k++;
          else if (a === undefined || !a.startsWith('-')) files.push(argWords[k]);
        }
        for (const p of pathsOf(files)) this.touches.push({ kind: 'write', path: p, how, content: { unchanged: true } });
        return scope;
      }
      case 'tee':
        for (const p of pathsOf(operands())) this.touches.push({ kind: 'write', path: p, how });
        return scope;
      case 'truncate': {
        const files: unknown[] = [];
        let zero = false;
        for (let k = 0; k < argWords.length; k++) {
          const a = args[k];
          if (a !== undefined && /^-[sr]$/.test(a)) {
            zero = a === '-s' && args[k + 1] === '0';
            k++;
          } else if (a !== undefined && a.startsWith('--size=')) zero = a === '--size=0';
          else if (a === undefined || !a.startsWith('-')) files.push(argWords[k]);
        }
        for (const p of pathsOf(files)) this.touches.push({ kind: 'write', path: p, how, content: zero ? { text: '' } : undefined });
        return scope;
      }
      case 'rm':
      case 'unlink':
      case 'shred':
      case 'rmdir':
      case 'srm':
      case 'trash':
      case 'trash-put':
      case 'rimraf':
      case 'del':
      case 'del-cli':
        for (const p of pathsOf(operands())) this.touches.push({ kind: 'delete', path: p, how });
        return scope;
      case 'mv':
      case 'cp':
      case 'install':
      case 'ln':
      case 'rsync':
        this.copyLike(name, argWords, args, scope);
        return scope;
      case 'dd':
        for (let k = 0; k < args.length; k++) {
          const a = args[k];
          if (a === undefined) this.opaque.push('an operand of dd comes from an expansion');
          else if (a.startsWith('of=')) for (const p of this.resolve({ text: a.slice(3), glob: false }, scope, 'dd of=') ?? []) this.touches.push({ kind: 'write', path: p, how: 'dd' });
        }
        return scope;
      case 'git':
        return this.git(argWords, args, scope, input);
      case 'patch':
        this.patch(args, scope, input);
        return scope;
      case 'tar':
      case 'bsdtar':
      case 'gtar':
        this.tar(name, args, scope, input);
        return scope;
      case 'unzip':
      case '7z':
      case '7za':
      case '7zr':
      case 'cpio':
      case 'unrar':
        this.unpack(name, args, scope);
        return scope;
    }
    this.writesByOption(name, argWords, args, scope);
    if (FORMATTERS[name]) {
      this.formatter(name, args, scope);
      return scope;
    }
    if (IN_PLACE_ALWAYS.test(name) || (name === 'yq' && args.some((a) => a !== undefined && /^-(?:i|-inplace)$|^-[a-zA-Z]*i[a-zA-Z]*$/.test(a)))) {
      // Programs that rewrite (or replace, rename) every file they are given.
      const skipFirst = name === 'yq' || /^(?:rename|prename|perl-rename|file-rename)$/.test(name) ? 1 : name === 'sd' ? 2 : 0;
      let seen = 0;
      for (let k = 0; k < argWords.length; k++) {
        const a = args[k];
        if (a !== undefined && a.startsWith('-')) continue;
        if (seen++ < skipFirst) continue;
        for (const p of this.paths(argWords[k], scope, `a file ${name} rewrites`) ?? []) this.touches.push({ kind: 'write', path: p, how: name });
      }
      return scope;
    }
    if (EDITORS.has(name)) {
      // Any file an editor is given it may write (its commands come from -c, a script or the terminal).
      for (let k = 0; k < argWords.length; k++) {
        const a = args[k];
        if (a !== undefined && (a.startsWith('-') || a.startsWith('+'))) continue;
        for (const p of this.paths(argWords[k], scope, `a file ${name} edits`) ?? []) this.touches.push({ kind: 'write', path: p, how: name });
      }
      return scope;
    }
    if (PACKERS.test(name)) {
      // gzip F replaces F by F.gz, gunzip F.gz F by F (unless -c/-k keeps the original).
      if (args.some((a) => a !== undefined && /^-[a-zA-Z]*[ctl]|^--(?:stdout|to-stdout|test|list)$/.test(a))) return scope;
      for (let k = 0; k < argWords.length; k++) {
        const a = args[k];
        if (a !== undefined && a.startsWith('-')) continue;
        for (const p of this.paths(argWords[k], scope, `a file ${name} replaces`) ?? []) {
          this.touches.push({ kind: 'delete', path: p, how: name });
          this.touches.push({ kind: 'write', path: p.replace(/\.(?:gz|tgz|bz2|xz|lzma|zst|lz4|lz|Z)$/, ''), how: name });
        }
      }
      return scope;
    }
    if (SHELLS.has(name)) {
      const c = args.findIndex((a) => a !== undefined && /^-[a-z]*c[a-z]*$/.test(a));
      if (c !== -1) {
        const text = args[c + 1];
        if (text === undefined) this.opaque.push(`${name} -c runs text built from expansions`);
        else this.nested(withPositional(text, args.slice(c + 3)), scope, `the text ${name} -c runs`);
      } else {
        const k = args.findIndex((a) => a === undefined || !a.startsWith('-') || a === '-');
        const file = k === -1 ? undefined : args[k];
        if (k !== -1 && file === undefined) this.hidden.push(`${name} runs a script named by an expansion (or a process substitution)`);
        else if (file !== undefined && file !== '-') this.script(path.resolve(scope.cwds?.[0] ?? '/', file), scope, `the script ${file}`);
        else if (input) this.readsCode(name, input, scope);
        void heredoc;
      }
      return scope;
    }
    if (/^g?sed$/.test(name)) {
      // A sed script writes files (`w FILE`, `s///w FILE`) and runs commands (`e`, `s///e`):
      // such a script is program code, judged as an interpreter's.
      const scripts: string[] = [];
      let given = false;
      for (let k = 0; k < args.length; k++) {
        const a = args[k];
        if (a !== undefined && /^-(?:e|-expression)$/.test(a)) (given = true), scripts.push(args[++k] ?? '$');
        else if (a !== undefined && /^-(?:f|-file)$/.test(a)) (given = true), scripts.push(readSmall(path.resolve(scope.cwds?.[0] ?? '/', args[++k] ?? '')) ?? '$');
        else if (!given && (a === undefined || !a.startsWith('-'))) {
          scripts.push(a ?? '$');
          given = true;
        }
      }
      const code = scripts.join('\n');
      if (/(?:^|[\s;{}\/\d$!])[wWe](?:\s|$)/.test(code)) this.programs.push(code);
    }
    const inPlace = (IN_PLACE.has(name) && args.some((a) => a !== undefined && (/^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place')))) || (/awk$/.test(name) && args.some((a, k) => a === 'inplace' && /^-i$/.test(args[k - 1] ?? '')));
    if (inPlace) {
      // Every operand may be a file it rewrites (the script operand names no file of ours).
      for (let k = 0; k < argWords.length; k++) {
        const a = args[k];
        if (a !== undefined && /^-(?:[ef]|-expression|-file)$/.test(a)) {
          k++;
          continue;
        }
        if (a !== undefined && a.startsWith('-')) continue;
        const ps = this.paths(argWords[k], scope, `a file ${name} edits in place`);
        for (const p of ps ?? []) this.touches.push({ kind: 'write', path: p, how: `${name} -i` });
      }
      return scope;
    }
    if (/^(?:pwsh|powershell)(?:\.exe)?$/i.test(name)) {
      this.powerShell(name, args, scope, input);
      return scope;
    }
    if (/^cmd(?:\.exe)?$/i.test(name)) {
      // Windows' cmd /c|/k|/r TEXT: its language is not read here; judged as a program's code (refused when it names state).
      const at = args.findIndex((a) => a === undefined || /^\/[ckr]$/i.test(a));
      const rest = at === -1 ? [] : args.slice(at + 1);
      if (at !== -1 && (args[at] === undefined || rest.some((r) => r === undefined))) this.hidden.push(`${name} runs text built from expansions`);
      else if (at === -1 && input) this.readsCode(name, input, scope, []);
      this.programs.push(rest.join(' '));
      return scope;
    }
    if (/^wsl(?:\.exe)?$/i.test(name)) {
      // WSL runs the rest of its line in Linux's shell (`-e`/`--exec`: as a program, no shell): read as that command.
      let k = 0;
      let cwds = scope.cwds;
      for (; k < args.length; k++) {
        const a = args[k];
        if (a === undefined) break;
        if (/^(?:-d|--distribution|-u|--user|--shell-type)$/.test(a)) k++;
        else if (a === '--cd') {
          const d = args[++k];
          cwds = d === undefined ? undefined : d === '~' ? [this.home] : path.isAbsolute(d) ? [d] : scope.cwds?.map((c) => path.resolve(c, d));
        } else if (a === '--' || a === '-e' || a === '--exec') {
          k++;
          break;
        } else if (!a.startsWith('-')) break;
      }
      const rest = args.slice(k);
      if (rest.some((r) => r === undefined)) this.hidden.push(`${name} runs a command built from expansions`);
      else if (rest.length) this.nested(rest.map((r) => (/^[\w@%+=:,./-]+$/.test(r!) ? r : `'${r!.replace(/'/g, `'\\''`)}'`)).join(' '), { ...scope, cwds }, `the command ${name} runs`, input);
      return scope;
    }
    if (INTERPRETERS.has(name) || /^python\d/.test(name)) {
      // A program's writes cannot be read from the command line: when its code (inline, fed on
      // stdin, or its script file) names state, the judge refuses it.
      // Code Waymark cannot read (from an expansion, a pipe it cannot follow, a script that is not
      // there) cannot be judged at all.
      const code: string[] = [];
      let sawCode = false;
      const codeFirst = /awk$|^jq$|^yq$/.test(name);
      for (let k = 0; k < args.length; k++) {
        const a = args[k];
        if (a === undefined) {
          if (!sawCode) this.hidden.push(`${name} runs code built from expansions`);
          sawCode = true;
          code.push('$');
        } else if ((/^-(?:c|e|E|-eval|-command|r)$/i.test(a) || (/^(?:node|nodejs|bun)$/.test(name) && /^-(?:p|-print)$/.test(a))) && !codeFirst) {
          sawCode = true;
          if (args[k + 1] === undefined) this.hidden.push(`${name} ${a} runs code built from expansions`);
          else code.push(args[k + 1]!);
          k++;
        } else if (a === '-m' || (a === '-f' && codeFirst)) {
          sawCode = true;
          const f = args[k + 1];
          if (a === '-f' && f !== undefined) code.push(readSmall(path.resolve(scope.cwds?.[0] ?? '/', f)) ?? f);
          k++;
        } else if (!a.startsWith('-') || a === '-') {
          if (!sawCode && codeFirst) code.push(a);
          else if (!sawCode && a !== '-') {
            const f = path.resolve(scope.cwds?.[0] ?? '/', a);
            const text = readSmall(f);
            if (text !== undefined) code.push(text);
            // A path to a script that is not there (a word like `run` or `install` is a subcommand).
            else if (/[/.]/.test(a) && !fs.existsSync(f)) this.hidden.push(`the script ${a} that ${name} runs is not there to read`);
          } else if (!sawCode && input) this.readsCode(name, input, scope, code);
          code.push(a);
          sawCode = true;
        }
      }
      if (!sawCode && input && STDIN_CODE.test(name)) this.readsCode(name, input, scope, code);
      this.programs.push(code.join('\n'));
      return scope;
    }
    return scope;
  }

  /** NAME=VALUE (an assignment, export, env): a variable that names a program is read as the command it runs. */
  private assignment(name: string, value: string | undefined, scope: Scope): void {
    this.assigned.add(name);
    if (PROGRAM_VARS.test(name)) {
      if (value === undefined) this.hidden.push(`${name} names a program built from expansions`);
      else if (value.replace(/^\|\|?/, '').trim()) this.nested(value.replace(/^\|\|?/, ''), scope, `the program ${name} names`);
    } else if (name === 'BASH_ENV' || name === 'ENV') {
      if (value === undefined) this.hidden.push(`${name} names a script built from expansions`);
      else if (value) this.script(path.resolve(scope.cwds?.[0] ?? '/', value), scope, `the script ${name} names`);
    } else if (/^LD_(?:PRELOAD|AUDIT)$/.test(name) && value !== '') {
      this.hidden.push(`${name} loads a library into every program the command runs`);
    } else if (name === 'GIT_CONFIG_PARAMETERS') {
      if (value === undefined) this.hidden.push('GIT_CONFIG_PARAMETERS is built from expansions');
      else for (const m of value.matchAll(/'([^']*)'(?:='([^']*)')?/g)) this.gitConfig(m[1], m[2] ?? '', scope, `the value of ${m[1]} in GIT_CONFIG_PARAMETERS`);
    } else if (/^GIT_CONFIG_(?:KEY|VALUE)_\d+$/.test(name)) {
      const n = name.replace(/^GIT_CONFIG_(?:KEY|VALUE)_/, '');
      const pair = this.gitEnv.get(n) ?? {};
      if (name.includes('_KEY_')) pair.key = value;
      else pair.value = value ?? '\0';
      this.gitEnv.set(n, pair);
      if (pair.key !== undefined && pair.value !== undefined) this.gitConfig(pair.key, pair.value === '\0' ? undefined : pair.value, scope, `the value of ${pair.key} in GIT_CONFIG_VALUE_${n}`);
    }
  }

  private readonly gitEnv = new Map<string, { key?: string; value?: string }>();

  /** A git configuration value: when git runs it (an alias, an editor, a pager, a hooks folder), read as what it runs. */
  private gitConfig(key: string, value: string | undefined, scope: Scope, what: string): void {
    const k = key.toLowerCase();
    if (!GIT_PROGRAM_KEYS.test(k)) return;
    if (value === undefined) {
      this.hidden.push(`${what} is built from expansions`);
      return;
    }
    if (k === 'core.hookspath') this.hooksFolder(path.resolve(scope.cwds?.[0] ?? '/', value), scope);
    else if (k.startsWith('alias.') && !value.startsWith('!')) this.nested(`git ${value}`, scope, what);
    else this.nested(value.replace(/^!/, ''), scope, what);
  }

  /** The hooks git runs from a folder: each read as the script it is (a folder not there hides them). */
  private hooksFolder(dir: string, scope: Scope): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      this.hidden.push(`the git hooks folder ${dir} is not there to read`);
      return;
    }
    for (const n of names) if (!n.endsWith('.sample')) this.nested(shellQuote(path.join(dir, n)), scope, `the git hook ${n}`);
  }

  /**
   * Whether a command handed files by find -exec or xargs writes them: read with a stand-in for the
   * file; what it does to other files is kept as found.
   */
  private handed(words: string[], scope: Scope, what: string): boolean {
    const probe = new Reader(this.home);
    probe.depth = this.depth;
    probe.nested(words.map(shellQuote).join(' '), scope, what);
    const isHanded = (p: string) => p === HANDED || p.startsWith(`${HANDED}/`) || p.startsWith(`${HANDED}.`);
    this.touches.push(...probe.touches.filter((t) => !isHanded(t.path)));
    this.opaque.push(...probe.opaque.filter((o) => !o.includes(HANDED)));
    this.hidden.push(...probe.hidden.filter((o) => !o.includes(HANDED)));
    this.programs.push(...probe.programs.map((c) => c.split(HANDED).join('{}')));
    return probe.touches.some((t) => isHanded(t.path)) || [...probe.opaque, ...probe.hidden].some((o) => o.includes(HANDED));
  }

  /** find START... EXPR: -delete, or -exec/-execdir/-ok CMD that writes the files handed to it, writes every file it finds. */
  private find(args: (string | undefined)[], scope: Scope): void {
    let k = 0;
    while (k < args.length && args[k] !== undefined && /^-(?:[HLP]|D|O\d*)$/.test(args[k]!)) k += args[k] === '-D' ? 2 : 1;
    const starts: (string | undefined)[] = [];
    while (k < args.length && !(args[k] !== undefined && /^[-(!]/.test(args[k]!) && args[k] !== '-')) starts.push(args[k++]);
    const expr = args.slice(k);
    const names: RegExp[] = [];
    const plainAnd = !expr.some((a) => a !== undefined && /^(?:-o|-or|!|-not|\(|\))$/.test(a));
    let writes: string | undefined;
    for (let j = 0; j < expr.length; j++) {
      const a = expr[j];
      if (a === undefined) continue;
      if (/^-i?name$/.test(a) && plainAnd && expr[j + 1] !== undefined) names.push(shellPattern(expr[++j]!, a === '-iname'));
      else if (a === '-delete') writes = 'find -delete';
      else if (/^-(?:fprint0?|fprintf|fls)$/.test(a)) {
        const f = expr[++j];
        if (f !== undefined) for (const p of this.resolve({ text: f, glob: false }, scope, `the file find ${a} writes`) ?? []) this.touches.push({ kind: 'write', path: p, how: `find ${a}` });
      } else if (/^-(?:exec|execdir|ok|okdir)$/.test(a)) {
        const end = expr.findIndex((w, m) => m > j && (w === ';' || w === '+'));
        const cmd = expr.slice(j + 1, end === -1 ? undefined : end);
        j = end === -1 ? expr.length : end;
        if (!cmd.length) continue;
        if (cmd.some((w) => w === undefined)) {
          this.opaque.push(`find ${a} runs a command built from expansions`);
          continue;
        }
        if (this.handed((cmd as string[]).map((w) => w.split('{}').join(HANDED)), scope, `the command find ${a} runs`)) writes = `find ${a} ${cmd[0]}`;
      }
    }
    if (!writes) return;
    for (const st of starts.length ? starts : ['.']) {
      if (st === undefined) {
        this.opaque.push('find starts from a folder named by an expansion');
        continue;
      }
      for (const p of this.resolve({ text: st, glob: false }, scope, 'a folder find searches') ?? []) this.touches.push({ kind: 'tree', path: p, how: writes, ...(names.length ? { names } : {}) });
    }
  }

  /** xargs [OPTIONS] CMD ARGS: CMD run on the words of its input; a literal input is read as the commands it makes. */
  private xargs(argWords: ShNode[], args: (string | undefined)[], scope: Scope, input: Input | undefined): void {
    void argWords;
    let k = 0;
    let replace: string | undefined;
    let sep: 'nul' | 'line' | 'space' = 'space';
    let argFile: string | undefined;
    for (; k < args.length; k++) {
      const a = args[k];
      if (a === undefined) break;
      if (a === '-I') (replace = args[++k] ?? '{}'), (sep = 'line');
      else if (/^-I./.test(a)) (replace = a.slice(2)), (sep = 'line');
      else if (a.startsWith('--replace')) (replace = a.includes('=') ? a.slice(a.indexOf('=') + 1) : '{}'), (sep = 'line');
      else if (/^-i/.test(a)) (replace = a.slice(2) || '{}'), (sep = 'line');
      else if (a === '-0' || a === '--null') sep = 'nul';
      else if (a === '-a' || a === '--arg-file') argFile = args[++k];
      else if (a.startsWith('--arg-file=')) argFile = a.slice(11);
      else if (/^-[dLnPsEe]$/.test(a) || /^--(?:delimiter|max-lines|max-args|max-procs|max-chars|eof)$/.test(a)) {
        if (a === '-L' || a === '-d' || a === '--delimiter') sep = sep === 'nul' ? sep : 'line';
        k++;
      } else if (!a.startsWith('-')) break;
    }
    const cmd = args.slice(k);
    if (!cmd.length) cmd.push('echo');
    if (cmd.some((a) => a === undefined)) {
      this.opaque.push('xargs runs a command built from expansions');
      return;
    }
    const words = cmd as string[];
    const text = argFile !== undefined ? readSmall(path.resolve(scope.cwds?.[0] ?? '/', argFile)) : input && 'text' in input ? input.text : undefined;
    if (text !== undefined) {
      const items = (sep === 'nul' ? text.split('\0') : sep === 'line' ? text.split('\n') : text.split(/\s+/)).map((x) => x.trim()).filter(Boolean).slice(0, 500);
      const cmds = replace !== undefined ? items.map((it) => words.map((w) => w.split(replace!).join(it))) : [[...words, ...items]];
      for (const c of cmds) this.nested(c.map(shellQuote).join(' '), scope, 'the command xargs runs');
      return;
    }
    if (!this.handed(replace !== undefined ? words.map((w) => w.split(replace!).join(HANDED)) : [...words, HANDED], scope, 'the command xargs runs')) return;
    // Files a lister names (git ls-files docs, find docs, grep -rl x docs): any file under its folders.
    if (input && 'lists' in input && input.lists) for (const d of input.lists) this.touches.push({ kind: 'tree', path: d, how: `xargs ${words[0]}` });
    else this.opaque.push(`xargs takes the files ${words[0]} works on from its input`);
  }

  /** parallel [OPTIONS] CMD ::: ARGS: CMD run on each argument (`{}` stands for it), else on its input's lines. */
  private parallel(args: (string | undefined)[], scope: Scope, input: Input | undefined): void {
    let k = 0;
    while (k < args.length && args[k] !== undefined && args[k]!.startsWith('-') && !/^:::/.test(args[k]!)) k += /^-(?:[jPSnNaI]|-jobs|-sshlogin|-arg-file)$/.test(args[k]!) ? 2 : 1;
    const sepAt = args.findIndex((a, j) => j >= k && a !== undefined && /^::::?\+?$/.test(a));
    const cmd = args.slice(k, sepAt === -1 ? undefined : sepAt);
    if (!cmd.length || cmd.some((a) => a === undefined)) {
      this.opaque.push('parallel runs a command built from expansions');
      return;
    }
    const words = cmd as string[];
    let items: string[] | undefined;
    if (sepAt !== -1) {
      const rest = args.slice(sepAt + 1);
      const end = rest.findIndex((a) => a !== undefined && /^::::?\+?$/.test(a));
      const group = rest.slice(0, end === -1 ? undefined : end);
      const fromFiles = args[sepAt]!.startsWith('::::');
      if (group.some((a) => a === undefined)) items = undefined;
      else if (fromFiles) {
        const texts = (group as string[]).map((f) => readSmall(path.resolve(scope.cwds?.[0] ?? '/', f)));
        items = texts.some((t) => t === undefined) ? undefined : texts.join('\n').split('\n').filter(Boolean);
      } else items = group as string[];
    } else if (input && 'text' in input) items = input.text.split('\n').filter(Boolean);
    const run = (it: string) => (words.some((w) => w.includes('{}')) ? words.map((w) => w.split('{}').join(it)) : [...words, it]);
    if (items) {
      for (const it of items.slice(0, 500)) this.nested(run(it).map(shellQuote).join(' '), scope, 'the command parallel runs');
      return;
    }
    if (this.handed(run(HANDED), scope, 'the command parallel runs')) this.opaque.push(`parallel takes the files ${words[0]} works on from its input`);
  }

  /**
   * chmod, chown, chgrp, chattr, setfacl: a mode, owner or attribute change. One that may take the
   * owner's read or write away (or hands the file to another owner, makes it immutable) leaves
   * Waymark unable to read or write state: a write of the file. Adding permissions passes.
   */
  private modeChange(name: string, argWords: ShNode[], args: (string | undefined)[], scope: Scope): void {
    const files: unknown[] = [];
    let harmful = name === 'chown' || name === 'chgrp' || name === 'lchown';
    let mode: string | undefined;
    const modes: string[] = [];
    for (let k = 0; k < argWords.length; k++) {
      const a = args[k];
      if (name === 'chmod' && mode === undefined && a !== undefined && (/^[0-7]{1,4}$/.test(a) || /^[ugoa]*[-+=][rwxXstugo]*(?:,[ugoa]*[-+=][rwxXstugo]*)*$/.test(a))) {
        mode = a;
        continue;
      }
      if (name === 'chattr' && a !== undefined && /^[-+=][aAcCdDeEFijmPsStTux]+$/.test(a) && !/^-[RVf]+$/.test(a)) {
        modes.push(a);
        continue;
      }
      if (a !== undefined && a.startsWith('--reference')) {
        harmful = true;
        if (a === '--reference') k++;
        continue;
      }
      if (name === 'setfacl' && a !== undefined && /^-(?:[mMxX]|-set|-set-file|-modify|-modify-file|-remove|-remove-file)$/.test(a)) {
        modes.push(a);
        k++;
        continue;
      }
      if (name === 'chattr' && a !== undefined && /^-[vp]$/.test(a)) {
        k++;
        continue;
      }
      if (a !== undefined && a.startsWith('-')) {
        if (name === 'setfacl') modes.push(a);
        continue;
      }
      // chown OWNER FILE..., chgrp GROUP FILE...: the first operand is not a file.
      if ((name === 'chown' || name === 'chgrp' || name === 'lchown') && mode === undefined && !args.some((x) => x?.startsWith('--reference'))) {
        mode = a ?? '$';
        continue;
      }
      files.push(argWords[k]);
    }
    if (name === 'chmod') harmful ||= mode === undefined || !modeKeepsOwnerReadWrite(mode);
    if (name === 'chattr') harmful ||= modes.some((m) => !m.startsWith('-'));
    if (name === 'setfacl') harmful ||= modes.some((m) => !/^-(?:[xXbk]|-remove.*)$/.test(m) && !/^-[Rd]+$/.test(m));
    if (!harmful) return;
    for (const p of files.flatMap((w) => this.paths(w, scope, `a file ${name} changes`) ?? [])) this.touches.push({ kind: 'write', path: p, how: name });
  }

  /** apply_patch run as a command (Codex runs `apply_patch <<'EOF' ... EOF` itself): the files its envelope writes. */
  private applyPatch(name: string, args: (string | undefined)[], scope: Scope, input: Input | undefined): void {
    const text = args.length ? args[0] : input && 'text' in input ? input.text : undefined;
    if (text === undefined) {
      this.hidden.push(`${name} reads its patch from ${args.length ? 'an expansion' : input && 'hidden' in input ? input.hidden : 'the terminal'}`);
      return;
    }
    let ops;
    try {
      ops = parseApplyPatch(text);
    } catch (e) {
      this.opaque.push(`the patch ${name} applies cannot be read (${(e as Error).message})`);
      return;
    }
    const cwd = scope.cwds?.[0] ?? '/';
    for (const op of ops) {
      const at = path.resolve(cwd, op.path);
      if (op.type === 'add') this.touches.push({ kind: 'write', path: at, how: name, content: { text: op.content } });
      else if (op.type === 'delete') this.touches.push({ kind: 'delete', path: at, how: name });
      else {
        const before = readSmall(at);
        const after = before === undefined ? undefined : applyHunks(before, op.hunks);
        if (op.moveTo) this.touches.push({ kind: 'delete', path: at, how: name });
        this.touches.push({ kind: 'write', path: op.moveTo ? path.resolve(cwd, op.moveTo) : at, how: name, ...(after !== undefined ? { content: { text: after } } : {}) });
      }
    }
  }

  /** Files a program writes through an output option (`-o F`, `--output=F`, wget -O, curl -O, uniq IN OUT). */
  private writesByOption(name: string, argWords: ShNode[], args: (string | undefined)[], scope: Scope): void {
    if (NO_OUTPUT_OPTION.test(name)) return;
    const out = (p: string[] | undefined, how: string) => {
      for (const x of p ?? []) this.touches.push({ kind: 'write', path: x, how });
    };
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (a === undefined) continue;
      if (/^(?:-o|--output|--output-file|--outfile|--out-file|--output-document|--out|-outfile)$/.test(a) || (name === 'wget' && /^-[a-zA-Z]*O$/.test(a)) || (name === 'curl' && /^-[a-zA-Z]*o$/.test(a)) || (name === 'openssl' && a === '-out')) {
        if (argWords[k + 1] !== undefined) out(this.paths(argWords[k + 1], scope, `the file ${name} ${a} writes`), `${name} ${a}`);
        k++;
      } else if (/^--(?:output|output-file|outfile|out-file|output-document|out)=/.test(a)) out(this.resolve({ text: a.slice(a.indexOf('=') + 1), glob: false }, scope, `the file ${name} writes`), `${name} ${a.slice(0, a.indexOf('='))}`);
    }
    if (name === 'curl' && args.some((a) => a !== undefined && /^(?:-[a-zA-Z]*O[a-zA-Z]*|--remote-name(?:-all)?)$/.test(a))) {
      // curl -O URL: the file named as the URL's last part, in the current folder.
      for (const a of args) {
        const m = a === undefined ? null : /^[a-z]+:\/\/[^/?#]+\/(?:[^?#]*\/)?([^/?#]+)/i.exec(a);
        if (m) out(this.resolve({ text: decodeURIComponent(m[1]), glob: false }, scope, 'the file curl -O writes'), 'curl -O');
      }
    }
    if (name === 'wget' && args.some((a) => a !== undefined && /^(?:-[a-zA-Z]*N[a-zA-Z]*|--timestamping)$/.test(a)) && !args.some((a) => a !== undefined && /^(?:-[a-zA-Z]*O|--output-document)/.test(a))) {
      // wget -N URL: the file named as the URL's last part, replaced when the server's is newer.
      for (const a of args) {
        const m = a === undefined ? null : /^[a-z]+:\/\/[^/?#]+\/(?:[^?#]*\/)?([^/?#]+)/i.exec(a);
        if (m) out(this.resolve({ text: decodeURIComponent(m[1]), glob: false }, scope, 'the file wget -N writes'), 'wget -N');
      }
    }
    if (name === 'uniq') {
      const ops = argWords.filter((_, k) => args[k] === undefined || !args[k]!.startsWith('-') || args[k] === '-');
      if (ops.length >= 2) out(this.paths(ops[1], scope, 'the file uniq writes'), 'uniq');
    }
  }

  /** A formatter: every file of its types under what it is given, less what its ignore files leave out. */
  private formatter(name: string, args: (string | undefined)[], scope: Scope): void {
    const f = FORMATTERS[name];
    let k = 0;
    if (f.sub) {
      const sub = args.findIndex((a) => a !== undefined && !a.startsWith('-'));
      if (sub === -1 || !f.sub.test(args[sub]!)) return;
      k = sub + 1;
    }
    const opts = args.slice(k).filter((a): a is string => a !== undefined && a.startsWith('-'));
    if (f.write && !opts.some((o) => f.write!.test(o) || /^--(?:write|fix)=/.test(o))) return;
    if (f.check && opts.some((o) => f.check!.test(o))) return;
    const targets: (string | undefined)[] = [];
    for (let j = k; j < args.length; j++) {
      const a = args[j];
      if (a !== undefined && FORMAT_VALUES.test(a)) j++;
      else if (a === undefined || !a.startsWith('-')) targets.push(a);
    }
    if (!targets.length && f.all) targets.push('.');
    const cwd = scope.cwds?.[0];
    if (!cwd) {
      this.opaque.push(`${name} runs in a folder a cd made unknown`);
      return;
    }
    const how = `${name}, which rewrites the ${name === 'taplo' ? 'TOML' : 'Markdown and YAML'} files it is given`;
    const files: string[] = [];
    for (const t of targets) {
      if (t === undefined) {
        this.opaque.push(`a path ${name} formats comes from an expansion`);
        continue;
      }
      const globAt = t.search(/[*?[{]/);
      const base = globAt === -1 ? path.resolve(cwd, t) : path.resolve(cwd, t.slice(0, t.lastIndexOf('/', globAt) + 1) || '.');
      const match = globAt === -1 ? undefined : globRegex(path.resolve(cwd, t));
      if (isRegularFile(base)) {
        files.push(base);
        continue;
      }
      const found = formattable(base, f.exts);
      if (!found) {
        this.touches.push({ kind: 'tree', path: base, how });
        continue;
      }
      files.push(...found.filter((p) => !match || match.test(p)));
    }
    const ignored = f.ignore || files.length ? gitIgnored(cwd, files, f.ignore) : new Set<string>();
    for (const p of files) if (!ignored.has(p)) this.touches.push({ kind: 'tree', path: p, how });
  }

  /** Code of programs the command runs (interpreters), for the judge to look for state names in. */
  readonly programs: string[] = [];

  private script(file: string, scope: Scope, what: string): void {
    const text = readSmall(file);
    if (text === undefined) {
      // A script too large to read is still a file the user has; one that is not there (or not a file) hides its code.
      if (isRegularFile(file)) this.opaque.push(`${what} cannot be read`);
      else this.hidden.push(`${what} is not a file Waymark can read`);
      return;
    }
    this.nested(text, scope, what);
  }

  /** A shell or interpreter that reads its code from standard input: judged on that text when it is known. */
  /**
   * `pwsh` / `powershell` (.exe): the code it runs, by PowerShell's own switches (any unambiguous
   * prefix, any case): `-Command` (the rest of the line), `-EncodedCommand` (Base64 of UTF-16LE
   * text, decoded here), `-File` (a script, read); a first word that is no switch is `-File` for
   * pwsh and `-Command` for Windows PowerShell. Judged as any program's code: refused when it names state.
   */
  private powerShell(name: string, args: (string | undefined)[], scope: Scope, input: Input | undefined): void {
    const code: string[] = [];
    const script = (f: string) => {
      const text = readSmall(path.resolve(scope.cwds?.[0] ?? '/', f));
      if (text === undefined) this.hidden.push(`the script ${f} that ${name} runs is not there to read`);
      else code.push(text);
    };
    const withValue = /^-(?:ex|executionpolicy|wd|workingdirectory|o|outputformat|inputformat|if|of|config|configurationname|w|windowstyle|v|version|psconsolefile|custompipename|settingsfile|encodedarguments|ea)$/i;
    let sawCode = false;
    for (let k = 0; k < args.length && !sawCode; k++) {
      const a = args[k];
      if (a === undefined) {
        this.hidden.push(`${name} runs code built from expansions`);
        sawCode = true;
      } else if (/^[-/](?:c|co|com|comm|comma|comman|command)$/i.test(a) || (!a.startsWith('-') && !/^pwsh/i.test(name))) {
        const rest = args.slice(a.startsWith('-') || a.startsWith('/') ? k + 1 : k);
        if (rest.some((r) => r === undefined)) this.hidden.push(`${name} ${a} runs code built from expansions`);
        else if (rest.length === 1 && rest[0] === '-' && input) this.readsCode(name, input, scope, code);
        else code.push(rest.join(' '));
        sawCode = true;
      } else if (/^[-/](?:e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedco|encodedcom|encodedcomm|encodedcomma|encodedcomman|encodedcommand)$/i.test(a)) {
        const b64 = args[k + 1];
        if (b64 === undefined || !/^[A-Za-z0-9+/=]+$/.test(b64)) this.hidden.push(`${name} ${a} runs encoded code Waymark cannot read`);
        else code.push(Buffer.from(b64, 'base64').toString('utf16le'));
        sawCode = true;
      } else if (/^[-/](?:f|fi|fil|file)$/i.test(a) || !a.startsWith('-')) {
        const f = /^[-/]/.test(a) ? args[k + 1] : a;
        if (f === undefined) this.hidden.push(`${name} ${a} runs a script named by an expansion`);
        else if (f !== '-') script(f);
        else if (input) this.readsCode(name, input, scope, code);
        sawCode = true;
      } else if (withValue.test(a)) k++;
    }
    if (!sawCode && input) this.readsCode(name, input, scope, code);
    this.programs.push(code.join('\n'));
  }

  private readsCode(name: string, input: Input, scope: Scope, code?: string[]): void {
    if ('hidden' in input) this.hidden.push(`${name} runs code read from ${input.hidden}`);
    else if (code) code.push(input.text);
    else this.nested(input.text, scope, `the script fed to ${name}`);
  }

  private copyLike(name: string, argWords: ShNode[], args: (string | undefined)[], scope: Scope): void {
    let targetDir: unknown;
    let targetDirText: string | undefined;
    const ops: unknown[] = [];
    for (let k = 0; k < argWords.length; k++) {
      const a = args[k];
      if (a !== undefined && /^-(?:t|-target-directory)$/.test(a)) {
        targetDir = argWords[++k];
        continue;
      }
      if (a !== undefined && a.startsWith('--target-directory=')) {
        targetDirText = a.slice('--target-directory='.length);
        continue;
      }
      if (a !== undefined && /^-(?:S|-suffix|-backup|m|o|g|-mode|-owner|-group)$/.test(a) && name === 'install') {
        k++;
        continue;
      }
      if (a !== undefined && a.startsWith('-')) continue;
      ops.push(argWords[k]);
    }
    const moves = name === 'mv';
    const recursive = moves || args.some((a) => a !== undefined && (/^-[a-zA-Z]*[rRa]/.test(a) || /^--(?:recursive|archive)$/.test(a)));
    const destWord = targetDir ?? (targetDirText === undefined && ops.length > 1 ? ops.pop() : undefined);
    // `SRC/.` (or `.`) copies SRC's contents, not SRC itself.
    const contentsOf = new Set<string>();
    const written = new Map<string, string>();
    const sources = ops.flatMap((w) => {
      const ps = this.paths(w, scope, `a file ${name} reads`) ?? [];
      const t = wordText(w, this.home)?.text;
      if (t !== undefined && /(?:^|\/)\.\/?$/.test(t)) for (const p of ps) contentsOf.add(p);
      if (t !== undefined) for (const p of ps) written.set(p, t);
      return ps;
    });
    const symbolic = name === 'ln' && args.some((a) => a !== undefined && (/^-[a-zA-Z]*s/.test(a) || a === '--symbolic'));
    if (name === 'rsync') {
      for (const d of destWord ? (this.paths(destWord, scope, 'the rsync destination') ?? []) : []) this.touches.push({ kind: 'tree', path: d, how: name });
      return;
    }
    if (moves) for (const s of sources) this.touches.push({ kind: 'delete', path: s, how: name });
    // A hard link is the file itself under another name (outside the workspace: no real path leads back).
    const hardLink = (name === 'ln' && !args.some((a) => a !== undefined && (/^-[a-zA-Z]*s/.test(a) || a === '--symbolic'))) || (name === 'cp' && args.some((a) => a !== undefined && (/^-[a-zA-Z]*l/.test(a) || a === '--link')));
    if (hardLink) for (const s of sources) this.touches.push({ kind: 'write', path: s, how: `${name} (a hard link)` });
    const dests = targetDirText !== undefined ? this.resolve({ text: targetDirText, glob: false }, scope, `the ${name} destination`) : destWord ? this.paths(destWord, scope, `the ${name} destination`) : name === 'ln' ? scope.cwds : undefined;
    for (const d of dests ?? []) {
      const intoDir = targetDir !== undefined || targetDirText !== undefined || sources.length > 1 || isDirectory(d) || this.made.has(d);
      for (const s of sources.length ? sources : [undefined]) {
        const dest = intoDir && s && !contentsOf.has(s) ? path.join(d, path.basename(s)) : d;
        if (s && name !== 'ln' && recursive && !isRegularFile(s)) {
          // A folder copied or moved: each of its files lands at its own path, judged as a single
          // file's copy is. A source that cannot be listed (not there yet, unreadable, too large)
          // may bring anything into the folder it lands in.
          const made = !fs.existsSync(s) && [...this.made].some((m) => s === m || s.startsWith(m + path.sep));
          const files = made ? this.touches.filter((t) => t.kind === 'write' && t.path.startsWith(s + path.sep)).map((t) => t.path) : filesOf(s);
          if (files && made) for (const f of files) this.touches.push({ kind: 'write', path: path.join(dest, path.relative(s, f)), how: `${name} -r` });
          else if (files) for (const f of files) this.touches.push({ kind: 'write', path: path.join(dest, path.relative(s, f)), how: `${name} -r`, content: { fromFile: f } });
          else this.touches.push({ kind: 'tree', path: isDirectory(dest) ? dest : d, how: `${name} -r` });
        } else {
          this.touches.push({ kind: 'write', path: dest, how: name, content: s ? { fromFile: s } : undefined });
          // A symbolic link's target is read from the link's folder (as written, not from the cwd).
          const text = s ? written.get(s) : undefined;
          if (symbolic && s && text !== undefined) this.links.push({ at: this.touches.length, link: dest, target: path.isAbsolute(text) ? text : path.resolve(path.dirname(dest), text) });
        }
      }
    }
  }

  /** Files an archive would unpack into `dir` (an unknown tree when its listing cannot be read). */
  private unpacked(how: string, archive: string | undefined, list: (file: string) => string[] | undefined, dirText: string | undefined, scope: Scope, strip = 0): void {
    const dirs = dirText === undefined ? scope.cwds : this.resolve({ text: dirText, glob: false }, scope, `the folder ${how} unpacks into`);
    if (!dirs) return;
    const file = archive === undefined || archive === '-' ? undefined : path.resolve(scope.cwds?.[0] ?? '/', archive);
    const names = file !== undefined && isRegularFile(file) ? list(file) : undefined;
    for (const dir of dirs) {
      if (!names) {
        this.touches.push({ kind: 'tree', path: dir, how, unknown: true });
        continue;
      }
      for (const n of names) {
        const parts = n.split('/').filter((x) => x && x !== '.').slice(strip);
        if (parts.length && !n.endsWith('/')) this.touches.push({ kind: 'write', path: path.resolve(dir, parts.join('/')), how });
      }
    }
  }

  private tar(name: string, args: (string | undefined)[], scope: Scope, input: Input | undefined): void {
    if (args.some((a) => a === undefined)) {
      this.hidden.push(`an argument of ${name} comes from an expansion`);
      return;
    }
    const a = args as string[];
    // The first word may bundle its letters without a dash (tar xzf A); f takes the next word.
    let mode = '';
    let archive: string | undefined;
    let dir: string | undefined;
    let strip = 0;
    for (let k = 0; k < a.length; k++) {
      const w = a[k];
      const bundle = k === 0 && /^[A-Za-z]+$/.test(w) ? w : /^-[A-Za-z]+$/.test(w) ? w.slice(1) : undefined;
      if (bundle) {
        for (const ch of bundle) if ('xcruAt'.includes(ch)) mode = ch;
        if (bundle.includes('f')) archive = a[++k];
        if (bundle.includes('C')) dir = a[++k];
      } else if (/^--(?:extract|get)$/.test(w)) mode = 'x';
      else if (/^--(?:create|append|update|concatenate|catenate)$/.test(w)) mode = 'c';
      else if (w === '--file' || w === '--directory') (w === '--file' ? (archive = a[++k]) : (dir = a[++k]));
      else if (w.startsWith('--file=')) archive = w.slice(7);
      else if (w.startsWith('--directory=')) dir = w.slice(12);
      else if (w.startsWith('--strip-components=')) strip = Number(w.slice(19)) || 0;
      else if (/^--(?:to-command|use-compress-program|info-script|new-volume-script|checkpoint-action)=/.test(w) || w === '-I' || w === '-F') {
        // Commands tar runs (for each member, to compress, at a checkpoint): read as shell.
        const text = w.startsWith('-') && !w.startsWith('--') ? a[++k] : w.slice(w.indexOf('=') + 1).replace(/^exec=/, '');
        if (text !== undefined) this.nested(text, scope, `the command ${name} runs`);
      }
    }
    void input;
    if (mode === 'x') {
      this.unpacked(`${name} -x`, archive, (f) => listing('tar', ['-tf', f]), dir, scope, strip);
    } else if (mode && mode !== 't' && archive !== undefined && archive !== '-') {
      for (const p of this.resolve({ text: archive, glob: false }, scope, `the archive ${name} writes`) ?? []) this.touches.push({ kind: 'write', path: p, how: name });
    }
  }

  private unpack(name: string, args: (string | undefined)[], scope: Scope): void {
    if (args.some((a) => a === undefined)) {
      this.hidden.push(`an argument of ${name} comes from an expansion`);
      return;
    }
    const a = args as string[];
    if (name === 'unzip') {
      if (a.some((w) => /^-[a-zA-Z]*[lvtzZp]/.test(w))) return;
      const d = a.indexOf('-d');
      const archive = a.find((w, k) => !w.startsWith('-') && a[k - 1] !== '-d' && a[k - 1] !== '-x');
      this.unpacked('unzip', archive, (f) => listing('unzip', ['-Z1', f]), d === -1 ? undefined : a[d + 1], scope);
      return;
    }
    if (name === 'cpio') {
      if (a.some((w) => /^-[a-zA-Z]*i|^--extract$/.test(w))) this.unpacked('cpio -i', undefined, () => undefined, undefined, scope);
      return;
    }
    // 7z x / e, unrar x / e: an output folder from -oDIR (7z) or the last operand (unrar).
    const cmd = a.find((w) => !w.startsWith('-'));
    if (cmd === undefined || !/^[xe]$/.test(cmd)) return;
    const out = a.find((w) => w.startsWith('-o'))?.slice(2);
    this.unpacked(`${name} ${cmd}`, undefined, () => undefined, out || undefined, scope);
  }

  /** patch [-pN] [-d DIR] [-i P | < P] [FILE [P]]: the files its diff names. */
  private patch(args: (string | undefined)[], scope: Scope, input: Input | undefined): void {
    if (args.some((a) => a === undefined)) {
      this.hidden.push('an argument of patch comes from an expansion');
      return;
    }
    const a = args as string[];
    let strip: number | undefined;
    let dir: string | undefined;
    let patchFile: string | undefined;
    const operands: string[] = [];
    for (let k = 0; k < a.length; k++) {
      const w = a[k];
      if (/^-p\d+$/.test(w)) strip = Number(w.slice(2));
      else if (w === '-p' || w === '--strip') strip = Number(a[++k]);
      else if (w.startsWith('--strip=')) strip = Number(w.slice(8));
      else if (w === '-d' || w === '--directory') dir = a[++k];
      else if (w.startsWith('--directory=')) dir = w.slice(12);
      else if (w === '-i' || w === '--input') patchFile = a[++k];
      else if (w.startsWith('--input=')) patchFile = w.slice(8);
      else if (/^-(?:[oBrVYzDFg]|-output|-reject-file|-suffix)$/.test(w)) k++;
      else if (w === '--dry-run' || w === '-C' || w === '--check') return;
      else if (!w.startsWith('-')) operands.push(w);
    }
    const cwd = scope.cwds?.[0] ?? '/';
    const base = dir === undefined ? cwd : path.resolve(cwd, dir);
    if (operands[0] !== undefined) this.touches.push({ kind: 'write', path: path.resolve(base, operands[0]), how: 'patch' });
    patchFile ??= operands[1];
    const text = patchFile !== undefined ? readSmall(path.resolve(cwd, patchFile)) : input && 'text' in input ? input.text : undefined;
    if (text === undefined) {
      this.hidden.push(patchFile !== undefined ? `the patch ${patchFile} cannot be read` : `patch reads its diff from ${input && 'hidden' in input ? input.hidden : 'the terminal'}`);
      return;
    }
    for (const p of patchPaths(text, strip)) this.touches.push({ kind: 'write', path: path.resolve(base, p), how: 'patch' });
  }

  private git(argWords: ShNode[], args: (string | undefined)[], scope: Scope, input?: Input): Scope {
    let k = 0;
    let cwds = scope.cwds;
    while (k < args.length && args[k]?.startsWith('-')) {
      const a = args[k]!;
      if (a === '-C') {
        const dir = args[k + 1];
        cwds = dir === undefined ? undefined : path.isAbsolute(dir) ? [dir] : cwds?.map((c) => path.resolve(c, dir));
        k += 2;
      } else if (a === '-c') {
        // A config value may be a command git runs (an alias `!...`, core.pager, core.editor,
        // core.sshCommand, diff.external...): read as shell, like any command.
        const v = args[k + 1];
        if (v === undefined) this.hidden.push('git -c sets a value built from expansions');
        else if (v.includes('=')) this.gitConfig(v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1), { cwds }, `the value of git -c ${v.slice(0, v.indexOf('='))}`);
        k += 2;
      } else if (a.startsWith('--config-env=')) {
        // --config-env=KEY=VAR: the value comes from the environment when git runs.
        const kv = a.slice('--config-env='.length);
        if (GIT_PROGRAM_KEYS.test(kv.slice(0, kv.lastIndexOf('=')).toLowerCase())) this.hidden.push(`git ${a} takes a program from the environment`);
        k++;
      } else if (a === '--git-dir' || a === '--work-tree' || a === '--namespace') k += 2;
      else k++;
    }
    const sub = args[k];
    if (sub === undefined) {
      if (k < args.length) this.opaque.push('the git command comes from an expansion');
      return scope;
    }
    const rest = args.slice(k + 1);
    const restWords = argWords.slice(k + 1);
    const inner: Scope = { cwds };
    if (rest.some((a) => a === undefined) && /^(?:checkout|restore|reset|stash|clean|mv|rm|apply|am|revert)$/.test(sub)) {
      this.opaque.push(`an argument of git ${sub} comes from an expansion`);
      return scope;
    }
    const r = rest as string[];
    const dashdash = r.indexOf('--');
    const opts = dashdash === -1 ? r : r.slice(0, dashdash);
    const afterDash = dashdash === -1 ? [] : r.slice(dashdash + 1);
    const plain = opts.filter((a) => !a.startsWith('-'));
    const tree = (paths: string[], ref: string | undefined, how: string) => {
      const dirs = inner.cwds;
      if (!dirs) {
        this.opaque.push(`git ${sub} runs in a folder a cd made unknown`);
        return;
      }
      for (const cwd of dirs) {
        for (const p of paths.length ? paths : ['.']) this.touches.push({ kind: 'tree', path: path.resolve(cwd, p), how, git: { cwd, ref, paths: paths.length ? paths : ['.'] } });
      }
    };
    const runs = (text: string | undefined, what: string) => {
      if (text === undefined) this.hidden.push(`${what} is built from expansions`);
      else this.nested(text, inner, what);
    };
    switch (sub) {
      case 'config': {
        if (r.some((a) => a === undefined ? false : /^--(?:get|get-all|get-regexp|get-urlmatch|list|unset|unset-all|remove-section|rename-section|edit|show-origin|show-scope|name-only)$|^-[le]$/.test(a))) return scope;
        const words: (string | undefined)[] = [];
        for (let j = 0; j < rest.length; j++) {
          const a = rest[j];
          if (a !== undefined && /^(?:-f|--file|--blob|--type|--default|--comment|--value)$/.test(a)) j++;
          else if (a === undefined || !a.startsWith('-')) words.push(a);
        }
        if (words[0] === 'set') words.shift();
        else if (words[0] !== undefined && /^(?:get|list|unset|rename-section|remove-section|edit)$/.test(words[0])) return scope;
        if (words.length >= 2 && words[0] !== undefined) this.gitConfig(words[0], words[1], inner, `the value git config gives ${words[0]}`);
        return scope;
      }
      case 'rebase':
      case 'difftool':
        for (let j = 0; j < rest.length; j++) {
          const a = rest[j];
          if (a !== undefined && /^(?:-x|--exec|--extcmd)$/.test(a)) runs(rest[++j], `the command git ${sub} ${a} runs`);
          else if (a !== undefined && /^--(?:exec|extcmd)=/.test(a)) runs(a.slice(a.indexOf('=') + 1), `the command git ${sub} runs`);
        }
        return scope;
      case 'bisect':
        if (rest[0] === 'run') runs(rest.slice(1).some((a) => a === undefined) ? undefined : (rest.slice(1) as string[]).map(shellQuote).join(' '), 'the command git bisect run runs');
        return scope;
      case 'submodule': {
        const f = rest.indexOf('foreach');
        if (f !== -1) runs(rest.slice(f + 1).filter((a) => a === undefined || !a.startsWith('-')).some((a) => a === undefined) ? undefined : rest.slice(f + 1).filter((a) => !a!.startsWith('-')).join(' '), 'the command git submodule foreach runs');
        return scope;
      }
      case 'filter-branch':
        for (let j = 0; j < rest.length; j++) if (rest[j] !== undefined && /^--[a-z-]+-filter$/.test(rest[j]!)) runs(rest[++j], `the command git filter-branch ${rest[j - 1]} runs`);
        return scope;
      case 'checkout-index':
        if (opts.includes('-a') || opts.includes('--all')) tree([], undefined, 'git checkout-index');
        else if (opts.some((a) => /^-[a-zA-Z]*f|^--force$/.test(a))) tree([...plain, ...afterDash], undefined, 'git checkout-index');
        return scope;
      case 'switch':
        if (opts.some((a) => /^--discard-changes$|^-f$|^--force$/.test(a))) tree([], undefined, `git switch ${opts.find((a) => a.startsWith('-'))}`);
        return scope;
      case 'checkout': {
        if (opts.some((a) => /^-[bB]$|^--orphan$/.test(a))) return scope;
        // -f: every local change is thrown away, the branch's or HEAD's version put back.
        if (dashdash === -1 && opts.some((a) => a === '-f' || a === '--force')) tree([], undefined, 'git checkout -f');
        if (dashdash !== -1) tree(afterDash, plain[0], `git checkout${plain[0] ? ` ${plain[0]}` : ''} --`);
        else if (plain.length) {
          // Without `--`, git takes the first word for a revision unless it is only a path.
          const firstIsPath = inner.cwds?.some((c) => fs.existsSync(path.resolve(c, plain[0]))) && !isRevision(inner.cwds![0], plain[0]);
          const paths = firstIsPath ? plain : plain.slice(1);
          if (paths.length) tree(paths, firstIsPath ? undefined : plain[0], `git checkout ${firstIsPath ? '' : plain[0]}`.trim());
        }
        return scope;
      }
      case 'restore': {
        const staged = opts.includes('--staged') || opts.includes('-S');
        if (staged && !opts.includes('--worktree') && !opts.includes('-W')) return scope;
        let ref: string | undefined;
        for (let j = 0; j < opts.length; j++) {
          if (opts[j] === '-s' || opts[j] === '--source') ref = opts[j + 1];
          else if (opts[j].startsWith('--source=')) ref = opts[j].slice(9);
        }
        const paths = [...plain.filter((p) => p !== ref), ...afterDash];
        tree(paths, ref, 'git restore');
        return scope;
      }
      case 'reset':
        if (opts.includes('--hard') || opts.includes('--merge') || opts.includes('--keep')) tree(afterDash, plain[0] ?? 'HEAD', 'git reset --hard');
        return scope;
      case 'stash': {
        const action = plain[0];
        if (action && !/^(?:push|save|pop|apply)$/.test(action)) return scope;
        tree(afterDash, undefined, `git stash${action ? ` ${action}` : ''}`);
        return scope;
      }
      case 'clean':
        if (opts.some((a) => /^-[a-zA-Z]*f/.test(a) || a === '--force')) tree([...plain, ...afterDash], undefined, 'git clean');
        return scope;
      case 'rm':
        if (!opts.includes('--cached')) for (const w of restWords.filter((_, j) => !r[j].startsWith('-'))) for (const p of this.paths(w, inner, 'a path of git rm') ?? []) this.touches.push({ kind: 'delete', path: p, how: 'git rm' });
        return scope;
      case 'mv':
        this.copyLike('mv', restWords, rest, inner);
        return scope;
      case 'apply':
      case 'am': {
        if (opts.some((o) => /^--(?:check|stat|numstat|summary|cached|abort|quit|show-current-patch)/.test(o))) return scope;
        const dirs = inner.cwds;
        if (!dirs) {
          this.opaque.push(`git ${sub} runs in a folder a cd made unknown`);
          return scope;
        }
        // Paths in a patch are relative to the top of the repository (-pN strips N parts, 1 by default).
        let strip = 1;
        let directory = '';
        for (const o of opts) {
          if (/^-p\d+$/.test(o)) strip = Number(o.slice(2));
          else if (o.startsWith('--directory=')) directory = o.slice(12);
        }
        const files = [...plain, ...afterDash];
        if (sub === 'am' && opts.some((o) => /^--(?:continue|skip|resolved)$/.test(o))) {
          for (const cwd of dirs) this.touches.push({ kind: 'tree', path: gitTop(cwd), how: `git am`, unknown: true });
          return scope;
        }
        const texts = files.length ? files.map((f) => readSmall(path.resolve(dirs[0], f))) : [input && 'text' in input ? input.text : undefined];
        if (texts.some((t) => t === undefined)) {
          this.hidden.push(files.length ? `the patch ${files.join(' ')} that git ${sub} applies cannot be read` : `git ${sub} reads its patch from ${input && 'hidden' in input ? input.hidden : 'the terminal'}`);
          return scope;
        }
        for (const cwd of dirs) {
          const top = gitTop(cwd);
          for (const t of texts) for (const p of patchPaths(t!, strip)) this.touches.push({ kind: 'write', path: path.resolve(top, directory, p), how: `git ${sub}` });
        }
        return scope;
      }
      case 'merge':
      case 'cherry-pick': {
        // Another branch's files land here: a gate verdict among them is a reviewer's record made
        // elsewhere (or forged there, history line and all: nothing in the files tells the two
        // apart), which opens a gate without a person having seen it arrive. The gate files the
        // ref would change are judged; its other files are ordinary work (workflow files merge as
        // any file does, history through Waymark's merge driver).
        if (opts.some((o) => /^--(?:abort|quit|skip|continue)$/.test(o))) return scope;
        if (!inner.cwds) {
          this.opaque.push(`git ${sub} runs in a folder a cd made unknown`);
          return scope;
        }
        for (const cwd of inner.cwds) {
          const top = gitTop(cwd);
          for (const ref of plain) this.touches.push({ kind: 'tree', path: top, how: `git ${sub} ${ref}`, git: { cwd: top, ref, paths: ['.'] }, names: [/\.gate$/] });
        }
        return scope;
      }
      case 'revert': {
        if (opts.some((o) => /^--(?:abort|quit|skip)$/.test(o))) return scope;
        if (!inner.cwds) {
          this.opaque.push('git revert runs in a folder a cd made unknown');
          return scope;
        }
        // Each commit's changes undone, anywhere in the repository: the files it changed go back to
        // what they were before it (`--continue`: the files of a revert git stopped in, unknown here).
        for (const cwd of inner.cwds) {
          const top = gitTop(cwd);
          if (opts.includes('--continue')) this.touches.push({ kind: 'tree', path: top, how: 'git revert --continue' });
          for (const ref of plain) this.touches.push({ kind: 'tree', path: top, how: 'git revert', git: { cwd: top, ref, paths: ['.'] } });
        }
        return scope;
      }
    }
    if (!GIT_BUILTINS.has(sub) && /^[\w.-]+$/.test(sub) && inner.cwds) {
      // An alias: what it stands for is the command (`!...` runs in a shell).
      const alias = gitAlias(inner.cwds[0], sub);
      if (alias !== undefined) this.nested(alias.startsWith('!') ? alias.slice(1) : `git ${alias} ${r.map(shellQuote).join(' ')}`, inner, `the git alias ${sub}`);
    }
    return scope;
  }
}

/** `sh -c TEXT NAME ARGS...`: TEXT with its positional parameters ($1, "$@") as the literal words given. */
function withPositional(text: string, positional: (string | undefined)[]): string {
  if (!positional.length || positional.some((p) => p === undefined)) return text;
  const words = positional as string[];
  const all = words.map(shellQuote).join(' ');
  return text
    .replace(/"\$[@*]"|\$[@*]|"\$\{[@*]\}"|\$\{[@*]\}/g, all)
    .replace(/"\$\{?([1-9])\}?"|\$\{?([1-9])\}?/g, (m, a: string | undefined, b: string | undefined) => {
      const w = words[Number(a ?? b) - 1];
      return w === undefined ? m : shellQuote(w);
    });
}

/** The folders whose files a listing command prints (git ls-files, find, ls, grep -rl, rg -l, fd); undefined for other commands. */
function listedFolders(name: string, args: string[]): string[] | undefined {
  const operands = args.filter((a) => !a.startsWith('-'));
  switch (name) {
    case 'git': {
      const sub = args.findIndex((a) => a === 'ls-files' || a === 'diff' || a === 'grep');
      if (sub === -1 || (args[sub] !== 'ls-files' && !args.slice(sub).some((a) => /^--name-only$|^-l$|^--files-with-matches$/.test(a)))) return undefined;
      const after = args.slice(sub + 1);
      const dd = after.indexOf('--');
      const paths = dd !== -1 ? after.slice(dd + 1) : args[sub] === 'ls-files' ? after.filter((a) => !a.startsWith('-') && !/[*?[]/.test(a)) : [];
      return paths.length ? paths : ['.'];
    }
    case 'find': {
      const starts: string[] = [];
      for (const a of args) {
        if (/^[-(!]/.test(a)) break;
        starts.push(a);
      }
      return starts.length ? starts : ['.'];
    }
    case 'ls':
    case 'fd':
    case 'fdfind':
      return name === 'ls' ? (operands.length ? operands : ['.']) : operands.length > 1 ? operands.slice(1) : ['.'];
    case 'grep':
    case 'egrep':
    case 'fgrep':
    case 'rg':
    case 'ag': {
      if (!args.some((a) => /^-[a-zA-Z]*[lL]|^--files(?:-with(?:out)?-matches)?$/.test(a))) return undefined;
      const pattern = args.some((a) => a === '-e' || a === '-f' || a === '--files') ? 0 : 1;
      const dirs = operands.slice(pattern);
      return dirs.length ? dirs : ['.'];
    }
  }
  return undefined;
}

/** A word quoted for the shell (as is when it needs no quoting). */
function shellQuote(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** A chmod mode that leaves the owner's read and write in place (numeric with rw for the owner, or only additions). */
function modeKeepsOwnerReadWrite(mode: string): boolean {
  if (/^[0-7]+$/.test(mode)) return mode.length >= 3 && (Number(mode[mode.length - 3]) & 6) === 6;
  return mode.split(',').every((clause) => {
    const m = /^([ugoa]*)([-+=])(.*)$/.exec(clause);
    if (!m) return false;
    const [, who, op, perms] = m;
    const owner = who === '' || /[ua]/.test(who);
    if (!owner || op === '+') return true;
    return op === '-' ? !/[rw]/.test(perms) : /r/.test(perms) && /w/.test(perms);
  });
}

/** A shell pattern (find -name) as a regular expression over a file's name. */
function shellPattern(p: string, ignoreCase: boolean): RegExp {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = p.indexOf(']', i + 2);
      if (end === -1) re += '\\[';
      else {
        re += `[${p.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < p.length) re += p[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, ignoreCase ? 'i' : '');
}

/** A formatter's glob (`**` any folders, `*` within one, `{a,b}`) over absolute paths. */
function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end === -1) re += '\\{';
      else {
        re += `(?:${glob.slice(i + 1, end).split(',').map((x) => x.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')).join('|')})`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The files of a formatter's types under a folder (version control and node_modules left out, as formatters do); undefined when there are too many to list. */
function formattable(dir: string, exts: RegExp): string[] | undefined {
  const out: string[] = [];
  let seen = 0;
  const walk = (d: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const e of entries) {
      if (++seen > MAX_FORMATTED) return false;
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.git' && e.name !== 'node_modules' && !walk(p)) return false;
      } else if (exts.test(e.name)) out.push(p);
    }
    return true;
  };
  return walk(dir) ? out : undefined;
}

/** Which of `files` git's ignore rules (and a formatter's own ignore file, same syntax) leave out; none when git cannot say. */
function gitIgnored(cwd: string, files: string[], ignoreFile: string | undefined): Set<string> {
  if (!files.length) return new Set();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: child_process costs every process milliseconds to load
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const own = ignoreFile ? path.join(cwd, ignoreFile) : undefined;
  const extra = own && isRegularFile(own) ? ['-c', `core.excludesFile=${own}`] : [];
  const r = spawnSync('git', ['-C', cwd, ...extra, 'check-ignore', '--no-index', '-z', '--stdin'], { input: files.join('\0') + '\0', encoding: 'utf8', timeout: 5000, maxBuffer: 64 * 1024 * 1024 });
  // Exit 1: none ignored; anything else but 0: git cannot say (not a repository).
  if (r.status !== 0) return new Set();
  return new Set(r.stdout.split('\0').filter(Boolean).map((n) => path.resolve(cwd, n)));
}

/** A git alias's text, from the configuration git reads in `cwd`; undefined when there is none. */
function gitAlias(cwd: string, name: string): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: child_process costs every process milliseconds to load
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const r = spawnSync('git', ['-C', cwd, 'config', '--get', `alias.${name}`], { encoding: 'utf8', timeout: 5000 });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}

function opText(op: number, ops: Ops): string {
  return op === ops.dupOut ? '>&' : ops.appends.has(op) ? '>>' : '>';
}

function union(a: Scope, b: Scope): Scope {
  if (!a.cwds || !b.cwds) return { cwds: undefined };
  return { cwds: [...new Set([...a.cwds, ...b.cwds])] };
}

/** The command's name and literal arguments, for the content of its redirections. */
function commandName(cmd: ShNode, home: string): { name: string; args: string[]; literal: boolean } | undefined {
  const words = list(cmd.Args);
  if (!words.length) return undefined;
  const texts = words.map((w) => wordText(w, home)?.text);
  if (texts[0] === undefined) return undefined;
  return { name: path.basename(texts[0]), args: texts.map((t) => t ?? ''), literal: texts.every((t) => t !== undefined) };
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The top of the git repository holding `cwd` (cwd itself when git cannot say). */
function gitTop(cwd: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: child_process costs every process milliseconds to load
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const r = spawnSync('git', ['-C', cwd, 'rev-parse', '--show-toplevel'], { encoding: 'utf8', timeout: 5000 });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : cwd;
}

/** The names an archive lists (`tar -tf`, `unzip -Z1`); undefined when it cannot be listed. */
function listing(cmd: string, args: string[]): string[] | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: child_process costs every process milliseconds to load
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 5000, maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0 || r.error) return undefined;
  return r.stdout.split('\n').filter(Boolean);
}

/**
 * The files a unified or git diff names (old and new names, renames and copies), with `strip`
 * leading parts taken away; undefined strip (patch without -p) gives every suffix of each name.
 */
export function patchPaths(text: string, strip: number | undefined): string[] {
  const out = new Set<string>();
  const add = (name: string, prefixed: boolean) => {
    const n = name.replace(/^"|"$/g, '').replace(/\t.*$/, '');
    if (n === '/dev/null' || !n) return;
    const parts = n.split('/').filter((x) => x && x !== '.');
    if (!prefixed) out.add(parts.join('/'));
    else if (strip === undefined) for (let k = 0; k < parts.length; k++) out.add(parts.slice(k).join('/'));
    else if (parts.length > strip) out.add(parts.slice(strip).join('/'));
  };
  for (const line of text.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^diff --git (\S+) (\S+)/.exec(line))) {
      add(m[1], true);
      add(m[2], true);
    } else if ((m = /^(?:---|\+\+\+|\*\*\*) (\S+)/.exec(line))) add(m[1], true);
    else if ((m = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line))) add(m[1], false);
    else if ((m = /^Index: (.+)$/.exec(line))) add(m[1], true);
  }
  return [...out];
}

function isRegularFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Every file (and link) under a folder, or undefined when it cannot be listed whole. */
function filesOf(dir: string): string[] | undefined {
  const out: string[] = [];
  const walk = (d: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!walk(p)) return false;
      } else out.push(p);
      if (out.length > MAX_COPY) return false;
    }
    return true;
  };
  return walk(dir) ? out : undefined;
}

function isRevision(cwd: string, word: string): boolean {
  return /^(?:HEAD|FETCH_HEAD|ORIG_HEAD|MERGE_HEAD)(?:[~^].*)?$|^[0-9a-f]{7,40}$|[~^@]/.test(word) || fs.existsSync(path.join(cwd, '.git', 'refs', 'heads', word));
}

function readSmall(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_SCRIPT) return undefined;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A glob's matches (a pattern in its last part only); a pattern in a folder part stands for the folder before it. */
function expandGlob(abs: string): string[] {
  const dir = path.dirname(abs);
  if (/[*?[]/.test(dir)) {
    const parts = dir.split(path.sep);
    const fixed = parts.slice(0, parts.findIndex((p) => /[*?[]/.test(p))).join(path.sep) || path.sep;
    return [fixed + path.sep];
  }
  const re = new RegExp('^' + path.basename(abs).replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');
  try {
    return fs.readdirSync(dir).filter((n) => re.test(n) && !n.startsWith('.')).map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

function parseMessage(e: unknown): string {
  // A command nested past what the parser can follow (thousands of subshells): said so, not as the engine's words.
  if (e instanceof RangeError) return 'nested too deeply to follow';
  const err = e as { Error?: () => string; message?: string };
  try {
    if (typeof err?.Error === 'function') return err.Error();
  } catch {
    // fall through to the plain message
  }
  return err?.message ?? String(e);
}

/**
 * Every file the command may write, as the shell would run it from `cwd`, and what cannot be
 * followed. `programs`: code of interpreters it runs (for a look for state names).
 */
export function readShellCommand(command: string, cwd: string, home = process.env.HOME ?? '/'): ShellReading & { programs: string[]; parseError?: string } {
  const { parser } = load();
  const reader = new Reader(home);
  let file: ShNode;
  try {
    file = parser.Parse(command, 'command');
  } catch (e) {
    const msg = parseMessage(e);
    return { touches: [], opaque: [`it is not valid shell (${msg})`], hidden: [], unset: [], programs: [], parseError: msg };
  }
  // Every name the command may set (assignments, for/select, read, mapfile, getopts, declare...): such a variable's value is its own, not the environment's.
  for (const m of command.matchAll(/\b([A-Za-z_]\w*)\+?=|\b(?:for|select)\s+([A-Za-z_]\w*)|\b(?:read|mapfile|readarray|getopts|declare|typeset|local|export|readonly|unset)\b([^;&|\n]*)/g)) {
    if (m[1] ?? m[2]) reader.assigned.add((m[1] ?? m[2])!);
    else for (const n of (m[3] ?? '').match(/\b[A-Za-z_]\w*\b/g) ?? []) reader.assigned.add(n);
  }
  reader.stmts(list(file.Stmts), { cwds: [path.resolve(cwd)] });
  // A write through a link the command made earlier (`ln -s docs/plan.md n.md && echo x > n.md`) writes what the link points at.
  for (const l of reader.links) {
    for (const t of reader.touches.slice(l.at)) {
      if (t.path === l.link || t.path.startsWith(l.link + path.sep)) reader.touches.push({ ...t, path: l.target + t.path.slice(l.link.length), how: `${t.how} (through the link ${path.basename(l.link)})` });
    }
  }
  // A git hook or git's configuration written by the command: code git runs later, judged now.
  for (const t of [...reader.touches]) {
    const slash = t.path.split(path.sep).join('/');
    if (t.kind === 'tree' && /(?:^|\/)\.git(?:\/hooks)?(?:\/[^/]+)?$/.test(slash)) reader.hidden.push(`${t.how} puts files Waymark cannot read at ${t.path}, where git runs code from`);
    if (t.kind !== 'write' || !GIT_CODE.test(slash)) continue;
    const text = t.content && 'text' in t.content ? t.content.text : t.content && 'fromFile' in t.content ? readSmall(t.content.fromFile) : undefined;
    if (text === undefined) reader.hidden.push(`${t.how} writes ${t.path}, code git runs later, whose text Waymark cannot read`);
    else for (const c of gitCodeCommands(t.path, text)) reader.nested(c, { cwds: [path.dirname(path.dirname(path.dirname(t.path.endsWith('/config') ? `${t.path}/x` : t.path)))] }, `the code git runs from ${path.basename(t.path)}`);
  }
  return { touches: reader.touches, opaque: reader.opaque, hidden: reader.hidden, unset: reader.unset, programs: reader.programs };
}

/** git's files that hold code git runs later: a hook, the repository's configuration (aliases, editors, pagers, hooksPath). */
export const GIT_CODE = /(?:^|\/)\.git\/(?:hooks\/[^/]+|config)$/;

/**
 * The shell commands a git hook's or configuration's text makes git run: a hook's script (an
 * interpreter's by its shebang), or each program value of the configuration as `git -c KEY=VALUE`
 * reads it.
 */
export function gitCodeCommands(file: string, text: string): string[] {
  if (!/(?:^|[\\/])config$/.test(file)) {
    const bang = /^#!\s*(\S+)(?:[ \t]+(\S+))?/.exec(text);
    const interp = bang ? (path.basename(bang[1]) === 'env' ? (bang[2] ?? 'sh') : path.basename(bang[1])) : 'sh';
    return [SHELLS.has(interp) ? text : `${shellQuote(interp)} -c ${shellQuote(text)}`];
  }
  const out: string[] = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const sec = /^\[\s*([\w.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (sec) {
      section = sec[2] !== undefined ? `${sec[1]}.${sec[2]}` : sec[1];
      continue;
    }
    const kv = /^([\w-]+)\s*=\s*(.*)$/.exec(line);
    if (!kv || !section) continue;
    const key = `${section}.${kv[1]}`.toLowerCase();
    if (!GIT_PROGRAM_KEYS.test(key)) continue;
    const value = kv[2].replace(/^"(.*)"$/, '$1').replace(/\\"/g, '"');
    out.push(`git -c ${shellQuote(`${key}=${value}`)} status`);
  }
  return out;
}

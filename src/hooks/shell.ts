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

/** Where the written text comes from, when the command says. */
export type ShellContent = { text: string } | { fromFile: string } | { unchanged: true };

export type ShellTouch =
  /** The file at `path` is written (created when missing); `content` when the command says what. */
  | { kind: 'write'; path: string; how: string; content?: ShellContent }
  /** The file (or, when it is a folder, everything under it) is removed. */
  | { kind: 'delete'; path: string; how: string }
  /** Any file under `path` may change (git restoring a folder, rsync); `gitRef` the revision restored from. */
  | { kind: 'tree'; path: string; how: string; git?: { cwd: string; ref?: string; paths: string[] } };

export interface ShellReading {
  touches: ShellTouch[];
  /** Why parts of the command cannot be followed; empty when every write is known. */
  opaque: string[];
}

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
      if (part.Dollar) return undefined;
      text += String(part.Value);
    } else if (t === 'DblQuoted') {
      for (const q of list(part.Parts)) {
        if (nodeType(q) !== 'Lit') return undefined;
        text += String(q.Value).replace(/\\([$`"\\])/g, '$1');
      }
    } else return undefined;
  }
  return { text, glob };
}

/** The commands that only run the rest of their arguments as a command. */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'command', 'builtin', 'exec', 'nice', 'nohup', 'time', 'stdbuf', 'timeout', 'ionice', 'chrt', 'taskset', 'unbuffer', 'caffeinate']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
const INTERPRETERS = new Set(['python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'ruby', 'perl', 'php', 'lua', 'Rscript', 'osascript', 'pwsh', 'powershell', 'jq', 'yq', 'awk', 'gawk', 'mawk', 'nawk', 'tclsh', 'groovy']);
const IN_PLACE = new Set(['sed', 'gsed', 'perl', 'ruby']);
const MAX_SCRIPT = 256 * 1024;

interface Scope {
  /** Possible current folders (more than one after `a || cd b`); undefined when a `cd` went somewhere unknown. */
  cwds: string[] | undefined;
}

class Reader {
  readonly touches: ShellTouch[] = [];
  readonly opaque: string[] = [];
  private depth = 0;

  constructor(private readonly home: string) {}

  stmts(stmts: ShNode[], scope: Scope): Scope {
    for (const s of stmts) scope = this.stmt(s, scope);
    return scope;
  }

  /** Paths of a word, resolved against every possible current folder (globs expanded). */
  private paths(w: unknown, scope: Scope, what: string): string[] | undefined {
    const t = wordText(w, this.home);
    if (!t) {
      this.opaque.push(`${what} comes from an expansion or a command substitution`);
      return undefined;
    }
    return this.resolve(t, scope, what);
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

  private stmt(s: ShNode, scope: Scope): Scope {
    const cmd = s.Cmd as ShNode | null;
    const { ops } = load();
    let next = scope;
    const type = cmd ? nodeType(cmd) : '';
    const redirs = list(s.Redirs);
    // What the command's own redirections write (the command's name decides what content is known).
    const callName = type === 'CallExpr' ? commandName(cmd!, this.home) : undefined;
    let heredoc: string | undefined;
    for (const r of redirs) {
      this.substitutions(r.Word, scope);
      if (ops.heredocs.has(r.Op as number) || r.Op === ops.herestring) {
        const body = wordText(r.Op === ops.herestring ? r.Word : r.Hdoc, this.home);
        heredoc = body?.text ?? '';
        if (r.Hdoc) this.substitutions(r.Hdoc, scope);
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
        next = this.call(cmd, scope, heredoc);
        break;
      case 'BinaryCmd': {
        const op = cmd.Op as number;
        if (op === ops.and || op === ops.or) {
          const after = this.stmt(cmd.X as ShNode, scope);
          const y = this.stmt(cmd.Y as ShNode, after);
          next = op === ops.or ? union(after, y) : y;
        } else {
          // A pipeline's commands run in subshells: a cd there changes nothing after it.
          this.stmt(cmd.X as ShNode, scope);
          this.stmt(cmd.Y as ShNode, scope);
        }
        break;
      }
      case 'Subshell':
        this.stmts(list(cmd.Stmts), scope);
        break;
      case 'Block':
        next = this.stmts(list(cmd.Stmts), scope);
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

  private nested(text: string, scope: Scope, what: string): void {
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
    this.stmts(list(file.Stmts), { cwds: scope.cwds && [...scope.cwds] });
    this.depth--;
  }

  private call(cmd: ShNode, scope: Scope, heredoc: string | undefined): Scope {
    for (const a of list(cmd.Assigns)) this.substitutions(a, scope);
    const words = list(cmd.Args);
    for (const w of words) this.substitutions(w, scope);
    if (!words.length) return scope;
    // Strip wrappers (sudo, env A=b, timeout 5, nice -n 5...): what they run is the command.
    let i = 0;
    for (;;) {
      const t = wordText(words[i], this.home)?.text;
      if (t === undefined || !WRAPPERS.has(path.basename(t))) break;
      i++;
      while (i < words.length) {
        const a = wordText(words[i], this.home)?.text;
        if (a === undefined) break;
        if (a.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a) || /^\d+(?:\.\d+)?[smhd]?$/.test(a)) {
          i++;
          if (/^-(?:[nuCgp]|-user|-group|-chdir)$/.test(a)) i++;
          continue;
        }
        break;
      }
    }
    if (i >= words.length) return scope;
    const nameText = wordText(words[i], this.home)?.text;
    if (nameText === undefined) {
      this.opaque.push('the command itself comes from an expansion');
      return scope;
    }
    const name = path.basename(nameText);
    const argWords = words.slice(i + 1);
    const args = argWords.map((w) => wordText(w, this.home)?.text);
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
        if (args.some((a) => a === undefined)) this.opaque.push('eval runs text built from expansions');
        else this.nested(args.join(' '), scope, 'the text eval runs');
        return scope;
      }
      case 'source':
      case '.': {
        const file = args[0];
        if (file === undefined) this.opaque.push(`${name} reads a script named by an expansion`);
        else this.script(path.resolve(scope.cwds?.[0] ?? '/', file), scope, `the script ${file}`);
        return scope;
      }
      case 'xargs':
      case 'parallel': {
        // Reading commands fed by xargs (grep, cat, wc) write nothing; a writer's files come from its input.
        const run = args.find((a, k) => a === undefined || (!a.startsWith('-') && !/^-[InLPsEd]$/.test(args[k - 1] ?? '')));
        if (run === undefined || mayWrite(run, args)) this.opaque.push(`${name} takes the files ${run ?? 'its command'} works on from its input`);
        return scope;
      }
      case 'find': {
        const k = args.findIndex((a) => a !== undefined && /^-(?:exec|execdir|ok|okdir)$/.test(a));
        if (args.some((a) => a !== undefined && /^-(?:delete|fprint|fprintf|fls)$/.test(a)) || (k !== -1 && (args[k + 1] === undefined || mayWrite(args[k + 1]!, args.slice(k + 1))))) this.opaque.push('find runs a command that writes (or deletes) the files it finds');
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
        return this.git(argWords, args, scope);
      case 'patch':
        this.opaque.push('patch writes the files its diff names');
        return scope;
    }
    if (SHELLS.has(name)) {
      const c = args.findIndex((a) => a !== undefined && /^-[a-z]*c[a-z]*$/.test(a));
      if (c !== -1) {
        const text = args[c + 1];
        if (text === undefined) this.opaque.push(`${name} -c runs text built from expansions`);
        else this.nested(text, scope, `the text ${name} -c runs`);
      } else {
        const file = args.find((a) => a === undefined || !a.startsWith('-'));
        if (file === undefined && heredoc !== undefined) this.nested(heredoc, scope, `the script fed to ${name}`);
        else if (file === undefined && args.some((a) => a === undefined)) this.opaque.push(`${name} runs a script named by an expansion`);
        else if (file !== undefined) this.script(path.resolve(scope.cwds?.[0] ?? '/', file), scope, `the script ${file}`);
      }
      return scope;
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
    if (INTERPRETERS.has(name) || /^python\d/.test(name)) {
      // A program's writes cannot be read from the command line: when its code (inline, fed on
      // stdin, or its script file) names state, the judge refuses it.
      const code: string[] = [];
      if (heredoc !== undefined) code.push(heredoc);
      for (let k = 0; k < args.length; k++) {
        const a = args[k];
        if (a === undefined) code.push('$');
        else if (/^-(?:c|e|E|-eval|-command|r)$/.test(a)) code.push(args[k + 1] ?? '$');
        else if (!a.startsWith('-')) {
          code.push(a);
          const f = path.resolve(scope.cwds?.[0] ?? '/', a);
          const text = readSmall(f);
          if (text !== undefined) code.push(text);
        }
      }
      this.programs.push(code.join('\n'));
      return scope;
    }
    return scope;
  }

  /** Code of programs the command runs (interpreters), for the judge to look for state names in. */
  readonly programs: string[] = [];

  private script(file: string, scope: Scope, what: string): void {
    const text = readSmall(file);
    if (text === undefined) {
      this.opaque.push(`${what} cannot be read`);
      return;
    }
    this.nested(text, scope, what);
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
    const destWord = targetDir ?? (targetDirText === undefined && ops.length > 1 ? ops.pop() : undefined);
    const sources = ops.flatMap((w) => this.paths(w, scope, `a file ${name} reads`) ?? []);
    if (name === 'rsync') {
      for (const d of destWord ? (this.paths(destWord, scope, 'the rsync destination') ?? []) : []) this.touches.push({ kind: 'tree', path: d, how: name });
      return;
    }
    if (moves) for (const s of sources) this.touches.push({ kind: 'delete', path: s, how: name });
    const dests = targetDirText !== undefined ? this.resolve({ text: targetDirText, glob: false }, scope, `the ${name} destination`) : destWord ? this.paths(destWord, scope, `the ${name} destination`) : name === 'ln' ? scope.cwds : undefined;
    for (const d of dests ?? []) {
      const intoDir = targetDir !== undefined || targetDirText !== undefined || sources.length > 1 || isDirectory(d);
      for (const s of sources.length ? sources : [undefined]) {
        const dest = intoDir && s ? path.join(d, path.basename(s)) : d;
        if (intoDir && isDirectory(s ?? '')) this.touches.push({ kind: 'tree', path: dest, how: name });
        else this.touches.push({ kind: 'write', path: dest, how: name, content: s ? { fromFile: s } : undefined });
      }
    }
  }

  private git(argWords: ShNode[], args: (string | undefined)[], scope: Scope): Scope {
    let k = 0;
    let cwds = scope.cwds;
    while (k < args.length && args[k]?.startsWith('-')) {
      const a = args[k]!;
      if (a === '-C') {
        const dir = args[k + 1];
        cwds = dir === undefined ? undefined : path.isAbsolute(dir) ? [dir] : cwds?.map((c) => path.resolve(c, dir));
        k += 2;
      } else if (a === '-c' || a === '--git-dir' || a === '--work-tree' || a === '--namespace') k += 2;
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
    if (rest.some((a) => a === undefined) && /^(?:checkout|restore|reset|stash|clean|mv|rm|apply|am)$/.test(sub)) {
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
    switch (sub) {
      case 'checkout': {
        if (opts.some((a) => /^-[bB]$|^--orphan$/.test(a))) return scope;
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
      case 'am':
        if (!opts.includes('--check') && !opts.includes('--stat')) this.opaque.push(`git ${sub} writes the files its patch names`);
        return scope;
    }
    return scope;
  }
}

function opText(op: number, ops: Ops): string {
  return op === ops.dupOut ? '>&' : ops.appends.has(op) ? '>>' : '>';
}

const WRITERS = new Set(['rm', 'unlink', 'shred', 'rmdir', 'mv', 'cp', 'install', 'ln', 'rsync', 'tee', 'touch', 'truncate', 'dd', 'patch', 'chmod', 'git', 'eval', ...SHELLS, ...INTERPRETERS]);

/** Whether a command run on files it is handed (by xargs, find -exec) may write them. */
function mayWrite(name: string, args: (string | undefined)[]): boolean {
  const n = path.basename(name);
  if (WRITERS.has(n) || /^python\d/.test(n)) return true;
  return IN_PLACE.has(n) && args.some((a) => a === undefined || /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'));
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
    return { touches: [], opaque: [`it is not valid shell (${msg})`], programs: [], parseError: msg };
  }
  reader.stmts(list(file.Stmts), { cwds: [path.resolve(cwd)] });
  return { touches: reader.touches, opaque: reader.opaque, programs: reader.programs };
}

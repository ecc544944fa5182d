/**
 * The hook's fast path: decides, with node built-ins only and without loading the core, that
 * an event cannot touch workflow state, so the hook answers "go ahead" in a few milliseconds.
 * It errs towards "judge": anything that might hold state goes to the full check, which
 * decides exactly (include/exclude globs, dialects, real paths).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HookContext, NeutralEvent } from './port';

const ROOT_MARKERS = ['.waymark', '_bmad', '_bmad-output', '.git'];

/** The workspace folder: the agent's project folder, else the nearest ancestor of cwd with a Waymark, BMAD or git marker, else cwd. */
export function workspaceRootOf(ctx: HookContext): string {
  if (ctx.projectDir) return path.resolve(ctx.projectDir);
  const start = path.resolve(ctx.cwd);
  for (let dir = start; ; ) {
    for (const m of ROOT_MARKERS) {
      try {
        if (fs.statSync(path.join(dir, m)).isDirectory()) return dir;
      } catch {
        // not here
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return start;
    dir = up;
  }
}

const STATE_KEY = /^[ \t]*["']?(?:workflow|workflowType|steps|steps?[_-]?completed|lastStep|last_step|currentStep|current_step|delegation)["']?[ \t]*:/im;
const STORY = /^#\s+Story\b/m;
const STATUS_LINE = /^(?:\*\*)?Status(?:\*\*)?:/m;
const RECORD = /^\.waymark\/(?:gates|history|events|leases|modes|checkpoints|locks)\/|^\.waymark\/files-manifest\.csv$|^\.git\/waymark\//;
const LEDGER = /(?:^|\/)sprint-status\.ya?ml$/i;
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

/** Frontmatter with workflow keys, or a BMAD story, in this text (or its start). */
export function looksLikeState(text: string): boolean {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (/^---[^\n]*\r?\n/.test(t)) {
    const end = t.indexOf('\n---', 3);
    if (STATE_KEY.test(end === -1 ? t.slice(0, HEAD_BYTES) : t.slice(0, end))) return true;
  }
  return STORY.test(t.slice(0, 4096)) && STATUS_LINE.test(t.slice(0, 8192));
}

/** A piece of text an edit inserts: could it add state (a workflow key line, a Status line, a fence)? */
function fragmentMayAddState(s: string): boolean {
  return STATE_KEY.test(s) || STATUS_LINE.test(s) || /^---/m.test(s) || STORY.test(s);
}

const WAYMARK_COMMAND = /^\s*(?:npx\s+(?:--no-install\s+)?)?(?:waymark|node\s+\S*cli\.js)\s/;
const STATEFUL_PATH = /\.(?:md|markdown|ya?ml|gate|jsonl)\b|\.waymark\//i;
/** Shell forms that write a file: redirections, in-place editors, tee, moves, deletes, checkouts. */
export const SHELL_WRITE = /(?:^|[^<>&0-9])>>?|\btee\b|\bsed\b[^|;&]*\s-[a-zA-Z]*i|\bsed\b[^|;&]*--in-place|\bperl\b[^|;&]*\s-[a-zA-Z]*i|\bawk\b[^|;&]*-i\s*inplace|\b(?:rm|mv|cp|truncate|install|ln|dd)\s|\bgit\s+(?:checkout|restore|reset|stash|apply|am|mv|rm)\b|<<-?\s*['"]?\w/;

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
      return { verdict: 'judge' };
    case 'proposed-command':
      if (WAYMARK_COMMAND.test(event.command)) return { verdict: 'pass' };
      return { verdict: STATEFUL_PATH.test(event.command) && SHELL_WRITE.test(event.command) ? 'judge' : 'pass' };
    case 'tool-done':
      if (event.command !== undefined) return { verdict: !WAYMARK_COMMAND.test(event.command) && STATEFUL_PATH.test(event.command) ? 'judge' : 'pass' };
      break;
    case 'proposed-edit':
      break;
  }
  const root = workspaceRootOf(event.ctx);
  const abs = path.resolve(event.ctx.cwd, event.file!);
  const rel = path.relative(root, abs);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return { verdict: 'pass', note: `${abs} is outside the workspace ${root}; not checked.` };
  const relSlash = rel.split(path.sep).join('/');
  if (RECORD.test(relSlash) || LEDGER.test(relSlash)) return { verdict: 'judge' };
  if (looksLikeState(head(abs))) return { verdict: 'judge' };
  if (event.kind === 'proposed-edit') {
    const c = event.change;
    if (c.type === 'write' ? looksLikeState(c.content) : c.edits.some((e) => fragmentMayAddState(e.newString))) return { verdict: 'judge' };
    return { verdict: 'pass' };
  }
  // After an edit: the state may have been removed; the snapshot the check kept before this
  // file's edit says so (named as protocol/proposal.ts names it).
  const snapshot = path.join(root, '.waymark', 'cache', 'hooks', `before-${crypto.createHash('sha256').update(relSlash).digest('hex').slice(0, 10)}.json`);
  return { verdict: fs.existsSync(snapshot) ? 'judge' : 'pass' };
}

/**
 * The `apply_patch` envelope (OpenAI Codex, VS Code's apply_patch tool) read into the file edits it
 * makes: `*** Begin Patch`, then `*** Add File: P` (every line `+`), `*** Delete File: P`,
 * `*** Update File: P` (optionally `*** Move to: Q`) with `@@ [anchor]` hunks of ` `/`-`/`+` lines
 * and `*** End of File`, then `*** End Patch`. Node built-ins only: it runs on the hook's fast path.
 */
import { HookInputError, type PatchHunk } from './port';

export type { PatchHunk };

export type PatchOp =
  | { type: 'add'; path: string; content: string }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; moveTo?: string; hunks: PatchHunk[] };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';

/** The operations of a patch; throws HookInputError when the text is not an apply_patch envelope. */
export function parseApplyPatch(text: string): PatchOp[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let i = lines.findIndex((l) => l.trim() === BEGIN);
  if (i === -1) throw new HookInputError(`the patch does not start with "${BEGIN}".`);
  const ops: PatchOp[] = [];
  i++;
  for (;;) {
    if (i >= lines.length) throw new HookInputError(`the patch does not end with "${END}".`);
    const line = lines[i];
    if (line.trim() === END) return ops;
    let m: RegExpExecArray | null;
    if ((m = /^\*\*\* Add File: (.+)$/.exec(line))) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('*** '); i++) {
        if (!lines[i].startsWith('+')) throw new HookInputError(`line ${i + 1} of the patch: a line of an added file must start with "+".`);
        body.push(lines[i].slice(1));
      }
      ops.push({ type: 'add', path: m[1].trim(), content: body.length ? body.join('\n') + '\n' : '' });
    } else if ((m = /^\*\*\* Delete File: (.+)$/.exec(line))) {
      ops.push({ type: 'delete', path: m[1].trim() });
      i++;
    } else if ((m = /^\*\*\* Update File: (.+)$/.exec(line))) {
      const op: Extract<PatchOp, { type: 'update' }> = { type: 'update', path: m[1].trim(), hunks: [] };
      i++;
      const mv = /^\*\*\* Move to: (.+)$/.exec(lines[i] ?? '');
      if (mv) {
        op.moveTo = mv[1].trim();
        i++;
      }
      let hunk: PatchHunk | undefined;
      for (; i < lines.length; i++) {
        const l = lines[i];
        if (l === '*** End of File') {
          if (hunk) hunk.endOfFile = true;
          continue;
        }
        if (l.startsWith('*** ')) break;
        if (l.startsWith('@@')) {
          hunk = { anchor: l.slice(2).trim() || undefined, old: [], new: [], endOfFile: false };
          op.hunks.push(hunk);
          continue;
        }
        if (!hunk) {
          hunk = { old: [], new: [], endOfFile: false };
          op.hunks.push(hunk);
        }
        const tag = l[0] ?? ' ';
        const rest = l.slice(1);
        if (tag === ' ' || l === '') {
          hunk.old.push(rest);
          hunk.new.push(rest);
        } else if (tag === '-') hunk.old.push(rest);
        else if (tag === '+') hunk.new.push(rest);
        else throw new HookInputError(`line ${i + 1} of the patch: a hunk line must start with " ", "-" or "+".`);
      }
      ops.push(op);
    } else if (line.trim() === '') i++;
    else throw new HookInputError(`line ${i + 1} of the patch: expected "*** Add File:", "*** Delete File:", "*** Update File:" or "${END}".`);
  }
}

function findLines(lines: string[], seq: string[], from: number, norm: (s: string) => string): number {
  if (!seq.length) return from;
  const want = seq.map(norm);
  for (let i = from; i + seq.length <= lines.length; i++) {
    let ok = true;
    for (let k = 0; k < seq.length && ok; k++) ok = norm(lines[i + k]) === want[k];
    if (ok) return i;
  }
  return -1;
}

/**
 * The text after the hunks are applied as apply_patch applies them (context found exactly, else
 * ignoring trailing, else surrounding whitespace); undefined when a hunk's lines are not found.
 */
export function applyHunks(current: string, hunks: PatchHunk[]): string | undefined {
  const trailingNewline = current.endsWith('\n');
  const lines = (trailingNewline ? current.slice(0, -1) : current).split('\n');
  if (current === '') lines.length = 0;
  let cursor = 0;
  for (const h of hunks) {
    if (h.anchor !== undefined) {
      const a = lines.findIndex((l, k) => k >= cursor && l.trim() === h.anchor!.trim());
      if (a !== -1) cursor = a + 1;
    }
    let at = -1;
    if (h.endOfFile && h.old.length) at = findLines(lines, h.old, Math.max(cursor, lines.length - h.old.length), (s) => s);
    for (const norm of [(s: string) => s, (s: string) => s.trimEnd(), (s: string) => s.trim()]) {
      if (at !== -1) break;
      at = findLines(lines, h.old, cursor, norm);
    }
    if (at === -1) return undefined;
    if (!h.old.length && h.endOfFile) at = lines.length;
    lines.splice(at, h.old.length, ...h.new);
    cursor = at + h.new.length;
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

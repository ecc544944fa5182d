/**
 * BMAD v7's own status writer, `tickets.py mark [DIR] REF STATUS [--assignee A] [--blocked R]`,
 * seen in a shell command: its write cannot be checked or recorded from the command, so the hook
 * refuses it and names the `waymark story set-status` command that writes the same plan bytes
 * with the status rules and history.
 */

/** Words of a shell command (quotes removed; good enough for the arguments of one call). */
function words(s: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(s); m; m = re.exec(s)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2] ?? m[3]);
  return out;
}

const quote = (s: string) => (/^[\w.@/:-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`);

/** The equivalent `waymark story set-status …` of a `tickets.py mark` call in `command`, or undefined. */
export function setStatusForMark(command: string): string | undefined {
  const m = /\btickets\.py\b([^;&|\n]*)/.exec(command);
  if (!m) return undefined;
  const args = words(m[1]);
  const at = args.indexOf('mark');
  if (at < 0) return undefined;
  const positionals: string[] = [];
  const flags: string[] = [];
  for (let i = at + 1; i < args.length; i++) {
    const a = args[i];
    if ((a === '--blocked' || a === '--assignee') && i + 1 < args.length) {
      flags.push(a, quote(args[++i]));
    } else if (a.startsWith('--blocked=') || a.startsWith('--assignee=')) {
      const [k, ...v] = a.split('=');
      flags.push(k, quote(v.join('=')));
    } else if (!a.startsWith('-')) positionals.push(a);
  }
  if (positionals.length < 2) return 'waymark story set-status REF STATUS [--blocked REASON] [--assignee NAME]';
  const [ref, status] = positionals.slice(-2);
  return ['waymark story set-status', quote(ref), quote(status), ...flags].join(' ');
}

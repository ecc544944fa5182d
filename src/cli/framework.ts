import { WaymarkError, EXIT_CODES, errorMessage, isoTime } from '../core/index';

/** Parsed command line: positionals and `--flag value` / `--flag` options. */
export interface CliArgs {
  positionals: string[];
  flags: Record<string, string | boolean | string[]>;
}

export interface CliContext {
  args: CliArgs;
  cwd: string;
  json: boolean;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Aborts when the reader of stdout went away (`waymark events --follow | head`). */
  outputClosed?: AbortSignal;
}

/** One verb of the `waymark` CLI. Sub-verbs (`gate pass`) are verbs named `gate pass`. */
export interface CliCommand {
  /** e.g. `status`, `gate pass`, `memory record`. */
  name: string;
  usage: string;
  summary: string;
  /** Longer help: options, exit codes, examples. */
  help?: string;
  /**
   * Options that take a value (`expect-hash` for `--expect-hash HASH`), without the dashes.
   * Every option a verb reads is declared here or in `booleanFlags`: anything else is refused
   * (exit 2), so a typo such as `--expected-hash` can never silently drop a safety check.
   */
  options: readonly string[];
  /** Flags that take no value. */
  booleanFlags?: readonly string[];
  /** Returns the exit code (0 ok, 1 validation errors found). Throw WaymarkError for the rest. */
  run(ctx: CliContext): Promise<number>;
}

/** Flags every verb takes. */
const GLOBAL_BOOLEAN_FLAGS = ['json', 'help', 'h'];

/**
 * Parses `argv` for one verb. With `options` given (the verb's declared value options), any
 * other option is a usage error naming the nearest known option.
 */
export function parseArgs(argv: string[], booleanFlags: readonly string[] = [], options?: readonly string[]): CliArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | boolean | string[]> = Object.create(null);
  const booleans = new Set([...GLOBAL_BOOLEAN_FLAGS, ...booleanFlags]);
  const known = options ? new Set([...booleans, ...options]) : undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--') || (a.startsWith('-') && a.length === 2 && a !== '-')) {
      let name = a.replace(/^--?/, '');
      let value: string | boolean | undefined;
      const eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.slice(eq + 1);
        name = name.slice(0, eq);
      }
      if (known && !known.has(name)) throw new WaymarkError('usage', unknownOption(a.startsWith('--') ? `--${name}` : `-${name}`, name, [...known]));
      // A switch given a value (`--fail-closed=yes`, `--force=false`): refused, not taken as absent
      // (a hook command written `--fail-closed=true` would otherwise fail open without a word).
      if (value !== undefined && booleans.has(name)) throw new WaymarkError('usage', `--${name} is a switch and takes no value (${a}): write --${name} alone, or leave it out.`);
      if (value === undefined) {
        if (booleans.has(name)) value = true;
        else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[++i];
        else value = true;
      }
      const prev = flags[name];
      if (prev !== undefined && typeof prev !== 'boolean' && typeof value === 'string') {
        flags[name] = Array.isArray(prev) ? [...prev, value] : [prev, value];
      } else {
        flags[name] = value;
      }
    } else {
      positionals.push(a);
    }
  }
  return { positionals, flags };
}

function unknownOption(written: string, name: string, known: string[]): string {
  const near = known
    .filter((k) => k.length > 1)
    .map((k) => ({ k, d: editDistance(name, k) }))
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))[0];
  const prefix = known.find((k) => k.length > 1 && (k.startsWith(name) || name.startsWith(k)));
  const hint = near && near.d <= Math.max(2, Math.floor(name.length / 3)) ? near.k : prefix;
  return `unknown option ${written}${hint ? `; did you mean --${hint}?` : ''}`;
}

/** Levenshtein distance (options are short: the quadratic table is fine). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** A string flag, or undefined. Throws a usage error when given without a value. */
export function flagString(args: CliArgs, name: string): string | undefined {
  const v = args.flags[name];
  if (v === undefined) return undefined;
  if (v === true || v === false) throw new WaymarkError('usage', `--${name} needs a value.`);
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/**
 * A whole-number option (`--keep 5`): decimal digits only, from `min` to `max` (a count, days, a
 * pid…); anything else (`0x10`, `1e3`, ` 5`, an empty value, a number past `max`) is a usage error
 * naming the option and its range. Undefined when the option is not given.
 */
export function wholeNumberFlag(args: CliArgs, name: string, range: { min?: number; max?: number } = {}): number | undefined {
  const raw = flagString(args, name);
  if (raw === undefined) return undefined;
  const min = range.min ?? 0;
  const max = range.max ?? 1_000_000_000;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) throw new WaymarkError('usage', `--${name} needs a whole number from ${min} to ${max}; got '${raw}'.`);
  return n;
}

/** A date option (`--since 2026-11-01`): an ISO 8601 date or date-time (isoTime), else a usage error naming it. */
export function dateFlag(args: CliArgs, name: string): number | undefined {
  const raw = flagString(args, name);
  if (raw === undefined) return undefined;
  const t = isoTime(raw);
  if (t === undefined) throw new WaymarkError('usage', `--${name} needs an ISO date or time (2026-11-01 or 2026-11-01T10:00:00Z); got '${raw}'.`);
  return t;
}

export function requireFlag(args: CliArgs, name: string, what: string): string {
  const v = flagString(args, name);
  if (!v) throw new WaymarkError('usage', `--${name} is required: ${what}.`);
  return v;
}

export function requirePositional(args: CliArgs, index: number, what: string): string {
  const v = args.positionals[index];
  if (v === undefined) throw new WaymarkError('usage', `Missing ${what}.`);
  return v;
}

export function formatHelp(cmd: CliCommand): string {
  return [`Usage: waymark ${cmd.usage}`, '', cmd.summary, cmd.help ? `\n${cmd.help}` : ''].join('\n').trimEnd() + '\n';
}

/** Runs one command line; returns the process exit code. Never throws. */
export async function runCli(
  commands: CliCommand[],
  argv: string[],
  io: { cwd: string; stdout: (t: string) => void; stderr: (t: string) => void; outputClosed?: AbortSignal },
): Promise<number> {
  const byName = new Map(commands.map((c) => [c.name, c]));
  // Longest verb match: `gate pass` before `gate`.
  let cmd: CliCommand | undefined;
  let rest = argv;
  for (const words of [3, 2, 1]) {
    const name = argv.slice(0, words).join(' ');
    if (argv.length >= words && byName.has(name)) {
      cmd = byName.get(name);
      rest = argv.slice(words);
      break;
    }
  }
  if (!cmd) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      io.stdout(globalHelp(commands));
      return argv.length === 0 ? 2 : 0;
    }
    if (argv[0] === '--version' || argv[0] === '-v') {
      io.stdout(`${VERSION}\n`);
      return 0;
    }
    const group = commands.filter((c) => c.name.startsWith(`${argv[0]} `));
    if (group.length) {
      io.stderr(`waymark ${argv[0]}: choose one of: ${group.map((c) => c.name.split(' ').slice(1).join(' ')).join(', ')}. See waymark ${argv[0]} <verb> --help.\n`);
      return 2;
    }
    io.stderr(`waymark: unknown command '${argv[0]}'. Run waymark --help for the list of commands.\n`);
    return 2;
  }
  let args: CliArgs;
  try {
    args = parseArgs(rest, cmd.booleanFlags, cmd.options);
  } catch (e) {
    io.stderr(`waymark ${cmd.name}: ${errorMessage(e)}\nRun waymark ${cmd.name} --help for its options.\n`);
    return 2;
  }
  if (args.flags.help || args.flags.h) {
    io.stdout(formatHelp(cmd));
    return 0;
  }
  const json = args.flags.json === true;
  try {
    return await cmd.run({ args, cwd: io.cwd, json, stdout: io.stdout, stderr: io.stderr, outputClosed: io.outputClosed });
  } catch (e) {
    if (WaymarkError.is(e)) {
      if (json) {
        io.stdout(JSON.stringify({ error: { reason: e.reason, message: e.message, file: e.file, ...e.data } }) + '\n');
      }
      io.stderr(`waymark ${cmd.name}: ${namingFile(e, io.cwd)}\n`);
      if (e.reason === 'usage') io.stderr(`Run waymark ${cmd.name} --help for usage.\n`);
      return EXIT_CODES[e.reason];
    }
    io.stderr(`waymark ${cmd.name}: unexpected error: ${errorMessage(e)}\n`);
    if (process.env.WAYMARK_DEBUG && e instanceof Error) io.stderr(`${e.stack}\n`);
    return 2;
  }
}

export const VERSION = '0.1.0';

function globalHelp(commands: CliCommand[]): string {
  const width = 44;
  const lines = commands.map((c) =>
    c.usage.length < width - 2 ? `  ${c.usage.padEnd(width)}${c.summary}` : `  ${c.usage}\n  ${''.padEnd(width)}${c.summary}`,
  );
  return [
    'waymark: the state of AI-agent workflows, from their frontmatter.',
    '',
    'Usage: waymark <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Every command takes --json and --help. Mutating commands take --expect-hash HASH and --actor NAME.',
    'Exit codes: 0 ok, 1 validation errors found, 2 usage or unreadable input, 3 conflict (stale hash, held lock), 4 refused by a gate or transition rule.',
    '',
  ].join('\n');
}

/** The error's message, prefixed with its file (relative to cwd) when the message does not name it. */
function namingFile(e: WaymarkError, cwd: string): string {
  if (!e.file) return e.message;
  const base = e.file.split(/[\\/]/).pop() ?? e.file;
  if (e.message.includes(e.file) || (base && e.message.includes(base))) return e.message;
  const rel = e.file.startsWith(cwd + '/') ? e.file.slice(cwd.length + 1) : e.file;
  return `${rel}: ${e.message}`;
}

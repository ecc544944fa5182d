/**
 * The `waymark` executable. Agent hooks run it on every edit, so a hook event that cannot touch
 * workflow state is answered here, with node built-ins only; everything else loads the full CLI
 * (cli-main.js, built beside this file) and runs there.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOOK_ADAPTERS } from '../hooks/adapters';
import { quickCheck } from '../hooks/quickCheck';

type FullCli = { main(argv: string[], options?: { hookInput?: string }): void };

function full(): FullCli {
  // A computed path: the bundler must leave this require to run time.
  const file = path.join(__dirname, 'cli-main.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(file) as FullCli;
}

function write(fd: 1 | 2, text: string): void {
  if (text) fs.writeSync(fd, text);
}

/** Answers a hook event on the fast path (`answered`), or hands the stdin text to the full CLI. */
function fastHook(argv: string[]): { answered: true } | { hookInput?: string } {
  const adapter = HOOK_ADAPTERS.get(argv[1]);
  if (!adapter || argv.slice(2).some((a) => a !== '--fail-closed') || process.stdin.isTTY) return {};
  let text: string;
  try {
    text = fs.readFileSync(0, 'utf8');
  } catch {
    return {};
  }
  try {
    const event = adapter.parse(JSON.parse(text), process.env);
    const q = quickCheck(event);
    if (q.verdict === 'judge') return { hookInput: text };
    const out = adapter.render(event, { kind: 'allow', note: q.note });
    write(1, out.stdout);
    write(2, out.stderr);
    process.exitCode = out.exitCode;
    return { answered: true };
  } catch {
    // Bad input: the full CLI reports it the one documented way.
    return { hookInput: text };
  }
}

const argv = process.argv.slice(2);
const fast = argv[0] === 'hook' ? fastHook(argv) : {};
if (!('answered' in fast)) full().main(argv, fast);

/**
 * The `waymark` executable. Agent hooks run it on every edit, so a hook event that cannot touch
 * workflow state is answered here, with node built-ins only; everything else loads the bundle that
 * holds its verb (verbBundles.ts; the full CLI, cli-main.js, for the rest) and runs there.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOOK_ADAPTERS } from '../hooks/adapters';
import { quickCheck } from '../hooks/quickCheck';
import { readStdinText, stdinIsTerminal } from './stdin';
import { loadBundle } from './bundleLoader';
import { VERB_BUNDLES } from './verbBundles';

type FullCli = { main(argv: string[], options?: { hookInput?: string }): void };
type MergeDriver = { mergeDriverMain(argv: string[]): void };
type HookCheck = { answerHook(agent: string, text: string, failClosed: boolean): Promise<{ exitCode: number; stdout: string; stderr: string }> };

/** A bundle beside this one, through V8's code cache (bundleLoader.ts). The path is computed so the bundler leaves it to run time. */
function load<T>(name: string, use?: string): T {
  return loadBundle<T>(path.join(__dirname, name), use);
}

function write(fd: 1 | 2, text: string): void {
  if (text) fs.writeSync(fd, text);
}

function answer(out: { exitCode: number; stdout: string; stderr: string }): void {
  write(1, out.stdout);
  write(2, out.stderr);
  process.exitCode = out.exitCode;
}

/**
 * Answers a hook event: at once when it cannot touch state, else with the hook check bundle
 * (`answered`); anything else (bad options, --help) goes to the full CLI with the stdin text.
 * The event is read to its end asynchronously: agents may send it late, and in many pieces.
 */
async function fastHook(argv: string[]): Promise<{ answered: true } | { hookInput?: string }> {
  const adapter = HOOK_ADAPTERS.get(argv[1]);
  if (!adapter || argv.slice(2).some((a) => a !== '--fail-closed') || stdinIsTerminal()) return {};
  const failClosed = argv.includes('--fail-closed');
  let text: string;
  try {
    text = await readStdinText();
  } catch (e) {
    answer(adapter.renderFailure(`cannot read the hook input (${e instanceof Error ? e.message : String(e)}). The event was not checked.`, undefined, failClosed));
    return { answered: true };
  }
  try {
    const event = adapter.parse(JSON.parse(text), process.env);
    const q = quickCheck(event);
    if (q.verdict === 'judge') {
      load<HookCheck>('cli-hook.js').answerHook(adapter.name, text, failClosed).then(answer, (e) => answer(adapter.renderFailure(`unexpected error: ${String(e)}`, event, failClosed)));
      return { answered: true };
    }
    answer(adapter.render(event, { kind: 'allow', note: q.note }));
    return { answered: true };
  } catch {
    // Bad input: the full CLI reports it the one documented way.
    return { hookInput: text };
  }
}

const argv = process.argv.slice(2);
const fullCli = (fast: { hookInput?: string }) => load<FullCli>('cli-main.js', argv[0] ?? 'help').main(argv, fast);
const verbBundle = VERB_BUNDLES.get(argv[0]);
// git runs the merge driver once per merged file: it loads only the merge code.
if (argv[0] === 'merge-driver') load<MergeDriver>('cli-merge.js').mergeDriverMain(argv);
else if (argv[0] === 'hook') {
  fastHook(argv).then(
    (fast) => {
      if (!('answered' in fast)) fullCli(fast);
    },
    () => fullCli({}),
  );
} else if (verbBundle) load<FullCli>(verbBundle, argv[0]).main(argv);
else fullCli({});

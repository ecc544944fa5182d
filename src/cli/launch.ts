/**
 * The `waymark` executable: it loads the bundle that holds the verb (verbBundles.ts; the full CLI,
 * cli-main.js, for the rest) and runs it there. Agent hooks run it on every edit: `waymark hook …`
 * goes to the hook fast path (hookFast.ts, its own bundle), which answers an event that cannot touch
 * workflow state with node built-ins only. The launcher itself is compiled from source on every
 * run (Node's own loader), so it holds nothing else: every bundle it loads comes through V8's code cache.
 */
import * as path from 'node:path';
import { keepYoungGenerationSmall, loadBundle } from './bundleLoader';
import { VERB_BUNDLES } from './verbBundles';
import { cwdProblem } from './cwd';

type FullCli = { main(argv: string[], options?: { hookInput?: string }): void };
type MergeDriver = { mergeDriverMain(argv: string[]): void };
type HookFast = { fastHook(argv: string[], load: <T>(name: string) => T): Promise<{ answered: true } | { hookInput?: string }> };

/** A bundle beside this one, through V8's code cache (bundleLoader.ts). The path is computed so the bundler leaves it to run time. */
function load<T>(name: string, use?: string): T {
  return loadBundle<T>(path.join(__dirname, name), use);
}

const argv = process.argv.slice(2);
const fullCli = (fast: { hookInput?: string }) => load<FullCli>('cli-main.js', argv[0] ?? 'help').main(argv, fast);
const verbBundle = VERB_BUNDLES.get(argv[0]);
// A folder removed under the shell: one line and exit 2 (a hook answers in its agent's terms, hookFast.ts).
const noCwd = argv[0] === 'hook' ? undefined : cwdProblem();
if (noCwd) {
  process.stderr.write(`waymark: ${noCwd}\n`);
  process.exitCode = 2;
  // git runs the merge driver once per merged file: it loads only the merge code.
} else if (argv[0] === 'merge-driver') load<MergeDriver>('cli-merge.js').mergeDriverMain(argv);
else if (argv[0] === 'hook') {
  new Promise<{ answered: true } | { hookInput?: string }>((resolve) => resolve(load<HookFast>('cli-hookfast.js').fastHook(argv, load))).then(
    (fast) => {
      if (!('answered' in fast)) fullCli(fast);
    },
    () => fullCli({}),
  );
} else if (verbBundle) {
  // A routed verb runs once and exits: its young generation stays small (bundleLoader.ts).
  keepYoungGenerationSmall();
  load<FullCli>(verbBundle, argv[0]).main(argv);
} else fullCli({});

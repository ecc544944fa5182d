/**
 * The launcher's fast path for agent hooks (bundled as cli-hookfast.js, loaded by launch.ts through
 * the code cache for `waymark hook …` only, so the other verbs' launcher does not compile it): a hook
 * event that cannot touch workflow state is answered here, with node built-ins only; one that can
 * goes to the hook check bundle (cli-hook.js).
 */
import * as fs from 'node:fs';
import { HOOK_ADAPTERS } from '../hooks/adapters';
import { parseHookJson } from '../hooks/port';
import { quickCheck } from '../hooks/quickCheck';
import { hookStdinDeadlineMs, readStdinText, stdinIsTerminal } from './stdin';
import { cwdProblem } from './cwd';

type HookCheck = { answerHook(agent: string, text: string, failClosed: boolean, parsed?: { input: unknown }): Promise<{ exitCode: number; stdout: string; stderr: string }> };

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
 * `load` is the launcher's (a bundle beside it, through the code cache).
 */
export async function fastHook(argv: string[], load: <T>(name: string) => T): Promise<{ answered: true } | { hookInput?: string }> {
  const adapter = HOOK_ADAPTERS.get(argv[1]);
  if (!adapter || argv.slice(2).some((a) => a !== '--fail-closed') || stdinIsTerminal()) return {};
  const failClosed = argv.includes('--fail-closed');
  let text: string;
  try {
    text = await readStdinText(failClosed ? hookStdinDeadlineMs() : undefined);
  } catch (e) {
    answer(adapter.renderFailure(`cannot read the hook input (${e instanceof Error ? e.message : String(e)}). The event was not checked.`, undefined, failClosed));
    return { answered: true };
  }
  const noCwd = cwdProblem();
  if (noCwd) {
    // Nothing can be judged without a folder to start from: the agent's documented failure (blocking with --fail-closed).
    let event;
    try {
      event = adapter.parse(parseHookJson(text), process.env);
    } catch {
      event = undefined;
    }
    answer(adapter.renderFailure(noCwd, event, failClosed));
    return { answered: true };
  }
  try {
    const input = parseHookJson(text);
    const event = adapter.parse(input, process.env);
    const q = quickCheck(event);
    if (q.verdict === 'judge') {
      // The parsed input goes along: the check does not parse the text again (adapters only read it).
      load<HookCheck>('cli-hook.js').answerHook(adapter.name, text, failClosed, { input }).then(answer, (e) => answer(adapter.renderFailure(`unexpected error: ${String(e)}`, event, failClosed)));
      return { answered: true };
    }
    answer(adapter.render(event, { kind: 'allow', note: q.note }));
    return { answered: true };
  } catch {
    // Bad input: the full CLI reports it the one documented way.
    return { hookInput: text };
  }
}

import { WaymarkError, errorMessage } from '../core/index';
import { decide } from './handler';
import { HookInputError, parseHookJson, type HookAdapter, type HookOutput, type NeutralEvent } from './port';

/**
 * Runs one hook event through an adapter. Bad input and the hook's own failures are reported
 * fail-open (a non-blocking error), so a Waymark problem never stops the agent's other work;
 * `--fail-closed` refuses the proposed change instead.
 */
export async function runHook(adapter: HookAdapter, text: string, env: Record<string, string | undefined>, failClosed: boolean, parsed?: { input: unknown }): Promise<HookOutput> {
  let event: NeutralEvent | undefined;
  try {
    // `parsed`: the launcher's fast path read the JSON already (a 50 MB Write is not parsed twice).
    let input: unknown = parsed?.input;
    if (!parsed) {
      try {
        input = parseHookJson(text);
      } catch (e) {
        throw new HookInputError(`the hook input is not valid JSON (${errorMessage(e)}); ${adapter.name} sends one JSON object on stdin.`);
      }
    }
    event = adapter.parse(input, env);
    return adapter.render(event, await decide(event, adapter));
  } catch (e) {
    const msg = e instanceof HookInputError ? e.message : WaymarkError.is(e) ? e.message : `unexpected error: ${errorMessage(e)}`;
    return adapter.renderFailure(`${msg} The event was not checked.`, event, failClosed);
  }
}

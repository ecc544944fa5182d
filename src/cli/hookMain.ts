/**
 * The full hook check as its own bundle (cli-hook.js): what the launcher loads when an event may
 * touch state. It holds the core and the hook logic, not the rest of the CLI.
 */
import { HOOK_ADAPTERS } from '../hooks/adapters';
import { runHook } from '../hooks/run';
import type { HookOutput } from '../hooks/port';

/** Answers one hook event for the agent named `agent` (an adapter name). */
export function answerHook(agent: string, text: string, failClosed: boolean, parsed?: { input: unknown }): Promise<HookOutput> {
  const adapter = HOOK_ADAPTERS.get(agent);
  if (!adapter) throw new Error(`no hook adapter ${agent}`);
  return runHook(adapter, text, process.env, failClosed, parsed);
}

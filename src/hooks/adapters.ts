import type { HookAdapter } from './port';
import { claudeCodeAdapter } from './claudeCode';
import { geminiAdapter } from './gemini';

/** Every agent Waymark has a hook adapter for, by the name used on the command line. */
export const HOOK_ADAPTERS: ReadonlyMap<string, HookAdapter> = new Map([
  [claudeCodeAdapter.name, claudeCodeAdapter],
  [geminiAdapter.name, geminiAdapter],
]);

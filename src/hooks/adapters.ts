import type { HookAdapter } from './port';
import { claudeCodeAdapter } from './claudeCode';
import { codexAdapter } from './codex';
import { copilotAdapter } from './copilot';
import { cursorAdapter } from './cursor';
import { geminiAdapter } from './gemini';

/** Every agent Waymark has a hook adapter for, by the name used on the command line. */
export const HOOK_ADAPTERS: ReadonlyMap<string, HookAdapter> = new Map([claudeCodeAdapter, geminiAdapter, codexAdapter, copilotAdapter, cursorAdapter].map((a) => [a.name, a]));

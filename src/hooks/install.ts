/**
 * Writing and removing exactly Waymark's entries in an agent's settings JSON
 * (`.claude/settings.json`, `.gemini/settings.json`): other hooks, other keys, their order and
 * the file's indentation are kept; a second install changes nothing.
 */
import type { HookAdapter } from './port';

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

interface HookEntry {
  type?: unknown;
  command?: unknown;
  [k: string]: unknown;
}

interface Group {
  matcher?: unknown;
  hooks?: unknown;
  [k: string]: unknown;
}

/** True for a hook command that runs `waymark hook <agent>`, whatever launches waymark. */
export function isOurCommand(command: unknown, agent: string): boolean {
  if (typeof command !== 'string') return false;
  const esc = agent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|[\\s/"'])(?:waymark|cli\\.js)["']?\\s+hook\\s+${esc}(?:\\s|$)`).test(command);
}

function indentOf(text: string): string | number {
  const m = /^[ \t]*\{\s*?\n([ \t]+)\S/.exec(text);
  if (!m) return 2;
  return m[1].includes('\t') ? '\t' : m[1].length;
}

function parseSettings(text: string | undefined, file: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new SettingsError(`${file} is not valid JSON (${(e as Error).message}); fix it first, then run this again. Nothing was changed.`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SettingsError(`${file} must hold a JSON object; nothing was changed.`);
  return v as Record<string, unknown>;
}

function stripOurs(settings: Record<string, unknown>, agent: string, file: string): number {
  const hooks = settings.hooks;
  if (hooks === undefined) return 0;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) throw new SettingsError(`"hooks" in ${file} is not an object; fix it first. Nothing was changed.`);
  let removed = 0;
  const h = hooks as Record<string, unknown>;
  for (const event of Object.keys(h)) {
    const groups = h[event];
    if (!Array.isArray(groups)) continue;
    const kept: unknown[] = [];
    for (const g of groups as Group[]) {
      if (!g || typeof g !== 'object' || !Array.isArray(g.hooks)) {
        kept.push(g);
        continue;
      }
      const before = g.hooks.length;
      const rest = (g.hooks as HookEntry[]).filter((x) => !(x && typeof x === 'object' && isOurCommand(x.command, agent)));
      removed += before - rest.length;
      if (rest.length === before) kept.push(g);
      else if (rest.length) kept.push({ ...g, hooks: rest });
    }
    if (kept.length) h[event] = kept;
    else delete h[event];
  }
  if (!Object.keys(h).length) delete settings.hooks;
  return removed;
}

function render(settings: Record<string, unknown>, original: string | undefined): string {
  const eol = original && original.includes('\r\n') ? '\r\n' : '\n';
  const out = JSON.stringify(settings, null, original ? indentOf(original) : 2) + '\n';
  return eol === '\n' ? out : out.replace(/\n/g, '\r\n');
}

/** The settings text with Waymark's hook entries for `adapter` (replacing earlier ones). */
export function installHooks(text: string | undefined, adapter: HookAdapter, command: string, file: string): { text: string; changed: boolean } {
  const settings = parseSettings(text, file);
  stripOurs(settings, adapter.name, file);
  const hooks = (settings.hooks ??= {}) as Record<string, unknown>;
  for (const e of adapter.install.events) {
    const list = Array.isArray(hooks[e.event]) ? (hooks[e.event] as unknown[]) : [];
    const entry: Record<string, unknown> = { type: 'command', command, timeout: e.timeout };
    if (adapter.name === 'gemini') entry.name = `waymark-${e.event}`;
    list.push({ ...(e.matcher ? { matcher: e.matcher } : {}), hooks: [entry] });
    hooks[e.event] = list;
  }
  const next = render(settings, text);
  return { text: next, changed: next !== text };
}

/** The settings text without Waymark's hook entries for `adapter`; `removed` counts them. */
export function uninstallHooks(text: string | undefined, adapter: HookAdapter, file: string): { text: string | undefined; removed: number } {
  if (text === undefined) return { text, removed: 0 };
  const settings = parseSettings(text, file);
  const removed = stripOurs(settings, adapter.name, file);
  return { text: removed ? render(settings, text) : text, removed };
}

/**
 * The enforcement itself as a file an agent may edit: each agent's hook configuration (where
 * Waymark's hook is installed) and Waymark's own configuration. An agent that removes Waymark's
 * hook, narrows its matcher, drops `--fail-closed`, or writes a file the agent can no longer read
 * turns the checks off for every later edit; `.waymark/config.yaml` decides which files are judged
 * and where records live. Neither is the agent's to change: the user does it (`waymark hook
 * uninstall AGENT`, or an edit of their own).
 */
export function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The launchers Waymark recognises as its own without being told: `waymark` by name or path, through npx, or its package's cli.js. */
const LAUNCHER = String.raw`(?:npx\s+(?:--no-install\s+|-y\s+)?)?(?:["']?(?:\S*/)?waymark(?:\.cmd)?["']?|node\s+["']?(?:\S*/)?(?:waymark|node_modules/waymark)/(?:\S*/)?cli\.js["']?)`;

/**
 * True for a hook command that is exactly Waymark's hook for `agent`: a Waymark launcher (or the
 * `launcher` given to install) followed by `hook <agent>`, optionally `--fail-closed`, and nothing else.
 */
export function isOurCommand(command: unknown, agent: string, launcher?: string): boolean {
  if (typeof command !== 'string') return false;
  const tail = String.raw`\s+hook\s+${escapeRe(agent)}(?:\s+--fail-closed)?\s*$`;
  if (new RegExp(`^\\s*${LAUNCHER}${tail}`).test(command)) return true;
  return launcher !== undefined && new RegExp(`^\\s*${escapeRe(launcher.trim())}${tail}`).test(command);
}

/**
 * Every file an agent reads its hooks (or the switch that turns them off) from: Claude Code and VS
 * Code, Gemini CLI, Codex (`.codex/config.toml` in any folder: Codex loads every one from the
 * project root down to its working directory, the closest winning), Copilot (`.github/hooks/*.json`,
 * and `.github/copilot/settings*.json`, whose `hooks` and `disableAllHooks` Copilot CLI reads), Cursor.
 */
export const AGENT_HOOK_FILE = /^(?:\.claude\/settings(?:\.local)?\.json|\.gemini\/settings\.json|\.codex\/hooks\.json|(?:.+\/)?\.codex\/config\.toml|\.github\/hooks\/[^/]+\.json|\.github\/copilot\/settings(?:\.local)?\.json|\.cursor\/hooks\.json)$/;

/** A command that runs Waymark's hook, however Waymark is launched (by name, npx, the extension's or a package's cli.js). */
const WAYMARK_HOOK = /(?:waymark|cli\.js)["']?\s+hook\s+(?:claude-code|gemini|codex|copilot|cursor)\b/i;

/** JSONC (comments, trailing commas) as JSON: strings kept as they are. */
function jsoncToJson(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/s.exec(text.slice(i));
      if (!m) return text;
      out += m[0];
      i += m[0].length - 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** The string values in a JSON or TOML text (enough to find hook commands). */
function stringsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'/g)) {
    if (m[2] !== undefined) out.push(m[2]);
    else {
      try {
        out.push(JSON.parse(`"${m[1]}"`) as string);
      } catch {
        out.push(m[1]);
      }
    }
  }
  return out;
}

/** True when the text installs Waymark's hook for some agent. */
export function holdsWaymarkHook(text: string | undefined): boolean {
  return text !== undefined && stringsOf(text).some((s) => WAYMARK_HOOK.test(s));
}

/** The part of a hook file that says which hooks run: its `hooks` value (JSON), or its `[hooks…]` tables (TOML); undefined when it cannot be read. */
function hooksPart(rel: string, text: string): string | undefined {
  if (rel.endsWith('.toml')) {
    const kept: string[] = [];
    let table = '';
    const inHooks = () => /^hooks(?:\.|$)/.test(table);
    for (const line of text.split(/\r?\n/)) {
      const l = line.trim();
      const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
      if (header) {
        table = header[1].replace(/["'\s]/g, '');
        if (inHooks()) kept.push(l);
        continue;
      }
      if (!l || l.startsWith('#')) continue;
      // The [hooks…] tables, and Codex's switch for them (`[features] hooks`, its old name `codex_hooks`, or dotted).
      const key = table ? `${table}.${l}` : l;
      if (inHooks()) kept.push(l);
      else if (TOML_HOOKS_SWITCH.test(key)) kept.push(key);
    }
    return kept.join('\n');
  }
  try {
    const o = JSON.parse(jsoncToJson(text)) as unknown;
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined;
    // Claude Code's `disableAllHooks` turns every hook off from any of its settings files.
    const r = o as Record<string, unknown>;
    // Gemini CLI's `hooksConfig` (`enabled: false`, `disabled: [names]`) turns its hooks off too.
    return JSON.stringify([r.hooks ?? null, r.disableAllHooks ?? null, r.hooksConfig ?? null]);
  } catch {
    return undefined;
  }
}

/**
 * Why an agent's change of a hook file (`next` undefined: deleted) is refused, or undefined when it
 * leaves the hooks as they are (another setting changed) or the file never held Waymark's hook.
 */
export function hookFileChangeProblem(rel: string, before: string | undefined, next: string | undefined, workspaceHasHook: boolean): string | undefined {
  if (!holdsWaymarkHook(before)) {
    // Another settings file (settings.local.json, Copilot's settings, Codex's config.toml) can still turn every hook off.
    const off = workspaceHasHook && next !== undefined ? hooksSwitchedOff(rel, next) : undefined;
    if (off && off !== hooksSwitchedOff(rel, before)) return `${rel} would turn off every hook, Waymark's too (${off})`;
    return undefined;
  }
  if (next === undefined) return `deleting ${rel} removes Waymark's hook`;
  const was = hooksPart(rel, before!);
  const now = hooksPart(rel, next);
  if (now === undefined) return `${rel} would no longer be readable by the agent, which would then run none of its hooks`;
  if (was !== now) return `${rel} holds Waymark's hook, and this changes its hooks`;
  return undefined;
}

/** A TOML key (with its table) that switches Codex's hooks: `features.hooks`, `features.codex_hooks` (its old name). */
const TOML_HOOKS_SWITCH = /^features\.(?:codex_)?hooks\s*=/;

/**
 * What in a hook file turns every hook off, said for a refusal, or undefined: `disableAllHooks: true`
 * (Claude Code, Copilot CLI), `hooksConfig.enabled: false` or a `hooksConfig.disabled` list (Gemini
 * CLI), `[features] hooks = false` (Codex's config.toml).
 */
export function hooksSwitchedOff(rel: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (rel.endsWith('.toml')) {
    const off = hooksPart(rel, text)?.split('\n').find((l) => TOML_HOOKS_SWITCH.test(l) && /=\s*false\b/.test(l));
    return off ? off.replace(/\s+/g, ' ') : undefined;
  }
  try {
    const o = JSON.parse(jsoncToJson(text)) as unknown;
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined;
    const r = o as Record<string, unknown>;
    if (r.disableAllHooks === true) return 'disableAllHooks';
    const g = r.hooksConfig;
    if (typeof g === 'object' && g !== null && !Array.isArray(g)) {
      const c = g as Record<string, unknown>;
      if (c.enabled === false) return 'hooksConfig.enabled: false';
      if (Array.isArray(c.disabled) && c.disabled.length) return `hooksConfig.disabled: ${JSON.stringify(c.disabled)}`;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The hook files of a workspace that exist at fixed names (and .github/hooks/*.json). */
export function hookFilesOf(root: string, list: (dir: string) => string[]): string[] {
  const fixed = ['.claude/settings.json', '.claude/settings.local.json', '.gemini/settings.json', '.codex/hooks.json', '.codex/config.toml', '.cursor/hooks.json', '.github/copilot/settings.json', '.github/copilot/settings.local.json'];
  return [...fixed, ...list('.github/hooks').filter((n) => n.endsWith('.json')).map((n) => `.github/hooks/${n}`)].map((r) => `${root}/${r}`);
}

export const HOOKS_FIX = "- fix: an agent's hooks are the user's to change, not the agent's: leave the hooks as they are (other settings may change). The user removes Waymark's hook with waymark hook uninstall AGENT, or edits the file themselves.";
export const CONFIG_FIX = "- fix: .waymark/config.yaml decides which files Waymark judges and where its records live; it is the user's to change, not an agent's. Ask the user to make the change.";

/** `.gitattributes` (at the workspace's top or below it): where `waymark git install` writes its merge driver block. */
export const GITATTRIBUTES = /(?:^|\/)\.gitattributes$/;
const MERGE_BEGIN = '# >>> waymark merge driver';
const MERGE_END = '# <<< waymark merge driver';

/** The lines of Waymark's merge driver blocks in a `.gitattributes` text (CR left out), or undefined when it holds none. */
export function mergeDriverBlock(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const out: string[] = [];
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.startsWith(MERGE_BEGIN)) inBlock = true;
    if (inBlock) out.push(line);
    if (inBlock && line.startsWith(MERGE_END)) inBlock = false;
  }
  return out.length ? out.join('\n') : undefined;
}

/**
 * Why an agent's change of `.gitattributes` (`next` undefined: deleted) is refused: it removes or
 * changes Waymark's merge driver block (without it git merges state files line by line, and a
 * merge can rewind a step or a status). Other lines may change.
 */
export function gitattributesChangeProblem(rel: string, before: string | undefined, next: string | undefined): string | undefined {
  const was = mergeDriverBlock(before);
  if (was === undefined) return undefined;
  if (next === undefined) return `deleting ${rel} removes Waymark's merge driver, which merges state files without rewinding them`;
  if (mergeDriverBlock(next) !== was) return `${rel} holds Waymark's merge driver block, and this changes it`;
  return undefined;
}

export const MERGE_FIX = "- fix: the merge driver block is the user's to remove (waymark git uninstall) or write again (waymark git install); other lines of .gitattributes may change (with the Edit tool).";
export const JOURNAL_FIX = "- fix: .waymark/journal/ is Waymark's record of a change under way (its crash recovery): the next waymark command finishes or undoes the change and clears it. Leave it in place; if a change is stuck, run waymark status (it recovers) and tell the user.";

/**
 * Writing and removing exactly Waymark's entries in an agent's hook configuration
 * (`.claude/settings.json`, `.gemini/settings.json`, `.codex/hooks.json`, `.cursor/hooks.json`,
 * `.github/hooks/waymark.json`). The file is edited as text, never parsed and printed again: other
 * hooks, other keys (a 20-digit integer, comments), their order and the file's indentation stay
 * byte for byte, and uninstall after install gives back the original bytes.
 *
 * An entry is Waymark's only when its command is exactly a Waymark launcher followed by
 * `hook <agent>` (and optionally `--fail-closed`); a command that only contains those words
 * (`./audit.sh && waymark hook claude-code`, another tool's `cli.js hook claude-code`) is not.
 */
import { applyEdits, findNodeAtLocation, modify, parseTree, type Node as JsonNode, type ParseError } from 'jsonc-parser/lib/esm/main.js';
import type { HookAdapter, InstallSpec } from './port';
import { escapeRe, isOurCommand } from './agentHooks';

export { isOurCommand };

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

interface Format {
  insertSpaces: boolean;
  tabSize: number;
  eol: string;
}

function formatOf(text: string): Format {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /^[ \t]*[{[][ \t]*\r?\n([ \t]+)\S/.exec(text);
  if (!m) return { insertSpaces: true, tabSize: 2, eol };
  return m[1].includes('\t') ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: m[1].length, eol };
}

function parseSettings(text: string, file: string): JsonNode {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || !root) throw new SettingsError(`${file} is not valid JSON (at offset ${errors[0]?.offset ?? 0}); fix it first, then run this again. Nothing was changed.`);
  if (root.type !== 'object') throw new SettingsError(`${file} must hold a JSON object; nothing was changed.`);
  const hooks = findNodeAtLocation(root, ['hooks']);
  if (hooks && hooks.type !== 'object') throw new SettingsError(`"hooks" in ${file} is not an object; fix it first. Nothing was changed.`);
  return root;
}

/** The value of a string property of an object node. */
function stringProp(node: JsonNode, key: string): string | undefined {
  const v = findNodeAtLocation(node, [key]);
  return v && v.type === 'string' ? (v.value as string) : undefined;
}

/** The command of a hook entry (command, or Copilot CLI's bash). */
function entryCommand(entry: JsonNode): string | undefined {
  if (entry.type !== 'object') return undefined;
  return stringProp(entry, 'command') ?? stringProp(entry, 'bash');
}

/** The text ranges that remove `node` from its parent list (with the comma that joins it). */
function removal(node: JsonNode): { offset: number; length: number } {
  // A property's range is its parent property node; an array element is itself.
  const item = node.parent?.type === 'property' ? node.parent : node;
  const list = item.parent!;
  const siblings = list.children!;
  const i = siblings.indexOf(item);
  if (siblings.length === 1) return { offset: list.offset + 1, length: list.length - 2 };
  if (i > 0) {
    const prev = siblings[i - 1];
    return { offset: prev.offset + prev.length, length: item.offset + item.length - (prev.offset + prev.length) };
  }
  return { offset: item.offset, length: siblings[1].offset - item.offset };
}

/** Where Waymark's entries for `spec` sit in the parsed file, innermost first, each as the node to remove. */
function ourNodes(root: JsonNode, spec: InstallSpec, agent: string, launcher: string | undefined): { removed: number; nodes: JsonNode[] } {
  const hooks = findNodeAtLocation(root, ['hooks']);
  const nodes: JsonNode[] = [];
  let removed = 0;
  if (!hooks) return { removed, nodes };
  for (const prop of hooks.children ?? []) {
    const list = prop.children?.[1];
    if (!list || list.type !== 'array') continue;
    let emptiedItems = 0;
    for (const item of list.children ?? []) {
      if (spec.layout === 'flat') {
        if (isOurCommand(entryCommand(item), agent, launcher)) {
          nodes.push(item);
          removed++;
          emptiedItems++;
        }
        continue;
      }
      const inner = item.type === 'object' ? findNodeAtLocation(item, ['hooks']) : undefined;
      if (!inner || inner.type !== 'array') continue;
      const ours = (inner.children ?? []).filter((e) => isOurCommand(entryCommand(e), agent, launcher));
      if (!ours.length) continue;
      removed += ours.length;
      if (ours.length === inner.children!.length) {
        nodes.push(item);
        emptiedItems++;
      } else nodes.push(...ours);
    }
    if (emptiedItems && emptiedItems === list.children!.length) {
      // Every group of this event was Waymark's: the event's key goes too (install added it).
      for (let k = 0; k < emptiedItems; k++) nodes.pop();
      nodes.push(list);
    }
  }
  if (nodes.length && nodes.filter((n) => n.parent?.parent === hooks).length === hooks.children!.length) {
    return { removed, nodes: [hooks] };
  }
  return { removed, nodes };
}

/** `text` without the given nodes (removed from the last to the first, so offsets hold). */
function without(text: string, nodes: JsonNode[]): string {
  const cuts = nodes.map(removal).sort((a, b) => b.offset - a.offset);
  let out = text;
  for (const c of cuts) out = out.slice(0, c.offset) + out.slice(c.offset + c.length);
  return out;
}

/** The hook entry Waymark writes for one event, in the agent's shape. */
function entryFor(spec: InstallSpec, command: string, e: InstallSpec['events'][number]): unknown {
  const entry = spec.entry(command, e);
  if (spec.layout === 'flat') return entry;
  return { ...(e.matcher ? { matcher: e.matcher } : {}), hooks: [entry] };
}

const SKELETON = '{}\n';

/**
 * `text` with `value` appended to the non-empty array or object `list` (as `key` for an object),
 * written after its last item in the file's indentation; the items already there are not touched
 * (jsonc-parser's own insertion reformats the item before it).
 */
function append(text: string, list: JsonNode, value: unknown, f: Format, key?: string): string {
  const last = list.children![list.children!.length - 1];
  const lineStart = text.lastIndexOf('\n', last.offset) + 1;
  const lead = /^[ \t]*/.exec(text.slice(lineStart, last.offset))![0];
  const sameLine = text.lastIndexOf('\n', last.offset) < text.lastIndexOf(list.type === 'array' ? '[' : '{', last.offset);
  const unit = f.insertSpaces ? ' '.repeat(f.tabSize) : '\t';
  // An item on its container's opening line: the new one goes on that line too, after a space.
  const indent = sameLine ? '' : lead;
  const body = JSON.stringify(value, null, unit).split('\n').join(f.eol + indent);
  const item = (key !== undefined ? `${JSON.stringify(key)}: ` : '') + body;
  const at = last.offset + last.length;
  return text.slice(0, at) + ',' + (sameLine ? ' ' : f.eol + indent) + item + text.slice(at);
}

/** The settings text with Waymark's hook entries for `adapter` (replacing its earlier ones). */
export function installHooks(text: string | undefined, adapter: HookAdapter, command: string, file: string): { text: string; changed: boolean } {
  const spec = adapter.install;
  const launcher = command.replace(new RegExp(`\\s+hook\\s+${escapeRe(adapter.name)}.*$`), '');
  let out = text === undefined || text.trim() === '' ? SKELETON : text;
  let root = parseSettings(out, file);
  // Already exactly there: nothing to do (a second install changes no byte).
  if (text !== undefined && alreadyInstalled(root, spec, adapter.name, command, launcher)) return { text, changed: false };
  const { nodes } = ourNodes(root, spec, adapter.name, launcher);
  if (nodes.length) out = without(out, nodes);
  const formattingOptions = formatOf(out);
  for (const [key, value] of Object.entries(spec.top ?? {})) {
    root = parseSettings(out, file);
    if (findNodeAtLocation(root, [key])) continue;
    out = root.children?.length ? append(out, root, value, formattingOptions, key) : applyEdits(out, modify(out, [key], value, { formattingOptions }));
  }
  root = parseSettings(out, file);
  if (!findNodeAtLocation(root, ['hooks']) && root.children?.length) out = append(out, root, {}, formattingOptions, 'hooks');
  for (const e of spec.events) {
    root = parseSettings(out, file);
    const hooks = findNodeAtLocation(root, ['hooks']);
    const list = findNodeAtLocation(root, ['hooks', e.event]);
    const entry = entryFor(spec, command, e);
    if (list && list.type === 'array' && list.children?.length) out = append(out, list, entry, formattingOptions);
    else if (!list && hooks?.children?.length) out = append(out, hooks, [entry], formattingOptions, e.event);
    else out = applyEdits(out, modify(out, ['hooks', e.event], [entry], { formattingOptions }));
  }
  if (!out.endsWith(formattingOptions.eol)) out += formattingOptions.eol;
  return { text: out, changed: out !== text };
}

function alreadyInstalled(root: JsonNode, spec: InstallSpec, agent: string, command: string, launcher: string): boolean {
  for (const e of spec.events) {
    const list = findNodeAtLocation(root, ['hooks', e.event]);
    if (!list || list.type !== 'array') return false;
    const found = (list.children ?? []).some((item) => {
      // A group's matcher too: an install from before a matcher grew (MCP tools) is brought up to date.
      if (spec.layout !== 'flat' && findNodeAtLocation(item, ['matcher'])?.value !== e.matcher) return false;
      const entries = spec.layout === 'flat' ? [item] : (findNodeAtLocation(item, ['hooks'])?.children ?? []);
      return entries.some((x) => entryCommand(x) === command && JSON.stringify(nodeValue(x)) === JSON.stringify(spec.entry(command, e)));
    });
    if (!found) return false;
  }
  const { removed } = ourNodes(root, spec, agent, launcher);
  return removed === spec.events.length;
}

function nodeValue(n: JsonNode): unknown {
  if (n.type === 'object') return Object.fromEntries((n.children ?? []).map((p) => [p.children![0].value as string, nodeValue(p.children![1])]));
  if (n.type === 'array') return (n.children ?? []).map(nodeValue);
  return n.value;
}

/**
 * The settings text without Waymark's hook entries for `adapter`; `removed` counts them.
 * `text` undefined afterwards: the file held nothing else and should be deleted.
 */
export function uninstallHooks(text: string | undefined, adapter: HookAdapter, file: string, launcher?: string): { text: string | undefined; removed: number } {
  if (text === undefined) return { text, removed: 0 };
  const root = parseSettings(text, file);
  const { removed, nodes } = ourNodes(root, adapter.install, adapter.name, launcher);
  if (!removed) return { text, removed: 0 };
  let out = without(text, nodes);
  // Keys install added for the file's own format (Cursor's `version`) go when nothing else is left.
  const top = Object.keys(adapter.install.top ?? {});
  if (top.length) {
    const after = parseSettings(out, file);
    const keys = (after.children ?? []).map((p) => p.children![0].value as string);
    if (keys.every((k) => top.includes(k))) out = without(out, (after.children ?? []).map((p) => p.children![1]));
  }
  if (out.replace(/\s/g, '') === '{}' && text.replace(/\s/g, '') !== '{}') return { text: undefined, removed };
  return { text: out, removed };
}

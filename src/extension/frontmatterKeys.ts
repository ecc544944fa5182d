// Where the state keys sit in a workflow file, for hovers, decorations and "open at key".
// Positions come from the core's YAML locator (parser node ranges), never from text search.
import { isMap, isPair, isScalar, isSeq } from 'yaml';
import { YamlLocator, splitFrontmatter } from '../core/index';
import type { Range } from '../core/index';

export interface KeyEntry {
  key: string;
  keyRange: Range;
  valueRange?: Range;
  /** For a flow or block sequence value: each item's text and range. */
  items?: { value: string; range: Range }[];
  /** For a mapping value (e.g. `delegation`): its keys. */
  children?: KeyEntry[];
}

export interface FrontmatterLayout {
  /** Lines of the opening and closing fences (closing undefined when unclosed). */
  openLine: number;
  closeLine?: number;
  keys: KeyEntry[];
}

function entriesOf(node: unknown, loc: YamlLocator): KeyEntry[] {
  if (!isMap(node)) return [];
  const out: KeyEntry[] = [];
  for (const pair of node.items) {
    if (!isPair(pair) || !isScalar(pair.key) || !pair.key.range) continue;
    const key = String(pair.key.value);
    const kr = pair.key.range;
    const entry: KeyEntry = { key, keyRange: loc.offsetRange(kr[0], kr[1]) };
    const value = pair.value as { range?: [number, number, number] } | null;
    if (value?.range) entry.valueRange = loc.offsetRange(value.range[0], value.range[1]);
    if (isSeq(pair.value)) {
      entry.items = [];
      for (const item of pair.value.items) {
        if (isScalar(item) && item.range) entry.items.push({ value: String(item.value), range: loc.offsetRange(item.range[0], item.range[1]) });
      }
    } else if (isMap(pair.value)) {
      entry.children = entriesOf(pair.value, loc);
    }
    out.push(entry);
  }
  return out;
}

/** Layout of the frontmatter of `text`; undefined when it has none or it is not YAML. */
export function frontmatterLayout(text: string): FrontmatterLayout | undefined {
  const split = splitFrontmatter(text);
  if (!split.hasFrontmatter || split.language !== '') return undefined;
  const loc = new YamlLocator(split.yamlText, split.yamlStartLine);
  let keys: KeyEntry[] = [];
  try {
    keys = entriesOf(loc.document().contents, loc);
  } catch {
    keys = [];
  }
  const yamlLines = split.yamlText.split('\n').length - (split.yamlText.endsWith('\n') ? 1 : 0);
  return {
    openLine: split.yamlStartLine - 1,
    closeLine: split.closed ? split.yamlStartLine + yamlLines : undefined,
    keys,
  };
}

export function findKey(layout: FrontmatterLayout | undefined, ...names: string[]): KeyEntry | undefined {
  return layout?.keys.find((k) => names.includes(k.key));
}

function contains(r: Range, line: number, character: number): boolean {
  if (line < r.start.line || line > r.end.line) return false;
  if (line === r.start.line && character < r.start.character) return false;
  if (line === r.end.line && character > r.end.character) return false;
  return true;
}

/** The key (and list item, if any) under a position. */
export function keyAt(layout: FrontmatterLayout | undefined, line: number, character: number): { entry: KeyEntry; parent?: KeyEntry; item?: { value: string; range: Range }; onKey: boolean } | undefined {
  if (!layout) return undefined;
  for (const entry of layout.keys) {
    for (const child of entry.children ?? []) {
      if (contains(child.keyRange, line, character) || (child.valueRange && contains(child.valueRange, line, character))) {
        return { entry: child, parent: entry, onKey: contains(child.keyRange, line, character) };
      }
    }
    if (contains(entry.keyRange, line, character)) return { entry, onKey: true };
    const item = entry.items?.find((i) => contains(i.range, line, character));
    if (item) return { entry, item, onKey: false };
    if (entry.valueRange && contains(entry.valueRange, line, character)) return { entry, onKey: false };
  }
  return undefined;
}

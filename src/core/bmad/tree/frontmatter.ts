/**
 * The frontmatter subset BMAD's `tickets.py` reads (`key: value`, inline lists, quoted or bare
 * scalars), read the same way so a ticket means here what it means there, with each key's line.
 */

export type FmValue = string | number | boolean | FmValue[];

export interface LeafFrontmatter {
  data: Record<string, FmValue>;
  /** 0-based file line of each key. */
  lines: Map<string, number>;
  /** The block opened with `---` but never closed. */
  unclosed: boolean;
  /** A block list (`- x`) in strict mode, with its line: tickets.py refuses it. */
  blockListLine?: number;
}

const FRONTMATTER = /^---\n([\s\S]*?)\n---(?:\n|$)/;
const QUOTED_COMMENT = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s+#.*$/;

/**
 * Reads the block between the first two `---` lines. `lenient` skips indented and `- ` lines
 * (plans written from a build template); strict mode notes a block list as tickets.py refuses it.
 */
export function readLeafFrontmatter(text: string, lenient: boolean): LeafFrontmatter {
  const data: Record<string, FmValue> = Object.create(null);
  const lines = new Map<string, number>();
  const m = FRONTMATTER.exec(text);
  if (!m) return { data, lines, unclosed: text.startsWith('---') };
  let blockListLine: number | undefined;
  const body = /[\r\v\f\x1c-\x1e\x85\u2028\u2029]/.test(m[1]) ? m[1].split(/\r\n|\r|\n|\v|\f|\x1c|\x1d|\x1e|\x85|\u2028|\u2029/) : m[1].split('\n');
  for (let i = 0; i < body.length; i++) {
    const line = body[i];
    if (lenient && (/^\s/.test(line.slice(0, 1)) || line.startsWith('- '))) continue;
    if (line.trimStart().startsWith('- ')) {
      if (blockListLine === undefined) blockListLine = i + 1;
      continue;
    }
    if (!line.trim() || line.trimStart().startsWith('#') || !line.includes(':')) continue;
    const colon = line.indexOf(':');
    const key = line.slice(0, colon).trim();
    let value = line.slice(colon + 1).split('   #')[0].trim();
    const q = QUOTED_COMMENT.exec(value);
    if (q) value = q[1];
    data[key] = scalar(value);
    lines.set(key, i + 1);
  }
  return { data, lines, unclosed: false, blockListLine };
}

function scalar(value: string): FmValue {
  if (value.startsWith('[') && value.endsWith(']')) {
    const inner = value.slice(1, -1).trim();
    return inner ? inner.split(',').map((v) => scalar(v.trim())) : [];
  }
  if (value.length >= 2 && value[0] === value[value.length - 1] && (value[0] === '"' || value[0] === "'")) {
    if (value[0] === '"') {
      try {
        const parsed: unknown = JSON.parse(value);
        return String(parsed);
      } catch {
        return value.slice(1, -1);
      }
    }
    return value.slice(1, -1).replace(/''/g, "'");
  }
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^-?\d+$/.test(value)) return Number(value);
  return value;
}

/** Python's `str()` of a frontmatter or TOML value, as tickets.py prints it into messages and fields. */
export function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === undefined || v === null) return 'None';
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return String(v);
}

/** Python's `repr()` for the scalars tickets.py quotes in its messages. */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return v.includes("'") && !v.includes('"') ? `"${v}"` : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return pyStr(v);
}

/** `str(value).lower() == "true"`. */
export function pyFlag(v: unknown): boolean {
  return pyStr(v).toLowerCase() === 'true';
}

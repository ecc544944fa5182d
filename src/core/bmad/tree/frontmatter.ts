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

const QUOTED_COMMENT = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s+#.*$/;
const LEADING_SPACE = /^\s/;
const ODD_BREAK = /[\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
const ANY_BREAK = /\r\n|\r|\n|\v|\f|\x1c|\x1d|\x1e|\x85|\u2028|\u2029/;

/** The text between `---\n` and the first later `\n---` that ends its line or the text; undefined when there is none. */
function frontmatterBody(text: string): string | undefined {
  if (!text.startsWith('---\n')) return undefined;
  for (let at = text.indexOf('\n---', 4); at >= 0; at = text.indexOf('\n---', at + 1)) {
    const after = at + 4;
    if (after === text.length || text.charCodeAt(after) === 0x0a) return text.slice(4, at);
  }
  return undefined;
}

/**
 * Reads the block between the first two `---` lines. `lenient` skips indented and `- ` lines
 * (plans written from a build template); strict mode notes a block list as tickets.py refuses it.
 */
export function readLeafFrontmatter(text: string, lenient: boolean): LeafFrontmatter {
  const data: Record<string, FmValue> = Object.create(null);
  const lines = new Map<string, number>();
  // tickets.py reads files with universal newlines: CRLF and a lone CR end a line as LF does.
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  const fm = frontmatterBody(text);
  if (fm === undefined) return { data, lines, unclosed: text.startsWith('---') };
  let blockListLine: number | undefined;
  const body = ODD_BREAK.test(fm) ? fm.split(ANY_BREAK) : fm.split('\n');
  for (let i = 0; i < body.length; i++) {
    const line = body[i];
    if (lenient && (LEADING_SPACE.test(line) || line.startsWith('- '))) continue;
    const trimmed = line.trimStart();
    if (trimmed.startsWith('- ')) {
      if (blockListLine === undefined) blockListLine = i + 1;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon < 0 || !trimmed || trimmed.charCodeAt(0) === 0x23) continue;
    const key = line.slice(0, colon).trim();
    const rest = line.slice(colon + 1);
    const comment = rest.indexOf('   #');
    let value = (comment < 0 ? rest : rest.slice(0, comment)).trim();
    if (value.includes('#')) {
      const q = QUOTED_COMMENT.exec(value);
      if (q) value = q[1];
    }
    data[key] = scalar(value);
    lines.set(key, i + 1);
  }
  return { data, lines, unclosed: false, blockListLine };
}

/** Inline lists nested deeper than this are kept as text: `[[[…]]]` thousands deep overflowed the stack (a hook crashed, unchecked). */
const MAX_LIST_DEPTH = 64;

function scalar(value: string, depth = 0): FmValue {
  if (value.startsWith('[') && value.endsWith(']') && depth < MAX_LIST_DEPTH) {
    const inner = value.slice(1, -1).trim();
    return inner ? inner.split(',').map((v) => scalar(v.trim(), depth + 1)) : [];
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

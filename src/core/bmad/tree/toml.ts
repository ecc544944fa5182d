import { quoted } from '../../model/text';
/**
 * A TOML 1.0 reader that keeps positions: every table header and every key's line, so a problem
 * in `tickets.toml` lands on its exact line. Dates and times are kept as their text.
 */

/** A 0-based line and column. */
export interface TomlPos { line: number; character: number }

/** A table with where it and each of its keys were written. */
export interface TomlTable {
  [key: string]: TomlValue;
}
export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;

export interface TomlDoc {
  data: TomlTable;
  /** Where each table (by identity) was opened: `[x]`, `[[x]]`, or an inline table. */
  tablePos: Map<TomlTable, TomlPos>;
  /** Where each key of each table was written. */
  keyPos: Map<TomlTable, Map<string, TomlPos>>;
}

export class TomlError extends Error {
  constructor(message: string, readonly line: number, readonly character: number) {
    super(message);
  }
}

/** `[A-Za-z0-9_-]`: a bare key's characters. */
function isBare(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x5f || code === 0x2d;
}
/** `[0-9A-Za-z_+\-.:]`: the characters of a number, date or time. */
function isScalarChar(code: number): boolean {
  return isBare(code) || code === 0x2b || code === 0x2e || code === 0x3a;
}
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };
const DECIMAL = /^[+-]?(0|[1-9](_?\d)*)$/;

/** Parses TOML text; throws `TomlError` with the 0-based line and column of the first error. */
export function parseToml(text: string): TomlDoc {
  return new Parser(text).parse();
}

/** Inline arrays and tables nested deeper than this are refused (`x = [[[…]]]` thousands deep overflowed the stack: a hook crashed unchecked). */
const MAX_NESTING = 128;

class Parser {
  private i = 0;
  private line = 0;
  private lineStart = 0;
  // Plain maps and sets that die with the parse (weak ones cost every later garbage collection).
  private readonly doc: TomlDoc = { data: Object.create(null) as TomlTable, tablePos: new Map(), keyPos: new Map() };
  private readonly defined = new Set<TomlTable>(); // tables opened by a header (cannot be reopened)
  private readonly implicitTables = new Set<TomlTable>();
  private readonly inlineTables = new Set<TomlTable>(); // frozen once closed
  private readonly tableArrays = new Set<TomlValue[]>();

  constructor(private readonly s: string) {
    if (s.charCodeAt(0) === 0xfeff) this.i = 1;
  }

  parse(): TomlDoc {
    let current = this.doc.data;
    this.doc.tablePos.set(current, { line: 0, character: 0 });
    while (this.i < this.s.length) {
      this.skipWs();
      const c = this.s[this.i];
      if (c === undefined) break;
      if (c === '\n' || c === '\r') { this.newline(); continue; }
      if (c === '#') { this.skipComment(); continue; }
      if (c === '[') current = this.header();
      else this.keyValue(current);
      this.skipWs();
      if (this.s[this.i] === '#') this.skipComment();
      if (this.i < this.s.length) {
        if (this.s[this.i] !== '\n' && this.s[this.i] !== '\r') this.fail('expected the end of the line');
        this.newline();
      }
    }
    return this.doc;
  }

  private pos(): TomlPos { return { line: this.line, character: this.i - this.lineStart }; }

  private fail(message: string): never {
    throw new TomlError(`${message} (line ${this.line + 1}, column ${this.i - this.lineStart + 1})`, this.line, this.i - this.lineStart);
  }

  private skipWs(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }

  private skipComment(): void {
    while (this.i < this.s.length && this.s[this.i] !== '\n') {
      const code = this.s.charCodeAt(this.i);
      if ((code < 0x20 && code !== 0x09 && code !== 0x0d) || code === 0x7f) this.fail('control character in a comment');
      if (code === 0x0d && this.s[this.i + 1] !== '\n') this.fail('a carriage return without a line feed');
      if (code === 0x0d) break;
      this.i++;
    }
  }

  private newline(): void {
    if (this.s[this.i] === '\r') {
      if (this.s[this.i + 1] !== '\n') this.fail('a carriage return without a line feed');
      this.i++;
    }
    this.i++;
    this.line++;
    this.lineStart = this.i;
  }

  /** Skips whitespace, comments and newlines (inside arrays). */
  private skipAll(): void {
    for (;;) {
      this.skipWs();
      const c = this.s[this.i];
      if (c === '#') this.skipComment();
      else if (c === '\n' || c === '\r') this.newline();
      else return;
    }
  }

  private header(): TomlTable {
    const at = this.pos();
    const isArray = this.s[this.i + 1] === '[';
    this.i += isArray ? 2 : 1;
    this.skipWs();
    const keys = this.key();
    this.skipWs();
    if (isArray ? this.s.slice(this.i, this.i + 2) !== ']]' : this.s[this.i] !== ']') this.fail(`expected '${isArray ? ']]' : ']'}' to close the table header`);
    this.i += isArray ? 2 : 1;
    let t = this.doc.data;
    for (let k = 0; k < keys.length - 1; k++) t = this.descend(t, keys[k].name, keys[k].pos);
    const last = keys[keys.length - 1];
    const existing = Object.prototype.hasOwnProperty.call(t, last.name) ? t[last.name] : undefined;
    let table: TomlTable;
    if (isArray) {
      if (existing === undefined) {
        const arr: TomlValue[] = [];
        this.tableArrays.add(arr);
        t[last.name] = arr;
        this.setKeyPos(t, last.name, last.pos);
        table = this.newTable(at);
        arr.push(table);
      } else if (Array.isArray(existing) && this.tableArrays.has(existing)) {
        table = this.newTable(at);
        existing.push(table);
      } else this.fail(`${quoted(keys.map((k) => k.name).join('.'))} is already defined and is not an array of tables`);
    } else {
      if (existing === undefined) {
        table = this.newTable(at);
        t[last.name] = table;
        this.setKeyPos(t, last.name, last.pos);
      } else if (isTable(existing) && this.implicitTables.has(existing) && !this.defined.has(existing) && !this.inlineTables.has(existing)) {
        table = existing;
        this.doc.tablePos.set(table, at);
      } else this.fail(`table ${quoted(keys.map((k) => k.name).join('.'))} is defined twice`);
      this.defined.add(table);
    }
    this.defined.add(table);
    return table;
  }

  private newTable(at: TomlPos): TomlTable {
    const t = Object.create(null) as TomlTable;
    this.doc.tablePos.set(t, at);
    return t;
  }

  private descend(t: TomlTable, name: string, at: TomlPos, dotted = false): TomlTable {
    const v = Object.prototype.hasOwnProperty.call(t, name) ? t[name] : undefined;
    if (v === undefined) {
      const n = this.newTable(at);
      this.implicitTables.add(n);
      if (dotted) this.defined.add(n);
      t[name] = n;
      this.setKeyPos(t, name, at);
      return n;
    }
    if (Array.isArray(v)) {
      if (!this.tableArrays.has(v) || dotted) this.fail(`${quoted(name)} is already defined as a value`);
      return v[v.length - 1] as TomlTable;
    }
    if (!isTable(v) || this.inlineTables.has(v)) this.fail(`${quoted(name)} is already defined as a value`);
    if (dotted && this.defined.has(v) && !this.implicitTables.has(v)) this.fail(`table ${quoted(name)} is already defined`);
    return v;
  }

  private setKeyPos(t: TomlTable, name: string, at: TomlPos): void {
    let m = this.doc.keyPos.get(t);
    if (!m) this.doc.keyPos.set(t, (m = new Map()));
    if (!m.has(name)) m.set(name, at);
  }

  private key(): { name: string; pos: TomlPos }[] {
    const out: { name: string; pos: TomlPos }[] = [];
    for (;;) {
      this.skipWs();
      const at = this.pos();
      const c = this.s[this.i];
      let name: string;
      if (c === '"' || c === "'") name = this.quotedString(c, false);
      else {
        const start = this.i;
        while (this.i < this.s.length && isBare(this.s.charCodeAt(this.i))) this.i++;
        if (this.i === start) this.fail('expected a key');
        name = this.s.slice(start, this.i);
      }
      out.push({ name, pos: at });
      this.skipWs();
      if (this.s[this.i] !== '.') return out;
      this.i++;
    }
  }

  private keyValue(table: TomlTable): void {
    const keys = this.key();
    this.skipWs();
    if (this.s[this.i] !== '=') this.fail(`expected '=' after the key ${quoted(keys.map((k) => k.name).join('.'))}`);
    this.i++;
    this.skipWs();
    let t = table;
    for (let k = 0; k < keys.length - 1; k++) t = this.descend(t, keys[k].name, keys[k].pos, true);
    const last = keys[keys.length - 1];
    if (Object.prototype.hasOwnProperty.call(t, last.name)) { this.i = this.lineStart + last.pos.character; this.fail(`the key ${quoted(keys.map((k) => k.name).join('.'))} is defined twice`); }
    const v = this.value();
    t[last.name] = v;
    this.setKeyPos(t, last.name, last.pos);
  }

  /** How deep inline arrays and tables are nested where the parser is: past MAX_NESTING it fails (the stack would overflow first). */
  private nesting = 0;

  private value(): TomlValue {
    const c = this.s[this.i];
    if (c === '"' || c === "'") return this.quotedString(c, this.s.startsWith(c.repeat(3), this.i));
    if (c === '[' || c === '{') {
      if (this.nesting >= MAX_NESTING) this.fail(`arrays and inline tables nest more than ${MAX_NESTING} deep here; flatten the value`);
      this.nesting++;
      try {
        return c === '[' ? this.array() : this.inlineTable();
      } finally {
        this.nesting--;
      }
    }
    if (this.s.startsWith('true', this.i) && !isBare(this.s.charCodeAt(this.i + 4))) { this.i += 4; return true; }
    if (this.s.startsWith('false', this.i) && !isBare(this.s.charCodeAt(this.i + 5))) { this.i += 5; return false; }
    return this.scalar();
  }

  private scalar(): TomlValue {
    const start = this.i;
    while (this.i < this.s.length && isScalarChar(this.s.charCodeAt(this.i))) this.i++;
    // A date-time may hold one space between date and time.
    if (this.s[this.i] === ' ' && /^\d{4}-\d{2}-\d{2}$/.test(this.s.slice(start, this.i)) && /\d/.test(this.s[this.i + 1] ?? '')) {
      this.i++;
      while (this.i < this.s.length && isScalarChar(this.s.charCodeAt(this.i))) this.i++;
    }
    const raw = this.s.slice(start, this.i);
    if (!raw) this.fail('expected a value');
    if (DECIMAL.test(raw)) return raw.includes('_') ? Number(raw.replace(/_/g, '')) : Number(raw);
    if (/^0x[0-9A-Fa-f](_?[0-9A-Fa-f])*$/.test(raw)) return parseInt(raw.slice(2).replace(/_/g, ''), 16);
    if (/^0o[0-7](_?[0-7])*$/.test(raw)) return parseInt(raw.slice(2).replace(/_/g, ''), 8);
    if (/^0b[01](_?[01])*$/.test(raw)) return parseInt(raw.slice(2).replace(/_/g, ''), 2);
    if (/^[+-]?(0|[1-9](_?\d)*)(\.\d(_?\d)*)?([eE][+-]?\d(_?\d)*)?$/.test(raw)) return Number(raw.replace(/_/g, ''));
    if (/^[+-]?(inf|nan)$/.test(raw)) return raw.endsWith('inf') ? (raw.startsWith('-') ? -Infinity : Infinity) : NaN;
    if (/^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?)?$/.test(raw) || /^\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(raw)) return raw;
    this.i = start;
    this.fail(`'${raw.slice(0, 40)}' is not a TOML value (strings need quotes)`);
  }

  /** A basic (`"`, with escapes) or literal (`'`) string, one-line or multi-line (three quotes). */
  private quotedString(quote: '"' | "'", multi: boolean): string {
    const basic = quote === '"';
    const closing = quote.repeat(3);
    this.i += multi ? 3 : 1;
    if (multi && (this.s[this.i] === '\n' || this.s.startsWith('\r\n', this.i))) this.newline();
    let out = '';
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) this.fail('the string does not close');
      if (multi && this.s.startsWith(closing, this.i)) {
        let q = 3;
        while (q < 5 && this.s[this.i + q] === quote) q++;
        out += quote.repeat(q - 3);
        this.i += q;
        return out;
      }
      if (!multi && c === quote) { this.i++; return out; }
      if (c === '\n' || c === '\r') {
        if (!multi) this.fail('a one-line string does not close on its line');
        out += '\n';
        this.newline();
        continue;
      }
      if (basic && c === '\\') {
        const e = this.s[this.i + 1];
        if (e !== undefined && e in ESCAPES) { out += ESCAPES[e]; this.i += 2; continue; }
        if (e === 'u' || e === 'U') {
          const n = e === 'u' ? 4 : 8;
          const hex = this.s.slice(this.i + 2, this.i + 2 + n);
          if (!new RegExp(`^[0-9A-Fa-f]{${n}}$`).test(hex)) this.fail('a bad unicode escape');
          const cp = parseInt(hex, 16);
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail('a unicode escape outside the scalar values');
          out += String.fromCodePoint(cp);
          this.i += 2 + n;
          continue;
        }
        if (multi) {
          // A line-ending backslash trims the newline and the whitespace after it.
          let j = this.i + 1;
          while (this.s[j] === ' ' || this.s[j] === '\t') j++;
          if (this.s[j] === '\n' || this.s[j] === '\r') {
            this.i = j;
            this.skipAll();
            continue;
          }
        }
        this.fail(`a bad escape '\\${e ?? ''}'`);
      }
      out += basic ? this.plainRun(0x22, 0x5c) : this.plainRun(0x27, 0);
    }
  }

  /**
   * This character and the plain ones after it, up to a quote (`quote`), a backslash (`stop`, when
   * not 0), a line end or the end, as one slice; fails on a control character.
   */
  private plainRun(quote: number, stop: number): string {
    const start = this.i;
    const s = this.s;
    for (let first = true; ; first = false) {
      const code = s.charCodeAt(this.i);
      if (code !== code) break; // NaN: the end of the text
      if (!first && (code === quote || code === stop || code === 0x0a || code === 0x0d)) break;
      if ((code < 0x20 && code !== 0x09) || code === 0x7f) this.fail('a control character in a string');
      this.i++;
    }
    return s.slice(start, this.i);
  }


  private array(): TomlValue[] {
    this.i++;
    const out: TomlValue[] = [];
    for (;;) {
      this.skipAll();
      if (this.s[this.i] === ']') { this.i++; break; }
      out.push(this.value());
      this.skipAll();
      if (this.s[this.i] === ',') { this.i++; continue; }
      if (this.s[this.i] === ']') { this.i++; break; }
      this.fail("expected ',' or ']' in the array");
    }
    return out;
  }

  private inlineTable(): TomlTable {
    const t = this.newTable(this.pos());
    this.i++;
    this.skipWs();
    if (this.s[this.i] === '}') { this.i++; this.inlineTables.add(t); return t; }
    for (;;) {
      this.skipWs();
      this.keyValue(t);
      this.skipWs();
      if (this.s[this.i] === ',') { this.i++; continue; }
      if (this.s[this.i] === '}') { this.i++; break; }
      this.fail("expected ',' or '}' in the inline table");
    }
    this.inlineTables.add(t);
    this.markInline(t);
    return t;
  }

  private markInline(t: TomlTable): void {
    for (const k in t) {
      const v = t[k];
      if (isTable(v)) { this.inlineTables.add(v); this.markInline(v); }
    }
  }
}

export function isTable(v: unknown): v is TomlTable {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

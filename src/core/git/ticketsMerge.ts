/**
 * BMAD v7's `tickets.toml` merged entry by entry, for git's merge driver (mergeDriver.ts). An
 * entry (`[[entry]]`, `[[epic]]`) is known by its `id` (`6` and `"6"` are one id): entries each
 * side added are both kept, in build order (the other side's after the entry they followed there);
 * an entry both sides edited is merged key by key; an entry one side removed and the other left
 * alone goes. What cannot be decided is a conflict block naming the entry and the key: two sides
 * writing one key differently, an entry removed on one side and edited on the other, the same id
 * added twice for different tickets. Keys outside the entries (`next_id`) merge the same way, a
 * `next_id` never going down (ids are never reused).
 *
 * Only the layout is read here (tables, keys, where each value ends, comments going with the key
 * or table below them); the text of every key is kept byte for byte. A file whose layout cannot be
 * read (an unclosed string or array, a table without `id`, one id twice) is left to git's own text merge.
 */

import { judgePlanStatusMove, planStatusRank } from '../bmad/planStatus';

/** One `key = value` with the comment and blank lines above it; `text` ends with its line break. */
interface TomlItem {
  key: string;
  text: string;
}

/** A table: its header (and what is above it), then its keys; the preamble has no header. */
interface TomlBlock {
  /** `entry:6`, `epic:2`, `table:meta`, or '' for the keys before the first table. */
  ident: string;
  /** `[[entry]]` with the comment and blank lines above it; '' for the preamble. */
  head: string;
  items: TomlItem[];
}

interface TomlLayout {
  blocks: TomlBlock[];
  /** Comment and blank lines after the last key of the file. */
  tail: string;
  eol: string;
}

/** Why a layout could not be read. */
class LayoutError extends Error {}

const ENTRY_TABLES = new Set(['entry', 'epic']);

function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The line where a value starting at `lines[i]` column `col` ends (arrays, inline tables and strings may span lines). */
function valueEnd(lines: string[], i: number, col: number): number {
  let depth = 0;
  let s: 'none' | 'basic' | 'literal' | 'mbasic' | 'mliteral' = 'none';
  for (let li = i; li < lines.length; li++) {
    const line = lines[li].replace(/\r?\n$/, '');
    let c = li === i ? col : 0;
    while (c < line.length) {
      const ch = line[c];
      if (s === 'basic' || s === 'mbasic') {
        if (ch === '\\') {
          c += 2;
          continue;
        }
        if (s === 'basic' && ch === '"') s = 'none';
        else if (s === 'mbasic' && line.startsWith('"""', c)) {
          c += 3;
          while (line[c] === '"') c++;
          s = 'none';
          continue;
        }
        c++;
        continue;
      }
      if (s === 'literal' || s === 'mliteral') {
        if (s === 'literal' && ch === "'") s = 'none';
        else if (s === 'mliteral' && line.startsWith("'''", c)) {
          c += 3;
          while (line[c] === "'") c++;
          s = 'none';
          continue;
        }
        c++;
        continue;
      }
      if (ch === '#') break;
      if (line.startsWith('"""', c)) {
        s = 'mbasic';
        c += 3;
        continue;
      }
      if (line.startsWith("'''", c)) {
        s = 'mliteral';
        c += 3;
        continue;
      }
      if (ch === '"') s = 'basic';
      else if (ch === "'") s = 'literal';
      else if (ch === '[' || ch === '{') depth++;
      else if (ch === ']' || ch === '}') {
        depth--;
        if (depth < 0) throw new LayoutError(`line ${li + 1}: a closing ${ch} with nothing open`);
      }
      c++;
    }
    if (s === 'basic' || s === 'literal') throw new LayoutError(`line ${li + 1}: a string does not close on its line`);
    if (depth === 0 && s === 'none') return li;
  }
  throw new LayoutError(`line ${i + 1}: the value does not close`);
}

/** Where the key of a `key = value` line ends (its `=`), quotes in the key respected; -1 when the line has none. */
function equalsAt(line: string): number {
  let q = '';
  for (let c = 0; c < line.length; c++) {
    const ch = line[c];
    if (q) {
      if (ch === '\\' && q === '"') c++;
      else if (ch === q) q = '';
      continue;
    }
    if (ch === '"' || ch === "'") q = ch;
    else if (ch === '=') return c;
    else if (ch === '#') return -1;
  }
  return -1;
}

/** `6`, `"6"` and `'6'` are the id 6; `"6a"` the id 6a; undefined for anything else. */
function idOf(itemText: string): string | undefined {
  const line = itemText.split('\n').find((l) => equalsAt(l) >= 0 && l.slice(0, equalsAt(l)).trim() === 'id');
  if (!line) return undefined;
  const raw = line.slice(equalsAt(line) + 1).replace(/\s+#.*$/, '').trim();
  const m = /^(?:"([0-9A-Za-z]+)"|'([0-9A-Za-z]+)'|([0-9]+))$/.exec(raw);
  if (!m) return undefined;
  const v = m[1] ?? m[2] ?? m[3];
  return /^[0-9]+$/.test(v) ? String(Number(v)) : v;
}

/** The layout of a `tickets.toml` text; throws LayoutError when it cannot be read. */
function readLayout(text: string): TomlLayout {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // Every line ends with its break, so a table moved elsewhere never runs into the next line.
  const lines = linesOf(text !== '' && !text.endsWith('\n') ? text + eol : text);
  const blocks: TomlBlock[] = [{ ident: '', head: '', items: [] }];
  let pending = '';
  // A sub-table of an entry (`[entry.x]`, `[[epic.after]]`) is one item of that entry.
  let sub: TomlItem | undefined;
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const bare = line.trim();
    if (bare === '' || bare.startsWith('#')) {
      pending += line;
      continue;
    }
    const cur = blocks[blocks.length - 1];
    const header = /^\s*(\[\[?)\s*([^\]]+?)\s*(\]\]?)\s*(?:#.*)?$/.exec(line.replace(/\r?\n$/, ''));
    if (header && bare.startsWith('[')) {
      const name = header[2].replace(/\s*\.\s*/g, '.');
      const array = header[1] === '[[';
      const parent = name.split('.')[0];
      if (name.includes('.') && ENTRY_TABLES.has(parent) && cur.ident.startsWith(`${parent}:`)) {
        const n = cur.items.filter((x) => x.key.startsWith(`[${name}]`)).length;
        sub = { key: `[${name}]#${n}`, text: pending + line };
        cur.items.push(sub);
        pending = '';
        continue;
      }
      sub = undefined;
      const kind = array && ENTRY_TABLES.has(name) ? name : 'table';
      const n = seen.get(name) ?? 0;
      seen.set(name, n + 1);
      blocks.push({ ident: kind === 'table' ? `table:${name}${array ? `#${n}` : ''}` : `${kind}:?`, head: pending + line, items: [] });
      pending = '';
      continue;
    }
    const eq = equalsAt(line);
    if (eq <= 0 || !line.slice(0, eq).trim()) throw new LayoutError(`line ${i + 1}: neither a table, a key = value nor a comment`);
    const end = valueEnd(lines, i, eq + 1);
    const text = pending + lines.slice(i, end + 1).join('');
    pending = '';
    if (sub) sub.text += text;
    else cur.items.push({ key: line.slice(0, eq).trim(), text });
    i = end;
  }
  const ids = new Set<string>();
  for (const b of blocks) {
    if (!b.ident.endsWith(':?')) continue;
    const kind = b.ident.slice(0, -2);
    const idItem = b.items.find((x) => x.key === 'id');
    const id = idItem ? idOf(idItem.text) : undefined;
    if (id === undefined) throw new LayoutError(`an [[${kind}]] table has no id Waymark reads`);
    b.ident = `${kind}:${id}`;
    if (ids.has(b.ident)) throw new LayoutError(`two ${kind} tables with id ${id}`);
    ids.add(b.ident);
  }
  const keys = new Set<string>();
  for (const b of blocks) {
    keys.clear();
    for (const it of b.items) {
      if (keys.has(it.key)) throw new LayoutError(`${b.ident || 'the top'}: key ${it.key} twice`);
      keys.add(it.key);
    }
  }
  return { blocks, tail: pending, eol };
}

/** One decision of the merge, for the driver's report. */
export interface TomlDecision {
  key: string;
  reason: string;
  conflict: boolean;
}

export interface TomlMergeOptions {
  labels: { ours: string; theirs: string };
  markerSize: number;
}

/** Merges the three texts, or undefined when one's layout cannot be read (git's text merge decides). */
export function mergeTicketsToml(base: string, ours: string, theirs: string, opts: TomlMergeOptions): { text: string; conflicts: number; decisions: TomlDecision[] } | { unreadable: string } {
  let b: TomlLayout;
  let o: TomlLayout;
  let t: TomlLayout;
  try {
    b = base.trim() ? readLayout(base) : { blocks: [{ ident: '', head: '', items: [] }], tail: '', eol: '\n' };
    o = readLayout(ours);
    t = readLayout(theirs);
  } catch (e) {
    if (e instanceof LayoutError) return { unreadable: e.message };
    throw e;
  }
  const eol = o.eol;
  const size = opts.markerSize;
  const decisions: TomlDecision[] = [];
  let conflicts = 0;
  const normal = (s: string | undefined) => s?.replace(/\r\n/g, '\n');
  const withEol = (s: string) => (s === '' || s.endsWith('\n') ? s : s + eol);
  const conflict = (why: string, mine: string, other: string): string => {
    conflicts++;
    return `${'<'.repeat(size)} ${opts.labels.ours} (waymark: ${why})${eol}${withEol(mine)}${'='.repeat(size)}${eol}${withEol(other)}${'>'.repeat(size)} ${opts.labels.theirs}${eol}`;
  };
  const name = (ident: string) => (ident === '' ? 'the top of the file' : ident.replace(/^(entry|epic):/, '$1 ').replace(/^table:/, 'table '));
  const textOf = (x: TomlBlock) => x.head + x.items.map((i) => i.text).join('');

  /** Keys of one table, decided one by one. */
  const mergeItems = (bb: TomlBlock | undefined, ob: TomlBlock, tb: TomlBlock): string => {
    const where = name(ob.ident);
    const [bm, om, tm] = [new Map((bb?.items ?? []).map((i) => [i.key, i.text])), new Map(ob.items.map((i) => [i.key, i.text])), new Map(tb.items.map((i) => [i.key, i.text]))];
    const order = mergeOrder([...bm.keys()], [...om.keys()], [...tm.keys()]);
    let out = decideOne(bb?.head, ob.head, tb.head, `${where}: its header`) ?? '';
    for (const k of order) {
      const r = decideOne(bm.get(k), om.get(k), tm.get(k), `${where}: ${k}`, k);
      if (r !== undefined) out += r;
    }
    return out;
  };

  /** One value (a key's text, a whole table's): undefined when it goes. */
  const decideOne = (bv: string | undefined, ov: string | undefined, tv: string | undefined, what: string, key?: string): string | undefined => {
    if (normal(ov) === normal(tv)) return ov;
    if (key === 'next_id' && ov !== undefined && tv !== undefined) {
      // Ids are never reused: the counter never goes down, whoever changed it.
      const [x, y, z] = [numberIn(ov), numberIn(tv), bv === undefined ? 0 : numberIn(bv)];
      if (x !== undefined && y !== undefined && z !== undefined) {
        decisions.push({ key: what, reason: 'the largest kept (ids are never reused)', conflict: false });
        return x >= y ? (x >= z ? ov : bv) : y >= z ? tv : bv;
      }
    }
    const did = (side: string, v: string | undefined) => (v === undefined ? `${side} removed it` : bv === undefined ? `${side} added it` : `only ${side} changed it`);
    if (normal(ov) === normal(bv)) {
      decisions.push({ key: what, reason: did('theirs', tv), conflict: false });
      return tv;
    }
    if (normal(tv) === normal(bv)) {
      decisions.push({ key: what, reason: did('ours', ov), conflict: false });
      return ov;
    }
    const why = ov === undefined ? 'ours removed it, theirs changed it' : tv === undefined ? 'theirs removed it, ours changed it' : 'both sides changed it';
    decisions.push({ key: what, reason: why, conflict: true });
    return conflict(`${what}: ${why}`, ov ?? '', tv ?? '');
  };

  const [bm, om, tm] = [new Map(b.blocks.map((x) => [x.ident, x])), new Map(o.blocks.map((x) => [x.ident, x])), new Map(t.blocks.map((x) => [x.ident, x]))];
  let out = '';
  for (const ident of ['', ...mergeOrder(b.blocks.slice(1).map((x) => x.ident), o.blocks.slice(1).map((x) => x.ident), t.blocks.slice(1).map((x) => x.ident))]) {
    const [bb, ob, tb] = [bm.get(ident), om.get(ident), tm.get(ident)];
    const [bt, ot, tt] = [bb && textOf(bb), ob && textOf(ob), tb && textOf(tb)];
    if (ob && tb) {
      if (normal(ot) === normal(tt)) out += ot;
      else if (!bb && ident !== '') {
        decisions.push({ key: name(ident), reason: 'both sides added it, differently', conflict: true });
        out += conflict(`${name(ident)}: both sides added this id for different tickets; keep one and give the other a new id`, ot!, tt!);
      } else out += mergeItems(bb, ob, tb);
      continue;
    }
    out += decideOne(bt, ot, tt, name(ident)) ?? '';
  }
  out += decideOne(b.tail, o.tail, t.tail, 'the end of the file') ?? '';
  // Ours had no final line break: the merge has none either.
  if (ours !== '' && !ours.endsWith('\n') && out.endsWith(eol)) out = out.slice(0, -eol.length);
  return { text: out, conflicts, decisions };
}

function numberIn(itemText: string): number | undefined {
  const m = /=\s*([0-9]+)\s*(?:#.*)?$/m.exec(itemText);
  return m ? Number(m[1]) : undefined;
}

/** True when `side` keeps the keys it shares with `base` in base's order. */
function sameOrder(base: string[], side: string[]): boolean {
  const inSide = new Set(side);
  const inBase = new Set(base);
  const a = base.filter((k) => inSide.has(k));
  const b = side.filter((k) => inBase.has(k));
  return a.every((k, i) => k === b[i]);
}

/**
 * Every key of either side, in one order: the order of the side that reordered (ours when
 * neither or both did), the other side's new keys after the key they followed there (and after
 * the first side's own new keys at that place).
 */
export function mergeOrder(base: string[], ours: string[], theirs: string[]): string[] {
  const [first, second] = !sameOrder(base, theirs) && sameOrder(base, ours) ? [theirs, ours] : [ours, theirs];
  const inBase = new Set(base);
  const out = [...first];
  const placed = new Set(out);
  for (let i = 0; i < second.length; i++) {
    const k = second[i];
    if (placed.has(k)) continue;
    let at = 0;
    for (let j = i - 1; j >= 0; j--) {
      const p = out.indexOf(second[j]);
      if (p >= 0) {
        at = p + 1;
        break;
      }
    }
    while (at < out.length && !inBase.has(out[at]) && first.includes(out[at])) at++;
    out.splice(at, 0, k);
    placed.add(k);
  }
  return out;
}

/**
 * A plan's `status` (BMAD v7) from base, ours and theirs, by BMAD's build order
 * (bmad/planStatus.ts): both sides changed it → the further one (done and dropped, or two
 * words as far along, are a conflict); one side changed it → that side, unless it moves done work
 * back or un-starts started work (a build sent back for rework, in-review or built → in-progress,
 * stays; dropping stays unless the other side has it done).
 */
export function mergePlanStatus(base: string | undefined, ours: string | undefined, theirs: string | undefined): { value?: string; side?: 'ours' | 'theirs'; reason: string } {
  if (ours === theirs) return { value: ours, reason: 'same on both sides' };
  const [ro, rt] = [planStatusRank(ours), planStatusRank(theirs)];
  const oneSided = (changed: string | undefined, kept: string | undefined, who: 'ours' | 'theirs', other: 'ours' | 'theirs') => {
    if (changed === undefined) return { value: kept, side: other, reason: `${who} removed it; kept` };
    if (kept === undefined || planStatusRank(changed) === undefined || planStatusRank(kept) === undefined) return { value: changed, side: who, reason: `only ${who} changed it` };
    if (kept === 'done') return { value: kept, side: other, reason: `${who} moved it from done to ${changed}; done work is never rewound` };
    if (judgePlanStatusMove(kept, changed, 'X').some((p) => p.code === 'status-transition')) return { value: kept, side: other, reason: `${who} moved it back from ${kept} to ${changed}; the further status kept` };
    return { value: changed, side: who, reason: `only ${who} changed it` };
  };
  if (ours === base) return oneSided(theirs, ours, 'theirs', 'ours');
  if (theirs === base) return oneSided(ours, theirs, 'ours', 'theirs');
  if (ours === undefined || theirs === undefined) return { value: ours ?? theirs, side: ours === undefined ? 'theirs' : 'ours', reason: 'one side removed it; kept' };
  if (ro !== undefined && rt !== undefined && ro !== rt) {
    return ro > rt ? { value: ours, side: 'ours', reason: `both changed it; ${ours} is further than ${theirs}` } : { value: theirs, side: 'theirs', reason: `both changed it; ${theirs} is further than ${ours}` };
  }
  return { reason: `both sides changed it (${ours} / ${theirs}) and neither is further along` };
}

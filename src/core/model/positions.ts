import { isMap, isSeq, isScalar, isPair, type Document, type Node } from 'yaml';
import { parseDocument } from './yamlDepth';
import type { Position, Range } from '../types';
import { plainKeySpans } from './frontmatter';
import type { ValueSpan } from './plainYaml';

export type PathSeg = string | number;

/**
 * The `yaml` documents of the last few YAML texts: a write parses its frontmatter once for the
 * problems' positions (the read), the edit (edit.ts) and the positions of what it wrote, so the
 * same text is asked for again and again. Parsed with duplicate keys as errors (the editor refuses
 * them); the locator leaves those errors out (`uniqueKeys` adds nothing else: same nodes, same
 * offsets). Nobody modifies a document: the edit computes byte splices, the locator reads offsets.
 */
const recentDocs: { text: string; doc: Document }[] = [];
const RECENT_DOCS = 4;

export function yamlDocument(text: string): Document {
  for (let i = 0; i < recentDocs.length; i++) {
    if (recentDocs[i].text === text) {
      const hit = recentDocs[i];
      if (i > 0) {
        recentDocs.splice(i, 1);
        recentDocs.unshift(hit);
      }
      return hit.doc;
    }
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  recentDocs.unshift({ text, doc });
  if (recentDocs.length > RECENT_DOCS) recentDocs.pop();
  return doc;
}
/** What part of the addressed entry the range covers. */
export type RangeTarget = 'key' | 'value' | 'entry';

/** Offsets [start, end) of the node at `path` inside the document's source, or of the deepest ancestor found. */
export function offsetsForPath(doc: Document, path: PathSeg[], target: RangeTarget): [number, number] | undefined {
  let node: unknown = doc.contents;
  let best: [number, number] | undefined = rangeOf(node);
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && keyString(p.key) === String(seg));
      if (!pair) return best;
      const keyRange = rangeOf(pair.key);
      const valueRange = rangeOf(pair.value);
      if (last) {
        if (target === 'key') return keyRange ?? valueRange ?? best;
        if (target === 'value') return valueRange ?? keyRange ?? best;
        if (keyRange && valueRange) return [keyRange[0], valueRange[1]];
        return keyRange ?? valueRange ?? best;
      }
      best = keyRange ?? best;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      const r = rangeOf(item);
      if (!r) return best;
      if (last) return r;
      best = r;
      node = item;
    } else {
      return best;
    }
  }
  return best;
}

function keyString(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  if (key === null || key === undefined) return undefined;
  return String(key);
}

function rangeOf(node: unknown): [number, number] | undefined {
  const r = (node as Node | undefined)?.range;
  if (!r) return undefined;
  return [r[0], Math.max(r[0], r[1])];
}

/** Line starts of a text, for offset → position conversion. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

export function positionAt(starts: number[], text: string, offset: number, baseLine = 0): Position {
  const off = Math.max(0, Math.min(offset, text.length));
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= off) lo = mid;
    else hi = mid - 1;
  }
  let character = off - starts[lo];
  // Never point inside a CRLF pair.
  if (character > 0 && text.charCodeAt(off - 1) === 13 && text.charCodeAt(off) === 10) character--;
  return { line: lo + baseLine, character };
}

/** Range for `path` in a YAML text whose first line is line `baseLine` of the file. */
export function rangeForPath(doc: Document, path: PathSeg[], target: RangeTarget, yamlText: string, baseLine: number): Range | undefined {
  const offs = offsetsForPath(doc, path, target);
  if (!offs) return undefined;
  const starts = lineStarts(yamlText);
  return { start: positionAt(starts, yamlText, offs[0], baseLine), end: positionAt(starts, yamlText, offs[1], baseLine) };
}

/**
 * Resolves key paths to ranges in one frontmatter block. The `yaml` document is built lazily,
 * only when a problem needs a position (it is several times slower than the scan parser).
 */
export class YamlLocator {
  private starts?: number[];
  constructor(
    readonly yamlText: string,
    /** 0-based file line of the YAML text's first line. */
    readonly baseLine: number,
  ) {}

  document(): Document {
    // Not kept here: a problem's lazy range keeps its locator, and a model of 10,000 states must not keep 10,000 documents.
    return yamlDocument(this.yamlText);
  }

  offsetRange(start: number, end: number): Range {
    this.starts ??= lineStarts(this.yamlText);
    return { start: positionAt(this.starts, this.yamlText, start, this.baseLine), end: positionAt(this.starts, this.yamlText, Math.max(start, end), this.baseLine) };
  }

  /** Range of the key / value / item at `path`; falls back to the nearest ancestor, then to the first line. */
  range(path: PathSeg[], target: RangeTarget = 'key'): Range {
    // A top-level key (most problems are placed on one) is placed by the fast reader when it takes
    // the text: a first `validate` then never loads the `yaml` package for its stored answer.
    if (path.length === 1 && typeof path[0] === 'string') {
      const plain = this.plainRange(path[0], target);
      if (plain) return plain;
    }
    let offs: [number, number] | undefined;
    try {
      offs = offsetsForPath(this.document(), path, target);
    } catch {
      offs = undefined;
    }
    if (!offs) return this.lineRange(0);
    return this.offsetRange(offs[0], offs[1]);
  }

  /** The range of a top-level key, its value or both from the fast reader's spans, when it has them. */
  private plainRange(key: string, target: RangeTarget): Range | undefined {
    const spans = plainKeySpans(this.yamlText, key);
    if (!spans) return undefined;
    const from = spans.key;
    if (target === 'key') return this.spanRange(from, from);
    // A value not on its key's line (a block, a block scalar, nothing): the parser places it.
    const to = spans.own;
    if (!to) return undefined;
    return target === 'value' ? this.spanRange(to, to) : this.spanRange(from, to);
  }

  private spanRange(from: ValueSpan, to: ValueSpan): Range {
    return { start: { line: this.baseLine + from.row, character: from.start }, end: { line: this.baseLine + to.row, character: to.end } };
  }

  /** The first YAML syntax error's range and message, if any. */
  syntaxError(): { range: Range; message: string } | undefined {
    // A duplicate key is the validator's finding (with its own code), not a syntax error.
    const err = this.document().errors.find((e) => e.code !== 'DUPLICATE_KEY');
    if (!err) return undefined;
    const start = err.pos?.[0] ?? 0;
    const end = err.pos?.[1] ?? start;
    return { range: this.offsetRange(start, Math.max(end, start)), message: err.message.split('\n')[0] };
  }

  /** Range covering YAML line `i` (0-based within the YAML text). */
  lineRange(i: number): Range {
    this.starts ??= lineStarts(this.yamlText);
    const s = this.starts[Math.min(i, this.starts.length - 1)] ?? 0;
    let e = this.yamlText.indexOf('\n', s);
    if (e === -1) e = this.yamlText.length;
    return this.offsetRange(s, e);
  }
}

// Block scalars (`|`, `>-`, `|2+`, ...) in the fast frontmatter reader (src/core/model/plainYaml.ts)
// against the reference path (js-yaml through gray-matter, then toPlainData): on every input
// either the fast reader declines, or the whole parse (data, error, unsafe keys, split) and the
// delegation ranges are the same as the reference's. Inputs: generated documents mixing every
// indicator, indentation, blank line, trailing space and line ending, and a fixed list of edges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import fc from 'fast-check';
import { parseFrontmatter, setFastReader, DEFAULT_FRONTMATTER_LIMITS } from '../../src/core/model/frontmatter';
import { parsePlainYaml } from '../../src/core/model/plainYaml';
import { parseWorkflowText } from '../../src/core/model/workflow';
import { defaultWorkspaceContext } from '../../src/core/store/workspaceContext';

const RUNS = Number(process.env.WAYMARK_FUZZ_RUNS ?? 1500);

function withoutFastParse<T>(f: () => T): T {
  setFastReader(false);
  try {
    return f();
  } finally {
    setFastReader(undefined);
  }
}

/** Compares fast and reference on one YAML block; returns whether the fast reader answered. */
function same(yaml: string, eol = '\n'): boolean {
  const text = `---${eol}${yaml}${yaml.endsWith(eol) || yaml === '' ? '' : eol}---${eol}body${eol}`;
  const { delegationSpans: _spans, ...fast } = parseFrontmatter(text);
  // Spans are the fast reader's alone (the reference answers the key undefined).
  const { delegationSpans: _refSpans, ...ref } = withoutFastParse(() => parseFrontmatter(text));
  assert.deepStrictEqual(fast, ref, `fast and reference differ on ${JSON.stringify(yaml)}`);
  return parsePlainYaml(fast.split.yamlText, DEFAULT_FRONTMATTER_LIMITS.maxNodes) !== undefined;
}

// One block scalar: its header, where its lines sit, and what follows it.
const CONTENT = ['text', 'two words', 'trailing  ', 'a: b', '- item', '# not a comment', '[x, y]', 'é ü', '"q"', "'q'", '123', 'true', '~', '|', '>', 'x #y', '---x', '...'];
type BodyLine = { extra: number; t: string } | { blank: number };
interface Block { style: string; chomp: string; width: string; widthFirst: boolean; comment: string; step: number; leading: number[]; lines: BodyLine[]; trailing: number[]; after: string }
const bodyLine: fc.Arbitrary<BodyLine> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(0, 0, 0, 1, 2, 3), fc.constantFrom(...CONTENT)).map(([extra, t]) => ({ extra, t })) },
  // Blank lines: empty, or spaces only (fewer, as many as, or more than the content's indent).
  { weight: 2, arbitrary: fc.constantFrom(0, 1, 2, 3, 5, 7).map((n) => ({ blank: n })) },
);
const block: fc.Arbitrary<Block> = fc.record({
  style: fc.constantFrom('|', '>'),
  chomp: fc.constantFrom('', '-', '+'),
  width: fc.constantFrom('', '', '1', '2', '3', '4'),
  widthFirst: fc.boolean(),
  comment: fc.constantFrom('', '', ' ', '  # a comment', ' #c', '#bad', ' x'),
  // Content indentation beyond the key's.
  step: fc.constantFrom(1, 2, 2, 3, 4),
  leading: fc.array(fc.constantFrom(0, 1, 2, 4, 6), { maxLength: 2 }),
  lines: fc.array(bodyLine, { maxLength: 6 }),
  trailing: fc.array(fc.constantFrom(0, 1, 2, 4, 6), { maxLength: 3 }),
  after: fc.constantFrom('key', 'key', 'comment', 'deep-comment', 'less', 'end'),
});

function renderBlock(key: string, b: Block, pad: number, lines: string[], last: boolean): void {
  const ind = b.widthFirst ? b.width + b.chomp : b.chomp + b.width;
  lines.push(`${' '.repeat(pad)}${key}: ${b.style}${ind}${b.comment}`);
  const base = pad + b.step;
  for (const n of b.leading) lines.push(' '.repeat(n));
  for (const l of b.lines) lines.push('blank' in l ? ' '.repeat(l.blank) : ' '.repeat(base + l.extra) + l.t);
  for (const n of b.trailing) lines.push(' '.repeat(n));
  if (last) return;
  if (b.after === 'comment') lines.push(`${' '.repeat(pad)}# after`);
  else if (b.after === 'deep-comment') lines.push(`${' '.repeat(base)}# inside or after`);
  else if (b.after === 'less' && base > pad + 1) lines.push(`${' '.repeat(pad + 1)}stray: x`);
}

const docArb = fc.record({
  blocks: fc.array(block, { minLength: 1, maxLength: 3 }),
  nested: fc.constantFrom(0, 0, 1, 2, 4),
  endWithBlock: fc.boolean(),
});

function renderDoc(d: typeof docArb extends fc.Arbitrary<infer T> ? T : never): string[] {
  const lines = ['workflow: w', 'status: in_progress'];
  if (d.nested) lines.push('parent:');
  d.blocks.forEach((b, i) => {
    const last = d.endWithBlock && i === d.blocks.length - 1;
    renderBlock(`k${i}`, b, d.nested, lines, last);
    if (!last && b.after !== 'end') lines.push(`${' '.repeat(d.nested)}next${i}: v`);
  });
  return lines;
}

test('generated block scalars: the fast reader answers as js-yaml does, and answers most of them', () => {
  let answered = 0;
  let total = 0;
  fc.assert(
    fc.property(docArb, fc.constantFrom('\n', '\r\n'), (d, eol) => {
      total++;
      if (same(renderDoc(d).join(eol), eol)) answered++;
    }),
    { numRuns: RUNS },
  );
  // A reader that declines every block scalar would pass the comparison: it must carry them.
  assert.ok(answered / total > 0.2, `fast reader answered only ${answered} of ${total}`);
});

test('well-formed block scalars (the shapes agents write) are answered by the fast reader', () => {
  const wellFormed = block.filter((b) => (b.comment === '' || b.comment.startsWith(' ')) && b.comment !== ' x' && b.after !== 'less');
  fc.assert(
    fc.property(wellFormed, fc.constantFrom('\n', '\r\n'), (b, eol) => {
      const lines = ['workflow: w'];
      // The first content line sets the indentation: it is not more indented than the rest.
      const first = b.lines.findIndex((l) => !('blank' in l));
      const body = b.lines.map((l, i) => ('blank' in l ? { blank: 0 } : i === first ? { ...l, extra: 0 } : l));
      renderBlock('notes', { ...b, width: '', leading: [], lines: body, trailing: b.trailing.map(() => 0) }, 0, lines, false);
      lines.push('status: done');
      assert.ok(same(lines.join(eol), eol), `declined ${JSON.stringify(lines)}`);
    }),
    { numRuns: Math.ceil(RUNS / 3) },
  );
});

test('fixed block scalars: chomping, indicators, folding, blank and more-indented lines, comments, ends', () => {
  const cases: [string, boolean | undefined][] = [
    // [yaml, whether the fast reader must answer (undefined: either way, as long as it agrees)]
    ['notes: >-\n  A folded\n  paragraph.\n\n  Second.\nstatus: done\n', true],
    ['notes: |\n  line 1\n  line 2\n', true],
    ['notes: |-\n  line 1\n  line 2\n\n\n', true],
    ['notes: |+\n  line 1\n  line 2\n\n\nnext: 1\n', true],
    ['notes: >+\n  a\n\n', true],
    ['notes: >\n  a\n  b\n\n  c\n    more\n    indented\n  d\n', true],
    ['notes: >\n    lead more\n  a\n', undefined],
    ['notes: >\n  a\n\n    more\n\n  b\n', true],
    ['notes: |2\n   three spaces\n  two\n', true],
    ['notes: |1\n  two\n', true],
    ['notes: >2-\n    x\n  y\n', true],
    ['notes: |-2\n    x\n', true],
    ['notes: |0\n  x\n', false],
    ['notes: |22\n  x\n', false],
    ['notes: |+-\n  x\n', false],
    ['notes: |--\n  x\n', false],
    ['notes: | # a comment\n  x\n', true],
    ['notes: |#bad\n  x\n', false],
    ['notes: | x\n  y\n', false],
    ['notes: |\n  # kept, not a comment\n  x\n# a comment\nnext: 1\n', true],
    ['notes: |\n    x\n  # less indented comment ends it\nnext: 1\n', true],
    ['notes: |\n    x\n  y\n', false],
    ['notes: |\nnext: 1\n', true],
    ['notes: |+\n\n\nnext: 1\n', true],
    ['notes: |-\n\n   \nnext: 1\n', true],
    ['notes: |\n      \n  x\n', undefined],
    ['notes: |\n  \n  x\n   \n  y\n  \n', true],
    ['notes: >\n  x\n     \n  y\n', true],
    ['notes: |\n  trailing   \n', true],
    ['notes: |\n  123\n', true],
    ['notes: >-\n  true\n', true],
    ['notes: |\n  x', true],
    ['notes: |\n  x\n  ', undefined],
    ['notes: |', undefined],
    ['notes: |\n\tx\n', false],
    ['notes: |\n  a\tb\n', false],
    ['parent:\n  notes: |\n    x\n  next: 1\n', true],
    ['parent:\n  notes: >-\n   x\n   y\nnext: 1\n', true],
    ['parent:\n  notes: |\n  x\n', false],
    ['list:\n  - |\n    x\n', false],
    ['a: 1\nnotes: |\n  x\n  notes: |\n', true],
    ['notes: |\n  x\nnotes: |\n  y\n', false],
    ['notes: &a |\n  x\n', false],
    ['notes: !!str |\n  x\n', false],
  ];
  for (const [yaml, answers] of cases) {
    for (const eol of ['\n', '\r\n']) {
      const got = same(yaml.replace(/\n/g, eol), eol);
      if (answers !== undefined) assert.equal(got, answers, `fast reader ${answers ? 'declined' : 'answered'} ${JSON.stringify(yaml)}`);
    }
  }
});

test('exact values: the fast reader gives the YAML 1.2 value, not just the same as the reference', () => {
  const value = (yaml: string) => parsePlainYaml(yaml, DEFAULT_FRONTMATTER_LIMITS.maxNodes)?.v;
  assert.equal(value('v: |\n  a\n  b\n\n'), 'a\nb\n');
  assert.equal(value('v: |-\n  a\n  b\n\n'), 'a\nb');
  assert.equal(value('v: |+\n  a\n  b\n\n'), 'a\nb\n\n');
  assert.equal(value('v: >\n  a\n  b\n\n  c\n'), 'a b\nc\n');
  assert.equal(value('v: >-\n  a\n    b\n  c\n'), 'a\n  b\nc');
  assert.equal(value('v: |2\n   a\n  b\n'), ' a\nb\n');
});

test('a delegation value written as a block scalar keeps the parser\'s ranges', () => {
  const ctx = defaultWorkspaceContext(os.tmpdir());
  const blocks = ['delegation:\n  id: a\n  chain_path: |\n    a\n  root_id: r\n', 'delegation:\n  id: >-\n    wf-1\n  root_id: r\n', 'notes: |\n  x\ndelegation:\n  id: a\n  root_id: r\n'];
  for (const b of blocks) {
    for (const eol of ['\n', '\r\n']) {
      const text = `---${eol}workflow: w${eol}${b.replace(/\n/g, eol)}---${eol}`;
      assert.ok(parsePlainYaml(text.split(`---${eol}`)[1], DEFAULT_FRONTMATTER_LIMITS.maxNodes), JSON.stringify(b));
      const fast = parseWorkflowText('/x/w.md', text, ctx);
      const ref = withoutFastParse(() => parseWorkflowText('/x/w.md', text, ctx));
      assert.deepStrictEqual(fast.state?.delegationRanges, ref.state?.delegationRanges, JSON.stringify(text));
      assert.deepStrictEqual(fast.problems, ref.problems, JSON.stringify(text));
    }
  }
});

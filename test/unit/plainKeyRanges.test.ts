// A problem on a top-level key is placed from the fast reader's positions when it takes the text
// (positions.ts YamlLocator.range → frontmatter.ts plainKeySpans), so a first `validate` does not
// load and run the `yaml` package for its stored answer. The oracle is the `yaml` parser's
// placement: the same locator with the fast reader turned off. Texts: generated frontmatter in and
// out of the reader's subset (comments, quotes, lists, blocks, block scalars, tabs, long keys,
// anchors, duplicates), with LF, CRLF and lone CR line ends; every key asked for as key, value and entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { YamlLocator, type RangeTarget } from '../../src/core/model/positions';
import { plainKeySpans, setFastReader } from '../../src/core/model/frontmatter';

const RUNS = Number(process.env.WAYMARK_FUZZ_RUNS ?? 1500);
const KEYS = ['workflowType', 'workflow', 'stepsCompleted', 'status', 'currentStep', 'lastStep', 'ttl', 'scope', 'delegation', 'a', 'k-1', 'K_2'];
const TARGETS: RangeTarget[] = ['key', 'value', 'entry'];

const SAFE = ['prd', 'architecture', 'in-progress', 'done', "'quoted'", '"double"', "'it''s'", "''", '""', '7', '-5', '2026-11-20', 'true', 'null', '~', 'yes', 'a b c', 'x#y',
  'x # note', "'a' # note", '[a, b]', '[ a ,b ]', '[]', "['a', \"b\"]", '[a] # note', 'http://x.y/z', 'v  ', '_bmad-output/x.md', 'step-01-init', '[1, 2, 3]'];
const RISKY = ['"with \\"escape\\""', '1.5', '2026-11-20T10:00:00Z', '[a, [b]]', '{a: 1}', '{}', 'é ü', '日本', '&anchor v', '*alias', '!!str v', '!tag v', '|', '>-', '|2', '>', 'a: b',
  "'multi", '"multi', '[a,', '- a', '? q', '@a', '`a', '%a', ':x', '-x', 'v\t', '\tv'];
const scalar = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...SAFE) }, { weight: 1, arbitrary: fc.constantFrom(...RISKY) });
const key = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: fc.constantFrom('true', '__proto__', '"workflow"', "'status'", 'a b', '1', 'é') });
const indent = fc.constantFrom('', '', '', ' ', '  ', '    ', '\t');

const line = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(key, scalar).map(([k, v]) => `${k}: ${v}`) },
  { weight: 3, arbitrary: fc.tuple(indent, key, scalar).map(([i, k, v]) => `${i}${k}: ${v}`) },
  { weight: 2, arbitrary: fc.tuple(key, fc.constantFrom('', ' ', '  # c')).map(([k, c]) => `${k}:${c}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('  ', '', '    '), scalar).map(([i, v]) => `${i}- ${v}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('  ', '    ', ' '), fc.constantFrom('text', 'more text', '', 'k: v', '# not a comment')).map(([i, t]) => `${i}${t}`) },
  { weight: 2, arbitrary: fc.constantFrom('', '# comment', '  # indented comment', '   ', '---', '...', '<<: *a', 'x: &a 1', 'k:v', 'k : v', 'k:  ') },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('workflow', 'k', 'status'), fc.integer({ min: 1000, max: 1100 })).map(([k, n]) => `${k}${'x'.repeat(n)}: v`) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 1100 }).map((n) => `steps: [${Array.from({ length: Math.ceil(n / 9) }, (_, i) => `step-${i}`).join(', ')}]`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** Top-level entries, each with a value of some shape: what frontmatter mostly is. */
const entry = fc.tuple(key, fc.oneof(
  { weight: 5, arbitrary: scalar.map((v) => [` ${v}`]) },
  { weight: 1, arbitrary: fc.array(scalar, { minLength: 1, maxLength: 3 }).map((vs) => ['', ...vs.map((v) => `  - ${v}`)]) },
  { weight: 1, arbitrary: fc.uniqueArray(fc.tuple(fc.constantFrom('id', 'root_id', 'x'), scalar), { minLength: 1, maxLength: 3, selector: (e) => e[0] }).map((es) => ['', ...es.map(([k, v]) => `  ${k}: ${v}`)]) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(' |', ' >-', ' |+', ' >2'), fc.array(fc.constantFrom('  line', '    deeper', '', '  workflow: not a key'), { maxLength: 3 })).map(([h, ls]) => [h, ...ls]) },
), fc.constantFrom('', '', ' ', '  # note', ' #x')).map(([k, [first, ...rest], tail]) => [`${k}:${first}${first === '' ? '' : tail}`, ...rest]);

const text = fc.oneof(
  { weight: 5, arbitrary: fc.uniqueArray(entry, { maxLength: 8, selector: (e) => e[0].slice(0, e[0].indexOf(':')) }).map((es) => es.flat()) },
  { weight: 2, arbitrary: fc.array(fc.oneof({ weight: 3, arbitrary: entry }, { weight: 1, arbitrary: line.map((l) => [l]) }), { maxLength: 10 }).map((es) => es.flat()) },
);

function oracle(yaml: string, path: string, target: RangeTarget) {
  setFastReader(false);
  try {
    return new YamlLocator(yaml, 1).range([path], target);
  } finally {
    setFastReader(undefined);
  }
}

test("top-level key ranges from the fast reader equal the yaml parser's, for every target and line end", () => {
  let texts = 0;
  let placedIn = 0;
  fc.assert(
    fc.property(text, fc.constantFrom('\n', '\n', '\r\n', '\r'), fc.boolean(), (lines, eol, lastEnd) => {
      const yaml = lines.join(eol) + (lastEnd ? eol : '');
      let placed = false;
      for (const k of KEYS) {
        if (plainKeySpans(yaml, k)) placed = true;
        for (const t of TARGETS) assert.deepStrictEqual(new YamlLocator(yaml, 1).range([k], t), oracle(yaml, k, t), `${k} (${t}) in ${JSON.stringify(yaml)}`);
      }
      texts++;
      if (placed) placedIn++;
    }),
    { numRuns: RUNS * 2 },
  );
  // A reader that never placed anything would pass the comparison: it must carry the common case.
  assert.ok(placedIn / texts > 0.2, `the fast reader placed keys in only ${placedIn} of ${texts} texts`);
});

test('the ranges BMAD artifacts ask for: workflowType, workflow and stepsCompleted, placed without the yaml parser', () => {
  const yaml = "---\nstepsCompleted: [1, 2, 3]\ninputDocuments:\n  - 'docs/prd.md'\nworkflowType: 'architecture'\nworkflow: bmad-create-architecture # the skill\nproject_name: x\n".slice(4);
  for (const eol of ['\n', '\r\n']) {
    const y = yaml.replace(/\n/g, eol);
    for (const k of ['workflowType', 'workflow', 'stepsCompleted']) {
      assert.ok(plainKeySpans(y, k), k);
      for (const t of TARGETS) assert.deepStrictEqual(new YamlLocator(y, 1).range([k], t), oracle(y, k, t), `${k} ${t} ${JSON.stringify(eol)}`);
    }
    assert.deepStrictEqual(new YamlLocator(y, 1).range(['workflowType']), { start: { line: 4, character: 0 }, end: { line: 4, character: 12 } });
    assert.deepStrictEqual(new YamlLocator(y, 1).range(['workflowType'], 'value'), { start: { line: 4, character: 14 }, end: { line: 4, character: 28 } });
    // Not taken by the reader (an anchor; a lone CR): the parser places them, as before.
    assert.equal(plainKeySpans(`${y}a: &x 1${eol}`, 'workflowType'), undefined);
    assert.equal(plainKeySpans(yaml.replace(/\n/g, '\r'), 'workflowType'), undefined);
  }
});

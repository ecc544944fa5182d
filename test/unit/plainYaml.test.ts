// The fast frontmatter reader (src/core/model/plainYaml.ts) against the reference path (js-yaml
// through gray-matter, then toPlainData): on every input either it declines, or the whole parse
// (data, error, unsafe keys, split) is the same as the reference's. Inputs: generated well-formed
// documents in the subset it reads, generated line soup with hostile pieces, and a fixed list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { scanRoots } from '../../src/core/store/scan';
import { parseWorkflowText } from '../../src/core/model/workflow';
import { hasLongLine, safeYamlParse } from '../../src/core/model/frontmatter';
import { defaultWorkspaceContext } from '../../src/core/store/workspaceContext';
import { parseFrontmatter, setFastReader, DEFAULT_FRONTMATTER_LIMITS } from '../../src/core/model/frontmatter';
import { parsePlainYaml } from '../../src/core/model/plainYaml';

const RUNS = Number(process.env.WAYMARK_FUZZ_RUNS ?? 1500);

/** The reference answer: the same call with the fast reader turned off. */
function reference(text: string, limits = DEFAULT_FRONTMATTER_LIMITS) {
  setFastReader(false);
  try {
    return parseFrontmatter(text, limits);
  } finally {
    setFastReader(undefined);
  }
}

/** Compares fast and reference on one YAML block; returns whether the fast reader answered. */
function same(yaml: string, eol = '\n', limits = DEFAULT_FRONTMATTER_LIMITS): boolean {
  const text = `---${eol}${yaml}${yaml.endsWith(eol) || yaml === '' ? '' : eol}---${eol}body${eol}`;
  const { delegationSpans: _spans, ...fast } = parseFrontmatter(text, limits);
  // Spans are the fast reader's alone (the reference answers the key undefined).
  const { delegationSpans: _refSpans, ...ref } = reference(text, limits);
  assert.deepStrictEqual(fast, ref, `fast and reference differ on ${JSON.stringify(yaml)}`);
  return parsePlainYaml(fast.split.yamlText, limits.maxNodes) !== undefined;
}

// Scalars: the ones a workflow uses, and ones that look alike but resolve to other types or fail.
const SAFE_SCALARS = ['30d', '2h', '7D', '3rd', '0d', '_bmad-output/x.md', '_x', '1st-pass', 'a', 'in_progress', 'design', 'step-01-init', 'wf-12', 'Feature number 7', 'sess-3', 'agent-4', '0', '7', '42', '-5', '2026-11-20', "'2026-11-20T10:00:00Z'", '"quoted text"', "'it''s'", 'true', 'false', 'null', '~', 'yes', 'No', 'on', 'y', '/docs/a.md', 'a, b', 'C3PO', 'x#y', 'http://example.com/a', 'True', 'NULL', "''", '""', 'é'];
const RISKY_SCALARS = ['_e1', '_b1', '00x1', '10b', '0B1', '0e', '_1e', '1_e5', '_1', '_1_', '1_000', '0b1', '0x1', '0o7', '1e5', '1E5', '12e', '_', '__', '1:2', '1d:2', '0_7', '.md', '-a', '-1a',
  '-0', '007', '0x1F', '0o17', '0b101', '1_000', '1e3', '1.5', '.5', '.inf', '-.Inf', '.NaN', '+1', '1:30', '1.2.3', '2026-02-30', '0000-01-01', '2026-1-5',
  '2026-11-20T10:00:00Z', '2026-11-20 10:00:00', '123456789012345678', 'a: b', 'a:', 'a #c', '-a', '- a', '?a', ':a', '&a', '*a', '!a', '!!str a', '|', '>', '%a', '@a', '`a',
  '"a\\"b"', '"a\\nb"', "'a'b", '"a"b', "'multi", '"multi', '[a, b]', '[a,b,]', '[a,,b]', '[]', '[ ]', '[[a]]', '[a, [b]]', '{}', '{a: 1}', '[a: 1]', '[a #c]', '[a, "b", \'c\']',
  '[1, -2, 2026-01-01, true, ~]', '[a b, c]', 'ü x', '日本', '😀', '\u00A0x', 'x\u00A0', 'a\u2028b', 'a\u0085b', '\u0001', 'a\u00A0#c', '__proto__', '<<', '=', '#', '# c',
];
const scalar = fc.constantFrom(...SAFE_SCALARS, ...RISKY_SCALARS);
const safeScalar = fc.constantFrom(...SAFE_SCALARS);
const KEYS = ['workflow', 'status', 'steps', 'stepsCompleted', 'currentStep', 'delegation', 'id', 'chain_path', 'title', 'k-1', 'K', 'a'];
const key = fc.constantFrom(...KEYS);

/** A well-formed document in the subset the fast reader handles (risky scalars mixed in). */
type Node = { kind: 'scalar'; v: string } | { kind: 'flow'; items: string[] } | { kind: 'seq'; items: string[]; compact: boolean } | { kind: 'map'; entries: [string, Node][] };
const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: fc.oneof({ weight: 4, arbitrary: safeScalar }, { weight: 1, arbitrary: scalar }).map((v) => ({ kind: 'scalar' as const, v })) },
    { weight: 2, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: safeScalar }, { weight: 1, arbitrary: scalar }), { maxLength: 5 }).map((items) => ({ kind: 'flow' as const, items })) },
    { weight: 2, arbitrary: fc.record({ items: fc.array(fc.oneof({ weight: 4, arbitrary: safeScalar }, { weight: 1, arbitrary: scalar }), { minLength: 1, maxLength: 4 }), compact: fc.boolean() }).map((r) => ({ kind: 'seq' as const, ...r })) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.tuple(key, tie('node')), { minLength: 1, maxLength: 4, selector: (e) => e[0] }).map((entries) => ({ kind: 'map' as const, entries })) },
  ),
}));
const doc = fc.record({
  entries: fc.uniqueArray(fc.tuple(key, node), { maxLength: 8, selector: (e) => e[0] }),
  indent: fc.constantFrom(1, 2, 4),
  comments: fc.boolean(),
  blank: fc.boolean(),
  trailing: fc.constantFrom('', ' ', '  # note'),
});

function render(entries: [string, Node][], pad: string, step: string, lines: string[], o: { comments: boolean; blank: boolean; trailing: string }): void {
  for (const [k, n] of entries) {
    if (o.comments) lines.push(`${pad}# about ${k}`);
    if (n.kind === 'scalar') lines.push(`${pad}${k}: ${n.v}${o.trailing}`);
    else if (n.kind === 'flow') lines.push(`${pad}${k}: [${n.items.join(', ')}]${o.trailing}`);
    else if (n.kind === 'seq') {
      lines.push(`${pad}${k}:${o.trailing}`);
      for (const it of n.items) lines.push(`${n.compact ? pad : pad + step}- ${it}${o.trailing}`);
    } else {
      lines.push(`${pad}${k}:`);
      render(n.entries, pad + step, step, lines, o);
    }
    if (o.blank) lines.push('');
  }
}

test('well-formed documents: the fast reader answers as the reference does, and answers most of them', () => {
  let answered = 0;
  let total = 0;
  fc.assert(
    fc.property(doc, fc.constantFrom('\n', '\r\n'), (d, eol) => {
      const lines: string[] = [];
      render(d.entries, '', ' '.repeat(d.indent), lines, d);
      total++;
      if (same(lines.join(eol), eol)) answered++;
    }),
    { numRuns: RUNS },
  );
  // A reader that always declines would pass the comparison: it must carry the common case.
  assert.ok(answered / total > 0.4, `fast reader answered only ${answered} of ${total}`);
});

const INDENTS = ['', ' ', '  ', '   ', '    ', '\t', ' \t'];
const soupLine = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...INDENTS), fc.constantFrom(...KEYS, 'true', 'null', '__proto__', 'constructor', '1', '_k', 'é', 'a b', '"q"', "'q'", '? k', '<<', 'a:b'), scalar).map(([i, k, v]) => `${i}${k}: ${v}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...INDENTS), key).map(([i, k]) => `${i}${k}:`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...INDENTS), scalar).map(([i, v]) => `${i}- ${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('-', '# c', '', '   ', '  # c', '...', '--- x', '%YAML 1.2', 'k:v', 'k : v', 'k:  ', 'k: &a x', 'j: *a', '<<: *a', 'k: !!binary aGk=', 'k: |', '  text', 'k: >-', 'k: "a', '  b"', "k: 'a", "  b'", 'k: [a,', '  b]') },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...INDENTS), scalar).map(([i, v]) => `${i}${v}`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 16 }) },
);

test('line soup with hostile pieces: the fast reader never answers differently', () => {
  fc.assert(
    fc.property(fc.array(soupLine, { maxLength: 12 }), fc.constantFrom('\n', '\r\n', '\r'), (lines, eol) => {
      same(lines.join(eol), eol);
    }),
    { numRuns: RUNS * 2 },
  );
});

test('fixed inputs: duplicates, prototypes, limits, dates, numbers, comments, indentation', () => {
  const cases: [string, boolean | undefined][] = [
    // [yaml, whether the fast reader must answer (undefined: either way, as long as it agrees)]
    ['workflow: feature\nstatus: in_progress\nsteps: [design, implement]\n', true],
    ['a: 1\na: 2\n', false],
    ['__proto__: x\n', false],
    ['constructor: x\n', false],
    ['delegation:\n  id: a\n  __proto__: b\n', false],
    ['a: -0\n', false],
    ['a: 007\n', false],
    ['a: 2026-02-30\n', true],
    ['a: 0000-01-01\n', true],
    ['a: 2026-11-20T10:00:00Z\n', false],
    ['a: b\n  c\n', false],
    ['a:\n  - x\n  - y\nb: 1\n', true],
    ['a:\n- x\n- y\nb: 1\n', true],
    ['a:\n  b:\n    c: [1, 2]\n  d: ~\n', true],
    ['a:\n\n  # c\n  b: 1\n', true],
    ['a: b # c\n', true],
    ['a: b#c\n', true],
    ["a: 'x' # c\n", true],
    ["a: 'x'#c\n", undefined],
    ['a: "x\\ty"\n', false],
    ['a:\tb\n', false],
    ['  a: 1\n  b: 2\n', false],
    ['a: 1\n b: 2\n', false],
    ['a: [b, c] x\n', undefined],
    ['a: {}\n', true],
    ['a: []\n', true],
    ['# only a comment\n', true],
    ['', undefined],
    ['true: 1\n', false],
    ['a: y\nb: no\nc: On\n', true],
    ['a: x\u00A0\n', true],
    ['a: \u00A0x\n', undefined],
    ['a: &x 1\nb: *x\n', false],
    ['a: 123456789012345\n', true],
    ['a: 1234567890123456\n', false],
  ];
  for (const [yaml, mustAnswer] of cases) {
    const answered = same(yaml);
    if (mustAnswer !== undefined) assert.equal(answered, mustAnswer, `fast reader ${answered ? 'answered' : 'declined'} ${JSON.stringify(yaml)}`);
  }
  // Node and depth caps: over them, the reference reports too-complex.
  const many = Array.from({ length: 30 }, (_, i) => `k${i}: [${Array.from({ length: 10 }, (_, j) => j).join(', ')}]`).join('\n');
  assert.equal(same(many, '\n', { maxAliasCount: 100, maxNodes: 100 }), false);
  assert.equal(same(many, '\n', { maxAliasCount: 100, maxNodes: 10_000 }), true);
  let deep = '';
  for (let d = 0; d < 205; d++) deep += `${' '.repeat(d)}k:\n`;
  deep += `${' '.repeat(205)}k: 1\n`;
  assert.equal(same(deep), false);
});

/** A scan's whole answer in comparable form (states with their data and problems, problems with ranges, skipped files). */
async function scanAnswer(root: string, fast: boolean, index: boolean) {
  setFastReader(fast);
  try {
    const r = await scanRoots([root], { index, indexWrite: 'sync', racyWindowMs: 0 });
    const byFile = (a: { file: string }, b: { file: string }) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
    return { files: r.files, workflows: [...r.workflows].sort(byFile), problems: r.problems, crossProblems: r.crossProblems, skipped: [...r.skipped].sort(byFile), hits: r.index.reduce((n, x) => n + x.hits + x.verified, 0) };
  } finally {
    setFastReader(undefined);
  }
}

test('whole scans: the fast path gives the same states, problems (with ranges) and skipped files as the reference, cold and from the index', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-fastscan-'));
  try {
    fs.mkdirSync(path.join(root, '.waymark/workflows'), { recursive: true });
    fs.writeFileSync(path.join(root, '.waymark/workflows/feature.yaml'), 'steps:\n  - id: design\n    gate: design-review\n  - implement\n  - review\n');
    fs.mkdirSync(path.join(root, '.waymark/gates'), { recursive: true });
    const arch = path.join(root, '_bmad/bmm/workflows/3-solutioning/create-architecture/steps');
    fs.mkdirSync(arch, { recursive: true });
    for (const s of ['step-01-init', 'step-02-context', 'step-03-starter', 'step-04-decisions']) fs.writeFileSync(path.join(arch, `${s}.md`), `---\nname: ${s}\n---\n`);
    const dir = (d: string) => {
      fs.mkdirSync(path.join(root, d), { recursive: true });
      return path.join(root, d);
    };
    const gen = dir('gen');
    // Generated well-formed documents and line soup, each made a workflow by a leading key.
    const docs = fc.sample(doc, { numRuns: 150, seed: 42 });
    docs.forEach((d, i) => {
      const lines: string[] = [];
      render(d.entries, '', ' '.repeat(d.indent), lines, d);
      const head = i % 3 === 0 ? 'workflowType: architecture' : i % 3 === 1 ? 'workflow: feature' : `workflow: w${i}`;
      fs.writeFileSync(path.join(gen, `doc-${i}.md`), `---\n${head}\n${lines.filter((l) => !/^(workflow|workflowType):/.test(l)).join('\n')}\n---\nbody\n`);
    });
    const soups = fc.sample(fc.tuple(fc.array(soupLine, { maxLength: 10 }), fc.constantFrom('\n', '\r\n')), { numRuns: 150, seed: 7 });
    soups.forEach(([lines, eol], i) => fs.writeFileSync(path.join(gen, `soup-${i}.md`), `---${eol}workflow: s${i}${eol}${lines.join(eol)}${eol}---${eol}`));
    // Hand-written: delegation across files (orphan, duplicate id), gates, BOM, CRLF, tabs, unclosed, binary, too large.
    const hand = dir('hand');
    const deleg = (id: string, parent: string | null, chain: string[]) => `---\nworkflow: feature\nstatus: in_progress\nstepsCompleted: [design]\ndelegation:\n  id: ${id}\n  parent_id: ${parent ?? 'null'}\n  root_id: ${chain[0]}\n  depth: ${chain.length - 1}\n  chain_path: [${chain.join(', ')}]\n---\n`;
    fs.writeFileSync(path.join(hand, 'root.md'), deleg('r', null, ['r']));
    fs.writeFileSync(path.join(hand, 'kid.md'), deleg('k', 'r', ['r', 'k']));
    fs.writeFileSync(path.join(hand, 'kid-again.md'), deleg('k', 'r', ['r', 'k']));
    fs.writeFileSync(path.join(hand, 'orphan.md'), deleg('o', 'gone', ['gone', 'o']));
    fs.writeFileSync(path.join(root, '.waymark/gates/design-review.md'), '---\nverdict: PASS\nreviewer: me\n---\n');
    fs.writeFileSync(path.join(hand, 'bom-crlf.md'), '\uFEFF---\r\nworkflow: feature\r\nstatus: done\r\nstepsCompleted: [implement, design]\r\n---\r\n');
    fs.writeFileSync(path.join(hand, 'tab.md'), '---\nworkflow: feature\ndelegation:\n\tid: x\n---\n');
    fs.writeFileSync(path.join(hand, 'unclosed.md'), '---\nworkflow: feature\nstatus: created\n');
    fs.writeFileSync(path.join(hand, 'dup.md'), '---\nworkflow: feature\nstatus: created\nstatus: blocked\n---\n');
    fs.writeFileSync(path.join(hand, 'proto.md'), '---\nworkflow: feature\n__proto__: x\nstepCompleted: [design]\n---\n');
    fs.writeFileSync(path.join(hand, 'ttl.md'), '---\nworkflow: feature\nupdatedAt: 2020-01-01\nttl: 30d\nscope: smal\nstatus: in-progres\n---\n');
    fs.writeFileSync(path.join(hand, 'bin.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01]));
    fs.writeFileSync(path.join(hand, 'big.md'), `---\nworkflow: feature\n---\n${'x'.repeat(3 * 1024 * 1024)}\n`);
    fs.writeFileSync(path.join(hand, 'bmad.md'), '---\nstepsCompleted: [1, 2, 4]\nworkflowType: architecture\nlastStep: 3\nstatus: in-progress\ninputDocuments:\n  - _bmad-output/brief.md\ndate: 2026-02-30\n---\n');
    const ref = await scanAnswer(root, false, false);
    assert.ok(ref.workflows.length > 120 && ref.problems.length > 20, `only ${ref.workflows.length} workflows`);
    assert.ok(ref.skipped.length >= 2 && ref.crossProblems.some((p) => p.code === 'delegation-duplicate-id') && ref.crossProblems.some((p) => p.code === 'delegation-orphan'));
    assert.deepStrictEqual(await scanAnswer(root, true, false), ref);
    // With the index: the cold scan writes it, the warm scan restores from it; both the same answer.
    const cold = await scanAnswer(root, true, true);
    const warm = await scanAnswer(root, true, true);
    assert.ok(warm.hits > 200, `the warm scan reused only ${warm.hits} entries`);
    assert.deepStrictEqual({ ...cold, hits: 0 }, { ...ref, hits: 0 });
    assert.deepStrictEqual({ ...warm, hits: 0 }, { ...ref, hits: 0 });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

/** True when Waymark's frontmatter reader takes the text (the long-key check runs only then). */
function readerTakes(t: string): boolean {
  try {
    safeYamlParse(t);
    return true;
  } catch {
    return false;
  }
}

test('long-key check (YAML implicit-key limit): every key the editing parser refuses as too long is flagged; a long step list is not', () => {
  const piece = fc.oneof(fc.constantFrom('\n', '\r\n', 'x', 'é', ' ', ': ', ':', '[', ']', '{', '}', ', ', '"', "'", '? ', '- '), fc.integer({ min: 0, max: 1100 }).map((n) => 'k'.repeat(n)));
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
      const t = parts.join('');
      // A key over several lines is refused as such by both readers (MULTILINE_IMPLICIT_KEY), whatever its length.
      const codes = parseDocument(t).errors.map((e) => e.code);
      const tooLong = codes.includes('KEY_OVER_1024_CHARS') && !codes.includes('MULTILINE_IMPLICIT_KEY');
      // The check runs on text the reader took (workflow.ts); text the reader refuses is reported as a
      // YAML error already (`''k…` ⏎ `k…: `: a key after a quoted scalar, counted across both lines).
      if (tooLong && readerTakes(t)) assert.ok(hasLongLine(t), JSON.stringify(t.slice(0, 200)));
      if (hasLongLine(t)) assert.ok(/[^\n]{1025}/.test(t));
    }),
    { numRuns: RUNS },
  );
  // Found by the property above (seed -676216170): refused by the reader, so never left unreported.
  assert.equal(readerTakes(`''${'k'.repeat(600)}\n${'k'.repeat(500)}: `), false);
  for (const n of [1023, 1024, 1025, 2000]) {
    const t = `${'k'.repeat(n)}: 1`;
    assert.equal(hasLongLine(t), n >= 1024);
    assert.equal(hasLongLine(`a: 1\n${t}\nb: 2\n`), n >= 1024);
    assert.equal(hasLongLine(`a: [${'k'.repeat(n)}: 1]`), n >= 1021);
  }
  const steps = Array.from({ length: 300 }, (_, i) => `step-${i}`);
  assert.ok(!hasLongLine(`workflow: w\nsteps: [${steps.join(', ')}]\nstepsCompleted: [${steps.join(', ')}]\n`));
  const ctx = defaultWorkspaceContext(os.tmpdir());
  const long = parseWorkflowText('/x/w.md', `---\nworkflow: w\nsteps: [a]\n${'k'.repeat(1025)}: 1\n---\n`, ctx);
  assert.ok(long.problems.some((p) => p.code === 'yaml-syntax'), JSON.stringify(long.problems.map((p) => p.code)));
  const ok = parseWorkflowText('/x/w.md', `---\nworkflow: w\nsteps: [a]\n${'k'.repeat(1000)}: 1\n---\n`, ctx);
  assert.ok(!ok.problems.some((p) => p.code === 'yaml-syntax'));
  const list = parseWorkflowText('/x/w.md', `---\nworkflow: w\nsteps: [${steps.join(', ')}]\ncurrentStep: step-0\n---\n`, ctx);
  assert.deepEqual(list.problems.map((p) => p.code), []);
});

test('delegation ranges from the fast reader equal the YAML parser\'s', () => {
  const ctx = defaultWorkspaceContext(os.tmpdir());
  const values = ['wf-1', "'wf-1'", '"wf 1"', 'null', '~', '[a, b]', '[ a ,b ]', '[]', "['a', \"b\"]", 'x # note', '[a] # note', '7', 'é ü'];
  const blocks: string[] = [];
  for (const v of values) {
    blocks.push(`delegation:\n  id: ${v}\n  parent_id: ${v}\n  root_id: ${v}\n  depth: 1\n  chain_path: ${v}\n`);
    blocks.push(`delegation:\n    id: ${v}\n    chain_path: ${v}\n`);
    blocks.push(`delegation:  # the chain\n  agent: a\n  root_id:   ${v}\n`);
  }
  blocks.push('delegation: {}\n', 'delegation:\n  id:\n  root_id: r\n', 'delegation:\n  chain_path:\n    - a\n    - b\n  id: b\n', 'delegation:\n  id: a\nother:\n  id: zz\n');
  let fastUsed = 0;
  for (const b of blocks) {
    for (const eol of ['\n', '\r\n']) {
      const text = `---${eol}workflow: w${eol}${b.replace(/\n/g, eol)}---${eol}`;
      const fast = parseWorkflowText('/x/w.md', text, ctx);
      const before = process.env.WAYMARK_FAST_PARSE;
      process.env.WAYMARK_FAST_PARSE = '0';
      let ref;
      try {
        ref = parseWorkflowText('/x/w.md', text, ctx);
      } finally {
        if (before === undefined) delete process.env.WAYMARK_FAST_PARSE;
        else process.env.WAYMARK_FAST_PARSE = before;
      }
      assert.deepStrictEqual(fast.state?.delegationRanges, ref.state?.delegationRanges, JSON.stringify(text));
      if (splitAndSpans(text)) fastUsed++;
    }
  }
  assert.ok(fastUsed > blocks.length, `the fast positions were used only ${fastUsed} times`);
});

function splitAndSpans(text: string): boolean {
  return parseFrontmatter(text).delegationSpans !== undefined;
}

// What a parsed workflow state keeps alive: its own values, not its file's text. V8 makes a
// substring of 13 or more characters a view of the string it was cut from, so a state whose
// values were cut from the text would hold the whole file (body included) for as long as the
// scan, the extension or the MCP server keeps it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { parseWorkflowText, stepAnalysis, type ParsedWorkflow } from '../../src/core/model/workflow';
import { defaultWorkspaceContext } from '../../src/core/store/workspaceContext';
import { parseFrontmatter, setFastReader } from '../../src/core/model/frontmatter';
import { exactArray, ownString } from '../../src/core/model/text';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const FILES = 80;
const BODY_CHARS = 256 * 1024;

/** A workflow whose values are long enough to be cut as views, over a large body unique to the file. */
function fileText(i: number, yamlLines: string[]): string {
  return ['---', ...yamlLines, '---', `# Feature ${i}`, `${i}`.repeat(BODY_CHARS / String(i).length), ''].join('\n');
}

const NATIVE = (i: number) => [
  'workflow: feature-delivery',
  `title: "A title long enough to be cut ${i}"`,
  `status: in_progress`,
  `steps: [design-the-thing, implement-the-thing, review-the-thing]`,
  'stepsCompleted:',
  '  - design-the-thing',
  `notes: 'single quoted, it''s long ${i}'`,
  'summary: >-',
  `  folded text of the feature ${i}`,
  '  that runs over two lines',
  'delegation:',
  `  id: delegated-work-${i}`,
  '  parent_id: null',
  `  root_id: delegated-work-${i}`,
  '  depth: 0',
  `  chain_path: [delegated-work-${i}]`,
];

/** Heap bytes the parsed states keep alive after a full collection. */
function retainedBy(parse: (i: number) => ParsedWorkflow): { bytes: number; states: ParsedWorkflow[] } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const states: ParsedWorkflow[] = [];
  for (let i = 0; i < FILES; i++) states.push(parse(i));
  gc();
  return { bytes: process.memoryUsage().heapUsed - before, states };
}

for (const fast of [true, false]) {
  test(`parsed states do not keep their files' texts alive (${fast ? 'fast reader' : 'reference parser'})`, () => {
    const ctx = defaultWorkspaceContext('/tmp/waymark-memory');
    setFastReader(fast);
    try {
      // The reference parser's modules load on its first use: not what a state keeps.
      parseWorkflowText('/tmp/waymark-memory/warm-up.md', fileText(0, NATIVE(0)), ctx, { contentHash: '' });
      const { bytes, states } = retainedBy((i) => parseWorkflowText(`/tmp/waymark-memory/f-${i}.md`, fileText(i, NATIVE(i)), ctx, { contentHash: '' }));
      for (const s of states) {
        assert.equal(s.state?.workflow, 'feature-delivery');
        assert.match(String(s.state?.data.title), /^A title long enough to be cut \d+$/);
      }
      // The texts alone are FILES × 256 KiB = 20 MiB; the states are a few KiB each, and the YAML
      // parser's few recent documents (positions.ts, with their texts) stay under 3 MiB.
      assert.ok(bytes < (FILES * BODY_CHARS) / 4, `${FILES} states keep ${Math.round(bytes / 1024)} KiB alive: their files' texts`);
    } finally {
      setFastReader(undefined);
    }
  });
}

test('frontmatter data values read by either parser are the same strings, whatever their length', () => {
  const text = fileText(1, NATIVE(1));
  const fast = parseFrontmatter(text).data;
  setFastReader(false);
  try {
    assert.deepStrictEqual(fast, parseFrontmatter(text).data);
  } finally {
    setFastReader(undefined);
  }
});

test('ownString and exactArray give back equal values', () => {
  for (const s of ['', 'short', 'exactly13char', 'a longer string cut out of a text'.slice(2, 30)]) assert.equal(ownString(s), s);
  const grown: number[] = [];
  for (let i = 0; i < 3; i++) grown.push(i);
  assert.deepStrictEqual(exactArray(grown), [0, 1, 2]);
  const empty: number[] = [];
  assert.equal(exactArray(empty), empty);
});

test('files listing the same plain steps share one frozen step list; a definition\'s gates and object steps get a list of their own', () => {
  const ctx = defaultWorkspaceContext('/tmp/waymark-memory');
  const parse = (name: string, steps: string) => parseWorkflowText(`/tmp/waymark-memory/${name}.md`, `---\nworkflow: ${name.replace(/\d+$/, '')}\nstatus: in_progress\nsteps: ${steps}\nstepsCompleted: [a]\ncurrentStep: b\n---\n`, ctx, { contentHash: '' }).state!;
  const a = parse('shared1', '[a, b, c]');
  const b = parse('shared2', '[a, b, c]');
  assert.equal(a.steps, b.steps, 'one list for both files');
  assert.ok(Object.isFrozen(a.steps) && a.steps.every((s) => Object.isFrozen(s)));
  assert.deepStrictEqual(a.steps, [{ id: 'a', index: 1 }, { id: 'b', index: 2 }, { id: 'c', index: 3 }]);
  // Another list (or the same ids with one more) is another list; ids that would run together are not one key.
  assert.notEqual(parse('shared3', '[a, b, c, d]').steps, a.steps);
  assert.deepStrictEqual(parse('shared4', '["a1:b", c]').steps.map((s) => s.id), ['a1:b', 'c']);
  assert.deepStrictEqual(parse('shared5', '[a, "1:bc"]').steps.map((s) => s.id), ['a', '1:bc']);
  // Steps written as objects carry their own titles and gates: never shared.
  const objects = parse('objects1', '[{id: a, gate: true}, b]');
  assert.ok(!Object.isFrozen(objects.steps));
  assert.deepStrictEqual(objects.steps, [{ id: 'a', index: 1, gate: 'a' }, { id: 'b', index: 2 }]);
  // A definition's gates apply to a file's own copy of the list, not to the shared one.
  const gated = { ...ctx, definitions: new Map([['gated', { id: 'gated', steps: [{ id: 'a', index: 1 }, { id: 'b', index: 2, gate: 'review' }], file: '/tmp/waymark-memory/.waymark/workflows/gated.yaml' }]]) };
  const g = parseWorkflowText('/tmp/waymark-memory/gated.md', '---\nworkflow: gated\nstatus: in_progress\nsteps: [a, b, c]\n---\n', gated, { contentHash: '' }).state!;
  assert.equal(g.steps[1].gate, 'review');
  assert.equal(parse('shared6', '[a, b, c]').steps[1].gate, undefined);
});

test('a parsed state\'s step analysis is made when asked for, the same as the parse\'s own', () => {
  const ctx = defaultWorkspaceContext('/tmp/waymark-memory');
  const text = '---\nworkflow: analysed\nstatus: in_progress\nsteps: [a, b, c, d]\nstepsCompleted: [a, c, x, a]\ncurrentStep: b\n---\n';
  const s = parseWorkflowText('/tmp/waymark-memory/analysed.md', text, ctx, { contentHash: '' }).state!;
  const a = stepAnalysis(s);
  assert.equal(stepAnalysis(s), a, 'kept once made');
  assert.deepStrictEqual([...a.done], ['a', 'c']);
  assert.deepStrictEqual(a.remaining.map((x) => x.id), ['b', 'd']);
  assert.deepStrictEqual(a.missing.map((x) => x.id), ['b']);
  assert.deepStrictEqual(a.entries.map((e) => e.id), ['a', 'c', undefined, 'a']);
  assert.equal(s.nextStep, 'b');
});

test('states written alike share their delegation ranges and their empty gates; a state with a gated step has gates of its own', () => {
  const ctx = defaultWorkspaceContext('/tmp/waymark-memory');
  const a = parseWorkflowText('/tmp/waymark-memory/a.md', fileText(1, NATIVE(1)), ctx, { contentHash: '' }).state!;
  const b = parseWorkflowText('/tmp/waymark-memory/b.md', fileText(2, NATIVE(2)), ctx, { contentHash: '' }).state!;
  // Same rows and columns (ids of one length): one range object each, frozen, equal to the parser's.
  assert.equal(a.delegationRanges!.parent_id, b.delegationRanges!.parent_id);
  assert.ok(Object.isFrozen(a.delegationRanges!.parent_id) && Object.isFrozen(a.delegationRanges!.parent_id!.start));
  assert.deepEqual(a.delegationRanges!.parent_id, { start: { line: 13, character: 13 }, end: { line: 13, character: 17 } });
  assert.equal(a.gates, b.gates);
  assert.deepEqual(Object.keys(a.gates), []);
  assert.throws(() => {
    (a.gates as Record<string, unknown>).x = 1;
  }, TypeError);
  const gatedText = ['---', 'workflow: gated', 'status: in_progress', 'steps:', '  - id: a', '    gate: review', '  - id: b', 'currentStep: b', 'stepsCompleted: [a]', '---', ''].join('\n');
  const g1 = parseWorkflowText('/tmp/waymark-memory/g1.md', gatedText, ctx, { contentHash: '' }).state!;
  const g2 = parseWorkflowText('/tmp/waymark-memory/g2.md', gatedText, ctx, { contentHash: '' }).state!;
  assert.notEqual(g1.gates, g2.gates);
  assert.notEqual(g1.gates, a.gates);
  assert.deepEqual(Object.keys(g1.gates), ['a']);
});

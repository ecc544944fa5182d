// What a parsed workflow state keeps alive: its own values, not its file's text. V8 makes a
// substring of 13 or more characters a view of the string it was cut from, so a state whose
// values were cut from the text would hold the whole file (body included) for as long as the
// scan, the extension or the MCP server keeps it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { parseWorkflowText, type ParsedWorkflow } from '../../src/core/model/workflow';
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

// bmadStatusOf (src/core/bmad/artifacts.ts) takes a plain status word (lowercase words joined by
// single hyphens) as it is, without its normalising steps: the answer must be the one those steps
// give. Each plain word is compared with spellings of it that only the steps read (capitals, bold,
// underscores, a remark in parentheses, spaces), which normalise to the same word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bmadStatusOf } from '../../src/core/bmad/artifacts';

const WORDS = [
  'in-progress', 'complete', 'completed', 'done', 'draft', 'approved', 'ready-for-dev', 'review', 'blocked', 'on-hold',
  'draft-complete', 'research-done', 'partially-complete', 'not-done', 'needs-revision', 'revised', 'published', 'backlog',
  'in-review', 'x1', 'v2-final', 'unknown-word', 'wip', 'todo', 'complete-2', 'done-done',
];

test('a plain status word answers as every spelling of it that normalises to it', () => {
  for (const w of WORDS) {
    const plain = bmadStatusOf(w);
    const spellings = [w.toUpperCase(), `**${w}**`, w.replace(/-/g, '_'), `${w} (v2)`, ` ${w.replace(/-/g, ' ')} `, `\`${w}\``];
    for (const s of spellings) assert.equal(bmadStatusOf(s), plain, `${JSON.stringify(s)} against ${JSON.stringify(w)}`);
  }
  assert.equal(bmadStatusOf('in-progress'), 'in_progress');
  assert.equal(bmadStatusOf('draft-complete'), 'completed');
  assert.notEqual(bmadStatusOf('partially-complete'), 'completed');
});

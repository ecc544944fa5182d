import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { ownCopy } from '../../src/core/model/text';
import { parseStory } from '../../src/core/bmad/story';
import { declaredOutputs } from '../../src/core/bmad/artifacts';

// A title or an output pattern is kept as a copy of its characters (so the file's text it came
// from can be collected); the copy is the same string, whatever the text's line ends, its BOM,
// its last line's end or the length of its lines.

test('ownCopy gives the same string, short or long, one- or two-byte', () => {
  for (const s of ['', 'a', 'twelve chars', 'thirteen char', 'Hero of the story', 'é'.repeat(40), '状态 review ✅', 'x'.repeat(100_000)]) {
    const long = `# ${s}\n${'filler line\n'.repeat(100)}`;
    const slice = long.slice(2, 2 + s.length);
    assert.equal(ownCopy(slice), s);
    assert.equal(ownCopy(s), s);
  }
});

test('a story title reads the same with CRLF, a BOM, no final newline and huge lines', () => {
  const body = ['', 'Status: review', '', '## Tasks / Subtasks', '', '- [x] Task 1: build the part (AC: #1)', '- [ ] Task 2: test it'];
  const titles = ['Hero of the story', 'A title of exactly 13', 'Short', 'Un titre accentué, très long et même plus', `Huge ${'word '.repeat(20_000)}end`];
  for (const title of titles) {
    for (const eol of ['\n', '\r\n']) {
      for (const bom of ['', '\uFEFF']) {
        for (const last of ['', eol]) {
          const text = `${bom}# Story 7.1: ${title}${eol}${body.join(eol)}${last}${eol === '\n' ? 'x'.repeat(50_000) : ''}`;
          const s = parseStory('/p/7-1-hero.md', text);
          if (bom) {
            // With a BOM the status and tasks read as without it. (Its title line, `\uFEFF# Story…`,
            // is not read as a heading, before this change as after: left to the story reader's owner.)
            const plain = parseStory('/p/7-1-hero.md', text.slice(1));
            assert.equal(s.status, plain.status);
            assert.deepEqual(s.tasks, plain.tasks);
            continue;
          }
          assert.equal(s.title, title.trim(), JSON.stringify({ title: title.slice(0, 20), eol, last }));
          assert.equal(s.status, 'review');
          assert.deepEqual(s.tasks.map((t) => t.text), ['Task 1: build the part (AC: #1)', `Task 2: test it${last ? '' : eol === '\n' ? 'x'.repeat(50_000) : ''}`]);
        }
      }
    }
  }
});

test('a declared output pattern reads the same as the text states it', () => {
  const text = `---\nname: step-01\noutputFile: '{planning_artifacts}/${'long-name-'.repeat(30)}prd.md'\n---\n\n${'prose line\n'.repeat(500)}`;
  assert.deepEqual(declaredOutputs(text), [{ pattern: `{planning_artifacts}/${'long-name-'.repeat(30)}prd.md`, source: 'outputFile' }]);
  assert.deepEqual(declaredOutputs(text.replace(/\n/g, '\r\n')), declaredOutputs(text));
});

test("a story's parse does not keep its file's text alive (its tasks, its status, its frontmatter status)", () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const pad = 1 << 20;
  const make = (i: number, form: number): string => {
    const head = form === 0 ? `# Story 1.${i}: Hero\n\nStatus: ready-for-dev\n` : form === 1 ? `---\nstatus: ready-for-review-by-the-team\n---\n# Story 1.${i}: Hero\n` : `# Story 1.${i}: Hero\n\n## Status\n\nready-for-dev\n`;
    return `${head}\n## Tasks / Subtasks\n\n- [x] Task 1: build the part number ${i} (AC: #1)\n  - [ ] Subtask 1.1: a long enough subtask text\n\n## Dev Notes\n\n${`note ${i} `.repeat(pad / 8)}\n`;
  };
  for (let form = 0; form < 3; form++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = [];
    for (let i = 0; i < 24; i++) kept.push(parseStory(`/p/1-${i}-hero.md`, make(i, form)));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // 24 texts of ~1 MB each would be ~24 MB; the parses alone are a few KB.
    assert.ok(grown < 4 * pad, `form ${form}: the parses keep ${(grown / pad).toFixed(1)} MB alive`);
    assert.equal(kept[3].status, form === 1 ? 'ready-for-review-by-the-team' : 'ready-for-dev');
    assert.deepEqual(kept[3].tasks.map((t) => t.text), ['Task 1: build the part number 3 (AC: #1)', 'Subtask 1.1: a long enough subtask text']);
  }
});

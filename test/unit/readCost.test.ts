// What the cheaper reads of a project (issue 20's 400-story target) must keep: the same answers as
// the slower forms they replace, on the inputs where a shortcut could differ.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { compareText, mayBeFence, splitLines } from '../../src/core/model/text';
import { parseStory } from '../../src/core/bmad/story';
import { parseEpics } from '../../src/core/bmad/epics';
import { scanRoots } from '../../src/core/store/scan';
import { editDistance, nearest } from '../../src/core/model/config';
import { typoOf } from '../../src/core/model/stateKeys';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('text helpers', () => {
  test('compareText orders every string as localeCompare does', () => {
    // Characters of the fast path, and ones next to them in either order (case, `_`, `+`, `:`, accents).
    const chars = fc.constantFrom(...'abcyz0189 ./-_+:A BZé\t~'.split(''));
    fc.assert(fc.property(fc.array(chars, { maxLength: 8 }).map((a) => a.join('')), fc.array(chars, { maxLength: 8 }).map((a) => a.join('')), (a, b) => {
      assert.equal(sign(compareText(a, b)), sign(a.localeCompare(b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }), { numRuns: 20000 });
  });

  test('compareText sorts story keys, step names and paths as localeCompare does', () => {
    const keys = ['1-10-x', '1-1-x', '1-1a-x', '10-1-y', '2-1-a.b', 'epic-1', 'step-01-init', 'step-01a-init', 'step-01-Init', 'step_01', 'a/b-c', 'a/b.c', 'a/b/c', ''];
    assert.deepEqual([...keys].sort(compareText), [...keys].sort((a, b) => a.localeCompare(b)));
  });

  test('splitLines splits as /\\r?\\n/ does, a lone or trailing \\r kept', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom('a', '\r', '\n', '\r\n', ' ', '#'), { maxLength: 30 }).map((a) => a.join('')), (text) => {
      assert.deepEqual(splitLines(text), text.split(/\r?\n/));
    }), { numRuns: 5000 });
  });

  test('mayBeFence is true for every line the fence expression matches', () => {
    const FENCE = /^\s{0,3}(```|~~~)/;
    const lines = ['```', '~~~', '   ```ts', '\t```', '\u00a0```', '\u3000~~~', '\ufeff```', 'x```', '#```', ''];
    for (const l of lines) if (FENCE.test(l)) assert.ok(mayBeFence(l), JSON.stringify(l));
    fc.assert(fc.property(fc.array(fc.constantFrom(' ', '\t', '\u00a0', '\u2003', '`', '~', 'a', '#', '-'), { maxLength: 8 }).map((a) => a.join('')), (l) => {
      if (FENCE.test(l)) assert.ok(mayBeFence(l), JSON.stringify(l));
    }), { numRuns: 5000 });
  });
});

describe('typo detection', () => {
  test('nearest gives the candidate every edit distance gives, candidates of far lengths passed over', () => {
    const reference = (word: string, candidates: string[], max?: number) => {
      let best: string | undefined;
      let bestD = Infinity;
      const limit = max ?? (word.length <= 4 ? 1 : 2);
      for (const c of candidates) {
        const d = editDistance(word.toLowerCase(), c.toLowerCase());
        if (d < bestD) {
          bestD = d;
          best = c;
        }
      }
      return bestD <= limit ? best : undefined;
    };
    const word = fc.array(fc.constantFrom('a', 'b', 'S', 't', '_', 'İ'), { maxLength: 9 }).map((a) => a.join(''));
    fc.assert(fc.property(word, fc.array(word, { maxLength: 6 }), fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }), (w, cs, max) => {
      assert.equal(nearest(w, cs, max), reference(w, cs, max));
    }), { numRuns: 5000 });
    assert.equal(typoOf('stepCompleted'), 'stepsCompleted');
    assert.equal(typoOf('steps_completed'), 'stepsCompleted');
    assert.equal(typoOf('description'), undefined);
  });
});

describe('story and epics parsing', () => {
  test('fences opened by Unicode white space, tasks in a review section and CRLF read as before', () => {
    const text = [
      '# Story 2.3: Thing', '', 'Status: review', '', '## Tasks / Subtasks', '', '- [x] Task 1', '  - [ ] Sub 1.1',
      '\u00a0```', '- [ ] not a task (in a fence)', '```', '- [ ] Task 2', '', '## Tasks: Review Follow-ups (AI)', '', '- [ ] Fix the thing', '- [x] [AI-Review] Done one', '',
      '## Dev Agent Record', '', '### File List', '', '## Change Log', '',
    ].join('\r\n') + '\r';
    const s = parseStory('/p/2-3-thing.md', text);
    assert.equal(s.status, 'review');
    assert.equal(s.eol, '\r\n');
    assert.deepEqual(s.tasks.map((t) => [t.number, t.checked, t.review, t.line]), [['1', true, false, 6], ['1.1', false, false, 7], ['2', false, false, 11], ['1', false, true, 15], ['2', true, true, 16]]);
    assert.ok(s.hasFileList && s.hasChangeLog && s.hasDevAgentRecord);
  });

  test('an epics document with a fence opened after a no-break space skips the headings inside it', () => {
    const text = ['## Epic 1: One', '### Story 1.1: First', '\u00a0```', '### Story 1.2: In a fence', '```', '### Story 1.3: Third'].join('\n');
    const epics = parseEpics('/p/epics.md', text);
    assert.deepEqual(epics.get(1)!.stories.map((s) => s.key), ['1-1-first', '1-3-third']);
  });
});

describe('scan reads only the head of a file without frontmatter', () => {
  test('binary, UTF-16 and frontmatter files larger than the head read as before', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-readcost-'));
    try {
      const big = 'word '.repeat(4000); // 20 KB, past the 8 KiB head
      fs.writeFileSync(path.join(root, 'plain.md'), `# Notes\n\n${big}\n`);
      fs.writeFileSync(path.join(root, 'late-nul.md'), Buffer.concat([Buffer.from(`# Notes\n${big}`), Buffer.from([0]), Buffer.from('end\n')]));
      fs.writeFileSync(path.join(root, 'early-nul.md'), Buffer.concat([Buffer.from('# Notes\n'), Buffer.from([0]), Buffer.from(big)]));
      fs.writeFileSync(path.join(root, 'utf16.md'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`---\nworkflow: x\n---\n${big}`, 'utf16le')]));
      // A frontmatter file past the head: its whole text is parsed (the closing fence is after 8 KiB).
      fs.writeFileSync(path.join(root, 'long.workflow.md'), `---\nworkflow: long\nnotes: "${'n'.repeat(9000)}"\nsteps: [a, b]\ncurrentStep: b\nstepsCompleted: [a]\nstatus: in_progress\n---\n# Long\n${big}\n`);
      fs.writeFileSync(path.join(root, 'bom.workflow.md'), `\ufeff---\nworkflow: bom\nsteps: [a]\nstatus: draft\nnotes: "${'n'.repeat(9000)}"\n---\n`);
      const res = await scanRoots([root], { index: false });
      assert.deepEqual(res.skipped.map((s) => [path.basename(s.file), s.reason]).sort(), [['early-nul.md', 'binary'], ['utf16.md', 'unreadable']]);
      const long = res.workflows.find((w) => w.workflow === 'long');
      assert.equal(long?.currentStep, 'b');
      assert.deepEqual(long?.stepsCompleted, ['a']);
      assert.ok(res.workflows.some((w) => w.workflow === 'bom'));
      assert.equal(res.workflows.length, 2);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

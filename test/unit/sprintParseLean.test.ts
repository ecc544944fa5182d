import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { checkboxWords, indentEnd, parseStory } from '../../src/core/bmad/story';

// The sprint reads 400 story files in one process and keeps their parses until the sprint is
// built: it counts tasks and quotes the first open one alone, so its parse keeps no other's words;
// a task's box is read by index instead of by a regular expression's match. Both read what the
// full parse and the expression read.

const CHECKBOX = /^(\s*)[-*+]\s+\[([ xX])\]\s*(.*)$/;

test('checkboxWords reads every line as the checkbox expression does', () => {
  const parts = ['', ' ', '  ', '\t', '\u00a0', '\u2028', '\u3000', '\ufeff', '\r', '\n', '\u2029', '\u0085', '\u200b'];
  const bullets = ['-', '*', '+', '', '1.', '[', '#'];
  const boxes = ['[ ]', '[x]', '[X]', '[y]', '[]', '[ x]', '[', '[x', 'x]', '[\t]'];
  const tails = ['', 'Task 1: do it', '~~dropped~~ skipped', ' [AI-Review] fix', 'a\rb', 'a\u2028b', 'a\nb', 'trailing  ', '\u00a0words\u00a0', '[x] again'];
  let lines = 0;
  for (const a of parts) {
    for (const b of bullets) {
      for (const s of parts) {
        for (const box of boxes) {
          for (const s2 of ['', ' ', '\u2028', '\r ']) {
            for (const t of tails) {
              const line = `${a}${b}${s}${box}${s2}${t}`;
              const m = CHECKBOX.exec(line);
              const at = checkboxWords(line);
              lines++;
              if (!m) {
                assert.equal(at, -1, JSON.stringify(line));
                continue;
              }
              const lead = indentEnd(line);
              assert.equal(lead, m[1].length, JSON.stringify(line));
              assert.equal(line[line.indexOf('[', lead) + 1], m[2], JSON.stringify(line));
              assert.equal(line.slice(at), m[3], JSON.stringify(line));
            }
          }
        }
      }
    }
  }
  assert.ok(lines > 100_000);
});

function story(i: number, done = false): string {
  const tasks: string[] = [];
  for (let t = 1; t <= 6; t++) {
    tasks.push(`- [${done || t % 3 ? 'x' : ' '}] Task ${t}: build part ${t} of story ${i} (AC: #${t})`);
    for (let u = 1; u <= 4; u++) tasks.push(`${u === 4 ? '\t' : '  '}- [${done || u % 2 ? 'x' : ' '}] Subtask ${t}.${u}: write \`part${t}Step${u}\` and its tests`);
  }
  tasks.push('- [ ] ~~Commit the scaffold~~ - skipped per user request', '- [ ] [AI-Review] fix the naming', '- [x] [AI-Review][High] ticked follow-up');
  return `# Story 1.${i}: Hero\n\nStatus: in-progress\n\n## Tasks / Subtasks\n\n${tasks.join('\n')}\n\n## Review Follow-ups (AI)\n\n- [x] a ticked review follow-up\n- [ ] an open one\n\n## Dev Notes\n\n${'note '.repeat(2000)}\n`;
}

test("the sprint's parse is the full parse less every task's words and number but the first open one's", () => {
  for (const eol of ['\n', '\r\n']) {
    const text = story(7).replace(/\n/g, eol);
    const full = parseStory('/p/1-7-hero.md', text);
    const lean = parseStory('/p/1-7-hero.md', text, { taskTexts: 'firstOpen' });
    assert.equal(full.tasks.length, 6 * 5 + 3);
    const first = full.tasks.findIndex((t) => !t.checked && !t.dropped);
    assert.ok(first > 0);
    assert.deepEqual(lean.tasks, full.tasks.map((t, k) => (k === first ? t : { ...t, text: '', number: '' })));
    assert.deepEqual({ ...lean, tasks: [] }, { ...full, tasks: [] });
    assert.ok(full.tasks.some((t) => t.dropped) && full.tasks.some((t) => t.review && !t.checked) && full.tasks.some((t) => t.review && t.checked));
  }
});

test("400 sprint parses keep less than 60 % of what 400 full parses keep", () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const texts = Array.from({ length: 400 }, (_, i) => story(i, i % 2 === 0));
  const kept = (opts?: { taskTexts: 'firstOpen' }): number => {
    gc();
    const before = v8.getHeapStatistics().used_heap_size;
    const parses = texts.map((t, i) => parseStory(`/p/1-${i}-hero.md`, t, opts));
    gc();
    const after = v8.getHeapStatistics().used_heap_size;
    assert.equal(parses.length, 400);
    return after - before;
  };
  kept();
  const full = kept();
  const lean = kept({ taskTexts: 'firstOpen' });
  assert.ok(lean < full * 0.6, `sprint parses keep ${lean} bytes, full parses ${full}`);
});

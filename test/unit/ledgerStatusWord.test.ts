import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { LEDGER_ORDER, LEGACY_STATUS, readStatusWord } from '../../src/core/bmad/ledger';

// readStatusWord answers a plain word (lower-case letters and dashes) without its expressions.
// Its oracle is the same word with a space before it, which no plain word has: that value takes
// the whole path (trimmed to the same word), and reads the same status; only a ledger word
// written exactly reads as not mapped, where the padded one is mapped (it was respelled).

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const KINDS = ['story', 'epic', 'retro'] as const;
const KNOWN = [
  ...Object.values(LEDGER_ORDER).flat(), ...Object.values(LEGACY_STATUS).flatMap((m) => Object.keys(m)),
  'todo', 'to-do', 'wip', 'in-review', 'ready-for-review', 'complete', 'completed', 'finished', 'not-started', 'inprogress', 'optional', 'constructor',
];
const PIECES = ['a', 'b', 'e', 'z', '-', ' ', '_', '#', 'D', 'R', '1', '✅', '(', ')', 'é', '\t'];

function words(n: number): string[] {
  const rnd = seeded(20261130);
  const out = [...KNOWN, 'done-', '-done', 'Done', 'DONE', 'done ✅', 'done# note', 'in progress', 'In_Progress', 'ReadyForReview', 'review (PR #12)', '✅ done', ''];
  for (let i = 0; i < n; i++) {
    const base = KNOWN[Math.floor(rnd() * KNOWN.length)];
    const at = Math.floor(rnd() * (base.length + 1));
    const piece = rnd() < 0.5 ? PIECES[Math.floor(rnd() * PIECES.length)] : '';
    out.push(base.slice(0, at) + piece + base.slice(at));
  }
  return out;
}

test('a plain ledger word reads as the same word with a space before it', () => {
  let plain = 0;
  for (const w of words(3000)) {
    for (const kind of KINDS) {
      const got = readStatusWord(kind, w);
      const padded = readStatusWord(kind, ` ${w}`);
      assert.equal(got.status, padded.status, `${kind} ${JSON.stringify(w)}`);
      const respelled = w.trim().toLowerCase().replace(/[\s_]+/g, '-');
      if (respelled === w && LEDGER_ORDER[kind].includes(w) && !LEGACY_STATUS[kind][w]) assert.equal(got.mapped, false, `${kind} ${JSON.stringify(w)}`);
      else assert.equal(got.mapped, padded.mapped, `${kind} ${JSON.stringify(w)}`);
    }
    if (/^[a-z][a-z-]*$/.test(w)) plain++;
  }
  assert.ok(plain > 1000, `plain words compared: ${plain}`);
});

test('the plain words BMAD writes read as before', () => {
  assert.deepEqual(readStatusWord('story', 'done'), { status: 'done', mapped: false });
  assert.deepEqual(readStatusWord('story', 'ready-for-dev'), { status: 'ready-for-dev', mapped: false });
  assert.deepEqual(readStatusWord('story', 'drafted'), { status: 'ready-for-dev', mapped: true });
  assert.deepEqual(readStatusWord('epic', 'contexted'), { status: 'in-progress', mapped: true });
  assert.deepEqual(readStatusWord('story', 'wip'), { status: 'in-progress', mapped: true });
  assert.deepEqual(readStatusWord('retro', 'optional'), { status: 'optional', mapped: false });
  assert.deepEqual(readStatusWord('story', 'shipped'), { status: 'shipped', mapped: false });
  assert.deepEqual(readStatusWord('story', 'Done'), { status: 'done', mapped: true });
  assert.deepEqual(readStatusWord('story', 'done ✅'), { status: 'done', mapped: true });
});

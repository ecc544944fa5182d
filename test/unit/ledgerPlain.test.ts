import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml, parseDocument } from 'yaml';
import { plainLedger } from '../../src/core/bmad/ledgerPlain';
import { editLedgerStatus, ledgerEntryStatus, ledgerHasEntry, ledgerStatusProblem } from '../../src/core/bmad/ledgerEdit';
import { judgeLedgerChange } from '../../src/core/model/bmadProposal';

// Generated ledgers, plain and near misses of every kind: whenever the plain reader answers, the YAML
// package reads the same text without an error or warning to the same data, and every ledger reader
// and writer answers exactly what it answers through the YAML package. The YAML path is forced by a
// comment line holding a tab at the end (the plain reader takes no tab; YAML reads the same data).

let seed = 20261201;
/** mulberry32: a seeded generator, the same ledgers on every run. */
function rnd(n: number): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
}
const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)];

const TOP_VALUES = ['01-05-2026 09:00', '2026-05-01', '2026-05-01T10:00:00Z', 'Bench', 'file-system', 'NOKEY', 'My Project (beta)', 'v1.2', '"{project-root}/_bmad-output"', "'quoted value'", '"05-01-2026 10:00"', "'2026-05-01'",
  '{project-root}/_bmad-output', '123', 'true', 'null', '~', '', 'a: b', 'x # note', 'x#y', '"esc\\n"', "'it''s'", '→ arrow', '1e3', '.5', '0x1F', '-x', '- item', '&a v', '*a', '!tag v', '|', '>', "'open", 'ends:', 'a:b', 'Ünïcode wörds', '[a, b]', '@at', '%p', '`b`', '2026-07-23 (dev-story 4-8 → review: done)'];
const TOP_KEYS = ['generated', 'last_updated', 'project', 'project_key', 'tracking_system', 'story_location', 'notes', 'last_updated', 'project name', '"quoted"', '123', 'true', 'epic-9', 'stories'];
const WORDS = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done', 'optional', 'contexted', 'drafted', 'completed', 'in_progress', 'Done', 'v1.2',
  '', 'null', '~', '123', '1.5', 'true', 'False', '"done"', "'done'", 'done # note', 'done#x', '{status: done}', 'done: x', 'a b', '-', '.inf', 'done  ', '* x', '0o17'];

function key(e: number, s: number): string {
  const r = rnd(40);
  if (r === 0) return '123';
  if (r === 1) return '1e3';
  if (r === 2) return 'true';
  if (r === 3) return '1-1-作为玩家';
  if (r === 4) return 'a b';
  if (r === 5) return '__proto__';
  if (r === 6) return `${e}-${s}-dup`;
  if (r === 7) return `"${e}-${s}-quoted"`;
  if (r === 8) return '-x';
  return s === 0 ? (rnd(4) ? `epic-${e}` : `epic-${e}-retrospective`) : `${e}-${s}-story-${s}-${rnd(3) ? 'slug' : 'ünï'}`;
}

function ledger(): string {
  const eol = rnd(8) === 0 ? '\r\n' : '\n';
  const lines: string[] = [];
  // Near misses in this one, a few each, so that one alone decides whether the text is plain.
  const fancy = rnd(2) === 0;
  const odd = () => fancy && rnd(10) === 0;
  const head = 1 + rnd(5);
  for (let i = 0; i < head; i++) {
    const r = rnd(6);
    if (r === 0) lines.push(pick(['# generated: 01-05-2026 09:00', '# STATUS DEFINITIONS:', '#   - backlog: not started', '  # indented: comment', '#', '# → ünï', '']));
    else lines.push(`${odd() ? pick(TOP_KEYS) : pick(TOP_KEYS.slice(0, 7))}: ${odd() ? pick(TOP_VALUES) : pick(TOP_VALUES.slice(0, 12))}`.replace(/ $/, rnd(2) ? '' : ' '));
  }
  if (rnd(12) !== 0) {
    lines.push(pick(['development_status:', 'development_status:', 'development_status: # entries', odd() ? 'development_status: {}' : 'development_status:', odd() ? 'development_status :' : 'development_status:']));
    const indent = pick(['  ', '  ', '    ', ' ']);
    const epics = 1 + rnd(4);
    for (let e = 1; e <= epics; e++) {
      for (let s = 0; s <= 1 + rnd(4); s++) {
        const k = odd() ? key(e, s) : s === 0 ? `epic-${e}` : `${e}-${s}-story-${s}`;
        const w = odd() ? pick(WORDS) : pick(WORDS.slice(0, 12));
        const ind = odd() && rnd(3) === 0 ? indent + ' ' : indent;
        lines.push(`${ind}${k}:${w === '' && rnd(2) ? '' : ' '}${w}`);
        if (odd() && rnd(3) === 0) lines.push(`${indent}  status: done`);
        if (odd() && rnd(3) === 0) lines.push(`${indent}  continued words`);
        if (odd() && rnd(3) === 0) lines.push(`${indent}${k}: done`);
        if (rnd(15) === 0) lines.push(pick([`${indent}# a comment`, '# margin comment', '      # deep comment', '', `${indent}`]));
        if (odd() && rnd(4) === 0) lines.push(`\t${k}x: done`);
      }
    }
  }
  if (rnd(5) === 0) lines.push(`${pick(TOP_KEYS.slice(0, 7))}: ${pick(TOP_VALUES.slice(0, 6))}`);
  if (odd()) lines.push('  stray-entry: done');
  let text = lines.join(eol) + (rnd(4) ? eol : '');
  if (odd() && rnd(3) === 0) text = text.replace('\n', '\r');
  if (odd() && rnd(3) === 0) text = '\ufeff' + text;
  return text;
}

const slow = (text: string) => `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}#\tthe YAML path\n`;
/** The YAML path's output without the line slow() added (the edit changes bytes before it only). */
const unslow = (out: string, orig: string) => {
  const suffix = slow(orig).slice(orig.length);
  assert.ok(out.endsWith(suffix));
  return out.slice(0, out.length - suffix.length);
};
const attempt = <T>(f: () => T): T | string => {
  try {
    return f();
  } catch (e) {
    return `throws: ${(e as Error).message}`;
  }
};

test('the plain ledger reader reads what the YAML package reads, and every ledger reader and writer answers the same through either', () => {
  const now = new Date(Date.UTC(2026, 11, 1, 9, 30));
  let plain = 0;
  let other = 0;
  for (let n = 0; n < 3000; n++) {
    const text = ledger();
    const p = plainLedger(text);
    if (!p) {
      other++;
      continue;
    }
    plain++;
    for (const uniqueKeys of [true, false]) {
      const doc = parseDocument(text, { schema: 'core', uniqueKeys });
      assert.deepEqual(doc.errors.map((e) => e.message), [], text);
      assert.deepEqual(doc.warnings.map((e) => e.message), [], text);
      assert.deepEqual(doc.toJS(), p.data, text);
    }
    assert.deepEqual(parseYaml(text), p.data, text);
    assert.equal(plainLedger(slow(text)), undefined);
    assert.deepEqual(parseYaml(slow(text)), p.data, text);
    const ds = p.data.development_status as Record<string, string> | null;
    const keys = [...Object.keys(ds ?? {}), 'no-such-key', 'epic-1'];
    for (const k of keys) {
      const status = pick(['done', 'review', 'in-progress', 'backlog']);
      const fast = attempt(() => editLedgerStatus('/p/sprint-status.yaml', text, k, status, now));
      const viaYaml = attempt(() => editLedgerStatus('/p/sprint-status.yaml', slow(text), k, status, now));
      assert.equal(fast, typeof viaYaml === 'string' && viaYaml.startsWith('throws: ') ? viaYaml : unslow(viaYaml, text), `${text}\n${k}`);
      assert.equal(ledgerStatusProblem('/p/sprint-status.yaml', text, k, status), ledgerStatusProblem('/p/sprint-status.yaml', slow(text), k, status));
      assert.equal(ledgerEntryStatus(text, k), ledgerEntryStatus(slow(text), k));
      assert.equal(ledgerHasEntry(text, k), ledgerHasEntry(slow(text), k));
      if (typeof fast === 'string' && !fast.startsWith('throws: ')) {
        assert.deepEqual(judgeLedgerChange(text, fast, 'sprint-status.yaml'), judgeLedgerChange(slow(text), plainLedger(fast) ? slow(fast) : fast, 'sprint-status.yaml'));
        if (plainLedger(fast)) assert.equal(ledgerStatusProblem('/p/sprint-status.yaml', fast, k, status), undefined);
      }
    }
    // An agent's own edit: a line dropped, or two texts judged against each other.
    const other2 = ledger();
    const dropped = text.split('\n').filter((_, i) => i !== rnd(text.split('\n').length)).join('\n');
    // (A text that is not plain goes to the YAML package either way, as it is: slow() would move its error's line.)
    for (const after of [other2, dropped]) {
      assert.deepEqual(judgeLedgerChange(text, after, 'sprint-status.yaml'), judgeLedgerChange(slow(text), plainLedger(after) ? slow(after) : after, 'sprint-status.yaml'));
    }
  }
  assert.ok(plain > 800 && other > 800, `plain ${plain}, other ${other}`);
});

test('a ledger BMAD sprint planning writes is plain; one with a flow value, a repeated key or a tab is not', () => {
  const bmad = ['# generated: 01-05-2026 09:00', '# STATUS DEFINITIONS: backlog, ready-for-dev, in-progress, review, done', '', 'generated: 01-05-2026 09:00', 'last_updated: 01-06-2026 10:00', 'project: Bench', 'tracking_system: file-system', 'story_location: "{project-root}/_bmad-output/implementation-artifacts"', '', 'development_status:', '  epic-1: in-progress', '  1-1-first-story: review  # waiting', '  epic-1-retrospective: optional', ''].join('\n');
  const p = plainLedger(bmad);
  assert.ok(p);
  assert.deepEqual(p.data.development_status, { 'epic-1': 'in-progress', '1-1-first-story': 'review', 'epic-1-retrospective': 'optional' });
  assert.equal(p.data.story_location, '{project-root}/_bmad-output/implementation-artifacts');
  assert.equal(editLedgerStatus('/p/sprint-status.yaml', bmad, '1-1-first-story', 'done', new Date(Date.UTC(2026, 11, 1, 9, 30))).split('\n').filter((l) => /first-story|last_updated/.test(l)).join('|'), 'last_updated: 12-01-2026 09:30|  1-1-first-story: done  # waiting');
  assert.equal(plainLedger(bmad.replace('story_location: "{project-root}', 'story_location: {project-root}').replace('implementation-artifacts"', 'implementation-artifacts')), undefined);
  assert.equal(plainLedger(`${bmad}  epic-1: done\n`), undefined);
  assert.equal(plainLedger(bmad.replace('  epic-1:', '\tepic-1:')), undefined);
});

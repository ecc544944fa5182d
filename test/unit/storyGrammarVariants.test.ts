// Robustness of the story and ledger status forms the reader supports, as a property: every
// variant a editor, a translator's keyboard or an LLM's formatting makes of a plain form (CRLF, a
// BOM, NBSP and tabs, trailing spaces, bold/italic/code around the label or the word, an emoji or a
// remark after it, any heading level, any case) reads as the plain form does; and noise (a Status
// in a code fence, in an acceptance criterion, in a quoted example, in an HTML comment, in a task)
// never becomes the story's status. Every combination is generated (no sampling), so a failure
// names the exact text.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseStory, normalizeStoryStatus } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';

const FILE = '/p/_bmad-output/implementation-artifacts/1-2-light-the-lamp.md';
const BODY = '## Story\n\nAs a keeper, I want the lamp lit, so that ships see the coast.\n\n## Acceptance Criteria\n\n1. The lamp is lit at dusk.\n\n## Tasks / Subtasks\n\n- [ ] Task 1: trim the wick\n\n## Dev Notes\n\nNothing yet.\n';
const TITLE = '# Story 1.2: Light the lamp\n\n';

/** The ledger status a story file's word means (`Done` → done, `Draft` → ready-for-dev). */
function meaning(text: string): string | undefined {
  const s = parseStory(FILE, text);
  if (s.status === undefined) return undefined;
  const n = normalizeStoryStatus(s.status);
  return n.status ?? n.suggestion ?? `unknown:${s.status}`;
}

const WORDS: [string, string][] = [
  ['done', 'done'], ['review', 'review'], ['in-progress', 'in-progress'], ['ready-for-dev', 'ready-for-dev'], ['backlog', 'backlog'],
  ['Draft', 'ready-for-dev'], ['Approved', 'ready-for-dev'], ['InProgress', 'in-progress'], ['Done', 'done'], ['Ready for Review', 'review'],
];

/** How the word is written after the label. */
const VALUES: ((w: string) => string)[] = [
  (w) => w, (w) => `**${w}**`, (w) => `*${w}*`, (w) => `_${w}_`, (w) => `\`${w}\``, (w) => `${w} ✅`, (w) => `✅ ${w}`, (w) => `${w} (2026-01-12)`,
  (w) => `${w} - reviewed by Ana`, (w) => `${w}.`, (w) => w.toUpperCase(), (w) => w.toLowerCase(), (w) => `${w} 🚀 shipped on time`,
];

/** A `Status:` line under the title, however it is written. */
const LABELS = [
  'Status: ', '**Status:** ', '**Status**: ', '- **Status:** ', '* **Status**: ', 'STATUS: ', 'status: ', 'Status : ', 'Status:\t', 'Status:\u00a0',
  '*Status:* ', '_Status:_ ', '__Status:__ ', '__Status__: ', 'Story Status: ', '> Status: ', '> **Status:** ', 'Status：',
];

/** Transforms of the whole file text that change no meaning. */
const TEXTS: [string, (t: string) => string][] = [
  ['plain', (t) => t],
  ['CRLF', (t) => t.replace(/\n/g, '\r\n')],
  ['BOM', (t) => `\uFEFF${t}`],
  ['trailing spaces', (t) => t.replace(/\n/g, '   \n')],
  ['trailing tab', (t) => t.replace(/\n/g, '\t\n')],
  ['trailing NBSP', (t) => t.replace(/\n/g, '\u00a0\n')],
  ['BOM + CRLF', (t) => `\uFEFF${t.replace(/\n/g, '\r\n')}`],
];

/** Misreads grouped by what varied, so one failure message shows every family that fails. */
function summary(bad: string[]): string {
  const by = (i: number) => {
    const m = new Map<string, number>();
    for (const b of bad) {
      const k = b.split(' / ')[i] ?? '?';
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    return [...m.entries()].map(([k, n]) => `${k}: ${n}`).join('; ');
  };
  return `${bad.length} variants misread\nby form: ${by(0)}\nby text: ${by(1)}\nfirst: ${bad[0]}`;
}

function failures(forms: [string, (w: string) => string][]): string[] {
  const out: string[] = [];
  for (const [word, expected] of WORDS) {
    for (const [formName, form] of forms) {
      for (const [textName, tx] of TEXTS) {
        const text = tx(form(word));
        const got = meaning(text);
        if (got !== expected) out.push(`${formName} / ${textName} / '${word}': read ${got ?? 'no status'}, expected ${expected}\n${JSON.stringify(text.slice(0, 90))}`);
      }
    }
  }
  return out;
}

describe('story status forms: every variant reads as the plain form', () => {
  test('a Status line under the title, any label and value spelling', () => {
    const forms: [string, (w: string) => string][] = [];
    for (const label of LABELS) for (const [vi, value] of VALUES.entries()) forms.push([`${JSON.stringify(label)} value#${vi}`, (w) => `${TITLE}${label}${value(w)}\n\n${BODY}`]);
    const bad = failures(forms);
    assert.equal(bad.length, 0, summary(bad));
  });

  test('a Status section (v4 template) and a `Status: x` heading, any heading level, bold or not', () => {
    const forms: [string, (w: string) => string][] = [];
    for (let level = 1; level <= 6; level++) {
      const h = '#'.repeat(level);
      for (const [vi, value] of VALUES.entries()) {
        forms.push([`${h} Status / value#${vi}`, (w) => `${TITLE}${h} Status\n\n${value(w)}\n\n${BODY}`]);
        forms.push([`${h} **Status** / value#${vi}`, (w) => `${TITLE}${h} **Status**\n\n${value(w)}\n\n${BODY}`]);
        forms.push([`${h} Status: x / value#${vi}`, (w) => `${TITLE}${h} Status: ${value(w)}\n\n${BODY}`]);
        forms.push([`${h} Status section label / value#${vi}`, (w) => `${TITLE}${h} Status\n\n- **Current Status:** ${value(w)}\n\n${BODY}`]);
      }
    }
    const bad = failures(forms);
    assert.equal(bad.length, 0, summary(bad));
  });

  test('frontmatter `status:` and a metadata table row', () => {
    const forms: [string, (w: string) => string][] = [
      ['frontmatter', (w) => `---\nstatus: ${w}\n---\n${TITLE}${BODY}`],
      ['frontmatter quoted', (w) => `---\nstatus: "${w}"\n---\n${TITLE}${BODY}`],
      ['frontmatter single-quoted', (w) => `---\nstatus: '${w}'\n---\n${TITLE}${BODY}`],
      ['frontmatter comment', (w) => `---\nstatus: ${w} # set by dev-story\n---\n${TITLE}${BODY}`],
      ['table', (w) => `${TITLE}| Field | Value |\n|---|---|\n| Status | ${w} |\n| Epic | 1 |\n\n${BODY}`],
      ['table bold', (w) => `${TITLE}| Field | Value |\n|---|---|\n| **Status** | **${w}** |\n\n${BODY}`],
      ['table emoji', (w) => `${TITLE}| Field | Value |\n|---|---|\n| Status | ✅ ${w} |\n\n${BODY}`],
    ];
    const bad = failures(forms);
    assert.equal(bad.length, 0, summary(bad));
  });

  test('noise never becomes a status: a code fence, an acceptance criterion, a quoted example, an HTML comment, a task', () => {
    const noise = [
      `${TITLE}## Dev Notes\n\n\`\`\`\nStatus: done\n\`\`\`\n`,
      `${TITLE}\`\`\`\nStatus: done\n\`\`\`\n`,
      `${TITLE}## Dev Notes\n\n~~~yaml\nstatus: done\n~~~\n`,
      `${TITLE}## Acceptance Criteria\n\n1. Status: done is shown on the card\n2. **Status:** done\n`,
      `${TITLE}## Acceptance Criteria\n\n> Status: done\n`,
      `${TITLE}## Dev Notes\n\n> **Status:** done\n> is how the ledger writes it\n`,
      `${TITLE}<!-- Status: done -->\n\n## Story\n`,
      `${TITLE}## Tasks / Subtasks\n\n- [ ] Set Status: done in the ledger\n- [ ] **Status:** done\n`,
      `${TITLE}## Technical Notes\n\n### ADR-1\n\nStatus: Accepted\n`,
      `${TITLE}The ledger writes \`Status: done\` lines for finished stories.\n`,
    ];
    for (const [textName, tx] of TEXTS) {
      for (const t of noise) assert.equal(meaning(tx(t)), undefined, `${textName}: ${JSON.stringify(t)}`);
    }
  });
});

describe('ledger forms: every variant reads as the plain form', () => {
  const VALUE_FORMS: ((w: string) => string)[] = [
    (w) => w, (w) => `"${w}"`, (w) => `'${w}'`, (w) => `${w} # moved by dev-story`, (w) => `${w}   `, (w) => `${w}\t`, (w) => `${w} ✅`, (w) => `${w} (passed with notes)`,
  ];
  const KEY_FORMS: ((k: string) => string)[] = [(k) => k, (k) => `"${k}"`, (k) => `'${k}'`];
  const LEDGER_WORDS = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done'];

  test('quoting, comments, trailing blanks, emoji and remarks, CRLF and a BOM', () => {
    const bad: string[] = [];
    for (const w of LEDGER_WORDS) {
      for (const [vi, vf] of VALUE_FORMS.entries()) {
        for (const [ki, kf] of KEY_FORMS.entries()) {
          for (const [textName, tx] of TEXTS) {
            const text = tx(`# generated: 2026-01-12\nproject: lamp\ndevelopment_status:\n  epic-1: in-progress\n  ${kf('1-2-light-the-lamp')}: ${vf(w)}\n  epic-1-retrospective: optional\n`);
            const e = parseLedger('/p/sprint-status.yaml', text).byKey.get('1-2-light-the-lamp');
            if (e?.status !== w || e.kind !== 'story') bad.push(`value#${vi} key#${ki} ${textName} '${w}': ${e ? `${e.kind} ${e.status}` : 'no entry'}`);
          }
        }
      }
    }
    assert.equal(bad.length, 0, summary(bad));
  });
});

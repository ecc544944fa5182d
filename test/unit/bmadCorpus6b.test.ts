// Real projects read right (issue 20, sixth corpus round, part b, measured on projects not seen
// before): stories numbered past BMAD's epic-story pair (`7-1-1-…` with `story-7.1.1.md`, the
// lettered `6-1-a-…` with `story-6.1a-….md`) join their files; a completion note kept under the
// story's own name is not a second story; a status stated in a metadata table, or under a
// `## Status` heading after a checklist, is read; a ledger key repeated with the same status is a
// warning, not an error.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseStory } from '../../src/core/bmad/story';
import { corpusFixture } from './corpusHelpers';

const FIX = path.resolve('test/fixtures/bmad-corpus6b');
const NOW = new Date('2026-11-28T06:00:00Z');

const { copy, cli } = corpusFixture('corpus6b');

describe('stories numbered past the epic-story pair', () => {
  test('three-level and lettered keys join the files numbered the same way; their drift is found', () => {
    const r = loadSprint(copy('numbered'), { now: NOW })!;
    const fileOf = Object.fromEntries(r.stories.map((s) => [s.key, s.file ? path.basename(s.file) : null]));
    assert.equal(fileOf['6-1-a-invoice-types'], 'story-6.1a-invoice-types.md');
    assert.equal(fileOf['6-1-b-payment-types'], 'story-6.1b-payment-types.md');
    assert.equal(fileOf['7-1-1-move-correlation-primitives'], 'story-7.1.1.md');
    assert.equal(fileOf['7-1-2-extract-email-templates'], 'story-7.1.2.md');
    assert.equal(fileOf['7-2-1-move-posting-engines'], 'story-7.2.1.md');
    // The completion note beside story 8.1 is not a second candidate: the story keeps its file.
    assert.equal(fileOf['8-1-import-resume'], 'story-8.1-import-resume.md');
    // No file is left over as a story the ledger does not list.
    assert.deepEqual(r.stories.filter((s) => !s.ledgerStatus).map((s) => s.key), []);
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning').map((p) => path.basename(p.file)).sort();
    assert.deepEqual(drift, ['story-6.1a-invoice-types.md', 'story-7.1.1.md', 'story-8.1-import-resume.md']);
    const warned = r.problems.filter((p) => p.severity !== 'info' && /story-(6\.1b|7\.1\.2|7\.2\.1|8\.2)/.test(p.file)).map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(warned, []);
  });

  test('a story titled by its file name (`# story-7.1.1: …`) is a story', () => {
    const s = parseStory('/p/stories/story-7.1.1.md', '# story-7.1.1: Move correlation primitives\n\n**Status:** review\n');
    assert.equal(s.title, 'Move correlation primitives');
    assert.equal(s.status, 'review');
  });

  test('a retrospective listed twice with the same status is a warning; with another status, an error', () => {
    const dir = copy('numbered');
    const r = loadSprint(dir, { now: NOW })!;
    const dups = r.problems.filter((p) => p.code === 'ledger-duplicate-key').map((p) => `${p.range.start.line + 1} ${p.severity}`);
    assert.deepEqual(dups, ['19 warning', '26 error']);
    // Only the conflicting one makes `validate` fail.
    const v = cli(dir, 'validate');
    assert.equal(v.status, 1, v.stderr);
    const errors = (JSON.parse(v.stdout) as { problems: { severity: string; code: string }[] }).problems.filter((p) => p.severity === 'error').map((p) => p.code);
    assert.deepEqual(errors, ['ledger-duplicate-key']);
  });
});

describe('a story status stated in a table or after a checklist', () => {
  test('the metadata table, the `## Status` table and the line after a checklist give the status', () => {
    const dir = copy('tables');
    const r = loadSprint(dir, { now: NOW })!;
    const st = Object.fromEntries(r.stories.map((s) => [s.key, s.fileStatus ?? null]));
    assert.deepEqual(st, {
      '1-1-change-password': 'Drafted', '1-2-reset-password': 'done', '1-3-redaction-engine': 'done',
      '1-4-allow-list': 'review', '1-5-shadow-manifest': 'done', '1-6-reports': 'done',
    });
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning').map((p) => path.basename(p.file)).sort();
    assert.deepEqual(drift, ['1-1-change-password.md', '1-4-allow-list.md']);
    const others = r.problems.filter((p) => p.severity !== 'info' && p.code !== 'story-status-drift' && !/1-1-change/.test(p.file)).map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(others, []);
    const v = cli(dir, 'validate');
    assert.equal(v.status, 0, v.stdout);
  });

  test('the status written back into a table cell replaces the word in its cell', () => {
    const text = fs.readFileSync(path.join(FIX, 'tables/_bmad-output/implementation-artifacts/1-2-reset-password.md'), 'utf8');
    const s = parseStory('/p/1-2-reset-password.md', text);
    const line = text.split('\n')[s.statusLine!];
    assert.equal(line.slice(s.statusStart, s.statusEnd), 'done');
    assert.equal(`${line.slice(0, s.statusStart)}review${line.slice(s.statusEnd)}`, '| Status | review |');
  });
});

describe('the project`s own words for work past done', () => {
  test('a story the ledger calls deployed or released is finished: never offered as work to start', () => {
    const dir = copy('finished');
    const n = cli(dir, 'next');
    assert.equal(n.status, 0, n.stderr);
    const j = JSON.parse(n.stdout) as { next: { id: string } | null; ready: { id: string }[] };
    assert.equal(j.next?.id, 'story:2-3-offer-filters');
    const offered = [j.next?.id, ...j.ready.map((e) => e.id)];
    assert.ok(!offered.includes('story:2-1-offer-list') && !offered.includes('story:2-2-offer-detail'), `finished stories are never offered: ${offered.join(', ')}`);
  });
});

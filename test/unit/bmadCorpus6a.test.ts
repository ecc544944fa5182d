// Real projects read right (issue 20, sixth corpus round (a), measured on projects not seen before):
// a ledger header that says more than a date (`last_updated: <date> (<what changed>: <note>)`) is
// text to BMAD, not a broken ledger; a status line labelled `Story Status:` is the story's status;
// story files kept per epic as `epic-2/stories/2.1-slug.md` are the ledger's stories; a status word
// carrying a version (`deferred-to-v2`) is read whole; a story split into parts (`9-2-1-…`) finds its
// file named by its numbers (`9.2.1.story.md`); a done story whose QA Results record a later
// `Gate: PASS` than its stale gate file is not failed; a brainstorming session saved under a name of
// the team's own is known by its template's frontmatter.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseLedger } from '../../src/core/bmad/ledger';
import { parseStory, storyKeyFromName } from '../../src/core/bmad/story';
import { scanRoots } from '../../src/core/store/scan';
import { corpusFixture } from './corpusHelpers';

const FIX = path.resolve('test/fixtures/bmad-corpus6a');
const NOW = new Date('2026-03-21T06:00:00Z');

const { copy, cli } = corpusFixture('corpus6a');

describe('the ledger as projects write it', () => {
  test('a header line saying more than a date is text, not a broken ledger', () => {
    const file = path.join(FIX, 'ledger/docs/sprint-artifacts/sprint-status.yaml');
    const ledger = parseLedger(file, fs.readFileSync(file, 'utf8'));
    assert.deepEqual(ledger.problems.map((p) => `${p.severity} ${p.code}`), []);
    assert.equal(ledger.lastUpdated?.date?.toISOString().slice(0, 10), '2026-03-20');
    assert.equal(ledger.entries.filter((e) => e.kind === 'story').length, 5);
    // A real error in the entries is still one.
    const broken = parseLedger(file, fs.readFileSync(file, 'utf8').replace('2-2-export-report: ready-for-dev', '2-2-export-report: ready: for dev'));
    assert.deepEqual(broken.problems.map((p) => `${p.severity} ${p.code}`), ['error ledger-yaml']);
  });

  test('validate and sprint read the project without an error', () => {
    const dir = copy('ledger');
    const v = cli(dir, 'validate');
    assert.equal(v.status, 0, v.stdout);
    const s = cli(dir, 'sprint');
    assert.equal(s.status, 0, s.stderr);
  });
});

describe('story files as projects write them', () => {
  test('`Story Status: drafted` is the story`s status: against a ledger saying done, drift', () => {
    const s = parseStory('1-1-workspace-setup.md', fs.readFileSync(path.join(FIX, 'ledger/docs/sprint-artifacts/1-1-workspace-setup.md'), 'utf8'));
    assert.equal(s.status, 'drafted');
    assert.equal(s.title, 'Workspace setup');
    const r = loadSprint(copy('ledger'), { now: NOW })!;
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning').map((p) => path.basename(p.file));
    assert.deepEqual(drift, ['1-1-workspace-setup.md']);
  });

  test('`epic-2/stories/2.1-csv-import.md` is story 2.1 of the ledger', () => {
    assert.deepEqual(storyKeyFromName('2.1-csv-import.md'), { key: '2-1-csv-import', epic: 2, epicId: '2', story: '1', v4: false });
    // BMAD v4's `2.1.csv-import.md` and a dated note are read as before.
    assert.equal(storyKeyFromName('2.1.csv-import.md')?.v4, true);
    assert.equal(storyKeyFromName('2026.03-notes.md'), undefined);
    const r = loadSprint(copy('ledger'), { now: NOW })!;
    const st = Object.fromEntries(r.stories.map((s) => [s.key, s.file ? path.relative(r.root, s.file) : undefined]));
    assert.equal(st['2-1-csv-import'], path.join('docs', 'sprint-artifacts', 'epic-2', 'stories', '2.1-csv-import.md'));
    assert.equal(st['2-2-export-report'], path.join('docs', 'sprint-artifacts', 'epic-2', 'stories', '2.2-export-report.md'));
    assert.deepEqual(r.problems.filter((p) => p.code === 'ledger-story-no-file' || p.code === 'story-not-in-ledger').map((p) => p.code), []);
  });

  test('a note named the same way but without a story title (`05.5-x11-issues.md` among tech-specs) is not a story', () => {
    const dir = copy('ledger');
    fs.mkdirSync(path.join(dir, 'docs/sprint-artifacts/tech-specs'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs/sprint-artifacts/tech-specs/05.5-x11-issues.md'), '# 05.5 - X11 issues\n\n**Status:** Unresolved, a rendering limit suspected.\n');
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.stories.filter((s) => s.file?.endsWith('05.5-x11-issues.md')).map((s) => s.key), []);
  });

  test('`deferred-to-v2` in the file and the ledger is one word, and they agree', () => {
    const s = parseStory('1-2-social-feed-import.md', fs.readFileSync(path.join(FIX, 'ledger/docs/sprint-artifacts/1-2-social-feed-import.md'), 'utf8'));
    assert.equal(s.status, 'deferred-to-v2');
    // A date after the word is not part of it.
    assert.equal(parseStory('3-1-x.md', '# Story 3.1: X\n\nStatus: Done 2026-01-12\n').status, 'Done');
    const r = loadSprint(copy('ledger'), { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.file.endsWith('1-2-social-feed-import.md') && p.severity !== 'info').map((p) => p.code), []);
    // The only warnings in the project are on the story that really drifted (done in the ledger, every task open).
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`), ['1-1-workspace-setup.md story-status-drift', '1-1-workspace-setup.md story-done-tasks-open']);
  });
});

describe('stories split into parts, and QA records that disagree', () => {
  test('`3.2.story.md` is story 3-2-…, `3.2.1.story.md` its part 3-2-1-…: each bound, drift found', () => {
    const r = loadSprint(copy('substories'), { now: NOW })!;
    const file = Object.fromEntries(r.stories.map((s) => [s.key, s.file ? path.basename(s.file) : undefined]));
    assert.deepEqual(file, {
      '3-1-upload-form': '3.1.story.md', '3-2-parse-requirements': '3.2.story.md',
      '3-2-1-update-requirements-api': '3.2.1.story.md', '3-2-2-requirements-export': '3.2.2.story.md',
    });
    const warned = r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(warned, ['3.2.1.story.md story-status-drift']);
  });

  test('a done story whose QA Results record Gate: PASS after the gate file`s FAIL: a note; FAIL in both stays an error', () => {
    const dir = copy('v4gate');
    const r = loadSprint(dir, { now: NOW })!;
    const on = (f: string) => r.problems.filter((p) => p.file.endsWith(f)).map((p) => `${p.severity} ${p.code}`);
    assert.deepEqual(on('1.2.story.md'), ['info story-gate-failed']);
    assert.deepEqual(on('1.3.story.md'), ['error story-gate-failed']);
    const s = cli(dir, 'sprint');
    assert.equal(s.status, 1, 'the real failure still fails `sprint`');
  });
});

describe('planning artifacts named by their template', () => {
  test('a brainstorming session under a name of the team`s own is the brainstorming workflow`s', async () => {
    const dir = copy('artifacts');
    const res = await scanRoots([dir], { index: false, sprint: false });
    const w = res.workflows.find((x) => x.file === path.join(dir, '_bmad-output/brainstorming/team-offsite-2026-03-12.md'));
    assert.ok(w, 'the session is read as a workflow artifact');
    assert.deepEqual({ workflow: w.workflow, by: w.identifiedBy, codes: w.problems.map((p) => p.code).filter((c) => c === 'bmad-workflow-unknown') }, { workflow: 'brainstorming', by: 'template', codes: [] });
  });
});

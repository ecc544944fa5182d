// Real projects read right (issue 20, eighth corpus round, part a, measured on projects not seen
// before): v6 beta's sprint in `.bmad-ephemeral/` is found when the install is not in the
// repository; ledger keys that letter both numbers (`e1-s1-…`), stories numbered in a lettered
// series under their epic (`g-01-…`, a role's G-01: the leftover of the seventh round), an epic
// named by a word (`epic-r` with `r-0-…`), and a status word followed by an emoji or a remark
// (`done ✅`) take part in drift, `sprint` and `next`; a story file saying `blocked` while the
// ledger says otherwise is drift; the acceptance criteria of a tech-spec's implementation plan are
// not tasks; a QA gate written as a mapping is read; a report numbered like a story is not its file.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseStory } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { corpusFixture } from './corpusHelpers';

const NOW = new Date('2026-11-28T12:00:00Z');

const { copy, cli } = corpusFixture('corpus8a');

const warnings = (r: { problems: { severity: string; code: string; file: string }[] }) =>
  r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`).sort();

const files = (dir: string, r: { stories: { key: string; file?: string }[] }) =>
  Object.fromEntries(r.stories.map((s) => [s.key, s.file ? path.relative(dir, s.file) : null]));

describe('v6 beta: a sprint in `.bmad-ephemeral/` without the install', () => {
  test('the ledger and its stories are the sprint (the install that declares them is git-ignored)', () => {
    const dir = copy('ephemeral-only');
    const r = loadSprint(dir, { now: NOW })!;
    assert.ok(r, 'a sprint is read');
    assert.equal(path.relative(dir, r.ledgerFile ?? ''), path.join('.bmad-ephemeral', 'sprint-status.yaml'));
    assert.deepEqual(files(dir, r), {
      '1-1-light-the-lamp': path.join('.bmad-ephemeral', 'stories', '1-1-light-the-lamp.md'),
      '1-2-trim-the-wick': path.join('.bmad-ephemeral', 'stories', '1-2-trim-the-wick.md'),
      '1-3-fill-the-oil': null,
    });
    assert.deepEqual(warnings(r), ['1-2-trim-the-wick.md story-status-drift']);
    const s = cli(dir, 'next');
    assert.equal(s.status, 0, s.stderr);
    assert.match(s.stdout, /1-1-light-the-lamp/);
  });
});

describe('ledger keys outside BMAD`s N-M-slug grammar take part in drift, sprint and next', () => {
  test('`e1-s1-…`: epic 1, story 1, joined to its file', () => {
    const dir = copy('lettered');
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.stories.map((s) => [s.key, `${s.epicId}.${s.story} ${s.ledgerStatus} ${s.file ? path.basename(s.file) : '-'}`]));
    assert.deepEqual(of, {
      'e1-s1-map-the-moorings': '1.1 done e1-s1-map-the-moorings.md',
      'e1-s2-price-a-berth': '1.2 review e1-s2-price-a-berth.md',
      'e1-s3-book-a-berth': '1.3 ready-for-dev -',
      'e2-s1-read-the-tide-table': '2.1 backlog -',
    });
    assert.deepEqual(r.epics.map((e) => e.id), ['1', '2']);
    assert.deepEqual(warnings(r), ['e1-s2-price-a-berth.md story-status-drift', 'sprint-status.yaml ledger-story-no-file']);
    assert.equal(r.problems.filter((p) => p.code === 'ledger-unknown-key' && p.severity !== 'info').length, 0);
    assert.deepEqual(r.next, { action: 'dev-story', storyKey: 'e1-s3-book-a-berth', reason: 'start the next ready story' });
  });

  test('a lettered series (`g-01-…`, `u-01-…`) belongs to the epic it is listed under, in the ledger`s order', () => {
    const dir = copy('series');
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.stories.map((s) => [s.key, `${s.epicId}/${s.story} ${s.ledgerStatus} ${s.file ? 'file' : '-'}`]));
    assert.deepEqual(of, {
      '0-1-scaffold-the-api': '0/1 done file',
      'g-01-browse-the-shelf': '1/g-01 done file',
      'g-02-search-by-title': '1/g-02 review file',
      'u-01-borrow-a-book': '1/u-01 in-progress file',
      'u-02-return-a-book': '2/u-02 backlog -',
      'a-01-approve-a-member': '2/a-01 backlog -',
    });
    assert.deepEqual(r.epics.find((e) => e.id === '2')!.stories.map((s) => s.key), ['u-02-return-a-book', 'a-01-approve-a-member']);
    assert.deepEqual(warnings(r), ['g-02-search-by-title.md story-status-drift']);
    // One note for the ledger, an info: the keys are read.
    const notes = r.problems.filter((p) => p.code === 'ledger-unknown-key');
    assert.deepEqual(notes.map((p) => p.severity), ['info']);
    assert.deepEqual(r.next, { action: 'dev-story', storyKey: 'u-01-borrow-a-book', reason: 'resume the in-progress story' });
    // The story commands take the key as the ledger writes it.
    const set = spawnSync(process.execPath, [path.resolve('dist/cli.js'), 'story', 'set-status', 'g-02-search-by-title', 'review'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
    assert.equal(set.status, 0, set.stderr);
    assert.deepEqual(warnings(loadSprint(dir, { now: NOW })!), []);
  });

  test('an epic named by a word (`epic-r`) owns `r-0-…`; `done ✅` and `done ✅ (remark)` are done', () => {
    const dir = copy('word-epic');
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.stories.map((s) => [s.key, `${s.epicId}.${s.story} ${s.ledgerStatus}`]));
    assert.deepEqual(of, {
      '1-1-open-the-books': '1.1 done',
      'r-0-blueprint': 'r.0 done',
      'r-1-one-state-store': 'r.1 done',
      'r-2-merge-the-services': 'r.2 in-progress',
    });
    assert.deepEqual(r.epics.map((e) => `${e.id} ${e.ledgerStatus}`), ['1 done', 'r in-progress']);
    assert.deepEqual(warnings(r), ['r-2-merge-the-services.md story-status-drift']);
    assert.deepEqual(r.problems.filter((p) => p.code === 'ledger-legacy-status').map((p) => p.data?.value), ['done', 'done']);
    assert.equal(r.next?.action, 'retrospective');
    assert.match(r.next?.reason ?? '', /epic-r-retrospective/);
  });

  test('a ledger value: the status word before an emoji or a remark in brackets', () => {
    const l = parseLedger('/p/sprint-status.yaml', 'development_status:\n  epic-1: in-progress ✅\n  1-1-a: done ✅\n  1-2-b: review (PR #12)\n  1-3-c: done - merged\n');
    const st = Object.fromEntries(l.entries.map((e) => [e.key, `${e.status} ${e.valid} ${e.legacy}`]));
    assert.deepEqual(st, { 'epic-1': 'in-progress true true', '1-1-a': 'done true true', '1-2-b': 'review true true', '1-3-c': 'done - merged false false' });
  });
});

describe('story files as projects write them', () => {
  test('`Status: blocked` against the ledger`s done is drift (no fix: which is right is not guessed)', () => {
    const dir = copy('blocked');
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(warnings(r), ['4-1-approval-flow.md story-status-drift']);
    const p = r.problems.find((x) => x.code === 'story-status-drift' && x.severity === 'warning')!;
    assert.equal(p.data?.fix, undefined);
    assert.match(p.message, /blocked/);
  });

  test('a tech-spec`s implementation plan: its acceptance criteria are not tasks', () => {
    const s = parseStory('/p/7-5-plugins.md', [
      '# Story 7.5: Plugins', '', 'Status: done', '', '## Tasks / Subtasks', '', '- [x] Move the modules', '- [x] Wire the kernel', '',
      '## Implementation Plan', '', '### Tasks', '', '- [x] Build the packages', '', '### Acceptance Criteria', '', '- [ ] **Build**: it builds', '- [ ] **API**: every endpoint answers', '',
      '## Additional Context', '', '- [ ] not a task either', '',
    ].join('\n'));
    assert.deepEqual(s.tasks.map((t) => `${t.checked ? 'x' : ' '} ${t.text}`), ['x Move the modules', 'x Wire the kernel', 'x Build the packages']);
  });

  test('a report numbered like a story (`story-1.2-verification-report.md`) is not the story`s file', () => {
    const dir = copy('note');
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(files(dir, r), {
      '1-1-set-up-the-repo': path.join('_bmad-output', 'implementation-artifacts', '1-1-set-up-the-repo.md'),
      '1-2-main-screen-layout': null,
    });
    assert.deepEqual(warnings(r), []);
  });
});

describe('QA gates as reviews write them', () => {
  test('a gate written as a mapping (`gate:` with `status:`), a `decision:` block, and PASSED', () => {
    const nested = parseQaGate('/p/docs/qa/gates/1.1-setup.yml', 'gate:\n  story: "1.1"\n  title: "Setup"\n  status: "PASS"\ndecision:\n  status: "PASS"\n', NOW);
    assert.deepEqual([nested.verdict, nested.epic, nested.story, nested.open, nested.error], ['PASS', 1, '1', true, undefined]);
    const decision = parseQaGate('/p/docs/qa/gates/1.2-x.yml', 'story: "1.2"\ndecision:\n  status: CONCERNS\n', NOW);
    assert.equal(decision.verdict, 'CONCERNS');
    assert.equal(parseQaGate('/p/docs/qa/gates/1.3-y.yml', 'gate: PASSED\n', NOW).verdict, 'PASS');
    assert.equal(parseQaGate('/p/docs/qa/gates/1.4-z.yml', 'gate: MAYBE\n', NOW).verdict, undefined);
  });
});

describe('a ledger written with a fullwidth colon', () => {
  test('`1-1-作为…：done` entries are read as meant, and the ledger is reported once as not YAML', () => {
    const dir = copy('wide-colon');
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.stories.map((s) => [s.key, `${s.ledgerStatus} ${s.file ? 'file' : '-'}`]));
    assert.deepEqual(of, {
      '1-1-作为守塔人我可以点亮灯以便船只看见': 'done file',
      '1-2-作为守塔人我可以调节 亮度以便省油': 'review file',
      '1-3-作为守塔人我可以记录航船以便统计': 'backlog -',
    });
    const yaml = r.problems.filter((p) => p.code === 'ledger-yaml');
    assert.equal(yaml.length, 1);
    assert.equal(yaml[0].severity, 'error');
    assert.equal(yaml[0].range.start.line, 6);
    assert.match(yaml[0].message, /line 7 and 1 more .*fullwidth colon/);
    // The story files are the ledger's: no "has a file but no entry" on them; the one drift is found.
    assert.deepEqual(warnings(r), ['1-2-作为守塔人我可以调节 亮度以便省油.md story-status-drift', 'sprint-status.yaml ledger-yaml']);
  });
});

describe('a BMAD document whose frontmatter is not YAML', () => {
  test('a quick-spec kept outside the output folder (its template`s keys say whose it is) is a warning, not a failed validate', () => {
    const dir = copy('broken-spec');
    const v = cli(dir, 'validate');
    assert.equal(v.status, 0, v.stdout);
    const out = JSON.parse(v.stdout) as { problems: { code: string; severity: string; file: string }[] };
    assert.deepEqual(out.problems.filter((p) => p.code === 'yaml-syntax').map((p) => [path.basename(p.file), p.severity]), [['tech-spec-lamp-runner.md', 'warning']]);
  });
});

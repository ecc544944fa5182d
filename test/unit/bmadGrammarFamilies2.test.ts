// Real projects read right (issue 20, the grammar families' second pass, found on known projects
// before the next unseen batch): ledger keys of a series the ledger names only by its header
// (`supp-epic-1` above `se1-1-…`, `rust-phase-7` above `r7-1-…`, `cc-foundation` above `ccf-1-…`,
// `epic-fc` above `fill-confirm-1-…`), keys with one number (`story-{slug}-{n}`, BMAD v6 alpha's
// level-1 names, and `story-{n}-{slug}`), and v6 alpha's `story-{slug}-{n}.md` files with no ledger.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseLedger } from '../../src/core/bmad/ledger';
import { workspace } from './fileHelpers';

const NOW = new Date('2026-11-28T18:00:00Z');

/** A project in a new temp folder (no `.waymark`): `files` maps a relative path to its text. */
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-grammar2-', waymark: false });

const readings = (text: string) => Object.fromEntries(parseLedger('/p/sprint-status.yaml', text).entries.map((e) => [e.key, e.kind === 'unknown' ? 'unknown' : `${e.kind} ${e.epicId}${e.story === undefined ? '' : `.${e.story}`} ${e.status}`]));
const story = (n: string, status: string) => `# Story ${n}\n\nStatus: ${status}\n\n## Tasks / Subtasks\n\n- [x] Do it\n`;

describe('a series the ledger names by its header', () => {
  test('stories listed under a header whose words their prefix abbreviates belong to it', () => {
    const of = readings([
      'development_status:',
      '  epic-1: done',
      '  1-1-lay-the-keel: done',
      '  epic-1-retrospective: done',
      '  side-quest-2: in-progress',
      '  sq2-1-paint-the-hull: done',
      '  sq2-2-rig-the-mast: review',
      '  side-quest-2-retrospective: optional',
      '  engine-phase-3: done',
      '  e3-fit-the-engine: done',
      '  dock-works: done',
      '  dw-1-lay-the-rails: done',
      '  dw-1b-oil-the-rails: done',
      '  feature-sail-plan: in-progress',
      '  sail-1-cut-the-canvas: backlog',
      '  epic-ha: in-progress',
      '  hull-audit-1-check-rivets: done',
      '  hull-audit-2-check-seams: review',
      '  epic-crew: backlog',
      '  CREW-S01-hire-a-cook: backlog',
      '',
    ].join('\n'));
    assert.deepEqual(of, {
      'epic-1': 'epic 1 done',
      '1-1-lay-the-keel': 'story 1.1 done',
      'epic-1-retrospective': 'retro 1 done',
      'side-quest-2': 'epic side-quest-2 in-progress',
      'sq2-1-paint-the-hull': 'story side-quest-2.1 done',
      'sq2-2-rig-the-mast': 'story side-quest-2.2 review',
      'side-quest-2-retrospective': 'retro side-quest-2 optional',
      'engine-phase-3': 'epic engine-phase-3 done',
      'e3-fit-the-engine': 'story engine-phase-3.fit-the-engine done',
      'dock-works': 'epic dock-works done',
      'dw-1-lay-the-rails': 'story dock-works.1 done',
      'dw-1b-oil-the-rails': 'story dock-works.1b done',
      'feature-sail-plan': 'epic feature-sail-plan in-progress',
      'sail-1-cut-the-canvas': 'story feature-sail-plan.1 backlog',
      'epic-ha': 'epic ha in-progress',
      'hull-audit-1-check-rivets': 'story ha.1 done',
      'hull-audit-2-check-seams': 'story ha.2 review',
      'epic-crew': 'epic crew backlog',
      'CREW-S01-hire-a-cook': 'story crew.1 backlog',
    });
  });

  test('keys that only share a word with the key above, or carry another number, stay unread', () => {
    const of = readings([
      'development_status:',
      '  epic-1: done',
      '  1-1-lay-the-keel: done',
      '  cleanup-notes: done',
      '  cleanup-old-logs: done',
      '  cleanup-2-sweep: done',
      '  rust-phase-7: done',
      '  r6-1-port-the-router: done',
      '  supp-epic-1: done',
      '  xy1-1-unrelated: done',
      '',
    ].join('\n'));
    assert.equal(of['cleanup-old-logs'], 'unknown');
    assert.equal(of['cleanup-2-sweep'], 'unknown');
    assert.equal(of['cleanup-notes'], 'unknown');
    assert.equal(of['rust-phase-7'], 'unknown');
    assert.equal(of['r6-1-port-the-router'], 'unknown');
    assert.equal(of['supp-epic-1'], 'unknown');
    assert.equal(of['xy1-1-unrelated'], 'unknown');
  });

  test('a project: the series\' stories meet their files, drift is found, and the grammar note is an info', () => {
    const dir = project({
      'docs/sprint-status.yaml': [
        'generated: 2026-11-01',
        'story_location: docs/stories',
        'development_status:',
        '  epic-1: done',
        '  1-1-lay-the-keel: done',
        '  epic-1-retrospective: done',
        '  supp-epic-1: in-progress',
        '  se1-1-paint-the-hull: done',
        '  se1-2-rig-the-mast: review',
        '  supp-epic-1-retrospective: optional',
        '  rust-phase-7: in-progress',
        '  r7-1-port-the-router: done',
        '  r7-fork-the-crates: in-progress',
        '',
      ].join('\n'),
      'docs/stories/1-1-lay-the-keel.md': story('1.1: Lay the Keel', 'done'),
      'docs/stories/se1-1-paint-the-hull.md': story('SE1.1: Paint the Hull', 'review'),
      'docs/stories/se1-2-rig-the-mast.md': story('SE1.2: Rig the Mast', 'review'),
      'docs/stories/r7-1-port-the-router.md': story('R7.1: Port the Router', 'done'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const got = Object.fromEntries(r.stories.map((s) => [s.key, `${s.epicId} ${s.ledgerStatus} ${s.file ? path.basename(s.file) : '-'}`]));
    assert.deepEqual(got, {
      '1-1-lay-the-keel': '1 done 1-1-lay-the-keel.md',
      'se1-1-paint-the-hull': 'supp-epic-1 done se1-1-paint-the-hull.md',
      'se1-2-rig-the-mast': 'supp-epic-1 review se1-2-rig-the-mast.md',
      'r7-1-port-the-router': 'rust-phase-7 done r7-1-port-the-router.md',
      'r7-fork-the-crates': 'rust-phase-7 in-progress -',
    });
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.file.endsWith('.md')).map((p) => path.basename(p.file));
    assert.deepEqual(drift, ['se1-1-paint-the-hull.md']);
    assert.deepEqual(r.problems.filter((p) => (p.code === 'ledger-unknown-key' || p.code === 'ledger-epic-missing') && p.severity !== 'info').map((p) => p.message), []);
    assert.deepEqual(r.epics.map((e) => `${e.id} ${e.ledgerStatus}`), ['1 done', 'rust-phase-7 in-progress', 'supp-epic-1 in-progress']);
  });
});

describe('keys with one number', () => {
  test('`story-{slug}-{n}` and `story-{n}-{slug}` are stories of the epic they are listed under', () => {
    const of = readings([
      'development_status:',
      '  epic-8: in-progress',
      '  8-1-trim-the-sails: done',
      '  story-night-watch-1: done',
      '  story-night-watch-2: review',
      '  story-7-mend-the-nets: done',
      '  epic-8-retrospective: optional',
      '',
    ].join('\n'));
    assert.deepEqual(of, {
      'epic-8': 'epic 8 in-progress',
      '8-1-trim-the-sails': 'story 8.1 done',
      'story-night-watch-1': 'story 8.night-watch-1 done',
      'story-night-watch-2': 'story 8.night-watch-2 review',
      'story-7-mend-the-nets': 'story 8.story-7 done',
      'epic-8-retrospective': 'retro 8 optional',
    });
  });

  test('with no epic above them, the series their keys name is their epic, and no epic entry is asked for', () => {
    const dir = project({
      'docs/sprint-status.yaml': 'project_name: Lighthouse\ndevelopment_status:\n  story-lamp-01: review\n  story-lamp-02: ready-for-dev\nepics:\n  epic-lamp-01: in-progress\n',
      'docs/stories/story-lamp-01.md': '# User Story: Light the Lamp\n**ID:** STORY-LAMP-01\n**Status:** review\n\n## Tasks\n- [x] Light it\n',
      'docs/stories/story-lamp-02.md': '# User Story: Trim the Wick\n**ID:** STORY-LAMP-02\n**Status:** TODO\n\n## Tasks\n- [ ] Trim it\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const got = Object.fromEntries(r.stories.map((s) => [s.key, `${s.epicId} ${s.ledgerStatus} ${s.fileStatus} ${s.file ? path.basename(s.file) : '-'}`]));
    assert.deepEqual(got, {
      'story-lamp-01': 'lamp review review story-lamp-01.md',
      'story-lamp-02': 'lamp ready-for-dev TODO story-lamp-02.md',
    });
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-status-drift' && p.file.endsWith('.md')).map((p) => path.basename(p.file)), ['story-lamp-02.md']);
    assert.deepEqual(r.problems.filter((p) => (p.code === 'ledger-unknown-key' || p.code === 'ledger-epic-missing') && p.severity !== 'info').map((p) => p.message), []);
  });
});

describe('v6 alpha level-1 story files with no ledger', () => {
  test('`story-{slug}-{n}.md` files are listed and read, one epic per slug', () => {
    const dir = project({
      'bmad/bmm/config.yaml': 'output_folder: "{project-root}/docs"\ndev_story_location: "{project-root}/docs/stories"\n',
      'docs/stories/story-harbour-lights-1.md': '# Story: Fit the Lamps\n\nStatus: Ready for Review\n\n## Tasks\n\n- [x] Fit them\n',
      'docs/stories/story-harbour-lights-2.md': '# Story: Wire the Lamps\n\nStatus: Draft\n\n## Tasks\n\n- [ ] Wire them\n',
      'docs/stories/story-template-notes.md': '# Notes on the story template\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const got = Object.fromEntries(r.stories.map((s) => [s.key, `${s.epicId}.${s.story} ${s.fileStatus}`]));
    assert.deepEqual(got, {
      'story-harbour-lights-1': 'harbour-lights.1 Ready for Review',
      'story-harbour-lights-2': 'harbour-lights.2 Draft',
    });
  });
});

test('v6 alpha.0\'s `ContextReadyDraft` (story-context on a Draft) is ready-for-dev, no unknown status', () => {
  const dir = project({
    'bmad/bmm/config.yaml': 'output_folder: "{project-root}/docs"\ndev_story_location: "{project-root}/docs/stories"\n',
    'docs/stories/story-harbour-lights-1.md': '# Story: Fit the Lamps\n\nStatus: ContextReadyDraft\n\n## Tasks\n\n- [ ] Fit them\n',
  });
  const r = loadSprint(dir, { now: NOW })!;
  assert.deepEqual(r.stories.map((s) => `${s.key} ${s.status}`), ['story-harbour-lights-1 ready-for-dev']);
  assert.deepEqual(r.problems.filter((p) => p.code === 'story-unknown-status'), []);
});

describe('keys inside an epic\'s block', () => {
  test('a story numbered with letters after a declared epic (`15-R1-…`, `6.2-p1-…`, `2-ux1-…`, `3-2b5-…`) is that epic\'s', () => {
    const of = readings([
      'development_status:',
      '  epic-2: in-progress',
      '  2-1-hoist-the-flag: done',
      '  2-ux1-paint-the-deck: review',
      '  epic-3: in-progress',
      '  3-2b-load-the-cargo: done',
      '  3-2b5-stow-the-cargo: done',
      '  epic-6.2: done',
      '  6.2-1-chart-the-course: done',
      '  6.2-p1-plot-the-stars: done',
      '  epic-15: in-progress',
      '  15-R1-refit-the-galley: done',
      '  9-R1-no-such-epic: done',
      '',
    ].join('\n'));
    assert.equal(of['2-ux1-paint-the-deck'], 'story 2.ux1 review');
    assert.equal(of['3-2b5-stow-the-cargo'], 'story 3.2b5 done');
    assert.equal(of['6.2-p1-plot-the-stars'], 'story 6.2.p1 done');
    assert.equal(of['15-R1-refit-the-galley'], 'story 15.r1 done');
    assert.equal(of['9-R1-no-such-epic'], 'unknown');
    assert.equal(of['3-2b-load-the-cargo'], 'story 3.2b done');
  });

  test('a series key between `epic-X` and its retrospective is a story of epic X; after the retrospective it is a story of its own series', () => {
    const of = readings([
      'development_status:',
      '  epic-1: done',
      '  CORE-001: done',
      '  CORE-002: review',
      '  CORE-002-retrospective: done',
      '  epic-1-bonus-scripts: done',
      '  td-cross-1-shared-fixtures: done',
      '  epic-1-retrospective: done',
      '  BF-1-fix-the-sync: done',
      '  epic-2: in-progress',
      '  2-1-raise-the-sails: done',
      '  debug-1-log-the-wind: done',
      '  epic-3: backlog',
      '',
    ].join('\n'));
    assert.equal(of['CORE-001'], 'story 1.core-1 done');
    assert.equal(of['CORE-002'], 'story 1.core-2 review');
    assert.equal(of['CORE-002-retrospective'], 'unknown');
    assert.equal(of['epic-1-bonus-scripts'], 'unknown');
    assert.equal(of['td-cross-1-shared-fixtures'], 'story 1.td-cross-1 done');
    // (Read as the series' own story since the third families pass, bmadGrammarFamilies3.test.ts.)
    assert.equal(of['BF-1-fix-the-sync'], 'story bf.1 done');
    assert.equal(of['debug-1-log-the-wind'], 'unknown');
  });
});

// Real projects read right (issue 20, session 17's held-out batches, measured on projects nobody
// working on the reader had seen): a ledger's unmistakable done words (`complete`, `completed`,
// `finished`) are done, a note, not a warning; a status written in one CamelCase word
// (`ReadyForReview`) is read by its words; a status that opens with a phase (`Phase 1 Components
// Complete - Ready for Integration`) is read by the status word after the dash; an entry written
// at the margin of development_status keeps the block open for the entries under it; stories left
// in v6's old `{output_folder}/sprint-artifacts/` folder are found; and of two files numbered like
// one story, the one named by the story's own key is the story.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus, parseStory } from '../../src/core/bmad/story';
import { parseLedger, readStatusWord } from '../../src/core/bmad/ledger';
import { workspace } from './fileHelpers';
import { storyText as story } from './corpusHelpers';

const NOW = new Date('2026-11-29T00:30:00Z');

const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout17-', waymark: false });

const CONFIG = 'project_name: kite\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';
const LEDGER = '_bmad-output/implementation-artifacts/sprint-status.yaml';

describe('a ledger\'s own done words', () => {
  test('complete, completed and finished are done for a story, an epic and a retrospective', () => {
    for (const w of ['complete', 'completed', 'Completed', 'finished']) {
      assert.deepEqual(readStatusWord('story', w), { status: 'done', mapped: true }, w);
      assert.deepEqual(readStatusWord('epic', w), { status: 'done', mapped: true }, w);
      assert.deepEqual(readStatusWord('retro', w), { status: 'done', mapped: true }, w);
    }
  });
  test('a story completed in the ledger and done in its file: no drift and no warning, one note', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      [LEDGER]: 'development_status:\n  epic-1:\n    status: completed\n  1-1-spar-cutter:\n    title: Spar cutter\n    status: completed\n  1-2-sail-stitcher: complete\n  1-3-line-winder: completed\n',
      '_bmad-output/implementation-artifacts/1-1-spar-cutter.md': story('1.1', 'Spar Cutter', 'done'),
      '_bmad-output/implementation-artifacts/1-2-sail-stitcher.md': story('1.2', 'Sail Stitcher', 'done'),
      '_bmad-output/implementation-artifacts/1-3-line-winder.md': story('1.3', 'Line Winder', 'review', false),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const warned = r.problems.filter((p) => p.severity !== 'info' && !/line-winder|1\.3/.test(`${p.file} ${p.message}`)).map((p) => `${p.code} ${p.message}`);
    assert.deepEqual(warned, []);
    const s = (k: string) => r.epics.flatMap((e) => e.stories).find((x) => x.key === k)!;
    assert.equal(s('1-1-spar-cutter').status, 'done');
    assert.equal(s('1-2-sail-stitcher').status, 'done');
    // Completed in the ledger, in review in the file: that is drift.
    assert.ok(r.problems.some((p) => p.code === 'story-status-drift' && /1-3-line-winder/.test(p.message)));
    assert.ok(r.problems.some((p) => p.code === 'ledger-legacy-status' && p.severity === 'info' && /completed/.test(p.message)));
  });
});

describe('a status in one CamelCase word', () => {
  test('ReadyForReview, ReadyForDev, InReview are read by their words', () => {
    assert.equal(normalizeStoryStatus('ReadyForReview').status, 'review');
    assert.equal(normalizeStoryStatus('ReadyForDev').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('InReview').status, 'review');
    assert.equal(normalizeStoryStatus('InProgress').status, 'in-progress');
    assert.deepEqual(readStatusWord('story', 'ReadyForReview'), { status: 'review', mapped: true });
  });
  test('a word that is no status stays unread', () => {
    assert.equal(normalizeStoryStatus('ReadyMaybe').status, undefined);
    assert.equal(normalizeStoryStatus('PhaseOne').status, undefined);
  });
});

describe('a status that opens with a phase', () => {
  test('the status word after the dash is the story\'s', () => {
    const s = parseStory('/p/docs/stories/1.4.kite.md', '# Story 1.4: Kite\n\n**Date:** November 4, 2025\n**Status:** Phase 1 Components Complete - Ready for Integration\n');
    assert.equal(normalizeStoryStatus(s.status!).status, 'review');
    const t = parseStory('/p/docs/stories/1.5.kite.md', '# Story 1.5: Kite\n\nStatus: Sprint 3 work - In Progress\n');
    assert.equal(normalizeStoryStatus(t.status!).status, 'in-progress');
  });
  test('a word that sets the story aside is not overridden by what follows the dash', () => {
    const s = parseStory('/p/docs/stories/1.6.kite.md', '# Story 1.6: Kite\n\nStatus: Blocked by story 1.2 - Done once it lands\n');
    assert.notEqual(normalizeStoryStatus(s.status ?? '').status, 'done');
    assert.notEqual(normalizeStoryStatus(s.status ?? '').suggestion, 'done');
  });
});

describe('an entry at the margin of development_status', () => {
  test('keeps the block open: the entries under it are read, and it is read too', () => {
    const text = 'development_status:\n  epic-4: in-progress\n  4-10-history: ready-for-dev\n4-11-notify-parent: ready-for-dev\n4-12-notify-child: backlog\n  4-13-notify-both: ready-for-dev\n\nlast_updated: 2026-01-02\n';
    const l = parseLedger('/p/sprint-status.yaml', text);
    assert.deepEqual(l.entries.map((e) => e.key), ['epic-4', '4-10-history', '4-11-notify-parent', '4-12-notify-child', '4-13-notify-both']);
    assert.ok(l.problems.some((p) => p.severity === 'error' || p.severity === 'warning'), 'the file is still reported: it is not valid YAML');
    assert.equal(l.lastUpdated?.raw, '2026-01-02');
  });
});

describe('stories left in the old sprint-artifacts folder', () => {
  test('are found when the config moved to implementation-artifacts', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      [LEDGER]: 'development_status:\n  epic-1: in-progress\n  1-1-spar-cutter: done\n  epic-2: in-progress\n  2-1-sail-stitcher: review\n',
      '_bmad-output/sprint-artifacts/1-1-spar-cutter.md': story('1.1', 'Spar Cutter', 'review'),
      '_bmad-output/implementation-artifacts/2-1-sail-stitcher.md': story('2.1', 'Sail Stitcher', 'review'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const s = r.epics.flatMap((e) => e.stories).find((x) => x.key === '1-1-spar-cutter')!;
    assert.equal(path.relative(dir, s.file ?? ''), path.join('_bmad-output', 'sprint-artifacts', '1-1-spar-cutter.md'));
    assert.ok(r.problems.some((p) => p.severity === 'warning' && p.file === s.file), 'review in the file, done in the ledger: drift');
  });
});

describe('two files numbered like one story', () => {
  test('the one named by the story\'s key is the story; the variant is a note', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      'docs/sprint-status.yaml': 'development_status:\n  epic-7: in-progress\n  7-3-agent-testing: done\n',
      'docs/stories/story-7.3-agent-testing.md': story('7.3', 'Agent Integration & Testing Infrastructure', 'Review'),
      'docs/stories/story-7.3-agent-testing-SIMPLIFIED.md': story('7.3', 'Agent Integration & Testing (simplified)', 'Draft'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const s = r.epics.flatMap((e) => e.stories).find((x) => x.key === '7-3-agent-testing')!;
    assert.equal(path.basename(s.file ?? ''), 'story-7.3-agent-testing.md');
  });
});

// Real projects read right (issue 20, seventh corpus round, part b, measured on projects not seen
// before): a story file named `story{E}.{S}.md` (no separator after `story`) is that story's; a
// sub-epic the ledger writes with a dot (`4.5-1-…`) joins its files written with dashes
// (`4-5-1-….md`); a `#### Status` heading states the status like a `## Status` one; a QA gate of one
// part of a story (`6.2.2-….yml`) is that part's, not every part's; the BMad Builder agent
// workflow's validation report is that workflow's artifact.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus, parseStory, storyKeyFromName } from '../../src/core/bmad/story';
import { corpusFixture } from './corpusHelpers';

const NOW = new Date('2026-11-28T06:00:00Z');

const { copy, cli } = corpusFixture('corpus7b');

describe('story files and ledger keys written another way', () => {
  test('`story2.1.md` names story 2.1, as `story-2.1.md` does', () => {
    const k = storyKeyFromName('/p/docs/story2.1.md');
    assert.equal(k?.epic, 2);
    assert.equal(k?.story, '1');
    // A word that only starts like `story` is not the prefix.
    assert.equal(storyKeyFromName('/p/docs/storyboard2.1.md'), undefined);
  });

  test('each file joins its ledger key; the drift of both forms is found and nothing else is warned', () => {
    const r = loadSprint(copy('dotted'), { now: NOW })!;
    const fileOf = Object.fromEntries(r.stories.map((s) => [s.key, s.file ? path.basename(s.file) : null]));
    assert.equal(fileOf['2-1-garden-beds'], 'story2.1.md');
    assert.equal(fileOf['2-2-watering-plan'], 'story2.2.md');
    assert.equal(fileOf['4-5-seed-catalog'], '4-5-seed-catalog.md');
    assert.equal(fileOf['4.5-1-seed-search'], '4-5-1-seed-search.md');
    assert.equal(fileOf['4.5-2-seed-filters'], '4-5-2-seed-filters.md');
    assert.equal(fileOf['3-1-trellis'], '3-1-trellis.md');
    // No file is left over as a story the ledger does not list.
    assert.deepEqual(r.stories.filter((s) => !s.ledgerStatus).map((s) => s.key), []);
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.file.endsWith('.md')).map((p) => path.basename(p.file)).sort();
    assert.deepEqual(drift, ['4-5-1-seed-search.md', 'story2.1.md']);
    const warned = r.problems.filter((p) => p.severity !== 'info' && p.code !== 'story-status-drift').map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(warned, []);
  });

  test('a `#### Status` heading at the end of the story states its status', () => {
    const s = parseStory('/p/docs/3-1-trellis.md', '# Story 3.1: Trellis\n\n## Dev Agent Record\n\n#### Change Log\n- built\n\n#### Status\nDone\n');
    assert.equal(s.status, 'Done');
  });
});

describe('status words of the QA stage and of v4\'s Approved', () => {
  test('a story in QA waits on review; one QA passed is done; Approved for Dev is ready-for-dev', () => {
    assert.equal(normalizeStoryStatus('qa').status, 'review');
    assert.equal(normalizeStoryStatus('In QA').status, 'review');
    assert.equal(normalizeStoryStatus('In Testing').status, 'review');
    assert.equal(normalizeStoryStatus('qa-approved').suggestion, 'done');
    assert.equal(normalizeStoryStatus('QA Complete').suggestion, 'done');
    assert.equal(normalizeStoryStatus('Approved for Dev').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('Approved for Development').status, 'ready-for-dev');
    // Approved for something after development says nothing BMAD's words say.
    assert.equal(normalizeStoryStatus('Approved for Launch').status, undefined);
  });

  test('QA words beside the ledger: a story in QA while the ledger says done is drift; QA approved and done agree', () => {
    const dir = copy('dotted');
    fs.writeFileSync(path.join(dir, 'docs/story2.2.md'), '# Story 2.2: Watering Plan\n\n## Status\n\n**qa-approved**\n\n## Tasks / Subtasks\n\n- [x] Write the plan\n');
    fs.writeFileSync(path.join(dir, 'docs/4-5-seed-catalog.md'), '# Story 4.5: Seed Catalog\n\nStatus: qa\n\n## Tasks / Subtasks\n\n- [x] List seeds\n');
    const r = loadSprint(dir, { now: NOW })!;
    const onFile = (name: string) => r.problems.filter((p) => path.basename(p.file) === name).map((p) => `${p.code} ${p.severity}`);
    assert.deepEqual(onFile('story2.2.md'), ['story-legacy-status info']);
    assert.deepEqual(onFile('4-5-seed-catalog.md'), ['story-status-drift warning']);
  });
});

describe('QA gates of a story told in parts', () => {
  test('the gate of part 6.2.2 is not the gate of part 6.2.1', () => {
    const r = loadSprint(copy('gates'), { now: NOW })!;
    const failed = r.problems.filter((p) => p.code === 'story-gate-failed').map((p) => `${path.basename(p.file)} ${p.severity}`);
    assert.deepEqual(failed, ['6.2.2.integration-tests.md error']);
  });
});

describe('the BMad Builder agent workflow', () => {
  test('its validation report is that workflow\'s artifact, not an unknown workflow', () => {
    const dir = copy('builder');
    const st = cli(dir, 'status');
    const listed = (JSON.parse(st.stdout).workflows ?? []).map((w: { file: string }) => path.basename(w.file));
    assert.ok(listed.includes('validation-report-garden-guide.md'), st.stdout);
    const va = cli(dir, 'validate');
    const unknown = (JSON.parse(va.stdout).problems ?? []).filter((p: { code: string }) => p.code === 'bmad-workflow-unknown');
    assert.deepEqual(unknown, []);
  });
});

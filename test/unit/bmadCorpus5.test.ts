// Real projects read right (issue 20, fifth corpus round, measured on projects not seen before):
// a story file's own word for done (`completed`) or for giving the story up (`Superseded /
// relocated`, `Split into 2.5a and 2.5b`) against a ledger that still lists it as work is drift;
// `pending` is backlog and `partial-complete-…` in progress; a story set aside or on hold is never
// shown or offered as ready work; a waiver that ran out on a done story is a note, not an error;
// a quick-spec kept under the team's own name and the builder module's mode step files
// (`e-01-load-existing.md`) name their workflow.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus, storyKeyFromName } from '../../src/core/bmad/story';
import { scanRoots } from '../../src/core/store/scan';
import { corpusFixture } from './corpusHelpers';

const NOW = new Date('2026-11-28T06:00:00Z');

const { copy, cli } = corpusFixture('corpus5');

describe('story status words against the ledger', () => {
  test('`pending` is backlog; part of it complete is in progress', () => {
    assert.equal(normalizeStoryStatus('pending').status, 'backlog');
    assert.equal(normalizeStoryStatus('Queued').status, 'backlog');
    assert.equal(normalizeStoryStatus('partial-complete-handoff-to-').status, 'in-progress');
    assert.equal(normalizeStoryStatus('Partial complete').status, 'in-progress');
  });

  test('the file`s word for done, or for a story given up, against a ledger that still lists it as work is drift', () => {
    const r = loadSprint(copy('ledger'), { now: NOW })!;
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning').map((p) => path.basename(p.file)).sort();
    assert.deepEqual(drift, ['2-9-1-hybrid-calculation.md', '3-3-mobile-receiving-with-scanner.md', '3-4-stock-adjustment.md', '4-1-export.md']);
    const on = (f: string) => r.problems.filter((p) => p.file.endsWith(f)).map((p) => `${p.severity} ${p.code}${p.data?.fix ? ` fix:${String(p.data.value)}` : ''}`);
    // Every task ticked: the fix sets it done; a task open: no fix is guessed.
    assert.deepEqual(on('3-4-stock-adjustment.md'), ['warning story-status-drift fix:done']);
    assert.deepEqual(on('3-3-mobile-receiving-with-scanner.md'), ['warning story-status-drift']);
    // Pending and backlog agree; a story deferred is backlog to the ledger (a note).
    assert.deepEqual(on('3-5-tenant-schema.md'), ['info story-legacy-status fix:backlog']);
    assert.deepEqual(on('4-3-reports.md'), ['info story-unknown-status fix:backlog']);
    const st = Object.fromEntries(r.stories.map((s) => [s.key, s.status]));
    assert.equal(st['4-1-export'], 'superseded');
    assert.equal(st['4-3-reports'], 'deferred');
    assert.deepEqual(r.next, { action: 'dev-story', storyKey: '1-2-wick', reason: 'start the next ready story' });
  });
});

describe('a v4 project without a ledger', () => {
  test('a story split into others is superseded, never offered; an expired waiver on a done story is a note', () => {
    const dir = copy('v4');
    const r = loadSprint(dir, { now: NOW })!;
    const st = Object.fromEntries(r.stories.map((s) => [s.key, s.status]));
    assert.equal(st['2-5-editable-documentation'], 'superseded');
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`), []);
    assert.deepEqual(r.problems.filter((p) => p.file.endsWith('7.5.regex-expansion.md')).map((p) => `${p.severity} ${p.code}`), ['info story-gate-failed']);
    const v = cli(dir, 'validate');
    assert.equal(v.status, 0, v.stdout);
    const s = cli(dir, 'sprint');
    assert.equal(s.status, 0, s.stderr);
    const n = cli(dir, 'next');
    assert.equal(n.status, 0, n.stderr);
    const j = JSON.parse(n.stdout) as { next: { id: string } | null; ready: { id: string }[] };
    const offered = [j.next?.id, ...j.ready.map((e) => e.id)];
    assert.ok(!offered.includes('story:2-5-editable-documentation'), `the split story is never offered: ${offered.join(', ')}`);
    assert.equal(j.next?.id, 'story:2-5b-editable-documentation-frontend');
  });

  test('`story-1.1-nextjs-init.md` is story 1.1: the sprint lists such stories instead of finding none', () => {
    assert.deepEqual(storyKeyFromName('story-1.1-nextjs-init.md'), { key: 'story-1.1-nextjs-init', epic: 1, epicId: '1', story: '1', v4: false });
    // A dated note is not story 11 of epic 2025; a date inside a story's slug leaves it a story.
    assert.equal(storyKeyFromName('HANDOFF-2025-11-01.md'), undefined);
    // `story-2.5-2.md` stays story 2 of sub-epic 2.5.
    assert.deepEqual(storyKeyFromName('story-2.5-2.md'), { key: 'story-2.5-2', epic: 2, epicId: '2.5', story: '2', v4: false });
    assert.equal(storyKeyFromName('1-2-release-2025-01-15.md')?.story, '2');
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus5-')));
    fs.mkdirSync(path.join(dir, 'docs/stories'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs/stories/story-1.1-nextjs-init.md'), '# Story 1.1: Next.js init\n\n**Story ID:** STORY-1.1\n\n## Tasks\n\n- [ ] Scaffold\n');
    fs.writeFileSync(path.join(dir, 'docs/stories/story-2.3-openai-api.md'), '# Story 2.3: OpenAI API\n\n## Tasks\n\n- [ ] Call it\n');
    const s = cli(dir, 'sprint');
    assert.equal(s.status, 0, s.stderr);
    const j = JSON.parse(s.stdout) as { epics: { stories: { key: string }[] }[] };
    assert.deepEqual(j.epics.flatMap((e) => e.stories.map((x) => x.key)), ['story-1.1-nextjs-init', 'story-2.3-openai-api']);
  });

  test('a story moved to another epic is superseded here, a note', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus5-')));
    fs.mkdirSync(path.join(dir, 'docs/stories'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs/stories/3-5-editing-panel.md'), '# Story 3.5: Editing panel\n\nStatus: moved\n\n> **Moved to Epic 4.**\n\n## Tasks\n\n- [ ] Panel\n');
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => [s.key, s.status]), [['3-5-editing-panel', 'superseded']]);
    assert.deepEqual(r.problems.map((p) => `${p.severity} ${p.code}`), ['info story-unknown-status']);
  });

  test('a word of the team`s own, then a status word after a dash: the status word counts', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus5-')));
    fs.mkdirSync(path.join(dir, 'docs/stories'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs/stories/story-2.2-embeddings.md'), '# Story 2.2: Embeddings\n\n**Status:** CONDITIONAL - Deferred pending Story 2.1 results\n\n## Tasks\n\n- [ ] Evaluate\n');
    fs.writeFileSync(path.join(dir, 'docs/stories/story-2.3-search.md'), '# Story 2.3: Search\n\n**Status:** Approved - Ready for Review\n\n## Tasks\n\n- [x] Search\n');
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => [s.key, s.status]), [['story-2.2-embeddings', 'deferred'], ['story-2.3-search', 'ready-for-dev']]);
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => p.code), []);
  });

  test('a story ON HOLD is on hold in the sprint, not ready-for-dev', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus5-')));
    fs.mkdirSync(path.join(dir, 'docs/stories'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs/stories/2.7.reports.md'), '# Story 2.7: Reports\n\n## Status\nON HOLD\n\n## Tasks / Subtasks\n\n- [ ] Monthly report\n');
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => [s.key, s.status]), [['2-7-reports', 'on-hold']]);
    assert.equal(r.next, undefined);
  });
});

describe('planning artifacts named by their template or their mode`s step files', () => {
  test('a quick-spec under a name of its own, and the builder`s edit plan and validation report', async () => {
    const dir = copy('artifacts');
    const res = await scanRoots([dir], { index: false, sprint: false });
    const of = (rel: string) => {
      const w = res.workflows.find((x) => x.file === path.join(dir, rel));
      assert.ok(w, `${rel} is read as a workflow artifact`);
      return { workflow: w.workflow, by: w.identifiedBy, codes: w.problems.map((p) => p.code) };
    };
    assert.deepEqual(of('_bmad-output/implementation-artifacts/tech-specs/epic-ui/00-infrastructure-audit.md'), { workflow: 'quick-spec', by: 'known', codes: ['bmad-workflow-not-installed'] });
    assert.deepEqual(of('_bmad-output/bmb-creations/edit-plan-lamplighter.md'), { workflow: 'agent', by: 'steps', codes: [] });
    assert.deepEqual(of('_bmad-output/bmb-creations/validation-report-lamplighter.md'), { workflow: 'agent', by: 'steps', codes: [] });
    // Complete, and recording no steps at all (`sections_completed` instead): nothing contradicts it.
    assert.deepEqual(of('_bmad-output/project-context.md'), { workflow: 'generate-project-context', by: 'outputFile', codes: [] });
  });
});

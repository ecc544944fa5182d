// Session 38, held-out batch c (BMAD through other tools and modules: game packs, BMGD/gds installs).
// Fixtures written here. Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s38/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

type Listed = { key: string; file: string | null; title?: string | null };
const listed = (s: { epics: { stories: Listed[] }[] }): Listed[] => s.epics.flatMap((e) => e.stories);
type Problem = { file: string; severity: string; code: string };

// The 2D game pack's story template: `stories/{epic_name}/{story_id}-{story_name}.md`, `# Story: {title}`,
// then the id line (`**Story ID:** UI-001` in its v2 template, `**ID**: UI-001` in its first).
const gameStory = (title: string, idLine: string, status = '') =>
  `# Story: ${title}\n\n${idLine}  \n**Epic:** Harbour Lights  \n**Priority:** High  \n${status}\n## Description\n\n${title} for the keeper.\n\n## Acceptance Criteria\n\n### Functional Requirements\n\n- [ ] It shows\n`;

test('a game pack story (`UI-001-slug.md`, `# Story: title`, its id line naming the same id) is listed, in the series its letters name', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    '.bmad-2d-phaser-game-dev/config.yaml': 'name: bmad-2d-phaser-game-dev\n',
    'docs/stories/harbour-lights/LAMP-001-lantern-sprite.md': gameStory('Lantern Sprite', '**Story ID:** LAMP-001', '**Status:** Draft\n'),
    'docs/stories/harbour-lights/LAMP-002-beam-sweep.md': gameStory('Beam Sweep', '**ID**: LAMP-002'),
    // A note beside them, named by the id in capitals: no story.
    'docs/stories/harbour-lights/LAMP-001-COMPLETION-SUMMARY.md': '# LAMP-001 Completion Summary\n\nAll done.\n',
    // The id line naming another story: not this file's.
    'docs/stories/harbour-lights/LAMP-003-fog-horn.md': gameStory('Fog Horn', '**Story ID:** LAMP-004'),
  }, (root) => {
    const s = listed(json(root, 'sprint'));
    assert.deepEqual(s.map((x) => [x.key, x.title]).sort(), [['LAMP-001-lantern-sprite', 'Lantern Sprite'], ['LAMP-002-beam-sweep', 'Beam Sweep']], JSON.stringify(s));
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.deepEqual(v.problems.filter((p) => p.severity === 'error'), [], JSON.stringify(v.problems));
  });
});

test('a config naming its folders by the absolute path of the machine it was installed on reads them in this project', () => {
  const story = (n: number, status: string) => `# Story 1.${n}: Lamp ${n}\n\nStatus: ${status}\n\n## Story\n\nAs a keeper, I want lamp ${n}, so that ships see.\n`;
  inProject({
    '_bmad/bmm/config.yaml': "output_folder: 'F:/Lighthouse/_bmad-output'\nplanning_artifacts: 'F:/Lighthouse/_bmad-output/planning-artifacts'\nimplementation_artifacts: 'F:/Lighthouse/_bmad-output/implementation-artifacts'\n",
    '_bmad/gds/config.yaml': "output_folder: '/home/keeper/lighthouse/_bmad-output'\n",
    '_bmad-output/implementation-artifacts/1-1-lamp-one.md': story(1, 'review'),
    '_bmad-output/implementation-artifacts/1-2-lamp-two.md': story(2, 'ready-for-dev'),
    '_bmad-output/planning-artifacts/prd.md': "---\nstepsCompleted: [1, 2]\nworkflowType: 'prd'\n---\n# PRD\n",
  }, (root) => {
    const s = listed(json(root, 'sprint'));
    assert.deepEqual(s.map((x) => x.key).sort(), ['1-1-lamp-one', '1-2-lamp-two'], JSON.stringify(s));
  });
});

test('a ledger whose `stories:` mapping is keyed by the stories\' ids (`"1.1":` over its `status:`) is read: its drift from the files is found', () => {
  const story = (n: number, title: string, status: string) => `# Story 1.${n}: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a keeper, I want ${title}, so that ships see.\n`;
  inProject({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': '# Sprint Status - lighthouse\n# generated for story sync\n\nstories:\n  "1.1":\n    title: "Lamp"\n    status: done\n    epic: 1\n  "1.2":\n    title: "Wick"\n    status: ready-for-dev   # next up\n    epic: 1\n\nwaves:\n  wave_1:\n    stories: ["1.2"]\n',
    '_bmad-output/implementation-artifacts/1-1-lamp.md': story(1, 'Lamp', 'ready-for-dev'),
    '_bmad-output/implementation-artifacts/1-2-wick.md': story(2, 'Wick', 'ready-for-dev'),
  }, (root) => {
    const s = listed(json(root, 'sprint')) as (Listed & { ledgerStatus: string | null; problems: { code: string }[] })[];
    const lamp = s.find((x) => x.file?.endsWith('1-1-lamp.md'));
    assert.equal(lamp?.ledgerStatus, 'done', JSON.stringify(s));
    assert.ok(lamp?.problems.some((p) => p.code === 'story-status-drift'), JSON.stringify(lamp));
    const wick = s.find((x) => x.file?.endsWith('1-2-wick.md'));
    assert.equal(wick?.ledgerStatus, 'ready-for-dev', JSON.stringify(s));
    assert.deepEqual(wick?.problems, []);
  });
});

test('a review named by a document\'s word before a story\'s numbers (`review-1-1-findings.md`) is no story: never listed, never offered by next', () => {
  const story = (n: number, status: string) => `# Story 1.${n}: Lamp ${n}\n\nStatus: ${status}\n\n## Story\n\nAs a keeper, I want lamp ${n}, so that ships see.\n`;
  inProject({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-lamp-one: done\n  1-2-lamp-two: backlog\n',
    '_bmad-output/implementation-artifacts/1-1-lamp-one.md': story(1, 'done'),
    '_bmad-output/implementation-artifacts/review-1-1-findings.md': '# Story 1.1 Code Review — Lamp one\n\n**Reviewer:** a subagent\n\n## Summary\n\nShip it.\n',
    '_bmad-output/implementation-artifacts/report-1-1.md': '# Story 1.1 Test Report\n\nAll green.\n',
  }, (root) => {
    const keys = listed(json(root, 'sprint')).map((s) => s.key).sort();
    assert.deepEqual(keys, ['1-1-lamp-one', '1-2-lamp-two'], JSON.stringify(keys));
    const n = JSON.stringify(json(root, 'next'));
    assert.ok(!/review-1-1|report-1-1/.test(n), n);
  });
});

test('a series\' epic written series first and closed by its own retrospective (`lt-epic-001` … `lt-epic-001-retrospective`) is an epic holding the stories between, numbered across epics', () => {
  const story = (id: string, status: string) => `# Story ${id}: Lamp\n\nStatus: ${status}\n\n## Story\n\nAs a keeper, I want a lamp, so that ships see.\n`;
  inProject({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  lt-epic-001: done\n  lt-001-lantern-glass: done\n  lt-002-wick-holder: done\n  lt-epic-001-retrospective: done\n\n  lt-epic-002: in-progress\n  lt-003-beam-sweep: review\n  lt-004-fog-horn: ready-for-dev\n  lt-epic-002-retrospective: optional\n',
    '_bmad-output/implementation-artifacts/lt-001-lantern-glass.md': story('LT-001', 'done'),
    '_bmad-output/implementation-artifacts/lt-003-beam-sweep.md': story('LT-003', 'review'),
  }, (root) => {
    const s = json(root, 'sprint') as { epics: { id: string; status: string | null; stories: Listed[] }[] };
    assert.deepEqual(s.epics.map((e) => [e.id, e.status, e.stories.map((x) => x.key)]), [
      ['lt-001', 'done', ['lt-001-lantern-glass', 'lt-002-wick-holder']],
      ['lt-002', 'in-progress', ['lt-003-beam-sweep', 'lt-004-fog-horn']],
    ], JSON.stringify(s.epics));
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.ok(!v.problems.some((p) => p.code === 'ledger-unknown-key' && p.severity !== 'info'), JSON.stringify(v.problems));
  });
});

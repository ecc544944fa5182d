// Session 37, held-out helper a (issue 20). Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s37/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

type Listed = { key: string; file: string | null; status: string; epicId?: string; story?: string };
const listed = (s: { epics: { stories: Listed[] }[] }): Listed[] => s.epics.flatMap((e) => e.stories);

test('a story file named by its epic letter and story letter (story-e1-s2-slug.md, titled Story E1-S2) is story 2 of epic 1', () => {
  inProject({
    'bmad/bmm/config.yaml': 'project_name: lantern\noutput_folder: "{project-root}/docs"\ndev_story_location: "{project-root}/docs/stories"\n',
    'docs/stories/story-1.1.md': '# Story 1.1: Wick trimming\n\nStatus: Done\n\n## Story\n\nAs a keeper,\nI want trimmed wicks,\nso that the flame is steady.\n',
    'docs/stories/story-e1-s2-oil-levels.md': '# Story E1-S2: Oil levels\n\n**Status:** Draft\n**Epic:** E1 - Lamp care\n\n## Story\n\nAs a keeper,\nI want to read the oil level,\nso that no lamp runs dry.\n\n## Acceptance Criteria\n\n1. The level shows in tenths.\n',
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    const s = stories.find((x) => x.file === 'docs/stories/story-e1-s2-oil-levels.md');
    assert.ok(s, JSON.stringify(stories));
    assert.equal(s.epicId, '1');
    assert.equal(s.story, '2');
    assert.equal((s as { title?: string }).title, 'Oil levels');
  });
});

test('a story-eN-sM file numbered as another story file already is (E1-S1 beside story-1.1.md) is still listed, with its title, not dropped unseen', () => {
  inProject({
    'bmad/bmm/config.yaml': 'project_name: lantern\noutput_folder: "{project-root}/docs"\ndev_story_location: "{project-root}/docs/stories"\n',
    'docs/stories/story-1.1.md': '# Story 1.1: Wick trimming\n\nStatus: Done\n\n## Story\n\nAs a keeper,\nI want trimmed wicks,\nso that the flame is steady.\n',
    'docs/stories/story-e1-s1-oil-levels.md': '# Story E1-S1: Oil levels\n\n**Status:** Draft\n\n## Story\n\nAs a keeper,\nI want to read the oil level,\nso that no lamp runs dry.\n',
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    const files = stories.map((x) => x.file).sort();
    assert.deepEqual(files, ['docs/stories/story-1.1.md', 'docs/stories/story-e1-s1-oil-levels.md'], JSON.stringify(stories));
  });
});

test('a ledger key `X-retrospective` beside its own `X` entry (`sprint-0`, `sprint-0-retrospective`) is that entry\'s retrospective, not a story', () => {
  inProject({
    '.bmad/bmm/config.yaml': 'project_name: lantern\noutput_folder: "{project-root}/docs"\nsprint_artifacts: "{project-root}/docs/sprint-artifacts"\n',
    'docs/sprint-artifacts/sprint-status.yaml': [
      'generated: 2026-11-01', 'project: lantern', 'story_location: docs/sprint-artifacts', '', 'development_status:',
      '  sprint-0: done', '  sprint-0-retrospective: completed',
      '  epic-1: in-progress', '  1-1-wick-trimming: in-progress', '  epic-1-retrospective: optional', '',
    ].join('\n'),
    'docs/sprint-artifacts/1-1-wick-trimming.md': '# Story 1.1: Wick trimming\n\nStatus: in-progress\n\n## Story\n\nAs a keeper,\nI want trimmed wicks,\nso that the flame is steady.\n',
  }, (root) => {
    const s = json(root, 'sprint');
    const keys = listed(s).map((x) => x.key);
    assert.deepEqual(keys, ['1-1-wick-trimming'], JSON.stringify(keys));
    const v = json(root, 'validate');
    const noFile = (v.problems as { code: string; data?: { key?: string } }[]).filter((p) => p.code === 'ledger-story-no-file');
    assert.deepEqual(noFile, [], JSON.stringify(noFile));
  });
});

test('a story file whose first line is a plain `Story 1.3 – title` (no heading, no status) naming the number its name gives is that story', () => {
  inProject({
    'docs/stories/story-1.1.md': '# Story 1.1 – Wick trimming\n\nStatus: Done\n\n**As a keeper**\nI want trimmed wicks\nSo that the flame is steady.\n',
    'docs/stories/story-1.3.md': '\nStory 1.3 – Oil levels  \n───────────────\nEpic: 1 – Lamp care\n\n**As a keeper**\nI want to read the oil level\nSo that no lamp runs dry.\n\n───────────────\nAcceptance Criteria\n\n- The level shows in tenths.\n',
    'docs/stories/story-1.4.md': '\nStory 2.9 – Not this one\n\nSome notes.\n',
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    const s = stories.find((x) => x.file === 'docs/stories/story-1.3.md');
    assert.ok(s, JSON.stringify(stories));
    assert.equal((s as { title?: string }).title, 'Oil levels');
    assert.ok(!stories.some((x) => x.file === 'docs/stories/story-1.4.md'), JSON.stringify(stories));
  });
});

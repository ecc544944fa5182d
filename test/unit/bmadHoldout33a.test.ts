// Session 33, investigator a (issue 20): held-out batch 33a. Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s33/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { inProject } from './fileHelpers';

const CLI = path.resolve(process.env.WAYMARK_CLI ?? 'dist/cli.js');
const cli = (root: string, ...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
const json = (root: string, ...args: string[]) => {
  const r = cli(root, ...args, '--json');
  assert.ok(r.status === 0 || r.status === 1, `${args.join(' ')} exits ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
type S = { key: string; epicId: string; story: string; ledgerStatus?: string; status: string; file?: string };
const stories = (d: { epics: { stories: S[] }[] }) => d.epics.flatMap((e) => e.stories);
const v4story = (title: string, status: string) => `# ${title}\n\n## Status: ${status}\n\n## Story\n\nAs a baker,\nI want ${title.toLowerCase()},\nso that bread is ready.\n\n## Acceptance Criteria\n\n1. It bakes\n\n## Tasks / Subtasks\n\n- [x] Knead\n`;

test('v4 story files named with the words epic and story dotted (`epic1.story2.story.md`) are stories 1.2, listed by sprint', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n',
    'docs/stories/epic1.story1.story.md': v4story('Epic 1, Story 1: Oven setup', 'Done'),
    'docs/stories/epic1.story2.story.md': v4story('Epic 1, Story 2: Proofing timer', 'Draft'),
    'docs/stories/Epic-2.Story-1.crust-colour.md': v4story('Epic 2, Story 1: Crust colour', 'InProgress'),
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).map((s) => [s.epicId, s.story, s.status, path.basename(s.file ?? '')]).sort(), [
      ['1', '1', 'done', 'epic1.story1.story.md'], ['1', '2', 'ready-for-dev', 'epic1.story2.story.md'], ['2', '1', 'in-progress', 'Epic-2.Story-1.crust-colour.md'],
    ].sort());
    const n = JSON.stringify(json(root, 'next'));
    assert.ok(!n.includes('epic1.story1'), n);
  });
});

test('a sprint plan\'s `- story_id: STORY-INF-001` (a category\'s word before the number) is a story like STORY-001', () => {
  inProject({
    'bmad/config.yaml': 'project_name: "kiln"\noutput_folder: "docs"\n',
    '.bmad/sprint-status.yaml': [
      'version: "6.0.0"', 'project_name: "kiln"', 'current_sprint: 1', '', 'sprints:',
      '  - sprint_number: 1', '    status: "in_progress"', '    stories:',
      '      - story_id: "STORY-001"', '        title: "Temperature probe"', '        status: "completed"', '        epic: "EPIC-001"',
      '      - story_id: "STORY-INF-001"', '        title: "Build pipeline"', '        status: "completed"', '        epic: "Infrastructure"',
      '      - story_id: "STORY-INF-002"', '        title: "Release job"', '        status: "not_started"', '        epic: "Infrastructure"',
      '',
    ].join('\n'),
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).map((s) => [s.key, s.ledgerStatus]).sort(), [['STORY-001', 'done'], ['STORY-INF-001', 'done'], ['STORY-INF-002', 'backlog']]);
    const n = JSON.stringify(json(root, 'next'));
    assert.ok(!n.includes('STORY-INF-001'), n);
  });
});

test('a v4 brownfield story titled `# Epic 7 Story 1: …` with no Status yet is story 7.1, listed by sprint (the lead, from batch 33a)', () => {
  const draft = (title: string) => `# ${title} - Brownfield Addition\n\n## User Story\n\nAs a baker,\nI want ${title.toLowerCase()},\nso that bread is ready.\n\n## Acceptance Criteria\n\n1. It bakes\n`;
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n',
    'docs/stories/epic-6-story-1-oven-setup.md': v4story('Story 6.1: Oven setup', 'Done'),
    'docs/stories/epic-7-story-1-flour-intake.md': draft('Epic 7 Story 1: Flour intake'),
    'docs/stories/epic-7-story-2-rye-blend.md': draft('Epic 7, Story 2: Rye blend'),
    'docs/epics/epic-8-proving.md': '# Epic 8: Proving room\n\n## Goal\n\nProve the dough.\n',
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).map((s) => [s.epicId, s.story, path.basename(s.file ?? '')]).sort(), [
      ['6', '1', 'epic-6-story-1-oven-setup.md'], ['7', '1', 'epic-7-story-1-flour-intake.md'], ['7', '2', 'epic-7-story-2-rye-blend.md'],
    ].sort());
  });
});

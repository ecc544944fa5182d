// Real projects read right (issue 20, session 24): rules the reader learned from projects nobody
// working on it had seen, each with a fixture written here.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseStory, normalizeStoryStatus } from '../../src/core/bmad/story';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { loadSprint } from '../../src/core/bmad/sprint';
import { workspace } from './fileHelpers';

const CLI = path.resolve('dist/cli.js');
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout24-', waymark: false });
const run = (cwd: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

const plan = (status: string) => `---\nworkflow: feature\nstatus: ${status}\nsteps: [discovery, design, build]\nstepsCompleted: [discovery]\n---\n# Plan\n\nBody text.\n`;
const nextId = (dir: string) => (run(dir, 'next', '--json').next as { id: string } | null)?.id ?? null;
const columnOf = (dir: string, id: string) => {
  const columns = run(dir, 'board', '--json').columns as Record<string, { id: string }[]>;
  return Object.entries(columns).find(([, items]) => items.some((i) => i.id === id))?.[0];
};

describe('work moved into an archive folder is set aside, as the sprint reader sets its ledgers aside', () => {
  test('`next` does not offer work in an archive, old or legacy folder; the live work is offered; the board shows the archived as dropped', () => {
    const dir = project({ 'docs/archive/plan-v1.md': plan('in_progress'), 'docs/old/plan-v0.md': plan('created'), 'legacy/plan.md': plan('created') });
    assert.equal(nextId(dir), null);
    assert.equal(columnOf(dir, 'docs/archive/plan-v1.md'), 'dropped');
    const live = project({ 'docs/archive/plan-v1.md': plan('in_progress'), 'docs/plan.md': plan('created') });
    assert.equal(nextId(live), 'docs/plan.md');
  });

  test('finished work in an archive folder stays done; a folder named for something else (`archiver/`) is live', () => {
    const dir = project({ 'docs/archive/plan-v1.md': plan('completed'), 'src/archiver/plan.md': plan('created') });
    assert.equal(columnOf(dir, 'docs/archive/plan-v1.md'), 'done');
    assert.equal(nextId(dir), 'src/archiver/plan.md');
  });
});

// A v4 story whose sections sit one level down (`### Story`, `### Tasks / Subtasks`, `### QA Results`),
// its status in frontmatter; the QA reviewer's and the dev agent's own `**Status:**` lines further down.
const v4Story = (fm: string, qaStatus: string) => `---\nepic: 1\nstory: 3\ntitle: "Desktop shell"\nstatus: "${fm}"\n---\n\n### Story\n\nAs a trader, I want a desktop shell, so that I can read the feed.\n\n### Acceptance Criteria\n\n1. The window opens.\n\n### Tasks / Subtasks\n\n- [x] Task 1: Electron main process\n  - [x] Load the app\n- [x] Task 2: Dark theme\n\n### Dev Agent Record\n\n**Summary:** built the shell.\n\n### QA Results\n\n**Reviewer:** Quinn\n**Status:** ${qaStatus}\n`;

describe('a story whose sections sit one level down (`###` under the title)', () => {
  test('a QA reviewer\'s `**Status:**` under `### QA Results` is the review\'s, not the story\'s; the tasks under `### Tasks / Subtasks` count', () => {
    const s = parseStory('docs/stories/1.3.story.md', v4Story('Done', 'Approved'));
    assert.equal(s.status, 'Done');
    assert.equal(s.statusForm, 'frontmatter');
    assert.equal(s.tasks.length, 3);
    const r = parseStory('docs/stories/1.2.story.md', v4Story('Ready for Review', 'Not yet reviewed'));
    assert.equal(r.status, 'Ready for Review');
  });

  test('in a v4 project: no warning that the file contradicts itself, no unknown status', () => {
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/1.3.story.md': v4Story('Done', 'Approved'),
      'docs/stories/1.2.story.md': v4Story('Ready for Review', 'Not yet reviewed').replace('story: 3', 'story: 2'),
    });
    const sprint = loadSprint(dir)!;
    assert.deepEqual(sprint.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`), []);
    assert.deepEqual(sprint.stories.map((x) => x.status).sort(), ['done', 'review']);
  });

  test('a file that writes `##` sections keeps reading `###` as subsections', () => {
    const text = '# Story 2.1: Feed\n\n## Status\n\nreview\n\n## Tasks / Subtasks\n\n- [x] Fetch\n\n## Dev Agent Record\n\n### Completion Notes\n\n**Status:** done\n';
    const s = parseStory('docs/stories/2.1.story.md', text);
    assert.equal(s.status, 'review');
    assert.equal(s.tasks.length, 1);
  });
});

describe('words and keys as real reviews write them', () => {
  test('`APPROVE` (the verb) is v4\'s Approved: ready for development', () => {
    assert.equal(normalizeStoryStatus('APPROVE').status, 'ready-for-dev');
  });

  test('a QA gate keeping its verdict under a camelCase key (`gateDecision: PASS`), as YAML or broken YAML', () => {
    const now = new Date('2026-11-29T09:00:00Z');
    const yaml = '# Quality Gate: Story 1.4\nstoryId: "1.4"\ngateDecision: PASS\nqualityScore: 98\nmustFixIssues: []\n';
    assert.equal(parseQaGate('docs/qa/gates/1.4-image-upload.yml', yaml, now).verdict, 'PASS');
    assert.equal(parseQaGate('docs/qa/gates/1.4-image-upload.yml', yaml.replace('gateDecision', 'Gate-Decision'), now).verdict, 'PASS');
    assert.equal(parseQaGate('docs/qa/gates/1.4-image-upload.yml', `${yaml}notes: "an "unescaped" quote\n`, now).verdict, 'PASS');
    assert.equal(parseQaGate('docs/qa/gates/1.4-image-upload.yml', 'storyId: "1.4"\nqaGateStatus: CONCERNS\n', now).verdict, 'CONCERNS');
  });
});

describe('a v4 install in a subfolder whose paths are written from the repository root', () => {
  // `docs/.bmad-core/` with `devStoryLocation: docs/stories`: the agent ran in the repository's root,
  // so `docs/stories` names the install folder's own `stories/`.
  const v4Sub = (status: string) => `# Story 1.1: Checklist templates\n\n## Status\n\n${status}\n\n## Story\n\nAs a lead, I want checklist templates, so that runs repeat.\n\n## Tasks / Subtasks\n\n- [x] Template model\n`;
  const files = {
    'package.json': '{ "name": "taskboard" }\n',
    'src/index.ts': 'export {};\n',
    'docs/.bmad-core/core-config.yaml': 'markdownExploder: true\nprd:\n  prdFile: docs/prd.md\ndevStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n',
    'docs/stories/1.1.checklist-templates.story.md': v4Sub('Done'),
    'docs/stories/1.2.run-checklist.story.md': v4Sub('Ready for Review').replace('1.1: Checklist templates', '1.2: Run checklist'),
  };
  const keys = (cwd: string) => (run(cwd, 'sprint', '--json').epics as { stories: { key: string; status: string }[] }[]).flatMap((e) => e.stories.map((s) => `${s.key} ${s.status}`));

  test('`waymark sprint` reads its stories from the repository root and from the install\'s folder', () => {
    const dir = project(files);
    assert.deepEqual(keys(dir), ['1-1-checklist-templates done', '1-2-run-checklist review']);
    assert.deepEqual(keys(path.join(dir, 'docs')), ['1-1-checklist-templates done', '1-2-run-checklist review']);
  });

  test('a path that exists where the install is stays there; nothing outside the install\'s folder is read', () => {
    const dir = project({ ...files, 'docs/docs/stories/1.3.other.story.md': v4Sub('Draft').replace('1.1: Checklist templates', '1.3: Other') });
    assert.deepEqual(keys(path.join(dir, 'docs')), ['1-3-other ready-for-dev']);
  });
});

// The corpus truth reads BMAD projects as a BMAD user would (real files in temp dirs).
// Run: node --test test/corpus/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { truthFor, normalizeStatus, storyStatus } from '../../scripts/corpus/truth.mjs';

const made = [];
process.on('exit', () => { for (const d of made) fs.rmSync(d, { recursive: true, force: true }); });

function project(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-truth-'));
  made.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  return dir;
}

const story = (status) => `# Story 1.1: Lantern\n\n${status}\n\n## Tasks / Subtasks\n\n- [x] Light it\n`;

test('statuses mean what BMAD means', () => {
  assert.equal(normalizeStatus('Ready for Review'), 'review');
  assert.equal(normalizeStatus('ready-for-dev'), 'ready-for-dev');
  assert.equal(normalizeStatus('drafted'), 'ready-for-dev');
  assert.equal(normalizeStatus('contexted'), 'in-progress');
  assert.equal(normalizeStatus('InProgress'), 'in-progress');
  assert.equal(normalizeStatus('✅ Complete'), 'done');
  assert.equal(normalizeStatus('**Done** (merged 2026-01-02)'), 'done');
  assert.equal(normalizeStatus('Refined - Ready for Development'), 'ready-for-dev');
  assert.equal(normalizeStatus('superseded'), 'dropped');
  assert.equal(normalizeStatus('moonwalking'), 'other:moonwalking');
  // Ready for what comes after review is finished, whatever commentary follows (`ready for story 8.1`
  // later in the line is not the story's status).
  assert.equal(normalizeStatus('**PRODUCTION READY** - Epic 7 stability achieved, ready for Story 8.1'), 'done');
  assert.equal(normalizeStatus('Ready for Production'), 'done');
});

test('story Status in every written form', () => {
  assert.equal(storyStatus('# S\n\nStatus: review\n').raw, 'review');
  assert.equal(storyStatus('# S\n\n**Status:** done\n').raw, 'done');
  assert.equal(storyStatus('# S\n\n## Status: done\n').raw, 'done');
  assert.equal(storyStatus('# S\n\n## Status\n\nInProgress\n\n## Story\n').raw, 'InProgress');
  assert.equal(storyStatus('# S\n\n## Status\n\n- **Current Status:** done\n').raw, 'done');
  assert.equal(storyStatus('---\nstatus: backlog\n---\n# S\n').raw, 'backlog');
  assert.equal(storyStatus('# S\n**Epic:** 1 **Story ID:** 1.1 **Status:** done\n').raw.trim(), 'done');
  // a labelled fact first in the section is not the status
  assert.equal(storyStatus('# S\n\n## Status\n\n- **Sprint**: 11\n- **Priority**: High\n\n## Story\n'), null);
  // a Status inside a code block is not the story's
  assert.equal(storyStatus('# S\n\n```\nStatus: done\n```\n'), null);
});

test('v6.0 project: drift and clean stories against the ledger, legacy words included', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': "implementation_artifacts: '{project-root}/_bmad-output/implementation-artifacts'\n",
    '_bmad-output/implementation-artifacts/sprint-status.yaml': [
      'development_status:',
      '  epic-1: in-progress',
      '  1-1-lantern: done',
      '  1-2-wick: review',
      '  1-3-oil: drafted',
      '  3a-1-glass: in-progress',
      '  epic-1-retrospective: optional',
    ].join('\n'),
    '_bmad-output/implementation-artifacts/1-1-lantern.md': story('Status: done'),
    '_bmad-output/implementation-artifacts/1-2-wick.md': story('Status: Ready for Review'),
    '_bmad-output/implementation-artifacts/1-3-oil.md': story('Status: ready-for-dev'),
    '_bmad-output/implementation-artifacts/3a-1-glass.md': story('Status: done'),
    '_bmad-output/implementation-artifacts/3a-1-e2e-evidence.md': '# Evidence for 3a.1\n',
  });
  const t = truthFor(dir);
  assert.equal(t.layout, 'v6.0');
  const by = Object.fromEntries(t.projects[0].stories.map((s) => [s.key, s]));
  assert.deepEqual(Object.keys(by).sort(), ['1-1-lantern', '1-2-wick', '1-3-oil', '3a-1-glass']);
  assert.equal(by['1-1-lantern'].clean, true);
  assert.equal(by['1-2-wick'].clean, true, 'Ready for Review is review');
  assert.equal(by['1-3-oil'].clean, true, 'drafted is ready-for-dev');
  assert.equal(by['3a-1-glass'].drift, true);
  assert.equal(by['3a-1-glass'].file, '_bmad-output/implementation-artifacts/3a-1-glass.md');
});

test('legacy alpha story-E.S.md files and module-prefixed keys find their story', () => {
  const dir = project({
    'bmad/bmm/config.yaml': "output_folder: '{project-root}/docs'\ndev_story_location: '{project-root}/docs/stories'\n",
    'docs/sprint-status.yaml': 'development_status:\n  1-10-payout-claims: done\n  pm-02-1-board-view: review\n',
    'docs/stories/story-1.10.md': story('Status: Ready'),
    'docs/stories/pm-02-1-board-view.md': story('Status: review'),
  });
  const t = truthFor(dir);
  assert.equal(t.layout, 'v6-alpha');
  const by = Object.fromEntries(t.projects[0].stories.map((s) => [s.key, s]));
  assert.equal(by['1-10-payout-claims'].file, 'docs/stories/story-1.10.md');
  assert.equal(by['1-10-payout-claims'].drift, true);
  assert.equal(by['pm-02-1-board-view'].clean, true);
});

test('step-tracked artifacts in the output folders; templates and the install are not artifacts', () => {
  const dir = project({
    '_bmad/config.toml': '[core]\noutput_folder = "{project-root}/_bmad-output"\n[modules.bmm]\nplanning_artifacts = "{project-root}/_bmad-output/planning-artifacts"\n',
    '_bmad-output/planning-artifacts/prd.md': '---\nstepsCompleted: [1, 2]\nworkflowType: prd\n---\n# PRD\n',
    '_bmad-output/planning-artifacts/epics.md': '---\nstepsCompleted: [1]\n---\n# Epics\n',
    '_bmad-output/planning-artifacts/notes.md': '---\ntitle: notes\n---\n',
    '_bmad-output/brainstorming/brainstorming-session-2026-01-01.md': '---\nstepsCompleted: [1, 2, 3, 4]\nworkflow_completed: true\n---\n',
    '_bmad/bmm/workflows/prd/prd-template.md': '---\nstepsCompleted: []\n---\n',
  });
  const t = truthFor(dir);
  assert.equal(t.layout, 'v6-toml');
  const files = t.projects[0].artifacts.map((a) => a.file).sort();
  assert.deepEqual(files, [
    '_bmad-output/brainstorming/brainstorming-session-2026-01-01.md',
    '_bmad-output/planning-artifacts/epics.md',
    '_bmad-output/planning-artifacts/prd.md',
  ]);
  assert.equal(t.projects[0].artifacts.find((a) => a.file.includes('brainstorming')).finished, true);
});

test('a BMAD project in a subfolder is found; a v4 project without a ledger has clean story files', () => {
  const dir = project({
    'README.md': '# monorepo\n',
    'server/_bmad/_config/manifest.yaml': 'modules: []\n',
    'server/_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  1-1-api: done\n',
    'server/_bmad-output/implementation-artifacts/1-1-api.md': story('Status: done'),
  });
  const t = truthFor(dir);
  assert.equal(t.layout, 'monorepo(v6.0)');
  assert.equal(t.projects[0].root, 'server');
  assert.equal(t.projects[0].stories[0].file, 'server/_bmad-output/implementation-artifacts/1-1-api.md');

  const v4 = project({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/1.1.lantern.md': '# Story 1.1: Lantern\n\n## Status\n\nDone\n',
    'docs/stories/1.2.wick.md': '# Story 1.2: Wick\n\n## Status\n\nApproved\n',
  });
  const t4 = truthFor(v4);
  assert.equal(t4.layout, 'v4');
  assert.deepEqual(t4.projects[0].stories.map((s) => [s.file, s.fileStatus, s.clean]), [
    ['docs/stories/1.1.lantern.md', 'done', true],
    ['docs/stories/1.2.wick.md', 'ready-for-dev', true],
  ]);
});

test('a story stating its status twice (frontmatter and Status line): drift when either differs from the ledger', () => {
  const dir = project({
    'docs/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-lantern: done\n  1-2-wick: done\n  1-3-oil: done\n',
    // frontmatter behind, the `## Status` section agreeing with the ledger
    'docs/stories/1-1-lantern.md': '---\nstatus: backlog\n---\n\n# Story 1.1: Lantern\n\n## Tasks\n\n- [x] a\n\n## Status\n\n**Status**: done\n',
    // the Status line under the title behind, the frontmatter agreeing
    'docs/stories/1-2-wick.md': '---\nstatus: done\n---\n\n# Story 1.2: Wick\n\nStatus: in-progress\n\n## Tasks\n\n- [x] a\n',
    // a status word in a later log section is not a statement of the story's status
    'docs/stories/1-3-oil.md': '---\nstatus: done\n---\n\n# Story 1.3: Oil\n\n## Tasks\n\n- [x] a\n\n## Dev Agent Record\n\n- **Status**: Review\n',
  });
  const t = truthFor(dir);
  const by = Object.fromEntries(t.projects[0].stories.map((s) => [s.key, s]));
  assert.equal(by['1-1-lantern'].drift, true);
  assert.equal(by['1-1-lantern'].clean, false);
  assert.equal(by['1-2-wick'].drift, true);
  assert.equal(by['1-3-oil'].drift, false);
  assert.equal(by['1-3-oil'].clean, true);
});

test('a heading that only starts with "Status" is not the status; a split story is set aside', () => {
  assert.equal(storyStatus('# S\n\n### Status-to-Timeline Mapping\n\n| a | b |\n'), null);
  assert.equal(storyStatus('# S\n\n## Status - Done\n').raw, 'Done');
  assert.equal(normalizeStatus('Split into 2.5a (Done) and 2.5b (Draft)'), 'dropped');
});

test('a project whose install is not in git and whose ledger lies in a folder of its own is still read', () => {
  const dir = project({
    'docs/planning/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-lantern: done\n  1-2-wick: review\n',
    'docs/planning/stories/1-1-lantern.md': story('Status: done'),
    'docs/planning/stories/1-2-wick.md': story('Status: in-progress'),
    'notes/sprint-status.yaml': 'not: a ledger\n',
  });
  const t = truthFor(dir);
  assert.equal(t.layout, 'ledger-only');
  assert.deepEqual(t.projects[0].ledgers.map((l) => l.file), ['docs/planning/sprint-status.yaml']);
  assert.deepEqual(t.projects[0].stories.map((s) => [s.key, s.drift, s.clean]), [['1-1-lantern', false, true], ['1-2-wick', true, false]]);
});

test('a done story with an open item in its implementation checklist is not clean', () => {
  const dir = project({
    'docs/stories/1.1.lantern.md': '# Story 1.1: Lantern\n\n## Status\nDone\n\n## Implementation Checklist\n\n- [x] Light it\n- [ ] Write integration tests\n',
    'docs/stories/1.2.wick.md': '# Story 1.2: Wick\n\n## Status\nDone\n\n## Implementation Checklist\n\n- [x] Trim it\n',
  });
  const t = truthFor(dir);
  assert.deepEqual(t.projects[0].stories.map((s) => [s.key, s.clean]).sort(), [['1.1.lantern', false], ['1.2.wick', true]]);
});

test('a ledger whose header a YAML parser refuses is still read by its development_status block', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/_bmad-output"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'generated: 2026-03-01\nlast_updated: 2026-03-20 (dev-story 1-1 done → review: notes)\nstory_location: "{project-root}/_bmad-output/implementation-artifacts"\n\ndevelopment_status:\n  epic-1: in-progress\n  1-1-lantern: review\n',
    '_bmad-output/implementation-artifacts/1-1-lantern.md': story('Status: review'),
  });
  const t = truthFor(dir);
  assert.deepEqual(t.projects[0].ledgers, [{ file: '_bmad-output/implementation-artifacts/sprint-status.yaml', error: null, entries: 2 }]);
  assert.deepEqual(t.projects[0].stories.map((s) => [s.key, s.clean]), [['1-1-lantern', true]]);
});

test('sixth round (b): a status in a metadata table or after a checklist; deferred is backlog', () => {
  assert.equal(storyStatus('# S\n\n## Story Metadata\n\n| Field | Value |\n|---|---|\n| Story ID | 1.2 |\n| Status | done |\n').raw.trim(), 'done');
  assert.equal(normalizeStatus(storyStatus('# S\n\n| Field | Value |\n|---|---|\n| **Status** | Drafted |\n').raw), 'ready-for-dev');
  // a table whose header row names a Status column is not the story's status
  assert.equal(storyStatus('# S\n\n| Status | Meaning |\n|---|---|\n| draft | being written |\n\nStatus: done\n').raw, 'done');
  assert.equal(storyStatus('# S\n\n## Tasks\n\n- [x] a\n\n## Status\n\n| Field | Value |\n|---|---|\n| **Status** | done |\n').raw.trim(), 'done');
  assert.equal(storyStatus('# S\n\n## Tasks\n\n- [x] a\n\n## Status\n\n- [x] Tasks/Subtasks completed\n- Status: review\n').raw, 'review');
  assert.equal(normalizeStatus('Deferred to Epic 9'), 'backlog');
});

test('sixth round (b): lettered keys find lettered files, never the parent story; a file two keys claim is neither\'s', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': "implementation_artifacts: '{project-root}/_bmad-output/implementation-artifacts'\n",
    '_bmad-output/implementation-artifacts/sprint-status.yaml': [
      'development_status:',
      '  epic-6: done',
      '  6-5-a-reservations-types: done',
      '  6-5-e-reservations-consolidation: done',
      '  6-6-a-new-screen: done',
      '  6-7-ap-invoice-write-path: backlog',
      '  6-7-ap-invoice-correctness: in-progress',
    ].join('\n') + '\n',
    '_bmad-output/implementation-artifacts/stories/epic-6/story-6.5-reservations-domain.md': story('Status: backlog'),
    '_bmad-output/implementation-artifacts/stories/epic-6/story-6.5a-reservations-types.md': story('Status: ready-for-dev'),
    '_bmad-output/implementation-artifacts/stories/epic-6/story-6.6-a-new-screen.md': story('Status: done'),
    '_bmad-output/implementation-artifacts/stories/epic-6/story-6.7.md': story('Status: backlog'),
  });
  const by = Object.fromEntries(truthFor(dir).projects[0].stories.map((s) => [s.key, s]));
  assert.equal(path.basename(by['6-5-a-reservations-types'].file), 'story-6.5a-reservations-types.md');
  assert.equal(by['6-5-a-reservations-types'].drift, true);
  assert.equal(by['6-5-e-reservations-consolidation'].file, null);
  // `6-6-a-new-screen`: the `a` is a word of the slug here, and its file is found
  assert.equal(path.basename(by['6-6-a-new-screen'].file), 'story-6.6-a-new-screen.md');
  assert.equal(by['6-7-ap-invoice-correctness'].drift, false);
  assert.equal(by['6-7-ap-invoice-correctness'].clean, false);
  assert.equal(by['6-7-ap-invoice-write-path'].clean, false);
});

test('seventh round (b): QA passed is done, as review passed is; a story in QA is in review', () => {
  assert.equal(normalizeStatus('qa-approved'), 'done');
  assert.equal(normalizeStatus('QA Passed'), 'done');
  assert.equal(normalizeStatus('qa'), 'review');
  assert.equal(normalizeStatus('In QA'), 'review');
});

test('seventh round (b): a ledger that is not valid YAML is read line by line, and named broken', () => {
  const dir = project({
    'docs/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-lantern: done\n    story: docs/1-1-lantern.md\n  1-2-wick: review\n',
    'docs/1-1-lantern.md': story('Status: done'),
    'docs/1-2-wick.md': story('Status: done'),
  });
  const t = truthFor(dir);
  const s = Object.fromEntries(t.projects[0].stories.map((x) => [x.key, x]));
  assert.equal(s['1-1-lantern'].clean, true);
  assert.equal(s['1-2-wick'].drift, true);
  assert.deepEqual(t.projects[0].broken.map((b) => b.file), ['docs/sprint-status.yaml']);
});

test('seventh round (b): a done story whose own QA Results record Gate: FAIL is not clean', () => {
  const dir = project({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/1.1.story.md': `${story('## Status\n\nDone')}\n## QA Results\n\n### Gate Status\n\nGate: FAIL → docs/qa/gates/1.1-lantern.yml\n`,
    'docs/stories/1.2.story.md': `${story('## Status\n\nDone')}\n## QA Results\n\nGate: FAIL (first review)\n\nGate: PASS → docs/qa/gates/1.2-wick.yml\n`,
  });
  const t = truthFor(dir);
  const s = Object.fromEntries(t.projects[0].stories.map((x) => [x.key, x]));
  assert.equal(s['1.1.story'].clean, false);
  assert.equal(s['1.2.story'].clean, true);
  assert.deepEqual(t.projects[0].broken.map((b) => b.file), ['docs/stories/1.1.story.md']);
});

test('seventh round (a): beta\'s dev_ephemeral_location sprint, epic-lettered keys, a Status label in the document language', () => {
  const dir = project({
    '.bmad/bmm/config.yaml': "output_folder: '{project-root}/docs'\ndev_ephemeral_location: '{project-root}/.bmad-ephemeral'\n",
    '.bmad-ephemeral/sprint-status.yaml': ['development_status:', '  epic-01: in-progress', '  e-01-1-import-folder: done', '  e0-1-scaffold: review', '  1-2-base-rbac: done', '  1-3-liste: done'].join('\n') + '\n',
    '.bmad-ephemeral/stories/1-1-import-folder.md': story('Status: ready-for-dev'),
    '.bmad-ephemeral/stories/e0-1-scaffold.md': story('Status: review'),
    '.bmad-ephemeral/stories/1-2-base-rbac.md': '# Story 1.2 — Base RBAC\n\n**Statut** : ✅ DONE\n',
    '.bmad-ephemeral/stories/1-3-liste.md': '# 故事 1.3: 列表\n\n## 状态: 已完成\n',
  });
  const by = Object.fromEntries(truthFor(dir).projects[0].stories.map((s) => [s.key, s]));
  assert.equal(by['e-01-1-import-folder'].drift, true);
  assert.equal(by['e0-1-scaffold'].clean, true);
  assert.equal(by['1-2-base-rbac'].clean, true);
  assert.equal(by['1-3-liste'].clean, true);
  assert.equal(normalizeStatus('Terminé'), 'done');
  assert.equal(normalizeStatus('审核中'), 'review');
  assert.equal(normalizeStatus('En cours'), 'in-progress');
});

test('eighth round (b): a ## Status checklist of stages is at its last ticked stage; none ticked states none', () => {
  const stages = (ticks) => ['Draft', 'Ready for Dev', 'In Progress', 'Code Review', 'Done'].map((w, i) => `- [${ticks[i] ? 'x' : ' '}] ${w}`).join('\n');
  assert.equal(normalizeStatus(storyStatus(`# Story 4.1: Lantern\n\n## Status\n${stages([1, 1, 1, 1, 1])}\n\n## Tasks\n- [x] a\n`).raw), 'done');
  assert.equal(normalizeStatus(storyStatus(`# Story 4.1: Lantern\n\n## Status\n${stages([1, 1, 0, 0, 0])}\n`).raw), 'ready-for-dev');
  assert.equal(storyStatus(`# Story 4.1: Lantern\n\n## Status\n${stages([0, 0, 0, 0, 0])}\n`), null);
});

test('eighth round (b): the Dev Agent Record\'s own Status, however far down; a Status under Notes or Acceptance Criteria is not the story\'s', () => {
  const filler = (n) => Array.from({ length: n }, (_, i) => `- note ${i}`).join('\n');
  const deep = storyStatus(`# Story 6.1: Harbour\n\n## Dev Notes\n${filler(200)}\n\n## Dev Agent Record\n\n| Field | Value |\n|---|---|\n| Status | ready-for-dev |\n`);
  assert.equal(deep.raw.trim(), 'ready-for-dev');
  assert.equal(storyStatus(`# Story 6.2: Harbour\n\n## Dev Notes\n${filler(70)}\n\n## Dev Agent Record\n\n**Status:** DONE\n`).raw, 'DONE');
  // a log subsection of the record is not its own lines
  assert.equal(storyStatus(`# Story 6.3: Harbour\n\n## Dev Notes\n${filler(70)}\n\n## Dev Agent Record\n\n### Completion Notes\n- **Status:** review\n`), null);
  assert.equal(storyStatus('# story-23.0.1: ADR\n\n## Goal\nWrite it.\n\n## Technical Notes\n\n### ADR Structure Required\n- **Status:** Proposed (pending review)\n'), null);
  assert.equal(storyStatus('# Story 3.4: Console\n\n## Acceptance Criteria\n\n### AC 1\n\n**Status**: ✅ Already complete\n'), null);
});

test('eighth round (b): a stray line inside the development_status block makes the ledger broken; keys in any script are read', () => {
  const dir = project({
    '.bmad-ephemeral/sprint-status.yaml': 'development_status:\n  epic-4: contexted\n  4-1-文章列表页面（首页）: done\n´  4-2-文章详情页面: done\n  4-3-分类筛选功能: review\n',
    '.bmad-ephemeral/stories/4-1-文章列表页面（首页）.md': story('Status: done'),
    '.bmad-ephemeral/stories/4-3-分类筛选功能.md': story('Status: done'),
  });
  const t = truthFor(dir);
  assert.deepEqual(t.projects[0].broken.map((b) => b.file), ['.bmad-ephemeral/sprint-status.yaml']);
  const s = Object.fromEntries(t.projects[0].stories.map((x) => [x.key, x]));
  assert.equal(s['4-1-文章列表页面（首页）'].clean, true);
  assert.equal(s['4-3-分类筛选功能'].drift, true);
});

test('eighth round (b): a sprint-status.yaml of another format that is not valid YAML is broken', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/docs"\n',
    'docs/sprint-status.yaml': 'version: "6.0.0"\nsprints:\n  - sprint_number: 1\n    status: "completed"\npost_sprint:\n  notes: "kept"\n# --- Sprint 2 ---\n  - sprint_number: 2\n',
  });
  const t = truthFor(dir);
  assert.deepEqual(t.projects[0].broken.map((b) => b.file), ['docs/sprint-status.yaml']);
});

test('eighth round (b): a done v4 story whose QA gate file says BLOCKED or FAIL is not clean; PASS is', () => {
  const dir = project({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n',
    'docs/stories/7.1.lantern-base.md': '# Story 7.1: Lantern Base\n\n## Status\n\nDone\n\n## Tasks / Subtasks\n\n- [x] a\n',
    'docs/stories/7.2.lantern-panel.md': '# Story 7.2: Lantern Panel\n\n## Status\n\nDone\n\n## Tasks / Subtasks\n\n- [x] a\n',
    'docs/qa/gates/7.1-lantern-base.yml': 'schema: 1\nstory: "7.1"\ngate: PASS\n',
    'docs/qa/gates/7.2-lantern-panel.yml': 'schema: 1\nstory: "7.2"\ngate: BLOCKED\n',
  });
  const t = truthFor(dir);
  const s = Object.fromEntries(t.projects[0].stories.map((x) => [x.key, x.clean]));
  assert.deepEqual(s, { '7.1.lantern-base': true, '7.2.lantern-panel': false });
  assert.deepEqual(t.projects[0].broken.map((b) => b.file), ['docs/stories/7.2.lantern-panel.md']);
});

test('eighth round (b): a file status in no vocabulary (a typo) is unreadable: neither drift nor clean', () => {
  const dir = project({
    'docs/sprint-status.yaml': 'development_status:\n  epic-3: in-progress\n  3-3-lantern: done\n  3-4-wick: done\n',
    'docs/3-3-lantern.md': story('Status: completedcompleted'),
    'docs/3-4-wick.md': story('Status: review'),
  });
  const s = Object.fromEntries(truthFor(dir).projects[0].stories.map((x) => [x.key, [x.drift, x.clean]]));
  assert.deepEqual(s, { '3-3-lantern': [false, false], '3-4-wick': [true, false] });
});

test('eighth round (a): lettered epic/story keys, a lettered series under its epic, an epic named by a word', () => {
  const dir = project({
    '.bmad/bmm/config.yaml': "output_folder: '{project-root}/docs'\nsprint_artifacts: '{project-root}/docs/sprint-artifacts'\n",
    'docs/sprint-artifacts/sprint-status.yaml': [
      'development_status:',
      '  epic-1: in-progress',
      '  e1-s1-make-the-lamp: done',
      '  e1-s2-trim-the-wick: review',
      '  epic-2: backlog',
      '  g-01-browse-the-shelf: review',
      '  u-01-borrow-a-book: backlog',
      '  epic-r: in-progress',
      '  r-0-blueprint: done',
      '  epic-r-retrospective: optional',
    ].join('\n'),
    'docs/sprint-artifacts/e1-s1-make-the-lamp.md': story('Status: done'),
    'docs/sprint-artifacts/e1-s2-trim-the-wick.md': story('Status: done'),
    'docs/sprint-artifacts/g-01-browse-the-shelf.md': story('Status: review'),
    'docs/sprint-artifacts/r-0-blueprint.md': story('Status: review'),
  });
  const by = Object.fromEntries(truthFor(dir).projects[0].stories.map((s) => [s.key, s]));
  assert.deepEqual(Object.keys(by).sort(), ['e1-s1-make-the-lamp', 'e1-s2-trim-the-wick', 'g-01-browse-the-shelf', 'r-0-blueprint', 'u-01-borrow-a-book']);
  assert.equal(by['e1-s1-make-the-lamp'].clean, true);
  assert.equal(by['e1-s2-trim-the-wick'].drift, true);
  assert.equal(by['g-01-browse-the-shelf'].clean, true);
  assert.equal(by['r-0-blueprint'].drift, true);
});

test('eighth round (a): a ledger with fullwidth colons is read line by line and named broken; so is a frontmatter that is not YAML', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': "output_folder: '{project-root}/_bmad-output'\n",
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-作为守塔人我可以点亮灯：done\n  1-2-作为守塔人 调节亮度：review\n',
    '_bmad-output/implementation-artifacts/1-1-作为守塔人我可以点亮灯.md': story('Status: done'),
    '_bmad-output/implementation-artifacts/1-2-作为守塔人 调节亮度.md': story('Status: in-progress'),
    '_bmad-output/planning-artifacts/tech-spec.md': '---\nstepsCompleted: [1]\npatterns:\n  - [SerializeField] Inspector\n---\n# Spec\n',
  });
  const p = truthFor(dir).projects[0];
  const by = Object.fromEntries(p.stories.map((s) => [s.key, s]));
  assert.equal(by['1-1-作为守塔人我可以点亮灯'].clean, true);
  assert.equal(by['1-2-作为守塔人 调节亮度'].drift, true);
  assert.deepEqual(p.broken.map((b) => b.file).sort(), ['_bmad-output/implementation-artifacts/sprint-status.yaml', '_bmad-output/planning-artifacts/tech-spec.md']);
});

test('held-out round 19: a story no longer used or folded into another is set aside; approved for production is done', () => {
  assert.equal(normalizeStatus('NOT USED - MERGED INTO STORY 3-9'), 'dropped');
  assert.equal(normalizeStatus('not-used'), 'dropped');
  assert.equal(normalizeStatus('Merged into 2-4'), 'dropped');
  assert.equal(normalizeStatus('Merged'), 'done');
  assert.equal(normalizeStatus('Approved for Production (All QA Issues Resolved)'), 'done');
  assert.equal(normalizeStatus('Approved'), 'ready-for-dev');
});

test('held-out round 19: v6 beta\'s default ephemeral ledger is the ledger when no other is found', () => {
  const dir = project({
    '.bmad/bmm/config.yaml': 'project_name: x\nbmad_folder: .bmad\nsprint_artifacts: "{project-root}/docs/sprint-artifacts"\n',
    '.bmad-ephemeral/sprint-status.yaml': 'development_status:\n  epic-0: in-progress\n  0-1-ci-pipeline: ready-for-dev\n',
    'docs/stories/0-1-ci-pipeline.md': story('Status: Completed'),
  });
  const t = truthFor(dir);
  const s = t.projects[0].stories.find((x) => x.key === '0-1-ci-pipeline');
  assert.equal(s.ledger, '.bmad-ephemeral/sprint-status.yaml');
  assert.equal(s.drift, true);
});

test('held-out round 19: a file named by number alone whose title names another story is not the key\'s', () => {
  const ledger = 'development_status:\n  epic-3: in-progress\n  3-6-tips-annotation-archiving: ready-for-dev\n  3-7-dialog-pullout: ready-for-dev\n';
  const dir = project({
    '_bmad/bmm/config.yaml': 'project_name: x\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger,
    'docs/stories/3.6.story.md': '# Story 3.6: Example Teaching Agent (Example-Teaching-Agent)\n\n## Status\nDone\n',
    'docs/stories/3.7.story.md': '# Story 3.7: Dialog Pull-out Node\n\n## Status\nDone\n',
  });
  const stories = truthFor(dir).projects[0].stories;
  assert.equal(stories.find((s) => s.key === '3-6-tips-annotation-archiving').file, null);
  assert.equal(stories.find((s) => s.key === '3-7-dialog-pullout').file, 'docs/stories/3.7.story.md');
});

test('held-out round 19: a story file two ledgers list with different statuses is neither drift nor clean', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'project_name: x\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    'docs/sprint-status.yaml': 'development_status:\n  epic-8: in-progress\n  8-5-leaderboards: done\n  8-6-rewards: backlog\n',
    'docs/stories/sprint-status.yaml': 'development_status:\n  epic-8: backlog\n  8-5-leaderboards: backlog\n  8-6-rewards: backlog\n',
    'docs/stories/8-5-leaderboards.md': story('Status: done'),
    'docs/stories/8-6-rewards.md': story('Status: backlog'),
  });
  const stories = truthFor(dir).projects[0].stories;
  assert.ok(stories.filter((s) => s.key === '8-5-leaderboards').every((s) => !s.drift && !s.clean));
  assert.ok(stories.filter((s) => s.key === '8-6-rewards').every((s) => s.clean));
});

test('held-out round 19: a number-only file beside a same-numbered file named for another story is ambiguous', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'project_name: x\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-2: in-progress\n  2-5-reranker-upgrade: review\n  2-6-crag-gate: review\n',
    '_bmad-output/implementation-artifacts/epic-2/2-5-error-extraction.md': story('Status: ready-for-dev'),
    'docs/stories/2.5.story.md': story('Status: Done'),
    'docs/stories/2.6.story.md': story('Status: Done'),
  });
  const stories = truthFor(dir).projects[0].stories;
  const s25 = stories.find((s) => s.key === '2-5-reranker-upgrade');
  assert.ok(!s25.drift && !s25.clean);
  assert.equal(stories.find((s) => s.key === '2-6-crag-gate').drift, true);
});

test('held-out round 20: a ledger-less story file stating two different statuses is not clean', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'project_name: x\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad-output/implementation-artifacts/1-1-initialize-workspace.md': '---\nstory_key: "1-1-initialize-workspace"\nstatus: "ready-for-dev"\n---\n\n# Story 1.1: Initialize Workspace\n\n## Tasks\n\n- [ ] Scaffold\n\n## Status\n\n**Current Status:** complete\n',
    '_bmad-output/implementation-artifacts/1-2-shared-types.md': '---\nstory_key: "1-2-shared-types"\nstatus: "ready-for-dev"\n---\n\n# Story 1.2: Shared Types\n\n## Tasks\n\n- [ ] Define them\n',
  });
  const stories = truthFor(dir).projects[0].stories;
  assert.equal(stories.find((s) => s.key === '1-1-initialize-workspace').clean, false);
  assert.equal(stories.find((s) => s.key === '1-2-shared-types').clean, true);
});

test('held-out round 20: a task struck through is dropped, not open', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'project_name: x\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-lantern: done\n  1-2-wick: done\n',
    '_bmad-output/implementation-artifacts/1-1-lantern.md': '# Story 1.1: Lantern\n\nStatus: done\n\n## Tasks / Subtasks\n\n- [x] Light it\n- [ ] ~~Commit it~~ - skipped per user request\n',
    '_bmad-output/implementation-artifacts/1-2-wick.md': '# Story 1.2: Wick\n\nStatus: done\n\n## Tasks / Subtasks\n\n- [x] Trim it\n- [ ] Replace the ~~old~~ wick\n',
  });
  const stories = truthFor(dir).projects[0].stories;
  assert.equal(stories.find((s) => s.key === '1-1-lantern').clean, true);
  assert.equal(stories.find((s) => s.key === '1-2-wick').clean, false);
});

test('held-out round 21: a story whose frontmatter is not YAML is not clean', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'project_name: x\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-shell: done\n  1-2-theme: done\n',
    '_bmad-output/implementation-artifacts/1-1-shell.md': '---\nstory_key: 1-1-shell\nstatus: done\ntasks:\n  - [x] Build the shell\n---\n\n# Story 1.1: Shell\n\nStatus: done\n',
    '_bmad-output/implementation-artifacts/1-2-theme.md': '---\nstory_key: 1-2-theme\nstatus: done\n---\n\n# Story 1.2: Theme\n\nStatus: done\n',
  });
  const stories = truthFor(dir).projects[0].stories;
  assert.equal(stories.find((s) => s.key === '1-1-shell').clean, false);
  assert.equal(stories.find((s) => s.key === '1-2-theme').clean, true);
});

test('held-out round 21: a project with outputs and no install three folders down is found', () => {
  const dir = project({
    'README.md': '# courses\n',
    'courses/lab/shop-2026/_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-storefront: review\n',
    'courses/lab/shop-2026/_bmad-output/implementation-artifacts/1-1-storefront.md': '# Story 1.1: Storefront\n\nStatus: review\n\n## Tasks\n\n- [x] Build it\n',
  });
  const t = truthFor(dir);
  assert.equal(t.projects.length, 1);
  assert.equal(t.projects[0].root, 'courses/lab/shop-2026');
  assert.equal(t.projects[0].stories.find((s) => s.key === '1-1-storefront').clean, true);
});

test('held-out round 21: ledgers per sprint below the declared implementation folder are found', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'project_name: x\nimplementation_artifacts: "{project-root}/app/docs/sprints"\n',
    'app/docs/sprints/sprint-status.yaml': '# overview\nsprint-6: done\nsprint-7: done\n',
    'app/docs/sprints/sprint-7/sprint-status.yaml': 'development_status:\n  epic-0: done\n  0-1-git-branch: done\n  0-2-ci: done\n',
    'app/docs/sprints/sprint-7/0-1-git-branch.md': '# Story 0.1: Git Branch\n\nStatus: Backlog\n',
    'app/docs/sprints/sprint-7/0-2-ci.md': '# Story 0.2: CI\n\nStatus: done\n',
  });
  const stories = truthFor(dir).projects[0].stories;
  assert.equal(stories.find((s) => s.key === '0-1-git-branch').drift, true);
  assert.equal(stories.find((s) => s.key === '0-2-ci').clean, true);
});

test('held-out round 26: an output folder named like an install (`docs/bmad/`, no install in git) holds the project', () => {
  const dir = project({
    'README.md': '# starter\n',
    'docs/bmad/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-bootstrap: done\n  1-2-api: review\n',
    'docs/bmad/implementation-artifacts/1-1-bootstrap.md': '# Story 1.1: Bootstrap\n\nStatus: done\n\n## Tasks\n\n- [x] Build it\n',
    'docs/bmad/implementation-artifacts/1-2-api.md': '# Story 1.2: API\n\nStatus: in-progress\n',
  });
  const t = truthFor(dir);
  assert.equal(t.projects.length, 1);
  assert.equal(t.projects[0].stories.find((s) => s.key === '1-1-bootstrap').clean, true);
  assert.equal(t.projects[0].stories.find((s) => s.key === '1-2-api').drift, true);
  // An alpha install named `bmad/` is still left out of the walk.
  const alpha = project({
    'bmad/bmm/config.yaml': 'project_name: x\n',
    'bmad/bmm/workflows/sprint-status.yaml': 'development_status:\n  epic-9: done\n  9-1-template: done\n',
    'docs/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-a: done\n',
    'docs/stories/1-1-a.md': '# Story 1.1: A\n\nStatus: done\n',
  });
  assert.deepEqual(truthFor(alpha).projects.flatMap((p) => p.stories.map((s) => s.key)), ['1-1-a']);
});

test('held-out round 27: a step-tracked artifact deep in an output folder (a production\'s scene, five folders down) is counted', () => {
  const dir = project({
    '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.3.0\n',
    '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/_bmad-output"\n',
    '_bmad-output/cpm-projects/Film/Production/Scenes/Scene_01/scene-brief.md': "---\nstepsCompleted: ['step-01-init']\nstatus: not-started\n---\n\n# Scene 01\n",
  });
  const files = truthFor(dir).projects.flatMap((p) => p.artifacts.map((a) => a.file));
  assert.deepEqual(files, ['_bmad-output/cpm-projects/Film/Production/Scenes/Scene_01/scene-brief.md']);
});

test('session 37: a story named only by its frontmatter id (`id:`, `story:`) is that story; with a ledger it is the key it names', () => {
  const fmStory = (idLine, status, title) => `---\n${idLine}\nstatus: ${status}\n---\n\n# ${title}\n\n## Story\n\nAs a keeper, I want it, so that it grows.\n\n## Acceptance Criteria\n\n1. ok\n\n## Tasks\n\n- [x] do\n`;
  const dir = project({
    '_bmad/_config/manifest.yaml': 'modules: []\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  GRAFT-E-01: review\n  graft-e-02: done\n',
    '_bmad-output/implementation-artifacts/graft-scions.md': fmStory('id: GRAFT-E-01', 'in-progress', 'Story: Graft scions'),
    '_bmad-output/implementation-artifacts/seal.md': fmStory('story: GRAFT-E-02', 'done', 'Seal grafts'),
    '_bmad-output/implementation-artifacts/decision-log.md': '---\nid: ADR-12\nstatus: accepted\n---\n\n# Decision: wax\n',
  });
  const s = truthFor(dir).projects[0].stories;
  assert.deepEqual(s.map((x) => [x.key, x.file, x.drift, x.clean]), [
    ['GRAFT-E-01', '_bmad-output/implementation-artifacts/graft-scions.md', true, false],
    ['graft-e-02', '_bmad-output/implementation-artifacts/seal.md', false, true],
  ]);
  const v4 = project({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/guard/guard-hooks.md': fmStory('story: GRD-E-01', 'Done', 'Story GRD-E-01 - Hooks'),
    'docs/stories/adr.md': '---\nid: ADR-1\nstatus: accepted\n---\n\n# Decision\n',
  });
  assert.deepEqual(truthFor(v4).projects[0].stories.map((x) => [x.file, x.fileStatus, x.clean]), [['docs/stories/guard/guard-hooks.md', 'done', true]]);
});

test('session 37: a sharded PRD (`prd/index.md`) below the story folder holds plan shards, not stories', () => {
  const dir = project({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs\n',
    'docs/1.1.login.md': '# Story 1.1: Login\n\nStatus: Done\n\n## Tasks\n\n- [x] a\n',
    'docs/prd/index.md': '# PRD\n\n- [Epic 2](./2-2-invoice-notes.md)\n',
    'docs/prd/2-2-invoice-notes.md': '# Story 2.2: Invoice\n\nStatus: Draft\n',
  });
  assert.deepEqual(truthFor(dir).projects[0].stories.map((s) => s.file), ['docs/1.1.login.md']);
});

test('session 37: the work being checked in a team\'s word (verifying, in verification, validating) is review; the past tense stays the project\'s own', () => {
  for (const w of ['Verifying', 'In Verification', 'under validation', 'Validating', 'In Testing']) assert.equal(normalizeStatus(w), 'review', w);
  assert.equal(normalizeStatus('Checked'), 'other:checked');
});

test('session 37: old copies and backups (docs_old3/, _backups/, backup-2025-10/) hold no live ledger; backup-service/ is live', () => {
  const dir = project({
    'docs/team/stories/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-wick-trimming: done\n',
    'docs/team/stories/1-1-wick-trimming.md': '# Story 1.1: Wick\n\nStatus: done\n',
    'docs_old3/sprint-status.yaml': 'development_status:\n  epic-7: in-progress\n  7-1-old: in-progress\n',
    'docs/_backups/2025-11/work/stories/sprint-status.yaml': 'development_status:\n  epic-8: in-progress\n  8-1-old: in-progress\n',
    'docs/backup-2025-10/sprint-status.yaml': 'development_status:\n  epic-6: in-progress\n  6-1-old: in-progress\n',
  });
  const keys = truthFor(dir).projects.flatMap((p) => p.stories.map((s) => s.key)).sort();
  assert.deepEqual(keys, ['1-1-wick-trimming']);
  const live = project({
    'backup-service/docs/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-snapshots: done\n',
    'backup-service/docs/stories/1-1-snapshots.md': '# Story 1.1: Snapshots\n\nStatus: done\n',
  });
  assert.deepEqual(truthFor(live).projects.flatMap((p) => p.stories.map((s) => s.key)), ['1-1-snapshots']);
});

test('session 38: `published` is finished, as shipped and delivered are', () => {
  assert.equal(normalizeStatus('published'), 'done');
  assert.equal(normalizeStatus('Published'), 'done');
});

test('session 38: a file in the story folder with nothing of a story in it (empty, a pasted log) is no story; a plain `Story 1.3 – …` first line still is', () => {
  const dir = project({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/1.1.story.md': '# Story 1.1: Wick\n\nStatus: Done\n',
    'docs/stories/1.2.story.md': '',
    'docs/stories/1.3.md': '● Checked: lamp.py is new, so it is not in the diff stat.\n  - lamp.py: timestamps in UTC\n',
    'docs/stories/1.4.story.md': 'Story 1.4 – Oil levels\n\nThe gauge is read each night.\n',
  });
  assert.deepEqual(truthFor(dir).projects[0].stories.map((s) => s.file), ['docs/stories/1.1.story.md', 'docs/stories/1.4.story.md']);
});

test('session 38: a ledger keeping one list per epic under `stories:` (`epic_1: - id: "1.1", status: done`) is read; other keys under `stories:` are not', () => {
  const dir = project({
    '_bmad/_config/manifest.yaml': 'modules: []\n',
    '_bmad-output/planning-artifacts/sprint-status.yaml': 'sprint:\n  number: 2\nstories:\n  epic_1:\n    - id: "1.1"\n      title: "Trim wicks"\n      status: done\n      depends_on: []\n  epic_2:\n    - id: "2.1"\n      status: sprint_2\n  notes:\n    - id: "9.9"\n      status: done\n',
    '_bmad-output/planning-artifacts/stories/story-1.1.md': '---\nid: "1.1"\nstatus: ready\n---\n\n# Story 1.1: Trim wicks\n\n## Acceptance Criteria\n- [ ] trimmed\n',
  });
  const s = truthFor(dir).projects[0].stories;
  assert.deepEqual(s.map((x) => [x.key, x.ledgerStatus, x.file, x.drift]), [
    ['1.1', 'done', '_bmad-output/planning-artifacts/stories/story-1.1.md', true],
    ['2.1', s[1].ledgerStatus, null, false],
  ]);
});

test('session 38c: a 2D game pack story (`UI-001-slug.md`, `# Story: title`, its id line naming the same id) is a story; a note named by the id is not', () => {
  const game = (title, idLine) => `# Story: ${title}\n\n${idLine}  \n**Epic:** Harbour Lights\n\n## Description\n\nA lamp.\n`;
  const dir = project({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/harbour/LAMP-001-lantern.md': game('Lantern', '**Story ID:** LAMP-001'),
    'docs/stories/harbour/LAMP-002-beam.md': game('Beam', '**ID**: LAMP-002'),
    'docs/stories/harbour/LAMP-003-fog.md': game('Fog', '**ID**: LAMP-009'),
    'docs/stories/harbour/LAMP-001-COMPLETION-SUMMARY.md': '# LAMP-001 Completion Summary\n',
  });
  const p = truthFor(dir).projects[0];
  assert.deepEqual(p.stories.map((s) => s.file).sort(), ['docs/stories/harbour/LAMP-001-lantern.md', 'docs/stories/harbour/LAMP-002-beam.md']);
});

test('session 38c: a retrospective over several epics (`epics-1-8-retro-{date}.md`) is no story', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    '_bmad-output/implementation-artifacts/1-1-lantern.md': story('Status: done'),
    '_bmad-output/implementation-artifacts/epics-1-8-retro-2026-04-07.md': '# Retrospective — Epics 1–8\n',
  });
  assert.deepEqual(truthFor(dir).projects[0].stories.map((s) => s.file), ['_bmad-output/implementation-artifacts/1-1-lantern.md']);
});

test('session 38c: folders named by another machine\'s absolute path are read in this checkout; a CRLF frontmatter ending in a quoted value is YAML', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': "output_folder: 'F:/Lighthouse/_bmad-output'\n",
    '_bmad-output/game-architecture.md': "---\r\n\r\ntitle: 'Game Architecture'\r\nstepsCompleted: [1, 2]\r\nplatform: 'Windows (Steam)'\r\n---\r\n\r\n# Game Architecture\r\n",
  });
  const p = truthFor(dir).projects[0];
  assert.deepEqual(p.artifacts.map((a) => a.file), ['_bmad-output/game-architecture.md']);
  assert.deepEqual(p.broken, []);
});

test('session 38c: a ledger whose `stories:` mapping is keyed by story ids ("1.1": {status}) lists those stories', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'stories:\n  "1.1":\n    title: "Lantern"\n    status: done\n    epic: 1\n',
    '_bmad-output/implementation-artifacts/1-1-lantern.md': story('Status: ready-for-dev'),
  });
  const s = truthFor(dir).projects[0].stories;
  assert.deepEqual(s.map((x) => [x.ledgerStatus, x.fileStatus, x.drift]), [['done', 'ready-for-dev', true]]);
});

test('session 38c: a review named by a document\'s word before a story\'s numbers (`review-1-1-findings.md`) is no story', () => {
  const dir = project({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    '_bmad-output/implementation-artifacts/1-1-lantern.md': story('Status: done'),
    '_bmad-output/implementation-artifacts/review-1-1-findings.md': '# Story 1.1 Code Review — Lantern\n\n## Summary\n\nShip it.\n',
  });
  assert.deepEqual(truthFor(dir).projects[0].stories.map((s) => s.file), ['_bmad-output/implementation-artifacts/1-1-lantern.md']);
});

test('session 39b (hold39b): a Status label on a story file\'s last line, in one of its own sections, is its status, however long the file; an ADR\'s under notes is not', () => {
  const filler = Array.from({ length: 70 }, (_, k) => `- Regra ${k + 1}: nunca regar ao meio-dia`).join('\n');
  assert.equal(normalizeStatus(storyStatus(`# Story 4.1: Canteiro\n\n## Objetivo\nPreparar.\n\n## Regras\n${filler}\n\n**Status:** ✅ Concluída | **Data:** 2026-01-10\n`)?.raw ?? ''), 'done');
  assert.equal(storyStatus(`# Story 4.2: Canteiro\n\n## Objetivo\nPreparar.\n\n## Technical Notes\n${filler}\n\n### ADR-1\n\nStatus: Accepted\n`), null);
  assert.equal(storyStatus(`# Story 4.3: Canteiro\n\n## Regras\n${filler}\n\n*Gerado por @pm.*\n`), null);
});

test('session 39b (hold39b): the closing Status line after the criteria\'s boxes is the story\'s; a criterion naming a status is not', () => {
  assert.equal(normalizeStatus(storyStatus(`# Story 4.4: Canteiro\n\n## Critérios\n- [x] Terra revolvida\n**Status:** ✅ Concluída | **Criado:** @sm\n`)?.raw ?? ''), 'done');
  assert.equal(storyStatus(`# Story 4.5: Canteiro\n\n## Acceptance Criteria\n\n1. The card shows its state\n2. **Status:** done\n`), null);
});

test('session 40b (hold40b): a bmad-build story spec led by the story\'s numbers (`spec-1-2-drip-timer.md`) is that ledger story\'s file, whatever slug follows; beside the story\'s own file it is not', () => {
  const spec = (status) => `---\ntitle: 'Story 1.2: Drip Timer'\ntype: 'feature'\nstatus: '${status}'\n---\n\n## Intent\n\n**Problem:** dry beds.\n`;
  const dir = project({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-2-drip-irrigation-timer-with-moisture-probe: review\n  1-3-rain-barrel: in-progress\n  1-10-compost-bin-rotation: done\n',
    '_bmad-output/implementation-artifacts/spec-1-2-drip-timer.md': spec('done'),
    '_bmad-output/implementation-artifacts/1-3-rain-barrel.md': story('Status: in-progress'),
    '_bmad-output/implementation-artifacts/spec-1-3-barrel-stand.md': spec('done'),
  });
  const s = truthFor(dir).projects[0].stories;
  assert.deepEqual(s.map((x) => [x.key, x.file, x.drift]), [
    ['1-2-drip-irrigation-timer-with-moisture-probe', '_bmad-output/implementation-artifacts/spec-1-2-drip-timer.md', true],
    ['1-3-rain-barrel', '_bmad-output/implementation-artifacts/1-3-rain-barrel.md', false],
    ['1-10-compost-bin-rotation', null, false],
  ]);
});

test('session 40a (hold40a): the QA agent\'s Improvements Checklist under QA Results is the reviewer\'s list, not the story\'s tasks', () => {
  const text = (qa) => `# Story 1.2: Hearth\n\n## Status\nDone\n\n## Tasks / Subtasks\n\n- [x] Lay the stones\n- [x] Test the draw\n\n## QA Results\n\n### Review Date: 2026-11-01\n\n### Improvements Checklist\n\n${qa}\n\n### Final Status\n\n✓ Approved - Ready for Done\n`;
  const dir = project({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/1.2.story.md': text('- [x] Tidied the chimney test\n- [ ] Consider a spark guard'),
    'docs/stories/1.3.story.md': `# Story 1.3: Flue\n\n## Status\nDone\n\n## Tasks / Subtasks\n\n- [x] Fit the flue\n- [ ] Sweep it\n\n## QA Results\n\nFine.\n`,
  });
  const byKey = Object.fromEntries(truthFor(dir).projects[0].stories.map((s) => [s.key, s]));
  assert.equal(byKey['1.2.story'].openTasks, 0);
  assert.equal(byKey['1.2.story'].clean, true);
  assert.equal(byKey['1.3.story'].openTasks, 1);
});

test('session 40a (hold40a): a v6 project whose output folder is docs, planning done and no story yet (`docs/planning-artifacts/`), is a project with its step-tracked artifacts', () => {
  const dir = project({
    'docs/planning-artifacts/implementation-readiness-report-2026-11-01.md': '---\nstepsCompleted:\n  - step-01-document-discovery\n  - step-02-prd-analysis\n---\n# Implementation Readiness Assessment Report\n',
    'docs/planning-artifacts/notes.md': '# Notes\n',
  });
  const t = truthFor(dir);
  assert.equal(t.layout, 'v6.0');
  assert.deepEqual(t.projects[0].artifacts.map((a) => a.file), ['docs/planning-artifacts/implementation-readiness-report-2026-11-01.md']);
});

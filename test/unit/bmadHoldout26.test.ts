// Session 26's held-out round (issue 20): what a batch of real projects nobody had looked at showed.
// Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { parseStory, storyKeyFromName } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { inProject } from './fileHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');

/** A story whose sections are far enough down that only the section itself can give the status. */
function decorated(heading: string, body: string): string {
  const filler = Array.from({ length: 45 }, (_, i) => `- note ${i + 1} about the work`).join('\n');
  return `# Story 3.3: Sub-tasks\n\n## 🚀 Overview\n**As a** developer,\n**I want** sub-tasks,\n**So that** I can track them.\n\n## 🏗 Implementation Plan\n${filler}\n\n${heading}\n${body}\n`;
}

test('a section heading decorated with an emoji (`## 📅 Status`, `## ✅ Status: done`) is the Status section, however far down', () => {
  assert.equal(parseStory('/p/3-3-sub-tasks.md', decorated('## 📅 Status', '- **Priority**: High\n- **Status**: ready-for-dev\n- **Assigned To**: Amelia')).status, 'ready-for-dev');
  assert.equal(parseStory('/p/3-3-sub-tasks.md', decorated('## 📌 Current Status', 'In Progress')).status, 'In Progress');
  assert.equal(parseStory('/p/3-3-sub-tasks.md', decorated('## Status 📅', 'review')).status, 'review');
  const inHeading = decorated('## ✅ Status: done', '');
  const h = parseStory('/p/3-3-sub-tasks.md', inHeading);
  assert.equal(h.status, 'done');
  // Its columns are the line's own (a status change writes there).
  assert.equal(inHeading.split('\n')[h.statusLine!].slice(h.statusStart, h.statusEnd), 'done');
  assert.equal(parseStory('/p/3-3-sub-tasks.md', decorated('### 🔖️ **Status:** Approved', '')).status, 'Approved');
  // A heading that only mentions the word is still no Status section.
  assert.equal(parseStory('/p/3-3-sub-tasks.md', decorated('## 📅 Status of the rollout plan', 'done')).status, undefined);
});

test('decorated section titles keep their meaning: `## 📝 Dev Agent Record`, `## 🧪 QA Results`, `## 🗂 File List`', () => {
  const s = parseStory('/p/docs/stories/5.1.story.md', [
    '# Story 5.1: Foundation', '', '## 📅 Status', 'Done', '', '## ✅ Tasks / Subtasks', '- [x] Build it', '- [ ] Ship it', '',
    '## 📝 Dev Agent Record', '', '## 🗂 File List', '- a.ts', '', '## 🧾 Change Log', '', '## 🧪 QA Results', 'Gate: PASS', '',
  ].join('\n'));
  assert.equal(s.status, 'Done');
  assert.equal(s.tasks.length, 2);
  assert.equal(s.hasDevAgentRecord, true);
  assert.equal(s.hasFileList, true);
  assert.equal(s.hasChangeLog, true);
  assert.equal(s.qaGate, 'PASS');
});

test('a ledger whose metadata AFTER the entries is not YAML: a warning (the entries are whole); inside the entries still an error', () => {
  const entries = ['development_status:', '  epic-1: in-progress', '  1-1-setup: done', '  1-2-api: review', ''];
  const trailer = ['total_stories: 2', 'foundation_from_original:', '  - 1-1-fastapi-project-setup: done', '  note: "reused as-is"', ''];
  const after = parseLedger('/p/sprint-status.yaml', [...entries, ...trailer].join('\n'));
  assert.deepEqual(after.entries.map((e) => [e.key, e.status]), [['epic-1', 'in-progress'], ['1-1-setup', 'done'], ['1-2-api', 'review']]);
  assert.deepEqual(after.problems.map((p) => `${p.severity} ${p.code} ${p.range.start.line + 1}`), ['warning ledger-yaml 9']);
  assert.match(after.problems[0].message, /after the development_status entries/);
  const inside = parseLedger('/p/sprint-status.yaml', ['development_status:', '  epic-1: in-progress', '  1-1-setup: [done', '  1-2-api: review', '', ...trailer].join('\n'));
  assert.equal(inside.problems.filter((p) => p.code === 'ledger-yaml')[0]?.severity, 'error');
});

test('a done story whose QA gate file reads but records no verdict gets a note; a gate file that is not YAML still a warning', () => {
  const files = {
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n',
    'docs/stories/4.4.chunk-explorer.md': '# Story 4.4: Chunk Explorer\n\n## Status\nDone\n\n## Tasks\n- [x] Build it\n',
    'docs/qa/gates/4.4-gate-20251005.yml': 'schema: 1\nstory: "4.4"\ngate: "not available in source"\ngate_decision:\n  decision: "not available in source"\n',
  };
  const codes = (root: string) => loadSprint(root, { now: NOW })!.problems.filter((p) => p.code === 'story-gate-failed').map((p) => p.severity);
  inProject(files, (root) => {
    assert.deepEqual(codes(root), ['info']);
    fs.writeFileSync(`${root}/docs/qa/gates/4.4-gate-20251005.yml`, "schema: 1\nstory: '4.4'\nreviewer: 'it's broken'\n");
    assert.deepEqual(codes(root), ['warning']);
  });
});

test('v4 sub-stories named `1.3.1-slug.md` (a dash after the third number) are stories of their own beside `1.3.slug.md`', () => {
  const n = (f: string) => { const k = storyKeyFromName(f); return k && `${k.epicId}.${k.story} ${k.key}`; };
  assert.equal(n('1.3.1-student-token-management-system.md'), '1-3.1 1-3-1-student-token-management-system');
  assert.equal(n('2.8.1.secrets-resilience.md'), '2-8.1 2-8-1-secrets-resilience');
  assert.equal(n('1.3.student-access-code-system.md'), '1.3 1-3-student-access-code-system');
  // A year after the story's number is a dated note's name, not a sub-story.
  assert.equal(n('1.3.2025-12-01-notes.md')?.startsWith('1-3.2025'), false);
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/1.3.student-access-code-system.md': '# Story 1.3: Student Access Codes\n\n## Status\nDone\n',
    'docs/stories/1.3.1-student-token-management-system.md': '# Story 1.3.1: Student Token Management\n\n## Status\nDone\n',
    'docs/stories/5.4-test-suite-critical-fixes.md': '# Story 5.4: Test Suite Critical Fixes\n\n## Status\nDone\n',
    'docs/stories/5.4.1-suite-wide-test-fixes.md': '# Story 5.4.1: Suite-wide Test Fixes\n\n## Status\nReady for Review\n',
  }, (root) => {
    const listed = loadSprint(root, { now: NOW })!.stories.filter((s) => s.file).map((s) => `${s.epicId}.${s.story} ${s.status}`).sort();
    assert.deepEqual(listed, ['1-3.1 done', '1.3 done', '5-4.1 review', '5.4 done']);
  });
});

test('a gate whose `gate:` names a stage of the review reads its verdict from `gate_status:` further down', () => {
  const g = parseQaGate('/p/docs/qa/gates/4.1-learner-dna.yml', 'schema: 1\nstory: "4.1"\ngate: "IMPLEMENTATION_REVIEW"\nreviewer: "Quinn"\nnotes:\n  - fine\n# Gate Status and Approval\ngate_status: "CONDITIONAL_PASS"\n', NOW);
  assert.equal(g.verdict, 'CONCERNS');
  assert.equal(g.open, true);
  // With nothing else, the stage is still no verdict, and says so.
  const none = parseQaGate('/p/docs/qa/gates/3.4-ui.yml', 'schema: 1\nstory: "3.4"\ngate: "IMPLEMENTATION_REVIEW"\n', NOW);
  assert.equal(none.verdict, undefined);
  assert.match(none.error ?? '', /IMPLEMENTATION_REVIEW/);
});

test('story files named from their titles (`1-3-resolve-refs-(ref-pinning).md`, `2-2-add-⚠️-warning-icon.md`) are their ledger keys\' files, numbers shared or not', () => {
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: starter\nimplementation_artifacts: "{project-root}/docs/bmad/implementation-artifacts"\n',
    // Two plans numbered the same way in one ledger: a number alone names no story.
    'docs/bmad/implementation-artifacts/sprint-status.yaml': ['development_status:', '  epic-1: done',
      '  1-1-bootstrap-monorepo-structure: done', '  1-3-github-actions-ci-pipeline: done', '  epic-1-retrospective: optional', '  epic-2: done',
      '  1-1-define-manifest-schema-and-data-model: done', '  1-3-resolve-repository-refs-to-commit-shas-ref-pinning: done',
      '  2-2-add-warning-icon-to-download-action: done', '  2-4-integration-test-search-filter-flow: review', ''].join('\n'),
    'docs/bmad/implementation-artifacts/1-1-bootstrap-monorepo.md': '# Story 1.1: Bootstrap Monorepo\n\nStatus: ready-for-dev\n',
    'docs/bmad/implementation-artifacts/1-1-define-manifest-schema-and-data-model.md': '# Story 1.1: Manifest Schema\n\nStatus: done\n',
    'docs/bmad/implementation-artifacts/1-3-resolve-repository-refs-to-commit-shas-(ref-pinning).md': '# Story 1.3: Ref Pinning\n\nStatus: ready-for-dev\n',
    'docs/bmad/implementation-artifacts/2-2-add-⚠️-warning-icon-to-download-action.md': '# Story 2.2: Warning Icon\n\nStatus: ready-for-dev\n',
    'docs/bmad/implementation-artifacts/2-4-integration-test-—-search-+-filter-flow.md': '# Story 2.4: Search and Filter\n\nStatus: review\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    const bound = r.stories.filter((s) => s.file).map((s) => `${s.key} ${s.fileStatus}`).sort();
    assert.deepEqual(bound, [
      '1-1-bootstrap-monorepo-structure ready-for-dev',
      '1-1-define-manifest-schema-and-data-model done',
      '1-3-resolve-repository-refs-to-commit-shas-ref-pinning ready-for-dev',
      '2-2-add-warning-icon-to-download-action ready-for-dev',
      '2-4-integration-test-search-filter-flow review',
    ]);
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.file.endsWith('.md')).map((p) => p.file.replace(/^.*[\\/]/, '')).sort();
    assert.deepEqual(drift, ['1-1-bootstrap-monorepo.md', '1-3-resolve-repository-refs-to-commit-shas-(ref-pinning).md', '2-2-add-⚠️-warning-icon-to-download-action.md']);
  });
});

test('a file named by its key exactly is the story\'s, not a sibling named from the title (`2-2-Daily Plan.md`); a sprint change proposal named after a story is no story', () => {
  assert.equal(storyKeyFromName('10.4.1-canvas-modification-implementation.sprint-change-proposal.md'), undefined);
  inProject({
    '.bmad/bmm/config.yaml': 'project_name: x\nsprint_artifacts: "{project-root}/docs/sprint-artifacts"\n',
    'docs/sprint-artifacts/sprint-status.yaml': 'development_status:\n  epic-2: in-progress\n  2-2-daily-plan-context-window: drafted\n',
    'docs/sprint-artifacts/2-2-daily-plan-context-window.md': '# Story 2.2: Daily Plan Context Window\n\nStatus: drafted\n',
    'docs/sprint-artifacts/2-2-Daily Plan Context Window.md': '# Story 2.2: Daily Plan Context Window\n\nStatus: review\n',
    'docs/stories/2.2.1-context-fix.sprint-change-proposal.md': '# Sprint Change Proposal: context fix\n\n**Status**: Approved\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.deepEqual(r.stories.filter((s) => s.file).map((s) => `${s.key} ${s.file!.replace(/^.*[\\/]/, '')}`), ['2-2-daily-plan-context-window 2-2-daily-plan-context-window.md']);
    assert.deepEqual(r.problems.filter((p) => p.file.endsWith('proposal.md')), []);
  });
});

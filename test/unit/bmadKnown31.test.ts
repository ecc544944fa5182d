// Session 31's known leftovers of the held-out batch (issue 20), each a grammar rule other projects
// write the same way. Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint, plannedOnly } from '../../src/core/bmad/sprint';
import { inProject } from './fileHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');
const V4 = { '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n' };
const V6_CONFIG = 'project_name: demo\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\n';
const IA = '_bmad-output/implementation-artifacts';
const BODY = '\n## Story\n**As a** developer, **I want** it, **so that** it works.\n\n## Acceptance Criteria\n1. It works\n\n## Tasks / Subtasks\n- [x] Build it\n';

const names = (r: ReturnType<typeof loadSprint>) => r!.stories.filter((s) => s.file).map((s) => path.basename(s.file!)).sort();
const byName = (r: ReturnType<typeof loadSprint>, name: string) => r!.stories.find((s) => s.file && path.basename(s.file) === name);

test('a team series id in the title (`# Story TEA-AGENT-001.1-rust: …`, `# Story: ID - …`, `# ID: …`) is the title; two files of one id are both stories', () => {
  inProject({
    ...V4,
    'docs/stories/TEA-AGENT-001.1-multi-agent-collaboration.md': `# Story TEA-AGENT-001.1: Multi-Agent Collaboration\n\n## Status\n\nDone\n${BODY}`,
    'docs/stories/TEA-AGENT-001.1-rust-multi-agent.md': `# Story TEA-AGENT-001.1-rust: Multi-Agent Collaboration (Rust)\n\n## Status\n\n**Done**\n${BODY}`,
    'docs/stories/TEA-BUILTIN-002.3-vector-index-files.md': `# Story TEA-BUILTIN-002.3: vector.index_files Action\n\n## Status\n\nDev Complete\n${BODY}`,
    'docs/stories/TEA-BUILTIN-002.3.tools-bridge-actions.md': `# Story TEA-BUILTIN-002.3: Tools Bridge Actions\n\n## Status\n\nDone\n${BODY}`,
    'docs/stories/TEA-DOCS-002.1-signature-extraction.md': `# TEA-DOCS-002.1: Signature Extraction\n\n| Field | Value |\n|---|---|\n| **Status** | Done |\n${BODY}`,
    'docs/stories/TEA-DOCS-002.1-neurosymbolic-capability.md': `# TEA-DOCS-002.1: Neurosymbolic Capability\n\n## Status\n\nReady for Review\n${BODY}`,
    'docs/stories/TEA-STREAM-001.1-channels.md': `# Story: TEA-STREAM-001.1 - Stream Channel Infrastructure\n\n## Status\nDone\n${BODY}`,
  }, (root) => {
    const r = loadSprint(root, { now: NOW });
    assert.equal(r!.stories.length, 7);
    assert.equal(byName(r, 'TEA-AGENT-001.1-rust-multi-agent.md')?.title, 'Multi-Agent Collaboration (Rust)');
    assert.equal(byName(r, 'TEA-BUILTIN-002.3.tools-bridge-actions.md')?.status, 'done');
    assert.equal(byName(r, 'TEA-DOCS-002.1-neurosymbolic-capability.md')?.status, 'review');
    assert.equal(byName(r, 'TEA-STREAM-001.1-channels.md')?.title, 'Stream Channel Infrastructure');
    // The shared numbers are said once, as for any two story files of one number.
    const dup = r!.problems.filter((p) => p.code === 'story-file-duplicate');
    assert.equal(dup.length, 1);
    assert.match(dup[0].message, /^3 story numbers are given to more than one story file/);
  });
});

test('a one-number series (`TD.10.slug.md`, `BUG.001.slug.md`) in the story folder is a story by its content: a status, acceptance criteria and tasks', () => {
  inProject({
    ...V4,
    'docs/stories/1.1.login.md': `# Story 1.1: Login\n\n## Status\nDone\n${BODY}`,
    'docs/stories/TD.10.checkpoint-persistence.md': `# Story TD.10: Checkpoint Persistence\n\n## Status\nDone\n${BODY}`,
    'docs/stories/TD.2.add-future-import.md': `# Story TD.2: Add Future Import\n\n## Status\nReady for Review\n${BODY}`,
    'docs/stories/BUG.001.config-mismatch.md': `# BUG.001: Config Mismatch\n\n**Status:** ready-for-dev\n**Priority:** High\n${BODY}`,
    // A bug report under the same kind of name: no tasks, so not a story.
    'docs/stories/BUG.002.cache-wrap.md': '# BUG.002: cache.wrap Drops the Entity\n\n**Status:** Resolved\n\n## Summary\nIt drops it.\n\n## Acceptance Criteria\n- [ ] It keeps it\n',
    // A note with a status, named alike: no story.
    'docs/stories/notes.2.draft.md': '# Draft notes\n\nStatus: draft\n\nSome thoughts.\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW });
    assert.deepEqual(names(r), ['1.1.login.md', 'BUG.001.config-mismatch.md', 'TD.10.checkpoint-persistence.md', 'TD.2.add-future-import.md']);
    const td = byName(r, 'TD.10.checkpoint-persistence.md')!;
    assert.equal(td.key, 'td-10-checkpoint-persistence');
    assert.equal(td.title, 'Checkpoint Persistence');
    assert.equal(td.status, 'done');
    assert.equal(byName(r, 'TD.2.add-future-import.md')?.status, 'review');
    assert.equal(byName(r, 'BUG.001.config-mismatch.md')?.status, 'ready-for-dev');
  });
});

test('a `Story ID: 003.02` line naming the file\'s own number makes a file with no status and no `# Story` title a story, its heading its title', () => {
  inProject({
    ...V4,
    'docs/stories/003.01.implement-units.md': `# Story 003.01: Implement UNITS\n\n## Status\nDraft\n${BODY}`,
    'docs/stories/003.02.test-units-constant.md': '# Test UNITS Constant Implementation\n\n## Story ID: 003.02\n\n## Description\nTest it.\n\n## Acceptance Criteria\n- [ ] Tests exist\n',
    // An id naming another story's number: not this file's title.
    'docs/stories/003.03.other.md': '# Some Plan\n\n**Story ID:** 004.01\n\n## Description\nElsewhere.\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW });
    assert.deepEqual(names(r), ['003.01.implement-units.md', '003.02.test-units-constant.md']);
    const s = byName(r, '003.02.test-units-constant.md')!;
    assert.equal(s.key, '3-2-test-units-constant');
    assert.equal(s.title, 'Test UNITS Constant Implementation');
  });
});

test('in an epic\'s stories folder, `# Story Epic 1-1: …` / `# Story Epic1-6 — …` is the title; a status in an `Implementation Complete` section is the story\'s, however far down', () => {
  const far = Array.from({ length: 60 }, (_, i) => `- note ${i}`).join('\n');
  const E = 'docs/stories/epics/epic-1-flexible-players/stories';
  inProject({
    ...V4,
    [`${E}/01-single-player-default.md`]: '# Story Epic 1-1: Single Player Default (S)\n\n## 📋 Story Overview\n\nOne player.\n\n## ✅ Acceptance Criteria\n\n- One row\n',
    [`${E}/06-progress-bar-upgrade.md`]: `# Story Epic1-6 — Progress Bar Upgrade (XS)\n\n## 📋 Story Overview\n\n${far}\n\n## 📋 Definition of Done\n\n- [x] Code reviewed\n\n---\n\n## ✅ Implementation Complete\n\n**Status**: COMPLETED ✅  \n**Date**: December 2024  \n\n### Summary of Changes\n\n1. Done.\n`,
    // Another epic's number in the title: not this file's title.
    [`${E}/07-other.md`]: '# Story Epic 2-7: Elsewhere\n\nNothing.\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW });
    assert.deepEqual(names(r), ['01-single-player-default.md', '06-progress-bar-upgrade.md']);
    assert.equal(byName(r, '01-single-player-default.md')?.title, 'Single Player Default (S)');
    const s = byName(r, '06-progress-bar-upgrade.md')!;
    assert.equal(s.key, '1-6-progress-bar-upgrade');
    assert.equal(s.status, 'done');
  });
});

test('a story file saved as UTF-16 (with its byte-order mark) is read as the text it holds', () => {
  inProject({ ...V4, 'docs/stories/3.2.board.md': `# Story 3.2: Board\n\n## Status\nDone\n${BODY}` }, (root) => {
    const text = `# Story 3.3: Mode & Size Controls\r\n\r\n## Status\r\nDone\r\n${BODY.replace(/\n/g, '\r\n')}`;
    fs.writeFileSync(path.join(root, 'docs/stories/3.3.mode-and-size-controls.md'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const be = Buffer.from(`# Story 3.4: Undo\n\n## Status\nReview\n${BODY}`, 'utf16le').swap16();
    fs.writeFileSync(path.join(root, 'docs/stories/3.4.undo.md'), Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    const r = loadSprint(root, { now: NOW });
    const s = byName(r, '3.3.mode-and-size-controls.md');
    assert.equal(s?.title, 'Mode & Size Controls');
    assert.equal(s?.status, 'done');
    assert.equal(s?.tasks.total, 1);
    assert.equal(byName(r, '3.4.undo.md')?.status, 'review');
  });
});

test('a ledger written as `epic_status:` and `story_status:` maps (keys `1.1`) is read as development_status: statuses, drift', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    [`${IA}/sprint-status.yaml`]: 'epic_status:\n  epic-1: in-progress\n  epic-2: backlog\nstory_status:\n  1.1: done\n  1.2: done\n  2.1: backlog\n  2.2: backlog\ncurrent_story: "2.1"\nnotes:\n  - setup is complete\n',
    [`${IA}/story-1.1-scaffold.md`]: `# Story 1.1: Scaffold\n\nStatus: done\n${BODY}`,
    [`${IA}/story-1.2-plan.md`]: `# Story 1.2: Plan\n\nStatus: done\n${BODY}`,
    [`${IA}/story-2.1-persistence.md`]: `# Story 2.1: Persistence\n\nStatus: ready-for-dev\n${BODY.replace('[x]', '[ ]')}`,
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => [s.key, s.ledgerStatus]), [['1.1', 'done'], ['1.2', 'done'], ['2.1', 'backlog'], ['2.2', 'backlog']]);
    assert.equal(r.stories[0].file && path.basename(r.stories[0].file), 'story-1.1-scaffold.md');
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning').map((p) => path.basename(p.file)), ['story-2.1-persistence.md']);
    assert.deepEqual(r.problems.filter((p) => p.code === 'ledger-stories-outside' || p.code === 'story-not-in-ledger'), []);
  });
});

test('`waymark sprint` on a project whose stories are only `## Story N.M` sections of the epics document says so, and what to do', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    '_bmad-output/planning-artifacts/epics.md': '# Epics\n\n## Epic 1: Foundation\n\n### Story 1.1: Scaffold\n\nAs a dev…\n\n### Story 1.2: CI\n\nAs a dev…\n\n## Epic 2: Todos\n\n### Story 2.1: Create a todo\n\nAs a user…\n',
  }, (root) => {
    assert.equal(loadSprint(root, { now: NOW }), undefined);
    assert.equal(plannedOnly(root)?.stories, 3);
    const r = spawnSync(process.execPath, [path.resolve('dist/cli.js'), 'sprint', '.'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /3 stories are planned only inside _bmad-output\/planning-artifacts\/epics\.md/);
    assert.match(r.stderr, /no sprint-status\.yaml and no story files/);
    assert.match(r.stderr, /Run BMAD sprint planning \(bmad-sprint-planning\)/);
  });
  // No epics either: the message as before.
  inProject({ '_bmad/bmm/config.yaml': V6_CONFIG, 'docs/readme.md': '# Hi\n' }, (root) => {
    assert.equal(plannedOnly(root), undefined);
  });
});

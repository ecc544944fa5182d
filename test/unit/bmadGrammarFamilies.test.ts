// The families of story status forms the grammar census (scripts/corpus/census.mjs) found unread
// over the 242 known projects, each as a fixture of our own text: a `## Story Status` heading, a
// metadata blockquote under the title, a label whose value a soft-wrapped paragraph puts on the
// next line, a fenced metadata block under `## Metadata`, and an explicit `Story Status:` label
// further down when nothing above states one. Noise stays noise.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseStory, normalizeStoryStatus, setAsideStatus } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';

const read = (text: string) => {
  const s = parseStory('/p/docs/stories/1-2-light-the-lamp.md', text);
  return s.status === undefined ? undefined : { status: s.status, line: s.statusLine, mapped: normalizeStoryStatus(s.status).status ?? normalizeStoryStatus(s.status).suggestion };
};

describe('story status families found unread by the census', () => {
  test('`## Story Status` (and `## Current Status`) is the Status heading: its labelled line or first line gives the status', () => {
    const t = '# Story 1.2: Light the lamp\n\n## Story\n\nAs a keeper…\n\n## Story Status\n\n- **Status**: Not Started\n- **Assigned To**: TBD\n';
    assert.deepEqual(read(t), { status: 'Not Started', line: 8, mapped: 'backlog' });
    assert.equal(read('# Story 1.2: Light the lamp\n\n## Current Status\n\nIn Progress\n')?.mapped, 'in-progress');
    assert.equal(read('# Story 1.2: Light the lamp\n\n## Story Status: Done\n')?.mapped, 'done');
  });

  test('a value that restates the story before its status in brackets reads the bracketed status (`✅ Story 1.2: Light the lamp (Ready for Review)`)', () => {
    const t = '# Story 1.2: Light the lamp\n\n## Story Status\n**Current Status**: ✅ Story 1.2: Light the lamp (Ready for Review)\n';
    assert.deepEqual(read(t), { status: 'Ready for Review', line: 3, mapped: 'review' });
    assert.equal(read('# Story 1.2: Light the lamp\n\nStatus: Story 1.2 (Done)\n')?.mapped, 'done');
    // Brackets that are not a status are not read as one: the word stays the team's own.
    assert.equal(read('# Story 1.2: Light the lamp\n\nStatus: Drafting (see notes)\n')?.status, 'Drafting');
  });

  test('a blockquote of metadata under the title states the status (`> 状态: ready-for-dev`, `> **Status:** review`)', () => {
    assert.deepEqual(read('# Story 1.2: 点灯\n\n> 状态: ready-for-dev\n> 依赖: 无\n\n## 目标\n'), { status: 'ready-for-dev', line: 2, mapped: 'ready-for-dev' });
    assert.equal(read('# Story 1.2: Light the lamp\n\n> **Status:** review\n> **Epic:** 1\n')?.mapped, 'review');
  });

  test('a label whose value the paragraph wraps onto the next line', () => {
    const t = '# Story 1.2: Light the lamp\n\n**Epic**: Epic 1 - Lamps **Story ID**: 1.2 **Status**:\nApproved **Story Points**: 3\n\n## Story\n';
    assert.deepEqual(read(t), { status: 'Approved', line: 3, mapped: 'ready-for-dev' });
    assert.equal(read('# Story 1.2: Light the lamp\n\nStatus:\nin-progress\n')?.mapped, 'in-progress');
  });

  test('a fenced metadata block under `## Metadata` states the status', () => {
    const yaml = '# Story 1.2: Light the lamp\n\n## Metadata\n```yaml\nstory_id: 1-2-light-the-lamp\npriority: high\nstatus: in-progress\ncreated_date: 2026-02-15\n```\n\n## Story\n';
    assert.deepEqual(read(yaml), { status: 'in-progress', line: 6, mapped: 'in-progress' });
    const aligned = '# Story 1.2 — Light the lamp\n\n## Metadata\n\n```yaml\nStory      : 1-2\nStatus     : done\nPriority   : P2\n```\n';
    assert.equal(read(aligned)?.mapped, 'done');
  });

  test('an explicit `Story Status:` label further down, when nothing above states a status', () => {
    const t = `# Story 1.2: Light the lamp\n\n## Story\n\nAs a keeper…\n\n${'Some notes.\n\n'.repeat(30)}## References\n\n**Story Status:** Ready to implement\n**Estimated Duration:** 2 days\n`;
    assert.equal(read(t)?.mapped, 'ready-for-dev');
    assert.equal(read(`# Story 1.2: 点灯\n\n${'说明。\n\n'.repeat(30)}## 参考资料\n\n**Story 状态**: Done\n`)?.mapped, 'done');
    // A status stated above wins.
    assert.equal(read(`# Story 1.2: Light the lamp\n\nStatus: review\n\n${'Notes.\n\n'.repeat(30)}**Story Status:** Done\n`)?.mapped, 'review');
  });

  test('documents in the project`s document_output_language: the label and heading translated, the word BMAD sets kept (as create-story writes "ready-for-dev"), or a translated word the corpus shows', () => {
    assert.equal(read('# Story 1.2 : Allumer la lampe\n\n**Statut** : ready-for-dev\n')?.mapped, 'ready-for-dev');
    assert.equal(read('# Story 1.2: Encender la lámpara\n\n## Estado\n\nin-progress\n')?.mapped, 'in-progress');
    assert.equal(read('# Story 1.2: Зажечь лампу\n\n## Статус\n\nreview\n')?.mapped, 'review');
    assert.equal(read('# Story 1.2: 点灯\n\n> **状态**：审核中\n')?.mapped, 'review');
    assert.equal(read('# Story 1.2: 点灯\n\n## 状态: 已完成\n')?.mapped, 'done');
    assert.equal(read('# Story 1.2: 点灯\n\n| 字段 | 值 |\n|---|---|\n| 状态 | 完成 |\n')?.mapped, 'done');
  });

  test('team words a reader agrees on: deployed to production is done, mostly implemented is in progress, a future story is backlog, archived is set aside, fixed is done', () => {
    const word = (w: string) => normalizeStoryStatus(w);
    assert.equal(word('PRODUCTION DEPLOYED').suggestion, 'done');
    assert.equal(word('Deployed to production').suggestion, 'done');
    assert.equal(word('MOSTLY IMPLEMENTED').status, 'in-progress');
    assert.equal(word('Partially Implemented').status, 'in-progress');
    assert.equal(word('Future Story').status, 'backlog');
    assert.equal(word('Fixed').suggestion, 'done');
    assert.equal(setAsideStatus('ARCHIVED - duplicate of story 1.3'), 'obsolete');
    // Still unknown: a stage of the team's own (`Phase 1 completed`), a word that says how, not where.
    assert.deepEqual(word('Needs Enhancement'), { exact: false });
    assert.deepEqual(word('Phase'), { exact: false });
  });

  test('noise stays noise: a Status in a code fence elsewhere, under Acceptance Criteria, in Dev Notes quotes, or a plain Status far down', () => {
    const code = '# Story 1.2: Light the lamp\n\n## Dev Notes\n\n```yaml\nstatus: done\n```\n';
    assert.equal(read(code), undefined);
    const ac = '# Story 1.2: Light the lamp\n\n## Acceptance Criteria\n\n> Status: done\n\n1. Story Status: done is shown\n';
    assert.equal(read(ac), undefined);
    const quoted = '# Story 1.2: Light the lamp\n\n## Dev Notes\n\n> **Status:** done\n';
    assert.equal(read(quoted), undefined);
    const far = `# Story 1.2: Light the lamp\n\n## Story\n\n${'Notes.\n\n'.repeat(30)}## Notes\n\n**Status:** Ready to Start\n`;
    assert.equal(read(far), undefined);
    const wrappedSentence = '# Story 1.2: Light the lamp\n\nStatus:\n\n## Story\n';
    assert.equal(read(wrappedSentence), undefined);
  });
});

describe('ledger keys the census found skipped', () => {
  test('`epic-120-s01` is story 1 of epic 120 (epic and story each lettered, the epic spelled out); `1-3-` (a slug lost) is story 1.3', () => {
    const l = parseLedger('/p/sprint-status.yaml', 'development_status:\n  epic-120: in-progress\n  epic-120-s01: done\n  epic-120-s02: review\n  epic-1: in-progress\n  1-3-: done\n');
    const of = (k: string) => { const e = l.byKey.get(k)!; return `${e.kind} ${e.epicId}.${e.story ?? ''} ${e.status}`; };
    assert.equal(of('epic-120-s01'), 'story 120.1 done');
    assert.equal(of('epic-120-s02'), 'story 120.2 review');
    assert.equal(of('1-3-'), 'story 1.3 done');
    assert.equal(of('epic-120'), 'epic 120. in-progress');
  });
});

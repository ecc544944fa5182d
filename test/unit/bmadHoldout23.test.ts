// Real projects read right (issue 20, session 23): rules the reader learned from projects nobody
// working on it had seen, each with a fixture written here.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { isBmadProjectFolder } from '../../src/core/bmad/config';
import { normalizeStoryStatus } from '../../src/core/bmad/story';
import { loadSprint } from '../../src/core/bmad/sprint';
import { judgeStoryChange } from '../../src/core/model/bmadProposal';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { workspace } from './fileHelpers';

const CLI = path.resolve('dist/cli.js');
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout23-', waymark: false });
const ledgerOf = (rows: string[]) => ['project: ledgerly', 'development_status:', ...rows.map((r) => `  ${r}`), ''].join('\n');
const storyFile = (n: string, title: string, status: string, tasks = '- [x] Build it\n') =>
  `# Story ${n}: ${title}\n\n${status}\n\n## Story\n\nAs a user, I want ${title.toLowerCase()}, so that I get work done.\n\n## Tasks / Subtasks\n\n${tasks}`;
const NOW = new Date('2026-11-29T09:00:00Z');
const V6 = {
  '_bmad/bmm/config.yaml': 'project_name: ledgerly\nplanning_artifacts: "{project-root}/docs/planning"\nimplementation_artifacts: "{project-root}/docs/impl"\noutput_folder: "{project-root}/_bmad-output"\n',
};
const nextIn = (cwd: string) => {
  const r = spawnSync(process.execPath, [CLI, 'next', '--json'], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { next: { id: string } | null }).next?.id ?? null;
};
const sprintIn = (cwd: string) => {
  const r = spawnSync(process.execPath, [CLI, 'sprint', '--json'], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { epics: { stories: { key: string }[] }[] }).epics.flatMap((e) => e.stories.map((x) => x.key));
};

describe('a subfolder of a repository is a BMAD project of its own by the same test everywhere', () => {
  const root = {
    '.git/HEAD': 'ref: refs/heads/main\n',
    'docs/sprint-status.yaml': ledgerOf(['epic-1: in-progress', '1-1-provider-interface: done']),
    'docs/stories/1-1-provider-interface.md': storyFile('1.1', 'Provider Interface', 'Status: done'),
  };

  test('an alpha install (`svc/bmad/`) with its ledger in its own output folder: `waymark sprint` inside it reads it', () => {
    const dir = project({
      ...root,
      'svc/bmad/bmm/config.yaml': 'project_name: svc\noutput_folder: "{project-root}/out"\ndev_story_location: "{project-root}/out/stories"\n',
      'svc/out/sprint-status.yaml': ledgerOf(['epic-1: backlog', '1-1-queue-consumer: ready-for-dev']),
      'svc/out/stories/1-1-queue-consumer.md': storyFile('1.1', 'Queue Consumer', 'Status: ready-for-dev', '- [ ] Consume\n'),
      'svc/src/main.go': 'package main\n',
    });
    assert.deepEqual(sprintIn(path.join(dir, 'svc')), ['1-1-queue-consumer']);
    assert.deepEqual(sprintIn(path.join(dir, 'svc', 'src')), ['1-1-queue-consumer']);
    assert.deepEqual(sprintIn(dir), ['1-1-provider-interface']);
  });

  test('a skills install (`web/.claude/skills/bmad-*`) is a project; a plain `bmad/` source folder or a stray `docs/` is not', () => {
    const dir = project({
      ...root,
      'web/.claude/skills/bmad-dev-story/SKILL.md': '---\nname: bmad-dev-story\n---\n# Dev story\n',
      'lib/bmad/index.ts': 'export {};\n',
      'tools/docs/sprint-status.yaml': '# not a ledger: nothing listed\n',
    });
    assert.equal(isBmadProjectFolder(path.join(dir, 'web')), true);
    assert.equal(isBmadProjectFolder(path.join(dir, 'lib')), false);
    assert.equal(isBmadProjectFolder(path.join(dir, 'tools')), false);
    assert.equal(isBmadProjectFolder(dir), true);
    assert.deepEqual(sprintIn(path.join(dir, 'lib')), ['1-1-provider-interface']);
    assert.deepEqual(sprintIn(path.join(dir, 'tools', 'docs')), ['1-1-provider-interface']);
  });
});

describe('a story file that states its status twice, differently, with no ledger to settle it', () => {
  const twice = (fm: string, body: string, tasks: string) => `---\nstatus: ${fm}\nepic: 2\nstory: 7\nstory_key: "2-7-detail-page"\n---\n\n# Story 2.7: Detail Page\n\n**Status:** ${body}\n\n## Story\n\nAs a reader, I want a detail page.\n\n## Tasks / Subtasks\n\n${tasks}`;

  test('the statement further along counts (finished work is not offered again); the file is warned, with the fix that writes both', () => {
    const dir = project({
      ...V6,
      'docs/impl/2-7-detail-page.md': twice('done', 'ready-for-dev', '- [x] Build the page\n- [x] Test it\n'),
      'docs/impl/2-8-home-page.md': storyFile('2.8', 'Home Page', 'Status: ready-for-dev', '- [ ] Build it\n'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const story = r.epics.flatMap((e) => e.stories).find((x) => x.key.startsWith('2-7'))!;
    assert.equal(story.status, 'done');
    const warned = r.problems.filter((p) => p.file.endsWith('2-7-detail-page.md') && p.severity === 'warning');
    assert.deepEqual(warned.map((p) => p.code), ['story-status-drift']);
    assert.match(warned[0].message, /contradicts itself.*waymark story set-status 2-7-detail-page done/);
    assert.equal(nextIn(dir), 'story:2-8-home-page');
    // The fix makes the file agree with itself: no transition refused, both statements written.
    const fix = spawnSync(process.execPath, [CLI, 'fix', 'docs/impl/2-7-detail-page.md', 'story-status-drift'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(fix.status, 0, fix.stderr + fix.stdout);
    const after = fs.readFileSync(path.join(dir, 'docs/impl/2-7-detail-page.md'), 'utf8');
    assert.match(after, /^status: done$/m);
    assert.match(after, /^\*\*Status:\*\* done$/m);
    assert.deepEqual(judgeStoryChange(twice('done', 'ready-for-dev', '- [x] Build\n'), twice('done', 'done', '- [x] Build\n'), '2-7-detail-page.md'), []);
  });

  test('the same file agreeing with itself is clean', () => {
    const dir = project({ ...V6, 'docs/impl/2-7-detail-page.md': twice('review', 'review', '- [x] Build the page\n') });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => p.code), []);
  });
});

describe('a ledger word for work undone (`reverted`, `rolled-back`)', () => {
  test('is work set aside: `next` never offers it, whatever its file says', () => {
    const dir = project({
      ...V6,
      'docs/impl/sprint-status.yaml': ledgerOf(['epic-1: in-progress', '1-5-irc-match: done', '1-6-structure-reject: reverted  # scope cut: the gate was removed', '1-7-parse-budget: rolled-back', '1-8-export-csv: ready-for-dev']),
      'docs/impl/1-5-irc-match.md': storyFile('1.5', 'IRC Match', 'Status: done'),
      'docs/impl/1-6-structure-reject.md': storyFile('1.6', 'Structure Reject', 'Status: done'),
      'docs/impl/1-7-parse-budget.md': storyFile('1.7', 'Parse Budget', 'Status: review'),
      'docs/impl/1-8-export-csv.md': storyFile('1.8', 'Export CSV', 'Status: ready-for-dev', '- [ ] Export\n'),
    });
    assert.equal(nextIn(dir), 'story:1-8-export-csv');
  });
});

describe('a v4 story (`4.1.story.md`) with a note of the same number that states a status of its own (`4.1-validation-checklist.md`)', () => {
  test('the file named as v4 names a story is the story; the note is reported as another file, not read as story 4.1', () => {
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/4.1.story.md': '# Story 4.1: Job Submission Form\n\n## Status\n\nReview\n\n## Tasks / Subtasks\n\n- [x] Build the form\n',
      'docs/stories/4.1-validation-checklist.md': '# Story 4.1: Job Submission Form - Validation Checklist\n\n**Story**: Job Submission Form\n**Status**: Pending Implementation\n\n- [x] ACs testable\n',
      'docs/stories/4.2.story.md': '# Story 4.2: Job List\n\n## Status\n\nDraft\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const s41 = r.epics.flatMap((e) => e.stories).filter((x) => x.epicId === '4' && x.story === '1');
    assert.deepEqual(s41.map((x) => [x.file?.replace(/^.*\//, ''), x.status]), [['4.1.story.md', 'review']]);
    assert.deepEqual(r.problems.filter((p) => p.file.endsWith('checklist.md')).map((p) => `${p.severity} ${p.code} ${p.message}`), ['info story-file-duplicate Story 4-1-story has another file, docs/stories/4.1.story.md, which Waymark reads. Merge or rename this one if it is the same story.']);
  });
});

describe('a QA gate file written as a Markdown report under its `.yml` name', () => {
  const report = (verdict: string) => `# Quality Gate: Story 3.7.1 - Unified Schema\n\n## Gate Decision: ${verdict}\n\n**Date:** 2026-01-12\n**Reviewer:** Quinn (Test Architect)\n\n---\n\n## History\n\nPrevious gate: FAIL (2026-01-10)\n`;

  test('reads its verdict from the report\'s gate line, not from a line that mentions a gate in passing', () => {
    assert.equal(parseQaGate('docs/qa/gates/3.7.1-unified-schema.yml', report('PASS'), NOW).verdict, 'PASS');
    assert.equal(parseQaGate('docs/qa/gates/3.7.1-unified-schema.yml', report('✅ CONCERNS'), NOW).verdict, 'CONCERNS');
    assert.equal(parseQaGate('docs/qa/gates/3.7.1-unified-schema.yml', '**Gate:** FAIL\n\nSee notes.\n', NOW).verdict, 'FAIL');
    assert.equal(parseQaGate('docs/qa/gates/x.yml', '# Notes\n\n**Date:** 2026-01-12\n\nPrevious gate: FAIL\n', NOW).verdict, undefined);
  });

  test('a done story with such a gate (PASS) is not warned', () => {
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n',
      'docs/stories/3.7.1.story.md': '# Story 3.7.1: Unified Schema\n\n## Status\n\nDone\n\n## Tasks / Subtasks\n\n- [x] Refactor\n',
      'docs/qa/gates/3.7.1-unified-schema.yml': report('PASS'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => `${p.code} ${p.message}`), []);
  });
});

describe('a story ready for what comes after review (`PRODUCTION READY`, `Ready for Production`)', () => {
  test('is read as done (a word of its own, with a note), not an unknown status', () => {
    for (const w of ['PRODUCTION READY', 'Production-Ready', 'Ready for Production', 'Ready to Ship', 'Ready for Release']) assert.deepEqual(normalizeStoryStatus(w), { exact: false, suggestion: 'done' }, w);
    assert.equal(normalizeStoryStatus('Ready for Testing').status, 'review');
    assert.equal(normalizeStoryStatus('Ready for Development').status, 'ready-for-dev');
  });
});

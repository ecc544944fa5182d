// Session 32, investigator c (issue 20): the sprint plan ledger of the BMAD skills add-on for Claude
// Code (`sprints:` lists of stories, each `STORY-NNN` with its status, at `.bmad/sprint-status.yaml`
// or `docs/sprint-status.yaml`), read as the project's ledger. Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI set to an older build's dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
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
const story = (n: string, title: string, status: string) => `# STORY-${n}: ${title}\n\n**Epic:** EPIC-001\n**Status:** ${status}\n**Sprint:** 1\n\n## User Story\n\nAs a gardener,\nI want ${title.toLowerCase()},\nSo that the beds get watered.\n\n## Acceptance Criteria\n\n- [ ] It works\n`;
type S = { key: string; ledgerStatus?: string; status: string; fileStatus?: string; problems: { code: string }[] };
const stories = (d: { epics: { stories: S[] }[] }) => d.epics.flatMap((e) => e.stories);

test('a `sprints:` ledger at .bmad/sprint-status.yaml, stories as `- story_id:` mappings with their status, is the project\'s ledger', () => {
  inProject({
    'bmad/config.yaml': 'project_name: "beds"\noutput_folder: "docs"\n',
    '.bmad/sprint-status.yaml': [
      'version: "6.0.0"', 'project_name: "beds"', 'current_sprint: 2', '', 'sprints:',
      '  - sprint_number: 1', '    status: "completed"', '    stories:',
      '      - story_id: "STORY-001"', '        title: "Valve driver"', '        points: 3', '        status: "completed"',
      '      - story_id: "STORY-002"', '        title: "Soil probe"', '        points: 5', '        status: "blocked"', '        notes: "moved on"',
      '  - sprint_number: 2', '    status: "in_progress"', '    stories:',
      '      - story_id: "STORY-002"', '        title: "Soil probe"', '        status: "in_progress"',
      '      - story_id: "STORY-003"', '        title: "Schedule view"', '        status: "not_started"',
      '', 'velocity:', '  sprint_1: 3', '',
    ].join('\n'),
    'docs/stories/STORY-001.md': story('001', 'Valve driver', 'Done'),
    'docs/stories/STORY-002.md': story('002', 'Soil probe', 'In Progress'),
    'docs/stories/STORY-003.md': story('003', 'Schedule view', 'Done'),
  }, (root) => {
    const d = json(root, 'sprint');
    assert.equal(path.basename(d.ledger ?? ''), 'sprint-status.yaml');
    // STORY-002 carried into sprint 2: read where it is listed last.
    assert.deepEqual(stories(d).map((s) => [s.key, s.ledgerStatus, s.status]), [['STORY-001', 'done', 'done'], ['STORY-002', 'in-progress', 'in-progress'], ['STORY-003', 'backlog', 'backlog']]);
    // The file says done, the ledger not started: drift, on that story only.
    assert.deepEqual(stories(d).map((s) => s.problems.some((p) => p.code === 'story-status-drift')), [false, false, true]);
    assert.ok(!d.problems.some((p: { code: string }) => p.code === 'ledger-other-format'));
    // next never offers the finished story.
    const n = JSON.stringify(json(root, 'next'));
    assert.ok(!n.includes('story:STORY-001'), n);
  });
});

test('flow items (`- { id: "STORY-001", …, status: "done" }`) and id lists with a `stories:` list describing them are read the same way; a status change rewrites that value only', () => {
  inProject({
    'bmad/config.yaml': 'project_name: "beds"\noutput_folder: "docs"\n',
    'docs/sprint-status.yaml': [
      'project_name: beds', "last_updated: '2026-02-01'", 'sprints:',
      '  - sprint_number: 1', '    stories:', '      - { id: "STORY-001", title: "Valve driver", points: 3, status: "done" }', '      - { id: "STORY-002", title: "Soil probe", points: 5, status: "ready-for-dev" }',
      '  - sprint_number: 2', '    stories:', '      - STORY-003', '      - STORY-004',
      'stories:', '  - id: STORY-003', "    name: 'Schedule view'", '    sprint: 2', '    status: in_progress', '  - id: STORY-004', '    sprint: 2', '    status: not_started', '',
    ].join('\n'),
    'docs/stories/STORY-001.md': story('001', 'Valve driver', 'Done'),
    'docs/stories/STORY-002.md': story('002', 'Soil probe', 'Ready for dev'),
    'docs/stories/STORY-003.md': story('003', 'Schedule view', 'In Progress'),
    'docs/stories/STORY-004.md': story('004', 'Rain delay', 'Not Started'),
  }, (root) => {
    // (A repository, as the add-on's projects are: its root is the workspace's.)
    spawnSync('git', ['init', '-q'], { cwd: root });
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).map((s) => [s.key, s.ledgerStatus]), [['STORY-001', 'done'], ['STORY-002', 'ready-for-dev'], ['STORY-003', 'in-progress'], ['STORY-004', 'backlog']]);
    assert.ok(stories(d).every((s) => !s.problems.some((p) => p.code === 'story-status-drift')));
    const w = cli(root, 'story', 'set-status', 'STORY-002', 'in-progress');
    assert.equal(w.status, 0, w.stderr + w.stdout);
    const text = fs.readFileSync(path.join(root, 'docs/sprint-status.yaml'), 'utf8');
    assert.ok(text.includes('      - { id: "STORY-002", title: "Soil probe", points: 5, status: "in-progress" }'), text);
    assert.ok(text.includes('      - { id: "STORY-001", title: "Valve driver", points: 3, status: "done" }'));
  });
});

test('a project with only the add-on\'s ledger at .bmad/sprint-status.yaml (no install in git) is a BMAD project', () => {
  inProject({
    '.bmad/sprint-status.yaml': 'version: "6.0.0"\nsprints:\n  - sprint_number: 1\n    stories:\n      - story_id: "STORY-001"\n        status: "done"\n      - story_id: "STORY-002"\n        status: "not_started"\n',
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).map((s) => [s.key, s.ledgerStatus]), [['STORY-001', 'done'], ['STORY-002', 'backlog']]);
  });
});

test('a `sprints:` ledger naming stories by epic and number (`STORY-1.1`) writes no epic entries: no warning asks for them', () => {
  // The lead, after the merge: c5_SNN-like ledgers raised one ledger-epic-missing warning per epic,
  // though the add-on's format has no place for epic entries.
  inProject({
    'bmad/config.yaml': 'project_name: "beds"\noutput_folder: "docs"\n',
    '.bmad/sprint-status.yaml': [
      'project_name: "beds"', 'sprints:', '  - sprint_number: 1', '    stories:',
      '      - story_id: "STORY-1.1"', '        status: "completed"',
      '      - story_id: "STORY-2.1"', '        status: "not_started"', '',
    ].join('\n'),
    'docs/stories/STORY-1.1.md': story('1.1', 'Valve driver', 'Done'),
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(stories(d).map((s) => [s.key, s.ledgerStatus]), [['STORY-1.1', 'done'], ['STORY-2.1', 'backlog']]);
    const v = json(root, 'validate');
    const codes = JSON.stringify([...d.problems, ...v.problems].map((p: { code: string }) => p.code));
    assert.ok(!codes.includes('ledger-epic-missing'), codes);
  });
});

// Session 37, held-out batch (issue 20): documentation whose frontmatter names one of BMAD's
// modules (`module: bmm`) beside its own `workflow:` and `status:` words. Fixtures written here.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s37/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

type Problem = { file: string; severity: string; code: string };

const guide = (id: string) =>
  `---\n# context block for the team's agents\nid: ${id}\ntype: guide\nagents:\n  - developer\nphase: any\nworkflow: greenfield\nmodule: bmm\nstatus: stable\nupdated: 2026-01-04\n---\n# ${id}\n\nHow the lamp house is kept.\n`;

test('a guide naming a BMAD module (module: bmm) with its own workflow and status words is BMAD\'s document: no error-level problem, never offered by next', () => {
  inProject({
    'docs/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-wick-trimming: done\n  1-2-oil-levels: ready-for-dev\n',
    'docs/stories/1-1-wick-trimming.md': '# Story 1.1: Wick trimming\n\nStatus: done\n\n## Story\n\nAs a keeper, I want trimmed wicks, so that the flame is steady.\n\n## Tasks\n\n- [x] Trim\n',
    'docs/stories/1-2-oil-levels.md': '# Story 1.2: Oil levels\n\nStatus: ready-for-dev\n\n## Story\n\nAs a keeper, I want oil levels, so that no lamp runs dry.\n\n## Tasks\n\n- [ ] Read the gauge\n',
    'docs/guide/keeping.md': guide('keeping'),
    'docs/guide/lighting.md': guide('lighting'),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    const errors = v.problems.filter((p) => p.severity === 'error');
    assert.deepEqual(errors, [], JSON.stringify(errors));
    const n = JSON.stringify(json(root, 'next'));
    assert.ok(!/docs\/guide\//.test(n), n);
  });
});

test('a Waymark workflow with a `module:` key that is no BMAD module is still judged as Waymark\'s', () => {
  inProject({
    'work/build.md': '---\nworkflow: build\nmodule: payments\nstatus: stable\nsteps: [plan, ship]\nstepsCompleted: []\n---\n# Build\n',
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.ok(v.problems.some((p) => p.file === 'work/build.md' && p.code === 'unknown-status' && p.severity === 'error'), JSON.stringify(v.problems));
  });
});

type Listed = { key: string; file: string | null };
const listed = (s: { epics: { stories: Listed[] }[] }): Listed[] => s.epics.flatMap((e) => e.stories);

test('a folder kept as an old copy or a backup (docs_old3/, _backups/, sprint-backup/, old_2025/) holds no live ledger or stories', () => {
  const old = (n: number) => `development_status:\n  epic-${n}: in-progress\n  ${n}-1-old-wicks: in-progress\n`;
  const story = (n: number) => `# Story ${n}.1: Old wicks\n\nStatus: in-progress\n\n## Story\n\nAs a keeper, I want old wicks, so that nothing.\n`;
  inProject({
    'docs/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-wick-trimming: done\n',
    'docs/stories/1-1-wick-trimming.md': '# Story 1.1: Wick trimming\n\nStatus: done\n\n## Story\n\nAs a keeper, I want trimmed wicks, so that the flame is steady.\n',
    'docs_old3/sprint-status.yaml': old(7),
    'docs_old3/stories/7-1-old-wicks.md': story(7),
    '_backups/2025-11/sprint-status.yaml': old(8),
    '_backups/2025-11/stories/8-1-old-wicks.md': story(8),
    'docs/_backups/2025-12/work/stories/sprint-status.yaml': old(9),
    'docs/_backups/2025-12/work/stories/9-1-old-wicks.md': story(9),
    'docs/sprint-backup/sprint-status.yaml': old(6),
    'docs/sprint-backup/6-1-old-wicks.md': story(6),
    'old_2025/sprint-status.yaml': old(5),
    'old_2025/5-1-old-wicks.md': story(5),
  }, (root) => {
    const keys = listed(json(root, 'sprint')).map((s) => s.key).sort();
    assert.deepEqual(keys, ['1-1-wick-trimming'], JSON.stringify(keys));
  });
});

test('a live folder whose name only begins with such a word (old-town-app/, backup-service/) is read as before', () => {
  inProject({
    'backup-service/docs/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-snapshot-schedule: done\n',
    'backup-service/docs/stories/1-1-snapshot-schedule.md': '# Story 1.1: Snapshot schedule\n\nStatus: done\n\n## Story\n\nAs an operator, I want schedules, so that snapshots run.\n',
  }, (root) => {
    const keys = listed(json(root, 'sprint')).map((s) => s.key);
    assert.deepEqual(keys, ['1-1-snapshot-schedule'], JSON.stringify(keys));
  });
});

test('a document routed to every workflow (`workflow: any`, no step key) is no workflow: its own status word is no error, and next never offers it', () => {
  inProject({
    'docs/reference/context.md': '---\nid: context\ntype: reference\nworkflow: any\nmodule: any\nstatus: stable\nversion: 0.4\n---\n# Context\n\nWhat every agent reads first.\n',
    'work/build.md': '---\nworkflow: build\nstatus: stable\n---\n# Build\n',
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.deepEqual(v.problems.filter((p) => p.file === 'docs/reference/context.md' && p.severity === 'error'), [], JSON.stringify(v.problems));
    // A workflow with a real id keeps its status checked.
    assert.ok(v.problems.some((p) => p.file === 'work/build.md' && p.code === 'unknown-status' && p.severity === 'error'), JSON.stringify(v.problems));
    const n = JSON.stringify(json(root, 'next'));
    assert.ok(!/docs\/reference\/context\.md/.test(n), n);
  });
});

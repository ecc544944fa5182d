// Session 37, held-out batch (issue 20): documentation whose frontmatter names one of BMAD's
// modules (`module: bmm`) beside its own `workflow:` and `status:` words. Fixtures written here.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s37/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json, quickSpecInstall } from './holdoutHelpers';

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

test('a folder kept as an old copy or a backup (docs_old3/, _backups/, backup-2025-10/, old_2025/) holds no live ledger or stories', () => {
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
    'docs/backup-2025-10/sprint-status.yaml': old(6),
    'docs/backup-2025-10/6-1-old-wicks.md': story(6),
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


test('a quick-flow tech spec tied to an epic (`epic: 3`) whose ledger marks that epic done is finished work: next never offers it; an open epic\'s spec still is', () => {
  const spec = (epic: number, slug: string) => `---\ntitle: 'Epic ${epic}: ${slug}'\nslug: '${slug}'\nepic: ${epic}\ncreated: '2026-03-01'\nstatus: 'ready-for-dev'\nstepsCompleted: [1, 2, 3, 4]\n---\n# Tech-Spec: ${slug}\n\n## Overview\n\nWhat changes.\n`;
  inProject({
    ...quickSpecInstall,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-3: done\n  3-1-wick-rework: done\n  epic-3-retrospective: done\n  epic-4: in-progress\n  4-1-oil-gauge: in-progress\n',
    '_bmad-output/implementation-artifacts/3-1-wick-rework.md': '# Story 3.1: Wick rework\n\nStatus: done\n\n## Story\n\nAs a keeper, I want new wicks, so that lamps burn longer.\n\n## Tasks\n\n- [x] Rework\n',
    '_bmad-output/implementation-artifacts/4-1-oil-gauge.md': '# Story 4.1: Oil gauge\n\nStatus: in-progress\n\n## Story\n\nAs a keeper, I want a gauge, so that I see the oil.\n\n## Tasks\n\n- [ ] Gauge\n',
    '_bmad-output/implementation-artifacts/tech-spec-wick-rework.md': spec(3, 'wick-rework'),
    '_bmad-output/implementation-artifacts/tech-spec-oil-gauge.md': spec(4, 'oil-gauge'),
  }, (root) => {
    const n = json(root, 'next') as { ready: { file: string | null }[]; next: { file: string | null } | null };
    const files = [n.next?.file, ...n.ready.map((r) => r.file)];
    assert.ok(!files.includes('_bmad-output/implementation-artifacts/tech-spec-wick-rework.md'), JSON.stringify(files));
    assert.ok(files.includes('_bmad-output/implementation-artifacts/tech-spec-oil-gauge.md'), JSON.stringify(n));
  });
});

test('a spec BMAD\'s quick-spec set aside under a dated archived name (tech-spec-x-archived-2026-04-12.md) is never offered or warned as stalled; a story about archiving is work', () => {
  const spec = (slug: string) => `---\ntitle: '${slug}'\nslug: '${slug}'\ncreated: '2025-03-01'\nstatus: 'in-progress'\nstepsCompleted: [1, 2]\n---\n# Tech-Spec: ${slug}\n`;
  inProject({
    ...quickSpecInstall,
    '_bmad-output/implementation-artifacts/tech-spec-slime-archived-2026-04-12.md': spec('slime'),
    '_bmad-output/implementation-artifacts/tech-spec-show-archived.md': spec('show-archived'),
  }, (root) => {
    const b = (json(root, 'board') as { columns: Record<string, unknown> }).columns;
    const columnOf = (name: string): string | undefined => {
      for (const [col, list] of Object.entries(b)) if (Array.isArray(list) && list.some((it) => JSON.stringify(it).includes(name))) return col;
      return undefined;
    };
    assert.equal(columnOf('tech-spec-slime-archived-2026-04-12.md'), 'dropped', JSON.stringify(b));
    assert.notEqual(columnOf('tech-spec-show-archived.md'), 'dropped', JSON.stringify(b));
    assert.ok(!/slime-archived/.test(JSON.stringify(json(root, 'next'))));
  });
});

test('a story file named with a doubled dot before its extension (story-2.2..md) is listed as the story its name numbers', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/story-2.1.md': '# Story 2.1: Wicks\n\n## Status\n\nDone\n\n## Story\n\nAs a keeper, I want wicks, so that lamps burn.\n',
    'docs/stories/story-2.2..md': '# Story 2.2: Oil\n\n## Status\n\nDraft\n\n## Story\n\nAs a keeper, I want oil, so that lamps burn.\n',
  }, (root) => {
    const files = listed(json(root, 'sprint')).map((s) => s.file).sort();
    assert.deepEqual(files, ['docs/stories/story-2.1.md', 'docs/stories/story-2.2..md'], JSON.stringify(files));
  });
});

// Real projects read right (issue 20, session 22): rules the reader learned from projects nobody
// working on it had seen, each with a fixture written here.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseLedger } from '../../src/core/bmad/ledger';
import { bmadStatusOf, resolveBmadStep } from '../../src/core/bmad/artifacts';
import { workspace } from './fileHelpers';

const CLI = path.resolve('dist/cli.js');
const cli = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args, '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
const NOW = new Date('2026-11-29T09:00:00Z');
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout22-', waymark: false });
const ledgerOf = (rows: string[]) => ['project: ledgerly', 'development_status:', ...rows.map((r) => `  ${r}`), ''].join('\n');
const storyFile = (n: string, title: string, status: string, tasks = '- [x] Build it\n') =>
  `# Story ${n}: ${title}\n\n${status}\n\n## Story\n\nAs a user, I want ${title.toLowerCase()}, so that I get work done.\n\n## Tasks / Subtasks\n\n${tasks}`;
const V6 = {
  '_bmad/bmm/config.yaml': 'project_name: ledgerly\nplanning_artifacts: "{project-root}/docs/planning"\nimplementation_artifacts: "{project-root}/docs/impl"\noutput_folder: "{project-root}/_bmad-output"\n',
};

describe('an item of a lettered epic numbered with letters of its own (`e1-dt1-…`: dev task 1 of epic e1)', () => {
  const files = {
    ...V6,
    'docs/impl/sprint-status.yaml': ledgerOf([
      'epic-e1: in-progress', 'e1-dt1-project-scaffold: done', 'e1-s2-locale-runtime: done', 'e1-dt2-design-primitives: backlog', 'epic-e1-retrospective: optional',
      'epic-ep2: backlog', 'ep2-s1-booking-flow: backlog', 'ep2-spk1-calendar-spike: backlog',
    ]),
    'docs/impl/e1-dt1-project-scaffold.md': storyFile('e1-dt1', 'Project Scaffold', 'Status: done'),
    'docs/impl/e1-s2-locale-runtime.md': storyFile('e1.2', 'Locale Runtime', 'Status: done'),
  };

  test('is a story of that epic: no unknown key, its file is its story file', () => {
    const r = loadSprint(project(files), { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => `${p.code} ${p.message}`), []);
    assert.deepEqual(r.epics.map((e) => [e.id, e.stories.map((s) => s.key)]), [
      ['1', ['e1-s2-locale-runtime', 'e1-dt1-project-scaffold', 'e1-dt2-design-primitives']],
      ['2', ['ep2-s1-booking-flow', 'ep2-spk1-calendar-spike']],
    ]);
    const dt1 = r.stories.find((s) => s.key === 'e1-dt1-project-scaffold')!;
    assert.equal(dt1.status, 'done');
    assert.ok(dt1.file?.endsWith('e1-dt1-project-scaffold.md'), `file ${dt1.file}`);
  });
});

describe('a planning document\'s own lifecycle word (`status: revised`, `published`, `on-hold`)', () => {
  test('is read as a document status, not "unknown status … did you mean review"', () => {
    assert.equal(bmadStatusOf('revised'), 'completed');
    assert.equal(bmadStatusOf('Published'), 'completed');
    assert.equal(bmadStatusOf('needs-revision'), 'in_progress');
    assert.equal(bmadStatusOf('on hold'), 'blocked');
    assert.equal(bmadStatusOf('rejected'), 'archived');
    // Not every word is a status: an unknown one still is unknown.
    assert.equal(bmadStatusOf('banana'), undefined);
    const doc = (status: string) => `---\nworkflowType: "epics-and-stories"\nstatus: "${status}"\nrevisedAt: "2026-04-07"\ninputDocuments:\n  - docs/planning/prd.md\n---\n\n# Epics\n`;
    const dir = project({ ...V6, 'docs/planning/epics.md': doc('revised'), 'docs/planning/ux.md': doc('on-hold'), 'docs/planning/old-prd.md': doc('rejected') });
    const v = cli(dir, 'validate', '.');
    const problems = (JSON.parse(v.stdout) as { problems: { file: string; code: string; severity: string }[] }).problems.filter((p) => p.severity !== 'info');
    assert.deepEqual(problems.map((p) => `${p.file} ${p.code}`), []);
  });
});

describe('a step recorded by its name without the `step-NN-` of its file (`document-discovery`)', () => {
  const steps = ['step-01-document-discovery', 'step-02-prd-analysis', 'step-03-epic-coverage-validation', 'step-04-ux-alignment', 'step-05-final-assessment', 'step-05b-final-assessment'].map((id) => ({ id }));
  test('is that step, when one step has that name', () => {
    assert.equal(resolveBmadStep('document-discovery', steps), 'step-01-document-discovery');
    assert.equal(resolveBmadStep('Epic Coverage Validation', steps), 'step-03-epic-coverage-validation');
    assert.equal(resolveBmadStep('ux_alignment', steps), 'step-04-ux-alignment');
    // Two steps of that name: Waymark does not guess.
    assert.equal(resolveBmadStep('final-assessment', steps), undefined);
    assert.equal(resolveBmadStep('discovery', steps), undefined);
  });
});

describe('an epic keyed by a scope of the project\'s own and its lettered id (`m37-e1` above `1-1-…`)', () => {
  test('is epic 1 of that ledger, its retrospective read; no key skipped', () => {
    const dir = project({
      ...V6,
      'docs/impl/m37/sprint-status.yaml': ledgerOf([
        'm37-e1: in-progress', '1-1-evolve-contract: done', '1-2-author-ports: review', 'm37-e1-retrospective: optional',
        'm37-e2: backlog', '2-1-attach-evidence: backlog', 'm37-e2-retrospective: optional',
      ]),
      'docs/impl/m37/1-1-evolve-contract.md': storyFile('1.1', 'Evolve Contract', 'Status: done'),
      'docs/impl/m37/1-2-author-ports.md': storyFile('1.2', 'Author Ports', 'Status: review'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => `${p.code} ${p.message}`), []);
    assert.deepEqual(r.epics.map((e) => [e.id, e.ledgerStatus, e.retrospective ?? null, e.stories.map((s) => s.key)]), [
      ['1', 'in-progress', 'optional', ['1-1-evolve-contract', '1-2-author-ports']],
      ['2', 'backlog', 'optional', ['2-1-attach-evidence']],
    ]);
  });
});

describe('entries indented one space deeper than the block\'s (`   2-11-slug: ready-for-dev` after `  2-10-slug: …`)', () => {
  const text = ['development_status:', '  epic-2: in-progress', '  2-10-merge-checkpoint: ready-for-dev', '   2-11-auto-next-issue: ready-for-dev', '   2-12-provider-selection: backlog', '   epic-2-retrospective: optional', '  epic-3: backlog', '  3-1-audit:', '    status: done', ''].join('\n');
  test('are entries of the block, as the user meant; the ledger is reported as not YAML', () => {
    const l = parseLedger('/p/sprint-status.yaml', text);
    assert.deepEqual(l.entries.map((e) => [e.key, e.status]), [
      ['epic-2', 'in-progress'], ['2-10-merge-checkpoint', 'ready-for-dev'], ['2-11-auto-next-issue', 'ready-for-dev'], ['2-12-provider-selection', 'backlog'],
      ['epic-2-retrospective', 'optional'], ['epic-3', 'backlog'], ['3-1-audit', 'done'],
    ]);
    assert.equal(l.problems.filter((p) => p.code === 'ledger-yaml' && p.severity === 'error').length, 1, JSON.stringify(l.problems));
  });
});

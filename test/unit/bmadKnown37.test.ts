// Session 37, known37: leftovers of earlier sessions' real projects, each with a fixture written here
// (no copied text). Each test failed before its rule: run it with WAYMARK_CLI=/work/scratch/base-s37/dist/cli.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inProject } from './fileHelpers';
import { runCli as cli, cliJson as json } from './holdoutHelpers';

type S = { key: string; ledgerStatus?: string | null; status: string; file?: string | null };
type Sprint = { root?: string; ledgers?: string[]; epics: { stories: S[] }[]; projects?: Sprint[] };
const stories = (d: Sprint): S[] => [...d.epics.flatMap((e) => e.stories), ...(d.projects ?? []).flatMap(stories)];
type P = { code: string; severity: string; file: string; message: string };

const IA = '_bmad-output/implementation-artifacts';
const config = (name: string) => `project_name: ${name}\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/${IA}"\n`;
const ledger = (entries: string[]) => ['generated: 2026-11-20', '', 'development_status:', ...entries.map((e) => `  ${e}`), ''].join('\n');
const body = (title: string, tasks: string) => `# ${title}\n\n## Story\n\nAs a keeper, I want ${title.toLowerCase()}, so that the orchard thrives.\n\n## Acceptance Criteria\n\n1. It works.\n\n## Tasks / Subtasks\n\n${tasks}\n`;
const story = (n: string, title: string, status: string) => `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a keeper, I want ${title.toLowerCase()}, so that the orchard thrives.\n\n## Acceptance Criteria\n\n1. It works.\n\n## Tasks / Subtasks\n\n- [x] Do it\n`;

test('a story named only by a frontmatter `id:` (no number in its file name) is listed under that id and bound to the ledger key it names', () => {
  inProject({
    '_bmad/bmm/config.yaml': config('orchard'),
    [`${IA}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-plant-rows: done', 'GRAFT-E-01: review', 'GRAFT-E-02: in-progress']),
    [`${IA}/1-1-plant-rows.md`]: story('1.1', 'Plant rows', 'done'),
    // Only `id:` names it: the ledger's GRAFT-E-01, bound to this file, drift between the two.
    [`${IA}/graft-scions.md`]: `---\nid: GRAFT-E-01\ntitle: Graft scions\nstatus: in-progress\n---\n\n${body('Story: Graft scions', '- [x] Cut\n- [ ] Bind')}`,
    [`${IA}/seal-grafts.md`]: `---\nid: graft-e-02\nstatus: in-progress\n---\n\n${body('Seal grafts', '- [ ] Seal')}`,
    // An `id:` on a record that is no story (a decision log): not a story.
    [`${IA}/decision-log.md`]: '---\nid: ADR-12\nstatus: accepted\n---\n\n# Decision: use wax\n\nWe use wax.\n',
  }, (root) => {
    const d = json(root, 'sprint') as Sprint;
    const by = new Map(stories(d).map((s) => [s.key.toLowerCase(), s]));
    assert.equal(by.get('graft-e-01')?.file, `${IA}/graft-scions.md`, JSON.stringify([...by.values()]));
    assert.equal(by.get('graft-e-02')?.file, `${IA}/seal-grafts.md`, JSON.stringify([...by.values()]));
    assert.ok(!by.has('adr-12'), 'a decision record is no story');
    assert.equal(stories(d).length, 3, JSON.stringify([...by.keys()]));
    const v = json(root, 'validate').problems as P[];
    assert.ok(v.some((p) => p.code === 'story-status-drift' && p.file.endsWith('graft-scions.md')), JSON.stringify(v));
    assert.ok(!v.some((p) => p.code === 'ledger-story-no-file'), JSON.stringify(v));
    // (read, not skipped: at most the info that BMAD's own workflows may not read such keys)
    assert.ok(!v.some((p) => p.code === 'ledger-unknown-key' && p.severity !== 'info'), JSON.stringify(v));
  });
});

test('two sibling apps in one repository, each with its own ledger and stories: `sprint` from the root lists both, each story bound to its own app\'s ledger; drift never crosses apps', () => {
  const app = (name: string) => `apps/${name}/${IA}`;
  inProject({
    'package.json': '{"name":"orchard-mono","private":true}\n',
    'apps/pear/_bmad/bmm/config.yaml': config('pear'),
    'apps/plum/_bmad/bmm/config.yaml': config('plum'),
    // Both number from epic 1 with stories 1.1: neither may bind the other's file.
    [`${app('pear')}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-pear-pick: done', '1-2-pear-press: in-progress']),
    [`${app('pear')}/1-1-pear-pick.md`]: story('1.1', 'Pear pick', 'done'),
    [`${app('pear')}/1-2-pear-press.md`]: story('1.2', 'Pear press', 'in-progress'),
    [`${app('plum')}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-plum-dry: review', '1-2-plum-jam: ready-for-dev']),
    [`${app('plum')}/1-1-plum-dry.md`]: story('1.1', 'Plum dry', 'done'),
    [`${app('plum')}/1-2-plum-jam.md`]: story('1.2', 'Plum jam', 'ready-for-dev'),
    [`${app('plum')}/1-3-plum-wine.md`]: story('1.3', 'Plum wine', 'ready-for-dev'),
  }, (root) => {
    const d = json(root, 'sprint') as Sprint;
    const by = new Map(stories(d).map((s) => [s.key, s]));
    assert.deepEqual([...by.keys()].sort(), ['1-1-pear-pick', '1-1-plum-dry', '1-2-pear-press', '1-2-plum-jam', '1-3-plum-wine'], JSON.stringify(d));
    for (const [key, s] of by) assert.equal(s.file, `${app(key.includes('pear') ? 'pear' : 'plum')}/${key}.md`, key);
    assert.equal(by.get('1-1-plum-dry')?.ledgerStatus, 'review');
    assert.equal(by.get('1-3-plum-wine')?.ledgerStatus ?? null, null, 'plum\'s ledger lacks 1.3');
    assert.deepEqual(d.projects?.map((p) => p.ledgers), [[`${app('plum')}/sprint-status.yaml`]]);
    const text = cli(root, 'sprint').stdout;
    assert.match(text, /1-3-plum-wine/, text);
    const v = json(root, 'validate').problems as P[];
    // The one drift is plum's 1.1 (done in its file, review in plum's ledger); pear's 1.1 is clean.
    const drift = v.filter((p) => p.code === 'story-status-drift' && p.severity !== 'info');
    assert.ok(drift.every((p) => p.file.startsWith('apps/plum/')), JSON.stringify(drift));
    assert.ok(!v.some((p) => p.file.startsWith('apps/pear/') && p.severity !== 'info'), JSON.stringify(v));
    const missing = v.filter((p) => p.code === 'story-not-in-ledger');
    assert.deepEqual(missing.map((p) => p.file), [`${app('plum')}/1-3-plum-wine.md`]);
    assert.match(missing[0].message, /plum|apps\/plum/, 'names plum\'s ledger');
  });
});

test('`waymark fix` of ledger drift names the ledger file it edits; a story missing from a sibling app\'s ledger names that ledger', () => {
  const app = (name: string) => `apps/${name}/${IA}`;
  inProject({
    'apps/pear/_bmad/bmm/config.yaml': config('pear'),
    'apps/plum/_bmad/bmm/config.yaml': config('plum'),
    [`${app('pear')}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-pear-pick: in-progress']),
    [`${app('pear')}/1-1-pear-pick.md`]: story('1.1', 'Pear pick', 'in-progress'),
    // plum's epic is done while a story is not: the fix sets the epic back in plum's ledger.
    [`${app('plum')}/sprint-status.yaml`]: ledger(['epic-1: done', '1-1-plum-dry: done', '1-2-plum-jam: in-progress']),
    [`${app('plum')}/1-1-plum-dry.md`]: story('1.1', 'Plum dry', 'done'),
    [`${app('plum')}/1-2-plum-jam.md`]: story('1.2', 'Plum jam', 'in-progress'),
    [`${app('plum')}/stories/1-3-plum-wine.md`]: story('1.3', 'Plum wine', 'ready-for-dev'),
  }, (root) => {
    const plumLedger = `${app('plum')}/sprint-status.yaml`;
    const missing = (json(root, 'validate').problems as P[]).find((p) => p.code === 'story-not-in-ledger');
    assert.ok(missing, 'plum\'s 1.3 is missing from its ledger');
    assert.match(missing.message, /no entry in \.\.\/sprint-status\.yaml\b/, missing.message);
    const r = cli(root, 'fix', plumLedger, 'epic-done-stories-open');
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.match(r.stdout, new RegExp(`Set epic-1 to in-progress in ${plumLedger.replace(/[.]/g, '\\.')}`), r.stdout);
    assert.match(fs.readFileSync(path.join(root, plumLedger), 'utf8'), /epic-1: in-progress/);
    assert.match(fs.readFileSync(path.join(root, app('pear'), 'sprint-status.yaml'), 'utf8'), /epic-1: in-progress/);
  });
});

test('a sharded PRD (`prd/` with its index.md) inside the story folder and spec-kit `specs/<id>/` folders are planning, never stories or unknown files', () => {
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: orchard\noutput_folder: "{project-root}/docs"\nimplementation_artifacts: "{project-root}/docs"\nplanning_artifacts: "{project-root}/docs"\n',
    'docs/sprint-status.yaml': ledger(['epic-1: in-progress', '1-1-plant-rows: done', 'epic-2: backlog', '2-1-press-cider: backlog']),
    'docs/1-1-plant-rows.md': story('1.1', 'Plant rows', 'done'),
    'docs/prd/index.md': '# Orchard PRD\n\n## Sections\n\n- [Goals](./goals.md)\n- [Epic 2 notes](./2-2-cider-notes.md)\n',
    'docs/prd/goals.md': '# Goals\n\nMore apples.\n',
    // A shard named like a story, its heading one: still a shard of the plan.
    'docs/prd/2-2-cider-notes.md': '# Story 2.2: Cider notes\n\nStatus: Draft\n\nAs a keeper, I want cider, so that autumn pays.\n',
    'specs/003-harvest/spec.md': '# Feature Specification: Harvest\n\n**Status**: Draft\n\n## User Scenarios & Testing\n',
    'specs/003-harvest/plan.md': '# Implementation Plan: Harvest\n',
    'specs/003-harvest/tasks.md': '# Tasks: Harvest\n\n- [ ] T001 Ladders\n',
  }, (root) => {
    const d = json(root, 'sprint') as Sprint;
    assert.deepEqual(stories(d).map((s) => s.key).sort(), ['1-1-plant-rows', '2-1-press-cider'], JSON.stringify(stories(d)));
    const v = json(root, 'validate').problems as P[];
    assert.ok(!v.some((p) => /prd\/|specs\//.test(p.file) && p.severity !== 'info'), JSON.stringify(v));
  });
});

test('a team\'s word for the work being checked (`verifying`, `in-verification`, `Validating`) is read as review in the ledger and the story file; `checked` stays the team\'s own word', () => {
  inProject({
    '_bmad/bmm/config.yaml': config('orchard'),
    [`${IA}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-plant-rows: verifying', '1-2-prune-trees: in-verification', '1-3-water-beds: checked']),
    [`${IA}/1-1-plant-rows.md`]: story('1.1', 'Plant rows', 'Verifying'),
    [`${IA}/1-2-prune-trees.md`]: story('1.2', 'Prune trees', 'review'),
    [`${IA}/1-3-water-beds.md`]: story('1.3', 'Water beds', 'review'),
  }, (root) => {
    const d = json(root, 'sprint') as Sprint;
    const by = new Map(stories(d).map((s) => [s.key, s]));
    assert.equal(by.get('1-1-plant-rows')?.status, 'review', JSON.stringify(by.get('1-1-plant-rows')));
    assert.equal(by.get('1-2-prune-trees')?.status, 'review');
    const v = json(root, 'validate').problems as P[];
    // Both sides say review: no drift on 1.1 or 1.2; 1.3's `checked` is still asked about.
    assert.ok(!v.some((p) => /1-[12]-/.test(p.file + p.message) && p.severity !== 'info'), JSON.stringify(v));
    assert.ok(v.some((p) => /checked/.test(p.message)), JSON.stringify(v));
  });
});

// The Test Architect's automate workflow, installed: its numbered steps and its declared output.
const teaStep = (id: string) => `---\nname: '${id}'\ndescription: 'One step'\noutputFile: '{test_artifacts}/automation-summary.md'\n---\n\n# ${id}\n\nDo it, then save to {outputFile}.\n`;
const tea: Record<string, string> = {
  '_bmad/tea/config.yaml': 'project_name: orchard\noutput_folder: "{project-root}/_bmad-output"\ntest_artifacts: "{project-root}/_bmad-output/test-artifacts"\n',
  '_bmad/tea/workflows/testarch/automate/workflow.yaml': 'name: testarch-automate\ndescription: "Grow the test suite"\nconfig_source: "{project-root}/_bmad/tea/config.yaml"\ntest_artifacts: "{config_source}:test_artifacts"\ninstalled_path: "{project-root}/_bmad/tea/workflows/testarch/automate"\ndefault_output_file: "{test_artifacts}/automation-summary.md"\n',
  ...Object.fromEntries(['step-01-load-context', 'step-02-pick-targets', 'step-03-write-tests', 'step-04-run-and-report'].map((id) => [`_bmad/tea/workflows/testarch/automate/steps-c/${id}.md`, teaStep(id)])),
};

test('a TEA summary named after a story recording its steps by number alone (`stepsCompleted: [step-01, step-02]`) is the declaring testarch workflow\'s, its steps read', () => {
  const TA = '_bmad-output/test-artifacts';
  inProject({
    ...tea,
    [`${TA}/2-3-automation-summary.md`]: "---\nstepsCompleted: ['step-01', 'step-02', 'step-03']\nlastStep: 'step-03'\nlastSaved: '2026-11-20'\n---\n\n# Automation Summary: Story 2.3\n",
    // A number no step has: not identified by it.
    [`${TA}/2-4-automation-summary.md`]: "---\nstepsCompleted: ['step-01', 'step-07']\n---\n\n# Automation Summary: Story 2.4\n",
  }, (root) => {
    const s = JSON.stringify(json(root, 'status', `${TA}/2-3-automation-summary.md`));
    assert.match(s, /"workflow":"(?:testarch-)?automate"/, s);
    assert.match(s, /"stepsCompleted":\["step-01-load-context","step-02-pick-targets","step-03-write-tests"\]/, s);
    const s4 = JSON.stringify(json(root, 'status', `${TA}/2-4-automation-summary.md`));
    assert.doesNotMatch(s4, /"stepsCompleted":\["step-01-load-context"/, s4);
    const v = json(root, 'validate').problems as P[];
    assert.ok(!v.some((p) => /2-3-automation/.test(p.file) && (p.code === 'bmad-workflow-unknown' || p.severity === 'error')), JSON.stringify(v));
  });
});

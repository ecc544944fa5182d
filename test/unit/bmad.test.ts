import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { scanRoots, allProblems } from '../../src/core/store/scan';
import { loadBmadCatalog, resolveBmadStep, parseCsv } from '../../src/core/bmad/artifacts';
import { frontmatterResume } from '../../src/core/model/resume';
import type { ScanResult, WorkflowState } from '../../src/core/types';

const ROOT = path.resolve('test/fixtures/bmad');
let res: ScanResult;
const wf = (rel: string): WorkflowState => {
  const s = res.workflows.find((w) => w.file === path.join(ROOT, rel));
  assert.ok(s, `no workflow ${rel}`);
  return s;
};
const codes = (s: WorkflowState) => s.problems.map((p) => p.code).sort();

before(async () => {
  res = await scanRoots([ROOT]);
});

describe('BMAD catalog', () => {
  test('discovers workflows, create-mode steps, continuation files and manifest names', async () => {
    const cat = await loadBmadCatalog(path.join(ROOT, '_bmad'));
    const prd = cat.byName.get('prd')!;
    assert.equal(prd.mode, 'create');
    assert.equal(path.basename(prd.stepsDir), 'steps-c');
    assert.deepEqual(prd.otherModes, ['steps-e', 'steps-v']);
    assert.deepEqual(prd.steps.map((s) => s.id), [
      'step-01-init', 'step-02-discovery', 'step-02b-vision', 'step-02c-executive-summary', 'step-03-success', 'step-04-journeys',
      'step-05-domain', 'step-06-innovation', 'step-07-project-type', 'step-08-scoping', 'step-09-functional', 'step-10-nonfunctional',
      'step-11-polish', 'step-12-complete',
    ]);
    assert.deepEqual(prd.continuation, ['step-01b-continue']);
    assert.equal(prd.steps[2].index, 3);
    assert.ok(prd.steps[0].file?.endsWith(path.join('steps-c', 'step-01-init.md')));
    // Manifest maps 'architecture' to the create-architecture folder (plain steps/).
    const arch = cat.byName.get('architecture')!;
    assert.equal(arch.name, 'create-architecture');
    assert.equal(arch.mode, 'plain');
    assert.equal(arch.steps.length, 8);
    assert.equal(cat.byName.get('create-architecture'), arch);
  });

  test('step id mapping: ints, ids, file names, paths, bare numbers', async () => {
    const cat = await loadBmadCatalog(path.join(ROOT, '_bmad'));
    const steps = cat.byName.get('prd')!.steps;
    assert.equal(resolveBmadStep(1, steps), 'step-01-init');
    assert.equal(resolveBmadStep('2', steps), 'step-02-discovery');
    assert.equal(resolveBmadStep('step-02b-vision', steps), 'step-02b-vision');
    assert.equal(resolveBmadStep('step-02c-executive-summary.md', steps), 'step-02c-executive-summary');
    assert.equal(resolveBmadStep('./steps-c/step-03-success.md', steps), 'step-03-success');
    assert.equal(resolveBmadStep('step-02b', steps), 'step-02b-vision');
    assert.equal(resolveBmadStep(13, steps), undefined);
    assert.equal(resolveBmadStep('step-01b-continue', steps), undefined);
    assert.equal(resolveBmadStep({}, steps), undefined);
  });

  test('CSV parser handles quotes, doubled quotes and commas', () => {
    assert.deepEqual(parseCsv('a,b\n"x, y","say ""hi"""\r\n'), [['a', 'b'], ['x, y', 'say "hi"']]);
  });
});

describe('BMAD fixture validates with the right problems and resume points', () => {
  test('the PRD that skipped 02b/02c and never reached 12', () => {
    const s = wf('_bmad-output/planning-artifacts/prd.md');
    assert.equal(s.dialect, 'bmad');
    assert.equal(s.workflow, 'prd');
    assert.equal(s.status, 'in_progress');
    assert.equal(s.rawStatus, 'in-progress');
    assert.equal(s.lastStep, 'step-11-polish');
    assert.deepEqual(codes(s), ['step-gap']);
    const gap = s.problems[0];
    assert.deepEqual(gap.data, { missing: ['step-02b-vision', 'step-02c-executive-summary'], resumeAt: 'step-02b-vision' });
    assert.match(gap.message, /skips step-02b-vision, step-02c-executive-summary/);
    assert.match(gap.message, /never reached step-12-complete/);
    assert.deepEqual(gap.range, { start: { line: 1, character: 0 }, end: { line: 1, character: 14 } });
    const r = frontmatterResume(s);
    assert.equal(r.step, 'step-02b-vision');
    assert.ok(r.stepFile?.endsWith(path.join('steps-c', 'step-02b-vision.md')));
    assert.match(r.reason, /skipped/);
    assert.match(r.reason, /step-12-complete/);
    assert.equal(r.tier, 1);
  });

  test('architecture with integer steps resumes at step 5', () => {
    const s = wf('_bmad-output/planning-artifacts/architecture.md');
    assert.deepEqual(s.stepsCompleted, ['step-01-init', 'step-02-context', 'step-03-starter', 'step-04-decisions']);
    assert.deepEqual(codes(s), []);
    assert.equal(s.currentStep, 'step-05-patterns');
    assert.equal(frontmatterResume(s).step, 'step-05-patterns');
  });

  test('product brief with file names is complete', () => {
    const s = wf('_bmad-output/planning-artifacts/product-brief.md');
    assert.equal(s.status, 'completed');
    assert.equal(s.lastStep, 'step-06-complete');
    assert.deepEqual(codes(s), []);
    const r = frontmatterResume(s);
    assert.equal(r.step, undefined);
    assert.match(r.reason, /All 6 steps/);
  });

  test('hand-edited brief: order, duplicate, lastStep and status problems with quick fixes', () => {
    const s = wf('_bmad-output/planning-artifacts/brief-draft.md');
    assert.deepEqual(codes(s), ['last-step-mismatch', 'status-complete-steps-remain', 'step-duplicate', 'step-order']);
    const last = s.problems.find((p) => p.code === 'last-step-mismatch')!;
    assert.deepEqual(last.data, { fix: 'setLastStep', value: 3 });
    assert.deepEqual(last.range, { start: { line: 3, character: 10 }, end: { line: 3, character: 11 } });
    assert.deepEqual(s.problems.find((p) => p.code === 'step-duplicate')!.range, { start: { line: 1, character: 26 }, end: { line: 1, character: 27 } });
    assert.equal(frontmatterResume(s).step, 'step-04-metrics');
  });

  test('uninstalled workflow gives an info, story status ready-for-dev maps to created', () => {
    // epics.md is BMAD's create-epics-and-stories output: known by name, not installed here.
    const e = wf('_bmad-output/planning-artifacts/epics.md');
    assert.deepEqual(codes(e), ['bmad-workflow-not-installed']);
    assert.equal(e.problems[0].severity, 'info');
    assert.equal(e.status, 'created');
    assert.deepEqual(e.stepsCompleted, ['step-01', 'step-02']);
    const story = wf('_bmad-output/implementation-artifacts/1-1-project-setup.md');
    assert.equal(story.status, 'created');
    assert.equal(story.rawStatus, 'ready-for-dev');
    assert.equal(frontmatterResume(story).step, 'step-03-starter');
  });

  test('step files, workflow.md and READMEs are not workflows; nothing is an error', () => {
    assert.equal(res.workflows.length, 6);
    assert.ok(res.workflows.every((w) => !w.file.includes(`${path.sep}_bmad${path.sep}`)));
    assert.equal(allProblems(res).filter((p) => p.severity === 'error').length, 0);
  });
});

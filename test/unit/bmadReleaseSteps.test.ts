// Artifacts whose recorded step ids come from a BMAD release that is not installed in the checkout
// (the team upgraded BMAD and its workflows became skills with no step files, or a module was
// removed): src/core/bmad/releaseSteps.ts, generated from BMAD's official releases, names the
// workflow when one workflow's release holds most of the ids, and its steps are checked against
// that release's list when only one list holds them all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { scanRoots } from '../../src/core/store/scan';
import { releaseSteps } from '../../src/core/bmad/known';
import { workspace } from './fileHelpers';

const INSTALL = {
  '_bmad/bmm/config.yaml': 'project_name: tally\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
};
const artifact = (steps: string[], extra = '') => `---\nstepsCompleted: [${steps.map((s) => `'${s}'`).join(', ')}]\n${extra}---\n# Notes\n\nWork in progress.\n`;

async function scan(files: Record<string, string>) {
  const root = workspace({ ...INSTALL, ...files }, { prefix: 'wm-releases-', waymark: false });
  const res = await scanRoots([root], { index: false, sprint: true });
  return (rel: string) => {
    const w = res.workflows.find((x) => x.file === path.join(root, rel));
    assert.ok(w, `${rel} is read as a workflow artifact`);
    return w;
  };
}

test("a module-build tracker of the BMad Builder's step-file release (v6 alpha) is create-module's, and its steps are checked against that release", async () => {
  const of = await scan({ '_bmad-output/planning-artifacts/tracker.md': artifact(['step-01-init', 'step-02-concept', 'step-03-components']) });
  const w = of('_bmad-output/planning-artifacts/tracker.md');
  assert.equal(w.workflow, 'create-module');
  assert.equal(w.identifiedBy, 'known');
  assert.match(w.identifiedDetail ?? '', /known from BMAD's releases/);
  assert.match(w.identifiedDetail ?? '', /6\.0\.0-alpha\.14/);
  assert.equal(w.steps.length, 11, "the release's eleven steps");
  assert.equal(w.nextStep, 'step-04-structure');
  assert.equal(w.status, 'in_progress');
  assert.deepEqual(w.problems.map((p) => p.code), ['bmad-workflow-not-installed']);
  assert.match(w.problems[0].message, /checked against/);
});

test("a Test Architect review of an old release (tea 0.1.1-beta…1.2.0's subprocess steps) is testarch-test-review's, checked against that release", async () => {
  const ids = ['step-01-load-context', 'step-02-discover-tests', 'step-03-quality-evaluation', 'step-03a-subprocess-determinism', 'step-03b-subprocess-isolation', 'step-03c-subprocess-maintainability', 'step-03d-subprocess-coverage'];
  const of = await scan({ '_bmad-output/test-artifacts/review-notes.md': artifact(ids) });
  const w = of('_bmad-output/test-artifacts/review-notes.md');
  assert.equal(w.workflow, 'testarch-test-review');
  assert.equal(w.identifiedBy, 'known');
  assert.equal(w.nextStep, 'step-03e-subprocess-performance');
  assert.equal(w.steps.length, 10);
});

test("an old bmm PRD (v6 alpha's step-11-complete), under a name of the team's own, is prd's; a step skipped is reported", async () => {
  const of = await scan({ '_bmad-output/planning-artifacts/requirements-v1.md': artifact(['step-01-init', 'step-02-discovery', 'step-04-journeys']) });
  const w = of('_bmad-output/planning-artifacts/requirements-v1.md');
  assert.equal(w.workflow, 'prd');
  assert.equal(w.identifiedBy, 'known');
  // step-01…04 are in every prd release's list: identified, but not one release's list to check.
  assert.deepEqual(w.problems.map((p) => p.code), ['bmad-workflow-not-installed']);
  assert.equal(w.steps.length, 0);
  const old = (await scan({ '_bmad-output/planning-artifacts/requirements-v1.md': artifact(['step-01-init', 'step-02-discovery', 'step-04-journeys', 'step-11-complete']) }))('_bmad-output/planning-artifacts/requirements-v1.md');
  assert.equal(old.workflow, 'prd');
  assert.equal(old.steps.at(-1)?.id, 'step-11-complete', "only 6.0.0-alpha.13…22's list ends at step-11-complete");
  assert.ok(old.problems.some((p) => p.code === 'step-gap'), old.problems.map((p) => p.code).join(', '));
});

test('an old market research (step-02-customer-insights, dropped in 6.0.0-Beta.5) is research, checked against its release', async () => {
  const of = await scan({ '_bmad-output/planning-artifacts/customer-study.md': artifact(['step-01-init', 'step-02-customer-behavior', 'step-02-customer-insights']) });
  const w = of('_bmad-output/planning-artifacts/customer-study.md');
  assert.equal(w.workflow, 'research');
  assert.equal(w.nextStep, 'step-03-customer-pain-points');
});

test("step ids two workflows share (bmm's architecture and Game Dev Studio's) identify neither", async () => {
  const of = await scan({ '_bmad-output/planning-artifacts/design-notes.md': artifact(['step-01-init', 'step-02-context', 'step-03-starter', 'step-04-decisions']) });
  const w = of('_bmad-output/planning-artifacts/design-notes.md');
  assert.equal(w.identifiedBy, undefined);
  assert.deepEqual(w.problems.map((p) => p.code), ['bmad-workflow-unknown']);
});

test("ids of two releases of one workflow (6.x's step-02b-vision beside alpha's step-11-complete) name it, but no release's list is checked", async () => {
  const of = await scan({ '_bmad-output/planning-artifacts/requirements-mixed.md': artifact(['step-01-init', 'step-02-discovery', 'step-02b-vision', 'step-11-complete']) });
  const w = of('_bmad-output/planning-artifacts/requirements-mixed.md');
  assert.equal(w.workflow, 'prd');
  assert.equal(w.identifiedBy, 'known');
  assert.equal(w.steps.length, 0);
  assert.match(w.identifiedDetail ?? '', /several releases/);
  assert.deepEqual(w.problems.map((p) => p.code), ['bmad-workflow-not-installed']);
});

test("the Creative Intelligence Suite shipped no step files in any release: a CIS-looking artifact's own ids name no workflow", async () => {
  assert.ok(!releaseSteps().some((r) => r.module === 'cis'));
  const of = await scan({ '_bmad-output/planning-artifacts/empathy-session.md': artifact(['step-01-empathize', 'step-02-define', 'step-03-ideate']) });
  assert.equal(of('_bmad-output/planning-artifacts/empathy-session.md').identifiedBy, undefined);
});

test('the table holds one line per workflow and distinct step list, in step-id form', () => {
  const seen = new Set<string>();
  for (const r of releaseSteps()) {
    const key = `${r.module} ${r.workflow} ${r.steps} ${JSON.stringify(r.modes)}`;
    assert.ok(!seen.has(key), `twice: ${key}`);
    seen.add(key);
    for (const id of r.steps.split(' ')) assert.match(id, /^step-\d+[a-z]?-[\w-]+$/);
    for (const ids of Object.values(r.modes)) for (const id of ids.split(' ')) assert.match(id, /^(?:step-)?(?:[a-z]-)?\d+[a-z]?-[\w-]+$/);
  }
  for (const m of ['core', 'bmm', 'bmb', 'bmgd', 'gds', 'tea']) assert.ok(releaseSteps().some((r) => r.module === m), m);
  const module = releaseSteps().find((r) => r.workflow === 'module' && r.module === 'bmb');
  assert.ok(module && module.modes.edit && module.modes['steps-b'], 'a mode folder keeps its name when BMAD gives it no mode letter');
});

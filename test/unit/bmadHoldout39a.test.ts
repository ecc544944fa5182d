// Session 39, held-out batch a (v6.x installs). Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s39/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

const config = 'project_name: kiln\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';
const ledger = (lines: string[]) => ['generated: 2026-11-20', 'project: kiln', 'story_location: _bmad-output/implementation-artifacts', '', 'development_status:', ...lines.map((l) => `  ${l}`), ''].join('\n');
const story = (title: string, status: string) => `# ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a potter,\nI want ${title.toLowerCase()},\nso that the glaze sets.\n\n## Tasks / Subtasks\n\n- [x] Do it\n`;

type Problem = { file: string; severity: string; code: string; message: string; data?: { key?: string } };
type Story = { key: string; status: string; ledgerStatus: string | null };
const allStories = (s: { epics?: { stories: Story[] }[]; stories?: Story[] }) => [...(s.epics ?? []).flatMap((e) => e.stories), ...(s.stories ?? [])];

// A second plan (`epics-phase2.md`) numbering its epics from 1 again; the ledger numbers them on from
// the first plan's (phase 2's epic 1 is the ledger's epic 3).
const phaseTwo = {
  '_bmad/bmm/config.yaml': config,
  '_bmad-output/planning-artifacts/epics.md': [
    '# Kiln - Epic Breakdown', '',
    '## Epic 1: Firing schedules', '', '### Story 1.1: Schedule editor', '', 'As a potter, I want an editor.', '',
    '## Epic 2: Glaze library', '', '### Story 2.1: Glaze recipes', '', 'As a potter, I want recipes.', '',
  ].join('\n'),
  '_bmad-output/planning-artifacts/epics-phase2.md': [
    '# Kiln Phase 2 - Epic Breakdown', '',
    '## Epic 1: Remote monitoring', '',
    '### Story 1.1: Temperature feed', '', 'As a potter, I want a feed.', '',
    '### Story 1.2: Alert on stall', '', 'As a potter, I want alerts.', '',
    '### Story 1.3: Cone chart export', '', 'As a potter, I want an export.', '',
  ].join('\n'),
  '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger([
    'epic-1: done', '1-1-schedule-editor: done', 'epic-1-retrospective: optional',
    'epic-2: done', '2-1-glaze-recipes: done', 'epic-2-retrospective: optional',
    'epic-3: in-progress', '3-1-temperature-feed: done', '3-2-alert-on-stall: done', '3-3-cone-chart-export: ready-for-dev', 'epic-3-retrospective: optional',
  ]),
  '_bmad-output/implementation-artifacts/1-1-schedule-editor.md': story('Story 1.1: Schedule editor', 'done'),
  '_bmad-output/implementation-artifacts/2-1-glaze-recipes.md': story('Story 2.1: Glaze recipes', 'done'),
  '_bmad-output/implementation-artifacts/3-1-temperature-feed.md': story('Story 3.1: Temperature feed', 'done'),
  '_bmad-output/implementation-artifacts/3-2-alert-on-stall.md': story('Story 3.2: Alert on stall', 'done'),
};

test('a plan numbering its epics on its own (`epics-phase2.md`, Story 1.2 "Alert on stall") is the ledger story whose key has that title (`3-2-alert-on-stall`): no story the ledger lacks, none listed twice', () => {
  inProject(phaseTwo, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.ok(!v.problems.some((p) => p.code === 'epics-story-not-in-ledger'), JSON.stringify(v.problems.filter((p) => p.code === 'epics-story-not-in-ledger')));
    const s = json(root, 'sprint');
    assert.notEqual(s.next?.action, 'sprint-planning', JSON.stringify(s.next));
    assert.deepEqual(allStories(s).map((x) => `${x.key}:${x.status}`).sort(), [
      '1-1-schedule-editor:done', '2-1-glaze-recipes:done', '3-1-temperature-feed:done', '3-2-alert-on-stall:done', '3-3-cone-chart-export:ready-for-dev',
    ]);
  });
});

test('a story of such a plan that no ledger key names by number or title is still reported missing', () => {
  inProject({
    ...phaseTwo,
    '_bmad-output/planning-artifacts/epics-phase2.md': [
      '## Epic 1: Remote monitoring', '',
      '### Story 1.1: Temperature feed', '',
      '### Story 1.4: Firing log archive', '',
    ].join('\n'),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    const missing = v.problems.filter((p) => p.code === 'epics-story-not-in-ledger');
    assert.deepEqual(missing.map((p) => p.data?.key), ['1-4-firing-log-archive'], JSON.stringify(missing));
  });
});

// create-prd as installed here (BMAD 6.0.0 on): step-02b and step-02c inserted after step-02.
const prdSteps = ['01-init', '02-discovery', '02b-vision', '02c-executive-summary', '03-success', '04-journeys', '05-domain', '06-innovation', '07-project-type', '08-scoping', '09-functional', '10-nonfunctional', '11-polish', '12-complete'];
const prdInstall = (): Record<string, string> => {
  const w = '_bmad/bmm/workflows/2-plan-workflows/create-prd';
  const files: Record<string, string> = {
    '_bmad/bmm/config.yaml': config,
    [`${w}/workflow-create-prd.md`]: "---\nname: create-prd\ndescription: Write a PRD with the user.\nnextStep: './steps-c/step-01-init.md'\n---\n\n# Write a PRD\n",
  };
  for (const s of prdSteps) files[`${w}/steps-c/step-${s}.md`] = `---\nname: 'step-${s}'\ndescription: 'Step ${s} of the PRD.'\n---\n\n# Step ${s}\n`;
  return files;
};
const prd = (steps: string[]) => `---\nstepsCompleted: [${steps.map((s) => `'step-${s}'`).join(', ')}]\ninputDocuments: []\nworkflowType: 'prd'\n---\n\n# Product Requirements Document - kiln\n\n## Success Criteria\n\nThe glaze sets on every firing.\n`;

test('a PRD an earlier release wrote (every step of Beta\'s create-prd up to step-11, none of the step-02b/02c 6.0.0 inserted) has no step gap; its next step is step-12-complete', () => {
  inProject({
    ...prdInstall(),
    '_bmad-output/planning-artifacts/prd.md': prd(prdSteps.filter((s) => !/^02[bc]|^12/.test(s))),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.ok(!v.problems.some((p) => p.code === 'step-gap'), JSON.stringify(v.problems));
    const st = json(root, 'status') as { workflows: { file: string; nextStep: string | null }[] };
    assert.equal(st.workflows.find((w) => w.file.endsWith('prd.md'))?.nextStep, 'step-12-complete');
  });
});

test('a PRD that records a step only the later release has (step-02b) and skips the next one (step-02c), or skips a step every release has, still has a gap', () => {
  inProject({
    ...prdInstall(),
    '_bmad-output/planning-artifacts/prd.md': prd(prdSteps.filter((s) => !/^02c|^12/.test(s))),
    '_bmad-output/planning-artifacts/prd-glazes.md': prd(prdSteps.filter((s) => !/^02[bc]|^03|^12/.test(s))),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    const gaps = v.problems.filter((p) => p.code === 'step-gap');
    assert.ok(gaps.some((p) => p.file.endsWith('prd.md') && /step-02c-executive-summary/.test(p.message)), JSON.stringify(gaps));
    assert.ok(gaps.some((p) => p.file.endsWith('prd-glazes.md') && /step-03-success/.test(p.message) && !/step-02b/.test(p.message)), JSON.stringify(gaps));
  });
});

// Session 38, held-out batch b (issue 20): a story status word of release (`published`), and a
// team's list ledger naming its stories `story-<slug>` (`story-<area>-NN-<slug>`). Fixtures written here.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s38/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

type Problem = { file: string; severity: string; code: string };

/** TEA's automate and nfr-assess workflows as installed (their step files; the steps' text is not read here). */
const teaInstall = (): Record<string, string> => {
  const files: Record<string, string> = { '_bmad/tea/config.yaml': 'test_artifacts: "{project-root}/_bmad-output/test-artifacts"\n' };
  const steps = {
    automate: ['step-01-preflight-and-context', 'step-02-identify-targets', 'step-03-generate-tests', 'step-03a-subprocess-api', 'step-03b-subprocess-backend', 'step-03b-subprocess-e2e', 'step-03c-aggregate', 'step-04-validate-and-summarize'],
    'nfr-assess': ['step-01-load-context', 'step-02-define-thresholds', 'step-03-gather-evidence', 'step-04-evaluate-and-score', 'step-04a-subprocess-security', 'step-04b-subprocess-performance', 'step-04e-aggregate-nfr', 'step-05-generate-report'],
  };
  for (const [wf, ids] of Object.entries(steps)) {
    files[`_bmad/tea/workflows/testarch/${wf}/workflow.md`] = `---\nname: testarch-${wf}\n---\n# ${wf}\n`;
    for (const id of ids) files[`_bmad/tea/workflows/testarch/${wf}/steps-c/${id}.md`] = `---\nname: '${id}'\n---\n# ${id}\n`;
  }
  return files;
};
type Listed = { key: string; file: string | null; status: string };
const listed = (s: { epics: { stories: Listed[] }[] }): Listed[] => s.epics.flatMap((e) => e.stories);

const released = (n: number, title: string) =>
  `---\nstory: 1.${n}\nepic: 1\ntitle: "Story 1.${n}: ${title}"\nstatus: published\nissue: ${40 + n}\n---\n\nAs a keeper, I want ${title.toLowerCase()}, so that the light stays on.\n\n## Acceptance criteria\n\n- **Given** a lamp, **when** it is lit, **then** it burns.\n`;

test('a story at `status: published` (released, as `released` and `shipped` are) is finished: no warning, and next never offers it', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/1.1.md': released(1, 'Wick trimming'),
    'docs/stories/1-2-oil-levels.md': released(2, 'Oil levels'),
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    assert.deepEqual(stories.map((s) => s.status), ['done', 'done'], JSON.stringify(stories));
    const v = json(root, 'validate') as { problems: Problem[] };
    const warned = v.problems.filter((p) => p.severity !== 'info');
    assert.deepEqual(warned, [], JSON.stringify(warned));
    const n = json(root, 'next') as { next: unknown };
    assert.equal(n.next, null, JSON.stringify(n));
  });
});

test('a sprint-status.yaml `stories:` list whose ids are `story-<slug>` or `story-<area>-NN-<slug>` lists those stories with the ledger\'s statuses, bound to their files', () => {
  const story = (id: string, title: string, status: string) => `# ${id}\n\n**Status:** ${status}\n\n## Story\n\nAs a keeper, I want ${title}, so that the light stays on.\n\n## Acceptance criteria\n\n1. It works.\n\n## Tasks\n\n- [ ] Do it\n`;
  inProject({
    'docs/sprint-status.yaml': 'project: lamphouse\nstatus: BUILDING\n\nstories:\n  # EPIC-01 — wicks\n  - id: story-wick-01-trim-schedule\n    epic: "EPIC-01 — wicks"\n    status: COMPLETE\n    depends_on: [story-lanternist-01-gauge-reading]\n  - id: story-lanternist-01-gauge-reading\n    epic: "EPIC-02 — oil"\n    status: IN_PROGRESS\n  - id: story-beacon\n    epic: "EPIC-03 — light"\n    status: PENDING\n    depends_on: [story-lanternist-01-gauge-reading]\n  - id: story-night-watch-rota\n    epic: "EPIC-03 — light"\n    status: COMPLETE\n',
    'docs/stories/story-wick-01-trim-schedule.md': story('story-wick-01-trim-schedule', 'a trim schedule', 'pending'),
    'docs/stories/story-lanternist-01-gauge-reading.md': story('story-lanternist-01-gauge-reading', 'gauge readings', 'pending'),
    'docs/stories/story-beacon.md': story('story-beacon', 'a beacon', 'pending'),
    'docs/stories/story-night-watch-rota.md': story('story-night-watch-rota', 'a rota', 'complete'),
  }, (root) => {
    const stories = listed(json(root, 'sprint'));
    const byKey = Object.fromEntries(stories.map((s) => [s.key, s]));
    assert.equal(byKey['story-wick-01-trim-schedule']?.status, 'done', JSON.stringify(stories));
    assert.equal(byKey['story-lanternist-01-gauge-reading']?.status, 'in-progress', JSON.stringify(stories));
    assert.equal(byKey['story-wick-01-trim-schedule']?.file, 'docs/stories/story-wick-01-trim-schedule.md', JSON.stringify(stories));
    // Named by the word story and a slug alone (the file of that name beside it).
    assert.equal(byKey['story-beacon']?.status, 'backlog', JSON.stringify(stories));
    assert.equal(byKey['story-night-watch-rota']?.file, 'docs/stories/story-night-watch-rota.md', JSON.stringify(stories));
    // The ids named under `depends_on:` are references, not more entries.
    assert.equal(stories.length, 4, JSON.stringify(stories));
  });
});

test('a TEA summary recording the steps BMAD saves (step-01, step-02, step-03c-aggregate: the orchestrating step-03 and its subprocess steps save nothing) has no step gap', () => {
  inProject({
    ...teaInstall(),
    '_bmad-output/test-artifacts/automation-summary.md': "---\nstepsCompleted: ['step-01-preflight-and-context', 'step-02-identify-targets', 'step-03c-aggregate']\nlastStep: 'step-03c-aggregate'\nlastSaved: '2026-02-28T13:40:57-03:00'\n---\n\n## Step 01: Preflight\n\nThe lamp room's stack is read.\n",
    '_bmad-output/test-artifacts/nfr-assessment.md': "---\nstepsCompleted: ['step-01-load-context', 'step-02-define-thresholds', 'step-03-gather-evidence']\nlastStep: 'step-03-gather-evidence'\n---\n\n# NFR assessment\n",
  }, (root) => {
    const v = json(root, 'validate') as { problems: (Problem & { message: string })[] };
    const gaps = v.problems.filter((p) => p.code === 'step-gap');
    assert.deepEqual(gaps, [], JSON.stringify(gaps));
    const s = json(root, 'status') as { workflows: { file: string; workflow?: string; nextStep?: string | null }[] };
    const summary = s.workflows.find((w) => w.file.endsWith('automation-summary.md'));
    assert.ok(summary, JSON.stringify(s.workflows));
  });
});

test('a step a TEA summary skips that BMAD does save (step-02 before step-03c-aggregate) is still a gap', () => {
  inProject({
    ...teaInstall(),
    '_bmad-output/test-artifacts/automation-summary.md': "---\nstepsCompleted: ['step-01-preflight-and-context', 'step-03c-aggregate']\nlastStep: 'step-03c-aggregate'\n---\n\n## Step 01: Preflight\n",
  }, (root) => {
    const v = json(root, 'validate') as { problems: (Problem & { message: string })[] };
    const gaps = v.problems.filter((p) => p.code === 'step-gap');
    assert.equal(gaps.length, 1, JSON.stringify(v.problems));
    assert.match(gaps[0].message, /skips step-02-identify-targets \(/, gaps[0].message);
  });
});

test('a lettered step about subprocesses that gathers nothing after it (bmb\'s step-08b-subprocess-optimization, the last of its number) is still a step: skipping it is a gap', () => {
  const ids = ['step-01-validate', 'step-08-collaborative-experience-check', 'step-08b-subprocess-optimization', 'step-09-cohesive-review', 'step-10-report-complete'];
  const files: Record<string, string> = { '_bmad/bmb/workflows/lamp-check/workflow.md': '---\nname: lamp-check\n---\n# Lamp check\n' };
  for (const id of ids) files[`_bmad/bmb/workflows/lamp-check/steps-c/${id}.md`] = `---\nname: '${id}'\n---\n# ${id}\n`;
  files['_bmad-output/lamp-check-report.md'] = "---\nworkflow: lamp-check\nstepsCompleted: ['step-01-validate', 'step-09-cohesive-review']\n---\n# Report\n";
  inProject(files, (root) => {
    const v = json(root, 'validate') as { problems: (Problem & { message: string })[] };
    const gaps = v.problems.filter((p) => p.code === 'step-gap');
    assert.equal(gaps.length, 1, JSON.stringify(v.problems));
    assert.match(gaps[0].message, /skips step-08-collaborative-experience-check, step-08b-subprocess-optimization \(/, gaps[0].message);
  });
});

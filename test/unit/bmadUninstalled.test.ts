// Artifacts of BMAD workflows that are not installed in the checkout (issue 20, planning
// artifacts in every layout): the install's folders are kept out of git, or a release retired
// the workflow. What the install still declares (`_config/bmad-help.csv`) and the output names
// BMAD's releases write say which workflow an artifact is; the rest stays unknown.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scanRoots } from '../../src/core/store/scan';
import { buildRegistry } from '../../src/core/project/registry';
import { computeFrontier } from '../../src/core/project/frontier';

const FIX = path.resolve('test/fixtures/bmad-uninstalled');

function copy(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-uninstalled-')));
  fs.cpSync(FIX, dir, { recursive: true });
  return dir;
}

describe('a BMAD project whose workflows are not installed in the checkout', () => {
  test('each step-tracked artifact is known by its declaration or its BMAD output name, and said to be not installed', async () => {
    const dir = copy();
    const res = await scanRoots([dir], { index: false, sprint: true });
    const of = (rel: string) => {
      const w = res.workflows.find((x) => x.file === path.join(dir, rel));
      assert.ok(w, `${rel} is read as a workflow artifact`);
      return { workflow: w.workflow, by: w.identifiedBy, codes: w.problems.map((p) => p.code) };
    };
    const notInstalled = ['bmad-workflow-not-installed'];
    assert.deepEqual(of('_bmad-output/planning-artifacts/implementation-readiness-report-2026-01-04.md'), { workflow: 'check-implementation-readiness', by: 'declared', codes: notInstalled });
    assert.deepEqual(of('_bmad-output/brainstorming/session-2026-01-02.md'), { workflow: 'brainstorming', by: 'declared', codes: notInstalled }, 'the output path bmad-help.csv declares');
    assert.deepEqual(of('_bmad-output/planning-artifacts/epics.md'), { workflow: 'create-epics-and-stories', by: 'known', codes: notInstalled });
    assert.deepEqual(of('_bmad-output/planning-artifacts/prd.md'), { workflow: 'prd', by: 'known', codes: notInstalled });
    assert.deepEqual(of('_bmad-output/implementation-artifacts/2026-01-09-tech-spec-csv-import.md'), { workflow: 'quick-spec', by: 'known', codes: notInstalled });
    assert.deepEqual(of('_bmad-output/test-artifacts/framework-setup-progress.md'), { workflow: 'testarch-framework', by: 'known', codes: notInstalled });
    assert.deepEqual(of('_bmad-output/planning-artifacts/brief.md'), { workflow: 'create-product-brief', by: 'known', codes: notInstalled }, "6.x product brief's brief.md");
  });

  test('a session the workflow has just begun in the output folder (template copied, nothing filled yet) is an artifact, not a template', async () => {
    const dir = copy();
    const res = await scanRoots([dir], { index: false, sprint: true });
    const w = res.workflows.find((x) => x.file === path.join(dir, '_bmad-output/brainstorming/brainstorming-session-2026-01-03.md'));
    assert.ok(w, 'the begun session is read');
    assert.equal(w.workflow, 'brainstorming');
  });

  test('a file that names its own workflow and records steps is an artifact of that workflow, even when no install declares it', async () => {
    const dir = copy();
    const res = await scanRoots([dir], { index: false, sprint: true });
    const of = (rel: string) => {
      const w = res.workflows.find((x) => x.file === path.join(dir, rel));
      assert.ok(w, `${rel} is read as a workflow artifact`);
      return { workflow: w.workflow, by: w.identifiedBy, status: w.status, codes: w.problems.map((p) => p.code) };
    };
    const notInstalled = ['bmad-workflow-not-installed'];
    // `workflowType` / `workflow` in its own frontmatter, beside recorded steps.
    assert.deepEqual(of('_bmad-output/planning-artifacts/pricing.md'), { workflow: 'pricing-workshop', by: 'self', status: undefined, codes: notInstalled });
    assert.deepEqual(of('_bmad-output/implementation-artifacts/stories.md'), { workflow: 'stories', by: 'self', status: 'created', codes: notInstalled });
    // `workflowType` is BMAD's own key for a workflow's artifact: it names the workflow without recorded steps.
    assert.deepEqual(of('_bmad-output/implementation-artifacts/delivery-plan.md'), { workflow: 'delivery-plan', by: 'self', status: 'created', codes: notInstalled });
    // A module's state file in its own folder under the output folder (`{output_folder}/story-automator/`), recording step ids.
    assert.deepEqual(of('_bmad-output/story-automator/orchestration-2-20260105-093000.md'), { workflow: 'story-automator', by: 'self', status: 'completed', codes: notInstalled });
    // `workflow:` names it too (a BMAD output folder's file, read in BMAD's dialect).
    assert.deepEqual(of('_bmad-output/planning-artifacts/release-checklist.md'), { workflow: 'release-checklist', by: 'self', status: 'in_progress', codes: notInstalled });
    const msg = res.workflows.find((x) => x.file.endsWith('stories.md'))!.problems[0].message;
    assert.match(msg, /workflowType 'stories'/);
    assert.doesNotMatch(msg, /BMAD's releases/);
    const f = computeFrontier(buildRegistry(res.workflows, []), { now: new Date('2026-01-20T12:00:00Z') });
    const ready = f.ready.map((e) => e.item.rel);
    for (const rel of ['_bmad-output/story-automator/orchestration-2-20260105-093000.md', '_bmad-output/implementation-artifacts/stories.md']) {
      assert.ok(!ready.includes(rel), `offered ${rel}: ${ready.join(', ')}`);
    }
  });

  test("a template inside an agent skill folder of BMAD's (`.claude/skills/bmad-*/`) is the method, never an artifact, whatever its frontmatter", async () => {
    const dir = copy();
    const res = await scanRoots([dir], { index: false, sprint: true });
    const rel = '.claude/skills/bmad-team-runner/templates/run-state.md';
    assert.equal(res.workflows.find((x) => x.file === path.join(dir, rel)), undefined, `${rel} is not read as a workflow file`);
    assert.deepEqual(res.problems.filter((p) => p.file === path.join(dir, rel)), []);
  });

  test('a file no BMAD workflow writes and that names no workflow stays unknown', async () => {
    const dir = copy();
    const res = await scanRoots([dir], { index: false, sprint: true });
    for (const rel of ['_bmad-output/planning-artifacts/team-notes.md']) {
      const w = res.workflows.find((x) => x.file === path.join(dir, rel));
      assert.ok(w, rel);
      assert.equal(w.identifiedBy, undefined, rel);
      assert.deepEqual(w.problems.map((p) => p.code), ['bmad-workflow-unknown'], rel);
    }
    const errors = [...res.problems, ...res.workflows.flatMap((w) => w.problems)].filter((p) => p.severity === 'error');
    assert.deepEqual(errors, []);
  });

  test('next never offers to start an artifact whose steps were done but whose workflow is not installed (a readiness report that says status: ready)', async () => {
    const dir = copy();
    const res = await scanRoots([dir], { index: false, sprint: true });
    const f = computeFrontier(buildRegistry(res.workflows, []), { now: new Date('2026-01-20T12:00:00Z') });
    const ready = f.ready.map((e) => e.item.rel);
    assert.ok(!ready.includes('_bmad-output/planning-artifacts/implementation-readiness-report-2026-01-04.md'), `offered: ${ready.join(', ')}`);
  });
});

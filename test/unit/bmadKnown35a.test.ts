// Session 35, known35a (issue 20): which files are stories — a story named only in its frontmatter,
// BMAD quick-dev specs with no ledger key, the Test Architect's automate summaries, spec-kit folders
// named by a ledger key. Fixtures written here, no copied text. Each test failed before its rule (run
// it with WAYMARK_CLI set to /work/scratch/base-s35/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inProject } from './fileHelpers';
import { runCli as cli, cliJson as json } from './holdoutHelpers';
import { loadSprint } from '../../src/core/bmad/sprint';
import { setSprintCacheRacyWindow } from '../../src/core/bmad/sprintCache';

type S = { key: string; epicId: string; ledgerStatus?: string | null; status: string; file?: string | null; tasks?: { done: number; total: number } };
const stories = (d: { epics: { stories: S[] }[] }) => d.epics.flatMap((e) => e.stories);
type P = { code: string; severity: string; file: string; message: string };

const config = 'project_name: lantern\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\n';
const IA = '_bmad-output/implementation-artifacts';
const ledger = (entries: string[]) => ['generated: 2026-11-20', 'last_updated: 2026-11-28', 'project: lantern', 'story_location: _bmad-output/implementation-artifacts', '', 'development_status:', ...entries.map((e) => `  ${e}`), ''].join('\n');
const storyBody = (title: string, tasks: string) => `# ${title}\n\n## Story\n\nAs an operator, I want ${title.toLowerCase()}, so that the lamps stay lit.\n\n## Acceptance Criteria\n\n1. It works.\n\n## Tasks / Subtasks\n\n${tasks}\n`;

test('a story named only in its frontmatter (`story_key:` / `story:` / `storyId:` beside `status:`) is listed under that id; one naming a ledger key binds to it', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    [`${IA}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-wick-trimmer: done', 'ops-3-rotate-keys: review']),
    [`${IA}/1-1-wick-trimmer.md`]: `Status: done\n\n${storyBody('Story 1.1: Wick trimmer', '- [x] Trim')}`,
    // No story grammar names it; its frontmatter does, and the ledger lacks it.
    [`${IA}/hardening-d02-audit-log.md`]: `---\nstory_key: hardening-d02-audit-log\nepic: hardening\nstatus: review\nrisk: high\n---\n\n${storyBody('Tech Story D-02 — Audit log', '- [x] Write the log\n- [x] Rotate it')}`,
    // A file named for something else whose frontmatter names a ledger key: that story's file.
    [`${IA}/key-rotation-work.md`]: `---\nstoryId: ops-3-rotate-keys\nstatus: in-progress\n---\n\n${storyBody('Rotate keys', '- [x] Rotate\n- [ ] Announce')}`,
    // Not stories: a note with a status and no id; a `story:` holding a title, not an id.
    [`${IA}/deferred-work.md`]: '---\ntitle: Deferred work\nstatus: open\n---\n\n# Deferred work\n\n- a thing\n',
    [`${IA}/lamp-notes.md`]: '---\nstory: "The lamp lighter retires"\nstatus: draft\n---\n\n# Notes\n',
    // A report about a story, naming it in its frontmatter with a status of its own: not the story.
    [`${IA}/dev-result-hx-7-lamp-timer.md`]: '---\nstatus: done\nstory: HX-7\n---\n\n# Dev Auto Result\n\nStatus: done\n\nImplemented the timer.\n',
  }, (root) => {
    const d = json(root, 'sprint');
    const by = new Map(stories(d).map((s) => [s.key, s]));
    const hd = by.get('hardening-d02-audit-log');
    assert.ok(hd, JSON.stringify([...by.keys()]));
    assert.equal(hd.status, 'review');
    assert.equal(hd.file, `${IA}/hardening-d02-audit-log.md`);
    const ops = by.get('ops-3-rotate-keys');
    assert.equal(ops?.file, `${IA}/key-rotation-work.md`, JSON.stringify(ops));
    assert.equal(stories(d).length, 3, JSON.stringify([...by.keys()]));
    const v = json(root, 'validate').problems as P[];
    // The ledger lacks the frontmatter's story: drift, said on the file.
    assert.ok(v.some((p) => p.code === 'story-not-in-ledger' && p.file.endsWith('hardening-d02-audit-log.md')), JSON.stringify(v));
    // The bound file says in-progress, the ledger review: drift between the two, not a missing file.
    assert.ok(!v.some((p) => p.code === 'ledger-story-no-file'), JSON.stringify(v));
    assert.ok(v.some((p) => p.code === 'story-status-drift' && p.file.endsWith('key-rotation-work.md')), JSON.stringify(v));
  });
});

test('without a ledger, stories keyed only by `story:` in their frontmatter are listed with their status, and `next` offers the ready one', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/sprint-guard/guard-e-01-hooks.md': `---\nepic: EPIC-GUARD — Guard rails\nstory: GRD-E-01\ntitle: "Hooks"\nstatus: Done\n---\n\n${storyBody('Story GRD-E-01 — Hooks', '- [x] Hook it')}`,
    'docs/stories/sprint-guard/guard-e-02-monitor.md': `---\nepic: EPIC-GUARD — Guard rails\nstory: GRD-E-02\ntitle: "Monitor"\nstatus: Ready for Dev\ndepends_on: [GRD-E-01]\n---\n\n${storyBody('Story GRD-E-02 — Monitor', '- [ ] Watch')}`,
    'docs/stories/sprint-guard/design-spec.md': '# Design spec\n\nStatus: draft\n',
  }, (root) => {
    const d = json(root, 'sprint');
    const by = new Map(stories(d).map((s) => [s.key, s]));
    assert.deepEqual([...by.keys()].sort(), ['GRD-E-01', 'GRD-E-02'], JSON.stringify(stories(d)));
    assert.equal(by.get('GRD-E-01')?.status, 'done');
    assert.equal(by.get('GRD-E-02')?.status, 'ready-for-dev');
    const n = JSON.stringify(json(root, 'next'));
    assert.match(n, /GRD-E-02/);
  });
});

test('a ledger story with no story file whose key names a spec-kit folder (`specs/<key>/tasks.md`) is bound to it: its boxes are its tasks, its status the ledger\'s, no "no file"', () => {
  const tasks = '# Tasks — Story 1.2 (lamp schedule)\n\nEstado: `[x]` done · `[ ]` open\n\n## T1 — Schedule model\n- [x] T001 Write the model\n- [x] T002 Migrate\n\n## T2 — Timer\n- [x] T003 Wire the timer\n- [ ] T004 Verify on a real lamp\n';
  inProject({
    '_bmad/bmm/config.yaml': config,
    [`${IA}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-wick-trimmer: done', '1-2-lamp-schedule: in-progress', '1-3-oil-gauge: review', '1-4-night-mode: done']),
    [`${IA}/1-1-wick-trimmer.md`]: `Status: done\n\n${storyBody('Story 1.1: Wick trimmer', '- [x] Trim')}`,
    'specs/1-2-lamp-schedule/spec.md': '# Feature Specification: Lamp schedule\n\n**Status**: Draft\n',
    'specs/1-2-lamp-schedule/plan.md': '# Plan\n',
    'specs/1-2-lamp-schedule/tasks.md': tasks,
    // A spec alone: bound, no tasks.
    'specs/1-3-oil-gauge/spec.md': '# Feature Specification: Oil gauge\n\n**Status**: Draft\n',
    // A folder named otherwise (not exactly the key) is not the story's.
    'specs/004-night-mode/tasks.md': '# Tasks\n\n- [ ] T001 Dim\n',
  }, (root) => {
    const d = json(root, 'sprint');
    const by = new Map(stories(d).map((s) => [s.key, s]));
    const s2 = by.get('1-2-lamp-schedule');
    assert.equal(s2?.file, 'specs/1-2-lamp-schedule/tasks.md', JSON.stringify(s2));
    assert.equal(s2?.status, 'in-progress');
    assert.deepEqual([s2?.tasks?.done, s2?.tasks?.total], [3, 4]);
    assert.equal(by.get('1-3-oil-gauge')?.file, 'specs/1-3-oil-gauge/spec.md');
    assert.equal(by.get('1-3-oil-gauge')?.status, 'review');
    assert.equal(by.get('1-4-night-mode')?.file ?? null, null);
    const v = json(root, 'validate').problems as P[];
    const noFile = v.filter((p) => p.code === 'ledger-story-no-file').map((p) => p.message);
    assert.equal(noFile.length, 1, JSON.stringify(noFile));
    assert.match(noFile[0], /1-4-night-mode/);
    // The task list states no status: nothing asks for a Status line in it, and its status word is not drift.
    assert.ok(!v.some((p) => p.file.startsWith('specs/') && (p.code === 'story-status-missing' || p.code === 'story-status-drift')), JSON.stringify(v));
  });
});

// The Test Architect's automate workflow, installed: its steps and its declared output.
const automateStep = (name: string, next?: string) => `---\nname: '${name}'\ndescription: 'A step'\noutputFile: '{test_artifacts}/automation-summary.md'\n${next ? `nextStepFile: './${next}.md'\n` : ''}---\n\n# ${name}\n\nDo the step, then save to {outputFile}.\n`;
const teaInstall: Record<string, string> = {
  '_bmad/tea/config.yaml': 'project_name: lantern\noutput_folder: "{project-root}/_bmad-output"\ntest_artifacts: "{project-root}/_bmad-output/test-artifacts"\n',
  '_bmad/tea/workflows/testarch/automate/workflow.yaml': 'name: testarch-automate\ndescription: "Expand test automation"\nconfig_source: "{project-root}/_bmad/tea/config.yaml"\ntest_artifacts: "{config_source}:test_artifacts"\ninstalled_path: "{project-root}/_bmad/tea/workflows/testarch/automate"\ndefault_output_file: "{test_artifacts}/automation-summary.md"\n',
  '_bmad/tea/workflows/testarch/automate/steps-c/step-01-preflight-and-context.md': automateStep('step-01-preflight-and-context', 'step-02-identify-targets'),
  '_bmad/tea/workflows/testarch/automate/steps-c/step-02-identify-targets.md': automateStep('step-02-identify-targets', 'step-03-generate-tests'),
  '_bmad/tea/workflows/testarch/automate/steps-c/step-03-generate-tests.md': automateStep('step-03-generate-tests', 'step-04-validate-and-summarize'),
  '_bmad/tea/workflows/testarch/automate/steps-c/step-04-validate-and-summarize.md': automateStep('step-04-validate-and-summarize'),
};

test('a TEA automate summary named after a story (`3-1-automation-summary.md`) recording its step names without `step-NN-` is the automate workflow\'s artifact, its steps counted', () => {
  const TA = '_bmad-output/test-artifacts';
  inProject({
    ...teaInstall,
    [`${TA}/3-1-automation-summary.md`]: "---\nstepsCompleted: ['preflight', 'identify-targets', 'generate-tests']\nlastStep: 'generate-tests'\nlastSaved: '2026-11-20'\nstory: '3.1'\n---\n\n# Automation Summary — Story 3.1\n",
    [`${TA}/4-2-tea-automation-summary.md`]: "---\nstepsCompleted: ['preflight', 'targets', 'generate', 'validate']\nlastStep: 'validate'\nlastSaved: '2026-11-21'\nstory: '4.2'\n---\n\n# Automation Summary — Story 4.2\n",
    // Step words of no installed workflow's steps: unknown, as before.
    [`${TA}/tea-5-1-fields.md`]: "---\nstepsCompleted: ['risk-analysis', 'test-generation', 'execution']\nstory: '5.1'\n---\n\n# Fields\n",
    // The output's name, but its words are not the workflow's steps in order: not identified by them.
    [`${TA}/6-1-automation-summary.md`]: "---\nstepsCompleted: ['validate', 'preflight']\n---\n\n# Summary\n",
  }, (root) => {
    const s1 = json(root, 'status', `${TA}/3-1-automation-summary.md`);
    const w1 = JSON.stringify(s1);
    assert.match(w1, /"workflow":"(?:testarch-)?automate"/, w1);
    assert.match(w1, /"stepsCompleted":\["step-01-preflight-and-context","step-02-identify-targets","step-03-generate-tests"\]/, w1);
    const s2 = JSON.stringify(json(root, 'status', `${TA}/4-2-tea-automation-summary.md`));
    assert.match(s2, /"workflow":"(?:testarch-)?automate"/, s2);
    assert.match(s2, /"stepsCompleted":\["step-01-preflight-and-context","step-02-identify-targets","step-03-generate-tests","step-04-validate-and-summarize"\]/, s2);
    const s3 = JSON.stringify(json(root, 'status', `${TA}/tea-5-1-fields.md`));
    assert.doesNotMatch(s3, /"workflow":"(?:testarch-)?automate"/, s3);
    const s4 = JSON.stringify(json(root, 'status', `${TA}/6-1-automation-summary.md`));
    assert.doesNotMatch(s4, /"workflow":"(?:testarch-)?automate"/, s4);
    const v = json(root, 'validate').problems as P[];
    assert.ok(!v.some((p) => p.severity === 'error'), JSON.stringify(v));
    assert.ok(!v.some((p) => /3-1-automation|4-2-tea-automation/.test(p.file) && p.code === 'bmad-workflow-unknown'), JSON.stringify(v));
  });
});

test('BMAD quick-dev specs no ledger key names (`spec-{slug}.md`, title and status) are quick-flow artifacts with their status: status and validate know them, next offers the in-review and in-progress ones after the sprint\'s own, never a done or draft one', () => {
  const spec = (title: string, status: string) => `---\ntitle: '${title}'\ntype: 'feature'\ncreated: '2026-11-20'\nstatus: '${status}'\ncontext: []\n---\n\n## Intent\n\n**Problem:** ${title}.\n\n**Approach:** Do it.\n\n## Tasks & Acceptance\n\n- [ ] Do it\n`;
  inProject({
    '_bmad/bmm/config.yaml': config,
    [`${IA}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-wick-trimmer: review']),
    [`${IA}/1-1-wick-trimmer.md`]: `Status: review\n\n${storyBody('Story 1.1: Wick trimmer', '- [x] Trim')}`,
    [`${IA}/spec-hx-101-cache-headers.md`]: spec('HX-101 Cache headers', 'in-review'),
    [`${IA}/spec-hx-102-retry-budget.md`]: spec('HX-102 Retry budget', 'in-progress'),
    [`${IA}/spec-hx-103-old-logs.md`]: spec('HX-103 Old logs', 'done'),
    [`${IA}/spec-hx-104-dark-mode.md`]: spec('HX-104 Dark mode', 'draft'),
  }, (root) => {
    const st = cli(root, 'status', `${IA}/spec-hx-101-cache-headers.md`);
    assert.doesNotMatch(st.stdout + st.stderr, /not a workflow file/, st.stdout + st.stderr);
    const s1 = JSON.stringify(json(root, 'status', `${IA}/spec-hx-101-cache-headers.md`));
    assert.match(s1, /"workflow":"quick-dev"/, s1);
    assert.match(s1, /"rawStatus":"in-review"/, s1);
    const v = json(root, 'validate').problems as P[];
    assert.deepEqual(v.filter((p) => /spec-hx/.test(p.file)), [], JSON.stringify(v));
    const n = json(root, 'next');
    const ids = (list: { id: string }[] | undefined) => (list ?? []).map((e) => e.id);
    const review = ids(n.review);
    assert.equal(review[0], 'story:1-1-wick-trimmer', JSON.stringify(n));
    assert.ok(review.some((id) => /spec-hx-101/.test(id)), JSON.stringify(review));
    // The in-progress one is on the board's in-progress column; the done and the draft one are offered nowhere.
    const b = json(root, 'board').columns;
    assert.ok(ids(b.inProgress).some((id) => /spec-hx-102/.test(id)), JSON.stringify(b));
    const offered = JSON.stringify([n.next, n.ready, n.review, b.ready, b.review, b.inProgress]);
    assert.doesNotMatch(offered, /spec-hx-103|spec-hx-104/, offered);
  });
});

test('a kept sprint follows a frontmatter story and the notes beside it: a status edit, a note edited, a note gaining a story id, each what a cold read says', () => {
  const NOW = new Date('2026-11-30T12:00:00Z');
  const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const shape = (r: ReturnType<typeof loadSprint>) => JSON.stringify(r?.stories.map((x) => [x.key, x.status, x.file && path.basename(x.file), x.tasks]));
  setSprintCacheRacyWindow(0);
  try {
    inProject({
      '_bmad/bmm/config.yaml': config,
      [`${IA}/sprint-status.yaml`]: ledger(['epic-1: in-progress', '1-1-wick-trimmer: done']),
      [`${IA}/1-1-wick-trimmer.md`]: `Status: done\n\n${storyBody('Story 1.1: Wick trimmer', '- [x] Trim')}`,
      [`${IA}/hardening-d02-audit-log.md`]: `---\nstory_key: hardening-d02-audit-log\nstatus: in-progress\n---\n\n${storyBody('Audit log', '- [ ] Write')}`,
      [`${IA}/deferred-work.md`]: '# Deferred work\n\n- a thing\n',
    }, (root) => {
      const same = (what: string) => {
        const kept = loadSprint(root, { now: NOW, cache: true });
        const fresh = loadSprint(root, { now: NOW, cache: false });
        assert.equal(shape(kept), shape(fresh), what);
        return fresh;
      };
      same('first');
      sleep(20);
      fs.writeFileSync(path.join(root, IA, 'hardening-d02-audit-log.md'), `---\nstory_key: hardening-d02-audit-log\nstatus: review\n---\n\n${storyBody('Audit log', '- [x] Write')}`);
      assert.equal(same('status edited')?.stories.find((x) => x.key === 'hardening-d02-audit-log')?.status, 'review');
      sleep(20);
      fs.writeFileSync(path.join(root, IA, 'deferred-work.md'), '# Deferred work\n\n- a thing\n- another\n');
      same('a note edited');
      sleep(20);
      fs.writeFileSync(path.join(root, IA, 'deferred-work.md'), '---\nstory_key: ops-9-clean-up\nstatus: ready-for-dev\n---\n\n# Story OPS-9: Clean up\n');
      assert.ok(same('a note now names a story')?.stories.some((x) => x.key === 'ops-9-clean-up'));
    });
  } finally {
    setSprintCacheRacyWindow(2000);
  }
});

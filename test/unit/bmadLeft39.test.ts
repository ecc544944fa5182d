// Session 39's leftovers of the BMAD reader and writer (docs/bmad-corpus.md, "Leftovers closed (left39)").
// Fixtures written here. Each test failed on the session's start (08e0ed82) before its fix.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { workspace, setStatus } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { WaymarkError } from '../../src/core/errors';
import { loadSprint } from '../../src/core/bmad/sprint';
import { cliJson } from './holdoutHelpers';
import { workflowStanding } from '../../src/core/index';
import { treeStatus } from '../../src/extension/treeStatus';

const IMPL = '_bmad-output/implementation-artifacts';
const LEDGER = `${IMPL}/sprint-status.yaml`;
const storyText = (n: string, title: string, status: string) => `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a keeper, I want ${title}, so that ships see.\n`;

function project(ledger: string, files: Record<string, string> = {}): string {
  return workspace({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    [LEDGER]: ledger,
    [`${IMPL}/1-1-lamp.md`]: storyText('1.1', 'Lamp', 'in-progress'),
    ...files,
  }, { prefix: 'wm-left39-' });
}


const read = (dir: string, rel: string) => fs.readFileSync(path.join(dir, rel), 'utf8');
const ledgerStatusOf = (dir: string, key: string) => loadSprint(dir)?.stories.find((s) => s.key === key)?.ledgerStatus;

describe('story set-status writes every ledger form the reader reads, the status scalar alone', () => {
  // [name, ledger before, story ref, ledger after (in-progress → review)]
  const forms: [string, string, string, string][] = [
    ['a `stories:` map keyed by ids, each a block mapping',
      '# Sprint Status - lighthouse\n\nstories:\n  "1.1":\n    title: "Lamp"\n    status: in-progress   # now\n    epic: 1\n  "1.2":\n    title: "Wick"\n    status: backlog\n    epic: 1\n\nwaves:\n  wave_1:\n    stories: ["1.2"]\n',
      '1.1',
      '# Sprint Status - lighthouse\n\nstories:\n  "1.1":\n    title: "Lamp"\n    status: review   # now\n    epic: 1\n  "1.2":\n    title: "Wick"\n    status: backlog\n    epic: 1\n\nwaves:\n  wave_1:\n    stories: ["1.2"]\n'],
    ['a `stories:` map keyed by ids, each a status word',
      'stories:\n  "1.1": in-progress  # lamp\n  "1.2": backlog\n',
      '1.1',
      'stories:\n  "1.1": review  # lamp\n  "1.2": backlog\n'],
    ['a `stories:` map keyed by ids, each a flow mapping (single quotes kept)',
      "stories:\n  '1.1': {title: Lamp, status: 'in-progress'}\n  '1.2': {title: Wick, status: backlog}\n",
      '1.1',
      "stories:\n  '1.1': {title: Lamp, status: 'review'}\n  '1.2': {title: Wick, status: backlog}\n"],
    ['`stories:` holding one list per epic',
      'stories:\n  epic_1:\n    - id: "1.1"\n      title: Lamp\n      status: in-progress # keep\n    - id: "1.2"\n      status: backlog\n  epic_2:\n    - id: "2.1"\n      status: backlog\n',
      '1.1',
      'stories:\n  epic_1:\n    - id: "1.1"\n      title: Lamp\n      status: review # keep\n    - id: "1.2"\n      status: backlog\n  epic_2:\n    - id: "2.1"\n      status: backlog\n'],
    ['`story-<slug>` items of an epic\'s `stories:` list under `epics:`',
      'epics:\n  - id: epic-1\n    title: "Epic 1 — CI"\n    stories:\n      - id: story-ci-workflows\n        status: "in-progress"\n',
      'story-ci-workflows',
      'epics:\n  - id: epic-1\n    title: "Epic 1 — CI"\n    stories:\n      - id: story-ci-workflows\n        status: "review"\n'],
    ['`story-<slug>` items of a per-epic list under `stories:`',
      'stories:\n  epic-1:\n    - id: story-ci-workflows\n      status: in-progress\n',
      'story-ci-workflows',
      'stories:\n  epic-1:\n    - id: story-ci-workflows\n      status: review\n'],
  ];
  for (const [name, before, ref, after] of forms) {
    test(name, async () => {
      const files: Record<string, string> = ref.startsWith('story-') ? { 'docs/stories/story-ci-workflows.md': '# Story: CI workflows\n\nStatus: in-progress\n\n## Story\n\nAs a dev, I want CI, so that builds run.\n' } : {};
      const dir = project(before, files);
      try {
        assert.equal(ledgerStatusOf(dir, ref), 'in-progress', 'the reader reads the entry');
        const r = await setStatus(dir, ref, 'review');
        assert.equal(r.changed, true);
        assert.equal(read(dir, LEDGER), after);
        const storyFile = ref.startsWith('story-') ? 'docs/stories/story-ci-workflows.md' : `${IMPL}/1-1-lamp.md`;
        assert.match(read(dir, storyFile), /^Status: review$/m, 'the story file changed in the same write');
        assert.equal(ledgerStatusOf(dir, ref), 'review');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('the same rules as the other forms: done is not rewound (unless forced), a stale hash is a conflict, nothing moves', async () => {
    const ledger = 'stories:\n  epic_1:\n    - id: "1.1"\n      status: done\n';
    const dir = project(ledger, { [`${IMPL}/1-1-lamp.md`]: storyText('1.1', 'Lamp', 'done') });
    try {
      await assert.rejects(setStatus(dir, '1.1', 'in-progress'), (e) => WaymarkError.is(e) && e.reason === 'transition' && /--force/.test(e.message));
      assert.equal(read(dir, LEDGER), ledger);
      await assert.rejects(setStatus(dir, '1.1', 'done', { expectHash: 'f'.repeat(64) }), (e) => WaymarkError.is(e) && e.reason === 'conflict');
      assert.equal(read(dir, LEDGER), ledger);
      await setStatus(dir, '1.1', 'in-progress', { force: true });
      assert.equal(read(dir, LEDGER), ledger.replace('status: done', 'status: in-progress'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('escaped and quoted ledger keys are the key they name', () => {
  test('`\\"1.1\\":` and `\'1.2\':` in a `stories:` map: read as 1.1 and 1.2, written with the key\'s bytes kept', async () => {
    const ledger = 'stories:\n  \\"1.1\\":\n    title: \\"Lamp\\"\n    status: in-progress\n  \'1.2\':\n    status: backlog\n  "1.3":\n    status: backlog\n';
    const dir = project(ledger);
    try {
      const s = loadSprint(dir)!;
      assert.deepEqual(s.stories.map((x) => [x.key, x.ledgerStatus]), [['1.1', 'in-progress'], ['1.2', 'backlog'], ['1.3', 'backlog']]);
      await setStatus(dir, '1.1', 'review');
      assert.equal(read(dir, LEDGER), ledger.replace('status: in-progress', 'status: review'));
      await setStatus(dir, '1.2', 'ready-for-dev');
      assert.equal(read(dir, LEDGER), ledger.replace('status: in-progress', 'status: review').replace("'1.2':\n    status: backlog", "'1.2':\n    status: ready-for-dev"));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('`\\"1-1-lamp\\": in-progress` under development_status: read as 1-1-lamp, its status written in place', async () => {
    const ledger = 'development_status:\n  epic-1: in-progress\n  \\"1-1-lamp\\": in-progress\n  "1-2-wick": backlog\n';
    const dir = project(ledger);
    try {
      const s = loadSprint(dir)!;
      assert.deepEqual(s.stories.map((x) => [x.key, x.ledgerStatus]), [['1-1-lamp', 'in-progress'], ['1-2-wick', 'backlog']]);
      await setStatus(dir, '1-1', 'review');
      assert.equal(read(dir, LEDGER), ledger.replace('\\"1-1-lamp\\": in-progress', '\\"1-1-lamp\\": review'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a v4 story whose QA Results end in a Final Status that the Status line has not caught up with', () => {
  // BMAD v4.20–v4.39's review-story writes `### Final Status` at the end of `## QA Results`
  // (`✓ Approved - Ready for Done` / `✗ Changes Required - …`) and has the QA agent set Status to
  // Done when it approves; the Status line left at Review is the stale one.
  const v4 = (status: string, qa: string, dev = '') => `# Story 1.1: Lamp\n\n## Status\n\n${status}\n\n## Story\n\n**As a** keeper,\n**I want** a lamp,\n**so that** ships see.\n\n## Tasks / Subtasks\n\n- [x] Task 1: glass\n\n## Dev Agent Record\n\n${dev}\n## QA Results\n\n### Review Date: 2025-08-01\n\n${qa}`;
  const files = (text: string) => ({ '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n', 'docs/stories/1.1.story.md': text });
  const finalProblems = (dir: string) => (loadSprint(dir)?.stories[0]?.problems ?? []).filter((p) => /Final Status/.test(p.message));

  test('an approval below a stale Review: a warning naming both lines and the command; the story stands at done; set-status aligns them', async () => {
    const dir = workspace(files(v4('Review', '### Final Status\n\n✓ Approved - Ready for Done\n')), { prefix: 'wm-left39-' });
    try {
      const s = loadSprint(dir)!.stories[0];
      assert.equal(s.status, 'done');
      const [p, more] = finalProblems(dir);
      assert.equal(more, undefined);
      assert.equal(p.severity, 'warning');
      assert.match(p.message, /line 5\b/);
      assert.match(p.message, /line 2[0-9]\b/);
      assert.match(p.message, new RegExp(`waymark story set-status ${s.key} done\\.`));
      await setStatus(dir, '1.1', 'done');
      assert.match(read(dir, 'docs/stories/1.1.story.md'), /## Status\n\nDone\n/);
      assert.deepEqual(finalProblems(dir), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('`Final Status: Done` as a line, under a `## Status: To Do`: the same, and the command the warning names is not refused as done unstarted', async () => {
    const dir = workspace(files(v4('To Do', '**Final Status:** Done\n').replace('## Status\n\nTo Do', '## Status: To Do')), { prefix: 'wm-left39-' });
    try {
      assert.equal(loadSprint(dir)!.stories[0].status, 'done');
      assert.equal(finalProblems(dir).length, 1);
      await setStatus(dir, loadSprint(dir)!.stories[0].key, 'done');
      assert.deepEqual(finalProblems(dir), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('changes required below a Done: warned with the forced command, the story stays done (no rewind)', () => {
    const dir = workspace(files(v4('Done', '### Final Status\n\n✗ Changes Required - See unchecked items above\n')), { prefix: 'wm-left39-' });
    try {
      assert.equal(loadSprint(dir)!.stories[0].status, 'done');
      const [p] = finalProblems(dir);
      assert.match(p?.message ?? '', /waymark story set-status 1-1-story review --force/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('no warning when they agree, for the unfilled template, for v4.40\'s Recommended Status, or a Final Status outside QA Results', () => {
    for (const text of [
      v4('Done', '### Final Status\n\n✓ Approved - Ready for Done\n'),
      v4('Review', '### Final Status\n\n✗ Changes Required - See unchecked items above\n'),
      v4('Review', '### Final Status\n\n[✓ Approved - Ready for Done] / [✗ Changes Required - See unchecked items above]\n'),
      v4('Review', '### Recommended Status\n\n✓ Ready for Done\n(Story owner decides final status)\n'),
      v4('Review', 'Looks fine.\n', '### Final Status\n\nComplete: all tests pass\n'),
    ]) {
      const dir = workspace(files(text), { prefix: 'wm-left39-' });
      try {
        assert.deepEqual(finalProblems(dir), [], text);
        const s = loadSprint(dir)!.stories[0];
        assert.equal(s.status, /^Done$/m.test(text.split('## Story')[0]) ? 'done' : 'review', text);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('optional steps are the ones the installed workflow marks optional in its own step files', () => {
  const config = 'output_folder: _bmad-output\nplanning_artifacts: _bmad-output/planning-artifacts\n';
  /** A workflow installed under `_bmad/bmm/workflows/<name>`, `marks[id]` the step file's marking of itself. */
  const install = (name: string, ids: string[], marks: Record<string, (id: string) => string> = {}): Record<string, string> => {
    const dir = `_bmad/bmm/workflows/2-plan-workflows/${name}`;
    const files: Record<string, string> = { [`${dir}/workflow.md`]: `---\nname: ${name}\ndescription: Write it\n---\n\n# ${name}\n\nLoad steps-c/${ids[0]}.md.\n` };
    for (const id of ids) files[`${dir}/steps-c/${id}.md`] = marks[id]?.(id) ?? `---\nname: '${id}'\ndescription: 'Do the step'\n---\n\n# ${id}\n\nDo it.\n`;
    return files;
  };
  const doc = (type: string, steps: string[]) => `---\nstepsCompleted: [${steps.map((s) => `'${s}'`).join(', ')}]\ninputDocuments: []\nworkflowType: '${type}'\n---\n\n# Document\n`;
  const gapsIn = (files: Record<string, string>) => {
    const dir = workspace(files, { prefix: 'wm-left39-', waymark: false });
    try {
      const v = cliJson(dir, 'validate') as { problems: { code: string; file: string }[] };
      return v.problems.filter((p) => p.code === 'step-gap').map((p) => path.basename(p.file)).sort();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  const prdIds = ['step-01-init', 'step-02-discovery', 'step-03-success', 'step-04-journeys', 'step-05-domain', 'step-06-innovation', 'step-07-project-type', 'step-08-scoping'];

  test('a step marked by its title `(Optional)`, by `OPTIONAL STEP` in its rules, or by its description is passed over without a gap; an unmarked step of the same install is a gap', () => {
    const gaps = gapsIn({
      '_bmad/bmm/config.yaml': config,
      ...install('create-brochure', ['step-01-init', 'step-02-photos', 'step-03-rules', 'step-04-described', 'step-05-prices', 'step-06-print'], {
        // (Step files run past any head's size: 10 KB here.)
        'step-02-photos': () => `# Step 2: Photos (Optional)\n\n**Progress: Step 2 of 6**\n\n${'Say what each photo shows and who took it.\n'.repeat(250)}`,
        'step-03-rules': () => "---\nname: 'step-03-rules'\n---\n# Step 3: Rules\n\n## RULES\n\n- 🎯 OPTIONAL STEP: only when the venue asks for them\n",
        'step-04-described': () => "---\nname: 'step-04-described'\ndescription: 'Add a map (optional step)'\n---\n# Step 4: Map\n",
      }),
      '_bmad-output/planning-artifacts/brochure.md': doc('brochure', ['step-01-init', 'step-05-prices', 'step-06-print']),
      '_bmad-output/planning-artifacts/brochure-gap.md': doc('brochure', ['step-01-init', 'step-02-photos', 'step-03-rules', 'step-04-described', 'step-06-print']),
    });
    assert.deepEqual(gaps, ['brochure-gap.md']);
  });

  test('an installed create-prd whose innovation step is not marked optional: skipping it is a gap (the fixed list is only for what is not installed)', () => {
    const gaps = gapsIn({
      '_bmad/bmm/config.yaml': config,
      ...install('create-prd', prdIds),
      '_bmad-output/planning-artifacts/prd.md': doc('prd', ['step-01-init', 'step-02-discovery', 'step-03-success', 'step-04-journeys', 'step-05-domain', 'step-07-project-type']),
    });
    assert.deepEqual(gaps, ['prd.md']);
  });
});

describe('the Delegation and Gates views show the standing the Workflows view shows', () => {
  test('treeStatus: a delegated, gated workflow kept in archive/ shows archived with its phrase; a live one its own status', async () => {
    const wf = (id: string) => `---\nworkflow: ${id}\nstatus: in_progress\nsteps: [plan, ship]\ncurrentStep: ship\nstepsCompleted: [plan]\ndelegation:\n  id: ${id}\n  root_id: ${id}\n  depth: 0\n  chain_path: [${id}]\n---\n# ${id}\n`;
    const dir = workspace({ 'workflows/archive/old-rollout.md': wf('old-rollout'), 'workflows/live-rollout.md': wf('live-rollout') }, { prefix: 'wm-left39-' });
    const core = createStateCore({ roots: [dir], memory: false, actor: 'test' });
    try {
      const scan = await core.scan();
      const shown = (name: string) => {
        const state = scan.workflows.find((w) => w.file.endsWith(name))!;
        assert.ok(state.delegation, `${name} is delegated`);
        return treeStatus(state, workflowStanding(state));
      };
      assert.deepEqual(shown('old-rollout.md'), { status: 'archived', note: 'set aside: kept in archive/ for the record' });
      assert.deepEqual(shown('live-rollout.md'), { status: 'in_progress' });
    } finally {
      await core.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

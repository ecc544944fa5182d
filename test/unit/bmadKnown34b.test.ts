// Session 34, known34b (issue 20): ledgers as projects really keep them. Fixtures written here, no
// copied text. Each rule's test failed before its rule (run it with WAYMARK_CLI set to
// /work/scratch/base-s34/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inProject } from './fileHelpers';
import { runCli as cli, cliJson as json } from './holdoutHelpers';

type S = { key: string; ledgerStatus?: string | null; status: string; file?: string | null };
const stories = (d: { epics: { stories: S[] }[] }) => d.epics.flatMap((e) => e.stories);
type P = { code: string; severity: string; file: string; message: string };
const problems = (v: { problems: P[] }) => v.problems;
const addonStory = (n: string, title: string, status: string) => `# STORY-${n}: ${title}\n\n**Epic:** Bridges\n**Status:** ${status}\n\n## User Story\n\nAs an operator,\nI want ${title.toLowerCase()},\nSo that the bridge keeps running.\n\n## Acceptance Criteria\n\n- [x] It works\n`;
// The add-on's project config, in a folder the team renamed, naming the ledger file under `bmm:`.
const addonConfig = (ledger: string) => `# project configuration\nproject_name: "Harbour"\noutput_folder: "docs"\n\nbmm:\n  workflow_status_file: "docs/bmm-workflow-status.yaml"\n  sprint_status_file: "${ledger}"\n\npaths:\n  stories: "docs/stories"\n`;

test('the ledger the config names (`bmm: sprint_status_file:`) wins over an older plan found by guessing, and its `epics: - stories: - id:` lists are read', () => {
  inProject({
    'bmad-old/config.yaml': addonConfig('docs/sprint-status.yaml'),
    // The first plan, left beside the old config: STORY-021 not started there.
    'bmad-old/sprint-status.yaml': ['sprints:', '  - number: 1', '    stories:', '      - id: STORY-020', '        status: completed', '      - id: STORY-021', '        status: not_started', ''].join('\n'),
    'docs/sprint-status.yaml': [
      'project_name: "Harbour"', 'sprint_number: 2', 'last_updated: "2026-02-10"',
      'completed_sprints:', '  - sprint_number: 1', '    stories_completed:', '      - STORY-020',
      'epics:',
      '  - id: "HB-2"', '    name: "Bridge control"', '    status: "in-progress"', '    stories:',
      '      - id: "STORY-021"', '        name: "Lift sequence"', '        status: "completed"', '        blocked_by: ["STORY-020"]',
      '      - id: "STORY-022"', '        name: "Traffic lights"', '        status: "in-progress"',
      '', 'upcoming:', '  - sprint_number: 3', '    stories:', '      - STORY-030  # later', '',
    ].join('\n'),
    'docs/stories/STORY-021.md': addonStory('021', 'Lift sequence', 'Completed'),
    'docs/stories/STORY-022.md': addonStory('022', 'Traffic lights', 'In Progress'),
  }, (root) => {
    const d = json(root, 'sprint');
    assert.equal(d.ledger, 'docs/sprint-status.yaml');
    assert.deepEqual(d.ledgers, ['docs/sprint-status.yaml']);
    const by = new Map(stories(d).map((s) => [s.key, s]));
    assert.equal(by.get('STORY-021')?.ledgerStatus, 'done');
    assert.equal(by.get('STORY-022')?.ledgerStatus, 'in-progress');
    // The epic's own id and the blocked_by reference are no stories.
    assert.ok(!by.has('HB-2') && !by.has('STORY-020'), JSON.stringify([...by.keys()]));
    const v = json(root, 'validate');
    const drift = problems(v).filter((p) => p.code === 'story-status-drift' || p.code === 'ledger-other-format');
    assert.deepEqual(drift, []);
  });
});

test('a ledger of `epics:` each listing its `stories:` with their statuses is read: its stories take part in drift', () => {
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: kiln\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': [
      'project: kiln', 'epics:', '  - id: 1', '    name: "Firing"', '    status: in-progress', '    stories:',
      '      - id: "1-1"', '        slug: glaze-timer', '        status: done',
      '      - id: "1-2"', '        slug: cone-chart', '        status: backlog', '',
    ].join('\n'),
    '_bmad-output/implementation-artifacts/1-1-glaze-timer.md': '# Story 1.1: Glaze timer\n\nStatus: ready-for-dev\n\n## Story\n\nAs a potter, I want a glaze timer, so that pots come out right.\n\n## Acceptance Criteria\n\n1. It times.\n\n## Tasks / Subtasks\n\n- [ ] Build it\n',
  }, (root) => {
    const d = json(root, 'sprint');
    const s = stories(d).find((x) => x.file?.endsWith('1-1-glaze-timer.md'));
    assert.equal(s?.ledgerStatus, 'done', JSON.stringify(stories(d)));
    const v = json(root, 'validate');
    assert.ok(problems(v).some((p) => p.code === 'story-status-drift' && p.severity === 'warning' && p.file.endsWith('1-1-glaze-timer.md')), JSON.stringify(problems(v)));
  });
});

test('a ledger the config names outside the workspace is neither read nor written, and said', () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-outside-'));
  const ledger = path.join(outside, 'sprint-status.yaml');
  const text = ['epics:', '  - id: "HB-2"', '    stories:', '      - id: "STORY-021"', '        status: "in-progress"', ''].join('\n');
  fs.writeFileSync(ledger, text);
  try {
    inProject({
      'bmad/config.yaml': addonConfig(`{project-root}/../${path.basename(outside)}/sprint-status.yaml`),
      'docs/stories/STORY-021.md': addonStory('021', 'Lift sequence', 'In Progress'),
    }, (root) => {
      fs.renameSync(outside, path.join(path.dirname(root), path.basename(outside)));
      const moved = path.join(path.dirname(root), path.basename(outside), 'sprint-status.yaml');
      try {
        const d = json(root, 'sprint');
        assert.ok(!d.ledger, JSON.stringify(d.ledger));
        const v = json(root, 'validate');
        assert.ok(problems(v).some((p) => p.file === 'bmad/config.yaml' && /outside the workspace/.test(p.message)), JSON.stringify(problems(v)));
        cli(root, 'story', 'set-status', 'STORY-021', 'review');
        assert.equal(fs.readFileSync(moved, 'utf8'), text);
      } finally {
        fs.rmSync(path.dirname(moved), { recursive: true, force: true });
      }
    });
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

test('a ledger key of no grammar whose story file (`<key>.md`, `story-<key>.md`) is in the story folder is a story of no epic, bound to that file', () => {
  const slugStory = (title: string, status: string) => `# Story: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a learner, I want ${title.toLowerCase()}, so that I keep going.\n\n## Acceptance Criteria\n\n1. It works.\n\n## Tasks / Subtasks\n\n- [x] Build it\n`;
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: lantern\noutput_folder: "{project-root}/docs"\nimplementation_artifacts: "{project-root}/docs/sprint-artifacts"\n',
    'docs/sprint-artifacts/sprint-status.yaml': [
      'generated: "2026-01-04"', 'story_location: "docs/sprint-artifacts"', '', 'development_status:', '  # first phase',
      '  story-night-sky-deployment: done', '  star-chart-cleanup: done', '  warmup-notes: done', '',
      '  epic-2: in-progress', '  2-1-comet-list: in-progress', '  epic-2-retrospective: optional', '',
    ].join('\n'),
    'docs/sprint-artifacts/story-night-sky-deployment.md': slugStory('Night sky deployment', 'in-progress'),
    'docs/sprint-artifacts/story-star-chart-cleanup.md': slugStory('Star chart cleanup', 'done'),
    'docs/sprint-artifacts/2-1-comet-list.md': '# Story 2.1: Comet list\n\nStatus: in-progress\n\n## Story\n\nAs a learner, I want a comet list.\n\n## Acceptance Criteria\n\n1. It lists.\n\n## Tasks / Subtasks\n\n- [ ] Build it\n',
  }, (root) => {
    const d = json(root, 'sprint');
    const by = new Map(stories(d).map((s) => [s.key, s]));
    assert.equal(by.get('story-night-sky-deployment')?.file, 'docs/sprint-artifacts/story-night-sky-deployment.md', JSON.stringify([...by.keys()]));
    assert.equal(by.get('star-chart-cleanup')?.file, 'docs/sprint-artifacts/story-star-chart-cleanup.md');
    // A key of no grammar with no file stays a skipped key.
    assert.ok(!by.has('warmup-notes'));
    const v = json(root, 'validate');
    const drift = problems(v).filter((p) => p.code === 'story-status-drift' && p.severity === 'warning').map((p) => p.file);
    assert.deepEqual(drift, ['docs/sprint-artifacts/story-night-sky-deployment.md']);
    assert.ok(problems(v).some((p) => p.code === 'ledger-unknown-key' && /1 key is read by no BMAD grammar and skipped \(warmup-notes\)/.test(p.message)), JSON.stringify(problems(v).filter((p) => p.code === 'ledger-unknown-key')));
    // next never offers the finished slug stories.
    const n = json(root, 'next');
    assert.ok(!JSON.stringify(n).includes('star-chart-cleanup'), JSON.stringify(n));
  });
});

// Real projects read right (issue 20, session 22): rules the reader learned from projects nobody
// working on it had seen, each with a fixture written here.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseLedger } from '../../src/core/bmad/ledger';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { normalizeStoryStatus } from '../../src/core/bmad/story';
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
  const steps = ['step-01-document-discovery', 'step-02-prd-analysis', 'step-03-epic-coverage-validation', 'step-04-ux-alignment', 'step-05-final-assessment', 'step-05b-final-assessment'].map((id, index) => ({ id, index }));
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

describe('a ledger\'s own word for a finished story (`review-complete`, `merged`) beside a story file that says `complete`', () => {
  const files = {
    ...V6,
    'docs/impl/sprint-status.yaml': ledgerOf(['epic-6: in-progress', '6-1a-audit-write-path: review-complete', '6-1b-audit-read-path: merged', '6-2-flag-dashboard: ready-for-dev']),
    'docs/impl/6-1a-audit-write-path.md': storyFile('6.1a', 'Audit Write Path', 'Status: complete', '- [x] Write the audit row\n- [x] Index it\n'),
    'docs/impl/6-1b-audit-read-path.md': storyFile('6.1b', 'Audit Read Path', 'Status: done'),
    'docs/impl/6-2-flag-dashboard.md': storyFile('6.2', 'Flag Dashboard', 'Status: ready-for-dev', '- [ ] Build it\n'),
  };
  test('is done, with a note; nothing warned, and next offers only the open story', () => {
    const dir = project(files);
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => `${p.code} ${p.message}`), []);
    assert.deepEqual(r.stories.map((s) => [s.key, s.status]), [['6-1a-audit-write-path', 'done'], ['6-1b-audit-read-path', 'done'], ['6-2-flag-dashboard', 'ready-for-dev']]);
    const n = cli(dir, 'next');
    const ready = (JSON.parse(n.stdout) as { ready: { id: string }[] }).ready.map((x) => x.id);
    assert.deepEqual(ready.filter((id) => /6-1/.test(id)), [], ready.join(', '));
  });
});

describe('two files for one story keyed with its epic\'s letter (`e6-9-user-access` : `E6-9.md` and `6-9-user-access.md`)', () => {
  test('the file named by the key\'s slug is the story\'s; the other is a second file, not a story missing from the ledger', () => {
    const dir = project({
      ...V6,
      'docs/impl/sprint-status.yaml': ledgerOf(['epic-e6: done', 'e6-8-group-pages: done', 'e6-9-user-access: done', 'epic-e6-retrospective: optional']),
      'docs/impl/stories/E6-8.md': storyFile('6.8', 'Group Pages', 'Status: done'),
      'docs/impl/stories/E6-9.md': storyFile('6.9', 'User Access', 'Status: done'),
      'docs/impl/stories/6-9-user-access.md': storyFile('6.9', 'User Access', 'Status: ready-for-dev'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const s = r.stories.find((x) => x.key === 'e6-9-user-access')!;
    assert.ok(s.file?.endsWith('6-9-user-access.md') && !s.file.endsWith('E6-9.md'), `file ${s.file}`);
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => `${p.file.replace(/^.*\/impl\//, '')} ${p.code}`), ['stories/6-9-user-access.md story-status-drift']);
    assert.ok(r.problems.some((p) => p.code === 'story-file-duplicate' && /E6-9\.md$/.test(p.file)), JSON.stringify(r.problems));
  });
});

describe('a QA gate whose verdict is its overall status, or sits in its metadata block', () => {
  const gate = (text: string) => parseQaGate('/p/docs/qa/gates/2.3-help-suggestions.yml', text, NOW);
  test('`overall_status: "PASS"` above a Markdown report (the file is not YAML past its head) is PASS', () => {
    const g = gate('---\nstory: "2.3"\nqa_engineer: "Quinn"\noverall_status: "PASS"\nquality_score: "96/100"\n\n# Quality Gate Decision\n\n## Summary\nStory 2.3 demonstrates **exceptional** quality: all criteria met.\n\n| Requirement | Status |\n|---|---|\n| Privacy | PASS |\n');
    assert.equal(g.verdict, 'PASS');
    assert.equal(gate('story: "2.3"\nfinal_status: CONCERNS\nnotes: fine\n').verdict, 'CONCERNS');
  });
  test('`metadata: gate_decision: "PASS"` (and a summary\'s `verdict:`) is PASS; a block\'s plain `status: done` is no verdict', () => {
    assert.equal(gate('# Quality Gate Assessment: Story 5.1\n\nmetadata:\n  story_id: "5.1"\n  reviewer: "Quinn"\n  gate_decision: "PASS"\n\nexecutive_summary:\n  verdict: "PASS"\n  risk_level: LOW\n').verdict, 'PASS');
    assert.equal(gate('summary:\n  verdict: FAIL\n').verdict, 'FAIL');
    assert.equal(gate('metadata:\n  status: done\nreview:\n  checks:\n    status: PASS\n').verdict, undefined);
    // A key written twice further down (a list's summary) does not unsay it.
    assert.equal(gate('files:\n  count: 4\n  status: "VERIFIED"\n  status: "VERIFIED"\ngate_decision_summary:\n  decision: "PASS"\n  confidence: high\n').verdict, 'PASS');
  });
});

describe('a tracker\'s words on a story file (`Open — owner checklist`, `New`, `Reopened`)', () => {
  test('are read as BMAD\'s: open and new are not started (backlog), reopened is work under way', () => {
    assert.equal(normalizeStoryStatus('Open — owner checklist. All engineering it depends on is done').status, 'backlog');
    assert.equal(normalizeStoryStatus('New').status, 'backlog');
    assert.equal(normalizeStoryStatus('Reopened').status, 'in-progress');
  });
});

describe('a story numbered with a part after a dot under a dotted epic (`2.5-2.1-pipeline-throughput` under `epic-2.5`)', () => {
  test('is story 2.1 of epic 2.5: no key skipped, its drift found', () => {
    const dir = project({
      ...V6,
      'docs/impl/sprint-status.yaml': ledgerOf(['epic-2.5: in-progress', '2.5-1-large-documents: done', '2.5-2.1-pipeline-throughput: done  # Code review APPROVED', '2.5-2.10-memory-budget: backlog', 'epic-2.5-retrospective: optional']),
      'docs/impl/2.5-1-large-documents.md': storyFile('2.5.1', 'Large Documents', 'Status: done'),
      'docs/impl/2.5-2.1-pipeline-throughput.md': storyFile('2.5-2.1', 'Pipeline Throughput', 'Status: review'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => `${p.file.replace(/^.*\/impl\//, '')} ${p.code}`), ['2.5-2.1-pipeline-throughput.md story-status-drift']);
    assert.deepEqual(r.epics.map((e) => [e.id, e.stories.map((s) => [s.key, s.story])]), [['2.5', [['2.5-1-large-documents', '1'], ['2.5-2.1-pipeline-throughput', '2.1'], ['2.5-2.10-memory-budget', '2.10']]]]);
  });
});

describe('step-tracked artifacts of a project whose install is not in git', () => {
  test('a shard of a sharded epics document (`epics/23-epic-6.md`) and a code review report (`code-review-1-2.md`) are their workflows\' artifacts', () => {
    const dir = project({
      '_bmad-output/planning-artifacts/epics/01-overview.md': '# Overview\n',
      '_bmad-output/planning-artifacts/epics/23-epic-6.md': '---\nstepsCompleted:\n  - step-01-validate-prerequisites\n  - step-02-design-epics\ninputDocuments:\n  - _bmad-output/planning-artifacts/prd.md\n---\n\n# Epic 6\n',
      '_bmad-output/test-artifacts/code-reviews/code-review-1-2.md': "---\nstepsCompleted: ['step-01-gather-context', 'step-02-review']\nlastStep: 'step-02-review'\nstory_key: '1-2-data-model'\n---\n\n# Code Review — Story 1.2\n",
    });
    const v = cli(dir, 'validate', '.');
    const problems = (JSON.parse(v.stdout) as { problems: { file: string; code: string }[] }).problems;
    assert.deepEqual(problems.filter((p) => p.code === 'bmad-workflow-unknown').map((p) => p.file), []);
    const s = cli(dir, 'status', '_bmad-output/planning-artifacts/epics/23-epic-6.md');
    assert.equal((JSON.parse(s.stdout) as { workflows: { workflow: string }[] }).workflows[0].workflow, 'create-epics-and-stories');
  });
});

describe('a repository that is a BMAD project and holds another in a subfolder (`test-platform/docs/sprint-status.yaml`)', () => {
  test('`waymark sprint` run inside the subfolder reads the subfolder\'s project; from the root, the root\'s', () => {
    const dir = project({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'docs/sprint-status.yaml': ledgerOf(['epic-1: in-progress', '1-1-provider-interface: done']),
      'docs/stories/1-1-provider-interface.md': storyFile('1.1', 'Provider Interface', 'Status: done'),
      'test-platform/config.yaml': 'project_root: /home/someone/repo/test-platform\noutput_folder: /home/someone/repo/test-platform/docs\n',
      'test-platform/docs/sprint-status.yaml': ledgerOf(['epic-1: backlog', '1-1-database-schema: ready-for-dev']),
      'test-platform/docs/stories/epic-1/1-1-database-schema.md': storyFile('1.1', 'Database Schema', 'Status: ready-for-dev', '- [ ] Migrate\n'),
    });
    const sprintIn = (cwd: string) => {
      const r = spawnSync(process.execPath, [CLI, 'sprint', '--json'], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
      assert.equal(r.status, 0, r.stderr);
      return (JSON.parse(r.stdout) as { epics: { stories: { key: string }[] }[] }).epics.flatMap((e) => e.stories.map((x) => x.key));
    };
    assert.deepEqual(sprintIn(path.join(dir, 'test-platform')), ['1-1-database-schema']);
    assert.deepEqual(sprintIn(path.join(dir, 'test-platform', 'docs', 'stories')), ['1-1-database-schema']);
    assert.deepEqual(sprintIn(dir), ['1-1-provider-interface']);
    assert.deepEqual(sprintIn(path.join(dir, 'docs')), ['1-1-provider-interface']);
  });
});

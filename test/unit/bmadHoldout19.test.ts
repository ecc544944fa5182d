// Real projects read right (issue 20, session 19's held-out batches, measured on projects nobody
// working on the reader had seen): a story the team stopped using (`NOT USED - MERGED INTO STORY
// 3-9`, the ledger's `not-used`) is set aside, not a status to guess at; `Approved for Production`
// is finished work; a QA gate a later section of the story re-decides (`## QA Response` …
// `Gate: PASS` after `## QA Results` … `Gate: FAIL`) is the story's last verdict; and of two
// ledgers, the one whose keys name the story files is the project's live one.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus, parseStory, setAsideStatus } from '../../src/core/bmad/story';
import { workspace } from './fileHelpers';

const NOW = new Date('2026-11-29T07:00:00Z');
const CLI = path.resolve('dist/cli.js');

const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout19-', waymark: false });
const cli = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args, '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });

type Problem = { severity: string; code: string; file: string; message: string };
const notes = (problems: Problem[], severity: (s: string) => boolean) =>
  problems.filter((p) => severity(p.severity)).map((p) => `${path.basename(p.file)} ${p.code}`).sort();
const warned = (problems: Problem[]) => notes(problems, (s) => s !== 'info');

const ledgerOf = (rows: string[]) => ['project: tender', 'development_status:', ...rows.map((r) => `  ${r}`), ''].join('\n');
const storyFile = (n: string, title: string, status: string, tasks = '- [x] Build it\n') =>
  `# Story ${n}: ${title}\n\n${status}\n\n## Story\n\nAs a clerk, I want ${title.toLowerCase()}, so that tenders close on time.\n\n## Tasks / Subtasks\n\n${tasks}`;

const V6_BETA = { '.bmad/bmm/config.yaml': 'project_name: tender\nbmad_folder: .bmad\noutput_folder: "{project-root}/docs"\n' };

describe('a story the team stopped using', () => {
  test('`not used`, `merged into …` and their kin set a story aside; `Merged` alone is still done', () => {
    for (const w of ['NOT USED - MERGED INTO STORY 3-9', 'not-used', 'Not needed', 'Merged into 2-4', 'Consolidated into Story 3.9', 'folded into 5-1']) {
      assert.ok(setAsideStatus(w), `${w} sets the story aside`);
    }
    assert.equal(setAsideStatus('Merged'), undefined);
    assert.equal(setAsideStatus('merged to main'), undefined);
    assert.equal(normalizeStoryStatus('Merged').suggestion, 'done');
  });

  test('a file and a ledger that both say so agree: no warning, no drift, and `next` passes over it', () => {
    const dir = project({
      ...V6_BETA,
      'docs/sprint-status.yaml': ledgerOf([
        'epic-3: in-progress',
        '3-7-contractor-cards: done',
        '3-8-tender-release: not-used',
        '3-9-release-and-submission: ready-for-dev',
      ]),
      'docs/stories/3-7-contractor-cards.md': storyFile('3.7', 'Contractor Cards', 'Status: Done'),
      'docs/stories/3-8-tender-release.md': storyFile('3.8', 'Tender Release', '**Status: NOT USED - MERGED INTO STORY 3-9**', '- [ ] Release a tender\n'),
      'docs/stories/3-9-release-and-submission.md': storyFile('3.9', 'Release and Submission', 'Status: Ready for Development', '- [ ] Release a tender\n'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(warned(r.problems), []);
    const v = cli(dir, 'validate', '.');
    assert.deepEqual(warned(JSON.parse(v.stdout).problems), [], v.stdout);
    const n = JSON.parse(cli(dir, 'next').stdout);
    assert.match(JSON.stringify(n), /3-9-release-and-submission|3\.9/);
    assert.doesNotMatch(JSON.stringify(n.recommendation ?? n.next ?? n), /3-8-tender-release/);
  });

  test('the file set aside while the ledger still counts the story open is drift, reported', () => {
    const dir = project({
      ...V6_BETA,
      'docs/sprint-status.yaml': ledgerOf(['epic-3: in-progress', '3-8-tender-release: ready-for-dev']),
      'docs/stories/3-8-tender-release.md': storyFile('3.8', 'Tender Release', 'Status: Not used (merged into 3-9)', '- [ ] Release a tender\n'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(warned(r.problems).filter((p) => !/drift/.test(p)), []);
    assert.ok(r.problems.some((p) => p.code === 'story-status-drift'), JSON.stringify(r.problems));
  });
});

describe('`Approved for Production`', () => {
  test('is finished work, not an unknown word; `Approved for Dev` stays ready-for-dev', () => {
    assert.equal(normalizeStoryStatus('Approved for Production').suggestion, 'done');
    assert.equal(normalizeStoryStatus('Approved for Release').suggestion, 'done');
    assert.equal(normalizeStoryStatus('Approved for Dev').status, 'ready-for-dev');
    const s = parseStory('/p/docs/stories/1.4.story.md', storyFile('1.4', 'Invites', '## Status\n\nApproved for Production (All QA Issues Resolved - 2025-10-21)'));
    assert.equal(s.status, 'Approved for Production');
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n',
      'docs/stories/1.4.story.md': storyFile('1.4', 'Invites', '## Status\n\nApproved for Production (All QA Issues Resolved - 2025-10-21)'),
    });
    const v = cli(dir, 'validate', '.');
    assert.deepEqual(warned(JSON.parse(v.stdout).problems), [], v.stdout);
  });
});

describe('a QA gate decided again later in the story', () => {
  const gateFile = 'schema: 1\nstory: "5.1"\ngate: FAIL\nstatus_reason: "Anthropic provider missing"\nreviewer: "Quinn (Test Architect)"\nupdated: "2025-10-23T23:02:52Z"\n';
  const withReviews = (...sections: string[]) =>
    `# Story 5.1: AI Foundation\n\n## Status\n\nDone\n\n## Tasks / Subtasks\n\n- [x] Provider layer\n\n${sections.join('\n')}`;
  const QA_RESULTS = '## QA Results\n\n### Review Date: 2025-10-23\n\n### Gate Status\n\n**Gate: FAIL** → docs/qa/gates/5.1-ai-foundation.yml\n';
  const QA_RESPONSE = '## QA Response\n\n### Product Decision\n\nOpenAI only is approved.\n\n### Gate Status Update\n\n**Gate: PASS** → docs/qa/gates/5.1-ai-foundation.yml\n';

  test('the last verdict the story records, in any QA section, is the story\'s: the stale gate file is a note', () => {
    assert.equal(parseStory('/p/docs/stories/5.1.story.md', withReviews(QA_RESULTS, QA_RESPONSE)).qaGate, 'PASS');
    assert.equal(parseStory('/p/docs/stories/5.1.story.md', withReviews(QA_RESULTS)).qaGate, 'FAIL');
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n',
      'docs/stories/5.1.story.md': withReviews(QA_RESULTS, QA_RESPONSE),
      'docs/qa/gates/5.1-ai-foundation.yml': gateFile,
    });
    const v = JSON.parse(cli(dir, 'validate', '.').stdout);
    assert.deepEqual(notes(v.problems, (s) => s === 'error'), []);
    assert.deepEqual(notes(v.problems, () => true).filter((p) => /gate/.test(p)), ['5.1.story.md story-gate-failed']);
  });

  test('with no later verdict the failed gate is still an error', () => {
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n',
      'docs/stories/5.1.story.md': withReviews(QA_RESULTS),
      'docs/qa/gates/5.1-ai-foundation.yml': gateFile,
    });
    const v = JSON.parse(cli(dir, 'validate', '.').stdout);
    assert.deepEqual(notes(v.problems, (s) => s === 'error'), ['5.1.story.md story-gate-failed']);
  });
});

describe('two ledgers in one project', () => {
  // A project that planned its sprint twice: the first ledger in docs/ (its keys the first plan's),
  // the second beside the story files (its keys the files' names). Neither is where the config puts one.
  const CONFIG = { '_bmad/bmm/config.yaml': 'project_name: devs\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nproject_knowledge: "{project-root}/docs"\n' };
  const FIRST = ledgerOf(['epic-1: in-progress', '1-1-github-login: ready-for-dev', '1-2-email-login: backlog', '1-3-onboarding-wizard: backlog', 'epic-2: in-progress', '2-1-xp-tracking: done']);
  const SECOND = ledgerOf(['epic-1: in-progress', '1-1-structure-audit: done', '1-2-auth-refactor: done', '1-3-onboarding-flow: review', 'epic-2: backlog', '2-1-xp-tracking: backlog']);
  const files = {
    'docs/stories/1-1-structure-audit.md': storyFile('1.1', 'Structure Audit', 'Status: done'),
    'docs/stories/1-2-auth-refactor.md': storyFile('1.2', 'Auth Refactor', 'Status: done'),
    'docs/stories/1-3-onboarding-flow.md': storyFile('1.3', 'Onboarding Flow', 'Status: review'),
    'docs/stories/2-1-xp-tracking.md': storyFile('2.1', 'XP Tracking', 'Status: done'),
  };

  test('the ledger whose keys name the story files is read: no story is taken for another\'s', () => {
    const dir = project({ ...CONFIG, 'docs/sprint-status.yaml': FIRST, 'docs/stories/sprint-status.yaml': SECOND, ...files });
    const r = loadSprint(dir, { now: NOW })!;
    assert.equal(path.relative(dir, r.ledgerFile!), path.join('docs', 'stories', 'sprint-status.yaml'));
    // The one real disagreement: 2-1 done in its file, backlog in the live ledger.
    assert.deepEqual(warned(r.problems), ['2-1-xp-tracking.md story-status-drift']);
  });

  test('the other ledger is read too for the stories only it names (an epic the second plan left out)', () => {
    const dir = project({
      ...CONFIG,
      'docs/sprint-status.yaml': FIRST.replace('development_status:\n', 'development_status:\n  epic-10: in-progress\n  10-1-theme-provider: review\n'),
      'docs/stories/sprint-status.yaml': SECOND,
      ...files,
      'docs/stories/10-1-theme-provider.md': storyFile('10.1', 'Theme Provider', 'Status: review'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.ledgerFiles.map((f) => path.relative(dir, f)), [path.join('docs', 'stories', 'sprint-status.yaml'), path.join('docs', 'sprint-status.yaml')]);
    const s = r.epics.flatMap((e) => e.stories).find((x) => x.key === '10-1-theme-provider')!;
    assert.equal(s.status, 'review');
    // 2-1 is the first ledger's (backlog there, done in its file); the second's `done` is a duplicate,
    // noted; the old plan's ready-for-dev story with no file is that ledger's own warning.
    assert.deepEqual(warned(r.problems), ['2-1-xp-tracking.md story-status-drift', 'sprint-status.yaml ledger-story-no-file']);
    assert.ok(r.problems.some((p) => p.code === 'ledger-duplicate-key'));
  });

  test('a single ledger in docs/ is read as before, its stories found by number', () => {
    const dir = project({ ...CONFIG, 'docs/sprint-status.yaml': FIRST, 'docs/stories/1-1-github-login.md': storyFile('1.1', 'GitHub Login', 'Status: in-progress') });
    const r = loadSprint(dir, { now: NOW })!;
    assert.equal(path.relative(dir, r.ledgerFile!), path.join('docs', 'sprint-status.yaml'));
    assert.deepEqual(warned(r.problems), ['1-1-github-login.md story-status-drift']);
  });
});

describe('a story file of an earlier plan, named by number alone', () => {
  test('a title that names another story is not the key\'s file; one whose title fits is', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': 'project_name: canvas\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
      '_bmad-output/implementation-artifacts/sprint-status.yaml': ledgerOf(['epic-3: in-progress', '3-6-tips-annotation-archiving: ready-for-dev', '3-7-dialog-pullout: ready-for-dev']),
      'docs/stories/3.6.story.md': '# Story 3.6: Example Teaching Agent (Example-Teaching-Agent)\n\n## Status\n\nDone\n\n## Tasks / Subtasks\n\n- [x] Teach\n',
      'docs/stories/3.7.story.md': '# Story 3.7: Dialog Pull-out Node\n\n## Status\n\nDone\n\n## Tasks / Subtasks\n\n- [x] Pull out\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.epics.flatMap((e) => e.stories).map((s) => [s.key, s.file ? path.relative(dir, s.file) : null]));
    assert.equal(of['3-6-tips-annotation-archiving'], null);
    assert.equal(of['3-7-dialog-pullout'], path.join('docs', 'stories', '3.7.story.md'));
    // (3-6 is ready for development with no story file of its own yet: the ledger's own note.)
    assert.deepEqual(warned(r.problems), ['3.7.story.md story-status-drift', 'sprint-status.yaml ledger-story-no-file']);
  });
});

describe('a record of Whiteport Design Studio (WDS) in its _progress/ folder', () => {
  const REPORT = '---\ndate: 2026-05-14\nauditor: Sally (WDS UX Designer — Validation Mode)\nscope: Scenario 01 (2 documents)\nstepsCompleted: [1,2,3,4,5,6,7,8,9,10]\n---\n\n# Validation Report — Scenario 01 Specs\n';
  test('is a BMAD artifact with its steps, never unknown; the same file elsewhere stays unknown', () => {
    const dir = project({
      '_bmad-output/planning-artifacts/prd.md': '---\nstepsCompleted: [1, 2, 3]\nworkflowType: prd\n---\n\n# Product Requirements\n',
      '_bmad-output/_progress/scenario-01-validation-report-2026-05-14.md': REPORT,
      '_bmad-output/notes/scenario-02-validation-report-2026-05-14.md': REPORT,
    });
    const v = JSON.parse(cli(dir, 'validate', '.').stdout);
    const unknown = v.problems.filter((p: Problem) => p.code === 'bmad-workflow-unknown').map((p: Problem) => path.basename(p.file));
    assert.deepEqual(unknown, ['scenario-02-validation-report-2026-05-14.md']);
    const st = JSON.parse(cli(dir, 'status', '.').stdout);
    assert.ok(st.workflows.some((w: { file: string }) => /_progress/.test(w.file)), JSON.stringify(st.workflows.map((w: { file: string }) => w.file)));
  });
});

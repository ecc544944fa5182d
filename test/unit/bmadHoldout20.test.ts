// Real projects read right (issue 20, session 20): rules the reader learned from projects nobody
// working on it had seen, each with a fixture written here.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadSprint } from '../../src/core/bmad/sprint';
import { knownBmadWorkflowOf } from '../../src/core/bmad/known';
import { normalizeStoryStatus } from '../../src/core/bmad/story';
import { workspace } from './fileHelpers';

const NOW = new Date('2026-11-29T09:00:00Z');
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout20-', waymark: false });
const ledgerOf = (rows: string[]) => ['project: ledgerly', 'development_status:', ...rows.map((r) => `  ${r}`), ''].join('\n');
const storyFile = (n: string, title: string, status: string, tasks = '- [x] Build it\n') =>
  `# Story ${n}: ${title}\n\n${status}\n\n## Story\n\nAs a user, I want ${title.toLowerCase()}, so that I get work done.\n\n## Tasks / Subtasks\n\n${tasks}`;
const V6_BETA = { '.bmad/bmm/config.yaml': 'project_name: ledgerly\nbmad_folder: .bmad\noutput_folder: "{project-root}/docs"\n' };

describe('a story file named by number alone (`2.1.story.md`, v4 style) beside another plan\'s file', () => {
  test('is the ledger key\'s story when its title is the key\'s: its drift is found', () => {
    const dir = project({
      ...V6_BETA,
      'docs/sprint-status.yaml': ledgerOf(['epic-2: in-progress', '2-1-user-login: ready-for-dev']),
      'docs/stories/2.1.story.md': storyFile('2.1', 'User Login', 'Status: Done'),
      'docs/stories/2-1-dashboard-widgets.md': storyFile('2.1', 'Dashboard Widgets', 'Status: Draft', '- [ ] Draw it\n'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.severity !== 'info');
    assert.equal(drift.length, 1, JSON.stringify(r.problems, null, 1));
    assert.match(drift[0].file, /2\.1\.story\.md$/);
  });

  test('is not the key\'s story when its title names another one', () => {
    const dir = project({
      ...V6_BETA,
      'docs/sprint-status.yaml': ledgerOf(['epic-2: in-progress', '2-1-user-login: ready-for-dev']),
      'docs/stories/2.1.story.md': storyFile('2.1', 'Billing Export Pipeline', 'Status: Done'),
      'docs/stories/2-1-dashboard-widgets.md': storyFile('2.1', 'Dashboard Widgets', 'Status: Draft', '- [ ] Draw it\n'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-status-drift'), []);
  });
});

describe('a task struck through (`- [ ] ~~Commit~~ - skipped per user request`)', () => {
  const tasks = '- [x] Scaffold the workspace\n- [x] Configure the pipeline\n- [ ] ~~Run `git commit`~~ - Skipped per user request\n';
  test('is dropped, not open: a done story with only such tasks left unticked is clean', () => {
    const dir = project({
      ...V6_BETA,
      'docs/sprint-status.yaml': ledgerOf(['epic-1: in-progress', '1-1-initialize-workspace: done']),
      'docs/stories/1-1-initialize-workspace.md': storyFile('1.1', 'Initialize Workspace', 'Status: done', tasks),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => p.code), []);
    const s = r.stories.find((x) => x.key === '1-1-initialize-workspace')!;
    assert.deepEqual({ done: s.tasks.done, total: s.tasks.total }, { done: 2, total: 2 });
  });

  test('a task only partly struck, or unticked and plain, is still open', () => {
    const dir = project({
      ...V6_BETA,
      'docs/sprint-status.yaml': ledgerOf(['epic-1: in-progress', '1-1-initialize-workspace: done']),
      'docs/stories/1-1-initialize-workspace.md': storyFile('1.1', 'Initialize Workspace', 'Status: done', '- [x] Scaffold\n- [ ] Run the ~~old~~ new migration\n'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => p.code), ['story-done-tasks-open']);
  });
});

describe('an epic document named by a lettered id or a slug (`epic-e-custody-signature.md`, `epic-auth-sdk-mvp.md`)', () => {
  test('is the epics workflow\'s artifact, as `epic-4-slug.md` is', () => {
    const steps = { stepsCompleted: [], inputDocuments: [] };
    for (const f of ['/p/docs/planning-artifacts/epic-e-custody-signature.md', '/p/docs/planning-artifacts/epic-auth-sdk-mvp.md', '/p/docs/planning-artifacts/epic-4-radial-city.md']) {
      assert.equal(knownBmadWorkflowOf(f, steps, undefined)?.workflow.name, 'create-epics-and-stories', f);
    }
  });
  test('an epic\'s retrospective is still the retrospective\'s', () => {
    const steps = { stepsCompleted: [1, 2] };
    assert.equal(knownBmadWorkflowOf('/p/docs/implementation-artifacts/epic-e-retro-2026-03-02.md', steps, undefined)?.workflow.name, 'retrospective');
  });
});

describe('a lettered epic\'s story named with a capital letter and a dot (`story-4A.2.md` for `4a-2-…`)', () => {
  test('is the ledger key\'s story: its drift is found; an earlier plan\'s `story-4A.1.md` is not 4a-1\'s', () => {
    const dir = project({
      ...V6_BETA,
      'docs/sprint-status.yaml': ledgerOf(['epic-4a: in-progress', '4a-1-render-reply-indicators: done', '4a-2-reaction-chips-and-emoji-picker: done', '4a-3-read-receipts: backlog']),
      'docs/sprint-artifacts/story-4A.1.md': storyFile('4A.1', 'Playwright Tests for Drawer Interactions', 'Status: done'),
      'docs/sprint-artifacts/story-4A.2.md': storyFile('4A.2', 'Reaction Chips and Emoji Picker', 'Status: in-progress', '- [x] Chips\n- [ ] Picker\n'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const all = r.stories;
    assert.match(all.find((s) => s.key === '4a-2-reaction-chips-and-emoji-picker')?.file ?? '', /story-4A\.2\.md$/);
    assert.equal(all.find((s) => s.key === '4a-1-render-reply-indicators')?.file, undefined);
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.severity !== 'info');
    assert.deepEqual(drift.map((p) => p.file.replace(/.*\//, '')), ['story-4A.2.md']);
  });
});

describe('ready for review, in the languages BMAD writes documents in', () => {
  test('`Pronto para Revisão`, `Listo para revisión`, `Prêt pour revue`, `Aguardando revisão` are review; `Pronto para desenvolvimento` is ready-for-dev', () => {
    for (const w of ['Pronto para Revisão', 'Listo para revisión', 'Prêt pour revue', 'Aguardando revisão', 'Bereit zur Prüfung']) {
      assert.equal(normalizeStoryStatus(w).status, 'review', w);
    }
    assert.equal(normalizeStoryStatus('Pronto para desenvolvimento').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('Pronto').status, 'ready-for-dev');
  });
});

// Session 35, known35b (issue 20): where stories and ledgers belong. Fixtures written here, no copied
// text. Each behaviour's test failed before its rule (run with WAYMARK_CLI=/work/scratch/base-s35/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inProject, workspace } from './fileHelpers';
import { runCli as cli, cliJson as json } from './holdoutHelpers';
import { loadSprint } from '../../src/core/bmad/sprint';
import { setSprintCacheRacyWindow } from '../../src/core/bmad/sprintCache';

const NOW = new Date('2026-03-10T12:00:00Z');
type S = { key: string; ledgerStatus?: string | null; status: string; file?: string | null };
const stories = (d: { epics: { stories: S[] }[] }) => d.epics.flatMap((e) => e.stories);
type P = { code: string; severity: string; file: string; message: string };
const problems = (v: { problems: P[] }) => v.problems;

test('`next` with only stalled work left names it as stalled work in progress, not as work "in review"', () => {
  const wf = (id: string) => `---\nworkflow: ${id}\nstatus: in_progress\nstepsCompleted: []\n---\n# ${id}\n`;
  const root = workspace({ 'kiln-plan.md': wf('kiln-plan'), 'glaze-notes.md': wf('glaze-notes') });
  try {
    const old = new Date(Date.now() - 20 * 86_400_000);
    for (const f of ['kiln-plan.md', 'glaze-notes.md']) fs.utimesSync(path.join(root, f), old, old);
    const r = cli(root, 'next');
    assert.equal(r.status, 0, r.stderr);
    const first = r.stdout.split('\n')[0];
    assert.match(first, /^Nothing is ready to start/, r.stdout);
    assert.doesNotMatch(first, /review/, 'nothing is in review');
    assert.match(first, /2 in progress but stalled/, r.stdout);
    assert.match(r.stdout, /\nStalled:\n/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a config changed to name another ledger file is seen by a cached sprint (the config is one of its inputs)', () => {
  const config = (ledger: string) => `project_name: "Harbour"\noutput_folder: "docs"\n\nbmm:\n  sprint_status_file: "${ledger}"\n`;
  const ledger = (key: string, status: string) => `development_status:\n  epic-1: in-progress\n  ${key}: ${status}\n`;
  inProject({
    'bmad/config.yaml': config('docs/plan-a/sprint-status.yaml'),
    'docs/plan-a/sprint-status.yaml': ledger('1-1-lift-sequence', 'in-progress'),
    'docs/plan-b/sprint-status.yaml': ledger('1-1-lift-sequence', 'done'),
  }, (root) => {
    setSprintCacheRacyWindow(-60_000);
    try {
      const first = loadSprint(root, { now: NOW, cache: true });
      assert.deepEqual(first?.ledgerFiles.map((f) => path.relative(root, f)), [path.join('docs', 'plan-a', 'sprint-status.yaml')]);
      assert.equal(first?.stories.find((s) => s.key === '1-1-lift-sequence')?.ledgerStatus, 'in-progress');
      // Same length, so only the text (and times) differ: the recorded read of the config must catch it.
      fs.writeFileSync(path.join(root, 'bmad/config.yaml'), config('docs/plan-b/sprint-status.yaml'));
      const later = new Date(Date.now() + 5000);
      fs.utimesSync(path.join(root, 'bmad/config.yaml'), later, later);
      const second = loadSprint(root, { now: NOW, cache: true });
      assert.deepEqual(second?.ledgerFiles.map((f) => path.relative(root, f)), [path.join('docs', 'plan-b', 'sprint-status.yaml')]);
      assert.equal(second?.stories.find((s) => s.key === '1-1-lift-sequence')?.ledgerStatus, 'done');
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });
});

const story = (n: string, title: string, status: string) => `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a clerk, I want ${title.toLowerCase()}, so that the shop runs.\n\n## Acceptance Criteria\n\n1. It works.\n\n## Tasks / Subtasks\n\n- [x] Build it\n`;
const IMPL = '_bmad-output/implementation-artifacts';
const header = (project: string, loc: string) => `generated: 2026-02-01\nproject: ${project}\ntracking_system: file-system\nstory_location: "{project-root}/${loc}"\n\ndevelopment_status:\n`;

test('a sibling app keeping its own ledger in a folder of the main app\'s stories: each ledger has its own epics, stories and story files', () => {
  inProject({
    '_bmad/bmm/config.yaml': 'project_name: counter\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    [`${IMPL}/sprint-status.yaml`]: header('Counter', IMPL) + '  epic-1: done\n  1-1-counter-setup: done\n  1-2-counter-report: done\n  epic-1-retrospective: optional\n',
    [`${IMPL}/1-1-counter-setup.md`]: story('1.1', 'Counter setup', 'done'),
    [`${IMPL}/1-2-counter-report.md`]: story('1.2', 'Counter report', 'done'),
    // The kiosk app: its own ledger in its own folder, numbered from epic 1 again.
    [`${IMPL}/kiosk/sprint-status.yaml`]: header('Kiosk (sibling app)', `${IMPL}/kiosk`) + '  epic-1: in-progress\n  1-1-kiosk-login: in-progress\n  1-2-kiosk-receipt: done\n  epic-1-retrospective: optional\n',
    [`${IMPL}/kiosk/1-1-kiosk-login.md`]: story('1.1', 'Kiosk login', 'in-progress'),
    [`${IMPL}/kiosk/1-2-kiosk-receipt.md`]: story('1.2', 'Kiosk receipt', 'done'),
    // A kiosk story its ledger does not list: missing from the kiosk's ledger, not the counter's.
    [`${IMPL}/kiosk/1-3-kiosk-printer.md`]: story('1.3', 'Kiosk printer', 'ready-for-dev'),
  }, (root) => {
    const d = json(root, 'sprint');
    assert.deepEqual(d.ledgers, [`${IMPL}/sprint-status.yaml`, `${IMPL}/kiosk/sprint-status.yaml`]);
    const all = stories(d);
    const by = new Map(all.map((s) => [s.key, s]));
    assert.equal(by.get('1-1-kiosk-login')?.ledgerStatus, 'in-progress', JSON.stringify(all));
    assert.ok(by.get('1-1-kiosk-login')?.file?.endsWith('kiosk/1-1-kiosk-login.md'));
    assert.equal(by.get('1-1-counter-setup')?.file?.endsWith(`${IMPL}/1-1-counter-setup.md`), true);
    // Two epics numbered 1, one per project: the kiosk's holds its three stories.
    const ones = (d.epics as { id: string; stories: S[] }[]).filter((e) => e.id === '1');
    assert.equal(ones.length, 2, JSON.stringify(d.epics.map((e: { id: string }) => e.id)));
    assert.deepEqual(ones.map((e) => e.stories.map((s) => s.key).sort()), [['1-1-counter-setup', '1-2-counter-report'], ['1-1-kiosk-login', '1-2-kiosk-receipt', '1-3-kiosk-printer']]);
    const v = json(root, 'validate');
    const codes = problems(v).map((p) => `${p.code} ${p.file.replace(/^.*implementation-artifacts\//, '')}`);
    // No kiosk file taken for a counter story, no counter epic "done with stories open", no duplicate retrospective.
    assert.deepEqual(codes.filter((c) => /story-file-duplicate|epic-done-stories-open|ledger-duplicate-key/.test(c)), []);
    assert.deepEqual(codes.filter((c) => c.startsWith('story-not-in-ledger')), ['story-not-in-ledger kiosk/1-3-kiosk-printer.md']);
  });
});

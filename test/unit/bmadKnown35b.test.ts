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

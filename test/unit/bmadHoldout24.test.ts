// Real projects read right (issue 20, session 24): rules the reader learned from projects nobody
// working on it had seen, each with a fixture written here.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { workspace } from './fileHelpers';

const CLI = path.resolve('dist/cli.js');
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout24-', waymark: false });
const run = (cwd: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

const plan = (status: string) => `---\nworkflow: feature\nstatus: ${status}\nsteps: [discovery, design, build]\nstepsCompleted: [discovery]\n---\n# Plan\n\nBody text.\n`;
const nextId = (dir: string) => (run(dir, 'next', '--json').next as { id: string } | null)?.id ?? null;
const columnOf = (dir: string, id: string) => {
  const columns = run(dir, 'board', '--json').columns as Record<string, { id: string }[]>;
  return Object.entries(columns).find(([, items]) => items.some((i) => i.id === id))?.[0];
};

describe('work moved into an archive folder is set aside, as the sprint reader sets its ledgers aside', () => {
  test('`next` does not offer work in an archive, old or legacy folder; the live work is offered; the board shows the archived as dropped', () => {
    const dir = project({ 'docs/archive/plan-v1.md': plan('in_progress'), 'docs/old/plan-v0.md': plan('created'), 'legacy/plan.md': plan('created') });
    assert.equal(nextId(dir), null);
    assert.equal(columnOf(dir, 'docs/archive/plan-v1.md'), 'dropped');
    const live = project({ 'docs/archive/plan-v1.md': plan('in_progress'), 'docs/plan.md': plan('created') });
    assert.equal(nextId(live), 'docs/plan.md');
  });

  test('finished work in an archive folder stays done; a folder named for something else (`archiver/`) is live', () => {
    const dir = project({ 'docs/archive/plan-v1.md': plan('completed'), 'src/archiver/plan.md': plan('created') });
    assert.equal(columnOf(dir, 'docs/archive/plan-v1.md'), 'done');
    assert.equal(nextId(dir), 'src/archiver/plan.md');
  });
});

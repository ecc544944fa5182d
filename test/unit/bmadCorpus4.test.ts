// Real projects read right (issue 20, fourth corpus round, measured on projects not seen before):
// story status words as teams write them (`Ready for Testing`, `IMPLEMENTATION COMPLETE`,
// `Proposed`, `Partially Complete`) read by what they say comes next; in a project without a
// ledger a story whose file says it is complete is never offered as work to start.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus } from '../../src/core/bmad/story';

const CLI = path.resolve('dist/cli.js');
const FIX = path.resolve('test/fixtures/bmad-v4-words');
const NOW = new Date('2026-01-10T09:00:00Z');

function copy(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus4-')));
  fs.cpSync(FIX, dir, { recursive: true });
  return dir;
}

describe('story status words by what they say comes next', () => {
  test('`Ready for <a check>` waits on that check (review); `Ready for dev` is ready-for-dev', () => {
    for (const w of ['Ready for Testing', 'Ready for QA Validation', 'Ready for Done', 'Ready for Manual Testing', 'READY FOR UAT']) assert.equal(normalizeStoryStatus(w).status, 'review', w);
    for (const w of ['Ready for Development', 'Ready to Implement', 'ready-for-work']) assert.equal(normalizeStoryStatus(w).status, 'ready-for-dev', w);
  });

  test('`<stage> complete`: development done is review, planning done is ready-for-dev, part done is in-progress; Proposed is backlog', () => {
    assert.equal(normalizeStoryStatus('IMPLEMENTATION COMPLETE').status, 'review');
    assert.equal(normalizeStoryStatus('Development Completed').status, 'review');
    assert.equal(normalizeStoryStatus('Planning Complete').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('Partially Complete').status, 'in-progress');
    assert.equal(normalizeStoryStatus('Proposed').status, 'backlog');
    assert.equal(normalizeStoryStatus('PROPOSED').status, 'backlog');
    // A word naming no stage stays outside the vocabulary.
    assert.equal(normalizeStoryStatus('Banana Complete').status, undefined);
  });

  test('a v4 project without a ledger: each story where its file says, no warning on those words, and next never offers the complete story', () => {
    const dir = copy();
    const r = loadSprint(dir, { now: NOW })!;
    const st = Object.fromEntries(r.stories.map((s) => [s.key, s.status]));
    assert.deepEqual(st, { '2-1-export': 'done', '2-2-import': 'review', '2-3-sync': 'backlog', '2-4-search': 'review', '2-5-print': 'ready-for-dev', '2-6-audit': 'in-progress' });
    const warned = r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`);
    // The complete story with a task left open says so (the only warning).
    assert.deepEqual(warned, ['2.1.export.md story-unknown-status']);
    const n = spawnSync(process.execPath, [CLI, 'next', '.', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
    assert.equal(n.status, 0, n.stderr);
    const j = JSON.parse(n.stdout) as { next: { id: string } | null; ready: { id: string }[]; review: { id: string }[] };
    const offered = [j.next?.id, ...j.ready.map((e) => e.id), ...j.review.map((e) => e.id)];
    assert.ok(!offered.includes('story:2-1-export'), `the complete story is never offered: ${offered.join(', ')}`);
    assert.deepEqual(j.review.map((e) => e.id).sort(), ['story:2-2-import', 'story:2-4-search']);
  });
});

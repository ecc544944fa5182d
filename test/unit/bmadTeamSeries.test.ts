// Real projects read right (issue 20): an epic named by a team's own series of letters and digits
// (`epic-p4` above `p4-1-…`, `epic-S1` above `S1-1-…`, found on known projects by the grammar census)
// owns the stories numbered under it, as an epic named by a word (`epic-r` above `r-0-…`) does: they
// take part in drift, `sprint` and `next`, and `epic-p4` is not read as epic 4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseLedger } from '../../src/core/bmad/ledger';
import { corpusFixture } from './corpusHelpers';

const NOW = new Date('2026-11-28T12:00:00Z');
const { copy } = corpusFixture('series');

test('a ledger: `epic-p4` and `epic-S1` are epics of their own, their stories and retrospectives read', () => {
  const l = parseLedger('/p/sprint-status.yaml', 'development_status:\n  epic-4: done\n  4-1-a: done\n  epic-p4: in-progress\n  p4-1-b: done\n  p4-2-c: review\n  epic-p4-retrospective: optional\n  epic-S1: done\n  S1-1-d: done\n');
  const of = Object.fromEntries(l.entries.map((e) => [e.key, `${e.kind} ${e.epicId}${e.story === undefined ? '' : `.${e.story}`} ${e.status}`]));
  assert.deepEqual(of, {
    'epic-4': 'epic 4 done',
    '4-1-a': 'story 4.1 done',
    'epic-p4': 'epic p4 in-progress',
    'p4-1-b': 'story p4.1 done',
    'p4-2-c': 'story p4.2 review',
    'epic-p4-retrospective': 'retro p4 optional',
    'epic-S1': 'epic s1 done',
    'S1-1-d': 'story s1.1 done',
  });
});

test('a project: stories of a team series are matched to their files and compared', () => {
  const dir = copy('team-series');
  const r = loadSprint(dir, { now: NOW })!;
  const files = Object.fromEntries(r.stories.map((s) => [s.key, `${s.ledgerStatus} ${s.file ? path.basename(s.file) : '-'}`]));
  assert.deepEqual(files, {
    '1-1-moor-the-boat': 'done -',
    'p4-1-lock-the-hatches': 'done -',
    'p4-2-check-the-ropes': 'review p4-2-check-the-ropes.md',
    'S1-1-build-the-profiles': 'done S1-1-build-the-profiles.md',
    'S1-2-inject-the-context': 'done S1-2-inject-the-context.md',
  });
  const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.file.endsWith('.md')).map((p) => path.basename(p.file)).sort();
  assert.deepEqual(drift, ['S1-2-inject-the-context.md', 'p4-2-check-the-ropes.md']);
  assert.deepEqual(r.epics.map((e) => `${e.id} ${e.ledgerStatus}`), ['1 done', 'p4 in-progress', 's1 done']);
});

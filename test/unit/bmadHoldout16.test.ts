// Real projects read right (issue 20, session 16's held-out batches, measured on projects nobody
// working on the reader had seen): a ledger of another tool's format at the project's root asks no
// story to be added to it; a QA gate's verdict with its qualifier (`CONDITIONAL_PASS`, `PASS ✅`) is
// read; a ledger whose header (above `development_status:`) no YAML reader takes is a warning, its
// entries read; `Ready vs Dev` is ready-for-dev and `Research Complete` done; a file status the
// ledger makes moot (the story cancelled there) is a note; and a ledger-only project at the
// repository's root stays the project when an old install is kept in a subfolder (`v4-backup/`).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { findBmadProjects } from '../../src/core/bmad/config';
import { workspace } from './fileHelpers';
import { storyText as story } from './corpusHelpers';

const NOW = new Date('2026-11-28T22:00:00Z');

/** A project in a new temp folder (no `.waymark`): `files` maps a relative path to its text. */
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout16-', waymark: false });

const CONFIG = 'project_name: kite\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';

describe('a ledger in another tool\'s format lists no story', () => {
  test('at the root, beside an install: no "not in the ledger" warning for each story file', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      'sprint-status.yaml': 'epic: "Epic 1: Kite frames"\nstatus: "completed"\nstories:\n  - id: "US-1.1"\n    file: "_bmad-output/implementation-artifacts/stories/epic-1/1-1-spar-cutter.md"\n    status: "completed"\n',
      '_bmad-output/implementation-artifacts/stories/epic-1/1-1-spar-cutter.md': story('1.1', 'Spar Cutter', 'review'),
      '_bmad-output/implementation-artifacts/stories/epic-1/1-2-sail-stitcher.md': story('1.2', 'Sail Stitcher', 'done'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.ok(r, 'the project is read');
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-not-in-ledger').map((p) => path.basename(p.file)), []);
    assert.ok(r.problems.some((p) => p.code === 'ledger-other-format' && p.severity === 'info'));
  });
  test('a BMAD ledger that does not list a story file still says so', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-spar-cutter: review\n',
      '_bmad-output/implementation-artifacts/1-1-spar-cutter.md': story('1.1', 'Spar Cutter', 'review'),
      '_bmad-output/implementation-artifacts/1-2-sail-stitcher.md': story('1.2', 'Sail Stitcher', 'done'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-not-in-ledger').map((p) => path.basename(p.file)), ['1-2-sail-stitcher.md']);
  });
});

describe('a QA gate verdict with its qualifier', () => {
  const gate = (line: string) => parseQaGate('/p/docs/qa/gates/2.1-task-board.yml', `# Quality Gate\nstory_id: "2.1"\n${line}\nreviewer: "Quinn"\n`, NOW);
  test('a pass on conditions is CONCERNS, open', () => {
    for (const v of ['status: "CONDITIONAL_PASS"', 'gate: CONDITIONAL PASS', 'gate: PASS WITH CONCERNS', 'decision: pass_with_notes']) {
      const g = gate(v);
      assert.equal(g.verdict, 'CONCERNS', v);
      assert.equal(g.open, true, v);
      assert.equal(g.error, undefined, v);
    }
  });
  test('a verdict followed by its remark is that verdict', () => {
    assert.equal(gate('gate: "PASS ✅"').verdict, 'PASS');
    assert.equal(gate('gate: "FAIL (2 blockers)"').verdict, 'FAIL');
    assert.equal(gate('gate: "PASSED - all green"').verdict, 'PASS');
  });
  test('a word that is no verdict stays unread', () => {
    const g = gate('gate: MAYBE');
    assert.equal(g.verdict, undefined);
    assert.match(g.error ?? '', /not PASS/);
    assert.equal(gate('gate: FAILOVER').verdict, undefined);
  });
});

describe('a ledger header no YAML reader takes', () => {
  const text = ['---', '  generated: 2026-04-20', '  last_updated: 2026-07-17  # review round 3', 'project: kite', 'tracking_system: file-system', '', 'development_status:', '  epic-1: in-progress', '  1-1-spar-cutter: done', ''].join('\n');
  test('is a warning that names the header; the entries are read', () => {
    const l = parseLedger('/p/sprint-status.yaml', text);
    const yamlProblems = l.problems.filter((p) => p.code === 'ledger-yaml');
    assert.equal(yamlProblems.length, 1);
    assert.equal(yamlProblems[0].severity, 'warning');
    assert.match(yamlProblems[0].message, /header/);
    assert.equal(l.byKey.get('1-1-spar-cutter')?.status, 'done');
  });
  test('a broken entry below development_status: stays an error', () => {
    const l = parseLedger('/p/sprint-status.yaml', ['development_status:', '  epic-1: in-progress', '  1-1-spar-cutter: done', ' 1-2-sail: [review', ''].join('\n'));
    const p = l.problems.find((x) => x.code === 'ledger-yaml');
    assert.equal(p?.severity, 'error');
  });
});

describe('status words', () => {
  test('`Ready vs Dev` (a mistyped joiner) is ready-for-dev', () => {
    assert.equal(normalizeStoryStatus('Ready vs Dev').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('Ready fo Development').status, 'ready-for-dev');
  });
  test('`Research Complete` and other stages complete are done; development complete stays review', () => {
    assert.equal(normalizeStoryStatus('Research Complete').suggestion, 'done');
    assert.equal(normalizeStoryStatus('Testing Completed').suggestion, 'done');
    assert.equal(normalizeStoryStatus('Development Complete').status, 'review');
    assert.equal(normalizeStoryStatus('Draft Complete').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('Not Complete').suggestion, undefined);
  });
  test('a file status in no vocabulary, on a story the ledger cancelled, is a note', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-spar-cutter: done\n  1-2-tail-ribbon: cancelled\n  1-3-line-winder: review\n',
      '_bmad-output/implementation-artifacts/1-1-spar-cutter.md': story('1.1', 'Spar Cutter', 'done'),
      '_bmad-output/implementation-artifacts/1-2-tail-ribbon.md': story('1.2', 'Tail Ribbon', 'optional', false),
      '_bmad-output/implementation-artifacts/1-3-line-winder.md': story('1.3', 'Line Winder', 'someday', false),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const unknown = r.problems.filter((p) => p.code === 'story-unknown-status').map((p) => `${path.basename(p.file)} ${p.severity}`).sort();
    assert.deepEqual(unknown, ['1-2-tail-ribbon.md info', '1-3-line-winder.md warning']);
  });
});

describe('a ledger-only project at the root beside an install kept in a subfolder', () => {
  test('the root is the project; its ledger and stories are read', () => {
    const dir = project({
      'v4-backup/.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/sprint-status.yaml': 'development_status:\n  epic-2: in-progress\n  2-1-define-bindings: done\n  2-2-wire-transport: backlog\n',
      'docs/stories/2-1-define-bindings.md': story('2.1', 'Define Bindings', 'review'),
    });
    assert.deepEqual(findBmadProjects(dir), [dir, path.join(dir, 'v4-backup')]);
    const r = loadSprint(dir, { now: NOW })!;
    assert.ok(r, 'the root project is read');
    assert.ok(r.problems.some((p) => p.code === 'story-status-drift' && p.file.endsWith('2-1-define-bindings.md')));
  });
  test('with no ledger at the root, the subfolder install is the project, as before', () => {
    const dir = project({
      'v4-backup/.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/notes.md': '# Notes\n',
    });
    assert.deepEqual(findBmadProjects(dir), [path.join(dir, 'v4-backup')]);
  });
});

// Session 28's held-out round (issue 20), investigator a: what real projects nobody had looked at showed.
// Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSprint } from '../../src/core/bmad/sprint';
import { inProject } from './fileHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');

const story = (n: string, title: string, status: string) => `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Tasks / Subtasks\n- [x] do it\n`;
const V6_CONFIG = 'project_name: demo\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';

test('a ledger whose stories sit in a subfolder of its story_location (`active/stories/`) is read beside a second ledger nested elsewhere', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    // The team's first ledger, where v6 alpha put it, its story files two folders down.
    'docs/sprint-artifacts/sprint-status.yaml': 'story_location: docs/sprint-artifacts\ndevelopment_status:\n  epic-7: in-progress\n  e7-1-billing-export: done\n  e7-2-invoice-preview: review\n  e7-3-tax-rules: backlog\n',
    'docs/sprint-artifacts/current/stories/e7-1-billing-export.md': story('7.1', 'Billing export', 'done'),
    'docs/sprint-artifacts/current/stories/e7-2-invoice-preview.md': story('7.2', 'Invoice preview', 'review'),
    // A later initiative planned on its own, its ledger in a subfolder of the implementation artifacts.
    '_bmad-output/implementation-artifacts/search-v2/sprint-status.yaml': 'story_location: "_bmad-output/implementation-artifacts/search-v2/stories"\ndevelopment_status:\n  epic-1: in-progress\n  1-1-index-schema: done\n  1-2-query-parser: in-progress\n  1-3-ranking: backlog\n',
    '_bmad-output/implementation-artifacts/search-v2/stories/1-1-index-schema.md': story('1.1', 'Index schema', 'done'),
    '_bmad-output/implementation-artifacts/search-v2/stories/1-2-query-parser.md': story('1.2', 'Query parser', 'in-progress'),
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.deepEqual(r.ledgerFiles.map((f) => f.slice(root.length + 1)).sort(), ['_bmad-output/implementation-artifacts/search-v2/sprint-status.yaml', 'docs/sprint-artifacts/sprint-status.yaml']);
    assert.deepEqual(r.stories.map((s) => s.key).sort(), ['1-1-index-schema', '1-2-query-parser', '1-3-ranking', 'e7-1-billing-export', 'e7-2-invoice-preview', 'e7-3-tax-rules']);
    const e71 = r.stories.find((s) => s.key === 'e7-1-billing-export')!;
    assert.equal(e71.ledgerStatus, 'done');
    assert.match(e71.file ?? '', /current[\\/]stories[\\/]e7-1-billing-export\.md$/);
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-not-in-ledger').map((p) => p.file), []);
  });
});

test('a story file named `story-` before a ledger key no number grammar reads (`story-tune-201-scale-drills.md`) is that key\'s file, with or without a longer slug', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: done\n  1-1-setup: done\n  epic-2: in-progress\n  tune-201-scale-drills: ready-for-dev\n  tune-202-tempo-map: in-progress\n  tune-203-metronome: backlog\n  epic-2-retrospective: optional\n',
    '_bmad-output/implementation-artifacts/1-1-setup.md': story('1.1', 'Setup', 'done'),
    // The slug the file was written with is longer than the ledger's.
    '_bmad-output/implementation-artifacts/story-tune-201-scale-drills-practice.md': '# STORY-TUNE-201: Scale drills\n\n**Status**: `Ready for Dev`\n\n## Tasks\n- [ ] write the drills\n',
    '_bmad-output/implementation-artifacts/story-tune-202-tempo-map.md': '# STORY-TUNE-202: Tempo map\n\n**Status**: In Progress\n\n## Tasks\n- [x] map it\n- [ ] test it\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    const file = (k: string) => r.stories.find((s) => s.key === k)?.file?.replace(/^.*[\\/]/, '');
    assert.equal(file('tune-201-scale-drills'), 'story-tune-201-scale-drills-practice.md');
    assert.equal(file('tune-202-tempo-map'), 'story-tune-202-tempo-map.md');
    assert.equal(file('tune-203-metronome'), undefined);
    assert.deepEqual(r.problems.filter((p) => p.code === 'ledger-story-no-file' || p.code === 'story-not-in-ledger' || p.code === 'story-status-drift').map((p) => p.message), []);
  });
});

test('keys a team keeps about a story beside it (`e2-1-ticket: OPS-41`, `e2-1-finished: 2026-01-04`, `e2-1-summary: |`) are notes of that story, not stories', () => {
  const ledger = [
    'development_status:',
    '  epic-2: in-progress',
    '  e2-1-payment-webhooks: done',
    '  e2-1-ticket: OPS-41',
    '  e2-1-finished: 2026-01-04',
    '  e2-1-estimate: 5',
    '  e2-1-spec-file: docs/specs/e2-1.md',
    '  e2-1-summary: |',
    '    Done in one pass. Webhooks verified',
    '    against the sandbox.',
    '  e2-1-remark: "Split from the old 2.4 after review"',
    '  e2-2-refund-flow: in-progress',
    '  e2-2-ticket: OPS-42',
    '  e2-2-refund-flow-v2: backlog',
    '  e2-3-receipts: blocked',
    '',
  ].join('\n');
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger,
    '_bmad-output/implementation-artifacts/e2-1-payment-webhooks.md': story('2.1', 'Payment webhooks', 'done'),
    '_bmad-output/implementation-artifacts/e2-2-refund-flow.md': story('2.2', 'Refund flow', 'in-progress'),
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    // A second key of the same number with a status (`-v2: backlog`) and a project's own word (`blocked`) stay stories.
    assert.deepEqual(r.stories.map((s) => s.key).sort(), ['e2-1-payment-webhooks', 'e2-2-refund-flow', 'e2-2-refund-flow-v2', 'e2-3-receipts']);
    assert.deepEqual(r.problems.filter((p) => p.severity === 'error').map((p) => p.message), []);
    // The one unknown status is the project's own word; no note's value is read as a status.
    assert.deepEqual(r.problems.filter((p) => p.code === 'ledger-unknown-status').map((p) => p.message.split(' ')[0]), ["'blocked'"]);
    const note = r.problems.filter((p) => p.code === 'ledger-unknown-key');
    assert.equal(note.length, 1);
    assert.equal(note[0].severity, 'info');
    assert.match(note[0].message, /7 keys are notes about the story/);
  });
});

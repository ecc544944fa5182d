// Real projects read right (issue 20, session 21): rules the reader learned from projects nobody
// working on it had seen, each with a fixture written here.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { workspace } from './fileHelpers';

const NOW = new Date('2026-11-29T09:00:00Z');
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout21-', waymark: false });
const ledgerOf = (rows: string[]) => ['project: ledgerly', 'development_status:', ...rows.map((r) => `  ${r}`), ''].join('\n');
const storyFile = (n: string, title: string, status: string, tasks = '- [x] Build it\n') =>
  `# Story ${n}: ${title}\n\n${status}\n\n## Story\n\nAs a user, I want ${title.toLowerCase()}, so that I get work done.\n\n## Tasks / Subtasks\n\n${tasks}`;
const V6 = {
  '_bmad/bmm/config.yaml': 'project_name: ledgerly\nplanning_artifacts: "{project-root}/app/docs/planning"\nimplementation_artifacts: "{project-root}/app/docs/sprints"\noutput_folder: "{project-root}/_bmad-output"\n',
};
const warnings = (r: NonNullable<ReturnType<typeof loadSprint>>, file: RegExp) => r.problems.filter((p) => p.severity !== 'info' && file.test(p.file)).map((p) => p.code);

describe('a ledger per sprint folder (`sprints/sprint-6/sprint-status.yaml` beside that sprint\'s stories)', () => {
  const files = {
    ...V6,
    // The declared folder's own ledger lists no story in BMAD's format: the sprints' ledgers are read.
    'app/docs/sprints/sprint-status.yaml': '# overview\nsprint-6: done\nsprint-7: done\nsprint-8: in-progress\n',
    'app/docs/sprints/sprint-6/sprint-status.yaml': ledgerOf(['epic-6: done', '6-1-badge-sharing: done', '6-2-social-proof: done']),
    'app/docs/sprints/sprint-6/6-1-badge-sharing.md': storyFile('6.1', 'Badge Sharing', 'Status: done'),
    'app/docs/sprints/sprint-6/6-2-social-proof.md': storyFile('6.2', 'Social Proof', 'Status: done'),
    'app/docs/sprints/sprint-6/6-3-share-analytics.md': storyFile('6.3', 'Share Analytics', 'Status: done'),
    'app/docs/sprints/sprint-7/sprint-status.yaml': ledgerOf(['epic-7: in-progress', '7-1-revocation: review']),
    'app/docs/sprints/sprint-7/7-1-revocation.md': storyFile('7.1', 'Revocation', 'Status: review'),
    // Sprint 8 keeps its own tracker in another format: its stories are in no ledger Waymark reads.
    'app/docs/sprints/sprint-8/sprint-status.yaml': 'metadata:\n  sprint_number: 8\nstories:\n  8-1-dashboard-homepage:\n    status: complete\n',
    'app/docs/sprints/sprint-8/8-1-dashboard-homepage.md': storyFile('8.1', 'Dashboard Homepage', '**Status:** ✅ complete'),
    'app/docs/sprints/sprint-8/8-2-analytics-api.md': storyFile('8.2', 'Analytics API', 'Status: ready-for-dev', '- [ ] Build it\n'),
  };

  test('a story in a folder no ledger covers is not "missing from the ledger"', () => {
    const r = loadSprint(project(files), { now: NOW })!;
    assert.ok(r.ledgers.length >= 2, `read ${r.ledgers.map((l) => l.file).join(', ')}`);
    assert.deepEqual(warnings(r, /sprint-8/), [], JSON.stringify(r.problems.filter((p) => /sprint-8/.test(p.file)), null, 1));
    const s = r.stories.find((x) => x.key.startsWith('8-1'))!;
    assert.equal(s.status, 'done');
  });

  test('a story beside a ledger that does not list it still is', () => {
    const r = loadSprint(project(files), { now: NOW })!;
    assert.deepEqual(warnings(r, /6-3-share-analytics/), ['story-not-in-ledger']);
    assert.deepEqual(warnings(r, /sprint-7/), []);
  });
});

describe('a done-like word on a story no ledger lists (`Status: ✅ complete`, every task ticked)', () => {
  test('reads done with a note, not an unknown status, beside a ledger that omits it', () => {
    const dir = project({
      ...V6,
      'app/docs/sprints/sprint-status.yaml': ledgerOf(['epic-1: in-progress', '1-1-login: done']),
      'app/docs/sprints/1-1-login.md': storyFile('1.1', 'Login', 'Status: done'),
      'app/docs/sprints/1-2-logout.md': storyFile('1.2', 'Logout', '**Status:** ✅ complete'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(warnings(r, /1-2-logout/), ['story-not-in-ledger']);
    assert.ok(r.problems.some((p) => p.code === 'story-legacy-status' && /1-2-logout/.test(p.file)));
    assert.equal(r.stories.find((x) => x.key.startsWith('1-2'))!.status, 'done');
  });

  test('an open task still contradicts it: unknown, as before', () => {
    const dir = project({
      ...V6,
      'app/docs/sprints/sprint-status.yaml': ledgerOf(['epic-1: in-progress', '1-1-login: done']),
      'app/docs/sprints/1-1-login.md': storyFile('1.1', 'Login', 'Status: done'),
      'app/docs/sprints/1-2-logout.md': storyFile('1.2', 'Logout', 'Status: complete', '- [x] One\n- [ ] Two\n'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.ok(warnings(r, /1-2-logout/).includes('story-unknown-status'));
  });
});

describe('a QA gate whose verdict sits in a decision block named its own way', () => {
  const gate = (body: string) => parseQaGate('/p/docs/qa/gates/1.7-user-admin.yml', `# Quality Gate: Story 1.7\n\ngate_id: "1.7-user-admin"\nstory_id: "1.7"\n\n${body}`, NOW);
  test('`quality_gate_decision: status: PASS_WITH_CONCERNS` is CONCERNS; `final_verdict: PASS` is PASS', () => {
    assert.equal(gate('quality_gate_decision:\n  status: "PASS_WITH_CONCERNS"\n  gate_status: "OPEN"\n').verdict, 'CONCERNS');
    assert.equal(gate('final_verdict: PASS\n').verdict, 'PASS');
    assert.equal(gate('qa_gate:\n  decision: FAIL\n').verdict, 'FAIL');
  });
  test('a block with no verdict word is still no verdict', () => {
    const g = gate('quality_gate_decision:\n  status: "OPEN"\nreview_metadata:\n  status: done\n');
    assert.equal(g.verdict, undefined);
  });
});

describe('a QA gate file of several YAML documents (a later review after a `---` line)', () => {
  test('its verdict is read from the first document', () => {
    const text = '# Quality Gate: Story 1.7\n\ngate_id: "1.7-user-admin"\nquality_gate_decision:\n  status: "PASS_WITH_CONCERNS"\n\n---\n\n# Re-review\nreviewed_by: Quinn\n';
    const g = parseQaGate('/p/docs/qa/gates/1.7-user-admin.yml', text, NOW);
    assert.equal(g.verdict, 'CONCERNS');
    assert.equal(g.open, true);
    const plain = parseQaGate('/p/docs/qa/gates/1.8-x.yml', '---\ngate: FAIL\n---\nnotes: later\n', NOW);
    assert.equal(plain.verdict, 'FAIL');
  });
});

describe('an epic keyed by its lettered id (`epic-e1`) over stories keyed `e1-s2-…`', () => {
  test('is the stories\' epic: no unknown key, no epic missing, its retrospective read', () => {
    const dir = project({
      ...V6,
      'app/docs/sprints/sprint-status.yaml': ledgerOf([
        'epic-e1: in-progress', 'e1-s1-locale-runtime: done', 'e1-s2-auth-guards: backlog', 'epic-e1-retrospective: optional',
        'epic-e2: backlog', 'e2-s1-booking-flow: backlog',
      ]),
      'app/docs/sprints/e1-s1-locale-runtime.md': storyFile('1.1', 'Locale Runtime', 'Status: done'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info').map((p) => p.code), []);
    assert.deepEqual(r.epics.map((e) => [e.id, e.ledgerStatus, e.retrospective ?? null]), [['1', 'in-progress', 'optional'], ['2', 'backlog', null]]);
    assert.deepEqual(r.epics[0].stories.map((s) => s.key), ['e1-s1-locale-runtime', 'e1-s2-auth-guards']);
  });
});

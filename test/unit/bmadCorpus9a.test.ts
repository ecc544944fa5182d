// Real projects read right (issue 20, ninth corpus round, part a, measured on projects not seen
// before): stories kept beside their epic, one folder per epic (`docs/epics/epic-4/stories/…`),
// are the ledger's story files. Also: every reader of a QA gate's verdict (its YAML, the fallback for a gate whose YAML
// is broken, a gate decision's JSON) reads `PASSED`/`FAILED` the same way.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseGateDecision, parseQaGate } from '../../src/core/bmad/qaGates';
import { knownBmadWorkflowOf } from '../../src/core/bmad/known';
import { parseLedger } from '../../src/core/bmad/ledger';
import { corpusFixture } from './corpusHelpers';

const NOW = new Date('2026-11-28T12:00:00Z');

const { copy, cli } = corpusFixture('corpus9a');

const warnings = (r: { problems: { severity: string; code: string; file: string }[] }) =>
  r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`).sort();

const files = (dir: string, r: { stories: { key: string; file?: string }[] }) =>
  Object.fromEntries(r.stories.map((s) => [s.key, s.file ? path.relative(dir, s.file) : null]));

describe('stories kept beside their epic: `docs/epics/epic-N/stories/`', () => {
  test('each epic folder\'s stories are the ledger\'s story files', () => {
    const dir = copy('per-epic');
    const r = loadSprint(dir, { now: NOW })!;
    assert.ok(r, 'a sprint is read');
    assert.deepEqual(files(dir, r), {
      '1-1-light-the-lamp': path.join('docs', 'epics', 'epic-1', 'stories', '1-1-light-the-lamp.md'),
      '1-2-trim-the-wick': path.join('docs', 'epics', 'epic-1', 'stories', '1-2-trim-the-wick.md'),
      '2-1-log-the-weather': path.join('docs', 'epics', 'epic-2', 'stories', '2-1-log-the-weather.md'),
      '2-2-sound-the-horn': null,
    });
  });
  test('a story whose file says review while the ledger says done is drift; the others are clean', () => {
    const dir = copy('per-epic');
    const r = loadSprint(dir, { now: NOW })!;
    assert.equal(r.stories.find((s) => s.key === '1-2-trim-the-wick')?.fileStatus, 'review');
    assert.deepEqual(warnings(r), ['1-2-trim-the-wick.md story-status-drift']);
    const v = cli(dir, 'validate');
    assert.equal(v.status, 0, v.stderr);
    const out = JSON.parse(v.stdout) as { problems: { severity: string; code: string; file: string }[] };
    assert.deepEqual(warnings(out).filter((w) => w.endsWith('story-status-drift')), ['1-2-trim-the-wick.md story-status-drift']);
  });
});

describe('a sprint-status.yaml of the BMAD skills add-on (stories under `sprints:`, no development_status)', () => {
  // Session 32 (inv32c): a dozen real projects write their ledger this way; it was "another tool's
  // format" and read as nothing. Its stories are now read (stories of no epic by their STORY-NNN ids);
  // a list of epics each holding its stories is read too (session 34).
  test('the stories of its `sprints:` lists (and of a top-level `stories:` list) are read with their statuses', () => {
    const text = 'project_name: x\nlast_updated: "2026-02-26"\n\nsprints:\n  - number: 1\n    stories:\n      - id: "STORY-001"\n        status: "completed"\n';
    const l = parseLedger('/p/docs/sprint-status.yaml', text);
    assert.deepEqual(l.entries.map((e) => [e.key, e.status, e.epicId]), [['STORY-001', 'done', 'no-epic']]);
    assert.deepEqual(l.problems, []);
    const top = parseLedger('/p/s.yaml', 'stories:\n  - story_id: STORY-000\n    status: not_started\n');
    assert.deepEqual(top.entries.map((e) => [e.key, e.status]), [['STORY-000', 'backlog']]);
    // (Epics nesting their stories as mappings, `epics: epic-1: stories: 1-1-x:`, are read since the
    // third families pass: bmadGrammarFamilies3.test.ts.)
    // (A list of epics each holding its stories' list is read since session 34, known34b: bmadKnown34b.test.ts.)
    const epicsList = parseLedger('/p/s.yaml', 'epics:\n  - id: epic-1\n    stories:\n      - id: 1-1-x\n        status: done\n');
    assert.deepEqual(epicsList.entries.map((e) => [e.key, e.status]), [['1-1-x', 'done']]);
    assert.deepEqual(epicsList.problems, []);
  });
  test('BMAD\'s own ledger, even with no entry yet, gets no such note', () => {
    assert.deepEqual(parseLedger('/p/s.yaml', 'project: x\ndevelopment_status:\n  epic-1: backlog\n').problems, []);
    assert.deepEqual(parseLedger('/p/s.yaml', '# generated\nproject: x\n').problems, []);
  });
  test('`sprint` lists its stories with their statuses and offers the next, never calling the work done', () => {
    const dir = copy('other-format');
    const r = spawnSync(process.execPath, [path.resolve('dist/cli.js'), 'sprint', '.'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /every story and retrospective is done/);
    assert.match(r.stdout, /STORY-001 +done/);
    assert.match(r.stdout, /STORY-002 +backlog/);
    assert.match(r.stdout, /Next: create-story STORY-002/);
    const j = JSON.parse(cli(dir, 'sprint').stdout) as { problems: { code: string; severity: string }[] };
    assert.ok(!j.problems.some((p) => p.code === 'ledger-other-format'), JSON.stringify(j.problems));
  });
});

describe('an epic\'s own breakdown kept in its folder: `epics/epic-9/epic.md`', () => {
  const steps = { stepsCompleted: [1, 2, 3, 4], status: 'complete', inputDocuments: ['prd.md', 'architecture.md'] };
  test('it is the epics workflow\'s artifact, as `epics.md` and `epic-9-slug.md` are', () => {
    for (const f of ['/p/docs/epics/epic-9/epic.md', '/p/docs/epics.md', '/p/docs/epics/epic-9-radial-city.md']) {
      assert.equal(knownBmadWorkflowOf(f, steps, undefined)?.workflow.name, 'create-epics-and-stories', f);
    }
  });
  test('an epic\'s retrospective is still the retrospective\'s; a file that only mentions epics in its name is not the epics workflow\'s', () => {
    assert.equal(knownBmadWorkflowOf('/p/docs/epic-9-retro-2026-02-04.md', steps, undefined)?.workflow.name, 'retrospective');
    assert.equal(knownBmadWorkflowOf('/p/docs/epicenter.md', steps, undefined), undefined);
  });
});

describe('a QA gate verdict in the past tense, whatever reads it', () => {
  const broken = (verdict: string) => `schema: 1\nstory: "2.3"\ngate: ${verdict}\nstatus_reason: "the reviewer's note: "quoted" mid-line"\n`;
  test('a gate whose YAML is broken further down: `PASSED` is PASS and `FAILED` is FAIL, as in valid YAML', () => {
    for (const [word, verdict, open] of [['PASSED', 'PASS', true], ['FAILED', 'FAIL', false], ['passed', 'PASS', true], ['"Failed"', 'FAIL', false]] as const) {
      const g = parseQaGate('/p/docs/qa/gates/2.3-lanterns.yml', broken(word), NOW);
      assert.ok(g.error, `${word}: the YAML is reported broken`);
      assert.equal(g.verdict, verdict, word);
      assert.equal(g.open, open, word);
      const valid = parseQaGate('/p/docs/qa/gates/2.3-lanterns.yml', `story: "2.3"\ngate: ${word}\n`, NOW);
      assert.equal(valid.verdict, verdict, `${word} in valid YAML`);
    }
  });
  test('a broken gate keyed by `decision:` or `status:` reads the same words', () => {
    assert.equal(parseQaGate('/p/docs/qa/gates/2.4-x.yml', 'decision: FAILED\nnote: "a "b" c"\n', NOW).verdict, 'FAIL');
    assert.equal(parseQaGate('/p/docs/qa/gates/2.4-x.yml', 'status: Passed\nnote: "a "b" c"\n', NOW).verdict, 'PASS');
    assert.equal(parseQaGate('/p/docs/qa/gates/2.4-x.yml', 'status: maybe\nnote: "a "b" c"\n', NOW).verdict, undefined);
  });
  test('a gate decision\'s JSON reads them too', () => {
    assert.equal(parseGateDecision('/p/gate-decision.json', '{"gate_status":"PASSED","story_id":"2.3"}', NOW).verdict, 'PASS');
    assert.equal(parseGateDecision('/p/gate-decision.json', '{"decision":"failed"}', NOW).verdict, 'FAIL');
  });
});

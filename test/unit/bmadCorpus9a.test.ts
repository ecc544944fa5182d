// Real projects read right (issue 20, ninth corpus round, part a, measured on projects not seen
// before). Also: every reader of a QA gate's verdict (its YAML, the fallback for a gate whose YAML
// is broken, a gate decision's JSON) reads `PASSED`/`FAILED` the same way.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseGateDecision, parseQaGate } from '../../src/core/bmad/qaGates';

const NOW = new Date('2026-11-28T12:00:00Z');

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

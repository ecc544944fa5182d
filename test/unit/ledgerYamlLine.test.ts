import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLedger } from '../../src/core/bmad/ledger';

// A hand-written ledger with one line indented too far under a key that already has its value
// (`tests: 8` then `  more: 10` below it): YAML names the key's line; the line to mend is the one below.
test('a line indented under a key that has its value: the error names that line, not the key above', () => {
  const text = ['project: harbour', 'epics:', '  epic-1-auth:', '    status: in-progress', '    checks:', '      unit: 8', '        smoke: 2', '      e2e: 1', ''].join('\n');
  const r = parseLedger('/p/sprint-status.yaml', text);
  const p = r.problems.find((x) => x.code === 'ledger-yaml');
  assert.ok(p, 'a ledger-yaml problem');
  assert.equal(p.severity, 'error');
  assert.equal(p.range.start.line + 1, 7);
  assert.match(p.message, /line 7 \(indented under 'unit: 8', a key that already has its value\)/);
});

test('a nested block under a key with no value on its line is valid; an unclosed quote still names the parser line', () => {
  const ok = parseLedger('/p/sprint-status.yaml', ['development_status:', '  epic-1: in-progress', '  1-1-login:', '    status: done', ''].join('\n'));
  assert.equal(ok.problems.filter((x) => x.code === 'ledger-yaml').length, 0);
  const quote = parseLedger('/p/sprint-status.yaml', ['project: harbour', 'epics:', '  epic-1-auth:', '    status: "in-progress', '      unit: 8', ''].join('\n'));
  const p = quote.problems.find((x) => x.code === 'ledger-yaml');
  assert.ok(p);
  assert.doesNotMatch(p.message, /indented under/);
});

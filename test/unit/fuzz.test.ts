import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseWorkflowText } from '../../src/core/model/workflow';
import { splitFrontmatter } from '../../src/core/model/frontmatter';
import { defaultWorkspaceContext } from '../../src/core/store/workspaceContext';
import type { Problem } from '../../src/core/types';

const RUNS = Number(process.env.WAYMARK_FUZZ_RUNS ?? 1500);
const ctx = defaultWorkspaceContext(path.join(os.tmpdir(), 'waymark-fuzz-root'));

const KEYS = ['workflow', 'workflowType', 'status', 'steps', 'stepsCompleted', 'stepCompleted', 'currentStep', 'current_step', 'lastStep', 'scope', 'blockedReason', 'delegation', 'ttl', 'updatedAt', 'session', '__proto__', 'constructor', 'title', 'x'];
const scalar = fc.oneof(
  fc.constantFrom('in_progress', 'complete', 'draft', 'step-01-init', 'step-02b-x.md', 'a', '', 'null', '~', '&a', '*a', '---', '"', "'", ':', '#', '[', '{', '2026-01-01', '1d'),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -3, max: 20 }).map(String),
);
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 5 }).map((a) => `[${a.join(', ')}]`),
  fc.array(scalar, { maxLength: 4 }).map((a) => a.map((v) => `\n  - ${v}`).join('')),
  fc.record({ id: scalar, parent_id: scalar, root_id: scalar, depth: scalar, chain: fc.array(scalar, { maxLength: 3 }) }).map(
    (d) => `\n  id: ${d.id}\n  parent_id: ${d.parent_id}\n  root_id: ${d.root_id}\n  depth: ${d.depth}\n  chain_path: [${d.chain.join(', ')}]`,
  ),
);
const line = fc.tuple(fc.constantFrom(...KEYS), value).map(([k, v]) => `${k}: ${v}`);
const frontmatter = fc.record({
  bom: fc.boolean(),
  crlf: fc.boolean(),
  fence: fc.oneof({ weight: 8, arbitrary: fc.constant('---') }, { weight: 1, arbitrary: fc.constantFrom('---yaml', '---js', '--- ', '----') }),
  lines: fc.array(fc.oneof({ weight: 12, arbitrary: line }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }), { maxLength: 10 }),
  close: fc.oneof({ weight: 8, arbitrary: fc.constant('---') }, { weight: 1, arbitrary: fc.constantFrom('', '--- ', '...') }),
  body: fc.string({ maxLength: 30 }),
});

function checkRanges(text: string, problems: Problem[]) {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (const p of problems) {
    const { start, end } = p.range;
    assert.ok(Number.isInteger(start.line) && Number.isInteger(start.character) && Number.isInteger(end.line) && Number.isInteger(end.character), JSON.stringify(p));
    assert.ok(start.line >= 0 && start.line < lines.length, `start line out of file: ${JSON.stringify(p)}`);
    assert.ok(end.line >= start.line && end.line < lines.length, `end line out of file: ${JSON.stringify(p)}`);
    assert.ok(start.character >= 0 && start.character <= lines[start.line].length, `start char: ${JSON.stringify(p)}`);
    assert.ok(end.character >= 0 && end.character <= lines[end.line].length, `end char: ${JSON.stringify(p)}`);
    assert.ok(end.line > start.line || end.character >= start.character, `reversed: ${JSON.stringify(p)}`);
    assert.ok(p.code && p.message && ['error', 'warning', 'info'].includes(p.severity));
  }
}

test('random frontmatter: parsing never throws, problems always have ranges inside the file', () => {
  const g = globalThis as Record<string, unknown>;
  let withProblems = 0;
  let withState = 0;
  fc.assert(
    fc.property(frontmatter, (f) => {
      const eol = f.crlf ? '\r\n' : '\n';
      const text = `${f.bom ? '\uFEFF' : ''}${f.fence}${eol}${f.lines.join(eol)}${eol}${f.close}${eol}${f.body}`;
      const p = parseWorkflowText('/fuzz/wf.md', text, ctx);
      checkRanges(text, p.problems);
      if (p.problems.length) withProblems++;
      if (p.state) {
        withState++;
        assert.match(p.state.stateHash, /^[0-9a-f]{64}$/);
        assert.ok(Array.isArray(p.state.stepsCompleted));
      }
      const s = splitFrontmatter(text);
      assert.equal(text.slice(s.yamlStart, s.yamlEnd), s.yamlText);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal(g.__waymarkRan, undefined);
    }),
    { numRuns: RUNS },
  );
  // The generator reaches both outcomes (the property is not vacuous).
  assert.ok(withProblems > 100, `only ${withProblems} runs had problems`);
  assert.ok(withState > 60, `only ${withState} runs parsed a state`);
});

test('arbitrary text never throws', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), (a, b) => {
      const text = `---\n${a}\n---\n${b}`;
      checkRanges(text, parseWorkflowText('/fuzz/a.md', text, ctx).problems);
      checkRanges(a, parseWorkflowText('/fuzz/b.md', a, ctx).problems);
    }),
    { numRuns: RUNS },
  );
});

// ---- generated mutations over hostile frontmatter, through the real state core -----------------
import * as fs from 'node:fs';
import { createStateCore } from '../../src/core/index';
import { WaymarkError } from '../../src/core/errors';
import { readHistory } from '../../src/core/store/history';

test('random frontmatter × every mutation: a WaymarkError or a valid write, never a crash or a half-written file', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-fuzzmut-'));
  fs.mkdirSync(path.join(root, '.waymark'));
  const core = createStateCore({ roots: [root] });
  const ops = ['start', 'advance', 'complete', 'status', 'block', 'unblock', 'scope', 'gate', 'delegate'] as const;
  let n = 0;
  let landed = 0;
  let refused = 0;
  try {
    await fc.assert(
      fc.asyncProperty(frontmatter, fc.constantFrom(...ops), fc.constantFrom('a', 'step-01-init', '1', '__proto__', 'x y'), fc.boolean(), async (f, op, step, force) => {
        const eol = f.crlf ? '\r\n' : '\n';
        const text = `${f.bom ? '\uFEFF' : ''}${f.fence}${eol}${f.lines.join(eol)}${eol}${f.close}${eol}${f.body}`;
        const file = path.join(root, `f${n++}.md`);
        fs.writeFileSync(file, text);
        const run = () => {
          // Half the runs force past error-level problems the change does not fix (issue 9, item 7):
          // a forced write on hostile frontmatter must still be a valid write.
          const o = { force };
          switch (op) {
            case 'start': return core.start(file, o);
            case 'advance': return core.advance(file, o);
            case 'complete': return core.completeStep(file, step, o);
            case 'status': return core.setStatus(file, 'completed', o);
            case 'block': return core.block(file, 'why', o);
            case 'unblock': return core.unblock(file, o);
            case 'scope': return core.setScope(file, 'large', o);
            case 'gate': return core.gatePass(file, step, { by: 'fuzz' });
            default: return core.delegate(file, { agent: 'fz' });
          }
        };
        let ok = true;
        try {
          await run();
        } catch (e) {
          assert.ok(WaymarkError.is(e), `${op} threw a non-Waymark error: ${String((e as Error)?.stack ?? e)}\n${JSON.stringify(text)}`);
          const m = (e as Error).message;
          assert.ok(m && !m.includes('undefined') && !m.includes('[object'), `${op}: ${m}`);
          ok = false;
        }
        const after = fs.readFileSync(file, 'utf8');
        if (!ok) {
          refused++;
          assert.equal(after, text, `${op} refused but changed the file`);
        } else {
          landed++;
          // Whatever was written still parses (a state) and keeps the body.
          const parsed = await core.parseText(file, after);
          if (after !== text) {
            assert.ok(parsed.state, `${op} wrote a file that no longer parses: ${JSON.stringify(after)}`);
            assert.ok(after.endsWith(splitFrontmatter(text).body), `${op} changed the body`);
            assert.ok(readHistory(root, file).length >= 1, `${op} wrote without a history line`);
          }
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      }),
      { numRuns: Math.min(RUNS, 300) },
    );
  } finally {
    core.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  }
  assert.ok(landed > 2 && refused > 10, `landed ${landed}, refused ${refused}`);
});

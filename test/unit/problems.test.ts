import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore, type Problem } from '../../src/core/index';
import { FIXES, PROBLEMS, PROBLEM_SECTIONS, fixTitle, isProblemCode, problemDocsPath, type FixId, type ProblemCode } from '../../src/core/model/problems';
import { parseWorkflowText } from '../../src/core/model/workflow';
import { defaultWorkspaceContext } from '../../src/core/store/workspaceContext';

const repo = path.resolve(__dirname, '..', '..');
const tmps: string[] = [];
after(() => {
  for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
});

/** Code → severity column of every table row in docs/problems.md. */
function documented(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of fs.readFileSync(path.join(repo, 'docs', 'problems.md'), 'utf8').split('\n')) {
    const m = /^\| `([a-z0-9-]+)` \| ([^|]+) \|/.exec(line);
    if (m) out.set(m[1], m[2].trim());
  }
  return out;
}

describe('problem registry', () => {
  test('docs/problems.md documents exactly the registry, with the registry severity', () => {
    const docs = documented();
    assert.deepEqual([...docs.keys()].sort(), Object.keys(PROBLEMS).sort());
    for (const [code, spec] of Object.entries(PROBLEMS)) {
      const sev = docs.get(code)!;
      assert.ok(sev.startsWith(spec.severity), `${code}: docs say ${sev}, the registry ${spec.severity}`);
      for (const also of ('also' in spec ? spec.also : []) as readonly string[]) assert.ok(sev.includes(also), `${code}: docs do not mention ${also}`);
    }
  });

  test('every docs anchor is a heading of docs/problems.md', () => {
    const text = fs.readFileSync(path.join(repo, 'docs', 'problems.md'), 'utf8');
    const anchors = new Set([...text.matchAll(/^## (.+)$/gm)].map((m) => m[1].toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')));
    for (const a of Object.values(PROBLEM_SECTIONS)) assert.ok(anchors.has(a), a);
    assert.equal(problemDocsPath('step-gap'), 'docs/problems.md#steps');
  });

  test('every fix has a title of its own; unknown strings are not codes', () => {
    for (const id of Object.keys(FIXES) as FixId[]) {
      const t = fixTitle({ data: { fix: id, value: 'v', key: 'k', from: 'a', to: 'b', gate: 'g' } });
      assert.ok(t && t !== id, id);
    }
    assert.equal(isProblemCode('step-gap'), true);
    assert.equal(isProblemCode('step-gaps'), false);
    assert.equal(isProblemCode('__proto__'), false);
  });

  test('problems the parser reports carry a registered code, severity and fix', () => {
    const ctx = defaultWorkspaceContext(os.tmpdir());
    const texts = [
      '---\nworkflow: w\nstatus: doing\nscope: huge\nsteps: [a, b, a]\nstepsCompleted: [b, a, a, zz]\ncurrentStep: c\nworklow: x\nttl: soon\n---\n',
      '---\nworkflowType: prd\nstatus: complete\nstepsCompleted: [1, 3]\nlastStep: 1\n---\n',
      '---\nworkflow: w\nsteps: [a]\ndelegation:\n  id: a\n  depth: 4\n  parent_id: q\n  chain_path: [z, a]\n---\n',
      '---\nworkflow: [\n---\n',
      '---js\nworkflow: w\n---\n',
      '---\nworkflow: w\nstatus: blocked\n__proto__: 1\n---\n',
    ];
    const seen = new Set<string>();
    for (const t of texts) {
      for (const p of parseWorkflowText('/x/w.md', t, ctx).problems) {
        seen.add(p.code);
        const spec = PROBLEMS[p.code];
        assert.ok(spec, p.code);
        assert.ok([spec.severity, ...(('also' in spec ? spec.also : []) as readonly string[])].includes(p.severity), `${p.code} as ${p.severity}`);
        if (p.data?.fix) assert.ok(((spec as { fixes?: readonly string[] }).fixes ?? []).includes(p.data.fix), `${p.code} offers ${p.data.fix}, not in its registry entry`);
      }
    }
    assert.ok(seen.size >= 12, `exercised ${[...seen].join(', ')}`);
  });
});

describe('every registered cross-file fix applies', () => {
  const DELEG = (body: string) => `---\nworkflow: w\nsteps: [a]\ndelegation:\n${body}---\n# W\n`;

  async function fixOne(code: ProblemCode, files: Record<string, string>, target: string): Promise<{ before: Problem; after: Problem[] }> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-fix-'));
    tmps.push(root);
    fs.mkdirSync(path.join(root, '.waymark'));
    for (const [n, t] of Object.entries(files)) fs.writeFileSync(path.join(root, n), t);
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.scan();
      const file = path.join(root, target);
      const p = core.problems().find((x) => x.code === code && x.file === file);
      assert.ok(p, `${code} on ${target} among ${core.problems().map((x) => x.code).join(', ')}`);
      await core.applyFix(file, p);
      await core.scan();
      return { before: p, after: core.problems().filter((x) => x.file === file) };
    } finally {
      await core.close();
    }
  }

  const parent = DELEG('  id: r\n  parent_id: null\n  root_id: r\n  depth: 0\n  chain_path: [r]\n');

  test('delegation-root-mismatch: setRoot sets root_id to the parent chain root', async () => {
    const { before, after } = await fixOne(
      'delegation-root-mismatch',
      { 'r.md': parent, 'c.md': DELEG('  id: c\n  parent_id: r\n  root_id: zz\n  depth: 1\n  chain_path: [r, c]\n') },
      'c.md',
    );
    assert.equal(before.data?.fix, 'setRoot');
    assert.deepEqual(after.map((p) => p.code), []);
  });

  test('delegation-chain-mismatch: setChain writes the parent chain plus this id', async () => {
    const { before, after } = await fixOne(
      'delegation-chain-mismatch',
      { 'r.md': parent, 'm.md': DELEG('  id: m\n  parent_id: r\n  root_id: r\n  depth: 1\n  chain_path: [q, m]\n') },
      'm.md',
    );
    assert.equal(before.data?.fix, 'setChain');
    assert.deepEqual(after.map((p) => p.code).filter((c) => c.startsWith('delegation-chain')), []);
  });
});

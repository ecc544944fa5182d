import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore, type StateCore } from '../../src/core/index';
import { editFrontmatter } from '../../src/core/model/edit';

// Round trip: every mutation changes only the state keys' bytes. Each case states the exact
// expected file, built from the original by replacing just the state lines, and checks it for
// LF and CRLF line endings, with and without a BOM.

const tmpRoots: string[] = [];
after(() => {
  for (const d of tmpRoots) fs.rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-rt-'));
  tmpRoots.push(d);
  fs.mkdirSync(path.join(d, '.waymark'));
  return d;
}

const LONG_BODY = [
  '# Release notes',
  '',
  'A body that must survive byte for byte: --- rules, `code`, ünïcödé, emoji 🚀, tabs\tand trailing spaces   ',
  '',
  '```yaml',
  '---',
  'status: completed   # not frontmatter, inside a code fence in the body',
  '---',
  '```',
  '',
  ...Array.from({ length: 400 }, (_, i) => `Line ${i}: ${'lorem ipsum '.repeat(i % 7)}`),
  '',
  '---',
  '',
  'The end, without a final newline.',
].join('\n');

const NATIVE = [
  '---',
  '# Workflow state: edited by hand and by Waymark',
  "workflow: 'release-notes'   # single-quoted id",
  'title: "Quarterly: \\"big\\" release"  # odd quoting, not a state key',
  'status: in_progress # trailing comment',
  'steps:',
  '  - draft      # first',
  '  - review',
  '  - publish',
  '',
  '# what is done so far',
  'stepsCompleted:',
  '  - draft # done on monday',
  'currentStep: review',
  'scope: medium',
  'owner: { name: Ann, team: docs }   # flow map, untouched',
  "tags: [a, 'b c', \"d\"]",
  'notes: |',
  '  multi-line',
  '    block scalar',
  "weird key: 'it''s'",
  'empty:',
  '---',
  LONG_BODY,
].join('\n');

interface Variant {
  name: string;
  encode(lf: string): string;
}
const VARIANTS: Variant[] = [
  { name: 'LF', encode: (s) => s },
  { name: 'CRLF', encode: (s) => s.replace(/\n/g, '\r\n') },
  { name: 'BOM+LF', encode: (s) => `\uFEFF${s}` },
  { name: 'BOM+CRLF', encode: (s) => `\uFEFF${s.replace(/\n/g, '\r\n')}` },
];

function replaceOnce(s: string, from: string, to: string): string {
  const i = s.indexOf(from);
  assert.ok(i >= 0, `fixture lacks ${JSON.stringify(from)}`);
  assert.equal(s.indexOf(from, i + 1), -1, `fixture has ${JSON.stringify(from)} twice`);
  return s.slice(0, i) + to + s.slice(i + from.length);
}

interface Case {
  name: string;
  original: string;
  run(core: StateCore, file: string): Promise<unknown>;
  /** The expected LF text, derived from the original by exact replacements. */
  expected(original: string): string;
}

const CASES: Case[] = [
  {
    name: 'advance appends to a block list and moves currentStep',
    original: NATIVE,
    run: (core, f) => core.advance(f),
    expected: (o) => replaceOnce(replaceOnce(o, '  - draft # done on monday\n', '  - draft # done on monday\n  - review\n'), 'currentStep: review\n', 'currentStep: publish\n'),
  },
  {
    name: 'complete-step of the last step inserts in order and keeps the rest',
    original: NATIVE,
    run: (core, f) => core.completeStep(f, 'publish'),
    expected: (o) => replaceOnce(o, '  - draft # done on monday\n', '  - draft # done on monday\n  - publish\n'),
  },
  {
    name: 'block adds blockedReason at the end of the frontmatter',
    original: NATIVE,
    run: (core, f) => core.block(f, 'waiting on legal: "sign-off"'),
    expected: (o) => replaceOnce(replaceOnce(o, 'status: in_progress # trailing comment\n', 'status: blocked # trailing comment\n'), 'empty:\n---\n', 'empty:\nblockedReason: "waiting on legal: \\"sign-off\\""\n---\n'),
  },
  {
    name: 'unblock removes blockedReason and its comment line only',
    original: replaceOnce(replaceOnce(NATIVE, 'status: in_progress # trailing comment', 'status: "blocked" # trailing comment'), 'scope: medium\n', "scope: medium\nblockedReason: 'legal' # why\n"),
    run: (core, f) => core.unblock(f),
    expected: (o) => replaceOnce(replaceOnce(o, 'status: "blocked" # trailing comment', 'status: "in_progress" # trailing comment'), "blockedReason: 'legal' # why\n", ''),
  },
  {
    name: 'scope keeps its comment and position',
    original: replaceOnce(NATIVE, 'scope: medium\n', 'scope: medium   # t-shirt size\n'),
    run: (core, f) => core.setScope(f, 'epic'),
    expected: (o) => replaceOnce(o, 'scope: medium   # t-shirt size\n', 'scope: epic   # t-shirt size\n'),
  },
  {
    name: 'start writes status and current step in the existing spelling (current_step)',
    original: replaceOnce(replaceOnce(NATIVE, 'status: in_progress # trailing comment', "status: 'created'"), 'currentStep: review\n', 'current_step: draft\n'),
    run: (core, f) => core.start(f),
    expected: (o) => replaceOnce(replaceOnce(o, "status: 'created'", "status: 'in_progress'"), 'current_step: draft\n', 'current_step: review\n'),
  },
  {
    name: 'set-status completed after all steps keeps everything else',
    original: replaceOnce(NATIVE, '  - draft # done on monday\n', '  - draft # done on monday\n  - review\n  - publish\n'),
    run: (core, f) => core.setStatus(f, 'completed'),
    expected: (o) => replaceOnce(o, 'status: in_progress # trailing comment', 'status: completed # trailing comment'),
  },
  {
    name: 'advance on the last step completes the workflow and drops currentStep',
    original: replaceOnce(replaceOnce(NATIVE, '  - draft # done on monday\n', '  - draft # done on monday\n  - review\n'), 'currentStep: review', 'currentStep: publish'),
    run: (core, f) => core.advance(f),
    expected: (o) =>
      replaceOnce(replaceOnce(replaceOnce(o, '  - review\ncurrentStep: publish\n', '  - review\n  - publish\n'), 'status: in_progress # trailing comment', 'status: completed # trailing comment'), '\n  - review\n  - publish\nscope', '\n  - review\n  - publish\nscope'),
  },
];

describe('round trip: only state keys change', () => {
  for (const c of CASES) {
    for (const v of VARIANTS) {
      test(`${c.name} [${v.name}]`, async () => {
        const root = workspace();
        const file = path.join(root, 'notes.md');
        const original = v.encode(c.original);
        fs.writeFileSync(file, original);
        fs.chmodSync(file, 0o640);
        const core = createStateCore({ roots: [root], actor: 'test' });
        await c.run(core, file);
        const got = fs.readFileSync(file, 'utf8');
        assert.equal(got, v.encode(c.expected(c.original)));
        assert.equal(fs.statSync(file).mode & 0o777, 0o640, 'file mode kept');
        assert.deepEqual(fs.readdirSync(root).filter((n) => n.includes('waymark-tmp')), [], 'no temp files left');
        core.dispose();
      });
    }
  }

  test('unsaved-text mode computes newText from the buffer and writes nothing', async () => {
    const root = workspace();
    const file = path.join(root, 'notes.md');
    fs.writeFileSync(file, NATIVE);
    const buffer = replaceOnce(NATIVE, 'scope: medium', 'scope: small'); // the editor's unsaved change
    const core = createStateCore({ roots: [root] });
    const r = await core.advance(file, { text: buffer });
    assert.equal(r.written, false);
    assert.equal(fs.readFileSync(file, 'utf8'), NATIVE, 'the file on disk is untouched');
    assert.equal(r.newText, replaceOnce(replaceOnce(buffer, '  - draft # done on monday\n', '  - draft # done on monday\n  - review\n'), 'currentStep: review\n', 'currentStep: publish\n'));
    assert.ok(!fs.existsSync(path.join(root, '.waymark', 'history')), 'no history for an unwritten change');
    // A stale expectHash against the buffer is a conflict too.
    await assert.rejects(core.advance(file, { text: buffer, expectHash: 'f'.repeat(64) }), (e: Error & { reason?: string }) => e.reason === 'conflict');
  });
});

describe('BMAD dialect is written back as the file writes it', () => {
  function bmadWorkspace(): string {
    const root = workspace();
    const steps = path.join(root, '_bmad', 'bmm', 'workflows', 'prd', 'steps-c');
    fs.mkdirSync(steps, { recursive: true });
    for (const n of ['step-01-init', 'step-01b-continue', 'step-02-discovery', 'step-02b-vision', 'step-03-success', 'step-04-done']) {
      fs.writeFileSync(path.join(steps, `${n}.md`), `# ${n}\n`);
    }
    fs.mkdirSync(path.join(root, '_bmad-output'), { recursive: true });
    return root;
  }

  const cases: { name: string; fm: string[]; expected: string[] }[] = [
    {
      // An integer list covers lettered sub-steps (2 covers 02b), so the next step is 3.
      name: 'integers in a flow list, lastStep number, in-progress',
      fm: ['stepsCompleted: [1, 2] # ints', 'workflowType: prd', 'lastStep: 2', "status: 'in-progress'", "date: '2025-01-01'"],
      expected: ['stepsCompleted: [1, 2, 3] # ints', 'workflowType: prd', 'lastStep: 3', "status: 'in-progress'", "date: '2025-01-01'"],
    },
    {
      name: 'ids in a block list',
      fm: ['workflowType: "prd"', 'stepsCompleted:', "  - 'step-01-init'", "  - 'step-02-discovery'", "  - 'step-02b-vision'", 'lastStep: step-02b-vision'],
      expected: ['workflowType: "prd"', 'stepsCompleted:', "  - 'step-01-init'", "  - 'step-02-discovery'", "  - 'step-02b-vision'", "  - 'step-03-success'", 'lastStep: step-03-success'],
    },
    {
      name: 'file names, status complete when the last step is done',
      fm: ['workflowType: prd', 'status: in-progress', 'stepsCompleted: ["step-01-init.md", "step-02-discovery.md", "step-02b-vision.md", "step-03-success.md"]'],
      expected: ['workflowType: prd', 'status: complete', 'stepsCompleted: ["step-01-init.md", "step-02-discovery.md", "step-02b-vision.md", "step-03-success.md", "step-04-done.md"]'],
    },
  ];
  for (const c of cases) {
    for (const v of VARIANTS) {
      test(`${c.name} [${v.name}]`, async () => {
        const root = bmadWorkspace();
        const file = path.join(root, '_bmad-output', 'prd.md');
        const body = '\n# PRD\n\nBody text.\n';
        fs.writeFileSync(file, v.encode(['---', ...c.fm, '---', body].join('\n')));
        const core = createStateCore({ roots: [root] });
        const r = await core.advance(file);
        assert.equal(r.after.dialect, 'bmad');
        assert.equal(fs.readFileSync(file, 'utf8'), v.encode(['---', ...c.expected, '---', body].join('\n')));
        core.dispose();
      });
    }
  }
});

describe('editFrontmatter edge cases', () => {
  test('a key with no value gets one; a missing key is appended before the closing fence', () => {
    assert.equal(editFrontmatter('---\na: 1\nscope:\n---\nbody', [{ key: 'scope', value: 'small' }]), '---\na: 1\nscope: small\n---\nbody');
    assert.equal(editFrontmatter('---\r\na: 1\r\n---\r\n', [{ key: 'scope', value: 'small' }]), '---\r\na: 1\r\nscope: small\r\n---\r\n');
  });
  test('a value that would change meaning unquoted is quoted', () => {
    assert.equal(editFrontmatter('---\na: x\n---\n', [{ key: 'a', value: 'yes' }]), '---\na: "yes"\n---\n');
    assert.equal(editFrontmatter('---\na: x\n---\n', [{ key: 'a', value: '#1: go' }]), '---\na: "#1: go"\n---\n');
  });
  test('emptying a block list turns it into [] and nothing else moves', () => {
    assert.equal(editFrontmatter('---\ns:\n  - a # c\n  - b\nz: 1\n---\n', [{ key: 's', value: [] }]), '---\ns: []\nz: 1\n---\n');
  });
  test('a nested key inside a block mapping is edited in place', () => {
    assert.equal(
      editFrontmatter('---\ndelegation:\n  id: b # me\n  depth: 3\nx: 1\n---\n', [{ path: ['delegation'], key: 'depth', value: 0 }, { path: ['delegation'], key: 'parent_id', value: null }]),
      '---\ndelegation:\n  id: b # me\n  depth: 0\n  parent_id: null\nx: 1\n---\n',
    );
  });
  test('renaming a key keeps its value bytes', () => {
    assert.equal(editFrontmatter("---\nstepCompleted: [1, '2'] # typo\n---\n", [{ key: 'stepCompleted', value: undefined, renameTo: 'stepsCompleted' }]), "---\nstepsCompleted: [1, '2'] # typo\n---\n");
  });
  test('broken YAML, no frontmatter, unclosed or ---js frontmatter are refused, never rewritten', () => {
    assert.equal(editFrontmatter('---\n{ status: created, steps: [a] }\n---\n', [{ key: 'status', value: 'in_progress' }]), '---\n{ status: in_progress, steps: [a] }\n---\n');
    assert.throws(() => editFrontmatter('---\n{ status: created }\n---\n', [{ key: 'scope', value: 'small' }]), (e: Error & { reason?: string }) => e.reason === 'invalid');
    for (const text of ['---\na: [1\n---\n', 'no frontmatter\n', '---\na: 1\n', '---js\n{a: 1}\n---\n', '---\na: 1\na: 2\n---\n']) {
      assert.throws(() => editFrontmatter(text, [{ key: 'status', value: 'blocked' }]), (e: Error & { reason?: string }) => e.reason === 'invalid', text);
    }
  });
});

// ---- generated: random frontmatter around the state keys -------------------------------------
import fc from 'fast-check';
import { parseDocument, isMap, isScalar } from 'yaml';
import { splitFrontmatter } from '../../src/core/model/frontmatter';

const STATE_KEY_SET = new Set(['status', 'steps', 'stepsCompleted', 'currentStep', 'current_step', 'scope', 'blockedReason', 'lastStep', 'updatedAt', 'delegation', 'workflow']);

/** The file with every top-level state key's lines cut out: what must never change. */
function withoutStateKeys(text: string): string {
  const split = splitFrontmatter(text);
  const y = split.yamlText;
  const doc = parseDocument(y);
  assert.ok(isMap(doc.contents), 'frontmatter is a mapping');
  const cuts: [number, number][] = [];
  for (const pair of doc.contents.items) {
    if (!isScalar(pair.key) || !STATE_KEY_SET.has(String(pair.key.value))) continue;
    const k = pair.key.range!;
    const v = (pair.value as { range?: [number, number, number] } | null)?.range;
    const start = y.lastIndexOf('\n', k[0] - 1) + 1;
    const endPos = Math.max(v ? v[1] : k[1], k[1]);
    const nl = y.indexOf('\n', Math.max(endPos - 1, k[1]));
    cuts.push([start, nl < 0 ? y.length : nl + 1]);
  }
  let rest = y;
  for (const [a, b] of cuts.sort((p, q) => q[0] - p[0])) rest = rest.slice(0, a) + rest.slice(b);
  return text.slice(0, split.yamlStart) + rest + text.slice(split.yamlEnd);
}

const keyName = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,10}$/).filter((k) => !STATE_KEY_SET.has(k) && k !== 'stepCompleted' && k !== 'workflowType');
// `&` and `*` are in: they send the reader down its anchor/alias path (the `yaml` library), which
// once kept a stray \r on the last value of a CRLF file.
const safeText = fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/g, ''));
const scalarLine = fc.oneof(
  safeText.map((s) => JSON.stringify(s)),
  safeText.map((s) => `'${s.replace(/'/g, "''")}'`),
  fc.integer().map(String),
  fc.constantFrom('true', 'null', '~', 'plain words here', '2026-01-01', '[a, "b", 3]', '{ x: 1, y: [2] }'),
);
const comment = fc.option(safeText.map((s) => `  # ${s}`), { nil: '' });
const extraLine = fc.tuple(keyName, scalarLine, comment).map(([k, v, c]) => `${k}: ${v}${c}`);
const commentLine = safeText.map((s) => `# ${s}`);

describe('round trip (generated): random frontmatter, random mutation', () => {
  test('bytes outside the state keys never change', async () => {
    const root = workspace();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(extraLine, commentLine, fc.constant('')), { maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 5, maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<'scope' | 'advance' | 'block' | 'complete'>('scope', 'advance', 'block', 'complete'),
        fc.string({ maxLength: 200 }).map((s) => s.replace(/\u0000/g, '')),
        async (extras, positions, crlf, bom, blockList, op, body) => {
          const stateLines = [
            "workflow: 'gen' # id",
            'status: in_progress',
            'steps: [s1, s2, s3, s4]',
            blockList ? 'stepsCompleted:\n  - s1 # first\n  - s2' : 'stepsCompleted: [s1, "s2"]  # flow',
            'currentStep: s3',
          ];
          const lines = [...extras];
          stateLines.forEach((l, i) => lines.splice(Math.min(positions[i], lines.length), 0, l));
          const lf = ['---', ...lines, '---', body].join('\n');
          const text = (bom ? '\uFEFF' : '') + (crlf ? lf.replace(/\n/g, '\r\n') : lf);
          const file = path.join(root, `g${n++}.md`);
          fs.writeFileSync(file, text);
          const core = createStateCore({ roots: [root] });
          const parsed = await core.parseText(file, text);
          fc.pre(!!parsed.state && !parsed.problems.some((p) => p.severity === 'error'));
          if (op === 'scope') await core.setScope(file, 'large');
          else if (op === 'advance') await core.advance(file);
          else if (op === 'block') await core.block(file, 'reason: with "quotes" # and a hash');
          else await core.completeStep(file, 's4');
          const got = fs.readFileSync(file, 'utf8');
          assert.equal(withoutStateKeys(got), withoutStateKeys(text));
          assert.equal(got.startsWith('\uFEFF'), bom, 'BOM kept');
          if (crlf) assert.ok(!/[^\r]\n/.test(got), 'no bare LF introduced');
          const after = (await core.parseText(file, got)).state!;
          if (op === 'scope') assert.equal(after.scope, 'large');
          if (op === 'advance') assert.deepEqual(after.stepsCompleted, ['s1', 's2', 's3']);
          if (op === 'block') assert.equal(after.blockedReason, 'reason: with "quotes" # and a hash');
          if (op === 'complete') assert.deepEqual(after.stepsCompleted, ['s1', 's2', 's4']);
          core.dispose();
        },
      ),
      { numRuns: 300 },
    );
  });
});

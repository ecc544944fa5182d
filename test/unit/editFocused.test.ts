import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { editYamlText, editYamlTextWhole, type EditScalar, type EditValue, type FrontmatterEdit } from '../../src/core/model/edit';

// An edit is planned on the parse of only the entries it touches when the layout allows
// (model/edit.ts parseFocused): it must give the same bytes, or the same refusal, as planned on
// the parse of the whole frontmatter, over random layouts, broken ones included.

const RUNS = Number(process.env.WAYMARK_FUZZ_RUNS ?? 1500);

const KEYS = ['status', 'steps', 'stepsCompleted', 'currentStep', 'scope', 'owner', 'delegation', 'notes', 'b-c', 'True'];

const VALUES = [
  ' plain',
  // One `key: word` line: its value is replaced without the parser (model/edit.ts plainWordEntry), unless the word is not a string.
  ' in_progress',
  '  x-y_z',
  ' plain  ',
  ' true',
  ' Off',
  ' NULL',
  ' n',
  ' a.b',
  ' "double quoted"',
  " 'single'",
  ' "two\n  lines"',
  ' "broken\nlater: x"',
  ' [a, b]',
  ' [a,\n  b]',
  ' [a,\nb]',
  '\n  - x\n  - y # note',
  '\n- x\n- y',
  ' |\n  text\n\n  more\n',
  ' |+\n  keep\n\n',
  ' >-\n  folded\n  text',
  ' &anc val',
  ' *anc',
  ' { a: 1 }',
  '\n  id: x\n  depth: 1',
  '\n  id: x\n\tdepth: 1',
  '',
  ' # only a comment',
  ' x # trailing',
  ' [unclosed',
  ' a: b',
];

const ODD_LINES = ['"q": 1', '? x\n: y', 'k:v', '\tk: 1', '<<: *anc', '  indented: 1', '- item', '# comment', '', '   ', 'x'.repeat(1100) + ': 1'];

const entry = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES)).map(([k, v]) => `${k}:${v}`) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_LINES) },
);

const value: fc.Arbitrary<EditValue | undefined> = fc.oneof(
  fc.constantFrom<EditValue | undefined>('in_progress', 'plain', 'x-y_z', 'yes', '#1: go', 3, null, true, false, undefined, [], ['a', 'b c'], ['x']),
  fc.string({ maxLength: 6 }),
);

const edit: fc.Arbitrary<FrontmatterEdit> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...KEYS, 'updatedAt'), value).map(([key, v]) => ({ key, value: v })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('depth', 'id', 'parent_id'), value).map(([key, v]) => ({ path: ['delegation'], key, value: Array.isArray(v) ? 'x' : v })) },
  { weight: 1, arbitrary: fc.constantFrom<FrontmatterEdit>({ key: 'stepCompleted', value: undefined, renameTo: 'stepsCompleted' }, { key: 'status', value: undefined, renameTo: 'scope' }) },
);

function outcome(f: () => string): string {
  try {
    return `ok ${f()}`;
  } catch (e) {
    return `refused ${(e as { reason?: string }).reason} ${(e as Error).message}`;
  }
}

test('an edit planned on the entries it touches gives the bytes (or the refusal) of one planned on the whole frontmatter', () => {
  let focusedOk = 0;
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 9 }), fc.array(edit, { minLength: 1, maxLength: 3 }), fc.boolean(), (entries, edits, crlf) => {
      let text = entries.map((e) => `${e}\n`).join('');
      if (crlf) text = text.replace(/\n/g, '\r\n');
      const whole = outcome(() => editYamlTextWhole(text, edits));
      assert.equal(outcome(() => editYamlText(text, edits)), whole, JSON.stringify({ text, edits }));
      if (whole.startsWith('ok')) focusedOk++;
    }),
    { numRuns: RUNS },
  );
  assert.ok(focusedOk > RUNS / 10, `only ${focusedOk} edits went through`);
});

test('a long step list the edit does not touch gives the same bytes as the whole parse', () => {
  const steps = Array.from({ length: 300 }, (_, i) => `step-${i}`);
  const text = `workflow: w\nstatus: in_progress\nsteps: [${steps.join(', ')}]\ncurrentStep: step-3\nstepsCompleted: [step-0, step-1, step-2]\n`;
  const edits: FrontmatterEdit[] = [
    { key: 'currentStep', value: 'step-4' },
    { key: 'stepsCompleted', value: ['step-0', 'step-1', 'step-2', 'step-3'] },
    { key: 'updatedAt', value: '2026-11-28T09:00:00Z' },
  ];
  const out = editYamlText(text, edits);
  assert.equal(out, editYamlTextWhole(text, edits));
  assert.equal(out, text.replace('currentStep: step-3', 'currentStep: step-4').replace('step-2]\n', 'step-2, step-3]\n') + 'updatedAt: "2026-11-28T09:00:00Z"\n');
  // An error in an entry the edit does not touch is still refused.
  assert.throws(() => editYamlText(text.replace('steps: [', 'steps: [[ '), edits), (e: Error & { reason?: string }) => e.reason === 'invalid');
});

// A one-line list of plain words that an edit sets to a list (an advance's stepsCompleted) is read
// without the parser (model/edit.ts plainFlowList): the same bytes or refusal as the whole parse,
// over lists with every kind of item the fast reading must leave to the parser.
const ITEMS = ['a', 'step-1', 'b.c', '_u', 'x/y', '1-setup', '1', '1e3', '0x1F', '0o17', '.5', 'true', 'Null', '~', 'yes', '"q"', "'s'", 'a b', 'a:b', 'a: b', '-x', 'x#y', '', '[n]', '{m: 1}', '&a x', '*a', '!t x', 'é'];
const listText = fc.tuple(
  fc.array(fc.tuple(fc.constantFrom(...ITEMS), fc.constantFrom('', ' ', '  ')), { maxLength: 6 }),
  fc.constantFrom('', ' ', '  ', '\t'),
  fc.constantFrom('', '  ', ' # done', '# x', ','),
  fc.constantFrom('', '\n', '\n# note\n', '\n\n  \n', '\n  - z\n', '\n  more\n', '\r\n'),
).map(([items, afterColon, tail, below]) => `stepsCompleted:${afterColon === '\t' ? '\t' : ' ' + afterColon}[${items.map(([i, sp]) => `${sp}${i}${sp}`).join(',')}]${tail}${below}`);

test('a one-line list of plain words edited into a list gives the bytes (or the refusal) of the whole parse', () => {
  let fast = 0;
  fc.assert(
    fc.property(listText, fc.array(fc.constantFrom('a', 'step-2', 'new one', '1e3', 'true', '7'), { maxLength: 3 }), fc.nat(3), fc.boolean(), (list, added, keep, others) => {
      const old = /\[(.*)\]/.exec(list)?.[1].split(',').map((x) => x.trim()).filter(Boolean) ?? [];
      const edits: FrontmatterEdit[] = [{ key: 'stepsCompleted', value: [...old.slice(0, keep === 3 ? old.length : keep), ...added] }];
      if (others) edits.unshift({ key: 'currentStep', value: 'two' }, { key: 'updatedAt', value: '2026-11-28T09:00:00Z' });
      const text = `workflow: w\ncurrentStep: one\n${list}${list.endsWith('\n') ? '' : '\n'}status: in_progress\n`;
      const whole = outcome(() => editYamlTextWhole(text, edits));
      assert.equal(outcome(() => editYamlText(text, edits)), whole, JSON.stringify({ text, edits }));
      if (whole.startsWith('ok')) fast++;
    }),
    { numRuns: RUNS * 4 },
  );
  assert.ok(fast > RUNS / 2, `only ${fast} edits went through`);
});

test('a word that YAML reads as a number is written quoted, so it reads back as the same string', () => {
  for (const word of ['1e3', '2E5', '0x1F', '0o17']) {
    const out = editYamlText('currentStep: one\nstepsCompleted: [a]\n', [{ key: 'currentStep', value: word }, { key: 'stepsCompleted', value: ['a', word] }]);
    const data = parseYaml(out) as { currentStep: unknown; stepsCompleted: unknown[] };
    assert.equal(data.currentStep, word, out);
    assert.deepEqual(data.stepsCompleted, ['a', word], out);
  }
});

const SCALARS = ['one', 'step-2', '1e3', '7', 'true', 'null', '~', '2026-11-28T09:00:00Z', '2026-11-28T09:00:00.120Z', '2026-11-28 09:00', "'2026-11-28T09:00:00Z'", '"2026-11-28T09:00:00.5Z"', "'it''s'", '"a \\" b"', '"tab\there"', "'x # y'", '"#1: go"', "''", '""', 'a:b', 'a: b', '-x', 'x#y', 'é', '"é"', 'a b', '[a]', '&a x', '!t x', '|', '>'];
const scalarText = fc.tuple(fc.constantFrom('currentStep', 'updatedAt'), fc.constantFrom(...SCALARS), fc.constantFrom('', ' ', ' # c', '#c', '\t'), fc.constantFrom('', '\n', '\n# note\n', '\n\n', '\n  more\n', '\r\n'))
  .map(([key, v, tail, below]) => ({ key, line: `${key}: ${v}${tail}${below}` }));

test('a one-line scalar edited into a scalar gives the bytes (or the refusal) of the whole parse', () => {
  let ok = 0;
  fc.assert(
    fc.property(scalarText, fc.constantFrom<EditScalar>('one', 'two', 'step-2', '2026-11-29T10:11:12.345Z', '2026-11-29T10:11:12Z', '1e3', 'a b', "it's", '', 7, true, null), fc.boolean(), ({ key, line }, v, both) => {
      const edits: FrontmatterEdit[] = [{ key, value: v }];
      if (both) edits.push({ key: 'stepsCompleted', value: ['a', 'b'] });
      const text = `workflow: w\n${line}${line.endsWith('\n') ? '' : '\n'}stepsCompleted: [a]\n`;
      const whole = outcome(() => editYamlTextWhole(text, edits));
      assert.equal(outcome(() => editYamlText(text, edits)), whole, JSON.stringify({ text, edits }));
      if (whole.startsWith('ok')) ok++;
    }),
    { numRuns: RUNS * 2 },
  );
  assert.ok(ok > RUNS / 2, `only ${ok} edits went through`);
});

test('a one-line `key: word` entry is edited without the parser exactly as with it, a word that is not a string included', () => {
  const words = ['plain', 'in_progress', 'x-y_z', 'a.b', '_u', 'true', 'True', 'FALSE', 'null', 'NULL', 'Null', 'off', 'On', 'yes', 'n', 'Y', 'nan', 'inf'];
  const values: EditValue[] = ['plain', 'in_progress', 'true', 'null', 'off', 'yes', 'two words', '', '3', 3, 0, true, false, null, 'NULL'];
  for (const w of words) {
    for (const v of values) {
      for (const layout of [`status: ${w}\n`, `status:  ${w}\nscope: s\n`, `a: 1\nstatus: ${w}`, `status: ${w} \n`, `status: ${w} # c\n`]) {
        const edits: FrontmatterEdit[] = [{ key: 'status', value: v }];
        assert.equal(outcome(() => editYamlText(layout, edits)), outcome(() => editYamlTextWhole(layout, edits)), JSON.stringify({ layout, v }));
      }
    }
  }
});

test('a list whose last item is a mapping, emptied, rewritten or removed, keeps the key after it', () => {
  for (const list of ['stepsCompleted:\n- a: b\n', 'stepsCompleted:\n  - x\n  - a: b\n    c: d\n', 'stepsCompleted:\n  - |\n    text\n']) {
    const text = `workflow: w\n${list}status: in_progress\n`;
    for (const value of [[], ['z'], undefined]) {
      for (const f of [editYamlText, editYamlTextWhole]) {
        const out = f(text, [{ key: 'stepsCompleted', value }]);
        assert.ok(out.endsWith('status: in_progress\n'), JSON.stringify({ text, value, out }));
        assert.equal((parseYaml(out) as { status: string }).status, 'in_progress');
      }
    }
  }
});

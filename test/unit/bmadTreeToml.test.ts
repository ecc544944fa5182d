// The tree's own TOML and frontmatter readers on the string and block forms their fast paths scan:
// strings are taken as slices, so quotes, escapes, line ends and control characters must land
// exactly as TOML 1.0 and tickets.py's frontmatter subset say.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseToml, TomlError } from '../../src/core/bmad/tree/toml';
import { readLeafFrontmatter } from '../../src/core/bmad/tree/frontmatter';

test('TOML strings: escapes, lone quotes in multi-line strings, line-ending backslashes, literal strings', () => {
  const doc = parseToml([
    'a = "x\\ty\\u00e9 \\"q\\""',
    "b = 'C:\\dir'",
    'c = """',
    'one "quoted" ""twice""',
    'joined \\',
    '   here"""',
    "d = '''",
    "raw 'q' ''x''",
    "z'''",
    'e = """five"""""',
    '',
  ].join('\n'));
  assert.deepEqual({ ...doc.data }, {
    a: 'x\ty\u00e9 "q"',
    b: 'C:\\dir',
    c: 'one "quoted" ""twice""\njoined here',
    d: "raw 'q' ''x''\nz",
    e: 'five""',
  });
  assert.equal(doc.keyPos.get(doc.data)?.get('d')?.line, 6);
});

test('TOML strings refuse a control character, an open string and a bad escape, on their line', () => {
  const err = (text: string) => assert.throws(() => parseToml(text), (e: unknown) => e instanceof TomlError && e.line === 1);
  err('ok = 1\nx = "ctl\u0001"\n');
  err('ok = 1\nx = "open\n');
  err('ok = 1\nx = "bad \\q"\n');
  err("ok = 1\nx = 'open\n");
});

test('TOML numbers, booleans, dates and arrays of tables with each entry\'s line', () => {
  const doc = parseToml('n = 1_000\nh = 0xff\nt = true\nd = 1979-05-27 07:32:00\n\n[[entry]]\nid = 1\n[[entry]]\nid = "3a"\nafter = [1, { epic = 2, needs = "x" }]\n');
  assert.equal(doc.data.n, 1000);
  assert.equal(doc.data.h, 255);
  assert.equal(doc.data.t, true);
  assert.equal(doc.data.d, '1979-05-27 07:32:00');
  const entries = doc.data.entry as Record<string, unknown>[];
  assert.deepEqual(entries.map((e) => doc.tablePos.get(e as never)?.line), [5, 7]);
  assert.throws(() => parseToml('a = {b = 1}\n[a]\n'), TomlError);
  assert.throws(() => parseToml('a = [1]\n[[a]]\n'), TomlError);
});

test('frontmatter: the block closes on the first later `---` line, comments and indented lines as tickets.py reads them', () => {
  const text = '---\nticket: 3\nstatus: "in-progress"   # note\ntitle: \'It\'\'s\' # c\n  nested: x\nafter: [1, "2a"]\n---x\n---\nbody\n---\n';
  const lenient = readLeafFrontmatter(text, true);
  assert.deepEqual({ ...lenient.data }, { ticket: 3, status: 'in-progress', title: "It's", after: [1, '2a'] });
  assert.equal(lenient.lines.get('after'), 5);
  const strict = readLeafFrontmatter('---\nid: 1\nafter:\n  - 2\n---\n', false);
  assert.equal(strict.blockListLine, 3);
  assert.equal(readLeafFrontmatter('---\nid: 1\n', true).unclosed, true);
  assert.equal(readLeafFrontmatter('---\n---\n', true).unclosed, true);
});

test('frontmatter written with CRLF or CR line ends reads as tickets.py reads it (universal newlines), on the same lines', () => {
  for (const eol of ['\r\n', '\r']) {
    const fm = readLeafFrontmatter(['---', 'ticket: 3', 'status: in-review', 'assignee: "ana"', '---', '', '# Plan', ''].join(eol), true);
    assert.equal(fm.unclosed, false, JSON.stringify(eol));
    assert.deepEqual({ ...fm.data }, { ticket: 3, status: 'in-review', assignee: 'ana' });
    assert.equal(fm.lines.get('status'), 2);
  }
});

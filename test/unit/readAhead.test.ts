// Reading ahead on a second thread (src/core/store/readAhead.ts): a scan that lets the worker read
// and hash its files gives the same states, problems (with ranges), skipped files and stat keys as
// one that reads every file itself, on a tree of every kind of candidate file; the worker's
// answer for a path that cannot be read is what the scan's own read says; the scan never waits on
// a worker stuck in a read (it reads the file itself; the worker's late read is dropped); and the
// fast YAML reader's answers the worker hands over (plainYaml.ts run from its source there) make
// the same parse as the scan's own thread, on generated and hostile frontmatter: quotes, anchors,
// merge keys, block and multi-line scalars, comments, tabs, BOM, CRLF, lone CR, duplicate and
// prototype keys, unclosed fences, code fences, and the fast reader on or off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { parseFrontmatter, setFastReader, DEFAULT_FRONTMATTER_LIMITS } from '../../src/core/model/frontmatter';
import { scanRoots, allProblems } from '../../src/core/store/scan';
import type { FileKey } from '../../src/core/store/scanIndex';
import { ReadAhead, type AheadRead } from '../../src/core/store/readAhead';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-readahead-'));
}

/** One of each kind of candidate file, `n` times over, some of them larger than the read-ahead's slabs. */
function plant(root: string, n: number): void {
  fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
  fs.writeFileSync(path.join(root, '.waymark/config.yaml'), 'limits:\n  maxFileBytes: 400000\n');
  for (let i = 0; i < n; i++) {
    const d = path.join(root, `d${i % 7}`);
    fs.mkdirSync(d, { recursive: true });
    const steps = '[a, b, c]';
    switch (i % 12) {
      case 0: fs.writeFileSync(path.join(d, `wf-${i}.md`), `---\nworkflow: w${i}\nstatus: in_progress\nsteps: ${steps}\nstepsCompleted: [a]\ncurrentStep: b\n---\nbody ${i}\n`); break;
      case 1: fs.writeFileSync(path.join(d, `bad-${i}.md`), `---\nworkflow: w${i}\nstatus: nope\nsteps: ${steps}\nstepsCompleted: [z]\n---\n`); break;
      case 2: fs.writeFileSync(path.join(d, `plain-${i}.md`), `# Just Markdown ${i}\n\n${'text '.repeat(3000)}\n`); break;
      // Frontmatter then a long body: past the 8 KiB head, so the whole file is read.
      case 3: fs.writeFileSync(path.join(d, `long-${i}.md`), `---\nworkflow: w${i}\nsteps: ${steps}\nstatus: created\n---\n${'long body line\n'.repeat(2000 + i)}`); break;
      // Larger than a 256 KiB slab.
      case 4: fs.writeFileSync(path.join(d, `huge-${i}.md`), `---\nworkflow: w${i}\nsteps: ${steps}\nstatus: created\n---\n${'x'.repeat(300_000)}\n`); break;
      case 5: fs.writeFileSync(path.join(d, `toolarge-${i}.md`), `---\nworkflow: w${i}\n---\n${'y'.repeat(500_000)}\n`); break;
      case 6: fs.writeFileSync(path.join(d, `bin-${i}.md`), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01])); break;
      case 7: fs.writeFileSync(path.join(d, `utf16-${i}.md`), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('---\nworkflow: x\n---\n', 'utf16le')])); break;
      case 8: fs.writeFileSync(path.join(d, `empty-${i}.md`), ''); break;
      case 9: fs.writeFileSync(path.join(d, `yamlerr-${i}.md`), `---\nworkflow: w${i}\nsteps: [a, b\n---\n`); break;
      // A byte-order mark before the fence, short and past the 8 KiB head.
      case 10: fs.writeFileSync(path.join(d, `bom-${i}.md`), `\uFEFF---\r\nworkflow: w${i}\r\nsteps: ${steps}\r\nstatus: completed\r\n---\r\n${i % 24 === 10 ? 'bom body\r\n'.repeat(1200) : ''}`); break;
      default: fs.mkdirSync(path.join(d, `folder-${i}.md`)); break;
    }
  }
}

/** A scan's whole answer as plain JSON (problems with their ranges), and the stat keys it took. */
async function answer(root: string, readAheadFrom: number, index: boolean) {
  const fileKeys = new Map<string, FileKey>();
  const r = await scanRoots([root], { readAheadFrom, index, indexWrite: 'manual', fileKeys });
  return {
    workflows: JSON.parse(JSON.stringify(r.workflows)),
    problems: JSON.parse(JSON.stringify(allProblems(r))),
    skipped: r.skipped,
    files: r.files,
    keys: [...fileKeys],
    parsed: r.index.map((x) => x.parsed),
    readAhead: r.readAhead,
  };
}

test('a scan read ahead answers as one that reads every file itself, with and without the index', async () => {
  const root = tmp();
  try {
    plant(root, 1800);
    for (const index of [false, true]) {
      const alone = await answer(root, Infinity, index);
      const ahead = await answer(root, 1, index);
      assert.ok(alone.workflows.length > 500, `${alone.workflows.length} workflows`);
      assert.equal(alone.readAhead, 0);
      assert.ok(ahead.readAhead > 0, 'the second thread read some of the files');
      assert.ok(alone.skipped.some((s) => s.reason === 'too-large') && alone.skipped.some((s) => s.reason === 'binary') && alone.skipped.some((s) => s.reason === 'not-a-file'));
      assert.deepStrictEqual({ ...ahead, readAhead: 0 }, alone);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the worker says of a path it cannot read what the scan would: gone, a folder', () => {
  const root = tmp();
  try {
    const file = path.join(root, 'a.md');
    fs.writeFileSync(file, '---\nworkflow: a\n---\n');
    fs.mkdirSync(path.join(root, 'dir.md'));
    const files = [path.join(root, 'gone.md'), path.join(root, 'dir.md'), file];
    const ahead = ReadAhead.start(files, 1000, 8192);
    assert.ok(ahead, 'the worker starts');
    // Let the worker read every file before the scan asks, as it does on a long listing.
    const sleep = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; !ahead.finished && waited < 20_000; waited += 20) Atomics.wait(sleep, 0, 0, 20);
    assert.equal(ahead.claimed, files.length, 'the worker claimed every file');
    const reads = files.map((_, i) => ahead.take(i));
    ahead.close();
    assert.equal(reads[0]?.error?.code, 'ENOENT');
    assert.equal(reads[1]?.notFile, 'dir');
    assert.equal(reads[2]?.bytes?.toString('utf8'), '---\nworkflow: a\n---\n');
    assert.match(reads[2]?.hash ?? '', /^[0-9a-f]{64}$/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a file the worker is stuck reading is read by the scan at once, and the worker\'s late read of it is dropped', { skip: process.platform === 'win32' }, () => {
  const root = tmp();
  try {
    // A FIFO: the worker's open blocks until a writer comes (a file swapped for one after the listing).
    const fifo = path.join(root, 'fifo.md');
    execFileSync('mkfifo', [fifo]);
    const a = path.join(root, 'a.md');
    const b = path.join(root, 'b.md');
    fs.writeFileSync(a, '---\nworkflow: a\n---\n');
    fs.writeFileSync(b, '---\nworkflow: b\n---\n');
    const files = [fifo, a, b];
    const ahead = ReadAhead.start(files, 1000, 8192);
    assert.ok(ahead, 'the worker starts');
    const sleep = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; ahead.claimed < 1 && waited < 20_000; waited += 5) Atomics.wait(sleep, 0, 0, 5);
    assert.equal(ahead.claimed, 1, 'the worker claimed the FIFO and is stuck opening it');
    // Neither the stuck file nor the next one (not claimed by the worker) waits: the scan reads both.
    assert.equal(ahead.take(0), undefined);
    assert.equal(ahead.take(1), undefined);
    // A writer comes: the worker's open returns, it reports the FIFO (dropped: the scan has it) and reads b.
    const w = fs.openSync(fifo, 'w');
    fs.closeSync(w);
    for (let waited = 0; !ahead.finished && waited < 20_000; waited += 20) Atomics.wait(sleep, 0, 0, 20);
    assert.ok(ahead.finished, 'the worker finished the listing');
    const r = ahead.take(2);
    ahead.close();
    assert.equal(r?.bytes?.toString('utf8'), '---\nworkflow: b\n---\n');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

// Frontmatter lines, hostile and ordinary, for the worker's fast reader against the scan thread's.
const VALUES = ['feature', 'in_progress', '30d', '0', '-0', '-5', '007', '1e3', '1.5', '2026-11-20', '2026-02-30', '2026-11-20T10:00:00Z', "'it''s'", '"q"', '"a\\"b"', "'multi", 'true', 'NULL', '~', 'yes',
  '[a, b]', '[a,,b]', '[]', '{}', '{a: 1}', '[a, [b]]', 'a: b', 'a #c', 'x#y', '&a x', '*a', '!!str a', '|', '>-', '|2', 'é', '日本', '😀', '\u00A0x', 'a\u2028b', '\u0001', '__proto__', '<<', '', '  '];
const KEYS = ['workflow', 'status', 'steps', 'stepsCompleted', 'currentStep', 'delegation', 'id', 'parent_id', 'root_id', 'chain_path', 'depth', 'title', 'true', '__proto__', 'constructor', 'a b', '"q"', '? k', '<<', 'k-1'];
const INDENTS = ['', '', '', '  ', '  ', '    ', ' ', '\t', ' \t'];
const line = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...INDENTS), fc.constantFrom(...KEYS), fc.constantFrom(...VALUES)).map(([i, k, v]) => `${i}${k}: ${v}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...INDENTS), fc.constantFrom(...KEYS)).map(([i, k]) => `${i}${k}:`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...INDENTS), fc.constantFrom(...VALUES)).map(([i, v]) => `${i}- ${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('# c', '', '  text', '  b"', '...', '--- x', '---', '%YAML 1.2', 'k: &a x', 'j: *a', '<<: *a', 'k: [a,', '  b]', 'delegation:', '  id: x', '  chain_path: [r, x]') },
);
const frontmatter = fc.record({
  lines: fc.array(line, { maxLength: 14 }),
  eol: fc.constantFrom('\n', '\n', '\r\n', '\r'),
  bom: fc.boolean(),
  fence: fc.constantFrom('---', '---', '---', '--- ', '---yaml', '---js'),
  closed: fc.constantFrom(true, true, true, false),
}).map(({ lines, eol, bom, fence, closed }) => `${bom ? '\uFEFF' : ''}${fence}${eol}${lines.join(eol)}${lines.length ? eol : ''}${closed ? `---${eol}` : ''}body${eol}`);
// Mostly the frontmatter workflows are written in: the reader is sure of most of these.
const plainLine = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom('workflow', 'status', 'title', 'currentStep', 'ttl', 'k-1'), fc.constantFrom('feature', 'in_progress', '30d', '0', '-5', '2026-11-20', "'it''s'", '"q"', 'true', '~', '[a, b]', '[]', 'x #c')).map(([k, v]) => `${k}: ${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('# c', '', 'steps:\n  - a\n  - b', 'delegation:\n  id: x\n  parent_id: r\n  root_id: r\n  depth: 1\n  chain_path: [r, x]', 'notes: |\n  one\n\n  two', 'more: >-\n  a\n  b') },
);
const plainFrontmatter = fc.record({ lines: fc.array(plainLine, { maxLength: 10 }), eol: fc.constantFrom('\n', '\r\n') }).map(({ lines, eol }) => `---${eol}${lines.join('\n').split('\n').join(eol)}${lines.length ? eol : ''}---${eol}body${eol}`);
const FIXED = [
  '---\nworkflow: w\nworkflow: x\n---\n',
  '---\nworkflow: w\nsteps: [a, b]\ndelegation:\n  id: a\n  parent_id: null\n  root_id: a\n  depth: 0\n  chain_path: [a]\n---\n',
  '---\r\nworkflow: w\r\nnotes: |\r\n  one\r\n\r\n  two\r\nstatus: created\r\n---\r\n',
  '---\nworkflow: w\nnotes: >-\n  folded\n   more\n  text\n---\n',
  '---\nbase: &b {status: created}\nwf:\n  <<: *b\n---\n',
  '---\nworkflow: "multi\n  line"\n---\n',
  '---\nworkflow: w\n\tstatus: created\n---\n',
  '\uFEFF---\nworkflow: w\n---\n',
  '---\nworkflow: w # a comment\n# a line comment\nsteps:\n  - a # c\n  - b\n---\n',
  '---\nworkflow: w\rstatus: created\r---\r',
  '---\n__proto__: x\nworkflow: w\n---\n',
  '---\nworkflow: w\n---',
  '---\n---\n',
  '---\n\n---\n',
  `---\nworkflow: w\nsteps: [${Array.from({ length: 300 }, (_, i) => `s${i}`).join(', ')}]\n---\n`,
];

test('the fast YAML reader\'s answers from the worker parse as the scan thread\'s own, on generated and hostile frontmatter', async () => {
  const root = tmp();
  try {
    const texts = [...FIXED, ...fc.sample(frontmatter, { numRuns: 600, seed: 24 }), ...fc.sample(plainFrontmatter, { numRuns: 300, seed: 24 })];
    const files = texts.map((t, i) => path.join(root, `f${i}.md`));
    texts.forEach((t, i) => fs.writeFileSync(files[i], t));
    // A listing shorter than the worker's lead: it reads (and answers for) every file, then exits.
    const ahead = ReadAhead.start(files, 1_000_000, 8192, DEFAULT_FRONTMATTER_LIMITS.maxNodes);
    assert.ok(ahead, 'the worker starts');
    const sleep = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; !ahead.finished && waited < 60_000; waited += 20) Atomics.wait(sleep, 0, 0, 20);
    let answered = 0;
    let sure = 0;
    for (let i = 0; i < files.length; i++) {
      const r: AheadRead | undefined = ahead.take(i);
      assert.ok(r?.bytes, `the worker read ${files[i]}`);
      const text: string = r.bytes.toString('utf8');
      if (!r.plainYaml) continue;
      answered++;
      if (r.plainYaml.json) sure++;
      assert.deepStrictEqual(parseFrontmatter(text, DEFAULT_FRONTMATTER_LIMITS, r.plainYaml), parseFrontmatter(text, DEFAULT_FRONTMATTER_LIMITS), `worker and scan thread differ on ${JSON.stringify(text)}`);
      // Another node cap than the worker's: its answer is not taken.
      const limits = { ...DEFAULT_FRONTMATTER_LIMITS, maxNodes: 3 };
      assert.deepStrictEqual(parseFrontmatter(text, limits, r.plainYaml), parseFrontmatter(text, limits));
    }
    ahead.close();
    assert.ok(sure > 100 && answered > sure, `the worker answered ${answered} files, ${sure} of them sure`);

    // Whole scans of the same files: read ahead, alone, and with the fast reader off (the reference), the same answer.
    fs.mkdirSync(path.join(root, 'nested'));
    const scans = [];
    for (const [readAheadFrom, fast] of [[1, undefined], [Infinity, undefined], [1, false]] as const) {
      setFastReader(fast);
      try {
        const r = await scanRoots([root], { readAheadFrom, index: false });
        scans.push({ workflows: JSON.parse(JSON.stringify(r.workflows)), problems: JSON.parse(JSON.stringify(allProblems(r))), skipped: r.skipped, files: r.files });
      } finally {
        setFastReader(undefined);
      }
    }
    assert.ok(scans[0].workflows.length > 50 && scans[0].problems.length > 100, `${scans[0].workflows.length} workflows, ${scans[0].problems.length} problems`);
    assert.deepStrictEqual(scans[0], scans[1]);
    assert.deepStrictEqual(scans[0], scans[2]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

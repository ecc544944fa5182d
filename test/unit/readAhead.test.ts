// Reading ahead on a second thread (src/core/store/readAhead.ts): a scan that lets the worker read
// and hash its files gives the same states, problems (with ranges), skipped files and stat keys as
// one that reads every file itself, on a tree of every kind of candidate file; the worker's
// answer for a path that cannot be read is what the scan's own read says; and the scan never
// waits on a worker stuck in a read (it reads the file itself; the worker's late read is dropped).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { scanRoots, allProblems } from '../../src/core/store/scan';
import type { FileKey } from '../../src/core/store/scanIndex';
import { ReadAhead } from '../../src/core/store/readAhead';

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
    switch (i % 14) {
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
      // Bytes that are no UTF-8 (decoded with replacement characters), and a NUL byte past the 8 KiB head (not binary).
      case 11: fs.writeFileSync(path.join(d, `latin1-${i}.md`), Buffer.concat([Buffer.from(`---\nworkflow: w${i}\nstatus: created\nnote: "caf`), Buffer.from([0xe9, 0xff, 0xc3]), Buffer.from('"\n---\nbody\n')])); break;
      case 12: fs.writeFileSync(path.join(d, `nul-${i}.md`), Buffer.concat([Buffer.from(`---\nworkflow: w${i}\nstatus: created\n---\n${'z'.repeat(9000)}`), Buffer.from([0x00, 0x0a])])); break;
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
    // A fence with a NUL byte in the head (the scan's encoding test refuses it), no fence, a NUL past the head.
    const bin = Buffer.from('---\nworkflow: b\n\0---\n');
    const plain = Buffer.from('# no fence\n');
    const late = Buffer.concat([Buffer.from(`---\nworkflow: c\n---\n${'z'.repeat(9000)}`), Buffer.from([0, 0xff, 0x0a])]);
    fs.writeFileSync(path.join(root, 'bin.md'), bin);
    fs.writeFileSync(path.join(root, 'plain.md'), plain);
    fs.writeFileSync(path.join(root, 'late.md'), late);
    const files = [path.join(root, 'gone.md'), path.join(root, 'dir.md'), file, path.join(root, 'bin.md'), path.join(root, 'plain.md'), path.join(root, 'late.md')];
    const ahead = ReadAhead.start(files, 100_000, 8192);
    assert.ok(ahead, 'the worker starts');
    // Let the worker read every file before the scan asks, as it does on a long listing.
    const sleep = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; !ahead.finished && waited < 20_000; waited += 20) Atomics.wait(sleep, 0, 0, 20);
    assert.equal(ahead.claimed, files.length, 'the worker claimed every file');
    const reads = files.map((_, i) => ahead.take(i));
    ahead.close();
    assert.equal(reads[0]?.error?.code, 'ENOENT');
    assert.equal(reads[1]?.notFile, 'dir');
    // Bytes that reach the parse come decoded (the scan's thread neither decodes nor wraps them).
    assert.equal(reads[2]?.text, '---\nworkflow: a\n---\n');
    assert.equal(reads[2]?.bytes, undefined);
    assert.equal(reads[2]?.length, 20);
    // Bytes the scan's own tests refuse or leave unparsed come as bytes, to be judged there.
    assert.deepStrictEqual([reads[3]?.bytes, reads[3]?.text], [bin, undefined]);
    assert.deepStrictEqual([reads[4]?.bytes, reads[4]?.text, reads[4]?.hash], [plain, undefined, undefined]);
    assert.equal(reads[3]?.hash, createHash('sha256').update(bin).digest('hex'));
    // A NUL byte past the head is no refusal: decoded as the scan decodes it (U+FFFD for the byte that is no UTF-8).
    assert.equal(reads[5]?.text, late.toString('utf8'));
    assert.equal(reads[5]?.hash, createHash('sha256').update(late).digest('hex'));
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
    assert.equal(r?.text, '---\nworkflow: b\n---\n');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the worker stops at its bound (1,024 files ahead of the scan) and reads on as the scan takes its reads, to the last file', () => {
  const root = tmp();
  try {
    const files: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const f = path.join(root, `f${i}.md`);
      fs.writeFileSync(f, `---\nworkflow: w${i}\n---\n`);
      files.push(f);
    }
    const ahead = ReadAhead.start(files, 1000, 8192);
    assert.ok(ahead, 'the worker starts');
    const sleep = new Int32Array(new SharedArrayBuffer(4));
    // Wait until the worker reaches its bound (however late a loaded machine starts its thread),
    // then a while longer: it must not claim past it.
    for (let waited = 0; ahead.claimed < 1024 && waited < 20_000; waited += 20) Atomics.wait(sleep, 0, 0, 20);
    Atomics.wait(sleep, 0, 0, 300);
    assert.ok(ahead.claimed >= 1024 && ahead.claimed <= 1024 + 32, `the worker claimed ${ahead.claimed} files ahead of a scan that took none`);
    // The scan takes every file, slowly enough for the worker to keep ahead: each read is the worker's.
    let fromWorker = 0;
    for (let i = 0; i < files.length; i++) {
      for (let waited = 0; ahead.claimed <= i && !ahead.finished && waited < 20_000; waited += 5) Atomics.wait(sleep, 0, 0, 5);
      // A read claimed and not posted yet is the scan's own (it never waits): most are posted by now.
      if (ahead.take(i)) fromWorker++;
    }
    ahead.close();
    assert.ok(fromWorker > 2000, `${fromWorker} of 3,000 reads came from the worker`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a scan held for its first listing starts reading ahead only after the hold: files changed meanwhile are read as they are then, and every file is read', async () => {
  const root = tmp();
  try {
    fs.mkdirSync(path.join(root, 'work'));
    const file = (i: number) => path.join(root, 'work', `w${String(i).padStart(4, '0')}.md`);
    const text = (i: number, status: string) => `---\nworkflow: w${i}\nstatus: ${status}\nsteps: [a, b]\ncurrentStep: a\n---\n`;
    for (let i = 0; i < 400; i++) fs.writeFileSync(file(i), text(i, 'created'));
    let listed: number | undefined;
    let firstListed!: () => void;
    const listedOnce = new Promise<void>((res) => (firstListed = res));
    let release!: () => void;
    const held = new Promise<void>((res) => (release = res));
    let holds = 0;
    const scan = scanRoots([root], {
      readAheadFrom: 100,
      index: false,
      sliceMs: 10,
      firstProgressFiles: 30,
      onProgress: (read) => {
        listed ??= read.length;
        firstListed();
      },
      // The editor's first rows: the scan waits once, after its first listing, until they are drawn.
      hold: () => (listed !== undefined && holds++ === 0 ? held : undefined),
    });
    await listedOnce;
    // A worker started before the hold would have read the files after the listing by now.
    await new Promise((res) => setTimeout(res, 1500));
    // Files after the first listing change while its rows are drawn.
    for (let i = 40; i < 400; i += 7) fs.writeFileSync(file(i), text(i, 'in_progress'));
    release();
    const r = await scan;
    assert.equal(listed, 30);
    assert.equal(r.workflows.length, 400);
    const stale = r.workflows.filter((s) => Number(s.workflow.slice(1)) >= 40 && (Number(s.workflow.slice(1)) - 40) % 7 === 0 && s.status !== 'in_progress');
    assert.deepEqual(stale.map((s) => s.workflow), [], 'files changed during the hold are read as they are after it');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { scanRoots, allProblems, type ScanOptions } from '../../src/core/store/scan';
import { indexBodyHash, scanIndexPath, SCAN_INDEX_MAX_BYTES } from '../../src/core/store/scanIndex';
import { decodeValue, encodeValue } from '../../src/core/store/indexCodec';
import { stepAnalysis } from '../../src/core/model/workflow';
import type { WorkflowState } from '../../src/core/types';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-scanindex-'));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Index on, written before returning, nothing treated as racy (files are older than the scan). */
const IDX: ScanOptions = { indexWrite: 'sync', racyWindowMs: 0 };

async function cold(root: string, extra: ScanOptions = {}) {
  return scanRoots([root], { ...extra, index: false });
}

async function warm(root: string, extra: ScanOptions = {}) {
  const r = await scanRoots([root], { ...IDX, ...extra });
  await r.indexWritten;
  return r;
}

/** Deep equality of everything a scan returns, plus the hidden per-state annotations. */
function assertSameScan(a: Awaited<ReturnType<typeof scanRoots>>, b: Awaited<ReturnType<typeof scanRoots>>) {
  assert.deepStrictEqual(a.workflows, b.workflows);
  assert.deepStrictEqual(a.problems, b.problems);
  assert.deepStrictEqual(a.skipped, b.skipped);
  assert.equal(a.files, b.files);
  assert.deepStrictEqual(allProblems(a), allProblems(b));
  assert.equal(JSON.stringify(a.workflows), JSON.stringify(b.workflows));
  for (let i = 0; i < a.workflows.length; i++) {
    const x = stepAnalysis(a.workflows[i]);
    const y = stepAnalysis(b.workflows[i]);
    assert.deepStrictEqual({ ...x, done: [...x.done] }, { ...y, done: [...y.done] }, a.workflows[i].file);
    assert.equal(Object.getPrototypeOf(b.workflows[i].data), null);
    assert.equal(Object.getPrototypeOf(b.workflows[i].gates), null);
  }
}

const BAD_FILES: Record<string, string> = {
  'work/syntax.md': '---\nworkflow: feature\nsteps: [a, b\n---\n',
  'work/unclosed.md': '---\nworkflow: feature\nsteps: [a]\n',
  'work/js.md': '---js\nmodule.exports = { workflow: "x" }\n---\n',
  'work/status.md': '---\nworkflow: feature\nstatus: doing\nstepsCompleted: [design, release]\n---\n',
  'work/proto.md': '---\nworkflow: p\nsteps: [a]\n__proto__: {polluted: true}\nconstructor: 1\nnested: {__proto__: {x: 1}, list: [{a: 1}, -0, .nan, .inf]}\n---\n',
  'work/nan-depth.md': '---\nworkflow: n\nsteps: [a]\ndelegation: {id: nd, parent_id: ghost, root_id: nd, depth: x, chain_path: [nd]}\n---\n',
  'work/dup-a.md': '---\nworkflow: d\nsteps: [a]\ndelegation:\n  id: same\n  parent_id: null\n  root_id: same\n  depth: 0\n  chain_path: [same]\n---\n',
  'work/dup-b.md': '---\n# comment first\nworkflow: d\nsteps: [a]\ndelegation:\n  id: same\n  parent_id: null\n  root_id: same\n  depth: 0\n  chain_path: [same]\n---\n',
  'work/orphan.md': '---\nworkflow: o\nsteps: [a]\ndelegation:\n  agent: x\n  id: child\n  parent_id: nobody\n  root_id: nobody\n  depth: 1\n  chain_path: [nobody, child]\n---\n',
  'work/ttl.md': "---\nworkflow: t\nsteps: [a]\nupdatedAt: '2026-01-01T00:00:00Z'\nttl: 1h\n---\n",
  'work/plain.md': '# no frontmatter\n',
  'work/other.md': '---\ntitle: just a page\n---\n',
  'work/typo.md': '---\nworkflow: feature\nstepCompleted: [design]\n---\n',
};

function makeNative(): string {
  const d = tmp();
  fs.cpSync(path.resolve('test/fixtures/native'), d, { recursive: true });
  fs.rmSync(path.join(d, '.waymark/cache'), { recursive: true, force: true });
  for (const [rel, text] of Object.entries(BAD_FILES)) fs.writeFileSync(path.join(d, rel), text);
  fs.writeFileSync(path.join(d, 'work/binary.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0, 1, 2]));
  fs.writeFileSync(path.join(d, 'work/big.md'), `---\nworkflow: big\n---\n${'x'.repeat(2 * 1024 * 1024)}`);
  fs.mkdirSync(path.join(d, 'work/dir.md'));
  return d;
}

function makeBmad(): string {
  const d = tmp();
  fs.cpSync(path.resolve('test/fixtures/bmad'), d, { recursive: true });
  fs.rmSync(path.join(d, '.waymark/cache'), { recursive: true, force: true });
  return d;
}

const pinned = (iso: string) => () => new Date(iso);

/** An index text with a correct checksum over `lines` (what a deliberate writer could produce). */
function sealed(header: string, lines: string[]): string {
  const body = lines.length ? lines.join('\n') + '\n' : '';
  const h = JSON.parse(header);
  h.body = indexBodyHash([Buffer.from(body, 'utf8')]);
  return JSON.stringify(h) + '\n' + body;
}

describe('scan index', () => {
  test('warm scan equals cold scan exactly (native with bad inputs, BMAD), from the index and not from parsing', async () => {
    for (const make of [makeNative, makeBmad]) {
      const d = make();
      try {
        const now = pinned('2026-06-01T00:00:00Z');
        await sleep(20);
        const first = await warm(d, { now });
        assert.equal(first.index[0].hits, 0);
        assert.equal(first.index[0].saved, 'written');
        assert.ok(fs.existsSync(scanIndexPath(d)));
        assert.equal(fs.readFileSync(path.join(d, '.waymark/cache/.gitignore'), 'utf8').includes('*'), true);
        const c = await cold(d, { now });
        assertSameScan(c, first);
        const second = await warm(d, { now });
        assert.equal(second.index[0].parsed, 0, 'nothing re-parsed');
        assert.ok(second.index[0].hits > 0);
        assert.equal(second.index[0].saved, 'unchanged');
        assertSameScan(c, second);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      } finally {
        fs.rmSync(d, { recursive: true, force: true });
      }
    }
  });

  test('cross-file problems of restored states keep their positions', async () => {
    const d = makeNative();
    try {
      await sleep(20);
      await warm(d);
      const w = await warm(d);
      assert.equal(w.index[0].parsed, 0);
      const dup = allProblems(w).filter((p) => p.code === 'delegation-duplicate-id');
      assert.equal(dup.length, 2);
      const b = dup.find((p) => p.file.endsWith('dup-b.md'))!;
      assert.equal(b.range.start.line, 5); // `  id: same` under a leading comment line
      const orphan = allProblems(w).find((p) => p.code === 'delegation-orphan' && p.file.endsWith('orphan.md'))!;
      assert.equal(orphan.range.start.line, 6); // `  parent_id: nobody`
      assertSameScan(await cold(d), w);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('a changed file is re-parsed, including same size with mtime put back', async () => {
    const d = makeNative();
    try {
      await sleep(20);
      await warm(d);
      const f = path.join(d, 'work/chore.md');
      const before = fs.readFileSync(f, 'utf8');
      fs.appendFileSync(f, '\nMore body.\n');
      await sleep(20);
      let w = await warm(d);
      assert.equal(w.index[0].parsed, 1);
      assertSameScan(await cold(d), w);
      // Same size, mtime restored: ctime still moves, so the entry does not match.
      const st = fs.statSync(f);
      const text = fs.readFileSync(f, 'utf8');
      const same = text.replace('status: completed', 'status: archived\u0020'.slice(0, 'status: completed'.length));
      assert.equal(Buffer.byteLength(same), Buffer.byteLength(text));
      fs.writeFileSync(f, same);
      fs.utimesSync(f, st.atime, st.mtime);
      await sleep(20);
      w = await warm(d);
      assert.equal(w.index[0].parsed, 1);
      assertSameScan(await cold(d), w);
      // Deleted and added files.
      fs.rmSync(f);
      fs.writeFileSync(path.join(d, 'work/new.md'), before);
      await sleep(20);
      w = await warm(d);
      assert.equal(w.index[0].parsed, 1);
      assertSameScan(await cold(d), w);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('racy entries (changed within the window) are verified by content hash', async () => {
    const d = makeNative();
    try {
      const first = await scanRoots([d], { indexWrite: 'sync', racyWindowMs: 60_000 });
      await first.indexWritten;
      const f = path.join(d, 'work/feature-login.md');
      const st = fs.statSync(f);
      // Same size, same mtime, different bytes: only a content check can see it.
      const text = fs.readFileSync(f, 'utf8').replace('currentStep: implement', 'currentStep: implemenX');
      fs.writeFileSync(f, text);
      fs.utimesSync(f, st.atime, st.mtime);
      const w = await scanRoots([d], { indexWrite: 'sync', racyWindowMs: 60_000 });
      assert.ok(w.index[0].verified > 0);
      assert.ok(w.index[0].parsed >= 1);
      assertSameScan(await cold(d), w);
      assert.ok(allProblems(w).some((p) => p.code === 'current-step-unknown'));
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('a file without frontmatter read again and still without: its line kept, the index not written; frontmatter added is seen', async () => {
    const d = makeNative();
    try {
      const notes = Array.from({ length: 70 }, (_, i) => path.join(d, `work/note-${i}.md`));
      for (const f of notes) fs.writeFileSync(f, '# A note\n\nNo frontmatter here.\n');
      await sleep(20);
      const first = await warm(d);
      assert.equal(first.index[0].saved, 'written');
      // An edit that leaves the file without frontmatter: read again, same answer, nothing written.
      fs.appendFileSync(notes[0], 'Edited.\n');
      let w = await warm(d);
      assert.equal(w.index[0].parsed, 1);
      assert.equal(w.index[0].saved, 'unchanged');
      assertSameScan(await cold(d), w);
      // Its line still has the old key: the next scan reads it again (never a hit on a stale key).
      w = await warm(d);
      assert.equal(w.index[0].parsed, 1);
      assert.equal(w.index[0].saved, 'unchanged');
      // Frontmatter added to it is read as a workflow, and that is written.
      fs.writeFileSync(notes[0], '---\nworkflow: feature\nsteps: [a, b]\ncurrentStep: a\n---\n# A note\n');
      w = await warm(d);
      assert.equal(w.index[0].saved, 'written');
      assertSameScan(await cold(d), w);
      assert.ok(w.workflows.some((s) => s.file === notes[0]));
      w = await warm(d);
      assert.equal(w.index[0].parsed, 0);
      // Past the bound of lines kept stale, the index is written with every line fresh.
      for (const f of notes.slice(1)) fs.appendFileSync(f, 'Edited.\n');
      w = await warm(d);
      assert.equal(w.index[0].parsed, notes.length - 1);
      assert.equal(w.index[0].saved, 'written');
      assertSameScan(await cold(d), w);
      w = await warm(d);
      assert.equal(w.index[0].parsed, 0);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('a racy entry of a file without frontmatter is read again: frontmatter written at the same size and mtime is seen', async () => {
    const d = makeNative();
    try {
      const f = path.join(d, 'work/note.md');
      const plain = '# A note without frontmatter, padded to the size of the next.\n';
      const fm = '---\nworkflow: feature\nsteps: [a, b]\ncurrentStep: a\n---\n# A n\n';
      fs.writeFileSync(f, plain.slice(0, fm.length));
      assert.equal(Buffer.byteLength(fs.readFileSync(f)), Buffer.byteLength(fm));
      const first = await scanRoots([d], { indexWrite: 'sync', racyWindowMs: 60_000 });
      await first.indexWritten;
      assert.ok(!first.workflows.some((s) => s.file === f));
      // Read again while racy (every file of the fixture is, in a window of a minute), still no frontmatter.
      let w = await scanRoots([d], { indexWrite: 'sync', racyWindowMs: 60_000 });
      assert.ok(w.index[0].parsed >= 1);
      assert.ok(!w.workflows.some((s) => s.file === f));
      const st = fs.statSync(f);
      fs.writeFileSync(f, fm);
      fs.utimesSync(f, st.atime, st.mtime);
      w = await scanRoots([d], { indexWrite: 'sync', racyWindowMs: 60_000 });
      assert.ok(w.workflows.some((s) => s.file === f));
      assertSameScan(await cold(d), w);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('a changed gate file, definition or config invalidates what depends on it', async () => {
    const d = makeNative();
    try {
      await sleep(20);
      const base = await warm(d);
      const gate = base.workflows.find((s) => s.file.endsWith('feature-login.md'))!.gates.design.file;
      fs.mkdirSync(path.dirname(gate), { recursive: true });
      fs.writeFileSync(gate, 'gate: FAIL\nreviewer: bob\n');
      let w = await warm(d);
      let c = await cold(d);
      assertSameScan(c, w);
      const login = w.workflows.find((s) => s.file.endsWith('feature-login.md'))!;
      assert.equal(login.gates.design.verdict, 'FAIL');
      assert.ok(login.problems.some((p) => p.code === 'gate-not-passed'));
      fs.rmSync(gate);
      w = await warm(d);
      assertSameScan(await cold(d), w);
      // Definition: drop the review gate and add a step.
      const def = path.join(d, '.waymark/workflows/feature.yaml');
      fs.writeFileSync(def, 'title: Feature delivery\nsteps:\n  - design\n  - implement\n  - review\n  - release\n  - announce\n');
      w = await warm(d);
      assert.equal(w.index[0].hits, 0, 'definition change drops the index');
      c = await cold(d);
      assertSameScan(c, w);
      assert.ok(w.workflows.some((s) => s.steps.some((x) => x.id === 'announce')));
      w = await warm(d);
      assert.equal(w.index[0].parsed, 0);
      assertSameScan(c, w);
      // Config: a new exclude and a smaller size limit.
      fs.appendFileSync(path.join(d, '.waymark/config.yaml'), "exclude: ['work/dup-*.md']\n");
      w = await warm(d);
      assert.equal(w.index[0].hits, 0);
      assertSameScan(await cold(d), w);
      assert.ok(!w.workflows.some((s) => s.file.includes('dup-')));
      // Overrides count as config.
      w = await warm(d, { overrides: { dialects: ['bmad'] } });
      assert.equal(w.index[0].hits, 0);
      assert.equal(w.workflows.length, 0);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('time-dependent results (ttl) are not reused across their expiry', async () => {
    const d = makeNative();
    try {
      await sleep(20);
      const before = pinned('2026-01-01T00:30:00Z');
      const after = pinned('2026-01-01T02:00:00Z');
      let w = await warm(d, { now: before });
      w = await warm(d, { now: before });
      assert.ok(!allProblems(w).some((p) => p.code === 'ttl-expired'));
      w = await warm(d, { now: after });
      assert.equal(w.index[0].parsed, 1);
      assert.ok(allProblems(w).some((p) => p.code === 'ttl-expired'));
      assertSameScan(await cold(d, { now: after }), w);
      w = await warm(d, { now: before });
      assertSameScan(await cold(d, { now: before }), w);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('a corrupt, truncated, hostile or huge index is ignored and rebuilt', async () => {
    const d = makeNative();
    try {
      await sleep(20);
      const c = await cold(d);
      await warm(d);
      const file = scanIndexPath(d);
      const good = fs.readFileSync(file, 'utf8');
      const [header, ...lines] = good.trimEnd().split('\n');
      const wf = lines.find((l) => l.includes('"k":"wf"') && l.includes('feature-login.md'))!;
      const row = JSON.parse(wf);
      const hostile: string[] = [];
      const mutate = (fn: (r: Record<string, unknown>) => void) => {
        const r = JSON.parse(wf);
        fn(r);
        hostile.push(JSON.stringify(r));
      };
      mutate((r) => ((r.v as unknown[])[0] = { ...(r.v as Record<string, unknown>[])[0], steps: 'x' }));
      mutate((r) => ((r.v as unknown[])[0] = { ...(r.v as Record<string, unknown>[])[0], steps: [{ id: 1 }] }));
      mutate((r) => ((r.v as unknown[])[0] = { ...(r.v as Record<string, unknown>[])[0], problems: [{ file: 0, range: null }] }));
      mutate((r) => ((r.v as unknown[])[0] = { ...(r.v as Record<string, unknown>[])[0], status: 'hacked' }));
      mutate((r) => ((r.v as unknown[])[1] = { t: 'evil' }));
      mutate((r) => ((r.v as unknown[])[1] = { c: { __proto__: { t: 'n' }, data: { c: { x: { t: 'u' } } } } }));
      mutate((r) => ((r.v as unknown[])[1] = { c: { steps: { c: { 99: { t: 'u' } } } } }));
      mutate((r) => (r.v = 'nope'));
      mutate((r) => (r.s = 'big'));
      mutate((r) => (r.f = 'relative/path.md'));
      mutate((r) => (r.t = ['x']));
      const protoLine = `{"__proto__":{"polluted":1},"f":${JSON.stringify(row.f)},"s":${row.s},"m":${row.m},"c":${row.c},"i":${row.i},"h":"${row.h}","k":"wf","r":0,"t":[],"a":0,"v":[{"__proto__":{"polluted":2}},{"c":{"__proto__":{"t":"n"}}}]}`;
      const variants: [string, string][] = [
        ['truncated', good.slice(0, Math.floor(good.length / 2))],
        ['garbage', '\u0000\u0001not json at all{{{'],
        ['empty', ''],
        ['header only wrong types', '{"waymarkScanIndex":"1","code":[],"root":{},"context":null}\n'],
        ['array header', '[1,2,3]\n' + lines.join('\n')],
        ['other version', header.replace(/"code":"[^"]*"/, '"code":"0:0.0.0:x"') + '\n' + lines.join('\n')],
        ['other root', header.replace(/"root":"[^"]*"/, '"root":"/elsewhere"') + '\n' + lines.join('\n')],
        ['damaged entries (checksum)', [header, ...lines.slice(1), ...hostile].join('\n')],
        ['hostile entries', sealed(header, [...hostile, protoLine, '{"f":', 'null', '[]', '"str"'])],
      ];
      for (const [name, text] of variants) {
        fs.writeFileSync(file, text);
        const w = await warm(d);
        assertSameScan(c, w);
        assert.equal(({} as Record<string, unknown>).polluted, undefined, name);
        assert.equal(w.index[0].saved, 'written', name);
        // Rebuilt: the next scan reuses everything.
        const again = await warm(d);
        assert.equal(again.index[0].parsed, 0, name);
        assertSameScan(c, again);
      }
      // Hostile entries for one file only cost that file: the others still come from the index.
      fs.writeFileSync(file, sealed(header, [...lines.filter((l) => l !== wf), ...hostile]));
      const partial = await warm(d);
      assert.equal(partial.index[0].parsed, 1);
      assertSameScan(c, partial);
      // Huge (sparse) file: not even read.
      fs.truncateSync(file, SCAN_INDEX_MAX_BYTES + 1);
      const huge = await warm(d);
      assert.equal(huge.index[0].hits, 0);
      assertSameScan(c, huge);
      // A directory where the index should be: scan works, nothing written.
      fs.rmSync(file);
      fs.mkdirSync(file);
      const blocked = await warm(d);
      assertSameScan(c, blocked);
      assert.equal(blocked.index[0].saved, 'failed');
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('random damage to index entries never crashes a scan or changes its result (property)', async () => {
    const d = makeNative();
    try {
      await sleep(20);
      const c = await cold(d);
      await warm(d);
      const file = scanIndexPath(d);
      const [header, ...lines] = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
      /** Every path into a JSON value. */
      const paths = (v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) => {
        out.push(at);
        if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
        else if (v && typeof v === 'object') for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...at, k], out);
        return out;
      };
      /** A scan's per-file results outside `skip` (cross-file delegation problems left out: they follow other files' states). */
      const others = (r: Awaited<ReturnType<typeof scanRoots>>, skip: Set<unknown>) => ({
        workflows: r.workflows.filter((s) => !skip.has(s.file)).map((s) => ({ ...s, problems: s.problems.filter((p) => !p.code.startsWith('delegation-')) })),
        problems: r.problems.filter((p) => !skip.has(p.file)),
        skipped: r.skipped.filter((x) => !skip.has(x.file)),
      });
      // Each run writes the whole index from the pristine lines, so runs never depend on each other.
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 3 }), fc.boolean(), async (li, pi, replacement, reseal) => {
          const target = li % lines.length;
          const affected = new Set<unknown>();
          const damaged = lines.map((l, i) => {
            if (i !== target) return l;
            const row = JSON.parse(l);
            affected.add(row.f);
            const all = paths(row).filter((p) => p.length > 0);
            const at = all[pi % all.length];
            let o = row;
            for (const k of at.slice(0, -1)) o = o[k];
            o[at[at.length - 1]] = replacement;
            affected.add(row.f);
            return JSON.stringify(row);
          });
          // Random damage is caught by the checksum: the result is exactly the cold one.
          // Damage with a recomputed checksum (a deliberate writer) may change what that one
          // entry says, but never crashes, pollutes, changes any other file's result, or
          // yields states that break the shape checks.
          fs.writeFileSync(file, reseal ? sealed(header, damaged) : [header, ...damaged].join('\n') + '\n');
          const w = await warm(d);
          if (!reseal) assertSameScan(c, w);
          else {
            assert.equal(w.files, c.files);
            assert.deepStrictEqual(others(w, affected), others(c, affected));
            for (const s of w.workflows) assert.ok(Array.isArray(s.steps) && Array.isArray(s.problems) && typeof s.file === 'string');
            JSON.stringify(w.workflows);
            allProblems(w);
          }
          assert.equal(({} as Record<string, unknown>).polluted, undefined);
        }),
        { numRuns: 200 },
      );
      // The case an index without a checksum got wrong: chore.md's entry says `workflow: ''`.
      const chore = lines.findIndex((l) => l.includes('"k":"wf"') && l.includes('chore.md'));
      assert.ok(chore >= 0);
      const row = JSON.parse(lines[chore]);
      row.v[0].workflow = '';
      const edited = lines.map((l, i) => (i === chore ? JSON.stringify(row) : l));
      fs.writeFileSync(file, [header, ...edited].join('\n') + '\n');
      const w = await warm(d);
      assertSameScan(c, w);
      assert.equal(w.index[0].hits, 0, 'a checksum mismatch drops the whole index');
      assert.equal(w.workflows.find((s) => s.file === row.f)?.workflow, 'chore');
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('a read-only workspace scans normally and writes nothing', async (t) => {
    const d = makeNative();
    try {
      await sleep(20);
      const c = await cold(d);
      const lock = (mode: number) => {
        for (const p of [path.join(d, '.waymark'), d]) fs.chmodSync(p, mode);
      };
      if (process.getuid?.() === 0) {
        // root ignores permissions: run the CLI as an unprivileged user against the read-only tree.
        fs.chmodSync(d, 0o755);
        lock(0o555);
        const r = spawnSync(process.execPath, [path.resolve('dist/cli.js'), 'scan', '--json'], { cwd: d, encoding: 'utf8', uid: 65534, gid: 65534 });
        lock(0o755);
        if (r.error) {
          t.skip(`cannot run as nobody: ${r.error.message}`);
        } else {
          assert.equal(r.status, 0, r.stderr);
          assert.equal(JSON.parse(r.stdout).workflows.length, c.workflows.length);
          assert.doesNotMatch(r.stderr, /scan-index|EACCES/);
          assert.equal(fs.existsSync(path.join(d, '.waymark/cache')), false);
        }
      } else {
        lock(0o555);
        try {
          const w = await warm(d);
          assertSameScan(c, w);
          assert.equal(w.index[0].saved, 'read-only');
          assert.equal(fs.existsSync(path.join(d, '.waymark/cache')), false);
        } finally {
          lock(0o755);
        }
      }
      // Index present but its folder read-only: read it, skip the write.
      await warm(d);
      fs.writeFileSync(path.join(d, 'work/chore.md'), fs.readFileSync(path.join(d, 'work/chore.md'), 'utf8') + '\nx\n');
      await sleep(20);
      if (process.getuid?.() !== 0) {
        fs.chmodSync(path.join(d, '.waymark/cache'), 0o555);
        try {
          const w = await warm(d);
          assert.equal(w.index[0].saved, 'read-only');
          assertSameScan(await cold(d), w);
        } finally {
          fs.chmodSync(path.join(d, '.waymark/cache'), 0o755);
        }
      }
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('deferred write and index off', async () => {
    const d = makeNative();
    try {
      const r = await scanRoots([d]);
      assert.equal(r.index[0].saved, undefined);
      const rep = await r.indexWritten;
      assert.equal(rep[0].saved, 'written');
      const off = await scanRoots([d], { index: false });
      assert.deepEqual(off.index, []);
      const prev = process.env.WAYMARK_SCAN_INDEX;
      process.env.WAYMARK_SCAN_INDEX = '0';
      try {
        assert.deepEqual((await scanRoots([d])).index, []);
      } finally {
        if (prev === undefined) delete process.env.WAYMARK_SCAN_INDEX;
        else process.env.WAYMARK_SCAN_INDEX = prev;
      }
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('scan index codec', () => {
  test('round-trips what JSON loses: undefined, NaN, ±Infinity, -0, null prototypes, __proto__ keys', () => {
    const data = Object.create(null) as Record<string, unknown>;
    Object.defineProperty(data, '__proto__', { value: { a: 1 }, enumerable: true, writable: true, configurable: true });
    data.list = [Object.assign(Object.create(null), { x: -0 }), NaN, Infinity, -Infinity];
    data.plainInside = { y: undefined };
    const value = { a: undefined, b: null, data, arr: [undefined, 1], n: -0 };
    const [json, meta] = encodeValue(value);
    const back = decodeValue(JSON.parse(JSON.stringify(json)), meta === undefined ? undefined : JSON.parse(JSON.stringify(meta))) as typeof value;
    assert.deepStrictEqual(back, value);
    assert.equal(Object.getPrototypeOf(back.data), null);
    assert.ok(Object.prototype.hasOwnProperty.call(back.data, '__proto__'));
    assert.equal(Object.getPrototypeOf((back.data.list as object[])[0]), null);
    assert.equal(Object.getPrototypeOf(back.data.plainInside as object), Object.prototype);
    assert.ok(Object.is(back.n, -0));
  });

  test('round-trips any value of JSON plus undefined, NaN, ±Infinity, -0 and null prototypes (property)', () => {
    const leaf = fc.oneof(fc.double(), fc.integer(), fc.string(), fc.boolean(), fc.constant(undefined), fc.constant(null), fc.constant(-0), fc.constant(NaN));
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, values: [leaf], maxDepth: 4 }), (value) => {
        const [json, meta] = encodeValue(value);
        const text = JSON.stringify([json, meta]);
        const [j, m] = JSON.parse(text) as [unknown, unknown];
        assert.deepStrictEqual(decodeValue(j, m ?? undefined), value);
      }),
      { numRuns: 300 },
    );
  });

  test('index lines are the JSON of their row, field by field', async () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-index-line-'));
    try {
      fs.writeFileSync(path.join(d, 'a.md'), '---\nworkflow: a\nstatus: in_progress\nsteps: [x, y]\nstepsCompleted: [x]\nttl: 7d\nupdatedAt: 2026-01-01T00:00:00Z\nnote: "quote \\" and \\u2028"\n---\n');
      fs.writeFileSync(path.join(d, 'bad.md'), '---\nworkflow: b\nstatus: nope\n---\n');
      fs.writeFileSync(path.join(d, 'bin.md'), 'x\0y');
      fs.writeFileSync(path.join(d, 'plain.md'), '# none\n');
      await (await scanRoots([d], { indexWrite: 'sync' })).indexWritten;
      const lines = fs.readFileSync(scanIndexPath(d), 'utf8').trim().split('\n').slice(1);
      assert.equal(lines.length, 4);
      for (const line of lines) {
        const row = JSON.parse(line) as Record<string, unknown>;
        assert.deepStrictEqual(Object.keys(row), ['f', 's', 'm', 'c', 'i', 'h', 'k', 'r', 't', 'a', 'v']);
        assert.equal(JSON.stringify(row), line);
      }
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('malformed fix-ups throw a decode error, never pollute', () => {
    const bad: unknown[] = [{ t: 'zzz' }, { c: 5 }, 'x', { c: { a: { c: { b: { t: 'n' } } } } }, { c: { a: { c: { b: { c: { z: { t: 'u' } } } } } } }, { c: { missing: { t: 'u' } } }];
    for (const m of bad) {
      assert.throws(() => decodeValue(JSON.parse('{"a":{"b":1}}'), m));
    }
    assert.throws(() => decodeValue([1], { c: { 5: { t: 'u' } } }));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    void (null as unknown as WorkflowState);
  });
});

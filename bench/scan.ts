// Scan benchmark: 10,000 workflow files (~20-line frontmatter each) in a temp dir.
// Prints: cold scan + parse + validate, the list + read + SHA-256 floor, their ratio, the warm scan
// with the persisted scan index (in process and in a fresh process), and one-file revalidation.
// A tree it keeps (WAYMARK_BENCH_KEEP=1) is what bench/scanCold.ts runs the cold `validate` of in one
// process, for an instruction count under callgrind that repeats to ±0.3 % (the whole process's does not).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { scanRoots, readWorkflowFileSync, listCandidates } from '../src/core/store/scan';
import { scanIndexPath, SCAN_INDEX_DIR, RACY_WINDOW_MS } from '../src/core/store/scanIndex';
import { loadWorkspaceContext } from '../src/core/store/workspaceContext';
import { validateDelegation } from '../src/core/model/delegation';
import { parseWorkflowText } from '../src/core/model/workflow';
import { featureFile, median, percentile } from './lib';

const filesArg = process.argv.indexOf('--files');
const N = Number(filesArg > 0 ? process.argv[filesArg + 1] : process.env.WAYMARK_BENCH_FILES ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const childArg = process.argv.indexOf('--child');
const root = childArg > 0 ? '' : fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-scan-'));

function nativeFile(i: number): string {
  const parent = i % 10 === 0 ? null : `wf-${i - (i % 10)}`;
  const id = `wf-${i}`;
  const chain = parent ? [parent, id] : [id];
  return featureFile(i, 'scan', {
    beforeOwner: ['ttl: 30d'],
    afterTags: ['delegation:', `  id: ${id}`, `  parent_id: ${parent ?? 'null'}`, `  root_id: ${chain[0]}`, `  depth: ${chain.length - 1}`, `  chain_path: [${chain.join(', ')}]`, `  agent: agent-${i % 7}`],
  });
}

function bmadFile(i: number): string {
  const n = 1 + (i % 8);
  return [
    '---',
    `stepsCompleted: [${Array.from({ length: n }, (_, k) => k + 1).join(', ')}]`,
    'inputDocuments:',
    '  - _bmad-output/planning-artifacts/product-brief.md',
    '  - docs/research.md',
    "workflowType: 'architecture'",
    `lastStep: ${n}`,
    `status: ${n === 8 ? 'complete' : 'in-progress'}`,
    "project_name: 'Bench project'",
    "user_name: 'Bench'",
    "date: '2026-11-20'",
    'documentCounts:',
    '  briefs: 1',
    '  research: 1',
    '  brainstorming: 0',
    '  projectDocs: 3',
    'hasProjectContext: true',
    `notes: "artifact ${i}"`,
    'reviewed: false',
    'language: en',
    '---',
    '',
    `# Architecture ${i}`,
    '',
    'Decisions and their reasons, written by the agent. '.repeat(10),
    '',
  ].join('\n');
}

function setup(root: string, n = N): string[] {
  const arch = path.join(root, '_bmad/bmm/workflows/3-solutioning/create-architecture/steps');
  fs.mkdirSync(arch, { recursive: true });
  for (const s of ['step-01-init', 'step-01b-continue', 'step-02-context', 'step-03-starter', 'step-04-decisions', 'step-05-patterns', 'step-06-structure', 'step-07-validation', 'step-08-complete']) {
    fs.writeFileSync(path.join(arch, `${s}.md`), `---\nname: ${s}\n---\n`);
  }
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const bmad = i % 5 === 4;
    const dir = bmad ? path.join(root, '_bmad-output', `d${i % 50}`) : path.join(root, 'work', `d${i % 100}`);
    if (i < 100) fs.mkdirSync(dir, { recursive: true });
    const f = path.join(dir, `wf-${i}.md`);
    fs.writeFileSync(f, bmad ? bmadFile(i) : nativeFile(i));
    files.push(f);
  }
  return files;
}

function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(3);
}

/** Child mode: one scan of an existing tree in a fresh process (JIT cold), prints its ms. */
async function child(dir: string, mode: string) {
  const t0 = performance.now();
  if (mode === 'floor') {
    // The floor in a fresh process: load the context, list, read and hash every candidate.
    const { context } = await loadWorkspaceContext(dir);
    const { files: listed } = listCandidates(context);
    for (const f of listed) createHash('sha256').update(fs.readFileSync(f)).digest('hex');
    console.log(JSON.stringify({ ms: performance.now() - t0, files: listed.length }));
    return;
  }
  const index = mode === 'index';
  const r = await scanRoots([dir], { index });
  const ms = performance.now() - t0;
  await r.indexWritten;
  const rep = r.index[0];
  console.log(JSON.stringify({ ms, workflows: r.workflows.length, hits: rep ? rep.hits + rep.verified : 0, parsed: rep?.parsed ?? r.files }));
}

function freshProcess(dir: string, mode: 'index' | 'noindex' | 'floor'): { ms: number; hits: number; parsed: number } {
  const out = execFileSync(process.execPath, [__filename, '--child', dir, mode], { encoding: 'utf8', env: { ...process.env, WAYMARK_BENCH_KEEP: '1' } });
  return JSON.parse(out.trim().split('\n').pop()!);
}

async function main() {
  const files = setup(root);
  let bytes = 0;
  for (const f of files) bytes += fs.statSync(f).size;
  console.log(`scan.files ${files.length}`);
  console.log(`scan.avg_file_bytes ${Math.round(bytes / files.length)}`);

  // Cold: first scan in this process, no index yet (page cache warm from writing the files).
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let t = performance.now();
  const res = await scanRoots([root]);
  const cold = performance.now() - t;
  t = performance.now();
  await res.indexWritten;
  const indexWrite = performance.now() - t;
  const indexBytes = fs.statSync(scanIndexPath(root)).size;
  gc();
  const keptPerWorkflow = (process.memoryUsage().heapUsed - heapBefore) / Math.max(1, res.workflows.length);
  const problems = res.workflows.reduce((n, w) => n + w.problems.length, 0) + res.problems.length;
  if (res.workflows.length !== N) console.log(`scan.warning workflows=${res.workflows.length} expected=${N}`);

  // Floor: list + read + SHA-256 every file.
  const ctx0 = res.contexts.get(root)!;
  const readHash = () => {
    const t0 = performance.now();
    const { files: listed } = listCandidates(ctx0);
    for (const f of listed) createHash('sha256').update(fs.readFileSync(f)).digest('hex');
    return performance.now() - t0;
  };
  gc();
  const floorList = readHash();

  // Warm start with the index: config reloaded, every file stat-ed, nothing parsed (median of 3).
  // The first pass also re-verifies "racy" entries (files written < 2 s before the cold scan).
  const warm: number[] = [];
  let hits = 0;
  let verified = 0;
  for (let i = 0; i < 4; i++) {
    gc();
    t = performance.now();
    const w = await scanRoots([root]);
    const ms = performance.now() - t;
    await w.indexWritten;
    if (i === 0) verified = w.index[0].verified;
    else warm.push(ms);
    hits = w.index[0].hits;
  }
  // The same scan without the index (JIT warm): what the index saves.
  const noIndex: number[] = [];
  for (let i = 0; i < 3; i++) {
    gc();
    t = performance.now();
    await scanRoots([root], { index: false });
    noIndex.push(performance.now() - t);
  }
  const floorListWarm = median([readHash(), readHash(), readHash()]);
  // Fresh processes (what a CLI call or the extension's first tree sees): with and without the index.
  const freshIndex = median([0, 1, 2].map(() => freshProcess(root, 'index').ms));
  const freshCold = freshProcess(root, 'noindex').ms;
  const freshFloor = median([0, 1, 2].map(() => freshProcess(root, 'floor').ms));

  // CPU only: parse + normalize + validate + hash of in-memory texts vs SHA-256 of the same bytes.
  const bufs = files.map((f) => fs.readFileSync(f));
  const texts = bufs.map((b) => b.toString('utf8'));
  const cpu: number[] = [];
  const sha: number[] = [];
  for (let k = 0; k < 3; k++) {
    gc();
    let t0 = performance.now();
    for (let i = 0; i < texts.length; i++) parseWorkflowText(files[i], texts[i], ctx0, { contentHash: '' });
    cpu.push(performance.now() - t0);
    t0 = performance.now();
    for (const b of bufs) createHash('sha256').update(b).digest('hex');
    sha.push(performance.now() - t0);
  }

  // Revalidate one changed file: read + parse + per-file validation.
  const one: number[] = [];
  const cross: number[] = [];
  for (let i = 0; i < 200; i++) {
    const f = files[(i * 37) % files.length];
    const text = fs.readFileSync(f, 'utf8');
    fs.writeFileSync(f, text.replace(/status: (\w[\w-]*)/, (_m, s) => `status: ${s === 'created' ? 'in_progress' : s}`));
    const t1 = performance.now();
    const r = readWorkflowFileSync(f, ctx0);
    one.push(performance.now() - t1);
    if (!r.state) throw new Error(`bench: ${f} did not parse`);
    const t2 = performance.now();
    validateDelegation(res.workflows);
    cross.push(performance.now() - t2);
  }

  const proc = processFigures(files);

  console.log(`scan.workflows ${res.workflows.length}`);
  console.log(`scan.problems ${problems}`);
  console.log(`scan.cold_ms ${fmt(cold)}  (first scan in the process, no index; ${Math.round((N / cold) * 1000)} files/s)`);
  console.log(`scan.cold_files_per_s ${Math.round((N / cold) * 1000)}`);
  console.log(`scan.cold_read_ahead ${res.readAhead}  (files the second thread read and hashed first, of ${res.files})`);
  console.log(`scan.list_read_hash_ms ${fmt(floorList)}  (floor: list + read + SHA-256 of every file)`);
  console.log(`scan.ratio ${(cold / floorList).toFixed(1)}  (cold scan / floor; target <= 3)`);
  console.log(`scan.index_write_ms ${fmt(indexWrite)}  (after the scan returns; ${(indexBytes / 1024 / 1024).toFixed(1)} MB)`);
  console.log(`scan.warm_index_ms ${fmt(median(warm))}  (warm scan with the index, median of 3; ${hits} of ${N} reused, first pass re-verified ${verified} racy)`);
  console.log(`scan.warm_noindex_ms ${fmt(median(noIndex))}  (same scan, index off, JIT warm; floor warm ${fmt(floorListWarm)}; ratio ${(median(noIndex) / floorListWarm).toFixed(1)})`);
  console.log(`scan.fresh_process_index_ms ${fmt(freshIndex)}  (new process, scan with the index, median of 3; ratio ${(freshIndex / freshFloor).toFixed(1)} to the floor)`);
  console.log(`scan.fresh_process_noindex_ms ${fmt(freshCold)}  (new process, scan without the index; ratio ${(freshCold / freshFloor).toFixed(1)} to the floor)`);
  console.log(`scan.fresh_process_floor_ms ${fmt(freshFloor)}  (new process: context + list + read + SHA-256, median of 3)`);
  console.log(`scan.parse_validate_us_per_file ${fmt((median(cpu) * 1000) / N)}  (in memory, median of 3)`);
  console.log(`scan.sha256_us_per_file ${fmt((median(sha) * 1000) / N)}`);
  console.log(`scan.revalidate_one_ms ${fmt(median(one))}  (median; p99 ${fmt(percentile(one, 99))}; target < 5)`);
  console.log(`scan.revalidate_cross_ms ${fmt(median(cross))}  (delegation check over all ${N} states, median)`);
  console.log(`scan.heap_mb ${Math.round(process.memoryUsage().heapUsed / 1024 / 1024)}`);
  console.log(`scan.kept_kb_per_workflow ${(keptPerWorkflow / 1024).toFixed(2)}  (heap the cold scan's answer keeps, after a full GC, per workflow)`);
  printProcessFigures(proc);
}

// ---- whole processes, side by side ------------------------------------------------------------

const CLI = path.resolve('dist/cli.js');
/** `--vs-cli PATH`: another build's dist/cli.js, paired with this one cold and warm (A/B in the same minutes). */
const vsArg = process.argv.indexOf('--vs-cli');
const VS_CLI = vsArg > 0 ? path.resolve(process.argv[vsArg + 1]) : undefined;
const FLOOR = path.resolve('bench/floor.mjs');
const RUNS = 5;

/** Wall ms of one whole process, spawn to exit, its output thrown away. */
function wall(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env, okCodes = [0]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, env, stdio: 'ignore' });
  const ms = performance.now() - t0;
  if (r.error || !okCodes.includes(r.status ?? -1)) throw new Error(`bench: ${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  return ms;
}

interface Pair {
  a: number;
  b: number;
  /** Median of the run-by-run ratios a/b (runs alternate, so drift in machine speed cancels). */
  ratio: number;
}

/** A and B in turn (A B A B ...), one unmeasured warm-up pair first; medians of each and of the ratios. */
function paired(a: () => number, b: () => number, runs = RUNS): Pair {
  a();
  b();
  const as: number[] = [];
  const bs: number[] = [];
  const rs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const x = a();
    const y = b();
    as.push(x);
    bs.push(y);
    rs.push(x / y);
  }
  return { a: median(as), b: median(bs), ratio: median(rs) };
}

function hasRipgrep(): boolean {
  const r = spawnSync('rg', ['--version'], { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

interface ProcessFigures {
  cold: Pair;
  edited: Pair;
  coldNoIndex: Pair;
  warm: Pair;
  rg?: Pair;
  status: Pair;
  statusFile: string;
  /** This build against --vs-cli's, cold and warm. */
  vs?: { cold: Pair; warm: Pair };
}

/**
 * `waymark validate .` on the benchmark tree against the floor script (list + read + SHA-256 in
 * plain Node), cold (no index yet, so it is written too), cold with the index off, and warm; ripgrep
 * finding the state lines as a peer; `waymark status FILE` in this tree against the same file's
 * status in a 10-file tree.
 */
function processFigures(files: string[]): ProcessFigures {
  const cache = path.join(root, SCAN_INDEX_DIR);
  const noIndex = { ...process.env, WAYMARK_SCAN_INDEX: '0' };
  const withIndex = { ...process.env };
  delete withIndex.WAYMARK_SCAN_INDEX;
  const floor = () => wall(process.execPath, [FLOOR, root], root);
  const validate = (env: NodeJS.ProcessEnv) => wall(process.execPath, [CLI, 'validate', '.'], root, env);
  const cold = paired(() => {
    fs.rmSync(cache, { recursive: true, force: true });
    return validate(withIndex);
  }, floor);
  // The run after a first one (which stores its answer and no index) and a one-file edit: the
  // answer is stale and no index exists yet, so every file is parsed and the index is written.
  let edits = 0;
  let editedAt = 0;
  const edited = paired(() => {
    // The last edit past the racy window, so the first run stores its answer (and so no index).
    const wait = editedAt + RACY_WINDOW_MS + 100 - Date.now();
    if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
    fs.rmSync(cache, { recursive: true, force: true });
    validate(withIndex);
    fs.appendFileSync(files[(edits++ * 37) % files.length], 'edited\n');
    editedAt = Date.now();
    return validate(withIndex);
  }, floor);
  const coldNoIndex = paired(() => validate(noIndex), floor);
  validate(withIndex);
  // Past the racy window, so the warm runs reuse entries without re-hashing them.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RACY_WINDOW_MS + 100);
  validate(withIndex);
  const warm = paired(() => validate(withIndex), floor);
  const rg = hasRipgrep()
    ? paired(() => wall('rg', ['--no-ignore', '--hidden', '-c', '-g', '*.md', '-g', '!_bmad/**', '-g', '!.waymark/**', '^(status|currentStep|stepsCompleted):', '.'], root), floor)
    : undefined;
  let vs: ProcessFigures['vs'];
  if (VS_CLI) {
    const run = (cli: string, fresh: boolean) => () => {
      if (fresh) fs.rmSync(cache, { recursive: true, force: true });
      return wall(process.execPath, [cli, 'validate', '.'], root, withIndex);
    };
    const vsCold = paired(run(CLI, true), run(VS_CLI, true));
    // Each build's own warm answer (the stored answer carries its code's fingerprint).
    const warmOf = (cli: string) => {
      wall(process.execPath, [cli, 'validate', '.'], root, withIndex);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RACY_WINDOW_MS + 100);
      wall(process.execPath, [cli, 'validate', '.'], root, withIndex);
      return wall(process.execPath, [cli, 'validate', '.'], root, withIndex);
    };
    const vsWarm = paired(() => warmOf(CLI), () => warmOf(VS_CLI));
    vs = { cold: vsCold, warm: vsWarm };
  }
  // The same file, in this tree and in a 10-file tree.
  const small = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-small-'));
  try {
    const smallFiles = setup(small, 10);
    const target = path.relative(root, files[5]);
    if (path.relative(small, smallFiles[5]) !== target) throw new Error('bench: the small tree does not hold the same file');
    const status = paired(() => wall(process.execPath, [CLI, 'status', target], root, withIndex), () => wall(process.execPath, [CLI, 'status', target], small, withIndex));
    return { cold, edited, coldNoIndex, warm, rg, status, statusFile: target, vs };
  } finally {
    fs.rmSync(small, { recursive: true, force: true });
  }
}

function printProcessFigures(p: ProcessFigures): void {
  const ms = (x: number) => `${fmt(x)} ms`;
  console.log(`process.floor_ms ${fmt(p.warm.b)}  (node bench/floor.mjs: list + read + SHA-256 of the same files, whole process, median of ${RUNS})`);
  console.log(`process.validate_cold_ms ${fmt(p.cold.a)}  (waymark validate ., first run: no cache yet (the answer is stored, not the index); ${p.cold.ratio.toFixed(2)}x the floor's ${ms(p.cold.b)} in the same pairs; target <= 4)`);
  console.log(`process.validate_edited_ms ${fmt(p.edited.a)}  (the next run after one file changed: no index yet, so all parsed and the index written; ${p.edited.ratio.toFixed(2)}x the floor's ${ms(p.edited.b)})`);
  console.log(`process.validate_cold_noindex_ms ${fmt(p.coldNoIndex.a)}  (WAYMARK_SCAN_INDEX=0; ${p.coldNoIndex.ratio.toFixed(2)}x the floor's ${ms(p.coldNoIndex.b)}; target <= 4)`);
  console.log(`process.validate_warm_ms ${fmt(p.warm.a)}  (with the scan index; ${p.warm.ratio.toFixed(2)}x the floor's ${ms(p.warm.b)}; target <= 2)`);
  if (p.rg) console.log(`process.ripgrep_ms ${fmt(p.rg.a)}  (peer: rg finds the state lines; ${p.rg.ratio.toFixed(2)}x the floor's ${ms(p.rg.b)})`);
  else console.log('process.ripgrep_ms n/a  (rg not on PATH)');
  if (p.vs) {
    console.log(`process.vs_cold_ms ${fmt(p.vs.cold.a)}  (this build, first run; ${p.vs.cold.ratio.toFixed(2)}x --vs-cli's ${ms(p.vs.cold.b)} in the same pairs)`);
    console.log(`process.vs_warm_ms ${fmt(p.vs.warm.a)}  (this build, warm; ${p.vs.warm.ratio.toFixed(2)}x --vs-cli's ${ms(p.vs.warm.b)} in the same pairs)`);
  }
  console.log(`process.status_one_file_ms ${fmt(p.status.a)}  (waymark status ${p.statusFile} in the ${N}-file tree; ${p.status.ratio.toFixed(2)}x the same in a 10-file tree, ${ms(p.status.b)}; target <= 1.3)`);
}

(childArg > 0 ? child(process.argv[childArg + 1], process.argv[childArg + 2]) : main())
  .catch((e) => {
    console.error(`bench scan failed: ${e instanceof Error ? e.stack : e}`);
    process.exitCode = 1;
  })
  .finally(() => { if (childArg > 0) return; if (!process.env.WAYMARK_BENCH_KEEP) fs.rmSync(root, { recursive: true, force: true }); else console.log(`scan.kept ${root}`); });

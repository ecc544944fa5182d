// The cold `validate` of a tree in one process, for an instruction count that repeats: everything
// `waymark validate DIR` runs after its bundle is loaded (context, listing, reads, parse, model,
// the sprint check, the project view, the stored answer, the text printed), with no read-ahead
// thread (the main thread reads and hashes every file, as it would alone), and nothing else in the
// process. Meant for callgrind under a fixed schedule, where a few percent resolve:
//
//   node esbuild.mjs --bench
//   valgrind --tool=callgrind node --single-threaded --predictable-gc-schedule \
//     --min-semi-space-size=16 --max-semi-space-size=16 dist-bench/scanCold.js DIR [--noop]
//
// `DIR`: a tree such as bench/scan.ts's (`WAYMARK_BENCH_KEEP=1` keeps one). `.waymark/cache` is
// removed first (`.waymark` kept), as the bench's cold pairs run it. `--noop` loads the same code
// and runs nothing: its count is the process's start, to subtract. `--json` validates with --json;
// `--read-ahead` keeps the second thread; `--runs N` runs N times (the later ones warm).
// WAYMARK_SCAN_INDEX=0 runs it with the caches off. Prints the CPU ms (all threads, and the main thread
// alone: with --read-ahead, what the second thread takes off the thread the run waits on), the
// output's SHA-256 and its size.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { runCli } from '../src/cli/framework';
import { readCommands } from '../src/cli/readCommands';
import { ReadAhead } from '../src/core/store/readAhead';
import { arg } from './lib';

async function main(): Promise<void> {
  const dir = process.argv[2] && !process.argv[2].startsWith('--') ? path.resolve(process.argv[2]) : undefined;
  if (!dir || !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    console.error('usage: node dist-bench/scanCold.js DIR [--noop] [--json] [--read-ahead] [--runs N]');
    process.exitCode = 2;
    return;
  }
  if (process.argv.includes('--noop')) return;
  if (!process.argv.includes('--read-ahead')) ReadAhead.start = () => undefined;
  const argv = ['validate', '.', ...(process.argv.includes('--json') ? ['--json'] : [])];
  const runs = arg('runs', 1);
  for (let i = 0; i < runs; i++) {
    if (i === 0) fs.rmSync(path.join(dir, '.waymark', 'cache'), { recursive: true, force: true });
    const out = createHash('sha256');
    let bytes = 0;
    const cpu = process.cpuUsage();
    const main0 = mainThreadNs();
    const t = performance.now();
    const code = await runCli(readCommands, argv, {
      cwd: dir,
      stdout: (s) => {
        out.update(s);
        bytes += Buffer.byteLength(s);
      },
      stderr: (s) => process.stderr.write(s),
    });
    const ms = performance.now() - t;
    const c = process.cpuUsage(cpu);
    const main = mainThreadNs();
    console.log(`scanCold.run ${i + 1} exit ${code} wall ${ms.toFixed(0)} ms cpu ${((c.user + c.system) / 1000).toFixed(0)} ms main thread ${main === undefined ? 'n/a' : ((main - main0!) / 1e6).toFixed(0)} ms out ${bytes} B sha256 ${out.digest('hex').slice(0, 16)}`);
  }
}

/**
 * The CPU time (ns) of this thread alone, the one the run waits on (Linux: /proc/thread-self/schedstat's
 * first field), without the read-ahead worker's or V8's helper threads' (`cpu` counts every thread).
 */
function mainThreadNs(): number | undefined {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

main().catch((e) => {
  console.error(`bench scanCold failed: ${e instanceof Error ? e.stack : e}`);
  process.exitCode = 1;
});

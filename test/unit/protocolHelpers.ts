import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

/** A fresh temp workspace folder; remove it with `cleanup`. */
export function tempRoot(prefix = 'waymark-protocol-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export function cleanup(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export interface WorkerResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const results = new WeakMap<ChildProcess, Promise<WorkerResult>>();

/**
 * Runs this same bundled test file as a worker process: the file checks WAYMARK_PROTOCOL_WORKER
 * first and runs the named job instead of registering tests. Output is collected from the start.
 */
export function spawnWorker(job: string, args: Record<string, unknown>): ChildProcess {
  const child = spawn(process.execPath, [__filename], {
    env: { ...process.env, WAYMARK_PROTOCOL_WORKER: job, WAYMARK_PROTOCOL_ARGS: JSON.stringify(args) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  results.set(
    child,
    new Promise((resolve) => {
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    }),
  );
  return child;
}

/** The worker's exit and its whole output (waits for its pipes to close). */
export function waitWorker(child: ChildProcess, timeoutMs = 20000): Promise<WorkerResult> {
  const done = results.get(child)!;
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('worker timed out'));
    }, timeoutMs);
    done.then((r) => {
      clearTimeout(t);
      resolve(r);
    });
  });
}

/** Waits until `pred` is true (polling). */
export async function until(pred: () => boolean, timeoutMs = 10000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function workerArgs<T>(): T {
  return JSON.parse(process.env.WAYMARK_PROTOCOL_ARGS ?? '{}') as T;
}

/** Busy-waits until the wall clock reaches `t` (a start barrier for contended processes). */
export function waitUntil(t: number): void {
  while (Date.now() < t) {
    // spin: sub-millisecond start alignment across processes
  }
}

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

/**
 * Runs this same bundled test file as a worker process: the file checks WAYMARK_PROTOCOL_WORKER
 * first and runs the named job instead of registering tests.
 */
export function spawnWorker(job: string, args: Record<string, unknown>): ChildProcess {
  return spawn(process.execPath, [__filename], {
    env: { ...process.env, WAYMARK_PROTOCOL_WORKER: job, WAYMARK_PROTOCOL_ARGS: JSON.stringify(args) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface WorkerResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function waitWorker(child: ChildProcess, timeoutMs = 20000): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr });
      return;
    }
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker timed out; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(t);
      // let the pipes drain
      setImmediate(() => resolve({ code, signal, stdout, stderr }));
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

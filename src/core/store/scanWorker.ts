/**
 * The parse worker's thread (its own bundle, dist/scanWorker.js; readAhead.ts `ParseAhead` starts
 * it): loads the root's context as the scan did, and when its fingerprint is the scan's (the same
 * test the scan index passes before its entries are trusted) reads, hashes and parses the files of
 * the listing that neither thread has claimed yet, front to back, posting each as the scan index
 * line the scan's own read would have saved. The scan restores those lines as a warm scan restores
 * its index's, so the parse of a cold scan is shared between two cores.
 *
 * Claims are per file (`status`, one Int32 slot a file, compare-and-exchange): a file is parsed by
 * one thread only, except one this thread claimed and has not posted when the scan runs out of
 * files to claim (it parses that one itself and drops this thread's answer). Nothing here writes a
 * file: the context is loaded without its caches.
 */
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { loadWorkspaceContext } from './workspaceContext';
import { readDetailed } from './scan';
import { contextFingerprint, makeEntryLine } from './scanIndex';
import { CTL_GONE, CTL_STOP, FILE_FREE, FILE_POSTED, FILE_WORKER, PARSE_BATCH, type ParseWorkerData } from './readAhead';

const data = workerData as ParseWorkerData;
const { files, status, ctl } = data;
const port: MessagePort = data.port;
process.on('exit', () => Atomics.store(ctl, CTL_GONE, 1));

async function run(): Promise<void> {
  const { context: ctx } = await loadWorkspaceContext(data.root, data.overrides, { now: () => new Date(Date.now() + data.nowDelta), cache: false });
  if (contextFingerprint(ctx) !== data.fingerprint) {
    port.postMessage({ mismatch: true });
    return;
  }
  // [index, line, index, line, ...]: a line '' means "read it yourself" (a result the index does not keep).
  let out: (number | string)[] = [];
  // The first batches are small, so the scan has answers to take while this thread's code warms up.
  let batch = 1;
  const flush = () => {
    if (!out.length) return;
    port.postMessage(out);
    // Posted before marked: a file the scan sees posted is in the channel already.
    for (let k = 0; k < out.length; k += 2) Atomics.store(status, out[k] as number, FILE_POSTED);
    out = [];
  };
  for (let i = 0; i < files.length; i++) {
    if (Atomics.load(ctl, CTL_STOP) === 1) return;
    if (Atomics.compareExchange(status, i, FILE_FREE, FILE_WORKER) !== FILE_FREE) continue;
    const file = files[i];
    const d = readDetailed(file, ctx);
    let line = '';
    // Files that vanished or cannot be opened are not kept by the index: the scan reads them again.
    if (d.key && d.result.skipped?.reason !== 'unreadable') line = makeEntryLine(file, d.key, d.hash, d.result, ctx, data.racySince, ctx.now().getTime());
    out.push(i, line);
    if (out.length >= 2 * batch) {
      flush();
      if (batch < PARSE_BATCH) batch *= 2;
    }
  }
  flush();
}

// The port is never closed here: a close could drop the last batch on its way.
run().catch((e: unknown) => {
  // The scan parses whatever this thread did not post.
  port.postMessage({ failed: e instanceof Error ? e.message : String(e) });
});

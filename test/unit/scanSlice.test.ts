import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore } from '../../src/core/index';

/** How many times the event loop turned (a setImmediate chain ran) while `work` ran. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

describe('scan slices (scanSliceMs)', () => {
  test('a core made with scanSliceMs gives the thread back during a scan of 300 files, and reads them all', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-slice-'));
    try {
      fs.mkdirSync(path.join(root, 'work'));
      for (let i = 0; i < 300; i++) {
        fs.writeFileSync(path.join(root, 'work', `w${String(i).padStart(3, '0')}.md`), `---\nworkflow: w${i}\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\n---\n`);
      }
      // 0 ms: a turn after every file (the extension host uses 10 ms). Without it, 300 files are
      // read in one stretch (the default yields every 500 files), and a request waiting meanwhile
      // (VS Code asking for a view's rows) waits for the whole scan.
      const core = createStateCore({ roots: [root], memory: false, scanIndex: false, scanSliceMs: 0 });
      let count = 0;
      const turns = await turnsDuring(async () => (count = (await core.scan()).workflows.length));
      assert.equal(count, 300);
      assert.ok(turns >= 300, `the event loop turned ${turns} times during the scan, expected one turn per file at least`);
      core.dispose();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('a scan held by its caller (ScanProgress.hold) reads nothing more until the hold settles, then reads every file', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-hold-'));
    try {
      fs.mkdirSync(path.join(root, 'work'));
      for (let i = 0; i < 300; i++) {
        fs.writeFileSync(path.join(root, 'work', `w${String(i).padStart(3, '0')}.md`), `---\nworkflow: w${i}\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\n---\n`);
      }
      const core = createStateCore({ roots: [root], memory: false, scanIndex: false, scanSliceMs: 0 });
      // The extension holds its first scan once the first workflows are listed, until VS Code has drawn them.
      let listed: number | undefined;
      let firstListed!: () => void;
      const listedOnce = new Promise<void>((res) => (firstListed = res));
      let release!: () => void;
      const held = new Promise<void>((res) => (release = res));
      let holds = 0;
      let heldAsks = 0;
      let ended = false;
      const scan = core
        .scan({
          onProgress: (read) => {
            listed ??= read.length;
            firstListed();
          },
          hold: () => {
            if (listed === undefined) return undefined;
            if (holds++ === 0) return held;
            return undefined;
          },
        })
        .then((r) => ((ended = true), r));
      await listedOnce;
      // Many turns of the loop and a timer later, the scan is still where it was held.
      for (let i = 0; i < 50; i++) await new Promise((res) => setImmediate(res));
      await new Promise((res) => setTimeout(res, 30));
      heldAsks = holds;
      assert.equal(listed, 100, 'the first 100 files were listed before the hold');
      assert.equal(ended, false, 'the scan went on while held');
      assert.equal(heldAsks, 1, 'the hold was asked again while it held');
      release();
      const result = await scan;
      assert.equal(result.workflows.length, 300);
      assert.ok(holds > 1, 'after the hold settled, the scan asked again at its later turns');
      core.dispose();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

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
});

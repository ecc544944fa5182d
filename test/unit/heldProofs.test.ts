// A long-lived face (the MCP server's session) keeps nothing it proved about a folder from one write
// to the next: every folder a write creates or opens a file in (the workflow's folder, `.waymark/`,
// its history, events, journal and locks folders) is checked by its real path at each write. The
// case a kept proof would miss: a folder moved out of the workspace and linked back between two
// writes keeps its device and inode (one lstat of its old name, followed, shows the same folder),
// so only its real path says it is outside now. Each such swap refuses the second write and leaves
// every file outside as it was (engine README "What a write costs besides the disk"; session 34).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import type { Logger } from '../../src/core/index';
import { WaymarkError } from '../../src/core/errors';
import { observersSettled } from '../../src/core/engine/transaction';
import { WorkspaceSession } from '../../src/mcp/session';
import { cleanup, tmpDir } from './mcpHelpers';

after(cleanup);

const quiet = (): undefined => undefined;
const silent: Logger = { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };

/** Every file under `dir` (links not followed) with its size and mtime. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.lstatSync(p);
        out[path.relative(dir, p)] = `${st.size}:${st.mtimeMs}:${st.ino}`;
      }
    }
  };
  walk(dir);
  return out;
}

const FOLDERS = ['work', '.waymark', '.waymark/history', '.waymark/events', '.waymark/journal', '.waymark/locks'];

describe('a folder moved out of the workspace and linked back between two writes of one session', () => {
  for (const folder of FOLDERS) {
    test(`${folder}: the second write is refused, nothing outside changes`, async () => {
      const root = fs.realpathSync(tmpDir('waymark-held-'));
      const outside = fs.realpathSync(tmpDir('waymark-held-outside-'));
      fs.mkdirSync(path.join(root, '.waymark'));
      fs.mkdirSync(path.join(root, 'work'));
      const file = path.join(root, 'work', 'a.workflow.md');
      fs.writeFileSync(file, ['---', 'workflow: a', 'status: in_progress', 'steps: [one, two, three]', 'currentStep: one', 'stepsCompleted: []', '---', '', '# A', ''].join('\n'));
      const session = new WorkspaceSession({ root, actor: 'test', session: 's-test', logger: silent, debounceMs: 1 });
      try {
        await session.start();
        const first = await session.mutate(file, {}, (o) => session.core.advance(file, o));
        assert.equal(first.written, true);
        await observersSettled();
        // Every folder the first write used exists now (its history, events, journal, locks).
        const src = path.join(root, folder);
        assert.ok(fs.statSync(src).isDirectory(), `${folder} was made by the first write`);
        const moved = path.join(outside, path.basename(folder));
        const idBefore = fs.statSync(src);
        fs.renameSync(src, moved);
        fs.symlinkSync(moved, src);
        const idAfter = fs.statSync(src);
        assert.deepEqual([idAfter.dev, idAfter.ino], [idBefore.dev, idBefore.ino], 'followed, the name shows the same folder (what an identity check would see)');
        const before = snapshot(outside);
        await assert.rejects(
          session.mutate(file, {}, (o) => session.core.advance(file, o)),
          (e) => WaymarkError.is(e) && /outside|link|replaced/.test(e.message),
        );
        await observersSettled();
        assert.deepEqual(snapshot(outside), before, 'no file outside the workspace made, changed or removed');
      } finally {
        await session.dispose();
      }
    });
  }
});

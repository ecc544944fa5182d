// The MCP server's own writes: the watcher event a write through the server causes is not a
// reason to read the file again (the model already holds what was written). Real files, the real
// watcher, the server's session object in this process.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, mock, test } from 'node:test';
import nodeFs from 'node:fs';
import type { Logger } from '../../src/core/index';
import { WorkspaceSession } from '../../src/mcp/session';
import { cleanup, tmpDir } from './mcpHelpers';

after(cleanup);

const quiet = (): undefined => undefined;
const silent: Logger = { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };

/** Resolves once `fs.watch` on `dir` reports `name` (the session's watcher shares the loop's inotify queue). */
function eventFor(dir: string, name: string): { seen: Promise<void>; close(): void } {
  let w: fs.FSWatcher | undefined;
  const seen = new Promise<void>((resolve) => {
    w = fs.watch(dir, (_e, n) => {
      if (n?.toString() === name) resolve();
    });
  });
  return { seen, close: () => w?.close() };
}

/** A workspace with one workflow at its first of three steps, and a server session over it (not started). */
function sessionOnOneWorkflow(): { root: string; file: string; session: WorkspaceSession } {
  const root = fs.realpathSync(tmpDir('waymark-session-'));
  fs.mkdirSync(path.join(root, '.waymark'));
  fs.mkdirSync(path.join(root, 'work'));
  const file = path.join(root, 'work', 'a.workflow.md');
  fs.writeFileSync(file, ['---', 'workflow: a', 'status: in_progress', 'steps: [one, two, three]', 'currentStep: one', 'stepsCompleted: []', '---', '', '# A', ''].join('\n'));
  const session = new WorkspaceSession({ root, actor: 'test', session: 's-test', logger: silent, debounceMs: 1 });
  return { root, file, session };
}

test('a write through the server is not read back when its own watcher event arrives', async () => {
  const { file, session } = sessionOnOneWorkflow();
  try {
    await session.start();
    await session.state(file);
    const reads: string[] = [];
    const core = session.core;
    const reload = core.reload.bind(core);
    core.reload = (f: string) => {
      reads.push(f);
      return reload(f);
    };
    const ev = eventFor(path.dirname(file), path.basename(file));
    const r = await session.mutate(file, {}, (o) => core.advance(file, o));
    assert.equal(r.written, true);
    await ev.seen;
    ev.close();
    // The server's watcher got the same event in the same turn; take it in.
    await session.refresh();
    assert.deepEqual(reads, [], 'the file was not re-read after its own write');
    assert.equal((await session.state(file)).currentStep, 'two');
    // A change by someone else after it is still read.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('currentStep: two', 'currentStep: three'));
    assert.equal((await session.state(file)).currentStep, 'three');
  } finally {
    await session.dispose();
  }
});

test('a write through the server is known on disk by the stat it landed with, not read back; a same-size edit right after it is read', async () => {
  const { file, session } = sessionOnOneWorkflow();
  try {
    await session.start();
    await session.state(file);
    const core = session.core;
    const r = await session.mutate(file, {}, (o) => core.advance(file, o));
    assert.ok(r.landedAs, 'the write says what it landed as');
    // Settled after the answer (the next turn): a stat, no open or read of the file.
    const opens = mock.method(nodeFs, 'openSync');
    try {
      await session.refresh();
      assert.deepEqual(opens.mock.calls.filter((c) => c.arguments[0] === file).length, 0, 'the written file was opened again');
    } finally {
      opens.mock.restore();
    }
    assert.equal((await session.state(file)).currentStep, 'two');
    // Written again, then changed in place at the same size before the answer settled: read.
    const r2 = await session.mutate(file, {}, (o) => core.advance(file, o));
    assert.equal(r2.after.currentStep, 'three');
    const text = fs.readFileSync(file, 'utf8');
    const edited = text.replace('currentStep: three', 'currentStep: two__');
    assert.equal(Buffer.byteLength(edited), Buffer.byteLength(text));
    fs.writeFileSync(file, edited);
    await session.refresh();
    assert.equal((await session.state(file)).currentStep, 'two__');
  } finally {
    await session.dispose();
  }
});

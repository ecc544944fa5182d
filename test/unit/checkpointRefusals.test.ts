import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createStateCore, WaymarkError } from '../../src/core/index';
import { createCheckpoint, restoreCheckpoint } from '../../src/core/protocol/checkpoints';
import { workspace } from './fileHelpers';

function wf(id: string): string {
  return `---\nworkflow: ${id}\nstatus: in_progress\nsteps: [one, two, three]\nstepsCompleted: []\n---\n# ${id}\n`;
}

/** Two workflows checkpointed, then both advanced one step (a restore would rewind them: forced). */
async function advancedSinceCheckpoint(): Promise<{ root: string; a: string; b: string; id: string }> {
  const root = workspace({ 'a.md': wf('a'), 'b.md': wf('b') });
  const cp = await createCheckpoint(root);
  const core = createStateCore({ roots: [root], memory: false });
  try {
    await core.scan();
    await core.advance(path.join(root, 'a.md'));
    await core.advance(path.join(root, 'b.md'));
  } finally {
    await core.close();
  }
  return { root, a: path.join(root, 'a.md'), b: path.join(root, 'b.md'), id: cp.id };
}

describe('checkpoint restore refuses what every write refuses, before any file changes', () => {
  test('a read-only (chmod 0444) workflow file: refused like unblock refuses it; no other file restored', async () => {
    const { root, a, b, id } = await advancedSinceCheckpoint();
    fs.chmodSync(b, 0o444);
    const before = { a: fs.readFileSync(a, 'utf8'), b: fs.readFileSync(b, 'utf8') };
    // What the other writes say about the same file.
    const core = createStateCore({ roots: [root], memory: false });
    let unblockReason: string | undefined;
    try {
      await core.scan();
      await core.setStatus(b, 'completed').catch((e: unknown) => {
        unblockReason = WaymarkError.is(e) ? e.reason : String(e);
      });
    } finally {
      await core.close();
    }
    assert.equal(unblockReason, 'io');
    await assert.rejects(restoreCheckpoint(root, id, { force: true }), (e: unknown) => {
      assert.ok(WaymarkError.is(e, 'io'), String(e));
      assert.match((e as Error).message, /b\.md is read-only; chmod u\+w .*b\.md/);
      assert.match((e as Error).message, /Nothing was changed/);
      return true;
    });
    assert.equal(fs.readFileSync(a, 'utf8'), before.a, 'a.md not restored either: nothing half-done');
    assert.equal(fs.readFileSync(b, 'utf8'), before.b);
    assert.equal(fs.statSync(b).mode & 0o777, 0o444, 'the mode is left as it was');
  });

  test('--force on a file whose frontmatter is broken reports the error; nothing is restored', async () => {
    const { a, b, id, root } = await advancedSinceCheckpoint();
    const broken = '---\nworkflow: b\nstatus: [in_progress\nsteps: [one, two\n---\n# b\n';
    fs.writeFileSync(b, broken);
    const beforeA = fs.readFileSync(a, 'utf8');
    await assert.rejects(restoreCheckpoint(root, id, { force: true }), (e: unknown) => {
      assert.ok(WaymarkError.is(e, 'invalid'), String(e));
      assert.match((e as Error).message, /b\.md/);
      assert.match((e as Error).message, /Nothing was changed/);
      return true;
    });
    assert.equal(fs.readFileSync(a, 'utf8'), beforeA);
    assert.equal(fs.readFileSync(b, 'utf8'), broken);
  });
});

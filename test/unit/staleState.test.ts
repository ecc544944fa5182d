// The core keeps the last good state of a file that stops reading as a workflow (an agent
// mid-write), marked stale with the current text's problems; faces only render it.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore, type ChangeEvent } from '../../src/core/index';

const tmp: string[] = [];
after(() => {
  for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
});

function ws(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-stale-'));
  tmp.push(root);
  fs.mkdirSync(path.join(root, '.waymark'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const GOOD = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\nstepsCompleted: [a]\ncurrentStep: b\n---\nbody\n';
const BROKEN = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\nstepsCompleted: [a, b\n---\nbody\n';

describe('stale state in the core', () => {
  test('a file that stops parsing keeps its last good state, marked stale with the current problems', async () => {
    const root = ws({ 'w.md': GOOD });
    const file = path.join(root, 'w.md');
    const core = createStateCore({ roots: [root], scanIndex: false });
    await core.scan();
    const good = core.get(file);
    assert.ok(good && !good.stale);
    const events: ChangeEvent[] = [];
    core.onDidChange((e) => events.push(e));

    fs.writeFileSync(file, BROKEN);
    const stale = await core.reload(file);
    assert.ok(stale?.stale, 'reload answers with the stale state');
    assert.deepEqual(stale.stepsCompleted, ['a'], 'the last good state');
    assert.equal(stale.stateHash, good.stateHash);
    assert.match(stale.staleReason ?? '', /^line \d+: /);
    assert.equal(core.get(file)?.stale, true, 'the model holds it');
    assert.equal(core.list().length, 1, 'listed, not dropped');
    assert.ok(core.problems().some((p) => p.file === file && p.severity === 'error'), 'the problems of the text on disk now');
    assert.equal(events.length, 1);
    assert.equal(events[0].changes[0].removed, undefined);
    assert.equal(events[0].changes[0].state?.stale, true);

    // The same broken text again: nothing new to tell.
    await core.reload(file);
    assert.equal(events.length, 1);

    fs.writeFileSync(file, GOOD.replace('stepsCompleted: [a]', 'stepsCompleted: [a, b]').replace('currentStep: b', 'currentStep: c'));
    const repaired = await core.reload(file);
    assert.ok(repaired && !repaired.stale && repaired.staleReason === undefined);
    assert.deepEqual(repaired.stepsCompleted, ['a', 'b']);
    assert.ok(!core.problems().some((p) => p.file === file && p.severity === 'error'));
    core.dispose();
  });

  test('a rescan while the file is broken keeps the stale state; once repaired it is live again', async () => {
    const root = ws({ 'w.md': GOOD, 'other.md': GOOD.replace('workflow: w', 'workflow: other') });
    const file = path.join(root, 'w.md');
    const core = createStateCore({ roots: [root], scanIndex: false });
    await core.scan();
    fs.writeFileSync(file, BROKEN);
    await core.reload(file);
    const events: ChangeEvent[] = [];
    core.onDidChange((e) => events.push(e));
    // A gate or definition change rescans the workspace while the agent is still mid-write.
    await core.scan();
    const kept = core.get(file);
    assert.equal(kept?.stale, true, 'still listed, still stale');
    assert.deepEqual(kept.stepsCompleted, ['a']);
    assert.equal(core.list().length, 2);
    const errors = core.problems().filter((p) => p.file === file && p.severity === 'error');
    assert.ok(errors.length > 0, 'the broken text is reported');
    assert.equal(new Set(errors.map((p) => `${p.code}:${p.range.start.line}`)).size, errors.length, 'once, not twice');
    assert.ok(!events.some((e) => e.changes.some((c) => c.file === file && c.removed)), 'never reported removed');
    fs.writeFileSync(file, GOOD);
    await core.scan();
    assert.equal(core.get(file)?.stale, undefined);
    fs.unlinkSync(file);
    await core.scan();
    assert.equal(core.get(file), undefined, 'deleted: forgotten');
    core.close?.();
  });

  test('frontmatter without workflow keys is stale too; a deleted file is forgotten', async () => {
    const root = ws({ 'w.md': GOOD });
    const file = path.join(root, 'w.md');
    const core = createStateCore({ roots: [root], scanIndex: false });
    await core.scan();
    fs.writeFileSync(file, '---\ntitle: notes\n---\n');
    const stale = await core.reload(file);
    assert.equal(stale?.stale, true);
    assert.equal(stale?.staleReason, 'its frontmatter no longer names a workflow');
    fs.unlinkSync(file);
    assert.equal(await core.reload(file), undefined);
    assert.equal(core.get(file), undefined);
    assert.deepEqual(core.list(), []);
    core.dispose();
  });

  test('a file the model never knew is not invented as stale', async () => {
    const root = ws({ 'w.md': BROKEN });
    const file = path.join(root, 'w.md');
    const core = createStateCore({ roots: [root], scanIndex: false });
    await core.scan();
    assert.equal(await core.reload(file), undefined);
    assert.equal(core.get(file), undefined);
    core.dispose();
  });

  test('scanIndex: false leaves no scan index behind (an untrusted workspace changes no file)', async () => {
    const root = ws({ 'w.md': GOOD });
    const core = createStateCore({ roots: [root], scanIndex: false });
    await core.scan();
    assert.equal(fs.existsSync(path.join(root, '.waymark', 'cache')), false);
    const indexed = createStateCore({ roots: [root] });
    const r = (await indexed.scan()) as Awaited<ReturnType<typeof indexed.scan>> & { indexWritten?: Promise<unknown> };
    await r.indexWritten;
    assert.equal(fs.existsSync(path.join(root, '.waymark', 'cache')), true, 'the default writes it (the check above can fail)');
    core.dispose();
    indexed.dispose();
  });
});

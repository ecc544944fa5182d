import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { demo, find, read, ready, snap, testApi, waitFor, singleRoot } from '../helpers';

const run = <T>(id: string, arg?: unknown) => vscode.commands.executeCommand<T>(id, arg);

async function stateOf(rel: string) {
  const s = await snap();
  const st = s.states.find((x) => x.file === demo(rel));
  assert.ok(st, `${rel} is not in the model`);
  return st;
}

singleRoot('commands, writes and watching', () => {
  suiteSetup(async () => {
    await ready();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('advance completes the current step on disk and keeps the body', async () => {
    const rel = 'workflows/delegated/auth-tests.md';
    const before = read(rel);
    const body = before.slice(before.indexOf('\n---', 3));
    const result = await run<{ after: { currentStep?: string } }>('waymark.advance', { file: demo(rel), quiet: true });
    assert.ok(result, JSON.stringify((await snap()).lastError));
    assert.equal(result.after.currentStep, 'run-suite');
    const after = read(rel);
    assert.match(after, /currentStep: run-suite/);
    assert.match(after, /stepsCompleted: \[plan-cases, write-tests\]/);
    assert.ok(after.endsWith(body), 'the Markdown body is byte-identical');
    const s = await waitFor('the tree to show the advance', async () => {
      const x = await snap();
      return find(x.workflows, 'auth-tests')?.description?.startsWith('2/3') ? x : undefined;
    });
    assert.ok(s);
    const history = await run<{ operation: string }[]>('waymark.history', { file: demo(rel), quiet: true });
    assert.ok(history?.some((h) => h.operation === 'advance'), JSON.stringify(history));
  });

  test('block and unblock write the status and reason', async () => {
    const rel = 'workflows/delegated/auth-fixtures.md';
    assert.ok(await run('waymark.block', { file: demo(rel), reason: 'waiting for the schema', quiet: true }));
    assert.match(read(rel), /status: blocked/);
    assert.match(read(rel), /blockedReason: .*waiting for the schema/);
    assert.ok(await run('waymark.unblock', { file: demo(rel), quiet: true }));
    assert.match(read(rel), /status: in_progress/);
  });

  test('a stale expected hash is refused as a conflict and nothing is written', async () => {
    const rel = 'workflows/search-index.md';
    const before = read(rel);
    const result = await run('waymark.setScope', { file: demo(rel), scope: 'large', expectHash: '0'.repeat(64), quiet: true });
    assert.equal(result, undefined);
    const s = await snap();
    assert.equal(s.lastError?.reason, 'conflict', JSON.stringify(s.lastError));
    assert.match(s.lastError?.message ?? '', /^Set scope failed: /);
    assert.equal(read(rel), before);
  });

  test('a refused transition explains why', async () => {
    const rel = 'workflows/onboarding-docs.md';
    const before = read(rel);
    assert.equal(await run('waymark.setStatus', { file: demo(rel), status: 'created', quiet: true }), undefined);
    const s = await snap();
    assert.match(s.lastError?.message ?? '', /^Set status failed: .+/);
    assert.equal(read(rel), before);
  });

  test('gate pass writes the gate file and the Gates view shows PASS', async () => {
    const rel = 'workflows/auth-refactor.md';
    const gate = await run<{ verdict?: string; file: string; open: boolean }>('waymark.gate.pass', { file: demo(rel), step: 'design', reason: 'reviewed', by: 'maria', quiet: true });
    assert.ok(gate, JSON.stringify((await snap()).lastError));
    assert.equal(gate.verdict, 'PASS');
    assert.ok(fs.existsSync(gate.file));
    assert.match(fs.readFileSync(gate.file, 'utf8'), /gate: PASS/);
    await waitFor('the Gates view to show PASS', async () => {
      const s = await snap();
      return (find(s.gates, 'auth-refactor')?.children ?? []).some((c) => c.label === 'design: PASS');
    });
  });

  test('manifest and changed report what changed since the manifest', async () => {
    const written = await run<{ file: string; rows: unknown[] }[]>('waymark.manifest', { quiet: true });
    assert.ok(written?.[0], JSON.stringify((await snap()).lastError));
    assert.ok(fs.existsSync(written[0].file));
    assert.ok(written[0].rows.length >= 8);
    assert.ok(await run('waymark.setScope', { file: demo('workflows/release-notes.md'), scope: 'micro', quiet: true }));
    const changed = await run<{ stateChanged: string[] }[]>('waymark.changed', { quiet: true });
    assert.ok(changed?.[0].stateChanged.some((f) => f.endsWith('release-notes.md')), JSON.stringify(changed));
  });

  test('resume says where to pick up', async () => {
    const point = await run<{ step?: string; reason: string }>('waymark.resume', { file: demo('workflows/auth-refactor.md'), quiet: true });
    assert.equal(point?.step, 'implement');
    assert.ok(point?.reason);
  });

  test('an external edit shows up in the views, a half-written file keeps the last good state', async () => {
    const rel = 'workflows/delegated/auth-fixtures.md';
    const file = demo(rel);
    const text = read(rel);
    try {
      fs.writeFileSync(file, text.replace('stepsCompleted: [collect]', 'stepsCompleted: [collect, generate]').replace('currentStep: generate\n', ''));
      await waitFor('the external edit to reach the tree', async () => {
        const s = await snap();
        return find(s.workflows, 'auth-fixtures')?.description?.startsWith('2/2');
      }, 5000);
      fs.writeFileSync(file, text.slice(0, text.indexOf('delegation:')) + 'delegation: [unclosed\n');
      const stale = await waitFor('the broken file to be marked stale', async () => {
        const st = (await snap()).states.find((x) => x.file === file);
        return st?.stale ? st : undefined;
      }, 5000);
      assert.deepEqual(stale.stepsCompleted, ['collect', 'generate'], 'the last good state is kept');
      const node = find((await snap()).workflows, 'auth-fixtures');
      assert.match(node?.description ?? '', /stale/);
    } finally {
      // Repaired whatever happened above: the suites after this one use the file.
      fs.writeFileSync(file, text);
    }
    await waitFor('the repaired file to parse again', async () => {
      const st = (await snap()).states.find((x) => x.file === file);
      return st && !st.stale && st.stepsCompleted.length === 1;
    }, 5000);
  });

  test('a file open with unsaved changes is edited in the editor, never written behind it', async () => {
    const rel = 'workflows/search-index.md';
    const onDisk = read(rel);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(demo(rel)));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(doc.lineAt(doc.lineCount - 1).range.end, '\nUnsaved note from the user.'));
    assert.equal(doc.isDirty, true);
    const result = await run<{ written: boolean }>('waymark.setScope', { file: demo(rel), scope: 'large', quiet: true });
    assert.ok(result, JSON.stringify((await snap()).lastError));
    assert.equal(result.written, false);
    assert.equal(read(rel), onDisk, 'the file on disk is untouched');
    assert.match(doc.getText(), /scope: large/);
    assert.match(doc.getText(), /Unsaved note from the user\./, 'the unsaved change is kept');
    assert.equal(doc.isDirty, true);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('in an untrusted workspace every write is refused with an explanation', async () => {
    // code-server runs with --disable-workspace-trust, so Restricted Mode is simulated through
    // the same switch the trust check reads; the refusal path (command wrapper and the core's
    // write guard) is the real one.
    const rel = 'workflows/delegated/auth-tests.md';
    const before = read(rel);
    const api = await testApi();
    assert.equal(api.setTrust(false), false);
    try {
      assert.equal(await run('waymark.advance', { file: demo(rel), quiet: true }), undefined);
      let s = await snap();
      assert.equal(s.canWrite, false);
      assert.match(s.lastError?.message ?? '', /^Advance is disabled because this workspace is not trusted/);
      assert.equal(await run('waymark.gate.pass', { file: demo('workflows/auth-refactor.md'), step: 'review', quiet: true }), undefined);
      s = await snap();
      assert.match(s.lastError?.message ?? '', /not trusted/);
      assert.equal(read(rel), before);
      const s2 = await run<{ workflows: number }>('waymark.refresh');
      assert.ok(s2 && s2.workflows > 0, 'reading still works');
    } finally {
      api.setTrust(undefined);
    }
    assert.equal((await snap()).canWrite, true);
  });

  test('delegate creates a child workflow with its chain computed', async () => {
    const parent = demo('workflows/delegated/auth-tests.md');
    const result = await run<{ file: string; after: { delegation?: { depth: number; chain_path: string[]; parent_id?: string | null } } }>('waymark.delegate', { file: parent, agent: 'doc-writer', quiet: true });
    assert.ok(result, JSON.stringify((await snap()).lastError));
    assert.ok(fs.existsSync(result.file));
    assert.equal(result.after.delegation?.depth, 2);
    assert.equal(result.after.delegation?.parent_id, 'auth-tests');
    await waitFor('the child in the Delegation view', async () => !!find((await snap()).delegation, 'doc-writer'), 5000);
    void stateOf;
  });
});

// Runs in the runner's third pass: code-server with workspace trust on and the folder never
// trusted (Restricted Mode). Reading works; every write is refused with an explanation.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, demo, find, ready, resizeView, screenshot, sleep, snap, testApi, waitFor, workspaceRoot } from '../helpers';

/** Every file under `dir` with the SHA-256 of its bytes, by relative path. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else out[path.relative(dir, abs).split(path.sep).join('/')] = createHash('sha256').update(fs.readFileSync(abs)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

if (!vscode.workspace.isTrusted) {
  suite('restricted mode (untrusted workspace)', () => {
    suiteSetup(async () => {
      await ready();
    });

    test('views, diagnostics and hovers work', async () => {
      const s = await snap();
      assert.equal(s.canWrite, false);
      assert.ok(find(s.workflows, 'auth-refactor'));
      await waitFor('diagnostics', () => vscode.languages.getDiagnostics(vscode.Uri.file(demo('workflows/release-notes.md'))).some((d) => String(d.code) === 'unknown-status'));
    });

    test('every write is refused with an explanation and nothing changes on disk', async () => {
      const file = demo('workflows/delegated/auth-tests.md');
      const before = fs.readFileSync(file, 'utf8');
      // The demo ships some history (for the dashboard's timeline): none may be added.
      const historyBefore = tree(demo('.waymark/history'));
      const attempts: [string, Record<string, unknown>][] = [
        ['waymark.advance', { file }],
        ['waymark.block', { file, reason: 'x' }],
        ['waymark.setScope', { file, scope: 'large' }],
        ['waymark.gate.pass', { file: demo('workflows/auth-refactor.md'), step: 'review' }],
        ['waymark.delegate', { file, agent: 'someone' }],
        ['waymark.checkpoint.create', { message: 'x' }],
      ];
      for (const [id, arg] of attempts) {
        assert.equal(await vscode.commands.executeCommand(id, { ...arg, quiet: true }), undefined, id);
        if (id.startsWith('waymark.checkpoint')) continue;
        const s = await snap();
        assert.match(s.lastError?.message ?? '', /is disabled because this workspace is not trusted/, id);
      }
      assert.equal(fs.readFileSync(file, 'utf8'), before);
      assert.ok(!fs.existsSync(demo('.waymark/checkpoints')), 'no checkpoint written');
      assert.deepEqual(tree(demo('.waymark/history')), historyBefore, 'no history written');
    });

    test('memory commands are refused before the memory store opens, and write no file', async () => {
      const before = tree(workspaceRoot());
      const file = demo('workflows/auth-refactor.md');
      const attempts: [string, Record<string, unknown>][] = [
        ['waymark.memory.recordDecision', { file, step: 'design', text: 'Never stored: untrusted', rationale: 'x' }],
        ['waymark.memory.recordLearning', { file, step: 'design', text: 'Never stored either', category: 'gotcha' }],
        ['waymark.memory.recall', { file }],
        ['waymark.memory.showGraph', { file }],
        ['waymark.session.start', { file, message: 'untrusted session' }],
        ['waymark.session.end', { file, message: 'summary' }],
      ];
      for (const [id, arg] of attempts) {
        assert.equal(await vscode.commands.executeCommand(id, { ...arg, quiet: true }), undefined, id);
        const s = await snap();
        assert.match(s.lastError?.message ?? '', /is disabled because this workspace is not trusted/, id);
        assert.equal(s.lastError?.reason, 'unavailable', id);
      }
      // The Memory view says why it is empty instead of opening the store.
      const memory = (await (await testApi()).snapshot({ only: 'memory' })) as { memory?: unknown[]; memoryMessage?: string };
      assert.deepEqual(memory.memory, []);
      assert.match(memory.memoryMessage ?? '', /Restricted Mode/);
      assert.ok(!fs.existsSync(demo('.waymark/memory')), 'no memory store created');
      assert.deepEqual(tree(workspaceRoot()), before, 'no file added, removed or changed');
    });

    test('quick fixes are not offered as runnable, and applying one is refused', async () => {
      const rel = 'workflows/release-notes.md';
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(demo(rel))));
      const before = fs.readFileSync(demo(rel), 'utf8');
      const text = before.split('\n');
      const line = text.findIndex((l) => l.startsWith('status:'));
      const range = new vscode.Range(line, 8, line, text[line].length);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', vscode.Uri.file(demo(rel)), range);
      const fix = (actions ?? []).find((a) => a.title.startsWith('Set status'));
      assert.ok(!fix || fix.disabled, 'the fix is disabled (or hidden) in Restricted Mode');
      const problem = { file: demo(rel), range: { start: { line, character: 8 }, end: { line, character: text[line].length } }, severity: 'error', code: 'unknown-status', message: '', data: { fix: 'replaceStatus', value: 'in_progress' } };
      assert.equal(await vscode.commands.executeCommand('waymark.applyFix', { file: demo(rel), problem, quiet: true }), undefined);
      assert.match((await snap()).lastError?.message ?? '', /^Quick fix is disabled because this workspace is not trusted/);
      assert.equal(fs.readFileSync(demo(rel), 'utf8'), before);
    });

    test('screenshot: Restricted Mode, a refused write explained', async () => {
      await vscode.commands.executeCommand('workbench.view.extension.waymark');
      await sleep(300);
      await resizeView('sidebar', 230);
      await resizeView('Gates', 260);
      await vscode.commands.executeCommand('notifications.clearAll');
      void vscode.commands.executeCommand('waymark.advance', { file: demo('workflows/delegated/auth-tests.md') });
      await sleep(800);
      await screenshot('restricted-mode');
    });

    test('the whole pass changed no file: the folder still equals the fixture it was copied from', async () => {
      const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
      const fixture = [path.join(ext.extensionPath, 'examples', 'demo'), path.join(ext.extensionPath, 'test', 'integration', 'workspace')].find((d) => fs.existsSync(path.join(d, 'workflows')))!;
      await sleep(500); // let a refused command's last event settle
      assert.deepEqual(tree(workspaceRoot()), tree(fixture));
    });
  });
}

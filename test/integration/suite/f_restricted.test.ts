// Runs in the runner's third pass: code-server with workspace trust on and the folder never
// trusted (Restricted Mode). Reading works; every write is refused with an explanation.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { demo, find, ready, resizeView, screenshot, sleep, snap, waitFor } from '../helpers';

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
      assert.ok(!fs.existsSync(demo('.waymark/history')), 'no history written');
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
  });
}

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { find, multiRoot, ready, resizeView, screenshot, sleep, snap, waitFor } from '../helpers';

multiRoot('multi-root workspace', () => {
  const folder = (name: string) => vscode.workspace.workspaceFolders!.find((f) => f.name === name)!.uri.fsPath;

  suiteSetup(async () => {
    await ready();
  });

  test('each folder is scanned and the Workflows view groups by folder', async () => {
    const s = await waitFor('both folders scanned', async () => {
      const x = await snap();
      return x.states.some((st) => st.file.startsWith(folder('ops'))) && x.states.some((st) => st.file.startsWith(folder('demo'))) ? x : undefined;
    });
    assert.deepEqual(s.workflows.map((n) => n.label), ['demo', 'ops']);
    const ops = s.workflows[1];
    assert.deepEqual((ops.children ?? []).map((g) => g.label), ['In progress', 'Created']);
    assert.ok(find(ops.children, 'deploy'));
    assert.ok(find(s.workflows[0].children, 'auth-refactor'), 'the demo folder keeps its workflows');
  });

  test('diagnostics come from every folder', async () => {
    const uri = vscode.Uri.file(path.join(folder('ops'), 'workflows', 'rollback.md'));
    const d = await waitFor('step-duplicate in ops', () => vscode.languages.getDiagnostics(uri).find((x) => String(x.code) === 'step-duplicate'));
    const text = fs.readFileSync(uri.fsPath, 'utf8').split('\n');
    const line = text.findIndex((l) => l.startsWith('stepsCompleted'));
    assert.equal(d.range.start.line, line);
    assert.equal(d.range.start.character, text[line].lastIndexOf('plan'));
  });

  test('a write in the second folder lands there, with its history', async () => {
    const file = path.join(folder('ops'), 'workflows', 'deploy.md');
    const r = await vscode.commands.executeCommand<{ after: { currentStep?: string } }>('waymark.advance', { file, quiet: true });
    assert.equal(r?.after.currentStep, 'prod', JSON.stringify((await snap()).lastError));
    assert.match(fs.readFileSync(file, 'utf8'), /currentStep: prod/);
    assert.ok(fs.existsSync(path.join(folder('ops'), '.waymark', 'history')), 'history under the ops folder');
    assert.ok(!fs.existsSync(path.join(folder('demo'), '.waymark', 'history')) || !fs.readdirSync(path.join(folder('demo'), '.waymark', 'history')).some((f) => f.includes('deploy')));
  });

  test('screenshot: the views in a multi-root workspace', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    await sleep(300);
    await resizeView('sidebar', 230);
    await resizeView('Gates', 260);
    await screenshot('multi-root');
  });
});

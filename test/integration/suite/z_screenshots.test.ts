// Puts each surface on screen and asks the runner for a screenshot (test-results/screenshots/).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { demo, locate, ready, resizeView, screenshot, sleep, singleRoot, testApi } from '../helpers';

singleRoot('screenshots', () => {
  suiteSetup(async () => {
    await ready();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    await sleep(300);
    await resizeView('sidebar', 230);
    await sleep(300);
    await resizeView('Gates', 260);
  });

  test('the Waymark views', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    await sleep(300);
    assert.equal(await (await testApi()).reveal(demo('workflows/auth-refactor.md')), true);
    await sleep(500);
    await screenshot('views');
  });

  test('a workflow file: decorations, code lenses, a hover and the status bar', async () => {
    const rel = 'workflows/auth-refactor.md';
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(demo(rel)));
    const editor = await vscode.window.showTextDocument(doc);
    const at = locate(rel, 'currentStep').start.translate(0, 3);
    editor.selection = new vscode.Selection(at, at);
    await sleep(800);
    await vscode.commands.executeCommand('editor.action.showHover');
    await sleep(800);
    await screenshot('hover');
  });

  test('a problem hover with its quick fix, and the Problems panel', async () => {
    const rel = 'workflows/delegated/auth-fixture-data.md';
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(demo(rel)));
    const editor = await vscode.window.showTextDocument(doc);
    const at = locate(rel, 'depth: 2').start.translate(0, 7);
    editor.selection = new vscode.Selection(at, at);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('notifications.clearAll');
    await sleep(600);
    await vscode.commands.executeCommand('editor.action.showHover');
    await sleep(800);
    await screenshot('problems');
  });

  test('the status bar and its next actions', async () => {
    await vscode.commands.executeCommand('workbench.action.closePanel');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(demo('workflows/auth-refactor.md')));
    await vscode.window.showTextDocument(doc);
    await sleep(300);
    void vscode.commands.executeCommand('waymark.nextActions');
    await sleep(900);
    await screenshot('status-bar-actions');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  });
});

singleRoot('screenshots (explorer)', () => {
  test('Explorer badges on workflow files', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.view.explorer');
    await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(demo('workflows/delegated/auth-tests.md')));
    await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(demo('workflows/auth-refactor.md')));
    await sleep(800);
    await screenshot('explorer');
  });
});

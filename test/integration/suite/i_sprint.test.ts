// The BMAD sprint in a real VS Code: a sprint is written into the demo workspace (the fixture
// test/fixtures/bmad-v6's ledger, stories and epics), then the Sprint view, diagnostics, hover,
// quick fix, code lens commands and the status bar are checked against real files.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, clickView, demo, hoverText, ready, screenshot, singleRoot, sleep, testApi, waitFor } from '../helpers';

interface SprintSnap {
  reports: { root: string; next?: { storyKey?: string }; stories: { key: string; status: string; description: string; problems: string[] }[] }[];
  statusBar: string;
  loads: number;
}

const IMPL = '_bmad-output/implementation-artifacts';
const sprintSnap = async (): Promise<SprintSnap> => (await testApi()).sprint() as SprintSnap;
const storyOf = (s: SprintSnap, key: string) => s.reports.flatMap((r) => r.stories).find((x) => x.key === key);

singleRoot('BMAD sprint', () => {
  const written: string[] = [];

  suiteSetup(async () => {
    await ready();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const fixture = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'test', 'fixtures', 'bmad-v6', '_bmad-output');
    for (const rel of ['implementation-artifacts', 'planning-artifacts/epics.md']) {
      const from = path.join(fixture, rel);
      const to = demo(path.join('_bmad-output', rel));
      fs.cpSync(from, to, { recursive: true, force: false, errorOnExist: false });
      written.push(to);
    }
  });

  suiteTeardown(() => {
    for (const p of written) fs.rmSync(p, { recursive: true, force: true });
  });

  test('the Sprint view lists the stories with status, tasks and drift, and what BMAD would do next', async () => {
    const s = await waitFor('the sprint to be read', async () => {
      const x = await sprintSnap();
      return storyOf(x, '2-1-dashboard') ? x : undefined;
    }, 20_000);
    assert.equal(s.reports[0].next?.storyKey, '2-1-dashboard');
    assert.match(storyOf(s, '2-1-dashboard')!.description, /^in-progress · 1\/4/);
    assert.match(storyOf(s, '1-2-account-settings')!.description, /done · file: review · 2\/2 · ⚠ 1/);
    assert.deepEqual(storyOf(s, '1-1-user-login')!.problems, []);
    assert.match(s.statusBar, /2-1-dashboard · in-progress · 1\/4/);
  });

  test('diagnostics on the exact line, a hover that explains, and a quick fix that writes both files', async () => {
    const story = demo(`${IMPL}/1-2-account-settings.md`);
    const uri = vscode.Uri.file(story);
    const d = await waitFor('the drift diagnostic', () => vscode.languages.getDiagnostics(uri).find((x) => x.code === 'story-status-drift'));
    assert.equal(d.range.start.line, 2);
    assert.equal(d.severity, vscode.DiagnosticSeverity.Warning);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const hover = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(2, 9)));
    assert.match(hover, /sprint-status\.yaml/);
    assert.match(hover, /the ledger is ahead/);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, d.range);
    const fix = actions.find((a) => a.title.startsWith('Set 1-2-account-settings to done'));
    assert.ok(fix?.command, JSON.stringify(actions.map((a) => a.title)));
    const ledgerBefore = fs.readFileSync(demo(`${IMPL}/sprint-status.yaml`), 'utf8');
    await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    assert.match(fs.readFileSync(story, 'utf8'), /^Status: done$/m);
    // The ledger already said done: not one byte of it changed.
    assert.equal(fs.readFileSync(demo(`${IMPL}/sprint-status.yaml`), 'utf8'), ledgerBefore);
    await waitFor('the diagnostic to go', () => !vscode.languages.getDiagnostics(uri).some((x) => x.code === 'story-status-drift'));
  });

  test('code lenses move a story on; the ledger line and the story file change together', async () => {
    const story = demo(`${IMPL}/2-1-dashboard.md`);
    const uri = vscode.Uri.file(story);
    // The code lens command needs the document loaded in the workbench.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 10);
    const review = lenses.find((l) => l.command?.title.includes('Move to review'));
    assert.ok(review?.command, JSON.stringify(lenses.map((l) => l.command?.title)));
    await vscode.commands.executeCommand(review.command.command, ...(review.command.arguments ?? []));
    assert.match(fs.readFileSync(story, 'utf8'), /^Status: review$/m);
    assert.match(fs.readFileSync(demo(`${IMPL}/sprint-status.yaml`), 'utf8'), /^ {2}2-1-dashboard: review$/m);
    const s = await waitFor('the view to follow', async () => {
      const x = await sprintSnap();
      return storyOf(x, '2-1-dashboard')?.status === 'review' ? x : undefined;
    });
    assert.equal(s.reports[0].next?.storyKey, '2-1-dashboard');
  });

  test('an agent\'s edit of the ledger shows up without a command', async () => {
    const ledger = demo(`${IMPL}/sprint-status.yaml`);
    fs.writeFileSync(ledger, fs.readFileSync(ledger, 'utf8').replace('2-2-reports: ready-for-dev', '2-2-reports: backlog'));
    await waitFor('the watcher to re-read the ledger', async () => storyOf(await sprintSnap(), '2-2-reports')?.status === 'backlog', 10_000);
  });

  test('in an untrusted workspace the story commands refuse and write nothing', async () => {
    const story = demo(`${IMPL}/2-6a-export-split.md`);
    const before = fs.readFileSync(story, 'utf8');
    const api = await testApi();
    assert.equal(api.setTrust(false), false);
    try {
      const r = await vscode.commands.executeCommand('waymark.story.setStatus', { key: '2-6a-export-split', status: 'in-progress' });
      assert.equal(r, undefined);
      assert.equal(fs.readFileSync(story, 'utf8'), before);
    } finally {
      api.setTrust(undefined);
    }
  });

  test('screenshot: the Sprint view, a story with its hover and the status bar', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    await vscode.commands.executeCommand('waymark.sprint.focus');
    // Fold the other views so the Sprint view has the room; unfolded again after the shot.
    for (const v of ['Workflows', 'Gates', 'Delegation']) await clickView(v);
    await sleep(300);
    const uri = vscode.Uri.file(demo(`${IMPL}/1-3-password-reset.md`));
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const at = new vscode.Position(2, 10);
    editor.selection = new vscode.Selection(at, at);
    await sleep(800);
    await vscode.commands.executeCommand('editor.action.showHover');
    await sleep(800);
    await screenshot('sprint');
    for (const v of ['Workflows', 'Gates', 'Delegation']) await clickView(v);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

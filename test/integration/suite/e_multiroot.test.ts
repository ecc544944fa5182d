import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
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

  test('a folder added to the workspace is scanned and watched; removed, it is forgotten', async () => {
    // Real users add folders to a workspace; VS Code for the Web can also hand the folders of a
    // .code-workspace to the extension host only after activation. Both are a folder change.
    const extra = path.join(folder('ops'), '..', 'extra');
    fs.mkdirSync(path.join(extra, '.waymark'), { recursive: true });
    fs.mkdirSync(path.join(extra, 'work'), { recursive: true });
    fs.writeFileSync(path.join(extra, '.waymark', 'config.yaml'), 'workflows:\n  - "work/**/*.md"\n');
    const wf = (id: string, step: string) => `---\nworkflow: ${id}\nstatus: in_progress\nsteps: [draft, review]\ncurrentStep: ${step}\nstepsCompleted: []\n---\n\nBody of ${id}.\n`;
    fs.writeFileSync(path.join(extra, 'work', 'triage.md'), wf('triage', 'draft'));
    const before = (await snap()) as Awaited<ReturnType<typeof snap>> & { roots?: string[] };
    assert.equal(before.roots?.length, 2);

    const count = vscode.workspace.workspaceFolders!.length;
    const added = new Promise<void>((res) => {
      const d = vscode.workspace.onDidChangeWorkspaceFolders(() => (d.dispose(), res()));
    });
    assert.ok(vscode.workspace.updateWorkspaceFolders(count, 0, { uri: vscode.Uri.file(extra), name: 'extra' }), 'the folder change was accepted');
    await added;
    const s = await waitFor('the added folder scanned', async () => {
      const x = (await snap()) as Awaited<ReturnType<typeof snap>> & { roots?: string[] };
      return x.roots?.includes(extra) && x.states.some((st) => st.file === path.join(extra, 'work', 'triage.md')) ? x : undefined;
    }, 30_000);
    assert.deepEqual(s.workflows.map((n) => n.label), ['demo', 'ops', 'extra']);
    assert.ok(find(s.workflows[0].children, 'auth-refactor'), 'the other folders keep their workflows');
    assert.ok(find(s.workflows[1].children, 'deploy'));

    // The new folder is watched: a workflow file created there shows up without a rescan.
    fs.writeFileSync(path.join(extra, 'work', 'intake.md'), wf('intake', 'review'));
    await waitFor('a file created in the added folder', async () => (await snap()).states.find((st) => st.workflow === 'intake' && st.currentStep === 'review'), 30_000);
    // Writes work there too, with history under that folder.
    const r = await vscode.commands.executeCommand<{ after: { currentStep?: string } }>('waymark.advance', { file: path.join(extra, 'work', 'triage.md'), quiet: true });
    assert.equal(r?.after.currentStep, 'review', JSON.stringify((await snap()).lastError));
    assert.ok(fs.existsSync(path.join(extra, '.waymark', 'history')), 'history under the added folder');

    const removed = new Promise<void>((res) => {
      const d = vscode.workspace.onDidChangeWorkspaceFolders(() => (d.dispose(), res()));
    });
    assert.ok(vscode.workspace.updateWorkspaceFolders(count, 1), 'the folder removal was accepted');
    await removed;
    const after = await waitFor('the removed folder forgotten', async () => {
      const x = (await snap()) as Awaited<ReturnType<typeof snap>> & { roots?: string[] };
      return !x.roots?.includes(extra) && !x.states.some((st) => st.file.startsWith(extra + path.sep)) ? x : undefined;
    }, 30_000);
    assert.deepEqual(after.workflows.map((n) => n.label), ['demo', 'ops']);
    // Its files are no longer watched: an edit there changes nothing here.
    fs.writeFileSync(path.join(extra, 'work', 'late.md'), wf('late', 'draft'));
    await sleep(1000);
    assert.ok(!(await snap()).states.some((st) => st.workflow === 'late'));
  });

  test('from no folder to two: the case of a .code-workspace whose folders arrive after activation', async () => {
    // VS Code for the Web can start the extension host before it has read a remote
    // .code-workspace file (the folders come from a browser cache, empty in a fresh profile):
    // the extension starts with no folder and is then told the folders changed.
    const folders = vscode.workspace.workspaceFolders!.map((f) => ({ uri: f.uri, name: f.name }));
    const change = () =>
      new Promise<void>((res) => {
        const d = vscode.workspace.onDidChangeWorkspaceFolders(() => (d.dispose(), res()));
      });
    let changed = change();
    assert.ok(vscode.workspace.updateWorkspaceFolders(0, folders.length), 'all folders removed');
    await changed;
    const empty = await waitFor('no folder, no workflow', async () => {
      const x = (await snap()) as Awaited<ReturnType<typeof snap>> & { roots?: string[]; watchedRoots?: string[] };
      // The watchers follow the folders once the old core is closed (its memory stores first).
      return x.roots?.length === 0 && x.states.length === 0 && x.workflows.length === 0 && x.watchedRoots?.length === 0 ? x : undefined;
    }, 30_000);
    assert.deepEqual(empty.workflows, []);
    assert.deepEqual(empty.watchedRoots, []);
    assert.equal(vscode.languages.getDiagnostics().filter(([, ds]) => ds.some((d) => d.source === 'waymark')).length, 0, 'no Waymark problem left behind');

    changed = change();
    assert.ok(vscode.workspace.updateWorkspaceFolders(0, 0, ...folders), 'the folders are back');
    await changed;
    const back = await waitFor('both folders scanned again', async () => {
      const x = (await snap()) as Awaited<ReturnType<typeof snap>> & { roots?: string[]; watchedRoots?: string[] };
      return x.roots?.length === 2 && x.workflows.length === 2 ? x : undefined;
    }, 30_000);
    // An edit VS Code's watcher does not report (as in a just-added folder's first moments): made
    // through a hard link outside the workspace, so inotify tells the folder's watch nothing.
    const missed = path.join(folder('ops'), 'workflows', 'rollback.md');
    const link = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-it-link-')), 'rollback.md');
    fs.linkSync(missed, link);
    const missedBefore = fs.readFileSync(missed, 'utf8');
    fs.writeFileSync(link, missedBefore.replace(/^status: \w+$/m, 'status: blocked\nblockedReason: an edit no watcher reported'));
    assert.deepEqual(back.workflows.map((n) => n.label), ['demo', 'ops']);
    assert.deepEqual(back.watchedRoots, back.roots);
    assert.ok(find(back.workflows[0].children, 'auth-refactor'));
    assert.ok(find(back.workflows[1].children, 'deploy'));
    await waitFor('diagnostics again', () => vscode.languages.getDiagnostics(vscode.Uri.file(path.join(folder('ops'), 'workflows', 'rollback.md'))).find((x) => String(x.code) === 'step-duplicate'));
    // Watched again: an external edit in the second folder reaches the model, even at once: VS
    // Code starts its watcher of a folder just added asynchronously (an edit in its first moments
    // sends no event), and the folder is looked through again once that watcher has had time to start.
    const file = path.join(folder('ops'), 'workflows', 'deploy.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^status: in_progress$/m, 'status: blocked\nblockedReason: waiting for the change window'));
    await waitFor('the edit seen', async () => (await snap()).states.find((st) => st.file === file && st.status === 'blocked'), 30_000);
    await waitFor('the unreported edit seen (the added folder looked through again)', async () => (await snap()).states.find((st) => st.file === missed && st.status === 'blocked'), 30_000);
    fs.writeFileSync(missed, missedBefore);
    fs.rmSync(path.dirname(link), { recursive: true, force: true });
  });
});

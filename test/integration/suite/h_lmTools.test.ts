// Waymark's language-model tools in the real extension host: the same table as the MCP server,
// over the extension's core, its unsaved editors and its trust.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { demo, ready, snap, testApi, waitFor, workspaceRoot } from '../helpers';

const FILE = 'workflows/lm-tools-fixture.md';
const TEXT = '---\nworkflow: lm-fixture\nstatus: in_progress\nsteps: [one, two, three]\ncurrentStep: one\nstepsCompleted: []\n---\n\n# Fixture for the language-model tools\n\nBody.\n';

/**
 * Through `vscode.lm.invokeTool`, as an agent in chat calls it (code-server 4.100.3 lets an
 * extension invoke a registered tool without a chat token; no confirmation is asked then).
 */
async function invoke(name: string, input: Record<string, unknown>): Promise<{ via: string; data: any }> {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  return { via: 'lm.invokeTool', data: JSON.parse(text) };
}

suite('language-model tools', () => {
  suiteSetup(async () => {
    await ready();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.writeFileSync(demo(FILE), TEXT);
    await waitFor('the fixture in the model', async () => (await snap()).states.some((s) => s.file === demo(FILE)));
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(demo(FILE), { force: true });
  });

  test('every tool of the table is contributed and registered', async () => {
    const ext = vscode.extensions.getExtension('waymark.waymark')!;
    const pkg = JSON.parse(fs.readFileSync(path.join(ext.extensionPath, 'package.json'), 'utf8'));
    const contributed = (pkg.contributes.languageModelTools as { name: string }[]).map((t) => t.name);
    assert.ok(contributed.length >= 8, contributed.join(', '));
    const registered = new Set(vscode.lm.tools.map((t) => t.name));
    const want = vscode.workspace.isTrusted ? contributed : (pkg.contributes.languageModelTools as { name: string; when?: string }[]).filter((t) => !t.when).map((t) => t.name);
    for (const n of want) assert.ok(registered.has(n), `${n} is in vscode.lm.tools (${[...registered].join(', ')})`);
  });

  test('waymark_next and waymark_board answer from the extension\'s project view', async () => {
    const n = (await invoke('waymark_next', {})).data;
    assert.ok(Array.isArray(n.ready), JSON.stringify(n).slice(0, 300));
    assert.ok(n.ready.every((e: { column: string }) => e.column === 'ready'));
    const b = (await invoke('waymark_board', { column: 'inProgress' })).data;
    // One folder: paths relative to it; several: absolute (as every tool answers).
    assert.ok(b.items.some((e: { file: string }) => e.file === FILE || e.file === demo(FILE)), JSON.stringify(b).slice(0, 500));
    assert.equal(b.counts.inProgress, b.total);
  });

  test('waymark_status through vscode.lm.invokeTool reads the extension\'s model', async () => {
    const r = await invoke('waymark_status', { file: FILE });
    assert.equal(r.data.workflow, 'lm-fixture');
    assert.equal(r.data.currentStep, 'one');
    assert.match(r.data.stateHash, /^[0-9a-f]{64}$/);
    const outside = await invoke('waymark_status', { file: '../../etc/passwd' });
    assert.equal(outside.data.error.reason, 'usage');
    assert.match(outside.data.error.message, /outside the workspace/);
  });

  if (vscode.workspace.isTrusted && (vscode.workspace.workspaceFolders?.length ?? 0) === 1) {
    test('a write tool respects an unsaved editor exactly as the commands do: the edit goes into the buffer, not behind it', async () => {
      const uri = vscode.Uri.file(demo(FILE));
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      await editor.edit((e) => e.insert(new vscode.Position(editor.document.lineCount - 1, 0), 'Unsaved note.\n'));
      assert.equal(editor.document.isDirty, true);
      const before = (await invoke('waymark_status', { file: FILE })).data;
      const r = await invoke('waymark_advance', { file: FILE, expectHash: before.stateHash, actor: 'copilot' });
      assert.equal(r.data.error, undefined, JSON.stringify(r.data));
      assert.equal(r.data.appliedToEditor, true);
      assert.equal(r.data.after.currentStep, 'two');
      assert.equal(fs.readFileSync(demo(FILE), 'utf8'), TEXT, 'the file on disk is untouched');
      assert.match(editor.document.getText(), /stepsCompleted: \[one\]/);
      assert.match(editor.document.getText(), /Unsaved note\./, 'the unsaved text is kept');
      await vscode.commands.executeCommand('workbench.action.files.revert');
      // Saved: a stale hash is a conflict with the CLI's reason and advice.
      const stale = await invoke('waymark_advance', { file: FILE, expectHash: 'f'.repeat(64) });
      assert.equal(stale.data.error.reason, 'conflict');
      assert.equal(stale.data.error.exitCode, 3);
      const ok = await invoke('waymark_advance', { file: FILE });
      assert.equal(ok.data.appliedToEditor, false);
      assert.match(fs.readFileSync(demo(FILE), 'utf8'), /stepsCompleted: \[one\]/);
    });

    test('"Add MCP Server to .vscode/mcp.json" adds the waymark server and keeps the others', async () => {
      const file = path.join(workspaceRoot(), '.vscode', 'mcp.json');
      const had = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ servers: { other: { type: 'stdio', command: 'other-server' } }, inputs: [] }, null, 2));
      try {
        const written = await vscode.commands.executeCommand<string>('waymark.mcp.addToWorkspace', workspaceRoot());
        assert.equal(written, file);
        const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
        assert.deepEqual(doc.servers.other, { type: 'stdio', command: 'other-server' });
        assert.deepEqual(doc.inputs, []);
        assert.equal(doc.servers.waymark.type, 'stdio');
        assert.deepEqual(doc.servers.waymark.args.slice(1), ['mcp', '--root', '${workspaceFolder}']);
        assert.ok(fs.existsSync(doc.servers.waymark.args[0]), 'points at the bundled CLI');
        fs.writeFileSync(file, '{ // a comment\n "servers": {} }');
        assert.equal(await vscode.commands.executeCommand('waymark.mcp.addToWorkspace', workspaceRoot()), undefined);
        assert.equal(fs.readFileSync(file, 'utf8'), '{ // a comment\n "servers": {} }', 'a JSONC file is not rewritten');
      } finally {
        if (had === undefined) fs.rmSync(path.dirname(file), { recursive: true, force: true });
        else fs.writeFileSync(file, had);
      }
    });
  }

  if (!vscode.workspace.isTrusted) {
    test('Restricted Mode: write tools refuse with reason unavailable, read tools answer', async () => {
      const before = fs.readFileSync(demo(FILE), 'utf8');
      const w = await (await testApi()).invokeTool('waymark_advance', { file: FILE });
      assert.equal(JSON.parse(w!).error.reason, 'unavailable');
      assert.match(JSON.parse(w!).error.message, /not trusted/);
      const rec = await (await testApi()).invokeTool('waymark_memory_record', { type: 'learning', text: 'x' });
      assert.equal(JSON.parse(rec!).error.reason, 'unavailable');
      // Read tools stay offered in Restricted Mode, through the chat's own entry point.
      const r = await invoke('waymark_summary', {});
      assert.ok(r.data.counts.workflows > 0);
      assert.equal(fs.readFileSync(demo(FILE), 'utf8'), before);
    });
  }
});

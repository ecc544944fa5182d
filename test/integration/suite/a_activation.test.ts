import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, ready, snap } from '../helpers';

suite('activation and contributions', () => {
  test('activates on the demo workspace and scans it after activation', async () => {
    const s = await ready();
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
    assert.ok(s.states.length >= 8, `expected the demo's workflows, got ${s.states.length}`);
    assert.equal(s.canWrite, true);
  });

  test('every command in package.json is registered and every view is declared', async () => {
    await ready();
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const pkg = JSON.parse(fs.readFileSync(path.join(ext.extensionPath, 'package.json'), 'utf8'));
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = (pkg.contributes.commands as { command: string }[]).map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
    const views = (pkg.contributes.views.waymark as { id: string }[]).map((v) => v.id);
    assert.deepEqual(views, ['waymark.workflows', 'waymark.gates', 'waymark.delegation', 'waymark.memory']);
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  test('the snapshot hook answers', async () => {
    const s = await snap();
    assert.ok(Array.isArray(s.workflows));
  });
});

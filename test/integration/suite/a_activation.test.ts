import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, ready, snap } from '../helpers';
import { COMMAND_CATEGORY, COMMAND_DECLS, VIEWS } from '../../../src/extension/constants';

suite('activation and contributions', () => {
  test('activates on the demo workspace and scans it after activation', async () => {
    const s = await ready();
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
    assert.ok(s.states.length >= 8, `expected the demo's workflows, got ${s.states.length}`);
    assert.equal(s.canWrite, vscode.workspace.isTrusted);
  });

  test('every command in package.json is registered and every view is declared', async () => {
    await ready();
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const pkg = JSON.parse(fs.readFileSync(path.join(ext.extensionPath, 'package.json'), 'utf8'));
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = (pkg.contributes.commands as { command: string }[]).map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
    // Declared once in constants.ts and once in package.json, with the same title and category.
    const inPackage = (pkg.contributes.commands as { command: string; title: string; category?: string; enablement?: string }[]).map((c) => [c.command, c.title, c.category]);
    const inConstants = Object.values(COMMAND_DECLS).map((d) => [d.id, d.title, COMMAND_CATEGORY]);
    assert.deepEqual(inPackage, inConstants, 'package.json contributes.commands = constants.ts COMMAND_DECLS, in order');
    // Menus and palette grey out in Restricted Mode what the runner refuses there.
    for (const c of pkg.contributes.commands as { command: string; enablement?: string }[]) {
      const decl = Object.values(COMMAND_DECLS).find((d) => d.id === c.command)!;
      assert.equal(c.enablement === 'waymark.canWrite', decl.access !== 'read', `${c.command}: enablement matches access ${decl.access}`);
    }
    const views = (pkg.contributes.views.waymark as { id: string }[]).map((v) => v.id);
    assert.deepEqual(views, Object.values(VIEWS));
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  test('the snapshot hook answers', async () => {
    const s = await snap();
    assert.ok(Array.isArray(s.workflows));
  });
});

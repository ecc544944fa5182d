import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, ready, snap } from '../helpers';
import { COMMANDS, MCP_COMMANDS, MEMORY_COMMANDS, PROTOCOL_COMMANDS, VIEWS } from '../../../src/extension/constants';

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
    const declared = new Set((pkg.contributes.commands as { command: string }[]).map((c) => c.command));
    const undeclared = [...Object.values(COMMANDS), ...Object.values(MEMORY_COMMANDS), ...Object.values(PROTOCOL_COMMANDS), ...Object.values(MCP_COMMANDS)].filter((c) => !declared.has(c));
    assert.deepEqual(undeclared, [], 'every command id in constants.ts is declared in package.json');
    for (const c of pkg.contributes.commands as { command: string; category?: string }[]) assert.equal(c.category, 'Waymark', c.command);
    const views = (pkg.contributes.views.waymark as { id: string }[]).map((v) => v.id);
    assert.deepEqual(views, Object.values(VIEWS));
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  test('the snapshot hook answers', async () => {
    const s = await snap();
    assert.ok(Array.isArray(s.workflows));
  });
});

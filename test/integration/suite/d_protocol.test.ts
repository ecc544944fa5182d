import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { acquireLease } from '../../../src/core/protocol/leases';
import * as vscode from 'vscode';
import { demo, read, ready, snap, workspaceRoot, singleRoot } from '../helpers';

singleRoot('protocol: checkpoints and leases', () => {
  suiteSetup(async () => {
    await ready();
  });

  test('create checkpoint saves every workflow of the folder', async () => {
    const cp = await vscode.commands.executeCommand<{ id: string; workflows: unknown[] }>('waymark.checkpoint.create', { message: 'before release', quiet: true });
    assert.ok(cp, 'the command returned a checkpoint');
    assert.ok(cp.workflows.length >= 8, `${cp.workflows.length} workflows`);
    const dir = demo('.waymark/checkpoints');
    assert.ok(fs.readdirSync(dir).some((f) => f.startsWith(cp.id)), `${cp.id} in ${dir}`);
  });

  test("another agent's lease refuses our writes until we take it over", async () => {
    const rel = 'workflows/delegated/auth-fixtures.md';
    const file = demo(rel);
    await acquireLease(workspaceRoot(), file, { agent: 'other-agent', host: os.hostname(), pid: 0 });
    const before = read(rel);
    assert.equal(await vscode.commands.executeCommand('waymark.setScope', { file, scope: 'medium', quiet: true }), undefined);
    const s = await snap();
    assert.equal(s.lastError?.reason, 'locked', JSON.stringify(s.lastError));
    assert.match(s.lastError?.message ?? '', /locked by other-agent/);
    assert.equal(read(rel), before);
    const taken = await vscode.commands.executeCommand<{ previous?: { owner: { agent: string } } }>('waymark.lease.takeOver', { file, reason: 'agent stalled', quiet: true });
    assert.equal(taken?.previous?.owner.agent, 'other-agent');
    assert.ok(await vscode.commands.executeCommand('waymark.setScope', { file, scope: 'medium', quiet: true }), JSON.stringify((await snap()).lastError));
    assert.match(read(rel), /scope: medium/);
    const released = await vscode.commands.executeCommand<{ released: boolean }>('waymark.lease.release', { file, quiet: true });
    assert.equal(released?.released, true);
  });
});

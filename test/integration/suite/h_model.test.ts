// One model, one answer: the Resume command answers exactly as `waymark resume FILE --json` on
// the same workspace (all three tiers), and the documented `memory:` block of
// `.waymark/config.yaml` is not reported as an unknown setting in the Problems panel.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, demo, ready, singleRoot, snap, waitFor, workspaceRoot } from '../helpers';

/** Runs the built CLI of this extension as a separate process, as an agent or a hook would. */
function cli(...args: string[]): string {
  const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
  return execFileSync(process.execPath, [path.join(ext.extensionPath, 'dist', 'cli.js'), ...args], {
    cwd: workspaceRoot(),
    encoding: 'utf8',
    // Under @vscode/test-electron the host's execPath is Electron: make it behave as node.
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    timeout: 30_000,
  });
}

function configDiagnostics(): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(vscode.Uri.file(demo('.waymark/config.yaml'))).filter((d) => d.source === 'waymark');
}

const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' && d.code ? String(d.code.value) : String(d.code));

singleRoot('one model, one answer', () => {
  suiteSetup(async () => {
    await ready();
  });

  test('the Resume command answers exactly as `waymark resume FILE --json`, from every tier', async () => {
    // A checkpoint makes tier 2 answer too: a frontmatter-only resume would now differ.
    assert.ok(await vscode.commands.executeCommand('waymark.checkpoint.create', { message: 'resume parity', quiet: true }), JSON.stringify((await snap()).lastError));
    for (const rel of ['workflows/auth-refactor.md', 'workflows/billing-migration.md', '_bmad-output/planning-artifacts/prd.md']) {
      const file = demo(rel);
      const fromCommand = await vscode.commands.executeCommand<{ sources: unknown[]; degradation: string }>('waymark.resume', { file, quiet: true });
      assert.ok(fromCommand, `${rel}: ${JSON.stringify((await snap()).lastError)}`);
      const fromCli = JSON.parse(cli('resume', file, '--json'));
      assert.deepEqual(JSON.parse(JSON.stringify(fromCommand)), fromCli, rel);
      assert.ok(fromCommand.sources.length >= 2, `${rel}: frontmatter and checkpoint both answer (${fromCommand.degradation})`);
    }
  });

  test('the status bar shows the same resume answer as the command', async () => {
    const file = demo('workflows/auth-refactor.md');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(file)));
    const r = await vscode.commands.executeCommand<{ tier: number; source: string; degradation: string }>('waymark.resume', { file, quiet: true });
    assert.ok(r);
    const bar = await waitFor('the status bar resume line', async () => {
      const s = (await snap()).statusBar;
      return s.file === file && /degradation/.test(s.tooltip ?? '') ? s : undefined;
    });
    const plain = (bar.tooltip ?? '').replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
    assert.match(plain, new RegExp(`tier ${r.tier} \\(${r.source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) · degradation \\*\\*${r.degradation}\\*\\*`));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('the memory: block in .waymark/config.yaml raises no config-unknown-key; a misspelt key does', async () => {
    const config = demo('.waymark/config.yaml');
    const before = fs.readFileSync(config, 'utf8');
    try {
      // A key the schema does not know is reported (so the check below can fail)…
      fs.writeFileSync(config, `${before.trimEnd()}\nmemroy:\n  engine: journal\n`);
      await waitFor('config-unknown-key for the misspelt key', () => configDiagnostics().some((d) => codeOf(d) === 'config-unknown-key' && /memroy/.test(d.message)), 15_000);
      // …and the documented memory block is not.
      fs.writeFileSync(config, `${before.trimEnd()}\nmemory:\n  engine: journal\n`);
      await waitFor('the misspelt key to be forgotten', () => !configDiagnostics().some((d) => /memroy/.test(d.message)), 15_000);
      const unknown = configDiagnostics().filter((d) => codeOf(d) === 'config-unknown-key');
      assert.deepEqual(unknown.map((d) => d.message), [], 'memory: is a documented setting');
    } finally {
      fs.writeFileSync(config, before);
    }
    await waitFor('the config as it was', async () => !configDiagnostics().length && (await snap()).states.length > 0, 15_000);
  });
});

// Work set aside or finished where the project reads it (core/project/standing.ts), in a real VS
// Code: a workflow kept in `archive/` or archived under a dated name is grouped Archived in the
// Workflows view, never picked by the status bar as work in progress, badged archived in the
// explorer, offered no step by its code lens; a BMAD spec of an epic moves to Completed once the ledger marks the epic done. The
// board (`waymark next`, the dashboard) reads the same decision.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, demo, find, ready, screenshot, singleRoot, snap, waitFor, type Snapshot, type TreeSnap } from '../helpers';

const IMPL = '_bmad-output/implementation-artifacts';

/** A Waymark workflow in progress, updated later than every demo workflow (the status bar's pick). */
const rollout = (id: string) => `---\nworkflow: ${id}\nstatus: in_progress\nsteps: [plan, ship]\ncurrentStep: ship\nstepsCompleted: [plan]\nupdatedAt: 2099-01-01T00:00:00Z\n---\n# ${id}\n`;

const group = (s: Snapshot, label: string): TreeSnap[] => s.workflows.find((g) => g.label === label)?.children ?? [];

singleRoot('standing: set-aside and finished work', () => {
  const written: string[] = [];
  const write = (rel: string, text: string) => {
    const file = demo(rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    written.push(file);
  };

  suiteSetup(async () => {
    await ready();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  suiteTeardown(async () => {
    for (const f of written.reverse()) fs.rmSync(f, { recursive: true, force: true });
    await waitFor('the written files gone from the model', async () => !(await snap()).states.some((s) => written.includes(s.file)), 15_000);
  });

  test('a workflow kept in archive/ or archived under a dated name is grouped Archived, and the status bar passes over it', async () => {
    write('workflows/archive/old-rollout.md', rollout('old-rollout'));
    write('workflows/rollout-archived-2026-04-12.md', rollout('dated-rollout'));
    write('workflows/live-rollout.md', rollout('live-rollout').replace('2099-01-01', '2098-01-01'));
    const s = await waitFor('the archived group to list both', async () => {
      const x = await snap();
      const archived = group(x, 'Archived').map((n) => n.label);
      return archived.includes('old-rollout') && archived.includes('dated-rollout') ? x : undefined;
    }, 20_000);
    const inProgress = group(s, 'In progress').map((n) => n.label);
    assert.ok(!inProgress.includes('old-rollout') && !inProgress.includes('dated-rollout'), inProgress.join(', '));
    assert.ok(inProgress.includes('live-rollout'), inProgress.join(', '));
    assert.match(find(s.workflows, 'old-rollout')?.description ?? '', /^1\/2 · set aside: kept in archive\/ for the record$/);
    assert.match(find(s.workflows, 'dated-rollout')?.description ?? '', /set aside: archived under a dated name/);
    assert.equal(find(s.workflows, 'old-rollout')?.icon, 'archive');
    assert.equal(s.fileBadges[demo('workflows/archive/old-rollout.md')], '▪', 'the explorer badge is archived');
    // No editor open: the most recently updated workflow in progress, which the archived ones are not.
    const bar = await waitFor('the status bar on live-rollout', async () => {
      const x = await snap();
      return x.statusBar.text.includes('live-rollout') ? x.statusBar : undefined;
    });
    assert.match(bar.text, /live-rollout · ship · 1\/2/);
    // What a person sees: the Workflows view and the status bar.
    await vscode.commands.executeCommand('waymark.workflows.focus');
    await screenshot('standing-archived');
    // Opened in the editor, an archived workflow says it is set aside, not its step.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(demo('workflows/archive/old-rollout.md'))));
    const open = await waitFor('the status bar on old-rollout', async () => {
      const x = await snap();
      return x.statusBar.text.includes('old-rollout') ? x.statusBar : undefined;
    });
    assert.equal(open.text, '$(archive) old-rollout · set aside · 1/2');
    assert.match(open.tooltip ?? '', /set aside: kept in archive\/ for the record/);
    // Its code lens offers no step to resume or complete: it says why.
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', vscode.Uri.file(demo('workflows/archive/old-rollout.md')), 10);
    assert.deepEqual((lenses ?? []).map((l) => l.command?.title), ['old-rollout · set aside: kept in archive/ for the record · 1/2']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a BMAD spec of an epic moves to Completed when the ledger marks the epic done', async () => {
    const fixture = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'test', 'fixtures', 'bmad-v6', '_bmad-output', 'implementation-artifacts');
    for (const name of ['sprint-status.yaml', '1-1-user-login.md', '1-2-account-settings.md', '1-3-password-reset.md']) write(`${IMPL}/${name}`, fs.readFileSync(path.join(fixture, name), 'utf8'));
    write(`${IMPL}/prd-login-hardening.md`, "---\nworkflowType: 'prd'\nepic: 1\nstatus: in-progress\nstepsCompleted:\n  - step-01-init\n---\n# Login hardening\n");
    const inProgress = await waitFor('the spec in progress while epic 1 is', async () => {
      const x = await snap();
      return group(x, 'In progress').some((n) => n.label === 'prd-login-hardening') ? x : undefined;
    }, 20_000);
    assert.ok(!group(inProgress, 'Completed').some((n) => n.label === 'prd-login-hardening'));
    const ledger = demo(`${IMPL}/sprint-status.yaml`);
    fs.writeFileSync(ledger, fs.readFileSync(ledger, 'utf8').replace('epic-1: in-progress', 'epic-1: done'));
    const done = await waitFor('the spec completed once epic 1 is done', async () => {
      const x = await snap();
      return group(x, 'Completed').some((n) => n.label === 'prd-login-hardening') ? x : undefined;
    }, 30_000);
    assert.ok(!group(done, 'In progress').some((n) => n.label === 'prd-login-hardening'));
    assert.match(find(done.workflows, 'prd-login-hardening')?.description ?? '', /finished: epic 1 is done in the sprint ledger/);
  });
});

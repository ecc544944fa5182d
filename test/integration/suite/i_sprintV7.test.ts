// BMAD v7's ticket tree in a real VS Code: the fixture test/fixtures/bmad-v7-sprint (a migrated
// project: three epics, every plan status, a blocked ticket with its reason, tickets waiting on
// another epic and on an epic gate, a backlog leaf, archive-v6) is written into the demo
// workspace, then the Sprint view, status bar, diagnostics, hovers, the set-status command and the
// dashboard are checked against real files.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, clickView, demo, flatten, hoverText, ready, resizeView, screenshot, singleRoot, sleep, testApi, waitFor, workspaceRoot, type TreeSnap } from '../helpers';

interface TreeSnapV7 {
  root: string;
  next: Record<string, { ref: string; waitingOn: string[] }[]>;
  tickets: { ref: string; state: string; status: string; assignee: string; blockedReason: string; description: string }[];
  problems: { file: string; line: number; code: string; message: string }[];
}
interface SprintSnap {
  reports: { root: string; history: boolean }[];
  trees: TreeSnapV7[];
  statusBar: string;
}

const INIT = '_bmad-output/initiative-checkout';
const sprintSnap = async (): Promise<SprintSnap> => (await testApi()).sprint() as unknown as SprintSnap;
const ticket = (s: SprintSnap, ref: string) => s.trees[0]?.tickets.find((t) => t.ref === ref);
const row = (nodes: TreeSnap[], label: string) => flatten(nodes).find((n) => n.label === label);

singleRoot('BMAD v7 ticket tree', () => {
  const written: string[] = [];

  suiteSetup(async () => {
    await ready();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const fixture = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'test', 'fixtures', 'bmad-v7-sprint');
    // The demo's own _bmad/ (an installed v6 method) gets the v7 config layers beside it.
    for (const rel of ['_bmad/config.toml', '_bmad/custom', '_bmad-output/backlog', INIT]) {
      const to = demo(rel);
      fs.cpSync(path.join(fixture, rel), to, { recursive: true });
      written.push(to);
    }
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const p of written) fs.rmSync(p, { recursive: true, force: true });
  });

  test('the Sprint view: next, then initiative → epics → tickets with state, plan status, assignee, blocked reason and what each waits on', async () => {
    const s = await waitFor('the tree to be read', async () => {
      const x = await sprintSnap();
      return ticket(x, '2.2') ? x : undefined;
    }, 20_000);
    const t = s.trees[0];
    assert.deepEqual(t.next.readyToStart.map((i) => i.ref), ['1.6']);
    assert.deepEqual(t.next.readyToRefine.map((i) => i.ref), ['1.4']);
    assert.deepEqual(t.next.inProgress.map((i) => i.ref), ['1.2', '1.3', '2.1']);
    assert.deepEqual(t.next.blocked.find((i) => i.ref === '2.4')?.waitingOn, ['2.3', '1.4']);
    assert.deepEqual(t.next.blocked.find((i) => i.ref === '3.1')?.waitingOn, ['epic-payments']);
    // A migrated project: the archived ledger is no live sprint.
    assert.ok(!s.reports.some((r) => !r.history), JSON.stringify(s.reports));

    const nodes = await (await testApi()).sprintTree();
    const labels = nodes.map((n) => n.label);
    assert.equal(labels[0], 'Next: start 1.6 Quantity stepper');
    assert.equal(labels[1], 'Checkout');
    assert.equal(labels[2], 'History: the v6 sprint (archive-v6)');
    assert.equal(labels.length, 3, `no v6 epic beside the tree: ${JSON.stringify(labels)}`);
    const initiative = nodes[1];
    assert.deepEqual(initiative.children?.map((n) => n.label), ['Epic 1: Cart', 'Epic 2: Payments', 'Epic 3: Receipts', 'Backlog']);
    const payments = initiative.children![1];
    assert.match(payments.description ?? '', /^in-progress · 0\/5 done · 1 blocked · after Cart/);
    const blocked = row(payments.children!, '2.2 3-D Secure challenge')!;
    assert.equal(blocked.description, "blocked · @chloe · waiting on the bank's sandbox keys · waits on 2.1");
    assert.equal(blocked.icon, 'circle-slash');
    assert.match(blocked.tooltip ?? '', /since 2026-11-20/);
    assert.equal(row(payments.children!, '2.4 Refunds')!.description, 'planned · waits on 2.3, 1.4');
    assert.equal(row(payments.children!, '2.4 Refunds')!.icon, 'watch');
    assert.equal(row(payments.children!, '2.1 Card form')!.description, 'in-progress · @ben');
    assert.equal(row(initiative.children![0].children!, '1.3 Price rounding rules')!.description, 'review · plan built · @ben');
    // The migration check: the archived ledger's `drafted` maps to ready-for-dev; the plan says draft.
    assert.equal(row(payments.children!, '2.5 Payment error messages')!.description, 'backlog · plan draft · waits on 2.1 · ⚠ 1');
    assert.equal(row(initiative.children![2].children!, '3.1 Email receipt')!.description, 'planned · waits on epic-payments');
    assert.match(initiative.children![2].description ?? '', /gated by epic-payments/);
    const history = nodes[2];
    assert.match(history.description ?? '', /read-only · 11 stories · ⚠ 1 migration finding/);
    assert.equal(history.children?.[0].label, 'sprint-status.yaml');
  });

  test('the status bar shows the ticket being built; a plan open in the editor shows its own ticket', async () => {
    const s = await waitFor('the status bar', async () => {
      const x = await sprintSnap();
      return x.statusBar.includes('2.1') ? x : undefined;
    });
    assert.match(s.statusBar, /2\.1 Card form · in-progress · @ben/);
    const plan = vscode.Uri.file(demo(`${INIT}/epic-payments/story-3-d-secure-challenge-plan.md`));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(plan));
    await waitFor('the status bar to follow the editor', async () => /2\.2 3-D Secure challenge · blocked · @chloe/.test((await sprintSnap()).statusBar));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('the tree\'s problems on the exact file and line, with a hover naming the ticket; gone once fixed', async () => {
    const toml = demo(`${INIT}/epic-receipts/tickets.toml`);
    const uri = vscode.Uri.file(toml);
    const before = fs.readFileSync(toml, 'utf8');
    const line = before.split('\n').indexOf('after = [1]');
    assert.ok(line > 0);
    fs.writeFileSync(toml, before.replace('after = [1]', 'after = [9]'));
    try {
      const d = await waitFor('the unknown-after diagnostic', () => vscode.languages.getDiagnostics(uri).find((x) => x.code === 'tree-after-unknown'), 15_000);
      assert.equal(d.range.start.line, line);
      assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
      assert.match(d.message, /after 9 names no entry in epic-receipts/);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      const hover = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 3)));
      assert.match(hover, /3\.2 Receipt PDF/);
      assert.match(hover, /tree-after-unknown/);
    } finally {
      fs.writeFileSync(toml, before);
    }
    await waitFor('the diagnostic to go', () => !vscode.languages.getDiagnostics(uri).some((x) => x.code === 'tree-after-unknown'), 15_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a tree moved into place as one folder is read, and an edit in one of its epic folders reaches the Problems panel', async () => {
    // VS Code reports a folder moved in as one event (not its files), and its recursive watcher
    // never watches the folders inside it: without watchers of its own the view would miss both.
    const init = demo(INIT);
    const fixture = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'test', 'fixtures', 'bmad-v7-sprint', INIT);
    const staged = path.join(path.dirname(workspaceRoot()), `staged-initiative-${process.pid}`);
    const toml = path.join(init, 'epic-receipts', 'tickets.toml');
    const uri = vscode.Uri.file(toml);
    try {
      fs.rmSync(init, { recursive: true, force: true });
      await waitFor('the tree to go', async () => !ticket(await sprintSnap(), '3.2'), 15_000);
      fs.cpSync(fixture, staged, { recursive: true });
      fs.renameSync(staged, init);
      await waitFor('the moved-in tree to be read', async () => !!ticket(await sprintSnap(), '3.2'), 15_000);
      const before = fs.readFileSync(toml, 'utf8');
      fs.writeFileSync(toml, before.replace('after = [1]', 'after = [9]'));
      const d = await waitFor('the unknown-after diagnostic in the moved-in epic folder', () => vscode.languages.getDiagnostics(uri).find((x) => x.code === 'tree-after-unknown'), 15_000);
      assert.equal(d.range.start.line, before.split('\n').indexOf('after = [1]'));
    } finally {
      // The fixture as the next tests expect it, whatever happened above.
      if (fs.existsSync(staged)) fs.rmSync(staged, { recursive: true, force: true });
      fs.rmSync(init, { recursive: true, force: true });
      fs.cpSync(fixture, init, { recursive: true });
    }
    await waitFor('the diagnostic to go', () => !vscode.languages.getDiagnostics(uri).some((x) => x.code === 'tree-after-unknown'), 15_000);
  });

  test('a migration finding on the plan\'s status line; its quick fix sets the status BMAD\'s mapping gives, through the plan write', async () => {
    const file = demo(`${INIT}/epic-payments/story-payment-error-messages-plan.md`);
    const plan = vscode.Uri.file(file);
    const m = await waitFor('the migration finding', () => vscode.languages.getDiagnostics(plan).find((x) => x.code === 'migrate-status-mismatch'));
    assert.equal(m.range.start.line, 4);
    assert.equal(m.severity, vscode.DiagnosticSeverity.Warning);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(plan));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', plan, m.range);
    const fix = actions.find((a) => a.title.startsWith('Set 2.5 to ready-for-dev'));
    assert.ok(fix?.command, JSON.stringify(actions.map((a) => a.title)));
    await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    assert.match(fs.readFileSync(file, 'utf8'), /^status: ready-for-dev$/m);
    await waitFor('the finding to go', () => !vscode.languages.getDiagnostics(plan).some((x) => x.code === 'migrate-status-mismatch'), 15_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Set Ticket Status writes the plan (created when there is none, blocked with its reason); the view follows', async () => {
    const created = demo(`${INIT}/epic-cart/story-quantity-stepper-plan.md`);
    assert.equal(fs.existsSync(created), false);
    const r = await vscode.commands.executeCommand<{ ref: string; status: string; created: boolean }>('waymark.ticket.setStatus', { ref: '1.6', status: 'in-progress' });
    assert.equal(r?.created, true, JSON.stringify(r));
    assert.match(fs.readFileSync(created, 'utf8'), /^ticket: 6$/m);
    assert.match(fs.readFileSync(created, 'utf8'), /^status: in-progress$/m);
    await vscode.commands.executeCommand('waymark.ticket.setStatus', { ref: '1.6', status: 'blocked', blocked: 'needs the design of the stepper' });
    assert.match(fs.readFileSync(created, 'utf8'), /^blocked_reason: "needs the design of the stepper"$/m);
    const s = await waitFor('the view to follow', async () => {
      const x = await sprintSnap();
      return ticket(x, '1.6')?.status === 'blocked' ? x : undefined;
    });
    assert.equal(ticket(s, '1.6')!.description, 'blocked · needs the design of the stepper');
  });

  test('the dashboard shows the tickets by column, with assignee and blocked reason', async () => {
    await vscode.commands.executeCommand('waymark.openDashboard');
    const model = await waitFor('the dashboard model with tickets', async () => {
      const m = (await testApi()).dashboard().model;
      return m?.items['ticket:2.2'] ? m : undefined;
    }, 20_000);
    const blocked = model.items['ticket:2.2'];
    assert.equal(blocked.kind, 'ticket');
    assert.equal(blocked.state, 'blocked');
    assert.equal(blocked.assignee, 'chloe');
    assert.match(blocked.reason, /waiting on the bank's sandbox keys/);
    assert.equal(model.items['ticket:2.1'].state, 'in_progress');
    // Counted once: no story of the archived v6 ledger beside the tickets.
    assert.ok(!Object.keys(model.items).some((id) => id.startsWith('story:')), Object.keys(model.items).join(', '));
    await screenshot('sprint-v7-dashboard');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('screenshot: the Sprint view with a ticket\'s hover and the status bar', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    await vscode.commands.executeCommand('waymark.sprint.focus');
    for (const v of ['Workflows', 'Gates', 'Delegation']) await clickView(v);
    // Room for the rows' descriptions (state, plan status, assignee, reason, what it waits on).
    await resizeView('sidebar', 260);
    await sleep(300);
    const plan = vscode.Uri.file(demo(`${INIT}/epic-payments/story-3-d-secure-challenge-plan.md`));
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(plan));
    const at = new vscode.Position(4, 3);
    editor.selection = new vscode.Selection(at, at);
    await sleep(800);
    await vscode.commands.executeCommand('editor.action.showHover');
    await sleep(800);
    await screenshot('sprint-v7');
    await resizeView('sidebar', -260);
    for (const v of ['Workflows', 'Gates', 'Delegation']) await clickView(v);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

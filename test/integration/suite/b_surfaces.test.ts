import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { demo, find, hoverText, locate, read, ready, snap, waitFor, singleRoot } from '../helpers';

function diagnosticsOf(rel: string): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(vscode.Uri.file(demo(rel))).filter((d) => d.source === 'waymark');
}

function codeOf(d: vscode.Diagnostic): string {
  return typeof d.code === 'object' && d.code ? String(d.code.value) : String(d.code);
}

async function open(rel: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(demo(rel)));
  return vscode.window.showTextDocument(doc);
}

singleRoot('read surfaces', () => {
  suiteSetup(async () => {
    await ready();
  });

  test('diagnostics carry the exact range and code of each problem', async () => {
    const cases: [string, string, string][] = [
      ['workflows/release-notes.md', 'unknown-status', 'in-progess'],
      ['workflows/search-index.md', 'unknown-key-typo', 'stepCompleted'],
    ];
    for (const [rel, code, needle] of cases) {
      const d = await waitFor(`${code} in ${rel}`, () => diagnosticsOf(rel).find((x) => codeOf(x) === code));
      assert.deepEqual(d.range, locate(rel, needle), `${rel} ${code}`);
    }
    const depth = await waitFor('delegation-depth', () => diagnosticsOf('workflows/delegated/auth-fixture-data.md').find((x) => codeOf(x) === 'delegation-depth'));
    const line = locate('workflows/delegated/auth-fixture-data.md', 'depth: 2');
    assert.deepEqual(depth.range, new vscode.Range(line.start.line, line.start.character + 7, line.start.line, line.start.character + 8));
    assert.equal(depth.severity, vscode.DiagnosticSeverity.Error);
    assert.deepEqual(diagnosticsOf('workflows/onboarding-docs.md'), [], 'a clean file has no diagnostics');
  });

  test('the Workflows view groups by status and shows steps with their state', async () => {
    const s = await snap();
    const groups = s.workflows.map((g) => g.label);
    for (const g of ['In progress', 'Blocked', 'Created', 'Completed']) assert.ok(groups.includes(g), `group ${g} in ${groups.join(', ')}`);
    assert.ok(groups.indexOf('In progress') < groups.indexOf('Completed'));
    const auth = find(s.workflows, 'auth-refactor');
    assert.ok(auth, 'auth-refactor listed under its file name (its workflow id is shared)');
    assert.match(auth.description ?? '', /^2\/5 · implement/);
    assert.match(auth.contextValue ?? '', /^waymark\.workflow\.in_progress/);
    const steps = auth.children ?? [];
    assert.deepEqual(steps.map((x) => x.label), ['discovery', 'design', 'implement', 'review', 'release'].slice(0, steps.length));
    assert.equal(steps[0].icon, 'pass-filled');
    assert.match(steps[2].description ?? '', /current/);
    assert.equal(steps[2].icon, 'debug-stackframe');
    const blocked = s.workflows.find((g) => g.label === 'Blocked');
    assert.ok(find(blocked?.children, 'billing-migration'));
    const release = find(s.workflows, 'release-notes');
    assert.match(release?.description ?? '', /⚠/, 'problems are marked');
  });

  test('the Gates view lists each gated step with its verdict', async () => {
    const s = await snap();
    const auth = find(s.gates, 'auth-refactor');
    assert.ok(auth, JSON.stringify(s.gates.map((g) => g.label)));
    const labels = (auth.children ?? []).map((c) => c.label);
    assert.ok(labels.some((l) => l.startsWith('design: ')), labels.join(', '));
  });

  test('the Delegation view shows the chain three deep and the broken depth', async () => {
    const s = await snap();
    const root = s.delegation.find((n) => n.label === 'orchestrator');
    assert.ok(root, JSON.stringify(s.delegation.map((n) => n.label)));
    const tests = root.children?.find((n) => n.label === 'test-writer');
    const fixtures = tests?.children?.find((n) => n.label === 'fixture-builder');
    const data = fixtures?.children?.find((n) => n.label === 'data-generator');
    assert.ok(data, 'orchestrator → test-writer → fixture-builder → data-generator');
    assert.match(data.description ?? '', /depth should be 3/);
    assert.equal(data.icon, 'warning');
  });

  test('the status bar follows the active editor', async () => {
    await open('workflows/release-notes.md');
    const s = await waitFor('status bar on release-notes', async () => {
      const x = await snap();
      return x.statusBar.text.includes('release-notes') ? x : undefined;
    });
    assert.match(s.statusBar.text, /release-notes · write · 1\/3$/);
    assert.equal(s.statusBar.background, 'statusBarItem.errorBackground', 'an invalid workflow is shown in warning colours');
    assert.match(s.statusBar.tooltip ?? '', /command:waymark\.resume/);
    await open('workflows/delegated/auth-tests.md');
    const t = await waitFor('status bar on auth-tests', async () => {
      const x = await snap();
      return x.statusBar.text.includes('auth-tests') ? x : undefined;
    });
    assert.equal(t.statusBar.text, '$(milestone) auth-tests · write-tests · 1/3');
    assert.equal(t.statusBar.background, undefined);
  });

  test('hovers explain the state key under the cursor and a problem with its fix', async () => {
    const rel = 'workflows/auth-refactor.md';
    await open(rel);
    const key = locate(rel, 'currentStep');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', vscode.Uri.file(demo(rel)), key.start.translate(0, 2));
    const text = hoverText(hovers);
    assert.match(text, /Step \*\*implement( — [^*]+)?\*\*, 3 of 5: current/);
    assert.match(text, /Next to do: `implement`/);
    const bad = locate('workflows/release-notes.md', 'in-progess');
    const h2 = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', vscode.Uri.file(demo('workflows/release-notes.md')), bad.start.translate(0, 3));
    const t2 = hoverText(h2);
    assert.match(t2, /unknown-status/);
    assert.match(t2, /Fix: Set status to in_progress/);
    const dl = locate('workflows/delegated/auth-tests.md', 'parent_id');
    const h3 = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', vscode.Uri.file(demo('workflows/delegated/auth-tests.md')), dl.start.translate(0, 1));
    assert.match(hoverText(h3), /Delegated by `auth-refactor`/);
  });

  test('code lenses offer resume, complete and open step file', async () => {
    // The code lens command needs the document loaded in the workbench.
    await open('_bmad-output/planning-artifacts/prd.md');
    await open('workflows/release-notes.md');
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', vscode.Uri.file(demo('workflows/release-notes.md')), 10);
    const titles = (lenses ?? []).map((l) => l.command?.title ?? '');
    assert.ok(titles.some((t) => t.includes('Resume at write')), titles.join(' | '));
    assert.ok(titles.some((t) => t.includes('Complete write')), titles.join(' | '));
    const prd = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', vscode.Uri.file(demo('_bmad-output/planning-artifacts/prd.md')), 10);
    const prdTitles = (prd ?? []).map((l) => l.command?.title ?? '');
    assert.ok(prdTitles.some((t) => t.includes('Open step file')), prdTitles.join(' | '));
  });

  test('frontmatter decorations and Explorer badges', async () => {
    const rel = 'workflows/auth-refactor.md';
    await open(rel);
    const s = await waitFor('decorations', async () => {
      const x = await snap();
      return x.decorations[demo(rel)] ? x : undefined;
    });
    const d = s.decorations[demo(rel)];
    assert.equal(d.done, 2);
    assert.equal(d.current, 'implement');
    assert.ok(d.notes.some((n) => /step 3 of 5/.test(n)), d.notes.join(' | '));
    assert.equal(s.fileBadges[demo('workflows/onboarding-docs.md')], '✓');
    assert.equal(s.fileBadges[demo('workflows/billing-migration.md')], '⊘');
  });

  test('a quick fix from a problem rewrites only the broken value', async () => {
    const rel = 'workflows/release-notes.md';
    const before = read(rel);
    const range = locate(rel, 'in-progess');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', vscode.Uri.file(demo(rel)), range);
    const fix = (actions ?? []).find((a) => a.title === 'Set status to in_progress');
    assert.ok(fix?.command, (actions ?? []).map((a) => a.title).join(' | '));
    await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    const after = read(rel);
    assert.equal(after, before.replace('status: in-progess', 'status: in_progress'), 'only the status value changed');
    await waitFor('the unknown-status diagnostic to clear', () => !diagnosticsOf(rel).some((d) => codeOf(d) === 'unknown-status'));
  });

  test('the project view in the Problems panel: an unknown dependsOn target, then fixed', async () => {
    const rel = 'workflows/waits-on-ghost.md';
    const text = (dep: string) => `---\nworkflow: waits-on-ghost\nstatus: created\nstepsCompleted: []\ndependsOn:\n  - ${dep}\n---\n# Waits\n`;
    const fs = await import('node:fs');
    fs.writeFileSync(demo(rel), text('ghost-workflow'));
    try {
      const d = await waitFor('depends-unknown', () => diagnosticsOf(rel).find((x) => codeOf(x) === 'depends-unknown'));
      assert.equal(d.range.start.line, 5, 'on the entry that names nothing');
      assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
      assert.match(d.message, /'ghost-workflow'/);
      fs.writeFileSync(demo(rel), text('onboarding-docs'));
      await waitFor('depends-unknown to clear', () => !diagnosticsOf(rel).some((x) => codeOf(x) === 'depends-unknown'));
    } finally {
      fs.rmSync(demo(rel), { force: true });
    }
    await waitFor('the file gone from the model', async () => !(await snap()).states.some((s) => s.file === demo(rel)));
  });
});

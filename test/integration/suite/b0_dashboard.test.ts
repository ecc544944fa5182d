// The project dashboard in a real VS Code (runs early, on the demo as shipped; it puts back
// every file it changes): opened by its command on the demo workspace, drawn in
// its webview (the webview reports each paint with the text it shows), clicked with the mouse
// inside the webview's frame (the runner's `[waymark-click] … webview <selector>`), Start run
// through the same command as the tree, external edits followed live, then a BMAD sprint.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DashboardModel } from '../../../src/core/index';
import type { DashboardPaint } from '../../../src/extension/dashboard';
import { EXTENSION_ID, clickWebview, demo, locate, multiRoot, ready, screenshot, singleRoot, sleep, testApi, waitFor } from '../helpers';

interface DashSnap {
  open: boolean;
  model?: DashboardModel;
  version: number;
  paints: DashboardPaint[];
  actions: { action: string; id: string; ok: boolean; message?: string }[];
  project: { computations: number; ticks: number };
}

const dash = async (): Promise<DashSnap> => (await testApi()).dashboard() as DashSnap;

/** Waits for a paint after `after` (a paint count) whose model satisfies `ok`; returns it. */
async function paintWhere(after: number, ok: (m: DashboardModel, p: DashboardPaint) => boolean, what: string, timeoutMs = 20_000): Promise<{ model: DashboardModel; paint: DashboardPaint }> {
  return waitFor(what, async () => {
    const d = await dash();
    // The latest paint after `after`, of the latest model posted (not one still on its way).
    const p = d.paints.length > after ? d.paints[d.paints.length - 1] : undefined;
    return p && d.model && p.version === d.version && ok(d.model, p) ? { model: d.model, paint: p } : undefined;
  }, timeoutMs);
}

function column(m: DashboardModel, key: string): string[] {
  return m.columns.find((c) => c.key === key)?.items ?? [];
}

async function closeDashboard(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await waitFor('the dashboard to close', async () => !(await dash()).open, 10_000);
}

singleRoot('dashboard', () => {
  const restore: [string, string | undefined][] = [];
  const keep = (file: string) => restore.push([file, fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined]);

  suiteSetup(async () => {
    await ready();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  suiteTeardown(async () => {
    for (const [file, text] of restore.reverse()) {
      if (text === undefined) fs.rmSync(file, { recursive: true, force: true });
      else fs.writeFileSync(file, text);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The suites after this one see the demo as shipped.
    const api = await testApi();
    await waitFor('the demo back as shipped', () => (api.state(demo('workflows/search-index.md')) as { status?: string } | undefined)?.status === 'created' && !fs.readFileSync(demo('workflows/release-notes.md'), 'utf8').includes('blockedReason'), 15_000);
  });

  test('opens on the demo: the ready frontier in order, the stalled item with who and when, the timeline', async () => {
    const before = (await dash()).paints.length;
    await vscode.commands.executeCommand('waymark.openDashboard');
    const { model: m, paint } = await paintWhere(before, (x) => x.frontier.length > 0, 'the first paint', 30_000);
    assert.deepEqual([...m.frontier].sort(), ['auth-fixture-data', 'release-notes', 'search-index']);
    // auth-refactor's last recorded activity is its design gate's PASS (2026-11-21), past the demo's 12h.
    assert.deepEqual(m.stalled, ['auth-tests', 'workflows/auth-refactor.md']);
    const st = m.items['auth-tests'].stalled!;
    assert.equal(st.who, 'test-writer');
    assert.equal(st.source, 'history');
    assert.equal(st.lastActivity, '2026-11-12T15:41:00.000Z');
    assert.deepEqual(column(m, 'shipped'), ['onboarding-docs']);
    assert.ok(column(m, 'blocked').includes('workflows/billing-migration.md'));
    assert.ok(column(m, 'subagents').includes('auth-tests'));
    // The timeline: the demo's history (15 changes over 19 days, four of them recorded gate verdicts), one lane per item.
    assert.equal(m.timeline.total, 15);
    assert.equal(m.timeline.days[0].date, '2026-11-03');
    assert.equal(m.timeline.days.length, 19);
    assert.deepEqual(m.timeline.lanes.map((l) => l.id), ['workflows/auth-refactor.md', 'workflows/billing-migration.md', 'auth-tests', 'onboarding-docs']);
    // What the webview drew (its own text, reported after the paint).
    assert.match(paint.text, /Start next/);
    assert.match(paint.text, /Stalled[\s\S]*idle \d+ days/);
    assert.match(paint.text, /Timeline[\s\S]*15 state changes/);
    assert.match(paint.text, /▶ Start/);
    assert.ok(paint.cards >= 9, `cards drawn: ${paint.cards}`);
    await sleep(400);
    await screenshot('dashboard');
  });

  test('a click on a frontier item opens its file at the state line', async function () {
    const rel = 'workflows/search-index.md';
    if (!(await clickWebview('.p-frontier [data-open="search-index"]'))) this.skip();
    const editor = await waitFor('the file to open', () => {
      const e = vscode.window.visibleTextEditors.find((x) => x.document.uri.fsPath === demo(rel));
      return e;
    }, 15_000);
    assert.equal(editor.selection.active.line, locate(rel, 'status:').start.line);
    const a = (await dash()).actions.find((x) => x.action === 'open' && x.id === 'search-index');
    assert.equal(a?.ok, true);
  });

  test('keyboard: Enter on a focused item (a timeline swimlane) opens its file too', async function () {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('waymark.openDashboard');
    await paintWhere(0, (m) => m.timeline.lanes.some((l) => l.id === 'onboarding-docs'), 'the timeline');
    if (!(await clickWebview('.lane-label[data-open="onboarding-docs"]', 'Enter'))) this.skip();
    const rel = 'workflows/onboarding-docs.md';
    const editor = await waitFor('the file to open from the keyboard', () => vscode.window.visibleTextEditors.find((x) => x.document.uri.fsPath === demo(rel)), 15_000);
    assert.equal(editor.selection.active.line, locate(rel, 'status:').start.line);
  });

    test('Start runs the core mutation: the file on disk changes, and the dashboard follows', async function () {
    const file = demo('workflows/search-index.md');
    keep(file);
    keep(demo('.waymark/history/workflows/search-index.md.jsonl'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('waymark.openDashboard');
    const before = (await dash()).paints.length;
    await paintWhere(0, (m) => m.frontier.includes('search-index'), 'the frontier with search-index');
    if (!(await clickWebview('[data-start="search-index"]'))) this.skip();
    await waitFor('the status on disk', () => /^status: in_progress$/m.test(fs.readFileSync(file, 'utf8')), 15_000);
    // Written through the core: a history line by the start operation.
    const history = fs.readFileSync(demo('.waymark/history/workflows/search-index.md.jsonl'), 'utf8');
    assert.match(history, /"operation":"start"/);
    const { model, paint } = await paintWhere(before, (m) => !m.frontier.includes('search-index'), 'the dashboard to follow the start');
    assert.ok(column(model, 'active').includes('search-index'));
    assert.doesNotMatch(paint.text.split('Stalled')[0], /Search|search-index/);
  });

  test('an external edit shows up in the open dashboard without a command', async () => {
    const file = demo('workflows/release-notes.md');
    keep(file);
    // The test before wrote a workflow, its history and the events log: their watcher events may
    // still be on their way to the project view (history and events are activity). Let them land
    // first, so what is counted below is this edit's alone.
    await sleep(1500);
    const { paints: { length: before }, project: p0 } = await dash();
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('status: in-progess', 'status: blocked\nblockedReason: "waiting for the release date"'));
    const { model, paint } = await paintWhere(before, (m) => !m.frontier.includes('release-notes') && column(m, 'blocked').includes('release-notes'), 'the edit in the dashboard');
    assert.match(model.items['release-notes'].reason, /waiting for the release date/);
    assert.match(paint.text, /waiting for the release date/);
    // One project view for every surface: the dashboard drew the monitor's view, and the
    // monitor's own recompute after the burst settled (400 ms) found it fresh.
    await sleep(1500);
    const p1 = (await dash()).project;
    assert.equal(p1.computations - p0.computations - (p1.ticks - p0.ticks), 1, `project computations for one edit: ${JSON.stringify([p0, p1])}`);
  });

  test('the view keeps its place: a model update does not scroll the panel back to the top', async function () {
    if (!(await clickWebview('.p-board [data-open="onboarding-docs"]'))) this.skip();
    // The click scrolled the board into view; now an update comes in.
    const file = demo('workflows/release-notes.md');
    const before = (await dash()).paints.length;
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('waiting for the release date', 'waiting for the release date (again)'));
    const { paint } = await paintWhere(before, (m) => /again/.test(m.items['release-notes']?.reason ?? ''), 'the second edit');
    // Redrawn where the reader was: the board, far below the top (a reset would report 0).
    assert.ok(paint.scrollY > 300, `scrolled to ${paint.scrollY} after the update`);
  });

  test('a BMAD sprint: stories by column, a story opens at its Status line', async function () {
    const fixture = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'test', 'fixtures', 'bmad-v6', '_bmad-output');
    for (const rel of ['implementation-artifacts', 'planning-artifacts/epics.md']) {
      const to = demo(path.join('_bmad-output', rel));
      if (!fs.existsSync(to)) restore.push([to, undefined]);
      fs.cpSync(path.join(fixture, rel), to, { recursive: true, force: false, errorOnExist: false });
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const before = (await dash()).paints.length;
    await vscode.commands.executeCommand('waymark.openDashboard');
    const { model, paint } = await paintWhere(before, (m) => !!m.items['story:2-1-dashboard'], 'the stories in the dashboard', 30_000);
    assert.equal(model.items['story:2-1-dashboard'].kind, 'story');
    assert.ok(column(model, 'active').concat(column(model, 'stalled')).includes('story:2-1-dashboard'));
    assert.ok(column(model, 'shipped').includes('story:1-1-user-login'));
    assert.ok(column(model, 'blocked').includes('story:2-2-reports'));
    assert.match(paint.text, /story ·/);
    // Bring the board (where the stories are) into view, as a user scrolling down would.
    await clickWebview('#h-board');
    await sleep(400);
    await screenshot('dashboard-bmad');
    // A change to the sprint ledger alone (no workflow file changes) reaches the dashboard too.
    const ledger = demo('_bmad-output/implementation-artifacts/sprint-status.yaml');
    const seen = (await dash()).paints.length;
    fs.writeFileSync(ledger, fs.readFileSync(ledger, 'utf8').replace('2-6a-export-split: drafted', '2-6a-export-split: done'));
    await paintWhere(seen, (m) => column(m, 'shipped').includes('story:2-6a-export-split'), 'the ledger edit in the dashboard');
    const story = demo('_bmad-output/implementation-artifacts/2-1-dashboard.md');
    if (!(await clickWebview('[data-open="story:2-1-dashboard"]'))) this.skip();
    const editor = await waitFor('the story to open', () => vscode.window.visibleTextEditors.find((x) => x.document.uri.fsPath === story), 15_000);
    assert.equal(editor.document.lineAt(editor.selection.active.line).text, 'Status: in-progress');
    await closeDashboard();
  });

  test('light theme screenshot (code-server starts dark)', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const config = vscode.workspace.getConfiguration('workbench');
    const had = config.inspect<string>('colorTheme')?.globalValue;
    await config.update('colorTheme', 'Default Light Modern', vscode.ConfigurationTarget.Global);
    try {
      const before = (await dash()).paints.length;
      await vscode.commands.executeCommand('waymark.openDashboard');
      await paintWhere(before, () => true, 'a paint in the light theme');
      await sleep(800);
      await screenshot('dashboard-light');
    } finally {
      await config.update('colorTheme', had, vscode.ConfigurationTarget.Global);
    }
  });
});

multiRoot('dashboard (multi-root)', () => {
  test('one dashboard over both folders', async () => {
    await ready();
    const before = (await dash()).paints.length;
    await vscode.commands.executeCommand('waymark.openDashboard');
    const { model } = await paintWhere(before, (m) => m.roots.length === 2, 'a paint over two folders', 30_000);
    const roots = new Set(Object.values(model.items).map((i) => i.root));
    assert.equal(roots.size, 2, JSON.stringify([...roots]));
    await closeDashboard();
  });
});

if (!vscode.workspace.isTrusted) {
  suite('dashboard (restricted mode)', () => {
    test('read-only: drawn, but no Start button and a note saying why', async () => {
      await ready();
      const before = (await dash()).paints.length;
      await vscode.commands.executeCommand('waymark.openDashboard');
      const { model, paint } = await paintWhere(before, (m) => m.frontier.length > 0, 'a paint in Restricted Mode', 30_000);
      assert.ok(model.frontier.includes('search-index'));
      assert.doesNotMatch(paint.text, /▶ Start/);
      assert.match(paint.text, /Restricted Mode: the dashboard is read-only/);
      await closeDashboard();
    });
  });
}

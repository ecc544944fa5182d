// Worktree-aware views in a real VS Code: the demo workspace becomes a git repository with a
// second worktree (outside the workspace) that is ahead: a workflow step done and a story in
// review there. The Workflows and Sprint views mark both ("⎇ review in feat/2-1"), the setting
// turns the markers off, and merging the branch back here clears them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import { WorktreeMonitor } from '../../../src/extension/worktrees';
import { EXTENSION_ID, clickView, clickWebview, demo, find, ready, resizeView, screenshot, singleRoot, sleep, testApi, waitFor, workspaceRoot, type TreeSnap } from '../helpers';

const IMPL = '_bmad-output/implementation-artifacts';
const WF = 'workflows/auth-refactor.md';
const ENV = { ...process.env, GIT_AUTHOR_NAME: 'waymark-test', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 'waymark-test', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
}

function edit(file: string, from: string, to: string): void {
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `${from} in ${file}`);
  fs.writeFileSync(file, text.replace(from, to));
}

async function workflowItem(label: string): Promise<TreeSnap | undefined> {
  const s = (await (await testApi()).snapshot({ only: 'workflows' })) as { workflows: TreeSnap[] };
  return find(s.workflows, label);
}

async function storyItem(key: string): Promise<TreeSnap | undefined> {
  return find(await (await testApi()).sprintTree(), key);
}

singleRoot('worktree-aware views', () => {
  const written: string[] = [];
  let wt = '';
  let parent = '';

  suiteSetup(async function () {
    this.timeout(120_000);
    await ready();
    const fixture = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'test', 'fixtures', 'bmad-v6', '_bmad-output');
    for (const rel of ['implementation-artifacts', 'planning-artifacts/epics.md']) {
      const to = demo(path.join('_bmad-output', rel));
      fs.cpSync(path.join(fixture, rel), to, { recursive: true, force: false, errorOnExist: false });
      written.push(to);
    }
    const root = workspaceRoot();
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'the demo, as committed');
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-it-worktree-'));
    wt = path.join(parent, 'feat-2-1');
    git(root, 'worktree', 'add', '-q', '-b', 'feat/2-1', wt);
    // The agent in the worktree moved on: implement done on the workflow, story 2-1 in review.
    edit(path.join(wt, WF), 'currentStep: implement\nstepsCompleted: [discovery, design]', 'currentStep: review\nstepsCompleted: [discovery, design, implement]');
    edit(path.join(wt, IMPL, 'sprint-status.yaml'), '2-1-dashboard: in-progress', '2-1-dashboard: review');
  });

  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('waymark').update('worktrees.enabled', undefined, vscode.ConfigurationTarget.Global);
    const root = workspaceRoot();
    try {
      git(root, 'worktree', 'remove', '--force', wt);
    } catch {
      // already gone
    }
    fs.rmSync(parent, { recursive: true, force: true });
    // The demo as it was: its state files back (a merge below changed them), no repository.
    git(root, 'checkout', '-q', 'main');
    git(root, 'reset', '-q', '--hard', git(root, 'rev-list', '--max-parents=0', 'HEAD').trim());
    fs.rmSync(path.join(root, '.git'), { recursive: true, force: true });
    for (const p of written) fs.rmSync(p, { recursive: true, force: true });
  });

  test('the Workflows and Sprint views mark what the other worktree has ahead, with a tooltip saying where and what here says', async () => {
    const api = await testApi();
    await api.refreshWorktrees();
    const wf = await waitFor('the workflow marker', async () => {
      const item = await workflowItem('auth-refactor');
      return item?.description?.includes('⎇') ? item : undefined;
    }, 20_000);
    assert.match(wf.description!, /⎇ 3 step\(s\) done in feat\/2-1/);
    // (Markdown: the tooltip escapes `_`.)
    assert.match(wf.tooltip!, /Ahead in worktree feat\/2-1 \(.*feat-2-1\): in\\?_progress \(steps discovery, design, implement\); here: in\\?_progress \(steps discovery, design\)/);
    const story = await waitFor('the story marker', async () => {
      const item = await storyItem('2-1-dashboard');
      return item?.description?.includes('⎇') ? item : undefined;
    }, 20_000);
    assert.match(story.description!, /^in-progress · .* · ⎇ review in feat\/2-1$/);
    assert.match(story.tooltip!, /Ahead in worktree feat\/2-1 .*: review; here: in-progress/);
    // Stories the worktree did not move carry no marker.
    assert.doesNotMatch((await storyItem('2-2-reports'))?.description ?? '', /⎇/);

    // The dashboard shows the same markers on the cards, from the same cache, with the same sentence.
    await vscode.commands.executeCommand('waymark.openDashboard');
    const drawn = await waitFor('the markers on the dashboard', async () => {
      const d = api.dashboard();
      const p = d.paints[d.paints.length - 1];
      const m = d.model;
      const wfItem = m && Object.values(m.items).find((i) => i.rel === WF);
      return p && m && p.version === d.version && wfItem?.worktrees.length && m.items['story:2-1-dashboard']?.worktrees.length ? { m, p, wfItem } : undefined;
    }, 30_000);
    assert.deepEqual(drawn.wfItem.worktrees.map((c) => c.label), ['⎇ 3 step(s) done in feat/2-1']);
    assert.match(drawn.wfItem.worktrees[0].tooltip, /^Ahead in worktree feat\/2-1 \(.*feat-2-1\): in_progress \(steps discovery, design, implement\); here: in_progress \(steps discovery, design\)/);
    assert.deepEqual(drawn.m.items['story:2-1-dashboard'].worktrees.map((c) => c.label), ['⎇ review in feat/2-1']);
    assert.deepEqual(drawn.m.items['story:2-2-reports']?.worktrees ?? [], []);
    assert.match(drawn.p.text, /⎇ 3 step\(s\) done in feat\/2-1/);
    assert.match(drawn.p.text, /⎇ review in feat\/2-1/);
    // The board, where the cards with the chips are.
    await clickWebview('#h-board');
    await sleep(400);
    await screenshot('dashboard-worktrees');

    // The picture: a wide sidebar with the Workflows and Sprint views (the others folded, then restored).
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    await sleep(300);
    await resizeView('sidebar', 380);
    for (const v of ['Gates', 'Delegation']) await clickView(v);
    assert.equal(await api.reveal(demo(WF)), true);
    await vscode.commands.executeCommand('waymark.sprint.focus');
    await sleep(800);
    await screenshot('worktrees');
    for (const v of ['Gates', 'Delegation']) await clickView(v);
    await resizeView('sidebar', -380);
  });

  test('waymark.worktrees.enabled: false removes the markers; true brings them back', async () => {
    const config = vscode.workspace.getConfiguration('waymark');
    await config.update('worktrees.enabled', false, vscode.ConfigurationTarget.Global);
    await waitFor('the markers to go', async () => ((await workflowItem('auth-refactor'))?.description?.includes('⎇') ? undefined : true), 20_000);
    assert.doesNotMatch((await storyItem('2-1-dashboard'))?.description ?? '', /⎇/);
    await config.update('worktrees.enabled', true, vscode.ConfigurationTarget.Global);
    await waitFor('the markers to return', async () => ((await workflowItem('auth-refactor'))?.description?.includes('⎇') ? true : undefined), 20_000);
  });

  test('once the branch is merged into this checkout the markers clear (git changed here, no manual refresh), on the dashboard too', async () => {
    // The dashboard open with the chips (it is fed by the same markers as the trees).
    await vscode.commands.executeCommand('waymark.openDashboard');
    await waitFor('the dashboard with the chips', async () => {
      const d = (await testApi()).dashboard();
      const p = d.paints[d.paints.length - 1];
      return d.model && p?.version === d.version && /⎇ review in feat\/2-1/.test(p.text) ? true : undefined;
    }, 30_000);
    git(wt, 'commit', '-q', '-am', 'implement done, 2-1 in review');
    git(workspaceRoot(), 'merge', '-q', '--no-edit', 'feat/2-1');
    await waitFor('the markers to clear after the merge', async () => {
      const wf = await workflowItem('auth-refactor');
      const st = await storyItem('2-1-dashboard');
      return wf && st && !wf.description?.includes('⎇') && !st.description?.includes('⎇') && /review/.test(st.description ?? '') ? true : undefined;
    }, 30_000);
    await waitFor('the dashboard chips to clear', async () => {
      const d = (await testApi()).dashboard();
      const p = d.paints[d.paints.length - 1];
      return d.model && p?.version === d.version && !/⎇/.test(p.text) && Object.values(d.model.items).every((i) => !i.worktrees.length) ? true : undefined;
    }, 30_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

singleRoot('worktree monitor: a first read with nothing ahead', () => {
  test('sends no change event (every tree would refresh while VS Code fetches its first rows)', async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-wt-first-'));
    const log = vscode.window.createOutputChannel('Waymark worktree test', { log: true });
    let changes = 0;
    const monitor = new WorktreeMonitor({ roots: () => [repo], enabled: () => true, log }, () => changes++);
    try {
      git(repo, 'init', '-q');
      fs.mkdirSync(path.join(repo, 'workflows'));
      fs.writeFileSync(path.join(repo, 'workflows', 'a.md'), '---\nworkflow: a\nstatus: in_progress\nsteps: [one, two]\ncurrentStep: one\n---\n');
      git(repo, 'add', '.');
      git(repo, 'commit', '-qm', 'first');
      monitor.sync();
      await waitFor('the first read', () => monitor.refreshes >= 1, 20_000);
      assert.equal(monitor.refreshes, 1);
      assert.deepEqual(monitor.forFile(path.join(repo, 'workflows', 'a.md')), []);
      assert.equal(changes, 0, 'no marker changed: no event');
    } finally {
      monitor.dispose();
      log.dispose();
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });
});

// Orchestrator leases in the real extension host: another agent takes a lease on a workflow
// file through the core protocol API (as an agent process would), and the Workflows view, the
// status bar and the hover say who is writing the file, with no command run by us (the lease
// folder is watched); Take over moves the lease to us and is recorded; Release clears it; an
// expiring lease turns stale on its own; a corrupt lease file and a refused release break nothing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { acquireLease, leaseKey, leasesCovering, releaseLease } from '../../../src/core/protocol/leases';
import { resume } from '../../../src/core/protocol/resume';
import { demo, find, hoverText, locate, ready, screenshot, singleRoot, sleep, snap, testApi, waitFor, workspaceRoot, type Snapshot, type TreeSnap } from '../helpers';

const REL = 'workflows/delegated/auth-tests.md';
const NAME = 'auth-tests';
const OTHER = { agent: 'planner-agent', session: 'run-7', host: os.hostname(), pid: process.pid };

/** A Markdown tooltip as plain text (VS Code escapes it: `&nbsp;`, backslashes). */
const plain = (md: string | undefined) => (md ?? '').replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');

async function row(what: string, ok: (n: TreeSnap) => boolean, timeoutMs = 10_000): Promise<TreeSnap> {
  return waitFor(what, async () => {
    const n = find((await snap()).workflows, NAME);
    return n && ok(n) ? n : undefined;
  }, timeoutMs);
}

async function statusBar(what: string, ok: (s: Snapshot['statusBar']) => boolean): Promise<Snapshot['statusBar']> {
  return waitFor(what, async () => {
    const s = (await snap()).statusBar;
    return s.file === demo(REL) && ok(s) ? s : undefined;
  });
}

function events(): { type: string; file?: string; actor?: string; data?: Record<string, unknown> }[] {
  const f = demo('.waymark/events/events.jsonl');
  if (!fs.existsSync(f)) return [];
  return fs
    .readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

async function clearLeases(): Promise<void> {
  await releaseLease(workspaceRoot(), demo(REL), OTHER, { force: true, events: false });
}

singleRoot('leases on screen', () => {
  suiteSetup(async () => {
    await ready();
    await clearLeases();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  suiteTeardown(async () => {
    await clearLeases();
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  test("another agent's lease shows in the tree, the status bar and the hover; Take over moves it to us", async () => {
    const root = workspaceRoot();
    const file = demo(REL);
    await acquireLease(root, file, OTHER);

    // The Workflows view learns of it from the lease folder watcher alone.
    const leased = await row('the lock in the Workflows view', (n) => /locked by planner-agent/.test(n.description ?? ''));
    assert.equal(leased.icon, 'lock');
    assert.match(leased.contextValue ?? '', /^waymark\.workflow\.in_progress.*\.lease$/);
    assert.match(plain(leased.tooltip), /An agent is writing this file/);
    assert.match(plain(leased.tooltip), /planner-agent \(session run-7, pid \d+, on /);
    assert.match(leased.tooltip ?? '', /command:waymark\.lease\.takeOver/);

    // The status bar of the open file: the holder in the text, the details and resume in the tooltip.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const editor = await vscode.window.showTextDocument(doc);
    const expected = await resume(root, file, { expire: false });
    const bar = await statusBar('the status bar to show the holder and the resume level', (s) => s.text.includes('$(lock) planner-agent') && /degradation/.test(s.tooltip ?? ''));
    assert.match(bar.text, new RegExp(`^\\$\\(\\w[\\w-]*\\) ${NAME} · `));
    assert.equal(bar.background, 'statusBarItem.warningBackground');
    assert.match(plain(bar.tooltip), /An agent is writing this file/);
    assert.match(bar.tooltip ?? '', /command:waymark\.lease\.takeOver/);
    assert.match(bar.tooltip ?? '', /command:waymark\.lease\.release/);
    assert.match(plain(bar.tooltip), new RegExp(`tier ${expected.tier} \\(${expected.source}\\) · degradation \\*\\*${expected.degradation}\\*\\*`));
    assert.match(plain(bar.tooltip), /memory: (ok|degraded)/, 'the memory status is part of the tooltip');

    // The hover anywhere in the frontmatter.
    const at = locate(REL, 'status').start.translate(0, 2);
    const hover = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, at));
    assert.match(plain(hover), /An agent is writing this file/);
    assert.match(plain(hover), /planner-agent/);
    assert.match(hover, /`in_progress`: being worked on/, 'the key is still explained');
    const fence = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(0, 1)));
    assert.match(plain(fence), /planner-agent \(session run-7.*\) holds the lease since/, 'on the fence line too');
    const body = locate(REL, 'Write the tests').start;
    assert.doesNotMatch(plain(hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, body))), /planner-agent/, 'not in the body');

    // Our writes are refused meanwhile, and the file is untouched.
    const before = fs.readFileSync(file, 'utf8');
    assert.equal(await vscode.commands.executeCommand('waymark.setScope', { file, scope: 'large', quiet: true }), undefined);
    assert.match((await snap()).lastError?.message ?? '', /locked by planner-agent/);
    assert.equal(fs.readFileSync(file, 'utf8'), before);
    await vscode.commands.executeCommand('notifications.clearAll');

    // On screen: the locked row, the status bar and the hover.
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    assert.equal(await (await testApi()).reveal(file), true);
    editor.selection = new vscode.Selection(at, at);
    await vscode.window.showTextDocument(doc);
    await sleep(500);
    await vscode.commands.executeCommand('editor.action.showHover');
    await sleep(800);
    await screenshot('lease-held-by-agent');

    // Take over: the lease changes hands, is recorded, and the surfaces follow.
    const taken = await vscode.commands.executeCommand<{ lease: { owner: { agent: string } }; previous?: { owner: { agent: string } } }>('waymark.lease.takeOver', { file, reason: 'planner stalled', quiet: true });
    assert.ok(taken, JSON.stringify((await snap()).lastError));
    assert.equal(taken.previous?.owner.agent, 'planner-agent');
    const now = leasesCovering(root, file).find((s) => s.lease.key === leaseKey(root, file).key);
    assert.ok(now && !now.stale);
    assert.notEqual(now.lease.owner.agent, 'planner-agent');
    assert.equal(now.lease.owner.agent, taken.lease.owner.agent);
    assert.equal(now.lease.takenOverFrom?.agent, 'planner-agent');
    assert.equal(now.lease.note, 'planner stalled');
    const ev = events().filter((e) => e.type === 'lease.takeover' && e.file === REL).pop();
    assert.ok(ev, 'the take-over is in the events log');
    assert.equal((ev.data?.previous as { agent?: string } | undefined)?.agent, 'planner-agent');
    assert.equal(ev.data?.reason, 'planner stalled');

    const mine = await row('the tree to show our lease', (n) => /leased by you/.test(n.description ?? ''), 5_000);
    assert.doesNotMatch(mine.description ?? '', /locked by/);
    assert.match(mine.contextValue ?? '', /\.leaseMine$/);
    assert.notEqual(mine.icon, 'lock');
    assert.match(plain(mine.tooltip), /You hold the lease on this file/);
    const bar2 = await statusBar('the status bar to show our lease', (s) => s.text.includes('$(key) leased'));
    assert.doesNotMatch(bar2.text, /planner-agent/);
    assert.notEqual(bar2.background, 'statusBarItem.warningBackground');
    // A fresh hover (the open one still shows what it was opened with).
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const again = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(file)));
    again.selection = new vscode.Selection(at, at);
    await sleep(500);
    await vscode.commands.executeCommand('editor.action.showHover');
    await sleep(800);
    await screenshot('lease-taken-over');

    // Release: nothing left on screen.
    const released = await vscode.commands.executeCommand<{ released: boolean }>('waymark.lease.release', { file, quiet: true });
    assert.equal(released?.released, true);
    assert.deepEqual(leasesCovering(root, file), []);
    const free = await row('the tree to drop the lease', (n) => !/locked by|leased by/.test(n.description ?? ''), 5_000);
    assert.doesNotMatch(free.contextValue ?? '', /\.lease/);
    const bar3 = await statusBar('the status bar to drop the lease', (s) => !/\$\((lock|key)\)/.test(s.text));
    assert.doesNotMatch(plain(bar3.tooltip), /lease/i);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a release of a live lease held by someone else is refused (quiet) and changes nothing', async () => {
    const root = workspaceRoot();
    const file = demo(REL);
    await acquireLease(root, file, OTHER);
    await row('the lock', (n) => /locked by planner-agent/.test(n.description ?? ''));
    assert.equal(await vscode.commands.executeCommand('waymark.lease.release', { file, quiet: true }), undefined);
    const still = leasesCovering(root, file);
    assert.equal(still.length, 1);
    assert.equal(still[0].lease.owner.agent, 'planner-agent');
    assert.match(find((await snap()).workflows, NAME)?.description ?? '', /locked by planner-agent/);
    await clearLeases();
    await row('the lock to go after the agent released', (n) => !/locked by/.test(n.description ?? ''), 15_000);
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  test('a lease that runs out turns stale on screen without any file event', async () => {
    const root = workspaceRoot();
    const file = demo(REL);
    await acquireLease(root, file, OTHER, { ttlMs: 1500 });
    await row('the lock', (n) => /locked by planner-agent/.test(n.description ?? ''));
    const stale = await row('the lock to go at expiry', (n) => !/locked by/.test(n.description ?? ''), 6_000);
    assert.match(plain(stale.tooltip), /stale lease of planner-agent .* on this file \(expired /i);
    assert.ok(fs.existsSync(leaseKey(root, file).path), 'the stale lease file is left for the next writer to break');
    await clearLeases();
  });

  test("a step's hover lists its decisions and learnings from memory, and only that step's", async () => {
    const file = demo(REL);
    const decision = 'Cover token rotation with property tests';
    const learning = 'The session store clock must be injected for tests';
    assert.ok(await vscode.commands.executeCommand('waymark.memory.recordDecision', { file, step: 'plan-cases', text: decision, rationale: 'Rotation bugs hide in edge cases' }));
    assert.ok(await vscode.commands.executeCommand('waymark.memory.recordLearning', { file, step: 'plan-cases', text: learning, category: 'gotcha' }));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const onStep = locate(REL, 'plan-cases').start.translate(0, 2);
    const text = await waitFor('the step hover to list the memories', async () => {
      const t = plain(hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, onStep)));
      return t.includes(decision) && t.includes(learning) ? t : undefined;
    }, 20_000);
    assert.match(text, /Memory for `plan-cases`/);
    assert.match(text, /Cover token rotation with property tests — Rotation bugs hide in edge cases/);
    assert.match(text, /Step \*\*plan-cases\*\*/, 'the step is still explained');
    const other = plain(hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, locate(REL, 'run-suite').start.translate(0, 2))));
    assert.match(other, /Step \*\*run-suite\*\*/);
    assert.doesNotMatch(other, /Cover token rotation|session store clock/, 'another step does not list them');
    // A fresh editor: a hover left open by an earlier test would stay on screen.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(file)));
    editor.selection = new vscode.Selection(onStep, onStep);
    await sleep(500);
    await vscode.commands.executeCommand('editor.action.showHover');
    await sleep(800);
    await screenshot('step-memory-hover');
  });

  test('a corrupt lease file shows no holder and breaks no surface', async () => {
    const root = workspaceRoot();
    const file = demo(REL);
    const lease = leaseKey(root, file).path;
    fs.mkdirSync(demo('.waymark/leases'), { recursive: true });
    fs.writeFileSync(lease, '{"owner": {"agent": "half-writ');
    try {
      await sleep(400);
      const s = await snap();
      const n = find(s.workflows, NAME);
      assert.ok(n, 'the row is still there');
      assert.doesNotMatch(n.description ?? '', /locked by|leased by/);
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      const hover = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, locate(REL, 'status').start.translate(0, 2)));
      assert.match(hover, /being worked on/);
      assert.doesNotMatch(hover, /half-writ/);
    } finally {
      fs.rmSync(lease, { force: true });
    }
  });
});

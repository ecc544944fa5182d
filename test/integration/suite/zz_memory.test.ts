// Runs last (after the other screenshots, whose layout it changes).
// Memory in the real extension host: decisions and learnings recorded through the commands
// (the way a keybinding or a script calls them, no prompts) land in the workspace's memory
// store (Kuzu) and show in the Memory view; bad input is refused and nothing is recorded.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { clickView, demo, find, flatten, ready, screenshot, singleRoot, sleep, testApi, waitFor, type TreeSnap } from '../helpers';

/** A Markdown tooltip as plain text (VS Code escapes it: `&nbsp;`, backslashes). */
const plain = (md: string | undefined) => (md ?? '').replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');

const run = <T>(id: string, arg?: unknown) => vscode.commands.executeCommand<T>(id, arg);

async function memoryTree(): Promise<TreeSnap[]> {
  const s = (await (await testApi()).snapshot({ only: 'memory', maxDepth: 3 })) as { memory?: TreeSnap[]; error?: string };
  if (!s || s.error) throw new Error(`memory snapshot failed: ${s?.error ?? 'no result'}`);
  if (!s.memory) throw new Error('the memory features are not loaded');
  return s.memory;
}

export const DECISION = 'Keep sessions server-side with rotating refresh tokens';
export const LEARNING = 'The legacy cookie parser rejects SameSite=None';

singleRoot('memory', () => {
  suiteSetup(async () => {
    await ready();
  });

  test('a decision and a learning recorded by command show in the Memory view under their workflow', async () => {
    const file = demo('workflows/auth-refactor.md');
    const d = await run<{ stored?: string }>('waymark.memory.recordDecision', {
      file,
      step: 'design',
      text: DECISION,
      rationale: 'Revocation must take effect at once',
      alternatives: ['Stateless JWTs', 'Sticky sessions'],
    });
    assert.ok(d, 'recordDecision returned what it stored');
    const l = await run<{ stored?: string }>('waymark.memory.recordLearning', { file, step: 'implement', text: LEARNING, category: 'gotcha' });
    assert.ok(l, 'recordLearning returned what it stored');
    assert.ok(fs.existsSync(demo('.waymark/memory')), 'the memory store lives under .waymark/memory');

    const tree = await waitFor('the Memory view to list both', async () => {
      const t = await memoryTree();
      return find(t, DECISION) && find(t, LEARNING) ? t : undefined;
    }, 30_000);
    const wf = tree.find((n) => n.label === 'auth-refactor');
    assert.ok(wf, `a row for the workflow, named as in the Workflows view: ${JSON.stringify(tree.map((n) => n.label))}`);
    assert.equal(wf.description, 'workflows/auth-refactor.md');
    const decisions = wf.children?.find((g) => g.label === 'Decisions');
    const learnings = wf.children?.find((g) => g.label === 'Learnings');
    const decision = decisions?.children?.find((m) => m.label === DECISION);
    assert.ok(decision, JSON.stringify(wf.children));
    assert.match(decision.description ?? '', /design/);
    assert.match(plain(decision.tooltip), /_Because:_ Revocation must take effect at once/);
    assert.match(plain(decision.tooltip), /_Alternatives:_ Stateless JWTs; Sticky sessions/);
    assert.match(plain(decision.tooltip), /workflows\/auth-refactor\.md · step design/);
    const learning = learnings?.children?.find((m) => m.label === LEARNING);
    assert.ok(learning, JSON.stringify(wf.children));
    assert.match(learning.description ?? '', /^gotcha · implement/);
    assert.equal(learning.icon, 'lightbulb');
  });

  test('an empty text or an unknown category is refused and nothing is recorded', async () => {
    const file = demo('workflows/auth-refactor.md');
    assert.equal(await run('waymark.memory.recordDecision', { file, text: '   ' }), undefined);
    assert.equal(await run('waymark.memory.recordLearning', { file, text: 'Never stored: bad category', category: 'rumour' }), undefined);
    await vscode.commands.executeCommand('notifications.clearAll');
    const labels = flatten(await memoryTree()).map((n) => n.label);
    assert.ok(!labels.includes('Never stored: bad category'), JSON.stringify(labels));
    assert.ok(!labels.some((l) => !l.trim()), 'no empty memory');
  });
});

singleRoot('screenshots (memory)', () => {
  test('the Memory view with the recorded decision and learning', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    await sleep(300);
    // Fold the other views, unfold Memory, and open the workflow's memories, as a user would.
    await clickView('Workflows');
    await clickView('Gates');
    await clickView('Delegation');
    await vscode.commands.executeCommand('waymark.memory.focus');
    await sleep(800);
    await clickView('Memory', 'auth-refactor');
    await sleep(500);
    await clickView('Memory', 'Decisions');
    await sleep(300);
    await clickView('Memory', 'Learnings');
    // And the workflow's knowledge neighbourhood next to it.
    await vscode.commands.executeCommand('waymark.memory.showGraph', { file: demo('workflows/auth-refactor.md') });
    await sleep(1500);
    await screenshot('memory');
  });
});

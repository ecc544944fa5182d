// A long-lived face (the MCP server) lets a write answer before its memory consolidation is done:
// the change's intent stays in the journal until the consolidation ran, so a crash (or a core
// disposed) meanwhile leaves it for the next writer; `core.memory.settled()` waits for it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { workspace } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { readHistory } from '../../src/core/store/history';
import { cleanup, startServer } from './mcpHelpers';

after(cleanup);

const WF = ['---', 'workflow: w', 'status: in_progress', 'steps: [one, two, three]', 'currentStep: one', 'stepsCompleted: []', '---', '', '# W', ''].join('\n');
const journal = (root: string) => {
  const d = path.join(root, '.waymark', 'journal');
  return fs.existsSync(d) ? fs.readdirSync(d).filter((n) => n.startsWith('tx.')) : [];
};
const cold = (root: string) => {
  try {
    return fs.readFileSync(path.join(root, '.waymark', 'memory', 'orchestrator_memory.md'), 'utf8');
  } catch {
    return '';
  }
};

test('a write answers before its consolidation; the intent stays until it ran; settled() waits for it', async () => {
  const root = workspace({ 'w.md': WF }, { prefix: 'wm-deferred-' });
  const file = path.join(root, 'w.md');
  const core = createStateCore({ roots: [root], actor: 'test', memory: { consolidateAfterAnswer: true } });
  try {
    const r = await core.advance(file);
    assert.equal(r.after.currentStep, 'two');
    assert.equal(journal(root).length, 1, 'the intent is kept while the consolidation runs');
    await core.memory.settled();
    assert.deepEqual(journal(root), []);
    assert.match(cold(root), /step one completed/);
    // The next write waits for nothing of the last one, and both are consolidated in order.
    await core.advance(file);
    await core.memory.settled();
    assert.ok(cold(root).indexOf('step one completed') < cold(root).indexOf('step two completed'));
  } finally {
    await core.close();
  }
});

test('an MCP server killed after answering, before the consolidation ran: the next writer runs it, once', { timeout: 120_000 }, async () => {
  const root = workspace({ 'w.md': WF }, { prefix: 'wm-deferred-' });
  const file = path.join(root, 'w.md');
  const s = await startServer(root, { env: { WAYMARK_TX_DIE_AFTER_DEFERRED: '1' } });
  const gone = new Promise<void>((resolve) => (s.client.onclose = () => resolve()));
  await s.call('waymark_advance', { file: 'w.md' }).catch(() => undefined);
  await gone;
  assert.match(fs.readFileSync(file, 'utf8'), /currentStep: two/, 'the write itself is done');
  assert.equal(journal(root).length, 1, 'its intent stays for the consolidation');
  assert.doesNotMatch(cold(root), /step one completed/);
  const next = createStateCore({ roots: [root], actor: 'test' });
  try {
    await next.setScope(file, 'small');
    assert.deepEqual(journal(root), []);
    assert.equal((cold(root).match(/step one completed/g) ?? []).length, 1);
    assert.equal(readHistory(root, file).filter((e) => e.operation === 'advance').length, 1);
  } finally {
    await next.close();
  }
});

// A long-lived face (the MCP server) lets a write answer before its memory consolidation is done:
// the change's intent stays in the journal until the consolidation ran, so a crash (or a core
// disposed) meanwhile leaves it for the next writer; `core.memory.settled()` waits for it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { journalIntent, journalLeft, workspace } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { readHistory } from '../../src/core/store/history';
import { cleanup, startServer } from './mcpHelpers';

after(cleanup);

const WF = ['---', 'workflow: w', 'status: in_progress', 'steps: [one, two, three]', 'currentStep: one', 'stepsCompleted: []', '---', '', '# W', ''].join('\n');
const journal = (root: string) => journalLeft(root).filter((n) => n.startsWith('tx.'));
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
    // Its own intent is completed once the history line it covers is flushed, after its answer.
    await next.memory.settled();
    assert.deepEqual(journal(root), []);
    assert.equal((cold(root).match(/step one completed/g) ?? []).length, 1);
    assert.equal(readHistory(root, file).filter((e) => e.operation === 'advance').length, 1);
  } finally {
    await next.close();
  }
});

const events = (root: string) => {
  try {
    return fs.readFileSync(path.join(root, '.waymark', 'events', 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; data?: { historySeq?: number } });
  } catch {
    return [];
  }
};

test('an MCP server SIGKILLed once the advance has answered, before its events line: the answer holds, and the next writer appends the line and consolidates, once', { timeout: 120_000 }, async () => {
  const root = workspace({ 'w.md': WF }, { prefix: 'wm-deferred-' });
  const file = path.join(root, 'w.md');
  const s = await startServer(root, { env: { WAYMARK_EVENTS_DIE_BEFORE_APPEND: '1' } });
  const gone = new Promise<void>((resolve) => (s.client.onclose = () => resolve()));
  const r = await s.call('waymark_advance', { file: 'w.md' });
  assert.equal(r.isError, false, r.text);
  assert.equal((r.data as { after: { currentStep: string } }).after.currentStep, 'two', 'the answer came before the kill');
  await gone;
  assert.match(fs.readFileSync(file, 'utf8'), /currentStep: two/, 'what the answer said is on disk');
  assert.equal(readHistory(root, file).filter((e) => e.operation === 'advance').length, 1);
  assert.deepEqual(events(root).filter((e) => e.type === 'workflow.advance'), [], 'killed before the events line');
  assert.equal(journal(root).length, 1, 'its intent stays for the events line and the consolidation');
  const next = createStateCore({ roots: [root], actor: 'test' });
  try {
    await next.setScope(file, 'small');
    // Its own intent is completed once the history line it covers is flushed, after its answer.
    await next.memory.settled();
    assert.deepEqual(journal(root), []);
    const advanced = events(root).filter((e) => e.type === 'workflow.advance');
    assert.equal(advanced.length, 1, 'the events line, once');
    assert.equal(advanced[0].data?.historySeq, readHistory(root, file).find((e) => e.operation === 'advance')?.seq);
    assert.equal((cold(root).match(/step one completed/g) ?? []).length, 1);
  } finally {
    await next.close();
  }
});

const WF5 = ['---', 'workflow: w', 'status: in_progress', 'steps: [one, two, three, four, five]', 'currentStep: one', 'stepsCompleted: []', '---', '', '# W', ''].join('\n');
/** The intents in the journal that write `file`. */
const touching = (root: string, file: string) => journal(root).filter((n) => journalIntent(root, n).writes.some((w) => w.file === file));
const stepLines = (root: string, step: string) => (cold(root).match(new RegExp(`: step ${step} completed.*$`, 'gm')) ?? []).length;
// The real node:fs module (a bundle's `import * as fs` is a copy of its getters): a spy on it sees the core's calls.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeFs: typeof fs = require('node:fs');

test('a burst of writes that answered is consolidated once: one change of the memory files, one summary per step (real Kuzu)', async () => {
  const root = workspace({ 'w.md': WF5 }, { prefix: 'wm-deferred-' });
  const file = path.join(root, 'w.md');
  // Writes answered close together (here: before settled() asks) are one batch, however slow the machine.
  const core = createStateCore({ roots: [root], actor: 'test', memory: { consolidateAfterAnswer: { quietMs: 600_000, maxMs: 600_000 } } });
  const memory = core.memory.forRoot(root);
  const coldFile = memory.files.coldFile;
  const rename = nodeFs.renameSync;
  let coldWrites = 0;
  try {
    for (const step of ['one', 'two', 'three', 'four']) await memory.record({ type: 'learning', category: 'observation', text: `seen during ${step}`, workflow: file, step });
    await memory.flushFiles();
    nodeFs.renameSync = (from: fs.PathLike, to: fs.PathLike) => {
      if (String(to) === coldFile) coldWrites++;
      return rename(from, to);
    };
    for (let i = 0; i < 4; i++) await core.advance(file);
    assert.equal(journal(root).length, 4, 'every write answered; each intent stays until its consolidation ran');
    await core.memory.settled();
    assert.deepEqual(journal(root), []);
    assert.equal(coldWrites, 1, 'the four consolidations wrote the cold file once');
    for (const step of ['one', 'two', 'three', 'four']) assert.equal(stepLines(root, step), 1, `step ${step} completed, once`);
    assert.match(cold(root), /step one completed, 1 observations consolidated/);
    const { items, engine } = await memory.list({ workflowFile: file, types: ['summary'] });
    assert.equal(engine, 'kuzu');
    assert.deepEqual(items.map((s) => s.source.step).sort(), ['four', 'one', 'three', 'two'], 'one summary per step');
    assert.ok(items.every((s) => s.consolidates?.length === 1));
  } finally {
    nodeFs.renameSync = rename;
    await core.close();
  }
});

test('an MCP server SIGKILLed after answering a burst of advances, before their consolidation: the next writer consolidates each, once (real Kuzu)', { timeout: 120_000 }, async () => {
  const root = workspace({ 'w.md': WF5 }, { prefix: 'wm-deferred-' });
  const file = path.join(root, 'w.md');
  const s = await startServer(root, { env: { WAYMARK_MEMORY_DIE_BEFORE_BATCH: '1' } });
  const gone = new Promise<void>((resolve) => (s.client.onclose = () => resolve()));
  for (const step of ['one', 'two', 'three']) {
    const r = await s.call('waymark_memory_record', { type: 'learning', category: 'observation', text: `seen during ${step}`, workflow: 'w.md', step });
    assert.equal(r.isError, false, r.text);
  }
  // Three advances sent at once: the server answers them one after another, then dies when their
  // consolidation starts (how many answered before depends on the machine's speed).
  const answers = await Promise.all([0, 1, 2].map(() => s.call('waymark_advance', { file: 'w.md' }).then((r) => !r.isError, () => false)));
  await gone;
  const landed = readHistory(root, file).filter((e) => e.operation === 'advance').length;
  assert.ok(answers.filter(Boolean).length >= 1 && landed >= answers.filter(Boolean).length, `answered ${answers.filter(Boolean).length}, landed ${landed}`);
  // Each landed write keeps its intent (and one killed inside its transaction leaves its own, redone by the next writer).
  assert.ok(touching(root, file).length >= landed, `intents: ${journal(root).join(', ')}; landed ${landed}`);
  assert.equal(stepLines(root, 'one'), 0, 'killed before any consolidation');
  const next = createStateCore({ roots: [root], actor: 'test' });
  try {
    await next.setScope(file, 'small');
    // Its own intent is completed once the history line it covers is flushed, after its answer.
    await next.memory.settled();
    // (The server may also have been killed while mirroring the records into the memory files: that change is the next memory writer's.)
    assert.deepEqual(touching(root, file), [], 'no change of the workflow is left');
    const advanced = readHistory(root, file).filter((e) => e.operation === 'advance').length;
    assert.ok(advanced >= landed && advanced <= 3);
    const steps = ['one', 'two', 'three'].slice(0, advanced);
    for (const step of steps) assert.equal(stepLines(root, step), 1, `step ${step} completed, once`);
    const { items, engine } = await next.memory.forRoot(root).list({ workflowFile: file, types: ['summary'] });
    assert.equal(engine, 'kuzu');
    assert.deepEqual(items.map((x) => x.source.step).sort(), [...steps].sort(), 'each step\'s observation consolidated once');
    assert.ok(items.every((x) => x.consolidates?.length === 1));
  } finally {
    await next.close();
  }
});

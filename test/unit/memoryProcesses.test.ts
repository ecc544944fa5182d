import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createMemoryService } from '../../src/core/memory/memoryService';

// Real processes against the bundled CLI (npm test builds dist/ first; build it if missing).
// The bundle is copied to a private folder so a rebuild of dist/ meanwhile cannot change it
// under the running processes; NODE_PATH lets the copy find the native kuzu module.
const BUILT_CLI = path.resolve('dist/cli.js');
const NODE_MODULES = path.resolve('node_modules');
const KUZU = path.join(NODE_MODULES, 'kuzu');
let CLI = BUILT_CLI;
const tmps: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-memp-'));
  tmps.push(d);
  return d;
}
before(() => {
  if (!fs.existsSync(BUILT_CLI)) spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });
  const dir = tmp();
  CLI = path.join(dir, 'cli.js');
  // The launcher loads its sibling bundles (cli-main.js, cli-hook.js): copy them all.
  for (const name of fs.readdirSync(path.dirname(BUILT_CLI))) if (/^cli(-[\w-]+)?\.js$/.test(name)) fs.copyFileSync(path.join(path.dirname(BUILT_CLI), name), path.join(dir, name));
});
after(() => {
  for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function run(cwd: string, args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NODE_PATH: NODE_MODULES, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

function json(r: Run): Record<string, any> {
  assert.equal(r.code, 0, `exit ${r.code} ${r.signal ?? ''}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function exportedIds(cwd: string): Promise<Set<string>> {
  const ex = json(await run(cwd, ['memory', 'export', '--json', '--wait-ms', '10000']));
  assert.equal(ex.engine, 'kuzu');
  const doc = JSON.parse(fs.readFileSync(ex.file, 'utf8'));
  return new Set(doc.memories.map((m: { id: string }) => m.id));
}

describe('memory: several processes', () => {
  test('three processes recording at once lose nothing and nobody hangs', async () => {
    const cwd = tmp();
    const perLane = 6;
    const lane = async (l: number) => {
      const ids: string[] = [];
      for (let i = 0; i < perLane; i++) {
        const type = i % 2 ? 'decision' : 'learning';
        const r = await run(cwd, ['memory', 'record', '--type', type, '--text', `lane ${l} item ${i}`, '--workflow', 'wf.md', '--step', `s${l}`, '--agent', `agent${l}`, '--json']);
        assert.equal(r.signal, null, 'not killed by the timeout');
        const out = json(r);
        ids.push(out.id);
      }
      return ids;
    };
    const lanes = await Promise.all([lane(0), lane(1), lane(2)]);
    const all = lanes.flat();
    assert.equal(new Set(all).size, 3 * perLane);
    // Every line is in the journal, and the graph has all of them once someone ingests.
    const journal = fs.readFileSync(path.join(cwd, '.waymark/memory/inbox.jsonl'), 'utf8').trim().split('\n');
    assert.equal(journal.length, 3 * perLane);
    const ids = await exportedIds(cwd);
    for (const id of all) assert.ok(ids.has(id), `${id} in the graph`);
    const st = json(await run(cwd, ['memory', 'status', '--json']));
    assert.equal(st.state, 'ok');
    assert.equal(st.counts.learning + st.counts.decision, 3 * perLane);
  });

  test('while another process holds the database, records go to the inbox fast and are ingested later', async () => {
    const cwd = tmp();
    const db = path.join(cwd, '.waymark/memory/graph.kuzu');
    fs.mkdirSync(path.dirname(db), { recursive: true });
    const holderJs = path.join(cwd, 'holder.js');
    fs.writeFileSync(
      holderJs,
      `const kuzu = require(${JSON.stringify(KUZU)});
const db = new kuzu.Database(${JSON.stringify(db)}, 16 * 1024 * 1024); db.initSync();
const c = new kuzu.Connection(db); c.initSync();
process.stdout.write('held\\n');
setTimeout(() => { c.closeSync(); db.closeSync(); }, 10000);`,
    );
    const holder = spawn(process.execPath, [holderJs], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let held = true;
    const holderDone = new Promise((r) => holder.on('close', () => { held = false; r(undefined); }));
    await new Promise<void>((r) => holder.stdout.once('data', () => r()));
    const recs = await Promise.all([0, 1, 2].map((i) => run(cwd, ['memory', 'record', '--type', 'learning', '--category', 'error', `while locked ${i}`, '--wait-ms', '200', '--json'], {}, 15_000)));
    const ids = recs.map((r) => {
      const o = json(r);
      assert.equal(o.stored, 'inbox');
      return o.id as string;
    });
    // They did not wait for the database: every record answered while the holder still had it.
    assert.equal(held, true, `the records waited for the database to be released (${recs.map((r) => r.ms).join(', ')} ms)`);
    const st = json(await run(cwd, ['memory', 'status', '--json', '--wait-ms', '100']));
    assert.equal(st.state, 'degraded');
    assert.equal(st.cause, 'locked');
    assert.equal(st.counts.learning, 3, 'the journal answers meanwhile');
    const rc = json(await run(cwd, ['memory', 'recall', 'while locked', '--json', '--wait-ms', '100']));
    assert.equal(rc.engine, 'journal');
    assert.equal(rc.items.length, 3);
    await holderDone;
    const got = await exportedIds(cwd);
    for (const id of ids) assert.ok(got.has(id));
    const st2 = json(await run(cwd, ['memory', 'status', '--json']));
    assert.equal(st2.state, 'ok');
  });
});

describe('memory: degradation', () => {
  test('a corrupt database: records kept, status degraded with the reason, rebuild restores everything', async () => {
    const cwd = tmp();
    json(await run(cwd, ['memory', 'record', '--type', 'decision', 'before corruption', '--json']));
    const db = path.join(cwd, '.waymark/memory/graph.kuzu');
    fs.writeFileSync(db, Buffer.alloc(8192, 0x5a));
    const rec = json(await run(cwd, ['memory', 'record', '--type', 'learning', '--category', 'security', 'after corruption', '--json']));
    assert.equal(rec.stored, 'inbox');
    const st = json(await run(cwd, ['memory', 'status', '--json']));
    assert.equal(st.state, 'degraded');
    assert.equal(st.cause, 'corrupt');
    assert.match(st.line, /^memory: degraded: .*rebuild/);
    assert.equal(st.counts.decision + st.counts.learning, 2);
    const human = await run(cwd, ['memory', 'status']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /memory: degraded/);
    const rc = json(await run(cwd, ['memory', 'recall', 'corruption', '--json']));
    assert.equal(rc.items.length, 2);
    const rb = json(await run(cwd, ['memory', 'rebuild', '--json']));
    assert.equal(rb.added, 2);
    assert.ok(fs.existsSync(rb.movedAside));
    const st2 = json(await run(cwd, ['memory', 'status', '--json']));
    assert.equal(st2.state, 'ok');
    assert.equal(st2.counts.decision, 1);
    assert.equal(st2.counts.learning, 1);
  });

  test('Kuzu unavailable (env): everything works on the journal and is ingested when Kuzu is back', async () => {
    const cwd = tmp();
    const env = { WAYMARK_MEMORY_ENGINE: 'journal' };
    const r1 = json(await run(cwd, ['memory', 'record', '--type', 'decision', 'no kuzu here', '--workflow', 'a.md', '--json'], env));
    assert.equal(r1.stored, 'inbox');
    const st = json(await run(cwd, ['memory', 'status', '--json'], env));
    assert.equal(st.state, 'degraded');
    assert.equal(st.cause, 'unavailable');
    assert.match(st.reason, /Kuzu cannot load/);
    const rc = json(await run(cwd, ['memory', 'recall', '--workflow', 'a.md', '--json'], env));
    assert.equal(rc.items[0].memory.id, r1.id);
    assert.ok(fs.readFileSync(path.join(cwd, '.waymark/memory/orchestrator_memory.md'), 'utf8').includes('no kuzu here'));
    assert.equal(fs.existsSync(path.join(cwd, '.waymark/memory/graph.kuzu')), false);
    const back = json(await run(cwd, ['memory', 'recall', '--workflow', 'a.md', '--json']));
    assert.equal(back.engine, 'kuzu');
    assert.equal(back.items[0].memory.id, r1.id);
  });

  test('Kuzu unavailable (injected loader): the fallback path is the real journal store', async () => {
    const root = tmp();
    const broken = createMemoryService({ root, loader: () => { throw new Error('simulated: kuzujs.node: invalid ELF header'); } });
    try {
      const d = await broken.record({ type: 'decision', text: 'works without kuzu', workflow: 'w.md', step: 's1' });
      await broken.record({ type: 'learning', category: 'observation', text: 'obs one', workflow: 'w.md', step: 's1' });
      await broken.onWorkflowEvent({ seq: 1, time: new Date().toISOString(), operation: 'complete-step', file: path.join(root, 'w.md'), detail: { step: 's1' } }, { root, file: path.join(root, 'w.md'), operation: 'complete-step' });
      const st = await broken.status();
      assert.equal(st.state, 'degraded');
      assert.match(st.reason!, /invalid ELF header/);
      assert.equal(st.counts.summary, 1, 'consolidation ran on the journal');
      const r = await broken.recall({ workflow: 'w.md', step: 's1', types: ['decision'] });
      assert.equal(r.engine, 'journal');
      assert.equal(r.items[0].memory.id, d.id);
    } finally {
      await broken.dispose();
    }
    const fixed = createMemoryService({ root });
    try {
      const st = await fixed.status();
      assert.equal(st.state, 'ok');
      assert.deepEqual([st.counts.decision, st.counts.learning, st.counts.summary], [1, 1, 1]);
    } finally {
      await fixed.dispose();
    }
  });
});

describe('memory: CLI surface', () => {
  test('--help for every verb, usage errors exit 2 with a clear message', async () => {
    const cwd = tmp();
    for (const verb of [['memory', 'record'], ['memory', 'recall'], ['memory', 'import'], ['memory', 'export'], ['memory', 'status'], ['memory', 'prune'], ['memory', 'rebuild'], ['session', 'start'], ['session', 'end']]) {
      const r = await run(cwd, [...verb, '--help']);
      assert.equal(r.code, 0, verb.join(' '));
      assert.match(r.stdout, new RegExp(`Usage: waymark ${verb.join(' ')}`));
    }
    const noType = await run(cwd, ['memory', 'record', 'x']);
    assert.equal(noType.code, 2);
    assert.match(noType.stderr, /--type is required/);
    const badCat = await run(cwd, ['memory', 'record', '--type', 'learning', '--category', 'vibes', 'x', '--json']);
    assert.equal(badCat.code, 2);
    assert.equal(JSON.parse(badCat.stdout).error.reason, 'usage');
    const missing = await run(cwd, ['memory', 'import', 'nope/nothing']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /does not exist/);
    const s = json(await run(cwd, ['session', 'start', '--objective', 'ship', '--json']));
    assert.match(s.session.id, /^s-/);
    const e = json(await run(cwd, ['session', 'end', '--summary', 'shipped', '--json']));
    assert.equal(e.session.id, s.session.id);
    assert.equal(e.summary.text, 'shipped');
  });
});

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore, findWorkspaceRoot, nodeFileSystem, overlayFileSystem, WaymarkError, type FileSystem } from '../../src/core/index';
import { loadWorkspaceContext } from '../../src/core/store/workspaceContext';

const tmps: string[] = [];
after(() => {
  for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
});

function workspace(config?: string): { root: string; file: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-onecore-'));
  tmps.push(root);
  fs.mkdirSync(path.join(root, '.waymark'));
  if (config !== undefined) fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), config);
  const file = path.join(root, 'plan.md');
  fs.writeFileSync(file, '---\nworkflow: demo\nstatus: created\nsteps: [one, two]\nstepsCompleted: []\n---\n# Demo\n');
  return { root, file };
}

describe('one config schema: the memory: block', () => {
  test('memory: in config.yaml is a known setting (no config-unknown-key), in the Problems of a scan too', async () => {
    const { root } = workspace('memory:\n  engine: journal\n  dir: .waymark/mem2\n  waitMs: 250\n');
    const { problems, context } = await loadWorkspaceContext(root);
    assert.deepEqual(problems.map((p) => p.code), []);
    assert.equal(context.config.memory.engine, 'journal');
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.scan();
      assert.deepEqual(core.problems().filter((p) => p.code.startsWith('config-')), []);
    } finally {
      await core.close();
    }
  });

  test('a misspelt key inside memory: is still reported, with the near name', async () => {
    const { root } = workspace('memory:\n  engin: journal\n');
    const { problems } = await loadWorkspaceContext(root);
    assert.deepEqual(problems.map((p) => [p.code, p.data?.to]), [['config-unknown-key', 'engine']]);
  });

  test('memory settings from config.yaml take effect: folder and engine', async () => {
    const { root } = workspace('memory:\n  engine: journal\n  dir: .waymark/mem2\n');
    const core = createStateCore({ roots: [root] });
    try {
      const mem = core.memory.forRoot(root);
      assert.equal(mem.paths.dir, path.join(root, '.waymark', 'mem2'));
      await mem.record({ type: 'learning', category: 'gotcha', text: 'fixtures live in git' });
      assert.ok(fs.existsSync(path.join(root, '.waymark', 'mem2', 'inbox.jsonl')), 'the journal is in the configured folder');
      assert.ok(!fs.existsSync(path.join(root, '.waymark', 'mem2', 'graph.kuzu')), 'engine: journal never opens Kuzu');
      const st = await mem.status();
      assert.equal(st.engine, 'journal');
    } finally {
      await core.close();
    }
  });

  test('a memory folder outside the workspace is refused by the schema and the default is used', async () => {
    const { root } = workspace('memory:\n  dir: ../elsewhere\n');
    const { problems } = await loadWorkspaceContext(root);
    assert.deepEqual(problems.map((p) => p.code), ['config-invalid']);
    assert.match(problems[0].message, /memory\.dir/);
    const core = createStateCore({ roots: [root] });
    try {
      assert.equal(core.memory.forRoot(root).paths.dir, path.join(root, '.waymark', 'memory'));
    } finally {
      await core.close();
    }
  });
});

describe('one object: the core owns and closes its parts', () => {
  test('close() releases memory; a closed core refuses memory; memory: false never opens it', async () => {
    const { root } = workspace();
    const core = createStateCore({ roots: [root] });
    const mem = core.memory.forRoot(root);
    assert.equal(core.memory.forRoot(root), mem, 'one service per folder');
    await core.close();
    assert.throws(() => core.memory.forRoot(root), (e: unknown) => WaymarkError.is(e, 'unavailable'));
    await assert.rejects(mem.status(), (e: unknown) => WaymarkError.is(e, 'unavailable'), 'the service was disposed with its last holder');
    const off = createStateCore({ roots: [root], memory: false });
    assert.equal(off.memory.enabled, false);
    assert.throws(() => off.memory.forRoot(root), (e: unknown) => WaymarkError.is(e, 'unavailable'));
    await off.close();
  });

  test('two cores on one folder share its memory service until both are closed', async () => {
    const { root } = workspace();
    const a = createStateCore({ roots: [root] });
    const b = createStateCore({ roots: [root] });
    const ma = a.memory.forRoot(root);
    assert.equal(b.memory.forRoot(root), ma);
    await a.close();
    await ma.record({ type: 'learning', category: 'gotcha', text: 'still open for b' });
    await b.close();
    await assert.rejects(ma.status(), (e: unknown) => WaymarkError.is(e, 'unavailable'));
  });

  test('core.protocol: checkpoints and three-tier resume with the core\'s contexts and guards', async () => {
    const { root, file } = workspace();
    const core = createStateCore({ roots: [root], actor: 'tester', memory: false });
    try {
      await core.scan();
      await core.start(file);
      const cp = await core.protocol.createCheckpoint(root, { message: 'after start' });
      assert.equal(cp.actor, 'tester', "the core's actor is the default");
      assert.deepEqual(core.protocol.listCheckpoints(root).map((c) => c.id), [cp.id]);
      const r = await core.protocol.resume(root, file);
      assert.equal(r.step, 'one');
      assert.equal(r.degradation, 'standard');
      // The core's own lease guard refuses a write while someone else holds the file.
      await core.protocol.acquireLease(root, file, { agent: 'other', session: 'o', host: os.hostname() });
      await core.advance(file).then(
        () => assert.fail('the write should be refused'),
        (e: unknown) => assert.ok(WaymarkError.is(e, 'locked')),
      );
      const hist = await core.protocol.history(root, file);
      assert.ok(hist.entries.some((e) => e.operation === 'session.start' && e.actor === 'other'), 'lease markers reach the history whichever face asked');
    } finally {
      await core.close();
    }
  });
});

describe('one reader behind the FileSystem port', () => {
  test('an overlay (an unsaved editor) is what reload and readWorkflow see; writes still start from the disk', async () => {
    const { root, file } = workspace();
    const unsaved = fs.readFileSync(file, 'utf8').replace('status: created', 'status: in_progress\ncurrentStep: one');
    const seen: string[] = [];
    const view: FileSystem = overlayFileSystem(nodeFileSystem, (f) => {
      seen.push(f);
      return f === file ? unsaved : undefined;
    });
    const core = createStateCore({ roots: [root], fs: view, memory: false });
    try {
      assert.equal((await core.reload(file))?.status, 'in_progress');
      assert.equal((await core.readWorkflow(file)).state?.currentStep, 'one');
      assert.ok(seen.includes(file));
      const r = await core.start(file);
      assert.equal(r.before.status, 'created', 'the write read the disk, not the overlay');
      assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /currentStep: one\n[\s\S]*currentStep/);
    } finally {
      await core.close();
    }
  });

  test('the reader refuses what Waymark must not edit, with the reason, through any port', async () => {
    const { root, file } = workspace();
    const binary: FileSystem = { stat: (f) => nodeFileSystem.stat(f), readFile: () => Buffer.from([0x2d, 0x2d, 0x2d, 0x00, 0x0a]) };
    const core = createStateCore({ roots: [root], fs: binary, memory: false });
    try {
      await assert.rejects(core.readWorkflow(file), (e: unknown) => WaymarkError.is(e, 'unreadable') && /binary/.test((e as Error).message));
    } finally {
      await core.close();
    }
  });
});

describe('one root resolver', () => {
  test('the deepest root holding a file; else the nearest marker folder; rootOf says undefined outside', () => {
    const { root, file } = workspace();
    const inner = path.join(root, 'pkg');
    fs.mkdirSync(path.join(inner, '.git'), { recursive: true });
    const innerFile = path.join(inner, 'x.md');
    assert.equal(findWorkspaceRoot(file), root);
    assert.equal(findWorkspaceRoot(innerFile), inner);
    const core = createStateCore({ roots: [root, inner], memory: false });
    assert.equal(core.rootFor(innerFile), inner);
    assert.equal(core.rootFor(file), root);
    assert.equal(core.rootOf(path.join(os.tmpdir(), 'elsewhere.md')), undefined);
    core.dispose();
  });
});

describe('no hidden fields on WorkflowState', () => {
  test('a spread or JSON copy of a state keeps what its parse knew: step analysis and delegation positions', async () => {
    const { parseWorkflowText, stepAnalysis, defaultWorkspaceContext, validateDelegation } = await import('../../src/core/index');
    const ctx = defaultWorkspaceContext(os.tmpdir());
    const text = '---\nworkflow: w\nsteps: [a, b, c]\nstepsCompleted: [a, c]\ndelegation:\n  id: kid\n  parent_id: gone\n  root_id: gone\n  depth: 1\n  chain_path: [gone, kid]\n---\n';
    const s = parseWorkflowText('/x/kid.md', text, ctx).state!;
    assert.deepEqual(Object.getOwnPropertySymbols(s), [], 'no symbol-keyed fields');
    for (const copy of [{ ...s }, { ...JSON.parse(JSON.stringify(s)), data: s.data }]) {
      assert.deepEqual([...stepAnalysis(copy).missing.map((m) => m.id)], ['b']);
      const orphan = validateDelegation([copy]).find((p) => p.code === 'delegation-orphan')!;
      assert.deepEqual(orphan.range.start, { line: 6, character: 13 }, 'placed on parent_id, not line 0');
    }
  });
});

describe('a mutation is one table entry', () => {
  test('core.apply runs any MUTATIONS entry through the write path; an unknown name is a usage error', async () => {
    const { MUTATIONS } = await import('../../src/core/index');
    const { root, file } = workspace();
    const core = createStateCore({ roots: [root], actor: 'tester', memory: false });
    try {
      await core.scan();
      const r = await core.apply(file, 'set-scope', { scope: 'small' });
      assert.equal(r.after.scope, 'small');
      const h = await core.history(file);
      assert.equal(h.at(-1)?.operation, 'set-scope', 'history records the table name');
      await assert.rejects(core.apply(file, 'nope' as never, {} as never), (e: unknown) => WaymarkError.is(e, 'usage') && /known: start, advance/.test((e as Error).message));
      for (const [name, m] of Object.entries(MUTATIONS)) assert.ok(m.summary && typeof m.plan === 'function', name);
    } finally {
      await core.close();
    }
  });
});

describe('one sorted list of states', () => {
  test('a file read again or written keeps its place; one added or removed is sorted in; lists handed out earlier stay as they were', async () => {
    const { root } = workspace();
    const file = (n: string) => path.join(root, `${n}.md`);
    const wf = (n: string, step: string) => `---\nworkflow: ${n}\nstatus: in_progress\nsteps: [one, two]\ncurrentStep: ${step}\nstepsCompleted: []\n---\n`;
    for (const n of ['c', 'a', 'b']) fs.writeFileSync(file(n), wf(n, 'one'));
    const core = createStateCore({ roots: [root], memory: false });
    try {
      await core.scan();
      const names = () => core.list().map((s) => path.basename(s.file));
      const first = core.list();
      assert.deepEqual(names(), ['a.md', 'b.md', 'c.md', 'plan.md']);
      fs.writeFileSync(file('b'), wf('b', 'two'));
      await core.reload(file('b'));
      assert.deepEqual(names(), ['a.md', 'b.md', 'c.md', 'plan.md']);
      assert.equal(core.list()[1].currentStep, 'two');
      assert.equal(core.list()[1], core.get(file('b')));
      assert.equal(first[1].currentStep, 'one', 'a list handed out before is not changed');
      await core.apply(file('c'), 'advance', {} as never);
      assert.equal(core.list()[2], core.get(file('c')));
      fs.writeFileSync(file('aa'), wf('aa', 'one'));
      await core.reload(file('aa'));
      assert.deepEqual(names(), ['a.md', 'aa.md', 'b.md', 'c.md', 'plan.md']);
      core.remove(file('a'));
      assert.deepEqual(names(), ['aa.md', 'b.md', 'c.md', 'plan.md']);
      assert.deepEqual(core.list().map((s) => s.currentStep), [core.get(file('aa'))!.currentStep, 'two', core.get(file('c'))!.currentStep, undefined]);
    } finally {
      await core.close();
    }
  });
});

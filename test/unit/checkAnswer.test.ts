import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkWorkspace, createStateCore, type WorkspaceCheck } from '../../src/core/index';
import { runCli } from '../../src/cli/framework';
import { spawnSync } from 'node:child_process';
import { workspace, writeFiles } from './fileHelpers';
import { bigTree } from './treeHelpers';
import { setSprintCacheRacyWindow, sprintCachePath } from '../../src/core/bmad/sprintCache';

function wf(id: string, status: string, extra = ''): string {
  return `---\nworkflow: ${id}\nstatus: ${status}\nstepsCompleted: []\n${extra}---\n# ${id}\n`;
}

const createCore = (roots: string[]) => createStateCore({ roots, memory: false, scanIndex: false });
/** Files are older than the run that stores the answer: nothing is racy. */
const check = (root: string) => checkWorkspace(root, { createCore, racyWindowMs: 0 });

/** The full path, no scan index and no stored answer. */
async function full(root: string): Promise<WorkspaceCheck> {
  const was = process.env.WAYMARK_SCAN_INDEX;
  process.env.WAYMARK_SCAN_INDEX = '0';
  try {
    return await checkWorkspace(root, { createCore });
  } finally {
    if (was === undefined) delete process.env.WAYMARK_SCAN_INDEX;
    else process.env.WAYMARK_SCAN_INDEX = was;
  }
}

/** The answer without the idle milliseconds, which move with the clock between any two runs. */
function settled(c: WorkspaceCheck) {
  return { files: c.files, workflows: c.workflows, skipped: c.skipped, problems: c.problems.map((p) => (p.code === 'work-stalled' ? { ...p, data: { ...p.data, idleMs: 'idle' } } : p)) };
}

/** A tree with stalled work, delegation, a dependency cycle, a bad file and a skipped one. */
function tree(): string {
  const root = workspace({
    'quiet.md': wf('quiet', 'in_progress'),
    'busy.md': wf('busy', 'in_progress'),
    'parent.md': wf('parent', 'created', 'waitForChildren: true\ndelegation: {id: parent, parent_id: null, root_id: parent, depth: 0, chain_path: [parent]}\n'),
    'child.md': wf('child', 'in_progress', 'delegation: {id: kid, parent_id: parent, root_id: parent, depth: 1, chain_path: [parent, kid]}\n'),
    'orphan.md': wf('orphan', 'created', 'delegation: {id: lost, parent_id: nobody, root_id: nobody, depth: 1, chain_path: [nobody, lost]}\n'),
    'a.md': wf('a', 'created', 'dependsOn: [b]\n'),
    'b.md': wf('b', 'created', 'dependsOn: [a]\n'),
    'bad.md': '---\nstatus: [unclosed\n---\n',
    'notes.md': '# no frontmatter\n',
    'bin.md': 'a\0b',
    'odd.md/inside.txt': 'a folder named like a workflow file',
  }, { prefix: 'wm-answer-' });
  const old = new Date(Date.now() - 10 * 86_400_000);
  fs.utimesSync(path.join(root, 'quiet.md'), old, old);
  return root;
}

const IMPL = '_bmad-output/implementation-artifacts';
const LEDGER = `${IMPL}/sprint-status.yaml`;

function story(title: string, status: string): string {
  return `# Story ${title}\n\nStatus: ${status}\n\n## Tasks / Subtasks\n\n- [${status === 'done' ? 'x' : ' '}] Task 1\n`;
}

/** Sets the modification time of every file and folder under `root` (but the cache) to `ms` ago. */
function age(root: string, ms: number): void {
  const t = new Date(Date.now() - ms);
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && e.name !== 'cache') walk(p);
      if (e.isFile()) fs.utimesSync(p, t, t);
    }
    fs.utimesSync(d, t, t);
  };
  walk(root);
}

/** A BMAD v6 project (with an empty `.waymark/` unless `waymark: false`, a fresh clone's): install config, ledger, stories (one stalled in progress, one drifting), epics. */
function sprintProject(at = '', opts: { waymark?: boolean } = {}): string {
  const root = workspace({}, { prefix: 'wm-answer-bmad-', waymark: opts.waymark });
  const base = at ? `${at}/` : '';
  writeFiles(root, {
    [`${base}_bmad/bmm/config.yaml`]: 'project_name: Demo\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\n',
    [`${base}${LEDGER}`]: 'development_status:\n  epic-1: in-progress\n  1-1-login: in-progress\n  1-2-logout: review\n  1-3-profile: ready-for-dev\n  epic-1-retrospective: optional\n',
    [`${base}${IMPL}/1-1-login.md`]: story('1.1: Login', 'in-progress'),
    [`${base}${IMPL}/1-2-logout.md`]: story('1.2: Logout', 'done'),
    [`${base}${IMPL}/1-3-profile.md`]: story('1.3: Profile', 'ready-for-dev'),
    [`${base}_bmad-output/planning-artifacts/epics.md`]: '# Epics\n\n## Epic 1: Accounts\n\n### Story 1.1: Login\n\n### Story 1.2: Logout\n\n### Story 1.3: Profile\n',
    'w.md': wf('w', 'created'),
  });
  // Ten days untouched: the in-progress story is stalled.
  age(root, 10 * 86_400_000);
  return root;
}

/** A file's text with one replacement made (it must be there). */
function edit(file: string, from: string | RegExp, to: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  assert.notEqual(next, text, `${file} has no ${String(from)}`);
  fs.writeFileSync(file, next);
}

describe('validate answer kept across runs (checkAnswer)', () => {
  test('a warm run answers from the stored answer with what a full run says, idle times computed again', async () => {
    const root = tree();
    const first = await check(root);
    assert.equal(first.reused, false);
    assert.ok(first.problems.some((p) => p.code === 'work-stalled' && p.file.endsWith('quiet.md')), JSON.stringify(first.problems));
    assert.ok(first.problems.some((p) => p.code === 'depends-cycle'));
    assert.ok(first.problems.some((p) => p.file.endsWith('orphan.md')));
    assert.ok(first.skipped.some((s) => s.file.endsWith('bin.md')));
    assert.ok(first.skipped.some((s) => s.file.endsWith('odd.md')), JSON.stringify(first.skipped));
    assert.ok(fs.existsSync(path.join(root, '.waymark/cache/check-answer.json')));
    await new Promise((r) => setTimeout(r, 5));
    const second = await check(root);
    assert.equal(second.reused, true);
    assert.deepStrictEqual(settled(second), settled(first));
    assert.deepStrictEqual(settled(second), settled(await full(root)));
    const idle = (c: WorkspaceCheck) => (c.problems.find((p) => p.code === 'work-stalled')!.data as { idleMs: number }).idleMs;
    assert.ok(idle(second) > idle(first), 'idle time is now minus the last activity, not the stored figure');
  });

  const changes: [string, (root: string) => void][] = [
    ['content edited', (r) => fs.appendFileSync(path.join(r, 'busy.md'), 'more\n')],
    ['same size, modification time put back (change time moves)', (r) => {
      const f = path.join(r, 'busy.md');
      const st = fs.statSync(f);
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('in_progress', 'review_____'));
      fs.utimesSync(f, st.atime, st.mtime);
    }],
    ['file added', (r) => fs.writeFileSync(path.join(r, 'new.md'), wf('new', 'created', 'dependsOn: [ghost]\n'))],
    ['file deleted', (r) => fs.rmSync(path.join(r, 'b.md'))],
    ['file renamed', (r) => fs.renameSync(path.join(r, 'a.md'), path.join(r, 'z.md'))],
    ['configuration changed', (r) => fs.writeFileSync(path.join(r, '.waymark/config.yaml'), 'project:\n  stalledAfter:\n    workflow: 30d\n')],
    ['history of in-progress work written', (r) => {
      fs.mkdirSync(path.join(r, '.waymark/history'), { recursive: true });
      fs.writeFileSync(path.join(r, '.waymark/history/quiet.md.jsonl'), JSON.stringify({ time: new Date().toISOString(), actor: 'me', op: 'update', file: 'quiet.md' }) + '\n');
    }],
  ];
  for (const [what, change] of changes) {
    test(`${what}: the full path runs and says what a full run says`, async () => {
      const root = tree();
      await check(root);
      assert.equal((await check(root)).reused, true);
      change(root);
      const after = await check(root);
      assert.equal(after.reused, false);
      assert.deepStrictEqual(settled(after), settled(await full(root)));
      assert.equal((await check(root)).reused, true, 'the new answer is stored');
    });
  }

  test('a file changed within the racy window of the run is never answered from that run', async () => {
    const root = tree();
    const first = await checkWorkspace(root, { createCore });
    assert.equal(first.reused, false);
    assert.equal((await checkWorkspace(root, { createCore })).reused, false);
  });

  test('a folder with a BMAD sprint is answered from its stored answer, as a full run says', async () => {
    const root = sprintProject();
    const first = await check(root);
    assert.equal(first.reused, false);
    assert.ok(first.problems.some((p) => p.code === 'work-stalled' && p.file.endsWith('1-1-login.md')), JSON.stringify(first.problems));
    const second = await check(root);
    assert.equal(second.reused, true);
    assert.deepStrictEqual(settled(second), settled(first));
    assert.deepStrictEqual(settled(second), settled(await full(root)));
  });

  test('the scan index is written from the second full check on, or at once when no answer can be stored', async () => {
    const indexFile = (r: string) => path.join(r, '.waymark/cache/scan-index.jsonl');
    const settle = () => new Promise((r) => setImmediate(r));
    const root = tree();
    const first = await check(root);
    await settle();
    assert.ok(fs.existsSync(path.join(root, '.waymark/cache/check-answer.json')), 'the answer is stored');
    assert.ok(!fs.existsSync(indexFile(root)), 'a first check whose answer is stored writes no index the next run would not read');
    fs.appendFileSync(path.join(root, 'busy.md'), 'more\n');
    const second = await check(root);
    await settle();
    assert.equal(second.reused, false);
    assert.ok(fs.existsSync(indexFile(root)), 'a folder checked again after a change gets the index');
    assert.deepStrictEqual(settled(second), settled(await full(root)));
    fs.appendFileSync(path.join(root, 'busy.md'), 'again\n');
    const third = await check(root);
    assert.deepStrictEqual(settled(third), settled(await full(root)), 'the answer built on the index is a full run\'s');
    assert.deepStrictEqual(settled(first).skipped, settled(third).skipped);

    // A folder with a BMAD sprint stores its answer too: its first check writes no index.
    const sprint = sprintProject();
    await check(sprint);
    await settle();
    assert.ok(fs.existsSync(path.join(sprint, '.waymark/cache/check-answer.json')));
    assert.ok(!fs.existsSync(indexFile(sprint)));
    // A folder whose answer cannot be stored (a lease) gets the index at once.
    const leased = tree();
    const core = createCore([leased]);
    await core.protocol.acquireLease(leased, 'busy.md', { agent: 'test', host: os.hostname() });
    await core.close();
    await check(leased);
    await settle();
    assert.ok(!fs.existsSync(path.join(leased, '.waymark/cache/check-answer.json')));
    assert.ok(fs.existsSync(indexFile(leased)));
  });

  test('waymark validate of a whole folder prints the same warm as cold', async () => {
    const root = tree();
    fs.utimesSync(path.join(root, 'quiet.md'), new Date(Date.now() - 10 * 86_400_000), new Date(Date.now() - 10 * 86_400_000));
    const { readCommands } = await import('../../src/cli/readCommands');
    const run = async () => {
      let out = '';
      const code = await runCli(readCommands, ['validate', '.'], { cwd: root, stdout: (t) => (out += t), stderr: (t) => (out += t) });
      return { code, out };
    };
    const cold = await run();
    // Past the racy window, so the next run stores its answer and the one after reuses it.
    await new Promise((r) => setTimeout(r, 2100));
    const stored = await run();
    const warm = await run();
    assert.deepStrictEqual(stored, cold);
    assert.deepStrictEqual(warm, cold);
    assert.match(warm.out, /work-stalled In progress but untouched for 10 d/);
  });
  const bmadChanges: [string, (root: string) => void][] = [
    ['a story\'s status line edited', (r) => edit(path.join(r, IMPL, '1-3-profile.md'), 'Status: ready-for-dev', 'Status: in-progress')],
    ['a ledger line edited', (r) => edit(path.join(r, LEDGER), '1-2-logout: review', '1-2-logout: done')],
    ['the ledger edited to the same size with its modification time put back (change time moves)', (r) => {
      const f = path.join(r, LEDGER);
      const st = fs.statSync(f);
      edit(f, '1-2-logout: review', '1-2-logout: in-pr');
      fs.utimesSync(f, st.atime, st.mtime);
    }],
    ['a story file added', (r) => fs.writeFileSync(path.join(r, IMPL, '1-4-avatar.md'), story('1.4: Avatar', 'in-progress'))],
    ['a story file deleted', (r) => fs.rmSync(path.join(r, IMPL, '1-2-logout.md'))],
    ['the epics document edited', (r) => fs.appendFileSync(path.join(r, '_bmad-output/planning-artifacts/epics.md'), '\n### Story 1.4: Avatar\n')],
    ['the BMAD config changed (another story folder)', (r) => {
      writeFiles(r, { '_bmad-output/stories/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-login: done\n' });
      fs.writeFileSync(path.join(r, '_bmad/bmm/config.yaml'), 'project_name: Demo\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/stories"\n');
    }],
    ['the Waymark configuration changed (stalled threshold)', (r) => fs.writeFileSync(path.join(r, '.waymark/config.yaml'), 'project:\n  stalledAfter:\n    ledger: 30d\n')],
  ];
  for (const [what, change] of bmadChanges) {
    test(`BMAD sprint, ${what}: the full path runs and says what a full run says`, async () => {
      const root = sprintProject();
      const first = await check(root);
      assert.equal((await check(root)).reused, true);
      change(root);
      const after = await check(root);
      assert.equal(after.reused, false);
      assert.deepStrictEqual(settled(after), settled(await full(root)));
      assert.notDeepStrictEqual(settled(after), settled(first), 'the change shows in the answer');
      assert.equal((await check(root)).reused, true, 'the new answer is stored');
    });
  }

  test('an answer built on a sprint read from the sprint cache keeps the cache\'s inputs: a later ledger edit is seen', async () => {
    setSprintCacheRacyWindow(0);
    try {
      const root = sprintProject();
      await check(root);
      assert.ok(fs.existsSync(sprintCachePath(root)), 'the sprint is cached');
      const cached = fs.statSync(sprintCachePath(root)).mtimeMs;
      // A change the sprint does not depend on: the answer is computed again, its sprint from the cache.
      fs.writeFileSync(path.join(root, '.waymark/config.yaml'), 'project:\n  stalledAfter:\n    workflow: 30d\n');
      assert.equal((await check(root)).reused, false);
      assert.equal(fs.statSync(sprintCachePath(root)).mtimeMs, cached, 'the sprint came from its cache');
      assert.equal((await check(root)).reused, true);
      // The ledger is no candidate file: only the inputs handed on by the sprint cache name it.
      edit(path.join(root, LEDGER), '1-2-logout: review', '1-2-logout: done');
      const after = await check(root);
      assert.equal(after.reused, false);
      assert.deepStrictEqual(settled(after), settled(await full(root)));
      assert.ok(!after.problems.some((p) => p.code === 'story-status-drift'), JSON.stringify(after.problems));
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });

  test('the first check of a project whose root the BMAD readers list stores its answer (making .waymark/ there is no change to them)', async () => {
    // Nothing in the project changed for ten days; the first check makes .waymark/ in the root,
    // which moves the root's modification time into the racy window of that very check.
    const single = sprintProject('', { waymark: false });
    const mono = sprintProject('apps/planner', { waymark: false });
    // Past a racy window of a second for every file (change times cannot be set back).
    await new Promise((r) => setTimeout(r, 1100));
    const run = (root: string) => checkWorkspace(root, { createCore, racyWindowMs: 1000 });
    for (const root of [single, mono]) {
      assert.ok(!fs.existsSync(path.join(root, '.waymark')), root);
      const first = await run(root);
      assert.equal(first.reused, false);
      assert.ok(fs.existsSync(path.join(root, '.waymark/cache/check-answer.json')), `${root}: the first check stored its answer`);
      const second = await run(root);
      assert.equal(second.reused, true, root);
      assert.deepStrictEqual(settled(second), settled(first));
      assert.deepStrictEqual(settled(second), settled(await full(root)));
      // A new folder in the root (a BMAD project could be there) is still seen.
      fs.mkdirSync(path.join(root, 'extra'));
      assert.equal((await run(root)).reused, false, `${root}: a new folder in the root`);
    }
  });

  test('BMAD input (the ledger, no candidate file) changed within the racy window: the answer is not stored', async () => {
    const racy = sprintProject();
    const quiet = sprintProject();
    // Past a racy window of a second for every file (change times cannot be set back)...
    await new Promise((r) => setTimeout(r, 1100));
    // ...but the racy project's ledger, written now.
    fs.appendFileSync(path.join(racy, LEDGER), '  1-4-avatar: backlog\n');
    const answer = (r: string) => path.join(r, '.waymark/cache/check-answer.json');
    const a = await checkWorkspace(racy, { createCore, racyWindowMs: 1000 });
    const b = await checkWorkspace(quiet, { createCore, racyWindowMs: 1000 });
    assert.ok(!fs.existsSync(answer(racy)), 'a racy ledger: no answer stored');
    assert.ok(fs.existsSync(answer(quiet)), 'the same project with nothing racy stores it');
    assert.equal(a.reused || b.reused, false);
    assert.equal((await checkWorkspace(quiet, { createCore, racyWindowMs: 1000 })).reused, true);
    assert.equal((await checkWorkspace(racy, { createCore, racyWindowMs: 1000 })).reused, false);
  });

  test('a monorepo\'s BMAD project in a subfolder: reused while unchanged, recomputed when its story or a new project changes', async () => {
    const root = sprintProject('apps/planner');
    const first = await check(root);
    assert.ok(first.problems.some((p) => p.file.includes('apps/planner/')), JSON.stringify(first.problems));
    // The first run made the sub-project's cache folder (apps/planner/.waymark) after listing
    // apps/planner: its key moved but not its entries (.waymark/ is no BMAD input), so the first
    // run's answer is the one kept.
    assert.equal((await check(root)).reused, true);
    edit(path.join(root, 'apps/planner', IMPL, '1-3-profile.md'), 'Status: ready-for-dev', 'Status: review');
    let after = await check(root);
    assert.equal(after.reused, false);
    assert.deepStrictEqual(settled(after), settled(await full(root)));
    assert.equal((await check(root)).reused, true);
    // A second project appears beside it.
    writeFiles(root, { [`apps/other/${LEDGER}`]: 'development_status:\n  epic-1: in-progress\n  1-1-start: in-progress\n', [`apps/other/${IMPL}/1-1-start.md`]: story('1.1: Start', 'review') });
    after = await check(root);
    assert.equal(after.reused, false);
    assert.deepStrictEqual(settled(after), settled(await full(root)));
  });

  test('a folder only searched for BMAD projects changing its entries and back keeps the answer', async () => {
    const root = sprintProject('apps/planner');
    fs.mkdirSync(path.join(root, 'src'));
    await check(root);
    await check(root);
    assert.equal((await check(root)).reused, true);
    // A file made and removed (an editor's temp file): the folder's times move, its entries do not.
    fs.writeFileSync(path.join(root, 'src/x.tmp'), 'x');
    fs.rmSync(path.join(root, 'src/x.tmp'));
    assert.equal((await check(root)).reused, true);
  });

  test('a BMAD v7 ticket tree: reused while unchanged, recomputed when a plan\'s status or the breakdown changes', async () => {
    const root = bigTree(2, 4);
    fs.mkdirSync(path.join(root, '.waymark'));
    const first = await check(root);
    assert.equal(first.reused, false);
    const second = await check(root);
    assert.equal(second.reused, true);
    assert.deepStrictEqual(settled(second), settled(await full(root)));
    const epic = path.join(root, '_bmad-output/initiative-big/epic-e1');
    const plan = fs.readdirSync(epic).find((f) => /-plan\.md$/.test(f) && /status: (?!done)/.test(fs.readFileSync(path.join(epic, f), 'utf8')))!;
    edit(path.join(epic, plan), /status: \S+/, 'status: done');
    let after = await check(root);
    assert.equal(after.reused, false);
    assert.deepStrictEqual(settled(after), settled(await full(root)));
    assert.equal((await check(root)).reused, true);
    fs.appendFileSync(path.join(epic, 'tickets.toml'), '[[entry]]\nid = 99\ntype = "story"\ntitle = "Late"\nafter = [42]\n');
    after = await check(root);
    assert.equal(after.reused, false);
    assert.deepStrictEqual(settled(after), settled(await full(root)));
  });

  test('waymark validate as a process on a BMAD project: warm and after each edit, the same as with no cache', (t) => {
    const cli = path.resolve('dist/cli.js');
    if (!fs.existsSync(cli)) return t.skip('dist/cli.js not built');
    const root = sprintProject();
    const run = (env: NodeJS.ProcessEnv = {}) => {
      const r = spawnSync(process.execPath, [cli, 'validate', '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
      assert.ok(r.status === 0 || r.status === 1, r.stderr);
      const out = JSON.parse(r.stdout) as { problems: { code: string; message: string; data?: unknown }[] };
      // Idle minutes move with the clock between two runs.
      return { status: r.status, out: { ...out, problems: out.problems.map((p) => (p.code === 'work-stalled' ? { ...p, message: p.message.replace(/untouched for [^(]+/, 'untouched for N'), data: 'idle' } : p)) } };
    };
    const cold = () => run({ WAYMARK_SCAN_INDEX: '0' });
    const answer = path.join(root, '.waymark/cache/check-answer.json');
    // Past the racy window (2 s by default), so the first run stores its answer.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2100);
    assert.deepStrictEqual(run(), cold());
    const stored = fs.statSync(answer).mtimeMs;
    assert.deepStrictEqual(run(), cold(), 'warm');
    assert.equal(fs.statSync(answer).mtimeMs, stored, 'the warm run answered from the stored answer');
    for (const change of [
      () => edit(path.join(root, IMPL, '1-1-login.md'), 'Status: in-progress', 'Status: review'),
      () => edit(path.join(root, LEDGER), '1-3-profile: ready-for-dev', '1-3-profile: in-progress'),
      () => fs.writeFileSync(path.join(root, IMPL, '1-5-extra.md'), story('1.5: Extra', 'done')),
      () => fs.rmSync(path.join(root, IMPL, '1-2-logout.md')),
    ]) {
      const before = run();
      change();
      const after = run();
      assert.deepStrictEqual(after, cold());
      assert.notDeepStrictEqual(after, before);
    }
  });

  test('BMAD projects with a v7 ticket tree (the tree found from the sprint\'s config): first run, kept sprint and stored answer all say what a run without caches says', async () => {
    for (const name of ['bmad-v7-sprint', 'bmad-v7-migrated', 'bmad-v7', 'bmad-v6']) {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), `wm-answer-${name}-`));
      try {
        fs.cpSync(path.resolve('test/fixtures', name), root, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
        const cold = settled(await full(root));
        const first = await check(root);
        assert.deepEqual(settled(first), cold, `${name}: the first run`);
        assert.deepEqual(settled(await check(root)), cold, `${name}: the second run`);
        const third = await check(root);
        assert.deepEqual(settled(third), cold, `${name}: the third run`);
        assert.equal(third.reused, true, `${name}: answered from the stored answer`);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    }
  });
});

describe("validate keeps what git answered for in-progress files (the stored answer's activity)", () => {
  test('a check after a change asks git only when HEAD, refs, the index or an in-progress file moved, and says what a run without caches says', async () => {
    const root = workspace({ 'a/one.md': wf('one', 'in_progress'), 'a/two.md': wf('two', 'in_progress'), 'b/three.md': wf('three', 'in_progress'), 'other.md': wf('other', 'created') }, { prefix: 'wm-answer-git-' });
    // git is found on PATH: a git of this test's own, which logs each run and starts the real one.
    const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-answer-gitbin-'));
    const log = path.join(bin, 'runs.log');
    fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    const runs = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
    const git = (date: string, ...args: string[]) => {
      const r = spawnSync(real, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
      assert.equal(r.status, 0, r.stderr);
    };
    git('2026-02-01T10:00:00Z', 'init', '-q');
    git('2026-02-01T10:00:00Z', 'add', '.');
    git('2026-02-01T10:00:00Z', 'commit', '-qm', 'start');
    const path0 = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${path0}`;
    // Each change is older than the check that follows it by more than a timestamp tick.
    const settle = () => new Promise((r) => setTimeout(r, 20));
    const lastOf = (c: WorkspaceCheck) => new Map(c.problems.filter((p) => p.code === 'work-stalled').map((p) => [path.basename(p.file), (p.data as { lastActivity?: string }).lastActivity]));
    try {
      await settle();
      const first = await check(root);
      assert.equal(first.reused, false);
      assert.ok(runs() > 0, 'the first check asks git');
      assert.equal(lastOf(first).get('one.md'), '2026-02-01T10:00:00.000Z', JSON.stringify(first.problems));
      const stored = JSON.parse(fs.readFileSync(path.join(root, '.waymark/cache/check-activity.json'), 'utf8')) as { activity?: { files: unknown[] } };
      assert.equal(stored.activity?.files.length, 3, 'each in-progress file is kept');

      // A file that is not in progress changes: the answer is computed again, git is not asked.
      fs.appendFileSync(path.join(root, 'other.md'), 'more\n');
      await settle();
      let n = runs();
      const afterEdit = await check(root);
      assert.equal(afterEdit.reused, false);
      assert.equal(runs(), n, 'no git for in-progress files that did not move');
      assert.deepStrictEqual(settled(afterEdit), settled(await full(root)));

      // An in-progress file is edited: git is asked about it (it has changes now: its file time).
      // (its modification time put back days, so it is still stalled and its time shows)
      fs.appendFileSync(path.join(root, 'a/two.md'), 'edited\n');
      const edited = new Date('2026-02-03T10:00:00Z');
      fs.utimesSync(path.join(root, 'a/two.md'), edited, edited);
      await settle();
      n = runs();
      const afterTwo = await check(root);
      assert.ok(runs() > n, 'git is asked about the moved file');
      assert.equal(lastOf(afterTwo).get('two.md'), edited.toISOString());
      assert.equal(lastOf(afterTwo).get('one.md'), '2026-02-01T10:00:00.000Z');
      assert.deepStrictEqual(settled(afterTwo), settled(await full(root)));

      // A commit moves HEAD: every file's last commit may have changed; git is asked again.
      git('2026-02-05T10:00:00Z', 'add', '.');
      git('2026-02-05T10:00:00Z', 'commit', '-qm', 'two');
      fs.appendFileSync(path.join(root, 'other.md'), 'again\n');
      await settle();
      n = runs();
      const afterCommit = await check(root);
      assert.ok(runs() > n, 'git is asked after HEAD moved');
      assert.equal(lastOf(afterCommit).get('two.md'), '2026-02-05T10:00:00.000Z');
      assert.deepStrictEqual(settled(afterCommit), settled(await full(root)));

      // The answer stored from a run that took the kept activity over keeps it for the next.
      fs.appendFileSync(path.join(root, 'other.md'), 'once more\n');
      await settle();
      await check(root);
      n = runs();
      fs.appendFileSync(path.join(root, 'other.md'), 'and more\n');
      await settle();
      const later = await check(root);
      assert.equal(runs(), n);
      assert.deepStrictEqual(settled(later), settled(await full(root)));
    } finally {
      process.env.PATH = path0;
      fs.rmSync(bin, { recursive: true, force: true });
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

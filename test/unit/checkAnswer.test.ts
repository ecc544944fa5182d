import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkWorkspace, createStateCore, type WorkspaceCheck } from '../../src/core/index';
import { runCli } from '../../src/cli/framework';
import { workspace } from './fileHelpers';

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

  test('a folder with a BMAD sprint always takes the full path', async () => {
    const root = workspace({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-login: in-progress\n',
      '_bmad-output/implementation-artifacts/1-1-login.md': '# Story 1.1\n\nStatus: in-progress\n',
      'w.md': wf('w', 'created'),
    }, { prefix: 'wm-answer-bmad-', config: 'dialects: [waymark, bmad]\n' });
    const first = await check(root);
    const second = await check(root);
    assert.equal(second.reused, false);
    assert.deepStrictEqual(settled(second), settled(first));
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

    // A folder with a BMAD sprint never stores an answer: its first check writes the index.
    const sprint = workspace({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-login: in-progress\n',
      '_bmad-output/implementation-artifacts/1-1-login.md': '# Story 1.1\n\nStatus: in-progress\n',
      'w.md': wf('w', 'created'),
    }, { prefix: 'wm-answer-bmad-index-', config: 'dialects: [waymark, bmad]\n' });
    await check(sprint);
    await settle();
    assert.ok(!fs.existsSync(path.join(sprint, '.waymark/cache/check-answer.json')));
    assert.ok(fs.existsSync(indexFile(sprint)));
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
});

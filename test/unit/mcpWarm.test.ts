// The MCP server answers whole-workspace questions (waymark_next, waymark_summary, waymark_board)
// from a warm project view kept current by its file watcher. What another process changed before
// the agent asked must be in the very next answer: no waiting, no retry. Real files, real git,
// real writer processes, the SDK's Client over stdio.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { cleanup, startServer, tmpDir } from './mcpHelpers';
import { TreeWatcher } from '../../src/mcp/treeWatcher';
import { DONE_PLAN, INIT, LOGIN, LOGIN_PLAN, loginPlan, v7Project } from './v7WriteHelpers';

after(cleanup);

function wf(name: string, status: string, extra: string[] = []): string {
  return ['---', `workflow: ${name}`, `status: ${status}`, 'steps: [design, build]', `currentStep: ${status === 'created' ? 'design' : 'build'}`, `stepsCompleted: [${status === 'created' ? '' : 'design'}]`, ...extra, '---', '', '# W', ''].join('\n');
}

/** Writes `text` to `file` from another Node process: in place, or by a rename over it (`atomic`). */
function writeFromAnotherProcess(file: string, text: string, atomic: boolean): void {
  const script = atomic
    ? 'const fs=require("fs");fs.writeFileSync(process.argv[1]+".tmp",process.argv[2]);fs.renameSync(process.argv[1]+".tmp",process.argv[1]);'
    : 'require("fs").writeFileSync(process.argv[1],process.argv[2]);';
  const r = spawnSync(process.execPath, ['-e', script, file, text]);
  assert.equal(r.status, 0, String(r.stderr));
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  assert.equal(r.status, 0, r.stderr);
}

function workspace(): string {
  const root = fs.realpathSync(tmpDir('waymark-warm-'));
  fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
  fs.mkdirSync(path.join(root, 'work', 'a'), { recursive: true });
  fs.writeFileSync(path.join(root, 'work', 'a', 'one.workflow.md'), wf('one', 'created'));
  fs.writeFileSync(path.join(root, 'work', 'a', 'two.workflow.md'), wf('two', 'created', ['dependsOn: [one]']));
  return root;
}

const ids = (entries: { id: string }[]) => entries.map((e) => e.id).sort();

describe('waymark mcp: the warm project view follows other processes', () => {
  test('in-place edits after an atomic replace, new folders and deletions are in the very next answer', async () => {
    const root = workspace();
    const one = path.join(root, 'work', 'a', 'one.workflow.md');
    const s = await startServer(root);
    try {
      let next = (await s.call('waymark_next')).data;
      assert.deepEqual(ids(next.ready), ['one']);
      // An editor's save: a rename over the file. Then an agent writes the same file in place
      // (Node's recursive watch on Linux loses this one: it watched the replaced inode).
      writeFromAnotherProcess(one, wf('one', 'in_progress'), true);
      next = (await s.call('waymark_next')).data;
      assert.deepEqual(ids(next.ready), [], 'the atomic replace is seen');
      writeFromAnotherProcess(one, wf('one', 'completed'), false);
      next = (await s.call('waymark_next')).data;
      assert.deepEqual(ids(next.ready), ['two'], 'the in-place write after it is seen');
      writeFromAnotherProcess(one, wf('one', 'created'), false);
      const board = (await s.call('waymark_board', { column: 'ready' })).data;
      assert.deepEqual(ids(board.items), ['one'], 'and the one after that');
      // A new folder with a workflow in it, written at once: the folder is watched only after its event.
      const spawnDir = path.join(root, 'work', 'b', 'deep');
      const r = spawnSync(process.execPath, ['-e', `const fs=require("fs");fs.mkdirSync(${JSON.stringify(spawnDir)},{recursive:true});fs.writeFileSync(${JSON.stringify(path.join(spawnDir, 'three.workflow.md'))},${JSON.stringify(wf('three', 'created'))});`]);
      assert.equal(r.status, 0, String(r.stderr));
      next = (await s.call('waymark_next')).data;
      assert.deepEqual(ids(next.ready), ['one', 'three']);
      // And an in-place edit inside that new folder.
      writeFromAnotherProcess(path.join(spawnDir, 'three.workflow.md'), wf('three', 'in_progress'), false);
      next = (await s.call('waymark_next')).data;
      assert.deepEqual(ids(next.ready), ['one']);
      fs.rmSync(path.join(root, 'work', 'b'), { recursive: true });
      fs.rmSync(one);
      const summary = (await s.call('waymark_summary')).data;
      assert.deepEqual(summary.workflows.map((w: { file: string }) => w.file), ['work/a/two.workflow.md']);
      next = (await s.call('waymark_next')).data;
      assert.equal(next.problems.some((p: { code: string }) => p.code === 'depends-unknown'), true, JSON.stringify(next.problems));
    } finally {
      await s.close();
    }
  });

  test('answers repeated from the warm model change with the file, and each limit has its own', async () => {
    const root = workspace();
    const one = path.join(root, 'work', 'a', 'one.workflow.md');
    const s = await startServer(root);
    try {
      const first = (await s.call('waymark_status', { file: 'work/a/one.workflow.md' })).data;
      assert.deepEqual((await s.call('waymark_status', { file: 'work/a/one.workflow.md' })).data, first);
      assert.equal(first.status, 'created');
      assert.equal((await s.call('waymark_next', { limit: 1 })).data.ready.length, 1);
      writeFromAnotherProcess(path.join(root, 'work', 'a', 'three.workflow.md'), wf('three', 'created'), false);
      assert.equal((await s.call('waymark_next', { limit: 1 })).data.ready.length, 1, 'the limit asked for');
      assert.deepEqual(ids((await s.call('waymark_next', { limit: 5 })).data.ready), ['one', 'three'], 'not the answer made for limit 1');
      writeFromAnotherProcess(one, wf('one', 'in_progress'), false);
      const after = (await s.call('waymark_status', { file: 'work/a/one.workflow.md' })).data;
      assert.equal(after.status, 'in_progress');
      assert.notEqual(after.stateHash, first.stateHash);
    } finally {
      await s.close();
    }
  });

  test('a status asked again and again follows a same-size edit in place, a rename over the file and a write through the server', async () => {
    const root = workspace();
    const one = path.join(root, 'work', 'a', 'one.workflow.md');
    const s = await startServer(root);
    const status = async () => (await s.call('waymark_status', { file: 'work/a/one.workflow.md' })).data;
    try {
      // The same arguments each time: checked once, answered from the kept answer.
      for (let i = 0; i < 3; i++) assert.equal((await status()).currentStep, 'design');
      const before = fs.readFileSync(one, 'utf8');
      const sameSize = before.replace('currentStep: design', 'currentStep: build ');
      assert.equal(sameSize.length, before.length);
      writeFromAnotherProcess(one, sameSize, false);
      assert.equal((await status()).currentStep, 'build', 'an edit in place that keeps the size');
      writeFromAnotherProcess(one, wf('one', 'in_progress'), true);
      const renamed = await status();
      assert.equal(renamed.status, 'in_progress', 'a rename over the file');
      const w = await s.call('waymark_advance', { file: 'work/a/one.workflow.md', expectHash: renamed.stateHash });
      assert.equal(w.isError, false, w.text);
      const written = await status();
      assert.equal(written.status, 'completed', 'a write through the server');
      assert.equal(written.stateHash, w.data.stateHash);
      writeFromAnotherProcess(one, wf('one', 'blocked', ['blockedReason: waits on a review']), false);
      assert.equal((await status()).blockedReason, 'waits on a review', 'an edit right after the server\'s own write');
    } finally {
      await s.close();
    }
  });

  test('git checkout of another branch is in the very next answer', async () => {
    const root = workspace();
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'created');
    git(root, 'checkout', '-qb', 'moved');
    fs.writeFileSync(path.join(root, 'work', 'a', 'one.workflow.md'), wf('one', 'completed'));
    fs.rmSync(path.join(root, 'work', 'a', 'two.workflow.md'));
    fs.writeFileSync(path.join(root, 'work', 'a', 'four.workflow.md'), wf('four', 'created'));
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'moved');
    git(root, 'checkout', '-q', 'main');
    const s = await startServer(root);
    try {
      assert.deepEqual(ids((await s.call('waymark_next')).data.ready), ['one']);
      git(root, 'checkout', '-q', 'moved');
      assert.deepEqual(ids((await s.call('waymark_next')).data.ready), ['four']);
      git(root, 'checkout', '-q', 'main');
      assert.deepEqual(ids((await s.call('waymark_next')).data.ready), ['one']);
    } finally {
      await s.close();
    }
  });

  test('a lease taken and history written by other processes change stalled work in the next answer', async () => {
    const root = workspace();
    const one = path.join(root, 'work', 'a', 'one.workflow.md');
    // In progress and quiet for 10 days: stalled (the workflow threshold is 3 days).
    fs.writeFileSync(one, wf('one', 'in_progress'));
    const old = new Date(Date.now() - 10 * 86_400_000);
    fs.utimesSync(one, old, old);
    const s = await startServer(root);
    try {
      let next = (await s.call('waymark_next')).data;
      assert.deepEqual(ids(next.stalled), ['one']);
      // Another process records history for it (a CLI write elsewhere would do the same).
      const hist = path.join(root, '.waymark', 'history', 'work', 'a', 'one.workflow.md.jsonl');
      fs.mkdirSync(path.dirname(hist), { recursive: true });
      const entry = { seq: 1, time: new Date().toISOString(), actor: 'other-agent', operation: 'note', file: 'work/a/one.workflow.md', from: {}, to: {} };
      spawnSync(process.execPath, ['-e', `require("fs").appendFileSync(${JSON.stringify(hist)}, ${JSON.stringify(JSON.stringify(entry) + '\n')})`]);
      next = (await s.call('waymark_next')).data;
      assert.deepEqual(ids(next.stalled), [], JSON.stringify(next.stalled));
    } finally {
      await s.close();
    }
  });
});

describe('waymark mcp: every warm answer is the answer a cold server gives', () => {
  test('after an external edit, a write through the server, new files and deleted files, in workflows and in the ticket tree', async () => {
    const root = fs.realpathSync(v7Project({ git: true, extra: { 'work/one.workflow.md': wf('one', 'created'), 'work/two.workflow.md': wf('two', 'created', ['dependsOn: [one]']) } }));
    fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'start');
    const ask = async (s: Awaited<ReturnType<typeof startServer>>) => {
      const out: Record<string, unknown> = {};
      for (const [name, args] of [['waymark_next', {}], ['waymark_next', { limit: 1 }], ['waymark_summary', {}], ['waymark_board', {}], ['waymark_status', { file: 'work/one.workflow.md' }]] as const) {
        const r = await s.call(name, args);
        // The time of the answer is the only thing a later computation may say differently.
        const { now: _now, ...data } = r.data as Record<string, unknown>;
        out[`${name} ${JSON.stringify(args)}`] = r.isError ? r.text : data;
      }
      return out;
    };
    const warm = await startServer(root);
    try {
      // Every cache filled, and answered from twice.
      await ask(warm);
      await ask(warm);
      const sameAsCold = async (what: string) => {
        const answered = await ask(warm);
        const cold = await startServer(root);
        try {
          assert.deepEqual(answered, await ask(cold), what);
        } finally {
          await cold.close();
        }
      };
      await sameAsCold('nothing changed');
      writeFromAnotherProcess(path.join(root, 'work', 'one.workflow.md'), wf('one', 'in_progress'), false);
      await sameAsCold('a workflow edited in place by another process');
      writeFromAnotherProcess(path.join(root, LOGIN_PLAN), loginPlan('done'), true);
      await sameAsCold('a plan of the ticket tree replaced by another process');
      const w = await warm.call('waymark_story_set_status', { ref: '1.4', status: 'in-progress' });
      assert.equal(w.isError, false, w.text);
      await sameAsCold('a plan written through the server');
      const s = await warm.call('waymark_set_status', { file: 'work/two.workflow.md', status: 'in_progress' });
      assert.equal(s.isError, false, s.text);
      await sameAsCold('a workflow written through the server');
      writeFromAnotherProcess(path.join(root, 'work', 'three.workflow.md'), wf('three', 'created', ['dependsOn: [two]']), false);
      writeFromAnotherProcess(path.join(root, LOGIN, 'tickets.toml'), `${fs.readFileSync(path.join(root, LOGIN, 'tickets.toml'), 'utf8')}\n[[entry]]\nid = 5\ntype = "story"\ntitle = "Remember me"\nafter = [2]\n`, false);
      await sameAsCold('a new workflow file and a new ticket');
      fs.rmSync(path.join(root, 'work', 'one.workflow.md'));
      fs.rmSync(path.join(root, DONE_PLAN));
      await sameAsCold('a workflow and a plan deleted');
      fs.rmSync(path.join(root, INIT, 'tickets.toml'));
      fs.rmSync(path.join(root, '_bmad'), { recursive: true });
      await sameAsCold('the ticket tree gone with the BMAD config');
    } finally {
      await warm.close();
    }
  });
});

describe('the MCP server\'s folder watcher backs its events with folder stats', () => {
  test('a file created, replaced or removed while no event arrives is reported by the next check', async () => {
    const root = workspace();
    const seen: string[] = [];
    const w = new TreeWatcher(root, { ignore: (rel) => rel === '.git' || rel.startsWith('.git/'), onChange: (abs) => seen.push(path.relative(root, abs)) });
    assert.equal(w.start(), true);
    try {
      // Every event lost (a queue overflow, a folder the watch had not reached yet): no watch delivers anything.
      for (const f of (w as unknown as { folders: Map<string, { watcher?: { close(): void } }> }).folders.values()) f.watcher?.close();
      await new Promise((r) => setTimeout(r, 50));
      seen.length = 0;
      fs.writeFileSync(path.join(root, 'work', 'a', 'new.workflow.md'), wf('new', 'created'));
      fs.rmSync(path.join(root, 'work', 'a', 'two.workflow.md'));
      fs.mkdirSync(path.join(root, 'work', 'c'));
      fs.writeFileSync(path.join(root, 'work', 'c', 'deep.workflow.md'), wf('deep', 'created'));
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(seen, [], 'no event came');
      w.verify();
      assert.deepEqual(new Set(seen), new Set(['work/a/new.workflow.md', 'work/a/two.workflow.md', 'work/c', 'work/c/deep.workflow.md']));
    } finally {
      w.close();
    }
  });
});

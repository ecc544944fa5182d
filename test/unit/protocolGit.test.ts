import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createCheckpoint } from '../../src/core/protocol/checkpoints';
import { listGitCheckpoints } from '../../src/core/protocol/git';
import { recordOrchestratorWorkflow } from '../../src/core/protocol/orchestrator';
import { WaymarkError } from '../../src/core/errors';
import { tempRoot, cleanup } from './protocolHelpers';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

function snapshot(root: string) {
  return {
    head: git(root, 'rev-parse', 'HEAD'),
    branch: git(root, 'symbolic-ref', 'HEAD'),
    status: git(root, 'status', '--porcelain=v1', '--untracked-files=all'),
    staged: git(root, 'diff', '--cached'),
    unstaged: git(root, 'diff'),
    index: git(root, 'ls-files', '-s'),
    log: git(root, 'log', '--all', '--format=%H %s', '--', '.', ':!.waymark'),
  };
}

const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\nstepsCompleted: []\n---\nbody\n';

describe('protocol git checkpoints', () => {
  test('commit only Waymark state to refs/waymark/checkpoints, leaving staged and unstaged work exactly as it was', async () => {
    const root = tempRoot();
    try {
      git(root, 'init', '-q', '-b', 'main');
      git(root, 'config', 'user.name', 'Test User');
      git(root, 'config', 'user.email', 'test@example.com');
      fs.writeFileSync(path.join(root, 'wf.md'), WF);
      fs.writeFileSync(path.join(root, 'src.txt'), 'v1\n');
      fs.writeFileSync(path.join(root, '.gitignore'), '.waymark/\n');
      git(root, 'add', '.');
      git(root, 'commit', '-q', '-m', 'initial');
      // The user's work in progress: a staged change, an unstaged change on top, an untracked file,
      // and a staged new file.
      fs.writeFileSync(path.join(root, 'src.txt'), 'v2 staged\n');
      git(root, 'add', 'src.txt');
      fs.writeFileSync(path.join(root, 'src.txt'), 'v3 unstaged\n');
      fs.writeFileSync(path.join(root, 'wf.md'), WF.replace('body', 'edited body'));
      fs.writeFileSync(path.join(root, 'untracked.txt'), 'mine\n');
      fs.writeFileSync(path.join(root, 'new-staged.txt'), 'new\n');
      git(root, 'add', 'new-staged.txt');
      await recordOrchestratorWorkflow(root, 'wf.md', { nextStep: 'a' }, { type: 't' });
      const before = snapshot(root);

      const cp = await createCheckpoint(root, { git: true, message: 'before refactor' });
      assert.ok(cp.git, 'git checkpoint recorded');
      assert.equal(cp.git!.ref, `refs/waymark/checkpoints/${cp.id}`);
      assert.deepEqual(snapshot(root), before, 'HEAD, branch, index, staged, unstaged and untracked unchanged');
      // The commit: parent is HEAD, tree is HEAD's plus only Waymark's state files.
      assert.equal(git(root, 'rev-parse', `${cp.git!.commit}^`), before.head);
      const changed = git(root, 'diff', '--name-only', before.head.trim(), cp.git!.commit).trim().split('\n').sort();
      assert.deepEqual(changed, [`.waymark/checkpoints/${cp.id}.json`, '.waymark/memory/workflow-state.json']);
      assert.match(git(root, 'log', '-1', '--format=%s', cp.git!.commit), /waymark checkpoint .*: before refactor/);
      // The committed src.txt is HEAD's, not the user's staged or unstaged version.
      assert.equal(git(root, 'show', `${cp.git!.commit}:src.txt`), 'v1\n');

      // Keep the last N.
      for (let i = 0; i < 3; i++) await createCheckpoint(root, { git: true, gitKeep: 2 });
      const refs = await listGitCheckpoints(root);
      assert.equal(refs.length, 2);
      assert.deepEqual(snapshot(root), before);
    } finally {
      cleanup(root);
    }
  });

  test('a repository without commits works; not a repository and git missing give clear messages', async () => {
    const root = tempRoot();
    try {
      fs.writeFileSync(path.join(root, 'wf.md'), WF);
      await assert.rejects(createCheckpoint(root, { git: true }), (e: unknown) => WaymarkError.is(e, 'unavailable') && /is not inside a git repository; run git init/.test((e as Error).message));
      git(root, 'init', '-q');
      const cp = await createCheckpoint(root, { git: true }); // no user identity, no HEAD
      assert.match(git(root, 'log', '-1', '--format=%an', cp.git!.commit), /Waymark|\S/);
      assert.equal(git(root, 'status', '--porcelain', '--untracked-files=all').includes('wf.md'), true);
      const savedPath = process.env.PATH;
      process.env.PATH = path.join(root, 'no-bin-here');
      try {
        await assert.rejects(createCheckpoint(root, { git: true }), (e: unknown) => WaymarkError.is(e, 'unavailable') && /git is not installed/.test((e as Error).message));
      } finally {
        process.env.PATH = savedPath;
      }
    } finally {
      cleanup(root);
    }
  });
});

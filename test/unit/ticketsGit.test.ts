import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { allowTmpEnv, gitConfig, ticketFiles, ticketRepo, wf, workspace } from './ticketsHelpers';

const CLI = path.resolve('dist/cli.js');

function cli(cwd: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...allowTmpEnv(), ...env }, timeout: 60_000 });
}

/** Runs `waymark project` until it prints `paused`, then SIGKILLs it. */
function projectKilledAfter(cwd: string, creates: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'project'], { cwd, env: { ...process.env, ...allowTmpEnv(), WAYMARK_TICKETS_PAUSE_AFTER_CREATES: String(creates) } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.includes('paused')) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(out) : reject(new Error(`projector exited ${code} without pausing:\n${out}`))));
  });
}

function chain(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 1; i <= n; i++) files[`w${i}.md`] = wf(`w${i}`, i === 1 ? 'in_progress' : 'created', i > 1 ? `dependsOn: [w${i - 1}]\n` : '', `# Work ${i}\n\nThe text of work ${i}.\n`);
  return files;
}

describe('tickets: git store end to end against real git', () => {
  test('waymark project creates one Markdown ticket per workflow, committed with real git; a re-run sends nothing', () => {
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.js not built (node esbuild.mjs)');
    const repo = ticketRepo();
    const root = workspace(chain(3), gitConfig(repo));
    const dry = cli(root, ['project', '--dry-run', '--json']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.deepEqual((JSON.parse(dry.stdout) as { planned: { id: string; action: string }[] }).planned.map((p) => `${p.action} ${p.id}`), ['create w1', 'create w2', 'create w3']);
    assert.equal(ticketFiles(repo).size, 0, 'a dry run sends nothing');
    const r = cli(root, ['project']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /3 created, 0 updated/);
    assert.equal(execFileSync('git', ['-C', repo, 'status', '--porcelain'], { encoding: 'utf8' }), '', 'everything committed');
    assert.match(execFileSync('git', ['-C', repo, 'log', '--format=%s'], { encoding: 'utf8' }), /waymark project: 3 created, 0 updated/);
    const w2 = ticketFiles(repo).get('w2')![0];
    assert.match(w2, /^title: w2$/m);
    assert.match(w2, /The text of work 2\./);
    assert.match(w2, /^blockedBy:\n  - w1-[0-9a-f]{8}$/m);
    assert.match(w2, /^waymark-id: w2$/m);
    const again = cli(root, ['project']);
    assert.match(again.stdout, /0 created, 0 updated, 3 unchanged/);
    assert.equal(execFileSync('git', ['-C', repo, 'rev-list', '--count', 'HEAD'], { encoding: 'utf8' }).trim(), '1', 'no empty commit');
    const st = cli(root, ['status', '--json']);
    assert.deepEqual((JSON.parse(st.stdout) as { tracker: unknown[] }).tracker, [{ store: 'git', kind: 'git', isDefault: true, state: 'closed', failures: 0, queued: 0 }]);
  });

  test('SIGKILL of the projector mid-run (after the 2nd create, before its mirror) and a re-run: no duplicates, nothing lost', async () => {
    const repo = ticketRepo();
    const root = workspace(chain(5), gitConfig(repo));
    const out = await projectKilledAfter(root, 2);
    assert.match(out, /created w1[\s\S]*created w2[\s\S]*paused/);
    // Killed: w2's ticket file exists, its mirror was never written, nothing is committed.
    assert.equal(ticketFiles(repo).size, 2);
    assert.doesNotMatch(fs.readFileSync(path.join(root, 'w2.md'), 'utf8'), /^tracker:/m);
    assert.match(fs.readFileSync(path.join(root, 'w1.md'), 'utf8'), /^tracker:/m);
    // The lock of the killed run is broken (its pid is dead); the re-run finds w2 by its id line.
    const r = cli(root, ['project', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout) as { created: string[]; updated: string[]; reconciled: string[] };
    assert.deepEqual(rep.reconciled, ['w2']);
    assert.deepEqual(rep.created, ['w3', 'w4', 'w5']);
    const files = ticketFiles(repo);
    assert.deepEqual([...files.keys()].sort(), ['w1', 'w2', 'w3', 'w4', 'w5']);
    for (const [id, list] of files) assert.equal(list.length, 1, `one ticket for ${id}`);
    for (let i = 1; i <= 5; i++) assert.match(fs.readFileSync(path.join(root, `w${i}.md`), 'utf8'), /^tracker:\n  store: git\n/m, `w${i} mirrored`);
    assert.equal(execFileSync('git', ['-C', repo, 'status', '--porcelain'], { encoding: 'utf8' }), '');
    // And once more: all in sync.
    assert.match(cli(root, ['project']).stdout, /0 created, 0 updated, 5 unchanged/);
  });

  test('bad input: no tracker configured, an unknown --store, a missing repository: exit 2 with what to do', () => {
    const plain = workspace({ 'a.md': wf('a', 'created') }, 'version: 1\n');
    const a = cli(plain, ['project']);
    assert.equal(a.status, 2);
    assert.match(a.stderr, /No ticket tracker is configured.*add a tracker: section/);
    const repo = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'created') }, gitConfig(repo));
    const b = cli(root, ['project', '--store', 'jira']);
    assert.equal(b.status, 2);
    assert.match(b.stderr, /--store jira is not configured; known: git/);
    const gone = workspace({ 'a.md': wf('a', 'created') }, gitConfig(path.join(repo, 'nope')));
    const c = cli(gone, ['project']);
    assert.equal(c.status, 2);
    assert.match(c.stderr, /does not exist; create it \(git init/);
    const half = workspace({ 'a.md': wf('a', 'created') }, 'tracker:\n  store: github\n');
    const d = cli(half, ['project']);
    assert.equal(d.status, 2);
    assert.match(d.stderr, /names no usable store: write store: git with repo: PATH, or store: github with owner: and repo:/);
    assert.doesNotMatch(a.stderr + b.stderr + c.stderr + d.stderr, /at .*\.js:\d+/, 'no stack trace');
  });

  test('one projection per store at a time: a second run while the first holds the lock exits 3 and sends nothing', async () => {
    const repo = ticketRepo();
    const root = workspace(chain(3), gitConfig(repo));
    const child = spawn(process.execPath, [CLI, 'project'], { cwd: root, env: { ...process.env, ...allowTmpEnv(), WAYMARK_TICKETS_PAUSE_AFTER_CREATES: '1' } });
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString('utf8');
          if (out.includes('paused')) resolve();
        });
        child.on('exit', () => reject(new Error(`the first run ended early:\n${out}`)));
      });
      const second = cli(root, ['project']);
      assert.equal(second.status, 3, second.stdout + second.stderr);
      assert.match(second.stderr, /Another waymark project to the git store is running.*nothing was sent/);
      assert.equal(ticketFiles(repo).size, 1, 'the second run created nothing');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

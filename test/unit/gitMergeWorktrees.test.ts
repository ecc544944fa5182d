import { test, describe, after } from 'node:test';
import { cleanup as mcpCleanup, startServer } from './mcpHelpers';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, ENV, dirs, git } from './gitHelpers';

after(mcpCleanup);

function cli(cwd: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...ENV, WAYMARK_ACTOR: `agent-${path.basename(cwd)}` } });
  assert.equal(r.status, 0, `waymark ${args.join(' ')} in ${cwd}: ${r.stderr}`);
}

const IMPL = '_bmad-output/implementation-artifacts';
const STORIES = ['1-1-login', '1-2-logout', '1-3-profile'];
const story = (key: string) => `# Story ${key.slice(0, 3).replace('-', '.')}: ${key.slice(4)}\n\nStatus: ready-for-dev\n\n## Tasks / Subtasks\n\n- [ ] Build it\n- [ ] Test it\n\n## Dev Notes\n`;

/** Reads every history line under .waymark/history of a checkout, by file. */
function history(root: string): Map<string, { seq: number; operation: string }[]> {
  const out = new Map<string, { seq: number; operation: string }[]>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) out.set(path.relative(root, p), fs.readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { seq: number; operation: string }));
    }
  };
  if (fs.existsSync(path.join(root, '.waymark/history'))) walk(path.join(root, '.waymark/history'));
  return out;
}

describe('three worktrees, three agents, merged back in random order (real git, real CLI and MCP server)', () => {
  test('every step of every story done and the history of all three complete, whether merged, rebased or cherry-picked', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-three-'));
    dirs.push(parent);
    const main = path.join(parent, 'main');
    fs.mkdirSync(path.join(main, IMPL), { recursive: true });
    git(main, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(main, IMPL, 'sprint-status.yaml'), `last_updated: 2026-11-20 10:00\ndevelopment_status:\n  epic-1: in-progress\n${STORIES.map((k) => `  ${k}: ready-for-dev`).join('\n')}\n`);
    for (const k of STORIES) fs.writeFileSync(path.join(main, IMPL, `${k}.md`), story(k));
    // One workflow all three agents advance: each completes its own step of it.
    fs.writeFileSync(path.join(main, 'release.md'), `---\nworkflow: release\nstatus: in_progress\nsteps: [${STORIES.join(', ')}]\nstepsCompleted: []\n---\n# Release\n`);
    cli(main, 'git', 'install');
    git(main, 'add', '-A');
    git(main, 'commit', '-q', '-m', 'sprint planned');

    // Each agent works its story in its own worktree and commits the state it wrote (history too).
    // The third agent is an MCP client (the SDK's Client over stdio to `waymark mcp`): it takes the
    // shared workflow's lease, completes its step with waymark_advance and gives the lease back.
    // MCP has no story tools, so its story moves through the CLI like the others'.
    const trees: { key: string; wt: string; branch: string; lines: number }[] = [];
    for (const [i, k] of STORIES.entries()) {
      const wt = path.join(parent, `wt${i + 1}`);
      git(main, 'worktree', 'add', '-q', '-b', `story/${k}`, wt);
      cli(wt, 'story', 'set-status', k, 'in-progress');
      cli(wt, 'story', 'check', k, '1');
      cli(wt, 'story', 'check', k, '2');
      cli(wt, 'story', 'set-status', k, 'review');
      cli(wt, 'story', 'set-status', k, 'done');
      if (i === 2) {
        const server = await startServer(wt, { args: ['--actor', 'mcp-agent'] });
        try {
          const take = await server.call('waymark_lease', { action: 'acquire', file: 'release.md' });
          assert.equal(take.isError, false, take.text);
          // Leases live in the repository's shared folder: the other worktrees see this one.
          const seen = spawnSync(process.execPath, [CLI, 'lease', 'show', '--json'], { cwd: main, encoding: 'utf8', env: ENV });
          assert.match(seen.stdout, /mcp-agent/);
          const done = await server.call('waymark_advance', { file: 'release.md', step: k });
          assert.equal(done.isError, false, done.text);
          assert.deepEqual(done.data.after.stepsCompleted, [k]);
          const give = await server.call('waymark_lease', { action: 'release', file: 'release.md' });
          assert.equal(give.data.outcome, 'released', give.text);
        } finally {
          await server.close();
        }
      } else {
        cli(wt, 'complete-step', 'release.md', k);
      }
      git(wt, 'add', IMPL, 'release.md', '.waymark/history');
      git(wt, 'commit', '-q', '-m', `story ${k} done`);
      trees.push({ key: k, wt, branch: `story/${k}`, lines: [...history(wt).values()].reduce((n, l) => n + l.length, 0) });
    }

    // Random order, and each branch brought back a different way: the driver runs for all three.
    const order = [...trees].sort(() => Math.random() - 0.5);
    const ways = (['merge', 'rebase', 'cherry-pick'] as const).slice().sort(() => Math.random() - 0.5);
    const run = (cwd: string, args: string[], what: string) => {
      const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...ENV, GIT_EDITOR: 'true' } });
      assert.equal(r.status, 0, `${what} (order ${order.map((o, j) => `${o.key} by ${ways[j]}`).join(', ')}): ${r.stdout}${r.stderr}`);
    };
    for (const [j, t] of order.entries()) {
      if (ways[j] === 'merge') run(main, ['merge', '--no-edit', t.branch], `merging ${t.branch}`);
      else if (ways[j] === 'cherry-pick') run(main, ['cherry-pick', t.branch], `cherry-picking ${t.branch}`);
      else {
        run(t.wt, ['rebase', 'main'], `rebasing ${t.branch} onto main`);
        run(main, ['merge', '--ff-only', t.branch], `fast-forwarding to ${t.branch}`);
      }
    }

    const ledger = fs.readFileSync(path.join(main, IMPL, 'sprint-status.yaml'), 'utf8');
    for (const k of STORIES) {
      assert.match(ledger, new RegExp(`^  ${k}: done$`, 'm'), `order ${order.map((o) => o.key).join(', ')}\n${ledger}`);
      const text = fs.readFileSync(path.join(main, IMPL, `${k}.md`), 'utf8');
      assert.match(text, /^Status: done$/m);
      assert.doesNotMatch(text, /- \[ \]/);
    }
    // History complete: every line each agent wrote is in main, once, in one unbroken sequence per file.
    const merged = history(main);
    const total = [...merged.values()].reduce((n, l) => n + l.length, 0);
    for (const lines of merged.values()) assert.deepEqual(lines.map((l) => l.seq), lines.map((_, i) => i + 1));
    // release.md's history was appended in all three worktrees: a completed step each, and the MCP
    // agent's lease (session start and end), all kept.
    const release = merged.get(path.join('.waymark/history', 'release.md.jsonl'));
    assert.ok(release, [...merged.keys()].join(', '));
    assert.deepEqual(release.map((l) => l.operation).sort(), ['complete-step', 'complete-step', 'complete-step', 'session.end', 'session.start']);
    const wf = fs.readFileSync(path.join(main, 'release.md'), 'utf8');
    for (const k of STORIES) assert.match(wf, new RegExp(`stepsCompleted: \\[.*${k}`));
    assert.doesNotMatch(wf, /<<<<<<<|currentStep/);
    assert.match(wf, /^status: in_progress$/m);
    assert.equal(total, trees.reduce((n, t) => n + t.lines, 0));
    const status = spawnSync(process.execPath, [CLI, 'sprint', '--json'], { cwd: main, encoding: 'utf8', env: ENV });
    assert.equal(status.status, 0, status.stderr);
  });
});

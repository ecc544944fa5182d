import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { acquireLease, listLeases, leasesCovering } from '../../src/core/protocol/leases';
import { coordinationPaths } from '../../src/core/protocol/paths';
import { findGitShared } from '../../src/core/store/sharedDir';
import { WaymarkError } from '../../src/core/errors';
import { CLI, ENV, dirs, git } from './gitHelpers';


function cli(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: ENV });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function cliAsync(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { cwd, env: ENV });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const STORY = '_bmad-output/implementation-artifacts/1-1-login.md';

/** A repository with a main checkout and a linked worktree `wt` (branch feat). */
function repo(): { parent: string; main: string; wt: string; common: string } {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-gitleases-')));
  dirs.push(parent);
  const main = path.join(parent, 'main');
  fs.mkdirSync(path.join(main, path.dirname(STORY)), { recursive: true });
  git(main, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(main, STORY), '# Story 1.1: login\n\nStatus: ready-for-dev\n\n## Tasks / Subtasks\n\n- [ ] Build it\n');
  fs.writeFileSync(path.join(main, 'plan.md'), '---\nworkflow: plan\nstatus: in_progress\nstepsCompleted: []\n---\n# Plan\n');
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'base');
  const wt = path.join(parent, 'wt');
  git(main, 'worktree', 'add', '-q', '-b', 'feat', wt);
  const common = fs.realpathSync(path.resolve(main, git(main, 'rev-parse', '--git-common-dir').trim()));
  return { parent, main, wt, common };
}

describe('leases and modes across worktrees (real git, real CLI processes)', () => {
  test('the shared place is <git common dir>/waymark in every worktree; outside git it stays .waymark', () => {
    const r = repo();
    for (const top of [r.main, r.wt]) {
      const viaGit = fs.realpathSync(path.resolve(top, git(top, 'rev-parse', '--git-common-dir').trim()));
      assert.equal(viaGit, r.common);
      assert.equal(findGitShared(top)?.commonDir, r.common);
      assert.equal(findGitShared(path.join(top, '_bmad-output'))?.top, top);
      assert.equal(coordinationPaths(top).leases, path.join(r.common, 'waymark', 'leases'));
      assert.equal(coordinationPaths(top).legacyLeases, path.join(top, '.waymark', 'leases'));
    }
    // A workspace in a subfolder gets its own scope, the same in both worktrees.
    assert.equal(coordinationPaths(path.join(r.main, '_bmad-output')).leases, coordinationPaths(path.join(r.wt, '_bmad-output')).leases);
    assert.notEqual(coordinationPaths(path.join(r.main, '_bmad-output')).leases, coordinationPaths(r.main).leases);
    const plain = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-nogit-')));
    dirs.push(plain);
    assert.equal(findGitShared(plain), undefined);
    assert.deepEqual(coordinationPaths(plain), { leases: path.join(plain, '.waymark', 'leases'), modes: path.join(plain, '.waymark', 'modes') });
    // A stray .git file naming a folder that is not a git folder is not followed.
    fs.writeFileSync(path.join(plain, '.git'), `gitdir: ${os.homedir()}\n`);
    assert.equal(findGitShared(plain), undefined);
  });

  test('two CLI processes in two worktrees race for the same story: exactly one holds it; the other is told who', async () => {
    for (let round = 0; round < 3; round++) {
      const r = repo();
      const [a, b] = await Promise.all([
        cliAsync(r.main, ['lease', 'acquire', STORY, '--actor', 'agent-main', '--session', 'sm']),
        cliAsync(r.wt, ['lease', 'acquire', STORY, '--actor', 'agent-wt', '--session', 'sw']),
      ]);
      const codes = [a.code, b.code].sort();
      assert.deepEqual(codes, [0, 3], `${a.stdout}${a.stderr}\n${b.stdout}${b.stderr}`);
      const loser = a.code === 3 ? a : b;
      assert.match(loser.stderr, /locked by agent-(main|wt) \(session s[mw]/);
      // The lease is in the common git dir, not in either worktree.
      const files = fs.readdirSync(path.join(r.common, 'waymark', 'leases')).filter((n) => n.endsWith('.json'));
      assert.equal(files.length, 1);
      assert.equal(fs.existsSync(path.join(r.main, '.waymark', 'leases')) && fs.readdirSync(path.join(r.main, '.waymark', 'leases')).some((n) => n.endsWith('.json')), false);
      // Both worktrees see the same holder.
      const shown = [cli(r.main, 'lease', 'show', '--json'), cli(r.wt, 'lease', 'show', '--json')].map((x) => JSON.parse(x.stdout) as { leases: { lease: { target: string; owner: { agent: string } } }[] });
      assert.deepEqual(shown[0].leases.map((l) => [l.lease.target, l.lease.owner.agent]), shown[1].leases.map((l) => [l.lease.target, l.lease.owner.agent]));
      assert.equal(shown[0].leases[0].lease.target, STORY);
      // A write in the other worktree by the loser is refused by the lease (exit 3), the holder's is not.
      const holder = a.code === 0 ? { dir: r.main, actor: 'agent-main', session: 'sm' } : { dir: r.wt, actor: 'agent-wt', session: 'sw' };
      const other = holder.dir === r.main ? { dir: r.wt, actor: 'agent-wt', session: 'sw' } : { dir: r.main, actor: 'agent-main', session: 'sm' };
      const refused = cli(other.dir, 'story', 'set-status', '1-1-login', 'in-progress', '--actor', other.actor, '--session', other.session);
      assert.equal(refused.code, 3, refused.stdout + refused.stderr);
      assert.match(refused.stderr, /locked by/);
      const ok = cli(holder.dir, 'story', 'set-status', '1-1-login', 'in-progress', '--actor', holder.actor, '--session', holder.session);
      assert.equal(ok.code, 0, ok.stderr);
      // Released in one worktree, free in the other.
      assert.equal(cli(holder.dir, 'lease', 'release', STORY, '--actor', holder.actor, '--session', holder.session).code, 0);
      assert.equal(cli(other.dir, 'lease', 'acquire', STORY, '--actor', other.actor, '--session', other.session).code, 0);
    }
  });

  test('an exclusive mode started in one worktree refuses another in the other worktree', () => {
    const r = repo();
    const a = cli(r.main, 'mode', 'start', 'planning', '--actor', 'planner');
    assert.equal(a.code, 0, a.stderr);
    const b = cli(r.wt, 'mode', 'start', 'executing', '--actor', 'dev');
    assert.equal(b.code, 3, b.stdout + b.stderr);
    assert.match(b.stderr, /mode 'planning' \(exclusive\) is held by planner/);
    assert.match(cli(r.wt, 'mode', 'show').stdout, /planning/);
    assert.equal(cli(r.main, 'mode', 'end', 'planning', '--actor', 'planner').code, 0);
    assert.equal(cli(r.wt, 'mode', 'start', 'executing', '--actor', 'dev').code, 0);
    assert.ok(fs.readdirSync(path.join(r.common, 'waymark', 'modes')).some((n) => n.startsWith('executing--')));
  });

  test('a symbolic link at <git common dir>/waymark leading elsewhere is refused (exit 2), nothing written there', () => {
    const r = repo();
    const elsewhere = path.join(r.parent, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(r.common, 'waymark'));
    const a = cli(r.wt, 'lease', 'acquire', STORY, '--actor', 'x');
    assert.equal(a.code, 2, a.stdout + a.stderr);
    assert.match(a.stderr, /outside .*waymark.*Remove the link/s);
    const m = cli(r.main, 'mode', 'start', 'planning', '--actor', 'x');
    assert.equal(m.code, 2, m.stdout + m.stderr);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    // Release and --break-stale through the link are refused too: no lock file is made there, nothing removed.
    const key = (name: string) => fs.readdirSync(path.join(r.common, 'waymark', 'leases')).find((n) => n.startsWith(name));
    fs.unlinkSync(path.join(r.common, 'waymark'));
    assert.equal(cli(r.main, 'lease', 'acquire', STORY, '--actor', 'x', '--ttl', '1s').code, 0);
    const leaseFile = key('file-')!;
    fs.renameSync(path.join(r.common, 'waymark'), path.join(elsewhere, 'waymark'));
    fs.symlinkSync(path.join(elsewhere, 'waymark'), path.join(r.common, 'waymark'));
    const rel = cli(r.main, 'lease', 'release', STORY, '--actor', 'x', '--force');
    assert.equal(rel.code, 2, rel.stdout + rel.stderr);
    assert.deepEqual(fs.readdirSync(path.join(elsewhere, 'waymark', 'leases')).filter((n) => !n.startsWith('acquire')), [leaseFile]);
    fs.rmSync(path.join(elsewhere, 'waymark'), { recursive: true });
    // A link further down (leases -> elsewhere) is refused as well.
    fs.unlinkSync(path.join(r.common, 'waymark'));
    fs.mkdirSync(path.join(r.common, 'waymark'));
    fs.symlinkSync(elsewhere, path.join(r.common, 'waymark', 'leases'));
    assert.equal(cli(r.main, 'lease', 'acquire', STORY, '--actor', 'x').code, 2);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
  });

  test('migration: a lease taken in the old .waymark/leases still counts; new ones go to the shared place', async () => {
    const r = repo();
    const file = path.join(r.main, STORY);
    // What an older Waymark wrote: the lease in the worktree's own .waymark/leases.
    const key = (await import('../../src/core/protocol/leases')).leaseKey(r.main, file);
    const legacy = key.paths[1];
    assert.equal(path.dirname(legacy), path.join(r.main, '.waymark', 'leases'));
    fs.mkdirSync(path.dirname(legacy), { recursive: true });
    const now = Date.now();
    fs.writeFileSync(legacy, JSON.stringify({ key: key.key, target: key.target, owner: { agent: 'old-agent', host: os.hostname() }, acquiredAt: new Date(now).toISOString(), expiresAt: new Date(now + 3600_000).toISOString() }));
    assert.deepEqual(listLeases(r.main).map((s) => s.lease.owner.agent), ['old-agent']);
    assert.equal(leasesCovering(r.main, file).filter((s) => !s.stale).length, 1);
    await assert.rejects(acquireLease(r.main, file, { agent: 'new-agent', host: os.hostname() }, { events: false }), (e: unknown) => WaymarkError.is(e, 'locked') && /locked by old-agent/.test((e as Error).message));
    const w = cli(r.main, 'story', 'set-status', '1-1-login', 'in-progress', '--actor', 'new-agent');
    assert.equal(w.code, 3, w.stderr);
    // The holder re-acquiring moves it to the shared place.
    const res = await acquireLease(r.main, file, { agent: 'old-agent', host: os.hostname() }, { events: false });
    assert.equal(res.lease.owner.agent, 'old-agent');
    assert.equal(fs.existsSync(legacy), false);
    assert.equal(fs.existsSync(key.path), true);
    assert.equal(path.dirname(key.path), path.join(r.common, 'waymark', 'leases'));
    // Seen from the other worktree too.
    assert.deepEqual(listLeases(r.wt).map((s) => s.lease.owner.agent), ['old-agent']);
  });

  test('an agent hook refuses a hand edit of a shared lease (it would forge a holder)', async () => {
    const r = repo();
    assert.equal(cli(r.wt, 'lease', 'acquire', STORY, '--actor', 'holder').code, 0);
    const [name] = fs.readdirSync(path.join(r.common, 'waymark', 'leases')).filter((n) => n.endsWith('.json'));
    const target = path.join(r.common, 'waymark', 'leases', name);
    const before = fs.readFileSync(target, 'utf8');
    const event = JSON.stringify({ session_id: 's1', transcript_path: path.join(r.main, 't.jsonl'), cwd: r.main, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: target, content: before.replace('holder', 'agent-x') } });
    const h = spawnSync(process.execPath, [CLI, 'hook', 'claude-code'], { cwd: r.main, input: event, encoding: 'utf8', env: { ...ENV, CLAUDE_PROJECT_DIR: r.main } });
    assert.equal(h.status, 2, h.stdout + h.stderr);
    assert.match(h.stderr, /is a Waymark record.*waymark lease acquire\|release\|takeover/s);
    assert.equal(fs.readFileSync(target, 'utf8'), before);
  });

  test('a lease held on another host is shown as remote and never broken by a pid check, only by expiry or takeover', () => {
    const r = repo();
    const dir = path.join(r.common, 'waymark', 'leases');
    assert.equal(cli(r.main, 'lease', 'acquire', STORY, '--actor', 'me').code, 0);
    const [name] = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
    const lease = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
    // Another machine's agent, with a pid that is dead here: it must not read as stale.
    let deadPid = 999_999;
    while (spawnSync('kill', ['-0', String(deadPid)]).status === 0) deadPid--;
    lease.owner = { agent: 'ci-bot', pid: deadPid, host: 'build-server-7' };
    fs.writeFileSync(path.join(dir, name), JSON.stringify(lease));
    const show = cli(r.wt, 'lease', 'show');
    assert.match(show.stdout, /ci-bot \(pid \d+, on build-server-7\).*REMOTE/);
    assert.doesNotMatch(show.stdout, /STALE/);
    const j = JSON.parse(cli(r.wt, 'lease', 'show', '--json').stdout) as { leases: { remote?: boolean; stale: boolean }[] };
    assert.deepEqual(j.leases.map((l) => [l.remote, l.stale]), [[true, false]]);
    const b = cli(r.wt, 'lease', 'acquire', STORY, '--actor', 'me');
    assert.equal(b.code, 3);
    assert.match(b.stderr, /held on another machine/);
    assert.equal(cli(r.wt, 'lease', 'show', '--break-stale').stdout.includes('broke'), false);
    // Expired: stale, broken by the next acquire.
    lease.expiresAt = new Date(Date.now() - 1000).toISOString();
    fs.writeFileSync(path.join(dir, name), JSON.stringify(lease));
    const c = cli(r.wt, 'lease', 'acquire', STORY, '--actor', 'me');
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /broke a stale lease of ci-bot .*expired/);
    // Taken over explicitly from a live remote holder.
    lease.expiresAt = new Date(Date.now() + 3600_000).toISOString();
    fs.writeFileSync(path.join(dir, name), JSON.stringify(lease));
    const t = cli(r.main, 'lease', 'takeover', STORY, '--actor', 'me', '--reason', 'ci-bot machine is gone');
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /took over .* from ci-bot/);
  });
});

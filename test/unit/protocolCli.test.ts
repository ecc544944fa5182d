import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../src/cli/framework';
import { protocolCommands } from '../../src/cli/protocolCommands';
import { appendEvent } from '../../src/core/protocol/events';
import { createStateCore } from '../../src/core/index';
import { spawn } from 'node:child_process';
import { tempRoot, cleanup } from './protocolHelpers';

function cliProcess(cwd: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.resolve('dist/cli.js'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(protocolCommands, argv, { cwd, stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\ncurrentStep: a\nstepsCompleted: []\n---\nbody\n';

describe('protocol CLI verbs', () => {
  test('every verb has --help; usage errors exit 2', async () => {
    const root = tempRoot();
    try {
      for (const c of protocolCommands) {
        const r = await cli(root, ...c.name.split(' '), '--help');
        assert.equal(r.code, 0, c.name);
        assert.match(r.out, /^Usage: waymark /);
        assert.match(r.out, /Exit codes/);
      }
      assert.equal((await cli(root, 'history')).code, 2);
      assert.equal((await cli(root, 'events', '--since', 'x')).code, 2);
      assert.equal((await cli(root, 'checkpoint', 'show', '../../x')).code, 2);
      assert.equal((await cli(root, 'lease', 'acquire', '--ttl', 'forever')).code, 2);
      assert.equal((await cli(root, 'history', 'wf.md', '--at', 'not-a-time')).code, 2);
      assert.equal((await cli(root, 'checkpoint', 'show', '20260101T000000000Z-abcd')).code, 2);
    } finally {
      cleanup(root);
    }
  });

  test('lease acquire/show/takeover/release with exit 3 for a held lease; mode refusals', async () => {
    const root = tempRoot();
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      fs.writeFileSync(path.join(root, 'wf.md'), WF);
      let r = await cli(root, 'lease', 'acquire', 'wf.md', '--actor', 'alice', '--session', 's1', '--json');
      assert.equal(r.code, 0, r.err);
      assert.equal(JSON.parse(r.out).outcome, 'acquired');
      r = await cli(root, 'lease', 'acquire', 'wf.md', '--actor', 'bob', '--session', 's2');
      assert.equal(r.code, 3);
      assert.match(r.err, /locked by alice \(session s1, on .*\) since \d{4}-/);
      r = await cli(root, 'lease', 'acquire', 'wf.md', '--actor', 'bob', '--json');
      assert.equal(JSON.parse(r.out).error.reason, 'locked');
      r = await cli(root, 'lease', 'show', '--json');
      assert.equal(JSON.parse(r.out).leases.length, 1);
      r = await cli(root, 'lease', 'takeover', 'wf.md', '--actor', 'bob', '--session', 's2', '--reason', 'alice is gone');
      assert.equal(r.code, 0);
      assert.match(r.out, /took over wf\.md from alice/);
      r = await cli(root, 'history', 'wf.md');
      assert.match(r.out, /session s1 .* by alice/);
      assert.match(r.out, /bob lease\.takeover/);
      r = await cli(root, 'lease', 'release', 'wf.md', '--actor', 'alice', '--session', 's1');
      assert.equal(r.code, 3);
      r = await cli(root, 'lease', 'release', 'wf.md', '--actor', 'bob', '--session', 's2');
      assert.equal(r.code, 0);
      assert.match(r.out, /released/);
      r = await cli(root, 'mode', 'start', 'planning', '--actor', 'p');
      assert.equal(r.code, 0);
      r = await cli(root, 'mode', 'start', 'executing', '--actor', 'e');
      assert.equal(r.code, 3);
      assert.match(r.err, /mode 'planning' \(exclusive\) is held by p/);
      r = await cli(root, 'mode', 'show');
      assert.match(r.out, /^planning \(exclusive\)/);
      assert.equal((await cli(root, 'mode', 'end', 'planning', '--actor', 'p')).code, 0);
      assert.equal((await cli(root, 'mode', 'start', 'executing', '--actor', 'e')).code, 0);
    } finally {
      cleanup(root);
    }
  });

  test('checkpoint create/list/show/restore, resume, sync, history --at, events', async () => {
    const root = tempRoot();
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      const file = path.join(root, 'wf.md');
      fs.writeFileSync(file, WF);
      let r = await cli(root, 'checkpoint', 'create', '--message', 'first', '--json');
      assert.equal(r.code, 0, r.err);
      const id = JSON.parse(r.out).id as string;
      r = await cli(root, 'checkpoint', 'list');
      assert.match(r.out, new RegExp(`^${id} .* 1 workflow\\(s\\)  first`));
      r = await cli(root, 'checkpoint', 'show', id);
      assert.match(r.out, /wf\.md: in_progress, 0\/3 done, next a/);
      const core = createStateCore({ roots: [root], actor: 'bot', session: 'S' });
      await core.scan();
      await core.advance(file);
      r = await cli(root, 'resume', 'wf.md');
      assert.match(r.out, /^wf\.md: continue at b {2}\(tier 1: frontmatter; degradation standard\)/);
      r = await cli(root, 'resume', '--json');
      assert.equal(JSON.parse(r.out).workflows[0].step, 'b');
      r = await cli(root, 'sync');
      assert.match(r.out, /^checkpoint: \*: checkpoint .* written/);
      r = await cli(root, 'checkpoint', 'restore', id, '--dry-run');
      assert.equal(r.code, 4);
      assert.match(r.err, /completed step a would be un-done/);
      r = await cli(root, 'checkpoint', 'restore', id, '--dry-run', '--force');
      assert.match(r.out, /wf\.md: would restore/);
      assert.match(fs.readFileSync(file, 'utf8'), /currentStep: b/);
      r = await cli(root, 'checkpoint', 'restore', id, '--actor', 'me');
      assert.equal(r.code, 4, 'a rewind needs --force');
      r = await cli(root, 'checkpoint', 'restore', id, '--actor', 'me', '--force');
      assert.equal(r.code, 0, r.err);
      assert.equal(fs.readFileSync(file, 'utf8'), WF);
      r = await cli(root, 'history', 'wf.md', '--at', '1', '--json');
      assert.equal(JSON.parse(r.out).state.currentStep, 'b');
      r = await cli(root, 'history', 'wf.md');
      assert.match(r.out, /me checkpoint\.restore/);
      // changed body: refused with exit 3
      await core.reload(file);
      await core.advance(file);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('body', 'changed'));
      r = await cli(root, 'checkpoint', 'restore', id);
      assert.equal(r.code, 3);
      assert.match(r.err, /changed since the checkpoint/);
      r = await cli(root, 'events', '--since', '0');
      const evs = r.out.trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(evs.map((e) => e.seq), evs.map((_, i) => i + 1));
      assert.ok(evs.some((e) => e.type === 'checkpoint.restore'));
      r = await cli(root, 'events', '--since', '1', '--limit', '1');
      assert.equal(JSON.parse(r.out).seq, 2);
    } finally {
      cleanup(root);
    }
  });

  test('6 waymark CLI processes race for one lease: exactly one exits 0, the others exit 3 naming the holder', async () => {
    assert.ok(fs.existsSync('dist/cli.js'), 'dist/cli.js is built (npm test builds it first; or run node esbuild.mjs)');
    const root = tempRoot();
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      fs.writeFileSync(path.join(root, 'wf.md'), WF);
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => cliProcess(root, ['lease', 'acquire', 'wf.md', '--actor', `agent-${i}`, '--session', `s${i}`, '--json'])));
      const ok = results.filter((r) => r.code === 0);
      const locked = results.filter((r) => r.code === 3);
      assert.equal(ok.length, 1, JSON.stringify(results));
      assert.equal(locked.length, 5);
      const holder = JSON.parse(ok[0].out).lease.owner.agent as string;
      for (const r of locked) {
        assert.match(r.err, new RegExp(`locked by ${holder} \\(session s\\d, on .*\\) since `));
        assert.equal(JSON.parse(r.out).error.reason, 'locked');
      }
    } finally {
      cleanup(root);
    }
  });

  test('events --follow prints new events and stops at --limit', async () => {
    const root = tempRoot();
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      appendEvent(root, { type: 'one' });
      const p = cli(root, 'events', '--follow', '--since', '0', '--limit', '3');
      setTimeout(() => {
        appendEvent(root, { type: 'two' });
        appendEvent(root, { type: 'three' });
      }, 150);
      const r = await p;
      assert.deepEqual(r.out.trim().split('\n').map((l) => JSON.parse(l).type), ['one', 'two', 'three']);
    } finally {
      cleanup(root);
    }
  });
});

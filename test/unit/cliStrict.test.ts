import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getEventListeners } from 'node:events';
import { spawn } from 'node:child_process';
import { runCli, type CliCommand } from '../../src/cli/framework';
import { readCommands } from '../../src/cli/readCommands';
import { writeCommands } from '../../src/cli/writeCommands';
import { protocolCommands } from '../../src/cli/protocolCommands';
import { memoryCommands } from '../../src/cli/memoryCommands';
import { appendEvent, followEvents } from '../../src/core/protocol/events';
import { tempRoot, cleanup } from './protocolHelpers';

const ALL: CliCommand[] = [...readCommands, ...writeCommands, ...protocolCommands, ...memoryCommands];

const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, {id: b, gate: true}, c]\ncurrentStep: a\nstepsCompleted: []\n---\nbody\n';

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(ALL, argv, { cwd, stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

/** The real CLI through a shell, so pipes behave as they do for an agent. */
function sh(cwd: string, script: string, timeoutMs = 30000): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    // Its own process group: a timeout kills the CLI too, not only the shell (a follower that
    // never notices its reader left would otherwise hold the pipe open forever).
    const p = spawn('bash', ['-c', script], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WAYMARK_CLI: path.resolve('dist/cli.js') } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    const t = setTimeout(() => {
      process.kill(-p.pid!, 'SIGKILL');
      reject(new Error(`timed out: ${script}\n${err}`));
    }, timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out, err });
    });
  });
}

function workspace(): { root: string; file: string } {
  const root = tempRoot('waymark-strict-');
  fs.mkdirSync(path.join(root, '.waymark'));
  const file = path.join(root, 'wf.md');
  fs.writeFileSync(file, WF);
  return { root, file };
}

describe('the CLI refuses what it does not understand (issue 9, item 3)', () => {
  test('a misspelt --expect-hash is refused with exit 2 and a hint; the file is untouched', async () => {
    const { root, file } = workspace();
    try {
      const r = await cli(root, 'scope', 'wf.md', 'large', '--expected-hash', '0'.repeat(64));
      assert.equal(r.code, 2, r.out);
      assert.match(r.err, /unknown option --expected-hash; did you mean --expect-hash\?/);
      assert.equal(fs.readFileSync(file, 'utf8'), WF);
      assert.equal(fs.existsSync(path.join(root, '.waymark', 'history')), false, 'no history line either');
      const s = await cli(root, 'status', '--bogus');
      assert.equal(s.code, 2);
      assert.match(s.err, /unknown option --bogus/);
      const e = await cli(root, 'events', '--folow');
      assert.equal(e.code, 2);
      assert.match(e.err, /did you mean --follow\?/);
      const eq = await cli(root, 'advance', 'wf.md', `--expected-hash=${'0'.repeat(64)}`);
      assert.equal(eq.code, 2);
      assert.equal(fs.readFileSync(file, 'utf8'), WF);
    } finally {
      cleanup(root);
    }
  });

  test('every verb rejects an unknown option and accepts --json and --help', async () => {
    const { root } = workspace();
    try {
      for (const c of ALL) {
        const r = await cli(root, ...c.name.split(' '), '--no-such-option-here', 'x');
        assert.equal(r.code, 2, `${c.name}: ${r.err}`);
        assert.match(r.err, /unknown option --no-such-option-here/, c.name);
        assert.equal((await cli(root, ...c.name.split(' '), '--help')).code, 0, c.name);
        // Each declared option is read by the verb's help: what the verb takes is documented.
        for (const o of [...c.options, ...(c.booleanFlags ?? [])]) {
          assert.ok(formatted(c).includes(`--${o}`), `${c.name} declares --${o} but its --help does not mention it`);
        }
      }
    } finally {
      cleanup(root);
    }
  });
});

function formatted(c: CliCommand): string {
  return `${c.usage}\n${c.help ?? ''}`;
}

describe('"not OK" answers exit non-zero (issue 9, item 4)', () => {
  test('gate show on a closed gate, changed with changes, chain with integrity errors, history with nothing', async () => {
    const { root, file } = workspace();
    try {
      let r = await cli(root, 'gate', 'show', 'wf.md', 'b');
      assert.equal(r.code, 1, r.err);
      assert.match(r.out, /\(closed\)/);
      assert.equal((await cli(root, 'gate', 'pass', 'wf.md', 'b', '--by', 'me')).code, 0);
      r = await cli(root, 'gate', 'show', 'wf.md', 'b', '--json');
      assert.equal(r.code, 0);
      assert.equal(JSON.parse(r.out).gate.open, true);

      assert.equal((await cli(root, 'manifest')).code, 0);
      assert.equal((await cli(root, 'changed')).code, 0);
      fs.writeFileSync(file, WF.replace('currentStep: a', 'currentStep: c'));
      r = await cli(root, 'changed');
      assert.equal(r.code, 1);
      assert.match(r.out, /state changed: wf\.md/);

      const child = path.join(root, 'child.md');
      fs.writeFileSync(child, '---\nworkflow: w2\nstatus: in_progress\ndelegation: {id: kid, parent_id: ghost, root_id: ghost, depth: 1, chain_path: [ghost, kid], agent: dev}\n---\n');
      r = await cli(root, 'chain', 'child.md');
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(r.out, /error delegation-orphan/);
      fs.writeFileSync(child, '---\nworkflow: w2\nstatus: in_progress\ndelegation: {id: kid, parent_id: null, root_id: kid, depth: 0, chain_path: [kid], agent: dev}\n---\n');
      assert.equal((await cli(root, 'chain', 'child.md')).code, 0);

      r = await cli(root, 'history', 'child.md');
      assert.equal(r.code, 1);
      assert.match(r.out, /no history yet/);
      r = await cli(root, 'history', '.');
      assert.equal(r.code, 2);
      assert.match(r.err, /is a folder/);
      r = await cli(root, 'history', 'wf.md', '--at', '2000-01-01T00:00:00Z');
      assert.equal(r.code, 1);
    } finally {
      cleanup(root);
    }
  });
});

describe('pipes and long-running verbs (issue 9, items 5 and 6)', () => {
  test('waymark status . | head ends quietly: no EPIPE stack trace, exit 0', async () => {
    assert.ok(fs.existsSync('dist/cli.js'), 'dist/cli.js is built (node esbuild.mjs)');
    const root = tempRoot('waymark-pipe-');
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      // Enough output to overflow a pipe buffer (64 KB) after head has gone.
      for (let i = 0; i < 700; i++) fs.writeFileSync(path.join(root, `w${String(i).padStart(4, '0')}.md`), WF.replace('workflow: w', `workflow: w${i}`));
      const r = await sh(root, 'node "$WAYMARK_CLI" status . | head -1; echo "exit=${PIPESTATUS[0]}"');
      assert.equal(r.err, '', 'nothing on stderr');
      assert.match(r.out, /^w0000\.md\nexit=0\n$/);
    } finally {
      cleanup(root);
    }
  });

  test('events --follow keeps one abort listener, however long it polls', async () => {
    const root = tempRoot('waymark-follow-');
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      appendEvent(root, { type: 'one' });
      const ac = new AbortController();
      const seen: number[] = [];
      const it = followEvents(root, 0, { signal: ac.signal, pollMs: 1 });
      const run = (async () => {
        for await (const e of it) seen.push(e.seq);
      })();
      await new Promise((r) => setTimeout(r, 150));
      assert.ok(getEventListeners(ac.signal, 'abort').length <= 1, `${getEventListeners(ac.signal, 'abort').length} abort listeners after ~100 polls`);
      ac.abort();
      await run;
      assert.deepEqual(seen, [1]);
      assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
    } finally {
      cleanup(root);
    }
  });

  test('the real events --follow prints no MaxListenersExceededWarning and stops when its reader goes', async () => {
    const root = tempRoot('waymark-follow-');
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      appendEvent(root, { type: 'one' });
      // head -1 leaves after the first event; the follower must notice at its next write and end.
      setTimeout(() => appendEvent(root, { type: 'two' }), 1600);
      setTimeout(() => appendEvent(root, { type: 'three' }), 1800);
      const r = await sh(root, 'node "$WAYMARK_CLI" events --follow | head -1; echo "exit=${PIPESTATUS[0]}"', 20000);
      assert.doesNotMatch(r.err, /MaxListenersExceededWarning|EPIPE/);
      assert.match(r.out, /"type":"one".*\nexit=0\n$/);
    } finally {
      cleanup(root);
    }
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { claudeEvent, cleanup, featureWorkspace, treeDigest, write, type Run } from './hooksHelpers';

/** Runs `sh -c script` (a real shell pipeline into dist/cli.js) in `cwd`. */
function shell(script: string, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CLI: `${process.execPath} ${path.resolve('dist/cli.js')}`, CLAUDE_PROJECT_DIR: cwd };
    delete env.WAYMARK_ACTOR;
    delete env.WAYMARK_SESSION;
    const p = spawn('sh', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const gatedEdit = (root: string) => claudeEvent(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'docs/plan.md'), old_string: 'stepsCompleted: [discovery]', new_string: 'stepsCompleted: [discovery, design]' } });

describe('waymark hook: the event is read to its end, whenever and however large it comes', () => {
  test('an event that arrives a second late is judged: a rule-breaking edit is refused with exit 2', async () => {
    const root = featureWorkspace();
    try {
      write(root, 'ev.json', gatedEdit(root));
      write(root, 'ok.json', claudeEvent(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'src/app.ts'), old_string: 'x = 1', new_string: 'x = 2' } }));
      const before = treeDigest(root);
      for (const flags of ['--fail-closed', '']) {
        const r = await shell(`(sleep 1; cat ev.json) | $CLI hook claude-code ${flags}`, root);
        assert.equal(r.code, 2, `${flags}: ${r.stderr}`);
        assert.match(r.stderr, /step design is gated and its gate design has no verdict yet/);
      }
      // A harmless edit arriving late passes.
      const ok = await shell('(sleep 1; cat ok.json) | $CLI hook claude-code --fail-closed', root);
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(treeDigest(root), before);
    } finally {
      cleanup(root);
    }
  });

  test('a 1 MB Write is read whole and judged: completing a gated step in it is refused', async () => {
    const root = featureWorkspace();
    try {
      const content = '---\nworkflow: feature\nstatus: in_progress\ncurrentStep: implement\nstepsCompleted: [discovery, design]\n---\n# Plan\n\n' + 'A long body line of the plan.\n'.repeat(36_000);
      assert.ok(content.length > 1024 * 1024);
      write(root, 'ev.json', claudeEvent(root, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: path.join(root, 'docs/plan.md'), content } }));
      // Written in pieces, slower than the hook reads them.
      const r = await shell('(head -c 100000 ev.json; sleep 0.3; tail -c +100001 ev.json) | $CLI hook claude-code --fail-closed', root);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /step design is gated and its gate design has no verdict yet/);
      const whole = await shell('cat ev.json | $CLI hook claude-code', root);
      assert.equal(whole.code, 2, whole.stderr);
      assert.equal(fs.readFileSync(path.join(root, 'docs/plan.md'), 'utf8').includes('A long body line'), false);
    } finally {
      cleanup(root);
    }
  });

  test('a non-blocking pipe (as some agents hand over) is read to its end too, late and in pieces', { skip: process.platform === 'win32' ? 'no FIFOs' : undefined }, async () => {
    const root = featureWorkspace();
    try {
      // A FIFO opened non-blocking: the flag is on the open file, so the hook's stdin has it too
      // (handed over as fd 3 and moved to 0 by the shell: Node's spawn makes fds 0-2 blocking).
      const fifo = path.join(root, 'in.fifo');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      const rd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      const wr = fs.openSync(fifo, fs.constants.O_WRONLY);
      const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PROJECT_DIR: root };
      delete env.WAYMARK_ACTOR;
      delete env.WAYMARK_SESSION;
      env.CLI = `${process.execPath} ${path.resolve('dist/cli.js')}`;
      const p = spawn('sh', ['-c', 'exec $CLI hook claude-code <&3 3<&-'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe', rd] });
      fs.closeSync(rd);
      let stderr = '';
      p.stderr?.on('data', (d) => (stderr += d));
      const code = new Promise<number | null>((resolve) => p.on('close', resolve));
      const event = gatedEdit(root);
      await new Promise((r) => setTimeout(r, 400));
      fs.writeSync(wr, event.slice(0, 60));
      await new Promise((r) => setTimeout(r, 300));
      fs.writeSync(wr, event.slice(60));
      fs.closeSync(wr);
      assert.equal(await code, 2, stderr);
      assert.match(stderr, /step design is gated and its gate design has no verdict yet/);
    } finally {
      cleanup(root);
    }
  });

  test('--fail-closed refuses input it cannot read or parse: exit 2, the reason on stderr, the deny answer on stdout', async () => {
    const root = featureWorkspace();
    try {
      fs.mkdirSync(path.join(root, 'adir'));
      write(root, 'torn.json', gatedEdit(root).slice(0, 80));
      write(root, 'bad.json', JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: root, tool_name: 'Write', tool_input: { file_path: path.join(root, 'docs/plan.md'), content: 7 } }));
      for (const [script, why] of [
        ['$CLI hook claude-code --fail-closed < adir', /could not check this change .*(EISDIR|directory)/s],
        ['cat torn.json | $CLI hook claude-code --fail-closed', /could not check this change .*not valid JSON/s],
        ['(sleep 0.5; cat torn.json) | $CLI hook claude-code --fail-closed', /could not check this change .*not valid JSON/s],
        ['$CLI hook claude-code --fail-closed < /dev/null', /could not check this change .*not valid JSON/s],
        ['cat bad.json | $CLI hook claude-code --fail-closed', /could not check this change .*tool_input\.content must be a string/s],
      ] as const) {
        const r = await shell(script, root);
        assert.equal(r.code, 2, `${script}: ${r.stderr}`);
        assert.match(r.stderr, why, script);
        assert.match(r.stderr, /refused because the hook runs with --fail-closed/, script);
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
        const answer = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
        assert.equal(answer.hookSpecificOutput.hookEventName, 'PreToolUse', script);
        assert.equal(answer.hookSpecificOutput.permissionDecision, 'deny', script);
        assert.match(answer.hookSpecificOutput.permissionDecisionReason, why, script);
      }
      // Without --fail-closed the same input is a non-blocking error (exit 1), never a stack trace.
      const open = await shell('$CLI hook claude-code < adir', root);
      assert.equal(open.code, 1, open.stderr);
      assert.match(open.stderr, /^waymark hook: .*The event was not checked\.\n$/s);
      // Gemini answers a refusal as a JSON deny with exit 0.
      const gemini = await shell('$CLI hook gemini --fail-closed < adir', root);
      assert.equal(gemini.code, 0, gemini.stderr);
      assert.equal((JSON.parse(gemini.stdout) as { decision: string }).decision, 'deny');
    } finally {
      cleanup(root);
    }
  });
});

/**
 * Session 31's outside check (red31): entries and inputs nobody here had played.
 * - The CLI run from a folder that was removed died with node's `uv_cwd` stack trace: every entry
 *   (each verb bundle, the full CLI, the merge driver, the MCP server, the hook) now says so in one
 *   line and exits 2; a hook gives its documented failure (blocking with --fail-closed).
 * - The V8 compile cache grew without bound (every install place and verb kept its entries forever).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { pruneCompileCache } from '../../src/cli/bundleLoader';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import type { HookOutput } from '../../src/hooks/port';
import { answer, cleanup, DEFINITION, PLAN, tempWorkspace, treeDigest, write } from './hooksHelpers';

const CLI = path.resolve('dist/cli.js');
const tmps: string[] = [];
after(() => {
  for (const d of tmps) cleanup(d);
});
const tmp = (prefix: string) => {
  const d = tempWorkspace(prefix);
  tmps.push(d);
  return d;
};

/** Runs the CLI from a folder removed after the shell entered it. */
function fromRemovedFolder(args: string[], stdin = ''): { code: number | null; stdout: string; stderr: string } {
  const parent = tmp('wm-red31-gone-');
  const gone = path.join(parent, 'gone');
  fs.mkdirSync(gone);
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('/bin/sh', ['-c', `cd '${gone}' && rmdir '${gone}' && exec ${quoted}`], { input: stdin, encoding: 'utf8', timeout: 60_000, env: { ...process.env, WAYMARK_COMPILE_CACHE: '0' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('red31: run from a folder that was removed', () => {
  for (const args of [['sprint'], ['status'], ['validate'], ['next'], ['history'], ['advance', 'x'], ['help'], ['mcp'], ['memory', 'list'], ['merge-driver', 'a', 'b', 'c']]) {
    test(`waymark ${args.join(' ')}: one line, what to do, exit 2`, () => {
      const r = fromRemovedFolder(args);
      assert.equal(r.code, 2, r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at |uv_cwd|node:internal/, r.stderr);
      assert.match(r.stderr, /^waymark: the current folder no longer exists[^\n]*cd into[^\n]*\n$/);
      assert.equal(r.stdout, '');
    });
  }
  const event = JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: 'docs/plan.md', old_string: 'a', new_string: 'b' } });
  test('a hook with --fail-closed refuses, saying why', () => {
    const r = fromRemovedFolder(['hook', 'claude-code', '--fail-closed'], event);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, 'deny');
    assert.match(r.stderr, /current folder no longer exists/);
    assert.doesNotMatch(r.stderr, /\n\s+at |uv_cwd/);
  });
  test('a hook without it gives its documented failure, one line', () => {
    for (const stdin of [event, '{}', '']) {
      const r = fromRemovedFolder(['hook', 'claude-code'], stdin);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^waymark hook: the current folder no longer exists[^\n]*\n$/);
    }
  });
});

describe('red31: the V8 compile cache is bounded', () => {
  const fill = (dir: string, name: string, n: number, size: number, ageS: (i: number) => number) => {
    for (let i = 0; i < n; i++) {
      const f = path.join(dir, `${name}@${(0x10000000 + i).toString(16)}-${size}-k${i}-v20.0.0-x64.v8`);
      fs.writeFileSync(f, Buffer.alloc(size, 1));
      const t = (Date.now() - ageS(i) * 1000) / 1000;
      fs.utimesSync(f, t, t);
    }
  };

  test('keeps the newest entries of each bundle and verb, under a size cap; never follows a link or leaves the folder', () => {
    const root = tmp('wm-red31-v8-');
    const dir = path.join(root, 'v8');
    fs.mkdirSync(dir, { mode: 0o700 });
    fill(dir, 'cli-main.mcp', 12, 1000, (i) => 3600 * (i + 1));
    fill(dir, 'cli-read.status', 2, 1000, (i) => 60 * (i + 1));
    fill(dir, 'cli-zod', 30, 100, (i) => 7200 * (i + 1));
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'victim.v8'), 'precious');
    fs.symlinkSync(path.join(outside, 'victim.v8'), path.join(dir, 'cli-main.mcp@00000000-1-k-v20.0.0-x64.v8'));
    fs.symlinkSync(outside, path.join(dir, 'cli-main.mcp@00000001-1-k-v20.0.0-x64.v8'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not ours');
    const before = treeDigest(outside);
    pruneCompileCache(dir, { keep: 3, capBytes: 4500, everyMs: 0 });
    const left = fs.readdirSync(dir).filter((n) => n.endsWith('.v8') && fs.lstatSync(path.join(dir, n)).isFile());
    const of = (p: string) => left.filter((n) => n.startsWith(`${p}@`)).sort();
    assert.deepEqual(of('cli-read.status').length, 2);
    // Newest first within a bundle; the cap then drops the oldest across bundles.
    assert.ok(of('cli-main.mcp').length <= 3 && of('cli-main.mcp').includes(`cli-main.mcp@10000000-1000-k0-v20.0.0-x64.v8`), left.join());
    assert.ok(of('cli-zod').length <= 3, left.join());
    const bytes = left.reduce((s, n) => s + fs.statSync(path.join(dir, n)).size, 0);
    assert.ok(bytes <= 4500, `${bytes} bytes left`);
    assert.deepEqual(treeDigest(outside), before);
    assert.ok(fs.lstatSync(path.join(dir, 'cli-main.mcp@00000000-1-k-v20.0.0-x64.v8')).isSymbolicLink(), 'a link is left alone');
    assert.equal(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'not ours');
  });

  test('runs rarely: not again before its period', () => {
    const dir = path.join(tmp('wm-red31-v8b-'), 'v8');
    fs.mkdirSync(dir, { mode: 0o700 });
    fill(dir, 'cli-sprint.sprint', 2, 10, (i) => 60 * (i + 1));
    pruneCompileCache(dir, { keep: 1, capBytes: 1 << 30, everyMs: 3_600_000 });
    assert.equal(fs.readdirSync(dir).filter((n) => n.endsWith('.v8')).length, 1);
    fill(dir, 'cli-sprint.story', 2, 10, (i) => 60 * (i + 1));
    pruneCompileCache(dir, { keep: 1, capBytes: 1 << 30, everyMs: 3_600_000 });
    assert.equal(fs.readdirSync(dir).filter((n) => n.endsWith('.v8')).length, 3, 'the second call within the hour did nothing');
  });

  test('the real CLI prunes a crowded cache when it writes a new entry', () => {
    const dir = path.join(tmp('wm-red31-v8c-'), 'v8');
    fs.mkdirSync(dir, { mode: 0o700 });
    fill(dir, 'cli-read.status', 40, 100, (i) => 3600 * (i + 2));
    const ws = tmp('wm-red31-ws-');
    const r = spawnSync(process.execPath, [CLI, 'status', '--json'], { cwd: ws, encoding: 'utf8', env: { ...process.env, WAYMARK_COMPILE_CACHE: dir } });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    const status = fs.readdirSync(dir).filter((n) => n.startsWith('cli-read.status@'));
    assert.ok(status.length <= 4 && status.length >= 1, status.join());
  });
});

describe('red31: a hook whose stdin never closes', () => {
  /** The real CLI with a stdin that gets `first` and is then left open; killed after 60 s (a hang fails the test). */
  function leftOpen(args: string[], first: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const p = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, WAYMARK_HOOK_STDIN_MS: '1000' }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      const guard = setTimeout(() => p.kill('SIGKILL'), 60_000);
      p.on('close', (code) => {
        clearTimeout(guard);
        p.stdin.destroy();
        resolve({ code, stdout, stderr });
      });
      p.stdin.write(first);
    });
  }
  test('with --fail-closed: refused, and the process ends (Claude Code, Copilot, Cursor)', async () => {
    const ws = tmp('wm-red31-open-');
    const claude = await leftOpen(['hook', 'claude-code', '--fail-closed'], '{"session_id":"s","tool_name":"Wri', ws);
    assert.equal(claude.code, 2, claude.stderr);
    assert.equal(JSON.parse(claude.stdout).hookSpecificOutput.permissionDecision, 'deny');
    assert.match(claude.stderr, /stdin was still open/);
    const copilot = await leftOpen(['hook', 'copilot', '--fail-closed'], '', ws);
    assert.equal(copilot.code, 0, copilot.stderr);
    assert.equal(JSON.parse(copilot.stdout).permissionDecision, 'deny');
    const cursor = await leftOpen(['hook', 'cursor', '--fail-closed'], '{}', ws);
    assert.equal(JSON.parse(cursor.stdout).permission, 'deny');
  });
});

describe('red31: the enforcement itself is not the agent\'s to edit', () => {
  const claude = HOOK_ADAPTERS.get('claude-code')!;
  const copilot = HOOK_ADAPTERS.get('copilot')!;
  const denied = (out: HookOutput) => out.exitCode === 2 || /"deny"/.test(out.stdout);
  let root: string;
  const SETTINGS = '{\n  // the team\'s settings\n  "permissions": {"allow": ["Bash(ls)"]},\n  "hooks": {\n    "PreToolUse": [{"matcher": "Edit|Write|MultiEdit|Bash", "hooks": [{"type": "command", "command": "waymark hook claude-code --fail-closed", "timeout": 30}]}],\n  },\n}\n';
  const pre = (tool: string, input: Record<string, unknown>) => ({ session_id: 's31', cwd: root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });
  before(() => {
    root = tmp('wm-red31-enf-');
    write(root, '.waymark/workflows/feature.yaml', DEFINITION);
    write(root, 'docs/plan.md', PLAN);
    write(root, '.claude/settings.json', SETTINGS);
    write(root, '.github/hooks/waymark.json', '{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "node \\"/home/u/.vscode/extensions/acme.waymark-1.4.0/dist/cli.js\\" hook copilot", "timeoutSec": 30}]}}\n');
    write(root, '.waymark/config.yaml', 'include: ["**/*.md"]\n');
  });

  test('removing, narrowing or relaxing Waymark\'s hook is refused, naming the human step', async () => {
    const file = path.join(root, '.claude/settings.json');
    for (const input of [
      { file_path: file, content: '{"permissions": {}}\n' },
      { file_path: file, old_string: 'Edit|Write|MultiEdit|Bash', new_string: 'NotebookEdit' },
      { file_path: file, old_string: ' --fail-closed', new_string: '' },
      { file_path: file, old_string: '"permissions"', new_string: '"disableAllHooks": true, "permissions"' },
      { file_path: file, old_string: '"hooks": {', new_string: '"hooks": {{' },
    ]) {
      const out = await answer(claude, pre('content' in input ? 'Write' : 'Edit', input));
      assert.ok(denied(out), `${JSON.stringify(input)}: ${out.stdout}${out.stderr}`);
      assert.match(out.stderr, /waymark hook uninstall/);
    }
    for (const command of ['rm .claude/settings.json', "sed -i '/waymark/d' .claude/settings.json", 'echo {} > .github/hooks/waymark.json', 'mv .claude/settings.json /tmp/x.json']) {
      const out = await answer(claude, pre('Bash', { command }));
      assert.ok(denied(out), `${command}: ${out.stderr}`);
      assert.match(out.stderr, /waymark hook uninstall/);
    }
    const ps = await answer(copilot, { timestamp: 1, cwd: root, toolName: 'powershell', toolArgs: JSON.stringify({ command: 'Remove-Item .github/hooks/waymark.json' }) });
    assert.equal(JSON.parse(ps.stdout).permissionDecision, 'deny', ps.stdout);
  });

  test('another settings file turning every hook off is refused; other settings pass', async () => {
    const local = await answer(claude, pre('Write', { file_path: path.join(root, '.claude/settings.local.json'), content: '{"disableAllHooks": true}\n' }));
    assert.ok(denied(local), local.stderr);
    const fine = await answer(claude, pre('Write', { file_path: path.join(root, '.claude/settings.local.json'), content: '{"permissions": {"allow": ["Bash(npm test)"]}}\n' }));
    assert.equal(fine.exitCode, 0, fine.stderr);
    const perms = await answer(claude, pre('Edit', { file_path: path.join(root, '.claude/settings.json'), old_string: 'Bash(ls)', new_string: 'Bash(ls)", "Bash(npm test)' }));
    assert.equal(perms.exitCode, 0, perms.stderr);
  });

  test('.waymark/config.yaml: written, replaced or created by an agent is refused', async () => {
    const file = path.join(root, '.waymark/config.yaml');
    const edit = await answer(claude, pre('Edit', { file_path: file, old_string: '**/*.md', new_string: 'nothing/**' }));
    assert.ok(denied(edit), edit.stderr);
    assert.match(edit.stderr, /the user's to change/);
    const other = tmp('wm-red31-noconf-');
    write(other, '.waymark/workflows/feature.yaml', DEFINITION);
    const create = await answer(claude, { session_id: 's', cwd: other, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path.join(other, '.waymark/config.yaml'), content: 'include: ["nothing/**"]\n' } });
    assert.ok(denied(create), create.stderr);
  });
});

describe('red31: PowerShell building a state path at run time', () => {
  const copilot = HOOK_ADAPTERS.get('copilot')!;
  test('Join-Path, $env:, concatenation and [IO.Path]::Combine writes are refused; builds of source paths and reads pass', async () => {
    const root = tmp('wm-red31-ps-');
    write(root, '.waymark/workflows/feature.yaml', DEFINITION);
    write(root, 'docs/plan.md', PLAN);
    write(root, '_bmad-output/implementation-artifacts/sprint-status.yaml', 'development_status:\n  1-1-a: in-progress\n');
    const run = async (command: string) => (await answer(copilot, { timestamp: 1, cwd: path.join(root, 'docs'), toolName: 'powershell', toolArgs: JSON.stringify({ command }) })).stdout;
    for (const command of [
      "Set-Content (Join-Path $env:WORKSPACE 'docs' 'plan.md') 'x'",
      "Set-Content \"$env:WORKSPACE\\docs\\plan.md\" x",
      "$d = $PWD.Path + '/../_bmad-output/implementation-artifacts'; Add-Content ($d + '/sprint-status.yaml') '  1-1-a: done'",
      "[IO.File]::WriteAllText([IO.Path]::Combine($root, 'sprint-status.yaml'), 'x')",
    ]) {
      const out = await run(command);
      assert.ok(out && JSON.parse(out).permissionDecision === 'deny', `${command}: ${out}`);
    }
    for (const command of ["Set-Content (Join-Path $env:WORKSPACE 'src' 'app.ts') 'x'", "Get-Content (Join-Path $env:WORKSPACE 'plan.md')", '$x = 1; Write-Output $x']) {
      assert.equal(await run(command), '', command);
    }
  });
});

/**
 * Session 33's outside check (red33): what session 32 left.
 * - The hooks had their own workspace finder, without `.bmad`/`.bmad-core`: a hook run in a BMAD v4
 *   project below a git folder judged against the git folder. One finder now (core/engine/markers.ts).
 * - `waymark mcp` started at `/` (a desktop client's cwd) served the whole file system: refused, with
 *   what to do (MCP's `roots` are deprecated since the 2026-07-28 revision, SEP-2577).
 * - A `file://` argument to an MCP tool was a relative name `file:/…` inside the workspace; the hooks
 *   read it as the file it names. Both read the file now; outside the workspace refused.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findWorkspaceRoot as coreRoot } from '../../src/core/index';
import { findWorkspaceRoot as hookRoot, workspaceRootOf } from '../../src/hooks/quickCheck';
import { cleanup, runCliProcess, tempWorkspace, treeDigest } from './hooksHelpers';
import { childEnv, cliPath, cleanup as mcpCleanup, startServer, workspace } from './mcpHelpers';

const CLI = path.resolve('dist/cli.js');
const tmps: string[] = [];
after(() => {
  for (const d of tmps) cleanup(d);
  mcpCleanup();
});

function temp(): string {
  const d = tempWorkspace('wm-red33-');
  tmps.push(d);
  return d;
}

/** A BMAD v4 project (`.bmad-core/`, no git of its own) in `app/` of a git repository. */
function v4BelowGit(): { top: string; app: string } {
  const top = temp();
  spawnSync('git', ['init', '-q', top]);
  const app = path.join(top, 'app');
  fs.cpSync(path.resolve('test/fixtures/bmad-v4'), app, { recursive: true });
  return { top, app };
}

describe('red33: one workspace finder for the hooks and the core', () => {
  test('a .bmad-core (or .bmad) project below a git folder is the workspace for both', () => {
    const { app } = v4BelowGit();
    const inside = path.join(app, 'docs', 'stories');
    assert.equal(coreRoot(path.join(inside, '1.1.login.md')), app);
    assert.equal(hookRoot(inside), app);
    assert.equal(workspaceRootOf({ agent: 'claude-code', event: 'PreToolUse', cwd: inside } as Parameters<typeof workspaceRootOf>[0]), app);
    fs.renameSync(path.join(app, '.bmad-core'), path.join(app, '.bmad'));
    assert.equal(hookRoot(inside), coreRoot(path.join(inside, 'x.md')));
    assert.equal(hookRoot(inside), app);
  });

  test('a hook run from inside it judges in it: the refusal names the story as the CLI does', async () => {
    const { app } = v4BelowGit();
    const story = path.join(app, 'docs', 'stories', '1.1.login.md');
    const cwd = path.join(app, 'docs');
    const payload = JSON.stringify({ session_id: 's', cwd, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: story, content: '# Story 1.1: Login\n\n## Status\n\nBogusword\n\n## Story\n\nx\n' } });
    const r = await runCliProcess(['hook', 'claude-code'], payload, { cwd, env: { CLAUDE_PROJECT_DIR: undefined, WAYMARK_ACTOR: undefined, WAYMARK_SESSION: undefined } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /refused this edit of docs\/stories\/1\.1\.login\.md/);
    assert.doesNotMatch(r.stderr, /app\/docs/);
  });
});

describe('red33: waymark mcp started at the file system root', () => {
  test('a real MCP client started with cwd / and no --root: no server, and the log says what to do', { timeout: 120_000 }, async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath(), 'mcp'], cwd: '/', env: childEnv(), stderr: 'pipe' });
    let err = '';
    transport.stderr?.on('data', (d) => (err += d));
    const client = new Client({ name: 'red33', version: '1.0.0' });
    await assert.rejects(client.connect(transport));
    await client.close().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    assert.match(err, /\/ is the file system's root, not a project folder/);
    assert.match(err, /--root DIR/);
    assert.doesNotMatch(err, /\n\s+at /);
  });

  test('--root / and --root naming a link to / are refused the same way (exit 2)', () => {
    const link = path.join(temp(), 'rootlink');
    fs.symlinkSync('/', link);
    for (const root of ['/', link]) {
      const r = spawnSync(process.execPath, [CLI, 'mcp', '--root', root], { input: '', encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /file system's root, not a project folder/);
    }
  });
});

describe('red33: a file:// URI names its file through MCP, as in the hooks', () => {
  test('status of file:///…/docs/feat.workflow.md answers that workflow; outside and other hosts refused', async () => {
    const root = workspace();
    const outside = temp();
    fs.writeFileSync(path.join(outside, 'plan.md'), '---\nworkflow: feature\nstatus: in_progress\n---\n');
    const s = await startServer(root);
    try {
      const ok = await s.call('waymark_status', { file: pathToFileURL(path.join(fs.realpathSync(root), 'docs', 'feat.workflow.md')).href });
      assert.equal(ok.isError, false, ok.text);
      assert.equal(ok.data.workflow, 'feature');
      const before = treeDigest(root);
      for (const file of ['file:///etc/passwd', pathToFileURL(path.join(outside, 'plan.md')).href]) {
        const lease = await s.call('waymark_lease', { action: 'acquire', file });
        assert.equal(lease.isError, true, lease.text);
        assert.match(lease.text, /outside the workspace/);
        const st = await s.call('waymark_status', { file });
        assert.equal(st.isError, true);
        assert.match(st.text, /outside the workspace/);
      }
      const host = await s.call('waymark_status', { file: 'file://server/share/plan.md' });
      assert.equal(host.isError, true);
      assert.match(host.text, /names no local file/);
      assert.deepEqual(Object.keys(treeDigest(root)).filter((k) => k.startsWith('file:')), []);
      assert.ok(!fs.existsSync(path.join(root, 'file:')), 'no folder named file: made');
      assert.deepEqual(Object.keys(treeDigest(root)).filter((k) => !(k in before) && !k.startsWith('.waymark')), []);
    } finally {
      await s.close();
    }
  });

  test('the hook face: a Write naming file:///…/docs/plan.md is judged as that file', async () => {
    const root = temp();
    fs.mkdirSync(path.join(root, '.waymark', 'workflows'), { recursive: true });
    fs.writeFileSync(path.join(root, '.waymark', 'workflows', 'feature.yaml'), 'steps:\n  - discovery\n  - {id: design, gate: true}\n  - implement\n');
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs', 'plan.md'), '---\nworkflow: feature\nstatus: in_progress\ncurrentStep: design\nstepsCompleted: [discovery]\n---\n');
    const payload = JSON.stringify({ session_id: 's', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: pathToFileURL(path.join(root, 'docs', 'plan.md')).href, content: '---\nworkflow: feature\nstatus: in_progress\ncurrentStep: implement\nstepsCompleted: [discovery, design]\n---\n' } });
    const r = await runCliProcess(['hook', 'claude-code'], payload, { cwd: root, env: { CLAUDE_PROJECT_DIR: root, WAYMARK_ACTOR: undefined, WAYMARK_SESSION: undefined } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /docs\/plan\.md/);
    assert.match(r.stderr, /gate/i);
  });
});

describe('red33: a ledger linked from a place the walk finds', () => {
  /** bmad-v6 with no config place for the ledger: it lives in docs/modules/a/ as a link. */
  function linked(target: (root: string) => string): { root: string; link: string; real: string } {
    const root = temp();
    fs.cpSync(path.resolve('test/fixtures/bmad-v6'), root, { recursive: true });
    const cfg = path.join(root, '_bmad/bmm/config.yaml');
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace(/^(implementation_artifacts|output_folder):.*\n/gm, ''));
    const ledger = path.join(root, '_bmad-output/implementation-artifacts/sprint-status.yaml');
    const real = target(root);
    fs.mkdirSync(path.dirname(real), { recursive: true });
    fs.renameSync(ledger, real);
    const link = path.join(root, 'docs/modules/a/sprint-status.yaml');
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(link), real), link);
    return { root, link, real };
  }
  const run = (cwd: string, args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, WAYMARK_COMPILE_CACHE: '0' } });

  test('inside the workspace: read as the ledger, and set-status writes the file it names (the link kept)', () => {
    const { root, link, real } = linked((r) => path.join(r, 'shared', 'ledger.yaml'));
    const s = run(root, ['sprint', '--json']);
    assert.equal(s.status, 0, s.stderr);
    assert.deepEqual(JSON.parse(s.stdout).problems.filter((p: { severity: string }) => p.severity === 'error'), []);
    assert.deepEqual(JSON.parse(s.stdout).ledgers ?? [JSON.parse(s.stdout).ledger], ['docs/modules/a/sprint-status.yaml']);
    const w = run(root, ['story', 'set-status', '2-1-dashboard', 'review']);
    assert.equal(w.status, 0, w.stderr);
    assert.match(w.stdout, /sprint-status\.yaml/);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is kept');
    assert.match(fs.readFileSync(real, 'utf8'), /2-1-dashboard: review/);
  });

  test('a link beside the file it names (both named sprint-status.yaml): one ledger, read once', () => {
    const { root } = linked((r) => path.join(r, 'shared', 'sprint-status.yaml'));
    const s = run(root, ['sprint', '--json']);
    assert.equal(s.status, 0, s.stderr);
    assert.deepEqual(JSON.parse(s.stdout).ledgers, ['shared/sprint-status.yaml']);
    assert.ok(!JSON.parse(s.stdout).problems.some((p: { code: string }) => p.code === 'ledger-duplicate-key'));
  });

  test('outside the workspace: not read, and nothing written there', () => {
    const away = temp();
    const { root, real } = linked(() => path.join(away, 'sprint-status.yaml'));
    const before = fs.readFileSync(real, 'utf8');
    const s = run(root, ['sprint', '--json']);
    assert.equal(s.signal, null);
    assert.doesNotMatch(s.stdout, /docs\/modules\/a\/sprint-status\.yaml/);
    run(root, ['story', 'set-status', '2-1-dashboard', 'review']);
    assert.equal(fs.readFileSync(real, 'utf8'), before, 'the file outside is untouched');
  });
});

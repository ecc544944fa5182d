/**
 * Session 34's outside check (red34): what session 33 left and new hostile inputs.
 * - At a monorepo's top, a hook judged a nested project's file by the top's rules (a gated step of
 *   `apps/api`'s workflow was marked done with no verdict): judged by the project it belongs to now,
 *   and by the workspace around it too (a marker folder made below state gains nothing).
 * - The sprint cache kept a walked `sprint-status.yaml` link's kind, not its target: a link to the
 *   ledger the walk found itself (passed over), retargeted to another ledger, left the cached sprint
 *   without that ledger. The link's real path is an input now.
 * - Deeply nested values: `x = [[[…]]]` in a tickets.toml, or `x: [[[…]]]` in a ticket plan's
 *   frontmatter (thousands deep), overflowed the stack: the hook said "unexpected error … not checked"
 *   and exited 1 (Claude Code goes ahead: fail-open); validate and sprint crashed. A clear refusal now.
 * - Another MCP server's `write_file` (`mcp__filesystem__write_file`, path + content) making a new state
 *   file that marks a gated step done was let through (its change "not said", and no state there yet):
 *   judged as Write is now.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { cleanup, runCliProcess, tempWorkspace } from './hooksHelpers';
import { loadSprint } from '../../src/core/bmad/sprint';
import { setSprintCacheRacyWindow } from '../../src/core/bmad/sprintCache';

const CLI = path.resolve('dist/cli.js');
const tmps: string[] = [];
after(() => {
  for (const d of tmps) cleanup(d);
});

function temp(): string {
  const d = tempWorkspace('wm-red34-');
  tmps.push(d);
  return d;
}

function put(root: string, rel: string, text: string): string {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
  return abs;
}

const NO_AGENT_ENV = { CLAUDE_PROJECT_DIR: undefined, WAYMARK_ACTOR: undefined, WAYMARK_SESSION: undefined, GEMINI_PROJECT_DIR: undefined };
const GATED = 'steps:\n  - build\n  - id: review\n    gate: true\n  - ship\n';
const AT_REVIEW = '---\nworkflow: release\nstatus: in_progress\nstepsCompleted: [build]\ncurrentStep: review\n---\nBody\n';
const REVIEW_DONE = '---\nworkflow: release\nstatus: in_progress\nstepsCompleted: [build, review]\ncurrentStep: ship\n---\nBody\n';

function claudeWrite(cwd: string, file: string, content: string): string {
  return JSON.stringify({ session_id: 's', cwd, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: file, content } });
}

/** A git repository whose `apps/api` is a Waymark project of its own (a gated workflow). */
function monorepo(): { top: string; api: string; plan: string } {
  const top = temp();
  spawnSync('git', ['init', '-q', top]);
  const api = path.join(top, 'apps', 'api');
  put(api, '.waymark/workflows/release.yaml', GATED);
  const plan = put(api, 'docs/rel.workflow.md', AT_REVIEW);
  return { top, api, plan };
}

describe('red34: a hook at a monorepo top judges a nested project by its own rules', () => {
  test('a gated step of a nested project marked done with no verdict is refused from every cwd', async () => {
    const { top, api, plan } = monorepo();
    for (const cwd of [top, path.join(top, 'apps'), api, path.join(api, 'docs')]) {
      const r = await runCliProcess(['hook', 'claude-code'], claudeWrite(cwd, plan, REVIEW_DONE), { cwd, env: NO_AGENT_ENV });
      assert.equal(r.code, 2, `cwd ${cwd}: ${r.stderr}`);
      assert.match(r.stderr, /refused this edit of docs\/rel\.workflow\.md:\n- step review is gated/);
      assert.match(r.stderr, /waymark gate pass docs\/rel\.workflow\.md review/);
    }
    // The agent's project folder at the top (CLAUDE_PROJECT_DIR) as well.
    const r = await runCliProcess(['hook', 'claude-code'], claudeWrite(top, plan, REVIEW_DONE), { cwd: top, env: { ...NO_AGENT_ENV, CLAUDE_PROJECT_DIR: top } });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(fs.readFileSync(plan, 'utf8'), AT_REVIEW);
  });

  test('with the nested project\'s verdict recorded (by waymark run there) the same edit is allowed from the top', async () => {
    const { top, api, plan } = monorepo();
    const g = spawnSync(process.execPath, [CLI, 'gate', 'pass', 'docs/rel.workflow.md', 'review', '--by', 'Quinn'], { cwd: api, encoding: 'utf8' });
    assert.equal(g.status, 0, g.stderr);
    const r = await runCliProcess(['hook', 'claude-code'], claudeWrite(top, plan, REVIEW_DONE), { cwd: top, env: NO_AGENT_ENV });
    assert.equal(r.code, 0, r.stderr);
  });

  test('a marker folder made below the top\'s state does not take a file out of the top\'s rules', async () => {
    const top = temp();
    spawnSync('git', ['init', '-q', top]);
    put(top, '.waymark/workflows/release.yaml', GATED);
    const plan = put(top, 'docs/rel.workflow.md', AT_REVIEW);
    fs.mkdirSync(path.join(top, 'docs', '.waymark'));
    const r = await runCliProcess(['hook', 'claude-code'], claudeWrite(top, plan, REVIEW_DONE), { cwd: top, env: { ...NO_AGENT_ENV, CLAUDE_PROJECT_DIR: top } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /step review is gated/);
  });
});

describe('red34: the sprint cache and a retargeted sprint-status.yaml link', () => {
  test('a walked link retargeted from the found ledger to another one: the cached sprint is the fresh one', () => {
    setSprintCacheRacyWindow(-60_000);
    try {
      const root = temp();
      fs.cpSync(path.resolve('test/fixtures/bmad-v6/_bmad-output/implementation-artifacts/sprint-status.yaml'), path.join(root, '_bmad-output', 'a', 'sprint-status.yaml'));
      put(root, 'b/ledger-b.yaml', 'development_status:\n  epic-7: in-progress\n  7-1-extra-thing: review\n');
      const link = path.join(root, 'b', 'sprint-status.yaml');
      fs.symlinkSync('../_bmad-output/a/sprint-status.yaml', link);
      const now = new Date('2026-12-01T05:00:00Z');
      const first = loadSprint(root, { now, cache: true });
      assert.equal(first?.ledgers?.length ?? 1, 1);
      fs.unlinkSync(link);
      fs.symlinkSync('ledger-b.yaml', link);
      const cached = JSON.stringify(loadSprint(root, { now, cache: true }));
      const fresh = JSON.stringify(loadSprint(root, { now, cache: false }));
      assert.match(fresh, /7-1-extra-thing/);
      assert.equal(cached, fresh);
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });
});

describe('red34: values nested thousands deep', () => {
  function v7(): string {
    const root = temp();
    fs.cpSync(path.resolve('test/fixtures/bmad-v7'), root, { recursive: true });
    spawnSync('git', ['init', '-q', root]);
    return root;
  }
  const deep = (open: string, close: string, n = 20_000) => open.repeat(n) + close.repeat(n);

  test('a tickets.toml edit with an array or inline table 20,000 deep is refused with what to do; validate names the line', async () => {
    const root = v7();
    const toml = path.join(root, '_bmad-output', 'initiative-shop', 'epic-search', 'tickets.toml');
    const before = fs.readFileSync(toml, 'utf8');
    for (const v of [deep('[', ']'), deep('{a = ', '}').replace('{a = }', '{a = 1}')]) {
      const r = await runCliProcess(['hook', 'claude-code'], claudeWrite(root, toml, `${before}x = ${v}\n`), { cwd: root, env: NO_AGENT_ENV });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /nest more than 128 deep here; flatten the value \(line \d+/);
      assert.doesNotMatch(r.stderr, /unexpected error|call stack/);
    }
    fs.writeFileSync(toml, `${before}x = ${deep('[', ']')}\n`);
    for (const verb of ['validate', 'sprint']) {
      const r = spawnSync(process.execPath, [CLI, verb], { cwd: root, encoding: 'utf8', timeout: 120_000 });
      assert.doesNotMatch(r.stderr + r.stdout, /unexpected error|call stack|\n\s+at /, verb);
    }
    const v = spawnSync(process.execPath, [CLI, 'validate', toml], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    assert.match(v.stdout, /tickets\.toml:\d+:1 error tree-toml .*nest more than 128 deep/);
  });

  test('a ticket plan whose frontmatter holds a list 20,000 deep is judged, not a crash', async () => {
    const root = v7();
    const plan = path.join(root, '_bmad-output', 'initiative-shop', 'epic-search', 'story-suggestions-plan.md');
    const text = fs.readFileSync(plan, 'utf8').replace('status: wip\n', `status: wip\nx: ${deep('[', ']')}\n`);
    const r = await runCliProcess(['hook', 'claude-code'], claudeWrite(root, plan, text), { cwd: root, env: NO_AGENT_ENV });
    assert.doesNotMatch(r.stderr, /unexpected error|call stack/);
    assert.ok(r.code === 0 || r.code === 2, r.stderr);
  });
});

describe('red34: an MCP filesystem server\'s write_file through the agent', () => {
  test('a new state file marking a gated step done is refused as Write is; plain text still goes ahead', async () => {
    const root = temp();
    spawnSync('git', ['init', '-q', root]);
    put(root, '.waymark/workflows/release.yaml', GATED);
    const call = (tool: string, input: Record<string, unknown>) =>
      runCliProcess(['hook', 'claude-code'], JSON.stringify({ session_id: 's', cwd: root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }), { cwd: root, env: NO_AGENT_ENV });
    const made = path.join(root, 'docs', 'new.workflow.md');
    fs.mkdirSync(path.dirname(made), { recursive: true });
    const r = await call('mcp__filesystem__write_file', { path: made, content: REVIEW_DONE });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /refused this edit of docs\/new\.workflow\.md:\n- step review is gated/);
    const ok = await call('mcp__filesystem__write_file', { path: path.join(root, 'docs', 'notes.md'), content: '# Notes\n\nplain text\n' });
    assert.equal(ok.code, 0, ok.stderr);
    // An edit whose matching the server does its own way stays "not said": refused where state lives.
    put(root, 'docs/rel.workflow.md', AT_REVIEW);
    const ed = await call('mcp__filesystem__edit_file', { path: path.join(root, 'docs', 'rel.workflow.md'), edits: [{ oldText: 'stepsCompleted: [build]', newText: 'stepsCompleted: [build, review]' }] });
    assert.equal(ed.code, 2, ed.stderr);
  });
});

// One fix everywhere (issue 20, item 6): the quick fixes the editor offers on story files and
// sprint-status.yaml are the core's sprint fix, applied the same by `waymark fix FILE CODE
// [--line N]` and the MCP tool waymark_fix.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { applySprintFix, findSprintFix } from '../../src/core/bmad/sprintFix';
import { readHistory } from '../../src/core/store/history';
import { WaymarkError } from '../../src/core/errors';
import { cleanup, startServer } from './mcpHelpers';

after(cleanup);

const CLI = path.resolve('dist/cli.js');
const IMPL = '_bmad-output/implementation-artifacts';
const LEDGER = `${IMPL}/sprint-status.yaml`;
const LEDGER_TEXT = [
  'last_updated: 2026-02-10',
  'development_status:',
  '  epic-1: done',
  '  1-1-login: done',
  '  1-2-logout: in progress   # typed by hand',
  '  1-3-profile: review',
  '  1-4-avatar: review',
  '',
].join('\n');

function project(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-fix-'));
  fs.mkdirSync(path.join(root, '_bmad', 'bmm'), { recursive: true });
  fs.writeFileSync(path.join(root, '_bmad', 'bmm', 'config.yaml'), 'implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\noutput_folder: "{project-root}/_bmad-output"\n');
  fs.mkdirSync(path.join(root, IMPL), { recursive: true });
  fs.writeFileSync(path.join(root, LEDGER), LEDGER_TEXT);
  const story = (key: string, title: string, status: string | undefined) =>
    fs.writeFileSync(path.join(root, IMPL, `${key}.md`), `# Story ${key.slice(0, 3).replace('-', '.')}: ${title}\n\n${status === undefined ? '' : `Status: ${status}\n\n`}## Tasks\n\n- [x] one\n`);
  story('1-1-login', 'Login', 'done');
  story('1-2-logout', 'Logout', 'in-progress');
  story('1-3-profile', 'Profile', 'revew');
  story('1-4-avatar', 'Avatar', undefined);
  return root;
}

const run = (root: string, args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: root, env: { ...process.env, WAYMARK_ACTOR: 'tester' } });
const read = (root: string, rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

describe('waymark fix on story files and the ledger', () => {
  test('story-unknown-status: the story file (and nothing else) gets the suggested status', () => {
    const root = project();
    try {
      const r = run(root, ['fix', `${IMPL}/1-3-profile.md`, 'story-unknown-status']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(read(root, `${IMPL}/1-3-profile.md`), /^Status: review$/m);
      // The word the ledger says; the ledger already says it and is left as it was.
      assert.match(read(root, LEDGER), /^ {2}1-3-profile: review$/m);
      assert.match(r.stdout, /story-unknown-status/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('story-status-missing: a Status line is added under the title', () => {
    const root = project();
    try {
      const r = run(root, ['fix', `${IMPL}/1-4-avatar.md`, 'story-status-missing', '--json']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).fix, 'setStoryStatus');
      assert.match(read(root, `${IMPL}/1-4-avatar.md`), /^# Story 1\.4: Avatar\n\nStatus: review\n/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('ledger-legacy-status at --line: only that value changes (comment kept), one history line', () => {
    const root = project();
    try {
      const r = run(root, ['fix', LEDGER, 'ledger-legacy-status', '--line', '5']);
      assert.equal(r.status, 0, r.stderr);
      const after = read(root, LEDGER);
      assert.equal(after, LEDGER_TEXT.replace('1-2-logout: in progress   #', '1-2-logout: in-progress   #').replace(/^last_updated: .*$/m, after.split('\n')[0]));
      assert.match(after.split('\n')[0], /^last_updated: \d{4}-\d{2}-\d{2}$/);
      const hist = readHistory(root, path.join(root, LEDGER));
      assert.equal(hist.at(-1)?.operation, 'ledger-set-value');
      assert.equal(hist.at(-1)?.actor, 'tester');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('epic-done-stories-open: the epic is set to in-progress', () => {
    const root = project();
    try {
      const r = run(root, ['fix', LEDGER, 'epic-done-stories-open']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(read(root, LEDGER), /^ {2}epic-1: in-progress$/m);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('a code the file does not have, or one without a fix, is a usage error naming what there is', () => {
    const root = project();
    try {
      const none = run(root, ['fix', `${IMPL}/1-1-login.md`, 'story-unknown-status']);
      assert.equal(none.status, 2);
      assert.match(none.stderr, /has no problem story-unknown-status/);
      const bad = run(root, ['fix', LEDGER, 'ledger-legacy-status', '--line', 'x']);
      assert.equal(bad.status, 2);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('a problem that changed since it was read is a conflict (exit 3 in the CLI), nothing written', async () => {
    const root = project();
    try {
      const p = findSprintFix(root, path.join(root, LEDGER), 'ledger-legacy-status');
      fs.writeFileSync(path.join(root, LEDGER), LEDGER_TEXT.replace('1-2-logout: in progress', '1-2-logout: review'));
      const before = read(root, LEDGER);
      await assert.rejects(applySprintFix(root, p), (e: unknown) => WaymarkError.is(e, 'conflict'));
      assert.equal(read(root, LEDGER), before);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('waymark_fix (MCP) applies the same fix', () => {
  test('story-unknown-status through the MCP tool', async () => {
    const root = project();
    const s = await startServer(root);
    try {
      const r = await s.call('waymark_fix', { file: `${IMPL}/1-3-profile.md`, code: 'story-unknown-status' });
      assert.equal(r.isError, false, r.text);
      assert.equal(r.data.fix, 'setStoryStatus');
      assert.equal(r.data.changed, true);
      assert.match(read(root, `${IMPL}/1-3-profile.md`), /^Status: review$/m);
      assert.equal(loadSprint(root)!.problems.filter((p) => p.code === 'story-unknown-status').length, 0);
      const again = await s.call('waymark_fix', { file: `${IMPL}/1-3-profile.md`, code: 'story-unknown-status' });
      assert.equal(again.isError, true);
    } finally {
      await s.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

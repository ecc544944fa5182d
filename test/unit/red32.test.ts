/**
 * Session 32's outside check (red32): what session 31 left, and more from outside.
 * - A ledger place holding a device or a pipe (`sprint-status.yaml -> /dev/zero`, a FIFO) was passed
 *   over in silence (and `story set-status` wrote the story file alone): a clear problem, a refused write.
 * - A status on its own line below its key, a comment (at the margin, after blank lines) between:
 *   YAML reads it as the entry's value; the reader read none, the edit refused (the `yaml` package's
 *   error with a blank line before the comment). Both now read the value; the edit keeps every comment.
 * - A key line indented under an entry that has its value was not reported as invalid YAML.
 * - `.waymark/journal/` (the crash-recovery record) and `.gitattributes`' merge driver block were not
 *   judged: an agent could delete the one or drop the other.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseLedger } from '../../src/core/bmad/ledger';
import { HOOK_ADAPTERS } from '../../src/hooks/adapters';
import { answer, claude, cleanup, featureWorkspace, tempWorkspace, treeDigest, write } from './hooksHelpers';

const CLI = path.resolve('dist/cli.js');
const FIXTURE = path.resolve('test/fixtures/bmad-v6');
const LEDGER = '_bmad-output/implementation-artifacts/sprint-status.yaml';
const tmps: string[] = [];
after(() => {
  for (const d of tmps) cleanup(d);
});

function project(): string {
  const d = tempWorkspace('wm-red32-');
  tmps.push(d);
  fs.cpSync(FIXTURE, d, { recursive: true });
  return d;
}

function cli(cwd: string, args: string[]): { code: number | null; stdout: string; stderr: string; signal: NodeJS.Signals | null } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, WAYMARK_COMPILE_CACHE: '0' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, signal: r.signal };
}

describe('red32: a ledger that is a device or a pipe', () => {
  const cases: [string, (p: string) => void][] = [
    ['a link to /dev/zero', (p) => fs.symlinkSync('/dev/zero', p)],
    ['a link to /dev/urandom', (p) => fs.symlinkSync('/dev/urandom', p)],
    ['a FIFO', (p) => spawnSync('mkfifo', [p])],
  ];
  for (const [name, make] of cases) {
    test(`${name}: validate names it and says what to do (twice: the cached answer too); set-status writes nothing`, () => {
      const root = project();
      const ledger = path.join(root, LEDGER);
      fs.rmSync(ledger);
      make(ledger);
      for (let run = 0; run < 2; run++) {
        const r = cli(root, ['validate', '--json']);
        assert.equal(r.signal, null, 'no hang');
        assert.equal(r.code, 1, r.stderr);
        const p = JSON.parse(r.stdout).problems.find((x: { code: string }) => x.code === 'ledger-not-a-file');
        assert.ok(p, r.stdout);
        assert.equal(p.file, LEDGER);
        assert.equal(p.severity, 'error');
        assert.match(p.message, /device, a pipe or a socket/);
        assert.match(p.message, /git checkout -- _bmad-output\/implementation-artifacts\/sprint-status\.yaml/);
      }
      const story = path.join(root, '_bmad-output/implementation-artifacts/2-1-dashboard.md');
      const before = fs.readFileSync(story, 'utf8');
      const w = cli(root, ['story', 'set-status', '2-1-dashboard', 'review']);
      assert.equal(w.signal, null);
      assert.equal(w.code, 2, w.stdout);
      assert.match(w.stderr, /sprint-status\.yaml is not a file/);
      assert.doesNotMatch(w.stderr, /\n\s+at /);
      assert.equal(fs.readFileSync(story, 'utf8'), before, 'the story file alone is not written');
      // Mended: the problem is gone (the cache does not keep it).
      fs.rmSync(ledger);
      fs.copyFileSync(path.join(FIXTURE, LEDGER), ledger);
      const ok = cli(root, ['validate', '--json']);
      assert.ok(!JSON.parse(ok.stdout).problems.some((x: { code: string }) => x.code === 'ledger-not-a-file'));
    });
  }
});

describe('red32: a status on its own line below its key', () => {
  const layouts: [string, string][] = [
    ['a comment at the margin', '  2-2-reports:\n# note\n    ready-for-dev\n'],
    ['a blank line, then a comment at the margin', '  2-2-reports:\n\n# note\n    ready-for-dev  # why\n'],
    ['an indented comment', '  2-2-reports:\n    # note\n    ready-for-dev\n'],
    ['no comment', '  2-2-reports:\n    ready-for-dev\n'],
  ];
  for (const [name, entry] of layouts) {
    test(`${name}: read as its value, and the edit changes only the value's bytes`, () => {
      const root = project();
      const ledger = path.join(root, LEDGER);
      const text = fs.readFileSync(ledger, 'utf8').replace('  2-2-reports: ready-for-dev\n', entry);
      fs.writeFileSync(ledger, text);
      const l = parseLedger(ledger, text);
      const e = l.byKey.get('2-2-reports');
      assert.equal(e?.raw, 'ready-for-dev');
      assert.equal(e?.shape, 'scalar');
      assert.deepEqual(l.problems.filter((p) => p.severity !== 'info').map((p) => p.code), []);
      const v = JSON.parse(cli(root, ['validate', '--json']).stdout).problems.filter((p: { file: string; code: string }) => p.file === LEDGER);
      assert.ok(!v.some((p: { code: string }) => p.code === 'ledger-unknown-key' || p.code === 'ledger-yaml'), JSON.stringify(v));
      const w = cli(root, ['story', 'set-status', '2-2-reports', 'in-progress']);
      assert.equal(w.code, 0, w.stderr);
      const after = fs.readFileSync(ledger, 'utf8');
      const expect = text.replace(entry, entry.replace('ready-for-dev', 'in-progress')).replace(/^last_updated: .*$/m, /^last_updated: .*$/m.exec(after)![0]);
      assert.equal(after, expect);
      assert.equal(parseLedger(ledger, after).byKey.get('2-2-reports')?.raw, 'in-progress');
    });
  }
  test('a value over two lines is not taken for a status word', () => {
    const text = 'development_status:\n  1-1-a:\n    ready\n    for dev\n  1-2-b: done\n';
    assert.notEqual(parseLedger('s.yaml', text).byKey.get('1-1-a')?.raw, 'ready');
  });
});

describe('red32: a line indented under an entry that has its value', () => {
  for (const extra of ['    reviewed_by: ana', '      status: done', '    notes: "x"']) {
    test(`${JSON.stringify(extra)}: invalid YAML, the line named`, () => {
      const text = `development_status:\n  epic-1: in-progress\n  1-1-a: done\n${extra}\n  1-2-b: backlog\n`;
      const p = parseLedger('sprint-status.yaml', text).problems.find((x) => x.code === 'ledger-yaml');
      assert.ok(p, 'reported');
      assert.equal(p.severity, 'error');
      assert.match(p.message, /line 4\b/);
      assert.equal(p.range.start.line, 3);
    });
  }
});

describe("red32: the files Waymark owns: its journal and the merge driver's block", () => {
  const BLOCK = '# >>> waymark merge driver (waymark git uninstall removes this block) [file: kept]\n**/*.md merge=waymark\nsprint-status.yaml merge=waymark\n# <<< waymark merge driver\n';
  function workspace(): string {
    const root = featureWorkspace();
    tmps.push(root);
    write(root, '.gitattributes', `*.png binary\n${BLOCK}`);
    write(root, '.waymark/journal/tx-1.json', '{"op":"story-set-status"}\n');
    return root;
  }
  const refusals: [string, Record<string, unknown>, RegExp][] = [
    ['Write into the journal', { tool_name: 'Write', tool_input: { file_path: '.waymark/journal/tx-1.json', content: '{}' } }, /journal is Waymark's record of a change under way/],
    ['rm -rf the journal', { tool_name: 'Bash', tool_input: { command: 'rm -rf .waymark/journal' } }, /Waymark's journal of a change under way[\s\S]*run waymark status/],
    ['rm the journal entry', { tool_name: 'Bash', tool_input: { command: 'rm .waymark/journal/tx-1.json' } }, /journal/],
    ['Write .gitattributes without the block', { tool_name: 'Write', tool_input: { file_path: '.gitattributes', content: '*.png binary\n' } }, /merge driver block, and this changes it[\s\S]*waymark git uninstall/],
    ['Edit the block', { tool_name: 'Edit', tool_input: { file_path: '.gitattributes', old_string: '**/*.md merge=waymark\n', new_string: '' } }, /merge driver block/],
    ['rm .gitattributes', { tool_name: 'Bash', tool_input: { command: 'rm .gitattributes' } }, /merge driver block[\s\S]*waymark git uninstall/],
    ["sed -i '/waymark/d' .gitattributes", { tool_name: 'Bash', tool_input: { command: "sed -i '/waymark/d' .gitattributes" } }, /merge driver block/],
    ['git rm .gitattributes', { tool_name: 'Bash', tool_input: { command: 'git rm -q .gitattributes' } }, /merge driver block/],
  ];
  for (const [name, extra, why] of refusals) {
    test(`${name}: refused, naming what to do; nothing written`, async () => {
      const root = workspace();
      const before = treeDigest(root);
      const r = await claude(root, 'PreToolUse', extra);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, why);
      assert.deepEqual(treeDigest(root), before);
    });
  }
  test('.gitattributes: another line may change (Edit), and a file without the block is not judged', async () => {
    const root = workspace();
    const add = await claude(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: '.gitattributes', old_string: '*.png binary\n', new_string: '*.png binary\n*.jpg binary\n' } });
    assert.equal(add.code, 0, add.stderr);
    write(root, '.gitattributes', '*.png binary\n');
    const rm = await claude(root, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm .gitattributes' } });
    assert.equal(rm.code, 0, rm.stderr);
  });
  test('the other agents judge them the same (Gemini CLI, Cursor, Codex)', async () => {
    const root = workspace();
    const gemini = await answer(HOOK_ADAPTERS.get('gemini')!, { session_id: 's', hook_event_name: 'BeforeTool', cwd: root, tool_name: 'write_file', tool_input: { file_path: path.join(root, '.gitattributes'), content: '' } });
    assert.match(JSON.stringify(gemini), /merge driver block/);
    const cursor = await answer(HOOK_ADAPTERS.get('cursor')!, { hook_event_name: 'beforeShellExecution', conversation_id: 'c', generation_id: 'g', workspace_roots: [root], cwd: root, command: 'rm -rf .waymark/journal' });
    assert.match(JSON.stringify(cursor), /journal/);
    const codex = await answer(HOOK_ADAPTERS.get('codex')!, { session_id: 's', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Bash', tool_input: { command: 'truncate -s0 .gitattributes' } });
    assert.match(JSON.stringify(codex), /merge driver block/);
  });
});

describe('red32: a switch given a value is an error, never taken as absent', () => {
  test('hook --fail-closed=yes refuses (it does not fail open); --force=false and --json=1 are usage errors', () => {
    const root = project();
    const hook = spawnSync(process.execPath, [CLI, 'hook', 'claude-code', '--fail-closed=yes'], { cwd: root, input: '{}', encoding: 'utf8', timeout: 60_000 });
    assert.equal(hook.status, 2, hook.stderr);
    assert.match(hook.stderr, /--fail-closed is a switch and takes no value/);
    for (const args of [['story', 'set-status', '1-1-user-login', 'backlog', '--force=false'], ['validate', '--json=1']]) {
      const r = cli(root, args);
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, /is a switch and takes no value/);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
    assert.match(fs.readFileSync(path.join(root, LEDGER), 'utf8'), /1-1-user-login: done/);
  });
});

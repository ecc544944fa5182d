// Agent hooks on BMAD v7's ticket tree (issue 21 item 3): a plan's status and tickets.toml written
// directly are judged by the rules `waymark story set-status` follows, and every refusal names it.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { claude, runCliProcess, treeDigest } from './hooksHelpers';
import { DONE_PLAN, LOGIN, LOGIN_PLAN, loginPlan, read, v7Project } from './v7WriteHelpers';

const TOML = `${LOGIN}/tickets.toml`;

function edit(root: string, rel: string, from: string, to: string) {
  return claude(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, rel), old_string: from, new_string: to } });
}

function bash(root: string, command: string) {
  return claude(root, 'PreToolUse', { tool_name: 'Bash', tool_input: { command } });
}

describe('hooks on a v7 plan', () => {
  test('a plan moved back, or to done before a finished build, is refused naming waymark story set-status; nothing written', async () => {
    const root = v7Project();
    const before = treeDigest(root);
    const back = await edit(root, LOGIN_PLAN, 'status: in-review', 'status: draft');
    assert.equal(back.code, 2, back.stderr);
    assert.match(back.stderr, /Waymark refused this edit of _bmad-output\/initiative-shop\/epic-login\/story-login-form-plan\.md/);
    assert.match(back.stderr, /ticket 1\.1 in-review → draft moves started work back/);
    assert.match(back.stderr, /waymark story set-status 1\.1 draft --force/);
    const reopen = await edit(root, DONE_PLAN, 'status: done', 'status: in-progress');
    assert.equal(reopen.code, 2);
    assert.match(reopen.stderr, /done → in-progress rewinds completed work/);
    const early = await claude(root, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: path.join(root, LOGIN, 'bug-password-reset-mail-plan.md'), content: '---\ntitle: "Password reset mail"\nticket: 3\nstatus: done\n---\n' } });
    assert.equal(early.code, 2);
    assert.match(early.stderr, /without a finished build/);
    assert.match(early.stderr, /waymark story set-status 1\.3 in-review/);
    const unknown = await edit(root, LOGIN_PLAN, 'status: in-review', 'status: finished');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /'finished' is not a BMAD plan status/);
    assert.deepEqual(treeDigest(root), before);
  });

  test('a forward move is allowed, and the check after it logs the agent edit', async () => {
    const root = v7Project();
    const ok = await edit(root, LOGIN_PLAN, 'status: in-review', 'status: done');
    assert.equal(ok.code, 0, ok.stderr);
    fs.writeFileSync(path.join(root, LOGIN_PLAN), loginPlan('done'));
    const after = await claude(root, 'PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, LOGIN_PLAN), old_string: 'status: in-review', new_string: 'status: done' } });
    assert.equal(after.code, 0, after.stderr);
    const events = read(root, '.waymark/events/events.jsonl').trim().split('\n').map((l) => JSON.parse(l) as { type: string; file: string });
    assert.ok(events.some((e) => e.type === 'ticket-plan.agent-edit' && e.file === LOGIN_PLAN), JSON.stringify(events));
  });

  test('tickets.py mark in a shell command is refused with the same change as waymark story set-status', async () => {
    const root = v7Project();
    const r = await bash(root, 'python3 _bmad/method/scripts/tickets.py mark 1.1 done --blocked "no key yet"');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /fix: waymark story set-status 1\.1 done --blocked "no key yet"/);
    const bare = await bash(root, 'uv run _bmad/method/scripts/tickets.py mark _bmad-output/initiative-shop "login form" built');
    assert.equal(bare.code, 2, bare.stderr);
    assert.match(bare.stderr, /fix: waymark story set-status "login form" built/);
    const sed = await bash(root, `sed -i 's/status: in-review/status: done/' ${LOGIN_PLAN}`);
    assert.equal(sed.code, 2);
    assert.match(sed.stderr, /a ticket's status/);
    assert.match(sed.stderr, /waymark story set-status REF STATUS/);
  });
});

describe('hooks on tickets.toml', () => {
  test('a status written into an entry is refused: BMAD reads it from the plan; the fix is the set-status command', async () => {
    const root = v7Project();
    const r = await edit(root, TOML, 'title = "Password reset mail"\n', 'title = "Password reset mail"\nstatus = "done"\n');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /BMAD never reads a status from tickets\.toml/);
    assert.match(r.stderr, /waymark story set-status 1\.3 done/);
  });

  test('removing an entry with a plan is refused (drop it instead); removing next_id steps or reusing an id is refused', async () => {
    const root = v7Project();
    const text = read(root, TOML);
    const gone = await claude(root, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: path.join(root, TOML), content: text.replace('[[entry]]\nid = 1\ntype = "story"\ntitle = "Login form"\nafter = []\n\n', '').replace('after = [1]', 'after = []') } });
    assert.equal(gone.code, 2, gone.stderr);
    assert.match(gone.stderr, /removes entry 1 \(Login form\) of epic-login, whose plan says in-review/);
    assert.match(gone.stderr, /waymark story set-status 1\.1 dropped/);
    const dup = await edit(root, TOML, 'id = 4', 'id = 3');
    assert.equal(dup.code, 2);
    assert.match(dup.stderr, /two entry tables with id 3/);
    const down = await edit(root, TOML, 'next_id = 5', 'next_id = 3');
    assert.equal(down.code, 2);
    assert.match(down.stderr, /next_id goes down from 5 to 3/);
    const broken = await edit(root, TOML, 'title = "SSO options"', 'title = "SSO options');
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /unreadable to tickets\.py/);
  });

  test('planning a new ticket is allowed', async () => {
    const root = v7Project();
    const r = await edit(root, TOML, 'next_id = 5', 'next_id = 6');
    assert.equal(r.code, 0, r.stderr);
    const add = await edit(root, TOML, 'title = "SSO options"\n', 'title = "SSO options"\n\n[[entry]]\nid = 5\ntype = "story"\ntitle = "Remember me"\nafter = [1]\n');
    assert.equal(add.code, 0, add.stderr);
  });
});

describe('the git pre-commit hook on a v7 tree', () => {
  test('a staged plan moving done work back is refused with the set-status command; a forward move commits', async () => {
    const root = v7Project({ git: true });
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };
    const gitIn = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8', env });
    gitIn('add', '-A');
    assert.equal(gitIn('commit', '-q', '-m', 'start').status, 0);
    const inst = await runCliProcess(['hook', 'install', 'git', '--command', `node ${JSON.stringify(path.resolve('dist/cli.js'))}`], '', { cwd: root });
    assert.equal(inst.code, 0, inst.stderr);
    fs.writeFileSync(path.join(root, DONE_PLAN), read(root, DONE_PLAN).replace('status: done', 'status: in-progress'));
    gitIn('add', '-A');
    const r = gitIn('commit', '-q', '-m', 'reopen');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /waymark story set-status 2\.2 in-progress --force/);
    gitIn('checkout', '-q', 'HEAD', '--', DONE_PLAN);
    fs.writeFileSync(path.join(root, LOGIN_PLAN), loginPlan('built'));
    gitIn('add', '-A');
    const ok = gitIn('commit', '-q', '-m', 'built');
    assert.equal(ok.status, 0, ok.stderr);
  });
});

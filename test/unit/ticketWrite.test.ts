// `waymark story set-status` on a BMAD v7 ticket tree (issue 21 item 3): the plan written as
// tickets.py mark writes it, through the transaction engine (history, events), the status rules,
// refused on a tracker store; compared with BMAD's own tickets.py when a scratch copy is there.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createStateCore } from '../../src/core/index';
import { readHistory } from '../../src/core/store/history';
import { DONE_PLAN, INIT, LOGIN, LOGIN_PLAN, TICKETS_PY, loginPlan, read, v7Project } from './v7WriteHelpers';

const CLI = path.resolve('dist/cli.js');

function cli(dir: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args, '--root', dir], { encoding: 'utf8', cwd: dir, env: { ...process.env, WAYMARK_ACTOR: 'test' } });
}

const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

function events(dir: string): { type: string; file: string; data?: { detail?: Record<string, unknown> } }[] {
  const f = path.join(dir, '.waymark/events/events.jsonl');
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; file: string }) : [];
}

describe('story set-status on a v7 ticket tree', () => {
  test('a ticket with no plan gets a frontmatter-only plan, named and written as tickets.py mark writes it, with history and an event', () => {
    const dir = v7Project();
    const r = cli(dir, 'story', 'set-status', '1.4', 'in-progress', '--json');
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(out.kind, 'ticket');
    assert.equal(out.ref, '1.4');
    assert.equal(out.state, 'in-progress');
    assert.equal(out.created, true);
    const planRel = `${LOGIN}/spike-sso-options-plan.md`;
    assert.equal(out.plan, planRel);
    assert.equal(read(dir, planRel), '---\ntitle: "SSO options"\nticket: 4\nstatus: in-progress\n---\n');
    const h = readHistory(dir, path.join(dir, planRel));
    assert.equal(h.length, 1);
    assert.equal(h[0].operation, 'ticket-set-status');
    assert.deepEqual(h[0].to, { status: 'in-progress' });
    assert.equal(h[0].actor, 'test');
    assert.ok(events(dir).some((e) => e.type === 'workflow.ticket-set-status' && e.file === planRel));
  });

  test('an existing plan: only status changes, every other byte kept (a byte-order mark too)', () => {
    const dir = v7Project();
    const r = cli(dir, 'story', 'set-status', '1.1', 'done');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(read(dir, LOGIN_PLAN), loginPlan('done'));
    const bom = '\ufeff' + loginPlan('in-review');
    fs.writeFileSync(path.join(dir, LOGIN_PLAN), bom);
    const r2 = cli(dir, 'story', 'set-status', 'login form', 'built');
    assert.equal(r2.status, 0, r2.stderr);
    assert.equal(read(dir, LOGIN_PLAN), bom.replace('status: in-review', 'status: built'));
  });

  test('a CRLF plan keeps its line endings', () => {
    const dir = v7Project();
    const crlf = loginPlan('in-review').replace(/\n/g, '\r\n');
    fs.writeFileSync(path.join(dir, LOGIN_PLAN), crlf);
    const r = cli(dir, 'story', 'set-status', '1.1', 'built');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(read(dir, LOGIN_PLAN), crlf.replace('status: in-review', 'status: built'));
  });

  test('--blocked sets blocked_at (today) and blocked_reason; the next set-status without it clears both', () => {
    const dir = v7Project();
    const r = cli(dir, 'story', 'set-status', '1.1', 'blocked', '--blocked', 'waiting for the   # API key');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(read(dir, LOGIN_PLAN), loginPlan('blocked').replace('baseline_revision: abc123\n', `baseline_revision: abc123\nblocked_at: "${today()}"\nblocked_reason: "waiting for the # API key"\n`));
    const j = JSON.parse(cli(dir, 'story', 'set-status', '1.1', 'in-progress', '--json').stdout) as Record<string, unknown>;
    assert.equal(j.blockedReason, null);
    assert.equal(read(dir, LOGIN_PLAN), loginPlan('in-progress'));
    const noReason = cli(dir, 'story', 'set-status', '1.1', 'blocked');
    assert.equal(noReason.status, 2);
    assert.match(noReason.stderr, /waymark story set-status 1\.1 blocked --blocked "REASON"/);
  });

  test('the status rules: done is not moved back without --force, done needs a finished build; both name the command', () => {
    const dir = v7Project();
    const back = cli(dir, 'story', 'set-status', '2.2', 'in-progress');
    assert.equal(back.status, 4, back.stderr);
    assert.match(back.stderr, /waymark story set-status 2\.2 in-progress --force/);
    assert.match(read(dir, DONE_PLAN), /^status: done$/m, 'nothing written');
    const forced = cli(dir, 'story', 'set-status', '2.2', 'in-progress', '--force');
    assert.equal(forced.status, 0, forced.stderr);
    assert.equal(readHistory(dir, path.join(dir, DONE_PLAN))[0].detail?.forced, true);
    const early = cli(dir, 'story', 'set-status', '1.3', 'done');
    assert.equal(early.status, 4);
    assert.match(early.stderr, /without a finished build/);
    assert.match(early.stderr, /waymark story set-status 1\.3 in-review/);
    assert.ok(!fs.existsSync(path.join(dir, LOGIN, 'bug-password-reset-mail-plan.md')), 'no plan created');
  });

  test('refs: title words, a file name; ambiguous words are refused with the candidates; v6 words are named', () => {
    const dir = v7Project();
    const r = cli(dir, 'story', 'set-status', 'session', 'ready-for-dev', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { ref: string }).ref, '1.2');
    assert.equal(read(dir, `${LOGIN}/story-session-cookie-plan.md`), '---\ntitle: "Session cookie"\nticket: 2\nstatus: ready-for-dev\n---\n');
    const amb = cli(dir, 'story', 'set-status', 'o', 'draft');
    assert.equal(amb.status, 2);
    assert.match(amb.stderr, /more than one ticket/);
    const v6 = cli(dir, 'story', 'set-status', '1.1', 'review');
    assert.equal(v6.status, 2);
    assert.match(v6.stderr, /Did you mean in-review\?/);
  });

  test('a tracker store refuses, naming where the status comes from; nothing written', () => {
    const dir = v7Project({ store: 'github' });
    const r = cli(dir, 'story', 'set-status', '1.4', 'in-progress');
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, /store is github: a ticket's status comes from the tracker/);
    assert.ok(!fs.existsSync(path.join(dir, LOGIN, 'spike-sso-options-plan.md')));
  });

  test('killed (SIGKILL) after the plan landed, before its history line: the next writer records it, once', () => {
    const dir = v7Project();
    const killed = spawnSync(process.execPath, [CLI, 'story', 'set-status', '1.4', 'in-progress', '--root', dir], { encoding: 'utf8', cwd: dir, env: { ...process.env, WAYMARK_ACTOR: 'test', WAYMARK_TX_DIE_AFTER_RENAME: '1' } });
    assert.equal(killed.signal, 'SIGKILL');
    const plan = path.join(dir, LOGIN, 'spike-sso-options-plan.md');
    assert.ok(fs.existsSync(plan), 'the plan landed');
    assert.equal(readHistory(dir, plan).length, 0);
    const again = cli(dir, 'story', 'set-status', '1.4', 'in-progress', '--json');
    assert.equal(again.status, 0, again.stderr);
    assert.equal((JSON.parse(again.stdout) as { changed: boolean }).changed, false);
    const h = readHistory(dir, plan);
    assert.equal(h.length, 1);
    assert.equal(h[0].detail?.recovered, true);
  });

  test('through the core: the same write, an unchanged status writes nothing', async () => {
    const dir = v7Project();
    const core = createStateCore({ roots: [dir], memory: false, actor: 'test' });
    try {
      const r = await core.sprint.setTicketStatus(dir, '1.1', 'in-review');
      assert.equal(r.changed, false);
      assert.equal(r.written.length, 0);
      const r2 = await core.sprint.setTicketStatus(dir, '1.1', 'built', { assignee: 'ana' });
      assert.equal(r2.changed, true);
      assert.equal(r2.after.status, 'built');
      assert.equal(r2.after.assignee, 'ana');
    } finally {
      await core.close();
    }
  });

  test('the plan is what BMAD\'s own tickets.py mark writes, byte for byte (when a scratch copy is there)', (t) => {
    if (!fs.existsSync(TICKETS_PY)) {
      t.skip(`no tickets.py at ${TICKETS_PY} (set WAYMARK_TICKETS_PY to compare)`);
      return;
    }
    const ours = v7Project();
    const theirs = v7Project();
    const cases: [string, string, string[]][] = [['1.4', 'in-progress', []], ['1.2', 'ready-for-dev', []], ['1.1', 'blocked', ['--blocked', 'no API key']], ['1.1', 'in-progress', []]];
    for (const [ref, status, extra] of cases) {
      const w = cli(ours, 'story', 'set-status', ref, status, ...extra, '--force');
      assert.equal(w.status, 0, w.stderr);
      const p = spawnSync('python3', [TICKETS_PY, 'mark', path.join(theirs, INIT), ref, status, ...extra], { encoding: 'utf8', cwd: theirs });
      assert.equal(p.status, 0, p.stderr);
    }
    for (const rel of [`${LOGIN}/spike-sso-options-plan.md`, `${LOGIN}/story-session-cookie-plan.md`, LOGIN_PLAN]) assert.equal(read(ours, rel), read(theirs, rel), rel);
  });
});

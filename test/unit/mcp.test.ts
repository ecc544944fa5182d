import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { cleanup, cliPath, childEnv, reasonOf, runCli, startServer, workspace, workflowText, type Server } from './mcpHelpers';
import { TOOLS } from '../../src/mcp/tools';
import { languageModelToolsContribution } from '../../src/mcp/contribution';

after(cleanup);

const FEAT = 'docs/feat.workflow.md';
const REL = 'docs/rel.workflow.md';

async function withServer(root: string, fn: (s: Server) => Promise<void>, opts?: Parameters<typeof startServer>[1]): Promise<void> {
  const s = await startServer(root, opts);
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

describe('waymark mcp: listing', () => {
  test('package.json contributes the same tools to VS Code (names, descriptions, input schemas): node scripts/lmTools.mjs regenerates it', () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
    assert.deepEqual(pkg.contributes.languageModelTools, languageModelToolsContribution());
    for (const t of pkg.contributes.languageModelTools) {
      assert.match(t.toolReferenceName, /^waymark[A-Z]\w+$/);
      assert.equal(t.when === undefined, TOOLS.find((x) => x.name === t.name)!.annotations.readOnlyHint, `${t.name}: write tools only in trusted workspaces`);
    }
  });

  test('lists every tool of the table with draft-07 input and output schemas, annotations, and when-not-to-use descriptions', async () => {
    const root = workspace();
    await withServer(root, async (s) => {
      const { tools } = await s.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), TOOLS.map((t) => t.name));
      // 14: waymark_story_set_status (a BMAD story or v7 ticket) joined the table.
      assert.ok(tools.length >= 8 && tools.length <= 14, `about eight tools, got ${tools.length}`);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object', t.name);
        assert.equal((t.inputSchema as Record<string, unknown>).$schema, 'http://json-schema.org/draft-07/schema#', t.name);
        assert.equal((t.inputSchema as Record<string, unknown>).additionalProperties, false, `${t.name}: unknown arguments are errors`);
        assert.ok(t.outputSchema, `${t.name} has an outputSchema`);
        assert.equal((t.outputSchema as Record<string, unknown>).$schema, 'http://json-schema.org/draft-07/schema#', t.name);
        assert.ok(!JSON.stringify(t).includes('$ref'), `${t.name}: no $ref (some clients do not resolve them)`);
        assert.equal(typeof t.annotations?.readOnlyHint, 'boolean', t.name);
        assert.equal(typeof t.annotations?.destructiveHint, 'boolean', t.name);
        assert.match(t.description ?? '', /Use it/, `${t.name} says when to use it`);
        assert.match(t.description ?? '', /Do not use it/, `${t.name} says when not to`);
        assert.ok(t.title, t.name);
      }
      const ro = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
      assert.equal(ro.waymark_summary, true);
      assert.equal(ro.waymark_status, true);
      assert.equal(ro.waymark_advance, false);
      assert.equal(tools.find((t) => t.name === 'waymark_set_status')?.annotations?.destructiveHint, true);
    });
  });

  test('stdout carries nothing but JSON-RPC; logs go to stderr', async () => {
    const root = workspace();
    const p = spawn(process.execPath, [cliPath(), 'mcp', '--root', root, '--verbose'], { env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    const send = (m: unknown) => p.stdin.write(JSON.stringify(m) + '\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'waymark_summary', arguments: {} } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'waymark_advance', arguments: { file: FEAT } } });
    // Memory loads the native Kuzu module: it must not print either.
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'waymark_memory_record', arguments: { type: 'decision', text: 'stdout stays clean' } } });
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'waymark_memory_recall', arguments: { text: 'stdout' } } });
    const deadline = Date.now() + 20_000;
    while (out.split('\n').filter(Boolean).length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    p.stdin.end();
    const code = await new Promise<number | null>((r) => p.on('close', r));
    assert.equal(code, 0, `the server exits 0 when the client disconnects: ${err}`);
    const lines = out.split('\n').filter(Boolean);
    assert.equal(lines.length, 5, out);
    for (const l of lines) assert.equal(JSON.parse(l).jsonrpc, '2.0');
    const recalled = JSON.parse(lines.find((l) => JSON.parse(l).id === 5)!).result.structuredContent;
    assert.equal(recalled.engine, 'kuzu', 'the memory database was opened in this process');
    assert.ok(recalled.items.some((i: any) => i.text === 'stdout stays clean'));
    assert.match(err, /\[waymark mcp\]/, 'logs went to stderr');
  });
});

describe('waymark mcp: tools', () => {
  test('summary: counts, what next, paging with limit and nextCursor', async () => {
    const extra: Record<string, string> = {};
    for (let i = 0; i < 7; i++) extra[`many/w${i}.workflow.md`] = workflowText({ status: i % 2 ? 'blocked' : 'created', extra: i % 2 ? ['blockedReason: waiting for API keys'] : [] });
    const root = workspace(extra);
    await withServer(root, async (s) => {
      const r = await s.call('waymark_summary', { limit: 4 });
      assert.equal(r.isError, false, r.text);
      assert.equal(r.data.counts.workflows, 9);
      assert.equal(r.data.total, 9);
      assert.equal(r.data.workflows.length, 4);
      assert.equal(r.data.nextCursor, '4');
      assert.equal(r.data.workflows[0].status, 'in_progress', 'in-progress work first');
      assert.ok(r.data.next.length > 0 && r.data.next.length <= 5);
      assert.ok(r.data.next.some((n: any) => n.action === 'pass-gate' && n.file === REL), JSON.stringify(r.data.next));
      const seen = new Set(r.data.workflows.map((w: any) => w.file));
      let cursor = r.data.nextCursor;
      while (cursor) {
        const p = await s.call('waymark_summary', { limit: 4, cursor });
        for (const w of p.data.workflows) seen.add(w.file);
        cursor = p.data.nextCursor;
      }
      assert.equal(seen.size, 9, 'paging visits every workflow once');
      const blocked = await s.call('waymark_summary', { status: 'blocked' });
      assert.equal(blocked.data.total, 3);
      assert.ok(blocked.data.workflows.every((w: any) => w.blockedReason === 'waiting for API keys'));
      const under = await s.call('waymark_summary', { path: 'many' });
      assert.equal(under.data.counts.workflows, 7);
    });
  });

  test('next and board: the ready frontier in order, blocked work and what it waits on, stalled work; they follow edits', async () => {
    const wf = (id: string, status: string, extra = '') => `---\nworkflow: ${id}\nstatus: ${status}\nstepsCompleted: []\n${extra}---\n# ${id}\n`;
    const root = workspace({ 'plan/a.md': wf('plan-a', 'created'), 'plan/b.md': wf('plan-b', 'created', 'dependsOn: [plan-a]\n'), 'plan/c.md': wf('plan-c', 'created', 'after: plan-b\n'), 'plan/x.md': wf('plan-x', 'created'), 'plan/quiet.md': wf('plan-quiet', 'in_progress', 'dependsOn: [ghost]\n') });
    const old = new Date(Date.now() - 20 * 86_400_000);
    fs.utimesSync(path.join(root, 'plan/quiet.md'), old, old);
    await withServer(root, async (s) => {
      const n = await s.call('waymark_next', {});
      assert.equal(n.isError, false, n.text);
      assert.equal(n.data.next.id, 'plan-a', 'what unblocks the most comes first');
      assert.equal(n.data.next.file, 'plan/a.md');
      assert.equal(n.data.next.unblocks, 2);
      assert.ok(n.data.ready.every((e: any) => e.column === 'ready'));
      assert.ok(!n.data.ready.some((e: any) => e.id === 'plan-b' || e.id === 'plan-c'), 'waiting work is not ready');
      assert.deepEqual(n.data.criticalPath.slice(0, 3), ['plan-a', 'plan-b', 'plan-c']);
      assert.deepEqual(n.data.stalled.map((e: any) => e.id), ['plan-quiet']);
      assert.ok(n.data.stalled[0].stalled.idleMinutes >= 20 * 1440 - 5);
      assert.ok(n.data.problems.some((p: any) => p.code === 'depends-unknown' && p.file === 'plan/quiet.md' && p.line === 5), JSON.stringify(n.data.problems));
      const b = await s.call('waymark_board', { column: 'blocked' });
      assert.equal(b.isError, false, b.text);
      assert.deepEqual(b.data.items.map((e: any) => e.id).sort(), ['plan-b', 'plan-c']);
      assert.deepEqual(b.data.items.find((e: any) => e.id === 'plan-b').waitingOn, ['plan-a']);
      assert.ok(b.data.items.every((e: any) => e.column === 'blocked'));
      assert.equal(b.data.counts.blocked, 2);
      const paged = await s.call('waymark_board', { limit: 2 });
      assert.equal(paged.data.items.length, 2);
      assert.equal(paged.data.nextCursor, '2');
      const v = await s.call('waymark_validate', { path: 'plan' });
      assert.ok(v.data.problems.some((p: any) => p.code === 'work-stalled' && p.file === 'plan/quiet.md' && p.line === 3), JSON.stringify(v.data.problems));
      // A person finishes plan-a by hand: the frontier moves on.
      fs.writeFileSync(path.join(root, 'plan/a.md'), wf('plan-a', 'completed'));
      let after: any;
      for (let i = 0; i < 40; i++) {
        after = await s.call('waymark_next', {});
        if (after.data.next?.id === 'plan-b') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(after.data.next.id, 'plan-b', JSON.stringify(after.data.ready));
      const bad = await s.call('waymark_board', { column: 'someday' });
      assert.equal(bad.isError, true);
      assert.equal(reasonOf(bad), 'usage');
    });
  });

  test('summary of a BMAD project: the sprint ledger, active stories with task progress, and what BMAD runs next', async () => {
    const dir = '_bmad-output/implementation-artifacts';
    const storyText = (title: string, status: string, boxes: string[]) => [`# Story ${title}`, '', `Status: ${status}`, '', '## Story', '', 'As a user I want this.', '', '## Tasks / Subtasks', '', ...boxes.map((b, i) => `- [${b}] Task ${i + 1}`), ''].join('\n');
    const root = workspace({
      '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.0.0\n',
      [`${dir}/sprint-status.yaml`]: `# generated: 2026-11-20\nproject: shop\nstory_location: ${dir}\n\ndevelopment_status:\n  epic-1: in-progress\n  1-1-sign-up: done\n  1-2-user-login: in-progress\n  1-3-reset-password: ready-for-dev\n  epic-1-retrospective: optional\n`,
      [`${dir}/1-2-user-login.md`]: storyText('1.2: User login', 'in-progress', ['x', ' ', ' ']),
      [`${dir}/1-3-reset-password.md`]: storyText('1.3: Reset password', 'ready-for-dev', [' ']),
    });
    await withServer(root, async (s) => {
      const r = await s.call('waymark_summary');
      assert.equal(r.isError, false, r.text);
      const sp = r.data.sprint;
      assert.ok(sp, 'the sprint is summarised');
      assert.equal(sp.ledger, `${dir}/sprint-status.yaml`);
      assert.equal(sp.counts['in-progress'], 1);
      assert.equal(sp.counts['ready-for-dev'], 1);
      assert.deepEqual(sp.next, { action: 'dev-story', story: '1-2-user-login', reason: 'resume the in-progress story' });
      assert.deepEqual(sp.active.map((x: any) => [x.key, x.status, x.tasksDone, x.tasksTotal]), [['1-2-user-login', 'in-progress', 1, 3], ['1-3-reset-password', 'ready-for-dev', 0, 1]]);
      assert.equal(sp.active[0].file, `${dir}/1-2-user-login.md`);
      // A workspace without BMAD has no sprint field.
    });
    await withServer(workspace(), async (s) => assert.equal((await s.call('waymark_summary')).data.sprint, undefined));
  });

  test('no answer exceeds ~20k tokens: a page is cut to fit and says where to continue', async () => {
    const extra: Record<string, string> = {};
    const long = 'waiting for a long explanation '.repeat(60).trim();
    for (let i = 0; i < 150; i++) extra[`big/w${i}.workflow.md`] = workflowText({ status: 'blocked', extra: [`blockedReason: "${long} ${i}"`] });
    const root = workspace(extra);
    await withServer(root, async (s) => {
      const r = await s.call('waymark_summary', { limit: 200 });
      assert.equal(r.isError, false, r.text.slice(0, 300));
      assert.ok(r.text.length <= 80_000, `answer is ${r.text.length} characters`);
      assert.ok(r.data.workflows.length < 152 && r.data.nextCursor, 'cut, with a cursor to the rest');
      assert.equal(r.data.total, 152);
      const next = await s.call('waymark_summary', { limit: 200, cursor: r.data.nextCursor });
      assert.equal(next.data.workflows[0].file === r.data.workflows[0].file, false);
    });
  });

  test('status: steps, gates, chain, problems, resume and the state hash', async () => {
    const root = workspace({
      'docs/parent.workflow.md': workflowText({ extra: ['delegation:', '  id: p1', '  parent_id: null', '  root_id: p1', '  depth: 0', '  chain_path: [p1]'] }),
      'docs/child.workflow.md': workflowText({ extra: ['delegation:', '  id: c1', '  parent_id: p1', '  root_id: p1', '  depth: 1', '  chain_path: [p1, c1]', '  agent: tester'] }),
    });
    await withServer(root, async (s) => {
      const r = await s.call('waymark_status', { file: REL });
      assert.equal(r.isError, false, r.text);
      assert.equal(r.data.workflow, 'release');
      assert.deepEqual(r.data.steps.map((x: any) => [x.id, x.done]), [['build', true], ['review', false], ['ship', false]]);
      assert.deepEqual(r.data.gates.map((g: any) => [g.step, g.open]), [['review', false]]);
      assert.match(r.data.stateHash, /^[0-9a-f]{64}$/);
      const p = await s.call('waymark_status', { file: 'docs/parent.workflow.md' });
      assert.deepEqual(p.data.delegation.children.map((c: any) => [c.id, c.file, c.agent]), [['c1', 'docs/child.workflow.md', 'tester']]);
      const c = await s.call('waymark_status', { file: 'docs/child.workflow.md' });
      assert.deepEqual(c.data.delegation.chain, ['p1', 'c1']);
      assert.equal(c.data.resume.step, 'design');
    });
  });

  test('advance, set_status (block, unblock, complete) and gate: old → new state, new hash, history', async () => {
    const root = workspace();
    await withServer(root, async (s) => {
      const st = await s.call('waymark_status', { file: FEAT });
      const a = await s.call('waymark_advance', { file: FEAT, expectHash: st.data.stateHash, actor: 'dev-agent' });
      assert.equal(a.isError, false, a.text);
      assert.equal(a.data.before.currentStep, 'design');
      assert.equal(a.data.after.currentStep, 'implement');
      assert.deepEqual(a.data.after.stepsCompleted, ['design']);
      assert.equal(a.data.previousHash, st.data.stateHash);
      assert.notEqual(a.data.stateHash, st.data.stateHash);
      assert.equal(a.data.historySeq, 1);
      const onDisk = fs.readFileSync(path.join(root, FEAT), 'utf8');
      assert.match(onDisk, /stepsCompleted: \[design\]/);
      assert.match(onDisk, /# Feature\n\nBody text\.\n$/, 'the body is untouched');
      const b = await s.call('waymark_set_status', { file: FEAT, status: 'blocked', reason: 'needs the API key', expectHash: a.data.stateHash });
      assert.equal(b.data.after.status, 'blocked');
      assert.equal(b.data.after.blockedReason, 'needs the API key');
      const u = await s.call('waymark_set_status', { file: FEAT, status: 'in_progress', expectHash: b.data.stateHash });
      assert.equal(u.data.operation, 'unblock');
      assert.equal(u.data.after.blockedReason, null);
      const noReason = await s.call('waymark_set_status', { file: FEAT, status: 'blocked' });
      assert.equal(reasonOf(noReason), 'usage');
      const step = await s.call('waymark_advance', { file: FEAT, step: 'test' });
      assert.deepEqual(step.data.after.stepsCompleted, ['design', 'test']);
      // The gate: closed → advance refused (gate-closed), PASS → advance goes through.
      const closed = await s.call('waymark_advance', { file: REL });
      assert.equal(reasonOf(closed), 'gate-closed');
      assert.equal(closed.data.error.exitCode, 4);
      assert.match(closed.data.error.advice, /waymark_gate/);
      const g = await s.call('waymark_gate', { file: REL, step: 'review', verdict: 'PASS', reason: 'looks right', by: 'reviewer-agent' });
      assert.equal(g.isError, false, g.text);
      assert.equal(g.data.gate.open, true);
      assert.equal(g.data.gate.verdict, 'PASS');
      const through = await s.call('waymark_advance', { file: REL, expectHash: g.data.stateHash });
      assert.equal(through.isError, false, through.text);
      assert.equal(through.data.after.currentStep, 'ship');
      const waiveNoBy = await s.call('waymark_gate', { file: REL, step: 'review', verdict: 'WAIVED', reason: 'x' });
      assert.equal(reasonOf(waiveNoBy), 'usage');
      const hist = await runCli(root, ['history', FEAT, '--json']);
      const ops = JSON.parse(hist.stdout).sessions.flatMap((x: any) => x.entries.map((e: any) => e.operation));
      assert.deepEqual(ops, ['advance', 'block', 'unblock', 'complete-step']);
    });
  });

  test('resume (one file and the whole workspace) and validate (problems, severity, paging)', async () => {
    const root = workspace({ 'docs/bad.workflow.md': '---\nworkflow: feature\nstatus: nonsense\nsteps: [a, b]\ncurrentStep: zz\nstepsCompleted: [a]\n---\n' });
    await withServer(root, async (s) => {
      const one = await s.call('waymark_resume', { file: FEAT });
      assert.equal(one.isError, false, one.text);
      assert.equal(one.data.workflows[0].step, 'design');
      assert.equal(one.data.workflows[0].tier, 1);
      const all = await s.call('waymark_resume', {});
      assert.equal(all.data.total, 3);
      const v = await s.call('waymark_validate', {});
      assert.equal(v.isError, false, v.text);
      assert.ok(v.data.problems.length >= 1 && v.data.problems.every((p: any) => p.file === 'docs/bad.workflow.md'), JSON.stringify(v.data.problems));
      assert.ok(v.data.problems[0].line >= 1);
      const errorsOnly = await s.call('waymark_validate', { severity: 'error' });
      assert.ok(errorsOnly.data.problems.every((p: any) => p.severity === 'error'));
      const paged = await s.call('waymark_validate', { limit: 1 });
      assert.equal(paged.data.problems.length, 1);
      assert.equal(paged.data.nextCursor ?? (v.data.total > 1 ? 'missing' : undefined), v.data.total > 1 ? '1' : undefined);
      fs.writeFileSync(path.join(root, 'docs', 'broken.workflow.md'), '---\nworkflow: x\nstatus: [oops\n---\n');
      const broken = await s.call('waymark_validate', { path: 'docs/broken.workflow.md' });
      assert.equal(broken.isError, false, broken.text);
      assert.ok(broken.data.errors >= 1 && broken.data.problems[0].line >= 1, JSON.stringify(broken.data));
      const clean = await s.call('waymark_validate', { path: FEAT });
      assert.equal(clean.data.problems.length, 0);
      assert.equal(clean.data.workflows, 1);
    });
  });

  test('memory record and recall; lease acquire refuses another agent\'s write, release lets it through', async () => {
    const root = workspace();
    await withServer(root, async (a) => {
      const rec = await a.call('waymark_memory_record', { type: 'decision', text: 'Use SQLite for the cache', rationale: 'one file, no server', workflow: FEAT, step: 'design', files: ['src/cache.ts'] });
      assert.equal(rec.isError, false, rec.text);
      assert.match(rec.data.id, /^dec/);
      const got = await a.call('waymark_memory_recall', { workflow: FEAT });
      assert.equal(got.isError, false, got.text);
      assert.ok(got.data.items.some((i: any) => i.id === rec.data.id && i.rationale === 'one file, no server'), JSON.stringify(got.data));
      const byText = await a.call('waymark_memory_recall', { text: 'SQLite cache' });
      assert.ok(byText.data.items.some((i: any) => i.id === rec.data.id));
      const badType = await a.call('waymark_memory_record', { type: 'gossip', text: 'x' });
      assert.equal(reasonOf(badType), 'usage');

      const lease = await a.call('waymark_lease', { action: 'acquire', file: FEAT, ttl: '10m' });
      assert.equal(lease.isError, false, lease.text);
      assert.equal(lease.data.outcome, 'acquired');
      await withServer(
        root,
        async (b) => {
          const refused = await b.call('waymark_advance', { file: FEAT });
          assert.equal(reasonOf(refused), 'locked');
          assert.equal(refused.data.error.exitCode, 3);
          const mine = await a.call('waymark_advance', { file: FEAT });
          assert.equal(mine.isError, false, `the holder writes: ${mine.text}`);
          const rel = await a.call('waymark_lease', { action: 'release', file: FEAT });
          assert.equal(rel.data.outcome, 'released');
          const now = await b.call('waymark_advance', { file: FEAT });
          assert.equal(now.isError, false, now.text);
        },
        { args: ['--actor', 'other-agent'] },
      );
      const badTtl = await a.call('waymark_lease', { action: 'acquire', ttl: 'forever' });
      assert.equal(reasonOf(badTtl), 'usage');
    });
  });
});

describe('waymark mcp: bad input', () => {
  test('schema errors, unknown tools and unknown arguments come back as usage errors, not crashes', async () => {
    const root = workspace();
    await withServer(root, async (s) => {
      for (const [name, args] of [
        ['waymark_status', {}],
        ['waymark_status', { file: 42 }],
        ['waymark_advance', { file: FEAT, bogus: true }],
        ['waymark_advance', { file: FEAT, expectHash: 'abc' }],
        ['waymark_set_status', { file: FEAT, status: 'done' }],
        ['waymark_summary', { limit: 100000 }],
        ['waymark_summary', { cursor: '-1' }],
        ['waymark_gate', { file: REL, step: 'review', verdict: 'MAYBE' }],
      ] as const) {
        const r = await s.call(name, args as Record<string, unknown>);
        assert.equal(reasonOf(r), 'usage', `${name} ${JSON.stringify(args)}: ${r.text}`);
        assert.equal(r.data.error.exitCode, 2);
        assert.ok(r.data.error.advice);
      }
      const unknown = await s.call('waymark_nope', {});
      assert.equal(reasonOf(unknown), 'usage');
      assert.match(unknown.data.error.message, /waymark_summary/);
      const notWorkflow = await s.call('waymark_status', { file: '.waymark/workflows/release.yaml' });
      assert.ok(['usage', 'invalid', 'unreadable'].includes(reasonOf(notWorkflow)));
      const missing = await s.call('waymark_status', { file: 'docs/none.md' });
      assert.equal(reasonOf(missing), 'unreadable');
      // Still serving after all that.
      assert.equal((await s.call('waymark_summary')).isError, false);
    });
  });

  test('paths outside the workspace are refused: ../, absolute, and a symlink pointing out', async () => {
    const outside = workspace();
    const root = workspace();
    fs.symlinkSync(path.join(outside, FEAT), path.join(root, 'docs', 'link.workflow.md'));
    fs.symlinkSync(path.join(outside, 'docs'), path.join(root, 'linkdir'));
    const before = fs.readFileSync(path.join(outside, FEAT), 'utf8');
    await withServer(root, async (s) => {
      for (const file of [`../${path.basename(outside)}/${FEAT}`, path.join(outside, FEAT), 'docs/link.workflow.md', `linkdir/feat.workflow.md`, '/etc/passwd']) {
        for (const tool of ['waymark_advance', 'waymark_status']) {
          const r = await s.call(tool, { file });
          assert.equal(reasonOf(r), 'usage', `${tool} ${file}: ${r.text}`);
          assert.match(r.data.error.message, /outside the workspace/);
        }
      }
      assert.equal(reasonOf(await s.call('waymark_memory_record', { type: 'learning', text: 'x', files: ['../../etc/hosts'] })), 'usage');
      assert.equal(reasonOf(await s.call('waymark_summary', { path: '..' })), 'usage');
    });
    assert.equal(fs.readFileSync(path.join(outside, FEAT), 'utf8'), before, 'nothing outside was written');
  });

  test('a stale expectHash is a conflict (exit code 3) and changes nothing', async () => {
    const root = workspace();
    await withServer(root, async (s) => {
      const st = await s.call('waymark_status', { file: FEAT });
      // Someone else changes the file behind the server's back.
      const cli = await runCli(root, ['advance', FEAT]);
      assert.equal(cli.code, 0, cli.stderr);
      const text = fs.readFileSync(path.join(root, FEAT), 'utf8');
      const r = await s.call('waymark_advance', { file: FEAT, expectHash: st.data.stateHash });
      assert.equal(reasonOf(r), 'conflict');
      assert.equal(r.data.error.exitCode, 3);
      assert.match(r.data.error.advice, /waymark_status/);
      assert.equal(fs.readFileSync(path.join(root, FEAT), 'utf8'), text, 'nothing written');
      // The server's answer is current right away (no waiting for the watcher).
      const now = await s.call('waymark_status', { file: FEAT });
      assert.equal(now.data.currentStep, 'implement');
    });
  });
});

describe('waymark mcp: staying current and racing writers', () => {
  test('answers follow edits made by people and other processes (watcher, config changes)', async () => {
    const root = workspace();
    await withServer(root, async (s) => {
      assert.equal((await s.call('waymark_summary')).data.counts.workflows, 2);
      fs.writeFileSync(path.join(root, 'docs', 'new.workflow.md'), workflowText({ status: 'created' }));
      fs.writeFileSync(path.join(root, FEAT), workflowText({ status: 'blocked', extra: ['blockedReason: hand edit'] }));
      const deadline = Date.now() + 5000;
      let sum = await s.call('waymark_summary');
      while (sum.data.counts.workflows !== 3 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        sum = await s.call('waymark_summary');
      }
      assert.equal(sum.data.counts.workflows, 3);
      assert.equal(sum.data.workflows.find((w: any) => w.file === FEAT).status, 'blocked');
      fs.rmSync(path.join(root, 'docs', 'new.workflow.md'));
      let gone = await s.call('waymark_summary');
      while (gone.data.counts.workflows !== 2 && Date.now() < deadline + 5000) {
        await new Promise((r) => setTimeout(r, 50));
        gone = await s.call('waymark_summary');
      }
      assert.equal(gone.data.counts.workflows, 2);
      // A half-written file: the last good state, marked stale, with what is wrong.
      fs.writeFileSync(path.join(root, FEAT), '---\nworkflow: feature\nstatus: [unclosed\n---\n');
      const stale = await s.call('waymark_status', { file: FEAT });
      assert.equal(stale.isError, false, stale.text);
      assert.equal(stale.data.stale, true);
      assert.equal(stale.data.status, 'blocked', 'the last good state');
      assert.ok(stale.data.staleReason);
      // A step definition change re-reads every file.
      fs.writeFileSync(path.join(root, '.waymark', 'workflows', 'release.yaml'), 'steps:\n  - build\n  - review\n  - ship\n  - announce\n');
      let rel = await s.call('waymark_status', { file: REL });
      while (rel.data.steps.length !== 4 && Date.now() < deadline + 10000) {
        await new Promise((r) => setTimeout(r, 50));
        rel = await s.call('waymark_status', { file: REL });
      }
      assert.deepEqual(rel.data.steps.map((x: any) => x.id), ['build', 'review', 'ship', 'announce']);
    });
  });

  test('an MCP write racing a CLI write and another writer on the same file: exactly one wins per round, no lost update', async () => {
    const steps = Array.from({ length: 12 }, (_, i) => `s${i + 1}`);
    const root = workspace({ 'race.workflow.md': workflowText({ steps }) });
    const { createStateCore } = await import('../../src/core/index');
    // The third writer: a long-lived in-process core, as the VS Code extension holds one.
    const other = createStateCore({ roots: [root], actor: 'editor', origin: 'vscode', memory: false });
    const file = path.join(root, 'race.workflow.md');
    await withServer(root, async (s) => {
      let wins = 0;
      for (let round = 0; round < 4; round++) {
        const hash = (await s.call('waymark_status', { file: 'race.workflow.md' })).data.stateHash;
        const [m, c, o] = await Promise.all([
          s.call('waymark_advance', { file: 'race.workflow.md', expectHash: hash }),
          runCli(root, ['advance', 'race.workflow.md', '--expect-hash', hash, '--json']),
          other.advance(file, { expectHash: hash }).then(
            () => 'ok',
            (e: unknown) => (e as { reason?: string }).reason ?? 'crash',
          ),
        ]);
        const outcomes = [m.isError ? reasonOf(m) : 'ok', c.code === 0 ? 'ok' : c.code === 3 ? 'conflict' : `exit ${c.code}: ${c.stderr}`, o];
        assert.equal(outcomes.filter((x) => x === 'ok').length, 1, `round ${round}: exactly one write wins: ${outcomes.join(', ')}`);
        assert.ok(outcomes.every((x) => x === 'ok' || x === 'conflict' || x === 'locked'), outcomes.join(', '));
        wins++;
      }
      const final = await s.call('waymark_status', { file: 'race.workflow.md' });
      assert.equal(final.data.stepsCompleted.length, wins, 'every winning advance is on disk, none twice');
    });
    other.dispose();
  });

  test('without expectHash, MCP, CLI and another writer completing different steps at once lose none', async () => {
    const steps = Array.from({ length: 15 }, (_, i) => `s${i + 1}`);
    const root = workspace({ 'race.workflow.md': workflowText({ steps }) });
    const { createStateCore } = await import('../../src/core/index');
    const other = createStateCore({ roots: [root], actor: 'editor', memory: false });
    const file = path.join(root, 'race.workflow.md');
    await withServer(root, async (s) => {
      const lane = async (from: number, run: (step: string) => Promise<unknown>) => {
        for (let i = from; i < from + 5; i++) await run(`s${i}`);
      };
      await Promise.all([
        lane(1, async (step) => assert.equal((await s.call('waymark_advance', { file: 'race.workflow.md', step })).isError, false)),
        lane(6, async (step) => assert.equal((await runCli(root, ['complete-step', 'race.workflow.md', step])).code, 0)),
        lane(11, (step) => other.completeStep(file, step)),
      ]);
      const final = await s.call('waymark_status', { file: 'race.workflow.md' });
      assert.deepEqual([...final.data.stepsCompleted].sort(), [...steps].sort(), 'all 15 completions landed');
      assert.equal(final.data.status, 'completed');
    });
    other.dispose();
  });
});

describe('waymark mcp: the verb', () => {
  test('unknown options and a missing --root are usage errors (exit 2)', async () => {
    const root = workspace();
    const a = await runCli(root, ['mcp', '--bogus']);
    assert.equal(a.code, 2);
    assert.match(a.stderr, /unknown option --bogus/i);
    const b = await runCli(root, ['mcp', '--root', path.join(root, 'nope')]);
    assert.equal(b.code, 2);
    assert.match(b.stderr, /not a folder/);
    const h = await runCli(root, ['mcp', '--help']);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /waymark_summary/);
  });

  test('without --root the root is found by walking up to .waymark / .git', async () => {
    const root = workspace();
    const deep = path.join(root, 'docs', 'deeper', 'still');
    fs.mkdirSync(deep, { recursive: true });
    const s = await startServer(undefined, { cwd: deep });
    try {
      const r = await s.call('waymark_summary');
      assert.equal(r.data.counts.workflows, 2);
      assert.ok(r.data.workflows.some((w: any) => w.file === FEAT));
    } finally {
      await s.close();
    }
  });
});

/**
 * Issue 13 leftovers: a ticket whose artifact was removed is closed (one way, idempotent), and a
 * mirror that says "synced" while its ticket is gone is sent again — on a real git ticket store
 * and against the fake GitHub on 127.0.0.1 (recorded payloads, not the live service).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fakeGitHub, gitConfig, githubConfig, project, ticketFiles, ticketRepo, wf, workspace, allowTmpEnv } from './ticketsHelpers';

const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });

function three(): Record<string, string> {
  return { 'w1.md': wf('w1', 'in_progress'), 'w2.md': wf('w2', 'created', '', '# Two\n\nThe text of two.\n'), 'w3.md': wf('w3', 'created') };
}

describe('tickets: removed artifacts close their ticket (git store)', () => {
  test('a deleted workflow file: dry run shows close, the run closes it with a note and status:removed in one commit; a re-run does nothing', async () => {
    const repo = ticketRepo();
    const root = workspace(three(), gitConfig(repo));
    assert.deepEqual((await project(root)).created, ['w1', 'w2', 'w3']);
    fs.rmSync(path.join(root, 'w2.md'));
    const dry = await project(root, { dryRun: true });
    assert.deepEqual(dry.planned.map((p) => `${p.action} ${p.id} ${p.why}`), ['close w2 removed']);
    assert.match(ticketFiles(repo).get('w2')![0], /^status: open$/m, 'a dry run sends nothing');
    const r = await project(root);
    assert.deepEqual([r.closed, r.created, r.updated, r.failed], [['w2'], [], [], []]);
    const t = ticketFiles(repo).get('w2')![0];
    assert.match(t, /^status: closed$/m);
    assert.match(t, /^labels:\n  - waymark\n  - waymark:workflow\n  - status:removed$/m);
    assert.doesNotMatch(t, /status:todo/);
    assert.match(t, /Closed by Waymark: `w2\.md` was removed from the project\./);
    assert.match(t, /The text of two\./, 'the ticket keeps its text');
    assert.match(t, /waymark-id: w2\n$/, 'the id line stays last');
    assert.match(git(repo, 'log', '-1', '--format=%s'), /1 closed \(artifact removed\)/);
    assert.equal(git(repo, 'status', '--porcelain'), '');
    const commits = git(repo, 'rev-list', '--count', 'HEAD');
    const again = await project(root);
    assert.deepEqual([again.closed, again.planned], [[], []], 'idempotent: a closed ticket is not touched again');
    assert.equal(git(repo, 'rev-list', '--count', 'HEAD'), commits, 'no new commit');
  });

  test('the CLI: --dry-run lists the close, the run says how many were closed, --json carries them', async () => {
    const cli = path.resolve('dist/cli.js');
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js not built (node esbuild.mjs)');
    const repo = ticketRepo();
    const root = workspace(three(), gitConfig(repo));
    await project(root);
    fs.rmSync(path.join(root, 'w3.md'));
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, 'project', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...allowTmpEnv() }, timeout: 60_000 });
    const dry = run('--dry-run');
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /^  close  w3 \(w3-[0-9a-f]{8}\)  removed  w3\.md$/m);
    const r = run();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /git: 0 created, 0 updated, 1 closed \(artifact removed\), 2 unchanged\./);
    const j = JSON.parse(run('--json').stdout) as { closed: string[]; listError: string | null; planned: unknown[] };
    assert.deepEqual([j.closed, j.listError, j.planned], [[], null, []]);
  });

  test('not deleted, only no longer read (the file is still there but no workflow any more): its ticket stays open', async () => {
    const repo = ticketRepo();
    const root = workspace(three(), gitConfig(repo));
    await project(root);
    fs.writeFileSync(path.join(root, 'w2.md'), 'half-written: no frontmatter yet\n');
    const r = await project(root);
    assert.deepEqual([r.closed, r.planned.filter((p) => p.action === 'close')], [[], []]);
    assert.match(ticketFiles(repo).get('w2')![0], /^status: open$/m);
  });

  test('a scan with no item at all (every file gone at once, or the folder unreadable) closes nothing', async () => {
    const repo = ticketRepo();
    const root = workspace(three(), gitConfig(repo));
    await project(root);
    for (const n of ['w1.md', 'w2.md', 'w3.md']) fs.rmSync(path.join(root, n));
    const r = await project(root);
    assert.deepEqual(r.closed, []);
    for (const [, [t]] of ticketFiles(repo)) assert.match(t, /^status: open$/m);
  });

  test('an archived workflow closes its ticket (status:dropped), a second run sends nothing', async () => {
    const repo = ticketRepo();
    const root = workspace(three(), gitConfig(repo));
    await project(root);
    fs.writeFileSync(path.join(root, 'w3.md'), wf('w3', 'archived'));
    const r = await project(root);
    assert.deepEqual(r.updated, ['w3']);
    const t = ticketFiles(repo).get('w3')![0];
    assert.match(t, /^status: closed$/m);
    assert.match(t, /- status:dropped$/m);
    assert.deepEqual((await project(root)).planned, []);
  });

  test('the ticket repository re-created: mirrors that say synced are sent again (not "3 unchanged"); one ticket file removed: only that one', async () => {
    const repo = ticketRepo();
    const root = workspace(three(), gitConfig(repo));
    await project(root);
    assert.match(fs.readFileSync(path.join(root, 'w1.md'), 'utf8'), /^tracker:/m);
    fs.rmSync(path.join(repo, 'tickets', fs.readdirSync(path.join(repo, 'tickets')).find((n) => n.startsWith('w2-'))!));
    const one = await project(root);
    assert.deepEqual([one.created, one.unchanged, one.planned.map((p) => p.why)], [['w2'], 2, ['missing']]);
    assert.deepEqual([...ticketFiles(repo).keys()].sort(), ['w1', 'w2', 'w3']);
    fs.rmSync(repo, { recursive: true, force: true });
    fs.mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    const dry = await project(root, { dryRun: true });
    assert.deepEqual(dry.planned.map((p) => `${p.action} ${p.id} ${p.why}`), ['create w1 missing', 'create w2 missing', 'create w3 missing']);
    const r = await project(root);
    assert.deepEqual([r.created, r.unchanged], [['w1', 'w2', 'w3'], 0]);
    const files = ticketFiles(repo);
    assert.deepEqual([...files.keys()].sort(), ['w1', 'w2', 'w3']);
    for (const [id, list] of files) assert.equal(list.length, 1, `one ticket for ${id}`);
    assert.deepEqual((await project(root)).planned, [], 'in sync again');
  });
});

describe('tickets: removed artifacts and missing issues (GitHub, recorded payloads, not the live service)', () => {
  test('a deleted file closes its issue with one PATCH (not_planned, status:removed, note above the id line), found through the paged label listing (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      gh.perPage = 2;
      const root = workspace(three(), githubConfig());
      await project(root, { apiUrl: gh.url });
      const w2 = gh.issues.find((i) => i.body.includes('waymark-id: w2'))!;
      fs.rmSync(path.join(root, 'w2.md'));
      gh.requests.length = 0;
      const r = await project(root, { apiUrl: gh.url });
      assert.deepEqual([r.closed, r.failed], [['w2'], []]);
      const gets = gh.requests.filter((x) => x.method === 'GET');
      assert.equal(gets.length, 2, 'three issues, two per page: both pages read');
      const patch = gh.requests.filter((x) => x.method === 'PATCH');
      assert.equal(patch.length, 1);
      assert.equal(patch[0].url, `/repos/acme/app/issues/${w2.number}`);
      assert.deepEqual([patch[0].body!.state, patch[0].body!.state_reason, patch[0].body!.labels], ['closed', 'not_planned', ['waymark', 'waymark:workflow', 'status:removed']]);
      assert.deepEqual([w2.state, w2.stateReason], ['closed', 'not_planned']);
      assert.match(w2.body, /Closed by Waymark: `w2\.md` was removed from the project\.\n\n---\n[\s\S]*waymark-id: w2\n$/);
      gh.requests.length = 0;
      const again = await project(root, { apiUrl: gh.url });
      assert.deepEqual(again.closed, []);
      assert.equal(gh.requests.filter((x) => x.method !== 'GET').length, 0, 'idempotent: nothing sent');
    } finally {
      await gh.stop();
    }
  });

  test('a deleted issue is created again from the same listing; a listing that fails closes and re-creates nothing (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace(three(), githubConfig('  breaker: { failures: 5, retries: 0, timeoutMs: 5000 }\n'));
      await project(root, { apiUrl: gh.url });
      gh.issues.splice(gh.issues.findIndex((i) => i.body.includes('waymark-id: w1')), 1);
      fs.rmSync(path.join(root, 'w3.md'));
      gh.fail5xx = 1;
      const failed = await project(root, { apiUrl: gh.url });
      assert.match(failed.listError ?? '', /502/);
      assert.deepEqual([failed.closed, failed.created, failed.planned], [[], [], []]);
      assert.equal(gh.issues.find((i) => i.body.includes('waymark-id: w3'))!.state, 'open');
      const r = await project(root, { apiUrl: gh.url });
      assert.deepEqual([r.created, r.closed, r.planned.map((p) => `${p.action} ${p.id} ${p.why}`)], [['w1'], ['w3'], ['create w1 missing', 'close w3 removed']]);
      assert.equal(gh.issues.filter((i) => i.body.includes('waymark-id: w1')).length, 1);
      assert.match(fs.readFileSync(path.join(root, 'w1.md'), 'utf8'), new RegExp(`^  id: "?${gh.issues.find((i) => i.body.includes('waymark-id: w1'))!.number}"?$`, 'm'), 'the mirror names the new issue');
    } finally {
      await gh.stop();
    }
  });

  test('a mirror naming an issue that is gone while the listing has the same waymark-id under another number: that issue is updated, nothing created (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace(three(), githubConfig());
      await project(root, { apiUrl: gh.url });
      const old = gh.issues.find((i) => i.body.includes('waymark-id: w1'))!;
      gh.issues.splice(gh.issues.indexOf(old), 1);
      gh.issues.push({ ...old, number: 40 });
      const f = path.join(root, 'w1.md');
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('status: in_progress\n', 'status: blocked\nblockedReason: waiting\n'));
      gh.requests.length = 0;
      const r = await project(root, { apiUrl: gh.url });
      assert.deepEqual([r.created, r.updated, r.planned.map((p) => `${p.action} ${p.ticket}`)], [[], ['w1'], ['update 40']]);
      assert.equal(gh.requests.filter((x) => x.method === 'POST').length, 0);
      assert.ok(gh.issues.find((i) => i.number === 40)!.labels.includes('status:blocked'));
      assert.match(fs.readFileSync(path.join(root, 'w1.md'), 'utf8'), /^  id: "?40"?$/m);
    } finally {
      await gh.stop();
    }
  });

  test('the listing\'s time limit is per page: many slow pages add up past one call\'s limit and still list (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      for (let n = 1; n <= 16; n++) gh.issues.push({ number: n, title: `t${n}`, body: `x\nwaymark-id: elsewhere-${n}\n`, labels: ['waymark'], state: 'open' });
      gh.perPage = 2;
      gh.delayMs = 300;
      const root = workspace(three(), githubConfig('  breaker: { failures: 1, retries: 0, timeoutMs: 1500 }\n'));
      const r = await project(root, { apiUrl: gh.url });
      assert.equal(gh.requests.filter((x) => x.method === 'GET').length, 8, 'eight pages, each well under the limit, together over it');
      assert.deepEqual([r.listError, r.outage, r.created, r.closed], [undefined, undefined, ['w1', 'w2', 'w3'], []]);
    } finally {
      await gh.stop();
    }
  });

  test('a dry run against a tracker that does not answer: a listing error after the time limit, not a hang, and the breaker untouched (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace(three(), githubConfig('  breaker: { failures: 1, retries: 0, timeoutMs: 500 }\n'));
      gh.delayMs = 3000;
      const dry = await project(root, { apiUrl: gh.url, dryRun: true });
      assert.match(dry.listError ?? '', /abort|timeout/i);
      assert.deepEqual(dry.planned.map((p) => p.action), ['create', 'create', 'create']);
      assert.equal(fs.existsSync(path.join(root, '.waymark', 'outbox', 'breaker.json')), false, 'a dry run records no failure');
    } finally {
      await gh.stop();
    }
  });
});

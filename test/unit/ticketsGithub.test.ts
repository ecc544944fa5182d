import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GitHubIssueStore, TicketError, nextLink, readBreakerStatus } from '../../src/core/index';
import { fakeGitHub, githubConfig, project, wf, withCore, workspace } from './ticketsHelpers';

const draft = (id: string, title = id) => ({ waymarkId: id, title, body: `text\n---\nwaymark-id: ${id}\n`, labels: ['waymark', 'status:todo'], open: true, blockedBy: [] });

describe('tickets: GitHub adapter (recorded payloads, not the live service)', () => {
  test('request shape (recorded payloads, not the live service): auth, API version, JSON body; create, close, update', async () => {
    const gh = await fakeGitHub();
    try {
      const store = new GitHubIssueStore({ name: 'gh', owner: 'acme', repo: 'app', token: 'test-token', apiUrl: gh.url });
      const ref = await store.create({ ...draft('a', 'Alpha'), open: false });
      assert.deepEqual(ref, { id: '1', url: 'https://github.com/acme/app/issues/1', status: 'closed' });
      const [post, patch] = gh.requests;
      assert.equal(post.method, 'POST');
      assert.equal(post.url, '/repos/acme/app/issues');
      assert.equal(post.headers.authorization, 'Bearer test-token');
      assert.equal(post.headers.accept, 'application/vnd.github+json');
      assert.equal(post.headers['x-github-api-version'], '2022-11-28');
      assert.equal(post.headers['content-type'], 'application/json');
      assert.ok(post.headers['user-agent']);
      assert.deepEqual(post.body, { title: 'Alpha', body: 'text\n---\nwaymark-id: a\n', labels: ['waymark', 'status:todo'] });
      assert.deepEqual([patch.method, patch.url, patch.body], ['PATCH', '/repos/acme/app/issues/1', { state: 'closed' }]);
      const upd = await store.update(ref, draft('a', 'Alpha 2'));
      assert.equal(upd.status, 'open');
      assert.deepEqual(gh.requests[2].body, { title: 'Alpha 2', body: 'text\n---\nwaymark-id: a\n', labels: ['waymark', 'status:todo'], state: 'open' });
    } finally {
      await gh.stop();
    }
  });

  test('pagination via the Link header (recorded payloads, not the live service): every page read, pull requests skipped', async () => {
    const gh = await fakeGitHub();
    try {
      gh.perPage = 2;
      for (let n = 1; n <= 5; n++) gh.issues.push({ number: n, title: `t${n}`, body: `x\nwaymark-id: w${n}\n`, labels: ['waymark'], state: n === 3 ? 'closed' : 'open' });
      gh.issues.push({ number: 6, title: 'not ours', body: 'no id line', labels: ['bug'], state: 'open' });
      const store = new GitHubIssueStore({ name: 'gh', owner: 'acme', repo: 'app', token: 'test-token', apiUrl: gh.url });
      assert.deepEqual(await store.find('w5'), { id: '5', url: 'https://github.com/acme/app/issues/5', status: 'open' });
      assert.deepEqual(await store.find('w3'), { id: '3', url: 'https://github.com/acme/app/issues/3', status: 'closed' });
      assert.equal(await store.find('nope'), undefined);
      const gets = gh.requests.filter((r) => r.method === 'GET');
      assert.equal(gets.length, 3, 'three pages of two, then no rel="next"');
      assert.match(gets[0].url, /state=all&labels=waymark&per_page=100/);
      assert.match(gets[2].url, /page=3/);
      assert.equal(nextLink('<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last"'), 'https://api.github.com/x?page=2');
      assert.equal(nextLink('<https://api.github.com/x?page=1>; rel="prev"'), undefined);
    } finally {
      await gh.stop();
    }
  });

  test('rate-limit headers (recorded payloads, not the live service): 403 with x-ratelimit-remaining 0 waits until x-ratelimit-reset', async () => {
    const gh = await fakeGitHub();
    try {
      gh.rateLimitNext = true;
      gh.rateLimitResetSec = 120;
      const store = new GitHubIssueStore({ name: 'gh', owner: 'acme', repo: 'app', token: 'test-token', apiUrl: gh.url });
      const e = await store.create(draft('a')).then(() => undefined, (x: unknown) => x);
      assert.ok(TicketError.is(e));
      assert.equal(e.retryable, true);
      assert.equal(e.status, 403);
      assert.ok(e.retryAfterMs! > 100_000 && e.retryAfterMs! <= 121_000, `waits until the reset (${e.retryAfterMs} ms)`);
      assert.match(e.message, /rate limit/);
    } finally {
      await gh.stop();
    }
  });

  test('a secondary rate limit: 429 with retry-after waits that long (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      gh.retryAfterNext = 30;
      const store = new GitHubIssueStore({ name: 'gh', owner: 'acme', repo: 'app', token: 'test-token', apiUrl: gh.url });
      const e = await store.find('a').then(() => undefined, (x: unknown) => x);
      assert.ok(TicketError.is(e));
      assert.deepEqual([e.status, e.retryable, e.retryAfterMs], [429, true, 30_000]);
      assert.match(e.message, /secondary rate limit/);
    } finally {
      await gh.stop();
    }
  });

  test('a rate limit opens the breaker until the reset: the rest is queued, not hammered (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace({ 'a.md': wf('a', 'created'), 'b.md': wf('b', 'created') }, githubConfig());
      gh.rateLimitNext = true;
      gh.rateLimitResetSec = 600;
      const r = await project(root, { apiUrl: gh.url });
      assert.equal(gh.requests.length, 1, 'one call, then nothing until the reset');
      assert.equal(r.queued, 2);
      assert.match(r.outage!, /rate limit/);
      const b = readBreakerStatus(root)[0];
      assert.equal(b.state, 'open');
      assert.ok(Date.parse(b.retryAt!) > Date.now() + 500_000);
      const again = await project(root, { apiUrl: gh.url });
      assert.equal(gh.requests.length, 1, 'still rate limited: the next run does not call');
      assert.equal(again.queued, 2);
    } finally {
      await gh.stop();
    }
  });

  test('422 is a clear validation error, not retried, not an outage (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace({ 'a.md': wf('a', 'created', 'title: INVALID title\n'), 'b.md': wf('b', 'created') }, githubConfig());
      const r = await project(root, { apiUrl: gh.url });
      assert.equal(r.failed.length, 1);
      assert.equal(r.failed[0].id, 'a');
      assert.match(r.failed[0].message, /422 Validation Failed: title invalid.*fix the workflow file/);
      assert.deepEqual(r.created, ['b']);
      assert.equal(r.queued, 0);
      assert.equal(r.breaker.state, 'closed');
      assert.equal(gh.requests.filter((x) => x.method === 'POST').length, 2, 'the 422 was not retried');
    } finally {
      await gh.stop();
    }
  });

  test('5xx is retried with backoff and then succeeds (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace({ 'a.md': wf('a', 'created') }, githubConfig('  breaker: { retries: 2, failures: 5 }\n'));
      gh.fail5xx = 2;
      const r = await project(root, { apiUrl: gh.url });
      assert.deepEqual(r.created, ['a']);
      assert.equal(gh.requests.filter((x) => x.method === 'GET').length, 3, 'the listing was tried three times (two 502s)');
      assert.equal(r.breaker.state, 'closed');
      assert.equal(r.breaker.failures, 0);
      assert.match(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), /tracker:\n  store: github\n  id: "?1"?\n  url: "?https:\/\/github.com\/acme\/app\/issues\/1"?\n  status: open\n/);
    } finally {
      await gh.stop();
    }
  });

  test('no token: a clear usage error, and the token never lands in a file (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace({ 'a.md': wf('a', 'created') }, githubConfig());
      await project(root, { apiUrl: gh.url, token: 'test-token' });
      const all: string[] = [];
      const walk = (d: string) => { for (const n of fs.readdirSync(d, { withFileTypes: true })) n.isDirectory() ? walk(path.join(d, n.name)) : all.push(fs.readFileSync(path.join(d, n.name), 'utf8')); };
      walk(root);
      assert.ok(!all.some((t) => t.includes('test-token')), 'the token is in no file of the workspace');
      const { openStore } = await import('../../src/core/index');
      await assert.rejects(openStore(root, 'github', { store: 'github', owner: 'acme', repo: 'app' }, {}), /needs a token: set GITHUB_TOKEN/);
    } finally {
      await gh.stop();
    }
  });

  test('parents become sub-issues (POST …/sub_issues with the issue id, not its number); blocked-by an issue dependency, not a body line (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace({
        'a-root.md': wf('root', 'in_progress', 'delegation:\n  id: d-root\n  root_id: d-root\n  depth: 0\n  chain_path: [d-root]\n'),
        'b-child.md': wf('child', 'in_progress', 'dependsOn: [other]\ndelegation:\n  id: d-child\n  parent_id: d-root\n  root_id: d-root\n  depth: 1\n  chain_path: [d-root, d-child]\n'),
        'c-other.md': wf('other', 'created'),
      }, githubConfig());
      const r = await project(root, { apiUrl: gh.url });
      assert.deepEqual(r.failed, []);
      const byId = new Map(gh.issues.map((i) => [/waymark-id: (\S+)/.exec(i.body)![1], i]));
      const child = byId.get('child')!;
      assert.equal(child.parent, byId.get('root')!.number, 'linked as a sub-issue of its delegating workflow');
      const link = gh.requests.find((x) => x.url.endsWith('/sub_issues'))!;
      assert.deepEqual(link.body, { sub_issue_id: 1_000_000 + child.number, replace_parent: true });
      assert.doesNotMatch(child.body, /^Parent:/m);
      assert.doesNotMatch(child.body, /^Blocked by:/m);
      assert.deepEqual(child.blockedBy, [byId.get('other')!.number], 'a native dependency');
      const dep = gh.requests.find((x) => x.method === 'POST' && x.url.endsWith('/dependencies/blocked_by'))!;
      assert.equal(dep.url, `/repos/acme/app/issues/${child.number}/dependencies/blocked_by`);
      assert.deepEqual(dep.body, { issue_id: 1_000_000 + byId.get('other')!.number }, 'the blocker by its issue id, not its number');
      // A later change re-sends the child: the link exists already (422 from GitHub), the update still succeeds.
      await withCore(root, (core) => core.advance(path.join(root, 'b-child.md')));
      const again = await project(root, { apiUrl: gh.url });
      assert.deepEqual([again.updated, again.failed], [['child'], []]);
      assert.equal(child.parent, byId.get('root')!.number);
      assert.deepEqual(child.blockedBy, [byId.get('other')!.number], 'read first, not added twice');
    } finally {
      await gh.stop();
    }
  });

  test('a rejected token stops the run at the first call with what to do (exit 2), not once per ticket (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace({ 'a.md': wf('a', 'created'), 'b.md': wf('b', 'created'), 'c.md': wf('c', 'created') }, githubConfig());
      await assert.rejects(project(root, { apiUrl: gh.url, token: 'wrong' }), (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.match(e.message, /GitHub rejected the token \(401 Bad credentials\); set a valid GITHUB_TOKEN/);
        assert.equal((e as { reason?: string }).reason, 'usage');
        return true;
      });
      assert.equal(gh.requests.length, 1, 'one call, not one per ticket');
      assert.equal(readBreakerStatus(root)[0]?.state ?? 'closed', 'closed', 'a bad token is no outage');
    } finally {
      await gh.stop();
    }
  });

  test('a create whose answer never came (timeout after GitHub made the issue) is found by its id line next run, not made twice (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace({ 'a.md': wf('a', 'created') }, githubConfig('  breaker: { failures: 5, retries: 0, timeoutMs: 1500 }\n'));
      gh.delayPostMs = 4000;
      const first = await project(root, { apiUrl: gh.url });
      assert.match(first.outage!, /timed out after 1500 ms/);
      assert.equal(first.queued, 1);
      assert.equal(gh.issues.length, 1, 'GitHub made the issue; the answer was lost');
      gh.delayPostMs = 0;
      const second = await project(root, { apiUrl: gh.url });
      assert.deepEqual([second.reconciled, second.created, second.updated, second.queued], [['a'], [], ['a'], 0]);
      assert.equal(gh.issues.length, 1, 'no duplicate');
      assert.equal(gh.requests.filter((r) => r.method === 'POST').length, 1);
    } finally {
      await gh.stop();
    }
  });
});

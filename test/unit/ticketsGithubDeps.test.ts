/**
 * GitHub issue dependencies (REST: GET/POST …/issues/{n}/dependencies/blocked_by, DELETE
 * …/blocked_by/{issue_id}) as the native blocked-by link, and the body-line fallback where the
 * endpoint answers 404/410 (older GitHub Enterprise Server) or refuses one link (422) — against
 * the fake GitHub on 127.0.0.1 (recorded payloads, not the live service).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fakeGitHub, githubConfig, project, wf, workspace, type FakeGitHub } from './ticketsHelpers';

const chain = () => ({ 'a.md': wf('a', 'in_progress'), 'b.md': wf('b', 'created', 'dependsOn: [a]\n'), 'c.md': wf('c', 'created', 'dependsOn: [a, b]\n') });
const issue = (gh: FakeGitHub, id: string) => gh.issues.find((i) => i.body.includes(`waymark-id: ${id}\n`))!;

describe('tickets: GitHub blocked-by as issue dependencies (recorded payloads, not the live service)', () => {
  test('prerequisites become dependencies; a removed prerequisite is unlinked, an added one linked (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace(chain(), githubConfig());
      const r = await project(root, { apiUrl: gh.url });
      assert.deepEqual([r.created, r.failed], [['a', 'b', 'c'], []]);
      const [a, b, c] = ['a', 'b', 'c'].map((id) => issue(gh, id));
      assert.deepEqual([b.blockedBy, c.blockedBy], [[a.number], [a.number, b.number]]);
      for (const i of [a, b, c]) assert.doesNotMatch(i.body, /^Blocked by:/m);
      assert.equal(gh.requests.filter((x) => x.url.includes('/dependencies/') && x.method === 'GET').length, 0, 'a new issue has no dependency to read');
      fs.writeFileSync(path.join(root, 'c.md'), wf('c', 'created', 'dependsOn: [b]\n'));
      gh.requests.length = 0;
      const again = await project(root, { apiUrl: gh.url });
      assert.deepEqual(again.updated, ['c']);
      assert.deepEqual(c.blockedBy, [b.number]);
      const del = gh.requests.find((x) => x.method === 'DELETE')!;
      assert.equal(del.url, `/repos/acme/app/issues/${c.number}/dependencies/blocked_by/${1_000_000 + a.number}`);
    } finally {
      await gh.stop();
    }
  });

  for (const status of [404, 410] as const) {
    test(`the dependencies endpoint answers ${status} (older GHES): the body line instead, for the rest of the run, nothing failed (recorded payloads, not the live service)`, async () => {
      const gh = await fakeGitHub();
      try {
        gh.dependencies = status;
        const root = workspace(chain(), githubConfig());
        const r = await project(root, { apiUrl: gh.url });
        assert.deepEqual([r.created, r.failed, r.queued], [['a', 'b', 'c'], [], 0]);
        const [a, b, c] = ['a', 'b', 'c'].map((id) => issue(gh, id));
        assert.match(b.body, new RegExp(`^Blocked by: #${a.number}$`, 'm'));
        assert.match(c.body, new RegExp(`^Blocked by: #${a.number}, #${b.number}$`, 'm'));
        assert.equal(gh.requests.filter((x) => x.url.includes('/dependencies/')).length, 1, 'asked once, then the body line');
        assert.deepEqual((await project(root, { apiUrl: gh.url })).planned, [], 'in sync');
      } finally {
        await gh.stop();
      }
    });
  }

  test('one link GitHub refuses (422): that ticket gets the body line, the others stay native (recorded payloads, not the live service)', async () => {
    const gh = await fakeGitHub();
    try {
      const root = workspace({ 'a.md': wf('a', 'in_progress', 'title: NOLINK a\n'), 'b.md': wf('b', 'created', 'dependsOn: [a]\n'), 'x.md': wf('x', 'created'), 'y.md': wf('y', 'created', 'dependsOn: [x]\n') }, githubConfig());
      const r = await project(root, { apiUrl: gh.url });
      assert.deepEqual(r.failed, []);
      const [a, b, x, y] = ['a', 'b', 'x', 'y'].map((id) => issue(gh, id));
      assert.match(b.body, new RegExp(`^Blocked by: #${a.number}$`, 'm'));
      assert.deepEqual(b.blockedBy ?? [], []);
      assert.deepEqual(y.blockedBy, [x.number]);
      assert.doesNotMatch(y.body, /^Blocked by:/m);
    } finally {
      await gh.stop();
    }
  });
});

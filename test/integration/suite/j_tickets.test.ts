// The ticket projection in a real VS Code: a git ticket store is configured for the demo
// workspace, the command `Waymark: Project Workflows to Tickets` sends every workflow to it
// (real git), the tracker block lands in the workflow files without a history line, and a
// second run sends nothing. Everything the suite changed is put back in teardown.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import * as net from 'node:net';
import type { DashboardModel } from '../../../src/core/index';
import type { DashboardPaint } from '../../../src/extension/dashboard';
import type { TestApi } from '../../../src/extension/testApi';
import { clickWebview, demo, ready, screenshot, singleRoot, sleep, testApi, waitFor } from '../helpers';

/** A port on 127.0.0.1 nothing listens on (a tracker that is down). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Report { store: string; created: string[]; updated: string[]; unchanged: number; planned: unknown[]; queued: number; breaker: { state: string } }

function markdownFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '.git' || e.name === '.waymark') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) markdownFiles(p, out);
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

/** Every history line of the folder (all `.waymark/history/**.jsonl`). */
function historyLines(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += historyLines(p);
    else if (e.name.endsWith('.jsonl')) n += fs.readFileSync(p, 'utf8').split('\n').filter(Boolean).length;
  }
  return n;
}

singleRoot('ticket projection (tickets)', () => {
  const config = demo('.waymark/config.yaml');
  let configBefore: string | undefined;
  const files = new Map<string, string>();
  let repo = '';

  suiteSetup(async () => {
    await ready();
    for (const f of markdownFiles(demo('.'))) files.set(f, fs.readFileSync(f, 'utf8'));
    repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-it-tickets-')));
    execFileSync('git', ['init', '-q', repo]);
    configBefore = fs.existsSync(config) ? fs.readFileSync(config, 'utf8') : undefined;
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, `${configBefore ?? ''}\ntracker:\n  store: git\n  repo: ${repo}\n`);
    // The repository is outside the workspace: the user allows it (the environment of this extension host).
    process.env.WAYMARK_TICKETS_ALLOW_OUTSIDE = repo;
  });

  suiteTeardown(() => {
    delete process.env.WAYMARK_TICKETS_ALLOW_OUTSIDE;
    if (configBefore === undefined) fs.rmSync(config, { force: true });
    else fs.writeFileSync(config, configBefore);
    for (const [f, text] of files) if (fs.readFileSync(f, 'utf8') !== text) fs.writeFileSync(f, text);
    for (const d of ['.waymark/tracker', '.waymark/outbox']) fs.rmSync(demo(d), { recursive: true, force: true });
    fs.rmSync(repo, { recursive: true, force: true });
  });

  test('the command projects every workflow to the git store; the tracker block is no state change; a re-run sends nothing', async () => {
    const historyDir = demo('.waymark/history');
    const historyBefore = historyLines(historyDir);
    const reports = await waitFor('the tracker config to be read and the projection to run', async () => {
      const r = (await vscode.commands.executeCommand<Report[]>('waymark.projectTickets', { quiet: true })) ?? [];
      return r.length && r[0].created.length ? r : undefined;
    }, 30_000);
    const r = reports[0];
    assert.equal(r.store, 'git');
    assert.equal(r.breaker.state, 'closed');
    const tickets = fs.readdirSync(path.join(repo, 'tickets')).filter((n) => n.endsWith('.md'));
    assert.equal(tickets.length, r.created.length);
    assert.match(execFileSync('git', ['-C', repo, 'log', '--format=%s'], { encoding: 'utf8' }), /waymark project: \d+ created/);
    const mirrored = [...files.keys()].filter((f) => /^tracker:\n  store: git\n/m.test(fs.readFileSync(f, 'utf8')));
    assert.ok(mirrored.length > 0, 'tracker blocks written');
    for (const f of mirrored) assert.equal(fs.readFileSync(f, 'utf8').replace(/tracker:\n(  .*\n)+/, ''), files.get(f), `${f}: only the tracker block changed`);
    assert.equal(historyLines(historyDir), historyBefore, 'no history line for a tracker block');
    const again = (await vscode.commands.executeCommand<Report[]>('waymark.projectTickets', { quiet: true }))![0];
    assert.deepEqual([again.created.length, again.updated.length, again.planned.length], [0, 0, 0]);
  });

  /** The workflow files holding a git tracker block now. */
  const mirroredFiles = () => [...files.keys()].filter((f) => /^tracker:\n  store: git\n/m.test(fs.readFileSync(f, 'utf8')));
  /** A line appended to each body: every ticket changes (its mirror gets a new syncedHash), no state does. */
  const editBodies = (list: string[], word: string) => {
    for (const f of list) fs.appendFileSync(f, `\nA ${word} note.\n`);
  };
  /** Waits until the model holds each file as it is on disk (the watcher read the edits). */
  const modelReads = async (api: TestApi, list: string[]) =>
    waitFor('the model to hold the files as on disk', () =>
      list.every((f) => (api.state(f) as { contentHash?: string } | undefined)?.contentHash === createHash('sha256').update(fs.readFileSync(f)).digest('hex')) || undefined,
    20_000);

  test('mirrors written through the old core while a new one scanned reach the new one: a re-run sends nothing', async () => {
    const api = await testApi();
    const list = mirroredFiles();
    assert.ok(list.length > 1, `mirrored: ${list.length}`);
    editBodies(list, 'first');
    await modelReads(api, list);
    let first: Report | undefined;
    // The new core has read the files (their old mirrors); the projection writes the new ones
    // through the old core, and the watcher's reloads of them (no change there) go to it too.
    await api.reconfigure(async () => {
      first = (await vscode.commands.executeCommand<Report[]>('waymark.projectTickets', { quiet: true }))![0];
      await modelReads(api, list);
      await sleep(300);
    });
    assert.equal(first?.updated.length, list.length, JSON.stringify(first));
    const again = (await vscode.commands.executeCommand<Report[]>('waymark.projectTickets', { quiet: true }))![0];
    assert.deepEqual([again.created.length, again.updated.length, again.planned.length], [0, 0, 0], JSON.stringify(again.planned));
  });

  test('a projection that a new core replaced the old one during leaves nothing for a re-run', async () => {
    const api = await testApi();
    const list = mirroredFiles();
    editBodies(list, 'second');
    await modelReads(api, list);
    const synced = new Map(list.map((f) => [f, fs.readFileSync(f, 'utf8')]));
    // The watcher holds what it hears for 5 s: the new core knows the mirrors only if the run tells it.
    const config = vscode.workspace.getConfiguration('waymark');
    await config.update('watcher.debounceMs', 5000, vscode.ConfigurationTarget.Global);
    try {
      const run = vscode.commands.executeCommand<Report[]>('waymark.projectTickets', { quiet: true });
      // Once the first mirror is written, a new core replaces the one the projection writes through.
      await waitFor('the first mirror written', () => list.some((f) => fs.readFileSync(f, 'utf8') !== synced.get(f)) || undefined, 20_000);
      await api.reconfigure();
      const first = (await run)![0];
      assert.equal(first.updated.length, list.length, JSON.stringify(first));
      const written = list.filter((f) => fs.readFileSync(f, 'utf8') !== synced.get(f)).length;
      assert.equal(written, list.length, 'every mirror written');
      const again = (await vscode.commands.executeCommand<Report[]>('waymark.projectTickets', { quiet: true }))![0];
      assert.deepEqual([again.created.length, again.updated.length, again.planned.length], [0, 0, 0], JSON.stringify(again.planned));
    } finally {
      await config.update('watcher.debounceMs', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('the dashboard shows the breaker: closed, then open until … with the failure and the queue after Project to tickets against a tracker that is down; a breaker file changed outside follows', async () => {
    const api = await testApi();
    const last = () => {
      const d = api.dashboard();
      const p = d.paints[d.paints.length - 1] as DashboardPaint | undefined;
      return d.model && p && p.version === d.version ? { m: d.model as DashboardModel, p } : undefined;
    };
    // A GitHub tracker on a port nothing listens on; one failure opens the breaker for ten minutes.
    const env = { url: process.env.WAYMARK_GITHUB_API_URL, token: process.env.WAYMARK_GITHUB_TOKEN };
    process.env.WAYMARK_GITHUB_API_URL = `http://127.0.0.1:${await closedPort()}`;
    process.env.WAYMARK_GITHUB_TOKEN = 'test-token';
    fs.rmSync(demo('.waymark/outbox'), { recursive: true, force: true });
    fs.writeFileSync(config, `${configBefore ?? ''}\ntracker:\n  store: github\n  owner: acme\n  repo: app\n  breaker: { failures: 1, halfOpenAfterMs: 600000, timeoutMs: 2000, retries: 0 }\n`);
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('waymark.openDashboard');
      const closed = await waitFor('the tracker on the dashboard, closed', async () => {
        const x = last();
        return x?.m.tracker.length === 1 && x.m.tracker[0].store === 'github' && x.m.tracker[0].state === 'closed' ? x : undefined;
      }, 30_000);
      assert.match(closed.p.text, /Tickets[\s\S]*github \(github\)[\s\S]*breaker closed[\s\S]*0 failures · 0 changes queued/);
      assert.match(closed.p.text, /Project to tickets/);
      // The button runs waymark.projectTickets (the same command as the status bar item).
      const acted = api.dashboard().actions.length;
      if (!(await clickWebview('[data-action="projectTickets"]'))) await vscode.commands.executeCommand('waymark.projectTickets', { quiet: true });
      const open = await waitFor('the open breaker on the dashboard', async () => {
        const x = last();
        return x?.m.tracker[0]?.state === 'open' ? x : undefined;
      }, 30_000);
      const t = open.m.tracker[0];
      assert.equal(t.failures, 1);
      assert.ok(t.queued > 0, `queued: ${t.queued}`);
      assert.ok(t.lastError, 'the last error is shown');
      assert.match(open.p.text, /breaker open until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      assert.match(open.p.text, new RegExp(`1 failure · ${t.queued} changes? queued`));
      assert.match(open.p.text, /last error: /);
      assert.match(open.p.text, /1 store unavailable: changes queue in \.waymark\/outbox/);
      const a = api.dashboard().actions.slice(acted).find((x) => x.action === 'projectTickets');
      if (a) assert.equal(a.ok, true, a.message);
      await sleep(300);
      await screenshot('dashboard-tracker');
      // Outside the editor (the CLI, a hook) the breaker state goes away: the watcher brings it in.
      fs.rmSync(demo('.waymark/outbox/breaker.json'));
      const reset = await waitFor('the breaker file change on the dashboard', async () => {
        const x = last();
        return x?.m.tracker[0]?.state === 'closed' ? x : undefined;
      }, 20_000);
      assert.equal(reset.m.tracker[0].lastError, null);
      assert.equal(reset.m.tracker[0].queued, t.queued, 'the outbox still holds the queued changes');
    } finally {
      if (env.url === undefined) delete process.env.WAYMARK_GITHUB_API_URL;
      else process.env.WAYMARK_GITHUB_API_URL = env.url;
      if (env.token === undefined) delete process.env.WAYMARK_GITHUB_TOKEN;
      else process.env.WAYMARK_GITHUB_TOKEN = env.token;
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});

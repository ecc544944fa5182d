// The ticket projection in a real VS Code: a git ticket store is configured for the demo
// workspace, the command `Waymark: Project Workflows to Tickets` sends every workflow to it
// (real git), the tracker block lands in the workflow files without a history line, and a
// second run sends nothing. Everything the suite changed is put back in teardown.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import { demo, ready, singleRoot, waitFor } from '../helpers';

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
    fs.writeFileSync(config, `${configBefore ?? ''}\ntracker:\n  store: git\n  repo: ${repo}\n  allowOutside: true\n`);
  });

  suiteTeardown(() => {
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
});

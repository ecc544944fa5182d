// The ticket projection's costs. (1) A local mutation with the tracker down (server stopped,
// breaker open) against the same mutation with no tracker configured, interleaved in one run:
// mutations never call the projector, so the two must be equal within noise. (2) Projecting
// 1,000 workflows to the git ticket store (files + one real git commit), floor 10 s; and the
// re-run that finds nothing changed.
// Options: --ops N (default 200), --items N (default 1000).
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createStateCore, openStore, runProjection, trackerSetup, type Scope, type StateCore } from '../src/core/index';
import { arg, median } from './lib';

function wf(i: number, deps = ''): string {
  return `---\nworkflow: w${i}\ntitle: Work item ${i}\nstatus: ${i % 3 === 0 ? 'in_progress' : 'created'}\nsteps: [plan, build, ship]\nstepsCompleted: []\nscope: small\n${deps}---\n# Work item ${i}\n\n${'Some text of the artifact. '.repeat(20)}\n`;
}

function workspace(n: number, config: string, deps = false): { root: string; files: string[] } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-tickets-')));
  fs.mkdirSync(path.join(root, '.waymark'));
  fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), config);
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const f = path.join(root, `w${String(i).padStart(4, '0')}.md`);
    fs.writeFileSync(f, wf(i, deps && i % 10 !== 0 ? `dependsOn: [w${i - 1}]\n` : ''));
    files.push(f);
  }
  return { root, files };
}

/** A port nothing listens on (the tracker is down). */
async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

// allowOutside: the folders a user-level setting lets the ticket store be written in outside the
// workspace (the bench's tracker repository is a temporary folder of its own, as a user's would be).
async function project(core: StateCore, root: string, apiUrl?: string, allowOutside?: readonly string[]) {
  const setup = trackerSetup((await core.contextFor(path.join(root, 'x'))).config)!;
  const store = await openStore(root, setup.defaultStore, setup.stores.get(setup.defaultStore)!, { token: 'bench', apiUrl, allowOutside });
  return runProjection({ core, root, store, isDefault: true, breaker: setup.breaker });
}

async function main(): Promise<void> {
  const ops = arg('ops', 200);
  const items = arg('items', 1000);
  const cleanup: string[] = [];
  try {
    // (1) Mutations: no tracker vs tracker down with its breaker open.
    const plain = workspace(50, 'version: 1\n');
    const down = workspace(50, 'tracker:\n  store: github\n  owner: acme\n  repo: app\n  breaker: { failures: 1, retries: 0, timeoutMs: 500, halfOpenAfterMs: 600000 }\n');
    cleanup.push(plain.root, down.root);
    const apiUrl = `http://127.0.0.1:${await deadPort()}`;
    const corePlain = createStateCore({ roots: [plain.root], actor: 'bench', memory: false });
    const coreDown = createStateCore({ roots: [down.root], actor: 'bench', memory: false });
    await corePlain.scan();
    await coreDown.scan();
    const t0 = process.hrtime.bigint();
    const first = await project(coreDown, down.root, apiUrl);
    const firstMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const t1 = process.hrtime.bigint();
    const again = await project(coreDown, down.root, apiUrl);
    const openMs = Number(process.hrtime.bigint() - t1) / 1e6;
    if (first.breaker.state !== 'open' || !again.outage) throw new Error(`the breaker did not open: ${JSON.stringify(first.breaker)}`);
    const scopes: Scope[] = ['micro', 'large', 'medium', 'epic'];
    for (let i = 0; i < 10; i++) {
      await corePlain.setScope(plain.files[i], scopes[i % 4]);
      await coreDown.setScope(down.files[i], scopes[i % 4]);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < ops; i++) {
      const scope = scopes[(i + 1) % 4];
      const order = i % 2 ? [[corePlain, plain, a], [coreDown, down, b]] as const : [[coreDown, down, b], [corePlain, plain, a]] as const;
      for (const [core, ws, out] of order) {
        const s = process.hrtime.bigint();
        await core.setScope(ws.files[i % ws.files.length], scope);
        out.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }
    const ma = median(a);
    const mb = median(b);
    console.log(`tickets.mutate_no_tracker_median_ms ${ma.toFixed(2)}`);
    console.log(`tickets.mutate_tracker_down_median_ms ${mb.toFixed(2)}`);
    console.log(`tickets.mutate_down_vs_none_ratio ${(mb / ma).toFixed(2)} (peer: 1.00 = no tracker; within noise ${Math.abs(mb / ma - 1) < 0.25 ? 'met' : 'MISSED'})`);
    console.log(`tickets.project_first_failure_ms ${firstMs.toFixed(0)} (tracker down: one refused connection opens the breaker, ${first.queued} queued)`);
    console.log(`tickets.project_breaker_open_ms ${openMs.toFixed(0)} (breaker open: queued without a call)`);
    corePlain.dispose();
    coreDown.dispose();

    // (2) 1,000 items to the git store.
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-ticket-repo-')));
    cleanup.push(repo);
    execFileSync('git', ['init', '-q', repo]);
    const big = workspace(items, `tracker:\n  store: git\n  repo: ${repo}\n`, true);
    cleanup.push(big.root);
    const core = createStateCore({ roots: [big.root], actor: 'bench', memory: false });
    const s0 = process.hrtime.bigint();
    const r = await project(core, big.root, undefined, [repo]);
    const fullS = Number(process.hrtime.bigint() - s0) / 1e9;
    if (r.created.length !== items) throw new Error(`created ${r.created.length} of ${items}`);
    const s1 = process.hrtime.bigint();
    const r2 = await project(core, big.root, undefined, [repo]);
    const noopS = Number(process.hrtime.bigint() - s1) / 1e9;
    if (r2.planned.length) throw new Error(`re-run planned ${r2.planned.length}`);
    console.log(`tickets.project_git_items ${items}`);
    console.log(`tickets.project_git_s ${fullS.toFixed(2)} (floor 10 s: ${fullS < 10 ? 'met' : 'MISSED'})`);
    console.log(`tickets.project_git_unchanged_s ${noopS.toFixed(2)}`);
    core.dispose();
  } finally {
    for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Runs the extension-host suite (test/integration/suite) inside a real VS Code: code-server's
// workbench and Node extension host, driven by Debian's Chromium through playwright-core.
// Installs what is missing, builds, copies the demo workspace to a temp folder, relays the
// host's log, takes the screenshots the suite asks for, prints `N passed, N failed`, and exits
// non-zero on any failure, timeout or crash. Every wait is bounded.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { REPO, build, copyWorkspace, ensureAll, fixtureWorkspace, log, startCodeServer } from './vscodeServer.mjs';

const TOTAL_TIMEOUT_MS = Number(process.env.WAYMARK_IT_TIMEOUT_MS ?? 10 * 60_000);
const SCREENSHOTS = join(REPO, 'test-results', 'screenshots');
const verbose = process.argv.includes('--verbose') || process.env.WAYMARK_IT_VERBOSE === '1';
const skipBuild = process.argv.includes('--no-build');
// --bench: the speed suite (test/integration/suite/y_bench.test.ts) on a generated workspace.
const bench = process.argv.includes('--bench');
const BENCH_FILES = Number(process.env.WAYMARK_BENCH_FILES ?? 10_000);

/** A workspace of `n` workflow files with ~20-line frontmatter each. */
function generateWorkspace(n) {
  const base = mkdtempSync(join(tmpdir(), 'waymark-bench-'));
  const folder = join(base, 'bench');
  mkdirSync(join(folder, '.waymark'), { recursive: true });
  mkdirSync(join(folder, 'work'), { recursive: true });
  writeFileSync(join(folder, '.waymark', 'config.yaml'), 'workflows:\n  - "work/**/*.md"\n');
  const steps = ['discovery', 'design', 'build', 'verify', 'release'];
  for (let i = 0; i < n; i++) {
    const done = i % 5;
    const text = [
      '---',
      `workflow: wf-${i % 50}`,
      `title: "Generated workflow ${i}"`,
      `status: ${done === 0 ? 'created' : 'in_progress'}`,
      'scope: small',
      `steps: [${steps.join(', ')}]`,
      `currentStep: ${steps[done]}`,
      `stepsCompleted: [${steps.slice(0, done).join(', ')}]`,
      `session: s-${i % 7}`,
      `updatedAt: 2026-11-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`,
      'owner: bench',
      'labels:',
      '  - generated',
      '  - bench',
      `priority: ${i % 3}`,
      `estimate: ${i % 13}`,
      'notes: >-',
      '  A generated workflow for measuring',
      '  the extension in a real host.',
      'reviewers: [ana, ben]',
      '---',
      '',
      `# Workflow ${i}`,
      '',
      'Body text.',
      '',
    ].join('\n');
    writeFileSync(join(folder, 'work', `w${String(i).padStart(5, '0')}.md`), text);
  }
  return { base, folder };
}

const started = Date.now();
let server;
let browser;
let workspace;
let result; // { passed, failed } from the suite's closing line
let exitCode;
let suiteCopy;
let restrictedServer;

async function main() {
  const chromiumPath = ensureAll();
  if (!skipBuild) build({ tests: true });
  const built = join(REPO, 'dist-test', 'integration', 'suite');
  if (!existsSync(join(built, 'index.js'))) throw new Error(`${built}/index.js missing: the suite was not built`);
  // A private copy: another build (npm run test:unit) may wipe dist-test/ while the suite runs.
  // It stays inside the repo so `require('mocha')` resolves from node_modules.
  suiteCopy = join(REPO, '.vscode-test', `suite-${process.pid}`);
  rmSync(suiteCopy, { recursive: true, force: true });
  cpSync(built, suiteCopy, { recursive: true });
  const index = join(suiteCopy, 'index.js');

  workspace = bench ? generateWorkspace(BENCH_FILES) : copyWorkspace(fixtureWorkspace(), 'demo');
  if (bench) log(`bundle dist/extension.js: ${(statSync(join(REPO, 'dist', 'extension.js')).size / 1024).toFixed(0)} KB; ${BENCH_FILES} generated workflow files`);
  // A second pass opens a multi-root workspace: a fresh copy of the demo plus a small folder.
  let multiRoot;
  if (!bench && !process.argv.includes('--single')) {
    const demo2 = join(workspace.base, 'multi', 'demo');
    cpSync(fixtureWorkspace(), demo2, { recursive: true });
    const ops = join(workspace.base, 'multi', 'ops');
    cpSync(join(REPO, 'test', 'integration', 'workspace'), ops, { recursive: true });
    multiRoot = join(workspace.base, 'multi', 'waymark.code-workspace');
    writeFileSync(multiRoot, JSON.stringify({ folders: [{ path: 'demo' }, { path: 'ops' }] }, null, 2));
  }
  // The suite and this runner meet in this folder: the suite asks for a screenshot with a log
  // line and waits for `<name>.done` here.
  const signals = join(workspace.base, 'signals');
  mkdirSync(signals, { recursive: true });
  rmSync(SCREENSHOTS, { recursive: true, force: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  log(`workspace ${workspace.folder}`);

  server = await startCodeServer({
    folder: workspace.folder,
    base: workspace.base,
    onOutput: (line) => verbose && log(`code-server: ${line}`),
    env: { WAYMARK_TEST_SIGNALS: signals, ...(bench ? { WAYMARK_IT_BENCH: '1', WAYMARK_IT_GREP: '^bench ' } : {}) },
  });
  log(`code-server ready at ${server.url} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    timeout: 60_000,
  });
  const passes = [{ label: 'single folder', query: `folder=${encodeURIComponent(workspace.folder)}` }];
  if (!bench && multiRoot) passes.push({ label: 'multi-root', query: `workspace=${encodeURIComponent(multiRoot)}` });
  if (!bench && !process.argv.includes('--single')) passes.push({ label: 'restricted mode (untrusted folder)', restricted: true });
  let code = 0;
  for (const pass of passes) {
    log(`pass: ${pass.label}`);
    let srv = server;
    let query = pass.query;
    if (pass.restricted) {
      // Its own code-server: workspace trust on, a fresh copy of the demo, never trusted.
      const folder = join(workspace.base, 'restricted', 'demo');
      cpSync(fixtureWorkspace(), folder, { recursive: true });
      restrictedServer = await startCodeServer({
        folder,
        base: workspace.base,
        restricted: true,
        onOutput: (line) => verbose && log(`code-server (restricted): ${line}`),
        env: { WAYMARK_TEST_SIGNALS: signals },
      });
      srv = restrictedServer;
      query = `folder=${encodeURIComponent(folder)}`;
    }
    const r = await runPage(srv, query, index, signals);
    if (r.result) {
      result = { passed: (result?.passed ?? 0) + r.result.passed, failed: (result?.failed ?? 0) + r.result.failed };
    } else {
      log(`the ${pass.label} pass ended without reporting its results`);
      result = { passed: result?.passed ?? 0, failed: (result?.failed ?? 0) + 1 };
    }
    if (r.code !== 0) code = r.code || 1;
  }
  return code;
}

async function runPage(server, query, index, signals) {
  let pageResult;
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  page.setDefaultTimeout(30_000);

  let settle;
  const exited = new Promise((res) => (settle = res));
  const screenshotQueue = [];
  let shooting = Promise.resolve();

  const shoot = (name) => {
    shooting = shooting.then(async () => {
      const file = join(SCREENSHOTS, `${name.replace(/[^a-z0-9-]/gi, '_')}.png`);
      try {
        await page.waitForTimeout(400); // let the workbench paint after the suite's last command
        await page.screenshot({ path: file, timeout: 20_000 });
        log(`screenshot ${file}`);
      } catch (e) {
        log(`screenshot ${name} failed: ${e.message}`);
      } finally {
        writeFileSync(join(signals, `${name}.done`), '');
      }
    });
    screenshotQueue.push(shooting);
  };

  // The suite can ask for a pane to be resized by dragging the sash above a view's header
  // (the extension API cannot size views): `[waymark-resize] <id> <view title> <dy>`.
  const resize = (id, title, dy) => {
    shooting = shooting.then(async () => {
      try {
        if (title === 'sidebar') {
          const side = await page.locator('.part.sidebar').first().boundingBox({ timeout: 5000 });
          if (side) {
            const x = side.x + side.width - 1;
            const y = side.y + side.height / 2;
            await page.mouse.move(x, y);
            await page.mouse.down();
            await page.mouse.move(x + dy / 2, y, { steps: 5 });
            await page.mouse.move(x + dy, y, { steps: 5 });
            await page.mouse.up();
          }
          return;
        }
        const header = page.locator('.pane-header', { hasText: title }).first();
        const box = await header.boundingBox({ timeout: 5000 });
        if (box) {
          const x = box.x + box.width / 2;
          const y = box.y - 1;
          await page.mouse.move(x, y);
          await page.mouse.down();
          await page.mouse.move(x, y + dy / 2, { steps: 5 });
          await page.mouse.move(x, y + dy, { steps: 5 });
          await page.mouse.up();
        }
      } catch (e) {
        log(`resize ${title} failed: ${e.message}`);
      } finally {
        writeFileSync(join(signals, `${id}.done`), '');
      }
    });
  };

  const onLine = (line) => {
    const shot = /\[waymark-screenshot\] ([\w-]+)/.exec(line);
    if (shot) return shoot(shot[1]);
    const rs = /\[waymark-resize\] ([\w-]+) (.+) (-?\d+)$/.exec(line);
    if (rs) return resize(rs[1], rs[2], Number(rs[3]));
    const res = /\[waymark-result\] (\{.*\})/.exec(line);
    if (res) {
      try { pageResult = JSON.parse(res[1]); } catch { /* printed below anyway */ }
    }
    if (/getaddrinfo ENOTFOUND open-vsx\.org/.test(line)) return;
    if (line.includes('[waymark-bench]')) {
      const m = /\[waymark-bench\] (\{.*\})/.exec(line);
      if (m) {
        try {
          const b = JSON.parse(m[1]);
          const extra = Object.entries(b).filter(([k]) => !['name', 'value', 'unit'].includes(k)).map(([k, v]) => `${k} ${v}`).join(', ');
          return process.stdout.write(`  ${b.name}: ${b.value} ${b.unit}${extra ? ` (${extra})` : ''}\n`);
        } catch { /* fall through */ }
      }
    }
    if (verbose || line.includes('[waymark-test]') || /\bError\b|FAIL|✗/.test(line)) process.stdout.write(`${line}\n`);
  };

  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const parts = Array.isArray(args) ? args : [args];
    const text = parts.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
    for (const line of text.split('\n')) onLine(line);
  });
  await page.exposeFunction('codeAutomationExit', (code) => settle(Number(code)));
  page.on('crash', () => settle(70));
  page.on('pageerror', (e) => verbose && log(`page error: ${e.message}`));

  const payload = [
    ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${REPO}`],
    ['extensionTestsPath', `vscode-remote://127.0.0.1:${server.port}${index}`],
    ['skipWelcome', 'true'],
  ];
  const url = `${server.url}/?${query}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });

  const remaining = TOTAL_TIMEOUT_MS - (Date.now() - started);
  const timeout = new Promise((res) => setTimeout(() => res('timeout'), Math.max(remaining, 10_000)).unref());
  const code = await Promise.race([exited, timeout]);
  await Promise.race([Promise.allSettled(screenshotQueue), new Promise((r) => setTimeout(r, 20_000))]);
  if (code === 'timeout') {
    await page.screenshot({ path: join(SCREENSHOTS, 'timeout.png') }).catch(() => {});
    throw new Error(`the suite did not finish within ${TOTAL_TIMEOUT_MS / 1000} s`);
  }
  await page.close().catch(() => {});
  return { code, result: pageResult };
}

async function shutdown() {
  await browser?.close().catch(() => {});
  await server?.stop().catch(() => {});
  await restrictedServer?.stop().catch(() => {});
  if (workspace && !process.env.WAYMARK_IT_KEEP) rmSync(workspace.base, { recursive: true, force: true });
  if (suiteCopy) rmSync(suiteCopy, { recursive: true, force: true });
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    log(`${sig}: shutting down`);
    void shutdown().finally(() => process.exit(130));
  });
}

try {
  exitCode = await main();
} catch (e) {
  log(`integration run failed: ${e?.stack ?? e}`);
  exitCode = 1;
} finally {
  await shutdown();
}
const passed = result?.passed ?? 0;
const failed = result?.failed ?? (exitCode === 0 ? 0 : 1);
if (exitCode === 0 && !result) {
  log('the suite exited without reporting its results');
  exitCode = 1;
}
if (exitCode === 0 && failed > 0) exitCode = 1;
if (exitCode === 0 && passed === 0) {
  log('no test ran');
  exitCode = 1;
}
log(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${SCREENSHOTS}`);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(exitCode);

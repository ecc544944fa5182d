// Runs the extension-host suite (test/integration/suite) inside a real VS Code: code-server's
// workbench and Node extension host, driven by Debian's Chromium through playwright-core.
// Installs what is missing, builds, copies the demo workspace to a temp folder, relays the
// host's log, takes the screenshots the suite asks for, prints `N passed, N failed`, and exits
// non-zero on any failure, timeout or crash. Every wait is bounded.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium } from 'playwright-core';
import { REPO, build, copyWorkspace, ensureAll, fixtureWorkspace, freePort, log, startCodeServer } from './vscodeServer.mjs';

// Each pass (its code-server start, page load and suite) must finish within this.
const PASS_TIMEOUT_MS = Number(process.env.WAYMARK_IT_TIMEOUT_MS ?? 8 * 60_000);
const SCREENSHOTS = join(REPO, 'test-results', 'screenshots');
// Shots are taken into a folder of this run's own and moved to SCREENSHOTS at the end, so a
// run started meanwhile (another `npm test` in the same tree) never wipes them half-way.
const SHOTS = join(REPO, 'test-results', `.screenshots-${process.pid}`);
let fullRun = true;
const verbose = process.argv.includes('--verbose') || process.env.WAYMARK_IT_VERBOSE === '1';
const skipBuild = process.argv.includes('--no-build');
// --bench: the speed suite (test/integration/suite/y_bench.test.ts) on a generated workspace, and
// the first tree as a person who left the Waymark view open sees it ("view restored", no tests).
const bench = process.argv.includes('--bench');
const BENCH_FILES = Number(process.env.WAYMARK_BENCH_FILES ?? 10_000);
// Its first pass is the floor of the first tree: the same measurement in a workspace of this many files.
const BENCH_FLOOR_FILES = 10;

/** Generated workspaces' folders, removed on shutdown. */
const generated = [];

/** A workspace of `n` workflow files with ~20-line frontmatter each. */
function generateWorkspace(n) {
  const base = mkdtempSync(join(tmpdir(), 'waymark-bench-'));
  generated.push(base);
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

/** --bench: each pass's first tree (ms): VS Code has our rows, the row on screen, page opened → activation. */
const firstTrees = new Map();

function printFirstTrees() {
  const ms = (v) => (v === undefined ? '–' : `${Math.round(v)} ms`);
  const line = (id) => {
    const f = firstTrees.get(id);
    return f ? `VS Code has our rows ${ms(f.rows)}, first row on screen ${ms(f.screen)} (VS Code's start before us ${ms(f.start)})` : 'not run';
  };
  process.stdout.write('  first tree, activation began → (summary):\n');
  process.stdout.write(`    view restored at start (what a person who left the view open sees), ${BENCH_FILES} files: ${line('restored')}\n`);
  process.stdout.write(`    view restored at start, ${BENCH_FLOOR_FILES} files: ${line('restored-floor')}\n`);
  process.stdout.write(`    old figure (the suite opens the view when it loads, its load inside), ${BENCH_FILES} files: ${line('single')}\n`);
  process.stdout.write(`    old figure, ${BENCH_FLOOR_FILES} files: ${line('floor')}\n`);
}

const started = Date.now();
let browser;
let workspace;
let result; // { passed, failed } summed over the passes' closing lines
let exitCode;
let suiteCopy;
/** Servers still running, stopped on shutdown whatever happens. */
const servers = new Set();

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
  const floorWorkspace = bench ? generateWorkspace(BENCH_FLOOR_FILES) : undefined;
  if (bench) log(`bundle dist/extension.js: ${(statSync(join(REPO, 'dist', 'extension.js')).size / 1024).toFixed(0)} KB; ${BENCH_FILES} generated workflow files`);
  log(`workspace ${workspace.folder}`);

  // Each pass is isolated: its own copy of the workspace, its own code-server (port, user-data
  // and extensions folders, extension host), its own browser context (fresh storage) and its
  // own signals folder. A pass's server is stopped before the next one starts.
  const passes = [{ id: 'single', label: 'single folder', open: () => ({ target: workspace.folder, query: `folder=${encodeURIComponent(workspace.folder)}` }) }];
  if (floorWorkspace) {
    const openFloor = () => ({ target: floorWorkspace.folder, query: `folder=${encodeURIComponent(floorWorkspace.folder)}` });
    passes.unshift({ id: 'floor', label: `floor (${BENCH_FLOOR_FILES} files)`, env: { WAYMARK_BENCH_FLOOR: '1' }, open: openFloor });
    // The same two workspaces with the Waymark view open from VS Code's start (restored, as VS Code
    // restores a view a person left open): activation → our rows with no test suite loading between.
    passes.splice(1, 0, { id: 'restored-floor', label: `floor (${BENCH_FLOOR_FILES} files), view restored`, restored: true, env: { WAYMARK_BENCH_FLOOR: '1' }, open: openFloor });
    passes.push({ id: 'restored', label: 'single folder, view restored', restored: true, open: passes[passes.length - 1].open });
  }
  if (!bench && !process.argv.includes('--single')) {
    passes.push({
      id: 'multi',
      label: 'multi-root',
      // A .code-workspace with a fresh copy of the demo plus a small second folder.
      open: () => {
        const dir = join(workspace.base, 'multi');
        cpSync(fixtureWorkspace(), join(dir, 'demo'), { recursive: true });
        cpSync(join(REPO, 'test', 'integration', 'workspace'), join(dir, 'ops'), { recursive: true });
        const file = join(dir, 'waymark.code-workspace');
        writeFileSync(file, JSON.stringify({ folders: [{ path: 'demo' }, { path: 'ops' }] }, null, 2));
        return { target: file, query: `workspace=${encodeURIComponent(file)}` };
      },
    });
    passes.push({
      id: 'restricted',
      label: 'restricted mode (untrusted folder)',
      // Workspace trust on, a fresh copy of the demo, never trusted.
      restricted: true,
      open: () => {
        const folder = join(workspace.base, 'restricted', 'demo');
        cpSync(fixtureWorkspace(), folder, { recursive: true });
        return { target: folder, query: `folder=${encodeURIComponent(folder)}` };
      },
    });
  }

  // --pass <id>[,<id>]: run only these passes (single, multi, restricted; with --bench floor,
  // restored-floor, single, restored), e.g. to repeat one.
  const only = process.argv.includes('--pass') ? process.argv[process.argv.indexOf('--pass') + 1]?.split(',') : undefined;
  if (only) {
    const unknown = only.filter((id) => !passes.some((p) => p.id === id));
    if (unknown.length) throw new Error(`--pass: unknown pass ${unknown.join(', ')} (one of ${passes.map((p) => p.id).join(', ')})`);
    passes.splice(0, passes.length, ...passes.filter((p) => only.includes(p.id)));
  }
  fullRun = !only;
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    timeout: 60_000,
  });
  let code = 0;
  for (const pass of passes) {
    const passStarted = Date.now();
    log(`pass: ${pass.label}`);
    const signals = join(workspace.base, 'signals', pass.id);
    mkdirSync(signals, { recursive: true });
    let r;
    let server;
    try {
      const { target, query } = pass.open();
      const options = {
        folder: target,
        base: workspace.base,
        name: pass.id,
        restricted: !!pass.restricted,
        onOutput: (line) => verbose && log(`code-server (${pass.id}): ${line}`),
        env: { WAYMARK_TEST_SIGNALS: signals, ...(bench ? { WAYMARK_IT_BENCH: '1', WAYMARK_IT_GREP: '^bench ' } : {}), ...pass.env },
      };
      if (pass.restored) {
        // The same port (the browser keeps the workbench's state per origin), user-data and
        // extensions folders for both launches; one browser context (its storage) for both.
        options.port = await freePort();
        const context = await browser.newContext({ viewport: VIEWPORT });
        try {
          await primeView(options, query, target, context);
          server = await startCodeServer(options);
          servers.add(server);
          log(`code-server ready again at ${server.url}: the measured launch, the view restored`);
          r = await measureRestored(server, query, pass.id, context);
        } finally {
          await context.close().catch(() => {});
        }
      } else {
        server = await startCodeServer(options);
        servers.add(server);
        log(`code-server ready at ${server.url} (${((Date.now() - passStarted) / 1000).toFixed(1)} s)`);
        r = await runPage(server, query, index, signals, pass.id);
      }
    } catch (e) {
      log(`the ${pass.label} pass failed: ${e?.stack ?? e}`);
      r = { code: 1 };
    } finally {
      if (server) {
        await server.stop().catch(() => {});
        servers.delete(server);
      }
    }
    if (r.result) {
      result = { passed: (result?.passed ?? 0) + r.result.passed, failed: (result?.failed ?? 0) + r.result.failed };
    } else {
      log(`the ${pass.label} pass ended without reporting its results`);
      result = { passed: result?.passed ?? 0, failed: (result?.failed ?? 0) + 1 };
    }
    log(`pass ${pass.label}: ${r.result ? `${r.result.passed} passed, ${r.result.failed} failed` : 'no results'} in ${((Date.now() - passStarted) / 1000).toFixed(1)} s`);
    if (r.code !== 0) code = typeof r.code === 'number' && r.code ? r.code : 1;
    if (r.firstTree) firstTrees.set(pass.id, r.firstTree);
  }
  if (bench) printFirstTrees();
  return code;
}

/**
 * Waits (at most 5 s) until what the workbench shows stops changing: two reads of its text
 * 300 ms apart agree. Under load a view can be caught half-way through re-rendering a refresh.
 */
async function settled(page) {
  const read = () => page.evaluate(() => [...document.querySelectorAll('.part.sidebar, .part.editor, .part.panel, .part.statusbar')].map((e) => e.innerText).join('\n')).catch(() => '');
  const deadline = Date.now() + 5000;
  let last = await read();
  for (;;) {
    await page.waitForTimeout(300);
    const now = await read();
    if (now === last || Date.now() > deadline) return;
    last = now;
  }
}

const VIEWPORT = { width: 1400, height: 860 };

/**
 * The launch before a "view restored" one: VS Code starts on the folder with the extension (no
 * tests), a person clicks Waymark in the activity bar, the Workflows view shows, and the window is
 * closed and code-server stopped. The workbench keeps the view container that was open in its
 * workspace storage (the browser's, per origin), so the next launch on the same port, user-data
 * folder and browser context restores it at start. What that launch's extension wrote in the
 * workspace (the scan index) is removed: the measured launch scans as cold as the first one.
 * Runs in `context` (the measured launch's).
 */
async function primeView(options, query, folder, context) {
  const server = await startCodeServer(options);
  servers.add(server);
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const payload = [
      ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${REPO}`],
      ['skipWelcome', 'true'],
    ];
    await page.goto(`${server.url}/?${query}&payload=${encodeURIComponent(JSON.stringify(payload))}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    const item = page.locator('.part.activitybar .action-item a[aria-label^="Waymark"], .part.activitybar .action-item [aria-label^="Waymark"]').first();
    await item.click({ timeout: 60_000 });
    await page.locator('.part.sidebar .pane-header', { hasText: 'Workflows' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    await page.locator('.part.sidebar .monaco-list-row').first().waitFor({ state: 'visible', timeout: 60_000 });
    // The workbench writes its state to the browser's storage on a delay and when the window closes.
    await page.waitForTimeout(1500);
    await page.close({ runBeforeUnload: true });
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await server.stop().catch(() => {});
    servers.delete(server);
  }
  rmSync(join(folder, '.waymark', 'cache'), { recursive: true, force: true });
  log('primed: the Waymark view was opened and the window closed; the scan index it wrote removed');
}

/** Records (window.__waymarkFirstRow.at, wall clock) when the Workflows view's first workflow row (level 2) reaches the page. */
async function watchFirstRow(page) {
  await page.addInitScript(() => {
    if (window.top !== window) return;
    const seen = (window.__waymarkFirstRow = {});
    const observer = new MutationObserver(() => {
      for (const pane of document.querySelectorAll('.pane')) {
        if (!/workflows/i.test(pane.querySelector('.pane-header')?.textContent ?? '')) continue;
        if (pane.querySelector('.monaco-list-row[aria-level="2"]')) {
          seen.at = Date.now();
          observer.disconnect();
        }
      }
    });
    observer.observe(document, { childList: true, subtree: true });
  });
}

/** The newest start's log folder of a code-server user-data folder (logs/<start time>/). */
function newestLogs(userDataDir) {
  const dir = join(userDataDir, 'logs');
  const runs = existsSync(dir) ? readdirSync(dir).sort() : [];
  return runs.length ? join(dir, runs[runs.length - 1]) : undefined;
}

/** A log file's lines as [wall-clock ms, text] (VS Code's log lines start `YYYY-MM-DD HH:MM:SS.mmm`). */
function logLines(file) {
  if (!file || !existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').flatMap((line) => {
    const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) (.*)$/.exec(line);
    return m ? [[new Date(`${m[1]}T${m[2]}`).getTime(), m[3]]] : [];
  });
}

/**
 * The measured launch of a "view restored" pass: VS Code starts on the folder with the extension
 * and no test entry (a workbench that runs extension tests keeps its state in memory, so it would
 * not restore the view: checked), exactly as a person starts it. The Waymark view is restored at
 * start; nothing opens it. What the extension logs (`[tree] first workflow rows made …`, the
 * milestones; `[scan] first scan done …`) and when the first row reached the page are the figures.
 * Passes when the view was restored and the rows came.
 */
async function measureRestored(server, query, passId, context) {
  const floor = passId.includes('floor') ? 'floor: ' : '';
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await watchFirstRow(page);
  const payload = [
    ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${REPO}`],
    ['skipWelcome', 'true'],
  ];
  const opened = Date.now();
  await page.goto(`${server.url}/?${query}&payload=${encodeURIComponent(JSON.stringify(payload))}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  const deadline = Date.now() + 180_000;
  let logs;
  let rows;
  let scan;
  let shot = false;
  while (Date.now() < deadline) {
    await page.waitForTimeout(200);
    const screen = await page.evaluate(() => window.__waymarkFirstRow?.at).catch(() => undefined);
    if (screen && !shot) {
      shot = true;
      const file = join(SHOTS, `bench-first-rows-${passId}.png`);
      await page.screenshot({ path: file, timeout: 20_000 }).then(() => log(`screenshot ${join(SCREENSHOTS, basename(file))}`), (e) => log(`screenshot of the first rows failed: ${e.message}`));
    }
    logs = newestLogs(server.userDataDir);
    const lines = logLines(logs && join(logs, 'exthost1', 'waymark.waymark', 'Waymark.log'));
    rows = lines.find(([, text]) => text.includes('[tree] first workflow rows made'));
    scan = lines.find(([, text]) => text.includes('[scan] first scan done'));
    if (rows && scan && screen) break;
  }
  const screenAt = await page.evaluate(() => window.__waymarkFirstRow?.at).catch(() => undefined);
  const sidebar = await page.evaluate(() => document.querySelector('.part.sidebar .composite.title')?.textContent ?? '').catch(() => '');
  const activatedBy = logLines(logs && join(logs, 'exthost1', 'remoteexthost.log')).find(([, text]) => text.includes('_doActivateExtension waymark.waymark'))?.[1].replace(/.*activationEvent: /, '');
  // Closed as a person closes it (the workbench ends its extension host, which then writes a
  // --cpu-prof profile when WAYMARK_CODE_SERVER_NODE_ARGS asks for one).
  await page.close({ runBeforeUnload: true }).catch(() => {});
  await new Promise((r) => setTimeout(r, 3000));
  const failures = [];
  if (!/waymark/i.test(sidebar)) failures.push(`the side bar shows "${sidebar.trim()}", not Waymark: VS Code did not restore the view`);
  if (!rows) failures.push('the extension logged no "[tree] first workflow rows made" line within 180 s');
  let firstTree;
  if (rows) {
    // `[tree] first workflow rows made N ms after activation began (view visible A, …)`
    const made = Number(/rows made (\d+) ms/.exec(rows[1])?.[1]);
    const began = rows[0] - made;
    const milestones = /\((.*)\)\s*$/.exec(rows[1])?.[1] ?? '';
    if (/view visible never/.test(milestones)) failures.push('the Workflows view was never visible');
    const scanMs = scan ? Number(/first scan done (\d+) ms/.exec(scan[1])?.[1]) : undefined;
    firstTree = { rows: made, screen: screenAt ? screenAt - began : undefined, start: began - opened };
    process.stdout.write(`  ${floor}  first tree milestones, view restored (ms since activation began): ${milestones}; rows made ${made}\n`);
    process.stdout.write(`  ${floor}first tree, view restored at start (what a person who left the view open sees): activation began → VS Code has the first workflow rows: ${made} ms (activated by ${activatedBy ?? '?'}, target ≤ 1000 ms)\n`);
    process.stdout.write(`  ${floor}first tree, view restored at start: activation began → first workflow row in the page: ${screenAt ? `${screenAt - began} ms` : 'none seen'}\n`);
    process.stdout.write(`  ${floor}  VS Code's own start before us: page opened → our activation began: ${began - opened} ms; first scan ${scanMs ?? '?'} ms after activation began\n`);
  }
  for (const f of failures) log(`${passId}: ${f}`);
  const passed = failures.length ? 0 : 1;
  process.stdout.write(`[waymark-test] ${passed ? '✓' : '✗'} bench first tree, view restored at start (${passId})\n`);
  return { code: passed ? 0 : 1, result: { passed, failed: 1 - passed }, firstTree };
}

async function runPage(server, query, index, signals, passId) {
  let pageResult;
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);

  let settle;
  const exited = new Promise((res) => (settle = res));
  const screenshotQueue = [];
  let shooting = Promise.resolve();

  const shoot = (name) => {
    shooting = shooting.then(async () => {
      const file = join(SHOTS, `${name.replace(/[^a-z0-9-]/gi, '_')}.png`);
      try {
        await settled(page); // let the workbench paint after the suite's last command
        await page.screenshot({ path: file, timeout: 20_000 });
        log(`screenshot ${join(SCREENSHOTS, basename(file))}`);
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

  // The suite can ask for a click where a user would click: a view's header (to fold or unfold
  // it) or a row of a view (to expand it): `[waymark-click] <id> header <view title>` or
  // `[waymark-click] <id> row <view title> :: <row text>`.
  const click = (id, kind, text) => {
    shooting = shooting.then(async () => {
      try {
        const [title, row] = text.split(' :: ');
        const header = (scope) => scope.locator('.pane-header', { hasText: title });
        const sidebar = page.locator('.part.sidebar');
        const target = kind === 'header' ? header(sidebar).first() : sidebar.locator('.pane', { has: header(page) }).locator('.monaco-list-row', { hasText: row }).first();
        await target.click({ timeout: 10_000 });
        await page.waitForTimeout(300);
      } catch (e) {
        log(`click ${kind} ${text} failed: ${e.message}`);
      } finally {
        writeFileSync(join(signals, `${id}.done`), '');
      }
    });
  };

  // And a click inside a webview (the dashboard): `[waymark-click] <id> webview <css selector>`.
  // Webview content lives in nested iframes: every frame whose URL is a webview's is searched
  // for the selector and the first match is clicked as a user would (mouse, in the frame).
  // `[waymark-click] <id> webview-key <Key> <css selector>` focuses the element and presses the key
  // (keyboard use: Enter or Space on a focused button).
  const clickWebview = (id, selector, key) => {
    shooting = shooting.then(async () => {
      try {
        const deadline = Date.now() + 15_000;
        for (;;) {
          let done = false;
          for (const frame of page.frames()) {
            if (frame === page.mainFrame() || !/webview/i.test(frame.url())) continue;
            const target = frame.locator(selector).first();
            if ((await target.count().catch(() => 0)) === 0) continue;
            await target.scrollIntoViewIfNeeded({ timeout: 5000 }).catch(() => {});
            if (key) {
              await target.focus({ timeout: 10_000 });
              await target.press(key, { timeout: 10_000 });
            } else await target.click({ timeout: 10_000 });
            done = true;
            break;
          }
          if (done) break;
          if (Date.now() > deadline) throw new Error(`no webview frame has ${selector} (frames: ${page.frames().map((f) => f.url().slice(0, 80)).join(', ')})`);
          await page.waitForTimeout(200);
        }
      } catch (e) {
        log(`click webview ${selector} failed: ${e.message}`);
      } finally {
        writeFileSync(join(signals, `${id}.done`), '');
      }
    });
  };

  let activatedAt;
  let hostFirstTree; // the host's figure: activation began → VS Code has our first rows
  const onLine = (line) => {
    const act = /\[waymark-activated-at\] (\d+)/.exec(line);
    if (act) return void (activatedAt = Number(act[1]));
    const wk = /\[waymark-click\] ([\w-]+) webview-key (\S+) (.+)$/.exec(line);
    if (wk) return clickWebview(wk[1], wk[3], wk[2]);
    const wv = /\[waymark-click\] ([\w-]+) webview (.+)$/.exec(line);
    if (wv) return clickWebview(wv[1], wv[2]);
    const cl = /\[waymark-click\] ([\w-]+) (header|row) (.+)$/.exec(line);
    if (cl) return click(cl[1], cl[2], cl[3]);
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
          if (b.firstTree) hostFirstTree = b.value;
          const extra = Object.entries(b).filter(([k]) => !['name', 'value', 'unit', 'firstTree'].includes(k)).map(([k, v]) => `${k} ${v}`).join(', ');
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
  server.child.once('exit', () => settle(71)); // code-server died under the page
  page.on('pageerror', (e) => verbose && log(`page error: ${e.message}`));

  const payload = [
    ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${REPO}`],
    ['extensionTestsPath', `vscode-remote://127.0.0.1:${server.port}${index}`],
    ['skipWelcome', 'true'],
  ];
  // --bench: when the Workflows view's first workflow row (level 2) reaches the page, what a person
  // sees; printed against the host's `[waymark-activated-at]` (both wall clock, one machine).
  if (bench) await watchFirstRow(page);
  const url = `${server.url}/?${query}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const opened = Date.now();
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });

  // --bench: a screenshot of the first workflow rows as they reached the page (polled every 200 ms),
  // while the first scan still runs: what a person sees first.
  let firstShot = false;
  const shootFirst = async () => {
    while (bench && !firstShot) {
      const seen = await page.evaluate(() => window.__waymarkFirstRow?.at).catch(() => undefined);
      if (seen) {
        const file = join(SHOTS, `bench-first-rows-${passId}.png`);
        await page.screenshot({ path: file, timeout: 20_000 }).then(() => log(`screenshot ${join(SCREENSHOTS, basename(file))}`), (e) => log(`screenshot of the first rows failed: ${e.message}`));
        return;
      }
      await page.waitForTimeout(200).catch(() => {});
    }
  };
  const firstShooting = shootFirst();

  let timer;
  const timeout = new Promise((res) => (timer = setTimeout(() => res('timeout'), PASS_TIMEOUT_MS)));
  const code = await Promise.race([exited, timeout]);
  firstShot = true;
  await firstShooting;
  clearTimeout(timer);
  await Promise.race([Promise.allSettled(screenshotQueue), new Promise((r) => setTimeout(r, 20_000).unref())]);
  let firstTree;
  if (bench && activatedAt) {
    const row = await page.evaluate(() => window.__waymarkFirstRow?.at).catch(() => undefined);
    const floor = passId === 'floor' ? 'floor: ' : '';
    process.stdout.write(`  ${floor}first tree (old figure, the suite opens the view): activation began → first workflow row in the page (what a person sees): ${row ? `${row - activatedAt} ms` : 'none seen'}\n`);
    process.stdout.write(`  ${floor}  VS Code's own start before us: page opened → our activation began: ${activatedAt - opened} ms\n`);
    firstTree = { rows: hostFirstTree, screen: row ? row - activatedAt : undefined, start: activatedAt - opened };
  }
  if (code === 'timeout') {
    await page.screenshot({ path: join(SHOTS, `timeout-${passId}.png`), timeout: 20_000 }).catch(() => {});
    log(`the suite did not finish within ${PASS_TIMEOUT_MS / 1000} s (screenshot timeout-${passId}.png)`);
  }
  await context.close().catch(() => {});
  return { code: code === 'timeout' ? 1 : code, result: code === 'timeout' ? undefined : pageResult, firstTree };
}

async function shutdown() {
  await browser?.close().catch(() => {});
  for (const server of servers) await server.stop().catch(() => {});
  if (workspace && !process.env.WAYMARK_IT_KEEP) rmSync(workspace.base, { recursive: true, force: true });
  for (const base of generated) if (!process.env.WAYMARK_IT_KEEP) rmSync(base, { recursive: true, force: true });
  if (suiteCopy) rmSync(suiteCopy, { recursive: true, force: true });
  publishScreenshots();
}

/** A full run replaces test-results/screenshots with its own; --pass adds its shots to them. */
function publishScreenshots() {
  if (!existsSync(SHOTS)) return;
  try {
    if (fullRun) {
      rmSync(SCREENSHOTS, { recursive: true, force: true });
      renameSync(SHOTS, SCREENSHOTS);
    } else {
      mkdirSync(SCREENSHOTS, { recursive: true });
      for (const f of readdirSync(SHOTS)) renameSync(join(SHOTS, f), join(SCREENSHOTS, f));
      rmSync(SHOTS, { recursive: true, force: true });
    }
  } catch (e) {
    log(`could not move the screenshots from ${SHOTS}: ${e.message}`);
  }
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

// `npm start`: builds the extension and opens it in VS Code (code-server on 127.0.0.1) on a
// copy of the demo workspace (examples/demo), printing the URL. Installs what is missing first.
// Options: --port N (default: a free port), --smoke (open the page headless, screenshot it to
// test-results/screenshots/start.png and exit: a check that `npm start` works).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, build, copyWorkspace, ensureAptPackages, ensureCodeServer, ensureRipgrepCache, findChromium, fixtureWorkspace, log, startCodeServer } from './vscodeServer.mjs';

const argv = process.argv.slice(2);
const portArg = argv.indexOf('--port');
const port = portArg >= 0 ? Number(argv[portArg + 1]) : undefined;
const smoke = argv.includes('--smoke');

ensureAptPackages();
ensureRipgrepCache();
ensureCodeServer();
build();

const workspace = copyWorkspace(fixtureWorkspace(), 'demo');
let server;
let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  await server?.stop().catch(() => {});
  rmSync(workspace.base, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    log('stopping');
    void cleanup().then(() => process.exit(0));
  });
}

try {
  server = await startCodeServer({ folder: workspace.folder, base: workspace.base, port, onOutput: (line) => process.env.WAYMARK_VERBOSE && log(`code-server: ${line}`) });
} catch (e) {
  log(`could not start code-server: ${e.message}`);
  await cleanup();
  process.exit(1);
}
const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${REPO}`], ['skipWelcome', 'true']];
const url = `${server.url}/?folder=${encodeURIComponent(workspace.folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;

if (smoke) {
  const { chromium } = await import('playwright-core');
  let code = 0;
  let browser;
  try {
    browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], timeout: 60_000 });
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.locator('.activitybar [aria-label^="Waymark"]').first().click({ timeout: 60_000 });
    await page.getByText('In progress', { exact: false }).first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1500);
    const dir = join(REPO, 'test-results', 'screenshots');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'start.png') });
    log(`npm start works: the Waymark view shows the demo (${join(dir, 'start.png')})`);
  } catch (e) {
    log(`smoke check failed: ${e.message}`);
    code = 1;
  } finally {
    await browser?.close().catch(() => {});
    await cleanup();
  }
  process.exit(code);
}

log(`workspace (a copy of ${fixtureWorkspace()}): ${workspace.folder}`);
process.stdout.write(`\nWaymark is running in VS Code (code-server). Open:\n\n  ${url}\n\nPress Ctrl+C to stop.\n`);
server.child.on('exit', (c) => {
  log(`code-server exited (${c})`);
  void cleanup().then(() => process.exit(c ?? 1));
});

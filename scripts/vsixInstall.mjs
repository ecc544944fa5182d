// The package as a user gets it: builds the linux-x64 VSIX, installs it into a fresh code-server
// (`--install-extension`), opens the demo workspace and checks, as a person would: the Waymark
// views appear, the walkthrough renders, "Install the waymark command" puts a launcher on the
// PATH that answers `waymark --version`, and memory runs on the packaged Kuzu ("ok", not
// degraded). Screenshots go to test-results/screenshots/. Exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CODE_SERVER_BIN, REPO, copyWorkspace, ensureAll, fixtureWorkspace, log, startCodeServer } from './vscodeServer.mjs';

const SHOTS = join(REPO, 'test-results', 'screenshots');
const results = [];
const check = (name, ok, detail = '') => {
  results.push({ name, ok });
  console.log(`${ok ? '✓' : '✗'} installed package: ${name}${detail ? ` (${detail})` : ''}`);
};

async function main() {
  const chromiumPath = ensureAll();
  const base = mkdtempSync(join(tmpdir(), 'waymark-vsix-install-'));
  const home = join(base, 'home');
  mkdirSync(home, { recursive: true });
  let server;
  let browser;
  try {
    const pkg = spawnSync(process.execPath, ['scripts/package.mjs', '--no-build', '--targets', 'linux-x64', '--out', base], { cwd: REPO, encoding: 'utf8' });
    if (pkg.status !== 0) throw new Error(`packaging failed:\n${pkg.stdout}${pkg.stderr}`);
    const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
    const vsix = join(base, `waymark-linux-x64-${version}.vsix`);
    const extensionsDir = join(base, 'extensions-vsix');
    const install = spawnSync(process.execPath, [CODE_SERVER_BIN, '--extensions-dir', extensionsDir, '--user-data-dir', join(base, 'user-data-vsix'), '--install-extension', vsix], { encoding: 'utf8', env: { ...process.env, HOME: home }, timeout: 120_000 });
    const folder = existsSync(extensionsDir) ? readdirSync(extensionsDir).find((n) => n.startsWith(`waymark.waymark-${version}`)) : undefined;
    const installed = install.status === 0 && !!folder && existsSync(join(extensionsDir, folder, 'dist', 'cli.js')) && existsSync(join(extensionsDir, folder, 'dist', 'node_modules', 'kuzu', 'kuzujs.node'));
    check('code-server --install-extension installs the linux-x64 VSIX', installed, installed ? '' : `${install.stdout}${install.stderr}`.trim().split('\n').slice(-3).join(' | '));
    if (!installed) return;

    const ws = copyWorkspace(fixtureWorkspace(), 'vsix');
    server = await startCodeServer({ folder: ws.folder, base, name: 'vsix', env: { HOME: home } });
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'], timeout: 60_000 });
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 860 } })).newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(ws.folder)}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });

    const palette = async (title) => {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor();
      await input.fill(`>${title}`);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15_000 });
      await page.keyboard.press('Enter');
    };

    // The views: the activity bar entry, then the Workflows view listing the demo's files.
    const activity = page.locator('.activitybar .action-item a[aria-label^="Waymark"]').first();
    await activity.waitFor({ timeout: 60_000 });
    await activity.click();
    const row = page.locator('.part.sidebar .monaco-list-row', { hasText: 'auth-refactor' }).first();
    const viewsOk = await row.waitFor({ timeout: 60_000 }).then(() => true, () => false);
    check('the Waymark views appear with the workspace\'s workflows', viewsOk);
    // The Delegation view fills once the first scan is done: shoot the views as a user sees them then.
    const chain = page.locator('.part.sidebar .monaco-list-row', { hasText: 'orchestrator' }).first();
    check('the Delegation view shows the demo\'s chain', await chain.waitFor({ timeout: 60_000 }).then(() => true, () => false));
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'installed-vsix-views.png') });

    // The CLI shipped inside the package, put on the PATH by the extension's own command.
    await palette('Install the `waymark` Command in PATH');
    const launcher = join(home, '.local', 'bin', 'waymark');
    const deadline = Date.now() + 30_000;
    while (!existsSync(launcher) && Date.now() < deadline) await page.waitForTimeout(250);
    const answer = spawnSync('waymark', ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: home, PATH: `${join(home, '.local', 'bin')}:${process.env.PATH}` } });
    check('the installed launcher answers `waymark --version` from the PATH', answer.status === 0 && /^\d+\.\d+\.\d+/.test(answer.stdout), `${launcher}: ${(answer.stdout || answer.stderr || String(answer.error)).trim()}`);

    // Memory on the packaged Kuzu: record one learning, then the status says ok with kuzu.
    const env = { ...process.env, HOME: home, WAYMARK_MEMORY_ENGINE: '' };
    spawnSync(launcher, ['memory', 'record', '--type', 'learning', 'Packaged Kuzu loads', '--root', ws.folder], { encoding: 'utf8', env, cwd: ws.folder });
    const status = spawnSync(launcher, ['memory', 'status', '--json', '--root', ws.folder], { encoding: 'utf8', env, cwd: ws.folder });
    let mem = {};
    try { mem = JSON.parse(status.stdout); } catch { /* reported below */ }
    check('memory is ok on the packaged Kuzu binary (not degraded)', mem.state === 'ok' && mem.engine === 'kuzu', (mem.line ?? status.stderr ?? '').trim());

    // The walkthrough renders.
    await palette('Waymark: Get Started');
    const walk = await page.locator('.gettingStartedContainer', { hasText: 'Get started with Waymark' }).first().waitFor({ timeout: 30_000 }).then(() => true, () => false);
    await page.waitForTimeout(1000);
    await page.screenshot({ path: join(SHOTS, 'walkthrough.png') });
    check('the Getting Started walkthrough renders', walk);
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop().catch(() => {});
    if (!process.env.WAYMARK_KEEP) rmSync(base, { recursive: true, force: true });
  }
}

let code = 0;
try {
  await main();
} catch (e) {
  log(`installed-package check failed: ${e?.stack ?? e}`);
  code = 1;
}
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
if (failed || !results.length) code = 1;
writeFileSync(join(REPO, 'test-results', 'installed-vsix.json'), JSON.stringify(results, null, 2));
process.exit(code);

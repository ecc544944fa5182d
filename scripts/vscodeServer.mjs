// Shared by scripts/integration.mjs and scripts/start.mjs: installs what a fresh machine lacks
// (Debian packages when root, code-server into .vscode-test/, a pre-seeded ripgrep archive),
// builds, and starts code-server on a free port. See ../shared/REAL-VSCODE-TESTS.md.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CODE_SERVER_VERSION = '4.100.3';
export const CODE_SERVER_DIR = process.env.WAYMARK_CODE_SERVER_DIR ?? join(REPO, '.vscode-test', 'code-server');
export const CODE_SERVER_BIN = join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const APT_PACKAGES = ['chromium', 'ripgrep', 'libkrb5-dev', 'libx11-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'pkg-config'];
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function log(msg) {
  process.stdout.write(`[waymark] ${msg}\n`);
}

/** Runs a command to completion with a time limit; returns its exit status (null on timeout). */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', timeout: opts.timeoutMs ?? 600_000, ...opts });
  if (r.error) log(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  return r.status;
}

function dpkgInstalled(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

export function ensureAptPackages(packages = APT_PACKAGES) {
  if (!existsSync('/usr/bin/dpkg-query')) return;
  const missing = packages.filter((p) => !dpkgInstalled(p));
  if (!missing.length) return;
  if (process.getuid?.() !== 0) {
    log(`missing Debian packages (install them as root): ${missing.join(' ')}`);
    return;
  }
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env, timeoutMs: 600_000 });
  if (install() !== 0) {
    run('apt-get', ['update'], { env, timeoutMs: 300_000 });
    if (install() !== 0) throw new Error(`apt-get install ${missing.join(' ')} failed`);
  }
}

/** @vscode/ripgrep downloads from GitHub at install time; it first looks in this cache. */
export function ensureRipgrepCache() {
  const dir = join(tmpdir(), 'vscode-ripgrep-cache-1.15.11');
  const archive = join(dir, 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz');
  if (existsSync(archive)) return;
  const which = spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' });
  const rg = which.stdout.trim();
  if (!rg) throw new Error('ripgrep (rg) not found; install the Debian package "ripgrep"');
  mkdirSync(dir, { recursive: true });
  if (run('tar', ['czf', archive, '-C', dirname(rg), 'rg']) !== 0) throw new Error('could not pre-seed the ripgrep cache');
}

export function ensureCodeServer() {
  if (existsSync(CODE_SERVER_BIN)) return CODE_SERVER_BIN;
  ensureRipgrepCache();
  mkdirSync(CODE_SERVER_DIR, { recursive: true });
  const pkg = join(CODE_SERVER_DIR, 'package.json');
  if (!existsSync(pkg)) writeFileSync(pkg, JSON.stringify({ name: 'waymark-code-server-cache', private: true, allowScripts: { 'code-server': true, argon2: true } }) + '\n');
  log(`installing code-server@${CODE_SERVER_VERSION} into ${CODE_SERVER_DIR} (a few minutes, once)`);
  const env = { ...process.env, npm_config_unsafe_perm: 'true', npm_config_yes: 'true' };
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const status = run(npm, ['install', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`], { cwd: CODE_SERVER_DIR, env, timeoutMs: 900_000 });
  if (status !== 0 || !existsSync(CODE_SERVER_BIN)) throw new Error(`installing code-server@${CODE_SERVER_VERSION} failed (status ${status})`);
  return CODE_SERVER_BIN;
}

export function findChromium() {
  const found = CHROMIUM_CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error(`Chromium not found (looked at ${CHROMIUM_CANDIDATES.join(', ')}); install the Debian package "chromium"`);
  return found;
}

export function build({ tests = false } = {}) {
  log('building');
  if (run(process.execPath, ['esbuild.mjs'], { cwd: REPO, timeoutMs: 300_000 }) !== 0) throw new Error('build failed');
  if (tests && run(process.execPath, ['esbuild.mjs', '--tests'], { cwd: REPO, timeoutMs: 300_000 }) !== 0) throw new Error('test build failed');
}

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

/** Copies a workspace into a fresh temp folder so the repo is never mutated. */
export function copyWorkspace(source, label = 'ws') {
  const base = mkdtempSync(join(tmpdir(), 'waymark-vscode-'));
  const folder = join(base, label);
  // The cache is the source folder's own (keyed by its paths and times): never copied.
  cpSync(source, folder, { recursive: true, filter: (src) => !src.includes(`${sep}.waymark${sep}cache`) });
  ageFromHistory(folder);
  return { base, folder };
}

/**
 * A copy gives every file the time of the copy, as if all work had just been touched. A workflow
 * file with Waymark history was last written when its history's last line says: set its time
 * to that, so the copy looks like the workspace it is (work that went quiet shows as stalled).
 */
function ageFromHistory(folder) {
  const dir = join(folder, '.waymark', 'history');
  if (!existsSync(dir)) return;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) {
        const target = join(folder, relative(dir, p).slice(0, -'.jsonl'.length));
        const last = readFileSync(p, 'utf8').trim().split('\n').pop();
        let time;
        try {
          time = new Date(JSON.parse(last).time);
        } catch {
          continue;
        }
        if (existsSync(target) && Number.isFinite(time.getTime())) utimesSync(target, time, time);
      }
    }
  };
  walk(dir);
}

function httpOk(url) {
  return new Promise((res) => {
    const req = http.get(url, (r) => {
      r.resume();
      res(r.statusCode !== undefined && r.statusCode < 500);
    });
    req.on('error', () => res(false));
    req.setTimeout(2000, () => {
      req.destroy();
      res(false);
    });
  });
}

/**
 * Starts code-server and resolves once it answers HTTP. `onOutput` receives its output lines.
 * `name` keeps its user-data and extensions folders apart from other servers under `base`
 * (each integration pass runs its own). Returns { url, port, child, stop(), userDataDir }.
 */
export async function startCodeServer({ folder, base, name = 'default', port, onOutput, timeoutMs = 90_000, env = {}, restricted = false }) {
  const bin = ensureCodeServer();
  port ??= await freePort();
  // `restricted`: workspace trust on and the folder untrusted (Restricted Mode), no prompt.
  const userDataDir = join(base, `user-data-${name}`);
  const extensionsDir = join(base, `extensions-${name}`);
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.colorTheme': 'Default Dark Modern',
        'security.workspace.trust.enabled': restricted,
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.emptyWindow': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'chat.commandCenter.enabled': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'window.commandCenter': false,
      },
      null,
      2,
    ),
  );
  const args = [
    bin,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...(restricted ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    folder,
  ];
  // WAYMARK_CODE_SERVER_NODE_ARGS: Node options for code-server and the processes it forks with its own
  // (the extension host among them), e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile the host from its start.
  const nodeArgs = process.env.WAYMARK_CODE_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: base, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const relay = (chunk) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) onOutput?.(line);
  };
  child.stdout.on('data', relay);
  child.stderr.on('data', relay);
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = () =>
    new Promise((res) => {
      if (exited) return res();
      const t = setTimeout(() => {
        try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
        res();
      }, 5000);
      child.once('exit', () => {
        clearTimeout(t);
        // Whatever of its process group outlived it (an extension host, a pty host) goes too.
        try { process.kill(-child.pid, 'SIGKILL'); } catch { /* all gone */ }
        res();
      });
      try { process.kill(-child.pid, 'SIGTERM'); } catch { clearTimeout(t); res(); }
    });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (!(await httpOk(`${url}/healthz`))) {
    if (exited) throw new Error('code-server exited before it was ready');
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer within ${timeoutMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, port, child, stop, userDataDir };
}

/** The demo workspace, else the integration suite's own small workspace. */
export function fixtureWorkspace() {
  const demo = join(REPO, 'examples', 'demo');
  if (existsSync(join(demo, 'workflows'))) return demo;
  return join(REPO, 'test', 'integration', 'workspace');
}

export function ensureAll() {
  ensureAptPackages();
  ensureRipgrepCache();
  ensureCodeServer();
  return findChromium();
}

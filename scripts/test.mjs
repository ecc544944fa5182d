// `npm test`: build, type-check, lint, unit tests (node's runner), then the extension-host
// suite inside a real VS Code (scripts/integration.mjs). Exits non-zero if any part fails.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureAptPackages } from './vscodeServer.mjs';

const only = process.argv[2]; // optional: 'unit' or 'integration'

function run(label, cmd, args, opts = {}) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) {
    console.error(`${label} could not start: ${r.error.message}`);
    return 1;
  }
  return r.status ?? 1;
}

function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...testFiles(p));
    else if (p.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

const failures = [];
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

if (run('build', process.execPath, ['esbuild.mjs']) !== 0) process.exit(2);
if (run('build tests', process.execPath, ['esbuild.mjs', '--tests']) !== 0) process.exit(2);
if (run('type-check', npx, ['tsc', '--noEmit', '-p', '.']) !== 0) failures.push('type-check');
// The architecture rules (no vscode in the core, faces through src/core/index.ts, no cycles).
if (run('lint', npx, ['eslint', 'src', 'test', 'bench']) !== 0) failures.push('lint');

if (only !== 'integration') {
  // Debian's pre-commit, for the test that runs its validate-manifest on .pre-commit-hooks.yaml
  // (without it that one test is skipped with a message; the schema test still runs).
  try {
    ensureAptPackages(['pre-commit']);
  } catch (e) {
    console.log(`pre-commit could not be installed (${e.message}): its manifest is checked against the documented schema only`);
  }
  const files = testFiles('dist-test/unit');
  if (run('unit tests', process.execPath, ['--test', '--test-reporter=spec', '--test-timeout=300000', ...files]) !== 0) failures.push('unit tests');
  // The corpus runner and its independent truth script (test/corpus: plain .mjs, not built).
  if (run('corpus runner tests', process.execPath, ['--test', '--test-reporter=spec', ...readdirSync('test/corpus').filter((n) => n.endsWith('.test.mjs')).sort().map((n) => join('test/corpus', n))]) !== 0) failures.push('corpus runner tests');
}
if (only !== 'unit') {
  if (run('integration tests (real VS Code)', process.execPath, ['scripts/integration.mjs', '--no-build']) !== 0) failures.push('integration tests');
  if (run('installed package (VSIX in a fresh code-server)', process.execPath, ['scripts/vsixInstall.mjs']) !== 0) failures.push('installed package');
}

if (failures.length) {
  console.error(`\nnpm test failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log('\nnpm test: all parts passed');

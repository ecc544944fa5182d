// Desktop runner: the same extension-host suite through @vscode/test-electron, for machines
// that can download VS Code (`npm run test:electron`). CI uses scripts/integration.mjs.
import { cpSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const demo = join(repo, 'examples', 'demo');
const source = existsSync(join(demo, 'workflows')) ? demo : join(repo, 'test', 'integration', 'workspace');
const base = mkdtempSync(join(tmpdir(), 'waymark-electron-'));
const folder = join(base, 'demo');
cpSync(source, folder, { recursive: true });

let code = 0;
try {
  await runTests({
    version: process.env.VSCODE_VERSION ?? 'stable',
    extensionDevelopmentPath: repo,
    extensionTestsPath: join(repo, 'dist-test', 'integration', 'suite', 'index.js'),
    launchArgs: [folder, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    timeout: 60_000, // idle timeout of the VS Code download
  });
} catch (e) {
  console.error(`[waymark] test-electron run failed: ${e?.message ?? e}`);
  code = 1;
} finally {
  rmSync(base, { recursive: true, force: true });
}
process.exit(code);

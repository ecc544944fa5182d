// Writes `contributes.languageModelTools` in package.json from the one tool table
// (src/mcp/tools/index.ts), with the input schemas converted exactly as the MCP server lists them.
// `node scripts/lmTools.mjs --check` exits 1 when package.json is out of date.
import * as esbuild from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'waymark-lmtools-'));
try {
  await esbuild.build({ entryPoints: ['src/mcp/contribution.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: join(dir, 'c.js'), logLevel: 'warning', external: ['vscode', 'kuzu'] });
  const { languageModelToolsContribution } = require(join(dir, 'c.js'));
  const pkgText = readFileSync('package.json', 'utf8');
  const pkg = JSON.parse(pkgText);
  const want = languageModelToolsContribution();
  if (process.argv.includes('--check')) {
    const same = JSON.stringify(pkg.contributes.languageModelTools) === JSON.stringify(want);
    console.log(same ? 'package.json languageModelTools: up to date' : 'package.json languageModelTools: out of date; run node scripts/lmTools.mjs');
    process.exit(same ? 0 : 1);
  }
  pkg.contributes.languageModelTools = want;
  writeFileSync('package.json', JSON.stringify(pkg, null, 2) + '\n');
  console.log(`package.json: ${want.length} language-model tools`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// `npm run bench`: runs every bundled benchmark in dist-bench/ one after another, then the
// extension's speed suite inside a real VS Code (activation, first tree, external edits on
// 10,000 files) unless --no-vscode is given. Each prints `name value` lines; other arguments
// are passed to the dist-bench scripts (e.g. --files 2000).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const withVscode = !args.includes('--no-vscode');
const extra = args.filter((a) => a !== '--no-vscode');
// Not benches: lib.js (shared code) and scanCold.js (a tool for callgrind that needs a tree: DIR).
const TOOLS = new Set(['lib.js', 'scanCold.js']);
const benches = readdirSync('dist-bench').filter((f) => f.endsWith('.js') && !TOOLS.has(f)).sort();
let failed = 0;

console.log(`bundle.extension_kb ${(statSync('dist/extension.js').size / 1024).toFixed(0)}`);
console.log(`bundle.cli_launcher_kb ${(statSync('dist/cli.js').size / 1024).toFixed(0)}`);
for (const [name, file] of [['cli_main', 'dist/cli-main.js'], ['cli_hook', 'dist/cli-hook.js'], ['cli_merge', 'dist/cli-merge.js'], ['cli_sh', 'dist/cli-sh.js']]) console.log(`bundle.${name}_kb ${(statSync(file).size / 1024).toFixed(0)}`);
for (const b of benches) {
  console.log(`\n=== bench ${b}`);
  const r = spawnSync(process.execPath, ['--expose-gc', join('dist-bench', b), ...extra], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`bench ${b} failed (exit ${r.status})`);
    failed++;
  }
}
if (withVscode) {
  console.log('\n=== bench extension (real VS Code extension host)');
  const r = spawnSync(process.execPath, ['scripts/integration.mjs', '--bench'], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`extension bench failed (exit ${r.status})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);

// Bundles the extension and the CLI into dist/; with --tests the unit and
// integration suites into dist-test/; with --bench the benchmarks into dist-bench/.
import * as esbuild from 'esbuild';
import { readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');

function filesUnder(dir, suffix) {
  const out = [];
  let entries = [];
  try { entries = readdirSync(dir); } catch { return out; }
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p, suffix));
    else if (p.endsWith(suffix)) out.push(p);
  }
  return out;
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: production ? false : 'linked',
  minify: production,
  external: ['vscode', 'kuzu', 'mocha'],
  logLevel: 'warning',
};

if (args.has('--tests')) {
  rmSync('dist-test', { recursive: true, force: true });
  await esbuild.build({ ...common, entryPoints: filesUnder('test/unit', '.test.ts'), outdir: 'dist-test/unit', outbase: 'test/unit' });
  const integration = [...filesUnder('test/integration/suite', '.ts')];
  if (integration.length) {
    await esbuild.build({ ...common, entryPoints: integration, outdir: 'dist-test/integration/suite', outbase: 'test/integration/suite' });
  }
} else if (args.has('--bench')) {
  await esbuild.build({ ...common, entryPoints: filesUnder('bench', '.ts'), outdir: 'dist-bench', outbase: 'bench' });
} else {
  await esbuild.build({ ...common, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist' });
  // cli.js is a small launcher (hook events that cannot touch state are answered there), cli-hook.js
  // the full hook check, cli-merge.js git's state merge driver (run once per merged file), cli-main.js the CLI.
  // action.js: the GitHub Action (action.yml), @actions/core bundled in; see "Waymark in CI" in the README.
  await esbuild.build({ ...common, entryPoints: { action: 'src/action/main.ts' }, outdir: 'dist', sourcemap: false, minify: true });
  await esbuild.build({ ...common, entryPoints: { cli: 'src/cli/launch.ts', 'cli-main': 'src/cli/main.ts', 'cli-hook': 'src/cli/hookMain.ts', 'cli-merge': 'src/cli/mergeMain.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } });
}

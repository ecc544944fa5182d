// `npm run package`: one VSIX per platform, each holding exactly its own Kuzu binary, plus a
// universal VSIX without memory's native part. Every package is staged in a folder of its own
// (the repository is never packaged as it is), built with `vsce package --target`, then opened
// and checked: a foreign native binary, a source file or a missing entry point fails the run.
//
//   node scripts/package.mjs [--targets linux-x64,universal] [--out DIR] [--no-build]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkVsix, KUZU_TARGETS, listVsix } from './packageCheck.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ALL_TARGETS = [...Object.keys(KUZU_TARGETS), 'universal'];

function usage(message) {
  console.error(`package: ${message}\nusage: node scripts/package.mjs [--targets ${ALL_TARGETS.join(',')}] [--out DIR] [--no-build]`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { targets: ALL_TARGETS, out: REPO, build: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--targets') {
      const v = argv[++i];
      if (!v) usage('--targets needs a comma-separated list');
      opts.targets = v.split(',').map((t) => t.trim()).filter(Boolean);
      const bad = opts.targets.filter((t) => !ALL_TARGETS.includes(t));
      if (bad.length) usage(`unknown target ${bad.join(', ')}`);
    } else if (a === '--out') {
      const v = argv[++i];
      if (!v) usage('--out needs a folder');
      opts.out = resolve(v);
    } else if (a === '--no-build') opts.build = false;
    else usage(`unknown option ${a}`);
  }
  return opts;
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(r.stdout, r.stderr);
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
  }
  return r.stdout;
}

const KUZU_JS = ['package.json', 'LICENSE', 'index.js', 'index.mjs', 'connection.js', 'database.js', 'kuzu_native.js', 'prepared_statement.js', 'query_result.js'];

/** Copies what the packaged extension runs into a fresh stage folder for one target. */
function stage(target, dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
  // The npm package's `files` list and vsce's .vscodeignore cannot both be present.
  delete manifest.files;
  delete manifest.scripts;
  delete manifest.devDependencies;
  manifest.dependencies = {};
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  for (const f of ['README.md', 'LICENSE', 'CHANGELOG.md']) if (existsSync(join(REPO, f))) cpSync(join(REPO, f), join(dir, f));
  // The extension and every CLI bundle (the launcher cli.js loads its siblings cli-*.js).
  for (const f of readdirSync(join(REPO, 'dist')).filter((n) => n === 'extension.js' || /^cli(-[\w]+)?\.js$/.test(n))) cpSync(join(REPO, 'dist', f), join(dir, 'dist', f));
  cpSync(join(REPO, 'media'), join(dir, 'media'), { recursive: true, filter: (src) => !src.includes(`${join('media', 'screenshots')}`) || src.endsWith('screenshots') });
  rmSync(join(dir, 'media', 'screenshots'), { recursive: true, force: true });
  if (target !== 'universal') {
    // dist/node_modules/kuzu: found by Node's resolution from dist/extension.js and dist/cli.js.
    const kuzuSrc = join(REPO, 'node_modules', 'kuzu');
    const kuzuDst = join(dir, 'dist', 'node_modules', 'kuzu');
    mkdirSync(kuzuDst, { recursive: true });
    for (const f of KUZU_JS) if (existsSync(join(kuzuSrc, f))) cpSync(join(kuzuSrc, f), join(kuzuDst, f));
    cpSync(join(kuzuSrc, 'prebuilt', KUZU_TARGETS[target]), join(kuzuDst, 'kuzujs.node'));
  }
  writeFileSync(join(dir, '.vscodeignore'), ['**', '!dist/**', '!media/**', '!package.json', '!README.md', '!LICENSE', '!CHANGELOG.md', ''].join('\n'));
}

const opts = parseArgs(process.argv.slice(2));
if (opts.build) run(process.execPath, ['esbuild.mjs', '--production'], REPO);
mkdirSync(opts.out, { recursive: true });
const vsce = join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
const rows = [];
let failed = false;
for (const target of opts.targets) {
  const dir = join(REPO, '.package', target);
  stage(target, dir);
  const file = join(opts.out, `waymark-${target}-${version}.vsix`);
  const args = ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', file];
  if (target !== 'universal') args.push('--target', target);
  run(process.execPath, [vsce, ...args], dir);
  const problems = checkVsix(file, target, REPO);
  const entries = listVsix(file);
  const size = statSync(file).size;
  rows.push({ target, file, size, entries: entries.length, problems });
  if (problems.length) failed = true;
  rmSync(dir, { recursive: true, force: true });
}
rmSync(join(REPO, '.package'), { recursive: true, force: true });
for (const r of rows) {
  const sha = createHash('sha256').update(readFileSync(r.file)).digest('hex').slice(0, 12);
  console.log(`${r.target.padEnd(12)} ${(r.size / 1048576).toFixed(1).padStart(6)} MB  ${String(r.entries).padStart(3)} files  sha256 ${sha}  ${r.problems.length ? 'FAILED' : 'ok'}  ${r.file}`);
  for (const p of r.problems) console.log(`  - ${p}`);
}
process.exit(failed ? 1 : 0);

// Bundles the extension and the CLI into dist/; with --tests the unit and
// integration suites into dist-test/; with --bench the benchmarks into dist-bench/.
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';
import { readdirSync, statSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

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

// js-yaml 3 (gray-matter's YAML engine) requires esprima, from wherever node finds one, for its
// !!js/function type. Waymark parses YAML with safeLoad, which never has that type: the schema gets
// js/undefined in its place (listed twice, which the schema dedupes) and no esprima is ever loaded.
const noEsprima = {
  name: 'no-esprima',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/type\/js\/function$/ }, (a) => (/js-yaml[\\/]lib[\\/]js-yaml[\\/]schema$/.test(a.resolveDir) ? { path: resolve(a.resolveDir, '../type/js/undefined.js') } : undefined));
  },
};

// The CLI's bundles load mvdan-sh (a 3 MB bash parser) from its own bundle, cli-sh.js, through the
// code cache, and only when a shell command must be judged: the other verbs never read its bytes.
const shellParserApart = {
  name: 'shell-parser-apart',
  setup(build) {
    build.onResolve({ filter: /^mvdan-sh$/ }, () => ({ path: 'mvdan-sh', namespace: 'cli-sh' }));
    build.onLoad({ filter: /.*/, namespace: 'cli-sh' }, () => ({
      contents: "const { loadBundle } = require('./bundleLoader');\nmodule.exports = loadBundle(require('node:path').join(__dirname, 'cli-sh.js'));\n",
      resolveDir: resolve('src/cli'),
      loader: 'js',
    }));
  },
};

// A package whose module body costs a process milliseconds and that some verbs never call is
// loaded when one of its exports is first used, not when the bundle starts: `yaml` (60 modules)
// parses config, ledgers and gate files, and a one-file `status` never reads any of them with it;
// `zod` validates `.waymark/config.yaml` (model/config.ts builds its schema on first use) and MCP
// requests, and a workspace without a config file never needs it.
// Each import from src/ gets the package's export names as getters. The package itself is a bundle of
// its own (`cli-yaml.js`, `cli-zod.js`, built below), loaded through the code cache on first use: the
// verbs' bundles are a quarter smaller (380 KB of 1.5 MB), and every start reads, decodes and
// hands V8 only the rest. One instance per process (the stand-in loads it once).
const LAZY_PACKAGES = ['yaml', 'zod'];
const lazyPackages = {
  name: 'lazy-packages',
  setup(build) {
    const require = createRequire(import.meta.url);
    // Only Waymark's own imports: a dependency may carry another version of the package.
    const src = resolve('src') + sep;
    build.onResolve({ filter: new RegExp(`^(${LAZY_PACKAGES.join('|')})$`) }, (a) => (a.importer.startsWith(src) ? { path: a.path, namespace: 'lazy-package' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'lazy-package' }, (a) => {
      const bundle = JSON.stringify(`cli-${a.path}.js`);
      const getters = Object.keys(require(a.path)).map((n) => `Object.defineProperty(exports, ${JSON.stringify(n)}, { enumerable: true, get: () => load()[${JSON.stringify(n)}] });`);
      // Its code cache kept per verb, as the verbs' own (each verb runs other parts of the package).
      const load = `const load = () => (m ??= require('./bundleLoader').loadBundle(require('node:path').join(__dirname, ${bundle}), process.argv[2]));`;
      return { contents: [`let m;`, load, ...getters].join('\n'), resolveDir: resolve('src/cli'), loader: 'js' };
    });
  },
};

// esbuild gives every module that imports a Node built-in (`import * as fs from 'node:fs'`) its own
// namespace object: __toESM copies each of the module's exports as a getter, ~100 for fs, once per
// importing module (68 of them import fs, 93 path), a tenth of a one-file verb's start. Waymark
// reads a built-in's namespace only as `fs.readFileSync` (never `.default`, never as an object), so
// the CLI's bundles use the module itself: `require("node:fs")`, no copy at all. Same line count, so
// the source maps still hold.
const BUILTIN_ESM = /__toESM\(require\("(node:[a-z0-9_/]+)"\)\)/g;
function builtinModulesAsNamespaces(text) {
  // A default import of a built-in (`import fs from 'node:fs'`) reads `.default`, which only the copy has: refused.
  for (const [, name] of text.matchAll(/\b(import_[\w$]+) = __toESM\(require\("node:[a-z0-9_/]+"\)\)/g)) {
    if (text.includes(`${name}.default`)) throw new Error(`esbuild.mjs: ${name}.default: a default import of a Node built-in; import it as a namespace (import * as x from 'node:x')`);
  }
  return text.replace(BUILTIN_ESM, 'require("$1")');
}

/** The bundles that run the core in process (the extension, the benchmarks) load Node's built-ins as the CLI's do (builtinModulesAsNamespaces). */
function tuneInProcessBundles(dir) {
  for (const f of filesUnder(dir, '.js')) writeFileSync(f, builtinModulesAsNamespaces(readFileSync(f, 'utf8')));
}

// esbuild escapes non-ASCII characters in strings but leaves them in comments and regular
// expressions (`[\-–—]`). One such character makes the launcher decode a whole bundle as UTF-8 and
// V8 hold it as two-byte text: three times the work of the ASCII (latin1) path, on every start.
// An escape means the same character in a comment, a string and a regular expression, with or without /u.
function asciiOnly(text) {
  // After a backslash an escape would read differently (`\\–` is not `\\\u2013`): refuse rather than guess.
  const escaped = /\\[^\x00-\x7f]/.exec(text);
  if (escaped) throw new Error(`esbuild.mjs: a backslash before a non-ASCII character at offset ${escaped.index}; write it as \\uXXXX in the source`);
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// Built-ins that cost a process milliseconds to load and that many modules import at their top
// while few verbs call them: node:crypto (with the streams it loads, ~8 % of an empty Node's start;
// a one-file verb hashes in JavaScript, model/hash.ts) and node:os. The CLI's bundles bind each such
// import to a stand-in that loads the module on the first property read of it. Defined on the
// "use strict" line, so the line count (and the source maps) hold.
const LAZY_BUILTINS = ['crypto', 'os'];
const LAZY_BUILTIN_IMPORT = new RegExp(`^(var [\\w$]+|\\s+[\\w$]+) = require\\("node:(${LAZY_BUILTINS.join('|')})"\\);$`, 'gm');
const LAZY_BUILTIN_HELPER = 'var __lazyBuiltin = (id) => { let m; const load = () => (m ??= require(id)); return new Proxy({}, { get: (_, k) => load()[k], has: (_, k) => k in load() }); };';
function lazyBuiltins(text) {
  const strict = '#!/usr/bin/env node\n"use strict";\n';
  if (!text.startsWith(strict)) throw new Error('esbuild.mjs: a CLI bundle no longer starts with #! and "use strict"; lazyBuiltins needs a line for its helper');
  return text.slice(0, strict.length - 1) + LAZY_BUILTIN_HELPER + text.slice(strict.length - 1).replace(LAZY_BUILTIN_IMPORT, '$1 = __lazyBuiltin("node:$2");');
}

// The same for the lazy packages (lazyPackages): each importing module's `__toESM(require_yaml())`
// copied the stand-in's ~40 getters into a namespace object of its own (16 modules import yaml),
// getters over getters, at the bundle's start. Waymark imports them by name only (`import { parse }
// from 'yaml'`, never a default import, which __toESM would add), so the stand-in is the namespace.
const LAZY_PACKAGE_MODULE = /^var (require_[\w$]+) = __commonJS\(\{\n  "lazy-package:/gm;
function lazyPackagesAsNamespaces(text) {
  for (const [, name] of text.matchAll(LAZY_PACKAGE_MODULE)) text = text.replaceAll(`__toESM(${name}())`, `${name}()`);
  const defaultImport = new RegExp(`\\bimport_(${LAZY_PACKAGES.join('|')})\\d*\\.default\\b`).exec(text);
  if (defaultImport) throw new Error(`esbuild.mjs: a default import of a lazy package (${defaultImport[0]}); import its members by name`);
  return text;
}

/** The CLI's bundles as the launcher loads them best: built-ins and lazy packages without namespace copies, some built-ins loaded on first use, ASCII only. */
function tuneCliBundle(file) {
  writeFileSync(file, asciiOnly(lazyBuiltins(lazyPackagesAsNamespaces(builtinModulesAsNamespaces(readFileSync(file, 'utf8'))))));
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
  plugins: [noEsprima],
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
  // The benchmarks time the core as the CLI and the MCP server run it: built-ins without namespace copies.
  tuneInProcessBundles('dist-bench');
} else {
  await esbuild.build({ ...common, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist' });
  // The extension writes through the core in process: each `fs.x` call went through a namespace copy's getter.
  writeFileSync('dist/extension.js', builtinModulesAsNamespaces(readFileSync('dist/extension.js', 'utf8')));
  // cli.js is a small launcher (compiled from source on every run, so it holds only the routing and the
  // bundle loader), cli-hookfast.js the hook fast path (hook events that cannot touch state are answered
  // there), cli-hook.js the full hook check, cli-merge.js git's state merge driver (run once per merged
  // file), cli-main.js the CLI.
  // The verb bundles hold one commands file each: the launcher runs those verbs there (src/cli/verbBundles.ts).
  // action.js: the GitHub Action (action.yml), @actions/core bundled in; see "Waymark in CI" in the README.
  await esbuild.build({ ...common, entryPoints: { action: 'src/action/main.ts' }, outdir: 'dist', sourcemap: false, minify: true });
  // cli-sh.js: mvdan-sh alone (see shellParserApart). The launcher loads every bundle through V8's code cache (src/cli/bundleLoader.ts).
  const verbBundles = { 'cli-read': 'src/cli/readMain.ts', 'cli-sprint': 'src/cli/sprintMain.ts', 'cli-write': 'src/cli/writeMain.ts', 'cli-project': 'src/cli/projectMain.ts', 'cli-protocol': 'src/cli/protocolMain.ts' };
  const cliEntries = { cli: 'src/cli/launch.ts', 'cli-main': 'src/cli/main.ts', 'cli-hookfast': 'src/cli/hookFast.ts', 'cli-hook': 'src/cli/hookMain.ts', 'cli-merge': 'src/cli/mergeMain.ts', ...verbBundles };
  await esbuild.build({ ...common, plugins: [noEsprima, shellParserApart, lazyPackages], entryPoints: cliEntries, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } });
  for (const name of Object.keys(cliEntries)) tuneCliBundle(`dist/${name}.js`);
  // Node reads the nearest package.json of the script it runs (its "type" says CommonJS or ESM): without
  // this one, Waymark's own, 67 KB of manifest (VS Code contributions), decoded and parsed on every run.
  writeFileSync('dist/package.json', '{ "type": "commonjs" }\n');
  await esbuild.build({ ...common, entryPoints: { 'cli-sh': dirname(createRequire(import.meta.url).resolve('mvdan-sh')) + '/index.js' }, outdir: 'dist', sourcemap: false });
  // cli-yaml.js, cli-zod.js: the lazy packages, each alone (see lazyPackages), ASCII as the launcher reads best.
  for (const p of LAZY_PACKAGES) {
    await esbuild.build({ ...common, entryPoints: { [`cli-${p}`]: createRequire(import.meta.url).resolve(p) }, outdir: 'dist', sourcemap: false });
    writeFileSync(`dist/cli-${p}.js`, asciiOnly(readFileSync(`dist/cli-${p}.js`, 'utf8')));
  }
}

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadBundle, compileCacheDir } from '../../src/cli/bundleLoader';
import { VERB_BUNDLES } from '../../src/cli/verbBundles';

// Child mode: this file, run as a plain script, loads the bundle it is given and prints what the bundle answers.
const CHILD = process.env.WM_BUNDLE_CHILD;
if (CHILD) {
  const m = loadBundle<{ answer(): unknown }>(CHILD);
  process.stdout.write(JSON.stringify(m.answer()));
} else {
  const tmps: string[] = [];
  const tmp = (prefix: string) => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    tmps.push(d);
    return d;
  };
  after(() => {
    for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A bundle as esbuild writes one: a CommonJS module with a #! line, requiring a sibling. */
  function bundle(dir: string, word: string): string {
    fs.writeFileSync(path.join(dir, 'sib.js'), 'module.exports = { n: 0 };\n');
    const file = path.join(dir, 'b.js');
    fs.writeFileSync(file, `#!/usr/bin/env node\nconst sib = require('./sib.js');\nsib.n++;\nmodule.exports = { answer() { return { word: ${JSON.stringify(word)}, sib: sib.n, file: __filename, dir: __dirname, same: require.cache[__filename] === module }; } };\n`);
    return file;
  }

  function run(file: string, cache: string): { out: Record<string, unknown>; code: number | null; err: string } {
    const r = spawnSync(process.execPath, [__filename], { encoding: 'utf8', env: { ...process.env, WM_BUNDLE_CHILD: file, WAYMARK_COMPILE_CACHE: cache } });
    return { out: r.stdout ? (JSON.parse(r.stdout) as Record<string, unknown>) : {}, code: r.status, err: r.stderr };
  }

  const cacheFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.v8')) : []);

  describe('CLI bundles through the V8 code cache', () => {
    test('a bundle runs with CommonJS semantics; the first run writes the cache and the next runs use it unchanged', () => {
      const dir = tmp('wm-bundle-');
      const cache = path.join(tmp('wm-cache-'), 'v8');
      const file = bundle(dir, 'one');
      const first = run(file, cache);
      assert.equal(first.code, 0, first.err);
      assert.deepEqual(first.out, { word: 'one', sib: 1, file, dir, same: true });
      const written = cacheFiles(cache);
      assert.equal(written.length, 1);
      assert.match(written[0], /^b@[0-9a-f]{8}-\d+-[0-9a-f]+-v\d+\.\d+\.\d+-\w+\.v8$/);
      const bytes = fs.readFileSync(path.join(cache, written[0]));
      const stat = fs.statSync(path.join(cache, written[0]));
      const second = run(file, cache);
      assert.deepEqual(second.out, first.out);
      assert.deepEqual(cacheFiles(cache), written, 'the cache is reused, not rewritten');
      assert.deepEqual(fs.readFileSync(path.join(cache, written[0])), bytes);
      assert.equal(fs.statSync(path.join(cache, written[0])).mtimeMs, stat.mtimeMs);
    });

    test('a rebuilt bundle of the same length never runs the old code, and its old cache is dropped', () => {
      const dir = tmp('wm-bundle-');
      const cache = path.join(tmp('wm-cache-'), 'v8');
      const file = bundle(dir, 'aaa');
      assert.equal(run(file, cache).out.word, 'aaa');
      const before = cacheFiles(cache);
      bundle(dir, 'bbb');
      assert.equal(run(file, cache).out.word, 'bbb');
      const now = cacheFiles(cache);
      assert.equal(now.length, 1);
      assert.notDeepEqual(now, before);
    });

    test('two installs of one bundle (the extension\'s CLI, a global one) keep a cache each: neither evicts the other', () => {
      const cache = path.join(tmp('wm-cache-'), 'v8');
      // Two versions installed side by side.
      const a = bundle(tmp('wm-bundle-a-'), 'v1.0');
      const b = bundle(tmp('wm-bundle-b-'), 'v1.1');
      // Installed bundles are settled (unchanged for 10 s: named by inode and ctime). Wait until these
      // are, so a loaded machine's slow runs cannot cross from the content name to that one mid-test.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_500);
      run(a, cache);
      run(b, cache);
      const both = cacheFiles(cache).sort();
      assert.equal(both.length, 2, both.join(', '));
      const stamps = both.map((n) => fs.statSync(path.join(cache, n)).mtimeMs);
      for (let i = 0; i < 3; i++) {
        assert.equal(run(a, cache).out.word, 'v1.0');
        assert.equal(run(b, cache).out.word, 'v1.1');
      }
      assert.deepEqual(cacheFiles(cache).sort(), both);
      assert.deepEqual(both.map((n) => fs.statSync(path.join(cache, n)).mtimeMs), stamps, 'each run used its cache, none rewrote one');
    });

    test('a cache named before places were (`b-<size>-…`) is dropped when the bundle writes its own', () => {
      const dir = tmp('wm-bundle-');
      const cache = path.join(tmp('wm-cache-'), 'v8');
      fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(cache, 'b-10-0123456789abcdef-v20.0.0-x64.v8'), 'old');
      run(bundle(dir, 'new'), cache);
      assert.deepEqual(cacheFiles(cache).filter((n) => n.startsWith('b-')), []);
      assert.equal(cacheFiles(cache).length, 1);
    });

    test('a damaged cache file is rejected by V8, the bundle compiled from source, and the cache rewritten', () => {
      const dir = tmp('wm-bundle-');
      const cache = path.join(tmp('wm-cache-'), 'v8');
      const file = bundle(dir, 'ok');
      run(file, cache);
      const [name] = cacheFiles(cache);
      const garbage = Buffer.alloc(fs.statSync(path.join(cache, name)).size, 7);
      fs.writeFileSync(path.join(cache, name), garbage);
      const r = run(file, cache);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out.word, 'ok');
      assert.notDeepEqual(fs.readFileSync(path.join(cache, name)), garbage);
    });

    test('a cache folder that cannot be written only costs the compile', () => {
      const dir = tmp('wm-bundle-');
      const file = bundle(dir, 'ro');
      // A file where the folder should be: nothing can be created under it, whoever runs the test.
      const blocker = path.join(tmp('wm-cache-'), 'not-a-dir');
      fs.writeFileSync(blocker, '');
      const r = run(file, path.join(blocker, 'v8'));
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out.word, 'ro');
      assert.equal(r.err, '');
    });

    test('a cache folder others may write to is neither read nor written (compiled code runs as the user)', () => {
      const dir = tmp('wm-bundle-');
      const file = bundle(dir, 'shared');
      const cache = tmp('wm-cache-');
      fs.chmodSync(cache, 0o777);
      const r = run(file, cache);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out.word, 'shared');
      assert.deepEqual(cacheFiles(cache), []);
      // A planted file under the expected name is not used either: the answer is the bundle's own.
      fs.chmodSync(cache, 0o700);
      run(file, cache);
      const [name] = cacheFiles(cache);
      const good = fs.readFileSync(path.join(cache, name));
      fs.chmodSync(cache, 0o777);
      fs.writeFileSync(path.join(cache, name), Buffer.alloc(good.length, 1));
      assert.equal(run(file, cache).out.word, 'shared');
      assert.deepEqual(fs.readFileSync(path.join(cache, name)), Buffer.alloc(good.length, 1), 'not rewritten there either');
    });

    test('WAYMARK_COMPILE_CACHE=0 turns the cache off; the default folder is the user cache', () => {
      assert.equal(compileCacheDir({ WAYMARK_COMPILE_CACHE: '0' }), undefined);
      assert.equal(compileCacheDir({ WAYMARK_COMPILE_CACHE: 'off' }), undefined);
      assert.equal(compileCacheDir({ XDG_CACHE_HOME: '/x/cache' }), path.join('/x/cache', 'waymark', 'v8'));
      assert.equal(compileCacheDir({ XDG_CACHE_HOME: 'relative' }), path.join(os.homedir(), '.cache', 'waymark', 'v8'));
      const dir = tmp('wm-bundle-');
      const file = bundle(dir, 'off');
      const r = spawnSync(process.execPath, [__filename], { encoding: 'utf8', env: { ...process.env, WM_BUNDLE_CHILD: file, WAYMARK_COMPILE_CACHE: '0', XDG_CACHE_HOME: path.join(dir, 'xdg') } });
      assert.equal(JSON.parse(r.stdout).word, 'off');
      assert.equal(fs.existsSync(path.join(dir, 'xdg')), false);
    });

    test('the real CLI answers the same with the cache cold, warm and off', () => {
      const cli = path.resolve('dist/cli.js');
      if (!fs.existsSync(cli)) spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });
      const ws = tmp('wm-ws-');
      fs.writeFileSync(path.join(ws, 'a.workflow.md'), '---\nworkflow: a\nstatus: in_progress\nsteps: [x, y]\ncurrentStep: x\nstepsCompleted: []\n---\n');
      const cache = path.join(tmp('wm-cache-'), 'v8');
      const answer = (c: string) => {
        const r = spawnSync(process.execPath, [cli, 'status', 'a.workflow.md', '--json'], { cwd: ws, encoding: 'utf8', env: { ...process.env, WAYMARK_COMPILE_CACHE: c } });
        assert.equal(r.status, 0, r.stderr);
        return r.stdout;
      };
      const cold = answer(cache);
      // status runs in the read verbs' bundle (verbBundles.ts), with its own cache.
      assert.ok(cacheFiles(cache).some((n) => n.startsWith('cli-read.status@')), cacheFiles(cache).join(', '));
      assert.equal(answer(cache), cold);
      assert.equal(answer('0'), cold);
      assert.match(cold, /"currentStep":"x"/);
    });

    test("the CLI's bundles copy no Node built-in into a namespace and are ASCII", () => {
      const main = path.resolve('dist/cli-main.js');
      if (!fs.existsSync(main)) spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });
      const bundles = ['cli', 'cli-main', 'cli-hook', 'cli-merge', ...[...new Set(VERB_BUNDLES.values())].map((b) => path.basename(b, '.js'))];
      for (const name of bundles) {
        const bytes = fs.readFileSync(path.resolve(`dist/${name}.js`));
        // The loader reads an ASCII bundle as latin1 (one byte, one character); any other byte costs a UTF-8 decode.
        const other = bytes.findIndex((b) => b > 0x7f);
        assert.equal(other, -1, `${name}.js has a non-ASCII byte at ${other}`);
        const text = bytes.toString('utf8');
        // `import * as fs from 'node:fs'` reads the module itself, copied into no namespace (the
        // rewrite stays on its line: the source map holds). A default import, `__toESM(require("node:process"), 1)`, keeps its own.
        assert.doesNotMatch(text, /__toESM\(require\("node:[^"]+"\)\)/, name);
        assert.match(text, /= require\("node:path"\);/, name);
      }
    });
  });
}

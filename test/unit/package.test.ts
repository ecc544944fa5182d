// The per-platform packages: each VSIX holds exactly its own Kuzu binary, the universal one none,
// the checker refuses a foreign binary or a source file, and the shipped CLI runs from a package.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
// @ts-expect-error plain ESM script without type declarations
import { checkVsix, readZip, KUZU_TARGETS } from '../../scripts/packageCheck.mjs';

const REPO = path.resolve('.');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('per-platform packages (real vsce, real zip files)', () => {
  let out: string;
  before(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-vsix-'));
    const r = spawnSync(process.execPath, ['scripts/package.mjs', '--no-build', '--targets', 'linux-x64,darwin-arm64,win32-x64,universal', '--out', out], { cwd: REPO, encoding: 'utf8' });
    assert.equal(r.status, 0, `package script failed:\n${r.stdout}\n${r.stderr}`);
  });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  const vsix = (target: string) => fs.readdirSync(out).map((f) => path.join(out, f)).find((f) => f.includes(`waymark-${target}-`))!;

  for (const target of ['linux-x64', 'darwin-arm64', 'win32-x64']) {
    test(`${target} holds its own Kuzu binary and no other native file`, () => {
      const { entries, data } = readZip(vsix(target));
      const natives = entries.filter((e: { name: string }) => /\.(node|dll|so|dylib)$/.test(e.name));
      assert.deepEqual(natives.map((e: { name: string }) => e.name), ['extension/dist/node_modules/kuzu/kuzujs.node']);
      const want = sha(fs.readFileSync(path.join(REPO, 'node_modules/kuzu/prebuilt', KUZU_TARGETS[target])));
      assert.equal(sha(data(natives[0])), want);
      assert.ok(entries.some((e: { name: string }) => e.name === 'extension/dist/cli.js'), 'the CLI ships in the package');
      assert.deepEqual(checkVsix(vsix(target), target, REPO), []);
    });
  }

  test('the universal package holds no native binary, and its CLI says memory is unavailable and why', () => {
    const { entries, data } = readZip(vsix('universal'));
    assert.equal(entries.filter((e: { name: string }) => /\.(node|dll|so|dylib)$/.test(e.name)).length, 0);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-universal-'));
    try {
      const cli = path.join(dir, 'cli.js');
      fs.writeFileSync(cli, data(entries.find((e: { name: string }) => e.name === 'extension/dist/cli.js')));
      for (const e of entries.filter((x: { name: string }) => /^extension\/dist\/cli-[\w]+\.js$/.test(x.name))) fs.writeFileSync(path.join(dir, path.basename(e.name)), data(e));
      const ws = path.join(dir, 'ws');
      fs.mkdirSync(ws);
      const r = spawnSync(process.execPath, [cli, 'memory', 'status', '--root', ws], { cwd: ws, encoding: 'utf8', env: { ...process.env, WAYMARK_MEMORY_ENGINE: '' } });
      assert.match(r.stdout + r.stderr, /Kuzu \(memory's database\) is not installed for/);
      const v = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
      assert.equal(v.status, 0);
      assert.match(v.stdout, /^\d+\.\d+\.\d+/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the check refuses a foreign binary and a source file', () => {
    const planted = path.join(out, 'planted.vsix');
    fs.copyFileSync(vsix('linux-x64'), planted);
    const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-plant-'));
    try {
      fs.mkdirSync(path.join(stage, 'extension/dist/node_modules/kuzu'), { recursive: true });
      fs.mkdirSync(path.join(stage, 'extension/src'), { recursive: true });
      fs.copyFileSync(path.join(REPO, 'node_modules/kuzu/prebuilt/kuzujs-darwin-x64.node'), path.join(stage, 'extension/dist/node_modules/kuzu/other.node'));
      fs.writeFileSync(path.join(stage, 'extension/src/x.ts'), 'export {};\n');
      const z = spawnSync('zip', ['-q', '-r', planted, 'extension'], { cwd: stage });
      assert.equal(z.status, 0, 'zip must be installed');
      const problems: string[] = checkVsix(planted, 'linux-x64', REPO);
      assert.ok(problems.some((p) => /foreign native binary: .*other\.node/.test(p)), problems.join('\n'));
      assert.ok(problems.some((p) => /source file in the package: .*x\.ts/.test(p)), problems.join('\n'));
    } finally {
      fs.rmSync(stage, { recursive: true, force: true });
    }
  });

  test('npm pack ships the CLI and nothing else of the repository', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const files = (JSON.parse(r.stdout)[0].files as { path: string }[]).map((f) => f.path).sort();
    const bundles = fs.readdirSync('dist').filter((n) => /^cli(-[\w]+)?\.js$/.test(n)).map((n) => `dist/${n}`).sort();
    assert.ok(bundles.includes('dist/cli.js') && bundles.includes('dist/cli-main.js'));
    // dist/package.json: the launcher's package scope, so Node does not parse the whole manifest on every run (esbuild.mjs).
    assert.deepEqual(files.filter((f) => f.startsWith('dist/')), [...bundles, 'dist/package.json'].sort(), 'every CLI bundle ships, with its package scope, and nothing else of dist/');
    assert.deepEqual(files.filter((f) => !['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json'].includes(f) && !f.startsWith('dist/')), []);
  });
});

// The V8 code cache (~/.cache/waymark/v8, cli/bundleLoader.ts) writes through a temp file of its
// own: a symbolic link found at the temp file's name is never followed (the file it points at
// keeps its bytes); the cache is then simply not written this time.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadBundle, placeOf } from '../../src/cli/bundleLoader';

// Child mode: plants a link at the temp file name this very process will write, then loads the bundle.
const CHILD = process.env.WM_CACHE_LINK_CHILD;
if (CHILD) {
  const [bundle, cache, victim] = JSON.parse(CHILD) as [string, string, string];
  const bytes = fs.readFileSync(bundle);
  const key = crypto.createHash('sha1').update(bytes).digest('hex').slice(0, 16);
  const cacheFile = path.join(cache, `${path.basename(bundle, '.js')}@${placeOf(bundle)}-${bytes.length}-${key}-${process.version}-${process.arch}.v8`);
  fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
  fs.symlinkSync(victim, `${cacheFile}.${process.pid}.tmp`);
  process.stdout.write(String(loadBundle<{ n: number }>(bundle).n));
} else {
  const tmps: string[] = [];
  after(() => {
    for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
  });
  describe('the V8 code cache', () => {
    test('a link planted at its temp file\'s name is not followed', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-v8link-'));
      tmps.push(dir);
      const bundle = path.join(dir, 'b.js');
      fs.writeFileSync(bundle, 'module.exports = { n: 42 };\n');
      const victim = path.join(dir, 'victim.txt');
      fs.writeFileSync(victim, 'precious\n');
      const cache = path.join(dir, 'v8');
      const r = spawnSync(process.execPath, [__filename], { encoding: 'utf8', env: { ...process.env, WM_CACHE_LINK_CHILD: JSON.stringify([bundle, cache, victim]), WAYMARK_COMPILE_CACHE: cache } });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, '42');
      assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n');
      for (const n of fs.readdirSync(cache)) if (n.endsWith('.v8')) assert.equal(fs.lstatSync(path.join(cache, n)).isSymbolicLink(), false, `${n} is not the planted link`);
    });
  });
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

// node:crypto cost ~50 M instructions to load (~4 % of a 400-story `validate` after a story edit).
// A warm `validate` and one after a story edit need no hash of it: fingerprints are their text,
// the index's checksum is zlib's CRC-32, a temp name's random bytes come from /dev/urandom.
test('validate loads no node:crypto when answered from its stored answer or after a story edit', { skip: !fs.existsSync('dist/cli.js') ? 'dist/cli.js not built (node esbuild.mjs)' : process.platform === 'win32' ? 'no /dev/urandom' : undefined }, async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-nocrypto-'));
  try {
    const proj = path.join(ws, 'p');
    // Old timestamps: no input is racy, so the first run stores its answer and its index.
    fs.cpSync(path.resolve('test/fixtures/bmad-v6'), proj, { recursive: true, preserveTimestamps: true });
    fs.rmSync(path.join(proj, '.waymark'), { recursive: true, force: true });
    const probe = path.join(ws, 'probe.cjs');
    fs.writeFileSync(probe, "process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.moduleLoadList)));\n");
    const out = path.join(ws, 'loaded.json');
    const validate = () => {
      const r = spawnSync(process.execPath, ['-r', probe, path.resolve('dist/cli.js'), 'validate', '--json'], { cwd: proj, encoding: 'utf8', env: { ...process.env, WAYMARK_COMPILE_CACHE: '0', PROBE_OUT: out, NO_COLOR: '1' } });
      assert.ok(r.status === 0 || r.status === 1, r.stderr);
      return { stdout: r.stdout.replace(/"(now|idleMs|idleMinutes)":("[^"]*"|[-0-9.e+]+)/g, ''), crypto: (JSON.parse(fs.readFileSync(out, 'utf8')) as string[]).includes('NativeModule crypto') };
    };
    const first = validate();
    // The folder .waymark/ was made in, past the racy window, so the next runs may store and reuse.
    await new Promise((r) => setTimeout(r, 2100));
    const second = validate();
    assert.equal(second.stdout, first.stdout);
    const warm = validate();
    assert.equal(warm.stdout, first.stdout);
    assert.equal(warm.crypto, false, 'a warm validate loaded node:crypto');
    const story = fs.readdirSync(path.join(proj, '_bmad-output/implementation-artifacts')).find((f) => /^\d+-\d+-.*\.md$/.test(f));
    assert.ok(story, 'the fixture has a story file');
    fs.appendFileSync(path.join(proj, '_bmad-output/implementation-artifacts', story), '\nEdited once.\n');
    const edited = validate();
    assert.equal(edited.crypto, false, 'validate after a story edit loaded node:crypto');
    assert.equal(edited.stdout, first.stdout, 'a line appended to a story changes no answer here');
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
});

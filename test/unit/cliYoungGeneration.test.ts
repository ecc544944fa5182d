import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

// A one-shot verb's process keeps V8's young generation at its first size (launch.ts): on this kind
// of VM every fresh page is a page fault that costs CPU, and a first `validate` of 400 stories grew
// it to 16 MB a semi-space. The probe, preloaded into the CLI's own process, keeps 400,000 small
// objects alive at exit and says how big the young generation then is: 2 MB when it may not grow,
// 16-32 MB when it may.
const PROBE = `process.on('exit', () => {
  const keep = [];
  for (let i = 0; i < 400000; i++) keep.push({ i, s: 'x' + i });
  const ns = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  require('node:fs').writeSync(2, '\\nyoung-generation ' + ns.space_size + ' ' + keep.length + '\\n');
});
`;

test('a routed one-shot verb runs with the young generation kept at its first size; the full CLI (mcp, hooks) lets it grow', { skip: fs.existsSync('dist/cli.js') ? undefined : 'dist/cli.js not built (node esbuild.mjs)' }, () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-young-'));
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-young-cache-'));
  try {
    const probe = path.join(ws, 'probe.cjs');
    fs.writeFileSync(probe, PROBE);
    fs.writeFileSync(path.join(ws, 'a.workflow.md'), '---\nworkflow: a\nstatus: in_progress\nsteps: [x, y]\ncurrentStep: x\nstepsCompleted: []\n---\n');
    const young = (args: string[]) => {
      const r = spawnSync(process.execPath, ['-r', probe, path.resolve('dist/cli.js'), ...args], { cwd: ws, encoding: 'utf8', env: { ...process.env, WAYMARK_COMPILE_CACHE: cache } });
      const m = /young-generation (\d+) 400000/.exec(r.stderr);
      assert.ok(m, `${args.join(' ')}: no probe line (exit ${r.status}): ${r.stderr}`);
      return { size: Number(m[1]), status: r.status };
    };
    for (const args of [['validate', '--json'], ['status', 'a.workflow.md', '--json'], ['sprint'], ['next', '--json']]) {
      const r = young(args);
      assert.ok(r.size <= 2 * 1024 * 1024, `${args[0]}: young generation ${r.size} bytes, expected at most 2 MB`);
    }
    // The full CLI (a long-running `mcp` server among its verbs) keeps V8's default, and the probe sees growth.
    const help = young(['help']);
    assert.equal(help.status, 0);
    assert.ok(help.size >= 8 * 1024 * 1024, `help: young generation ${help.size} bytes, expected V8's growth`);
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

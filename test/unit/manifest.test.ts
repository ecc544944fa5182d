import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { scanRoots } from '../../src/core/store/scan';
import { writeManifest, changedSince, parseManifest, formatManifest } from '../../src/core/store/manifest';

test('manifest rows, CSV round trip, and changedSince (added / removed / state / content)', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-manifest-'));
  try {
    const w = (n: string, t: string) => fs.writeFileSync(path.join(root, n), t);
    w('a.md', '---\nworkflow: a\nstatus: in_progress\nsteps: [x, y]\nstepsCompleted: [x]\ncurrentStep: y\n---\nbody\n');
    w('b.md', '---\nworkflow: "b, with comma"\nsteps: [x]\n---\n');
    w('c.md', '---\nworkflow: c\nsteps: [x]\n---\n');
    let res = await scanRoots([root]);
    const out = writeManifest(root, res.workflows);
    assert.equal(out.file, path.join(root, '.waymark/files-manifest.csv'));
    const text = fs.readFileSync(out.file, 'utf8');
    assert.match(text, /^path,workflow,status,currentStep,stepsDone,stepsTotal,stateHash,contentHash\n/);
    assert.match(text, /^a\.md,a,in_progress,y,1,2,[0-9a-f]{64},[0-9a-f]{64}$/m);
    assert.deepEqual(parseManifest(text), out.rows);
    assert.equal(formatManifest(parseManifest(text)), text);
    assert.deepEqual(changedSince(root, res.workflows), { manifest: out.file, added: [], removed: [], stateChanged: [], contentChanged: [] });

    w('a.md', '---\nworkflow: a\nstatus: in_progress\nsteps: [x, y]\nstepsCompleted: [x, y]\ncurrentStep: y\n---\nbody\n');
    w('b.md', '---\n# a comment\nworkflow: "b, with comma"\nsteps: [x]\nupdatedAt: "2026-01-01"\n---\nnew body\n');
    fs.rmSync(path.join(root, 'c.md'));
    w('d.md', '---\nworkflow: d\nsteps: [x]\n---\n');
    res = await scanRoots([root]);
    assert.deepEqual(changedSince(root, res.workflows), { manifest: out.file, added: ['d.md'], removed: ['c.md'], stateChanged: ['a.md'], contentChanged: ['b.md'] });

    // Configured location, and the CLI verbs.
    fs.writeFileSync(path.join(root, '.waymark/config.yaml'), 'manifest:\n  path: state/manifest.csv\n');
    const cli = path.resolve('dist/cli.js');
    const m = spawnSync(process.execPath, [cli, 'manifest', '--json'], { cwd: root, encoding: 'utf8' });
    assert.equal(m.status, 0, m.stderr);
    assert.equal(JSON.parse(m.stdout).file, 'state/manifest.csv');
    const c = spawnSync(process.execPath, [cli, 'changed', '--json'], { cwd: root, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(c.stdout).added, []);
    w('e.md', '---\nworkflow: e\nsteps: [x]\n---\n');
    const c2 = spawnSync(process.execPath, [cli, 'changed'], { cwd: root, encoding: 'utf8' });
    assert.match(c2.stdout, /added: e\.md/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a manifest path taken by a folder or a FIFO: a clear io error (never waited on), no temp file left', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-mf-'));
  try {
    fs.mkdirSync(path.join(root, '.waymark', 'files-manifest.csv'), { recursive: true });
    assert.throws(() => writeManifest(root, []), (e: unknown) => e instanceof Error && (e as { reason?: string }).reason === 'io' && /is a directory, not a file/.test(e.message));
    assert.deepEqual(fs.readdirSync(path.join(root, '.waymark')), ['files-manifest.csv']);
    fs.rmdirSync(path.join(root, '.waymark', 'files-manifest.csv'));
    if (spawnSync('mkfifo', [path.join(root, '.waymark', 'files-manifest.csv')]).status !== 0) return;
    assert.deepEqual(changedSince(root, []).added, []);
    // Internal paths must be regular files (issue 9, item 23): refused, never opened, never replaced.
    assert.throws(() => writeManifest(root, []), (e: unknown) => e instanceof Error && (e as { reason?: string }).reason === 'io' && /named pipe \(FIFO\), not a regular file/.test(e.message));
    assert.ok(fs.statSync(path.join(root, '.waymark', 'files-manifest.csv')).isFIFO());
    assert.deepEqual(fs.readdirSync(path.join(root, '.waymark')), ['files-manifest.csv']);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createStateCore, readHistoryDetailed, WaymarkError, SCOPES, type Scope } from '../../src/core/index';

// Several real OS processes mutate one file. This bundle doubles as the worker: started with
// WAYMARK_TEST_WORKER set, it runs a loop of mutations instead of registering tests.

const WORKER = process.env.WAYMARK_TEST_WORKER;

const BODY = Array.from({ length: 200 }, (_, i) => `Paragraph ${i}: ${'text '.repeat(12)}`).join('\n') + '\n';
const FILE_TEXT = ['---', '# concurrency fixture', 'workflow: race', 'status: in_progress', 'steps: [a, b, c]', 'stepsCompleted: []', 'currentStep: a', 'scope: small   # changes all the time', '---', BODY].join('\n');

async function workerLoop(file: string, root: string, ops: number, id: string): Promise<void> {
  const core = createStateCore({ roots: [root], actor: `worker-${id}`, session: id });
  for (let i = 0; i < ops; i++) {
    const text = fs.readFileSync(file, 'utf8');
    const { state } = await core.parseText(file, text);
    if (!state) {
      process.stdout.write(JSON.stringify({ op: i, outcome: 'unparseable' }) + '\n');
      continue;
    }
    const choices = SCOPES.filter((s) => s !== state.scope);
    const next = choices[(i + Number(id)) % choices.length] as Scope;
    try {
      const r = await core.setScope(file, next, { expectHash: state.stateHash });
      process.stdout.write(JSON.stringify({ op: i, outcome: 'ok', seq: r.seq, scope: next, hash: r.after.stateHash }) + '\n');
    } catch (e) {
      const reason = WaymarkError.is(e) ? e.reason : 'crash';
      process.stdout.write(JSON.stringify({ op: i, outcome: reason, message: (e as Error).message }) + '\n');
    }
  }
}

async function crashLoop(file: string, root: string): Promise<void> {
  const core = createStateCore({ roots: [root], actor: 'crasher' });
  for (let i = 0; ; i++) {
    const state = await core.reload(file);
    await core.setScope(file, state?.scope === 'small' ? 'large' : 'small');
    if (i === 0) process.stdout.write('started\n');
  }
}

if (WORKER) {
  const [mode, file, root, ops, id] = JSON.parse(WORKER) as [string, string, string, number, string];
  const run = mode === 'crash' ? crashLoop(file, root) : workerLoop(file, root, ops, id);
  run.then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(String(e?.stack ?? e));
      process.exit(1);
    },
  );
} else {
  const tmp: string[] = [];
  after(() => {
    for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
  });
  // Run workers from a private copy of this bundle: a parallel rebuild of dist-test must not pull it away.
  const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-worker-'));
  tmp.push(workerDir);
  const self = path.join(workerDir, 'worker.js');
  fs.copyFileSync(__filename, self);
  const spawnWorker = (args: unknown[]) => spawn(process.execPath, [self], { env: { ...process.env, WAYMARK_TEST_WORKER: JSON.stringify(args) }, stdio: ['ignore', 'pipe', 'pipe'] });

  const setup = () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-conc-'));
    tmp.push(root);
    fs.mkdirSync(path.join(root, '.waymark'));
    const file = path.join(root, 'race.md');
    fs.writeFileSync(file, FILE_TEXT);
    return { root, file };
  };

  describe('concurrency: 4 OS processes x 50 mutations on one file', () => {
    test('every operation lands or is a conflict; final state and history agree; nothing torn', async () => {
      const { root, file } = setup();
      const WORKERS = 4;
      const OPS = 50;
      const outputs: string[] = [];
      let reads = 0;
      let torn = 0;
      let running = WORKERS;
      // A reader samples the file while the writers run: it must always see a whole file.
      const sampler = (async () => {
        while (running > 0) {
          const t = fs.readFileSync(file, 'utf8');
          reads++;
          if (!t.startsWith('---\n# concurrency fixture\n') || !t.endsWith(BODY)) torn++;
          await new Promise((r) => setTimeout(r, 1));
        }
      })();
      await Promise.all(
        Array.from({ length: WORKERS }, (_, w) =>
          new Promise<void>((resolve, reject) => {
            const child = spawnWorker(['loop', file, root, OPS, String(w)]);
            let out = '';
            let err = '';
            child.stdout.on('data', (d) => (out += d));
            child.stderr.on('data', (d) => (err += d));
            child.on('exit', (code) => {
              running--;
              outputs.push(out);
              if (code === 0) resolve();
              else reject(new Error(`worker ${w} exited ${code}: ${err}`));
            });
          }),
        ),
      );
      await sampler;
      const results = outputs.flatMap((o) => o.trim().split('\n')).map((l) => JSON.parse(l) as { outcome: string; seq?: number; scope?: string; hash?: string; message?: string });
      assert.equal(results.length, WORKERS * OPS, 'every operation reported');
      const bad = results.filter((r) => r.outcome !== 'ok' && r.outcome !== 'conflict');
      assert.deepEqual(bad, [], 'only landings and conflicts');
      const landed = results.filter((r) => r.outcome === 'ok');
      assert.ok(landed.length >= 10, `operations landed (${landed.length})`);
      assert.ok(results.some((r) => r.outcome === 'conflict'), 'conflicts happened and were reported');

      const hist = readHistoryDetailed(root, file);
      assert.deepEqual(hist.badLines, [], 'no torn history line');
      assert.equal(hist.entries.length, landed.length, 'one history line per landed operation');
      assert.deepEqual(hist.entries.map((e) => e.seq), hist.entries.map((_, i) => i + 1), 'sequence numbers 1..N in order');
      assert.deepEqual(landed.map((r) => r.seq).sort((a, b) => a! - b!), hist.entries.map((e) => e.seq), 'each landing has its own seq');
      for (let i = 1; i < hist.entries.length; i++) {
        assert.equal(hist.entries[i].hashBefore, hist.entries[i - 1].hashAfter, `history chains at seq ${i + 1}`);
      }
      const core = createStateCore({ roots: [root] });
      const final = await core.reload(file);
      assert.ok(final, 'the file still parses');
      assert.equal(final.stateHash, hist.entries[hist.entries.length - 1].hashAfter, 'final state = last history line');
      assert.equal(final.scope, (hist.entries[hist.entries.length - 1].to as { scope: string }).scope);
      const text = fs.readFileSync(file, 'utf8');
      assert.ok(text.endsWith(BODY) && text.startsWith('---\n# concurrency fixture\n'), 'file whole');
      assert.equal(text.replace(/^scope: \w+ {3}#/m, 'scope: small   #'), FILE_TEXT, 'only the scope value ever changed');
      assert.equal(torn, 0, `reader saw ${torn} torn files in ${reads} reads`);
      assert.deepEqual(fs.readdirSync(root).filter((n) => n.endsWith('.waymark-tmp')), [], 'no temp files left');
      assert.deepEqual(fs.readdirSync(path.join(root, '.waymark', 'locks')).filter((n) => n !== '.gitignore'), [], 'no lock left behind');
    });

    test('the CLI with --expect-hash: parallel processes land or exit 3 with a conflict', async () => {
      const cli = path.resolve('dist/cli.js');
      if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run node esbuild.mjs first (npm test does)');
      const { root, file } = setup();
      const status = spawnSync(process.execPath, [cli, 'scope', file, 'medium', '--json'], { encoding: 'utf8' });
      assert.equal(status.status, 0, status.stderr);
      const hash = (JSON.parse(status.stdout) as { stateHash: string }).stateHash;
      // Four processes all act on the same read: exactly one may land, the rest must conflict.
      const runs = await Promise.all(
        ['small', 'large', 'epic', 'micro'].map(
          (scope) =>
            new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
              const c = spawn(process.execPath, [cli, 'scope', file, scope, '--expect-hash', hash, '--actor', `cli-${scope}`, '--json']);
              let out = '';
              let err = '';
              c.stdout.on('data', (d) => (out += d));
              c.stderr.on('data', (d) => (err += d));
              c.on('exit', (code) => resolve({ code, out, err }));
            }),
        ),
      );
      const codes = runs.map((r) => r.code).sort();
      assert.deepEqual(codes, [0, 3, 3, 3], runs.map((r) => r.err).join('\n'));
      for (const r of runs.filter((x) => x.code === 3)) {
        assert.match(r.err, /changed since it was read/);
        assert.equal((JSON.parse(r.out) as { error: { reason: string } }).error.reason, 'conflict');
      }
      const hist = readHistoryDetailed(root, file).entries;
      assert.equal(hist.length, 2);
      assert.equal(hist[1].actor, `cli-${(JSON.parse(runs.find((r) => r.code === 0)!.out) as { after: { scope: string } }).after.scope}`);
    });
  });

  describe('crash: SIGKILL mid-write leaves the old or the new file', () => {
    test('a writer killed at random moments never leaves a mixed file; the stale lock is broken', async () => {
      const { root, file } = setup();
      // A big body makes each write take long enough to be caught in the middle.
      const big = FILE_TEXT + 'x'.repeat(1_500_000) + '\n';
      fs.writeFileSync(file, big);
      const variants = new Set(['small', 'large'].map((s) => big.replace('scope: small', `scope: ${s}`)));
      for (let round = 0; round < 6; round++) {
        const child = spawnWorker(['crash', file, root, 0, 'c']);
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        await new Promise<void>((resolve, reject) => {
          child.stdout.once('data', () => resolve());
          child.once('exit', (code) => reject(new Error(`crash worker exited early (${code}): ${err}`)));
        });
        child.removeAllListeners('exit');
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 60));
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
        const text = fs.readFileSync(file, 'utf8');
        assert.ok(variants.has(text), `round ${round}: file is exactly the old or the new version (length ${text.length})`);
        const hist = readHistoryDetailed(root, file);
        assert.ok(hist.entries.length > 0);
      }
      // The last killed writer may have died holding the lock: the next write must not wait for it.
      const core = createStateCore({ roots: [root], actor: 'after-crash' });
      const t0 = Date.now();
      const state = await core.reload(file);
      const r = await core.setScope(file, state?.scope === 'small' ? 'medium' : 'small');
      assert.ok(Date.now() - t0 < 5000, 'a dead writer\'s lock did not make us wait it out');
      assert.ok(r.written);
      assert.deepEqual(fs.readdirSync(root).filter((n) => n.endsWith('.waymark-tmp')), [], 'temp files of killed writers are cleaned up');
      const hist = readHistoryDetailed(root, file);
      assert.deepEqual(hist.badLines, [], 'a torn history tail was repaired on append');
      assert.deepEqual(hist.entries.map((e) => e.seq), hist.entries.map((_, i) => i + 1));
    });
  });
}

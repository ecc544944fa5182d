import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { createStateCore, readHistory, acquireFileLock, lockPathFor, WaymarkError, SCOPES, type Scope } from '../../src/core/index';
import { readEvents, appendEvent } from '../../src/core/protocol/events';
import { leaseStatus, acquireLease, type Lease } from '../../src/core/protocol/leases';
import { MemoryService } from '../../src/core/memory/memoryService';
import { processStartTime } from '../../src/core/store/processes';
import { sweepGitIndexes } from '../../src/core/protocol/git';
import { journalLeft, journalLeftSettled, oneFileWorkspace, outsideFolder } from './fileHelpers';

// Issue 9, items 15-28: nothing outside the workspace, nothing lost under faults. Real files,
// real symlinks and FIFOs, real processes (SIGSTOP, SIGKILL) and the real CLI. Started with
// WAYMARK_SAFETY_WORKER set, this bundle is the worker process instead.

const WORKER = process.env.WAYMARK_SAFETY_WORKER;
const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [a, b, c]\ncurrentStep: a\nstepsCompleted: []\nscope: small\n---\nbody\n';

async function pauseJob(file: string, root: string): Promise<void> {
  // Pauses itself (SIGSTOP) under the file lock, after reading the file: a laptop lid closing.
  let paused = false;
  const core = createStateCore({
    roots: [root],
    guards: [
      () => {
        if (paused) return;
        paused = true;
        process.stdout.write('paused\n');
        process.kill(process.pid, 'SIGSTOP');
      },
    ],
  });
  try {
    await core.setScope(file, 'large');
    process.stdout.write(JSON.stringify({ outcome: 'ok' }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ outcome: WaymarkError.is(e) ? e.reason : 'crash', message: (e as Error).message }) + '\n');
  }
}

async function crashJob(file: string, root: string): Promise<void> {
  const core = createStateCore({ roots: [root], actor: 'crasher', memory: false });
  for (let i = 0; ; i++) {
    const state = await core.reload(file);
    await core.setScope(file, SCOPES[(SCOPES.indexOf(state!.scope as Scope) + 1) % SCOPES.length]);
    if (i === 0) process.stdout.write('started\n');
  }
}

if (WORKER) {
  const [job, file, root] = JSON.parse(WORKER) as [string, string, string];
  const run = job === 'pause' ? pauseJob(file, root) : crashJob(file, root);
  run.then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(String(e?.stack ?? e));
      process.exit(1);
    },
  );
} else {
  const tmp: string[] = [];
  const immutable: string[] = [];
  after(() => {
    for (const p of immutable) spawnSync('chattr', ['-i', p]);
    for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
  });
  const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-safety-worker-'));
  tmp.push(workerDir);
  const self = path.join(workerDir, 'worker.js');
  fs.copyFileSync(__filename, self);
  // WAYMARK_TEST_CLI runs the CLI-level checks against another build (e.g. one from before a fix).
  const cli = process.env.WAYMARK_TEST_CLI ?? path.resolve('dist/cli.js');

  const ws = () => oneFileWorkspace('waymark-safety-', WF, tmp);
  const outside = () => outsideFolder('waymark-outside-', tmp);
  /** The real CLI in its own process; never waits more than 15 s (a hang is a failure, not a stall). */
  const run = (cwd: string, args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 15_000, env: { ...process.env, WAYMARK_MEMORY_ENGINE: 'journal', WAYMARK_SCAN_INDEX: '0', ...env } });
    assert.ok(!r.error, `waymark ${args.join(' ')} hung or failed to start: ${r.error?.message}`);
    return r;
  };
  /** Makes a path unwritable even for root (chattr +i); false when that is not possible here. */
  const freeze = (p: string): boolean => {
    if (spawnSync('chattr', ['+i', p]).status === 0) {
      immutable.push(p);
      return true;
    }
    if (process.getuid?.() !== 0) {
      fs.chmodSync(p, 0o555);
      return true;
    }
    return false;
  };
  const thaw = (p: string) => {
    spawnSync('chattr', ['-i', p]);
    fs.chmodSync(p, 0o755);
  };
  const snapshot = (dir: string) => fs.readdirSync(dir, { recursive: true }).map(String).sort();
  const stateLetter = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];

  describe('safety: nothing outside the workspace', () => {
    test('15: memory.hotFile / coldFile / dir outside the workspace are refused before writing (exit 2, naming the setting)', async () => {
      const { root } = ws();
      const out = outside();
      const precious = path.join(out, 'precious.txt');
      fs.writeFileSync(precious, 'keep me\n');
      const rel = path.relative(root, precious);
      fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), `memory:\n  hotFile: ${rel}\n`);
      // Lexically outside: the config schema drops the setting (and validate reports it).
      const r = run(root, ['session', 'start']);
      assert.equal(fs.readFileSync(precious, 'utf8'), 'keep me\n');
      assert.ok(r.status === 0 || r.status === 2, r.stderr);
      // Inside by its name, outside by its real path (a linked folder): refused, naming the link.
      fs.symlinkSync(out, path.join(root, 'notes'));
      fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), 'memory:\n  hotFile: notes/precious.txt\n');
      const r2 = run(root, ['session', 'start']);
      assert.equal(r2.status, 2, r2.stderr + r2.stdout);
      assert.ok(r2.stderr.includes(path.join(root, 'notes')), r2.stderr);
      assert.match(r2.stderr, /outside the workspace/);
      assert.equal(fs.readFileSync(precious, 'utf8'), 'keep me\n');
      fs.rmSync(path.join(root, '.waymark', 'config.yaml'));
      // coldFile as an absolute path elsewhere, memory.dir above the workspace: same rule.
      const notes = path.join(out, 'notes.md');
      fs.writeFileSync(notes, '# mine\n');
      const m = new MemoryService({ root, config: { coldFile: notes } });
      await assert.rejects(m.files.appendCold([{ section: 'Key decisions', line: 'x' }]), (e: unknown) => WaymarkError.is(e, 'usage') && /memory\.coldFile/.test(e.message));
      assert.equal(fs.readFileSync(notes, 'utf8'), '# mine\n');
      const m2 = new MemoryService({ root, config: { dir: path.relative(root, path.join(out, 'mem')), engine: 'journal' } });
      await assert.rejects(m2.record({ type: 'learning', text: 'x', category: 'gotcha' }), (e: unknown) => WaymarkError.is(e, 'usage'));
      assert.deepEqual(snapshot(out), ['notes.md', 'precious.txt']);
      await m.dispose?.();
      await m2.dispose?.();
    });

    test('16: a symlink inside .waymark (history, gates, events, locks, memory, .waymark itself) leading outside: exit 2 naming the link, nothing written anywhere', () => {
      const cases: { name: string; link: (root: string, out: string) => string; args: (file: string) => string[] }[] = [
        { name: 'history folder', link: (r, o) => (fs.symlinkSync(o, path.join(r, '.waymark', 'history')), path.join(r, '.waymark', 'history')), args: (f) => ['advance', f] },
        {
          name: 'history file',
          link: (r, o) => {
            fs.mkdirSync(path.join(r, '.waymark', 'history'));
            fs.writeFileSync(path.join(o, 'victim.jsonl'), 'x\n');
            fs.symlinkSync(path.join(o, 'victim.jsonl'), path.join(r, '.waymark', 'history', 'a.md.jsonl'));
            return path.join(r, '.waymark', 'history', 'a.md.jsonl');
          },
          args: (f) => ['advance', f],
        },
        { name: 'events folder', link: (r, o) => (fs.symlinkSync(o, path.join(r, '.waymark', 'events')), path.join(r, '.waymark', 'events')), args: (f) => ['advance', f] },
        { name: 'locks folder', link: (r, o) => (fs.symlinkSync(o, path.join(r, '.waymark', 'locks')), path.join(r, '.waymark', 'locks')), args: (f) => ['advance', f] },
        {
          name: 'gate file',
          link: (r, o) => {
            fs.mkdirSync(path.join(r, '.waymark', 'gates', 'a'), { recursive: true });
            fs.writeFileSync(path.join(o, 'victim.gate'), 'gate: FAIL\n');
            fs.symlinkSync(path.join(o, 'victim.gate'), path.join(r, '.waymark', 'gates', 'a', 'a.gate'));
            return path.join(r, '.waymark', 'gates', 'a', 'a.gate');
          },
          args: (f) => ['gate', 'pass', f, 'a'],
        },
        { name: 'memory folder', link: (r, o) => (fs.symlinkSync(o, path.join(r, '.waymark', 'memory')), path.join(r, '.waymark', 'memory')), args: () => ['memory', 'record', '--type', 'learning', '--category', 'gotcha', 'x'] },
        {
          name: '.waymark itself',
          link: (r, o) => {
            fs.rmSync(path.join(r, '.waymark'), { recursive: true });
            fs.symlinkSync(o, path.join(r, '.waymark'));
            return path.join(r, '.waymark');
          },
          args: (f) => ['advance', f],
        },
      ];
      for (const c of cases) {
        const { root, file } = ws();
        const out = outside();
        const link = c.link(root, out);
        const before = snapshot(out).map((n) => [n, fs.statSync(path.join(out, n)).isFile() ? fs.readFileSync(path.join(out, n), 'utf8') : '/']);
        const r = run(root, c.args(file));
        assert.equal(r.status, 2, `${c.name}: ${r.stderr}${r.stdout}`);
        assert.ok(r.stderr.includes(link), `${c.name}: the error names the link ${link}: ${r.stderr}`);
        assert.match(r.stderr, /outside the workspace/, c.name);
        assert.equal(fs.readFileSync(file, 'utf8'), WF, `${c.name}: the workflow file is unchanged`);
        const now = snapshot(out).map((n) => [n, fs.statSync(path.join(out, n)).isFile() ? fs.readFileSync(path.join(out, n), 'utf8') : '/']);
        assert.deepEqual(now, before, `${c.name}: nothing written outside`);
      }
    });

    test('16: the scan cache folder linked outside: the scan still answers, nothing is written there', () => {
      const { root } = ws();
      const out = outside();
      fs.symlinkSync(out, path.join(root, '.waymark', 'cache'));
      const r = run(root, ['validate', '.'], { WAYMARK_SCAN_INDEX: '1' });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      assert.deepEqual(fs.readdirSync(out), [], 'no index written outside');
    });

    test('18: swapping the file for a symlink during writes never sends a write outside', async () => {
      const { root, file } = ws();
      const out = outside();
      const victim = path.join(out, 'victim.md');
      fs.writeFileSync(victim, WF.replace('scope: small', 'scope: micro'));
      const victimBytes = fs.readFileSync(victim, 'utf8');
      // A separate process flips a.md between the real file and a link to the victim, as fast as it can.
      const swapper = spawn(process.execPath, [
        '-e',
        `const fs=require('fs');const f=${JSON.stringify(file)},a=f+'.aside',l=f+'.link';` +
          `for(;;){try{fs.symlinkSync(${JSON.stringify(victim)},l);fs.renameSync(f,a);fs.renameSync(l,f);fs.renameSync(a,f);}catch(e){try{fs.unlinkSync(l)}catch{}}}`,
      ]);
      try {
        const core = createStateCore({ roots: [root] });
        let ok = 0;
        for (let i = 0; i < 60; i++) {
          try {
            await core.setScope(file, i % 2 ? 'large' : 'medium');
            ok++;
          } catch (e) {
            assert.ok(WaymarkError.is(e), `a refusal, not a crash: ${String(e)}`);
          }
        }
        assert.ok(ok >= 0);
      } finally {
        swapper.kill('SIGKILL');
        await new Promise((r) => swapper.once('exit', r));
      }
      assert.equal(fs.readFileSync(victim, 'utf8'), victimBytes, 'the file outside was never written');
      assert.deepEqual(fs.readdirSync(out), ['victim.md'], 'no temp file outside');
    });

    test('19: delegate --out ../../x.md or an absolute path outside the workspace is refused (exit 2), nothing created', () => {
      const { root, file } = ws();
      const out = outside();
      for (const target of [path.relative(root, path.join(out, 'x.md')), path.join(out, 'y.md')]) {
        const r = run(root, ['delegate', file, '--agent', 'dev', '--out', target]);
        assert.equal(r.status, 2, r.stderr);
        assert.match(r.stderr, /outside the workspace/);
      }
      assert.deepEqual(fs.readdirSync(out), []);
      assert.equal(fs.readFileSync(file, 'utf8'), WF);
    });

    test('20: six concurrent delegate processes from one parent get six distinct child ids', async () => {
      const { root, file } = ws();
      const procs = Array.from({ length: 6 }, () =>
        new Promise<number | null>((resolve) => {
          const c = spawn(process.execPath, [cli, 'delegate', file, '--agent', 'dev'], { cwd: root, env: { ...process.env, WAYMARK_MEMORY_ENGINE: 'journal' }, stdio: 'ignore' });
          c.on('exit', (code) => resolve(code));
        }),
      );
      const codes = await Promise.all(procs);
      assert.deepEqual(codes, [0, 0, 0, 0, 0, 0]);
      const children = fs.readdirSync(root).filter((n) => n.startsWith('a.dev'));
      assert.equal(children.length, 6);
      const ids = children.map((n) => /\n {2}id: "([^"]+)"/.exec(fs.readFileSync(path.join(root, n), 'utf8'))![1]);
      assert.equal(new Set(ids).size, 6, `distinct ids: ${ids.join(', ')}`);
      const v = run(root, ['validate', '.']);
      assert.doesNotMatch(v.stdout, /delegation-duplicate|duplicate/, v.stdout);
    });
  });

  describe('safety: nothing lost under faults', () => {
    test('17: a paused lock holder keeps its lock (never broken by age on this host); if it is lost anyway, the paused write is a conflict, never a lost update', async () => {
      for (const scenario of ['age', 'lock-taken', 'file-changed'] as const) {
        const { root, file } = ws();
        const w = spawn(process.execPath, [self], { env: { ...process.env, WAYMARK_SAFETY_WORKER: JSON.stringify(['pause', file, root]) }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        w.stdout!.on('data', (d) => (stdout += d));
        const exited = new Promise<void>((r) => w.once('exit', () => r()));
        for (let i = 0; i < 200 && !(stdout.includes('paused') && stateLetter(w.pid!) === 'T'); i++) await new Promise((r) => setTimeout(r, 25));
        assert.equal(stateLetter(w.pid!), 'T', 'the holder is stopped');
        const lockPath = lockPathFor(file, { root });
        // The holder's lock looks two minutes old (a laptop that slept).
        const old = new Date(Date.now() - 120_000);
        const info = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
        fs.writeFileSync(lockPath, JSON.stringify({ ...info, time: old.toISOString() }));
        fs.utimesSync(lockPath, old, old);
        const newer = WF.replace('scope: small', 'scope: epic');
        if (scenario === 'age') {
          await assert.rejects(acquireFileLock(file, { root, waitMs: 300 }), (e: unknown) => WaymarkError.is(e, 'locked'));
        } else if (scenario === 'lock-taken') {
          // Someone broke it anyway (another host's rules) and wrote newer work.
          fs.writeFileSync(lockPath, JSON.stringify({ ...info, host: 'elsewhere', token: 'theirs' }));
          fs.writeFileSync(file, newer);
        } else {
          // An editor wrote the file without the lock.
          fs.writeFileSync(file, newer);
        }
        w.kill('SIGCONT');
        await exited;
        const res = JSON.parse(stdout.trim().split('\n').pop()!);
        if (scenario === 'age') {
          assert.equal(res.outcome, 'ok', stdout);
          assert.match(fs.readFileSync(file, 'utf8'), /scope: large/);
        } else {
          assert.equal(res.outcome, 'conflict', `${scenario}: ${stdout}`);
          assert.equal(fs.readFileSync(file, 'utf8'), newer, `${scenario}: the newer work survives`);
          assert.deepEqual(readHistory(root, file), [], `${scenario}: no history for a write that did not happen`);
        }
      }
    });

    test('21: a history line over 64 KB does not restart seq at 1; --reason is capped', async () => {
      const { root, file } = ws();
      const steps = Array.from({ length: 3000 }, (_, i) => `step-number-${String(i).padStart(6, '0')}-with-a-long-name`);
      // Each advance records the whole stepsCompleted list before and after: a line of ~250 KB.
      fs.writeFileSync(file, `---\nworkflow: big\nstatus: in_progress\nsteps: [${steps.join(', ')}]\ncurrentStep: ${steps[2997]}\nstepsCompleted: [${steps.slice(0, 2997).join(', ')}]\n---\n`);
      const core = createStateCore({ roots: [root] });
      await core.advance(file);
      await core.setScope(file, 'large');
      await core.advance(file);
      const hist = readHistory(root, file);
      assert.ok(fs.readFileSync(path.join(root, '.waymark', 'history', 'a.md.jsonl'), 'utf8').split('\n').some((l) => l.length > 64 * 1024), 'a line over 64 KB was written');
      assert.deepEqual(hist.map((e) => e.seq), [1, 2, 3]);
      const r = run(root, ['block', file, '--reason', 'x'.repeat(5000)]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /--reason is 5000 characters; the limit is 4000/);
    });

    test('22: SIGKILLs at random moments never leave a change without its history line and event', async () => {
      const { root, file } = ws();
      for (let k = 0; k < 30; k++) {
        const w = spawn(process.execPath, [self], { env: { ...process.env, WAYMARK_SAFETY_WORKER: JSON.stringify(['crash', file, root]) }, stdio: ['ignore', 'pipe', 'ignore'] });
        await new Promise<void>((resolve) => w.stdout!.once('data', () => resolve()));
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 60));
        w.kill('SIGKILL');
        await new Promise((r) => w.once('exit', r));
      }
      // The next writer completes what the killed ones journalled.
      const core = createStateCore({ roots: [root], memory: false });
      const state = await core.reload(file);
      await core.setScope(file, state!.scope === 'epic' ? 'micro' : 'epic');
      const hist = readHistory(root, file);
      assert.ok(hist.length > 30, `${hist.length} lines`);
      for (let i = 1; i < hist.length; i++) {
        assert.equal(hist[i].hashBefore, hist[i - 1].hashAfter, `line ${hist[i].seq} starts where line ${hist[i - 1].seq} ended: no change without its line`);
      }
      const final = (await core.reload(file))!;
      assert.equal(hist[hist.length - 1].hashAfter, final.stateHash, 'history ends at the file');
      const seqs = hist.map((e) => e.seq);
      assert.deepEqual(seqs, seqs.map((_, i) => i + 1), 'seq has no gap or repeat');
      const events = readEvents(root, 0).events.filter((e) => e.type.startsWith('workflow.'));
      const logged = events.map((e) => e.data?.historySeq as number);
      for (const s of seqs) assert.ok(logged.includes(s), `history line ${s} has its event`);
      assert.equal(new Set(logged).size, logged.length, 'no event logged twice');
      assert.deepEqual(await journalLeftSettled(root), [], 'every intent completed');
      assert.deepEqual(fs.readdirSync(root).filter((n) => n.endsWith('.waymark-tmp')), [], 'temp files of killed writers swept');
    });

    test('22: an event that could not be logged (events log held by a live process) is logged by the next writer', async () => {
      const { root, file } = ws();
      const holder = spawn('sleep', ['60']);
      try {
        const events = path.join(root, '.waymark', 'events');
        fs.mkdirSync(events, { recursive: true });
        fs.writeFileSync(path.join(events, 'events.lock'), JSON.stringify({ pid: holder.pid, host: os.hostname(), start: processStartTime(holder.pid!), time: Date.now() }));
        const r = run(root, ['advance', file]);
        assert.equal(r.status, 0, r.stderr);
        assert.equal(readEvents(root, 0).events.length, 0, 'the event could not be logged meanwhile');
        assert.equal(journalLeft(root).length, 1, 'its intent stays');
      } finally {
        holder.kill('SIGKILL');
        await new Promise((r) => holder.once('exit', r));
      }
      const r2 = run(root, ['scope', file, 'large']);
      assert.equal(r2.status, 0, r2.stderr);
      const logged = readEvents(root, 0).events.filter((e) => e.type.startsWith('workflow.')).map((e) => e.data?.historySeq);
      assert.deepEqual(logged, [1, 2]);
      assert.deepEqual(journalLeft(root), []);
    });

    test('23: a FIFO at an internal path is refused at once (exit 2) and before the workflow file is written', () => {
      const fifos: { name: string; at: (root: string) => string; args: (file: string) => string[] }[] = [
        { name: 'events.jsonl', at: (r) => path.join(r, '.waymark', 'events', 'events.jsonl'), args: (f) => ['advance', f] },
        { name: 'events.lock', at: (r) => path.join(r, '.waymark', 'events', 'events.lock'), args: (f) => ['advance', f] },
        { name: 'history', at: (r) => path.join(r, '.waymark', 'history', 'a.md.jsonl'), args: (f) => ['advance', f] },
        { name: 'file lock', at: (r) => lockPathFor(path.join(r, 'a.md'), { root: r }), args: (f) => ['advance', f] },
        { name: 'inbox.jsonl', at: (r) => path.join(r, '.waymark', 'memory', 'inbox.jsonl'), args: () => ['memory', 'record', '--type', 'learning', '--category', 'gotcha', 'x'] },
        { name: 'hot file', at: (r) => path.join(r, '.waymark', 'memory', 'session_state.md'), args: () => ['session', 'start'] },
        { name: 'session.json', at: (r) => path.join(r, '.waymark', 'memory', 'session.json'), args: () => ['session', 'start'] },
        { name: 'workflow-state.json', at: (r) => path.join(r, '.waymark', 'memory', 'workflow-state.json'), args: () => ['sync'] },
        { name: 'lease', at: (r) => path.join(r, '.waymark', 'leases', 'root.json'), args: () => ['lease', 'acquire'] },
        { name: 'checkpoint', at: (r) => path.join(r, '.waymark', 'checkpoints', '20261123T120000Z-0abc.json'), args: () => ['checkpoint', 'show', '20261123T120000Z-0abc'] },
      ];
      for (const c of fifos) {
        const { root, file } = ws();
        const p = c.at(root);
        fs.mkdirSync(path.dirname(p), { recursive: true });
        execFileSync('mkfifo', [p]);
        const t0 = Date.now();
        const r = run(root, c.args(file));
        assert.ok(Date.now() - t0 < 10_000, `${c.name}: answered at once`);
        assert.equal(r.status, 2, `${c.name}: ${r.stderr}${r.stdout}`);
        assert.match(r.stderr, /named pipe|FIFO|not a regular file/, c.name);
        assert.equal(fs.readFileSync(file, 'utf8'), WF, `${c.name}: the workflow file was not written`);
      }
    });

    test('24: with the history folder unwritable, advance changes nothing and exits 2', (t) => {
      const { root, file } = ws();
      const core = createStateCore({ roots: [root] });
      return (async () => {
        await core.setScope(file, 'large');
        // The write's lock is held until the history line its intent covers is flushed, after the
        // answer: settled before this thread blocks in spawnSync (it could not finish it meanwhile).
        await core.memory.settled();
        const text = fs.readFileSync(file, 'utf8');
        const hist = path.join(root, '.waymark', 'history');
        const histFile = path.join(hist, 'a.md.jsonl');
        if (!freeze(histFile) || !freeze(hist)) {
          t.skip('cannot make a folder unwritable here');
          return;
        }
        try {
          const r = run(root, ['advance', file]);
          assert.equal(r.status, 2, r.stderr);
          assert.match(r.stderr, /Cannot write history .*not writable.*Nothing was changed\./);
          assert.equal(fs.readFileSync(file, 'utf8'), text, 'the workflow file is unchanged');
        } finally {
          thaw(histFile);
          thaw(hist);
        }
      })();
    });

    test('25: orphans after crashes are swept: dead-pid gate locks and temp files, git temp indexes', async () => {
      const { root, file } = ws();
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      const deadPid = Number(dead.stdout);
      const gateDir = path.join(root, '.waymark', 'gates', 'a');
      fs.mkdirSync(gateDir, { recursive: true });
      const gateTemp = path.join(gateDir, `.a.gate.${deadPid}.deadbeef.waymark-tmp`);
      fs.writeFileSync(gateTemp, 'gate: PA');
      const gateLock = lockPathFor(path.join(gateDir, 'a.gate'), { root });
      fs.mkdirSync(path.dirname(gateLock), { recursive: true });
      fs.writeFileSync(gateLock, JSON.stringify({ pid: deadPid, host: os.hostname(), time: new Date().toISOString(), token: 'x', file: path.join(gateDir, 'a.gate') }));
      // A dead writer's lock on a memory file nobody will lock again.
      const otherLock = lockPathFor(path.join(root, '.waymark', 'memory', 'orchestrator_memory.md'), { root });
      fs.writeFileSync(otherLock, JSON.stringify({ pid: deadPid, host: os.hostname(), time: new Date().toISOString(), token: 'y', file: 'x' }));
      const core = createStateCore({ roots: [root] });
      await core.gatePass(file, 'a', { reason: 'ok' });
      assert.equal(fs.existsSync(gateTemp), false, 'gate temp of a dead writer removed');
      assert.equal(fs.existsSync(otherLock), false, 'dead-pid lock beside another file removed');
      // A memory writer killed holding the hot file's lock left its temp file.
      const mem = path.join(root, '.waymark', 'memory');
      fs.mkdirSync(mem, { recursive: true });
      const hot = path.join(mem, 'session_state.md');
      const memTemp = path.join(mem, `.session_state.md.${deadPid}.cafe0001.waymark-tmp`);
      fs.writeFileSync(memTemp, 'half');
      fs.writeFileSync(lockPathFor(hot, { root }), JSON.stringify({ pid: deadPid, host: os.hostname(), time: new Date().toISOString(), token: 'z', file: hot }));
      const ms = run(root, ['session', 'start']);
      assert.equal(ms.status, 0, ms.stderr);
      assert.equal(fs.existsSync(memTemp), false, 'memory temp of a dead writer removed');
      const idx = path.join(os.tmpdir(), `waymark-index-${deadPid}-0badc0de`);
      fs.writeFileSync(idx, 'index');
      fs.writeFileSync(`${idx}.lock`, 'lock');
      const live = path.join(os.tmpdir(), `waymark-index-${process.pid}-0badc0de`);
      fs.writeFileSync(live, 'mine');
      try {
        const removed = sweepGitIndexes();
        assert.ok(removed.includes(idx) && removed.includes(`${idx}.lock`), removed.join(', '));
        assert.ok(fs.existsSync(live), 'a live process keeps its index');
      } finally {
        fs.rmSync(live, { force: true });
      }
    });

    test('26: a 0444 workflow file is refused ("chmod u+w"), not silently rewritten', () => {
      const { root, file } = ws();
      fs.chmodSync(file, 0o444);
      const r = run(root, ['advance', file]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /read-only; chmod u\+w .*a\.md to allow Waymark to write it/);
      assert.equal(fs.readFileSync(file, 'utf8'), WF);
      assert.equal(fs.statSync(file).mode & 0o777, 0o444);
    });

    test('27: validate and mutations give one answer: 1 MB key, UTF-16, ---json', () => {
      const { root } = ws();
      fs.writeFileSync(path.join(root, 'bigkey.md'), WF.replace('scope: small', `${'k'.repeat(1_000_000)}: 1\nscope: small`));
      fs.writeFileSync(path.join(root, 'u16.md'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(WF, 'utf16le')]));
      fs.writeFileSync(path.join(root, 'json.md'), '---json\n{"workflow": "w", "status": "in_progress"}\n---\nbody\n');
      const v = run(root, ['validate', '.']);
      assert.equal(v.status, 1, v.stdout + v.stderr);
      assert.match(v.stdout, /bigkey\.md:\d+:\d+ error yaml-syntax/);
      assert.match(v.stdout, /json\.md:1:1 error frontmatter-language/);
      assert.match(v.stdout + v.stderr, /u16\.md: unreadable \(UTF-16 text; Waymark reads UTF-8 only/);
      assert.doesNotMatch(v.stdout + v.stderr, /u16\.md: binary/);
      const a = run(root, ['advance', path.join(root, 'bigkey.md')]);
      assert.notEqual(a.status, 0);
      const u = run(root, ['advance', path.join(root, 'u16.md')]);
      assert.match(u.stderr, /UTF-16 text; Waymark reads UTF-8 only/);
    });

    test('28: a lease whose pid was reused is stale; events.jsonl as a folder is an error; a read-only memory folder says so', async () => {
      const { root, file } = ws();
      // A lease held by "this pid" but recorded with another start time: the pid was reused.
      const start = processStartTime(process.pid);
      assert.ok(start, '/proc gives start times here');
      const lease: Lease = { key: 'root', target: '*', owner: { agent: 'old', pid: process.pid, start: String(Number(start) - 1), host: os.hostname() }, acquiredAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 3_600_000).toISOString() };
      assert.equal(leaseStatus(lease).staleReason, 'dead-process');
      assert.equal(leaseStatus({ ...lease, owner: { ...lease.owner, start } }).stale, false, 'the same process keeps it');
      const acquired = await acquireLease(root, undefined, { agent: 'me', pid: process.pid, host: os.hostname() }, { events: false });
      assert.equal(acquired.lease.owner.start, start, 'the start time is recorded with the pid');
      fs.rmSync(path.join(root, '.waymark', 'leases'), { recursive: true });
      // events.jsonl replaced by a folder: the write is refused before it happens, appendEvent throws.
      fs.mkdirSync(path.join(root, '.waymark', 'events', 'events.jsonl'), { recursive: true });
      const r = run(root, ['advance', file]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /events\.jsonl is a folder/);
      assert.equal(fs.readFileSync(file, 'utf8'), WF);
      assert.throws(() => appendEvent(root, { type: 'x' }), (e: unknown) => WaymarkError.is(e) && /is a folder/.test(e.message));
      // A memory folder that cannot be written: "not writable", never "corrupt? run rebuild".
      const mem = path.join(root, '.waymark', 'memory');
      fs.mkdirSync(mem, { recursive: true });
      fs.writeFileSync(path.join(mem, 'inbox.jsonl'), '');
      if (!freeze(mem)) return;
      try {
        const s = run(root, ['memory', 'status', '--json'], { WAYMARK_MEMORY_ENGINE: '' });
        // Says what is wrong (the folder cannot be written), never 'corrupt? run rebuild'.
      assert.match(s.stdout + s.stderr, /not writable|read-only; chmod u\+w/);
      assert.doesNotMatch(s.stdout + s.stderr, /corrupt|rebuild/);
        assert.doesNotMatch(s.stdout + s.stderr, /corrupt|run .*rebuild/);
      } finally {
        thaw(mem);
      }
    });
  });
}

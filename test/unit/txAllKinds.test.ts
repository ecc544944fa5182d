// Every kind of state write is one transaction (engine/transaction.ts): a real `waymark` process
// SIGKILLed at each point between its first and last rename (and after its history line), then
// the next writer leaves every file of the change all old or all new, with exactly one history
// line per changed file, and no intent left in the journal.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { spawnSync } from 'node:child_process';
import { journalIntent, journalLeft as journalFiles, workspace } from './fileHelpers';
import { gateTextHash } from '../../src/core/index';
import { readHistory } from '../../src/core/store/history';

const CLI = path.resolve('dist/cli.js');

function cli(dir: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, ...env, WAYMARK_ACTOR: 'test', WAYMARK_SESSION: '' } });
}

const read = (dir: string, rel: string) => {
  try {
    return fs.readFileSync(path.join(dir, rel), 'utf8');
  } catch {
    return undefined;
  }
};

function journalLeft(dir: string): string[] {
  return journalFiles(dir).filter((f) => f.startsWith('tx.') && !f.endsWith('.bad'));
}

function killed(dir: string, args: string[], hook: string, n: string): void {
  const r = cli(dir, args, { [hook]: n });
  assert.equal(r.signal, 'SIGKILL', `the writer was to die at ${hook}=${n}: status ${r.status} ${r.stderr}`);
}

const DEF = 'steps:\n  - build\n  - id: review\n    gate: true\n  - ship\n';
const plan = (done: string[], current: string, status = 'in_progress') => `---\nworkflow: release\nstatus: ${status}\nstepsCompleted: [${done.join(', ')}]\ncurrentStep: ${current}\n---\nBody\n`;

describe('gate verdicts are one transaction: the gate file and the workflow history line with its hash', () => {
  const GATE = '.waymark/gates/rel/review.gate';
  const points: [string, string][] = [['WAYMARK_TX_DIE_AFTER_RENAME', '0'], ['WAYMARK_TX_DIE_AFTER_RENAME', '1'], ['WAYMARK_TX_DIE_AFTER_HISTORY', '1']];
  for (const next of ['a workflow write (scope)', 'another gate verdict']) {
    for (const [hook, n] of points) {
      test(`killed with ${hook}=${n}, then ${next}: the gate file and its history line are both there or both not, once`, () => {
        const dir = workspace({ '.waymark/workflows/release.yaml': DEF, 'rel.md': plan(['build'], 'review') }, { prefix: 'wm-txgate-' });
        assert.equal(cli(dir, ['gate', 'fail', 'rel.md', 'review', '--by', 'ana', '--reason', 'flaky']).status, 0);
        const old = read(dir, GATE)!;
        killed(dir, ['gate', 'pass', 'rel.md', 'review', '--by', 'bo'], hook, n);
        const r = next.startsWith('a workflow') ? cli(dir, ['scope', 'rel.md', 'small']) : cli(dir, ['gate', 'fail', 'rel.md', 'build', '--by', 'cy']);
        assert.equal(r.status, 0, r.stderr);
        const now = read(dir, GATE)!;
        const passes = readHistory(dir, path.join(dir, 'rel.md')).filter((e) => e.operation === 'gate-pass');
        if (n === '0') {
          assert.equal(now, old, 'killed before its rename: the gate file is as it was');
          assert.equal(passes.length, 0);
        } else {
          assert.match(now, /PASS/);
          assert.equal(passes.length, 1, JSON.stringify(passes));
          assert.equal(passes[0].detail?.gateSha256, gateTextHash(now), 'the recorded hash is the gate file on disk');
        }
        assert.deepEqual(journalLeft(dir), []);
        // The recorded verdict is trusted (gates.trust: recorded): advance passes only a recorded PASS.
        const adv = cli(dir, ['advance', 'rel.md']);
        assert.equal(adv.status === 0, n !== '0', adv.stderr);
      });
    }
  }
});

const DEF3 = 'steps:\n  - a\n  - b\n  - c\n';
const FILES = ['x.md', 'y.md', 'z.md'];
const flow = (done: string[], current: string) => `---\nworkflow: three\nstatus: in_progress\nstepsCompleted: [${done.join(', ')}]\ncurrentStep: ${current}\n---\nBody of the work\n`;

/** Three workflows checkpointed at step b, then moved on past it: a restore changes all three. */
function restorable(): { dir: string; id: string } {
  const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, ...Object.fromEntries(FILES.map((f) => [f, flow(['a'], 'b')])) }, { prefix: 'wm-txrestore-' });
  assert.equal(cli(dir, ['checkpoint', 'create', '--message', 'at b']).status, 0);
  const id = fs.readdirSync(path.join(dir, '.waymark', 'checkpoints')).find((n) => n.endsWith('.json'))!.replace(/\.json$/, '');
  for (const f of FILES) assert.equal(cli(dir, ['complete-step', f, 'b']).status, 0);
  return { dir, id };
}

/** The bytes each file has after the same change made without a kill (in a copy). */
function expectedAfter(dir: string, args: string[]): Record<string, string> {
  const copy = fs.mkdtempSync(`${dir}-copy-`);
  fs.cpSync(dir, copy, { recursive: true });
  const r = cli(copy, args);
  assert.equal(r.status, 0, r.stderr);
  return Object.fromEntries(FILES.map((f) => [f, read(copy, f)!]));
}

function allOldOrAllNew(dir: string, old: Record<string, string>, fresh: Record<string, string>, operation: string): boolean {
  const states = FILES.map((f) => (read(dir, f) === fresh[f] ? 'new' : read(dir, f) === old[f] ? 'old' : 'other'));
  assert.ok(!states.includes('other'), `a file is neither old nor new: ${states.join(', ')}`);
  assert.equal(new Set(states).size, 1, `files are ${states.join(', ')}`);
  const isNew = states[0] === 'new';
  for (const f of FILES) {
    const lines = readHistory(dir, path.join(dir, f)).filter((e) => e.operation === operation);
    assert.equal(lines.length, isNew ? 1 : 0, `${f}: ${JSON.stringify(lines)}`);
  }
  assert.deepEqual(journalLeft(dir), []);
  return isNew;
}

const MULTI: [string, string][] = [
  ['WAYMARK_TX_DIE_AFTER_PREPARE', '1'],
  ['WAYMARK_TX_DIE_AFTER_RENAME', '0'],
  ['WAYMARK_TX_DIE_AFTER_RENAME', '1'],
  ['WAYMARK_TX_DIE_AFTER_RENAME', '2'],
  ['WAYMARK_TX_DIE_AFTER_RENAME', '3'],
  ['WAYMARK_TX_DIE_AFTER_HISTORY', '1'],
  ['WAYMARK_TX_DIE_AFTER_HISTORY', '2'],
];

describe('checkpoint restore is one transaction over every file it restores', () => {
  for (const [hook, n] of MULTI) {
    test(`killed with ${hook}=${n}: the next writer of one file leaves all three old or all new, one history line each`, () => {
      const { dir, id } = restorable();
      const old = Object.fromEntries(FILES.map((f) => [f, read(dir, f)!]));
      const args = ['checkpoint', 'restore', id, '--force'];
      const fresh = expectedAfter(dir, args);
      killed(dir, args, hook, n);
      // A single-file workflow write settles the whole killed restore first.
      const next = cli(dir, ['scope', 'y.md', 'small']);
      assert.equal(next.status, 0, next.stderr);
      const y = read(dir, 'y.md')!;
      fs.writeFileSync(path.join(dir, 'y.md'), y.replace(/^scope: small\n/m, ''));
      const isNew = allOldOrAllNew(dir, old, fresh, 'checkpoint.restore');
      if (hook.endsWith('RENAME') && n !== '0') assert.equal(isNew, true, 'a change whose first rename happened is completed');
      if (n === '0' && hook.endsWith('RENAME')) assert.equal(isNew, false);
      if (hook.endsWith('PREPARE')) assert.equal(isNew, false, 'killed before its intent was in place: nothing happened');
    });
  }

  test('killed once its temp files are fsynced, before its intent is in place: nothing changed, and the next writer of each file leaves no temp file', () => {
    const { dir, id } = restorable();
    const old = Object.fromEntries(FILES.map((f) => [f, read(dir, f)!]));
    killed(dir, ['checkpoint', 'restore', id, '--force'], 'WAYMARK_TX_DIE_AFTER_PREPARE', '1');
    for (const f of FILES) assert.equal(read(dir, f), old[f]);
    for (const f of FILES) assert.equal(cli(dir, ['scope', f, 'small']).status, 0);
    const temps = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d).filter((n) => n.endsWith('.waymark-tmp')) : []);
    assert.deepEqual([...temps(dir), ...temps(path.join(dir, '.waymark', 'journal'))], []);
    assert.deepEqual(journalLeft(dir), []);
    for (const f of FILES) assert.equal(readHistory(dir, path.join(dir, f)).filter((e) => e.operation === 'checkpoint.restore').length, 0);
  });

  test('a read-only file is refused (exit 2) and nothing is restored; broken frontmatter refuses even with --force', () => {
    const { dir, id } = restorable();
    const old = Object.fromEntries(FILES.map((f) => [f, read(dir, f)!]));
    fs.chmodSync(path.join(dir, 'z.md'), 0o444);
    const r = cli(dir, ['checkpoint', 'restore', id, '--force']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /read-only|chmod/);
    fs.chmodSync(path.join(dir, 'z.md'), 0o644);
    fs.writeFileSync(path.join(dir, 'z.md'), '---\nworkflow: three\nstatus: [in_progress\n---\nBody of the work\n');
    const b = cli(dir, ['checkpoint', 'restore', id, '--force']);
    assert.notEqual(b.status, 0, b.stderr);
    for (const f of ['x.md', 'y.md']) assert.equal(read(dir, f), old[f]);
    assert.deepEqual(journalLeft(dir), []);
  });
});

describe('sync is one transaction over the frontmatter it moves forward', () => {
  /** Three workflows checkpointed at step c, whose frontmatter was then set back by hand to step b. */
  function behind(): string {
    const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, ...Object.fromEntries(FILES.map((f) => [f, flow(['a', 'b'], 'c')])) }, { prefix: 'wm-txsync-' });
    assert.equal(cli(dir, ['checkpoint', 'create', '--message', 'at c']).status, 0);
    for (const f of FILES) fs.writeFileSync(path.join(dir, f), flow(['a'], 'b'));
    return dir;
  }
  for (const [hook, n] of MULTI) {
    test(`killed with ${hook}=${n}: the next writer leaves all three old or all new, one history line each`, () => {
      const dir = behind();
      const old = Object.fromEntries(FILES.map((f) => [f, read(dir, f)!]));
      const fresh = expectedAfter(dir, ['sync']);
      for (const f of FILES) assert.match(fresh[f], /stepsCompleted: \[a, b\]/);
      killed(dir, ['sync'], hook, n);
      const next = cli(dir, ['scope', 'x.md', 'small']);
      assert.equal(next.status, 0, next.stderr);
      fs.writeFileSync(path.join(dir, 'x.md'), read(dir, 'x.md')!.replace(/^scope: small\n/m, ''));
      const isNew = allOldOrAllNew(dir, old, fresh, 'checkpoint.restore');
      if (hook.endsWith('RENAME')) assert.equal(isNew, n !== '0');
      if (hook.endsWith('PREPARE')) assert.equal(isNew, false);
    });
  }
});

describe('ticket mirrors are written by the one transaction (no history line: not a state change)', () => {
  const wfText = (id: string) => `---\nworkflow: ${id}\nstatus: in_progress\nstepsCompleted: []\nsteps: [one, two]\n---\n# ${id}\n`;
  for (const n of ['0', '1']) {
    test(`a projection killed with WAYMARK_TX_DIE_AFTER_RENAME=${n}: the next writer finds the file old or with its whole block, and the next projection sends each ticket once`, () => {
      const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-txmirror-repo-')));
      for (const a of [['init', '-q', repo], ['-C', repo, 'config', 'user.email', 't@example.com'], ['-C', repo, 'config', 'user.name', 'T']]) spawnSync('git', a);
      const dir = workspace({ 'a.md': wfText('a'), 'b.md': wfText('b') }, { prefix: 'wm-txmirror-', config: `tracker:\n  store: git\n  repo: ${repo}\n` });
      const env = { WAYMARK_TICKETS_ALLOW_OUTSIDE: repo };
      const olds = { a: read(dir, 'a.md')!, b: read(dir, 'b.md')! };
      const k = cli(dir, ['project'], { ...env, WAYMARK_TX_DIE_AFTER_RENAME: n });
      assert.equal(k.signal, 'SIGKILL', k.stderr);
      assert.equal(journalLeft(dir).length, 1, 'the killed mirror write left its intent');
      const next = cli(dir, ['scope', 'a.md', 'small']);
      assert.equal(next.status, 0, next.stderr);
      fs.writeFileSync(path.join(dir, 'a.md'), read(dir, 'a.md')!.replace(/^scope: small\n/m, ''));
      assert.deepEqual(journalLeft(dir), []);
      for (const id of ['a', 'b'] as const) {
        const now = read(dir, `${id}.md`)!;
        const stripped = now.replace(/^tracker:\n(  .*\n)+/m, '');
        assert.equal(stripped, olds[id], `${id}.md is its old bytes, or those with the whole tracker block`);
        assert.deepEqual(readHistory(dir, path.join(dir, `${id}.md`)).filter((e) => e.operation !== 'set-scope').map((e) => e.operation), []);
      }
      const again = cli(dir, ['project'], env);
      assert.equal(again.status, 0, again.stderr);
      for (const id of ['a', 'b']) assert.match(read(dir, `${id}.md`)!, /^tracker:\n  store: git\n/m);
      const tickets = fs.readdirSync(path.join(repo, 'tickets')).filter((f) => f.endsWith('.md'));
      assert.equal(tickets.length, 2, tickets.join(', '));
    });
  }

  for (const n of ['0', '1']) {
    test(`a sidecar save killed with WAYMARK_TX_DIE_AFTER_RENAME=${n}: the sidecar is whole (old or new), and the next projection sends the ticket once`, () => {
      const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-txsidecar-repo-')));
      for (const a of [['init', '-q', repo], ['-C', repo, 'config', 'user.email', 't@example.com'], ['-C', repo, 'config', 'user.name', 'T']]) spawnSync('git', a);
      // A `tracker:` key someone else wrote: the mirror goes to the sidecar.
      const dir = workspace({ 'a.md': wfText('a').replace('---\n# a', 'tracker: JIRA-42\n---\n# a') }, { prefix: 'wm-txsidecar-', config: `tracker:\n  store: git\n  repo: ${repo}\n` });
      const env = { WAYMARK_TICKETS_ALLOW_OUTSIDE: repo };
      const k = cli(dir, ['project'], { ...env, WAYMARK_TX_DIE_AFTER_RENAME: n });
      assert.equal(k.signal, 'SIGKILL', k.stderr);
      const side = read(dir, '.waymark/tracker/git.json');
      if (n === '0') assert.equal(side, undefined);
      else assert.doesNotThrow(() => JSON.parse(side!));
      const again = cli(dir, ['project'], env);
      assert.equal(again.status, 0, again.stderr);
      assert.deepEqual(journalLeft(dir), []);
      assert.match(read(dir, 'a.md')!, /^tracker: JIRA-42$/m);
      assert.ok(JSON.parse(read(dir, '.waymark/tracker/git.json')!).items.a, 'the mirror is in the sidecar');
      assert.equal(fs.readdirSync(path.join(repo, 'tickets')).filter((f) => f.endsWith('.md')).length, 1);
    });
  }
});

describe('a gate file moving from its old location moves in the same transaction', () => {
  const LEGACY = '.waymark/gates/plan/review.gate';
  const MOVED = '.waymark/gates/workflows/auth/plan/review.gate';
  const points: [string, string][] = [['WAYMARK_TX_DIE_AFTER_RENAME', '0'], ['WAYMARK_TX_DIE_AFTER_RENAME', '1'], ['WAYMARK_TX_DIE_AFTER_RENAME', '2'], ['WAYMARK_TX_DIE_AFTER_HISTORY', '1']];
  for (const [hook, n] of points) {
    test(`killed with ${hook}=${n}: one copy of the gate file, old or new, and its history line once`, () => {
      const time = '2026-11-20T10:00:00.000Z';
      const dir = workspace({ '.waymark/workflows/release.yaml': DEF, 'workflows/auth/plan.md': plan(['build'], 'review'), [LEGACY]: `gate: PASS\nreviewer: maria\nupdated: ${time}\nhistory:\n  - gate: PASS\n    reviewer: maria\n    updated: ${time}\n` }, { prefix: 'wm-txgatemove-' });
      const auth = path.join(dir, 'workflows/auth/plan.md');
      fs.mkdirSync(path.join(dir, '.waymark/history/workflows/auth'), { recursive: true });
      fs.writeFileSync(path.join(dir, '.waymark/history/workflows/auth/plan.md.jsonl'), JSON.stringify({ seq: 1, time: '2026-11-20T10:00:00.004Z', actor: 'cli', operation: 'gate-pass', file: auth, from: {}, to: {}, detail: { step: 'review', gate: 'review', gateFile: path.join(dir, LEGACY), verdict: 'PASS', previous: null, by: 'maria' } }) + '\n');
      const old = read(dir, LEGACY);
      killed(dir, ['gate', 'concerns', 'workflows/auth/plan.md', 'review', '--by', 'tom', '--reason', 'docs thin'], hook, n);
      const next = cli(dir, ['scope', 'workflows/auth/plan.md', 'small']);
      assert.equal(next.status, 0, next.stderr);
      const legacy = read(dir, LEGACY);
      const moved = read(dir, MOVED);
      const lines = readHistory(dir, auth).filter((e) => e.operation === 'gate-concerns');
      assert.deepEqual(journalLeft(dir), []);
      if (n === '0') {
        assert.deepEqual([legacy, moved, lines.length], [old, undefined, 0]);
      } else {
        assert.equal(legacy, undefined, 'the old copy is gone');
        assert.match(moved ?? '', /CONCERNS/);
        assert.equal(lines.length, 1);
        assert.equal(lines[0].detail?.gateSha256, gateTextHash(moved!));
        assert.equal(lines[0].detail?.movedFrom, LEGACY);
      }
    });
  }
});

describe('a workflow write (advance) is the same transaction: one file, its history line once', () => {
  const points: [string, string][] = [['WAYMARK_TX_DIE_AFTER_RENAME', '0'], ['WAYMARK_TX_DIE_AFTER_RENAME', '1'], ['WAYMARK_TX_DIE_AFTER_HISTORY', '1']];
  for (const [hook, n] of points) {
    test(`advance killed with ${hook}=${n}: the next writer finds the file old or advanced, with one advance line when advanced`, () => {
      const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b') }, { prefix: 'wm-txadvance-' });
      assert.equal(cli(dir, ['scope', 'x.md', 'small']).status, 0);
      const old = read(dir, 'x.md')!;
      const fresh = (() => {
        const copy = fs.mkdtempSync(`${dir}-copy-`);
        fs.cpSync(dir, copy, { recursive: true });
        assert.equal(cli(copy, ['advance', 'x.md']).status, 0);
        return read(copy, 'x.md')!;
      })();
      killed(dir, ['advance', 'x.md'], hook, n);
      const mid = read(dir, 'x.md');
      assert.ok(mid === old || mid === fresh, 'the file is whole: old or new');
      const next = cli(dir, ['scope', 'x.md', 'medium']);
      assert.equal(next.status, 0, next.stderr);
      const lines = readHistory(dir, path.join(dir, 'x.md'));
      const isNew = mid === fresh;
      assert.equal(isNew, n !== '0', 'a rename that happened is kept; none: nothing happened');
      assert.equal(lines.filter((e) => e.operation === 'advance').length, isNew ? 1 : 0, JSON.stringify(lines.map((e) => e.operation)));
      assert.equal(lines.filter((e) => e.operation === 'external-edit').length, 0, 'a killed change is not mistaken for a hand edit');
      assert.equal(lines.filter((e) => e.operation === 'set-scope').length, 2);
      assert.deepEqual(journalLeft(dir), []);
    });
  }
});

describe('an advance and its cold-memory line are one change: one intent, both files all old or all new', () => {
  const COLD = '.waymark/memory/orchestrator_memory.md';
  const stepLines = (dir: string) => (read(dir, COLD) ?? '').split('\n').filter((l) => /: step b completed/.test(l)).length;
  test('the intent of an advance names the workflow file and the cold file', () => {
    const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b') }, { prefix: 'wm-txcold-' });
    const old = read(dir, 'x.md');
    killed(dir, ['advance', 'x.md'], 'WAYMARK_TX_DIE_AFTER_PREPARE', '1');
    const intents = journalLeft(dir).map((n) => journalIntent(dir, n));
    assert.equal(intents.length, 1, 'one change');
    assert.equal(intents[0].operation, 'advance');
    assert.deepEqual(intents[0].writes.map((w) => path.relative(dir, w.file)).sort(), [COLD, 'x.md'].sort());
    assert.equal(read(dir, 'x.md'), old, 'nothing renamed yet');
    assert.equal(stepLines(dir), 0);
  });
  test('the active workflow of the session: the hot file\'s position is in the same change, redone by the next writer', () => {
    const HOT = '.waymark/memory/session_state.md';
    const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b'), [HOT]: '---\nsession: "s-1"\nactiveWorkflow: "x.md"\ncurrentStep: "b"\n---\n# Session state\n' }, { prefix: 'wm-txcold-' });
    killed(dir, ['advance', 'x.md'], 'WAYMARK_TX_DIE_AFTER_RENAME', '1');
    const intents = journalLeft(dir).map((n) => journalIntent(dir, n));
    assert.equal(intents.length, 1, 'one change');
    assert.deepEqual(intents[0].writes.map((w) => path.relative(dir, w.file)).sort(), [COLD, HOT, 'x.md'].sort());
    assert.match(read(dir, HOT)!, /currentStep: "b"/, 'killed before the memory files were renamed');
    assert.equal(cli(dir, ['scope', 'x.md', 'small']).status, 0);
    assert.match(read(dir, HOT)!, /currentStep: "c"/, 'the position follows the advance');
    assert.match(read(dir, HOT)!, /activeWorkflow: "x.md"/);
    assert.equal(stepLines(dir), 1);
    assert.deepEqual(journalLeft(dir), []);
  });
  const points: [string, string][] = [['WAYMARK_TX_DIE_AFTER_PREPARE', '1'], ['WAYMARK_TX_DIE_AFTER_RENAME', '0'], ['WAYMARK_TX_DIE_AFTER_RENAME', '1'], ['WAYMARK_TX_DIE_AFTER_RENAME', '2'], ['WAYMARK_TX_DIE_AFTER_HISTORY', '1']];
  for (const [hook, n] of points) {
    test(`advance killed with ${hook}=${n}: the step's cold line is there once exactly when the advance landed`, () => {
      const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b') }, { prefix: 'wm-txcold-' });
      const old = read(dir, 'x.md');
      killed(dir, ['advance', 'x.md'], hook, n);
      const next = cli(dir, ['scope', 'x.md', 'small']);
      assert.equal(next.status, 0, next.stderr);
      const advanced = readHistory(dir, path.join(dir, 'x.md')).filter((e) => e.operation === 'advance').length;
      const landed = hook.endsWith('RENAME') ? n !== '0' : hook.endsWith('HISTORY');
      assert.equal(advanced, landed ? 1 : 0);
      assert.equal(read(dir, 'x.md')!.replace(/^scope: small\n/m, '') === old, !landed, 'the file is old exactly when the advance did not land');
      assert.equal(stepLines(dir), landed ? 1 : 0, read(dir, COLD));
      assert.deepEqual(journalLeft(dir), []);
      // The next advance completes the next step (c when b landed, else b): step b's line once.
      assert.equal(cli(dir, ['advance', 'x.md']).status, 0);
      assert.equal(stepLines(dir), 1, read(dir, COLD));
      assert.deepEqual(journalLeft(dir), []);
    });
  }
});

describe('delegation is one transaction over the parent and its new child', () => {
  const points: [string, string][] = [['WAYMARK_TX_DIE_AFTER_RENAME', '0'], ['WAYMARK_TX_DIE_AFTER_RENAME', '1'], ['WAYMARK_TX_DIE_AFTER_RENAME', '2'], ['WAYMARK_TX_DIE_AFTER_HISTORY', '1'], ['WAYMARK_TX_DIE_AFTER_HISTORY', '2']];
  for (const [hook, n] of points) {
    test(`delegate killed with ${hook}=${n}: child and parent block both there or both not, one history line in each`, () => {
      const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'p.md': flow(['a'], 'b') }, { prefix: 'wm-txdelegate-' });
      const old = read(dir, 'p.md')!;
      killed(dir, ['delegate', 'p.md', '--agent', 'dev'], hook, n);
      const next = cli(dir, ['scope', 'p.md', 'small']);
      assert.equal(next.status, 0, next.stderr);
      const parent = read(dir, 'p.md')!.replace(/^scope: small\n/m, '');
      const child = read(dir, 'p.dev.md');
      const isNew = child !== undefined;
      assert.equal(isNew, !(hook.endsWith('RENAME') && n === '0'));
      if (isNew) assert.match(parent, /^delegation:\n {2}id: p\n/m, 'the parent is the root of the chain');
      else assert.equal(parent, old);
      assert.equal(readHistory(dir, path.join(dir, 'p.md')).filter((e) => e.operation === 'delegate').length, isNew ? 1 : 0);
      assert.equal(isNew ? readHistory(dir, path.join(dir, 'p.dev.md')).filter((e) => e.operation === 'create').length : 0, isNew ? 1 : 0);
      assert.deepEqual(journalLeft(dir), []);
    });
  }

  test('a parent already in a chain: killed after the child, the next writer records the delegate line once', () => {
    const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'p.md': flow(['a'], 'b') }, { prefix: 'wm-txdelegate2-' });
    assert.equal(cli(dir, ['delegate', 'p.md', '--agent', 'dev']).status, 0);
    const old = read(dir, 'p.md')!;
    killed(dir, ['delegate', 'p.md', '--agent', 'qa'], 'WAYMARK_TX_DIE_AFTER_RENAME', '1');
    assert.equal(cli(dir, ['scope', 'p.md', 'small']).status, 0);
    assert.equal(read(dir, 'p.md')!.replace(/^scope: small\n/m, ''), old, 'the parent keeps its bytes');
    assert.ok(read(dir, 'p.qa.md'));
    assert.equal(readHistory(dir, path.join(dir, 'p.md')).filter((e) => e.operation === 'delegate').length, 2);
    assert.deepEqual(journalLeft(dir), []);
  });
});

describe('sync expiring the orchestrator state: the cold-memory summary and the cleared state are one change', () => {
  const points: [string, string][] = [['WAYMARK_TX_DIE_AFTER_RENAME', '0'], ['WAYMARK_TX_DIE_AFTER_RENAME', '1'], ['WAYMARK_TX_DIE_AFTER_RENAME', '2']];
  for (const [hook, n] of points) {
    test(`killed with ${hook}=${n}: the summary is in the cold memory once exactly when the state is cleared`, () => {
      const state = { type: 'greenfield', phase: 'executing', session: 'S1', ttl: '1h', lastUpdated: '2026-01-01T00:00:00.000Z', workflows: { 'x.md': { nextStep: 'b' } }, enforcement: { violations: [], blocking: false } };
      const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b'), '.waymark/memory/workflow-state.json': JSON.stringify(state) }, { prefix: 'wm-txexpire-' });
      killed(dir, ['sync'], hook, n);
      const cleared = () => /"cleared"/.test(read(dir, '.waymark/memory/workflow-state.json') ?? '');
      const summaries = () => (read(dir, '.waymark/memory/orchestrator_memory.md') ?? '').split('\n').filter((l) => / expired: type=greenfield/.test(l)).length;
      const r = cli(dir, ['sync']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(cleared(), true);
      assert.equal(summaries(), 1, 'the summary once');
      assert.deepEqual(journalLeft(dir), []);
    });
  }
});

describe('memory prune moves hot notes to the cold file in one change', () => {
  const hot = ['---', 'session: null', '---', '# Session state', '', '## Current objective', '', '_none_', '', '## Working memory', '', ...Array.from({ length: 6 }, (_, i) => `- note ${i}`), '', '## Immediate tasks', '', '_none_', '', '## Waiting for', '', '_none_', ''].join('\n');
  for (const n of ['0', '1', '2']) {
    test(`killed with WAYMARK_TX_DIE_AFTER_RENAME=${n}: every note is in exactly one of the two files`, () => {
      const dir = workspace({ '.waymark/memory/session_state.md': hot }, { prefix: 'wm-txmemory-' });
      const env = { WAYMARK_MEMORY_ENGINE: 'journal' };
      const k = cli(dir, ['memory', 'prune', '--keep', '2', '--force'], { ...env, WAYMARK_TX_DIE_AFTER_RENAME: n });
      assert.equal(k.signal, 'SIGKILL', k.stderr);
      const r = cli(dir, ['memory', 'prune', '--keep', '2', '--force'], env);
      assert.equal(r.status, 0, r.stderr);
      const hotNow = read(dir, '.waymark/memory/session_state.md') ?? '';
      const cold = read(dir, '.waymark/memory/orchestrator_memory.md') ?? '';
      for (let i = 0; i < 6; i++) {
        const inHot = hotNow.includes(`- note ${i}\n`);
        const inCold = cold.split('\n').filter((l) => l.endsWith(` note ${i}`)).length;
        assert.equal(Number(inHot) + inCold, 1, `note ${i}: hot ${inHot}, cold ${inCold}`);
      }
      assert.deepEqual(journalLeft(dir), []);
    });
  }
});

const FIX_LEDGER = '_bmad-output/implementation-artifacts/sprint-status.yaml';
/** A BMAD project whose ledger has a legacy value (`in progress`): `waymark fix` sets `in-progress`. */
function fixable(config?: string): string {
  const impl = '_bmad-output/implementation-artifacts';
  return workspace({
    '_bmad/bmm/config.yaml': 'implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\noutput_folder: "{project-root}/_bmad-output"\n',
    [FIX_LEDGER]: 'last_updated: 2026-02-10\ndevelopment_status:\n  epic-1: in-progress\n  1-1-login: in progress   # typed by hand\n',
    [`${impl}/1-1-login.md`]: '# Story 1.1: Login\n\nStatus: in-progress\n\n## Tasks\n\n- [ ] one\n',
    ...(config ? { '.waymark/config.yaml': config } : {}),
  }, { prefix: 'wm-txfix-' });
}

describe('waymark fix of a ledger value is one transaction (the engine, not a write of its own)', () => {
  for (const [hook, n] of [['WAYMARK_TX_DIE_AFTER_RENAME', '0'], ['WAYMARK_TX_DIE_AFTER_RENAME', '1'], ['WAYMARK_TX_DIE_AFTER_HISTORY', '1']] as const) {
    test(`killed with ${hook}=${n}, then a story write of the ledger: the fix landed with its history line once, or not at all`, () => {
      const dir = fixable();
      killed(dir, ['fix', FIX_LEDGER, 'ledger-legacy-status'], hook, n);
      const r = cli(dir, ['story', 'set-status', '1-1', 'review']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(read(dir, FIX_LEDGER)!, /^ {2}1-1-login: review {3}# typed by hand$/m);
      const ops = readHistory(dir, path.join(dir, FIX_LEDGER)).map((e) => e.operation);
      assert.deepEqual(ops, n === '0' ? ['story-set-status'] : ['ledger-set-value', 'story-set-status'], 'killed before its rename: nothing recorded; after: its line once, before the next');
      assert.deepEqual(journalLeft(dir), []);
    });
  }

  test('the history line goes to the configured history.dir, like every other story write', () => {
    const dir = fixable('history:\n  dir: .records/history\n');
    const r = cli(dir, ['fix', FIX_LEDGER, 'ledger-legacy-status']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readHistory(dir, path.join(dir, FIX_LEDGER), path.join(dir, '.records/history')).filter((e) => e.operation === 'ledger-set-value').length, 1);
    assert.equal(fs.existsSync(path.join(dir, '.waymark', 'history')), false, 'nothing under the default history folder');
  });

  test('a story fix is the story transaction: killed before its rename, the next story write finds it old and no intent left', () => {
    const dir = fixable();
    const story = '_bmad-output/implementation-artifacts/1-1-login.md';
    // The story file without a Status line and the ledger's value legacy: the fix writes the story.
    fs.writeFileSync(path.join(dir, story), '# Story 1.1: Login\n\n## Tasks\n\n- [ ] one\n');
    const before = read(dir, story);
    killed(dir, ['fix', story, 'story-status-missing'], 'WAYMARK_TX_DIE_AFTER_RENAME', '0');
    assert.equal(cli(dir, ['story', 'check', '1-1', 'one']).status, 0);
    assert.notEqual(read(dir, story), undefined);
    assert.match(read(dir, story)!, /- \[x\] one/);
    assert.equal(read(dir, story)!.includes('Status:'), before!.includes('Status:'), 'killed before its rename: no Status line landed');
    assert.deepEqual(journalLeft(dir), []);
  });
});

describe('the hot session file (writeSessionState) is written by the one transaction', () => {
  const hot = ['---', 'session: null', '---', '# Session state', '', '## Working memory', '', ...Array.from({ length: 6 }, (_, i) => `- note ${i}`), ''].join('\n');
  test('a memory move killed after its first rename is completed before the session file is written: no note lost, no intent left', async () => {
    const { writeSessionState } = await import('../../src/core/protocol/orchestrator');
    const dir = workspace({ '.waymark/memory/session_state.md': hot }, { prefix: 'wm-txsession-' });
    const env = { WAYMARK_MEMORY_ENGINE: 'journal' };
    const copy = fs.mkdtempSync(`${dir}-copy-`);
    fs.cpSync(dir, copy, { recursive: true });
    assert.equal(cli(copy, ['memory', 'prune', '--keep', '2', '--force'], env).status, 0);
    const moved = (read(copy, '.waymark/memory/orchestrator_memory.md') ?? '').split('\n').filter((l) => / note \d$/.test(l)).length;
    assert.ok(moved > 0);
    killed(dir, ['memory', 'prune', '--keep', '2', '--force'], 'WAYMARK_TX_DIE_AFTER_RENAME', '1');
    await writeSessionState(dir, { session: 's-2', activeWorkflow: 'wf.md' }, 'Notes.\n');
    assert.deepEqual(journalLeft(dir), [], 'the killed move was settled by the session write');
    const cold = (read(dir, '.waymark/memory/orchestrator_memory.md') ?? '').split('\n').filter((l) => / note \d$/.test(l)).length;
    assert.equal(cold, moved, 'the moved notes are in the cold file once');
    assert.equal(read(dir, '.waymark/memory/session_state.md'), '---\nsession: "s-2"\nactiveWorkflow: "wf.md"\n---\nNotes.\n');
  });
});

describe('session start: the session record and the hot file reset for it are one change', () => {
  for (const n of ['0', '1', '2']) {
    test(`killed with WAYMARK_TX_DIE_AFTER_RENAME=${n}, then another hot-file write: the record and the hot file name the same session (or neither does)`, () => {
      const dir = workspace({ 'notes.md': 'x\n' }, { prefix: 'wm-txsessrec-' });
      const env = { WAYMARK_MEMORY_ENGINE: 'journal' };
      killed(dir, ['session', 'start', '--objective', 'ship it'], 'WAYMARK_TX_DIE_AFTER_RENAME', n);
      const r = cli(dir, ['memory', 'prune', '--keep', '2', '--force'], env);
      assert.equal(r.status, 0, r.stderr);
      const rec = read(dir, '.waymark/memory/session.json');
      const recId = rec === undefined ? undefined : (JSON.parse(rec) as { id: string }).id;
      const hotId = /^session: "?([^"\n]+?)"?$/m.exec(read(dir, '.waymark/memory/session_state.md') ?? '')?.[1];
      assert.equal(hotId === 'null' ? undefined : hotId, recId, `record ${recId}, hot file ${hotId}`);
      assert.deepEqual(journalLeft(dir), []);
    });
  }
});

describe('a cold-memory line is added to the cold file in place (no temp file, no rename), proved like a history append', () => {
  const COLD = '.waymark/memory/orchestrator_memory.md';
  const OLD_COLD = '# Orchestrator memory\n\n## Key decisions\n\n## Learned context\n\n## Preferences\n\n## Blockers\n\n## Session history\n\n- 2026-01-01 an earlier line\n';
  const ino = (dir: string) => fs.statSync(path.join(dir, COLD)).ino;
  test('an advance adds its line at the cold file\'s end: the same file (inode), every earlier byte kept, only the line in the intent', () => {
    const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b'), [COLD]: OLD_COLD }, { prefix: 'wm-txappend-' });
    const before = ino(dir);
    killed(dir, ['advance', 'x.md'], 'WAYMARK_TX_DIE_AFTER_PREPARE', '1');
    const [intent] = journalLeft(dir).map((n) => journalIntent<{ writes: { file: string; text: string; append?: number }[] }>(dir, n));
    const cold = intent.writes.find((w) => path.relative(dir, w.file) === COLD)!;
    assert.equal(cold.append, Buffer.byteLength(OLD_COLD), 'the cold file is added to at its old end');
    assert.match(cold.text, /^- \S+ \S+ \(x\.md\): step b completed\n$/, 'only the line added is in the intent');
    assert.equal(read(dir, COLD), OLD_COLD);
    assert.equal(cli(dir, ['advance', 'x.md']).status, 0);
    const now = read(dir, COLD)!;
    assert.ok(now.startsWith(OLD_COLD), now);
    assert.match(now.slice(OLD_COLD.length), /^- \S+ \S+ \(x\.md\): step b completed\n$/);
    assert.equal(ino(dir), before, 'added to in place, not replaced');
    assert.deepEqual(fs.readdirSync(path.join(dir, '.waymark/memory')).filter((f) => f.includes('tmp')), []);
  });
  test('killed after its rename and its append: the next writer finds the line there once and appends the history line', () => {
    const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b'), [COLD]: OLD_COLD }, { prefix: 'wm-txappend-' });
    killed(dir, ['advance', 'x.md'], 'WAYMARK_TX_DIE_AFTER_RENAME', '2');
    assert.equal(cli(dir, ['scope', 'x.md', 'small']).status, 0);
    assert.equal(readHistory(dir, path.join(dir, 'x.md')).filter((e) => e.operation === 'advance').length, 1);
    assert.equal((read(dir, COLD)!.match(/step b completed/g) ?? []).length, 1);
    assert.ok(read(dir, COLD)!.startsWith(OLD_COLD));
    assert.deepEqual(journalLeft(dir), []);
  });
  test('an append cut short (a power loss mid-write) is completed from the intent, never left half a line', () => {
    const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b'), [COLD]: OLD_COLD }, { prefix: 'wm-txappend-' });
    killed(dir, ['advance', 'x.md'], 'WAYMARK_TX_DIE_AFTER_RENAME', '2');
    const full = read(dir, COLD)!;
    fs.writeFileSync(path.join(dir, COLD), full.slice(0, OLD_COLD.length + 7));
    assert.equal(cli(dir, ['scope', 'x.md', 'small']).status, 0);
    assert.equal(read(dir, COLD), full);
    assert.deepEqual(journalLeft(dir), []);
  });
  test('a cold file changed on disk since the intent is left as it is by recovery (never appended to blindly)', () => {
    const dir = workspace({ '.waymark/workflows/three.yaml': DEF3, 'x.md': flow(['a'], 'b'), [COLD]: OLD_COLD }, { prefix: 'wm-txappend-' });
    killed(dir, ['advance', 'x.md'], 'WAYMARK_TX_DIE_AFTER_RENAME', '1');
    const edited = OLD_COLD.replace('an earlier line', 'a line edited by hand');
    fs.writeFileSync(path.join(dir, COLD), edited);
    assert.equal(cli(dir, ['scope', 'x.md', 'small']).status, 0);
    assert.equal(read(dir, COLD), edited);
    assert.deepEqual(journalLeft(dir), []);
  });
});

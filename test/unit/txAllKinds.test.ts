// Every kind of state write is one transaction (engine/transaction.ts): a real `waymark` process
// SIGKILLed at each point between its first and last rename (and after its history line), then
// the next writer leaves every file of the change all old or all new, with exactly one history
// line per changed file, and no intent left in the journal.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { workspace } from './fileHelpers';
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
  const d = path.join(dir, '.waymark', 'journal');
  return fs.existsSync(d) ? fs.readdirSync(d).filter((f) => f.startsWith('tx.') && !f.endsWith('.bad')) : [];
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

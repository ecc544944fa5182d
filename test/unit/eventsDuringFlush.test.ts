// A workflow write's events line is appended while the change's last flushes (its folder, its
// history line) run (WriteObserver.duringFlush), not after them. A writer killed right there
// (WAYMARK_TX_DIE_AFTER_FLUSHING=1: the line and the event are out, the flushes may not be)
// leaves its intent; the next writer of the file completes the change with one history line and
// one event for it, never two.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { journalLeft, workspace } from './fileHelpers';
import { readHistory } from '../../src/core/store/history';

const CLI = path.resolve('dist/cli.js');
const cli = (dir: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, ...env, WAYMARK_ACTOR: 'test', WAYMARK_SESSION: '' } });

const events = (dir: string): { type: string; file: string; seq?: number; data?: Record<string, unknown> }[] => {
  const f = path.join(dir, '.waymark', 'events', 'events.jsonl');
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
};

test('killed after its event is out and before its last flushes returned: the next write completes it with one line and one event', () => {
  const dir = workspace({ 'rel.md': '---\nworkflow: release\nstatus: in_progress\nscope: small\n---\nBody\n' }, { prefix: 'wm-evflush-' });
  const r = cli(dir, ['scope', 'rel.md', 'large'], { WAYMARK_TX_DIE_AFTER_FLUSHING: '1' });
  assert.equal(r.signal, 'SIGKILL', `the writer was to die after its event: ${r.status} ${r.stderr}`);
  assert.match(fs.readFileSync(path.join(dir, 'rel.md'), 'utf8'), /scope: large/);
  const killedOp = readHistory(dir, path.join(dir, 'rel.md')).at(-1)!;
  assert.equal(events(dir).filter((e) => e.type === `workflow.${killedOp.operation}`).length, 1, 'its event was out before the kill');
  assert.ok(journalLeft(dir).length > 0, 'the killed change left its intent');
  const next = cli(dir, ['scope', 'rel.md', 'medium']);
  assert.equal(next.status, 0, next.stderr);
  const lines = readHistory(dir, path.join(dir, 'rel.md'));
  assert.equal(lines.filter((e) => e.seq === killedOp.seq).length, 1, JSON.stringify(lines));
  const evs = events(dir).filter((e) => e.type === `workflow.${killedOp.operation}`);
  assert.equal(evs.length, 2, `one event for the killed write, one for the next: ${JSON.stringify(evs)}`);
  assert.deepEqual(journalLeft(dir), []);
  assert.match(fs.readFileSync(path.join(dir, 'rel.md'), 'utf8'), /scope: medium/);
});

// Story status changes as one transaction (issue 23 items 1-3, issue 20 item 7): killed at any
// rename, the next writer leaves the story file and the ledger all old or all new with one
// history line each; ledger edits keep YAML valid; settings come from the workspace's config;
// story keys are exact and the hook's status rules apply.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse as parseYaml } from 'yaml';
import { journalLeft, workspace, setStatus } from './fileHelpers';
import { createStateCore } from '../../src/core/index';
import { readHistory } from '../../src/core/store/history';
import { WaymarkError } from '../../src/core/errors';

const CLI = path.resolve('dist/cli.js');
const IMPL = '_bmad-output/implementation-artifacts';
const LEDGER = `${IMPL}/sprint-status.yaml`;

function storyText(n: string, title: string, status: string, tasks = ['- [ ] Task 1: first', '- [ ] Task 2: second']): string {
  return `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a user, I want it.\n\n## Tasks / Subtasks\n\n${tasks.join('\n')}\n\n## Dev Notes\n`;
}

const HEAD = 'generated: 2025-10-01\nlast_updated: 2025-10-20\nproject: Tx\ntracking_system: file-system\n\n';

/** A BMAD project with stories 1-1-story-1 (ready-for-dev) and 1-2-story-2 (backlog) and the ledger given. */
function project(devStatus: string, opts: { config?: string; files?: Record<string, string>; statuses?: [string, string] } = {}): string {
  const [s1, s2] = opts.statuses ?? ['ready-for-dev', 'backlog'];
  return workspace({
    [LEDGER]: `${HEAD}${devStatus}`,
    [`${IMPL}/1-1-story-1.md`]: storyText('1.1', 'Story 1', s1),
    [`${IMPL}/1-2-story-2.md`]: storyText('1.2', 'Story 2', s2),
    ...(opts.files ?? {}),
  }, { config: opts.config, prefix: 'wm-storytx-' });
}

const BLOCK = 'development_status:\n  epic-1: in-progress\n  1-1-story-1: ready-for-dev\n  1-2-story-2: backlog\n';

function cli(dir: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args, '--root', dir], { encoding: 'utf8', cwd: dir, env: { ...process.env, ...env, WAYMARK_ACTOR: 'test' } });
}

const read = (dir: string, rel: string) => fs.readFileSync(path.join(dir, rel), 'utf8');


describe('story set-status is one transaction', () => {
  // Kill points: after the journal (0 renames), between the two renames, after both renames
  // (before history), and after the first history line.
  const points: [string, string][] = [['WAYMARK_TX_DIE_AFTER_RENAME', '0'], ['WAYMARK_TX_DIE_AFTER_RENAME', '1'], ['WAYMARK_TX_DIE_AFTER_RENAME', '2'], ['WAYMARK_TX_DIE_AFTER_HISTORY', '1']];
  for (const [hook, n] of points) {
    test(`killed (SIGKILL) with ${hook}=${n}: the next writer leaves both files all old or all new, one history line each`, () => {
      const dir = project(BLOCK);
      const storyBefore = read(dir, `${IMPL}/1-1-story-1.md`);
      const ledgerBefore = read(dir, LEDGER);
      const killed = cli(dir, ['story', 'set-status', '1-1', 'in-progress'], { [hook]: n });
      assert.equal(killed.signal, 'SIGKILL', `the writer was to die at ${hook}=${n}: ${killed.stderr}`);
      // The next writer of the ledger (another story) completes the killed change first.
      const next = cli(dir, ['story', 'set-status', '1-2', 'ready-for-dev']);
      assert.equal(next.status, 0, next.stderr);
      const story = read(dir, `${IMPL}/1-1-story-1.md`);
      const ledger = read(dir, LEDGER);
      const storyNew = story !== storyBefore;
      const ledgerSays = (parseYaml(ledger) as { development_status: Record<string, string> }).development_status['1-1-story-1'];
      assert.equal(ledgerSays === 'in-progress', storyNew, `story file ${storyNew ? 'new' : 'old'} but ledger says ${ledgerSays}`);
      if (n !== '0') assert.equal(storyNew, true, 'a journaled change whose first rename happened is completed');
      if (storyNew) assert.equal(story, storyBefore.replace('Status: ready-for-dev', 'Status: in-progress'));
      else assert.equal(ledgerSays, 'ready-for-dev');
      const storyHist = readHistory(dir, path.join(dir, `${IMPL}/1-1-story-1.md`));
      assert.equal(storyHist.length, storyNew ? 1 : 0, JSON.stringify(storyHist));
      const ledgerHist = readHistory(dir, path.join(dir, LEDGER)).filter((e) => (e.detail as { key?: string } | undefined)?.key === '1-1-story-1');
      assert.equal(ledgerHist.length, storyNew ? 1 : 0, JSON.stringify(ledgerHist));
      assert.equal(ledgerBefore.includes('1-1-story-1: ready-for-dev'), true);
      assert.deepEqual(journalLeft(dir).filter((f) => !f.endsWith('.bad')), [], 'every intent completed');
    });
  }

  test('killed between the renames, the next writer of the story file alone (story check) completes the ledger too', () => {
    const dir = project(BLOCK);
    assert.equal(cli(dir, ['story', 'set-status', '1-1', 'in-progress'], { WAYMARK_TX_DIE_AFTER_RENAME: '1' }).signal, 'SIGKILL');
    const next = cli(dir, ['story', 'check', '1-1', '1']);
    assert.equal(next.status, 0, next.stderr);
    assert.equal((parseYaml(read(dir, LEDGER)) as { development_status: Record<string, string> }).development_status['1-1-story-1'], 'in-progress');
    assert.match(read(dir, `${IMPL}/1-1-story-1.md`), /^Status: in-progress$/m);
    assert.deepEqual(readHistory(dir, path.join(dir, `${IMPL}/1-1-story-1.md`)).map((e) => e.operation), ['story-set-status', 'story-check']);
    assert.deepEqual(readHistory(dir, path.join(dir, LEDGER)).map((e) => e.operation), ['story-set-status']);
  });

  test('one history line per changed file, both with the same operation; a stale --expect-hash is exit 3 and nothing moves', () => {
    const dir = project(BLOCK);
    const hash = JSON.parse(cli(dir, ['story', 'show', '1-1', '--json']).stdout).stateHash;
    const ok = cli(dir, ['story', 'set-status', '1-1', 'in-progress', '--expect-hash', hash]);
    assert.equal(ok.status, 0, ok.stderr);
    const s = readHistory(dir, path.join(dir, `${IMPL}/1-1-story-1.md`));
    const l = readHistory(dir, path.join(dir, LEDGER));
    assert.deepEqual([s.length, l.length], [1, 1]);
    assert.deepEqual([s[0].operation, l[0].operation], ['story-set-status', 'story-set-status']);
    const ledger = read(dir, LEDGER);
    const stale = cli(dir, ['story', 'set-status', '1-1', 'review', '--expect-hash', hash]);
    assert.equal(stale.status, 3, stale.stderr);
    assert.equal(read(dir, LEDGER), ledger);
  });
});

describe('ledger edits keep YAML valid', () => {
  const cases: [string, string, string][] = [
    ['an empty value', 'development_status:\n  1-1-story-1:\n  1-2-story-2: backlog\n', 'development_status:\n  1-1-story-1: in-progress\n  1-2-story-2: backlog\n'],
    ['an empty value with a comment', 'development_status:\n  1-1-story-1:   # to do\n  1-2-story-2: backlog\n', 'development_status:\n  1-1-story-1: in-progress   # to do\n  1-2-story-2: backlog\n'],
    ['a flow mapping value', 'development_status:\n  1-1-story-1: {status: ready-for-dev, owner: ana}\n  1-2-story-2: backlog\n', 'development_status:\n  1-1-story-1: {status: in-progress, owner: ana}\n  1-2-story-2: backlog\n'],
    ['a block mapping value', 'development_status:\n  1-1-story-1:\n    status: ready-for-dev  # moved\n    owner: ana\n  1-2-story-2: backlog\n', 'development_status:\n  1-1-story-1:\n    status: in-progress  # moved\n    owner: ana\n  1-2-story-2: backlog\n'],
    ['a flow-style ledger', 'development_status: {epic-1: in-progress, 1-1-story-1: ready-for-dev, 1-2-story-2: backlog}\n', 'development_status: {epic-1: in-progress, 1-1-story-1: in-progress, 1-2-story-2: backlog}\n'],
    ['a multi-line flow-style ledger', 'development_status: {\n  1-1-story-1: ready-for-dev,\n  1-2-story-2: backlog\n}\n', 'development_status: {\n  1-1-story-1: in-progress,\n  1-2-story-2: backlog\n}\n'],
    ['a double-quoted value', 'development_status:\n  "1-1-story-1": "ready-for-dev"\n  1-2-story-2: backlog\n', 'development_status:\n  "1-1-story-1": "in-progress"\n  1-2-story-2: backlog\n'],
    ["a single-quoted value", "development_status:\n  1-1-story-1: 'ready-for-dev'\n  1-2-story-2: backlog\n", "development_status:\n  1-1-story-1: 'in-progress'\n  1-2-story-2: backlog\n"],
    ['a mapping value without a status key', 'development_status:\n  1-1-story-1: {owner: ana}\n  1-2-story-2: backlog\n', 'development_status:\n  1-1-story-1: {owner: ana, status: in-progress}\n  1-2-story-2: backlog\n'],
    ['CRLF line ends', 'development_status:\r\n  1-1-story-1:\r\n  1-2-story-2: backlog\r\n', 'development_status:\r\n  1-1-story-1: in-progress\r\n  1-2-story-2: backlog\r\n'],
  ];
  for (const [what, body, want] of cases) {
    test(`${what}: the file still parses and only the value changes (and last_updated)`, () => {
      const dir = project(body);
      const r = cli(dir, ['story', 'set-status', '1-1', 'in-progress', '--json']);
      assert.equal(r.status, 0, r.stderr);
      const text = read(dir, LEDGER);
      assert.doesNotThrow(() => parseYaml(text), text);
      assert.equal(text.replace(/last_updated: \S+/, 'last_updated: X'), `${HEAD}${want}`.replace(/last_updated: \S+/, 'last_updated: X'));
      assert.deepEqual(JSON.parse(r.stdout).written.sort(), [`${IMPL}/1-1-story-1.md`, LEDGER].sort());
      assert.match(read(dir, `${IMPL}/1-1-story-1.md`), /^Status: in-progress$/m);
    });
  }

  test('a ledger that is not valid YAML is refused before anything is written, naming the line', () => {
    const dir = project('development_status:\n  1-1-story-1: ready-for-dev\n  1-2-story-2: [backlog\n');
    const story = read(dir, `${IMPL}/1-1-story-1.md`);
    const ledger = read(dir, LEDGER);
    const r = cli(dir, ['story', 'set-status', '1-1', 'in-progress']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /sprint-status\.yaml.*line \d+/);
    assert.equal(read(dir, `${IMPL}/1-1-story-1.md`), story);
    assert.equal(read(dir, LEDGER), ledger);
  });
});

describe('settings come from the workspace configuration', () => {
  const config = 'bmad:\n  dir: tools/method\nhistory:\n  dir: .records/history\n';
  const files = {
    'tools/method/bmm/config.yaml': 'output_folder: "{project-root}/delivery"\nimplementation_artifacts: "{project-root}/delivery/sprints"\nstory_location: "{project-root}/delivery/stories"\n',
    'delivery/sprints/sprint-status.yaml': `${HEAD}${BLOCK}`,
    'delivery/stories/1-1-story-1.md': storyText('1.1', 'Story 1', 'in-progress'),
    'delivery/stories/1-2-story-2.md': storyText('1.2', 'Story 2', 'backlog'),
  };
  test('sprint, validate and story set-status read bmad.dir and history.dir from .waymark/config.yaml', () => {
    const dir = workspace(files, { config, prefix: 'wm-storytx-cfg-' });
    const s = spawnSync(process.execPath, [CLI, 'sprint', dir, '--json'], { encoding: 'utf8', cwd: dir });
    const j = JSON.parse(s.stdout);
    const codes = (j.problems as { code: string }[]).map((p) => p.code);
    assert.ok(!codes.includes('ledger-story-no-file'), s.stdout);
    assert.ok(codes.includes('story-status-drift'), s.stdout);
    const v = spawnSync(process.execPath, [CLI, 'validate', dir], { encoding: 'utf8', cwd: dir });
    assert.match(v.stdout, /1-1-story-1\.md:\d+:\d+ \w+ story-status-drift/);
    const w = cli(dir, ['story', 'set-status', '1-2', 'ready-for-dev', '--json']);
    assert.equal(w.status, 0, w.stderr);
    assert.deepEqual(JSON.parse(w.stdout).written.sort(), ['delivery/sprints/sprint-status.yaml', 'delivery/stories/1-2-story-2.md']);
    assert.ok(fs.existsSync(path.join(dir, '.records/history/delivery/stories/1-2-story-2.md.jsonl')));
    assert.ok(!fs.existsSync(path.join(dir, '.waymark/history')));
    const h = spawnSync(process.execPath, [CLI, 'history', path.join(dir, 'delivery/stories/1-2-story-2.md'), '--json'], { encoding: 'utf8', cwd: dir });
    assert.match(h.stdout, /story-set-status/);
  });
});

describe('story commands are exact and follow the hook rules', () => {
  test('a key that names no story exactly is refused with the candidates; nothing is written', () => {
    const dir = project(BLOCK);
    const ledger = read(dir, LEDGER);
    const r = cli(dir, ['story', 'set-status', '1-2-delete-all-user-data', 'ready-for-dev']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /1-2-story-2/);
    assert.equal(read(dir, LEDGER), ledger);
    assert.equal(read(dir, `${IMPL}/1-2-story-2.md`), storyText('1.2', 'Story 2', 'backlog'));
    const c = cli(dir, ['story', 'check', '1-2-delete-all-user-data', '1']);
    assert.equal(c.status, 2, c.stderr);
    assert.equal(cli(dir, ['story', 'set-status', '1-2', 'ready-for-dev']).status, 0);
    assert.equal(cli(dir, ['story', 'set-status', '1.1', 'in-progress']).status, 0);
  });

  test('a short key naming two stories is refused, listing both', () => {
    const dir = project('development_status:\n  1-2-story-2: backlog\n  1-2-other: backlog\n', { files: { [`${IMPL}/1-2-other.md`]: storyText('1.2', 'Other', 'backlog') } });
    const r = cli(dir, ['story', 'set-status', '1-2', 'ready-for-dev']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /1-2-story-2/);
    assert.match(r.stderr, /1-2-other/);
  });

  test('ready-for-dev → done with every task open is refused (exit 4) as the hook refuses it, naming the commands; --force overrides', async () => {
    const dir = project(BLOCK);
    const r = cli(dir, ['story', 'set-status', '1-1', 'done']);
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, /task/);
    assert.match(r.stderr, /waymark story (check|set-status)/);
    assert.match(r.stderr, /--force/);
    assert.match(read(dir, `${IMPL}/1-1-story-1.md`), /^Status: ready-for-dev$/m);
    await assert.rejects(setStatus(dir, '1-1', 'done'), (e) => WaymarkError.is(e, 'transition'));
    const forced = cli(dir, ['story', 'set-status', '1-1', 'done', '--force']);
    assert.equal(forced.status, 0, forced.stderr);
  });

  test('an entry written as a mapping is judged by the status YAML reads: done moved back is refused, history says done', () => {
    const dir = project('development_status:\n  1-1-story-1: {status: done}\n  1-2-story-2: backlog\n', { statuses: ['done', 'backlog'] });
    const r = cli(dir, ['story', 'set-status', '1-1', 'in-progress']);
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, /waymark story set-status 1-1-story-1 in-progress --force/);
    assert.equal(cli(dir, ['story', 'set-status', '1-1', 'in-progress', '--force']).status, 0);
    assert.match(read(dir, LEDGER), /1-1-story-1: \{status: in-progress\}/);
    const l = readHistory(dir, path.join(dir, LEDGER));
    assert.deepEqual([l.length, l[0].from], [1, { status: 'done' }]);
  });

  test('in-progress → done skipping review is refused like the hook; review → done with tasks ticked is fine', () => {
    const dir = project(BLOCK, { statuses: ['in-progress', 'backlog'] });
    fs.writeFileSync(path.join(dir, `${IMPL}/1-1-story-1.md`), storyText('1.1', 'Story 1', 'in-progress', ['- [x] Task 1: first', '- [x] Task 2: second']));
    fs.writeFileSync(path.join(dir, LEDGER), `${HEAD}${BLOCK.replace('1-1-story-1: ready-for-dev', '1-1-story-1: in-progress')}`);
    const r = cli(dir, ['story', 'set-status', '1-1', 'done']);
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, /waymark story set-status 1-1-story-1 review/);
    assert.equal(cli(dir, ['story', 'set-status', '1-1', 'review']).status, 0);
    const done = cli(dir, ['story', 'set-status', '1-1', 'done']);
    assert.equal(done.status, 0, done.stderr);
  });
});

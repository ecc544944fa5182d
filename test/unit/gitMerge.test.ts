import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { renderGateUpdate } from '../../src/core/index';
import { CLI, ENV, dirs, git } from './gitHelpers';


/** `git merge` that may conflict: its exit code and the merged tree's text of `file`. */
function merge(cwd: string, branch: string): { code: number; out: string } {
  const r = spawnSync('git', ['merge', '--no-edit', branch], { cwd, encoding: 'utf8', env: ENV });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

function cli(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: ENV });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

function read(root: string, rel: string): string {
  return fs.readFileSync(path.join(root, rel), 'utf8');
}

/** A repository with `files` committed on main; the driver installed unless `driver` is false. */
function repo(files: Record<string, string>, driver = true): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-gitmerge-'));
  dirs.push(root);
  git(root, 'init', '-q', '-b', 'main');
  for (const [rel, text] of Object.entries(files)) write(root, rel, text);
  if (driver) {
    const r = cli(root, 'git', 'install');
    assert.equal(r.code, 0, r.stderr);
  }
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'base');
  return root;
}

/** Commits `edit` on a new branch `feat` and `main` on main, then merges feat into main. */
function diverge(root: string, feat: Record<string, string>, main: Record<string, string>): { code: number; out: string } {
  git(root, 'checkout', '-q', '-b', 'feat');
  for (const [rel, text] of Object.entries(feat)) write(root, rel, text);
  git(root, 'commit', '-q', '-am', 'feat');
  git(root, 'checkout', '-q', 'main');
  for (const [rel, text] of Object.entries(main)) write(root, rel, text);
  git(root, 'commit', '-q', '-am', 'main');
  return merge(root, 'feat');
}

const wf = (steps: string, status: string, body = 'Body.\n', last = '2') =>
  `---\nworkflowType: prd\nstepsCompleted: [${steps}]\nlastStep: ${last}\nstatus: ${status}\n---\n# PRD\n\n${body}`;

const LEDGER = 'sprint-status.yaml';
const ledger = (s11: string, s12: string, stamp = '2026-11-20 10:00') =>
  `# ledger\nlast_updated: ${stamp}\ndevelopment_status:\n  epic-1: in-progress\n  1-1-login: ${s11}\n  1-2-logout: ${s12}\n`;

const STORY = 'stories/1-1-login.md';
const story = (status: string, boxes: [boolean, boolean, boolean]) =>
  `# Story 1.1: Login\n\nStatus: ${status}\n\n## Tasks / Subtasks\n\n- [${boxes[0] ? 'x' : ' '}] Form\n- [${boxes[1] ? 'x' : ' '}] Session\n- [${boxes[2] ? 'x' : ' '}] Tests\n\n## Dev Notes\n`;

describe('waymark merge-driver in real git merges', () => {
  test('two branches completing different steps merge with no conflict and both steps done', () => {
    const root = repo({ 'wf.md': wf('1, 2', 'in-progress') });
    const r = diverge(root, { 'wf.md': wf('1, 2, 3', 'in-progress', 'Body.\n', '3') }, { 'wf.md': wf('1, 2, 4', 'in-progress', 'Body.\n', '4') });
    assert.equal(r.code, 0, r.out);
    assert.equal(read(root, 'wf.md'), wf('1, 2, 3, 4', 'in-progress', 'Body.\n', '4'));
    assert.equal(git(root, 'status', '--porcelain'), '');
  });

  test('a branch moving a story to review and another ticking its tasks merge cleanly', () => {
    const root = repo({ [STORY]: story('in-progress', [false, false, false]), [LEDGER]: ledger('in-progress', 'backlog') });
    const r = diverge(
      root,
      { [STORY]: story('review', [true, false, false]), [LEDGER]: ledger('review', 'backlog', '2026-11-21 09:00') },
      { [STORY]: story('in-progress', [false, true, true]), [LEDGER]: ledger('in-progress', 'ready-for-dev', '2026-11-21 08:00') },
    );
    assert.equal(r.code, 0, r.out);
    assert.equal(read(root, STORY), story('review', [true, true, true]));
    assert.equal(read(root, LEDGER), ledger('review', 'ready-for-dev', '2026-11-21 09:00'));
  });

  test('review → in-progress made by one side only is kept (the move back a code review makes)', () => {
    const root = repo({ [LEDGER]: ledger('review', 'backlog') });
    const r = diverge(root, { [LEDGER]: ledger('in-progress', 'backlog') }, { [LEDGER]: ledger('review', 'ready-for-dev') });
    assert.equal(r.code, 0, r.out);
    assert.equal(read(root, LEDGER), ledger('in-progress', 'ready-for-dev'));
  });

  test('a move back from done made by one side loses to the side that kept done', () => {
    const root = repo({ [LEDGER]: ledger('done', 'backlog') });
    const r = diverge(root, { [LEDGER]: ledger('in-progress', 'backlog') }, { [LEDGER]: ledger('done', 'ready-for-dev') });
    assert.equal(r.code, 0, r.out);
    assert.equal(read(root, LEDGER), ledger('done', 'ready-for-dev'));
  });

  test('two truly conflicting edits produce a normal conflict with an explanation', () => {
    const root = repo({ 'wf.md': wf('1, 2', 'ready-for-dev') });
    const r = diverge(root, { 'wf.md': wf('1, 2', 'blocked') }, { 'wf.md': wf('1, 2', 'in-progress') });
    assert.equal(r.code, 1, r.out);
    const text = read(root, 'wf.md');
    assert.match(text, /^<<<<<<< HEAD \(waymark: status: both sides changed it \(in-progress \/ blocked\) and neither is further along\)\nstatus: in-progress\n=======\nstatus: blocked\n>>>>>>> feat\n/m);
    assert.match(git(root, 'status', '--porcelain'), /^UU wf\.md$/m);
    // git sees a normal conflict: resolving by hand and committing works as always.
    write(root, 'wf.md', wf('1, 2', 'blocked'));
    git(root, 'commit', '-q', '-am', 'resolved');
  });

  test('the body conflicts exactly as git would without the driver', () => {
    const files = { 'wf.md': wf('1, 2', 'in-progress', 'Para one.\nShared.\n') };
    const feat = { 'wf.md': wf('1, 2', 'in-progress', 'Para one from feat.\nShared.\n') };
    const main = { 'wf.md': wf('1, 2', 'in-progress', 'Para one from main.\nShared.\n') };
    const withDriver = repo(files);
    const plain = repo(files, false);
    const a = diverge(withDriver, feat, main);
    const b = diverge(plain, feat, main);
    assert.equal(a.code, 1);
    assert.equal(b.code, 1);
    assert.equal(read(withDriver, 'wf.md'), read(plain, 'wf.md'));
    assert.match(read(plain, 'wf.md'), /<<<<<<< HEAD\nPara one from main\.\n=======\nPara one from feat\.\n>>>>>>> feat\n/);
  });

  test('state and body together: state merged by progress, body conflict left as git leaves it', () => {
    const root = repo({ 'wf.md': wf('1, 2', 'in-progress', 'Para.\n') });
    const r = diverge(root, { 'wf.md': wf('1, 2, 3', 'in-progress', 'Para feat.\n', '3') }, { 'wf.md': wf('1, 2, 4', 'completed', 'Para main.\n', '4') });
    assert.equal(r.code, 1);
    const text = read(root, 'wf.md');
    assert.ok(text.startsWith('---\nworkflowType: prd\nstepsCompleted: [1, 2, 3, 4]\nlastStep: 4\nstatus: completed\n---\n'), text);
    assert.match(text, /<<<<<<< HEAD\nPara main\.\n=======\nPara feat\.\n>>>>>>> feat\n/);
  });

  test('frontmatter that is not a workflow (a blog post) is text: git decides, the driver does not', () => {
    const post = (status: string, title: string) => `---\ntitle: ${title}\nstatus: ${status}\n---\nText.\n`;
    const root = repo({ 'post.md': post('draft', 'A') });
    const plain = repo({ 'post.md': post('draft', 'A') }, false);
    const feat = { 'post.md': post('in-progress', 'A') };
    const main = { 'post.md': post('done', 'B') };
    assert.equal(diverge(root, feat, main).code, 1);
    assert.equal(diverge(plain, feat, main).code, 1);
    assert.equal(read(root, 'post.md'), read(plain, 'post.md'));
  });

  test('history files merge by union, new lines re-sequenced after the shared ones', () => {
    const line = (seq: number, time: string, op: string) => JSON.stringify({ seq, time, operation: op, file: 'wf.md' });
    const base = `${line(1, '2026-11-20T10:00:00Z', 'create')}\n`;
    const rel = '.waymark/history/wf.md.jsonl';
    const root = repo({ [rel]: base });
    const r = diverge(root, { [rel]: `${base}${line(2, '2026-11-20T11:00:00Z', 'feat-step')}\n` }, { [rel]: `${base}${line(2, '2026-11-20T10:30:00Z', 'main-step')}\n` });
    assert.equal(r.code, 0, r.out);
    const got = read(root, rel).trim().split('\n').map((l) => JSON.parse(l) as { seq: number; operation: string });
    assert.deepEqual(got.map((e) => [e.seq, e.operation]), [[1, 'create'], [2, 'main-step'], [3, 'feat-step']]);
  });

  test('gate files keep the newest verdict and the verdict history of both sides', () => {
    const rel = '.waymark/gates/prd/review.gate';
    const base = renderGateUpdate(undefined, { verdict: 'CONCERNS', reviewer: 'qa', updated: '2026-11-20T10:00:00.000Z' });
    const root = repo({ [rel]: base });
    const feat = renderGateUpdate(base, { verdict: 'FAIL', reviewer: 'qa', reason: 'tests red', updated: '2026-11-20T11:00:00.000Z' });
    const main = renderGateUpdate(base, { verdict: 'PASS', reviewer: 'lead', updated: '2026-11-20T12:00:00.000Z' });
    const r = diverge(root, { [rel]: feat }, { [rel]: main });
    assert.equal(r.code, 0, r.out);
    const text = read(root, rel);
    assert.match(text, /^gate: PASS$/m);
    assert.match(text, /^reviewer: lead$/m);
    const verdicts = [...text.matchAll(/- gate: (\w+)/g)].map((m) => m[1]);
    assert.deepEqual(verdicts, ['CONCERNS', 'FAIL', 'PASS']);
  });

  test('uninstall removes exactly what install wrote and restores git\'s behaviour', () => {
    const userAttrs = '*.png binary\n';
    const root = repo({ '.gitattributes': userAttrs, 'wf.md': wf('1, 2', 'in-progress') }, false);
    const before = fs.readFileSync(path.join(root, '.git/config'), 'utf8');
    assert.equal(cli(root, 'git', 'install').code, 0);
    assert.match(read(root, '.gitattributes'), /merge=waymark/);
    assert.match(git(root, 'config', '--get', 'merge.waymark.driver'), /merge-driver %O %A %B %P %L/);
    const u = cli(root, 'git', 'uninstall');
    assert.equal(u.code, 0, u.stderr);
    assert.equal(read(root, '.gitattributes'), userAttrs);
    assert.equal(fs.readFileSync(path.join(root, '.git/config'), 'utf8'), before);
    // Git alone conflicts on the same stepsCompleted line the driver would unite.
    const r = diverge(root, { 'wf.md': wf('1, 2, 3', 'in-progress') }, { 'wf.md': wf('1, 2, 4', 'in-progress') });
    assert.equal(r.code, 1);
    assert.match(read(root, 'wf.md'), /<<<<<<< HEAD\nstepsCompleted: \[1, 2, 4\]\n=======\nstepsCompleted: \[1, 2, 3\]\n>>>>>>> feat/);
    assert.equal(cli(root, 'git', 'uninstall').stdout.includes('nothing to remove'), true);
  });

  test('bad input: missing arguments and unknown options are usage errors (exit 2), a missing file is unreadable', () => {
    const root = repo({ 'wf.md': wf('1', 'in-progress') }, false);
    assert.equal(cli(root, 'merge-driver', 'a').code, 2);
    assert.equal(cli(root, 'merge-driver', 'a', 'b', 'c', '--marker', '7').code, 2);
    const r = cli(root, 'merge-driver', 'no-base', 'no-ours', 'no-theirs', 'wf.md');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no-base \(base\)/);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-nogit-'));
    dirs.push(outside);
    const g = cli(outside, 'git', 'install');
    assert.equal(g.code, 2);
    assert.match(g.stderr, /not inside a git repository/);
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { scanRoots, allProblems } from '../../src/core/store/scan';

const CLI = path.resolve('dist/cli.js');

function cli(args: string[], cwd: string) {
  // No scan index inside the repo's fixtures (test/unit/scanIndex.test.ts covers the index).
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, WAYMARK_SCAN_INDEX: '0' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-scan-'));
}

describe('scan', () => {
  test('multi-root, config globs and excludes, nested roots owned by the inner root', async () => {
    const a = tmp();
    const b = tmp();
    try {
      fs.mkdirSync(path.join(a, '.waymark'));
      fs.writeFileSync(path.join(a, '.waymark/config.yaml'), "include: ['flows/**/*.md']\nexclude: ['flows/old/**']\n");
      fs.mkdirSync(path.join(a, 'flows/old'), { recursive: true });
      fs.writeFileSync(path.join(a, 'flows/one.md'), '---\nworkflow: one\nsteps: [x]\n---\n');
      fs.writeFileSync(path.join(a, 'flows/old/two.md'), '---\nworkflow: two\nsteps: [x]\n---\n');
      fs.writeFileSync(path.join(a, 'elsewhere.md'), '---\nworkflow: three\nsteps: [x]\n---\n');
      fs.writeFileSync(path.join(b, 'b.md'), '---\nworkflow: bee\nsteps: [x]\n---\n');
      fs.mkdirSync(path.join(b, '.git'));
      fs.writeFileSync(path.join(b, '.git/x.md'), '---\nworkflow: git\n---\n');
      const res = await scanRoots([a, b]);
      assert.deepEqual(res.workflows.map((w) => w.workflow).sort(), ['bee', 'one']);
      assert.equal(res.workflows.find((w) => w.workflow === 'bee')!.root, b);
      assert.equal(res.contexts.size, 2);
      assert.deepEqual(allProblems(res), []);
    } finally {
      fs.rmSync(a, { recursive: true, force: true });
      fs.rmSync(b, { recursive: true, force: true });
    }
  });

  test('excludes: folder patterns skip whole folders, other patterns are tested on every file', async () => {
    const a = tmp();
    try {
      fs.mkdirSync(path.join(a, '.waymark'));
      fs.writeFileSync(path.join(a, '.waymark/config.yaml'), "exclude: ['**/old/**', '**/draft-*.md', 'notes/*.md', '{keep,arch}/**']\n");
      const wf = (rel: string) => {
        fs.mkdirSync(path.dirname(path.join(a, rel)), { recursive: true });
        fs.writeFileSync(path.join(a, rel), `---\nworkflow: ${path.basename(rel, '.md')}\nsteps: [x]\n---\n`);
      };
      for (const rel of ['one.md', 'x/old/two.md', 'old/three.md', 'x/draft-four.md', 'draft-five.md', 'notes/six.md', 'notes/deep/seven.md', 'keep/eight.md', 'arch/y/nine.md', 'kept/ten.md', 'x/olden/eleven.md']) wf(rel);
      const res = await scanRoots([a], { index: false });
      assert.deepEqual(res.workflows.map((w) => w.workflow).sort(), ['eleven', 'one', 'seven', 'ten']);
    } finally {
      fs.rmSync(a, { recursive: true, force: true });
    }
  });

  test('dialects setting turns a dialect off', async () => {
    const a = tmp();
    try {
      fs.writeFileSync(path.join(a, 'b.md'), '---\nworkflowType: prd\nstepsCompleted: [1]\n---\n');
      fs.writeFileSync(path.join(a, 'n.md'), '---\nworkflow: n\nsteps: [x]\n---\n');
      const res = await scanRoots([a], { overrides: { dialects: ['waymark'] } });
      assert.deepEqual(res.workflows.map((w) => w.dialect), ['waymark']);
    } finally {
      fs.rmSync(a, { recursive: true, force: true });
    }
  });
});

describe('CLI read verbs', () => {
  const bmad = path.resolve('test/fixtures/bmad');
  const native = path.resolve('test/fixtures/native');

  test('validate --json has the issue shape (1-based) and exits 0 without errors', () => {
    const r = cli(['validate', '--json'], bmad);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.workflows, 6);
    assert.equal(typeof j.files, 'number');
    const gap = j.problems.find((p: { code: string }) => p.code === 'step-gap');
    assert.deepEqual(
      { file: gap.file, line: gap.line, column: gap.column, severity: gap.severity },
      { file: '_bmad-output/planning-artifacts/prd.md', line: 2, column: 1, severity: 'warning' },
    );
    for (const p of j.problems) for (const k of ['file', 'line', 'column', 'severity', 'code', 'message']) assert.ok(k in p, k);
  });

  test('validate exits 1 on errors and prints file:line:col lines', () => {
    const d = tmp();
    try {
      fs.writeFileSync(path.join(d, 'w.md'), '---\nworkflow: w\nsteps: [a, b]\ncurrentStep: c\n---\n');
      const r = cli(['validate', 'w.md'], d);
      assert.equal(r.code, 1);
      assert.match(r.out, /^w\.md:4:14 error current-step-unknown /m);
      assert.match(r.out, /1 error\(s\)/);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('status --json has the issue shape', () => {
    const r = cli(['status', '--json'], native);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.workflows.length, 3);
    const login = j.workflows.find((w: { file: string }) => w.file === 'work/feature-login.md');
    for (const k of ['file', 'workflow', 'dialect', 'status', 'currentStep', 'stepsCompleted', 'steps', 'stateHash', 'gates', 'delegation']) assert.ok(k in login, k);
    assert.equal(login.currentStep, 'implement');
    assert.deepEqual(login.steps, ['design', 'implement', 'review', 'release']);
    assert.equal(login.gates.design.verdict, 'PASS');
    assert.equal(login.gates.review.verdict, null);
    assert.equal(login.delegation.root_id, 'wf-login');
    const one = JSON.parse(cli(['status', 'work/chore.md', '--json'], native).out);
    assert.equal(one.workflows.length, 1);
    assert.equal(one.workflows[0].status, 'completed');
  });

  test('status FILE reads that file alone: no scan, no index written, its own problems; validate and chain stay complete', () => {
    const d = tmp();
    try {
      fs.mkdirSync(path.join(d, '.waymark'));
      // A file the globs exclude is still read when named; the orphan needs other files to be seen.
      fs.writeFileSync(path.join(d, '.waymark/config.yaml'), "exclude: ['skip/**']\n");
      fs.mkdirSync(path.join(d, 'skip'));
      const orphan = '---\nworkflow: w\nsteps: [a, b]\ncurrentStep: c\ndelegation:\n  id: kid\n  parent_id: gone\n  root_id: gone\n  depth: 1\n  chain_path: [gone, kid]\n---\n';
      fs.writeFileSync(path.join(d, 'skip/kid.md'), orphan);
      fs.writeFileSync(path.join(d, 'kid.md'), orphan);
      const env = { ...process.env };
      delete env.WAYMARK_SCAN_INDEX;
      const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: d, encoding: 'utf8', env });
      const one = run(['status', 'kid.md', '--json']);
      assert.equal(one.status, 0, one.stderr);
      assert.equal(fs.existsSync(path.join(d, '.waymark/cache/scan-index.jsonl')), false, 'a one-file status must not scan (the scan writes the index)');
      const own = JSON.parse(one.stdout).workflows[0];
      assert.equal(own.problems, 1, 'current-step-unknown only: the orphan check needs every file');
      assert.equal(JSON.parse(run(['status', 'skip/kid.md', '--json']).stdout).workflows[0].workflow, 'w');
      const v = JSON.parse(run(['validate', 'kid.md', '--json']).stdout);
      assert.deepEqual(v.problems.map((p: { code: string }) => p.code).sort(), ['current-step-unknown', 'delegation-orphan']);
      assert.match(run(['chain', 'kid.md']).stdout, /delegation-orphan/);
      assert.match(run(['status', '--help']).stdout, /its problem count is its own/);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('status of a non-workflow file exits 2; --help exits 0 on every read verb', () => {
    const r = cli(['status', 'work/note.md'], native);
    assert.equal(r.code, 2);
    assert.match(r.err, /not a workflow file/);
    for (const v of ['scan', 'status', 'validate', 'chain', 'manifest', 'changed']) {
      const h = cli([v, '--help'], native);
      assert.equal(h.code, 0);
      assert.match(h.out, new RegExp(`Usage: waymark ${v}`));
      assert.match(h.out, /--json/);
    }
  });

  test('scan --json and chain', () => {
    const s = JSON.parse(cli(['scan', '--json'], native).out);
    assert.equal(s.workflows.length, 3);
    assert.deepEqual(s.skipped, []);
    const c = cli(['chain', 'work/feature-login-api.md', '--json'], native);
    assert.equal(c.code, 0, c.err);
    const j = JSON.parse(c.out);
    assert.deepEqual(j.path, ['wf-login', 'wf-login-api']);
    assert.equal(j.tree.id, 'wf-login');
    assert.equal(j.tree.children[0].file, 'work/feature-login-api.md');
    const t = cli(['chain', 'work/feature-login.md'], native);
    assert.match(t.out, /^\s+wf-login-api/m);
    assert.equal(cli(['chain', 'work/chore.md'], native).code, 2);
  });
});

describe('scan progress', () => {
  test('onProgress hears the workflows read so far after 100 files and every 500; the scan returns them all', async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'work'));
    for (let i = 0; i < 1100; i++) {
      fs.writeFileSync(path.join(root, 'work', `w${String(i).padStart(4, '0')}.md`), `---\nworkflow: w${i}\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\n---\n`);
    }
    const heard: [number, number, number][] = [];
    const result = await scanRoots([root], { index: false, onProgress: (read, done, listed) => heard.push([read.length, done, listed]) });
    assert.deepEqual(heard, [[100, 100, 1100], [500, 500, 1100], [1000, 1000, 1100]]);
    assert.equal(result.workflows.length, 1100);
  });

  test('firstProgressFiles: in a folder of over 100 files, the first onProgress comes after that many files instead of 100', async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'work'));
    for (let i = 0; i < 600; i++) {
      fs.writeFileSync(path.join(root, 'work', `w${String(i).padStart(4, '0')}.md`), `---\nworkflow: w${i}\nstatus: in_progress\nsteps: [a, b]\ncurrentStep: a\n---\n`);
    }
    const heard: [number, number, number][] = [];
    const result = await scanRoots([root], { index: false, firstProgressFiles: 30, onProgress: (read, done, listed) => heard.push([read.length, done, listed]) });
    assert.deepEqual(heard, [[30, 30, 600], [500, 500, 600]]);
    assert.equal(result.workflows.length, 600);
    // A folder of 100 files or fewer is read whole before anything is listed.
    const small = tmp();
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(small, `w${i}.md`), `---\nworkflow: s${i}\nstatus: in_progress\nsteps: [a]\ncurrentStep: a\n---\n`);
    const heardSmall: number[] = [];
    assert.equal((await scanRoots([small], { index: false, firstProgressFiles: 30, onProgress: (read) => heardSmall.push(read.length) })).workflows.length, 50);
    assert.deepEqual(heardSmall, []);
  });
});

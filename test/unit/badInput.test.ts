import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseFrontmatter, grayMatterData, isRefusedEngineError } from '../../src/core/model/frontmatter';
import { parseWorkflowText } from '../../src/core/model/workflow';
import { defaultWorkspaceContext, loadWorkspaceContext } from '../../src/core/store/workspaceContext';
import { scanRoots, listCandidates, readWorkflowFileSync, allProblems } from '../../src/core/store/scan';
import { parseConfigText } from '../../src/core/model/config';

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bad-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const ctx = () => defaultWorkspaceContext(dir);
const codes = (ps: { code: string }[]) => ps.map((p) => p.code);

const BOMB = [
  '---',
  'workflow: bomb',
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
  'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
  'h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]',
  'i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]',
  '---',
  '',
].join('\n');

describe('bad input never crashes, hangs or runs code', { timeout: 60_000 }, () => {
  test('malformed YAML → yaml-syntax with a line', () => {
    const p = parseWorkflowText(path.join(dir, 'a.md'), '---\nworkflow: w\nstatus: "open\nsteps: [a\n---\nbody\n', ctx());
    assert.deepEqual(codes(p.problems), ['yaml-syntax']);
    assert.ok(p.problems[0].range.start.line >= 1);
    assert.match(p.problems[0].message, /Fix the frontmatter/);
  });

  test('alias bomb (billion laughs) → yaml-alias-limit, quickly and without blowing memory', () => {
    const before = process.memoryUsage().heapUsed;
    const p = parseWorkflowText(path.join(dir, 'bomb.md'), BOMB, ctx());
    assert.deepEqual(codes(p.problems), ['yaml-alias-limit']);
    assert.equal(p.problems[0].severity, 'error');
    assert.ok(process.memoryUsage().heapUsed - before < 200 * 1024 * 1024);
    // A self-referencing alias cannot loop the copy.
    const rec = parseWorkflowText(path.join(dir, 'rec.md'), '---\nworkflow: w\na: &a {b: *a}\n---\n', ctx());
    assert.deepEqual(codes(rec.problems), ['yaml-too-complex']);
    // A few honest aliases are fine.
    const ok = parseWorkflowText(path.join(dir, 'ok.md'), '---\nworkflow: w\nsteps: &s [a, b]\nstepsCompleted: [a]\nx: *s\n---\n', ctx());
    assert.deepEqual(ok.state?.steps.map((s) => s.id), ['a', 'b']);
  });

  test('__proto__ / constructor / prototype keys do not pollute prototypes', () => {
    const text = '---\nworkflow: w\n__proto__: {polluted: yes}\nconstructor: {prototype: {polluted: yes}}\ndelegation: {__proto__: {polluted: 1}, id: a, root_id: a, depth: 0, chain_path: [a]}\n---\n';
    const p = parseWorkflowText(path.join(dir, 'proto.md'), text, ctx());
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(p.state!.data), null);
    const unsafe = p.problems.filter((x) => x.code === 'unsafe-key');
    assert.ok(unsafe.length >= 3);
    assert.deepEqual(unsafe[0].range, { start: { line: 2, character: 0 }, end: { line: 2, character: 9 } });
    // Only top-level keys get the removeKey quick fix (it cannot reach nested ones: it would do nothing).
    assert.equal(unsafe[0].data?.fix, 'removeKey');
    const nested = unsafe.find((x) => x.message.includes("'delegation.__proto__'"));
    assert.ok(nested, JSON.stringify(unsafe.map((x) => x.message)));
    assert.equal(nested!.data, undefined);
    assert.match(nested!.message, /by hand/);
    // Step ids and status words that are Object.prototype names are plain strings.
    const ids = parseWorkflowText(path.join(dir, 'ids.md'), '---\nworkflow: w\nsteps: [{id: __proto__, gate: true}, constructor, toString]\nstepsCompleted: [__proto__, constructor]\n---\n', ctx());
    assert.deepEqual(ids.state!.steps.map((s) => s.id), ['__proto__', 'constructor', 'toString']);
    assert.equal(ids.state!.nextStep, 'toString');
    assert.equal(Object.keys(ids.state!.gates).length, 1);
    assert.equal(ids.state!.gates.__proto__.name, '__proto__');
    const st = parseWorkflowText(path.join(dir, 'st.md'), '---\nworkflowType: prd\nstepsCompleted: [1]\nstatus: constructor\n---\n', ctx());
    assert.equal(st.state!.status, undefined);
    assert.ok(st.problems.some((p) => p.code === 'unknown-status'));
    // Also through the alias path (yaml library) and config overrides.
    parseFrontmatter('---\na: &x {polluted: 1}\n__proto__: *x\n---\n');
    parseConfigText('/r/c.yaml', '__proto__: {polluted: 1}\nlimits: {__proto__: {polluted: 2}}\n', JSON.parse('{"__proto__": {"polluted": 3}}'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('---js frontmatter is never evaluated (CVE-2022-25863), by us or by gray-matter', () => {
    const g = globalThis as Record<string, unknown>;
    delete g.__waymarkRan;
    const text = '---js\n{ workflow: (globalThis.__waymarkRan = "yes") }\n---\nbody\n';
    const p = parseWorkflowText(path.join(dir, 'js.md'), text, ctx());
    assert.deepEqual(codes(p.problems), ['frontmatter-code-refused']);
    assert.deepEqual(p.problems[0].range, { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } });
    for (const lang of ['javascript', 'coffee', 'JS']) {
      parseWorkflowText(path.join(dir, 'js.md'), text.replace('---js', `---${lang}`), ctx());
    }
    // The gray-matter layer itself refuses, even when handed the block directly.
    for (const lang of ['js', 'javascript', 'coffee', 'coffeescript', 'cson']) {
      assert.throws(() => grayMatterData(`---${lang}\n(globalThis.__waymarkRan = "yes")\n---\n`), (e: unknown) => isRefusedEngineError(e));
    }
    assert.equal(g.__waymarkRan, undefined);
  });

  test('frontmatter without closing fence → frontmatter-unclosed', () => {
    const p = parseWorkflowText(path.join(dir, 'u.md'), '---\nworkflow: w\nstatus: created\n\n# Body that never ends\n', ctx());
    assert.deepEqual(codes(p.problems), ['frontmatter-unclosed']);
  });

  test('empty file, fence-only file, list frontmatter, deep nesting', () => {
    assert.equal(parseWorkflowText('/x/e.md', '', ctx()).isWorkflow, false);
    assert.equal(parseWorkflowText('/x/e.md', '---\n---\n', ctx()).isWorkflow, false);
    const list = parseWorkflowText('/x/l.md', '---\n- workflow: w\n---\n', ctx());
    assert.deepEqual(codes(list.problems), ['frontmatter-not-mapping']);
    const deep = parseWorkflowText('/x/d.md', `---\nworkflow: w\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n---\n`, ctx());
    assert.ok(deep.problems.length >= 1);
    assert.ok(deep.problems.every((p) => p.range.start.line >= 0));
  });

  test('50 MB file, binary file, empty file, directory named like a workflow file: scan reports, never crashes', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-scanbad-'));
    try {
      const big = path.join(root, 'big.md');
      const fd = fs.openSync(big, 'w');
      fs.writeSync(fd, '---\nworkflow: big\n---\n');
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      for (let i = 0; i < 50; i++) fs.writeSync(fd, chunk);
      fs.closeSync(fd);
      fs.writeFileSync(path.join(root, 'bin.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01, 0xff, 0xfe, 0x0a]));
      fs.writeFileSync(path.join(root, 'empty.md'), '');
      fs.mkdirSync(path.join(root, 'looks-like.md'));
      fs.writeFileSync(path.join(root, 'looks-like.md', 'inner.md'), '---\nworkflow: inner\nsteps: [a]\n---\n');
      fs.writeFileSync(path.join(root, 'good.md'), '---\nworkflow: good\nsteps: [a]\n---\n');
      fs.mkdirSync(path.join(root, 'node_modules/pkg'), { recursive: true });
      fs.writeFileSync(path.join(root, 'node_modules/pkg/readme.md'), '---\nworkflow: dep\n---\n');
      const res = await scanRoots([root]);
      const reasons = Object.fromEntries(res.skipped.map((s) => [path.relative(root, s.file), s.reason]));
      assert.deepEqual(reasons, { 'big.md': 'too-large', 'bin.md': 'binary', 'looks-like.md': 'not-a-file' });
      assert.deepEqual(res.workflows.map((w) => w.workflow).sort(), ['good', 'inner']);
      assert.match(res.skipped.find((s) => s.reason === 'too-large')!.detail!, /maxFileBytes/);
      // An explicit read of the directory is reported too.
      const c = (await loadWorkspaceContext(root)).context;
      assert.equal(readWorkflowFileSync(path.join(root, 'looks-like.md'), c).skipped?.reason, 'not-a-file');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('a file deleted between listing and reading is reported as unreadable', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-del-'));
    try {
      fs.writeFileSync(path.join(root, 'gone.md'), '---\nworkflow: g\n---\n');
      const c = (await loadWorkspaceContext(root)).context;
      const { files } = listCandidates(c);
      assert.equal(files.length, 1);
      fs.rmSync(files[0]);
      const r = readWorkflowFileSync(files[0], c);
      assert.equal(r.skipped?.reason, 'unreadable');
      assert.match(r.skipped!.detail!, /disappeared/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('unreadable folder and file (when not running as root)', async (t) => {
    if (process.getuid?.() === 0) {
      t.skip('root ignores permissions');
      return;
    }
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-perm-'));
    try {
      fs.mkdirSync(path.join(root, 'locked'));
      fs.writeFileSync(path.join(root, 'locked/a.md'), '---\nworkflow: a\n---\n');
      fs.writeFileSync(path.join(root, 'noread.md'), '---\nworkflow: b\n---\n');
      fs.chmodSync(path.join(root, 'locked'), 0o000);
      fs.chmodSync(path.join(root, 'noread.md'), 0o000);
      const res = await scanRoots([root]);
      assert.equal(res.skipped.find((s) => s.file.endsWith('noread.md'))?.reason, 'unreadable');
    } finally {
      fs.chmodSync(path.join(root, 'locked'), 0o755);
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('bad config: problem with position, defaults used, scan continues', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-badcfg-'));
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      fs.writeFileSync(path.join(root, '.waymark/config.yaml'), 'include: 7\nlimits:\n  maxFileBytes: lots\n');
      fs.writeFileSync(path.join(root, 'w.md'), '---\nworkflow: w\nsteps: [a]\n---\n');
      const res = await scanRoots([root]);
      const cfg = allProblems(res).filter((p) => p.code === 'config-invalid');
      assert.equal(cfg.length, 2);
      assert.deepEqual(cfg[0].range.start, { line: 0, character: 0 });
      assert.deepEqual(cfg[1].range.start, { line: 2, character: 2 });
      assert.equal(res.workflows.length, 1);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('CLI: missing path exits 2 with one actionable line; errors exit 1', () => {
    const cli = path.resolve('dist/cli.js');
    if (!fs.existsSync(cli)) return;
    const missing = spawnSync(process.execPath, [cli, 'validate', path.join(dir, 'nope.md')], { encoding: 'utf8' });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /no such file/);
    fs.writeFileSync(path.join(dir, 'broken.md'), '---\nworkflow: w\nstatus: [x\n---\n');
    const broken = spawnSync(process.execPath, [cli, 'validate', path.join(dir, 'broken.md'), '--json'], { encoding: 'utf8' });
    assert.equal(broken.status, 1);
    const out = JSON.parse(broken.stdout);
    assert.equal(out.problems[0].code, 'yaml-syntax');
    assert.ok(out.problems[0].line >= 1);
    // A repository whose ---js block would write a file: scanning it in a real process runs nothing.
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-jsrepo-'));
    const marker = path.join(repo, 'PWNED');
    fs.writeFileSync(path.join(repo, 'evil.md'), `---js\n{ workflow: require('fs').writeFileSync(${JSON.stringify(marker)}, 'x') || 'w' }\n---\n`);
    const scan = spawnSync(process.execPath, [cli, 'validate', '--json'], { cwd: repo, encoding: 'utf8' });
    assert.equal(scan.status, 1);
    assert.equal(JSON.parse(scan.stdout).problems[0].code, 'frontmatter-code-refused');
    assert.equal(fs.existsSync(marker), false);
    fs.rmSync(repo, { recursive: true, force: true });
    fs.writeFileSync(path.join(dir, 'bomb.md'), BOMB);
    const bomb = spawnSync(process.execPath, [cli, 'status', path.join(dir, 'bomb.md')], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(bomb.status, 2);
    assert.match(bomb.stderr, /alias/);
  });
});

// ---- hostile-input sweep through the real CLI (black box) ---------------------------------------

function runCli(args: string[], cwd: string, timeout = 20_000) {
  const r = spawnSync(process.execPath, [path.resolve('dist/cli.js'), ...args], { cwd, encoding: 'utf8', timeout });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function freshRoot(prefix: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `waymark-${prefix}-`));
  fs.mkdirSync(path.join(root, '.waymark'));
  return root;
}

/** No stack trace, no `undefined`, one or two lines naming something a person can act on. */
function assertCleanError(r: { stderr: string; status: number | null }, what: string) {
  assert.ok(!/\n\s+at .+\(.+:\d+:\d+\)|\bat Object\.|TypeError|RangeError|ReferenceError/.test(r.stderr), `${what}: stack trace or JS error on stderr: ${r.stderr}`);
  assert.ok(!/undefined|\[object Object\]/.test(r.stderr), `${what}: ${r.stderr}`);
  const lines = r.stderr.trim().split('\n').filter(Boolean);
  assert.ok(lines.length >= 1 && lines.length <= 2, `${what}: expected 1-2 stderr lines, got ${JSON.stringify(r.stderr)}`);
}

describe('CLI counts and hostile inputs', { timeout: 120_000 }, () => {
  const cli = path.resolve('dist/cli.js');

  test('validate --json counts only the files under the folder given', (t) => {
    if (!fs.existsSync(cli)) return t.skip('dist/cli.js not built');
    const root = freshRoot('count');
    try {
      fs.mkdirSync(path.join(root, 'a'));
      fs.mkdirSync(path.join(root, 'b'));
      const wf = '---\nworkflow: w\nsteps: [x, y]\nstatus: created\n---\n';
      fs.writeFileSync(path.join(root, 'a', 'one.md'), wf);
      fs.writeFileSync(path.join(root, 'a', 'notes.md'), '# just notes\n');
      fs.writeFileSync(path.join(root, 'b', 'two.md'), wf);
      fs.writeFileSync(path.join(root, 'b', 'three.md'), wf);
      fs.writeFileSync(path.join(root, 'top.md'), wf);
      const all = JSON.parse(runCli(['validate', '--json'], root).stdout);
      assert.equal(all.files, 5);
      assert.equal(all.workflows, 4);
      const a = JSON.parse(runCli(['validate', 'a', '--json'], root).stdout);
      assert.deepEqual([a.files, a.workflows], [2, 1]);
      const b = JSON.parse(runCli(['validate', path.join(root, 'b'), '--json'], root).stdout);
      assert.deepEqual([b.files, b.workflows], [2, 2]);
      const both = JSON.parse(runCli(['validate', 'a', 'b/two.md', '--json'], root).stdout);
      assert.deepEqual([both.files, both.workflows], [3, 2]);
      const scan = JSON.parse(runCli(['scan', '--json'], root).stdout);
      assert.equal(scan.files, 5);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('CLI on hostile workspaces', { timeout: 120_000 }, () => {
  const cli = path.resolve('dist/cli.js');

  test('chain over a delegation cycle and a self-parent: shown once with the loop marked, never a stack overflow', (t) => {
    if (!fs.existsSync(cli)) return t.skip('dist/cli.js not built');
    const root = freshRoot('cycle');
    try {
      fs.writeFileSync(path.join(root, 'a.md'), '---\nworkflow: w\nsteps: [x]\ndelegation: {id: A, parent_id: B, root_id: A, depth: 1, chain_path: [A, B]}\n---\n');
      fs.writeFileSync(path.join(root, 'b.md'), '---\nworkflow: w\nsteps: [x]\ndelegation: {id: B, parent_id: A, root_id: A, depth: 1, chain_path: [A, B]}\n---\n');
      fs.writeFileSync(path.join(root, 's.md'), '---\nworkflow: w\nsteps: [x]\ndelegation: {id: S, parent_id: S, root_id: S, depth: 0, chain_path: [S]}\n---\n');
      for (const f of ['a.md', 'b.md', 's.md']) {
        // A cycle is an integrity error: shown, and "not OK" (exit 1).
        const r = runCli(['chain', f], root);
        assert.equal(r.status, 1, r.stderr);
        assert.match(r.stdout, /delegation-cycle/);
        const j = runCli(['chain', f, '--json'], root);
        assert.equal(j.status, 1, j.stderr);
        JSON.parse(j.stdout);
      }
      assert.match(runCli(['chain', 'a.md'], root).stdout, /again: the chain loops back here/);
      const v = runCli(['validate', '--json'], root);
      assert.equal(v.status, 1);
      assert.ok(JSON.parse(v.stdout).problems.some((p: { code: string }) => p.code === 'delegation-cycle'));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('a config that is malformed, mistyped or a folder: one problem, defaults used, status still works', (t) => {
    if (!fs.existsSync(cli)) return t.skip('dist/cli.js not built');
    const root = freshRoot('cfg');
    try {
      fs.writeFileSync(path.join(root, 'w.md'), '---\nworkflow: w\nsteps: [x]\nstatus: created\n---\n');
      const cfg = path.join(root, '.waymark', 'config.yaml');
      const variants: [string, string | null, string][] = [
        ['malformed', 'include: [**/*.md\n', 'config-yaml-syntax'],
        ['wrong types', 'include: 5\nlimits: {maxFileBytes: -1}\ngates: [x]\n', 'config-invalid'],
        ['a list', '- a\n- b\n', 'config-invalid'],
        ['__proto__', '__proto__: {include: [x]}\nconstructor: 1\n', 'config-unknown-key'],
        ['a folder', null, 'config-unreadable'],
      ];
      for (const [what, text, code] of variants) {
        fs.rmSync(cfg, { recursive: true, force: true });
        if (text === null) fs.mkdirSync(cfg);
        else fs.writeFileSync(cfg, text);
        const v = runCli(['validate', '--json'], root);
        assert.notEqual(v.status, null, `${what}: hung`);
        const out = JSON.parse(v.stdout);
        assert.ok(out.problems.some((p: { code: string }) => p.code === code), `${what}: ${JSON.stringify(out.problems.map((p: { code: string }) => p.code))}`);
        assert.equal(out.workflows, 1, what);
        const s = runCli(['status', '--json'], root);
        assert.equal(s.status, 0, `${what}: ${s.stderr}`);
        assert.equal(JSON.parse(s.stdout).workflows.length, 1, what);
        assert.equal(({} as Record<string, unknown>).include, undefined, 'no prototype pollution');
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('symlink loops and links out of the workspace: the scan ends, once per real file', (t) => {
    if (!fs.existsSync(cli)) return t.skip('dist/cli.js not built');
    const root = freshRoot('links');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-outside-'));
    try {
      fs.writeFileSync(path.join(root, 'w.md'), '---\nworkflow: w\nsteps: [x]\n---\n');
      fs.symlinkSync('.', path.join(root, 'loop'));
      fs.mkdirSync(path.join(root, 'd'));
      fs.symlinkSync('..', path.join(root, 'd', 'up'));
      fs.writeFileSync(path.join(outside, 'o.md'), '---\nworkflow: o\nsteps: [x]\n---\n');
      fs.symlinkSync(outside, path.join(root, 'out'));
      const r = runCli(['scan', '--json'], root, 30_000);
      assert.equal(r.signal, null, 'scan hung');
      assert.equal(r.status, 0, r.stderr);
      const files = JSON.parse(r.stdout).workflows.map((w: { file: string }) => w.file);
      assert.equal(files.filter((f: string) => f.endsWith('w.md')).length, 1, JSON.stringify(files));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
  test('a value thousands of characters long is clipped in every message, never shown whole', (t) => {
    if (!fs.existsSync(cli)) return t.skip('dist/cli.js not built');
    const root = freshRoot('long');
    const L = 'Q'.repeat(5000);
    try {
      const A = path.join(root, '_bmad-output', 'implementation-artifacts');
      const P = path.join(root, '_bmad-output', 'planning-artifacts');
      for (const d of [path.join(root, '_bmad', 'bmm'), A, P, path.join(root, 'wf')]) fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(root, '_bmad', 'bmm', 'config.yaml'), 'project_name: long\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n');
      fs.writeFileSync(path.join(A, 'sprint-status.yaml'), [
        `last_updated: 2026-01-01 ${L}`, 'development_status:', `  epic-1: ${L}`, `  1-1-first: ${L}`, `  1-2-${L}: done`, `  ${L}: done`, `  epic-1-retrospective: ${L}`, '',
      ].join('\n'));
      fs.writeFileSync(path.join(A, '1-1-first.md'), `---\nstatus: done\n---\n# Story 1.1: ${L}\n\nStatus: ${L}\n\n## Tasks\n- [x] a\n`);
      fs.writeFileSync(path.join(A, '1-3-third.md'), `# Story 1.3: x\n\n## Status\n${L}\n`);
      fs.writeFileSync(path.join(P, 'prd.md'), `---\nstepsCompleted: [${L}, 2]\nworkflowType: ${L}\nstatus: ${L}\n---\n# PRD\n`);
      fs.writeFileSync(path.join(root, 'wf', 'a.workflow.md'), `---\nworkflow: ${L}\nstatus: ${L}\nscope: ${L}\ncurrent_step: ${L}\nsteps:\n  - id: ${L}\n  - ${L}\ndepends_on: [${L}]\n---\n# wf\n`);
      fs.writeFileSync(path.join(root, 'wf', 'b.workflow.md'), `---\nworkflow: w\nstatus: in_progress\nsteps: [a, b]\ncurrent_step: ${L}\nstepsCompleted: [a, ${L}]\n---\n`);
      const j = runCli(['validate', '--json'], root);
      assert.equal(j.status, 1, j.stderr);
      const problems: { code: string; message: string }[] = JSON.parse(j.stdout).problems;
      assert.ok(problems.length >= 8, `expected the long values to be reported: ${problems.map((p) => p.code).join(', ')}`);
      for (const p of problems) {
        assert.ok(p.message.length <= 500 && !/Q{100}/.test(p.message), `${p.code}: ${p.message.length} characters: ${p.message.slice(0, 200)}…`);
        assert.ok(!/\n/.test(p.message), `${p.code}: more than one line`);
      }
      for (const args of [['validate'], ['sprint'], ['next'], ['board']]) {
        const r = runCli(args, root);
        assert.ok(r.status === 0 || r.status === 1, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
        assert.ok(!/Q{200}/.test(r.stdout + r.stderr), `${args.join(' ')} shows a value whole: ${(r.stdout.match(/.*Q{200}.*/) ?? [''])[0].slice(0, 200)}`);
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('pathological nesting', () => {
  test('thousands of nested lists (flow or block, with or without anchors) → yaml-too-complex, not a syntax error', () => {
    const texts = [
      `---\nworkflow: w\nx: ${'['.repeat(20000)}${']'.repeat(20000)}\n---\n`,
      `---\nworkflow: w\ny: &a 1\nx: ${'['.repeat(20000)}${']'.repeat(20000)}\n---\n`,
      `---\nworkflow: w\nx:\n${Array.from({ length: 3000 }, (_, i) => ' '.repeat(i + 1) + '- ').join('\n')}1\n---\n`,
    ];
    for (const t of texts) {
      const p = parseWorkflowText(path.join(dir, 'deep.md'), t, ctx());
      assert.equal(p.state, undefined);
      assert.deepEqual(codes(p.problems), ['yaml-too-complex'], t.slice(0, 40));
      assert.match(p.problems[0].message, /nests too deeply|deeper than/);
    }
  });
});

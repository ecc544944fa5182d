import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createStateCore, writeFileAtomic, WaymarkError, readHistory } from '../../src/core/index';

const tmp: string[] = [];
const immutable: string[] = [];
after(() => {
  for (const d of immutable) spawnSync('chattr', ['-i', d]);
  for (const d of tmp) {
    spawnSync('chmod', ['-R', 'u+w', d]);
    fs.rmSync(d, { recursive: true, force: true });
  }
});

function ws(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bad-'));
  tmp.push(root);
  fs.mkdirSync(path.join(root, '.waymark'));
  return root;
}

const WF = '---\nworkflow: demo\nstatus: in_progress\nsteps: [one, two]\nstepsCompleted: []\n---\nbody\n';

const reasonOf = (reason: string, re?: RegExp) => (e: unknown) => {
  assert.ok(WaymarkError.is(e, reason as never), `expected ${reason}, got ${String(e)}`);
  if (re) assert.match((e as Error).message, re);
  return true;
};

/**
 * Makes `dir` read-only in a way that holds for root too: `chattr +i` (immutable: nothing can be
 * created in it, whoever you are). Without chattr, and when not root, chmod 555 does it.
 * Returns false when neither is possible here.
 */
function makeReadOnly(dir: string): boolean {
  const r = spawnSync('chattr', ['+i', dir]);
  if (r.status === 0) {
    immutable.push(dir);
    return true;
  }
  if (process.getuid?.() !== 0) {
    fs.chmodSync(dir, 0o555);
    return true;
  }
  return false;
}

describe('write path on bad input', () => {
  test('a read-only folder: clear io error naming the file and what to do; file, history and folder untouched', async (t) => {
    const root = ws();
    const dir = path.join(root, 'docs');
    fs.mkdirSync(dir);
    const file = path.join(dir, 'a.md');
    fs.writeFileSync(file, WF);
    if (!makeReadOnly(dir)) {
      t.skip('cannot make a read-only folder here (root without chattr); the ENOTDIR test below covers the error path');
      return;
    }
    const core = createStateCore({ roots: [root] });
    await assert.rejects(core.advance(file), reasonOf('io', /Cannot write .*a\.md: the folder .*docs is not writable; make it writable|read-only/));
    assert.equal(fs.readFileSync(file, 'utf8'), WF);
    assert.deepEqual(fs.readdirSync(dir), ['a.md'], 'no temp file left');
    assert.deepEqual(readHistory(root, file), [], 'no history for a write that did not happen');
    // The CLI says it in one or two lines and exits 2.
    const cli = path.resolve('dist/cli.js');
    if (fs.existsSync(cli)) {
      const r = spawnSync(process.execPath, [cli, 'advance', file], { encoding: 'utf8' });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /^waymark advance: Cannot write .*a\.md: .*Nothing was changed\.\n$/);
    }
  });

  test('writeFileAtomic: a parent that is a file, a directory as target → io errors, nothing left behind', () => {
    const root = ws();
    const notDir = path.join(root, 'plain');
    fs.writeFileSync(notDir, 'x');
    assert.throws(() => writeFileAtomic(path.join(notDir, 'a.md'), 'data'), reasonOf('io', /does not exist \(or a part of its path is a file\)/));
    fs.mkdirSync(path.join(root, 'adir.md'));
    assert.throws(() => writeFileAtomic(path.join(root, 'adir.md'), 'data'), reasonOf('io', /is a directory/));
    assert.deepEqual(fs.readdirSync(root).sort(), ['.waymark', 'adir.md', 'plain']);
  });

  test('writeFileAtomic keeps the mode and follows a symlink to its target', () => {
    const root = ws();
    const target = path.join(root, 'real.md');
    fs.writeFileSync(target, 'old');
    fs.chmodSync(target, 0o600);
    const link = path.join(root, 'link.md');
    fs.symlinkSync(target, link);
    writeFileAtomic(link, 'new');
    assert.equal(fs.readFileSync(target, 'utf8'), 'new');
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link stays a link');
    assert.equal(fs.statSync(target).mode & 0o777, 0o600);
  });

  test('unreadable inputs are refused before any write: directory, binary, too large, empty, missing', async () => {
    const root = ws();
    const core = createStateCore({ roots: [root] });
    fs.mkdirSync(path.join(root, 'dir.md'));
    await assert.rejects(core.advance(path.join(root, 'dir.md')), reasonOf('unreadable', /not a file/));
    fs.writeFileSync(path.join(root, 'bin.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0, 1, 2, 3]));
    await assert.rejects(core.advance(path.join(root, 'bin.md')), reasonOf('unreadable', /binary/));
    const big = path.join(root, 'big.md');
    const fd = fs.openSync(big, 'w');
    fs.writeSync(fd, WF);
    fs.ftruncateSync(fd, 50 * 1024 * 1024);
    fs.closeSync(fd);
    await assert.rejects(core.advance(big), reasonOf('unreadable', /over the \d+-byte limit/));
    fs.writeFileSync(path.join(root, 'empty.md'), '');
    await assert.rejects(core.advance(path.join(root, 'empty.md')), reasonOf('usage', /is not a workflow file.*Point at a workflow file/));
    await assert.rejects(core.advance(path.join(root, 'missing.md')), reasonOf('unreadable', /does not exist/));
  });

  test('broken frontmatter is never rewritten: malformed YAML, unclosed fence, alias bomb', async () => {
    const root = ws();
    const core = createStateCore({ roots: [root] });
    const bomb = ['---', 'workflow: demo', 'a: &a ["x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]', 'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]', 'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]', 'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]', 'status: in_progress', 'steps: [one]', '---', ''].join('\n');
    const cases: Record<string, string> = {
      'malformed.md': '---\nworkflow: demo\nstatus: [in_progress\nsteps: [one]\n---\n',
      'unclosed.md': '---\nworkflow: demo\nstatus: in_progress\nsteps: [one]\n',
      'bomb.md': bomb,
    };
    for (const [name, text] of Object.entries(cases)) {
      const file = path.join(root, name);
      fs.writeFileSync(file, text);
      const t0 = Date.now();
      await assert.rejects(core.setScope(file, 'small'), reasonOf('invalid'), name);
      assert.ok(Date.now() - t0 < 5000, `${name} did not hang`);
      assert.equal(fs.readFileSync(file, 'utf8'), text, `${name} untouched`);
    }
  });

  test('---js frontmatter is never evaluated, and never edited', async () => {
    const root = ws();
    const marker = path.join(root, 'PWNED');
    const file = path.join(root, 'evil.md');
    const text = `---js\n{ workflow: (require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'), 'demo'), steps: ['one'] }\n---\nbody\n`;
    fs.writeFileSync(file, text);
    const core = createStateCore({ roots: [root] });
    await core.scan();
    await assert.rejects(core.start(file), reasonOf('invalid'));
    await assert.rejects(core.parseText(file, text).then((r) => core.start(file, { text })), reasonOf('invalid'));
    assert.equal(fs.existsSync(marker), false, 'the block was not run');
    assert.equal(fs.readFileSync(file, 'utf8'), text);
  });

  test('__proto__ and constructor keys: no prototype pollution, state edits still exact', async () => {
    const root = ws();
    const file = path.join(root, 'proto.md');
    const text = '---\nworkflow: demo\n__proto__: { polluted: true }\nconstructor: { prototype: { polluted: true } }\nstatus: in_progress\nsteps: [one, two]\nstepsCompleted: []\n---\n';
    fs.writeFileSync(file, text);
    const core = createStateCore({ roots: [root] });
    const r = await core.advance(file);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(r.after.stepsCompleted, ['one']);
    assert.equal(fs.readFileSync(file, 'utf8'), text.replace('stepsCompleted: []\n', 'stepsCompleted: [one]\ncurrentStep: two\n'));
  });

  test('CLI: usage errors exit 2 with a hint; refusals exit 4; conflicts exit 3', () => {
    const cli = path.resolve('dist/cli.js');
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run node esbuild.mjs first (npm test does)');
    const root = ws();
    const file = path.join(root, 'a.md');
    fs.writeFileSync(file, WF.replace('in_progress', 'completed'));
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root });
    let r = run('advance');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /Missing FILE/);
    assert.match(r.stderr, /Run waymark advance --help/);
    r = run('set-status', 'a.md', 'paused');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /Unknown status paused; use one of created, in_progress/);
    r = run('set-status', 'a.md', 'in_progress', '--json');
    assert.equal(r.status, 4);
    assert.match(r.stderr, /cannot be reopened/);
    assert.equal(JSON.parse(r.stdout).error.reason, 'transition');
    r = run('scope', 'a.md', 'large', '--expect-hash', 'nothex');
    assert.equal(r.status, 2);
    r = run('scope', 'a.md', 'large', '--expect-hash', 'a'.repeat(64));
    assert.equal(r.status, 3);
    assert.ok(r.stderr.trim().split('\n').length <= 2, r.stderr);
    r = run('gate', 'show', 'a.md', 'two', '--json');
    assert.equal(r.status, 1, r.stderr); // no verdict yet: the gate is closed
    assert.equal(JSON.parse(r.stdout).gate.exists, false);
    r = run('fix', 'a.md', 'no-such-code');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no-such-code is not a problem code/);
    // A lease held by another agent refuses CLI writes (exit 3) until it is released.
    fs.writeFileSync(path.join(root, 'b.md'), WF);
    r = run('lease', 'acquire', 'b.md', '--actor', 'agent-a', '--session', 'sa');
    assert.equal(r.status, 0, r.stderr);
    const before = fs.readFileSync(path.join(root, 'b.md'), 'utf8');
    r = run('advance', 'b.md', '--actor', 'agent-b', '--session', 'sb');
    assert.equal(r.status, 3, r.stderr);
    assert.equal(fs.readFileSync(path.join(root, 'b.md'), 'utf8'), before);
    r = run('advance', 'b.md', '--actor', 'agent-a', '--session', 'sa');
    assert.equal(r.status, 0, r.stderr);
  });
});

describe('hostile special files never hang a read or a write', { timeout: 60_000 }, () => {
  const mkfifo = (p: string) => spawnSync('mkfifo', [p]).status === 0;

  test('a workflow file that is a FIFO: refused at once (never opened), CLI exit 2 with one line', async (t) => {
    const root = ws();
    const fifo = path.join(root, 'pipe.md');
    if (!mkfifo(fifo)) return t.skip('mkfifo not available');
    const core = createStateCore({ roots: [root] });
    const t0 = Date.now();
    await assert.rejects(core.advance(fifo), reasonOf('unreadable', /not a file/));
    await assert.rejects(core.gateShow(fifo, 'one'), reasonOf('unreadable'));
    assert.equal(await core.reload(fifo), undefined);
    const scan = await core.scan();
    assert.equal(scan.workflows.length, 0);
    assert.ok(Date.now() - t0 < 5000);
    const cli = path.resolve('dist/cli.js');
    if (!fs.existsSync(cli)) return;
    for (const args of [['validate', fifo], ['status', fifo], ['advance', fifo], ['chain', fifo], ['scope', fifo, 'large'], ['gate', 'show', fifo, 'one']]) {
      const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 10_000 });
      assert.equal(r.signal, null, `${args[0]} hung on a FIFO`);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /pipe\.md/);
    }
  });

  test('a config, definition, manifest or history that is a FIFO or a folder: reported, never waited on', async (t) => {
    const root = ws();
    fs.writeFileSync(path.join(root, 'a.md'), WF);
    const cfg = path.join(root, '.waymark', 'config.yaml');
    if (!mkfifo(cfg)) return t.skip('mkfifo not available');
    fs.mkdirSync(path.join(root, '.waymark', 'workflows'));
    mkfifo(path.join(root, '.waymark', 'workflows', 'demo.yaml'));
    mkfifo(path.join(root, '.waymark', 'files-manifest.csv'));
    fs.mkdirSync(path.join(root, '.waymark', 'history'));
    mkfifo(path.join(root, '.waymark', 'history', 'a.md.jsonl'));
    const core = createStateCore({ roots: [root] });
    const t0 = Date.now();
    const res = await core.scan();
    assert.equal(res.workflows.length, 1);
    const codes = res.problems.map((p) => p.code);
    assert.ok(codes.includes('config-unreadable'), codes.join());
    assert.ok(codes.includes('definition-invalid'), codes.join());
    assert.match(res.problems.find((p) => p.code === 'config-unreadable')!.message, /not a regular file/);
    const changed = await core.changed(root);
    assert.deepEqual(changed.added.length, 1);
    // History is a FIFO: the mutation is refused before the workflow file is touched.
    await assert.rejects(core.setScope(path.join(root, 'a.md'), 'large'), reasonOf('io', /not a regular file.*Nothing was changed/));
    assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), WF);
    await assert.rejects(core.history(path.join(root, 'a.md')), reasonOf('unreadable'));
    assert.ok(Date.now() - t0 < 5000, 'nothing waited on a pipe');
    // A config that is a folder.
    fs.rmSync(cfg);
    fs.mkdirSync(cfg);
    const again = await createStateCore({ roots: [root] }).scan();
    assert.match(again.problems.find((p) => p.code === 'config-unreadable')?.message ?? '', /not a regular file/);
  });
});

describe('odd encodings and line endings are refused with what to do, never rewritten', () => {
  test('UTF-16 with BOM, NUL bytes, CR-only line endings', async () => {
    const root = ws();
    const core = createStateCore({ roots: [root] });
    const u16 = path.join(root, 'u16.md');
    fs.writeFileSync(u16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(WF, 'utf16le')]));
    await assert.rejects(core.advance(u16), reasonOf('unreadable', /UTF-16.*Save it as UTF-8/));
    const nul = path.join(root, 'nul.md');
    fs.writeFileSync(nul, WF.replace('demo', 'de\u0000mo'));
    await assert.rejects(core.setScope(nul, 'large'), reasonOf('unreadable', /binary/));
    const cr = path.join(root, 'cr.md');
    const crText = WF.replace(/\n/g, '\r');
    fs.writeFileSync(cr, crText);
    await assert.rejects(core.setScope(cr, 'large'), reasonOf('invalid', /CR-only.*Convert it to LF or CRLF/));
    assert.equal(fs.readFileSync(cr, 'utf8'), crText);
    assert.deepEqual(await core.history(cr), []);
  });
});

describe('hostile frontmatter values: every mutation refuses cleanly or does the right thing, nothing half-written', { timeout: 120_000 }, () => {
  const body = (extra: string) => `---\nworkflow: w\nsteps: [a, b]\n${extra}---\nbody\n`;

  test('unknown status values are never overwritten by a status change', async () => {
    const root = ws();
    const core = createStateCore({ roots: [root] });
    for (const st of ['COMPLETE', 'Done', '5', 'true', '"~"', '[a]', '{x: 1}']) {
      const file = path.join(root, `s${Buffer.from(st).toString('hex')}.md`);
      const text = body(`status: ${st}\n`);
      fs.writeFileSync(file, text);
      for (const op of [() => core.start(file), () => core.advance(file), () => core.completeStep(file, 'b'), () => core.setStatus(file, 'completed'), () => core.block(file, 'x')]) {
        await assert.rejects(op(), (e: unknown) => WaymarkError.is(e) && /not a status Waymark knows|is not blocked|mapping|list/.test((e as Error).message), st);
      }
      assert.equal(fs.readFileSync(file, 'utf8'), text, `${st}: untouched`);
      assert.deepEqual(await core.history(file), [], `${st}: no history`);
    }
    // null, ~ and an absent status are a fresh start.
    for (const st of ['null', '~', '""']) {
      const file = path.join(root, `n${Buffer.from(st).toString('hex')}.md`);
      fs.writeFileSync(file, body(`status: ${st}\n`));
      const r = await core.start(file);
      assert.equal(r.after.status, 'in_progress', st);
    }
  });

  test('stepsCompleted that is not a list of ids (string, map, nested lists) is never rewritten', async () => {
    const root = ws();
    const core = createStateCore({ roots: [root] });
    for (const sc of ['a', '{a: 1}', '[[a], [b, [c]]]', '[a, {x: 1}]']) {
      const file = path.join(root, `c${Buffer.from(sc).toString('hex')}.md`);
      const text = body(`status: in_progress\nstepsCompleted: ${sc}\n`);
      fs.writeFileSync(file, text);
      await assert.rejects(core.completeStep(file, 'b'), (e: unknown) => WaymarkError.is(e) && /(not a list of step ids|will not overwrite)/.test((e as Error).message), sc);
      await assert.rejects(core.advance(file), (e: unknown) => WaymarkError.is(e), sc);
      assert.equal(fs.readFileSync(file, 'utf8'), text, `${sc}: untouched`);
    }
    // null is an empty list.
    const file = path.join(root, 'null.md');
    fs.writeFileSync(file, body('status: in_progress\nstepsCompleted: null\n'));
    assert.deepEqual((await core.advance(file)).after.stepsCompleted, ['a']);
  });

  test('CLI: one or two lines, exit code by kind, never a stack trace', (t) => {
    const cli = path.resolve('dist/cli.js');
    if (!fs.existsSync(cli)) return t.skip('dist/cli.js not built');
    const root = ws();
    const cases: [string, string, string[], number][] = [
      ['done.md', body('status: Done\n'), ['start'], 4],
      ['nested.md', body('status: in_progress\nstepsCompleted: [[a]]\n'), ['advance'], 1],
      ['list.md', '---\n- a\n---\n', ['advance'], 2],
      ['scalar.md', '---\njust text\n---\n', ['scope', 'large'], 2],
      ['only.md', '---', ['start'], 2],
      ['dup.md', body('status: created\nstatus: completed\n'), ['start'], 1],
    ];
    for (const [name, text, verb, code] of cases) {
      const file = path.join(root, name);
      fs.writeFileSync(file, text);
      const r = spawnSync(process.execPath, [cli, verb[0], file, ...verb.slice(1)], { encoding: 'utf8', timeout: 15_000 });
      assert.equal(r.status, code, `${name}: ${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.ok(lines.length <= 2, r.stderr);
      assert.ok(!/\n\s+at |TypeError|undefined/.test(r.stderr), r.stderr);
      assert.ok(r.stderr.includes(name), `${name} named: ${r.stderr}`);
      assert.equal(fs.readFileSync(file, 'utf8'), text);
    }
  });
});

describe('an immutable workflow file (chattr +i: refused even for root)', () => {
  test('every mutation refuses with an io error naming the file; file and history untouched', async (t) => {
    const root = ws();
    const file = path.join(root, 'locked.md');
    fs.writeFileSync(file, WF.replace('stepsCompleted: []', 'stepsCompleted: []\ncurrentStep: one'));
    const text = fs.readFileSync(file, 'utf8');
    if (spawnSync('chattr', ['+i', file]).status !== 0) return t.skip('chattr +i not available here');
    immutable.push(file);
    const core = createStateCore({ roots: [root] });
    for (const op of [() => core.advance(file), () => core.setScope(file, 'large'), () => core.block(file, 'x')]) {
      await assert.rejects(op(), reasonOf('io', /locked\.md.*(may not be changed|not writable).*Nothing was changed/));
    }
    assert.equal(fs.readFileSync(file, 'utf8'), text);
    assert.deepEqual(readHistory(root, file), []);
    assert.deepEqual(fs.readdirSync(root).filter((n) => n.includes('.tmp') || n.includes('waymark-')), [], 'no temp file left');
  });
});

describe('odd step ids', () => {
  test('unicode, spaces, ../ and very long ids: work as ids, gate files stay inside .waymark, errors stay one short line', async () => {
    const root = ws();
    const long = 'x'.repeat(5000);
    const file = path.join(root, 'ids.md');
    fs.writeFileSync(file, `---\nworkflow: w\nstatus: in_progress\nsteps: ["ü-步骤", "with space", {id: "../../etc/passwd", gate: true}, "${long}"]\nstepsCompleted: []\ncurrentStep: "ü-步骤"\n---\n`);
    const core = createStateCore({ roots: [root] });
    assert.deepEqual((await core.advance(file)).after.stepsCompleted, ['ü-步骤']);
    assert.deepEqual((await core.completeStep(file, 'with space')).after.stepsCompleted, ['ü-步骤', 'with space']);
    const g = await core.gatePass(file, '../../etc/passwd', { by: 'ann' });
    assert.ok(g.file.startsWith(path.join(root, '.waymark', 'gates') + path.sep), g.file);
    await core.advance(file);
    await assert.rejects(core.completeStep(file, 'nope'), (e: unknown) => {
      assert.ok(WaymarkError.is(e, 'usage'));
      const m = (e as Error).message;
      assert.ok(m.length < 400, `message is ${m.length} chars`);
      assert.ok(!m.includes('\n'));
      return true;
    });
  });
});

describe('delegating from a broken chain', () => {
  test('a self-parent or a chain that does not end at the id: delegate refuses, no child file, parent untouched', async () => {
    const root = ws();
    const core = createStateCore({ roots: [root] });
    const cases: Record<string, string> = {
      'self.md': '---\nworkflow: w\nsteps: [a]\ndelegation: {id: S, parent_id: S, root_id: S, depth: 0, chain_path: [S]}\n---\n',
      'end.md': '---\nworkflow: w\nsteps: [a]\ndelegation: {id: A, parent_id: B, root_id: A, depth: 1, chain_path: [A, B]}\n---\n',
    };
    for (const [name, text] of Object.entries(cases)) {
      const file = path.join(root, name);
      fs.writeFileSync(file, text);
      await assert.rejects(core.delegate(file, { agent: 'z' }), reasonOf('invalid', /delegation block .* is broken.*fix it before delegating/));
      assert.equal(fs.readFileSync(file, 'utf8'), text);
    }
    assert.deepEqual(fs.readdirSync(root).filter((n) => n.endsWith('.md')).sort(), ['end.md', 'self.md']);
  });
});

describe('every refusal names the file', () => {
  test('tab indentation (the editor refuses), unknown step with odd ids', async () => {
    const root = ws();
    const core = createStateCore({ roots: [root] });
    const tabs = path.join(root, 'tabs.md');
    const text = '---\nworkflow: w\n\tsteps: [a, b]\nstatus: created\n---\n';
    fs.writeFileSync(tabs, text);
    await assert.rejects(core.start(tabs), (e: unknown) => WaymarkError.is(e, 'invalid') && (e as WaymarkError).file === tabs && (e as Error).message.includes('tabs.md'));
    assert.equal(fs.readFileSync(tabs, 'utf8'), text);
    const ids = path.join(root, 'ids.md');
    fs.writeFileSync(ids, '---\nworkflow: w\nstatus: in_progress\nsteps: ["ü-步骤", "with space", "../x"]\n---\n');
    await assert.rejects(core.completeStep(ids, 'nope'), (e: unknown) => {
      assert.match((e as Error).message, /steps are: ü-步骤, with space, \.\.\/x\./);
      return true;
    });
  });
});

describe('delegate is all or nothing', () => {
  test('when the parent cannot be written (immutable), no child file is left behind', async (t) => {
    const root = ws();
    const parent = path.join(root, 'parent.md');
    fs.writeFileSync(parent, WF);
    if (spawnSync('chattr', ['+i', parent]).status !== 0) return t.skip('chattr +i not available here');
    immutable.push(parent);
    const core = createStateCore({ roots: [root] });
    await assert.rejects(core.delegate(parent, { agent: 'helper' }), reasonOf('io', /parent\.md/));
    assert.deepEqual(fs.readdirSync(root).filter((n) => n.endsWith('.md')), ['parent.md']);
    assert.equal(fs.readFileSync(parent, 'utf8'), WF);
    assert.deepEqual(readHistory(root, parent), []);
  });
});

describe('symlinks and the workspace boundary', () => {
  test('a link to a file outside the workspace is read but never written through; a link inside is fine', async () => {
    const root = ws();
    const outside = ws();
    const target = path.join(outside, 'plan.md');
    fs.writeFileSync(target, WF);
    const link = path.join(root, 'notes.md');
    fs.symlinkSync(target, link);
    const core = createStateCore({ roots: [root] });
    assert.ok((await core.parseText(link, fs.readFileSync(link, 'utf8'))).state);
    for (const op of [() => core.setScope(link, 'large'), () => core.advance(link), () => core.gatePass(link, 'one', {}), () => core.delegate(link, { agent: 'x' })]) {
      await assert.rejects(op(), reasonOf('usage', /outside the workspace/));
    }
    assert.equal(fs.readFileSync(target, 'utf8'), WF);
    assert.deepEqual(fs.readdirSync(outside).sort(), ['.waymark', 'plan.md']);
    assert.deepEqual(fs.readdirSync(root).filter((n) => n.endsWith('.md')), ['notes.md']);
    // Inside the workspace a link is followed as before.
    const real = path.join(root, 'real.md');
    fs.writeFileSync(real, WF);
    const inner = path.join(root, 'inner.md');
    fs.symlinkSync(real, inner);
    await core.setScope(inner, 'large');
    assert.match(fs.readFileSync(real, 'utf8'), /scope: large/);
    assert.ok(fs.lstatSync(inner).isSymbolicLink());
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { splitFrontmatter, parseFrontmatter } from '../../src/core/model/frontmatter';
import { parseWorkflowText } from '../../src/core/model/workflow';
import { defaultWorkspaceContext, loadWorkspaceContext, globToRegExp } from '../../src/core/store/workspaceContext';
import { configSchemaForTests, defaultConfig, parseConfigText } from '../../src/core/model/config';
import { computeStateHash, sha256 } from '../../src/core/model/hash';
import { sha256Js } from '../../src/core/model/sha256';
import { sha1Js } from '../../src/core/model/sha1';
import { createHash, randomBytes } from 'node:crypto';
import { gateFilePath, readGate, parseGateText } from '../../src/core/model/gates';
import { loadDefinitions } from '../../src/core/model/definitions';

describe('splitFrontmatter', () => {
  test('LF file: offsets, fences, body', () => {
    const text = '---\na: 1\n---\nbody\n';
    const s = splitFrontmatter(text);
    assert.equal(s.hasFrontmatter, true);
    assert.equal(s.closed, true);
    assert.equal(s.eol, '\n');
    assert.equal(s.yamlText, 'a: 1\n');
    assert.equal(text.slice(s.yamlStart, s.yamlEnd), s.yamlText);
    assert.equal(s.yamlStartLine, 1);
    assert.equal(s.body, 'body\n');
    assert.equal(text.slice(s.bodyStart), s.body);
  });

  test('CRLF with BOM and language tag', () => {
    const text = '\uFEFF---yaml\r\na: 1\r\nb: 2\r\n---\r\nbody\r\n';
    const s = splitFrontmatter(text);
    assert.equal(s.bom, '\uFEFF');
    assert.equal(s.eol, '\r\n');
    assert.equal(s.language, 'yaml');
    assert.equal(s.openFence, '---yaml');
    assert.equal(s.yamlText, 'a: 1\r\nb: 2\r\n');
    assert.equal(text.slice(s.yamlStart, s.yamlEnd), s.yamlText);
    assert.equal(s.body, 'body\r\n');
  });

  test('empty frontmatter, no frontmatter, unclosed, closing fence at EOF', () => {
    assert.equal(splitFrontmatter('---\n---\n').yamlText, '');
    assert.equal(splitFrontmatter('# title\n').hasFrontmatter, false);
    assert.equal(splitFrontmatter('----\na: 1\n----\n').hasFrontmatter, false);
    const u = splitFrontmatter('---\na: 1\n');
    assert.equal(u.closed, false);
    const e = splitFrontmatter('---\na: 1\n---');
    assert.equal(e.closed, true);
    assert.equal(e.body, '');
  });

  test('parseFrontmatter gives null-prototype data and dates as strings', () => {
    const p = parseFrontmatter('---\na: {b: 1}\nd: 2026-01-02\nt: 2026-01-02T03:04:05Z\n---\n');
    assert.equal(Object.getPrototypeOf(p.data), null);
    assert.equal(Object.getPrototypeOf(p.data.a), null);
    assert.equal(p.data.d, '2026-01-02');
    assert.equal(p.data.t, '2026-01-02T03:04:05.000Z');
  });
});

describe('dialects normalize into one model', () => {
  const ctx = defaultWorkspaceContext(os.tmpdir());
  test('waymark native with all fields', () => {
    const text = [
      '---', 'workflow: feature', 'status: blocked', 'blockedReason: waiting for API keys', 'steps: [design, {id: build, gate: true}, ship]',
      'current_step: build', 'stepsCompleted: [design]', 'scope: large', 'session: s-1', `updatedAt: '${new Date(Date.now() - 3_600_000).toISOString()}'`, 'ttl: 7d',
      'delegation: {id: a, parent_id: null, root_id: a, depth: 0, chain_path: [a], agent: lead}', '---', 'body',
    ].join('\n');
    const p = parseWorkflowText(path.join(os.tmpdir(), 'f.md'), text, ctx);
    const s = p.state!;
    assert.equal(s.dialect, 'waymark');
    assert.equal(s.status, 'blocked');
    assert.equal(s.currentStep, 'build');
    assert.deepEqual(s.steps.map((x) => [x.id, x.index, x.gate]), [['design', 1, undefined], ['build', 2, 'build'], ['ship', 3, undefined]]);
    assert.equal(s.stepsSource, 'frontmatter');
    assert.equal(s.scope, 'large');
    assert.equal(s.blockedReason, 'waiting for API keys');
    assert.equal(s.delegation?.agent, 'lead');
    assert.equal(s.ttl, '7d');
    assert.equal(s.nextStep, 'build');
    assert.equal(s.gates.build.exists, false);
    assert.match(s.stateHash, /^[0-9a-f]{64}$/);
    assert.deepEqual(p.problems.map((x) => x.code), []);
  });

  test('BMAD without an install still reads', () => {
    const p = parseWorkflowText(path.join(os.tmpdir(), 'prd.md'), '---\nstepsCompleted: [1, 2]\nlastStep: 2\nstatus: review\n---\n', ctx);
    assert.equal(p.state?.dialect, 'bmad');
    assert.equal(p.state?.workflow, 'prd');
    assert.equal(p.state?.status, 'in_progress');
    assert.deepEqual(p.state?.stepsCompleted, ['step-01', 'step-02']);
  });

  test('ranges are the same for CRLF + BOM files', () => {
    const lf = '---\nworkflow: w\nsteps: [a]\nstatus: in_progres\nstepsCompleted:\n  - a\n  - b\n---\nbody\n';
    const crlf = '\uFEFF' + lf.replace(/\n/g, '\r\n');
    const a = parseWorkflowText('/x/a.md', lf, ctx).problems.map((p) => [p.code, p.range]);
    const b = parseWorkflowText('/x/a.md', crlf, ctx).problems.map((p) => [p.code, p.range]);
    assert.ok(a.length >= 2);
    assert.deepEqual(b, a);
  });

  test('plain Markdown frontmatter is not a workflow', () => {
    const p = parseWorkflowText('/x/a.md', '---\ntitle: Hello\nstatus: draft\n---\n', ctx);
    assert.equal(p.isWorkflow, false);
    assert.deepEqual(p.problems, []);
    assert.equal(parseWorkflowText('/x/b.md', '---\ntitle: Post\nworkflows: [ci, release]\nstep: 3\n---\n', ctx).isWorkflow, false);
  });
});

describe('state hash', () => {
  test('the JavaScript SHA-1 gives node:crypto\'s answer at every length around its block and padding edges, and on random bytes', () => {
    const native = (b: Uint8Array) => createHash('sha1').update(b).digest('hex');
    assert.equal(sha1Js(new Uint8Array(0)), 'da39a3ee5e6b4b0d3255bfef95601890afd80709');
    for (let n = 0; n <= 300; n++) {
      const b = randomBytes(n);
      assert.equal(sha1Js(b), native(b), `${n} bytes`);
    }
    for (const n of [1000, 4095, 4096, 4097, 70_000]) {
      const b = randomBytes(n);
      assert.equal(sha1Js(b), native(b), `${n} bytes`);
    }
  });
  test('the JavaScript SHA-256 gives node:crypto\'s answer at every length around its block and padding edges, and on random bytes', () => {
    const native = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    assert.equal(sha256Js(new Uint8Array(0)), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    for (let n = 0; n <= 300; n++) {
      const b = randomBytes(n);
      assert.equal(sha256Js(b), native(b), `${n} bytes`);
    }
    for (const n of [1000, 4095, 4096, 4097, 70_000]) {
      const b = randomBytes(n);
      assert.equal(sha256Js(b), native(b), `${n} bytes`);
    }
  });

  test('sha256 answers the same before and after it starts hashing natively (strings as UTF-8, bytes as given)', () => {
    const inputs: (string | Uint8Array)[] = ['', 'a', 'é – ✓ 😀', 'x'.repeat(3000), randomBytes(500), 'y'.repeat(5000), randomBytes(9000), 'after the budget', randomBytes(10)];
    for (const x of inputs) assert.equal(sha256(x), createHash('sha256').update(x).digest('hex'));
  });

  const ctx = defaultWorkspaceContext(os.tmpdir());
  const h = (t: string) => parseWorkflowText('/x/a.md', t, ctx).state!.stateHash;
  test('ignores updatedAt, session, comments, key order, quoting and body', () => {
    const a = h("---\nworkflow: w\nstatus: created\nupdatedAt: '2026-01-01'\nsession: a\n---\nbody");
    const b = h("---\n# note\nstatus: \"created\"\nsession: b\nworkflow: 'w'\nupdatedAt: '2026-02-02'\n---\nother body");
    assert.equal(a, b);
    assert.notEqual(a, h('---\nworkflow: w\nstatus: in_progress\n---\n'));
    assert.notEqual(h('---\nworkflow: w\nstepsCompleted: [a]\n---\n'), h('---\nworkflow: w\nstepsCompleted: [a, b]\n---\n'));
  });
  test('is deterministic over delegation key order', () => {
    assert.equal(computeStateHash({ delegation: { a: 1, b: 2 } }), computeStateHash({ delegation: { b: 2, a: 1 } }));
  });
});

describe('config', () => {
  test('the written-out defaults are what the schema makes of no settings (so no zod runs without a config file)', () => {
    assert.deepStrictEqual(defaultConfig(), configSchemaForTests().parse({}));
    assert.deepStrictEqual(parseConfigText('/r/.waymark/config.yaml', undefined).config, configSchemaForTests().parse({}));
    assert.deepStrictEqual(parseConfigText('/r/.waymark/config.yaml', '# nothing set yet\n').config, configSchemaForTests().parse({}));
    const a = defaultConfig();
    a.include.push('x/**');
    assert.ok(!defaultConfig().include.includes('x/**'), 'each call gives a fresh object');
  });

  test('defaults', () => {
    const { config, problems } = parseConfigText('/r/.waymark/config.yaml', undefined);
    assert.deepEqual(problems, []);
    assert.ok(config.include.includes('**/*.md'));
    assert.equal(config.gates.path, '.waymark/gates/{path}/{gate}.gate');
    assert.equal(config.gates.trust, 'recorded');
    assert.equal(config.manifest.path, '.waymark/files-manifest.csv');
    assert.equal(parseConfigText('/r/c.yaml', 'gates:\n  trust: file\n').config.gates.trust, 'file');
    const bad = parseConfigText('/r/c.yaml', 'gates:\n  trust: anyone\n');
    assert.equal(bad.config.gates.trust, 'recorded', 'a bad value falls back to the strict default');
    assert.deepEqual(bad.problems.map((p) => p.code), ['config-invalid']);
  });
  test('unknown keys are warned with position and kept; bad values reported and defaulted', () => {
    const text = 'include: ["docs/**/*.md"]\nincldue: x\nlimits:\n  maxFileBytes: -5\n  maxFileByte: 9\ncustom: {keep: me}\n';
    const { config, problems } = parseConfigText('/r/c.yaml', text);
    const unknown = problems.filter((p) => p.code === 'config-unknown-key');
    assert.equal(unknown.length, 3);
    assert.deepEqual(unknown[0].range, { start: { line: 1, character: 0 }, end: { line: 1, character: 7 } });
    assert.deepEqual(unknown[0].data, { fix: 'renameKey', from: 'incldue', to: 'include' });
    const bad = problems.find((p) => p.code === 'config-invalid')!;
    assert.deepEqual(bad.range.start, { line: 3, character: 2 });
    assert.equal(config.limits.maxFileBytes, 2 * 1024 * 1024);
    assert.deepEqual(config.include, ['docs/**/*.md']);
    assert.deepEqual((config as Record<string, unknown>).custom, { keep: 'me' });
    assert.equal((config.limits as Record<string, unknown>).maxFileByte, 9);
  });
  test('broken YAML gives config-yaml-syntax with a line, defaults used', () => {
    const { config, problems } = parseConfigText('/r/c.yaml', 'include: [a\nlimits: {\n');
    assert.equal(problems[0].code, 'config-yaml-syntax');
    assert.ok(config.include.includes('**/*.md'));
  });
  test('overrides merge over the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-cfg-'));
    try {
      fs.mkdirSync(path.join(dir, '.waymark'));
      fs.writeFileSync(path.join(dir, '.waymark/config.yaml'), 'limits:\n  maxFileBytes: 1000\n');
      const { context } = await loadWorkspaceContext(dir, { limits: { maxAliasCount: 5 } });
      assert.equal(context.config.limits.maxFileBytes, 1000);
      assert.equal(context.limits.maxAliasCount, 5);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  test('globs', () => {
    assert.ok(globToRegExp('**/*.md').test('a.md'));
    assert.ok(globToRegExp('**/*.md').test('x/y/a.md'));
    assert.ok(!globToRegExp('**/*.md').test('x/a.mdx'));
    assert.ok(globToRegExp('_bmad-output/**').test('_bmad-output/a/b.md'));
    assert.ok(globToRegExp('docs/*.{md,markdown}').test('docs/a.markdown'));
    assert.ok(!globToRegExp('docs/*.md').test('docs/x/a.md'));
  });
});

describe('gates (read side)', () => {
  test('path template, empty = PASS, missing = closed, verdicts, history', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-gate-'));
    try {
      const ctx = defaultWorkspaceContext(dir);
      // Per workflow FILE by default, keyed by its path: two files never share a gate, whatever their names.
      const p = gateFilePath(ctx, { workflow: 'feat/../x', file: path.join(dir, 'a.md') }, 'review');
      assert.equal(p, path.join(dir, '.waymark/gates/a/review.gate'));
      assert.equal(gateFilePath(ctx, { workflow: 'feat/../x', file: path.join(dir, 'sub', 'b.md') }, 'review'), path.join(dir, '.waymark/gates/sub/b/review.gate'));
      assert.equal(gateFilePath(ctx, { workflow: 'w', file: path.join(dir, '..hidden.md') }, '../up'), path.join(dir, '.waymark/gates/_hidden/__up.gate'));
      assert.equal(gateFilePath(ctx, { workflow: 'w', file: path.join(dir, '.x', '..y', 'c.tar.md') }, 'g'), path.join(dir, '.waymark/gates/_x/_y/c.tar/g.gate'));
      // {name} is the base name alone (shared by same-named files: opt-in); {file} means {path}.
      const byName = { ...ctx, config: { ...ctx.config, gates: { path: 'qa/{name}/{gate}.gate', trust: 'file' as const } } };
      assert.equal(gateFilePath(byName, { workflow: 'w', file: path.join(dir, 'sub', 'b.md') }, 'review'), path.join(dir, 'qa/b/review.gate'));
      const byFile = { ...ctx, config: { ...ctx.config, gates: { path: 'qa/{workflow}/{file}/{gate}.gate', trust: 'file' as const } } };
      assert.equal(gateFilePath(byFile, { workflow: 'w', file: path.join(dir, 'auth', 'plan.md') }, 'review'), path.join(dir, 'qa/w/auth/plan/review.gate'));
      assert.notEqual(gateFilePath(byFile, { workflow: 'w', file: path.join(dir, 'auth', 'plan.md') }, 'review'), gateFilePath(byFile, { workflow: 'w', file: path.join(dir, 'billing', 'plan.md') }, 'review'));
      // {workflow} stays available as an option.
      const byId = { ...ctx, config: { ...ctx.config, gates: { path: '.waymark/gates/{workflow}/{gate}.gate', trust: 'file' as const } } };
      assert.equal(gateFilePath(byId, { workflow: 'feat/../x', file: path.join(dir, 'a.md') }, 'review'), path.join(dir, '.waymark/gates/feat_.._x/review.gate'));
      assert.ok(p.startsWith(dir));
      const missing = readGate(p, 'review');
      assert.equal(missing.exists, false);
      assert.equal(missing.open, false);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, '');
      assert.equal(readGate(p, 'review').verdict, 'PASS');
      assert.equal(readGate(p, 'review').open, true);
      const g = parseGateText('gate: concerns\nreviewer: bo\nhistory:\n  - {gate: FAIL, reviewer: bo}\n  - {gate: CONCERNS}\n', p, 'review');
      assert.equal(g.verdict, 'CONCERNS');
      assert.equal(g.open, true);
      assert.equal(g.history.length, 2);
      assert.equal(parseGateText('gate: FAIL\n', p, 'review').open, false);
      assert.equal(parseGateText('gate: WAIVED\n', p, 'review').open, false);
      assert.ok(parseGateText('gate: [\n', p, 'review').error);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('anchor/alias path (the `yaml` library) reads like the fast path', () => {
  test('CRLF frontmatter with & or * keeps no stray \\r on any value', () => {
    const cases = [
      '---\r\na: &x 1\r\nscope: large\r\n---\r\n',
      '---\r\na: &x 1\r\nscope: large\r\n---',
      '---\r\na: 1 # a &comment and *star\r\nscope: large\r\n---\r\nbody\r\n',
      '---\r\nlist:\r\n  - &a x\r\n  - *a\r\nscope: large\r\n---\r\n',
      '---\r\n<<: {a: 1}\r\nscope: large\r\n---\r\n',
      '\uFEFF---\r\nnote: |\r\n  two &x\r\n  lines\r\nscope: large\r\n---\r\n',
    ];
    for (const text of cases) {
      const lf = parseFrontmatter(text.replace(/\r\n/g, '\n'));
      const crlf = parseFrontmatter(text);
      assert.equal(crlf.error, undefined, text);
      assert.equal(crlf.data.scope, 'large', JSON.stringify(text));
      assert.deepEqual(crlf.data, lf.data, JSON.stringify(text));
      assert.ok(!JSON.stringify(crlf.data).includes('\\r'), JSON.stringify(crlf.data));
    }
  });

  test('an alias without its anchor is a YAML syntax error, not an alias bomb', () => {
    const fm = parseFrontmatter('---\nworkflow: w\nb: *nowhere\n---\n');
    assert.equal(fm.error?.kind, 'yaml-syntax');
    const p = parseWorkflowText('/tmp/x.md', '---\nworkflow: w\nb: *nowhere\n---\n', defaultWorkspaceContext('/tmp')).problems;
    assert.equal(p[0].code, 'yaml-syntax');
    assert.match(p[0].message, /nowhere/);
  });

  test('ambiguous anchors/aliases print no warnings on stderr (a CLI must stay quiet)', async () => {
    const warnings: string[] = [];
    const onWarn = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarn);
    parseFrontmatter('---\nworkflow: w\na: &x: 1\nb: *x:\n---\n');
    parseFrontmatter('---\nworkflow: w\na: &y 1\nb: [*y: 2]\n---\n');
    parseGateText('gate: PASS\nnote: &z: 1\n', 'g.gate', 'g');
    const defs = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-warn-'));
    try {
      fs.writeFileSync(path.join(defs, 'w.yaml'), 'steps: [a]\nx: &q: 1\n');
      await loadDefinitions(defs);
    } finally {
      fs.rmSync(defs, { recursive: true, force: true });
    }
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarn);
    assert.deepEqual(warnings, []);
  });
});

describe('odd encodings say what to do', () => {
  const ctx = () => defaultWorkspaceContext('/tmp');
  test('CR-only line endings (classic Mac): an error that says to convert, not a silent non-workflow', () => {
    const p = parseWorkflowText('/tmp/cr.md', '---\rworkflow: w\rsteps: [a, b]\rstatus: created\r---\rbody\r', ctx());
    assert.equal(p.isWorkflow, true);
    assert.equal(p.state, undefined);
    assert.equal(p.problems[0].code, 'frontmatter-line-endings');
    assert.match(p.problems[0].message, /CR-only.*LF or CRLF/);
    // Plain Markdown with CR-only endings stays not-a-workflow.
    assert.equal(parseWorkflowText('/tmp/cr.md', '---\rtitle: x\r---\rbody\r', ctx()).isWorkflow, false);
    // A file with only --- or --- then EOF is not a workflow and never throws.
    for (const t of ['---', '---\n', '---\r\n', '---\r', '\uFEFF---']) assert.equal(parseWorkflowText('/tmp/f.md', t, ctx()).isWorkflow, false, JSON.stringify(t));
  });
});

describe('read and write agree on what is broken', () => {
  test('tab indentation: js-yaml would read it, the editor refuses it, so read reports yaml-syntax', () => {
    const p = parseWorkflowText('/tmp/t.md', '---\nworkflow: w\n\tsteps: [a, b]\nstatus: created\n---\n', defaultWorkspaceContext('/tmp'));
    const e = p.problems.find((x) => x.code === 'yaml-syntax');
    assert.ok(e, JSON.stringify(p.problems));
    assert.equal(e!.range.start.line, 2);
    assert.match(e!.message, /tabs/i);
    // A tab inside a block scalar is content, not indentation: no problem.
    const ok = parseWorkflowText('/tmp/t.md', '---\nworkflow: w\nsteps: [a]\nnote: |\n  \tcode\n---\n', defaultWorkspaceContext('/tmp'));
    assert.deepEqual(ok.problems.filter((x) => x.severity === 'error'), []);
  });
});

describe('config paths Waymark writes to stay inside the workspace', () => {
  test('gates.path, history.dir, manifest.path with .. or absolute: config-invalid, default used', () => {
    const { config, problems } = parseConfigText('/w/.waymark/config.yaml', "gates:\n  path: '../../outside/{gate}.gate'\nhistory:\n  dir: /tmp/h\nmanifest:\n  path: 'a/../../m.csv'\n");
    assert.equal(config.gates.path, '.waymark/gates/{path}/{gate}.gate');
    assert.equal(config.history.dir, '.waymark/history');
    assert.equal(config.manifest.path, '.waymark/files-manifest.csv');
    assert.deepEqual(problems.map((p) => p.code), ['config-invalid', 'config-invalid', 'config-invalid']);
    assert.match(problems[0].message, /inside the workspace/);
    assert.equal(parseConfigText('/w/c.yaml', "gates:\n  path: 'qa/{workflow}/{file}/{gate}.gate'\n").config.gates.path, 'qa/{workflow}/{file}/{gate}.gate');
  });
});

describe('syntax messages read as one clean line', () => {
  test('duplicate keys: names the line, no dangling colon', () => {
    const p = parseWorkflowText('/tmp/d.md', '---\nworkflow: w\nstatus: created\nstatus: completed\n---\n', defaultWorkspaceContext('/tmp'));
    assert.equal(p.problems[0].code, 'yaml-syntax');
    assert.equal(p.problems[0].range.start.line, 3);
    assert.doesNotMatch(p.problems[0].message, /:\./);
    assert.match(p.problems[0].message, /line 4/);
  });
});

test('a duplicate key with an empty value: the error position stays inside the file', () => {
  for (const eol of ['\n', '\r\n']) {
    const text = ['---', 'ttl: []', 'ttl: ', 'workflow: []', '---', ''].join(eol);
    const p = parseWorkflowText('/tmp/d.md', text, defaultWorkspaceContext('/tmp')).problems[0];
    assert.equal(p.code, 'yaml-syntax');
    const lines = text.split(/\r?\n/);
    assert.ok(p.range.start.character >= 0 && p.range.start.character <= lines[p.range.start.line].length, JSON.stringify(p.range));
    assert.ok(p.range.start.line >= 1 && p.range.start.line <= 3, JSON.stringify(p.range));
  }
});

test('config list settings may be written as one string; other wrong types fall back to defaults with a problem', () => {
  const one = parseConfigText('/w/c.yaml', "include: 'docs/**/*.md'\ndialects: bmad\n");
  assert.deepEqual(one.config.include, ['docs/**/*.md']);
  assert.deepEqual(one.config.dialects, ['bmad']);
  assert.deepEqual(one.problems, []);
  const bad = parseConfigText('/w/c.yaml', 'include: 5\nlimits: {maxFileBytes: "10"}\ndialects: [klingon]\n');
  assert.deepEqual(bad.config.include, ['**/*.md', '_bmad-output/**/*.md']);
  assert.equal(bad.config.limits.maxFileBytes, 2 * 1024 * 1024);
  assert.deepEqual(bad.config.dialects, ['waymark', 'bmad']);
  assert.ok(bad.problems.length >= 3 && bad.problems.every((p) => p.code === 'config-invalid'), JSON.stringify(bad.problems.map((p) => p.message)));
});

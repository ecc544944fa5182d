// Hostile inputs, seeded and grammar-aware, through the real faces: the built CLI (every verb of
// main.ts's table), the MCP server driven by the SDK's client over stdio, and the agent hooks on
// stdin. Each case asserts the product's promise for bad input: an exit code of the documented set,
// no stack trace, a message that names the file and what to do, nothing created or changed outside
// the workspace, the workspace's bytes unchanged when the answer is a refusal, and an end: a
// process still running after HANG_MS is killed and reported as a hang (no timing is asserted).
// WAYMARK_HOSTILE_SEED picks another sample of the grammar; WAYMARK_HOSTILE_CLI another build (A/B).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import { commands } from '../../src/cli/main';
import { startServer, cleanup as mcpCleanup } from './mcpHelpers';
import { tooDeepLine } from '../../src/core/model/yamlDepth';
import { rng } from './fileHelpers';

const SEED = Number(process.env.WAYMARK_HOSTILE_SEED ?? 39);
const CLI = path.resolve(process.env.WAYMARK_HOSTILE_CLI ?? 'dist/cli.js');
const HANG_MS = 60_000;
const SD = '_bmad-output/implementation-artifacts';
const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [one, {id: two, gate: true}, three]\nstepsCompleted: [one]\ncurrentStep: two\n---\n# A\n';
const STORY = '# Story 1.2: Login\n\nStatus: ready-for-dev\n\n## Tasks / Subtasks\n\n- [ ] Add form (AC: 1)\n- [ ] Call endpoint\n';
const LEDGER = `project: shop\nstory_location: ${SD}\n\ndevelopment_status:\n  epic-1: in-progress\n  1-1-sign-up: done\n  1-2-login: ready-for-dev\n`;
const A = 'workflows/a.md';
const LEDGER_FILE = `${SD}/sprint-status.yaml`;
const STORY_FILE = `${SD}/1-2-login.md`;

function sample<T>(rand: () => number, items: T[], n: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length) out.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]);
  return out;
}

const tops: string[] = [];
after(() => {
  for (const t of tops) fs.rmSync(t, { recursive: true, force: true });
  mcpCleanup();
});

interface Ws {
  top: string;
  root: string;
  out: string;
}
function put(root: string, rel: string, data: string | Buffer): void {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
}
/** A workspace (native workflow + BMAD v6 sprint) beside an `outside` folder no write may reach. */
function workspace(): Ws {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-hostile-')));
  tops.push(top);
  const root = path.join(top, 'ws');
  const out = path.join(top, 'outside');
  put(out, 'victim.md', WF);
  put(out, 'victim.yaml', LEDGER);
  put(root, '.waymark/config.yaml', 'include:\n  - "workflows/**/*.md"\n');
  put(root, A, WF);
  put(root, '_bmad/_config/manifest.yaml', 'installation:\n  version: 6.0.0\n');
  put(root, LEDGER_FILE, LEDGER);
  put(root, STORY_FILE, STORY);
  return { top, root, out };
}

/** Every file (and link) under `dir` with its bytes' digest; caches and locks are not state. */
function digest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    let es: fs.Dirent[];
    try {
      es = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of es) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      if (/^\.waymark\/(cache|locks?)(\/|$)/.test(rel)) continue;
      if (e.isSymbolicLink()) out[rel] = `link:${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) walk(p);
      else out[rel] = crypto.createHash('sha1').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  hung: boolean;
  stdout: string;
  stderr: string;
}
function run(cwd: string, args: string[], stdin?: string | Buffer): Promise<Run> {
  return new Promise((resolve) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WAYMARK_') && !k.startsWith('CLAUDE_')) env[k] = v;
    const p = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      p.kill('SIGKILL');
    }, HANG_MS);
    p.stdout!.on('data', (d) => (stdout += d));
    p.stderr!.on('data', (d) => (stderr += d));
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, hung, stdout, stderr });
    });
    if (stdin !== undefined) {
      p.stdin!.on('error', () => {});
      p.stdin!.end(stdin);
    }
  });
}

const STACK = /^\s+at .+(:\d+|\))$/m;

/** Runs one hostile case and returns what broke the promise (empty when it held). */
async function hostile(ws: Ws, args: string[], opts: { stdin?: string | Buffer; hook?: boolean } = {}): Promise<{ r: Run; broken: string[] }> {
  const before = digest(ws.root);
  const outBefore = digest(ws.out);
  const r = await run(ws.root, args, opts.stdin);
  const broken: string[] = [];
  if (r.hung) broken.push(`did not end within ${HANG_MS} ms (a hang)`);
  else if (![0, 1, 2, 3, 4].includes(r.code ?? -1)) broken.push(`exit ${r.code} (${r.signal}), not a documented code`);
  if (STACK.test(r.stderr) || STACK.test(r.stdout)) broken.push('a stack trace');
  if (/unexpected error|Maximum call stack|RangeError|TypeError|Cannot read properties/.test(r.stderr)) broken.push(`an internal error for an answer: ${r.stderr.trim().split('\n')[0]}`);
  const outAfter = digest(ws.out);
  const outChanged = Object.keys({ ...outBefore, ...outAfter }).filter((k) => outBefore[k] !== outAfter[k]);
  if (outChanged.length) broken.push(`changed outside the workspace: ${outChanged.join(', ')}`);
  // `..` names the folder above as the command's own workspace: its scan cache (`.waymark/cache/`, which
  // a read keeps in the workspace it reads) is the one thing it may make there.
  const named = args.includes('..');
  const cacheOnly = (f: string) => f === '.waymark' && fs.readdirSync(path.join(ws.top, f)).every((x) => x === 'cache');
  const strays = fs.readdirSync(ws.top).filter((f) => f !== 'ws' && f !== 'outside' && !(named && cacheOnly(f)));
  if (strays.length) broken.push(`created beside the workspace: ${strays.join(', ')}`);
  if (!opts.hook && (r.code ?? 0) >= 2) {
    const after = digest(ws.root);
    const changed = Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);
    if (changed.length) broken.push(`refused (exit ${r.code}) but changed ${changed.join(', ')}`);
    if (!r.stderr.trim()) broken.push(`exit ${r.code} with nothing on stderr`);
  }
  return { r, broken };
}

function report(label: string, args: string[], res: { r: Run; broken: string[] }): string | undefined {
  if (!res.broken.length) return undefined;
  return `${label}: waymark ${args.map((a) => (a.length > 60 ? `${a.slice(0, 20)}…(${a.length})` : a)).join(' ')} → ${res.broken.join('; ')} | ${res.r.stderr.trim().split('\n')[0]?.slice(0, 200)}`;
}

/** Runs `jobs` two at a time (the machine is shared); returns the failures. */
async function pool(jobs: (() => Promise<string | undefined>)[], width = 2): Promise<string[]> {
  const fails: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) {
      const f = await jobs[next++]();
      if (f) fails.push(f);
    }
  }));
  return fails;
}

// ---------------------------------------------------------------------------------------------
// The grammar of hostile file contents: each a file of the workspace and bytes for it.
const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefghi'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`)].join('\n');
const deepFlow = `x: ${'['.repeat(5000)}${']'.repeat(5000)}`;
const fm = (body: string) => `---\n${body}\n---\n# A\n`;
const MUTATIONS: Record<string, [string, string | Buffer][]> = {
  'workflow: NUL byte': [[A, Buffer.from('---\nworkflow: w\nstatus: in_progress\x00\nsteps: [one]\n---\n')]],
  'workflow: binary named .md': [[A, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255, 254])]],
  'workflow: BOM + CRLF': [[A, '\uFEFF---\r\nworkflow: w\r\nstatus: in_progress\r\nsteps: [one, {id: two, gate: true}]\r\nstepsCompleted: [one]\r\n---\r\n']],
  'workflow: non-UTF-8 bytes': [[A, Buffer.concat([Buffer.from('---\nworkflow: w\nstatus: in_progress\ntitle: '), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('\nsteps: [one, two]\n---\n')])]],
  'workflow: 2 MB line': [[A, fm(`workflow: w\nstatus: in_progress\ntitle: ${'y'.repeat(2_000_000)}\nsteps: [one, two]`)]],
  'workflow: 5000 levels of [': [[A, fm(`workflow: w\nstatus: in_progress\nsteps: [one, two]\n${deepFlow}`)]],
  'workflow: billion laughs': [[A, fm(`workflow: w\nstatus: in_progress\nsteps: [one, two]\n${bomb}`)]],
  'workflow: duplicate keys': [[A, fm('workflow: w\nstatus: in_progress\nstatus: completed\nsteps: [one, two]')]],
  'workflow: tabs': [[A, fm('workflow: w\n\tstatus: in_progress\nsteps:\n\t- one')]],
  'workflow: no closing fence': [[A, '---\nworkflow: w\nstatus: in_progress\nsteps: [one, two]\n']],
  'workflow: empty': [[A, '']],
  'workflow: wrong types': [[A, fm('workflow: [1,2]\nstatus: {a: 1}\nsteps: 7\nstepsCompleted: {x: 1}\ncurrentStep: [a]\n12: 13\ndelegation: [1]')]],
  'ledger: 0 bytes': [[LEDGER_FILE, '']],
  'ledger: a list': [[LEDGER_FILE, '- a\n- b\n']],
  'ledger: development_status a list': [[LEDGER_FILE, 'development_status:\n  - 1-2-login: done\n  - epic-1\n']],
  'ledger: numbers as keys': [[LEDGER_FILE, 'development_status:\n  1: done\n  2.5: backlog\n  true: x\n  1-2-login: [a]\n']],
  'ledger: billion laughs': [[LEDGER_FILE, `${bomb}\ndevelopment_status:\n  1-2-login: ready-for-dev\n`]],
  'ledger: 5000 levels of [': [[LEDGER_FILE, `development_status:\n  1-2-login: ready-for-dev\n${deepFlow}\n`]],
  'ledger: binary': [[LEDGER_FILE, Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0])]],
  'ledger: duplicate keys': [[LEDGER_FILE, 'development_status:\n  1-2-login: done\n  1-2-login: backlog\n']],
  'ledger: story_location outside': [[LEDGER_FILE, 'story_location: ../../../outside\ndevelopment_status:\n  1-2-login: ready-for-dev\n']],
  'ledger: story_location an object': [[LEDGER_FILE, 'story_location: {a: 1}\ndevelopment_status:\n  1-2-login: ready-for-dev\n']],
  'story: binary': [[STORY_FILE, Buffer.from([0, 1, 2, 3, 0xff])]],
  'story: empty': [[STORY_FILE, '']],
  'story: unclosed frontmatter': [[STORY_FILE, '---\nstatus: ready-for-dev\n# Story\n- [ ] x\n']],
  'config: absolute paths': [['.waymark/config.yaml', 'include: ["/etc/**/*.md"]\ngates:\n  path: /tmp/evilgates\nmemory:\n  dir: /tmp/evilmem\n  hotFile: ../../hot.md\n']],
  'config: ../ escapes': [['.waymark/config.yaml', 'gates:\n  path: ../../outside/g\nhistory:\n  dir: ../../outside/h\nmemory:\n  dir: ../outside/m\n']],
  'config: URLs': [['.waymark/config.yaml', 'gates:\n  path: https://evil.example/x\nmemory:\n  dir: "file:///tmp/x"\n']],
  'config: objects for strings': [['.waymark/config.yaml', 'include: {a: 1}\ngates: [1,2]\nmemory: "x"\nproject: 5\nbmad: {dir: {x: 1}}\n']],
  'config: billion laughs': [['.waymark/config.yaml', `${bomb}\n`]],
  'config: 5000 levels of [': [['.waymark/config.yaml', `${deepFlow}\n`]],
  'config: binary': [['.waymark/config.yaml', Buffer.from([0, 1, 2, 0xff])]],
  'bmad config: absolute paths': [['_bmad/bmm/config.yaml', 'output_folder: /tmp/evilout\nimplementation_artifacts: /tmp/evilout/impl\n']],
  'bmad config: ../ escapes': [['_bmad/bmm/config.yaml', 'output_folder: "{project-root}/../outside"\nimplementation_artifacts: "../outside"\n']],
  'bmad config: objects for strings': [['_bmad/bmm/config.yaml', 'output_folder: {a: 1}\nimplementation_artifacts: [1, 2]\nplanning_artifacts: 5\n']],
  'bmad config: URLs': [['_bmad/bmm/config.yaml', 'output_folder: https://evil.example/\nimplementation_artifacts: "file:///etc"\n']],
  'bmad config: 5000 levels of [': [['_bmad/bmm/config.yaml', `${deepFlow}\n`]],
  'v4 core-config: escapes and wrong types': [['.bmad-core/core-config.yaml', 'devStoryLocation: ../outside\nqa: {qaLocation: /etc}\nprd: [1]\n']],
  'gate file: 5000 levels of [': [['.waymark/gates/workflows/a/two.gate', `${deepFlow}\n`]],
  'definition: 5000 levels of [': [['.waymark/workflows/w.yaml', `${deepFlow}\n`]],
};
/** Links out of the workspace: files and folders Waymark reads or writes, and its own records. */
const LINKS: Record<string, [string, string]> = {
  '.waymark/history': ['.waymark/history', ''], '.waymark/gates': ['.waymark/gates', ''], '.waymark/events': ['.waymark/events', ''],
  '.waymark/leases': ['.waymark/leases', ''], '.waymark/checkpoints': ['.waymark/checkpoints', ''], '.waymark/memory': ['.waymark/memory', ''],
  '.waymark/journal': ['.waymark/journal', ''], '.waymark/modes': ['.waymark/modes', ''], '.waymark itself': ['.waymark', ''],
  'a history subfolder (dangling)': ['.waymark/history/workflows', 'newdir'], 'tickets folder': ['_bmad-output/tickets', ''],
  'workflow file': [A, 'victim.md'], 'workflows folder': ['workflows', ''], 'implementation artifacts folder': [SD, ''],
  'sprint-status.yaml': [LEDGER_FILE, 'victim.yaml'], 'story file': [STORY_FILE, 'victim.md'], '.waymark/config.yaml': ['.waymark/config.yaml', 'victim.yaml'],
  '_bmad/bmm (config folder)': ['_bmad/bmm', ''], 'manifest': ['files-manifest.csv', 'victim.yaml'],
};
const READ_VERBS = [['validate'], ['status'], ['sprint'], ['next'], ['board'], ['scan'], ['resume'], ['timeline'], ['events'], ['changed'], ['story', 'show', '1-2-login'], ['deps', A], ['history', A]];
const WRITE_VERBS = [['advance', A], ['complete-step', A, 'two', '--force'], ['gate', 'pass', A, 'two'], ['story', 'set-status', '1-2-login', 'in-progress'], ['story', 'check', '1-2-login', '1'],
  ['checkpoint', 'create'], ['manifest'], ['lease', 'acquire', A], ['sync'], ['delegate', A, '--agent', 'bob'], ['mode', 'start', 'planning'], ['set-status', A, 'blocked', '--reason', 'r']];

describe('hostile inputs: the CLI', { timeout: 30 * 60_000 }, () => {
  test('every verb of the table: an unknown option, a missing value, a huge value are usage errors (exit 2) that name the option', async () => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run node esbuild.mjs first`);
    const rand = rng(SEED);
    const jobs: (() => Promise<string | undefined>)[] = [];
    for (const c of commands) {
      const verb = c.name.split(' ');
      jobs.push(async () => {
        const args = [...verb, '--frobnicate-39'];
        const res = await hostile(workspace(), args, { stdin: '' });
        if (res.r.code !== 2 || !/frobnicate-39/.test(res.r.stderr)) res.broken.push(`an unknown option gave exit ${res.r.code}, not a usage error naming it`);
        return report('unknown option', args, res);
      });
      if (c.options.length) {
        const opt = c.options[Math.floor(rand() * c.options.length)];
        jobs.push(async () => {
          // The option last, without its value: a usage error (the missing positional may be named first).
          const args = [...verb, `--${opt}`];
          const res = await hostile(workspace(), args, { stdin: '' });
          if (res.r.code !== 2) res.broken.push(`a missing value for --${opt} gave exit ${res.r.code}, not a usage error`);
          return report('missing value', args, res);
        });
      }
    }
    // Huge values (100 KB, just under one argument's limit) and paths out of the workspace in the
    // verbs' own positions, sampled.
    const huge = 'x'.repeat(100_000);
    for (const c of sample(rand, commands.filter((x) => !/^(mcp|hook |events|merge-driver)/.test(x.name)), 16)) {
      const verb = c.name.split(' ');
      const pick = [huge, '../outside/victim.md', '--', '-', '..', '/'][Math.floor(rand() * 6)];
      jobs.push(async () => {
        const args = [...verb, pick, ...(c.options.includes('actor') ? ['--actor', huge] : [])];
        return report('hostile value', args, await hostile(workspace(), args, { stdin: '' }));
      });
    }
    const fails = await pool(jobs);
    assert.deepEqual(fails, [], `seed ${SEED}`);
  });

  test('hostile file contents × verbs (seeded sample): an answer or a clear refusal, never a crash, hang or half-done change', async () => {
    const rand = rng(SEED + 1);
    const pairs: [string, string[]][] = [];
    for (const m of Object.keys(MUTATIONS)) for (const v of [...READ_VERBS, ...WRITE_VERBS]) pairs.push([m, v]);
    // Every mutation once with a write and once with a read, then a sample of the rest.
    const chosen = new Map<string, [string, string[]]>();
    for (const m of Object.keys(MUTATIONS)) {
      for (const list of [READ_VERBS, WRITE_VERBS]) {
        const v = list[Math.floor(rand() * list.length)];
        chosen.set(`${m}|${v.join(' ')}`, [m, v]);
      }
    }
    for (const p of sample(rand, pairs, 30)) chosen.set(`${p[0]}|${p[1].join(' ')}`, p);
    const jobs = [...chosen.values()].map(([m, v]) => async () => {
      const ws = workspace();
      for (const [f, data] of MUTATIONS[m]) put(ws.root, f, data);
      const res = await hostile(ws, v);
      fs.rmSync(ws.top, { recursive: true, force: true });
      return report(m, v, res);
    });
    assert.deepEqual(await pool(jobs), [], `seed ${SEED}`);
  });

  test('symbolic links leading outside (files, folders, .waymark and its record folders) × writing verbs: nothing outside changes', async () => {
    const rand = rng(SEED + 2);
    const jobs: (() => Promise<string | undefined>)[] = [];
    for (const [name, [at, to]] of Object.entries(LINKS)) {
      for (const v of sample(rand, WRITE_VERBS, 2)) {
        jobs.push(async () => {
          const ws = workspace();
          const p = path.join(ws.root, at);
          fs.rmSync(p, { recursive: true, force: true });
          fs.mkdirSync(path.dirname(p), { recursive: true });
          fs.symlinkSync(path.join(ws.out, to), p);
          const res = await hostile(ws, v);
          fs.rmSync(ws.top, { recursive: true, force: true });
          return report(`link ${name}`, v, res);
        });
      }
    }
    assert.deepEqual(await pool(jobs), [], `seed ${SEED}`);
  });

  test('regressions found by this harness (each failed on the base build)', async () => {
    const fails: string[] = [];
    // 1. A ledger or config nested thousands of levels deep: was "unexpected error: Maximum call
    //    stack size exceeded", naming no file (a BMAD config: that text as its reason); now a YAML
    //    problem with its file and line.
    for (const [file, verb] of [[LEDGER_FILE, ['sprint']], [LEDGER_FILE, ['story', 'set-status', '1-2-login', 'in-progress']], ['.waymark/config.yaml', ['validate']], ['_bmad/bmm/config.yaml', ['validate']]] as const) {
      const ws = workspace();
      put(ws.root, file, `development_status:\n  1-2-login: ready-for-dev\n${deepFlow}\n`);
      const res = await hostile(ws, [...verb]);
      const said = res.r.stdout + res.r.stderr;
      if (!said.includes(path.basename(file)) || !/nests too deeply/.test(said)) res.broken.push('the answer does not name the file and the nesting');
      const f = report(`deep ${file}`, [...verb], res);
      if (f) fails.push(f);
    }
    // 2. `resume` of a missing file: exit 2 with nothing on stderr.
    {
      const ws = workspace();
      const f = report('resume missing', ['resume', 'nope.md'], await hostile(ws, ['resume', 'nope.md']));
      if (f) fails.push(f);
    }
    // 3. `.waymark/events` leading outside: checkpoint create and mode start refused ("Nothing was
    //    changed") after writing their checkpoint or mode file.
    for (const v of [['checkpoint', 'create'], ['mode', 'start', 'planning'], ['mode', 'end', 'planning']]) {
      const ws = workspace();
      if (v[1] === 'end') assert.equal((await run(ws.root, ['mode', 'start', 'planning'])).code, 0);
      fs.rmSync(path.join(ws.root, '.waymark/events'), { recursive: true, force: true });
      fs.symlinkSync(ws.out, path.join(ws.root, '.waymark/events'));
      const res = await hostile(ws, v);
      if (res.r.code !== 2 || !/events.*outside the workspace/.test(res.r.stderr)) res.broken.push(`exit ${res.r.code}, not the refusal naming the link`);
      const f = report('events link', v, res);
      if (f) fails.push(f);
    }
    // 4. `--max-file-bytes` without a number (last, or `10MB`) was dropped without a word (exit 0).
    for (const v of [['scan', '--max-file-bytes'], ['status', '--max-file-bytes', '10MB'], ['validate', '--max-file-bytes=']]) {
      const ws = workspace();
      const res = await hostile(ws, v);
      if (res.r.code !== 2 || !/--max-file-bytes needs a whole number/.test(res.r.stderr)) res.broken.push(`exit ${res.r.code}, not a usage error naming --max-file-bytes`);
      const f = report('max-file-bytes', v, res);
      if (f) fails.push(f);
    }
    assert.deepEqual(fails, []);
  });

  test('tooDeepLine names the line where the nesting goes too deep', () => {
    assert.equal(tooDeepLine('a: 1\nb: [1]\n'), 1);
    assert.equal(tooDeepLine(`a: 1\nb: 2\nc: ${'['.repeat(300)}`), 3);
    assert.equal(tooDeepLine(`a: 1\n${' '.repeat(300)}b: 2\n`), 2);
  });
});

describe('hostile inputs: the MCP server (a real client over stdio)', { timeout: 10 * 60_000 }, () => {
  test('every tool: wrong types, missing and extra fields, huge strings, paths outside → a tool error or an answer; the server lives on', async () => {
    const rand = rng(SEED + 3);
    const ws = workspace();
    fs.symlinkSync(path.join(ws.out, 'victim.md'), path.join(ws.root, 'workflows/link.md'));
    fs.symlinkSync(ws.out, path.join(ws.root, 'workflows/linkdir'));
    const outBefore = digest(ws.out);
    const server = await startServer(ws.root);
    try {
      const { tools } = await server.client.listTools();
      assert.ok(tools.length >= 10);
      const values: unknown[] = [42, -1, 1e308, true, null, [], ['a'], {}, { a: 1 }, '', 'h'.repeat(1_000_000), '../outside/victim.md', path.join(ws.out, 'victim.md'),
        'workflows/link.md', 'workflows/linkdir/victim.md', '/etc/passwd', 'a\u0000b', '\uFEFFworkflows/a.md', '__proto__', 'https://evil.example/x'];
      const good: Record<string, unknown> = { file: A, path: A, step: 'two', verdict: 'pass', status: 'in_progress', ref: '1-2-login', text: 'hi', type: 'learning', action: 'show', by: 'me', reason: 'r', code: 'yaml-syntax' };
      const fails: string[] = [];
      const call = async (name: string, args: Record<string, unknown>) => {
        try {
          const r = await server.client.callTool({ name, arguments: args });
          const text = (r.content as { text?: string }[])[0]?.text ?? '';
          if (STACK.test(text)) fails.push(`${name} ${JSON.stringify(args).slice(0, 120)}: a stack trace`);
          if (r.isError && !text.trim()) fails.push(`${name}: an error with no message`);
        } catch (e) {
          // A schema refusal by the protocol is an answer; a closed connection is not.
          if (/closed|timed out|Connection/i.test(String(e))) fails.push(`${name} ${JSON.stringify(args).slice(0, 120)}: ${String(e).slice(0, 200)}`);
        }
      };
      for (const t of tools) {
        const props = (t.inputSchema.properties ?? {}) as Record<string, { enum?: unknown[]; type?: string }>;
        const base: Record<string, unknown> = {};
        for (const [k, s] of Object.entries(props)) if (s.enum) base[k] = s.enum[0]; else if (k in good) base[k] = good[k];
        await call(t.name, {});
        await call(t.name, { ...base, extraField39: { nested: [1] } });
        for (const k of Object.keys(props)) for (const v of sample(rand, values, 6)) await call(t.name, { ...base, [k]: v });
      }
      await server.client.listTools(); // still serving
      assert.deepEqual(fails, [], `seed ${SEED}`);
      assert.doesNotMatch(server.stderr(), STACK);
      assert.deepEqual(digest(ws.out), outBefore, 'nothing outside the workspace changed');
      assert.deepEqual(fs.readdirSync(ws.top).sort(), ['outside', 'ws']);
    } finally {
      await server.close();
    }
  });
});

describe('hostile inputs: the hooks (stdin)', { timeout: 20 * 60_000 }, () => {
  test('empty, truncated, huge, wrong-typed and array payloads, hostile tool_input paths: documented answers, fail-closed refuses', async () => {
    const rand = rng(SEED + 4);
    const ws = workspace();
    fs.symlinkSync(path.join(ws.out, 'victim.md'), path.join(ws.root, 'workflows/link.md'));
    fs.symlinkSync(ws.out, path.join(ws.root, 'workflows/linkdir'));
    const out = path.join(ws.out, 'victim.md');
    const ev = (event: unknown, extra: Record<string, unknown>) => JSON.stringify({ session_id: 's39', transcript_path: path.join(ws.top, 't.jsonl'), cwd: ws.root, hook_event_name: event, ...extra });
    // Unreadable events: fail open (exit 1, one line) by default, refused with --fail-closed.
    const unreadable: Record<string, string | Buffer> = {
      empty: '', blank: '  \n', truncated: ev('PreToolUse', { tool_name: 'Edit', tool_input: { file_path: A } }).slice(0, 60), array: '[1,2,3]', string: '"hi"', number: '5', null: 'null',
      'wrong types': ev(5, { tool_name: [1], tool_input: 'x' }), 'nested 100k deep': `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
    };
    const paths: unknown[] = [A, out, '../outside/victim.md', 'workflows/link.md', 'workflows/linkdir/victim.md', '.waymark/history/x.jsonl', '', 'a\u0000b', 'x'.repeat(100_000), 42, null, ['a'], { a: 1 }];
    const judged: Record<string, string | Buffer> = {
      'huge write (20 MB)': ev('PreToolUse', { tool_name: 'Write', tool_input: { file_path: 'src/x.ts', content: 'z'.repeat(20_000_000) } }),
      'tool_input an array': ev('PreToolUse', { tool_name: 'Edit', tool_input: [1, 2] }),
      'BOM and CRLF': `\uFEFF${ev('PreToolUse', { tool_name: 'Read', tool_input: { file_path: 'x' } })}\r\n`,
      'shell write through a link': ev('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'echo x > workflows/link.md' } }),
      'shell 20000 subshells': ev('PreToolUse', { tool_name: 'Bash', tool_input: { command: `${'('.repeat(20_000)}sed -i s/a/b/ ${A}${')'.repeat(20_000)}` } }),
      'Stop with wrong types': ev('Stop', { stop_hook_active: 'yes' }),
    };
    for (const p of sample(rand, paths, 8)) {
      const tool = ['Edit', 'Write', 'MultiEdit'][Math.floor(rand() * 3)];
      judged[`${tool} ${JSON.stringify(p).slice(0, 30)}`] = ev('PreToolUse', { tool_name: tool, tool_input: { file_path: p, old_string: 'status: in_progress', new_string: 'status: completed', content: '---\nworkflow: w\nstatus: completed\n---\n', edits: [{ old_string: 'a', new_string: 'b' }, 5, null] } });
      judged[`post ${tool} ${JSON.stringify(p).slice(0, 30)}`] = ev('PostToolUse', { tool_name: tool, tool_input: { file_path: p }, tool_response: 5 });
    }
    const jobs: (() => Promise<string | undefined>)[] = [];
    for (const [k, stdin] of Object.entries(unreadable)) {
      for (const agent of sample(rand, ['claude-code', 'gemini', 'codex', 'copilot', 'cursor'], 2)) {
        jobs.push(async () => {
          const open = await hostile(ws, ['hook', agent], { stdin, hook: true });
          if (open.r.code !== 1 || !/waymark hook: .*not checked/.test(open.r.stderr)) open.broken.push(`fail-open answer: exit ${open.r.code}`);
          const closed = await hostile(ws, ['hook', agent, '--fail-closed'], { stdin, hook: true });
          if (!(closed.r.code === 2 || /"deny"/.test(closed.r.stdout))) closed.broken.push(`--fail-closed let it through: exit ${closed.r.code} ${closed.r.stdout.slice(0, 100)}`);
          return report(`${agent} ${k}`, ['hook', agent], open) ?? report(`${agent} ${k}`, ['hook', agent, '--fail-closed'], closed);
        });
      }
    }
    for (const [k, stdin] of Object.entries(judged)) {
      jobs.push(async () => report(`claude-code ${k}`, ['hook', 'claude-code'], await hostile(ws, ['hook', 'claude-code'], { stdin, hook: true })));
    }
    assert.deepEqual(await pool(jobs), [], `seed ${SEED}`);
    assert.equal(fs.readFileSync(out, 'utf8'), WF);
  });
});

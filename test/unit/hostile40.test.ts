// Hostile inputs the session-39 harness (hostile39.test.ts) did not reach, through the real faces:
// numbers and dates given by hand to every option that takes one; positional paths that are FIFOs,
// folders, dangling links, link loops, paths through a file, names too long or with a line break,
// given to every verb that takes a file; frontmatter with CRLF and a BOM, duplicate keys, anchors,
// aliases and merge keys under the writing verbs; control characters in values; and the same kinds
// of values as MCP tool arguments. The promise is hostile39's: an exit code of the documented set,
// no stack trace, a message naming what is wrong, nothing changed outside the workspace, nothing
// changed on a refusal, and an end (a process still running after HANG_MS is killed and reported).
// WAYMARK_HOSTILE_SEED picks another sample; WAYMARK_HOSTILE_CLI another build.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { spawn, execFileSync } from 'node:child_process';
import { startServer, cleanup as mcpCleanup } from './mcpHelpers';
import { rng } from './fileHelpers';

const SEED = Number(process.env.WAYMARK_HOSTILE_SEED ?? 40);
const CLI = path.resolve(process.env.WAYMARK_HOSTILE_CLI ?? 'dist/cli.js');
const HANG_MS = 60_000;
const SD = '_bmad-output/implementation-artifacts';
const WF = '---\nworkflow: w\nstatus: in_progress\nsteps: [one, {id: two, gate: true}, three]\nstepsCompleted: [one]\ncurrentStep: two\n---\n# A\n';
const A = 'workflows/a.md';
const LEDGER = `project: shop\nstory_location: ${SD}\n\ndevelopment_status:\n  epic-1: in-progress\n  1-1-sign-up: done\n  1-2-login: ready-for-dev\n`;

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
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-hostile40-')));
  tops.push(top);
  const root = path.join(top, 'ws');
  const out = path.join(top, 'outside');
  put(out, 'victim.md', WF);
  put(root, '.waymark/config.yaml', 'include:\n  - "workflows/**/*.md"\n');
  put(root, A, WF);
  put(root, `${SD}/sprint-status.yaml`, LEDGER);
  put(root, `${SD}/1-2-login.md`, '# Story 1.2: Login\n\nStatus: ready-for-dev\n\n## Tasks / Subtasks\n\n- [ ] Add form\n');
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
      else if (e.isFIFO()) out[rel] = 'fifo';
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
function run(cwd: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WAYMARK_') && !k.startsWith('CLAUDE_')) env[k] = v;
    const p = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      p.kill('SIGKILL');
    }, HANG_MS);
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, hung, stdout, stderr });
    });
  });
}

const STACK = /^\s+at .+(:\d+|\))$/m;

/** Runs one case; returns what broke the promise (empty when it held). */
async function hostile(ws: Ws, args: string[]): Promise<{ r: Run; broken: string[] }> {
  const before = digest(ws.root);
  const outBefore = digest(ws.out);
  const r = await run(ws.root, args);
  const broken: string[] = [];
  if (r.hung) broken.push(`did not end within ${HANG_MS} ms (a hang)`);
  else if (![0, 1, 2, 3, 4].includes(r.code ?? -1)) broken.push(`exit ${r.code} (${r.signal}), not a documented code`);
  if (STACK.test(r.stderr) || STACK.test(r.stdout)) broken.push('a stack trace');
  if (/unexpected error|Maximum call stack|RangeError|TypeError|Cannot read properties|Invalid time value/.test(r.stderr)) broken.push(`an internal error for an answer: ${r.stderr.trim().split('\n')[0]}`);
  const outAfter = digest(ws.out);
  const outChanged = Object.keys({ ...outBefore, ...outAfter }).filter((k) => outBefore[k] !== outAfter[k]);
  if (outChanged.length) broken.push(`changed outside the workspace: ${outChanged.join(', ')}`);
  const strays = fs.readdirSync(ws.top).filter((f) => f !== 'ws' && f !== 'outside');
  if (strays.length) broken.push(`created beside the workspace: ${strays.join(', ')}`);
  if ((r.code ?? 0) >= 2) {
    const after = digest(ws.root);
    const changed = Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);
    if (changed.length) broken.push(`refused (exit ${r.code}) but changed ${changed.join(', ')}`);
    if (!r.stderr.trim()) broken.push(`exit ${r.code} with nothing on stderr`);
  }
  return { r, broken };
}

function report(label: string, args: string[], res: { r: Run; broken: string[] }): string | undefined {
  if (!res.broken.length) return undefined;
  return `${label}: waymark ${args.map((a) => JSON.stringify(a.length > 60 ? `${a.slice(0, 20)}…(${a.length})` : a)).join(' ')} → ${res.broken.join('; ')} | ${res.r.stderr.trim().split('\n')[0]?.slice(0, 200)}`;
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

// Values no whole-number, date or duration option takes: each must be a usage error naming the option.
const BAD_NUMBERS = ['1e309', '99999999999999999999999', '-1', 'NaN', '0x10', '', 'Infinity', '\uff11', ' 5', '5 ', '1_000'];
/** [verb and its positionals, the option]: every option that takes a number, a date or a duration. */
const NUMERIC: [string[], string][] = [
  [['events'], 'since'], [['events'], 'limit'], [['checkpoint', 'create', '--git'], 'keep'], [['memory', 'prune'], 'keep'], [['memory', 'prune'], 'older-than'],
  [['memory', 'recall', 'x'], 'limit'], [['memory', 'recall', 'x'], 'since'], [['memory', 'status'], 'wait-ms'], [['session', 'start'], 'limit'], [['sprint'], 'stale-days'],
  [['timeline'], 'since'], [['timeline'], 'max-commits'], [['next'], 'now'], [['board'], 'now'], [['fix', A, 'step-order'], 'line'], [['lease', 'acquire', A], 'ttl'],
  [['lease', 'takeover', A], 'ttl'], [['mode', 'start', 'planning'], 'ttl'], [['lease', 'acquire', A], 'pid'], [['gate', 'waive', A, 'two', '--reason', 'r', '--by', 'me'], 'expires'],
];

/** Positional paths that are not a readable regular file inside the workspace (made by `make`). */
const ODD_PATHS: Record<string, (ws: Ws) => string> = {
  fifo: (ws) => {
    execFileSync('mkfifo', [path.join(ws.root, 'workflows/fifo.md')]);
    return 'workflows/fifo.md';
  },
  folder: (ws) => {
    fs.mkdirSync(path.join(ws.root, 'workflows/folder.md'));
    return 'workflows/folder.md';
  },
  'dangling link': (ws) => {
    fs.symlinkSync('nowhere.md', path.join(ws.root, 'workflows/dangling.md'));
    return 'workflows/dangling.md';
  },
  'link loop': (ws) => {
    fs.symlinkSync('loop2.md', path.join(ws.root, 'workflows/loop1.md'));
    fs.symlinkSync('loop1.md', path.join(ws.root, 'workflows/loop2.md'));
    return 'workflows/loop1.md';
  },
  'link outside': (ws) => {
    fs.symlinkSync(path.join(ws.out, 'victim.md'), path.join(ws.root, 'workflows/out.md'));
    return 'workflows/out.md';
  },
  'through a file': () => `${A}/x.md`,
  'name too long': () => `workflows/${'n'.repeat(300)}.md`,
  'line break in the name': (ws) => {
    put(ws.root, 'workflows/new\nline.md', WF);
    return 'workflows/new\nline.md';
  },
  'binary file': (ws) => {
    put(ws.root, 'workflows/bin.md', Buffer.from([0, 1, 2, 0xff, 0xfe, 0]));
    return 'workflows/bin.md';
  },
};
/** Verbs taking a file, `F` where it goes. */
const FILE_VERBS: string[][] = [
  ['chain', 'F'], ['start', 'F'], ['advance', 'F'], ['complete-step', 'F', 'two', '--force'], ['set-status', 'F', 'blocked', '--reason', 'r'], ['block', 'F', '--reason', 'r'],
  ['unblock', 'F'], ['scope', 'F', 'small'], ['fix', 'F', 'step-order'], ['gate', 'show', 'F', 'two'], ['gate', 'pass', 'F', 'two'], ['gate', 'waive', 'F', 'two', '--reason', 'r', '--by', 'me'],
  ['history', 'F'], ['deps', 'F'], ['resume', 'F'], ['validate', 'F'], ['status', 'F'], ['delegate', A, '--agent', 'bob', '--out', 'F'], ['memory', 'import', 'F'], ['memory', 'export', '--out', 'F'],
  ['merge-driver', 'F', A, A, A], ['merge-driver', A, A, 'F', A], ['checkpoint', 'restore', 'x', '--file', 'F'], ['bmad', 'migrate-check', 'F'],
];

// Frontmatter the writing verbs must keep whole: line endings, BOM, keys as written.
const SHAPES: Record<string, string> = {
  'CRLF + BOM': '\uFEFF---\r\nworkflow: w\r\nstatus: in_progress\r\nsteps: [one, two, three]\r\nstepsCompleted: [one]\r\ncurrentStep: two\r\n---\r\n# A\r\n',
  'CRLF, no BOM': '---\r\nworkflow: w\r\nstatus: in_progress\r\nsteps: [one, two, three]\r\nstepsCompleted: [one]\r\n---\r\n# A\r\n',
  'duplicate status key': '---\nworkflow: w\nstatus: in_progress\nstatus: blocked\nsteps: [one, two, three]\nstepsCompleted: [one]\n---\n',
  'steps by alias': '---\nworkflow: w\nbase: &b [one, two, three]\nstatus: in_progress\nsteps: *b\nstepsCompleted: [one]\n---\n',
  'merge key': '---\nworkflow: w\ndefaults: &d {status: in_progress}\n<<: *d\nsteps: [one, two, three]\nstepsCompleted: [one]\n---\n',
  'anchored stepsCompleted': '---\nworkflow: w\nstatus: in_progress\nsteps: [one, two, three]\nstepsCompleted: &done [one]\nagain: *done\n---\n',
  'alias bomb': `---\nworkflow: w\nstatus: in_progress\nsteps: [one, two, three]\na: &a [x,x,x,x,x,x,x,x,x]\n${'bcdefgh'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`).join('\n')}\n---\n`,
  'mixed line endings': '---\r\nworkflow: w\nstatus: in_progress\r\nsteps: [one, two, three]\nstepsCompleted: [one]\r\n---\n',
  'tab-indented list': '---\nworkflow: w\nstatus: in_progress\nsteps:\n\t- one\n\t- two\nstepsCompleted: [one]\n---\n',
};
const WRITES: string[][] = [['advance', A], ['block', A, '--reason', 'r'], ['scope', A, 'small'], ['set-status', A, 'completed', '--reason', 'done'], ['complete-step', A, 'two'], ['start', A]];

describe('hostile inputs (session 40): the CLI', { timeout: 30 * 60_000 }, () => {
  test('numbers, dates and durations given by hand: every such option refuses a value it cannot take (exit 2, naming it)', async () => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run node esbuild.mjs first`);
    const rand = rng(SEED);
    const jobs = NUMERIC.flatMap(([verb, opt]) => sample(rand, BAD_NUMBERS, 3).map((v) => async () => {
      const args = [...verb, `--${opt}`, v];
      const res = await hostile(workspace(), args);
      if (res.r.code !== 2 || !res.r.stderr.includes(`--${opt}`)) res.broken.push(`exit ${res.r.code}, not a usage error naming --${opt}`);
      return report(`--${opt} ${JSON.stringify(v)}`, args, res);
    }));
    assert.deepEqual(await pool(jobs), [], `seed ${SEED}`);
  });

  test('a FIFO, a folder, a dangling link, a link loop or outside, a path through a file, a long or broken name × every verb that takes a file', async () => {
    const rand = rng(SEED + 1);
    const jobs: (() => Promise<string | undefined>)[] = [];
    for (const [kind, make] of Object.entries(ODD_PATHS)) {
      // A FIFO with every verb (a read would block for ever); the others with a sample.
      for (const verb of kind === 'fifo' ? FILE_VERBS : sample(rand, FILE_VERBS, 8)) {
        jobs.push(async () => {
          const ws = workspace();
          const f = make(ws);
          const args = verb.map((a) => (a === 'F' ? f : a));
          const res = await hostile(ws, args);
          if (kind === 'link outside' && fs.readFileSync(path.join(ws.out, 'victim.md'), 'utf8') !== WF) res.broken.push('wrote through the link');
          return report(kind, args, res);
        });
      }
    }
    assert.deepEqual(await pool(jobs), [], `seed ${SEED}`);
  });

  test('CRLF and BOM, duplicate keys, anchors, aliases and merge keys × the writing verbs: written whole or refused untouched', async () => {
    const jobs: (() => Promise<string | undefined>)[] = [];
    for (const [shape, text] of Object.entries(SHAPES)) {
      for (const verb of WRITES) {
        jobs.push(async () => {
          const ws = workspace();
          put(ws.root, A, text);
          const res = await hostile(ws, verb);
          const after = fs.readFileSync(path.join(ws.root, A), 'utf8');
          if (res.r.code === 0) {
            const crlf = (s: string) => (s.match(/\r\n/g) ?? []).length;
            const lf = (s: string) => (s.match(/(?<!\r)\n/g) ?? []).length;
            if (crlf(text) && !lf(text) && lf(after)) res.broken.push('a CRLF file got LF lines');
            if (lf(text) && !crlf(text) && crlf(after)) res.broken.push('an LF file got CRLF lines');
            if (text.startsWith('\uFEFF') !== after.startsWith('\uFEFF')) res.broken.push('the BOM was lost or added');
            if (/&b|\*b|&d|<<|&done|\*done/.test(text) && !['&b', '*b', '&d', '<<', '&done', '*done'].filter((a) => text.includes(a)).every((a) => after.includes(a))) res.broken.push('an anchor, alias or merge key was dropped');
          }
          return report(shape, verb, res);
        });
      }
    }
    assert.deepEqual(await pool(jobs), [], `seed ${SEED}`);
  });

  test('line breaks and control characters in values: refused or kept on their line, never a second line of a file', async () => {
    const jobs: (() => Promise<string | undefined>)[] = [];
    const values = ['done\nstatus: completed', 'r\r\nstatus: completed', '\u001b[31mred', 'a\u2028b'];
    for (const v of values) {
      for (const verb of [['block', A, '--reason', v], ['set-status', A, 'blocked', '--reason', v], ['story', 'set-status', '1-2-login', 'blocked', '--blocked', v], ['advance', A, '--actor', v], ['story', 'set-status', '1-2-login', v], ['hook', 'install', 'claude-code', '--command', v], ['memory', 'record', '--type', 'learning', v]]) {
        jobs.push(async () => {
          const ws = workspace();
          const res = await hostile(ws, verb);
          const wf = fs.readFileSync(path.join(ws.root, A), 'utf8');
          if (/^status: completed$/m.test(wf)) res.broken.push('the value wrote a key of its own into the workflow');
          if (/^status: completed$/m.test(fs.readFileSync(path.join(ws.root, `${SD}/1-2-login.md`), 'utf8'))) res.broken.push('the value wrote a line of its own into the story');
          if (verb[1] === 'install' && /[\u0000-\u001f\u007f]/.test(v) && res.r.code !== 2) res.broken.push(`a launcher with a control character was installed (exit ${res.r.code})`);
          return report('control character', verb, res);
        });
      }
    }
    assert.deepEqual(await pool(jobs), [], `seed ${SEED}`);
  });

  test('regressions found by this harness (each failed on the base build 04f7c68)', async () => {
    const fails: string[] = [];
    const check = async (label: string, args: string[], want: (r: Run) => string | undefined, prep?: (ws: Ws) => void) => {
      const ws = workspace();
      prep?.(ws);
      const res = await hostile(ws, args);
      const w = want(res.r);
      if (w) res.broken.push(w);
      const f = report(label, args, res);
      if (f) fails.push(f);
    };
    const usage = (opt: string) => (r: Run) => (r.code === 2 && r.stderr.includes(opt) ? undefined : `exit ${r.code}, not a usage error naming ${opt}`);
    // 1. A FIFO as a side of merge-driver: the read blocked for ever (git waits on the driver).
    await check('merge-driver FIFO', ['merge-driver', 'workflows/fifo.md', A, A, A], (r) => (r.code === 2 && /named pipe/.test(r.stderr) ? undefined : 'not refused naming the pipe'), (ws) => execFileSync('mkfifo', [path.join(ws.root, 'workflows/fifo.md')]));
    // 2. A ttl or an age past what a date can hold: "unexpected error: Invalid time value".
    await check('ttl 1e23 s', ['lease', 'acquire', A, '--ttl', '99999999999999999999999'], usage('--ttl'));
    await check('older-than 1e13 days', ['memory', 'prune', '--older-than', '9999999999999'], usage('--older-than'));
    // 3. Dates Date.parse takes and no one means: an empty --expires waived for ever, `-1` and `1.5` were dates.
    for (const v of ['', '-1', '1.5', '0']) await check(`--expires ${JSON.stringify(v)}`, ['gate', 'waive', A, 'two', '--reason', 'r', '--by', 'me', '--expires', v], usage('--expires'));
    for (const v of ['-1', '0', '1.5']) await check(`timeline --since ${v}`, ['timeline', '--since', v], usage('--since'));
    // 4. Whole numbers Number() reads and no one writes: `--keep 0x10`, `--keep ''` (0).
    for (const v of ['0x10', '', '1e3']) await check(`prune --keep ${JSON.stringify(v)}`, ['memory', 'prune', '--keep', v], usage('--keep'));
    // 5. memory export on a workspace with no memory yet: wrote the export, then failed on its record's
    //    folder saying "Nothing was changed".
    await check('export before any memory', ['memory', 'export', '--out', 'mem.json'], (r) => (r.code === 0 ? undefined : `exit ${r.code}`));
    // 6. A launcher with a line break: installed into the settings as two lines of a command.
    await check('hook --command newline', ['hook', 'install', 'claude-code', '--command', 'waymark\nrm -rf ~'], usage('--command'));
    // 7. A name past the file system's limit as delegate's --out: "unexpected error: ENAMETOOLONG".
    await check('--out name too long', ['delegate', A, '--agent', 'bob', '--out', `workflows/${'n'.repeat(300)}.md`], (r) => (r.code === 2 && /longer than the file system allows/.test(r.stderr) ? undefined : `exit ${r.code}, not a refusal saying the name is too long`));
    assert.deepEqual(fails, []);
  });
});

describe('hostile inputs (session 40): the MCP server (a real client over stdio)', { timeout: 10 * 60_000 }, () => {
  test('every tool: lone surrogates, line breaks, FIFOs, folders, deep and huge values → a tool error or an answer; no hang; the server lives on', async () => {
    const rand = rng(SEED + 3);
    const ws = workspace();
    execFileSync('mkfifo', [path.join(ws.root, 'workflows/fifo.md')]);
    fs.mkdirSync(path.join(ws.root, 'workflows/folder.md'));
    fs.symlinkSync('loop2.md', path.join(ws.root, 'workflows/loop1.md'));
    fs.symlinkSync('loop1.md', path.join(ws.root, 'workflows/loop2.md'));
    const outBefore = digest(ws.out);
    const wfBefore = fs.readFileSync(path.join(ws.root, A), 'utf8');
    const server = await startServer(ws.root);
    try {
      const { tools } = await server.client.listTools();
      let deep: unknown = 1;
      for (let i = 0; i < 2000; i++) deep = [deep];
      const values: unknown[] = ['workflows/fifo.md', 'workflows/folder.md', 'workflows/loop1.md', `${A}/x.md`, 'workflows/new\nline.md', '\ud800', 'a\ud800b', '\u0000', '\r\n',
        'n'.repeat(5000), -0, 2 ** 53 + 1, -1e308, 0.5, deep, Array(10_000).fill('x'), JSON.parse('{"__proto__": {"polluted": true}}') as unknown, { constructor: { prototype: { polluted: true } } }, '1e309', '0x10', '-1', ''];
      const good: Record<string, unknown> = { file: A, path: A, step: 'two', verdict: 'pass', status: 'in_progress', ref: '1-2-login', text: 'hi', type: 'learning', action: 'show', by: 'me', reason: 'r', code: 'yaml-syntax' };
      const fails: string[] = [];
      const call = async (name: string, args: Record<string, unknown>) => {
        const what = `${name} ${JSON.stringify(args, (_k, v: unknown) => (Array.isArray(v) && v.length > 3 ? `[${v.length} items]` : v)).slice(0, 140)}`;
        let timer: NodeJS.Timeout | undefined;
        try {
          const r = await Promise.race([
            server.client.callTool({ name, arguments: args }, undefined, { timeout: HANG_MS }),
            new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out: a hang')), HANG_MS + 5_000))),
          ]);
          const text = (r.content as { text?: string }[])[0]?.text ?? '';
          if (STACK.test(text)) fails.push(`${what}: a stack trace`);
          if (r.isError && !text.trim()) fails.push(`${what}: an error with no message`);
          if (/unexpected error|Invalid time value|Maximum call stack/.test(text)) fails.push(`${what}: ${text.slice(0, 160)}`);
        } catch (e) {
          if (/closed|timed out|Connection/i.test(String(e))) fails.push(`${what}: ${String(e).slice(0, 200)}`);
        } finally {
          clearTimeout(timer);
        }
      };
      for (const t of tools) {
        const props = (t.inputSchema.properties ?? {}) as Record<string, { enum?: unknown[] }>;
        const base: Record<string, unknown> = {};
        for (const [k, s] of Object.entries(props)) if (s.enum) base[k] = s.enum[0]; else if (k in good) base[k] = good[k];
        for (const k of Object.keys(props)) for (const v of sample(rand, values, 4)) await call(t.name, { ...base, [k]: v });
        // Every tool that takes a file: the FIFO there (a read would block the server for ever).
        for (const k of ['file', 'path', 'out']) if (k in props) await call(t.name, { ...base, [k]: 'workflows/fifo.md' });
      }
      await server.client.listTools(); // still serving
      assert.deepEqual(fails, [], `seed ${SEED}`);
      assert.doesNotMatch(server.stderr(), STACK);
      assert.deepEqual(digest(ws.out), outBefore, 'nothing outside the workspace changed');
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted');
      assert.ok(fs.readFileSync(path.join(ws.root, A), 'utf8').length > 0 && wfBefore.length > 0);
    } finally {
      await server.close();
    }
  });
});

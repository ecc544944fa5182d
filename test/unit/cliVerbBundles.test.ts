import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { VERB_BUNDLES } from '../../src/cli/verbBundles';
import { commands as allCommands } from '../../src/cli/main';
import { commands as readVerbs } from '../../src/cli/readMain';
import { commands as sprintVerbs } from '../../src/cli/sprintMain';
import { commands as writeVerbs } from '../../src/cli/writeMain';
import { commands as projectVerbs } from '../../src/cli/projectMain';
import { commands as protocolVerbs } from '../../src/cli/protocolMain';
import type { CliCommand } from '../../src/cli/framework';

const BUNDLED: Record<string, CliCommand[]> = {
  'cli-read.js': readVerbs,
  'cli-sprint.js': sprintVerbs,
  'cli-write.js': writeVerbs,
  'cli-project.js': projectVerbs,
  'cli-protocol.js': protocolVerbs,
};
const firstWord = (c: CliCommand) => c.name.split(' ')[0];

test('a verb routed to a smaller bundle finds there every verb of the full CLI that starts with its word, declared alike', () => {
  for (const [word, bundle] of VERB_BUNDLES) {
    const held = BUNDLED[bundle];
    assert.ok(held, `${word} is routed to ${bundle}, which no *Main.ts declares`);
    const full = allCommands.filter((c) => firstWord(c) === word);
    assert.ok(full.length, `${word} is routed to ${bundle} but the CLI has no such verb`);
    // The same command objects: same options (so unknown options are refused alike), help and run.
    assert.deepEqual(held.filter((c) => firstWord(c) === word), full, word);
  }
  // And every verb a bundle holds is routed to it: none is reachable only through the full CLI by mistake.
  for (const [bundle, held] of Object.entries(BUNDLED)) {
    for (const c of held) assert.equal(VERB_BUNDLES.get(firstWord(c)), bundle, `${c.name} is in ${bundle} but routed elsewhere`);
  }
});

test('the launcher does not route a word that only looks like a verb', () => {
  for (const word of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) assert.equal(VERB_BUNDLES.get(word), undefined);
});

test('the built CLI runs a routed verb from its own bundle: same answers, same refusals', { skip: fs.existsSync('dist/cli.js') ? undefined : 'dist/cli.js not built (node esbuild.mjs)' }, () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-verbs-'));
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-verbs-cache-'));
  try {
    fs.writeFileSync(path.join(ws, 'a.workflow.md'), '---\nworkflow: a\nstatus: in_progress\nsteps: [x, y]\ncurrentStep: x\nstepsCompleted: []\n---\n');
    const cli = (args: string[]) => spawnSync(process.execPath, [path.resolve('dist/cli.js'), ...args], { cwd: ws, encoding: 'utf8', env: { ...process.env, WAYMARK_COMPILE_CACHE: cache } });
    const status = cli(['status', 'a.workflow.md', '--json']);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /"currentStep":"x"/);
    assert.ok(fs.readdirSync(cache).some((n) => n.startsWith('cli-read.status@')), 'status ran from cli-read.js');
    // Unknown options stay errors, with the verb's own hint.
    const typo = cli(['status', 'a.workflow.md', '--jsn']);
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /unknown option --jsn; did you mean --json\?/);
    // A verb's help is the same text the full CLI prints.
    const help = cli(['advance', '--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: waymark advance /);
    const group = cli(['gate']);
    assert.equal(group.status, 2);
    assert.match(group.stderr, /waymark gate: choose one of: pass, fail, concerns, waive, show/);
    // A verb no smaller bundle holds still runs in the full CLI.
    const version = cli(['--version']);
    assert.equal(version.status, 0, version.stderr);
    assert.ok(fs.readdirSync(cache).some((n) => n.startsWith('cli-main.')), 'the rest run from cli-main.js');
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

test('a one-file status loads only what it uses: no thread, no fs.promises, no stdout stream (net)', { skip: fs.existsSync('dist/cli.js') ? undefined : 'dist/cli.js not built (node esbuild.mjs)' }, () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-verbs-'));
  try {
    fs.writeFileSync(path.join(ws, 'a.workflow.md'), '---\nworkflow: a\nstatus: in_progress\nsteps: [x, y]\ncurrentStep: x\nstepsCompleted: []\n---\n');
    // Records the built-ins the process loaded.
    const probe = path.join(ws, 'probe.cjs');
    fs.writeFileSync(probe, "process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.moduleLoadList)));\n");
    const out = path.join(ws, 'loaded.json');
    const run = (cwdArgs: string[]) => {
      const r = spawnSync(process.execPath, ['-r', probe, path.resolve('dist/cli.js'), ...cwdArgs], { cwd: ws, encoding: 'utf8', env: { ...process.env, WAYMARK_COMPILE_CACHE: '0', PROBE_OUT: out } });
      assert.equal(r.status, 0, r.stderr);
      return { stdout: r.stdout, loaded: new Set(JSON.parse(fs.readFileSync(out, 'utf8')) as string[]) };
    };
    // Through a pipe, as an agent reads it (spawnSync's stdout is a pipe).
    const { stdout, loaded } = run(['status', 'a.workflow.md', '--json']);
    assert.match(stdout, /"currentStep":"x"/);
    for (const m of ['NativeModule worker_threads', 'NativeModule internal/fs/promises', 'NativeModule net']) assert.ok(!loaded.has(m), `${m} was loaded`);
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
});

// The GitHub Action (action.yml) run locally against a real git repository with a base and a head
// commit: its source by GitHub's own local runner for JavaScript actions (@github/local-action),
// and the bundled dist/action.js that action.yml names, with the real @actions/core. No network:
// every HTTP(S) request would go to a closed local port, so github.com itself is never reached.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse as parseYaml } from 'yaml';
import { ENV, git, tempDir } from './gitHelpers';
import { prRepo, makePrChanges, write, IMPL } from './ciHelpers';

const LOCAL_ACTION = path.resolve('node_modules/@github/local-action/bin/local-action.js');
const BUNDLE = path.resolve('dist/action.js');
const OFFLINE = { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', http_proxy: 'http://127.0.0.1:9', https_proxy: 'http://127.0.0.1:9', NO_PROXY: '', no_proxy: '' };

interface Run {
  code: number;
  stdout: string;
  summary: string;
  sarif?: { runs: { results: { ruleId: string }[] }[] };
  outputs: string;
}

function actionEnv(repo: string, inputs: Record<string, string>): { env: Record<string, string>; files: { summary: string; output: string; temp: string } } {
  const out = tempDir('wm-action-out-');
  const files = { summary: path.join(out, 'summary.md'), output: path.join(out, 'output.txt'), temp: path.join(out, 'tmp') };
  fs.writeFileSync(files.summary, '');
  fs.writeFileSync(files.output, '');
  fs.mkdirSync(files.temp);
  const env: Record<string, string> = { GITHUB_WORKSPACE: repo, GITHUB_STEP_SUMMARY: files.summary, GITHUB_OUTPUT: files.output, RUNNER_TEMP: files.temp };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  return { env, files };
}

function collect(r: ReturnType<typeof spawnSync>, files: { summary: string; output: string; temp: string }): Run {
  const sarifPath = path.join(files.temp, 'waymark.sarif');
  return {
    code: r.status ?? -1,
    stdout: `${r.stdout}${r.stderr}`,
    summary: fs.readFileSync(files.summary, 'utf8'),
    sarif: fs.existsSync(sarifPath) ? JSON.parse(fs.readFileSync(sarifPath, 'utf8')) : undefined,
    outputs: fs.readFileSync(files.output, 'utf8'),
  };
}

/** dist/action.js as the runner starts it: node, the INPUT_* variables, the runner's files. */
function runBundle(repo: string, inputs: Record<string, string>): Run {
  const { env, files } = actionEnv(repo, inputs);
  const r = spawnSync(process.execPath, [BUNDLE], { cwd: repo, encoding: 'utf8', env: { ...ENV, ...OFFLINE, ...env }, timeout: 120_000 });
  return collect(r, files);
}

/** The annotations (workflow commands) a run printed, as [level, file, title]. */
function annotations(stdout: string): string[][] {
  // The real @actions/core escapes `:` and `,` in properties; local-action's stub prints them as they are.
  return [...stdout.matchAll(/^::(error|warning|notice) (.+?)::/gm)].map((m) => {
    const props = Object.fromEntries(m[2].split(/,(?=\w+=)/).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    return [m[1], decodeURIComponent(props.file ?? ''), decodeURIComponent(props.title ?? '')];
  }).filter((a) => a[1] !== '');
}

const EXPECTED = [
  ['notice', `${IMPL}/1-2-logout.md`, 'fixed story-status-drift'],
  ['notice', `${IMPL}/sprint-status.yaml`, 'fixed story-status-drift'],
  ['warning', '.waymark/gates/release/approve.gate', 'gate-without-reviewer'],
  ['warning', `${IMPL}/1-1-login.md`, 'story-done-tasks-open'],
  ['warning', 'plan.md', 'rewind'],
].map((a) => a.join(' ')).sort();

describe('the GitHub Action, run locally (github.com itself is not reached)', () => {
  test('GitHub\'s local runner (@github/local-action) runs the Action\'s source on a PR with a base and a head commit: exactly the four findings annotated, summarized, and a SARIF file', { skip: !fs.existsSync(LOCAL_ACTION) && 'npm install brings @github/local-action', timeout: 400_000 }, () => {
    const repo = prRepo();
    makePrChanges(repo);
    const { env, files } = actionEnv(repo, { path: '.', base: 'main', 'fail-on': 'error' });
    const dotenv = path.join(tempDir('wm-action-env-'), '.env');
    fs.writeFileSync(dotenv, Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
    const r = spawnSync(process.execPath, [LOCAL_ACTION, 'run', path.resolve('.'), 'src/action/run.ts', dotenv], { cwd: path.resolve('.'), encoding: 'utf8', env: { ...ENV, ...OFFLINE, NO_COLOR: '1', FORCE_COLOR: '0' }, timeout: 300_000 });
    const run = collect(r, files);
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(annotations(run.stdout).map((a) => a.join(' ')).sort(), EXPECTED, run.stdout);
    assert.match(run.summary, /- story 1-1-login: in-progress → done by dev-agent/);
    assert.match(run.summary, /⚠️ \*\*rewind\*\* `plan\.md`/);
    assert.match(run.summary, /gate approve written by hand \(none → PASS\) ⚠️ not a recorded verdict: it does not open the gate/);
    assert.match(run.summary, /\*\*Problems fixed\*\*\n\n- `story-status-drift`/);
    assert.deepEqual(run.sarif?.runs[0].results.map((x) => x.ruleId), ['story-done-tasks-open']);
    // local-action prints the outputs it was given (its own stub of @actions/core).
    assert.match(run.stdout, /sarif-file.*waymark\.sarif/);
  });

  test('the bundled dist/action.js (what action.yml runs) with the real @actions/core: annotations, job summary, outputs, SARIF', { timeout: 300_000 }, () => {
    const repo = prRepo();
    makePrChanges(repo);
    const run = runBundle(repo, { path: '.', base: 'main', 'fail-on': 'error' });
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(annotations(run.stdout).map((a) => a.join(' ')).sort(), EXPECTED, run.stdout);
    assert.match(run.summary, /^### Waymark: workflow state against `main`/);
    assert.match(run.outputs, /sarif-file<<.*\n.*waymark\.sarif\n/);
    assert.match(run.outputs, /warnings<<.*\n3\n/);
    assert.deepEqual(run.sarif?.runs[0].results.map((x) => x.ruleId), ['story-done-tasks-open']);
    // fail-on warning fails the step on the same change; never does not.
    const strict = runBundle(repo, { base: 'main', 'fail-on': 'warning' });
    assert.equal(strict.code, 1);
    assert.match(strict.stdout, /::error::Waymark found 0 error\(s\) and 3 warning\(s\) \(fail-on: warning\)/);
    assert.equal(runBundle(repo, { base: 'main', 'fail-on': 'never' }).code, 0);
    const bad = runBundle(repo, { base: 'main', 'fail-on': 'sometimes' });
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /::error::Waymark: fail-on: 'sometimes' is not one of error, warning, never\./);
    assert.doesNotMatch(bad.stdout, /\n\s+at /, 'no stack trace');
  });

  test('a PR that changes nothing of state says so in one line; an error fails the step with fail-on error', () => {
    const repo = prRepo();
    write(repo, 'README.md', '# docs only\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'docs');
    const quiet = runBundle(repo, { base: 'main' });
    assert.equal(quiet.code, 0, quiet.stdout);
    assert.match(quiet.summary.split('\n')[0], /^\*\*Waymark:\*\* this change leaves workflow state as it is against `main`/);
    assert.deepEqual(annotations(quiet.stdout), []);
    write(repo, 'plan.md', '---\nworkflow: plan\nstatus: bogus\nsteps: [design, build, ship]\nstepsCompleted: [design, build]\n---\n');
    const failing = runBundle(repo, { base: 'main' });
    assert.equal(failing.code, 1);
    assert.deepEqual(annotations(failing.stdout).map((a) => a.join(' ')), ['error plan.md unknown-status']);
  });

  test('action.yml declares what the code reads and writes: node20, dist/action.js, inputs path/base/fail-on, output sarif-file', () => {
    const meta = parseYaml(fs.readFileSync('action.yml', 'utf8')) as { runs: { using: string; main: string }; inputs: Record<string, { default?: string }>; outputs: Record<string, unknown> };
    assert.deepEqual(meta.runs, { using: 'node20', main: 'dist/action.js' });
    assert.deepEqual(Object.keys(meta.inputs).sort(), ['base', 'fail-on', 'path', 'sarif-file']);
    assert.equal(meta.inputs['fail-on'].default, 'error');
    assert.ok('sarif-file' in meta.outputs);
    const source = fs.readFileSync('src/action/run.ts', 'utf8');
    for (const name of Object.keys(meta.inputs)) assert.match(source, new RegExp(`getInput\\('${name}'\\)`));
    for (const name of Object.keys(meta.outputs)) assert.match(source, new RegExp(`setOutput\\('${name}'`));
  });
});

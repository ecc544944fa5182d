// .pre-commit-hooks.yaml: the manifest the pre-commit framework reads to run Waymark. Checked
// against pre-commit's documented hook schema (https://pre-commit.com/#new-hooks), by the real
// `pre-commit validate-manifest` where it is installed (.ci/run installs Debian's), and its entry
// run as the framework runs it: in a real repository with staged changes.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse as parseYaml } from 'yaml';
import { CLI, ENV, git, tempDir } from './gitHelpers';

const MANIFEST = path.resolve('.pre-commit-hooks.yaml');

/** The keys a hook definition may have, and their types, as pre-commit documents them. */
const HOOK_KEYS: Record<string, 'string' | 'boolean' | 'string[]'> = {
  id: 'string', name: 'string', entry: 'string', language: 'string', files: 'string', exclude: 'string', types: 'string[]', types_or: 'string[]',
  exclude_types: 'string[]', always_run: 'boolean', fail_fast: 'boolean', verbose: 'boolean', pass_filenames: 'boolean', require_serial: 'boolean',
  description: 'string', language_version: 'string', minimum_pre_commit_version: 'string', args: 'string[]', stages: 'string[]', alias: 'string',
};
const REQUIRED = ['id', 'name', 'entry', 'language'];
const LANGUAGES = ['conda', 'coursier', 'dart', 'docker', 'docker_image', 'dotnet', 'fail', 'golang', 'haskell', 'lua', 'node', 'perl', 'python', 'r', 'ruby', 'rust', 'swift', 'pygrep', 'script', 'system'];

function preCommitVersion(): string | undefined {
  const r = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** pre-commit's `files` is a Python regex; the inline (?i) flag is JavaScript's `i`. */
function filesRegex(pattern: string): RegExp {
  return pattern.startsWith('(?i)') ? new RegExp(pattern.slice(4), 'i') : new RegExp(pattern);
}

describe('.pre-commit-hooks.yaml for the pre-commit framework', () => {
  const hooks = parseYaml(fs.readFileSync(MANIFEST, 'utf8')) as Record<string, unknown>[];

  test('matches pre-commit\'s documented hook schema: a list of hooks with id, name, entry, a known language, and only known keys of the right type', () => {
    assert.ok(Array.isArray(hooks) && hooks.length > 0, 'the manifest is a list of hooks');
    for (const h of hooks) {
      for (const k of REQUIRED) assert.equal(typeof h[k], 'string', `hook ${String(h.id)}: ${k} is required`);
      assert.ok(LANGUAGES.includes(h.language as string), `language ${String(h.language)}`);
      for (const [k, v] of Object.entries(h)) {
        const want = HOOK_KEYS[k];
        assert.ok(want, `unknown key ${k}`);
        if (want === 'string[]') assert.ok(Array.isArray(v) && v.every((x) => typeof x === 'string'), `${k} is a list of strings`);
        else assert.equal(typeof v, want, `${k} is a ${want}`);
      }
      if (typeof h.files === 'string') filesRegex(h.files);
    }
    const w = hooks.find((h) => h.id === 'waymark');
    assert.ok(w);
    assert.equal(w.entry, 'waymark hook git pre-commit', 'the same check as the git hook');
    assert.equal(w.language, 'node', 'installed from this repository\'s package.json (bin: waymark)');
    assert.equal(w.pass_filenames, false, 'the check reads the staged changes itself');
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string>; files: string[] };
    assert.equal(pkg.bin.waymark, './dist/cli.js');
    assert.match(pkg.scripts.prepack, /esbuild\.mjs/, 'pre-commit installs with npm pack: prepack builds dist/cli.js');
  });

  test('its files pattern selects exactly what the staged check judges (Markdown, sprint-status.yaml, history JSONL, definitions, config)', () => {
    const w = hooks.find((h) => h.id === 'waymark')!;
    const re = filesRegex(w.files as string);
    for (const yes of ['docs/plan.workflow.md', 'README.MD', 'notes.markdown', '_bmad-output/implementation-artifacts/sprint-status.yaml', 'x/sprint-status.yml', '.waymark/history/plan.md.jsonl', '.waymark/workflows/feature.yaml', '.waymark/config.yml']) assert.ok(re.test(yes), yes);
    for (const no of ['src/index.ts', 'package.json', 'my-sprint-status.yaml', 'logs/history.jsonl', 'x/.waymark/config.yaml', '.waymark/workflows/a/b.yaml']) assert.ok(!re.test(no), no);
  });

  test('pre-commit validate-manifest (the real tool) accepts it', { skip: preCommitVersion() ? false : 'pre-commit is not installed here (apt-get install pre-commit; .ci/run does it): the schema test above covers the manifest' }, () => {
    const r = spawnSync('pre-commit', ['validate-manifest', MANIFEST], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  });

  test('its entry, run as the framework runs it (no file names, in the repository), refuses a bad staged change and passes a good one', () => {
    const repo = tempDir('wm-precommit-');
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'plan.md'), '---\nworkflow: plan\nstatus: in_progress\nsteps: [design, build]\nstepsCompleted: [design]\n---\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const w = hooks.find((h) => h.id === 'waymark')!;
    const args = (w.entry as string).split(' ').slice(1);
    const run = () => spawnSync(process.execPath, [CLI, ...args], { cwd: repo, encoding: 'utf8', env: ENV, input: '' });
    fs.writeFileSync(path.join(repo, 'plan.md'), '---\nworkflow: plan\nstatus: in_progress\nsteps: [design, build]\nstepsCompleted: [design, nonsense]\n---\n');
    git(repo, 'add', 'plan.md');
    const bad = run();
    assert.equal(bad.status, 1, `${bad.stdout}${bad.stderr}`);
    assert.match(bad.stderr, /commit refused/);
    fs.writeFileSync(path.join(repo, 'plan.md'), '---\nworkflow: plan\nstatus: in_progress\nsteps: [design, build]\nstepsCompleted: [design, build]\n---\n');
    git(repo, 'add', 'plan.md');
    const good = run();
    assert.equal(good.status, 0, `${good.stdout}${good.stderr}`);
  });
});

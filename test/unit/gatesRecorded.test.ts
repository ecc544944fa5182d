import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { createStateCore, WaymarkError, checkStagedChanges, gateTextHash, isGatePath } from '../../src/core/index';

const tmp: string[] = [];
after(() => {
  for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
});

const CLI = path.resolve('dist/cli.js');
const DEF = 'steps:\n  - build\n  - id: review\n    gate: true\n  - ship\n';
const PLAN = '---\nworkflow: release\nstatus: in_progress\nstepsCompleted: [build]\ncurrentStep: review\n---\nBody\n';

function workspace(config?: string, files: string[] = ['rel.md']) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-recorded-')));
  tmp.push(root);
  fs.mkdirSync(path.join(root, '.waymark', 'workflows'), { recursive: true });
  fs.writeFileSync(path.join(root, '.waymark', 'workflows', 'release.yaml'), DEF);
  if (config) fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), config);
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), PLAN);
  }
  return { root, file: path.join(root, files[0]), core: createStateCore({ roots: [root], actor: 'agent' }) };
}

function put(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const closed = (re: RegExp) => (e: unknown) => {
  assert.ok(WaymarkError.is(e, 'gate-closed'), String(e));
  assert.match((e as Error).message, re);
  return true;
};

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, WAYMARK_ACTOR: 'agent', WAYMARK_SESSION: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('gates.trust: recorded (the default): only a verdict recorded through Waymark opens a gate', () => {
  test('an empty, touched or hand-written gate file does not open the gate; advance names the command; validate reports gate-unrecorded', async () => {
    const { root, file, core } = workspace();
    const gate = path.join(root, '.waymark/gates/rel/review.gate');
    for (const forged of ['', 'gate: PASS\n', 'gate: PASS\nreviewer: maria\nupdated: 2026-11-21T16:02:00Z\n']) {
      put(gate, forged);
      await assert.rejects(core.advance(file), closed(/gate file review was not recorded through Waymark .*waymark gate pass\|concerns\|waive .*rel\.md review --by NAME/s));
      await assert.rejects(core.completeStep(file, 'review'), closed(/not recorded through Waymark/));
      const shown = await core.gateShow(file, 'review');
      assert.equal(shown.open, false, JSON.stringify(forged));
      assert.equal(shown.recorded, false);
      const problems = (await core.readWorkflow(file)).problems;
      const p = problems.find((x) => x.code === 'gate-unrecorded');
      assert.ok(p, JSON.stringify(problems.map((x) => x.code)));
      assert.equal(p.severity, 'warning');
      assert.equal(p.data?.fix, 'recordGate');
      assert.equal(p.data?.step, 'review');
      assert.match(p.message, /waymark gate pass rel\.md review --by NAME/);
      // Its quick fix is the gate command, never a write of the gate file.
      await assert.rejects(core.applyFix(file, p), (e: unknown) => WaymarkError.is(e, 'usage') && /waymark gate pass\|concerns\|waive .*rel\.md review --by NAME/.test((e as Error).message));
    }
    // The CLI says the same, with the gate-closed exit code.
    const r = cli(root, 'advance', 'rel.md');
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /not recorded through Waymark.*waymark gate pass\|concerns\|waive .*rel\.md review --by NAME/s);
    assert.equal(fs.readFileSync(file, 'utf8'), PLAN, 'refusals write nothing');
  });

  test('a recorded verdict carries gate, verdict, reviewer and time, its hash is in the history line, and it opens the gate', async () => {
    const { root, file, core } = workspace();
    put(path.join(root, '.waymark/gates/rel/review.gate'), '');
    const g = await core.gatePass(file, 'review', { by: 'maria', reason: 'looks right' });
    assert.equal(g.open, true);
    assert.equal(g.recorded, true);
    assert.equal(g.reviewer, 'maria');
    assert.ok(g.updated);
    const text = fs.readFileSync(g.file, 'utf8');
    const line = (await core.history(file)).at(-1)!;
    assert.equal(line.operation, 'gate-pass');
    assert.equal(line.detail?.gateSha256, gateTextHash(text));
    assert.equal(line.detail?.reviewer, 'maria');
    assert.equal(line.detail?.updated, g.updated);
    assert.equal((await core.readWorkflow(file)).problems.filter((p) => p.code.startsWith('gate-')).length, 0);
    // A CRLF checkout of the same verdict is the same verdict.
    fs.writeFileSync(g.file, text.replace(/\n/g, '\r\n'));
    assert.equal((await core.gateShow(file, 'review')).open, true);
    fs.writeFileSync(g.file, text);
    const r = await core.advance(file);
    assert.deepEqual(r.after.stepsCompleted, ['build', 'review']);
  });

  test('a recorded verdict changed by hand, or an older verdict copied back over a FAIL, opens nothing', async () => {
    const { file, core } = workspace();
    const pass = await core.gatePass(file, 'review', { by: 'maria' });
    const passText = fs.readFileSync(pass.file, 'utf8');
    fs.writeFileSync(pass.file, passText.replace('reviewer: maria', 'reviewer: boss'));
    assert.equal((await core.gateShow(file, 'review')).open, false, 'edited by hand');
    await core.gateFail(file, 'review', { by: 'maria', reason: 'tests red' });
    fs.writeFileSync(pass.file, passText);
    const back = await core.gateShow(file, 'review');
    assert.equal(back.verdict, 'PASS');
    assert.equal(back.open, false, 'the last recorded verdict is FAIL');
    assert.match(back.unrecorded ?? '', /not the verdict recorded last/);
    await assert.rejects(core.advance(file), closed(/not recorded through Waymark/));
    // A hand-written FAIL closes the gate either way: no gate-unrecorded noise for it.
    fs.writeFileSync(pass.file, 'gate: FAIL\n');
    const f = await core.gateShow(file, 'review');
    assert.equal(f.open, false);
    assert.equal(f.unrecorded, undefined);
  });

  test('gates.trust: file keeps the plain rule: an empty or hand-written gate file opens the gate', async () => {
    const { root, file, core } = workspace('gates:\n  trust: file\n');
    put(path.join(root, '.waymark/gates/rel/review.gate'), '');
    const g = await core.gateShow(file, 'review');
    assert.equal(g.open, true);
    assert.equal(g.recorded, undefined);
    assert.deepEqual((await core.readWorkflow(file)).problems.filter((p) => p.code.startsWith('gate-')), []);
    await core.advance(file);
  });
});

describe('gate verdicts are keyed by the workflow file\'s path', () => {
  test('a PASS on workflows/auth/plan.md does not open the gate of workflows/billing/plan.md', async () => {
    for (const config of [undefined, "gates:\n  path: '.waymark/gates/{workflow}/{file}/{gate}.gate'\n"]) {
      const { root, core } = workspace(config, ['workflows/auth/plan.md', 'workflows/billing/plan.md']);
      const auth = path.join(root, 'workflows/auth/plan.md');
      const billing = path.join(root, 'workflows/billing/plan.md');
      const g = await core.gatePass(auth, 'review', { by: 'maria' });
      assert.equal(path.relative(root, g.file).split(path.sep).join('/'), config ? '.waymark/gates/release/workflows/auth/plan/review.gate' : '.waymark/gates/workflows/auth/plan/review.gate');
      const other = await core.gateShow(billing, 'review');
      assert.equal(other.exists, false, String(config));
      await assert.rejects(core.advance(billing), closed(/has no verdict yet/));
      await core.advance(auth);
    }
  });

  test('a verdict at the old location (keyed by base name) is read by its own file only, and moves on its next verdict', async () => {
    const { root, core } = workspace(undefined, ['workflows/auth/plan.md', 'workflows/billing/plan.md']);
    const auth = path.join(root, 'workflows/auth/plan.md');
    const billing = path.join(root, 'workflows/billing/plan.md');
    // What an earlier Waymark wrote: the gate file under the base name and its history line (no hash yet).
    const legacy = path.join(root, '.waymark/gates/plan/review.gate');
    const time = '2026-11-20T10:00:00.000Z';
    put(legacy, `gate: PASS\nreviewer: maria\nupdated: ${time}\nhistory:\n  - gate: PASS\n    reviewer: maria\n    updated: ${time}\n`);
    put(path.join(root, '.waymark/history/workflows/auth/plan.md.jsonl'), JSON.stringify({ seq: 1, time: '2026-11-20T10:00:00.004Z', actor: 'cli', operation: 'gate-pass', file: auth, from: {}, to: {}, detail: { step: 'review', gate: 'review', gateFile: legacy, verdict: 'PASS', previous: null, by: 'maria' } }) + '\n');
    const mine = await core.gateShow(auth, 'review');
    assert.equal(mine.file, legacy);
    assert.equal(mine.open, true, 'recorded by the old line: verdict, reviewer and time match');
    const theirs = await core.gateShow(billing, 'review');
    assert.equal(theirs.open, false, 'the same-named file of another folder does not share it');
    assert.match(theirs.unrecorded ?? '', /no verdict for it is recorded/);
    // The next verdict moves it to the file's own path, keeping its history list.
    const next = await core.gateConcerns(auth, 'review', { by: 'tom', reason: 'docs thin' });
    assert.equal(next.file, path.join(root, '.waymark/gates/workflows/auth/plan/review.gate'));
    assert.equal(fs.existsSync(legacy), false, 'the old copy is gone');
    assert.deepEqual(next.history.map((h) => [h.gate, h.reviewer]), [['PASS', 'maria'], ['CONCERNS', 'tom']]);
    assert.equal(next.open, true);
    assert.equal((await core.history(auth)).at(-1)!.detail?.movedFrom, '.waymark/gates/plan/review.gate');
    // Under the plain rule an old-location file another file wrote is not moved by this one.
    put(legacy, 'gate: PASS\n');
    await core.gatePass(billing, 'review', { by: 'ann' });
    assert.equal(fs.readFileSync(legacy, 'utf8'), 'gate: PASS\n', 'not billing\'s: left where it is');
  });

  test('isGatePath knows the gate files of a workspace, by its gates.path, the old location and real paths', () => {
    const { root } = workspace();
    assert.equal(isGatePath(root, path.join(root, '.waymark/gates/workflows/auth/plan/review.gate')), true);
    assert.equal(isGatePath(root, path.join(root, '.waymark/gates/plan/review.gate')), true);
    assert.equal(isGatePath(root, path.join(root, '.waymark/gates/plan/review.md')), false);
    assert.equal(isGatePath(root, path.join(root, 'docs/review.gate')), false);
    assert.equal(isGatePath(root, path.join(os.tmpdir(), '.waymark/gates/a/b.gate')), false);
    fs.mkdirSync(path.join(root, '.waymark/gates/a'), { recursive: true });
    fs.symlinkSync(path.join(root, '.waymark/gates/a'), path.join(root, 'alias'));
    assert.equal(isGatePath(root, path.join(root, 'alias/review.gate')), true, 'a link into the gates folder');
    fs.writeFileSync(path.join(root, '.waymark/config.yaml'), "gates:\n  path: 'qa/{workflow}/{path}/{gate}.verdict'\n");
    assert.equal(isGatePath(root, path.join(root, 'qa/release/docs/plan/review.verdict')), true);
    assert.equal(isGatePath(root, path.join(root, 'qa/release/review.txt')), false);
  });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1' } });
}

describe('waymark hook git pre-commit: a staged gate file must be a recorded verdict', () => {
  test('a touched or hand-written gate file is refused; a recorded one staged with its history passes', async () => {
    const { root, file, core } = workspace();
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'start');
    const gate = path.join(root, '.waymark/gates/rel/review.gate');
    for (const forged of ['', 'gate: PASS\n']) {
      put(gate, forged);
      git(root, 'add', '-A');
      const r = await checkStagedChanges(root);
      assert.deepEqual(r.refused.map((x) => [x.rel, x.problems[0].code]), [['.waymark/gates/rel/review.gate', 'gate-unrecorded']], JSON.stringify(forged));
      assert.match(r.refused[0].problems[0].fix ?? '', /waymark gate pass\|concerns\|fail\|waive FILE STEP --by NAME/);
      // Through the CLI: exit 1 with the fix.
      const c = cli(root, 'hook', 'git', 'pre-commit');
      assert.equal(c.code, 1);
      assert.match(c.stderr, /review\.gate: error gate-unrecorded: .*not recorded through Waymark/);
    }
    // Loosening the trust in the same commit does not help: the committed config still says recorded,
    // and the loosening itself is refused while review waits for its verdict.
    put(path.join(root, '.waymark/config.yaml'), 'gates:\n  trust: file\n');
    git(root, 'add', '-A');
    assert.deepEqual((await checkStagedChanges(root)).refused.map((x) => [x.rel, x.problems[0].code]).sort(), [['.waymark/config.yaml', 'gate-removed'], ['.waymark/gates/rel/review.gate', 'gate-unrecorded']]);
    fs.rmSync(path.join(root, '.waymark/config.yaml'));
    git(root, 'add', '-A');
    // Recorded through Waymark: the gate file and its history line.
    fs.rmSync(gate);
    await core.gatePass(file, 'review', { by: 'maria' });
    git(root, 'add', '-A');
    assert.deepEqual((await checkStagedChanges(root)).refused, []);
    git(root, 'commit', '-q', '-m', 'verdict');
    // Changed by hand afterwards: refused again; a gate file staged without its history line too.
    fs.appendFileSync(gate, '# approved\n');
    git(root, 'add', '-A');
    assert.equal((await checkStagedChanges(root)).refused[0]?.problems[0].code, 'gate-unrecorded');
    git(root, 'checkout', 'HEAD', '--', '.');
    await core.gateFail(file, 'review', { by: 'maria' });
    git(root, 'add', '.waymark/gates');
    assert.equal((await checkStagedChanges(root)).refused[0]?.problems[0].code, 'gate-unrecorded', 'its history line is not staged');
    git(root, 'add', '-A');
    assert.deepEqual((await checkStagedChanges(root)).refused, []);
  });

  test('with gates.trust: file committed, hand-written gate files pass', async () => {
    const { root } = workspace('gates:\n  trust: file\n');
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'start');
    put(path.join(root, '.waymark/gates/rel/review.gate'), '');
    git(root, 'add', '-A');
    assert.deepEqual((await checkStagedChanges(root)).refused, []);
  });
});

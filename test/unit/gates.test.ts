import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createStateCore, WaymarkError, parseGateText, renderGateUpdate } from '../../src/core/index';

const tmp: string[] = [];
after(() => {
  for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
});

function gatedWorkspace(now?: Date) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-gates-'));
  tmp.push(root);
  fs.mkdirSync(path.join(root, '.waymark', 'workflows'), { recursive: true });
  fs.writeFileSync(path.join(root, '.waymark', 'workflows', 'release.yaml'), 'steps:\n  - build\n  - id: review\n    gate: true\n  - id: ship\n    gate: sign-off\n');
  const file = path.join(root, 'rel.md');
  fs.writeFileSync(file, '---\nworkflow: release\nstatus: in_progress\nstepsCompleted: [build]\ncurrentStep: review\n---\nBody\n');
  const clock = now ? { now: () => now } : undefined;
  const core = createStateCore({ roots: [root], actor: 'gatekeeper', clock });
  return { root, file, core };
}

const reasonOf = (reason: string, re?: RegExp) => (e: unknown) => {
  assert.ok(WaymarkError.is(e, reason as never), `expected ${reason}, got ${String(e)}`);
  if (re) assert.match((e as Error).message, re);
  return true;
};

describe('gates', () => {
  test('advance is refused while the gate is missing or FAIL, allowed after PASS', async () => {
    const { root, file, core } = gatedWorkspace();
    const original = fs.readFileSync(file, 'utf8');
    await assert.rejects(core.advance(file), reasonOf('gate-closed', /step review is gated and its gate review has no verdict yet/));
    const failed = await core.gateFail(file, 'review', { reason: 'tests red', by: 'ann' });
    assert.equal(failed.verdict, 'FAIL');
    assert.equal(failed.open, false);
    await assert.rejects(core.advance(file), reasonOf('gate-closed', /is FAIL \(tests red\)/));
    await assert.rejects(core.completeStep(file, 'review'), reasonOf('gate-closed'));
    assert.equal(fs.readFileSync(file, 'utf8'), original, 'refusals write nothing');
    const events: string[] = [];
    core.onDidChange((e) => events.push(...e.changes.map((c) => `${path.basename(c.file)}:${c.state?.gates.review?.verdict}`)));
    const passed = await core.gatePass(file, 'review', { by: 'bob', reason: 'green now' });
    assert.equal(passed.open, true);
    assert.deepEqual(events, ['rel.md:PASS'], 'listeners hear about the new verdict');
    const r = await core.advance(file);
    assert.deepEqual(r.after.stepsCompleted, ['build', 'review']);
    assert.equal(r.after.currentStep, 'ship');
    // The gate file: latest verdict on top, append-only history below.
    const gateFile = path.join(root, '.waymark', 'gates', 'rel', 'review.gate');
    const g = parseGateText(fs.readFileSync(gateFile, 'utf8'), gateFile, 'review');
    assert.equal(g.verdict, 'PASS');
    assert.equal(g.reviewer, 'bob');
    assert.deepEqual(g.history.map((h) => [h.gate, h.reviewer, h.reason]), [['FAIL', 'ann', 'tests red'], ['PASS', 'bob', 'green now']]);
    const hist = await core.history(file);
    assert.deepEqual(hist.map((h) => h.operation), ['gate-fail', 'gate-pass', 'advance']);
    assert.equal(hist[0].detail?.verdict, 'FAIL');
    assert.equal(hist[2].detail?.gate && (hist[2].detail.gate as { verdict: string }).verdict, 'PASS');
  });

  test('a named gate (gate: sign-off) is found by step id; CONCERNS opens it', async () => {
    const { root, file, core } = gatedWorkspace();
    await core.gatePass(file, 'review', {});
    await core.advance(file);
    await assert.rejects(core.advance(file), reasonOf('gate-closed', /gate sign-off/));
    const g = await core.gateConcerns(file, 'ship', { reason: 'docs thin', by: 'cy' });
    assert.equal(g.name, 'sign-off');
    assert.ok(fs.existsSync(path.join(root, '.waymark', 'gates', 'rel', 'sign-off.gate')));
    const r = await core.advance(file);
    assert.equal(r.after.status, 'completed');
  });

  test('waive needs reason and who; an expired waiver keeps the gate closed', async () => {
    const { file, core } = gatedWorkspace(new Date('2026-06-01T00:00:00Z'));
    await assert.rejects(core.gateWaive(file, 'review', { reason: '', by: 'x' }), reasonOf('usage', /needs a reason and who approved it/));
    await assert.rejects(core.gateWaive(file, 'review', { reason: 'r', by: 'x', expires: 'someday' }), reasonOf('usage', /not a date/));
    const expired = await core.gateWaive(file, 'review', { reason: 'hotfix', by: 'cto', expires: '2026-01-01' });
    assert.equal(expired.verdict, 'WAIVED');
    assert.equal(expired.open, false);
    await assert.rejects(core.advance(file), reasonOf('gate-closed'));
    const ok = await core.gateWaive(file, 'review', { reason: 'hotfix', by: 'cto', expires: '2027-01-01' });
    assert.deepEqual(ok.waiver, { reason: 'hotfix', approved_by: 'cto', expires: '2027-01-01' });
    assert.equal(ok.open, true);
    await core.advance(file);
    const shown = await core.gateShow(file, 'review');
    assert.equal(shown.history.length, 2);
  });

  test('a gate file keeps its comments and earlier history byte for byte', () => {
    const existing = '# reviewed by the release team\ngate: FAIL\nreviewer: ann\nupdated: 2026-01-01\nhistory:\n  - gate: FAIL # first try\n    reviewer: ann\n    updated: 2026-01-01\n';
    const next = renderGateUpdate(existing, { verdict: 'PASS', reviewer: 'bob', updated: '2026-02-02T00:00:00.000Z' });
    assert.ok(next.startsWith('# reviewed by the release team\n'));
    assert.ok(next.includes('  - gate: FAIL # first try\n    reviewer: ann\n    updated: 2026-01-01\n  - gate: PASS\n'), next);
    const g = parseGateText(next, 'x', 'x');
    assert.equal(g.verdict, 'PASS');
    assert.equal(g.history.length, 2);
    assert.throws(() => renderGateUpdate('gate: [', { verdict: 'PASS', updated: 'now' }), (e: unknown) => WaymarkError.is(e, 'invalid'));
    assert.throws(() => renderGateUpdate('gate: FAIL\nhistory: nope\n', { verdict: 'PASS', updated: 'now' }), (e: unknown) => WaymarkError.is(e, 'invalid'));
    // An empty gate file (counts as PASS) gets a proper body.
    assert.equal(parseGateText(renderGateUpdate('', { verdict: 'FAIL', updated: 'now' }), 'x', 'x').verdict, 'FAIL');
  });

  test('gates are per workflow FILE by default: a sibling of the same workflow id and a delegated child do not share them', async () => {
    const { root, file, core } = gatedWorkspace();
    const sibling = path.join(root, 'rel2.md');
    fs.writeFileSync(sibling, fs.readFileSync(file, 'utf8'));
    await core.gatePass(file, 'review', { by: 'ann' });
    assert.ok(fs.existsSync(path.join(root, '.waymark', 'gates', 'rel', 'review.gate')));
    assert.equal((await core.gateShow(file, 'review')).verdict, 'PASS');
    const other = await core.gateShow(sibling, 'review');
    assert.equal(other.exists, false, 'the sibling file has its own (missing) gate');
    await assert.rejects(core.advance(sibling), reasonOf('gate-closed'));
    const d = await core.delegate(file, { agent: 'helper' });
    const child = (await core.parseText(d.file, fs.readFileSync(d.file, 'utf8'))).state!;
    assert.equal(child.gates.review?.exists, false, "a delegated child does not show its parent's gates");
    assert.equal((await core.parseText(file, fs.readFileSync(file, 'utf8'))).state!.gates.review?.verdict, 'PASS');
    await core.advance(file);
  });

  test('gates.path {workflow} shares gates across the files of one workflow id (opt-in)', async () => {
    const { root, file } = gatedWorkspace();
    fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), "gates:\n  path: '.waymark/gates/{workflow}/{gate}.gate'\n");
    const core = createStateCore({ roots: [root] });
    const sibling = path.join(root, 'rel2.md');
    fs.writeFileSync(sibling, fs.readFileSync(file, 'utf8'));
    await core.gatePass(file, 'review', { by: 'ann' });
    assert.ok(fs.existsSync(path.join(root, '.waymark', 'gates', 'release', 'review.gate')));
    assert.equal((await core.gateShow(sibling, 'review')).verdict, 'PASS');
  });
});

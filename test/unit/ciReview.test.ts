// Waymark in CI and pull requests: validate --format sarif|github, --changed-since, and
// diff-state --format markdown|json, against real git repositories in temp folders.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { git } from './gitHelpers';
import { cli, ok, write, prRepo, makePrChanges, IMPL } from './ciHelpers';
import { escapeData, escapeProperty, mdText, mdCode } from '../../src/cli/ciFormats';

describe('validate for CI: --format sarif|github and --changed-since (real git)', () => {
  test('--format github prints one workflow command per problem of the changed files, paths from the repository top', () => {
    const root = prRepo();
    makePrChanges(root);
    const r = cli(root, ['validate', '--changed-since', 'main', '--format', 'github']);
    const lines = r.stdout.trim().split('\n');
    const commands = lines.filter((l) => l.startsWith('::'));
    assert.equal(commands.length, 1, r.stdout);
    assert.match(commands[0], /^::warning file=_bmad-output\/implementation-artifacts\/1-1-login\.md,line=\d+,col=\d+,endLine=\d+(,endColumn=\d+)?,title=story-done-tasks-open::.+/);
    assert.match(lines[lines.length - 1], /^Waymark: \d+ file\(s\)/);
    assert.equal(r.code, 0, 'warnings only: exit 0');
  });

  test('--changed-since leaves out the problems of files the branch did not change', () => {
    const root = prRepo();
    // On main, 1-2 drifts (a warning). A branch that only touches plan.md reports nothing of it.
    write(root, 'plan.md', '---\nworkflow: plan\nstatus: bogus-status\nsteps: [design, build, ship]\nstepsCompleted: [design, build]\n---\n# Plan\n');
    const whole = JSON.parse(cli(root, ['validate', '--json']).stdout) as { problems: { file: string; code: string }[] };
    assert.ok(whole.problems.some((p) => p.code === 'story-status-drift'), JSON.stringify(whole));
    const r = cli(root, ['validate', '--changed-since', 'main', '--json']);
    const only = JSON.parse(r.stdout) as { files: number; problems: { file: string; code: string }[] };
    assert.deepEqual(only.problems.map((p) => `${p.file} ${p.code}`), ['plan.md unknown-status']);
    assert.equal(only.files, 1);
    assert.equal(r.code, 1);
    // Untracked files count as changed too.
    write(root, 'notes/new.workflow.md', '---\nworkflow: new\nstatus: bogus\n---\n');
    const j = JSON.parse(cli(root, ['validate', '--changed-since', 'main', '--json']).stdout) as { problems: { file: string }[] };
    assert.ok(j.problems.some((p) => p.file === 'notes/new.workflow.md'), JSON.stringify(j));
  });

  test('--changed-since keeps the project-level checks of the changed files (dependsOn targets)', () => {
    const root = prRepo();
    write(root, 'next.workflow.md', '---\nworkflow: next\nstatus: created\ndependsOn: [no-such-workflow]\n---\n');
    const j = JSON.parse(cli(root, ['validate', '--changed-since', 'main', '--json']).stdout) as { problems: { file: string; code: string }[] };
    assert.deepEqual(j.problems.filter((p) => p.code.startsWith('depends-')).map((p) => `${p.file} ${p.code}`), ['next.workflow.md depends-unknown']);
    assert.ok(j.problems.every((p) => p.file === 'next.workflow.md'), JSON.stringify(j));
  });

  test('--format sarif: SARIF 2.1.0 with the registry as rules, 1-based regions, %SRCROOT%-relative URIs', () => {
    const root = prRepo();
    write(root, 'docs/a b.workflow.md', '---\nworkflow: ab\nstatus: in_progress\nsteps: [one, two]\nstepsCompleted: [one, tow]\n---\n');
    const r = cli(path.join(root), ['validate', '--format', 'sarif']);
    const s = JSON.parse(r.stdout) as { version: string; runs: { tool: { driver: { rules: { id: string; help: { text: string } }[] } }; originalUriBaseIds: Record<string, { uri: string }>; results: { ruleId: string; ruleIndex: number; level: string; message: { text: string }; locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number; startColumn: number; endLine: number; endColumn: number } } }[] }[] }[] };
    assert.equal(s.version, '2.1.0');
    const run = s.runs[0];
    const res = run.results.find((x) => x.ruleId === 'step-unknown');
    assert.ok(res, r.stdout);
    assert.equal(run.tool.driver.rules[res.ruleIndex].id, 'step-unknown');
    assert.match(run.tool.driver.rules[res.ruleIndex].help.text, /Quick fix: .*Remove the entry/);
    const loc = res.locations[0].physicalLocation;
    assert.deepEqual(loc.artifactLocation, { uri: 'docs/a%20b.workflow.md', uriBaseId: '%SRCROOT%' });
    // `tow` is on line 5 (1-based), at column 27 (after "stepsCompleted: [one, ").
    assert.deepEqual(loc.region, { startLine: 5, startColumn: 23, endLine: 5, endColumn: 26 });
    assert.equal(run.originalUriBaseIds['%SRCROOT%'].uri, `file://${root.split('/').map(encodeURIComponent).join('/')}/`);
    assert.equal(res.level, 'error');
  });

  test('an unknown --format is a usage error (exit 2) naming the formats', () => {
    const root = prRepo();
    const r = cli(root, ['validate', '--format', 'xml']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--format xml is not a format: use one of text, json, sarif, github/);
    const d = cli(root, ['diff-state', 'main', '--format', 'html']);
    assert.equal(d.code, 2);
    assert.match(d.stderr, /markdown or json/);
    const u = cli(root, ['validate', '--changed-since', 'no-such-branch']);
    assert.equal(u.code, 2, u.stderr);
    assert.match(u.stderr, /Unknown ref 'no-such-branch'/);
  });

  test('workflow-command escaping follows GitHub: % CR LF in data; also : and , in properties', () => {
    assert.equal(escapeData('50% done\r\nnext: a, b'), '50%25 done%0D%0Anext: a, b');
    assert.equal(escapeProperty('dir:x,y/100%.md\n'), 'dir%3Ax%2Cy/100%25.md%0A');
  });
});

describe('diff-state --format markdown|json: what a pull request changes in workflow state (real git)', () => {
  test('a PR that (a) marks a story done with open tasks, (b) adds a gate by hand, (c) rewinds steps, (d) fixes a drift gets exactly those', () => {
    const root = prRepo();
    makePrChanges(root);
    const r = cli(root, ['diff-state', 'main', '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const j = JSON.parse(r.stdout) as { moved: { id: string; from?: string; to?: string; rewind: boolean; by: string[]; stepsRewound: string[] }[]; gates: { id: string; step: string; change: string; reviewer?: string; unrecorded?: boolean; file: string }[]; introduced: { code: string; file: string }[]; fixed: { code: string; file: string }[] };
    const by = new Map(j.moved.map((m) => [m.id, m]));
    assert.equal(by.get('story 1-1-login')?.from, 'in-progress');
    assert.equal(by.get('story 1-1-login')?.to, 'done');
    assert.deepEqual(by.get('story 1-1-login')?.by, ['dev-agent']);
    assert.equal(by.get('plan.md')?.rewind, true);
    assert.deepEqual(by.get('plan.md')?.stepsRewound, ['build']);
    assert.deepEqual(by.get('plan.md')?.by, []);
    assert.equal(by.get('story 1-2-logout')?.rewind, false);
    // A gate file written by hand is not a recorded verdict: it does not open the gate (gates.trust: recorded).
    assert.deepEqual(j.gates.map((g) => [g.id, g.step, g.change, g.reviewer ?? null, g.unrecorded ?? false, g.file]), [['release.md', 'approve', 'changed', null, true, '.waymark/gates/release/approve.gate']]);
    assert.deepEqual(j.introduced.map((p) => `${p.file} ${p.code}`), [`${IMPL}/1-1-login.md story-done-tasks-open`, 'release.md gate-unrecorded']);
    // The drift is reported at both of its ends: the story file and its ledger entry.
    assert.deepEqual(j.fixed.map((p) => `${p.file} ${p.code}`), [`${IMPL}/1-2-logout.md story-status-drift`, `${IMPL}/sprint-status.yaml story-status-drift`]);

    const md = cli(root, ['diff-state', 'main', '--format', 'markdown']).stdout;
    assert.match(md, /^### Waymark: workflow state against `main`/);
    assert.match(md, /- story 1-1-login: in-progress → done by dev-agent\n/);
    assert.match(md, /- story 1-2-logout: review; story file in-progress → review \(no history line: edited by hand\)\n/);
    assert.match(md, /- ⚠️ \*\*rewind\*\* `plan\.md`: .*un-did build \(no history line: edited by hand\)/);
    assert.match(md, /- `release\.md` step approve: gate approve written by hand \(none → PASS\) ⚠️ not a recorded verdict: it does not open the gate/);
    assert.match(md, /\*\*Problems introduced\*\*\n\n- warning `story-done-tasks-open`/);
    assert.match(md, /\*\*Problems fixed\*\*\n\n- `story-status-drift`/);
  });

  test('a gate passed with waymark gate pass names its reviewer; a PR that changes nothing of state says so in one line', () => {
    const root = prRepo();
    const none = cli(root, ['diff-state', 'main', '--format', 'markdown']);
    assert.equal(none.code, 0);
    assert.equal(none.stdout.trim().split('\n').length, 1);
    assert.match(none.stdout, /leaves workflow state as it is/);
    write(root, 'README.md', '# not state\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'docs');
    assert.match(cli(root, ['diff-state', 'main', '--format', 'markdown']).stdout, /^\*\*Waymark:\*\* this change leaves workflow state as it is/);
    ok(root, ['gate', 'pass', 'release.md', 'approve', '--by', 'qa-lead']);
    const md = cli(root, ['diff-state', 'main', '--format', 'markdown']).stdout;
    assert.match(md, /gate approve opened \(none → PASS\) by reviewer qa-lead/);
    // The old --json view is unchanged.
    const old = JSON.parse(cli(root, ['diff-state', 'main', '--json']).stdout) as { changes: unknown[] };
    assert.ok(Array.isArray(old.changes));
  });
});

describe('the PR summary renders what files say as text, never as markup', () => {
  test('Markdown and HTML in names, statuses and messages are escaped; code spans hold any backticks', () => {
    assert.equal(mdText('<img src=x onerror=alert(1)> **bold** [link](http://x) a|b\nnext'), '\\<img src=x onerror=alert(1)\\> \\*\\*bold\\*\\* \\[link\\](http://x) a\\|b next');
    assert.equal(mdCode('plan.md'), '`plan.md`');
    assert.equal(mdCode('a`b'), '``a`b``');
    assert.equal(mdCode('`x`'), '`` `x` ``');
  });

  test('a workflow file and status written to break the summary show as written', () => {
    const root = prRepo();
    write(root, 'we`ird <b>.workflow.md', '---\nworkflow: weird\nstatus: in_progress\nsteps: [a, b]\nstepsCompleted: [a]\n---\n');
    const md = cli(root, ['diff-state', 'main', '--format', 'markdown']).stdout;
    assert.match(md, /- ``we`ird <b>\.workflow\.md``: new, in\\_progress; completed a/);
  });
});

// validate --format sarif checked by Microsoft's SARIF multitool (`validate` verb: the SARIF 2.1.0
// JSON schema plus its SARIF1xxx/SARIF2xxx rules), from the npm registry, run offline.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { git, tempDir } from './gitHelpers';
import { cli, prRepo, makePrChanges } from './ciHelpers';

const MULTITOOL = path.resolve('node_modules/@microsoft/sarif-multitool/bin.js');
const PLATFORM = path.resolve(`node_modules/@microsoft/sarif-multitool-${process.platform === 'win32' ? 'win32' : process.platform}`);
const missing = !fs.existsSync(MULTITOOL) || !fs.existsSync(PLATFORM) ? `the SARIF multitool for ${process.platform} is not installed (npm install brings @microsoft/sarif-multitool)` : false;

interface Finding {
  ruleId: string;
  level?: string;
  message: { id?: string; text?: string; arguments?: string[] };
}

/** Runs `sarif-multitool validate` on `file`; returns what it found (its own SARIF log's results). */
function multitool(file: string): Finding[] {
  const out = `${file}.validation.sarif`;
  const r = spawnSync(process.execPath, [MULTITOOL, 'validate', file, '--output', out], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `multitool failed: ${r.stdout}${r.stderr}`);
  const log = JSON.parse(fs.readFileSync(out, 'utf8')) as { runs: { results?: Finding[] }[] };
  return log.runs.flatMap((run) => run.results ?? []);
}

describe('SARIF from validate, checked by the SARIF multitool (offline)', { skip: missing, timeout: 400_000 }, () => {
  test('the multitool finds errors in a broken log (so a clean answer means something)', { timeout: 300_000 }, () => {
    const dir = tempDir('wm-sarif-');
    const file = path.join(dir, 'broken.sarif');
    fs.writeFileSync(file, JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x', rules: [] } }, results: [{ ruleId: 'r', ruleIndex: 3, message: { text: 'm' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'a.md' }, region: { startLine: 0 } } }] }] }] }));
    const found = multitool(file);
    assert.ok(found.some((f) => f.level === 'error'), JSON.stringify(found));
  });

  test('a pull request with problems of every severity, quick fixes and awkward file names validates with no finding', { timeout: 400_000 }, () => {
    const root = prRepo();
    makePrChanges(root);
    fs.mkdirSync(path.join(root, 'docs', 'ünï cödé %20'), { recursive: true });
    fs.writeFileSync(path.join(root, 'docs', 'ünï cödé %20', 'x#y.workflow.md'), '---\nworkflow: ab\nstatus: bogus\nsteps: [one, two]\nstepsCompleted: [one, tow, one]\nlastStep: one\nwrkflow: x\nttl: soon\n---\n');
    fs.writeFileSync(path.join(root, 'broken.workflow.md'), '---\nworkflow: [unclosed\n---\n');
    fs.writeFileSync(path.join(root, 'loose.workflow.md'), '---\nworkflow: loose\nstatus: in_progress\n---\n');
    git(root, 'add', '-A');
    for (const args of [['validate', '--format', 'sarif'], ['validate', '--changed-since', 'main', '--format', 'sarif']]) {
      const r = cli(root, args);
      const log = JSON.parse(r.stdout) as { runs: { results: { level: string; ruleId: string }[] }[] };
      const levels = new Set(log.runs[0].results.map((x) => x.level));
      if (args.length === 3) for (const l of ['error', 'warning', 'note']) assert.ok(levels.has(l), `no ${l} result: ${r.stdout.slice(0, 400)}`);
      assert.ok(log.runs[0].results.some((x) => x.ruleId === 'yaml-syntax'));
      const file = path.join(tempDir('wm-sarif-'), 'waymark.sarif');
      fs.writeFileSync(file, r.stdout);
      assert.deepEqual(multitool(file), [], `multitool findings for ${args.join(' ')}`);
    }
  });
});

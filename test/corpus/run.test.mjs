// The corpus runner survives whatever the CLI or a project does: a stack trace, a hang, junk on
// stdout, an unreadable ledger. Each is reported per project and the run goes on.
// Run: node --test test/corpus/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const RUN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'corpus', 'run.mjs');
const made = [];
process.on('exit', () => { for (const d of made) fs.rmSync(d, { recursive: true, force: true }); });

function tmp() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-run-'));
  made.push(d);
  return d;
}

// A stand-in CLI whose behaviour depends on the project folder's name.
const FAKE = `
const [verb] = process.argv.slice(2);
const name = require('path').basename(process.cwd());
if (name === 'hangs') setTimeout(() => {}, 60000);
else if (name === 'throws' && verb === 'sprint') { throw new Error('boom'); }
else if (name === 'junk' && verb === 'status') process.stdout.write('not json');
else if (verb === 'validate') process.stdout.write(JSON.stringify({ problems: [
  { file: '_bmad-output/implementation-artifacts/1-1-lantern.md', line: 3, severity: 'warning', code: 'story-status-drift', data: { key: '1-1-lantern' } },
  { file: '_bmad-output/planning-artifacts/prd.md', line: 2, severity: 'error', code: 'unknown-status', message: 'x' } ] }));
else if (verb === 'status') process.stdout.write(JSON.stringify({ workflows: [{ file: '_bmad-output/planning-artifacts/prd.md' }] }));
else if (verb === 'next') process.stdout.write(JSON.stringify({ next: null }));
else process.stdout.write(JSON.stringify({ epics: [{ stories: [{ key: '1-1-lantern' }] }] }));
`;

function bmadProject(dir) {
  const w = (rel, text) => { fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true }); fs.writeFileSync(path.join(dir, rel), text); };
  w('_bmad/bmm/config.yaml', "implementation_artifacts: '{project-root}/_bmad-output/implementation-artifacts'\n");
  w('_bmad-output/implementation-artifacts/sprint-status.yaml', 'development_status:\n  1-1-lantern: done\n  1-2-wick: done\n');
  w('_bmad-output/implementation-artifacts/1-1-lantern.md', '# Story 1.1\n\nStatus: review\n');
  w('_bmad-output/implementation-artifacts/1-2-wick.md', '# Story 1.2\n\nStatus: done\n');
  w('_bmad-output/planning-artifacts/prd.md', '---\nstepsCompleted: [1]\nworkflowType: prd\nstatus: approved\n---\n');
}

test('measures drift, clean stories, errors and artifacts, and reports hangs, stack traces and junk without stopping', () => {
  const root = tmp();
  const cli = path.join(root, 'fake-cli.cjs');
  fs.writeFileSync(cli, FAKE);
  const dir = path.join(root, 'corpus');
  for (const name of ['fine', 'hangs', 'throws', 'junk']) bmadProject(path.join(dir, name));
  fs.mkdirSync(path.join(dir, 'empty'));
  fs.mkdirSync(path.join(dir, 'badledger', '_bmad-output', 'implementation-artifacts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'badledger', '_bmad-output', 'implementation-artifacts', 'sprint-status.yaml'), 'development_status:\n   a: [\n');

  const r = spawnSync(process.execPath, [RUN, dir, '--json', '--cli', cli, '--timeout', '2'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const by = Object.fromEntries(out.projects.map((p) => [p.name, p]));
  assert.deepEqual(Object.keys(by).sort(), ['badledger', 'empty', 'fine', 'hangs', 'junk', 'throws']);

  assert.deepEqual([by.fine.drift.found, by.fine.drift.true], [1, 1]);
  assert.deepEqual([by.fine.clean.warned, by.fine.clean.total], [0, 1]);
  assert.equal(by.fine.errors.count, 1);
  assert.deepEqual([by.fine.artifacts.identified, by.fine.artifacts.total], [1, 1]);
  // The sprint lists one of the two stories the truth finds: the other is a story the reader never sees.
  assert.deepEqual(by.fine.stories, { truth: 2, listed: 1 });
  assert.deepEqual(by.fine.crashes, []);

  assert.ok(by.hangs.crashes.every((c) => /timeout/.test(c.what)) && by.hangs.crashes.length === 4);
  assert.ok(by.throws.crashes.some((c) => c.verb === 'sprint' && /stack trace|exit 1/.test(c.what)));
  assert.ok(by.junk.crashes.some((c) => c.verb === 'status' && /unreadable JSON/.test(c.what)));
  assert.deepEqual(by.badledger.truth.projects[0].ledgers.map((l) => Boolean(l.error)), [true]);
  assert.equal(out.total.projects, 6);
});

test('usage errors exit 2 and name what to do', () => {
  const r = spawnSync(process.execPath, [RUN, '--bogus'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown option --bogus/);
});

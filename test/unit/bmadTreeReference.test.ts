// Waymark's reading of BMAD v7 ticket trees against BMAD's own `tickets.py` on the same files.
// tickets.py is never vendored: set WAYMARK_TICKETS_PY to a copy of BMAD-METHOD's
// skills/bmad-ticket/scripts/tickets.py (Python >= 3.11). Without it these tests are skipped, and say so.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { bmadNextJson, bmadStatusJson, readTreeAt } from '../../src/core/index';
import { bigTree } from './treeHelpers';

const TICKETS_PY = process.env.WAYMARK_TICKETS_PY ?? '';

function pythonOk(): string | undefined {
  if (!TICKETS_PY) return 'WAYMARK_TICKETS_PY is not set (point it at a copy of BMAD-METHOD skills/bmad-ticket/scripts/tickets.py)';
  if (!fs.existsSync(TICKETS_PY)) return `WAYMARK_TICKETS_PY names no file: ${TICKETS_PY}`;
  const v = spawnSync('python3', ['-c', 'import sys; print(sys.version_info >= (3, 11))'], { encoding: 'utf8' });
  if (v.status !== 0 || v.stdout.trim() !== 'True') return 'python3 >= 3.11 is not on PATH (tickets.py needs tomllib)';
  return undefined;
}

const skip = pythonOk();
if (skip) console.log(`# SKIPPED the comparison with BMAD's tickets.py: ${skip}`);

function py(cmd: string, folder: string): { json?: Record<string, unknown>; error?: string } {
  const r = spawnSync('python3', [TICKETS_PY, cmd, folder], { encoding: 'utf8', cwd: folder });
  if (r.status === 0) return { json: JSON.parse(r.stdout) as Record<string, unknown> };
  return { error: (JSON.parse(r.stderr) as { error: string }).error };
}

const FIX = path.resolve('test/fixtures/bmad-v7');
const INITIATIVE = path.join(FIX, '_bmad-output', 'initiative-shop');

function folders(): string[] {
  const epics = fs.readdirSync(INITIATIVE).filter((n) => n.startsWith('epic-')).map((n) => path.join(INITIATIVE, n));
  return [INITIATIVE, ...epics, path.join(FIX, '_bmad-output', 'backlog')];
}

test('next and status agree with tickets.py on every folder of the fixture tree', { skip }, () => {
  for (const folder of folders()) {
    const tree = readTreeAt(folder);
    const next = py('next', folder);
    assert.equal(next.error, undefined, `${folder}: tickets.py refused: ${next.error}`);
    assert.deepEqual(bmadNextJson(tree), next.json, `next ${path.basename(folder)}`);
    assert.deepEqual(bmadStatusJson(tree), py('status', folder).json, `status ${path.basename(folder)}`);
  }
});

test('a tree tickets.py refuses is refused here too, with its message, and read as far as it goes', { skip }, () => {
  const cases: Record<string, Record<string, string>> = {
    'unknown after': { 'epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = "story"\ntitle = "A"\nafter = [9]\n' },
    'cycle': { 'epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = "story"\ntitle = "A"\nafter = [2]\n\n[[entry]]\nid = 2\ntype = "story"\ntitle = "B"\nafter = [1]\n' },
    'duplicate id': { 'epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = "story"\ntitle = "A"\n\n[[entry]]\nid = 1\ntype = "story"\ntitle = "B"\n' },
    'bad type': { 'epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = "task"\ntitle = "A"\n' },
    'bad toml': { 'epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = story\n' },
    'two plans': { 'epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = "story"\ntitle = "A"\n', 'epic-a/a-plan.md': '---\nticket: 1\nstatus: done\n---\n', 'epic-a/b-plan.md': '---\nticket: 1\nstatus: draft\n---\n' },
    'bad leaf status': { 'epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = "story"\ntitle = "A"\n', 'epic-a/story-a.md': '---\nid: 1\ntype: story\nstatus: doing\n---\n' },
    'after not a list': { 'epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = "story"\ntitle = "A"\nafter = 2\n' },
    'epic without slug': { 'tickets.toml': '[[epic]]\nid = 1\n' },
    'lettered cross-epic into nothing': { 'tickets.toml': '[[epic]]\nid = 1\nslug = "epic-a"\n', 'epic-a/tickets.toml': '[[entry]]\nid = "2b"\ntype = "story"\ntitle = "A"\nafter = ["1.9"]\n' },
  };
  for (const [name, files] of Object.entries(cases)) {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'wm-v7ref-'));
    const init = path.join(dir, 'initiative-x');
    fs.mkdirSync(path.join(init, 'epic-a'), { recursive: true });
    fs.writeFileSync(path.join(init, 'epic-a', 'epic-a.md'), '---\ntype: epic\ntitle: A\n---\n');
    for (const [rel, text] of Object.entries(files)) fs.writeFileSync(path.join(init, rel), text);
    const ref = py('status', init);
    const tree = readTreeAt(init);
    assert.ok(ref.error, `${name}: tickets.py accepted it`);
    assert.ok(tree.fatal, `${name}: Waymark did not refuse it (tickets.py: ${ref.error})`);
    // tomllib words its parse errors its own way; every other message is tickets.py's.
    if (name !== 'bad toml') assert.equal(tree.fatal, ref.error, name);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a generated 50-epic, 1,000-ticket tree agrees with tickets.py', { skip }, () => {
  const dir = bigTree(50, 20);
  const init = path.join(dir, '_bmad-output', 'initiative-big');
  const tree = readTreeAt(init);
  assert.equal(tree.fatal, undefined);
  assert.deepEqual(bmadNextJson(tree), py('next', init).json);
  assert.deepEqual(bmadStatusJson(tree), py('status', init).json);
  void execFileSync;
  fs.rmSync(dir, { recursive: true, force: true });
});

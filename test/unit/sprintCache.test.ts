import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { serialize } from '../../src/core/bmad/cacheCodec';
import { spawnSync } from 'node:child_process';
import { checkSprints, loadSprint } from '../../src/core/bmad/sprint';
import { setSprintCacheRacyWindow, sprintCachePath } from '../../src/core/bmad/sprintCache';

const FIX = path.resolve('test/fixtures');
const CLI = path.resolve('dist/cli.js');
const NOW = new Date('2025-10-21T12:00:00Z');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function copyFixture(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wm-sprintcache-${name}-`));
  fs.cpSync(path.join(FIX, name), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
  dirs.push(dir);
  return dir;
}

const IMPL = '_bmad-output/implementation-artifacts';

/**
 * The cache file's inode and its edits file's: a rebuild writes a new cache (atomic rename), a story
 * edit a new edits file (bmad-sprint-edits.bin), a reuse neither.
 */
function cacheIno(root: string): string {
  const ino = (f: string) => String(fs.statSync(f, { bigint: true, throwIfNoEntry: false })?.ino);
  return `${ino(sprintCachePath(root))}:${ino(sprintCachePath(root).replace(/\.bin$/, '-edits.bin'))}`;
}

/** Loads the sprint and says whether it was built (cache written) or reused. */
function load(root: string, now = NOW): { json: string; rebuilt: boolean } {
  const before = cacheIno(root);
  const r = loadSprint(root, { now, cache: true });
  return { json: JSON.stringify(r), rebuilt: cacheIno(root) !== before };
}

function cold(root: string, now = NOW): string {
  return JSON.stringify(loadSprint(root, { now, cache: false }));
}

describe('BMAD sprint cache (.waymark/cache/bmad-sprint.bin)', () => {
  test('reused while nothing changed, the same model as a cold read; each input change rebuilds it', () => {
    // File times may run a tick ahead of Date.now(): in these tests no input is racy.
    setSprintCacheRacyWindow(-60_000);
    try {
      const root = copyFixture('bmad-v6');
      const first = load(root);
      assert.equal(first.rebuilt, true);
      assert.equal(first.json, cold(root));
      const again = load(root);
      assert.equal(again.rebuilt, false, 'nothing changed: reused');
      assert.equal(again.json, first.json);

      // A same-size edit with the mtime put back: only the ctime (and content) says it changed.
      const story = path.join(root, IMPL, '1-2-account-settings.md');
      const st = fs.statSync(story);
      const text = fs.readFileSync(story, 'utf8');
      const edited = text.replace(/Status: \S+/, (m) => m.replace(/\S+$/, (w) => 'x'.repeat(w.length)));
      assert.notEqual(edited, text);
      assert.equal(Buffer.byteLength(edited), Buffer.byteLength(text));
      fs.writeFileSync(story, edited);
      fs.utimesSync(story, st.atime, st.mtime);
      const afterEdit = load(root);
      assert.equal(afterEdit.rebuilt, true, 'same-size edit, mtime restored: caught by ctime');
      assert.equal(afterEdit.json, cold(root));
      assert.notEqual(afterEdit.json, first.json);
      assert.equal(load(root).rebuilt, false);

      // A story added to the stories folder (a listing change).
      fs.writeFileSync(path.join(root, IMPL, '2-2-new-story.md'), '# Story 2.2: New story\n\nStatus: drafted\n');
      const added = load(root);
      assert.equal(added.rebuilt, true, 'story added');
      assert.match(added.json, /2-2-new-story/);
      assert.equal(added.json, cold(root));
      assert.equal(load(root).rebuilt, false);

      // A story removed.
      fs.rmSync(path.join(root, IMPL, '2-2-new-story.md'));
      const removed = load(root);
      assert.equal(removed.rebuilt, true, 'story removed');
      assert.doesNotMatch(removed.json, /2-2-new-story/);

      // The ledger edited.
      const ledger = path.join(root, IMPL, 'sprint-status.yaml');
      fs.appendFileSync(ledger, '\n');
      const ledgerEdit = load(root);
      assert.equal(ledgerEdit.rebuilt, true, 'ledger edited');
      assert.equal(ledgerEdit.json, cold(root));

      // The BMAD config edited (where the output goes): the key changes.
      const cfgFile = fs.readdirSync(path.join(root, '_bmad'), { recursive: true, encoding: 'utf8' }).map((f) => path.join(root, '_bmad', f)).find((f) => /config\.ya?ml$/.test(f) && fs.readFileSync(f, 'utf8').includes('output_folder'));
      assert.ok(cfgFile, 'the fixture has a BMAD config');
      fs.appendFileSync(cfgFile, '\nuser_name: Someone Else\n');
      const cfgEdit = load(root);
      assert.equal(cfgEdit.rebuilt, true, 'BMAD config edited');
      assert.equal(cfgEdit.json, cold(root));

      // The workspace config edited (stale days are not in it, but bmad settings are).
      fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
      fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), 'bmad:\n  output: elsewhere\n');
      const wsEdit = load(root);
      assert.equal(wsEdit.rebuilt, true, 'workspace config edited');
      assert.equal(load(root).rebuilt, false);

      // Another day: the same result only while the clock gives the same answers.
      const later = new Date(NOW.getTime() + 400 * 86_400_000);
      const l = load(root, later);
      assert.equal(l.json, cold(root, later));
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });

  test('an input changed within the racy window of being recorded is not trusted: the sprint is rebuilt', () => {
    const root = copyFixture('bmad-v6');
    // The copy was just written: every input is racy under the real 2 s window.
    assert.equal(load(root).rebuilt, true);
    assert.equal(load(root).rebuilt, true, 'racy inputs: rebuilt again');
  });

  test('a torn, corrupt or unreadable cache is ignored and rebuilt, never an error', () => {
    // File times may run a tick ahead of Date.now(): in these tests no input is racy.
    setSprintCacheRacyWindow(-60_000);
    try {
      const root = copyFixture('bmad-v6');
      const good = load(root).json;
      const file = sprintCachePath(root);
      const whole = fs.readFileSync(file);
      // Torn, garbage, one byte changed anywhere (the checksum), a payload that is no cache file (its checksum right).
      const flipped = (at: number) => Buffer.from(whole.map((b, i) => (i === at ? b ^ 1 : b)));
      // The codec's own framing of another value (its checksum right).
      const payload = (v: unknown) => serialize(v);
      for (const bad of [whole.subarray(0, whole.length >> 1), Buffer.from('not json'), flipped(whole.length - 3), flipped(whole.length >> 1), flipped(2), payload({}), payload([]), payload(null), payload({ waymarkSprintCache: 3, result: 1 })]) {
        fs.writeFileSync(file, bad);
        const r = load(root);
        assert.equal(r.json, good);
        assert.equal(r.rebuilt, true);
      }
      fs.rmSync(file);
      fs.mkdirSync(file);
      assert.equal(JSON.stringify(loadSprint(root, { now: NOW, cache: true })), good, 'a folder where the cache goes: ignored');
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });

  test('the CLI prints the same sprint --json, next --json, board and validate --json from the cache as cold', () => {
    const root = copyFixture('bmad-v6');
    const run = (args: string[], env: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: root, env: { ...process.env, ...env } });
      return `${r.status}\n${r.stdout.replace(/"now": ?"[^"]*"/g, '"now":""')}`;
    };
    const cmds = [['sprint', '--json'], ['next', '--json'], ['board'], ['validate', '--json']];
    const coldOut = cmds.map((c) => run(c, { WAYMARK_SCAN_INDEX: '0' }));
    // Past the racy window, so the second round reads the cache.
    const until = Date.now() + 2100;
    while (Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    cmds.forEach((c) => run(c));
    const ino = cacheIno(root);
    assert.ok(ino !== undefined, 'the cache was written');
    const warm = cmds.map((c) => run(c));
    assert.equal(cacheIno(root), ino, 'the warm round reused the cache');
    assert.deepEqual(warm, coldOut);
  });

  test('a v7 ticket tree beside the sprint is found from the sprint\'s config when it comes from its cache: the same problems as cold', () => {
    setSprintCacheRacyWindow(-60_000);
    try {
      for (const name of ['bmad-v7-sprint', 'bmad-v7-migrated', 'bmad-v7', 'bmad-v6', 'monorepo']) {
        const root = copyFixture(name);
        const cold = JSON.stringify(checkSprints(root, { now: NOW }).problems);
        const built = checkSprints(root, { now: NOW, cache: true });
        assert.equal(JSON.stringify(built.problems), cold, `${name}: built`);
        // The first run made `.waymark/` in the root: the root's key moved, its entries (Waymark's own folder left out) did not.
        assert.equal(JSON.stringify(checkSprints(root, { now: NOW, cache: true }).problems), cold, `${name}: the root's key moved`);
        const ino = cacheIno(root);
        const kept = checkSprints(root, { now: NOW, cache: true });
        assert.equal(JSON.stringify(kept.problems), cold, `${name}: from the cache`);
        assert.equal(cacheIno(root), ino, `${name}: the cache was reused`);
        // A tree that names its initiative in the config: moved by a config edit, the sprint built again, the tree found anew.
        const cfg = path.join(root, '_bmad/bmm/config.yaml');
        if (fs.existsSync(cfg)) {
          fs.appendFileSync(cfg, '\nactive_initiative: initiative-none\n');
          assert.equal(JSON.stringify(checkSprints(root, { now: NOW, cache: true }).problems), JSON.stringify(checkSprints(root, { now: NOW }).problems), `${name}: after a config edit`);
        }
      }
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });
});

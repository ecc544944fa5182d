// The merge driver on BMAD v7's ticket tree: `tickets.toml` entry by entry by id, a plan's status
// by BMAD's order; the rules on three texts, then in real git merges after `waymark git install`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { mergeStateFile } from '../../src/core/git/mergeDriver';
import { mergeOrder } from '../../src/core/git/ticketsMerge';
import { CLI, ENV, git, tempDir } from './gitHelpers';

const entry = (id: number | string, title: string, extra = '') => `[[entry]]\nid = ${typeof id === 'number' ? id : JSON.stringify(id)}\ntype = "story"\ntitle = "${title}"\n${extra}`;
const toml = (...entries: string[]) => `next_id = ${entries.length + 1}\n\n${entries.join('\n')}`;
const TOML = 'initiative-a/epic-login/tickets.toml';

const plan = (status: string, extra = '') => `---\ntitle: "Login form"\nticket: 1\nstatus: ${status}\n${extra}---\n\n# Plan\n\nSteps.\n`;
const PLAN = 'initiative-a/epic-login/story-login-form-plan.md';

describe('tickets.toml merged entry by entry', () => {
  test('entries both sides added are both kept, in build order, and next_id is the larger', () => {
    const base = toml(entry(1, 'Login'), entry(2, 'Logout'));
    const ours = `next_id = 4\n\n${entry(1, 'Login')}\n${entry(2, 'Logout')}\n${entry(3, 'Remember me')}`;
    const theirs = `next_id = 5\n\n${entry(1, 'Login')}\n${entry(2, 'Logout')}\n${entry(4, 'Reset password')}`;
    const r = mergeStateFile({ path: TOML, base, ours, theirs });
    assert.equal(r.kind, 'tickets');
    assert.equal(r.conflicts, 0, r.text);
    assert.equal(r.text, `next_id = 5\n\n${entry(1, 'Login')}\n${entry(2, 'Logout')}\n${entry(3, 'Remember me')}\n${entry(4, 'Reset password')}`);
  });

  test('one entry edited on both sides is merged key by key; the same key changed twice is a conflict naming the entry and key', () => {
    const base = toml(entry(1, 'Login', 'after = []\n'), entry(2, 'Logout'));
    const ours = toml(entry(1, 'Login', 'after = []\nhitl = true\n'), entry(2, 'Sign out'));
    const theirs = toml(entry(1, 'Log in', 'after = []\n'), entry(2, 'Log out'));
    const r = mergeStateFile({ path: TOML, base, ours, theirs, labels: { ours: 'HEAD', theirs: 'feat' } });
    assert.equal(r.conflicts, 1, r.text);
    assert.ok(r.text.includes(entry(1, 'Log in', 'after = []\nhitl = true\n')), 'entry 1: title from theirs, hitl from ours');
    assert.match(r.text, /^<<<<<<< HEAD \(waymark: entry 2: title: both sides changed it\)\ntitle = "Sign out"\n=======\ntitle = "Log out"\n>>>>>>> feat\n/m);
    assert.ok(r.decisions.some((d) => d.key === 'entry 2: title' && d.conflict));
  });

  test('6 and "6" are one id; an entry removed on one side and left alone on the other goes', () => {
    const base = toml(entry(1, 'Login'), entry(6, 'Audit'));
    const ours = toml(entry(1, 'Login'), entry('6', 'Audit'));
    const theirs = toml(entry(1, 'Login'));
    const r = mergeStateFile({ path: TOML, base, ours, theirs });
    // Ours rewrote 6 as "6" (a change), theirs removed it: a conflict, not a silent loss.
    assert.equal(r.conflicts, 1, r.text);
    const r2 = mergeStateFile({ path: TOML, base, ours: base, theirs });
    assert.equal(r2.conflicts, 0);
    assert.equal(r2.text, theirs.replace('next_id = 2', 'next_id = 3'));
  });

  test('the same id added on both sides for different tickets is one conflict block, never a mix', () => {
    const base = toml(entry(1, 'Login'));
    const ours = `next_id = 3\n\n${entry(1, 'Login')}\n${entry(2, 'Remember me')}`;
    const theirs = `next_id = 3\n\n${entry(1, 'Login')}\n${entry(2, 'Reset password')}`;
    const r = mergeStateFile({ path: TOML, base, ours, theirs });
    assert.equal(r.conflicts, 1);
    assert.match(r.text, /waymark: entry 2: both sides added this id for different tickets/);
    assert.ok(r.text.includes('title = "Remember me"') && r.text.includes('title = "Reset password"'));
  });

  test('multi-line arrays and strings, comments and CRLF are kept byte for byte', () => {
    const e1 = '# the first slice\n[[entry]]\nid = 1\ntype = "story"\ntitle = "Login"\ncovers = [\n  "FR1", # the form\n  "FR2",\n]\ndescription = """\nTwo lines [not a table]\nid = 9\n"""\n';
    const base = `${e1}\n${entry(2, 'Logout')}`;
    const ours = `${e1}\n${entry(2, 'Logout', 'hitl = true\n')}`;
    const theirs = `${e1.replace('"FR2",', '"FR2", "FR3",')}\n${entry(2, 'Logout')}`;
    const r = mergeStateFile({ path: TOML, base, ours, theirs });
    assert.equal(r.conflicts, 0, r.text);
    assert.equal(r.text, `${e1.replace('"FR2",', '"FR2", "FR3",')}\n${entry(2, 'Logout', 'hitl = true\n')}`);
    const crlf = (s: string) => s.replace(/\n/g, '\r\n');
    const r2 = mergeStateFile({ path: TOML, base: crlf(base), ours: crlf(ours), theirs: crlf(theirs) });
    assert.equal(r2.text, crlf(r.text));
  });

  test('a file whose layout cannot be read is left to git\'s text merge, and says so', () => {
    const base = toml(entry(1, 'Login'));
    const ours = `${base}title = "unclosed\n`;
    const r = mergeStateFile({ path: TOML, base, ours, theirs: base });
    assert.equal(r.conflicts, 0);
    assert.equal(r.text, ours);
    assert.match(r.decisions[0].reason, /git's text merge decides/);
  });

  test('the initiative\'s [[epic]] tables merge by id too', () => {
    const epic = (id: number, slug: string, after = '') => `[[epic]]\nid = ${id}\nslug = "${slug}"\n${after}`;
    const base = `${epic(1, 'epic-login')}`;
    const ours = `${epic(1, 'epic-login')}\n${epic(2, 'epic-profile', 'after = [{ epic = 1, needs = "accounts" }]\n')}`;
    const theirs = `${epic(1, 'epic-login')}\n${epic(3, 'epic-billing')}`;
    const r = mergeStateFile({ path: 'initiative-a/tickets.toml', base, ours, theirs });
    assert.equal(r.conflicts, 0, r.text);
    assert.equal(r.text, `${epic(1, 'epic-login')}\n${epic(2, 'epic-profile', 'after = [{ epic = 1, needs = "accounts" }]\n')}\n${epic(3, 'epic-billing')}`);
  });

  test('build order: the side that reordered wins the order, the other side\'s new entries follow what they followed', () => {
    assert.deepEqual(mergeOrder(['1', '2', '3'], ['1', '2', '3', '4'], ['1', '2', '5', '3']), ['1', '2', '5', '3', '4']);
    assert.deepEqual(mergeOrder(['1', '2', '3'], ['1', '2', '3'], ['3', '1', '2', '6']), ['3', '1', '2', '6']);
    assert.deepEqual(mergeOrder(['1', '2'], ['0', '1', '2'], ['9', '1', '2']), ['0', '9', '1', '2']);
  });
});

describe('a plan\'s status merged by BMAD\'s order', () => {
  test('both sides moved it: the further one wins (built over in-review)', () => {
    const r = mergeStateFile({ path: PLAN, base: plan('in-progress'), ours: plan('in-review'), theirs: plan('built') });
    assert.equal(r.conflicts, 0, r.text);
    assert.equal(r.text, plan('built'));
  });

  test('done is never rewound, even by the only side that changed it', () => {
    const r = mergeStateFile({ path: PLAN, base: plan('done'), ours: plan('done'), theirs: plan('in-progress') });
    assert.equal(r.text, plan('done'));
    assert.match(r.decisions.find((d) => d.key === 'status')!.reason, /done work is never rewound/);
  });

  test('a build sent back for rework (in-review → in-progress) on one side stays', () => {
    const r = mergeStateFile({ path: PLAN, base: plan('in-review'), ours: plan('in-review'), theirs: plan('in-progress') });
    assert.equal(r.text, plan('in-progress'));
  });

  test('blocked fields go with the status that won: unblocked and moved on clears them', () => {
    const blocked = plan('blocked', 'blocked_at: "2026-11-20"\nblocked_reason: "waiting for the API key"\n');
    const r = mergeStateFile({ path: PLAN, base: plan('in-progress'), ours: blocked, theirs: plan('in-review') });
    assert.equal(r.conflicts, 0, r.text);
    assert.equal(r.text, plan('in-review'));
    const r2 = mergeStateFile({ path: PLAN, base: plan('ready-for-dev'), ours: plan('draft'), theirs: blocked });
    assert.equal(r2.text, blocked);
  });

  test('done on one side and dropped on the other is a conflict', () => {
    const r = mergeStateFile({ path: PLAN, base: plan('built'), ours: plan('done'), theirs: plan('dropped') });
    assert.equal(r.conflicts, 1);
    assert.match(r.text, /<<<<<<< ours \(waymark: status: both sides changed it \(done \/ dropped\)/);
  });

  test('a Markdown file with status but no ticket key is text, not a plan', () => {
    const doc = (s: string) => `---\ntitle: Notes\nstatus: ${s}\n---\nBody\n`;
    const r = mergeStateFile({ path: 'notes-plan.md', base: doc('draft'), ours: doc('done'), theirs: doc('in-review') });
    assert.equal(r.conflicts, 1, 'git decides a blog post\'s status');
  });
});

describe('in real git merges', () => {
  function cli(cwd: string, ...args: string[]) {
    return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: ENV });
  }
  function write(root: string, rel: string, text: string) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }

  test('waymark git install routes tickets.toml and plans; two branches adding tickets and moving a plan merge cleanly', () => {
    const root = tempDir('wm-v7merge-');
    git(root, 'init', '-q', '-b', 'main');
    write(root, TOML, toml(entry(1, 'Login'), entry(2, 'Logout')));
    write(root, PLAN, plan('in-progress'));
    const r = cli(root, 'git', 'install');
    assert.equal(r.status, 0, r.stderr);
    const attrs = fs.readFileSync(path.join(root, '.gitattributes'), 'utf8');
    assert.match(attrs, /^tickets\.toml merge=waymark$/m);
    assert.match(attrs, /^\*-plan\.md merge=waymark$/m);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'base');
    git(root, 'checkout', '-q', '-b', 'feat');
    write(root, TOML, `next_id = 4\n\n${entry(1, 'Login')}\n${entry(2, 'Logout')}\n${entry(3, 'Remember me')}`);
    write(root, PLAN, plan('in-review'));
    git(root, 'commit', '-q', '-am', 'feat');
    git(root, 'checkout', '-q', 'main');
    write(root, TOML, `next_id = 5\n\n${entry(1, 'Login')}\n${entry(2, 'Logout')}\n${entry(4, 'Reset password')}`);
    write(root, PLAN, plan('blocked', 'blocked_at: "2026-11-20"\nblocked_reason: "no API key"\n'));
    git(root, 'commit', '-q', '-am', 'main');
    const m = spawnSync('git', ['merge', '--no-edit', 'feat'], { cwd: root, encoding: 'utf8', env: ENV });
    assert.equal(m.status, 0, `${m.stdout}${m.stderr}`);
    assert.equal(fs.readFileSync(path.join(root, TOML), 'utf8'), `next_id = 5\n\n${entry(1, 'Login')}\n${entry(2, 'Logout')}\n${entry(4, 'Reset password')}\n${entry(3, 'Remember me')}`);
    assert.equal(fs.readFileSync(path.join(root, PLAN), 'utf8'), plan('in-review'));
  });
});

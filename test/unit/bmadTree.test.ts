// BMAD v7's ticket tree: reading, next groups, refs, problems on file and line, the migration
// check, and the CLI verbs on real fixture projects (test/fixtures/bmad-v7, bmad-v7-migrated).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  loadSprint,
  migrateCheck,
  nextGroups,
  readTicketTree,
  readTreeAt,
  resolveTicket,
  treeProblems,
  treeStatus,
  mapV6Status,
  type Problem,
} from '../../src/core/index';
import { workspace } from './fileHelpers';

const V7 = path.resolve('test/fixtures/bmad-v7');
const MIGRATED = path.resolve('test/fixtures/bmad-v7-migrated');
const CLI = path.resolve('dist/cli.js');
const run = (args: string[], cwd: string) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd });

const refs = (items: { ref: string }[]) => items.map((i) => i.ref);
const at = (p: Problem) => `${path.basename(p.file)}:${p.range.start.line + 1}`;

test('the active initiative is found from the config layers and read in build order', () => {
  const tree = readTicketTree(V7);
  assert.ok(tree);
  assert.equal(tree.initiative?.slug, 'initiative-shop');
  assert.deepEqual(tree.epics.map((e) => e.slug), ['epic-catalog', 'epic-cart', 'epic-checkout', 'epic-ops', 'epic-search']);
  assert.equal(tree.store, 'repo');
  assert.equal(tree.fatal, undefined);
  assert.deepEqual(tree.backlog.map((t) => t.ref), ['bug-crash-on-empty-cart.md', 'story-dark-mode.md']);
  assert.equal(tree.backlog[0].status, 'in-progress', 'a backlog plan joins its leaf by file stem');
  for (const t of [...tree.tickets, ...tree.backlog]) assert.equal(t.kind, 'ticket');
});

test('next groups, with what each blocked ticket waits on as refs', () => {
  const tree = readTicketTree(V7)!;
  const g = nextGroups(tree);
  assert.deepEqual(refs(g.readyToStart), ['1.10', '4.2', '5.1']);
  assert.deepEqual(refs(g.readyToRefine), ['1.4', '1.9', '5.7', 'story-loose-idea.md']);
  assert.deepEqual(refs(g.inProgress), ['1.2', '1.3', '1.8', '4.1']);
  assert.deepEqual(refs(g.blocked), ['1.3a', '1.6', '1.7', '2.1', '2.2', '2.3', '2.4', '3.1', '3.1a', '3.2', '5.2']);
  const waits = Object.fromEntries(g.blocked.map((i) => [i.ref, i.waitingOn]));
  assert.deepEqual(waits['1.3a'], ['1.3'], 'a bare number is a sibling id');
  assert.deepEqual(waits['1.7'], ['1.3a'], 'a quoted lettered id is a sibling id');
  assert.deepEqual(waits['2.3'], ['2.2', '2.1', 'epic-catalog'], 'a file name, a sibling, and the epic gate');
  assert.deepEqual(waits['2.4'], ['epic-catalog'], 'an epic named in after and as gate is one wait');
  assert.deepEqual(waits['3.2'], ['3.1a', 'epic-cart']);
  assert.deepEqual(waits['1.6'], [], 'blocked by its plan, not by what it waits on');
  assert.equal(g.blocked.find((i) => i.ref === '1.6')?.ticket.blockedReason, 'waiting for the warehouse API key');
});

test('states from every plan status, counts and the longest remaining chain', () => {
  const tree = readTicketTree(V7)!;
  const byRef = new Map(tree.tickets.map((t) => [t.ref, t]));
  const expect: Record<string, [string, string]> = {
    '1.1': ['done', 'done'], '1.2': ['in-review', 'review'], '1.3': ['in-progress', 'in-progress'], '1.5': ['dropped', 'dropped'], '1.6': ['blocked', 'in-progress'],
    '1.7': ['ready-for-dev', 'backlog'], '1.8': ['built', 'review'], '1.9': ['draft', 'backlog'], '1.10': ['', 'planned'], '2.2': ['', 'backlog'],
  };
  for (const [ref, [status, state]] of Object.entries(expect)) assert.deepEqual([byRef.get(ref)?.status, byRef.get(ref)?.state], [status, state], ref);
  const s = treeStatus(tree);
  assert.deepEqual(s.counts, { total: 24, done: 1, review: 2, 'in-progress': 4, planned: 11, dropped: 1, backlog: 5 });
  assert.deepEqual(s.longestRemainingChain, ['1.2', '2.1', '2.3', '3.1', '3.1a', '3.2']);
  assert.deepEqual(tree.unpinnedAfter, [{ epic: 'epic-checkout', after: 'epic-catalog', needs: 'prices' }, { epic: 'epic-ops', after: 'epic-search', needs: 'search logs' }]);
  assert.deepEqual(tree.undeclaredAfter, [{ epic: 'epic-ops', after: 'epic-catalog', ref: '4.1', names: '1.1' }]);
  assert.deepEqual(tree.orderConflict, [{ epic: 'epic-ops', after: 'epic-search' }]);
});

test('a reference resolves as tickets.py find does', () => {
  const tree = readTicketTree(V7)!;
  const hit = (r: string) => {
    const a = resolveTicket(tree, r);
    return 'ticket' in a ? a.ticket.ref : a.error;
  };
  assert.equal(hit('1.3a'), '1.3a');
  assert.equal(hit('story-cart-badge'), '2.2');
  assert.equal(hit('story-dark-mode.md'), 'story-dark-mode.md');
  assert.equal(hit('voucher'), '3.1a');
  assert.match(hit('cart'), /more than one ticket/);
  assert.match(hit('9.9'), /no ticket matches/);
});

test('what tickets.py does not check lands on the exact file and line', () => {
  const tree = readTicketTree(V7)!;
  const probs = treeProblems(tree);
  const by = (code: string) => probs.filter((p) => p.code === code).map(at);
  assert.deepEqual(by('tree-drift'), ['story-product-list.md:7']);
  assert.deepEqual(by('tree-covers-unknown'), ['tickets.toml:24']);
  assert.deepEqual(by('tree-container-status'), ['epic-checkout.md:4', 'epic-ops.md:1', 'epic-search.md:1'], 'done with open tickets; no status while tickets started (info)');
  assert.deepEqual(by('tree-undeclared-after'), ['story-dashboards.md:5']);
  assert.deepEqual(by('tree-order-conflict'), ['tickets.toml:23'], "on the waiting epic's [[epic]]");
  assert.deepEqual(by('tree-unpinned-after').length, 2);
  assert.deepEqual(by('tree-plan-ticket'), ['orphan-plan.md:2']);
  assert.deepEqual(by('tree-plan-status'), ['story-suggestions-plan.md:3']);
  assert.equal(probs.filter((p) => p.severity === 'error').length, 0);
});

function tree1(files: Record<string, string>) {
  const base: Record<string, string> = { 'initiative-x/initiative-x.md': '---\ntype: initiative\n---\n', 'initiative-x/epic-a/epic-a.md': '---\ntype: epic\n---\n' };
  const root = workspace({ ...base, ...Object.fromEntries(Object.entries(files).map(([k, v]) => [`initiative-x/${k}`, v])) }, { waymark: false });
  return readTreeAt(path.join(root, 'initiative-x'));
}

test('errors tickets.py refuses the tree for are problems on their line, and the rest is still read', () => {
  const entry = (id: string, extra = '') => `[[entry]]\nid = ${id}\ntype = "story"\ntitle = "T${id}"\n${extra}\n`;
  let t = tree1({ 'epic-a/tickets.toml': entry('1', 'after = [2]') + entry('2', 'after = [3]') + entry('3', 'after = [1]') + entry('4') });
  const cycle = t.problems.find((p) => p.code === 'tree-cycle');
  assert.equal(cycle?.message, 'cycle through epic-a/1 -> epic-a/2 -> epic-a/3 -> epic-a/1');
  assert.deepEqual(cycle?.data?.cycle, ['epic-a/1', 'epic-a/2', 'epic-a/3', 'epic-a/1']);
  assert.equal(cycle?.range.start.line, 4, "on the first ticket's after");
  assert.equal(t.tickets.length, 4);

  t = tree1({ 'epic-a/tickets.toml': entry('1') + entry('2', 'after = [1, 9]') });
  const unknown = t.problems.find((p) => p.code === 'tree-after-unknown');
  assert.equal(unknown?.message, 'epic-a/tickets.toml entry 2: after 9 names no entry in epic-a');
  assert.equal(unknown?.range.start.line, 9);
  assert.deepEqual(t.tickets[1].after, ['epic-a/1'], 'the good part of after is kept');

  t = tree1({ 'epic-a/tickets.toml': entry('1') + entry('1') });
  assert.deepEqual(t.problems.map((p) => [p.code, p.range.start.line]), [['tree-duplicate-id', 6]]);

  t = tree1({ 'epic-a/tickets.toml': entry('1') + '[[entry]]\nid = 2\ntype = story\n' });
  assert.equal(t.problems[0].code, 'tree-toml');
  assert.equal(t.problems[0].range.start.line, 7);

  t = tree1({ 'epic-a/tickets.toml': entry('1', 'covers = "FR1"') });
  assert.deepEqual(t.problems.map((p) => [p.code, p.range.start.line, p.message]), [['tree-key-type', 4, 'epic-a/tickets.toml: `covers` must be a list']]);

  t = tree1({ 'epic-a/tickets.toml': entry('1'), 'epic-a/one-plan.md': '---\nticket: 1\nstatus: done\n---\n', 'epic-a/two-plan.md': '---\nticket: 1\nstatus: draft\n---\n' });
  assert.deepEqual(t.problems.map((p) => [p.code, path.basename(p.file), p.range.start.line]), [['tree-two-plans', 'two-plan.md', 1]]);
  assert.equal(t.tickets[0].status, 'done', 'the first plan still holds the status');

  t = tree1({ 'epic-a/tickets.toml': entry('1'), 'epic-a/story-t1.md': '---\nid: 1\ntype: story\nstatus: doing\n---\n' });
  assert.deepEqual(t.problems.map((p) => [p.code, p.range.start.line, p.severity]), [['tree-unknown-status', 3, 'error']]);
  assert.equal(t.fatal, "epic-a/story-t1.md: status 'doing' is not one of draft, ready-for-dev, in-progress, in-review, built, done, blocked, dropped");
});

test('a tracker store: tracker_status overrides the plan, and the store is named', () => {
  const root = workspace({
    '_bmad/config.toml': '[core]\noutput_folder = "out"\nactive_initiative = "initiative-t"\n',
    '_bmad/custom/ticketing-store-config.toml': '[tickets]\nstore = "jira"\n',
    'out/initiative-t/tickets.toml': '[[epic]]\nid = 1\nslug = "epic-a"\n',
    'out/initiative-t/epic-a/epic-a.md': '---\ntype: epic\n---\n',
    'out/initiative-t/epic-a/tickets.toml': '[[entry]]\nid = 1\ntype = "story"\ntitle = "One"\n\n[[entry]]\nid = 2\ntype = "story"\ntitle = "Two"\nafter = ["PROJ-1"]\n',
    'out/initiative-t/epic-a/story-one.md': '---\nid: 1\ntype: story\ntracker_id: PROJ-1\ntracker_status: review\n---\n',
    'out/initiative-t/epic-a/story-one-plan.md': '---\nticket: 1\nstatus: in-progress\n---\n',
  }, { waymark: false });
  const tree = readTicketTree(root)!;
  assert.equal(tree.store, 'jira');
  assert.equal(tree.tickets[0].state, 'review');
  assert.deepEqual(tree.tickets[1].after, ['epic-a/1'], 'a tracker id names its ticket');
  assert.deepEqual(refs(nextGroups(tree).readyToStart), ['1.2'], 'a ticket in review meets an after');
});

test('a migrated project shows the tree; archive-v6 is history, not the live ledger', () => {
  assert.equal(loadSprint(MIGRATED), undefined, "archive-v6/sprint-status.yaml is not the project's sprint");
  const tree = readTicketTree(MIGRATED)!;
  assert.equal(tree.initiative?.slug, 'initiative-app', 'the older modules.bmm.active_initiative is read');
  assert.ok(tree.archiveV6?.endsWith('archive-v6'));
  const r = migrateCheck(MIGRATED)!;
  assert.deepEqual(r.counts, { ledgerStories: 7, storyFiles: 0, tickets: 6, matched: 6 });
  assert.deepEqual(r.findings.map((f) => [f.kind, f.storyKey ?? null]), [
    ['unmapped-status-copied', '1-5-settings'],
    ['status-mismatch', '1-6-export'],
    ['ledger-story-missing', '1-7-orphan'],
    ['count-mismatch', null],
  ]);
  const mismatch = r.findings[1];
  assert.equal(mismatch.expected, 'in-review', 'the story file is ahead of the ledger and wins');
  assert.deepEqual(r.problems.map(at), ['story-settings-plan.md:5', 'story-export-plan.md:5', 'sprint-status.yaml:11', 'sprint-status.yaml:3']);
});

test("BMAD's v6 → v7 status mapping", () => {
  assert.equal(mapV6Status('backlog'), undefined);
  for (const s of ['drafted', 'contexted', 'ready-for-dev']) assert.equal(mapV6Status(s), 'ready-for-dev');
  assert.equal(mapV6Status('review'), 'in-review');
  assert.equal(mapV6Status('in-review'), 'in-review');
  assert.equal(mapV6Status('blocked'), 'blocked');
  assert.equal(mapV6Status('awaiting-operator'), null);
});

test('the CLI on a v7 project: next, sprint, board, deps, migrate-check', { skip: fs.existsSync(CLI) ? undefined : 'dist/cli.js not built (node esbuild.mjs)' }, () => {
  let r = run(['next', '--json'], V7);
  assert.equal(r.status, 0, r.stderr);
  const next = JSON.parse(r.stdout) as Record<string, { kind: string; ref: string; state: string; waitingOn: string[] }[]>;
  for (const g of ['readyToRefine', 'readyToStart', 'inProgress', 'blocked']) for (const t of next[g]) assert.equal(t.kind, 'ticket');
  assert.deepEqual(next.readyToStart.map((t) => t.ref), ['1.10', '4.2', '5.1']);
  assert.deepEqual(next.blocked.find((t) => t.ref === '3.2')?.waitingOn, ['3.1a', 'epic-cart']);
  r = run(['sprint', '--json'], V7);
  assert.equal(r.status, 0, r.stderr);
  const sprint = JSON.parse(r.stdout) as { kind: string; epics: { tickets: { kind: string; ref: string; state: string }[] }[]; backlog: unknown[] };
  assert.equal(sprint.kind, 'ticket-tree');
  assert.equal(sprint.epics.flatMap((e) => e.tickets).length, 24, 'unlisted leaves of an epic folder are under their epic');
  assert.ok(sprint.epics.flatMap((e) => e.tickets).every((t) => t.kind === 'ticket' && t.ref && t.state));
  r = run(['board', '--json'], V7);
  const board = JSON.parse(r.stdout) as { columns: Record<string, { ref: string }[]> };
  assert.deepEqual(board.columns.review.map((t) => t.ref), ['1.2', '1.8']);
  r = run(['deps', '2.3', '--json'], V7);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual((JSON.parse(r.stdout) as { waitsOn: { ref: string }[] }).waitsOn.map((w) => w.ref), ['2.2', '2.1', 'epic-catalog']);
  r = run(['bmad', 'migrate-check'], MIGRATED);
  assert.equal(r.status, 1);
  assert.match(r.stdout, /4 finding\(s\)/);
  r = run(['bmad', 'migrate-check'], V7);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no archive-v6/);
  r = run(['bmad', 'migrate-check', '--bogus'], V7);
  assert.equal(r.status, 2);
});

test('any text in tickets.toml and the leaf files is read without throwing, and v6 projects have no tree', () => {
  for (const dir of fs.readdirSync(path.resolve('test/fixtures'))) {
    if (dir.startsWith('bmad-v7')) continue;
    assert.equal(readTicketTree(path.resolve('test/fixtures', dir)), undefined, dir);
  }
  const src = fs.readFileSync(path.join(V7, '_bmad-output/initiative-shop/epic-catalog/tickets.toml'), 'utf8');
  const leaf = fs.readFileSync(path.join(V7, '_bmad-output/initiative-shop/epic-catalog/story-product-list.md'), 'utf8');
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const junk = ['"', "'", '[', ']', '{', '}', '=', '\n', '#', '.', ',', '\\', '"""', '\r', 'after = ', 'id = "x y"', '---', ': ', '- '];
  for (let i = 0; i < 200; i++) {
    const mutate = (t: string) => {
      let out = t;
      for (let k = 0; k < 4; k++) {
        const at = rnd(out.length);
        out = out.slice(0, at) + junk[rnd(junk.length)] + out.slice(at + rnd(3));
      }
      return out;
    };
    const t = tree1({ 'epic-a/tickets.toml': mutate(src), 'epic-a/story-product-list.md': mutate(leaf) });
    treeProblems(t);
    nextGroups(t);
    treeStatus(t);
    for (const p of t.problems) assert.ok(p.range.start.line >= 0 && p.message.length > 0);
  }
});

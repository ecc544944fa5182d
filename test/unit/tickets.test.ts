import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildRegistry, projectTickets, sendOrder, sidecarFile, readHistory, type ProjectedTicket } from '../../src/core/index';
import { parseConfigText } from '../../src/core/model/config';
import { createStateCore, openStore, runProjection, trackerSetup } from '../../src/core/index';
import { gitConfig, project, ticketFiles, ticketRepo, userAllows, wf, withCore, workspace } from './ticketsHelpers';

describe('tickets: planning order', () => {
  test('parents before children, prerequisites first, whatever the file order', async () => {
    const root = workspace({
      'a-child.md': wf('child', 'in_progress', 'delegation:\n  id: d-child\n  parent_id: d-root\n  root_id: d-root\n  depth: 1\n  chain_path: [d-root, d-child]\n'),
      'b-last.md': wf('last', 'created', 'dependsOn: [middle]\n'),
      'c-middle.md': wf('middle', 'created', 'dependsOn: [child]\n'),
      'd-root.md': wf('root', 'in_progress', 'delegation:\n  id: d-root\n  root_id: d-root\n  depth: 0\n  chain_path: [d-root]\n'),
    }, gitConfig(ticketRepo()));
    const tickets = await withCore(root, async (core) => {
      const scan = await core.scan();
      return projectTickets({ registry: buildRegistry(scan.workflows, []), workflows: scan.workflows, sprints: [], readText: () => ({ text: '', hasFrontmatter: true }) });
    });
    const order = tickets.map((t) => t.waymarkId);
    assert.deepEqual(order, ['root', 'child', 'middle', 'last']);
    assert.equal(tickets.find((t) => t.waymarkId === 'child')!.parentId, 'root');
    assert.deepEqual(tickets.find((t) => t.waymarkId === 'last')!.blockedByIds, ['middle']);
  });

  test('a parent that waits on its own child (a cycle of links) still sends every ticket once', () => {
    const t = (id: string, parentId?: string, blockedByIds: string[] = []): ProjectedTicket => ({ waymarkId: id, kind: 'workflow', root: '/', hasFrontmatter: true, title: id, text: '', labels: [], open: true, parentId, blockedByIds, hash: id });
    const order = sendOrder(new Map([['p', t('p', undefined, ['c'])], ['c', t('c', 'p')], ['x', t('x')]])).map((x) => x.waymarkId);
    assert.deepEqual([...order].sort(), ['c', 'p', 'x']);
    assert.equal(order[0], 'x');
  });
});

describe('tickets: syncedHash diffing and idempotent reconcile (git store)', () => {
  test('only what changed is sent; a lost mirror is found again by its waymark-id line, never created twice', async () => {
    const repo = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress'), 'b.md': wf('b', 'created', 'dependsOn: [a]\n') }, gitConfig(repo));
    const first = await project(root);
    assert.deepEqual(first.created, ['a', 'b']);
    const again = await project(root);
    assert.equal(again.planned.length, 0, 'nothing changed: nothing planned');
    assert.equal(again.unchanged, 2);

    // A state change changes the projection (labels): only that ticket is sent.
    await withCore(root, (core) => core.setStatus(path.join(root, 'a.md'), 'completed'));
    const dry = await project(root, { dryRun: true });
    assert.deepEqual(dry.planned.map((p) => [p.id, p.action, p.why]), [['a', 'update', 'changed']]);
    const third = await project(root);
    assert.deepEqual(third.updated, ['a']);
    assert.match(ticketFiles(repo).get('a')![0], /status: closed/);

    // The mirror is lost (a crash before it was written): reconcile, no duplicate.
    const text = fs.readFileSync(path.join(root, 'b.md'), 'utf8');
    fs.writeFileSync(path.join(root, 'b.md'), text.replace(/tracker:\n(  .*\n)+/, ''));
    const fourth = await project(root);
    assert.deepEqual(fourth.reconciled, ['b']);
    assert.deepEqual(fourth.created, []);
    assert.deepEqual([...ticketFiles(repo).entries()].map(([id, l]) => [id, l.length]).sort(), [['a', 1], ['b', 1]]);
  });
});

describe('tickets: the tracker block is not state', () => {
  test('writing it keeps the state hash, adds no history line, no problem, and an agent holding the old expectHash still writes', async () => {
    const repo = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress', 'title: Alpha\n', '# Alpha\n\nBody.\n') }, gitConfig(repo));
    const file = path.join(root, 'a.md');
    const before = await withCore(root, async (core) => core.get(file)!);
    const bytesBefore = fs.readFileSync(file, 'utf8');
    await project(root);
    const bytesAfter = fs.readFileSync(file, 'utf8');
    assert.match(bytesAfter, /^tracker:\n  store: git\n  id: a-[0-9a-f]{8}\n  url: tickets\/a-[0-9a-f]{8}\.md\n  status: open\n  syncedHash: [0-9a-f]{64}$/m);
    // Only the tracker block's lines were added: the rest is byte for byte the same.
    assert.equal(bytesAfter.replace(/tracker:\n(  .*\n)+/, ''), bytesBefore);
    await withCore(root, async (core) => {
      const after = core.get(file)!;
      assert.equal(after.stateHash, before.stateHash);
      assert.deepEqual(after.problems, []);
      assert.deepEqual(core.problems().filter((p) => p.file === file), []);
      assert.deepEqual(readHistory(root, file), [], 'no history line, no external-edit');
      // The agent read the state before the projection; its write is no conflict.
      const r = await core.advance(file, { expectHash: before.stateHash });
      assert.equal(r.changed, true);
      const hist = readHistory(root, file);
      assert.deepEqual(hist.map((e) => e.operation), ['advance'], 'no external-edit line for the tracker block');
    });
    // The tracker block survives the agent's write, and the ticket follows the new state next run.
    assert.match(fs.readFileSync(file, 'utf8'), /^tracker:\n/m);
    const next = await project(root);
    assert.deepEqual(next.updated, ['a']);
  });

  test('the tracker config section is known (no config-unknown-key)', () => {
    const { problems } = parseConfigText('/x/.waymark/config.yaml', 'tracker:\n  default: gh\n  autoProject: false\n  stores:\n    gh: { store: github, owner: acme, repo: app }\n    local: { store: git, repo: ../tickets, allowOutside: true }\n  breaker: { failures: 2 }\n');
    assert.deepEqual(problems, []);
  });

  test('a BMAD story file (no frontmatter) keeps its mirror in the sidecar; its bytes are untouched', async () => {
    const repo = ticketRepo();
    const story = '# Story 1.1: Login\n\nStatus: in-progress\n\n## Tasks\n\n- [ ] build it\n';
    const root = workspace({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-login: in-progress\n  1-2-logout: backlog\n',
      '_bmad-output/implementation-artifacts/1-1-login.md': story,
    }, gitConfig(repo));
    const r = await project(root);
    assert.deepEqual(r.created, ['epic:1', 'story:1-1-login', 'story:1-2-logout'], 'the epic first, then its stories in order');
    assert.equal(fs.readFileSync(path.join(root, '_bmad-output/implementation-artifacts/1-1-login.md'), 'utf8'), story);
    const side = JSON.parse(fs.readFileSync(sidecarFile(root, 'git'), 'utf8')) as { items: Record<string, { id: string }> };
    assert.deepEqual(Object.keys(side.items).sort(), ['epic:1', 'story:1-1-login', 'story:1-2-logout']);
    const login = ticketFiles(repo).get('story:1-1-login')![0];
    assert.match(login, new RegExp(`^parent: ${side.items['epic:1'].id}$`, 'm'));
    assert.match(login, /Status: in-progress/);
    assert.match(ticketFiles(repo).get('story:1-2-logout')![0], new RegExp(`blockedBy:\\n  - ${side.items['story:1-1-login'].id}`));
    assert.equal((await project(root)).planned.length, 0);
  });



  test('the mirror write is a compare-and-swap on the state: a moved state or another key is refused, nothing written', async () => {
    const root = workspace({ 'a.md': wf('a', 'in_progress') }, gitConfig(ticketRepo()));
    const file = path.join(root, 'a.md');
    const before = fs.readFileSync(file, 'utf8');
    await withCore(root, async (core) => {
      await assert.rejects(core.writeNonStateKey(file, 'tracker', { store: 'git', id: 'x', syncedHash: 'h' }, { expectStateHash: 'f'.repeat(64) }), /changed state while its tracker block was being written/);
      await assert.rejects(core.writeNonStateKey(file, 'status' as 'tracker', 'completed'), /not a key Waymark writes outside the state/);
      assert.equal(fs.readFileSync(file, 'utf8'), before);
      assert.equal(await core.writeNonStateKey(file, 'tracker', { store: 'git', id: 'x', syncedHash: 'h' }), true);
      assert.equal(await core.writeNonStateKey(file, 'tracker', { store: 'git', id: 'x', syncedHash: 'h' }), false, 'the same block again: nothing written');
      assert.equal(await core.writeNonStateKey(file, 'tracker', undefined), true);
    });
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'set then removed: byte for byte as before');
  });

  test('a file an editor holds unsaved changes to keeps its bytes (deferMirror); the next run finds its ticket, no duplicate', async () => {
    const repo = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress'), 'b.md': wf('b', 'created') }, gitConfig(repo));
    const a = path.join(root, 'a.md');
    const before = fs.readFileSync(a, 'utf8');
    const core = createStateCore({ roots: [root], memory: false });
    try {
      const setup = trackerSetup((await core.contextFor(a)).config)!;
      const store = await openStore(root, 'git', setup.stores.get('git')!, { allowOutside: userAllows(root, setup.stores.get('git')!) });
      const r = await runProjection({ core, root, store, isDefault: true, breaker: setup.breaker, deferMirror: (f) => f === a });
      assert.deepEqual(r.created, ['a', 'b']);
      assert.deepEqual(r.mirrorsDeferred, ['a']);
    } finally {
      await core.close();
    }
    assert.equal(fs.readFileSync(a, 'utf8'), before);
    const next = await project(root);
    assert.deepEqual(next.reconciled, ['a']);
    assert.equal(ticketFiles(repo).get('a')!.length, 1);
    assert.match(fs.readFileSync(a, 'utf8'), /^tracker:/m);
  });

  test('a `tracker:` key someone else wrote is not replaced: the mirror goes to the sidecar', async () => {
    const repo = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress', 'tracker: JIRA-42\n') }, gitConfig(repo));
    const before = fs.readFileSync(path.join(root, 'a.md'), 'utf8');
    const r = await project(root);
    assert.deepEqual(r.created, ['a']);
    assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), before);
    assert.ok((JSON.parse(fs.readFileSync(sidecarFile(root, 'git'), 'utf8')) as { items: Record<string, unknown> }).items.a);
    assert.equal((await project(root)).planned.length, 0, 'in sync through the sidecar');
  });

  test('several stores: the default mirrors into frontmatter, another (--store) only into its sidecar; each in sync on its own', async () => {
    const main = ticketRepo();
    const other = ticketRepo();
    const root = workspace({ 'a.md': wf('a', 'in_progress') }, `tracker:\n  default: main\n  stores:\n    main: { store: git, repo: ${main} }\n    archive: { store: git, repo: ${other}, dir: archive }\n`);
    const file = path.join(root, 'a.md');
    assert.deepEqual((await project(root)).created, ['a']);
    const withMain = fs.readFileSync(file, 'utf8');
    assert.match(withMain, /^tracker:\n  store: main\n/m);
    const r = await project(root, { store: 'archive' });
    assert.deepEqual(r.created, ['a']);
    assert.equal(fs.readFileSync(file, 'utf8'), withMain, 'the default store\'s block is untouched');
    assert.equal(ticketFiles(other, 'archive').size, 1);
    assert.ok((JSON.parse(fs.readFileSync(sidecarFile(root, 'archive'), 'utf8')) as { items: Record<string, unknown> }).items.a);
    assert.equal((await project(root, { store: 'archive' })).planned.length, 0);
    assert.equal((await project(root)).planned.length, 0);
  });
});

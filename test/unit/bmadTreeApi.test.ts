// The v7 tree's public vocabulary and helpers, as the faces (Sprint view, MCP tools, hooks) use them.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  CONTAINER_STATUSES,
  LEAF_TYPES,
  PLAN_STATUSES,
  STORE_KINDS,
  TICKET_STATES,
  TRACKER_STATES,
  hasTicketTree,
  locateTree,
  longestRemainingChain,
  readTicketTree,
  refOf,
  migrateCheck,
  nextGroups,
  treeStatus,
  type ContainerStatus,
  type Epic,
  type Initiative,
  type LeafType,
  type MigrationFinding,
  type MigrationFindingKind,
  type MigrationReport,
  type NextGroups,
  type OrderConflict,
  type PlanStatus,
  type ReadTreeOptions,
  type SourcePos,
  type StoreKind,
  type TicketId,
  type TicketState,
  type TrackerState,
  type TreeLocation,
  type TreeStatus,
  type UndeclaredAfter,
  type UnpinnedAfter,
} from '../../src/core/index';

const V7 = path.resolve('test/fixtures/bmad-v7');

test("the vocabularies are BMAD's words", () => {
  const plan: readonly PlanStatus[] = PLAN_STATUSES;
  assert.deepEqual(plan, ['draft', 'ready-for-dev', 'in-progress', 'in-review', 'built', 'done', 'blocked', 'dropped']);
  const tracker: readonly TrackerState[] = TRACKER_STATES;
  assert.deepEqual(tracker, ['backlog', 'in-progress', 'review', 'done', 'dropped']);
  const states: readonly TicketState[] = TICKET_STATES;
  assert.deepEqual(states, ['planned', ...tracker]);
  const containers: readonly ContainerStatus[] = CONTAINER_STATUSES;
  assert.deepEqual(containers, ['in-progress', 'done', 'dropped']);
  const leaves: readonly LeafType[] = LEAF_TYPES;
  assert.deepEqual(leaves, ['story', 'spike', 'bug']);
  const stores: readonly StoreKind[] = STORE_KINDS;
  assert.ok(stores.includes('repo') && stores.includes('github'));
});

test('locate, read and answer: the helpers the faces use', () => {
  const options: ReadTreeOptions = {};
  assert.equal(hasTicketTree(V7, options), true);
  assert.equal(hasTicketTree(path.resolve('test/fixtures/bmad-v6')), false);
  const loc: TreeLocation = locateTree(V7);
  assert.equal(loc.activeInitiative, 'initiative-shop');
  assert.equal(path.basename(loc.folder ?? ''), 'initiative-shop');
  const tree = readTicketTree(V7)!;
  const epic: Epic = tree.epics[1];
  const init: Initiative | undefined = tree.initiative;
  assert.equal(init?.title, 'Shop');
  assert.deepEqual(epic.after, [{ epic: 'epic-catalog', needs: 'products to put in the cart' }]);
  const id: TicketId | undefined = epic.id;
  assert.equal(id, 2);
  const pos: SourcePos | undefined = epic.entryPos;
  assert.equal(pos?.line, 7);
  assert.equal(refOf(tree, 'epic-cart/3'), '2.3');
  assert.equal(refOf(tree, 'epic-cart/3', 'epic-cart'), '3');
  assert.deepEqual(longestRemainingChain(tree), treeStatus(tree).longestRemainingChain);
  const status: TreeStatus = treeStatus(tree);
  const groups: NextGroups = nextGroups(tree);
  assert.equal(groups.readyToStart.length + groups.readyToRefine.length + groups.inProgress.length + groups.blocked.length, status.counts.total - 2, 'every ticket not done or dropped is in one group');
  const unpinned: UnpinnedAfter[] = tree.unpinnedAfter;
  const undeclared: UndeclaredAfter[] = tree.undeclaredAfter;
  const conflicts: OrderConflict[] = tree.orderConflict;
  assert.deepEqual([unpinned.length, undeclared.length, conflicts.length], [2, 1, 1]);
});

test('a migration report names each finding by kind', () => {
  const r: MigrationReport | undefined = migrateCheck(path.resolve('test/fixtures/bmad-v7-migrated'));
  const kinds: MigrationFindingKind[] = (r?.findings ?? []).map((f: MigrationFinding) => f.kind);
  assert.deepEqual(kinds, ['unmapped-status-copied', 'status-mismatch', 'ledger-story-missing', 'count-mismatch']);
});

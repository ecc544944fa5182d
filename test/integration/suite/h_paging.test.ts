// A long status group in the Workflows view shows its most recent 200 workflows and a
// "Show N more" row: clicked (by the runner's mouse, in the page), the group shows 200 more; a
// workflow further down is still revealed (the group shows enough rows for it).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clickView, demo, ready, screenshot, singleRoot, testApi, waitFor, type TreeSnap } from '../helpers';

const PAGE = 200;
const EXTRA = 405;
/** The views folded while the Workflows view is looked at (unfolded again after). */
const FOLDED = ['Sprint', 'Gates', 'Delegation'];

/** The In progress group of the Workflows view, as VS Code gets it (rows, not their steps). */
async function inProgress(): Promise<TreeSnap> {
  const api = await testApi();
  const s = (await api.snapshot({ only: 'workflows', maxDepth: 1, hover: false })) as { workflows: TreeSnap[] };
  const group = s.workflows.find((g) => g.label === 'In progress');
  assert.ok(group, `no In progress group: ${s.workflows.map((g) => g.label).join(', ')}`);
  return group;
}

singleRoot('Workflows view: a long group shows a page and a "Show more" row', () => {
  const dir = () => demo('workflows/paging');
  let before = 0;
  let folded = false;

  suiteSetup(async function () {
    this.timeout(120_000);
    await ready();
    const api = await testApi();
    before = api.count();
    fs.mkdirSync(dir(), { recursive: true });
    // Older than every demo workflow, p404 the most recent of them: the group lists them last, p000 at its very end.
    for (let i = 0; i < EXTRA; i++) {
      const n = String(i).padStart(3, '0');
      const minute = `${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
      fs.writeFileSync(path.join(dir(), `p${n}.md`), `---\nworkflow: paging-${n}\nstatus: in_progress\nsteps: [draft, review]\ncurrentStep: draft\nupdatedAt: 2020-01-01T${minute}:00Z\n---\n`);
    }
    await waitFor(`the ${EXTRA} new workflows in the model`, () => api.count() === before + EXTRA, 60_000);
  });

  suiteTeardown(async function () {
    this.timeout(60_000);
    fs.rmSync(dir(), { recursive: true, force: true });
    const api = await testApi();
    await waitFor('the paging workflows gone from the model', () => api.count() === before, 30_000);
  });

  test('the group shows 200 rows and "Show N more"; clicking it shows 200 more; revealing the last workflow shows the rest', async function () {
    this.timeout(120_000);
    const api = await testApi();
    await vscode.commands.executeCommand('workbench.view.extension.waymark');
    const group = await inProgress();
    const total = Number(group.description);
    assert.ok(total >= EXTRA, `the group counts every workflow in it (${group.description})`);
    const rows = group.children ?? [];
    assert.equal(rows.length, PAGE + 1, 'the first page and the "Show more" row');
    assert.ok(rows.slice(0, PAGE).every((r) => r.contextValue?.startsWith('waymark.workflow.')), 'the first 200 rows are workflows');
    const more = rows[PAGE];
    assert.equal(more.label, `Show ${PAGE} more`);
    assert.equal(more.description, `${total - PAGE} not shown`);
    assert.equal(more.contextValue, 'waymark.more');
    assert.equal(more.icon, 'ellipsis');
    // Most recent first: p404, p403, ... after the demo's own in-progress workflows that are more recent.
    const paging = rows.slice(0, PAGE).map((r) => r.label).filter((l) => l.startsWith('paging-'));
    assert.deepEqual(paging, paging.map((_, i) => `paging-${String(EXTRA - 1 - i).padStart(3, '0')}`));

    // On screen: the end of the page and its "Show more" row (the other views folded, so the Workflows view has the room).
    for (const v of FOLDED) await clickView(v);
    folded = true;
    await api.revealShowMore('in_progress');
    await screenshot('workflows-show-more');
    if (process.env.WAYMARK_TEST_SIGNALS) await clickView('Workflows', `Show ${PAGE} more`);
    else {
      // A runner that cannot click (test-electron): run what the row's click runs.
      const item = await waitFor('the Show more row', async () => (await inProgress()).children?.[PAGE]);
      assert.equal(item.label, `Show ${PAGE} more`);
      await vscode.commands.executeCommand('waymark.workflows.showMore', { kind: 'more', status: 'in_progress', hidden: total - PAGE });
    }
    const second = await waitFor('the second page', async () => {
      const g = await inProgress();
      return (g.children?.length ?? 0) > PAGE + 1 ? g : undefined;
    });
    const shown = Math.min(total, 2 * PAGE);
    assert.equal(second.children!.length, shown + 1, 'two pages and the "Show more" row');
    assert.equal(second.children![shown].label, `Show ${Math.min(PAGE, total - shown)} more`);
    assert.equal(second.children![shown].description, `${total - shown} not shown`);

    // The oldest workflow is below both pages: revealing it shows the group down to it.
    assert.ok(await api.reveal(demo('workflows/paging/p000.md'), { expand: false }), 'reveal p000');
    const all = await inProgress();
    assert.equal(all.children!.length, total, 'every row, no "Show more" row');
    assert.ok(all.children!.some((r) => r.label === 'paging-000'), 'p000 is listed');
    await screenshot('workflows-show-more-revealed');
  });

  suiteTeardown(async () => {
    if (folded) for (const v of FOLDED) await clickView(v);
  });
});

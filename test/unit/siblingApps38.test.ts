// Session 38: two BMAD apps side by side in one repository (`apps/a/`, `apps/b/`), each numbering its
// own epics from 1 with the same story keys (`1-1-dig`, `1-2-plant`): the project view (board, next,
// the dashboard, the ticket projection) holds every story of both, each under an id of its own, and
// each app's story order stays within that app. Before, the second app's stories shared the first's
// ids and were dropped from the view: `next` from the root offered the first app's work only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

const IA = '_bmad-output/implementation-artifacts';
const config = (name: string) => `project_name: ${name}\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/${IA}"\n`;
const ledger = (entries: string[]) => ['generated: 2026-11-20', '', 'development_status:', ...entries.map((e) => `  ${e}`), ''].join('\n');
const story = (n: string, title: string, status: string) => `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a grower, I want ${title.toLowerCase()}, so that the beds fill.\n\n## Acceptance Criteria\n\n1. It works.\n\n## Tasks / Subtasks\n\n- [ ] Do it\n`;

type Entry = { id: string; kind: string; file?: string; column: string; waitingOn: string[] };
type Board = { columns: Record<string, Entry[]>; criticalPath: string[] };

function twoApps(): Record<string, string> {
  const files: Record<string, string> = { 'package.json': '{"name":"beds","private":true}\n' };
  for (const app of ['fern', 'moss']) {
    const dir = `apps/${app}/${IA}`;
    files[`apps/${app}/_bmad/bmm/config.yaml`] = config(app);
    files[`${dir}/sprint-status.yaml`] = ledger(['epic-1: in-progress', '1-1-dig: done', '1-2-plant: ready-for-dev', '1-3-water: backlog']);
    files[`${dir}/1-1-dig.md`] = story('1.1', `Dig ${app}`, 'done');
    files[`${dir}/1-2-plant.md`] = story('1.2', `Plant ${app}`, 'ready-for-dev');
  }
  return files;
}

test('two sibling apps with the same story keys: the board holds every story of both, each under an id of its own', () => {
  inProject(twoApps(), (root) => {
    const b = json(root, 'board') as Board;
    const all = Object.values(b.columns).flat().filter((e) => e.kind === 'story');
    const files = all.map((e) => e.file ?? '').sort();
    assert.deepEqual(files, [
      `apps/fern/${IA}/1-1-dig.md`, `apps/fern/${IA}/1-2-plant.md`, '', // fern's 1.3: ledger only
      `apps/moss/${IA}/1-1-dig.md`, `apps/moss/${IA}/1-2-plant.md`, '',
    ].sort(), JSON.stringify(all));
    assert.equal(new Set(all.map((e) => e.id)).size, 6, JSON.stringify(all.map((e) => e.id)));
    // Each app's 1.2 waits on its own 1.1 (done), not the other's; each 1.3 on its own 1.2.
    const ready = b.columns.ready.filter((e) => e.kind === 'story');
    assert.deepEqual(ready.map((e) => e.file).sort(), [`apps/fern/${IA}/1-2-plant.md`, `apps/moss/${IA}/1-2-plant.md`]);
    // Each app's 1.3 (ledger only) waits on its own 1.2: two different prerequisites, the two ready stories.
    const thirds = all.filter((e) => !e.file);
    assert.deepEqual(thirds.map((e) => e.waitingOn.length), [1, 1], JSON.stringify(thirds));
    assert.deepEqual(thirds.flatMap((e) => e.waitingOn).sort(), ready.map((e) => e.id).sort(), JSON.stringify(thirds));
  });
});

test('two sibling apps with the same story keys: `next` from the root offers the ready story of each app', () => {
  inProject(twoApps(), (root) => {
    const n = json(root, 'next') as { ready: Entry[] };
    assert.deepEqual(n.ready.filter((e) => e.kind === 'story').map((e) => e.file).sort(), [`apps/fern/${IA}/1-2-plant.md`, `apps/moss/${IA}/1-2-plant.md`], JSON.stringify(n.ready));
  });
});

// Session 34, investigator a (issue 20): held-out batch 34a. Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s34/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

type Item = { id: string; file?: string };
const offered = (root: string): Item[] => {
  const n = json(root, 'next') as { next: Item | null; ready: Item[] };
  return [...(n.next ? [n.next] : []), ...n.ready];
};

// A team's playbook (an agent squad's `workflows/` folder) describes a workflow: `workflow:` names it
// and `steps:` lists who does what (`- agent: … / task: …`), none of them a step id. It records no
// status and no progress: a description, not a run. `next` must not offer it as ready work.
test('`next` never offers a workflow description whose steps are agent/task entries with no status and no step ids', () => {
  inProject({
    'crew/launch/workflows/harvest-day.md': '---\nworkflow: Harvest Day\ndescription: Bring the crop in\nsteps:\n  - agent: "@picker"\n    task: Pick the rows in order\n  - agent: "@packer"\n    task: Box and label the crates\n---\n\n# Harvest Day\n\n## Phases\n\n1. Pick\n2. Pack\n',
    // A file with a status is still work to offer.
    'plans/tidy.md': '---\nworkflow: tidy-shed\nstatus: created\nsteps:\n  - sweep\n  - sort\n---\n\n# Tidy the shed\n',
  }, (root) => {
    const items = offered(root);
    assert.deepEqual(items.filter((i) => (i.file ?? '').includes('harvest-day')), []);
    assert.ok(items.some((i) => (i.file ?? '').includes('tidy')), JSON.stringify(items));
  });
});

type S = { key: string; title?: string; status: string; file?: string };
const stories = (d: { epics: { stories: S[] }[] }) => d.epics.flatMap((e) => e.stories);
const lettered = (id: string, title: string, status: string) => `# Story ${id} — ${title}\n\n> **Epic:** ${id.split('.')[0]} - Orchard\n> **Status:** ${status}\n\n## Story\n\nAs a grower,\nI want ${title.toLowerCase()},\nso that fruit keeps.\n\n## Acceptance Criteria\n\n1. It works\n\n## Tasks / Subtasks\n\n- [ ] Build it\n`;

// Epics named by letters joined to their number (`E3`), in the file name (`E3.1.slug.md`) and the
// title (`# Story E3.1 — title`): the title is the story's. A second plan round that numbers its
// stories again (`E3.1.cold-store.md` beside `E3.1.grading-belt.md`, each its own title and status)
// has two stories, each listed (and the shared number said once), not one silently dropped.
test('`# Story E3.1 — title` is story E3.1\'s title; two titled files numbered E3.1 are both listed', () => {
  inProject({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'docs/stories/E3.1.grading-belt.md': lettered('E3.1', 'Grading belt', 'Ready for Review'),
    'docs/stories/E3.1.cold-store.md': lettered('E3.1', 'Cold store', 'Approved'),
    'docs/stories/E3.2.crate-labels.md': lettered('E3.2', 'Crate labels', 'Done'),
  }, (root) => {
    const ss = stories(json(root, 'sprint'));
    assert.deepEqual(ss.map((s) => [path.basename(s.file ?? ''), s.title]).sort(), [
      ['E3.1.cold-store.md', 'Cold store'], ['E3.1.grading-belt.md', 'Grading belt'], ['E3.2.crate-labels.md', 'Crate labels'],
    ]);
  });
});

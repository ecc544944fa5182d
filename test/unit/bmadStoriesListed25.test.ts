// Stories on disk that `waymark sprint` did not list (session 25, issue 20: "every ledger story takes
// part"; the corpus runner's "stories listed" column). Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { storyKeyFromName } from '../../src/core/bmad/story';
import { loadSprint } from '../../src/core/bmad/sprint';

const NOW = new Date('2026-02-12T09:00:00Z');

function tempProject(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-listed-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

test('story-E8.10.md and story-AP-1.1.md: the letters that say "epic" glued to its number, a module prefix before it', () => {
  const n = (f: string) => { const s = storyKeyFromName(f); return s && `${s.epicId}.${s.story}`; };
  assert.equal(n('story-E8.10.md'), '8.10');
  assert.equal(n('story-Ep3.2-slug.md'), '3.2');
  assert.equal(n('story-AP-1.1.md'), 'ap-1.1');
  assert.equal(n('story-UGM-3.8-offline-queue.md'), 'ugm-3.8');
  // Not stories: a dated note, a plan with no story number.
  assert.equal(n('story-2026-01-12.md'), undefined);
  assert.equal(n('story-map.md'), undefined);
});

test('with no ledger, stories named story-AP-1.1.md and story-E2.1.md are listed under their epics, and matched to planned keys', () => {
  const root = tempProject({
    'bmad/bmm/config.yaml': "dev_story_location: '{project-root}/docs/stories'\noutput_folder: '{project-root}/docs'\n",
    'docs/stories/story-1.1.md': '# Story 1.1: Setup\n\nStatus: done\n',
    'docs/stories/story-E2.1.md': '# Story E2.1: Secret mode\n\n**Story ID**: E2.1\n**Status**: Ready for Review\n',
    'docs/stories/story-AP-1.1.md': '# Story AP-1.1: Roles\n\n## Status\nIn Progress\n',
    'docs/stories/story-AP-1.2.md': '# Story AP-1.2: Permissions\n\n## Status\nBacklog\n',
  });
  try {
    const d = loadSprint(root, { now: NOW })!;
    const listed = d.stories.filter((s) => s.file).map((s) => `${s.epicId}.${s.story} ${path.basename(s.file!)} ${s.status}`).sort();
    assert.deepEqual(listed, [
      '1.1 story-1.1.md done',
      '2.1 story-E2.1.md review',
      'ap-1.1 story-AP-1.1.md in-progress',
      'ap-1.2 story-AP-1.2.md backlog',
    ]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

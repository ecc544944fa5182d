// Real projects read right (issue 20, ninth corpus round, part b, measured on projects not seen
// before): a status with an emoji or mark before its word (`status: ✅ COMPLETED` in a story's
// frontmatter, `✅ done` in the ledger) is that word, as one with the emoji after it already was.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseStory } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';

const NOW = new Date('2026-11-28T18:00:00Z');

/** A project in a new temp folder: `files` maps a relative path to its text. */
function project(files: Record<string, string>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus9b-')));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('a status with an emoji or mark before its word', () => {
  test('a story frontmatter `status: ✅ COMPLETED` is Completed, and the quick fix replaces the word alone', () => {
    const text = '---\ntitle: Greenhouse Sensors\nstatus: ✅ COMPLETED\nepic: 2\nstory: 1\n---\n\n# User Story: As a grower I want sensor readings.\n\n## Tasks\n- [x] Read the sensors\n';
    const s = parseStory('/p/docs/stories/2.1.story.md', text);
    assert.equal(s.status, 'COMPLETED');
    assert.equal(s.statusForm, 'frontmatter');
    const line = text.split('\n')[s.statusLine!];
    assert.equal(line.slice(s.statusStart, s.statusEnd), 'COMPLETED');
  });

  test('other marks before the word: `🚧 In Progress`, `**Review**`, a quoted `"⏳ backlog"`', () => {
    const at = (v: string) => parseStory('/p/stories/3-1-x.md', `---\nstatus: ${v}\n---\n# Story 3.1: X\n`).status;
    assert.equal(at('🚧 In Progress'), 'In Progress');
    assert.equal(at('**Review**'), 'Review');
    assert.equal(at('"⏳ backlog"'), 'backlog');
    assert.equal(at('done'), 'done');
    assert.equal(at('ready-for-dev # set by create-story'), 'ready-for-dev');
  });

  test('v4 stories whose frontmatter says `✅ COMPLETED` with every task ticked earn no warning', () => {
    const story = (n: number) => `---\ntitle: Greenhouse part ${n}\nstatus: ✅ COMPLETED\nepic: 2\nstory: ${n}\n---\n\n# User Story: As a grower I want part ${n}.\n\n## Tasks\n- [x] Build part ${n}\n`;
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/2.1.story.md': story(1),
      'docs/stories/2.2.story.md': story(2),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const onStories = r.problems.filter((p) => p.file.endsWith('.md') && p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(onStories, []);
  });

  test('a ledger value `✅ done` is done, `🚧 in-progress` in-progress; a story file disagreeing is drift', () => {
    const led = parseLedger('/p/sprint-status.yaml', 'development_status:\n  epic-1: "🚧 in-progress"\n  1-1-seed-tray: "✅ done"\n  1-2-water-timer: 🚧 in-progress\n');
    assert.equal(led.byKey.get('1-1-seed-tray')?.status, 'done');
    assert.equal(led.byKey.get('1-2-water-timer')?.status, 'in-progress');
    assert.equal(led.byKey.get('epic-1')?.status, 'in-progress');
    const dir = project({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-seed-tray: ✅ done\n  1-2-water-timer: ✅ done\n',
      '_bmad-output/implementation-artifacts/1-1-seed-tray.md': '# Story 1.1: Seed Tray\n\nStatus: done\n\n## Tasks\n- [x] Tray\n',
      '_bmad-output/implementation-artifacts/1-2-water-timer.md': '# Story 1.2: Water Timer\n\nStatus: review\n\n## Tasks\n- [x] Timer\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const drift = new Set(r.problems.filter((p) => p.code === 'story-status-drift').map((p) => String(p.data?.key)));
    assert.deepEqual([...drift], ['1-2-water-timer']);
  });
});

// Real projects read right (issue 20, ninth corpus round, part b, measured on projects not seen
// before): a status with an emoji or mark before its word (`status: ✅ COMPLETED` in a story's
// frontmatter, `✅ done` in the ledger) is that word, as one with the emoji after it already was; a
// document whose fields name a file of the installed method (a validation report's `checklist:
// bmad/bmm/workflows/…/checklist.md`) is BMAD's, whatever its `workflow:` says, and `next` never
// offers to start it.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseStory } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { scanRoots } from '../../src/core/store/scan';
import { buildRegistry } from '../../src/core/project/registry';
import { computeFrontier } from '../../src/core/project/frontier';

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

describe('a document naming a file of the installed BMAD method', () => {
  const report = (checklist: string) => `---\ntitle: PRD Validation Report - Lantern\ndate: 2025-12-10\nworkflow: prd\ndocument: docs/PRD.md\nchecklist: ${checklist}\n---\n\n# PRD Validation Report\n\n- Overall: PASS (85%)\n`;

  for (const checklist of ['bmad/bmm/workflows/2-plan-workflows/prd/checklist.md', '"{project-root}/_bmad/bmm/workflows/2-plan-workflows/prd/checklist.md"', '.bmad-core/checklists/pm-checklist.md']) {
    test(`a validation report with \`workflow: prd\` and \`checklist: ${checklist}\` is BMAD's, and next does not offer it`, async () => {
      const dir = project({
        'docs/validation-report-2025-12-10.md': report(checklist),
        'docs/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-lamp-post: backlog\n',
      });
      const res = await scanRoots([dir], { index: false, sprint: true });
      const w = res.workflows.find((x) => x.file.endsWith('validation-report-2025-12-10.md'));
      assert.ok(w, 'the report is listed');
      assert.equal(w.dialect, 'bmad');
      assert.deepEqual(w.problems.filter((p) => p.severity === 'error').map((p) => p.code), []);
      const f = computeFrontier(buildRegistry(res.workflows, [...res.sprints.values()].flat()), { now: NOW });
      const ready = f.ready.map((e) => e.item.rel ?? e.item.id);
      assert.ok(!ready.includes('docs/validation-report-2025-12-10.md'), `offered: ${ready.join(', ')}`);
    });
  }

  test('a Waymark workflow with a steps list stays Waymark\'s, and a path that only mentions bmad is no evidence', async () => {
    const dir = project({
      'flows/release.md': '---\nworkflow: release\nsteps: [build, ship]\nstatus: in_progress\nnotes: see bmad/bmm/workflows/prd/checklist.md\n---\n# Release\n',
      'flows/audit.md': '---\nworkflow: audit\nsource: github.com/acme/bmad-notes\n---\n# Audit\n',
    });
    const res = await scanRoots([dir], { index: false });
    const dialect = (name: string) => res.workflows.find((x) => x.file.endsWith(name))?.dialect;
    assert.equal(dialect('release.md'), 'waymark');
    assert.equal(dialect('audit.md'), 'waymark');
  });
});

describe('two files with one story number and no ledger', () => {
  test('the one stating a status is the story, the one stating none (a quick-start note) is not, whichever sorts first', () => {
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/2.2-README.md': '# Story 2.2: Irrigation Scheduling - Quick Start\n\n## What is done\n- Valves wired\n',
      'docs/stories/2.2.irrigation-scheduling.md': '# Story 2.2: Irrigation Scheduling\n\n**Status**: Ready for Development\n\n## Tasks\n- [ ] Schedule the valves\n',
      'docs/stories/2.3.frost-alerts.md': '# Story 2.3: Frost Alerts\n\n## Status\nDraft\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const files = r.stories.map((s) => `${s.key} ${s.file ? path.basename(s.file) : '-'} ${s.status}`);
    assert.deepEqual(files, ['2-2-irrigation-scheduling 2.2.irrigation-scheduling.md ready-for-dev', '2-3-frost-alerts 2.3.frost-alerts.md ready-for-dev']);
  });
});

describe('a story file that says it is blocked, with no ledger to say otherwise', () => {
  test('a v4 story `**BLOCKED - Needs Investigation**` under `## Status` is a note, not a warning', () => {
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/9.1.pump-driver.md': '# Story 9.1: Pump Driver\n\n## Status\n**BLOCKED - Needs Investigation and Rewrite**\n\n**Reason:** the pump model is unknown\n\n## Tasks\n- [ ] Drive the pump\n',
      'docs/stories/9.2.pump-schedule.md': '# Story 9.2: Pump Schedule\n\n## Status\nBogus\n\n## Tasks\n- [ ] Schedule\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const of = (name: string) => r.problems.filter((p) => p.file.endsWith(name) && p.code === 'story-unknown-status').map((p) => p.severity);
    assert.deepEqual(of('9.1.pump-driver.md'), ['info']);
    assert.deepEqual(of('9.2.pump-schedule.md'), ['warning'], 'a word that says nothing is still a warning');
  });

  test('a ledger that records the story as blocked too agrees with it; one at done does not', () => {
    const dir = project({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-9: in-progress\n  9-1-pump-driver: blocked\n  9-2-pump-schedule: done\n',
      '_bmad-output/implementation-artifacts/9-1-pump-driver.md': '# Story 9.1: Pump Driver\n\nStatus: Blocked\n\n## Tasks\n- [ ] Drive\n',
      '_bmad-output/implementation-artifacts/9-2-pump-schedule.md': '# Story 9.2: Pump Schedule\n\nStatus: Blocked\n\n## Tasks\n- [x] Schedule\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const warned = r.problems.filter((p) => p.file.endsWith('.md') && p.severity === 'warning').map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(warned, ['9-2-pump-schedule.md story-status-drift']);
  });
});

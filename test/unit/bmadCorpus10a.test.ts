// Real projects read right (issue 20, tenth corpus round, part a, measured on projects not seen
// before): a story held for later in other words (`Postponed`, `Shelved`, `Suspended`) or given up
// (`Skipped`, `Deprecated`, `Withdrawn`) is set aside, never an unknown status nor work to start;
// Chinese status words built as "not yet X" (`未实现`), "awaiting X" (`待实施`) and "reviewed,
// awaiting fixes" (`已审核待修复`) are backlog, ready-for-dev and in-progress; an epic named by a
// number with words after it (`epic-1a-plus`, the project's "Epic 1a+") owns the stories numbered
// under it (`1a-plus-1-slug`), so a story file ahead of the ledger there is drift.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus, parseStory, setAsideStatus } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { scanRoots } from '../../src/core/store/scan';
import { buildRegistry } from '../../src/core/project/registry';
import { computeFrontier } from '../../src/core/project/frontier';
import { workspace } from './fileHelpers';

const NOW = new Date('2026-11-28T21:00:00Z');

/** A project in a new temp folder (no `.waymark`): `files` maps a relative path to its text. */
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-corpus10a-', waymark: false });

const problemsOn = (dir: string) => loadSprint(dir, { now: NOW })!.problems
  .filter((p) => p.file.endsWith('.md') && p.severity !== 'info')
  .map((p) => `${path.basename(p.file)} ${p.code}`);

describe('a story held for later or given up, in the words projects use', () => {
  test('held: postponed, shelved, suspended (as on hold, paused, deferred)', () => {
    for (const w of ['Postponed', 'POSTPONED', '⏸️ Shelved', '**Suspended** (waiting on the vendor)']) {
      const aside = setAsideStatus(w);
      assert.ok(aside && ['postponed', 'shelved', 'suspended'].includes(aside), `${w} → ${aside}`);
    }
    assert.equal(setAsideStatus('Postponed to v2'), 'postponed');
  });

  test('given up: skipped, deprecated, withdrawn', () => {
    assert.equal(setAsideStatus('Skipped'), 'skipped');
    assert.equal(setAsideStatus('❌ Deprecated'), 'deprecated');
    assert.equal(setAsideStatus('Withdrawn (merged into 2.4)'), 'withdrawn');
  });

  test('words that only start alike set nothing aside', () => {
    assert.equal(setAsideStatus('Suspense UI'), undefined);
    assert.equal(setAsideStatus('Shelves'), undefined);
    assert.equal(setAsideStatus('In Progress'), undefined);
  });

  test('a v4 story whose `## Status` says Postponed earns no warning, and `next` does not offer it', async () => {
    const story = (n: number, status: string, ticked: boolean) =>
      `# Story 1.${n}: Sign-in part ${n}\n\n## Status\n\n${status}\n\n## Story\n\nAs a user I want part ${n}.\n\n## Tasks / Subtasks\n\n- [${ticked ? 'x' : ' '}] Build part ${n}\n`;
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/1.1.first-part.story.md': story(1, 'Done', true),
      'docs/stories/1.2.second-part.story.md': story(2, 'Done', true),
      'docs/stories/1.3.apple-sign-in.story.md': story(3, 'Postponed', false),
    });
    assert.deepEqual(problemsOn(dir), []);
    const s = loadSprint(dir, { now: NOW })!;
    assert.equal(s.stories.find((x) => x.key.startsWith('1-3'))?.status, 'postponed');
    const res = await scanRoots([dir], { index: false, sprint: true });
    const f = computeFrontier(buildRegistry(res.workflows, [...res.sprints.values()].flat()), { now: NOW });
    const offered = f.ready.map((e) => String(e.item.rel ?? e.item.id)).filter((x) => /1[.-]3/.test(x));
    assert.deepEqual(offered, []);
  });

  test('with a ledger still at backlog a postponed story is held, not drift; at in-progress it is', () => {
    const files = (ledger: string) => ({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': `development_status:\n  epic-1: in-progress\n  1-1-sign-in: done\n  1-2-apple-sign-in: ${ledger}\n`,
      '_bmad-output/implementation-artifacts/1-1-sign-in.md': '# Story 1.1: Sign In\n\nStatus: done\n\n## Tasks\n- [x] Form\n',
      '_bmad-output/implementation-artifacts/1-2-apple-sign-in.md': '# Story 1.2: Apple Sign In\n\nStatus: Postponed\n\n## Tasks\n- [ ] Button\n',
    });
    assert.deepEqual(problemsOn(project(files('backlog'))), []);
    const r = loadSprint(project(files('in-progress')), { now: NOW })!;
    assert.ok(r.problems.some((p) => p.severity !== 'info' && String(p.data?.key) === '1-2-apple-sign-in'), 'a postponed story the ledger still lists as in progress is reported');
  });
});

describe('Chinese status words: not yet X, awaiting X, reviewed and awaiting fixes', () => {
  test('the words read as BMAD statuses', () => {
    assert.equal(normalizeStoryStatus('未实现').status, 'backlog');
    assert.equal(normalizeStoryStatus('未開發').status, 'backlog');
    assert.equal(normalizeStoryStatus('待实施').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('待實現').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('已审核待修复').status, 'in-progress');
    assert.equal(normalizeStoryStatus('需修复').status, 'in-progress');
    // the words already known keep their meaning
    assert.equal(normalizeStoryStatus('待开发').status, 'ready-for-dev');
    assert.equal(normalizeStoryStatus('未开始').status, 'backlog');
    assert.equal(normalizeStoryStatus('已完成').suggestion ?? normalizeStoryStatus('已完成').status, 'done');
  });

  test('a bold label with an emoji before the word (`**状态**: 🔄 已审核待修复 (…)`) is read', () => {
    const s = parseStory('/p/stories/2-5-archive.md', '# 故事 2.5: 归档\n\n## 故事标识\n- **状态**: 🔄 已审核待修复 (Party Mode Review Applied)\n');
    assert.equal(normalizeStoryStatus(s.status!).status, 'in-progress');
  });

  test('story files ahead of a ledger still at backlog are drift; one not yet implemented is not', () => {
    const dir = project({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-2: backlog\n  2-1-backup: backlog\n  2-2-archive: backlog\n  2-3-security: backlog\n',
      '_bmad-output/implementation-artifacts/stories/2-1-backup.md': '# 故事: 2.1 - 备份\n\n**状态：** 未实现\n\n## 任务\n- [ ] 备份\n',
      '_bmad-output/implementation-artifacts/stories/2-2-archive.md': '# 故事 2.2: 归档\n\n- **状态**: 🔄 已审核待修复 (Party Mode Review Applied)\n\n## 任务\n- [x] 表\n- [ ] 触发器\n',
      '_bmad-output/implementation-artifacts/stories/2-3-security.md': '# 故事 2.3: 安全\n\n**状态:** 📝 待实施\n\n## 任务\n- [ ] 扫描\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const drift = [...new Set(r.problems.filter((p) => p.code === 'story-status-drift').map((p) => String(p.data?.key)))].sort();
    assert.deepEqual(drift, ['2-2-archive', '2-3-security']);
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-unknown-status').map((p) => path.basename(p.file)), []);
  });
});

describe('an epic named by a number with words after it', () => {
  const LEDGER = 'development_status:\n  epic-1a: done\n  1a-1-memory: done\n  epic-1a-retrospective: done\n  epic-1a-plus: backlog\n  1a-plus-1-daemon-heartbeat: backlog\n  1a-plus-2-orchestration: backlog\n  epic-1a-plus-retrospective: optional\n';

  test('`epic-1a-plus` is an epic and `1a-plus-1-slug` its story 1, beside epic 1a', () => {
    const led = parseLedger('/p/sprint-status.yaml', LEDGER);
    const at = (k: string) => { const e = led.byKey.get(k); return e && `${e.kind} ${e.epicId}${e.story ? `.${e.story}` : ''} ${e.status}`; };
    assert.equal(at('epic-1a-plus'), 'epic 1a-plus backlog');
    assert.equal(at('1a-plus-1-daemon-heartbeat'), 'story 1a-plus.1 backlog');
    assert.equal(at('1a-plus-2-orchestration'), 'story 1a-plus.2 backlog');
    assert.equal(at('epic-1a-plus-retrospective'), 'retro 1a-plus optional');
    assert.equal(at('1a-1-memory'), 'story 1a.1 done');
    assert.equal(at('epic-1a'), 'epic 1a done');
  });

  test('an epic key with a title but no stories under it stays as it was', () => {
    const led = parseLedger('/p/sprint-status.yaml', 'development_status:\n  epic-1: in-progress\n  epic-1-foundation: done\n  1-1-setup: done\n');
    assert.equal(led.byKey.get('1-1-setup')?.epicId, '1');
    assert.notEqual(led.byKey.get('epic-1-foundation')?.epicId, '1-foundation');
  });

  test('a story file of epic 1a-plus ahead of the ledger is drift', () => {
    const dir = project({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': LEDGER,
      '_bmad-output/implementation-artifacts/stories/1a-1-memory.md': '# Story 1a.1: Memory\n\nStatus: done\n\n## Tasks\n- [x] Store\n',
      '_bmad-output/implementation-artifacts/stories/1a-plus-1-daemon-heartbeat.md': '# Story 1a+.1: Daemon Heartbeat\n\nStatus: ready-for-dev\n\n## Tasks\n- [ ] Beat\n',
      '_bmad-output/implementation-artifacts/stories/1a-plus-2-orchestration.md': '# Story 1a+.2: Orchestration\n\nStatus: backlog\n\n## Tasks\n- [ ] Graph\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const drift = [...new Set(r.problems.filter((p) => p.code === 'story-status-drift').map((p) => String(p.data?.key)))];
    assert.deepEqual(drift, ['1a-plus-1-daemon-heartbeat']);
    assert.ok(r.stories.some((s) => s.key === '1a-plus-2-orchestration' && s.file), 'the story file is bound to its ledger key');
  });
});

describe('a ledger key that says `story-` before the epic and story numbers', () => {
  const LEDGER = 'development_status:\n  # EPIC 001\n  epic-001: in-progress\n  story-001-1-define-module-architecture: done\n  story-001-2-write-decision-records: in-progress\n  epic-001-retrospective: optional\n  epic-002: backlog\n  story-002-1-extract-card: backlog\n';

  test('`story-001-1-slug` is story 1 of epic 001, as `001-1-slug` would be', () => {
    const led = parseLedger('/p/sprint-status.yaml', LEDGER);
    const at = (k: string) => { const e = led.byKey.get(k); return e && `${e.kind} ${e.epicId}${e.story ? `.${e.story}` : ''} ${e.status}`; };
    assert.equal(at('story-001-1-define-module-architecture'), 'story 001.1 done');
    assert.equal(at('story-001-2-write-decision-records'), 'story 001.2 in-progress');
    assert.equal(at('story-002-1-extract-card'), 'story 002.1 backlog');
  });

  test('the ledger earns no "epic missing" warning, and its stories are the sprint\'s', () => {
    const dir = project({ 'docs/sprint-status.yaml': LEDGER, 'bmad/bmm/config.yaml': 'output_folder: "{project-root}/docs"\n' });
    const r = loadSprint(dir, { now: NOW })!;
    // (the stories started with no file stay `ledger-story-no-file`: the fixture has none)
    assert.deepEqual(r.problems.filter((p) => p.code !== 'ledger-story-no-file').map((p) => p.code), []);
    assert.deepEqual(r.stories.map((s) => `${s.key} ${s.status}`), ['story-001-1-define-module-architecture done', 'story-001-2-write-decision-records in-progress', 'story-002-1-extract-card backlog']);
  });
});

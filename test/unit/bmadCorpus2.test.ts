// Real projects read right (issue 20, second corpus round): a project keeping one ledger per
// module (`docs/modules/*/sprint-status.yaml`), every ledger taking part in drift, sprint, next
// and the write paths, each entry with its own ledger file.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { setStoryStatus } from '../../src/core/bmad/storyWrite';
import { normalizeStoryStatus, parseStory } from '../../src/core/bmad/story';
import { declaredOutputs } from '../../src/core/bmad/artifacts';
import type { Problem } from '../../src/core/types';

const CLI = path.resolve('dist/cli.js');
const MODULES = path.resolve('test/fixtures/bmad-modules');
const ORDERS = path.join(MODULES, 'docs', 'modules', 'bm-orders');
const LEDGERS = path.join(MODULES, 'docs', 'modules', 'bm-ledger');
const NOW = new Date('2026-01-10T09:00:00Z');
const show = (ps: Problem[]) => ps.map((p) => `${path.relative(MODULES, p.file)}:${p.range.start.line + 1} ${p.severity} ${p.code}`);

function copy(src: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus2-'));
  fs.cpSync(src, root, { recursive: true });
  return root;
}

const run = (cwd: string, args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd, env: { ...process.env, WAYMARK_ACTOR: 'tester', NO_COLOR: '1' } });

describe('a project with one ledger per module', () => {
  test('every live ledger is read; each story and epic carries its own ledger file; the archived one is not read', () => {
    const r = loadSprint(MODULES, { now: NOW })!;
    assert.ok(r, 'the sprint is found');
    assert.deepEqual(r.ledgerFiles.map((f) => path.relative(MODULES, f)).sort(), ['docs/modules/bm-ledger/sprint-status.yaml', 'docs/modules/bm-orders/sprint-status.yaml']);
    const keys = r.stories.map((s) => s.key).sort();
    assert.deepEqual(keys, ['lg-01-1-account-chart', 'lg-02-1-journal-import', 'lg-02-2-trial-balance', 'or-01-1-order-model', 'or-01-2-cart-totals', 'or-02-1-refunds']);
    const s = (k: string) => r.stories.find((x) => x.key === k)!;
    assert.equal(s('or-01-2-cart-totals').ledgerFile, path.join(ORDERS, 'sprint-status.yaml'));
    assert.equal(s('lg-02-1-journal-import').ledgerFile, path.join(LEDGERS, 'sprint-status.yaml'));
    assert.equal(s('or-01-1-order-model').file, path.join(ORDERS, 'stories', 'or-01-1-order-model.md'));
    assert.equal(s('lg-02-2-trial-balance').status, 'backlog');
    const epic = r.epics.find((e) => e.id === 'or-01')!;
    assert.equal(epic.ledgerStatus, 'done');
    assert.equal(epic.retrospective, 'optional', 'or-01-retrospective is the retrospective of module epic or-01');
    assert.equal(epic.ledgerFile, path.join(ORDERS, 'sprint-status.yaml'));
  });

  test('drift is found in each module and reported against its own ledger; clean stories get nothing', () => {
    const r = loadSprint(MODULES, { now: NOW })!;
    const drift = r.problems.filter((p) => p.code === 'story-status-drift');
    assert.deepEqual(show(drift).sort(), [
      'docs/modules/bm-ledger/sprint-status.yaml:9 info story-status-drift',
      'docs/modules/bm-ledger/stories/lg-02-1-journal-import.md:3 info story-status-drift',
      'docs/modules/bm-orders/sprint-status.yaml:10 info story-status-drift',
      'docs/modules/bm-orders/stories/or-01-2-cart-totals.md:3 warning story-status-drift',
    ]);
    // The drifted story's ledger says done with a task open; nothing else is louder than a note.
    const loud = r.problems.filter((p) => p.severity !== 'info' && p.code !== 'story-status-drift');
    assert.deepEqual(show(loud), ['docs/modules/bm-orders/stories/or-01-2-cart-totals.md:12 warning story-done-tasks-open']);
    // The synonym note is on the ledger that has it.
    const legacy = r.problems.filter((p) => p.code === 'ledger-legacy-status');
    assert.deepEqual(show(legacy), ['docs/modules/bm-ledger/sprint-status.yaml:10 info ledger-legacy-status']);
  });

  test('story set-status writes the ledger the story is listed in, and no other', async () => {
    const root = copy(MODULES);
    try {
      const orders = fs.readFileSync(path.join(root, 'docs/modules/bm-orders/sprint-status.yaml'), 'utf8');
      const r = await setStoryStatus(root, 'lg-02-1-journal-import', 'review', { now: NOW, actor: 'tester' });
      assert.equal(r.changed, true);
      assert.deepEqual(r.written.map((f) => path.relative(root, f)).sort(), ['docs/modules/bm-ledger/sprint-status.yaml']);
      assert.match(fs.readFileSync(path.join(root, 'docs/modules/bm-ledger/sprint-status.yaml'), 'utf8'), /^ {2}lg-02-1-journal-import: review$/m);
      assert.equal(fs.readFileSync(path.join(root, 'docs/modules/bm-orders/sprint-status.yaml'), 'utf8'), orders);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('waymark fix on the second ledger edits that ledger', () => {
    const root = copy(MODULES);
    try {
      const r = run(root, ['fix', 'docs/modules/bm-ledger/sprint-status.yaml', 'ledger-legacy-status']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(fs.readFileSync(path.join(root, 'docs/modules/bm-ledger/sprint-status.yaml'), 'utf8'), /^ {2}lg-02-2-trial-balance: backlog$/m);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('sprint --json lists every ledger and the stories of both; next picks from both', () => {
    const r = run(MODULES, ['sprint', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(j.ledgers.sort(), ['docs/modules/bm-ledger/sprint-status.yaml', 'docs/modules/bm-orders/sprint-status.yaml']);
    const stories = j.epics.flatMap((e: { stories: { key: string; ledger: string | null }[] }) => e.stories);
    assert.equal(stories.length, 6);
    assert.equal(stories.find((s: { key: string }) => s.key === 'lg-01-1-account-chart').ledger, 'docs/modules/bm-ledger/sprint-status.yaml');
    assert.equal(j.next.action, 'dev-story');
  });
});

function tempProject(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus2-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}
const IMPL = '_bmad-output/implementation-artifacts';
const showIn = (root: string, ps: Problem[]) => ps.map((p) => `${path.relative(root, p.file)}:${p.range.start.line + 1} ${p.severity} ${p.code}`).sort();

describe('story status words by what BMAD does next', () => {
  test('dev-complete is development finished, waiting for code review: drift when the ledger says done', () => {
    assert.deepEqual(normalizeStoryStatus('dev-complete'), { status: 'review', exact: false });
    assert.deepEqual(normalizeStoryStatus('Dev Complete'), { status: 'review', exact: false });
    assert.deepEqual(normalizeStoryStatus('dev-ready'), { status: 'ready-for-dev', exact: false });
    assert.equal(normalizeStoryStatus('reviewed').suggestion, 'done');
    const root = tempProject({
      [`${IMPL}/sprint-status.yaml`]: 'development_status:\n  epic-2: in-progress\n  2-7-list-command: done\n  2-8-help: review\n  2-9-flags: done\n  2-10-export: ready-for-dev\n',
      [`${IMPL}/2-7-list-command.md`]: '# Story 2.7: List command\n\nStatus: dev-complete\n\n## Tasks\n\n- [x] one\n',
      [`${IMPL}/2-8-help.md`]: '# Story 2.8: Help\n\nStatus: dev-complete\n\n## Tasks\n\n- [x] one\n',
      [`${IMPL}/2-9-flags.md`]: '# Story 2.9: Flags\n\nStatus: reviewed\n\n## Tasks\n\n- [x] one\n',
      [`${IMPL}/2-10-export.md`]: '# Story 2.10: Export\n\nStatus: dev-ready\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      assert.deepEqual(showIn(root, d.problems.filter((p) => p.severity !== 'info')), [`${IMPL}/2-7-list-command.md:3 warning story-status-drift`]);
      const drift = d.problems.find((p) => p.code === 'story-status-drift' && p.severity === 'warning')!;
      assert.equal(drift.data?.ahead, 'ledger');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a story file with a frontmatter status beside its Status line', () => {
  const files = () => ({
    [`${IMPL}/sprint-status.yaml`]: 'development_status:\n  epic-5: in-progress\n  5-1-spawn-groups: done\n  5-2-pdf-mode: done\n  5-3-undo: done\n  5-4-only-front: done\n',
    // Frontmatter left at backlog while the Status section and the ledger say done.
    [`${IMPL}/5-1-spawn-groups.md`]: '---\ntitle: "Spawn groups"\nstatus: "backlog"\n---\n\n# Story 5.1: Spawn groups\n\n## Tasks\n\n- [x] one\n\n## Status\n- **Current Status**: done\n',
    // A status word inside a later Dev Agent Record is a log line; the frontmatter is the story's.
    [`${IMPL}/5-2-pdf-mode.md`]: '---\nid: "5.2"\nstatus: "done"\n---\n\n# Story 5.2: PDF mode\n\n## Tasks\n\n- [x] one\n\n## Dev Agent Record\n### 2026-01-18\n- **Status**: Review\n- **Agent**: Dev\n',
    // The Status line under the title says in-progress: the file contradicts the frontmatter and the ledger.
    [`${IMPL}/5-3-undo.md`]: '---\nstatus: done\n---\n\n# Story 5.3: Undo\n\nStatus: in-progress\n\n## Tasks\n\n- [x] one\n',
    // Only a frontmatter status: it is the story's status.
    [`${IMPL}/5-4-only-front.md`]: '---\nstatus: review\n---\n\n# Story 5.4: Only front\n\n## Tasks\n\n- [x] one\n',
  });

  test('each disagreement with the ledger is drift on its own line; a log line in a later section is not a status', () => {
    const root = tempProject(files());
    try {
      const d = loadSprint(root, { now: NOW })!;
      assert.deepEqual(showIn(root, d.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning')), [
        `${IMPL}/5-1-spawn-groups.md:3 warning story-status-drift`,
        `${IMPL}/5-3-undo.md:7 warning story-status-drift`,
        `${IMPL}/5-4-only-front.md:2 warning story-status-drift`,
      ]);
      assert.equal(d.stories.find((s) => s.key === '5-2-pdf-mode')!.fileStatus, 'done');
      assert.deepEqual(showIn(root, d.problems.filter((p) => p.file.endsWith('5-2-pdf-mode.md'))), []);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('waymark fix writes the frontmatter too, so the file says one thing', () => {
    const root = tempProject(files());
    try {
      const r = run(root, ['fix', `${IMPL}/5-1-spawn-groups.md`, 'story-status-drift']);
      assert.equal(r.status, 0, r.stderr);
      const text = fs.readFileSync(path.join(root, IMPL, '5-1-spawn-groups.md'), 'utf8');
      assert.match(text, /^status: "done"$/m);
      assert.match(text, /^- \*\*Current Status\*\*: done$/m);
      const d = loadSprint(root, { now: NOW })!;
      assert.deepEqual(showIn(root, d.problems.filter((p) => p.file.endsWith('5-1-spawn-groups.md'))), []);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a workflow keeping its work file under wipFile and naming the final file in prose', () => {
  test('declaredOutputs reads the wipFile key and a rename to the final file name', () => {
    const text = [
      '---', "wipFile: '{implementation_artifacts}/tech-spec-wip.md'", "templateFile: '../tech-spec-template.md'", '---', '',
      '2. Rename `{wipFile}` → `{implementation_artifacts}/tech-spec-{slug}.md` (its final filename).',
      'Read `{planning_artifacts}/prd.md` first.',
    ].join('\n');
    assert.deepEqual(declaredOutputs(text).map((o) => o.pattern), ['{implementation_artifacts}/tech-spec-wip.md', '{implementation_artifacts}/tech-spec-{slug}.md']);
  });

  test('the work file and the finished spec are identified, with their steps', () => {
    const dir = copy(path.resolve('test/fixtures/bmad-quickspec'));
    try {
      const st = run(dir, ['status', '--json']);
      assert.equal(st.status, 0, st.stderr);
      const wf = JSON.parse(st.stdout).workflows as { file: string; status: string }[];
      const files = wf.map((w) => w.file.replace(/\\/g, '/')).sort();
      assert.deepEqual(files, ['_bmad-output/implementation-artifacts/tech-spec-tide-tables.md', '_bmad-output/implementation-artifacts/tech-spec-wip.md']);
      const va = run(dir, ['validate', '--json']);
      const unknown = (JSON.parse(va.stdout).problems as { code: string; file: string }[]).filter((p) => p.code === 'bmad-workflow-unknown');
      assert.deepEqual(unknown, []);
      const done = wf.find((w) => w.file.endsWith('tech-spec-tide-tables.md')) as unknown as { workflow: string; identifiedBy: string; stepsSource: string };
      assert.deepEqual([done.workflow, done.identifiedBy, done.stepsSource], ['quick-spec', 'default_output_file', 'bmad']);
      const wip = wf.find((w) => w.file.endsWith('tech-spec-wip.md')) as unknown as { workflow: string; identifiedBy: string; nextStep: string };
      assert.deepEqual([wip.workflow, wip.identifiedBy, wip.nextStep], ['quick-spec', 'outputFile', 'step-02-investigate']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('status sections and words without a ledger', () => {
  test('a sentence under ## Status is not a status word; the frontmatter status stands', () => {
    const s = parseStory('/x/3-9-filters.md', '---\nstatus: "done"\n---\n\n# Story 3.9: Filters\n\n## Tasks\n\n- [x] a\n\n## Status\n- All acceptance criteria are met by the implementation.\n- Story status updated to `done` in `sprint-status.yaml`.\n');
    assert.equal(s.status, 'done');
    assert.equal(s.statusForm, 'frontmatter');
    const t = parseStory('/x/3-8-sort.md', '# Story 3.8: Sort\n\n## Status\n\nReady for QA Re-Review\n');
    assert.equal(t.status, 'Ready for QA Re-Review');
    assert.equal(normalizeStoryStatus('Ready for QA Re-Review').status, 'review');
    assert.equal(normalizeStoryStatus('Awaiting review').status, 'review');
  });

  test('without a ledger, Completed with every task ticked is a note, not a warning', () => {
    const root = tempProject({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/2.3.export.md': '# Story 2.3: Export\n\n## Status\n\nCompleted\n\n## Tasks / Subtasks\n\n- [x] one\n',
      'docs/stories/2.4.import.md': '# Story 2.4: Import\n\n## Status\n\nCompleted\n\n## Tasks / Subtasks\n\n- [ ] one\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      assert.deepEqual(showIn(root, d.problems.filter((p) => p.severity !== 'info')), ['docs/stories/2.4.import.md:5 warning story-unknown-status']);
      assert.deepEqual(showIn(root, d.problems.filter((p) => p.severity === 'info')), ['docs/stories/2.3.export.md:5 info story-legacy-status']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('next and the board never offer a story its file says is further along', () => {
  test('a story file saying done while the ledger says ready-for-dev is not work to start; the drift is reported', () => {
    const root = tempProject({
      '_bmad/bmm/config.yaml': 'implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\noutput_folder: "{project-root}/_bmad-output"\n',
      [`${IMPL}/sprint-status.yaml`]: 'development_status:\n  epic-1: in-progress\n  1-1-explainer: ready-for-dev\n  1-2-glossary: ready-for-dev\n',
      [`${IMPL}/1-1-explainer.md`]: '# Story 1.1: Explainer\n\nStatus: done\n\n## Tasks\n\n- [x] one\n',
      [`${IMPL}/1-2-glossary.md`]: '# Story 1.2: Glossary\n\nStatus: ready-for-dev\n\n## Tasks\n\n- [ ] one\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      assert.equal(d.next?.storyKey, '1-2-glossary');
      const r = run(root, ['next', '--json']);
      assert.equal(r.status, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      assert.equal(j.next.id, 'story:1-2-glossary');
      const b = run(root, ['board', '--json']);
      assert.equal(b.status, 0, b.stderr);
      const board = JSON.parse(b.stdout);
      const col = (c: string) => (board.columns[c] as { id: string }[]).map((x) => x.id);
      assert.ok(!col('ready').includes('story:1-1-explainer'), 'never offered to start again');
      assert.ok(col('done').includes('story:1-1-explainer'), 'where its file says it is');
      // The drift itself is reported, with the command that settles it.
      assert.ok(d.problems.some((p) => p.code === 'story-status-drift' && /set-status 1-1-explainer done/.test(p.message)));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a ledger in the project's own words", () => {
  test('a story file with a BMAD status against a different word of the project in the ledger is drift (no fix guessed)', () => {
    const root = tempProject({
      [`${IMPL}/sprint-status.yaml`]: 'development_status:\n  epic-10: in-progress\n  10-1-contracts: deployed-awaiting-smoke\n  10-2-quotes: deferred\n',
      [`${IMPL}/10-1-contracts.md`]: '# Story 10.1: Contracts\n\nStatus: inprogress (v3, smoke pending)\n',
      [`${IMPL}/10-2-quotes.md`]: '# Story 10.2: Quotes\n\nStatus: deferred\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      const drift = d.problems.filter((p) => p.code === 'story-status-drift');
      assert.deepEqual(showIn(root, drift), [`${IMPL}/10-1-contracts.md:3 warning story-status-drift`]);
      assert.equal(drift[0].data?.fix, undefined, 'which side is right is not guessed');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('story files named by number only, beside another set numbered alike', () => {
  test('a file named for another story (2-1-notebook-introduction) is not the ledger\'s 2-1-dependency-graph-builder; story-2.1.md is, and its drift is found', () => {
    const dir = path.resolve('test/fixtures/bmad-id-named');
    const r = loadSprint(dir, { now: NOW })!;
    const s = r.stories.find((x) => x.key === '2-1-dependency-graph-builder')!;
    assert.equal(s.file && path.relative(dir, s.file), 'docs/stories/story-2.1.md');
    const drift = r.problems.filter((p) => p.code === 'story-status-drift').map((p) => path.relative(dir, p.file)).sort();
    assert.ok(drift.includes('docs/stories/story-2.1.md'), `drift on story-2.1.md (got ${drift.join(', ')})`);
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-file-duplicate').map((p) => path.relative(dir, p.file)), []);
  });
});

describe('v4 story statuses a team writes for work settled elsewhere', () => {
  test('a done word with commentary and no tasks is read as done, a story set aside (Deferred) is a note: neither is a warning', () => {
    const dir = copy(path.resolve('test/fixtures/bmad-v4'));
    const stories = path.join(dir, 'docs', 'stories');
    fs.writeFileSync(path.join(stories, '1.3.documents.md'), '# Story 1.3: Documents\n\n## Status\n✅ **Completed via Story 1.2** — October 21, 2025\n\n**Note**: built as part of the profile page.\n');
    fs.writeFileSync(path.join(stories, '1.4.dashboard.md'), '# Story 1.4: Dashboard\n\n## Status\n\nDeferred - Dashboard Removed from Project\n\n## Tasks\n\n- [ ] Charts\n');
    const r = loadSprint(dir, { now: NOW })!;
    const on = (name: string) => r.problems.filter((p) => path.basename(p.file) === name).map((p) => `${p.severity} ${p.code}`);
    assert.deepEqual(on('1.3.documents.md'), ['info story-legacy-status']);
    assert.deepEqual(on('1.4.dashboard.md'), ['info story-unknown-status']);
  });
});

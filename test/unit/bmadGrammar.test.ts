// The ledger and story forms real BMAD projects write beyond BMAD's strict templates (issue 20,
// items 3 and 4). The fixture test/fixtures/bmad-grammar is a clean project: every story's file
// and ledger agree, so no warning or error is expected anywhere in it.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseLedger, rewriteLedgerStatus } from '../../src/core/bmad/ledger';
import { parseStory, storyKeyFromName } from '../../src/core/bmad/story';
import { parseEpics } from '../../src/core/bmad/epics';
import { loadSprint, findStory } from '../../src/core/bmad/sprint';
import { buildRegistry } from '../../src/core/project/registry';
import type { Problem } from '../../src/core/types';

const ROOT = path.resolve('test/fixtures/bmad-grammar');
const IMPL = path.join(ROOT, '_bmad-output', 'implementation-artifacts');
const LEDGER = path.join(IMPL, 'sprint-status.yaml');
const NOW = new Date('2026-02-12T09:00:00Z');
const show = (ps: Problem[]) => ps.map((p) => `${path.basename(p.file)}:${p.range.start.line + 1} ${p.severity} ${p.code}`);

function tempProject(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-grammar-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe('the ledger as projects write it', () => {
  const text = fs.readFileSync(LEDGER, 'utf8');
  const l = parseLedger(LEDGER, text);
  const e = (k: string) => l.byKey.get(k)!;

  test('lettered, sub-epic and module-prefixed keys are read with their epic ids', () => {
    assert.deepEqual([e('epic-0-5').kind, e('epic-0-5').epicId], ['epic', '0-5']);
    assert.deepEqual([e('0-5-1-repo-bootstrap').kind, e('0-5-1-repo-bootstrap').epicId, e('0-5-1-repo-bootstrap').story], ['story', '0-5', '1']);
    assert.deepEqual([e('epic-0-5-retrospective').kind, e('epic-0-5-retrospective').epicId], ['retro', '0-5']);
    assert.deepEqual([e('3a-1-ranking-rules').epicId, e('3a-1-ranking-rules').story], ['3a', '1']);
    assert.deepEqual([e('epic-19b').kind, e('19b-2-export-audit').epicId], ['epic', '19b']);
    assert.deepEqual([e('epic-pm-01').kind, e('epic-pm-01').epicId], ['epic', 'pm-01']);
    assert.deepEqual([e('pm-01-2-phase-states').epicId, e('pm-01-2-phase-states').story], ['pm-01', '2']);
    assert.deepEqual([e('kb-03-6-page-links').epicId, e('kb-03-6-page-links').story], ['kb-03', '6']);
    // Strict BMAD keys stay strict; the others are marked for the one grammar note.
    assert.equal(e('3-1-search-index').strict, true);
    assert.equal(e('3a-1-ranking-rules').strict, false);
  });

  test('a value written as a mapping is its status: line; an empty value is read, and written with a space', () => {
    const m = e('pm-01-1-project-crud');
    assert.equal(m.shape, 'mapping');
    assert.equal(m.status, 'done');
    assert.equal(text.split('\n')[m.line].slice(m.valueStart, m.valueEnd), 'done');
    assert.equal(l.byKey.has('status'), false, 'the mapping line is not a key of its own');
    assert.equal(l.byKey.has('owner'), false);
    const empty = e('19b-3-import-audit');
    assert.equal(empty.shape, 'empty');
    assert.equal(empty.status, 'backlog');
    const written = rewriteLedgerStatus(text, l, '19b-3-import-audit', 'ready-for-dev', NOW);
    assert.match(written, /\n {2}19b-3-import-audit: ready-for-dev\n/);
    assert.equal(parseLedger(LEDGER, written).byKey.get('19b-3-import-audit')!.status, 'ready-for-dev');
  });

  test('last_updated with words after the date: the date is read, a rewrite keeps the words', () => {
    assert.equal(l.lastUpdated!.date!.toISOString(), '2026-02-10T00:00:00.000Z');
    assert.equal(l.problems.filter((p) => p.code === 'ledger-timestamp').length, 0);
    const written = rewriteLedgerStatus(text, l, '10-2-logout', 'done', NOW);
    assert.match(written, /\nlast_updated: 2026-02-12 \(after the 3a split\)\n/);
  });

  test("the project's own words are kept; unmistakable synonyms are mapped", () => {
    assert.equal(e('pm-01-2-phase-states').status, 'blocked');
    assert.equal(e('kb-03-6-page-links').status, 'deferred');
    assert.equal(e('10-3-session-expiry').status, 'in-progress');
    assert.equal(e('epic-19b').status, 'in-progress');
    assert.equal(e('epic-3-retrospective').status, 'done');
  });
});

describe('story files in every form', () => {
  const status = (name: string) => parseStory(path.join(IMPL, name), fs.readFileSync(path.join(IMPL, name), 'utf8')).status;

  test('Status line with an emoji or commentary, bold label, ## Status section and heading', () => {
    assert.equal(status('0-5-1-repo-bootstrap.md'), 'done');
    assert.equal(status('0-5-2-ci-pipeline.md'), 'done');
    assert.equal(status('3-1-search-index.md'), 'done');
    assert.equal(status('3-4-review-queue.md'), 'done');
    assert.equal(status('3a-1-ranking-rules.md'), 'in-progress');
    assert.equal(status('19b-2-export-audit.md'), 'review');
    assert.equal(status('10-2-logout.md'), 'review');
  });

  test('a ## Status section passes over other fields to find the status', () => {
    const s = parseStory('/x/4-1-a.md', '# Story 4.1: A\n\n## Status\n\n**Priority:** high\n- **Story Status:** review\n\n## Tasks\n\n- [x] one\n');
    assert.equal(s.status, 'review');
    assert.equal(s.statusLine, 5);
  });

  test('file names with retro or review in the slug are stories; titles with any epic id are read', () => {
    assert.deepEqual(storyKeyFromName('3-4-review-queue.md'), { key: '3-4-review-queue', epic: 3, epicId: '3', story: '4', v4: false });
    assert.equal(storyKeyFromName('5-2-retro-board.md')?.story, '2');
    assert.equal(storyKeyFromName('7-1-code-review.md')?.epicId, '7');
    assert.equal(storyKeyFromName('0-5-1-repo-bootstrap.md', ['0-5'])?.epicId, '0-5');
    assert.equal(storyKeyFromName('pm-01-9-budget-tracking.md')?.epicId, 'pm-01');
    assert.equal(storyKeyFromName('epic-3-retrospective.md'), undefined);
    const t = parseStory('/x/notes.md', '# Story PM-01.9: Budget tracking\n\nStatus: done\n');
    assert.deepEqual([t.epicId, t.story, t.title], ['pm-01', '9', 'Budget tracking']);
    const sub = parseStory('/x/notes.md', '# Story 0.5.1: Bootstrap\n\nStatus: done\n');
    assert.deepEqual([sub.epicId, sub.story, sub.title], ['0-5', '1', 'Bootstrap']);
  });
});

describe('the sprint of a project written in these forms', () => {
  const r = loadSprint(ROOT, { now: NOW })!;

  test('a clean project: no warning or error anywhere, and one grammar note for the whole ledger', () => {
    assert.deepEqual(show(r.problems.filter((p) => p.severity !== 'info')), []);
    const notes = r.problems.filter((p) => p.code === 'ledger-unknown-key');
    assert.equal(notes.length, 1);
    assert.equal(notes[0].severity, 'info');
  });

  test('every ledger story takes part: epics by id in reading order, files matched, next is the first active story', () => {
    assert.deepEqual(r.epics.map((e) => e.id), ['0-5', '3', '3a', '10', '19b', 'kb-03', 'pm-01']);
    const by = (k: string) => r.stories.find((s) => s.key === k)!;
    assert.equal(by('0-5-1-repo-bootstrap').file, path.join(IMPL, '0-5-1-repo-bootstrap.md'));
    assert.equal(by('3-4-review-queue').fileStatus, 'done');
    assert.equal(by('pm-01-2-phase-states').status, 'blocked');
    assert.equal(by('pm-01-1-project-crud').status, 'done');
    assert.deepEqual(r.epics.find((e) => e.id === '0-5')!.stories.map((s) => s.key), ['0-5-1-repo-bootstrap', '0-5-2-ci-pipeline']);
    assert.equal(r.next?.storyKey, '3a-1-ranking-rules');
    assert.equal(findStory(r, '3a.1')?.key, '3a-1-ranking-rules');
    assert.equal(findStory(r, 'pm-01.2')?.key, 'pm-01-2-phase-states');
  });

  test('a companion note beside a story is not a second story', () => {
    assert.equal(r.stories.filter((s) => s.epicId === '10' && s.story === '1').length, 1);
    assert.equal(r.stories.find((s) => s.key === '10-1-login')!.file, path.join(IMPL, '10-1-login.md'));
    assert.deepEqual(r.problems.filter((p) => p.file.endsWith('10-1-e2e-evidence.md')), []);
  });

  test('drift in these forms is still found', () => {
    const root = tempProject({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-3a: in-progress\n  3a-1-rules: review\n  epic-pm-01: done\n  pm-01-1-crud:\n    status: done\n',
      '_bmad-output/implementation-artifacts/3a-1-rules.md': '# Story 3a.1: Rules\n\nStatus: in-progress (pairing)\n',
      '_bmad-output/implementation-artifacts/pm-01-1-crud.md': '# Story PM-01.1: CRUD\n\n## Status\n- **Current Status:** review\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      const codes = d.problems.filter((p) => p.severity !== 'info' || p.code === 'story-status-drift').map((p) => `${path.basename(p.file)} ${p.code}`);
      assert.ok(codes.includes('3a-1-rules.md story-status-drift'), codes.join('\n'));
      assert.ok(codes.includes('pm-01-1-crud.md story-status-drift'), codes.join('\n'));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('a story file is matched by its number when its name differs; two candidates are reported, not guessed', () => {
    const root = tempProject({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-5: in-progress\n  5-1-alpha: in-progress\n  5-2-beta: review\n',
      '_bmad-output/implementation-artifacts/5-1-one.md': '# Story 5.1: One\n\nStatus: in-progress\n',
      '_bmad-output/implementation-artifacts/5-1-two.md': '# Story 5.1: Two\n\nStatus: done\n',
      '_bmad-output/implementation-artifacts/5-2-beta-renamed.md': '# Story 5.2: Beta\n\nStatus: review\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      const beta = d.stories.find((s) => s.key === '5-2-beta')!;
      assert.equal(path.basename(beta.file!), '5-2-beta-renamed.md');
      const alpha = d.stories.find((s) => s.key === '5-1-alpha')!;
      assert.equal(alpha.file, undefined, 'two candidates: neither is taken');
      const amb = d.problems.filter((p) => p.code === 'story-file-duplicate');
      assert.deepEqual(amb.map((p) => path.basename(p.file)).sort(), ['5-1-one.md', '5-1-two.md']);
      assert.match(amb[0].message, /5-1-alpha/);
      assert.equal(d.stories.filter((s) => s.story === '1' && s.epicId === '5').length, 1);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('unknown keys make one warning for the ledger, not one per line', () => {
    const root = tempProject({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-a: done\n  notes_a: x\n  notes_b: y\n  Misc Item: z\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      const notes = d.problems.filter((p) => p.code === 'ledger-unknown-key');
      assert.equal(notes.length, 1);
      assert.equal(notes[0].severity, 'warning');
      assert.equal(notes[0].range.start.line, 3);
      assert.match(notes[0].message, /3 keys/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('epics documents with lettered, sub-epic and module-prefixed ids', () => {
    const e = parseEpics('/x/epics.md', '## Epic 3a: Ranking\n\n### Story 3a.1: Rules\n\n## Epic 0.5: Foundations\n\n### Story 0.5.1: Bootstrap\n\n## Epic PM-01: Projects\n\n### Story PM-01.2: Phases\n');
    assert.deepEqual(e.get('3a')!.stories.map((s) => s.key), ['3a-1-rules']);
    assert.deepEqual(e.get('0-5')!.stories.map((s) => s.key), ['0-5-1-bootstrap']);
    assert.deepEqual(e.get('pm-1')!.stories.map((s) => s.key), ['pm-01-2-phases']);
  });
});

describe('forms found on real projects (corpus run)', () => {
  test("a done-like word in the story file while the ledger says done is a note, not a warning; ledger says otherwise: still a warning", () => {
    const root = tempProject({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-a: done\n  1-2-b: done\n  1-3-c: review\n',
      '_bmad-output/implementation-artifacts/1-1-a.md': '# Story 1.1: A\n\n**Status:** ✅ Complete\n',
      '_bmad-output/implementation-artifacts/1-2-b.md': '# Story 1.2: B\n\nStatus: COMPLETED\n',
      '_bmad-output/implementation-artifacts/1-3-c.md': '# Story 1.3: C\n\nStatus: complete\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      // (`complete` is read as done: ahead of the ledger's review, the drift BMAD's words mean)
      assert.deepEqual(show(d.problems.filter((p) => p.severity !== 'info')), ['1-3-c.md:3 warning story-status-drift']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('story- prefixed file names, dotted sub-epic keys, bare module epic keys, a comment glued to the value, a # Status heading', () => {
    const root = tempProject({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': [
        'development_status:', '  epic-1: in-progress', '  1-10-payout-claims: done', '  epic-8: in-progress', '  8-1-windows-port: done',
        '  epic-5: in-progress', '  5.5-3-legacy-parity: done', '  dm-01: in-progress', '  dm-01-1-copilot-install: done', '  epic-2: in-progress', '  2-10-ux-fixes: review# docs/stories/2-10.md', '',
      ].join('\n'),
      '_bmad-output/implementation-artifacts/story-1.10.md': '# Story 1.10: Payout claims\n\nStatus: Ready\n',
      '_bmad-output/implementation-artifacts/story-8-1-windows-port.md': '# Story 8.1: Windows port\n\nStatus: in progress\n',
      '_bmad-output/implementation-artifacts/stories/epic-5/5.5-3-legacy-parity.md': '# Story 5.5.3: Legacy parity\n\nStatus: in-review\n',
      '_bmad-output/implementation-artifacts/dm-01-1-copilot-install.md': '# Story DM-01.1: Copilot\n\n# Status\nreview\n',
      '_bmad-output/implementation-artifacts/2-10-ux-fixes.md': '# Story 2.10: UX fixes\n\nStatus: review\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      const drift = d.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning').map((p) => path.basename(p.file)).sort();
      assert.deepEqual(drift, ['5.5-3-legacy-parity.md', 'dm-01-1-copilot-install.md', 'story-1.10.md', 'story-8-1-windows-port.md']);
      assert.equal(d.stories.find((s) => s.key === '2-10-ux-fixes')!.ledgerStatus, 'review');
      assert.deepEqual(d.epics.find((e) => e.id === 'dm-01')!.stories.map((s) => s.key), ['dm-01-1-copilot-install']);
      assert.deepEqual(show(d.problems.filter((p) => p.severity !== 'info' && p.code !== 'story-status-drift')), []);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
  test('two files numbered like a story: the one whose title is the key is its file; dev-complete is review, behind a done ledger', () => {
    const root = tempProject({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-7-migration-tool: done\n  1-8-exporter: done\n  1-9-importer: done\n',
      '_bmad-output/implementation-artifacts/story-1.7.md': '# Story 1.7: Migration Tool\n\n**Epic:** 1 **Story ID:** 1.7 **Status:** review\n',
      '_bmad-output/implementation-artifacts/playground/1-7-metrics-helper.md': '# Story 1.7: Metrics Helper\n\nStatus: done\n',
      '_bmad-output/implementation-artifacts/1-8-exporter.md': '# Story 1.8: Exporter\n\nStatus: dev-complete\n',
      '_bmad-output/implementation-artifacts/1-9-importer.md': '# Story 1.9: Importer\n\nStatus: Ready for implementation\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      assert.equal(path.basename(d.stories.find((s) => s.key === '1-7-migration-tool')!.file!), 'story-1.7.md');
      const warned = d.problems.filter((p) => p.severity === 'warning').map((p) => `${path.basename(p.file)} ${p.code}`).sort();
      assert.deepEqual(warned, ['1-8-exporter.md story-status-drift', '1-9-importer.md story-status-drift', 'story-1.7.md story-status-drift']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
  test('an empty ledger where the config points loses to the one that lists the work; Review Passed reads as done', () => {
    const root = tempProject({
      '_bmad/bmm/config.yaml': 'implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status: {}\n',
      'docs/sprint-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-setup: done\n',
      'docs/sprint-artifacts/1-1-setup.md': '# Story 1.1: Setup\n\nStatus: Review Passed\n',
    });
    try {
      const d = loadSprint(root, { now: NOW })!;
      assert.equal(d.ledgerFile, path.join(root, 'docs/sprint-artifacts/sprint-status.yaml'));
      assert.deepEqual(show(d.problems.filter((p) => p.severity !== 'info')), []);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
  test("the project's own words on the board: set-aside work is dropped, held work blocked, neither offered as ready", () => {
    const root = tempProject({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-a: superseded\n  1-2-b: On Hold\n  1-3-c: backlog\n',
    });
    try {
      const reg = buildRegistry([], [loadSprint(root, { now: NOW })!]);
      const state = (k: string) => reg.items.find((i) => i.id === `story:${k}`)!.state;
      assert.deepEqual([state('1-1-a'), state('1-2-b'), state('1-3-c')], ['dropped', 'blocked', 'todo']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

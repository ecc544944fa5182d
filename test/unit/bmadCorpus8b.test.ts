// Real projects read right (issue 20, eighth corpus round, part b, measured on projects not seen
// before): a `## Status` section kept as a checklist of the stages a story went through is at its
// last ticked stage; the Dev Agent Record's own Status (a label or a `| Status | … |` row) is the
// story's however far down the file; a `Status:` inside the Acceptance Criteria or a Notes section
// names something else (an ADR's, a criterion's); `PARTIAL - BLOCKED` against a ledger at done is
// drift; a `N.M-slug.md` file that states a status is a story even without `Story` in its title; a
// QA gate written with `decision: PASS` has a verdict; the BMad Builder's workflow plan is that
// workflow's artifact.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseStory } from '../../src/core/bmad/story';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { knownBmadWorkflowOf } from '../../src/core/bmad/known';
import { parseLedger } from '../../src/core/bmad/ledger';

const NOW = new Date('2026-11-28T06:00:00Z');

/** A project in a new temp folder: `files` maps a relative path to its text. */
function project(files: Record<string, string>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-corpus8b-')));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const filler = (n: number) => Array.from({ length: n }, (_, i) => `- note ${i + 1} about the lantern's wiring`).join('\n');

describe('a `## Status` section kept as a checklist of stages', () => {
  const stages = (ticks: boolean[]) => ['Draft', 'Ready for Dev', 'In Progress', 'Code Review', 'Done'].map((w, i) => `- [${ticks[i] ? 'x' : ' '}] ${w}`).join('\n');

  test('every stage ticked: the story is at the last one', () => {
    const s = parseStory('/p/stories/4-1-lantern-timer.md', `# Story 4.1: Lantern Timer\n\n## Story\nAs a keeper I want a timer.\n\n## Status\n${stages([true, true, true, true, true])}\n\n## Tasks\n- [x] Wire the timer\n`);
    assert.equal(s.status, 'Done');
  });

  test('ticked up to a stage: the story is at that stage; nothing ticked states no status', () => {
    const mid = parseStory('/p/stories/4-2-lantern-dimmer.md', `# Story 4.2: Lantern Dimmer\n\n## Status\n${stages([true, true, true, false, false])}\n\n## Tasks\n- [ ] Dim\n`);
    assert.equal(mid.status, 'In Progress');
    const none = parseStory('/p/stories/4-3-lantern-colour.md', `# Story 4.3: Lantern Colour\n\n## Status\n${stages([false, false, false, false, false])}\n`);
    assert.equal(none.status, undefined);
  });

  test('against the ledger: a story ticked to Done is not drift from done, and one ticked to Draft is', () => {
    const dir = project({
      '_bmad-output/sprint-status.yaml': 'development_status:\n  epic-4: in-progress\n  4-1-lantern-timer: done\n  4-2-lantern-dimmer: done\n',
      '_bmad-output/stories/4-1-lantern-timer.md': `# Story 4.1: Lantern Timer\n\n## Status\n${stages([true, true, true, true, true])}\n\n## Tasks\n- [x] Wire the timer\n`,
      '_bmad-output/stories/4-2-lantern-dimmer.md': `# Story 4.2: Lantern Dimmer\n\n## Status\n${stages([true, false, false, false, false])}\n\n## Tasks\n- [x] Dim\n`,
    });
    const r = loadSprint(dir, { now: NOW })!;
    const onStories = r.problems.filter((p) => p.file.endsWith('.md') && p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(onStories, ['4-2-lantern-dimmer.md story-status-drift']);
  });
});

describe('the Dev Agent Record states the status, however far down', () => {
  test('a `| Status | … |` row of the record\'s table 200 lines down is the story\'s status', () => {
    const s = parseStory('/p/docs/sprint-artifacts/6-1-harbour-index.md', `# Story 6.1: Harbour Index\n\n## Story\nAs a harbourmaster I want an index.\n\n## Dev Notes\n${filler(200)}\n\n## Dev Agent Record\n\n| Field | Value |\n|-------|-------|\n| Story Created | 2025-12-29 |\n| Status | ready-for-dev |\n`);
    assert.equal(s.status, 'ready-for-dev');
  });

  test('a `**Status:**` line of the record, past the opening lines, is the story\'s status', () => {
    const s = parseStory('/p/stories/story-24.6.md', `# story-24.6: Full harbour check\n\n## Description\n${filler(45)}\n\n## Dev Agent Record\n\n**Status:** DONE\n\n### Validation Evidence\n- checked\n`);
    assert.equal(s.status, 'DONE');
  });

  test('a Status in one of the record\'s own log subsections, or with a frontmatter status, is not read', () => {
    const logged = parseStory('/p/stories/6-2-x.md', `# Story 6.2: X\n\n## Dev Notes\n${filler(45)}\n\n## Dev Agent Record\n\n### Completion Notes\n- **Status:** review\n`);
    assert.equal(logged.status, undefined);
    const fm = parseStory('/p/stories/6-3-x.md', `---\nstatus: done\n---\n# Story 6.3: X\n\n## Dev Notes\n${filler(45)}\n\n## Dev Agent Record\n\n**Status:** review\n`);
    assert.equal(fm.status, 'done');
  });

  test('against the ledger: the record\'s status is compared, and no "no Status line" warning is given', () => {
    const dir = project({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-6: in-progress\n  6-1-harbour-index: done\n  6-4-harbour-gate: done\n',
      '_bmad-output/implementation-artifacts/6-1-harbour-index.md': `# Story 6.1: Harbour Index\n\n## Dev Notes\n${filler(200)}\n\n## Dev Agent Record\n\n| Field | Value |\n|-------|-------|\n| Status | ready-for-dev |\n`,
      '_bmad-output/implementation-artifacts/6-4-harbour-gate.md': `# Story 6.4: Harbour Gate\n\n## Description\n${filler(45)}\n\n## Dev Agent Record\n\n**Status:** DONE\n`,
    });
    const r = loadSprint(dir, { now: NOW })!;
    const onStories = r.problems.filter((p) => p.file.endsWith('.md') && p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(onStories, ['6-1-harbour-index.md story-status-drift']);
  });
});

describe('a Status that names something else', () => {
  test('an ADR\'s field listed under Technical Notes is not the story\'s status', () => {
    const s = parseStory('/p/stories/story-23.0.1.md', `# story-23.0.1: Write the mooring policy ADR\n\n**Story ID:** MP-0.1\n**Priority:** P1\n\n## Goal\nWrite the ADR.\n\n## Acceptance Criteria\n- [ ] ADR written\n\n## Technical Notes\n\n### ADR Structure Required\n\nThe ADR must follow the standard format:\n- **Status:** Proposed (pending review)\n- **Context:** why\n`);
    assert.equal(s.status, undefined);
  });

  test('a criterion\'s status under the Acceptance Criteria is not the story\'s status', () => {
    const s = parseStory('/p/stories/story-3.4.md', `# Story 3.4: Buoy Console\n\n## Acceptance Criteria\n\n### AC 1: Console runs\n\n**Status**: ✅ Already complete per spike\n`);
    assert.equal(s.status, undefined);
  });
});

describe('a story the file says is blocked while the ledger says done', () => {
  test('`| Status | **PARTIAL - BLOCKED** |` reads blocked, and is drift from done', () => {
    const s = parseStory('/p/stories/story-31.8B.md', '# Story 31.8B: Deletion Check\n\n## Story Summary\n\n| Field | Value |\n|-------|-------|\n| Story | story-31.8B |\n| Status | **PARTIAL - BLOCKED** |\n');
    assert.equal(s.status, 'BLOCKED');
    const dir = project({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-31: in-progress\n  31-8-deletion-check: done\n  31-9-quay-audit: in-progress\n',
      '_bmad-output/implementation-artifacts/31-8-deletion-check.md': '# Story 31.8: Deletion Check\n\n| Field | Value |\n|-------|-------|\n| Status | **PARTIAL - BLOCKED** |\n',
      '_bmad-output/implementation-artifacts/31-9-quay-audit.md': '# Story 31.9: Quay Audit\n\nStatus: Blocked\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const onStory = (name: string) => r.problems.filter((p) => path.basename(p.file) === name && p.severity !== 'info').map((p) => p.code);
    assert.deepEqual(onStory('31-8-deletion-check.md'), ['story-status-drift']);
    // Blocked while the ledger says in-progress: drift too (BMAD's ledger has no blocked status, so
    // the ledger does not record the block; which one is out of date is not guessed).
    assert.deepEqual(onStory('31-9-quay-audit.md'), ['story-status-drift']);
  });
});

describe('a story file named `N.M-slug.md` without `Story` in its title', () => {
  test('it states a status, so it is a story, and joins its ledger key by number', () => {
    const dir = project({
      '_bmad-output/sprint-status.yaml': 'development_status:\n  epic-2: in-progress\n  2-1-pantry-layout: done\n  2-2-pantry-chart: in-progress\n',
      'docs/stories/2.1.basic-pantry-shell.md': '# 2.1: Basic Pantry Shell\n\n## Status\nDone\n',
      'docs/stories/2.2-pantry-chart-visualization.md': '# 2.2: Pantry Chart Visualization\n\n**As a** cook, **I want** a chart.\n\n## Status\nDone\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.equal(r.stories.find((s) => s.key === '2-2-pantry-chart')?.file && path.basename(r.stories.find((s) => s.key === '2-2-pantry-chart')!.file!), '2.2-pantry-chart-visualization.md');
    const drift = r.problems.filter((p) => p.code === 'story-status-drift' && p.file.endsWith('.md')).map((p) => path.basename(p.file));
    assert.deepEqual(drift, ['2.2-pantry-chart-visualization.md']);
  });

  test('a tech spec named the same way, whose status is no story status, is still not a story', () => {
    const dir = project({
      '_bmad-output/sprint-status.yaml': 'development_status:\n  epic-5: in-progress\n  5-1-dock: done\n',
      '_bmad-output/5-1-dock.md': '# Story 5.1: Dock\n\nStatus: done\n',
      '_bmad-output/tech-specs/05.5-webkit-issues.md': '# 05.5 - WebKit Issues\n\n**Status:** Unresolved, a rendering limit suspected.\n\n## Context\nSeen in testing.\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => s.key), ['5-1-dock']);
  });
});

describe('a QA gate written with `decision:`', () => {
  test('`decision: PASS` with no `gate:` key is the verdict', () => {
    const g = parseQaGate('/p/docs/qa/gates/1.4-pantry-api.yml', '# QA Gate Decision for Story 1.4\ndecision: PASS\nreviewedAt: 2025-12-17T16:45:00+10:00\nriskLevel: low\n', NOW);
    assert.equal(g.verdict, 'PASS');
    assert.equal(g.error, undefined);
    // A status of one check among many is not the gate's verdict; `status:` at the top is.
    const s = parseQaGate('/p/docs/qa/gates/1.5-pantry-orders.yml', 'gate_id: "1.5"\nstatus: "CONCERNS"  # PASS/CONCERNS/FAIL/WAIVED\nchecks:\n  - status: "FAIL"\n', NOW);
    assert.equal(s.verdict, 'CONCERNS');
    // A word that is not a verdict is still no verdict.
    assert.equal(parseQaGate('/p/docs/qa/gates/1.6-x.yml', 'decision: maybe\n', NOW).verdict, undefined);
  });
});

describe('the BMad Builder\'s workflow builder', () => {
  test('its workflow plan is that workflow\'s artifact', () => {
    const hit = knownBmadWorkflowOf('/p/_bmad-output/bmb-creations/workflows/lantern-audit/workflow-plan-lantern-audit.md', { stepsCompleted: ['step-01-discovery', 'step-02-classification'], status: 'COMPLETE' }, undefined);
    assert.equal(hit?.workflow.name, 'workflow');
  });
});

describe('a stray line inside development_status', () => {
  test('the ledger is not valid YAML (an error), and the entries under the stray line are still read', () => {
    const l = parseLedger('/p/.bmad-ephemeral/sprint-status.yaml', 'development_status:\n  epic-4: contexted\n  4-1-文章列表页面（首页）: done\n´  4-2-文章详情页面: done\n  4-3-分类筛选功能: review\n  epic-4-retrospective: completed\n\nnotes:\n  - kept\n');
    assert.deepEqual(l.entries.map((e) => e.key), ['epic-4', '4-1-文章列表页面（首页）', '4-3-分类筛选功能', 'epic-4-retrospective']);
    assert.deepEqual(l.problems.map((p) => `${p.code} ${p.severity} ${p.range.start.line + 1}`), ['ledger-yaml error 4']);
  });
});

// Session 33's known reading leftovers of issue 20's held-out batch, each a grammar rule other
// projects write the same way. Each rule test failed before its rule; guards say so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { inProject } from './fileHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');
const V6_CONFIG = 'project_name: demo\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\n';
const IA = '_bmad-output/implementation-artifacts';
const BODY = '\n## Story\n**As a** developer, **I want** it, **so that** it works.\n\n## Acceptance Criteria\n1. It works\n\n## Tasks / Subtasks\n- [x] Build it\n';
const story = (title: string, status: string) => `# Story ${title}\n\nStatus: ${status}\n${BODY}`;

const cli = (root: string, ...args: string[]) => spawnSync(process.execPath, [path.resolve('dist/cli.js'), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
type P = { file: string; severity: string; code: string; message: string; data?: Record<string, unknown> };
const problemsOf = (root: string, ...args: string[]): P[] => JSON.parse(cli(root, 'validate', '--json', ...args).stdout).problems as P[];

// 5. IvandeMurard/tacet-app keeps its retired v2 app, BMAD output and all, in `archive/v2_nextjs_pwa/`;
// that app's ledger repeats keys (updates appended below the old lines). History: not the live project.
test('a BMAD project kept in an archive folder (`archive/v2_app/_bmad-output/`) is history: no sprint from it, its repeated ledger keys fail nothing', () => {
  const ledger = 'development_status:\n  epic-1: done\n  1-1-map: review\n  1-2-feed: backlog\n  epic-1: in-progress\n  1-1-map: done\n  1-2-feed: done\n';
  inProject({
    'README.md': '# Tacet v3\n',
    [`archive/v2_app/${IA}/sprint-status.yaml`]: ledger,
    [`archive/v2_app/${IA}/1-1-map.md`]: story('1.1: Map', 'done'),
    [`archive/v2_app/${IA}/1-2-feed.md`]: story('1.2: Feed', 'review'),
  }, (root) => {
    const v = cli(root, 'validate', '--json');
    assert.equal(v.status, 0, v.stdout);
    const ps = JSON.parse(v.stdout).problems as P[];
    assert.deepEqual(ps.filter((p) => p.severity === 'error'), []);
    assert.deepEqual(ps.filter((p) => p.code === 'story-status-drift'), []);
    assert.equal(loadSprint(root, { now: NOW }), undefined);
    assert.equal(JSON.parse(cli(root, 'next', '--json').stdout).next, null);
  });
  // (A guard, passed before too.) The same ledger live at the project's own place: each repeat an error.
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    [`${IA}/sprint-status.yaml`]: ledger,
    [`${IA}/1-1-map.md`]: story('1.1: Map', 'done'),
  }, (root) => {
    const dups = problemsOf(root).filter((p) => p.code === 'ledger-duplicate-key');
    assert.deepEqual(dups.map((p) => p.severity), ['error', 'error', 'error']);
  });
});

// 6. known32's BMB edit-plan note said "not installed" in Universal-Agent-MCP/knowledge-base-mcp, whose
// `_bmad/bmb/workflows/workflow/` holds the builder with steps-c/, steps-e/ and steps-v/.
test('an edit plan of an installed BMB workflow builder says the builder is installed, not "not installed"', () => {
  const plan = '---\nstepsCompleted: [1]\ntargetWorkflow: create-epics-and-stories\nuserGoal: Track epics in an issue tracker\ncreatedDate: 2025-12-16\n---\n\n# Workflow Edit: create-epics-and-stories\n\nTrack them.\n';
  const files = {
    '_bmad/bmm/config.yaml': V6_CONFIG.replace('_bmad-output"', 'docs"'),
    'docs/workflow-edit-create-epics-and-stories.md': plan,
  };
  const builder = {
    '_bmad/bmb/workflows/workflow/workflow-create-workflow.md': '# Create Workflow\n',
    '_bmad/bmb/workflows/workflow/steps-c/step-01-discovery.md': '# Step 1: Discovery\n',
    '_bmad/bmb/workflows/workflow/steps-c/step-02-design.md': '# Step 2: Design\n',
    '_bmad/bmb/workflows/workflow/steps-e/step-e-01-assess.md': '# Edit 1: Assess\n',
  };
  const note = (ps: P[]) => ps.filter((p) => p.file.endsWith('workflow-edit-create-epics-and-stories.md') && p.code === 'bmad-workflow-not-installed');
  inProject({ ...files, ...builder }, (root) => {
    const mine = note(problemsOf(root));
    assert.equal(mine.length, 1, JSON.stringify(mine));
    assert.doesNotMatch(mine[0].message, /not installed/);
    assert.match(mine[0].message, /installed here \(_bmad\/bmb\/workflows\/workflow\/, with steps-c, steps-e\)/);
  });
  // (A guard.) Without the builder the note still says it is not installed.
  inProject(files, (root) => {
    assert.match(note(problemsOf(root))[0].message, /not installed in this checkout/);
  });
});

// 3. rahmatullahboss/multi-store-saas names story files by its sprint plan's rows: `10-e4-s1-pl-tab.md` is
// row 10 of `sprint-plan.md` (`| 10 | E4-S1: P&L Tab — Date Picker & Loader | E4 |`), story 1 of epic 4.
test('`10-e4-s1-slug` story files (a sprint plan\'s row number, then the lettered E4-S1) are story 4.1, kept beside plain `1-1-slug` ones', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    [`${IA}/1-1-db-migration.md`]: story('1.1: DB Migration', 'done'),
    [`${IA}/10-e4-s1-pl-tab.md`]: story('10: P&L Tab', 'done'),
    [`${IA}/11-e4-s2-waterfall-cards.md`]: story('11: Waterfall Cards', 'in-progress'),
    [`${IA}/8-e7-s1-courier-input.md`]: story('7.1: Courier Input', 'ready-for-dev'),
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => [s.key, s.epicId, s.story, s.status]), [
      ['1-1-db-migration', '1', '1', 'done'], ['10-e4-s1-pl-tab', '4', '1', 'done'], ['11-e4-s2-waterfall-cards', '4', '2', 'in-progress'], ['8-e7-s1-courier-input', '7', '1', 'ready-for-dev'],
    ]);
    assert.match(cli(root, 'next', '--json').stdout, /11-e4-s2-waterfall-cards/);
  });
});

// 2. kodonghui/corthex-v2 planned three times and kept every plan's story files: `4-5-handoff-chain-integration-test.md`
// (`# Story 4.5: 3단계 핸드오프 통합 테스트`, Status: done, its own Acceptance Criteria and Tasks) beside
// `4-5-soul-persona.md`. The word `handoff` or `test` in its name is its subject, not a note's.
test('a file numbered like another story, with its own story title, status and story sections, is a story of its own whatever words its name holds', () => {
  const full = (title: string, status: string) => `# Story ${title}\n\nStatus: ${status}\n\n## Story\nAs a user, I want it.\n\n## Acceptance Criteria\n1. It works\n\n## Tasks / Subtasks\n- [x] Build it\n`;
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    [`${IA}/4-5-soul-persona.md`]: full('4.5: Soul Persona', 'done'),
    [`${IA}/4-5-handoff-chain-integration-test.md`]: full('4.5: 3단계 핸드오프 통합 테스트', 'done'),
    [`${IA}/7-1-report-write-submit.md`]: full('7.1: 보고서 작성 & 제출', 'review'),
    [`${IA}/7-1-cost-aggregation-api.md`]: full('7.1: Cost Aggregation API', 'done'),
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => s.key).sort(), ['4-5-handoff-chain-integration-test', '4-5-soul-persona', '7-1-cost-aggregation-api', '7-1-report-write-submit']);
    assert.equal(r.stories.find((s) => s.key === '7-1-report-write-submit')?.status, 'review');
    assert.match(cli(root, 'next', '--json').stdout, /7-1-report-write-submit/);
  });
});

// Real projects read right (issue 20, session 18's held-out batches, measured on projects nobody
// working on the reader had seen): a ledger that keys its work by typed ticket ids (`epic-EP-WX-02`
// above `US-WX-02-01`, the story's id the epic's with the story's own word and one more number)
// reads every such key as a story of its epic, and a story file named by the key with a slug after
// it (`us-wx-02-02-tide-tables.md`) is that story's; a story the ledger says was migrated or replaced
// is set aside, never offered to start; an artifact of a BMAD module's workflow (`workflow:
// gds-playtest-plan`) in BMAD's output folder is BMAD's, and `next` never offers it; a story whose
// Status says Active is in progress.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus, parseStory, setAsideStatus } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { bmadStatusOf } from '../../src/core/bmad/artifacts';
import { workspace } from './fileHelpers';
import { storyText as story } from './corpusHelpers';

const NOW = new Date('2026-11-29T04:00:00Z');
const CLI = path.resolve('dist/cli.js');

const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout18-', waymark: false });
const cli = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args, '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });

const CONFIG = 'project_name: harbour\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';
const IMPL = '_bmad-output/implementation-artifacts';
const LEDGER = `${IMPL}/sprint-status.yaml`;

const warnings = (r: { problems: { severity: string; code: string; file: string }[] }) =>
  r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`).sort();

/** A ticket's story file as such projects write it: the ticket id as its title, a bold Status. */
const ticket = (id: string, title: string, status: string) => `# ${id} — ${title}\n\n**Status:** ${status}\n**Sprint:** S4\n\n## Tasks\n\n- [x] Build ${title.toLowerCase()}\n`;

const TYPED_LEDGER = [
  'project: harbour',
  'development_status:',
  '  # Epics',
  '  epic-EP-3B-01: done        # Moorings',
  '  epic-EP-WX-02: in-progress # Weather',
  '  epic-EP-OPS-01: done',
  '',
  '  # Stories, sprint 3',
  '  US-3B-01-01: done          # Map the moorings',
  '  US-3B-01-02-V2: done       # Price a berth, second cut',
  '  US-OPS-01-01: done',
  '  US-OPS-S4: done            # One-off: harbour lights',
  '',
  '  # Stories, sprint 4',
  '  US-WX-02-01: done          # Wind gauge',
  '  US-WX-02-02: review        # Tide tables',
  '  US-WX-02-03: backlog       # Storm warnings',
  '  epic-EP-WX-02-retrospective: optional',
  '',
].join('\n');

describe('a ledger keyed by typed ticket ids', () => {
  test('every key is read: stories under the epic their id names, none skipped', () => {
    const l = parseLedger('/p/sprint-status.yaml', TYPED_LEDGER);
    const of = Object.fromEntries(l.entries.map((e) => [e.key, `${e.kind} ${e.epicId}${e.story !== undefined ? `.${e.story}` : ''}`]));
    assert.deepEqual(of, {
      'epic-EP-3B-01': 'epic ep-3b-01',
      'epic-EP-WX-02': 'epic ep-wx-02',
      'epic-EP-OPS-01': 'epic ep-ops-01',
      'US-3B-01-01': 'story ep-3b-01.1',
      'US-3B-01-02-V2': 'story ep-3b-01.2',
      'US-OPS-01-01': 'story ep-ops-01.1',
      'US-OPS-S4': 'story us.ops-s4',
      'US-WX-02-01': 'story ep-wx-02.1',
      'US-WX-02-02': 'story ep-wx-02.2',
      'US-WX-02-03': 'story ep-wx-02.3',
      'epic-EP-WX-02-retrospective': 'retro ep-wx-02',
    });
  });

  test('a story module-prefixed the way BMAD writes it stays its module epic\'s', () => {
    const l = parseLedger('/p/sprint-status.yaml', 'development_status:\n  epic-pm-01: in-progress\n  pm-01-1-ledger-export: done\n  pm-01-2-ledger-import: backlog\n');
    assert.deepEqual(l.entries.map((e) => `${e.key} ${e.kind} ${e.epicId}${e.story ? `.${e.story}` : ''}`), [
      'epic-pm-01 epic pm-01', 'pm-01-1-ledger-export story pm-01.1', 'pm-01-2-ledger-import story pm-01.2',
    ]);
  });

  test('drift, files named by the key (with or without a slug after it) and no false warnings', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      [LEDGER]: TYPED_LEDGER,
      [`${IMPL}/us-3b-01-01.md`]: ticket('US-3B-01-01', 'Map the moorings', 'done'),
      [`${IMPL}/us-wx-02-01.md`]: ticket('US-WX-02-01', 'Wind gauge', 'review'),
      [`${IMPL}/us-wx-02-01-evidence.md`]: '# Evidence for US-WX-02-01\n\nScreenshots of the gauge.\n',
      [`${IMPL}/us-wx-02-02-tide-tables.md`]: ticket('US-WX-02-02', 'Tide tables', 'review'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.stories.map((s) => [s.key, `${s.epicId}.${s.story} ${s.status} ${s.file ? path.basename(s.file) : '-'}`]));
    assert.deepEqual(of, {
      'US-3B-01-01': 'ep-3b-01.1 done us-3b-01-01.md',
      'US-3B-01-02-V2': 'ep-3b-01.2 done -',
      'US-OPS-01-01': 'ep-ops-01.1 done -',
      'US-OPS-S4': 'us.ops-s4 done -',
      'US-WX-02-01': 'ep-wx-02.1 done us-wx-02-01.md',
      'US-WX-02-02': 'ep-wx-02.2 review us-wx-02-02-tide-tables.md',
      'US-WX-02-03': 'ep-wx-02.3 backlog -',
    });
    // The one true drift (the file is behind the ledger), and done stories without a file (as for any key).
    assert.deepEqual(warnings(r).filter((w) => !/ledger-story-no-file/.test(w)), ['us-wx-02-01.md story-status-drift']);
    assert.equal(r.problems.filter((p) => p.code === 'ledger-epic-missing').length, 0);
    assert.equal(r.problems.filter((p) => p.code === 'ledger-unknown-key' && p.severity !== 'info').length, 0);
    assert.equal(r.problems.filter((p) => p.code === 'story-file-duplicate').length, 0);
  });
});

describe('a story migrated or replaced elsewhere is set aside', () => {
  test('the words set a story aside, superseded', () => {
    for (const w of ['migrated', 'Migrated to epic 7', 'replaced', 'Replaced by 7.3']) assert.equal(setAsideStatus(w), 'superseded', w);
  });
  test('next never offers a story the ledger says was migrated, whatever its file says', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      [LEDGER]: 'development_status:\n  epic-1: in-progress\n  1-1-gauge-wind: migrated  # Replaced by epic 7.1\n  1-2-chart-tides: migrated\n  1-3-warn-of-storms: ready-for-dev\n',
      [`${IMPL}/1-1-gauge-wind.md`]: story('1.1', 'Gauge Wind', 'done'),
      [`${IMPL}/1-2-chart-tides.md`]: story('1.2', 'Chart Tides', 'migrated', false),
      [`${IMPL}/1-3-warn-of-storms.md`]: story('1.3', 'Warn of Storms', 'ready-for-dev', false),
    });
    const n = cli(dir, 'next');
    assert.equal(n.status, 0, n.stderr);
    const ready = (JSON.parse(n.stdout) as { ready: { id: string }[] }).ready.map((x) => x.id);
    assert.deepEqual(ready, ['story:1-3-warn-of-storms']);
  });
});

describe('an artifact of a BMAD module\'s workflow', () => {
  test('a stage of the document finished is the document finished', () => {
    assert.equal(bmadStatusOf('draft-complete'), 'completed');
    assert.equal(bmadStatusOf('research-done'), 'completed');
    assert.equal(bmadStatusOf('draft'), 'created');
    assert.notEqual(bmadStatusOf('partially-complete'), 'completed');
    assert.notEqual(bmadStatusOf('not-done'), 'completed');
  });
  test('`workflow: gds-…` in BMAD\'s output folder is BMAD\'s, and next does not offer it', () => {
    const dir = project({
      '_bmad-output/planning-artifacts/playtest-plan.md': '---\nproject: "Harbour"\nworkflow: "gds-playtest-plan"\nstatus: "draft-complete"\n---\n\n# Playtest Plan\n',
      'work/ship.workflow.md': '---\nworkflow: ship\nstatus: in_progress\nsteps: [plan, build]\ncurrentStep: build\nstepsCompleted: [plan]\n---\n',
    });
    const v = cli(dir, 'validate', '.');
    assert.equal(v.status, 0, v.stdout + v.stderr);
    const n = cli(dir, 'next');
    assert.equal(n.status, 0, n.stderr);
    const ids = (JSON.parse(n.stdout) as { ready: { id: string; file?: string }[] }).ready.map((x) => x.file ?? x.id);
    assert.ok(!ids.some((x) => /playtest/.test(x)), ids.join(', '));
  });
});

describe('a story whose Status is Active', () => {
  test('is in progress, a note', () => {
    assert.equal(normalizeStoryStatus('Active').status, 'in-progress');
    assert.equal(normalizeStoryStatus('Active').exact, false);
    assert.equal(normalizeStoryStatus('准备开始').status, 'ready-for-dev');
  });
  test('no warning on it in a v4 project', () => {
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/2.5.harbour-lights.md': '# Story 2.5: Harbour lights\n\n## Status\n\nActive\n\n## Tasks / Subtasks\n\n- [x] Wire the lamps\n- [ ] Test at dusk\n',
    });
    fs.mkdirSync(path.join(dir, 'docs', 'prd'), { recursive: true });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(warnings(r), []);
    assert.equal(r.stories[0].status, 'in-progress');
  });
});

describe('v6 alpha keys of a sub-epic\'s story (`story-2.1.1`)', () => {
  test('the key is story 1 of sub-epic 2.1, joined to its file; notes beside it are no stories', () => {
    const dir = project({
      'bmad/bmm/config.yaml': 'project_name: lamp\noutput_folder: "{project-root}/docs"\ndev_story_location: "{project-root}/docs/stories"\n',
      'docs/sprint-status.yaml': 'story_location: ./docs/stories\ndevelopment_status:\n  epic-1: done\n  story-1.1: done\n  epic-2: in-progress\n  story-2.1.1: done\n  story-2.1.2: done\n  story-2.2: in-progress\n  epic-2-retrospective: optional\n',
      'docs/stories/story-1.1.md': story('1.1', 'Light the Lamp', 'done'),
      'docs/stories/story-2.1.1.md': story('2.1.1', 'Trim the Wick', 'Review Passed'),
      'docs/stories/story-2.1.2.md': story('2.1.2', 'Fill the Oil', 'Approved'),
      'docs/stories/story-2.1.2-code-quality-report.md': '# Code quality report: story 2.1.2\n\nAll checks pass.\n',
      'docs/stories/story-2.2.md': story('2.2', 'Polish the Glass', 'in-progress', false),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.stories.map((s) => [s.key, `${s.ledgerStatus} ${s.file ? path.basename(s.file) : '-'}`]));
    assert.deepEqual(of, {
      'story-1.1': 'done story-1.1.md',
      'story-2.1.1': 'done story-2.1.1.md',
      'story-2.1.2': 'done story-2.1.2.md',
      'story-2.2': 'in-progress story-2.2.md',
    });
    assert.deepEqual(warnings(r), ['story-2.1.2.md story-status-drift']);
  });
});

describe('a Status section that says where the story is now and where it goes next', () => {
  test('the current one is the status, in any language; the next one is another field', () => {
    const read = (body: string) => parseStory('/p/docs/stories/1.1.x.md', `# Story 1.1: X\n\n## Status\n\n${body}\n`).status;
    assert.equal(read('**Atual:** InProgress\n**Próximo:** InReview'), 'InProgress');
    assert.equal(read('**Current:** Review\n**Next:** Done'), 'Review');
    assert.equal(read('**Próximo:** InReview'), undefined);
  });
});

describe('a ledger word a story file would be read by', () => {
  test('ready-for-testing in the ledger and the file: review, a note, no warning', () => {
    const dir = project({
      '_bmad/bmm/config.yaml': CONFIG,
      [LEDGER]: 'development_status:\n  epic-7: in-progress\n  7-3-scan-barcodes: ready-for-testing\n  7-4-print-labels: in-progress\n',
      [`${IMPL}/7-3-scan-barcodes.md`]: story('7.3', 'Scan Barcodes', 'ready-for-testing'),
      [`${IMPL}/7-4-print-labels.md`]: story('7.4', 'Print Labels', 'in-progress', false),
    });
    const r = loadSprint(dir, { now: NOW })!;
    assert.deepEqual(warnings(r), []);
    assert.equal(r.stories.find((s) => s.key === '7-3-scan-barcodes')!.status, 'review');
    assert.ok(r.problems.some((p) => p.code === 'ledger-legacy-status' && /ready-for-testing/.test(p.message)));
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadBmadConfig, parseSimpleToml } from '../../src/core/bmad/config';
import { parseLedger, rewriteLedgerStatus, parseStamp, formatStamp, classifyLedgerKey } from '../../src/core/bmad/ledger';
import { parseStory, normalizeStoryStatus, findTask, storyKeyFromName } from '../../src/core/bmad/story';
import { parseEpics } from '../../src/core/bmad/epics';
import { loadSprint, checkSprintProposal, findStory } from '../../src/core/bmad/sprint';
import { setStoryStatus, checkStoryTask } from '../../src/core/bmad/storyWrite';
import { readHistory } from '../../src/core/store/history';
import { WaymarkError } from '../../src/core/errors';
import type { Problem } from '../../src/core/types';

const FIX = path.resolve('test/fixtures');
const CLI = path.resolve('dist/cli.js');
const NOW = new Date('2025-10-21T12:00:00Z');

function copyFixture(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wm-${name}-`));
  fs.cpSync(path.join(FIX, name), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
  return dir;
}

const codesOf = (ps: Problem[]) => ps.map((p) => `${path.basename(p.file)}:${p.range.start.line + 1} ${p.severity} ${p.code}`).sort();

describe('BMAD config', () => {
  test('layered TOML: config.toml < config.user.toml < custom/config.toml < custom/config.user.toml', () => {
    const cfg = loadBmadConfig(path.join(FIX, 'bmad-v611'));
    assert.equal(cfg.layout, 'v6-toml');
    assert.equal(cfg.vars.user_name, 'Ana (local)');
    assert.equal(cfg.implementationArtifacts, path.join(FIX, 'bmad-v611', 'delivery'));
    assert.equal(cfg.planningArtifacts, path.join(FIX, 'bmad-v611', '_bmad-output', 'planning-artifacts'));
  });

  test('v6 YAML, alpha sprint_artifacts with output_folder docs, v4 devStoryLocation and qaLocation', () => {
    const v6 = loadBmadConfig(path.join(FIX, 'bmad-v6'));
    assert.equal(v6.layout, 'v6');
    assert.equal(v6.implementationArtifacts, path.join(FIX, 'bmad-v6', '_bmad-output', 'implementation-artifacts'));
    const alpha = loadBmadConfig(path.join(FIX, 'bmad-alpha'));
    assert.equal(alpha.layout, 'alpha');
    assert.equal(alpha.outputFolder, path.join(FIX, 'bmad-alpha', 'docs'));
    assert.equal(alpha.implementationArtifacts, path.join(FIX, 'bmad-alpha', 'docs', 'sprint-artifacts'));
    const v4 = loadBmadConfig(path.join(FIX, 'bmad-v4'));
    assert.equal(v4.layout, 'v4');
    assert.equal(v4.storyLocation, path.join(FIX, 'bmad-v4', 'docs', 'stories'));
    assert.equal(v4.qaLocation, path.join(FIX, 'bmad-v4', 'docs', 'qa'));
  });

  test('a broken TOML layer is a warning with its line, never fatal; unsafe keys are ignored', () => {
    const r = parseSimpleToml('[core]\nname = "x"\n[broken\n');
    assert.equal(r.error?.line, 3);
    assert.equal((r.data.core as Record<string, unknown>).name, 'x');
    const p = parseSimpleToml('[core]\n__proto__ = "x"\nlist = ["a", \'b\']\nn = 1_000\n');
    assert.deepEqual({ ...(p.data.core as object) }, { list: ['a', 'b'], n: 1000 });
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});

describe('sprint-status.yaml ledger', () => {
  const text = [
    '# header comment stays',
    'generated: 05-06-2025 21:30',
    'last_updated: "05-06-2025 21:30"',
    'development_status:',
    '  epic-1: contexted',
    '  1-1-login: done   # shipped',
    '  2-6a-split-story: drafted',
    '  epic-1-retrospective: completed',
    '  1-1-login: review',
    '  weird-key: done',
    '  1-3-thing: In Progress',
    'action_items:',
    '  - epic: 1',
    '    action: "Fix CI"',
    '    status: open',
    '',
  ].join('\n');
  const l = parseLedger('/x/sprint-status.yaml', text);

  test('keys by BMAD grammar, legacy words mapped and flagged, split stories, action items', () => {
    assert.deepEqual(l.entries.map((e) => [e.key, e.kind, e.status, e.legacy]), [
      ['epic-1', 'epic', 'in-progress', true],
      ['1-1-login', 'story', 'done', false],
      ['2-6a-split-story', 'story', 'ready-for-dev', true],
      ['epic-1-retrospective', 'retro', 'done', true],
      ['weird-key', 'unknown', 'done', false],
      ['1-3-thing', 'story', 'in-progress', true],
    ]);
    assert.equal(l.byKey.get('2-6a-split-story')!.story, '6a');
    assert.deepEqual(classifyLedgerKey('2-6a-x'), { kind: 'story', epic: 2, story: '6a' });
    assert.equal(l.actionItems[0].action, 'Fix CI');
    assert.equal(l.actionItems[0].status, 'open');
  });

  test('the value span excludes quotes and comments; a duplicate key is an error on its line', () => {
    const e = l.byKey.get('1-1-login')!;
    assert.equal(text.split('\n')[e.line].slice(e.valueStart, e.valueEnd), 'done');
    const dup = l.problems.find((p) => p.code === 'ledger-duplicate-key')!;
    assert.equal(dup.range.start.line, 8);
    assert.equal(l.lastUpdated?.quote, '"');
  });

  test('timestamps in every format; an unreadable one is a warning, never fatal', () => {
    for (const [raw, fmt] of [['05-06-2025 21:30', 'MM-DD-YYYY HH:MM'], ['2025-05-06 21:30', 'YYYY-MM-DD HH:MM'], ['2025-05-06', 'YYYY-MM-DD'], ['2025-05-06T21:30:00Z', 'ISO'], ['05-06-2025', 'MM-DD-YYYY']] as const) {
      const p = parseStamp(raw);
      assert.equal(p?.format, fmt, raw);
      assert.equal(formatStamp(p!.date, fmt).slice(0, raw.length - (fmt === 'ISO' ? 1 : 0)), raw.slice(0, raw.length - (fmt === 'ISO' ? 1 : 0)));
    }
    const bad = parseLedger('/x/s.yaml', 'last_updated: yesterday\ndevelopment_status:\n  epic-1: backlog\n');
    assert.deepEqual(bad.problems.map((p) => [p.code, p.severity]), [['ledger-timestamp', 'warning']]);
  });

  test('a status change rewrites that value and last_updated in its own format; every other byte stays', () => {
    const crlf = text.replace(/\n/g, '\r\n');
    const out = rewriteLedgerStatus(crlf, parseLedger('/x/s.yaml', crlf), '2-6a-split-story', 'in-progress', new Date('2025-07-01T08:05:00Z'));
    const a = crlf.split('\r\n');
    const b = out.split('\r\n');
    assert.equal(a.length, b.length);
    const changed = a.map((x, i) => (x === b[i] ? -1 : i)).filter((i) => i >= 0);
    assert.deepEqual(changed, [2, 6]);
    assert.equal(b[2], 'last_updated: "07-01-2025 08:05"');
    assert.equal(b[6], '  2-6a-split-story: in-progress');
  });

  test('not YAML: one error at the parser line; the rest is still read line by line', () => {
    const r = parseLedger('/x/s.yaml', 'development_status:\n  epic-1: backlog\n  1-1-a: [done\n');
    assert.equal(r.problems[0].code, 'ledger-yaml');
    assert.equal(r.entries[0].key, 'epic-1');
  });
});

describe('story files', () => {
  test('Status in every written form', () => {
    const cases: [string, string][] = [
      ['# Story 1.2: X\n\nStatus: ready-for-dev\n', 'ready-for-dev'],
      ['# Story 1.2: X\n\n**Status:** Ready for Review\n', 'Ready for Review'],
      ['# Story 1.2: X\n\n## Status\n\nDone\n', 'Done'],
      ['# Story 1.2: X\n\n## Status: Done\n', 'Done'],
      ['# Story 1.2: X\n\n### Status\n**Status:** done\n', 'done'],
      ['# Story 1.2: X\n\n**Epic:** 6 **Story ID:** 1.2 **Status:** done\n', 'done'],
      ['# Story 1.2: X\n\nStatus: done ✅\n', 'done'],
      ['# Story 1.2: X\n\n**Status:** ✅ **COMPLETED** - Ready for Review\n', 'COMPLETED'],
      ['---\nstatus: review\n---\n# Story 1.2: X\n', 'review'],
    ];
    for (const [t, want] of cases) {
      const s = parseStory('/x/1-2-x.md', t);
      assert.equal(s.status, want, t);
      const line = t.split('\n')[s.statusLine!];
      assert.equal(line.slice(s.statusStart, s.statusEnd), want, t);
    }
    // "Status:" in Dev Notes further down is not the story's status; a Subtasks title is not the tasks section.
    const s = parseStory('/x/3-3-x.md', `# Story 3.3: Subtasks — Add\n\nStatus: done\n\n## Dev Notes\n\n${'\n'.repeat(50)}Status: 200 OK\n`);
    assert.equal(s.status, 'done');
  });

  test('tasks with nesting, numbers and [AI-Review] follow-ups; find a task by number, #N or text', () => {
    const s = parseStory('/x/2-1-x.md', fs.readFileSync(path.join(FIX, 'bmad-v6/_bmad-output/implementation-artifacts/2-1-dashboard.md'), 'utf8'));
    assert.deepEqual(s.tasks.map((t) => [t.number, t.depth, t.checked, t.review]), [['1', 0, true, false], ['2', 0, false, false], ['2.1', 1, false, false], ['3', 0, false, true]]);
    assert.equal((findTask(s.tasks, '2.1') as { text: string }).text, 'Subtask 2.1: bar chart');
    assert.equal((findTask(s.tasks, '#4') as { review: boolean }).review, true);
    assert.match((findTask(s.tasks, 'chart') as { error: string }).error, /matches 2 tasks/);
  });

  test('names: v6 keys, split stories, v4 epic.story files; retrospectives, contexts and dated specs are not stories', () => {
    assert.equal(storyKeyFromName('2-6a-export.md')?.story, '6a');
    assert.equal(storyKeyFromName('1.2.profile.md')?.key, '1-2-profile');
    for (const n of ['epic-1-retro-2025-10-21.md', '1-1-login.context.md', '2025-12-16-tech-spec-x.md']) assert.equal(storyKeyFromName(n), undefined, n);
  });

  test('status words: vocabulary, legacy and v4 words, "did you mean done?"', () => {
    assert.deepEqual(normalizeStoryStatus('in-progress'), { status: 'in-progress', exact: true });
    assert.equal(normalizeStoryStatus('InProgress').status, 'in-progress');
    assert.equal(normalizeStoryStatus('drafted').status, 'ready-for-dev');
    for (const w of ['complete', 'reviewed', 'Completed']) assert.equal(normalizeStoryStatus(w).suggestion, 'done', w);
    // Development finished is review, the step before done (never done by a word alone).
    assert.equal(normalizeStoryStatus('dev-complete').status, 'review');
  });

  test('epics headings: planned stories with split numbers; fenced code skipped', () => {
    const e = parseEpics('/x/epics.md', fs.readFileSync(path.join(FIX, 'bmad-v611/_bmad-output/planning-artifacts/epics.md'), 'utf8'));
    assert.deepEqual(e.get(1)!.stories.map((s) => s.key), ['1-1-import-photos', '1-2a-tagging-basics', '1-2b-tagging-bulk-edit']);
    const f = parseEpics('/x/epics.md', fs.readFileSync(path.join(FIX, 'bmad-v6/_bmad-output/planning-artifacts/epics.md'), 'utf8'));
    assert.equal(f.has(9), false);
  });
});

describe('sprint drift', () => {
  test('v6.0 fixture: every kind of drift on its exact line; the clean story has none', () => {
    const r = loadSprint(path.join(FIX, 'bmad-v6'), { now: NOW })!;
    assert.deepEqual(codesOf(r.problems), [
      '1-2-account-settings.md:3 warning story-status-drift',
      '1-3-password-reset.md:15 warning story-done-tasks-open',
      '1-3-password-reset.md:3 warning story-unknown-status',
      '2-4-orphan.md:1 warning story-not-in-ledger',
      'epics.md:25 warning epics-story-not-in-ledger',
      'sprint-status.yaml:22 info story-status-drift',
      'sprint-status.yaml:26 warning epic-backlog-story-started',
      'sprint-status.yaml:28 warning ledger-story-no-file',
      'sprint-status.yaml:29 info ledger-legacy-status',
    ]);
    const drift = r.problems.find((p) => p.code === 'story-status-drift' && p.severity === 'warning')!;
    assert.match(drift.message, /the ledger is ahead/);
    assert.deepEqual(drift.range, { start: { line: 2, character: 8 }, end: { line: 2, character: 14 } });
    assert.equal(drift.data?.value, 'done');
    assert.equal(findStory(r, '1.1')!.problems.length, 0);
    assert.equal(findStory(r, '2-6a')!.fileStatus, 'ready-for-dev');
    assert.deepEqual(r.next, { action: 'dev-story', storyKey: '2-1-dashboard', reason: 'resume the in-progress story' });
  });

  test('v6.11 fixture (layered config, split stories, gate-decision.json): no false alarm at all', () => {
    const r = loadSprint(path.join(FIX, 'bmad-v611'), { now: new Date('2026-03-11T00:00:00Z') })!;
    assert.deepEqual(r.problems, []);
    assert.equal(findStory(r, '1-1')!.gate?.verdict, 'PASS');
    assert.deepEqual(findStory(r, '1-1')!.tasks, { done: 4, total: 4, reviewOpen: 0 });
    assert.equal(r.stories.length, 4);
    assert.equal(r.actionItems.length, 1);
    const stale = loadSprint(path.join(FIX, 'bmad-v611'), { now: new Date('2026-04-01T00:00:00Z'), staleDays: 7 })!;
    assert.deepEqual(codesOf(stale.problems), ['sprint-status.yaml:6 info ledger-stale']);
  });

  test('alpha fixture: contexted/drafted/completed read by today\'s meaning and reported; context files are not stories', () => {
    const r = loadSprint(path.join(FIX, 'bmad-alpha'), { now: NOW })!;
    assert.equal(r.config.layout, 'alpha');
    assert.equal(r.stories.length, 2);
    assert.deepEqual(codesOf(r.problems), [
      '1-2-route-planner.md:3 warning story-status-drift',
      'sprint-status.yaml:10 info ledger-legacy-status',
      'sprint-status.yaml:12 info ledger-legacy-status',
      'sprint-status.yaml:12 info story-status-drift',
      'sprint-status.yaml:13 info ledger-legacy-status',
    ]);
    assert.equal(r.next?.storyKey, '1-2-route-planner');
  });

  test('v4 fixture: stories from docs/stories, ## Status sections, a FAIL QA gate on a done story is an error', () => {
    const r = loadSprint(path.join(FIX, 'bmad-v4'), { now: NOW })!;
    assert.deepEqual(codesOf(r.problems), ['1.1.login.md:5 error story-gate-failed']);
    assert.equal(findStory(r, '1.2')!.status, 'in-progress');
  });

  test('a QA gate whose YAML breaks below its verdict is read by its top-level gate: line; a gate with no verdict is a warning, not an error on the story', () => {
    const dir = copyFixture('bmad-v4');
    const gate = path.join(dir, 'docs/qa/gates/1.1-login.yml');
    // An unescaped quote inside a quoted note, as reviewers' agents write them: the file is no YAML, its verdict is plain.
    fs.writeFileSync(gate, fs.readFileSync(gate, 'utf8').replace('gate: FAIL', 'gate: PASS') + "nfr_validation:\n  reliability:\n    notes: 'failures don't block others.'\n");
    assert.deepEqual(codesOf(loadSprint(dir, { now: NOW })!.problems), []);
    fs.writeFileSync(gate, "schema: 1\nstory: '1.1'\nreviewer: 'it's broken'\n");
    assert.deepEqual(codesOf(loadSprint(dir, { now: NOW })!.problems), ['1.1.login.md:5 warning story-gate-failed']);
  });

  test('what next follows BMAD: in-progress, review, ready-for-dev, backlog, an optional retro', () => {
    const dir = copyFixture('bmad-v611');
    const ledger = path.join(dir, 'delivery/sprint-status.yaml');
    const t = fs.readFileSync(ledger, 'utf8');
    fs.writeFileSync(ledger, t.replace('1-2b-tagging-bulk-edit: in-progress', '1-2b-tagging-bulk-edit: review'));
    assert.deepEqual(loadSprint(dir, { now: NOW })!.next, { action: 'code-review', storyKey: '1-2a-tagging-basics', reason: 'review the completed implementation' });
    fs.writeFileSync(ledger, t.replace(/: (in-progress|review|backlog)$/gm, ': done'));
    assert.equal(loadSprint(dir, { now: NOW })!.next?.action, 'retrospective');
  });
});

describe('story set-status and story check', () => {
  test('writes the story file and the ledger as one change: only the value and last_updated move; one history entry', async () => {
    const dir = copyFixture('bmad-v6');
    const ledger = path.join(dir, '_bmad-output/implementation-artifacts/sprint-status.yaml');
    const story = path.join(dir, '_bmad-output/implementation-artifacts/2-1-dashboard.md');
    const beforeLedger = fs.readFileSync(ledger, 'utf8');
    const beforeStory = fs.readFileSync(story, 'utf8');
    const r = await setStoryStatus(dir, '2.1', 'review', { actor: 'test', session: 's1', now: new Date('2025-10-22T09:30:00Z') });
    assert.deepEqual(r.written.sort(), [story, ledger].sort());
    const a = beforeLedger.split('\n');
    const b = fs.readFileSync(ledger, 'utf8').split('\n');
    assert.deepEqual(a.map((x, i) => (x === b[i] ? null : `${x} -> ${b[i]}`)).filter(Boolean), ['last_updated: 10-20-2025 17:45 -> last_updated: 10-22-2025 09:30', '  2-1-dashboard: in-progress -> 2-1-dashboard: review'.replace('->', '->  ')]);
    assert.equal(fs.readFileSync(story, 'utf8'), beforeStory.replace('Status: in-progress', 'Status: review'));
    const hist = readHistory(dir, story);
    assert.equal(hist.length, 1);
    assert.equal(hist[0].operation, 'story-set-status');
    assert.deepEqual(hist[0].to, { status: 'review' });
    assert.equal(hist[0].session, 's1');
  });

  test('a stale --expect-hash is a conflict and nothing is written; a done story moves back only with force', async () => {
    const dir = copyFixture('bmad-v6');
    const r0 = loadSprint(dir, { now: NOW })!;
    const hash = findStory(r0, '2-1-dashboard')!.stateHash;
    const story = path.join(dir, '_bmad-output/implementation-artifacts/2-1-dashboard.md');
    fs.writeFileSync(story, fs.readFileSync(story, 'utf8').replace('- [ ] Task 2', '- [x] Task 2'));
    const ledgerText = fs.readFileSync(path.join(dir, '_bmad-output/implementation-artifacts/sprint-status.yaml'), 'utf8');
    await assert.rejects(setStoryStatus(dir, '2-1-dashboard', 'review', { expectHash: hash }), (e) => WaymarkError.is(e, 'conflict'));
    assert.equal(fs.readFileSync(path.join(dir, '_bmad-output/implementation-artifacts/sprint-status.yaml'), 'utf8'), ledgerText);
    await assert.rejects(setStoryStatus(dir, '1-1', 'in-progress'), (e) => WaymarkError.is(e, 'transition'));
    const forced = await setStoryStatus(dir, '1-1', 'in-progress', { force: true });
    assert.equal(forced.after.status, 'in-progress');
    await setStoryStatus(dir, '1-1', 'review');
    // Code review sends review back to in-progress: allowed without force.
    const back = await setStoryStatus(dir, '1-1', 'in-progress');
    assert.equal(back.after.ledgerStatus, 'in-progress');
    await assert.rejects(setStoryStatus(dir, '9-9', 'done'), (e) => WaymarkError.is(e, 'usage'));
    await assert.rejects(setStoryStatus(dir, '2-1', 'complete'), (e) => WaymarkError.is(e, 'usage') && /Did you mean done/.test(e.message));
  });

  test('story check ticks one box; the same tick twice changes nothing', async () => {
    const dir = copyFixture('bmad-v6');
    const story = path.join(dir, '_bmad-output/implementation-artifacts/2-1-dashboard.md');
    const before = fs.readFileSync(story, 'utf8');
    const r = await checkStoryTask(dir, '2-1', '2.1');
    assert.equal(r.changed, true);
    assert.equal(fs.readFileSync(story, 'utf8'), before.replace('  - [ ] Subtask 2.1', '  - [x] Subtask 2.1'));
    assert.equal((await checkStoryTask(dir, '2-1', '2.1')).changed, false);
    assert.deepEqual(r.after.tasks, { done: 2, total: 4, reviewOpen: 1 });
  });

  test('a symlinked story file pointing outside the workspace is refused', async () => {
    const dir = copyFixture('bmad-v6');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-outside-'));
    const story = path.join(dir, '_bmad-output/implementation-artifacts/2-1-dashboard.md');
    fs.copyFileSync(story, path.join(outside, 'x.md'));
    fs.rmSync(story);
    fs.symlinkSync(path.join(outside, 'x.md'), story);
    await assert.rejects(checkStoryTask(dir, '2-1', '2'), (e) => WaymarkError.is(e, 'usage') && /outside the workspace/.test(e.message));
  });
});

describe('checkSprintProposal (for agent hooks)', () => {
  test('a proposed edit that introduces drift says so; a clean one introduces nothing', () => {
    const root = path.join(FIX, 'bmad-v611');
    const file = path.join(root, 'delivery/1-2a-tagging-basics.md');
    const text = fs.readFileSync(file, 'utf8');
    const bad = checkSprintProposal(root, file, text.replace('Status: review', 'Status: complete'), { now: new Date('2026-03-11T00:00:00Z') });
    assert.equal(bad.applies, true);
    assert.deepEqual(bad.introduced.map((p) => p.code), ['story-status-drift']);
    const ok = checkSprintProposal(root, file, text.replace('- [ ] Task 3', '- [x] Task 3'), { now: new Date('2026-03-11T00:00:00Z') });
    assert.deepEqual(ok.introduced, []);
    const ledger = path.join(root, 'delivery/sprint-status.yaml');
    const l = checkSprintProposal(root, ledger, fs.readFileSync(ledger, 'utf8').replace('1-1-import-photos: done', '1-1-import-photos: donne'), { now: new Date('2026-03-11T00:00:00Z') });
    assert.ok(l.introduced.some((p) => p.code === 'ledger-unknown-status' && p.severity === 'warning'));
    // A done word of the project's own (`finished`) reads done: a note that BMAD writes `done`.
    const own = checkSprintProposal(root, ledger, fs.readFileSync(ledger, 'utf8').replace('1-1-import-photos: done', '1-1-import-photos: finished'), { now: new Date('2026-03-11T00:00:00Z') });
    assert.ok(own.introduced.some((p) => p.code === 'ledger-legacy-status' && p.severity === 'info'));
    assert.equal(checkSprintProposal(root, path.join(root, 'README.md'), 'x').applies, false);
  });
});

describe('CLI: waymark sprint / story', () => {
  const run = (args: string[], cwd = process.cwd()) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd });

  test('sprint --json lists epics, stories and what next; exit 0 with drift (warnings)', () => {
    const r = run(['sprint', path.join(FIX, 'bmad-v6'), '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.next.storyKey, '2-1-dashboard');
    assert.equal(j.epics[0].stories[0].key, '1-1-user-login');
    assert.ok(j.problems.some((p: { code: string }) => p.code === 'story-status-drift'));
  });

  test('unknown options, a missing sprint and a bad status are clear errors (exit 2)', () => {
    const a = run(['sprint', path.join(FIX, 'bmad-v6'), '--bogus']);
    assert.equal(a.status, 2);
    assert.match(a.stderr, /unknown option --bogus/i);
    const b = run(['sprint', fs.mkdtempSync(path.join(os.tmpdir(), 'wm-empty-'))]);
    assert.equal(b.status, 2);
    assert.match(b.stderr, /No BMAD sprint/);
    const dir = copyFixture('bmad-v6');
    const c = run(['story', 'set-status', '2-1', 'finished', '--root', dir]);
    assert.equal(c.status, 2);
    assert.match(c.stderr, /not a story status/);
    assert.doesNotMatch(c.stderr, /at .*\.js/);
  });

  test('story set-status through a real process: exit 0, then exit 3 on a stale hash, exit 4 on a rewind', () => {
    const dir = copyFixture('bmad-v6');
    const hash = JSON.parse(run(['story', 'show', '2-1', '--root', dir, '--json']).stdout).stateHash;
    const ok = run(['story', 'set-status', '2-1', 'review', '--root', dir, '--expect-hash', hash, '--json']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).status, 'review');
    assert.equal(run(['story', 'set-status', '2-1', 'done', '--root', dir, '--expect-hash', hash]).status, 3);
    assert.equal(run(['story', 'set-status', '1-1', 'backlog', '--root', dir]).status, 4);
    assert.equal(run(['story', 'check', '2-1', '2', '--root', dir]).status, 0);
  });

  test('a story write honours an orchestrator lease held by another agent (exit 3), like every write verb', () => {
    const dir = copyFixture('bmad-v6');
    const lease = run(['lease', 'acquire', '--root', dir, '--actor', 'orchestrator', '--session', 'o1']);
    assert.equal(lease.status, 0, lease.stderr);
    const story = path.join(dir, '_bmad-output/implementation-artifacts/2-1-dashboard.md');
    const before = fs.readFileSync(story, 'utf8');
    const r = run(['story', 'set-status', '2-1', 'review', '--root', dir, '--actor', 'dev-agent', '--session', 'd1']);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /orchestrator/);
    assert.equal(fs.readFileSync(story, 'utf8'), before);
    assert.equal(run(['story', 'set-status', '2-1', 'review', '--root', dir, '--actor', 'orchestrator', '--session', 'o1']).status, 0);
  });

  test('validate includes sprint drift with file:line', () => {
    const r = run(['validate', path.join(FIX, 'bmad-v6')]);
    assert.match(r.stdout, /1-2-account-settings\.md:3:9 warning story-status-drift/);
    assert.match(r.stdout, /0 error\(s\)/);
  });
});

describe('artifacts identified from what workflows declare', () => {
  test('outputFile (with {{date}} wildcards), derived status, edit-mode steps are progress, one warning for user labels', async () => {
    const dir = copyFixture('bmad-v6');
    const { scanRoots } = await import('../../src/core/store/scan');
    const res = await scanRoots([dir], { index: false });
    const by = (rel: string) => res.workflows.find((w) => w.file === path.join(dir, rel))!;
    const prd = by('_bmad-output/planning-artifacts/prd.md');
    assert.equal(prd.identifiedBy, 'outputFile');
    assert.equal(prd.status, 'completed');
    assert.equal(prd.statusDerived, true);
    assert.deepEqual(prd.problems, []);
    const brainstorm = by('_bmad-output/brainstorming/brainstorming-session-2025-10-02.md');
    assert.equal(brainstorm.workflow, 'brainstorming');
    assert.equal(brainstorm.status, 'in_progress');
    const epics = by('_bmad-output/planning-artifacts/epics.md');
    assert.equal(epics.workflow, 'create-epics-and-stories');
    const f = path.join(dir, '_bmad-output/planning-artifacts/prd.md');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('step-04-scope,', 'step-04-scope, my-review-1, my-review-2, step-v-01-discovery,'));
    const again = (await scanRoots([dir], { index: false })).workflows.find((w) => w.file === f)!;
    assert.deepEqual(again.problems.map((p) => [p.code, p.severity]), [['step-unknown', 'warning']]);
    assert.match(again.problems[0].message, /2 entries/);
    // The derived status is never written: the file has no status key after a scan.
    assert.doesNotMatch(fs.readFileSync(f, 'utf8'), /^status:/m);
  });
});

// The families still skipped, third pass (issue 20): a planning artifact is known by what it
// carries, not by its file name (its template's title or headings, in the language the project
// writes documents in), and nothing is made an artifact by its title alone; a root ledger is live by
// the rule that chooses a project's ledger; a ledger nesting its stories under its epics is read.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { scanRoots } from '../../src/core/store/scan';
import { findBmadProjects } from '../../src/core/bmad/config';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseLedger } from '../../src/core/bmad/ledger';
import { editLedgerStatus, ledgerEntryStatus } from '../../src/core/bmad/ledgerEdit';
import { workspace } from './fileHelpers';

const CONFIG = 'project_name: heron\ndocument_output_language: "Simplified Chinese"\noutput_folder: "{project-root}"\nplanning_artifacts: "{project-root}"\nimplementation_artifacts: "{project-root}/stories"\n';

const fm = (lines: string[]) => `---\n${lines.join('\n')}\n---\n\n`;

describe('planning artifacts by evidence, under any name and language', () => {
  const files: Record<string, string> = {
    '_bmad/bmm/config.yaml': CONFIG,
    // A UX spec under a translated name, with a step id of its own.
    '交互设计说明.md': `${fm(['stepsCompleted:', '  - page-spec-ready', 'inputDocuments:', '  - "产品简报.md"', 'status: ready_for_story_split'])}# UX 设计规格：鹭鸟记账\n\n## 1. 设计目标\n\n把页面拆到可以直接写故事。\n`,
    // An English PRD under a name of the team's own, known by its steps' headings.
    'mobile-checkout-plan.md': `${fm(['stepsCompleted: [1, 2, 3, 4, 5]', 'inputDocuments: []'])}# Heron Mobile Checkout\n\n## Executive Summary\n\nPay in two taps.\n\n## Success Criteria\n\n- checkout under 20 s\n\n## Product Scope\n\n### MVP\n\n## User Journeys\n\n## Functional Requirements\n\n- FR1: pay\n`,
    // An architecture in Spanish.
    'diseño-técnico.md': `${fm(['stepsCompleted: [1, 2]', 'inputDocuments: []'])}# Documento de decisiones de arquitectura\n\n## Análisis del contexto\n`,
    // A step-tracked file whose title and headings name no workflow stays unknown.
    'meeting-notes.md': `${fm(['stepsCompleted: [1]'])}# Weekly sync\n\n## Attendees\n\n## Success Criteria\n`,
    // A plain doc titled like a template is no artifact.
    'docs/architecture-overview.md': '# Architecture\n\n## Core Architectural Decisions\n\n## Project Structure & Boundaries\n\n## Architecture Validation Results\n',
  };

  test('each is identified by its title or headings; the rest stay as they were', async () => {
    const dir = workspace(files, { prefix: 'wm-families3-', waymark: false });
    const res = await scanRoots([dir], { index: false, sprint: true });
    const of = (rel: string) => {
      const w = res.workflows.find((x) => x.file === path.join(dir, rel));
      if (!w) return undefined;
      return { workflow: w.workflow, by: w.identifiedBy, unknown: w.problems.some((p) => p.code === 'bmad-workflow-unknown') };
    };
    assert.deepEqual(of('交互设计说明.md'), { workflow: 'create-ux-design', by: 'known', unknown: false });
    assert.deepEqual(of('mobile-checkout-plan.md'), { workflow: 'prd', by: 'known', unknown: false });
    assert.deepEqual(of('diseño-técnico.md'), { workflow: 'create-architecture', by: 'known', unknown: false });
    assert.equal(of('meeting-notes.md')?.unknown, true, 'a title and one heading name no workflow');
    assert.equal(of('docs/architecture-overview.md'), undefined, 'a plain doc is no artifact, whatever its title');
  });
});

describe('a root ledger beside installs in subfolders is live by the rule that chooses a ledger', () => {
  const backup = { 'v4-backup/.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n' };
  test('an empty ledger at the root makes no project of it (nothing to read there)', () => {
    const dir = workspace({ ...backup, 'docs/sprint-status.yaml': 'project: kite\ndevelopment_status: {}\n' }, { prefix: 'wm-families3-', waymark: false });
    assert.deepEqual(findBmadProjects(dir), [path.join(dir, 'v4-backup')]);
  });
  test('a ledger whose key is quoted still lists its work', () => {
    const dir = workspace({ ...backup, 'sprint-status.yaml': '"development_status":\n  epic-1: in-progress\n  1-1-spar-cutter: review\n' }, { prefix: 'wm-families3-', waymark: false });
    assert.deepEqual(findBmadProjects(dir), [dir, path.join(dir, 'v4-backup')]);
  });
});

const NOW = new Date('2026-11-28T23:00:00Z');
const V6 = 'project_name: lantern\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';

describe('a ledger nesting its stories under its epics', () => {
  const nested = [
    '# Lantern sprint status',
    'project: lantern',
    'last_updated: 2026-11-20',
    'epics:',
    '  epic-1:',
    '    name: "Wick and Oil"',
    '    status: in_progress',
    '    stories:',
    '      story-1.1:',
    '        name: "Trim the wick"',
    '        status: complete',
    '      story-1.2:',
    '        name: "Fill the reservoir"',
    '        status: complete',
    '        depends_on: [story-1.1]',
    '  epic-2:',
    '    status: backlog',
    '    stories:',
    '      2-1-polish-the-glass: backlog',
    '',
  ].join('\n');
  const files = {
    '_bmad/bmm/config.yaml': V6,
    '_bmad-output/sprint-status.yaml': nested,
    '_bmad-output/stories/story-1.1.md': '# Story 1.1: Trim the wick\n\n## Status: complete\n\n## Tasks\n\n- [x] Trim\n',
    '_bmad-output/stories/story-1.2.md': '# Story 1.2: Fill the reservoir\n\n## Status: not-started\n\n## Tasks\n\n- [ ] Fill\n',
  };

  test('its epics and stories are the entries; its own word complete reads done', () => {
    const l = parseLedger('/p/sprint-status.yaml', nested);
    assert.equal(l.otherFormat, undefined);
    assert.deepEqual(l.entries.map((e) => [e.key, e.kind, e.status]), [
      ['epic-1', 'epic', 'in-progress'], ['story-1.1', 'story', 'done'], ['story-1.2', 'story', 'done'], ['epic-2', 'epic', 'backlog'], ['2-1-polish-the-glass', 'story', 'backlog'],
    ]);
    assert.ok(!l.problems.some((p) => p.code === 'ledger-other-format'));
  });

  test('drift against its story files is found, a clean story is not warned', () => {
    const dir = workspace(files, { prefix: 'wm-families3-', waymark: false });
    const r = loadSprint(dir, { now: NOW })!;
    const byKey = new Map(r.stories.map((s) => [s.key, s]));
    assert.equal(byKey.get('story-1.2')?.file, path.join(dir, '_bmad-output/stories/story-1.2.md'));
    const warned = (f: string) => r.problems.filter((p) => p.severity !== 'info' && (p.file.endsWith(f) || p.data?.key === f.replace(/\.md$/, ''))).map((p) => p.code);
    assert.ok(warned('story-1.2.md').includes('story-status-drift'));
    assert.deepEqual(warned('story-1.1.md'), []);
  });

  test('a story file the nested ledger does not list is told to add it under its epic\'s stories:', () => {
    const dir = workspace({ ...files, '_bmad-output/stories/story-1.3.md': '# Story 1.3: Light the lamp\n\nStatus: review\n' }, { prefix: 'wm-families3-', waymark: false });
    const r = loadSprint(dir, { now: NOW })!;
    const p = r.problems.find((x) => x.code === 'story-not-in-ledger' && x.file.endsWith('story-1.3.md'));
    assert.ok(p, 'the file is reported');
    assert.match(p.message, /under epic-1's stories:/);
    assert.doesNotMatch(p.message, /under development_status/);
  });

  test('a story naming its file in story_file: is found in that folder', () => {
    const top = ['epic-1:', '  status: in-progress', '  stories:', '    story-1-1-trim-the-wick:', '      status: done', '      story_file: "stories/story-1-1-trim-the-wick.md"', ''].join('\n');
    const dir = workspace({ '_bmad/bmm/config.yaml': V6, '_bmad-output/implementation-artifacts/sprint-status.yaml': top, 'stories/story-1-1-trim-the-wick.md': '# Story 1.1: Trim the wick\n\nStatus: review\n' }, { prefix: 'wm-families3-', waymark: false });
    const r = loadSprint(dir, { now: NOW })!;
    const s = r.stories.find((x) => x.key === 'story-1-1-trim-the-wick');
    assert.equal(s?.file, path.join(dir, 'stories/story-1-1-trim-the-wick.md'));
    assert.ok(r.problems.some((p) => p.code === 'story-status-drift' && p.file === s?.file));
  });

  test('a status is written where the entry is, every other byte kept', () => {
    const out = editLedgerStatus('/p/sprint-status.yaml', nested, 'story-1.2', 'in-progress', NOW);
    assert.equal(ledgerEntryStatus(out, 'story-1.2'), 'in-progress');
    assert.equal(out, nested.replace(/(story-1\.2:\n(?:.*\n)*?\s+status: )complete/, '$1in-progress').replace('last_updated: 2026-11-20', 'last_updated: 2026-11-28'));
    assert.equal(ledgerEntryStatus(editLedgerStatus('/p/sprint-status.yaml', nested, '2-1-polish-the-glass', 'ready-for-dev', NOW), '2-1-polish-the-glass'), 'ready-for-dev');
  });

  test('stories kept as a list of items under a list of epics are read (session 34, known34b: delorenj/perth, ERoydev, Monolith keep their ledger so)', () => {
    const l = parseLedger('/p/sprint-status.yaml', 'epics:\n  - id: epic-1\n    status: in-progress\n    stories:\n      - id: "1-1"\n        status: done\n');
    assert.deepEqual(l.entries.map((e) => [e.key, e.status]), [['1-1', 'done']]);
    assert.equal(l.otherFormat, undefined);
  });
});

describe('epic keys with a title, a generation or a translated retrospective', () => {
  const kinds = (text: string) => parseLedger('/p/sprint-status.yaml', text).entries.map((e) => [e.key, e.kind, e.epicId, e.status]);
  test('an epic written with its title after its number is that epic, and so is its retrospective', () => {
    assert.deepEqual(kinds('development_status:\n  epic-1-wick-and-oil: done\n  1-1-trim-the-wick: done\n  epic-1-wick-and-oil-retrospective: optional\n  epic-2-5-glass-care: in-progress\n  2-5-1-polish: review\n'), [
      ['epic-1-wick-and-oil', 'epic', '1', 'done'], ['1-1-trim-the-wick', 'story', '1', 'done'], ['epic-1-wick-and-oil-retrospective', 'retro', '1', 'optional'],
      ['epic-2-5-glass-care', 'epic', '2-5', 'in-progress'], ['2-5-1-polish', 'story', '2-5', 'review'],
    ]);
  });
  test('with no story of its number right after it, or beside a plain epic-N, it stays skipped', () => {
    assert.equal(kinds('development_status:\n  epic-1-notes: done\n  2-1-other: done\n')[0][1], 'unknown');
    assert.equal(kinds('development_status:\n  epic-7: done\n  epic-7-extended: done\n  7-1-slug: done\n')[1][1], 'unknown');
  });
  test('an epic planned again: the last generation is the epic, the earlier one an epic of its own', () => {
    const k = kinds('development_status:\n  epic-3-v0: quarantined\n  3-1-lamp-base: quarantined\n  epic-3-v1: in-progress\n  3-1-v1-lamp-base: done\n');
    assert.deepEqual(k.map((x) => [x[0], x[1], x[2]]), [['epic-3-v0', 'epic', '3-v0'], ['3-1-lamp-base', 'story', '3'], ['epic-3-v1', 'epic', '3'], ['3-1-v1-lamp-base', 'story', '3']]);
  });
  test('a retrospective named in the ledger\'s language', () => {
    assert.deepEqual(kinds('development_status:\n  epic-1: done\n  1-1-x: done\n  epic-1-回顾: optional\n')[2].slice(0, 3), ['epic-1-回顾', 'retro', '1']);
  });
});

describe('a series under no epic', () => {
  const ledger = 'development_status:\n  epic-1: done\n  1-1-trim-the-wick: done\n  epic-1-retrospective: done\n  debug-1-lamp-logger: review\n  BF-2-flicker-fix: done\n  epic-2: in-progress\n  2-1-polish: in-progress\n  hotfix-1-glass-crack: done\n';
  test('keys of a word, one number and a slug, before any epic or after a retrospective, are that series\' stories; inside an open epic they stay unplaced', () => {
    const l = parseLedger('/p/sprint-status.yaml', ledger);
    const of = (k: string) => { const e = l.byKey.get(k)!; return [e.kind, e.epicId, e.story]; };
    assert.deepEqual(of('debug-1-lamp-logger'), ['story', 'debug', '1']);
    assert.deepEqual(of('BF-2-flicker-fix'), ['story', 'bf', '2']);
    assert.equal(l.byKey.get('hotfix-1-glass-crack')!.kind, 'unknown');
  });
  test('their files are compared with the ledger', () => {
    const dir = workspace({
      '_bmad/bmm/config.yaml': V6,
      '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger,
      '_bmad-output/implementation-artifacts/debug-1-lamp-logger.md': '# Debug 1: Lamp logger\n\nStatus: in-progress\n',
    }, { prefix: 'wm-families3-', waymark: false });
    const r = loadSprint(dir, { now: NOW })!;
    assert.ok(r.problems.some((p) => p.code === 'story-status-drift' && p.file.endsWith('debug-1-lamp-logger.md')));
  });
});

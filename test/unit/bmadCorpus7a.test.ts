// Real projects read right (issue 20, seventh corpus round, part a, measured on projects not seen
// before): v6 beta's sprint kept in `dev_ephemeral_location` (`.bmad-ephemeral/`) is found; story
// keys that put the letter of "epic" before its number (`e-01-1-…`, `e0-1-…`) belong to that
// epic and join its files (`1-1-….md`); a Status label written in the project's document language
// (`**Statut** : DONE`, `## 状态: 已完成`, `| 状态 | Backlog |`) and its status words are read; a
// story kept in two story folders is the one beside the ledger; v4's sub-stories (`1.5.1.slug.md`)
// are stories of their own, with their own QA gates.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { parseStory, normalizeStoryStatus } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { corpusFixture } from './corpusHelpers';

const NOW = new Date('2026-11-28T12:00:00Z');

const { copy, cli } = corpusFixture('corpus7a');

const warnings = (r: { problems: { severity: string; code: string; file: string }[] }) =>
  r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`).sort();

describe('v6 beta: the sprint in dev_ephemeral_location', () => {
  test('the ledger and the stories under `.bmad-ephemeral/` are the sprint; their drift is found', () => {
    const dir = copy('ephemeral');
    const r = loadSprint(dir, { now: NOW })!;
    assert.equal(path.relative(dir, r.ledgerFile ?? ''), path.join('.bmad-ephemeral', 'sprint-status.yaml'));
    const fileOf = Object.fromEntries(r.stories.map((s) => [s.key, s.file ? path.relative(dir, s.file) : null]));
    assert.deepEqual(fileOf, {
      '1-1-scaffold-app': path.join('.bmad-ephemeral', 'stories', '1-1-scaffold-app.md'),
      '1-2-category-seed': path.join('.bmad-ephemeral', 'stories', '1-2-category-seed.md'),
      '1-3-budget-form': path.join('.bmad-ephemeral', 'stories', '1-3-budget-form.md'),
    });
    assert.deepEqual(warnings(r), ['1-1-scaffold-app.md story-status-drift']);
    const s = cli(dir, 'sprint');
    assert.equal(s.status, 0, s.stderr);
  });
});

describe('story keys with the letter of "epic" before its number', () => {
  test('`e-01-1-…` and `e0-1-…` are stories of epic-01 and epic-0, joined to their files', () => {
    const dir = copy('epic-letter');
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.stories.map((s) => [s.key, { epic: s.epicId, file: s.file ? path.basename(s.file) : null, ledger: s.ledgerStatus ?? null }]));
    assert.deepEqual(of, {
      'e-01-1-import-folder': { epic: '01', file: '1-1-import-folder.md', ledger: 'done' },
      'e-01-2-cloud-sync': { epic: '01', file: '1-2-cloud-sync.md', ledger: 'done' },
      'e-01-3-exif-reader': { epic: '01', file: 'e-01-3-exif-reader.md', ledger: 'in-progress' },
      'e0-1-scaffold-backend': { epic: '0', file: 'e0-1-scaffold-backend.md', ledger: 'review' },
      'e0-2-scaffold-frontend': { epic: '0', file: null, ledger: 'backlog' },
    });
    // The epics are the ledger's own: no `e-01` epic "not in the ledger" beside epic-01.
    assert.deepEqual(r.epics.map((e) => e.id).sort(), ['0', '01']);
    // An older copy of story 1.2 under docs/stories/ is not the story: the file beside the ledger is.
    assert.equal(path.relative(dir, r.stories.find((s) => s.key === 'e-01-2-cloud-sync')!.file!), path.join('_bmad-output', 'implementation-artifacts', '1-2-cloud-sync.md'));
    assert.deepEqual(warnings(r), ['1-1-import-folder.md story-status-drift']);
    // Not a key outside the grammar: no summary note that keys are skipped.
    assert.equal(r.problems.filter((p) => p.code === 'ledger-unknown-key').length, 0);
  });

  test('a module really named `e` keeps its own epic', () => {
    const l = parseLedger('/p/sprint-status.yaml', 'development_status:\n  e-01: in-progress\n  e-01-1-intro: done\n');
    const e = l.byKey.get('e-01-1-intro')!;
    assert.equal(e.kind, 'story');
    assert.equal(e.epicId, 'e-01');
  });
});

describe('a Status label in the project`s document language', () => {
  test('French, Chinese and table forms are read; their words mean BMAD statuses', () => {
    const dir = copy('localized');
    const r = loadSprint(dir, { now: NOW })!;
    const st = Object.fromEntries(r.stories.map((s) => [s.key, s.fileStatus ?? null]));
    assert.deepEqual(st, {
      '1-1-initialiser-le-projet': 'DONE', '1-2-base-rbac': 'Terminé', '1-3-coquille-ui': 'En cours', '1-4-profil': 'Prêt pour développement',
      '2-1-liste-des-clients': '已完成', '2-2-fiche-client': 'Backlog', '2-3-recherche': '已完成并发布',
    });
    // Only the one the ledger disagrees with is warned.
    assert.deepEqual(warnings(r), ['2-2-fiche-client.md story-status-drift']);
  });

  test('label forms: a space before the colon, a full-width colon, a heading, a table row', () => {
    const cases: [string, string][] = [
      ['**Statut** : ✅ DONE', 'DONE'],
      ['**Statut :** Terminé', 'Terminé'],
      ['Estado: en progreso', 'en progreso'],
      ['**状态**：审核中', '审核中'],
      ['## 状态: 完成', '完成'],
      ['| 状态 | Backlog |', 'Backlog'],
      ['- **Статус**: в работе', 'в работе'],
    ];
    for (const [line, want] of cases) {
      const s = parseStory('/p/1-1-x.md', `# Story 1.1: X\n\n${line}\n\n## Tasks\n\n- [x] one\n`);
      assert.equal(s.status, want, line);
    }
  });

  test('under a `## Status` heading, a checklist item that is the Status label gives the status', () => {
    for (const label of ['Status', 'Статус']) {
      const s = parseStory('/p/2-3-x.md', `# Story 2.3: X\n\n## ${label}\n- [ ] Sprint: Epic 2\n- [x] Priority: High\n- [x] ${label}: done\n\n## Context\n`);
      assert.equal(s.status, 'done', label);
    }
  });

  test('status words in other languages map like their English words; done stays a word the tasks must back', () => {
    const cases: [string, { status?: string; suggestion?: string }][] = [
      ['Terminé', { suggestion: 'done' }], ['已完成并发布', { suggestion: 'done' }], ['完成', { suggestion: 'done' }], ['Concluído', { suggestion: 'done' }],
      ['En cours', { status: 'in-progress' }], ['进行中', { status: 'in-progress' }], ['в работе', { status: 'in-progress' }],
      ['审核中', { status: 'review' }], ['开发完成', { status: 'review' }], ['en revisión', { status: 'review' }],
      ['Prêt pour développement', { status: 'ready-for-dev' }], ['Approuvée', { status: 'ready-for-dev' }], ['待开发', { status: 'ready-for-dev' }],
      ['À faire', { status: 'backlog' }], ['待开始', { status: 'backlog' }], ['Pendiente', { status: 'backlog' }],
    ];
    for (const [word, want] of cases) {
      const n = normalizeStoryStatus(word);
      assert.deepEqual({ status: n.status, suggestion: n.suggestion }, { status: want.status, suggestion: want.suggestion }, word);
    }
  });
});

describe('v4 sub-stories numbered {epic}.{story}.{sub}', () => {
  test('`1.5.1.slug.md` is a story of its own beside story 1.5, with its own gate; the gate updated last decides', () => {
    const dir = copy('v4-substories');
    const r = loadSprint(dir, { now: NOW })!;
    const of = Object.fromEntries(r.stories.map((s) => [s.key, { file: s.file ? path.basename(s.file) : null, status: s.status, gate: s.gate?.verdict ?? null }]));
    assert.deepEqual(of, {
      '1-5-progressive-engine': { file: '1.5.progressive-engine.md', status: 'done', gate: 'PASS' },
      '1-5-1-speech-services': { file: '1.5.1.speech-services.md', status: 'done', gate: 'PASS' },
      '1-5-2-audio-capture': { file: '1.5.2.audio-capture.md', status: 'in-progress', gate: null },
    });
    assert.deepEqual(warnings(r), []);
    const v = cli(dir, 'validate');
    assert.equal(v.status, 0, v.stdout);
  });
});

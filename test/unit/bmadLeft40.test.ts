// Session 40's leftovers of the BMAD reader and writer (docs/bmad-corpus.md, "Leftovers closed (left40)").
// Fixtures written here. Each test failed on the session's start (04f7c68) before its fix.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { workspace, setStatus } from './fileHelpers';
import { WaymarkError } from '../../src/core/errors';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus, parseStory } from '../../src/core/bmad/story';
import { parseQaGate } from '../../src/core/bmad/qaGates';
import { cliJson } from './holdoutHelpers';

const IMPL = '_bmad-output/implementation-artifacts';
const LEDGER = `${IMPL}/sprint-status.yaml`;
const storyText = (n: string, title: string, status: string) => `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a keeper, I want ${title}, so that ships see.\n`;
const read = (dir: string, rel: string) => fs.readFileSync(path.join(dir, rel), 'utf8');

describe('a status said in another language reads as its English words read', () => {
  // [as written, status, suggestion]: `Ready for deploy` is done (a suggestion) in English; the same
  // words in Portuguese, Spanish, French, German or Italian are too, whatever follows in brackets.
  const cases: [string, string | undefined, string | undefined][] = [
    ['Pronto para deploy', undefined, 'done'],
    ['Pronto para o deploy', undefined, 'done'],
    ['Pronta para implantação', undefined, 'done'],
    ['Pronto para produção', undefined, 'done'],
    ['Listo para despliegue', undefined, 'done'],
    ['Listo para el lanzamiento', undefined, 'done'],
    ['Listo para desplegar', undefined, 'done'],
    ['Prêt pour le déploiement', undefined, 'done'],
    ['Prêt à déployer', undefined, 'done'],
    ['Bereit für Deployment', undefined, 'done'],
    ['Bereit zur Veröffentlichung', undefined, 'done'],
    ['Pronto per il rilascio', undefined, 'done'],
    ['Pronto para merge', 'review', undefined],
    ['Pronto para deploy em produção', undefined, 'done'],
    ['Pronto para go live', undefined, 'done'],
    // What comes before: development is ready-for-dev, a check is review, as in English.
    ['Pronto para desenvolvimento', 'ready-for-dev', undefined],
    ['Pronto para começar', 'ready-for-dev', undefined],
    ['Listo para implementar', 'ready-for-dev', undefined],
    ['Pronto para revisão', 'review', undefined],
    ['Pronto para testes', 'review', undefined],
    ['Listo para pruebas', 'review', undefined],
    ['Prêt pour la recette', 'review', undefined],
    ['Bereit zum Testen', 'review', undefined],
    ['Pronto para QA', 'review', undefined],
    ['Pronto', 'ready-for-dev', undefined],
  ];
  for (const [raw, status, suggestion] of cases) {
    test(raw, () => {
      const r = normalizeStoryStatus(raw);
      assert.equal(r.status, status, JSON.stringify(r));
      assert.equal(r.suggestion, suggestion, JSON.stringify(r));
    });
  }

  test('a story file closing `🚀 Pronto para deploy (passos manuais pendentes)` stands as `Ready for deploy` does', () => {
    const pt = parseStory('/x/12-4-deploy.md', '# Story 12.4: Deploy\n\n## Status\n\n🚀 Pronto para deploy (passos manuais pendentes)\n\n## Story\n\nComo operador, quero publicar.\n');
    const en = parseStory('/x/12-4-deploy.md', '# Story 12.4: Deploy\n\n## Status\n\n🚀 Ready for deploy (manual steps pending)\n\n## Story\n\nAs an operator, I want to ship.\n');
    assert.equal(normalizeStoryStatus(pt.status ?? '').suggestion, 'done', pt.status);
    assert.equal(normalizeStoryStatus(en.status ?? '').suggestion, 'done', en.status);
  });
});

describe("a QA gate's expires: the gate's freshness window, for PASS and CONCERNS too", () => {
  const v4 = (status: string, gate: string) => ({
    '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nqa:\n  qaLocation: docs/qa\n',
    'docs/stories/1.1.story.md': `# Story 1.1: Lamp\n\n## Status\n\n${status}\n\n## Story\n\n**As a** keeper,\n**I want** a lamp,\n**so that** ships see.\n\n## Tasks / Subtasks\n\n- [x] Task 1: glass\n`,
    'docs/qa/gates/1.1-lamp.yml': gate,
  });
  const gate = (verdict: string, expires: string) => `schema: 1\nstory: "1.1"\ngate: ${verdict}\nstatus_reason: "Checked"\nreviewer: "Quinn"\nupdated: "2024-01-10T10:00:00Z"\ntop_issues: []\nwaiver: { active: false }\nexpires: "${expires}"\n`;
  const expiredOf = (dir: string) => (loadSprint(dir)?.stories[0]?.problems ?? []).filter((p) => p.code === 'story-gate-expired');

  test('parseQaGate: an expired PASS stays open and is due for re-review; one not yet expired is not', () => {
    const now = new Date('2025-06-01T00:00:00Z');
    const old = parseQaGate('/x/1.1-lamp.yml', gate('PASS', '2025-01-26T00:00:00Z'), now);
    assert.equal(old.open, true);
    assert.equal(old.reviewDue, '2025-01-26T00:00:00Z');
    const fresh = parseQaGate('/x/1.1-lamp.yml', gate('CONCERNS', '2025-07-01T00:00:00Z'), now);
    assert.equal(fresh.open, true);
    assert.equal(fresh.reviewDue, undefined);
    const failed = parseQaGate('/x/1.1-lamp.yml', gate('FAIL', '2025-01-26T00:00:00Z'), now);
    assert.equal(failed.reviewDue, undefined, 'a FAIL is closed already: nothing to re-review for freshness');
  });

  test('a story in review whose PASS gate has expired: a warning naming the gate, its date and what to do; nothing refused', async () => {
    const dir = workspace(v4('Review', gate('PASS', '2024-02-01T00:00:00Z')), { prefix: 'wm-left40-' });
    try {
      const s = loadSprint(dir)!.stories[0];
      assert.equal(s.gate?.open, true);
      const [p, more] = expiredOf(dir);
      assert.equal(more, undefined);
      assert.equal(p.severity, 'warning');
      assert.match(p.message, /1\.1-lamp\.yml/);
      assert.match(p.message, /2024-02-01/);
      assert.match(p.message, /re-review/i);
      await setStatus(dir, '1.1', 'done');
      assert.match(read(dir, 'docs/stories/1.1.story.md'), /## Status\n\nDone\n/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a done story whose CONCERNS gate has expired: a note, not a warning; a gate not yet expired or with no expires: nothing', () => {
    const cases: [string, string, string | undefined][] = [
      ['Done', gate('CONCERNS', '2024-02-01T00:00:00Z'), 'info'],
      ['Review', gate('PASS', '2999-01-01T00:00:00Z'), undefined],
      ['Review', gate('PASS', 'not a date'), undefined],
      ['Review', gate('PASS', '2024-02-01T00:00:00Z').replace(/expires:.*\n/, ''), undefined],
    ];
    for (const [status, text, severity] of cases) {
      const dir = workspace(v4(status, text), { prefix: 'wm-left40-' });
      try {
        assert.deepEqual(expiredOf(dir).map((p) => p.severity), severity ? [severity] : [], text);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('a planning document that stopped early, once the work it planned is done', () => {
  const config = 'output_folder: _bmad-output\nplanning_artifacts: _bmad-output/planning-artifacts\n';
  const wf = '_bmad/bmm/workflows/2-plan-workflows/create-prd';
  const files = (ledger: string, stories: Record<string, string>): Record<string, string> => ({
    '_bmad/bmm/config.yaml': config,
    [`${wf}/workflow.md`]: '---\nname: create-prd\ndescription: Write it\n---\n\n# create-prd\n\nLoad steps-c/step-01-init.md.\n',
    ...Object.fromEntries(['step-01-init', 'step-02-discovery', 'step-03-complete'].map((s) => [`${wf}/steps-c/${s}.md`, `---\nname: '${s}'\ndescription: 'Do it'\n---\n\n# ${s}\n`])),
    '_bmad-output/planning-artifacts/prd.md': "---\nstepsCompleted: ['step-01-init', 'step-02-discovery']\ninputDocuments: []\nworkflowType: 'prd'\n---\n\n# PRD\n",
    [LEDGER]: ledger,
    ...stories,
  });
  const age = (root: string) => {
    const t = new Date(Date.now() - 20 * 86_400_000);
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else fs.utimesSync(p, t, t);
      }
    };
    walk(root);
  };
  const stalledOn = (root: string) => (cliJson(root, 'validate').problems as { code: string; severity: string; file: string; message: string }[]).filter((p) => p.code === 'work-stalled');

  test('every story done: the stalled PRD is a note that says why; a story still open keeps it a warning', () => {
    const done = workspace(files('development_status:\n  epic-1: done\n  1-1-lamp: done\n  1-2-wick: done\n  epic-1-retrospective: done\n', {
      [`${IMPL}/1-1-lamp.md`]: storyText('1.1', 'Lamp', 'done'), [`${IMPL}/1-2-wick.md`]: storyText('1.2', 'Wick', 'done'),
    }), { prefix: 'wm-left40-', waymark: false });
    const open = workspace(files('development_status:\n  epic-1: in-progress\n  1-1-lamp: done\n  1-2-wick: backlog\n', {
      [`${IMPL}/1-1-lamp.md`]: storyText('1.1', 'Lamp', 'done'),
    }), { prefix: 'wm-left40-', waymark: false });
    try {
      age(done);
      age(open);
      const [p, more] = stalledOn(done);
      assert.equal(more, undefined);
      assert.equal(p.severity, 'info', p.message);
      assert.match(p.file, /prd\.md$/);
      assert.match(p.message, /2 stories .*(are all|all) done/);
      const [q] = stalledOn(open);
      assert.equal(q?.severity, 'warning');
    } finally {
      fs.rmSync(done, { recursive: true, force: true });
      fs.rmSync(open, { recursive: true, force: true });
    }
  });
});

describe('story set-status writes a status where a ledger item has none', () => {
  const project = (ledger: string, story = storyText('1.2', 'Wick', 'ready-for-dev'), file = `${IMPL}/1-2-wick.md`) => workspace({
    '_bmad/bmm/config.yaml': 'output_folder: _bmad-output\n',
    [LEDGER]: ledger,
    [file]: story,
  }, { prefix: 'wm-left40-' });
  // [name, ledger before, ref, ledger after (→ in-progress)]
  const forms: [string, string, string, string][] = [
    ['an empty value under development_status, its comment kept',
      'development_status:\n  epic-1: in-progress\n  1-2-wick:   # next up\n  1-3-oil: backlog\n',
      '1-2',
      'development_status:\n  epic-1: in-progress\n  1-2-wick: in-progress   # next up\n  1-3-oil: backlog\n'],
    ['a number as its id alone in a list (`- 1.2`), its bytes kept',
      'stories:\n  - 1.1\n  - 1.2\n',
      '1.2',
      'stories:\n  - 1.1\n  - {id: 1.2, status: in-progress}\n'],
    ['a list item with its id and no status: key (block mapping)',
      'stories:\n  - id: "1.1"\n    status: done\n  - id: "1.2"\n    title: Wick   # next\n  - id: "1.3"\n    status: backlog\n',
      '1.2',
      'stories:\n  - id: "1.1"\n    status: done\n  - id: "1.2"\n    title: Wick   # next\n    status: in-progress\n  - id: "1.3"\n    status: backlog\n'],
    ['a list item with its id and no status: key (flow mapping)',
      "stories:\n  - {id: '1.1', status: done}\n  - {id: '1.2', title: Wick}\n",
      '1.2',
      "stories:\n  - {id: '1.1', status: done}\n  - {id: '1.2', title: Wick, status: in-progress}\n"],
    ['a list item that is the id alone',
      'stories:\n  - "1.1"\n  - "1.2"  # wick\n  - "1.3"\n',
      '1.2',
      'stories:\n  - "1.1"\n  - {id: "1.2", status: in-progress}  # wick\n  - "1.3"\n'],
    ['an epic\'s list item with no status, CRLF kept',
      'stories:\r\n  epic_1:\r\n    - id: "1.1"\r\n      status: done\r\n    - id: "1.2"\r\n      title: Wick\r\n',
      '1.2',
      'stories:\r\n  epic_1:\r\n    - id: "1.1"\r\n      status: done\r\n    - id: "1.2"\r\n      title: Wick\r\n      status: in-progress\r\n'],
  ];
  for (const [name, before, ref, after] of forms) {
    test(name, async () => {
      const dir = project(before);
      try {
        const r = await setStatus(dir, ref, 'in-progress');
        assert.equal(r.changed, true);
        assert.equal(read(dir, LEDGER), after);
        assert.match(read(dir, `${IMPL}/1-2-wick.md`), /^Status: in-progress$/m, 'the story file changed in the same write');
        assert.equal(loadSprint(dir)?.stories.find((s) => s.key === ref || s.key.startsWith(`${ref}-`))?.ledgerStatus, 'in-progress');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('the same rules: a stale hash is a conflict, a done story file is not rewound, nothing moves', async () => {
    const ledger = 'stories:\n  - id: "1.1"\n    status: done\n  - id: "1.2"\n    title: Wick\n';
    const dir = project(ledger, storyText('1.2', 'Wick', 'done'));
    try {
      await assert.rejects(setStatus(dir, '1.2', 'done', { expectHash: 'f'.repeat(64) }), (e) => WaymarkError.is(e) && e.reason === 'conflict');
      assert.equal(read(dir, LEDGER), ledger);
      await assert.rejects(setStatus(dir, '1.2', 'in-progress'), (e) => WaymarkError.is(e) && e.reason === 'transition' && /--force/.test(e.message));
      assert.equal(read(dir, LEDGER), ledger);
      assert.match(read(dir, `${IMPL}/1-2-wick.md`), /^Status: done$/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

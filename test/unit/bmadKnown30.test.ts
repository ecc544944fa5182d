// Session 30's known leftovers of the held-out batch (issue 20), each a grammar rule other projects
// write the same way. Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus } from '../../src/core/bmad/story';
import { inProject } from './fileHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');

const story = (n: string, title: string, status: string) => `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Tasks / Subtasks\n- [x] do it\n`;
const V6_CONFIG = 'project_name: demo\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';
const IA = '_bmad-output/implementation-artifacts';

test('many story files of epics the ledger does not track are one note on the ledger; a file of an epic it tracks keeps its own warning', () => {
  const files: Record<string, string> = {
    '_bmad/bmm/config.yaml': V6_CONFIG,
    // The ledger tracks epic 1 and two of a ticket series (`fix-430`, `fix-432`); the team keeps
    // its other work (a `city` series, dozens of `fix` tickets) as story files outside it.
    [`${IA}/sprint-status.yaml`]: 'development_status:\n  epic-1: in-progress\n  1-1-login: done\n  1-2-logout: review\n  1-3-profile: backlog\n  fix-430-race-save: done\n  fix-432-star-icon: done\n',
    [`${IA}/1-1-login.md`]: story('1.1', 'Login', 'done'),
    [`${IA}/1-2-logout.md`]: story('1.2', 'Logout', 'review'),
    // Story 1.4 of the tracked epic with no entry: plausibly forgotten, warned on its own.
    [`${IA}/1-4-avatar.md`]: story('1.4', 'Avatar', 'ready-for-dev'),
  };
  for (let i = 1; i <= 6; i++) files[`${IA}/city.${i}.court-${i}.story.md`] = `# Story city.${i}: Court ${i}\n\nStatus: review\n`;
  for (let i = 1; i <= 8; i++) files[`${IA}/fix.${i}.ticket-${i}.story.md`] = `# Story fix.${i}: Ticket ${i}\n\nStatus: done\n`;
  inProject(files, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    // Every file is still a story `sprint` lists.
    assert.equal(r.stories.filter((s) => /^(city|fix)-\d-/.test(s.key)).length, 14);
    const own = r.problems.filter((p) => p.code === 'story-not-in-ledger');
    assert.deepEqual(own.map((p) => p.file.replace(/^.*[\\/]/, '')), ['1-4-avatar.md']);
    assert.equal(own[0].severity, 'warning');
    const note = r.problems.filter((p) => p.code === 'ledger-stories-outside');
    assert.equal(note.length, 1);
    assert.equal(note[0].severity, 'info');
    assert.match(note[0].file, /sprint-status\.yaml$/);
    assert.match(note[0].message, /^14 story files/);
    assert.match(note[0].message, /city-1-court-1/);
    assert.equal((note[0].data as { keys: string[] }).keys.length, 14);
  });
});

test('a few story files outside the ledger keep a warning each (a forgotten entry is the likely cause)', () => {
  inProject({
    '_bmad/bmm/config.yaml': V6_CONFIG,
    [`${IA}/sprint-status.yaml`]: 'development_status:\n  epic-1: in-progress\n  1-1-login: done\n',
    [`${IA}/1-1-login.md`]: story('1.1', 'Login', 'done'),
    [`${IA}/2-1-search.md`]: story('2.1', 'Search', 'ready-for-dev'),
    [`${IA}/2-2-filters.md`]: story('2.2', 'Filters', 'ready-for-dev'),
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.deepEqual(r.problems.filter((p) => p.code === 'story-not-in-ledger').map((p) => p.file.replace(/^.*[\\/]/, '')), ['2-1-search.md', '2-2-filters.md']);
    assert.deepEqual(r.problems.filter((p) => p.code === 'ledger-stories-outside'), []);
  });
});

test('a file titled `# Epic N: …` (an epic, or a report about one) is not a story, in a project without a ledger', () => {
  inProject({
    'docs/stories/43.0.story.md': '# Epic 43: Calendário administrativo\n\n**Status:** Draft\n\n## Story\n\nO sistema precisa…\n',
    'docs/stories/7.0.po-validation.md': '# Epic 7 — PO Validation Report\n\n> **Status:** ALL STORIES APPROVED\n',
    'docs/stories/43.1.story.md': story('43.1', 'Calendar grid', 'Draft'),
    // A story written under its epic's name (`# Epic 1: …`, then `## Story 1.1: …`) is a story.
    'docs/stories/1.1.story.md': '# Epic 1: Dashboard UI\n\n## Story 1.1: Core layout\n\n**Status:** Complete\n\n## Tasks / Subtasks\n- [x] a\n',
    // A story about an epic's documentation is still a story.
    'docs/stories/1.11.epic1-documentation.md': '# Story 1.11: Epic 1 Documentation & Content\n\n## Status\nDraft\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    assert.deepEqual(r.stories.map((s) => s.file!.replace(/^.*[\\/]/, '')).sort(), ['1.1.story.md', '1.11.epic1-documentation.md', '43.1.story.md']);
  });
});

test('status words in Portuguese, Spanish, French and Hungarian are read with the status they mean; unknown words stay as written', () => {
  const cases: [string, string | undefined, string | undefined][] = [
    ['Em desenvolvimento', 'in-progress', undefined],
    ['EM DESENVOLVIMENTO', 'in-progress', undefined],
    ['En desarrollo', 'in-progress', undefined],
    ['En développement', 'in-progress', undefined],
    ['Implementado', undefined, 'done'],
    ['Implementada', undefined, 'done'],
    ['Implémenté', undefined, 'done'],
    ['Completo', undefined, 'done'],
    ['BEFEJEZETT', undefined, 'done'],
    ['PRONTO PARA PRODUÇÃO', undefined, 'done'],
    ['Listo para producción', undefined, 'done'],
    // `<stage> concluída`: as `<stage> complete` is read.
    ['ESTRUTURA CONCLUÍDA', undefined, 'done'],
    ['Desenvolvimento concluído', 'review', undefined],
    ['Implementação concluída', 'review', undefined],
    ['Desarrollo completado', 'review', undefined],
    ['Développement terminé', 'review', undefined],
    ['Planejamento concluído', 'ready-for-dev', undefined],
    // Already read (the examples the issue names), still read.
    ['Concluído', undefined, 'done'],
    ['Em progresso', 'in-progress', undefined],
    ['Pronto para revisão', 'review', undefined],
    ['Completado', undefined, 'done'],
    ['En progreso', 'in-progress', undefined],
    ['Terminé', undefined, 'done'],
    // Not status words: kept as written.
    ['Não concluído', undefined, undefined],
    ['Rascunho técnico', undefined, undefined],
    // A status with the team's commentary after it, or a mark before the word, is no stage.
    ['Draft implementado', undefined, undefined],
    ['α concluído', undefined, undefined],
  ];
  for (const [w, status, suggestion] of cases) {
    const n = normalizeStoryStatus(w);
    assert.deepEqual([w, n.status, n.suggestion], [w, status, suggestion]);
  }
  inProject({
    'docs/stories/3.1.story.md': '# Story 3.1: Cadastro\n\n**Status:** 🔄 EM DESENVOLVIMENTO\n\n## Tasks\n- [x] a\n- [ ] b\n',
    'docs/stories/3.2.story.md': '# Story 3.2: Estrutura\n\n**Status:** ✅ ESTRUTURA CONCLUÍDA (Requer migração do banco)\n',
    'docs/stories/3.3.story.md': '# Story 3.3: Outra\n\n**Status:** Aguardando decisão do cliente\n',
    'docs/stories/3.4.story.md': '# Story 3.4: Assembleia\n\n**Status:** Draft implementado por convocação da Assembleia\n',
    'docs/stories/3.5.story.md': '# Story 3.5: TTS\n\n**Status:** Done (PR merged — pivot caminho β→α concluído.)\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    const st = (k: string) => r.stories.find((s) => s.key.startsWith(k))!;
    assert.equal(st('3-1').status, 'in-progress');
    assert.equal(st('3-2').status, 'done');
    assert.equal(st('3-3').fileStatus, 'Aguardando decisão do cliente');
    assert.equal(st('3-4').fileStatus, 'Draft');
    assert.equal(st('3-5').fileStatus, 'Done');
    assert.ok(r.problems.some((p) => p.code === 'story-unknown-status' && p.file.endsWith('3.3.story.md')));
  });
});

test('a story whose only title is its frontmatter `title:` (`5.4 Agent Handoff`, `Story 2.9 — …`) is a story with that title, under a `5.4-…` name', () => {
  inProject({
    'docs/stories/5.3.story.md': story('5.3', 'Session log', 'Done'),
    'docs/stories/5.4-agent-handoff-automation.md': '---\nstory_id: "5.4"\ntitle: "5.4 Agent Handoff Automation"\nstatus: "Blocked by 5.3 review"\n---\n\n## Story\n\n**As a** pipeline, **I want** handoffs.\n\n## Tasks\n- [ ] generate\n',
    'docs/stories/5.5-metrics-dashboard.md': "---\ntitle: 'Story 5.5 — Metrics dashboard'\nstatus: 'review'\n---\n\n## Intent\n\nShow the metrics.\n",
    // A title that is the file's slug names no title (the epics document's is kept).
    'docs/stories/5.6.audit-log.md': '---\ntitle: "Story 5.6: audit-log"\n---\n\n# Status\n\nDone\n',
    'docs/epics.md': '# Epics\n\n## Epic 5: Ops\n\n### Story 5.6: Audit log for admins\n\nAs an admin…\n',
  }, (root) => {
    const r = loadSprint(root, { now: NOW })!;
    const st = (k: string) => r.stories.find((s) => s.key.startsWith(k));
    assert.equal(st('5-4')?.title, 'Agent Handoff Automation');
    assert.match(st('5-4')?.file ?? '', /5\.4-agent-handoff-automation\.md$/);
    assert.equal(st('5-5')?.title, 'Metrics dashboard');
    assert.equal(st('5-5')?.status, 'review');
    assert.equal(st('5-6')?.title, 'Audit log for admins');
  });
});

// Session 27's held-out round (issue 20): what a batch of real projects nobody had looked at showed.
// Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseStory } from '../../src/core/bmad/story';
import { loadSprint } from '../../src/core/bmad/sprint';
import { workspace } from './fileHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');

/** Runs `check` in a project of these files (a temp folder, removed after). */
function inProject(files: Record<string, string>, check: (root: string) => void): void {
  const root = workspace(files, { prefix: 'wm-h27-', waymark: false });
  try {
    check(root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const keysOf = (root: string) => (loadSprint(root, { now: NOW })?.stories ?? []).map((s) => s.key).sort();

test('a story title decorated with an emoji (`# 📝 Story 7.1: Landing`) is the story\'s title, with or without a status', () => {
  const s = parseStory('/p/docs/stories/7.1.story.md', '# 📝 Story 7.1: 랜딩 페이지 Hero\n\n## Story 정보\n- **Story ID**: 7.1\n\n## Tasks\n- [ ] build it\n');
  assert.equal(s.title, '랜딩 페이지 Hero');
  assert.equal(s.titleLine, 0);
  assert.equal(parseStory('/p/docs/stories/7.2.story.md', '# 🚀 Story 7.2 — Feature cards ✨\n\n## Status\nDraft\n').title, 'Feature cards');
  inProject({
    'docs/stories/7.1.story.md': '# 📝 Story 7.1: Hero section\n\n## Story\n**As a** visitor\n\n## Tasks\n- [ ] build it\n',
    'docs/stories/7.2.story.md': '# Story 7.2: Feature cards\n\n## Status\nDraft\n',
  }, (root) => {
    assert.deepEqual(keysOf(root), ['7-1-story', '7-2-story']);
  });
});

test('a repository whose v4 install sits in a subfolder keeps its own docs/stories at the root: the root is read as the project', () => {
  const story = (n: string, status: string) => `# Story ${n}: Work ${n}\n\n## Status\n${status}\n\n## Tasks / Subtasks\n- [x] do it\n`;
  inProject({
    'infrastructure/.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n',
    'infrastructure/.bmad-core/agents/dev.md': '# dev\n',
    'docs/stories/1.1.project-setup.md': story('1.1', 'Done'),
    'docs/stories/1.2.story.md': story('1.2', 'Review'),
  }, (root) => {
    assert.deepEqual(keysOf(root), ['1-1-project-setup', '1-2-story']);
  });
  // A subfolder project that holds its own stories is still the one read (the root has none).
  inProject({
    'apps/web/.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
    'apps/web/docs/stories/2.1.story.md': story('2.1', 'Draft'),
    'docs/notes.md': '# notes\n',
  }, (root) => {
    assert.deepEqual(keysOf(root), ['2-1-story']);
  });
});

/** `waymark VERB . --json` in `dir`, as a user runs it. */
function cli(dir: string, verb: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [path.resolve('dist/cli.js'), verb, '.', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
}

test('a skill\'s own template (`assets/D-03_glossary_template.md`, `{project_name}` unfilled) is no work: never offered by `next`', () => {
  const template = '---\ndocument_id: D-03\ntitle: "{project_name} — Glossary"\nstatus: draft\nstepsCompleted: []\nlastStep: ""\n---\n\n# {project_name} — Glossary\n\n## Terms\n';
  inProject({
    '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.2.0\n',
    '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/_bmad-output"\n',
    'src/hbc-create-glossary/SKILL.md': '---\nname: hbc-create-glossary\ndescription: Creates the glossary.\n---\n\n# Glossary\n',
    'src/hbc-create-glossary/assets/D-03_glossary_template.md': template,
    'src/hbc-create-coding-standards/assets/D-12_coding-standards.md': template.replace(/Glossary/g, 'Coding standards'),
    '_bmad-output/planning-artifacts/prd.md': '---\nstepsCompleted: [step-01-init]\nworkflowType: prd\n---\n\n# PRD\n',
  }, (root) => {
    const n = cli(root, 'next');
    assert.equal(n.status, 0, n.stderr);
    const j = JSON.parse(n.stdout) as { next: { file?: string } | null; ready: { file?: string }[] };
    const offered = [j.next?.file, ...j.ready.map((e) => e.file)].filter(Boolean);
    assert.ok(!offered.some((f) => /src\//.test(f!)), `templates offered: ${offered.join(', ')}`);
    // Nor shown as workflows at all; the PRD in progress is.
    const st = cli(root, 'status');
    assert.equal(st.status, 0, st.stderr);
    const files = (JSON.parse(st.stdout) as { workflows: { file: string }[] }).workflows.map((w) => w.file);
    assert.deepEqual(files, ['_bmad-output/planning-artifacts/prd.md']);
  });
});

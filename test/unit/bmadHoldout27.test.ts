// Session 27's held-out round (issue 20): what a batch of real projects nobody had looked at showed.
// Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseStory } from '../../src/core/bmad/story';
import { loadSprint } from '../../src/core/bmad/sprint';
import { inProject } from './fileHelpers';

const NOW = new Date('2026-02-12T09:00:00Z');

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

test('an artifact recording a workflow\'s steps under an older release\'s numbers (`step-05-agents`, now `step-04-agents`) is that workflow\'s', () => {
  const step = (id: string, next?: string) => `---\nname: '${id}'\ndescription: '${id}'\n${next ? `nextStepFile: './${next}.md'\n` : ''}---\n\n# ${id}\n`;
  const ids = ['step-01-load-brief', 'step-01b-continue', 'step-02-structure', 'step-03-config', 'step-04-agents', 'step-05-workflows', 'step-06-docs', 'step-07-complete'];
  const files: Record<string, string> = {
    '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.0.0\n',
    '_bmad/bmb/config.yaml': 'bmb_creations_output_folder: "{project-root}/_bmad-output/bmb-creations"\noutput_folder: "{project-root}/_bmad-output"\n',
    '_bmad/bmb/workflows/module/workflow-create-module.md': "---\nname: create-module\ndescription: Create a module\ncreateWorkflow: './steps-c/step-01-load-brief.md'\n---\n\n# Create Module\n",
    '_bmad/bmb/workflows/prd/workflow.md': "---\nname: prd\ndescription: PRD\n---\n\n# PRD\n",
    '_bmad/bmb/workflows/prd/steps-c/step-01-init.md': step('step-01-init', 'step-02-complete'),
    '_bmad/bmb/workflows/prd/steps-c/step-02-complete.md': step('step-02-complete'),
    '_bmad-output/bmb-creations/modules/module-build-retro.md': `---\nmoduleCode: retro\nstepsCompleted:\n${['step-01-load-brief', 'step-02-structure', 'step-03-config', 'step-04-installer (skipped - not needed)', 'step-05-agents (skipped)', 'step-06-workflows', 'step-07-docs', 'step-08-complete'].map((i) => `  - ${i}\n`).join('')}status: COMPLETE\n---\n\n# Module Build Tracker\n`,
  };
  ids.forEach((id, i) => (files[`_bmad/bmb/workflows/module/steps-c/${id}.md`] = step(id, ids[i + 1])));
  inProject(files, (root) => {
    const st = cli(root, 'status');
    assert.equal(st.status, 0, st.stderr);
    const w = (JSON.parse(st.stdout) as { workflows: { file: string; workflow: string; identifiedBy: string }[] }).workflows.find((x) => x.file.endsWith('module-build-retro.md'));
    assert.equal(w?.identifiedBy, 'steps', JSON.stringify(w));
    assert.equal(w?.workflow, 'module');
  });
});

test('an artifact of an installed skill with no step files is known by the skill\'s template: its own frontmatter keys, or its title with the variables filled', () => {
  const skill = (name: string, template: string, tname = 'template.md') => ({
    [`.claude/skills/${name}/SKILL.md`]: `---\nname: ${name}\ndescription: ${name}\n---\n\n# ${name}\n`,
    [`.claude/skills/${name}/assets/${tname}`]: template,
  });
  inProject({
    '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.3.0\n',
    '_bmad/config.toml': '[core]\noutput_folder = "{project-root}/_bmad-output"\n',
    '_bmad/_config/skill-manifest.csv': 'canonicalId,name,description,module,path\nbmad-help,bmad-help,Help,core,_bmad/core/bmad-help/SKILL.md\ncpm-character-create,cpm-character-create,Characters,cpm,_bmad/cpm/cpm-character-create/SKILL.md\ncpm-show-bible,cpm-show-bible,Bible,cpm,_bmad/cpm/cpm-show-bible/SKILL.md\n',
    '.claude/skills/bmad-help/SKILL.md': '---\nname: bmad-help\ndescription: help\n---\n\n# Help\n',
    ...skill('cpm-character-create', "---\ncharacterName: '{Name}'\nassetID: '{NAME}_V1'\nstatus: 'ACTIVE'\ncreated: '{date}'\n---\n\n# Character: {Name}\n", 'character-template.md'),
    ...skill('cpm-show-bible', "---\ntitle: 'Show Bible: {Show Title}'\ndate: '{YYYY-MM-DD}'\n---\n\n# Show Bible: {Show Title}\n\n## Logline\n", 'show-bible-template.md'),
    '_bmad-output/cpm-projects/Film/Bible/Characters/Elias.md': "---\nstepsCompleted: ['step-01-init', 'step-02-basic-identity', 'step-08-final']\nlastStep: 'step-08-final'\ncharacterName: 'Elias'\nassetID: 'ELIAS_V1'\nstatus: 'ACTIVE'\n---\n\n# Character: Elias\n",
    '_bmad-output/cpm-projects/Film/Bible/Show_Bible.md': "---\nstepsCompleted: ['step-01-init', 'step-08-compile']\nlastStep: 'step-08-compile'\ndate: '2026-02-18'\n---\n\n# Show Bible: The Second Receipt\n\n## Logline\n",
    '_bmad-output/cpm-projects/Film/notes.md': "---\nstepsCompleted: ['step-01-init']\ndate: '2026-02-18'\n---\n\n# Notes on the shoot\n",
  }, (root) => {
    const st = cli(root, 'status');
    assert.equal(st.status, 0, st.stderr);
    const ws = (JSON.parse(st.stdout) as { workflows: { file: string; workflow: string; identifiedBy?: string }[] }).workflows;
    const of = (name: string) => ws.find((w) => w.file.endsWith(name));
    assert.equal(of('Elias.md')?.workflow, 'cpm-character-create', JSON.stringify(of('Elias.md')));
    assert.equal(of('Elias.md')?.identifiedBy, 'declared');
    assert.equal(of('Show_Bible.md')?.workflow, 'cpm-show-bible', JSON.stringify(of('Show_Bible.md')));
    // A document of neither shape stays unknown.
    assert.equal(of('notes.md')?.identifiedBy, undefined, JSON.stringify(of('notes.md')));
  });
});

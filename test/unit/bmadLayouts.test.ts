// BMAD installs and planning artifacts as BMAD users lay them out (issue 20, items 1, 2, 5, 8):
// the 6.x skills layout, the v6 beta `.bmad/` folder, a BMAD project in a monorepo subfolder.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { findBmadInstall, findBmadProjects, findBmadSkillRoots, loadBmadConfig } from '../../src/core/bmad/config';
import { declaredOutputs, loadBmadCatalogForRoot } from '../../src/core/bmad/artifacts';
import { loadSprint } from '../../src/core/bmad/sprint';
import { scanRoots } from '../../src/core/store/scan';
import { createStateCore, loadProject } from '../../src/core/index';
import { computeFrontier } from '../../src/core/project/frontier';
import { buildRegistry } from '../../src/core/project/registry';

const FIX = path.resolve('test/fixtures');
const CLI = path.resolve('dist/cli.js');
const NOW = new Date('2026-01-20T12:00:00Z');

function copyFixture(name: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `wm-${name}-`)));
  fs.cpSync(path.join(FIX, name), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.waymark`) });
  return dir;
}

function run(args: string[], cwd?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function allErrors(res: Awaited<ReturnType<typeof scanRoots>>) {
  return [...res.problems, ...res.workflows.flatMap((w) => w.problems)].filter((p) => p.severity === 'error');
}

async function scanned(dir: string) {
  const res = await scanRoots([dir], { index: false, sprint: true });
  const by = (rel: string) => {
    const w = res.workflows.find((x) => x.file === path.join(dir, rel));
    assert.ok(w, `${rel} is read as a workflow artifact`);
    return w;
  };
  return { res, by };
}

describe('the 6.x skills layout', () => {
  test('skill folders of every agent are found by shape; only bmad-* skills are read, each once', async () => {
    const dir = copyFixture('bmad-skills');
    assert.deepEqual(findBmadSkillRoots(dir).map((p) => path.relative(dir, p)), ['.agents/skills', '.claude/skills']);
    // A tool added to the installer later is found too.
    fs.mkdirSync(path.join(dir, '.newtool', 'skills', 'bmad-party-mode', 'steps'), { recursive: true });
    assert.ok(findBmadSkillRoots(dir).includes(path.join(dir, '.newtool', 'skills')));
    const cat = await loadBmadCatalogForRoot(dir);
    const names = cat.workflows.map((w) => w.name).sort();
    assert.deepEqual(names, ['bmad-brainstorming', 'bmad-create-prd', 'bmad-create-ux-design', 'bmad-technical-research']);
    const prd = cat.byName.get('bmad-create-prd')!;
    assert.deepEqual(prd.steps.map((s) => s.id), ['step-01-init', 'step-02-discovery', 'step-02b-vision', 'step-03-scope', 'step-04-complete']);
    assert.deepEqual(Object.keys(prd.modeSteps).sort(), ['edit', 'validate']);
    assert.ok(cat.manifestNames?.has('bmad-brainstorming'), 'skill-manifest.csv names are read');
    assert.equal(loadBmadConfig(dir).outputFolder, path.join(dir, '_bmad-output'));
  });

  test('outputs declared in YAML and in Markdown prose; input files are not outputs', () => {
    const text = [
      '---', "outputFile: '{planning_artifacts}/prd.md'", '---', '',
      '- `default_output_file` = `{output_folder}/brainstorming/brainstorming-session-{{date}}.md`',
      '- `brainstorming_session_output_file` = `{output_folder}/brainstorming/session-{{date}}-{{time}}.md` (evaluated once)',
      '- `prd_file` = `{planning_artifacts}/prd.md`',
      '- `ux_file` = `{planning_artifacts}/*ux*.md`',
      'default_output_file: "{planning_artifacts}/sprint-change-proposal-{date}.md"',
    ].join('\n');
    assert.deepEqual(declaredOutputs(text).map((o) => o.pattern), [
      '{planning_artifacts}/prd.md',
      '{planning_artifacts}/sprint-change-proposal-{date}.md',
      '{output_folder}/brainstorming/brainstorming-session-{{date}}.md',
      '{output_folder}/brainstorming/session-{{date}}-{{time}}.md',
    ]);
  });

  test('artifacts are identified, a finished brainstorming session is complete, a PRD without step keys shows its status', async () => {
    const dir = copyFixture('bmad-skills');
    const { res, by } = await scanned(dir);
    const done = by('_bmad-output/brainstorming/brainstorming-session-2026-01-05.md');
    assert.equal(done.dialect, 'bmad');
    assert.equal(done.identifiedBy, 'default_output_file');
    assert.equal(done.status, 'completed', 'steps 1-4 cover the alternatives 02a-02d');
    assert.equal(done.nextStep, undefined);
    const open = by('_bmad-output/brainstorming/brainstorming-session-2026-01-09.md');
    assert.equal(open.status, 'in_progress');
    assert.equal(open.nextStep, 'step-03-technique-execution', 'one alternative of step 2 done covers the others');
    assert.deepEqual(open.problems, []);
    const prd = by('_bmad-output/planning-artifacts/prd.md');
    assert.equal(prd.dialect, 'bmad');
    assert.equal(prd.identifiedBy, 'outputFile');
    assert.equal(prd.rawStatus, 'draft');
    assert.equal(prd.status, 'created');
    assert.deepEqual(prd.problems, []);
    const ux = by('_bmad-output/planning-artifacts/ux-design-specification.md');
    assert.equal(ux.identifiedBy, 'default_output_file');
    assert.equal(ux.nextStep, 'step-03-flows');
    // Templates inside skill folders are not artifacts.
    assert.ok(!res.workflows.some((w) => w.file.includes('templates')));
    assert.equal(allErrors(res).length, 0);
  });
});

describe('the dialect is decided by evidence', () => {
  test('workflow: bmad-correct-course with status approved is a BMAD artifact with a BMAD status', async () => {
    const dir = copyFixture('bmad-skills');
    const { by } = await scanned(dir);
    const p = by('_bmad-output/planning-artifacts/sprint-change-proposal-2026-01-12.md');
    assert.equal(p.dialect, 'bmad');
    assert.equal(p.status, 'completed');
    assert.deepEqual(p.problems.filter((x) => x.severity === 'error'), []);
    assert.ok(!p.problems.some((x) => x.code === 'unknown-status' || x.code === 'workflow-missing'));
  });

  test('BMAD status words in any case or decoration; no error-level problem on BMAD files; native files keep their checks', async () => {
    const dir = copyFixture('bmad-skills');
    const out = path.join(dir, '_bmad-output', 'planning-artifacts');
    const words = ['Approved', 'In Progress', 'ready_for_dev', 'complete ✅', 'final', 'Done', 'review', 'accepted'];
    words.forEach((w, i) => fs.writeFileSync(path.join(out, `note-${i}.md`), `---\nworkflow: bmad-create-architecture\nstatus: '${w}'\nstepsCompleted: [1]\n---\n# n\n`));
    // A BMAD document whose own keys clash with Waymark's types is not an error.
    fs.writeFileSync(path.join(out, 'architecture.md'), '---\nworkflowType: architecture\nstepsCompleted: [1, 2]\nlastStep: [2]\ncurrentStep: {phase: 2}\n---\n# A\n');
    // A native file with a steps list and a bad status is still an error.
    fs.writeFileSync(path.join(dir, 'native.md'), '---\nworkflow: feature\nsteps: [a, b]\nstatus: finished\n---\n# n\n');
    const { res, by } = await scanned(dir);
    words.forEach((w, i) => {
      const s = by(`_bmad-output/planning-artifacts/note-${i}.md`);
      assert.equal(s.dialect, 'bmad', w);
      assert.ok(s.status, `'${w}' is a BMAD status word`);
    });
    const errors = [...res.problems, ...res.workflows.flatMap((w) => w.problems)].filter((p, i, all) => p.severity === 'error' && all.indexOf(p) === i);
    assert.deepEqual(errors.map((p) => `${path.relative(dir, p.file)} ${p.code}`), ['native.md unknown-status']);
    assert.equal(by('native.md').dialect, 'waymark');
  });
});

describe('v6 beta .bmad/ and alpha bmad/ installs', () => {
  test('.bmad/ is found, its workflows read, its docs/ output and sprint artifacts used', async () => {
    const dir = copyFixture('bmad-beta');
    assert.equal(findBmadInstall(dir), path.join(dir, '.bmad'));
    const cfg = loadBmadConfig(dir);
    assert.equal(cfg.layout, 'v6-beta');
    assert.equal(cfg.outputFolder, path.join(dir, 'docs'));
    assert.equal(cfg.implementationArtifacts, path.join(dir, 'docs', 'sprint-artifacts'));
    const { res, by } = await scanned(dir);
    const prd = by('docs/PRD.md');
    assert.equal(prd.workflow, 'prd');
    assert.equal(prd.identifiedBy, 'default_output_file');
    assert.equal(prd.status, 'in_progress');
    assert.equal(prd.nextStep, 'step-03-requirements');
    const brief = by('docs/product-brief-Harbor-2025-11-02.md');
    assert.equal(brief.workflow, 'product-brief');
    assert.equal(brief.status, 'completed');
    const sprint = loadSprint(dir)!;
    assert.ok(sprint.ledgerFile?.endsWith(path.join('docs', 'sprint-artifacts', 'sprint-status.yaml')));
    assert.equal(sprint.stories.length, 2);
    assert.equal(allErrors(res).length, 0);
  });

  test('a plain bmad/ source folder is not an install; an install under a name of its own is, by its bmad_folder', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bmadname-'));
    fs.mkdirSync(path.join(dir, 'bmad', 'src'), { recursive: true });
    assert.equal(findBmadInstall(dir), undefined);
    fs.mkdirSync(path.join(dir, 'agentkit', 'core'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'agentkit', 'core', 'config.yaml'), 'bmad_folder: agentkit\nuser_name: Kim\n');
    assert.equal(findBmadInstall(dir), path.join(dir, 'agentkit'));
  });
});

describe('a BMAD project in a monorepo subfolder', () => {
  test('read from the repository root and from its own folder alike', async () => {
    const repo = copyFixture('monorepo');
    const sub = path.join(repo, 'apps', 'planner');
    assert.deepEqual(findBmadProjects(repo), [sub]);
    for (const root of [repo, sub]) {
      const { res, by } = await scanned(root);
      const prd = by(path.relative(root, path.join(sub, '_bmad-output/planning-artifacts/prd.md')));
      assert.equal(prd.workflow, 'prd', root);
      assert.equal(prd.identifiedBy, 'workflowType');
      assert.equal(prd.nextStep, 'step-03-scope');
      const sprint = loadSprint(root)!;
      assert.equal(sprint.root, sub);
      assert.deepEqual(sprint.stories.map((s) => `${s.key} ${s.status}`).sort(), ['1-1-sign-in done', '1-2-trip-list in-progress']);
      assert.ok(res.problems.some((p) => p.code === 'story-status-drift'), 'drift is found from the repository root too');
      assert.equal(allErrors(res).length, 0);
    }
    const core = createStateCore({ roots: [repo], memory: false });
    try {
      const view = await loadProject(core, { now: NOW, git: false });
      assert.ok(view.registry.byId.has('story:1-2-trip-list'), 'the board holds the subfolder project\'s stories');
    } finally {
      core.dispose();
    }
  });

  test('the CLI run from the repository root finds the subfolder project', () => {
    const repo = copyFixture('monorepo');
    const r = run(['sprint', '--json'], repo);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1-2-trip-list/);
  });
});

describe('next, board and dashboard recommend only real work', () => {
  test('a finished brainstorming session and an unidentified artifact are never ready to start', async () => {
    const dir = copyFixture('bmad-skills');
    fs.writeFileSync(path.join(dir, '_bmad-output', 'notes.md'), '---\nstepsCompleted: []\nworkflowType: mystery-flow\n---\n# n\n');
    const core = createStateCore({ roots: [dir], memory: false });
    try {
      const view = await loadProject(core, { now: NOW, git: false });
      const ready = view.frontier.ready.map((e) => e.item.rel);
      assert.ok(!ready.includes('_bmad-output/brainstorming/brainstorming-session-2026-01-05.md'), `finished session offered: ${ready.join(', ')}`);
      assert.ok(!ready.includes('_bmad-output/notes.md'), 'an unidentified artifact is not offered');
      assert.ok(view.frontier.done.some((e) => e.item.rel === '_bmad-output/brainstorming/brainstorming-session-2026-01-05.md'));
    } finally {
      core.dispose();
    }
    const r = run(['next'], dir);
    assert.doesNotMatch(r.stdout, /brainstorming-session-2026-01-05/);
  });

  test('an in-progress story with no recorded activity says so, never Infinity', () => {
    const reg = buildRegistry([], [{
      root: '/p', epics: [], stories: [{ key: '1-1-a', epic: 1, story: '1', status: 'in-progress', title: 'A' }],
    } as never]);
    const f = computeFrontier(reg, { now: NOW });
    const e = f.entries.get('story:1-1-a')!;
    assert.doesNotMatch(e.reason, /Infinity/);
    assert.match(e.reason, /no activity recorded/);
    assert.ok(f.stalled.some((x) => x.id === 'story:1-1-a'));
  });
});

describe('searching a repository for BMAD projects', () => {
  test('test fixtures are not projects; the search is bounded', () => {
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bmadsearch-')));
    fs.mkdirSync(path.join(repo, 'test', 'fixtures', 'sample', '_bmad'), { recursive: true });
    fs.mkdirSync(path.join(repo, 'packages', 'svc', '_bmad-output'), { recursive: true });
    assert.deepEqual(findBmadProjects(repo), [path.join(repo, 'packages', 'svc')]);
    for (let i = 0; i < 500; i++) fs.mkdirSync(path.join(repo, 'wide', `d${i}`), { recursive: true });
    const t = Date.now();
    findBmadProjects(path.join(repo, 'wide'));
    assert.ok(Date.now() - t < 2000);
  });
});

describe('files of an installed skill are the method, not artifacts', () => {
  test('a template without placeholders inside a skill folder is not offered as work', async () => {
    const dir = copyFixture('bmad-skills');
    fs.writeFileSync(path.join(dir, '.claude', 'skills', 'bmad-brainstorming', 'template.md'), '---\nstepsCompleted: []\ninputDocuments: []\nsession_topic: \'\'\n---\n\n# Session results\n');
    const { res } = await scanned(dir);
    assert.ok(!res.workflows.some((w) => w.file.includes(`${path.sep}skills${path.sep}`)), res.workflows.map((w) => w.file).join('\n'));
  });

  test('a skill folder of a BMAD project nested in another BMAD project is the method too', async () => {
    // The repository root is a BMAD project, and so is backend/ with its own install and skills.
    const dir = copyFixture('bmad-skills');
    const skill = path.join(dir, 'backend', '.agent', 'skills', 'bmad-testarch-atdd');
    fs.mkdirSync(path.join(dir, 'backend', '_bmad', '_config'), { recursive: true });
    fs.mkdirSync(skill, { recursive: true });
    fs.writeFileSync(path.join(skill, 'atdd-checklist-template.md'), "---\nstepsCompleted: []\nlastStep: ''\nworkflowType: 'testarch-atdd'\ninputDocuments: []\n---\n\n# ATDD checklist\n");
    fs.writeFileSync(path.join(dir, 'backend', '_bmad', 'notes.md'), "---\nstepsCompleted: []\nworkflowType: 'prd'\n---\n# Notes\n");
    const { res } = await scanned(dir);
    const nested = res.workflows.filter((w) => w.file.startsWith(path.join(dir, 'backend') + path.sep)).map((w) => w.file);
    assert.deepEqual(nested, []);
  });
});

describe('unreadable frontmatter of a BMAD document', () => {
  test('is a warning, not an error; a native file keeps the error', async () => {
    const dir = copyFixture('bmad-skills');
    fs.writeFileSync(path.join(dir, '_bmad-output', 'planning-artifacts', 'architecture.md'), '---\nworkflowType: architecture\nstepsCompleted: [1, 2\ntitle: x\n---\n# A\n');
    fs.writeFileSync(path.join(dir, 'native.md'), '---\nworkflow: feature\nsteps: [a, b\n---\n# n\n');
    const res = await scanRoots([dir], { index: false });
    const all = [...res.problems, ...res.workflows.flatMap((w) => w.problems)];
    const of = (name: string) => all.filter((p) => path.basename(p.file) === name && p.code === 'yaml-syntax').map((p) => p.severity);
    assert.deepEqual(of('architecture.md'), ['warning']);
    assert.deepEqual(of('native.md'), ['error']);
  });

  test('skills of other modules listed in the skill manifest are read (gds-*)', async () => {
    const dir = copyFixture('bmad-skills');
    const skill = path.join(dir, '.claude', 'skills', 'gds-game-brief');
    fs.mkdirSync(path.join(skill, 'steps'), { recursive: true });
    for (const st of ['step-01-init', 'step-02-vision']) fs.writeFileSync(path.join(skill, 'steps', `${st}.md`), `# ${st}\n`);
    fs.writeFileSync(path.join(skill, 'workflow.md'), '- `default_output_file` = `{planning_artifacts}/game-brief.md`\n');
    fs.writeFileSync(path.join(skill, 'template.md'), '---\nstepsCompleted: []\n---\n# Brief\n');
    fs.appendFileSync(path.join(dir, '_bmad', '_config', 'skill-manifest.csv'), '"gds-game-brief","gds-game-brief","Game brief","gds","_bmad/gds/gds-game-brief/SKILL.md","false"\n');
    fs.writeFileSync(path.join(dir, '_bmad-output', 'planning-artifacts', 'game-brief.md'), '---\nstepsCompleted: [1]\n---\n# Brief\n');
    const { res, by } = await scanned(dir);
    assert.equal(by('_bmad-output/planning-artifacts/game-brief.md').nextStep, 'step-02-vision');
    assert.ok(!res.workflows.some((w) => w.file === path.join(skill, 'template.md')));
  });
});

describe('typed step folders and outputs named in a sentence', () => {
  test('a 6.x research skill with technical-steps/ and its output in prose', async () => {
    const dir = copyFixture('bmad-skills');
    const { by } = await scanned(dir);
    const r = by('_bmad-output/planning-artifacts/research/technical-caching-research-2026-01-08.md');
    assert.equal(r.stepsSource, 'bmad');
    assert.equal(r.nextStep, 'step-03-synthesis');
    // The input file named on another line is not an output: the PRD stays create-prd's.
    assert.equal(by('_bmad-output/planning-artifacts/prd.md').identifiedBy, 'outputFile');
  });

  test('a v6.0 research workflow with one step folder per kind: the artifact\'s research_type picks it', async () => {
    const dir = copyFixture('bmad-beta');
    const { by } = await scanned(dir);
    const r = by('docs/research-technical-2025-11-04.md');
    assert.equal(r.stepsSource, 'bmad');
    assert.deepEqual(r.steps.map((s) => s.id), ['step-01-init', 'step-02-technical-overview', 'step-03-synthesis']);
    assert.equal(r.nextStep, 'step-03-synthesis');
  });
});

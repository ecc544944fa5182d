// Session 28's held-out round (issue 20): what real projects nobody had looked at showed.
// Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { inProject } from './fileHelpers';
import { parseStory } from '../../src/core/bmad/story';
import { bmadStatusOf } from '../../src/core/bmad/artifacts';

function cli(dir: string, verb: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [path.resolve('dist/cli.js'), verb, '.', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
}

type Listed = { file: string; workflow: string; identifiedBy?: string };
const listed = (root: string): Listed[] => {
  const st = cli(root, 'status');
  assert.equal(st.status, 0, st.stderr);
  return (JSON.parse(st.stdout) as { workflows: Listed[] }).workflows;
};

const skill = (name: string, templates: Record<string, string>) => ({
  [`.claude/skills/${name}/SKILL.md`]: `---\nname: ${name}\ndescription: ${name}\n---\n\n# ${name}\n`,
  ...Object.fromEntries(Object.entries(templates).map(([f, t]) => [`.claude/skills/${name}/assets/${f}`, t])),
});
const install = (skills: string[]) => ({
  '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.3.0\n',
  '_bmad/config.toml': '[core]\noutput_folder = "{project-root}/_bmad-output"\n',
  '_bmad/_config/skill-manifest.csv': `canonicalId,name,description,module,path\n${skills.map((s) => `${s},${s},${s},film,_bmad/film/${s}/SKILL.md`).join('\n')}\n`,
});

// A full skill and a rapid-start skill write documents of one shape (the same frontmatter keys, the
// same title): the lines each template holds that the other does not tell which one made a file.
const FULL_CHAR = "---\nheroName: '{Name}'\nbadgeID: '{NAME}_V1'\nstatus: 'ACTIVE'\n---\n\n# Hero: {Name}\n\n**Badge:** {NAME}_V1\n**Status:** ACTIVE\n\n## Look\n\n- **Face:** {face}\n\n## Kit\n\n- {item}\n\n## History\n";
const DRAFT_CHAR = "---\nheroName: '{Name}'\nbadgeID: '{NAME}_V1'\nstatus: 'DRAFT'\n---\n\n# Hero: {Name}\n\n**Badge:** {NAME}_V1\n**Status:** DRAFT\n\n> **Quick sketch.** Deepen it with the full hero skill later.\n\n## Look\n\n- **Face:** {face}\n\n## Kit\n\n- {item}\n\n## History\n";
const FULL_BOOK = "---\nstepsCompleted: []\nseries_title: '{Title}'\n---\n\n# Series Book: {Title}\n\n## Pitch\n\n## Rules\n\n### Magic\n\n### Money\n\n## Arc\n\n### Season One\n";
const DRAFT_BOOK = "---\nstepsCompleted: []\nseries_title: '{Title}'\n---\n\n# Series Book: {Title}\n\n## Pitch\n\n## Rules\n\n## Arc\n";

test('two installed skills writing one shape of document: the one whose own fixed lines the artifact holds made it; identical templates stay unknown', () => {
  inProject({
    ...install(['film-hero', 'film-quickstart', 'film-book']),
    ...skill('film-hero', { 'hero-template.md': FULL_CHAR }),
    ...skill('film-book', { 'book-template.md': FULL_BOOK }),
    ...skill('film-quickstart', { 'hero-draft-template.md': DRAFT_CHAR, 'book-draft-template.md': DRAFT_BOOK }),
    '_bmad-output/film/heroes/Ada.md': "---\nstepsCompleted: ['step-01-init', 'step-02-look']\nheroName: 'Ada'\nbadgeID: 'ADA_V1'\nstatus: 'ACTIVE'\n---\n\n# Hero: Ada\n\n**Badge:** ADA_V1\n**Status:** ACTIVE\n\n## Look\n\n- **Face:** a scar\n\n## Kit\n\n- a lamp\n\n## History\n",
    '_bmad-output/film/heroes/Bo.md': "---\nstepsCompleted: ['step-01-init']\nheroName: 'Bo'\nbadgeID: 'BO_V1'\nstatus: 'DRAFT'\n---\n\n# Hero: Bo\n\n**Badge:** BO_V1\n**Status:** DRAFT\n\n> **Quick sketch.** Deepen it with the full hero skill later.\n\n## Look\n\n- **Face:** round\n",
    '_bmad-output/projects/Tides/Bible/Book.md': "---\nstepsCompleted: ['step-01-init', 'step-05-arc']\nseries_title: 'Tides'\n---\n\n# Series Book: Tides\n\n## Pitch\n\nA town.\n\n## Rules\n\n### Magic\n\nNone.\n\n### Money\n\nShells.\n\n## Arc\n\n### Season One\n\nThe flood.\n",
    '_bmad-output/projects/Ebb/Bible/Sketch.md': "---\nstepsCompleted: ['step-01-init']\nseries_title: 'Ebb'\n---\n\n# Series Book: Ebb\n\n## Pitch\n\nA port.\n\n## Rules\n\nNone yet.\n\n## Arc\n\nLater.\n",
  }, (root) => {
    const ws = listed(root);
    const of = (name: string) => ws.find((w) => w.file.endsWith(name));
    assert.equal(of('Ada.md')?.workflow, 'film-hero', JSON.stringify(of('Ada.md')));
    assert.equal(of('Bo.md')?.workflow, 'film-quickstart', JSON.stringify(of('Bo.md')));
    assert.equal(of('Book.md')?.workflow, 'film-book', JSON.stringify(of('Book.md')));
    assert.equal(of('Sketch.md')?.workflow, 'film-quickstart', JSON.stringify(of('Sketch.md')));
  });
  // The same template installed under two skills: nothing tells them apart, so no guess.
  inProject({
    ...install(['film-hero', 'film-hero-copy']),
    ...skill('film-hero', { 'hero-template.md': FULL_CHAR }),
    ...skill('film-hero-copy', { 'hero-template.md': FULL_CHAR }),
    '_bmad-output/film/heroes/Ada.md': "---\nstepsCompleted: ['step-01-init']\nheroName: 'Ada'\nbadgeID: 'ADA_V1'\nstatus: 'ACTIVE'\n---\n\n# Hero: Ada\n\n**Status:** ACTIVE\n\n## Look\n",
  }, (root) => {
    const ada = listed(root).find((w) => w.file.endsWith('Ada.md'));
    assert.equal(ada?.identifiedBy, undefined, JSON.stringify(ada));
  });
});

test('a story file saved with a byte-order mark before its title (`\\uFEFF# Story 1.2: …`) keeps its title, and a status read from that first heading keeps the file\'s columns', () => {
  const s = parseStory('/p/docs/stories/1.2.story.md', '\uFEFF# Story 1.2: Build the thing\n\n## Status\nDone\n\n## Tasks\n- [x] build it\n');
  assert.equal(s.title, 'Build the thing');
  assert.equal(s.status, 'Done');
  const text = '\uFEFF# Status: review\n\n## Tasks\n- [x] build it\n';
  const t = parseStory('/p/_bmad-output/implementation-artifacts/1-3-other.md', text);
  assert.equal(t.statusLine, 0);
  assert.equal(text.split('\n')[0].slice(t.statusStart, t.statusEnd), 'review');
});

test('a planning artifact called off (`status: VOID-NOT-BUILT`, `abandoned`, `Scrapped`) is set aside, not an unknown word nor one to set to complete', () => {
  for (const w of ['VOID-NOT-BUILT', 'void', 'Voided', 'abandoned', 'dropped', 'Discarded', 'scrapped']) assert.equal(bmadStatusOf(w), 'archived', w);
  for (const w of ['voidable-draft', 'drop-in-ready']) assert.notEqual(bmadStatusOf(w), 'archived', w);
});

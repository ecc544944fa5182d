// Session 29's held-out round (issue 20), investigator b: how a story says its status.
// Each test failed before its rule (run against the session's starting build).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { inProject } from './fileHelpers';
import { parseStory } from '../../src/core/bmad/story';

function cli(dir: string, verb: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [path.resolve('dist/cli.js'), verb, '.', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
}

type Problem = { file: string; code: string; severity: string };
type Sprint = { epics: { stories: { key: string; status: string; fileStatus: string | null; problems: Problem[] }[] }[] };
const sprintOf = (root: string): Sprint => {
  const r = cli(root, 'sprint');
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Sprint;
};
const storiesOf = (root: string) => sprintOf(root).epics.flatMap((e) => e.stories);

const story = (n: string, status: string, tail = '') =>
  `# Story ${n}: Export the weekly report\n\n## Story\n\nAs a coach I want the report exported.\n\n${status}\n\n## Tasks / Subtasks\n\n- [x] write the exporter\n- [x] test it\n${tail}`;

test('a `## Status` checklist of stages: the last ticked stage is where the story is, when it is a word for done (`Finished`, `Terminado`) or for setting the story aside', () => {
  // Some stages in the team's own words, some in BMAD's: the ticked one that names a status counts.
  const a = parseStory('/p/docs/stories/2.1.story.md', story('2.1', '## Status\n\n- [x] Drafted\n- [x] Building\n- [x] Finished\n- [ ] Withdrawn'));
  assert.equal(a.status, 'Finished');
  const b = parseStory('/p/docs/stories/2.2.story.md', story('2.2', '## Status\n\n- [x] Planificado\n- [x] En Desarrollo\n- [x] Terminado\n- [ ] Cancelado'));
  assert.equal(b.status, 'Terminado');
  const c = parseStory('/p/docs/stories/2.3.story.md', story('2.3', '## Status\n\n- [x] Drafted\n- [x] Cancelled\n- [ ] Finished'));
  assert.equal(c.status, 'Cancelled');
  // None of the stages ticked that names a status: none stated.
  const d = parseStory('/p/docs/stories/2.4.story.md', story('2.4', '## Status\n\n- [x] Planificado\n- [ ] Terminado'));
  assert.equal(d.status, undefined);
  // The sprint lists such a story, done.
  inProject({
    'docs/stories/2.1.story.md': story('2.1', '## Status\n\n- [x] Planificado\n- [x] En Desarrollo\n- [x] Terminado\n- [ ] Cancelado'),
    'docs/stories/2.2.story.md': story('2.2', 'Status: Review'),
  }, (root) => {
    const st = storiesOf(root).find((s) => s.key.startsWith('2-1') || s.key.includes('2.1'));
    assert.equal(st?.status, 'done', JSON.stringify(storiesOf(root)));
  });
});

test("a Status label in the file's closing block, after a thematic break (`---`, `**Status:** Finalizado`), is the story's when nothing else states one", () => {
  const tail = '\n---\n\n**Status:** Finalizado\n\n**Owner:** the data team\n**Closed on:** 2025-02-03\n';
  const a = parseStory('/p/docs/stories/3.1.story.md', story('3.1', 'Exported as CSV.', tail));
  assert.equal(a.status, 'Finalizado');
  assert.equal(a.statusLine, story('3.1', 'Exported as CSV.', tail).split('\n').findIndex((l) => l.startsWith('**Status:**')));
  // A heading after the block: it was no closing block, and a Status deep in a section is not the story's.
  const b = parseStory('/p/docs/stories/3.2.story.md', story('3.2', 'Exported as CSV.', `${tail}\n## Follow-ups\n\nNone.\n`));
  assert.equal(b.status, undefined);
  // A status stated where templates put it wins over the closing block.
  const c = parseStory('/p/docs/stories/3.3.story.md', story('3.3', 'Status: Review', tail));
  assert.equal(c.status, 'Review');
  // A line of dashes under a paragraph is a heading's underline (setext), not a break.
  const d = parseStory('/p/docs/stories/3.4.story.md', story('3.4', 'Exported as CSV.', '\nClosing notes\n---\n\n**Status:** Finalizado\n'));
  assert.equal(d.status, undefined);
  // A Status label there that states no status (`see the ADR`) is not taken.
  const e = parseStory('/p/docs/stories/3.5.story.md', story('3.5', 'Exported as CSV.', '\n---\n\n**Status:** see the decision record\n'));
  assert.equal(e.status, undefined);
});

test('a status word then the team\'s commentary with no separator (`Draft written up by the planning group`) is that word: no unknown-status warning', () => {
  const a = parseStory('/p/docs/stories/4.1.story.md', story('4.1', '**Status:** Draft written up by the planning group (session 4)'));
  assert.equal(a.status, 'Draft');
  const b = parseStory('/p/docs/stories/4.2.story.md', story('4.2', 'Status: In Progress since the kickoff'));
  assert.equal(b.status, 'In Progress');
  const c = parseStory('/p/docs/stories/4.3.story.md', story('4.3', 'Status: Not started pending budget'));
  assert.equal(c.status, 'Not started');
  // No status word opening it: the value as written (the team's own word), unchanged.
  const d = parseStory('/p/docs/stories/4.4.story.md', story('4.4', 'Status: Parked awaiting budget'));
  assert.equal(d.status, 'Parked awaiting budget');
  inProject({
    'docs/stories/4.1.story.md': story('4.1', '**Status:** Draft written up by the planning group (session 4)'),
  }, (root) => {
    const st = storiesOf(root)[0];
    assert.equal(st?.status, 'ready-for-dev', JSON.stringify(st));
    assert.deepEqual(st.problems.filter((p) => p.severity === 'warning' || p.severity === 'error').map((p) => p.code), []);
  });
});

test('a transition written as the status (`Backlog -> In Progress`, `Draft → Approved`) is where the story went', () => {
  assert.equal(parseStory('/p/docs/stories/5.1.story.md', story('5.1', '**Status**: Backlog -> In Progress')).status, 'In Progress');
  assert.equal(parseStory('/p/docs/stories/5.2.story.md', story('5.2', 'Status: Draft → Approved')).status, 'Approved');
  // An arrow to no status (`Done → see 5.4`): the status before it.
  assert.equal(parseStory('/p/docs/stories/5.3.story.md', story('5.3', 'Status: Done → see 5.4')).status, 'Done');
});

const LEDGER = 'development_status:\n  epic-1: in-progress\n  1-1-landing-page: in-progress\n  1-2-contact-form: backlog\n';
test('a ledger and stories in a hidden docs folder (`.docs/requirements/sprint-status.yml`, `.docs/stories/`) are the sprint; a tool\'s hidden folder is not looked in', () => {
  inProject({
    '.docs/requirements/sprint-status.yml': LEDGER,
    '.docs/stories/1-1-landing-page.md': story('1.1', 'Status: in-progress').replace('- [x] test it', '- [ ] test it'),
  }, (root) => {
    const s = sprintOf(root) as Sprint & { ledger: string };
    assert.equal(s.ledger, '.docs/requirements/sprint-status.yml');
    const st = s.epics.flatMap((e) => e.stories).find((x) => x.key === '1-1-landing-page') as unknown as { file: string; status: string };
    assert.equal(st?.file, '.docs/stories/1-1-landing-page.md', JSON.stringify(s.epics));
  });
  // The same under `docs/`, the ledger in a folder of its own: its stories beside it are found.
  inProject({
    'docs/requirements/sprint-status.yml': LEDGER,
    'docs/stories/1-1-landing-page.md': story('1.1', 'Status: in-progress').replace('- [x] test it', '- [ ] test it'),
  }, (root) => {
    const st = storiesOf(root).find((x) => x.key === '1-1-landing-page') as unknown as { file: string };
    assert.equal(st?.file, 'docs/stories/1-1-landing-page.md');
  });
  // A tool's folder (an editor's, an agent's) holding a copy is not the project's sprint.
  inProject({ '.idea/notes/sprint-status.yaml': LEDGER, 'README.md': '# app\n' }, (root) => {
    const r = cli(root, 'sprint');
    assert.notEqual(r.status, 0, r.stdout);
  });
});

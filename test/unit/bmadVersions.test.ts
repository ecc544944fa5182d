// Every released BMAD version's own shapes (BMAD-METHOD's git history, v4.0 to 6.11: install
// folder, config, ledger, story template and the status words its workflows write), generated as a
// small project per version with stories at every status of that version. The text is ours; the
// shapes are the versions'. Every story status reads with the meaning the version gives it, the
// ledger's entries all bind to their files, nothing warns in a project whose files and ledger agree,
// and every step-tracked planning artifact is identified.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus } from '../../src/core/bmad/story';
import { createStateCore } from '../../src/core/index';

const NOW = new Date('2026-11-28T12:00:00Z');
const TITLES = ['Light the lamp', 'Trim the wick', 'Fill the oil', 'Clean the lens', 'Log the ships', 'Ring the bell'];
const slug = (t: string) => t.toLowerCase().replace(/\s+/g, '-');

interface Version {
  name: string;
  /** Files of the install and config. */
  install: Record<string, string>;
  /** The story file's path for epic e, story n. */
  storyPath: (e: number, n: number, title: string) => string;
  /** The story file's text with its status as the version writes it. */
  story: (e: number, n: number, title: string, word: string) => string;
  /** Status words the version's templates and workflows write, with the ledger status each means. */
  words: [string, string][];
  /** The ledger, when the version has one: its path and its text from the stories' keys and ledger words. */
  ledger?: { path: string; text: (entries: [string, string][]) => string };
  /** Where its planning artifacts go (step-tracked, v6 only). */
  planning?: string;
}

const v4Story = (heading: 'inline' | 'section') => (e: number, n: number, title: string, word: string) =>
  `# Story ${e}.${n}: ${title}\n\n${heading === 'inline' ? `## Status: ${word}` : `## Status\n\n${word}`}\n\n## Story\n\n**As a** keeper,\n**I want** ${title.toLowerCase()},\n**so that** ships see the coast.\n\n## Acceptance Criteria\n\n1. It is done at dusk.\n\n## Tasks / Subtasks\n\n- [${word === 'Done' ? 'x' : ' '}] Task 1 (AC: 1)\n\n## Dev Notes\n\n### Testing\n\nBy hand.\n\n## Change Log\n\n| Date | Version | Description | Author |\n|---|---|---|---|\n| 2026-01-12 | 1.0 | Drafted | Bob |\n\n## Dev Agent Record\n\n### File List\n\n## QA Results\n`;

const v6Story = (e: number, n: number, title: string, word: string) =>
  `# Story ${e}.${n}: ${title}\n\nStatus: ${word}\n\n## Story\n\nAs a keeper,\nI want ${title.toLowerCase()},\nso that ships see the coast.\n\n## Acceptance Criteria\n\n1. It is done at dusk.\n\n## Tasks / Subtasks\n\n- [${/done|review/i.test(word) ? 'x' : ' '}] Task 1 (AC: 1)\n  - [${/done|review/i.test(word) ? 'x' : ' '}] Subtask 1.1\n\n## Dev Notes\n\n- Nothing special.\n\n### References\n\n- [Source: docs/epics.md#Epic-${e}]\n\n## Dev Agent Record\n\n### Agent Model Used\n\n### Debug Log References\n\n### Completion Notes List\n\n### File List\n`;

const ledger = (header: string, retro: string) => (entries: [string, string][]) => {
  const epics = [...new Set(entries.map(([k]) => k.split('-')[0]))];
  const lines = [header, 'development_status:'];
  for (const e of epics) {
    const mine = entries.filter(([k]) => k.split('-')[0] === e);
    lines.push(`  epic-${e}: ${mine.every(([, s]) => s === 'done') ? 'done' : mine.some(([, s]) => s !== 'backlog') ? 'in-progress' : 'backlog'}`);
    for (const [k, s] of mine) lines.push(`  ${k}: ${s}`);
    lines.push(`  epic-${e}-retrospective: ${retro}`);
  }
  return `${lines.join('\n')}\n`;
};

const V6_WORDS: [string, string][] = [['backlog', 'backlog'], ['ready-for-dev', 'ready-for-dev'], ['in-progress', 'in-progress'], ['review', 'review'], ['done', 'done']];
const HEADER = '# generated: 2026-01-12\n# project: Lumen\n# project_key: NOKEY\n# tracking_system: file-system\n# story_location: "{story_location}"\n\ngenerated: 2026-01-12\nproject: Lumen\nproject_key: NOKEY\ntracking_system: file-system\nstory_location: "{story_location}"\n';

const VERSIONS: Version[] = [
  {
    name: 'v4.0 (.bmad-core, `## Status: Draft` heading)',
    install: { '.bmad-core/core-config.yml': 'devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n', '.bmad-core/agents/sm.md': '# sm\n' },
    storyPath: (e, n) => `docs/stories/${e}.${n}.story.md`,
    story: v4Story('inline'),
    words: [['Draft', 'ready-for-dev'], ['Approved', 'ready-for-dev'], ['InProgress', 'in-progress'], ['Review', 'review'], ['Done', 'done']],
  },
  {
    name: 'v4.44 / v5.1 (.bmad-core/core-config.yaml, `## Status` section)',
    install: { '.bmad-core/core-config.yaml': 'markdownExploder: true\nqa:\n  qaLocation: docs/qa\nprd:\n  prdFile: docs/prd.md\ndevStoryLocation: docs/stories\nslashPrefix: BMad\n', '.bmad-core/agents/sm.md': '# sm\n', 'docs/qa/gates/1.5-log-the-ships.yml': 'schema: 1\nstory: "1.5"\ngate: PASS\nstatus_reason: "All criteria met."\nreviewer: "Quinn"\n' },
    storyPath: (e, n, t) => `docs/stories/${e}.${n}.${slug(t)}.md`,
    story: v4Story('section'),
    words: [['Draft', 'ready-for-dev'], ['Approved', 'ready-for-dev'], ['InProgress', 'in-progress'], ['Review', 'review'], ['Done', 'done'], ['Ready for Review', 'review']],
  },
  {
    name: 'v6.0.0-alpha.0 (bmad/, stories as story-N.M.md, Draft … Ready for Review)',
    install: { 'bmad/bmm/config.yaml': "project_name: Lumen\noutput_folder: '{project-root}/docs'\ndev_story_location: '{project-root}/docs/stories'\nuser_name: Ana\ncommunication_language: English\n", 'bmad/core/config.yaml': 'user_name: Ana\n' },
    storyPath: (e, n) => `docs/stories/story-${e}.${n}.md`,
    story: v6Story,
    words: [['Draft', 'ready-for-dev'], ['Approved', 'ready-for-dev'], ['In Progress', 'in-progress'], ['Ready for Review', 'review'], ['Done', 'done']],
  },
  {
    name: 'v6.0.0-alpha.10 (bmad/, docs/sprint-artifacts ledger, drafted and contexted)',
    install: { 'bmad/bmm/config.yaml': "project_name: Lumen\noutput_folder: '{project-root}/docs'\nsprint_artifacts: '{project-root}/docs/sprint-artifacts'\nuser_name: Ana\n", 'bmad/core/config.yaml': 'user_name: Ana\n' },
    storyPath: (e, n, t) => `docs/sprint-artifacts/${e}-${n}-${slug(t)}.md`,
    story: v6Story,
    words: [['drafted', 'ready-for-dev'], ['ready-for-dev', 'ready-for-dev'], ['in-progress', 'in-progress'], ['review', 'review'], ['done', 'done']],
    ledger: { path: 'docs/sprint-artifacts/sprint-status.yaml', text: ledger(HEADER, 'optional') },
    planning: 'docs',
  },
  {
    name: 'v6.0.0-alpha.16 (.bmad/ named by bmad_folder, sprint-artifacts)',
    install: { '.bmad/bmm/config.yaml': "project_name: Lumen\nbmad_folder: .bmad\noutput_folder: '{project-root}/docs'\nsprint_artifacts: '{project-root}/docs/sprint-artifacts'\n", '.bmad/core/config.yaml': 'bmad_folder: .bmad\nuser_name: Ana\n' },
    storyPath: (e, n, t) => `docs/sprint-artifacts/${e}-${n}-${slug(t)}.md`,
    story: v6Story,
    words: V6_WORDS,
    ledger: { path: 'docs/sprint-artifacts/sprint-status.yaml', text: ledger(HEADER, 'completed') },
    planning: 'docs',
  },
  {
    name: 'v6.0.0-alpha.23 … 6.0 (_bmad/, _bmad-output/implementation-artifacts)',
    install: { '_bmad/bmm/config.yaml': "project_name: Lumen\noutput_folder: '{project-root}/_bmad-output'\nplanning_artifacts: '{project-root}/_bmad-output/planning-artifacts'\nimplementation_artifacts: '{project-root}/_bmad-output/implementation-artifacts'\nproject_knowledge: '{project-root}/docs'\ndocument_output_language: English\n", '_bmad/core/config.yaml': 'user_name: Ana\n' },
    storyPath: (e, n, t) => `_bmad-output/implementation-artifacts/${e}-${n}-${slug(t)}.md`,
    story: v6Story,
    words: V6_WORDS,
    ledger: { path: '_bmad-output/implementation-artifacts/sprint-status.yaml', text: ledger(HEADER, 'optional') },
    planning: '_bmad-output/planning-artifacts',
  },
  {
    name: 'v6.2 … 6.8 (skills in .claude/skills, _config/skill-manifest.csv)',
    install: {
      '_bmad/bmm/config.yaml': "project_name: Lumen\noutput_folder: '{project-root}/_bmad-output'\nplanning_artifacts: '{project-root}/_bmad-output/planning-artifacts'\nimplementation_artifacts: '{project-root}/_bmad-output/implementation-artifacts'\n",
      '_bmad/core/config.yaml': 'user_name: Ana\n',
      '_bmad/_config/skill-manifest.csv': 'canonicalId,name,description,module,path\nbmad-create-story,bmad-create-story,"Create a story",bmm,.claude/skills/bmad-create-story/SKILL.md\nbmad-create-prd,bmad-create-prd,"Create a PRD",bmm,.claude/skills/bmad-create-prd/SKILL.md\n',
      '.claude/skills/bmad-create-story/SKILL.md': '---\nname: bmad-create-story\ndescription: Create the next story.\n---\n\nWrite the story to `{implementation_artifacts}/{{story_key}}.md`.\n',
      '.claude/skills/bmad-create-prd/SKILL.md': '---\nname: bmad-create-prd\ndescription: Create a PRD.\n---\n\nOutput: `{planning_artifacts}/prd.md`.\n',
    },
    storyPath: (e, n, t) => `_bmad-output/implementation-artifacts/${e}-${n}-${slug(t)}.md`,
    story: v6Story,
    words: V6_WORDS,
    ledger: { path: '_bmad-output/implementation-artifacts/sprint-status.yaml', text: ledger(HEADER, 'optional') },
    planning: '_bmad-output/planning-artifacts',
  },
  {
    name: 'v6.11 (layered _bmad/config.toml, MM-DD-YYYY timestamps, action_items)',
    install: {
      '_bmad/config.toml': '[core]\nproject_name = "Lumen"\noutput_folder = "{project-root}/_bmad-output"\n\n[modules.bmm]\nplanning_artifacts = "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts = "{project-root}/_bmad-output/implementation-artifacts"\n',
      '_bmad/config.user.toml': '[core]\nuser_name = "Ana"\n',
    },
    storyPath: (e, n, t) => `_bmad-output/implementation-artifacts/${e}-${n}-${slug(t)}.md`,
    story: v6Story,
    words: V6_WORDS,
    ledger: {
      path: '_bmad-output/implementation-artifacts/sprint-status.yaml',
      text: (entries) => `${ledger('# Timestamps use MM-DD-YYYY HH:MM.\ngenerated: 11-20-2026 09:30\nlast_updated: 11-27-2026 16:05\nproject: Lumen\nproject_key: NOKEY\ntracking_system: file-system\nstory_location: "_bmad-output/implementation-artifacts"\n', 'optional')(entries)}action_items:\n`,
    },
    planning: '_bmad-output/planning-artifacts',
  },
];

function generate(v: Version): { root: string; expected: Map<string, string> } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-versions-')));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  for (const [rel, text] of Object.entries(v.install)) write(rel, text);
  const expected = new Map<string, string>();
  const entries: [string, string][] = [];
  v.words.forEach(([word, meaning], i) => {
    const e = 1 + Math.floor(i / 4);
    const n = 1 + (i % 4);
    const title = TITLES[i % TITLES.length];
    write(v.storyPath(e, n, title), v.story(e, n, title, word));
    expected.set(v.storyPath(e, n, title), meaning);
    entries.push([`${e}-${n}-${slug(title)}`, meaning]);
  });
  if (v.ledger) write(v.ledger.path, v.ledger.text(entries));
  const planned = new Map<number, string[]>();
  for (const [key] of entries) {
    const [e, n, ...rest] = key.split('-');
    const title = rest.join(' ').replace(/^./, (c) => c.toUpperCase());
    planned.set(Number(e), [...(planned.get(Number(e)) ?? []), `### Story ${e}.${n}: ${title}\n\nAs a keeper…\n`]);
  }
  write(`${v.planning ?? 'docs'}/epics.md`, `# Lumen - Epic Breakdown\n\n${[...planned].map(([e, stories]) => `## Epic ${e}: Lamps ${e}\n\n${stories.join('\n')}`).join('\n')}`);
  if (v.planning) write(`${v.planning}/prd.md`, "---\nstepsCompleted: [1, 2, 3]\ninputDocuments: []\nworkflowType: 'prd'\nproject_name: 'Lumen'\n---\n\n# Product Requirements Document - Lumen\n");
  return { root, expected };
}

describe('every BMAD version`s own project reads right', () => {
  for (const v of VERSIONS) {
    test(v.name, async () => {
      const { root, expected } = generate(v);
      const r = loadSprint(root, { now: NOW, cache: false });
      assert.ok(r, 'a sprint is read');
      const read = new Map(r.stories.filter((s) => s.file).map((s) => [path.relative(root, s.file!), s]));
      for (const [file, meaning] of expected) {
        const s = read.get(file);
        assert.ok(s, `${file} is a story of the sprint (stories: ${[...read.keys()].join(', ')})`);
        const n = normalizeStoryStatus(s.fileStatus ?? '');
        assert.equal(n.status ?? n.suggestion, meaning, `${file}: '${s.fileStatus}'`);
        if (v.ledger) assert.equal(s.ledgerStatus, meaning, `${file}: bound to its ledger entry`);
      }
      const noisy = r.problems.filter((p) => p.severity !== 'info' && p.code !== 'work-stalled' && p.code !== 'ledger-stale');
      assert.deepEqual(noisy.map((p) => `${path.relative(root, p.file)} ${p.code}: ${p.message}`), []);
      if (v.planning) {
        const core = createStateCore({ roots: [root], memory: false, scanIndex: false });
        try {
          const prd = (await core.scan()).workflows.find((w) => w.file.endsWith('prd.md'));
          assert.ok(prd, 'the PRD is listed');
          assert.equal(prd.workflow.replace(/^bmad-(create-)?/, ''), 'prd');
        } finally {
          await core.close();
        }
      }
    });
  }
});

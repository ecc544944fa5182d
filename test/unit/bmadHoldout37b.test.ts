// Session 37, investigator b (issue 20). Fixtures written here, no copied text.
// Each test failed before its rule (run it with WAYMARK_CLI=/work/scratch/base-s37/dist/cli.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';

const config = 'project_name: loom\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n';
const ledger = (lines: string[]) => ['generated: 2026-11-01', 'project: loom', 'story_location: _bmad-output/implementation-artifacts', '', 'development_status:', ...lines.map((l) => `  ${l}`), ''].join('\n');
const story = (title: string, status: string) => `# ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a weaver,\nI want ${title.toLowerCase()},\nso that the cloth holds.\n`;
/** A bug report kept as a story of a team's series (`BUG-004`), its status in bold. */
const bug = (id: string, title: string, status: string) => `# Bug: ${title}\n\n**ID:** ${id}\n**Severity:** High\n**Status:** ${status}\n\n## Description\n\nThe ${title.toLowerCase()} breaks.\n`;

type Problem = { file: string; severity: string; code: string; data?: { key?: string } };

test('a ledger key of a team series (`BUG-004-warp-snaps`) whose file carries the same id with another slug (`BUG-004-warp-thread-snaps.md`) is that story: its drift is found', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger([
      'epic-1: done', '1-1-set-up-loom: done', 'epic-1-retrospective: optional',
      '# Bugs: see bugs/BUG-00X-*.md',
      'BUG-003-heddle-jams: done',
      'BUG-004-warp-snaps: done',
    ]),
    '_bmad-output/implementation-artifacts/1-1-set-up-loom.md': story('Story 1.1: Set up loom', 'done'),
    '_bmad-output/implementation-artifacts/bugs/BUG-003-heddle-jams.md': bug('BUG-003', 'Heddle jams', 'Fixed'),
    '_bmad-output/implementation-artifacts/bugs/BUG-004-warp-thread-snaps.md': bug('BUG-004', 'Warp thread snaps', 'Open'),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    const drift = v.problems.filter((p) => p.code === 'story-status-drift' && p.severity === 'warning');
    assert.deepEqual(drift.map((p) => p.file.replace(/^.*[\\/]/, '')), ['BUG-004-warp-thread-snaps.md'], JSON.stringify(v.problems));
    assert.ok(!v.problems.some((p) => p.code === 'ledger-story-no-file' && p.data?.key === 'BUG-004-warp-snaps'), JSON.stringify(v.problems));
    const s = json(root, 'sprint');
    const all = [...(s.epics ?? []).flatMap((e: { stories: unknown[] }) => e.stories), ...(s.stories ?? [])] as { key: string; file: string | null; fileStatus: string | null }[];
    const b4 = all.find((x) => x.key === 'BUG-004-warp-snaps');
    assert.match(String(b4?.file), /BUG-004-warp-thread-snaps\.md$/, JSON.stringify(b4));
  });
});

test('two files of one series id, or two keys of it, name no story: Waymark does not guess', () => {
  inProject({
    '_bmad/bmm/config.yaml': config,
    '_bmad-output/implementation-artifacts/sprint-status.yaml': ledger([
      'epic-1: done', '1-1-set-up-loom: done', 'epic-1-retrospective: optional',
      'BUG-004-warp-snaps: done',
      'BUG-005-shuttle-sticks: done',
      'BUG-005-shuttle-squeaks: done',
    ]),
    '_bmad-output/implementation-artifacts/1-1-set-up-loom.md': story('Story 1.1: Set up loom', 'done'),
    '_bmad-output/implementation-artifacts/bugs/BUG-004-warp-thread-snaps.md': bug('BUG-004', 'Warp thread snaps', 'Open'),
    '_bmad-output/implementation-artifacts/bugs/BUG-004-warp-thread-frays.md': bug('BUG-004', 'Warp thread frays', 'Open'),
    '_bmad-output/implementation-artifacts/bugs/BUG-005-shuttle-stuck.md': bug('BUG-005', 'Shuttle stuck', 'Open'),
  }, (root) => {
    const v = json(root, 'validate') as { problems: Problem[] };
    assert.ok(!v.problems.some((p) => p.code === 'story-status-drift'), JSON.stringify(v.problems));
  });
});

// Session 38 (held-out 38b left it): a team that keeps every story's status in its ledger only, none
// of its story files writing a `Status:` line, is not told so once per story: the missing line is that
// project's convention (an info each, `waymark fix` still adds one). A project whose files do write the
// line, one of them missing it, is warned on that one as before; and the files that start writing it
// turn the others' notes back into warnings, on an edit read incrementally too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inProject } from './fileHelpers';
import { cliJson as json } from './holdoutHelpers';
import { loadSprint } from '../../src/core/index';

const IA = '_bmad-output/implementation-artifacts';
const config = `project_name: kiln\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/${IA}"\n`;
const ledger = ['generated: 2026-11-20', '', 'development_status:', '  epic-1: in-progress', '  1-1-clay: done', '  1-2-glaze: done', '  1-3-fire: in-progress', '  1-4-cool: ready-for-dev', ''].join('\n');
const story = (n: string, title: string, status?: string) => `# Story ${n}: ${title}\n\n${status ? `Status: ${status}\n\n` : ''}## Story\n\nAs a potter, I want ${title.toLowerCase()}, so that the pots hold.\n\n## Acceptance Criteria\n\n1. It holds.\n\n## Tasks / Subtasks\n\n- [x] Do it\n`;
type P = { code: string; severity: string; file: string };

function files(withStatus: boolean): Record<string, string> {
  return {
    '_bmad/bmm/config.yaml': config,
    [`${IA}/sprint-status.yaml`]: ledger,
    [`${IA}/1-1-clay.md`]: story('1.1', 'Clay', withStatus ? 'done' : undefined),
    [`${IA}/1-2-glaze.md`]: story('1.2', 'Glaze', withStatus ? 'done' : undefined),
    [`${IA}/1-3-fire.md`]: story('1.3', 'Fire', withStatus ? 'in-progress' : undefined),
    [`${IA}/1-4-cool.md`]: story('1.4', 'Cool'),
  };
}

test('a project none of whose story files writes a Status line: each missing line is an info, not a warning', () => {
  inProject(files(false), (root) => {
    const v = json(root, 'validate').problems as P[];
    const missing = v.filter((p) => p.code === 'story-status-missing');
    assert.equal(missing.length, 4, JSON.stringify(v));
    assert.deepEqual([...new Set(missing.map((p) => p.severity))], ['info'], JSON.stringify(missing));
    assert.ok(!v.some((p) => p.severity !== 'info'), JSON.stringify(v));
  });
});

test('a project whose story files write the line, one missing it: that one is warned', () => {
  inProject(files(true), (root) => {
    const missing = (json(root, 'validate').problems as P[]).filter((p) => p.code === 'story-status-missing');
    assert.deepEqual(missing.map((p) => [p.file, p.severity]), [[`${IA}/1-4-cool.md`, 'warning']]);
  });
});

test('read incrementally (a story file edited, its Status line still absent): its note stays an info', () => {
  inProject(files(false), (root) => {
    const severities = () => (loadSprint(root, { cache: true })!.problems.filter((p) => p.code === 'story-status-missing').map((p) => p.severity));
    assert.deepEqual(severities(), ['info', 'info', 'info', 'info']);
    const f = path.join(root, IA, '1-3-fire.md');
    fs.writeFileSync(f, `${fs.readFileSync(f, 'utf8')}- [ ] Cool the kiln slowly\n`);
    const t = new Date(Date.now() - 10_000);
    fs.utimesSync(f, t, t);
    assert.deepEqual(severities(), ['info', 'info', 'info', 'info']);
  });
});

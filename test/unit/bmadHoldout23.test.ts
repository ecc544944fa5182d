// Real projects read right (issue 20, session 23): rules the reader learned from projects nobody
// working on it had seen, each with a fixture written here.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { isBmadProjectFolder } from '../../src/core/bmad/config';
import { workspace } from './fileHelpers';

const CLI = path.resolve('dist/cli.js');
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-holdout23-', waymark: false });
const ledgerOf = (rows: string[]) => ['project: ledgerly', 'development_status:', ...rows.map((r) => `  ${r}`), ''].join('\n');
const storyFile = (n: string, title: string, status: string, tasks = '- [x] Build it\n') =>
  `# Story ${n}: ${title}\n\n${status}\n\n## Story\n\nAs a user, I want ${title.toLowerCase()}, so that I get work done.\n\n## Tasks / Subtasks\n\n${tasks}`;
const sprintIn = (cwd: string) => {
  const r = spawnSync(process.execPath, [CLI, 'sprint', '--json'], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { epics: { stories: { key: string }[] }[] }).epics.flatMap((e) => e.stories.map((x) => x.key));
};

describe('a subfolder of a repository is a BMAD project of its own by the same test everywhere', () => {
  const root = {
    '.git/HEAD': 'ref: refs/heads/main\n',
    'docs/sprint-status.yaml': ledgerOf(['epic-1: in-progress', '1-1-provider-interface: done']),
    'docs/stories/1-1-provider-interface.md': storyFile('1.1', 'Provider Interface', 'Status: done'),
  };

  test('an alpha install (`svc/bmad/`) with its ledger in its own output folder: `waymark sprint` inside it reads it', () => {
    const dir = project({
      ...root,
      'svc/bmad/bmm/config.yaml': 'project_name: svc\noutput_folder: "{project-root}/out"\ndev_story_location: "{project-root}/out/stories"\n',
      'svc/out/sprint-status.yaml': ledgerOf(['epic-1: backlog', '1-1-queue-consumer: ready-for-dev']),
      'svc/out/stories/1-1-queue-consumer.md': storyFile('1.1', 'Queue Consumer', 'Status: ready-for-dev', '- [ ] Consume\n'),
      'svc/src/main.go': 'package main\n',
    });
    assert.deepEqual(sprintIn(path.join(dir, 'svc')), ['1-1-queue-consumer']);
    assert.deepEqual(sprintIn(path.join(dir, 'svc', 'src')), ['1-1-queue-consumer']);
    assert.deepEqual(sprintIn(dir), ['1-1-provider-interface']);
  });

  test('a skills install (`web/.claude/skills/bmad-*`) is a project; a plain `bmad/` source folder or a stray `docs/` is not', () => {
    const dir = project({
      ...root,
      'web/.claude/skills/bmad-dev-story/SKILL.md': '---\nname: bmad-dev-story\n---\n# Dev story\n',
      'lib/bmad/index.ts': 'export {};\n',
      'tools/docs/sprint-status.yaml': '# not a ledger: nothing listed\n',
    });
    assert.equal(isBmadProjectFolder(path.join(dir, 'web')), true);
    assert.equal(isBmadProjectFolder(path.join(dir, 'lib')), false);
    assert.equal(isBmadProjectFolder(path.join(dir, 'tools')), false);
    assert.equal(isBmadProjectFolder(dir), true);
    assert.deepEqual(sprintIn(path.join(dir, 'lib')), ['1-1-provider-interface']);
    assert.deepEqual(sprintIn(path.join(dir, 'tools', 'docs')), ['1-1-provider-interface']);
  });
});

// What the CI tests share: the CLI, and a repository with a base on main and a pull request's
// four kinds of state change on branch feature.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, ENV, git, tempDir } from './gitHelpers';

export function cli(cwd: string, args: string[], actor = 'tester'): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...ENV, WAYMARK_ACTOR: actor } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function ok(cwd: string, args: string[], actor?: string): string {
  const r = cli(cwd, args, actor);
  assert.equal(r.code, 0, `waymark ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

export function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

export const IMPL = '_bmad-output/implementation-artifacts';
const story = (title: string, status: string, tasks: string) => `# Story ${title}\n\nStatus: ${status}\n\n## Tasks / Subtasks\n\n${tasks}\n\n## Dev Notes\n`;

/**
 * A repository whose main has: story 1-1 in progress with two open tasks; story 1-2 drifted (the
 * ledger says review, its file in-progress); plan.md with design and build done; release.md with a
 * gated approve step not passed. Returns the folder, on branch `feature` made from main.
 */
export function prRepo(): string {
  const root = tempDir('wm-ci-');
  git(root, 'init', '-q', '-b', 'main');
  write(root, `${IMPL}/sprint-status.yaml`, 'development_status:\n  epic-1: in-progress\n  1-1-login: in-progress\n  1-2-logout: review\n');
  write(root, `${IMPL}/1-1-login.md`, story('1.1: login', 'in-progress', '- [ ] Build it\n- [ ] Test it'));
  write(root, `${IMPL}/1-2-logout.md`, story('1.2: logout', 'in-progress', '- [x] Build it'));
  write(root, 'plan.md', '---\nworkflow: plan\nstatus: in_progress\nsteps: [design, build, ship]\nstepsCompleted: [design, build]\n---\n# Plan\n');
  write(root, 'release.md', '---\nworkflow: release\nstatus: in_progress\nsteps: [draft, {id: approve, gate: true}, publish]\nstepsCompleted: [draft]\n---\n# Release\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'base');
  git(root, 'checkout', '-q', '-b', 'feature');
  return root;
}

/** The four changes of the issue: (a) story done with open tasks, (b) a gate file by hand, (c) a rewind, (d) an old drift fixed. */
export function makePrChanges(root: string): void {
  ok(root, ['story', 'set-status', '1-1-login', 'review'], 'dev-agent');
  ok(root, ['story', 'set-status', '1-1-login', 'done'], 'dev-agent');
  write(root, '.waymark/gates/release/approve.gate', 'gate: PASS\n');
  write(root, 'plan.md', '---\nworkflow: plan\nstatus: in_progress\nsteps: [design, build, ship]\nstepsCompleted: [design]\n---\n# Plan\n');
  write(root, `${IMPL}/1-2-logout.md`, story('1.2: logout', 'review', '- [x] Build it'));
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'feature work');
}


// The CLI's JSON answers the held-out rounds' tests read (issue 20): a verb run over a project as a
// user runs it (`waymark VERB . --json`, the built dist/cli.js, no scan index kept between runs).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { loadSprint } from '../../src/core/bmad/sprint';
import { workspace } from './fileHelpers';

export function cli(dir: string, verb: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [path.resolve('dist/cli.js'), verb, '.', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
}

/**
 * `waymark ARGS…` in `root` as a user runs it, with the build named by WAYMARK_CLI (default
 * dist/cli.js: a test's rule can be shown failing on an older build), no scan index kept between runs.
 */
export function runCli(root: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [path.resolve(process.env.WAYMARK_CLI ?? 'dist/cli.js'), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
}

/** `waymark ARGS… --json`'s answer (exit 0 or 1: problems found is not a failure of the run). */
export function cliJson(root: string, ...args: string[]): any {
  const r = runCli(root, ...args, '--json');
  assert.ok(r.status === 0 || r.status === 1, `${args.join(' ')} exits ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export type Problem = { file: string; severity: string; code: string; message: string; data?: { key?: string } };
/** `validate`'s problems (exit 0 or 1: problems found is not a failure of the run). */
export function problems(root: string): Problem[] {
  const r = cli(root, 'validate');
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return (JSON.parse(r.stdout) as { problems: Problem[] }).problems;
}

export type Story = { key: string; file: string | null; fileStatus: string | null };
/** Every story `sprint` lists, epic by epic. */
export function stories(root: string): Story[] {
  const r = cli(root, 'sprint');
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { epics: { stories: Story[] }[] }).epics.flatMap((e) => e.stories);
}

export type Item = { id: string; file?: string };
/** What `next` offers: its pick and the ready list. */
export function offered(root: string): Item[] {
  const r = cli(root, 'next');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { next: Item | null; ready: Item[] };
  return [...(out.next ? [out.next] : []), ...out.ready];
}

/** The sprint read in process from a workspace of `files` (written under `prefix`, removed after), as at `now`. */
export function sprintOfFiles(files: Record<string, string>, now: Date, prefix: string): ReturnType<typeof loadSprint> {
  const root = workspace(files, { prefix, waymark: false });
  try {
    return loadSprint(root, { now });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** A BMAD v6 skills install of quick-spec (its step-01 renames the WIP file to tech-spec-{slug}.md): the fixture of the tests of quick-spec's specs. */
export const quickSpecInstall: Record<string, string> = {
  '_bmad/bmm/config.yaml': 'project_name: lantern\noutput_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\n',
  '_bmad/_config/skill-manifest.csv': 'canonicalId,name,description,module,path,install_to_bmad\n"bmad-quick-spec","bmad-quick-spec","Writes a short spec.","bmm","_bmad/bmm/workflows/bmad-quick-flow/bmad-quick-spec/SKILL.md","true"\n',
  '.claude/skills/bmad-quick-spec/SKILL.md': '---\nname: bmad-quick-spec\ndescription: Writes a short spec.\n---\nFollow workflow.md.\n',
  '.claude/skills/bmad-quick-spec/workflow.md': '# Quick spec\n\nWrite `{implementation_artifacts}/tech-spec-{slug}.md`.\n',
  '.claude/skills/bmad-quick-spec/steps/step-01-understand.md': "---\nwipFile: '{implementation_artifacts}/tech-spec-wip.md'\n---\n# Step 1\n\nWhen done, rename `{wipFile}` to `{implementation_artifacts}/tech-spec-{slug}.md`.\n",
  '.claude/skills/bmad-quick-spec/steps/step-02-investigate.md': '# Step 2\n',
  '.claude/skills/bmad-quick-spec/steps/step-03-generate.md': '# Step 3\n',
  '.claude/skills/bmad-quick-spec/steps/step-04-review.md': '# Step 4\n',
};

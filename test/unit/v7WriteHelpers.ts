// A BMAD v7 project for the write tests (set-status, hooks, MCP): one initiative, two epics, plans
// in several statuses, a pulled leaf file, entries with no file; optionally a tracker store.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempDir } from './gitHelpers';

export const INIT = '_bmad-output/initiative-shop';
export const LOGIN = `${INIT}/epic-login`;
export const PROFILE = `${INIT}/epic-profile`;

/** The plan of 1.1 (in review), with a body the writes must keep. */
export const LOGIN_PLAN = `${LOGIN}/story-login-form-plan.md`;
export const loginPlan = (status: string, extra = '') => `---\ntitle: "Login form"\nticket: 1\ntype: feature\nstatus: ${status}\n${extra}baseline_revision: abc123\n---\n\n# Login form plan\n\n## Tasks\n\n- [x] Form\n- [x] Validation\n\n## Code Review\n\nLooks good.\n`;
export const DONE_PLAN = `${PROFILE}/story-display-name-plan.md`;

export const FILES: Record<string, string> = {
  '_bmad/config.toml': '[core]\noutput_folder = "{project-root}/_bmad-output"\nactive_initiative = "initiative-shop"\n',
  [`${INIT}/initiative-shop.md`]: '---\ntype: initiative\ntitle: Shop\n---\n\n# Shop\n',
  [`${INIT}/tickets.toml`]: '[[epic]]\nid = 1\nslug = "epic-login"\n\n[[epic]]\nid = 2\nslug = "epic-profile"\nafter = [{ epic = 1, needs = "accounts" }]\n',
  [`${LOGIN}/epic-login.md`]: '---\ntype: epic\ntitle: Login\nstatus: in-progress\n---\n\n# Login\n',
  [`${LOGIN}/tickets.toml`]: [
    'next_id = 5',
    '',
    '[[entry]]', 'id = 1', 'type = "story"', 'title = "Login form"', 'after = []', '',
    '[[entry]]', 'id = 2', 'type = "story"', 'title = "Session cookie"', 'after = [1]', '',
    '[[entry]]', 'id = 3', 'type = "bug"', 'title = "Password reset mail"', '',
    '[[entry]]', 'id = 4', 'type = "spike"', 'title = "SSO options"', '',
  ].join('\n'),
  [LOGIN_PLAN]: loginPlan('in-review'),
  [`${LOGIN}/story-session-cookie.md`]: '---\nid: 2\ntype: story\ntitle: "Session cookie"\nparent: epic-login\nafter: [1]\nhitl: false\n---\n\n# Session cookie\n',
  [`${PROFILE}/epic-profile.md`]: '---\ntype: epic\ntitle: Profile\n---\n\n# Profile\n',
  [`${PROFILE}/tickets.toml`]: [
    '[[entry]]', 'id = 1', 'type = "story"', 'title = "Avatar upload"', 'after = ["1.2"]', '',
    '[[entry]]', 'id = 2', 'type = "story"', 'title = "Display name"', '',
  ].join('\n'),
  [DONE_PLAN]: '---\ntitle: "Display name"\nticket: 2\nstatus: done\n---\n\n# Display name plan\n',
};

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** A new v7 project in a temp folder (a git repository when `git`); `store`: the ticket store kind. */
export function v7Project(opts: { store?: string; git?: boolean; extra?: Record<string, string> } = {}): string {
  const root = tempDir('wm-v7write-');
  writeFiles(root, { ...FILES, ...(opts.extra ?? {}) });
  if (opts.store) writeFiles(root, { '_bmad/custom/ticketing-store-config.toml': `[tickets]\nstore = "${opts.store}"\n` });
  if (opts.git) spawnSync('git', ['init', '-q'], { cwd: root });
  return root;
}

export function read(root: string, rel: string): string {
  return fs.readFileSync(path.join(root, rel), 'utf8');
}

/** BMAD's own tickets.py (a scratch copy, never vendored), when one is there to compare with. */
export const TICKETS_PY = process.env.WAYMARK_TICKETS_PY ?? '/work/scratch/bmad-v7/bmad-ticket/scripts/tickets.py';

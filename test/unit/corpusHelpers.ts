// The corpus rounds' fixtures (test/fixtures/bmad-corpusN): a fresh copy of one of their projects,
// and the CLI run over it as a user would (JSON out, no colour, no scan index).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const CLI = path.resolve('dist/cli.js');

export function corpusFixture(name: string) {
  const fix = path.resolve('test/fixtures', `bmad-${name}`);
  return {
    /** A copy of the fixture's `sub` folder in a new temp folder (by its real path). */
    copy(sub: string): string {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `wm-${name}-`)));
      fs.cpSync(path.join(fix, sub), dir, { recursive: true });
      return dir;
    },
    /** `waymark ARGS . --json` in `dir`. */
    cli(dir: string, ...args: string[]) {
      return spawnSync(process.execPath, [CLI, ...args, '.', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' } });
    },
  };
}

/** A v6 story file: its title, `Status:` line and one task (ticked unless `done` is false). */
export function storyText(n: string, title: string, status: string, done = true): string {
  return `# Story ${n}: ${title}\n\nStatus: ${status}\n\n## Tasks / Subtasks\n\n- [${done ? 'x' : ' '}] Build ${title.toLowerCase()}\n`;
}
